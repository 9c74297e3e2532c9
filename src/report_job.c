/* report_job.c - `fabtop report job`: the job as NCCL's RAS shows it over a
 * confirmation window, joined with this node (see ras_job.h for the
 * judgement, report.h for the contract). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fabtop/i18n.h"
#include "fabtop/ras_job.h"
#include "fabtop/rdma_res.h"
#include "fabtop/sampler.h"
#include "fabtop/report.h"
#include "fabtop/root.h"
#include "fabtop/sanitize.h"
#include "fabtop/vocab.h"
#include "fabtop/topo.h"
#include "job.h"

#define MAX_SHOWN 64

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

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
	out_str(o, PR_ANY, "host", _("  RAS:      %s"), s->addr.host);
	out_str(o, PR_ANY, "port", ":%s", s->addr.port);
	out_str(o, PR_ANY, "source", " (%s)\n", s->addr.source);
	opt_str(o, "namespace", "            %s\n", s->netns_note);
	char ver[24] = "";
	if (s->version)
		snprintf(ver, sizeof(ver), "%d.%d.%d", s->version / 10000, s->version / 100 % 100, s->version % 100);
	out_str(o, PR_ANY, "nccl_version", "  NCCL:     %s", ver[0] ? ver : _("unknown"));
	opt_str(o, "version_from", _(" (from %s)"), s->version_from);
	const struct ras_reply *r = s->have_reply ? &s->reply : NULL;
	out_int(o, r && r->cuda_runtime >= 0 ? PR_ANY : PR_JSON, "cuda_runtime", _("; CUDA runtime %lld"),
		(fab_int){ r ? r->cuda_runtime : 0, r && r->cuda_runtime >= 0 });
	out_int(o, r && r->cuda_driver >= 0 ? PR_ANY : PR_JSON, "cuda_driver", _(", driver %lld"),
		(fab_int){ r ? r->cuda_driver : 0, r && r->cuda_driver >= 0 });
	out_text(o, "\n");
	/* Lines or keys this fabtop does not know: a newer NCCL, said, never an error. */
	out_int(o, r && r->unknown_lines ? PR_ANY : PR_JSON, "unknown_lines",
		_("  note:     %lld line(s) or key(s) of the report unknown to this fabtop (a newer NCCL?)\n"),
		(fab_int){ r ? r->unknown_lines : 0, r != NULL });
	const char *fmt = !s->have_reply ? NULL : s->reply.format == RAS_FMT_JSON ? "json" : "text";
	out_str(o, PR_ANY, "format", _("  report:   %s"), fmt ? fmt : _("none"));
	out_int(o, PR_JSON, "queries", NULL, (fab_int){ s->nqueries, true });
	out_text(o, P_(", %d query", ", %d queries", (unsigned long)s->nqueries), s->nqueries);
	out_int(o, PR_ANY, "failed", _(" (%lld failed)"), (fab_int){ s->nfailed, true });
	out_num(o, PR_ANY, "window_s", _(", window %.0f s"), (fab_num){ s->window, true });
	out_num(o, PR_ANY, "interval_s", _(", at most one query per %.0f s"), (fab_num){ s->interval, true });
	out_bool(o, PR_JSON, "replayed", NULL, s->replayed);
	out_text(o, "%s\n", s->replayed ? _(" (replayed from the capture)") : "");
	opt_str(o, "not_sent", _("  not sent: %s\n"), s->not_sent);
	opt_str(o, "last_error", _("  error:    %s\n"), s->last_why);
	out_close_obj(o);
}

static void print_summary(struct fab_out *o, const struct ras_session *s)
{
	if (!s->have_reply)
		return;
	const struct ras_reply *r = &s->reply;
	out_open_obj(o, "job_summary");
	out_int(o, PR_ANY, "nodes", _("  job:      %lld node(s)"), (fab_int){ r->nodes, r->nodes >= 0 });
	out_int(o, PR_ANY, "processes", _(", %lld process(es)"), (fab_int){ r->processes, r->processes >= 0 });
	out_int(o, PR_ANY, "gpus", _(", %lld GPU(s)\n"), (fab_int){ r->gpus, r->gpus >= 0 });
	out_close_obj(o);
}

