/*
 * wizard.c - the wizard's engine: the steps' state, running one step (gate,
 * then run), the user's inputs (validated before they are stored) and the
 * helpers steps record what they did with. The steps themselves are in
 * wizard_steps.c, batch mode in wizard_batch.c, the pane in views/wizard.c.
 * It goes through each step's def only: no step is known here by its id.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fabtop/ab.h"
#include "fabtop/i18n.h"
#include "fabtop/runner.h"
#include "fabtop/util.h"
#include "fabtop/wizard.h"

static const char *const status_names[] = {
	[WIZ_PENDING] = N_("pending"),
	[WIZ_RUNNING] = N_("running"),
	[WIZ_PASS] = N_("pass"),
	[WIZ_WARN] = N_("warn"),
	[WIZ_FAIL] = N_("fail"),
	[WIZ_SKIPPED] = N_("skipped"),
	[WIZ_BLOCKED] = N_("blocked"),
};

const char *wiz_status_name(enum wiz_status s)
{
	if ((unsigned)s < sizeof(status_names) / sizeof(status_names[0]))
		return status_names[s];
	return "unknown";
}

const char *wiz_status_text(enum wiz_status s)
{
	return _(wiz_status_name(s));
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- inputs ---------------------------------------------------------------- */

static int add_peer(struct wiz_inputs *in, const char *p, char *err, size_t errlen)
{
	char why[256] = "";
	if (in->npeers >= WIZ_MAX_PEERS) {
		snprintf(err, errlen, _("too many peers: at most %d (--peer HOST, repeatable)"), WIZ_MAX_PEERS);
		return -1;
	}
	if (!run_valid_host(p, why, sizeof(why))) {
		snprintf(err, errlen, _("refused %s (nothing was run)"), why);
		return -1;
	}
	fab_strlcpy(in->peers[in->npeers++], p, WIZ_HOST_LEN);
	return 0;
}

static int check_iface(const char *iface, char *err, size_t errlen)
{
	char why[256] = "";
	if (!run_valid_ifname(iface, why, sizeof(why))) {
		snprintf(err, errlen, _("refused %s (nothing was run)"), why);
		return -1;
	}
	return 0;
}

static int check_hca(const char *hca, char *err, size_t errlen)
{
	char why[256] = "";
	if (strlen(hca) >= FAB_LIST_LEN) {
		snprintf(err, errlen, _("refused HCA list: longer than %d characters (nothing was run)"),
			 FAB_LIST_LEN - 1);
		return -1;
	}
	if (!run_valid_hca_list(hca, why, sizeof(why))) {
		snprintf(err, errlen, _("refused %s (NCCL_IB_HCA syntax, e.g. mlx5_0:1,mlx5_1 or ^mlx5_3; "
			 "nothing was run)"), why);
		return -1;
	}
	return 0;
}

void wizard_resolve_inputs(struct wizard *w)
{
	struct wiz_inputs *in = &w->in;
	*in = w->opt;
	if (!in->iface[0] && w->job_ran && w->job_niface > 0) {
		fab_strlcpy(in->iface, w->job_ifaces[0], sizeof(in->iface));
		if (w->job_iface_spec[0])
			snprintf(in->iface_src, sizeof(in->iface_src), _("NCCL_SOCKET_IFNAME=%s of pid %d"),
				 w->job_iface_spec, w->job_pid);
		else
			snprintf(in->iface_src, sizeof(in->iface_src),
				 _("NCCL's own choice for pid %d (NCCL_SOCKET_IFNAME unset)"), w->job_pid);
	}
	if (!in->hca[0] && w->job_ran && w->job_hca_spec[0]) {
		fab_strlcpy(in->hca, w->job_hca_spec, sizeof(in->hca));
		snprintf(in->hca_src, sizeof(in->hca_src), _("NCCL_IB_HCA of pid %d"), w->job_pid);
	}
}

/* Layer 3 and 4 inputs: the perftest side and GID index, the A/B command
 * (copied: the caller's argv may not outlive the wizard). */
