/*
 * fleet.h - many nodes in one view (`fabtop fleet CAPTURE...|DIR`, the
 * Fleet pane): one row per node, then what sets a node apart from the
 * majority of the nodes of its kind (nodefacts_kind()).
 *
 * Every node is read through nodedoc_load() one at a time and freed before
 * the next: memory is one document plus the summary (rows, and per kind the
 * distinct values of each fact with their counts). The row's facts and the
 * outliers come from the document's own fields and nodefacts.h; fleet
 * judges nothing itself (the verdict and the findings are the report's).
 *
 * A node that cannot be read is a row with error set and verdict
 * "unknown", never dropped, never healthy.
 *
 * Odd: within a kind of 3 nodes or more, a fact (nodefacts.h) whose value
 * on this node differs from the value a strict majority of the kind holds
 * (more than half; "lacks the fact" counts as a value). A fact no value
 * holds a strict majority of is "no majority" for the kind (listed on the
 * kind), never settled by picking one. A kind of 1 or 2 nodes has no
 * majority to compare against and is said so.
 *
 * Row fields: ports_expected is every port the document lists for its HCAs
 * (links.hcas[].ports, else nics[].ports), ports_up those the report calls
 * active (port_active(): ACTIVE or ACTIVE_DEFER), ports_unknown those whose
 * state could not be read (neither up nor down); slowest is the
 * lowest line rate (line_gbps, else rate_gbps) among the usable ports; env
 * the facts of nodefacts' "nccl" section; topo_fp the FNV-1a of the matrix
 * (columns, row labels, cells) as 8 hex digits.
 *
 * Sequence: fleet_load() -> fleet_print() / the Fleet pane -> fleet_free().
 */
#ifndef FABTOP_FLEET_H
#define FABTOP_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "fabtop/print.h"

/* One fact of a node that differs from the majority of its kind. */
struct fleet_odd {
	const char *section;    /* nodefacts.h's section */
	char *key;
	char *value;            /* this node's; NULL: the node lacks the fact */
	char *majority;         /* the kind's most common value; NULL: most lack it */
	int agree, of;          /* nodes of the kind with the majority value, of all of the kind */
};

struct fleet_node {
	char *path;             /* what was opened (a capture, a directory, a report JSON) */
	char *host;             /* the document's host; the path's name when it has none */
	char *kind;             /* nodefacts_kind() */
	char *verdict;          /* the report's verdict: "ok", "findings" or "unknown" (as report all says) */
	int sev[3];             /* findings by severity: info, warning, error */
	int ports_up, ports_expected, ports_unknown;
	char *slowest;          /* the slowest usable port: "mlx5_3/1 200 Gb/s"; NULL: none */
	char *firmware;         /* the HCAs' firmware: one version, or "A (8), B (2)" */
	char *env;              /* NCCL-relevant settings, "NAME=VALUE ..." ("" none) */
	char *topo_fp;          /* a short fingerprint of the topology matrix */
	struct fleet_odd *odd;  /* what sets it apart from its kind */
	size_t nodd;
	char *error;            /* could not be read: why; NULL otherwise */
	const char *how;        /* nodedoc_how_word(): "embedded", "collected", "json"; NULL unread */
};

/* A value of a fact and the nodes of the kind that hold it. */
struct fleet_count {
	char *value;            /* NULL: the nodes that lack the fact */
	int count;
};

/* A fact no value of which is held by a strict majority of its kind. */
struct fleet_nomaj {
	const char *section;
	char *key;
	struct fleet_count *values;     /* most common first */
	size_t nvalues;
};

struct fleet_kind {
	char *name;             /* nodefacts_kind() */
	size_t nodes;           /* read nodes of this kind */
	size_t facts;           /* distinct fact keys seen among them */
	bool compared;          /* nodes >= 3: a majority can be taken */
	size_t odd_nodes;
	struct fleet_nomaj *nomaj;      /* compared kinds only */
	size_t nnomaj;
};

struct fleet {
	struct fleet_node *nodes;   /* in the order of the paths */
	size_t n;
	struct fleet_kind *kinds;   /* in the order first seen */
	size_t nkinds;
};

/* paths: captures, capture directories, report JSONs, or directories of
 * them (expanded with nodedoc_list()). Progress and reasons go to log
 * (NULL: none). 0, or -1 (nothing to read, out of memory) with the reason
 * on log. */
int fleet_load(char *const *paths, size_t n, struct fleet *f, FILE *log);
void fleet_free(struct fleet *f);
/* A row's ports as the table shows them: "11/12" (up of expected), "11/12
 * 1?" when one's state could not be read. */
void fleet_ports_text(const struct fleet_node *r, char *buf, size_t len);
/* Text: a summary line naming the odd nodes, what sets each apart, the
 * nodes that could not be read, the rows, then the kinds; JSON:
 * {"summary": {...}, "nodes": [...], "kinds": [...]} (docs/fleet.md). */
void fleet_print(struct fab_out *o, const struct fleet *f);
/* 0 every node ok and none odd, 1 findings of warning severity or worse,
 * an outlier, or a fact with no majority in its kind, 2 a node could not
 * be read or its report's verdict is unknown. */
int fleet_exit(const struct fleet *f);
/* `fabtop fleet CAPTURE...|DIR... [--json] [--batch]` (argv[0] "fleet"):
 * the Fleet pane on a terminal (tui_fleet_run()), else the text or JSON;
 * returns the exit status. */
int fleet_main(int argc, char **argv);

#endif
