/*
 * model.h - one snapshot of a node: plain structs, no I/O, no ncurses.
 *
 * Collectors fill a struct fab_model; findings and views only read it.
 * Every value that may be unknown is an "opt" (value plus validity bit):
 * views print N/A when .ok is false, never a made-up zero.
 */
#ifndef FABTOP_MODEL_H
#define FABTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAB_NAME_LEN  64
#define FAB_PATH_LEN  512
#define FAB_LIST_LEN  256
/* The longest sysfs attribute: a show() fills at most one page (4096 bytes,
 * the kernel truncates to PAGE_SIZE - 1 and a NUL). Free-text attributes
 * (an hfi1 board_id is 73 bytes) are kept whole up to that. */
#define FAB_SYSFS_PAGE 4096
#define FAB_MAX_CHAIN 16
#define FAB_MAX_GPUS  64
#define FAB_NO_INDEX  (-1)

typedef struct { long long v; bool ok; } fab_int;
typedef struct { double v; bool ok; } fab_num;

static inline fab_int fab_int_of(long long v) { return (fab_int){ v, true }; }
static inline fab_num fab_num_of(double v) { return (fab_num){ v, true }; }

/* Yes, no, or could not tell: "could not read" is never "no". */
enum fab_tri { FAB_UNKNOWN = 0, FAB_NO, FAB_YES };

/* A PCI function's IOMMU mode (/sys/bus/pci/devices/<bdf>/iommu_group/type). */
enum fab_iommu {
	FAB_IOMMU_UNKNOWN = 0,        /* not read (an older capture), or unreadable */
	FAB_IOMMU_NONE,               /* no iommu_group, /sys/kernel/iommu_groups read: no IOMMU translates it */
	FAB_IOMMU_IDENTITY,           /* "identity": passthrough (iommu=pt) */
	FAB_IOMMU_DMA,                /* "DMA", "DMA-FQ": addresses translated */
	FAB_IOMMU_OTHER,              /* "blocked", "unmanaged" (VFIO) or a word this fabtop does not know */
};

/* PCIe port role, when the full config space says so. */
enum fab_pcie_type {
	PCIE_TYPE_UNKNOWN = 0,
	PCIE_TYPE_ENDPOINT,
	PCIE_TYPE_ROOT_PORT,
	PCIE_TYPE_UPSTREAM,
	PCIE_TYPE_DOWNSTREAM,
	PCIE_TYPE_OTHER,
};

/* One PCIe link: speed in GT/s, width in lanes. */
struct fab_pcie_link {
	fab_num cur_speed, max_speed;
	fab_int cur_width, max_width;
};

struct fab_pci_dev {
	char bdf[16];                 /* "0000:1a:00.0" */
	char host_bridge[16];         /* "pci0000:17": the root bus in the sysfs path */
	char chain[FAB_MAX_CHAIN][16];/* bridges from the root port down, excluding self */
	int chain_len;
	fab_int class_code;           /* 24-bit class, e.g. 0x020700 */
	fab_int vendor, device, subsys_vendor, subsys_device;
	fab_int numa_node;            /* -1 in sysfs means "none": stored as !ok */
	char local_cpulist[FAB_LIST_LEN];
	char driver[FAB_NAME_LEN];
	char name[128];               /* from pci.ids through libpci, "" when unknown */
	bool is_bridge;
	struct fab_pcie_link link;    /* from sysfs current_link_* / max_link_* */
	/* An SR-IOV virtual function (a physfn link): it shares its PF's link
	 * and ports, so it is no extra port of the card. */
	bool is_vf;
	char pf_bdf[16];              /* its physical function, "" when not a VF */
	/* From libpci, only when the full config space was readable. */
	bool config_full;             /* false: "needs root" for LnkCap/ACS */
	enum fab_pcie_type pcie_type;
	fab_int acs_ctrl;             /* ACS control register, bridges only */
	/* How the IOMMU handles its DMA (iommu_group/type, sysfs_pci.c):
	 * translated DMA breaks GPUDirect RDMA's peer-to-peer (gdr.h). */
	enum fab_iommu iommu;
	char iommu_type[16];          /* the word read: "identity", "DMA-FQ"; "" otherwise */
};

