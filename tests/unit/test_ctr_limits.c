/* Documented counter limits over real elapsed time, with exact values: a
 * sampler built here (sampler_int.h) is fed readings at chosen times and
 * ctr_limits judges each step, as the Counters pane and `report counters`
 * will. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sampler_int.h"
#include "fabtop/ctr_limits.h"

#define NC 16

/* A port mlx5_0/1 with the PMA and driver counters that have limits, and
 * an ethtool series eth0 with the netdev's. */
struct rig {
	struct fab_sampler s;
	struct ctr_limits L;
	uint64_t v[NC];           /* the next reading of each counter */
	enum reading rd[NC];      /* READ_OK unless a test says otherwise (one step) */
	struct fab_finding f[32];
	int nf;
};

static const struct { const char *dir, *name; } rig_ctrs[] = {
	{ "counters", "symbol_error" },                     /* 0 */
	{ "counters", "link_error_recovery" },              /* 1 */
	{ "counters", "link_downed" },                      /* 2 */
	{ "counters", "port_xmit_discards" },               /* 3 */
	{ "counters", "excessive_buffer_overrun_errors" },  /* 4 */
	{ "hw_counters", "local_ack_timeout_err" },         /* 5 */
	{ "hw_counters", "rnr_nak_retry_err" },             /* 6 */
	{ "ethtool", "tx_pause_storm_warning_events" },     /* 7 */
	{ "ethtool", "tx_pause_storm_error_events" },       /* 8 */
	{ "ethtool", "rx_corrected_bits_phy" },             /* 9 */
	{ "ethtool", "rx_bits_phy" },                       /* 10 */
	{ "ethtool", "outbound_pci_stalled_rd" },           /* 11 */
	{ "ethtool", "rx_pcs_symbol_err_phy" },             /* 12 */
};
enum { SYM, LER, LDOWN, XDISC, OVERRUN, ACKTO, RNR, STORM_W, STORM_E, CORR, BITS, STALL_RD,
       PCS, NRIG };

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_int_equal(sampler_add_port(&r->s, "mlx5_0", 1), 0);
	for (int i = 0; i < NRIG; i++) {
		if (i == STORM_W)
			assert_int_equal(sampler_add_port(&r->s, "eth0", 0), 1);
		assert_int_equal(sampler_add_ctr(&r->s, rig_ctrs[i].dir, rig_ctrs[i].name), i);
	}
	ctr_limits_init(&r->L);
	return r;
}

static void rig_free(struct rig *r)
{
	ctr_limits_free(&r->L);
	sampler_close(&r->s);   /* its own limits too */
	free(r);
}

/* One sampler step at time t with r->v, then the limits' step. */
static void tick(struct rig *r, double t)
{
	sampler_step_begin(&r->s, t);
	for (int i = 0; i < NRIG; i++) {
		sampler_take(&r->s, &r->s.ctrs[i], r->rd[i], r->v[i], false, t);
		r->rd[i] = READ_OK;
	}
	sampler_step_end(&r->s);
	assert_int_equal(ctr_limits_step(&r->L, &r->s), 0);
	r->nf = ctr_limits_findings(&r->L, &r->s, r->f, 32);
	assert_true(r->nf <= 32);
}

static const struct fab_finding *finding(struct rig *r, const char *id)
{
	for (int i = 0; i < r->nf; i++)
		if (strcmp(r->f[i].id, id) == 0)
			return &r->f[i];
	return NULL;
}

static enum ctr_limit_state state(struct rig *r, int ci, char *why, size_t len)
{
	return ctr_limits_state(&r->L, ci, why, len);
}

static void test_texts(void **st)
{
	(void)st;
	char b[160];
	const char *want[] = {
		"over 10/s", "over 120/h", "over 5/min", "over 1/s", "over 100/s", "any growth",
		"any growth", "any growth", "any growth", "any growth", "any growth", "any growth",
		"above 2.4e-04 (rx_corrected_bits_phy / rx_bits_phy over 1 min)", "above 30 %",
		"above 30 %",
	};
	assert_int_equal(ctr_nlimit_defs, (int)(sizeof(want) / sizeof(want[0])));
	for (int i = 0; i < ctr_nlimit_defs; i++) {
		assert_string_equal(ctr_limit_text(&ctr_limit_defs[i], b, sizeof(b)), want[i]);
		/* Every row names its source, and its finding id is the counters' own. */
		assert_true(strlen(ctr_limit_defs[i].source) > 20);
		assert_int_equal(strncmp(ctr_limit_defs[i].id, "counters.", 9), 0);
	}
	assert_string_equal(ctr_limit_state_word(CLS_OVER), "over");
	assert_string_equal(ctr_limit_state_word(CLS_BLIND), "blind");
	assert_string_equal(ctr_limit_state_word(CLS_NONE), "");
}

