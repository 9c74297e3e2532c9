/* QP state over RDMA netlink: the parser over dump bytes built by
 * tests/scenarios/nldev.py (tests/fixtures/netlink, read at run time from
 * the repository root), its malformed variants, replay from a capture
 * directory, the capture round trip, and the live query on this kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include "fab_archive.h"
#include "fabtop/capture.h"
#include "fabtop/rdma_res.h"
#include "fabtop/root.h"
#include "fabtop/util.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

#define FIX "tests/fixtures/netlink/"

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s: %s (run from the repository root)", path, strerror(errno));
	unsigned char *buf = malloc(1 << 20);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static int parse_file(const char *name, struct fab_qp_list *l, char *err, size_t errlen)
{
	char path[256];
	size_t len;
	snprintf(path, sizeof(path), FIX "%s", name);
	unsigned char *buf = slurp(path, &len);
	int rc = rdma_res_parse_qp(buf, len, l, err, errlen);
	free(buf);
	return rc;
}

static void expect_qp(const struct fab_qp *q, const char *dev, uint32_t port, uint32_t lqpn,
		      int type, int state, uint32_t pid, const char *comm)
{
	assert_string_equal(q->dev, dev);
	assert_int_equal(q->port, port);
	assert_int_equal(q->lqpn, lqpn);
	assert_int_equal(q->type, type);
	assert_int_equal(q->state, state);
	assert_int_equal(q->pid, pid);
	assert_string_equal(q->comm, comm);
}

static void test_two_devices(void **state)
{
	struct fab_qp_list l = { 0 };
	char err[256] = "";
	assert_int_equal(parse_file("two-devs.bin", &l, err, sizeof(err)), 1);
	assert_string_equal(err, "");
	assert_true(l.done);
	assert_int_equal(l.n, 9);
	expect_qp(&l.qps[0], "mlx5_0", 1, 1, 1, QPS_RTS, 0, "ib_core");
	assert_false(l.qps[0].has_rqpn);
	expect_qp(&l.qps[1], "mlx5_0", 1, 420, 2, QPS_RTS, 4242, "");
	assert_true(l.qps[1].has_rqpn);
	assert_int_equal(l.qps[1].rqpn, 689);
	expect_qp(&l.qps[2], "mlx5_0", 1, 421, 2, QPS_RTS, 4242, "");
	expect_qp(&l.qps[3], "mlx5_0", 1, 422, 2, QPS_ERR, 4242, "");
	assert_int_equal(l.qps[3].rqpn, 691);
	expect_qp(&l.qps[4], "mlx5_1", 1, 1, 1, QPS_RTS, 0, "ib_core");
	expect_qp(&l.qps[5], "mlx5_1", 1, 300, 2, QPS_RTS, 4243, "");
	expect_qp(&l.qps[6], "mlx5_1", 1, 301, 2, QPS_SQE, 4243, "");
	expect_qp(&l.qps[7], "mlx5_1", 1, 302, 4, QPS_RTS, 4243, "");
	assert_false(l.qps[7].has_rqpn);        /* UD: no remote QP */
	expect_qp(&l.qps[8], "mlx5_1", 0, 303, 2, QPS_RESET, 4243, "");
	assert_true(l.qps[8].has_rqpn);         /* RC, not connected yet */
	assert_int_equal(l.qps[8].rqpn, 0);
	int bad = 0;
	for (int i = 0; i < l.n; i++)
		bad += qp_state_bad(l.qps[i].state);
	assert_int_equal(bad, 2);
	qp_list_free(&l);
	assert_null(l.qps);
	assert_int_equal(l.n, 0);
}

