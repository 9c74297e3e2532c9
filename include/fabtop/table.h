/*
 * table.h - a table laid out to a width: each column as wide as its widest
 * cell over every row (so a filter does not move it), columns left out in
 * a given order when a row would not fit, and a cell longer than its
 * column's cap cut with "~" so the row stays in line. Pure: no curses, no
 * I/O. The panes draw its lines with the view pen, the text reports print
 * them, so a long real device name (mlx5_bond_0/1, roceP2p1s0f0,
 * ibP111p0s0) widens its column everywhere instead of pushing the rest of
 * its row out of line.
 *
 * Sequence: fill a struct tbl (columns, row count, a cell callback), then
 * tbl_fit() once per width, then tbl_line() per row (-1: the headings).
 */
#ifndef FABTOP_TABLE_H
#define FABTOP_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#define TBL_MAX_COLS 16
#define TBL_CELL     256          /* bytes of one cell's text */

struct tbl_col {
	const char *head;
	bool right;                   /* numbers: right-aligned */
	int max;                      /* widest it may grow (columns); 0: no cap */
	int min;                      /* narrowest it may be, so it stays put as values change */
	bool last_free;               /* the last column: not padded, may run past the width */
	bool tight;                   /* one blank before it, not the table's gap (a history
					 beside its number) */
};

struct tbl {
	const struct tbl_col *cols;
	int ncols;
	int nrows;
	/* The text of cell (row, col) into buf; "" for none. */
	void (*cell)(const void *ctx, int row, int col, char *buf, size_t len);
	const void *ctx;
	const int *drop;              /* columns to leave out, in this order, while too wide */
	int ndrop;
	int gap;                      /* blanks between columns */
	int prefix;                   /* columns before the first cell (a selection mark) */
};

struct tbl_fit {
	int w[TBL_MAX_COLS];          /* each column's width */
	bool on[TBL_MAX_COLS];        /* shown at this width */
	int x[TBL_MAX_COLS];          /* where each shown column starts */
	int width;                    /* of a whole line, the prefix included */
};

/* Widths over every row and the headings, then the drop order until the
 * line fits budget columns (budget <= 0: no limit). */
void tbl_fit(const struct tbl *t, int budget, struct tbl_fit *f);
/* Row row (-1: the headings) as one line: the prefix's blanks, each shown
 * cell padded (or cut with "~") to its column. Returns line. */
char *tbl_line(const struct tbl *t, const struct tbl_fit *f, int row, char *line, size_t len);
/* Cell col of row row, padded or cut to its column, into buf. */
char *tbl_cell(const struct tbl *t, const struct tbl_fit *f, int row, int col, char *buf,
	       size_t len);
/* Columns a UTF-8 string takes (each code point one; the panes' wide
 * glyphs are not in table cells). */
int tbl_width(const char *s);

#endif
