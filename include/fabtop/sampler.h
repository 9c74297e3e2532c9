/*
 * sampler.h - live counters: every counter file of every RDMA port (and the
 * device-level hw_counters), read each interval and turned into deltas,
 * rates and a bounded history for sparklines.
 *
 * Live and directory roots: sampler_open() lists the files once and keeps
 * each one open; sampler_read() then costs one pread() per counter plus one
 * fstatat() per port directory (to notice a port or device that vanished or
 * came back, which re-opens only that port). Kept fds stay under the
 * open-file limit (RLIMIT_NOFILE, raised to its hard limit once when
 * needed) less a headroom for the rest of the process: the counter files
 * past it are read by open/read/close each step (by_path), slower but
 * complete. A counter file the node refuses (EACCES, EINVAL from a failed
 * PMA query, a one-off error) is that counter's CTR_UNREADABLE, as ever;
 * a port is unsampled only where fabtop could not read it: a counter file
 * past the open-file limit even for open/read/close, or a step in which
 * no counter of the port gave a value. sampler_coverage() says so, and no
 * verdict over the run is "healthy" then. Captures with
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

/* The arithmetic (parse, step, scale, saturation) is counters.h's. */

/* ---- the sampler ---- */

#define SAMPLER_HISTORY 120      /* samples kept per series (2 minutes at 1 s) */

struct fab_ctr {
	char name[64];           /* file name */
	char dir[16];            /* "counters", "hw_counters" or "ethtool" */
	const struct fab_counter_def *def; /* NULL: unknown to the table, shown raw */
	int port;                /* index into sampler.ports */
	int fd;                  /* -1 when closed (playback, gone, by_path) */
	bool by_path;            /* past the fd budget: opened, read and closed each step */
	int err;                 /* live: errno of the last failed open or read; 0 after a good one */
	int unread_steps;        /* live steps since the baseline it left its port unsampled in
				  * (the file limit, or no counter of the port read) */
	uint64_t value;          /* last good reading */
	double t_value;          /* private: when value was read (the next rate's start) */
	bool valid;              /* value was read at least once */
	uint64_t baseline;       /* value at start or at the last sampler_baseline() */
	uint64_t since_baseline; /* growth since the baseline, resets and wraps included */
	int bad_steps;           /* steps since the baseline it was unreadable, gone or
				  * implausible in: since_baseline is then a lower bound */
	struct ctr_step last;    /* the last step */
	bool grew;               /* delta > 0 in the last step */
	long last_grew;          /* tick of the last growth, -1 never */
	float hist[SAMPLER_HISTORY]; /* rate per second (scaled), oldest first at hist_pos;
				      * 0 for a step without a rate */
};

/* What a series counts. */
enum series_kind {
	SER_RDMA = 0,            /* an RDMA port's counters/ and hw_counters/ (port > 0),
				  * or a device's device-level hw_counters (port 0) */
	SER_NETDEV,              /* an RDMA port's netdev: its ethtool statistics
				  * (port -1; dev is the netdev's name) */
};

/* The counter series of one port (or of a device's device-level
 * hw_counters, or of a port's netdev). Not a second port struct: the
 * port's facts (state, link layer, line rate) are the model's
 * (model_find_port()); this holds only what changes from sample to sample.
 *
 * A port's netdev series (SER_NETDEV) is added by sampler_use_model() for
 * every port whose netdev the model names (live: listed through the
 * kernel's ethtool interface, include/fabtop/ethtool.h; playback: from
 * the samples); owner links it to its port. Its troubles count for the
 * port (sampler_port_state()). */
