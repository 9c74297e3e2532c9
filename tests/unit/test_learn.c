/* The learn engine (src/learn.c, learn.h) on a test-only content table
 * (this file defines learn_exercises[] and learn_terms[]; the Makefile
 * links the test without src/learn_content.c), so the engine is judged on
 * what the table holds, not on the shipped exercises:
 *  - learn_check: right, wrong kind, wrong device, wrong port, wildcard
 *    fields, a second answer, nothing selected;
 *  - learn_answer: right tells the concept's first sentence and marks the
 *    exercise solved; wrong tells why without the answer (wrong kind, wrong
 *    one of the kind, the right one in the wrong place);
 *  - hints one at a time, in order, up to the last; the most used is kept;
 *  - the progress file: saved atomically (0600 in a 0700 directory made
 *    for it, no temporary left), read back, a link planted as learn.json
 *    never written through nor read, a broken or foreign file a fresh
 *    start said once, unknown ids ignored, XDG_STATE_HOME and HOME;
 *  - `fabtop learn --list`: one line an exercise with its number, id,
 *    layer, scenario and title, and a mark when solved. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabtop/i18n.h"
#include "fabtop/learn.h"

/* ---- the test-only content ------------------------------------------------ */

const struct learn_exercise learn_exercises[] = {
	{
		.id = "port-down", .title = "A port is down", .layer = LEARN_PHYSICAL,
		.scenario = "roce-faults", .pane = "links",
		.symptom = "NCCL finds seven NICs of eight.",
		.task = "Select the port that is down in the Links pane, then press A.",
		.answers = { { .kind = PICK_PORT, .dev = "mlx5_1", .port = 1 } },
		.hints = {
			{ LEARN_PHYSICAL, "Look at the cables first." },
			{ LEARN_LINK, "Read the STATE column." },
			{ LEARN_RDMA, "A port that is not ACTIVE carries nothing." },
		},
		.concept = "A port carries traffic only when its link is up, e.g. ACTIVE and "
			   "LinkUp on PCIe 4.0 too. Disabled means nothing trained.",
		.terms = { "port-state", "nosuch" },
	},
	{
		.id = "retries", .title = "Retries climbing", .layer = LEARN_RDMA,
		.scenario = "hang", .pane = "counters",
		.symptom = "The job hangs.", .task = "Select the counter.",
		/* Any device, any port: the counter's name is the answer. */
		.answers = { { .kind = PICK_COUNTER, .name = "local_ack_timeout_err" } },
		.hints = { { LEARN_RDMA, "Acknowledgements." } },
		.concept = "A sender that gets no acknowledgement retries. It counts it.",
		.terms = { "qp" },
	},
	{
		.id = "gid", .title = "The wrong GID index", .layer = LEARN_IP,
		.scenario = "roce-faults", .pane = "links",
		.symptom = "s", .task = "t",
		/* Two right answers: the setting on any device, or the port. */
		.answers = { { .kind = PICK_SETTING, .name = "NCCL_IB_GID_INDEX" },
			     { .kind = PICK_PORT, .dev = "mlx5_5" } },
		.concept = "GID index 3 is RoCE v2 over IPv4 here",   /* no full stop */
	},
	{
		.id = "symbols", .title = "Symbol errors", .layer = LEARN_PHYSICAL,
		.scenario = "roce-faults", .pane = "counters", .symptom = "s", .task = "t",
		.answers = { { .kind = PICK_COUNTER, .dev = "mlx5_4", .port = 1,
			       .name = "symbol_error" } },
		.concept = "Bits arrive damaged. Clean the optics.",
	},
};
const int learn_nexercises = sizeof(learn_exercises) / sizeof(learn_exercises[0]);

const struct learn_term learn_terms[] = {
	{ .id = "port-state", .term = "Port state", .layer = LEARN_PHYSICAL, .text = "x",
	  .see = { "qp" } },
	{ .id = "qp", .term = "QP (Queue Pair)", .layer = LEARN_RDMA, .text = "y" },
};
const int learn_nterms = sizeof(learn_terms) / sizeof(learn_terms[0]);

/* ---- helpers -------------------------------------------------------------- */

static char tmp[PATH_MAX];