static int copy_l34(struct wizard *w, const struct wizard_opts *o, char *err, size_t errlen)
{
	if (o->side && *o->side) {
		if (strcmp(o->side, "server") != 0 && strcmp(o->side, "client") != 0) {
			snprintf(err, errlen, _("--side wants server or client, not \"%s\""), o->side);
			return -1;
		}
		fab_strlcpy(w->side, o->side, sizeof(w->side));
	}
	if (o->gid_index_set) {
		if (o->gid_index < 0 || o->gid_index > 255) {
			snprintf(err, errlen, _("--gid-index wants 0..255, not %d"), o->gid_index);
			return -1;
		}
		w->gid_index = o->gid_index;
	}
	if (o->hang_s < 0 || o->run_timeout_s < 0) {
		snprintf(err, errlen, _("--hang and --run-timeout want seconds above 0"));
		return -1;
	}
	w->hang_s = o->hang_s;
	w->run_timeout_s = o->run_timeout_s;
	int n = 0;
	while (o->cmd && o->cmd[n])
		n++;
	if (n == 0)
		return 0;
	w->cmd = calloc((size_t)n + 1, sizeof(*w->cmd));
	if (!w->cmd) {
		snprintf(err, errlen, _("out of memory"));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (!o->cmd[i][0]) {
			snprintf(err, errlen, _("the command after -- has an empty word (%d)"), i + 1);
			return -1;
		}
		w->cmd[i] = strdup(o->cmd[i]);
		if (!w->cmd[i]) {
			snprintf(err, errlen, _("out of memory"));
			return -1;
		}
		w->ncmd = i + 1;
	}
	return 0;
}

static void free_cmd(struct wizard *w)
{
	for (int i = 0; i < w->ncmd; i++)
		free(w->cmd[i]);
	free(w->cmd);
	w->cmd = NULL;
	w->ncmd = 0;
}

struct wizard *wizard_new(const struct fab_root *root, const struct wizard_opts *o,
			  char *err, size_t errlen)
{
	struct wizard *w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, _("out of memory"));
		return NULL;
	}
	w->root = root;
	w->gid_index = -1;
	w->busy = -1;
	if (o) {
		if (o->iface && *o->iface) {
			if (check_iface(o->iface, err, errlen) != 0)
				goto fail;
			fab_strlcpy(w->opt.iface, o->iface, sizeof(w->opt.iface));
			fab_strlcpy(w->opt.iface_src, "--iface", sizeof(w->opt.iface_src));
		}
		if (o->hca && *o->hca) {
			if (check_hca(o->hca, err, errlen) != 0)
				goto fail;
			fab_strlcpy(w->opt.hca, o->hca, sizeof(w->opt.hca));
			fab_strlcpy(w->opt.hca_src, "--hca", sizeof(w->opt.hca_src));
		}
		for (int i = 0; i < o->npeers; i++)
			if (add_peer(&w->opt, o->peers[i], err, errlen) != 0)
				goto fail;
		if (o->pid < 0) {
			snprintf(err, errlen, _("--pid wants a process id, not %d"), o->pid);
			goto fail;
		}
		w->opt.pid = o->pid;
		w->probe_timeout_s = o->probe_timeout_s;
		if (copy_l34(w, o, err, errlen) != 0)
			goto fail;
	}
	w->nsteps = wiz_nsteps < WIZ_MAX_STEPS ? wiz_nsteps : WIZ_MAX_STEPS;
	for (int i = 0; i < w->nsteps; i++)
		w->steps[i].def = &wiz_steps[i];
	wizard_resolve_inputs(w);
	return w;
fail:
	free_cmd(w);
	free(w);
	return NULL;
}

static void step_clear(struct wiz_step *s)
{
	const struct wiz_step_def *def = s->def;
	int runs = s->runs;
	if (def && def->fini && s->priv)
		def->fini(s);
	free(s->out);
	free(s->findings);
	memset(s, 0, sizeof(*s));
	s->def = def;
	s->runs = runs;
}

void wizard_free(struct wizard *w)
{
	if (!w)
		return;
	wizard_cancel(w);
	for (int i = 0; i < w->nsteps; i++)
		step_clear(&w->steps[i]);
	free_cmd(w);
	free(w);
}

int wizard_next_pending(const struct wizard *w)
{
	for (int i = 0; i < w->nsteps; i++)
		if (w->steps[i].status == WIZ_PENDING)
			return i;
	return -1;
}

void wizard_mark_running(struct wizard *w, int i)
{
	if (i < 0 || i >= w->nsteps)
		return;
	step_clear(&w->steps[i]);
	w->steps[i].status = WIZ_RUNNING;
}

void wizard_skip_step(struct wizard *w, int i)
{
	if (i < 0 || i >= w->nsteps)
		return;
	struct wiz_step *s = &w->steps[i];
	step_clear(s);
	s->status = WIZ_SKIPPED;
	snprintf(s->verdict, sizeof(s->verdict), _("skipped by the user"));
}

