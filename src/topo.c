/*
 * topo.c - the nvidia-smi topology matrix from the PCI tree.
 *
 * Two functions under different host bridges are NODE apart when they share
 * a NUMA node and SYS apart otherwise. Under one host bridge, we compare the
 * bridge chains from the root port down: meeting only at the host bridge is
 * PHB; otherwise we count the PCIe switches (or lone bridges) the path
 * crosses: one is PIX, more is PXB. A switch is its upstream port plus its
 * downstream ports, so a path through one switch crosses one unit even
 * though it passes three bridge functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/topo.h"
#include "fabtop/util.h"

const char *const topo_legend[] = {
	"  X    = Self",
	"  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)",
	"  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node",
	"  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
	"  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)",
	"  PIX  = Connection traversing at most a single PCIe bridge",
	"  NV#  = Connection traversing a bonded set of # NVLinks",
	NULL,
};

const char *topo_level_word(enum fab_topo_level l)
{
	static const char *const words[] = {
		[TOPO_X] = "X", [TOPO_NV] = "NV", [TOPO_PIX] = "PIX", [TOPO_PXB] = "PXB",
		[TOPO_PHB] = "PHB", [TOPO_NODE] = "NODE", [TOPO_SYS] = "SYS",
		[TOPO_UNKNOWN] = "N/A",
	};
	return l <= TOPO_UNKNOWN ? words[l] : "N/A";
}

/* The switch (or lone bridge) that chain[i] belongs to, named by the BDF of
 * its upstream-most function. The PCIe port type says it when the config
 * space was readable; otherwise the chain alternates by construction:
 * root port, then upstream port, downstream port, upstream port, ... */
static const char *unit_of(const struct fab_model *m, const struct fab_pci_dev *d, int i)
{
	int b = model_find_pci(m, d->chain[i]);
	if (b != FAB_NO_INDEX && m->pci[b].pcie_type != PCIE_TYPE_UNKNOWN)
		return m->pci[b].pcie_type == PCIE_TYPE_DOWNSTREAM && i > 0 ? d->chain[i - 1]
									 : d->chain[i];
	return (i >= 2 && i % 2 == 0) ? d->chain[i - 1] : d->chain[i];
}

static int add_unit(const char **units, int n, const char *u)
{
	for (int i = 0; i < n; i++)
		if (strcmp(units[i], u) == 0)
			return n;
	units[n] = u;
	return n + 1;
}

enum fab_topo_level topo_classify(const struct fab_model *m, int pa, int pb)
{
	if (pa == pb)
		return TOPO_X;
	if (pa < 0 || pb < 0 || pa >= m->npci || pb >= m->npci)
		return TOPO_UNKNOWN;
	const struct fab_pci_dev *a = &m->pci[pa], *b = &m->pci[pb];
	if (strcmp(a->host_bridge, b->host_bridge) != 0) {
		fab_int na = topo_numa_affinity(m, a), nb = topo_numa_affinity(m, b);
		if (na.ok && nb.ok)
			return na.v == nb.v ? TOPO_NODE : TOPO_SYS;
		/* No NUMA data: on a one-node machine that is still one node. */
		return m->nnuma > 1 ? TOPO_UNKNOWN : TOPO_NODE;
	}
	int k = 0;
	while (k < a->chain_len && k < b->chain_len && strcmp(a->chain[k], b->chain[k]) == 0)
		k++;
	if (k == 0)
		return TOPO_PHB;
	const char *units[2 * FAB_MAX_CHAIN + 1];
	int n = add_unit(units, 0, unit_of(m, a, k - 1));
	for (int i = k; i < a->chain_len; i++)
		n = add_unit(units, n, unit_of(m, a, i));
	for (int i = k; i < b->chain_len; i++)
		n = add_unit(units, n, unit_of(m, b, i));
	return n <= 1 ? TOPO_PIX : TOPO_PXB;
}

