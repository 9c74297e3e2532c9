/*
 * nodedoc.h - one node as a document: the `fabtop report all --json`
 * object of a capture, of a saved `report all --json` output, or of this
 * node. `fabtop diff` and `fabtop fleet` compare nodes only through these
 * documents, so every judgement they show is the one report_run() made;
 * they never judge a node themselves.
 *
 * What nodedoc_load() takes:
 *   - NULL: this node, collected now (live root);
 *   - a capture (FILE.tar.gz or a capture directory): its embedded
 *     fabtop/report.json when the capture holds one written by this same
 *     fabtop version (`fabtop capture` writes it among the archive's first
 *     members, so only the head of the tarball is read); otherwise the
 *     capture is opened as a root and collected, and the report made now
 *     (how = NODEDOC_COLLECTED, why says why the embedded one was not used);
 *   - a JSON file: a saved `report all --json` output (checked: an object
 *     with "verdict", "nics" and "topology"), size-capped.
 * Everything in a document is outside input: print it through the print
 * layer (sanitised), as any capture string.
 *
 * A capture with counter samples (fabtop/samples.json) also gets
 * doc["counters"]: the `report counters --json` object of its playback
 * less its "samples" (its "summary" says what grew), so a counter growing
 * on one node only can be told.
 *
 * Sequence: nodedoc_load() -> use nd.doc -> nodedoc_free(); nodedoc_list()
 * expands a directory into the paths nodedoc_load() takes.
 */
#ifndef FABTOP_NODEDOC_H
#define FABTOP_NODEDOC_H

#include <jansson.h>
#include <stddef.h>

enum nodedoc_how {
	NODEDOC_EMBEDDED,   /* the capture's own fabtop/report.json */
	NODEDOC_COLLECTED,  /* the capture (or this node) collected now */
	NODEDOC_JSON,       /* a saved report all --json */
};

struct nodedoc {
	json_t *doc;            /* the report all --json object; owned */
	enum nodedoc_how how;
	char name[256];         /* the path's base name, for messages */
	char why[256];          /* NODEDOC_COLLECTED from a capture: why not embedded; "" */
};

/* Largest saved report nodedoc_load() reads (a 64-HCA node is ~1 MiB). */
#define NODEDOC_MAX_JSON (16u << 20)

/* 0, or -1 with err set (unreadable, not a capture or report, refused). */
int nodedoc_load(const char *path, struct nodedoc *nd, char *err, size_t len);
void nodedoc_free(struct nodedoc *nd);
/* How a document was had, as --json prints it: "embedded", "collected" or
 * "json". */
const char *nodedoc_how_word(enum nodedoc_how how);

/* The document of an open root: collect, report all --json, and the played
 * back counters of a capture with samples. What `fabtop capture` embeds as
 * fabtop/report.json and what nodedoc_load() makes when it cannot use that.
 * 0, or -1 with err. */
struct fab_root;
int nodedoc_make(const struct fab_root *r, json_t **doc, char *err, size_t len);

/* The entries of dir that nodedoc_load() takes (*.tar.gz, *.tgz, capture
 * directories, *.json), sorted by name, into a malloc'd array of malloc'd
 * paths; no link followed out of dir. 0, or -1 with err. */
int nodedoc_list(const char *dir, char ***paths, size_t *n, char *err, size_t len);
void nodedoc_list_free(char **paths, size_t n);

#endif
