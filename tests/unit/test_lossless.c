/* The lossless path of a RoCE port (lossless.h) with exact values: a
 * sampler built here (sampler_int.h) holds the port's counters/ and its
 * netdev's per-priority ethtool statistics, a model holds its QoS, and
 * lossless_judge() is asked what the run shows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sampler_int.h"
#include "fabtop/lossless.h"
#include "fabtop/model.h"

/* The port's counters, then the netdev's statistics (one series each),
 * then the device-level hw_counters where mlx5 may keep the CNP counters. */
enum { XD, RD, NPCNP, RPCNP,                       /* mlx5_0/1 */
       RX0B, TX0B, RX0P, TX0P, RX3B, TX3B, RX3P, TX3P, RX3PAUSE, TX3PAUSE, RX3DISC, /* eth0 */
       TXUNI, RXUNI,                               /* eth0: non-RDMA traffic */
       DEVCNP,                                     /* mlx5_0 device level */
       N };
static const struct { const char *dir, *name; } ctrs[N] = {
	{ "counters", "port_xmit_data" }, { "counters", "port_rcv_data" },
	{ "hw_counters", "np_cnp_sent" }, { "hw_counters", "rp_cnp_handled" },
	{ "ethtool", "rx_prio0_bytes" }, { "ethtool", "tx_prio0_bytes" },
	{ "ethtool", "rx_prio0_packets" }, { "ethtool", "tx_prio0_packets" },
	{ "ethtool", "rx_prio3_bytes" }, { "ethtool", "tx_prio3_bytes" },
	{ "ethtool", "rx_prio3_packets" }, { "ethtool", "tx_prio3_packets" },
	{ "ethtool", "rx_prio3_pause" }, { "ethtool", "tx_prio3_pause" },
	{ "ethtool", "rx_prio3_buf_discard" },
	{ "ethtool", "tx_vport_unicast_bytes" }, { "ethtool", "rx_vport_unicast_bytes" },
	{ "hw_counters", "rp_cnp_handled" },
};

struct rig {
	struct fab_sampler s;
	struct fab_model m;
	uint64_t v[N];
	enum reading rd[N];      /* READ_OK unless a test says otherwise (one step) */
	double t;
};

static struct rig *rig_new(const char *trust, long long pfc_mask, const char *job_tc_override)
{
	struct rig *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_int_equal(sampler_add_port(&r->s, "mlx5_0", 1), 0);
	for (int i = 0; i < N; i++) {
		if (i == RX0B)
			assert_int_equal(sampler_add_netdev(&r->s, "eth0"), 1);
		if (i == DEVCNP)
			assert_int_equal(sampler_add_port(&r->s, "mlx5_0", 0), 2);
		assert_int_equal(sampler_add_ctr(&r->s, ctrs[i].dir, ctrs[i].name), i);
	}
	model_init(&r->m);
	struct fab_nic *n = model_add_nic(&r->m);
	snprintf(n->name, sizeof(n->name), "mlx5_0");
	n->pci = FAB_NO_INDEX;
	n->nports = 1;
	struct fab_port *p = &n->ports[0];
	p->num = 1;
	p->ll = FAB_LL_ETH;
	p->rate_gbps = fab_num_of(400);
	snprintf(p->netdev, sizeof(p->netdev), "eth0");
	if (job_tc_override) {
		p->tclass.set = FAB_YES;
		p->tclass.value = atoi(job_tc_override);
	}
	struct fab_netdev *d = model_add_netdev(&r->m);
	snprintf(d->name, sizeof(d->name), "eth0");
	snprintf(d->qos_trust, sizeof(d->qos_trust), "%s", trust);
	d->pfc_mask = pfc_mask >= 0 ? fab_int_of(pfc_mask) : (fab_int){ 0, false };
	d->ecn_np_mask = d->ecn_rp_mask = fab_int_of(1 << 3);
	sampler_use_model(&r->s, &r->m);
	assert_int_equal(sampler_netdev_of(&r->s, 0), 1);
	return r;
}

