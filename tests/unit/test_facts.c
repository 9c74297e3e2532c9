/* The model's judgements, each computed once (facts.c, counters.c,
 * sampler.c) and named once (vocab.c): pinned counters at their kernel
 * width, usable as yes/no/unknown with the reason, the NCCL_IB_HCA list of
 * usable ports, a port's traffic state, and the words every medium prints. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "fabtop/counters.h"
#include "fabtop/findings.h"
#include "fabtop/model.h"
#include "sampler_int.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"

static void test_pinned(void **state)
{
	(void)state;
	const struct fab_counter_def *sym = counter_def("counters", "symbol_error");
	const struct fab_counter_def *down = counter_def("counters", "link_downed");
	const struct fab_counter_def *ebo = counter_def("counters", "excessive_buffer_overrun_errors");
	const struct fab_counter_def *wait = counter_def("counters", "port_xmit_wait");
	const struct fab_counter_def *data = counter_def("counters", "port_xmit_data");
	const struct fab_counter_def *oos = counter_def("hw_counters", "out_of_sequence");
	assert_non_null(sym);
	/* The kernel's PMA field widths: 16, 8, 4 and 32 bits. */
	assert_true(counter_pinned(sym, 65535));
	assert_false(counter_pinned(sym, 65534));
	assert_true(counter_pinned(down, 255));
	assert_false(counter_pinned(down, 254));
	assert_true(counter_pinned(ebo, 15));
	assert_true(counter_pinned(wait, 4294967295ull));
	assert_false(counter_pinned(wait, 65535));
	/* 64-bit data counters and wrapping Q-counters never saturate. */
	assert_false(counter_pinned(data, UINT64_MAX));
	assert_false(counter_pinned(oos, 4294967295ull));
	assert_false(counter_pinned(NULL, 4294967295ull));
	/* The sampler's step says SAT for exactly the same values. */
	assert_true(counter_step(65530, 65535, sym->width, sym->saturates, 1, 1).flags & CTR_SATURATED);
	assert_false(counter_step(65530, 65534, sym->width, sym->saturates, 1, 1).flags & CTR_SATURATED);
	assert_true(counter_max(16) == 65535);
	assert_true(counter_max(64) == UINT64_MAX);
	assert_string_equal(counter_rate_unit(data), "bytes");
	assert_string_equal(counter_rate_unit(sym), "events");
	assert_null(counter_rate_unit(NULL));
	assert_string_equal(counter_class_name(oos), "retry");
}

/* A model with n HCAs of one port each, ACTIVE, verbs opening. */
static void model_of(struct fab_model *m, int n)
{
	model_init(m);
	for (int i = 0; i < n; i++) {
		struct fab_nic *nic = model_add_nic(m);
		snprintf(nic->name, sizeof(nic->name), "mlx5_%d", i);
		snprintf(nic->uverbs.name, sizeof(nic->uverbs.name), "uverbs%d", i);
		nic->uverbs.present = true;
		nic->uverbs.open_errno = fab_int_of(0);
		nic->pci = FAB_NO_INDEX;
		nic->nports = 1;
		struct fab_port *p = &nic->ports[0];
		p->num = 1;
		p->state = fab_int_of(4);
		snprintf(p->state_str, sizeof(p->state_str), "ACTIVE");
		p->phys_state = fab_int_of(5);
		snprintf(p->phys_state_str, sizeof(p->phys_state_str), "LinkUp");
		p->ll = FAB_LL_ETH;
		p->nerrors = 1;
		snprintf(p->errors[0].name, sizeof(p->errors[0].name), "symbol_error");
		p->errors[0].value = fab_int_of(65535);
	}
}

