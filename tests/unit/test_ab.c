/* The A/B: the verdict from pairs of real analysed logs (the corpus in
 * tests/fixtures/nccl-logs), both runs' argv and environment, the loopback
 * proposal, and the engine against build/tests/fake_nccl, a real child
 * process: completion, hang (the grandchild killed too), cancel, a
 * program that is not there, the environment that reaches the child. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabtop/ab.h"
#include "fabtop/collect.h"
#include "fabtop/print.h"
#include "fabtop/root.h"

#define FIX "tests/fixtures/nccl-logs/"

static char fake[PATH_MAX];      /* build/tests/fake_nccl, absolute */
static char mpirun[PATH_MAX];    /* tests/ab/mpirun */

static void feed_file(struct nccl_log *l, const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0)
		nccl_log_feed(l, line, (size_t)n);
	free(line);
	fclose(f);
	nccl_log_finish(l);
}

/* One finished run from a corpus log: its state and wall time as given. */
static void set_run(struct ab *ab, int k, const char *file, enum ab_state st, int exit_code, double elapsed)
{
	struct ab_run *r = &ab->run[k];
	r->label = k ? 'B' : 'A';
	nccl_log_init(&r->log);
	if (file)
		feed_file(&r->log, file);
	else
		nccl_log_finish(&r->log);
	r->state = st;
	r->res.exit_code = exit_code;
	r->elapsed_s = elapsed;
}

static void pair(struct ab *ab, const char *a, enum ab_state sa, int ea, double ta,
		 const char *b, enum ab_state sb, int eb, double tb)
{
	memset(ab, 0, sizeof(*ab));
	ab->cur = -1;
	ab->hang_s = 120;
	set_run(ab, 0, a, sa, ea, ta);
	set_run(ab, 1, b, sb, eb, tb);
	ab_decide(ab);
}

static void unpair(struct ab *ab)
{
	nccl_log_free(&ab->run[0].log);
	nccl_log_free(&ab->run[1].log);
}

/* ---- the verdict, from real logs ---------------------------------------------------- */

static void test_decide_rdma_ok_and_slow(void **state)
{
	struct ab ab;
	pair(&ab, FIX "v2.10-ib-gdr-ok.log", AB_COMPLETED, 0, 2.0, FIX "h200-ib-disabled.log", AB_COMPLETED, 0, 20.0);
	assert_int_equal(ab.verdict, AB_V_RDMA_OK);
	assert_string_equal(ab.measure, "wall time");   /* B printed no nccl-tests summary */
	assert_true(ab.ratio > 9.999 && ab.ratio < 10.001);
	assert_string_equal(ab.reason, "both runs completed; A over IB is 10.0x faster than sockets (no bus "
			    "bandwidth in the output; wall time A 2.00 s, B 20.00 s: 10.00x)");
	assert_string_equal(ab.hint, "");
	assert_int_equal(ab_exit_code(ab.verdict), 0);
	unpair(&ab);

	pair(&ab, FIX "v2.10-ib-gdr-ok.log", AB_COMPLETED, 0, 10.0, FIX "h200-ib-disabled.log", AB_COMPLETED, 0, 11.0);
	assert_int_equal(ab.verdict, AB_V_RDMA_SLOW);
	assert_true(ab.ratio > 1.0999 && ab.ratio < 1.1001);
	assert_string_equal(ab.reason, "both runs completed, A over IB, but it is not clearly faster than "
			    "sockets (no bus bandwidth in the output; wall time A 10.00 s, B 11.00 s: 1.10x; "
			    "1.5x expected)");
	assert_non_null(strstr(ab.hint, "GPUDirect RDMA (on in A's log)"));
	assert_int_equal(ab_exit_code(ab.verdict), 1);
	unpair(&ab);
}

/* Several nccl-tests runs (issue 13, class 8): A/B by the run with the least
 * gain, and A's peak bus bandwidth against its HCAs' line rate from the model
 * (the dgx-h100 scenario: 8 x 400G for 8 ranks a node). */
