/*
 * help.c - the Help pane: keys, one paragraph per pane present (from each
 * pane's view_ops.help, so the text lives next to the code it describes),
 * the topology legend, and the live counters' limits with their sources.
 * It is searchable itself (`/`): find() walks the lines as drawn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "fabtop/ctr_limits.h"
#include "fabtop/i18n.h"
#include "fabtop/topo.h"
#include "fabtop/vocab.h"
#include "fabtop/view.h"

/* The shell's keys; each pane's own keys are in its paragraph. "1 .. N"
 * is written with the number of panes present. */
static const struct { const char *keys, *what; } help_keys[] = {
	{ N_("Tab / Shift-Tab"), N_("next / previous pane") },
	{ NULL, N_("go to pane N (the panes in the tab bar)") },
	{ N_("Up Down PgUp PgDn"), N_("scroll or move the selection; the mouse wheel too") },
	{ N_("Home / End"), N_("top / bottom") },
	{ N_("Left / Right"), N_("scroll sideways (wide tables)") },
	{ "/", N_("search this pane's list: type, Enter runs it, Esc cancels") },
	{ "n / N", N_("next / previous match of the last search") },
	{ N_("mouse"), N_("click a tab to show it, a row to select it (again: as Enter); -M turns it off") },
	{ N_("h, ? or F1"), N_("this help; again, or Esc, to go back") },
	{ "D", N_("switch scenario (in a demo or learn mode)") },
	{ "L", N_("learn: exercises on the bundled scenarios") },
	{ "A", N_("learn mode: the selected row is my answer") },
	{ "F2", N_("settings: interval, colours, first pane, mouse") },
	{ "r", N_("read the node (or the capture) again") },
	{ N_("Backspace"), N_("`fabtop fleet`: back to the Fleet pane from a node's panes") },
	{ N_("q or F10"), N_("quit") },
};

/* The context of the frame being drawn or searched: the panes present. */
static const struct view_ctx *help_ctx;

struct help_state {
	int w;        /* the window's width at the last draw: find lays out the same */
	int found;    /* the line the last search found, -1 none */
};

/* The live counters' limits, printed from ctr_limit_defs[] itself, so the
 * help and the judgement cannot disagree. */
static void limits_section(struct view_pen *p)
{
	char buf[160], lim[96], text[512];
	view_pen_put(p, 0, _("Counter limits (live: the Counters pane, report counters)"), fab_attr(CP_TITLE));
	view_pen_nl(p);
	for (int i = 0; i < ctr_nlimit_defs; i++) {
		const struct ctr_limit_def *d = &ctr_limit_defs[i];
		snprintf(buf, sizeof(buf), "%s/%s: %s", d->dir, d->name,
			 ctr_limit_text(d, lim, sizeof(lim)));
		view_pen_wrap(p, 2, buf, A_BOLD);
		/* The source is a citation: as published. */
		snprintf(text, sizeof(text), _("%s %s. %s. Source: %s."), sev_word(d->sev), d->id,
			 _(d->what), d->source);
		view_pen_wrap(p, 4, text, 0);
	}
	view_pen_wrap(p, 2, _("Rates are over the real time the last window covers; a watch shorter "
			"than the window judges what it saw (watching N s of 1 h). A counter pinned at "
			"its maximum is blind: its limit cannot be judged until it is cleared."), 0);
	view_pen_nl(p);
}