struct fab_numa_node {
	int id;
	char cpulist[FAB_LIST_LEN];
	int ndist;
	int dist[16];
};

enum fab_gpu_source { GPU_SRC_PCI = 0, GPU_SRC_NVML };

struct fab_gpu {
	int pci;                      /* index into model.pci */
	char name[FAB_NAME_LEN];      /* product name from NVML or pci.ids */
	fab_int nvml_index;
	fab_int numa_id;              /* "GPU NUMA ID" (Grace/C2C); N/A on x86 */
	fab_int nvlinks[FAB_MAX_GPUS];/* bonded NVLinks to GPU j, from NVML */
	fab_int util_pct;             /* GPU utilisation %, from NVML; N/A without it */
	fab_int pstate;               /* performance state, 0 = P0 (busiest); N/A without NVML */
	/* From the CUDA driver (cuDeviceGetAttribute; a capture's fabtop/cuda.json),
	 * unknown without it: what NCCL asks before GPUDirect RDMA (gdr.h). */
	enum fab_tri cu_gdr;          /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED */
	enum fab_tri cu_dmabuf;       /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED */
};

/* One filled slot of a port's GID table (ports/N/gids/I, gid_attrs/...). */
struct fab_gid {
	int index;
	char gid[40];                 /* "fe80:0000:0000:0000:b83f:d203:00a4:1c3e" */
	char type[16];                /* "IB/RoCE v1", "RoCE v2"; "" when unreadable */
	char netdev[FAB_NAME_LEN];    /* gid_attrs/ndevs/I; "" for IB */
	char ip[48];                  /* the IPv4/IPv6 address a RoCE GID encodes; "" if none */
	bool ipv4;                    /* ip is an IPv4-mapped address */
};


/* A judgement that may be unknown, with the reason in one line
 * ("/dev/infiniband/uverbs3 is absent here", "port DOWN/Disabled"). */
struct fab_judged {
	enum fab_tri v;
	char why[160];
};

/* The link layer a port reports (ports/N/link_layer). */
enum fab_link_layer {
	FAB_LL_UNKNOWN = 0,           /* not read */
	FAB_LL_IB,                    /* "InfiniBand" */
	FAB_LL_ETH,                   /* "Ethernet": RoCE */
	FAB_LL_OTHER,                 /* read, but neither ("Unknown" from a soft device) */
};

struct fab_counter_def;

/* A port counter read once (the live counters pane samples; this is a
 * snapshot). def is the table row (counters.h); pinned is set by the
 * model (counter_pinned): the value sits at the counter's maximum, so
 * growth no longer shows. */
struct fab_counter {
	char name[40];                /* file name under counters/ */
	const struct fab_counter_def *def;
	fab_int value;
	bool pinned;
	/* The file held what this counter cannot hold (counter_value_judge():
	 * a sign, not a number, above its width): value stays unknown, raw
	 * keeps the text, and links.counter-implausible says so. */
	bool implausible;
	char raw[24];
};

/* MLNX_OFED's per-port traffic class override (dcb.h): the file
 * /sys/class/infiniband/DEV/tc/PORT/traffic_class. Upstream mlx5 has no
 * such file (rdma_cm's configfs default_roce_tos reaches only rdma_cm
 * connections, which NCCL does not make). */
struct fab_tclass {
	enum fab_tri set;             /* yes: "Global tclass=N"; no: read without one;
				       * unknown: no such file, or unreadable */
	int value;                    /* N: every QP of the port carries it, whatever the
				       * application asked (its DSCP is N >> 2) */
	int rules;                    /* per-destination "...,tclass=N" rules listed */
};

#define FAB_MAX_GIDS     32
#define FAB_MAX_COUNTERS 16
#define FAB_MAX_XPORT    24

