/*
 * fleet.c - the Fleet pane: the nodes of `fabtop fleet` (fleet.h) one a
 * row, those that stand out from their kind marked, sortable and
 * filterable; below the list the selected node: its facts, what sets it
 * apart from its kind (struct fleet_odd), or why it could not be read.
 * Enter (or a second click on the selected row) asks the shell to open the
 * node's capture in the other panes (view_ctx.fleet_open, tui.c);
 * Backspace there comes back here. The shell's `/` search (find) moves the
 * selection to the next row whose text as shown has the query. Without a
 * fleet (`fabtop`, `fabtop --root`) the pane says how to load one.
 *
 * The pane judges nothing: every verdict, count and outlier is the fleet's
 * (fleet_load), which took them from each node's report.
 *
 * State: v->sel is the selected node's index in the fleet (so it survives
 * sorting and filtering), v->sel_top the first list row in view, v->filter
 * 1 when only the nodes worth a look are listed; the rest in priv.
 *
 * Every text a person reads is translated (i18n.h) and laid out by display
 * width (view_pad, the table's wcwidth); the nodes' own words (host,
 * verdict, kind, firmware, the facts that set one apart) are their
 * reports' and stay as they are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/fleet.h"
#include "fabtop/i18n.h"
#include "fabtop/layout.h"
#include "fabtop/root.h"   /* fab_natcmp */
#include "fabtop/table.h"
#include "fabtop/util.h"
#include "fabtop/view.h"

#define GAP     2     /* between list columns */
#define PREFIX  2     /* "> " marks the selected row, also in text dumps */
#define LABEL_W 10    /* the detail's labels ("firmware"), by display width */

enum sort_key { S_ORDER, S_ODD, S_VERDICT, S_FINDINGS, S_PORTS, S_SLOWEST, S_HOST, S_KIND,
		S_FIRMWARE, S_TOPO, NSORT };

static const char *const sort_names[NSORT] = {
	[S_ORDER] = N_("as loaded"),   [S_ODD] = N_("odd first"),     [S_VERDICT] = N_("verdict"),
	[S_FINDINGS] = N_("findings"), [S_PORTS] = N_("ports down"),  [S_SLOWEST] = N_("slowest port"),
	[S_HOST] = N_("host"),         [S_KIND] = N_("kind"),         [S_FIRMWARE] = N_("firmware"),
	[S_TOPO] = N_("topology"),
};

struct fleet_pane {
	int *order;                   /* node indices as listed (sorted, filtered) */
	int n;                        /* how many are listed */
	int sort;                     /* enum sort_key */
	bool reverse;                 /* 'S' */
	int list_h;                   /* list rows drawn last, for PgUp/PgDn */
	int list_y;                   /* the list's first row in the pane's window, for clicks */
	int drawn_w;                  /* the width the list was laid out for last (find's rows) */
	int asked;                    /* the node Enter asked for last; -1 none */
	const struct view_ctx *c;     /* for the bodies, during a draw */
};

static struct fleet_pane *state(const struct view *v)
{
	return v->priv;
}

/* ---- what is listed, in which order ------------------------------------- */

static int verdict_rank(const struct fleet_node *n)
{
	if (n->error || !n->verdict || strcmp(n->verdict, "unknown") == 0)
		return 2;
	return strcmp(n->verdict, "ok") == 0 ? 0 : 1;
}

/* "mlx5_3/1 200 Gb/s" -> 200; -1 when the node has no usable port. */
static double slowest_gbps(const struct fleet_node *n)
{
	const char *sp = n->slowest ? strrchr(n->slowest, ' ') : NULL;
	const char *num = NULL;
	/* The number is the word before the unit. */
	if (sp && sp > n->slowest) {
		const char *b = sp - 1;
		while (b > n->slowest && b[-1] != ' ')
			b--;
		num = b;
	}
	return num ? strtod(num, NULL) : -1;
}

static int str_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b;   /* what a node lacks goes last */
	return fab_natcmp(a, b);
}

