/* The counter table and its arithmetic with exact values: pins per width
 * (4, 8, 16, 32 bits), the 32-bit Q-counter wrap, rates, gauges, the
 * per-priority pattern rows (counter_def, counter_prio), what a pin hides,
 * and the recorded mlx5 `ethtool -S` name lists of tests/fixtures/ethtool/
 * (README.md there names each source). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/counters.h"
#include "fabtop/model.h"

#define FIX "tests/fixtures/ethtool/"
#define assert_dbl(a, b) assert_true((double)(a) == (double)(b))
#define assert_u64(a, b) assert_true((uint64_t)(a) == (uint64_t)(b))

/* ---- pins, per width ---- */

/* One width through its whole life: counting below the top, one below it,
 * entering the pin, staying pinned, and a clear out of it. */
static void pin_cycle(int width)
{
	uint64_t max = counter_max(width);
	assert_u64(max, (width == 32 ? 4294967295ull : (1ull << width) - 1));

	/* Below the top: an exact delta and rate. */
	struct ctr_step st = counter_step(max - 3, max - 1, width, true, 1.0, 2.0);
	assert_u64(st.delta, 2);
	assert_int_equal(st.flags, 0);
	assert_true(st.has_rate);
	assert_dbl(st.rate, 1.0);

	/* One below the top is not pinned. */
	st = counter_step(max - 1, max - 1, width, true, 1.0, 1.0);
	assert_int_equal(st.flags, 0);
	assert_true(st.has_rate);
	assert_dbl(st.rate, 0.0);

	/* Entering the pin: max - prev is a lower bound, its rate one too. */
	st = counter_step(max - 1, max, width, true, 1.0, 0.5);
	assert_u64(st.delta, 1);
	assert_int_equal(st.flags, CTR_SATURATED);
	assert_true(st.has_rate);
	assert_dbl(st.rate, 2.0);
	st = counter_step(0, max, width, true, 1.0, 1.0);
	assert_u64(st.delta, max);
	assert_int_equal(st.flags, CTR_SATURATED);
	assert_true(st.has_rate);

	/* Staying pinned: blind, not "0/s". */
	st = counter_step(max, max, width, true, 1.0, 1.0);
	assert_u64(st.delta, 0);
	assert_int_equal(st.flags, CTR_SATURATED);
	assert_false(st.has_rate);
	assert_dbl(st.rate, 0.0);

	/* A clear out of the pin: a reset, the new value grew since, no rate. */
	st = counter_step(max, 2, width, true, 1.0, 1.0);
	assert_int_equal(st.flags, CTR_RESET);
	assert_u64(st.delta, 2);
	assert_false(st.has_rate);
	/* A saturating counter never wraps, even from just below its top. */
	st = counter_step(max - 1, 0, width, true, 1.0, 1.0);
	assert_int_equal(st.flags, CTR_RESET);
}

static void test_pin_4(void **state)
{
	(void)state;
	pin_cycle(4);
	const struct fab_counter_def *d = counter_def("counters", "excessive_buffer_overrun_errors");
	assert_non_null(d);
	assert_int_equal(d->width, 4);
	assert_true(counter_pinned(d, 15));
	assert_false(counter_pinned(d, 14));
	d = counter_def("counters", "local_link_integrity_errors");
	assert_int_equal(d->width, 4);
	assert_true(counter_pinned(d, 15));
}

static void test_pin_8(void **state)
{
	(void)state;
	pin_cycle(8);
	const struct fab_counter_def *d = counter_def("counters", "link_downed");
	assert_int_equal(d->width, 8);
	assert_true(counter_pinned(d, 255));
	assert_false(counter_pinned(d, 254));
	assert_int_equal(counter_def("counters", "link_error_recovery")->width, 8);
}

static void test_pin_16(void **state)
{
	(void)state;
	pin_cycle(16);
	static const char *const w16[] = { "symbol_error", "port_rcv_errors", "port_xmit_discards",
					   "VL15_dropped", "port_rcv_remote_physical_errors" };
	for (size_t i = 0; i < sizeof(w16) / sizeof(w16[0]); i++) {
		const struct fab_counter_def *d = counter_def("counters", w16[i]);
		assert_non_null(d);
		assert_int_equal(d->width, 16);
		assert_true(d->saturates);
		assert_true(counter_pinned(d, 65535));
	}
}

