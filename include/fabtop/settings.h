/*
 * settings.h - F2 in the console: the settings editor (views/settings.c),
 * drawn in the pane's area over whatever pane is current, and the status
 * bar's one note about the settings file.
 *
 * Sequence (the shell, tui.c): cfg_edit_load() once before the panes open
 * (reads the file; a problem in it becomes the note); F2 -> cfg_edit_open();
 * while cfg_edit_active() every key goes to cfg_edit_key() and the pane area
 * is drawn by cfg_edit_draw(). Each change applies at once (cfg_set(): the
 * theme's colours, the interval the Counters pane samples at when it next
 * starts); `s` or F2 saves the file and closes, Esc closes and puts back the
 * settings the editor was opened with. After a key the shell redraws the
 * whole screen (a theme change recolours everything).
 *
 * There is one console per process, so the editor's state is the module's.
 */
#ifndef FABTOP_SETTINGS_H
#define FABTOP_SETTINGS_H

#include <stdbool.h>
#include <curses.h>

/* Reads the settings file (cfg_load(NULL)); its problem, if any, becomes
 * the note. 0 or -1, never fatal. */
int cfg_edit_load(void);
/* Opens the editor on the settings in use; path NULL: the XDG place. */
void cfg_edit_open(const char *path);
bool cfg_edit_active(void);
/* A key while the editor is open (it takes every key). */
void cfg_edit_key(int ch);
/* The editor in win (the pane's window). */
void cfg_edit_draw(WINDOW *win);
/* One line for the status bar (a problem of the file, where F2 saved
 * it); "" when none. It is said once: cfg_edit_note_seen() after a key. */
const char *cfg_edit_note(void);
void cfg_edit_note_seen(void);

#endif
