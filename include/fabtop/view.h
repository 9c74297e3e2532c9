/*
 * view.h - a pane of the TUI, as tig's views are: one file per pane under
 * views/, each ending with its `const struct view_ops` (designated
 * initializers), and one line in the shell's table (tui.c) to add it.
 *
 * A pane owns its state (v->priv, from open()) and the background work it
 * drives (the Counters pane its sampler, the Wizard pane the steps it
 * starts); it receives a small context: the model read-only, the root its
 * services read, the session's wizard and the clock. It never reaches a
 * service through the model, and views never read files themselves.
 *
 * Sequence: open() once -> { show() when it comes into view; draw() per
 * frame; key() first offer of each key; due()/tick() for its background
 * work; reload() after 'r' } -> close() once. Every hook but draw may be
 * NULL. Under `fabtop fleet` a pane that shows a node is opened when a
 * node is opened and closed before the next one is (its state belongs to
 * that node's root); until then the shell draws it as waiting for a node.
 */
#ifndef FABTOP_VIEW_H
#define FABTOP_VIEW_H

#include <limits.h>
#include <stdbool.h>
#include <curses.h>
#include "fabtop/model.h"

struct view;
struct wizard;
struct learn_session;
struct fab_root;
struct fleet;

/* What a pane may use besides its own state. */
struct view_ctx {
	const struct fab_model *m;    /* the snapshot: read only */
	const struct fab_root *root;  /* what the panes' services read (the sampler) */
	struct wizard *wizard;        /* the session's wizard (the Wizard pane drives it); may be NULL */
	const char *ras_addr;         /* --ras ADDR for the Job pane; NULL: the job's own */
	double ras_window;            /* --window S for the Job pane; 0: the default */
	bool virtual_clock;           /* headless scripts: time moves only when told */
	double vnow;                  /* the virtual clock, seconds */
	/* `fabtop fleet` on a terminal (tui_fleet_run); NULL otherwise. The
	 * other panes show one node of it at a time: the Fleet pane asks the
	 * shell for one by setting fleet_open from its key(); the shell opens
	 * it after the key (tui.c) and says in fleet_msg why it could not. */
	const struct fleet *fleet;
	int fleet_shown;              /* the node the other panes show; -1 none */
	int fleet_open;               /* the node the Fleet pane asks for; -1 none */
	char fleet_msg[640];          /* why the last node asked for was not opened; "" */
	/* A pane (the Learn pane, the scenario switcher) asks the shell to
	 * open a bundled scenario by name (scenario.h) in every pane, as the
	 * Fleet pane asks for a node: set from key(), opened after it; "" none. */
	char open_scenario[64];
	/* `fabtop learn`, or L in a demo: the exercise being worked on (learn.h);
	 * NULL otherwise. The shell's answer key asks the current pane what is
	 * selected (view_ops.pick) and hands it to learn_answer(). */
	struct learn_session *learn;
	bool mouse;                   /* clicks are reported (-M turns them off) */
};
/* Seconds on the panes' clock: CLOCK_MONOTONIC, or the virtual one. */
double view_now(const struct view_ctx *c);
/* A pane that must let time pass before it measures (a live read asked
 * for by a key) moves the virtual clock s seconds; on the real clock the
 * time passes by itself and this does nothing. */
void view_clock_pass(struct view_ctx *c, double s);

/* What the selected row of a pane points at: a learner's answer in
 * `fabtop learn` (learn.h) is one of these, compared field by field. */
enum fab_pick_kind {
	PICK_NONE = 0,
	PICK_PORT,        /* dev + port: a row of the Links pane */
	PICK_COUNTER,     /* dev + port + name (the counter's file name): Counters */
	PICK_SETTING,     /* name (NCCL_IB_GID_INDEX, a sysctl), dev when it is a port's */
	PICK_FINDING,     /* name: the finding's id; dev + port when it is a port's */
	PICK_GPU,         /* dev: the GPU's PCI address (Topology) */
	PICK_NIC,         /* dev: the RDMA device (Topology's NIC rows) */
	PICK_PROCESS,     /* name: the pid as text (Job) */
	PICK_STEP,        /* name: a wizard step's id (Wizard) */
};
struct fab_pick {
	enum fab_pick_kind kind;
	char dev[64];
	int port;                     /* 0: none */
	char name[128];
	char label[160];              /* how the pane names it to the user ("mlx5_3 port 1") */
};
/* A pick's kind as a word ("port", "counter", ...), for messages and tests. */
const char *fab_pick_kind_name(enum fab_pick_kind k);

