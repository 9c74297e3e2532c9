/*
 * links.c - the Links pane: every HCA port on one line, as ibstat and
 * ibdev2netdev would show it together, coloured by its worst finding; below
 * the list (beside it on wide terminals) the selected port in detail: HCA,
 * PCIe, verbs access, port, netdev, RoCE QoS, GIDs, error counters and the
 * findings about it.
 *
 * State in struct view: sel is the selected port (its row over all ports in
 * the model's order, whatever the sort and the filter: the selection stays
 * on the port when the list is sorted again), sel_top the first list line in
 * view, filter 0 or the NIC index + 1, top/left the detail's scroll
 * offsets, page_h its height. In v->priv (struct links_state): the sort
 * (htop's keys: < and > choose the column, I inverts), the detail item in
 * focus (Enter steps through the port's findings and RoCE settings, for
 * `fabtop learn`'s answers) and where the last draw put the list.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/counters.h"
#include "fabtop/i18n.h"
#include "fabtop/layout.h"
#include "fabtop/table.h"
#include "fabtop/util.h"
#include "fabtop/view.h"
#include "fabtop/vocab.h"

#define SIDE_MIN_W   160   /* from this width the detail goes beside the list */
#define DETAIL_MIN_W 60    /* what the detail keeps when beside the list */
#define LABEL_W      10    /* the detail's label column */
#define GAP          2     /* between list columns */
#define PREFIX       2     /* "> " marks the selected row, also in text dumps */
#define TO_FINDINGS  VIEW_TO_END   /* End: the next draw goes to the findings */
#define CGAP         2     /* between columns of error counters */

/* ---- rows: one per port; a device without ports still gets one --------- */

struct row {
	const struct fab_nic *n;
	const struct fab_port *pt;    /* NULL: a device without ports */
};

/* Ports this pane shows; never past the model's array. */
static int nic_ports(const struct fab_nic *n)
{
	return n->nports < 0 ? 0 : n->nports > FAB_MAX_PORTS ? FAB_MAX_PORTS : n->nports;
}

static int nic_rows(const struct fab_nic *n)
{
	return nic_ports(n) > 0 ? nic_ports(n) : 1;
}

static int total_rows(const struct fab_model *m)
{
	int t = 0;
	for (int i = 0; i < m->nnics; i++)
		t += nic_rows(&m->nics[i]);
	return t;
}

static struct row row_at(const struct fab_model *m, int g)
{
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *n = &m->nics[i];
		if (g < nic_rows(n))
			return (struct row){ n, nic_ports(n) ? &n->ports[g] : NULL };
		g -= nic_rows(n);
	}
	return (struct row){ NULL, NULL };
}

/* The rows the filter shows, [*first, *first + *n): a filter is one NIC. */
static void shown_range(const struct fab_model *m, int filter, int *first, int *n)
{
	*first = 0;
	*n = total_rows(m);
	if (filter < 1 || filter > m->nnics)
		return;
	for (int i = 0; i < filter - 1; i++)
		*first += nic_rows(&m->nics[i]);
	*n = nic_rows(&m->nics[filter - 1]);
}

static void port_name(const struct row *r, char *buf, size_t len)
{
	fab_subject(r->n->name, r->pt ? r->pt->num : 0, buf, len);
}

/* ---- findings about a port: its own ("mlx5_0/1") and its device's ------- */

static bool about(const struct fab_finding *f, const struct row *r)
{
	char name[FAB_NAME_LEN + 16];
	if (strcmp(f->subject, r->n->name) == 0)
		return true;
	port_name(r, name, sizeof(name));
	return r->pt && strcmp(f->subject, name) == 0;
}

/* The worst finding about a row (the first of equals), NULL when none. */
static const struct fab_finding *worst(const struct fab_model *m, const struct row *r, int *count)
{
	const struct fab_finding *w = NULL;
	*count = 0;
	for (int i = 0; i < m->nfindings; i++) {
		const struct fab_finding *f = &m->findings[i];
		if (!about(f, r))
			continue;
		(*count)++;
		if (!w || f->sev > w->sev)
			w = f;
	}
	return w;
}

/* A finding about any HCA or HCA port. */
static bool about_any(const struct fab_model *m, const struct fab_finding *f)
{
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *n = &m->nics[i];
		for (int k = 0; k < nic_rows(n); k++) {
			struct row r = { n, nic_ports(n) ? &n->ports[k] : NULL };
			if (about(f, &r))
				return true;
		}
	}
	return false;
}


/* ---- values as text: N/A when unknown, never a made-up zero ------------- */

static const char *int_str(fab_int v, const char *fmt, char *buf, size_t len)
{
	if (v.ok)
		snprintf(buf, len, fmt, v.v);
	else
		snprintf(buf, len, "N/A");
	return buf;
}


static int port_gids(const struct fab_port *pt)
{
	return pt->ngids < 0 ? 0 : pt->ngids > FAB_MAX_GIDS ? FAB_MAX_GIDS : pt->ngids;
}

/* The IPv4 address of the first RoCE v2 GID: what RoCE peers address. */
static const struct fab_gid *roce_v2_ipv4(const struct fab_port *pt)
{
	for (int g = 0; g < port_gids(pt); g++)
		if (pt->gids[g].ipv4 && strcmp(pt->gids[g].type, "RoCE v2") == 0)
			return &pt->gids[g];
	return NULL;
}

/* ---- the port list: a table (table.h), sorted ---------------------------- */

enum { C_PORT, C_STATE, C_PHYS, C_RATE, C_LINE, C_LAYER, C_NETDEV, C_ADDR, C_MTU, C_USABLE,
       C_FINDING, NCOLS };

/* Headings: marked here, translated where the table is built (port_tbl). */
static const struct tbl_col port_cols[NCOLS] = {
	[C_PORT] = { .head = N_("PORT") },     [C_STATE] = { .head = N_("STATE") },
	[C_PHYS] = { .head = N_("PHYS") },     [C_RATE] = { .head = N_("RATE") },
	[C_LINE] = { .head = N_("LINE") },     [C_LAYER] = { .head = N_("LAYER") },
	[C_NETDEV] = { .head = N_("NETDEV") }, [C_ADDR] = { .head = N_("LID/IPv4") },
	[C_MTU] = { .head = N_("MTU") },       [C_USABLE] = { .head = N_("USABLE") },
	[C_FINDING] = { .head = N_("FINDING"), .last_free = true },
};
/* Left out in this order when the list is wider than its window: each is
 * in the detail, and the row's colour and finding say what is wrong. LINE
 * goes last: it is where a PCIe link below the port shows. */
static const int col_drop[] = { C_LAYER, C_PHYS, C_ADDR, C_MTU, C_NETDEV, C_LINE };

/* The pane's own state (v->priv). */
struct links_state {
	int sort;                /* the sorted column */
	bool desc;               /* highest first */
	int focus;               /* 0: the port; k: the k-th item of its detail (items()) */
	int focus_sel;           /* the port (v->sel) the focus belongs to */
	bool focus_moved;        /* the next draw scrolls the detail to the focus */
	int focus_row;           /* where the detail drew the focus (measured), -1 none */
	/* Where the last draw put the list, for clicks and the search. */
	struct tbl_fit fit;
	bool fitted;
	int budget, head_y, list_y, list_h, list_w;
};
static const struct links_state state0 = { .sort = C_PORT, .focus_row = -1 };

/* The priv of a pane that could not open one is the default (draw copes). */
static struct links_state *state_of(struct view *v, struct links_state *fallback)
{
	if (v->priv)
		return v->priv;
	*fallback = state0;
	return fallback;
}

/* Chosen columns read their worst first: the finding column from errors
 * down; the others low first: down ports, slow links, small MTUs, "no". */
static bool col_desc_first(int col)
{
	return col == C_FINDING;
}

