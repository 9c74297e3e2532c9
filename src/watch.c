/* watch.c - the findings of a sampler run (watch.h). */
#include <stdlib.h>
#include <string.h>
#include "fabtop/ctr_limits.h"
#include "fabtop/lossless.h"
#include "fabtop/pcie_watch.h"
#include "fabtop/watch.h"

int watch_findings(const struct fab_sampler *s, const struct fab_model *m, struct fab_model *out)
{
	int before = out->nfindings;
	lossless_findings(s, m, out);
	if (s->limits) {
		int n = ctr_limits_findings(s->limits, s, NULL, 0);
		struct fab_finding *f = n > 0 ? calloc((size_t)n, sizeof(*f)) : NULL;
		if (f) {
			n = ctr_limits_findings(s->limits, s, f, n);
			for (int i = 0; i < n; i++) {
				struct fab_finding *to = model_add_finding(out, f[i].id, f[i].sev, f[i].subject);
				if (to)
					*to = f[i];
			}
			free(f);
		}
	}
	if (s->pcie && m) {
		bool *moving = m->nnics > 0 ? calloc((size_t)m->nnics, sizeof(*moving)) : NULL;
		if (moving)
			pcie_nic_moving(s, m, moving);
		pcie_watch_findings(s->pcie, m, moving, out);
		free(moving);
	}
	return out->nfindings - before;
}