/* A step that left no verdict: its worst finding speaks (the first of equals). */
static void verdict_from_findings(struct wiz_step *s)
{
	const struct fab_finding *w = NULL;
	for (int i = 0; i < s->nfindings; i++)
		if (!w || s->findings[i].sev > w->sev)
			w = &s->findings[i];
	if (!w)
		return;
	if (!s->verdict[0]) {
		int more = 0;
		for (int i = 0; i < s->nfindings; i++)
			more += s->findings[i].sev >= SEV_WARN && &s->findings[i] != w;
		/* Subject first, as every finding renderer puts it. */
		if (more)
			snprintf(s->verdict, sizeof(s->verdict), _("%s: %s (and %d more)"), w->subject,
				 w->message, more);
		else
			snprintf(s->verdict, sizeof(s->verdict), _("%s: %s"), w->subject, w->message);
	}
	if (!s->hint[0] && w->sev > SEV_INFO)
		fab_strlcpy(s->hint, w->hint, sizeof(s->hint));
}

/* The end of a run: the status from the findings unless the step set one,
 * and a verdict from them when it left none. */
static void step_done(struct wiz_step *s, int rc, double t0)
{
	s->elapsed_s = now_s() - t0;
	if (rc != 0 && (s->status == WIZ_RUNNING || s->status == WIZ_PENDING))
		s->status = WIZ_FAIL;
	else if (s->status == WIZ_RUNNING || s->status == WIZ_PENDING)
		s->status = wiz_status_of(s);
	verdict_from_findings(s);
}

/* Clears step i and runs its gate: true when it may run. */
static bool step_begin(struct wizard *w, struct wiz_step *s, const struct fab_model *m)
{
	char why[256] = "";
	step_clear(s);
	s->runs++;
	wizard_resolve_inputs(w);
	if (s->def->gate && s->def->gate(w, m, why, sizeof(why))) {
		s->status = WIZ_BLOCKED;
		snprintf(s->verdict, sizeof(s->verdict), _("blocked: %s"), why);
		return false;
	}
	s->status = WIZ_RUNNING;
	return true;
}

enum wiz_status wizard_start_step(struct wizard *w, int i, const struct fab_model *m)
{
	if (i < 0 || i >= w->nsteps || w->busy >= 0)
		return WIZ_BLOCKED;
	struct wiz_step *s = &w->steps[i];
	if (!s->def->start)
		return wizard_run_step(w, i, m);
	if (!step_begin(w, s, m))
		return s->status;
	w->busy_t0 = now_s();
	if (s->def->start(w, s, m) != 0) {
		step_done(s, -1, w->busy_t0);
		return s->status;
	}
	w->busy = i;
	return s->status;
}

int wizard_busy(const struct wizard *w)
{
	return w ? w->busy : -1;
}

bool wizard_poll(struct wizard *w, int timeout_ms)
{
	if (!w || w->busy < 0)
		return false;
	struct wiz_step *s = &w->steps[w->busy];
	int done = s->def->poll(w, s, timeout_ms);
	s->elapsed_s = now_s() - w->busy_t0;
	if (done) {
		w->busy = -1;
		step_done(s, 0, w->busy_t0);
	}
	return true;   /* its elapsed time moved, at least */
}

int wizard_wait_fd(const struct wizard *w)
{
	if (!w || w->busy < 0)
		return -1;
	const struct wiz_step *s = &w->steps[w->busy];
	return s->def->wait_fd ? s->def->wait_fd(s) : -1;
}

void wizard_cancel(struct wizard *w)
{
	if (!w || w->busy < 0)
		return;
	struct wiz_step *s = &w->steps[w->busy];
	w->busy = -1;
	if (s->def->cancel)
		s->def->cancel(w, s);
	s->status = WIZ_FAIL;
	snprintf(s->verdict, sizeof(s->verdict), _("cancelled by the user"));
	step_done(s, -1, w->busy_t0);
}

enum wiz_status wizard_run_step(struct wizard *w, int i, const struct fab_model *m)
{
	if (i < 0 || i >= w->nsteps || w->busy >= 0)
		return WIZ_BLOCKED;
	struct wiz_step *s = &w->steps[i];
	const struct wiz_step_def *def = s->def;
	if (!step_begin(w, s, m))
		return s->status;
	double t0 = now_s();
	int rc;
	if (def->start) {
		rc = def->start(w, s, m);
		while (rc == 0 && !def->poll(w, s, -1))
			;
	} else {
		rc = def->run(w, s, m);
	}
	step_done(s, rc, t0);
	return s->status;
}

/* ---- the editor's inputs ---------------------------------------------------- */