static void test_pin_32(void **state)
{
	(void)state;
	pin_cycle(32);
	const struct fab_counter_def *d = counter_def("counters", "port_xmit_wait");
	assert_int_equal(d->width, 32);
	assert_true(counter_pinned(d, 4294967295ull));
	/* Stuck at 2^32-1 for a second: no rate at all. */
	struct ctr_step st = counter_step(4294967295ull, 4294967295ull, d->width, d->saturates,
					  counter_scale(d), 1.0);
	assert_false(st.has_rate);
	assert_int_equal(st.flags, CTR_SATURATED);
}

/* What a pin hides, in the words every surface prints. */
static void test_pin_hides(void **state)
{
	(void)state;
	char buf[160];
	assert_int_equal(counter_pin_hides(counter_def("counters", "link_downed"), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "link_downed stopped at 255: later link downs no longer show");
	assert_int_equal(counter_pin_hides(counter_def("counters", "port_xmit_discards"), buf,
					   sizeof(buf)), 0);
	assert_string_equal(buf, "port_xmit_discards stopped at 65535: later transmit discards no "
			    "longer show");
	assert_int_equal(counter_pin_hides(counter_def("counters", "excessive_buffer_overrun_errors"),
					   buf, sizeof(buf)), 0);
	assert_string_equal(buf, "excessive_buffer_overrun_errors stopped at 15: later buffer "
			    "overruns no longer show");
	/* Every saturating row has its noun. */
	for (int i = 0; i < fab_ncounter_defs; i++)
		if (fab_counter_defs[i].saturates)
			assert_non_null(fab_counter_defs[i].noun);
	/* Counters that never pin have no such words. */
	buf[0] = 'x';
	assert_int_equal(counter_pin_hides(counter_def("counters", "port_xmit_data"), buf, sizeof(buf)), -1);
	assert_string_equal(buf, "");
	assert_int_equal(counter_pin_hides(counter_def("hw_counters", "out_of_sequence"), buf,
					   sizeof(buf)), -1);
	assert_int_equal(counter_pin_hides(NULL, buf, sizeof(buf)), -1);
}

/* A value the width cannot hold stays implausible. */
static void test_above_width(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(counter_value_judge(counter_def("counters", "local_link_integrity_errors"),
					     "1000\n", 5, &v), 1);
	assert_int_equal(counter_value_judge(counter_def("counters", "link_downed"), "256\n", 4, &v), 1);
	assert_int_equal(counter_value_judge(counter_def("counters", "link_downed"), "255\n", 4, &v), 0);
	assert_u64(v, 255);
	assert_int_equal(counter_value_judge(counter_def("hw_counters", "rx_write_requests"),
					     "4294967296\n", 11, &v), 1);
	/* The extended PPCNT counter is 64-bit: the same value is fine there. */
	assert_int_equal(counter_value_judge(counter_def("hw_counters", "rx_icrc_encapsulated"),
					     "4294967296\n", 11, &v), 0);
}

/* ---- wrap, rates ---- */

static void test_wrap_32(void **state)
{
	(void)state;
	const struct fab_counter_def *d = counter_def("hw_counters", "out_of_sequence");
	assert_int_equal(d->width, 32);
	assert_false(d->saturates);
	/* 4294967000 -> 700 over 2 s: 295 to the top, 1 to 0, 700 after. */
	struct ctr_step st = counter_step(4294967000ull, 700, d->width, d->saturates, 1.0, 2.0);
	assert_int_equal(st.flags, CTR_WRAPPED);
	assert_u64(st.delta, 996);
	assert_true(st.has_rate);
	assert_dbl(st.rate, 498.0);
	/* A fall of half the range or less is a clear. */
	st = counter_step(2147483648ull, 0, 32, false, 1.0, 1.0);
	assert_int_equal(st.flags, CTR_RESET);
	/* Q-counters never pin: at 2^32-1 they are counting. */
	assert_false(counter_pinned(d, 4294967295ull));
	st = counter_step(4294967295ull, 4294967295ull, 32, false, 1.0, 1.0);
	assert_int_equal(st.flags, 0);
	assert_true(st.has_rate);
	/* The 64-bit hw_counters: a fall is a clear, never a wrap. */
	d = counter_def("hw_counters", "rx_icrc_encapsulated");
	assert_int_equal(d->width, 64);
	st = counter_step(4294967000ull, 700, d->width, d->saturates, 1.0, 2.0);
	assert_int_equal(st.flags, CTR_RESET);
}

static void test_rates(void **state)
{
	(void)state;
	/* port_xmit_data: 4-octet words; 12.5e9 words in 1.25 s = 40e9 B/s. */
	const struct fab_counter_def *d = counter_def("counters", "port_xmit_data");
	struct ctr_step st = counter_step(0, 12500000000ull, d->width, d->saturates,
					  counter_scale(d), 1.25);
	assert_dbl(st.rate, 4e10);
	assert_string_equal(counter_rate_unit(d), "bytes");
	/* ethtool bytes: scale 1. */
	d = counter_def("ethtool", "tx_prio3_bytes");
	assert_dbl(counter_scale(d), 1.0);
	st = counter_step(1000, 1000 + 50000000000ull, d->width, d->saturates, counter_scale(d), 1.0);
	assert_dbl(st.rate, 5e10);
	assert_string_equal(counter_rate_unit(d), "bytes");
	/* rx_bits_phy: the line's capacity, as bytes. 425e9 bits in 1 s. */
	d = counter_def("ethtool", "rx_bits_phy");
	assert_dbl(counter_scale(d), 0.125);
	assert_string_equal(counter_rate_unit(d), "bytes");
	st = counter_step(0, 425000000000ull, d->width, d->saturates, counter_scale(d), 1.0);
	assert_dbl(st.rate, 53125000000.0);
	assert_false(counter_step_implausible(d, &st, 400));
	/* Error bits stay bits. */
	d = counter_def("ethtool", "rx_corrected_bits_phy");
	assert_dbl(counter_scale(d), 1.0);
	assert_string_equal(counter_rate_unit(d), "bits");
	/* Pause time: microseconds per second (1e6 = paused all the time). */
	d = counter_def("ethtool", "rx_prio3_pause_duration");
	assert_string_equal(d->unit, "microseconds");
	st = counter_step(100, 250100, d->width, d->saturates, counter_scale(d), 0.5);
	assert_dbl(st.rate, 500000.0);
	/* ethtool statistics never wrap: a fall is a clear. */
	st = counter_step(UINT64_MAX - 5, 7, d->width, d->saturates, 1.0, 1.0);
	assert_int_equal(st.flags, CTR_RESET);
	assert_u64(st.delta, 7);
}

/* ---- gauges ---- */

static void test_gauges(void **state)
{
	(void)state;
	const struct fab_counter_def *rd = counter_def("ethtool", "outbound_pci_stalled_rd"),
		*wr = counter_def("ethtool", "outbound_pci_stalled_wr");
	assert_non_null(rd);
	assert_non_null(wr);
	assert_true(rd->gauge);
	assert_true(wr->gauge);
	assert_string_equal(rd->unit, "percent");
	assert_string_equal(rd->layer, "pcie");
	assert_false(rd->bad_when_grows);
	/* Their _events siblings are counters. */
	assert_false(counter_def("ethtool", "outbound_pci_stalled_rd_events")->gauge);
	uint64_t v;
	assert_int_equal(counter_value_judge(rd, "100\n", 4, &v), 0);
	assert_u64(v, 100);
	assert_int_equal(counter_value_judge(rd, "101\n", 4, &v), 1);
	assert_int_equal(counter_value_judge(wr, "0\n", 2, &v), 0);
	/* A level: a warning from 31 % ("over 30 %"), nothing below. */
	assert_int_equal(counter_total_judge(rd, 30), CTR_TOTAL_NONE);
	assert_int_equal(counter_total_judge(rd, 31), CTR_TOTAL_WARN);
	assert_int_equal(counter_total_judge(wr, 0), CTR_TOTAL_NONE);
	/* The only gauges are these two. */
	int n = 0;
	for (int i = 0; i < fab_ncounter_defs; i++)
		n += fab_counter_defs[i].gauge;
	assert_int_equal(n, 2);
}

/* ---- pattern rows ---- */

static void test_prio(void **state)
{
	(void)state;
	const struct fab_counter_def *d = counter_def("ethtool", "rx_prio3_pause");
	assert_non_null(d);
	assert_string_equal(d->name, "rx_prio%d_pause");
	assert_int_equal(counter_prio(d, "rx_prio3_pause"), 3);
	assert_null(counter_def("ethtool", "rx_prio9_pause"));
	assert_null(counter_def("ethtool", "rx_prio_pause"));
	assert_null(counter_def("ethtool", "rx_prio03_pause"));
	assert_null(counter_def("ethtool", "rx_prio-1_pause"));
	assert_null(counter_def("ethtool", "rx_prio3_pauses"));
	assert_null(counter_def("ethtool", "rx_prio10_pause"));
	assert_int_equal(counter_prio(d, "rx_prio9_pause"), -1);
	assert_int_equal(counter_prio(d, "rx_prio_pause"), -1);
	d = counter_def("ethtool", "tx_prio7_pause_duration");
	assert_non_null(d);
	assert_string_equal(d->name, "tx_prio%d_pause_duration");
	assert_int_equal(counter_prio(d, "tx_prio7_pause_duration"), 7);
	d = counter_def("ethtool", "rx_prio0_buf_discard");
	assert_int_equal(counter_prio(d, "rx_prio0_buf_discard"), 0);
	/* rx_prio%d_pause does not swallow rx_prio%d_pause_duration. */
	assert_string_equal(counter_def("ethtool", "rx_prio5_pause_duration")->name,
			    "rx_prio%d_pause_duration");
	assert_string_equal(counter_def("ethtool", "rx_prio5_pause_transition")->name,
			    "rx_prio%d_pause_transition");
	/* Lanes are not priorities. */
	d = counter_def("ethtool", "rx_err_lane_2_phy");
	assert_non_null(d);
	assert_int_equal(counter_prio(d, "rx_err_lane_2_phy"), -1);
	assert_int_equal(counter_index(d, "rx_err_lane_2_phy"), 2);
	/* Plain rows carry no number. */
	d = counter_def("ethtool", "rx_discards_phy");
	assert_int_equal(counter_prio(d, "rx_discards_phy"), -1);
	assert_int_equal(counter_index(d, "rx_discards_phy"), -1);
	assert_int_equal(counter_prio(NULL, "rx_prio3_pause"), -1);
	/* A pattern row is not matched under another dir. */
	assert_null(counter_def("hw_counters", "rx_prio3_pause"));
	assert_null(counter_def("ethtool", NULL));
}

/* dir NULL finds what it always found: the RDMA rows come first and no
 * ethtool row has an RDMA row's name. */
static void test_dir_null(void **state)
{
	(void)state;
	for (int i = 0; i < fab_ncounter_defs; i++) {
		const struct fab_counter_def *d = &fab_counter_defs[i];
		if (strcmp(d->dir, "ethtool") == 0) {
			for (int k = 0; k < fab_ncounter_defs; k++)
				if (strcmp(fab_counter_defs[k].dir, "ethtool") != 0)
					assert_string_not_equal(d->name, fab_counter_defs[k].name);
			continue;
		}
		assert_true(counter_def(NULL, d->name) == d);
		assert_true(counter_def(d->dir, d->name) == d);
	}
	/* The RDMA rows precede the ethtool rows. */
	bool seen_ethtool = false;
	for (int i = 0; i < fab_ncounter_defs; i++) {
		bool e = strcmp(fab_counter_defs[i].dir, "ethtool") == 0;
		assert_false(seen_ethtool && !e);
		seen_ethtool |= e;
	}
	assert_true(seen_ethtool);
	assert_true(counter_def(NULL, "rx_discards_phy") == counter_def("ethtool", "rx_discards_phy"));
	assert_true(counter_def(NULL, "out_of_buffer") == counter_def("hw_counters", "out_of_buffer"));
}

/* Every row is whole: a unit, a layer, a meaning, a sane width. */
static void test_rows_whole(void **state)
{
	(void)state;
	for (int i = 0; i < fab_ncounter_defs; i++) {
		const struct fab_counter_def *d = &fab_counter_defs[i];
		assert_non_null(d->unit);
		assert_non_null(d->layer);
		assert_non_null(d->meaning);
		assert_true(d->width == 4 || d->width == 8 || d->width == 16 || d->width == 32 ||
			    d->width == 64);
		assert_true(!d->saturates || d->width < 64);
		assert_true((strstr(d->name, "%d") != NULL) == (d->ix != CTR_IX_NONE));
		if (strcmp(d->dir, "ethtool") == 0)
			assert_int_equal(d->width, 64);
	}
}

/* The counters a real mlx5 port shows (issue 15, part 9). */
static void test_rdma_names(void **state)
{
	(void)state;
	static const char *const pma[] = { "unicast_xmit_packets", "unicast_rcv_packets",
					   "multicast_xmit_packets", "multicast_rcv_packets" };
	for (size_t i = 0; i < sizeof(pma) / sizeof(pma[0]); i++) {
		const struct fab_counter_def *d = counter_def("counters", pma[i]);
		assert_non_null(d);
		assert_int_equal(d->width, 64);
		assert_false(d->saturates);
		assert_int_equal(d->cls, CC_PACKETS);
		assert_string_equal(d->unit, "packets");
	}
	/* drivers/infiniband/hw/mlx5/counters.c, every group. */
	static const char *const hw[] = {
		"rx_write_requests", "rx_read_requests", "rx_atomic_requests", "rx_dct_connect",
		"out_of_buffer", "out_of_sequence", "duplicate_request", "rnr_nak_retry_err",
		"packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err",
		"resp_local_length_error", "resp_cqe_error", "req_cqe_error",
		"req_remote_invalid_request", "req_remote_access_errors",
		"resp_remote_access_errors", "resp_cqe_flush_error", "req_cqe_flush_error",
		"req_transport_retries_exceeded", "req_rnr_retries_exceeded", "roce_adp_retrans",
		"roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps",
		"roce_slow_restart_trans", "rp_cnp_ignored", "rp_cnp_handled",
		"np_ecn_marked_roce_packets", "np_cnp_sent", "rx_icrc_encapsulated",
		"cc_rx_ce_pkts", "cc_rx_cnp_pkts", "cc_tx_cnp_pkts", "rdma_tx_packets",
		"rdma_tx_bytes", "rdma_rx_packets", "rdma_rx_bytes",
	};
	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++)
		assert_non_null(counter_def("hw_counters", hw[i]));
	/* The traffic rows add no snapshot finding. */
	assert_int_equal(counter_total_judge(counter_def("hw_counters", "rx_write_requests"), 1000000),
			 CTR_TOTAL_NONE);
	assert_int_equal(counter_total_judge(counter_def("counters", "unicast_rcv_packets"), 1000000),
			 CTR_TOTAL_NONE);
}

