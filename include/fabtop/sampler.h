/*
 * sampler.h - live counters: every counter file of every RDMA port (and the
 * device-level hw_counters), read each interval and turned into deltas,
 * rates and a bounded history for sparklines.
 *
 * Live and directory roots: sampler_open() lists the files once and keeps
 * each one open; sampler_read() then costs one pread() per counter plus one
 * fstatat() per port directory (to notice a port or device that vanished or
 * came back, which re-opens only that port). Captures with
 * fabtop/samples.json play back through sampler_playback_*() and the same
 * arithmetic, so the pane and the report cannot tell them apart.
 *
 * Sequence: sampler_open() -> { sampler_read() | sampler_playback_step() }*
 *           -> sampler_close().
 */
#ifndef FABTOP_SAMPLER_H
#define FABTOP_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "fabtop/counters.h"
#include "fabtop/root.h"

/* ---- pure arithmetic (unit-tested with exact numbers) ---- */

enum ctr_flag {
	CTR_RESET      = 1 << 0, /* the value went down: counters were cleared; no rate */
	CTR_WRAPPED    = 1 << 1, /* a 32-bit wrapping counter passed 2^32-1; rate still exact */
	CTR_SATURATED  = 1 << 2, /* a PMA counter sits at 2^width-1: the rate is a lower bound */
	CTR_FIRST      = 1 << 3, /* first reading (start, or the port came back): no rate */
	CTR_UNREADABLE = 1 << 4, /* this read failed or was not a number: value kept */
	CTR_GONE       = 1 << 5, /* its port or device vanished */
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
 * NUL-terminated. */
int counter_parse_value(const char *buf, size_t len, uint64_t *out);

/* One step of a counter of the given width: 64-bit counters going down are
 * a reset; 32-bit non-saturating (Q-counters) going down by more than 2^31
 * wrapped, else reset; saturating counters at 2^width-1 are saturated.
 * scale converts counter units to the rate's unit (4 for 4-octet words ->
 * bytes). dt_s <= 0 gives no rate. */
struct ctr_step counter_step(uint64_t prev, uint64_t cur, int width, bool saturates,
			     double scale, double dt_s);

/* Bytes per counter unit: 4 for "4-octet words", else 1. */
double counter_scale(const struct fab_counter_def *d);

/* ---- the sampler ---- */

#define SAMPLER_HISTORY 120      /* samples kept per series (2 minutes at 1 s) */

struct fab_ctr {
	char name[64];           /* file name */
	char dir[12];            /* "counters" or "hw_counters" */
	const struct fab_counter_def *def; /* NULL: unknown to the table, shown raw */
	int port;                /* index into sampler.ports */
	int fd;                  /* -1 when closed (playback, gone) */
	uint64_t value;          /* last good reading */
	double t_value;          /* private: when value was read (the next rate's start) */
	bool valid;              /* value was read at least once */
	uint64_t baseline;       /* value at start or at the last sampler_baseline() */
	uint64_t since_baseline; /* growth since the baseline, resets and wraps included */
	struct ctr_step last;    /* the last step */
	bool grew;               /* delta > 0 in the last step */
	long last_grew;          /* tick of the last growth, -1 never */
	float hist[SAMPLER_HISTORY]; /* rate per second (scaled), oldest first at hist_pos;
				      * 0 for a step without a rate */
};

struct fab_sport {
	char dev[64];            /* "mlx5_0" */
	int port;                /* port number; 0 for the device-level hw_counters */
	char link_layer[16];     /* read at open; "" when unknown */
	double line_gbps;        /* from ports/N/rate at open; 0 when unknown */
	bool present;            /* false while vanished */
	int first_ctr, nctr;     /* its counters in sampler.ctrs */
	/* traffic, from port_xmit_data/port_rcv_data (x4 bytes) and the packet counters */
	bool has_rates;
	double tx_gbps, rx_gbps, tx_pps, rx_pps;
	float tx_hist[SAMPLER_HISTORY], rx_hist[SAMPLER_HISTORY]; /* Gb/s */
	int bad_grew;            /* bad_when_grows counters that grew in the last step */
	/* private */
	char dirpath[256];       /* node path of the port (or device) directory */
	ino_t dir_ino;
};

struct fab_sampler {
	const struct fab_root *root;
	struct fab_sport *ports; int nports;
	struct fab_ctr *ctrs; int nctrs;
	long tick;               /* steps taken */
	int hist_len;            /* valid entries in each history ring (<= SAMPLER_HISTORY);
				  * the first step adds none: it has no rates yet */
	int hist_pos;            /* ring index of the oldest entry */
	double t_last;           /* time of the last step, seconds (monotonic or recorded) */
	double dt;               /* seconds between the last two steps */
	char note[256];          /* once-only remark ("no RDMA devices", "port came back") */
	/* playback */
	bool playback;
	int pb_pos, pb_count;    /* next sample, number of samples */
	double pb_interval;      /* the recorded nominal interval */
	void *pb_samples;        /* private: the loaded samples */
	void *priv;              /* private: the known devices */
};

/* Lists and opens every counter under root (live or a directory). 0 on
 * success, even with no devices (note says so); -1 with err on failure. */
int sampler_open(struct fab_sampler *s, const struct fab_root *r, char *err, size_t len);
/* Reads every counter now (t_mono: CLOCK_MONOTONIC seconds) and steps. */
int sampler_read(struct fab_sampler *s, double t_mono);
/* The current values become the new baseline (since_baseline = 0). */
void sampler_baseline(struct fab_sampler *s);
void sampler_close(struct fab_sampler *s);

/* Playback of fabtop/samples.json: loads it (after sampler_open on the same
 * root, or alone on a zeroed struct). Returns 0, or -1 with err (no
 * samples, truncated JSON); either way sampler_close() frees it. */
int sampler_playback_open(struct fab_sampler *s, const struct fab_root *r, char *err, size_t len);
/* Applies the next recorded sample; returns 1 when there was none left. */
int sampler_playback_step(struct fab_sampler *s);
/* Seconds (recorded time) from the last applied sample to the next; the
 * nominal interval when unknown; -1 at the end. */
double sampler_playback_gap(const struct fab_sampler *s);

/* Value of history slot i (0 = oldest) of a ring. */
float sampler_hist(const struct fab_sampler *s, const float *ring, int i);

/* Badness for sorting the changed counters: higher is worse. Retry and
 * loss 40, congestion 30, errors 20, unknown 10, traffic 0; plus 5 while
 * it grew in the last step. */
int counter_badness(const struct fab_ctr *c);

/* Number of bad_when_grows counters that grew in the last step. */
int sampler_bad_grew(const struct fab_sampler *s);

#endif