int wizard_set_peers(struct wizard *w, const char *list, char *err, size_t errlen)
{
	struct wiz_inputs tmp = w->opt;
	char buf[WIZ_MAX_PEERS * WIZ_HOST_LEN + WIZ_MAX_PEERS], *save = NULL;
	if (strlen(list) >= sizeof(buf)) {
		snprintf(err, errlen, _("peer list too long"));
		return -1;
	}
	fab_strlcpy(buf, list, sizeof(buf));
	tmp.npeers = 0;
	for (char *tok = strtok_r(buf, " ,\t", &save); tok; tok = strtok_r(NULL, " ,\t", &save))
		if (add_peer(&tmp, tok, err, errlen) != 0)
			return -1;
	w->opt = tmp;
	wizard_resolve_inputs(w);
	return 0;
}

int wizard_set_iface(struct wizard *w, const char *iface, char *err, size_t errlen)
{
	if (*iface && check_iface(iface, err, errlen) != 0)
		return -1;
	if (strcmp(iface, w->opt.iface) == 0)
		return 0;   /* unchanged: it keeps saying where it came from */
	fab_strlcpy(w->opt.iface, iface, sizeof(w->opt.iface));
	fab_strlcpy(w->opt.iface_src, *iface ? _("entered in the wizard") : "", sizeof(w->opt.iface_src));
	wizard_resolve_inputs(w);
	return 0;
}

int wizard_set_hca(struct wizard *w, const char *hca, char *err, size_t errlen)
{
	if (*hca && check_hca(hca, err, errlen) != 0)
		return -1;
	if (strcmp(hca, w->opt.hca) == 0)
		return 0;
	fab_strlcpy(w->opt.hca, hca, sizeof(w->opt.hca));
	fab_strlcpy(w->opt.hca_src, *hca ? _("entered in the wizard") : "", sizeof(w->opt.hca_src));
	wizard_resolve_inputs(w);
	return 0;
}

/* Appends c to the word; false when it is full. */
static bool word_add(char *out, size_t *n, size_t cap, char c)
{
	if (*n + 1 >= cap)
		return false;
	out[(*n)++] = c;
	return true;
}

/* One word of a command line from *p (which it advances): quotes and
 * backslashes as wizard_set_cmd() says. 1 with the word in out, 0 at the
 * end of the line, -1 with the message. */
static int next_word(const char **p, char *out, size_t cap, char *err, size_t errlen)
{
	const char *s = *p + strspn(*p, " \t");
	size_t n = 0;
	if (!*s) {
		*p = s;
		return 0;
	}
	while (*s && *s != ' ' && *s != '\t') {
		char c = *s++;
		if (c == '\'') {
			const char *end = strchr(s, '\'');
			if (!end) {
				snprintf(err, errlen, _("the command has an open ' quote"));
				return -1;
			}
			for (; s < end; s++)
				if (!word_add(out, &n, cap, *s))
					goto long_word;
			s++;
			continue;
		}
		if (c == '"') {
			for (; *s && *s != '"'; s++) {
				if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
					s++;
				if (!word_add(out, &n, cap, *s))
					goto long_word;
			}
			if (*s != '"') {
				snprintf(err, errlen, _("the command has an open \" quote"));
				return -1;
			}
			s++;
			continue;
		}
		if (c == '\\') {
			if (!*s) {
				snprintf(err, errlen, _("the command ends in a backslash"));
				return -1;
			}
			c = *s++;
		}
		if (!word_add(out, &n, cap, c))
			goto long_word;
	}
	out[n] = '\0';
	*p = s;
	return 1;
long_word:
	snprintf(err, errlen, _("a word of the command is longer than %zu characters"), cap - 1);
	return -1;
}

int wizard_set_cmd(struct wizard *w, const char *line, char *err, size_t errlen)
{
	char words[AB_MAX_ARGS][WIZ_CMD_WORD];
	const char *argv[AB_MAX_ARGS + 1];
	const char *p = line ? line : "";
	int n = 0, rc;
	char word[WIZ_CMD_WORD];
	while ((rc = next_word(&p, word, sizeof(word), err, errlen)) == 1) {
		if (n == AB_MAX_ARGS) {
			snprintf(err, errlen, _("the command has more than %d words"), AB_MAX_ARGS);
			return -1;
		}
		if (!word[0]) {
			snprintf(err, errlen, _("the command has an empty word (%d): '' passes nothing"), n + 1);
			return -1;
		}
		fab_strlcpy(words[n], word, sizeof(words[n]));
		argv[n] = words[n];
		n++;
	}
	if (rc < 0)
		return -1;
	argv[n] = NULL;
	struct wizard_opts o = { .cmd = argv };
	struct wizard tmp = { .gid_index = -1, .busy = -1 };
	if (copy_l34(&tmp, &o, err, errlen) != 0) {
		free_cmd(&tmp);
		return -1;
	}
	free_cmd(w);
	w->cmd = tmp.cmd;
	w->ncmd = tmp.ncmd;
	return 0;
}