/* ---- the recorded `ethtool -S` lists ---- */

/* The names issue 15 lists, plain. */
static const char *const issue_names[] = {
	"tx_pause_storm_warning_events", "tx_pause_storm_error_events", "rx_discards_phy",
	"rx_buffer_passed_thres_phy", "rx_pcs_symbol_err_phy", "rx_corrected_bits_phy",
	"rx_bits_phy", "rx_symbol_err_phy", "rx_crc_errors_phy", "link_down_events_phy",
	"rx_out_of_range_len_phy", "rx_oversize_pkts_phy", "rx_undersize_pkts_phy",
	"outbound_pci_stalled_rd", "outbound_pci_stalled_wr", "outbound_pci_stalled_rd_events",
	"outbound_pci_stalled_wr_events", "rx_pci_signal_integrity", "tx_pci_signal_integrity",
	"rx_pause_ctrl_phy", "tx_pause_ctrl_phy", "rx_out_of_buffer", "rx_wqe_err",
	"tx_discards_phy", "tx_errors_phy", "rx_global_pause", "tx_global_pause",
	"rx_global_pause_duration", "tx_global_pause_duration", "module_unplug",
	"module_bus_stuck", "module_high_temp", "module_bad_shorted",
};
/* ... and per priority: rx_/tx_prioN_<one of these>. */
static const char *const issue_prio[] = {
	"pause", "pause_duration", "pause_transition", "bytes", "packets", "buf_discard",
	"cong_discard", "marked", "discards",
};