/* 11 symbol errors in 1 s is over 10/s; 10 is not. */
static void test_symbol_rate(void **st)
{
	(void)st;
	char why[160];
	struct rig *r = rig_new();
	tick(r, 100.0);
	assert_int_equal(state(r, SYM, why, sizeof(why)), CLS_WATCHING);
	assert_int_equal(state(r, BITS, NULL, 0), CLS_NONE);
	r->v[SYM] = 10;
	tick(r, 101.0);
	assert_null(finding(r, "counters.symbol-error-rate"));
	/* The hour is not watched yet: growth is said, not alarmed. */
	const struct fab_finding *f = finding(r, "counters.symbol-error-ber");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_INFO);
	assert_string_equal(f->message, "symbol_error grew 10 in 1.0 s watched, of a 1 h window: under "
			    "its limit (over 120/h) so far, not yet known to be within");
	assert_int_equal(state(r, SYM, why, sizeof(why)), CLS_WATCHING);
	assert_string_equal(why, "watching 1 s of 1 h: 10 so far, limit: over 120/h");
	r->v[SYM] = 21;
	tick(r, 102.0);
	f = finding(r, "counters.symbol-error-rate");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_WARN);
	assert_string_equal(f->subject, "mlx5_0/1");
	assert_string_equal(f->message, "symbol_error grew 11 in the last 1.0 s (11/s): over 10/s, its limit");
	assert_string_equal(f->evidence, "counters/symbol_error +11 in 1.0 s (now 21); limit: over 10/s; "
			    "source: NVIDIA NVSentinel nic-health-monitor default (symbol_error, "
			    "velocity 10/second)");
	assert_string_equal(f->hint, "mlxlink -d mlx5_0 -p 1 -c (BER and FEC); perfquery -x -C mlx5_0 -P 1; "
			    "growing errors: reseat, clean or replace the cable or transceiver");
	assert_string_equal(f->layer, "physical: bit errors on the lanes faster than FEC margins allow");
	assert_int_equal(state(r, SYM, why, sizeof(why)), CLS_OVER);
	assert_string_equal(why, "11/s, limit: over 10/s");
	/* The next second without errors: it was over, within now. */
	tick(r, 103.0);
	f = finding(r, "counters.symbol-error-rate");
	assert_non_null(f);
	assert_string_equal(f->message, "symbol_error was over its limit (over 10/s): 11/s, 1.0 s ago; "
			    "within it now");
	assert_int_equal(state(r, SYM, why, sizeof(why)), CLS_WAS_OVER);
	assert_string_equal(why, "was 11/s, limit: over 10/s");
	rig_free(r);
}

/* Steps of 0.5 s and 2.5 s: the rate is over the real time a window
 * covers, never over the nominal interval. */
static void test_irregular(void **st)
{
	(void)st;
	struct rig *r = rig_new();
	tick(r, 0.0);
	r->v[SYM] = 5;
	tick(r, 0.5);
	/* Half a second watched: 5 is not over 10 in 1 s, and not known within. */
	assert_int_equal(state(r, SYM, NULL, 0), CLS_WATCHING);
	assert_null(finding(r, "counters.symbol-error-rate"));
	r->v[SYM] = 5 + 24;
	tick(r, 3.0);
	/* 24 in 2.5 s is 9.6/s: within, though 24 > 10 came in one interval. */
	assert_null(finding(r, "counters.symbol-error-rate"));
	assert_int_equal(state(r, SYM, NULL, 0), CLS_WATCHING);   /* the hour's */
	r->v[SYM] += 26;
	tick(r, 5.5);
	const struct fab_finding *f = finding(r, "counters.symbol-error-rate");
	assert_non_null(f);
	assert_string_equal(f->message, "symbol_error grew 26 in the last 2.5 s (10.4/s): over 10/s, its limit");
	/* Eleven in the first half second of a watch is already over. */
	struct rig *q = rig_new();
	tick(q, 0.0);
	q->v[SYM] = 11;
	tick(q, 0.5);
	f = finding(q, "counters.symbol-error-rate");
	assert_non_null(f);
	assert_string_equal(f->message, "symbol_error grew 11 in 0.5 s watched, of a 1 s window: "
			    "already over 10/s, its limit");
	rig_free(q);
	rig_free(r);
}

