/*
 * diff.h - `fabtop diff`: two nodes side by side, through their report
 * documents (nodedoc.h) flattened into comparable facts (nodefacts.h):
 * what differs is decided there, once; this module only lays the two
 * lists next to each other.
 *
 *   fabtop diff A [B] [--all] [--json] [--exclude-dev LIST]
 *   fabtop diff --golden G [A] [--all] [--json]
 *
 * A and B: captures (FILE.tar.gz, capture directories) or saved
 * `report all --json` outputs; B omitted is this node, collected now.
 * --golden G: G is the reference for a node type, on the left; A (or this
 * node) on the right. --all: identity facts (GUIDs, GIDs, LIDs, MACs,
 * addresses, host names, times) too.
 *
 * Text: "same" alone when no comparable fact differs; otherwise the two
 * sides named, then per section the facts that differ, in two columns
 * (the width of the terminal, $COLUMNS, or 80): a fact one side lacks is
 * "-" there; a value too wide is cut with "..." and a last line says so
 * (--json keeps every value whole). Every string is outside input: shown
 * through the print layer (sanitised).
 *
 * JSON: { "a": SIDE, "b": SIDE, "same": bool, "identity": bool,
 *         "counters": bool,
 *         "differences": [ { "section", "key", "a", "b", "identity" } ] }
 * with SIDE { "source", "host", "kind", "how", "why", "golden" } and
 * "a"/"b" of a difference null where that side lacks the fact.
 *
 * Counter growth (the "counter" facts) is compared only when both sides
 * have recorded samples (doc["counters"]); when one has, a line on stderr
 * says they were not compared and JSON "counters" is false.
 *
 * Exit status: 0 the same, 1 different, 2 usage, or a side that could not
 * be read (why on stderr, nothing on stdout).
 */
#ifndef FABTOP_DIFF_H
#define FABTOP_DIFF_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct diff_side {
	const char *label;      /* "A", "B", "golden", "this node" */
	const char *source;     /* as given; NULL for this node */
	const char *how;        /* "embedded", "collected", "json" */
	const char *why;        /* collected from a capture: why not embedded; "" */
	bool golden;
	const json_t *doc;      /* the report all --json document */
};

struct diff_opts {
	bool json;
	bool all;               /* identity facts too */
	int width;              /* text columns; <= 0: $COLUMNS, the terminal, 80 */
};

/* The two sides compared and printed to fp; remarks (counters not
 * compared, a side not seen whole) and errors to log, which may be NULL.
 * 0 the same, 1 different, 2 a side whose verdict is unknown (the
 * differences are still printed), out of memory or a write error. */
int diff_docs(FILE *fp, FILE *log, const struct diff_side *a, const struct diff_side *b,
	      const struct diff_opts *o);

/* The text width diff uses when none is given: $COLUMNS (a number >= 40),
 * else the terminal of fd, else 80. */
int diff_width(int fd);

/* `fabtop diff ...` (argv[0] is "diff"): returns the exit status. */
int diff_main(int argc, char **argv);

#endif
