/* report_job.c - `fabtop report job`: the job as NCCL's RAS shows it over a
 * confirmation window, joined with this node (see ras_job.h for the
 * judgement, report.h for the contract). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/ras_job.h"
#include "fabtop/rdma_res.h"
#include "fabtop/report.h"
#include "fabtop/root.h"
#include "fabtop/sanitize.h"
#include "job.h"

#define MAX_SHOWN 64

static const char *rank_gpu_label(const struct fab_model *m, int g, char *buf, size_t len)
{
	if (g < 0) {
		snprintf(buf, len, "GPU ?");
		return buf;
	}
	snprintf(buf, len, "GPU%d %s", g, m->pci[m->gpus[g].pci].bdf);
	return buf;
}

/* A string that text shows only when there is one; JSON null otherwise. */
static void opt_str(struct fab_out *o, const char *key, const char *fmt, const char *v)
{
	out_str(o, v && v[0] ? PR_ANY : PR_JSON, key, fmt, v && v[0] ? v : NULL);
}

static void print_ras(struct fab_out *o, const struct ras_session *s)
{
	out_open_obj(o, "ras");
	out_str(o, PR_ANY, "host", "  RAS:      %s", s->addr.host);
	out_str(o, PR_ANY, "port", ":%s", s->addr.port);
	out_str(o, PR_ANY, "source", " (%s)\n", s->addr.source);
	opt_str(o, "namespace", "            %s\n", s->netns_note);
	char ver[24] = "";
	if (s->version)
		snprintf(ver, sizeof(ver), "%d.%d.%d", s->version / 10000, s->version / 100 % 100, s->version % 100);
	out_str(o, PR_ANY, "nccl_version", "  NCCL:     %s", ver);
	out_str(o, PR_ANY, "version_from", " (from %s)\n", s->version_from[0] ? s->version_from : NULL);
	const char *fmt = !s->have_reply ? NULL : s->reply.format == RAS_FMT_JSON ? "json" : "text";
	out_str(o, PR_ANY, "format", "  report:   %s", fmt);
	out_int(o, PR_ANY, "queries", ", %lld quer", (fab_int){ s->nqueries, true });
	out_text(o, "%s", s->nqueries == 1 ? "y" : "ies");
	out_int(o, PR_ANY, "failed", " (%lld failed)", (fab_int){ s->nfailed, true });
	out_num(o, PR_ANY, "window_s", ", window %.0f s", (fab_num){ s->window, true });
	out_num(o, PR_ANY, "interval_s", ", at most one query per %.0f s", (fab_num){ s->interval, true });
	out_bool(o, PR_JSON, "replayed", NULL, s->replayed);
	out_text(o, "%s\n", s->replayed ? " (replayed from the capture)" : "");
	opt_str(o, "not_sent", "  not sent: %s\n", s->not_sent);
	opt_str(o, "last_error", "  error:    %s\n", s->last_why);
	out_close_obj(o);
}

static void print_summary(struct fab_out *o, const struct ras_session *s)
{
	if (!s->have_reply)
		return;
	const struct ras_reply *r = &s->reply;
	out_open_obj(o, "job_summary");
	out_int(o, PR_ANY, "nodes", "  job:      %lld node(s)", (fab_int){ r->nodes, r->nodes >= 0 });
	out_int(o, PR_ANY, "processes", ", %lld process(es)", (fab_int){ r->processes, r->processes >= 0 });
	out_int(o, PR_ANY, "gpus", ", %lld GPU(s)\n", (fab_int){ r->gpus, r->gpus >= 0 });
	out_close_obj(o);
}