static struct fab_pick pick(enum fab_pick_kind k, const char *dev, int port, const char *name)
{
	struct fab_pick p = { .kind = k, .port = port };
	snprintf(p.dev, sizeof(p.dev), "%s", dev);
	snprintf(p.name, sizeof(p.name), "%s", name);
	if (k == PICK_COUNTER)
		snprintf(p.label, sizeof(p.label), "%s port %d %s", dev, port, name);
	else
		snprintf(p.label, sizeof(p.label), "%s port %d", dev, port);
	return p;
}

static int setup(void **st)
{
	(void)st;
	snprintf(tmp, sizeof(tmp), "%s/test_learn.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(tmp));
	return 0;
}

static int teardown(void **st)
{
	char cmd[PATH_MAX + 16];
	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *b = calloc(1, 65536);
	size_t n = fread(b, 1, 65535, f);
	b[n] = '\0';
	fclose(f);
	return b;
}

static void spit(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(s, f);
	fclose(f);
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."));
	closedir(d);
	return n;
}

/* ---- learn_check ---------------------------------------------------------- */

static void check_port(void **st)
{
	(void)st;
	const struct learn_exercise *e = &learn_exercises[0];
	struct fab_pick p = pick(PICK_PORT, "mlx5_1", 1, "");
	assert_true(learn_check(e, &p));
	p = pick(PICK_PORT, "mlx5_2", 1, "");          /* wrong device */
	assert_false(learn_check(e, &p));
	p = pick(PICK_PORT, "mlx5_1", 2, "");          /* wrong port */
	assert_false(learn_check(e, &p));
	p = pick(PICK_COUNTER, "mlx5_1", 1, "link_downed");   /* wrong kind, right place */
	assert_false(learn_check(e, &p));
	p = pick(PICK_NONE, "mlx5_1", 1, "");
	assert_false(learn_check(e, &p));
	assert_false(learn_check(e, NULL));
	assert_false(learn_check(NULL, &p));
	/* A name the answer does not ask for does not matter. */
	p = pick(PICK_PORT, "mlx5_1", 1, "whatever");
	assert_true(learn_check(e, &p));
}

static void check_wildcards(void **st)
{
	(void)st;
	const struct learn_exercise *e = &learn_exercises[1];
	struct fab_pick p = pick(PICK_COUNTER, "mlx5_4", 1, "local_ack_timeout_err");
	assert_true(learn_check(e, &p));
	p = pick(PICK_COUNTER, "mlx5_0", 7, "local_ack_timeout_err");
	assert_true(learn_check(e, &p));
	p = pick(PICK_COUNTER, "mlx5_4", 1, "packet_seq_err");
	assert_false(learn_check(e, &p));
	/* The name compares whole, never a prefix. */
	p = pick(PICK_COUNTER, "mlx5_4", 1, "local_ack_timeout");
	assert_false(learn_check(e, &p));
	/* Two answers: either is right; a port answer without a port number
	 * takes any port of that device. */
	e = &learn_exercises[2];
	p = pick(PICK_SETTING, "", 0, "NCCL_IB_GID_INDEX");
	assert_true(learn_check(e, &p));
	p = pick(PICK_PORT, "mlx5_5", 1, "");
	assert_true(learn_check(e, &p));
	p = pick(PICK_PORT, "mlx5_5", 2, "");
	assert_true(learn_check(e, &p));
	p = pick(PICK_PORT, "mlx5_6", 1, "");
	assert_false(learn_check(e, &p));
	p = pick(PICK_SETTING, "", 0, "NCCL_IB_HCA");
	assert_false(learn_check(e, &p));
}

/* ---- learn_answer --------------------------------------------------------- */

static void answer_texts(void **st)
{
	(void)st;
	char why[512];
	const char *w, *what;
	struct learn_session *s = learn_new(tmp);
	assert_non_null(s);
	assert_int_equal(learn_index(s), 0);
	assert_int_equal(learn_last(s, &w, &what), LEARN_NOTHING);
	assert_string_equal(w, "");

	/* Nothing selected. */
	struct fab_pick p = { .kind = PICK_NONE };
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_NOTHING);
	assert_non_null(strstr(why, "Nothing is selected"));

	/* The wrong kind: says what kind the cause is and where, not which. */
	p = pick(PICK_COUNTER, "mlx5_1", 1, "link_downed");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_WRONG);
	assert_non_null(strstr(why, "mlx5_1 port 1 link_downed is not a port"));
	assert_non_null(strstr(why, "the cause here is a port"));
	assert_non_null(strstr(why, "Links pane"));
	assert_false(learn_solved(s, 0));

	/* The right kind, the wrong one: where to look, not the answer. */
	p = pick(PICK_PORT, "mlx5_2", 1, "");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_WRONG);
	assert_non_null(strstr(why, "mlx5_2 port 1 is not the port behind this symptom"));
	assert_null(strstr(why, "mlx5_1"));
	/* The session keeps it for the pane. */
	assert_int_equal(learn_last(s, &w, &what), LEARN_WRONG);
	assert_string_equal(w, why);
	assert_string_equal(what, "mlx5_2 port 1");

	/* The right row on another scenario than the exercise's: not judged,
	 * not kept (the same counter on another node proves nothing). */
	p = pick(PICK_PORT, "mlx5_1", 1, "");
	assert_int_equal(learn_answer(s, "some-other-scenario", &p, why, sizeof(why)), LEARN_ELSEWHERE);
	assert_non_null(strstr(why, "some-other-scenario"));
	assert_false(learn_solved(s, 0));

	/* Right: the concept's first sentence ("e.g." and "4.0" do not end it). */
	p = pick(PICK_PORT, "mlx5_1", 1, "");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_RIGHT);
	assert_string_equal(why, "A port carries traffic only when its link is up, e.g. ACTIVE "
			    "and LinkUp on PCIe 4.0 too.");
	assert_true(learn_solved(s, 0));
	assert_int_equal(learn_nsolved(s), 1);
	assert_int_equal(learn_last(s, NULL, NULL), LEARN_RIGHT);

	/* A new exercise starts unanswered. */
	learn_start(s, 1);
	assert_int_equal(learn_index(s), 1);
	assert_ptr_equal(learn_current(s), &learn_exercises[1]);
	assert_int_equal(learn_last(s, &w, NULL), LEARN_NOTHING);
	assert_string_equal(w, "");
	/* The right counter on... any port is right; a wrong counter is not. */
	p = pick(PICK_COUNTER, "mlx5_3", 1, "packet_seq_err");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_WRONG);
	assert_non_null(strstr(why, "packet_seq_err does not explain this symptom"));
	assert_null(strstr(why, "local_ack"));
	p = pick(PICK_COUNTER, "mlx5_3", 1, "local_ack_timeout_err");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_RIGHT);
	assert_string_equal(why, "A sender that gets no acknowledgement retries.");

	/* A concept of one sentence without a full stop is told whole. */
	learn_start(s, 2);
	p = pick(PICK_SETTING, "", 0, "NCCL_IB_GID_INDEX");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_RIGHT);
	assert_string_equal(why, "GID index 3 is RoCE v2 over IPv4 here");
	/* Out of range starts the first. */
	learn_start(s, 99);
	assert_int_equal(learn_index(s), 0);
	learn_free(s);
}