static void cell_g(const struct fab_model *m, int g, int col, char *buf, size_t len)
{
	struct row rr = row_at(m, g), *r = &rr;
	const struct fab_port *pt = r->pt;
	char tmp[64];
	int count;
	if (col == C_PORT) {
		port_name(r, buf, len);
		return;
	}
	if (col == C_USABLE) {
		snprintf(buf, len, "%s", tri_word(pt ? pt->usable.v : r->n->usable.v));
		return;
	}
	if (col == C_FINDING) {
		const struct fab_finding *f = worst(m, r, &count);
		/* The row's colour is its worst finding's: the mark says it too. */
		const char *mk = f && f->sev >= SEV_WARN ? fab_sev_mark(f->sev) : "";
		if (!f)
			buf[0] = '\0';
		else if (count > 1)
			snprintf(buf, len, "%s%s%s +%d", mk, *mk ? " " : "", f->id, count - 1);
		else
			snprintf(buf, len, "%s%s%s", mk, *mk ? " " : "", f->id);
		/* A pinned counter no longer shows growth: said on the row. */
		if (pt && port_pinned(pt) > 0)
			fab_catf(buf, len, "%sPINNED", buf[0] ? " " : "");
		return;
	}
	if (!pt) {
		snprintf(buf, len, "%s", col == C_STATE ? _("no ports") : "");
		return;
	}
	switch (col) {
	case C_STATE:
		snprintf(buf, len, "%s", fab_na(port_state_word(pt, tmp, sizeof(tmp))));
		break;
	case C_PHYS:
		snprintf(buf, len, "%s", fab_na(port_phys_word(pt, tmp, sizeof(tmp))));
		break;
	case C_RATE:
		fab_fmt_port_rate(pt, buf, len);
		break;
	case C_LINE:
		fab_fmt_line_rate(port_line_gbps(m, r->n, pt, NULL, 0), buf, len);
		break;
	case C_LAYER:
		snprintf(buf, len, "%s", ll_short(pt->ll));
		break;
	case C_NETDEV: {
		const struct fab_netdev *d = model_netdev(m, pt->netdev);
		snprintf(buf, len, "%s%s", fab_na(pt->netdev),
			 d && strcmp(d->operstate, "down") == 0 ? " down" : "");
		break;
	}
	case C_ADDR:
		if ((pt->ll == FAB_LL_IB)) {
			snprintf(buf, len, "lid %s", int_str(pt->lid, "0x%llx", tmp, sizeof(tmp)));
		} else if ((pt->ll == FAB_LL_ETH)) {
			const struct fab_gid *gid = roce_v2_ipv4(pt);
			/* None among the kept GIDs of a cut table is not none. */
			snprintf(buf, len, "%s", gid ? gid->ip : port_gids(pt) && !pt->gids_more ?
				 _("no IPv4") : "N/A");
		} else {
			snprintf(buf, len, "N/A");
		}
		break;
	case C_MTU:
		int_str(pt->active_mtu, "%lld B", buf, len);
		break;
	default:
		buf[0] = '\0';
	}
}

/* A row's key for column col: a number where the column has one (state,
 * rates, MTU, usable, the worst finding's severity), else its text. */
struct skey {
	double num;
	char text[TBL_CELL];
};

static void sort_key(const struct fab_model *m, int g, int col, struct skey *k)
{
	struct row r = row_at(m, g);
	const struct fab_port *pt = r.pt;
	const struct fab_finding *f;
	int count;
	k->num = -1;
	k->text[0] = '\0';
	switch (col) {
	case C_PORT:
		k->num = g;
		return;
	case C_STATE:
		k->num = pt && pt->state.ok ? (double)pt->state.v : -1;
		return;
	case C_PHYS:
		k->num = pt && pt->phys_state.ok ? (double)pt->phys_state.v : -1;
		return;
	case C_RATE:
		k->num = pt && pt->rate_gbps.ok ? pt->rate_gbps.v : -1;
		return;
	case C_LINE:
		k->num = pt ? port_line_gbps(m, r.n, pt, NULL, 0) : 0;
		k->num = k->num > 0 ? k->num : -1;
		return;
	case C_MTU:
		k->num = pt && pt->active_mtu.ok ? (double)pt->active_mtu.v : -1;
		return;
	case C_USABLE: {
		enum fab_tri t = pt ? pt->usable.v : r.n->usable.v;
		k->num = t == FAB_NO ? 0 : t == FAB_UNKNOWN ? 1 : 2;
		return;
	}
	case C_FINDING:
		f = worst(m, &r, &count);
		k->num = f ? (f->sev + 1) * 1000.0 + count : 0;
		return;
	default:
		k->num = 0;
		cell_g(m, g, col, k->text, sizeof(k->text));
	}
}

static int key_cmp(const struct skey *a, const struct skey *b)
{
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	return strcmp(a->text, b->text);
}

/* The list in the order shown: all[] every row (its model index g) sorted,
 * shown[] the positions in all[] that the filter keeps. */
struct order {
	int *all, nall;
	int *shown, nshown;
};

static void order_free(struct order *o)
{
	free(o->all);
	free(o->shown);
	memset(o, 0, sizeof(*o));
}

/* Stable (insertion: ties keep the model's order; a few hundred ports at
 * most). Without memory, the model's order. */
static void order_build(const struct fab_model *m, const struct links_state *st, int filter,
			struct order *o)
{
	int first, n, total = total_rows(m);
	struct skey *keys = NULL;
	memset(o, 0, sizeof(*o));
	shown_range(m, filter, &first, &n);
	o->all = malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
	o->shown = malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
	if (!o->all || !o->shown) {
		order_free(o);
		return;
	}
	keys = st->sort != C_PORT ? malloc(sizeof(*keys) * (size_t)(total > 0 ? total : 1)) : NULL;
	for (int g = 0; g < total; g++) {
		o->all[g] = g;
		if (keys)
			sort_key(m, g, st->sort, &keys[g]);
	}
	if (keys || st->desc) {
		for (int i = 1; i < total; i++) {
			int g = o->all[i], j = i;
			while (j > 0) {
				int h = o->all[j - 1];
				int c = keys ? key_cmp(&keys[h], &keys[g]) : (h > g) - (h < g);
				if (st->desc ? c >= 0 : c <= 0)
					break;
				o->all[j] = h;
				j--;
			}
			o->all[j] = g;
		}
	}
	free(keys);
	o->nall = total;
	for (int i = 0; i < total; i++)
		if (o->all[i] >= first && o->all[i] < first + n)
			o->shown[o->nshown++] = i;
}

/* Where port g is in the shown list; -1 when the filter hides it. */
static int order_pos(const struct order *o, int g)
{
	for (int i = 0; i < o->nshown; i++)
		if (o->all[o->shown[i]] == g)
			return i;
	return -1;
}

/* The table of the list: translated headings, the sort's mark on its
 * column, rows in the order of all[]. */
struct ptbl {
	struct tbl t;
	struct tbl_col cols[NCOLS];
	char mark[64];
	const struct fab_model *m;
	const int *all;
};

static void cell(const void *ctx, int i, int col, char *buf, size_t len)
{
	const struct ptbl *pt = ctx;
	cell_g(pt->m, pt->all ? pt->all[i] : i, col, buf, len);
}

static void port_tbl(struct ptbl *pt, const struct fab_model *m, const struct links_state *st,
		     const int *all)
{
	for (int k = 0; k < NCOLS; k++) {
		pt->cols[k] = port_cols[k];
		pt->cols[k].head = _(port_cols[k].head);
	}
	int s = st->sort >= 0 && st->sort < NCOLS ? st->sort : C_PORT;
	snprintf(pt->mark, sizeof(pt->mark), "%s%s", pt->cols[s].head,
		 st->desc ? fab_glyph("\u25bc", "v") : fab_glyph("\u25b2", "^"));
	pt->cols[s].head = pt->mark;
	pt->m = m;
	pt->all = all;
	pt->t = (struct tbl){ .cols = pt->cols, .ncols = NCOLS, .nrows = total_rows(m), .cell = cell,
			      .ctx = pt, .drop = col_drop,
			      .ndrop = (int)(sizeof(col_drop) / sizeof(col_drop[0])),
			      .gap = GAP, .prefix = PREFIX };
}