static void test_decide_runs_and_line_rate(void **state)
{
	struct fab_root root;
	char err[512];
	if (root_open(&root, "build/scenarios/dgx-h100", err, sizeof(err)) != 0)
		skip();  /* make tests builds the scenarios */
	struct fab_model *m = malloc(sizeof(*m));
	assert_non_null(m);
	model_init(m);
	collect_all(&root, m);
	struct ab ab;
	memset(&ab, 0, sizeof(ab));
	ab.cur = -1;
	ab.hang_s = 120;
	set_run(&ab, 0, FIX "v2.28-tests-alltoall-then-sendrecv.log", AB_COMPLETED, 0, 30.0);
	nccl_log_line_rate(&ab.run[0].log, m);
	set_run(&ab, 1, NULL, AB_COMPLETED, 0, 300.0);
	struct nccl_log *b = &ab.run[1].log;
	nccl_log_free(b);
	nccl_log_init(b);
	static const char *const lines[] = {
		"# Collective test starting: alltoall_perf\n",
		"  4294967296      67108864     float    none      -1   1000000    4.29    4.03       0   1000000    4.29    4.03       0\n",
		"# Out of bounds values : 0 OK\n", "# Avg bus bandwidth    : 4 \n",
		"# Collective test starting: sendrecv_perf\n",
		"  4294967296    1073741824     float     sum      -1    429496   10.00   10.00       0    429496   10.00   10.00       0\n",
		"# Out of bounds values : 0 OK\n", "# Avg bus bandwidth    : 10 \n", NULL };
	for (int i = 0; lines[i]; i++)
		nccl_log_feed(b, lines[i], strlen(lines[i]));
	nccl_log_finish(b);
	ab_decide(&ab);
	assert_int_equal(ab.verdict, AB_V_RDMA_OK);
	assert_string_equal(ab.measure, "bus bandwidth");
	assert_true(ab.ratio > 1.997 && ab.ratio < 1.999);  /* sendrecv: 19.98 / 10 */
	assert_string_equal(ab.reason, "both runs completed; A over IB is 2.0x faster than sockets (A 19.98 "
			    "GB/s, B 10.00 GB/s average bus bandwidth in sendrecv_perf, the least gain of 2 runs: "
			    "A/B 2.00x); against the line rate of A's HCAs: alltoall_perf peak 86.41 GB/s, 86% of "
			    "100.00 GB/s per rank, sendrecv_perf peak 21.99 GB/s, 44% of 50.00 GB/s per rank (low)");
	assert_non_null(strstr(ab.hint, "under 75% of its HCAs' line rate"));
	unpair(&ab);
	model_free(m);
	free(m);
	root_close(&root);
}

static void test_decide_ib_not_used(void **state)
{
	struct ab ab;
	/* Recorded on a VM without RDMA devices: NCCL fell back to sockets. */
	pair(&ab, FIX "h200-socket-ok.log", AB_COMPLETED, 0, 1.0, FIX "h200-ib-disabled.log", AB_COMPLETED, 0, 1.0);
	assert_int_equal(ab.verdict, AB_V_IB_NOT_USED);
	assert_string_equal(ab.reason, "run A completed but over Socket: NCCL never used the RDMA network "
			    "(No device found)");
	assert_non_null(strstr(ab.hint, "make the HCAs visible to the job"));
	unpair(&ab);
}

static void test_decide_ib_disable_ignored(void **state)
{
	struct ab ab;
	pair(&ab, FIX "v2.10-ib-gdr-ok.log", AB_COMPLETED, 0, 1.0,
	     FIX "v2.21-ibext-plugin-ignores-ib-disable.log", AB_COMPLETED, 0, 1.0);
	assert_int_equal(ab.verdict, AB_V_IB_DISABLE_IGNORED);
	assert_string_equal(ab.reason, "run B, with NCCL_IB_DISABLE=1, still used IBext_v8 (an external net "
			    "plugin): the IB-disable run is not a socket run, so the A/B compares nothing");
	assert_string_equal(ab.hint, "the net plugin ignores NCCL_IB_DISABLE: set NCCL_NET=Socket for the "
			    "socket run (or unset NCCL_NET_PLUGIN), then run the A/B again");
	/* It wins over a failed A: the pair compares nothing either way. */
	unpair(&ab);
	pair(&ab, FIX "v2.19-completion-error-mpirun.log", AB_FAILED, 1, 1.0,
	     FIX "v2.21-ibext-plugin-ignores-ib-disable.log", AB_COMPLETED, 0, 1.0);
	assert_int_equal(ab.verdict, AB_V_IB_DISABLE_IGNORED);
	unpair(&ab);
}

/* One node (nccl-tests#213: one process on host hw14's 8 GPUs, NCCL
 * named IB, every channel P2P/direct pointer, nNodes 1): neither run went
 * over a network, so the pair says nothing about IB and never "over IB". */