/* The right name in the wrong place: close, said so, the place not given. */
static void answer_close(void **st)
{
	(void)st;
	char why[512];
	struct learn_session *s = learn_new(tmp);
	learn_start(s, 3);
	struct fab_pick p = pick(PICK_COUNTER, "mlx5_2", 1, "symbol_error");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_WRONG);
	assert_non_null(strstr(why, "mlx5_2 port 1 symbol_error is the right kind of sign, but "
				"not on this device or port"));
	assert_null(strstr(why, "mlx5_4"));
	p = pick(PICK_COUNTER, "mlx5_4", 2, "symbol_error");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_WRONG);
	assert_non_null(strstr(why, "right kind of sign"));
	p = pick(PICK_COUNTER, "mlx5_4", 1, "port_rcv_errors");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_WRONG);
	assert_non_null(strstr(why, "does not explain this symptom"));
	p = pick(PICK_COUNTER, "mlx5_4", 1, "symbol_error");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_RIGHT);
	assert_string_equal(why, "Bits arrive damaged.");
	learn_free(s);
}

/* ---- hints ---------------------------------------------------------------- */

static void hints_order(void **st)
{
	(void)st;
	struct learn_session *s = learn_new(tmp);
	assert_int_equal(learn_nhints(&learn_exercises[0]), 3);
	assert_int_equal(learn_nhints(&learn_exercises[2]), 0);
	assert_int_equal(learn_hints_shown(s), 0);
	assert_int_equal(learn_hint_next(s), 1);
	assert_int_equal(learn_hint_next(s), 2);
	assert_int_equal(learn_hints_shown(s), 2);
	assert_int_equal(learn_hints_used(s, 0), 2);
	assert_int_equal(learn_hint_next(s), 3);
	assert_int_equal(learn_hint_next(s), 3);   /* no fourth */
	assert_int_equal(learn_hints_used(s, 0), 3);
	/* Hints go up the layers, as the content lists them. */
	const struct learn_exercise *e = learn_current(s);
	for (int i = 1; i < learn_nhints(e); i++)
		assert_true(e->hints[i - 1].layer <= e->hints[i].layer);
	learn_start(s, 0);
	assert_int_equal(learn_hints_shown(s), 0);
	assert_int_equal(learn_hints_used(s, 0), 3);   /* the record stays */
	learn_start(s, 2);
	assert_int_equal(learn_hint_next(s), 0);       /* none to show */
	learn_free(s);
	/* The record is in the file. */
	s = learn_new(tmp);
	assert_int_equal(learn_hints_used(s, 0), 3);
	assert_string_equal(learn_state_error(s), "");
	learn_free(s);
}

