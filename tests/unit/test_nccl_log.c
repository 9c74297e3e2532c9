/* The NCCL log analyzer on the real H200 logs (NCCL 2.28.9), on excerpts in
 * the wordings of NCCL 2.10 to 2.28 (tests/fixtures/nccl-logs/README), and on
 * input built here: many interleaved ranks, CRLF, a cut last line, NUL bytes,
 * lines far past 64 KiB, and every bound (errors, sizes, ranks). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/nccl_log.h"

#define FIX "tests/fixtures/nccl-logs/"

/* Feeds a file line by line, as analyze-log does, under its own name. */
static void feed_file(struct nccl_log *a, const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	nccl_log_source(a, path + strlen(FIX));
	while ((n = getline(&line, &cap, f)) > 0)
		nccl_log_feed(a, line, (size_t)n);
	free(line);
	fclose(f);
}

/* Feeds text split at '\n'; the last piece is fed even without one. */
static void feed_text(struct nccl_log *a, const char *s)
{
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) + 1 : strlen(s);
		nccl_log_feed(a, s, n);
		s += n;
	}
}

static struct nccl_log *analyze(const char *file)
{
	struct nccl_log *a = malloc(sizeof(*a));
	assert_non_null(a);
	nccl_log_init(a);
	feed_file(a, file);
	nccl_log_finish(a);
	return a;
}

static struct nccl_log *analyze_text(const char *text)
{
	struct nccl_log *a = malloc(sizeof(*a));
	assert_non_null(a);
	nccl_log_init(a);
	feed_text(a, text);
	nccl_log_finish(a);
	return a;
}

static void done(struct nccl_log *a)
{
	nccl_log_free(a);
	free(a);
}

/* ---- the real H200 logs ---- */

static void test_h200_socket_ok(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "h200-socket-ok.log");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_FALLBACK);
	assert_string_equal(a->reason, "No device found");
	assert_int_equal(a->outcome, NCCL_RUN_COMPLETED);
	assert_string_equal(a->version, "2.28.9+cuda13.0");
	assert_false(a->version_mismatch);
	assert_string_equal(a->bootstrap_if, "eth0");
	assert_string_equal(a->bootstrap_addr, "192.0.2.2");
	assert_string_equal(a->oob_if, "eth0");
	assert_string_equal(a->oob_addr, "192.0.2.2");
	assert_int_equal(a->plugin, NCCL_PLUGIN_NONE);
	assert_int_equal(a->nnets, 1);
	assert_string_equal(a->nets[0].name, "Socket");
	assert_int_equal(a->nets[0].n, 1);
	assert_true(a->ib_tried);
	assert_string_equal(a->ib_reason, "No device found");
	assert_int_equal(a->nhcas, 0);  /* "NET/IB : Using [RO]; OOB ...": no device */
	assert_int_equal(a->gdr, NCCL_GDR_UNKNOWN);  /* sockets' "Disabled" does not count */
	assert_int_equal(a->gdr_disabled_lines, 0);
	assert_int_equal(a->lines, 309);
	assert_int_equal(a->nccl_lines, 309);
	assert_int_equal(a->warn_lines, 0);
	assert_int_equal(a->ranks, 1);
	assert_true(a->nranks.ok);
	assert_int_equal(a->nranks.v, 1);
	assert_int_equal(a->nnodes.v, 1);
	assert_int_equal(a->init_start, 1);
	assert_int_equal(a->init_complete, 1);
	assert_int_equal(a->destroy_complete, 1);
	assert_int_equal(a->errors, 0);
	assert_int_equal(a->nenv, 0);
	assert_false(a->tests_started);
	assert_true(nccl_log_used_socket(a));
	assert_false(nccl_log_used_rdma(a));
	assert_string_equal(a->last_line,
			    "vm:700:700 [0] NCCL INFO ENV/Plugin: Closing env plugin ncclEnvDefault");
	done(a);
}

static void test_h200_ib_disabled(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "h200-ib-disabled.log");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_BY_CONFIG);
	assert_string_equal(a->reason, "IB was not tried (NCCL_IB_DISABLE=1 or NCCL_NET=Socket in "
			    "the environment; this log does not say which)");
	assert_false(a->ib_tried);
	assert_int_equal(a->outcome, NCCL_RUN_COMPLETED);
	assert_string_equal(a->version, "2.28.9+cuda13.0");
	assert_string_equal(a->bootstrap_if, "eth0");
	assert_string_equal(a->oob_if, "");  /* only the IB line names an OOB interface */
	assert_string_equal(a->nets[0].name, "Socket");
	done(a);
}

static void test_h200_bad_ifname(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "h200-bad-ifname.log");
	assert_int_equal(a->verdict, NCCL_V_BOOTSTRAP_ERROR);
	assert_string_equal(a->reason,
			    "Bootstrap : no socket interface found (NCCL_SOCKET_IFNAME=bogus0)");
	assert_int_equal(a->outcome, NCCL_RUN_FAILED);
	assert_int_equal(a->nenv, 1);  /* "set by environment to" and "set to": one variable */
	assert_string_equal(a->env[0].name, "NCCL_SOCKET_IFNAME");
	assert_string_equal(a->env[0].value, "bogus0");
	assert_false(a->env[0].conflict);
	assert_string_equal(nccl_log_env(a, "NCCL_SOCKET_IFNAME"), "bogus0");
	assert_null(nccl_log_env(a, "NCCL_IB_DISABLE"));
	assert_int_equal(a->errors, 1);
	assert_int_equal(a->nerr, 1);
	assert_int_equal(a->err[0].kind, NCCL_E_BOOTSTRAP);
	assert_int_equal(a->err[0].cls, NCCL_C_BOOTSTRAP);
	assert_false(a->err[0].framework);
	assert_string_equal(a->err[0].text, "Bootstrap : no socket interface found");
	assert_string_equal(a->err[0].rank, "vm:777");  /* after the timestamp */
	assert_string_equal(a->err[0].source, "h200-bad-ifname.log");
	assert_int_equal(a->err[0].line, 5);
	assert_true(a->first_retcode.ok);
	assert_int_equal(a->first_retcode.v, 5);
	assert_string_equal(a->first_retcode_at, "init.cc:126");
	assert_string_equal(a->version, "");
	assert_int_equal(a->lines, 8);
	assert_int_equal(a->nccl_lines, 7);  /* the blank line before the WARN is not NCCL's */
	done(a);
}

static void test_h200_duplicate_gpu(void **state)
{
	(void)state;
	struct nccl_log *a = malloc(sizeof(*a));
	nccl_log_init(a);
	feed_file(a, FIX "h200-duplicate-gpu.rank0.log");
	feed_file(a, FIX "h200-duplicate-gpu.rank1.log");
	nccl_log_finish(a);
	assert_int_equal(a->verdict, NCCL_V_INVALID_USAGE);
	assert_string_equal(a->reason,
			    "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 60");
	assert_int_equal(a->outcome, NCCL_RUN_FAILED);
	assert_int_equal(a->ranks, 2);
	assert_int_equal(a->nranks.v, 2);
	assert_int_equal(a->init_start, 2);
	assert_int_equal(a->init_complete, 0);
	assert_int_equal(a->nerr, 2);
	assert_int_equal(a->err[0].kind, NCCL_E_INVALID_USAGE);
	assert_string_equal(a->err[0].rank, "vm:838");
	assert_string_equal(a->err[0].source, "h200-duplicate-gpu.rank0.log");
	assert_int_equal(a->err[0].line, 21);
	assert_string_equal(a->err[1].rank, "vm:839");
	assert_string_equal(a->err[1].source, "h200-duplicate-gpu.rank1.log");
	assert_int_equal(a->err[1].line, 21);
	assert_string_equal(a->version, "2.28.9+cuda13.0");
	assert_false(a->version_mismatch);
	/* Both ranks fell back to sockets too; the usage error comes first. */
	assert_string_equal(a->nets[0].name, "Socket");
	assert_int_equal(a->nets[0].n, 2);
	done(a);
}

