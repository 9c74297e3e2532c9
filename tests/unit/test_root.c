/* The node root: link resolution, recorded-unreadable files, listing order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/root.h"

static void test_resolve_link_matches_realpath(void **state)
{
	struct fab_root r;
	char err[256], a[1024], b[1024];
	(void)state;
	assert_int_equal(root_open(&r, "build/fixtures/topo-mini", err, sizeof(err)), 0);
	const char *links[] = {
		"/sys/bus/pci/devices/0000:07:00.0",
		"/sys/bus/pci/devices/0000:00:05.0",
		"/sys/class/infiniband/mlx5_2",
		"/sys/class/net/ibp8s0f1",
	};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		assert_int_equal(root_resolve_link(&r, links[i], a, sizeof(a)), 0);
		assert_int_equal(root_realpath(&r, links[i], b, sizeof(b)), 0);
		assert_string_equal(a, b);
		assert_non_null(strstr(a, "/sys/devices/"));
	}
	/* Not a link: same as realpath. A missing path: ENOENT. */
	assert_int_equal(root_resolve_link(&r, "/sys/devices/system/node", a, sizeof(a)), 0);
	assert_string_equal(a, "/sys/devices/system/node");
	assert_int_equal(root_resolve_link(&r, "/sys/bus/pci/devices/0000:ff:00.0", a, sizeof(a)),
			 -ENOENT);
	root_close(&r);
}

static void test_live_root_paths(void **state)
{
	struct fab_root r;
	char err[256], buf[64];
	(void)state;
	assert_int_equal(root_open(&r, "/", err, sizeof(err)), 0);
	assert_true(r.live);
	assert_string_equal(root_path(&r, "/sys/class/net", buf, sizeof(buf)), "/sys/class/net");
	assert_int_equal(root_read_line(&r, "/proc/sys/kernel/ostype", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "Linux");
	assert_true(root_read(&r, "/nonexistent/file", buf, sizeof(buf)) == -ENOENT);
	root_close(&r);
}

/* A live procfs seq_file answers in short reads long before its end (one
 * record set per read): the root reads it to EOF, unlike a sysfs attribute,
 * whose first short read is the whole of it. /proc/self/maps of this
 * (sanitized) test is several pages; read both ways at once, the counts of
 * mappings are close (a cut read would hold about one page of them). */
static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_live_proc_read_whole(void **state)
{
	struct fab_root r;
	char err[256], *buf = NULL, *ref = malloc(1 << 20);
	size_t len = 0, rl = 0;
	(void)state;
	assert_non_null(ref);
	assert_int_equal(root_open(&r, "/", err, sizeof(err)), 0);
	assert_int_equal(root_read_alloc(&r, "/proc/self/maps", &buf, &len), 0);
	FILE *fp = fopen("/proc/self/maps", "r");
	assert_non_null(fp);
	rl = fread(ref, 1, (1 << 20) - 1, fp);
	fclose(fp);
	ref[rl] = '\0';
	if (rl < 3 * 4096) {
		print_message("# SKIP /proc/self/maps is only %zu bytes here\n", rl);
	} else {
		int a = count_lines(buf), b = count_lines(ref);
		assert_true(len > 2 * 4096);
		/* the sanitizer maps more as the test runs: close, not equal */
		assert_in_range(a, b * 3 / 4, b * 5 / 4);
	}
	free(buf);
	free(ref);
	root_close(&r);
}

static void test_open_errors_name_the_path(void **state)
{
	struct fab_root r;
	char err[256];
	(void)state;
	assert_int_equal(root_open(&r, "/nonexistent-root", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent-root"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve_link_matches_realpath),
		cmocka_unit_test(test_live_root_paths),
		cmocka_unit_test(test_live_proc_read_whole),
		cmocka_unit_test(test_open_errors_name_the_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