static void print_comms(struct fab_out *o, const struct ras_session *s)
{
	out_open_arr(o, "communicators");
	if (s->ntracks)
		out_text(o, _("\nCommunicators (progress over the window)\n"));
	for (int i = 0; i < s->ntracks; i++) {
		const struct ras_track *t = &s->tracks[i];
		const struct ras_comm *c = t->in_last ? &s->reply.comms[t->reply_idx] : NULL;
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "id", "  %-24s", t->label);
		out_str(o, PR_ANY, "status", " %-9s", c ? c->status : NULL);
		out_str(o, PR_ANY, "errors", " %-20s", c ? c->errors : NULL);
		out_int(o, PR_ANY, "size", _(" %4lld ranks"), (fab_int){ c ? c->size : -1, c && c->size >= 0 });
		out_str(o, PR_JSON, "progress", NULL, ras_progress_word(t->progress));
		out_text(o, "  %s", _(ras_progress_word(t->progress)));
		out_bool(o, PR_JSON, "counts_known", NULL, t->counts_known);
		out_int(o, PR_JSON, "total", NULL, (fab_int){ t->total, t->counts_known });
		out_int(o, PR_ANY, "since_last", _(" (%+lld since the last query)"),
			(fab_int){ t->total - t->prev_total, t->counts_known && t->seen > 1 });
		out_num(o, PR_ANY, "unchanged_s", _(", unchanged for %.0f s"), (fab_num){ t->last_t - t->since_t,
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
		out_text(o, _("\nLagging ranks\n"));
	for (int i = 0; i < n && i < MAX_SHOWN; i++) {
		char why[96];
		bool here = ras_host_is_here(lag[i].host, jobs, m, why, sizeof(why));
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "communicator", "  %s", lag[i].comm);
		out_int(o, PR_ANY, "rank", " rank %lld", (fab_int){ lag[i].rank, lag[i].rank >= 0 });
		out_str(o, PR_ANY, "host", _(" on %s"), lag[i].host);
		out_int(o, PR_ANY, "pid", " pid %lld", (fab_int){ lag[i].pid, lag[i].pid >= 0 });
		out_int(o, PR_ANY, "gpu", " GPU %lld", (fab_int){ lag[i].gpu, lag[i].gpu >= 0 });
		out_str(o, PR_ANY, "why", ": %s\n", lag[i].why);
		out_bool(o, PR_JSON, "here", NULL, here);
		char cmd[FAB_SHQ_LEN + 96] = "", q[FAB_SHQ_LEN];
		if (!here && lag[i].host[0] && strcmp(lag[i].host, "unknown") != 0)
			snprintf(cmd, sizeof(cmd), "ssh %s fabtop report job --json", fab_shq(lag[i].host, q, sizeof(q)));
		out_str(o, PR_ANY, "next", _("      next: %s\n"), cmd[0] ? cmd : here ? _("it runs here: see the ranks below") : NULL);
		out_close_obj(o);
	}
	out_close_arr(o);
}

/* One GPU's NIC, NCCL path type and GPUDirect RDMA, the one way both the
 * rank list and the plan print it. */
static void print_plan_of(struct fab_out *o, const struct fab_model *m, const struct job_gpu_plan *pl,
			  const char *indent)
{
	const struct fab_nccl_nic *n = &pl->nic;
	out_open_obj(o, "nccl");
	out_text(o, "%s", indent);
	out_str(o, PR_ANY, "nic", "NIC %s", n->nic >= 0 ? m->nics[n->nic].name : NULL);
	out_int(o, PR_ANY, "port", " port %lld", (fab_int){ n->port, n->nic >= 0 });
	out_str(o, PR_ANY, "path", " (%s", nccl_path_word(n->path));
	out_str(o, PR_ANY, "nic_why", "; %s)", n->why);
	out_int(o, PR_JSON, "ties", NULL, (fab_int){ n->ties, n->nic >= 0 });
	out_str(o, PR_ANY, "gdr", _(", GPUDirect RDMA: %s"), tri_name(pl->gdr.v.v));
	out_str(o, PR_ANY, "gdr_why", " (%s)\n", pl->gdr.v.why);
	out_str(o, PR_JSON, "nccl_gdr", NULL, tri_name(pl->gdr.nccl));
	out_close_obj(o);
}

/* What NCCL will do for every GPU here, under the first job's settings. */
static void print_plan(struct fab_out *o, const struct fab_model *m, const struct fab_job_list *jobs)
{
	struct fab_topo t;
	out_open_arr(o, "nccl_plan");
	if (m->ngpus && topo_build(m, &t) == 0) {
		const struct fab_job *j = jobs->njobs ? &jobs->jobs[0] : NULL;
		out_text(o, _("\nWhat NCCL will do here (%s)\n"), j ? _("the job's settings") : _("NCCL's defaults"));
		struct job_gpu_plan *plans = calloc((size_t)m->ngpus, sizeof(*plans));
		for (int g = 0; plans && g < m->ngpus; g++) {
			char gl[48];
			job_gpu_plan(m, &t, j, g, &plans[g]);
			out_open_obj(o, NULL);
			out_str(o, PR_ANY, "gpu", "  %s\n", rank_gpu_label(m, g, gl, sizeof(gl)));
			print_plan_of(o, m, &plans[g], "      ");
			out_close_obj(o);
		}
		out_close_arr(o);
		/* Set against what the job's own log says, when fabtop can read it. */
		char lwhy[256] = "", cmp[320] = "";
		enum nccl_gdr lg = job_log_gdr(j, lwhy, sizeof(lwhy));
		if (plans && lg != NCCL_GDR_UNKNOWN)
			job_gdr_vs_log(lg, plans, m->ngpus, cmp, sizeof(cmp));
		out_open_obj(o, "gdr_vs_log");
		out_str(o, PR_JSON, "log", NULL, nccl_gdr_name(lg));
		opt_str(o, "compared", "  %s", cmp);
		opt_str(o, "log_why", cmp[0] ? " (%s)\n" : "  %s\n", lwhy);
		out_close_obj(o);
		free(plans);
		topo_free(&t);
		return;
	}
	out_close_arr(o);
}

/* The port NCCL uses for a rank: its traffic and the loss and retry
 * counters that grew over the window (the sampler's first and last read). */
static void print_port_activity(struct fab_out *o, const struct fab_model *m, const struct fab_sampler *smp,
				const struct job_gpu_plan *pl)
{
	if (!smp || pl->nic.nic < 0)
		return;
	int i = sampler_find(smp, m->nics[pl->nic.nic].name, pl->nic.port);
	if (i < 0 || smp->tick < 2)
		return;
	const struct fab_series *p = &smp->ports[i];
	char grown[512];
	int n = sampler_grown(smp, i, grown, sizeof(grown));
	int dev = sampler_find(smp, m->nics[pl->nic.nic].name, 0);
	char dgrown[512] = "";
	if (dev >= 0)
		n += sampler_grown(smp, dev, dgrown, sizeof(dgrown));
	out_open_obj(o, "port_activity");
	out_text(o, "      %s:", smp->playback ? _("last recorded sample") : _("over the window"));
	out_num(o, PR_JSON, "seconds", NULL, (fab_num){ smp->dt, smp->dt > 0 });
	out_bool(o, PR_JSON, "recorded", NULL, smp->playback);
	out_num(o, PR_ANY, "tx_gbps", " TX %.2f Gb/s", (fab_num){ p->tx_gbps, p->has_rates });
	out_num(o, PR_ANY, "rx_gbps", ", RX %.2f Gb/s", (fab_num){ p->rx_gbps, p->has_rates });
	out_int(o, PR_JSON, "trouble_counters_grown", NULL, (fab_int){ n, true });
	out_text(o, "%s", grown[0] && smp->playback ? _("; grew during the recording:") : grown[0] ? _("; grew:") : "");
	out_str(o, grown[0] ? PR_ANY : PR_JSON, "grown", " %s", grown[0] ? grown : NULL);
	out_str(o, dgrown[0] ? PR_ANY : PR_JSON, "device_grown", _("; device: %s"), dgrown[0] ? dgrown : NULL);
	out_text(o, "%s\n", n ? "" : _("; no loss or retry counter grew"));
	out_close_obj(o);
}

static void print_local(struct fab_out *o, const struct ras_session *s, const struct fab_job_list *jobs,
			const struct fab_model *m, const struct fab_qp_list *qps, const char *qp_err,
			const struct fab_sampler *smp)
{
	struct job_local_rank lr[MAX_SHOWN];
	int n = ras_local_ranks(s, jobs, m, qps, lr, MAX_SHOWN);
	out_open_arr(o, "local_ranks");
	if (n)
		out_text(o, _("\nRanks on this node\n"));
	for (int i = 0; i < n && i < MAX_SHOWN; i++) {
		char g[48];
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "communicator", "  %s", lr[i].comm);
		out_int(o, PR_ANY, "rank", " rank %lld", (fab_int){ lr[i].rank, lr[i].rank >= 0 });
		out_int(o, PR_ANY, "pid", " pid %lld", (fab_int){ lr[i].pid, lr[i].pid > 0 });
		out_str(o, PR_ANY, "gpu", " %s", rank_gpu_label(m, lr[i].gpu, g, sizeof(g)));
		out_text(o, "\n");
		print_plan_of(o, m, &lr[i].plan, "      ");
		print_port_activity(o, m, smp, &lr[i].plan);
		out_int(o, PR_ANY, "qps", _("      QPs: %lld"), (fab_int){ lr[i].nqps, qps != NULL && lr[i].pid > 0 });
		out_int(o, PR_ANY, "qps_bad", _(" (%lld in ERR/SQE)"), (fab_int){ lr[i].nqps_bad, qps && lr[i].nqps });
		out_str(o, PR_ANY, "qp_hcas", _(" on %s"), lr[i].qp_devs[0] ? lr[i].qp_devs : NULL);
		if (!qps)
			out_text(o, " (%s)", qp_err);
		out_text(o, "\n");
		out_str(o, PR_ANY, "matched", _("      here because %s\n"), lr[i].why);
		out_close_obj(o);
	}
	out_close_arr(o);
}