static void test_h200_torch(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "h200-torch-ok.log");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_FALLBACK);
	assert_string_equal(a->reason, "No device found");
	assert_int_equal(a->outcome, NCCL_RUN_COMPLETED);
	done(a);

	a = analyze(FIX "h200-torch-ib-disabled-subsys-all.log");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_BY_CONFIG);
	assert_string_equal(a->reason, "NCCL_IB_DISABLE=1 set by environment");
	assert_string_equal(nccl_log_env(a, "NCCL_IB_DISABLE"), "1");  /* "to 1." */
	assert_true(a->ib_tried);  /* "Failed to initialize NET plugin IB": it was off */
	/* NCCL's trace of the disabled IB init is no failure: the run completed. */
	assert_int_equal(a->first_retcode.v, 3);
	assert_string_equal(a->first_retcode_at, "transport/net_ib.cc:852");
	assert_int_equal(a->outcome, NCCL_RUN_COMPLETED);
	assert_int_equal(a->errors, 0);
	done(a);

	a = analyze(FIX "h200-torch-net-ib-forced.log");
	assert_int_equal(a->verdict, NCCL_V_IB_ERROR);
	assert_string_equal(a->reason,
			    "Failed to initialize any NET plugin (NET/IB: No device found)");
	assert_int_equal(a->err_kind[NCCL_E_NET_INIT], 1);
	assert_int_equal(a->nerr, 3);
	assert_true(a->err[1].framework);
	assert_int_equal(a->err[1].cls, NCCL_C_OTHER);
	assert_string_equal(a->err[2].text,
			    "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.");
	assert_false(a->version_mismatch);  /* torch's "NCCL version 2.28.9" agrees */
	assert_int_equal(a->nnets, 0);
	done(a);

	a = analyze(FIX "h200-torch-timestamps-plugin.log");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_FALLBACK);
	assert_string_equal(nccl_log_env(a, "NCCL_NET_PLUGIN"), "nosuch");
	/* NCCL_NET_PLUGIN=nosuch asked for a plugin that is not there: a finding */
	assert_int_equal(a->plugin, NCCL_PLUGIN_FAILED);
	assert_string_equal(a->plugin_error, "Could not find: nosuch libnccl-net-nosuch.so");
	assert_int_equal(a->nwarn, 1);
	assert_int_equal(a->warn[0].kind, NCCL_W_PLUGIN_FAILED);
	assert_int_equal(a->outcome, NCCL_RUN_COMPLETED);
	assert_int_equal(a->ranks, 1);
	assert_string_equal(a->version, "2.28.9+cuda13.0");
	assert_string_equal(a->bootstrap_if, "eth0");
	done(a);

	a = analyze(FIX "h200-torch-bad-ifname.log");
	assert_int_equal(a->verdict, NCCL_V_BOOTSTRAP_ERROR);
	assert_string_equal(a->reason,
			    "Bootstrap : no socket interface found (NCCL_SOCKET_IFNAME=bogus0)");
	assert_int_equal(a->err[0].count, 1);  /* torch's "Last error:" repeats it: not again */
	assert_int_equal(a->errors, 3);
	assert_string_equal(a->version, "2.28.9");  /* only torch's line says it */
	done(a);
}

/* ---- excerpts in older wordings ---- */

static void test_v210_ib_gdr_ok(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "v2.10-ib-gdr-ok.log");
	assert_int_equal(a->verdict, NCCL_V_OK);
	assert_string_equal(a->reason, "completed over IB, GPUDirect RDMA on");
	assert_int_equal(a->outcome, NCCL_RUN_COMPLETED);
	assert_string_equal(a->version, "2.10.3+cuda11.4");
	assert_int_equal(a->ranks, 4);
	assert_int_equal(a->nranks.v, 4);
	assert_string_equal(a->bootstrap_if, "eth0");
	assert_string_equal(a->bootstrap_addr, "192.0.2.11");
	assert_int_equal(a->plugin, NCCL_PLUGIN_NONE);
	assert_int_equal(a->nnets, 1);
	assert_string_equal(a->nets[0].name, "IB");
	assert_int_equal(a->nets[0].n, 4);
	assert_int_equal(a->nhcas, 2);
	assert_string_equal(a->hcas[0].name, "mlx5_0");
	assert_int_equal(a->hcas[0].port, 1);
	assert_string_equal(a->hcas[0].link_layer, "IB");
	assert_string_equal(a->hcas[1].name, "mlx5_1");
	assert_int_equal(a->gdr, NCCL_GDR_ON);
	assert_int_equal(a->gdr_enabled_lines, 2);
	assert_int_equal(a->ch_net_rdma, 8);
	assert_int_equal(a->ch_net_gdr, 8);
	assert_int_equal(a->ch_p2p, 4);
	assert_int_equal(a->nvia, 3);
	assert_string_equal(a->via[0].name, "NET/IB/0/GDRDMA");
	assert_int_equal(a->via[0].n, 4);
	assert_int_equal(a->qp_lines, 2);
	assert_int_equal(a->nmtu, 1);
	assert_int_equal(a->mtu[0], 4096);
	assert_int_equal(a->ngid_index, 0);  /* IB: LID, no GID */
	assert_int_equal(a->colls[0].nsizes, 4);
	assert_int_equal(a->colls[0].sizes[3].bytes, 134217728);
	assert_int_equal(a->colls[0].sizes[3].count, 33554432);
	assert_string_equal(a->colls[0].sizes[3].type, "float");
	assert_string_equal(a->colls[0].sizes[3].redop, "sum");
	assert_float_equal(a->colls[0].sizes[3].algbw_oop.v, 39.33, 1e-9);
	assert_float_equal(a->colls[0].sizes[3].busbw_oop.v, 58.99, 1e-9);
	assert_float_equal(a->colls[0].sizes[3].busbw_ip.v, 59.06, 1e-9);
	assert_true(a->colls[0].avg_busbw.ok);
	assert_float_equal(a->colls[0].avg_busbw.v, 18.7711, 1e-9);
	assert_int_equal(a->colls[0].oob_values.v, 0);
	assert_int_equal(a->init_complete, 4);
	assert_int_equal(a->destroy_complete, 2);
	done(a);
}

static void test_v212_roce_no_gdr(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "v2.12-roce-no-gdr.log");
	assert_int_equal(a->verdict, NCCL_V_NO_GDR);
	assert_string_equal(a->reason,
			    "completed over IB without GPUDirect RDMA (staged through host memory)");
	assert_int_equal(a->gdr, NCCL_GDR_OFF);
	assert_int_equal(a->gdr_disabled_lines, 1);
	assert_int_equal(a->ch_net_rdma, 2);
	assert_int_equal(a->ch_net_gdr, 0);
	assert_int_equal(a->nhcas, 2);
	assert_string_equal(a->hcas[1].name, "mlx5_1");
	assert_string_equal(a->hcas[1].link_layer, "RoCE");
	assert_string_equal(a->oob_if, "ens8f0");
	assert_int_equal(a->ngid_index, 1);
	assert_int_equal(a->gid_index[0], 3);
	assert_int_equal(a->mtu[0], 1024);
	assert_int_equal(a->nenv, 2);
	assert_string_equal(nccl_log_env(a, "NCCL_IB_GID_INDEX"), "3");
	assert_string_equal(nccl_log_env(a, "NCCL_IB_HCA"), "mlx5_0,mlx5_1");
	assert_int_equal(a->nranks.v, 16);
	assert_int_equal(a->nnodes.v, 2);
	/* nccl-tests with the root column */
	assert_int_equal(a->colls[0].nsizes, 4);
	assert_int_equal(a->colls[0].sizes[0].bytes, 1048576);
	assert_float_equal(a->colls[0].sizes[0].busbw_oop.v, 4.77, 1e-9);
	assert_float_equal(a->colls[0].sizes[0].algbw_ip.v, 2.56, 1e-9);
	assert_float_equal(a->colls[0].avg_busbw.v, 12.9452, 1e-9);
	done(a);
}

