/*
 * help.c - the Help pane: keys, one paragraph per pane (from each pane's
 * view_ops.help, so the text lives next to the code it describes), the
 * topology legend, and the live counters' limits with their sources.
 */
#include <stdio.h>
#include "fabtop/ctr_limits.h"
#include "fabtop/topo.h"
#include "fabtop/vocab.h"
#include "fabtop/view.h"

static const struct { const char *keys, *what; } help_keys[] = {
	{ "Tab / Shift-Tab", "next / previous pane" },
	{ "1 .. 9", "go to pane N" },
	{ "Up Down PgUp PgDn", "scroll" },
	{ "Home / End", "top / bottom" },
	{ "Left / Right", "scroll sideways (wide tables)" },
	{ "? or F1", "this help; again, or Esc, to go back" },
	{ "r", "read the node (or the capture) again" },
	{ "Backspace", "`fabtop fleet`: back to the Fleet pane from a node's panes" },
	{ "q or F10", "quit" },
};

/* The live counters' limits, printed from ctr_limit_defs[] itself, so the
 * help and the judgement cannot disagree. */
static void limits_section(struct view_pen *p)
{
	char buf[160], lim[96], text[512];
	view_pen_put(p, 0, "Counter limits (live: the Counters pane, report counters)", fab_attr(CP_TITLE));
	view_pen_nl(p);
	for (int i = 0; i < ctr_nlimit_defs; i++) {
		const struct ctr_limit_def *d = &ctr_limit_defs[i];
		snprintf(buf, sizeof(buf), "%s/%s: %s", d->dir, d->name,
			 ctr_limit_text(d, lim, sizeof(lim)));
		view_pen_wrap(p, 2, buf, A_BOLD);
		snprintf(text, sizeof(text), "%s %s. %s. Source: %s.", sev_name(d->sev), d->id,
			 d->what, d->source);
		view_pen_wrap(p, 4, text, 0);
	}
	view_pen_wrap(p, 2, "Rates are over the real time the last window covers; a watch shorter "
		      "than the window judges what it saw (watching N s of 1 h). A counter pinned at "
		      "its maximum is blind: its limit cannot be judged until it is cleared.", 0);
	view_pen_nl(p);
}

static void body(struct view_pen *p, const struct fab_model *m)
{
	char buf[160];
	int title = fab_attr(CP_TITLE);
	(void)m;
	view_pen_put(p, 0, "fabtop: diagnostics console for GPU-node networking", title);
	view_pen_nl(p);
	view_pen_nl(p);
	view_pen_put(p, 0, "Keys", title);
	view_pen_nl(p);
	for (size_t i = 0; i < sizeof(help_keys) / sizeof(help_keys[0]); i++) {
		view_pen_put(p, 2, help_keys[i].keys, A_BOLD);
		view_pen_put(p, 21, help_keys[i].what, 0);
		view_pen_nl(p);
	}
	view_pen_nl(p);
	view_pen_put(p, 0, "Panes", title);
	view_pen_nl(p);
	for (int i = 0; i < fab_npanes; i++) {
		snprintf(buf, sizeof(buf), "%d %s", i + 1, fab_panes[i]->title);
		view_pen_put(p, 2, buf, A_BOLD);
		view_pen_nl(p);
		if (fab_panes[i]->help)
			view_pen_wrap(p, 4, fab_panes[i]->help, 0);
		view_pen_nl(p);
	}
	view_pen_put(p, 0, "Topology legend", title);
	view_pen_nl(p);
	for (int i = 0; topo_legend[i]; i++)
		view_pen_legend(p, topo_legend[i]);
	view_pen_legend(p, "  *    = NVLink unknown (no NVML): the PCIe path is shown");
	/* The mark is one column in both forms, so the padding is fixed. */
	snprintf(buf, sizeof(buf), "  %s    = the closest usable NIC of this GPU (fabtop)",
		 fab_glyph(TOPO_MARK_UTF8, TOPO_MARK_ASCII));
	view_pen_legend(p, buf);
	view_pen_nl(p);
	limits_section(p);
	view_pen_put(p, 0, "Press q to quit, Tab to switch panes.", A_BOLD);
	view_pen_nl(p);
}

static void help_draw(struct view *v, WINDOW *win, struct view_ctx *c)
{
	const struct fab_model *m = c->m;
	view_draw_body(v, win, m, body);
}

const struct view_ops help_view_ops = {
	.name = "help",
	.title = "Help",
	.help = "This page: the keys, what each pane shows and which layer of the "
		"stack it checks, and the legend of the topology matrix.",
	.draw = help_draw,
	.key = NULL,
};
