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
#include <fcntl.h>
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
#include "fabtop/view.h"
#include "job.h"

#define MAX_ROWS 64

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
	double asked_at;
	enum ras_req req;
	bool json;
	struct ras_xfer x;
	/* the ranks' ports: a capture's recording played whole, or read live
	 * once a second while the pane shows */
	struct fab_sampler smp;
	bool sampling;
	double next_sample;
};

static void *ask(void *arg)
{
	struct job_pane *jp = arg;
	ras_query(&jp->s.addr, jp->s.netns_pid, jp->req, jp->json, jp->s.timeout, &jp->x);
	char b = 1;
	if (write(jp->pipe[1], &b, 1) < 0) {
		/* the pane then finds the answer on its next tick */
	}
	return NULL;
}

static int job_open(struct view *v, struct view_ctx *c)
{
	struct job_pane *jp = calloc(1, sizeof(*jp));
	if (!jp)
		return -1;
	jp->pipe[0] = jp->pipe[1] = -1;
	jp->jobs_ok = job_scan(c->root, &jp->jobs, jp->jobs_err, sizeof(jp->jobs_err)) == 0;
	model_init(&jp->findings);
	if (jp->jobs_ok)
		job_check_all(&jp->jobs, c->m, &jp->findings);
	ras_session_init(&jp->s, jp->jobs_ok ? &jp->jobs : NULL, NULL, 0, false);
	if (c->root && !c->root->live) {
		ras_session_load(&jp->s, c->root);
		ras_session_offline(&jp->s, c->root);
	}
	if (pipe2(jp->pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		jp->pipe[0] = jp->pipe[1] = -1;
	v->priv = jp;
	return 0;
}

static void job_close(struct view *v, struct view_ctx *c)
{
	struct job_pane *jp = v->priv;
	if (!jp)
		return;
	if (jp->busy) {
		/* poll() and connect() are cancellation points: the query stops. */
		pthread_cancel(jp->th);
		pthread_join(jp->th, NULL);
	}
	ras_xfer_free(&jp->x);
	for (int i = 0; i < 2; i++)
		if (jp->pipe[i] >= 0)
			close(jp->pipe[i]);
	ras_session_free(&jp->s);
	if (jp->jobs_ok)
		job_list_free(&jp->jobs);
	model_free(&jp->findings);
	qp_list_free(&jp->qps);
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
	if (jp->busy) {
		char b;
		if (read(jp->pipe[0], &b, 1) != 1)
			return false;
		pthread_join(jp->th, NULL);
		jp->busy = false;
		ras_session_feed(&jp->s, &jp->x, jp->asked_at);
		ras_xfer_free(&jp->x);
		return true;
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
		return redraw;
	if (!ras_session_may_ask(&jp->s, now, &jp->req, &jp->json))
		return true;      /* not_sent changed */
	jp->asked_at = now;
	memset(&jp->x, 0, sizeof(jp->x));
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
	return jp && jp->busy ? jp->pipe[0] : -1;
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
		x = view_pen_put(p, x + 2, comm_progress_word(t->progress), attr | A_BOLD);
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

static const char *tri_word(enum fab_tri t)
{
	return t == FAB_YES ? "yes" : t == FAB_NO ? "no" : "unknown";
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
		 n->port, nccl_path_word(n->path), n->why, tri_word(pl->gdr.v.v), pl->gdr.v.why);
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
	draw_lagging(p, jp, m);
	draw_local(p, jp, m);
	draw_procs(p, jp);
}

static void job_draw(struct view *v, WINDOW *win, struct view_ctx *c)
{
	view_draw_body(v, win, c->m, body);
}

static bool job_key(struct view *v, int ch, struct view_ctx *c)
{
	struct job_pane *jp = v->priv;
	if (ch == 'a' && jp && !jp->busy) {
		/* Ask now: still only when the gate allows. */
		double now = view_now(c);
		if (jp->s.next > now)
			snprintf(jp->s.not_sent, sizeof(jp->s.not_sent), "not yet: the next query is allowed in %.0f s",
				 jp->s.next - now);
		return true;
	}
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
		"is off. 'a' asks now when the rules allow. Layer: NCCL.",
	.open = job_open,
	.close = job_close,
	.show = job_show,
	.draw = job_draw,
	.key = job_key,
	.due = job_due,
	.tick = job_tick,
	.wait_fd = job_wait_fd,
};
