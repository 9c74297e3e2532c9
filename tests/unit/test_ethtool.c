/* The ethtool statistics module's pure parts (ethtool.h): names cut at the
 * first NUL whatever they hold (unterminated 32-byte names, hostile bytes),
 * GSTRINGS replies taken whole or refused, a GSTATS reply whose count is not
 * the listed one never given out, and errno -> status. The kernel half is
 * tests/counters/t_ethtool_veth.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/ethtool.h"
#include "fabtop/sanitize.h"

/* n raw names of ETHTOOL_NAME_LEN bytes, each copied without its NUL when it
 * fills the 32 bytes, zero-padded otherwise (what drivers put in GSTRINGS). */
static unsigned char *raw_names(const char *const *names, int n)
{
	unsigned char *raw = calloc((size_t)n, ETHTOOL_NAME_LEN);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(names[i]);
		memcpy(raw + (size_t)i * ETHTOOL_NAME_LEN, names[i],
		       l < ETHTOOL_NAME_LEN ? l : ETHTOOL_NAME_LEN);
	}
	return raw;
}

static void test_name_cut(void **state)
{
	char out[ETHTOOL_NAME_LEN + 1];
	unsigned char raw[ETHTOOL_NAME_LEN];

	memset(raw, 0, sizeof(raw));
	memcpy(raw, "rx_prio3_pause", 14);
	assert_int_equal(ethtool_name_cut(out, raw), 14);
	assert_string_equal(out, "rx_prio3_pause");

	/* 32 bytes, no NUL: all 32 kept, then a NUL the driver never wrote. */
	memset(raw, 'A', sizeof(raw));
	memset(out, 'Z', sizeof(out));
	assert_int_equal(ethtool_name_cut(out, raw), ETHTOOL_NAME_LEN);
	assert_int_equal(strlen(out), ETHTOOL_NAME_LEN);
	assert_int_equal(out[ETHTOOL_NAME_LEN], '\0');
	assert_memory_equal(out, raw, ETHTOOL_NAME_LEN);

	/* Cut at the first NUL: what follows it is not part of the name. */
	memset(raw, 'B', sizeof(raw));
	memcpy(raw, "ab\0cd", 5);
	assert_int_equal(ethtool_name_cut(out, raw), 2);
	assert_string_equal(out, "ab");

	memset(raw, 0, sizeof(raw));
	assert_int_equal(ethtool_name_cut(out, raw), 0);
	assert_string_equal(out, "");

	/* Any other byte is kept as it is; the print layer sanitises. */
	memset(raw, 0, sizeof(raw));
	memcpy(raw, "\x1b[2J\xff\xfe\n\t", 8);
	assert_int_equal(ethtool_name_cut(out, raw), 8);
	assert_memory_equal(out, "\x1b[2J\xff\xfe\n\t", 9);
	char shown[256];
	fab_sanitize(out, shown, sizeof(shown));
	assert_null(strchr(shown, '\x1b'));
}

static void test_take_names(void **state)
{
	static const char *const names[] = {
		"peer_ifindex",
		"rx_queue_0_xdp_packets",
		"0123456789abcdef0123456789abcdefTAIL", /* 36: cut to 32 by raw_names */
	};
	unsigned char *raw = raw_names(names, 3);
	struct fab_ethtool_set s = { .ifname = "eth7" };
	char err[256] = "";
	assert_int_equal(ethtool_take_names(&s, raw, 3, err, sizeof(err)), ETHTOOL_ST_OK);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.names[0], "peer_ifindex");
	assert_string_equal(s.names[1], "rx_queue_0_xdp_packets");
	assert_string_equal(s.names[2], "0123456789abcdef0123456789abcdef");

	/* Taken again (relisted): the new list replaces the old one. */
	assert_int_equal(ethtool_take_names(&s, raw + ETHTOOL_NAME_LEN, 1, err, sizeof(err)),
			 ETHTOOL_ST_OK);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.names[0], "rx_queue_0_xdp_packets");

	/* None listed: the driver has none; the old list is kept untouched. */
	assert_int_equal(ethtool_take_names(&s, raw, 0, err, sizeof(err)), ETHTOOL_ST_NOSTATS);
	assert_non_null(strstr(err, "eth7"));
	assert_int_equal(s.n, 1);

	/* A count no driver has is refused before anything is read or allocated. */
	err[0] = '\0';
	assert_int_equal(ethtool_take_names(&s, NULL, ETHTOOL_MAX_STATS + 1, err, sizeof(err)),
			 ETHTOOL_ST_FAIL);
	assert_non_null(strstr(err, "more than"));
	assert_int_equal(s.n, 1);

	ethtool_set_free(&s);
	assert_int_equal(s.n, 0);
	assert_null(s.names);
	free(raw);
}

