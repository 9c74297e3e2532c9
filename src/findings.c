/*
 * findings.c - the engine over the rule files' tables (rules.h). Each rule
 * is a pure function of the model that states what it saw (evidence with
 * values and where they came from), the layer it concerns, and the command
 * a human would run next.
 */
#include <string.h>
#include "fabtop/findings.h"
#include "fabtop/i18n.h"
#include "rules.h"
#include "fabtop/util.h"

/* The rule files, in the order their findings are listed. */
static const struct fab_rule_set *const rule_sets[] = { &topo_rule_set, &links_rule_set };

void findings_run(struct fab_model *m)
{
	model_derive(m);   /* the rules read the derived facts */
	m->nfindings = 0;
	m->findings_lack = 0;
	for (size_t k = 0; k < sizeof(rule_sets) / sizeof(rule_sets[0]); k++)
		for (int i = 0; i < rule_sets[k]->n; i++) {
			const struct fab_rule *r = &rule_sets[k]->rules[i];
			if (!model_has(m, r->needs)) {
				m->findings_lack |= r->needs & ~m->have;
				continue;
			}
			int first = m->nfindings;
			r->run(m);
			for (int f = first; f < m->nfindings; f++)
				fab_strlcpy(m->findings[f].layer, _(r->layer), sizeof(m->findings[f].layer));
		}
}

int findings_worst(const struct fab_model *m, const char *prefix)
{
	int worst = -1;
	for (int i = 0; i < m->nfindings; i++)
		if ((!prefix || strncmp(m->findings[i].id, prefix, strlen(prefix)) == 0) &&
		    (int)m->findings[i].sev > worst)
			worst = (int)m->findings[i].sev;
	return worst;
}