static void test_decide_no_network(void **state)
{
	struct ab ab;
	pair(&ab, FIX "nccltests213-v2.19-one-node-p2p.log", AB_COMPLETED, 0, 2.0,
	     FIX "h200-ib-disabled.log", AB_COMPLETED, 0, 2.1);
	assert_int_equal(ab.verdict, AB_V_NO_NETWORK);
	assert_string_equal(ab_verdict_name(ab.verdict), "no-network");
	assert_string_equal(ab.reason, "run A completed within one node (P2P): no NET channel was set up, "
			    "so no network carried data and the A/B says nothing about IB/RoCE or sockets "
			    "(run B completed)");
	assert_string_equal(ab.hint, "run the test across two nodes (e.g. mpirun -np 2 -H nodeA,nodeB -x "
			    "NCCL_DEBUG=INFO all_reduce_perf -b 8 -e 1G -f 2 -g 1), or on this node with "
			    "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 so that its GPUs talk through the NIC");
	assert_null(strstr(ab.reason, "over IB"));
	assert_int_equal(ab.ratio, 0);
	assert_int_equal(ab_exit_code(ab.verdict), 1);

	/* The text and the JSON say IB was named only. */
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);
	struct fab_out *o = out_new(OUT_TEXT, f);
	ab_print(o, &ab, false);
	assert_int_equal(out_free(o), 0);
	fclose(f);
	assert_non_null(strstr(doc, "  A/B: no-network\n"));
	assert_non_null(strstr(doc, "    transport: IB (named only: no NET channel, P2P within one node); "
			    "HCAs none; GPUDirect RDMA unknown\n"));
	free(doc);
	doc = NULL;
	f = open_memstream(&doc, &len);
	o = out_new(OUT_JSON, f);
	out_open_obj(o, NULL);
	ab_print(o, &ab, false);
	out_close_obj(o);
	assert_int_equal(out_free(o), 0);
	fclose(f);
	assert_non_null(strstr(doc, "\"transport\":\"intra-node\"") ?: strstr(doc, "\"transport\": \"intra-node\""));
	free(doc);
	unpair(&ab);

	/* Hung with nNodes 1: alone all the same. */
	pair(&ab, FIX "nccltests213-v2.19-one-node-p2p.log", AB_HUNG, -1, 120.0,
	     FIX "h200-ib-disabled.log", AB_COMPLETED, 0, 2.1);
	assert_int_equal(ab.verdict, AB_V_NO_NETWORK);
	unpair(&ab);

	/* Two nodes whose log stops after the P2P lines, before the NET ones:
	 * not known to be alone, so not no-network (A hung: rdma-path-problem). */
	char tmp[] = "/tmp/fabtop-ab-XXXXXX";
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	FILE *w = fdopen(fd, "w");
	fputs("n1:7:7 [0] NCCL INFO Using network IB\n"
	      "n1:7:9 [0] NCCL INFO comm 0x1 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n"
	      "n1:7:9 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer\n", w);
	fclose(w);
	pair(&ab, tmp, AB_HUNG, -1, 120.0, FIX "h200-ib-disabled.log", AB_COMPLETED, 0, 2.1);
	unlink(tmp);
	assert_int_equal(ab.verdict, AB_V_RDMA_PATH_PROBLEM);
	unpair(&ab);
}

static void test_decide_socket_path_problem(void **state)
{
	struct ab ab;
	pair(&ab, FIX "v2.10-ib-gdr-ok.log", AB_COMPLETED, 0, 1.0, FIX "h200-bad-ifname.log", AB_FAILED, 1, 0.5);
	assert_int_equal(ab.verdict, AB_V_SOCKET_PATH_PROBLEM);
	assert_string_equal(ab.reason, "run A completed over RDMA, run B (sockets) failed (exit 1, "
			    "bootstrap-error): the job works, but its socket fallback would not");
	unpair(&ab);
}

static void test_decide_rdma_path_problem(void **state)
{
	struct ab ab;
	pair(&ab, FIX "v2.19-completion-error-mpirun.log", AB_FAILED, 1, 3.0, FIX "h200-ib-disabled.log",
	     AB_COMPLETED, 0, 9.0);
	assert_int_equal(ab.verdict, AB_V_RDMA_PATH_PROBLEM);
	assert_string_equal(ab.reason, "run A (RDMA) failed (exit 1, completion-error), run B (sockets) "
			    "completed: the RDMA path is broken");
	assert_string_equal(ab.hint, "completion errors (status 12: the peer's QP never acked): check that "
			    "NCCL_IB_GID_INDEX is a routable RoCE v2 GID, and PFC/ECN and MTU on the path; then "
			    "the wizard's l1, l2 and l3 steps (perftest isolates RDMA from NCCL)");
	assert_true(strlen(ab.hint) < 256);   /* a step's hint holds it whole */
	unpair(&ab);

	pair(&ab, FIX "v2.23-modify-qp-timeout.log", AB_FAILED, 1, 3.0, FIX "h200-ib-disabled.log",
	     AB_COMPLETED, 0, 9.0);
	assert_int_equal(ab.verdict, AB_V_RDMA_PATH_PROBLEM);
	assert_string_equal(ab.reason, "run A (RDMA) failed (exit 1, connection-timed-out), run B (sockets) "
			    "completed: the RDMA path is broken");
	assert_true(strncmp(ab.hint, "the QPs never connected", 23) == 0);
	unpair(&ab);

	/* A stops in the middle of the nccl-tests table: the hang timeout killed it. */
	pair(&ab, FIX "v2.24-tests-hang.log", AB_HUNG, -1, 121.0, FIX "h200-ib-disabled.log",
	     AB_COMPLETED, 0, 9.0);
	assert_int_equal(ab.verdict, AB_V_RDMA_PATH_PROBLEM);
	assert_string_equal(ab.reason, "run A (RDMA) hung (no output for 120 s), run B (sockets) completed: "
			    "the RDMA path is broken");
	assert_true(strncmp(ab.hint, "A stopped with no error", 23) == 0);
	unpair(&ab);

	/* A completion error of another status (4: local protection) is not
	 * called a retry-exceeded one. */
	char path[] = "/tmp/fabtop-test-ab-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *log = "n2:1:2 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
			  "fe80::1%ib0<53249> with error 4, opcode 32564, len 32564, vendor err 81 (Send)\n";
	assert_int_equal(write(fd, log, strlen(log)), (ssize_t)strlen(log));
	close(fd);
	pair(&ab, path, AB_FAILED, 1, 3.0, FIX "h200-ib-disabled.log", AB_COMPLETED, 0, 9.0);
	unlink(path);
	assert_int_equal(ab.verdict, AB_V_RDMA_PATH_PROBLEM);
	assert_true(strncmp(ab.hint, "completion errors (see their status)", 36) == 0);
	unpair(&ab);
}