struct fab_port {
	int num;
	fab_int state;                /* 4 for "4: ACTIVE" */
	char state_str[24];
	fab_int phys_state;           /* 5 for "5: LinkUp" */
	char phys_state_str[32];      /* "PortConfigurationTraining" is 25 */
	fab_num rate_gbps;            /* 400 for "400 Gb/sec (4X NDR)" */
	char rate_str[48];
	fab_int width;                /* lanes: 4 for "4X" */
	char speed[8];                /* "NDR", "HDR", "EDR"; "" when not in the rate string */
	enum fab_link_layer ll;
	char netdev[FAB_NAME_LEN];
	fab_int lid, sm_lid, sm_sl;   /* IB only */
	fab_int active_mtu;           /* bytes; RoCE: derived from the netdev MTU as the kernel does */
	fab_int max_mtu;              /* bytes; 4096 for mlx5 */
	char mtu_source[32];          /* "netdev MTU (RoCE)", "verbs snapshot", "" */
	int ngids;
	struct fab_gid gids[FAB_MAX_GIDS];   /* the lowest-indexed filled slots */
	/* Filled slots past FAB_MAX_GIDS: read and counted, not kept (noted).
	 * 0: gids is the whole table. What looks for a GID past the last kept
	 * one says unknown, never absent (fab_port_gids_cut()). */
	int gids_more;
	int nerrors;                  /* the standard error counters (counters.h) */
	struct fab_counter errors[FAB_MAX_COUNTERS];
	/* The driver's transport counters (ports/N/hw_counters) whose totals a
	 * snapshot judges (counters.h warn_at): failed and retried transport. */
	int nxport;
	struct fab_counter xport[FAB_MAX_XPORT];
	/* Derived by model_derive(): whether a job on this node can use the
	 * port now (port_usable()). */
	struct fab_judged usable;
	struct fab_tclass tclass;     /* collect_dcb */
};

/* Visible (in /sys/class/infiniband) is not usable: the verbs device node
 * must exist in this mount namespace and open for this user. */
struct fab_uverbs {
	char name[16];                /* "uverbs0" */
	bool present;                 /* /dev/infiniband/uverbsN exists here */
	fab_int open_errno;           /* 0 when it opened read-write; unknown when not tried */
};

#define FAB_MAX_PORTS 4
#define FAB_MAX_ADDRS 16
struct fab_nic {
	char name[FAB_NAME_LEN];      /* "mlx5_0" */
	int pci;                      /* index into model.pci, FAB_NO_INDEX for soft devices */
	char node_guid[24];
	char fw_ver[FAB_SYSFS_PAGE];   /* free text from the driver: up to a sysfs page */
	char board_id[FAB_SYSFS_PAGE]; /* "Intel Omni-Path Host Fabric Interface Adapter 100 Series, 1 Port, PCIe x16" */
	char hca_type[FAB_SYSFS_PAGE];
	char driver[FAB_NAME_LEN];    /* the PCI function's driver: mlx5_core */
	char sys_image_guid[24];      /* one per adapter: every function of a card reports it */
	/* The adapter table (sysfs_rdma.c): the most one port of the model
	 * runs, and what the whole card carries (a ConnectX-7 runs one port at
	 * 400 Gb/s or two at 200). Unknown when the model is not listed. */
	fab_num cap_port_max, cap_card_total;
	/* Derived by model_derive() (card_derive): the card this function
	 * belongs to (the index of its first function among the HCAs), the
	 * PCIe links the card's physical functions use (2 or more: a
	 * multi-host / socket-direct card), the ports the card has, and what
	 * one port can do (cap_gbps; cap_sure when the table's figure does not
	 * depend on how many ports the card has, or they were all seen). */
	int card, card_links, card_ports;
	fab_num cap_gbps;
	bool cap_sure;
	struct fab_uverbs uverbs;
	/* Why its counters/ and hw_counters/ were not read (hazard.h), "" when
	 * they were: an NVSwitch management function, or --exclude-dev. */
	char counters_skipped[256];
	int nports;
	struct fab_port ports[FAB_MAX_PORTS];
	/* Derived: yes when a port is usable, no when every port is not,
	 * else unknown (nic_usable()). */
	struct fab_judged usable;
};

