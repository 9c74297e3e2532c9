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

/* The settings in use: the defaults until cfg_load() read the file. */
const struct fab_config *cfg_get(void);
/* Reads the file (path NULL: the XDG place); 0, or -1 with cfg_error() set
 * (the defaults stay for what could not be read). A missing file is 0. */
int cfg_load(const char *path);
/* Writes c as the settings in use and to the file; 0 or -1 (cfg_error()). */
int cfg_save(const struct fab_config *c, const char *path);
/* Why the last load or save failed, "" when it did not. */
const char *cfg_error(void);

#endif