static void test_decide_not_rdma(void **state)
{
	struct ab ab;
	pair(&ab, FIX "v2.22-bootstrap-refused-srun.log", AB_FAILED, 1, 3.0, FIX "h200-bad-ifname.log",
	     AB_FAILED, 1, 1.0);
	assert_int_equal(ab.verdict, AB_V_NOT_RDMA);
	assert_string_equal(ab.reason, "both runs stopped: A failed (exit 1, socket-error); B failed (exit 1, "
			    "bootstrap-error). Sockets fail too, so the cause is not RDMA");
	assert_string_equal(ab.hint, "check the application start (the command, the launcher), DNS of the "
			    "peers, ports and firewalls between the nodes, and the bootstrap interface "
			    "(NCCL_SOCKET_IFNAME; A used enp65s0)");
	assert_int_equal(ab_exit_code(ab.verdict), 1);
	unpair(&ab);
}

static void test_decide_not_run_and_cancelled(void **state)
{
	struct ab ab;
	/* torch without NCCL_DEBUG: a traceback and no NCCL line. */
	pair(&ab, FIX "v2.20-torch-no-debug.log", AB_FAILED, 1, 3.0, NULL, AB_IDLE, 0, 0);
	assert_int_equal(ab.verdict, AB_V_NOT_RUN);
	assert_string_equal(ab.reason, "run A printed no NCCL line (it failed (exit 1, system-error)): not an NCCL program, "
			    "or it drops NCCL_DEBUG=INFO; nothing to compare");
	assert_int_equal(ab_exit_code(ab.verdict), 2);
	unpair(&ab);

	pair(&ab, NULL, AB_NOT_STARTED, -1, 0, NULL, AB_IDLE, 0, 0);
	assert_int_equal(ab.verdict, AB_V_NOT_RUN);
	unpair(&ab);

	pair(&ab, FIX "v2.10-ib-gdr-ok.log", AB_COMPLETED, 0, 1.0, FIX "h200-ib-disabled.log", AB_CANCELLED, -1, 1.0);
	assert_int_equal(ab.verdict, AB_V_CANCELLED);
	assert_string_equal(ab.reason, "cancelled by the user during run B");
	assert_int_equal(ab_exit_code(ab.verdict), 1);
	unpair(&ab);
}

static void test_names(void **state)
{
	assert_string_equal(ab_verdict_name(AB_V_RDMA_OK), "rdma-ok");
	assert_string_equal(ab_verdict_name(AB_V_IB_DISABLE_IGNORED), "ib-disable-ignored");
	assert_string_equal(ab_verdict_name(AB_V_SOCKET_PATH_PROBLEM), "socket-path-problem");
	assert_string_equal(ab_verdict_name((enum ab_verdict)99), "unknown");
	assert_string_equal(ab_state_name(AB_TIMED_OUT), "timed-out");
	assert_string_equal(ab_state_name((enum ab_state)-1), "unknown");
	assert_int_equal(ab_exit_code(AB_V_PENDING), 2);
	assert_int_equal(ab_exit_code(AB_V_NOT_RDMA), 1);
}

/* ---- argv and environment ------------------------------------------------------------ */

static void assert_words(char *const *got, const char *const *want)
{
	int i = 0;
	for (; want[i]; i++) {
		assert_non_null(got[i]);
		assert_string_equal(got[i], want[i]);
	}
	assert_null(got[i]);
}