/* Two NLM_F_MULTI parts then NLMSG_DONE, fed whole and as two datagrams. */
static void test_multipart(void **state)
{
	struct fab_qp_list l = { 0 };
	char err[256] = "";
	size_t len;
	unsigned char *buf = slurp(FIX "multipart.bin", &len);
	assert_int_equal(len, 616);
	assert_int_equal(rdma_res_parse_qp(buf, len, &l, err, sizeof(err)), 1);
	assert_int_equal(l.n, 6);
	for (int i = 0; i < 6; i++) {
		expect_qp(&l.qps[i], "mlx5_2", 2, 1000 + i, 2, QPS_RTS, 5150, "");
		assert_int_equal(l.qps[i].rqpn, 2000 + i);
	}
	qp_list_free(&l);

	uint32_t first;
	memcpy(&first, buf, 4);
	assert_int_equal(first, 376);     /* 4 entries of 84 bytes, handle and headers */
	assert_int_equal(rdma_res_parse_qp(buf, first, &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 4);
	assert_false(l.done);
	assert_int_equal(rdma_res_parse_qp(buf + first, len - first, &l, err, sizeof(err)), 1);
	assert_int_equal(l.n, 6);
	assert_true(l.done);
	assert_int_equal(l.qps[5].lqpn, 1005);
	qp_list_free(&l);
	free(buf);
}

/* The parser copies an unaligned buffer rather than read headers in place. */
static void test_unaligned(void **state)
{
	struct fab_qp_list l = { 0 };
	char err[256] = "";
	size_t len;
	unsigned char *buf = slurp(FIX "two-devs.bin", &len);
	unsigned char *odd = malloc(len + 1);
	assert_non_null(odd);
	memcpy(odd + 1, buf, len);
	assert_int_equal(rdma_res_parse_qp(odd + 1, len, &l, err, sizeof(err)), 1);
	assert_int_equal(l.n, 9);
	assert_int_equal(l.qps[6].lqpn, 301);
	qp_list_free(&l);
	free(odd);
	free(buf);
}

/* Every prefix: whole messages parse, anything else is a truncation, and
 * the QPs found never shrink. ASan watches each read. */
static void test_every_prefix(void **state)
{
	size_t len;
	unsigned char *buf = slurp(FIX "two-devs.bin", &len);
	assert_int_equal(len, 788);
	size_t ends[8];
	int nends = 0;
	for (size_t pos = 0; pos < len; nends++) {
		uint32_t ml;
		memcpy(&ml, buf + pos, 4);
		pos += (ml + 3) & ~3u;
		ends[nends] = pos;
	}
	assert_int_equal(nends, 4);        /* mlx5_0, DONE, mlx5_1, DONE */
	int last_n = 0;
	for (size_t cut = 1; cut <= len; cut++) {
		unsigned char *p = malloc(cut);
		assert_non_null(p);
		memcpy(p, buf, cut);
		struct fab_qp_list l = { 0 };
		char err[256] = "";
		int rc = rdma_res_parse_qp(p, cut, &l, err, sizeof(err));
		bool at_end = false;
		for (int i = 0; i < nends; i++)
			at_end |= ends[i] == cut;
		if (at_end) {
			assert_true(rc >= 0);
		} else {
			assert_int_equal(rc, -1);
			assert_non_null(strstr(err, "truncated netlink"));
		}
		assert_true(l.n >= last_n);
		last_n = l.n;
		qp_list_free(&l);
		free(p);
	}
	assert_int_equal(last_n, 9);
	free(buf);
}

struct bad_case {
	const char *file;
	const char *err;
	int kept;
};

static const struct bad_case bad_cases[] = {
	{ "error-eopnotsupp.bin",
	  "netlink error reply: Operation not supported (errno 95) at offset 0", 0 },
	{ "done-error.bin",
	  "the kernel ended the dump with an error: Invalid argument (errno 22) at offset 208", 2 },
	{ "truncated.bin",
	  "truncated netlink message (nlmsg_len 124, 114 bytes left) at offset 208", 2 },
	{ "attr-past-end.bin",
	  "attribute 19 runs past the end of the message (nla_len 188, 88 bytes left) at offset 244", 2 },
	{ "unterminated-name.bin", "unterminated DEV_NAME at offset 232", 2 },
	{ "nest-bad-inner.bin",
	  "attribute 27 runs past the end of the RES_QP_ENTRY nest (nla_len 40, 8 bytes left) at offset 408", 3 },
	{ "attr-short.bin",
	  "attribute 21 of the RES_QP_ENTRY nest has nla_len 2, shorter than its own header at offset 260", 2 },
};

static void test_malformed(void **state)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *b = &bad_cases[i];
		struct fab_qp_list l = { 0 };
		char err[256] = "";
		print_message("%s\n", b->file);
		assert_int_equal(parse_file(b->file, &l, err, sizeof(err)), -1);
		assert_string_equal(err, b->err);
		assert_int_equal(l.n, b->kept);
		if (b->kept >= 2) {       /* the good first message: lqpn 420 and 421 of mlx5_0 */
			expect_qp(&l.qps[0], "mlx5_0", 1, 420, 2, QPS_RTS, 4242, "");
			expect_qp(&l.qps[1], "mlx5_0", 1, 421, 2, QPS_RTS, 4242, "");
		}
		if (b->kept == 3)         /* the entry before the broken one */
			expect_qp(&l.qps[2], "mlx5_1", 1, 300, 2, QPS_RTS, 4243, "");
		assert_false(l.done);
		qp_list_free(&l);
	}
}

