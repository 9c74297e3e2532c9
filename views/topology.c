/*
 * topology.c - the Topology pane: `nvidia-smi topo -m` for GPUs and NICs,
 * plus what nvidia-smi does not say: each NIC's netdev, link and PCIe link,
 * the closest NIC of every GPU, and the topology/PCIe findings.
 *
 * The matrix and its legends stay in English, as nvidia-smi prints them
 * (diffable with it); what fabtop adds is translated. v->sel is the
 * selected matrix row (a GPU or a NIC, for `/`, clicks and `fabtop learn`'s
 * answers); its label is highlighted, so the text stays nvidia-smi's. Up and
 * Down move it while it is in view, and scroll the pane otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/i18n.h"
#include "fabtop/topo.h"
#include "fabtop/util.h"
#include "fabtop/view.h"
#include "fabtop/vocab.h"

#define CELL_W  8   /* nvidia-smi's tab stops */
#define LABEL_W 8   /* the GPU0/NIC0 column, fixed while scrolling sideways */

/* Where the last draw put the matrix (v->priv), for the keys and clicks. */
struct topo_state {
	int row0;           /* content row of the first matrix row; -1: no matrix */
	int n;              /* its rows */
	int h;              /* the window's height */
};

static int level_attr(enum fab_topo_level l)
{
	switch (l) {
	case TOPO_X:    return fab_attr(CP_DIM);
	case TOPO_NV:
	case TOPO_PIX:
	case TOPO_PXB:  return fab_attr(CP_OK);
	case TOPO_PHB:  return fab_attr(CP_DEFAULT);
	case TOPO_NODE: return fab_attr(CP_WARN);
	/* Red but not bold: half a two-socket matrix is SYS, and that is normal. */
	case TOPO_SYS:  return fab_attr(CP_ERROR) & ~(int)A_BOLD;
	default:        return fab_attr(CP_DIM);
	}
}


static void fmt_int(char *buf, size_t len, fab_int v)
{
	if (v.ok)
		snprintf(buf, len, "%lld", v.v);
	else
		snprintf(buf, len, "N/A");
}

/* Appends a piece of a line that wraps at the window's width, continuing
 * under indent: text outside the matrix always fits the screen. A piece
 * too long for a whole line goes word by word. */
static int seg(struct view_pen *p, int x, int indent, const char *s, int attr)
{
	if (x > indent && x + view_strwidth(s) > p->w) {
		view_pen_nl(p);
		x = indent;
		while (*s == ' ')
			s++;
	}
	const char *word = s;
	while (*word == ' ')
		word++;
	if (x + view_strwidth(s) <= p->w || !strchr(word, ' '))
		return view_pen_fixed(p, x, s, attr);
	char piece[256];
	while (*s) {
		const char *e = s;
		while (*e == ' ')
			e++;
		while (*e && *e != ' ')
			e++;
		snprintf(piece, sizeof(piece), "%.*s", (int)(e - s), s);
		x = seg(p, x, indent, piece, attr);
		s = e;
	}
	return x;
}

static const struct fab_pci_dev *pci_of(const struct fab_model *m, int idx)
{
	return idx >= 0 && idx < m->npci ? &m->pci[idx] : NULL;
}

/* Widest CPU list, so the affinity columns line up whatever the machine. */
static int cpu_col_w(const struct fab_model *m, const struct fab_topo *t)
{
	int w = (int)strlen("CPU Affinity");
	for (int i = 0; i < t->ngpus; i++) {
		const struct fab_pci_dev *d = pci_of(m, t->devs[i].pci);
		int l = d ? view_strwidth(d->local_cpulist) : 3;
		if (l > w)
			w = l;
	}
	return w + 2;
}

