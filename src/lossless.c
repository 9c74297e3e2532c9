/* lossless.c - the lossless path of a RoCE port (lossless.h): per-priority
 * traffic, pauses and discards over the run against PFC, ECN, trust, the
 * global traffic-class override and the job's NCCL_IB_TC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/i18n.h"
#include "fabtop/counters.h"
#include "fabtop/lossless.h"
#include "fabtop/print.h"
#include "fabtop/sanitize.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"

/* The per-priority statistics a netdev gives (mlx5: counters.rst, "Physical
 * Port Counters", per priority): which field of lossless_prio each adds to. */
enum pfield { PF_RX_PKTS, PF_TX_PKTS, PF_RX_BYTES, PF_TX_BYTES, PF_RX_PAUSE, PF_TX_PAUSE,
	      PF_DISCARD };
static const struct { const char *pattern; enum pfield f; } pstats[] = {
	{ "rx_prio%d_packets", PF_RX_PKTS }, { "tx_prio%d_packets", PF_TX_PKTS },
	{ "rx_prio%d_bytes", PF_RX_BYTES },  { "tx_prio%d_bytes", PF_TX_BYTES },
	{ "rx_prio%d_pause", PF_RX_PAUSE },  { "tx_prio%d_pause", PF_TX_PAUSE },
	{ "rx_prio%d_buf_discard", PF_DISCARD }, { "rx_prio%d_cong_discard", PF_DISCARD },
};

static void add_prio(struct lossless_prio *pp, enum pfield f, uint64_t v)
{
	uint64_t *to[] = {
		[PF_RX_PKTS] = &pp->rx_pkts, [PF_TX_PKTS] = &pp->tx_pkts,
		[PF_RX_BYTES] = &pp->rx_bytes, [PF_TX_BYTES] = &pp->tx_bytes,
		[PF_RX_PAUSE] = &pp->rx_pause, [PF_TX_PAUSE] = &pp->tx_pause,
		[PF_DISCARD] = &pp->discards,
	};
	*to[f] += v;
	pp->seen = true;
}

static enum fab_tri bit_of(fab_int mask, int b)
{
	if (!mask.ok)
		return FAB_UNKNOWN;
	return (mask.v >> b) & 1 ? FAB_YES : FAB_NO;
}

/* Growth over the run of a counter of series i: 0 and *v, 1 when the
 * series has no such counter (*v 0), -1 when it has one the run cannot
 * vouch for (never read, or unreadable, gone or implausible in a step:
 * its growth is only a lower bound). */
static int grown(const struct fab_sampler *s, int i, const char *dir, const char *name, uint64_t *v)
{
	const struct fab_ctr *c = sampler_ctr(s, i, dir, name);
	*v = c ? c->since_baseline : 0;
	if (!c)
		return 1;
	return c->valid && c->bad_steps == 0 ? 0 : -1;
}

/* A CNP counter of the port plus its device's (mlx5 keeps the congestion
 * counters at either level, depending on firmware): 0 and *v; 1 when
 * neither has it; -1 when one could not be read over the whole run. */
static int cnp_grown(const struct fab_sampler *s, int i, const char *name, uint64_t *v)
{
	uint64_t x;
	int rc = grown(s, i, "hw_counters", name, v);
	for (int k = 0; k < s->nports; k++)
		if (s->ports[k].kind == SER_RDMA && s->ports[k].port == 0 &&
		    strcmp(s->ports[k].dev, s->ports[i].dev) == 0) {
			int r = grown(s, k, "hw_counters", name, &x);
			*v += x;
			rc = r < 0 || rc < 0 ? -1 : r == 0 || rc == 0 ? 0 : 1;
		}
	return rc;
}

/* Bytes of the netdev's traffic that are not RDMA, one direction: mlx5
 * counts RoCE apart from the vport's Ethernet unicast, multicast and
 * broadcast (counters.rst: rx_vport_rdma_unicast_bytes against
 * rx_vport_unicast_bytes). 0 when the netdev has none of them. */
static uint64_t other_bytes(const struct fab_sampler *s, int k, const char *dir)
{
	static const char *const kinds[] = { "unicast", "multicast", "broadcast" };
	uint64_t sum = 0, v;
	char name[48];
	for (size_t j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++) {
		snprintf(name, sizeof(name), "%s_vport_%s_bytes", dir, kinds[j]);
		if (grown(s, k, "ethtool", name, &v) == 0)
			sum += v;
	}
	return sum;
}

/* The priority the job's traffic should carry here: its NCCL_IB_TC (the
 * model's job_tc), through the port's global override when one is set,
 * mapped by the netdev's trust and DSCP map (netdev_tc_priority()). */
