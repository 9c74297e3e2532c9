/*
 * learn.c - the `fabtop learn` engine (learn.h): the session, THE judgement
 * of an answer (learn_check), what to tell the learner (learn_answer), the
 * hints one at a time, the progress file, `fabtop learn --list` and
 * `fabtop learn [ID|N]`. The content is data (src/learn_content.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "fabtop/collect.h"
#include "fabtop/i18n.h"
#include "fabtop/learn.h"
#include "fabtop/userfile.h"
#include "fabtop/model.h"
#include "fabtop/root.h"
#include "fabtop/sanitize.h"
#include "fabtop/scenario.h"
#include "fabtop/tui.h"
#include "fabtop/util.h"
#include "fabtop/view.h"

#define STATE_FILE "learn.json"
#define STATE_MAX  (64 * 1024)   /* a progress file is a few hundred bytes */
#define STATE_VERSION 1

struct learn_session {
	char dir[PATH_MAX];          /* where learn.json lives; "" when nowhere */
	char err[512];               /* why it could not be read or written */
	int cur;                     /* the exercise worked on */
	int shown;                   /* hints shown of it */
	enum learn_verdict last;     /* the last answer's verdict; NOTHING before one */
	char why[640];               /* and what it told */
	char picked[160];            /* what was answered (the pick's label) */
	bool *solved;                /* per exercise */
	int *hints;                  /* hints used per exercise, the most ever shown */
};

static int exercise_index(const char *id)
{
	const struct learn_exercise *e = learn_exercise_by_id(id);
	return e ? (int)(e - learn_exercises) : -1;
}

int learn_nhints(const struct learn_exercise *e)
{
	int n = 0;
	while (n < LEARN_MAX_HINTS && e->hints[n].text)
		n++;
	return n;
}

/* ---- the progress file ---------------------------------------------------- */

/* $XDG_STATE_HOME/fabtop, or ~/.local/state/fabtop; the spec says a
 * relative XDG_STATE_HOME is to be ignored. */
static int state_dir_default(char *out, size_t len)
{
	const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	if (x && x[0] == '/')
		snprintf(out, len, "%s/fabtop", x);
	else if (home && home[0] == '/')
		snprintf(out, len, "%s/.local/state/fabtop", home);
	else
		return -1;
	return 0;
}

__attribute__((format(printf, 2, 3)))
static void set_err(struct learn_session *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

/* Reads learn.json as untrusted: a regular file of bounded size, never
 * through a link, an object whose "solved" is a list of ids and "hints" an
 * object of id -> count; what does not fit is ignored and said. */
static void state_load(struct learn_session *s)
{
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/%s", s->dir, STATE_FILE);
	char *buf = NULL;
	size_t n = 0;
	if (fab_user_read(path, STATE_MAX, false, &buf, &n) != 0) {
		int e = errno;
		if (e != ENOENT && e != ENOTDIR)
			set_err(s, _("cannot read %s: %s (progress starts afresh)"), path,
				e == ELOOP ? _("it is a symbolic link") :
				e == EINVAL || e == EFBIG ? _("not a regular file of at most 64 KiB") :
				strerror(e));
		return;
	}
	json_error_t jerr;
	json_t *doc = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &jerr);
	free(buf);
	json_t *solved = json_object_get(doc, "solved"), *hints = json_object_get(doc, "hints");
	if (!json_is_object(doc) || (solved && !json_is_array(solved)) ||
	    (hints && !json_is_object(hints))) {
		set_err(s, _("%s is not a fabtop progress file (%s): progress starts afresh"), path,
			doc ? _("wrong shape") : jerr.text);
		json_decref(doc);
		return;
	}
	int unknown = 0;
	size_t i;
	json_t *v;
	json_array_foreach(solved, i, v) {
		int k = exercise_index(json_string_value(v));
		if (k < 0)
			unknown++;
		else
			s->solved[k] = true;
	}
	const char *key;
	json_object_foreach(hints, key, v) {
		int k = exercise_index(key);
		json_int_t h = json_is_integer(v) ? json_integer_value(v) : -1;
		if (k < 0 || h < 0) {
			unknown++;
			continue;
		}
		int max = learn_nhints(&learn_exercises[k]);
		s->hints[k] = h > max ? max : (int)h;
	}
	json_decref(doc);
	if (unknown)
		set_err(s, P_("%s: %d entry names no exercise this fabtop knows; ignored",
			      "%s: %d entries name no exercise this fabtop knows; ignored",
			      (unsigned long)unknown), path, unknown);
}