/* ---- the progress file ---------------------------------------------------- */

static void progress_roundtrip(void **st)
{
	(void)st;
	char dir[PATH_MAX + 32], file[PATH_MAX + 64], why[256];
	struct stat sb;
	snprintf(dir, sizeof(dir), "%s/a/b/fabtop", tmp);
	snprintf(file, sizeof(file), "%s/learn.json", dir);
	struct learn_session *s = learn_new(dir);
	assert_string_equal(learn_state_error(s), "");   /* no file yet: no complaint */
	assert_int_equal(learn_nsolved(s), 0);
	assert_int_equal(stat(dir, &sb), -1);            /* nothing written by reading */
	learn_start(s, 1);
	struct fab_pick p = pick(PICK_COUNTER, "mlx5_0", 1, "local_ack_timeout_err");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_RIGHT);
	assert_string_equal(learn_state_error(s), "");
	learn_free(s);

	assert_int_equal(stat(dir, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);
	snprintf(why, sizeof(why), "%s/a", tmp);
	assert_int_equal(stat(why, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);
	assert_int_equal(lstat(file, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(entries(dir), 1);               /* no temporary left */
	char *b = slurp(file);
	assert_non_null(strstr(b, "\"retries\""));
	assert_null(strstr(b, "\"port-down\""));
	free(b);

	s = learn_new(dir);
	assert_false(learn_solved(s, 0));
	assert_true(learn_solved(s, 1));
	assert_int_equal(learn_nsolved(s), 1);
	/* Where `fabtop learn` and L start: the first not solved. */
	assert_int_equal(learn_next_unsolved(s, NULL), 0);
	assert_int_equal(learn_next_unsolved(s, "hang"), -1);
	assert_int_equal(learn_next_unsolved(s, "roce-faults"), 0);
	learn_start(s, 0);
	p = pick(PICK_PORT, "mlx5_1", 1, "");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_RIGHT);
	assert_int_equal(learn_next_unsolved(s, NULL), 2);
	assert_int_equal(learn_next_unsolved(s, "roce-faults"), 2);
	learn_free(s);
}

/* A link planted as learn.json: not read, and replaced (never written
 * through) when the progress is saved. */
static void progress_symlink(void **st)
{
	(void)st;
	char dir[PATH_MAX + 32], file[PATH_MAX + 64], victim[PATH_MAX + 64], why[256];
	struct stat sb;
	snprintf(dir, sizeof(dir), "%s/state", tmp);
	snprintf(file, sizeof(file), "%s/learn.json", dir);
	snprintf(victim, sizeof(victim), "%s/victim.json", tmp);
	assert_int_equal(mkdir(dir, 0700), 0);
	spit(victim, "{\"solved\": [\"port-down\"]}\n");
	assert_int_equal(symlink(victim, file), 0);

	struct learn_session *s = learn_new(dir);
	assert_false(learn_solved(s, 0));                /* not read through the link */
	assert_non_null(strstr(learn_state_error(s), "symbolic link"));
	learn_start(s, 1);
	struct fab_pick p = pick(PICK_COUNTER, "mlx5_0", 1, "local_ack_timeout_err");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_RIGHT);
	learn_free(s);

	char *b = slurp(victim);
	assert_string_equal(b, "{\"solved\": [\"port-down\"]}\n");
	free(b);
	assert_int_equal(lstat(file, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	b = slurp(file);
	assert_non_null(strstr(b, "\"retries\""));
	free(b);

	/* The state directory itself a link: nothing is written through it. */
	char ldir[PATH_MAX + 32], target[PATH_MAX + 32];
	snprintf(target, sizeof(target), "%s/elsewhere", tmp);
	snprintf(ldir, sizeof(ldir), "%s/linkdir", tmp);
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, ldir), 0);
	s = learn_new(ldir);
	learn_start(s, 1);
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_RIGHT);
	assert_non_null(strstr(learn_state_error(s), "cannot write the progress"));
	learn_free(s);
	assert_int_equal(entries(target), 0);

	/* A directory others can write in: not used. */
	char open_dir_[PATH_MAX + 32];
	snprintf(open_dir_, sizeof(open_dir_), "%s/shared", tmp);
	assert_int_equal(mkdir(open_dir_, 0700), 0);
	assert_int_equal(chmod(open_dir_, 0777), 0);
	s = learn_new(open_dir_);
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_WRONG);
	learn_start(s, 1);
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_RIGHT);
	assert_non_null(strstr(learn_state_error(s), "cannot write the progress"));
	learn_free(s);
	assert_int_equal(entries(open_dir_), 0);
}