static void step(struct rig *r, double t)
{
	sampler_step_begin(&r->s, t);
	for (int i = 0; i < N; i++) {
		sampler_take(&r->s, &r->s.ctrs[i], r->rd[i], r->v[i], false, t);
		r->rd[i] = READ_OK;
	}
	sampler_step_end(&r->s);
}

static void rig_free(struct rig *r)
{
	sampler_close(&r->s);
	model_free(&r->m);
	free(r);
}

/* 10 s of 100 Gb/s each way of RDMA (counters/ in 4-octet words); the
 * given priority moves that many bytes (plus share x of it), with packets. */
static void run(struct rig *r, int prio, double share)
{
	step(r, 100.0);
	uint64_t words = 125000000000ull;   /* 100 Gb/s x 10 s / 8 / 4 */
	r->v[XD] += words;
	r->v[RD] += words;
	uint64_t b = (uint64_t)(4.0 * (double)words * share);
	r->v[prio ? RX3B : RX0B] += b;
	r->v[prio ? TX3B : TX0B] += b;
	r->v[prio ? RX3P : RX0P] += 1000000;
	r->v[prio ? TX3P : TX0P] += 1000000;
	step(r, 110.0);
}

/* Traffic class 106 is DSCP 26; trust dscp, no DSCP map: mlx5's default
 * DSCP >> 3 = priority 3, where PFC is: the lossless path holds. */
static void test_lossless_holds(void **state)
{
	(void)state;
	struct rig *r = rig_new("dscp", 1 << 3, NULL);
	r->m.job_tc = fab_int_of(106);
	run(r, 3, 1.0);
	struct lossless_port lp;
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_true(lp.known);
	assert_true(lp.elapsed == 10.0);
	assert_true(lp.rdma_bytes == 1000000000000ull);
	assert_true(lp.prio[3].rdma);
	assert_true(lp.prio[3].job);
	assert_int_equal(lp.prio[3].pfc, FAB_YES);
	assert_false(lp.prio[0].rdma);
	assert_int_equal(lp.job_prio, 3);
	assert_int_equal(lp.flags, 0);
	assert_true(lp.prio[3].rx_pkts == 1000000);
	assert_int_equal(lossless_judge(&r->s, &r->m, 1, &lp), -1);   /* the netdev series */
	rig_free(r);
}

/* The job's class 0 (NCCL's default) lands on priority 0 without PFC;
 * PFC on 3 carries nothing: rdma-no-pfc, pfc-idle, not the job's? no: it
 * is the job's priority, so not-job-prio stays off. */
static void test_priority_without_pfc(void **state)
{
	(void)state;
	struct rig *r = rig_new("dscp", 1 << 3, NULL);
	r->m.job_tc = fab_int_of(0);
	run(r, 0, 1.0);
	struct lossless_port lp;
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_int_equal(lp.flags, LL_RDMA_NO_PFC | LL_PFC_IDLE);
	assert_int_equal(lp.no_pfc_mask, 1);
	assert_int_equal(lp.idle_pfc_mask, 1 << 3);
	assert_int_equal(lp.job_prio, 0);
	struct fab_model out;
	model_init(&out);
	assert_int_equal(lossless_findings(&r->s, &r->m, &out), 2);
	assert_string_equal(out.findings[0].id, "lossless.rdma-no-pfc");
	assert_int_equal(out.findings[0].sev, SEV_ERROR);
	assert_string_equal(out.findings[0].subject, "mlx5_0/1");
	assert_non_null(strstr(out.findings[0].hint, "mlnx_qos -i eth0 --pfc 1,0,0,1,0,0,0,0"));
	assert_string_equal(out.findings[1].id, "lossless.pfc-idle");
	model_free(&out);
	rig_free(r);
}

/* A global traffic_class of 106 overrides the job's 0: the traffic runs on
 * 3 (lossless), and the override is said. Traffic on 0 instead, with the
 * job's class mapping to 3: not-job-prio. */
