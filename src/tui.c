/*
 * tui.c - the ncurses shell: tab bar, demo banner, the current pane, status
 * bar, keys, and a terminal that is restored on every way out.
 *
 * Headless mode (tig-style): FABTOP_SCRIPT=FILE reads commands instead of
 * keys and draws to /dev/null at FABTOP_SCRIPT_SIZE (default 80x24), so
 * screen tests need no TTY. The commands, one a line ('#' comments):
 *   key NAME     a key: a character, or Tab, Enter, Esc, Up, PgDn, F1, ...
 *   resize C R   the terminal becomes C columns by R rows
 *   dump FILE    the screen as text, trailing spaces trimmed
 *   sleep S      real seconds pass (nothing is polled meanwhile)
 *   tick N       N counters-sampler intervals pass on a virtual clock
 *   wait S       the wizard's running step is polled in real time until it
 *                ends or S seconds pass, then the screen is drawn
 * Time does not drive the counters sampler there: "tick N" lets N of its
 * intervals pass (each steps it once unless paused; playback or live
 * alike), so every dump is the same. A running wizard step is polled once
 * after each key, so a dump after "key Enter" shows it running.
 *
 * The counters sampler (live.h) belongs to the session: it opens when the
 * Counters pane is first shown (the first frame of the other panes pays
 * nothing), keeps its history across 'r', and sets the getch() timeout:
 * the next step or 250 ms, whichever is sooner. A frame is drawn on a key,
 * on a step while the Counters pane shows, or when the clock's second
 * changes on a live node.
 *
 * A wizard step running in the background (wizard.h) is polled here: the
 * wait for a key drops to WIZ_POLL_MS while one is busy and also wakes
 * when its child's pipe has output (wizard_wait_fd), each wake and each
 * key polls it without waiting (the runner reads the pipe then), and a
 * frame follows at most every WIZ_POLL_MS while it only prints, so the
 * pane stays live and the child never waits on fabtop. Quitting cancels it.
 *
 * Esc is a key of its own after ESC_DELAY_MS, not ncurses' default second
 * (unless ESCDELAY says otherwise): it closes details, filters and help at once.
 */
#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include "fabtop/collect.h"
#include "fabtop/layout.h"
#include "fabtop/live.h"
#include "fabtop/tui.h"
#include "fabtop/view.h"
#include "fabtop/wizard.h"

/* Adding a pane is one line here (and its file under views/). */
const struct view_ops *const fab_panes[] = {
	&topology_view_ops,
	&links_view_ops,
	&counters_view_ops,
	&wizard_view_ops,
	&help_view_ops,
};
const int fab_npanes = (int)(sizeof(fab_panes) / sizeof(fab_panes[0]));

#define MAX_PANES 9     /* digits 1..9 select a pane */
#define WIZ_POLL_MS 100 /* a busy wizard step's output and elapsed time move this often */
/* How long after ESC the rest of an escape sequence (an arrow key) may
 * come: a terminal sends one in a single write, even over ssh. */
#define ESC_DELAY_MS 25
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct tui {
	struct fab_root *root;
	struct fab_model *m;
	struct view views[MAX_PANES];
	int npanes, cur, prev, help;
	struct fab_layout lay;
	WINDOW *pane;
	int pane_y, pane_h, pane_w;   /* what pane was made for */
	FILE *script;                 /* headless mode: commands instead of keys */
	int script_line;
	int status;                   /* exit status */
	bool quit;
	time_t drawn_sec;             /* live clock: redraw when it changes */
	double drawn_at;              /* CLOCK_MONOTONIC of the last frame */
	struct fab_live live;         /* the counters sampler, once opened */
	bool live_opened;
	double vnow;                  /* headless mode's virtual clock, seconds */
};

/* ---- terminal restore: normal exit, signals, crashes ---------------------- */

static volatile sig_atomic_t quit_signal;
static volatile sig_atomic_t in_curses;
static SCREEN *screen;          /* from newterm(), freed with delscreen() */
static FILE *script_out, *script_in;  /* headless mode's /dev/null streams */

