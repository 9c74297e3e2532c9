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
};


/* Derives the model's facts (model_derive), then clears and recomputes
 * model->findings. */
void findings_run(struct fab_model *m);
/* Worst severity among the findings whose id starts with prefix (NULL: all);
 * -1 when there is none. */
int findings_worst(const struct fab_model *m, const char *prefix);

#endif