/* Writes learn.json atomically: a new file (O_EXCL, so never an existing
 * file or a link) beside it, renamed over it; a link planted as learn.json
 * is replaced, never written through. Only ids the content knows. */
static int state_save(struct learn_session *s)
{
	if (!s->dir[0])
		return -1;
	json_t *doc = json_object(), *solved = json_array(), *hints = json_object();
	json_object_set_new(doc, "version", json_integer(STATE_VERSION));
	for (int i = 0; i < learn_nexercises; i++) {
		if (s->solved[i])
			json_array_append_new(solved, json_string(learn_exercises[i].id));
		if (s->hints[i])
			json_object_set_new(hints, learn_exercises[i].id, json_integer(s->hints[i]));
	}
	json_object_set_new(doc, "solved", solved);
	json_object_set_new(doc, "hints", hints);

	int rc = -1;
	char *text = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!text) {
		set_err(s, _("cannot write the progress in %s: %s"), s->dir, strerror(ENOMEM));
	} else if (fab_user_write(s->dir, STATE_FILE, text, strlen(text)) != 0) {
		set_err(s, _("cannot write the progress in %s: %s"), s->dir, strerror(errno));
	} else {
		rc = 0;
	}
	free(text);
	json_decref(doc);
	return rc;
}

/* ---- the session ---------------------------------------------------------- */

struct learn_session *learn_new(const char *state_dir)
{
	struct learn_session *s = calloc(1, sizeof(*s));
	int n = learn_nexercises > 0 ? learn_nexercises : 1;
	if (s) {
		s->solved = calloc((size_t)n, sizeof(*s->solved));
		s->hints = calloc((size_t)n, sizeof(*s->hints));
	}
	if (!s || !s->solved || !s->hints) {
		learn_free(s);
		return NULL;
	}
	if (state_dir)
		fab_strlcpy(s->dir, state_dir, sizeof(s->dir));
	else if (state_dir_default(s->dir, sizeof(s->dir)) != 0)
		fab_strlcpy(s->err, _("neither XDG_STATE_HOME nor HOME is set: progress is not "
				      "remembered"), sizeof(s->err));
	if (s->dir[0])
		state_load(s);
	learn_start(s, 0);
	return s;
}

void learn_free(struct learn_session *s)
{
	if (!s)
		return;
	free(s->solved);
	free(s->hints);
	free(s);
}

void learn_start(struct learn_session *s, int i)
{
	if (i < 0 || i >= learn_nexercises)
		i = 0;
	s->cur = i;
	s->shown = 0;
	s->last = LEARN_NOTHING;
	s->why[0] = s->picked[0] = '\0';
}

int learn_index(const struct learn_session *s)
{
	return s->cur;
}

const struct learn_exercise *learn_current(const struct learn_session *s)
{
	return learn_nexercises > 0 ? &learn_exercises[s->cur] : NULL;
}

/* A field of an answer matches when the answer leaves it open ("" or 0)
 * or it is the same. */
static bool field_ok(const char *want, const char *got)
{
	return !want[0] || strcmp(want, got) == 0;
}

static bool place_ok(const struct fab_pick *a, const struct fab_pick *p)
{
	return field_ok(a->dev, p->dev) && (!a->port || a->port == p->port);
}

bool learn_check(const struct learn_exercise *e, const struct fab_pick *p)
{
	if (!e || !p || p->kind == PICK_NONE)
		return false;
	for (int i = 0; i < LEARN_MAX_ANSWERS && e->answers[i].kind != PICK_NONE; i++) {
		const struct fab_pick *a = &e->answers[i];
		if (a->kind == p->kind && place_ok(a, p) && field_ok(a->name, p->name))
			return true;
	}
	return false;
}

/* The first sentence of a text: up to a full stop followed by a space or
 * the end ("4.0" and "e.g." go on), or a CJK full stop. */
