/*
 * settings.c - F2: the settings editor (settings.h), drawn over the pane
 * area: one row per setting with its value and what it does; each change
 * applies at once, `s` or F2 saves and closes, Esc closes and puts the old
 * settings back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/config.h"
#include "fabtop/i18n.h"
#include "fabtop/settings.h"
#include "fabtop/view.h"

enum row { R_INTERVAL, R_THEME, R_PANE, R_MOUSE, R_N };

static const struct {
	const char *name;   /* the key in the file: never translated */
	const char *say;    /* one line: what it does */
} rows[R_N] = {
	[R_INTERVAL] = { "interval", N_("how often the Counters pane samples a live node") },
	[R_THEME]    = { "theme", N_("colours for a dark or light background; mono: none") },
	[R_PANE]     = { "pane", N_("the pane the console opens on") },
	[R_MOUSE]    = { "mouse", N_("clicks on tabs and rows, the wheel (-M: off)") },
};

static struct {
	bool open;
	int sel;
	struct fab_config orig;     /* what Esc puts back */
	struct fab_config edit;
	char path[4096];            /* "" : the XDG place */
	char msg[640];              /* a failed save, shown in the editor */
	char note[640];             /* the status bar's line, said once */
} ed;

static void note_set(const char *s)
{
	snprintf(ed.note, sizeof(ed.note), "%s", s);
}

int cfg_edit_load(void)
{
	int rc = cfg_load(NULL);
	if (rc != 0) {
		/* A warning, marked so without colour too. */
		char buf[sizeof(ed.note)];
		snprintf(buf, sizeof(buf), _("%s settings: %s"), fab_sev_mark(SEV_WARN), cfg_error());
		note_set(buf);
	}
	return rc;
}

const char *cfg_edit_note(void)
{
	return ed.note;
}

void cfg_edit_note_seen(void)
{
	ed.note[0] = '\0';
}

bool cfg_edit_active(void)
{
	return ed.open;
}

void cfg_edit_open(const char *path)
{
	ed.open = true;
	ed.sel = 0;
	ed.orig = ed.edit = *cfg_get();
	ed.msg[0] = '\0';
	snprintf(ed.path, sizeof(ed.path), "%s", path ? path : "");
}

/* The panes the console can open on: those always in the tab bar. */
static int pane_index(const char *name)
{
	for (int i = 0; i < fab_npanes; i++)
		if (strcmp(fab_panes[i]->name, name) == 0)
			return i;
	return -1;
}

static void cycle_pane(int dir)
{
	int i = pane_index(ed.edit.pane);
	for (int k = 0; k < fab_npanes; k++) {
		i = ((i < 0 ? 0 : i) + dir + fab_npanes) % fab_npanes;
		if (!fab_panes[i]->present) {
			snprintf(ed.edit.pane, sizeof(ed.edit.pane), "%s", fab_panes[i]->name);
			return;
		}
	}
}

static void change(int dir)
{
	switch (ed.sel) {
	case R_INTERVAL:
		ed.edit.interval = cfg_interval_step(ed.edit.interval, dir);
		break;
	case R_THEME:
		ed.edit.theme = (enum cfg_theme)(((int)ed.edit.theme + dir + 3) % 3);
		break;
	case R_PANE:
		cycle_pane(dir);
		break;
	case R_MOUSE:
		ed.edit.mouse = !ed.edit.mouse;
		break;
	}
	/* At once: the theme recolours the next frame, the interval is what
	 * the Counters pane starts sampling at. */
	cfg_set(&ed.edit);
	fab_attr_apply();
}

static void close_editor(void)
{
	ed.open = false;
	ed.msg[0] = '\0';
}

