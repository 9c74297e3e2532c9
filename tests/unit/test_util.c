/* Parsers of the kernel's text formats, on real-world values and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include "fabtop/root.h"
#include "fabtop/util.h"

static void test_parse_ll(void **state)
{
	long long v;
	(void)state;
	assert_true(fab_parse_ll("0x15b3\n", &v));
	assert_int_equal(v, 0x15b3);
	assert_true(fab_parse_ll(" 16 ", &v));
	assert_int_equal(v, 16);
	assert_true(fab_parse_ll("-1", &v));
	assert_int_equal(v, -1);
	assert_false(fab_parse_ll("", &v));
	assert_false(fab_parse_ll("16x", &v));
	assert_false(fab_parse_ll("abc", &v));
	assert_false(fab_parse_ll("99999999999999999999999", &v));
}

static void test_parse_gts(void **state)
{
	double v;
	(void)state;
	assert_true(fab_parse_gts("16.0 GT/s PCIe", &v));
	assert_true(v > 15.99 && v < 16.01);
	assert_true(fab_parse_gts("2.5 GT/s PCIe\n", &v));
	assert_true(v > 2.49 && v < 2.51);
	assert_true(fab_parse_gts("8 GT/s", &v));   /* older kernels: no "PCIe" suffix */
	assert_true(v > 7.99 && v < 8.01);
	assert_false(fab_parse_gts("Unknown", &v));
	assert_false(fab_parse_gts("Unknown speed", &v));
	assert_false(fab_parse_gts("16.0", &v));
	assert_false(fab_parse_gts("", &v));
}

static void test_enum_line(void **state)
{
	long long n;
	char w[24];
	(void)state;
	assert_true(fab_parse_enum_line("4: ACTIVE\n", &n, w, sizeof(w)));
	assert_int_equal(n, 4);
	assert_string_equal(w, "ACTIVE");
	assert_true(fab_parse_enum_line("5: LinkUp", &n, w, sizeof(w)));
	assert_int_equal(n, 5);
	assert_string_equal(w, "LinkUp");
	assert_true(fab_parse_enum_line("2: Polling", &n, w, sizeof(w)));
	assert_string_equal(w, "Polling");
	assert_false(fab_parse_enum_line("ACTIVE", &n, w, sizeof(w)));
	assert_false(fab_parse_enum_line("4:", &n, w, sizeof(w)));
	assert_false(fab_parse_enum_line("4 ACTIVE", &n, w, sizeof(w)));
	assert_false(fab_parse_enum_line("4: \x01\x02", &n, w, sizeof(w)));
}

static void test_rate(void **state)
{
	double g;
	(void)state;
	assert_true(fab_parse_rate("100 Gb/sec (4X EDR)", &g));
	assert_true(g > 99.9 && g < 100.1);
	assert_true(fab_parse_rate("400 Gb/sec (4X NDR)\n", &g));
	assert_true(g > 399.9 && g < 400.1);
	assert_true(fab_parse_rate("25 Gb/sec (1X EDR)", &g));
	assert_true(g > 24.9 && g < 25.1);
	assert_true(fab_parse_rate("2.5 Gb/sec (1X SDR)", &g));
	assert_true(g > 2.49 && g < 2.51);
	assert_false(fab_parse_rate("fast", &g));
	assert_false(fab_parse_rate("400 Mb/sec", &g));
	assert_false(fab_parse_rate("", &g));
}

static void test_cpulist(void **state)
{
	(void)state;
	assert_int_equal(fab_cpulist_count("0-55,112-167"), 112);
	assert_int_equal(fab_cpulist_count("0"), 1);
	assert_int_equal(fab_cpulist_count("0-1\n"), 2);
	assert_int_equal(fab_cpulist_count("3-1"), -1);
	assert_int_equal(fab_cpulist_count("a-b"), -1);
	assert_int_equal(fab_cpulist_count("1,"), 1);
	assert_int_equal(fab_cpulist_count(""), 0);
}