/* One list line (the headings when i < 0), i a position in all[]; "> "
 * marks the selected row, also in text dumps, and its line is padded so
 * the highlight spans it. */
static void row_text(const struct ptbl *pt, const struct tbl_fit *f, int i, bool sel,
		     char *line, size_t len)
{
	tbl_line(&pt->t, f, i, line, len);
	if (sel) {
		line[0] = '>';
		size_t n = strlen(line);
		int pad = f->width - tbl_width(line);
		if (pad > 0 && n + (size_t)pad < len)
			snprintf(line + n, len - n, "%*s", pad, "");
	}
}

/* The list's lines from position top of the shown list into win. */
static void list_draw(WINDOW *win, const struct fab_model *m, const struct ptbl *pt,
		      const struct tbl_fit *c, const struct order *o, int sel, int top)
{
	char line[640];
	int h = getmaxy(win);
	for (int y = 0; y < h && top + y < o->nshown; y++) {
		int i = o->shown[top + y], g = o->all[i];
		struct row r = row_at(m, g);
		int count;
		const struct fab_finding *f = worst(m, &r, &count);
		int a = f ? fab_sev_attr(f->sev) : fab_attr(CP_OK);
		row_text(pt, c, i, g == sel, line, sizeof(line));
		view_put(win, y, 0, 0, line, g == sel ? a | fab_attr(CP_SELECT) : a);
	}
}

/* ---- text that wraps by pieces ------------------------------------------- */

/* Appends s at column x of the current line; when it would pass the right
 * edge it goes to the next line at indent. Returns the column after it. */
static int add(struct view_pen *p, int x, int indent, const char *s, int attr)
{
	if (x > indent && x + view_strwidth(s) > p->w) {
		view_pen_nl(p);
		x = indent;
		while (*s == ' ')
			s++;
	}
	if (x + view_strwidth(s) > p->w && x == indent) {
		/* Longer than a whole line: wrap it as text; it ends the line. */
		view_pen_wrap(p, x, s, attr);
		p->row--;
		return p->w;
	}
	return view_pen_fixed(p, x, s, attr);
}

static int label(struct view_pen *p, const char *s)
{
	view_pen_fixed(p, 0, s, A_BOLD);
	return LABEL_W;
}

/* " · text": the separator and the text stay together, and a line never
 * starts with the separator. */
static int add_sep(struct view_pen *p, int x, int indent, const char *s, int attr)
{
	const char *dot = fab_glyph(" \u00b7 ", " - ");
	if (x > indent && x + view_strwidth(dot) + view_strwidth(s) > p->w) {
		view_pen_nl(p);
		return add(p, indent, indent, s, attr);
	}
	x = add(p, x, indent, dot, 0);
	return add(p, x, indent, s, attr);
}

/* "  name value" as one piece, so a label never ends a line alone. */
static int kv(struct view_pen *p, int x, const char *name, const char *value, int attr)
{
	char buf[FAB_PATH_LEN];
	snprintf(buf, sizeof(buf), "%s%s%s%s", x > LABEL_W ? "  " : "", name, name[0] ? " " : "",
		 value);
	return add(p, x, LABEL_W, buf, attr);
}

static void title(struct view_pen *p, const char *s)
{
	view_pen_fixed(p, 0, s, fab_attr(CP_TITLE));
	view_pen_nl(p);
}

/* ---- what Enter steps through in a port's detail --------------------------- */

/* The RoCE QoS settings of a port, in the order the detail shows them; the
 * name is what a pick says (fab_pick.name), the label how it reads. */
static const struct { const char *name, *label; } qos_items[] = {
	{ "trust", "trust" }, { "pfc", "PFC" }, { "ecn", "ECN" },
};
#define NQOS ((int)(sizeof(qos_items) / sizeof(qos_items[0])))

/* The QoS settings the detail shows for a row (a RoCE port whose netdev is
 * here), else 0. */
static int row_settings(const struct fab_model *m, const struct row *r)
{
	const struct fab_netdev *d;
	char why[FAB_PATH_LEN];
	if (!r->pt || r->pt->ll != FAB_LL_ETH)
		return 0;
	model_netdev_here(m, r->pt->netdev, &d, why, sizeof(why));
	return d ? NQOS : 0;
}

/* Items 1..n of a row's detail: its settings, then its findings. */
static int row_items(const struct fab_model *m, const struct row *r)
{
	int n = row_settings(m, r);
	for (int i = 0; i < m->nfindings; i++)
		n += about(&m->findings[i], r);
	return n;
}

/* Item k (from 1): a setting (*qos its index) or a finding; false past the end. */
static bool row_item(const struct fab_model *m, const struct row *r, int k, int *qos,
		     const struct fab_finding **f)
{
	int ns = row_settings(m, r);
	*qos = -1;
	*f = NULL;
	if (k < 1)
		return false;
	if (k <= ns) {
		*qos = k - 1;
		return true;
	}
	k -= ns;
	for (int i = 0; i < m->nfindings; i++)
		if (about(&m->findings[i], r) && --k == 0) {
			*f = &m->findings[i];
			return true;
		}
	return false;
}

/* The detail item in focus while pen p draws (0: none); the pane's state
 * rides in the pen's view (links_draw sets its priv). */
static int pen_focus(const struct view_pen *p)
{
	const struct links_state *st = p->v->priv;
	return st && st->focus_sel == p->v->sel ? st->focus : 0;
}

static void pen_focus_at(const struct view_pen *p)
{
	struct links_state *st = p->v->priv;
	if (st)
		st->focus_row = p->row;
}

/* ---- the detail of one port ---------------------------------------------- */

static void detail_summary(struct view_pen *p, const struct fab_model *m, const struct row *r)
{
	char buf[64];
	int x = label(p, _("Findings")), count = 0;
	for (int i = 0; i < m->nfindings; i++) {
		const struct fab_finding *f = &m->findings[i];
		if (!about(f, r))
			continue;
		snprintf(buf, sizeof(buf), "%s%s%s%s", count ? ", " : "",
			 f->sev >= SEV_WARN ? fab_sev_mark(f->sev) : "", f->sev >= SEV_WARN ? " " : "", f->id);
		x = add(p, x, LABEL_W, buf, fab_sev_attr(f->sev));
		count++;
	}
	if (count)
		add(p, x, LABEL_W, _(" (End to read)"), fab_attr(CP_DIM));
	else
		add(p, x, LABEL_W, _("none"), fab_attr(CP_OK));
	view_pen_nl(p);
}