/* 121 errors in 30 min is already over 120/h, the window it covered said. */
static void test_hour_short(void **st)
{
	(void)st;
	char why[160];
	struct rig *r = rig_new();
	tick(r, 0.0);
	for (int k = 1; k <= 30; k++) {
		r->v[SYM] += k == 30 ? 5 : 4;
		tick(r, 60.0 * k);
		const struct fab_finding *w = finding(r, "counters.symbol-error-ber");
		if (k < 30) {
			/* 4 a minute so far: said (info), not over. */
			assert_non_null(w);
			assert_int_equal(w->sev, SEV_INFO);
		}
	}
	assert_int_equal(r->v[SYM], 121);
	const struct fab_finding *f = finding(r, "counters.symbol-error-ber");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_ERROR);
	assert_string_equal(f->message, "symbol_error grew 121 in 1800 s (30 min) watched, of a 1 h "
			    "window: already over 120/h, its limit");
	assert_string_equal(f->evidence, "counters/symbol_error +121 in 1800 s (30 min) (now 121); "
			    "limit: over 120/h; source: NVIDIA NVSentinel nic-health-monitor default "
			    "(symbol_error_fatal, 120/hour: the IBTA BER 1e-12 limit)");
	/* 4 or 5 a minute is far within 10/s. */
	assert_null(finding(r, "counters.symbol-error-rate"));
	assert_int_equal(state(r, SYM, why, sizeof(why)), CLS_OVER);
	assert_string_equal(why, "121 in 1800 s (30 min), limit: over 120/h");
	rig_free(r);
}

/* 119 errors spread over 2 h: the last hour holds 59, within 120/h. */
static void test_hour_spread(void **st)
{
	(void)st;
	char why[160];
	struct rig *r = rig_new();
	tick(r, 0.0);
	for (int k = 1; k <= 720; k++) {
		if (k % 6 == 0 && k / 6 <= 119)
			r->v[SYM]++;
		tick(r, 10.0 * k);
	}
	assert_int_equal(r->v[SYM], 119);
	assert_null(finding(r, "counters.symbol-error-ber"));
	assert_null(finding(r, "counters.symbol-error-rate"));
	assert_int_equal(r->nf, 0);
	assert_int_equal(state(r, SYM, why, sizeof(why)), CLS_OK);
	assert_string_equal(why, "within: over 10/s");
	/* The hour's judgement covered exactly the last hour: 59 in 3600 s. */
	const struct ctr_track *tr = &r->L.tracks[r->L.by_ctr[SYM] + 1];
	assert_string_equal(ctr_limit_defs[tr->def].id, "counters.symbol-error-ber");
	assert_int_equal(tr->state, CLS_OK);
	assert_true(tr->growth == 59);
	assert_true(tr->span == 3600.0);
	assert_true(tr->figure == 59.0);
	rig_free(r);
}

/* A run of more than an hour: the burst of its first minutes falls out of
 * the window, and the finding says it was over, when, and that it is within
 * now. */
static void test_hour_falls_out(void **st)
{
	(void)st;
	char why[200];
	struct rig *r = rig_new();
	tick(r, 0.0);
	for (int k = 1; k <= 72; k++) {
		if (k <= 9)
			r->v[SYM] += 13;
		else if (k == 10)
			r->v[SYM] += 4;
		tick(r, 60.0 * k);
		if (k == 10) {
			const struct fab_finding *f = finding(r, "counters.symbol-error-ber");
			assert_non_null(f);
			assert_int_equal(f->sev, SEV_ERROR);
			assert_string_equal(f->message, "symbol_error grew 121 in 600 s (10 min) watched, of a "
					    "1 h window: already over 120/h, its limit");
		}
		if (k == 60) {
			/* The whole hour holds the 121: still over, now as a rate. */
			const struct fab_finding *f = finding(r, "counters.symbol-error-ber");
			assert_non_null(f);
			assert_string_equal(f->message, "symbol_error grew 121 in the last 3600 s (60 min) "
					    "(121/h): over 120/h, its limit");
		}
		if (k == 61) {
			/* The first minute's 13 fell out: 108 in the last hour. */
			assert_int_equal(state(r, SYM, why, sizeof(why)), CLS_WAS_OVER);
		}
	}
	const struct fab_finding *f = finding(r, "counters.symbol-error-ber");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_ERROR);
	assert_string_equal(f->message, "symbol_error was over its limit (over 120/h): 121 in 600 s "
			    "(10 min), 3720 s (62 min) ago; within it now");
	const struct ctr_track *tr = &r->L.tracks[r->L.by_ctr[SYM] + 1];
	assert_true(tr->growth == 0);
	assert_true(tr->span == 3600.0);
	rig_free(r);
}

