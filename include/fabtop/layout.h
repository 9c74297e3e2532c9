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

/* A pane with a selection list and the selected row's detail (Links,
 * Wizard): the detail beside the list from side_min_w columns, else below
 * it, the list taking at most half of what is left. */
struct split_spec {
	int top;                 /* rows above the list's headings (the Links verdict) */
	int head;                /* the list's heading rows */
	int bottom;              /* rows kept at the bottom (the Wizard's key line) */
	int nrows;               /* list rows */
	int list_w;              /* the list's width when beside the detail */
	int side_min_w;          /* from this pane width the detail goes beside */
	bool titled;             /* the detail has a title line of its own (beside: on the
				    headings' row; below: between list and detail) */
};

struct split {
	bool side;               /* the detail beside the list */
	int list_y, list_h, list_w;   /* the list's rows; headings above list_y */
	int rule_y;              /* the detail's title, or the separator below the list; -1 none */
	int detail_y, detail_x, detail_h, detail_w;
};

/* A pure function of the pane size and the spec: every part within h x w,
 * no height negative, the list at least one row when it has rows. */
struct split layout_split(int h, int w, const struct split_spec *s);

#endif
