/* view_common.c - what every pane shares: attributes, scrolling, clipped text. */
#include <ctype.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <wchar.h>
#include "fabtop/config.h"
#include "fabtop/i18n.h"
#include "fabtop/sanitize.h"
#include "fabtop/view.h"
#include "fabtop/vocab.h"

/* Wrapped text never gets narrower than the smallest pane. */
#define LAYOUT_WRAP_MIN 40

static bool term_colors;     /* the terminal can, and NO_COLOR is unset */
static bool colors_on;       /* ... and the theme wants colours */
static bool light;           /* the light theme's attributes */

/* The pairs of each theme. -1: the terminal's own background, so the TUI
 * sits on the user's colours. The light theme is for a white background:
 * no yellow or cyan text (unreadable there); blue titles, dark red errors,
 * magenta warnings (brown where the terminal has 256 colours), and a blue
 * banner bar instead of the yellow one. */
static void theme_pairs(void)
{
	short warn = COLORS >= 256 ? 130 : COLOR_MAGENTA;   /* 130: xterm's dark orange/brown */
	init_pair(CP_OK, COLOR_GREEN, -1);
	init_pair(CP_WARN, light ? warn : COLOR_YELLOW, -1);
	init_pair(CP_ERROR, COLOR_RED, -1);
	init_pair(CP_DIM, -1, -1);
	init_pair(CP_TITLE, light ? COLOR_BLUE : COLOR_CYAN, -1);
	init_pair(CP_SELECT, -1, -1);
	init_pair(CP_BANNER, light ? COLOR_BLUE : COLOR_YELLOW, -1);
}

void fab_attr_apply(void)
{
	enum cfg_theme t = cfg_get()->theme;
	colors_on = term_colors && t != CFG_THEME_MONO;
	light = t == CFG_THEME_LIGHT;
	if (colors_on)
		theme_pairs();
}

void fab_attr_init(bool colors)
{
	term_colors = colors;
	fab_attr_apply();
}

bool fab_colors(void)
{
	return colors_on;
}

int fab_attr(enum fab_color c)
{
	if (!colors_on) {
		/* NO_COLOR, the mono theme or a monochrome terminal: the meaning
		 * survives in attributes and in the text (fab_sev_mark). */
		switch (c) {
		case CP_ERROR:  return A_BOLD;
		case CP_WARN:   return A_BOLD;
		case CP_DIM:    return A_DIM;
		case CP_TITLE:  return A_BOLD;
		case CP_SELECT: return A_REVERSE;
		case CP_BANNER: return A_REVERSE | A_BOLD;
		default:        return A_NORMAL;
		}
	}
	switch (c) {
	case CP_DEFAULT: return A_NORMAL;
	/* Bold red is bright red on many terminals: the light theme keeps it dark. */
	case CP_ERROR:   return COLOR_PAIR(CP_ERROR) | (light ? 0 : A_BOLD);
	case CP_DIM:     return A_DIM;
	case CP_TITLE:   return COLOR_PAIR(CP_TITLE) | A_BOLD;
	case CP_SELECT:  return A_REVERSE;
	/* Reversed: dark text on a yellow bar (light: white on blue), hard to miss. */
	case CP_BANNER:  return COLOR_PAIR(CP_BANNER) | A_REVERSE | A_BOLD;
	default:         return COLOR_PAIR(c);
	}
}