static void detail_hca(struct view_pen *p, const struct fab_model *m, const struct fab_nic *n)
{
	const struct fab_pci_dev *d = n->pci >= 0 && n->pci < m->npci ? &m->pci[n->pci] : NULL;
	char buf[160], a[48], b[48];
	int x = label(p, "HCA");
	x = add(p, x, LABEL_W, n->name, A_BOLD);
	x = kv(p, x, _("type"), fab_na(n->hca_type), 0);
	x = kv(p, x, _("driver"), fab_na(n->driver), 0);
	x = kv(p, x, _("fw"), fab_na(n->fw_ver), 0);
	x = kv(p, x, _("node GUID"), fab_na(n->node_guid), 0);
	kv(p, x, _("board"), fab_na(n->board_id), 0);
	view_pen_nl(p);

	x = label(p, "PCI");
	if (!d) {
		add(p, x, LABEL_W, n->pci == FAB_NO_INDEX ? _("none (software RDMA device)") : "N/A", 0);
		view_pen_nl(p);
	} else {
		x = add(p, x, LABEL_W, d->bdf, 0);
		kv(p, x, "NUMA", int_str(d->numa_node, "%lld", a, sizeof(a)), 0);
		view_pen_nl(p);
		const struct fab_pcie_link *l = &d->link;
		x = label(p, "PCIe");
		if (l->cur_speed.ok)
			snprintf(a, sizeof(a), "%.1f GT/s", l->cur_speed.v);
		else
			snprintf(a, sizeof(a), "N/A GT/s");
		bool slow = (l->cur_speed.ok && l->max_speed.ok && l->cur_speed.v < l->max_speed.v) ||
			    (l->cur_width.ok && l->max_width.ok && l->cur_width.v < l->max_width.v);
		/* Slower than it can run: a warning, marked as well as coloured. */
		snprintf(buf, sizeof(buf), "%s%s x%s", slow ? "! " : "", a,
			 int_str(l->cur_width, "%lld", b, sizeof(b)));
		x = add(p, x, LABEL_W, buf, slow ? fab_attr(CP_WARN) : 0);
		if (l->max_speed.ok)
			snprintf(a, sizeof(a), "%.1f GT/s", l->max_speed.v);
		else
			snprintf(a, sizeof(a), "N/A GT/s");
		snprintf(buf, sizeof(buf), _(" (max %s x%s)"), a, int_str(l->max_width, "%lld", b, sizeof(b)));
		x = add(p, x, LABEL_W, buf, 0);
		if (l->cur_speed.ok && l->cur_width.ok) {
			snprintf(buf, sizeof(buf), _(" = %.0f Gb/s usable"),
				 pcie_gbps(l->cur_speed.v, l->cur_width.v));
			x = add(p, x, LABEL_W, buf, 0);
		} else {
			x = add(p, x, LABEL_W, _(" = N/A Gb/s usable"), 0);
		}
		view_pen_nl(p);
	}
	x = label(p, _("Adapter"));
	if (n->cap_gbps.ok)
		snprintf(buf, sizeof(buf), _("%.0f Gb/s per port"), n->cap_gbps.v);
	else
		snprintf(buf, sizeof(buf), _("N/A Gb/s per port (model not in fabtop's table)"));
	add(p, x, LABEL_W, buf, 0);
	view_pen_nl(p);

	const struct fab_uverbs *u = &n->uverbs;
	x = label(p, _("Verbs"));
	x = add(p, x, LABEL_W, fab_na(u->name), 0);
	if (!u->open_errno.ok && !u->present)
		x = add(p, x, LABEL_W, _("  present N/A"), 0);
	else
		x = add(p, x, LABEL_W, u->present ? _("  present") : _("  absent here"),
			u->present ? 0 : fab_attr(CP_ERROR));
	if (!u->open_errno.ok)
		snprintf(buf, sizeof(buf), "N/A");
	else
		snprintf(buf, sizeof(buf), "%s", u->open_errno.v ? strerror((int)u->open_errno.v) : _("ok"));
	if (u->present || !u->open_errno.ok)
		x = kv(p, x, _("open:"), buf, u->open_errno.ok && u->open_errno.v ? fab_attr(CP_ERROR) : 0);
	x = kv(p, x, _("usable here:"), tri_word(n->usable.v), fab_tri_attr(n->usable.v));
	if (n->usable.v != FAB_YES) {
		snprintf(buf, sizeof(buf), " (%s)", n->usable.why);
		add(p, x, LABEL_W, buf, 0);
	}
	view_pen_nl(p);
}

static void detail_port(struct view_pen *p, const struct fab_model *m, const struct fab_nic *n,
			const struct fab_port *pt)
{
	char buf[160], a[48], b[48];
	snprintf(buf, sizeof(buf), _("Port %d"), pt->num);
	int x = label(p, buf);
	x = kv(p, x, _("state"), fab_na(port_state_word(pt, a, sizeof(a))),
	       pt->state.ok ? fab_attr(port_active(pt) ? CP_OK : CP_ERROR) : 0);
	x = kv(p, x, _("phys"), fab_na(port_phys_word(pt, b, sizeof(b))), 0);
	x = kv(p, x, _("link layer"), fab_na(ll_name(pt->ll)), 0);
	x = kv(p, x, _("usable here:"), tri_word(pt->usable.v), fab_tri_attr(pt->usable.v));
	if (pt->usable.v != FAB_YES) {
		snprintf(buf, sizeof(buf), " (%s)", pt->usable.why);
		add(p, x, LABEL_W, buf, 0);
	}
	view_pen_nl(p);

	x = label(p, _("Rate"));
	if (pt->rate_gbps.ok)
		snprintf(buf, sizeof(buf), "%g Gb/s", pt->rate_gbps.v);
	else
		snprintf(buf, sizeof(buf), "%s", fab_na(pt->rate_str));
	x = add(p, x, LABEL_W, buf, 0);
	x = kv(p, x, _("width"), int_str(pt->width, "%lldX", a, sizeof(a)), 0);
	kv(p, x, _("speed"), fab_na(pt->speed), 0);
	view_pen_nl(p);
	char lwhy[200], lbuf[200];
	port_line_gbps(m, n, pt, lwhy, sizeof(lwhy));
	if (lwhy[0]) {
		x = label(p, _("Line rate"));
		snprintf(lbuf, sizeof(lbuf), "%s", lwhy);
		add(p, x, LABEL_W, lbuf, 0);
		view_pen_nl(p);
	}

	if (!(pt->ll == FAB_LL_ETH)) {
		x = label(p, "IB");
		x = kv(p, x, "LID", int_str(pt->lid, "0x%llx", a, sizeof(a)), 0);
		x = kv(p, x, "SM LID", int_str(pt->sm_lid, "0x%llx", a, sizeof(a)), 0);
		kv(p, x, "SM SL", int_str(pt->sm_sl, "%lld", a, sizeof(a)), 0);
		view_pen_nl(p);
	}

	x = label(p, "MTU");
	x = kv(p, x, _("active"), int_str(pt->active_mtu, "%lld B", a, sizeof(a)), 0);
	x = kv(p, x, _("max"), int_str(pt->max_mtu, "%lld B", a, sizeof(a)), 0);
	snprintf(buf, sizeof(buf), _("  (from %s)"), fab_na(pt->mtu_source));
	add(p, x, LABEL_W, buf, fab_attr(CP_DIM));
	view_pen_nl(p);

	x = label(p, "netdev");
	const struct fab_netdev *d;
	char why[FAB_PATH_LEN];
	enum fab_tri here = model_netdev_here(m, pt->netdev, &d, why, sizeof(why));
	x = add(p, x, LABEL_W, fab_na(pt->netdev), A_BOLD);
	if (d) {
		x = kv(p, x, "MTU", int_str(d->mtu, "%lld B", a, sizeof(a)), 0);
		bool up = strcmp(d->operstate, "up") == 0;
		x = add(p, x, LABEL_W, d->operstate[0] ? (up ? "  up" : "  ") : _("  state N/A"),
			up ? fab_attr(CP_OK) : 0);
		if (d->operstate[0] && !up)
			x = add(p, x, LABEL_W, d->operstate, fab_attr(CP_ERROR));
		x = kv(p, x, _("carrier"), d->carrier.ok ? (d->carrier.v ? _("on") : _("off")) : "N/A",
		       d->carrier.ok && !d->carrier.v ? fab_attr(CP_ERROR) : 0);
		/* Mb/s from sysfs, shown as port rates are: "400 Gb/s". */
		if (d->speed_mbps.ok && d->speed_mbps.v >= 0)
			fab_fmt_bps((double)d->speed_mbps.v * 1e6, a, sizeof(a));
		else
			snprintf(a, sizeof(a), "N/A");
		kv(p, x, _("speed"), a, 0);
	} else if (here == FAB_UNKNOWN) {
		snprintf(buf, sizeof(buf), _("  unknown here (%s)"), why);
		add(p, x, LABEL_W, buf, fab_attr(CP_WARN));
	} else if (pt->netdev[0]) {
		add(p, x, LABEL_W, _("  not in this network namespace"), fab_attr(CP_WARN));
	}
	view_pen_nl(p);

	if ((pt->ll == FAB_LL_ETH)) {
		x = label(p, "QoS");
		if (d) {
			/* Enter steps through these (qos_items): the one in focus
			 * is highlighted, and `fabtop learn` can take it as an answer. */
			int fo = pen_focus(p), sa = fab_attr(CP_SELECT);
			if (fo >= 1 && fo <= NQOS)
				pen_focus_at(p);
			x = kv(p, x, "trust", fab_na(d->qos_trust), fo == 1 ? sa : 0);
			/* PFC with where it was read (DCB netlink, MLNX_OFED sysfs: dcb.h). */
			snprintf(buf, sizeof(buf), d->qos_source[0] ? "%s (%s)" : "%s",
				 fab_na(fab_prio_list(d->pfc_mask, a, sizeof(a))), d->qos_source);
			x = kv(p, x, "PFC", buf, fo == 2 ? sa : 0);
			char np[32];
			snprintf(buf, sizeof(buf), "%s  rp %s",
				 fab_na(fab_prio_list(d->ecn_np_mask, np, sizeof(np))),
				 fab_na(fab_prio_list(d->ecn_rp_mask, a, sizeof(a))));
			kv(p, x, "ECN np", buf, fo == 3 ? sa : 0);
		} else {
			add(p, x, LABEL_W, _("N/A (no netdev here)"), 0);
		}
		view_pen_nl(p);
	}
}

