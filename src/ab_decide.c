/*
 * ab_decide.c - the A/B's verdict from two finished runs (ab.h's list,
 * first match wins), its names and exit codes, and the single-node NIC
 * loopback proposal. Pure apart from the PATH search.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabtop/ab.h"
#include "fabtop/i18n.h"
#include "fabtop/util.h"

const char *ab_verdict_name(enum ab_verdict v)
{
	static const char *const names[] = {
		[AB_V_PENDING] = "pending",
		[AB_V_NOT_RUN] = "not-run",
		[AB_V_IB_DISABLE_IGNORED] = "ib-disable-ignored",
		[AB_V_IB_NOT_USED] = "ib-not-used",
		[AB_V_RDMA_OK] = "rdma-ok",
		[AB_V_RDMA_SLOW] = "rdma-slow",
		[AB_V_SOCKET_PATH_PROBLEM] = "socket-path-problem",
		[AB_V_RDMA_PATH_PROBLEM] = "rdma-path-problem",
		[AB_V_NOT_RDMA] = "not-rdma",
		[AB_V_CANCELLED] = "cancelled",
		[AB_V_NO_NETWORK] = "no-network",
	};
	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "unknown";
}

const char *ab_state_name(enum ab_state s)
{
	static const char *const names[] = {
		[AB_IDLE] = N_("not-run"),
		[AB_RUNNING] = N_("running"),
		[AB_COMPLETED] = N_("completed"),
		[AB_FAILED] = N_("failed"),
		[AB_HUNG] = N_("hung"),
		[AB_TIMED_OUT] = N_("timed-out"),
		[AB_NOT_STARTED] = N_("not-started"),
		[AB_CANCELLED] = N_("cancelled"),
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

int ab_exit_code(enum ab_verdict v)
{
	if (v == AB_V_RDMA_OK)
		return 0;
	if (v == AB_V_NOT_RUN || v == AB_V_PENDING)
		return 2;
	return 1;
}

/* ---- the verdict ------------------------------------------------------------------ */

/* "IB", "IB, Socket", "IBext_v8": the networks a log names. */
static void nets_line(const struct nccl_log *l, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < l->nnets && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", l->nets[i].name);
	if (!buf[0])
		snprintf(buf, len, "%s", l->ch_net_rdma ? "IB" : l->ch_net_socket ? "Socket" : _("no network named"));
}

static bool done_ok(const struct ab_run *r)
{
	return r->state == AB_COMPLETED;
}

/* "hung 120 s", "failed (exit 1, completion-error)": one run's end, short, for the reason. */
static void run_end(const struct ab *ab, const struct ab_run *r, char *buf, size_t len)
{
	const struct nccl_log *l = &r->log;
	const char *kind = l->nerr ? nccl_err_kind_name(l->err[0].kind) : NULL;
	char how[48] = "";
	if (r->state == AB_FAILED && r->res.exit_code >= 0)
		snprintf(how, sizeof(how), _("exit %d"), r->res.exit_code);
	else if (r->state == AB_FAILED && r->res.term_signal)
		snprintf(how, sizeof(how), _("signal %d"), r->res.term_signal);
	else if (r->state == AB_HUNG)
		snprintf(how, sizeof(how), _("no output for %g s"), ab->hang_s);
	if (how[0] && kind)
		snprintf(buf, len, "%s (%s, %s)", _(ab_state_name(r->state)), how, kind);
	else if (how[0] || kind)
		snprintf(buf, len, "%s (%s)", _(ab_state_name(r->state)), how[0] ? how : kind);
	else
		snprintf(buf, len, "%s", _(ab_state_name(r->state)));
}

/* What to look at when RDMA failed and sockets worked, from A's errors;
 * under 256 bytes, the size of a step's hint. */
