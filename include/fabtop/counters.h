/*
 * counters.h - RDMA port counters and the RoCE netdev's ethtool statistics
 * described as data: file or statistic name, unit, width, meaning, the
 * layer it speaks for, and whether growth is bad; and the one arithmetic
 * over their values (parse, delta, wrap, reset, saturation, pins, units).
 * The link health collector, the sampler, the findings, the panes and
 * every report read this table and call these functions: a counter's
 * saturation or rate is never worked out anywhere else.
 *
 * Three sources share the table, told apart by dir:
 *  - "counters": the PMA PortCounters of ports/N/counters/ (widths 4 to 64
 *    bits, the narrow ones saturate: see "Pins" below);
 *  - "hw_counters": the driver's ports/N/hw_counters/ (mlx5 Q-counters are
 *    32 bits and wrap; its congestion, ICRC and optional counters are 64);
 *  - "ethtool": the netdev's ETHTOOL_GSTATS statistics (u64 in the ABI,
 *    never wrap or saturate at 64 bits; a fall is a clear).
 * Names with one "%d" (rx_prio%d_pause, rx_err_lane_%d_phy) are pattern
 * rows: one row for the eight priorities or lanes, matched by counter_def().
 * A name the table does not know is still shown raw (d NULL: 64-bit, no
 * meaning, never judged).
 */
#ifndef FABTOP_COUNTERS_H
#define FABTOP_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fab_counter_class {
	CC_DATA,        /* bytes/words moved */
	CC_PACKETS,
	CC_ERROR,       /* physical/link errors */
	CC_RETRY,       /* loss and retransmission */
	CC_CONGESTION,
};

/* What the "%d" of a pattern row stands for. */
enum ctr_index {
	CTR_IX_NONE = 0,         /* a plain name */
	CTR_IX_PRIO,             /* an IEEE 802.1p priority, 0..7 */
	CTR_IX_LANE,             /* a physical lane of the port, 0..7 */
};

struct fab_counter_def {
	const char *name;        /* file or statistic name; one "%d" in a pattern row */
	const char *dir;         /* "counters" (PMA), "hw_counters" (driver), "ethtool" */
	const char *unit;        /* "4-octet words", "bytes", "bits", "packets", "events",
				  * "ticks", "microseconds", "percent", "requests" */
	int width;               /* bits: 64 for data; PMA error fields are 4 to 32 bits */
	bool saturates;          /* PMA counters stop at 2^width-1; Q-counters wrap */
	enum fab_counter_class cls;
	bool bad_when_grows;
	const char *layer;       /* "physical", "link", "pcie", "transport",
				  * "congestion", "host" (the netdev's own rings) */
	const char *meaning;
	/* A level, not a count (outbound_pci_stalled_rd: "% of the last
	 * second"): no delta, no rate, never a reset, wrap or growth. Callers
	 * never pass a gauge to counter_step(): each good reading replaces the
	 * value, its step is { delta 0, has_rate false, flags 0 } (read
	 * failures are flagged as for any counter), it is never "grew", and
	 * it is shown as is, in its unit. A reading above gauge_max is
	 * implausible (counter_value_judge). Its warn_at is the level from
	 * which it is a warning (counter_total_judge: below it, nothing). */
	bool gauge;
	uint64_t gauge_max;
	enum ctr_index ix;       /* pattern rows: what the "%d" counts */
	/* Saturating rows: what a pin hides, as a plural noun ("link downs"),
	 * for counter_pin_hides(). */
	const char *noun;
	/* A total since the last clear that a snapshot (report links/all)
	 * reports (links.errors for PMA rows, links.transport-errors for the
	 * driver's): 0, never (traffic, congestion,
	 * flushes that only follow another error); CTR_WARN_NEVER, info
	 * whatever the total; else info below warn_at, a warning from it on.
	 * The thresholds and why: counters.c, above the table. */
	long long warn_at;
};

#define CTR_WARN_NEVER (-1LL)

/* What a total since the last clear says in a snapshot: the one
 * judgement, read by links.errors, links.transport-errors and `report
 * counters` (its first reading). A saturated PMA counter is a warning.
 * For a gauge, total is its current level: a warning from warn_at, else
 * nothing (a low level is not worth saying). */
enum ctr_total {
	CTR_TOTAL_NONE = 0,      /* zero, unknown, or not a counter a total speaks for */
	CTR_TOTAL_INFO,          /* non-zero, below its warn_at: worth saying, not alarming */
	CTR_TOTAL_WARN,          /* at or above its warn_at */
};
enum ctr_total counter_total_judge(const struct fab_counter_def *d, long long total);

extern const struct fab_counter_def fab_counter_defs[];
extern const int fab_ncounter_defs;

/* The rows a port snapshot keeps (fab_port errors and xport): the error and
 * congestion-loss counters of counters/, and the transport counters of
 * hw_counters whose totals a snapshot judges (warn_at). The table holds at
 * most FAB_MAX_COUNTERS and FAB_MAX_XPORT of them (test_counters.c). */
