/*
 * learn.c - the Learn pane (`fabtop learn`, learn.h): the exercise being
 * worked on (its title and layer, the symptom, the task), the hints shown
 * so far each with its layer, the verdict of the last answer (the shell's
 * A key asks the pane in view what is selected and hands it to
 * learn_answer), and after a right answer the concept and its glossary
 * terms. + and - go to the next and the previous exercise: the pane asks
 * the shell to open its scenario (view_ctx.open_scenario). g opens the
 * glossary: every term with its layer, the selected one's text and the
 * terms related to it, which Left/Right choose and Enter opens.
 *
 * The pane judges nothing: the verdict and its words are the engine's.
 * It is in the tab bar only in learn mode (ctx.learn set).
 *
 * State: v->top scrolls the exercise page; the glossary's selection and
 * the concept terms' selection are in priv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/i18n.h"
#include "fabtop/learn.h"
#include "fabtop/util.h"
#include "fabtop/view.h"

#define LK_HINT  'H'
#define LK_GLOSS 'g'
#define LK_NEXT  '+'
#define LK_PREV  '-'
#define MAX_SEE   4

struct learn_pane {
	const struct view_ctx *c;     /* for the bodies, during a draw */
	bool gloss;                   /* the glossary is shown */
	int gsel;                     /* the glossary's selected term */
	int gtop;                     /* its first list row in view */
	int see;                      /* the related term Enter opens (index in see[]) */
	int tsel;                     /* the concept's selected term (index in terms[]); -1 */
	int ex;                       /* the exercise tsel belongs to */
	int ex_top;                   /* the exercise page's scroll while the glossary shows */
	int term_row[LEARN_MAX_TERMS];/* content rows of the concept's terms; -1 */
	int list_y, list_h;           /* the glossary list's window rows, for clicks */
	int page_w;                   /* the pane's width drawn last */
	int see_y[MAX_SEE];           /* window rows of the related terms; -1 */
};

static struct learn_pane *state(const struct view *v)
{
	return v->priv;
}

static int learn_open(struct view *v, struct view_ctx *c)
{
	struct learn_pane *lp = calloc(1, sizeof(*lp));
	if (!lp)
		return -1;
	lp->tsel = -1;
	lp->ex = -1;
	v->priv = lp;
	return 0;
}

static void learn_close(struct view *v, struct view_ctx *c)
{
	free(v->priv);
	v->priv = NULL;
}

/* The glossary terms of exercise e that exist (a content slip never shows). */
static int concept_terms(const struct learn_exercise *e, const struct learn_term *out[])
{
	int n = 0;
	for (int i = 0; i < LEARN_MAX_TERMS && e->terms[i]; i++) {
		const struct learn_term *t = learn_term_by_id(e->terms[i]);
		if (t)
			out[n++] = t;
	}
	return n;
}

static int related_terms(const struct learn_term *t, const struct learn_term *out[])
{
	int n = 0;
	for (int i = 0; i < MAX_SEE && t->see[i]; i++) {
		const struct learn_term *r = learn_term_by_id(t->see[i]);
		if (r)
			out[n++] = r;
	}
	return n;
}

/* The concept is shown once the current exercise was answered right. */
static bool concept_shown(const struct learn_session *s)
{
	return learn_last(s, NULL, NULL) == LEARN_RIGHT;
}

/* ---- the exercise page ---------------------------------------------------- */

static void heading(struct view_pen *p, const char *s)
{
	view_pen_nl(p);
	view_pen_fixed(p, 0, s, fab_attr(CP_TITLE));
	view_pen_nl(p);
}