static void test_usable(void **state)
{
	(void)state;
	struct fab_model m;
	char buf[160];
	model_of(&m, 4);
	/* mlx5_1: port DOWN; mlx5_2: no verbs node here; mlx5_3: not recorded. */
	m.nics[1].ports[0].state = fab_int_of(1);
	snprintf(m.nics[1].ports[0].state_str, sizeof(m.nics[1].ports[0].state_str), "DOWN");
	snprintf(m.nics[1].ports[0].phys_state_str, sizeof(m.nics[1].ports[0].phys_state_str),
		 "Disabled");
	m.nics[2].uverbs.present = false;
	m.nics[3].uverbs.open_errno = (fab_int){ 0, false };
	m.nics[3].uverbs.present = false;
	model_derive(&m);
	assert_int_equal(m.nics[0].ports[0].usable.v, FAB_YES);
	assert_int_equal(m.nics[1].ports[0].usable.v, FAB_NO);
	assert_string_equal(m.nics[1].ports[0].usable.why, "port DOWN/Disabled");
	assert_int_equal(m.nics[2].ports[0].usable.v, FAB_NO);
	assert_string_equal(m.nics[2].ports[0].usable.why, "/dev/infiniband/uverbs2 does not exist here");
	/* Could not read is never "no". */
	assert_int_equal(m.nics[3].ports[0].usable.v, FAB_UNKNOWN);
	assert_int_equal(m.nics[3].usable.v, FAB_UNKNOWN);
	assert_int_equal(m.nics[1].usable.v, FAB_NO);
	int count[3];
	assert_int_equal(model_usable_counts(&m, count), 4);
	assert_int_equal(count[FAB_YES], 1);
	assert_int_equal(count[FAB_NO], 2);
	assert_int_equal(count[FAB_UNKNOWN], 1);
	/* The NCCL_IB_HCA proposal names only what is usable: never a DOWN port. */
	assert_int_equal(model_usable_hcas(&m, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "mlx5_0");
	/* A port DOWN and a device that does not open: both reasons. */
	m.nics[1].uverbs.open_errno = fab_int_of(EACCES);
	model_derive(&m);
	assert_string_equal(m.nics[1].ports[0].usable.why,
			    "port DOWN; /dev/infiniband/uverbs1 does not open: Permission denied");
	/* The pinned flag is the model's, from the counter table's width. */
	assert_true(m.nics[0].ports[0].errors[0].pinned);
	assert_non_null(m.nics[0].ports[0].errors[0].def);
	m.nics[0].ports[0].errors[0].value = fab_int_of(65534);
	model_derive(&m);
	assert_false(m.nics[0].ports[0].errors[0].pinned);
	model_free(&m);
}

static void test_usable_two_ports(void **state)
{
	(void)state;
	struct fab_model m;
	char buf[160];
	model_of(&m, 2);
	struct fab_nic *n = &m.nics[1];
	n->nports = 2;
	n->ports[1] = n->ports[0];
	n->ports[1].num = 2;
	n->ports[1].state = fab_int_of(1);
	model_derive(&m);
	/* One usable port of two: named with its port number. */
	assert_int_equal(model_usable_hcas(&m, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "mlx5_0,mlx5_1:1");
	assert_int_equal(n->usable.v, FAB_YES);
	model_free(&m);
}

/* The traffic state: one classifier for the pane and `report counters`. */
static void test_traffic_state(void **state)
{
	(void)state;
	struct fab_sampler s = { 0 };
	char w[64];
	assert_int_equal(sampler_add_port(&s, "mlx5_0", 0), 0);
	assert_int_equal(sampler_add_ctr(&s, "hw_counters", "out_of_sequence"), 0);
	assert_int_equal(sampler_add_port(&s, "mlx5_0", 1), 1);
	assert_int_equal(sampler_add_ctr(&s, "counters", "port_xmit_data"), 1);
	assert_int_equal(sampler_add_ctr(&s, "counters", "port_rcv_data"), 2);
	double t = 0;
	uint64_t tx = 0, oos = 0;
	/* 4 steps at 100 Gb/s, then one at 0.5 Gb/s (under 1% of the peak). */
	uint64_t per_s[] = { 0, 3125000000ull, 3125000000ull, 3125000000ull, 15625000ull };
	for (int k = 0; k < 5; k++, t += 1) {
		tx += per_s[k];
		sampler_step_begin(&s, t);
		sampler_take(&s, &s.ctrs[0], READ_OK, oos, false, t);
		sampler_take(&s, &s.ctrs[1], READ_OK, tx, false, t);
		sampler_take(&s, &s.ctrs[2], READ_OK, tx, false, t);
		sampler_step_end(&s);
		if (k == 0)
			assert_int_equal(sampler_port_state(&s, 1), PT_WAIT);
		if (k == 1)
			assert_int_equal(sampler_port_state(&s, 1), 0);
	}
	assert_true(s.ports[1].peak_gbps == 200.0);
	assert_int_equal(sampler_port_state(&s, 1), PT_STOPPED);
	assert_string_equal(traffic_words(PT_STOPPED, w, sizeof(w)), "STOPPED");
	/* A device-level retry counter grows: the port says RETRIES too. */
	sampler_step_begin(&s, t);
	sampler_take(&s, &s.ctrs[0], READ_OK, 3, false, t);
	sampler_take(&s, &s.ctrs[1], READ_OK, tx, false, t);
	sampler_take(&s, &s.ctrs[2], READ_OK, tx, false, t);
	sampler_step_end(&s);
	assert_int_equal(sampler_port_state(&s, 1), PT_STOPPED | PT_RETRIES);
	assert_string_equal(traffic_words(sampler_port_state(&s, 1), w, sizeof(w)), "STOPPED,RETRIES");
	/* The baseline forgets the peak: since then it never moved. */
	sampler_baseline(&s);
	t += 1;
	sampler_step_begin(&s, t);
	sampler_take(&s, &s.ctrs[0], READ_OK, 3, false, t);
	sampler_take(&s, &s.ctrs[1], READ_OK, tx, false, t);
	sampler_take(&s, &s.ctrs[2], READ_OK, tx, false, t);
	sampler_step_end(&s);
	assert_int_equal(sampler_port_state(&s, 1), PT_IDLE);
	assert_string_equal(traffic_words(PT_IDLE, w, sizeof(w)), "idle");
	assert_string_equal(traffic_words(0, w, sizeof(w)), "ok");
	assert_string_equal(traffic_words(PT_WAIT, w, sizeof(w)), "-");
	sampler_close(&s);
}

/* Could not read is unknown, never healthy: the verdict of each report
 * from the sources it stands on (model_verdict), and the words. */
static void test_verdict(void **state)
{
	(void)state;
	struct fab_model m;
	char w[32];
	model_init(&m);
	assert_int_equal(model_verdict(&m, FAB_NEED_LINKS, -1), FAB_VERDICT_OK);
	assert_int_equal(model_verdict(&m, FAB_NEED_LINKS, SEV_INFO), FAB_VERDICT_OK);
	assert_int_equal(model_verdict(&m, FAB_NEED_LINKS, SEV_WARN), FAB_VERDICT_FINDINGS);
	/* A detail that could not be read changes nothing. */
	model_note(&m, "hwloc", "NUMA unknown");
	assert_int_equal(model_verdict(&m, FAB_NEED_ALL, -1), FAB_VERDICT_OK);
	/* The RDMA class: links and all are unknown, topo is not. */
	model_note_src(&m, FAB_SRC_RDMA, "/sys/class/infiniband", "cannot read it");
	assert_int_equal(model_verdict(&m, FAB_NEED_LINKS, SEV_ERROR), FAB_VERDICT_UNKNOWN);
	assert_int_equal(model_verdict(&m, FAB_NEED_ALL, -1), FAB_VERDICT_UNKNOWN);
	assert_int_equal(model_verdict(&m, FAB_NEED_TOPO, -1), FAB_VERDICT_OK);
	int n = 0;
	const struct fab_note *why = model_unknown(&m, FAB_NEED_LINKS, &n);
	assert_non_null(why);
	assert_string_equal(why->message, "cannot read it");
	assert_int_equal(n, 1);
	/* A capture cut short leaves every report unknown. */
	model_free(&m);
	model_init(&m);
	model_note_src(&m, FAB_SRC_CAPTURE, "capture", "truncated");
	assert_int_equal(model_verdict(&m, FAB_NEED_TOPO, -1), FAB_VERDICT_UNKNOWN);
	assert_int_equal(model_verdict(&m, FAB_NEED_LINKS, -1), FAB_VERDICT_UNKNOWN);
	/* An unreadable /sys/class/net is no main source. */
	model_free(&m);
	model_init(&m);
	model_note_src(&m, FAB_SRC_NET, "/sys/class/net", "cannot read it");
	assert_int_equal(model_verdict(&m, FAB_NEED_ALL, -1), FAB_VERDICT_OK);
	model_free(&m);
	snprintf(w, sizeof(w), "%s/%s/%s", fab_verdict_name(FAB_VERDICT_OK),
		 fab_verdict_name(FAB_VERDICT_FINDINGS), fab_verdict_name(FAB_VERDICT_UNKNOWN));
	assert_string_equal(w, "ok/findings/unknown");
}

/* The arrays grow by doubling: every element stays where it was written,
 * zeroed when new, and the allocation is never per element. */
static void test_growth(void **state)
{
	(void)state;
	struct fab_model m;
	model_init(&m);
	int reallocs = 0;
	const struct fab_netdev *prev = NULL;
	for (int i = 0; i < 5000; i++) {
		struct fab_netdev *d = model_add_netdev(&m);
		assert_int_equal(d->mtu.ok, false);
		snprintf(d->name, sizeof(d->name), "veth%d", i);
		if (m.netdevs != prev)
			reallocs++;
		prev = m.netdevs;
		model_add_finding(&m, "x", SEV_INFO, d->name);
	}
	assert_int_equal(m.nnetdevs, 5000);
	assert_true(m.cap.netdevs >= 5000 && m.cap.netdevs < 2 * 5000);
	assert_true(reallocs <= 16);   /* about log2(5000/8) + 1 moves at most */
	for (int i = 0; i < 5000; i += 997) {
		char want[16];
		snprintf(want, sizeof(want), "veth%d", i);
		assert_string_equal(m.netdevs[i].name, want);
		assert_string_equal(m.findings[i].subject, want);
	}
	/* findings_run starts the list again in the same allocation. */
	int cap = m.cap.findings;
	m.nfindings = 0;
	model_add_finding(&m, "y", SEV_WARN, "s");
	assert_int_equal(m.cap.findings, cap);
	assert_string_equal(m.findings[0].id, "y");
	model_free(&m);
	assert_int_equal(m.cap.netdevs, 0);
}

static void test_words(void **state)
{
	(void)state;
	char b[64];
	struct fab_port p = { 0 };
	assert_int_equal(ll_parse("InfiniBand"), FAB_LL_IB);
	assert_int_equal(ll_parse("Ethernet"), FAB_LL_ETH);
	assert_int_equal(ll_parse(""), FAB_LL_UNKNOWN);
	assert_int_equal(ll_parse("Unknown"), FAB_LL_OTHER);
	assert_string_equal(ll_name(FAB_LL_IB), "InfiniBand");
	assert_null(ll_name(FAB_LL_UNKNOWN));
	assert_string_equal(ll_short(FAB_LL_ETH), "RoCE");
	assert_string_equal(ll_short(FAB_LL_UNKNOWN), "N/A");
	assert_null(port_state_word(&p, b, sizeof(b)));
	p.state = fab_int_of(4);
	assert_string_equal(port_state_word(&p, b, sizeof(b)), "4");
	assert_string_equal(fab_subject("mlx5_0", 1, b, sizeof(b)), "mlx5_0/1");
	assert_string_equal(fab_subject("mlx5_bond_0", 0, b, sizeof(b)), "mlx5_bond_0");
	assert_null(fab_prio_list((fab_int){ 0, false }, b, sizeof(b)));
	assert_string_equal(fab_prio_list(fab_int_of(0x09), b, sizeof(b)), "0,3");
	assert_string_equal(fab_prio_list(fab_int_of(0), b, sizeof(b)), "none");
	assert_string_equal(fab_fmt_bps(400e9, b, sizeof(b)), "400 Gb/s");
	assert_string_equal(fab_fmt_bps(12.5e9, b, sizeof(b)), "12.5 Gb/s");
	assert_string_equal(fab_fmt_bps(1.25e9, b, sizeof(b)), "1.25 Gb/s");
	assert_string_equal(fab_fmt_bps(980e6, b, sizeof(b)), "980 Mb/s");
	assert_string_equal(fab_fmt_bps(0, b, sizeof(b)), "0 b/s");
	assert_string_equal(tri_name(FAB_UNKNOWN), "unknown");
	assert_string_equal(fab_na(NULL), "N/A");
	assert_string_equal(fab_na(""), "N/A");
	assert_string_equal(ctr_flag_words(CTR_RESET | CTR_SATURATED, b, sizeof(b), NULL, NULL),
			    "RESET,PINNED");
	assert_string_equal(ctr_flag_words(0, b, sizeof(b), NULL, NULL), "");
}

/* A finding's message does not repeat its subject: every renderer prints
 * the subject once, in front. */
static void test_subject_once(void **state)
{
	(void)state;
	struct fab_model m;
	model_of(&m, 2);
	m.nics[1].ports[0].state = fab_int_of(1);
	snprintf(m.nics[1].ports[0].state_str, sizeof(m.nics[1].ports[0].state_str), "DOWN");
	m.nics[1].ports[0].phys_state = fab_int_of(3);
	snprintf(m.nics[1].ports[0].phys_state_str, sizeof(m.nics[1].ports[0].phys_state_str),
		 "Disabled");
	m.nics[0].uverbs.present = false;
	findings_run(&m);
	int n = 0;
	for (int i = 0; i < m.nfindings; i++) {
		const struct fab_finding *f = &m.findings[i];
		assert_true(strncmp(f->message, f->subject, strlen(f->subject)) != 0);
		n++;
	}
	assert_true(n >= 3);   /* port-down, errors (saturated), not-usable */
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pinned),
		cmocka_unit_test(test_usable),
		cmocka_unit_test(test_usable_two_ports),
		cmocka_unit_test(test_traffic_state),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_subject_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
