/*
 * tui_script.c - the headless harness (tig-style): FABTOP_SCRIPT=FILE
 * reads commands instead of keys and draws to /dev/null at
 * FABTOP_SCRIPT_SIZE (default 80x24), so screen tests need no TTY. The
 * commands, one a line ('#' comments):
 *   key NAME        a key: a character, or Tab, Enter, Esc, BSpace, Up, PgDn, F1, F2, ...
 *   type TEXT       each character of TEXT as a key (UTF-8: a Chinese search
 *                   query reaches the prompt as get_wch would deliver it)
 *   click X Y       mouse button 1 pressed at screen column X, row Y (from 0),
 *                   through ncurses' own queue (ungetmouse), so -M (no mouse
 *                   mask) drops it as the terminal's would be
 *   wheel up|down X Y   a notch of the mouse wheel at column X, row Y
 *   resize C R      the terminal becomes C columns by R rows
 *   dump FILE       the whole screen as text, trailing spaces trimmed
 *   dump-pane FILE  only the pane's rows: no tab bar, banner or status bar,
 *                   so a pane's test does not change when a tab is added
 *   sleep S         real seconds pass (nothing is polled meanwhile)
 *   tick N          N steps of the panes' virtual clock: each moves it to
 *                   the soonest due() (1 s when none is due) and ticks
 *   wait S          the current pane's background work runs in real time
 *                   until it has none (a wizard step ended) or S seconds
 *                   pass, then the screen is drawn
 *   wait-gpu S      the live GPU libraries (gpu_bg.c) answer, or S seconds
 *                   pass; then the shell merges what came and draws
 * Time does not drive the panes here: only "tick" moves their clock, so
 * every dump is the same.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include "fabtop/collect.h"
#include "fabtop/sanitize.h"
#include "tui_int.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define WAIT_SLICE_MS 100   /* "wait": how often the pane's work is looked at */

static FILE *script_out, *script_in;  /* /dev/null streams */

static const struct { const char *name; int key; } key_names[] = {
	{ "Tab", '\t' },        { "BTab", KEY_BTAB },   { "S-Tab", KEY_BTAB },
	{ "Up", KEY_UP },       { "Down", KEY_DOWN },   { "Left", KEY_LEFT },
	{ "Right", KEY_RIGHT }, { "PgUp", KEY_PPAGE },  { "PgDn", KEY_NPAGE },
	{ "PageUp", KEY_PPAGE },{ "PageDown", KEY_NPAGE },
	{ "Home", KEY_HOME },   { "End", KEY_END },     { "Enter", '\n' },
	{ "Space", ' ' },       { "Esc", 27 },          { "F1", KEY_F(1) },
	{ "F2", KEY_F(2) },     { "F10", KEY_F(10) },   { "BSpace", KEY_BACKSPACE },
};

/* "type TEXT": the keys still to hand out, one per call. */
static int typed[256], ntyped, typed_at;

static int parse_key(const char *name)
{
	for (size_t i = 0; i < NELEM(key_names); i++)
		if (strcmp(key_names[i].name, name) == 0)
			return key_names[i].key;
	if (name[0] && !name[1])
		return (unsigned char)name[0];
	return ERR;
}

/* Rows y0..y1 of stdscr as text, one line per row, trailing spaces trimmed. */
static int dump_rows(const char *path, int y0, int y1)
{
	FILE *f = fopen(path, "w");
	int cols = getmaxx(stdscr);
	if (!f)
		return -1;
	wchar_t *w = calloc((size_t)cols + 1, sizeof(*w));
	char *mb = malloc((size_t)cols * MB_CUR_MAX + 1);
	for (int y = y0; w && mb && y < y1; y++) {
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
	tui_leave_curses();
	fab_fprintf(stderr, "fabtop: FABTOP_SCRIPT line %d: %s: %s\n", t->script_line, what, arg);
	t->status = 2;
	t->quit = true;
}

/* "tick N": the virtual clock moves to each next due time (or a second on). */
static void script_tick(struct tui *t, int n)
{
	for (int i = 0; i < n; i++) {
		double due = tui_next_due(t);
		if (due < 0)
			t->ctx.vnow += 1.0;
		else if (due > t->ctx.vnow)
			t->ctx.vnow = due;
		tui_tick_due(t);
	}
}

/* "wait S": the current pane's work runs in real time; its wake-up
 * descriptor (a child's pipe) or a slice of time, whichever comes first. */
static void script_wait(struct tui *t, int secs)
{
	struct view *v = &t->views[t->cur];
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double end = (double)ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	bool was_virtual = t->ctx.virtual_clock;
	t->ctx.virtual_clock = false;   /* children run in real time */
	while (t->opened[t->cur] && v->ops->due && v->ops->due(v, &t->ctx) >= 0) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		double left = end - ((double)ts.tv_sec + ts.tv_nsec / 1e9);
		if (left <= 0)
			break;
		int ms = left * 1000 < WAIT_SLICE_MS ? (int)(left * 1000) + 1 : WAIT_SLICE_MS;
		int fd = v->ops->wait_fd ? v->ops->wait_fd(v, &t->ctx) : -1;
		if (fd >= 0) {
			struct pollfd pf = { .fd = fd, .events = POLLIN };
			poll(&pf, 1, ms);
		} else {
			poll(NULL, 0, ms);
		}
		if (v->ops->tick)
			v->ops->tick(v, &t->ctx);
	}
	t->ctx.virtual_clock = was_virtual;
}