static void test_natcmp(void **state)
{
	(void)state;
	assert_true(fab_natcmp("mlx5_2", "mlx5_10") < 0);
	assert_true(fab_natcmp("mlx5_10", "mlx5_2") > 0);
	assert_int_equal(fab_natcmp("mlx5_0", "mlx5_0"), 0);
	assert_true(fab_natcmp("ib0", "ib1") < 0);
	assert_true(fab_natcmp("eth", "eth0") < 0);
}

static void test_is_text(void **state)
{
	(void)state;
	assert_true(fab_is_text("4: ACTIVE\n", 10));
	assert_false(fab_is_text("\x00\x01", 2));
	assert_false(fab_is_text("ab\x7f", 3));
}

static void test_int_str(void **state)
{
	char b[16];
	(void)state;
	assert_string_equal(fab_int_str(fab_int_of(7), b, sizeof(b)), "7");
	assert_string_equal(fab_int_str((fab_int){ 0, false }, b, sizeof(b)), "N/A");
}

static void test_bdf(void **state)
{
	(void)state;
	assert_true(fab_bdf_same_slot("0000:1a:00.0", "0000:1a:00.1"));
	assert_false(fab_bdf_same_slot("0000:1a:00.0", "0000:1b:00.0"));
	assert_false(fab_bdf_same_slot("0000:1a:00.0", "10000:1a:00.0"));
	assert_false(fab_bdf_same_slot("", ""));
	assert_int_equal(fab_bdf_function("0000:1a:00.1"), 1);
	assert_int_equal(fab_bdf_function("0000:1a:00.0"), 0);
	assert_int_equal(fab_bdf_function("0000:1a:00"), -1);
	assert_int_equal(fab_bdf_function("0000:1a:00.9"), -1);
	char b[8] = "ab";
	fab_catf(b, sizeof(b), "%s", "cdefghij");
	assert_string_equal(b, "abcdefg");
	fab_catf(b, sizeof(b), "%s", "x");
	assert_string_equal(b, "abcdefg");
}

/* The one lexical folder of link targets (roots, captures, memtrees). */
static void test_path_fold(void **state)
{
	char o[32];
	(void)state;
	/* A class link as sysfs writes it. */
	assert_int_equal(fab_path_fold("/sys/class/infiniband",
				       "../../devices/pci0000:00/0000:00:01.0", o, sizeof(o)), -ENAMETOOLONG);
	char big[128];
	assert_int_equal(fab_path_fold("/sys/class/infiniband",
				       "../../devices/pci0000:00/0000:00:01.0", big, sizeof(big)), 0);
	assert_string_equal(big, "/sys/devices/pci0000:00/0000:00:01.0");
	assert_int_equal(fab_path_fold("/a/b", "./c//../d/", o, sizeof(o)), 0);
	assert_string_equal(o, "/a/b/d");
	assert_int_equal(fab_path_fold("/a", "..", o, sizeof(o)), 0);
	assert_string_equal(o, "/");
	assert_int_equal(fab_path_fold("/", "", o, sizeof(o)), 0);
	assert_string_equal(o, "/");
	/* Above the top: refused, never clamped to "/". */
	assert_int_equal(fab_path_fold("/a", "../../etc/passwd", o, sizeof(o)), -EXDEV);
	assert_int_equal(fab_path_fold("", "..", o, sizeof(o)), -EXDEV);
	/* Fits exactly, then one byte short. */
	assert_int_equal(fab_path_fold("/abc", "d", o, 7), 0);
	assert_string_equal(o, "/abc/d");
	assert_int_equal(fab_path_fold("/abc", "d", o, 6), -ENAMETOOLONG);
	assert_int_equal(fab_path_fold("/", "x", o, 1), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ll),
		cmocka_unit_test(test_parse_gts),
		cmocka_unit_test(test_enum_line),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_natcmp),
		cmocka_unit_test(test_is_text),
		cmocka_unit_test(test_int_str),
		cmocka_unit_test(test_bdf),
		cmocka_unit_test(test_path_fold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