struct view_ops {
	const char *name;        /* "topology" */
	const char *title;       /* shown in the tab bar */
	const char *help;        /* one paragraph for the help pane */
	/* Its private state into v->priv; 0, or -1 (the pane then shows it
	 * has none: draw must cope with a NULL priv). */
	int (*open)(struct view *v, struct view_ctx *c);
	/* Stops what it runs (a step left running would outlive the pane)
	 * and frees v->priv. */
	void (*close)(struct view *v, struct view_ctx *c);
	/* It comes into view: a service that costs something starts here, so
	 * the first frame of the other panes pays nothing. */
	void (*show)(struct view *v, struct view_ctx *c);
	void (*draw)(struct view *v, WINDOW *win, struct view_ctx *c);
	/* True when it consumed the key. */
	bool (*key)(struct view *v, int ch, struct view_ctx *c);
	/* When tick() has work, on the panes' clock (view_now): now or
	 * earlier for at once, a negative value for never (v->current says
	 * whether it shows). A time, not a delay, so a virtual clock can be
	 * moved to it exactly. */
	double (*due)(struct view *v, struct view_ctx *c);
	/* Does the background work that is due, without blocking; true when
	 * the screen must be drawn again. */
	bool (*tick)(struct view *v, struct view_ctx *c);
	/* A descriptor whose input is work for tick() (a child's pipe), so the
	 * wait for a key wakes on it; -1 none. */
	int (*wait_fd)(struct view *v, struct view_ctx *c);
	/* The model was collected again ('r'). */
	void (*reload)(struct view *v, struct view_ctx *c);
	/* `/` search (and n/N): moves the selection to the next row after the
	 * selected one (dir +1; -1 backwards, wrapping around) whose text as
	 * shown contains query, case-insensitively; true when one did (the
	 * shell then says "not found" otherwise). view_find_row does the walk.
	 * NULL: the pane has no list to search (the shell says so). */
	bool (*find)(struct view *v, struct view_ctx *c, const char *query, int dir);
	/* A mouse click (button 1) at row y, column x of the pane's window:
	 * selects what is there (a second click on the selected row acts as
	 * Enter); true when it did something. NULL: clicks are ignored. */
	bool (*click)(struct view *v, struct view_ctx *c, int y, int x);
	/* What the selected row points at (fab_pick); false when nothing is
	 * selected or the pane has nothing to point at. */
	bool (*pick)(struct view *v, struct view_ctx *c, struct fab_pick *out);
	/* Whether the pane is in the tab bar now (the Fleet pane only under
	 * `fabtop fleet`, the Learn pane only in learn mode); NULL: always.
	 * Digits select the panes shown, in order. */
	bool (*present)(const struct view_ctx *c);
	/* It draws from the model without its per-port detail (model.h
	 * FAB_HAVE_*: GID tables, port counters) and shows no finding that
	 * needs it: the shell draws it first and reads that detail after the
	 * first frame. A pane that is not light is opened only once the model
	 * holds everything (collect_detail). */
	bool light;
};

struct view {
	const struct view_ops *ops;
	void *priv;              /* the pane's own state (open/close) */
	bool current;            /* it is the pane in view (the shell sets it) */
	int top, left;           /* scroll offsets */
	int content_h, content_w;/* what the last draw produced, for scroll limits */
	int sel;                 /* selected row, pane-specific */
	/* Panes with a selection list above (or beside) a detail area, which
	 * then scrolls with top/left: */
	int sel_top;             /* first list row in view */
	int filter;              /* 0: everything; else pane-specific */
	int page_h;              /* rows of the detail drawn last, for PgUp/PgDn */
	int mode;                /* pane-specific display mode (counters: show all) */
};