static const struct fleet *sort_fleet;   /* qsort's context: one sort at a time */
static int sort_by;

static int node_cmp(const void *pa, const void *pb)
{
	int ia = *(const int *)pa, ib = *(const int *)pb;
	const struct fleet_node *a = &sort_fleet->nodes[ia], *b = &sort_fleet->nodes[ib];
	int d = 0;
	switch (sort_by) {
	case S_ODD:
		d = (b->error != NULL) - (a->error != NULL);
		if (!d)
			d = (b->nodd > a->nodd) - (b->nodd < a->nodd);
		break;
	case S_VERDICT:
		d = verdict_rank(b) - verdict_rank(a);
		break;
	case S_FINDINGS:
		for (int s = 2; s >= 0 && !d; s--)
			d = b->sev[s] - a->sev[s];
		break;
	case S_PORTS:
		d = (b->ports_expected - b->ports_up) - (a->ports_expected - a->ports_up);
		break;
	case S_SLOWEST: {
		double x = slowest_gbps(a), y = slowest_gbps(b);
		d = (x > y) - (x < y);
		break;
	}
	case S_HOST:
		d = str_cmp(a->host, b->host);
		break;
	case S_KIND:
		d = str_cmp(a->kind, b->kind);
		break;
	case S_FIRMWARE:
		d = str_cmp(a->firmware, b->firmware);
		break;
	case S_TOPO:
		d = str_cmp(a->topo_fp, b->topo_fp);
		break;
	default:
		break;
	}
	return d ? d : (ia > ib) - (ia < ib);   /* ties keep the load order */
}

/* A node worth a look: unreadable, not ok, or unlike its kind. */
static bool worth_a_look(const struct fleet_node *n)
{
	return n->error || n->nodd || verdict_rank(n) != 0;
}

static bool listed(const struct fleet_pane *st, const struct view *v, const struct fleet_node *n)
{
	(void)st;
	return !v->filter || worth_a_look(n);
}

/* The listed nodes into st->order; the selection moves to the first one
 * when it is no longer listed. 0, or -1 out of memory. */
static int build(struct fleet_pane *st, struct view *v, const struct fleet *f)
{
	int *o = realloc(st->order, (f->n ? f->n : 1) * sizeof(*o));
	if (!o)
		return -1;
	st->order = o;
	st->n = 0;
	for (size_t i = 0; i < f->n; i++)
		if (listed(st, v, &f->nodes[i]))
			o[st->n++] = (int)i;
	sort_fleet = f;
	sort_by = st->sort;
	qsort(o, (size_t)st->n, sizeof(*o), node_cmp);
	if (st->reverse)
		for (int i = 0, j = st->n - 1; i < j; i++, j--) {
			int x = o[i];
			o[i] = o[j];
			o[j] = x;
		}
	bool found = false;
	for (int i = 0; i < st->n && !found; i++)
		found = o[i] == v->sel;
	if (!found && st->n)
		v->sel = o[0];
	return 0;
}

static int position(const struct fleet_pane *st, int node)
{
	for (int i = 0; i < st->n; i++)
		if (st->order[i] == node)
			return i;
	return -1;
}

/* ---- the list: a table (table.h) ------------------------------------------ */

enum { C_MARK, C_HOST, C_VERDICT, C_ODD, C_ERR, C_WARN, C_INFO, C_PORTS, C_SLOWEST,
       C_FIRMWARE, C_TOPO, C_KIND, NCOLS };

static const struct tbl_col node_cols[NCOLS] = {
	[C_MARK] = { .head = "", .min = 1 },
	[C_HOST] = { .head = N_("HOST"), .max = 28, .tight = true },
	[C_VERDICT] = { .head = N_("VERDICT") },
	[C_ODD] = { .head = N_("ODD"), .right = true },
	[C_ERR] = { .head = N_("ERR"), .right = true },
	[C_WARN] = { .head = N_("WARN"), .right = true },
	[C_INFO] = { .head = N_("INFO"), .right = true },
	[C_PORTS] = { .head = N_("PORTS"), .right = true },
	[C_SLOWEST] = { .head = N_("SLOWEST"), .max = 24 },
	[C_FIRMWARE] = { .head = N_("FIRMWARE"), .max = 24 },
	[C_TOPO] = { .head = N_("TOPO"), .max = 16 },
	[C_KIND] = { .head = N_("KIND"), .last_free = true },
};
/* Left out in this order when the list is wider than its window: each is
 * in the detail. */
