/*
 * counters.c - the Counters pane: per port, TX/RX Gb/s with a history
 * scaled to the line rate, % of line rate, packets/s and a state word
 * (STOPPED, RETRIES, ERRORS, CONGESTED, GONE, idle, ok); a banner that
 * names the ports whose traffic stopped and the retry counters that climb;
 * below, the QPs by state and the counters that changed in the last step
 * (every counter with `a`), worst first.
 *
 * The pane owns its sampler (live.h, in v->priv): it opens when the pane
 * is first shown (the first frame of the other panes pays nothing), steps
 * on the pane's clock through due()/tick() -- a live node in the background
 * once opened, so its history is there when the pane comes back; a
 * playback only while the pane shows, so a recording is not over unseen --
 * keeps its history across 'r' and closes with the pane. The port's facts
 * (link layer, line rate) are the model's. State in struct view: filter 0 or a device index + 1,
 * mode 1 to list every counter, top/left the body's scroll offsets,
 * page_h the body's height.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/counters.h"
#include "fabtop/ctr_limits.h"
#include "fabtop/i18n.h"
#include "fabtop/live.h"
#include "fabtop/lossless.h"
#include "fabtop/table.h"
#include "fabtop/view.h"
#include "fabtop/util.h"
#include "fabtop/watch.h"
#include "fabtop/vocab.h"

#define GAP           2     /* between columns */
#define MARK_W        2     /* a counter row's severity mark and a blank */
#define LABEL_W       10    /* "QPs" and notes */
#define SPARK_MIN     6
#define SPARK_MAX     40
#define CTR_SPARK     10    /* a counter's history */
#define NAME_MAX_W    34    /* longer counter names are cut */
#define MAX_NAMES     12    /* counter names the banner lists per kind */

/* ---- what the pane shows: a device filter over the sampler's ports ------ */

/* The pane's own state: its sampler. */
struct counters_state {
	struct fab_live live;
	bool opened;
	/* The counters list: its sort key (an index into sort_keys: 0 is the
	 * natural order, worst first) and direction, as htop's < > I. */
	int sort;
	bool sort_inv;
	/* The selected counter (an index into the sampler's ctrs; -1 none):
	 * kept by identity, so it stays on its counter as the list changes. */
	int sel_ctr;
	bool reveal;                  /* the next draw scrolls the selection into view */
	/* What the last draw showed, for clicks and the reveal: the list's
	 * counters in order, the body row of the first, the window row of the
	 * body's top. */
	int *shown;
	int nshown, shown_cap;
	int list_line0;
	int body_y;
	int sel_line;                 /* body row of the selected counter; -1 not shown */
};

static struct fab_live *live_of(const struct view *v)
{
	struct counters_state *st = v->priv;
	return st && st->opened ? &st->live : NULL;
}

static const struct fab_sampler *sampler_of(const struct view *v)
{
	const struct fab_live *l = live_of(v);
	return l && l->ok ? &l->s : NULL;
}

/* Whether series i is the first of its RDMA device (netdevs are not devices
 * of the filter: they follow their port's). */
static bool first_of_dev(const struct fab_sampler *s, int i)
{
	if (s->ports[i].kind != SER_RDMA)
		return false;
	for (int j = 0; j < i; j++)
		if (s->ports[j].kind == SER_RDMA && strcmp(s->ports[j].dev, s->ports[i].dev) == 0)
			return false;
	return true;
}

/* The k-th distinct device (0-based) in port order, NULL past the end. */
static const char *dev_at(const struct fab_sampler *s, int k)
{
	for (int i = 0; i < s->nports; i++)
		if (first_of_dev(s, i) && k-- == 0)
			return s->ports[i].dev;
	return NULL;
}

static int count_devs(const struct fab_sampler *s)
{
	int n = 0;
	for (int i = 0; i < s->nports; i++)
		n += first_of_dev(s, i);
	return n;
}

static const char *filter_dev(const struct fab_sampler *s, int filter)
{
	return s && filter > 0 ? dev_at(s, filter - 1) : NULL;
}

static bool dev_shown(const char *fdev, const char *dev)
{
	return !fdev || strcmp(fdev, dev) == 0;
}

/* Whether series i is shown under the filter: a netdev with its port. */
static bool series_shown(const struct fab_sampler *s, const char *fdev, int i)
{
	const char *dev = sampler_series_dev(s, i);
	return !fdev || (dev && strcmp(fdev, dev) == 0);
}

/* The series' name, as every view gives it (sampler_series_label()). */
static void port_label(const struct fab_series *p, char *buf, size_t len)
{
	sampler_series_label(p, buf, len);
}

/* The model's port behind a sampler series: its link layer and line rate
 * are facts of the model, read once; NULL for a port that appeared after
 * the snapshot (until 'r' reloads it). */
static const struct fab_port *model_port(const struct fab_model *m, const struct fab_series *p)
{
	return p->port > 0 ? model_find_port(m, p->dev, p->port, NULL) : NULL;
}

/* The line rate the share is of: port_line_gbps() (the port rate, or its
 * function's PCIe link when that carries less). */
static double line_gbps(const struct fab_model *m, const struct fab_series *p)
{
	const struct fab_nic *n = NULL;
	const struct fab_port *mp = p->port > 0 ? model_find_port(m, p->dev, p->port, &n) : NULL;
	return mp ? port_line_gbps(m, n, mp, NULL, 0) : 0;
}

/* ---- numbers as text ---------------------------------------------------- */

static void fmt_gbps(double v, char *buf, size_t len)
{
	snprintf(buf, len, v >= 1000 ? "%.0f" : "%.1f", v);
}

static void fmt_secs(double s, char *buf, size_t len)
{
	snprintf(buf, len, "%g s", s);
}

/* ---- sparklines ------------------------------------------------------- */

static const char *const spark_utf8[8] = {
	"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
};
static const char spark_ascii[] = " _.-=+*#";

static double ring_peak(const struct fab_sampler *s, const float *ring)
{
	double peak = 0;
	for (int i = 0; i < s->hist_len; i++) {
		double v = sampler_hist(s, ring, i);
		if (v > peak)
			peak = v;
	}
	return peak;
}

/* The last width entries of a ring, oldest left, blank where there is no
 * history yet. A zero is the lowest bar and anything above zero at least
 * the second, so "stopped" and "a trickle" look different. full <= 0
 * scales to the ring's own peak. */
static void sparkline(const struct fab_sampler *s, const float *ring, double full,
		      int width, char *buf, size_t len)
{
	bool utf8 = fab_utf8();
	int n = s->hist_len < width ? s->hist_len : width;
	int start = s->hist_len - n;
	size_t o = 0;
	if (full <= 0)
		full = ring_peak(s, ring);
	for (int i = 0; i < width - n && o + 1 < len; i++)
		buf[o++] = ' ';
	for (int i = 0; i < n && o + 4 < len; i++) {
		double v = sampler_hist(s, ring, start + i);
		int lvl = 0;
		if (v > 0 && full > 0) {
			lvl = (int)ceil(v / full * 7.0);
			lvl = lvl < 1 ? 1 : lvl > 7 ? 7 : lvl;
		}
		if (utf8) {
			size_t gl = strlen(spark_utf8[lvl]);
			memcpy(buf + o, spark_utf8[lvl], gl);
			o += gl;
		} else {
			buf[o++] = spark_ascii[lvl];
		}
	}
	buf[o] = '\0';
}

/* ---- port state: sampler_port_state(), words from vocab.h ---------------- */

static const struct {
	unsigned bit;
	enum fab_color color;
} state_colors[] = {
	{ PT_GONE, CP_ERROR }, { PT_STOPPED, CP_ERROR }, { PT_RETRIES, CP_ERROR },
	{ PT_ERRORS, CP_ERROR }, { PT_CONGESTED, CP_WARN }, { PT_IMPLAUSIBLE, CP_ERROR },
};

static unsigned port_state(const struct fab_sampler *s, const struct fab_series *p)
{
	return sampler_port_state(s, (int)(p - s->ports));
}

/* ---- the pinned lines: title and banner --------------------------------- */

static const char *sep(void)
{
	return fab_glyph(" \u00b7 ", " - ");
}

/* "00:01:05": a recorded time from the first sample. */
static void fmt_clock(double t, char *buf, size_t len)
{
	long v = t > 0 ? lround(t) : 0;
	snprintf(buf, len, "%02ld:%02ld:%02ld", v / 3600, v / 60 % 60, v % 60);
}