static const int quit_signals[] = { SIGINT, SIGTERM, SIGHUP };
static const int fatal_signals[] = { SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL };
static struct sigaction old_quit[NELEM(quit_signals)], old_fatal[NELEM(fatal_signals)];

static void leave_curses(void)
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
	leave_curses();
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

static void draw_banner(struct tui *t, int y)
{
	char buf[FAB_PATH_LEN + 128];
	const char *dash = fab_glyph("\u2014", "-"), *src = t->m->source;
	int cols = getmaxx(stdscr);
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
	snprintf(right, sizeof(right), "%s%s%s", pos, pos[0] ? "  " : "", keys);
	if (view_strwidth(left) + 1 + view_strwidth(right) > cols)
		snprintf(right, sizeof(right), "%s", keys);
	if (view_strwidth(left) + 1 + view_strwidth(right) > cols)
		snprintf(left, sizeof(left), " %s  %s", host, src);
	if (view_strwidth(left) + 1 + view_strwidth(right) > cols)
		snprintf(left, sizeof(left), " %s", host);
	int rw = view_strwidth(right);
	WINDOW *clip = cols - rw - 1 > 0 ? derwin(stdscr, 1, cols - rw - 1, y, 0) : NULL;
	if (clip) {
		view_put(clip, 0, 0, 0, left, bar);
		delwin(clip);
	}
	put(y, cols - rw, right, bar);
}

static void draw_too_small(int rows, int cols)
{
	char a[64], b[64];
	snprintf(a, sizeof(a), "terminal too small: need %dx%d, have %dx%d",
		 LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS, cols, rows);
	int y = rows / 2, w = view_strwidth(a);
	if (w <= cols) {
		put(y, (cols - w) / 2, a, A_BOLD);
		return;
	}
	/* Narrower than the sentence: break it after the colon. */
	snprintf(a, sizeof(a), "terminal too small:");
	snprintf(b, sizeof(b), "need %dx%d, have %dx%d", LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS,
		 cols, rows);
	y = rows > 1 ? rows / 2 - 1 : 0;
	w = view_strwidth(a);
	put(y, w < cols ? (cols - w) / 2 : 0, a, A_BOLD);
	w = view_strwidth(b);
	put(y + 1, w < cols ? (cols - w) / 2 : 0, b, A_BOLD);
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

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void draw(struct tui *t)
{
	int rows, cols;
	getmaxyx(stdscr, rows, cols);
	t->drawn_at = mono_s();
	t->lay = layout_compute(rows, cols, t->m->demo);
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
			v->ops->draw(v, w, t->m);
		}
		draw_status(t, t->lay.status_y);
	}
	wnoutrefresh(stdscr);
	doupdate();
}

/* ---- the counters sampler ------------------------------------------------- */

/* Seconds on the clock the sampler runs on: CLOCK_MONOTONIC, or in headless
 * mode a virtual one that only "tick" moves. */
static double tui_now(const struct tui *t)
{
	return t->script ? t->vnow : mono_s();
}

static bool on_counters(const struct tui *t)
{
	return t->views[t->cur].ops == &counters_view_ops;
}

static void live_ensure(struct tui *t)
{
	if (t->live_opened)
		return;
	live_open(&t->live, t->root, tui_now(t));   /* a failure is shown in the pane */
	t->live_opened = true;
	t->m->counters_live = &t->live;
}

/* Whether the sampler runs now: a live node is sampled in the background
 * once opened (its history is there when the pane comes back); a playback
 * moves only while its pane shows, so a recording is not over unseen. */
static bool live_running(const struct tui *t)
{
	return t->live_opened && (!t->live.s.playback || on_counters(t));
}

/* "tick N": N intervals pass on the virtual clock, each a step unless paused. */
static void script_tick(struct tui *t, int n)
{
	live_ensure(t);
	for (int i = 0; i < n; i++) {
		struct fab_live *l = &t->live;
		double step = l->s.playback ? 0 : l->interval;
		t->vnow = l->next_due > t->vnow ? l->next_due : t->vnow + (step > 0 ? step : 1.0);
		live_tick(l, t->vnow);
	}
}

/* ---- the wizard's running step --------------------------------------------- */

static bool wizard_running(const struct tui *t)
{
	return t->m->wizard && wizard_busy(t->m->wizard) >= 0;
}

