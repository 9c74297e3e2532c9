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
#include "fabtop/i18n.h"
#include "fabtop/counters.h"
#include "fabtop/dcb.h"
#include "fabtop/model.h"
#include "fabtop/sanitize.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"

/* enum ib_port_state: 4 ACTIVE, 5 ACTIVE_DEFER */
bool port_active(const struct fab_port *p)
{
	return p->state.ok && (p->state.v == 4 || p->state.v == 5);
}

/* A text cut short by its buffer ends on a whole character: a translation
 * is longer in bytes than the English, and half a CJK character would show
 * as escapes. Drops the last sequence when it is incomplete. */
static void cut_whole(char *s, size_t len)
{
	size_t n = strnlen(s, len);
	size_t i = n;
	while (i > 0 && ((unsigned char)s[i - 1] & 0xc0) == 0x80 && n - i < 3)
		i--;
	if (i == 0 || ((unsigned char)s[i - 1] & 0x80) == 0)
		return;
	unsigned char lead = (unsigned char)s[i - 1];
	size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
	if (n - (i - 1) < need)
		s[i - 1] = '\0';
}

__attribute__((format(printf, 3, 4)))
static struct fab_judged judged(enum fab_tri v, struct fab_judged *j, const char *fmt, ...)
{
	va_list ap;
	j->v = v;
	va_start(ap, fmt);
	vsnprintf(j->why, sizeof(j->why), fmt, ap);
	va_end(ap);
	cut_whole(j->why, sizeof(j->why));
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
		snprintf(node, sizeof(node), _("its /dev/infiniband/uverbs node"));
	if (!u->open_errno.ok)
		return judged(FAB_UNKNOWN, &j, _("verbs access not recorded"));
	if (!u->present)
		return judged(FAB_NO, &j, _("%s does not exist here"), node);
	if (u->open_errno.v != 0)
		return judged(FAB_NO, &j, _("%s does not open: %s"), node,
			      strerror((int)u->open_errno.v));
	return judged(FAB_YES, &j, _("%s opens"), node);
}

struct fab_judged port_usable(const struct fab_nic *n, const struct fab_port *p)
{
	struct fab_judged j = { 0 }, verbs = nic_verbs(n);
	char num[24], st[64];
	const char *w = port_state_word(p, num, sizeof(num));
	const char *ph = port_phys_word(p, st, sizeof(st));
	bool down = p->state.ok && !port_active(p);
	if (down && verbs.v == FAB_NO)
		return judged(FAB_NO, &j, _("port %s; %s"), w, verbs.why);
	if (down && ph)
		return judged(FAB_NO, &j, _("port %s/%s"), w, ph);
	if (down)
		return judged(FAB_NO, &j, _("port %s"), w);
	if (verbs.v == FAB_NO)
		return judged(FAB_NO, &j, "%s", verbs.why);
	if (!p->state.ok)
		return judged(FAB_UNKNOWN, &j, _("port state not read"));
	if (verbs.v == FAB_UNKNOWN)
		return judged(FAB_UNKNOWN, &j, "%s", verbs.why);
	return judged(FAB_YES, &j, _("ACTIVE, %s"), verbs.why);
}

