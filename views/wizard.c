/*
 * wizard.c - the Wizard pane: the test ladder on the left (each step with
 * its status glyph and layer), the selected step on the right (why it
 * matters, its inputs, what it ran, its verdict, hint and findings, and the
 * raw output on 'v'); stacked when the terminal is narrow.
 *
 * A quick step (no start op) runs inside the key: the pane draws it
 * "running" first, then blocks until it is done (the MTU probe waits at
 * most a second or two per peer). A long one (perftest, the A/B) starts
 * in the background: the shell polls it (tui.c) and the pane shows it
 * running with its elapsed time until it ends or 'x' cancels it: due()
 * and tick() poll it, wait_fd() lets the shell wake on its child's output,
 * close() cancels it. The wizard is the session's (view_ctx), outside the
 * snapshot; this file only asks the engine to run, cancel, skip or change
 * inputs. A step
 * with a draw() hook (the A/B's, views/wizard_ab.c) draws its own result;
 * no step is known here by its id.
 *
 * State in struct view: sel the selected step, top/left the detail's
 * scroll, mode bit 0 the raw output; in v->priv the wizard it drives and
 * the input editor ('e'), which is modal: while it is open every key goes
 * to it.
 *
 * The ladder's rows are what the shell's `/` search walks (find), what a
 * click selects (a second click on the selected step is Enter), and what
 * `fabtop learn` is answered with (pick: the step's id). Every text a
 * person reads goes through _() (the steps' own texts, from wizard_steps.c,
 * too: they are translated where they are written).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/i18n.h"
#include "fabtop/layout.h"
#include "fabtop/sanitize.h"
#include "fabtop/table.h"
#include "fabtop/view.h"
#include "fabtop/wizard.h"

#define SIDE_MIN_W  96     /* from this width the detail goes beside the ladder */
#define LADDER_W    30
#define MODE_RAW    1
#define POLL_S      0.1    /* a running step's output and elapsed time move this often */

/* ---- the input editor ------------------------------------------------------ */

enum edit_field { EDIT_NONE = 0, EDIT_PEERS, EDIT_IFACE, EDIT_HCA, EDIT_CMD };

struct editor {
	enum edit_field field;
	char buf[2048];               /* the longest field: the A/B command */
	size_t len;
	char msg[320];                /* the last refusal, or what was saved */
	char busy[320];               /* the refusal while a step runs; it goes once the step ends */
};

/* The pane's own state. */
struct wizard_state {
	struct wizard *w;             /* the session's (view_ctx); NULL: none */
	struct editor ed;
	WINDOW *drawn_win;            /* where the last frame went: a quick step draws "running" there */
	int ladder_y, ladder_h;       /* the ladder's step rows in the pane's window, for clicks */
	int ladder_w;                 /* its width (the detail is beside it or below) */
	int ladder_top;               /* the first step in view there */
	struct view_ctx *ctx;         /* of the last draw, for that frame */
	double next_poll;             /* when a running step is looked at again; 0 at once */
};

static struct wizard_state *state(const struct view *v) { return v->priv; }

static const char *field_prompt(enum edit_field f)
{
	return f == EDIT_PEERS ? _("peers (space-separated)") : f == EDIT_IFACE ? _("interface")
		: f == EDIT_HCA ? _("HCAs (NCCL_IB_HCA)") : _("A/B NCCL test (empty: loopback)");
}

static void edit_load(struct editor *ed, const struct wizard *w, enum edit_field f)
{
	ed->field = f;
	ed->buf[0] = '\0';
	if (f == EDIT_PEERS)
		wizard_peers_line(w, ed->buf, sizeof(ed->buf));
	else if (f == EDIT_IFACE)
		snprintf(ed->buf, sizeof(ed->buf), "%s", w->opt.iface);
	else if (f == EDIT_HCA)
		snprintf(ed->buf, sizeof(ed->buf), "%s", w->opt.hca);
	else if (f == EDIT_CMD)
		wizard_cmd_line(w, ed->buf, sizeof(ed->buf));
	ed->len = strlen(ed->buf);
}

