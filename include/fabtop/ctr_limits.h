/*
 * ctr_limits.h - findings with documented thresholds over live counters:
 * "symbol_error over 10/s", "any growth of link_downed", "pre-FEC BER above
 * 2.4e-4", each row with its finding id, severity and the source of its
 * number (printed in the help and in every finding's evidence).
 *
 * The limits are data (ctr_limit_defs[]); the judgement is one function
 * per kind over real elapsed time. The module keeps, for each sampler
 * counter that has a limit, its own ring of checkpoints (time, cumulative
 * growth), spaced at window/60 at least and CTR_LIMIT_CKPTS long, so one
 * ring covers any window of its limit (1 s, 1 min, 1 h) in bounded memory:
 * sizeof(struct ctr_track), about 1.8 KB per limited counter.
 *
 * Sequence: ctr_limits_init() ->
 *           { sampler_read() | sampler_playback_step(); ctr_limits_step() }*
 *           -> ctr_limits_findings() / ctr_limits_state() whenever drawn
 *           -> ctr_limits_free().
 * ctr_limits_step() must see every sampler step (live or playback) of one
 * sampler; after sampler_baseline() call ctr_limits_baseline(). A sampler
 * that was closed and opened again needs ctr_limits_free() + init.
 *
 * What counts as growth: a step's delta, unless the step is a reset, a
 * first reading, unreadable, gone or implausible (CTR_RESET, CTR_FIRST,
 * CTR_UNREADABLE, CTR_GONE, CTR_IMPLAUSIBLE). A saturated step counts what
 * it saw (a lower bound, said so). A saturating counter pinned at its
 * maximum is BLIND: its limit cannot be judged, and that is said, never
 * "ok".
 */
#ifndef FABTOP_CTR_LIMITS_H
#define FABTOP_CTR_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fabtop/model.h"
#include "fabtop/sampler.h"

enum ctr_limit_kind {
	CLK_RATE,      /* growth over the last window_s seconds above max (a count) */
	CLK_ANY,       /* any growth while watched */
	CLK_LEVEL,     /* a gauge (the counter's value) above max */
	CLK_RATIO,     /* growth of name / growth of denom over window_s above max */
};

/* What a hint names: the commands differ by the layer at fault. */
enum ctr_limit_hint {
	CLH_PHY,       /* cable, optics, FEC: mlxlink / ethtool -S */
	CLH_LOSSLESS,  /* buffers, pauses, discards: PFC and QoS */
	CLH_TRANSPORT, /* a QP's retries: the peer, the path */
	CLH_PCIE,      /* the NIC's PCIe link to the host */
};

struct ctr_limit_def {
	const char *id;          /* finding id: "counters.symbol-error-rate" */
	const char *dir;         /* "counters", "hw_counters" or "ethtool", as the sampler names it */
	const char *name;        /* the counter's name in dir */
	const char *denom;       /* CLK_RATIO: the denominator's name, same dir; else NULL */
	enum ctr_limit_kind kind;
	double max;              /* a count per window, a level, or a ratio; over when above */
	double window_s;         /* CLK_RATE and CLK_RATIO; 0 otherwise */
	double min_denom;        /* CLK_RATIO: less denominator growth than this is no verdict */
	const char *unit;        /* CLK_LEVEL: "%" */
	enum fab_severity sev;
	enum ctr_limit_hint hint;
	const char *what;        /* what going over means, one line (the finding's layer) */
	const char *source;      /* where the number comes from, printed with it */
};

extern const struct ctr_limit_def ctr_limit_defs[];
extern const int ctr_nlimit_defs;

/* The limit as words: "over 10 in 1 s", "over 120 in 1 h", "any growth",
 * "above 30 %", "above 2.4e-04 (rx_corrected_bits_phy / rx_bits_phy over
 * 60 s)". The help, the findings and the report print this. */
