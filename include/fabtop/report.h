/*
 * report.h - batch output (`fabtop report ...`): text or JSON through the
 * print layer. Each section returns the exit status it implies:
 * 0 healthy, 1 findings of warning severity or worse; report_run() ends
 * with the verdict, 2 (unknown) when a source it stands on could not be
 * read.
 */
#ifndef FABTOP_REPORT_H
#define FABTOP_REPORT_H

#include "fabtop/model.h"
#include "fabtop/print.h"

int report_topo(struct fab_out *o, const struct fab_model *m);
int report_links(struct fab_out *o, const struct fab_model *m);
/* One finding, the one way every report prints it: text
 * "[warning] links.port-down mlx5_1/1: message" then its layer, evidence
 * and next step indented below (indent columns in front); JSON an object
 * with id, severity, subject, message, layer, evidence and hint. */
void finding_print(struct fab_out *o, const struct fab_finding *f, int indent);
/* prefixes: comma-separated finding id prefixes ("topo.,pcie."), NULL for all. */
int report_findings(struct fab_out *o, const struct fab_model *m, const char *prefixes);
int report_notes(struct fab_out *o, const struct fab_model *m);
int report_node(struct fab_out *o, const struct fab_model *m);
/* The verdict (model_verdict()) of a report standing on the sources in
 * need (enum fab_source bits) whose worst finding is worst (-1: none):
 * JSON "verdict" and "unknown_because" (the notes that make it unknown,
 * [] otherwise); text "Verdict: unknown: ..." with those notes, nothing
 * when known. Returns it: the exit status. */
int report_verdict(struct fab_out *o, const struct fab_model *m, unsigned need, int worst);
/* section: "topo", "links" or "all"; returns the exit status (the verdict:
 * 0 ok, 1 findings, 2 unknown), 2 for an unknown section. */
int report_run(const char *section, bool json, FILE *fp, const struct fab_model *m);

/* `report counters`: samples the root's counters; the ports' facts (link
 * layer, line rate) come from the model m collected from the same root.
 * Live roots and plain
 * directories are sampled every interval, count times (default below) after
 * a baseline; captures with fabtop/samples.json are played back at full
 * speed (count <= 0: every recorded sample). Text goes out sample by sample;
 * JSON is one document at the end. Returns 0, 1 when a bad_when_grows
 * counter grew or a QP is in ERR/SQE, 2 when the root cannot be sampled
 * (the reason on log, nothing on fp). */
#define COUNTERS_DEFAULT_COUNT 5
struct counters_opts {
	double interval;         /* seconds, > 0 */
	bool interval_set;       /* given on the command line (ignored on playback, with a note) */
	int count;               /* samples after the baseline; <= 0 for the default */
	bool json;
};
struct fab_root;
int report_counters(const struct fab_root *r, const struct fab_model *m,
		    const struct counters_opts *co, FILE *fp, FILE *log);

/* `report metrics`: the model of root r (collected) and one reading of
 * every counter file of r, in the Prometheus text exposition format
 * (0.0.4; docs/metrics.md lists every metric). Returns the verdict (0, 1,
 * 2: model_verdict() of FAB_NEED_ALL, unknown too when the counters could
 * not be sampled; the document says why) or -1 when fp failed. */
struct fab_root;
int report_metrics(FILE *fp, const struct fab_root *r, const struct fab_model *m);
/* The whole command: opens rootspec (NULL: live), collects, and writes
 * the document to standard output, or with output to that file
 * atomically (cap_dest.h: a temporary .part file beside it, fsync'ed and
 * renamed; a link is refused). Returns the verdict, 2 on any failure
 * (said on err). */
int report_metrics_run(const char *rootspec, const char *output, FILE *err);
/* s as a Prometheus label value into buf (len > 0): shown through the
 * sanitiser (no control byte, valid UTF-8), then backslash, double quote
 * and newline escaped as the exposition format asks; cut at a whole
 * character when buf is short. Returns buf. */
char *report_prom_escape(const char *s, char *buf, size_t len);

/* `report job`: NCCL's RAS over the window (ras_job.h), the lagging
 * ranks, and the ranks on this node joined with its GPUs and QPs. Returns
 * job_verdict_exit() of the verdict. */
struct fab_root;
struct job_report_opts {
	const char *ras;       /* --ras ADDR, or NULL: the job's own address */
	double window;         /* --window S; 0: RAS_DEFAULT_WINDOW */
	bool verbose;          /* --verbose: VERBOSE STATUS, where the version table allows */
	bool json;
};
int report_job(const struct fab_root *r, const struct fab_model *m, const struct job_report_opts *o,
	       FILE *fp, FILE *err);

#endif