/* Enter: store the field (validated by the engine) and go to the next. */
static void edit_commit(struct editor *ed, struct wizard *w)
{
	char err[320] = "";
	int rc = ed->field == EDIT_PEERS ? wizard_set_peers(w, ed->buf, err, sizeof(err))
		: ed->field == EDIT_IFACE ? wizard_set_iface(w, ed->buf, err, sizeof(err))
		: ed->field == EDIT_HCA ? wizard_set_hca(w, ed->buf, err, sizeof(err))
		: wizard_set_cmd(w, ed->buf, err, sizeof(err));
	if (rc != 0) {
		snprintf(ed->msg, sizeof(ed->msg), "%s", err);
		return;   /* stay on the field */
	}
	ed->msg[0] = '\0';
	if (ed->field == EDIT_CMD) {
		ed->field = EDIT_NONE;
		snprintf(ed->msg, sizeof(ed->msg), "%s", _("inputs saved; Enter runs the next step, r re-runs this one"));
		return;
	}
	edit_load(ed, w, ed->field + 1);
}

static bool edit_key(struct editor *ed, struct wizard *w, int ch)
{
	switch (ch) {
	case 27:   /* Esc: the fields already stored stay */
		ed->field = EDIT_NONE;
		snprintf(ed->msg, sizeof(ed->msg), "%s", _("editing cancelled"));
		return true;
	case '\n':
	case '\r':
	case KEY_ENTER:
		edit_commit(ed, w);
		return true;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (ed->len)
			ed->buf[--ed->len] = '\0';
		return true;
	case 21:   /* ^U */
		ed->len = 0;
		ed->buf[0] = '\0';
		return true;
	default:
		if (ch >= ' ' && ch < 127 && ed->len + 1 < sizeof(ed->buf)) {
			ed->buf[ed->len++] = (char)ch;
			ed->buf[ed->len] = '\0';
		}
		return true;   /* nothing reaches the shell while editing */
	}
}

/* ---- the ladder ------------------------------------------------------------- */

static const char *status_glyph(enum wiz_status s)
{
	switch (s) {
	case WIZ_PASS: return fab_glyph("\u2714", "+");
	case WIZ_WARN: return "!";
	case WIZ_FAIL: return fab_glyph("\u2718", "x");
	case WIZ_SKIPPED: return "-";
	case WIZ_BLOCKED: return fab_glyph("\u2298", "#");
	case WIZ_RUNNING: return fab_glyph("\u2026", "~");
	default: return fab_glyph("\u00b7", ".");
	}
}

static int status_attr(enum wiz_status s)
{
	switch (s) {
	case WIZ_PASS: return fab_attr(CP_OK);
	case WIZ_WARN: return fab_attr(CP_WARN);
	case WIZ_FAIL: return fab_attr(CP_ERROR);
	case WIZ_BLOCKED: return fab_attr(CP_ERROR);
	case WIZ_SKIPPED: return fab_attr(CP_DIM);
	case WIZ_RUNNING: return A_BOLD;
	default: return 0;
	}
}

/* The ladder is a table (table.h): the status glyph, the step, its layer
 * and its status word. */
enum { L_GLYPH, L_ID, L_LAYER, L_STATUS, NLCOLS };

static const struct tbl_col lcols[NLCOLS] = {
	[L_GLYPH] = { .head = "" }, [L_ID] = { .head = "", .min = 4 }, [L_LAYER] = { .head = "", .min = 11 },
	[L_STATUS] = { .head = "", .min = 7, .last_free = true },
};

static void ladder_cell(const void *ctx, int i, int col, char *buf, size_t len)
{
	const struct wizard *w = ctx;
	const struct wiz_step *s = &w->steps[i];
	switch (col) {
	case L_GLYPH:
		snprintf(buf, len, "%s", status_glyph(s->status));
		break;
	case L_ID:
		snprintf(buf, len, "%s", s->def->id);
		break;
	case L_LAYER:
		snprintf(buf, len, "%s", _(s->def->layer));
		break;
	case L_STATUS:
		snprintf(buf, len, "%s", s->status == WIZ_PENDING && i == wizard_next_pending(w) ? _("next") :
			 _(wiz_status_name(s->status)));
		break;
	}
}

static struct tbl ladder_tbl(const struct wizard *w)
{
	return (struct tbl){ .cols = lcols, .ncols = NLCOLS, .nrows = w->nsteps, .cell = ladder_cell,
			     .ctx = w, .gap = 1, .prefix = 2 };
}