static void body(struct view_pen *p, const struct fab_model *m)
{
	char buf[320], keys[32];
	int title = fab_attr(CP_TITLE), npresent = 0, keyw = 0;
	(void)m;
	for (int i = 0; i < fab_npanes; i++)
		npresent += !help_ctx || view_pane_present(fab_panes[i], help_ctx);
	snprintf(keys, sizeof(keys), "1 .. %d", npresent);
	/* The keys' column is as wide as the widest key as shown (translated). */
	for (size_t i = 0; i < sizeof(help_keys) / sizeof(help_keys[0]); i++) {
		int w = view_strwidth(help_keys[i].keys ? _(help_keys[i].keys) : keys);
		keyw = w > keyw ? w : keyw;
	}
	view_pen_put(p, 0, _("fabtop: diagnostics console for GPU-node networking"), title);
	view_pen_nl(p);
	view_pen_nl(p);
	view_pen_put(p, 0, _("Keys"), title);
	view_pen_nl(p);
	for (size_t i = 0; i < sizeof(help_keys) / sizeof(help_keys[0]); i++) {
		view_pen_put(p, 2, help_keys[i].keys ? _(help_keys[i].keys) : keys, A_BOLD);
		view_pen_wrap_hang(p, 4 + keyw, 4 + keyw, _(help_keys[i].what), 0);
	}
	view_pen_nl(p);
	view_pen_put(p, 0, _("Panes"), title);
	view_pen_nl(p);
	for (int i = 0, k = 0; i < fab_npanes; i++) {
		if (help_ctx && !view_pane_present(fab_panes[i], help_ctx))
			continue;
		snprintf(buf, sizeof(buf), "%d %s", ++k, _(fab_panes[i]->title));
		view_pen_put(p, 2, buf, A_BOLD);
		view_pen_nl(p);
		if (fab_panes[i]->help)
			view_pen_wrap(p, 4, _(fab_panes[i]->help), 0);
		view_pen_nl(p);
	}
	view_pen_put(p, 0, _("Topology legend"), title);
	view_pen_nl(p);
	for (int i = 0; topo_legend[i]; i++)
		view_pen_legend(p, topo_legend[i]);
	/* fabtop's own marks, not nvidia-smi's legend: translated, the
	 * "  X    = " head kept as it is. */
	view_pen_legend(p, _("  *    = NVLink unknown (no NVML): the PCIe path is shown"));
	/* The mark is one column in both forms, so the padding is fixed. */
	snprintf(buf, sizeof(buf), _("  %s    = the closest usable NIC of this GPU (fabtop)"),
		 fab_glyph(TOPO_MARK_UTF8, TOPO_MARK_ASCII));
	view_pen_legend(p, buf);
	view_pen_nl(p);
	limits_section(p);
	view_pen_put(p, 0, _("Press q to quit, Tab to switch panes, / to search this help."), A_BOLD);
	view_pen_nl(p);
}

static int help_open(struct view *v, struct view_ctx *c)
{
	struct help_state *hs = calloc(1, sizeof(*hs));
	(void)c;
	if (!hs)
		return -1;
	hs->found = -1;
	v->priv = hs;
	return 0;
}

static void help_close(struct view *v, struct view_ctx *c)
{
	(void)c;
	free(v->priv);
	v->priv = NULL;
}

static void help_draw(struct view *v, WINDOW *win, struct view_ctx *c)
{
	struct help_state *hs = v->priv;
	help_ctx = c;
	view_draw_body(v, win, c->m, body);
	if (!hs)
		return;
	hs->w = getmaxx(win);
	/* The line the search found stands out (reverse, not colour alone). */
	int y = hs->found - v->top;
	if (hs->found >= 0 && y >= 0 && y < getmaxy(win))
		mvwchgat(win, y, 0, -1, A_REVERSE, 0, NULL);
}

/* Line i of the help as drawn on the pad, as UTF-8. */
static const char *pad_line(void *arg, int i, char *buf, size_t len)
{
	WINDOW *pad = arg;
	int w = getmaxx(pad);
	wchar_t *ws = calloc((size_t)w + 1, sizeof(*ws));
	buf[0] = '\0';
	if (!ws)
		return buf;
	int n = mvwinnwstr(pad, i, 0, ws, w);
	ws[n > 0 ? n : 0] = L'\0';
	size_t k = wcstombs(buf, ws, len - 1);
	buf[k == (size_t)-1 ? 0 : k] = '\0';
	free(ws);
	return buf;
}

/* The `/` search over the help's lines: the whole help is drawn once more
 * on a pad as wide as the pane (the same wrapping), each line read back
 * as shown; the line found goes to the top of the pane. The walk starts
 * after the line found last while it is in view, else at the top line. */
static bool help_find(struct view *v, struct view_ctx *c, const char *query, int dir)
{
	struct help_state *hs = v->priv;
	if (!hs || hs->w <= 0 || v->content_h <= 0)
		return false;
	WINDOW *pad = newpad(v->content_h, hs->w);
	if (!pad)
		return false;
	struct view all = *v;
	all.top = all.left = 0;
	help_ctx = c;
	view_draw_body(&all, pad, c->m, body);
	int from = hs->found >= v->top && hs->found >= 0 ? hs->found : dir > 0 ? v->top - 1 : v->top;
	int i = view_find_row(all.content_h, from, dir, query, pad_line, pad);
	delwin(pad);
	if (i < 0)
		return false;
	hs->found = i;
	v->top = i;
	return true;
}

const struct view_ops help_view_ops = {
	.name = "help",
	.light = true,
	.title = N_("Help"),
	.help = N_("This page: the keys, what each pane shows and which layer of the "
		   "stack it checks, and the legend of the topology matrix."),
	.open = help_open,
	.close = help_close,
	.draw = help_draw,
	.find = help_find,
};