static void rdma_hint(const struct ab_run *a, char *hint, size_t len)
{
	const struct nccl_log *l = &a->log;
	const char *first;
	bool retry_exc = false;   /* status 12 among the completion errors kept */
	for (int i = 0; i < l->nerr; i++)
		retry_exc |= l->err[i].kind == NCCL_E_COMPLETION && l->err[i].status.ok && l->err[i].status.v == 12;
	if (l->err_kind[NCCL_E_COMPLETION] && retry_exc)
		first = _("completion errors (status 12: the peer's QP never acked): check that "
			"NCCL_IB_GID_INDEX is a routable RoCE v2 GID, and PFC/ECN and MTU on the path");
	else if (l->err_kind[NCCL_E_COMPLETION])
		first = _("completion errors (see their status): check the GID index, the MTU and "
			"PFC/ECN on the path, and the HCAs' error counters (Counters pane)");
	else if (l->err_kind[NCCL_E_IBV_CALL])
		first = _("an ibv_* call failed: check the ports are ACTIVE, the GID index exists, "
			"ulimit -l, and the pod's RDMA devices");
	else if (l->err_kind[NCCL_E_TIMEOUT])
		first = _("the QPs never connected: check the GID index, routing between the RoCE "
			"interfaces, and firewalls (UDP 4791)");
	else if (l->err_kind[NCCL_E_NET_INIT] || l->err_kind[NCCL_E_IB_OTHER])
		first = _("NCCL could not set up IB: check the HCAs, the driver and NCCL_IB_HCA");
	else if (a->state == AB_HUNG || a->state == AB_TIMED_OUT)
		first = _("A stopped with no error: RoCE path MTU or PFC, or GPUDirect (retry with "
			"NCCL_NET_GDR_LEVEL=LOC)");
	else
		first = _("read run A's errors");
	snprintf(hint, len, _("%s; then the wizard's l1, l2 and l3 steps (perftest isolates RDMA from NCCL)"),
		 first);
}

/* A over B: bus bandwidth when both printed it (the lowest ratio of the
 * runs both printed, matched in order: the same command runs the same
 * collectives), else B's wall time over A's. The run compared, or -1. */
static int compare(struct ab *ab)
{
	const struct nccl_log *la = &ab->run[0].log, *lb = &ab->run[1].log;
	int n = la->ncolls < lb->ncolls ? la->ncolls : lb->ncolls, worst = -1;
	ab->ratio = 0;
	ab->measure[0] = '\0';
	for (int i = 0; i < n; i++) {
		fab_num x = la->colls[i].avg_busbw, y = lb->colls[i].avg_busbw;
		if (!x.ok || !y.ok || !(y.v > 0))
			continue;
		if (worst < 0 || x.v / y.v < ab->ratio) {
			ab->ratio = x.v / y.v;
			worst = i;
		}
	}
	if (worst >= 0) {
		fab_strlcpy(ab->measure, N_("bus bandwidth"), sizeof(ab->measure));
	} else if (ab->run[0].elapsed_s > 0 && ab->run[1].elapsed_s > 0) {
		ab->ratio = ab->run[1].elapsed_s / ab->run[0].elapsed_s;
		fab_strlcpy(ab->measure, N_("wall time"), sizeof(ab->measure));
	}
	return worst;
}

static void compare_text(const struct ab *ab, int k, char *buf, size_t len)
{
	const struct ab_run *a = &ab->run[0], *b = &ab->run[1];
	char label[32];
	if (k >= 0 && a->log.ncolls > 1)
		snprintf(buf, len, _("A %.2f GB/s, B %.2f GB/s average bus bandwidth in %s, the least "
			 "gain of %d runs: A/B %.2fx"), a->log.colls[k].avg_busbw.v, b->log.colls[k].avg_busbw.v,
			 nccl_coll_label(&a->log, k, label, sizeof(label)), a->log.ncolls, ab->ratio);
	else if (k >= 0)
		snprintf(buf, len, _("A %.2f GB/s, B %.2f GB/s average bus bandwidth: A/B %.2fx"),
			 a->log.colls[k].avg_busbw.v, b->log.colls[k].avg_busbw.v, ab->ratio);
	else if (ab->measure[0])
		snprintf(buf, len, _("no bus bandwidth in the output; wall time A %.2f s, B %.2f s: %.2fx"),
			 a->elapsed_s, b->elapsed_s, ab->ratio);
	else
		snprintf(buf, len, _("nothing to compare them by"));
}

/* "; against the line rate of A's HCAs: alltoall_perf peak 45.10 GB/s, 90% of
 * 50.00 GB/s per rank, ..." for A's runs that have one (nccl_log_line_rate,
 * with the wizard's model); "" without. True when one of them is low. */
