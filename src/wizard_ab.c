/*
 * wizard_ab.c - the wizard's layer 4 step: the IB-disable A/B (ab.h) on
 * the NCCL test the user gave after "--", or on the single-node NIC
 * loopback proposal when all_reduce_perf is on PATH. It runs in the
 * background: start() begins run A, poll() advances the pair, and the
 * struct ab in s->priv is what its output hooks read: wiz_ab_print()
 * (batch, through ab_print()), wiz_ab_exit() (an A/B that could not run
 * exits 2) and the pane's drawer, wizard_ab_body() in views/wizard_ab.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/ab.h"
#include "fabtop/i18n.h"
#include "fabtop/util.h"
#include "fabtop/wizard.h"
#include "wizard_int.h"

#define AB_HOWTO "fabtop wizard --steps ab -- all_reduce_perf -b 8 -e 1G -f 2 -g 8"

static int model_gpus(const struct fab_model *m)
{
	return m ? m->ngpus : 0;
}

bool wiz_ab_gate(const struct wizard *w, const struct fab_model *m, char *why, size_t len)
{
	char buf[128], reason[512];
	const char *argv[16], *env[4];
	if (w->cmd && w->ncmd > 0)
		return false;
	if (w->root && w->root->is_capture) {
		/* Its GPUs are another node's: no loopback run to propose here. */
		snprintf(why, len, _("no NCCL test command, and --root %s is a capture (a loopback run needs "
			 "this node's GPUs): give the NCCL test after --: %s"), w->root->name, AB_HOWTO);
		return true;
	}
	if (ab_propose_loopback(model_gpus(m), buf, sizeof(buf), argv, 16, env, 4, reason, sizeof(reason)))
		return false;
	if (!ab_have_loopback_test())   /* the reason is in the user's language: not compared */
		snprintf(why, len, _("no NCCL test command, and no all_reduce_perf on PATH for a loopback run: "
			 "give the NCCL test after --: %s"), AB_HOWTO);
	else
		snprintf(why, len, _("no NCCL test command, and a loopback run needs two GPUs here (%d found): "
			 "give the NCCL test after --: %s"), model_gpus(m), AB_HOWTO);
	return true;
}

static enum wiz_status status_of(enum ab_verdict v)
{
	switch (v) {
	case AB_V_RDMA_OK:
		return WIZ_PASS;
	case AB_V_RDMA_SLOW:
	case AB_V_IB_NOT_USED:
	case AB_V_SOCKET_PATH_PROBLEM:
	case AB_V_IB_DISABLE_IGNORED:
	case AB_V_NO_NETWORK:
		return WIZ_WARN;
	default:
		return WIZ_FAIL;
	}
}

/* One run's summary and last lines, for the raw output (`v`, --verbose). */
static void out_run(struct wiz_step *s, const struct ab_run *r)
{
	const struct nccl_log *l = &r->log;
	wiz_out(s, _("run %c: %s\n"), r->label, r->display);
	wiz_out(s, "  %s%s%s", ab_state_name(r->state), r->why[0] ? ": " : "", r->why);
	if (r->state == AB_IDLE || r->state == AB_NOT_STARTED) {
		wiz_out(s, "\n");
		return;
	}
	wiz_out(s, _("; %.2f s, %lld lines\n"), r->elapsed_s, r->out_lines);
	wiz_out(s, _("  log: %s%s%s; networks"), nccl_verdict_name(l->verdict), l->reason[0] ? ": " : "", l->reason);
	for (int i = 0; i < l->nnets; i++)
		wiz_out(s, "%s %s", i ? "," : "", l->nets[i].name);
	if (!l->nnets)
		wiz_out(s, _(" none named"));
	wiz_out(s, _("; GPUDirect RDMA %s"), nccl_gdr_name(l->gdr));
	for (int i = 0; i < l->ncolls; i++) {
		char label[32];
		const char *name = l->ncolls > 1 ? nccl_coll_label(l, i, label, sizeof(label)) : "";
		if (l->colls[i].avg_busbw.ok)
			wiz_out(s, _("; %s%saverage bus bandwidth %.2f GB/s"), name, name[0] ? " " : "",
				l->colls[i].avg_busbw.v);
	}
	wiz_out(s, "\n");
	for (int i = 0; i < l->nerr && i < 3; i++)
		wiz_out(s, _("  error %s: %s\n"), nccl_err_kind_name(l->err[i].kind), l->err[i].text);
	int first = (r->tail_next - r->tail_n + AB_TAIL_LINES) % AB_TAIL_LINES;
	if (r->tail_n)
		wiz_out(s, _("  last lines:\n"));
	for (int i = 0; i < r->tail_n; i++)
		wiz_out(s, "    %s\n", r->tail[(first + i) % AB_TAIL_LINES]);
}