/* "wait S": real time passes, polling the busy step, until it ends or S
 * seconds are over. */
static void script_wait(struct tui *t, int secs)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + secs;
	while (wizard_running(t)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		double left = end - ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
		if (left <= 0)
			break;
		wizard_poll(t->m->wizard, left * 1000 < WIZ_POLL_MS ? (int)(left * 1000) + 1 : WIZ_POLL_MS);
	}
}

/* ---- keys ----------------------------------------------------------------- */

static void switch_to(struct tui *t, int i)
{
	if (i < 0 || i >= t->npanes || i == t->cur)
		return;
	t->prev = t->cur;
	t->cur = i;
}

static void reload(struct tui *t)
{
	struct fab_model *m = t->m;
	struct wizard *wizard = m->wizard;
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
	/* The sampler and its history outlive the snapshot. */
	m->counters_live = t->live_opened ? &t->live : NULL;
	m->wizard = wizard;   /* so do the wizard's steps */
}

static void handle_key(struct tui *t, int ch)
{
	struct view *v = &t->views[t->cur];
	if (ch == KEY_RESIZE || ch == ERR)
		return;   /* the next draw lays out again */
	if (v->ops->key && v->ops->key(v, ch, t->m))
		return;
	switch (ch) {
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

/* ---- headless script ------------------------------------------------------ */

static const struct { const char *name; int key; } key_names[] = {
	{ "Tab", '\t' },        { "BTab", KEY_BTAB },   { "S-Tab", KEY_BTAB },
	{ "Up", KEY_UP },       { "Down", KEY_DOWN },   { "Left", KEY_LEFT },
	{ "Right", KEY_RIGHT }, { "PgUp", KEY_PPAGE },  { "PgDn", KEY_NPAGE },
	{ "PageUp", KEY_PPAGE },{ "PageDown", KEY_NPAGE },
	{ "Home", KEY_HOME },   { "End", KEY_END },     { "Enter", '\n' },
	{ "Space", ' ' },       { "Esc", 27 },          { "F1", KEY_F(1) },
	{ "F10", KEY_F(10) },
};

static int parse_key(const char *name)
{
	for (size_t i = 0; i < NELEM(key_names); i++)
		if (strcmp(key_names[i].name, name) == 0)
			return key_names[i].key;
	if (name[0] && !name[1])
		return (unsigned char)name[0];
	return ERR;
}

/* Writes stdscr as text, one line per row, trailing spaces trimmed. */
static int dump_screen(const char *path)
{
	FILE *f = fopen(path, "w");
	int rows, cols;
	if (!f)
		return -1;
	getmaxyx(stdscr, rows, cols);
	wchar_t *w = calloc((size_t)cols + 1, sizeof(*w));
	char *mb = malloc((size_t)cols * MB_CUR_MAX + 1);
	for (int y = 0; w && mb && y < rows; y++) {
		int n = mvwinnwstr(stdscr, y, 0, w, cols);
		if (n < 0)
			n = 0;
		w[n] = L'\0';
		size_t len = wcstombs(mb, w, (size_t)cols * MB_CUR_MAX + 1);
		if (len == (size_t)-1)
			len = 0;
		while (len && mb[len - 1] == ' ')
			len--;
		fprintf(f, "%.*s\n", (int)len, mb);
	}
	free(w);
	free(mb);
	return fclose(f) == 0 ? 0 : -1;
}

static void script_error(struct tui *t, const char *what, const char *arg)
{
	leave_curses();
	fprintf(stderr, "fabtop: FABTOP_SCRIPT line %d: %s: %s\n", t->script_line, what, arg);
	t->status = 2;
	t->quit = true;
}

/* The next event of the script: a key, KEY_RESIZE, or ERR after a command
 * that needs no key (dump, sleep). At the end of the script: quit. */
static int script_next(struct tui *t)
{
	char line[1024], arg[1000];
	int a, b;
	if (!fgets(line, sizeof(line), t->script)) {
		t->quit = true;
		return ERR;
	}
	t->script_line++;
	line[strcspn(line, "\r\n")] = '\0';
	char *p = line;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#')
		return ERR;
	if (sscanf(p, "key %999s", arg) == 1) {
		int k = parse_key(arg);
		if (k == ERR)
			script_error(t, "unknown key", arg);
		return k;
	}
	if (sscanf(p, "resize %d %d", &a, &b) == 2) {
		if (a < 1 || b < 1) {
			script_error(t, "bad size", p);
			return ERR;
		}
		resizeterm(b, a);   /* "resize COLS ROWS", like "40x10" */
		return KEY_RESIZE;
	}
	if (sscanf(p, "dump %999[^\n]", arg) == 1) {
		if (dump_screen(arg) != 0)
			script_error(t, "cannot write the screen dump", arg);
		return ERR;
	}
	if (sscanf(p, "sleep %d", &a) == 1) {
		if (a > 0)
			sleep((unsigned)a);
		return ERR;
	}
	if (sscanf(p, "tick %d", &a) == 1) {
		if (a < 0 || a > 1000000) {
			script_error(t, "bad tick count", p);
			return ERR;
		}
		script_tick(t, a);
		return ERR;
	}
	if (sscanf(p, "wait %d", &a) == 1) {
		if (a < 0 || a > 86400) {
			script_error(t, "bad wait (seconds)", p);
			return ERR;
		}
		script_wait(t, a);
		return KEY_RESIZE;   /* no key, but a frame: the step moved */
	}
	script_error(t, "unknown command (key, resize, dump, sleep, tick, wait)", p);
	return ERR;
}

/* ---- waiting for a key ----------------------------------------------------- */

/* getch() can only wait for the terminal. While a wizard step's child
 * writes into a pipe, the wait is a poll() on both, so its output is read
 * as it comes (wizard_poll after the ERR this returns) and the child never
 * waits on a full pipe; a key is then read without waiting. One ncurses
 * already holds (the rest of a paste) is taken before any wait. */
static int next_key(struct tui *t, int ms)
{
	int fd = wizard_wait_fd(t->m->wizard);
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
	poll(pf, 2, ms);
	return getch();
}

/* ---- start and stop ------------------------------------------------------- */

static int start_curses(struct tui *t)
{
	const char *spec = getenv("FABTOP_SCRIPT");
	if (spec && *spec) {
		t->script = fopen(spec, "r");
		if (!t->script) {
			fprintf(stderr, "fabtop: cannot open FABTOP_SCRIPT %s: %s\n", spec,
				strerror(errno));
			return -1;
		}
		int cols = 80, rows = 24;
		const char *size = getenv("FABTOP_SCRIPT_SIZE");
		if (size && (sscanf(size, "%dx%d", &cols, &rows) != 2 || cols < 1 || rows < 1)) {
			fprintf(stderr, "fabtop: FABTOP_SCRIPT_SIZE=%s: want COLSxROWS like 80x24\n",
				size);
			return -1;
		}
		/* Output goes nowhere; ncurses takes the size from LINES/COLUMNS
		 * because /dev/null has no window size. */
		char num[16];
		snprintf(num, sizeof(num), "%d", rows);
		setenv("LINES", num, 1);
		snprintf(num, sizeof(num), "%d", cols);
		setenv("COLUMNS", num, 1);
		/* /dev/null rather than a terminal on stdin, whose modes newterm()
		 * would otherwise change. */
		FILE *out = script_out = fopen("/dev/null", "w");
		FILE *in = isatty(STDIN_FILENO) ? (script_in = fopen("/dev/null", "r")) : stdin;
		const char *term = getenv("TERM");
		if (out && in && term && *term && strcmp(term, "dumb") != 0)
			screen = newterm(NULL, out, in);
		/* No usable TERM (CI): any common type will do, nothing is shown. */
		if (out && in && !screen)
			screen = newterm("xterm-256color", out, in);
		if (out && in && !screen)
			screen = newterm("vt100", out, in);
		if (!screen) {
			fprintf(stderr, "fabtop: headless mode: newterm() failed (no terminfo?)\n");
			return -1;
		}
		set_term(screen);
		resizeterm(rows, cols);
	} else {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			fprintf(stderr, "fabtop: the TUI needs a terminal; try `fabtop report all`\n");
			return -1;
		}
		/* initscr() exits on a bad TERM; newterm() lets us say why instead. */
		screen = newterm(NULL, stdout, stdin);
		if (!screen) {
			const char *term = getenv("TERM");
			fprintf(stderr, "fabtop: cannot start the TUI on TERM=%s (no terminfo entry?); "
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
	timeout(250);
	return 0;
}

static void stop_curses(struct tui *t)
{
	if (t->pane)
		delwin(t->pane);
	t->pane = NULL;
	leave_curses();
	if (screen)
		delscreen(screen);
	screen = NULL;
	if (script_out)
		fclose(script_out);
	if (script_in)
		fclose(script_in);
	script_out = script_in = NULL;
	if (t->script)
		fclose(t->script);
	t->script = NULL;
}

int tui_run(struct fab_root *root, struct fab_model *m)
{
	static bool atexit_done;
	struct tui t = {
		.root = root,
		.m = m,
		.npanes = fab_npanes < MAX_PANES ? fab_npanes : MAX_PANES,
		.help = 0,
	};
	/* `fabtop wizard` brings its wizard and opens on it; otherwise the
	 * Wizard pane gets one of its own. */
	struct wizard *own_wizard = NULL;
	if (!m->wizard)
		m->wizard = own_wizard = wizard_new(root, NULL, NULL, 0);
	for (int i = 0; i < t.npanes; i++) {
		t.views[i].ops = fab_panes[i];
		if (fab_panes[i] == &help_view_ops)
			t.help = i;
		if (fab_panes[i] == &wizard_view_ops && m->wizard && m->wizard->focus)
			t.cur = i;
	}
	setlocale(LC_ALL, "");
	quit_signal = 0;
	install_signals();
	if (!atexit_done) {
		atexit(leave_curses);   /* an exit() anywhere still restores the terminal */
		atexit_done = true;
	}
	if (start_curses(&t) != 0) {
		stop_curses(&t);
		restore_signals();
		return 2;
	}
	draw(&t);
	while (!t.quit && !quit_signal) {
		int ch;
		if (t.script) {
			ch = script_next(&t);
		} else {
			int due = live_running(&t) ? live_due(&t.live, tui_now(&t)) : -1;
			int most = wizard_running(&t) ? WIZ_POLL_MS : 250;
			ch = next_key(&t, due >= 0 && due < most ? due : most);
		}
		if (t.quit || quit_signal)
			break;
		if (ch == ERR && !t.script) {
			/* Poll timeout or the wizard's child printed: a step of the
			 * sampler, the wizard's running step, or the live clock. */
			bool stepped = live_running(&t) && live_tick(&t.live, tui_now(&t));
			bool busy = wizard_running(&t);
			bool wiz = wizard_poll(m->wizard, 0);
			/* A child printing fast wakes this often: its output is
			 * read each time, drawn every WIZ_POLL_MS, its end at once. */
			if (wiz && wizard_running(&t) && busy &&
			    (mono_s() - t.drawn_at) * 1000 < WIZ_POLL_MS)
				wiz = false;
			if ((stepped && on_counters(&t)) || wiz || (m->live && time(NULL) != t.drawn_sec))
				draw(&t);
			continue;
		}
		handle_key(&t, ch);
		if (t.quit)
			break;
		wizard_poll(m->wizard, 0);
		if (on_counters(&t))
			live_ensure(&t);
		/* The pane may have asked for a step ('n'); on the virtual clock
		 * it takes an interval, as a live read needs time to measure. */
		if (t.live_opened && t.live.step_req) {
			if (t.script && !t.live.s.playback)
				t.vnow += t.live.interval;
			live_tick(&t.live, tui_now(&t));
		}
		draw(&t);
	}
	if (t.live_opened)
		live_close(&t.live);
	m->counters_live = NULL;
	/* A step left running would outlive the pane that shows it. */
	wizard_cancel(m->wizard);
	if (own_wizard) {
		wizard_free(own_wizard);
		m->wizard = NULL;
	}
	stop_curses(&t);
	restore_signals();
	if (quit_signal)
		return 128 + quit_signal;
	return t.status;
}