static void exercise_body(struct view_pen *p, const struct fab_model *m)
{
	struct learn_pane *lp = state(p->v);
	struct learn_session *s = lp->c->learn;
	const struct learn_exercise *e = s ? learn_current(s) : NULL;
	char buf[1024], pad[128];
	(void)m;
	if (!e) {
		view_pen_wrap(p, 0, _("No exercise is open: run `fabtop learn` (or `fabtop learn "
				      "--list` to see them)."), 0);
		return;
	}
	int i = learn_index(s);
	snprintf(buf, sizeof(buf), _("Exercise %d of %d: %s"), i + 1, learn_nexercises, _(e->title));
	int x = view_pen_fixed(p, 0, buf, fab_attr(CP_TITLE));
	if (learn_solved(s, i))
		view_pen_fixed(p, x + 2, fab_glyph("\u2713", "*"), fab_attr(CP_OK));
	view_pen_nl(p);
	snprintf(buf, sizeof(buf), _("layer: %s  scenario: %s  solved: %d of %d"),
		 learn_layer_name(e->layer), e->scenario, learn_nsolved(s), learn_nexercises);
	view_pen_fixed(p, 0, buf, fab_attr(CP_DIM));
	view_pen_nl(p);
	view_pen_nl(p);

	/* Labels and their text side by side, the text wrapped beneath itself;
	 * the label column fits the widest label in this language. */
	const char *ls = _("Symptom"), *lt = _("Task");
	int lw = view_strwidth(ls) > view_strwidth(lt) ? view_strwidth(ls) : view_strwidth(lt);
	view_pen_fixed(p, 0, view_pad(pad, sizeof(pad), ls, lw, false), A_BOLD);
	view_pen_wrap_hang(p, lw + 2, lw + 2, _(e->symptom), 0);
	view_pen_fixed(p, 0, view_pad(pad, sizeof(pad), lt, lw, false), A_BOLD);
	view_pen_wrap_hang(p, lw + 2, lw + 2, _(e->task), 0);

	int shown = learn_hints_shown(s), nh = learn_nhints(e);
	snprintf(buf, sizeof(buf), _("Hints: %d of %d shown"), shown, nh);
	heading(p, buf);
	for (int k = 0; k < shown && k < nh; k++) {
		snprintf(buf, sizeof(buf), "%d. [%s] %s", k + 1, learn_layer_name(e->hints[k].layer),
			 _(e->hints[k].text));
		view_pen_wrap_hang(p, 2, 5, buf, 0);
	}
	if (shown < nh)
		view_pen_wrap(p, 2, _("Press H for a hint: they climb the layers from the cable up."),
			      fab_attr(CP_DIM));

	const char *why, *picked;
	enum learn_verdict lv = learn_last(s, &why, &picked);
	heading(p, _("Your answer"));
	if (!why[0]) {
		view_pen_wrap(p, 2, _("None yet: select what you think is the cause in its pane, then "
				      "press A there."), fab_attr(CP_DIM));
	} else {
		const char *word = lv == LEARN_RIGHT ? _("RIGHT") : lv == LEARN_WRONG ? _("WRONG")
			: _("NOTHING SELECTED");
		/* A mark beside the colour, so the verdict reads without it. */
		const char *mark = lv == LEARN_RIGHT ? fab_glyph("\u2713", "+")
			: fab_glyph("\u2717", "x");
		int attr = lv == LEARN_RIGHT ? fab_attr(CP_OK) : fab_attr(CP_ERROR);
		snprintf(buf, sizeof(buf), "%s %s", mark, word);
		x = view_pen_fixed(p, 2, buf, attr | A_BOLD);
		if (picked[0])
			view_pen_fixed(p, x + 2, picked, A_BOLD);
		view_pen_nl(p);
		/* Right: the concept below says it whole. */
		if (lv != LEARN_RIGHT)
			view_pen_wrap(p, 4, why, 0);
	}

	for (int k = 0; k < LEARN_MAX_TERMS; k++)
		lp->term_row[k] = -1;
	if (lv == LEARN_RIGHT) {
		heading(p, _("The concept"));
		view_pen_wrap(p, 2, _(e->concept), 0);
		const struct learn_term *t[LEARN_MAX_TERMS];
		int nt = concept_terms(e, t);
		if (nt) {
			heading(p, _("Glossary (Up/Down choose, Enter opens)"));
			int tw = 0;
			for (int k = 0; k < nt; k++)
				if (view_strwidth(_(t[k]->term)) > tw)
					tw = view_strwidth(_(t[k]->term));
			for (int k = 0; k < nt; k++) {
				bool sel = k == lp->tsel;
				lp->term_row[k] = p->row;
				snprintf(buf, sizeof(buf), "%s%s  %s", sel ? "> " : "  ",
					 view_pad(pad, sizeof(pad), _(t[k]->term), tw, false),
					 learn_layer_name(t[k]->layer));
				view_pen_fixed(p, 2, buf, sel ? fab_attr(CP_SELECT) : 0);
				view_pen_nl(p);
			}
		}
	}
	view_pen_nl(p);
	view_pen_wrap(p, 0, _("H hint  g glossary  + next exercise  - previous exercise  "
			      "A (in any pane) answers with what is selected there"), fab_attr(CP_DIM));
	if (learn_state_error(s)[0]) {
		snprintf(buf, sizeof(buf), _("Progress: %s"), learn_state_error(s));
		view_pen_wrap(p, 0, buf, fab_attr(CP_WARN));
	}
}

