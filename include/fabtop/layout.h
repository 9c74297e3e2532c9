/*
 * layout.h - where the tab bar, the pane and the status bar go for a given
 * terminal size. A pure function, tested over many sizes without curses.
 */
#ifndef FABTOP_LAYOUT_H
#define FABTOP_LAYOUT_H

#include <stdbool.h>

#define LAYOUT_MIN_COLS 40
#define LAYOUT_MIN_ROWS 10

struct fab_layout {
	bool too_small;          /* below the minimum: say so and draw nothing else */
	int tabs_y;              /* tab bar row */
	int banner_y;            /* -1 when there is no demo banner */
	int pane_y, pane_h, pane_w;
	int status_y;
};

struct fab_layout layout_compute(int rows, int cols, bool banner);

#endif
