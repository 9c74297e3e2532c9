/*
 * findings.h - rules over the model. Each rule is a pure function that
 * appends fab_finding entries; the TUI, the report and the wizard all read
 * the same list.
 */
#ifndef FABTOP_FINDINGS_H
#define FABTOP_FINDINGS_H

#include "fabtop/model.h"

struct fab_rule {
	const char *id;
	const char *layer;     /* one line: the layer this rule checks and why it matters */
	void (*run)(struct fab_model *m);
	/* The per-port detail it reads (model.h FAB_HAVE_*): on a model
	 * without it the rule does not run, since an unread GID table or
	 * counter would look like none. */
	unsigned needs;
};


/* Derives the model's facts (model_derive), then clears and recomputes
 * model->findings. A rule whose needs the model lacks is skipped and
 * model->findings_lack records what it needed: collect_detail() reads it
 * and runs the findings again. */
void findings_run(struct fab_model *m);
/* Worst severity among the findings whose id starts with prefix (NULL: all);
 * -1 when there is none. */
int findings_worst(const struct fab_model *m, const char *prefix);

#endif