static void draw_matrix(struct view_pen *p, const struct fab_model *m, const struct fab_topo *t)
{
	char buf[FAB_LIST_LEN + 8];
	int aff = LABEL_W + t->n * CELL_W, cpu_w = cpu_col_w(m, t);
	const char *mark = fab_glyph(TOPO_MARK_UTF8, TOPO_MARK_ASCII);
	int head = fab_attr(CP_TITLE);

	for (int j = 0; j < t->n; j++)
		view_pen_clip(p, LABEL_W + j * CELL_W, LABEL_W, t->devs[j].label, head);
	view_pen_clip(p, aff, LABEL_W, "CPU Affinity", head);
	view_pen_clip(p, aff + cpu_w, LABEL_W, "NUMA Affinity", head);
	view_pen_clip(p, aff + cpu_w + 15, LABEL_W, "GPU NUMA ID", head);
	view_pen_nl(p);

	struct topo_state *st = p->v->priv;
	if (st) {
		st->row0 = p->row;
		st->n = t->n;
	}
	for (int i = 0; i < t->n; i++) {
		const struct fab_topo_dev *d = &t->devs[i];
		view_pen_fixed(p, 0, d->label, i == p->v->sel ? head | fab_attr(CP_SELECT) : head);
		for (int j = 0; j < t->n; j++) {
			enum fab_topo_level l = t->level[i * t->n + j];
			int x = LABEL_W + j * CELL_W, a = level_attr(l);
			char cell[16];
			topo_cell(t, i, j, cell, sizeof(cell));
			if (l == TOPO_X) {
				/* nvidia-smi centres the self cell: " X ". */
				view_pen_clip(p, x + 1, LABEL_W, cell, a);
				continue;
			}
			bool best = d->kind == TOPO_GPU && j >= t->ngpus && j - t->ngpus < 64 &&
				    (t->best[i] >> (j - t->ngpus) & 1);
			if (!best) {
				view_pen_clip(p, x, LABEL_W, cell, a);
				continue;
			}
			x = view_pen_clip(p, x, LABEL_W, cell, a | A_BOLD | A_UNDERLINE);
			view_pen_clip(p, x + 1, LABEL_W, mark, a | A_BOLD);
		}
		if (d->kind == TOPO_GPU) {
			/* nvidia-smi leaves the affinity cells of NIC rows empty. */
			const struct fab_pci_dev *pd = pci_of(m, d->pci);
			view_pen_clip(p, aff, LABEL_W,
				      pd && pd->local_cpulist[0] ? pd->local_cpulist : "N/A", 0);
			fmt_int(buf, sizeof(buf), pd ? topo_numa_affinity(m, pd) : (fab_int){ 0, false });
			view_pen_clip(p, aff + cpu_w, LABEL_W, buf, 0);
			fmt_int(buf, sizeof(buf), m->gpus[d->idx].numa_id);
			view_pen_clip(p, aff + cpu_w + 15, LABEL_W, buf, 0);
		}
		view_pen_nl(p);
	}
}

static void draw_legend(struct view_pen *p, const struct fab_model *m, const struct fab_topo *t)
{
	char buf[160];
	view_pen_nl(p);
	view_pen_fixed(p, 0, "Legend:", fab_attr(CP_TITLE));
	view_pen_nl(p);
	view_pen_nl(p);
	for (int i = 0; topo_legend[i]; i++)
		view_pen_legend(p, topo_legend[i]);
	if (t->ngpus > 1 && !t->nvlink_known)
		view_pen_legend(p, m->gpu_pending ?
				_("  *    = NVLink unknown (waiting for NVML): the PCIe path is shown") :
				_("  *    = NVLink unknown (no NVML): the PCIe path is shown"));
	if (t->ngpus && t->nnics) {
		/* The mark is one column in both forms, so the padding is fixed. */
		snprintf(buf, sizeof(buf), _("  %s    = the closest usable NIC of this GPU (fabtop)"),
			 fab_glyph(TOPO_MARK_UTF8, TOPO_MARK_ASCII));
		view_pen_legend(p, buf);
	}
}

