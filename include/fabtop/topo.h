/*
 * topo.h - the GPU/NIC distance matrix, as `nvidia-smi topo -m` shows it,
 * computed from the PCI tree and NUMA data (NVLink counts from NVML when
 * present). Pure functions of the model.
 */
#ifndef FABTOP_TOPO_H
#define FABTOP_TOPO_H

#include "fabtop/model.h"

/* Ordered from closest to farthest; the numeric order is what "closest" means. */
enum fab_topo_level {
	TOPO_X = 0,    /* self */
	TOPO_NV,       /* bonded NVLinks */
	TOPO_PIX,      /* at most one PCIe bridge (one switch) */
	TOPO_PXB,      /* several bridges, no host bridge */
	TOPO_PHB,      /* through a PCIe host bridge */
	TOPO_NODE,     /* between host bridges in one NUMA node */
	TOPO_SYS,      /* across the SMP interconnect between NUMA nodes */
	TOPO_UNKNOWN,
};

enum fab_topo_kind { TOPO_GPU, TOPO_NIC };

struct fab_topo_dev {
	enum fab_topo_kind kind;
	int idx;            /* index into model.gpus or model.nics */
	int pci;            /* index into model.pci */
	char label[16];     /* "GPU0", "NIC3" */
};

struct fab_topo {
	int n;
	struct fab_topo_dev *devs;   /* GPUs first, then NICs with a PCI device */
	enum fab_topo_level *level;  /* n*n */
	int *nvlinks;                /* n*n: NVLink count, -1 unknown */
	bool nvlink_known;           /* NVML gave NVLink data */
	int ngpus, nnics;
	/* Per GPU: bit j set when NIC j (0-based among NICs) is a closest NIC
	 * among those usable here (nic_usable); when none is usable, among
	 * those whose usability is unknown; when none is either, among all.
	 * best_usable says which: FAB_YES, FAB_UNKNOWN or FAB_NO. */
	unsigned long long *best;
	enum fab_topo_level *best_level;  /* per GPU */
	enum fab_tri *best_usable;        /* per GPU */
	/* Per GPU: a NIC (0-based among NICs) closer than the best that is not
	 * usable here, -1 when none: why the choice is farther than it could be. */
	int *closer;
};

/* Distance between two PCI functions of the model (no NVLink). */
enum fab_topo_level topo_classify(const struct fab_model *m, int pci_a, int pci_b);
/* Builds the matrix; returns 0 or -1 on allocation failure. */
int topo_build(const struct fab_model *m, struct fab_topo *t);
void topo_free(struct fab_topo *t);
/* Cell text as nvidia-smi prints it ("X", "NV18", "PIX"); buf >= 8 bytes. */
const char *topo_cell(const struct fab_topo *t, int i, int j, char *buf, size_t len);
const char *topo_level_word(enum fab_topo_level l);
/* The nvidia-smi legend lines, NULL-terminated. */
extern const char *const topo_legend[];
/* The NUMA node nvidia-smi prints as "NUMA Affinity": the device's
 * numa_node, or, where the kernel says -1 (VMs, one-socket boards), the one
 * NUMA node whose CPUs meet the device's local_cpulist. Unknown when none
 * or several do. */
fab_int topo_numa_affinity(const struct fab_model *m, const struct fab_pci_dev *p);

/* What the closest NIC of GPU g needs said, one line, for every medium:
 * "no NIC is usable here", "closer: NIC2 mlx5_2 (PIX) is not usable: port
 * DOWN/Disabled", "usable here: unknown"; NULL when nothing. */
const char *topo_closest_note(const struct fab_model *m, const struct fab_topo *t, int g,
			      char *buf, size_t len);

#endif
