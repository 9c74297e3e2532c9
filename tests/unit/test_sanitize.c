/* The output sanitiser (sanitize.h) over every byte, C1, broken UTF-8 and
 * real names; the sanitising printf; shell quoting; and the media that use
 * them: the print layer's text and JSON, the TUI's measuring and wrapping. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "fabtop/print.h"
#include "fabtop/sanitize.h"
#include "fabtop/util.h"
#include "fabtop/view.h"

static const char *san(const char *s)
{
	static char buf[4096];
	return fab_sanitize(s, buf, sizeof(buf));
}

static const char *san_n(const char *s, size_t n)
{
	static char buf[4096];
	return fab_sanitize_n(s, n, buf, sizeof(buf));
}

/* Nothing in s drives a terminal: decoded by the C library (not by the
 * code under test), it is valid UTF-8 with no C0 control but '\n', no DEL
 * and no C1 code point. */
static void assert_inert(const char *s)
{
	char *old = strdup(setlocale(LC_CTYPE, NULL));
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		fail_msg("no C.UTF-8 locale");
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	size_t rem = strlen(s);
	while (rem) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s, rem, &st);
		assert_true(n != (size_t)-1 && n != (size_t)-2 && n != 0);
		assert_false((wc < 0x20 && wc != '\n') || wc == 0x7f || (wc >= 0x80 && wc <= 0x9f));
		s += n;
		rem -= n;
	}
	setlocale(LC_CTYPE, old);
	free(old);
}

static void test_every_byte_alone(void **state)
{
	(void)state;
	for (int b = 0; b < 256; b++) {
		char in[2] = { (char)b, 0 }, want[8], out[FAB_SAN_MAX];
		size_t ol;
		bool esc;
		if (b == 0)
			continue;   /* a C string ends there; fab_san_next below */
		if (b == '\n')
			strcpy(want, "\\n");
		else if (b == '\t')
			strcpy(want, "\\t");
		else if (b < 0x20 || b >= 0x7f)   /* C0, DEL, and a lone byte >= 0x80 is not UTF-8 */
			snprintf(want, sizeof(want), "\\x%02x", b);
		else
			snprintf(want, sizeof(want), "%c", b);
		assert_string_equal(san(in), want);
		assert_int_equal(fab_san_next(in, 1, out, &ol, &esc), 1);
		assert_int_equal(esc, b < 0x20 || b >= 0x7f);
		assert_int_equal(ol, strlen(want));
		assert_int_equal(fab_san_size(in, 1), strlen(want) + 1);
		/* Shown once, it shows as it is: sanitising twice changes nothing. */
		char again[16];
		strcpy(again, want);
		assert_string_equal(san(again), want);
		assert_inert(want);
	}
	/* NUL inside a counted buffer is a C0 control too. */
	char out[FAB_SAN_MAX];
	size_t ol;
	bool esc;
	assert_int_equal(fab_san_next("\0", 1, out, &ol, &esc), 1);
	assert_true(esc);
	assert_string_equal(out, "\\x00");
}