/* Replies a 6.18 kernel sent (tests/fixtures/netlink-kernel): a QP dump
 * asked without DEV_INDEX ends in NLMSG_DONE carrying -EINVAL; an empty
 * device dump is NLMSG_DONE alone. */
static void test_kernel_recordings(void **state)
{
	struct fab_qp_list l = { 0 };
	char err[256] = "";
	size_t len;
	unsigned char *buf = slurp("tests/fixtures/netlink-kernel/6.18-res_qp_get.bin", &len);
	assert_int_equal(len, 20);
	assert_int_equal(rdma_res_parse_qp(buf, len, &l, err, sizeof(err)), -1);
	assert_string_equal(err, "the kernel ended the dump with an error: Invalid argument (errno 22) at offset 0");
	assert_int_equal(l.n, 0);
	free(buf);

	err[0] = '\0';
	buf = slurp("tests/fixtures/netlink-kernel/6.18-get.bin", &len);
	assert_int_equal(len, 20);
	assert_int_equal(rdma_res_parse_qp(buf, len, &l, err, sizeof(err)), 1);
	assert_true(l.done);
	assert_int_equal(l.n, 0);
	assert_string_equal(err, "");
	free(buf);
}

static void test_names(void **state)
{
	assert_string_equal(qp_state_name(QPS_RESET), "RESET");
	assert_string_equal(qp_state_name(QPS_RTS), "RTS");
	assert_string_equal(qp_state_name(QPS_SQE), "SQE");
	assert_string_equal(qp_state_name(QPS_ERR), "ERR");
	assert_string_equal(qp_state_name(7), "?");
	assert_string_equal(qp_state_name(-1), "?");
	assert_string_equal(qp_type_name(0), "SMI");
	assert_string_equal(qp_type_name(1), "GSI");
	assert_string_equal(qp_type_name(2), "RC");
	assert_string_equal(qp_type_name(4), "UD");
	assert_string_equal(qp_type_name(7), "?");
	assert_string_equal(qp_type_name(8), "RAW_PACKET");
	assert_string_equal(qp_type_name(10), "XRC_TGT");
	assert_string_equal(qp_type_name(11), "?");
	assert_string_equal(qp_type_name(0xFF), "DRIVER");
	assert_string_equal(qp_type_name(0x1000), "DRIVER");
	assert_string_equal(qp_type_name(-1), "?");
	assert_true(qp_state_bad(QPS_ERR));
	assert_true(qp_state_bad(QPS_SQE));
	assert_false(qp_state_bad(QPS_RTS));
	assert_false(qp_state_bad(QPS_SQD));
	assert_false(qp_state_bad(-1));
}

/* ---- the builder agrees with the headers and with the committed files ---- */