/* The pair's end: status, verdict, one finding, the raw output. */
static void fill(struct wiz_step *s, const struct ab *ab)
{
	enum wiz_status st = status_of(ab->verdict);
	const struct ab_run *a = &ab->run[0];
	s->status = st;
	snprintf(s->verdict, sizeof(s->verdict), "%s: %s", ab_verdict_name(ab->verdict), ab->reason);
	fab_strlcpy(s->hint, ab->hint, sizeof(s->hint));
	char id[32];
	snprintf(id, sizeof(id), "ab.%s", ab_verdict_name(ab->verdict));
	struct fab_finding *f = wiz_finding(s, id, st == WIZ_PASS ? SEV_INFO : st == WIZ_WARN ? SEV_WARN
					    : SEV_ERROR, "NCCL test A/B");
	if (f) {
		fab_strlcpy(f->message, ab->reason, sizeof(f->message));
		fab_strlcpy(f->hint, ab->hint, sizeof(f->hint));
		if (a->log.nerr)
			snprintf(f->evidence, sizeof(f->evidence), _("run A: %s: %s"),
				 nccl_err_kind_name(a->log.err[0].kind), a->log.err[0].text);
		else if (a->log.ib_reason[0])
			snprintf(f->evidence, sizeof(f->evidence), _("run A: %s"), a->log.ib_reason);
		fab_strlcpy(f->layer, _("layer 4: the NCCL test itself, over RDMA and over sockets"),
			    sizeof(f->layer));
	}
	if (ab->ratio > 0)
		wiz_out(s, _("A/B %.2fx by %s\n"), ab->ratio, _(ab->measure));
	for (int k = 0; k < 2; k++)
		out_run(s, &ab->run[k]);
}

int wiz_ab_start(struct wizard *w, struct wiz_step *s, const struct fab_model *m)
{
	char buf[128], err[512], ifenv[64], hcaenv[FAB_LIST_LEN + 16];
	const char *lb_argv[16], *lb_env[4], *extra[8];
	const char *const *argv;
	int nextra = 0;
	if (w->cmd && w->ncmd > 0) {
		argv = (const char *const *)w->cmd;
		wiz_input(s, _("the NCCL test given after --"));
	} else {
		if (!ab_propose_loopback(model_gpus(m), buf, sizeof(buf), lb_argv, 16, lb_env, 4, err,
					 sizeof(err))) {
			snprintf(s->verdict, sizeof(s->verdict), "%s", err);
			return -1;
		}
		argv = lb_argv;
		for (int i = 0; lb_env[i]; i++)
			extra[nextra++] = lb_env[i];
		wiz_input(s, _("the single-node NIC loopback run (all_reduce_perf on PATH, %d GPUs here; "
			  "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1: the GPUs talk through the NIC)"), model_gpus(m));
	}
	/* What the user told the wizard reaches the test too. */
	if (w->opt.iface[0]) {
		snprintf(ifenv, sizeof(ifenv), "NCCL_SOCKET_IFNAME=%s", w->opt.iface);
		extra[nextra++] = ifenv;
	}
	if (w->opt.hca[0]) {
		snprintf(hcaenv, sizeof(hcaenv), "NCCL_IB_HCA=%s", w->opt.hca);
		extra[nextra++] = hcaenv;
	}
	extra[nextra] = NULL;
	double hang = w->hang_s > 0 ? w->hang_s : AB_HANG_DEFAULT_S;
	if (w->run_timeout_s > 0)
		wiz_input(s, _("hung after %g s without output; each run at most %g s"), hang, w->run_timeout_s);
	else
		wiz_input(s, _("hung after %g s without output (--hang); no run time limit"), hang);

	struct ab *ab = calloc(1, sizeof(*ab));
	if (!ab) {
		snprintf(s->verdict, sizeof(s->verdict), _("out of memory"));
		return -1;
	}
	struct ab_opts o = { .argv = argv, .hang_s = w->hang_s, .run_timeout_s = w->run_timeout_s,
			     .env_extra = extra, .model = m };
	if (ab_init(ab, &o, err, sizeof(err)) != 0) {
		free(ab);
		snprintf(s->verdict, sizeof(s->verdict), _("cannot run the A/B: %s"), err);
		return -1;
	}
	s->priv = ab;
	if (ab->launcher[0])
		wiz_input(s, "%s", ab->launcher);
	for (int k = 0; k < 2; k++)
		wiz_cmd(s, _("run %c: %s"), ab->run[k].label, ab->run[k].display);
	if (ab_start(ab) != 0)
		fill(s, ab);   /* not-run, decided already: poll ends it at once */
	return 0;
}

int wiz_ab_poll(struct wizard *w, struct wiz_step *s, int timeout_ms)
{
	struct ab *ab = s->priv;
	if (!ab)
		return 1;
	if (ab->cur < 0 && ab->verdict != AB_V_PENDING)
		return 1;   /* ended in start() */
	if (!ab_poll(ab, timeout_ms))
		return 0;
	fill(s, ab);
	return 1;
}

void wiz_ab_cancel(struct wizard *w, struct wiz_step *s)
{
	struct ab *ab = s->priv;
	if (!ab || ab->cur < 0)
		return;
	ab_cancel(ab);
	fill(s, ab);
}

int wiz_ab_wait_fd(const struct wiz_step *s)
{
	return s->priv ? ab_fd(s->priv) : -1;
}

void wiz_ab_fini(struct wiz_step *s)
{
	ab_free(s->priv);
	free(s->priv);
	s->priv = NULL;
}

/* The pair as ab_print() writes it: the "ab" object, the text block. */
void wiz_ab_print(struct fab_out *o, const struct wiz_step *s, bool verbose)
{
	if (s->priv)
		ab_print(o, s->priv, verbose);
}

/* An A/B that could not run at all is "could not run" (2), not a finding;
 * any other verdict but rdma-ok is 1 (ab_exit_code()). */
int wiz_ab_exit(const struct wiz_step *s, const char **why)
{
	int rc = wiz_exit_of(s);
	if (s->priv) {
		int e = ab_exit_code(((const struct ab *)s->priv)->verdict);
		if (e > rc)
			rc = e;
	}
	if (rc == 2)
		*why = _("the A/B could not run");
	return rc;
}