static void test_v218_socket_fallback(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "v2.18-socket-fallback-no-verbs.log");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_FALLBACK);
	assert_string_equal(a->reason, "Failed to open libibverbs.so[.1]");
	/* No "Bootstrap : Using": the socket transport's interface stands in. */
	assert_string_equal(a->bootstrap_if, "eth0");
	assert_string_equal(a->bootstrap_addr, "203.0.113.7");
	assert_int_equal(a->plugin, NCCL_PLUGIN_NONE);
	assert_int_equal(a->ch_net_socket, 4);
	assert_int_equal(a->ch_net_rdma, 0);
	assert_int_equal(a->nnodes.v, 2);
	done(a);
}

static void test_v219_completion_error(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "v2.19-completion-error-mpirun.log");
	assert_int_equal(a->verdict, NCCL_V_IB_ERROR);
	assert_int_equal(a->outcome, NCCL_RUN_FAILED);
	assert_int_equal(a->ranks, 2);  /* behind mpirun's "[1,0]<stdout>:" */
	assert_int_equal(a->err_kind[NCCL_E_COMPLETION], 3);
	assert_int_equal(a->err[0].kind, NCCL_E_COMPLETION);
	assert_true(a->err[0].status.ok);
	assert_int_equal(a->err[0].status.v, 12);
	assert_int_equal(a->err[0].count, 2);
	assert_string_equal(a->err[0].rank, "h100b:51344");
	assert_int_equal(a->err[0].line, 33);
	assert_int_equal(a->err[1].status.v, 5);
	assert_string_equal(a->err[1].rank, "h100a:77120");
	assert_int_equal(a->err[2].kind, NCCL_E_REMOTE);
	assert_true(a->err[2].framework);
	assert_string_equal(nccl_wc_status_str(12), "transport retry counter exceeded");
	assert_string_equal(nccl_wc_status_str(5), "Work Request Flushed Error");
	assert_null(nccl_wc_status_str(-1));
	assert_null(nccl_wc_status_str(22));
	assert_true(a->tests_started);
	assert_false(a->colls[0].avg_busbw.ok);
	assert_int_equal(a->colls[0].nsizes, 1);
	assert_int_equal(a->first_retcode.v, 6);
	assert_string_equal(a->version, "2.19.3+cuda12.3");
	assert_int_equal(a->gdr, NCCL_GDR_ON);
	assert_int_equal(a->mtu[0], 1024);
	done(a);
}

static void test_v220_oom_and_torch(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "v2.20-oom.log");
	assert_int_equal(a->verdict, NCCL_V_NCCL_ERROR);
	assert_string_equal(a->reason, "Cuda failure 'out of memory'");
	assert_int_equal(a->err[0].kind, NCCL_E_OOM);
	assert_string_equal(a->hcas[0].name, "mlx5_2");
	done(a);

	/* NCCL_DEBUG unset: only torch's exception, and NCCL's last error in it. */
	a = analyze(FIX "v2.20-torch-no-debug.log");
	assert_int_equal(a->verdict, NCCL_V_BOOTSTRAP_ERROR);
	assert_string_equal(a->reason, "socketStartConnect: Connect to 10.10.4.2<43761> failed : "
			    "Software caused connection abort");
	assert_int_equal(a->nccl_lines, 0);
	assert_string_equal(a->version, "2.20.5");
	assert_int_equal(a->err_kind[NCCL_E_SYSTEM], 2);
	assert_int_equal(a->err_kind[NCCL_E_SOCKET], 1);
	assert_int_equal(a->err[0].cls, NCCL_C_OTHER);
	assert_int_equal(a->err[2].cls, NCCL_C_BOOTSTRAP);
	done(a);
}

static void test_v221_plugins(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "v2.21-ibext-plugin-ignores-ib-disable.log");
	/* NCCL_IB_DISABLE=1, yet the IBext plugin carried the traffic. */
	assert_int_equal(a->verdict, NCCL_V_OK);
	assert_string_equal(a->reason, "completed over IBext_v8, GPUDirect RDMA on");
	assert_string_equal(nccl_log_env(a, "NCCL_IB_DISABLE"), "1");
	assert_int_equal(a->plugin, NCCL_PLUGIN_LOADED);
	assert_string_equal(a->plugin_name, "IBext_v8");
	assert_true(nccl_log_used_rdma(a));
	assert_false(nccl_log_used_socket(a));
	assert_string_equal(a->hcas[0].link_layer, "IB/SHARP");
	assert_string_equal(a->hcas[1].name, "mlx5_3");
	assert_int_equal(a->gdr_enabled_lines, 2);
	assert_int_equal(a->ch_net_gdr, 2);
	assert_int_equal(a->ch_p2p, 2);
	assert_float_equal(a->colls[0].avg_busbw.v, 259.32, 1e-9);
	assert_float_equal(a->colls[0].sizes[1].busbw_ip.v, 272.13, 1e-9);
	done(a);

	a = analyze(FIX "v2.21-torch-watchdog.log");
	assert_int_equal(a->verdict, NCCL_V_NCCL_ERROR);
	assert_int_equal(a->err[0].kind, NCCL_E_COLL_TIMEOUT);
	assert_string_equal(a->plugin_name, "AWS Libfabric");
	assert_string_equal(a->nets[0].name, "AWS Libfabric");
	assert_string_equal(a->via[0].name, "NET/AWS Libfabric/0/GDRDMA");
	assert_int_equal(a->via[0].n, 2);
	assert_int_equal(a->gdr, NCCL_GDR_ON);
	done(a);
}

static void test_v222_bootstrap_srun(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "v2.22-bootstrap-refused-srun.log");
	assert_int_equal(a->verdict, NCCL_V_BOOTSTRAP_ERROR);
	assert_string_equal(a->reason, "socketStartConnect: Connect to 203.0.113.14<39043> failed : "
			    "Connection refused (NCCL_SOCKET_IFNAME=enp65s0)");
	assert_int_equal(a->ranks, 2);
	assert_string_equal(a->err[0].rank, "trn-015:70433");
	assert_int_equal(a->err_kind[NCCL_E_SOCKET], 2);
	assert_int_equal(a->err_kind[NCCL_E_BOOTSTRAP], 1);
	assert_int_equal(a->init_start, 2);
	done(a);
}

static void test_v223_qp_timeout(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "v2.23-modify-qp-timeout.log");
	assert_int_equal(a->verdict, NCCL_V_IB_ERROR);
	assert_int_equal(a->retries, 2);
	assert_int_equal(a->errors, 1);
	assert_int_equal(a->err[0].kind, NCCL_E_TIMEOUT);
	assert_int_equal(a->err[0].cls, NCCL_C_IB);
	assert_int_equal(a->err[0].status.v, 110);
	assert_int_equal(a->nhcas, 4);
	assert_int_equal(a->plugin, NCCL_PLUGIN_NONE);
	done(a);
}

static void test_tests_results(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "v2.24-tests-hang.log");
	assert_int_equal(a->verdict, NCCL_V_INCOMPLETE);
	assert_int_equal(a->outcome, NCCL_RUN_INCOMPLETE);
	assert_string_equal(a->reason, "nccl-tests all_reduce_perf stopped after the 65536-byte row, before its summary");
	assert_string_equal(a->version, "2.24.3");  /* nccl-library=22403 */
	assert_int_equal(a->colls[0].nsizes, 3);
	done(a);

	a = analyze(FIX "v2.26-wrong-values.log");
	assert_int_equal(a->verdict, NCCL_V_NCCL_ERROR);
	assert_int_equal(a->outcome, NCCL_RUN_COMPLETED);
	assert_string_equal(a->reason, "nccl-tests found 24 wrong values in all_reduce_perf (Out of bounds values)");
	assert_int_equal(a->colls[0].oob_values.v, 24);
	done(a);

	a = analyze(FIX "v2.27-version-mismatch.log");
	assert_int_equal(a->verdict, NCCL_V_INVALID_USAGE);
	assert_true(a->version_mismatch);
	assert_string_equal(a->version, "2.27.3+cuda12.9");
	done(a);
}