static void job_mapping(const struct fab_model *m, const struct fab_port *mp,
			const struct fab_netdev *nd, struct lossless_port *o)
{
	char a[96] = "", b[96] = "";
	o->job_prio = -1;
	if (!m->job_tc.ok) {
		snprintf(o->job_prio_why, sizeof(o->job_prio_why), "%s",
			 m->job_tc_from[0] ? m->job_tc_from : _("the job's traffic class is not known"));
		return;
	}
	o->job_tc = m->job_tc;
	int tc = port_effective_tc(mp, (int)m->job_tc.v, a, sizeof(a));
	o->job_prio = tc < 0 ? -1 : netdev_tc_priority(nd, tc, b, sizeof(b));
	snprintf(o->job_prio_why, sizeof(o->job_prio_why), "%s%s%s", a, a[0] && b[0] ? "; " : "", b);
}

int lossless_judge(const struct fab_sampler *s, const struct fab_model *m, int i,
		   struct lossless_port *o)
{
	memset(o, 0, sizeof(*o));
	o->series = i;
	o->job_prio = -1;
	if (i < 0 || i >= s->nports || s->ports[i].kind != SER_RDMA || s->ports[i].port <= 0)
		return -1;
	const struct fab_series *sp = &s->ports[i];
	fab_subject(sp->dev, sp->port, o->port, sizeof(o->port));
	const struct fab_nic *n = NULL;
	const struct fab_port *mp = m ? model_find_port(m, sp->dev, sp->port, &n) : NULL;
	int k = sampler_netdev_of(s, i);
	o->netdev_series = k;
	if (!mp || mp->ll != FAB_LL_ETH) {
		snprintf(o->why, sizeof(o->why), _("not a RoCE port"));
		return 0;
	}
	fab_strlcpy(o->netdev, mp->netdev, sizeof(o->netdev));
	int d = mp->netdev[0] ? model_find_netdev(m, mp->netdev) : FAB_NO_INDEX;
	const struct fab_netdev *nd = d != FAB_NO_INDEX ? &m->netdevs[d] : NULL;
	for (int b = 0; b < LOSSLESS_NPRIO; b++) {
		o->prio[b].pfc = nd ? bit_of(nd->pfc_mask, b) : FAB_UNKNOWN;
		o->prio[b].ecn_np = nd ? bit_of(nd->ecn_np_mask, b) : FAB_UNKNOWN;
		o->prio[b].ecn_rp = nd ? bit_of(nd->ecn_rp_mask, b) : FAB_UNKNOWN;
	}
	if (nd) {
		fab_strlcpy(o->trust, nd->qos_trust, sizeof(o->trust));
		o->pfc_mask = nd->pfc_mask;
	}
	if (mp->tclass.set == FAB_YES)
		o->tc_override = fab_int_of(mp->tclass.value);
	job_mapping(m, mp, nd, o);
	if (o->job_prio >= 0 && o->job_prio < LOSSLESS_NPRIO)
		o->prio[o->job_prio].job = true;
	if (o->tc_override.ok && o->job_tc.ok && m->job_tc_set && o->tc_override.v != o->job_tc.v)
		o->flags |= LL_OVERRIDE;

