/*
 * nccl_rate.c - nccl-tests' bus bandwidth against the line rate of the HCAs
 * NCCL used (nccl_log.h: nccl_log_line_rate). Apart from nccl_log.c because
 * it reads the model.
 *
 * What is compared: nccl-tests' busbw is per rank. doc/PERFORMANCE.md of
 * NVIDIA/nccl-tests derives it from "each rank has a bandwidth to the outside
 * world of B" and says it "should reflect the speed of the hardware
 * bottleneck: NVLink, PCI, QPI, or network". Across nodes the bottleneck is
 * the network, and a rank's share of it is the line rate of the HCAs the log
 * says NCCL used (each port_line_gbps: the lower of its port rate and its
 * PCIe link), summed, divided by the ranks on a node (nranks / nNodes):
 * one 400G NIC per GPU gives 50 GB/s per rank. Alltoall sends only the
 * (N-1)/N of its data that leaves a node through the NICs, so its busbw can
 * reach N/(N-1) times that on N nodes (sjeaugey in
 * https://github.com/NVIDIA/nccl-tests/issues/130: "On 2 nodes ... BusBW = 2x
 * network bandwidth per GPU"). A run with no network channel (one node,
 * P2P/SHM) is NVLink's or PCIe's, and is not set against the HCAs.
 */
#include <stdio.h>
#include <string.h>
#include "fabtop/model.h"
#include "fabtop/nccl_log.h"

bool nccl_log_hcas_in_model(const struct nccl_log *a, const struct fab_model *m)
{
	if (!a->nhcas || !m)
		return false;
	for (int i = 0; i < a->nhcas; i++)
		if (!model_find_port(m, a->hcas[i].name, a->hcas[i].port, NULL))
			return false;
	return true;
}

/* The line rate of all the HCAs in Gb/s (each the lower of its port rate and
 * its PCIe link: port_line_gbps), or 0 with the reason in why; limit gets
 * the first HCA its PCIe link holds back, "" if none. */
static double hcas_gbps(const struct nccl_log *a, const struct fab_model *m, char *why, size_t len,
			char *limit, size_t limit_len)
{
	double total = 0;
	limit[0] = '\0';
	for (int i = 0; i < a->nhcas; i++) {
		const struct nccl_log_hca *h = &a->hcas[i];
		const struct fab_nic *n = NULL;
		const struct fab_port *p = m ? model_find_port(m, h->name, h->port, &n) : NULL;
		char r[160] = "";
		if (!p) {
			snprintf(why, len, "%s port %d is not on this node (give --root with a capture of "
				 "the node the log came from)", h->name, h->port);
			return 0;
		}
		double g = port_line_gbps(m, n, p, r, sizeof(r));
		if (!(g > 0)) {
			snprintf(why, len, "%s:%d: %s", h->name, h->port, r[0] ? r : "line rate unknown");
			return 0;
		}
		if (r[0] && !limit[0])
			snprintf(limit, limit_len, "; %s:%d: %s", h->name, h->port, r);
		total += g;
	}
	return total;
}

void nccl_log_line_rate(struct nccl_log *a, const struct fab_model *m)
{
	char why[NCCL_LOG_TEXT] = "";
	double per_rank = 0;  /* GB/s */
	long long local = 0, nodes = a->nnodes.ok ? a->nnodes.v : 0;
	if (!a->nccl_lines)
		snprintf(why, sizeof(why), "no NCCL INFO line says which HCAs NCCL used (set NCCL_DEBUG=INFO)");
	else if (nccl_log_no_net_channel(a))
		snprintf(why, sizeof(why), "no network channel: the bus bandwidth is NVLink's or PCIe's, "
			 "not the HCAs'");
	else if (!nccl_log_used_rdma(a))
		snprintf(why, sizeof(why), "NCCL did not use the RDMA network");
	else if (!a->nhcas)
		snprintf(why, sizeof(why), "the log names no HCA (NET/IB : Using ...)");
	else if (!m)
		snprintf(why, sizeof(why), "no node model (run on the node, or give --root)");
	else if (!a->nranks.ok || nodes <= 0 || a->nranks.v % nodes != 0)
		snprintf(why, sizeof(why), "ranks per node not in the log (nranks and nNodes)");
	else
		local = a->nranks.v / nodes;
	char limit[160];
	double total = local > 0 ? hcas_gbps(a, m, why, sizeof(why), limit, sizeof(limit)) : 0;
	if (total > 0)
		per_rank = total / 8.0 / (double)local;
	for (int i = 0; i < a->ncolls; i++) {
		struct nccl_log_coll *c = &a->colls[i];
		c->line_gbs = (fab_num){ 0 };
		c->pct = (fab_num){ 0 };
		if (per_rank <= 0) {
			snprintf(c->basis, sizeof(c->basis), "%s", why);
		} else {
			bool a2a = strncmp(c->name, "alltoall", 8) == 0 && nodes > 1;
			double f = a2a ? (double)nodes / (double)(nodes - 1) : 1.0;
			c->line_gbs = fab_num_of(per_rank * f);
			char tail[96] = "";
			if (a2a)
				snprintf(tail, sizeof(tail), ", x %lld/%lld for alltoall on %lld nodes (only the "
					 "off-node share crosses the NICs)", nodes, nodes - 1, nodes);
			snprintf(c->basis, sizeof(c->basis), "the %d HCA%s NCCL used, %.0f Gb/s in all, shared "
				 "by %lld rank%s per node%s%s", a->nhcas, a->nhcas == 1 ? "" : "s", total, local,
				 local == 1 ? "" : "s", tail, limit);
			if (c->peak_busbw.ok)
				c->pct = fab_num_of(c->peak_busbw.v / c->line_gbs.v * 100.0);
		}
		nccl_coll_decide(c);
	}
}