struct fab_netdev {
	char name[FAB_NAME_LEN];
	int pci;                      /* FAB_NO_INDEX for virtual devices */
	fab_int mtu, ifindex, speed_mbps;
	fab_int dev_port;             /* which port of a multi-port function */
	char operstate[16];
	fab_int carrier;
	/* From the netlink snapshot: the first FAB_MAX_ADDRS, a note for
	 * the others. */
	char addrs[FAB_MAX_ADDRS][48];
	int naddrs;
	/* RoCE QoS where the driver exposes it (qos/, ecn/ in sysfs; DCB netlink). */
	char qos_trust[8];            /* "pcp", "dscp"; "" when not exposed */
	fab_int pfc_mask;             /* bit p: PFC enabled on priority p */
	fab_int ecn_np_mask, ecn_rp_mask;   /* bit p: ECN notification/reaction point enabled */
	/* Where pfc_mask and qos_trust came from: "DCB netlink", "MLNX_OFED
	 * sysfs"; "" when unknown (dcb.h). */
	char qos_source[24];
	char trust_source[24];
	/* DCB netlink (collect_dcb): yes when the kernel answered
	 * DCB_CMD_IEEE_GET, no when it said this netdev has no DCB
	 * (EOPNOTSUPP), unknown when not asked or the question failed;
	 * dcb_why says why it is not yes. */
	enum fab_tri dcb;
	char dcb_why[96];
	/* DSCP -> priority from the DCB app table (selector DSCP), when it has
	 * DSCP entries: DCB_DSCP_NONE / DCB_DSCP_SEVERAL otherwise (dcb.h). */
	bool dscp_map_ok;
	signed char dscp2prio[64];
	fab_int dcbx;                 /* DCB_ATTR_DCBX: DCB_CAP_DCBX_* bits */
	/* Bonding (a RoCE LAG: mlx5_bond_N's GIDs name the bond). A bond's
	 * operstate stays up while one slave is, so its slaves are read too. */
	char bond_slaves[160];        /* bonding/slaves: "ens1f0np0 ens1f1np1"; "" when not a bond */
	char bond_mode[24];           /* bonding/mode, first word: "802.3ad", "active-backup" */
	char slave_mii[8];            /* bonding_slave/mii_status of a slave: "up", "down"; "" otherwise */
	int read_errno;               /* 0, or why its directory could not be read: its values are unknown */
};

enum fab_severity { SEV_INFO = 0, SEV_WARN, SEV_ERROR };

struct fab_finding {
	char id[32];                  /* "topo.nic-far" */
	enum fab_severity sev;
	char subject[FAB_NAME_LEN];   /* "GPU3" */
	/* Room for a translation: CJK takes 3 bytes a character in UTF-8. */
	char message[512];
	char evidence[768];
	char hint[512];
	char layer[320];              /* one line: which layer this concerns and why it matters */
};

/* The sources a report stands on. When one of them exists but could not
 * be read, the report cannot call the node healthy: its verdict is
 * unknown (model_verdict()). docs/report-json.md lists them per report. */
struct fab_setting {
	char name[64];
	char value[FAB_PATH_LEN];
	char source[32];              /* "environment" or "/etc/nccl.conf" */
};

enum fab_source {
	FAB_SRC_RDMA    = 1 << 0,     /* /sys/class/infiniband, each HCA's ports/, each port's state */
	FAB_SRC_PCI     = 1 << 1,     /* /sys/bus/pci/devices: the PCI tree */
	FAB_SRC_NET     = 1 << 2,     /* /sys/class/net: which netdevs are here (not a main source) */
	FAB_SRC_CAPTURE = 1 << 3,     /* the capture itself, cut short: anything may be missing */
};
/* What each report needs: links and all the RDMA class, topo the PCI tree;
 * a capture cut short leaves every report unknown. */