static void title_text(const struct fab_live *l, const char *fdev, char *buf, size_t len)
{
	const struct fab_sampler *s = &l->s;
	char a[32], at[32] = "-", total[32] = "-";
	size_t n;
	if (s->playback) {
		double t_at, t_total;
		if (sampler_playback_times(s, &t_at, &t_total) == 0) {
			fmt_clock(t_at, at, sizeof(at));
			fmt_clock(t_total, total, sizeof(total));
		}
		fmt_secs(s->pb_interval, a, sizeof(a));
		n = (size_t)snprintf(buf, len, "%s%s", l->ended ? _("playback ended") : _("playback"), sep());
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, _("sample %d/%d, %s of %s"),
				      s->pb_pos, s->pb_count, at, total);
		/* The filter before the pace: at 80 columns it must stay in view. */
		if (fdev && n < len) {
			n += (size_t)snprintf(buf + n, len - n, "%s", sep());
			if (n < len)
				n += (size_t)snprintf(buf + n, len - n, _("filter: %s"), fdev);
			fdev = NULL;
		}
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s", sep());
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, _("recorded %s apart"), a);
		if (l->speed != 1.0 && n < len) {
			n += (size_t)snprintf(buf + n, len - n, "%s", sep());
			if (n < len)
				n += (size_t)snprintf(buf + n, len - n, l->speed < 1 ? _("speed 1/%gx") :
						      _("speed %gx"), l->speed < 1 ? 1.0 / l->speed : l->speed);
		}
	} else {
		fmt_secs(l->interval, a, sizeof(a));
		n = (size_t)snprintf(buf, len, "%s%s", _("live"), sep());
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, _("every %s"), a);
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s", sep());
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, _("tick %ld"), s->tick);
	}
	if (fdev && n < len) {
		n += (size_t)snprintf(buf + n, len - n, "%s", sep());
		if (n < len)
			snprintf(buf + n, len - n, _("filter: %s"), fdev);
	}
}

static void draw_title(WINDOW *win, const struct view *v, int w)
{
	const struct fab_live *l = live_of(v);
	const char *hint = l && l->ok && l->s.playback ?
		_("space:pause [ ]:step Home/End a:all b:base f:dev <>:sort") :
		_("space:pause ]:step a:all b:base f:dev <>:sort");
	char buf[256];
	int x = 0;
	if (!l) {
		view_put(win, 0, 0, 0, _("Counters: starting the sampler"), fab_attr(CP_TITLE));
		return;
	}
	if (!l->ok) {
		view_put(win, 0, 0, 0, _("Counters: not sampling"), fab_attr(CP_TITLE));
		return;
	}
	if (l->paused) {
		const char *pw = _("PAUSED");
		view_put(win, 0, 0, 0, pw, A_REVERSE | A_BOLD);
		x = view_strwidth(pw);
		view_put(win, 0, x, 0, sep(), fab_attr(CP_TITLE));
		x += view_strwidth(sep());
	}
	title_text(l, filter_dev(&l->s, v->filter), buf, sizeof(buf));
	view_put(win, 0, x, 0, buf, fab_attr(CP_TITLE));
	x += view_strwidth(buf);
	int hw = view_strwidth(hint);
	if (x + GAP + hw <= w)
		view_put(win, 0, w - hw, 0, hint, fab_attr(CP_DIM));
}

/* Appends to a growing line without overflowing it. */
static void cat(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);
	if (n + 1 < len)
		snprintf(buf + n, len - n, "%s", s);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One kind of trouble the banner names: where, and which counters. */
struct trouble {
	unsigned kind;           /* PT_STOPPED or a counter kind (ctr_trouble) */
	const char *head;        /* "RETRIES GROWING" */
	const char *word;        /* "RETRIES": the short form, as in the state column */
	char ports[768];
	int nports;
	char names[512];
};

static void add_name(const char **names, int *nn, int *more, const char *name)
{
	for (int k = 0; k < *nn; k++)
		if (strcmp(names[k], name) == 0)
			return;
	if (*nn < MAX_NAMES)
		names[(*nn)++] = name;
	else
		(*more)++;
}

static void find_trouble(const struct fab_sampler *s, const char *fdev, struct trouble *t)
{
	const char *names[MAX_NAMES];
	int nn = 0, more = 0;
	char label[96];
	t->ports[0] = t->names[0] = '\0';
	t->nports = 0;
	for (int pi = 0; pi < s->nports; pi++) {
		const struct fab_series *p = &s->ports[pi];
		bool here = false;
		if (!series_shown(s, fdev, pi))
			continue;
		if (t->kind == PT_STOPPED) {
			here = p->port > 0 && (port_state(s, p) & PT_STOPPED);
		} else if (t->kind == PT_IMPLAUSIBLE) {
			for (int i = p->first_ctr; i < p->first_ctr + p->nctr && i < s->nctrs; i++)
				if (s->ctrs[i].last.flags & CTR_IMPLAUSIBLE) {
					here = true;
					add_name(names, &nn, &more, s->ctrs[i].name);
				}
		} else {
			for (int i = p->first_ctr; i < p->first_ctr + p->nctr && i < s->nctrs; i++)
				if (ctr_trouble(&s->ctrs[i]) == t->kind) {
					here = true;
					add_name(names, &nn, &more, s->ctrs[i].name);
				}
		}
		if (here) {
			port_label(p, label, sizeof(label));
			cat(t->ports, sizeof(t->ports), t->nports++ ? " " : "");
			cat(t->ports, sizeof(t->ports), label);
		}
	}
	qsort(names, (size_t)nn, sizeof(names[0]), cmp_str);
	for (int k = 0; k < nn; k++) {
		cat(t->names, sizeof(t->names), k ? " " : "");
		cat(t->names, sizeof(t->names), names[k]);
	}
	if (more) {
		snprintf(label, sizeof(label), _(" +%d more"), more);
		cat(t->names, sizeof(t->names), label);
	}
}

/* Rows a text takes when wrapped to width. */
static int wrapped_rows(const char *s, int width)
{
	int rows = 0, n;
	while (*s) {
		s = view_wrap_next(s, width, &n);
		rows++;
	}
	return rows;
}

/* The banner: traffic stopped, retries or errors growing (red), else
 * congestion growing (yellow); every port and counter by name when that
 * fits in max_rows, else how many ports each. Returns the rows it took. */
static int draw_banner(WINDOW *win, int y, const struct fab_sampler *s, const char *fdev,
		       int w, int max_rows)
{
	struct trouble t[] = {
		{ .kind = PT_STOPPED, .head = N_("TRAFFIC STOPPED"), .word = "STOPPED" },
		{ .kind = PT_RETRIES, .head = N_("RETRIES GROWING"), .word = "RETRIES" },
		{ .kind = PT_ERRORS, .head = N_("ERRORS GROWING"), .word = "ERRORS" },
		{ .kind = PT_CONGESTED, .head = N_("CONGESTION"), .word = "CONGESTED" },
		{ .kind = PT_IMPLAUSIBLE, .head = N_("IMPLAUSIBLE COUNTERS (no rate taken)"),
		  .word = "IMPLAUSIBLE" },
	};
	int nt = (int)(sizeof(t) / sizeof(t[0])), shown = 0;
	char full[4096] = "", brief[256] = "", buf[96];
	const char *prev = NULL;
	bool red = false, any = false;
	for (int i = 0; i < s->nports; i++)
		shown += s->ports[i].port > 0 && dev_shown(fdev, s->ports[i].dev);
	for (int k = 0; k < nt; k++) {
		find_trouble(s, fdev, &t[k]);
		if (!t[k].nports)
			continue;
		red = red || t[k].kind != PT_CONGESTED;
		cat(full, sizeof(full), any ? sep() : "");
		cat(full, sizeof(full), _(t[k].head));
		if (prev && strcmp(prev, t[k].ports) == 0)
			cat(full, sizeof(full), _(" on the same ports"));
		else if (t[k].nports == shown && shown > 2)
			cat(full, sizeof(full), _(" on every port"));
		else {
			char on[800];
			snprintf(on, sizeof(on), _(" on %s"), t[k].ports);
			cat(full, sizeof(full), on);
		}
		if (t[k].names[0]) {
			cat(full, sizeof(full), ": ");
			cat(full, sizeof(full), t[k].names);
		}
		snprintf(buf, sizeof(buf), "%s%s: ", any ? sep() : "", t[k].word);
		cat(brief, sizeof(brief), buf);
		snprintf(buf, sizeof(buf), P_("%d port", "%d ports", (unsigned long)t[k].nports),
			 t[k].nports);
		cat(brief, sizeof(brief), buf);
		prev = t[k].ports;
		any = true;
	}
	if (!any)
		return 0;
	/* The banner's severity by its mark too, the one every pane uses. */
	char body[sizeof(full)];
	const char *mark = fab_sev_mark(red ? SEV_ERROR : SEV_WARN);
	snprintf(body, sizeof(body), "%s %s", mark, full);
	fab_strlcpy(full, body, sizeof(full));
	snprintf(body, sizeof(body), "%s %s", mark, brief);
	fab_strlcpy(brief, body, sizeof(brief));
	int attr = red ? fab_attr(CP_ERROR) | A_REVERSE | A_BOLD
		       : fab_attr(CP_WARN) | A_REVERSE | A_BOLD;
	int width = w > 2 ? w - 1 : 1;
	const char *p = wrapped_rows(full, width) <= max_rows ? full : brief;
	int rows = 0;
	while (*p && rows < max_rows) {
		int n;
		const char *next = view_wrap_next(p, width, &n);
		char line[1024];
		snprintf(line, sizeof(line), " %.*s", n, p);
		attr_t oattr;
		short opair;
		wattr_get(win, &oattr, &opair, NULL);
		wattrset(win, attr);
		mvwhline(win, y + rows, 0, ' ', w);
		wattr_set(win, oattr, opair, NULL);
		view_put(win, y + rows, 0, 0, line, attr);
		rows++;
		p = next;
	}
	return rows;
}

