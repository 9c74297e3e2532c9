/* collect.c - runs the collectors in dependency order, then the findings. */
#include "fabtop/collect.h"
#include "fabtop/findings.h"

int collect_all(const struct fab_root *r, struct fab_model *m)
{
	return collect_model(r, m, FAB_DETAIL_ALL);
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
	want &= FAB_DETAIL_ALL;
	m->have = (m->have & ~FAB_DETAIL_ALL) | want;
	collect_host(r, m);
	collect_nvml(r, m);        /* before pci_lib: NVML-named GPUs need no pci.ids */
	collect_pci_sysfs(r, m);   /* everything else points into model.pci */
	collect_pci_lib(r, m);
	collect_numa(r, m);
	collect_net(r, m);
	collect_rdma_want(r, m, want);   /* after net: ports find their netdevs there */
	collect_uverbs(r, m);
	collect_verbs(r, m);         /* after uverbs: its notes name the uverbsN node */
	collect_netlink(r, m);
	collect_dcb(r, m);         /* after net and rdma: the RoCE ports' netdevs */
	collect_cuda(r, m);
	collect_gpus(r, m);        /* after nvml: names, order and NVLink */
	collect_cuda_gpus(r, m);   /* after gpus: GPUDirect RDMA and DMA-BUF support */
	collect_settings(r, m);
	findings_run(m);
	return 0;
}
