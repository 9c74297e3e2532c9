/*
 * ctr_limits.c - documented thresholds over live counters, judged over real
 * elapsed time. The contract and the sequence: include/fabtop/ctr_limits.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/i18n.h"
#include "fabtop/ctr_limits.h"
#include "fabtop/model.h"
#include "fabtop/sanitize.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"

/* ---- the table ----
 *
 * Sources (each row's `source` says which, in words short enough to print):
 *
 * [NVS] NVIDIA NVSentinel, nic-health-monitor's default counter thresholds:
 *   https://github.com/NVIDIA/NVSentinel/blob/main/docs/configuration/nic-health-monitor.md
 *   ("Default Counter Configuration": link_downed, excessive_buffer_overrun_errors,
 *   local_link_integrity_errors, rnr_nak_retry_err delta > 0 (fatal);
 *   symbol_error_fatal 120/hour (fatal); symbol_error 10/second; link_error_recovery
 *   5/minute; local_ack_timeout_err 1/second; port_xmit_discards 100/second), with
 *   the reasoning in docs/designs/046-link-counter-detection.md (120/h is the IBTA
 *   BER 1e-12 compliance figure, after Oracle's InfiniBand docs). Every number of
 *   the issue for these counters is NVSentinel's: none disagrees.
 * [MLX5] the kernel's mlx5 ethtool counters documentation:
 *   https://github.com/torvalds/linux/blob/master/Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst
 *   tx_pause_storm_warning_events "the device was sending pauses for a long period
 *   of time"; tx_pause_storm_error_events "... reaching time out and disabling
 *   transmission of pause frames ... drop could have been occurred";
 *   rx_pcs_symbol_err_phy "symbol errors that weren't corrected by FEC ... traffic
 *   is lost"; rx_corrected_bits_phy / rx_bits_phy "on a specific time frame" is the
 *   corrected (pre-FEC) bit error rate; outbound_pci_stalled_rd/_wr are "the
 *   percentage (0...100) of time within the last second" and the driver's own
 *   outbound_pci_stalled_*_events count "the number of seconds where
 *   outbound_pci_stalled_* was above 30%": the 30 % of the issue is mlx5's.
 * [IEEE] the pre-FEC BER a 50G/100G-per-lane PAM4 link with RS(544,514) FEC must
 *   achieve, 2.4e-4, and 1e-12 after FEC, as Dell states it for the ConnectX-6 Dx
 *   (KB 000286734, https://www.dell.com/support/kbdoc/en-us/000286734/100-gb-nic,
 *   "IEEE standards require all links involving 50G/100G PAM4 to achieve a pre-FEC
 *   BER of 2.4E-04 or better"). NVIDIA's ibdiagnet checks BER against "specific
 *   thresholds" (--get_phy_info) without publishing them; its older --ber_test
 *   default is 1e-12 (https://docs.nvidia.com/networking/display/ibdiagnetutilityv2240/bit-error-rate-(ber)),
 *   the IBTA target after FEC, which rx_pcs_symbol_err_phy growth already breaks.
 */
