/*
 * ab_print.c - the A/B through the print layer (print.h), so the batch
 * text and the JSON cannot disagree: the verdict, its reason and hint on
 * top, then each run with what its log showed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "fabtop/ab.h"
#include "fabtop/i18n.h"
#include "fabtop/print.h"

#define AB_PRINT_ERRORS 3   /* first errors shown per run */

/* What a run's log shows it used, as the JSON's "transport" names it:
 * "intra-node" when NCCL named an RDMA network but set up no NET channel
 * (one node, P2P/SHM): that run never went over IB. */
static const char *transport_kind(const struct nccl_log *l)
{
	if (nccl_log_used_rdma(l) && nccl_log_no_net_channel(l))
		return "intra-node";
	return nccl_log_used_rdma(l) ? (nccl_log_used_socket(l) ? "rdma+socket" : "rdma")
	       : nccl_log_used_socket(l) ? "socket" : NULL;
}

/* The compact summary of what a run's log showed (text only: the JSON
 * carries the whole analysis under "log", as analyze-log prints it). */
static void print_transport(struct fab_out *o, const struct nccl_log *l)
{
	out_text(o, "    %s", _("transport:"));
	for (int i = 0; i < l->nnets; i++)
		out_text(o, "%s %s", i ? "," : "", l->nets[i].name);
	if (!l->nnets)
		out_text(o, "%s", _(" none named"));
	const char *kind = transport_kind(l);
	if (kind && strcmp(kind, "intra-node") == 0)
		out_text(o, _(" (named only: no NET channel, %s within one node)"), nccl_log_local_paths(l));
	else if (kind)
		out_text(o, " (%s)", strcmp(kind, "rdma+socket") == 0 ? _("RDMA and socket") :
			 strcmp(kind, "rdma") == 0 ? "RDMA" : kind);
	out_text(o, "%s", _("; HCAs"));
	for (int i = 0; i < l->nhcas; i++)
		out_text(o, " %s:%d%s%s", l->hcas[i].name, l->hcas[i].port, l->hcas[i].link_layer[0] ? "/" : "",
			 l->hcas[i].link_layer);
	if (!l->nhcas)
		out_text(o, "%s", _(" none"));
	out_text(o, _("; GPUDirect RDMA %s\n"), nccl_gdr_name(l->gdr));
	if (l->ib_reason[0])
		out_text(o, _("    IB not used: %s\n"), l->ib_reason);
}

static void print_errors(struct fab_out *o, const struct nccl_log *l)
{
	for (int i = 0; i < l->nerr && i < AB_PRINT_ERRORS; i++) {
		const struct nccl_log_error *e = &l->err[i];
		out_text(o, _("    error %s: %s"), nccl_err_kind_name(e->kind), e->text);
		if (e->count > 1)
			out_text(o, " (x%lld)", e->count);
		out_text(o, "\n");
	}
	if (l->nerr > AB_PRINT_ERRORS)
		out_text(o, _("    ... %d more distinct errors\n"), l->nerr - AB_PRINT_ERRORS);
}

static void print_tail(struct fab_out *o, const struct ab_run *r)
{
	out_open_arr(o, "last_lines");
	int first = (r->tail_next - r->tail_n + AB_TAIL_LINES) % AB_TAIL_LINES;
	for (int i = 0; i < r->tail_n; i++) {
		if (i == 0)
			out_text(o, "    %s\n", _("last lines:"));
		out_str(o, PR_ANY, NULL, "      %s\n", r->tail[(first + i) % AB_TAIL_LINES]);
	}
	out_close_arr(o);
}