static void test_override_and_not_job_prio(void **state)
{
	(void)state;
	struct rig *r = rig_new("dscp", 1 << 3, "106");
	r->m.job_tc = fab_int_of(0);
	r->m.job_tc_set = true;
	run(r, 3, 1.0);
	struct lossless_port lp;
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_int_equal(lp.flags, LL_OVERRIDE);
	assert_int_equal(lp.job_prio, 3);
	assert_true(lp.tc_override.ok && lp.tc_override.v == 106);
	rig_free(r);

	r = rig_new("dscp", (1 << 3) | 1, NULL);
	r->m.job_tc = fab_int_of(106);
	run(r, 0, 1.0);
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_int_equal(lp.flags, LL_NOT_JOB_PRIO | LL_PFC_IDLE);
	rig_free(r);
}

/* A priority carries RDMA from half of the port's RDMA bytes on: 0.49 of
 * them is other traffic, not the RDMA. */
static void test_rdma_share(void **state)
{
	(void)state;
	struct rig *r = rig_new("dscp", 1 << 3, NULL);
	r->m.job_tc = fab_int_of(0);
	run(r, 0, 0.49);
	struct lossless_port lp;
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_false(lp.prio[0].rdma);
	assert_int_equal(lp.flags & LL_RDMA_NO_PFC, 0);
	rig_free(r);
	r = rig_new("dscp", 1 << 3, NULL);
	r->m.job_tc = fab_int_of(0);
	run(r, 0, 0.5);
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_true(lp.prio[0].rdma);
	assert_int_equal(lp.flags & LL_RDMA_NO_PFC, LL_RDMA_NO_PFC);
	rig_free(r);
}

/* RDMA bytes R on priority 3; priority 0 carries `tcp` bytes of the vport's
 * Ethernet unicast (TCP, storage) each way. */
static struct rig *tcp_rig(uint64_t tcp)
{
	struct rig *r = rig_new("dscp", 1 << 3, NULL);
	r->m.job_tc = fab_int_of(106);
	step(r, 100.0);
	uint64_t words = 125000000000ull, bytes = 4 * words;
	r->v[XD] += words;
	r->v[RD] += words;
	r->v[RX3B] += bytes;
	r->v[TX3B] += bytes;
	r->v[RX3P] += 1000000;
	r->v[TX3P] += 1000000;
	r->v[RX0B] += tcp;
	r->v[TX0B] += tcp;
	r->v[RX0P] += 2000000;
	r->v[TX0P] += 2000000;
	r->v[RXUNI] += tcp;
	r->v[TXUNI] += tcp;
	step(r, 110.0);
	return r;
}

/* Priority 0 carries 0.4 R of TCP: 3, less every non-RDMA byte, still
 * holds 0.6 R, so it surely carries the RDMA and 0 does not. With as much
 * TCP on 0 as RDMA on 3, the counters cannot tell which is which (the RDMA
 * could be on either): nothing is marked, no error for 0's missing PFC,
 * and the port says it is ambiguous. */
static void test_tcp_on_priority_0(void **state)
{
	(void)state;
	uint64_t R = 500000000000ull;
	struct rig *r = tcp_rig(R * 4 / 10);
	struct lossless_port lp;
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_true(lp.known);
	assert_false(lp.prio[0].rdma);
	assert_true(lp.prio[3].rdma);
	assert_false(lp.rdma_ambiguous);
	assert_int_equal(lp.flags, 0);
	rig_free(r);

	r = tcp_rig(R);
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_true(lp.known);
	assert_false(lp.prio[0].rdma);
	assert_false(lp.prio[3].rdma);
	assert_true(lp.rdma_ambiguous);
	assert_int_equal(lp.flags & (LL_RDMA_NO_PFC | LL_NOT_JOB_PRIO), 0);
	rig_free(r);
}

/* A statistic or a CNP counter that could not be read in some step of the
 * run: the run cannot vouch for it, so nothing is concluded from it. */
