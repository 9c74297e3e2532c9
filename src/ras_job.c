/* ras_job.c - RAS replies over time: each communicator's progress, the
 * lagging ranks and the verdict (see ras_job.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "fabtop/i18n.h"
#include "fabtop/ras_job.h"
#include "fabtop/model.h"
#include "fabtop/nccl_log.h"
#include "fabtop/rdma_res.h"
#include "fabtop/root.h"
#include "fabtop/util.h"
#include "job.h"

const char *job_verdict_word(enum job_verdict v)
{
	static const char *const w[] = {
		[JV_NO_JOB] = "no-job", [JV_RAS_OFF] = "ras-off", [JV_UNAVAILABLE] = "ras-unavailable",
		[JV_INIT] = "job-init", [JV_DEAD_RANKS] = "job-dead-ranks", [JV_STUCK] = "job-stuck",
		[JV_OK] = "job-ok", [JV_WATCHING] = "job-watching", [JV_UNKNOWN] = "job-unknown",
	};
	return (unsigned)v < sizeof(w) / sizeof(w[0]) ? w[v] : "?";
}

int job_verdict_exit(enum job_verdict v)
{
	switch (v) {
	case JV_OK: return 0;
	case JV_STUCK: case JV_DEAD_RANKS: case JV_INIT: return 1;
	default: return 2;
	}
}

const char *ras_progress_word(enum comm_progress p)
{
	switch (p) {
	case CP_TOO_SOON: return N_("watching");
	case CP_ADVANCING: return N_("advancing");
	case CP_STUCK: return N_("stuck");
	case CP_FROZEN_EQUAL: return N_("frozen");
	default: return N_("unknown");
	}
}

/* ---- where the server is, from the jobs here ---- */

/* The version in a library's name ("libnccl.so.2.26.5"), or in the wheel's
 * dist-info beside it (".../site-packages/nvidia/nccl/lib/libnccl.so.2" and
 * ".../site-packages/nvidia_nccl_cu12-2.26.5.dist-info"), looked up through
 * the process's root. 0 when neither says. */
static int version_from_lib(const char *lib, int pid, bool live)
{
	const char *so = strstr(lib, ".so.");
	if (so) {
		int v = ras_version_code(so + 4);
		if (v)
			return v;
	}
	const char *sp = strstr(lib, "/site-packages/");
	if (!sp || !live)
		return 0;
	char dir[FAB_PATH_LEN + 64];
	snprintf(dir, sizeof(dir), "/proc/%d/root%.*s", pid, (int)(sp - lib) + 15, lib);
	DIR *d = opendir(dir);
	int v = 0;
	for (struct dirent *e; d && !v && (e = readdir(d));) {
		const char *dash = strchr(e->d_name, '-');
		if (strncmp(e->d_name, "nvidia_nccl_cu", 14) == 0 && dash && strstr(dash, ".dist-info"))
			v = ras_version_code(dash + 1);
	}
	if (d)
		closedir(d);
	return v;
}

