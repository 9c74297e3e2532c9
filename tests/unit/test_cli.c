/* main's argument parser (cli.c) apart from what it runs: numbers outside
 * what the messages promise are refused, never wrapped into range, and a
 * second parse never reads the first argv's leftovers (getopt's state). */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

/* fab_cli_parse with the parser's usage and messages sent to /dev/null. */
static int quiet_parse(int argc, char **argv, struct fab_cli *o)
{
	fflush(stdout);
	fflush(stderr);
	int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO), nul = open("/dev/null", O_WRONLY);
	dup2(nul, STDOUT_FILENO);
	dup2(nul, STDERR_FILENO);
	int rc = fab_cli_parse(argc, argv, o);
	fflush(stdout);
	fflush(stderr);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(out);
	close(err);
	close(nul);
	return rc;
}

/* Parses a copy of words, freed after (as the fuzz target does); the
 * strings kept are cleared, cmd copied. */
static int parse(struct fab_cli *o, int n, const char *const *words)
{
	char *v[16];
	v[0] = strdup("fabtop");
	for (int i = 0; i < n; i++)
		v[i + 1] = strdup(words[i]);
	v[n + 1] = NULL;
	int rc = quiet_parse(n + 1, v, o);
	static char cmd[64];
	snprintf(cmd, sizeof(cmd), "%s", o->cmd ? o->cmd : "");
	o->cmd = cmd;
	o->root = o->output = o->source = o->arg = NULL;
	for (int i = 0; i <= n; i++)
		free(v[i]);
	return rc;
}

static void test_samples_range(void **state)
{
	(void)state;
	struct fab_cli o;
	const char *ok[] = { "capture", "-o", "x", "--samples", "100000" };
	assert_int_equal(parse(&o, 5, ok), -1);
	assert_int_equal(o.samples, 100000);
	/* 2^32 + 1 wrapped to 1 when the long was cast before the check. */
	const char *wrap[] = { "capture", "-o", "x", "--samples", "4294967297" };
	assert_int_equal(parse(&o, 5, wrap), 2);
	const char *neg[] = { "capture", "-o", "x", "--samples", "-4294967295" };
	assert_int_equal(parse(&o, 5, neg), 2);
	/* An empty word is not a count. */
	const char *empty[] = { "capture", "-o", "x", "--samples", "" };
	assert_int_equal(parse(&o, 5, empty), 2);
}

static void test_interval_count(void **state)
{
	(void)state;
	struct fab_cli o;
	const char *ok[] = { "report", "counters", "--interval", "0.5", "--count", "3" };
	assert_int_equal(parse(&o, 6, ok), -1);
	assert_true(o.interval == 0.5 && o.interval_set && o.count == 3);
	const char *nan_[] = { "report", "counters", "--interval", "nan" };
	assert_int_equal(parse(&o, 4, nan_), 2);
	const char *big[] = { "report", "counters", "--count", "100001" };
	assert_int_equal(parse(&o, 4, big), 2);
}

/* "-hj" stops at h (help) with "j" left half read; the next parse starts
 * afresh instead of taking that j (of another argv, freed by then in the
 * fuzz target) as --json. */
static void test_reparse_fresh(void **state)
{
	(void)state;
	struct fab_cli o;
	char a0[] = "fabtop", a1[] = "-hj", b1[] = "report";
	char *first[] = { a0, a1, NULL }, *second[] = { a0, b1, NULL };
	assert_int_equal(quiet_parse(2, first, &o), 0);
	assert_int_equal(quiet_parse(2, second, &o), -1);
	assert_false(o.json);
	assert_string_equal(o.cmd, "report");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_range),
		cmocka_unit_test(test_interval_count),
		cmocka_unit_test(test_reparse_fresh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