static void test_build_plain(void **state)
{
	const char *argv[] = { "all_reduce_perf", "-b", "8", "-e", "1G", NULL };
	const char *extra[] = { "NCCL_SOCKET_IFNAME=eth0", "NCCL_DEBUG=WARN", NULL };
	struct ab_opts o = { .argv = argv, .env_extra = extra };
	struct ab ab;
	char err[256];
	assert_int_equal(ab_init(&ab, &o, err, sizeof(err)), 0);
	assert_true(ab.hang_s == AB_HANG_DEFAULT_S);
	assert_words(ab.run[0].argv, argv);
	assert_words(ab.run[1].argv, argv);
	/* The user's NCCL_DEBUG=WARN gives way to INFO, in its place; the debug file is removed. */
	assert_words(ab.run[0].env, (const char *[]){ "NCCL_SOCKET_IFNAME=eth0", "NCCL_DEBUG=INFO",
		     "NCCL_DEBUG_SUBSYS=INIT,NET", "NCCL_DEBUG_FILE", NULL });
	assert_words(ab.run[1].env, (const char *[]){ "NCCL_SOCKET_IFNAME=eth0", "NCCL_DEBUG=INFO",
		     "NCCL_DEBUG_SUBSYS=INIT,NET", "NCCL_DEBUG_FILE", "NCCL_IB_DISABLE=1", NULL });
	assert_string_equal(ab.run[0].display, "NCCL_SOCKET_IFNAME=eth0 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET "
			    "all_reduce_perf -b 8 -e 1G");
	assert_string_equal(ab.run[1].display, "NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=eth0 NCCL_DEBUG=INFO "
			    "NCCL_DEBUG_SUBSYS=INIT,NET all_reduce_perf -b 8 -e 1G");
	assert_int_equal(ab.run[0].label, 'A');
	assert_int_equal(ab.run[1].label, 'B');
	assert_int_equal(ab.cur, -1);
	assert_int_equal(ab.verdict, AB_V_PENDING);
	ab_free(&ab);
	ab_free(&ab);   /* twice is harmless */
}

static void test_build_mpirun(void **state)
{
	const char *argv[] = { "/opt/openmpi/bin/mpirun", "-np", "16", "-x", "NCCL_DEBUG=WARN", "-x",
			       "NCCL_IB_HCA=mlx5_0", "-x", "NCCL_IB_DISABLE", "all_reduce_perf", "-g", "1", NULL };
	struct ab_opts o = { .argv = argv, .hang_s = 30, .run_timeout_s = 600 };
	struct ab ab;
	char err[256];
	assert_int_equal(ab_init(&ab, &o, err, sizeof(err)), 0);
	assert_true(ab.hang_s == 30 && ab.run_timeout_s == 600);
	/* Ours right after the launcher; the user's -x for NCCL_DEBUG dropped, theirs for
	 * NCCL_IB_DISABLE kept in A (A runs as given) and dropped in B. */
	assert_words(ab.run[0].argv, (const char *[]){ "/opt/openmpi/bin/mpirun", "-x", "NCCL_DEBUG=INFO",
		     "-x", "NCCL_DEBUG_SUBSYS=INIT,NET", "-np", "16", "-x", "NCCL_IB_HCA=mlx5_0", "-x",
		     "NCCL_IB_DISABLE", "all_reduce_perf", "-g", "1", NULL });
	assert_words(ab.run[1].argv, (const char *[]){ "/opt/openmpi/bin/mpirun", "-x", "NCCL_DEBUG=INFO",
		     "-x", "NCCL_DEBUG_SUBSYS=INIT,NET", "-x", "NCCL_IB_DISABLE=1", "-np", "16", "-x",
		     "NCCL_IB_HCA=mlx5_0", "all_reduce_perf", "-g", "1", NULL });
	/* The launcher's line shows the variables already. */
	assert_string_equal(ab.run[1].display, "/opt/openmpi/bin/mpirun -x NCCL_DEBUG=INFO -x "
			    "NCCL_DEBUG_SUBSYS=INIT,NET -x NCCL_IB_DISABLE=1 -np 16 -x NCCL_IB_HCA=mlx5_0 "
			    "all_reduce_perf -g 1");
	ab_free(&ab);

	/* srun and torchrun pass the environment on: nothing inserted. */
	const char *srun[] = { "srun", "-N", "2", "all_reduce_perf", NULL };
	o.argv = srun;
	assert_int_equal(ab_init(&ab, &o, err, sizeof(err)), 0);
	assert_words(ab.run[1].argv, srun);
	ab_free(&ab);
}

static void test_build_errors(void **state)
{
	struct ab ab;
	char err[256];
	struct ab_opts o = { 0 };
	assert_int_equal(ab_init(&ab, &o, err, sizeof(err)), -1);
	assert_string_equal(err, "no NCCL test command: give it after --, e.g. -- all_reduce_perf -b 8 -e 1G -f 2 -g 8");
	const char *empty[] = { NULL };
	o.argv = empty;
	assert_int_equal(ab_init(&ab, &o, err, sizeof(err)), -1);
	const char *blank[] = { "all_reduce_perf", "", NULL };
	o.argv = blank;
	assert_int_equal(ab_init(&ab, &o, err, sizeof(err)), -1);
	assert_string_equal(err, "the NCCL test command's word 2 is empty");
	const char *ok[] = { "all_reduce_perf", NULL };
	const char *bad_env[] = { "=1", NULL };
	o.argv = ok;
	o.env_extra = bad_env;
	assert_int_equal(ab_init(&ab, &o, err, sizeof(err)), -1);
	assert_string_equal(err, "environment entry '=1' is not K=V");
	o.env_extra = NULL;
	o.hang_s = -1;
	assert_int_equal(ab_init(&ab, &o, err, sizeof(err)), -1);
	o.hang_s = 0;

	/* 128 words fit; 129 do not; 127 plus mpirun's six -x words do not either. */
	const char *many[AB_MAX_ARGS + 2];
	for (int i = 0; i < AB_MAX_ARGS + 1; i++)
		many[i] = i ? "x" : "all_reduce_perf";
	many[AB_MAX_ARGS + 1] = NULL;
	o.argv = many;
	assert_int_equal(ab_init(&ab, &o, err, sizeof(err)), -1);
	assert_string_equal(err, "the NCCL test command is too long: at most 128 words");
	many[AB_MAX_ARGS] = NULL;
	assert_int_equal(ab_init(&ab, &o, err, sizeof(err)), 0);
	ab_free(&ab);
	many[0] = "mpirun";
	many[AB_MAX_ARGS - 1] = NULL;
	assert_int_equal(ab_init(&ab, &o, err, sizeof(err)), -1);
	assert_string_equal(err, "the NCCL test command is too long: at most 128 words with the A/B's additions");
	ab_free(&ab);

	const char *too_many_env[AB_MAX_ENV + 1];
	char names[AB_MAX_ENV][16];
	for (int i = 0; i < AB_MAX_ENV; i++) {
		snprintf(names[i], sizeof(names[i]), "V%d=1", i);
		too_many_env[i] = names[i];
	}
	too_many_env[AB_MAX_ENV] = NULL;
	o.argv = ok;
	o.env_extra = too_many_env;
	assert_int_equal(ab_init(&ab, &o, err, sizeof(err)), -1);
	assert_string_equal(err, "too many environment variables for the A/B (at most 16)");
}

