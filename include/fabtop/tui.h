/*
 * tui.h - the ncurses shell: tab bar, panes, status bar, keys, and a
 * terminal that is always restored (normal exit, q, SIGINT, SIGTERM, fatal
 * error).
 */
#ifndef FABTOP_TUI_H
#define FABTOP_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include "fabtop/model.h"
#include "fabtop/root.h"

struct wizard;
struct fleet;
struct learn_session;

/* Runs until the user quits; reloads the model from root on 'r'. wizard:
 * the session's wizard (`fabtop wizard` brings one and opens on its pane),
 * NULL to make one for the Wizard pane. Returns the process exit status. */
int tui_run(struct fab_root *root, struct fab_model *m, struct wizard *wizard);
/* `fabtop fleet` on a terminal: the TUI opens on the Fleet pane with no
 * node open; Enter there opens a node's capture in the other panes (the
 * shell owns that root and model and closes them when another node is
 * opened or the TUI ends) and Backspace comes back. f stays the caller's,
 * read only. Returns the process exit status (0, or 2 when the TUI cannot
 * start; 128+signal when one ended it). */
int tui_fleet_run(const struct fleet *f);
/* The Job pane's --ras ADDR and --window S (0: the default), for the next
 * tui_run(); the strings must outlive it. */
void tui_job_opts(const char *ras_addr, double window);

/* The session's options, for the next tui_run() (set by main and
 * learn_main before it): learn, the exercise session the Learn pane shows
 * (NULL: none; L in a demo starts one, owned by the shell); mouse, whether
 * clicks are asked of the terminal (-M turns them off). */
void tui_learn_opts(struct learn_session *learn);
void tui_mouse_opts(bool mouse);
/* The pane the next tui_run() opens on (view_ops.name), over the
 * settings' one: the demo `make run` opens lands where its problem shows.
 * NULL: the settings decide. */
void tui_start_pane(const char *name);

/* Whether the terminal can hold the console: TERM set, in terminfo, with
 * cursor addressing ("cup"). When not, why says so in one line, and the
 * callers print the batch output instead (with that line on stderr). */
bool tui_term_usable(char *why, size_t len);

#endif
