/*
 * gpus.c - GPUs are the NVIDIA display/3D-controller PCI functions. Named
 * and ordered by NVML when it ran (its order is nvidia-smi's), else by PCI
 * bus order, which is what nvidia-smi and CUDA_DEVICE_ORDER=PCI_BUS_ID use.
 * A GPU NVML did not name is named from pci.ids (collect_pci_names), only
 * once NVML has answered: while it has not (gpu_bg.c), the name waits.
 */
#include <stdlib.h>
#include <string.h>
#include "fabtop/collect.h"
#include "fabtop/util.h"
#include "gpu_int.h"

#define PCI_VENDOR_NVIDIA 0x10de

static bool is_gpu(const struct fab_pci_dev *d)
{
	if (!d->vendor.ok || d->vendor.v != PCI_VENDOR_NVIDIA || !d->class_code.ok)
		return false;
	long long cls = d->class_code.v >> 8;
	return cls == 0x0300 || cls == 0x0302;   /* VGA or 3D controller; not NVSwitch */
}

static int by_index(const void *a, const void *b)
{
	const struct fab_gpu *x = a, *y = b;
	if (x->nvml_index.ok && y->nvml_index.ok)
		return x->nvml_index.v < y->nvml_index.v ? -1 : x->nvml_index.v > y->nvml_index.v;
	return x->pci - y->pci;   /* model.pci is in bus order */
}

/* A GPU function NVML did not name, not named yet. */
static bool unnamed_gpu(const struct fab_model *m, int i)
{
	return is_gpu(&m->pci[i]) && !m->pci[i].name[0] &&
	       nvml_lookup(m->pci[i].bdf, NULL, 0, NULL, NULL) != 0;
}

void gpu_list_build(struct fab_model *m, bool pci_names)
{
	m->ngpus = 0;
	if (pci_names)
		collect_pci_names(m, unnamed_gpu);
	for (int i = 0; i < m->npci; i++) {
		if (!is_gpu(&m->pci[i]))
			continue;
		struct fab_gpu *g = model_add_gpu(m);
		int idx;
		long long numa;
		g->pci = i;
		if (nvml_lookup(m->pci[i].bdf, g->name, sizeof(g->name), &idx, &numa) == 0) {
			g->nvml_index = fab_int_of(idx);
			if (numa >= 0)
				g->numa_id = fab_int_of(numa);
			int util, ps;
			if (nvml_activity(m->pci[i].bdf, &util, &ps) == 0) {
				if (util >= 0)
					g->util_pct = fab_int_of(util);
				if (ps >= 0)
					g->pstate = fab_int_of(ps);
			}
		} else {
			fab_strlcpy(g->name, m->pci[i].name, sizeof(g->name));
		}
	}
	if (m->ngpus > 1)
		qsort(m->gpus, (size_t)m->ngpus, sizeof(*m->gpus), by_index);
	for (int a = 0; a < m->ngpus && a < FAB_MAX_GPUS; a++)
		for (int b = 0; b < m->ngpus && b < FAB_MAX_GPUS; b++) {
			int n = a == b ? -1 : nvml_nvlinks(m->pci[m->gpus[a].pci].bdf,
							   m->pci[m->gpus[b].pci].bdf);
			m->gpus[a].nvlinks[b] = n >= 0 ? fab_int_of(n) : (fab_int){ 0, false };
		}
}

int collect_gpus(const struct fab_root *r, struct fab_model *m)
{
	(void)r;
	gpu_list_build(m, true);
	return 0;
}
