/*
 * collect.h - the collectors: each reads one source through the root and
 * adds to the model. None includes ncurses; none exits.
 *
 * A collector returns 0 when it ran (even if it found nothing) and -1 when
 * its source was unusable; either way it records what it could not read as
 * model notes, so the rest of the snapshot is still shown.
 *
 * collect_all() runs them in dependency order:
 *   host -> pci (sysfs) -> pci_lib (names, LnkCap, ACS) -> numa (hwloc)
 *   -> net -> rdma -> uverbs -> verbs -> netlink -> dcb -> nvml/cuda/nccl -> gpus
 */
#ifndef FABTOP_COLLECT_H
#define FABTOP_COLLECT_H

#include "fabtop/model.h"
#include "fabtop/root.h"

int collect_host(const struct fab_root *r, struct fab_model *m);
int collect_pci_sysfs(const struct fab_root *r, struct fab_model *m);
int collect_pci_lib(const struct fab_root *r, struct fab_model *m);
int collect_numa(const struct fab_root *r, struct fab_model *m);
int collect_net(const struct fab_root *r, struct fab_model *m);
int collect_rdma(const struct fab_root *r, struct fab_model *m);
/* Whether each HCA's /dev/infiniband/uverbsN exists here and opens
 * (live), or what fabtop/devices.json recorded (replay). After rdma. */
int collect_uverbs(const struct fab_root *r, struct fab_model *m);
int collect_netlink(const struct fab_root *r, struct fab_model *m);
/* The RoCE traffic-class configuration (dcb.h): DCB netlink of each RoCE
 * port's netdev (live, or fabtop/dcb.json), MLNX_OFED's tc/N/traffic_class
 * of each port, and the NCCL jobs' NCCL_IB_TC. After net and rdma. */
int collect_dcb(const struct fab_root *r, struct fab_model *m);
/* Each port's active and largest MTU from verbs (libibverbs loaded at run
 * time, live) or fabtop/verbs.json (replay): verbs win over the netdev's
 * derivation and the port's mtu_source says so. When verbs cannot answer
 * (no library, no provider, a device that does not open), a model note
 * says why and the MTU stays as it was. After rdma and uverbs. */
int collect_verbs(const struct fab_root *r, struct fab_model *m);
int collect_gpus(const struct fab_root *r, struct fab_model *m);
/* The node's NCCL settings (model.settings): live, fabtop's own environment
 * and /etc/nccl.conf; a capture, meta.json's "env" and its etc/nccl.conf. */
int collect_settings(const struct fab_root *r, struct fab_model *m);
/* The NCCL variables of an environment ("K=V" strings, as environ) that
 * collect_settings keeps, as a JSON object, for a capture's meta.json. */
struct json_t;
struct json_t *collect_settings_env(char *const *envp);
/* The same filter over a JSON object of NAME: value (a capture's "env"). */
struct json_t *collect_settings_json(const struct json_t *env);
int collect_nvml(const struct fab_root *r, struct fab_model *m);
int collect_cuda(const struct fab_root *r, struct fab_model *m);
/* Each GPU's GPUDirect RDMA and DMA-BUF support from the CUDA driver
 * (libcuda, live) or fabtop/cuda.json (replay); unknown without. After gpus. */
int collect_cuda_gpus(const struct fab_root *r, struct fab_model *m);

/* What collect_nvml() learnt, looked up by PCI address ("0000:1b:00.0").
 * nvml_lookup returns 0 when NVML knows the GPU (numa_id -1 when none);
 * nvml_nvlinks returns the active NVLinks between two GPUs, -1 unknown. */
int nvml_lookup(const char *bdf, char *name, size_t len, int *nvml_index,
		long long *numa_id);
int nvml_nvlinks(const char *bdf_a, const char *bdf_b);
/* The GPU's utilisation (%) and P-state (0 = P0) when NVML (or the capture)
 * gave them, each -1 when not; returns 0 when NVML knows the GPU. */
int nvml_activity(const char *bdf, int *util_pct, int *pstate);

/* Everything above, then the findings. */
int collect_all(const struct fab_root *r, struct fab_model *m);

/* Writers used by `fabtop capture`: the live data that is not a file. */
struct json_t;
struct json_t *netlink_snapshot_json(char *err, size_t errlen);
/* fabtop/devices.json: every /dev/infiniband/uverbs* with stat and open results. */
struct json_t *uverbs_snapshot_json(char *err, size_t errlen);
struct json_t *nvml_snapshot_json(char *err, size_t errlen);
/* fabtop/verbs.json: what libibverbs answers (docs/capture-format.md); a
 * library that does not load is recorded in the document, not an error.
 * A device whose reads hurt (hazard_counters() on r: SMDL=SW_MNG,
 * --exclude-dev) is never opened: {"skipped": why}. */
struct json_t *verbs_snapshot_json(const struct fab_root *r, char *err, size_t errlen);
/* The same from the first of sonames that loads (tests name one that does not). */
struct json_t *verbs_snapshot_json_from(const struct fab_root *r, const char *const *sonames);
/* enum ibv_mtu (1..5) in bytes (256..4096); 0 for anything else. */
int verbs_mtu_bytes(long long ibv_mtu);
/* fabtop/cuda.json: {"gpus": [{"bus_id", "gpu_direct_rdma", "dma_buf"}]}. */
struct json_t *cuda_gpus_snapshot_json(char *err, size_t errlen);
/* This node's topology as hwloc exports it (fabtop/hwloc.xml, I/O
 * devices included): a malloc'd *xml of *len bytes (NUL after them).
 * 0, or -1 with err. */
int collect_hwloc_xml(char **xml, size_t *len, char *err, size_t errlen);

#endif