/* ---- the glossary --------------------------------------------------------- */

static void term_detail_body(struct view_pen *p, const struct fab_model *m)
{
	struct learn_pane *lp = state(p->v);
	const struct learn_term *t = &learn_terms[lp->gsel];
	const struct learn_term *r[MAX_SEE];
	char buf[256];
	(void)m;
	view_pen_fixed(p, 0, _(t->term), fab_attr(CP_TITLE));
	view_pen_nl(p);
	snprintf(buf, sizeof(buf), _("layer: %s"), learn_layer_name(t->layer));
	view_pen_fixed(p, 0, buf, fab_attr(CP_DIM));
	view_pen_nl(p);
	view_pen_wrap(p, 0, _(t->text), 0);
	int nr = related_terms(t, r);
	for (int k = 0; k < MAX_SEE; k++)
		lp->see_y[k] = -1;
	if (!nr)
		return;
	view_pen_nl(p);
	view_pen_fixed(p, 0, _("See also (Left/Right choose, Enter opens):"), A_BOLD);
	view_pen_nl(p);
	for (int k = 0; k < nr; k++) {
		bool sel = k == lp->see;
		lp->see_y[k] = p->row - p->v->top;
		snprintf(buf, sizeof(buf), "%s%s  (%s)", sel ? "> " : "  ", _(r[k]->term),
			 learn_layer_name(r[k]->layer));
		view_pen_fixed(p, 2, buf, sel ? fab_attr(CP_SELECT) : 0);
		view_pen_nl(p);
	}
}

static void glossary_draw(struct view *v, WINDOW *win)
{
	struct learn_pane *lp = state(v);
	int h, w;
	char buf[512], pad[256];
	getmaxyx(win, h, w);
	if (lp->gsel < 0 || lp->gsel >= learn_nterms)
		lp->gsel = 0;
	snprintf(buf, sizeof(buf), P_("Glossary: %d term and its layer (g or Esc: back to the exercise)",
				      "Glossary: %d terms and their layers (g or Esc: back to the exercise)",
				      (unsigned long)learn_nterms), learn_nterms);
	view_put(win, 0, 0, 0, buf, fab_attr(CP_TITLE));
	lp->list_y = 1;
	/* The list takes up to half the pane; the selected term's text the rest. */
	int lh = (h - 2) / 2;
	if (lh > learn_nterms)
		lh = learn_nterms;
	if (lh < 1)
		lh = h > 1 ? 1 : 0;
	lp->list_h = lh;
	if (lp->gsel < lp->gtop)
		lp->gtop = lp->gsel;
	if (lp->gsel >= lp->gtop + lh)
		lp->gtop = lp->gsel - lh + 1;
	if (lp->gtop > learn_nterms - lh)
		lp->gtop = learn_nterms - lh;
	if (lp->gtop < 0)
		lp->gtop = 0;
	int tw = 0;
	for (int i = 0; i < learn_nterms; i++)
		if (view_strwidth(_(learn_terms[i].term)) > tw)
			tw = view_strwidth(_(learn_terms[i].term));
	if (tw > w - 16)
		tw = w - 16 > 8 ? w - 16 : 8;
	for (int r = 0; r < lh; r++) {
		int i = lp->gtop + r;
		bool sel = i == lp->gsel;
		snprintf(buf, sizeof(buf), "%s%s  %s", sel ? "> " : "  ",
			 view_pad(pad, sizeof(pad), _(learn_terms[i].term), tw, false),
			 learn_layer_name(learn_terms[i].layer));
		view_put(win, lp->list_y + r, 0, 0, buf, sel ? fab_attr(CP_SELECT) : 0);
	}
	if (learn_nterms > lh && lh > 0) {
		snprintf(buf, sizeof(buf), "%d-%d/%d", lp->gtop + 1, lp->gtop + lh, learn_nterms);
		view_put(win, lp->list_y + lh, w - view_strwidth(buf) - 1, 0, buf, fab_attr(CP_DIM));
	}
	int dy = lp->list_y + lh + 1;
	for (int k = 0; k < MAX_SEE; k++)
		lp->see_y[k] = -1;
	WINDOW *sub = dy < h ? derwin(win, h - dy, w, dy, 0) : NULL;
	if (sub) {
		struct view dv = { .priv = lp };
		view_draw_body(&dv, sub, NULL, term_detail_body);
		delwin(sub);
		for (int k = 0; k < MAX_SEE; k++)
			if (lp->see_y[k] >= 0)
				lp->see_y[k] += dy;
	}
}

