/*
 * findings.c - the rule registry and the engine. Each rule (rules_*.c) is a
 * pure function of the model that states what it saw (evidence with values
 * and where they came from), the layer it concerns, and the command a human
 * would run next.
 */
#include <string.h>
#include "fabtop/findings.h"
#include "fabtop/rules.h"
#include "fabtop/util.h"

const struct fab_rule fab_rules[] = {
	{ .id = "topo.nic-far", .run = rule_nic_far,
	  .layer = "topology: GPUDirect RDMA needs the GPU and its NIC under one PCIe switch" },
	{ .id = "topo.nic-shared", .run = rule_nic_shared,
	  .layer = "topology: one NIC (rail) per GPU keeps each GPU's network traffic separate" },
	{ .id = "pcie.degraded", .run = rule_pcie_degraded,
	  .layer = "PCIe: the link between CPU/switch and device caps every byte above it" },
	{ .id = "pcie.acs", .run = rule_pcie_acs,
	  .layer = "PCIe: ACS decides whether peer-to-peer traffic may stay inside a switch" },
};
const int fab_nrules = (int)(sizeof(fab_rules) / sizeof(fab_rules[0]));

void findings_run(struct fab_model *m)
{
	m->nfindings = 0;
	for (int i = 0; i < fab_nrules; i++) {
		int first = m->nfindings;
		fab_rules[i].run(m);
		for (int f = first; f < m->nfindings; f++)
			fab_strlcpy(m->findings[f].layer, fab_rules[i].layer,
				    sizeof(m->findings[f].layer));
	}
}

int findings_worst(const struct fab_model *m, const char *prefix)
{
	int worst = -1;
	for (int i = 0; i < m->nfindings; i++)
		if ((!prefix || strncmp(m->findings[i].id, prefix, strlen(prefix)) == 0) &&
		    (int)m->findings[i].sev > worst)
			worst = (int)m->findings[i].sev;
	return worst;
}
