/*
 * test_perftest: every field perftest.h reads, with exact values, on the
 * real outputs under tests/fixtures/perftest/ (sources in its README) and
 * the hand-written ones in perftest's own format strings; each file fed
 * whole, one byte at a time, and in odd chunks must give the same result.
 * Run from the repository root.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "perftest.h"

#define FIX "tests/fixtures/perftest/"
#define MIB_TO_GB (1048576.0 * 8.0 / 1e9)

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = malloc(1 << 16);
	assert_non_null(buf);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

/* Parses the file three ways (whole, byte by byte, 7-byte chunks) and checks
 * they agree; p gets the whole-file result. */
static void parse(const char *name, struct perftest *p)
{
	char path[256];
	size_t len;
	snprintf(path, sizeof(path), FIX "%s", name);
	char *buf = slurp(path, &len);
	struct perftest *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));
	assert_non_null(b);
	assert_non_null(c);
	perftest_init(p);
	perftest_feed(p, buf, len);
	perftest_end(p);
	perftest_init(b);
	for (size_t i = 0; i < len; i++)
		perftest_feed(b, buf + i, 1);
	perftest_end(b);
	perftest_init(c);
	for (size_t i = 0; i < len; i += 7)
		perftest_feed(c, buf + i, len - i < 7 ? len - i : 7);
	perftest_end(c);
	assert_memory_equal(p, b, offsetof(struct perftest, table));
	assert_memory_equal(p, c, offsetof(struct perftest, table));
	free(b);
	free(c);
	free(buf);
}

static struct perftest P;

static void test_write_bw_roce_200g_all(void **st)
{
	(void)st;
	parse("write_bw_roce_200g_all.txt", &P);
	assert_string_equal(P.test, "RDMA_Write BW Test");
	assert_int_equal(P.kind, PT_KIND_BW);
	assert_string_equal(P.device, "mlx5_0");
	assert_true(P.nqps.ok);
	assert_int_equal(P.nqps.v, 1);
	assert_string_equal(P.transport, "IB");
	assert_string_equal(P.conn_type, "RC");
	assert_string_equal(P.link_type, "Ethernet");
	assert_true(P.mtu.ok);
	assert_int_equal(P.mtu.v, 4096);
	assert_true(P.gid_index.ok);
	assert_int_equal(P.gid_index.v, 3);
	assert_string_equal(P.rdma_cm, "OFF");
	assert_false(P.server_waiting);
	assert_string_equal(P.bw_unit, "Gb/sec");
	assert_int_equal(P.nbw, 23);
	assert_int_equal(P.nlat, 0);
	assert_int_equal(P.bw[0].bytes, 2);
	assert_int_equal(P.bw[0].iters, 5000);
	assert_float_equal(P.bw[0].peak_gbps, 0.090062, 1e-9);
	assert_float_equal(P.bw[0].avg_gbps, 0.088598, 1e-9);
	assert_float_equal(P.bw[0].msg_rate_mpps.v, 5.537347, 1e-9);
	const struct pt_bw_row *r = perftest_bw_at(&P, 4096);
	assert_non_null(r);
	assert_float_equal(r->avg_gbps, 147.39, 1e-9);
	r = perftest_bw_at(&P, 65536);
	assert_float_equal(r->avg_gbps, 195.91, 1e-9);
	r = perftest_bw_at(&P, 1048576);
	assert_float_equal(r->avg_gbps, 196.07, 1e-9);
	r = perftest_bw_largest(&P);
	assert_int_equal(r->bytes, 8388608);
	assert_float_equal(r->avg_gbps, 196.07, 1e-9);
	assert_float_equal(r->msg_rate_mpps.v, 0.002922, 1e-9);
	assert_null(perftest_bw_at(&P, 3));
	assert_int_equal(P.err, PT_ERR_NONE);
	assert_int_equal(P.nerrors, 0);
	assert_false(P.cpu_freq_warning);
}