static void print_run(struct fab_out *o, const struct ab_run *r, bool verbose)
{
	char label[2] = { r->label, '\0' };
	out_open_obj(o, NULL);
	out_str(o, PR_ANY, "label", _("  run %s: "), label);
	out_str(o, PR_ANY, "command", "%s\n", r->display);
	out_str(o, PR_JSON, "state", NULL, ab_state_name(r->state));
	out_text(o, "    %s", _(ab_state_name(r->state)));
	/* A failure's why is its first error, listed below in the text. */
	bool why_below = r->state == AB_FAILED && r->log.nerr > 0;
	if (out_is_json(o))
		out_str(o, PR_JSON, "why", NULL, r->why);
	else if (why_below && r->res.exit_code >= 0)
		out_text(o, _(": exit %d"), r->res.exit_code);
	else if (r->why[0] && !why_below)
		out_text(o, ": %s", r->why);
	bool ran = r->state != AB_IDLE && r->state != AB_NOT_STARTED;
	if (ran || out_is_json(o)) {
		out_num(o, PR_ANY, "elapsed_s", ", %.2f s", ran ? fab_num_of(round(r->elapsed_s * 1000) / 1000)
			: (fab_num){ 0 });
		out_int(o, PR_ANY, "lines", _(", %lld lines of output"), ran ? fab_int_of(r->out_lines)
			: (fab_int){ 0 });
	}
	bool ended = r->state == AB_COMPLETED || r->state == AB_FAILED;
	out_int(o, PR_JSON, "exit_code", NULL, ended && r->res.exit_code >= 0 ?
		fab_int_of(r->res.exit_code) : (fab_int){ 0 });
	/* Killed by a signal of its own (not the hang or time limit's). */
	out_int(o, PR_JSON, "signal", NULL, ended && r->res.term_signal ?
		fab_int_of(r->res.term_signal) : (fab_int){ 0 });
	out_text(o, "\n");
	if (!ran) {
		out_close_obj(o);
		return;
	}
	const struct nccl_log *l = &r->log;
	out_str(o, PR_JSON, "transport", NULL, transport_kind(l));
	if (out_is_json(o)) {
		out_open_obj(o, "log");
		nccl_log_print(o, l);
		out_close_obj(o);
	} else if (l->nccl_lines) {
		/* With errors listed, the log's reason is the first of them. */
		bool reason = l->reason[0] && l->nerr == 0;
		out_text(o, _("    NCCL %s, bootstrap %s; the log says %s%s%s\n"), l->version[0] ? l->version : "N/A",
			 l->bootstrap_if[0] ? l->bootstrap_if : "N/A", nccl_verdict_name(l->verdict),
			 reason ? ": " : "", reason ? l->reason : "");
		print_transport(o, l);
		for (int i = 0; i < l->ncolls; i++) {
			const struct nccl_log_coll *c = &l->colls[i];
			char lb[32];
			const char *name = l->ncolls > 1 ? nccl_coll_label(l, i, lb, sizeof(lb)) : "";
			if (c->avg_busbw.ok)
				out_text(o, _("    %s%saverage bus bandwidth %.2f GB/s\n"), name, name[0] ? " " : "",
					 c->avg_busbw.v);
			if (c->line_gbs.ok)
				out_text(o, "    %s%s%s: %s (%s)\n", name, name[0] ? " " : "",
					 nccl_coll_verdict_name(c->verdict), c->reason, c->basis);
		}
		print_errors(o, l);
	} else {
		out_text(o, "    %s\n", _("no NCCL line in the output"));
	}
	if (verbose || r->state != AB_COMPLETED || out_is_json(o))
		print_tail(o, r);
	out_close_obj(o);
}

void ab_print(struct fab_out *o, const struct ab *ab, bool verbose)
{
	out_open_obj(o, "ab");
	/* The step's verdict and hint lines already say the reason and what
	 * to do: the text gives the verdict's name and the ratio only. */
	out_str(o, PR_ANY, "verdict", "  A/B: %s", ab_verdict_name(ab->verdict));
	out_str(o, PR_JSON, "reason", NULL, ab->reason[0] ? ab->reason : NULL);
	out_str(o, PR_JSON, "hint", NULL, ab->hint);
	if (ab->ratio > 0 || out_is_json(o)) {
		out_num(o, PR_ANY, "ratio", _(", A/B ratio %.2fx"), ab->ratio > 0 ? fab_num_of(ab->ratio)
			: (fab_num){ 0 });
		/* The measure's name: an English value in JSON, translated in text. */
		out_str(o, PR_ANY, "measure", _(" by %s"), !ab->measure[0] ? NULL
			: out_is_json(o) ? ab->measure : _(ab->measure));
	}
	out_text(o, "\n");
	if (ab->launcher[0] || out_is_json(o))
		out_str(o, PR_ANY, "launcher", _("  launcher: %s\n"), ab->launcher[0] ? ab->launcher : NULL);
	out_num(o, PR_JSON, "hang_s", NULL, fab_num_of(ab->hang_s));
	out_num(o, PR_JSON, "run_timeout_s", NULL, ab->run_timeout_s > 0 ? fab_num_of(ab->run_timeout_s)
		: (fab_num){ 0 });
	out_open_arr(o, "runs");
	for (int k = 0; k < 2; k++)
		print_run(o, &ab->run[k], verbose);
	out_close_arr(o);
	out_close_obj(o);
}
