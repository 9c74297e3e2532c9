/*
 * report.h - batch output (`fabtop report ...`): text or JSON through the
 * print layer. Each section returns the exit status it implies:
 * 0 healthy, 1 findings of warning severity or worse.
 */
#ifndef FABTOP_REPORT_H
#define FABTOP_REPORT_H

#include "fabtop/model.h"
#include "fabtop/print.h"

int report_topo(struct fab_out *o, const struct fab_model *m);
int report_links(struct fab_out *o, const struct fab_model *m);
/* prefixes: comma-separated finding id prefixes ("topo.,pcie."), NULL for all. */
int report_findings(struct fab_out *o, const struct fab_model *m, const char *prefixes);
int report_notes(struct fab_out *o, const struct fab_model *m);
int report_node(struct fab_out *o, const struct fab_model *m);
/* section: "topo", "links" or "all"; returns the exit status, 2 for an unknown section. */
int report_run(const char *section, bool json, FILE *fp, const struct fab_model *m);

#endif
