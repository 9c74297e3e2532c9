/*
 * learn.h - `fabtop learn`: guided exercises on the bundled scenarios for
 * someone who has never seen an HCA, and the glossary they lean on.
 *
 * An exercise states a symptom, opens its scenario in the real panes, and
 * asks the learner to point at the cause: they select a row in any pane
 * (the port, the counter, the setting, the finding) and press the answer
 * key; the shell asks that pane what is selected (view_ops.pick, a
 * struct fab_pick) and hands it to learn_answer(), which says right or
 * wrong and why. Hints come one at a time, layer by layer from the physical
 * layer up (physical, link, IP/MTU, RDMA, NCCL); a right answer shows the
 * concept behind it, with links to the glossary.
 *
 * The content (the exercises and the glossary) is data: src/learn_content.c,
 * every text marked N_() and translated where shown (i18n.h). The engine
 * (src/learn.c) owns the session, the one judgement of an answer
 * (learn_check), and the progress file.
 *
 * Progress is remembered in $XDG_STATE_HOME/fabtop/learn.json (default
 * ~/.local/state/fabtop/learn.json): the exercises solved, by id, and the
 * hints used. It is written atomically (a temporary file renamed over it,
 * never through a link), read as untrusted (a broken file is a fresh start,
 * said once), and only ever holds ids the content knows.
 */
#ifndef FABTOP_LEARN_H
#define FABTOP_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "fabtop/view.h"

/* The layers hints climb, from the bottom. */
enum learn_layer {
	LEARN_PHYSICAL = 0,   /* cable, optics, lanes, PCIe link training */
	LEARN_LINK,           /* port state, link layer, PFC and pause, ECN marking */
	LEARN_IP,             /* addresses, GIDs, MTU and its headers, routes */
	LEARN_RDMA,           /* HCAs, QPs, retries, GPUDirect, verbs */
	LEARN_NCCL,           /* transports, rails, NCCL_* settings, the job */
	LEARN_NLAYERS,
};
/* The layer's name as shown, translated ("physical", "物理层"). */
const char *learn_layer_name(enum learn_layer l);

#define LEARN_MAX_HINTS   6
#define LEARN_MAX_ANSWERS 4
#define LEARN_MAX_TERMS   8

struct learn_hint {
	enum learn_layer layer;
	const char *text;          /* N_(); NULL ends the list */
};

struct learn_exercise {
	const char *id;            /* "port-down": stable, the progress file's key */
	const char *title;         /* N_() */
	enum learn_layer layer;    /* where the cause is */
	const char *scenario;      /* the bundled scenario it opens (scenario.h) */
	const char *pane;          /* view_ops.name of the pane that shows the cause */
	const char *symptom;       /* N_(): what the user of the node saw */
	const char *task;          /* N_(): what to point at ("select the port ...") */
	/* The right answers: kind must be equal; dev "" , port 0 and name ""
	 * match anything. PICK_NONE ends the list. */
	struct fab_pick answers[LEARN_MAX_ANSWERS];
	struct learn_hint hints[LEARN_MAX_HINTS];
	const char *concept;       /* N_(): the explanation after a right answer */
	const char *terms[LEARN_MAX_TERMS];   /* glossary ids; NULL ends */
};

struct learn_term {
	const char *id;            /* "gid": stable, what exercises link to */
	const char *term;          /* N_("GID (Global Identifier)") */
	enum learn_layer layer;
	const char *text;          /* N_(): two to five sentences */
	const char *see[4];        /* related term ids; NULL ends */
};

/* The content (src/learn_content.c). */
extern const struct learn_exercise learn_exercises[];
extern const int learn_nexercises;
extern const struct learn_term learn_terms[];
extern const int learn_nterms;
/* By id; NULL when unknown (src/learn.c: the content is data only). */
const struct learn_exercise *learn_exercise_by_id(const char *id);
const struct learn_term *learn_term_by_id(const char *id);
/* How many hints e has. */
int learn_nhints(const struct learn_exercise *e);

/* ---- the session (src/learn.c) ------------------------------------------- */

enum learn_verdict {
	LEARN_NOTHING = 0,   /* nothing selected in that pane */
	LEARN_WRONG,
	LEARN_RIGHT,
	LEARN_ELSEWHERE,     /* the panes show another scenario than the exercise's */
};

struct learn_session;

/* A session with its progress read from state_dir, the directory that
 * holds learn.json (NULL: the XDG place), on exercise 0.
 * NULL on allocation failure only: an unreadable progress file is a fresh
 * start, with why in learn_state_error(). */
struct learn_session *learn_new(const char *state_dir);
void learn_free(struct learn_session *s);
/* Starts exercise i (0..learn_nexercises-1): no hints shown, not answered. */
void learn_start(struct learn_session *s, int i);
int learn_index(const struct learn_session *s);
const struct learn_exercise *learn_current(const struct learn_session *s);
/* THE judgement of an answer: true when p is one of e's answers. */
bool learn_check(const struct learn_exercise *e, const struct fab_pick *p);
/* The learner's answer on scenario (the one the panes show; NULL: the
 * exercise's own, for tests): the verdict, and in why what to tell them (right:
 * the concept's first line; wrong: why that is not it, without giving the
 * answer away). A right answer is saved in the progress file. Another
 * scenario than the exercise's is LEARN_ELSEWHERE, judged not at all: the
 * same counter on another node proves nothing. */
enum learn_verdict learn_answer(struct learn_session *s, const char *scenario,
				const struct fab_pick *p, char *why, size_t len);
/* The last answer given to the current exercise (LEARN_NOTHING before
 * one): its verdict, what it told (why) and what was answered (picked, the
 * pick's label); the Learn pane shows them. */
enum learn_verdict learn_last(const struct learn_session *s, const char **why,
			      const char **picked);
/* The next hint (the number now shown), and how many are shown. Each hint
 * newly seen is saved in the progress file (learn_hints_used). */
int learn_hint_next(struct learn_session *s);
int learn_hints_shown(const struct learn_session *s);
/* The most hints ever shown of exercise i, from the progress file. */
int learn_hints_used(const struct learn_session *s, int i);
bool learn_solved(const struct learn_session *s, int i);
/* The first exercise not solved yet on scenario (NULL: on any), where
 * `fabtop learn` without an argument, and L in a demo, start; -1 when
 * every one is solved (or none uses that scenario). */
int learn_next_unsolved(const struct learn_session *s, const char *scenario);
int learn_nsolved(const struct learn_session *s);
/* Why the progress file could not be read or written ("" when it could). */
const char *learn_state_error(const struct learn_session *s);

/* `fabtop learn [--list] [ID|N] [--lang L]`: main hands it argv from
 * "learn" on; tui_run is how it opens the console (as wizard_main). */
struct fab_root;
struct fab_model;
struct wizard;
int learn_main(int argc, char **argv,
	       int (*tui_run)(struct fab_root *, struct fab_model *, struct wizard *));
/* `fabtop learn --list`: one exercise a line, its id, layer and scenario. */
int learn_list(FILE *out);

#endif