const struct ctr_limit_def ctr_limit_defs[] = {
	{ .id = "counters.symbol-error-rate", .dir = "counters", .name = "symbol_error",
	  .kind = CLK_RATE, .max = 10, .window_s = 1, .sev = SEV_WARN, .hint = CLH_PHY,
	  .what = N_("physical: bit errors on the lanes faster than FEC margins allow"),
	  .source = "NVIDIA NVSentinel nic-health-monitor default (symbol_error, velocity 10/second)" },
	{ .id = "counters.symbol-error-ber", .dir = "counters", .name = "symbol_error",
	  .kind = CLK_RATE, .max = 120, .window_s = 3600, .sev = SEV_ERROR, .hint = CLH_PHY,
	  .what = N_("physical: the link breaks the IBTA bit error rate of 1e-12"),
	  .source = "NVIDIA NVSentinel nic-health-monitor default (symbol_error_fatal, 120/hour: "
		    "the IBTA BER 1e-12 limit)" },
	{ .id = "counters.link-error-recovery", .dir = "counters", .name = "link_error_recovery",
	  .kind = CLK_RATE, .max = 5, .window_s = 60, .sev = SEV_WARN, .hint = CLH_PHY,
	  .what = N_("physical: the link retrains again and again (micro-flaps stall traffic)"),
	  .source = "NVIDIA NVSentinel nic-health-monitor default (link_error_recovery, 5/minute)" },
	{ .id = "counters.ack-timeout", .dir = "hw_counters", .name = "local_ack_timeout_err",
	  .kind = CLK_RATE, .max = 1, .window_s = 1, .sev = SEV_WARN, .hint = CLH_TRANSPORT,
	  .what = N_("transport: QPs wait out full ACK timeouts (a lost path or a dead peer)"),
	  .source = "NVIDIA NVSentinel nic-health-monitor default (local_ack_timeout_err, 1/second)" },
	{ .id = "counters.xmit-discards", .dir = "counters", .name = "port_xmit_discards",
	  .kind = CLK_RATE, .max = 100, .window_s = 1, .sev = SEV_WARN, .hint = CLH_LOSSLESS,
	  .what = N_("congestion: the port drops what it cannot send (flow control broke down)"),
	  .source = "NVIDIA NVSentinel nic-health-monitor default (port_xmit_discards, 100/second)" },
	{ .id = "counters.link-downed", .dir = "counters", .name = "link_downed",
	  .kind = CLK_ANY, .sev = SEV_ERROR, .hint = CLH_PHY,
	  .what = N_("physical: the link went down while watched; running QPs do not survive it"),
	  .source = "NVIDIA NVSentinel nic-health-monitor default (link_downed, delta > 0, fatal)" },
	{ .id = "counters.buffer-overrun", .dir = "counters", .name = "excessive_buffer_overrun_errors",
	  .kind = CLK_ANY, .sev = SEV_ERROR, .hint = CLH_LOSSLESS,
	  .what = N_("link: an input buffer overran, so the lossless link dropped packets"),
	  .source = "NVIDIA NVSentinel nic-health-monitor default (excessive_buffer_overrun_errors, "
		    "delta > 0, fatal)" },
	{ .id = "counters.link-integrity", .dir = "counters", .name = "local_link_integrity_errors",
	  .kind = CLK_ANY, .sev = SEV_ERROR, .hint = CLH_PHY,
	  .what = N_("physical: raw errors passed the port's LocalPhyErrors limit (outside spec)"),
	  .source = "NVIDIA NVSentinel nic-health-monitor default (local_link_integrity_errors, "
		    "delta > 0, fatal)" },
	{ .id = "counters.rnr-retry", .dir = "hw_counters", .name = "rnr_nak_retry_err",
	  .kind = CLK_ANY, .sev = SEV_ERROR, .hint = CLH_TRANSPORT,
	  .what = N_("transport: a QP ran out of RNR retries and failed (a receiver never posted)"),
	  .source = "NVIDIA NVSentinel nic-health-monitor default (rnr_nak_retry_err, delta > 0, fatal)" },
	{ .id = "counters.pause-storm", .dir = "ethtool", .name = "tx_pause_storm_warning_events",
	  .kind = CLK_ANY, .sev = SEV_WARN, .hint = CLH_LOSSLESS,
	  .what = N_("congestion: the NIC sent pauses for a long time (a pause storm building)"),
	  .source = "mlx5 counters.rst (kernel docs): the device was sending pauses for a long "
		    "period of time" },
	{ .id = "counters.pause-storm-drop", .dir = "ethtool", .name = "tx_pause_storm_error_events",
	  .kind = CLK_ANY, .sev = SEV_ERROR, .hint = CLH_LOSSLESS,
	  .what = N_("congestion: the pause storm watchdog stopped the NIC's pauses; packets may drop"),
	  .source = "mlx5 counters.rst (kernel docs): pauses timed out and were disabled; "
		    "drops could have occurred" },
	{ .id = "counters.fec-uncorrected", .dir = "ethtool", .name = "rx_pcs_symbol_err_phy",
	  .kind = CLK_ANY, .sev = SEV_ERROR, .hint = CLH_PHY,
	  .what = N_("physical: symbol errors FEC could not correct; traffic was lost"),
	  .source = "mlx5 counters.rst: errors not corrected by FEC, traffic is lost (above the "
		    "1e-12 BER target after FEC)" },
	{ .id = "counters.pre-fec-ber", .dir = "ethtool", .name = "rx_corrected_bits_phy",
	  .denom = "rx_bits_phy", .kind = CLK_RATIO, .max = 2.4e-4, .window_s = 60,
	  .min_denom = 1e6, .sev = SEV_WARN, .hint = CLH_PHY,
	  .what = N_("physical: FEC corrects more bits than a healthy link needs (its margin shrinks)"),
	  .source = "IEEE 802.3 pre-FEC BER 2.4e-4 for PAM4 links with RS(544,514) FEC "
		    "(Dell KB 000286734 for ConnectX-6 Dx); ratio as in mlx5 counters.rst" },
	{ .id = "counters.pcie-stall", .dir = "ethtool", .name = "outbound_pci_stalled_rd",
	  .kind = CLK_LEVEL, .max = 30, .unit = "%", .sev = SEV_WARN, .hint = CLH_PCIE,
	  .what = N_("PCIe: the NIC's reads stalled for lack of credits that share of the last second"),
	  .source = "mlx5 counters.rst: outbound_pci_stalled_rd_events counts seconds above 30%" },
	{ .id = "counters.pcie-stall", .dir = "ethtool", .name = "outbound_pci_stalled_wr",
	  .kind = CLK_LEVEL, .max = 30, .unit = "%", .sev = SEV_WARN, .hint = CLH_PCIE,
	  .what = N_("PCIe: the NIC's writes stalled for lack of credits that share of the last second"),
	  .source = "mlx5 counters.rst: outbound_pci_stalled_wr_events counts seconds above 30%" },
};
const int ctr_nlimit_defs = (int)(sizeof(ctr_limit_defs) / sizeof(ctr_limit_defs[0]));