static void learn_draw(struct view *v, WINDOW *win, struct view_ctx *c)
{
	struct learn_pane *lp = state(v);
	struct learn_pane none = { .tsel = -1, .ex = -1 };
	if (!lp) {
		/* open() failed: draw with a state that remembers nothing. */
		lp = &none;
		v->priv = lp;
	}
	lp->c = c;
	struct learn_session *s = c->learn;
	if (s && lp->ex != learn_index(s)) {
		/* Another exercise: its own page from the top. */
		lp->ex = learn_index(s);
		lp->tsel = -1;
		v->top = 0;
	}
	if (lp->gloss && learn_nterms > 0) {
		glossary_draw(v, win);
		v->content_h = v->content_w = 0;
	} else {
		int h;
		getmaxyx(win, h, lp->page_w);
		v->page_h = h;
		view_draw_body(v, win, c->m, exercise_body);
	}
	if (lp == &none)
		v->priv = NULL;
}

/* ---- keys, search, clicks ------------------------------------------------- */

static void gloss_open(struct view *v, const struct learn_term *t)
{
	struct learn_pane *lp = state(v);
	if (!lp->gloss) {
		lp->ex_top = v->top;
		lp->gloss = true;
	}
	if (t) {
		lp->gsel = (int)(t - learn_terms);
		lp->see = 0;
	}
}

static void gloss_close(struct view *v)
{
	struct learn_pane *lp = state(v);
	lp->gloss = false;
	v->top = lp->ex_top;
}

/* The related term Enter (or a click) opens. */
static void gloss_follow(struct view *v, int k)
{
	struct learn_pane *lp = state(v);
	const struct learn_term *r[MAX_SEE];
	int nr = related_terms(&learn_terms[lp->gsel], r);
	if (k >= 0 && k < nr)
		gloss_open(v, r[k]);
}

static void goto_exercise(struct view *v, struct view_ctx *c, int i)
{
	struct learn_session *s = c->learn;
	int n = learn_nexercises;
	learn_start(s, ((i % n) + n) % n);
	fab_strlcpy(c->open_scenario, learn_current(s)->scenario, sizeof(c->open_scenario));
	state(v)->gloss = false;
	v->top = 0;
}

static bool gloss_key(struct view *v, int ch)
{
	struct learn_pane *lp = state(v);
	const struct learn_term *r[MAX_SEE];
	int nr = related_terms(&learn_terms[lp->gsel], r);
	int page = lp->list_h > 1 ? lp->list_h - 1 : 1, g = lp->gsel;
	switch (ch) {
	case 27:
	case LK_GLOSS:
		gloss_close(v);
		return true;
	case KEY_UP: case 'k':   g--; break;
	case KEY_DOWN: case 'j': g++; break;
	case KEY_PPAGE:          g -= page; break;
	case KEY_NPAGE:          g += page; break;
	case KEY_HOME:           g = 0; break;
	case KEY_END:            g = learn_nterms - 1; break;
	case KEY_LEFT:
		if (lp->see > 0)
			lp->see--;
		return true;
	case KEY_RIGHT:
		if (lp->see < nr - 1)
			lp->see++;
		return true;
	case '\n': case '\r': case KEY_ENTER:
		gloss_follow(v, lp->see);
		return true;
	default:
		return false;
	}
	g = g < 0 ? 0 : g >= learn_nterms ? learn_nterms - 1 : g;
	if (g != lp->gsel) {
		lp->gsel = g;
		lp->see = 0;
	}
	return true;
}