static void fmt_speed(char *buf, size_t len, fab_num speed, fab_int width)
{
	char s[24], w[24];
	if (speed.ok)
		snprintf(s, sizeof(s), "%.1f GT/s", speed.v);
	else
		snprintf(s, sizeof(s), "N/A");
	if (width.ok)
		snprintf(w, sizeof(w), "x%lld", width.v);
	else
		snprintf(w, sizeof(w), "xN/A");
	snprintf(buf, len, "%s %s", s, w);
}

/* "  PCIe 32.0 GT/s x16 (max 32.0 GT/s x16)" into buf; true when the link
 * trained below what it can do. */
static bool fmt_pcie(char *buf, size_t len, const struct fab_pci_dev *d)
{
	char cur[48], max[48];
	if (!d) {
		snprintf(buf, len, "  PCIe N/A");
		return false;
	}
	const struct fab_pcie_link *l = &d->link;
	fmt_speed(cur, sizeof(cur), l->cur_speed, l->cur_width);
	fmt_speed(max, sizeof(max), l->max_speed, l->max_width);
	snprintf(buf, len, _("  PCIe %s (max %s)"), cur, max);
	return (l->cur_speed.ok && l->max_speed.ok && l->cur_speed.v < l->max_speed.v) ||
	       (l->cur_width.ok && l->max_width.ok && l->cur_width.v < l->max_width.v);
}

#define NIC_INDENT 8   /* continuation lines of the NIC legend */

static void draw_nic_legend(struct view_pen *p, const struct fab_model *m, const struct fab_topo *t)
{
	char buf[256];
	if (!m->nnics)
		return;
	view_pen_nl(p);
	view_pen_fixed(p, 0, "NIC Legend:", fab_attr(CP_TITLE));
	view_pen_nl(p);
	view_pen_nl(p);
	for (int j = t->ngpus; j < t->n; j++) {
		const struct fab_nic *n = &m->nics[t->devs[j].idx];
		const struct fab_port *pt = n->nports > 0 ? &n->ports[0] : NULL;
		snprintf(buf, sizeof(buf), "  %s: %s", t->devs[j].label, n->name);
		int x = view_pen_fixed(p, 0, buf, 0);
		if (pt) {
			snprintf(buf, sizeof(buf), "  %s", pt->netdev[0] ? pt->netdev : "N/A");
			x = seg(p, x, NIC_INDENT, buf, 0);
			snprintf(buf, sizeof(buf), "  %s", fab_na(ll_name(pt->ll)));
			x = seg(p, x, NIC_INDENT, buf, 0);
			char sb[24];
			snprintf(buf, sizeof(buf), "  %s", fab_na(port_state_word(pt, sb, sizeof(sb))));
			x = seg(p, x, NIC_INDENT, buf, fab_attr(port_active(pt) ? CP_OK : CP_ERROR));
			snprintf(buf, sizeof(buf), "  %s", pt->rate_str[0] ? pt->rate_str : "N/A");
			x = seg(p, x, NIC_INDENT, buf, 0);
		} else {
			x = seg(p, x, NIC_INDENT, _("  no ports"), fab_attr(CP_WARN));
		}
		bool slow = fmt_pcie(buf, sizeof(buf), pci_of(m, n->pci));
		if (slow)   /* slower than it can run: marked as well as coloured */
			fab_catf(buf, sizeof(buf), " %s", fab_sev_mark(SEV_WARN));
		seg(p, x, NIC_INDENT, buf, slow ? fab_attr(CP_WARN) : 0);
		view_pen_nl(p);
	}
	/* Software RDMA devices have no PCI place, so no column; still list them. */
	for (int i = 0; i < m->nnics; i++) {
		if (m->nics[i].pci != FAB_NO_INDEX)
			continue;
		snprintf(buf, sizeof(buf), _("%s: software RDMA device, not in the matrix"),
			 m->nics[i].name);
		view_pen_wrap_hang(p, 2, NIC_INDENT, buf, fab_attr(CP_DIM));
	}
}