/* The GID table as show_gids prints it; a table, so it scrolls sideways. */
static void detail_gids(struct view_pen *p, const struct fab_model *m, const struct fab_port *pt)
{
	char buf[256];
	int wt = 4, wn = 6;
	view_pen_nl(p);
	/* The shell reads the GID tables before this pane opens (view.h
	 * light); a model without them still never says "none". */
	if (!model_has(m, FAB_HAVE_GIDS)) {
		title(p, _("GID table: not read"));
		return;
	}
	int ng = port_gids(pt);
	if (pt->gids_more)
		snprintf(buf, sizeof(buf), _("GID table (%d filled; the first %d shown)"),
			 ng + pt->gids_more, ng);
	else
		snprintf(buf, sizeof(buf), _("GID table (%d filled)"), ng);
	title(p, ng ? buf : _("GID table: N/A (none read)"));
	if (!ng)
		return;
	for (int g = 0; g < ng; g++) {
		int l = view_strwidth(fab_na(pt->gids[g].type));
		wt = l > wt ? l : wt;
		l = view_strwidth(fab_na(pt->gids[g].netdev));
		wn = l > wn ? l : wn;
	}
	snprintf(buf, sizeof(buf), "  %3s  %-39s  %-*s  %-*s  %s", "IDX", "GID", wt, "TYPE", wn,
		 "NETDEV", "IP");
	view_pen_put(p, 0, buf, A_BOLD);
	view_pen_nl(p);
	for (int g = 0; g < ng; g++) {
		const struct fab_gid *gd = &pt->gids[g];
		/* IB GIDs carry no address: "-" there, N/A when a RoCE one is unknown. */
		const char *ip = gd->ip[0] ? gd->ip : (pt->ll == FAB_LL_IB) ? "-" : "N/A";
		snprintf(buf, sizeof(buf), "  %3d  %-39s  %-*s  %-*s  %s", gd->index, gd->gid, wt,
			 fab_na(gd->type), wn, (pt->ll == FAB_LL_IB) && !gd->netdev[0] ? "-" : fab_na(gd->netdev),
			 ip);
		view_pen_put(p, 0, buf, 0);
		view_pen_nl(p);
	}
}

/* The value, and PINNED when the model found it at the counter's maximum
 * (counter_pinned): the true count is higher and growth no longer shows. */
static void counter_value(const struct fab_counter *c, char *buf, size_t len)
{
	char v[32];
	int_str(c->value, "%lld", v, sizeof(v));
	snprintf(buf, len, "%s%s%s", v, c->pinned ? " PINNED" : "",
		 c->implausible ? " implausible" : "");
}

/* Each pinned counter: what the pin hides (counter_pin_hides()) and the
 * command that clears it (port_pin_clear_cmd()), printed, never run. */
static void detail_pinned(struct view_pen *p, const struct fab_model *m, const struct fab_nic *n,
			  const struct fab_port *pt)
{
	char hides[160], cmd[160], buf[400];
	int np = 0;
	for (int i = 0; i < pt->nerrors && i < FAB_MAX_COUNTERS; i++) {
		const struct fab_counter *c = &pt->errors[i];
		if (!c->pinned || counter_pin_hides(c->def, hides, sizeof(hides)) != 0)
			continue;
		if (!np++)
			port_pin_clear_cmd(m, n, pt, cmd, sizeof(cmd));
		snprintf(buf, sizeof(buf), "PINNED  %s", hides);
		view_pen_wrap_hang(p, 2, 10, buf, fab_attr(CP_ERROR));
	}
	if (np) {
		snprintf(buf, sizeof(buf), _("clear them to count again (printed, not run): %s"), cmd);
		view_pen_wrap_hang(p, 10, 12, buf, fab_attr(CP_DIM));
	}
}

/* What a counter's cell says: SEV_ERROR (implausible, pinned), SEV_WARN
 * (an error or retry counter that grew), SEV_INFO (another that grew),
 * -1 (zero or unread). Its colour and its mark both come from it. */
static int counter_sev(const struct fab_counter *c)
{
	const struct fab_counter_def *d = c->def;
	if (c->implausible)
		return SEV_ERROR;
	if (!c->value.ok || c->value.v == 0)
		return -1;
	if (c->pinned)
		return SEV_ERROR;
	/* Errors and retries that grew are the point; congestion ticks less so. */
	if (!d || (d->bad_when_grows && (d->cls == CC_ERROR || d->cls == CC_RETRY)))
		return SEV_WARN;
	return SEV_INFO;
}

static int counter_attr(const struct fab_counter *c)
{
	switch (counter_sev(c)) {
	case SEV_ERROR: return fab_attr(CP_ERROR);
	case SEV_WARN:  return fab_attr(CP_WARN) | A_BOLD;
	case SEV_INFO:  return A_BOLD;
	}
	return 0;
}

static const char *counter_mark(const struct fab_counter *c)
{
	int s = counter_sev(c);
	return s >= SEV_WARN ? fab_sev_mark((enum fab_severity)s) : " ";
}

/* "name = value" cells in as many columns as fit, filled down then across
 * like ls; a table, so it scrolls sideways when even one column is wider. */
