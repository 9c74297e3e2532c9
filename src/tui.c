/*
 * tui.c - the ncurses shell: tab bar, demo banner, the current pane, status
 * bar, keys, and a terminal that is restored on every way out.
 *
 * The shell knows no pane's insides. Each pane (view.h) owns its state and
 * its background work; the shell hands them a context (the model, the
 * root, the session's wizard, the clock), asks each when its work is due
 * and ticks it then, and draws a frame on a key, when a pane in view asks
 * for one, or when the clock's second changes on a live node. The wait for
 * a key is a poll() on the terminal and on the descriptor a pane waits on
 * (a wizard step's child pipe), so that output is read as it comes and the
 * child never waits on fabtop; a frame for output alone follows at most
 * every OUTPUT_FRAME_MS.
 *
 * Headless mode (FABTOP_SCRIPT, screen tests) is tui_script.c: it replaces
 * the terminal and getch(), and moves the panes' clock only when told.
 *
 * Esc is a key of its own after ESC_DELAY_MS, not ncurses' default second
 * (unless ESCDELAY says otherwise): it closes details, filters and help at once.
 *
 * `fabtop fleet` (tui_fleet_run) starts on the Fleet pane with no node: the
 * panes that show a node wait for one (a line says so) and are opened when
 * the Fleet pane asks for a node, on the shell's own root for it; the next
 * node closes them and that root first (tui_fleet_open). Backspace, which
 * no pane takes, comes back to the Fleet pane.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include "fabtop/collect.h"
#include "fabtop/config.h"
#include "fabtop/settings.h"
#include "fabtop/fleet.h"
#include "fabtop/i18n.h"
#include "fabtop/learn.h"
#include "fabtop/scenario.h"
#include "fabtop/util.h"
#include "fabtop/wizard.h"
#include "fabtop/sanitize.h"
#include "tui_int.h"

/* The panes in tab order: adding one is a line in panes.def. */
const struct view_ops *const fab_panes[] = {
#define FAB_PANE(name) &name##_view_ops,
#include "fabtop/panes.def"
#undef FAB_PANE
};
const int fab_npanes = (int)(sizeof(fab_panes) / sizeof(fab_panes[0]));

#define IDLE_WAIT_MS 250 /* the longest wait for a key: quit signals, the live clock */
#define OUTPUT_FRAME_MS 100 /* a pane's background output is drawn this often at most */
/* How long after ESC the rest of an escape sequence (an arrow key) may
 * come: a terminal sends one in a single write, even over ssh. */
#define ESC_DELAY_MS 25
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define WHEEL_LINES 3   /* rows a notch of the mouse wheel moves, as three arrow keys */


/* ---- terminal restore: normal exit, signals, crashes ---------------------- */

static bool opt_mouse = true;  /* -M: off (tui_mouse_opts) */

static volatile sig_atomic_t quit_signal;
static volatile sig_atomic_t in_curses;
static SCREEN *screen;          /* from newterm(), freed with delscreen() */

static const int quit_signals[] = { SIGINT, SIGTERM, SIGHUP };
static const int fatal_signals[] = { SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL };
static struct sigaction old_quit[NELEM(quit_signals)], old_fatal[NELEM(fatal_signals)];

void tui_leave_curses(void)
{
	if (in_curses) {
		in_curses = 0;
		endwin();
	}
}

/* Only sets a flag: the loop polls getch() every 250 ms and exits cleanly. */
static void on_quit_signal(int sig)
{
	quit_signal = sig;
}

static void on_fatal_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* endwin() is not async-signal-safe, but a crashing TUI that leaves the
	 * terminal raw and invisible is worse; best effort. */
	tui_leave_curses();
	for (size_t i = 0; i < NELEM(fatal_signals); i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &old_fatal[i], NULL);
	/* A real fault re-executes the faulting instruction on return, now under
	 * the previous handler (the default, or a sanitizer's with its report);
	 * a sent signal or abort() has to be raised again. */
	if (sig == SIGABRT || !si || si->si_code <= 0)
		raise(sig);
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a signal should wake the getch() poll at once. */
	sa.sa_handler = on_quit_signal;
	for (size_t i = 0; i < NELEM(quit_signals); i++)
		sigaction(quit_signals[i], &sa, &old_quit[i]);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_fatal_signal;
	sa.sa_flags = SA_SIGINFO;
	for (size_t i = 0; i < NELEM(fatal_signals); i++)
		sigaction(fatal_signals[i], &sa, &old_fatal[i]);
}

static void restore_signals(void)
{
	for (size_t i = 0; i < NELEM(quit_signals); i++)
		sigaction(quit_signals[i], &old_quit[i], NULL);
	for (size_t i = 0; i < NELEM(fatal_signals); i++)
		sigaction(fatal_signals[i], &old_fatal[i], NULL);
}

/* ---- drawing -------------------------------------------------------------- */

static void put(int y, int x, const char *s, int attr)
{
	view_put(stdscr, y, x, 0, s, attr);
}

static void fill_row(int y, int attr)
{
	int cols = getmaxx(stdscr);
	attr_t oattr;
	short opair;
	wattr_get(stdscr, &oattr, &opair, NULL);
	wattrset(stdscr, attr);
	mvwhline(stdscr, y, 0, ' ', cols);
	wattr_set(stdscr, oattr, opair, NULL);
}

bool tui_present(const struct tui *t, int i)
{
	return i >= 0 && i < t->npanes && view_pane_present(fab_panes[i], &t->ctx);
}

/* Tab i's text in form 0 " 1 Topology ", 1 "1 Topology", 2 "1" (only the
 * current tab keeps its title): the first form whose bar fits is drawn. */
static void tab_text(const struct tui *t, int i, int k, int form, char *buf, size_t len)
{
	const char *title = _(fab_panes[i]->title);
	if (form == 0)
		snprintf(buf, len, " %d %s ", k, title);
	else if (form == 1 || i == t->cur)
		snprintf(buf, len, "%d %s", k, title);
	else
		snprintf(buf, len, "%d", k);
}

/* Only the panes present now are tabs; digits count them in order. A bar
 * too wide for the terminal drops the padding, then the titles but the
 * current one's, then the program's name; the last resort is a cut at a
 * whole character (view_put never draws half of a wide one). */
static void draw_tabs(struct tui *t, int y)
{
	int bar = A_REVERSE, cols = getmaxx(stdscr), form;
	char buf[160];
	const char *name = "fabtop ";   /* no version: screen tests outlive releases */
	fill_row(y, bar);
	for (form = 0; form < 2; form++) {
		int x = 0;
		for (int i = 0, k = 0; i < t->npanes; i++)
			if (tui_present(t, i)) {
				tab_text(t, i, ++k, form, buf, sizeof(buf));
				x += view_strwidth(buf) + 1;
			}
		if (x - 1 <= cols)
			break;
	}
	int x = 0;
	for (int i = 0, k = 0; i < t->npanes; i++) {
		t->tab_x[i] = t->tab_w[i] = 0;
		if (!tui_present(t, i))
			continue;
		tab_text(t, i, ++k, form, buf, sizeof(buf));
		/* The current tab is cut out of the bar, as if joined to the pane. */
		put(y, x, buf, i == t->cur ? (int)A_BOLD : bar);
		t->tab_x[i] = x;
		t->tab_w[i] = view_strwidth(buf);
		x += t->tab_w[i] + 1;
	}
	int w = view_strwidth(name);
	if (x + w < cols)
		put(y, cols - w, name, bar);
}