static const int col_drop[] = { C_KIND, C_TOPO, C_INFO, C_FIRMWARE, C_SLOWEST };

/* The mark of a node: "?" unreadable, "!" unlike its kind, "" neither. */
static const char *node_mark(const struct fleet_node *n)
{
	return n->error ? "?" : n->nodd ? "!" : "";
}

/* Rows are the fleet's nodes in their own order, listed or not, so that
 * sorting and filtering never move a column. */
static void cell(const void *ctx, int row, int col, char *buf, size_t len)
{
	const struct fleet *f = ctx;
	const struct fleet_node *n = &f->nodes[row];
	bool unread = n->error != NULL;
	switch (col) {
	case C_MARK:
		snprintf(buf, len, "%s", node_mark(n));
		break;
	case C_HOST:
		snprintf(buf, len, "%s", n->host ? n->host : n->path);
		break;
	case C_VERDICT:
		snprintf(buf, len, "%s", n->verdict ? n->verdict : "unknown");
		break;
	case C_ODD:
		snprintf(buf, len, unread ? "-" : "%zu", n->nodd);
		break;
	case C_ERR:
	case C_WARN:
	case C_INFO:
		snprintf(buf, len, unread ? "-" : "%d", n->sev[col == C_ERR ? 2 : col == C_WARN ? 1 : 0]);
		break;
	case C_PORTS:
		if (unread)
			snprintf(buf, len, "-");
		else
			fleet_ports_text(n, buf, len);
		break;
	case C_SLOWEST:
		snprintf(buf, len, "%s", n->slowest ? n->slowest : unread ? "-" : _("none usable"));
		break;
	case C_FIRMWARE:
		snprintf(buf, len, "%s", n->firmware ? n->firmware : "-");
		break;
	case C_TOPO:
		snprintf(buf, len, "%s", n->topo_fp ? n->topo_fp : "-");
		break;
	case C_KIND:
		snprintf(buf, len, "%s", n->kind ? n->kind : "-");
		break;
	default:
		buf[0] = '\0';
	}
}

/* The columns with their headings in the interface's language. */
static const struct tbl_col *shown_cols(void)
{
	static struct tbl_col cols[NCOLS];
	for (int i = 0; i < NCOLS; i++) {
		cols[i] = node_cols[i];
		if (cols[i].head[0])
			cols[i].head = _(cols[i].head);
	}
	return cols;
}

static struct tbl node_tbl(const struct fleet *f)
{
	return (struct tbl){ .cols = shown_cols(), .ncols = NCOLS, .nrows = (int)f->n, .cell = cell,
			     .ctx = f, .drop = col_drop,
			     .ndrop = (int)(sizeof(col_drop) / sizeof(col_drop[0])),
			     .gap = GAP, .prefix = PREFIX };
}

/* The colour of a row: red unreadable or with errors, yellow unlike its
 * kind or with warnings, green otherwise. */
static int node_attr(const struct fleet_node *n)
{
	if (n->error || n->sev[2] > 0)
		return fab_attr(CP_ERROR);
	if (n->nodd || n->sev[1] > 0)
		return fab_attr(CP_WARN);
	return fab_attr(CP_OK);
}

/* One list line (the headings when row < 0); "> " marks the selected row,
 * also in text dumps, and its line is padded so the highlight spans it. */
static void row_text(const struct tbl *t, const struct tbl_fit *fit, int row, bool sel,
		     char *line, size_t len)
{
	tbl_line(t, fit, row, line, len);
	if (sel) {
		line[0] = '>';
		size_t n = strlen(line);
		int pad = fit->width - tbl_width(line);
		if (pad > 0 && n + (size_t)pad < len)
			snprintf(line + n, len - n, "%*s", pad, "");
	}
}

