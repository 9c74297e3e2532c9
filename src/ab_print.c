/*
 * ab_print.c - the A/B through the print layer (print.h), so the batch
 * text and the JSON cannot disagree: the verdict, its reason and hint on
 * top, then each run with what its log showed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "fabtop/ab.h"
#include "fabtop/print.h"

#define AB_PRINT_ERRORS 3   /* first errors shown per run */

static void print_transport(struct fab_out *o, const struct nccl_log *l)
{
	out_open_arr(o, "networks");
	for (int i = 0; i < l->nnets; i++)
		out_str(o, PR_ANY, NULL, i ? ", %s" : "    transport: %s", l->nets[i].name);
	out_close_arr(o);
	if (!l->nnets)
		out_text(o, "    transport: none named");
	const char *kind = nccl_log_used_rdma(l) ? (nccl_log_used_socket(l) ? "RDMA and socket" : "RDMA")
			   : nccl_log_used_socket(l) ? "socket" : NULL;
	out_str(o, PR_ANY, "transport", " (%s)", kind);
	out_text(o, "; HCAs");
	out_open_arr(o, "hcas");
	for (int i = 0; i < l->nhcas; i++) {
		const struct nccl_log_hca *h = &l->hcas[i];
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "name", " %s", h->name);
		out_int(o, PR_ANY, "port", ":%lld", fab_int_of(h->port));
		if (h->link_layer[0] || out_is_json(o))
			out_str(o, PR_ANY, "link_layer", "/%s", h->link_layer);
		out_close_obj(o);
	}
	out_close_arr(o);
	if (!l->nhcas)
		out_text(o, " none");
	out_str(o, PR_ANY, "gdr", "; GPUDirect RDMA %s\n", nccl_gdr_name(l->gdr));
	if (l->ib_reason[0] || out_is_json(o))
		out_str(o, PR_ANY, "ib_reason", "    IB not used: %s\n", l->ib_reason);
}

static void print_errors(struct fab_out *o, const struct nccl_log *l)
{
	out_int(o, PR_JSON, "error_lines", NULL, fab_int_of(l->errors));
	out_open_arr(o, "errors");
	for (int i = 0; i < l->nerr && i < AB_PRINT_ERRORS; i++) {
		const struct nccl_log_error *e = &l->err[i];
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "kind", "    error %s", nccl_err_kind_name(e->kind));
		out_str(o, PR_ANY, "text", ": %s", e->text);
		out_int(o, PR_JSON, "count", NULL, fab_int_of(e->count));
		if (e->count > 1)
			out_text(o, " (x%lld)", e->count);
		out_text(o, "\n");
		out_close_obj(o);
	}
	out_close_arr(o);
	if (l->nerr > AB_PRINT_ERRORS)
		out_text(o, "    ... %d more distinct errors\n", l->nerr - AB_PRINT_ERRORS);
}

static void print_tail(struct fab_out *o, const struct ab_run *r)
{
	out_open_arr(o, "last_lines");
	int first = (r->tail_next - r->tail_n + AB_TAIL_LINES) % AB_TAIL_LINES;
	for (int i = 0; i < r->tail_n; i++) {
		if (i == 0)
			out_text(o, "    last lines:\n");
		out_str(o, PR_ANY, NULL, "      %s\n", r->tail[(first + i) % AB_TAIL_LINES]);
	}
	out_close_arr(o);
}

static void print_run(struct fab_out *o, const struct ab_run *r, bool verbose)
{
	char label[2] = { r->label, '\0' };
	out_open_obj(o, NULL);
	out_str(o, PR_ANY, "label", "  run %s: ", label);
	out_str(o, PR_ANY, "command", "%s\n", r->display);
	out_str(o, PR_ANY, "state", "    %s", ab_state_name(r->state));
	if (r->why[0] || out_is_json(o))
		out_str(o, PR_ANY, "why", ": %s", r->why);
	bool ran = r->state != AB_IDLE && r->state != AB_NOT_STARTED;
	if (ran || out_is_json(o)) {
		out_num(o, PR_ANY, "elapsed_s", ", %.2f s", ran ? fab_num_of(round(r->elapsed_s * 1000) / 1000)
			: (fab_num){ 0 });
		out_int(o, PR_ANY, "lines", ", %lld lines of output", ran ? fab_int_of(r->out_lines)
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
	out_str(o, PR_JSON, "log_verdict", NULL, nccl_verdict_name(l->verdict));
	out_str(o, PR_JSON, "log_reason", NULL, l->reason);
	if (l->nccl_lines || out_is_json(o)) {
		if (l->version[0] || out_is_json(o))
			out_str(o, PR_ANY, "nccl_version", "    NCCL %s", l->version);
		out_str(o, PR_ANY, "bootstrap_if", ", bootstrap %s", l->bootstrap_if);
		out_text(o, "; the log says %s%s%s\n", nccl_verdict_name(l->verdict), l->reason[0] ? ": " : "",
			 l->reason);
		print_transport(o, l);
	} else {
		out_text(o, "    no NCCL line in the output\n");
	}
	if (l->avg_busbw.ok || out_is_json(o))
		out_num(o, PR_ANY, "avg_busbw_gbs", "    average bus bandwidth %.2f GB/s\n", l->avg_busbw);
	print_errors(o, l);
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
		out_num(o, PR_ANY, "ratio", ", A/B ratio %.2fx", ab->ratio > 0 ? fab_num_of(ab->ratio)
			: (fab_num){ 0 });
		out_str(o, PR_ANY, "measure", " by %s", ab->measure[0] ? ab->measure : NULL);
	}
	out_text(o, "\n");
	out_num(o, PR_JSON, "hang_s", NULL, fab_num_of(ab->hang_s));
	out_num(o, PR_JSON, "run_timeout_s", NULL, ab->run_timeout_s > 0 ? fab_num_of(ab->run_timeout_s)
		: (fab_num){ 0 });
	out_open_arr(o, "runs");
	for (int k = 0; k < 2; k++)
		print_run(o, &ab->run[k], verbose);
	out_close_arr(o);
	out_close_obj(o);
}