/* Under `fabtop fleet` the banner says which node the panes show, or that
 * none is open yet, and the key that comes back: the panes' data is not
 * the machine's own, as in a demo. */
static void fleet_banner(struct tui *t, char *buf, size_t len, int cols)
{
	const char *dash = fab_glyph("\u2014", "-");
	const struct fleet *f = t->fleet;
	int i = t->ctx.fleet_shown;
	if (i < 0 || (size_t)i >= f->n) {
		snprintf(buf, len, P_(" FLEET: %zu node %s Enter on one opens its capture in the panes ",
				      " FLEET: %zu nodes %s Enter on one opens its capture in the panes ", f->n),
			 f->n, dash);
		if (view_strwidth(buf) > cols)
			snprintf(buf, len, _(" FLEET: %zu nodes, none open "), f->n);
		return;
	}
	const char *host = f->nodes[i].host ? f->nodes[i].host : "?";
	snprintf(buf, len, _(" FLEET: node %s (%d/%zu) %s Backspace returns to the fleet "), host, i + 1,
		 f->n, dash);
	if (view_strwidth(buf) > cols)
		snprintf(buf, len, _(" FLEET: %s (%d/%zu) %s Bksp: fleet "), host, i + 1, f->n, dash);
}

/* The first of forms[] (printf formats taking the name, then the dash)
 * that fits in cols; the last one is cut by the row if even it does not. */
static void banner_fit(char *buf, size_t len, int cols, const char *const forms[], int n,
		       const char *what, const char *dash)
{
	for (int i = 0; i < n; i++) {
		snprintf(buf, len, forms[i], what, dash);
		if (view_strwidth(buf) <= cols)
			return;
	}
}

static void draw_banner(struct tui *t, int y)
{
	char buf[FAB_PATH_LEN + 128];
	const char *dash = fab_glyph("\u2014", "-"), *src = t->m->source;
	int cols = getmaxx(stdscr);
	if (t->fleet) {
		fleet_banner(t, buf, sizeof(buf), cols);
		fill_row(y, fab_attr(CP_BANNER));
		put(y, 0, buf, fab_attr(CP_BANNER));
		return;
	}
	/* The longest form that fits: an 80-column terminal must still say
	 * that this is not the machine's own data ("DEMO") and where to go
	 * next. The scenario is named by its short title (the index's third
	 * field, translated by index.LANG), else by its name. */
	const struct learn_exercise *ex = t->ctx.learn ? learn_current(t->ctx.learn) : NULL;
	char what[FAB_PATH_LEN + 100];
	if (t->scen_title[0] && strcmp(t->scen_title, src) != 0)
		snprintf(what, sizeof(what), "%s (%s)", t->scen_title, src);
	else
		snprintf(what, sizeof(what), "%s", src);
	const char *title = t->scen_title[0] ? t->scen_title : src;
	if (ex) {
		const char *const forms[] = {
			_(" LEARN: %s %s point at the cause and press A; h: help "),
			_(" LEARN: %s %s A: answer "),
			_(" LEARN: %s "),
		};
		banner_fit(buf, sizeof(buf), cols, forms, (int)NELEM(forms), _(ex->title), dash);
	} else {
		const char *const forms[] = {
			_(" DEMO: %s %s press L to learn, D to switch scenario "),
			_(" DEMO: %s %s L: learn, D: scenarios "),
			_(" DEMO: %s "),
		};
		banner_fit(buf, sizeof(buf), cols, forms, 1, what, dash);
		if (view_strwidth(buf) > cols)
			banner_fit(buf, sizeof(buf), cols, forms, (int)NELEM(forms), title, dash);
	}
	fill_row(y, fab_attr(CP_BANNER));
	put(y, 0, buf, fab_attr(CP_BANNER));
}

static void format_time(const struct fab_model *m, char *buf, size_t len)
{
	struct tm tm;
	time_t now;
	if (m->live) {
		now = time(NULL);
		if (localtime_r(&now, &tm))
			strftime(buf, len, "%H:%M:%S", &tm);
		else
			snprintf(buf, len, "%s", _("time N/A"));
		return;
	}
	now = (time_t)m->time;
	/* A replay shows when the capture was taken, in UTC, so every machine
	 * (and every screen test) prints the same thing. */
	if (m->time > 0 && gmtime_r(&now, &tm))
		strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
	else
		snprintf(buf, len, "%s", _("capture time N/A"));
}

/* Where the pane is scrolled to, like less: "23-43/67" and an arrow for
 * each side that has more columns; "" when everything is in view. */
static void scroll_pos(const struct tui *t, char *buf, size_t len)
{
	const struct view *v = &t->views[t->cur];
	int h = t->lay.pane_h, w = t->lay.pane_w;
	int last = v->top + h < v->content_h ? v->top + h : v->content_h;
	buf[0] = '\0';
	if (v->content_h > h)
		snprintf(buf, len, "%d-%d/%d", v->top + 1, last, v->content_h);
	if (v->left > 0 || v->content_w > v->left + w) {
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, "%s%s%s", n ? " " : "",
			 v->left > 0 ? fab_glyph("\u2190", "<") : "",
			 v->content_w > v->left + w ? fab_glyph("\u2192", ">") : "");
	}
}

/* The status bar's left part clipped to cols columns (at a whole
 * character), the right part at its right end. */
static void status_parts(int y, const char *left, int lattr, const char *right, int bar)
{
	int cols = getmaxx(stdscr), rw = view_strwidth(right);
	WINDOW *clip = cols - rw - 1 > 0 ? derwin(stdscr, 1, cols - rw - 1, y, 0) : NULL;
	if (clip) {
		view_put(clip, 0, 0, 0, left, lattr);
		delwin(clip);
	}
	if (rw)
		put(y, cols - rw, right, bar);
}

/* The search prompt, or a message (a search's outcome, an answer's
 * verdict, why a key did nothing), in place of the node's line. */
static bool draw_prompt_or_msg(struct tui *t, int y, const char *keys)
{
	int bar = A_REVERSE, cols = getmaxx(stdscr);
	char left[600];
	const char *right = "";
	if (t->prompt) {
		snprintf(left, sizeof(left), " /%s_", t->query);
		right = _("Enter: search  Esc: cancel ");
	} else if (t->msg[0]) {
		snprintf(left, sizeof(left), " %s", t->msg);
		right = keys;
	} else {
		return false;
	}
	if (view_strwidth(left) + 1 + view_strwidth(right) > cols)
		right = "";
	fill_row(y, bar);
	status_parts(y, left, t->msg_bad && !t->prompt ? bar | (int)A_BOLD : bar, right, bar);
	return true;
}