static void test_write_bw_server_mb(void **st)
{
	(void)st;
	parse("write_bw_roce_server_mb.txt", &P);
	assert_true(P.server_waiting);
	assert_string_equal(P.test, "RDMA_Write BW Test");
	assert_string_equal(P.bw_unit, "MB/sec");
	assert_int_equal(P.nbw, 1);
	assert_int_equal(P.bw[0].bytes, 8388608);
	/* MB/sec is 2^20 bytes per second. */
	assert_float_equal(P.bw[0].avg_gbps, 196.07 * MIB_TO_GB, 1e-9);
	assert_int_equal(P.err, PT_ERR_NONE);
}

static void test_write_bw_mib(void **st)
{
	(void)st;
	parse("write_bw_roce_mib.txt", &P);
	assert_string_equal(P.device, "mlx5_3");
	assert_string_equal(P.bw_unit, "MiB/sec");
	assert_int_equal(P.nbw, 1);
	assert_float_equal(P.bw[0].peak_gbps, 45446.68 * MIB_TO_GB, 1e-9);
	assert_float_equal(P.bw[0].avg_gbps, 45428.46 * MIB_TO_GB, 1e-9);
	assert_float_equal(P.bw[0].avg_gbps, 381.0815, 1e-4);
	assert_float_equal(P.bw[0].msg_rate_mpps.v, 0.726855, 1e-9);
}

static void test_write_bw_completion_error(void **st)
{
	(void)st;
	parse("write_bw_roce_completion_error.txt", &P);
	assert_int_equal(P.nbw, 16);
	assert_int_equal(perftest_bw_largest(&P)->bytes, 65536);
	assert_float_equal(perftest_bw_largest(&P)->avg_gbps, 381.41, 1e-9);
	assert_int_equal(P.err, PT_ERR_COMPLETION);
	assert_string_equal(P.err_line, "Completion with error at client");
	assert_int_equal(P.nerrors, 3);
	assert_string_equal(perftest_err_name(P.err), "completion");
}

static void test_write_bw_cuda_low(void **st)
{
	(void)st;
	parse("write_bw_roce_cuda_low.txt", &P);
	/* "CUDA device 0: PCIe address" is not the Device field. */
	assert_string_equal(P.device, "mlx5_3");
	assert_int_equal(P.nbw, 23);
	assert_float_equal(perftest_bw_largest(&P)->avg_gbps, 140.40, 1e-9);
	assert_float_equal(perftest_bw_at(&P, 65536)->avg_gbps, 140.88, 1e-9);
	assert_int_equal(P.err, PT_ERR_NONE);
}

static void test_send_bw_ib_mib(void **st)
{
	(void)st;
	parse("send_bw_ib_mib.txt", &P);
	assert_string_equal(P.test, "Send BW Test");
	assert_string_equal(P.link_type, "IB");
	assert_false(P.gid_index.ok);
	assert_string_equal(P.rdma_cm, "OFF");
	assert_true(P.cpu_freq_warning);
	assert_int_equal(P.nbw, 1);
	assert_int_equal(P.bw[0].iters, 1000);
	assert_float_equal(P.bw[0].avg_gbps, 46557.03 * MIB_TO_GB, 1e-9);
	assert_float_equal(P.bw[0].msg_rate_mpps.v, 0.744912, 1e-9);
}

static void test_read_bw_ib(void **st)
{
	(void)st;
	parse("read_bw_ib_gbits.txt", &P);
	assert_string_equal(P.test, "RDMA_Read BW Test");
	assert_true(P.cpu_freq_warning);
	assert_int_equal(P.nbw, 1);
	assert_float_equal(P.bw[0].peak_gbps, 328.64, 1e-9);
	assert_float_equal(P.bw[0].avg_gbps, 328.61, 1e-9);
}