/* Runs argv with stdout into buf (NUL-terminated); returns the exit status. */
static int run_out(char *const argv[], char *buf, size_t len)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	size_t got = 0;
	ssize_t n;
	while (got < len - 1 && (n = read(fds[0], buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(fds[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void test_builder_constants(void **state)
{
	static const struct { const char *name; long v; } want[] = {
		{ "NLMSG_DONE", NLMSG_DONE },
		{ "NLMSG_ERROR", NLMSG_ERROR },
		{ "NLM_F_DUMP", NLM_F_DUMP },
		{ "NLM_F_MULTI", NLM_F_MULTI },
		{ "NLM_F_REQUEST", NLM_F_REQUEST },
		{ "RDMA_NLDEV_ATTR_DEV_INDEX", RDMA_NLDEV_ATTR_DEV_INDEX },
		{ "RDMA_NLDEV_ATTR_DEV_NAME", RDMA_NLDEV_ATTR_DEV_NAME },
		{ "RDMA_NLDEV_ATTR_DRIVER", RDMA_NLDEV_ATTR_DRIVER },
		{ "RDMA_NLDEV_ATTR_DRIVER_STRING", RDMA_NLDEV_ATTR_DRIVER_STRING },
		{ "RDMA_NLDEV_ATTR_PORT_INDEX", RDMA_NLDEV_ATTR_PORT_INDEX },
		{ "RDMA_NLDEV_ATTR_RES_KERN_NAME", RDMA_NLDEV_ATTR_RES_KERN_NAME },
		{ "RDMA_NLDEV_ATTR_RES_LQPN", RDMA_NLDEV_ATTR_RES_LQPN },
		{ "RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE", RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE },
		{ "RDMA_NLDEV_ATTR_RES_PDN", RDMA_NLDEV_ATTR_RES_PDN },
		{ "RDMA_NLDEV_ATTR_RES_PID", RDMA_NLDEV_ATTR_RES_PID },
		{ "RDMA_NLDEV_ATTR_RES_QP", RDMA_NLDEV_ATTR_RES_QP },
		{ "RDMA_NLDEV_ATTR_RES_QP_ENTRY", RDMA_NLDEV_ATTR_RES_QP_ENTRY },
		{ "RDMA_NLDEV_ATTR_RES_RQPN", RDMA_NLDEV_ATTR_RES_RQPN },
		{ "RDMA_NLDEV_ATTR_RES_RQ_PSN", RDMA_NLDEV_ATTR_RES_RQ_PSN },
		{ "RDMA_NLDEV_ATTR_RES_SQ_PSN", RDMA_NLDEV_ATTR_RES_SQ_PSN },
		{ "RDMA_NLDEV_ATTR_RES_STATE", RDMA_NLDEV_ATTR_RES_STATE },
		{ "RDMA_NLDEV_ATTR_RES_TYPE", RDMA_NLDEV_ATTR_RES_TYPE },
		{ "RDMA_NLDEV_CMD_GET", RDMA_NLDEV_CMD_GET },
		{ "RDMA_NLDEV_CMD_RES_QP_GET", RDMA_NLDEV_CMD_RES_QP_GET },
		{ "RDMA_NL_NLDEV", RDMA_NL_NLDEV },
	};
	char out[4096];
	char *const argv[] = { "python3", "tests/scenarios/nldev.py", "--constants", NULL };
	assert_int_equal(run_out(argv, out, sizeof(out)), 0);
	int lines = 0;
	for (char *save = NULL, *line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), lines++) {
		char name[64];
		long v;
		assert_int_equal(sscanf(line, "%63s %ld", name, &v), 2);
		size_t i = 0;
		while (i < sizeof(want) / sizeof(want[0]) && strcmp(want[i].name, name))
			i++;
		if (i == sizeof(want) / sizeof(want[0]))
			fail_msg("nldev.py hard-codes %s, which this test does not check", name);
		if (want[i].v != v)
			fail_msg("nldev.py says %s = %ld, the header says %ld", name, v, want[i].v);
	}
	assert_int_equal(lines, (int)(sizeof(want) / sizeof(want[0])));
}

static char tmp_base[PATH_MAX];

static const char *mktmp(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(tmp_base, sizeof(tmp_base), "%s/fabtop-test-rdma.XXXXXX", t && *t ? t : "/tmp");
	assert_non_null(mkdtemp(tmp_base));
	return tmp_base;
}

static void test_fixtures_fresh(void **state)
{
	static const char *const files[] = {
		"attr-past-end.bin", "attr-short.bin", "done-error.bin", "error-eopnotsupp.bin",
		"multipart.bin", "nest-bad-inner.bin", "truncated.bin", "two-devs.bin",
		"unterminated-name.bin",
	};
	const char *dir = mktmp();
	char out[4096];
	char *const argv[] = { "python3", "tests/scenarios/nldev.py", (char *)dir, NULL };
	assert_int_equal(run_out(argv, out, sizeof(out)), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char a[PATH_MAX + 64], b[256];
		size_t la, lb;
		snprintf(a, sizeof(a), "%s/%s", dir, files[i]);
		snprintf(b, sizeof(b), FIX "%s", files[i]);
		unsigned char *x = slurp(a, &la), *y = slurp(b, &lb);
		if (la != lb || memcmp(x, y, la) != 0)
			fail_msg("%s differs from what nldev.py builds: run `python3 "
				 "tests/scenarios/nldev.py tests/fixtures/netlink`", b);
		free(x);
		free(y);
	}
	fab_rmtree(dir);
}

/* ---- roots: a capture directory, and this machine ---- */

static void put(const char *dir, const char *rel, const void *data, size_t len)
{
	char p[PATH_MAX * 2], d[PATH_MAX * 2];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	snprintf(d, sizeof(d), "%s", p);
	for (char *s = strchr(d + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(d, 0755);
		*s = '/';
	}
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void test_from_capture_dir(void **state)
{
	const char *dir = mktmp();
	size_t len;
	unsigned char *bin = slurp(FIX "two-devs.bin", &len);
	struct fab_root r;
	struct fab_qp_list l = { 0 };
	char err[512] = "";

	put(dir, "fabtop/meta.json", "{\"format\": 1}\n", 14);
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	assert_int_equal(rdma_res_from_root(&r, &l, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "not recorded in this capture");
	assert_int_equal(l.n, 0);

	put(dir, "fabtop/rdma-qp.bin", bin, len);
	put(dir, "proc/4242/comm", "all_reduce_perf\n", 16);
	err[0] = '\0';
	assert_int_equal(rdma_res_from_root(&r, &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 9);
	expect_qp(&l.qps[0], "mlx5_0", 1, 1, 1, QPS_RTS, 0, "ib_core");
	expect_qp(&l.qps[3], "mlx5_0", 1, 422, 2, QPS_ERR, 4242, "all_reduce_perf");
	expect_qp(&l.qps[6], "mlx5_1", 1, 301, 2, QPS_SQE, 4243, "");   /* no /proc/4243 */
	qp_list_free(&l);

	put(dir, "fabtop/rdma-qp.bin", bin, 600);    /* cut inside mlx5_1's message */
	assert_int_equal(rdma_res_from_root(&r, &l, err, sizeof(err)), -EBADMSG);
	char want[PATH_MAX + 128];
	snprintf(want, sizeof(want), "/fabtop/rdma-qp.bin: truncated netlink message "
		 "(nlmsg_len 400, 232 bytes left) at offset 368");
	assert_string_equal(err, want);
	assert_int_equal(l.n, 4);      /* mlx5_0's QPs stay */
	qp_list_free(&l);
	root_close(&r);
	fab_rmtree(dir);
	free(bin);
}

/* Whether this kernel has RDMA netlink at all, asked the way libnl asks. */
static int rdma_netlink_errno(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

static void test_live_unavailable(void **state)
{
	int e = rdma_netlink_errno();
	if (e == 0) {
		print_message("RDMA netlink answers here: the unavailable path is not reachable\n");
		skip();
	}
	struct fab_qp_list l = { 0 };
	char err[256] = "", want[256];
	snprintf(want, sizeof(want), "RDMA netlink unavailable: %s", strerror(e));
	assert_int_equal(rdma_res_query_qp(&l, err, sizeof(err)), -e);
	assert_string_equal(err, want);
	assert_int_equal(l.n, 0);

	unsigned char *buf = (unsigned char *)"x";
	size_t len = 99;
	err[0] = '\0';
	assert_int_equal(rdma_res_dump_bytes(&buf, &len, err, sizeof(err)), -e);
	assert_null(buf);
	assert_int_equal(len, 0);
	assert_string_equal(err, want);

	struct fab_root r;
	assert_int_equal(root_open(&r, NULL, err, sizeof(err)), 0);
	err[0] = '\0';
	assert_int_equal(rdma_res_from_root(&r, &l, err, sizeof(err)), -e);
	assert_string_equal(err, want);
	root_close(&r);
}

/* `fabtop capture` of a capture carries rdma-qp.bin over byte for byte. */
static void test_capture_carries_dump(void **state)
{
	const char *dir = mktmp();
	char src[PATH_MAX + 8], out[PATH_MAX + 8], got[PATH_MAX + 64], err[512] = "";
	size_t len, glen;
	unsigned char *bin = slurp(FIX "multipart.bin", &len);
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(out, sizeof(out), "%s/out/", dir);
	mkdir(src, 0755);
	put(src, "fabtop/meta.json", "{\"format\": 1}\n", 14);
	put(src, "fabtop/rdma-qp.bin", bin, len);
	FILE *log = tmpfile();
	assert_non_null(log);
	struct capture_opts o = { .output = out, .samples = 0, .interval = 1, .src_root = src };
	assert_int_equal(capture_run(&o, log), 0);
	fclose(log);
	snprintf(got, sizeof(got), "%sfabtop/rdma-qp.bin", out);
	unsigned char *copy = slurp(got, &glen);
	assert_int_equal(glen, len);
	assert_memory_equal(copy, bin, len);

	struct fab_root r;
	struct fab_qp_list l = { 0 };
	assert_int_equal(root_open(&r, out, err, sizeof(err)), 0);
	assert_int_equal(rdma_res_from_root(&r, &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 6);
	assert_int_equal(l.qps[5].lqpn, 1005);
	qp_list_free(&l);
	root_close(&r);
	free(copy);
	free(bin);
	fab_rmtree(dir);
}

/* A live capture where RDMA netlink is missing says so once and goes on. */
static void test_capture_live_notes_missing(void **state)
{
	int e = rdma_netlink_errno();
	if (e == 0) {
		print_message("RDMA netlink answers here: the capture records a dump instead\n");
		skip();
	}
	const char *dir = mktmp();
	char out[PATH_MAX + 8], p[PATH_MAX + 64], logtext[8192], want[256];
	snprintf(out, sizeof(out), "%s/out/", dir);
	FILE *log = tmpfile();
	assert_non_null(log);
	struct capture_opts o = { .output = out, .samples = 0, .interval = 1, .src_root = NULL };
	assert_int_equal(capture_run(&o, log), 0);
	rewind(log);
	size_t n = fread(logtext, 1, sizeof(logtext) - 1, log);
	logtext[n] = '\0';
	fclose(log);
	snprintf(want, sizeof(want), "fabtop: no rdma-qp.bin (QP states will show as not "
		 "recorded): RDMA netlink unavailable: %s\n", strerror(e));
	assert_non_null(strstr(logtext, want));
	snprintf(p, sizeof(p), "%sfabtop/rdma-qp.bin", out);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%sfabtop/meta.json", out);
	assert_int_equal(access(p, F_OK), 0);      /* the rest of the capture is there */
	fab_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_devices),
		cmocka_unit_test(test_multipart),
		cmocka_unit_test(test_unaligned),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_kernel_recordings),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_builder_constants),
		cmocka_unit_test(test_fixtures_fresh),
		cmocka_unit_test(test_from_capture_dir),
		cmocka_unit_test(test_live_unavailable),
		cmocka_unit_test(test_capture_carries_dump),
		cmocka_unit_test(test_capture_live_notes_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