/* Several nccl-tests runs in one output (issue 13, class 8). */
static void test_tests_runs(void **state)
{
	(void)state;
	/* https://github.com/NVIDIA/nccl-tests/issues/78 (ngc7292's comment):
	 * all_reduce, then alltoall, whose rows carry no redop before 2.13. */
	struct nccl_log *a = analyze(FIX "tests78-v2.8-allreduce-then-alltoall.log");
	assert_int_equal(a->ncolls, 2);
	assert_string_equal(a->colls[0].name, "");
	assert_int_equal(a->colls[0].nsizes, 2);
	assert_string_equal(a->colls[0].sizes[1].redop, "sum");
	assert_float_equal(a->colls[0].avg_busbw.v, 4.32178, 1e-9);
	assert_float_equal(a->colls[0].peak_busbw.v, 4.33, 1e-9);
	assert_int_equal(a->colls[0].peak_bytes, 268435456);
	assert_int_equal(a->colls[1].nsizes, 2);
	assert_string_equal(a->colls[1].sizes[0].redop, "");
	assert_int_equal(a->colls[1].sizes[1].count, 2097152);
	assert_float_equal(a->colls[1].sizes[1].busbw_ip.v, 0.51, 1e-9);
	assert_float_equal(a->colls[1].avg_busbw.v, 0.507636, 1e-9);
	assert_int_equal(a->colls[1].verdict, NCCL_CV_OK);
	assert_string_equal(a->colls[1].reason, "peak bus bandwidth 0.51 GB/s at 268435456 B; line rate unknown");
	assert_int_equal(a->verdict, NCCL_V_OK);
	assert_int_equal(a->outcome, NCCL_RUN_COMPLETED);
	char buf[32];
	assert_string_equal(nccl_coll_label(a, 1, buf, sizeof(buf)), "run 2");
	done(a);

	/* The binary from the command line before the output: nixpkgs#251856
	 * (https://github.com/NixOS/nixpkgs/pull/251856, nccl-tests 2.13.6,
	 * first run of the suite, excerpt up to its first row). Build output
	 * names binaries it does not run (nccl-tests#294). */
	a = calloc(1, sizeof(*a));
	assert_non_null(a);
	nccl_log_init(a);
	feed_text(a,
		"Linking  /home/ubuntu/nccl-tests/build/reduce.o > /home/ubuntu/nccl-tests/build/reduce_perf\n"
		"Running /nix/store/6v92dmg26nf71b46b20q4664b3d9y08i-nccl-tests-2.13.6/bin/all_gather_perf\n"
		"# nThread 1 nGpus 1 minBytes 33554432 maxBytes 33554432 step: 1048576(bytes) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
		"#\n"
		"# Using devices\n"
		"#  Rank  0 Group  0 Pid 272738 on nixos-desktop device  0 [0x01] NVIDIA GeForce RTX 4090\n"
		"#\n"
		"#                                                              out-of-place                       in-place          \n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
		"    33554432       8388608     float    none      -1    18.48  1816.16    0.00      0     0.05  619657.10    0.00      0\n");
	nccl_log_finish(a);
	assert_int_equal(a->ncolls, 1);
	assert_string_equal(a->colls[0].name, "all_gather_perf");
	assert_string_equal(a->colls[0].named_by, "command");
	assert_string_equal(a->colls[0].sizes[0].redop, "none");
	assert_int_equal(a->colls[0].verdict, NCCL_CV_INCOMPLETE);
	assert_string_equal(a->colls[0].reason, "no summary: stopped after the 33554432-byte row");
	assert_int_equal(a->verdict, NCCL_V_INCOMPLETE);
	assert_string_equal(a->reason, "nccl-tests all_gather_perf stopped after the 33554432-byte row, "
			    "before its summary");
	done(a);

	/* A second table after a summary is a second run even without its
	 * nThread line; the cap keeps NCCL_LOG_MAX_COLLS and counts the rest. */
	a = calloc(1, sizeof(*a));
	assert_non_null(a);
	nccl_log_init(a);
	for (int k = 0; k < NCCL_LOG_MAX_COLLS + 3; k++) {
		char text[1024];
		snprintf(text, sizeof(text),
			 "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
			 "     1048576        262144     float     sum      -1    98.31   10.67   %d.00      0    97.85   10.72   16.07      0\n"
			 "# Out of bounds values : %d %s\n"
			 "# Avg bus bandwidth    : %d.5 \n", 10 + k, k == 1 ? 3 : 0, k == 1 ? "FAILED" : "OK", k);
		feed_text(a, text);
	}
	nccl_log_finish(a);
	assert_int_equal(a->ncolls, NCCL_LOG_MAX_COLLS);
	assert_int_equal(a->colls_dropped, 3);
	for (int k = 0; k < NCCL_LOG_MAX_COLLS; k++) {
		assert_int_equal(a->colls[k].nsizes, 1);
		assert_float_equal(a->colls[k].avg_busbw.v, k + 0.5, 1e-9);
		assert_float_equal(a->colls[k].peak_busbw.v, 10 + k < 16.07 ? 16.07 : 10 + k, 1e-9);
	}
	assert_int_equal(a->colls[1].verdict, NCCL_CV_WRONG);
	assert_int_equal(a->verdict, NCCL_V_NCCL_ERROR);
	assert_string_equal(a->reason, "nccl-tests found 3 wrong values (Out of bounds values)");
	/* Without a model: every run's line rate is unknown, and says why. */
	nccl_log_line_rate(a, NULL);
	assert_false(a->colls[0].line_gbs.ok);
	assert_string_equal(a->colls[0].basis, "no NCCL INFO line says which HCAs NCCL used (set NCCL_DEBUG=INFO)");
	done(a);
}

static void test_v228_completion_words(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "v2.28-completion-status-name.log");
	assert_int_equal(a->verdict, NCCL_V_IB_ERROR);
	assert_int_equal(a->err[0].status.v, 12);  /* status=IBV_WC_RETRY_EXC_ERR(12) */
	assert_string_equal(a->err[0].rank, "b200-07:44102");
	assert_int_equal(a->gid_index[0], 3);
	assert_int_equal(a->mtu[0], 4096);
	assert_int_equal(a->nvia, 2);
	assert_string_equal(a->via[1].name, "NET/IB/1(0)/GDRDMA");
	assert_int_equal(a->ch_net_gdr, 2);
	done(a);
}

/* ---- built input ---- */

static void test_unknown_and_garbage(void **state)
{
	(void)state;
	struct nccl_log *a = analyze_text("hello\nnothing to see\n\n");
	assert_int_equal(a->verdict, NCCL_V_UNKNOWN);
	assert_int_equal(a->outcome, NCCL_RUN_UNKNOWN);
	assert_string_equal(a->reason, "no NCCL lines found");
	assert_int_equal(a->lines, 3);
	done(a);

	/* Bytes of every value, NUL included, in lines of every length. */
	a = malloc(sizeof(*a));
	nccl_log_init(a);
	unsigned char junk[4096];
	unsigned x = 12345;
	for (int round = 0; round < 64; round++) {
		for (size_t i = 0; i < sizeof(junk); i++) {
			x = x * 1103515245u + 12345u;
			junk[i] = (unsigned char)(x >> 16);
		}
		nccl_log_feed(a, (const char *)junk, (size_t)(round * 64));
	}
	nccl_log_finish(a);
	assert_int_equal(a->lines, 64);
	assert_int_equal(a->verdict, NCCL_V_UNKNOWN);
	done(a);

	/* A NUL inside an NCCL line reads as a space. */
	static const char nul[] = "h:1:1 [0] NCCL INFO NCCL version 2.19.3\0junk\n";
	a = malloc(sizeof(*a));
	nccl_log_init(a);
	nccl_log_feed(a, nul, sizeof(nul) - 1);
	nccl_log_finish(a);
	assert_string_equal(a->version, "2.19.3");
	assert_int_equal(a->verdict, NCCL_V_INCOMPLETE);
	assert_string_equal(a->reason, "the log ends before NCCL initialised a communicator");
	done(a);
}

