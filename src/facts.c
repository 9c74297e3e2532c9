/*
 * facts.c - the judgements of the model (model.h), each in one function:
 * whether a port is active, whether this namespace can use it, whether an
 * error counter is pinned at its maximum, and a PCIe link's bandwidth.
 * Pure functions of the model; model_derive() stores their results so that
 * every medium prints the same answer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "fabtop/counters.h"
#include "fabtop/model.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"

/* enum ib_port_state: 4 ACTIVE, 5 ACTIVE_DEFER */
bool port_active(const struct fab_port *p)
{
	return p->state.ok && (p->state.v == 4 || p->state.v == 5);
}

__attribute__((format(printf, 3, 4)))
static struct fab_judged judged(enum fab_tri v, struct fab_judged *j, const char *fmt, ...)
{
	va_list ap;
	j->v = v;
	va_start(ap, fmt);
	vsnprintf(j->why, sizeof(j->why), fmt, ap);
	va_end(ap);
	return *j;
}

struct fab_judged nic_verbs(const struct fab_nic *n)
{
	struct fab_judged j = { 0 };
	const struct fab_uverbs *u = &n->uverbs;
	char node[48];
	if (u->name[0])
		snprintf(node, sizeof(node), "/dev/infiniband/%s", u->name);
	else
		snprintf(node, sizeof(node), "its /dev/infiniband/uverbs node");
	if (!u->open_errno.ok)
		return judged(FAB_UNKNOWN, &j, "verbs access not recorded");
	if (!u->present)
		return judged(FAB_NO, &j, "%s does not exist here", node);
	if (u->open_errno.v != 0)
		return judged(FAB_NO, &j, "%s does not open: %s", node,
			      strerror((int)u->open_errno.v));
	return judged(FAB_YES, &j, "%s opens", node);
}

struct fab_judged port_usable(const struct fab_nic *n, const struct fab_port *p)
{
	struct fab_judged j = { 0 }, verbs = nic_verbs(n);
	char num[24], st[64];
	const char *w = port_state_word(p, num, sizeof(num));
	const char *ph = port_phys_word(p, st, sizeof(st));
	bool down = p->state.ok && !port_active(p);
	if (down && verbs.v == FAB_NO)
		return judged(FAB_NO, &j, "port %s; %s", w, verbs.why);
	if (down)
		return judged(FAB_NO, &j, "port %s%s%s", w, ph ? "/" : "", ph ? ph : "");
	if (verbs.v == FAB_NO)
		return judged(FAB_NO, &j, "%s", verbs.why);
	if (!p->state.ok)
		return judged(FAB_UNKNOWN, &j, "port state not read");
	if (verbs.v == FAB_UNKNOWN)
		return judged(FAB_UNKNOWN, &j, "%s", verbs.why);
	return judged(FAB_YES, &j, "ACTIVE, %s", verbs.why);
}

struct fab_judged gpu_busy(const struct fab_gpu *g)
{
	struct fab_judged j = { FAB_UNKNOWN, "" };
	char util[24] = "";
	if (g->util_pct.ok)
		snprintf(util, sizeof(util), "%lld%% utilisation", g->util_pct.v);
	if (g->pstate.ok && (g->pstate.v <= 2 || g->pstate.v >= 5))
		j.v = g->pstate.v <= 2 ? FAB_YES : FAB_NO;
	else if (g->util_pct.ok)
		j.v = g->util_pct.v >= 10 ? FAB_YES : FAB_NO;
	if (j.v == FAB_UNKNOWN && g->pstate.ok)
		snprintf(j.why, sizeof(j.why), "P%lld, utilisation unknown", g->pstate.v);
	else if (j.v == FAB_UNKNOWN)
		snprintf(j.why, sizeof(j.why), "its load is unknown (no NVML)");
	else if (g->pstate.ok)
		snprintf(j.why, sizeof(j.why), "P%lld%s%s", g->pstate.v, util[0] ? ", " : "", util);
	else
		snprintf(j.why, sizeof(j.why), "%s", util);
	return j;
}