#define FAB_NEED_LINKS (FAB_SRC_RDMA | FAB_SRC_CAPTURE)
#define FAB_NEED_TOPO  (FAB_SRC_PCI | FAB_SRC_CAPTURE)
#define FAB_NEED_ALL   (FAB_SRC_RDMA | FAB_SRC_PCI | FAB_SRC_CAPTURE)

/* Something a collector could not read; the rest is still shown. */
struct fab_note {
	char what[64];                /* "hwloc", "/sys/bus/pci/devices/.../config" */
	char message[256];
	unsigned src;                 /* enum fab_source bits it leaves unknown; 0: a detail */
};

/* A report's verdict; its value is the batch exit status. */
enum fab_verdict {
	FAB_VERDICT_OK = 0,           /* no finding of warning severity or worse */
	FAB_VERDICT_FINDINGS = 1,     /* one at least */
	FAB_VERDICT_UNKNOWN = 2,      /* a source it stands on could not be read */
};

/* The per-port detail a model may hold or not yet (collect_model(),
 * collect_detail() in collect.h): reading every GID slot (128 on IB, 255 on
 * RoCE) and every counter file of every port is most of a start-up, and
 * the topology shows none of it. A model says which it holds (have): a
 * reader of ngids/gids, nerrors/errors or nxport/xport on a model without
 * that detail says "not read", never "none" or 0, and a rule that needs it
 * does not run (findings_run). */
enum fab_detail {
	FAB_HAVE_GIDS = 1 << 0,          /* each port's GID table: ports/N/gids, gid_attrs */
	FAB_HAVE_PORT_COUNTERS = 1 << 1, /* each port's error and transport counters:
					  * ports/N/counters, hw_counters */
};
#define FAB_DETAIL_ALL (FAB_HAVE_GIDS | FAB_HAVE_PORT_COUNTERS)

struct fab_model_index;           /* private (model.c) */

struct fab_model {
	/* The FAB_HAVE_* detail read into this model. model_init() sets them
	 * all (a model built by hand holds what it says); collect_model()
	 * clears those it leaves for later. */
	unsigned have;
	/* The FAB_HAVE_* detail that rules of the last findings_run() needed
	 * and the model lacked: those rules did not run, so the findings are
	 * not the whole judgement (0: every rule ran). */
	unsigned findings_lack;
	char host[FAB_NAME_LEN];
	char kernel[FAB_NAME_LEN];
	char source[FAB_PATH_LEN];    /* "live" or the capture's name */
	bool live;
	bool demo;
	long long time;               /* epoch seconds of the snapshot */

	struct fab_pci_dev *pci; int npci;
	struct fab_numa_node *numa; int nnuma;
	struct fab_gpu *gpus; int ngpus;
	enum fab_gpu_source gpu_source;
	char nvml_status[256];        /* why NVML was or was not used */
	/* The live GPU libraries have not answered yet (collect.h, gpu_bg.c):
	 * GPU names, order, NVLink and GPUDirect support are unknown, not absent. */
	bool gpu_pending;
	char cuda_status[256];
	char nccl_status[256];
	/* NCCL settings a job started on this node inherits besides its own
	 * environment (collectors/settings.c): the environment fabtop runs in
	 * (in a Slurm job step or a pod, the job's) and /etc/nccl.conf. Only
	 * the variables of procfs.c's NCCL table, never a secret-looking
	 * name. settings_known false: a capture that did not record them. */
	struct fab_setting *settings; int nsettings;
	bool settings_known;
	char settings_why[160];       /* why not known: "the capture did not record them", ... */
	char rdma_netns_mode[16];     /* "shared", "exclusive"; "" when RDMA netlink is absent */
	struct fab_nic *nics; int nnics;
	/* A GPU peer-memory module, as NCCL's net_ib tests it (host.c): one of
	 * /sys/kernel/mm/memory_peers/nv_mem/version, .../nv_mem_nc/version,
	 * /sys/module/nvidia_peermem/version exists. Unknown when a capture
	 * did not look (gdr_recorded false). */
	struct fab_judged peermem;
	/* Live, or a capture that recorded the peer-memory and IOMMU files
	 * (meta.json "gdr_sysfs"): their absence then means absent. */
	bool gdr_recorded;
	struct fab_netdev *netdevs; int nnetdevs;
	/* The traffic class the NCCL jobs on this node give their RoCE QPs
	 * (NCCL_IB_TC, else NCCL's default 0; collect_dcb from job_scan):
	 * unknown when no job was found or they differ; job_tc_from says
	 * which processes, and why when unknown ("" when not looked for). */
	fab_int job_tc;
	bool job_tc_set;              /* every job set NCCL_IB_TC itself (not NCCL's default 0):
				       * only then does an override work against the job's wish */
	char job_tc_from[200];
	struct fab_finding *findings; int nfindings;
	struct fab_note *notes; int nnotes;
	/* private (model.c): allocated lengths, grown geometrically */
	struct { int pci, numa, gpus, settings, nics, netdevs, findings, notes; } cap;
	/* private (model.c): the lookups' index by name, built by them */
	struct fab_model_index *index;
};