static void test_take_values(void **state)
{
	struct fab_ethtool_set s = { .ifname = "eth7", .n = 3 };
	const uint64_t data[5] = { 17, 0, 18446744073709551615ull, 4, 5 };
	uint64_t vals[5] = { 9, 9, 9, 9, 9 };
	char err[256] = "";

	assert_int_equal(ethtool_take_values(&s, 3, data, vals, 5, err, sizeof(err)), ETHTOOL_ST_OK);
	assert_true(vals[0] == 17 && vals[1] == 0 && vals[2] == 18446744073709551615ull);
	assert_true(vals[3] == 9);      /* nothing past the listed count */

	/* The count changed: more (an older kernel's reply), or 0 (a newer
	 * kernel's answer to a mismatch). Nothing is given out. */
	uint64_t keep[5] = { 1, 2, 3, 4, 5 };
	assert_int_equal(ethtool_take_values(&s, 5, data, keep, 5, err, sizeof(err)),
			 ETHTOOL_ST_RELIST);
	assert_non_null(strstr(err, "now counts 5"));
	assert_non_null(strstr(err, "3 were listed"));
	assert_int_equal(ethtool_take_values(&s, 0, data, keep, 5, err, sizeof(err)),
			 ETHTOOL_ST_RELIST);
	assert_non_null(strstr(err, "list again"));
	assert_int_equal(ethtool_take_values(&s, 2, data, keep, 5, err, sizeof(err)),
			 ETHTOOL_ST_RELIST);
	for (int i = 0; i < 5; i++)
		assert_int_equal(keep[i], (uint64_t)i + 1);

	/* A caller's array shorter than the list is refused, not overrun. */
	assert_int_equal(ethtool_take_values(&s, 3, data, keep, 2, err, sizeof(err)),
			 ETHTOOL_ST_FAIL);
	assert_int_equal(keep[0], 1);
}

static void test_errno_status(void **state)
{
	char err[256];
	static const struct { int e, st; const char *word, *says; } c[] = {
		{ ENODEV, ETHTOOL_ST_NODEV, "nodev", "no such netdev" },
		{ EOPNOTSUPP, ETHTOOL_ST_NOSTATS, "nostats", "no ethtool statistics" },
		{ EPERM, ETHTOOL_ST_PERM, "perm", "refused" },
		{ EACCES, ETHTOOL_ST_PERM, "perm", "refused" },
		{ EIO, ETHTOOL_ST_FAIL, "fail", "failed" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		err[0] = '\0';
		int st = ethtool_errno_status(c[i].e, "ens1f0np0", "ETHTOOL_GSTATS", err, sizeof(err));
		assert_int_equal(st, c[i].st);
		assert_string_equal(ethtool_status_word(st), c[i].word);
		assert_non_null(strstr(err, "ens1f0np0"));
		assert_non_null(strstr(err, c[i].says));
		assert_null(strchr(err, '\n'));
	}
	assert_string_equal(ethtool_status_word(ETHTOOL_ST_OK), "ok");
	assert_string_equal(ethtool_status_word(ETHTOOL_ST_RELIST), "relist");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_cut),
		cmocka_unit_test(test_take_names),
		cmocka_unit_test(test_take_values),
		cmocka_unit_test(test_errno_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