/* ---- the bodies ------------------------------------------------------------- */

static void empty_body(struct view_pen *p, const struct fab_model *m)
{
	int title = fab_attr(CP_TITLE);
	(void)m;
	view_pen_put(p, 0, _("No fleet loaded."), A_BOLD);
	view_pen_nl(p);
	view_pen_nl(p);
	view_pen_wrap(p, 0, _("This pane lists many nodes side by side: one row per node with its "
			      "verdict, findings, ports, slowest port, firmware and topology, the nodes "
			      "unlike the rest of their kind marked, and what sets each apart. Enter opens "
			      "a node's capture in the other panes."), 0);
	view_pen_nl(p);
	view_pen_put(p, 0, _("Load one:"), title);
	view_pen_nl(p);
	view_pen_put(p, 2, "fabtop fleet DIR", A_BOLD);
	view_pen_nl(p);
	view_pen_wrap(p, 6, _("a directory of captures (fabtop capture -o NODE.tar.gz on each node) "
			      "or of saved `fabtop report all --json` outputs"), 0);
	view_pen_put(p, 2, "fabtop fleet CAPTURE...", A_BOLD);
	view_pen_nl(p);
	view_pen_wrap(p, 6, _("the captures themselves"), 0);
}

static void head_body(struct view_pen *p, const struct fab_model *m)
{
	const struct fleet_pane *st = state(p->v);
	const struct fleet *f = st->c->fleet;
	char buf[512], nodes[64], kinds[64];
	int odd = 0, unread = 0, bad = 0;
	(void)m;
	for (size_t i = 0; i < f->n; i++) {
		const struct fleet_node *n = &f->nodes[i];
		odd += n->nodd > 0;
		unread += n->error != NULL;
		bad += !n->error && (n->sev[2] > 0 || n->sev[1] > 0);
	}
	snprintf(nodes, sizeof(nodes), P_("%zu node", "%zu nodes", f->n), f->n);
	snprintf(kinds, sizeof(kinds), P_("%zu kind", "%zu kinds", f->nkinds), f->nkinds);
	snprintf(buf, sizeof(buf), _("%s of %s: %d unlike their kind (!), %d unreadable (?), "
				     "%d with warnings or errors"), nodes, kinds, odd, unread, bad);
	view_pen_wrap(p, 0, buf, fab_attr(odd || unread || bad ? CP_WARN : CP_OK));
	snprintf(buf, sizeof(buf), st->reverse ? _("sort: %s, reversed (s next, S reverse)")
		 : _("sort: %s (s next, S reverse)"), _(sort_names[st->sort]));
	if (p->v->filter)
		fab_catf(buf, sizeof(buf), _("  o: only those worth a look (%d shown; Esc shows all)"), st->n);
	else
		fab_catf(buf, sizeof(buf), "%s", _("  o: odd only  /: find  Enter: open"));
	view_pen_wrap(p, 0, buf, fab_attr(CP_DIM));
}

/* The fleet's summary of the node's kind; NULL when it has none. */
static const struct fleet_kind *kind_of(const struct fleet *f, const struct fleet_node *n)
{
	for (size_t i = 0; f->kinds && n->kind && i < f->nkinds; i++)
		if (f->kinds[i].name && strcmp(f->kinds[i].name, n->kind) == 0)
			return &f->kinds[i];
	return NULL;
}

static void detail_line(struct view_pen *p, const char *name, const char *value, int attr)
{
	char buf[1024], label[64];
	snprintf(buf, sizeof(buf), "%s %s", view_pad(label, sizeof(label), name, LABEL_W, false), value);
	view_pen_wrap_hang(p, 0, LABEL_W + 1, buf, attr);
}