/* ---- the port table ------------------------------------------------------ */

enum { P_PORT, P_LL, P_TX, P_TXH, P_RX, P_RXH, P_LOAD, P_LINE, P_PPS, P_STATE, NPCOLS };

/* The port table is a table (table.h): widths over every port, so a
 * filter does not move them; the histories take what is left. One unit
 * per column, named in its head: Gb/s for the traffic, % of the line
 * rate for the load, pkt/s for the packets; the line rate says its own. */
static const struct tbl_col pcols[NPCOLS] = {
	[P_PORT] = { .head = N_("PORT") },            [P_LL] = { .head = "LL" },
	[P_TX] = { .head = "TX Gb/s", .right = true }, [P_TXH] = { .head = "", .tight = true },
	[P_RX] = { .head = "RX Gb/s", .right = true }, [P_RXH] = { .head = "", .tight = true },
	[P_LOAD] = { .head = N_("LOAD"), .right = true }, [P_LINE] = { .head = N_("LINE"), .right = true },
	[P_PPS] = { .head = "TX/RX pkt/s", .right = true },
	[P_STATE] = { .head = N_("STATE"), .last_free = true },
};
/* Dropped in this order when the table is wider than the pane; the port
 * and its state word always stay. */
static const int pcol_drop[] = { P_LINE, P_PPS, P_LL, P_TXH, P_RXH, P_LOAD, P_RX, P_TX };

struct ptable {
	const struct fab_model *m;
	const struct fab_sampler *s;
	int rows[512];                /* the sampler's port of each table row */
	int nrows;
	int spark;                    /* the histories' width */
};

static void pcell(const struct fab_model *m, const struct fab_sampler *s, const struct fab_series *p,
		  int col, int spark, char *buf, size_t len)
{
	const struct fab_port *mp = model_port(m, p);
	double line = line_gbps(m, p);
	char a[32], b[32];
	bool rates = p->present && p->has_rates;
	buf[0] = '\0';
	switch (col) {
	case P_PORT:
		port_label(p, buf, len);
		break;
	case P_LL:
		snprintf(buf, len, "%s", mp ? ll_short(mp->ll) : "-");
		break;
	case P_TX:
	case P_RX:
		if (rates)
			fmt_gbps(col == P_TX ? p->tx_gbps : p->rx_gbps, buf, len);
		else
			snprintf(buf, len, "-");
		break;
	case P_TXH:
	case P_RXH: {
		const float *ring = col == P_TXH ? p->tx_hist : p->rx_hist;
		double full = line;
		if (full <= 0)   /* line rate unknown: both directions on one scale */
			full = fmax(ring_peak(s, p->tx_hist), ring_peak(s, p->rx_hist));
		if (spark > 0)
			sparkline(s, ring, full, spark, buf, len);
		break;
	}
	case P_LOAD:
		if (rates && line > 0)
			snprintf(buf, len, "%.0f%%", fmax(p->tx_gbps, p->rx_gbps) / line * 100);
		else
			snprintf(buf, len, "-");
		break;
	case P_LINE:
		fab_fmt_line_rate(line, buf, len);
		break;
	case P_PPS:
		if (!rates) {
			snprintf(buf, len, "-");
			break;
		}
		counter_si(p->tx_pps, a, sizeof(a));
		counter_si(p->rx_pps, b, sizeof(b));
		snprintf(buf, len, "%s/%s", a, b);
		break;
	case P_STATE:
		traffic_words(port_state(s, p), buf, len);
		break;
	}
}

static void ptable_cell(const void *ctx, int row, int col, char *buf, size_t len)
{
	const struct ptable *pt = ctx;
	pcell(pt->m, pt->s, &pt->s->ports[pt->rows[row]], col, pt->spark, buf, len);
}

/* The heads in the interface's language (the units' symbols stay). */
static const struct tbl_col *pcols_shown(void)
{
	static struct tbl_col cols[NPCOLS];
	for (int k = 0; k < NPCOLS; k++) {
		cols[k] = pcols[k];
		cols[k].head = pcols[k].head[0] ? _(pcols[k].head) : "";
	}
	return cols;
}

static struct tbl ptable_tbl(const struct ptable *pt)
{
	return (struct tbl){ .cols = pcols_shown(), .ncols = NPCOLS, .nrows = pt->nrows,
			     .cell = ptable_cell, .ctx = pt, .drop = pcol_drop,
			     .ndrop = (int)(sizeof(pcol_drop) / sizeof(pcol_drop[0])), .gap = GAP };
}

/* Every port but the device-level series; the histories take what the
 * other columns leave, within SPARK_MIN..SPARK_MAX, then the drop order. */
static void ptable_fit(struct ptable *pt, int budget, struct tbl_fit *f)
{
	pt->nrows = 0;
	for (int i = 0; i < pt->s->nports && pt->nrows < (int)(sizeof(pt->rows) / sizeof(pt->rows[0])); i++)
		if (pt->s->ports[i].port > 0)
			pt->rows[pt->nrows++] = i;
	/* The columns that fit beside the shortest histories stay; the
	 * histories then grow into what is left. */
	pt->spark = SPARK_MIN;
	struct tbl t = ptable_tbl(pt);
	tbl_fit(&t, budget, f);
	int rest = (budget - f->width - 2) / 2 + SPARK_MIN;
	pt->spark = rest > SPARK_MAX ? SPARK_MAX : rest < SPARK_MIN ? SPARK_MIN : rest;
	tbl_fit(&t, budget, f);
}

static void port_table(struct view_pen *p, const struct fab_model *m, const struct fab_sampler *s,
		       const char *fdev)
{
	struct ptable pt = { .m = m, .s = s };
	struct tbl_fit f;
	char buf[256];
	ptable_fit(&pt, p->w, &f);
	struct tbl t = ptable_tbl(&pt);
	for (int k = 0; k < NPCOLS; k++)
		if (f.on[k])
			view_pen_fixed(p, f.x[k], tbl_cell(&t, &f, -1, k, buf, sizeof(buf)),
				       fab_attr(CP_TITLE));
	view_pen_nl(p);
	for (int r = 0; r < pt.nrows; r++) {
		const struct fab_series *sp = &s->ports[pt.rows[r]];
		if (!dev_shown(fdev, sp->dev))
			continue;
		unsigned st = port_state(s, sp);
		for (int k = 0; k < NPCOLS; k++) {
			if (!f.on[k])
				continue;
			if (k == P_STATE) {
				/* The words (vocab.h), each in its bit's colour. */
				int sx = f.x[k];
				bool any = false;
				for (size_t i = 0; i < sizeof(state_colors) / sizeof(state_colors[0]); i++) {
					char w1[24];
					if (!(st & state_colors[i].bit))
						continue;
					traffic_words(state_colors[i].bit, w1, sizeof(w1));
					sx = view_pen_fixed(p, sx + (any ? 1 : 0), w1,
							    fab_attr(state_colors[i].color) | A_BOLD);
					any = true;
				}
				if (!any)
					view_pen_fixed(p, f.x[k], tbl_cell(&t, &f, r, k, buf, sizeof(buf)),
						       st & (PT_IDLE | PT_WAIT) ? fab_attr(CP_DIM) : fab_attr(CP_OK));
				continue;
			}
			int attr = k == P_PORT ? (int)A_BOLD :
				   (k == P_TXH || k == P_RXH) && (st & PT_STOPPED) ? fab_attr(CP_ERROR) : 0;
			view_pen_fixed(p, f.x[k], tbl_cell(&t, &f, r, k, buf, sizeof(buf)), attr);
		}
		view_pen_nl(p);
	}
}

/* ---- the lossless path: lossless_judge() ------------------------------- */

static const char *onoff(enum fab_tri t)
{
	return t == FAB_YES ? _("on") : t == FAB_NO ? _("off") : "?";
}

/* Per RoCE port with per-priority statistics: the priorities that carried
 * anything, have PFC, or are the job's; then what the judgement found.
 * Under the port table when some port could be judged (top); else one
 * line at the end of the pane saying why none could (!top). */