static void draw_closest(struct view_pen *p, const struct fab_model *m, const struct fab_topo *t)
{
	char buf[400];
	if (!t->ngpus || !t->nnics)
		return;
	view_pen_nl(p);
	view_pen_fixed(p, 0, _("Closest NIC per GPU:"), fab_attr(CP_TITLE));
	view_pen_nl(p);
	for (int g = 0; g < t->ngpus; g++) {
		bool any = false;
		snprintf(buf, sizeof(buf), "  %s -> ", t->devs[g].label);
		int x = view_pen_fixed(p, 0, buf, 0);
		for (int j = 0; j < t->nnics && j < 64; j++) {
			if (!(t->best[g] >> j & 1))
				continue;
			const struct fab_topo_dev *d = &t->devs[t->ngpus + j];
			snprintf(buf, sizeof(buf), "%s%s %s", any ? ", " : "", d->label,
				 m->nics[d->idx].name);
			x = seg(p, x, 10, buf, A_BOLD);
			any = true;
		}
		if (!any) {
			view_pen_fixed(p, x, _("none (distance unknown)"), fab_attr(CP_WARN));
			view_pen_nl(p);
			continue;
		}
		enum fab_topo_level l = t->best_level[g];
		snprintf(buf, sizeof(buf), " (%s)", topo_level_word(l));
		x = seg(p, x, 10, buf, level_attr(l));
		char note[320];
		if (topo_closest_note(m, t, g, note, sizeof(note))) {
			snprintf(buf, sizeof(buf), "  %s", note);
			seg(p, x, 10, buf, fab_attr(t->best_usable[g] == FAB_NO ? CP_ERROR : CP_WARN));
		}
		view_pen_nl(p);
	}
}

static bool topo_finding(const struct fab_finding *f)
{
	return strncmp(f->id, "topo.", 5) == 0 || strncmp(f->id, "pcie.", 5) == 0;
}

static void draw_findings(struct view_pen *p, const struct fab_model *m)
{
	int n = 0;
	view_pen_nl(p);
	view_pen_fixed(p, 0, _("Topology and PCIe findings:"), fab_attr(CP_TITLE));
	view_pen_nl(p);
	for (int i = 0; i < m->nfindings; i++) {
		const struct fab_finding *f = &m->findings[i];
		if (!topo_finding(f))
			continue;
		n++;
		view_pen_finding(p, 2, f);
	}
	if (!n) {
		view_pen_fixed(p, 2, _("none: no GPU/NIC placement or PCIe link problem found"),
			     fab_attr(CP_OK));
		view_pen_nl(p);
	}
}

static void draw_notes(struct view_pen *p, const struct fab_model *m)
{
	char buf[FAB_NAME_LEN + 300];
	if (!m->nnotes)
		return;
	view_pen_nl(p);
	view_pen_fixed(p, 0, _("Could not read:"), fab_attr(CP_TITLE));
	view_pen_nl(p);
	for (int i = 0; i < m->nnotes; i++) {
		snprintf(buf, sizeof(buf), "%s: %s", m->notes[i].what, m->notes[i].message);
		view_pen_wrap(p, 2, buf, fab_attr(CP_WARN));
	}
}

