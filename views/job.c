/*
 * job.c - the Job pane: the NCCL job on this node as NCCL's RAS sees it.
 * Which communicator is stuck and which ranks lag (ras_job.h judges), the
 * ranks that run here with their GPU and QPs, the NCCL processes here with
 * their settings' findings, and when and why RAS was not asked.
 *
 * RAS is asked only while the pane is in view, through the gate (ras.h),
 * from a worker thread so that a slow server never freezes the console;
 * the thread only runs ras_query() and signals a pipe, the pane feeds the
 * answer to its session. A capture replays what it recorded.
 *
 * Rows that name something can be selected (v->sel): the lagging and local
 * ranks and the NCCL processes (a process), what NCCL will do per GPU (a
 * GPU), the job's NCCL settings (a setting: `fabtop learn` asks "point at
 * the setting that makes NCCL fall back to sockets") and the findings (a
 * finding). Up/Down and clicks select, the shell's `/` finds, pick() says
 * what is selected. Text a person reads is translated (i18n.h); columns are
 * padded by display width (view_pad).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fabtop/gdr.h"
#include "fabtop/i18n.h"
#include "fabtop/ras_job.h"
#include "fabtop/rdma_res.h"
#include "fabtop/root.h"
#include "fabtop/sampler.h"
#include "fabtop/sanitize.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"
#include "fabtop/view.h"
#include "job.h"

#define MAX_ROWS 64
#define MAX_EVENTS 32
#define MAX_ITEMS 256          /* selectable rows: ranks, GPUs, processes, settings, findings */
#define MAX_SETTINGS 96
#define SETTING_VALUE_W 24     /* the settings' value column, by display width */

struct job_item {
	struct fab_pick pick;
	int row, nrows;               /* content rows it was drawn on */
	char text[320];               /* as shown: what `/` searches */
};

struct job_pane {
	struct fab_job_list jobs;
	bool jobs_ok;
	char jobs_err[256];
	struct fab_model findings;    /* the jobs' settings findings (job_check_all) */
	struct ras_session s;
	struct fab_qp_list qps;
	bool qps_read, have_qps;
	char qp_err[200];
	/* the worker: one query at a time */
	pthread_t th;
	bool busy;
	int pipe[2];
	int stop[2];                  /* written to stop a worker at once (ras_cancel_on) */
	double asked_at;
	enum ras_req req;
	bool json;
	struct ras_xfer x;
	/* the ranks' ports: a capture's recording played whole, or read live
	 * once a second while the pane shows */
	struct fab_sampler smp;
	bool sampling;
	double next_sample;
	/* MONITOR (2.29+) between queries: one connection at a time, so the
	 * stream is closed before each STATUS and opened again after it */
	pthread_t mon;
	bool mon_running, mon_off;
	int mon_stop;                 /* atomic: the pane asks the thread to end */
	int x_done;                   /* atomic: the query thread has its answer */
	bool mon_json;
	pthread_mutex_t mu;           /* guards ev, nev, mon_note (the thread writes them) */
	struct ras_event ev[MAX_EVENTS];
	int nev;                      /* events seen; the last MAX_EVENTS are kept */
	char mon_note[200];
	/* what NCCL will do for every GPU here, and the job's log against it */
	struct job_gpu_plan *plans;
	int nplans;
	char log_cmp[512];
	/* the selectable rows of the last pass over the body (v->sel indexes them) */
	struct job_item items[MAX_ITEMS];
	int nitems;
	bool follow;                  /* the selection moved: keep it in view on the next draw */
};

static void wake(struct job_pane *jp)
{
	char b = 1;
	if (write(jp->pipe[1], &b, 1) < 0) {
		/* full: the pane has a wake-up pending anyway */
	}
}

static void mon_note(struct job_pane *jp, const char *fmt, const char *arg)
{
	pthread_mutex_lock(&jp->mu);
	snprintf(jp->mon_note, sizeof(jp->mon_note), fmt, arg);
	pthread_mutex_unlock(&jp->mu);
}

/* The MONITOR thread: opens the stream, then parses its events into the
 * pane's ring until the pane asks it to end or the job closes it. */
static void *monitor(void *arg)
{
	struct job_pane *jp = arg;
	struct ras_xfer x;
	ras_cancel_on(jp->stop[0]);
	int fd = ras_monitor_open(&jp->s.addr, jp->s.netns_pid, jp->mon_json, jp->s.timeout, &x);
	if (fd < 0) {
		mon_note(jp, _("MONITOR not open: %s"), x.why);
		if (x.err == ENOTSUP)
			__atomic_store_n(&jp->mon_stop, 2, __ATOMIC_SEQ_CST);   /* never again */
		wake(jp);
		return NULL;
	}
	mon_note(jp, "%s", _("MONITOR open: events appear below as the job's RAS sends them"));
	char buf[16384];
	size_t have = 0;
	while (!__atomic_load_n(&jp->mon_stop, __ATOMIC_SEQ_CST)) {
		struct pollfd pf[2] = { { .fd = fd, .events = POLLIN }, { .fd = jp->stop[0], .events = POLLIN } };
		if (poll(pf, 2, 1000) <= 0 || (pf[1].revents & POLLIN))
			continue;
		ssize_t n = recv(fd, buf + have, sizeof(buf) - have, 0);
		if (n <= 0) {
			mon_note(jp, "%s", _("the job's RAS closed the MONITOR stream"));
			break;
		}
		have += (size_t)n;
		struct ras_event ev[8];
		size_t used = 0;
		int k = ras_parse_events(buf, have, ev, 8, &used);
		pthread_mutex_lock(&jp->mu);
		for (int i = 0; i < k && i < 8; i++)
			jp->ev[jp->nev++ % MAX_EVENTS] = ev[i];
		pthread_mutex_unlock(&jp->mu);
		memmove(buf, buf + used, have - used);
		have -= used;
		if (have == sizeof(buf))
			have = 0;            /* one event longer than the buffer: dropped */
		if (k)
			wake(jp);
	}
	close(fd);
	return NULL;
}