static void test_unread_in_a_step(void **state)
{
	(void)state;
	struct rig *r = rig_new("dscp", 1 << 3, NULL);
	r->m.job_tc = fab_int_of(106);
	step(r, 100.0);
	r->rd[TX3B] = READ_BAD;
	step(r, 105.0);
	run(r, 3, 1.0);
	struct lossless_port lp;
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_false(lp.known);
	assert_non_null(strstr(lp.why, "tx_prio3_bytes could not be read over the whole run"));
	rig_free(r);

	/* Pauses, and the device's CNP counter unreadable once: not "no CNPs". */
	r = rig_new("dscp", 1 << 3, NULL);
	r->m.job_tc = fab_int_of(106);
	step(r, 0);
	r->v[RX3PAUSE] = 500;
	r->rd[DEVCNP] = READ_BAD;
	run(r, 3, 1.0);
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_true(lp.known);
	assert_false(lp.cnp_known);
	assert_int_equal(lp.flags & LL_PAUSE_NO_CNP, 0);
	rig_free(r);
}

/* Pauses received with no CNP anywhere (port or device level): PFC alone.
 * One CNP handled at the device level: congestion control is engaged. */
static void test_pause_no_cnp(void **state)
{
	(void)state;
	struct rig *r = rig_new("dscp", 1 << 3, NULL);
	r->m.job_tc = fab_int_of(106);
	step(r, 0);
	r->v[RX3PAUSE] = 500;
	r->v[RX3DISC] = 7;
	run(r, 3, 1.0);
	struct lossless_port lp;
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_int_equal(lp.flags, LL_PAUSE_NO_CNP);
	assert_true(lp.pauses_rx == 500);
	assert_true(lp.prio[3].discards == 7);
	assert_true(lp.elapsed == 110.0);
	rig_free(r);

	r = rig_new("dscp", 1 << 3, NULL);
	r->m.job_tc = fab_int_of(106);
	step(r, 0);
	r->v[RX3PAUSE] = 500;
	r->v[DEVCNP] = 1;
	run(r, 3, 1.0);
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_int_equal(lp.flags, 0);
	assert_true(lp.cnp_handled == 1);
	rig_free(r);
}

/* Unknown is not healthy: PFC unread is never "off", trust pcp leaves the
 * job's priority unknown, and one reading (no run) judges nothing. */
static void test_unknowns(void **state)
{
	(void)state;
	struct rig *r = rig_new("dscp", -1, NULL);
	r->m.job_tc = fab_int_of(0);
	struct lossless_port lp;
	step(r, 100.0);
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_false(lp.known);
	assert_non_null(strstr(lp.why, "no run yet"));
	r->v[XD] += 125000000000ull;
	r->v[RD] += 125000000000ull;
	r->v[RX0B] += 1000000000000ull;
	step(r, 110.0);
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_true(lp.known);
	assert_true(lp.prio[0].rdma);
	assert_int_equal(lp.prio[0].pfc, FAB_UNKNOWN);
	assert_int_equal(lp.flags, 0);
	rig_free(r);

	r = rig_new("pcp", 1 << 3, NULL);
	r->m.job_tc = fab_int_of(106);
	run(r, 3, 1.0);
	assert_int_equal(lossless_judge(&r->s, &r->m, 0, &lp), 0);
	assert_int_equal(lp.job_prio, -1);
	assert_non_null(strstr(lp.job_prio_why, "service level"));
	assert_int_equal(lp.flags & LL_NOT_JOB_PRIO, 0);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lossless_holds),
		cmocka_unit_test(test_priority_without_pfc),
		cmocka_unit_test(test_override_and_not_job_prio),
		cmocka_unit_test(test_rdma_share),
		cmocka_unit_test(test_pause_no_cnp),
		cmocka_unit_test(test_unknowns),
		cmocka_unit_test(test_tcp_on_priority_0),
		cmocka_unit_test(test_unread_in_a_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