bool counter_is_error_row(const struct fab_counter_def *d);
bool counter_is_xport_row(const struct fab_counter_def *d);

/* The definition of a counter file or ethtool statistic, or NULL when the
 * table does not know it. dir NULL: any source, the first match in table
 * order (the RDMA rows come first, and no ethtool name equals an RDMA one,
 * so a NULL-dir lookup of an RDMA name is what it always was). Pattern
 * rows match their "%d" with a decimal number without leading zeros in
 * the row's range (priorities and lanes 0..7): "rx_prio3_pause" matches
 * "rx_prio%d_pause"; "rx_prio9_pause" and "rx_prio_pause" match nothing. */
const struct fab_counter_def *counter_def(const char *dir, const char *name);

/* The priority 0..7 a name carries when d is a per-priority pattern row
 * that the name matches (counter_prio(d, "tx_prio7_pause_duration") is 7);
 * -1 otherwise (d NULL, not a priority row, no match). The lossless-path
 * section groups a netdev's statistics by priority with this. */
int counter_prio(const struct fab_counter_def *d, const char *name);

/* The number a name carries in d's "%d" (a priority or a lane), or -1
 * when d is not a pattern row or the name does not match it. */
int counter_index(const struct fab_counter_def *d, const char *name);

/* ---- the arithmetic (pure; unit-tested with exact numbers) ---- */

enum ctr_flag {
	CTR_RESET      = 1 << 0, /* the value went down: counters were cleared; no rate */
	CTR_WRAPPED    = 1 << 1, /* a 32-bit wrapping counter passed 2^32-1; rate still exact */
	CTR_SATURATED  = 1 << 2, /* a PMA counter sits at 2^width-1: see "Pins" below */
	CTR_FIRST      = 1 << 3, /* first reading (start, or the port came back): no rate */
	CTR_UNREADABLE = 1 << 4, /* this read failed or was not a number: value kept */
	CTR_GONE       = 1 << 5, /* its port or device vanished */
	CTR_IMPLAUSIBLE = 1 << 6, /* a value or a step it cannot have (below): no rate, no growth */
	CTR_HELD       = 1 << 7, /* not read this step: the kernel would answer its cached value
				  * (hw_counters/lifespan not yet elapsed); no rate, no growth */
};

struct ctr_step {
	uint64_t delta;          /* counter units since the previous reading */
	double rate;             /* delta * scale / dt, per second; valid when has_rate */
	bool has_rate;
	unsigned flags;          /* enum ctr_flag */
};

/* A sysfs counter value: decimal digits, optional trailing spaces and one
 * newline, nothing else; leading spaces allowed. Returns 0 and *out, or -1
 * (empty, sign, garbage, overflow past 2^64-1). len need not be
 * NUL-terminated. Every reader of a counter file (the collector, the
 * sampler, the capture) parses with this. */
int counter_parse_value(const char *buf, size_t len, uint64_t *out);

/* One step of a counter of the given width: 64-bit counters going down are
 * a reset; 32-bit non-saturating (Q-counters) going down by more than 2^31
 * wrapped (the delta counts across the top exactly), else reset.
 * scale converts counter units to the rate's unit (4 for 4-octet words ->
 * bytes). dt_s <= 0 gives no rate. Gauges are never stepped (see gauge).
 *
 * Pins (saturating counters, PMA fields of 4 to 32 bits): a delta is never
 * computed across a pin.
 *  - Entering it (prev below 2^width-1, cur at it): delta = max - prev is
 *    a lower bound of the growth; has_rate stays (a lower-bound rate) and
 *    CTR_SATURATED is set: callers print the rate as one ("≥ 12/s").
 *  - Staying pinned (prev and cur at the maximum): delta 0, has_rate
 *    false, CTR_SATURATED: the counter is blind, not "0/s"; callers print
 *    that it is pinned (and counter_pin_hides()), never a rate.
 *  - Leaving it downwards (a clear, perfquery -R): CTR_RESET, no rate,
 *    as for any fall of a saturating counter (they never wrap).
 * So: CTR_SATURATED with has_rate is a lower bound, without it blind. */
struct ctr_step counter_step(uint64_t prev, uint64_t cur, int width, bool saturates,
			     double scale, double dt_s);

/* The largest value a counter of this width holds (2^width-1; 64 and
 * anything out of range: 2^64-1). */
uint64_t counter_max(int width);

/* True when a saturating counter sits at its maximum: it stopped counting,
 * so its growth no longer shows. The one saturation test: the snapshot's
 * error counters, the sampler's steps and every view use it. Unknown
 * counters (d NULL) never saturate: they are read as 64-bit. */
bool counter_pinned(const struct fab_counter_def *d, uint64_t v);

/* What a pin hides, in the words every surface prints (the Links pane,
 * JSON, findings, `report counters`): "link_downed stopped at 255: later
 * link downs no longer show". Writes buf and returns 0 for a saturating
 * counter of the table; -1 (buf "") for d NULL or one that never pins.
 * It does not check the value: call it where counter_pinned() is true. */