/* Every pane's ops, from the one list (panes.def). */
#define FAB_PANE(name) extern const struct view_ops name##_view_ops;
#include "fabtop/panes.def"
#undef FAB_PANE

/* Colour pairs; all fall back to attributes when colours are off (NO_COLOR). */
enum fab_color {
	CP_DEFAULT = 0,
	CP_OK = 1,
	CP_WARN,
	CP_ERROR,
	CP_DIM,
	CP_TITLE,
	CP_SELECT,
	CP_BANNER,
};
/* The attribute for a colour pair, honouring NO_COLOR. */
int fab_attr(enum fab_color c);
/* The colour of a severity: error, warning, or OK for info. */
int fab_sev_attr(enum fab_severity s);
/* The colour of a judgement: yes OK, no error, unknown plain. */
int fab_tri_attr(enum fab_tri t);
/* Common scrolling keys (arrows, PgUp/PgDn, Home/End); true when handled. */
bool view_scroll_key(struct view *v, int ch, int page_h, int page_w);
/* v->top asking the next draw for the end of the content (it clamps). */
#define VIEW_TO_END (INT_MAX / 2)
/* The keys of a pane with a list and a detail that the next draw clamps:
 * PgUp/PgDn scroll the detail by v->page_h, Home goes to its top left, End
 * sets top to VIEW_TO_END, Left/Right scroll sideways; F and Esc clear the
 * filter (F is taken even when none is set, Esc then goes to the shell).
 * True when the key was taken. Up/Down and 'f' stay with the pane. */
bool view_detail_key(struct view *v, int ch);
/* The list of a list+detail pane (Links, Wizard): row g becomes the
 * selection and the detail goes back to its top left. */
void view_list_select(struct view *v, int g);
/* Up/k and Down/j move the selection within rows [first, first + n);
 * true when the key was one of them. */
bool view_list_key(struct view *v, int ch, int first, int n);
/* Draw a string clipped to the window, honouring the horizontal offset.
 * Every string may come from the node: controls, C1 and invalid UTF-8 are
 * drawn escaped (\x1b, \n: sanitize.h), here and in every function below
 * that measures or wraps, so a name never moves the cursor or adds a line. */
void view_put(WINDOW *win, int y, int x, int left, const char *s, int attr);
/* view_put that draws nothing left of screen column minx, so a label column
 * drawn there with left 0 stays in place while the rest scrolls sideways. */
void view_put_clip(WINDOW *win, int y, int x, int left, int minx,
		   const char *s, int attr);
/* Columns a UTF-8 string takes on screen, escapes included. */
int view_strwidth(const char *s);
/* s padded with spaces (or cut, at a character) to exactly width screen
 * columns (wcwidth: a CJK character is two), left-aligned, or right-aligned
 * when right; into buf, which is returned. Table columns are laid out with
 * this, never with printf's %-*s, which counts bytes. */
const char *view_pad(char *buf, size_t len, const char *s, int width, bool right);
/* The `/` search's walk over a pane's n rows (see view_ops.find): the first
 * row after from (dir +1) or before it (dir -1), wrapping, whose text(i)
 * contains query case-insensitively (ASCII letters fold; other characters
 * match as they are); -1 when none. from -1 starts at the first row. */
int view_find_row(int n, int from, int dir, const char *query,
		  const char *(*text)(void *arg, int i, char *buf, size_t len), void *arg);
/* Called by the shell once curses is up: whether the terminal shows colours
 * (start_color() worked and NO_COLOR is unset); the pairs follow the theme
 * of the settings (config.h), mono meaning none. */
void fab_attr_init(bool colors);
/* The theme in use changed (F2): the pairs again, on the same terminal. */
void fab_attr_apply(void);
/* True when attributes carry colours now (terminal, NO_COLOR and theme). */
bool fab_colors(void);
/* A severity's mark in the text, one column: error "\u2717" ("X" without
 * UTF-8), warning "!", info " ". A pane puts it beside what it shows in
 * fab_sev_attr's colours, in every theme, so the meaning never rests on
 * colour (NO_COLOR, mono, a reader who cannot tell red from green) and the
 * text is the same with colours or without. */