static void progress_broken(void **st)
{
	(void)st;
	char dir[PATH_MAX + 32], file[PATH_MAX + 64], why[256];
	snprintf(dir, sizeof(dir), "%s/broken", tmp);
	snprintf(file, sizeof(file), "%s/learn.json", dir);
	assert_int_equal(mkdir(dir, 0700), 0);

	/* Not JSON: a fresh start, said. */
	spit(file, "{\"solved\": [\"port-down\"");
	struct learn_session *s = learn_new(dir);
	assert_int_equal(learn_nsolved(s), 0);
	assert_non_null(strstr(learn_state_error(s), "is not a fabtop progress file"));
	/* Saving writes a good file over it. */
	struct fab_pick p = pick(PICK_PORT, "mlx5_1", 1, "");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_RIGHT);
	learn_free(s);
	s = learn_new(dir);
	assert_true(learn_solved(s, 0));
	assert_string_equal(learn_state_error(s), "");
	learn_free(s);

	/* JSON of the wrong shape. */
	spit(file, "{\"solved\": 3}");
	s = learn_new(dir);
	assert_int_equal(learn_nsolved(s), 0);
	assert_non_null(strstr(learn_state_error(s), "wrong shape"));
	learn_free(s);
	spit(file, "[\"port-down\"]");
	s = learn_new(dir);
	assert_int_equal(learn_nsolved(s), 0);
	assert_non_null(strstr(learn_state_error(s), "wrong shape"));
	learn_free(s);

	/* Unknown ids, hints of the wrong type or too many: ignored or clamped,
	 * the known ones kept, said once; the next save holds known ids only. */
	spit(file, "{\"solved\": [\"nope\", \"port-down\", 7],"
		   " \"hints\": {\"zzz\": 2, \"retries\": 99, \"gid\": \"x\"}}");
	s = learn_new(dir);
	assert_true(learn_solved(s, 0));
	assert_false(learn_solved(s, 1));
	assert_int_equal(learn_hints_used(s, 1), 1);     /* clamped to its one hint */
	assert_non_null(strstr(learn_state_error(s), "4 entries name no exercise"));
	learn_start(s, 0);
	learn_hint_next(s);
	learn_free(s);
	char *b = slurp(file);
	assert_null(strstr(b, "nope"));
	assert_null(strstr(b, "zzz"));
	assert_non_null(strstr(b, "\"port-down\""));
	free(b);

	/* Too big to be a progress file. */
	char *big = malloc(70000);
	memset(big, ' ', 69999);
	big[0] = '{';
	big[69998] = '}';
	big[69999] = '\0';
	spit(file, big);
	free(big);
	s = learn_new(dir);
	assert_int_equal(learn_nsolved(s), 0);
	assert_non_null(strstr(learn_state_error(s), "64 KiB"));
	learn_free(s);

	/* A directory where the file should be. */
	unlink(file);
	assert_int_equal(mkdir(file, 0700), 0);
	s = learn_new(dir);
	assert_int_equal(learn_nsolved(s), 0);
	assert_string_not_equal(learn_state_error(s), "");
	learn_free(s);
}