/* ---- the loopback proposal ------------------------------------------------------------ */

static void test_loopback(void **state)
{
	char dir[] = "/tmp/fabtop-ab-XXXXXX", link[PATH_MAX], buf[128], why[512];
	const char *argv[16], *env[4];
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	assert_non_null(mkdtemp(dir));
	setenv("PATH", dir, 1);
	assert_false(ab_propose_loopback(8, buf, sizeof(buf), argv, 16, env, 4, why, sizeof(why)));
	assert_true(strncmp(why, "no all_reduce_perf on PATH: build nccl-tests", 44) == 0);

	snprintf(link, sizeof(link), "%s/all_reduce_perf", dir);
	assert_int_equal(symlink(fake, link), 0);
	setenv("PATH", "/nonexistent:", 1);   /* an empty entry is the current directory */
	assert_false(ab_propose_loopback(8, buf, sizeof(buf), argv, 16, env, 4, why, sizeof(why)));
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "/nonexistent:%s", dir);
	setenv("PATH", path, 1);
	assert_false(ab_propose_loopback(1, buf, sizeof(buf), argv, 16, env, 4, why, sizeof(why)));
	assert_string_equal(why, "the single-node loopback run needs at least two GPUs here (1 found): give "
			    "the NCCL test after --, e.g. your mpirun/srun line across two nodes");
	assert_true(ab_propose_loopback(8, buf, sizeof(buf), argv, 16, env, 4, why, sizeof(why)));
	const char *want[] = { "all_reduce_perf", "-b", "8", "-e", "256M", "-f", "4", "-g", "8", NULL };
	for (int i = 0; want[i]; i++)
		assert_string_equal(argv[i], want[i]);
	assert_null(argv[9]);
	assert_string_equal(env[0], "NCCL_P2P_DISABLE=1");
	assert_string_equal(env[1], "NCCL_SHM_DISABLE=1");
	assert_null(env[2]);
	assert_false(ab_propose_loopback(8, buf, 8, argv, 16, env, 4, why, sizeof(why)));   /* no room */
	assert_false(ab_propose_loopback(8, buf, sizeof(buf), argv, 4, env, 4, why, sizeof(why)));

	/* A directory or a plain file of that name is not a program. */
	unlink(link);
	assert_int_equal(mkdir(link, 0755), 0);
	assert_false(ab_propose_loopback(8, buf, sizeof(buf), argv, 16, env, 4, why, sizeof(why)));
	rmdir(link);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	rmdir(dir);
}

/* ---- the engine, on real processes ----------------------------------------------------- */

static void start_pair(struct ab *ab, const char *const *argv, double hang_s)
{
	struct ab_opts o = { .argv = argv, .hang_s = hang_s, .run_timeout_s = 60 };
	char err[256];
	assert_int_equal(ab_init(ab, &o, err, sizeof(err)), 0);
}

