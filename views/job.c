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
#include "fabtop/ras_job.h"
#include "fabtop/rdma_res.h"
#include "fabtop/root.h"
#include "fabtop/sampler.h"
#include "fabtop/sanitize.h"
#include "fabtop/vocab.h"
#include "fabtop/view.h"
#include "job.h"

#define MAX_ROWS 64
#define MAX_EVENTS 32

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
		mon_note(jp, "MONITOR not open: %s", x.why);
		if (x.err == ENOTSUP)
			__atomic_store_n(&jp->mon_stop, 2, __ATOMIC_SEQ_CST);   /* never again */
		wake(jp);
		return NULL;
	}
	mon_note(jp, "%s", "MONITOR open: events appear below as the job's RAS sends them");
	char buf[16384];
	size_t have = 0;
	while (!__atomic_load_n(&jp->mon_stop, __ATOMIC_SEQ_CST)) {
		struct pollfd pf[2] = { { .fd = fd, .events = POLLIN }, { .fd = jp->stop[0], .events = POLLIN } };
		if (poll(pf, 2, 1000) <= 0 || (pf[1].revents & POLLIN))
			continue;
		ssize_t n = recv(fd, buf + have, sizeof(buf) - have, 0);
		if (n <= 0) {
			mon_note(jp, "%s", "the job's RAS closed the MONITOR stream");
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
		mon_note(jp, "MONITOR not opened: %s", why);
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
		snprintf(jp->s.not_sent, sizeof(jp->s.not_sent), "a scripted console (FABTOP_SCRIPT) "
			 "keeps its own clock: RAS is not asked");
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
		snprintf(jp->s.not_sent, sizeof(jp->s.not_sent), "could not start the query thread");
		jp->s.next = now + jp->s.interval;
		return true;
	}
	jp->busy = true;
	snprintf(jp->s.not_sent, sizeof(jp->s.not_sent), "asking %s:%s ...", jp->s.addr.host, jp->s.addr.port);
	return true;
}

static int job_wait_fd(struct view *v, struct view_ctx *c)
{
	struct job_pane *jp = v->priv;
	return jp && (jp->busy || jp->mon_running) ? jp->pipe[0] : -1;
}

/* ---- drawing ---- */

static void line(struct view_pen *p, int x, const char *s, int attr)
{
	view_pen_wrap(p, x, s, attr);
}

static void draw_head(struct view_pen *p, const struct job_pane *jp, const struct fab_model *m)
{
	char buf[512], why[256];
	int title = fab_attr(CP_TITLE);
	enum job_verdict v = ras_session_verdict(&jp->s, why, sizeof(why));
	int attr = v == JV_OK ? fab_attr(CP_OK) : job_verdict_exit(v) == 1 ? fab_attr(CP_ERROR) : fab_attr(CP_WARN);
	int x = view_pen_put(p, 0, "Job: ", title);
	x = view_pen_put(p, x, job_verdict_word(v), attr | A_BOLD);
	view_pen_nl(p);
	line(p, 2, why, 0);
	const struct ras_session *s = &jp->s;
	char ver[24] = "?";
	if (s->version)
		snprintf(ver, sizeof(ver), "%d.%d.%d", s->version / 10000, s->version / 100 % 100, s->version % 100);
	snprintf(buf, sizeof(buf), "RAS %s:%s (%s); NCCL %s; %d quer%s, %d failed; window %.0f s, at most one "
		 "query per %.0f s%s", s->addr.host, s->addr.port, s->addr.source, ver, s->nqueries,
		 s->nqueries == 1 ? "y" : "ies", s->nfailed, s->window, s->interval,
		 s->replayed ? "; replayed from the capture" : "");
	line(p, 2, buf, fab_attr(CP_DIM));
	if (s->netns_note[0])
		line(p, 2, s->netns_note, fab_attr(CP_DIM));
	if (s->not_sent[0]) {
		snprintf(buf, sizeof(buf), "not sent: %s", s->not_sent);
		line(p, 2, buf, fab_attr(CP_WARN));
	}
	if (s->last_why[0]) {
		snprintf(buf, sizeof(buf), "last answer: %s", s->last_why);
		line(p, 2, buf, fab_attr(CP_ERROR));
	}
	if (s->have_reply && s->reply.nodes >= 0) {
		snprintf(buf, sizeof(buf), "job: %d node(s), %d process(es), %d GPU(s)", s->reply.nodes,
			 s->reply.processes, s->reply.gpus);
		line(p, 2, buf, 0);
	}
	(void)m;
}