/* "RAS client listening socket at ::1<28028>" in the job's NCCL log. */
static bool addr_from_log(const struct fab_job *j, struct ras_addr *a)
{
	if (!j->debug_file_open[0])
		return false;
	FILE *f = fopen(j->debug_file_open, "re");
	if (!f)
		return false;
	char line[1024];
	bool found = false;
	/* NCCL prints it during init, near the top: the first 16 MiB at most. */
	for (long off = 0; !found && off < (16L << 20) && fgets(line, sizeof(line), f); off += (long)strlen(line)) {
		const char *p = strstr(line, "RAS client listening socket at ");
		if (p && ras_addr_parse(p + 31, a) == 0) {
			snprintf(a->source, sizeof(a->source), _("the log of pid %d (RAS client listening socket)"),
				 j->pid);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static void pick_addr(struct ras_session *s, const struct fab_job_list *jobs, const char *ras_addr)
{
	if (ras_addr) {
		/* Never another address in its place: asking the job's own, or
		 * this machine's, instead of the one given could reach a job the
		 * user did not mean (the CLI refuses such values first). */
		s->explicit_addr = true;
		snprintf(s->addr.source, sizeof(s->addr.source), "--ras");
		if (ras_addr_parse(ras_addr, &s->addr) != 0) {
			s->offline = true;
			s->next = -1;
			snprintf(s->not_sent, sizeof(s->not_sent), _("--ras wants HOST:PORT, [V6]:PORT or HOST; "
				 "nothing is asked"));
		}
		return;
	}
	for (int i = 0; jobs && i < jobs->njobs; i++) {
		const char *v = job_var(&jobs->jobs[i], "NCCL_RAS_ADDR");
		if (v && ras_addr_parse(v, &s->addr) == 0) {
			snprintf(s->addr.source, sizeof(s->addr.source), _("NCCL_RAS_ADDR of pid %d"),
				 jobs->jobs[i].pid);
			return;
		}
	}
	for (int i = 0; jobs && i < jobs->njobs; i++)
		if (addr_from_log(&jobs->jobs[i], &s->addr))
			return;
	ras_addr_parse(RAS_DEFAULT_HOST ":" RAS_DEFAULT_PORT, &s->addr);
	snprintf(s->addr.source, sizeof(s->addr.source), _("NCCL's default"));
}

/* The job's namespace: RAS listens on localhost inside it. */
static void pick_netns(struct ras_session *s, const struct fab_job_list *jobs)
{
	s->netns_pid = -1;
	for (int i = 0; jobs && i < jobs->njobs; i++) {
		const struct fab_job *j = &jobs->jobs[i];
		if (j->from_capture || !j->other_netns)
			continue;
		if (s->explicit_addr) {
			snprintf(s->netns_note, sizeof(s->netns_note),
				 _("pid %d runs in another network namespace; --ras is reached from fabtop's own"), j->pid);
			return;
		}
		s->netns_pid = j->pid;
		snprintf(s->netns_note, sizeof(s->netns_note), _("asked inside the network namespace of pid %d (%s)"),
			 j->pid, j->netns);
		return;
	}
}

void ras_session_jobs(struct ras_session *s, const struct fab_job_list *jobs, double now)
{
	s->njobs = jobs ? jobs->njobs : 0;
	s->youngest_age = -1;
	s->age_unknown = 0;
	s->ras_off = false;
	/* The job's ages: the processes that map libnccl, when any does (a
	 * shell or a sidecar that only carries NCCL_* settings is not one of
	 * its ranks); else every process found. */
	bool mapped = false;
	for (int i = 0; i < s->njobs; i++)
		mapped |= jobs->jobs[i].nccl_lib[0] != '\0';
	for (int i = 0; i < s->njobs; i++) {
		const struct fab_job *j = &jobs->jobs[i];
		const char *en = job_var(j, "NCCL_RAS_ENABLE");
		if (en && atoi(en) == 0 && !s->ras_off) {
			s->ras_off = true;
			snprintf(s->off_why, sizeof(s->off_why), _("pid %d sets NCCL_RAS_ENABLE=%.16s: the job runs "
				 "no RAS, so there is nothing to ask"), j->pid, en);
		}
		if (mapped && !j->nccl_lib[0])
			continue;
		if (j->age_s < 0 && !j->from_capture && !s->age_unknown)
			s->age_unknown = j->pid;
		if (j->age_s >= 0 && (s->youngest_age < 0 || j->age_s < s->youngest_age))
			s->youngest_age = j->age_s;
	}
	/* The gate adds the time since they were read (at the first poll when
	 * read at init). */
	s->ages_at = now;
}

void ras_session_init(struct ras_session *s, const struct fab_job_list *jobs, const char *ras_addr,
		      double window, bool verbose)
{
	memset(s, 0, sizeof(*s));
	s->window = window > 0 ? window : RAS_DEFAULT_WINDOW;
	s->window_given = window > 0;
	s->interval = ras_interval(s->window);
	s->timeout = 5;
	s->verbose_asked = verbose;
	s->youngest_age = -1;
	s->last_query = -1;
	s->start_t = -1;
	s->next = 0;
	s->njobs = jobs ? jobs->njobs : 0;
	pick_addr(s, jobs, ras_addr);
	pick_netns(s, jobs);
	ras_session_jobs(s, jobs, -1);
	for (int i = 0; i < s->njobs; i++) {
		const struct fab_job *j = &jobs->jobs[i];
		int v = j->nccl_lib[0] ? version_from_lib(j->nccl_lib, j->pid, !j->from_capture) : 0;
		if (v && !s->version) {
			s->version = v;
			snprintf(s->version_from, sizeof(s->version_from), _("the libnccl pid %d maps"), j->pid);
		}
	}
}

void ras_session_free(struct ras_session *s)
{
	ras_reply_free(&s->reply);
	free(s->tracks);
	for (int i = 0; i < s->nlog; i++)
		ras_xfer_free(&s->log[i]);
	free(s->log);
	memset(s, 0, sizeof(*s));
}

/* ---- tracking ---- */

static uint64_t mix(uint64_t h, int64_t v)
{
	h ^= (uint64_t)v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

static void comm_key(const struct ras_comm *c, char *key, size_t len, char *label, size_t llen)
{
	if (c->hash[0]) {
		/* NCCL's hash alone is not unique (ras_internal.h): JSON adds the
		 * secondary hash, text the section's id. */
		snprintf(key, len, "%s:%s:%s", c->hash, c->secondary, c->id);
		snprintf(label, llen, "%s%s%s", c->id, c->id[0] ? " " : "", c->hash);
	} else {
		snprintf(key, len, "%s", c->id);
		snprintf(label, llen, "%s", c->id[0] ? c->id : "?");
	}
}

/* The counts' fingerprint and total: every rank's counts when the reply
 * has them, else the count groups (the text report's MISMATCH section). */
static uint64_t comm_sig(const struct ras_comm *c, int64_t *total)
{
	uint64_t h = 1469598103934665603ULL;
	int64_t t = 0;
	bool per_rank = false;
	for (int i = 0; i < c->nranks; i++) {
		const struct ras_rank *r = &c->ranks[i];
		if (r->missing || !r->ncounts)
			continue;
		per_rank = true;
		h = mix(h, r->rank);
		for (int k = 0; k < r->ncounts; k++) {
			h = mix(h, r->counts[k].value);
			t += r->counts[k].value;
		}
	}
	if (!per_rank || c->ngroups) {
		int64_t hi = 0;
		for (int g = 0; g < c->ngroups; g++) {
			h = mix(mix(h, c->groups[g].value), c->groups[g].nranks);
			if (c->groups[g].value > hi)
				hi = c->groups[g].value;
		}
		if (!per_rank)
			t = hi;
	}
	*total = t;
	return h;
}

/* Ranks at different counts of one collective type: two count groups of
 * the same op. (The errors column's MISMATCH also covers ranks in
 * different states, which says nothing about counts.) */
static bool comm_mismatch(const struct ras_comm *c)
{
	for (int g = 0; g < c->ngroups; g++)
		for (int k = g + 1; k < c->ngroups; k++)
			if (strcmp(c->groups[g].op, c->groups[k].op) == 0)
				return true;
	return false;
}

/* A text group row ("#0") whose comms are described in detail ("#0-0")
 * stands for them: only the details are followed. */
static bool covered(const struct ras_reply *r, const struct ras_comm *c)
{
	if (r->format != RAS_FMT_TEXT || c->hash[0] || strchr(c->id, '-'))
		return false;
	size_t n = strlen(c->id);
	for (int i = 0; i < r->ncomms; i++)
		if (strncmp(r->comms[i].id, c->id, n) == 0 && r->comms[i].id[n] == '-')
			return true;
	return false;
}

static struct ras_track *track_for(struct ras_session *s, const char *key)
{
	for (int i = 0; i < s->ntracks; i++)
		if (strcmp(s->tracks[i].key, key) == 0)
			return &s->tracks[i];
	struct ras_track *n = realloc(s->tracks, (size_t)(s->ntracks + 1) * sizeof(*n));
	if (!n)
		return NULL;
	s->tracks = n;
	struct ras_track *t = &n[s->ntracks++];
	memset(t, 0, sizeof(*t));
	fab_strlcpy(t->key, key, sizeof(t->key));
	return t;
}

static enum comm_progress judge(const struct ras_track *t, double window)
{
	if (!t->counts_known)
		return CP_UNKNOWN;
	if (t->moved_once && t->last_t - t->since_t < window)
		return CP_ADVANCING;
	if (t->last_t - t->since_t < window)
		return CP_TOO_SOON;
	return t->mismatch ? CP_STUCK : CP_FROZEN_EQUAL;
}

static void track_reply(struct ras_session *s, double t)
{
	for (int i = 0; i < s->ntracks; i++) {
		s->tracks[i].in_last = false;
		s->tracks[i].dup = false;
	}
	for (int i = 0; i < s->reply.ncomms; i++) {
		const struct ras_comm *c = &s->reply.comms[i];
		if (covered(&s->reply, c))
			continue;
		char key[80], label[48];
		comm_key(c, key, sizeof(key), label, sizeof(label));
		struct ras_track *tr = track_for(s, key);
		if (!tr)
			continue;
		int64_t total;
		uint64_t sig = comm_sig(c, &total);
		bool known = c->counts_known;
		if (tr->seen && tr->last_t == t && tr->in_last) {
			/* Two communicators of this reply share the key: their counts
			 * cannot be told apart over time. */
			tr->counts_known = false;
			tr->dup = true;
			continue;
		}
		if (!tr->seen) {
			tr->first_t = tr->since_t = t;
		} else if (known && tr->counts_known && sig != tr->sig) {
			tr->since_t = t;
			tr->moved_once = true;
		} else if (known && !tr->counts_known) {
			tr->since_t = t;        /* counts seen for the first time */
		}
		fab_strlcpy(tr->label, label, sizeof(tr->label));
		tr->prev_total = tr->seen ? tr->total : total;
		tr->total = total;
		tr->sig = sig;
		tr->counts_known = known;
		tr->mismatch = comm_mismatch(c);
		tr->last_t = t;
		tr->seen++;
		tr->in_last = true;
		tr->reply_idx = i;
	}
	for (int i = 0; i < s->ntracks; i++)
		s->tracks[i].progress = s->tracks[i].in_last && !s->tracks[i].dup
					? judge(&s->tracks[i], s->window) : CP_UNKNOWN;
}

static bool reply_has_init(const struct ras_reply *r)
{
	for (int i = 0; i < r->ncomms; i++)
		if (strcmp(r->comms[i].status, "INIT") == 0)
			return true;
	return false;
}

static void log_keep(struct ras_session *s, const struct ras_xfer *x)
{
	struct ras_xfer *n = realloc(s->log, (size_t)(s->nlog + 1) * sizeof(*n));
	if (!n)
		return;
	s->log = n;
	n[s->nlog] = *x;
	n[s->nlog].reply = NULL;
	if (x->reply && (n[s->nlog].reply = malloc(x->len + 1))) {
		memcpy(n[s->nlog].reply, x->reply, x->len);
		n[s->nlog].reply[x->len] = '\0';
	} else {
		n[s->nlog].len = 0;
	}
	s->nlog++;
}

void ras_session_feed(struct ras_session *s, const struct ras_xfer *x, double t)
{
	if (s->start_t < 0)
		s->start_t = t;
	s->last_query = t;
	s->next = t + s->interval;
	s->nqueries++;
	if (s->keep_log) {
		log_keep(s, x);
		if (s->nlog)
			s->log[s->nlog - 1].t_sent = t;   /* on the session's clock */
	}
	s->last_err = x->err;
	s->last_why[0] = '\0';
	if (!s->offline)
		s->not_sent[0] = '\0';   /* it was sent ("asking ..." in the pane) */
	if (x->err || !x->len) {
		s->nfailed++;
		s->have_reply = false;
		snprintf(s->last_why, sizeof(s->last_why), "%s", x->why[0] ? x->why : _("no answer"));
		return;
	}
	struct ras_reply r;
	if (ras_parse(x->reply, x->len, &r) != 0) {
		s->nfailed++;
		s->have_reply = false;
		s->last_err = EPROTO;
		snprintf(s->last_why, sizeof(s->last_why), _("the answer is not a RAS report: %s"), r.error);
		ras_reply_free(&r);
		return;
	}
	ras_reply_free(&s->reply);
	s->reply = r;
	s->have_reply = true;
	s->reply_t = t;
	s->last_saw_init = reply_has_init(&r);
	if (r.version && s->version != r.version) {
		s->version = r.version;
		snprintf(s->version_from, sizeof(s->version_from), _("RAS's report"));
	}
	track_reply(s, t);
}

void ras_session_offline(struct ras_session *s, const struct fab_root *r)
{
	s->offline = true;
	s->next = -1;
	snprintf(s->not_sent, sizeof(s->not_sent), "%s", s->replayed
		 ? _("a capture: its recorded replies are judged, nothing is asked")
		 : _("a capture or a directory of another node: RAS is asked only on the live node (or "
		   "with --ras); this one recorded no RAS exchange"));
	(void)r;
}

static struct ras_gate_in gate_in(const struct ras_session *s, double now)
{
	struct ras_gate_in in = {
		.now = now, .last_query = s->last_query, .interval = s->interval, .window = s->window,
		.youngest_age = s->youngest_age < 0 ? -1
				: s->youngest_age + (now - (s->ages_at >= 0 ? s->ages_at : s->start_t)),
		.last_saw_init = s->last_saw_init, .version = s->version,
		.gpus = s->have_reply ? s->reply.gpus : -1,
		.ras_off = s->ras_off, .verbose_asked = s->verbose_asked,
	};
	return in;
}

bool ras_session_may_ask(struct ras_session *s, double now, enum ras_req *req, bool *json)
{
	if (s->start_t < 0)
		s->start_t = now;
	/* VERBOSE STATUS only once a STATUS told the job's size (#1762). */
	*req = s->verbose_asked && s->have_reply && s->reply.gpus >= 0 ? RAS_REQ_VERBOSE : RAS_REQ_STATUS;
	struct ras_gate_in in = gate_in(s, now);
	if (s->offline) {
		s->next = -1;
		return false;
	}
	if (!s->explicit_addr && !s->njobs) {
		snprintf(s->not_sent, sizeof(s->not_sent), _("no NCCL process here: give --ras ADDR to ask a job elsewhere"));
		s->next = -1;
		return false;
	}
	if (s->age_unknown) {
		snprintf(s->not_sent, sizeof(s->not_sent), _("when pid %d started cannot be read (/proc/%d/stat): "
			 "not asked, since it may still be initialising"), s->age_unknown, s->age_unknown);
		s->next = -1;
		return false;
	}
	if (!ras_gate(*req, &in, &s->next, s->not_sent, sizeof(s->not_sent)))
		return false;
	s->not_sent[0] = '\0';
	double nx;
	char why[8];
	*json = ras_gate(RAS_REQ_SET_FORMAT, &in, &nx, why, sizeof(why));
	return true;
}

bool ras_session_may_monitor(const struct ras_session *s, double now, bool *json, char *why, size_t len)
{
	struct ras_gate_in in = gate_in(s, now);
	double nx;
	char w[8];
	if (s->offline || (!s->explicit_addr && !s->njobs) || !s->have_reply || s->age_unknown) {
		snprintf(why, len, _("MONITOR follows a first STATUS reply on a live job"));
		return false;
	}
	if (s->last_saw_init) {
		snprintf(why, len, _("communicators are in INIT: no connection until the next window"));
		return false;
	}
	*json = ras_gate(RAS_REQ_SET_FORMAT, &in, &nx, w, sizeof(w));
	return ras_gate(RAS_REQ_MONITOR, &in, &nx, why, len);
}

int ras_session_poll(struct ras_session *s, double now)
{
	enum ras_req req;
	bool json;
	if (!ras_session_may_ask(s, now, &req, &json))
		return 0;
	struct ras_xfer x;
	ras_query(&s->addr, s->netns_pid, req, json, s->timeout, &x);
	ras_session_feed(s, &x, now);
	ras_xfer_free(&x);
	return 1;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	for (double left; (left = t - mono_s()) > 0;) {
		struct timespec ts = { (time_t)left, (long)((left - (time_t)left) * 1e9) };
		if (nanosleep(&ts, NULL) != 0 && errno != EINTR)
			return;
	}
}

/* A verdict no later query can change. */
static bool settled(enum job_verdict v)
{
	return v == JV_RAS_OFF || v == JV_NO_JOB || v == JV_UNAVAILABLE || v == JV_INIT || v == JV_DEAD_RANKS;
}

/* Live: a query at the start and one at the end of the window, each
 * through the gate; the gate's pace allows no more. A capture's record is
 * played instead when it has one and no --ras is given. */
void ras_session_run(struct ras_session *s, const struct fab_root *r, bool live_asked)
{
	if (!live_asked && r && !r->live) {
		ras_session_load(s, r);
		ras_session_offline(s, r);
		return;
	}
	double t0 = mono_s();
	ras_session_poll(s, t0);
	char why[8];
	while (!settled(ras_session_verdict(s, why, sizeof(why)))) {
		double end = t0 + s->window;
		if (s->last_query >= end)
			break;
		double at = s->next > end ? s->next : end;
		if (s->next < 0)
			break;
		sleep_until(at);
		/* The job may have restarted meanwhile: its processes' ages again. */
		if (r && r->live) {
			struct fab_job_list jobs;
			char err[128];
			if (job_scan(r, &jobs, err, sizeof(err)) == 0) {
				ras_session_jobs(s, &jobs, mono_s());
				job_list_free(&jobs);
			}
		}
		if (!ras_session_poll(s, mono_s()) && s->next < 0)
			break;
	}
}

/* ---- the verdict ---- */

static int count_dead(const struct ras_reply *r, int *missing)
{
	int dead = 0;
	*missing = 0;
	for (int i = 0; i < r->nprocs; i++)
		dead += r->procs[i].dead;
	for (int i = 0; i < r->ncomms; i++)
		*missing += r->comms[i].nmissing;
	/* NCCL names at most 10 processes; its counts are whole. A process
	 * missing without a rank named is missing all the same. */
	if (r->ndead_procs > dead)
		dead = r->ndead_procs;
	if (r->nmissing_procs > *missing)
		*missing = r->nmissing_procs;
	return dead;
}

enum job_verdict ras_session_verdict(const struct ras_session *s, char *why, size_t len)
{
	if (s->ras_off) {
		snprintf(why, len, "%s", s->off_why);
		return JV_RAS_OFF;
	}
	if (!s->njobs && !s->explicit_addr) {
		snprintf(why, len, _("no NCCL process here and no --ras address"));
		return JV_NO_JOB;
	}
	if (!s->nqueries && s->offline) {
		snprintf(why, len, "%s", s->not_sent);
		return JV_UNAVAILABLE;
	}
	if (!s->nqueries) {
		bool young = s->youngest_age >= 0 && s->youngest_age < RAS_MIN_AGE && s->next >= 0;
		snprintf(why, len, "%s", s->not_sent[0] ? s->not_sent : _("not asked yet"));
		return young ? JV_INIT : JV_UNAVAILABLE;
	}
	if (!s->have_reply) {
		snprintf(why, len, _("%s (%s:%s, from %s)"), s->last_why, s->addr.host, s->addr.port, s->addr.source);
		return JV_UNAVAILABLE;
	}
	if (s->last_saw_init) {
		snprintf(why, len, _("communicators still in INIT; no further query until the next window"));
		return JV_INIT;
	}
	int missing, dead = count_dead(&s->reply, &missing);
	if (dead || missing) {
		char a[96], b[96];
		snprintf(a, sizeof(a), P_("%d rank missing", "%d ranks missing", (unsigned long)missing), missing);
		snprintf(b, sizeof(b), P_("%d process considered dead", "%d processes considered dead",
					  (unsigned long)dead), dead);
		snprintf(why, len, _("%s, %s"), a, b);
		return JV_DEAD_RANKS;
	}
	int adv = 0, stuck = 0, frozen = 0, soon = 0, unknown = 0;
	for (int i = 0; i < s->ntracks; i++) {
		const struct ras_track *t = &s->tracks[i];
		if (!t->in_last)
			continue;
		adv += t->progress == CP_ADVANCING;
		stuck += t->progress == CP_STUCK;
		frozen += t->progress == CP_FROZEN_EQUAL;
		soon += t->progress == CP_TOO_SOON;
		unknown += t->progress == CP_UNKNOWN;
	}
	if (stuck || (frozen && !adv && !soon)) {
		if (stuck)
			snprintf(why, len, frozen ? P_("%d communicator stuck: counts frozen for %.0f s or more with "
				 "ranks at different counts; others frozen with every rank at the same count",
				 "%d communicators stuck: counts frozen for %.0f s or more with ranks at different "
				 "counts; others frozen with every rank at the same count", (unsigned long)stuck)
				 : P_("%d communicator stuck: counts frozen for %.0f s or more with ranks at different "
				 "counts", "%d communicators stuck: counts frozen for %.0f s or more with ranks at "
				 "different counts", (unsigned long)stuck), stuck, s->window);
		else
			snprintf(why, len, P_("nothing advances: %d communicator frozen for %.0f s or more with every "
				 "rank at the same count (all wait in the same collective)", "nothing advances: %d "
				 "communicators frozen for %.0f s or more with every rank at the same count (all wait "
				 "in the same collective)", (unsigned long)frozen), frozen, s->window);
		return JV_STUCK;
	}
	if (adv) {
		snprintf(why, len, unknown ? P_("%d communicator advancing; others' counts are not shown by this "
			 "report", "%d communicators advancing; others' counts are not shown by this report",
			 (unsigned long)adv) : P_("%d communicator advancing", "%d communicators advancing",
			 (unsigned long)adv), adv);
		return JV_OK;
	}
	if (soon) {
		snprintf(why, len, _("counts have not moved yet; the window (%.0f s) has not passed"), s->window);
		return JV_WATCHING;
	}
	if (s->reply.no_comms || !s->reply.ncomms) {
		snprintf(why, len, _("RAS answered but reported no communicator"));
		return JV_UNKNOWN;
	}
	snprintf(why, len, "%s", s->version && s->version < 22807 ? _("this NCCL's text report prints counts "
		 "only when ranks differ, so progress cannot be seen (JSON needs 2.28.7)") : _("this NCCL's text "
		 "report prints counts only when ranks differ, so progress cannot be seen"));
	return JV_UNKNOWN;
}

/* ---- lagging ranks ---- */

static void lag_from_rank(struct ras_lag *l, const char *comm, const struct ras_rank *r, const char *why)
{
	memset(l, 0, sizeof(*l));
	fab_strlcpy(l->comm, comm, sizeof(l->comm));
	l->rank = r->rank;
	fab_strlcpy(l->host, r->host, sizeof(l->host));
	l->pid = r->pid;
	l->gpu = r->nvml_dev >= 0 ? r->nvml_dev : r->cuda_dev;
	fab_strlcpy(l->why, why, sizeof(l->why));
}

static int64_t rank_count(const struct ras_rank *r, const char *op)
{
	for (int k = 0; k < r->ncounts; k++)
		if (strcmp(r->counts[k].op, op) == 0)
			return r->counts[k].value;
	return -1;
}

/* The ranks at the lowest count of the first op type whose ranks differ. */
static int lag_lowest(const struct ras_comm *c, const char *label, struct ras_lag *out, int n, int max)
{
	for (int g = 0; g < c->ngroups; g++) {
		const char *op = c->groups[g].op;
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		int ng = 0;
		for (int k = 0; k < c->ngroups; k++) {
			if (strcmp(c->groups[k].op, op) != 0)
				continue;
			ng++;
			lo = c->groups[k].value < lo ? c->groups[k].value : lo;
			hi = c->groups[k].value > hi ? c->groups[k].value : hi;
		}
		if (ng < 2)
			continue;
		char why[96];
		snprintf(why, sizeof(why), _("%s%sat %lld, others up to %lld"), op, op[0] ? " " : "",
			 (long long)(lo < 0 ? 0 : lo), (long long)hi);
		for (int i = 0; i < c->nranks; i++) {
			const struct ras_rank *r = &c->ranks[i];
			int64_t v = rank_count(r, op);
			if (!r->missing && r->ncounts && v == lo) {
				if (n < max)
					lag_from_rank(&out[n], label, r, why);
				n++;
			}
		}
		return n;
	}
	return n;
}

int ras_session_lagging(const struct ras_session *s, struct ras_lag *out, int max)
{
	if (!s->have_reply)
		return 0;
	int n = 0;
	const struct ras_reply *r = &s->reply;
	for (int i = 0; i < r->ncomms; i++) {
		const struct ras_comm *c = &r->comms[i];
		char key[80], label[48];
		comm_key(c, key, sizeof(key), label, sizeof(label));
		for (int k = 0; k < c->nranks; k++) {
			const struct ras_rank *rk = &c->ranks[k];
			if (!rk->missing)
				continue;
			if (n < max)
				lag_from_rank(&out[n], label, rk, rk->dead ? _("dead") : rk->unresponsive
					      ? _("missing: unresponsive") : _("missing"));
			n++;
		}
		for (int t = 0; t < s->ntracks; t++)
			if (s->tracks[t].in_last && s->tracks[t].progress == CP_STUCK &&
			    strcmp(s->tracks[t].key, key) == 0)
				n = lag_lowest(c, label, out, n, max);
	}
	for (int i = 0; i < r->nprocs; i++) {
		const struct ras_proc *p = &r->procs[i];
		bool named = false;
		for (int k = 0; k < n && k < max; k++)
			named |= out[k].pid == p->pid && strcmp(out[k].host, p->host) == 0;
		if (named)
			continue;
		if (n < max) {
			memset(&out[n], 0, sizeof(out[n]));
			out[n].rank = -1;
			out[n].pid = p->pid;
			out[n].gpu = atoi(p->gpus[0] ? p->gpus : "-1");
			fab_strlcpy(out[n].host, p->host, sizeof(out[n].host));
			snprintf(out[n].why, sizeof(out[n].why), "%s (GPU %s)", p->dead ? _("process dead") :
				 _("process missing"), p->gpus);
		}
		n++;
	}
	return n;
}

/* ---- what a capture records: fabtop/ras/exchanges.json and the replies'
 * bytes, one file each (docs/capture-format.md) ---- */

static const char *const req_names[] = { "STATUS", "VERBOSE STATUS", "MONITOR", "SET FORMAT json" };

json_t *ras_session_record(const struct ras_session *s, char (*files)[32], int max)
{
	json_t *doc = json_object(), *arr = json_array();
	json_object_set_new(doc, "host", json_string(s->addr.host));
	json_object_set_new(doc, "port", json_string(s->addr.port));
	json_object_set_new(doc, "source", json_string(s->addr.source));
	json_object_set_new(doc, "window_s", json_real(s->window));
	for (int i = 0; i < s->nlog && i < max; i++) {
		const struct ras_xfer *x = &s->log[i];
		json_t *e = json_object();
		snprintf(files[i], sizeof(files[i]), "%03d.reply", i);
		json_object_set_new(e, "t", json_real(x->t_sent - s->log[0].t_sent));
		json_object_set_new(e, "request", json_string(ras_req_name(x->req)));
		json_object_set_new(e, "server_protocol", json_string(x->server_protocol));
		json_object_set_new(e, "json_asked", json_boolean(x->json_asked));
		json_object_set_new(e, "json_refused", json_boolean(x->json_refused));
		json_object_set_new(e, "errno", json_integer(x->err));
		json_object_set_new(e, "why", json_string(x->why));
		json_object_set_new(e, "elapsed_s", json_real(x->elapsed));
		json_object_set_new(e, "truncated", json_boolean(x->truncated));
		json_object_set_new(e, "reply", x->len ? json_string(files[i]) : json_null());
		json_array_append_new(arr, e);
	}
	json_object_set_new(doc, "exchanges", arr);
	return doc;
}

static enum ras_req req_from_name(const char *n)
{
	for (int i = 0; n && i < 4; i++)
		if (strcmp(n, req_names[i]) == 0)
			return (enum ras_req)i;
	return RAS_REQ_STATUS;
}

int ras_session_load(struct ras_session *s, const struct fab_root *r)
{
	json_error_t je;
	json_t *doc = root_load_json(r, "/fabtop/ras/exchanges.json", &je);
	json_t *arr = json_object_get(doc, "exchanges");
	if (!json_is_array(arr)) {
		json_decref(doc);
		return 0;
	}
	const char *h = json_string_value(json_object_get(doc, "host"));
	const char *p = json_string_value(json_object_get(doc, "port"));
	const char *src = json_string_value(json_object_get(doc, "source"));
	if (h && p) {
		fab_strlcpy(s->addr.host, h, sizeof(s->addr.host));
		fab_strlcpy(s->addr.port, p, sizeof(s->addr.port));
	}
	snprintf(s->addr.source, sizeof(s->addr.source), _("%s (recorded by the capture)"), src ? src : "?");
	/* The window the capture watched, unless the user asks for another. */
	double w = json_number_value(json_object_get(doc, "window_s"));
	if (!s->window_given && w > 0 && w <= 86400) {
		s->window = w;
		s->interval = ras_interval(w);
	}
	size_t i;
	json_t *e;
	int n = 0;
	json_array_foreach(arr, i, e) {
		struct ras_xfer x;
		memset(&x, 0, sizeof(x));
		x.addr = s->addr;
		x.req = req_from_name(json_string_value(json_object_get(e, "request")));
		const char *sp = json_string_value(json_object_get(e, "server_protocol"));
		const char *why = json_string_value(json_object_get(e, "why"));
		const char *rf = json_string_value(json_object_get(e, "reply"));
		fab_strlcpy(x.server_protocol, sp ? sp : "", sizeof(x.server_protocol));
		fab_strlcpy(x.why, why ? why : "", sizeof(x.why));
		x.json_asked = json_is_true(json_object_get(e, "json_asked"));
		x.json_refused = json_is_true(json_object_get(e, "json_refused"));
		x.err = (int)json_integer_value(json_object_get(e, "errno"));
		x.truncated = json_is_true(json_object_get(e, "truncated"));
		double t = json_number_value(json_object_get(e, "t"));
		if (rf && !strchr(rf, '/') && rf[0] != '.') {
			char node[96];
			snprintf(node, sizeof(node), "/fabtop/ras/%s", rf);
			if (root_read_alloc(r, node, &x.reply, &x.len) != 0) {
				x.err = EIO;
				snprintf(x.why, sizeof(x.why), _("the capture's reply %s cannot be read"), rf);
			}
		}
		ras_session_feed(s, &x, t);
		ras_xfer_free(&x);
		n++;
	}
	json_decref(doc);
	s->replayed = n > 0;
	return n;
}

/* ---- the ranks on this node ---- */

/* "10.0.0.1/24" names host "10.0.0.1". */
static bool addr_is(const char *cidr, const char *host)
{
	size_t n = strcspn(cidr, "/");
	return host[0] && strlen(host) == n && strncmp(cidr, host, n) == 0;
}

bool ras_host_is_here(const char *host, const struct fab_job_list *jobs, const struct fab_model *m,
		      char *why, size_t len)
{
	for (int i = 0; m && i < m->nnetdevs; i++)
		for (int k = 0; k < m->netdevs[i].naddrs; k++)
			if (addr_is(m->netdevs[i].addrs[k], host)) {
				snprintf(why, len, _("%s is %s's address"), host, m->netdevs[i].name);
				return true;
			}
	for (int j = 0; jobs && j < jobs->njobs; j++) {
		const struct fab_job_net *net = &jobs->jobs[j].net;
		for (int i = 0; i < net->nifs; i++)
			for (int k = 0; k < net->ifs[i].naddrs; k++)
				if (addr_is(net->ifs[i].addrs[k], host)) {
					snprintf(why, len, _("%s is %s's address in pid %d's namespace"), host,
						 net->ifs[i].name, jobs->jobs[j].pid);
					return true;
				}
	}
	return false;
}

static bool any_address(const struct fab_job_list *jobs, const struct fab_model *m)
{
	for (int i = 0; m && i < m->nnetdevs; i++)
		if (m->netdevs[i].naddrs)
			return true;
	for (int j = 0; jobs && j < jobs->njobs; j++)
		for (int i = 0; i < jobs->jobs[j].net.nifs; i++)
			if (jobs->jobs[j].net.ifs[i].naddrs)
				return true;
	return false;
}

static int job_by_nspid(const struct fab_job_list *jobs, int pid)
{
	for (int j = 0; jobs && j < jobs->njobs; j++)
		if (jobs->jobs[j].nspid == pid)
			return j;
	return -1;
}

static int gpu_by_nvml(const struct fab_model *m, int idx)
{
	for (int g = 0; m && idx >= 0 && g < m->ngpus; g++)
		if (m->gpus[g].nvml_index.ok && m->gpus[g].nvml_index.v == idx)
			return g;
	/* Without NVML the model's order is the PCI order, which is NVML's
	 * default (CUDA_DEVICE_ORDER aside). */
	return m && idx >= 0 && idx < m->ngpus && !m->gpus[idx].nvml_index.ok ? idx : -1;
}

static void count_qps(struct job_local_rank *lr, const struct fab_qp_list *qps)
{
	for (int i = 0; qps && lr->pid > 0 && i < qps->n; i++) {
		const struct fab_qp *q = &qps->qps[i];
		if ((int)q->pid != lr->pid)
			continue;
		lr->nqps++;
		lr->nqps_bad += qp_state_bad(q->state);
		if (!strstr(lr->qp_devs, q->dev) && strlen(lr->qp_devs) + strlen(q->dev) + 2 < sizeof(lr->qp_devs))
			snprintf(lr->qp_devs + strlen(lr->qp_devs), sizeof(lr->qp_devs) - strlen(lr->qp_devs),
				 "%s%s", lr->qp_devs[0] ? " " : "", q->dev);
	}
}

void job_gpu_plan(const struct fab_model *m, const struct fab_topo *t, const struct fab_job *j, int g,
		  struct job_gpu_plan *out)
{
	memset(out, 0, sizeof(*out));
	out->gpu = g;
	struct fab_gdr_env env = {
		.net_gdr_level = j ? job_var(j, "NCCL_NET_GDR_LEVEL") : NULL,
		.net_gdr_c2c = j ? job_var(j, "NCCL_NET_GDR_C2C") : NULL,
		.dmabuf_enable = j ? job_var(j, "NCCL_DMABUF_ENABLE") : NULL,
	};
	gdr_nic_for_gpu(m, t, g, j ? job_var(j, "NCCL_IB_HCA") : NULL, &out->nic);
	if (out->nic.nic < 0 || gdr_judge(m, g, out->nic.nic, &env, &out->gdr) != 0) {
		out->gdr.v.v = FAB_UNKNOWN;
		snprintf(out->gdr.v.why, sizeof(out->gdr.v.why), _("no NIC for this GPU"));
	}
}

int ras_local_ranks(const struct ras_session *s, const struct fab_job_list *jobs,
		    const struct fab_model *m, const struct fab_qp_list *qps,
		    struct job_local_rank *out, int max)
{
	if (!s->have_reply)
		return 0;
	bool addrs = any_address(jobs, m);
	struct fab_topo t;
	bool topo = m && topo_build(m, &t) == 0;
	int n = 0;
	for (int c = 0; c < s->reply.ncomms; c++) {
		const struct ras_comm *cm = &s->reply.comms[c];
		char key[80], label[48];
		comm_key(cm, key, sizeof(key), label, sizeof(label));
		for (int i = 0; i < cm->nranks; i++) {
			const struct ras_rank *r = &cm->ranks[i];
			char why[96];
			int j = job_by_nspid(jobs, r->pid);
			bool here = ras_host_is_here(r->host, jobs, m, why, sizeof(why));
			if (!here && !addrs && j >= 0) {
				snprintf(why, sizeof(why), _("pid %d is an NCCL process here (no address of this node known)"),
					 r->pid);
				here = true;
			}
			bool dup = false;
			for (int k = 0; k < n && k < max; k++)
				dup |= out[k].rank == r->rank && out[k].ras_pid == r->pid;
			if (!here || dup)
				continue;
			if (n < max) {
				struct job_local_rank *lr = &out[n];
				memset(lr, 0, sizeof(*lr));
				fab_strlcpy(lr->comm, label, sizeof(lr->comm));
				lr->rank = r->rank;
				lr->ras_pid = r->pid;
				lr->job = j;
				lr->pid = j >= 0 ? jobs->jobs[j].pid : -1;
				lr->gpu = gpu_by_nvml(m, r->nvml_dev >= 0 ? r->nvml_dev : r->cuda_dev);
				fab_strlcpy(lr->why, why, sizeof(lr->why));
				count_qps(lr, qps);
				lr->plan.nic.nic = -1;
				if (topo && lr->gpu >= 0)
					job_gpu_plan(m, &t, j >= 0 ? &jobs->jobs[j] : NULL, lr->gpu, &lr->plan);
			}
			n++;
		}
	}
	if (topo)
		topo_free(&t);
	return n;
}

/* ---- the prediction against what NCCL's log says ---- */

enum nccl_gdr job_log_gdr(const struct fab_job *j, char *why, size_t len)
{
	why[0] = '\0';
	if (!j || !j->debug_file_open[0])
		return NCCL_GDR_UNKNOWN;
	FILE *f = fopen(j->debug_file_open, "re");
	if (!f) {
		snprintf(why, len, _("its log %s cannot be read: %s"), j->debug_file_open, strerror(errno));
		return NCCL_GDR_UNKNOWN;
	}
	struct nccl_log *a = calloc(1, sizeof(*a));
	if (!a) {
		fclose(f);
		return NCCL_GDR_UNKNOWN;
	}
	nccl_log_init(a);
	nccl_log_source(a, j->debug_file_open);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	/* The GDR and channel lines come at init: the first 64 MiB of a log
	 * of any size are enough, and the console never waits for more. */
	for (long off = 0; off < (64L << 20) && (n = getline(&line, &cap, f)) > 0; off += n)
		nccl_log_feed(a, line, (size_t)n);
	free(line);
	fclose(f);
	nccl_log_finish(a);
	enum nccl_gdr g = a->gdr;
	snprintf(why, len, _("pid %d's log: %lld GPU Direct RDMA Enabled / %lld Disabled line(s), %lld of %lld NET "
		 "channel(s) GDRDMA"), j->pid, a->gdr_enabled_lines, a->gdr_disabled_lines, a->ch_net_gdr,
		 a->ch_net_rdma);
	nccl_log_free(a);
	free(a);
	return g;
}

int job_gdr_vs_log(enum nccl_gdr logged, const struct job_gpu_plan *plans, int n, char *buf, size_t len)
{
	int on = 0, off = 0, unk = 0;
	for (int i = 0; i < n; i++) {
		on += plans[i].gdr.nccl == FAB_YES;
		off += plans[i].gdr.nccl == FAB_NO;
		unk += plans[i].gdr.nccl == FAB_UNKNOWN;
	}
	const char *pred = unk == n ? "unknown" : on == n ? "on" : off == n ? "off" : "partial";
	if (logged == NCCL_GDR_UNKNOWN || unk) {
		snprintf(buf, len, _("predicted %s for %d GPU(s); %s"), pred, n,
			 logged == NCCL_GDR_UNKNOWN ? _("the log does not say") : _("the prediction is incomplete"));
		return 0;
	}
	bool agree = strcmp(pred, nccl_gdr_name(logged)) == 0;
	snprintf(buf, len, agree ? _("NCCL's log says GPUDirect RDMA %s; predicted %s for %d GPU(s): they agree")
		 : _("NCCL's log says GPUDirect RDMA %s; predicted %s for %d GPU(s): they differ (check "
		     "nvidia_peermem, DMA-BUF and NCCL_NET_GDR_LEVEL against the log's NET/IB lines)"),
		 nccl_gdr_name(logged), pred, n);
	return agree ? 1 : -1;
}