static void lossless_section(struct view_pen *p, const struct fab_model *m,
			     const struct fab_sampler *s, const char *fdev, bool top)
{
	int shown = 0, roce = 0, known = 0;
	char buf[256], a[32], b[32], c[32], why[200] = "";
	for (int i = 0; i < s->nports; i++) {
		struct lossless_port lp;
		if (!series_shown(s, fdev, i) || lossless_judge(s, m, i, &lp) != 0 || !lp.netdev[0])
			continue;
		roce++;
		known += lp.known;
		if (!lp.known && !why[0])
			snprintf(why, sizeof(why), "%s", lp.why);
	}
	if (!roce || top != (known > 0))
		return;
	view_pen_nl(p);
	if (!known) {   /* one line for all: the same reason, nothing judged */
		snprintf(buf, sizeof(buf), _("Lossless path: not judged on %d RoCE port(s): %s"), roce, why);
		view_pen_wrap(p, 0, buf, fab_attr(CP_DIM));
		return;
	}
	for (int i = 0; i < s->nports; i++) {
		struct lossless_port lp;
		if (!series_shown(s, fdev, i) || lossless_judge(s, m, i, &lp) != 0 || !lp.netdev[0])
			continue;
		if (!shown++) {
			view_pen_fixed(p, 0, _("Lossless path (RoCE: traffic per priority against PFC and ECN)"),
				       fab_attr(CP_TITLE));
			view_pen_nl(p);
		}
		int x = view_pen_fixed(p, 0, lp.port, A_BOLD);
		snprintf(buf, sizeof(buf), " %s", lp.netdev);
		x = view_pen_fixed(p, x, buf, 0);
		if (!lp.known) {
			snprintf(buf, sizeof(buf), "  %s", lp.why);
			view_pen_clip(p, x, x, buf, fab_attr(CP_DIM));
			view_pen_nl(p);
			continue;
		}
		snprintf(a, sizeof(a), "%lld", lp.job_tc.v);
		snprintf(b, sizeof(b), "%d", lp.job_prio);
		snprintf(c, sizeof(c), "%lld", lp.tc_override.v);
		char pl[32];
		snprintf(buf, sizeof(buf), _("  trust %s, PFC on %s; job traffic class %s -> priority %s"),
			 lp.trust[0] ? lp.trust : "?", fab_na(fab_prio_list(lp.pfc_mask, pl, sizeof(pl))),
			 lp.job_tc.ok ? a : "?", lp.job_prio >= 0 ? b : "?");
		if (lp.tc_override.ok) {
			char ov[64];
			snprintf(ov, sizeof(ov), _("; global traffic_class %s"), c);
			cat(buf, sizeof(buf), ov);
		}
		if (lp.flags & LL_OVERRIDE)   /* a warning: marked as well as coloured */
			x = view_pen_fixed(p, x, "  !", fab_attr(CP_WARN));
		view_pen_clip(p, x, x, buf, (lp.flags & LL_OVERRIDE) ? fab_attr(CP_WARN) : 0);
		view_pen_nl(p);
		for (int k = 0; k < LOSSLESS_NPRIO; k++) {
			const struct lossless_prio *pp = &lp.prio[k];
			if (!lossless_prio_shown(pp))
				continue;
			counter_si((double)pp->rx_pkts / lp.elapsed, a, sizeof(a));
			counter_si((double)pp->tx_pkts / lp.elapsed, b, sizeof(b));
			char pfc[16];
			view_pad(pfc, sizeof(pfc), onoff(pp->pfc), 3, false);
			snprintf(buf, sizeof(buf),
				 _("  prio %d  PFC %s ECN %s/%s  rx %s pkt/s, tx %s pkt/s  pauses rx %llu tx %llu  "
				   "discards %llu pkt"), k, pfc, onoff(pp->ecn_np), onoff(pp->ecn_rp),
				 a, b, (unsigned long long)pp->rx_pause, (unsigned long long)pp->tx_pause,
				 (unsigned long long)pp->discards);
			if (pp->rdma)
				cat(buf, sizeof(buf), "  RDMA");
			if (pp->job)
				cat(buf, sizeof(buf), _("  (the job's)"));
			int sv = pp->rdma && pp->pfc == FAB_NO ? SEV_ERROR :
				 (lp.idle_pfc_mask >> k & 1) ? SEV_WARN : -1;
			int attr = sv == SEV_ERROR ? fab_attr(CP_ERROR) | (int)A_BOLD :
				   sv == SEV_WARN ? fab_attr(CP_WARN) : 0;
			if (sv >= 0)   /* the colour's meaning, in the text too */
				view_pen_fixed(p, 0, fab_sev_mark((enum fab_severity)sv), attr);
			view_pen_clip(p, 2, 2, buf, attr);
			view_pen_nl(p);
		}
		if (lp.rdma_ambiguous) {
			view_pen_fixed(p, 2, _("which priority carries the RDMA cannot be told: others carry "
				       "as many non-RDMA bytes"), fab_attr(CP_DIM));
			view_pen_nl(p);
		}
		static const struct { unsigned bit; const char *say; bool error; } says[] = {
			{ LL_RDMA_NO_PFC, N_("RDMA traffic on a priority without PFC: not lossless"), true },
			{ LL_PFC_IDLE, N_("PFC on a priority that carries nothing"), false },
			{ LL_PAUSE_NO_CNP, N_("pauses received and no CNPs: congestion control not engaged"), false },
			{ LL_NOT_JOB_PRIO, N_("RDMA is not on the priority the job's NCCL_IB_TC maps to"), false },
			{ LL_OVERRIDE, N_("a global traffic_class overrides the job's NCCL_IB_TC"), false },
		};
		for (size_t k = 0; k < sizeof(says) / sizeof(says[0]); k++)
			if (lp.flags & says[k].bit) {
				int sa = says[k].error ? fab_attr(CP_ERROR) | (int)A_BOLD :
					 fab_attr(CP_WARN) | (int)A_BOLD;
				view_pen_fixed(p, 0, fab_sev_mark(says[k].error ? SEV_ERROR : SEV_WARN), sa);
				view_pen_fixed(p, 2, _(says[k].say), sa);
				view_pen_nl(p);
			}
	}
}

/* ---- the run's findings: watch_findings() ------------------------------ */

/* Whether a finding of the run is about what the filter shows: its port,
 * or a netdev of its port. */
static bool finding_shown(const struct fab_sampler *s, const char *fdev, const struct fab_finding *f)
{
	size_t n = fdev ? strlen(fdev) : 0;
	if (!fdev || (strncmp(f->subject, fdev, n) == 0 && (f->subject[n] == '\0' || f->subject[n] == '/')))
		return true;
	for (int k = 0; k < s->nports; k++)
		if (s->ports[k].kind == SER_NETDEV && strcmp(s->ports[k].dev, f->subject) == 0 &&
		    series_shown(s, fdev, k))
			return true;
	return false;
}

/* The run's findings f (watch_findings(), gathered once per draw). brief:
 * one line under the port table (how many, the ids of the worst); else
 * each in full (message, layer, evidence, next step). */
static void run_findings(struct view_pen *p, const struct fab_model *f,
			 const struct fab_sampler *s, const char *fdev, bool brief)
{
	int total = 0, worst = -1;
	char buf[512] = "";
	for (int i = 0; i < f->nfindings; i++)
		if (finding_shown(s, fdev, &f->findings[i])) {
			total++;
			if ((int)f->findings[i].sev > worst)
				worst = (int)f->findings[i].sev;
		}
	if (!total)
		return;
	if (brief) {
		/* The ids of the worst severity, each once: the details are at the end. */
		for (int i = 0; i < f->nfindings; i++) {
			const struct fab_finding *fi = &f->findings[i];
			if ((int)fi->sev != worst || !finding_shown(s, fdev, fi) || strstr(buf, fi->id))
				continue;
			fab_catf(buf, sizeof(buf), "%s%s", buf[0] ? " " : "", fi->id);
		}
		int x = view_pen_fixed(p, 0, _("findings"), A_BOLD);
		char head[64];
		snprintf(head, sizeof(head), _("%d over the run, at the end; %s:"), total,
			 sev_name((enum fab_severity)worst));
		x = view_pen_fixed(p, x < LABEL_W ? LABEL_W : x + 1, head, fab_sev_attr((enum fab_severity)worst));
		view_pen_clip(p, x + 1, x + 1, buf, 0);
		view_pen_nl(p);
		return;
	}
	view_pen_nl(p);
	snprintf(buf, sizeof(buf), _("Findings over the run (%d)"), total);
	view_pen_fixed(p, 0, buf, fab_attr(CP_TITLE));
	view_pen_nl(p);
	for (int i = 0; i < f->nfindings; i++)
		if (finding_shown(s, fdev, &f->findings[i]))
			view_pen_finding(p, 2, &f->findings[i]);
}

/* ---- QPs ------------------------------------------------------------------ */

#define QP_DEVS   64
#define QP_GROUPS 4     /* processes with broken QPs listed by name */
#define QP_LISTED 12    /* QP numbers listed per process */

static bool same_owner(const struct fab_qp *a, const struct fab_qp *b)
{
	return a->state == b->state && a->pid == b->pid && strcmp(a->comm, b->comm) == 0;
}

/* "ERR  pid 4242 python3, 12 QPs: mlx5_0/1 4200 4201, mlx5_1/1 4216 ...":
 * one line per process and state, since a hung job breaks many at once. */
