/*
 * live.h - the TUI's counters driver: one sampler for the session, stepped
 * on a timer (live and directory roots: a read every interval; captures
 * with fabtop/samples.json: their samples at the recorded pace), and the
 * QPs of the node.
 *
 * The Counters pane reads it through fab_model.counters_live and changes
 * only what costs no I/O (pause, speed, baseline, a step request); tui.c
 * owns it and is the only caller of the functions that read the node
 * (live_open, live_tick, live_step).
 *
 * Times are seconds on one clock chosen by the caller: CLOCK_MONOTONIC in
 * the TUI, a virtual clock in headless scripts, so that time never drives
 * a screen test.
 *
 * Sequence: live_open() -> { live_due(); live_tick() }* -> live_close().
 */
#ifndef FABTOP_LIVE_H
#define FABTOP_LIVE_H

#include <stdbool.h>
#include "fabtop/rdma_res.h"
#include "fabtop/root.h"
#include "fabtop/sampler.h"

#define LIVE_INTERVAL_MIN 0.25
#define LIVE_INTERVAL_MAX 60.0
#define LIVE_SPEED_MIN    0.25
#define LIVE_SPEED_MAX    16.0
/* A failed QP query is tried again this much later; never when the kernel
 * has no RDMA netlink at all. */
#define LIVE_QP_RETRY_S   30.0
/* Live QP lists are refreshed this often: a dump per tick would cost more
 * than all the counters on a node with thousands of QPs. */
#define LIVE_QP_REFRESH_S 5.0

struct fab_live {
	struct fab_sampler s;
	bool ok;                 /* the sampler is open and has been stepped once */
	char err[256];           /* why not ("no samples in this capture", ...) */
	const struct fab_root *root;
	/* QPs: counts by state and the broken ones */
	struct fab_qp_list qps;
	int qp_rc;               /* 0, or -errno of the last query */
	char qp_note[256];       /* why there are none, said once, not per tick */
	double qp_next;          /* when to query again; 0: never */
	/* pacing */
	bool paused;
	double interval;         /* live: seconds between reads, default 1 */
	double speed;            /* playback: 1 is the recorded pace */
	double last;             /* when the last step was taken */
	double next_due;         /* when the next step is due */
	bool ended;              /* playback: every sample applied */
	bool step_req;           /* the pane asked for one step now ('n') */
};

/* Opens the sampler on root: captures with samples play them back (the
 * first sample is applied at once), other roots read every counter once
 * for the baseline. Also loads the QPs. Returns 0, or -1 with l->err set
 * (the pane shows it; nothing else fails). */
int live_open(struct fab_live *l, const struct fab_root *r, double now);

/* When live_tick() has something to do next, on the caller's clock: a
 * step or the QPs' refresh; 0 at once (a step was asked for), -1 never
 * (paused, ended, not open). */
double live_next(const struct fab_live *l);
/* The same as milliseconds from now: 0 now, -1 never. */
int live_due(const struct fab_live *l, double now);

/* Steps when a step is due or was requested, and refreshes the QPs when
 * their time has come. True when the pane needs a redraw. */
bool live_tick(struct fab_live *l, double now);

/* One step now, paused or not (live: a read; playback: the next sample). */
bool live_step(struct fab_live *l, double now);

void live_close(struct fab_live *l);

/* The live interval a session starts with: the settings' (config.h),
 * within LIVE_INTERVAL_MIN..MAX. */
double live_default_interval(void);

/* Playback seek: sample pos (clamped to 1..count) becomes the last one
 * applied, as if played there (sampler_playback_seek(): backwards replays
 * from the first); paused or not, the pace goes on from there. True when
 * it moved; false on a live root or at pos already. It reads no file. */
bool live_seek(struct fab_live *l, int pos, double now);

/* ---- the pane's requests: no I/O ---- */

void live_toggle_pause(struct fab_live *l);
/* Live: the interval halves (faster) or doubles (slower), 0.25 s .. 60 s;
 * playback: the speed doubles or halves, 1/4x .. 16x. */
void live_faster(struct fab_live *l, bool faster);
/* The current values become the baseline ("since" starts from zero). */
void live_baseline(struct fab_live *l);
/* Asks for one step; tui.c takes it at its next live_tick(). */
void live_request_step(struct fab_live *l);

#endif