static bool learn_key(struct view *v, int ch, struct view_ctx *c)
{
	struct learn_pane *lp = state(v);
	struct learn_session *s = c->learn;
	if (!lp || !s || !learn_current(s))
		return false;
	switch (ch) {
	case LK_HINT:
		learn_hint_next(s);
		return true;
	case LK_NEXT:
		goto_exercise(v, c, learn_index(s) + 1);
		return true;
	case LK_PREV:
		goto_exercise(v, c, learn_index(s) - 1);
		return true;
	}
	if (lp->gloss)
		return gloss_key(v, ch);
	if (ch == LK_GLOSS) {
		const struct learn_term *t[LEARN_MAX_TERMS];
		int nt = concept_shown(s) ? concept_terms(learn_current(s), t) : 0;
		if (learn_nterms > 0)
			gloss_open(v, lp->tsel >= 0 && lp->tsel < nt ? t[lp->tsel] : NULL);
		return true;
	}
	/* After a right answer Up/Down choose among the concept's terms and
	 * Enter opens one; otherwise the page scrolls. */
	const struct learn_term *t[LEARN_MAX_TERMS];
	int nt = concept_shown(s) ? concept_terms(learn_current(s), t) : 0;
	if (nt && (ch == KEY_UP || ch == 'k' || ch == KEY_DOWN || ch == 'j')) {
		bool up = ch == KEY_UP || ch == 'k';
		lp->tsel = lp->tsel < 0 ? (up ? nt - 1 : 0) : lp->tsel + (up ? -1 : 1);
		lp->tsel = lp->tsel < 0 ? 0 : lp->tsel >= nt ? nt - 1 : lp->tsel;
		/* Keep it in view. */
		int row = lp->term_row[lp->tsel];
		if (row >= 0 && row < v->top)
			v->top = row;
		if (row >= 0 && v->page_h > 0 && row >= v->top + v->page_h)
			v->top = row - v->page_h + 1;
		return true;
	}
	if (nt && lp->tsel >= 0 && (ch == '\n' || ch == '\r' || ch == KEY_ENTER)) {
		gloss_open(v, t[lp->tsel]);
		return true;
	}
	return view_scroll_key(v, ch, v->page_h, lp->page_w);
}

static const char *term_text(void *arg, int i, char *buf, size_t len)
{
	(void)arg;
	snprintf(buf, len, "%s %s %s", _(learn_terms[i].term), learn_terms[i].id,
		 learn_layer_name(learn_terms[i].layer));
	return buf;
}

/* `/` searches the glossary from any page of the pane: it is the pane's list. */
static bool learn_find(struct view *v, struct view_ctx *c, const char *query, int dir)
{
	struct learn_pane *lp = state(v);
	if (!lp || learn_nterms <= 0)
		return false;
	int i = view_find_row(learn_nterms, lp->gloss ? lp->gsel : -1, dir, query, term_text, NULL);
	if (i < 0)
		return false;
	gloss_open(v, &learn_terms[i]);
	return true;
}

static bool learn_click(struct view *v, struct view_ctx *c, int y, int x)
{
	struct learn_pane *lp = state(v);
	struct learn_session *s = c->learn;
	if (!lp || !s)
		return false;
	if (lp->gloss) {
		for (int k = 0; k < MAX_SEE; k++)
			if (lp->see_y[k] == y) {
				gloss_follow(v, k);
				return true;
			}
		int r = y - lp->list_y;
		if (r < 0 || r >= lp->list_h || lp->gtop + r >= learn_nterms)
			return false;
		if (lp->gtop + r == lp->gsel) {
			gloss_follow(v, lp->see);   /* a second click is Enter */
		} else {
			lp->gsel = lp->gtop + r;
			lp->see = 0;
		}
		return true;
	}
	const struct learn_term *t[LEARN_MAX_TERMS];
	int nt = concept_shown(s) ? concept_terms(learn_current(s), t) : 0;
	for (int k = 0; k < nt; k++)
		if (lp->term_row[k] >= 0 && lp->term_row[k] == y + v->top) {
			if (lp->tsel == k)
				gloss_open(v, t[k]);
			else
				lp->tsel = k;
			return true;
		}
	return false;
}

const struct view_ops learn_view_ops = {
	.name = "learn",
	.title = N_("Learn"),
	.help = N_("`fabtop learn`: an exercise on a bundled scenario. It states a symptom; "
		   "explore the other panes, select what you think is the cause (a port, a "
		   "counter, a setting, a finding) and press A there. H shows a hint, layer by "
		   "layer from the physical one up; a right answer explains the concept behind "
		   "it. g opens the glossary (/ searches it); + and - go to the next and the "
		   "previous exercise. Progress is kept in $XDG_STATE_HOME/fabtop/learn.json."),
	.open = learn_open,
	.close = learn_close,
	.draw = learn_draw,
	.key = learn_key,
	.find = learn_find,
	.click = learn_click,
	.present = view_present_learn,
};