static void bad_qp_groups(struct view_pen *p, const struct fab_qp_list *q, const char *fdev)
{
	int groups = 0, left = 0;
	char text[1024], buf[160];
	for (int i = 0; i < q->n; i++) {
		const struct fab_qp *g = &q->qps[i];
		if (!qp_state_bad(g->state) || !dev_shown(fdev, g->dev))
			continue;
		bool earlier = false;
		for (int j = 0; j < i && !earlier; j++)
			earlier = qp_state_bad(q->qps[j].state) && dev_shown(fdev, q->qps[j].dev) &&
				  same_owner(&q->qps[j], g);
		if (earlier)
			continue;
		int n = 0, listed = 0;
		const struct fab_qp *prev = NULL;
		char list[768] = "";
		for (int j = i; j < q->n; j++) {
			const struct fab_qp *x = &q->qps[j];
			if (!qp_state_bad(x->state) || !dev_shown(fdev, x->dev) || !same_owner(x, g))
				continue;
			n++;
			if (listed++ >= QP_LISTED)
				continue;
			if (!prev || strcmp(prev->dev, x->dev) != 0 || prev->port != x->port)
				snprintf(buf, sizeof(buf), "%s%s/%u %u", prev ? ", " : "", x->dev, x->port, x->lqpn);
			else
				snprintf(buf, sizeof(buf), " %u", x->lqpn);
			cat(list, sizeof(list), buf);
			prev = x;
		}
		if (groups++ >= QP_GROUPS) {
			left += n;
			continue;
		}
		if (g->pid)
			snprintf(text, sizeof(text), P_("%-4s pid %u%s%s, %d QP: %s%s", "%-4s pid %u%s%s, %d QPs: %s%s",
							  (unsigned long)n), qp_state_name(g->state),
				 g->pid, g->comm[0] ? " " : "", g->comm, n, list,
				 n > QP_LISTED ? " ..." : "");
		else
			snprintf(text, sizeof(text), P_("%-4s kernel %s, %d QP: %s%s", "%-4s kernel %s, %d QPs: %s%s",
							  (unsigned long)n), qp_state_name(g->state),
				 g->comm[0] ? g->comm : "?", n, list,
				 n > QP_LISTED ? " ..." : "");
		view_pen_wrap_hang(p, 2, 7, text, fab_attr(CP_ERROR));
	}
	if (left) {
		snprintf(buf, sizeof(buf), _("and %d more broken QPs of other processes"), left);
		view_pen_fixed(p, 7, buf, fab_attr(CP_ERROR));
		view_pen_nl(p);
	}
}

/* "QPs  36 RTS, 12 ERR on 8 devices", then the broken ones by process:
 * totals keep the healthy majority to one line. */
static void qp_section(struct view_pen *p, const struct fab_live *l, const char *fdev)
{
	const struct fab_qp_list *q = &l->qps;
	char text[512] = "", buf[96];
	const char *devs[QP_DEVS];
	int counts[QPS_ERR + 2] = { 0 }, ndev = 0, nbad = 0, total = 0;
	view_pen_fixed(p, 0, _("QPs"), A_BOLD);
	if (!q->n) {
		view_pen_wrap(p, LABEL_W, l->qp_note[0] ? l->qp_note : _("none"), fab_attr(CP_DIM));
		return;
	}
	for (int i = 0; i < q->n; i++) {
		const struct fab_qp *qp = &q->qps[i];
		if (!dev_shown(fdev, qp->dev))
			continue;
		int d = 0;
		while (d < ndev && strcmp(devs[d], qp->dev) != 0)
			d++;
		if (d == ndev && ndev < QP_DEVS)
			devs[ndev++] = qp->dev;
		/* The last slot counts states the kernel added after ERR. */
		counts[qp->state >= 0 && qp->state <= QPS_ERR ? qp->state : QPS_ERR + 1]++;
		nbad += qp_state_bad(qp->state);
		total++;
	}
	for (int st = 0, any = 0; st <= QPS_ERR + 1; st++) {
		if (!counts[st])
			continue;
		snprintf(buf, sizeof(buf), "%s%d %s", any++ ? ", " : "", counts[st],
			 st <= QPS_ERR ? qp_state_name(st) : "?");
		cat(text, sizeof(text), buf);
	}
	if (!total)
		snprintf(text, sizeof(text), _("none on %s"), fdev ? fdev : _("these devices"));
	else if (ndev > 1)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), _(" on %d devices"), ndev);
	else
		snprintf(text + strlen(text), sizeof(text) - strlen(text), " on %s", devs[0]);
	/* A capture holds one QP dump, not one per sample: say so. */
	if (!l->root->live)
		cat(text, sizeof(text), _(" (captured once)"));
	view_pen_wrap(p, LABEL_W, text, nbad ? fab_attr(CP_ERROR) : 0);
	if (nbad)
		bad_qp_groups(p, q, fdev);
}

/* ---- the counters list ------------------------------------------------ */

struct crow {
	const struct fab_ctr *c;
	int badness;
	int rank;                /* its place in the natural order (ties keep it) */
	double num;              /* the sort key: a number ... */
	char txt[64];            /* ... or a text, per the key's kind */
};

static int cmp_crow(const void *a, const void *b)
{
	const struct crow *x = a, *y = b;
	if (x->badness != y->badness)
		return y->badness - x->badness;
	int k = strcmp(x->c->name, y->c->name);
	return k ? k : x->c->port - y->c->port;
}

static bool ctr_changed(const struct fab_sampler *s, const struct fab_ctr *c)
{
	unsigned f = c->last.flags;
	return c->grew || (f & (CTR_RESET | CTR_WRAPPED | CTR_SATURATED | CTR_GONE | CTR_UNREADABLE)) ||
	       ((f & CTR_FIRST) && s->tick > 1);
}

/* The step's flags (vocab.h's words). At start every counter is new;
 * later, new means it (or its port) came back. */
static void ctr_flags(const struct fab_sampler *s, const struct fab_ctr *c, char *buf, size_t len)
{
	ctr_flag_words(c->last.flags & ~(s->tick > 1 ? 0u : (unsigned)CTR_FIRST), buf, len, NULL, NULL);
}

/* Flags before the history: at 80 columns they must not scroll out of view. */
enum { K_PORT, K_NAME, K_DELTA, K_RATE, K_SINCE, K_FLAG, K_LIMIT, K_HIST, K_LAYER, K_MEANING,
       NKCOLS };

static const char *const kcol_head[NKCOLS] = {
	N_("PORT"), N_("COUNTER"), N_("+DELTA"), N_("RATE"), N_("SINCE BASE"), N_("FLAG"), N_("LIMIT"),
	N_("HISTORY"), N_("LAYER"), N_("MEANING"),
};

/* The counter's state under its documented limits (ctr_limits.h). */
static enum ctr_limit_state limit_state(const struct fab_sampler *s, const struct fab_ctr *c)
{
	return s->limits ? ctr_limits_state(s->limits, (int)(c - s->ctrs), NULL, 0) : CLS_NONE;
}

static void kcell(const struct fab_sampler *s, const struct fab_ctr *c, int col, char *buf,
		  size_t len)
{
	char a[32];
	const struct ctr_step *st = &c->last;
	buf[0] = '\0';
	switch (col) {
	case K_PORT:
		port_label(&s->ports[c->port], buf, len);
		break;
	case K_NAME:
		snprintf(buf, len, "%.*s", NAME_MAX_W, c->name);
		break;
	case K_DELTA:
		if (!c->valid || (st->flags & (CTR_FIRST | CTR_RESET | CTR_GONE))) {
			snprintf(buf, len, "-");
		} else {
			counter_amount(c->def, (double)st->delta, false, a, sizeof(a));
			snprintf(buf, len, "+%s", a);
		}
		break;
	case K_RATE:
		if (c->def && c->def->gauge) {   /* a level: shown as is */
			if (c->valid)
				snprintf(buf, len, "=%s",
					 counter_amount(c->def, (double)c->value, false, a, sizeof(a)));
			else
				snprintf(buf, len, "-");
			break;
		}
		/* A saturated counter's rate is only a lower bound. */
		counter_rate_text(c->def, st, false, a, sizeof(a));
		snprintf(buf, len, "%s%s", st->has_rate && (st->flags & CTR_SATURATED) ? ">" : "", a);
		break;
	case K_SINCE:
		counter_amount(c->def, (double)c->since_baseline, false, buf, len);
		break;
	case K_HIST:
		sparkline(s, c->hist, 0, CTR_SPARK, buf, len);
		break;
	case K_FLAG:
		ctr_flags(s, c, buf, len);
		break;
	case K_LIMIT:
		snprintf(buf, len, "%s", ctr_limit_state_word(limit_state(s, c)));
		break;
	case K_LAYER:
		snprintf(buf, len, "%s", counter_layer_text(c->def));
		break;
	case K_MEANING:
		snprintf(buf, len, "%s", c->def ? _(c->def->meaning) : _("(not in table)"));
		break;
	}
}

/* How bad a counter's row is: SEV_ERROR (implausible, over its limit,
 * retries or errors growing), SEV_WARN (blind, was over, congestion), -1
 * (nothing to say). Its colour and its mark (the first column) both come
 * from it, so the mark says what the colour says. */
static int ctr_sev(const struct fab_sampler *s, const struct fab_ctr *c)
{
	unsigned bits = ctr_trouble(c);
	enum ctr_limit_state ls = limit_state(s, c);
	if ((c->last.flags & CTR_IMPLAUSIBLE) || ls == CLS_OVER)
		return SEV_ERROR;
	if (ls == CLS_BLIND || ls == CLS_WAS_OVER || (bits & PT_CONGESTED))
		return SEV_WARN;
	return bits ? SEV_ERROR : -1;
}

