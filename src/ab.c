/*
 * ab.c - the A/B engine (ab.h): both runs' argv and environment, the two
 * children one after the other through the runner, their output split
 * into lines for the NCCL log analyzer as it arrives, and each run's end
 * state. The verdict is ab_decide.c's; the printing ab_print.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/ab.h"
#include "fabtop/util.h"

#define AB_OUT_CAP (16u * 1024u)   /* the runner keeps this much of the end; the log is streamed */

/*
 * MPI launchers. Open MPI's (mpirun, mpiexec, orterun, prterun) hands the
 * remote ranks only the variables named with -x; MPICH's and Intel MPI's
 * Hydra (mpiexec.hydra, mpirun.mpich, Intel's mpirun) passes the whole
 * environment on by itself and refuses -x. "mpirun" and "mpiexec" may be
 * either, so those are asked their --version.
 */
enum launcher { L_NONE, L_OPENMPI, L_HYDRA };

static const char *const openmpi_names[] = {
	"orterun", "prterun", "mpirun.openmpi", "mpiexec.openmpi",
};
static const char *const hydra_names[] = {
	"mpiexec.hydra", "mpirun.mpich", "mpiexec.mpich", "mpirun.hydra",
};

static bool name_in(const char *base, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(base, names[i]) == 0)
			return true;
	return false;
}

static enum launcher launcher_kind(const char *argv0, char *note, size_t len)
{
	const char *base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
	if (name_in(base, openmpi_names, sizeof(openmpi_names) / sizeof(openmpi_names[0]))) {
		snprintf(note, len, "%s is Open MPI's: the variables go to the ranks as -x NAME=VALUE", base);
		return L_OPENMPI;
	}
	if (name_in(base, hydra_names, sizeof(hydra_names) / sizeof(hydra_names[0]))) {
		snprintf(note, len, "%s is Hydra's (MPICH, Intel MPI): it passes the environment on", base);
		return L_HYDRA;
	}
	if (strcmp(base, "mpirun") != 0 && strcmp(base, "mpiexec") != 0)
		return L_NONE;
	const char *argv[] = { argv0, "--version", NULL };
	struct run_opts ro = { .timeout_s = 5, .out_cap = 4096 };
	struct run_result r;
	run_argv(argv, &ro, &r);
	const char *out = r.out ? r.out : "";
	enum launcher k = L_OPENMPI;
	if (strstr(out, "HYDRA") || strstr(out, "Intel(R) MPI") || strstr(out, "MPICH")) {
		k = L_HYDRA;
		snprintf(note, len, "%s --version says Hydra (MPICH, Intel MPI): it passes the environment on", base);
	} else if (strstr(out, "Open MPI") || strstr(out, "OpenRTE") || strstr(out, "PRRTE")) {
		snprintf(note, len, "%s --version says Open MPI: the variables go to the ranks as -x NAME=VALUE",
			 base);
	} else {
		/* The GPU clusters' usual one (HPC-X ships Open MPI). */
		snprintf(note, len, "%s --version named no MPI: taken for Open MPI's, the variables go to the "
			 "ranks as -x NAME=VALUE", base);
	}
	run_result_free(&r);
	return k;
}

static size_t key_len(const char *kv)
{
	return strcspn(kv, "=");
}

static bool same_key(const char *a, const char *b)
{
	size_t la = key_len(a);
	return la == key_len(b) && strncmp(a, b, la) == 0;
}

/* ---- building the runs ---------------------------------------------------------- */