/* Sampler times jitter by milliseconds: a step of 0.999 s still covers a
 * 1 s window. Never more than 1 s, so an hour stays an hour. */
static double window_slack(double w)
{
	return fmin(0.05 * w, 1.0);
}

static const char *per_window(double w, char *buf, size_t len)
{
	if (w == 1)
		return "/s";
	if (w == 60)
		return "/min";
	if (w == 3600)
		return "/h";
	snprintf(buf, len, _(" in %g s"), w);
	return buf;
}

/* "1 s", "1 min", "1 h", else seconds. */
static const char *window_words(double w, char *buf, size_t len)
{
	if (w == 60)
		return "1 min";
	if (w == 3600)
		return "1 h";
	snprintf(buf, len, "%g s", w);
	return buf;
}

/* Elapsed seconds as a finding prints them: one decimal under 100 s. */
static const char *dur(double s, char *buf, size_t len)
{
	if (s < 100)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0f s (%.0f min)", s, s / 60);
	else
		snprintf(buf, len, "%.0f s (%.1f h)", s, s / 3600);
	return buf;
}

const char *ctr_limit_text(const struct ctr_limit_def *d, char *buf, size_t len)
{
	char w[32], u[32];
	switch (d->kind) {
	case CLK_RATE:
		snprintf(buf, len, _("over %g%s"), d->max, per_window(d->window_s, u, sizeof(u)));
		break;
	case CLK_ANY:
		snprintf(buf, len, _("any growth"));
		break;
	case CLK_LEVEL:
		snprintf(buf, len, _("above %g %s"), d->max, d->unit ? d->unit : "");
		break;
	case CLK_RATIO:
		snprintf(buf, len, _("above %.1e (%s / %s over %s)"), d->max, d->name, d->denom,
			 window_words(d->window_s, w, sizeof(w)));
		break;
	}
	return buf;
}

/* ---- binding counters to limits ---- */

void ctr_limits_init(struct ctr_limits *L)
{
	memset(L, 0, sizeof(*L));
}

void ctr_limits_free(struct ctr_limits *L)
{
	free(L->tracks);
	free(L->by_ctr);
	memset(L, 0, sizeof(*L));
}

static bool readable(const struct fab_ctr *c)
{
	return c->valid && !(c->last.flags & (CTR_UNREADABLE | CTR_GONE | CTR_IMPLAUSIBLE));
}

/* A step whose delta is growth: not a reset, a first reading, a failed
 * read, a vanished port or an impossible value. */
static bool counts(const struct fab_ctr *c)
{
	return c->valid && !(c->last.flags & (CTR_RESET | CTR_FIRST | CTR_UNREADABLE | CTR_GONE |
					      CTR_IMPLAUSIBLE));
}

static void track_restart(struct ctr_track *tr)
{
	tr->t_first = NAN;
	tr->t_lower = NAN;
	tr->g = tr->gd = 0;
	tr->head = tr->n = 0;
	tr->state = CLS_UNKNOWN;
	tr->growth = tr->dgrowth = 0;
	tr->span = tr->figure = 0;
	tr->lower = false;
	tr->over_steps = 0;
	tr->peak = tr->t_peak = tr->peak_span = 0;
	tr->peak_growth = tr->peak_dgrowth = 0;
}

/* The denominator of a ratio: the counter of that name in the same series. */
static int find_in_series(const struct fab_sampler *s, int ci, const char *name)
{
	const struct fab_series *p = &s->ports[s->ctrs[ci].port];
	for (int k = p->first_ctr; k < p->first_ctr + p->nctr && k < s->nctrs; k++)
		if (strcmp(s->ctrs[k].dir, s->ctrs[ci].dir) == 0 && strcmp(s->ctrs[k].name, name) == 0)
			return k;
	return -1;
}