struct fab_judged gpu_busy(const struct fab_gpu *g)
{
	struct fab_judged j = { FAB_UNKNOWN, "" };
	char util[64] = "";
	if (g->util_pct.ok)
		snprintf(util, sizeof(util), _("%lld%% utilisation"), g->util_pct.v);
	if (g->pstate.ok && (g->pstate.v <= 2 || g->pstate.v >= 5))
		j.v = g->pstate.v <= 2 ? FAB_YES : FAB_NO;
	else if (g->util_pct.ok)
		j.v = g->util_pct.v >= 10 ? FAB_YES : FAB_NO;
	if (j.v == FAB_UNKNOWN && g->pstate.ok)
		snprintf(j.why, sizeof(j.why), _("P%lld, utilisation unknown"), g->pstate.v);
	else if (j.v == FAB_UNKNOWN)
		snprintf(j.why, sizeof(j.why), _("its load is unknown (no NVML)"));
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
			return judged(FAB_YES, &j, _("port %d usable"), n->ports[i].num);
		if (u->v == FAB_NO)
			no++;
		else if (!unknown)
			unknown = u;
	}
	if (np <= 0)
		return judged(FAB_NO, &j, _("no ports"));
	if (no == np)
		return judged(FAB_NO, &j, "%s", np == 1 ? n->ports[0].usable.why : _("no port usable"));
	return judged(FAB_UNKNOWN, &j, "%s", unknown ? unknown->why : _("unknown"));
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

/* Of the encoded rate, TLP headers and framing, DLLPs (acks, flow control)
 * and the read requests of the NIC's DMA leave about 80% for data. Adapters
 * are sized to it: 100 Gb/s ports on Gen3 x16 (126 Gb/s encoded), 200 on
 * Gen4 x16 (252), 400 on Gen5 x16 (504); and a Gen5 x4 link is "roughly
 * 100Gbps" (ServeTheHome on the GB10's ConnectX-7,
 * https://www.servethehome.com/the-nvidia-gb10-connectx-7-200gbe-networking-is-really-different). */
#define PCIE_PAYLOAD_SHARE 0.8

double pcie_payload_gbps(double gts, long long width)
{
	return pcie_gbps(gts, width) * PCIE_PAYLOAD_SHARE;
}

/* The kernel's widths are 1, 2, 4, 8, 12, 16 and 32 (PCI_EXP_LNKSTA_NLW);
 * 0 when the link is down. */
bool pcie_width_ok(long long width)
{
	return width > 0 && width <= 32;
}

bool pcie_link_cap(const struct fab_model *m, const struct fab_pci_dev *d,
		   double *gts, long long *width)
{
	if (!d->link.max_speed.ok || !d->link.max_width.ok)
		return false;
	double s = d->link.max_speed.v;
	long long w = d->link.max_width.v;
	int up = d->chain_len > 0 && d->chain_len <= FAB_MAX_CHAIN ?
		 model_find_pci(m, d->chain[d->chain_len - 1]) : FAB_NO_INDEX;
	if (up != FAB_NO_INDEX && m->pci[up].link.max_speed.ok && m->pci[up].link.max_speed.v < s)
		s = m->pci[up].link.max_speed.v;
	if (up != FAB_NO_INDEX && m->pci[up].link.max_width.ok && m->pci[up].link.max_width.v < w)
		w = m->pci[up].link.max_width.v;
	*gts = s;
	*width = w;
	return true;
}

/* Speeds are 2.5, 5, 8, 16, 32, 64 GT/s: 0.01 absorbs their printing. */
unsigned pcie_link_below(double cur_gts, long long cur_width, double cap_gts, long long cap_width)
{
	return (cur_gts + 0.01 < cap_gts ? PCIE_SLOW : 0) | (cur_width < cap_width ? PCIE_NARROW : 0);
}

const struct fab_pci_dev *nic_pci(const struct fab_model *m, const struct fab_nic *n)
{
	return n->pci >= 0 && n->pci < m->npci ? &m->pci[n->pci] : NULL;
}

const struct fab_pci_dev *nic_link_dev(const struct fab_model *m, const struct fab_nic *n)
{
	const struct fab_pci_dev *d = nic_pci(m, n);
	if (d && d->is_vf) {
		int pf = d->pf_bdf[0] ? model_find_pci(m, d->pf_bdf) : FAB_NO_INDEX;
		return pf != FAB_NO_INDEX ? &m->pci[pf] : NULL;
	}
	return d;
}

/* "0000:0000:0000:0000" (a soft device, some VFs) names no adapter. */
static bool guid_set(const char *g)
{
	return g[0] && strspn(g, "0:") != strlen(g);
}