static void detail_errors(struct view_pen *p, const struct fab_model *m, const struct fab_port *pt)
{
	char val[32], buf[128];
	int n = pt->nerrors > FAB_MAX_COUNTERS ? FAB_MAX_COUNTERS : pt->nerrors, cols = 1, rows = n;
	view_pen_nl(p);
	if (!model_has(m, FAB_HAVE_PORT_COUNTERS)) {
		title(p, _("Error counters: not read"));
		return;
	}
	if (!n) {
		title(p, _("Error counters: N/A (none read)"));
		return;
	}
	title(p, _("Error counters"));
	for (int c = n; c >= 1; c--) {
		int r = (n + c - 1) / c, total = 2;
		for (int j = 0; j < c; j++) {
			int nw = 0, vw = 0;
			for (int i = j * r; i < n && i < (j + 1) * r; i++) {
				int l = view_strwidth(pt->errors[i].name);
				counter_value(&pt->errors[i], val, sizeof(val));
				nw = l > nw ? l : nw;
				vw = (int)strlen(val) > vw ? (int)strlen(val) : vw;
			}
			total += 2 + nw + 3 + vw + (j ? CGAP : 0);
		}
		if (total <= p->w || c == 1) {
			cols = c;
			rows = r;
			break;
		}
	}
	int x0[FAB_MAX_COUNTERS + 1], nwc[FAB_MAX_COUNTERS + 1];
	x0[0] = 2;
	for (int j = 0; j < cols; j++) {
		int nw = 0, vw = 0;
		for (int i = j * rows; i < n && i < (j + 1) * rows; i++) {
			int l = view_strwidth(pt->errors[i].name);
			counter_value(&pt->errors[i], val, sizeof(val));
			nw = l > nw ? l : nw;
			vw = (int)strlen(val) > vw ? (int)strlen(val) : vw;
		}
		nwc[j] = nw;
		x0[j + 1] = x0[j] + 2 + nw + 3 + vw + CGAP;
	}
	for (int r = 0; r < rows; r++) {
		for (int j = 0; j < cols; j++) {
			int i = j * rows + r;
			if (i >= n)
				continue;
			const struct fab_counter *c = &pt->errors[i];
			/* "! name = value": the mark column, then the cell. */
			snprintf(buf, sizeof(buf), "%s %-*s = ", counter_mark(c), nwc[j], c->name);
			int x = view_pen_put(p, x0[j], buf, 0);
			counter_value(c, val, sizeof(val));
			view_pen_put(p, x, val, counter_attr(c));
		}
		view_pen_nl(p);
	}
}

static void detail_findings(struct view_pen *p, const struct fab_model *m, const struct row *r)
{
	char buf[FAB_NAME_LEN * 2 + 64];
	int count = 0;
	view_pen_nl(p);
	port_name(r, buf, sizeof(buf));
	if (r->pt) {
		size_t l = strlen(buf);
		snprintf(buf + l, sizeof(buf) - l, _(" and %s"), r->n->name);
	}
	char head[sizeof(buf) + 64];
	snprintf(head, sizeof(head), _("Findings about %s"), buf);
	title(p, head);
	int fo = pen_focus(p) - row_settings(m, r);
	for (int i = 0; i < m->nfindings; i++) {
		const struct fab_finding *f = &m->findings[i];
		if (!about(f, r))
			continue;
		count++;
		if (count == fo) {
			/* The one Enter stepped to: marked where a dump shows it. */
			pen_focus_at(p);
			view_pen_fixed(p, 0, ">", fab_attr(CP_SELECT));
		}
		view_pen_finding(p, 2, f);
	}
	if (!count) {
		view_pen_fixed(p, 2, _("none: this port and its HCA look healthy"), fab_attr(CP_OK));
		view_pen_nl(p);
	}
}

/* Everything above the findings: its height is where End goes. */
static void detail_data_body(struct view_pen *p, const struct fab_model *m)
{
	struct row r = row_at(m, p->v->sel);
	if (!r.n)
		return;
	detail_summary(p, m, &r);
	detail_hca(p, m, r.n);
	if (!r.pt) {
		view_pen_fixed(p, 0, _("This HCA has no ports in sysfs."), fab_attr(CP_WARN));
		view_pen_nl(p);
	} else {
		detail_port(p, m, r.n, r.pt);
		detail_gids(p, m, r.pt);
		detail_errors(p, m, r.pt);
		detail_pinned(p, m, r.n, r.pt);
	}
}

static void detail_body(struct view_pen *p, const struct fab_model *m)
{
	struct row r = row_at(m, p->v->sel);
	if (!r.n)
		return;
	detail_data_body(p, m);
	detail_findings(p, m, &r);
}

/* ---- the verdict line ---------------------------------------------------- */

static void verdict_body(struct view_pen *p, const struct fab_model *m)
{
	int nsev[3] = { 0, 0, 0 }, count[3], x;
	char buf[160];
	for (int i = 0; i < m->nfindings; i++)
		if (m->findings[i].sev <= SEV_ERROR && about_any(m, &m->findings[i]))
			nsev[m->findings[i].sev]++;
	int nports = model_usable_counts(m, count);
	x = view_pen_fixed(p, 0, _("Ports: "), fab_attr(CP_TITLE));
	if (!nsev[0] && !nsev[1] && !nsev[2]) {
		x = add(p, x, 2, _("no findings"), fab_attr(CP_OK));
	} else {
		bool any = false;
		for (int s = SEV_ERROR; s >= SEV_INFO; s--) {
			if (!nsev[s])
				continue;
			unsigned long k = (unsigned long)nsev[s];
			const char *w = s == SEV_ERROR ? P_("%d error", "%d errors", k) :
					s == SEV_WARN ? P_("%d warning", "%d warnings", k) :
					P_("%d info", "%d info", k);
			snprintf(buf, sizeof(buf), "%s", any ? _(", ") : "");
			fab_catf(buf, sizeof(buf), w, nsev[s]);
			x = add(p, x, 2, buf, s == SEV_INFO ? 0 : fab_sev_attr((enum fab_severity)s));
			any = true;
		}
	}
	int yes = count[FAB_YES];
	snprintf(buf, sizeof(buf), _("%d of %d ports usable here"), yes, nports);
	x = add_sep(p, x, 2, buf, count[FAB_UNKNOWN] == nports ? 0 :
		    fab_attr(yes == nports ? CP_OK : yes ? CP_WARN : CP_ERROR));
	if (count[FAB_UNKNOWN]) {
		snprintf(buf, sizeof(buf), _(" (%d unknown)"), count[FAB_UNKNOWN]);
		x = add(p, x, 2, buf, 0);
	}
	snprintf(buf, sizeof(buf), _("RDMA netns: %s"), fab_na(m->rdma_netns_mode));
	x = add_sep(p, x, 2, buf, 0);
	if (p->v->filter > 0 && p->v->filter <= m->nnics) {
		snprintf(buf, sizeof(buf), _("filter: %s"), m->nics[p->v->filter - 1].name);
		x = add_sep(p, x, 2, buf, A_BOLD);
		add(p, x, 2, _(" (F: all)"), fab_attr(CP_DIM));
	}
	view_pen_nl(p);
}

/* ---- no HCA at all ------------------------------------------------------- */

static void empty_body(struct view_pen *p, const struct fab_model *m)
{
	char buf[FAB_NAME_LEN + 300];
	const struct fab_note *rdma = model_unknown(m, FAB_SRC_RDMA, NULL);
	/* Could not read is not "none": model_verdict() says unknown. */
	view_pen_fixed(p, 0, rdma ? _("RDMA devices unknown.") : _("No RDMA devices on this node."), A_BOLD);
	view_pen_nl(p);
	view_pen_nl(p);
	if (rdma)
		view_pen_wrap(p, 0, rdma->message, fab_attr(CP_WARN));
	else
		view_pen_wrap(p, 0, _("Nothing in /sys/class/infiniband: no HCA is installed, its driver "
				"(mlx5_ib, ...) is not loaded, or this container does not see it."), 0);
	snprintf(buf, sizeof(buf), _("RDMA netns mode: %s"), fab_na(m->rdma_netns_mode));
	view_pen_wrap(p, 0, buf, 0);
	view_pen_nl(p);
	view_pen_wrap(p, 0, _("To see what a GPU node's links look like here, open a bundled "
			      "scenario: `fabtop demo` lists them."), 0);
	if (!m->nnotes)
		return;
	view_pen_nl(p);
	title(p, _("Could not read:"));
	for (int i = 0; i < m->nnotes; i++) {
		snprintf(buf, sizeof(buf), "%s: %s", m->notes[i].what, m->notes[i].message);
		view_pen_wrap(p, 2, buf, fab_attr(CP_WARN));
	}
}

/* ---- layout and drawing -------------------------------------------------- */

