/*
 * diff.c - `fabtop diff` (diff.h): two nodes' facts side by side. The
 * facts and what is identity come from nodefacts.c; the documents from
 * nodedoc.c; this file walks the two sorted lists and lays them out.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "fabtop/diff.h"
#include "fabtop/hazard.h"
#include "fabtop/nodedoc.h"
#include "fabtop/nodefacts.h"
#include "fabtop/print.h"
#include "fabtop/sanitize.h"

#define DIFF_MIN_WIDTH 40
#define DIFF_CUT "..."

int diff_width(int fd)
{
	const char *c = getenv("COLUMNS");
	if (c && *c) {
		char *end;
		long v = strtol(c, &end, 10);
		if (!*end && v >= DIFF_MIN_WIDTH && v <= 10000)
			return (int)v;
	}
	struct winsize ws;
	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= DIFF_MIN_WIDTH)
		return ws.ws_col;
	return 80;
}

/* One difference: a fact of either side, the other's value or NULL. */
struct diff_row {
	const struct nodefact *a, *b;
};

/* The facts that differ, in the lists' order (both sorted by
 * nodefacts_cmp): a merge walk. Returns the count, or -1 out of memory. */
static long diff_rows(const struct nodefacts *fa, const struct nodefacts *fb, bool counters, struct diff_row **out)
{
	struct diff_row *v = malloc((fa->n + fb->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	size_t i = 0, j = 0, n = 0;
	while (i < fa->n || j < fb->n) {
		if (!counters && i < fa->n && strcmp(fa->v[i].section, "counter") == 0) {
			i++;
			continue;
		}
		if (!counters && j < fb->n && strcmp(fb->v[j].section, "counter") == 0) {
			j++;
			continue;
		}
		int c = i == fa->n ? 1 : j == fb->n ? -1 : nodefacts_cmp(&fa->v[i], &fb->v[j]);
		if (c < 0) {
			v[n++] = (struct diff_row){ &fa->v[i++], NULL };
		} else if (c > 0) {
			v[n++] = (struct diff_row){ NULL, &fb->v[j++] };
		} else {
			if (strcmp(fa->v[i].value, fb->v[j].value) != 0)
				v[n++] = (struct diff_row){ &fa->v[i], &fb->v[j] };
			i++;
			j++;
		}
	}
	*out = v;
	return (long)n;
}

static const struct nodefact *row_fact(const struct diff_row *r)
{
	return r->a ? r->a : r->b;
}

/* Columns of the shown (sanitised) form: its code points. The shown form
 * is printable ASCII or valid UTF-8 (sanitize.h). */
static size_t cols(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* s shown (sanitize.h): a malloc'd copy, NULL out of memory. */
static char *shown_of(const char *s)
{
	size_t sz = fab_san_size(s, strlen(s));
	char *shown = malloc(sz);
	if (shown)
		fab_sanitize(s, shown, sz);
	return shown;
}

/* The byte offset of code point k of s (its end when shorter). */
static size_t cp_off(const char *s, size_t k)
{
	size_t i = 0, n = 0;
	for (; s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == k)
			break;
	return i;
}

/* A shown string in w columns: when wider, its first skip code points
 * become DIFF_CUT (so a long value shows where it differs) and its end is
 * cut to DIFF_CUT (*cut set); padded to w when pad. Malloc'd, NULL out of
 * memory. */
static char *cell(const char *shown, size_t w, size_t skip, bool pad, bool *cut)
{
	const size_t el = strlen(DIFF_CUT);
	size_t c = cols(shown);
	const char *head = "";
	if (c > w) {
		*cut = true;
		if (skip && w > 2 * el + 4) {
			shown += cp_off(shown, skip);
			c -= skip;
			head = DIFF_CUT;
		} else {
			skip = 0;
		}
	}
	size_t room = w - (*head ? el : 0), keep = c > room ? (room > el ? room - el : 0) : c;
	size_t bytes = cp_off(shown, keep), shown_cols = (*head ? el : 0) + keep + (c > room ? el : 0);
	size_t padn = pad && shown_cols < w ? w - shown_cols : 0;
	char *r = NULL;
	if (asprintf(&r, "%s%.*s%s%*s", head, (int)bytes, shown, c > room ? DIFF_CUT : "", (int)padn, "") < 0)
		return NULL;
	return r;
}

/* Code points two shown strings share at their start. */
static size_t common_prefix(const char *a, const char *b)
{
	size_t n = 0;
	for (; *a && *a == *b; a++, b++)
		n += ((unsigned char)*a & 0xc0) != 0x80;
	return n;
}

static void side_json(struct fab_out *o, const char *key, const struct diff_side *s)
{
	char kind[512];
	nodefacts_kind(s->doc, kind, sizeof(kind));
	out_open_obj(o, key);
	out_str(o, PR_JSON, "source", NULL, s->source);
	out_str(o, PR_JSON, "host", NULL, json_string_value(json_object_get(s->doc, "host")));
	out_str(o, PR_JSON, "kind", NULL, kind);
	out_str(o, PR_JSON, "how", NULL, s->how);
	out_str(o, PR_JSON, "why", NULL, s->why);
	out_bool(o, PR_JSON, "golden", NULL, s->golden);
	out_close_obj(o);
}

static void diff_json(struct fab_out *o, const struct diff_side *a, const struct diff_side *b,
		      const struct diff_opts *op, bool counters, const struct diff_row *rows, long n)
{
	out_open_obj(o, NULL);
	side_json(o, "a", a);
	side_json(o, "b", b);
	out_bool(o, PR_JSON, "same", NULL, n == 0);
	out_bool(o, PR_JSON, "identity", NULL, op->all);
	out_bool(o, PR_JSON, "counters", NULL, counters);
	out_open_arr(o, "differences");
	for (long i = 0; i < n; i++) {
		const struct nodefact *f = row_fact(&rows[i]);
		out_open_obj(o, NULL);
		out_str(o, PR_JSON, "section", NULL, f->section);
		out_str(o, PR_JSON, "key", NULL, f->key);
		out_str(o, PR_JSON, "a", NULL, rows[i].a ? rows[i].a->value : NULL);
		out_str(o, PR_JSON, "b", NULL, rows[i].b ? rows[i].b->value : NULL);
		out_bool(o, PR_JSON, "identity", NULL, f->identity);
		out_close_obj(o);
	}
	out_close_arr(o);
	out_close_obj(o);
}

/* "A: host (source)" in width columns; this node has no source. How the
 * document was made (embedded, collected and why) is in --json. */
static bool side_text(struct fab_out *o, const struct diff_side *s, size_t width, bool *cut)
{
	const char *host = json_string_value(json_object_get(s->doc, "host"));
	char *line = NULL;
	if (asprintf(&line, "%s: %s%s%s%s", s->label, host && *host ? host : "(no host name)",
		     s->source ? " (" : "", s->source ? s->source : "", s->source ? ")" : "") < 0)
		return false;
	char *shown = shown_of(line), *c = shown ? cell(shown, width, 0, false, cut) : NULL;
	if (c)
		out_text(o, "%s\n", c);
	free(line);
	free(shown);
	free(c);
	return c != NULL;
}

/* One line "  KEY  A | B" (A in wa columns, B in wb); false when out of
 * memory. Two values too wide that share a long start are both shown
 * from a little before where they part (GIDs, GUIDs), the rest marked
 * with DIFF_CUT. */
static bool text_row(struct fab_out *o, const char *key, const char *va, const char *vb, size_t kw, size_t wa,
		     size_t wb, bool *cut)
{
	char *sk = shown_of(key), *sa = shown_of(va), *sb = shown_of(vb), *k = NULL, *x = NULL, *y = NULL;
	bool ok = sk && sa && sb;
	if (ok) {
		/* Where they part would be cut away from a column that is cut. */
		size_t p = common_prefix(sa, sb), skip = 0, el = strlen(DIFF_CUT);
		if ((cols(sa) > wa && p + 4 + el > wa) || (cols(sb) > wb && p + 4 + el > wb))
			skip = p > 4 ? p - 4 : 0;
		k = cell(sk, kw, 0, true, cut);
		x = cell(sa, wa, skip, true, cut);
		y = cell(sb, wb, skip, false, cut);
		ok = k && x && y;
	}
	if (ok)
		out_text(o, "  %s  %s | %s\n", k, x, y);
	free(sk);
	free(sa);
	free(sb);
	free(k);
	free(x);
	free(y);
	return ok;
}

/* The widest shown form among the rows' keys (which 0), A values (1) or
 * B values (2), the column's label included; (size_t)-1 out of memory. */
static size_t widest(const struct diff_row *rows, long n, int which, const char *label)
{
	size_t w = cols(label);
	for (long i = 0; i < n; i++) {
		const struct nodefact *f = which == 0 ? row_fact(&rows[i]) : which == 1 ? rows[i].a : rows[i].b;
		char *shown = shown_of(!f ? "-" : which == 0 ? f->key : f->value);
		if (!shown)
			return (size_t)-1;
		if (cols(shown) > w)
			w = cols(shown);
		free(shown);
	}
	return w;
}

static int diff_text(struct fab_out *o, const struct diff_side *a, const struct diff_side *b,
		     const struct diff_opts *op, const struct diff_row *rows, long n)
{
	if (n == 0) {
		out_text(o, "same\n");
		return 0;
	}
	size_t width = (size_t)(op->width > 0 ? op->width : diff_width(STDOUT_FILENO));
	if (width < DIFF_MIN_WIDTH)
		width = DIFF_MIN_WIDTH;
	/* "  KEY  A | B": the key column as wide as the widest key, up to
	 * two fifths of the line; the values share the rest, a column that
	 * needs less than half leaving the other what it does not use. */
	size_t kw = widest(rows, n, 0, ""), wa = widest(rows, n, 1, a->label), wb = widest(rows, n, 2, b->label);
	if (kw == (size_t)-1 || wa == (size_t)-1 || wb == (size_t)-1)
		return 2;
	if (kw > (width - 2) * 2 / 5)
		kw = (width - 2) * 2 / 5;
	size_t room = width - 2 - kw - 2 - 3, half = room / 2;
	if (wa + wb > room) {
		if (wa <= half)
			wb = room - wa;
		else if (wb <= half)
			wa = room - wb;
		else
			wa = wb = half;
	}
	bool cut = false;
	if (!side_text(o, a, width, &cut) || !side_text(o, b, width, &cut))
		return 2;
	if (!text_row(o, "", a->label, b->label, kw, wa, wb, &cut))
		return 2;
	const char *section = NULL;
	for (long i = 0; i < n; i++) {
		const struct nodefact *f = row_fact(&rows[i]);
		if (f->section != section) {
			section = f->section;
			out_text(o, "%s\n", section);
		}
		if (!text_row(o, f->key, rows[i].a ? rows[i].a->value : "-", rows[i].b ? rows[i].b->value : "-",
			      kw, wa, wb, &cut))
			return 2;
	}
	if (cut)
		out_text(o, "(\"" DIFF_CUT "\": cut to fit; --json has it all)\n");
	return 0;
}

int diff_docs(FILE *fp, FILE *log, const struct diff_side *a, const struct diff_side *b,
	      const struct diff_opts *op)
{
	unsigned flags = op->all ? NODEFACTS_IDENTITY : 0;
	struct nodefacts fa, fb;
	if (nodefacts_from_doc(a->doc, flags, &fa) != 0) {
		if (log)
			fputs("fabtop: diff: out of memory\n", log);
		return 2;
	}
	if (nodefacts_from_doc(b->doc, flags, &fb) != 0) {
		nodefacts_free(&fa);
		if (log)
			fputs("fabtop: diff: out of memory\n", log);
		return 2;
	}
	/* Counter growth is known only from recorded samples: a side without
	 * them says nothing about it, so then the section is not compared
	 * (and log says so: "same" stays one line). */
	bool ca = json_is_object(json_object_get(a->doc, "counters"));
	bool cb = json_is_object(json_object_get(b->doc, "counters"));
	if (ca != cb && log)
		fab_fprintf(log, "fabtop: diff: only %s has counter samples: counters not compared\n",
			    ca ? a->label : b->label);
	struct diff_row *rows = NULL;
	long n = diff_rows(&fa, &fb, ca == cb, &rows);
	int rc = 2;
	struct fab_out *o = n >= 0 ? out_new(op->json ? OUT_JSON : OUT_TEXT, fp) : NULL;
	if (!o && log)
		fputs("fabtop: diff: out of memory\n", log);
	if (o) {
		rc = 0;
		if (op->json)
			diff_json(o, a, b, op, ca == cb, rows, n);
		else
			rc = diff_text(o, a, b, op, rows, n);
		if (out_free(o) != 0 || fflush(fp) != 0) {
			rc = 2;
			if (log)
				fputs("fabtop: diff: cannot write the output\n", log);
		}
		if (rc == 0)
			rc = n ? 1 : 0;
		/* A side whose own verdict is unknown was not seen whole: what
		 * it lacks may be what differs, so "same" or "different" is not
		 * known either (the differences are still shown). */
		for (int i = 0; i < 2 && rc < 2; i++) {
			const struct diff_side *d = i ? b : a;
			const char *v = json_string_value(json_object_get(d->doc, "verdict"));
			if (v && strcmp(v, "unknown") == 0) {
				if (log)
					fab_fprintf(log, "fabtop: diff: %s's verdict is unknown (a source it stands "
						    "on could not be read): the comparison is not whole\n", d->label);
				rc = 2;
			}
		}
	}
	free(rows);
	nodefacts_free(&fa);
	nodefacts_free(&fb);
	return rc;
}


static const char diff_usage[] =
	"usage: fabtop diff A [B] [--all] [--json] [--exclude-dev LIST]\n"
	"       fabtop diff --golden G [A] [--all] [--json]\n"
	"A, B, G: captures (FILE.tar.gz, capture directories) or saved `report all --json` outputs;\n"
	"B (or A after --golden) omitted: this node. --all: identifiers (GUIDs, addresses, host\n"
	"names, times) too. Exit status: 0 the same, 1 different, 2 a side could not be read.\n";

int diff_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "all", no_argument, NULL, 'a' },
		{ "golden", required_argument, NULL, 'g' },
		{ "exclude-dev", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct diff_opts op = { 0 };
	const char *golden = NULL;
	optind = 0;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "jah", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': op.json = true; break;
		case 'a': op.all = true; break;
		case 'g': golden = optarg; break;
		case 'x': hazard_exclude_set(optarg); break;
		case 'h': fputs(diff_usage, stdout); return 0;
		default:
			fab_fprintf(stderr, "fabtop: diff: bad option %s\n", argv[optind - 1]);
			fputs(diff_usage, stderr);
			return 2;
		}
	}
	int npos = argc - optind, nmax = golden ? 1 : 2;
	if ((!golden && npos < 1) || npos > nmax) {
		fprintf(stderr, "fabtop: diff: %s\n%s",
			npos > nmax ? (golden ? "--golden G takes one more input at most"
				       : "two inputs at most: A and B")
			: "nothing to compare: give A (and B)", diff_usage);
		return 2;
	}
	/* The left side: the golden reference, or A; the right: B, A after
	 * --golden, or this node (NULL). */
	const char *left = golden ? golden : argv[optind];
	const char *right = golden ? (npos ? argv[optind] : NULL) : (npos > 1 ? argv[optind + 1] : NULL);
	struct nodedoc da, db;
	char err[512];
	if (nodedoc_load(left, &da, err, sizeof(err)) != 0) {
		fab_fprintf(stderr, "fabtop: diff: cannot read %s: %s\n", left, err);
		return 2;
	}
	if (nodedoc_load(right, &db, err, sizeof(err)) != 0) {
		fab_fprintf(stderr, "fabtop: diff: cannot read %s: %s\n", right ? right : "this node", err);
		nodedoc_free(&da);
		return 2;
	}
	struct diff_side a = {
		.label = golden ? "golden" : "A", .source = left, .how = nodedoc_how_word(da.how), .why = da.why,
		.golden = golden != NULL, .doc = da.doc,
	};
	struct diff_side b = {
		.label = right ? (golden ? "A" : "B") : "this node", .source = right, .how = nodedoc_how_word(db.how),
		.why = db.why, .doc = db.doc,
	};
	int rc = diff_docs(stdout, stderr, &a, &b, &op);
	nodedoc_free(&da);
	nodedoc_free(&db);
	return rc;
}