/* A reset in the middle is not growth; a port that vanished and came back
 * starts from its new reading. */
static void test_reset(void **st)
{
	(void)st;
	struct rig *r = rig_new();
	r->v[SYM] = 1000;
	tick(r, 0.0);
	r->v[SYM] = 1005;
	tick(r, 1.0);
	r->v[SYM] = 20;           /* cleared: would read as +20 in 1 s */
	tick(r, 2.0);
	assert_true(r->s.ctrs[SYM].last.flags & CTR_RESET);
	assert_null(finding(r, "counters.symbol-error-rate"));
	r->v[SYM] = 25;
	tick(r, 3.0);
	assert_null(finding(r, "counters.symbol-error-rate"));
	r->rd[SYM] = READ_GONE;
	tick(r, 4.0);
	assert_int_equal(state(r, SYM, NULL, 0), CLS_UNKNOWN);
	r->v[SYM] = 5000;         /* back, read fresh: not +4975 */
	tick(r, 5.0);
	assert_true(r->s.ctrs[SYM].last.flags & CTR_FIRST);
	assert_null(finding(r, "counters.symbol-error-rate"));
	const struct ctr_track *tr = &r->L.tracks[r->L.by_ctr[SYM] + 1];
	assert_true(tr->g == 10);  /* 5 + 5: the reset and the comeback added nothing */
	rig_free(r);
}

/* link_downed pinned at 255 (8 bits): its limit is blind, and said so. */
static void test_pinned(void **st)
{
	(void)st;
	char why[160];
	struct rig *r = rig_new();
	r->v[LDOWN] = 255;
	tick(r, 0.0);
	tick(r, 1.0);
	assert_int_equal(state(r, LDOWN, why, sizeof(why)), CLS_BLIND);
	assert_string_equal(why, "pinned at 255: any growth cannot be judged");
	const struct fab_finding *f = finding(r, "counters.limit-blind");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_WARN);
	assert_string_equal(f->subject, "mlx5_0/1");
	assert_string_equal(f->message, "link_downed is pinned at 255 (its 8-bit maximum): growth no longer "
			    "shows, so its limit (any growth) cannot be judged");
	assert_string_equal(f->evidence, "counters/link_downed = 255 = 2^8-1");
	assert_string_equal(f->hint, "clear it with perfquery -x -R -C mlx5_0 -P 1 (as root; fabtop never "
			    "clears counters), then its limit can be judged again");
	assert_null(finding(r, "counters.link-downed"));
	/* symbol_error pinned at 65535 from its first reading hides both of its
	 * limits, in one finding. */
	rig_free(r);
	r = rig_new();
	r->v[SYM] = 65535;
	tick(r, 0.0);
	tick(r, 1.0);
	assert_int_equal(state(r, SYM, why, sizeof(why)), CLS_BLIND);
	assert_string_equal(why, "pinned at 65535: over 10/s cannot be judged");
	int blind = 0;
	for (int i = 0; i < r->nf; i++)
		if (strcmp(r->f[i].id, "counters.limit-blind") == 0 &&
		    strncmp(r->f[i].message, "symbol_error", 12) == 0) {
			blind++;
			assert_string_equal(r->f[i].message, "symbol_error is pinned at 65535 (its 16-bit "
					    "maximum): growth no longer shows, so its limit (over 10/s "
					    "and over 120/h) cannot be judged");
		}
	assert_int_equal(blind, 1);
	/* Growing into the pin is growth, at least what was seen. */
	struct rig *q = rig_new();
	q->v[LDOWN] = 254;
	tick(q, 0.0);
	q->v[LDOWN] = 255;
	tick(q, 1.0);
	f = finding(q, "counters.link-downed");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_ERROR);
	assert_string_equal(f->message, "link_downed grew 1 in 1.0 s watched (at least: the counter "
			    "pinned): any growth is over its limit");
	assert_null(finding(q, "counters.limit-blind"));
	rig_free(q);
	rig_free(r);
}