static void draw_status(struct tui *t, int y)
{
	const struct fab_model *m = t->m;
	char when[48], pos[64], right[160], left[FAB_NAME_LEN + FAB_PATH_LEN + 80];
	const char *keys = _("h:help q:quit ");
	const char *host = m->host[0] ? m->host : _("host N/A");
	const char *src = m->live ? _("live") : m->source;
	int bar = A_REVERSE, cols = getmaxx(stdscr);
	if (draw_prompt_or_msg(t, y, keys))
		return;
	format_time(m, when, sizeof(when));
	scroll_pos(t, pos, sizeof(pos));
	fill_row(y, bar);
	/* The key hints always show; then, as room allows, the time, the scroll
	 * position and the source; the host is clipped only as a last resort. */
	snprintf(left, sizeof(left), " %s  %s  %s", host, src, when);
	if (t->fleet && !t->root)   /* no node read yet: nothing of one to show */
		snprintf(left, sizeof(left), P_(" fleet of %zu node", " fleet of %zu nodes", t->fleet->n),
			 t->fleet->n);
	snprintf(right, sizeof(right), "%s%s%s", pos, pos[0] ? "  " : "", keys);
	if (view_strwidth(left) + 1 + view_strwidth(right) > cols)
		snprintf(right, sizeof(right), "%s", keys);
	if (view_strwidth(left) + 1 + view_strwidth(right) > cols)
		snprintf(left, sizeof(left), " %s  %s", host, src);
	if (view_strwidth(left) + 1 + view_strwidth(right) > cols)
		snprintf(left, sizeof(left), " %s", host);
	if (*cfg_edit_note())   /* the settings file's problem, or F2's save: until a key */
		snprintf(left, sizeof(left), " %s", cfg_edit_note());
	status_parts(y, left, bar, right, bar);
}

/* "terminal too small: need 40x10, have CxR", broken into as many lines as
 * the width needs (after the colon, then after the comma), each centred. */