/* The priority a name of the issue's per-priority list carries, or -1. */
static int issue_prio_of(const char *name)
{
	int p, n = 0;
	if ((strncmp(name, "rx_prio", 7) != 0 && strncmp(name, "tx_prio", 7) != 0) ||
	    sscanf(name + 7, "%1d_%n", &p, &n) != 1 || n == 0)
		return -1;
	for (size_t i = 0; i < sizeof(issue_prio) / sizeof(issue_prio[0]); i++)
		if (strcmp(name + 7 + n, issue_prio[i]) == 0)
			return p;
	return -1;
}

static bool issue_plain(const char *name)
{
	for (size_t i = 0; i < sizeof(issue_names) / sizeof(issue_names[0]); i++)
		if (strcmp(name, issue_names[i]) == 0)
			return true;
	return false;
}

/* A ring's own statistic (rx12_packets, tx3_bytes, ch0_poll): shown raw,
 * counted apart so the diagnostic stays short. */
static bool ring_name(const char *name)
{
	const char *p = name;
	if (strncmp(p, "rx", 2) == 0 || strncmp(p, "tx", 2) == 0 || strncmp(p, "ch", 2) == 0)
		p += 2;
	else
		return false;
	return *p >= '0' && *p <= '9';
}

struct list_count {
	int names, known, issue, rings, unknown;
};