/* link_error_recovery: 6 in 60 s is over 5/min; 5 is not. */
static void test_link_error_recovery(void **st)
{
	(void)st;
	for (int n = 5; n <= 6; n++) {
		struct rig *r = rig_new();
		tick(r, 0.0);
		for (int t = 1; t <= 60; t++) {
			if (t % 10 == 0 && t / 10 <= n)
				r->v[LER]++;
			tick(r, t);
		}
		const struct fab_finding *f = finding(r, "counters.link-error-recovery");
		if (n == 5) {
			assert_null(f);
			assert_int_equal(state(r, LER, NULL, 0), CLS_OK);
		} else {
			assert_non_null(f);
			assert_string_equal(f->message, "link_error_recovery grew 6 in the last 60.0 s "
					    "(6/min): over 5/min, its limit");
		}
		rig_free(r);
	}
}

/* The transport and congestion rates, and the any-growth rows. */
static void test_others(void **st)
{
	(void)st;
	struct rig *r = rig_new();
	tick(r, 0.0);
	r->v[ACKTO] = 2;
	r->v[XDISC] = 100;
	r->v[RNR] = 1;
	r->v[OVERRUN] = 1;
	tick(r, 1.0);
	const struct fab_finding *f = finding(r, "counters.ack-timeout");
	assert_non_null(f);
	assert_string_equal(f->message, "local_ack_timeout_err grew 2 in the last 1.0 s (2/s): over 1/s, its limit");
	assert_string_equal(f->hint, "rdma statistic show link mlx5_0/1; a peer stopped answering or packets "
			    "are lost on the path: check the peer node and the switch ports between");
	assert_null(finding(r, "counters.xmit-discards"));   /* 100/s is the limit, not over it */
	f = finding(r, "counters.rnr-retry");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_ERROR);
	assert_non_null(finding(r, "counters.buffer-overrun"));
	r->v[XDISC] += 101;
	tick(r, 2.0);
	assert_non_null(finding(r, "counters.xmit-discards"));
	rig_free(r);
}

/* A pause storm: the warning events grow (a storm building), then the
 * error events (the watchdog stopped the pauses). */
static void test_pause_storm(void **st)
{
	(void)st;
	struct rig *r = rig_new();
	tick(r, 0.0);
	tick(r, 1.0);
	assert_null(finding(r, "counters.pause-storm"));
	assert_int_equal(state(r, STORM_W, NULL, 0), CLS_OK);
	r->v[STORM_W] = 1;
	tick(r, 2.0);
	const struct fab_finding *f = finding(r, "counters.pause-storm");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_WARN);
	assert_string_equal(f->subject, "eth0");
	assert_string_equal(f->message, "tx_pause_storm_warning_events grew 1 in 2.0 s watched: any growth "
			    "is over its limit");
	assert_string_equal(f->evidence, "ethtool/tx_pause_storm_warning_events +1 in 2.0 s (now 1); "
			    "limit: any growth; source: mlx5 counters.rst (kernel docs): the device was "
			    "sending pauses for a long period of time");
	assert_string_equal(f->hint, "ethtool -S eth0 | grep -E 'pause|discard'; mlnx_qos -i eth0 (PFC, "
			    "buffers); a host that stops draining its receive queues makes the NIC pause "
			    "without end");
	assert_null(finding(r, "counters.pause-storm-drop"));
	r->v[STORM_E] = 1;
	tick(r, 3.0);
	f = finding(r, "counters.pause-storm-drop");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_ERROR);
	/* Any growth stays over for the whole watch. */
	assert_non_null(finding(r, "counters.pause-storm"));
	rig_free(r);
}

/* Pre-FEC BER = corrected bits / bits: at the target is within, above it
 * is over; too few bits is no verdict. */