static void draw_too_small(int rows, int cols)
{
	char all[160], need[64], have[64], both[128];
	snprintf(need, sizeof(need), _("need %dx%d,"), LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
	snprintf(have, sizeof(have), _("have %dx%d"), cols, rows);
	snprintf(both, sizeof(both), "%s %s", need, have);
	snprintf(all, sizeof(all), _("terminal too small: %s"), both);
	const char *lines[3] = { all };
	int n = 1;
	if (view_strwidth(all) > cols) {
		lines[0] = _("terminal too small:");
		lines[1] = both;
		n = 2;
		if (view_strwidth(both) > cols) {
			lines[1] = need;
			lines[2] = have;
			n = 3;
		}
	}
	int y = n == 1 ? rows / 2 : rows > 1 ? rows / 2 - 1 : 0;
	for (int i = 0; i < n; i++) {
		int w = view_strwidth(lines[i]);
		put(y + i, w < cols ? (cols - w) / 2 : 0, lines[i], A_BOLD);
	}
}

/* The pane is a subwindow of stdscr: it shares its cells, so a screen dump
 * of stdscr (headless mode) holds everything that was drawn. */
static WINDOW *pane_window(struct tui *t)
{
	const struct fab_layout *l = &t->lay;
	if (t->pane && t->pane_y == l->pane_y && t->pane_h == l->pane_h &&
	    t->pane_w == l->pane_w)
		return t->pane;
	if (t->pane)
		delwin(t->pane);
	t->pane = derwin(stdscr, l->pane_h, l->pane_w, l->pane_y, 0);
	t->pane_y = l->pane_y;
	t->pane_h = l->pane_h;
	t->pane_w = l->pane_w;
	return t->pane;
}

/* A pane that shows a node, under `fabtop fleet` before one is open. */
static void draw_no_node(struct tui *t, WINDOW *w)
{
	char buf[320];
	int k = 0;
	for (int i = 0; i <= t->fleet_pane; i++)
		k += tui_present(t, i);
	snprintf(buf, sizeof(buf), _("No node is open yet: choose one in the Fleet pane (%d) and press Enter."), k);
	view_put(w, 1, 2, 0, buf, A_BOLD);
	view_put(w, 2, 2, 0, _("Its capture then fills this pane; Backspace comes back to the fleet."), 0);
}

/* ---- the scenario switcher (D) -------------------------------------------- */

/* Where its list is on the screen, for the mouse: set by the last draw. */
static int sw_list_y, sw_list_x, sw_list_h, sw_list_w;

/* An overlay over the pane: the scenarios (name, then the short title or
 * the description), the selected one's description beneath, the keys in
 * its frame. The index is read when it opens (scenario_index, translated
 * when the interface is), so a frame reads no file. */
static void draw_switcher(struct tui *t)
{
	const struct fab_layout *l = &t->lay;
	int w = getmaxx(stdscr), y0 = l->pane_y, h = l->pane_h;
	if (h < 2)
		return;
	/* It covers the whole pane: nothing of the pane shows through. */
	WINDOW *o = derwin(stdscr, h, w, y0, 0);
	if (!o)
		return;
	werase(o);
	char buf[1024], pad[256];
	snprintf(buf, sizeof(buf), _(" Scenarios %s Up/Down, Enter opens, Esc closes "),
		 fab_glyph("\u2014", "-"));
	mvwhline(o, 0, 0, ' ' | (chtype)A_REVERSE, w);
	view_put(o, 0, 0, 0, buf, A_REVERSE | A_BOLD);
	int inner = h - 1, desc_h = inner >= 12 ? 4 : inner >= 8 ? 2 : 0;
	int list_h = inner - desc_h - (desc_h ? 1 : 0);
	int namew = 0;
	for (int i = 0; i < t->sw_n; i++) {
		int nw = view_strwidth(t->sw[i].name);
		namew = nw > namew ? nw : namew;
	}
	namew = namew > 20 ? 20 : namew;
	if (t->sw_sel < t->sw_top)
		t->sw_top = t->sw_sel;
	if (t->sw_sel >= t->sw_top + list_h)
		t->sw_top = t->sw_sel - list_h + 1;
	sw_list_y = y0 + 1;
	sw_list_x = 0;
	sw_list_h = list_h;
	sw_list_w = w;
	/* "> * name  title": the selection, the scenario open now, its name,
	 * then its short title (or its description when it has none). */
	for (int r = 0; r < list_h && t->sw_top + r < t->sw_n; r++) {
		int i = t->sw_top + r;
		const struct scenario *sc = &t->sw[i];
		bool open = t->m->demo && strcmp(sc->name, t->m->source) == 0;
		snprintf(buf, sizeof(buf), "%s%s %s  %s", i == t->sw_sel ? ">" : " ", open ? "*" : " ",
			 view_pad(pad, sizeof(pad), sc->name, namew, false), sc->title[0] ? sc->title : sc->desc);
		int attr = i == t->sw_sel ? fab_attr(CP_SELECT) : 0;
		if (attr)
			mvwhline(o, 1 + r, 0, ' ' | (chtype)attr, w);
		view_put(o, 1 + r, 0, 0, buf, attr);
	}
	if (desc_h && t->sw_n > 0) {
		int ry = 1 + list_h;
		for (int x = 0; x < w; x++)
			view_put(o, ry, x, 0, fab_glyph("\u2500", "-"), fab_attr(CP_DIM));
		const char *d = t->sw[t->sw_sel].desc;
		for (int k = 0; k < desc_h && *d; k++) {
			int len;
			const char *next = view_wrap_next(d, w - 2, &len);
			snprintf(buf, sizeof(buf), "%.*s", len, d);
			view_put(o, ry + 1 + k, 1, 0, buf, 0);
			d = next;
		}
	}
	delwin(o);
}

static bool read_detail(struct tui *t);

void tui_draw(struct tui *t)
{
	int rows, cols;
	/* The pane in view needs what the model has not read yet: read first. */
	if (t->root && !t->opened[t->cur] && !t->views[t->cur].ops->light)
		read_detail(t);
	getmaxyx(stdscr, rows, cols);
	t->lay = layout_compute(rows, cols, t->m->demo || t->fleet);
	t->drawn_sec = time(NULL);
	werase(stdscr);
	if (t->lay.too_small) {
		draw_too_small(rows, cols);
	} else {
		draw_tabs(t, t->lay.tabs_y);
		if (t->lay.banner_y >= 0)
			draw_banner(t, t->lay.banner_y);
		WINDOW *w = pane_window(t);
		if (w) {
			struct view *v = &t->views[t->cur];
			if (cfg_edit_active())
				cfg_edit_draw(w);   /* F2 covers the pane */
			else if (t->opened[t->cur])
				v->ops->draw(v, w, &t->ctx);
			else
				draw_no_node(t, w);
		}
		if (t->sw)
			draw_switcher(t);
		draw_status(t, t->lay.status_y);
	}
	wnoutrefresh(stdscr);
	doupdate();
}

/* ---- the panes' background work ------------------------------------------ */

void tui_show_current(struct tui *t)
{
	for (int i = 0; i < t->npanes; i++) {
		struct view *v = &t->views[i];
		/* A pane opened later (read_detail) is shown when it opens. */
		bool now = i == t->cur && t->opened[i];
		if (now && !v->current && v->ops->show)
			v->ops->show(v, &t->ctx);
		v->current = now;
	}
}

double tui_next_due(struct tui *t)
{
	double soonest = -1;
	for (int i = 0; i < t->npanes; i++) {
		struct view *v = &t->views[i];
		double d = v->ops->due && t->opened[i] ? v->ops->due(v, &t->ctx) : -1;
		if (d >= 0 && (soonest < 0 || d < soonest))
			soonest = d;
	}
	return soonest;
}

bool tui_tick_due(struct tui *t)
{
	bool redraw = false;
	double now = view_now(&t->ctx);
	for (int i = 0; i < t->npanes; i++) {
		struct view *v = &t->views[i];
		double d = v->ops->due && t->opened[i] ? v->ops->due(v, &t->ctx) : -1;
		if (d >= 0 && d <= now && v->ops->tick && v->ops->tick(v, &t->ctx) && v->current)
			redraw = true;
	}
	return redraw;
}

/* ---- which pane is in view ------------------------------------------------- */

static void switch_to(struct tui *t, int i)
{
	if (i < 0 || i >= t->npanes || i == t->cur || !tui_present(t, i))
		return;
	t->prev = t->cur;
	t->cur = i;
	tui_show_current(t);
}

/* The pane present d steps from the current one in tab order (Tab, Shift-Tab). */
static int next_present(const struct tui *t, int d)
{
	for (int k = 1; k <= t->npanes; k++) {
		int i = ((t->cur + d * k) % t->npanes + t->npanes) % t->npanes;
		if (tui_present(t, i))
			return i;
	}
	return t->cur;
}

/* The k-th pane present (digit k; 1-based), -1 when there are fewer. */
static int nth_present(const struct tui *t, int k)
{
	for (int i = 0; i < t->npanes; i++)
		if (tui_present(t, i) && --k == 0)
			return i;
	return -1;
}

/* The pane in view went away (learn mode ended, a pane says it is no
 * longer present): the first present one comes instead. */
static void keep_present(struct tui *t)
{
	if (tui_present(t, t->cur))
		return;
	int i = nth_present(t, 1);
	if (i >= 0) {
		t->cur = i;
		tui_show_current(t);
	}
}

static void say(struct tui *t, bool bad, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(struct tui *t, bool bad, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
	/* A message is one line: a newline in a pane's text would break the bar. */
	for (char *c = t->msg; *c; c++)
		if (*c == '\n' || *c == '\t')
			*c = ' ';
	t->msg_bad = bad;
}

/* The model read again from t->root: 'r', and a root once opened. demo and
 * source: what `fabtop demo` (or the scenario opened) set after collecting,
 * kept across a reload; source NULL keeps what the collector says. */
/* want: the per-port detail read now (model.h FAB_HAVE_*); read_detail()
 * reads the rest once the first frame is up. */
static void read_model(struct tui *t, bool demo, const char *source, unsigned want)
{
	struct fab_model *m = t->m;
	char keep[FAB_PATH_LEN];
	fab_strlcpy(keep, source ? source : "", sizeof(keep));
	model_free(m);
	model_init(m);
	collect_model_nowait(t->root, m, want);   /* the GPU libraries' answer comes later (gpu_arrived) */
	if (demo)
		m->demo = true;
	if (keep[0] && (!m->source[0] || demo))
		memcpy(m->source, keep, sizeof(m->source));
}

static void reload_panes(struct tui *t)
{
	for (int i = 0; i < t->npanes; i++)
		if (t->views[i].ops->reload && t->opened[i])
			t->views[i].ops->reload(&t->views[i], &t->ctx);
}

static void reload(struct tui *t)
{
	if (!t->root)
		return;   /* `fabtop fleet` with no node open: nothing to read again */
	/* The open panes show the new model at once: all of it. */
	read_model(t, t->m->demo, t->m->source, FAB_DETAIL_ALL);
	reload_panes(t);
}

/* NVML or CUDA answered (or is late: said once): merged into the model in
 * this thread, and the panes take the new model as after a reload. True
 * when a frame is due. */
static bool gpu_arrived(struct tui *t)
{
	if (!gpu_bg_update(t->root, t->m))
		return false;
	reload_panes(t);
	return true;
}

/* ---- the panes' lives, and the root they show ----------------------------- */

/* Whether a pane draws a node (everything but the Fleet, Help and Learn
 * panes), so that it is opened anew on each root the shell opens and,
 * under `fabtop fleet`, lives only while a node is open. */
static bool shows_node(const struct view_ops *o)
{
	return o != &fleet_view_ops && o != &help_view_ops && strcmp(o->name, "learn") != 0;
}

/* Opens the panes that are not open, those that show a node only when
 * there is one; each starts at its top with nothing selected. */
static void panes_open(struct tui *t)
{
	for (int i = 0; i < t->npanes; i++) {
		struct view *v = &t->views[i];
		if (t->opened[i] || (shows_node(fab_panes[i]) && !t->root))
			continue;
		/* A pane that needs the GID tables or counters (view.h light)
		 * opens once read_detail() has read them. */
		if (shows_node(fab_panes[i]) && !fab_panes[i]->light && !model_has(t->m, FAB_DETAIL_ALL))
			continue;
		*v = (struct view){ .ops = fab_panes[i] };
		if (v->ops->open && v->ops->open(v, &t->ctx) != 0)
			v->priv = NULL;   /* the pane says it has no state */
		t->opened[i] = true;
	}
}

/* The model's per-port detail (GID tables, port counters), when it lacks
 * it: read, the findings judged again with it (collect_detail), and the
 * panes that waited for it opened. After the first frame, or before a
 * pane that needs it is drawn. True when it read something. */
static bool read_detail(struct tui *t)
{
	if (!t->root || model_has(t->m, FAB_DETAIL_ALL))
		return false;
	collect_detail(t->root, t->m, FAB_DETAIL_ALL);
	panes_open(t);
	tui_show_current(t);
	return true;
}

/* Closes the open panes (only those that show a node: node_only), each
 * stopping what it runs: nothing outlives the node or the console. */
static void panes_close(struct tui *t, bool node_only)
{
	for (int i = 0; i < t->npanes; i++) {
		if (!t->opened[i] || (node_only && !shows_node(fab_panes[i])))
			continue;
		if (t->views[i].ops->close)
			t->views[i].ops->close(&t->views[i], &t->ctx);
		t->views[i].priv = NULL;
		t->views[i].current = false;
		t->opened[i] = false;
	}
}

/* The open scenario's short title from the index ("" when it has none or
 * the source is not one of them), for the banner. */
static void scenario_title(struct tui *t)
{
	t->scen_title[0] = '\0';
	if (!t->m->demo)
		return;
	struct scenario *sc = calloc(SCEN_MAX, sizeof(*sc));
	char dir[PATH_MAX];
	int n = sc ? scenario_index(sc, SCEN_MAX, dir, sizeof(dir)) : -1;
	for (int i = 0; i < n; i++)
		if (strcmp(sc[i].name, t->m->source) == 0)
			fab_strlcpy(t->scen_title, sc[i].title, sizeof(t->scen_title));
	free(sc);
}

int tui_open_root(struct tui *t, const char *path, char *why, size_t len)
{
	struct fab_root nr;
	if (root_open(&nr, path, why, len) != 0)
		return -1;
	/* The old root's panes stop (a sampler reading its files, a wizard
	 * step's child) before its root and its unpacked files go. A root
	 * the caller gave (main's) stays the caller's to close. */
	panes_close(t, true);
	wizard_free(t->own_wizard);
	t->own_wizard = t->ctx.wizard = NULL;
	if (t->root == &t->node_root)
		root_close(t->root);
	t->node_root = nr;
	t->root = &t->node_root;
	t->ctx.root = t->root;
	/* Read whole: every pane of the node opens with it (the fleet's
	 * Enter); only the console's start is drawn before the detail. */
	read_model(t, false, NULL, FAB_DETAIL_ALL);
	t->scen_title[0] = '\0';
	t->own_wizard = t->ctx.wizard = wizard_new(t->root, NULL, NULL, 0);
	panes_open(t);
	tui_show_current(t);
	return 0;
}

int tui_fleet_open(struct tui *t, int i)
{
	char err[512];
	t->ctx.fleet_msg[0] = '\0';
	if (!t->fleet || i < 0 || (size_t)i >= t->fleet->n)
		return -1;
	const struct fleet_node *n = &t->fleet->nodes[i];
	const char *host = n->host ? n->host : n->path;
	if (i == t->ctx.fleet_shown && t->root) {
		switch_to(t, t->topo_pane);
		return 0;
	}
	if (view_fleet_is_report(n->path)) {
		snprintf(t->ctx.fleet_msg, sizeof(t->ctx.fleet_msg),
			 _("%s is a saved report (report all --json), not a capture: the panes need a "
			   "capture (`fabtop capture -o FILE` on that node)"), host);
		return -1;
	}
	if (tui_open_root(t, n->path, err, sizeof(err)) != 0) {
		snprintf(t->ctx.fleet_msg, sizeof(t->ctx.fleet_msg), _("cannot open %s: %s"), host, err);
		return -1;
	}
	t->ctx.fleet_shown = i;
	switch_to(t, t->topo_pane);
	return 0;
}

int tui_open_scenario(struct tui *t, const char *name)
{
	char path[PATH_MAX], err[512];
	if (t->fleet) {
		say(t, true, _("scenarios do not open under `fabtop fleet`: its panes show the fleet's nodes"));
		return -1;
	}
	if (!scenario_name_ok(name) || scenario_find(name, path, sizeof(path)) != 0) {
		say(t, true, _("no bundled scenario named \"%s\" (`fabtop demo` lists them)"), name);
		return -1;
	}
	if (tui_open_root(t, path, err, sizeof(err)) != 0) {
		say(t, true, _("cannot open scenario %s: %s"), name, err);
		return -1;
	}
	t->m->demo = true;
	fab_strlcpy(t->m->source, name, sizeof(t->m->source));
	scenario_title(t);
	keep_present(t);
	return 0;
}

/* What a pane asked of the shell from its key() or click(): a fleet node,
 * a scenario (the Learn pane opening an exercise's). Done after the pane
 * returned, so it never closes the pane under its own feet. */
static void pane_requests(struct tui *t)
{
	int want = t->ctx.fleet_open;
	t->ctx.fleet_open = -1;
	if (want >= 0)
		tui_fleet_open(t, want);
	if (t->ctx.open_scenario[0]) {
		char name[sizeof(t->ctx.open_scenario)];
		fab_strlcpy(name, t->ctx.open_scenario, sizeof(name));
		t->ctx.open_scenario[0] = '\0';
		tui_open_scenario(t, name);
	}
	keep_present(t);
}

/* ---- the `/` search -------------------------------------------------------- */

static void find(struct tui *t, const char *q, int dir)
{
	struct view *v = &t->views[t->cur];
	if (!v->ops->find || !t->opened[t->cur]) {
		say(t, true, "%s", _("this pane has no list to search"));
		return;
	}
	if (!v->ops->find(v, &t->ctx, q, dir))
		say(t, true, _("not found: %s"), q);
	else
		say(t, false, _("/%s  (n: next, N: previous)"), q);
}

/* The prompt's line editor: characters (a wide one from get_wch) are
 * added, Backspace takes the last character off, Enter runs the search,
 * Esc leaves it. */
static void prompt_key(struct tui *t, int ch)
{
	size_t n = strlen(t->query);
	switch (ch) {
	case 27:
		t->prompt = false;
		return;
	case '\n':
	case '\r':
	case KEY_ENTER:
		t->prompt = false;
		if (!t->query[0])
			return;
		fab_strlcpy(t->last_query, t->query, sizeof(t->last_query));
		find(t, t->query, +1);
		return;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		/* Back over a whole UTF-8 character: its continuation bytes first. */
		while (n > 0 && ((unsigned char)t->query[n - 1] & 0xc0) == 0x80)
			n--;
		if (n > 0)
			n--;
		t->query[n] = '\0';
		return;
	default:
		break;
	}
	char mb[MB_LEN_MAX + 1];
	size_t k = 0;
	if (TUI_IS_WCHAR(ch)) {
		mbstate_t st;
		memset(&st, 0, sizeof(st));
		k = wcrtomb(mb, TUI_WCHAR_OF(ch), &st);
		if (k == (size_t)-1)
			return;
	} else if (ch >= 0x20 && ch < 0x7f) {
		mb[0] = (char)ch;
		k = 1;
	}
	if (k && n + k < sizeof(t->query)) {
		memcpy(t->query + n, mb, k);
		t->query[n + k] = '\0';
	}
}

/* ---- the scenario switcher's keys ------------------------------------------ */

static void switcher_close(struct tui *t)
{
	free(t->sw);
	t->sw = NULL;
}

static void switcher_open(struct tui *t)
{
	char dir[PATH_MAX];
	if (t->fleet || (!t->m->demo && !t->ctx.learn)) {
		say(t, true, "%s", _("not a demo: `fabtop demo NAME` opens one, then D switches scenario"));
		return;
	}
	t->sw = calloc(SCEN_MAX, sizeof(*t->sw));
	t->sw_n = t->sw ? scenario_index(t->sw, SCEN_MAX, dir, sizeof(dir)) : -1;
	if (t->sw_n <= 0) {
		switcher_close(t);
		say(t, true, "%s", _("no bundled scenarios found (`make` writes build/scenarios, or set "
				     "FABTOP_SCENARIOS)"));
		return;
	}
	t->sw_sel = t->sw_top = 0;
	for (int i = 0; i < t->sw_n; i++)
		if (strcmp(t->sw[i].name, t->m->source) == 0)
			t->sw_sel = i;
}

static void switcher_enter(struct tui *t)
{
	char name[SCEN_NAME_LEN];
	fab_strlcpy(name, t->sw[t->sw_sel].name, sizeof(name));
	switcher_close(t);
	tui_open_scenario(t, name);
}

static void switcher_key(struct tui *t, int ch)
{
	int page = sw_list_h > 1 ? sw_list_h - 1 : 1;
	switch (ch) {
	case 27:
	case 'D':
	case 'q':
		switcher_close(t);
		return;
	case '\n':
	case '\r':
	case KEY_ENTER:
		switcher_enter(t);
		return;
	case KEY_UP:
	case 'k':
		t->sw_sel--;
		break;
	case KEY_DOWN:
	case 'j':
		t->sw_sel++;
		break;
	case KEY_PPAGE:
		t->sw_sel -= page;
		break;
	case KEY_NPAGE:
		t->sw_sel += page;
		break;
	case KEY_HOME:
		t->sw_sel = 0;
		break;
	case KEY_END:
		t->sw_sel = t->sw_n - 1;
		break;
	default:
		return;
	}
	if (t->sw_sel < 0)
		t->sw_sel = 0;
	if (t->sw_sel >= t->sw_n)
		t->sw_sel = t->sw_n - 1;
}

/* ---- learn mode ------------------------------------------------------------ */

static void learn_key(struct tui *t)
{
	if (t->fleet) {
		say(t, true, "%s", _("learn mode opens bundled scenarios: not under `fabtop fleet`"));
		return;
	}
	if (t->learn_pane < 0) {
		say(t, true, "%s", _("this build of fabtop has no Learn pane"));
		return;
	}
	if (!t->ctx.learn) {
		t->own_learn = t->ctx.learn = learn_new(NULL);
		if (!t->ctx.learn) {
			say(t, true, "%s", _("cannot start learn mode: out of memory"));
			return;
		}
		const char *e = learn_state_error(t->ctx.learn);
		if (e && *e)
			say(t, true, "%s", e);
		/* The exercise of the scenario in view when it has one not solved
		 * yet; else the first one not solved, whose scenario opens. */
		struct learn_session *ls = t->ctx.learn;
		int i = learn_next_unsolved(ls, t->m->source);
		if (i < 0)
			i = learn_next_unsolved(ls, NULL);
		learn_start(ls, i < 0 ? 0 : i);
		const struct learn_exercise *ex = learn_current(ls);
		if (ex && strcmp(ex->scenario, t->m->source) != 0)
			tui_open_scenario(t, ex->scenario);
	}
	switch_to(t, t->learn_pane);
}

/* A: what the current pane has selected is the learner's answer. */
static void answer_key(struct tui *t)
{
	struct view *v = &t->views[t->cur];
	struct fab_pick pk;
	char why[512];
	if (!t->ctx.learn) {
		say(t, true, "%s", _("A answers an exercise: press L to start learn mode"));
		return;
	}
	if (!learn_current(t->ctx.learn)) {
		say(t, true, "%s", _("no exercise is open: choose one in the Learn pane"));
		return;
	}
	memset(&pk, 0, sizeof(pk));
	if (!v->ops->pick || !t->opened[t->cur] || !v->ops->pick(v, &t->ctx, &pk))
		pk.kind = PICK_NONE;
	if (pk.kind == PICK_NONE) {
		say(t, true, "%s", _("nothing is selected in this pane: select the row you mean, then press A"));
		return;
	}
	why[0] = '\0';
	enum learn_verdict v2 = learn_answer(t->ctx.learn, t->m->source, &pk, why, sizeof(why));
	/* The whole why is in the Learn pane; the bar holds what fits. */
	char line[600];
	int cols = getmaxx(stdscr) > 0 ? getmaxx(stdscr) : 80;
	switch (v2) {
	case LEARN_RIGHT:
		snprintf(line, sizeof(line), _("RIGHT: %s"), why);
		if (view_strwidth(line) > cols - 16)
			snprintf(line, sizeof(line), "%s", _("RIGHT: the Learn pane says why"));
		say(t, false, "%s", line);
		break;
	case LEARN_WRONG:
		snprintf(line, sizeof(line), _("NOT IT: %s"), why);
		if (view_strwidth(line) > cols - 16)
			snprintf(line, sizeof(line), "%s", _("NOT IT: the Learn pane says why"));
		say(t, true, "%s", line);
		break;
	case LEARN_ELSEWHERE:
		say(t, true, "%s", why);
		break;
	default:
		say(t, true, "%s", _("nothing is selected in this pane: select the row you mean, then press A"));
		break;
	}
}

/* ---- the mouse ------------------------------------------------------------- */

/* Clicks and the wheel asked of the terminal, or not (-M, or mouse = no in
 * the settings: the terminal keeps them, for selecting text); again after
 * F2 changed the setting. No click interval: a press acts at once, as
 * htop's. */
static void mouse_apply(struct tui *t)
{
	t->ctx.mouse = opt_mouse && cfg_get()->mouse;
	mousemask(t->ctx.mouse ? BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED : 0,
		  NULL);
	if (t->ctx.mouse)
		mouseinterval(0);
}

static void mouse_event(struct tui *t)
{
	MEVENT ev;
	if (getmouse(&ev) != OK)
		return;   /* off (-M), or an event the mask does not ask for */
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		int key = ev.bstate & BUTTON4_PRESSED ? KEY_UP : KEY_DOWN;
		for (int i = 0; i < WHEEL_LINES; i++)
			tui_handle_key(t, key);
		return;
	}
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) || t->lay.too_small)
		return;
	if (t->sw) {
		int r = ev.y - sw_list_y;
		if (r >= 0 && r < sw_list_h && ev.x >= sw_list_x && ev.x < sw_list_x + sw_list_w &&
		    t->sw_top + r < t->sw_n) {
			/* A second click on the selected row opens it, as Enter. */
			if (t->sw_top + r == t->sw_sel)
				switcher_enter(t);
			else
				t->sw_sel = t->sw_top + r;
		}
		return;
	}
	if (ev.y == t->lay.tabs_y) {
		for (int i = 0; i < t->npanes; i++)
			if (t->tab_w[i] && ev.x >= t->tab_x[i] && ev.x < t->tab_x[i] + t->tab_w[i])
				switch_to(t, i);
		return;
	}
	struct view *v = &t->views[t->cur];
	int y = ev.y - t->lay.pane_y;
	if (y < 0 || y >= t->lay.pane_h || !v->ops->click || !t->opened[t->cur])
		return;
	if (v->ops->click(v, &t->ctx, y, ev.x))
		pane_requests(t);
}