static void detail_body(struct view_pen *p, const struct fab_model *m)
{
	const struct fleet_pane *st = state(p->v);
	const struct view_ctx *c = st->c;
	const struct fleet *f = c->fleet;
	const struct fleet_node *n = &f->nodes[p->v->sel];
	char buf[1024];
	(void)m;
	if (st->asked == p->v->sel && c->fleet_msg[0]) {
		view_pen_wrap(p, 0, c->fleet_msg, fab_attr(CP_ERROR));
		view_pen_nl(p);
	}
	detail_line(p, _("path"), n->path, 0);
	if (n->error) {
		detail_line(p, _("unreadable"), n->error, fab_attr(CP_ERROR));
		view_pen_wrap(p, 0, _("Its verdict is unknown, never healthy: take its capture again."), 0);
		return;
	}
	const struct fleet_kind *k = kind_of(f, n);
	int same = 0;
	for (size_t i = 0; i < f->n; i++)
		same += f->nodes[i].kind && n->kind && strcmp(f->nodes[i].kind, n->kind) == 0;
	detail_line(p, _("kind"), n->kind ? n->kind : "-", 0);
	snprintf(buf, sizeof(buf), _("%s: %d error, %d warning, %d info"), n->verdict ? n->verdict : "unknown",
		 n->sev[2], n->sev[1], n->sev[0]);
	detail_line(p, _("verdict"), buf, node_attr(n) & ~(int)A_BOLD);
	if (n->ports_unknown)
		snprintf(buf, sizeof(buf), _("%d up of %d expected, %d whose state could not be read"),
			 n->ports_up, n->ports_expected, n->ports_unknown);
	else
		snprintf(buf, sizeof(buf), _("%d up of %d expected"), n->ports_up, n->ports_expected);
	if (n->ports_up < n->ports_expected) {   /* a warning: marked as well as coloured */
		char mk[sizeof(buf)];
		snprintf(mk, sizeof(mk), "%s %s", fab_sev_mark(SEV_WARN), buf);
		detail_line(p, _("ports"), mk, fab_attr(CP_WARN));
	} else
		detail_line(p, _("ports"), buf, 0);
	detail_line(p, _("slowest"), n->slowest ? n->slowest : _("no usable port"), 0);
	detail_line(p, _("firmware"), n->firmware ? n->firmware : "-", 0);
	detail_line(p, _("NCCL env"), n->env && n->env[0] ? n->env : _("none set"), 0);
	detail_line(p, _("topology"), n->topo_fp ? n->topo_fp : "-", 0);
	view_pen_nl(p);
	if (k && !k->compared) {
		/* fleet.h: a kind too small has no majority to tell a node from. */
		snprintf(buf, sizeof(buf), P_("Its kind has %zu node: too few for a majority to compare it against.",
					      "Its kind has %zu nodes: too few for a majority to compare it against.",
					      k->nodes), k->nodes);
		view_pen_wrap(p, 0, buf, fab_attr(CP_DIM));
	} else if (!n->nodd) {
		snprintf(buf, sizeof(buf), P_("Nothing sets it apart from its kind (%d node).",
					      "Nothing sets it apart from its kind (%d nodes).", same), same);
		view_pen_wrap(p, 0, buf, fab_attr(CP_OK));
	} else {
		snprintf(buf, sizeof(buf), P_("Unlike the majority of its kind (%d node):",
					      "Unlike the majority of its kind (%d nodes):", same), same);
		view_pen_put(p, 0, buf, fab_attr(CP_TITLE));
		view_pen_nl(p);
	}
	for (size_t i = 0; i < n->nodd; i++) {
		const struct fleet_odd *o = &n->odd[i];
		/* "links port rate: 200 vs 400 on 1999 of 2000" */
		snprintf(buf, sizeof(buf), _("%s %s: %s vs %s on %d of %d"), o->section ? o->section : "",
			 o->key ? o->key : "", o->value ? o->value : "absent",
			 o->majority ? o->majority : "absent", o->agree, o->of);
		view_pen_wrap_hang(p, 2, 4, buf, fab_attr(CP_WARN));
	}
	if (k && k->nnomaj) {
		snprintf(buf, sizeof(buf), P_("No value of %zu fact is held by a majority of its kind: "
					      "`fabtop fleet --batch` lists them.",
					      "No value of %zu facts is held by a majority of its kind: "
					      "`fabtop fleet --batch` lists them.", k->nnomaj), k->nnomaj);
		view_pen_wrap(p, 0, buf, fab_attr(CP_WARN));
	}
	view_pen_nl(p);
	if (view_fleet_is_report(n->path))
		view_pen_wrap(p, 0, _("A saved report, not a capture: it cannot be opened in the panes."),
			      fab_attr(CP_DIM));
	else if (c->fleet_shown == p->v->sel)
		view_pen_wrap(p, 0, _("Open in the other panes now: Enter goes there, Backspace comes back."),
			      fab_attr(CP_DIM));
	else
		view_pen_wrap(p, 0, _("Enter opens its capture in the other panes; Backspace comes back."),
			      fab_attr(CP_DIM));
}