int counter_pin_hides(const struct fab_counter_def *d, char *buf, size_t len);

/* Bytes per counter unit for data counters: 4 for "4-octet words", 1/8
 * for a data counter in "bits" (rx_bits_phy); else 1 (the rate is in the
 * table's unit: error bits stay bits). */
double counter_scale(const struct fab_counter_def *d);

/* The unit of a counter's rate once scaled: "bytes" for data counted in
 * 4-octet words or bits, else the table's unit ("packets", "events",
 * "ticks", "microseconds"); NULL for a counter the table does not know. */
const char *counter_rate_unit(const struct fab_counter_def *d);

/* The symbol written after a counter's amount once scaled: "B" (data,
 * whatever the counter counts in: 4-octet words are bytes x4), "bit",
 * "pkt", "ev", "tick", "us", "%", "req"; "" for a counter the table does
 * not know. */
const char *counter_unit_symbol(const struct fab_counter_def *d);

/* A counter's amount as text with its unit, the one way every surface
 * writes it: n is in the counter's own units (a delta, a total since the
 * baseline) and is converted by counter_scale(); data is bytes with SI
 * prefixes ("46.8 GB"), other units counted ("11.7M pkt", "12 tick").
 * exact (the text report): every digit; else (the panes) exact below 10^7
 * and 3 significant digits above. Returns buf. */
const char *counter_amount(const struct fab_counter_def *d, double n, bool exact, char *buf,
			   size_t len);
/* A step's rate (st->rate, already scaled by counter_step()) with its
 * unit: data in bits/s (fab_fmt_bps(): "374 Gb/s"), others per second
 * ("11.7M pkt/s", "3 ev/s"); "-" without a rate. exact: whole from 100/s
 * up, else two decimals; else 3 significant digits. A saturated step's
 * rate is a lower bound: callers mark it. Returns buf. */
const char *counter_rate_text(const struct fab_counter_def *d, const struct ctr_step *st,
			      bool exact, char *buf, size_t len);

/* ---- implausible values: the one judgement ----
 * A counter file holding what an unsigned counter cannot (a sign, not a
 * number, a value above 2^width-1), or a step implying more than the port
 * can carry, is implausible: it gets no rate, it is not growth, the port
 * is not "ok", and it is a finding (links.counter-implausible; the
 * Counters pane and `report counters` say IMPLAUSIBLE). */

/* Above this many times the port's line rate a step cannot be real. */
#define CTR_IMPLAUSIBLE_LINE 1.5
/* Smaller than any InfiniBand or RoCE packet on the wire: the packet
 * counters' bound is the line rate in packets of this size. */
#define CTR_MIN_PACKET_BYTES 16

/* The kernel's text for a PMA counter of a device without a Performance
 * Management Agent (drivers/infiniband/core/sysfs.c show_pma_counter()
 * before 4.19; i40iw, ConnectX-3 VFs): no value, not a wrong one. */
#define CTR_NO_PMA_TEXT "N/A (no PMA)"

/* A counter file's text (as counter_parse_value takes it): 0 and *out for
 * a value the counter can hold; 1 when it holds something it cannot (a
 * sign, not a number, above its width's maximum, a gauge above its
 * gauge_max; d NULL: 64 bits); -1 for
 * an empty file (nothing read: unreadable, not implausible); -2 for
 * CTR_NO_PMA_TEXT (the kernel says the counter does not exist here: unknown,
 * not implausible). */
int counter_value_judge(const struct fab_counter_def *d, const char *buf, size_t len,
			uint64_t *out);
/* Whether a value read as a number (ETHTOOL_GSTATS, a capture's sample) is
 * one the counter can hold: within its width, a gauge within its top. The
 * one test; counter_value_judge() applies it to a file's text. */
bool counter_value_plausible(const struct fab_counter_def *d, uint64_t v);

/* Whether a step with a rate implies more than a port of line_gbps can
 * carry: a data counter above CTR_IMPLAUSIBLE_LINE x its line rate in
 * bytes, a packet counter above that many packets of CTR_MIN_PACKET_BYTES.
 * Other counters, and an unknown line rate (<= 0), never. */
bool counter_step_implausible(const struct fab_counter_def *d, const struct ctr_step *st,
			      double line_gbps);

/* A counter's layer as a person reads it (translated; "-" for d NULL). The
 * field d->layer stays the word JSON carries; a meaning and a noun are
 * marked N_() in the table and shown through _(). */
const char *counter_layer_text(const struct fab_counter_def *d);

/* "data", "packets", "error", "retry", "congestion"; NULL when d is NULL. */
const char *counter_class_name(const struct fab_counter_def *d);

/* A plain number in 3 significant digits and an SI prefix, no unit
 * ("950", "12.3k", "4.00G"): packet rates in the Counters pane. */
const char *counter_si(double v, char *buf, size_t len);

#endif
