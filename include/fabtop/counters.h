/*
 * counters.h - RDMA port counters described as data: file, unit, width,
 * meaning, the layer it speaks for, and whether growth is bad; and the one
 * arithmetic over their values (parse, delta, wrap, reset, saturation,
 * units). The link health collector, the sampler, the findings, the panes
 * and every report read this table and call these functions: a counter's
 * saturation or rate is never worked out anywhere else.
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

struct fab_counter_def {
	const char *name;        /* file name */
	const char *dir;         /* "counters" (PMA) or "hw_counters" (driver) */
	const char *unit;        /* "4-octet words", "packets", "events", "ticks" */
	int width;               /* bits: 64 for data; PMA error fields are 4 to 32 bits */
	bool saturates;          /* PMA counters stop at 2^width-1; Q-counters wrap */
	enum fab_counter_class cls;
	bool bad_when_grows;
	const char *layer;       /* "physical", "link", "transport", "congestion" */
	const char *meaning;
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
 * counters` (its first reading). A saturated PMA counter is a warning. */
enum ctr_total {
	CTR_TOTAL_NONE = 0,      /* zero, unknown, or not a counter a total speaks for */
	CTR_TOTAL_INFO,          /* non-zero, below its warn_at: worth saying, not alarming */
	CTR_TOTAL_WARN,          /* at or above its warn_at */
};
enum ctr_total counter_total_judge(const struct fab_counter_def *d, long long total);

extern const struct fab_counter_def fab_counter_defs[];
extern const int fab_ncounter_defs;

/* The definition of a counter file, or NULL when the table does not know it. */
const struct fab_counter_def *counter_def(const char *dir, const char *name);

/* ---- the arithmetic (pure; unit-tested with exact numbers) ---- */

enum ctr_flag {
	CTR_RESET      = 1 << 0, /* the value went down: counters were cleared; no rate */
	CTR_WRAPPED    = 1 << 1, /* a 32-bit wrapping counter passed 2^32-1; rate still exact */
	CTR_SATURATED  = 1 << 2, /* a PMA counter sits at 2^width-1: the rate is a lower bound */
	CTR_FIRST      = 1 << 3, /* first reading (start, or the port came back): no rate */
	CTR_UNREADABLE = 1 << 4, /* this read failed or was not a number: value kept */
	CTR_GONE       = 1 << 5, /* its port or device vanished */
	CTR_IMPLAUSIBLE = 1 << 6, /* a value or a step it cannot have (below): no rate, no growth */
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
 * wrapped, else reset; saturating counters at 2^width-1 are saturated.
 * scale converts counter units to the rate's unit (4 for 4-octet words ->
 * bytes). dt_s <= 0 gives no rate. */
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

/* Bytes per counter unit: 4 for "4-octet words", else 1. */
double counter_scale(const struct fab_counter_def *d);

/* The unit of a counter's rate once scaled: "bytes" for data counted in
 * 4-octet words, else the table's unit ("packets", "events", "ticks");
 * NULL for a counter the table does not know. */
const char *counter_rate_unit(const struct fab_counter_def *d);

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
 * sign, not a number, above its width's maximum; d NULL: 64 bits); -1 for
 * an empty file (nothing read: unreadable, not implausible); -2 for
 * CTR_NO_PMA_TEXT (the kernel says the counter does not exist here: unknown,
 * not implausible). */
int counter_value_judge(const struct fab_counter_def *d, const char *buf, size_t len,
			uint64_t *out);

/* Whether a step with a rate implies more than a port of line_gbps can
 * carry: a data counter above CTR_IMPLAUSIBLE_LINE x its line rate in
 * bytes, a packet counter above that many packets of CTR_MIN_PACKET_BYTES.
 * Other counters, and an unknown line rate (<= 0), never. */
bool counter_step_implausible(const struct fab_counter_def *d, const struct ctr_step *st,
			      double line_gbps);

/* "data", "packets", "error", "retry", "congestion"; NULL when d is NULL. */
const char *counter_class_name(const struct fab_counter_def *d);

#endif
