/*
 * tui_int.h - what the shell (tui.c) and its headless script harness
 * (tui_script.c) share: the session, one frame, one key, the panes'
 * background work. Not a public API.
 *
 * The harness stands in for the terminal: it opens curses on /dev/null at
 * a size it is told, feeds keys and commands instead of getch(), and moves
 * the panes' clock only when told, so every screen test is repeatable.
 */
#ifndef FABTOP_TUI_INT_H
#define FABTOP_TUI_INT_H

#include <stdio.h>
#include <time.h>
#include "fabtop/layout.h"
#include "fabtop/root.h"
#include "fabtop/tui.h"
#include "fabtop/view.h"

#define TUI_MAX_PANES 9        /* digits 1..9 select a pane */
/* A character beyond ASCII typed at the search prompt (get_wch): keys above
 * KEY_MAX carry it, so one int holds a key code or a wide character. */
#define TUI_KEY_WCHAR(wc) (KEY_MAX + 1 + (int)(wc))
#define TUI_IS_WCHAR(k) ((k) > KEY_MAX)
#define TUI_WCHAR_OF(k) ((wchar_t)((k) - KEY_MAX - 1))

struct scenario;

struct tui {
	struct fab_root *root;
	struct fab_model *m;
	struct view_ctx ctx;          /* what every pane receives */
	struct view views[TUI_MAX_PANES];
	int npanes, cur, prev, help;
	struct fab_layout lay;
	WINDOW *pane;
	int pane_y, pane_h, pane_w;   /* what pane was made for */
	FILE *script;                 /* headless mode: commands instead of keys */
	int script_line;
	int status;                   /* exit status */
	bool quit;
	time_t drawn_sec;             /* live clock: redraw when it changes */
	int woke;                     /* the pane whose wait_fd ended the wait for a key, -1 none */
	bool opened[TUI_MAX_PANES];   /* open() was called and close() not yet */
	struct wizard *own_wizard;    /* made by the shell (freed with its root) */
	/* `fabtop fleet` (tui_fleet_run): the node open in the panes is the
	 * shell's own root (root == &node_root then; NULL while none is). */
	const struct fleet *fleet;
	struct fab_root node_root;
	int fleet_pane, topo_pane;    /* their indices; -1 when not in the table */
	int learn_pane;               /* the pane named "learn"; -1 when this build has none */
	/* Where each tab was drawn (mouse clicks); width 0: not shown. */
	int tab_x[TUI_MAX_PANES], tab_w[TUI_MAX_PANES];
	/* The `/` search: the prompt being typed (prompt true) and the last
	 * query run, which n and N repeat. */
	bool prompt;
	char query[256], last_query[256];
	/* One line for the status bar until the next key ("" none); bad: a
	 * failure (shown bold, and said in words, never by colour alone). */
	char msg[512];
	bool msg_bad;
	/* The scenario switcher (D): an overlay over the pane while open. */
	struct scenario *sw;          /* the index read when it opened; NULL: closed */
	int sw_n, sw_sel, sw_top;
	char scen_title[96];          /* the open scenario's short title ("" none) */
	/* L in a demo: the learn session the shell made (freed at the end). */
	struct learn_session *own_learn;
};

/* ---- the shell (tui.c) ---- */

/* The session before curses starts: root and model (NULL root: a fleet
 * with no node open yet), the wizard the Wizard pane drives (the
 * caller's; NULL none), the panes' table; nothing opened. */
void tui_init(struct tui *t, struct fab_root *root, struct fab_model *m,
	      struct wizard *wizard);
/* Closes every open pane and frees the shell's own wizard; the root and
 * the model stay the caller's (the fleet's node root: root_close()). */
void tui_finish(struct tui *t);

void tui_draw(struct tui *t);
void tui_handle_key(struct tui *t, int ch);
/* The current pane comes (or stays) in view: show() when it changed. */
void tui_show_current(struct tui *t);
/* Ticks every pane whose work is due now; true when the screen must be
 * drawn again (a pane not in view never asks for a frame). */
bool tui_tick_due(struct tui *t);
/* The soonest due() over the panes, on their clock; negative when none
 * has work. */
double tui_next_due(struct tui *t);
/* Opens node i of the fleet in the panes (tui_fleet_run): its capture
 * becomes the root, the model is collected from it, the panes that show a
 * node are opened anew on it and the Topology pane comes into view. The
 * old root and its panes are closed only once the new one opened, so a
 * failure (a saved report, an unreadable capture: said in
 * ctx.fleet_msg) leaves everything as it was. 0 or -1. */
int tui_fleet_open(struct tui *t, int i);
/* Opens the capture or directory path in the panes, as tui_fleet_open does
 * with a node (the same steps, the one function): on failure why says why
 * and nothing changed. 0 or -1. */
int tui_open_root(struct tui *t, const char *path, char *why, size_t len);
/* Opens the bundled scenario name (scenario.h) in every pane as a demo
 * (the switcher, ctx.open_scenario); the status bar says why not. 0 or -1. */
int tui_open_scenario(struct tui *t, const char *name);
/* Whether pane i is in the tab bar now (view_ops.present). */
bool tui_present(const struct tui *t, int i);
/* Leaves curses so a message can reach the terminal (script errors). */
void tui_leave_curses(void);

/* ---- the headless harness (tui_script.c) ---- */

/* Starts curses on /dev/null at FABTOP_SCRIPT_SIZE when FABTOP_SCRIPT is
 * set: 1 started headless, 0 not asked for, -1 failed (said on stderr). */
int tui_script_start(struct tui *t, SCREEN **screen);
/* The next event: a key, KEY_RESIZE, or ERR after a command that needs no
 * key (dump, sleep, tick). At the end of the script: t->quit. */
int tui_script_next(struct tui *t);
void tui_script_stop(struct tui *t);

#endif