/* Step i's row as the ladder shows it ("> ✔ l1   1 physical  pass"). */
static char *ladder_line(const struct wizard *w, int i, bool sel, char *line, size_t len)
{
	struct tbl t = ladder_tbl(w);
	struct tbl_fit f;
	tbl_fit(&t, 0, &f);
	tbl_line(&t, &f, i, line, len);
	if (sel)
		line[0] = '>';
	return line;
}

/* Whether the ladder has its title: only when every step fits under it. */
static bool ladder_titled(const struct wizard *w, int h)
{
	return h > w->nsteps;
}

static void ladder_body(struct view_pen *p, const struct fab_model *m)
{
	const struct wizard *w = state(p->v)->w;
	char line[160];
	(void)m;
	if (ladder_titled(w, p->h)) {
		view_pen_put(p, 0, _("Ladder"), fab_attr(CP_TITLE));
		view_pen_nl(p);
	}
	for (int i = 0; i < w->nsteps; i++) {
		bool sel = i == p->v->sel;
		int a = status_attr(w->steps[i].status);
		view_pen_put(p, 0, ladder_line(w, i, sel, line, sizeof(line)), sel ? a | fab_attr(CP_SELECT) : a);
		view_pen_nl(p);
	}
}

/* ---- the selected step -------------------------------------------------------- */

static void heading(struct view_pen *p, const char *s)
{
	view_pen_nl(p);
	view_pen_fixed(p, 0, s, fab_attr(CP_TITLE));
	view_pen_nl(p);
}

/* The inputs a pending step will use: what the engine resolved now. */
static void pending_inputs(struct view_pen *p, const struct wizard *w)
{
	char buf[600], peers[WIZ_MAX_PEERS * 48];
	const struct wiz_inputs *in = &w->in;
	if (!in->iface[0])
		snprintf(buf, sizeof(buf), "%s", _("interface (none yet)"));
	else if (in->iface_src[0])
		snprintf(buf, sizeof(buf), _("interface %s (%s)"), in->iface, in->iface_src);
	else
		snprintf(buf, sizeof(buf), _("interface %s"), in->iface);
	view_pen_wrap_hang(p, 2, 4, buf, 0);
	if (!in->hca[0])
		snprintf(buf, sizeof(buf), "%s", _("HCAs all"));
	else if (in->hca_src[0])
		snprintf(buf, sizeof(buf), _("HCAs %s (%s)"), in->hca, in->hca_src);
	else
		snprintf(buf, sizeof(buf), _("HCAs %s"), in->hca);
	view_pen_wrap_hang(p, 2, 4, buf, 0);
	wizard_peers_line(w, peers, sizeof(peers));
	if (peers[0])
		snprintf(buf, sizeof(buf), _("peers %s"), peers);
	else
		snprintf(buf, sizeof(buf), "%s", _("peers none (e to add)"));
	view_pen_wrap_hang(p, 2, 4, buf, 0);
	if (in->pid) {
		snprintf(buf, sizeof(buf), _("pid %d"), in->pid);
		view_pen_wrap_hang(p, 2, 4, buf, 0);
	}
}

void wizard_step_result(struct view_pen *p, const struct wiz_step *s)
{
	char buf[640];
	/* A step with a drawer (the A/B) shows its own verdict, hint and more. */
	if (s->def->draw && s->def->draw(p, s))
		return;
	if (s->verdict[0] && s->status != WIZ_RUNNING)
		view_pen_wrap_hang(p, 0, 2, s->verdict, status_attr(s->status));
	if (s->hint[0] && s->status != WIZ_RUNNING) {
		snprintf(buf, sizeof(buf), _("next: %s"), s->hint);
		view_pen_wrap_hang(p, 0, view_strwidth(_("next: ")), buf, 0);
	}
}