/* Reads one fixture: every issue name resolves (with its priority), the
 * rest is counted; unknown names go to the TAP diagnostic. */
static struct list_count check_list(const char *file)
{
	struct list_count c = { 0 };
	char path[512], line[512], unknown[4096] = "";
	snprintf(path, sizeof(path), FIX "%s", file);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		char *colon = strstr(s, ": ");
		assert_non_null(colon);
		*colon = '\0';
		c.names++;
		const struct fab_counter_def *d = counter_def("ethtool", s);
		int prio = issue_prio_of(s);
		if (prio >= 0 || issue_plain(s)) {
			c.issue++;
			if (!d)
				fprintf(stderr, "%s: %s is not in the table\n", file, s);
			assert_non_null(d);
			assert_int_equal(counter_prio(d, s), prio);
		}
		/* A ring's own statistic is never a table row (rings stay raw
		 * by design: the software port's sum speaks for them). */
		if (ring_name(s))
			assert_null(d);
		if (d)
			c.known++;
		else if (ring_name(s))
			c.rings++;
		else {
			c.unknown++;
			if (strlen(unknown) + strlen(s) + 3 < sizeof(unknown))
				snprintf(unknown + strlen(unknown), sizeof(unknown) - strlen(unknown),
					 "%s%s", unknown[0] ? ", " : "", s);
		}
	}
	fclose(f);
	printf("# %s: %d names, %d known to the table (%d of the issue's), %d per-ring, unknown "
	       "(shown raw): %s\n", file, c.names, c.known, c.issue, c.rings,
	       unknown[0] ? unknown : "none");
	return c;
}