static bool line_rate_text(const struct nccl_log *l, char *buf, size_t len)
{
	size_t n = 0;
	bool low = false;
	buf[0] = '\0';
	for (int i = 0; i < l->ncolls && n < len; i++) {
		const struct nccl_log_coll *c = &l->colls[i];
		char label[32];
		if (!c->line_gbs.ok || !c->pct.ok)
			continue;
		low |= c->verdict == NCCL_CV_LOW;
		/* A list: its lead-in once, then one item per collective. */
		n += (size_t)snprintf(buf + n, len - n, "%s", n ? ", " : _("; against the line rate of A's HCAs: "));
		if (n >= len)
			break;
		n += (size_t)snprintf(buf + n, len - n, c->verdict == NCCL_CV_LOW
				      ? _("%s peak %.2f GB/s, %.0f%% of %.2f GB/s per rank (low)")
				      : _("%s peak %.2f GB/s, %.0f%% of %.2f GB/s per rank"),
				      nccl_coll_label(l, i, label, sizeof(label)), c->peak_busbw.v, c->pct.v,
				      c->line_gbs.v);
	}
	return low;
}

void ab_decide(struct ab *ab)
{
	const struct ab_run *a = &ab->run[0], *b = &ab->run[1];
	char ea[300], eb[300], nets[128], cmp[200], rate[300];
	ab->reason[0] = ab->hint[0] = '\0';
	ab->ratio = 0;
	ab->measure[0] = '\0';
	run_end(ab, a, ea, sizeof(ea));
	run_end(ab, b, eb, sizeof(eb));

	if (a->state == AB_CANCELLED || b->state == AB_CANCELLED) {
		ab->verdict = AB_V_CANCELLED;
		snprintf(ab->reason, sizeof(ab->reason), _("cancelled by the user during run %c"),
			 a->state == AB_CANCELLED ? 'A' : 'B');
		snprintf(ab->hint, sizeof(ab->hint), _("run the step again to get a verdict"));
		return;
	}
	if (a->state == AB_NOT_STARTED || b->state == AB_NOT_STARTED) {
		const struct ab_run *r = a->state == AB_NOT_STARTED ? a : b;
		ab->verdict = AB_V_NOT_RUN;
		snprintf(ab->reason, sizeof(ab->reason), _("run %c could not start: %s"), r->label,
			 r->res.err[0] ? r->res.err : r->why);
		snprintf(ab->hint, sizeof(ab->hint), _("check the command after -- (is the NCCL test built and "
			 "on PATH?), e.g. -- all_reduce_perf -b 8 -e 1G -f 2 -g 8"));
		return;
	}
	if (a->state == AB_IDLE || a->log.nccl_lines == 0) {
		ab->verdict = AB_V_NOT_RUN;
		snprintf(ab->reason, sizeof(ab->reason), _("run A printed no NCCL line (it %s): not an NCCL "
			 "program, or it drops NCCL_DEBUG=INFO; nothing to compare"), ea);
		snprintf(ab->hint, sizeof(ab->hint), _("give an NCCL test (all_reduce_perf from nccl-tests) or a "
			 "launcher line that passes the environment on (mpirun -x, srun, torchrun)"));
		return;
	}
	/* One node: NCCL names its network ("Using network IB") but its ranks
	 * talk over P2P/SHM; "over IB" would be false, and B differs from A
	 * only in a network neither used. A cut log's P2P lines may precede
	 * NET ones, so A must have finished or known it was alone. (A that
	 * never named an RDMA network is ib-not-used, below.) */
	if (nccl_log_used_rdma(&a->log) && nccl_log_no_net_channel(&a->log) &&
	    (done_ok(a) || (a->log.nnodes.ok && a->log.nnodes.v == 1))) {
		ab->verdict = AB_V_NO_NETWORK;
		snprintf(ab->reason, sizeof(ab->reason), _("run A %s within one node (%s): no NET channel was "
			 "set up, so no network carried data and the A/B says nothing about IB/RoCE or sockets "
			 "(run B %s)"), ea, nccl_log_local_paths(&a->log), eb);
		snprintf(ab->hint, sizeof(ab->hint), _("run the test across two nodes (e.g. mpirun -np 2 -H "
			 "nodeA,nodeB -x NCCL_DEBUG=INFO all_reduce_perf -b 8 -e 1G -f 2 -g 1), or on this node "
			 "with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 so that its GPUs talk through the NIC"));
		return;
	}
	if (b->state != AB_IDLE && nccl_log_used_rdma(&b->log)) {
		ab->verdict = AB_V_IB_DISABLE_IGNORED;
		nets_line(&b->log, nets, sizeof(nets));
		if (b->log.plugin == NCCL_PLUGIN_LOADED)
			snprintf(ab->reason, sizeof(ab->reason), _("run B, with NCCL_IB_DISABLE=1, still used %s (an "
				 "external net plugin): the IB-disable run is not a socket run, so the A/B compares "
				 "nothing"), nets);
		else
			snprintf(ab->reason, sizeof(ab->reason), _("run B, with NCCL_IB_DISABLE=1, still used %s: "
				 "the IB-disable run is not a socket run, so the A/B compares nothing"), nets);
		snprintf(ab->hint, sizeof(ab->hint), _("the net plugin ignores NCCL_IB_DISABLE: set "
			 "NCCL_NET=Socket for the socket run (or unset NCCL_NET_PLUGIN), then run the A/B again"));
		return;
	}
	if (done_ok(a) && !nccl_log_used_rdma(&a->log)) {
		ab->verdict = AB_V_IB_NOT_USED;
		nets_line(&a->log, nets, sizeof(nets));
		snprintf(ab->reason, sizeof(ab->reason), _("run A completed but over %s: NCCL never used the RDMA "
			 "network (%s)"), nets, a->log.ib_reason[0] ? a->log.ib_reason :
			 a->log.reason[0] ? a->log.reason : _("the log gives no reason"));
		snprintf(ab->hint, sizeof(ab->hint), "%s", a->log.ib_reason[0] ?
			 _("make the HCAs visible to the job (driver loaded, the pod given its RDMA devices, "
			 "libibverbs installed); unset NCCL_IB_DISABLE or NCCL_NET=Socket if set") :
			 nccl_verdict_hint(a->log.verdict));
		return;
	}
	if (done_ok(a) && done_ok(b)) {
		compare_text(ab, compare(ab), cmp, sizeof(cmp));
		nets_line(&a->log, nets, sizeof(nets));
		bool low = line_rate_text(&a->log, rate, sizeof(rate));
		if (ab->ratio >= AB_FASTER_RATIO) {
			ab->verdict = AB_V_RDMA_OK;
			snprintf(ab->reason, sizeof(ab->reason), _("both runs completed; A over %s is %.1fx faster "
				 "than sockets (%s)%s"), nets, ab->ratio, cmp, rate);
			if (low)
				snprintf(ab->hint, sizeof(ab->hint), _("A is faster than sockets but under %.0f%% of "
					 "its HCAs' line rate: check the link rate and errors (l1), GPUDirect RDMA "
					 "(%s in A's log), PFC/ECN on RoCE, and the GPU-NIC PCIe path"),
					 FAB_LINE_SHARE_LOW * 100, nccl_gdr_name(a->log.gdr));
		} else {
			ab->verdict = AB_V_RDMA_SLOW;
			snprintf(ab->reason, sizeof(ab->reason), _("both runs completed, A over %s, but it is not "
				 "clearly faster than sockets (%s; %.1fx expected)%s"), nets, cmp, AB_FASTER_RATIO, rate);
			snprintf(ab->hint, sizeof(ab->hint), _("RDMA at socket speed: check the link rate and "
				 "errors (l1), GPUDirect RDMA (%s in A's log), PFC/ECN on RoCE, and test sizes "
				 "of 1G or more"), nccl_gdr_name(a->log.gdr));
		}
		return;
	}
	if (done_ok(a)) {
		ab->verdict = AB_V_SOCKET_PATH_PROBLEM;
		snprintf(ab->reason, sizeof(ab->reason), _("run A completed over RDMA, run B (sockets) %s: the "
			 "job works, but its socket fallback would not"), eb);
		if (b->log.bootstrap_if[0])
			snprintf(ab->hint, sizeof(ab->hint), _("check the bootstrap interface (NCCL_SOCKET_IFNAME; "
				 "B used %s), that the peers reach each other over it, and firewalls on NCCL's TCP "
				 "ports"), b->log.bootstrap_if);
		else
			snprintf(ab->hint, sizeof(ab->hint), _("check the bootstrap interface (NCCL_SOCKET_IFNAME), "
				 "that the peers reach each other over it, and firewalls on NCCL's TCP ports"));
		return;
	}
	if (done_ok(b)) {
		ab->verdict = AB_V_RDMA_PATH_PROBLEM;
		snprintf(ab->reason, sizeof(ab->reason), _("run A (RDMA) %s, run B (sockets) completed: the RDMA "
			 "path is broken"), ea);
		rdma_hint(a, ab->hint, sizeof(ab->hint));
		return;
	}
	ab->verdict = AB_V_NOT_RDMA;
	snprintf(ab->reason, sizeof(ab->reason), _("both runs stopped: A %s; B %s. Sockets fail too, so "
		 "the cause is not RDMA"), ea, eb);
	if (a->log.bootstrap_if[0])
		snprintf(ab->hint, sizeof(ab->hint), _("check the application start (the command, the launcher), "
			 "DNS of the peers, ports and firewalls between the nodes, and the bootstrap interface "
			 "(NCCL_SOCKET_IFNAME; A used %s)"), a->log.bootstrap_if);
	else
		snprintf(ab->hint, sizeof(ab->hint), _("check the application start (the command, the launcher), "
			 "DNS of the peers, ports and firewalls between the nodes, and the bootstrap interface "
			 "(NCCL_SOCKET_IFNAME)"));
}