struct list_view {
	const struct fleet *f;
	const struct fleet_pane *st;
	const struct tbl *t;
	const struct tbl_fit *fit;
};

static const struct list_view *list_now;   /* the list being drawn */

static void list_body(struct view_pen *p, const struct fab_model *m)
{
	const struct list_view *lv = list_now;
	char line[1024];
	(void)m;
	for (int r = 0; r < lv->st->n; r++) {
		int i = lv->st->order[r];
		bool sel = i == p->v->sel;
		int a = node_attr(&lv->f->nodes[i]);
		row_text(lv->t, lv->fit, i, sel, line, sizeof(line));
		view_pen_put(p, 0, line, sel ? a | fab_attr(CP_SELECT) : a);
		view_pen_nl(p);
	}
}

/* "── node0042 ───── " across the detail. */
static void draw_rule(WINDOW *win, const struct split *l, const char *name)
{
	const char *hl = fab_glyph("\u2500", "-");
	char buf[320];
	for (int x = 0; x < l->detail_w; x++)
		view_put(win, l->rule_y, l->detail_x + x, 0, hl, fab_attr(CP_DIM));
	snprintf(buf, sizeof(buf), " %s ", name);
	view_put(win, l->rule_y, l->detail_x + 2, 0, buf, fab_attr(CP_TITLE));
}