static void test_engine_ok_env_reaches_child(void **state)
{
	char file[] = "/tmp/fabtop-ab-debugfile-XXXXXX";
	int fd = mkstemp(file);
	assert_true(fd >= 0);
	close(fd);
	unlink(file);
	/* Inherited: the A/B must remove it, or the log goes to the file. */
	setenv("NCCL_DEBUG_FILE", file, 1);
	setenv("NCCL_DEBUG", "WARN", 1);
	struct ab ab;
	start_pair(&ab, (const char *[]){ fake, "ok", NULL }, 10);
	assert_int_equal(ab_run_all(&ab), AB_V_RDMA_OK);
	unsetenv("NCCL_DEBUG_FILE");
	unsetenv("NCCL_DEBUG");
	assert_int_equal(access(file, F_OK), -1);
	assert_int_equal(ab.run[0].state, AB_COMPLETED);
	assert_int_equal(ab.run[1].state, AB_COMPLETED);
	assert_string_equal(ab.measure, "bus bandwidth");
	assert_true(ab.ratio > 19.999 && ab.ratio < 20.001);
	assert_true(ab.run[0].log.ncolls == 1 && ab.run[0].log.colls[0].avg_busbw.ok && ab.run[0].log.colls[0].avg_busbw.v == 180.0);
	assert_true(ab.run[1].log.ncolls == 1 && ab.run[1].log.colls[0].avg_busbw.ok && ab.run[1].log.colls[0].avg_busbw.v == 9.0);
	assert_int_equal(ab.run[0].log.nccl_lines, 26);
	assert_true(nccl_log_used_rdma(&ab.run[0].log));
	assert_false(nccl_log_used_rdma(&ab.run[1].log));
	assert_int_equal(ab.run[0].log.gdr, NCCL_GDR_ON);
	assert_string_equal(ab.run[0].log.hcas[0].name, "mlx5_0");
	assert_string_equal(ab.run[0].log.hcas[0].link_layer, "RoCE");
	assert_string_equal(ab.run[0].why, "exit 0");
	/* The tail holds the last lines, in order. */
	const struct ab_run *a = &ab.run[0];
	assert_int_equal(a->tail_n, AB_TAIL_LINES);
	int last = (a->tail_next - 1 + AB_TAIL_LINES) % AB_TAIL_LINES;
	assert_string_equal(a->tail[last], "# Collective test concluded: all_reduce_perf");
	assert_int_equal(a->out_lines, 44);
	ab_free(&ab);
}

