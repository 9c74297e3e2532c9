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