struct fab_series {
	char dev[64];            /* "mlx5_0"; SER_NETDEV: "ens1f0np0" */
	int port;                /* port number; 0 for the device-level hw_counters; -1 netdev */
	enum series_kind kind;
	int owner;               /* SER_NETDEV: the port series whose netdev it is; -1 none */
	char why[160];           /* SER_NETDEV: why its statistics cannot be read; "" when they can */
	double lifespan_s;       /* hw_counters/lifespan: the kernel refreshes hw_counters
				  * no more often than this (0: unknown or none); a step
				  * closer than that holds them (CTR_HELD) */
	bool present;            /* false while vanished */
	int first_ctr, nctr;     /* its counters in sampler.ctrs */
	/* traffic, from port_xmit_data/port_rcv_data (x4 bytes) and the packet counters */
	bool has_rates;
	double tx_gbps, rx_gbps, tx_pps, rx_pps;
	float tx_hist[SAMPLER_HISTORY], rx_hist[SAMPLER_HISTORY]; /* Gb/s */
	int bad_grew;            /* bad_when_grows counters that grew in the last step */
	double peak_gbps;        /* highest TX+RX since open or the last baseline */
	double t_moved;          /* time of the last step that moved traffic; -1 never */
	/* private */
	char dirpath[256];       /* node path of the port (or device) directory */
	int unlisted_err;        /* a counter folder of it could not be listed (not
				  * ENOENT): its errno; the port is not wholly sampled */
	ino_t dir_ino;
	double line_gbps;        /* the model's rate of the port (sampler_use_model());
				  * 0: unknown, so no step is bounded by it */
	void *et_set;            /* SER_NETDEV live: its listing (struct fab_ethtool_set) */
	uint64_t *et_vals;       /* one ethtool reading, in listing order (et_set's n) */
};

struct fab_model;
struct ctr_limits;
struct pcie_watch;