static void test_interleaved_ranks(void **state)
{
	(void)state;
	struct nccl_log *a = malloc(sizeof(*a));
	nccl_log_init(a);
	char line[256];
	/* 1000 ranks on 125 hosts, each step of init interleaved across all. */
	static const char *const steps[] = {
		"NCCL INFO Bootstrap : Using ib0:192.0.2.%d<0>",
		"NCCL INFO NET/IB : Using [0]mlx5_%d:1/IB ; OOB ib0:192.0.2.1<0>",
		"NCCL INFO Using network IB",
		"NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/%d/GDRDMA",
		"NCCL INFO comm 0x1 rank 0 nranks 1000 cudaDev 0 busId 1000 - Init COMPLETE",
		"NCCL INFO comm 0x1 rank 0 nranks 1000 cudaDev 0 busId 1000 - Destroy COMPLETE",
	};
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++)
		for (int r = 0; r < 1000; r++) {
			char msg[128];
			snprintf(msg, sizeof(msg), steps[s], r % 8);
			int n = snprintf(line, sizeof(line), "node%03d:%d:%d [%d] %s\n", r / 8,
					 4000 + r, 4100 + r, r % 8, msg);
			nccl_log_feed(a, line, (size_t)n);
		}
	nccl_log_finish(a);
	assert_int_equal(a->ranks, 1000);
	assert_int_equal(a->nranks.v, 1000);
	assert_int_equal(a->nets[0].n, 1000);
	assert_int_equal(a->nhcas, 8);
	assert_string_equal(a->hcas[7].name, "mlx5_7");
	assert_int_equal(a->ch_net_gdr, 1000);
	assert_int_equal(a->nvia, 8);
	assert_int_equal(a->init_complete, 1000);
	assert_int_equal(a->verdict, NCCL_V_OK);
	assert_string_equal(a->bootstrap_addr, "192.0.2.0");  /* the first rank's */
	done(a);

	/* More ranks than the set holds: the count stops at 65536. */
	a = malloc(sizeof(*a));
	nccl_log_init(a);
	for (int r = 0; r < 70000; r++) {
		int n = snprintf(line, sizeof(line), "h%d:%d:1 [0] NCCL INFO Using network IB\n",
				 r / 8, r);
		nccl_log_feed(a, line, (size_t)n);
	}
	nccl_log_finish(a);
	assert_int_equal(a->ranks, 65536);
	assert_int_equal(a->nets[0].n, 70000);
	done(a);
}

static void test_crlf_and_cut_line(void **state)
{
	(void)state;
	/* The 2.10 excerpt with CRLF line ends reads the same as with LF. */
	FILE *f = fopen(FIX "v2.10-ib-gdr-ok.log", "rb");
	assert_non_null(f);
	char *text = calloc(1, 1 << 16), *crlf = calloc(1, 1 << 17);
	size_t n = fread(text, 1, (1 << 16) - 1, f), m = 0;
	fclose(f);
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '\n')
			crlf[m++] = '\r';
		crlf[m++] = text[i];
	}
	struct nccl_log *a = analyze_text(crlf), *b = analyze_text(text);
	assert_int_equal(a->verdict, NCCL_V_OK);
	assert_int_equal(a->verdict, b->verdict);
	assert_string_equal(a->version, "2.10.3+cuda11.4");
	assert_string_equal(a->hcas[1].link_layer, "IB");
	assert_string_equal(a->nets[0].name, "IB");
	assert_string_equal(a->reason, b->reason);
	assert_int_equal(a->colls[0].nsizes, b->colls[0].nsizes);
	assert_float_equal(a->colls[0].avg_busbw.v, 18.7711, 1e-9);
	assert_string_equal(a->last_line, b->last_line);
	done(a);
	done(b);
	free(text);
	free(crlf);

	/* A last line cut mid-way, no newline: still read, and a cut table row is no row. */
	a = analyze_text("h:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
			 "# nThread 1 nGpus 1\n"
			 "     8      2   float   sum   -1   30.1   0.00   0.00   0   29.8   0.00   0.00   0\n"
			 "  1048576   262144   float   sum   -1   98.3");
	assert_int_equal(a->colls[0].nsizes, 1);
	assert_int_equal(a->verdict, NCCL_V_INCOMPLETE);
	done(a);
	a = analyze_text("h:1:1 [0] NCCL INFO Using network IB");
	assert_string_equal(a->nets[0].name, "IB");
	done(a);
}

static void test_long_lines(void **state)
{
	(void)state;
	size_t big = 200 * 1024;
	char *s = malloc(big + 64);
	int head = snprintf(s, 64, "h:1:1 [0] misc.cc:1 NCCL WARN Call to ibv_reg_mr failed ");
	memset(s + head, 'x', big - (size_t)head);
	s[big] = '\n';
	struct nccl_log *a = malloc(sizeof(*a));
	nccl_log_init(a);
	nccl_log_feed(a, s, big + 1);
	/* The NCCL marker past the first 8 KiB is not seen: the line is cut there. */
	memset(s, 'y', big);
	memcpy(s + 9000, " NCCL INFO Using network IB", 27);
	nccl_log_feed(a, s, big);
	nccl_log_feed(a, "\n", 1);
	nccl_log_feed(a, "", 0);
	nccl_log_finish(a);
	assert_int_equal(a->lines, 4);
	assert_int_equal(a->long_lines, 2);
	assert_int_equal(a->nccl_lines, 1);
	assert_int_equal(a->nnets, 0);
	assert_int_equal(a->err[0].kind, NCCL_E_IBV_CALL);
	assert_int_equal(strlen(a->err[0].text), NCCL_LOG_TEXT - 1);
	assert_int_equal(strlen(a->last_line), NCCL_LOG_TEXT - 1);
	assert_int_equal(a->verdict, NCCL_V_IB_ERROR);
	done(a);
	free(s);
}

static void test_bounds(void **state)
{
	(void)state;
	struct nccl_log *a = malloc(sizeof(*a));
	nccl_log_init(a);
	char line[256];
	for (int i = 0; i < 30; i++) {
		int n = snprintf(line, sizeof(line), "h:1:1 [0] x.cc:1 NCCL WARN odd thing %d\n", i);
		nccl_log_feed(a, line, (size_t)n);
		nccl_log_feed(a, line, (size_t)n);
	}
	for (int i = 0; i < 40; i++) {
		int n = snprintf(line, sizeof(line), "h:%d:1 [0] NCCL INFO NCCL_VAR%d set by environment to %d\n",
				 i, i, i);
		nccl_log_feed(a, line, (size_t)n);
	}
	nccl_log_feed(a, "h:1:1 [0] NCCL INFO NCCL_VAR0 set by environment to 7\n", 54);
	nccl_log_feed(a, "# nThread 1\n", 12);
	for (int i = 0; i < 70; i++) {
		int n = snprintf(line, sizeof(line),
				 "%lld %d float sum -1 1.0 2.0 3.0 0 1.0 2.0 3.0 0\n", 8LL << i % 40, i);
		nccl_log_feed(a, line, (size_t)n);
	}
	nccl_log_finish(a);
	assert_int_equal(a->errors, 60);
	assert_int_equal(a->nerr, NCCL_LOG_MAX_ERRORS);
	assert_int_equal(a->err[0].count, 2);
	assert_int_equal(a->err_dropped, 20);
	assert_int_equal(a->err_kind[NCCL_E_OTHER], 60);
	assert_int_equal(a->nenv, NCCL_LOG_MAX_ENV);
	assert_true(a->env[0].conflict);
	assert_false(a->env[1].conflict);
	assert_int_equal(a->colls[0].nsizes, NCCL_LOG_MAX_SIZES);
	assert_int_equal(a->colls[0].sizes_dropped, 6);
	assert_int_equal(a->verdict, NCCL_V_NCCL_ERROR);
	assert_string_equal(a->reason, "odd thing 0");
	done(a);
}