/* The physical function behind an HCA: its own, or its PF's for a VF
 * (NULL when that PF is not an HCA here). */
static const struct fab_nic *nic_pf(const struct fab_model *m, const struct fab_nic *n)
{
	const struct fab_pci_dev *d = nic_pci(m, n);
	if (!d || !d->is_vf)
		return n;
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_pci_dev *e = nic_pci(m, &m->nics[i]);
		if (e && !e->is_vf && strcmp(e->bdf, d->pf_bdf) == 0)
			return &m->nics[i];
	}
	return NULL;
}

bool nic_same_model(const struct fab_model *m, const struct fab_nic *a, const struct fab_nic *b)
{
	const struct fab_pci_dev *da = nic_pci(m, a), *db = nic_pci(m, b);
	if (da && db && da->vendor.ok && db->vendor.ok && da->device.ok && db->device.ok) {
		if (da->vendor.v != db->vendor.v || da->device.v != db->device.v)
			return false;
	} else if (!a->hca_type[0] || strcmp(a->hca_type, b->hca_type) != 0) {
		return false;
	}
	return !a->board_id[0] || !b->board_id[0] || strcmp(a->board_id, b->board_id) == 0;
}

/* Two physical functions of one card: the same model, and the same slot
 * (one link), or the same system image GUID (a multi-host or socket-direct
 * card shows its functions in two PCI domains: 0000:01:00.0 and
 * 0002:01:00.0 on a GB10). */
static bool pf_same_card(const struct fab_model *m, const struct fab_nic *a, const struct fab_nic *b)
{
	const struct fab_pci_dev *da = nic_pci(m, a), *db = nic_pci(m, b);
	if (!da || !db || da->is_vf || db->is_vf || !nic_same_model(m, a, b))
		return false;
	return fab_bdf_same_slot(da->bdf, db->bdf) ||
	       (guid_set(a->sys_image_guid) && strcmp(a->sys_image_guid, b->sys_image_guid) == 0);
}

#define CARD_MAX_LINKS 8

/* Each HCA's card, the card's links and ports, and what one of its ports
 * can do: the lower of the model's port maximum and its total shared by
 * the ports (a dual-port ConnectX-7: 200 Gb/s each; a dual-port
 * ConnectX-5: 100 each, as on the single-port card). SR-IOV VFs share
 * their PF's card and are no ports of it. */
static void card_derive(struct fab_model *m)
{
	for (int i = 0; i < m->nnics; i++) {
		struct fab_nic *n = &m->nics[i];
		const struct fab_nic *pf = nic_pf(m, n);
		n->card = i;
		if (pf && pf != n) {
			n->card = (int)(pf - m->nics);
			continue;   /* a PF comes first in bus order; set below if not */
		}
		for (int j = 0; j < i; j++)
			if (pf_same_card(m, &m->nics[j], n)) {
				n->card = m->nics[j].card;
				break;
			}
	}
	for (int i = 0; i < m->nnics; i++) {
		struct fab_nic *n = &m->nics[i];
		n->card = m->nics[n->card].card;   /* a VF listed before its PF */
	}
	/* Per card, at its first function: the links (its physical functions'
	 * slots: one, or one per host or socket) and the ports on one link. */
	for (int i = 0; i < m->nnics; i++) {
		struct fab_nic *c = &m->nics[i];
		if (c->card != i)
			continue;
		char slots[CARD_MAX_LINKS][16];
		int nslots = 0, ports_per_slot[CARD_MAX_LINKS] = { 0 }, ports = 0;
		for (int j = i; j < m->nnics; j++) {
			const struct fab_nic *o = &m->nics[j];
			const struct fab_pci_dev *d = nic_pci(m, o);
			if (o->card != i || !d || d->is_vf)
				continue;
			int s = 0;
			while (s < nslots && !fab_bdf_same_slot(slots[s], d->bdf))
				s++;
			if (s == CARD_MAX_LINKS)
				continue;
			if (s == nslots)
				fab_strlcpy(slots[nslots++], d->bdf, sizeof(slots[0]));
			ports_per_slot[s] += o->nports;
			if (ports_per_slot[s] > ports)
				ports = ports_per_slot[s];
		}
		c->card_links = nslots;
		c->card_ports = ports;
		c->cap_gbps = (fab_num){ 0, false };
		c->cap_sure = false;
		if (c->cap_port_max.ok && c->cap_card_total.ok && ports > 0) {
			double each = c->cap_card_total.v / ports;
			c->cap_gbps = fab_num_of(each < c->cap_port_max.v ? each : c->cap_port_max.v);
			/* With one port seen, a card whose ports share its total might
			 * have a second one out of sight (another container's). */
			c->cap_sure = ports > 1 || c->cap_card_total.v >= 2 * c->cap_port_max.v;
		}
	}
	/* Every other function of the card (VFs too) says the same. */
	for (int i = 0; i < m->nnics; i++) {
		struct fab_nic *n = &m->nics[i];
		const struct fab_nic *c = &m->nics[n->card];
		n->card_links = c->card_links;
		n->card_ports = c->card_ports;
		n->cap_gbps = c->cap_gbps;
		n->cap_sure = c->cap_sure;
	}
}

