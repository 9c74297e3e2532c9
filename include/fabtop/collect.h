/*
 * collect.h - the collectors: each reads one source through the root and
 * adds to the model. None includes ncurses; none exits.
 *
 * A collector returns 0 when it ran (even if it found nothing) and -1 when
 * its source was unusable; either way it records what it could not read as
 * model notes, so the rest of the snapshot is still shown.
 *
 * collect_all() runs them in dependency order:
 *   host -> pci (sysfs) -> pci_lib (LnkCap, ACS) -> numa (hwloc)
 *   -> net -> rdma -> uverbs -> verbs -> netlink -> dcb -> nvml/cuda/nccl -> gpus
 * On the live root the GPU libraries (nvml/cuda/nccl) start in the
 * background right after host and are joined at their place (gpu_bg.c).
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
/* Every HCA and port with all of its detail (FAB_DETAIL_ALL). */
int collect_rdma(const struct fab_root *r, struct fab_model *m);
/* The same with only the detail in want (FAB_HAVE_* bits): state, rate,
 * link layer, LIDs, netdev and MTU are always read. */
int collect_rdma_want(const struct fab_root *r, struct fab_model *m, unsigned want);
/* The detail in want of every port already in the model (after
 * collect_rdma_want); what could not be read is noted as ever. */
int collect_rdma_detail(const struct fab_root *r, struct fab_model *m, unsigned want);
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

/* Everything above, then the findings: collect_model(r, m, FAB_DETAIL_ALL).
 * What a report, JSON, metrics, a capture's document, the wizard and learn
 * call: they show every port's detail. On the live root it waits for the
 * GPU libraries at most GPU_BG_WAIT_MS; past that model.gpu_pending stays
 * set, a model note and the NVML/CUDA status lines say they did not answer,
 * and GPUs are named and ordered by PCI with NVLink and GPUDirect unknown. */
int collect_all(const struct fab_root *r, struct fab_model *m);
/* Everything above but the per-port detail (model.h FAB_HAVE_*) that want
 * leaves out, then the findings: those whose rules need the missing detail
 * do not run (model.findings_lack says so). `report topo` and the console's
 * first screen pass 0: they show no GID and no counter. */
int collect_model(const struct fab_root *r, struct fab_model *m, unsigned want);
/* The same without waiting for the GPU libraries (the console's first
 * frame): what has not answered yet is pending (model.gpu_pending, the
 * status lines say "waiting for ..."), and gpu_bg_update() merges it. */
int collect_model_nowait(const struct fab_root *r, struct fab_model *m, unsigned want);
/* Reads the detail in want that the model lacks from the root it was
 * collected from, then derives the facts and runs the findings again, so
 * that nothing judged without that detail remains. Returns 1 when it read
 * something, 0 when the model had it all. A consumer asks for what it
 * shows before it shows it. */
int collect_detail(const struct fab_root *r, struct fab_model *m, unsigned want);

/* ---- the GPU libraries in the background (gpu_bg.c) ----
 * Live root only: NVML and the CUDA runtime/driver are asked in two
 * detached threads that write only their own result; the model is written
 * in the calling (main) thread. One job at a time: a collection started
 * while one is still asking (NVML hangs) waits on that job. A hung job is
 * never freed and never blocks exit. Never an NVSwitch management call. */
#define GPU_BG_WAIT_MS 10000   /* how long a report waits for them */
/* Starts the job (live root; nothing for a capture). 0, or -1 when no job
 * could be made (then gpu_bg_collect asks in the calling thread). */
int gpu_bg_start(const struct fab_root *r);
/* NVML, CUDA, the GPUs and their GPUDirect support into m: a capture's
 * files, or the job's answers, waiting for them at most wait_ms (0: not
 * at all; a part not in is pending, or, when a wait ran out, unknown). */
int gpu_bg_collect(const struct fab_root *r, struct fab_model *m, int wait_ms);
/* Readable when a part of the job has answered; -1 when none is asking. */
int gpu_bg_fd(void);
/* Merges what has answered since into m (GPUs rebuilt, findings run again),
 * and says once when the libraries are GPU_BG_WAIT_MS late: 1 when m
 * changed, 0 when not (nothing pending, nothing new, not live). */
int gpu_bg_update(const struct fab_root *r, struct fab_model *m);
/* Waits at most ms for the whole job: 1 when it answered (or none asks). */
int gpu_bg_wait(int ms);
/* A thread is still inside NVML or CUDA (hung, or not done yet). exit()
 * would then run those libraries' destructors under it: main ends with
 * _exit() instead. */
bool gpu_bg_asking(void);
/* pci.ids names (libpci) for the PCI functions pick() chooses; pci.ids is
 * loaded only when one is chosen. collect_gpus names the GPUs NVML did not. */
int collect_pci_names(struct fab_model *m, bool (*pick)(const struct fab_model *m, int i));

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