void model_init(struct fab_model *m);
/* Whether the model holds all of the detail in what (FAB_HAVE_* bits). */
static inline bool model_has(const struct fab_model *m, unsigned what)
{
	return (m->have & what) == what;
}
/* True when a GID of that index may be among the slots not kept
 * (gids_more): past the last kept one of a cut table. */
static inline bool fab_port_gids_cut(const struct fab_port *pt, long index)
{
	return pt->gids_more > 0 && (pt->ngids == 0 || index > pt->gids[pt->ngids - 1].index);
}
void model_free(struct fab_model *m);
struct fab_pci_dev *model_add_pci(struct fab_model *m);
struct fab_numa_node *model_add_numa(struct fab_model *m);
struct fab_gpu *model_add_gpu(struct fab_model *m);
struct fab_nic *model_add_nic(struct fab_model *m);
struct fab_netdev *model_add_netdev(struct fab_model *m);
struct fab_setting *model_add_setting(struct fab_model *m);
struct fab_finding *model_add_finding(struct fab_model *m, const char *id,
				      enum fab_severity sev, const char *subject);
void model_note(struct fab_model *m, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A fixed table full: "SUBJECT: TOTAL NOUN; the first KEPT are kept, the
 * other N are not shown". The one sentence for a cap reached (said, never
 * silent, and said once: the same cut again adds nothing); subject may be
 * "" (no "SUBJECT: "). */
void model_note_cut(struct fab_model *m, const char *what, const char *subject, const char *noun,
		    int total, int kept);
/* A note about a source that exists and could not be read: src (enum
 * fab_source) says which reports it leaves unknown. */