void wizard_cmd_line(const struct wizard *w, char *buf, size_t len)
{
	if (w->ncmd > 0)
		run_format_argv((const char *const *)w->cmd, buf, len);
	else if (len)
		buf[0] = '\0';
}

void wizard_peers_line(const struct wizard *w, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < w->opt.npeers && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", w->opt.peers[i]);
}

/* ---- what steps record ------------------------------------------------------ */

static void vappend(struct wiz_step *s, const char *fmt, va_list ap)
{
	char line[1024];
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n <= 0)
		return;
	size_t len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	s->out_total += (size_t)n;
	if (!s->out) {
		s->out = malloc(WIZ_OUT_CAP + 1);
		if (!s->out)
			return;
		s->out[0] = '\0';
	}
	size_t room = WIZ_OUT_CAP - s->out_len;
	if (len > room)
		len = room;
	memcpy(s->out + s->out_len, line, len);
	s->out_len += len;
	s->out[s->out_len] = '\0';
}

void wiz_out(struct wiz_step *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vappend(s, fmt, ap);
	va_end(ap);
}

void wiz_cmd(struct wiz_step *s, const char *fmt, ...)
{
	va_list ap;
	if (s->ncmds >= WIZ_MAX_CMDS)
		return;
	va_start(ap, fmt);
	vsnprintf(s->cmds[s->ncmds++], sizeof(s->cmds[0]), fmt, ap);
	va_end(ap);
}

void wiz_input(struct wiz_step *s, const char *fmt, ...)
{
	va_list ap;
	if (s->ninputs >= (int)(sizeof(s->inputs) / sizeof(s->inputs[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(s->inputs[s->ninputs++], sizeof(s->inputs[0]), fmt, ap);
	va_end(ap);
}

struct fab_finding *wiz_finding(struct wiz_step *s, const char *id, enum fab_severity sev,
				const char *subject)
{
	struct fab_finding *f = realloc(s->findings, (size_t)(s->nfindings + 1) * sizeof(*f));
	if (!f)
		return NULL;
	s->findings = f;
	f = &s->findings[s->nfindings++];
	memset(f, 0, sizeof(*f));
	fab_strlcpy(f->id, id, sizeof(f->id));
	f->sev = sev;
	fab_strlcpy(f->subject, subject ? subject : "", sizeof(f->subject));
	return f;
}

enum wiz_status wiz_status_of(const struct wiz_step *s)
{
	int worst = -1;
	for (int i = 0; i < s->nfindings; i++)
		if ((int)s->findings[i].sev > worst)
			worst = (int)s->findings[i].sev;
	return worst == SEV_ERROR ? WIZ_FAIL : worst == SEV_WARN ? WIZ_WARN : WIZ_PASS;
}

int wiz_exit_of(const struct wiz_step *s)
{
	return s->status == WIZ_WARN || s->status == WIZ_FAIL || s->status == WIZ_BLOCKED;
}

int wizard_step_exit(const struct wiz_step *s, const char **why)
{
	const char *words = NULL;
	int rc = s->def->exit_code ? s->def->exit_code(s, &words) : wiz_exit_of(s);
	if (why)
		*why = rc == 2 ? words : NULL;
	return rc;
}

int wiz_run_cmd(struct wiz_step *s, const char *const argv[], double timeout_s)
{
	char shown[512];
	struct run_opts o = { .timeout_s = timeout_s, .out_cap = WIZ_OUT_CAP };
	struct run_result r;
	run_format_argv(argv, shown, sizeof(shown));
	wiz_cmd(s, "%s", shown);
	wiz_out(s, "$ %s\n", shown);
	memset(&r, 0, sizeof(r));
	int rc = run_argv(argv, &o, &r);
	if (r.out && r.out_len)
		wiz_out(s, "%.*s%s", (int)r.out_len, r.out,
			r.out[r.out_len - 1] == '\n' ? "" : "\n");
	if (r.truncated)
		wiz_out(s, _("[output cut at %zu of %zu bytes]\n"), r.out_len, r.out_total);
	int code = r.exit_code;
	/* The runner's one line: cannot run, timed out, hung, killed by a signal. */
	if (rc != 0 || r.err[0])
		wiz_out(s, "[%s]\n", r.err[0] ? r.err : _("could not run"));
	else if (r.exit_code)
		wiz_out(s, _("[exit status %d]\n"), r.exit_code);
	if (rc != 0 || r.err[0])
		code = -1;
	run_result_free(&r);
	return code;
}