/* ---- keys ------------------------------------------------------------------- */

void tui_handle_key(struct tui *t, int ch)
{
	struct view *v = &t->views[t->cur];
	if (ch == KEY_RESIZE || ch == ERR)
		return;   /* the next draw lays out again */
	/* A message lasts until the next key. */
	t->msg[0] = '\0';
	cfg_edit_note_seen();
	if (t->prompt) {
		prompt_key(t, ch);
		return;
	}
	if (t->sw) {
		if (ch == KEY_MOUSE)
			mouse_event(t);
		else
			switcher_key(t, ch);
		return;
	}
	if (cfg_edit_active() || ch == KEY_F(2)) {
		/* F2: the settings editor takes every key until it closes. */
		if (cfg_edit_active())
			cfg_edit_key(ch);
		else
			cfg_edit_open(NULL);
		mouse_apply(t);
		return;
	}
	if (ch == KEY_MOUSE) {
		mouse_event(t);
		return;
	}
	if (TUI_IS_WCHAR(ch))
		return;   /* a character beyond ASCII means nothing outside the prompt */
	if (v->ops->key && t->opened[t->cur] && v->ops->key(v, ch, &t->ctx)) {
		/* The Fleet pane asked for a node, the Learn pane for a
		 * scenario: opened now, after its key. */
		pane_requests(t);
		return;
	}
	switch (ch) {
	case KEY_BACKSPACE:
	case 127:
	case 8:   /* ^H: Backspace on some terminals */
		if (t->fleet && t->fleet_pane >= 0)
			switch_to(t, t->fleet_pane);
		return;
	case 'q':
	case KEY_F(10):
		t->quit = true;
		return;
	case '\t':
		switch_to(t, next_present(t, +1));
		return;
	case KEY_BTAB:
		switch_to(t, next_present(t, -1));
		return;
	case 'h':
	case '?':
	case KEY_F(1):
		/* Help again goes back to where the user was. */
		if (t->cur == t->help)
			switch_to(t, t->prev);
		else
			switch_to(t, t->help);
		return;
	case 27:   /* Esc: a pane that had a use for it took it above */
		if (t->cur == t->help)
			switch_to(t, t->prev);
		return;
	case 'r':
		reload(t);
		return;
	case '/':
		t->prompt = true;
		t->query[0] = '\0';
		return;
	case 'n':
	case 'N':
		if (!t->last_query[0])
			say(t, true, "%s", _("no search yet: / starts one"));
		else
			find(t, t->last_query, ch == 'n' ? +1 : -1);
		return;
	case 'D':
		switcher_open(t);
		return;
	case 'L':
		learn_key(t);
		return;
	case 'A':
		answer_key(t);
		return;
	default:
		break;
	}
	if (ch >= '1' && ch <= '9') {
		switch_to(t, nth_present(t, ch - '0'));
		return;
	}
	view_scroll_key(v, ch, t->lay.pane_h, t->lay.pane_w);
}


