/*
 * gpu_int.h - what the GPU library collectors (nvml.c, cuda.c) hand the
 * background loader (gpu_bg.c). Not a public API: collect.h has the
 * contract.
 *
 * The gathers (nvml_gather_new, cuda_live_status, cuda_gpus_snapshot_json)
 * touch no model and no state another gather shares, so the background
 * thread runs them; everything that writes the model (nvml_install,
 * cuda_gpus_apply) runs in the main thread.
 */
#ifndef FABTOP_GPU_INT_H
#define FABTOP_GPU_INT_H

#include <stddef.h>
#include "fabtop/model.h"

struct nvml_table;
struct json_t;

/* NVML asked now (dlopen, nvmlInit, the queries, nvmlShutdown): a malloc'd
 * table, or NULL with why ("not loaded: ...", "nvmlInit failed: ..."). */
struct nvml_table *nvml_gather_new(char *why, size_t len);
/* The table nvml_lookup()/nvml_nvlinks() answer from becomes t (NULL: none,
 * and why is the model's nvml_status); the status line says what NVML said. */
void nvml_install(struct fab_model *m, const struct nvml_table *t, const char *why);
/* nvml_lookup() knows no GPU until the next install (NVML not answered yet). */
void nvml_forget(void);

/* model.gpus (re)built from model.pci and what NVML answered (nvml_install);
 * pci_names: GPUs NVML did not name are named from pci.ids (false while NVML
 * may still answer: its names need no pci.ids). */
void gpu_list_build(struct fab_model *m, bool pci_names);

/* The CUDA runtime's and NCCL's lines (model.cuda_status, nccl_status). */
void cuda_live_status(char *cuda, size_t clen, char *nccl, size_t nlen);
/* Sets each GPU's cu_gdr and cu_dmabuf from a cuda.json document (NULL:
 * nothing known, they stay unknown). After collect_gpus. */
void cuda_gpus_apply(struct fab_model *m, struct json_t *doc);

#endif