static void detail_body(struct view_pen *p, const struct fab_model *m)
{
	const struct wizard *w = state(p->v)->w;
	(void)m;
	const struct wiz_step *s = &w->steps[p->v->sel];
	const struct wiz_step_def *d = s->def;
	char buf[640];

	snprintf(buf, sizeof(buf), _("Layer %s: %s"), _(d->layer), _(d->title));
	view_pen_fixed(p, 0, buf, fab_attr(CP_TITLE));
	view_pen_nl(p);
	if (s->status == WIZ_PENDING && wizard_next_pending(w) == p->v->sel)
		snprintf(buf, sizeof(buf), _("%s pending: Enter runs it"), status_glyph(s->status));
	else if (s->status == WIZ_PENDING)
		snprintf(buf, sizeof(buf), _("%s pending: Enter runs the next pending step; r runs this one"),
			 status_glyph(s->status));
	else if (s->status == WIZ_RUNNING && wizard_busy(w) == p->v->sel)
		snprintf(buf, sizeof(buf), _("%s running %.0f s (x cancels)"), status_glyph(s->status),
			 s->elapsed_s);
	else if (s->status == WIZ_RUNNING)
		snprintf(buf, sizeof(buf), _("%s running%s (the pane waits for it)"), status_glyph(s->status),
			 fab_glyph("\u2026", "..."));
	else
		snprintf(buf, sizeof(buf), _("%s %s in %.2f s"), status_glyph(s->status),
			 _(wiz_status_name(s->status)), s->elapsed_s);
	view_pen_fixed(p, 0, buf, status_attr(s->status) | A_BOLD);
	view_pen_nl(p);
	wizard_step_result(p, s);

	heading(p, _("Why this matters"));
	view_pen_wrap(p, 2, _(d->why), 0);

	heading(p, _("Inputs"));
	if (s->ninputs)
		for (int i = 0; i < s->ninputs; i++)
			view_pen_wrap_hang(p, 2, 4, s->inputs[i], 0);
	else
		pending_inputs(p, w);

	if (s->ncmds) {
		heading(p, _("Ran"));
		for (int i = 0; i < s->ncmds; i++)
			view_pen_wrap_hang(p, 2, 4, s->cmds[i], fab_attr(CP_DIM));
	}
	if (s->npeers) {
		heading(p, _("Peers"));
		for (int i = 0; i < s->npeers; i++) {
			const struct wiz_peer *pr = &s->peers[i];
			char pm[24] = "N/A", via[FAB_NAME_LEN + 64], hop[FAB_NAME_LEN + 32] = "";
			long long np = pr->nprobes.ok ? pr->nprobes.v : 0LL;
			if (pr->path_mtu.ok)
				snprintf(pm, sizeof(pm), "%lld", pr->path_mtu.v);
			if (pr->route_ok)
				snprintf(via, sizeof(via), "%s", pr->route_dev[0] ? pr->route_dev : "?");
			else
				snprintf(via, sizeof(via), _("%s (not the interface)"),
					 pr->route_dev[0] ? pr->route_dev : "?");
			if (pr->hop[0])
				snprintf(hop, sizeof(hop), _(", hop %s"), pr->hop);
			snprintf(buf, sizeof(buf), P_("%s via %s: %s, path MTU %s%s (%lld probe)",
						      "%s via %s: %s, path MTU %s%s (%lld probes)", (unsigned long)np),
				 pr->peer, via, pr->verdict[0] ? pr->verdict : _("not probed"), pm, hop, np);
			view_pen_wrap_hang(p, 2, 4, buf, 0);
		}
	}
	if (s->nfindings) {
		heading(p, _("Findings"));
		for (int i = 0; i < s->nfindings; i++) {
			view_pen_finding(p, 2, &s->findings[i]);
		}
	}
	if (s->out_len) {
		heading(p, p->v->mode & MODE_RAW ? _("Output") : _("Output (v shows it)"));
		if (p->v->mode & MODE_RAW) {
			const char *o = s->out;
			while (*o) {
				size_t n = strcspn(o, "\n");
				/* Tabs align command output: spaces here, \t in a name. */
				fab_sanitize_line(o, n, buf, sizeof(buf));
				view_pen_put(p, 2, buf, 0);
				view_pen_nl(p);
				o += n + (o[n] == '\n');
			}
			if (s->out_total > s->out_len) {
				snprintf(buf, sizeof(buf), _("[cut at %zu of %zu bytes]"), s->out_len, s->out_total);
				view_pen_put(p, 2, buf, fab_attr(CP_DIM));
				view_pen_nl(p);
			}
		}
	}
}