static void fleet_draw(struct view *v, WINDOW *win, struct view_ctx *c)
{
	struct fleet_pane *st = state(v);
	const struct fleet *f = c->fleet;
	int h, w;
	getmaxyx(win, h, w);
	if (!f || !st) {
		v->page_h = h;
		view_draw_body(v, win, c->m, empty_body);
		return;
	}
	st->c = c;
	if (build(st, v, f) != 0) {
		view_put(win, 0, 0, 0, _("Out of memory listing the fleet."), fab_attr(CP_ERROR));
		return;
	}
	/* The summary's height at this width, then everything under it. */
	struct view hv = { .priv = st, .filter = v->filter };
	struct view_pen vp = { .win = win, .v = &hv, .h = h, .w = w, .draw = false };
	head_body(&vp, c->m);
	int head_h = vp.row < h ? vp.row : h;

	struct list_view lv = { .f = f, .st = st };
	struct tbl t = node_tbl(f);
	struct tbl_fit fit;
	tbl_fit(&t, w, &fit);
	st->drawn_w = w;
	lv.t = &t;
	lv.fit = &fit;
	struct split_spec sp = { .top = head_h, .head = 1, .nrows = st->n ? st->n : 1, .titled = true,
				 .list_w = fit.width < w ? fit.width : w, .side_min_w = INT_MAX };
	struct split l = layout_split(h, w, &sp);

	WINDOW *sub = head_h > 0 ? derwin(win, head_h, w, 0, 0) : NULL;
	if (sub) {
		view_draw_body(&hv, sub, c->m, head_body);
		delwin(sub);
	}
	char line[1024];
	if (l.list_y - 1 < h && l.list_y >= 1) {
		row_text(&t, &fit, -1, false, line, sizeof(line));
		view_put(win, l.list_y - 1, 0, 0, line, fab_attr(CP_TITLE));
	}
	if (!st->n) {
		st->list_h = 0;
		if (l.list_y < h)
			view_put(win, l.list_y, PREFIX, 0, _("no node is worth a look (Esc shows all)"),
				 fab_attr(CP_DIM));
		v->content_h = h;
		v->content_w = w;
		return;
	}
	/* Keep the selection in view. */
	int pos = position(st, v->sel);
	if (pos < v->sel_top)
		v->sel_top = pos;
	if (l.list_h > 0 && pos >= v->sel_top + l.list_h)
		v->sel_top = pos - l.list_h + 1;
	if (v->sel_top > st->n - l.list_h)
		v->sel_top = st->n - l.list_h;
	if (v->sel_top < 0)
		v->sel_top = 0;
	st->list_h = l.list_h;
	st->list_y = l.list_y;
	sub = l.list_h > 0 && l.list_w > 0 ? derwin(win, l.list_h, l.list_w, l.list_y, 0) : NULL;
	if (sub) {
		struct view lvw = { .priv = st, .sel = v->sel, .top = v->sel_top };
		list_now = &lv;
		view_draw_body(&lvw, sub, c->m, list_body);
		list_now = NULL;
		v->sel_top = lvw.top;
		delwin(sub);
	}
	/* More nodes than rows: which ones are in view, at the headings' end. */
	if (st->n > l.list_h && l.list_y >= 1 && l.list_y - 1 < h) {
		char where[48];
		snprintf(where, sizeof(where), "%d-%d/%d", v->sel_top + 1, v->sel_top + l.list_h, st->n);
		int x = w - view_strwidth(where);
		row_text(&t, &fit, -1, false, line, sizeof(line));
		if (x > view_strwidth(line) + 1)
			view_put(win, l.list_y - 1, x, 0, where, fab_attr(CP_DIM));
	}
	struct view dv = { .priv = st, .sel = v->sel };
	sub = l.detail_h > 0 && l.detail_w > 0 ?
	      derwin(win, l.detail_h, l.detail_w, l.detail_y, l.detail_x) : NULL;
	if (sub) {
		view_draw_body(&dv, sub, c->m, detail_body);
		delwin(sub);
	}
	if (l.rule_y >= 0 && l.rule_y < h) {
		const struct fleet_node *n = &f->nodes[v->sel];
		draw_rule(win, &l, n->host ? n->host : n->path);
	}
	v->content_h = h;
	v->content_w = w;
}

/* ---- keys ------------------------------------------------------------------- */

static void move_to(struct view *v, const struct fleet_pane *st, int pos)
{
	if (!st->n)
		return;
	pos = pos < 0 ? 0 : pos >= st->n ? st->n - 1 : pos;
	v->sel = st->order[pos];
}

static bool fleet_key(struct view *v, int ch, struct view_ctx *c)
{
	struct fleet_pane *st = state(v);
	const struct fleet *f = c->fleet;
	if (!f || !st)
		return false;   /* one page of text: the shell's keys */
	if (build(st, v, f) != 0)
		return false;
	int pos = position(st, v->sel), page = st->list_h > 1 ? st->list_h - 1 : 1;
	switch (ch) {
	case KEY_UP:
	case 'k':
		move_to(v, st, pos - 1);
		return true;
	case KEY_DOWN:
	case 'j':
		move_to(v, st, pos + 1);
		return true;
	case KEY_PPAGE:
		move_to(v, st, pos - page);
		return true;
	case KEY_NPAGE:
		move_to(v, st, pos + page);
		return true;
	case KEY_HOME:
		move_to(v, st, 0);
		return true;
	case KEY_END:
		move_to(v, st, st->n - 1);
		return true;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (st->n && v->sel >= 0 && (size_t)v->sel < f->n) {
			st->asked = v->sel;
			c->fleet_open = v->sel;
		}
		return true;
	case 's':
		st->sort = (st->sort + 1) % NSORT;
		return true;
	case 'S':
		st->reverse = !st->reverse;
		return true;
	case 'o':
		v->filter = !v->filter;
		return true;
	case 'F':
	case 27:   /* Esc: everything listed again; with nothing to clear, the shell's */
		if (!v->filter)
			return ch == 'F';
		v->filter = 0;
		return true;
	default:
		return false;
	}
}