static void test_write_bw_ib_ndr(void **st)
{
	(void)st;
	parse("write_bw_ib_ndr.txt", &P);
	assert_string_equal(P.device, "mlx5_0");
	assert_string_equal(P.link_type, "IB");
	assert_int_equal(P.nbw, 1);
	assert_float_equal(P.bw[0].avg_gbps, 392.34, 1e-9);
	assert_int_equal(P.err, PT_ERR_NONE);
}

static void test_send_lat_ib(void **st)
{
	(void)st;
	parse("send_lat_ib.txt", &P);
	assert_string_equal(P.test, "Send Latency Test");
	assert_int_equal(P.kind, PT_KIND_LAT);
	assert_int_equal(P.lat_cols, 7);
	assert_int_equal(P.nlat, 1);
	const struct pt_lat_row *l = perftest_lat_at(&P, 2);
	assert_non_null(l);
	assert_int_equal(l->iters, 1000);
	assert_float_equal(l->t_min.v, 1.24, 1e-9);
	assert_float_equal(l->t_max.v, 5.19, 1e-9);
	assert_float_equal(l->t_typical.v, 1.27, 1e-9);
	assert_float_equal(l->t_avg.v, 1.27, 1e-9);
	assert_float_equal(l->t_stdev.v, 0.00, 1e-9);
	assert_true(l->t_stdev.ok);
	assert_float_equal(l->p99.v, 1.37, 1e-9);
	assert_float_equal(l->p999.v, 5.19, 1e-9);
	assert_true(P.cpu_freq_warning);
}

static void test_read_lat_roce(void **st)
{
	(void)st;
	parse("read_lat_roce.txt", &P);
	assert_string_equal(P.test, "RDMA_Read Latency Test");
	assert_int_equal(P.gid_index.v, 3);
	assert_int_equal(P.nlat, 1);
	assert_float_equal(P.lat[0].t_min.v, 4.70, 1e-9);
	assert_float_equal(P.lat[0].t_max.v, 13.20, 1e-9);
	assert_float_equal(P.lat[0].t_typical.v, 4.83, 1e-9);
	assert_float_equal(P.lat[0].t_avg.v, 4.82, 1e-9);
	assert_float_equal(P.lat[0].p99.v, 4.91, 1e-9);
	assert_float_equal(P.lat[0].p999.v, 13.20, 1e-9);
}

static void test_lat_old5(void **st)
{
	(void)st;
	parse("hand_write_lat_old5.txt", &P);
	assert_string_equal(P.test, "RDMA_Write Latency Test");
	assert_string_equal(P.device, "");
	assert_int_equal(P.mtu.v, 2048);
	assert_int_equal(P.lat_cols, 3);
	assert_int_equal(P.nlat, 2);
	assert_float_equal(perftest_lat_at(&P, 4096)->t_typical.v, 2.35, 1e-9);
	assert_float_equal(perftest_lat_at(&P, 2)->t_typical.v, 0.96, 1e-9);
	assert_false(P.lat[0].t_avg.ok);
	assert_false(P.lat[0].p99.ok);
}

static void test_errors(void **st)
{
	(void)st;
	parse("no_device_debian.txt", &P);
	assert_int_equal(P.err, PT_ERR_NO_DEVICE);
	assert_string_equal(P.err_line, "Did not detect devices");
	assert_int_equal(P.nerrors, 2);
	assert_string_equal(P.test, "");
	assert_int_equal(P.nbw, 0);

	parse("hand_no_device_named.txt", &P);
	assert_int_equal(P.err, PT_ERR_NO_DEVICE);
	assert_string_equal(P.err_line, "IB device mlx5_9 not found");

	parse("hand_connect_refused.txt", &P);
	assert_int_equal(P.err, PT_ERR_CONNECT);
	assert_string_equal(P.err_line, "Couldn't connect to 10.0.0.2:18515");
	assert_string_equal(perftest_err_name(P.err), "connect");

	parse("qp_rtr_grh.txt", &P);
	assert_int_equal(P.err, PT_ERR_QP);
	assert_string_equal(P.err_line, "Failed to modify QP 122273 to RTR");
	assert_int_equal(P.nerrors, 4);

	parse("hand_warmup.txt", &P);
	assert_int_equal(P.err, PT_ERR_COMPLETION);
	assert_string_equal(P.err_line, "Problems with warm up");
	assert_int_equal(P.gid_index.v, 1);
	assert_int_equal(P.mtu.v, 1024);
}