static void none_body(struct view_pen *p, const struct fab_model *m)
{
	(void)m;
	view_pen_wrap(p, 0, _("The wizard is not available in this session; start it with "
			      "`fabtop wizard [--peer HOST] [--iface IF]`."), 0);
}

/* ---- layout and drawing ---------------------------------------------------------- */

/* The ladder and the step's detail (layout.h), over the key line and the
 * editor's message line when there is one. */
static struct split wiz_layout(int h, int w, int nsteps, bool msg_line)
{
	struct split_spec sp = { .nrows = nsteps + 1, .list_w = LADDER_W, .side_min_w = SIDE_MIN_W,
				 .bottom = 1 + (msg_line ? 1 : 0) };
	return layout_split(h, w, &sp);
}

static void draw_keys(WINDOW *win, struct editor *ed, int keys_y, int w, bool busy)
{
	char line[512];
	if (ed->field) {
		snprintf(line, sizeof(line), "%s> %s_", field_prompt(ed->field), ed->buf);
		view_put(win, keys_y, 0, 0, line, A_BOLD);
		if (ed->msg[0] && keys_y > 0)
			view_put(win, keys_y - 1, 0, 0, ed->msg, fab_attr(CP_ERROR));
		return;
	}
	if (!busy)
		ed->busy[0] = '\0';
	const char *msg = ed->busy[0] ? ed->busy : ed->msg;
	if (msg[0] && keys_y > 0)
		view_put(win, keys_y - 1, 0, 0, msg, fab_attr(CP_DIM));
	/* The long line where it fits, by display width (a translation may be
	 * wider or narrower than the English). */
	const char *lng = busy ? _("x:cancel the running step  e:edit inputs  v:raw output  Up/Down:select")
		: _("Enter:run next  r:re-run  s:skip  e:edit inputs  v:raw output  Up/Down:select");
	const char *sht = busy ? _("x:cancel e:edit v:raw") : _("Enter:run r:rerun s:skip e:edit v:raw");
	snprintf(line, sizeof(line), "%s", view_strwidth(lng) <= w ? lng : sht);
	view_put(win, keys_y, 0, 0, line, fab_attr(CP_DIM));
}

static void wizard_draw(struct view *v, WINDOW *win, struct view_ctx *c)
{
	const struct fab_model *m = c->m;
	struct wizard_state *st = state(v);
	int h, w;
	getmaxyx(win, h, w);
	const struct wizard *wz = st ? st->w : NULL;
	if (!wz) {
		view_draw_body(v, win, m, none_body);
		return;
	}
	st->drawn_win = win;
	st->ctx = c;
	if (v->sel < 0 || v->sel >= wz->nsteps)
		v->sel = 0;
	if (wizard_busy(wz) < 0)
		st->ed.busy[0] = '\0';   /* the refusal goes with the step it was about */
	struct split l = wiz_layout(h, w, wz->nsteps, st->ed.field || st->ed.msg[0] || st->ed.busy[0]);

	WINDOW *sub = derwin(win, l.list_h, l.list_w, 0, 0);
	if (sub) {
		/* A short ladder scrolls to keep the selected step in view. */
		struct view lv = { .sel = v->sel, .top = v->sel >= l.list_h ? v->sel - l.list_h + 1 : 0,
				   .priv = v->priv };
		view_draw_body(&lv, sub, m, ladder_body);
		delwin(sub);
		/* Where the steps are, for clicks: under the title when it has one. */
		st->ladder_y = ladder_titled(wz, l.list_h) ? 1 : 0;
		st->ladder_h = l.list_h - st->ladder_y;
		st->ladder_top = lv.top;
		st->ladder_w = l.list_w;
	}
	if (l.side) {
		for (int y = 0; y < l.detail_y + l.detail_h; y++)
			view_put(win, y, LADDER_W + 1, 0, fab_glyph("\u2502", "|"), fab_attr(CP_DIM));
	} else if (l.rule_y >= 0 && l.rule_y < h) {
		for (int x = 0; x < w; x++)
			view_put(win, l.rule_y, x, 0, fab_glyph("\u2500", "-"), fab_attr(CP_DIM));
	}
	struct view dv = { .sel = v->sel, .top = v->top, .left = v->left, .mode = v->mode,
			   .priv = v->priv };
	sub = l.detail_h > 0 && l.detail_w > 0 ? derwin(win, l.detail_h, l.detail_w, l.detail_y, l.detail_x)
		: NULL;
	if (sub) {
		view_draw_body(&dv, sub, m, detail_body);
		delwin(sub);
	}
	v->top = dv.top;
	v->left = dv.left;
	v->page_h = l.detail_h;
	draw_keys(win, &st->ed, h - 1, w, wizard_busy(wz) >= 0);
	/* The status bar's position then speaks for the detail. */
	v->content_h = dv.content_h > l.detail_h ? dv.content_h + (h - l.detail_h) : h;
	v->content_w = dv.content_w + (w - l.detail_w);
}

