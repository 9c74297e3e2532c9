/* Rate arithmetic with exact expected numbers: the sysfs value parser,
 * units, 32-bit wrap, PMA saturation, resets, interval jitter, and the
 * sampler's step core (history rings, per-port Gb/s, badness). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "sampler_int.h"
#include "fabtop/vocab.h"

#define assert_dbl(a, b) assert_true((double)(a) == (double)(b))

static int parse(const char *s, uint64_t *v)
{
	return counter_parse_value(s, strlen(s), v);
}

static void test_parse(void **state)
{
	uint64_t v = 7;
	(void)state;
	assert_int_equal(parse(" 42\n", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse("42 \n", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse("0\n", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse("18446744073709551615\n", &v), 0);
	assert_true(v == UINT64_MAX);
	v = 7;
	assert_int_equal(parse("", &v), -1);
	assert_int_equal(parse("\n", &v), -1);
	assert_int_equal(parse("   ", &v), -1);
	assert_int_equal(parse("-1", &v), -1);
	assert_int_equal(parse("+1", &v), -1);
	assert_int_equal(parse("0x10", &v), -1);
	assert_int_equal(parse("18446744073709551616", &v), -1);
	assert_int_equal(parse("99999999999999999999\n", &v), -1);
	assert_int_equal(parse("12abc", &v), -1);
	assert_int_equal(parse("4 2\n", &v), -1);
	assert_int_equal(parse("42\n\n", &v), -1);
	assert_int_equal(parse("42\n ", &v), -1);
	assert_int_equal(parse("N/A\n", &v), -1);
	assert_int_equal(v, 7);   /* failures leave *out alone */
	/* Not NUL-terminated: only len bytes count. */
	assert_int_equal(counter_parse_value("123456", 3, &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(counter_parse_value("4\0", 2, &v), -1);
}

static void test_units(void **state)
{
	(void)state;
	const struct fab_counter_def *xd = counter_def("counters", "port_xmit_data");
	assert_non_null(xd);
	assert_dbl(counter_scale(xd), 4.0);
	assert_dbl(counter_scale(counter_def("counters", "port_xmit_packets")), 1.0);
	assert_dbl(counter_scale(NULL), 1.0);
	/* 12,500,000,000 four-octet words in 1.0 s: 5e10 bytes/s = 400 Gb/s. */
	struct ctr_step st = counter_step(1000, 1000 + 12500000000ull, 64, false,
					  counter_scale(xd), 1.0);
	assert_true(st.delta == 12500000000ull);
	assert_true(st.has_rate);
	assert_int_equal(st.flags, 0);
	assert_dbl(st.rate, 5e10);
	assert_dbl(st.rate * 8 / 1e9, 400.0);
}

static void test_jitter(void **state)
{
	(void)state;
	/* The same growth over a late 1.25 s reading: 0.8 of the rate. */
	struct ctr_step st = counter_step(0, 12500000000ull, 64, false, 4.0, 1.25);
	assert_dbl(st.rate, 4e10);
	st = counter_step(100, 600, 64, false, 1.0, 0.5);
	assert_dbl(st.rate, 1000.0);
	/* No time passed, or the clock went back: growth but no rate. */
	st = counter_step(100, 600, 64, false, 1.0, 0.0);
	assert_true(st.delta == 500);
	assert_false(st.has_rate);
	st = counter_step(100, 600, 64, false, 1.0, -1.0);
	assert_false(st.has_rate);
}

static void test_wrap(void **state)
{
	(void)state;
	struct ctr_step st = counter_step(4294967290u, 5, 32, false, 1.0, 1.0);
	assert_true(st.delta == 11);
	assert_int_equal(st.flags, CTR_WRAPPED);
	assert_true(st.has_rate);
	assert_dbl(st.rate, 11.0);
	/* Down by 2^31 + 1: a wrap; 2^32 - 2147483658 + 9 = 2147483647. */
	st = counter_step(2147483658u, 9, 32, false, 1.0, 1.0);
	assert_int_equal(st.flags, CTR_WRAPPED);
	assert_true(st.delta == 2147483647u);
	/* Down by exactly 2^31: a clear. */
	st = counter_step(2147483648u, 0, 32, false, 1.0, 1.0);
	assert_int_equal(st.flags, CTR_RESET);
	/* A "32-bit" value above 2^32-1 is really wider: a fall is a clear. */
	st = counter_step(5000000000ull, 10, 32, false, 1.0, 1.0);
	assert_int_equal(st.flags, CTR_RESET);
	/* 64-bit counters never wrap in practice: down is a clear. */
	st = counter_step(UINT64_MAX - 1, 3, 64, false, 1.0, 1.0);
	assert_int_equal(st.flags, CTR_RESET);
	assert_true(st.delta == 3);
	assert_false(st.has_rate);
}

static void test_saturation(void **state)
{
	(void)state;
	const struct fab_counter_def *se = counter_def("counters", "symbol_error");
	assert_non_null(se);
	assert_int_equal(se->width, 16);
	assert_true(se->saturates);
	struct ctr_step st = counter_step(65000, 65535, se->width, se->saturates, 1.0, 1.0);
	assert_true(st.delta == 535);
	assert_int_equal(st.flags, CTR_SATURATED);
	assert_true(st.has_rate);         /* a lower bound, still shown */
	assert_dbl(st.rate, 535.0);
	st = counter_step(65535, 65535, 16, true, 1.0, 1.0);
	assert_true(st.delta == 0);
	assert_int_equal(st.flags, CTR_SATURATED);
	st = counter_step(65000, 65534, 16, true, 1.0, 1.0);
	assert_int_equal(st.flags, 0);
	/* port_xmit_wait stops at 2^32-1 instead of wrapping. */
	st = counter_step(4294967000u, 4294967295u, 32, true, 1.0, 1.0);
	assert_true(st.delta == 295);
	assert_int_equal(st.flags, CTR_SATURATED);
	/* A saturating counter that falls was cleared, never wrapped. */
	st = counter_step(65535, 3, 16, true, 1.0, 1.0);
	assert_int_equal(st.flags, CTR_RESET);
	assert_true(st.delta == 3);
	assert_false(st.has_rate);
	st = counter_step(4294967295u, 2, 32, true, 1.0, 1.0);
	assert_int_equal(st.flags, CTR_RESET);
}

static void test_reset(void **state)
{
	(void)state;
	struct ctr_step st = counter_step(1000, 10, 64, false, 4.0, 1.0);
	assert_int_equal(st.flags, CTR_RESET);
	assert_true(st.delta == 10);
	assert_false(st.has_rate);
	assert_dbl(st.rate, 0.0);
}

/* ---- the step core, on a sampler built by hand (no files) ---- */

static struct fab_ctr *find(struct fab_sampler *s, const char *name)
{
	for (int i = 0; i < s->nctrs; i++)
		if (strcmp(s->ctrs[i].name, name) == 0)
			return &s->ctrs[i];
	return NULL;
}

static void test_step_core(void **state)
{
	(void)state;
	struct fab_sampler s = { 0 };
	assert_int_equal(sampler_add_port(&s, "mlx5_0", 1), 0);
	assert_int_equal(sampler_add_ctr(&s, "counters", "port_xmit_data"), 0);
	assert_int_equal(sampler_add_ctr(&s, "counters", "port_rcv_data"), 1);
	assert_int_equal(sampler_add_ctr(&s, "counters", "port_xmit_packets"), 2);
	assert_int_equal(sampler_add_ctr(&s, "hw_counters", "out_of_sequence"), 3);
	assert_int_equal(sampler_add_ctr(&s, "hw_counters", "vendor_ctr"), 4);
	assert_int_equal(s.ports[0].nctr, 5);
	struct fab_ctr *xd = find(&s, "port_xmit_data"), *rd = find(&s, "port_rcv_data"),
		*xp = find(&s, "port_xmit_packets"), *oos = find(&s, "out_of_sequence"),
		*rw = find(&s, "vendor_ctr");
	assert_null(rw->def);

	/* t=10: first readings, no rates, no history slot. */
	uint64_t v0[5] = { 1000, 2000, 50, 4294967290u, 5000000000ull };
	sampler_step_begin(&s, 10.0);
	for (int i = 0; i < 5; i++)
		sampler_take(&s, &s.ctrs[i], READ_OK, v0[i], false, 10.0);
	sampler_step_end(&s);
	assert_int_equal(s.tick, 1);
	assert_int_equal(s.hist_len, 0);
	assert_int_equal(xd->last.flags, CTR_FIRST);
	assert_false(s.ports[0].has_rates);
	assert_int_equal(sampler_bad_grew(&s), 0);

	/* t=11.25: 400 Gb/s worth of words over 1.25 s reads as 320 Gb/s. */
	uint64_t v1[5] = { 1000 + 12500000000ull, 2000 + 6250000000ull, 50 + 2500000, 5, 10 };
	sampler_step_begin(&s, 11.25);
	for (int i = 0; i < 5; i++)
		sampler_take(&s, &s.ctrs[i], READ_OK, v1[i], false, 11.25);
	sampler_step_end(&s);
	assert_dbl(s.dt, 1.25);
	assert_true(s.ports[0].has_rates);
	assert_dbl(s.ports[0].tx_gbps, 320.0);
	assert_dbl(s.ports[0].rx_gbps, 160.0);
	assert_dbl(s.ports[0].tx_pps, 2000000.0);
	assert_dbl(s.ports[0].rx_pps, 0.0);
	assert_int_equal(oos->last.flags, CTR_WRAPPED);
	assert_true(oos->last.delta == 11);
	assert_true(oos->since_baseline == 11);
	assert_true(oos->grew);
	assert_int_equal(oos->last_grew, 2);
	/* Unknown counters are 64-bit: 5e9 -> 10 is a clear, not a wrap. */
	assert_int_equal(rw->last.flags, CTR_RESET);
	assert_true(rw->since_baseline == 10);
	assert_int_equal(s.ports[0].bad_grew, 1);
	assert_int_equal(sampler_bad_grew(&s), 1);
	assert_int_equal(s.hist_len, 1);
	assert_dbl(sampler_hist(&s, s.ports[0].tx_hist, 0), 320.0f);
	assert_dbl(sampler_hist(&s, oos->hist, 0), (float)(11 / 1.25));

	/* An unreadable reading keeps the value; the next rate spans both intervals. */
	sampler_step_begin(&s, 12.25);
	for (int i = 0; i < 5; i++)
		sampler_take(&s, &s.ctrs[i], i == 0 ? READ_BAD : READ_OK, s.ctrs[i].value,
			     false, 12.25);
	sampler_step_end(&s);
	assert_int_equal(xd->last.flags, CTR_UNREADABLE);
	assert_true(xd->value == 1000 + 12500000000ull);
	assert_false(s.ports[0].has_rates);
	assert_false(oos->grew);
	assert_int_equal(oos->last_grew, 2);
	assert_int_equal(sampler_bad_grew(&s), 0);
	sampler_step_begin(&s, 13.25);
	sampler_take(&s, xd, READ_OK, xd->value + 25000000000ull, false, 13.25);
	sampler_step_end(&s);
	assert_dbl(xd->last.rate, 1e11 / 2.0);   /* 2 s since its last good value */

	/* Gone, then back: the first reading after starts a new series. */
	sampler_step_begin(&s, 14.25);
	sampler_take(&s, xd, READ_GONE, 0, false, 14.25);
	sampler_step_end(&s);
	assert_int_equal(xd->last.flags, CTR_GONE);
	sampler_step_begin(&s, 15.25);
	sampler_take(&s, xd, READ_OK, 7, false, 15.25);
	sampler_step_end(&s);
	assert_int_equal(xd->last.flags, CTR_FIRST);
	assert_true(xd->value == 7);

	sampler_baseline(&s);
	assert_true(oos->since_baseline == 0);
	assert_true(oos->baseline == 5);
	(void)rd;
	(void)xp;
	sampler_close(&s);
}

/* The one implausibility judgement (counters.h), and the sampler applying it. */
/* A port that was up and went down while the pane watched: link_downed
 * grows, and the port is an error in the live pane (issue 13, class 5:
 * the snapshot says the same through links.port-down). */
static void test_link_downed_grows(void **state)
{
	(void)state;
	struct fab_sampler s = { 0 };
	assert_int_equal(sampler_add_port(&s, "mlx5_1", 1), 0);
	assert_int_equal(sampler_add_ctr(&s, "counters", "link_downed"), 0);
	struct fab_ctr *ld = find(&s, "link_downed");
	assert_non_null(ld->def);
	sampler_step_begin(&s, 10.0);
	sampler_take(&s, ld, READ_OK, 0, false, 10.0);
	sampler_step_end(&s);
	sampler_step_begin(&s, 11.0);
	sampler_take(&s, ld, READ_OK, 0, false, 11.0);
	sampler_step_end(&s);
	assert_false(sampler_port_state(&s, 0) & PT_ERRORS);
	sampler_step_begin(&s, 12.0);
	sampler_take(&s, ld, READ_OK, 1, false, 12.0);
	sampler_step_end(&s);
	assert_true(ld->grew);
	assert_int_equal(ctr_trouble(ld), PT_ERRORS);
	assert_true(sampler_port_state(&s, 0) & PT_ERRORS);
	assert_int_equal(sampler_bad_grew(&s), 1);
	sampler_close(&s);
}

static void test_implausible(void **state)
{
	(void)state;
	const struct fab_counter_def *se = counter_def("counters", "symbol_error"),
		*xd_def = counter_def("counters", "port_xmit_data"),
		*xp_def = counter_def("counters", "port_xmit_packets");
	uint64_t v = 7;
	assert_int_equal(counter_value_judge(se, "12\n", 3, &v), 0);
	assert_true(v == 12);
	assert_int_equal(counter_value_judge(se, "-1\n", 3, &v), 1);
	assert_int_equal(counter_value_judge(se, "abc", 3, &v), 1);
	assert_int_equal(counter_value_judge(se, "65535\n", 6, &v), 0);   /* saturated, not implausible */
	assert_int_equal(counter_value_judge(se, "65536\n", 6, &v), 1);   /* past 16 bits */
	assert_int_equal(counter_value_judge(NULL, "18446744073709551615", 20, &v), 0);
	assert_int_equal(counter_value_judge(se, "", 0, &v), -1);
	assert_int_equal(counter_value_judge(se, "\n", 1, &v), -1);
	/* The kernel's text for a device without a PMA (node_exporter#966):
	 * no value, not an implausible one. */
	assert_int_equal(counter_value_judge(se, "N/A (no PMA)\n", 13, &v), -2);
	assert_int_equal(counter_value_judge(se, "N/A (no PMA)", 12, &v), -2);
	assert_int_equal(counter_value_judge(se, "N/A (no PMA) 3\n", 15, &v), 1);
	assert_int_equal(counter_value_judge(se, "N/A\n", 4, &v), 1);

	/* 400 Gb/s: 75 GB/s is the most a step may show (1.5x), in bytes. */
	struct ctr_step st = { .has_rate = true, .rate = 75e9 };
	assert_false(counter_step_implausible(xd_def, &st, 400));
	st.rate = 75.1e9;
	assert_true(counter_step_implausible(xd_def, &st, 400));
	assert_false(counter_step_implausible(xd_def, &st, 0));   /* line rate unknown */
	assert_false(counter_step_implausible(se, &st, 400));      /* not traffic */
	st.rate = 75e9 / CTR_MIN_PACKET_BYTES + 1;
	assert_true(counter_step_implausible(xp_def, &st, 400));
	st.has_rate = false;
	assert_false(counter_step_implausible(xd_def, &st, 400));

	/* The sampler: a 64-bit jump on a 400 Gb/s port is no rate, no growth. */
	struct fab_sampler s = { 0 };
	assert_int_equal(sampler_add_port(&s, "mlx5_0", 1), 0);
	assert_int_equal(sampler_add_ctr(&s, "counters", "port_xmit_data"), 0);
	assert_int_equal(sampler_add_ctr(&s, "counters", "port_rcv_data"), 1);
	assert_int_equal(sampler_add_ctr(&s, "counters", "symbol_error"), 2);
	s.ports[0].line_gbps = 400;
	uint64_t x = 1000, r = 1000;
	for (int k = 0; k < 3; k++) {
		sampler_step_begin(&s, k);
		x += k == 2 ? (1ull << 62) : 1250000000ull;   /* 40 Gb/s, then a jump */
		r += 1250000000ull;
		sampler_take(&s, &s.ctrs[0], READ_OK, x, false, k);
		sampler_take(&s, &s.ctrs[1], READ_OK, r, false, k);
		sampler_take(&s, &s.ctrs[2], READ_OK, 0, false, k);
		sampler_step_end(&s);
	}
	assert_true(s.ctrs[0].last.flags & CTR_IMPLAUSIBLE);
	assert_false(s.ctrs[0].last.has_rate);
	assert_false(s.ctrs[0].grew);
	assert_true(s.ctrs[0].since_baseline == 1250000000ull);   /* the jump not counted */
	assert_false(s.ports[0].has_rates);
	unsigned st3 = sampler_port_state(&s, 0);
	assert_true(st3 & PT_IMPLAUSIBLE);
	char w[64];
	assert_string_equal(traffic_words(st3, w, sizeof(w)), "IMPLAUSIBLE");
	/* The next step counts from the new value: plausible again. */
	sampler_step_begin(&s, 3);
	sampler_take(&s, &s.ctrs[0], READ_OK, x + 1250000000ull, false, 3);
	sampler_take(&s, &s.ctrs[1], READ_OK, r + 1250000000ull, false, 3);
	sampler_take(&s, &s.ctrs[2], READ_OK, 0, false, 3);
	sampler_step_end(&s);
	assert_true(s.ctrs[0].last.has_rate);
	assert_dbl(s.ports[0].tx_gbps, 40.0);
	assert_false(sampler_port_state(&s, 0) & PT_IMPLAUSIBLE);
	/* A value past the counter's width, and a file that is no number. */
	sampler_step_begin(&s, 4);
	sampler_take(&s, &s.ctrs[2], READ_OK, 70000, false, 4);
	sampler_step_end(&s);
	assert_int_equal(s.ctrs[2].last.flags, CTR_IMPLAUSIBLE);
	assert_true(s.ctrs[2].value == 0);
	sampler_step_begin(&s, 5);
	sampler_take(&s, &s.ctrs[2], READ_IMPLAUSIBLE, 0, false, 5);
	sampler_step_end(&s);
	assert_int_equal(s.ctrs[2].last.flags, CTR_IMPLAUSIBLE);
	assert_string_equal(ctr_flag_words(CTR_IMPLAUSIBLE, w, sizeof(w), NULL, NULL), "IMPLAUSIBLE");
	sampler_close(&s);
}

static void test_history_ring(void **state)
{
	(void)state;
	struct fab_sampler s = { 0 };
	sampler_add_port(&s, "mlx5_0", 1);
	sampler_add_ctr(&s, "hw_counters", "np_cnp_sent");
	struct fab_ctr *c = &s.ctrs[0];
	/* Step k (1-based) grows by k: rate k per second; 130 steps overrun 120 slots. */
	uint64_t v = 0;
	for (int k = 0; k <= 130; k++) {
		v += (uint64_t)k;
		sampler_step_begin(&s, (double)k);
		sampler_take(&s, c, READ_OK, v, false, (double)k);
		sampler_step_end(&s);
	}
	assert_int_equal(s.hist_len, SAMPLER_HISTORY);
	assert_int_equal(s.hist_pos, 10);
	/* Oldest kept is step 11, newest step 130. */
	assert_dbl(sampler_hist(&s, c->hist, 0), 11.0f);
	assert_dbl(sampler_hist(&s, c->hist, SAMPLER_HISTORY - 1), 130.0f);
	assert_dbl(sampler_hist(&s, c->hist, SAMPLER_HISTORY), 0.0f);
	assert_dbl(sampler_hist(&s, c->hist, -1), 0.0f);
	assert_int_equal(c->last_grew, 131);
	sampler_close(&s);
}

static void test_badness(void **state)
{
	(void)state;
	struct fab_ctr c = { 0 };
	assert_int_equal(counter_badness(&c), 10);
	c.grew = true;
	assert_int_equal(counter_badness(&c), 15);
	c.grew = false;
	c.def = counter_def("hw_counters", "local_ack_timeout_err");
	assert_int_equal(counter_badness(&c), 40);
	c.def = counter_def("hw_counters", "np_cnp_sent");
	assert_int_equal(counter_badness(&c), 30);
	c.def = counter_def("counters", "symbol_error");
	assert_int_equal(counter_badness(&c), 20);
	c.def = counter_def("counters", "port_rcv_data");
	assert_int_equal(counter_badness(&c), 0);
	c.grew = true;
	assert_int_equal(counter_badness(&c), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_jitter),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_saturation),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_step_core),
		cmocka_unit_test(test_link_downed_grows),
		cmocka_unit_test(test_implausible),
		cmocka_unit_test(test_history_ring),
		cmocka_unit_test(test_badness),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