static void feed_str(struct perftest *p, const char *s)
{
	perftest_feed(p, s, strlen(s));
}

static void test_lines(void **st)
{
	(void)st;
	struct perftest *p = malloc(sizeof(*p));
	assert_non_null(p);
	/* A generic error first, then a specific one refines it. */
	perftest_init(p);
	feed_str(p, "Couldn't allocate MR\r\nFailed to modify QP to INIT\n");
	assert_int_equal(p->err, PT_ERR_QP);
	assert_int_equal(p->nerrors, 2);
	/* GID trouble; the GID header lines are not errors. */
	perftest_init(p);
	feed_str(p, " GID index       : 3\n GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:00:04:07\n");
	assert_int_equal(p->err, PT_ERR_NONE);
	feed_str(p, "Failed to query GID[3]\n");
	assert_int_equal(p->err, PT_ERR_QP);
	/* Rows outside a table, garbage rows, the last line without a newline. */
	perftest_init(p);
	feed_str(p, " 65536 5000 1.0 2.0 3.0\n #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]\n"
		 " 4096 x 1 2 3\n 4096 10 1.5 2.5");
	assert_int_equal(p->nbw, 0);
	perftest_end(p);
	assert_int_equal(p->nbw, 1);
	assert_float_equal(p->bw[0].avg_gbps, 2.5, 1e-12);
	assert_false(p->bw[0].msg_rate_mpps.ok);
	/* A row after the closing dashes is not read. */
	feed_str(p, "----------\n 8192 10 1 2 3\n");
	assert_int_equal(p->nbw, 1);
	/* A line longer than the buffer is cut, not overflowed. */
	perftest_init(p);
	char *big = malloc(5000);
	assert_non_null(big);
	memset(big, 'A', 4999);
	big[4999] = '\n';
	perftest_feed(p, big, 5000);
	free(big);
	assert_int_equal(p->lines, 1);
	/* More rows than kept are counted. */
	perftest_init(p);
	feed_str(p, "#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]\n");
	for (int i = 0; i < PT_MAX_ROWS + 3; i++)
		feed_str(p, " 2 5000 1 1 1\n");
	assert_int_equal(p->nbw, PT_MAX_ROWS);
	assert_int_equal(p->rows_dropped, 3);
	/* -D latency: "#bytes #iterations t_avg[usec] tps average". */
	perftest_init(p);
	feed_str(p, " #bytes        #iterations       t_avg[usec]    tps average\n 2             9188214           1.09           917531.75\n");
	assert_int_equal(p->nlat, 1);
	assert_float_equal(p->lat[0].t_avg.v, 1.09, 1e-12);
	assert_false(p->lat[0].t_typical.ok);
	assert_string_equal(perftest_err_name(PT_ERR_NONE), "");
	assert_null(perftest_bw_largest(p));
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_bw_roce_200g_all),
		cmocka_unit_test(test_write_bw_server_mb),
		cmocka_unit_test(test_write_bw_mib),
		cmocka_unit_test(test_write_bw_completion_error),
		cmocka_unit_test(test_write_bw_cuda_low),
		cmocka_unit_test(test_send_bw_ib_mib),
		cmocka_unit_test(test_read_bw_ib),
		cmocka_unit_test(test_write_bw_ib_ndr),
		cmocka_unit_test(test_send_lat_ib),
		cmocka_unit_test(test_read_lat_roce),
		cmocka_unit_test(test_lat_old5),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