const char *fab_sev_mark(enum fab_severity s);
/* True when the locale shows UTF-8; views then use glyphs, else ASCII. */
bool fab_utf8(void);
/* Glyph when the locale is UTF-8, ascii otherwise. */
const char *fab_glyph(const char *utf8, const char *ascii);

/* The next line of s word-wrapped to width columns: its byte length goes to
 * *len; returns where the following line starts ("" at the end). s is one
 * paragraph: a '\n' in it is shown as \n, never a break (a name could
 * carry one); a pane that wants a new line starts one. */
const char *view_wrap_next(const char *s, int width, int *len);

/* A pen writes a pane's content row by row. Rows outside the window (after
 * v->top) are skipped, and the extent is recorded for the scroll limits. */
struct view_pen {
	WINDOW *win;
	const struct view *v;
	int row;                 /* content row being written */
	int width;               /* widest content column so far */
	int h, w;                /* window size */
	bool draw;               /* false: only measuring */
};
typedef void (*view_body_fn)(struct view_pen *p, const struct fab_model *m);
/* Runs body once to measure, clamps v->top/left to the new extent, then
 * once to draw; sets v->content_h/content_w. */
void view_draw_body(struct view *v, WINDOW *win, const struct fab_model *m, view_body_fn body);
/* Text at content column x of the current row; scrolls sideways. Returns
 * the column after it. */
int view_pen_put(struct view_pen *p, int x, const char *s, int attr);
/* Text that stays put when the pane scrolls sideways (row labels). */
int view_pen_fixed(struct view_pen *p, int x, const char *s, int attr);
/* Scrolling text that never covers screen columns left of minx. */
int view_pen_clip(struct view_pen *p, int x, int minx, const char *s, int attr);
void view_pen_nl(struct view_pen *p);
/* Text from x, word-wrapped at the window's width (at least 40 columns),
 * later lines indented to x; ends the line. Wrapped text fits the window,
 * so it stays put when the pane scrolls sideways. */
void view_pen_wrap(struct view_pen *p, int x, const char *s, int attr);
/* The same with a hanging indent: later lines start at column x2. */
void view_pen_wrap_hang(struct view_pen *p, int x, int x2, const char *s, int attr);
/* One finding, the one way every pane shows it: its severity at column x,
 * then "id (subject)", the message, layer, evidence and next step, each
 * wrapped at x + 9. */
void view_pen_finding(struct view_pen *p, int x, const struct fab_finding *f);
/* A legend line "  SYS  = meaning", wrapped under the meaning. */
void view_pen_legend(struct view_pen *p, const char *line);

/* A wizard step's result at the top of the Wizard pane's detail
 * (views/wizard.c): its def's draw() hook when it has one and it drew,
 * else the verdict and the hint (not while it runs). The steps' drawers
 * are declared in wizard.h. */
struct wiz_step;
void wizard_step_result(struct view_pen *p, const struct wiz_step *s);

/* The topology pane's mark for the closest NIC of each GPU (UTF-8, ASCII). */
#define TOPO_MARK_UTF8  "\u25c6"
#define TOPO_MARK_ASCII "<"

/* A fleet node given as a saved `report all --json` (nodedoc.h takes a
 * *.json path as one): it holds the node's report, not the files the
 * panes read, so it cannot be opened in them. */
bool view_fleet_is_report(const char *path);

/* Whether pane o is in the tab bar now: its present() hook, or always
 * when it has none (the shell and the help pane both ask this). */
bool view_pane_present(const struct view_ops *o, const struct view_ctx *c);
/* The present() of the Fleet pane (only under `fabtop fleet`) and of the
 * Learn pane (only in learn mode: ctx.learn set). */
bool view_present_fleet(const struct view_ctx *c);
bool view_present_learn(const struct view_ctx *c);

/* The panes in tab order (tui.c); the help pane walks it. */
extern const struct view_ops *const fab_panes[];
extern const int fab_npanes;

#endif
