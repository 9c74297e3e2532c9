/*
 * findings.c - the rule registry and the engine. Each rule (rules_*.c) is a
 * pure function of the model that states what it saw (evidence with values
 * and where they came from), the layer it concerns, and the command a human
 * would run next.
 */
#include <string.h>
#include "fabtop/findings.h"
#include "rules.h"
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
	{ .id = "links.port-down", .run = rule_port_down,
	  .layer = "link: a port that is not ACTIVE with its physical link up carries no traffic at all" },
	{ .id = "links.no-sm", .run = rule_no_sm,
	  .layer = "InfiniBand subnet: a port turns ACTIVE only after a subnet manager assigns its LID and routes" },
	{ .id = "links.rate-degraded", .run = rule_rate_degraded,
	  .layer = "link: the negotiated width x lane speed caps every transfer over this port" },
	{ .id = "links.pcie-bottleneck", .run = rule_pcie_bottleneck,
	  .layer = "PCIe: the NIC's host link must carry its ports' line rate, or the network never reaches it" },
	{ .id = "links.mtu-mismatch", .run = rule_mtu_mismatch,
	  .layer = "RoCE: the RDMA MTU follows the netdev MTU; smaller packets cost bandwidth, mismatches break paths" },
	{ .id = "links.roce-no-ipv4", .run = rule_roce_no_ipv4,
	  .layer = "RoCE addressing: each connection picks a GID; NCCL and most apps want a routable IPv4 RoCE v2 one" },
	{ .id = "links.gid-netns", .run = rule_gid_netns,
	  .layer = "namespaces: a RoCE GID belongs to a netdev, which may live in another network namespace (pod)" },
	{ .id = "links.errors", .run = rule_link_errors,
	  .layer = "physical/link: error counters record cable, transceiver and signal trouble since the last clear" },
	{ .id = "links.pfc-off", .run = rule_pfc_off,
	  .layer = "RoCE QoS: RDMA over Ethernet expects a lossless traffic class (PFC) and recovers from drops slowly" },
	{ .id = "links.pfc-no-ecn", .run = rule_pfc_no_ecn,
	  .layer = "RoCE congestion: ECN (DCQCN) slows senders before PFC pause frames spread through the fabric" },
	{ .id = "links.not-usable", .run = rule_not_usable,
	  .layer = "access: verbs need /dev/infiniband/uverbsN in this mount namespace, openable by this user" },
};
const int fab_nrules = (int)(sizeof(fab_rules) / sizeof(fab_rules[0]));

void findings_run(struct fab_model *m)
{
	model_derive(m);   /* the rules read the derived facts */
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
