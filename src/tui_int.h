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
#include "fabtop/tui.h"
#include "fabtop/view.h"

#define TUI_MAX_PANES 9        /* digits 1..9 select a pane */

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
};

/* ---- the shell (tui.c) ---- */

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