static void body(struct view_pen *p, const struct fab_model *m)
{
	struct fab_topo t;
	char buf[256];
	struct topo_state *st = p->v->priv;
	if (st)
		st->row0 = -1;   /* until the matrix is drawn */
	if (topo_build(m, &t) != 0) {
		view_pen_fixed(p, 0, _("Out of memory building the topology matrix."), fab_attr(CP_ERROR));
		view_pen_nl(p);
		return;
	}
	int x = view_pen_fixed(p, 0, _("Topology source: "), fab_attr(CP_TITLE));
	snprintf(buf, sizeof(buf), "%s%s%s", t.nvlink_known ? _("PCI tree + NVML NVLink") : _("PCI tree"),
		 m->nvml_status[0] ? fab_glyph(" \u00b7 ", " - ") : "", m->nvml_status);
	/* Under the value when there is room for it, else from the margin. */
	view_pen_wrap_hang(p, x, p->w - x >= 40 ? x : 2, buf, 0);
	/* The verdict first: on 80x24 the findings are two screens down. */
	int warn = 0, info = 0;
	for (int i = 0; i < m->nfindings; i++)
		if (topo_finding(&m->findings[i]))
			m->findings[i].sev >= SEV_WARN ? warn++ : info++;
	x = view_pen_fixed(p, 0, _("Findings: "), fab_attr(CP_TITLE));
	if (warn || info)
		snprintf(buf, sizeof(buf), P_("%d warning, %d info (End to read them)",
					      "%d warnings, %d info (End to read them)",
					      (unsigned long)warn), warn, info);
	else
		snprintf(buf, sizeof(buf), "%s", _("none"));
	view_pen_fixed(p, x, buf, fab_attr(warn ? CP_WARN : CP_OK));
	view_pen_nl(p);
	view_pen_nl(p);
	const struct fab_note *pci = model_unknown(m, FAB_SRC_PCI, NULL);
	if (!t.n && pci) {
		/* Could not read is not "none" (model_verdict()). */
		view_pen_fixed(p, 0, _("Topology unknown: the PCI tree could not be read."), A_BOLD);
		view_pen_nl(p);
		view_pen_wrap(p, 0, pci->message, fab_attr(CP_WARN));
		draw_nic_legend(p, m, &t);
	} else if (!t.n) {
		view_pen_fixed(p, 0, m->nnics ? _("No GPUs and no PCI RDMA NICs on this node.")
					    : _("No GPUs and no RDMA NICs on this node."),
			     A_BOLD);
		view_pen_nl(p);
		if (m->live)
			view_pen_wrap(p, 0, _("To see what a GPU node looks like here, open a bundled "
					"scenario: `fabtop demo` lists them."), 0);
		draw_nic_legend(p, m, &t);
	} else {
		draw_matrix(p, m, &t);
		draw_legend(p, m, &t);
		draw_nic_legend(p, m, &t);
		draw_closest(p, m, &t);
		draw_findings(p, m);
	}
	draw_notes(p, m);
	topo_free(&t);
}

static void topology_draw(struct view *v, WINDOW *win, struct view_ctx *c)
{
	const struct fab_model *m = c->m;
	struct topo_state *st = v->priv;
	if (st)
		st->h = getmaxy(win);
	view_draw_body(v, win, m, body);
	if (st && st->n > 0 && v->sel >= st->n)
		v->sel = st->n - 1;
}

static int topology_open(struct view *v, struct view_ctx *c)
{
	struct topo_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -1;
	st->row0 = -1;
	v->priv = st;
	return 0;
}

static void topology_close(struct view *v, struct view_ctx *c)
{
	free(v->priv);
	v->priv = NULL;
}

/* The selected row's content line is on screen. */
static bool sel_in_view(const struct view *v, const struct topo_state *st)
{
	int y = st->row0 + v->sel;
	return y >= v->top && y < v->top + st->h;
}

/* Row i selected and scrolled into view. */
static void select_row(struct view *v, const struct topo_state *st, int i)
{
	v->sel = i;
	if (st->row0 < 0)
		return;
	int y = st->row0 + i;
	if (y < v->top)
		v->top = y;
	else if (y >= v->top + st->h)
		v->top = y - st->h + 1;
}

static bool topology_key(struct view *v, int ch, struct view_ctx *c)
{
	struct topo_state *st = v->priv;
	if (!st || st->row0 < 0 || st->n <= 0 || !sel_in_view(v, st))
		return false;   /* the shell scrolls */
	switch (ch) {
	case KEY_UP:
	case 'k':
		if (v->sel <= 0)
			return false;
		select_row(v, st, v->sel - 1);
		return true;
	case KEY_DOWN:
	case 'j':
		if (v->sel >= st->n - 1)
			return false;   /* past the matrix: read on below it */
		select_row(v, st, v->sel + 1);
		return true;
	}
	return false;
}

/* A matrix row as the search reads it: its label, the device's name (the
 * GPU's PCI address, the NIC's RDMA device and netdev, as the NIC legend
 * names it) and its cells. */