/* Makes the running worker stop at once (its waits see the stop pipe). */
static void stop_worker(struct job_pane *jp)
{
	char b = 1;
	if (write(jp->stop[1], &b, 1) < 0) {
		/* full: a stop is already pending */
	}
}

/* The stop pipe emptied before a worker starts. */
static void stop_clear(struct job_pane *jp)
{
	char b;
	while (read(jp->stop[0], &b, 1) == 1)
		;
}

static void mon_stop(struct job_pane *jp)
{
	if (!jp->mon_running)
		return;
	if (__atomic_load_n(&jp->mon_stop, __ATOMIC_SEQ_CST) != 2)
		__atomic_store_n(&jp->mon_stop, 1, __ATOMIC_SEQ_CST);
	stop_worker(jp);
	pthread_join(jp->mon, NULL);
	jp->mon_running = false;
	stop_clear(jp);
}

static void mon_start(struct job_pane *jp, double now)
{
	char why[256];
	if (jp->mon_running || jp->mon_off || jp->pipe[0] < 0)
		return;
	if (__atomic_load_n(&jp->mon_stop, __ATOMIC_SEQ_CST) == 2) {
		jp->mon_off = true;
		return;
	}
	if (!ras_session_may_monitor(&jp->s, now, &jp->mon_json, why, sizeof(why))) {
		mon_note(jp, _("MONITOR not opened: %s"), why);
		return;
	}
	__atomic_store_n(&jp->mon_stop, 0, __ATOMIC_SEQ_CST);
	stop_clear(jp);
	jp->mon_running = pthread_create(&jp->mon, NULL, monitor, jp) == 0;
}

static void *ask(void *arg)
{
	struct job_pane *jp = arg;
	ras_cancel_on(jp->stop[0]);
	ras_query(&jp->s.addr, jp->s.netns_pid, jp->req, jp->json, jp->s.timeout, &jp->x);
	__atomic_store_n(&jp->x_done, 1, __ATOMIC_SEQ_CST);
	char b = 1;
	if (write(jp->pipe[1], &b, 1) < 0) {
		/* the pane then finds the answer on its next tick */
	}
	return NULL;
}

static void plan_all(struct job_pane *jp, const struct fab_model *m)
{
	struct fab_topo t;
	if (!m->ngpus || topo_build(m, &t) != 0)
		return;
	const struct fab_job *j = jp->jobs_ok && jp->jobs.njobs ? &jp->jobs.jobs[0] : NULL;
	jp->plans = calloc((size_t)m->ngpus, sizeof(*jp->plans));
	for (int g = 0; jp->plans && g < m->ngpus; g++)
		job_gpu_plan(m, &t, j, g, &jp->plans[g]);
	jp->nplans = jp->plans ? m->ngpus : 0;
	topo_free(&t);
	char why[256], cmp[320] = "";
	enum nccl_gdr lg = job_log_gdr(j, why, sizeof(why));
	if (jp->plans && lg != NCCL_GDR_UNKNOWN)
		job_gdr_vs_log(lg, jp->plans, jp->nplans, cmp, sizeof(cmp));
	snprintf(jp->log_cmp, sizeof(jp->log_cmp), "%s%s%s%s", cmp, cmp[0] && why[0] ? " (" : "", why,
		 cmp[0] && why[0] ? ")" : "");
}