/* One WARN each: the kind and the verdict class it gets. */
static void test_classify(void **state)
{
	(void)state;
	static const struct {
		const char *msg;
		enum nccl_err_kind kind;
		enum nccl_err_class cls;
		enum nccl_verdict v;
	} t[] = {
		{ "Call to ibv_create_qp failed with error Cannot allocate memory", NCCL_E_IBV_CALL, NCCL_C_IB, NCCL_V_IB_ERROR },
		{ "NET/IB : Got completion from peer 10.0.0.2<1> with error 12, opcode 0, len 0, vendor err 129", NCCL_E_COMPLETION, NCCL_C_IB, NCCL_V_IB_ERROR },
		{ "NET/IB : Got async event : port error", NCCL_E_IB_OTHER, NCCL_C_IB, NCCL_V_IB_ERROR },
		{ "socketPollConnect to 10.0.0.2<4> failed with error Connection timed out", NCCL_E_TIMEOUT, NCCL_C_BOOTSTRAP, NCCL_V_BOOTSTRAP_ERROR },
		{ "Bootstrap : no socket interface found", NCCL_E_BOOTSTRAP, NCCL_C_BOOTSTRAP, NCCL_V_BOOTSTRAP_ERROR },
		{ "socketStartConnect: Connect to 10.0.0.2<4> failed : Connection refused", NCCL_E_SOCKET, NCCL_C_BOOTSTRAP, NCCL_V_BOOTSTRAP_ERROR },
		{ "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 1b000", NCCL_E_INVALID_USAGE, NCCL_C_USAGE, NCCL_V_INVALID_USAGE },
		{ "Invalid config blocking attribute value -1", NCCL_E_INVALID_USAGE, NCCL_C_USAGE, NCCL_V_INVALID_USAGE },
		{ "Failed to CUDA calloc 1048576 bytes", NCCL_E_OOM, NCCL_C_OTHER, NCCL_V_NCCL_ERROR },
		{ "Cuda failure 'the launch timed out and was terminated'", NCCL_E_CUDA, NCCL_C_OTHER, NCCL_V_NCCL_ERROR },
		{ "unhandled system error (run with NCCL_DEBUG=INFO for details)", NCCL_E_SYSTEM, NCCL_C_OTHER, NCCL_V_NCCL_ERROR },
		{ "Proxy Call to rank 3 failed (internal error)", NCCL_E_INTERNAL, NCCL_C_OTHER, NCCL_V_NCCL_ERROR },
		{ "remote process exited or there was a network error", NCCL_E_REMOTE, NCCL_C_OTHER, NCCL_V_NCCL_ERROR },
		{ "Failed to initialize any NET plugin", NCCL_E_NET_INIT, NCCL_C_OTHER, NCCL_V_NCCL_ERROR },
		{ "something else entirely", NCCL_E_OTHER, NCCL_C_OTHER, NCCL_V_NCCL_ERROR },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char line[512];
		int n = snprintf(line, sizeof(line), "host:10:11 [0] f.cc:1 NCCL WARN %s\n", t[i].msg);
		struct nccl_log *a = analyze_text(line);
		if (a->err[0].kind != t[i].kind || a->err[0].cls != t[i].cls || a->verdict != t[i].v)
			fail_msg("\"%s\": %s/%s/%s", t[i].msg, nccl_err_kind_name(a->err[0].kind),
				 nccl_err_class_name(a->err[0].cls), nccl_verdict_name(a->verdict));
		assert_int_equal(a->nccl_lines, 1);
		assert_int_equal(a->warn_lines, 1);
		assert_string_equal(a->err[0].rank, "host:10");
		assert_int_equal(n, (int)strlen(line));
		done(a);
	}
}

static void test_socket_verdicts(void **state)
{
	(void)state;
	struct nccl_log *a = analyze_text(
		"h:1:1 [0] NCCL INFO NCCL_NET set by environment to Socket\n"
		"h:1:1 [0] NCCL INFO NET/IB : No device found.\n"
		"h:1:1 [0] NCCL INFO Using network Socket\n"
		"h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 busId 1 - Destroy COMPLETE\n");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_BY_CONFIG);
	assert_string_equal(a->reason, "NCCL_NET=Socket set by environment");
	done(a);

	a = analyze_text(
		"h:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n"
		"h:1:1 [0] NCCL INFO Failed to initialize NET plugin IB\n"
		"h:1:1 [0] NCCL INFO Using network Socket\n"
		"h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 busId 1 - Destroy COMPLETE\n");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_FALLBACK);
	assert_string_equal(a->reason, "Failed to initialize NET plugin IB");
	done(a);

	a = analyze_text(
		"h:1:1 [0] NCCL INFO Using network IB\n"
		"g:2:2 [0] NCCL INFO Using network Socket\n"
		"h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1 - Destroy COMPLETE\n");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_FALLBACK);
	assert_string_equal(a->reason, "some ranks used sockets: RDMA not used; the log gives no reason");
	done(a);

	/* GPUDirect on some channels only is still ok. */
	a = analyze_text(
		"h:1:1 [0] NCCL INFO Using network IB\n"
		"h:1:1 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA\n"
		"h:1:1 [0] NCCL INFO Channel 01/0 : 1[0] -> 0[0] [receive] via NET/IB/0\n"
		"h:1:1 [0] NCCL INFO Channel 02/0 : 0[0] -> 2[0] via SHM/direct/direct\n"
		"h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1 - Destroy COMPLETE\n");
	assert_int_equal(a->verdict, NCCL_V_OK);
	assert_int_equal(a->gdr, NCCL_GDR_PARTIAL);
	assert_int_equal(a->ch_shm, 1);
	done(a);
}

static void test_incomplete_reasons(void **state)
{
	(void)state;
	struct nccl_log *a = analyze_text(
		"h:1:1 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 8 cudaDev 0 - Init START\n");
	assert_int_equal(a->verdict, NCCL_V_INCOMPLETE);
	assert_string_equal(a->reason, "stopped during communicator init");
	assert_int_equal(a->nranks.v, 8);
	done(a);
	a = analyze_text(
		"h:1:1 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 8 cudaDev 0 - Init START\n"
		"h:1:1 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 8 cudaDev 0 - Init COMPLETE\n");
	assert_string_equal(a->reason, "communicators initialised, but the log ends before a result "
			    "or their teardown");
	done(a);
	a = analyze_text("# nccl-tests version 2.13.11 nccl-headers=21903 nccl-library=21903\n");
	assert_string_equal(a->reason, "nccl-tests started but printed no result");
	assert_string_equal(a->version, "2.19.3");
	done(a);
}

/* A pasted tail: the set-up lines are gone, only the transport error is
 * left (the old "with error N, opcode" wording); IB was still in use. And
 * NCCL before 2.10 printed its version as a bare line. */
static void test_tail_and_old_version(void **state)
{
	(void)state;
	struct nccl_log a;
	nccl_log_init(&a);
	feed_text(&a,
		"n2:19989:20082 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
		"fe80::1%ib0<53249> with error 4, opcode 32564, len 32564, vendor err 81 (Send)\n"
		"n2:19989:20082 [1] NCCL INFO transport/net.cc:1008 -> 6\n");
	nccl_log_finish(&a);
	assert_true(a.ib_tried);
	assert_int_equal(a.verdict, NCCL_V_IB_ERROR);
	assert_int_equal(a.err[0].kind, NCCL_E_COMPLETION);
	assert_int_equal(a.err[0].status.v, 4);
	nccl_log_free(&a);

	nccl_log_init(&a);
	feed_text(&a,
		"h1:17754:17754 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n"
		"h1:17754:17754 [0] NCCL INFO NET/IB : No device found.\n"
		"NCCL version 2.4.8+cuda10.1\n"
		"NCCL versions differ? no: NCCL version x is not a version line\n");
	nccl_log_finish(&a);
	assert_string_equal(a.version, "2.4.8+cuda10.1");
	assert_false(a.version_mismatch);
	nccl_log_free(&a);

	/* 2.19-2.22 name a loaded plugin "P2P plugin X". */
	nccl_log_init(&a);
	feed_text(&a,
		"w1:5771:5783 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so\n"
		"w1:5771:5783 [0] NCCL INFO P2P plugin IBext_v8\n"
		"w1:5771:5783 [0] NCCL INFO NET/IB : Using [0]irdma0:1/RoCE [1]irdma3:1/RoCE [RO]; OOB eth0:172.16.121.86<0>\n"
		"w1:5771:5783 [0] NCCL INFO Using network IBext_v8\n");
	nccl_log_finish(&a);
	assert_int_equal(a.plugin, NCCL_PLUGIN_LOADED);
	assert_string_equal(a.plugin_name, "IBext_v8");
	assert_int_equal(a.nhcas, 2);
	assert_string_equal(a.hcas[1].name, "irdma3");
	assert_string_equal(a.hcas[1].link_layer, "RoCE");
	assert_true(nccl_log_used_rdma(&a));
	nccl_log_free(&a);
}