static void print_procs(struct fab_out *o, const struct fab_job_list *jobs)
{
	out_open_arr(o, "processes");
	out_text(o, _("\nNCCL processes here (%s): %d\n"), jobs->source, jobs->njobs);
	for (int i = 0; i < jobs->njobs; i++) {
		const struct fab_job *j = &jobs->jobs[i];
		out_open_obj(o, NULL);
		out_int(o, PR_ANY, "pid", "  pid %lld", (fab_int){ j->pid, true });
		out_int(o, j->nspid != j->pid ? PR_ANY : PR_JSON, "nspid", _(" (%lld in its namespace)"),
			(fab_int){ j->nspid, true });
		out_str(o, PR_ANY, "comm", " %s", j->comm);
		out_num(o, PR_ANY, "age_s", _(", started %.0f s ago"), (fab_num){ j->age_s, j->age_s >= 0 });
		opt_str(o, "nccl_lib", ", %s", j->nccl_lib);
		opt_str(o, "ras_addr", ", NCCL_RAS_ADDR=%s", job_var(j, "NCCL_RAS_ADDR"));
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
	/* The ports' counters over the same window: read before and after. */
	struct fab_sampler smp;
	char serr[256];
	memset(&smp, 0, sizeof(smp));
	bool sampling;
	if (r->is_capture) {
		/* A capture's recorded samples, all of them: the recording is the window. */
		sampling = sampler_playback_open(&smp, r, serr, sizeof(serr)) == 0;
		if (sampling) {
			sampler_use_model(&smp, m);
			while (sampler_playback_step(&smp) == 0)
				;
		}
	} else if ((sampling = sampler_open(&smp, r, serr, sizeof(serr)) == 0)) {
		sampler_use_model(&smp, m);
		sampler_read(&smp, mono_now());
	}
	ras_session_run(&s, r, opt->ras != NULL);
	if (sampling && !smp.playback)
		sampler_read(&smp, mono_now());
	struct fab_qp_list qps = { 0 };
	char qerr[200] = "";
	bool have_qps = rdma_res_from_root(r, &qps, qerr, sizeof(qerr)) == 0;
	char why[256];
	enum job_verdict v = ras_session_verdict(&s, why, sizeof(why));
	struct fab_out *o = out_new(opt->json ? OUT_JSON : OUT_TEXT, fp);
	int rc = 2;
	if (o) {
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "verdict", _("Job: %s"), job_verdict_word(v));
		out_str(o, PR_ANY, "why", " - %s\n", why);
		print_ras(o, &s);
		print_summary(o, &s);
		print_comms(o, &s);
		print_lagging(o, &s, &jobs, m);
		print_local(o, &s, &jobs, m, have_qps ? &qps : NULL, qerr, sampling ? &smp : NULL);
		print_plan(o, m, &jobs);
		print_procs(o, &jobs);
		rc = job_verdict_exit(v);
		out_int(o, PR_JSON, "exit", NULL, (fab_int){ rc, true });
		out_close_obj(o);
		if (out_free(o) != 0)
			rc = 2;
	}
	qp_list_free(&qps);
	if (sampling)
		sampler_close(&smp);
	ras_session_free(&s);
	job_list_free(&jobs);
	return rc;
}