/* TEXT as keys: ASCII as itself, other characters as TUI_KEY_WCHAR. */
static int script_type(struct tui *t, const char *text)
{
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	ntyped = typed_at = 0;
	size_t rem = strlen(text);
	while (rem && ntyped < (int)NELEM(typed)) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, text, rem, &st);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			script_error(t, "type: not valid text in this locale", text);
			ntyped = 0;
			return -1;
		}
		typed[ntyped++] = wc < 0x80 ? (int)wc : TUI_KEY_WCHAR(wc);
		text += n;
		rem -= n;
	}
	return 0;
}

/* A mouse event through ncurses: ungetmouse() queues it as the terminal's
 * would be, and getch() hands back its KEY_MOUSE for the shell's getmouse(). */
static int script_mouse(mmask_t what, int x, int y)
{
	MEVENT ev = { .id = 0, .x = x, .y = y, .z = 0, .bstate = what };
	if (ungetmouse(&ev) != OK)
		return ERR;
	timeout(0);
	return getch();
}

int tui_script_next(struct tui *t)
{
	char line[1024], arg[1000];
	int a, b;
	if (typed_at < ntyped)
		return typed[typed_at++];
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
	if (strncmp(p, "type ", 5) == 0) {
		if (script_type(t, p + 5) == 0 && typed_at < ntyped)
			return typed[typed_at++];
		return ERR;
	}
	if (sscanf(p, "click %d %d", &a, &b) == 2)
		return script_mouse(BUTTON1_PRESSED, a, b);
	if (sscanf(p, "wheel %15s %d %d", arg, &a, &b) == 3) {
		if (strcmp(arg, "up") && strcmp(arg, "down")) {
			script_error(t, "wheel: up or down", arg);
			return ERR;
		}
		return script_mouse(strcmp(arg, "up") == 0 ? BUTTON4_PRESSED : BUTTON5_PRESSED, a, b);
	}
	if (sscanf(p, "resize %d %d", &a, &b) == 2) {
		if (a < 1 || b < 1) {
			script_error(t, "bad size", p);
			return ERR;
		}
		resizeterm(b, a);   /* "resize COLS ROWS", like "40x10" */
		return KEY_RESIZE;
	}
	if (sscanf(p, "dump-pane %999[^\n]", arg) == 1) {
		/* Too small for a pane: the whole screen says why. */
		int y0 = t->lay.too_small ? 0 : t->lay.pane_y;
		int y1 = t->lay.too_small ? getmaxy(stdscr) : t->lay.pane_y + t->lay.pane_h;
		if (dump_rows(arg, y0, y1) != 0)
			script_error(t, "cannot write the pane dump", arg);
		return ERR;
	}
	if (sscanf(p, "dump %999[^\n]", arg) == 1) {
		if (dump_rows(arg, 0, getmaxy(stdscr)) != 0)
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
		return KEY_RESIZE;   /* no key, but a frame: the panes moved */
	}
	if (sscanf(p, "wait %d", &a) == 1) {
		if (a < 0 || a > 86400) {
			script_error(t, "bad wait (seconds)", p);
			return ERR;
		}
		script_wait(t, a);
		return KEY_RESIZE;
	}
	if (sscanf(p, "wait-gpu %d", &a) == 1) {
		if (a < 0 || a > 86400) {
			script_error(t, "bad wait-gpu (seconds)", p);
			return ERR;
		}
		gpu_bg_wait(a * 1000);
		return KEY_RESIZE;
	}
	script_error(t, "unknown command (key, type, click, wheel, resize, dump, dump-pane, sleep, tick, wait, wait-gpu)", p);
	return ERR;
}

int tui_script_start(struct tui *t, SCREEN **screen)
{
	const char *spec = getenv("FABTOP_SCRIPT");
	if (!spec || !*spec)
		return 0;
	t->script = fopen(spec, "r");
	if (!t->script) {
		fab_fprintf(stderr, "fabtop: cannot open FABTOP_SCRIPT %s: %s\n", spec, strerror(errno));
		return -1;
	}
	int cols = 80, rows = 24;
	const char *size = getenv("FABTOP_SCRIPT_SIZE");
	if (size && (sscanf(size, "%dx%d", &cols, &rows) != 2 || cols < 1 || rows < 1)) {
		fab_fprintf(stderr, "fabtop: FABTOP_SCRIPT_SIZE=%s: want COLSxROWS like 80x24\n", size);
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
		*screen = newterm(NULL, out, in);
	/* No usable TERM (CI): any common type will do, nothing is shown. */
	if (out && in && !*screen)
		*screen = newterm("xterm-256color", out, in);
	if (out && in && !*screen)
		*screen = newterm("vt100", out, in);
	if (!*screen) {
		fprintf(stderr, "fabtop: headless mode: newterm() failed (no terminfo?)\n");
		return -1;
	}
	set_term(*screen);
	resizeterm(rows, cols);
	t->ctx.virtual_clock = true;
	return 1;
}

void tui_script_stop(struct tui *t)
{
	if (script_out)
		fclose(script_out);
	if (script_in)
		fclose(script_in);
	script_out = script_in = NULL;
	if (t->script)
		fclose(t->script);
	t->script = NULL;
}