struct fab_judged nic_usable(const struct fab_nic *n)
{
	struct fab_judged j = { 0 };
	int np = n->nports > FAB_MAX_PORTS ? FAB_MAX_PORTS : n->nports, no = 0;
	const struct fab_judged *unknown = NULL;
	for (int i = 0; i < np; i++) {
		const struct fab_judged *u = &n->ports[i].usable;
		if (u->v == FAB_YES)
			return judged(FAB_YES, &j, "port %d usable", n->ports[i].num);
		if (u->v == FAB_NO)
			no++;
		else if (!unknown)
			unknown = u;
	}
	if (np <= 0)
		return judged(FAB_NO, &j, "no ports");
	if (no == np)
		return judged(FAB_NO, &j, "%s", np == 1 ? n->ports[0].usable.why : "no port usable");
	return judged(FAB_UNKNOWN, &j, "%s", unknown ? unknown->why : "unknown");
}

int model_usable_hcas(const struct fab_model *m, char *buf, size_t len)
{
	size_t at = 0;
	int named = 0;
	buf[0] = '\0';
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *n = &m->nics[i];
		int np = n->nports > FAB_MAX_PORTS ? FAB_MAX_PORTS : n->nports, yes = 0;
		for (int p = 0; p < np; p++)
			yes += n->ports[p].usable.v == FAB_YES;
		if (!yes)
			continue;
		for (int p = 0; p < np; p++) {
			if (yes < np && n->ports[p].usable.v != FAB_YES)
				continue;
			char one[FAB_NAME_LEN + 16];
			if (yes == np)
				snprintf(one, sizeof(one), "%s", n->name);
			else
				snprintf(one, sizeof(one), "%s:%d", n->name, n->ports[p].num);
			if (at + strlen(one) + 2 > len)
				return named;
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", one);
			if (yes == np)
				break;
		}
		named++;
	}
	return named;
}

int model_usable_counts(const struct fab_model *m, int count[3])
{
	int n = 0;
	count[FAB_YES] = count[FAB_NO] = count[FAB_UNKNOWN] = 0;
	for (int i = 0; i < m->nnics; i++)
		for (int p = 0; p < m->nics[i].nports && p < FAB_MAX_PORTS; p++, n++)
			count[m->nics[i].ports[p].usable.v]++;
	return n;
}

double pcie_gbps(double gts, long long width)
{
	return gts * (double)width * (gts < 8.0 ? 0.8 : 128.0 / 130.0);
}

void model_derive(struct fab_model *m)
{
	for (int i = 0; i < m->nnics; i++) {
		struct fab_nic *n = &m->nics[i];
		int np = n->nports > FAB_MAX_PORTS ? FAB_MAX_PORTS : n->nports;
		for (int p = 0; p < np; p++) {
			struct fab_port *pt = &n->ports[p];
			pt->usable = port_usable(n, pt);
			for (int e = 0; e < pt->nerrors && e < FAB_MAX_COUNTERS; e++) {
				struct fab_counter *c = &pt->errors[e];
				if (!c->def)
					c->def = counter_def("counters", c->name);
				c->pinned = c->value.ok && c->value.v >= 0 &&
					    counter_pinned(c->def, (uint64_t)c->value.v);
			}
		}
		n->usable = nic_usable(n);
	}
}

/* ---- could not read: unknown, never absent ---- */

const struct fab_note *model_unknown(const struct fab_model *m, unsigned need, int *count)
{
	const struct fab_note *first = NULL;
	int n = 0;
	for (int i = 0; i < m->nnotes; i++)
		if (m->notes[i].src & need) {
			if (!first)
				first = &m->notes[i];
			n++;
		}
	if (count)
		*count = n;
	return first;
}

enum fab_verdict model_verdict(const struct fab_model *m, unsigned need, int worst)
{
	if (model_unknown(m, need, NULL))
		return FAB_VERDICT_UNKNOWN;
	return worst >= SEV_WARN ? FAB_VERDICT_FINDINGS : FAB_VERDICT_OK;
}

enum fab_tri model_netdev_here(const struct fab_model *m, const char *name,
			       const struct fab_netdev **d, char *why, size_t len)
{
	const struct fab_netdev *nd = model_netdev(m, name);
	const struct fab_note *net = model_unknown(m, FAB_SRC_NET, NULL);
	if (d)
		*d = NULL;
	if (why && len)
		why[0] = '\0';
	if (nd && nd->read_errno) {
		if (why)
			snprintf(why, len, "cannot read /sys/class/net/%s: %s", nd->name,
				 strerror(nd->read_errno));
		return FAB_UNKNOWN;
	}
	if (nd) {
		if (d)
			*d = nd;
		return FAB_YES;
	}
	if (net) {
		if (why)
			snprintf(why, len, "%s", net->message);
		return FAB_UNKNOWN;
	}
	return FAB_NO;
}