/* ---- the loopback proposal --------------------------------------------------------- */

/* argv0 found as an executable file in one of PATH's directories. */
static bool on_path(const char *name);

bool ab_have_loopback_test(void)
{
	return on_path("all_reduce_perf");
}

static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char dir[4096];
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; p; ) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		struct stat st;
		if (n + strlen(name) + 2 < sizeof(dir)) {
			snprintf(dir, sizeof(dir), "%.*s/%s", (int)n, n ? p : ".", name);
			if (stat(dir, &st) == 0 && S_ISREG(st.st_mode) && access(dir, X_OK) == 0)
				return true;
		}
		p = colon ? colon + 1 : NULL;
	}
	return false;
}

bool ab_propose_loopback(int ngpus, char *buf, size_t buflen, const char *argv[], int maxargv,
			 const char *env[], int maxenv, char *why, size_t whylen)
{
	static const char *const words[] = { "all_reduce_perf", "-b", "8", "-e", "256M", "-f", "4", "-g" };
	const int nwords = (int)(sizeof(words) / sizeof(words[0]));
	if (!on_path("all_reduce_perf")) {
		snprintf(why, whylen, _("no all_reduce_perf on PATH: build nccl-tests (git clone "
			 "https://github.com/NVIDIA/nccl-tests && make -C nccl-tests MPI=0) and put its build/ "
			 "directory on PATH, or give the NCCL test after --"));
		return false;
	}
	if (ngpus < 2) {
		snprintf(why, whylen, _("the single-node loopback run needs at least two GPUs here (%d found): "
			 "give the NCCL test after --, e.g. your mpirun/srun line across two nodes"), ngpus);
		return false;
	}
	if (maxargv < nwords + 2 || maxenv < 3) {
		snprintf(why, whylen, _("internal error: no room for the loopback command"));
		return false;
	}
	size_t n = 0;
	for (int i = 0; i <= nwords; i++) {
		char num[16];
		const char *w = i < nwords ? words[i] : num;
		if (i == nwords)
			snprintf(num, sizeof(num), "%d", ngpus);
		size_t l = strlen(w) + 1;
		if (n + l > buflen) {
			snprintf(why, whylen, _("internal error: no room for the loopback command"));
			return false;
		}
		memcpy(buf + n, w, l);
		argv[i] = buf + n;
		n += l;
	}
	argv[nwords + 1] = NULL;
	/* P2P and SHM off: the GPUs of this node must talk through the NIC. */
	env[0] = "NCCL_P2P_DISABLE=1";
	env[1] = "NCCL_SHM_DISABLE=1";
	env[2] = NULL;
	why[0] = '\0';
	return true;
}