static void first_sentence(const char *t, char *out, size_t len)
{
	size_t n = 0;
	for (const char *c = t; *c; c++) {
		if (strncmp(c, "\xe3\x80\x82", 3) == 0) {   /* 。 */
			n = (size_t)(c - t) + 3;
			break;
		}
		if (*c == '.' && (c[1] == ' ' || !c[1]) &&
		    !(c - t >= 3 && strncmp(c - 3, "e.g", 3) == 0) &&
		    !(c - t >= 3 && strncmp(c - 3, "i.e", 3) == 0)) {
			n = (size_t)(c - t) + 1;
			break;
		}
	}
	if (!n)
		n = strlen(t);
	snprintf(out, len, "%.*s", (int)n, t);
}

/* What the learner is told when the kind is right but the pick is not:
 * where to look next, never the answer. */
static const char *const wrong_same[] = {
	[PICK_PORT] = N_("%s is not the port behind this symptom: compare its state, rate and "
			 "width with the other ports'."),
	[PICK_COUNTER] = N_("%s does not explain this symptom: look for the counter that climbs "
			    "while the traffic stops."),
	[PICK_SETTING] = N_("%s is not the setting at fault: compare each setting with what the "
			    "node really has."),
	[PICK_FINDING] = N_("%s is a finding, but not the one behind this symptom: read the "
			    "evidence of the others."),
	[PICK_GPU] = N_("%s is not the GPU in question: look at where each GPU sits against "
			"the NICs."),
	[PICK_NIC] = N_("%s is not the NIC behind this symptom: compare where each NIC sits "
			"with the GPUs that use it."),
	[PICK_PROCESS] = N_("%s is not the process in question: read each one's NCCL settings."),
	[PICK_STEP] = N_("%s is not the step that shows the cause: read each step's verdict."),
};
/* When the kind itself is not the cause's. */
static const char *const wrong_kind[] = {
	[PICK_PORT] = N_("%s is not a port, and the cause here is a port: select one in the %s "
			 "pane."),
	[PICK_COUNTER] = N_("%s is not a counter, and the cause here is a counter: select one in "
			    "the %s pane."),
	[PICK_SETTING] = N_("%s is not a setting, and the cause here is a setting: select one in "
			    "the %s pane."),
	[PICK_FINDING] = N_("%s is not a finding, and the cause here is a finding: select one in "
			    "the %s pane."),
	[PICK_GPU] = N_("%s is not a GPU, and the cause here is a GPU: select one in the %s pane."),
	[PICK_NIC] = N_("%s is not a NIC, and the cause here is a NIC: select one in the %s pane."),
	[PICK_PROCESS] = N_("%s is not a process, and the cause here is a process: select one in "
			    "the %s pane."),
	[PICK_STEP] = N_("%s is not a wizard step, and the cause here is a step: select one in "
			 "the %s pane."),
};

/* The title of the pane named name, translated (the tab bar's word). */
static const char *pane_title(const char *name)
{
	for (int i = 0; name && i < fab_npanes; i++)
		if (strcmp(fab_panes[i]->name, name) == 0)
			return _(fab_panes[i]->title);
	return name ? name : "?";
}

