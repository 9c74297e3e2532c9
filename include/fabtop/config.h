/*
 * config.h - the user's settings: $XDG_CONFIG_HOME/fabtop/config (default
 * ~/.config/fabtop/config), lines "key = value", '#' comments. F2 in the
 * console edits them and writes the file back (atomically: a temporary file
 * renamed over it, never through a link).
 *
 * The file is outside input: an unknown key, a bad value or an unreadable
 * file leaves the default and is said once (cfg_error()), never fatal.
 * Keys:
 *   interval = SECONDS      the Counters pane's live sampling interval
 *                           (0.25..60; default 1)
 *   theme = dark|light|mono colours for a dark or light terminal
 *                           background, or none (as NO_COLOR; default dark)
 *   pane = NAME             the pane the console opens on (view_ops.name:
 *                           topology, links, counters, wizard, job, help;
 *                           default topology)
 *   mouse = yes|no          clicks and the wheel (-M overrides; default yes)
 * NO_COLOR in the environment wins over the theme (no colour at all).
 * Severity never rests on colour alone: panes mark warnings and errors in
 * the text (fab_sev_mark, view.h), whatever the theme.
 */
#ifndef FABTOP_CONFIG_H
#define FABTOP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

enum cfg_theme { CFG_THEME_DARK = 0, CFG_THEME_LIGHT, CFG_THEME_MONO };

struct fab_config {
	double interval;
	enum cfg_theme theme;
	char pane[32];
	bool mouse;
};

/* What the file may hold: the interval's bounds, the file's size. */
#define CFG_INTERVAL_MIN 0.25
#define CFG_INTERVAL_MAX 60.0
#define CFG_MAX_BYTES (64 * 1024)

/* The settings in use: the defaults until cfg_load() read the file. */
const struct fab_config *cfg_get(void);
/* Reads the file (path NULL: the XDG place); 0, or -1 with cfg_error() set
 * (the defaults stay for what could not be read). A missing file is 0.
 * Only a regular file of at most CFG_MAX_BYTES is read (a FIFO or a device
 * is refused without blocking); the first problem found is kept for
 * cfg_error(), with how many more there were. */
int cfg_load(const char *path);
/* Writes c as the settings in use and to the file; 0 or -1 (cfg_error()).
 * The directory is made (0700) when missing; the file is written beside
 * itself and renamed over the old one, so a reader sees the old or the new
 * file whole, and a link planted at path is replaced, never followed. The
 * old file's comments, blank lines and unknown keys are kept; its known
 * keys get the new values, keys it lacked are added at the end. */
int cfg_save(const struct fab_config *c, const char *path);
/* Why the last load or save failed, "" when it did not. */
const char *cfg_error(void);

/* Extensions for the F2 editor (views/settings.c) and tests: */

/* The settings file's path: $XDG_CONFIG_HOME/fabtop/config when that is an
 * absolute path, else $HOME/.config/fabtop/config; 0, or -1 when neither
 * variable gives one. */
int cfg_path(char *buf, size_t len);
/* The defaults (what an empty file means). */
void cfg_defaults(struct fab_config *c);
/* c becomes the settings in use without writing the file (F2 applies each
 * change at once; Esc puts the old ones back). Values out of range are
 * clamped, an unknown pane keeps the current one. */
void cfg_set(const struct fab_config *c);
/* "dark", "light", "mono". */
const char *cfg_theme_name(enum cfg_theme t);
/* The next of F2's interval steps (0.25 0.5 1 2 5 10 30 60) above cur (dir
 * > 0) or below it (dir < 0), staying at the ends. */
double cfg_interval_step(double cur, int dir);
/* The interval as the file writes it ("0.25", "2"), whatever the locale's
 * decimal point; buf is returned. */
const char *cfg_interval_text(double s, char *buf, size_t len);
/* True when name is a pane's view_ops name (fab_panes). */
bool cfg_pane_known(const char *name);

#endif