static void test_c1_as_utf8(void **state)
{
	(void)state;
	for (int cp = 0x80; cp <= 0x9f; cp++) {
		char in[3] = { (char)0xc2, (char)cp, 0 }, want[8];
		snprintf(want, sizeof(want), "\\u%04x", cp);
		assert_string_equal(san(in), want);
		assert_true(fab_utf8_valid(in, 2));   /* valid, and still escaped */
		assert_false(fab_san_clean(in));
	}
	/* The first printable code point after C1 passes. */
	assert_string_equal(san("\xc2\xa0" "a"), "\xc2\xa0" "a");
	assert_string_equal(san("x\xc2\x9b" "2Jy"), "x\\u009b2Jy");
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	/* Overlong forms of '/', NUL and U+0800..U+FFFF. */
	assert_string_equal(san("\xc0\xaf"), "\\xc0\\xaf");
	assert_string_equal(san("\xc1\xbf"), "\\xc1\\xbf");
	assert_string_equal(san("\xe0\x80\x80"), "\\xe0\\x80\\x80");
	assert_string_equal(san("\xe0\x9f\xbf"), "\\xe0\\x9f\\xbf");
	assert_string_equal(san("\xf0\x80\x80\x80"), "\\xf0\\x80\\x80\\x80");
	assert_string_equal(san("\xf0\x8f\xbf\xbf"), "\\xf0\\x8f\\xbf\\xbf");
	/* Surrogates, beyond U+10FFFF, bytes that never start a sequence. */
	assert_string_equal(san("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	assert_string_equal(san("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
	assert_string_equal(san("\xf5\x80\x80\x80"), "\\xf5\\x80\\x80\\x80");
	assert_string_equal(san("\xff\xfe"), "\\xff\\xfe");
	/* Truncated sequences: at the end, and before ASCII (which shows). */
	assert_string_equal(san("a\xe4\xb8"), "a\\xe4\\xb8");
	assert_string_equal(san("\xe4\xb8z"), "\\xe4\\xb8z");
	assert_string_equal(san("\xf0\x9f\x98"), "\\xf0\\x9f\\x98");
	/* A lone continuation byte between valid characters. */
	assert_string_equal(san("\xe4\xb8\xad\x9b\xe6\x96\x87"), "\xe4\xb8\xad\\x9b\xe6\x96\x87");
	/* The count limits what is read: a sequence cut by it is broken. */
	assert_string_equal(san_n("\xe4\xb8\xad", 2), "\\xe4\\xb8");
	assert_string_equal(san_n("ab\0cd", 5), "ab");
	assert_false(fab_utf8_valid("\xe4\xb8", 2));
	assert_false(fab_utf8_valid("\xc0\x80", 2));
	assert_true(fab_utf8_valid("", 0));
}

static void test_printable_passes(void **state)
{
	(void)state;
	const char *ok[] = {
		"mlx5_0", "ens33np0", "0000:1a:00.0", "a\\x1b stays a backslash",
		"\xe7\xbd\x91\xe5\x8d\xa1",              /* 网卡 */
		"caf\xc3\xa9 na\xc3\xafve",               /* café naïve */
		"\xe2\x82\xac \xe2\x89\x88 \xc3\x97",     /* € ≈ × (0x82, 0x89, 0x97 continuation bytes) */
		"\xf0\x9f\x98\x80",                       /* 😀 */
		"\xef\xbc\xa1",                           /* fullwidth A */
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_string_equal(san(ok[i]), ok[i]);
		assert_true(fab_san_clean(ok[i]));
	}
	/* Bidi overrides and isolates, line and paragraph separators. */
	assert_string_equal(san("a\xe2\x80\xae" "b"), "a\\u202eb");
	assert_string_equal(san("\xe2\x81\xa6"), "\\u2066");
	assert_string_equal(san("\xe2\x80\xa8"), "\\u2028");
}

static void test_hostile_names(void **state)
{
	(void)state;
	const char *title = "mlx5_\x1b]0;pwned\x07";
	assert_string_equal(san(title), "mlx5_\\x1b]0;pwned\\x07");
	assert_string_equal(san("\x1b[2J\x1b[H"), "\\x1b[2J\\x1b[H");
	assert_string_equal(san("x\nFindings: none\n"), "x\\nFindings: none\\n");
	assert_string_equal(san("a\r\tb"), "a\\x0d\\tb");
	assert_inert(san(title));
	/* A short buffer cuts before the escape that does not fit. */
	char small[6];
	assert_string_equal(fab_sanitize("ab\x1b" "c", small, sizeof(small)), "ab");
	assert_string_equal(fab_sanitize("abc\xe7\xbd\x91", small, sizeof(small)), "abc");
	char one[1];
	assert_string_equal(fab_sanitize("abc", one, sizeof(one)), "");
	assert_string_equal(san(NULL), "");
	/* For JSON: only what is not UTF-8 is escaped. */
	char js[64];
	assert_string_equal(fab_sanitize_utf8("a\x1b\xc2\x9b\x9b\xe7\xbd\x91\xff\n", js, sizeof(js)),
			    "a\x1b\xc2\x9b\\x9b\xe7\xbd\x91\\xff\n");
	/* Command output: tabs to the next stop of 8, other controls escaped. */
	char line[64];
	assert_string_equal(fab_sanitize_line("CA\t'x'\n", 7, line, sizeof(line)), "CA      'x'\\n");
	assert_string_equal(fab_sanitize_line("\tport:\x1b", 7, line, sizeof(line)),
			    "        port:\\x1b");
}

static char *printed(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	fn(f);
	fclose(f);
	return buf;
}

static void pf_mixed(FILE *f)
{
	fab_fprintf(f, "x %s y %d %-6s|%.2s|%5.1f %c %lld %zu %% %*s|%-*s|%.*s %u %x %ld %p\n",
		    "\x1b[2J", 42, "a\nb", "\x1b\x1b\x1b", 3.14159, '\x9b', 1LL << 40, (size_t)7,
		    4, "z", 3, "w", 3, "abcdef", 4000000000u, 255u, -5L, (void *)0);
}

static void pf_null(FILE *f)
{
	const char *nothing = getenv("FABTOP_TEST_NEVER_SET");   /* NULL, unknown to the compiler */
	fab_fprintf(f, "[%s]", nothing);
}

static void pf_errno(FILE *f)
{
	errno = ENOENT;
	fab_fprintf(f, "%s: %m", "a\x1b");
}

static void test_fprintf(void **state)
{
	(void)state;
	char *s = printed(pf_mixed);
	char want[256], nil[32];
	snprintf(nil, sizeof(nil), "%p", (void *)0);
	snprintf(want, sizeof(want),
		 "x \\x1b[2J y 42 a\\nb  |\\x1b\\x1b|  3.1 \\x9b 1099511627776 7 %%    z|w  |abc "
		 "4000000000 ff -5 %s\n", nil);
	assert_string_equal(s, want);
	free(s);
	s = printed(pf_errno);
	assert_string_equal(s, "a\\x1b: No such file or directory");
	free(s);
	s = printed(pf_null);
	assert_string_equal(s, "[(null)]");
	free(s);
}

static void test_shq(void **state)
{
	(void)state;
	char b[64];
	assert_string_equal(fab_shq("mlx5_0", b, sizeof(b)), "mlx5_0");
	assert_string_equal(fab_shq("ens33np0", b, sizeof(b)), "ens33np0");
	assert_string_equal(fab_shq("0000:1a:00.0", b, sizeof(b)), "0000:1a:00.0");
	assert_string_equal(fab_shq("/sys/class/infiniband/mlx5_0/ports/1", b, sizeof(b)),
			    "/sys/class/infiniband/mlx5_0/ports/1");
	assert_string_equal(fab_shq("mlx5_0,mlx5_1", b, sizeof(b)), "mlx5_0,mlx5_1");
	assert_string_equal(fab_shq("", b, sizeof(b)), "''");
	assert_string_equal(fab_shq(NULL, b, sizeof(b)), "''");
	assert_string_equal(fab_shq("a b", b, sizeof(b)), "'a b'");
	assert_string_equal(fab_shq("it's", b, sizeof(b)), "'it'\\''s'");
	assert_string_equal(fab_shq("x;touch pwned;#", b, sizeof(b)), "'x;touch pwned;#'");
	assert_string_equal(fab_shq("$(reboot)", b, sizeof(b)), "'$(reboot)'");
	assert_string_equal(fab_shq("`id`", b, sizeof(b)), "'`id`'");
	assert_string_equal(fab_shq("a*", b, sizeof(b)), "'a*'");
	assert_string_equal(fab_shq("~root", b, sizeof(b)), "'~root'");
	assert_string_equal(fab_shq("\xe7\xbd\x91", b, sizeof(b)), "'\xe7\xbd\x91'");
	assert_string_equal(fab_shq("a\nb", b, sizeof(b)), "'a\nb'");
	/* Cut to fit, the quote still closed, never half a '\''. */
	assert_string_equal(fab_shq("abcdefgh;", b, 6), "'abc'");
	assert_string_equal(fab_shq("a'bcdef", b, 7), "'a'");
	assert_string_equal(fab_shq("abcdefghij", b, 6), "'abc'");
	assert_string_equal(fab_shq("x", b, 2), "");
	/* In a snprintf, through the macro. */
	char hint[128];
	snprintf(hint, sizeof(hint), "ibstat %s %d; ethtool %s", FAB_SHQ("mlx5;rm -rf /"), 1,
		 FAB_SHQ("ens1"));
	assert_string_equal(hint, "ibstat 'mlx5;rm -rf /' 1; ethtool ens1");
}

static void test_is_text(void **state)
{
	(void)state;
	assert_true(fab_is_text("4: ACTIVE\n", 10));
	assert_true(fab_is_text("a\tb\r\n", 5));
	assert_true(fab_is_text("caf\xc3\xa9", 5));
	assert_false(fab_is_text("MT4129\x9b" "2J", 9));        /* raw C1 CSI */
	assert_false(fab_is_text("MT\xc2\x9b" "2J", 6));        /* C1 as UTF-8 */
	assert_false(fab_is_text("MT\x1b]0;x\x07", 8));
	assert_false(fab_is_text("MT\xff", 3));
	assert_false(fab_is_text("\x00\x01", 2));
	assert_false(fab_is_text("ab\x7f", 3));
}

static char *doc(void (*fn)(struct fab_out *), enum out_mode mode)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	struct fab_out *o = out_new(mode, f);
	assert_non_null(o);
	out_open_obj(o, NULL);
	fn(o);
	out_close_obj(o);
	assert_int_equal(out_free(o), 0);
	fclose(f);
	return buf;
}

static void names(struct fab_out *o)
{
	out_str(o, PR_ANY, "name", "name %s\n", "mlx5_\x1b]0;pwned\x07\nFindings: none");
	out_str(o, PR_ANY, "bad", "bad %s\n", "ab\xff\x9b" "cd");
	out_str(o, PR_ANY, "c1", "c1 %s\n", "x\xc2\x9b" "2J");
	out_str(o, PR_ANY, "cjk", "cjk %s\n", "\xe7\xbd\x91\xe5\x8d\xa1");
	out_str(o, PR_ANY, "del", "del %s\n", "a\x7f");
	out_int(o, PR_ANY, "port\xff\x1b", "n %lld\n", fab_int_of(3));
	out_text(o, "%s|%-5s|%.3s\n", "t\x1b", "\x9b", "abcdef");
}

static void test_print_text(void **state)
{
	(void)state;
	char *s = doc(names, OUT_TEXT);
	assert_string_equal(s,
		"name mlx5_\\x1b]0;pwned\\x07\\nFindings: none\n"
		"bad ab\\xff\\x9bcd\n"
		"c1 x\\u009b2J\n"
		"cjk \xe7\xbd\x91\xe5\x8d\xa1\n"
		"del a\\x7f\n"
		"n 3\n"
		"t\\x1b|\\x9b |abc\n");
	free(s);
}

static void test_print_json(void **state)
{
	(void)state;
	char *s = doc(names, OUT_JSON);
	/* The name is kept (jansson escapes its controls), never null. */
	assert_non_null(strstr(s, "\"name\": \"mlx5_\\u001B]0;pwned\\u0007\\nFindings: none\""));
	/* Invalid UTF-8 kept in its shown form, a valid string. */
	assert_non_null(strstr(s, "\"bad\": \"ab\\\\xff\\\\x9bcd\""));
	/* A C1 code point as its \u escape: no raw 0xC2 0x9B on the terminal. */
	assert_non_null(strstr(s, "\"c1\": \"x\\u009B2J\""));
	assert_non_null(strstr(s, "\"cjk\": \"\xe7\xbd\x91\xe5\x8d\xa1\""));
	assert_non_null(strstr(s, "\"del\": \"a\\u007F\""));
	assert_non_null(strstr(s, "\"port\\\\xff\\u001B\": 3"));
	assert_null(strstr(s, "null"));
	assert_inert(s + 0);
	for (const char *p = s; *p; p++)
		assert_true(*p == '\n' || (unsigned char)*p >= 0x20);
	free(s);
}

/* The JSON is written in 64 KiB pieces: a C1 code point whose lead byte
 * ends one piece is still escaped (the lead is held for the next). The
 * padding walks its two bytes across the boundary. */
static char long_c1[65600];

static void long_name(struct fab_out *o)
{
	out_str(o, PR_ANY, "s", "%s\n", long_c1);
}

static void test_print_json_boundary(void **state)
{
	(void)state;
	for (size_t pad = 65515; pad < 65535; pad++) {
		memset(long_c1, 'a', pad);
		memcpy(long_c1 + pad, "\xc2\x9b" "b\x7f", 5);
		char *s = doc(long_name, OUT_JSON);
		assert_non_null(strstr(s, "a\\u009Bb\\u007F\""));
		assert_null(strchr(s, 0xc2));
		free(s);
	}
}

static void test_tui_text(void **state)
{
	(void)state;
	if (!setlocale(LC_ALL, "C.UTF-8"))
		skip();
	/* Escapes take their shown width; CJK two columns each. */
	assert_int_equal(view_strwidth("a\x1b" "b"), 6);
	assert_int_equal(view_strwidth("a\nb"), 4);
	assert_int_equal(view_strwidth("\xc2\x9b"), 6);
	assert_int_equal(view_strwidth("\xff"), 4);
	assert_int_equal(view_strwidth("\xe7\xbd\x91\xe5\x8d\xa1"), 4);
	/* A newline in a name is no line break: the line goes on. */
	int len;
	const char *s = "eth0\nFindings: none";
	const char *next = view_wrap_next(s, 80, &len);
	assert_int_equal(len, (int)strlen(s));
	assert_string_equal(next, "");
	/* Wrapping counts the shown width: "\x1b" is 4 columns. */
	s = "ab \x1b\x1b cd";
	next = view_wrap_next(s, 8, &len);
	assert_int_equal(len, 2);
	assert_string_equal(next, "\x1b\x1b cd");
	setlocale(LC_ALL, "C");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_byte_alone),
		cmocka_unit_test(test_c1_as_utf8),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_printable_passes),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_fprintf),
		cmocka_unit_test(test_shq),
		cmocka_unit_test(test_is_text),
		cmocka_unit_test(test_print_text),
		cmocka_unit_test(test_print_json),
		cmocka_unit_test(test_print_json_boundary),
		cmocka_unit_test(test_tui_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