	if (k < 0) {
		snprintf(o->why, sizeof(o->why), "%s", mp->netdev[0] ?
			 _("no ethtool statistics of its netdev were sampled") : _("its netdev is not known"));
		return 0;
	}
	const struct fab_series *np = &s->ports[k];
	if (np->why[0] && np->nctr == 0) {
		snprintf(o->why, sizeof(o->why), "%s", np->why);
		return 0;
	}
	o->elapsed = s->t_last - s->t_baseline;
	if (s->tick < 2 || !(o->elapsed > 0)) {
		snprintf(o->why, sizeof(o->why), _("no run yet: the first reading has no growth"));
		return 0;
	}
	/* Unknown is not healthy: a netdev gone or unread now, or a statistic
	 * unread in some step, leaves the run unjudged rather than "nothing". */
	if (!np->present) {
		snprintf(o->why, sizeof(o->why), _("%s vanished during the run"), np->dev);
		return 0;
	}
	for (int c = np->first_ctr; c < np->first_ctr + np->nctr && c < s->nctrs; c++) {
		const struct fab_ctr *ct = &s->ctrs[c];
		int b = counter_prio(ct->def, ct->name);
		if (b < 0 || b >= LOSSLESS_NPRIO)
			continue;
		for (size_t f = 0; f < sizeof(pstats) / sizeof(pstats[0]); f++) {
			if (strcmp(ct->def->name, pstats[f].pattern) != 0)
				continue;
			if (!ct->valid || ct->bad_steps) {
				snprintf(o->why, sizeof(o->why), _("%s's %s could not be read over the whole run"),
					 np->dev, ct->name);
				return 0;
			}
			add_prio(&o->prio[b], pstats[f].f, ct->since_baseline);
		}
	}
	bool any = false;
	for (int b = 0; b < LOSSLESS_NPRIO; b++)
		any = any || o->prio[b].seen;
	if (!any) {
		snprintf(o->why, sizeof(o->why), _("%s has no per-priority statistics"), np->dev);
		return 0;
	}
	/* RDMA bytes: the port's own counters (RoCE traffic only on mlx5). */
	uint64_t xd = 0, rd = 0;
	if (grown(s, i, "counters", "port_xmit_data", &xd) != 0 ||
	    grown(s, i, "counters", "port_rcv_data", &rd) != 0) {
		snprintf(o->why, sizeof(o->why), _("its RDMA data counters could not be read over the whole run"));
		return 0;
	}
	o->known = true;
	o->rdma_bytes = 4 * (xd + rd);
	o->traffic = sp->peak_gbps >= SAMPLER_MOVING_GBPS && o->rdma_bytes > 0;
	int ch = cnp_grown(s, i, "rp_cnp_handled", &o->cnp_handled);
	int cs = cnp_grown(s, i, "np_cnp_sent", &o->cnp_sent);
	/* Known when both were read throughout, or one was and grew. */
	o->cnp_known = (ch == 0 && cs == 0) || (ch == 0 && o->cnp_handled) || (cs == 0 && o->cnp_sent);
	/* Which priorities carry the RDMA, per direction. A priority surely
	 * does when its bytes less all the netdev's non-RDMA bytes still reach
	 * the share (a lossy priority 0 full of TCP is not the RDMA's); when
	 * none surely does, the one priority that could is it; when several
	 * could and none surely does, the counters cannot tell them apart. */
	uint64_t other[2] = { other_bytes(s, k, "tx"), other_bytes(s, k, "rx") };
	double want[2] = { LOSSLESS_RDMA_SHARE * 4.0 * (double)xd, LOSSLESS_RDMA_SHARE * 4.0 * (double)rd };
	unsigned sure = 0, maybe = 0;
	for (int dir = 0; dir < 2 && o->traffic; dir++) {
		unsigned su = 0, ma = 0;
		for (int b = 0; b < LOSSLESS_NPRIO && want[dir] > 0; b++) {
			uint64_t by = dir ? o->prio[b].rx_bytes : o->prio[b].tx_bytes;
			if ((double)by >= want[dir])
				ma |= 1u << b;
			if (by > other[dir] && (double)(by - other[dir]) >= want[dir])
				su |= 1u << b;
		}
		sure |= su ? su : (ma & (ma - 1)) == 0 ? ma : 0;
		maybe |= su ? 0 : (ma & (ma - 1)) ? ma : 0;
	}
	o->rdma_ambiguous = !sure && maybe;
	for (int b = 0; b < LOSSLESS_NPRIO; b++) {
		struct lossless_prio *pp = &o->prio[b];
		o->pauses_rx += pp->rx_pause;
		pp->rdma = (sure >> b) & 1;
		if (pp->rdma && pp->pfc == FAB_NO)
			o->no_pfc_mask |= (unsigned char)(1u << b);
		if (o->traffic && pp->pfc == FAB_YES && pp->seen && pp->rx_pkts == 0 && pp->tx_pkts == 0)
			o->idle_pfc_mask |= (unsigned char)(1u << b);
		if (pp->rdma && o->job_prio >= 0 && b != o->job_prio)
			o->flags |= LL_NOT_JOB_PRIO;
	}
	if (o->no_pfc_mask)
		o->flags |= LL_RDMA_NO_PFC;
	if (o->idle_pfc_mask)
		o->flags |= LL_PFC_IDLE;
	if (o->pauses_rx > 0 && o->cnp_known && o->cnp_handled == 0 && o->cnp_sent == 0)
		o->flags |= LL_PAUSE_NO_CNP;
	return 0;
}

bool lossless_prio_shown(const struct lossless_prio *pp)
{
	return pp->seen && (pp->rx_pkts || pp->tx_pkts || pp->pfc == FAB_YES || pp->job ||
			    pp->rx_pause || pp->tx_pause || pp->discards);
}

static void prio_mask_list(unsigned mask, char *buf, size_t len)
{
	fab_prio_list(fab_int_of(mask), buf, len);
}