int topo_build(const struct fab_model *m, struct fab_topo *t)
{
	memset(t, 0, sizeof(*t));
	int cap = m->ngpus + m->nnics;
	t->devs = calloc((size_t)cap + 1, sizeof(*t->devs));
	if (!t->devs)
		return -1;
	for (int i = 0; i < m->ngpus; i++) {
		struct fab_topo_dev *d = &t->devs[t->n++];
		d->kind = TOPO_GPU;
		d->idx = i;
		d->pci = m->gpus[i].pci;
		snprintf(d->label, sizeof(d->label), "GPU%d", i);
	}
	t->ngpus = t->n;
	for (int i = 0; i < m->nnics; i++) {
		if (m->nics[i].pci == FAB_NO_INDEX)
			continue;   /* software RDMA (rxe, siw) has no place in a PCI matrix */
		struct fab_topo_dev *d = &t->devs[t->n++];
		d->kind = TOPO_NIC;
		d->idx = i;
		d->pci = m->nics[i].pci;
		snprintf(d->label, sizeof(d->label), "NIC%d", t->nnics++);
	}
	size_t nn = (size_t)t->n * (size_t)t->n + 1;
	t->level = calloc(nn, sizeof(*t->level));
	t->nvlinks = calloc(nn, sizeof(*t->nvlinks));
	t->best = calloc((size_t)t->ngpus + 1, sizeof(*t->best));
	t->best_level = calloc((size_t)t->ngpus + 1, sizeof(*t->best_level));
	t->best_usable = calloc((size_t)t->ngpus + 1, sizeof(*t->best_usable));
	t->closer = calloc((size_t)t->ngpus + 1, sizeof(*t->closer));
	if (!t->level || !t->nvlinks || !t->best || !t->best_level || !t->best_usable || !t->closer) {
		topo_free(t);
		return -1;
	}
	for (int g = 0; g < m->ngpus; g++)
		for (int h = 0; h < m->ngpus && g < FAB_MAX_GPUS && h < FAB_MAX_GPUS; h++)
			if (m->gpus[g].nvlinks[h].ok)
				t->nvlink_known = true;
	for (int i = 0; i < t->n; i++)
		for (int j = 0; j < t->n; j++) {
			const struct fab_topo_dev *a = &t->devs[i], *b = &t->devs[j];
			enum fab_topo_level l = i == j ? TOPO_X : topo_classify(m, a->pci, b->pci);
			int nv = -1;
			if (a->kind == TOPO_GPU && b->kind == TOPO_GPU && i != j &&
			    a->idx < FAB_MAX_GPUS && b->idx < FAB_MAX_GPUS &&
			    m->gpus[a->idx].nvlinks[b->idx].ok) {
				nv = (int)m->gpus[a->idx].nvlinks[b->idx].v;
				if (nv > 0)
					l = TOPO_NV;
			}
			t->level[i * t->n + j] = l;
			t->nvlinks[i * t->n + j] = nv;
		}
	/* Closest usable NICs per GPU (nic_usable, the model's one judgement);
	 * when none is usable, the closest whose usability is unknown; when
	 * none is either, the closest of all. */
	static const enum fab_tri passes[] = { FAB_YES, FAB_UNKNOWN, FAB_NO };
	for (int g = 0; g < t->ngpus; g++) {
		t->closer[g] = -1;
		for (int pass = 0; pass < 3 && !t->best[g]; pass++) {
			enum fab_topo_level best = TOPO_UNKNOWN;
			for (int j = 0; j < t->nnics && j < 64; j++) {
				const struct fab_topo_dev *nd = &t->devs[t->ngpus + j];
				enum fab_tri u = m->nics[nd->idx].usable.v;
				if ((pass == 0 && u != FAB_YES) || (pass == 1 && u == FAB_NO))
					continue;
				enum fab_topo_level l = t->level[g * t->n + t->ngpus + j];
				if (l < best) {
					best = l;
					t->best[g] = 0;
				}
				if (l == best && l != TOPO_UNKNOWN)
					t->best[g] |= 1ULL << j;
			}
			t->best_level[g] = best;
			t->best_usable[g] = passes[pass];
		}
		/* A closer NIC that is not usable is the usual reason for a far choice. */
		for (int j = 0; t->best[g] && t->best_usable[g] != FAB_NO && j < t->nnics; j++) {
			const struct fab_topo_dev *nd = &t->devs[t->ngpus + j];
			if (t->level[g * t->n + t->ngpus + j] < t->best_level[g] &&
			    m->nics[nd->idx].usable.v == FAB_NO) {
				t->closer[g] = j;
				break;
			}
		}
	}
	return 0;
}