/* ---- keys ---------------------------------------------------------------------------- */

static void run_step(struct view *v, struct wizard *w, int i, struct view_ctx *c)
{
	struct wizard_state *st = state(v);
	v->sel = i;
	v->top = 0;
	if (!w->steps[i].def->start) {
		wizard_mark_running(w, i);
		if (st->drawn_win) {
			/* A quick step blocks: show "running" before the wait. */
			touchwin(st->drawn_win);
			wizard_draw(v, st->drawn_win, c);
			wnoutrefresh(st->drawn_win);
			doupdate();
		}
	}
	wizard_start_step(w, i, c->m);
	st->next_poll = 0;   /* a step started in the background: look at it at once */
}

/* Enter, r and s wait for the running step: one step at a time. */
static bool refuse_busy(struct editor *ed, const struct wizard *w)
{
	int b = wizard_busy(w);
	if (b < 0)
		return false;
	snprintf(ed->busy, sizeof(ed->busy), _("a step is running (%s): x cancels"), w->steps[b].def->id);
	return true;
}

static bool wizard_key(struct view *v, int ch, struct view_ctx *c)
{
	struct wizard_state *st = state(v);
	struct wizard *w = st ? st->w : NULL;
	if (!w)
		return false;
	struct editor *ed = &st->ed;
	if (ed->field)
		return edit_key(ed, w, ch);
	switch (ch) {
	case '\n':
	case '\r':
	case KEY_ENTER: {
		int i = wizard_next_pending(w);
		ed->msg[0] = '\0';
		if (refuse_busy(ed, w))
			return true;
		if (i < 0)
			snprintf(ed->msg, sizeof(ed->msg), "%s", _("every step has run: r re-runs the selected one"));
		else
			run_step(v, w, i, c);
		return true;
	}
	case 'r':
		ed->msg[0] = '\0';
		if (!refuse_busy(ed, w))
			run_step(v, w, v->sel, c);
		return true;
	case 's':
		if (refuse_busy(ed, w))
			return true;
		wizard_skip_step(w, v->sel);
		if (v->sel + 1 < w->nsteps)
			v->sel++;
		v->top = 0;
		return true;
	case 'e':
		ed->msg[0] = '\0';
		edit_load(ed, w, EDIT_PEERS);
		return true;
	case 'x': {
		int b = wizard_busy(w);
		if (b < 0) {
			snprintf(ed->msg, sizeof(ed->msg), "%s", _("nothing is running: x cancels a running step"));
			return true;
		}
		wizard_cancel(w);
		snprintf(ed->msg, sizeof(ed->msg), _("step %s cancelled"), w->steps[b].def->id);
		v->sel = b;
		return true;
	}
	case 'v':
		v->mode ^= MODE_RAW;
		return true;
	default:
		/* Up/Down select a step; the detail scrolls, the next draw clamps. */
		return view_list_key(v, ch, 0, w->nsteps) || view_detail_key(v, ch);
	}
}

/* ---- search, mouse and learn's answers ------------------------------------------ */

static const char *step_as_shown(void *arg, int i, char *buf, size_t len)
{
	return ladder_line(arg, i, false, buf, len);
}

/* The shell's `/` (and n/N) over the ladder's rows as shown. */
static bool wizard_find(struct view *v, struct view_ctx *c, const char *query, int dir)
{
	struct wizard_state *st = state(v);
	(void)c;
	if (!st || !st->w || st->ed.field)
		return false;
	int i = view_find_row(st->w->nsteps, v->sel, dir, query, step_as_shown, st->w);
	if (i < 0)
		return false;
	view_list_select(v, i);
	return true;
}