const char *ctr_limit_text(const struct ctr_limit_def *d, char *buf, size_t len);

/* ---- the judgement of one counter against one limit ---- */

enum ctr_limit_state {
	CLS_NONE = 0,  /* no limit on this counter */
	CLS_UNKNOWN,   /* not read yet, or unreadable/gone now */
	CLS_OK,        /* watched over the whole window (or, any growth: all the time) and within */
	CLS_WATCHING,  /* within so far, but the observation is shorter than the window */
	CLS_WAS_OVER,  /* over earlier while watched, within now */
	CLS_BLIND,     /* pinned at its maximum: growth no longer shows */
	CLS_OVER,      /* over its limit now */
};

#define CTR_LIMIT_CKPTS 64

struct ctr_ckpt {
	double t;                /* sampler time of the step */
	uint64_t g, gd;          /* cumulative growth of the counter and of the denominator */
};

/* One counter under one limit (private to ctr_limits.c, public for its size). */
struct ctr_track {
	int def;                 /* index into ctr_limit_defs */
	int ctr, den;            /* indexes into sampler.ctrs; den -1 unless CLK_RATIO */
	char dir[12], name[64];  /* the counter it was bound to (a rebuilt sampler is noticed) */
	double t_first;          /* start of the observation; NAN until a usable reading */
	double gap;              /* least spacing of checkpoints: window / 60 */
	uint64_t g, gd;          /* growth since the observation started */
	double t_lower;          /* last step that saw saturation (growth a lower bound); NAN */
	struct ctr_ckpt ring[CTR_LIMIT_CKPTS];
	int head, n;             /* oldest checkpoint, count */
	/* the judgement of the last step */
	enum ctr_limit_state state;
	uint64_t growth, dgrowth; /* growth (and the denominator's) over span */
	double span;             /* seconds the judgement covers */
	double figure;           /* per window (RATE), the level, the ratio, or the growth (ANY) */
	bool lower;              /* growth includes a saturated step: at least this much */
	/* the worst while watched */
	long over_steps;
	double peak, t_peak, peak_span;
	uint64_t peak_growth, peak_dgrowth;
};

struct ctr_limits {
	struct ctr_track *tracks; int ntracks, cap;
	int *by_ctr; int nctrs;  /* first track of each sampler counter, -1 none */
	const struct fab_sampler *bound; /* the sampler it follows */
};

void ctr_limits_init(struct ctr_limits *L);
void ctr_limits_free(struct ctr_limits *L);
/* After every sampler step: binds new counters (a device that appeared),
 * adds the step's growth, checkpoints, and judges. 0, or -1 when out of
 * memory (the limits then say nothing new; nothing else is harmed). */
int ctr_limits_step(struct ctr_limits *L, const struct fab_sampler *s);
/* With sampler_baseline(): every observation starts again now. */
void ctr_limits_baseline(struct ctr_limits *L, const struct fab_sampler *s);

/* The worst state of sampler counter ci under its limits (CLS_NONE when it
 * has none); why (may be NULL) gets a short reason: "11/s over 1.0 s,
 * limit 10/s", "watching 600 s of 1 h: 50 so far", "pinned at 255". */
enum ctr_limit_state ctr_limits_state(const struct ctr_limits *L, int ci, char *why, size_t len);
/* "over", "was over", "blind", "watching", "ok", "unknown"; "" for CLS_NONE. */
const char *ctr_limit_state_word(enum ctr_limit_state st);

/* The findings of the last step, in sampler order: a row's id for OVER and
 * WAS_OVER (its severity), and for WATCHING with growth (info);
 * "counters.limit-blind" (warning) for each pinned counter. Writes at most
 * max into out and returns how many there are (more than max: some left
 * out). Subjects: "mlx5_0/1" for a port, the series' name for ethtool. */
int ctr_limits_findings(const struct ctr_limits *L, const struct fab_sampler *s,
			struct fab_finding *out, int max);

#endif