static int ctr_attr(const struct fab_sampler *s, const struct fab_ctr *c)
{
	unsigned bits = ctr_trouble(c);
	enum ctr_limit_state ls = limit_state(s, c);
	switch (ctr_sev(s, c)) {
	case SEV_ERROR:
		/* Growing retries or errors alone are red, not bold. */
		return (c->last.flags & CTR_IMPLAUSIBLE) || ls == CLS_OVER || !bits ?
		       (int)(fab_attr(CP_ERROR) | A_BOLD) : fab_attr(CP_ERROR);
	case SEV_WARN:
		return fab_attr(CP_WARN) | A_BOLD;
	}
	return ctr_changed(s, c) ? 0 : fab_attr(CP_DIM);
}

/* The sort keys < and > walk, in order: the natural order (worst
 * first), then the columns a counter can be ordered by. Numbers sort
 * largest first and text A to Z; I inverts either. */
static const int sort_keys[] = { -1, K_PORT, K_NAME, K_DELTA, K_RATE, K_SINCE, K_FLAG, K_LIMIT,
				 K_LAYER };
#define NSORT ((int)(sizeof(sort_keys) / sizeof(sort_keys[0])))

static bool key_numeric(int col)
{
	return col == K_DELTA || col == K_RATE || col == K_SINCE || col == K_PORT;
}

/* The key of a row: amounts in their base unit (bytes for data, as the
 * cells show them), a rate as the step's, the port in the sampler's order. */
static void crow_key(const struct fab_sampler *s, struct crow *r, int col)
{
	const struct fab_ctr *c = r->c;
	double sc = counter_scale(c->def);
	bool shown_delta = c->valid && !(c->last.flags & (CTR_FIRST | CTR_RESET | CTR_GONE));
	r->num = -INFINITY;      /* "-" sorts below every number */
	r->txt[0] = '\0';
	switch (col) {
	case K_PORT:
		r->num = -(double)c->port;   /* largest first would reverse the ports */
		break;
	case K_DELTA:
		if (shown_delta)
			r->num = (double)c->last.delta * sc;
		break;
	case K_RATE:
		if (c->def && c->def->gauge)
			r->num = c->valid ? (double)c->value : -INFINITY;
		else if (c->last.has_rate)
			r->num = c->last.rate;
		break;
	case K_SINCE:
		r->num = (double)c->since_baseline * sc;
		break;
	default:
		kcell(s, c, col, r->txt, sizeof(r->txt));
		break;
	}
}

static int sort_col, sort_desc;   /* for cmp_key: qsort has no context */

static int cmp_key(const void *a, const void *b)
{
	const struct crow *x = a, *y = b;
	int k = 0;
	if (key_numeric(sort_col))
		k = x->num < y->num ? -1 : x->num > y->num ? 1 : 0;
	else
		k = strcmp(x->txt, y->txt);
	if (sort_desc)
		k = -k;
	return k ? k : x->rank - y->rank;   /* stable: a tie keeps the natural order */
}

/* The rows of the list as shown: the counters the filter shows (changed
 * in the last step, or all), in the natural order, then by the sort key.
 * rows holds s->nctrs; returns how many. */
static int list_rows(const struct fab_sampler *s, const char *fdev, bool all,
		     const struct counters_state *st, struct crow *rows)
{
	int n = 0;
	for (int i = 0; i < s->nctrs; i++) {
		const struct fab_ctr *c = &s->ctrs[i];
		if (c->port < 0 || c->port >= s->nports || !series_shown(s, fdev, c->port))
			continue;
		if (all || ctr_changed(s, c))
			rows[n++] = (struct crow){ .c = c, .badness = counter_badness(c) };
	}
	if (n > 1)
		qsort(rows, (size_t)n, sizeof(*rows), cmp_crow);
	int col = st ? sort_keys[st->sort] : -1;
	for (int r = 0; r < n; r++) {
		rows[r].rank = r;
		if (col >= 0)
			crow_key(s, &rows[r], col);
	}
	if (col >= 0 && n > 1) {
		sort_col = col;
		/* Numbers largest first, the port in its order, text A to Z. */
		sort_desc = (key_numeric(col) ? 1 : 0) ^ (st->sort_inv ? 1 : 0);
		qsort(rows, (size_t)n, sizeof(*rows), cmp_key);
	}
	return n;
}

/* A column's head as shown: translated, with the sort mark when the list
 * is sorted by it. */
static const char *khead(const struct counters_state *st, int k, char *buf, size_t len)
{
	int col = st ? sort_keys[st->sort] : -1;
	bool desc = col >= 0 && ((key_numeric(col) ? 1 : 0) ^ (st->sort_inv ? 1 : 0));
	if (col == k)
		snprintf(buf, len, "%s%s", _(kcol_head[k]),
			 desc ? fab_glyph("\u25bc", "v") : fab_glyph("\u25b2", "^"));
	else
		snprintf(buf, len, "%s", _(kcol_head[k]));
	return buf;
}

/* "sort: RATE▼" or "sort: worst first": the header line names the key. */
static void sort_text(const struct counters_state *st, char *buf, size_t len)
{
	char h[64];
	int col = st ? sort_keys[st->sort] : -1;
	if (col < 0 && !(st && st->sort_inv))
		snprintf(buf, len, _("sort: %s"), _("worst first"));
	else if (col < 0)
		snprintf(buf, len, _("sort: %s"), _("mildest first"));
	else
		snprintf(buf, len, _("sort: %s"), khead(st, col, h, sizeof(h)));
}

static void ctr_list(struct view_pen *p, const struct fab_sampler *s, const char *fdev, bool all)
{
	struct counters_state *st = p->v->priv;
	struct crow *rows = s->nctrs > 0 ? malloc((size_t)s->nctrs * sizeof(*rows)) : NULL;
	int n = 0, w[NKCOLS];
	char buf[256], head[160], a[32], srt[96];
	if (rows)
		n = list_rows(s, fdev, all, st, rows);
	/* The natural order inverted is the mildest first. */
	if (st && sort_keys[st->sort] < 0 && st->sort_inv)
		for (int i = 0, j = n - 1; i < j; i++, j--) {
			struct crow t = rows[i];
			rows[i] = rows[j];
			rows[j] = t;
		}
	if (st && p->draw) {
		if (st->shown_cap < n) {
			int *ns = realloc(st->shown, (size_t)n * sizeof(*ns));
			if (ns) {
				st->shown = ns;
				st->shown_cap = n;
			}
		}
		st->nshown = 0;
		st->sel_line = -1;
	}
	fmt_secs(s->dt > 0 ? s->dt : s->playback ? s->pb_interval : 1.0, a, sizeof(a));
	if (all)
		snprintf(head, sizeof(head), _("All counters (%d)"), n);
	else if (s->tick > 1)
		snprintf(head, sizeof(head), _("Changed in the last %s (%d)"), a, n);
	else
		snprintf(head, sizeof(head), _("Changed since the last step (%d)"), n);
	sort_text(st, srt, sizeof(srt));
	int x = view_pen_fixed(p, 0, head, fab_attr(CP_TITLE));
	x = view_pen_fixed(p, x, sep(), fab_attr(CP_TITLE));
	x = view_pen_fixed(p, x, srt, fab_attr(CP_TITLE));
	x = view_pen_fixed(p, x, "  ", 0);
	view_pen_fixed(p, x, all ? _("a: changed only") : _("a: all counters"), fab_attr(CP_DIM));
	view_pen_nl(p);
	if (!n) {
		view_pen_fixed(p, 2, s->tick > 1 ? _("nothing changed") : _("the first step has no deltas yet"),
			       fab_attr(CP_DIM));
		view_pen_nl(p);
		free(rows);
		return;
	}
	for (int k = 0; k < NKCOLS; k++)
		w[k] = view_strwidth(khead(st, k, buf, sizeof(buf)));
	bool any_flag = false, any_limit = false;
	for (int r = 0; r < n; r++)
		for (int k = 0; k < NKCOLS; k++) {
			kcell(s, rows[r].c, k, buf, sizeof(buf));
			int cw = view_strwidth(buf);
			if (cw > w[k])
				w[k] = cw;
			any_flag = any_flag || (k == K_FLAG && buf[0]);
			any_limit = any_limit || (k == K_LIMIT && buf[0]);
		}
	/* The mark column, port and counter name stay put; the rest scrolls
	 * under them. */
	int fixed_w = MARK_W + w[K_PORT] + GAP + w[K_NAME];
	for (int r = -1; r < n; r++) {
		const struct fab_ctr *c = r >= 0 ? rows[r].c : NULL;
		int attr = c ? ctr_attr(s, c) : fab_attr(CP_TITLE);
		bool sel = c && st && st->sel_ctr == (int)(c - s->ctrs);
		if (sel)
			attr |= A_REVERSE;
		if (c && st && p->draw) {
			if (r == 0)
				st->list_line0 = p->row;
			if (st->nshown < st->shown_cap)
				st->shown[st->nshown++] = (int)(c - s->ctrs);
			if (sel)
				st->sel_line = p->row;
		}
		if (c) {
			int sv = ctr_sev(s, c);
			view_pen_fixed(p, 0, sv >= 0 ? fab_sev_mark((enum fab_severity)sv) : " ", attr);
		}
		for (int k = 0, cx = MARK_W; k < NKCOLS; k++) {
			if ((k == K_FLAG && !any_flag) || (k == K_LIMIT && !any_limit))
				continue;
			if (c)
				kcell(s, c, k, buf, sizeof(buf));
			else
				khead(st, k, buf, sizeof(buf));
			bool right = k == K_DELTA || k == K_RATE || k == K_SINCE;
			/* Widths are display columns (view_strwidth): CJK heads align. */
			int pad = right ? w[k] - view_strwidth(buf) : 0;
			int ka = attr;
			if (c && k == K_MEANING && !c->def)
				ka = fab_attr(CP_DIM);
			if (k <= K_NAME) {
				char cell[256];
				/* The selection's bar runs under the gap too. */
				if (sel)
					view_pad(cell, sizeof(cell), buf, w[k] + GAP, false);
				view_pen_fixed(p, cx, sel ? cell : buf, k == K_PORT && c ? ka | (int)A_BOLD : ka);
			} else
				view_pen_clip(p, cx + pad, fixed_w + GAP, buf, ka);
			cx += w[k] + GAP;
		}
		view_pen_nl(p);
	}
	free(rows);
}

