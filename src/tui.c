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
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
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

static void draw_tabs(struct tui *t, int y)
{
	int bar = A_REVERSE;
	int x = 0;
	char buf[96];
	fill_row(y, bar);
	for (int i = 0; i < t->npanes; i++) {
		snprintf(buf, sizeof(buf), " %d %s ", i + 1, fab_panes[i]->title);
		/* The current tab is cut out of the bar, as if joined to the pane. */
		put(y, x, buf, i == t->cur ? (int)A_BOLD : bar);
		x += view_strwidth(buf) + 1;
	}
	const char *name = "fabtop ";   /* no version: screen tests outlive releases */
	int cols = getmaxx(stdscr), w = view_strwidth(name);
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
		snprintf(buf, len, " FLEET: %zu node%s %s Enter on one opens its capture in the panes ",
			 f->n, f->n == 1 ? "" : "s", dash);
		if (view_strwidth(buf) > cols)
			snprintf(buf, len, " FLEET: %zu nodes, none open ", f->n);
		return;
	}
	const char *host = f->nodes[i].host ? f->nodes[i].host : "?";
	snprintf(buf, len, " FLEET: node %s (%d/%zu) %s Backspace returns to the fleet ", host, i + 1,
		 f->n, dash);
	if (view_strwidth(buf) > cols)
		snprintf(buf, len, " FLEET: %s (%d/%zu) %s Bksp: fleet ", host, i + 1, f->n, dash);
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
	 * that this is not the machine's own data. */
	snprintf(buf, sizeof(buf),
		 " DEMO: bundled scenario %s %s not this node's data; `fabtop demo` lists scenarios ",
		 src, dash);
	if (view_strwidth(buf) > cols)
		snprintf(buf, sizeof(buf), " DEMO: scenario %s %s not this node; `fabtop demo` lists more ",
			 src, dash);
	if (view_strwidth(buf) > cols)
		snprintf(buf, sizeof(buf), " DEMO: %s (not this machine) ", src);
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
			snprintf(buf, len, "time N/A");
		return;
	}
	now = (time_t)m->time;
	/* A replay shows when the capture was taken, in UTC, so every machine
	 * (and every screen test) prints the same thing. */
	if (m->time > 0 && gmtime_r(&now, &tm))
		strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
	else
		snprintf(buf, len, "capture time N/A");
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

static void draw_status(struct tui *t, int y)
{
	const struct fab_model *m = t->m;
	char when[48], pos[64], right[96], left[FAB_NAME_LEN + FAB_PATH_LEN + 80];
	const char *keys = "?:help q:quit ";
	const char *host = m->host[0] ? m->host : "host N/A";
	const char *src = m->live ? "live" : m->source;
	int bar = A_REVERSE, cols = getmaxx(stdscr);
	format_time(m, when, sizeof(when));
	scroll_pos(t, pos, sizeof(pos));
	fill_row(y, bar);
	/* The key hints always show; then, as room allows, the time, the scroll
	 * position and the source; the host is clipped only as a last resort. */
	snprintf(left, sizeof(left), " %s  %s  %s", host, src, when);
	if (t->fleet && !t->root)   /* no node read yet: nothing of one to show */
		snprintf(left, sizeof(left), " fleet of %zu node%s", t->fleet->n,
			 t->fleet->n == 1 ? "" : "s");
	snprintf(right, sizeof(right), "%s%s%s", pos, pos[0] ? "  " : "", keys);
	if (view_strwidth(left) + 1 + view_strwidth(right) > cols)
		snprintf(right, sizeof(right), "%s", keys);
	if (view_strwidth(left) + 1 + view_strwidth(right) > cols)
		snprintf(left, sizeof(left), " %s  %s", host, src);
	if (view_strwidth(left) + 1 + view_strwidth(right) > cols)
		snprintf(left, sizeof(left), " %s", host);
	if (*cfg_edit_note())   /* the settings file's problem, or F2's save: until a key */
		snprintf(left, sizeof(left), " %s", cfg_edit_note());
	int rw = view_strwidth(right);
	WINDOW *clip = cols - rw - 1 > 0 ? derwin(stdscr, 1, cols - rw - 1, y, 0) : NULL;
	if (clip) {
		view_put(clip, 0, 0, 0, left, bar);
		delwin(clip);
	}
	put(y, cols - rw, right, bar);
}