void model_note_src(struct fab_model *m, unsigned src, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The position of the PCI function, HCA or netdev of that name (the
 * first, when two share it), or FAB_NO_INDEX. O(1): a hash index the
 * lookups keep up to date as entries are added, arrays move or are sorted
 * in place, and entries added without a name get one. Names are keys: code
 * that changes an entry's name in place after a lookup calls
 * model_reindex(). The index is a cache inside the model: two threads must
 * not look up in one model at once (no thread touches a model the caller
 * uses, see wizard_l2.c). */
int model_find_pci(const struct fab_model *m, const char *bdf);
int model_find_nic(const struct fab_model *m, const char *name);
int model_find_netdev(const struct fab_model *m, const char *name);
/* Forgets the index: the next lookup builds it from what the arrays hold. */
void model_reindex(struct fab_model *m);
/* The netdev of that name in this network namespace, or NULL ("" too). */
const struct fab_netdev *model_netdev(const struct fab_model *m, const char *name);
/* Port `port` of HCA dev, or NULL; *nic (may be NULL) gets its HCA. */
const struct fab_port *model_find_port(const struct fab_model *m, const char *dev, int port,
				       const struct fab_nic **nic);

/* ---- the judgements (facts.c): each fact is computed here, once ----
 * Rules, reports, JSON, metrics and panes print these results; none of
 * them works a state, usability or line rate out again. */

/* ACTIVE (4) or ACTIVE_DEFER (5) in ports/N/state; false when unknown. */
bool port_active(const struct fab_port *p);
/* Verbs access from here: /dev/infiniband/uverbsN exists in this mount
 * namespace and opens read-write for this user. Unknown when the capture
 * did not record it. */
struct fab_judged nic_verbs(const struct fab_nic *n);
/* Whether a job here can use the port now: verbs access and an ACTIVE
 * port. No when either says no (both reasons), unknown when neither says
 * no and one is unknown. */
struct fab_judged port_usable(const struct fab_nic *n, const struct fab_port *p);
/* Yes when one of its ports is usable, no when every port is not (or it
 * has none), else unknown. */
struct fab_judged nic_usable(const struct fab_nic *n);
/* Whether a GPU is at work (its PCIe link should then run at full speed;
 * idle GPUs lower it): P0-P2 is busy and P5 or deeper idle, else the
 * utilisation (10% and up is busy); unknown without NVML. The reason
 * says what it rests on ("P0, 87% utilisation"). */
struct fab_judged gpu_busy(const struct fab_gpu *g);
/* The usable ports as an NCCL_IB_HCA value: "mlx5_0" for an HCA whose
 * ports are all usable, "mlx5_1:2" for one usable port of several; ""
 * when none. Returns how many HCAs it names. */
int model_usable_hcas(const struct fab_model *m, char *buf, size_t len);
/* Ports by usable judgement: count[FAB_YES], [FAB_NO], [FAB_UNKNOWN];
 * returns the number of ports. */
int model_usable_counts(const struct fab_model *m, int count[3]);
/* Usable bandwidth of a PCIe link in Gb/s: 8b/10b encoding below 8 GT/s
 * (Gen1/2), 128b/130b from Gen3. */
double pcie_gbps(double gts, long long width);
/* What a PCIe link carries as data, Gb/s: pcie_gbps() less the packet
 * overhead (about 80% of it; facts.c says why). */
double pcie_payload_gbps(double gts, long long width);
/* A link width as current_link_width and max_link_width print it: 1 to 32
 * lanes. 0 (a link that is down) and anything else are no width. */
bool pcie_width_ok(long long width);
/* What the link of function d can train to: its max_link_speed/width,
 * bounded by the port above it (the link's other end) where the model
 * knows that port. false when d's own are unknown. The one capability
 * pcie.degraded (rules_topo.c) and the PCIe watch (pcie_watch.h) judge
 * against. */
bool pcie_link_cap(const struct fab_model *m, const struct fab_pci_dev *d,
		   double *gts, long long *width);
/* How a link runs against that capability: PCIE_SLOW for a lower speed,
 * PCIE_NARROW for fewer lanes, 0 when neither. */
enum { PCIE_SLOW = 1 << 0, PCIE_NARROW = 1 << 1 };
unsigned pcie_link_below(double cur_gts, long long cur_width, double cap_gts, long long cap_width);
/* The PCI function of an HCA, NULL for a soft device. */
const struct fab_pci_dev *nic_pci(const struct fab_model *m, const struct fab_nic *n);
/* The PCIe link an HCA's traffic crosses: its function's, its PF's for an
 * SR-IOV VF (NULL when that PF is not in the model). */
const struct fab_pci_dev *nic_link_dev(const struct fab_model *m, const struct fab_nic *n);
/* Two HCAs of one adapter model: the same PCI ID (vendor:device) where
 * both are known, else the same hca_type (MT4129); and the same board id
 * (PSID) where both are known, since one chip makes single- and dual-port
 * boards (a dual-port ConnectX-7 runs 200 Gb/s a port, the single-port 400). */
bool nic_same_model(const struct fab_model *m, const struct fab_nic *a, const struct fab_nic *b);
/* How many of port p's error counters are pinned at their maximum
 * (fab_counter.pinned, set by model_derive() with counter_pinned()). */
int port_pinned(const struct fab_port *p);
/* The command that clears port p's PMA counters so that a pinned one
 * counts again (printed, never run): InfiniBand, perfquery -x -R -C DEV -P N
 * (a Performance Management MAD; needs the umad device); RoCE has no
 * PMA MADs, and mlx5 derives those counters from the port's physical
 * counters, which mlxlink -d BDF --pc clears. The Links pane, the JSON
 * and the findings print this one command. */
const char *port_pin_clear_cmd(const struct fab_model *m, const struct fab_nic *n,
			       const struct fab_port *p, char *buf, size_t len);
/* THE line rate bandwidth is judged against (the l3 perftest step, the
 * counters' share of the line, the A/B, nccl-tests' bus bandwidth): the
 * lower of the port's rate and what its function's PCIe link carries.
 * 0 when the rate is unknown. why (may be NULL) gets the reason when the
 * link is the lower one, "" otherwise. */
double port_line_gbps(const struct fab_model *m, const struct fab_nic *n,
		      const struct fab_port *p, char *why, size_t len);
/* Measured bandwidth as a share of that line rate: a healthy link reaches
 * about 90-97% of it (ib_write_bw at 64 KiB and above); under 75% is low,
 * for the l3 step and for nccl-tests' bus bandwidth alike. */
#define FAB_LINE_SHARE_GOOD 0.90
#define FAB_LINE_SHARE_LOW  0.75
/* Computes the derived facts above into the model (usable, pinned
 * counters); collect_all and findings_run call it, and it may run again. */
void model_derive(struct fab_model *m);

/* Whether port p's netdev may be read from here (its ethtool statistics,
 * DCB netlink): yes with *d when the name is in this network namespace and
 * is the port's own (the same PCI function, or a virtual one such as a
 * RoCE LAG's bond); no when its function's reads hurt (hazard.h), it is
 * not here (a pod's namespace holds it), or the name here belongs to
 * another device; unknown when /sys/class/net could not be read. why says
 * why not. The sampler, the capture and DCB netlink ask this one question. */
enum fab_tri port_netdev_readable(const struct fab_model *m, const struct fab_nic *n,
				  const struct fab_port *p, const struct fab_netdev **d,
				  char *why, size_t len);
/* Whether netdev `name` is in this network namespace: yes (*d set), no
 * (/sys/class/net was read and has no such name), or unknown (it or its
 * directory could not be read; why says so). */
enum fab_tri model_netdev_here(const struct fab_model *m, const char *name,
			       const struct fab_netdev **d, char *why, size_t len);
/* The first note that leaves one of the sources in need (enum fab_source
 * bits) unknown, or NULL; *count (may be NULL) gets how many there are. */
const struct fab_note *model_unknown(const struct fab_model *m, unsigned need, int *count);
/* The verdict of a report that stands on the sources in need and whose
 * worst finding has severity worst (-1: none): unknown when one of those
 * sources could not be read, findings when worst is a warning or worse,
 * else ok. Every report prints this one result; it is the exit status. */
enum fab_verdict model_verdict(const struct fab_model *m, unsigned need, int worst);

/* The priority RoCE packets of traffic class tc (a byte: DSCP tc >> 2,
 * ECN in its low two bits) carry on netdev d: by trust dscp, the DSCP map
 * of the DCB app table, else mlx5's default map (priority = DSCP >> 3,
 * what its firmware starts with). -1 when it cannot be told (trust pcp:
 * the priority is then the QP's service level, NCCL_IB_SL, not the
 * traffic class; trust unknown; a DSCP with conflicting entries). why
 * (may be NULL) gets one line naming the source either way. */
int netdev_tc_priority(const struct fab_netdev *d, int tc, char *why, size_t len);
/* The traffic class port p's RoCE QPs carry when the application asks for
 * tc (-1: unknown): MLNX_OFED's global override when set, else tc. why
 * (may be NULL) says which. */
int port_effective_tc(const struct fab_port *p, int tc, char *why, size_t len);

#endif