/* ---- waiting for a key ----------------------------------------------------- */

/* getch() can only wait for the terminal. While a pane's work waits on a
 * descriptor (a wizard step's child pipe), the wait is a poll() on both,
 * so its output is read as it comes (the tick after the ERR this returns)
 * and the child never waits on a full pipe; a key is then read without
 * waiting. One ncurses already holds (the rest of a paste) is taken before
 * any wait. */
/* One key as the shell's int: a key code, an ASCII character, or a wide
 * character beyond ASCII (TUI_KEY_WCHAR: the search prompt takes Chinese). */
static int read_key(void)
{
	wint_t wc;
	int r = get_wch(&wc);
	if (r == ERR)
		return ERR;
	if (r == KEY_CODE_YES || wc < 0x80)
		return (int)wc;
	return TUI_KEY_WCHAR(wc);
}

static int next_key(struct tui *t, int ms)
{
	int fd = -1, pane = -1;
	for (int i = 0; i < t->npanes && fd < 0; i++)
		if (t->views[i].ops->wait_fd && t->opened[i] &&
		    (fd = t->views[i].ops->wait_fd(&t->views[i], &t->ctx)) >= 0)
			pane = i;
	/* The GPU libraries' answer wakes the wait too (gpu_arrived). */
	int gfd = t->m->gpu_pending ? gpu_bg_fd() : -1;
	if (fd < 0 && gfd < 0) {
		timeout(ms);
		return read_key();
	}
	timeout(0);
	int ch = read_key();
	if (ch != ERR)
		return ch;
	struct pollfd pf[3] = {
		{ .fd = STDIN_FILENO, .events = POLLIN },
		{ .fd = fd, .events = POLLIN },    /* poll() skips a negative fd */
		{ .fd = gfd, .events = POLLIN },
	};
	/* EINTR: a resize or a quit signal, which getch() and the loop see. */
	if (poll(pf, 3, ms) > 0 && (pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
		t->woke = pane;
	return read_key();
}

/* ---- start and stop ------------------------------------------------------- */

static int start_curses(struct tui *t)
{
	int headless = tui_script_start(t, &screen);
	if (headless < 0)
		return -1;
	if (!headless) {
		char why[256];
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			fprintf(stderr, "fabtop: the TUI needs a terminal; try `fabtop report all`\n");
			return -1;
		}
		/* `fabtop` prints the report instead (main.c); `fabtop wizard`
		 * must not start probes nobody asked for: it says how instead. */
		if (!tui_term_usable(why, sizeof(why))) {
			fprintf(stderr, "fabtop: %s: the console needs one that can; set TERM (e.g. "
				"TERM=xterm-256color), or use `fabtop report all` or `fabtop wizard --batch "
				"--steps job,l1`\n", why);
			return -1;
		}
		/* initscr() exits on a bad TERM; newterm() lets us say why instead. */
		screen = newterm(NULL, stdout, stdin);
		if (!screen) {
			const char *term = getenv("TERM");
			fab_fprintf(stderr, "fabtop: cannot start the TUI on TERM=%s (no terminfo entry?); "
				"try TERM=xterm-256color or `fabtop report all`\n", term ? term : "(unset)");
			return -1;
		}
		set_term(screen);
	}
	in_curses = 1;
	const char *ed = getenv("ESCDELAY");
	if (!ed || !*ed)
		set_escdelay(ESC_DELAY_MS);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	const char *nc = getenv("NO_COLOR");
	bool colors = !(nc && *nc) && has_colors();
	if (colors && start_color() == OK)
		use_default_colors();
	else
		colors = false;
	fab_attr_init(colors);
	mouse_apply(t);
	timeout(IDLE_WAIT_MS);
	return 0;
}

static void stop_curses(struct tui *t)
{
	if (t->pane)
		delwin(t->pane);
	t->pane = NULL;
	tui_leave_curses();
	if (screen)
		delscreen(screen);
	screen = NULL;
	tui_script_stop(t);
}

/* Milliseconds until a pane's work is due, at most IDLE_WAIT_MS. */
static int wait_ms(struct tui *t)
{
	double due = tui_next_due(t);
	if (due < 0)
		return IDLE_WAIT_MS;
	double ms = ceil((due - view_now(&t->ctx)) * 1000.0);
	return ms <= 0 ? 0 : ms > IDLE_WAIT_MS ? IDLE_WAIT_MS : (int)ms;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *job_ras_addr;
static double job_window;

void tui_job_opts(const char *ras_addr, double window)
{
	job_ras_addr = ras_addr;
	job_window = window;
}

static struct learn_session *opt_learn;

/* The settings file, read before the panes open (config.h): the theme is
 * taken by fab_attr_init, the mouse here; the pane it names is where the
 * console opens, unless the caller chose one (choose false: the fleet). */
static void settings_start(struct tui *t, bool choose)
{
	cfg_edit_load();
	t->ctx.mouse = opt_mouse && cfg_get()->mouse;
	for (int i = 0; choose && i < t->npanes; i++)
		if (strcmp(fab_panes[i]->name, cfg_get()->pane) == 0 && tui_present(t, i))
			t->cur = i;
}

void tui_learn_opts(struct learn_session *learn)
{
	opt_learn = learn;
}

static const char *opt_start_pane;

void tui_start_pane(const char *name)
{
	opt_start_pane = name;
}

void tui_mouse_opts(bool mouse)
{
	opt_mouse = mouse;
}

void tui_init(struct tui *t, struct fab_root *root, struct fab_model *m,
		     struct wizard *wizard)
{
	*t = (struct tui){
		.root = root,
		.m = m,
		.npanes = fab_npanes < TUI_MAX_PANES ? fab_npanes : TUI_MAX_PANES,
		.help = 0,
		.woke = -1,
		.fleet_pane = -1,
		.topo_pane = 0,
		.learn_pane = -1,
	};
	t->ctx = (struct view_ctx){ .m = m, .root = root, .wizard = wizard,
				    .ras_addr = job_ras_addr, .ras_window = job_window,
				    .fleet_shown = -1, .fleet_open = -1,
				    .learn = opt_learn, .mouse = opt_mouse && cfg_get()->mouse };
	for (int i = 0; i < t->npanes; i++) {
		t->views[i].ops = fab_panes[i];
		if (fab_panes[i] == &help_view_ops)
			t->help = i;
		if (fab_panes[i] == &fleet_view_ops)
			t->fleet_pane = i;
		if (fab_panes[i] == &topology_view_ops)
			t->topo_pane = i;
		/* By name: the Learn pane may not be in this build's table. */
		if (strcmp(fab_panes[i]->name, "learn") == 0)
			t->learn_pane = i;
	}
	scenario_title(t);
}

static int tui_loop(struct tui *t);

void tui_finish(struct tui *t)
{
	/* Each pane stops what it runs: nothing outlives the console. */
	panes_close(t, false);
	wizard_free(t->own_wizard);
	t->own_wizard = t->ctx.wizard = NULL;
	switcher_close(t);
	if (t->own_learn) {
		learn_free(t->own_learn);
		if (t->ctx.learn == t->own_learn)
			t->ctx.learn = NULL;
		t->own_learn = NULL;
	}
}

int tui_run(struct fab_root *root, struct fab_model *m, struct wizard *wizard)
{
	struct tui t;
	/* `fabtop wizard` brings its wizard and opens on it; otherwise the
	 * Wizard pane gets one of its own. */
	struct wizard *own_wizard = NULL;
	if (!wizard)
		wizard = own_wizard = wizard_new(root, NULL, NULL, 0);
	tui_init(&t, root, m, wizard);
	t.own_wizard = own_wizard;
	settings_start(&t, true);
	for (int i = 0; opt_start_pane && i < t.npanes; i++)
		if (strcmp(fab_panes[i]->name, opt_start_pane) == 0 && tui_present(&t, i))
			t.cur = i;
	for (int i = 0; i < t.npanes; i++)
		if (fab_panes[i] == &wizard_view_ops && wizard && wizard->focus)
			t.cur = i;
	/* `fabtop learn` opens on its pane. */
	if (t.ctx.learn && t.learn_pane >= 0)
		t.cur = t.learn_pane;
	return tui_loop(&t);
}

int tui_fleet_run(const struct fleet *f)
{
	struct tui t;
	struct fab_model m;
	model_init(&m);
	tui_init(&t, NULL, &m, NULL);
	t.fleet = t.ctx.fleet = f;
	settings_start(&t, false);
	if (t.fleet_pane >= 0)
		t.cur = t.fleet_pane;
	int rc = tui_loop(&t);
	/* The node's root is the shell's own: its unpacked files go now. */
	if (t.root)
		root_close(t.root);
	model_free(&m);
	return rc;
}

/* Runs the session until q or a signal: curses up, the panes opened, the
 * loop, then every pane closed and the shell's wizard freed. */
static int tui_loop(struct tui *t)
{
	static bool atexit_done;
	struct fab_model *m = t->m;
	/* The locale is main's (setlocale, then fab_i18n_init, which may
	 * force C.UTF-8 for --lang): setting it again here would undo that. */
	quit_signal = 0;
	install_signals();
	if (!atexit_done) {
		atexit(tui_leave_curses);   /* an exit() anywhere still restores the terminal */
		atexit_done = true;
	}
	if (start_curses(t) != 0) {
		stop_curses(t);
		restore_signals();
		tui_finish(t);
		return 2;
	}
	panes_open(t);
	tui_show_current(t);
	tui_draw(t);
	double drawn_at = mono_s();
	bool pending = false;   /* a pane asked for a frame not drawn yet */
	while (!t->quit && !quit_signal) {
		int ch;
		if (t->script) {
			ch = tui_script_next(t);
		} else {
			int ms = wait_ms(t);
			int left = OUTPUT_FRAME_MS - (int)((mono_s() - drawn_at) * 1000);
			if (pending && left < ms)
				ms = left > 0 ? left : 0;
			if (t->root && !model_has(m, FAB_DETAIL_ALL))
				ms = 0;   /* the rest of the node is read at once */
			ch = next_key(t, ms);
		}
		if (t->quit || quit_signal)
			break;
		if (gpu_arrived(t))
			pending = true;
		/* The first screen is up: the rest of the node (GID tables,
		 * counters) is read now, before the input is handled, and the
		 * screen drawn again with it. A script's first command (a dump
		 * of the first frame) comes before it. */
		if (read_detail(t)) {
			tui_draw(t);
			drawn_at = mono_s();
		}
		if (ch == ERR && !t->script) {
			/* A pane's work is due, or its child printed, or the live
			 * clock: each pane ticks. A pane that only prints gets a
			 * frame every OUTPUT_FRAME_MS at most, none is lost. */
			pending = tui_tick_due(t) || pending;
			/* Output waits in a child's pipe: its pane reads it now. */
			if (t->woke >= 0) {
				struct view *wv = &t->views[t->woke];
				if (wv->ops->tick && wv->ops->tick(wv, &t->ctx) && wv->current)
					pending = true;
				t->woke = -1;
			}
			bool frame_due = (mono_s() - drawn_at) * 1000 >= OUTPUT_FRAME_MS;
			if ((pending && frame_due) || (m->live && time(NULL) != t->drawn_sec)) {
				tui_draw(t);
				drawn_at = mono_s();
				pending = false;
			}
			continue;
		}
		tui_handle_key(t, ch);
		if (t->quit)
			break;
		/* What the key asked for (a step, a sample) is due now. */
		tui_tick_due(t);
		tui_draw(t);
		drawn_at = mono_s();
		pending = false;
	}
	tui_finish(t);
	stop_curses(t);
	restore_signals();
	if (quit_signal)
		return 128 + quit_signal;
	return t->status;
}