struct fab_sampler {
	const struct fab_root *root;
	const struct fab_model *model; /* the ports' facts (sampler_use_model()); may be NULL */
	struct fab_series *ports; int nports;
	struct fab_ctr *ctrs; int nctrs;
	long tick;               /* steps taken */
	int hist_len;            /* valid entries in each history ring (<= SAMPLER_HISTORY);
				  * the first step adds none: it has no rates yet */
	int hist_pos;            /* ring index of the oldest entry */
	double t_last;           /* time of the last step, seconds (monotonic or recorded) */
	double dt;               /* seconds between the last two steps */
	double t_baseline;       /* time of the baseline: the first step, or sampler_baseline() */
	char note[256];          /* once-only remark ("no RDMA devices", "port came back") */
	/* Stepped with every step, live or playback, so every reader of the
	 * sampler sees the same judgements: */
	struct ctr_limits *limits; /* the documented limits (ctr_limits.h); NULL: no memory */
	struct pcie_watch *pcie;   /* PCIe over time (pcie_watch.h), opened by
				    * sampler_use_model() from the model's functions */
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
/* The model of the same root gives each port its line rate, which bounds
 * what a step can be (counter_step_implausible()); call it after
 * sampler_open()/sampler_playback_open() and again after the model was
 * collected anew. m must live as long as the sampler uses it. */
void sampler_use_model(struct fab_sampler *s, const struct fab_model *m);
/* Reads every counter now (t_mono: CLOCK_MONOTONIC seconds) and steps. */
int sampler_read(struct fab_sampler *s, double t_mono);
/* The current values become the new baseline (since_baseline = 0). */
void sampler_baseline(struct fab_sampler *s);
void sampler_close(struct fab_sampler *s);

/* The key of a netdev's ethtool statistic in fabtop/samples.json's
 * "values" (which otherwise holds counter file paths): "ethtool:IF:NAME". */
#define SAMPLER_ETHTOOL_KEY "ethtool:"

/* Playback of fabtop/samples.json: loads it (after sampler_open on the same
 * root, or alone on a zeroed struct). Returns 0, or -1 with err (no
 * samples, truncated JSON); either way sampler_close() frees it. */
int sampler_playback_open(struct fab_sampler *s, const struct fab_root *r, char *err, size_t len);
/* Applies the next recorded sample; returns 1 when there was none left. */
int sampler_playback_step(struct fab_sampler *s);
/* Seconds (recorded time) from the last applied sample to the next; the
 * nominal interval when unknown; -1 at the end. */
double sampler_playback_gap(const struct fab_sampler *s);
/* Seek: makes pos (1..pb_count) the number of samples applied, as if the
 * playback had stepped there from its start (backwards: the run is
 * replayed from the first sample, so every delta, history, baseline and
 * judgement over time is what it was then). A new baseline taken on the
 * way is lost (the first sample is the baseline again). Returns 0, or -1
 * when pos is out of range or this is not a playback. */
int sampler_playback_seek(struct fab_sampler *s, int pos);
/* The recorded time of the last applied sample and of the last sample,
 * seconds from the first one ("00:00:23 of 00:01:00"); -1 when this is
 * not a playback or nothing was applied. */
int sampler_playback_times(const struct fab_sampler *s, double *at, double *total);

/* The netdev series of port series i (SER_NETDEV, owner i); -1 when it
 * has none. */
int sampler_netdev_of(const struct fab_sampler *s, int i);
/* The RDMA device series i speaks for: its own, or for a netdev its
 * port's; NULL for a netdev no port names. */
const char *sampler_series_dev(const struct fab_sampler *s, int i);
/* How every view names series p: "mlx5_0/1", "mlx5_0" for the
 * device-level hw_counters, the netdev's name for its ethtool statistics. */
const char *sampler_series_label(const struct fab_series *p, char *buf, size_t len);
/* The series and counter named so (dir "counters", "hw_counters",
 * "ethtool") in series i; NULL when it has none. */
const struct fab_ctr *sampler_ctr(const struct fab_sampler *s, int i, const char *dir,
				  const char *name);

/* How completely the live sampler read the node since the baseline: the
 * one fact `report counters` (text and JSON), the Counters pane and the
 * metrics print. A port (series) is unsampled when, in some step, one of
 * its counter files could not be opened even by open/read/close for the
 * open-file limit (err EMFILE), or not one of its counters gave a value
 * (err: the first one's errno). A counter that alone fails to read is only
 * CTR_UNREADABLE. */
struct sampler_coverage {
	int ports, ctrs;         /* RDMA series and their counter files */
	int by_path;             /* counter files read by open/read/close each step */
	int unsampled_ports;     /* series not sampled in some step (above) */
	int unsampled_ctrs;
	int err;                 /* why: the errno of the first unsampled counter */
	long nofile;             /* the open-file limit the fd budget was drawn from; 0 unknown */
};
/* Fills c; returns c->unsampled_ports (not 0: the run's verdict is unknown). */
int sampler_coverage(const struct fab_sampler *s, struct sampler_coverage *c);
/* The sentence every printer uses (translated): "" when every port was
 * sampled with kept fds; else how many were read by open/read/close, or
 * how many ports were not sampled and why. Returns buf. */
const char *sampler_coverage_say(const struct sampler_coverage *c, char *buf, size_t len);

/* Value of history slot i (0 = oldest) of a ring. */
float sampler_hist(const struct fab_sampler *s, const float *ring, int i);

/* ---- a port's traffic state: the one classifier ---- */

/* A port that never reached this TX+RX (Gb/s) since the baseline moved no
 * traffic ("idle"); one that falls under STOP_FRACTION of its peak stopped
 * (subnet management alone is a few kb/s). */
#define SAMPLER_MOVING_GBPS   0.01
#define SAMPLER_STOP_FRACTION 0.01

enum port_traffic {
	PT_GONE      = 1 << 0, /* the port or its device vanished */
	PT_STOPPED   = 1 << 1, /* traffic fell under 1% of its peak */
	PT_RETRIES   = 1 << 2, /* a retry/loss counter grew in the last step */
	PT_ERRORS    = 1 << 3, /* an error counter grew */
	PT_CONGESTED = 1 << 4, /* a congestion counter grew */
	PT_IDLE      = 1 << 5, /* never moved traffic since the baseline */
	PT_WAIT      = 1 << 6, /* no rates yet (first reading) */
	PT_IMPLAUSIBLE = 1 << 7, /* a counter read or stepped to what it cannot be: never "ok" */
};

/* The state of port i: its own counters and its device's device-level
 * ones (mlx5 keeps the transport counters there on some firmware), its
 * presence and its traffic against its peak. The Counters pane and
 * `report counters` print this and nothing else. */
unsigned sampler_port_state(const struct fab_sampler *s, int i);
/* The kind (PT_RETRIES, PT_ERRORS, PT_CONGESTED) a bad counter speaks for
 * when it grew in the last step; 0 otherwise. */
unsigned ctr_trouble(const struct fab_ctr *c);
/* The kind a counter speaks for when it grows, whether or not it did. */
unsigned counter_trouble(const struct fab_counter_def *d);

/* Badness for sorting the changed counters: higher is worse. Retry and
 * loss 40, congestion 30, errors 20, unknown 10, traffic 0; plus 5 while
 * it grew in the last step. */
int counter_badness(const struct fab_ctr *c);

/* Number of bad_when_grows counters that grew in the last step. */
int sampler_bad_grew(const struct fab_sampler *s);
/* The series of port `port` of dev (0: the device-level hw_counters); -1. */
int sampler_find(const struct fab_sampler *s, const char *dev, int port);
/* The counters of series i that speak of trouble when they grow (loss,
 * retries, errors) and grew since the baseline, as "name +N, ..." in buf;
 * returns how many. */
int sampler_grown(const struct fab_sampler *s, int i, char *buf, size_t len);

#endif