/* ---- the pane ------------------------------------------------------------- */

static void body(struct view_pen *p, const struct fab_model *m)
{
	const struct fab_live *l = live_of(p->v);
	const struct fab_sampler *s = sampler_of(p->v);
	const char *fdev = filter_dev(s, p->v->filter);
	int nports = 0;
	if (!l) {
		view_pen_wrap(p, 0, _("The sampler starts when this pane is first shown."), fab_attr(CP_DIM));
		return;
	}
	if (!s) {
		view_pen_wrap(p, 0, l->err[0] ? l->err : _("the counters cannot be sampled here"),
			      fab_attr(CP_WARN) | A_BOLD);
		view_pen_nl(p);
		qp_section(p, l, NULL);
		return;
	}
	for (int i = 0; i < s->nports; i++)
		nports += s->ports[i].port > 0;
	if (!nports) {
		view_pen_wrap(p, 0, _("no RDMA devices on this node (nothing under "
			      "/sys/class/infiniband); `fabtop demo` lists scenarios with "
			      "recorded traffic"), fab_attr(CP_WARN) | A_BOLD);
		if (s->note[0] && !strstr(s->note, "no RDMA devices"))
			view_pen_wrap(p, 0, s->note, fab_attr(CP_DIM));
		view_pen_nl(p);
		qp_section(p, l, NULL);
		return;
	}
	struct fab_model run;   /* the run's findings (watch.h): once for both places */
	model_init(&run);
	watch_findings(s, m, &run);
	port_table(p, m, s, fdev);
	lossless_section(p, m, s, fdev, true);
	if (s->note[0]) {
		view_pen_fixed(p, 0, _("note"), A_BOLD);
		view_pen_wrap(p, LABEL_W, s->note, fab_attr(CP_DIM));
	}
	/* Counter files past the open-file limit, or ports not sampled: the
	 * sampler's one sentence (sampler_coverage_say()). */
	struct sampler_coverage cov;
	char say[512];
	if (!s->playback && (sampler_coverage(s, &cov), sampler_coverage_say(&cov, say, sizeof(say))[0])) {
		view_pen_fixed(p, 0, _("coverage"), A_BOLD);
		view_pen_wrap(p, LABEL_W, say, cov.unsampled_ports ? (int)(fab_attr(CP_WARN) | A_BOLD) :
			      fab_attr(CP_DIM));
	}
	run_findings(p, &run, s, fdev, true);
	/* Devices whose counters are never read (hazard.h), as the model says. */
	for (int i = 0; i < m->nnics; i++)
		if (m->nics[i].counters_skipped[0] && (!fdev || strcmp(fdev, m->nics[i].name) == 0)) {
			char buf[FAB_NAME_LEN + 320];
			snprintf(buf, sizeof(buf), _("%s: counters not read: %s"), m->nics[i].name,
				 m->nics[i].counters_skipped);
			view_pen_fixed(p, 0, _("skipped"), A_BOLD);
			view_pen_wrap(p, LABEL_W, buf, fab_attr(CP_WARN));
		}
	view_pen_nl(p);
	qp_section(p, l, fdev);
	view_pen_nl(p);
	ctr_list(p, s, fdev, p->v->mode != 0);
	lossless_section(p, m, s, fdev, false);
	run_findings(p, &run, s, fdev, false);
	model_free(&run);
}

static void counters_draw(struct view *v, WINDOW *win, struct view_ctx *c)
{
	const struct fab_model *m = c->m;
	const struct fab_sampler *s = sampler_of(v);
	int h, w, y = 1;
	getmaxyx(win, h, w);
	if (s && v->filter > 0 && !filter_dev(s, v->filter))
		v->filter = 0;
	draw_title(win, v, w);
	if (s && h > 1)
		y += draw_banner(win, y, s, filter_dev(s, v->filter), w, h >= 12 ? 2 : 1);
	struct view bv = *v;
	struct counters_state *st = v->priv;
	WINDOW *sub = h - y > 0 ? derwin(win, h - y, w, y, 0) : NULL;
	if (st)
		st->body_y = y;
	if (sub) {
		view_draw_body(&bv, sub, m, body);
		/* A search or a key moved the selection: bring it into view. */
		if (st && st->reveal && st->sel_line >= 0 &&
		    (st->sel_line < bv.top || st->sel_line >= bv.top + (h - y))) {
			bv.top = st->sel_line - (h - y) / 2;
			if (bv.top < 0)
				bv.top = 0;
			werase(sub);
			view_draw_body(&bv, sub, m, body);
		}
		if (st)
			st->reveal = false;
		delwin(sub);
	}
	v->top = bv.top;
	v->left = bv.left;
	v->page_h = h - y > 0 ? h - y : 0;
	/* The status bar counts pane rows: the pinned lines belong to every page. */
	v->content_h = bv.content_h + y;
	v->content_w = bv.content_w;
}

/* The list's rows as shown now (list_rows() with the pane's filter,
 * mode and sort); NULL when there is no list. The caller frees it. */
static struct crow *rows_now(const struct view *v, int *n)
{
	const struct fab_sampler *s = sampler_of(v);
	const struct counters_state *st = v->priv;
	struct crow *rows = s && s->nctrs > 0 ? malloc((size_t)s->nctrs * sizeof(*rows)) : NULL;
	*n = 0;
	if (!rows)
		return NULL;
	*n = list_rows(s, filter_dev(s, v->filter), v->mode != 0, st, rows);
	if (sort_keys[st->sort] < 0 && st->sort_inv)
		for (int i = 0, j = *n - 1; i < j; i++, j--) {
			struct crow t = rows[i];
			rows[i] = rows[j];
			rows[j] = t;
		}
	return rows;
}

/* The selected counter's row in rows, -1 when it is not listed. */
static int sel_row(const struct view *v, const struct crow *rows, int n)
{
	const struct counters_state *st = v->priv;
	const struct fab_sampler *s = sampler_of(v);
	for (int r = 0; s && r < n; r++)
		if ((int)(rows[r].c - s->ctrs) == st->sel_ctr)
			return r;
	return -1;
}

/* Up/Down move the selection once there is one; else they scroll. */
static bool move_sel(struct view *v, int dir)
{
	struct counters_state *st = v->priv;
	int n, r;
	if (!st || st->sel_ctr < 0)
		return false;
	struct crow *rows = rows_now(v, &n);
	if (!rows || !n) {
		free(rows);
		return false;
	}
	r = sel_row(v, rows, n);
	r = r < 0 ? 0 : r + dir < 0 ? 0 : r + dir >= n ? n - 1 : r + dir;
	st->sel_ctr = (int)(rows[r].c - sampler_of(v)->ctrs);
	st->reveal = true;
	free(rows);
	return true;
}

/* Seek in a playback: sample pos (clamped); live roots have no past. */
static void seek(struct fab_live *l, int pos, struct view_ctx *c)
{
	if (l && l->ok && l->s.playback)
		live_seek(l, pos, view_now(c));
}