static void print_comms(struct fab_out *o, const struct ras_session *s)
{
	out_open_arr(o, "communicators");
	if (s->ntracks)
		out_text(o, "\nCommunicators (progress over the window)\n");
	for (int i = 0; i < s->ntracks; i++) {
		const struct ras_track *t = &s->tracks[i];
		const struct ras_comm *c = t->in_last ? &s->reply.comms[t->reply_idx] : NULL;
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "id", "  %-24s", t->label);
		out_str(o, PR_ANY, "status", " %-9s", c ? c->status : NULL);
		out_str(o, PR_ANY, "errors", " %-20s", c ? c->errors : NULL);
		out_int(o, PR_ANY, "size", " %4lld ranks", (fab_int){ c ? c->size : -1, c && c->size >= 0 });
		out_str(o, PR_ANY, "progress", "  %s", comm_progress_word(t->progress));
		out_bool(o, PR_JSON, "counts_known", NULL, t->counts_known);
		out_int(o, PR_JSON, "total", NULL, (fab_int){ t->total, t->counts_known });
		out_int(o, PR_ANY, "since_last", " (%+lld since the last query)",
			(fab_int){ t->total - t->prev_total, t->counts_known && t->seen > 1 });
		out_num(o, PR_ANY, "unchanged_s", ", unchanged for %.0f s", (fab_num){ t->last_t - t->since_t,
			t->counts_known && t->seen > 1 });
		out_bool(o, PR_JSON, "in_last_reply", NULL, t->in_last);
		out_text(o, "\n");
		out_close_obj(o);
	}
	out_close_arr(o);
}

static void print_lagging(struct fab_out *o, const struct ras_session *s, const struct fab_job_list *jobs,
			  const struct fab_model *m)
{
	struct ras_lag lag[MAX_SHOWN];
	int n = ras_session_lagging(s, lag, MAX_SHOWN);
	out_open_arr(o, "lagging");
	if (n)
		out_text(o, "\nLagging ranks\n");
	for (int i = 0; i < n && i < MAX_SHOWN; i++) {
		char why[96];
		bool here = ras_host_is_here(lag[i].host, jobs, m, why, sizeof(why));
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "communicator", "  %s", lag[i].comm);
		out_int(o, PR_ANY, "rank", " rank %lld", (fab_int){ lag[i].rank, lag[i].rank >= 0 });
		out_str(o, PR_ANY, "host", " on %s", lag[i].host);
		out_int(o, PR_ANY, "pid", " pid %lld", (fab_int){ lag[i].pid, lag[i].pid >= 0 });
		out_int(o, PR_ANY, "gpu", " GPU %lld", (fab_int){ lag[i].gpu, lag[i].gpu >= 0 });
		out_str(o, PR_ANY, "why", ": %s\n", lag[i].why);
		out_bool(o, PR_JSON, "here", NULL, here);
		char cmd[FAB_SHQ_LEN + 96] = "", q[FAB_SHQ_LEN];
		if (!here && lag[i].host[0] && strcmp(lag[i].host, "unknown") != 0)
			snprintf(cmd, sizeof(cmd), "ssh %s fabtop report job --json", fab_shq(lag[i].host, q, sizeof(q)));
		out_str(o, PR_ANY, "next", "      next: %s\n", cmd[0] ? cmd : here ? "it runs here: see the ranks below" : NULL);
		out_close_obj(o);
	}
	out_close_arr(o);
}

