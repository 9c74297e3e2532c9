/* fuzz_root_common.h - what fuzz_capture and fuzz_json share: a root's
 * reports printed into memory, and the checks on what they print.
 *
 * The checks are written out by hand, not with memmem or strstr: libFuzzer
 * hooks those and would learn the very bytes a check looks for (the
 * canary's token) and plant them in an input. Each check prints why on
 * stderr and abort()s, so libFuzzer keeps the input as a crash. */
#ifndef FUZZ_ROOT_COMMON_H
#define FUZZ_ROOT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "fabtop/collect.h"
#include "fabtop/model.h"
#include "fabtop/report.h"
#include "fabtop/root.h"

struct fz_out {
	char *text, *json;        /* report all */
	char *ctext, *cjson;      /* report counters (playback only), "" else */
	char *log;                /* what report counters said on its log */
	size_t ntext, njson, nctext, ncjson, nlog;
};

static void fz_fail(const char *what, const char *name, const char *s, size_t n, size_t at)
{
	size_t from = at > 40 ? at - 40 : 0, to = at + 40 < n ? at + 40 : n;
	fprintf(stderr, "\n*** fuzz invariant broken: %s in %s at byte %zu: \"", what, name, at);
	for (size_t i = from; i < to; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\')
			fputc(c, stderr);
		else
			fprintf(stderr, "\\x%02x", c);
	}
	fprintf(stderr, "\"\n");
	abort();
}

static char *fz_report(const char *section, bool json, const struct fab_model *m, size_t *n)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, n);
	if (!fp)
		abort();
	report_run(section, json, fp, m);
	if (fclose(fp) != 0)
		abort();
	return buf;
}

/* report counters, only where it plays back fabtop/samples.json: live
 * sampling of a directory root would sleep between samples. */
static char *fz_counters(const struct fab_root *r, const struct fab_model *m, bool json,
			 size_t *n, FILE *log)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, n);
	if (!fp)
		abort();
	if (root_exists(r, "/fabtop/samples.json")) {
		struct counters_opts co = { .interval = 1, .count = 4, .json = json };
		report_counters(r, m, &co, fp, log);
	}
	if (fclose(fp) != 0)
		abort();
	return buf;
}

/* Collects the root into a model and prints its reports into o. */
static void fz_run_reports(const struct fab_root *r, struct fab_model *m, struct fz_out *o)
{
	o->text = fz_report("all", false, m, &o->ntext);
	o->json = fz_report("all", true, m, &o->njson);
	FILE *log = open_memstream(&o->log, &o->nlog);
	if (!log)
		abort();
	o->ctext = fz_counters(r, m, false, &o->nctext, log);
	o->cjson = fz_counters(r, m, true, &o->ncjson, log);
	if (fclose(log) != 0)
		abort();
}

static void fz_out_free(struct fz_out *o)
{
	free(o->text);
	free(o->json);
	free(o->ctext);
	free(o->cjson);
	free(o->log);
	memset(o, 0, sizeof(*o));
}

/* Length of the UTF-8 sequence at s (strict: no overlong form, surrogate
 * or code point above U+10FFFF), with its code point; 0 when invalid.
 * Written again on purpose, not sanitize.c's decoder: the check of the
 * sanitiser's output must not share the sanitiser's mistakes. */
static size_t fz_utf8(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xc2 && c <= 0xdf) {
		len = 2, min = 0x80, *cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, min = 0x800, *cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, min = 0x10000, *cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

/* The sanitiser's promise for text (sanitize.h): valid UTF-8, and no C0
 * control but newline (and the tab a report's own format may hold), no
 * DEL, no C1, no bidi mark, override or isolate, no line or paragraph
 * separator. */
static void fz_check_shown(const char *name, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n; ) {
		unsigned cp;
		size_t len = fz_utf8(u + i, n - i, &cp);
		if (!len)
			fz_fail("invalid UTF-8", name, s, n, i);
		if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7f)
			fz_fail("a raw C0 control or DEL", name, s, n, i);
		if (cp >= 0x80 && cp <= 0x9f)
			fz_fail("a raw C1 control", name, s, n, i);
		if ((cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
		    cp == 0x200e || cp == 0x200f)
			fz_fail("a raw bidi mark or line separator", name, s, n, i);
		i += len;
	}
}

/* JSON output parses back (an empty output is no document: allowed only
 * where nothing was printed at all, report counters without samples). */
static void fz_check_json(const char *name, const char *s, size_t n)
{
	json_error_t je;
	if (!n)
		return;
	json_t *doc = json_loadb(s, n, 0, &je);
	if (!doc) {
		fprintf(stderr, "\n*** fuzz invariant broken: %s does not parse back: line %d: %s\n",
			name, je.line, je.text);
		abort();
	}
	json_decref(doc);
}

static void fz_check_out(const struct fz_out *o)
{
	fz_check_shown("report all", o->text, o->ntext);
	fz_check_shown("report counters", o->ctext, o->nctext);
	fz_check_shown("report counters' log", o->log, o->nlog);
	fz_check_json("report all --json", o->json, o->njson);
	fz_check_json("report counters --json", o->cjson, o->ncjson);
}

#endif