/* Button 1 on a step selects it; on the selected one it is Enter. The
 * detail and the key line take no clicks; nor does the pane while the
 * input editor is open (it is modal). */
static bool wizard_click(struct view *v, struct view_ctx *c, int y, int x)
{
	struct wizard_state *st = state(v);
	if (!st || !st->w || st->ed.field || x < 0 || x >= st->ladder_w)
		return false;
	int r = y - st->ladder_y;
	if (r < 0 || r >= st->ladder_h)
		return false;
	int i = st->ladder_top + r;
	if (i < 0 || i >= st->w->nsteps)
		return false;
	if (i == v->sel)
		return wizard_key(v, '\n', c);
	view_list_select(v, i);
	return true;
}

/* The selected step, by its id: `fabtop learn`'s answer. */
static bool wizard_pick(struct view *v, struct view_ctx *c, struct fab_pick *out)
{
	const struct wizard_state *st = state(v);
	(void)c;
	if (!st || !st->w || v->sel < 0 || v->sel >= st->w->nsteps)
		return false;
	const struct wiz_step_def *d = st->w->steps[v->sel].def;
	memset(out, 0, sizeof(*out));
	out->kind = PICK_STEP;
	snprintf(out->name, sizeof(out->name), "%s", d->id);
	snprintf(out->label, sizeof(out->label), _("step %s (layer %s)"), d->id, _(d->layer));
	return true;
}

/* ---- the pane's life and the step it runs ------------------------------------ */

static int wizard_open(struct view *v, struct view_ctx *c)
{
	struct wizard_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -1;
	st->w = c->wizard;
	v->priv = st;
	return 0;
}

/* A step left running would outlive the pane that shows it. */
static void wizard_close(struct view *v, struct view_ctx *c)
{
	struct wizard_state *st = state(v);
	(void)c;
	if (st && st->w)
		wizard_cancel(st->w);
	free(st);
	v->priv = NULL;
}

/* A running step is looked at every POLL_S (its elapsed time moves), and
 * at once when its child's pipe has output (the shell ticks the pane whose
 * wait_fd woke it). */
static double wizard_due(struct view *v, struct view_ctx *c)
{
	struct wizard_state *st = state(v);
	(void)c;
	return st && st->w && wizard_busy(st->w) >= 0 ? st->next_poll : -1;
}

/* Advances the running step without waiting; the runner reads its
 * children's output then. True when there is something new to draw. */
static bool wizard_tick(struct view *v, struct view_ctx *c)
{
	struct wizard_state *st = state(v);
	if (!st || !st->w)
		return false;
	st->next_poll = view_now(c) + POLL_S;
	return wizard_poll(st->w, 0);
}

static int wizard_wait(struct view *v, struct view_ctx *c)
{
	struct wizard_state *st = state(v);
	(void)c;
	return st && st->w ? wizard_wait_fd(st->w) : -1;
}

const struct view_ops wizard_view_ops = {
	.name = "wizard",
	.title = N_("Wizard"),
	.help = N_("The NCCL wizard climbs the test ladder one step at a time: the NCCL job on this "
		   "node and its settings (step job), the physical links of its HCAs (layer 1), then "
		   "IP, the route to each peer and the path MTU (layer 2, a DF probe that tells a "
		   "lower hop from a black hole). Each step says why it matters, what it ran, what "
		   "came back and what to do next. Keys: Enter runs the next pending step, r re-runs "
		   "the selected one, s skips it, e edits the inputs (peers, interface, HCAs, the A/B's "
		   "NCCL test command; Enter moves on, Esc stops), v shows the raw output, Up/Down or a "
		   "click select a step (a second click is Enter), / finds a step by its text, "
		   "PgUp/PgDn scroll. Long steps (the MTU probes, perftest, the IB-disable A/B) run in "
		   "the background with their elapsed time shown; x cancels them, killing what they "
		   "started. The A/B shows the verdict on top and both runs (transport, HCAs, GDR, bus "
		   "bandwidth, errors, last lines of output) side by side."),
	.open = wizard_open,
	.close = wizard_close,
	.draw = wizard_draw,
	.key = wizard_key,
	.due = wizard_due,
	.tick = wizard_tick,
	.wait_fd = wizard_wait,
	.find = wizard_find,
	.click = wizard_click,
	.pick = wizard_pick,
};
