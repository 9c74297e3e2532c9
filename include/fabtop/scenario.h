/*
 * scenario.h - the bundled scenarios (`fabtop demo`, `make run`, the
 * console's scenario switcher, `fabtop learn`).
 *
 * They live in one directory: an "index" file (a line per scenario,
 * "NAME<TAB>description[<TAB>short title]", '#' comments; written by
 * tests/scenarios/mkscenarios.py) beside each capture, NAME/ or
 * NAME.tar.gz. Only what the index names is a scenario, so nothing else
 * that sits there is listed, and listing opens no capture. The index is
 * data: control characters in it are blanked. index.LANG (index.zh_CN)
 * beside it gives the same lines in the interface's language (i18n.h).
 *
 * Where the index may be, most specific first: $FABTOP_SCENARIOS alone when
 * set; else beside the binary (build/fabtop and build/san/fabtop in the
 * source tree, bin/ of an installed prefix, DESTDIR included), then the
 * compiled-in data directory.
 */
#ifndef FABTOP_SCENARIO_H
#define FABTOP_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#define SCEN_MAX 64
#define SCEN_NAME_LEN 64

struct scenario {
	char name[SCEN_NAME_LEN];
	char desc[512];
	char title[96];   /* short, for the demo banner ("a node whose job hangs"); may be "" */
};

/* A scenario name is a plain file name: no '/', no leading '.'. */
bool scenario_name_ok(const char *s);
/* Reads the first index found into sc (at most max) and its directory into
 * dir; returns the number of scenarios, or -1 when no index was found. */
int scenario_index(struct scenario *sc, int max, char *dir, size_t dirlen);
/* The path of a scenario the index names (NAME/ or NAME.tar.gz): 0, or -1. */
int scenario_find(const char *name, char *out, size_t len);

#endif
