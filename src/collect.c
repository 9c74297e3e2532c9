/* collect.c - runs the collectors in dependency order, then the findings. */
#include "fabtop/collect.h"
#include "fabtop/findings.h"

/* want: the per-port detail to read (model.h FAB_HAVE_*); wait_ms: how
 * long the GPU libraries may take (gpu_bg.c). */
static int collect_run(const struct fab_root *r, struct fab_model *m, unsigned want, int wait_ms)
{
	want &= FAB_DETAIL_ALL;
	m->have = (m->have & ~FAB_DETAIL_ALL) | want;
	collect_host(r, m);
	gpu_bg_start(r);           /* live: NVML and CUDA answer while sysfs is read */
	collect_pci_sysfs(r, m);   /* everything else points into model.pci */
	collect_pci_lib(r, m);
	collect_numa(r, m);
	collect_net(r, m);
	collect_rdma_want(r, m, want);   /* after net: ports find their netdevs there */
	collect_uverbs(r, m);
	collect_verbs(r, m);         /* after uverbs: its notes name the uverbsN node */
	collect_netlink(r, m);
	collect_dcb(r, m);         /* after net and rdma: the RoCE ports' netdevs */
	/* nvml, cuda, then gpus (names, order, NVLink; pci.ids names only for
	 * GPUs NVML did not name), then their GPUDirect RDMA and DMA-BUF support. */
	gpu_bg_collect(r, m, wait_ms);
	collect_settings(r, m);
	findings_run(m);
	return 0;
}

int collect_detail(const struct fab_root *r, struct fab_model *m, unsigned want)
{
	unsigned missing = want & FAB_DETAIL_ALL & ~m->have;
	if (!missing)
		return 0;
	/* Nothing collected after collect_rdma reads a GID or a counter: the
	 * detail joins the model as if it had been read in order. */
	collect_rdma_detail(r, m, missing);
	m->have |= missing;
	findings_run(m);
	return 1;
}

int collect_model(const struct fab_root *r, struct fab_model *m, unsigned want)
{
	return collect_run(r, m, want, GPU_BG_WAIT_MS);
}

int collect_model_nowait(const struct fab_root *r, struct fab_model *m, unsigned want)
{
	return collect_run(r, m, want, 0);
}

int collect_all(const struct fab_root *r, struct fab_model *m)
{
	return collect_run(r, m, FAB_DETAIL_ALL, GPU_BG_WAIT_MS);
}