static void progress_xdg(void **st)
{
	(void)st;
	char x[PATH_MAX + 32], file[PATH_MAX + 64], why[256];
	struct stat sb;
	struct fab_pick p = pick(PICK_PORT, "mlx5_1", 1, "");
	snprintf(x, sizeof(x), "%s/xdg", tmp);
	setenv("XDG_STATE_HOME", x, 1);
	struct learn_session *s = learn_new(NULL);
	learn_answer(s, NULL, &p, why, sizeof(why));
	learn_free(s);
	snprintf(file, sizeof(file), "%s/fabtop/learn.json", x);
	assert_int_equal(stat(file, &sb), 0);

	/* A relative XDG_STATE_HOME is ignored (the spec): HOME's default. */
	setenv("XDG_STATE_HOME", "relative/state", 1);
	snprintf(x, sizeof(x), "%s/home", tmp);
	setenv("HOME", x, 1);
	s = learn_new(NULL);
	learn_answer(s, NULL, &p, why, sizeof(why));
	learn_free(s);
	snprintf(file, sizeof(file), "%s/home/.local/state/fabtop/learn.json", tmp);
	assert_int_equal(stat(file, &sb), 0);
	assert_int_equal(stat("relative", &sb), -1);

	/* Neither: the session works, remembers nothing, says why. */
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	s = learn_new(NULL);
	assert_non_null(s);
	assert_non_null(strstr(learn_state_error(s), "HOME"));
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_RIGHT);
	learn_free(s);
	setenv("HOME", x, 1);
}

/* ---- `fabtop learn --list` ------------------------------------------------ */

static void list_lines(void **st)
{
	(void)st;
	char x[PATH_MAX + 32], why[256], line[512];
	snprintf(x, sizeof(x), "%s/listxdg", tmp);
	setenv("XDG_STATE_HOME", x, 1);
	struct learn_session *s = learn_new(NULL);
	learn_start(s, 1);
	struct fab_pick p = pick(PICK_COUNTER, "mlx5_0", 1, "local_ack_timeout_err");
	assert_int_equal(learn_answer(s, NULL, &p, why, sizeof(why)), LEARN_RIGHT);
	learn_free(s);

	FILE *f = tmpfile();
	assert_int_equal(learn_list(f), 0);
	rewind(f);
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		const struct learn_exercise *e = &learn_exercises[n];
		char num[8], id[64], layer[32], scen[64];
		/* "%2d %s %-*s  %s  %-*s  %s": the mark is one column. */
		assert_true(strlen(line) > 5);
		snprintf(num, sizeof(num), "%2d", n + 1);
		assert_memory_equal(line, num, 2);
		assert_int_equal(line[3], n == 1 ? '*' : ' ');
		assert_int_equal(sscanf(line + 5, "%63s %31s %63s", id, layer, scen), 3);
		assert_string_equal(id, e->id);
		assert_string_equal(layer, learn_layer_name(e->layer));
		assert_string_equal(scen, e->scenario);
		assert_non_null(strstr(line, e->title));
		n++;
	}
	fclose(f);
	assert_int_equal(n, learn_nexercises);
}

static void lookups(void **st)
{
	(void)st;
	assert_ptr_equal(learn_exercise_by_id("gid"), &learn_exercises[2]);
	assert_null(learn_exercise_by_id("nope"));
	assert_null(learn_exercise_by_id(NULL));
	assert_ptr_equal(learn_term_by_id("qp"), &learn_terms[1]);
	assert_null(learn_term_by_id("nosuch"));
	for (int l = 0; l < LEARN_NLAYERS; l++)
		assert_true(strlen(learn_layer_name(l)) > 0 && strcmp(learn_layer_name(l), "?"));
	assert_string_equal(learn_layer_name(LEARN_NLAYERS), "?");
	assert_string_equal(learn_layer_name(LEARN_PHYSICAL), "physical");
	assert_string_equal(learn_layer_name(LEARN_IP), "IP/MTU");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_port),
		cmocka_unit_test(check_wildcards),
				cmocka_unit_test(lookups),
		cmocka_unit_test_setup_teardown(answer_texts, setup, teardown),
		cmocka_unit_test_setup_teardown(answer_close, setup, teardown),
		cmocka_unit_test_setup_teardown(hints_order, setup, teardown),
		cmocka_unit_test_setup_teardown(progress_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(progress_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(progress_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(progress_xdg, setup, teardown),
		cmocka_unit_test_setup_teardown(list_lines, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