static void print_local(struct fab_out *o, const struct ras_session *s, const struct fab_job_list *jobs,
			const struct fab_model *m, const struct fab_qp_list *qps, const char *qp_err)
{
	struct job_local_rank lr[MAX_SHOWN];
	int n = ras_local_ranks(s, jobs, m, qps, lr, MAX_SHOWN);
	out_open_arr(o, "local_ranks");
	if (n)
		out_text(o, "\nRanks on this node\n");
	for (int i = 0; i < n && i < MAX_SHOWN; i++) {
		char g[48];
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "communicator", "  %s", lr[i].comm);
		out_int(o, PR_ANY, "rank", " rank %lld", (fab_int){ lr[i].rank, lr[i].rank >= 0 });
		out_int(o, PR_ANY, "pid", " pid %lld", (fab_int){ lr[i].pid, lr[i].pid > 0 });
		out_str(o, PR_ANY, "gpu", " %s", rank_gpu_label(m, lr[i].gpu, g, sizeof(g)));
		out_text(o, "\n");
		out_int(o, PR_ANY, "qps", "      QPs: %lld", (fab_int){ lr[i].nqps, qps != NULL && lr[i].pid > 0 });
		out_int(o, PR_ANY, "qps_bad", " (%lld in ERR/SQE)", (fab_int){ lr[i].nqps_bad, qps && lr[i].nqps });
		out_str(o, PR_ANY, "qp_hcas", " on %s", lr[i].qp_devs[0] ? lr[i].qp_devs : NULL);
		out_str(o, PR_TEXT, NULL, " (%s)", qps ? NULL : qp_err);
		out_text(o, "\n");
		out_str(o, PR_ANY, "matched", "      here because %s\n", lr[i].why);
		out_close_obj(o);
	}
	out_close_arr(o);
}

static void print_procs(struct fab_out *o, const struct fab_job_list *jobs)
{
	out_open_arr(o, "processes");
	out_text(o, "\nNCCL processes here (%s): %d\n", jobs->source, jobs->njobs);
	for (int i = 0; i < jobs->njobs; i++) {
		const struct fab_job *j = &jobs->jobs[i];
		out_open_obj(o, NULL);
		out_int(o, PR_ANY, "pid", "  pid %lld", (fab_int){ j->pid, true });
		out_int(o, PR_ANY, "nspid", " (%lld in its namespace)", (fab_int){ j->nspid, j->nspid != j->pid });
		out_str(o, PR_ANY, "comm", " %s", j->comm);
		out_num(o, PR_ANY, "age_s", ", started %.0f s ago", (fab_num){ j->age_s, j->age_s >= 0 });
		out_str(o, PR_ANY, "nccl_lib", ", %s", j->nccl_lib[0] ? j->nccl_lib : NULL);
		out_str(o, PR_ANY, "ras_addr", ", NCCL_RAS_ADDR=%s", job_var(j, "NCCL_RAS_ADDR"));
		out_text(o, "\n");
		out_close_obj(o);
	}
	out_close_arr(o);
	if (jobs->note[0])
		out_str(o, PR_ANY, "processes_note", "  %s\n", jobs->note);
}

int report_job(const struct fab_root *r, const struct fab_model *m, const struct job_report_opts *opt,
	       FILE *fp, FILE *err)
{
	struct fab_job_list jobs;
	char e[256];
	if (job_scan(r, &jobs, e, sizeof(e)) != 0) {
		fab_fprintf(err, "fabtop: %s\n", e);
		return 2;
	}
	struct ras_session s;
	ras_session_init(&s, &jobs, opt->ras, opt->window, opt->verbose);
	ras_session_run(&s, r, opt->ras != NULL);
	struct fab_qp_list qps = { 0 };
	char qerr[200] = "";
	bool have_qps = rdma_res_from_root(r, &qps, qerr, sizeof(qerr)) == 0;
	char why[256];
	enum job_verdict v = ras_session_verdict(&s, why, sizeof(why));
	struct fab_out *o = out_new(opt->json ? OUT_JSON : OUT_TEXT, fp);
	int rc = 2;
	if (o) {
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "verdict", "Job: %s", job_verdict_word(v));
		out_str(o, PR_ANY, "why", " - %s\n", why);
		print_ras(o, &s);
		print_summary(o, &s);
		print_comms(o, &s);
		print_lagging(o, &s, &jobs, m);
		print_local(o, &s, &jobs, m, have_qps ? &qps : NULL, qerr);
		print_procs(o, &jobs);
		rc = job_verdict_exit(v);
		out_int(o, PR_JSON, "exit", NULL, (fab_int){ rc, true });
		out_close_obj(o);
		if (out_free(o) != 0)
			rc = 2;
	}
	qp_list_free(&qps);
	ras_session_free(&s);
	job_list_free(&jobs);
	return rc;
}