static void test_recorded_lists(void **state)
{
	(void)state;
	/* Exact counts per recorded list: a name that stops resolving fails. */
	struct list_count c = check_list("byteps-179-grep-prio.txt");
	assert_int_equal(c.names, 32);
	assert_int_equal(c.issue, 32);
	assert_int_equal(c.known, 32);
	c = check_list("ethq-8-connectx4-ubuntu1804.txt");
	assert_int_equal(c.names, 23);
	assert_int_equal(c.issue, 0);
	/* rx_xdp_tx: the name before kernel 4.19 (now rx_xdp_tx_xmit), not in
	 * counters.rst: shown raw. */
	assert_int_equal(c.known, 22);
	assert_int_equal(c.unknown, 1);
	/* ConnectX-6 Dx, kernel 5.15 (netdev/bpf, 2024-06-19): the non-zero
	 * counters of the port and of ring/channel 0. Of the issue's names:
	 * tx_pause_ctrl_phy, rx_discards_phy, tx_discards_phy, tx_errors_phy,
	 * rx_undersize_pkts_phy, rx_prio0_bytes/packets/discards,
	 * tx_prio0_bytes/packets, rx_out_of_buffer, tx_global_pause,
	 * tx_global_pause_duration. rx_cache_* are no longer in counters.rst:
	 * shown raw. */
	c = check_list("netdev-xdp-regression-cx6dx-5.15.txt");
	assert_int_equal(c.names, 101);
	assert_int_equal(c.issue, 13);
	assert_int_equal(c.rings, 42);
	assert_int_equal(c.unknown, 5);
	assert_int_equal(c.known, 54);
	/* The same port under kernel 6.5: the page pool replaced rx_cache_*,
	 * rx_buffer_passed_thres_phy appears. */
	c = check_list("netdev-xdp-regression-cx6dx-6.5.txt");
	assert_int_equal(c.names, 108);
	assert_int_equal(c.issue, 11);
	assert_int_equal(c.rings, 53);
	assert_int_equal(c.unknown, 0);
	assert_int_equal(c.known, 55);
	/* mlx5_core, `ethtool -S eth0 | grep pci` (netdev, 2024-11-07): the
	 * whole Device Counters group bar outbound_pci_buffer_overflow. */
	c = check_list("netdev-fbnic-pcie-grep-pci.txt");
	assert_int_equal(c.names, 6);
	assert_int_equal(c.issue, 6);
	assert_int_equal(c.known, 6);
	/* The rows these lists brought (counters.rst): what each says. */
	const struct fab_counter_def *d = counter_def("ethtool", "rx_4096_to_8191_bytes_phy");
	assert_non_null(d);
	assert_string_equal(d->layer, "link");
	assert_int_equal(d->cls, CC_PACKETS);
	assert_int_equal(counter_total_judge(d, 728277470842LL), CTR_TOTAL_NONE);
	d = counter_def("ethtool", "rx_xdp_tx_err");
	assert_string_equal(d->layer, "host");
	assert_int_equal(counter_total_judge(d, 1), CTR_TOTAL_WARN);
	d = counter_def("ethtool", "rx_xdp_tx_full");
	assert_int_equal(counter_total_judge(d, 999), CTR_TOTAL_INFO);
	assert_int_equal(counter_total_judge(d, 1000), CTR_TOTAL_WARN);
	assert_int_equal(counter_total_judge(counter_def("ethtool", "rx_pp_alloc_fast"), 3641784),
			 CTR_TOTAL_NONE);
	assert_false(counter_def("ethtool", "ch_poll")->bad_when_grows);
	assert_false(counter_def("ethtool", "tx_queue_stopped")->bad_when_grows);
	assert_null(counter_def("ethtool", "rx_cache_reuse"));
	assert_null(counter_def("ethtool", "rx_xdp_tx"));
	/* And no fixture is left unread. */
	DIR *dir = opendir(FIX);
	assert_non_null(dir);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dir)))
		n += strlen(e->d_name) > 4 && strcmp(e->d_name + strlen(e->d_name) - 4, ".txt") == 0;
	closedir(dir);
	assert_int_equal(n, 5);
}