static void test_ber(void **st)
{
	(void)st;
	char why[160];
	for (int above = 0; above <= 1; above++) {
		struct rig *r = rig_new();
		tick(r, 0.0);
		r->v[CORR] = 240 + (uint64_t)above;
		r->v[BITS] = 1000000;
		tick(r, 1.0);
		const struct fab_finding *f = finding(r, "counters.pre-fec-ber");
		if (!above) {
			assert_null(f);
			assert_int_equal(state(r, CORR, NULL, 0), CLS_WATCHING);
		} else {
			assert_non_null(f);
			assert_int_equal(f->sev, SEV_WARN);
			assert_string_equal(f->message, "pre-FEC BER 2.41e-04 (rx_corrected_bits_phy / "
					    "rx_bits_phy over 1.0 s): above 2.4e-04 (rx_corrected_bits_phy / "
					    "rx_bits_phy over 1 min), its limit");
			assert_string_equal(f->evidence, "ethtool/rx_corrected_bits_phy +241, ethtool/rx_bits_phy "
					    "+1000000 in 1.0 s; limit: above 2.4e-04 (rx_corrected_bits_phy / "
					    "rx_bits_phy over 1 min); source: IEEE 802.3 pre-FEC BER 2.4e-4 for "
					    "PAM4 links with RS(544,514) FEC (Dell KB 000286734 for ConnectX-6 Dx); "
					    "ratio as in mlx5 counters.rst");
		}
		rig_free(r);
	}
	/* 10 corrected of 1000 bits is 1e-2, but too few bits to say. */
	struct rig *r = rig_new();
	tick(r, 0.0);
	r->v[CORR] = 10;
	r->v[BITS] = 1000;
	tick(r, 1.0);
	assert_null(finding(r, "counters.pre-fec-ber"));
	assert_int_equal(state(r, CORR, why, sizeof(why)), CLS_WATCHING);
	assert_string_equal(why, "watching: 1000 of 1000000 bits needed");
	/* Uncorrected symbols: any growth is lost traffic. */
	r->v[PCS] = 3;
	tick(r, 2.0);
	const struct fab_finding *f = finding(r, "counters.fec-uncorrected");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_ERROR);
	rig_free(r);
}

/* PCIe stalls are a level: 30 % is the limit, 31 % is over it. */
static void test_pcie_stall(void **st)
{
	(void)st;
	char why[160];
	struct rig *r = rig_new();
	r->v[STALL_RD] = 30;
	tick(r, 0.0);
	assert_null(finding(r, "counters.pcie-stall"));
	assert_int_equal(state(r, STALL_RD, why, sizeof(why)), CLS_OK);
	assert_string_equal(why, "within: above 30 %");
	r->v[STALL_RD] = 31;
	tick(r, 1.0);
	const struct fab_finding *f = finding(r, "counters.pcie-stall");
	assert_non_null(f);
	assert_string_equal(f->message, "outbound_pci_stalled_rd is 31 %: above 30 %, its limit");
	assert_string_equal(f->evidence, "ethtool/outbound_pci_stalled_rd = 31; limit: above 30 %; source: "
			    "mlx5 counters.rst: outbound_pci_stalled_rd_events counts seconds above 30%");
	/* A level that went back down is said as past. */
	r->v[STALL_RD] = 2;
	tick(r, 2.0);
	f = finding(r, "counters.pcie-stall");
	assert_non_null(f);
	assert_string_equal(f->message, "outbound_pci_stalled_rd was over its limit (above 30 %): 31 %, "
			    "1.0 s ago; within it now");
	/* Unreadable now: not judged (the past is still said). */
	r->rd[STALL_RD] = READ_BAD;
	tick(r, 3.0);
	assert_int_equal(state(r, STALL_RD, NULL, 0), CLS_WAS_OVER);
	rig_free(r);
}

/* The baseline starts every observation again; findings fit max. */
static void test_baseline_and_max(void **st)
{
	(void)st;
	struct rig *r = rig_new();
	tick(r, 0.0);
	r->v[LDOWN] = 1;
	r->v[RNR] = 1;
	r->v[OVERRUN] = 1;
	tick(r, 1.0);
	struct fab_finding two[2];
	int n = ctr_limits_findings(&r->L, &r->s, two, 2);
	assert_int_equal(n, 3);
	assert_string_equal(two[0].id, "counters.link-downed");
	assert_string_equal(two[1].id, "counters.buffer-overrun");
	sampler_baseline(&r->s);
	ctr_limits_baseline(&r->L, &r->s);
	assert_int_equal(ctr_limits_findings(&r->L, &r->s, r->f, 32), 0);
	assert_int_equal(state(r, LDOWN, NULL, 0), CLS_OK);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_texts),
		cmocka_unit_test(test_symbol_rate),
		cmocka_unit_test(test_irregular),
		cmocka_unit_test(test_hour_short),
		cmocka_unit_test(test_hour_spread),
		cmocka_unit_test(test_hour_falls_out),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_pinned),
		cmocka_unit_test(test_link_error_recovery),
		cmocka_unit_test(test_others),
		cmocka_unit_test(test_pause_storm),
		cmocka_unit_test(test_ber),
		cmocka_unit_test(test_pcie_stall),
		cmocka_unit_test(test_baseline_and_max),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