static int push_env(struct ab_run *r, int *n, const char *kv, char *err, size_t errlen)
{
	for (int i = 0; i < *n; i++)
		if (same_key(r->env[i], kv)) {   /* the later one wins, in its place */
			char *dup = strdup(kv);
			if (!dup)
				goto oom;
			free(r->env[i]);
			r->env[i] = dup;
			return 0;
		}
	if (*n >= AB_MAX_ENV) {
		snprintf(err, errlen, "too many environment variables for the A/B (at most %d)", AB_MAX_ENV);
		return -1;
	}
	if (!(r->env[*n] = strdup(kv)))
		goto oom;
	(*n)++;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int push_arg(struct ab_run *r, int *n, const char *word, char *err, size_t errlen)
{
	if (*n >= AB_MAX_ARGS) {
		snprintf(err, errlen, "the NCCL test command is too long: at most %d words with the A/B's "
			 "additions", AB_MAX_ARGS);
		return -1;
	}
	if (!(r->argv[*n] = strdup(word))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	(*n)++;
	return 0;
}

/* A user's own "-x K[=V]" for a variable the A/B sets would fight ours. */
static bool overridden_x(const struct ab_run *r, const char *arg)
{
	for (int i = 0; r->env[i]; i++)
		if (same_key(r->env[i], arg))
			return true;
	return false;
}

static void build_display(struct ab_run *r, bool launcher)
{
	char cmd[sizeof(r->display)];
	size_t n = 0;
	r->display[0] = '\0';
	/* An MPI launcher's -x arguments already show the variables. */
	if (!launcher) {
		/* NCCL_IB_DISABLE first: it is what tells B from A at a glance. */
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; r->env[i]; i++) {
				bool ib = strncmp(r->env[i], "NCCL_IB_DISABLE=", 16) == 0;
				if (!strchr(r->env[i], '=') || ib != (pass == 0) || n >= sizeof(r->display))
					continue;
				n += (size_t)snprintf(r->display + n, sizeof(r->display) - n, "%s ", r->env[i]);
			}
	}
	run_format_argv((const char *const *)r->argv, cmd, sizeof(cmd));
	if (n < sizeof(r->display))
		snprintf(r->display + n, sizeof(r->display) - n, "%s", cmd);
}

static int build_run(struct ab *ab, int k, const struct ab_opts *o, enum launcher lk, char *err,
		     size_t errlen)
{
	struct ab_run *r = &ab->run[k];
	int ne = 0, na = 0;
	r->label = k ? 'B' : 'A';
	for (const char *const *e = o->env_extra; e && *e; e++)
		if (push_env(r, &ne, *e, err, errlen) != 0)
			return -1;
	if (push_env(r, &ne, "NCCL_DEBUG=INFO", err, errlen) != 0 ||
	    push_env(r, &ne, "NCCL_DEBUG_SUBSYS=INIT,NET", err, errlen) != 0 ||
	    push_env(r, &ne, "NCCL_DEBUG_FILE", err, errlen) != 0 ||   /* the log must reach the pipe */
	    (k == 1 && push_env(r, &ne, "NCCL_IB_DISABLE=1", err, errlen) != 0))
		return -1;

	bool launcher = lk == L_OPENMPI;
	if (push_arg(r, &na, o->argv[0], err, errlen) != 0)
		return -1;
	if (launcher)
		for (int i = 0; r->env[i]; i++)
			if (strchr(r->env[i], '=') &&
			    (push_arg(r, &na, "-x", err, errlen) != 0 || push_arg(r, &na, r->env[i], err, errlen) != 0))
				return -1;
	for (int i = 1; o->argv[i]; i++) {
		if (launcher && strcmp(o->argv[i], "-x") == 0 && o->argv[i + 1] &&
		    overridden_x(r, o->argv[i + 1])) {
			i++;
			continue;
		}
		if (push_arg(r, &na, o->argv[i], err, errlen) != 0)
			return -1;
	}
	build_display(r, launcher);
	return 0;
}

int ab_init(struct ab *ab, const struct ab_opts *o, char *err, size_t errlen)
{
	memset(ab, 0, sizeof(*ab));
	ab->cur = -1;
	for (int k = 0; k < 2; k++)
		nccl_log_init(&ab->run[k].log);
	if (!o || !o->argv || !o->argv[0]) {
		snprintf(err, errlen, "no NCCL test command: give it after --, e.g. -- all_reduce_perf -b 8 -e 1G "
			 "-f 2 -g 8");
		return -1;
	}
	int n = 0;
	for (; o->argv[n]; n++) {
		if (n >= AB_MAX_ARGS) {
			snprintf(err, errlen, "the NCCL test command is too long: at most %d words", AB_MAX_ARGS);
			return -1;
		}
		if (!o->argv[n][0]) {
			snprintf(err, errlen, "the NCCL test command's word %d is empty", n + 1);
			return -1;
		}
	}
	for (const char *const *e = o->env_extra; e && *e; e++)
		if (!strchr(*e, '=') || **e == '=') {
			snprintf(err, errlen, "environment entry '%s' is not K=V", *e);
			return -1;
		}
	if (!(o->hang_s >= 0) || !(o->run_timeout_s >= 0)) {
		snprintf(err, errlen, "the hang and run timeouts must not be negative");
		return -1;
	}
	ab->hang_s = o->hang_s > 0 ? o->hang_s : AB_HANG_DEFAULT_S;
	ab->run_timeout_s = o->run_timeout_s;
	ab->model = o->model;
	enum launcher lk = launcher_kind(o->argv[0], ab->launcher, sizeof(ab->launcher));
	for (int k = 0; k < 2; k++)
		if (build_run(ab, k, o, lk, err, errlen) != 0) {
			ab_free(ab);
			return -1;
		}
	return 0;
}

/* ---- the output, line by line ----------------------------------------------------- */

static void tail_push(struct ab_run *r, const char *line, size_t len)
{
	char *t = r->tail[r->tail_next];
	size_t n = 0;
	for (size_t i = 0; i < len && n + 1 < AB_TAIL_LEN; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c == '\r' && i + 1 == len)
			break;
		t[n++] = c < 0x20 || c == 0x7f ? (c == '\t' ? ' ' : '?') : (char)c;
	}
	t[n] = '\0';
	r->tail_next = (r->tail_next + 1) % AB_TAIL_LINES;
	if (r->tail_n < AB_TAIL_LINES)
		r->tail_n++;
}