/* "── mlx5_4/1 ─────── 12-21/48 PgUp/PgDn ──" across the detail. */
static void draw_rule(WINDOW *win, const struct split *l, const struct row *r,
		      const struct view *dv, int detail_ch)
{
	const char *hl = fab_glyph("\u2500", "-");
	char name[FAB_NAME_LEN + 16], buf[FAB_NAME_LEN + 64], pos[48] = "";
	int w = l->detail_w;
	for (int x = 0; x < w; x++)
		view_put(win, l->rule_y, l->detail_x + x, 0, hl, fab_attr(CP_DIM));
	port_name(r, name, sizeof(name));
	snprintf(buf, sizeof(buf), " %s ", name);
	view_put(win, l->rule_y, l->detail_x + 2, 0, buf, fab_attr(CP_TITLE));
	if (detail_ch > l->detail_h) {
		int last = dv->top + l->detail_h < detail_ch ? dv->top + l->detail_h : detail_ch;
		snprintf(pos, sizeof(pos), _(" %d-%d/%d PgUp/PgDn "), dv->top + 1, last, detail_ch);
		int pw = view_strwidth(pos), x = w - pw - 2;
		if (x > view_strwidth(buf) + 2)
			view_put(win, l->rule_y, l->detail_x + x, 0, pos, fab_attr(CP_DIM));
	}
}

static void links_draw(struct view *v, WINDOW *win, struct view_ctx *ctx)
{
	const struct fab_model *m = ctx->m;
	struct links_state fb, *st = state_of(v, &fb);
	int h, w;
	getmaxyx(win, h, w);
	st->fitted = false;
	st->list_h = 0;
	if (!m->nnics) {
		v->page_h = h;
		view_draw_body(v, win, m, empty_body);
		return;
	}
	if (v->filter < 0 || v->filter > m->nnics)
		v->filter = 0;
	struct order o;
	order_build(m, st, v->filter, &o);
	if (!o.all)
		return;   /* out of memory: an empty pane, the next frame tries again */
	int n = o.nshown, pos = order_pos(&o, v->sel);
	if (pos < 0 && n > 0) {
		v->sel = o.all[o.shown[0]];
		pos = 0;
	}

	/* The verdict's height at this width, then everything under it. */
	struct view tv = { .sel = v->sel, .filter = v->filter };
	struct view_pen vp = { .win = win, .v = &tv, .h = h, .w = w, .draw = false };
	verdict_body(&vp, m);
	int verdict_h = vp.row < h ? vp.row : h;
	struct ptbl pt;
	struct tbl_fit c;
	port_tbl(&pt, m, st, o.all);
	st->budget = w >= SIDE_MIN_W ? w - DETAIL_MIN_W - 3 : w;
	tbl_fit(&pt.t, st->budget, &c);
	struct split_spec sp = { .top = verdict_h, .head = 1, .nrows = n, .titled = true,
				 .list_w = c.width < w ? c.width : w, .side_min_w = SIDE_MIN_W };
	struct split l = layout_split(h, w, &sp);

	WINDOW *sub = verdict_h > 0 ? derwin(win, verdict_h, w, 0, 0) : NULL;
	if (sub) {
		view_draw_body(&tv, sub, m, verdict_body);
		delwin(sub);
	}

	char line[640];
	if (l.list_y - 1 < h) {
		row_text(&pt, &c, -1, false, line, sizeof(line));
		view_put(win, l.list_y - 1, 0, 0, line, fab_attr(CP_TITLE));
	}
	/* Keep the selection in view. */
	if (pos < v->sel_top)
		v->sel_top = pos;
	if (l.list_h > 0 && pos >= v->sel_top + l.list_h)
		v->sel_top = pos - l.list_h + 1;
	if (v->sel_top > n - l.list_h)
		v->sel_top = n - l.list_h;
	if (v->sel_top < 0)
		v->sel_top = 0;
	sub = l.list_h > 0 && l.list_w > 0 ? derwin(win, l.list_h, l.list_w, l.list_y, 0) : NULL;
	if (sub) {
		list_draw(sub, m, &pt, &c, &o, v->sel, v->sel_top);
		delwin(sub);
	}
	st->fit = c;
	st->fitted = true;
	st->head_y = l.list_y - 1;
	st->list_y = l.list_y;
	st->list_h = l.list_h > 0 ? l.list_h : 0;
	st->list_w = l.list_w;
	/* More ports than rows: which ones are in view, at the headings' end. */
	if (n > l.list_h && l.list_y - 1 < h) {
		char where[48];
		snprintf(where, sizeof(where), "%d-%d/%d", v->sel_top + 1, v->sel_top + l.list_h, n);
		int x = l.list_w - view_strwidth(where);
		row_text(&pt, &c, -1, false, line, sizeof(line));
		if (x > view_strwidth(line) + 1)
			view_put(win, l.list_y - 1, x, 0, where, fab_attr(CP_DIM));
	}
	order_free(&o);
	if (l.side)
		for (int y = l.rule_y; y < h; y++)
			view_put(win, y, l.list_w + 1, 0, fab_glyph("\u2502", "|"), fab_attr(CP_DIM));

	/* The focus belongs to one port: another port starts without one. */
	if (st->focus_sel != v->sel)
		st->focus = 0;
	struct view dv = { .sel = v->sel, .top = v->top, .left = v->left, .priv = st };
	sub = l.detail_h > 0 && l.detail_w > 0 ? derwin(win, l.detail_h, l.detail_w, l.detail_y,
							   l.detail_x) : NULL;
	if (sub) {
		struct view_pen mp = { .win = sub, .v = &dv, .draw = false };
		getmaxyx(sub, mp.h, mp.w);
		if (dv.top >= TO_FINDINGS) {
			/* End: the findings' heading at the top; they come last, so
			 * a short list ends the detail as End usually does. */
			detail_data_body(&mp, m);
			dv.top = mp.row + 1;   /* past the blank line above the heading */
		}
		if (st->focus_moved && st->focus > 0) {
			/* Enter moved the focus: bring it into view, one line of
			 * context above it. */
			st->focus_row = -1;
			mp.row = 0;
			detail_body(&mp, m);
			int fr = st->focus_row;
			if (fr >= 0 && (fr < dv.top || fr >= dv.top + l.detail_h))
				dv.top = fr > 0 ? fr - 1 : 0;
		}
		st->focus_moved = false;
		view_draw_body(&dv, sub, m, detail_body);
		delwin(sub);
	}
	v->top = dv.top;
	v->left = dv.left;
	v->page_h = l.detail_h;
	if (l.rule_y < h) {
		struct row r = row_at(m, v->sel);
		draw_rule(win, &l, &r, &dv, dv.content_h);
	}
	/* The status bar's arrows then speak for the detail; its rows are on
	 * the detail's own title line. */
	v->content_h = h;
	v->content_w = dv.content_w + (w - l.detail_w);
}

/* Enter: the next item of the selected port's detail (its settings, its
 * findings), then back to the port. */
static void focus_next(struct view *v, const struct fab_model *m, struct links_state *st)
{
	struct row r = row_at(m, v->sel);
	int n = r.n ? row_items(m, &r) : 0;
	if (st->focus_sel != v->sel)
		st->focus = 0;
	st->focus_sel = v->sel;
	st->focus = n ? (st->focus + 1) % (n + 1) : 0;
	st->focus_moved = true;
	if (!st->focus)
		v->top = 0;
}

/* < and >: the previous or next column shown at the last draw; a column
 * newly chosen reads in its own direction first. */
static void sort_step(struct links_state *st, int dir)
{
	int c = st->sort;
	for (int k = 0; k < NCOLS; k++) {
		c = (c + dir + NCOLS) % NCOLS;
		if (!st->fitted || st->fit.on[c])
			break;
	}
	st->sort = c;
	st->desc = col_desc_first(c);
}