static int job_open(struct view *v, struct view_ctx *c)
{
	struct job_pane *jp = calloc(1, sizeof(*jp));
	if (!jp)
		return -1;
	jp->pipe[0] = jp->pipe[1] = -1;
	jp->stop[0] = jp->stop[1] = -1;
	pthread_mutex_init(&jp->mu, NULL);
	jp->jobs_ok = job_scan(c->root, &jp->jobs, jp->jobs_err, sizeof(jp->jobs_err)) == 0;
	model_init(&jp->findings);
	if (jp->jobs_ok)
		job_check_all(&jp->jobs, c->m, &jp->findings);
	ras_session_init(&jp->s, jp->jobs_ok ? &jp->jobs : NULL, c->ras_addr, c->ras_window, false);
	if (c->root && !c->root->live && !c->ras_addr) {
		ras_session_load(&jp->s, c->root);
		ras_session_offline(&jp->s, c->root);
	} else if (c->virtual_clock) {
		/* A scripted console keeps its own clock, which the age rule and
		 * the pace cannot be measured on: it never asks. */
		jp->s.offline = true;
		jp->s.next = -1;
		snprintf(jp->s.not_sent, sizeof(jp->s.not_sent), "%s", _("a scripted console (FABTOP_SCRIPT) "
									  "keeps its own clock: RAS is not asked"));
	}
	if (pipe2(jp->pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		jp->pipe[0] = jp->pipe[1] = -1;
	/* Without the stop pipe a worker could not be stopped: no workers. */
	if (pipe2(jp->stop, O_CLOEXEC | O_NONBLOCK) != 0) {
		jp->stop[0] = jp->stop[1] = -1;
		for (int i = 0; i < 2; i++)
			if (jp->pipe[i] >= 0)
				close(jp->pipe[i]);
		jp->pipe[0] = jp->pipe[1] = -1;
	}
	v->priv = jp;
	return 0;
}

static void job_close(struct view *v, struct view_ctx *c)
{
	struct job_pane *jp = v->priv;
	if (!jp)
		return;
	if (jp->busy) {
		/* Its waits see the stop pipe: it ends at once, closing its socket. */
		stop_worker(jp);
		pthread_join(jp->th, NULL);
		ras_xfer_free(&jp->x);
	}
	mon_stop(jp);
	pthread_mutex_destroy(&jp->mu);
	ras_xfer_free(&jp->x);
	for (int i = 0; i < 2; i++) {
		if (jp->pipe[i] >= 0)
			close(jp->pipe[i]);
		if (jp->stop[i] >= 0)
			close(jp->stop[i]);
	}
	ras_session_free(&jp->s);
	if (jp->jobs_ok)
		job_list_free(&jp->jobs);
	model_free(&jp->findings);
	qp_list_free(&jp->qps);
	free(jp->plans);
	if (jp->sampling)
		sampler_close(&jp->smp);
	free(jp);
	v->priv = NULL;
}

static void job_show(struct view *v, struct view_ctx *c)
{
	struct job_pane *jp = v->priv;
	if (!jp || jp->qps_read)
		return;
	jp->qps_read = true;
	jp->have_qps = rdma_res_from_root(c->root, &jp->qps, jp->qp_err, sizeof(jp->qp_err)) == 0;
	plan_all(jp, c->m);      /* reads the job's log: when the pane is first shown */
	char err[256];
	if (c->root->is_capture) {
		jp->sampling = sampler_playback_open(&jp->smp, c->root, err, sizeof(err)) == 0;
		if (jp->sampling) {
			sampler_use_model(&jp->smp, c->m);
			while (sampler_playback_step(&jp->smp) == 0)
				;
		}
	} else if ((jp->sampling = sampler_open(&jp->smp, c->root, err, sizeof(err)) == 0)) {
		sampler_use_model(&jp->smp, c->m);
		sampler_read(&jp->smp, view_now(c));
		jp->next_sample = view_now(c) + 1;
	}
}

/* Before each query on a live node: the processes again, since a job that
 * restarted is young again (and its settings' findings with them). */
static void rescan(struct job_pane *jp, struct view_ctx *c, double now)
{
	if (!c->root->live)
		return;
	struct fab_job_list jobs;
	char err[256];
	if (job_scan(c->root, &jobs, err, sizeof(err)) != 0)
		return;
	if (jp->jobs_ok)
		job_list_free(&jp->jobs);
	jp->jobs = jobs;
	jp->jobs_ok = true;
	model_free(&jp->findings);
	model_init(&jp->findings);
	job_check_all(&jp->jobs, c->m, &jp->findings);
	ras_session_jobs(&jp->s, &jp->jobs, now);
}

/* The QPs the ranks' processes own change as the job runs: read again
 * after each answer on a live node. */
static void refresh_qps(struct job_pane *jp, struct view_ctx *c)
{
	if (!c->root->live || !jp->qps_read)
		return;
	qp_list_free(&jp->qps);
	memset(&jp->qps, 0, sizeof(jp->qps));
	jp->have_qps = rdma_res_from_root(c->root, &jp->qps, jp->qp_err, sizeof(jp->qp_err)) == 0;
}

static double job_due(struct view *v, struct view_ctx *c)
{
	struct job_pane *jp = v->priv;
	if (!jp || !v->current)
		return -1;
	double d = jp->sampling && !jp->smp.playback ? jp->next_sample : -1;
	if (!jp->busy && jp->pipe[0] >= 0 && jp->s.next >= 0 && (d < 0 || jp->s.next < d))
		d = jp->s.next;
	return d;
}

static bool job_tick(struct view *v, struct view_ctx *c)
{
	struct job_pane *jp = v->priv;
	if (!jp)
		return false;
	char b;
	bool woke = false;
	while (jp->pipe[0] >= 0 && read(jp->pipe[0], &b, 1) == 1)
		woke = true;
	if (jp->busy) {
		if (!__atomic_load_n(&jp->x_done, __ATOMIC_SEQ_CST))
			return woke;     /* a MONITOR event meanwhile */
		pthread_join(jp->th, NULL);
		jp->busy = false;
		ras_session_feed(&jp->s, &jp->x, jp->asked_at);
		ras_xfer_free(&jp->x);
		refresh_qps(jp, c);
		if (v->current)
			mon_start(jp, view_now(c));
		return true;
	}
	if (!v->current && jp->mon_running) {
		mon_stop(jp);   /* RAS is asked only while the pane is in view */
		return false;
	}
	if (!v->current)
		return false;
	double now = view_now(c);
	bool redraw = false;
	if (jp->sampling && !jp->smp.playback && now >= jp->next_sample) {
		sampler_read(&jp->smp, now);
		jp->next_sample = now + 1;
		redraw = true;
	}
	if (jp->pipe[0] < 0 || jp->s.next < 0 || now < jp->s.next)
		return redraw || woke;
	rescan(jp, c, now);
	if (!ras_session_may_ask(&jp->s, now, &jp->req, &jp->json))
		return true;      /* not_sent changed */
	jp->asked_at = now;
	memset(&jp->x, 0, sizeof(jp->x));
	mon_stop(jp);            /* one connection at a time */
	stop_clear(jp);
	__atomic_store_n(&jp->x_done, 0, __ATOMIC_SEQ_CST);
	if (pthread_create(&jp->th, NULL, ask, jp) != 0) {
		snprintf(jp->s.not_sent, sizeof(jp->s.not_sent), "%s", _("could not start the query thread"));
		jp->s.next = now + jp->s.interval;
		return true;
	}
	jp->busy = true;
	snprintf(jp->s.not_sent, sizeof(jp->s.not_sent), _("asking %s:%s ..."), jp->s.addr.host, jp->s.addr.port);
	return true;
}

static int job_wait_fd(struct view *v, struct view_ctx *c)
{
	struct job_pane *jp = v->priv;
	return jp && (jp->busy || jp->mon_running) ? jp->pipe[0] : -1;
}

/* ---- the rows that can be selected ---- */

/* A row the pane lets the user select: what it points at (pick, for
 * `fabtop learn`), where it was drawn (content rows, for clicks and for
 * keeping it in view) and its text as shown (the `/` search's). The list
 * is rebuilt by every pass over the body, in the order drawn. */
static struct job_item *item_begin(struct view_pen *p, struct job_pane *jp, enum fab_pick_kind kind,
				   const char *text)
{
	if (jp->nitems >= MAX_ITEMS)
		return NULL;
	struct job_item *it = &jp->items[jp->nitems++];
	memset(it, 0, sizeof(*it));
	it->pick.kind = kind;
	it->row = p->row;
	snprintf(it->text, sizeof(it->text), "%s", text);
	snprintf(it->pick.label, sizeof(it->pick.label), "%s", text);
	return it;
}

static void item_end(struct view_pen *p, struct job_item *it)
{
	if (it)
		it->nrows = p->row - it->row;
}

/* Whether the row being begun is the selected one; its mark then. */
static bool item_selected(struct view_pen *p, const struct job_pane *jp, const struct job_item *it)
{
	if (!it || (int)(it - jp->items) != p->v->sel)
		return false;
	view_pen_fixed(p, 0, ">", fab_attr(CP_SELECT) | A_BOLD);
	return true;
}

/* A selectable row of wrapped text at x: the item, its mark and its
 * highlight when selected. */
static struct job_item *item_line(struct view_pen *p, struct job_pane *jp, enum fab_pick_kind kind,
				  int x, int x2, const char *text, int attr)
{
	struct job_item *it = item_begin(p, jp, kind, text);
	bool sel = item_selected(p, jp, it);
	view_pen_wrap_hang(p, x, x2, text, sel ? attr | fab_attr(CP_SELECT) : attr);
	item_end(p, it);
	return it;
}

/* ---- drawing ---- */

static void line(struct view_pen *p, int x, const char *s, int attr)
{
	view_pen_wrap(p, x, s, attr);
}

static void title(struct view_pen *p, const char *s)
{
	view_pen_nl(p);
	view_pen_put(p, 0, s, fab_attr(CP_TITLE));
	view_pen_nl(p);
}

static void draw_head(struct view_pen *p, const struct job_pane *jp, const struct fab_model *m)
{
	char buf[512], why[256];
	int t = fab_attr(CP_TITLE);
	enum job_verdict v = ras_session_verdict(&jp->s, why, sizeof(why));
	int attr = v == JV_OK ? fab_attr(CP_OK) : job_verdict_exit(v) == 1 ? fab_attr(CP_ERROR) : fab_attr(CP_WARN);
	int x = view_pen_put(p, 0, _("Job: "), t);
	x = view_pen_put(p, x, job_verdict_word(v), attr | A_BOLD);
	view_pen_nl(p);
	line(p, 2, why, 0);
	const struct ras_session *s = &jp->s;
	char ver[24] = "?";
	if (s->version)
		snprintf(ver, sizeof(ver), "%d.%d.%d", s->version / 10000, s->version / 100 % 100, s->version % 100);
	snprintf(buf, sizeof(buf), P_("RAS %s:%s (%s); NCCL %s; %d query, %d failed; window %.0f s, at most "
				      "one query per %.0f s",
				      "RAS %s:%s (%s); NCCL %s; %d queries, %d failed; window %.0f s, at most "
				      "one query per %.0f s", (unsigned long)s->nqueries),
		 s->addr.host, s->addr.port, s->addr.source, ver, s->nqueries, s->nfailed, s->window, s->interval);
	if (s->replayed)
		fab_catf(buf, sizeof(buf), "%s", _("; replayed from the capture"));
	line(p, 2, buf, fab_attr(CP_DIM));
	if (s->netns_note[0])
		line(p, 2, s->netns_note, fab_attr(CP_DIM));
	if (s->not_sent[0]) {
		snprintf(buf, sizeof(buf), _("not sent: %s"), s->not_sent);
		line(p, 2, buf, fab_attr(CP_WARN));
	}
	if (s->last_why[0]) {
		snprintf(buf, sizeof(buf), _("last answer: %s"), s->last_why);
		line(p, 2, buf, fab_attr(CP_ERROR));
	}
	if (s->have_reply && s->reply.nodes >= 0) {
		snprintf(buf, sizeof(buf), _("job: %d node(s), %d process(es), %d GPU(s)"), s->reply.nodes,
			 s->reply.processes, s->reply.gpus);
		line(p, 2, buf, 0);
	}
	(void)m;
}

/* The communicators' columns, by display width: label, status, errors, size. */
#define COMM_LABEL_W 24
#define COMM_STATUS_W 9
#define COMM_ERRORS_W 18

static void draw_comms(struct view_pen *p, const struct ras_session *s)
{
	if (!s->ntracks)
		return;
	char buf[512], c1[128], c2[64], c3[96], ranks[48];
	title(p, _("Communicators"));
	for (int i = 0; i < s->ntracks; i++) {
		const struct ras_track *t = &s->tracks[i];
		const struct ras_comm *c = t->in_last ? &s->reply.comms[t->reply_idx] : NULL;
		int attr = t->progress == CP_STUCK ? fab_attr(CP_ERROR) : t->progress == CP_ADVANCING
			   ? fab_attr(CP_OK) : t->progress == CP_FROZEN_EQUAL ? fab_attr(CP_WARN) : 0;
		int size = c ? c->size : 0;
		snprintf(ranks, sizeof(ranks), P_("%4d rank", "%4d ranks", (unsigned long)size), size);
		snprintf(buf, sizeof(buf), "%s %s %s %s", view_pad(c1, sizeof(c1), t->label, COMM_LABEL_W, false),
			 view_pad(c2, sizeof(c2), c ? c->status : _("gone"), COMM_STATUS_W, false),
			 view_pad(c3, sizeof(c3), c ? c->errors : "", COMM_ERRORS_W, false), ranks);
		int x = view_pen_put(p, 2, buf, 0);
		x = view_pen_put(p, x + 2, ras_progress_word(t->progress), attr | A_BOLD);
		if (t->counts_known && t->seen > 1) {
			snprintf(buf, sizeof(buf), _(" (%+lld since the last query, unchanged for %.0f s)"),
				 (long long)(t->total - t->prev_total), t->last_t - t->since_t);
			view_pen_put(p, x, buf, fab_attr(CP_DIM));
		} else if (!t->counts_known) {
			view_pen_put(p, x, _(" (counts not in this report)"), fab_attr(CP_DIM));
		}
		view_pen_nl(p);
	}
}

static void draw_lagging(struct view_pen *p, struct job_pane *jp, const struct fab_model *m)
{
	struct ras_lag lag[MAX_ROWS];
	int n = ras_session_lagging(&jp->s, lag, MAX_ROWS);
	if (!n)
		return;
	char buf[512], why[96], q[FAB_SHQ_LEN];
	title(p, _("Lagging ranks"));
	for (int i = 0; i < n && i < MAX_ROWS; i++) {
		const struct ras_lag *l = &lag[i];
		bool here = ras_host_is_here(l->host, &jp->jobs, m, why, sizeof(why));
		snprintf(buf, sizeof(buf), here ? _("%s rank %d on %s pid %d GPU %d: %s (this node)")
			 : _("%s rank %d on %s pid %d GPU %d: %s"), l->comm, l->rank, l->host, l->pid, l->gpu, l->why);
		/* The pid as RAS names it: the job's PID namespace, on its node. */
		struct job_item *it = item_line(p, jp, PICK_PROCESS, 2, 6, buf, fab_attr(CP_ERROR));
		if (it)
			snprintf(it->pick.name, sizeof(it->pick.name), "%d", l->pid);
		if (!here && l->host[0] && strcmp(l->host, "unknown") != 0) {
			snprintf(buf, sizeof(buf), _("next: ssh %s fabtop report job --json"),
				 fab_shq(l->host, q, sizeof(q)));
			line(p, 6, buf, 0);
		}
	}
}

static void draw_plan(struct view_pen *p, const struct fab_model *m, const struct job_gpu_plan *pl)
{
	char buf[512];
	const struct fab_nccl_nic *n = &pl->nic;
	if (n->nic < 0) {
		snprintf(buf, sizeof(buf), _("NIC: none (%s)"), n->why);
		line(p, 6, buf, fab_attr(CP_WARN));
		return;
	}
	snprintf(buf, sizeof(buf), _("NIC %s port %d (%s; %s), GPUDirect RDMA: %s (%s)"), m->nics[n->nic].name,
		 n->port, nccl_path_word(n->path), n->why, tri_name(pl->gdr.v.v), pl->gdr.v.why);
	line(p, 6, buf, pl->gdr.v.v == FAB_NO ? fab_attr(CP_WARN) : 0);
}

/* The rank's port now (live) or at the end of the recording: its traffic
 * and the loss and retry counters that grew. */
static void draw_activity(struct view_pen *p, const struct job_pane *jp, const struct fab_model *m,
			  const struct job_gpu_plan *pl)
{
	if (!jp->sampling || pl->nic.nic < 0)
		return;
	const char *dev = m->nics[pl->nic.nic].name;
	int i = sampler_find(&jp->smp, dev, pl->nic.port);
	if (i < 0 || !jp->smp.ports[i].has_rates)
		return;
	const struct fab_series *sr = &jp->smp.ports[i];
	char grown[384] = "", dgrown[256] = "", all[704], buf[1024];
	int n = sampler_grown(&jp->smp, i, grown, sizeof(grown));
	n += sampler_grown(&jp->smp, sampler_find(&jp->smp, dev, 0), dgrown, sizeof(dgrown));
	snprintf(all, sizeof(all), "%s%s%s", grown, grown[0] && dgrown[0] ? ", " : "", dgrown);
	const char *when = jp->smp.playback ? _("last recorded sample") : _("now");
	if (!n)
		snprintf(buf, sizeof(buf), _("%s: TX %.2f Gb/s, RX %.2f Gb/s; no loss or retry counter grew"),
			 when, sr->tx_gbps, sr->rx_gbps);
	else if (jp->smp.playback)
		snprintf(buf, sizeof(buf), _("%s: TX %.2f Gb/s, RX %.2f Gb/s; grew during the recording: %s"),
			 when, sr->tx_gbps, sr->rx_gbps, all);
	else
		snprintf(buf, sizeof(buf), _("%s: TX %.2f Gb/s, RX %.2f Gb/s; grew since the pane opened: %s"),
			 when, sr->tx_gbps, sr->rx_gbps, all);
	line(p, 6, buf, n ? fab_attr(CP_ERROR) : 0);
}

static void draw_local(struct view_pen *p, struct job_pane *jp, const struct fab_model *m)
{
	struct job_local_rank lr[MAX_ROWS];
	int n = ras_local_ranks(&jp->s, &jp->jobs, m, jp->have_qps ? &jp->qps : NULL, lr, MAX_ROWS);
	if (!n)
		return;
	char buf[512];
	title(p, _("Ranks on this node"));
	for (int i = 0; i < n && i < MAX_ROWS; i++) {
		const struct job_local_rank *r = &lr[i];
		const char *bdf = r->gpu >= 0 ? m->pci[m->gpus[r->gpu].pci].bdf : "?";
		snprintf(buf, sizeof(buf), _("%s rank %d pid %d: GPU%d %s"), r->comm, r->rank, r->pid, r->gpu, bdf);
		struct job_item *it = item_line(p, jp, PICK_PROCESS, 2, 6, buf, A_BOLD);
		if (it)
			snprintf(it->pick.name, sizeof(it->pick.name), "%d", r->pid > 0 ? r->pid : r->ras_pid);
		draw_plan(p, m, &r->plan);
		draw_activity(p, jp, m, &r->plan);
		if (!jp->have_qps)
			snprintf(buf, sizeof(buf), _("QPs: unknown (%s)"), jp->qp_err);
		else if (r->qp_devs[0])
			snprintf(buf, sizeof(buf), _("QPs: %d (%d in ERR/SQE) on %s"), r->nqps, r->nqps_bad, r->qp_devs);
		else
			snprintf(buf, sizeof(buf), _("QPs: %d (%d in ERR/SQE)"), r->nqps, r->nqps_bad);
		line(p, 6, buf, r->nqps_bad ? fab_attr(CP_ERROR) : 0);
	}
}

static void draw_plans(struct view_pen *p, struct job_pane *jp, const struct fab_model *m)
{
	if (!jp->nplans)
		return;
	char buf[512];
	title(p, jp->jobs.njobs ? _("What NCCL will do here (the job's settings)")
				: _("What NCCL will do here (NCCL's defaults)"));
	for (int g = 0; g < jp->nplans; g++) {
		const struct job_gpu_plan *pl = &jp->plans[g];
		if (pl->nic.nic < 0)
			snprintf(buf, sizeof(buf), _("GPU%d: no NIC (%s)"), g, pl->nic.why);
		else
			snprintf(buf, sizeof(buf), _("GPU%d -> %s/%d %s, GPUDirect RDMA %s: %s"), g,
				 m->nics[pl->nic.nic].name, pl->nic.port, nccl_path_word(pl->nic.path),
				 tri_word(pl->gdr.v.v), pl->gdr.v.why);
		struct job_item *it = item_line(p, jp, PICK_GPU, 2, 6, buf,
						pl->gdr.v.v == FAB_NO ? fab_attr(CP_WARN) : 0);
		if (it && g < m->ngpus && m->gpus[g].pci >= 0)
			snprintf(it->pick.dev, sizeof(it->pick.dev), "%s", m->pci[m->gpus[g].pci].bdf);
	}
	if (jp->log_cmp[0])
		line(p, 2, jp->log_cmp, 0);
}

static void draw_procs(struct view_pen *p, struct job_pane *jp)
{
	char buf[512];
	title(p, _("NCCL processes here"));
	if (!jp->jobs_ok) {
		line(p, 2, jp->jobs_err, fab_attr(CP_ERROR));
		return;
	}
	if (!jp->jobs.njobs)
		line(p, 2, jp->jobs.note[0] ? jp->jobs.note : _("none"), 0);
	for (int i = 0; i < jp->jobs.njobs; i++) {
		const struct fab_job *j = &jp->jobs.jobs[i];
		const char *addr = job_var(j, "NCCL_RAS_ADDR");
		if (j->age_s >= 0)
			snprintf(buf, sizeof(buf), _("pid %d %s, %.0f s old"), j->pid, j->comm, j->age_s);
		else
			snprintf(buf, sizeof(buf), _("pid %d %s"), j->pid, j->comm);
		if (addr)
			fab_catf(buf, sizeof(buf), ", NCCL_RAS_ADDR=%s", addr);
		struct job_item *it = item_line(p, jp, PICK_PROCESS, 2, 6, buf, 0);
		if (it)
			snprintf(it->pick.name, sizeof(it->pick.name), "%d", j->pid);
	}
}

/* One NCCL setting as the job's processes have it: a name and value, and
 * in how many processes (the same job usually sets the same everywhere). */
struct setting_row {
	const struct fab_job_var *var;   /* the first process's */
	int nprocs;
};

static int setting_cmp(const void *a, const void *b)
{
	const struct setting_row *x = a, *y = b;
	int d = strcmp(x->var->name, y->var->name);
	return d ? d : strcmp(x->var->value, y->var->value);
}

/* The job's settings: every NCCL_ variable its processes have (environment
 * or nccl.conf, as job_scan kept them), one row per name and value, each
 * selectable as the setting it is (`fabtop learn` asks for one). */
static void draw_settings(struct view_pen *p, struct job_pane *jp)
{
	static struct setting_row rows[MAX_SETTINGS];   /* one draw at a time (the shell's thread) */
	int n = 0;
	if (!jp->jobs_ok || !jp->jobs.njobs)
		return;
	for (int i = 0; i < jp->jobs.njobs; i++) {
		const struct fab_job *j = &jp->jobs.jobs[i];
		for (int k = 0; k < j->nnccl; k++) {
			const struct fab_job_var *v = &j->nccl[k];
			int r = 0;
			while (r < n && !(strcmp(rows[r].var->name, v->name) == 0 &&
					  strcmp(rows[r].var->value, v->value) == 0 &&
					  strcmp(rows[r].var->source, v->source) == 0))
				r++;
			if (r < n)
				rows[r].nprocs++;
			else if (n < MAX_SETTINGS)
				rows[n++] = (struct setting_row){ .var = v, .nprocs = 1 };
		}
	}
	title(p, _("The job's NCCL settings"));
	if (!n) {
		line(p, 2, _("none set: NCCL uses its defaults"), 0);
		return;
	}
	qsort(rows, (size_t)n, sizeof(rows[0]), setting_cmp);
	int name_w = 0, value_w = 0;
	for (int r = 0; r < n; r++) {
		int a = view_strwidth(rows[r].var->name), b = view_strwidth(rows[r].var->value);
		name_w = a > name_w ? a : name_w;
		value_w = b > value_w ? b : value_w;
	}
	if (value_w > SETTING_VALUE_W)
		value_w = SETTING_VALUE_W;   /* a longer value runs on, never cut */
	int nj = jp->jobs.njobs;
	for (int r = 0; r < n; r++) {
		const struct fab_job_var *v = rows[r].var;
		char c1[128], c2[FAB_PATH_LEN + 64], where[160], buf[FAB_PATH_LEN + 512];
		const char *src = strcmp(v->source, "environment") == 0 ? _("environment") : v->source;
		if (rows[r].nprocs == nj)
			snprintf(where, sizeof(where), P_("%s, the job's only process", "%s, all %d processes",
							  (unsigned long)nj), src, nj);
		else
			snprintf(where, sizeof(where), _("%s, %d of %d processes"), src, rows[r].nprocs, nj);
		view_pad(c1, sizeof(c1), v->name, name_w, false);
		if (view_strwidth(v->value) <= value_w)
			view_pad(c2, sizeof(c2), v->value, value_w, false);
		else
			snprintf(c2, sizeof(c2), "%s", v->value);
		snprintf(buf, sizeof(buf), "%s  %s  %s", c1, c2, where);
		struct job_item *it = item_line(p, jp, PICK_SETTING, 2, 4, buf, 0);
		if (it) {
			snprintf(it->pick.name, sizeof(it->pick.name), "%s", v->name);
			snprintf(it->pick.label, sizeof(it->pick.label), "%s=%s", v->name, v->value);
		}
	}
}

/* The findings on the job's settings, each selectable by its id. */
static void draw_findings(struct view_pen *p, struct job_pane *jp)
{
	if (!jp->findings.nfindings)
		return;
	title(p, _("Findings on the job"));
	for (int i = 0; i < jp->findings.nfindings; i++) {
		const struct fab_finding *f = &jp->findings.findings[i];
		char text[FAB_NAME_LEN + 320];
		snprintf(text, sizeof(text), "%s (%s) %s", f->id, f->subject, f->message);
		struct job_item *it = item_begin(p, jp, PICK_FINDING, text);
		item_selected(p, jp, it);
		view_pen_finding(p, 2, f);
		item_end(p, it);
		if (it) {
			snprintf(it->pick.name, sizeof(it->pick.name), "%s", f->id);
			snprintf(it->pick.label, sizeof(it->pick.label), "%s (%s)", f->id, f->subject);
		}
	}
}

static void draw_events(struct view_pen *p, struct job_pane *jp)
{
	char buf[512];
	pthread_mutex_lock(&jp->mu);
	int n = jp->nev, first = n > MAX_EVENTS ? n - MAX_EVENTS : 0;
	if (n || jp->mon_note[0]) {
		title(p, _("RAS events (MONITOR)"));
		if (jp->mon_note[0])
			line(p, 2, jp->mon_note, fab_attr(CP_DIM));
	}
	for (int i = first; i < n; i++) {
		const struct ras_event *e = &jp->ev[i % MAX_EVENTS];
		snprintf(buf, sizeof(buf), _("[%s] %s: pid %d on %s GPU %s"), e->time, e->event, e->pid, e->host,
			 e->gpus[0] ? e->gpus : "?");
		if (e->details[0])
			fab_catf(buf, sizeof(buf), " %s", e->details);
		line(p, 2, buf, strstr(e->event, "DEAD") ? fab_attr(CP_ERROR) : 0);
	}
	pthread_mutex_unlock(&jp->mu);
}

static void body(struct view_pen *p, const struct fab_model *m)
{
	struct job_pane *jp = p->v->priv;
	if (!jp) {
		view_pen_put(p, 0, _("The Job pane could not start (out of memory)."), fab_attr(CP_ERROR));
		view_pen_nl(p);
		return;
	}
	jp->nitems = 0;
	draw_head(p, jp, m);
	draw_comms(p, &jp->s);
	draw_events(p, jp);
	draw_lagging(p, jp, m);
	draw_local(p, jp, m);
	draw_plans(p, jp, m);
	draw_procs(p, jp);
	draw_settings(p, jp);
	draw_findings(p, jp);
}

/* The selected row's content rows in view, once a key, a search or a
 * click moved the selection (never on its own: the first frame shows the
 * verdict at the top). */
static void follow(struct view *v, WINDOW *win, struct view_ctx *c)
{
	struct job_pane *jp = v->priv;
	int h = getmaxy(win);
	if (!jp || !jp->follow || v->sel < 0 || v->sel >= jp->nitems)
		return;
	jp->follow = false;
	const struct job_item *it = &jp->items[v->sel];
	int top = v->top;
	if (it->row < top)
		top = it->row;
	else if (it->row + (it->nrows < h ? it->nrows : 1) > top + h)
		top = it->row + (it->nrows < h ? it->nrows : 1) - h;
	if (top != v->top) {
		v->top = top;
		werase(win);   /* drawn again over the frame at the old offset */
		view_draw_body(v, win, c->m, body);
	}
}

static void job_draw(struct view *v, WINDOW *win, struct view_ctx *c)
{
	struct job_pane *jp = v->priv;
	view_draw_body(v, win, c->m, body);
	if (jp && jp->nitems && v->sel >= jp->nitems) {
		v->sel = jp->nitems - 1;   /* fewer rows after a rescan */
		werase(win);
		view_draw_body(v, win, c->m, body);
	}
	follow(v, win, c);
	v->page_h = getmaxy(win);
}

/* Up/Down (k/j) move the selection over the rows that have one and keep it
 * in view; Up on the first goes to the top (the verdict). The rest scroll. */
static bool job_key(struct view *v, int ch, struct view_ctx *c)
{
	struct job_pane *jp = v->priv;
	(void)c;
	if (jp && jp->nitems && (ch == KEY_UP || ch == 'k' || ch == KEY_DOWN || ch == 'j')) {
		int d = ch == KEY_UP || ch == 'k' ? -1 : 1;
		if (d < 0 && v->sel <= 0) {
			v->top = 0;
			return true;
		}
		v->sel = v->sel + d < 0 ? 0 : v->sel + d >= jp->nitems ? jp->nitems - 1 : v->sel + d;
		jp->follow = true;
		return true;
	}
	return view_scroll_key(v, ch, v->page_h, 8);
}

/* ---- search, mouse and learn's answers ---- */

static const char *item_text(void *arg, int i, char *buf, size_t len)
{
	const struct job_pane *jp = arg;
	snprintf(buf, len, "%s", jp->items[i].text);
	return buf;
}

static bool job_find(struct view *v, struct view_ctx *c, const char *query, int dir)
{
	struct job_pane *jp = v->priv;
	(void)c;
	if (!jp)
		return false;
	int i = view_find_row(jp->nitems, v->sel, dir, query, item_text, jp);
	if (i < 0)
		return false;
	v->sel = i;
	jp->follow = true;
	return true;
}

/* Button 1 on a selectable row selects it (a second click is Enter, which
 * this pane has no use for); other rows take no click. */
static bool job_click(struct view *v, struct view_ctx *c, int y, int x)
{
	struct job_pane *jp = v->priv;
	(void)x;
	if (!jp || y < 0)
		return false;
	int row = v->top + y;
	for (int i = 0; i < jp->nitems; i++) {
		const struct job_item *it = &jp->items[i];
		if (row < it->row || row >= it->row + (it->nrows > 0 ? it->nrows : 1))
			continue;
		if (i == v->sel)
			return job_key(v, '\n', c);
		v->sel = i;
		return true;
	}
	return false;
}

static bool job_pick(struct view *v, struct view_ctx *c, struct fab_pick *out)
{
	const struct job_pane *jp = v->priv;
	(void)c;
	if (!jp || v->sel < 0 || v->sel >= jp->nitems)
		return false;
	*out = jp->items[v->sel].pick;
	return out->kind != PICK_NONE;
}

const struct view_ops job_view_ops = {
	.name = "job",
	.title = N_("Job"),
	.help = N_("The NCCL job on this node as NCCL's own RAS sees it (NCCL 2.24+): each communicator's "
		   "status and whether its collective counts advance across queries; a communicator whose "
		   "counts stay frozen for the confirmation window (2 min) is stuck, and its lagging ranks are "
		   "named with their node, PID and GPU, with the command to run on that node. Ranks that run "
		   "here are joined with their GPU and the QPs their process owns. Below: what NCCL will do "
		   "for each GPU, the NCCL processes here, the job's NCCL settings (NCCL_* from their "
		   "environment and nccl.conf, one row per value) and the findings on them. RAS is asked "
		   "only while this pane is in view, at most once per 15 s, never while the job's processes "
		   "are younger than 2 min or a communicator initialises, and never with a request the "
		   "version table marks as having crashed jobs; the pane says when and why it did not ask. "
		   "NCCL_RAS_ENABLE=0 means RAS is off. Keys: Up/Down (j/k) or a click select a rank, GPU, "
		   "process, setting or finding; / finds one by its text; PgUp/PgDn, Home/End scroll. "
		   "Layer: NCCL."),
	.open = job_open,
	.close = job_close,
	.show = job_show,
	.draw = job_draw,
	.key = job_key,
	.due = job_due,
	.tick = job_tick,
	.wait_fd = job_wait_fd,
	.find = job_find,
	.click = job_click,
	.pick = job_pick,
};