/* ---- issue 13: the headline is the cause (real logs from public trackers) ---- */

/* Feeds a fixture but drops the lines that contain any of the words given:
 * the same log cut before its end. */
static struct nccl_log *analyze_without(const char *file, const char *const *drop)
{
	struct nccl_log *a = malloc(sizeof(*a));
	assert_non_null(a);
	nccl_log_init(a);
	FILE *f = fopen(file, "rb");
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0) {
		bool skip = false;
		for (int i = 0; drop[i] && !skip; i++)
			skip = strstr(line, drop[i]) != NULL;
		if (!skip)
			nccl_log_feed(a, line, (size_t)n);
	}
	free(line);
	fclose(f);
	nccl_log_finish(a);
	return a;
}

/* https://github.com/NVIDIA/nccl/issues/1126 (NCCL 2.10.3): two ranks
 * bootstrap over lo, IB "No device found.", "Using network Socket"; the job
 * hung and the pasted log stops there. */
static void test_cause_when_cut(void **state)
{
	(void)state;
	struct nccl_log *a = analyze(FIX "issue1126-v2.10-lo-no-device-cut.log");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_FALLBACK);
	assert_string_equal(a->reason, "No device found");
	assert_int_equal(a->outcome, NCCL_RUN_INCOMPLETE);
	assert_string_equal(a->outcome_reason, "the log ends before NCCL initialised a communicator");
	assert_int_equal(a->plugin, NCCL_PLUGIN_NONE);  /* the default libnccl-net.so absent */
	assert_int_equal(a->nwarn, 2);
	assert_int_equal(a->warn[0].kind, NCCL_W_NOT_FABRIC);
	assert_string_equal(a->warn[0].role, "bootstrap");
	assert_string_equal(a->warn[0].ifname, "lo");
	assert_string_equal(a->warn[0].text, "bootstrap over lo, not the fabric (loopback: no other node "
			    "can reach it): set NCCL_SOCKET_IFNAME to the interface the nodes reach each other on");
	assert_string_equal(a->warn[1].role, "socket");
	assert_string_equal(a->warn[1].ifname, "lo");
	done(a);

	/* The same with torch's watchdog timeout after it (the wording of
	 * v2.21-torch-watchdog.log): the fallback is still the cause. */
	a = analyze_text(
		"zkti:702444:702444 [0] NCCL INFO NET/IB : No device found.\n"
		"zkti:702444:702444 [0] NCCL INFO Using network Socket\n"
		"[rank0]:[E1130 20:31:55.123456789 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught "
		"collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600012 "
		"milliseconds before timing out.\n");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_FALLBACK);
	assert_int_equal(a->outcome, NCCL_RUN_FAILED);
	assert_string_equal(a->outcome_reason, "stopped by: [E1130 20:31:55.123456789 "
			    "ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
			    "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600012 milliseconds "
			    "before timing out.");
	done(a);

	/* An out-of-memory is its own cause, before the fallback. */
	a = analyze_text(
		"h:1:1 [0] NCCL INFO NET/IB : No device found.\n"
		"h:1:1 [0] NCCL INFO Using network Socket\n"
		"h:1:1 [0] include/alloc.h:48 NCCL WARN Cuda failure 'out of memory'\n");
	assert_int_equal(a->verdict, NCCL_V_NCCL_ERROR);
	assert_string_equal(a->reason, "Cuda failure 'out of memory'");
	assert_int_equal(a->outcome, NCCL_RUN_FAILED);
	done(a);

	/* GPUDirect off on a run cut before its summary: no-gdr, incomplete. */
	static const char *const tail[] = { "Out of bounds", "Avg bus", "Destroy COMPLETE",
					    "  268435456 ", " 1073741824 ", NULL };
	a = analyze_without(FIX "v2.12-roce-no-gdr.log", tail);
	assert_int_equal(a->verdict, NCCL_V_NO_GDR);
	assert_string_equal(a->reason, "IB channels set up without GPUDirect RDMA (staged through "
			    "host memory)");
	assert_int_equal(a->outcome, NCCL_RUN_INCOMPLETE);
	assert_string_equal(a->outcome_reason,
			    "nccl-tests stopped after the 16777216-byte row, before its summary");
	done(a);

	/* Nothing else to say: incomplete is the verdict. */
	a = analyze(FIX "v2.24-tests-hang.log");
	assert_int_equal(a->verdict, NCCL_V_INCOMPLETE);
	assert_string_equal(a->reason, a->outcome_reason);
	done(a);
}

/* A net plugin that did not load is a finding, in each NCCL's words. */
static void test_plugin_failed(void **state)
{
	(void)state;
	/* https://github.com/NVIDIA/nccl/issues/1267 (2.19.3, a GCP VM): a
	 * libnccl-net.so without the symbols of this NCCL. */
	struct nccl_log *a = analyze(FIX "issue1267-v2.19-plugin-symbol.log");
	assert_int_equal(a->plugin, NCCL_PLUGIN_FAILED);
	assert_string_equal(a->plugin_error, "Failed to find ncclNetPlugin symbol (>= v5). "
			    "ncclNetPlugin symbols v4 and lower are not supported.");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_FALLBACK);
	assert_string_equal(a->reason, "No device found");
	assert_int_equal(a->outcome, NCCL_RUN_INCOMPLETE);
	assert_string_equal(a->outcome_reason, "stopped during communicator init");
	assert_int_equal(a->nwarn, 1);
	assert_int_equal(a->warn[0].kind, NCCL_W_PLUGIN_FAILED);
	assert_string_equal(a->warn[0].role, "");
	done(a);

	static const struct { const char *line; enum nccl_plugin want; } c[] = {
		/* 2.14 (errno 17 with a missing file: the text decides) */
		{ "h:1:1 [0] NCCL INFO NET/Plugin : Plugin load returned 17 : libnccl-net.so: cannot "
		  "open shared object file: No such file or directory.", NCCL_PLUGIN_NONE },
		/* 2.18 */
		{ "h:1:1 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object "
		  "file: No such file or directory No plugin found (libnccl-net.so), using internal "
		  "implementation", NCCL_PLUGIN_NONE },
		/* 2.21 (nccl#1504) */
		{ "h:1:1 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open "
		  "shared object file: No such file or directory : when loading libnccl-net.so",
		  NCCL_PLUGIN_NONE },
		/* 2.23+ */
		{ "h:1:1 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network "
		  "plugin.", NCCL_PLUGIN_NONE },
		/* plugin_open.cc: "%s/Plugin: %s: %s" when dlopen fails for another reason */
		{ "h:1:1 [0] NCCL INFO NET/Plugin: libnccl-net.so: /opt/hpcx/nccl_rdma_sharp_plugin/lib/"
		  "libnccl-net.so: undefined symbol: ncclGetLastError", NCCL_PLUGIN_FAILED },
		/* net.cc before 2.19: "Plugin load returned %d : %s." */
		{ "h:1:1 [0] NCCL INFO NET/Plugin : Plugin load returned 0 : /usr/lib/libnccl-net.so: "
		  "wrong ELF class: ELFCLASS32.", NCCL_PLUGIN_FAILED },
		/* the plugin there, a library it needs not (glibc's dlerror wording) */
		{ "h:1:1 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : "
		  "libnccl-net.so: libfabric.so.1: cannot open shared object file: No such file or "
		  "directory", NCCL_PLUGIN_FAILED },
		/* a plugin asked for by name (NCCL_NET_PLUGIN=aws-ofi), not there */
		{ "h:1:1 [0] NCCL INFO NET/Plugin: Could not find: aws-ofi libnccl-net-aws-ofi.so. Using "
		  "internal network plugin.", NCCL_PLUGIN_FAILED },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char text[1024];
		snprintf(text, sizeof(text), "%s\nh:1:1 [0] NCCL INFO Using network IB\n", c[i].line);
		a = analyze_text(text);
		if (a->plugin != c[i].want)
			fail_msg("case %zu: plugin %s", i, nccl_plugin_name(a->plugin));
		assert_int_equal(a->nwarn, c[i].want == NCCL_PLUGIN_FAILED);
		done(a);
	}

	/* nccl#1000 (HPC-X plugin on 2.18): v6 missing, v5 loaded: loaded, no warning. */
	a = analyze_text(
		"d:2295:2295 [2] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v6 symbol.\n"
		"d:2295:2295 [2] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin (v5)\n"
		"d:2295:2295 [2] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v6 symbol.\n"
		"d:2295:2295 [2] NCCL INFO NET/Plugin: Loaded coll plugin SHARP (v5)\n");
	assert_int_equal(a->plugin, NCCL_PLUGIN_LOADED);
	assert_string_equal(a->plugin_name, "NCCL RDMA Plugin");
	assert_int_equal(a->nwarn, 0);
	done(a);
}