/* State of a process: 0 gone (or a zombie, dead but not reaped by PID 1), 1 alive. */
static int alive(pid_t pid)
{
	char path[64], buf[512];
	if (kill(pid, 0) != 0)
		return errno == ESRCH ? 0 : 1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

static pid_t grandchild_of(const struct ab_run *r)
{
	for (int i = 0; i < r->tail_n; i++) {
		int pid;
		if (sscanf(r->tail[i], "fake_nccl: grandchild pid %d", &pid) == 1)
			return pid;
	}
	return 0;
}

static void test_engine_hang(void **state)
{
	struct ab ab;
	start_pair(&ab, (const char *[]){ fake, "ib-hang", NULL }, 1);
	assert_int_equal(ab_run_all(&ab), AB_V_RDMA_PATH_PROBLEM);
	const struct ab_run *a = &ab.run[0];
	assert_int_equal(a->state, AB_HUNG);
	assert_true(a->res.hung);
	assert_true(a->elapsed_s >= 1.0 && a->elapsed_s < 3.0);
	assert_string_equal(a->why, "no output for 1 s (killed)");
	pid_t g = grandchild_of(a);
	assert_true(g > 1);
	assert_int_equal(alive(g), 0);
	assert_int_equal(ab.run[1].state, AB_COMPLETED);
	assert_int_equal(a->log.outcome, NCCL_RUN_INCOMPLETE);
	ab_free(&ab);
}

static void test_engine_cancel(void **state)
{
	struct ab ab;
	start_pair(&ab, (const char *[]){ fake, "both-hang", NULL }, 30);
	assert_int_equal(ab_start(&ab), 0);
	assert_int_equal(ab.cur, 0);
	pid_t pid = run_pid(ab.run[0].job);
	/* Output wakes the poll early: the log is read as it streams. */
	for (int i = 0; i < 20 && !grandchild_of(&ab.run[0]); i++)
		assert_int_equal(ab_poll(&ab, 100), 0);
	assert_int_equal(ab.run[0].state, AB_RUNNING);
	assert_int_equal(ab.run[0].log.nccl_lines, 12);   /* bootstrap, net set-up, two Init START */
	ab_cancel(&ab);
	assert_int_equal(ab.verdict, AB_V_CANCELLED);
	assert_int_equal(ab.run[0].state, AB_CANCELLED);
	assert_int_equal(ab.run[1].state, AB_IDLE);
	assert_int_equal(ab.cur, -1);
	assert_true(ab.run[0].elapsed_s < 5.0);
	assert_int_equal(alive(pid), 0);
	pid_t g = grandchild_of(&ab.run[0]);
	assert_true(g > 1);
	assert_int_equal(alive(g), 0);
	assert_int_equal(ab_poll(&ab, 0), 1);
	ab_cancel(&ab);   /* nothing running: nothing happens */
	ab_free(&ab);
}

static void test_engine_not_run(void **state)
{
	struct ab ab;
	start_pair(&ab, (const char *[]){ "/nonexistent/all_reduce_perf", "-g", "8", NULL }, 5);
	assert_int_equal(ab_start(&ab), -1);
	assert_int_equal(ab.verdict, AB_V_NOT_RUN);
	assert_int_equal(ab_poll(&ab, -1), 1);
	assert_int_equal(ab.run[0].state, AB_NOT_STARTED);
	assert_int_equal(ab.run[1].state, AB_IDLE);
	assert_string_equal(ab.reason, "run A could not start: cannot run /nonexistent/all_reduce_perf: No such "
			    "file or directory");
	ab_free(&ab);

	/* Not an NCCL program: B is not run at all. */
	start_pair(&ab, (const char *[]){ fake, "not-nccl", NULL }, 5);
	assert_int_equal(ab_run_all(&ab), AB_V_NOT_RUN);
	assert_int_equal(ab.run[0].state, AB_COMPLETED);
	assert_int_equal(ab.run[1].state, AB_IDLE);
	assert_string_equal(ab.run[1].why, "run A printed no NCCL line");
	ab_free(&ab);
}

static void test_engine_verdicts(void **state)
{
	static const struct { const char *mode; enum ab_verdict v; enum ab_state a, b; } cases[] = {
		{ "slow", AB_V_RDMA_SLOW, AB_COMPLETED, AB_COMPLETED },
		{ "ib-fail", AB_V_RDMA_PATH_PROBLEM, AB_FAILED, AB_COMPLETED },
		{ "both-fail", AB_V_NOT_RDMA, AB_FAILED, AB_FAILED },
		{ "no-ib", AB_V_IB_NOT_USED, AB_COMPLETED, AB_COMPLETED },
		{ "plugin-ignores", AB_V_IB_DISABLE_IGNORED, AB_COMPLETED, AB_COMPLETED },
		{ "b-fail", AB_V_SOCKET_PATH_PROBLEM, AB_COMPLETED, AB_FAILED },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ab ab;
		start_pair(&ab, (const char *[]){ fake, cases[i].mode, NULL }, 5);
		enum ab_verdict v = ab_run_all(&ab);
		if (v != cases[i].v)
			fail_msg("%s: %s, want %s", cases[i].mode, ab_verdict_name(v), ab_verdict_name(cases[i].v));
		assert_int_equal(ab.run[0].state, cases[i].a);
		assert_int_equal(ab.run[1].state, cases[i].b);
		ab_free(&ab);
	}
}

/* The launcher stand-in passes only -x variables to its ranks: the A/B's reach them. */
static void test_engine_mpirun(void **state)
{
	struct ab ab;
	start_pair(&ab, (const char *[]){ mpirun, "-np", "2", fake, "ok", NULL }, 10);
	assert_int_equal(ab_run_all(&ab), AB_V_RDMA_OK);
	assert_int_equal(ab.run[0].log.nccl_lines, 26);
	ab_free(&ab);
}

static void test_print_json(void **state)
{
	struct ab ab;
	char *doc = NULL;
	size_t len = 0;
	start_pair(&ab, (const char *[]){ fake, "ib-fail", NULL }, 5);
	ab_run_all(&ab);
	FILE *f = open_memstream(&doc, &len);
	struct fab_out *o = out_new(OUT_JSON, f);
	out_open_obj(o, NULL);
	ab_print(o, &ab, false);
	out_close_obj(o);
	assert_int_equal(out_free(o), 0);
	fclose(f);
	assert_non_null(strstr(doc, "\"verdict\":\"rdma-path-problem\"") ?: strstr(doc, "\"verdict\": \"rdma-path-problem\""));
	assert_non_null(strstr(doc, "completion-error"));
	assert_non_null(strstr(doc, "IBV_WC_RETRY_EXC_ERR(12)"));
	free(doc);
	ab_free(&ab);
}

static int setup(void **state)
{
	const char *top = getenv("FABTOP_TOP");
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/build/tests/fake_nccl", top ? top : ".");
	if (!realpath(p, fake)) {
		fprintf(stderr, "test_ab: %s is missing: make build/tests/fake_nccl\n", p);
		return -1;
	}
	snprintf(p, sizeof(p), "%s/tests/ab/mpirun", top ? top : ".");
	if (!realpath(p, mpirun))
		return -1;
	if (top && chdir(top) != 0)
		return -1;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide_rdma_ok_and_slow),
		cmocka_unit_test(test_decide_runs_and_line_rate),
		cmocka_unit_test(test_decide_ib_not_used),
		cmocka_unit_test(test_decide_ib_disable_ignored),
		cmocka_unit_test(test_decide_no_network),
		cmocka_unit_test(test_decide_socket_path_problem),
		cmocka_unit_test(test_decide_rdma_path_problem),
		cmocka_unit_test(test_decide_not_rdma),
		cmocka_unit_test(test_decide_not_run_and_cancelled),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_build_plain),
		cmocka_unit_test(test_build_mpirun),
		cmocka_unit_test(test_build_errors),
		cmocka_unit_test(test_loopback),
		cmocka_unit_test(test_engine_ok_env_reaches_child),
		cmocka_unit_test(test_engine_hang),
		cmocka_unit_test(test_engine_cancel),
		cmocka_unit_test(test_engine_not_run),
		cmocka_unit_test(test_engine_verdicts),
		cmocka_unit_test(test_engine_mpirun),
		cmocka_unit_test(test_print_json),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
