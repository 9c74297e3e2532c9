/* libFuzzer target: argument parsing, and nothing after it. The input,
 * split at NUL bytes, is an argv (argv[0] "fabtop", at most 64 words);
 * main's parser (fab_cli_parse), the wizard's (wizard_parse_args) and
 * analyze-log's (analyze_log_parse_args) each parse it, the latter two
 * also with "wizard" / "analyze-log" in front as main hands them over.
 * No command runs: nothing is captured, probed or drawn.
 * Checked: each returns -1 (go on) or an exit status of 0 or 2; what it
 * accepted is within the ranges its messages promise (--samples
 * 0..100000, --interval (0, 3600], --count 1..100000; the wizard's pid,
 * probe timeout, GID index, hang and run timeout, peers); every string
 * it kept points into the argv; getopt's state from the previous input
 * is never used (ASan sees a stale pointer into a freed argv).
 * Messages go to /dev/null; libFuzzer's own output does not. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analyze_log_int.h"
#include "cli.h"
#include "wizard_int.h"

#define MAX_ARGS 64

static int argc_;
static char **argv_;

/* A failed check says so on fd 2, which libFuzzer and the sanitizers
 * still write to: CHECK() would write to the stderr muted below. */
#define CHECK(c) do { \
	if (!(c)) { \
		char m_[256]; \
		int l_ = snprintf(m_, sizeof(m_), "fuzz_args.c:%d: check failed: %s\n", __LINE__, #c); \
		(void)!write(STDERR_FILENO, m_, (size_t)l_); \
		abort(); \
	} \
} while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* Usage and errors go nowhere: only the parsers' answers matter. The
	 * FILE pointers are replaced, not fds 1 and 2: libFuzzer keeps its own
	 * pointer to the old stderr for its statistics and crash reports. */
	FILE *nul = fopen("/dev/null", "w");
	if (nul) {
		stdout = nul;
		stderr = nul;
	}
	return 0;
}

/* Is s one of the words (or NULL)? getopt hands out pointers into them,
 * optarg of "--x=V" included. */
static bool in_argv(const char *s)
{
	if (!s)
		return true;
	for (int i = 0; i < argc_; i++)
		if (s >= argv_[i] && s <= argv_[i] + strlen(argv_[i]))
			return true;
	return false;
}

static void check_cli(int rc, const struct fab_cli *o)
{
	CHECK(rc == -1 || rc == 0 || rc == 2);
	if (rc != -1)
		return;
	CHECK(o->samples >= 0 && o->samples <= 100000);
	CHECK(o->interval > 0 && o->interval <= 3600);
	CHECK(o->count == 0 || (o->count >= 1 && o->count <= 100000));
	CHECK(in_argv(o->root) && in_argv(o->output) && in_argv(o->source));
	CHECK(in_argv(o->cmd) && in_argv(o->arg));
}

static void check_wizard(int rc, const struct wiz_args *a)
{
	CHECK(rc == -1 || rc == 0 || rc == 2);
	if (rc != -1)
		return;
	const struct wizard_opts *w = &a->wo;
	CHECK(w->pid == 0 || (w->pid >= 1 && w->pid <= 4194304));
	CHECK(w->probe_timeout_s == 0 || (w->probe_timeout_s > 0 && w->probe_timeout_s <= 60));
	CHECK(!w->gid_index_set || (w->gid_index >= 0 && w->gid_index <= 255));
	CHECK(w->hang_s == 0 || (w->hang_s > 0 && w->hang_s <= 86400));
	CHECK(w->run_timeout_s == 0 || (w->run_timeout_s > 0 && w->run_timeout_s <= 86400));
	CHECK(w->npeers >= 0 && w->npeers <= WIZ_MAX_PEERS);
	for (int i = 0; i < w->npeers; i++)
		CHECK(w->peers[i] && in_argv(w->peers[i]));
	CHECK(in_argv(a->root) && in_argv(a->steps) && in_argv(w->iface) && in_argv(w->hca) &&
	       in_argv(w->side));
	if (w->cmd)
		for (const char *const *c = w->cmd; *c; c++)
			CHECK(in_argv(*c));
}

/* The argv: "fabtop", then pre (if any), then the input's words. Fresh
 * heap copies each time, freed after, so a parser that keeps a pointer
 * from the last run reads freed memory. */
static int make_argv(const uint8_t *data, size_t size, const char *pre, char ***out)
{
	char **v = calloc(MAX_ARGS + 3, sizeof(*v));
	if (!v)
		return -1;
	int n = 0;
	v[n++] = strdup("fabtop");
	if (pre)
		v[n++] = strdup(pre);
	size_t i = 0;
	while (i <= size && n < MAX_ARGS + 2) {
		const uint8_t *z = memchr(data + i, '\0', size - i);
		size_t l = z ? (size_t)(z - (data + i)) : size - i;
		char *w = malloc(l + 1);
		if (!w)
			break;
		memcpy(w, data + i, l);
		w[l] = '\0';
		v[n++] = w;
		i += l + 1;
	}
	v[n] = NULL;
	*out = v;
	return n;
}

static void free_argv(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;   /* not an argv: main always has one word after argv[0] here */
	static const char *const pre[] = { NULL, "wizard", "analyze-log" };
	for (size_t p = 0; p < sizeof(pre) / sizeof(pre[0]); p++) {
		char **v;
		int n = make_argv(data, size, pre[p], &v);
		if (n < 0)
			return 0;
		argc_ = n;
		argv_ = v;
		/* The parsers permute argv (GNU getopt): keep the word pointers. */
		char **words = calloc((size_t)n + 1, sizeof(*words));
		if (!words) {
			free_argv(v, n);
			return 0;
		}
		memcpy(words, v, (size_t)n * sizeof(*words));
		argv_ = words;

		struct fab_cli o;
		check_cli(fab_cli_parse(n, v, &o), &o);

		memcpy(v, words, (size_t)n * sizeof(*words));
		struct wiz_args a;
		check_wizard(wizard_parse_args(n, v, &a), &a);

		/* analyze-log gets argv from its own name on, as main hands it. */
		memcpy(v, words, (size_t)n * sizeof(*words));
		const char **names = calloc((size_t)n, sizeof(*names));
		int nn = 0;
		bool json;
		const char *root;
		if (names && n > 1) {
			int rc = analyze_log_parse_args(n - 1, v + 1, names, &nn, &json, &root);
			CHECK(rc == -1 || rc == 0 || rc == 2);
			CHECK(nn >= 0 && nn <= n - 2);
			if (rc == -1)
				CHECK(nn >= 1);
			for (int i = 0; i < nn; i++)
				CHECK(in_argv(names[i]));
		}
		free(names);
		free_argv(words, n);
		free(v);
	}
	return 0;
}
