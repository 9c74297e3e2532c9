/* layout.c - where each part of the screen goes; a pure function of the size. */
#include "fabtop/layout.h"

struct fab_layout layout_compute(int rows, int cols, bool banner)
{
	struct fab_layout l = {
		.too_small = rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS,
		.tabs_y = 0,
		.banner_y = -1,
		.pane_y = 0,
		.pane_h = 0,
		.pane_w = cols > 0 ? cols : 0,
		.status_y = rows > 0 ? rows - 1 : 0,
	};
	if (l.too_small)
		return l;   /* the shell prints only the "too small" message */
	if (banner)
		l.banner_y = 1;
	l.pane_y = banner ? 2 : 1;
	l.pane_h = l.status_y - l.pane_y;   /* >= 6 at the minimum size */
	return l;
}

struct split layout_split(int h, int w, const struct split_spec *s)
{
	struct split l = { .list_y = s->top + s->head, .rule_y = -1 };
	int body_h = h - s->bottom;
	if (w >= s->side_min_w) {
		l.side = true;
		l.list_w = s->list_w < w ? s->list_w : w;
		l.list_h = body_h - l.list_y;
		l.rule_y = s->titled ? s->top : -1;
		l.detail_y = s->titled ? l.list_y : s->top;
		l.detail_x = l.list_w + 3;   /* a blank, the separator, a blank */
		l.detail_w = w - l.detail_x;
		l.detail_h = body_h - l.detail_y;
	} else {
		int avail = body_h - l.list_y - 1;   /* less the line between */
		l.list_w = w;
		l.list_h = s->nrows < avail / 2 ? s->nrows : avail / 2;
		if (l.list_h < 1)
			l.list_h = 1;
		l.rule_y = l.list_y + l.list_h;
		l.detail_y = l.rule_y + 1;
		l.detail_w = w;
		l.detail_h = body_h - l.detail_y;
	}
	if (l.list_h > s->nrows)
		l.list_h = s->nrows;
	if (l.list_h < 0)
		l.list_h = 0;
	if (l.detail_w < 0)
		l.detail_w = 0;
	if (l.detail_h < 0)
		l.detail_h = 0;
	return l;
}