/* ---- search and mouse -------------------------------------------------------- */

struct find_ctx {
	const struct fleet_pane *st;
	const struct tbl *t;
	const struct tbl_fit *fit;
};

/* Listed row i as the list shows it (the marks, every column shown). */
static const char *row_as_shown(void *arg, int i, char *buf, size_t len)
{
	const struct find_ctx *fc = arg;
	return tbl_line(fc->t, fc->fit, fc->st->order[i], buf, len);
}

/* The shell's `/` (and n/N): the next listed node whose row has query. */
static bool fleet_find(struct view *v, struct view_ctx *c, const char *query, int dir)
{
	struct fleet_pane *st = state(v);
	const struct fleet *f = c->fleet;
	if (!f || !st || build(st, v, f) != 0)
		return false;
	struct tbl t = node_tbl(f);
	struct tbl_fit fit;
	tbl_fit(&t, st->drawn_w, &fit);
	struct find_ctx fc = { .st = st, .t = &t, .fit = &fit };
	int r = view_find_row(st->n, position(st, v->sel), dir, query, row_as_shown, &fc);
	if (r < 0)
		return false;
	v->sel = st->order[r];
	return true;
}

/* Button 1 on a node's row selects it; on the selected one, it opens it
 * as Enter does. */
static bool fleet_click(struct view *v, struct view_ctx *c, int y, int x)
{
	struct fleet_pane *st = state(v);
	(void)x;
	if (!c->fleet || !st || y < st->list_y || y >= st->list_y + st->list_h)
		return false;
	int pos = v->sel_top + (y - st->list_y);
	if (pos < 0 || pos >= st->n)
		return false;
	if (st->order[pos] == v->sel)
		return fleet_key(v, '\n', c);
	v->sel = st->order[pos];
	return true;
}

/* ---- the pane's life ------------------------------------------------------- */

static int fleet_open(struct view *v, struct view_ctx *c)
{
	struct fleet_pane *st = calloc(1, sizeof(*st));
	(void)c;
	if (!st)
		return -1;
	st->asked = -1;
	v->priv = st;
	return 0;
}

static void fleet_close(struct view *v, struct view_ctx *c)
{
	struct fleet_pane *st = state(v);
	(void)c;
	if (st)
		free(st->order);
	free(st);
	v->priv = NULL;
}

const struct view_ops fleet_view_ops = {
	.name = "fleet",
	.title = N_("Fleet"),
	.help = N_("Many nodes side by side (`fabtop fleet DIR` or `fabtop fleet CAPTURE...`): one row "
		   "per node with its verdict, the nodes' outliers (ODD), findings by severity, ports up "
		   "of expected, slowest usable port, HCA firmware, topology fingerprint and kind (GPU "
		   "and HCA models). ! marks a node unlike the majority of its kind, ? one that could not "
		   "be read (its verdict unknown, never healthy). Below the list, the selected node: "
		   "what sets it apart (this node's value vs the majority's, on how many of the kind), "
		   "or why it could not be read. Keys: Up/Down or j/k, PgUp/PgDn, Home/End select, and so "
		   "does a click; s sorts by the next column (odd first, verdict, findings, ports down, "
		   "slowest, host, kind, firmware, topology), S reverses; o lists only the nodes worth a "
		   "look, F or Esc shows all; / finds a row by its text (n/N the next/previous). Enter, "
		   "or a second click, opens the node's capture in the other panes (a saved report JSON "
		   "cannot be), the banner names it, and Backspace comes back here with the same node "
		   "selected."),
	.open = fleet_open,
	.close = fleet_close,
	.draw = fleet_draw,
	.key = fleet_key,
	.find = fleet_find,
	.click = fleet_click,
	.present = view_present_fleet,
};