void topo_free(struct fab_topo *t)
{
	free(t->devs);
	free(t->level);
	free(t->best_usable);
	free(t->closer);
	free(t->nvlinks);
	free(t->best);
	free(t->best_level);
	memset(t, 0, sizeof(*t));
}

const char *topo_cell(const struct fab_topo *t, int i, int j, char *buf, size_t len)
{
	enum fab_topo_level l = t->level[i * t->n + j];
	if (l == TOPO_NV) {
		snprintf(buf, len, "NV%d", t->nvlinks[i * t->n + j]);
	} else if (l == TOPO_X) {
		snprintf(buf, len, "X");
	} else {
		/* GPU pairs without NVML: the PCIe path, marked, since NVLink is unknown. */
		bool gpus = t->devs[i].kind == TOPO_GPU && t->devs[j].kind == TOPO_GPU;
		snprintf(buf, len, "%s%s", topo_level_word(l), gpus && !t->nvlink_known ? "*" : "");
	}
	return buf;
}

/* Sets the bits of a cpulist ("0-15,32-47") in set (nbits wide); false on
 * garbage. CPUs past nbits are ignored: they cannot decide anything here. */
static bool cpulist_bits(const char *s, unsigned char *set, int nbits)
{
	if (fab_cpulist_count(s) < 0)
		return false;
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b && c < nbits; c++)
			set[c / 8] |= (unsigned char)(1u << (c % 8));
		s = *end == ',' ? end + 1 : end;
	}
	return true;
}

fab_int topo_numa_affinity(const struct fab_model *m, const struct fab_pci_dev *p)
{
	if (p->numa_node.ok)
		return p->numa_node;
	enum { NBITS = 8192 };
	unsigned char dev[NBITS / 8] = { 0 };
	if (!p->local_cpulist[0] || !cpulist_bits(p->local_cpulist, dev, NBITS))
		return (fab_int){ 0, false };
	int found = -1;
	for (int i = 0; i < m->nnuma; i++) {
		unsigned char node[NBITS / 8] = { 0 };
		if (!cpulist_bits(m->numa[i].cpulist, node, NBITS))
			continue;
		bool meets = false;
		for (int k = 0; k < NBITS / 8 && !meets; k++)
			meets = (dev[k] & node[k]) != 0;
		if (!meets)
			continue;
		if (found >= 0)
			return (fab_int){ 0, false };
		found = m->numa[i].id;
	}
	return found >= 0 ? (fab_int){ found, true } : (fab_int){ 0, false };
}

const char *topo_closest_note(const struct fab_model *m, const struct fab_topo *t, int g,
			      char *buf, size_t len)
{
	buf[0] = '\0';
	if (g < 0 || g >= t->ngpus || !t->best[g])
		return NULL;
	if (t->best_usable[g] == FAB_NO) {
		snprintf(buf, len, "no NIC is usable here");
	} else if (t->closer[g] >= 0) {
		const struct fab_topo_dev *d = &t->devs[t->ngpus + t->closer[g]];
		snprintf(buf, len, "closer: %s %s (%s) is not usable: %s%s", d->label,
			 m->nics[d->idx].name,
			 topo_level_word(t->level[g * t->n + t->ngpus + t->closer[g]]),
			 m->nics[d->idx].usable.why,
			 t->best_usable[g] == FAB_UNKNOWN ? "; usable here: unknown" : "");
	} else if (t->best_usable[g] == FAB_UNKNOWN) {
		snprintf(buf, len, "usable here: unknown");
	}
	return buf[0] ? buf : NULL;
}