/* Each name the issue lists resolves, per priority with its priority. */
static void test_issue_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(issue_names) / sizeof(issue_names[0]); i++) {
		const struct fab_counter_def *d = counter_def("ethtool", issue_names[i]);
		if (!d)
			fprintf(stderr, "%s is not in the table\n", issue_names[i]);
		assert_non_null(d);
	}
	char name[64];
	for (int p = 0; p < 8; p++)
		for (size_t i = 0; i < sizeof(issue_prio) / sizeof(issue_prio[0]); i++)
			for (int dir = 0; dir < 2; dir++) {
				snprintf(name, sizeof(name), "%s_prio%d_%s", dir ? "tx" : "rx", p,
					 issue_prio[i]);
				const struct fab_counter_def *d = counter_def("ethtool", name);
				/* The driver has no tx_ side of these (en_stats.c). */
				bool rx_only = strcmp(issue_prio[i], "pause_transition") == 0 ||
					       strstr(issue_prio[i], "discard") ||
					       strcmp(issue_prio[i], "marked") == 0;
				if (dir && rx_only) {
					assert_null(d);
					continue;
				}
				assert_non_null(d);
				assert_int_equal(counter_prio(d, name), p);
			}
	for (int l = 0; l < 8; l++) {
		snprintf(name, sizeof(name), "rx_err_lane_%d_phy", l);
		assert_int_equal(counter_index(counter_def("ethtool", name), name), l);
	}
	/* Layers and judgements the lossless-path and BER rules rely on. */
	assert_string_equal(counter_def("ethtool", "rx_pcs_symbol_err_phy")->layer, "physical");
	assert_int_equal(counter_total_judge(counter_def("ethtool", "rx_pcs_symbol_err_phy"), 1),
			 CTR_TOTAL_WARN);
	assert_int_equal(counter_total_judge(counter_def("ethtool", "rx_corrected_bits_phy"), 1000000),
			 CTR_TOTAL_NONE);
	assert_int_equal(counter_total_judge(counter_def("ethtool", "rx_prio3_pause"), 1000000),
			 CTR_TOTAL_NONE);
	assert_int_equal(counter_total_judge(counter_def("ethtool", "rx_discards_phy"), 999),
			 CTR_TOTAL_INFO);
	assert_int_equal(counter_total_judge(counter_def("ethtool", "rx_discards_phy"), 1000),
			 CTR_TOTAL_WARN);
	assert_int_equal(counter_total_judge(counter_def("ethtool", "tx_pause_storm_error_events"), 1),
			 CTR_TOTAL_WARN);
	assert_string_equal(counter_def("ethtool", "rx_pci_signal_integrity")->layer, "pcie");
	assert_string_equal(counter_def("ethtool", "rx_prio3_pause")->layer, "congestion");
	assert_true(counter_def("ethtool", "rx_prio3_pause")->bad_when_grows);
	assert_false(counter_def("ethtool", "rx_prio3_packets")->bad_when_grows);
}