static void line_done(struct ab_run *r)
{
	nccl_log_feed(&r->log, r->partial, r->partial_len);
	/* NCCL puts a blank line before each WARN: the tail keeps lines that say something. */
	if (r->partial_len && !(r->partial_len == 1 && r->partial[0] == '\r'))
		tail_push(r, r->partial, r->partial_len);
	r->out_lines++;
	r->partial_len = 0;
}

/* The runner's on_output: every byte the child wrote, in chunks. A line
 * longer than NCCL_LOG_LINE_MAX keeps its first bytes, as the analyzer reads. */
static void on_output(void *ctx, const char *buf, size_t len)
{
	struct ab_run *r = ctx;
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;
		size_t room = NCCL_LOG_LINE_MAX - r->partial_len;
		size_t take = n < room ? n : room;
		memcpy(r->partial + r->partial_len, buf, take);
		r->partial_len += take;
		if (!nl)
			return;
		line_done(r);
		buf += n + 1;
		len -= n + 1;
	}
}

/* ---- running ---------------------------------------------------------------------- */

static int start_run(struct ab *ab, int k)
{
	struct ab_run *r = &ab->run[k];
	struct run_opts o = {
		.timeout_s = ab->run_timeout_s,
		.idle_timeout_s = ab->hang_s,
		.out_cap = AB_OUT_CAP,
		.keep_tail = true,
		.env_add = (const char *const *)r->env,
		.on_output = on_output,
		.ctx = r,
	};
	ab->cur = k;
	r->state = AB_RUNNING;
	if (run_start((const char *const *)r->argv, &o, &r->job, r->res.err, sizeof(r->res.err)) != 0) {
		r->job = NULL;
		r->state = AB_NOT_STARTED;
		r->res.exit_code = -1;
		fab_strlcpy(r->why, r->res.err, sizeof(r->why));
		nccl_log_finish(&r->log);
		ab->cur = -1;
		return -1;
	}
	return 0;
}

static const char *first_error(const struct nccl_log *l)
{
	return l->nerr ? l->err[0].text : NULL;
}