static bool counters_key(struct view *v, int ch, struct view_ctx *c)
{
	struct fab_live *l = live_of(v);
	struct counters_state *st = v->priv;
	const struct fab_sampler *s = sampler_of(v);
	bool playback = s && s->playback;
	switch (ch) {
	case ' ':
	case 'p':
		if (l && l->ok)
			live_toggle_pause(l);
		return true;
	case '+':
	case '=':
	case '-':
	case '_':
		if (l && l->ok)
			live_faster(l, ch == '+' || ch == '=');
		return true;
	case ']':   /* one step forward: the next sample, or a read now */
		if (playback) {
			seek(l, l->s.pb_pos + 1, c);
		} else if (l) {
			live_request_step(l);
			/* A live read measures over time: on a virtual clock, let an
			 * interval pass (the shell ticks the step after the key). */
			view_clock_pass(c, l->interval);
		}
		return true;
	case '[':   /* one sample back: a live root has nothing recorded */
		if (playback)
			seek(l, l->s.pb_pos - 1, c);
		return true;
	case KEY_HOME:
	case KEY_END:
		if (playback) {
			seek(l, ch == KEY_HOME ? 1 : l->s.pb_count, c);
			return true;
		}
		return view_detail_key(v, ch);
	case '<':
	case '>':
	case KEY_F(6):
		if (st) {
			int d = ch == '<' ? NSORT - 1 : 1;
			st->sort = (st->sort + d) % NSORT;
			st->reveal = st->sel_ctr >= 0;
		}
		return true;
	case 'I':
		if (st) {
			st->sort_inv = !st->sort_inv;
			st->reveal = st->sel_ctr >= 0;
		}
		return true;
	case 'b':
		if (l)
			live_baseline(l);
		return true;
	case 'a':
		v->mode = !v->mode;
		v->top = 0;
		if (st)
			st->reveal = st->sel_ctr >= 0;
		return true;
	case 'f': {
		int n = s ? count_devs(s) : 0;
		v->filter = n ? (v->filter + 1) % (n + 1) : 0;
		v->top = 0;
		return true;
	}
	/* The body below the pinned lines scrolls (or the selection moves);
	 * the next draw clamps. */
	case KEY_UP:
		if (!move_sel(v, -1))
			v->top = v->top > 0 ? v->top - 1 : 0;
		return true;
	case KEY_DOWN:
		if (!move_sel(v, 1))
			v->top++;
		return true;
	default:
		return view_detail_key(v, ch);
	}
}

/* ---- search, click, pick ------------------------------------------------ */

struct find_ctx {
	const struct fab_sampler *s;
	const struct crow *rows;
};

/* A row's text as shown: its cells, one space apart. */
static const char *row_text(void *arg, int i, char *buf, size_t len)
{
	const struct find_ctx *f = arg;
	char cell[256];
	size_t o = 0;
	buf[0] = '\0';
	for (int k = 0; k < NKCOLS && o < len; k++) {
		if (k == K_HIST)
			continue;
		kcell(f->s, f->rows[i].c, k, cell, sizeof(cell));
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", cell);
	}
	return buf;
}

static bool counters_find(struct view *v, struct view_ctx *c, const char *query, int dir)
{
	struct counters_state *st = v->priv;
	const struct fab_sampler *s = sampler_of(v);
	int n;
	(void)c;
	if (!st || !s)
		return false;
	struct crow *rows = rows_now(v, &n);
	if (!rows)
		return false;
	struct find_ctx f = { s, rows };
	int r = view_find_row(n, sel_row(v, rows, n), dir, query, row_text, &f);
	if (r >= 0) {
		st->sel_ctr = (int)(rows[r].c - s->ctrs);
		st->reveal = true;
	}
	free(rows);
	return r >= 0;
}

static bool counters_click(struct view *v, struct view_ctx *c, int y, int x)
{
	struct counters_state *st = v->priv;
	(void)c;
	(void)x;
	if (!st || !sampler_of(v) || y < st->body_y)
		return false;
	int r = y - st->body_y + v->top - st->list_line0;
	if (r < 0 || r >= st->nshown)
		return false;
	/* A second click acts as Enter: the pane has nothing to open. */
	st->sel_ctr = st->shown[r];
	return true;
}

static bool counters_pick(struct view *v, struct view_ctx *c, struct fab_pick *out)
{
	const struct counters_state *st = v->priv;
	const struct fab_sampler *s = sampler_of(v);
	(void)c;
	if (!st || !s || st->sel_ctr < 0 || st->sel_ctr >= s->nctrs)
		return false;
	const struct fab_ctr *k = &s->ctrs[st->sel_ctr];
	const struct fab_series *p = &s->ports[k->port];
	memset(out, 0, sizeof(*out));
	out->kind = PICK_COUNTER;
	fab_strlcpy(out->dev, p->dev, sizeof(out->dev));
	out->port = p->port > 0 ? p->port : 0;
	fab_strlcpy(out->name, k->name, sizeof(out->name));
	if (out->port)
		snprintf(out->label, sizeof(out->label), _("%s on %s port %d"), k->name, p->dev, p->port);
	else
		snprintf(out->label, sizeof(out->label), _("%s on %s"), k->name, p->dev);
	return true;
}

/* ---- the pane's life and its sampler ---------------------------------------- */

static int counters_open(struct view *v, struct view_ctx *c)
{
	(void)c;
	struct counters_state *st = calloc(1, sizeof(*st));
	v->priv = st;
	if (!st)
		return -1;
	st->sel_ctr = -1;
	st->sel_line = -1;
	return 0;
}

static void counters_close(struct view *v, struct view_ctx *c)
{
	struct counters_state *st = v->priv;
	(void)c;
	if (st && st->opened)
		live_close(&st->live);
	if (st)
		free(st->shown);
	free(st);
	v->priv = NULL;
}

/* The sampler opens the first time the pane shows; a failure is shown in it. */
static void counters_show(struct view *v, struct view_ctx *c)
{
	struct counters_state *st = v->priv;
	if (!st || st->opened)
		return;
	live_open(&st->live, c->root, view_now(c));
	/* The ports' line rates bound what a step can be (counters.h). */
	sampler_use_model(&st->live.s, c->m);
	st->opened = true;
}

/* The model was collected anew ('r'): the ports' line rates with it. */
static void counters_reload(struct view *v, struct view_ctx *c)
{
	struct counters_state *st = v->priv;
	if (st && st->opened)
		sampler_use_model(&st->live.s, c->m);
}

/* A live node is sampled in the background once opened; a playback moves
 * only while its pane shows. */
static double counters_due(struct view *v, struct view_ctx *c)
{
	struct fab_live *l = live_of(v);
	(void)c;
	if (!l || (l->s.playback && !v->current))
		return -1;
	return live_next(l);
}

static bool counters_tick(struct view *v, struct view_ctx *c)
{
	struct fab_live *l = live_of(v);
	return l && live_tick(l, view_now(c));
}

const struct view_ops counters_view_ops = {
	.name = "counters",
	.title = N_("Counters"),
	/* xgettext:no-c-format */
	.help = N_("Live counters of every RDMA port, or a capture's recorded samples played "
		"back at their recorded pace. Per port: TX and RX in Gb/s (port_xmit_data and "
		"port_rcv_data count 4-octet words) with their history against the line rate, "
		"the share of the line rate, packets/s and a state: STOPPED (it moved traffic "
		"earlier and now under 1% of its peak), RETRIES (a retry or loss counter such "
		"as local_ack_timeout_err or packet_seq_err grew in the last step), ERRORS (a "
		"link or physical error counter grew), CONGESTED (CNPs, ECN marks, "
		"port_xmit_wait or discards grew), GONE (the port vanished), idle (never moved "
		"traffic), ok. The netdev of each RoCE port adds its ethtool statistics (what "
		"ethtool -S prints: pauses per priority, discards, pre-FEC bit errors, PCIe "
		"stalls), read through one kept-open socket; they count for their port. "
		"Lossless path: per priority, the packets, pauses and discards over the run "
		"against PFC and ECN, the trust mode, a global traffic_class and the job's "
		"NCCL_IB_TC; RDMA on a priority without PFC, PFC on a priority that carries "
		"nothing and pauses without CNPs are findings. Findings over the run: the "
		"lossless path, the counters' documented limits (the LIMIT column: over, was "
		"over, blind when pinned, watching) and PCIe over time (AER errors, link "
		"changes, a link below capability under load). "
		"A banner names the ports and counters. Below: the QPs by state "
		"(ERR and SQE ones with their process), and the counters that changed in the "
		"last step, worst first, with +delta, rate, growth since the baseline, history, "
		"flags (RESET, WRAP, PINNED: at its maximum, so the rate is a lower bound or, once "
		"stuck there, none: growth no longer shows; HELD: hw_counters not re-read before "
		"their lifespan; GONE, NEW), "
		"the layer and the meaning from the counter table. Layer: link and transport, "
		"as they happen. Units: every amount carries its own (data in bytes, B, "
		"kB, GB; data rates in bits/s, Gb/s, as port rates are given; pkt, pkt/s; ev for "
		"events); the port table's heads name theirs. Keys: space or p pause/resume; ] one "
		"step forward (while paused too); playback: [ one sample back, Home the first "
		"sample, End the last (the title says where: sample 12/60, 00:00:11 of 00:00:59); "
		"+/- faster/slower (live: the interval, 0.25 s to 60 s, from the settings' "
		"interval; playback: the speed, 1/4x to 16x); < and > (or F6) the column the "
		"counters are sorted by, I inverts it (the head shows it with an arrow); / search "
		"and n/N select a counter, as does a click; a all counters or changed only; b new "
		"baseline; f filter by device (again for the next), F or Esc all; Up/Down move "
		"the selection (or scroll), PgUp/PgDn, Home/End (live) and Left/Right scroll."),
	.open = counters_open,
	.close = counters_close,
	.show = counters_show,
	.reload = counters_reload,
	.draw = counters_draw,
	.key = counters_key,
	.due = counters_due,
	.tick = counters_tick,
	.find = counters_find,
	.click = counters_click,
	.pick = counters_pick,
};