/* A port snapshot keeps the error rows of counters/ and the judged rows of
 * hw_counters/ in fixed arrays: every row the table has must fit, or a
 * port would lose the last ones without a word. */
static void test_snapshot_rows_fit(void **state)
{
	int errors = 0, xport = 0;
	(void)state;
	for (int k = 0; k < fab_ncounter_defs; k++) {
		const struct fab_counter_def *d = &fab_counter_defs[k];
		errors += strcmp(d->dir, "counters") == 0 && counter_is_error_row(d);
		xport += strcmp(d->dir, "hw_counters") == 0 && counter_is_xport_row(d);
	}
	assert_true(errors > 0 && errors <= FAB_MAX_COUNTERS);
	assert_true(xport > 0 && xport <= FAB_MAX_XPORT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_rows_fit),
		cmocka_unit_test(test_pin_4),
		cmocka_unit_test(test_pin_8),
		cmocka_unit_test(test_pin_16),
		cmocka_unit_test(test_pin_32),
		cmocka_unit_test(test_pin_hides),
		cmocka_unit_test(test_above_width),
		cmocka_unit_test(test_wrap_32),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_gauges),
		cmocka_unit_test(test_prio),
		cmocka_unit_test(test_dir_null),
		cmocka_unit_test(test_rows_whole),
		cmocka_unit_test(test_rdma_names),
		cmocka_unit_test(test_recorded_lists),
		cmocka_unit_test(test_issue_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