double view_now(const struct view_ctx *c)
{
	struct timespec ts;
	if (c && c->virtual_clock)
		return c->vnow;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void view_clock_pass(struct view_ctx *c, double s)
{
	if (c && c->virtual_clock && s > 0)
		c->vnow += s;
}

int fab_sev_attr(enum fab_severity s)
{
	return fab_attr(s == SEV_ERROR ? CP_ERROR : s == SEV_WARN ? CP_WARN : CP_OK);
}

const char *fab_sev_mark(enum fab_severity s)
{
	switch (s) {
	case SEV_ERROR: return fab_glyph("\u2717", "X");
	case SEV_WARN:  return "!";
	case SEV_INFO:  break;
	}
	return " ";
}

int fab_tri_attr(enum fab_tri t)
{
	return t == FAB_YES ? fab_attr(CP_OK) : t == FAB_NO ? fab_attr(CP_ERROR) : 0;
}

bool fab_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

const char *fab_glyph(const char *utf8, const char *ascii)
{
	return fab_utf8() ? utf8 : ascii;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Sideways scrolling moves by whole table columns, so cells stay aligned
 * under the fixed label column; the last stop may show a little blank. */
#define HSTEP 8

static int max_left(int content_w, int page_w)
{
	int over = content_w - page_w;
	return over > 0 ? (over + HSTEP - 1) / HSTEP * HSTEP : 0;
}

bool view_scroll_key(struct view *v, int ch, int page_h, int page_w)
{
	int maxtop = v->content_h - page_h;
	int maxleft = max_left(v->content_w, page_w);
	int page = page_h > 2 ? page_h - 1 : 1;   /* keep one line of context */
	if (maxtop < 0)
		maxtop = 0;
	switch (ch) {
	case KEY_UP:    v->top--; break;
	case KEY_DOWN:  v->top++; break;
	case KEY_PPAGE: v->top -= page; break;
	case KEY_NPAGE: v->top += page; break;
	case KEY_HOME:  v->top = 0; v->left = 0; break;
	case KEY_END:   v->top = maxtop; break;
	case KEY_LEFT:  v->left -= HSTEP; break;
	case KEY_RIGHT: v->left += HSTEP; break;
	default:        return false;
	}
	v->top = clampi(v->top, 0, maxtop);
	v->left = clampi(v->left, 0, maxleft);
	return true;
}

void view_list_select(struct view *v, int g)
{
	if (g == v->sel)
		return;
	v->sel = g;
	v->top = 0;
	v->left = 0;
}

bool view_list_key(struct view *v, int ch, int first, int n)
{
	switch (ch) {
	case KEY_UP:
	case 'k':
		if (v->sel > first)
			view_list_select(v, v->sel - 1);
		return true;
	case KEY_DOWN:
	case 'j':
		if (v->sel < first + n - 1)
			view_list_select(v, v->sel + 1);
		return true;
	}
	return false;
}

bool view_detail_key(struct view *v, int ch)
{
	int page = v->page_h > 2 ? v->page_h - 1 : 1;   /* keep one line of context */
	switch (ch) {
	case KEY_PPAGE:
		v->top = v->top > page ? v->top - page : 0;
		return true;
	case KEY_NPAGE:
		v->top += page;
		return true;
	case KEY_HOME:
		v->top = 0;
		v->left = 0;
		return true;
	case KEY_END:
		v->top = VIEW_TO_END;
		return true;
	case KEY_LEFT:
		v->left = v->left > HSTEP ? v->left - HSTEP : 0;
		return true;
	case KEY_RIGHT:
		v->left += HSTEP;
		return true;
	case 'F':
	case 27:   /* Esc */
		if (!v->filter)
			return ch == 'F';
		v->filter = 0;
		return true;
	default:
		return false;
	}
}

/* One character of s as the screen shows it: its byte length in s, its
 * columns, and in shown[] what to draw. Controls, C1 and invalid UTF-8
 * are drawn as their escapes (the one sanitiser, sanitize.h), so a name
 * cannot move the cursor or start a line. A valid character the locale
 * cannot show is drawn as '?', one without a width as ' '. */
static size_t next_char(const char *p, size_t rem, int *width, char shown[FAB_SAN_MAX],
			size_t *slen)
{
	bool esc;
	size_t n = fab_san_next(p, rem, shown, slen, &esc);
	if (esc) {
		*width = (int)*slen;
		return n;
	}
	wchar_t wc;
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	size_t k = mbrtowc(&wc, p, n, &st);
	int w = k == n ? wcwidth(wc) : 1;
	if (k != n || w < 0) {
		shown[0] = k != n ? '?' : ' ';
		shown[1] = '\0';
		*slen = 1;
		w = 1;
	}
	*width = w;
	return n;
}

int view_strwidth(const char *s)
{
	int cols = 0, w;
	char shown[FAB_SAN_MAX];
	size_t rem = s ? strlen(s) : 0, sl;
	while (rem) {
		size_t n = next_char(s, rem, &w, shown, &sl);
		cols += w;
		s += n;
		rem -= n;
	}
	return cols;
}

const char *view_pad(char *buf, size_t len, const char *s, int width, bool right)
{
	char shown[FAB_SAN_MAX];
	size_t rem = s ? strlen(s) : 0, sl, cut = 0;
	int cols = 0, w;
	if (!len)
		return buf;
	/* Up to the last whole character that fits. */
	while (rem) {
		size_t n = next_char(s + cut, rem, &w, shown, &sl);
		if (cols + w > width)
			break;
		cols += w;
		cut += n;
		rem -= n;
	}
	int pad = width - cols;
	size_t o = 0;
	if (right)
		for (; pad > 0 && o + 1 < len; pad--)
			buf[o++] = ' ';
	if (cut > len - 1 - o)
		cut = len - 1 - o;
	memcpy(buf + o, s ? s : "", cut);
	o += cut;
	for (; pad > 0 && o + 1 < len; pad--)
		buf[o++] = ' ';
	buf[o] = '\0';
	return buf;
}

/* Case-insensitive substring for the search: ASCII letters fold, the
 * rest (CJK, digits, punctuation) must match as they are. */
static bool contains_fold(const char *hay, const char *needle)
{
	size_t nl = strlen(needle);
	if (!nl)
		return true;
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < nl && hay[i] &&
		       tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == nl)
			return true;
	}
	return false;
}