static bool links_key(struct view *v, int ch, struct view_ctx *ctx)
{
	const struct fab_model *m = ctx->m;
	struct links_state fb, *st = state_of(v, &fb);
	struct order o;
	int pos;
	if (!m->nnics)
		return false;   /* one scrolling page: the shell's keys */
	switch (ch) {
	case 'f':
		v->filter = (v->filter + 1) % (m->nnics + 1);
		order_build(m, st, v->filter, &o);
		if (o.all && order_pos(&o, v->sel) < 0 && o.nshown)
			view_list_select(v, o.all[o.shown[0]]);
		order_free(&o);
		return true;
	case '<':
	case '>':
		sort_step(st, ch == '>' ? 1 : -1);
		return true;
	case 'I':
		st->desc = !st->desc;
		return true;
	case '\n':
	case '\r':
	case KEY_ENTER:
		focus_next(v, m, st);
		return true;
	case 27:
		if (st->focus > 0 && st->focus_sel == v->sel) {
			st->focus = 0;
			v->top = 0;
			return true;
		}
		return view_detail_key(v, ch);
	case KEY_UP:
	case 'k':
	case KEY_DOWN:
	case 'j':
		/* Up/Down walk the list as it is sorted. */
		order_build(m, st, v->filter, &o);
		pos = o.all ? order_pos(&o, v->sel) : -1;
		if (pos >= 0) {
			pos += ch == KEY_UP || ch == 'k' ? -1 : 1;
			if (pos >= 0 && pos < o.nshown)
				view_list_select(v, o.all[o.shown[pos]]);
		}
		order_free(&o);
		return true;
	default:
		/* The detail scrolls, the next draw clamps (End: the findings). */
		return view_detail_key(v, ch);
	}
}

static int links_open(struct view *v, struct view_ctx *ctx)
{
	struct links_state *st = malloc(sizeof(*st));
	if (!st)
		return -1;
	*st = state0;
	v->priv = st;
	return 0;
}

static void links_close(struct view *v, struct view_ctx *ctx)
{
	free(v->priv);
	v->priv = NULL;
}

/* ---- the shell's hooks: search, mouse, pick -------------------------------- */

struct find_arg {
	struct ptbl pt;
	struct tbl_fit fit;
	const struct order *o;
};

static const char *find_text(void *arg, int i, char *buf, size_t len)
{
	struct find_arg *a = arg;
	row_text(&a->pt, &a->fit, a->o->shown[i], false, buf, len);
	return buf;
}

static bool links_find(struct view *v, struct view_ctx *ctx, const char *query, int dir)
{
	const struct fab_model *m = ctx->m;
	struct links_state fb, *st = state_of(v, &fb);
	struct order o;
	bool found = false;
	if (!m->nnics)
		return false;
	order_build(m, st, v->filter, &o);
	if (!o.all)
		return false;
	/* The rows as the last draw showed them: its columns. */
	struct find_arg *a = malloc(sizeof(*a));
	if (a) {
		port_tbl(&a->pt, m, st, o.all);
		a->o = &o;
		tbl_fit(&a->pt.t, st->budget, &a->fit);
		int r = view_find_row(o.nshown, order_pos(&o, v->sel), dir, query, find_text, a);
		if (r >= 0) {
			view_list_select(v, o.all[o.shown[r]]);
			found = true;
		}
		free(a);
	}
	order_free(&o);
	return found;
}

static bool links_click(struct view *v, struct view_ctx *ctx, int y, int x)
{
	const struct fab_model *m = ctx->m;
	struct links_state fb, *st = state_of(v, &fb);
	if (!m->nnics || !st->fitted)
		return false;
	if (y == st->head_y && x < st->list_w) {
		/* A heading sorts by its column; the sorted one again inverts. */
		for (int k = 0; k < NCOLS; k++) {
			int end = k == C_FINDING ? st->list_w : st->fit.x[k] + st->fit.w[k];
			if (!st->fit.on[k] || x < st->fit.x[k] || x >= end)
				continue;
			if (k == st->sort)
				st->desc = !st->desc;
			else
				st->sort = k, st->desc = col_desc_first(k);
			return true;
		}
		return false;
	}
	if (y < st->list_y || y >= st->list_y + st->list_h || x >= st->list_w)
		return false;
	struct order o;
	bool did = false;
	order_build(m, st, v->filter, &o);
	int i = v->sel_top + (y - st->list_y);
	if (o.all && i >= 0 && i < o.nshown) {
		int g = o.all[o.shown[i]];
		if (g == v->sel)
			focus_next(v, m, st);   /* a second click acts as Enter */
		else
			view_list_select(v, g);
		did = true;
	}
	order_free(&o);
	return did;
}

static bool links_pick(struct view *v, struct view_ctx *ctx, struct fab_pick *out)
{
	const struct fab_model *m = ctx->m;
	struct links_state fb, *st = state_of(v, &fb);
	struct row r = row_at(m, v->sel);
	const struct fab_finding *f;
	char subj[FAB_NAME_LEN + 16];
	int qos;
	memset(out, 0, sizeof(*out));
	if (!r.n)
		return false;
	snprintf(out->dev, sizeof(out->dev), "%s", r.n->name);
	if (!r.pt) {
		out->kind = PICK_NIC;
		snprintf(out->label, sizeof(out->label), "%s", r.n->name);
		return true;
	}
	port_name(&r, subj, sizeof(subj));
	out->port = r.pt->num;
	if (st->focus > 0 && st->focus_sel == v->sel && row_item(m, &r, st->focus, &qos, &f)) {
		if (f) {
			out->kind = PICK_FINDING;
			/* A finding about the HCA is the device's, not the port's. */
			if (strcmp(f->subject, r.n->name) == 0)
				out->port = 0;
			snprintf(out->name, sizeof(out->name), "%s", f->id);
			snprintf(out->label, sizeof(out->label), "%s (%s)", f->id, f->subject);
		} else {
			out->kind = PICK_SETTING;
			snprintf(out->name, sizeof(out->name), "%s", qos_items[qos].name);
			snprintf(out->label, sizeof(out->label), _("%s on %s"), qos_items[qos].label, subj);
		}
		return true;
	}
	out->kind = PICK_PORT;
	snprintf(out->label, sizeof(out->label), _("%s port %d"), r.n->name, r.pt->num);
	return true;
}

const struct view_ops links_view_ops = {
	.name = "links",
	.title = N_("Links"),
	.help = N_("Every HCA port on one line, as ibstat and ibdev2netdev show it together: "
		   "state, physical state, rate and width, the line rate (the port's rate, or "
		   "less when its PCIe link carries less), link layer, netdev, LID (InfiniBand) "
		   "or the IPv4 address of the first RoCE v2 GID, active MTU, whether the HCA is "
		   "usable from here, and the worst finding; red for errors, yellow for warnings. "
		   "The selected port's detail follows: the HCA and its PCIe link against the "
		   "port rate, the verbs device (a container can see an HCA it cannot open), the "
		   "port and its netdev, RoCE QoS (trust, PFC, ECN), the GID table, the error "
		   "counters and the findings with what to run next. Layer: physical and link "
		   "(cables, rates, MTU, GIDs, RoCE QoS, device access in containers), below "
		   "NCCL. Keys: Up/Down or j/k select a port; < and > choose the sort column "
		   "(marked in the headings), I inverts it; / searches the rows; Enter steps "
		   "through the port's QoS settings and findings, Esc goes back to the port; "
		   "PgUp/PgDn, Home and Left/Right scroll the detail, End goes to its findings; "
		   "f filters by HCA (again for the next one), F or Esc shows all. A click "
		   "selects a port (again: Enter) or sorts by a heading."),
	.open = links_open,
	.close = links_close,
	.draw = links_draw,
	.key = links_key,
	.find = links_find,
	.click = links_click,
	.pick = links_pick,
};