static void draw_comms(struct view_pen *p, const struct ras_session *s)
{
	if (!s->ntracks)
		return;
	char buf[256];
	view_pen_nl(p);
	view_pen_put(p, 0, "Communicators", fab_attr(CP_TITLE));
	view_pen_nl(p);
	for (int i = 0; i < s->ntracks; i++) {
		const struct ras_track *t = &s->tracks[i];
		const struct ras_comm *c = t->in_last ? &s->reply.comms[t->reply_idx] : NULL;
		int attr = t->progress == CP_STUCK ? fab_attr(CP_ERROR) : t->progress == CP_ADVANCING
			   ? fab_attr(CP_OK) : t->progress == CP_FROZEN_EQUAL ? fab_attr(CP_WARN) : 0;
		snprintf(buf, sizeof(buf), "%-24s %-9s %-18s %4d ranks", t->label, c ? c->status : "gone",
			 c ? c->errors : "", c ? c->size : 0);
		int x = view_pen_put(p, 2, buf, 0);
		x = view_pen_put(p, x + 2, ras_progress_word(t->progress), attr | A_BOLD);
		if (t->counts_known && t->seen > 1) {
			snprintf(buf, sizeof(buf), " (%+lld since the last query, unchanged for %.0f s)",
				 (long long)(t->total - t->prev_total), t->last_t - t->since_t);
			view_pen_put(p, x, buf, fab_attr(CP_DIM));
		} else if (!t->counts_known) {
			view_pen_put(p, x, " (counts not in this report)", fab_attr(CP_DIM));
		}
		view_pen_nl(p);
	}
}

static void draw_lagging(struct view_pen *p, const struct job_pane *jp, const struct fab_model *m)
{
	struct ras_lag lag[MAX_ROWS];
	int n = ras_session_lagging(&jp->s, lag, MAX_ROWS);
	if (!n)
		return;
	char buf[512], why[96], q[FAB_SHQ_LEN];
	view_pen_nl(p);
	view_pen_put(p, 0, "Lagging ranks", fab_attr(CP_TITLE));
	view_pen_nl(p);
	for (int i = 0; i < n && i < MAX_ROWS; i++) {
		const struct ras_lag *l = &lag[i];
		bool here = ras_host_is_here(l->host, &jp->jobs, m, why, sizeof(why));
		snprintf(buf, sizeof(buf), "%s rank %d on %s pid %d GPU %d: %s%s", l->comm, l->rank, l->host,
			 l->pid, l->gpu, l->why, here ? " (this node)" : "");
		view_pen_wrap_hang(p, 2, 6, buf, fab_attr(CP_ERROR));
		if (!here && l->host[0] && strcmp(l->host, "unknown") != 0) {
			snprintf(buf, sizeof(buf), "next: ssh %s fabtop report job --json", fab_shq(l->host, q, sizeof(q)));
			line(p, 6, buf, 0);
		}
	}
}