double port_line_gbps(const struct fab_model *m, const struct fab_nic *n,
		      const struct fab_port *p, char *why, size_t len)
{
	if (why && len)
		why[0] = '\0';
	if (!p->rate_gbps.ok || p->rate_gbps.v <= 0)
		return 0;
	double rate = p->rate_gbps.v;
	const struct fab_pci_dev *d = nic_link_dev(m, n);
	if (!d || !d->link.cur_speed.ok || !d->link.cur_width.ok)
		return rate;
	double pcie = pcie_payload_gbps(d->link.cur_speed.v, d->link.cur_width.v);
	if (pcie >= rate)
		return rate;
	if (why && len) {
		snprintf(why, len, _("about %.0f Gb/s, what PCIe %g GT/s x%lld (%s) carries of the port's %.0f"),
			 pcie, d->link.cur_speed.v, d->link.cur_width.v, d->bdf, rate);
		if (n->card_links > 1)
			fab_catf(why, len, _("; the card serves its ports through %d PCIe links "
				 "(multi-host/socket direct): the functions together make the port"),
				 n->card_links);
		cut_whole(why, len);
	}
	return pcie;
}

void model_derive(struct fab_model *m)
{
	card_derive(m);
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
			snprintf(why, len, _("cannot read /sys/class/net/%s: %s"), nd->name,
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

/* ---- the traffic class RoCE packets carry, and their priority ---- */

__attribute__((format(printf, 4, 5)))
static int said(int v, char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
		cut_whole(why, len);
	}
	return v;
}

int netdev_tc_priority(const struct fab_netdev *d, int tc, char *why, size_t len)
{
	if (!d)
		return said(-1, why, len, _("the port's netdev is not known"));
	if (tc < 0 || tc > 255)
		return said(-1, why, len, _("the traffic class is not known"));
	int dscp = tc >> 2;   /* the low two bits are ECN */
	const char *tsrc = d->trust_source[0] ? d->trust_source : _("a source not recorded");
	if (strcmp(d->qos_trust, "pcp") == 0)
		return said(-1, why, len, _("%s trusts pcp (%s): the priority is the QP's service level "
			    "(NCCL_IB_SL) in the VLAN tag, not traffic class %d"), d->name,
			    d->trust_source[0] ? d->trust_source : _("source unknown"), tc);
	if (strcmp(d->qos_trust, "dscp") != 0)
		return said(-1, why, len, _("the trust mode of %s is unknown (%s)"), d->name,
			    d->dcb_why[0] ? d->dcb_why : _("neither DCB netlink nor MLNX_OFED's qos/trust said"));
	if (d->dscp_map_ok) {
		int p = d->dscp2prio[dscp];
		if (p >= 0 && p < DCB_NPRIO)
			return said(p, why, len, _("traffic class %d is DSCP %d, priority %d on %s (trust "
				    "dscp from %s; DSCP map from the DCB netlink app table)"), tc, dscp, p,
				    d->name, tsrc);
		return said(-1, why, len, p == DCB_DSCP_SEVERAL ?
			    _("the DCB netlink app table of %s maps to several priorities DSCP %d") :
			    _("the DCB netlink app table of %s has no entry for DSCP %d"), d->name, dscp);
	}
	/* mlx5's firmware starts with dscp2prio = DSCP >> 3, as mlnx_qos shows it
	 * ("prio:3 dscp:31,30,...,24"); nothing read here says otherwise. */
	return said(dscp >> 3, why, len, _("traffic class %d is DSCP %d, priority %d on %s (trust dscp "
		    "from %s; mlx5's default map, DSCP >> 3: no DSCP map was read)"), tc, dscp,
		    dscp >> 3, d->name, tsrc);
}

int port_effective_tc(const struct fab_port *p, int tc, char *why, size_t len)
{
	if (p->tclass.set == FAB_YES)
		return said(p->tclass.value, why, len, _("MLNX_OFED's tc/%d/traffic_class forces "
			    "traffic class %d on every QP of the port"), p->num, p->tclass.value);
	if (tc < 0 || tc > 255)
		return said(-1, why, len, _("the application's traffic class is not known"));
	return said(tc, why, len, "%s", "");
}

const char *port_pin_clear_cmd(const struct fab_model *m, const struct fab_nic *n,
			       const struct fab_port *p, char *buf, size_t len)
{
	const char *bdf = n->pci >= 0 && n->pci < m->npci ? m->pci[n->pci].bdf : "";
	if (p->ll == FAB_LL_ETH)
		snprintf(buf, len, "mlxlink -d %s --pc", FAB_SHQ(bdf[0] ? bdf : n->name));
	else
		snprintf(buf, len, "perfquery -x -R -C %s -P %d", FAB_SHQ(n->name), p->num);
	return buf;
}

int port_pinned(const struct fab_port *p)
{
	int n = 0;
	for (int i = 0; i < p->nerrors && i < FAB_MAX_COUNTERS; i++)
		n += p->errors[i].pinned;
	return n;
}

enum fab_tri port_netdev_readable(const struct fab_model *m, const struct fab_nic *n,
				  const struct fab_port *p, const struct fab_netdev **d,
				  char *why, size_t len)
{
	const struct fab_netdev *nd = NULL;
	*d = NULL;
	if (n->counters_skipped[0])
		return said(FAB_NO, why, len, _("%s's counters are not read (%s)"), n->name,
			    n->counters_skipped);
	if (!p->netdev[0])
		return said(FAB_NO, why, len, _("its netdev is not known"));
	enum fab_tri here = model_netdev_here(m, p->netdev, &nd, why, len);
	if (here == FAB_UNKNOWN)
		return FAB_UNKNOWN;
	if (here == FAB_NO)
		return said(FAB_NO, why, len, _("%s is not in this network namespace (a pod's holds "
			    "it: run fabtop there)"), p->netdev);
	if (nd->pci != FAB_NO_INDEX && n->pci != FAB_NO_INDEX && nd->pci != n->pci &&
	    nd->pci < m->npci && n->pci < m->npci)
		return said(FAB_NO, why, len, _("the %s here is another device's (PCI %s, not %s's %s)"),
			    p->netdev, m->pci[nd->pci].bdf, n->name, m->pci[n->pci].bdf);
	*d = nd;
	if (why && len)
		why[0] = '\0';
	return FAB_YES;
}