static int add_track(struct ctr_limits *L, const struct fab_sampler *s, int ci, int di)
{
	if (L->ntracks == L->cap) {
		int cap = L->cap ? L->cap * 2 : 32;
		struct ctr_track *v = realloc(L->tracks, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		L->tracks = v;
		L->cap = cap;
	}
	const struct ctr_limit_def *d = &ctr_limit_defs[di];
	struct ctr_track *tr = &L->tracks[L->ntracks];
	memset(tr, 0, sizeof(*tr));
	tr->def = di;
	tr->ctr = ci;
	tr->den = d->kind == CLK_RATIO ? find_in_series(s, ci, d->denom) : -1;
	fab_strlcpy(tr->dir, s->ctrs[ci].dir, sizeof(tr->dir));
	fab_strlcpy(tr->name, s->ctrs[ci].name, sizeof(tr->name));
	tr->gap = d->window_s / 60;
	track_restart(tr);
	return L->ntracks++;
}

/* Counters the sampler appended since the last step (a device that
 * appeared) get their limits; a sampler whose counters are no longer the
 * ones bound (reopened) starts over. */
static int bind(struct ctr_limits *L, const struct fab_sampler *s)
{
	bool same = L->bound == s && s->nctrs >= L->nctrs;
	for (int i = 0; same && i < L->ntracks; i++) {
		const struct fab_ctr *c = &s->ctrs[L->tracks[i].ctr];
		same = strcmp(c->dir, L->tracks[i].dir) == 0 && strcmp(c->name, L->tracks[i].name) == 0;
	}
	if (!same) {
		L->ntracks = 0;
		L->nctrs = 0;
	}
	L->bound = s;
	if (s->nctrs == L->nctrs)
		return 0;
	int *v = realloc(L->by_ctr, (size_t)s->nctrs * sizeof(*v));
	if (!v)
		return -1;
	L->by_ctr = v;
	for (int ci = L->nctrs; ci < s->nctrs; ci++) {
		L->by_ctr[ci] = -1;
		for (int di = 0; di < ctr_nlimit_defs; di++) {
			if (strcmp(s->ctrs[ci].dir, ctr_limit_defs[di].dir) != 0 ||
			    strcmp(s->ctrs[ci].name, ctr_limit_defs[di].name) != 0)
				continue;
			int t = add_track(L, s, ci, di);
			if (t < 0) {
				L->nctrs = ci;
				return -1;
			}
			if (L->by_ctr[ci] < 0)
				L->by_ctr[ci] = t;
		}
	}
	L->nctrs = s->nctrs;
	return 0;
}

/* ---- checkpoints ---- */

static struct ctr_ckpt *ckpt(struct ctr_track *tr, int i)
{
	return &tr->ring[(tr->head + i) % CTR_LIMIT_CKPTS];
}

static void push(struct ctr_track *tr, double t)
{
	if (tr->n > 0 && t - ckpt(tr, tr->n - 1)->t < tr->gap)
		return;
	if (tr->n == CTR_LIMIT_CKPTS) {
		tr->head = (tr->head + 1) % CTR_LIMIT_CKPTS;
		tr->n--;
	}
	*ckpt(tr, tr->n++) = (struct ctr_ckpt){ .t = t, .g = tr->g, .gd = tr->gd };
}

static void advance(struct ctr_track *tr, const struct fab_sampler *s, double t)
{
	const struct fab_ctr *c = &s->ctrs[tr->ctr];
	const struct fab_ctr *d = tr->den >= 0 ? &s->ctrs[tr->den] : NULL;
	/* A clock that went back (a recording started over): a new observation. */
	if (tr->n > 0 && t < ckpt(tr, tr->n - 1)->t)
		track_restart(tr);
	if (isnan(tr->t_first)) {
		if (!readable(c) || (d && !readable(d)))
			return;
		tr->t_first = t;
		push(tr, t);
		return;
	}
	if (counts(c) && (!d || counts(d))) {
		tr->g += c->last.delta;
		tr->gd += d ? d->last.delta : 0;
		if (c->last.flags & CTR_SATURATED)
			tr->t_lower = t;
	}
	push(tr, t);
}

/* The window's base: of the checkpoints at least the window (less the
 * slack) before t, the one whose span is closest to the window; the oldest
 * when the observation is shorter (*whole = false). */
static const struct ctr_ckpt *base_of(struct ctr_track *tr, double w, double t, bool *whole)
{
	for (int i = tr->n - 1; i >= 0; i--) {
		double span = t - ckpt(tr, i)->t;
		if (span < w - window_slack(w))
			continue;
		*whole = true;
		if (span < w && i > 0 && t - ckpt(tr, i - 1)->t - w < w - span)
			return ckpt(tr, i - 1);
		return ckpt(tr, i);
	}
	*whole = false;
	return ckpt(tr, 0);
}

static void judge(struct ctr_track *tr, const struct fab_sampler *s, double t)
{
	const struct ctr_limit_def *d = &ctr_limit_defs[tr->def];
	const struct fab_ctr *c = &s->ctrs[tr->ctr];
	const struct fab_ctr *dc = tr->den >= 0 ? &s->ctrs[tr->den] : NULL;
	bool pinned = c->valid && counter_pinned(c->def, c->value);
	bool over = false, whole = true, known = true;
	tr->lower = false;
	tr->growth = tr->dgrowth = 0;
	tr->span = tr->figure = 0;
	if (isnan(tr->t_first) || !readable(c) || (d->kind == CLK_RATIO && (!dc || !readable(dc)))) {
		known = false;
	} else if (d->kind == CLK_LEVEL) {
		tr->figure = (double)c->value;
		over = tr->figure > d->max;
	} else if (d->kind == CLK_ANY) {
		tr->growth = tr->g;
		tr->span = t - tr->t_first;
		tr->figure = (double)tr->g;
		tr->lower = !isnan(tr->t_lower);
		over = tr->g > 0;
	} else {
		const struct ctr_ckpt *b = base_of(tr, d->window_s, t, &whole);
		tr->growth = tr->g - b->g;
		tr->dgrowth = tr->gd - b->gd;
		tr->span = t - b->t;
		tr->lower = !isnan(tr->t_lower) && tr->t_lower > b->t;
		if (d->kind == CLK_RATE) {
			/* A whole window: the rate over the real span it covers (a
			 * span short of the window by jitter counts as the window:
			 * never scaled up). A shorter observation judges the count it
			 * saw: more than the limit is already over, fewer is not yet
			 * known to be within. */
			if (whole) {
				double per = fmax(tr->span, d->window_s);
				tr->figure = (double)tr->growth * d->window_s / per;
				over = (double)tr->growth * d->window_s > d->max * per;
			} else {
				tr->figure = (double)tr->growth;
				over = tr->figure > d->max;
			}
		} else if ((double)tr->dgrowth >= d->min_denom) {
			tr->figure = (double)tr->growth / (double)tr->dgrowth;
			over = tr->figure > d->max;
		} else {
			whole = false;   /* too few bits yet for a verdict */
		}
	}
	if (over) {
		tr->state = CLS_OVER;
		if (tr->over_steps++ == 0 || tr->figure > tr->peak) {
			tr->peak = tr->figure;
			tr->t_peak = t;
			tr->peak_span = tr->span;
			tr->peak_growth = tr->growth;
			tr->peak_dgrowth = tr->dgrowth;
		}
	} else if (pinned) {
		tr->state = CLS_BLIND;
	} else if (tr->over_steps > 0) {
		tr->state = CLS_WAS_OVER;
	} else if (!known) {
		tr->state = CLS_UNKNOWN;
	} else {
		tr->state = whole ? CLS_OK : CLS_WATCHING;
	}
}

int ctr_limits_step(struct ctr_limits *L, const struct fab_sampler *s)
{
	int rc = bind(L, s);
	for (int i = 0; i < L->ntracks; i++) {
		advance(&L->tracks[i], s, s->t_last);
		judge(&L->tracks[i], s, s->t_last);
	}
	return rc;
}

void ctr_limits_baseline(struct ctr_limits *L, const struct fab_sampler *s)
{
	for (int i = 0; i < L->ntracks; i++) {
		struct ctr_track *tr = &L->tracks[i];
		track_restart(tr);
		if (L->bound == s && tr->ctr < s->nctrs) {
			advance(tr, s, s->t_last);
			judge(tr, s, s->t_last);
		}
	}
}

/* ---- what is said ---- */

const char *ctr_limit_state_word(enum ctr_limit_state st)
{
	switch (st) {
	case CLS_OVER:     return "over";
	case CLS_WAS_OVER: return "was over";
	case CLS_BLIND:    return "blind";
	case CLS_WATCHING: return "watching";
	case CLS_OK:       return "ok";
	case CLS_UNKNOWN:  return "unknown";
	case CLS_NONE:     break;
	}
	return "";
}

/* The figure as the limit reads: "11/s", "121 in 1800 s", "31 %", "3.0e-04". */
static void figure_words(const struct ctr_limit_def *d, double fig, uint64_t growth, double span,
			 bool whole, char *buf, size_t len)
{
	char u[32], t[48];
	switch (d->kind) {
	case CLK_RATE:
		if (whole)
			snprintf(buf, len, "%.3g%s", fig, per_window(d->window_s, u, sizeof(u)));
		else
			snprintf(buf, len, _("%llu in %s"), (unsigned long long)growth, dur(span, t, sizeof(t)));
		break;
	case CLK_ANY:
		snprintf(buf, len, _("+%llu in %s"), (unsigned long long)growth, dur(span, t, sizeof(t)));
		break;
	case CLK_LEVEL:
		snprintf(buf, len, "%g %s", fig, d->unit ? d->unit : "");
		break;
	case CLK_RATIO:
		snprintf(buf, len, "%.2e", fig);
		break;
	}
}

static bool whole_window(const struct ctr_track *tr, const struct ctr_limit_def *d)
{
	return d->kind == CLK_RATE && tr->span >= d->window_s - window_slack(d->window_s);
}

enum ctr_limit_state ctr_limits_state(const struct ctr_limits *L, int ci, char *why, size_t len)
{
	if (why && len)
		why[0] = '\0';
	if (!L || ci < 0 || ci >= L->nctrs || L->by_ctr[ci] < 0)
		return CLS_NONE;
	const struct ctr_track *worst = NULL;
	for (int i = L->by_ctr[ci]; i < L->ntracks && L->tracks[i].ctr == ci; i++)
		if (!worst || L->tracks[i].state > worst->state)
			worst = &L->tracks[i];
	if (!why || !len)
		return worst->state;
	const struct ctr_limit_def *d = &ctr_limit_defs[worst->def];
	const struct fab_ctr *c = &L->bound->ctrs[ci];
	char lim[160], fig[128], w[32];
	ctr_limit_text(d, lim, sizeof(lim));
	switch (worst->state) {
	case CLS_OVER:
		figure_words(d, worst->figure, worst->growth, worst->span, whole_window(worst, d),
			     fig, sizeof(fig));
		snprintf(why, len, worst->lower ? _("at least %s, limit: %s") : _("%s, limit: %s"), fig, lim);
		break;
	case CLS_WAS_OVER:
		figure_words(d, worst->peak, worst->peak_growth, worst->peak_span,
			     d->kind == CLK_RATE && worst->peak_span >= d->window_s - window_slack(d->window_s),
			     fig, sizeof(fig));
		snprintf(why, len, _("was %s, limit: %s"), fig, lim);
		break;
	case CLS_BLIND:
		snprintf(why, len, _("pinned at %llu: %s cannot be judged"),
			 (unsigned long long)c->value, lim);
		break;
	case CLS_WATCHING:
		if (d->kind == CLK_RATIO)
			snprintf(why, len, _("watching: %llu of %.0f bits needed"), (unsigned long long)worst->dgrowth,
				 d->min_denom);
		else
			snprintf(why, len, _("watching %.0f s of %s: %llu so far, limit: %s"), worst->span,
				 window_words(d->window_s, w, sizeof(w)),
				 (unsigned long long)worst->growth, lim);
		break;
	case CLS_OK:
		snprintf(why, len, _("within: %s"), lim);
		break;
	case CLS_UNKNOWN:
		snprintf(why, len, _("not read: %s unknown"), lim);
		break;
	case CLS_NONE:
		break;
	}
	return worst->state;
}

static bool is_ethtool(const struct fab_ctr *c)
{
	return strcmp(c->dir, "ethtool") == 0;
}

/* A port's series is named "mlx5_0/1"; an ethtool series by its own name
 * (the netdev). */
static void subject_of(const struct fab_sampler *s, const struct fab_ctr *c, char *buf, size_t len)
{
	const struct fab_series *p = &s->ports[c->port];
	if (is_ethtool(c))
		snprintf(buf, len, "%s", p->dev);
	else
		fab_subject(p->dev, p->port, buf, len);
}

/* Commands printed, never run; every name through FAB_SHQ. */
static void hint_of(const struct ctr_limit_def *d, const struct fab_sampler *s,
		    const struct fab_ctr *c, char *buf, size_t len)
{
	const struct fab_series *p = &s->ports[c->port];
	char dp[sizeof(p->dev) + 16];
	snprintf(dp, sizeof(dp), "%s/%d", p->dev, p->port);
	bool eth = is_ethtool(c);
	switch (d->hint) {
	case CLH_PHY:
		if (eth)
			snprintf(buf, len, _("ethtool -S %s | grep -E 'phy|fec'; ethtool --show-fec %s; "
				 "growing errors: reseat, clean or replace the cable or transceiver"),
				 FAB_SHQ(p->dev), FAB_SHQ(p->dev));
		else
			snprintf(buf, len, _("mlxlink -d %s -p %d -c (BER and FEC); perfquery -x -C %s -P %d; "
				 "growing errors: reseat, clean or replace the cable or transceiver"),
				 FAB_SHQ(p->dev), p->port, FAB_SHQ(p->dev), p->port);
		break;
	case CLH_LOSSLESS:
		if (eth)
			snprintf(buf, len, _("ethtool -S %s | grep -E 'pause|discard'; mlnx_qos -i %s (PFC, "
				 "buffers); a host that stops draining its receive queues makes the NIC pause "
				 "without end"), FAB_SHQ(p->dev), FAB_SHQ(p->dev));
		else
			snprintf(buf, len, _("perfquery -x -C %s -P %d; check flow control (credits, PFC) and "
				 "buffer settings at both ends of the link"), FAB_SHQ(p->dev), p->port);
		break;
	case CLH_TRANSPORT:
		/* Device-level hw_counters (port 0) have no link to name. */
		if (p->port > 0)
			snprintf(buf, len, _("rdma statistic show link %s; a peer stopped answering or "
				 "packets are lost on the path: check the peer node and the switch ports "
				 "between"), FAB_SHQ(dp));
		else
			snprintf(buf, len, _("rdma statistic show; a peer stopped answering or packets are "
				 "lost on the path: check the peer node and the switch ports between"));
		break;
	case CLH_PCIE:
		snprintf(buf, len, _("ethtool -S %s | grep pci; lspci -vv on the NIC's function (LnkSta: "
			 "speed and width): the host does not take the NIC's DMA fast enough"),
			 FAB_SHQ(p->dev));
		break;
	}
}

static void evidence_of(const struct ctr_track *tr, const struct ctr_limit_def *d,
			const struct fab_sampler *s, bool peak, char *buf, size_t len)
{
	const struct fab_ctr *c = &s->ctrs[tr->ctr];
	char lim[160], t[48];
	uint64_t g = peak ? tr->peak_growth : tr->growth, gd = peak ? tr->peak_dgrowth : tr->dgrowth;
	double span = peak ? tr->peak_span : tr->span;
	ctr_limit_text(d, lim, sizeof(lim));
	if (d->kind == CLK_LEVEL)
		snprintf(buf, len, "%s/%s = %g", c->dir, c->name, peak ? tr->peak : tr->figure);
	else if (d->kind == CLK_RATIO)
		snprintf(buf, len, _("%s/%s +%llu, %s/%s +%llu in %s"), c->dir, c->name,
			 (unsigned long long)g, c->dir, d->denom, (unsigned long long)gd,
			 dur(span, t, sizeof(t)));
	else
		snprintf(buf, len, _("%s/%s +%llu in %s (now %llu)"), c->dir, c->name,
			 (unsigned long long)g, dur(span, t, sizeof(t)), (unsigned long long)c->value);
	fab_catf(buf, len, _("; limit: %s; source: %s"), lim, d->source);
}

static void over_message(const struct ctr_track *tr, const struct ctr_limit_def *d,
			 const struct fab_ctr *c, char *buf, size_t len)
{
	char lim[160], fig[128], t[48], w[32];
	ctr_limit_text(d, lim, sizeof(lim));
	bool whole = whole_window(tr, d);
	figure_words(d, tr->figure, tr->growth, tr->span, whole, fig, sizeof(fig));
	const char *atleast = tr->lower ? _(" (at least: the counter pinned)") : "";
	switch (d->kind) {
	case CLK_RATE:
		if (whole)
			snprintf(buf, len, _("%s grew %llu in the last %s (%s)%s: %s, its limit"), c->name,
				 (unsigned long long)tr->growth, dur(tr->span, t, sizeof(t)), fig, atleast, lim);
		else
			snprintf(buf, len, _("%s grew %llu in %s watched, of a %s window%s: already %s, "
				 "its limit"), c->name, (unsigned long long)tr->growth,
				 dur(tr->span, t, sizeof(t)), window_words(d->window_s, w, sizeof(w)),
				 atleast, lim);
		break;
	case CLK_ANY:
		snprintf(buf, len, _("%s grew %llu in %s watched%s: any growth is over its limit"),
			 c->name, (unsigned long long)tr->growth, dur(tr->span, t, sizeof(t)), atleast);
		break;
	case CLK_LEVEL:
		snprintf(buf, len, _("%s is %s: %s, its limit"), c->name, fig, lim);
		break;
	case CLK_RATIO:
		snprintf(buf, len, _("pre-FEC BER %s (%s / %s over %s): %s, its limit"), fig, c->name,
			 d->denom, dur(tr->span, t, sizeof(t)), lim);
		break;
	}
}

static int first_blind(const struct ctr_limits *L, int ci)
{
	for (int j = L->by_ctr[ci]; j < L->ntracks && L->tracks[j].ctr == ci; j++)
		if (L->tracks[j].state == CLS_BLIND)
			return j;
	return -1;
}

static int emit(struct fab_finding *out, int max, int n, const char *id, enum fab_severity sev,
		const char *subject)
{
	if (n < max) {
		memset(&out[n], 0, sizeof(out[n]));
		fab_strlcpy(out[n].id, id, sizeof(out[n].id));
		out[n].sev = sev;
		fab_strlcpy(out[n].subject, subject, sizeof(out[n].subject));
	}
	return n + 1;
}

int ctr_limits_findings(const struct ctr_limits *L, const struct fab_sampler *s,
			struct fab_finding *out, int max)
{
	int n = 0;
	if (!L || L->bound != s)
		return 0;
	for (int i = 0; i < L->ntracks; i++) {
		const struct ctr_track *tr = &L->tracks[i];
		const struct ctr_limit_def *d = &ctr_limit_defs[tr->def];
		const struct fab_ctr *c = &s->ctrs[tr->ctr];
		char subj[FAB_NAME_LEN], lim[160], fig[128], t[48], w[32];
		subject_of(s, c, subj, sizeof(subj));
		ctr_limit_text(d, lim, sizeof(lim));
		struct fab_finding *f = NULL;
		int k = n;
		switch (tr->state) {
		case CLS_OVER:
			n = emit(out, max, n, d->id, d->sev, subj);
			if (k < max) {
				f = &out[k];
				over_message(tr, d, c, f->message, sizeof(f->message));
				evidence_of(tr, d, s, false, f->evidence, sizeof(f->evidence));
			}
			break;
		case CLS_WAS_OVER:
			n = emit(out, max, n, d->id, d->sev, subj);
			if (k < max) {
				f = &out[k];
				figure_words(d, tr->peak, tr->peak_growth, tr->peak_span,
					     d->kind == CLK_RATE &&
					     tr->peak_span >= d->window_s - window_slack(d->window_s),
					     fig, sizeof(fig));
				snprintf(f->message, sizeof(f->message),
					 _("%s was over its limit (%s): %s, %s ago; within it now"), c->name,
					 lim, fig, dur(s->t_last - tr->t_peak, t, sizeof(t)));
				evidence_of(tr, d, s, true, f->evidence, sizeof(f->evidence));
			}
			break;
		case CLS_WATCHING:
			/* Growth that is not over yet in a window of a minute or
			 * more: worth saying, not alarming. (A second's window fills
			 * at the next step; saying it would only be noise.) */
			if (d->kind != CLK_RATE || tr->growth == 0 || d->window_s < 60)
				break;
			n = emit(out, max, n, d->id, SEV_INFO, subj);
			if (k < max) {
				f = &out[k];
				snprintf(f->message, sizeof(f->message),
					 _("%s grew %llu in %s watched, of a %s window: under its limit (%s) "
					 "so far, not yet known to be within"), c->name, (unsigned long long)tr->growth,
					 dur(tr->span, t, sizeof(t)), window_words(d->window_s, w, sizeof(w)),
					 lim);
				evidence_of(tr, d, s, false, f->evidence, sizeof(f->evidence));
			}
			break;
		case CLS_BLIND:
			/* One finding per pinned counter (at its first blind limit),
			 * naming every limit it hides. */
			if (i > L->by_ctr[tr->ctr] && first_blind(L, tr->ctr) != i)
				break;
			n = emit(out, max, n, "counters.limit-blind", SEV_WARN, subj);
			if (k < max) {
				f = &out[k];
				char lims[320] = "";
				for (int j = i; j < L->ntracks && L->tracks[j].ctr == tr->ctr; j++)
					if (L->tracks[j].state == CLS_BLIND)
						fab_catf(lims, sizeof(lims), "%s%s", lims[0] ? _(" and ") : "",
							 ctr_limit_text(&ctr_limit_defs[L->tracks[j].def], lim,
									sizeof(lim)));
				int width = c->def ? c->def->width : 64;
				snprintf(f->message, sizeof(f->message),
					 _("%s is pinned at %llu (its %d-bit maximum): growth no longer shows, "
					 "so its limit (%s) cannot be judged"), c->name,
					 (unsigned long long)c->value, width, lims);
				snprintf(f->evidence, sizeof(f->evidence), "%s/%s = %llu = 2^%d-1", c->dir,
					 c->name, (unsigned long long)c->value, width);
				/* The one clearing command (port_pin_clear_cmd()): the
				 * Links pane, report links and links.errors print it too. */
				const struct fab_series *p = &s->ports[c->port];
				const struct fab_nic *mn = NULL;
				const struct fab_port *mp = s->model && p->port > 0 ?
					model_find_port(s->model, p->dev, p->port, &mn) : NULL;
				char cmd[160];
				if (mp)
					port_pin_clear_cmd(s->model, mn, mp, cmd, sizeof(cmd));
				else
					snprintf(cmd, sizeof(cmd), "perfquery -x -R -C %s -P %d",
						 FAB_SHQ(p->dev), p->port);
				snprintf(f->hint, sizeof(f->hint),
					 _("clear it with %s (as root; fabtop never clears counters), then its "
					 "limit can be judged again"), cmd);
				fab_strlcpy(f->layer, _(d->what), sizeof(f->layer));
				f = NULL;   /* its hint is the clearing, not the limit's */
			}
			break;
		default:
			break;
		}
		if (f) {
			fab_strlcpy(f->layer, _(d->what), sizeof(f->layer));
			hint_of(d, s, c, f->hint, sizeof(f->hint));
		}
	}
	return n;
}