static void draw_plan(struct view_pen *p, const struct fab_model *m, const struct job_gpu_plan *pl)
{
	char buf[512];
	const struct fab_nccl_nic *n = &pl->nic;
	if (n->nic < 0) {
		snprintf(buf, sizeof(buf), "NIC: none (%s)", n->why);
		line(p, 6, buf, fab_attr(CP_WARN));
		return;
	}
	snprintf(buf, sizeof(buf), "NIC %s port %d (%s; %s), GPUDirect RDMA: %s (%s)", m->nics[n->nic].name,
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
	char grown[384] = "", dgrown[256] = "", buf[768];
	int n = sampler_grown(&jp->smp, i, grown, sizeof(grown));
	n += sampler_grown(&jp->smp, sampler_find(&jp->smp, dev, 0), dgrown, sizeof(dgrown));
	snprintf(buf, sizeof(buf), "%s: TX %.2f Gb/s, RX %.2f Gb/s%s%s%s%s%s",
		 jp->smp.playback ? "last recorded sample" : "now", sr->tx_gbps, sr->rx_gbps,
		 n ? (jp->smp.playback ? "; grew during the recording: " : "; grew since the pane opened: ") :
		     "; no loss or retry counter grew", grown, grown[0] && dgrown[0] ? ", " : "", dgrown, "");
	line(p, 6, buf, n ? fab_attr(CP_ERROR) : 0);
}

static void draw_local(struct view_pen *p, const struct job_pane *jp, const struct fab_model *m)
{
	struct job_local_rank lr[MAX_ROWS];
	int n = ras_local_ranks(&jp->s, &jp->jobs, m, jp->have_qps ? &jp->qps : NULL, lr, MAX_ROWS);
	if (!n)
		return;
	char buf[512];
	view_pen_nl(p);
	view_pen_put(p, 0, "Ranks on this node", fab_attr(CP_TITLE));
	view_pen_nl(p);
	for (int i = 0; i < n && i < MAX_ROWS; i++) {
		const struct job_local_rank *r = &lr[i];
		const char *bdf = r->gpu >= 0 ? m->pci[m->gpus[r->gpu].pci].bdf : "?";
		snprintf(buf, sizeof(buf), "%s rank %d pid %d: GPU%d %s", r->comm, r->rank, r->pid, r->gpu, bdf);
		line(p, 2, buf, A_BOLD);
		draw_plan(p, m, &r->plan);
		draw_activity(p, jp, m, &r->plan);
		if (jp->have_qps)
			snprintf(buf, sizeof(buf), "QPs: %d (%d in ERR/SQE)%s%s", r->nqps, r->nqps_bad,
				 r->qp_devs[0] ? " on " : "", r->qp_devs);
		else
			snprintf(buf, sizeof(buf), "QPs: unknown (%s)", jp->qp_err);
		line(p, 6, buf, r->nqps_bad ? fab_attr(CP_ERROR) : 0);
	}
}

static void draw_plans(struct view_pen *p, const struct job_pane *jp, const struct fab_model *m)
{
	if (!jp->nplans)
		return;
	char buf[512];
	view_pen_nl(p);
	view_pen_put(p, 0, jp->jobs.njobs ? "What NCCL will do here (the job's settings)"
					 : "What NCCL will do here (NCCL's defaults)", fab_attr(CP_TITLE));
	view_pen_nl(p);
	for (int g = 0; g < jp->nplans; g++) {
		const struct job_gpu_plan *pl = &jp->plans[g];
		if (pl->nic.nic < 0)
			snprintf(buf, sizeof(buf), "GPU%d: no NIC (%s)", g, pl->nic.why);
		else
			snprintf(buf, sizeof(buf), "GPU%d -> %s/%d %s, GPUDirect RDMA %s: %s", g,
				 m->nics[pl->nic.nic].name, pl->nic.port, nccl_path_word(pl->nic.path),
				 tri_name(pl->gdr.v.v), pl->gdr.v.why);
		view_pen_wrap_hang(p, 2, 6, buf, pl->gdr.v.v == FAB_NO ? fab_attr(CP_WARN) : 0);
	}
	if (jp->log_cmp[0])
		line(p, 2, jp->log_cmp, 0);
}

static void draw_procs(struct view_pen *p, const struct job_pane *jp)
{
	char buf[512];
	view_pen_nl(p);
	view_pen_put(p, 0, "NCCL processes here", fab_attr(CP_TITLE));
	view_pen_nl(p);
	if (!jp->jobs_ok) {
		line(p, 2, jp->jobs_err, fab_attr(CP_ERROR));
		return;
	}
	if (!jp->jobs.njobs)
		line(p, 2, jp->jobs.note[0] ? jp->jobs.note : "none", 0);
	for (int i = 0; i < jp->jobs.njobs; i++) {
		const struct fab_job *j = &jp->jobs.jobs[i];
		const char *addr = job_var(j, "NCCL_RAS_ADDR");
		snprintf(buf, sizeof(buf), "pid %d %s%s%.0f s old%s%s", j->pid, j->comm, j->age_s >= 0 ? ", " : "",
			 j->age_s >= 0 ? j->age_s : 0, addr ? ", NCCL_RAS_ADDR=" : "", addr ? addr : "");
		line(p, 2, buf, 0);
	}
	for (int i = 0; i < jp->findings.nfindings; i++)
		view_pen_finding(p, 2, &jp->findings.findings[i]);
}

static void draw_events(struct view_pen *p, struct job_pane *jp)
{
	char buf[512];
	pthread_mutex_lock(&jp->mu);
	int n = jp->nev, first = n > MAX_EVENTS ? n - MAX_EVENTS : 0;
	if (n || jp->mon_note[0]) {
		view_pen_nl(p);
		view_pen_put(p, 0, "RAS events (MONITOR)", fab_attr(CP_TITLE));
		view_pen_nl(p);
		if (jp->mon_note[0])
			line(p, 2, jp->mon_note, fab_attr(CP_DIM));
	}
	for (int i = first; i < n; i++) {
		const struct ras_event *e = &jp->ev[i % MAX_EVENTS];
		snprintf(buf, sizeof(buf), "[%s] %s: pid %d on %s GPU %s%s%s", e->time, e->event, e->pid, e->host,
			 e->gpus[0] ? e->gpus : "?", e->details[0] ? " " : "", e->details);
		line(p, 2, buf, strstr(e->event, "DEAD") ? fab_attr(CP_ERROR) : 0);
	}
	pthread_mutex_unlock(&jp->mu);
}

static void body(struct view_pen *p, const struct fab_model *m)
{
	const struct job_pane *jp = p->v->priv;
	if (!jp) {
		view_pen_put(p, 0, "The Job pane could not start (out of memory).", fab_attr(CP_ERROR));
		view_pen_nl(p);
		return;
	}
	draw_head(p, jp, m);
	draw_comms(p, &jp->s);
	draw_events(p, (struct job_pane *)jp);
	draw_lagging(p, jp, m);
	draw_local(p, jp, m);
	draw_plans(p, jp, m);
	draw_procs(p, jp);
}

static void job_draw(struct view *v, WINDOW *win, struct view_ctx *c)
{
	view_draw_body(v, win, c->m, body);
}

static bool job_key(struct view *v, int ch, struct view_ctx *c)
{
	return view_scroll_key(v, ch, v->page_h, 8);
}

const struct view_ops job_view_ops = {
	.name = "job",
	.title = "Job",
	.help = "The NCCL job on this node as NCCL's own RAS sees it (NCCL 2.24+): each communicator's "
		"status and whether its collective counts advance across queries; a communicator whose "
		"counts stay frozen for the confirmation window (2 min) is stuck, and its lagging ranks are "
		"named with their node, PID and GPU, with the command to run on that node. Ranks that run "
		"here are joined with their GPU and the QPs their process owns. RAS is asked only while this "
		"pane is in view, at most once per 15 s, never while the job's processes are younger than "
		"2 min or a communicator initialises, and never with a request the version table marks as "
		"having crashed jobs; the pane says when and why it did not ask. NCCL_RAS_ENABLE=0 means RAS "
		"is off. Layer: NCCL.",
	.open = job_open,
	.close = job_close,
	.show = job_show,
	.draw = job_draw,
	.key = job_key,
	.due = job_due,
	.tick = job_tick,
	.wait_fd = job_wait_fd,
};