int view_find_row(int n, int from, int dir, const char *query,
		  const char *(*text)(void *arg, int i, char *buf, size_t len), void *arg)
{
	char buf[1024];
	if (n <= 0 || !query || !*query)
		return -1;
	dir = dir < 0 ? -1 : 1;
	if (from < 0 || from >= n)
		from = dir > 0 ? -1 : n;
	for (int k = 1; k <= n; k++) {
		int i = ((from + dir * k) % n + n) % n;
		const char *t = text(arg, i, buf, sizeof(buf));
		if (t && contains_fold(t, query))
			return i;
	}
	return -1;
}

const char *fab_pick_kind_name(enum fab_pick_kind k)
{
	switch (k) {
	case PICK_PORT: return "port";
	case PICK_COUNTER: return "counter";
	case PICK_SETTING: return "setting";
	case PICK_FINDING: return "finding";
	case PICK_GPU: return "gpu";
	case PICK_NIC: return "nic";
	case PICK_PROCESS: return "process";
	case PICK_STEP: return "step";
	case PICK_NONE: break;
	}
	return "none";
}

void view_put_clip(WINDOW *win, int y, int x, int left, int minx,
		   const char *s, int attr)
{
	int maxy, maxx;
	getmaxyx(win, maxy, maxx);
	if (!s || y < 0 || y >= maxy)
		return;
	if (minx < 0)
		minx = 0;
	/* Copy the visible part, in its shown form, then draw it once. */
	char buf[1024], shown[FAB_SAN_MAX];
	size_t blen = 0, sl;
	int col = x - left, startcol = -1, w;
	size_t rem = strlen(s);
	while (rem && blen + FAB_SAN_MAX < sizeof(buf)) {
		size_t n = next_char(s, rem, &w, shown, &sl);
		if (col + w > maxx)
			break;
		if (col >= minx) {
			if (startcol < 0)
				startcol = col;
			memcpy(buf + blen, shown, sl);
			blen += sl;
		}
		col += w;
		s += n;
		rem -= n;
	}
	if (startcol < 0 || !blen)
		return;
	attr_t oattr;
	short opair;
	wattr_get(win, &oattr, &opair, NULL);
	wattrset(win, attr);
	mvwaddnstr(win, y, startcol, buf, (int)blen);
	wattr_set(win, oattr, opair, NULL);
}

void view_put(WINDOW *win, int y, int x, int left, const char *s, int attr)
{
	view_put_clip(win, y, x, left, 0, s, attr);
}

/* CJK text has no spaces: a line may break before or after any wide
 * character, except before closing punctuation and after opening
 * punctuation (the usual line-breaking rules of Chinese text). */
static bool cjk_is(const char *p, const char *const *set)
{
	for (; *set; set++)
		if (strncmp(p, *set, strlen(*set)) == 0)
			return true;
	return false;
}

static const char *const cjk_closing[] = {
	"\uff0c", "\u3002", "\u3001", "\uff1b", "\uff1a", "\uff01", "\uff1f", "\uff09", "\u300d",
	"\u300f", "\u300b", "\u3011", "\u201d", "\u2019", "\u2026", ",", ".", ";", ":", ")", "!", "?",
	NULL,
};
static const char *const cjk_opening[] = {
	"\uff08", "\u300c", "\u300e", "\u300a", "\u3010", "\u201c", "\u2018", NULL,
};

const char *view_wrap_next(const char *s, int width, int *len)
{
	int col = 0, w;
	char shown[FAB_SAN_MAX];
	size_t sl;
	const char *p = s, *brk = NULL;
	size_t rem = strlen(s);
	bool after_wide = false, after_open = false;
	if (width < 1)
		width = 1;
	while (rem) {
		size_t n = next_char(p, rem, &w, shown, &sl);
		/* A wide character (CJK), not an escape drawn as \x1b: a name's
		 * escapes are one word, never broken apart. */
		bool wide = w == 2 && shown[0] != '\\';
		/* Before a wide character, or after one, unless punctuation binds. */
		if (p > s && (after_wide || (wide && !after_open)) && !cjk_is(p, cjk_closing))
			brk = p;
		if (col + w > width && p > s) {
			/* Break at the last space if there was one, else mid-word. */
			const char *end = brk ? brk : p;
			*len = (int)(end - s);
			while (*end == ' ')
				end++;
			return end;
		}
		if (*p == ' ')
			brk = p;
		after_open = cjk_is(p, cjk_opening);
		after_wide = wide && !after_open;
		col += w;
		p += n;
		rem -= n;
	}
	*len = (int)(p - s);
	return p;
}