static void save(void)
{
	char where[4096];
	const char *path = ed.path[0] ? ed.path : NULL;
	if (cfg_save(&ed.edit, path) != 0) {
		/* The editor stays: the user can fix the directory or press Esc. */
		snprintf(ed.msg, sizeof(ed.msg), _("not saved: %s"), cfg_error());
		return;
	}
	if (!path)
		path = cfg_path(where, sizeof(where)) == 0 ? where : "?";
	char buf[sizeof(ed.note)];
	snprintf(buf, sizeof(buf), _("settings saved to %s"), path);
	note_set(buf);
	close_editor();
}

void cfg_edit_key(int ch)
{
	switch (ch) {
	case KEY_UP:
	case 'k':
		if (ed.sel > 0)
			ed.sel--;
		break;
	case KEY_DOWN:
	case 'j':
		if (ed.sel < R_N - 1)
			ed.sel++;
		break;
	case KEY_LEFT:
		change(-1);
		break;
	case KEY_RIGHT:
	case '\n':
	case '\r':
	case KEY_ENTER:
	case ' ':
		change(1);
		break;
	case 's':
	case KEY_F(2):
		save();
		break;
	case 27:   /* Esc: nothing saved, nothing kept */
	case 'q':
		cfg_set(&ed.orig);
		fab_attr_apply();
		close_editor();
		break;
	default:
		break;
	}
}

static const char *value_text(int r, const struct fab_config *c, char *buf, size_t len)
{
	char num[32];
	switch (r) {
	case R_INTERVAL:
		snprintf(buf, len, "%s s", cfg_interval_text(c->interval, num, sizeof(num)));
		return buf;
	case R_THEME:
		return cfg_theme_name(c->theme);
	case R_PANE:
		return c->pane;
	case R_MOUSE:
		return c->mouse ? "yes" : "no";
	}
	return "";
}

void cfg_edit_draw(WINDOW *win)
{
	char buf[4200], cell[64], val[32];
	int h = getmaxy(win), w = getmaxx(win), y = 0;
	if (!ed.open)
		return;
	werase(win);
	view_put(win, y++, 0, 0, _("Settings (F2)"), fab_attr(CP_TITLE));
	char where[4096];
	const char *path = ed.path[0] ? ed.path : cfg_path(where, sizeof(where)) == 0 ? where : "-";
	snprintf(buf, sizeof(buf), _("file: %s"), path);
	view_put(win, y++, 2, 0, buf, fab_attr(CP_DIM));
	y++;
	for (int r = 0; r < R_N && y < h; r++, y++) {
		bool sel = r == ed.sel;
		int x = 0;
		view_put(win, y, x, 0, sel ? ">" : " ", 0);
		x = 2;
		view_pad(cell, sizeof(cell), rows[r].name, 10, false);
		view_put(win, y, x, 0, cell, sel ? fab_attr(CP_SELECT) | A_BOLD : A_BOLD);
		x += 10;
		view_pad(cell, sizeof(cell), value_text(r, &ed.edit, val, sizeof(val)), 12, false);
		view_put(win, y, x, 0, cell, sel ? fab_attr(CP_SELECT) : 0);
		x += 13;
		view_put(win, y, x, 0, _(rows[r].say), 0);
	}
	y++;
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc && y < h)
		view_put(win, y++, 2, 0, _("NO_COLOR is set: no colours, whatever the theme."), fab_attr(CP_DIM));
	if (ed.msg[0] && y < h) {
		/* Said with its mark, so it reads as an error without colour too. */
		snprintf(buf, sizeof(buf), "%s %s", fab_sev_mark(SEV_ERROR), ed.msg);
		int len;
		const char *s = buf;
		while (*s && y < h - 1) {
			const char *next = view_wrap_next(s, w > 4 ? w - 4 : 1, &len);
			char line[1024];
			snprintf(line, sizeof(line), "%.*s", len < 1023 ? len : 1023, s);
			view_put(win, y++, 2, 0, line, fab_attr(CP_ERROR));
			s = next;
		}
	}
	if (h > 0)
		view_put(win, h - 1, 0, 0,
			 _("Up/Down: select  Left/Right/Enter: change  s or F2: save  Esc: cancel"),
			 fab_attr(CP_DIM));
}
