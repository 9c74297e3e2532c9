/*
 * gdr.h - what NCCL will do on this node, per GPU-NIC pair: NCCL's own
 * path type, whether GPUDirect RDMA will be used (and work), with the
 * reason, and which NIC NCCL will use for a GPU.
 *
 * Pure functions of the model and of the job's NCCL_* values (passed as
 * strings, NULL when unset). The facts are NCCL's (NVIDIA/nccl,
 * src/include/graph.h path types, src/graph/paths.cc ncclGetLevel and
 * ncclTopoCheckGdr, src/graph/topo.cc's "GPU Direct RDMA Enabled for HCA",
 * src/transport/net_ib/gdr.cc and init.cc, src/init.cc dmaBufSupported):
 *   - a NIC supports GPUDirect RDMA when a peer-memory module is loaded
 *     (model.peermem) or DMA-BUF works: NCCL_DMABUF_ENABLE not 0, the
 *     kernel's RDMA DMA-BUF (5.12+) and the GPU's DMA_BUF_SUPPORTED;
 *   - the GPU must support it (cudaDevAttrGPUDirectRDMASupported);
 *   - the path must be no farther than NCCL_NET_GDR_LEVEL (default PXB;
 *     P2C since NCCL 2.27's NCCL_NET_GDR_C2C=1, which differs only on C2C
 *     systems);
 * and, beyond NCCL's rule, a translating IOMMU on the GPU or the NIC
 * breaks the peer-to-peer DMA NCCL turned on (NCCL's troubleshooting
 * guide: disable the IOMMU or set passthrough, iommu=pt).
 * Unknown inputs give unknown, except where NCCL's rule decides without
 * them (a path past the level, no module and no DMA-BUF).
 */
#ifndef FABTOP_GDR_H
#define FABTOP_GDR_H

#include "fabtop/model.h"
#include "fabtop/topo.h"

/* NCCL's path types, in its order and with its numbers (graph.h): the
 * order is what "farther" means. */
enum fab_nccl_path {
	NCCL_PATH_LOC = 0, NCCL_PATH_NVL, NCCL_PATH_NVB, NCCL_PATH_C2C, NCCL_PATH_PIX,
	NCCL_PATH_PXB, NCCL_PATH_P2C, NCCL_PATH_PXN, NCCL_PATH_PHB, NCCL_PATH_SYS,
	NCCL_PATH_NET, NCCL_PATH_DIS,
	NCCL_PATH_UNKNOWN,            /* fabtop could not tell */
};

/* NCCL's word (topoPathTypeStr: "PXB", "P2C"); "N/A" for unknown. */
const char *nccl_path_word(enum fab_nccl_path p);

/* NCCL's path type between GPU g and HCA n (indexes into model.gpus and
 * model.nics), from the nvidia-smi level (topo_classify): PIX, PXB and SYS
 * are NCCL's too; PHB and NODE are both PHB for NCCL (one CPU node per
 * NUMA node); and for a GPU on a C2C link to its CPU (Grace: NVML gives it
 * a GPU NUMA ID) a NIC on that CPU is P2C (paths.cc: C2C merged with PHB).
 * Unknown for a soft HCA (no PCI function) or an unknown level. */
enum fab_nccl_path gdr_path(const struct fab_model *m, int g, int n);

/* An NCCL_* integer parameter as NCCL reads it (param.cc: strtoll base 0,
 * the default when unset, empty or out of range; "abc" reads 0). */
long long nccl_param_int(const char *s, long long deflt);

/* NCCL_NET_GDR_LEVEL as ncclGetLevel reads it: a path word LOC ... SYS
 * (exact case), or an old-style integer (0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and
 * up SYS). 0 with *level set, or -1 when NCCL would ignore it (unset, or
 * "NODE", "-1", "pxb": NCCL then keeps its default). */
int gdr_level_parse(const char *s, enum fab_nccl_path *level);

/* The job's settings gdr_judge() reads; NULL members are unset. */
struct fab_gdr_env {
	const char *net_gdr_level;    /* NCCL_NET_GDR_LEVEL */
	const char *net_gdr_c2c;      /* NCCL_NET_GDR_C2C (2.26+; default 1 from 2.27) */
	const char *dmabuf_enable;    /* NCCL_DMABUF_ENABLE (default 1) */
};

/* Why the judgement is what it is; one per outcome, for tests and rules. */
enum fab_gdr_reason {
	GDR_ON = 0,                   /* yes: close enough, module or DMA-BUF, no translating IOMMU */
	GDR_FAR,                      /* no: the path is farther than NCCL_NET_GDR_LEVEL */
	GDR_NO_SUPPORT,               /* no: no peer-memory module and no DMA-BUF (NCCL: "Disabled for HCA") */
	GDR_GPU_NO,                   /* no: CUDA says the GPU does not support GPUDirect RDMA */
	GDR_IOMMU,                    /* no: NCCL turns it on, a translating IOMMU breaks it */
	GDR_UNKNOWN_PATH,             /* unknown: the path type */
	GDR_UNKNOWN_SUPPORT,          /* unknown: the module or DMA-BUF */
	GDR_UNKNOWN_GPU,              /* unknown: the GPU's support (no CUDA driver) */
	GDR_UNKNOWN_IOMMU,            /* unknown: the IOMMU mode of the GPU or NIC */
};

struct fab_gdr {
	/* Whether GPUDirect RDMA will be used between the pair and work; why
	 * in one line. */
	struct fab_judged v;
	enum fab_gdr_reason reason;
	/* NCCL's own decision (ncclTopoCheckGdr), which ignores the IOMMU:
	 * what its log says ("NET/IB/0/GDRDMA"). */
	enum fab_tri nccl;
	/* NCCL's "GPU Direct RDMA Enabled for HCA": a module or DMA-BUF. */
	enum fab_tri nic;
	enum fab_nccl_path path, level;
};

/* Judges GPU g with HCA n under env (NULL: NCCL's defaults) into *out;
 * -1 when g or n is out of range (*out then unknown). */
int gdr_judge(const struct fab_model *m, int g, int n, const struct fab_gdr_env *env,
	      struct fab_gdr *out);

/* The NIC NCCL will use for GPU g. */
struct fab_nccl_nic {
	int nic;                      /* index into model.nics; -1 when none */
	int port;                     /* its port number; 0 when none */
	int ties;                     /* NICs as close (NCCL spreads GPUs over them), 1 or more */
	enum fab_nccl_path path;
	char why[200];                /* "closest usable NIC (PIX)", "NCCL_IB_HCA=...: ..." */
};

/* Without NCCL_IB_HCA (ib_hca NULL or ""): the first of topo's closest
 * NICs of GPU g (t->best). With it: the closest of the ports it selects
 * (job_hca_match, NCCL's list syntax) that are not judged unusable. Its
 * first usable port (else one whose usability is unknown). NCCL ranks its
 * NICs by path bandwidth, then type, and spreads GPUs over equal ones by
 * device index (ncclTopoGetLocalNet): ties > 1 says the choice is one of
 * them. Returns 0, or -1 with out->nic -1 and why when none. */
int gdr_nic_for_gpu(const struct fab_model *m, const struct fab_topo *t, int g,
		    const char *ib_hca, struct fab_nccl_nic *out);

#endif