struct find_arg {
	const struct fab_model *m;
	const struct fab_topo *t;
};

static const char *row_text(void *arg, int i, char *buf, size_t len)
{
	const struct find_arg *a = arg;
	const struct fab_topo_dev *d = &a->t->devs[i];
	const struct fab_pci_dev *pd = pci_of(a->m, d->pci);
	char cell[16];
	if (d->kind == TOPO_GPU) {
		snprintf(buf, len, "%s %s", d->label, pd ? pd->bdf : "");
	} else {
		const struct fab_nic *n = &a->m->nics[d->idx];
		snprintf(buf, len, "%s %s %s", d->label, n->name,
			 n->nports > 0 ? n->ports[0].netdev : "");
	}
	for (int j = 0; j < a->t->n; j++) {
		topo_cell(a->t, i, j, cell, sizeof(cell));
		fab_catf(buf, len, " %s", cell);
	}
	return buf;
}

static bool topology_find(struct view *v, struct view_ctx *c, const char *query, int dir)
{
	struct topo_state *st = v->priv;
	struct fab_topo t;
	if (!st || topo_build(c->m, &t) != 0)
		return false;
	struct find_arg a = { c->m, &t };
	int r = view_find_row(t.n, v->sel, dir, query, row_text, &a);
	if (r >= 0)
		select_row(v, st, r);
	topo_free(&t);
	return r >= 0;
}

static bool topology_click(struct view *v, struct view_ctx *c, int y, int x)
{
	struct topo_state *st = v->priv;
	if (!st || st->row0 < 0)
		return false;
	int i = v->top + y - st->row0;
	if (i < 0 || i >= st->n)
		return false;
	/* A second click is Enter, which a matrix row has no use for. */
	select_row(v, st, i);
	return true;
}

static bool topology_pick(struct view *v, struct view_ctx *c, struct fab_pick *out)
{
	struct fab_topo t;
	bool ok = false;
	memset(out, 0, sizeof(*out));
	if (topo_build(c->m, &t) != 0)
		return false;
	if (v->sel >= 0 && v->sel < t.n) {
		const struct fab_topo_dev *d = &t.devs[v->sel];
		const struct fab_pci_dev *pd = pci_of(c->m, d->pci);
		if (d->kind == TOPO_GPU && pd) {
			out->kind = PICK_GPU;
			snprintf(out->dev, sizeof(out->dev), "%s", pd->bdf);
			ok = true;
		} else if (d->kind != TOPO_GPU) {
			out->kind = PICK_NIC;
			snprintf(out->dev, sizeof(out->dev), "%s", c->m->nics[d->idx].name);
			ok = true;
		}
		snprintf(out->label, sizeof(out->label), "%s (%s)", d->label, out->dev);
	}
	topo_free(&t);
	return ok;
}

const struct view_ops topology_view_ops = {
	.name = "topology",
	.light = true,
	.title = N_("Topology"),
	.help = N_("Which GPU sits close to which NIC, as `nvidia-smi topo -m` prints it "
		   "(X, NV#, PIX, PXB, PHB, NODE, SYS), but computed from the PCI tree and "
		   "NUMA data, so it works without the NVIDIA driver. Layer: PCIe and NUMA "
		   "placement, below RDMA and NCCL. A GPU whose traffic crosses the CPU "
		   "interconnect (SYS) to reach its NIC loses bandwidth when a closer NIC "
		   "exists; the mark shows each GPU's closest usable NIC. The NIC legend "
		   "adds each HCA's netdev, link layer, port state, rate and PCIe link "
		   "against its capability; findings list misplaced pairs and downtrained "
		   "links. Keys: Up/Down select a GPU or NIC row of the matrix (its label is "
		   "highlighted) and scroll past it; / searches the rows (names, PCI "
		   "addresses, netdevs); a click selects a row."),
	.open = topology_open,
	.close = topology_close,
	.draw = topology_draw,
	.key = topology_key,
	.find = topology_find,
	.click = topology_click,
	.pick = topology_pick,
};