int lossless_findings(const struct fab_sampler *s, const struct fab_model *m,
		      struct fab_model *out)
{
	int added = 0;
	for (int i = 0; i < s->nports; i++) {
		struct lossless_port lp;
		char a[32], b[32];
		if (lossless_judge(s, m, i, &lp) != 0 || !lp.known)
			continue;
		const char *nd = lp.netdev;
		if (lp.flags & LL_RDMA_NO_PFC) {
			struct fab_finding *f = model_add_finding(out, "lossless.rdma-no-pfc", SEV_ERROR, lp.port);
			prio_mask_list(lp.no_pfc_mask, a, sizeof(a));
			int p0 = __builtin_ctz(lp.no_pfc_mask);
			snprintf(f->message, sizeof(f->message),
				 _("RDMA traffic runs on priority %s, where PFC is off: the path is not "
				 "lossless, so a congested switch drops it and every drop is a "
				 "retransmission timeout"), a);
			snprintf(f->evidence, sizeof(f->evidence),
				 _("ethtool -S %s over %.1f s: priority %d moved %llu bytes, the port's "
				 "counters/ %llu RDMA bytes; PFC on priority %s"),
				 nd, lp.elapsed, p0,
				 (unsigned long long)(lp.prio[p0].rx_bytes + lp.prio[p0].tx_bytes),
				 (unsigned long long)lp.rdma_bytes,
				 fab_na(fab_prio_list(lp.pfc_mask, b, sizeof(b))));
			/* The PFC vector with this priority added, as mlnx_qos takes it. */
			char vec[32] = "";
			unsigned want = (unsigned)(lp.pfc_mask.ok ? lp.pfc_mask.v : 0) | (1u << p0);
			for (int q = 0; q < LOSSLESS_NPRIO; q++)
				fab_catf(vec, sizeof(vec), "%s%u", q ? "," : "", (want >> q) & 1);
			snprintf(f->hint, sizeof(f->hint),
				 _("move the job's traffic to the lossless priority (NCCL_IB_TC, whose DSCP is TC "
				 ">> 2, against the trust mode and DSCP map: mlnx_qos -i %s), or make priority "
				 "%d lossless here and on the switches: mlnx_qos -i %s --pfc %s"),
				 FAB_SHQ(nd), p0, FAB_SHQ(nd), vec);
			added++;
		}
		if (lp.flags & LL_PFC_IDLE) {
			struct fab_finding *f = model_add_finding(out, "lossless.pfc-idle", SEV_WARN, lp.port);
			prio_mask_list(lp.idle_pfc_mask, a, sizeof(a));
			snprintf(f->message, sizeof(f->message),
				 _("PFC is on priority %s, which carried nothing while the port moved RDMA "
				 "traffic: the lossless priority is not the one in use"), a);
			snprintf(f->evidence, sizeof(f->evidence),
				 _("ethtool -S %s over %.1f s: no packets on priority %s; %llu RDMA bytes moved"),
				 nd, lp.elapsed, a, (unsigned long long)lp.rdma_bytes);
			snprintf(f->hint, sizeof(f->hint),
				 _("compare NCCL_IB_TC (its DSCP is TC >> 2) and the trust mode with the PFC "
				 "priority: mlnx_qos -i %s; cat /sys/class/net/%s/qos/*"), FAB_SHQ(nd), FAB_SHQ(nd));
			added++;
		}
		if (lp.flags & LL_PAUSE_NO_CNP) {
			struct fab_finding *f = model_add_finding(out, "lossless.pause-no-cnp", SEV_WARN, lp.port);
			snprintf(f->message, sizeof(f->message),
				 _("%llu pause frames received and no CNP handled or sent: congestion control "
				 "(ECN/DCQCN) is not engaged, so PFC alone throttles the path and spreads "
				 "the congestion (head-of-line blocking)"),
				 (unsigned long long)lp.pauses_rx);
			snprintf(f->evidence, sizeof(f->evidence),
				 _("ethtool -S %s: rx_prio*_pause +%llu over %.1f s; hw_counters rp_cnp_handled "
				 "+0, np_cnp_sent +0"), nd, (unsigned long long)lp.pauses_rx, lp.elapsed);
			snprintf(f->hint, sizeof(f->hint),
				 _("check ECN on the switches and on this port: cat "
				 "/sys/class/net/%s/ecn/roce_np/enable/* /sys/class/net/%s/ecn/roce_rp/enable/*"),
				 FAB_SHQ(nd), FAB_SHQ(nd));
			added++;
		}
		if (lp.flags & LL_NOT_JOB_PRIO) {
			struct fab_finding *f = model_add_finding(out, "lossless.not-job-prio", SEV_WARN, lp.port);
			snprintf(f->message, sizeof(f->message),
				 _("RDMA traffic does not run on priority %d, where the job's NCCL_IB_TC=%lld "
				 "maps: another setting (a global traffic_class, the trust mode, a DSCP map) "
				 "decides"), lp.job_prio, lp.job_tc.v);
			snprintf(f->evidence, sizeof(f->evidence), _("NCCL_IB_TC=%lld -> priority %d (%s); "
				 "ethtool -S %s over %.1f s"), lp.job_tc.v, lp.job_prio, lp.job_prio_why, nd,
				 lp.elapsed);
			snprintf(f->hint, sizeof(f->hint),
				 "cat /sys/class/infiniband/*/tc/*/traffic_class; mlnx_qos -i %s", FAB_SHQ(nd));
			added++;
		}
	}
	return added;
}