static void set_end_state(struct ab *ab, struct ab_run *r)
{
	const struct run_result *res = &r->res;
	const char *e = first_error(&r->log);
	r->elapsed_s = res->elapsed_s;
	if (res->cancelled) {
		r->state = AB_CANCELLED;
		snprintf(r->why, sizeof(r->why), "killed");
	} else if (res->hung) {
		r->state = AB_HUNG;
		snprintf(r->why, sizeof(r->why), "no output for %g s (killed)%s%s", ab->hang_s,
			 e ? "; " : "", e ? e : "");
	} else if (res->timed_out) {
		r->state = AB_TIMED_OUT;
		snprintf(r->why, sizeof(r->why), "ran past %g s (killed)%s%s", ab->run_timeout_s,
			 e ? "; " : "", e ? e : "");
	} else if (res->exit_code == 0 && r->log.outcome != NCCL_RUN_FAILED) {
		r->state = AB_COMPLETED;
		snprintf(r->why, sizeof(r->why), "exit 0");
	} else {
		r->state = AB_FAILED;
		char how[64];
		if (res->exit_code >= 0)
			snprintf(how, sizeof(how), "exit %d", res->exit_code);
		else
			fab_strlcpy(how, res->err[0] ? res->err : "killed", sizeof(how));
		snprintf(r->why, sizeof(r->why), "%s%s%s", how, e ? ": " : "",
			 e ? e : res->exit_code == 0 ? ": the log shows the run failed" : "");
	}
}

static void finish_run(struct ab *ab, struct ab_run *r)
{
	run_finish(r->job, &r->res);
	r->job = NULL;
	if (r->partial_len)
		line_done(r);   /* a last line without '\n' */
	nccl_log_finish(&r->log);
	/* A's bus bandwidth against its HCAs' line rate, when there is a model. */
	if (r->label == 'A' && ab->model)
		nccl_log_line_rate(&r->log, ab->model);
	set_end_state(ab, r);
}

int ab_start(struct ab *ab)
{
	if (ab->cur >= 0 || ab->run[0].state != AB_IDLE)
		return -1;
	if (start_run(ab, 0) != 0) {
		ab_decide(ab);
		return -1;
	}
	return 0;
}

/* After A: B runs unless A showed there is nothing to compare. */
static void after_a(struct ab *ab)
{
	struct ab_run *a = &ab->run[0], *b = &ab->run[1];
	if (a->log.nccl_lines == 0 && a->state != AB_CANCELLED) {
		snprintf(b->why, sizeof(b->why), "run A printed no NCCL line");
		ab->cur = -1;
		ab_decide(ab);
		return;
	}
	if (start_run(ab, 1) != 0)
		ab_decide(ab);
}

int ab_poll(struct ab *ab, int timeout_ms)
{
	for (;;) {
		if (ab->cur < 0)
			return ab->verdict != AB_V_PENDING;
		struct ab_run *r = &ab->run[ab->cur];
		int rc = run_poll(r->job, timeout_ms);
		if (rc == 0) {
			if (timeout_ms >= 0)
				return 0;
			continue;
		}
		finish_run(ab, r);
		if (ab->cur == 0) {
			after_a(ab);
		} else {
			ab->cur = -1;
			ab_decide(ab);
		}
		if (timeout_ms >= 0)
			return ab->cur < 0;
	}
}

int ab_fd(const struct ab *ab)
{
	return ab->cur >= 0 && ab->run[ab->cur].job ? run_fd(ab->run[ab->cur].job) : -1;
}

void ab_cancel(struct ab *ab)
{
	if (ab->cur < 0)
		return;
	struct ab_run *r = &ab->run[ab->cur];
	run_cancel(r->job);
	finish_run(ab, r);
	r->state = AB_CANCELLED;
	snprintf(r->why, sizeof(r->why), "by the user (killed)");
	ab->cur = -1;
	ab_decide(ab);
}

enum ab_verdict ab_run_all(struct ab *ab)
{
	if (ab_start(ab) == 0)
		while (!ab_poll(ab, -1))
			;
	return ab->verdict;
}

void ab_free(struct ab *ab)
{
	if (!ab)
		return;
	if (ab->cur >= 0)
		ab_cancel(ab);
	for (int k = 0; k < 2; k++) {
		struct ab_run *r = &ab->run[k];
		for (int i = 0; i <= AB_MAX_ARGS && r->argv[i]; i++) {
			free(r->argv[i]);
			r->argv[i] = NULL;
		}
		for (int i = 0; i <= AB_MAX_ENV && r->env[i]; i++) {
			free(r->env[i]);
			r->env[i] = NULL;
		}
		run_result_free(&r->res);
		nccl_log_free(&r->log);
	}
}