static void test_not_fabric(void **state)
{
	(void)state;
	static const char *const yes[] = { "lo", "enx3c18a0b1c2d3", "usb0", "docker0",
					   "br-5f3a9c2e1b7d", "veth75fa783", "virbr0", NULL };
	static const char *const no[] = { "eth0", "eno1", "ens5", "enp225s0f1", "ibp12s0", "ib0",
					  "bond0", "br0", "enx", "lo1", "ip6tnl0", "", NULL };
	for (int i = 0; yes[i]; i++)
		if (!nccl_if_not_fabric(yes[i]))
			fail_msg("%s is not the fabric", yes[i]);
	for (int i = 0; no[i]; i++)
		if (nccl_if_not_fabric(no[i]))
			fail_msg("%s may be the fabric", no[i]);

	/* https://github.com/pytorch/pytorch/issues/68893 (NCCL 2.7.8 in a ray
	 * container; ray's colour codes removed): sockets over ens5 and a veth. */
	struct nccl_log *a = analyze(FIX "torch68893-v2.7-veth-socket.log");
	assert_int_equal(a->verdict, NCCL_V_SOCKET_FALLBACK);
	assert_string_equal(a->reason, "Failed to open libibverbs.so[.1]");
	assert_int_equal(a->errors, 0);  /* 2.7 WARNs the IB probe's answer: not an error */
	assert_int_equal(a->outcome, NCCL_RUN_INCOMPLETE);
	assert_string_equal(a->outcome_reason, "stopped while NCCL connected its channels");
	assert_string_equal(a->bootstrap_if, "ens5");
	assert_int_equal(a->nwarn, 1);
	assert_string_equal(a->warn[0].role, "socket");
	assert_string_equal(a->warn[0].ifname, "veth75fa783");
	done(a);

	/* The IB out-of-band exchange over docker0 (the line as 2.1x prints it). */
	a = analyze_text(
		"h:1:1 [0] NCCL INFO Bootstrap : Using docker0:172.17.0.1<0>\n"
		"h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB docker0:172.17.0.1<0>\n"
		"h:1:1 [0] NCCL INFO Using network IB\n");
	assert_int_equal(a->nwarn, 2);
	assert_string_equal(a->warn[0].role, "bootstrap");
	assert_string_equal(a->warn[1].role, "oob");
	assert_string_equal(a->warn[1].ifname, "docker0");
	assert_string_equal(a->warn[1].text, "IB out-of-band (QP exchange) over docker0, not the fabric "
			    "(a docker bridge): set NCCL_SOCKET_IFNAME to the interface the nodes reach each "
			    "other on");
	done(a);

	/* Socket interfaces listed while IB carried the data: no socket warning. */
	a = analyze_text(
		"h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0> [1]virbr0:192.168.122.1<0>\n"
		"h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n"
		"h:1:1 [0] NCCL INFO Using network IB\n");
	assert_int_equal(a->nwarn, 0);
	done(a);
}

/* One node: NCCL names its network, but no NET channel carries data. The
 * lines are in 2.19's words ("Using network IB" as in nccl-tests#185,
 * "via P2P/IPC/read" as in nccl#952, the nNodes line as in 2.12+); the
 * whole log is built here. */
static void test_single_node_not_over_ib(void **state)
{
	(void)state;
	struct nccl_log *a = analyze_text(
		"n:7:7 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB eno1:10.1.0.5<0>\n"
		"n:7:7 [0] NCCL INFO Using network IB\n"
		"n:7:9 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n"
		"n:7:9 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 18000 / HCA 0 (distance 7 > 4)\n"
		"n:7:9 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read\n"
		"n:7:9 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/IPC/read\n"
		"n:7:7 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 18000 - Init COMPLETE\n"
		"n:7:7 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 18000 - Destroy COMPLETE\n");
	assert_true(nccl_log_no_net_channel(a));
	assert_int_equal(a->verdict, NCCL_V_OK);  /* not no-gdr: no NET channel to need it */
	assert_string_equal(a->reason, "completed within one node (P2P): no network channel was set up");
	assert_null(strstr(a->reason, "over IB"));
	done(a);

	/* The same node with one NET channel is over IB. */
	a = analyze_text(
		"n:7:7 [0] NCCL INFO Using network IB\n"
		"n:7:9 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read\n"
		"n:7:9 [0] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/IB/0/GDRDMA\n"
		"n:7:7 [0] NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 busId 18000 - Destroy COMPLETE\n");
	assert_false(nccl_log_no_net_channel(a));
	assert_string_equal(a->reason, "completed over IB, GPUDirect RDMA on");
	done(a);
}

static void test_names(void **state)
{
	(void)state;
	static const char *const v[] = {
		"unknown", "ok", "no-gdr", "socket-fallback", "socket-by-config", "ib-error",
		"bootstrap-error", "invalid-usage", "nccl-error", "incomplete",
	};
	for (int i = 0; i <= NCCL_V_INCOMPLETE; i++) {
		assert_string_equal(nccl_verdict_name(i), v[i]);
		assert_non_null(nccl_verdict_hint(i));
	}
	assert_string_equal(nccl_verdict_hint(NCCL_V_OK), "");
	for (int k = 0; k < NCCL_E_COUNT; k++)
		assert_true(strlen(nccl_err_kind_name(k)) > 0);
	assert_string_equal(nccl_err_kind_name(NCCL_E_COUNT), "other");
	assert_string_equal(nccl_outcome_name(NCCL_RUN_INCOMPLETE), "incomplete");
	assert_string_equal(nccl_gdr_name(NCCL_GDR_PARTIAL), "partial");
	assert_string_equal(nccl_plugin_name(NCCL_PLUGIN_LOADED), "loaded");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h200_socket_ok),
		cmocka_unit_test(test_h200_ib_disabled),
		cmocka_unit_test(test_h200_bad_ifname),
		cmocka_unit_test(test_h200_duplicate_gpu),
		cmocka_unit_test(test_h200_torch),
		cmocka_unit_test(test_v210_ib_gdr_ok),
		cmocka_unit_test(test_v212_roce_no_gdr),
		cmocka_unit_test(test_v218_socket_fallback),
		cmocka_unit_test(test_v219_completion_error),
		cmocka_unit_test(test_v220_oom_and_torch),
		cmocka_unit_test(test_v221_plugins),
		cmocka_unit_test(test_v222_bootstrap_srun),
		cmocka_unit_test(test_v223_qp_timeout),
		cmocka_unit_test(test_tests_results),
		cmocka_unit_test(test_tests_runs),
		cmocka_unit_test(test_v228_completion_words),
		cmocka_unit_test(test_unknown_and_garbage),
		cmocka_unit_test(test_interleaved_ranks),
		cmocka_unit_test(test_crlf_and_cut_line),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_socket_verdicts),
		cmocka_unit_test(test_incomplete_reasons),
		cmocka_unit_test(test_tail_and_old_version),
		cmocka_unit_test(test_cause_when_cut),
		cmocka_unit_test(test_plugin_failed),
		cmocka_unit_test(test_not_fabric),
		cmocka_unit_test(test_single_node_not_over_ib),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