static int pen_text(struct view_pen *p, int x, int left, int minx, const char *s, int attr)
{
	int y = p->row - p->v->top;
	int end = x + view_strwidth(s);
	if (end > p->width)
		p->width = end;
	if (p->draw && y >= 0 && y < p->h)
		view_put_clip(p->win, y, x, left, minx, s, attr);
	return end;
}

int view_pen_put(struct view_pen *p, int x, const char *s, int attr)
{
	return pen_text(p, x, p->v->left, 0, s, attr);
}

int view_pen_fixed(struct view_pen *p, int x, const char *s, int attr)
{
	return pen_text(p, x, 0, 0, s, attr);
}

int view_pen_clip(struct view_pen *p, int x, int minx, const char *s, int attr)
{
	return pen_text(p, x, p->v->left, minx, s, attr);
}

void view_pen_nl(struct view_pen *p)
{
	p->row++;
}

void view_pen_wrap_hang(struct view_pen *p, int x, int x2, const char *s, int attr)
{
	char line[1024];
	int w = p->w > LAYOUT_WRAP_MIN ? p->w : LAYOUT_WRAP_MIN;
	do {
		int len, width = w - x - 1;
		const char *next = view_wrap_next(s, width < 10 ? 10 : width, &len);
		if (len >= (int)sizeof(line))
			len = (int)sizeof(line) - 1;
		memcpy(line, s, (size_t)len);
		line[len] = '\0';
		view_pen_fixed(p, x, line, attr);
		view_pen_nl(p);
		s = next;
		x = x2;
	} while (*s);
}

void view_pen_wrap(struct view_pen *p, int x, const char *s, int attr)
{
	view_pen_wrap_hang(p, x, x, s, attr);
}

void view_pen_legend(struct view_pen *p, const char *line)
{
	const char *eq = strstr(line, " = ");
	if (!eq) {
		view_pen_wrap(p, 0, line, 0);
		return;
	}
	/* Keep "  SYS  = " as it is and wrap only the meaning beneath itself. */
	int hang = (int)(eq - line) + 3;
	char head[64];
	snprintf(head, sizeof(head), "%.*s", hang < 63 ? hang : 63, line);
	view_pen_fixed(p, 0, head, A_BOLD);
	view_pen_wrap_hang(p, view_strwidth(head), view_strwidth(head), eq + 3, 0);
}

void view_draw_body(struct view *v, WINDOW *win, const struct fab_model *m, view_body_fn body)
{
	struct view_pen p = { .win = win, .v = v, .draw = false };
	getmaxyx(win, p.h, p.w);
	body(&p, m);
	v->content_h = p.row;
	v->content_w = p.width;
	/* A resize or a reload may have shrunk the content under the offsets. */
	int maxtop = v->content_h - p.h;
	v->top = clampi(v->top, 0, maxtop > 0 ? maxtop : 0);
	v->left = clampi(v->left, 0, max_left(v->content_w, p.w));
	p.row = 0;
	p.width = 0;
	p.draw = true;
	body(&p, m);
}

void view_pen_finding(struct view_pen *p, int x, const struct fab_finding *f)
{
	char text[FAB_NAME_LEN + 1024];
	int body = x + 9;
	view_pen_fixed(p, x, sev_label(f->sev), fab_sev_attr(f->sev));
	snprintf(text, sizeof(text), "%s (%s)", f->id, f->subject);
	view_pen_wrap_hang(p, body, body, text, A_BOLD);
	view_pen_wrap(p, body, f->message, 0);
	if (f->layer[0]) {
		snprintf(text, sizeof(text), _("layer: %s"), f->layer);
		view_pen_wrap(p, body, text, fab_attr(CP_DIM));
	}
	if (f->evidence[0]) {
		snprintf(text, sizeof(text), _("evidence: %s"), f->evidence);
		view_pen_wrap(p, body, text, fab_attr(CP_DIM));
	}
	if (f->hint[0]) {
		snprintf(text, sizeof(text), _("next: %s"), f->hint);
		view_pen_wrap(p, body, text, 0);
	}
}

bool view_fleet_is_report(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n >= 5 && strcasecmp(path + n - 5, ".json") == 0;
}

bool view_pane_present(const struct view_ops *o, const struct view_ctx *c)
{
	return !o->present || o->present(c);
}

bool view_present_fleet(const struct view_ctx *c)
{
	return c->fleet != NULL;
}

bool view_present_learn(const struct view_ctx *c)
{
	return c->learn != NULL;
}