enum learn_verdict learn_answer(struct learn_session *s, const char *scenario,
				const struct fab_pick *p, char *why, size_t len)
{
	const struct learn_exercise *e = learn_current(s);
	const char *label = p && p->label[0] ? p->label : p ? p->name : "";
	enum learn_verdict v;
	char buf[sizeof(s->why)];
	if (e && scenario && strcmp(scenario, e->scenario) != 0) {
		/* Not judged and not kept: the verdict the pane shows stays. */
		snprintf(why, len, _("This exercise is about the %s scenario, and the panes show %s: "
				     "open it (D, or + and - in the Learn pane), then answer."),
			 e->scenario, scenario);
		return LEARN_ELSEWHERE;
	}
	if (!e || !p || p->kind == PICK_NONE || p->kind > PICK_STEP) {
		v = LEARN_NOTHING;
		snprintf(buf, sizeof(buf), "%s",
			 _("Nothing is selected here: select the row you think is the cause, "
			   "then press A."));
	} else if (learn_check(e, p)) {
		v = LEARN_RIGHT;
		first_sentence(_(e->concept), buf, sizeof(buf));
		s->solved[s->cur] = true;
		state_save(s);
	} else {
		v = LEARN_WRONG;
		const struct fab_pick *a = &e->answers[0];
		bool kind = false, name = false;
		for (int i = 0; i < LEARN_MAX_ANSWERS && e->answers[i].kind != PICK_NONE; i++) {
			if (e->answers[i].kind != p->kind)
				continue;
			kind = true;
			a = &e->answers[i];
			/* The right one in the wrong place: the learner is close. */
			if (a->name[0] && field_ok(a->name, p->name) && !place_ok(a, p)) {
				name = true;
				break;
			}
		}
		if (name)
			snprintf(buf, sizeof(buf), _("%s is the right kind of sign, but not on this "
						     "device or port: which one carries the traffic "
						     "in question?"), label);
		else if (kind)
			snprintf(buf, sizeof(buf), _(wrong_same[p->kind]), label);
		else
			snprintf(buf, sizeof(buf), _(wrong_kind[a->kind]), label, pane_title(e->pane));
	}
	s->last = v;
	fab_strlcpy(s->why, buf, sizeof(s->why));
	fab_strlcpy(s->picked, label, sizeof(s->picked));
	if (why && len)
		fab_strlcpy(why, buf, len);
	return v;
}

enum learn_verdict learn_last(const struct learn_session *s, const char **why,
			      const char **picked)
{
	if (why)
		*why = s->why;
	if (picked)
		*picked = s->picked;
	return s->last;
}

int learn_hint_next(struct learn_session *s)
{
	const struct learn_exercise *e = learn_current(s);
	if (!e)
		return 0;
	if (s->shown < learn_nhints(e)) {
		s->shown++;
		if (s->shown > s->hints[s->cur]) {
			s->hints[s->cur] = s->shown;
			state_save(s);
		}
	}
	return s->shown;
}

int learn_hints_shown(const struct learn_session *s)
{
	return s->shown;
}

int learn_hints_used(const struct learn_session *s, int i)
{
	return i >= 0 && i < learn_nexercises ? s->hints[i] : 0;
}

bool learn_solved(const struct learn_session *s, int i)
{
	return i >= 0 && i < learn_nexercises && s->solved[i];
}

int learn_next_unsolved(const struct learn_session *s, const char *scenario)
{
	for (int i = 0; i < learn_nexercises; i++)
		if (!s->solved[i] && (!scenario || strcmp(learn_exercises[i].scenario, scenario) == 0))
			return i;
	return -1;
}

int learn_nsolved(const struct learn_session *s)
{
	int n = 0;
	for (int i = 0; i < learn_nexercises; i++)
		n += s->solved[i];
	return n;
}

const char *learn_state_error(const struct learn_session *s)
{
	return s->err;
}

/* ---- the command ---------------------------------------------------------- */

static void list_session(FILE *out, const struct learn_session *s)
{
	char layer[64];
	int wid = 0, wsc = 0;
	for (int i = 0; i < learn_nexercises; i++) {
		int a = (int)strlen(learn_exercises[i].id), b = (int)strlen(learn_exercises[i].scenario);
		wid = a > wid ? a : wid;
		wsc = b > wsc ? b : wsc;
	}
	int wl = 0;
	for (int l = 0; l < LEARN_NLAYERS; l++) {
		int w = view_strwidth(learn_layer_name(l));
		wl = w > wl ? w : wl;
	}
	for (int i = 0; i < learn_nexercises; i++) {
		const struct learn_exercise *e = &learn_exercises[i];
		/* Ids and scenario names are ASCII; the layer may be CJK. */
		fab_fprintf(out, "%2d %s %-*s  %s  %-*s  %s\n", i + 1,
			    s && learn_solved(s, i) ? fab_glyph("\u2713", "*") : " ", wid, e->id,
			    view_pad(layer, sizeof(layer), learn_layer_name(e->layer), wl, false),
			    wsc, e->scenario, _(e->title));
	}
}

