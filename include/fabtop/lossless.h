/*
 * lossless.h - proving the lossless path of a RoCE port: what its netdev's
 * per-priority statistics (ethtool: packets, bytes, pauses, discards) show
 * over the run, set against its QoS configuration (PFC and ECN per
 * priority, trust, the global traffic-class override) and the job's
 * NCCL_IB_TC. A common cause of RoCE hangs under load is a path that is
 * not lossless where the traffic runs: one side sends on priority 3 and
 * the other on 0, a global traffic_class overrides the job's, PFC sits on
 * a priority nothing uses. Today that shows only as retries.
 *
 * lossless_judge() is the one judgement: the Counters pane's section,
 * `report counters` (text and JSON) and the findings print its result.
 * It reads the sampler (growth since the baseline, over the elapsed time
 * of the run) and the model (configuration); no I/O.
 */
#ifndef FABTOP_LOSSLESS_H
#define FABTOP_LOSSLESS_H

#include <stdbool.h>
#include <stdint.h>
#include "fabtop/model.h"
#include "fabtop/sampler.h"

#define LOSSLESS_NPRIO 8

/* A priority carries the port's RDMA traffic when, in one direction, its
 * bytes over the run less the netdev's non-RDMA bytes (the vport's
 * Ethernet unicast, multicast, broadcast) are at least this share of the
 * RDMA bytes the port's counters/ moved that way (per-priority statistics
 * count every frame, RDMA or not); or, when none does so surely, it is
 * the only priority whose bytes reach that share. */
#define LOSSLESS_RDMA_SHARE 0.5

enum lossless_flag {
	LL_RDMA_NO_PFC  = 1 << 0, /* RDMA traffic on a priority without PFC */
	LL_PFC_IDLE     = 1 << 1, /* PFC on a priority that carried nothing while RDMA moved */
	LL_PAUSE_NO_CNP = 1 << 2, /* pauses received, no CNP handled or sent: congestion
				   * control is not engaged, PFC alone throttles */
	LL_NOT_JOB_PRIO = 1 << 3, /* RDMA runs on another priority than the job's TC maps to */
	LL_OVERRIDE     = 1 << 4, /* a global traffic_class override differs from the TC the
				   * job set (NCCL_IB_TC; not NCCL's default) */
};

struct lossless_prio {
	bool seen;               /* the netdev counts this priority */
	uint64_t rx_pkts, tx_pkts, rx_bytes, tx_bytes;
	uint64_t rx_pause, tx_pause;   /* pause frames received / sent */
	uint64_t discards;       /* rx_prioN_buf_discard + rx_prioN_cong_discard */
	enum fab_tri pfc, ecn_np, ecn_rp;
	bool rdma;               /* carries the port's RDMA traffic (LOSSLESS_RDMA_SHARE) */
	bool job;                /* the job's NCCL_IB_TC maps here */
};

struct lossless_port {
	int series;              /* the RDMA port's series in the sampler */
	int netdev_series;       /* its netdev's; -1 none */
	char port[80];           /* "mlx5_0/1" */
	char netdev[64];
	bool known;              /* per-priority statistics were read over a run */
	char why[200];           /* when !known: why */
	double elapsed;          /* seconds the growth covers */
	bool traffic;            /* the port moved RDMA traffic over the run */
	bool rdma_ambiguous;     /* several priorities could carry the RDMA and none
				  * surely does: no prio is marked rdma */
	uint64_t rdma_bytes;     /* counters/port_xmit_data + port_rcv_data, in bytes */
	bool cnp_known;          /* both read throughout the run (or one that grew) */
	uint64_t cnp_handled, cnp_sent; /* rp_cnp_handled, np_cnp_sent over the run */
	struct lossless_prio prio[LOSSLESS_NPRIO];
	char trust[8];           /* "pcp", "dscp"; "" unknown */
	fab_int pfc_mask;        /* the netdev's (bit p: PFC on priority p) */
	fab_int job_tc;          /* the job's NCCL_IB_TC; unknown when no job says */
	int job_prio;            /* the priority it maps to; -1 unknown */
	char job_prio_why[160];
	fab_int tc_override;     /* the port's global traffic_class; unknown when none or unread */
	unsigned flags;          /* enum lossless_flag */
	unsigned char no_pfc_mask;   /* LL_RDMA_NO_PFC: those priorities */
	unsigned char idle_pfc_mask; /* LL_PFC_IDLE: those priorities */
	uint64_t pauses_rx;      /* all priorities */
};

/* Judges RoCE port series i: 0 and *out filled (out->known false with why
 * when it cannot be judged: not RoCE, no netdev statistics, no run yet);
 * -1 when i is not an RDMA port series. The job's traffic class is the
 * model's (job_tc). */
int lossless_judge(const struct fab_sampler *s, const struct fab_model *m, int i,
		   struct lossless_port *out);

/* Whether a priority is worth a line where the path is shown (the pane,
 * `report counters`): it carried or paused or dropped anything, has PFC,
 * or is the job's. */
bool lossless_prio_shown(const struct lossless_prio *pp);

/* Appends the findings of every RoCE port (ids "lossless.*") to out with
 * model_add_finding(); returns how many. */
int lossless_findings(const struct fab_sampler *s, const struct fab_model *m,
		      struct fab_model *out);

#endif