/* "terminal too small: need 40x10, have CxR", broken into as many lines as
 * the width needs (after the colon, then after the comma), each centred. */
static void draw_too_small(int rows, int cols)
{
	char all[80], need[32], have[32], both[64];
	snprintf(need, sizeof(need), "need %dx%d,", LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
	snprintf(have, sizeof(have), "have %dx%d", cols, rows);
	snprintf(both, sizeof(both), "%s %s", need, have);
	snprintf(all, sizeof(all), "terminal too small: %s", both);
	const char *lines[3] = { all };
	int n = 1;
	if (view_strwidth(all) > cols) {
		lines[0] = "terminal too small:";
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
	char buf[160];
	snprintf(buf, sizeof(buf), "No node is open yet: choose one in the Fleet pane (%d) and press Enter.",
		 t->fleet_pane + 1);
	view_put(w, 1, 2, 0, buf, A_BOLD);
	view_put(w, 2, 2, 0, "Its capture then fills this pane; Backspace comes back to the fleet.", 0);
}

void tui_draw(struct tui *t)
{
	int rows, cols;
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
		bool now = i == t->cur;
		if (now && !v->current && v->ops->show && t->opened[i])
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

/* ---- keys ----------------------------------------------------------------- */

static void switch_to(struct tui *t, int i)
{
	if (i < 0 || i >= t->npanes || i == t->cur)
		return;
	t->prev = t->cur;
	t->cur = i;
	tui_show_current(t);
}

/* The model read again from t->root: 'r', and a fleet node once opened. */
static void read_model(struct tui *t)
{
	struct fab_model *m = t->m;
	bool demo = m->demo;
	char source[FAB_PATH_LEN];
	memcpy(source, m->source, sizeof(source));
	model_free(m);
	model_init(m);
	collect_all(t->root, m);
	/* `fabtop demo` sets these after collecting; a reload must keep them. */
	if (demo)
		m->demo = true;
	if (!m->source[0] || demo)
		memcpy(m->source, source, sizeof(m->source));
}

static void reload(struct tui *t)
{
	if (!t->root)
		return;   /* `fabtop fleet` with no node open: nothing to read again */
	read_model(t);
	for (int i = 0; i < t->npanes; i++)
		if (t->views[i].ops->reload && t->opened[i])
			t->views[i].ops->reload(&t->views[i], &t->ctx);
}

/* ---- the panes' lives, and the fleet's node ------------------------------- */

/* Whether a pane draws a node (everything but the Fleet and Help panes),
 * so that under `fabtop fleet` it lives only while a node is open. */
static bool shows_node(const struct view_ops *o)
{
	return o != &fleet_view_ops && o != &help_view_ops;
}

/* Opens the panes that are not open, those that show a node only when
 * there is one; each starts at its top with nothing selected. */
static void panes_open(struct tui *t)
{
	for (int i = 0; i < t->npanes; i++) {
		struct view *v = &t->views[i];
		if (t->opened[i] || (shows_node(fab_panes[i]) && !t->root))
			continue;
		*v = (struct view){ .ops = fab_panes[i] };
		if (v->ops->open && v->ops->open(v, &t->ctx) != 0)
			v->priv = NULL;   /* the pane says it has no state */
		t->opened[i] = true;
	}
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

int tui_fleet_open(struct tui *t, int i)
{
	char err[512];
	struct fab_root nr;
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
			 "%s is a saved report (report all --json), not a capture: the panes need a "
			 "capture (`fabtop capture -o FILE` on that node)", host);
		return -1;
	}
	if (root_open(&nr, n->path, err, sizeof(err)) != 0) {
		snprintf(t->ctx.fleet_msg, sizeof(t->ctx.fleet_msg), "cannot open %s: %s", host, err);
		return -1;
	}
	/* The old node's panes stop (a sampler reading its files, a wizard
	 * step's child) before its root and its unpacked files go. */
	panes_close(t, true);
	wizard_free(t->own_wizard);
	t->own_wizard = t->ctx.wizard = NULL;
	if (t->root)
		root_close(t->root);
	t->node_root = nr;
	t->root = &t->node_root;
	t->ctx.root = t->root;
	t->m->source[0] = '\0';
	read_model(t);
	t->own_wizard = t->ctx.wizard = wizard_new(t->root, NULL, NULL, 0);
	t->ctx.fleet_shown = i;
	panes_open(t);
	switch_to(t, t->topo_pane);
	tui_show_current(t);
	return 0;
}

void tui_handle_key(struct tui *t, int ch)
{
	struct view *v = &t->views[t->cur];
	if (ch == KEY_RESIZE || ch == ERR)
		return;   /* the next draw lays out again */
	cfg_edit_note_seen();
	if (cfg_edit_active() || ch == KEY_F(2)) {
		/* F2: the settings editor takes every key until it closes. */
		if (cfg_edit_active())
			cfg_edit_key(ch);
		else
			cfg_edit_open(NULL);
		t->ctx.mouse = opt_mouse && cfg_get()->mouse;
		return;
	}
	if (v->ops->key && t->opened[t->cur] && v->ops->key(v, ch, &t->ctx)) {
		/* The Fleet pane asked for a node: opened now, after its key. */
		int want = t->ctx.fleet_open;
		t->ctx.fleet_open = -1;
		if (want >= 0)
			tui_fleet_open(t, want);
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
		switch_to(t, (t->cur + 1) % t->npanes);
		return;
	case KEY_BTAB:
		switch_to(t, (t->cur + t->npanes - 1) % t->npanes);
		return;
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
	default:
		break;
	}
	if (ch >= '1' && ch <= '9') {
		switch_to(t, ch - '1');
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
static int next_key(struct tui *t, int ms)
{
	int fd = -1, pane = -1;
	for (int i = 0; i < t->npanes && fd < 0; i++)
		if (t->views[i].ops->wait_fd && t->opened[i] &&
		    (fd = t->views[i].ops->wait_fd(&t->views[i], &t->ctx)) >= 0)
			pane = i;
	if (fd < 0) {
		timeout(ms);
		return getch();
	}
	timeout(0);
	int ch = getch();
	if (ch != ERR)
		return ch;
	struct pollfd pf[2] = {
		{ .fd = STDIN_FILENO, .events = POLLIN },
		{ .fd = fd, .events = POLLIN },
	};
	/* EINTR: a resize or a quit signal, which getch() and the loop see. */
	if (poll(pf, 2, ms) > 0 && (pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
		t->woke = pane;
	return getch();
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
		if (strcmp(fab_panes[i]->name, cfg_get()->pane) == 0 &&
		    (!fab_panes[i]->present || fab_panes[i]->present(&t->ctx)))
			t->cur = i;
}

void tui_learn_opts(struct learn_session *learn)
{
	opt_learn = learn;
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
	};
	t->ctx = (struct view_ctx){ .m = m, .root = root, .wizard = wizard,
				    .ras_addr = job_ras_addr, .ras_window = job_window,
				    .fleet_shown = -1, .fleet_open = -1,
				    .learn = opt_learn, .mouse = opt_mouse };
	for (int i = 0; i < t->npanes; i++) {
		t->views[i].ops = fab_panes[i];
		if (fab_panes[i] == &help_view_ops)
			t->help = i;
		if (fab_panes[i] == &fleet_view_ops)
			t->fleet_pane = i;
		if (fab_panes[i] == &topology_view_ops)
			t->topo_pane = i;
	}
}

static int tui_loop(struct tui *t);

void tui_finish(struct tui *t)
{
	/* Each pane stops what it runs: nothing outlives the console. */
	panes_close(t, false);
	wizard_free(t->own_wizard);
	t->own_wizard = t->ctx.wizard = NULL;
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
	for (int i = 0; i < t.npanes; i++)
		if (fab_panes[i] == &wizard_view_ops && wizard && wizard->focus)
			t.cur = i;
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
	setlocale(LC_ALL, "");
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
			ch = next_key(t, ms);
		}
		if (t->quit || quit_signal)
			break;
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