int learn_list(FILE *out)
{
	struct learn_session *s = learn_new(NULL);
	if (s && learn_state_error(s)[0])
		fab_fprintf(stderr, "fabtop learn: %s\n", learn_state_error(s));
	list_session(out, s);
	learn_free(s);
	return 0;
}

static const char learn_usage[] =
	N_("Usage: fabtop learn [--list] [ID|N]\n"
	   "Guided exercises on the bundled scenarios: each states a symptom, opens its\n"
	   "scenario in the console and asks you to point at the cause (select it, then\n"
	   "press A). H shows a hint, g the glossary, + and - go to the next and the\n"
	   "previous exercise.\n"
	   "  --list     the exercises, one a line: number, id, layer, scenario, title\n"
	   "             (a mark on those solved)\n"
	   "  ID or N    the exercise to open (default: the first one not solved)\n"
	   "Progress is kept in $XDG_STATE_HOME/fabtop/learn.json\n"
	   "(~/.local/state/fabtop/learn.json).\n");

/* "port-down" or "3" -> its index; -1 when neither. */
static int exercise_arg(const char *a)
{
	int k = exercise_index(a);
	long long n;
	if (k >= 0)
		return k;
	if (fab_parse_ll(a, &n) && n >= 1 && n <= learn_nexercises)
		return (int)n - 1;
	return -1;
}

int learn_main(int argc, char **argv,
	       int (*run)(struct fab_root *, struct fab_model *, struct wizard *))
{
	bool list = false;
	const char *which = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(_(learn_usage), stdout);
			return 0;
		} else if (strcmp(argv[i], "--list") == 0) {
			list = true;
		} else if (argv[i][0] == '-' || which) {
			fab_fprintf(stderr, _("fabtop learn: unexpected argument \"%s\"\n"), argv[i]);
			fputs(_(learn_usage), stderr);
			return 2;
		} else {
			which = argv[i];
		}
	}
	if (learn_nexercises <= 0) {
		fputs(_("fabtop learn: this build has no exercises\n"), stderr);
		return 2;
	}
	if (list && !which)
		return learn_list(stdout);
	int k = which ? exercise_arg(which) : -1;
	if (which && k < 0) {
		fab_fprintf(stderr, _("fabtop learn: no exercise \"%s\" (fabtop learn --list shows "
				      "them)\n"), which);
		return 2;
	}
	if (list) {
		fputs(_(learn_usage), stderr);
		return 2;
	}
	struct learn_session *s = learn_new(NULL);
	if (!s) {
		fputs("fabtop learn: out of memory\n", stderr);
		return 2;
	}
	if (learn_state_error(s)[0])
		fab_fprintf(stderr, "fabtop learn: %s\n", learn_state_error(s));
	/* No exercise named: the first one not solved yet (all solved: the first). */
	if (k < 0)
		k = learn_next_unsolved(s, NULL);
	learn_start(s, k < 0 ? 0 : k);
	const struct learn_exercise *e = learn_current(s);

	char path[PATH_MAX], err[1024];
	int rc = 2;
	bool script = getenv("FABTOP_SCRIPT") != NULL;
	if (!script && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) ||
			!tui_term_usable(err, sizeof(err)))) {
		fab_fprintf(stderr, _("fabtop learn: the exercises need a terminal; this one would be "
				      "%d. %s: %s\n"), learn_index(s) + 1, _(e->title), _(e->symptom));
	} else if (scenario_find(e->scenario, path, sizeof(path)) != 0) {
		fab_fprintf(stderr, _("fabtop learn: the scenario \"%s\" of exercise %s is not "
				      "installed (make scenarios, or set FABTOP_SCENARIOS)\n"),
			    e->scenario, e->id);
	} else {
		struct fab_root root;
		struct fab_model m;
		if (root_open(&root, path, err, sizeof(err)) != 0) {
			fab_fprintf(stderr, "fabtop learn: %s\n", err);
		} else {
			model_init(&m);
			collect_all(&root, &m);
			m.demo = true;
			tui_learn_opts(s);
			rc = run(&root, &m, NULL);
			tui_learn_opts(NULL);
			model_free(&m);
			root_close(&root);
		}
	}
	learn_free(s);
	return rc;
}
