/* report_prom_escape (report.h): a label value from the node, as the
 * Prometheus text format takes it. Exact outputs for the format's three
 * escapes, for control bytes, C1, invalid UTF-8 and bidi overrides (the
 * sanitiser's shown form, then escaped), for UTF-8 that passes, and for a
 * short buffer (cut at a whole character, never inside an escape). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "fabtop/report.h"
#include "fabtop/vocab.h"

static const char *esc(const char *s)
{
	static char buf[1024];
	return report_prom_escape(s, buf, sizeof(buf));
}

static void test_format_escapes(void **state)
{
	(void)state;
	assert_string_equal(esc("mlx5_0"), "mlx5_0");
	assert_string_equal(esc("a\"b"), "a\\\"b");
	assert_string_equal(esc("a\\b"), "a\\\\b");
	/* A newline is shown as the two characters \n, whose backslash the
	 * format then escapes: the label reads back as backslash, n. */
	assert_string_equal(esc("a\nb"), "a\\\\nb");
	assert_string_equal(esc("x\"} 1\nfabtop_forged 1"), "x\\\"} 1\\\\nfabtop_forged 1");
	assert_string_equal(esc(""), "");
	assert_string_equal(esc(NULL), "");
}

static void test_controls_and_bytes(void **state)
{
	(void)state;
	assert_string_equal(esc("a\x1b[2Jb"), "a\\\\x1b[2Jb");
	assert_string_equal(esc("a\x7f"), "a\\\\x7f");
	assert_string_equal(esc("a\tb"), "a\\\\tb");
	assert_string_equal(esc("a\r"), "a\\\\x0d");
	/* A raw 0x9b is no UTF-8; U+009B is a C1 control; U+202E a bidi override. */
	assert_string_equal(esc("a\x9b" "b"), "a\\\\x9bb");
	assert_string_equal(esc("a\xc2\x9b"), "a\\\\u009b");
	assert_string_equal(esc("a\xe2\x80\xae"), "a\\\\u202e");
	/* Printable UTF-8 passes as it is. */
	assert_string_equal(esc("n\xc5\x93ud-\xe8\x8a\x82\xe7\x82\xb9"), "n\xc5\x93ud-\xe8\x8a\x82\xe7\x82\xb9");
}

static void test_short_buffer(void **state)
{
	(void)state;
	char b[6];
	/* "ab" then \x1b escaped is 6 bytes: it does not fit with the NUL. */
	assert_string_equal(report_prom_escape("ab\x1b", b, sizeof(b)), "ab");
	assert_string_equal(report_prom_escape("a\"b", b, 4), "a\\\"");
	assert_string_equal(report_prom_escape("a\"b", b, 3), "a");
	assert_string_equal(report_prom_escape("abc", b, 1), "");
}

/* The kernel's words by number (vocab.h), the enum the metrics list. */
static void test_state_words(void **state)
{
	(void)state;
	assert_string_equal(port_state_name(1), "DOWN");
	assert_string_equal(port_state_name(4), "ACTIVE");
	assert_string_equal(port_state_name(PORT_STATE_MAX), "ACTIVE_DEFER");
	assert_null(port_state_name(6));
	assert_null(port_state_name(-1));
	assert_null(port_phys_name(0));
	assert_string_equal(port_phys_name(3), "Disabled");
	assert_string_equal(port_phys_name(5), "LinkUp");
	assert_string_equal(port_phys_name(PORT_PHYS_MAX), "Phy Test");
	assert_null(port_phys_name(8));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_escapes),
		cmocka_unit_test(test_controls_and_bytes),
		cmocka_unit_test(test_short_buffer),
		cmocka_unit_test(test_state_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
