/* table.c - column fitting for the panes and the text reports (table.h). */
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include "fabtop/sanitize.h"
#include "fabtop/table.h"

int tbl_width(const char *s)
{
	mbstate_t st;
	int w = 0;
	size_t rem = strlen(s);
	memset(&st, 0, sizeof(st));
	while (rem) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s, rem, &st);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			memset(&st, 0, sizeof(st));
			n = 1;
			w++;
		} else {
			int cw = wcwidth(wc);
			w += cw < 0 ? 1 : cw;
		}
		s += n;
		rem -= n;
	}
	return w;
}

/* Bytes of s that fit in cols columns. */
static size_t fit_bytes(const char *s, int cols)
{
	mbstate_t st;
	size_t at = 0, rem = strlen(s);
	int w = 0;
	memset(&st, 0, sizeof(st));
	while (at < rem) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s + at, rem - at, &st);
		int cw = 1;
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			memset(&st, 0, sizeof(st));
			n = 1;
		} else {
			cw = wcwidth(wc);
			cw = cw < 0 ? 1 : cw;
		}
		if (w + cw > cols)
			break;
		w += cw;
		at += n;
	}
	return at;
}

static void head_or_cell(const struct tbl *t, int row, int col, char *buf, size_t len)
{
	buf[0] = '\0';
	if (row < 0)
		snprintf(buf, len, "%s", t->cols[col].head ? t->cols[col].head : "");
	else if (t->cell) {
		/* Cells hold names: measured and printed in their shown form. */
		char raw[TBL_CELL];
		raw[0] = '\0';
		t->cell(t->ctx, row, col, raw, sizeof(raw));
		fab_sanitize(raw, buf, len);
	}
}

static int gap_before(const struct tbl *t, int k)
{
	return t->cols[k].tight ? 1 : t->gap;
}

static int line_width(const struct tbl *t, const struct tbl_fit *f)
{
	int w = t->prefix, any = 0;
	for (int k = 0; k < t->ncols; k++)
		if (f->on[k]) {
			w += (any ? gap_before(t, k) : 0) + f->w[k];
			any = 1;
		}
	return w;
}

void tbl_fit(const struct tbl *t, int budget, struct tbl_fit *f)
{
	char buf[TBL_CELL];
	int n = t->ncols > TBL_MAX_COLS ? TBL_MAX_COLS : t->ncols;
	memset(f, 0, sizeof(*f));
	for (int k = 0; k < n; k++) {
		f->on[k] = true;
		f->w[k] = t->cols[k].min;
	}
	for (int r = -1; r < t->nrows; r++)
		for (int k = 0; k < n; k++) {
			head_or_cell(t, r, k, buf, sizeof(buf));
			int w = tbl_width(buf);
			if (t->cols[k].max > 0 && w > t->cols[k].max)
				w = t->cols[k].max;
			if (w > f->w[k])
				f->w[k] = w;
		}
	f->width = line_width(t, f);
	for (int i = 0; i < t->ndrop && budget > 0 && f->width > budget; i++) {
		if (t->drop[i] >= 0 && t->drop[i] < n)
			f->on[t->drop[i]] = false;
		f->width = line_width(t, f);
	}
	for (int k = 0, x = t->prefix, any = 0; k < n; k++) {
		f->x[k] = x + (any && f->on[k] ? gap_before(t, k) : 0);
		if (f->on[k]) {
			x = f->x[k] + f->w[k];
			any = 1;
		}
	}
}

char *tbl_cell(const struct tbl *t, const struct tbl_fit *f, int row, int col, char *buf,
	       size_t len)
{
	char raw[TBL_CELL];
	head_or_cell(t, row, col, raw, sizeof(raw));
	int w = tbl_width(raw), cw = f->w[col];
	if (w > cw) {
		/* Cut, and say so: "~" in the last column kept. */
		size_t b = cw > 0 ? fit_bytes(raw, cw - 1) : 0;
		snprintf(buf, len, "%.*s%s", (int)b, raw, cw > 0 ? "~" : "");
		return buf;
	}
	if (t->cols[col].last_free && !t->cols[col].right)
		snprintf(buf, len, "%s", raw);
	else if (t->cols[col].right)
		snprintf(buf, len, "%*s%s", cw - w, "", raw);
	else
		snprintf(buf, len, "%s%*s", raw, cw - w, "");
	return buf;
}

char *tbl_line(const struct tbl *t, const struct tbl_fit *f, int row, char *line, size_t len)
{
	char cell[TBL_CELL + 8];
	size_t n = (size_t)snprintf(line, len, "%*s", t->prefix, "");
	bool any = false;
	for (int k = 0; k < t->ncols && k < TBL_MAX_COLS && n < len; k++) {
		if (!f->on[k])
			continue;
		tbl_cell(t, f, row, k, cell, sizeof(cell));
		n += (size_t)snprintf(line + n, len - n, "%*s%s", any ? gap_before(t, k) : 0, "", cell);
		any = true;
	}
	/* Trailing blanks of a row whose last cell is short carry nothing. */
	while (n > 0 && n < len && line[n - 1] == ' ')
		line[--n] = '\0';
	return line;
}
