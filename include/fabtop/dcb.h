/*
 * dcb.h - PFC, trust and the DSCP -> priority map of a RoCE netdev from
 * DCB netlink (RTM_GETDCB, DCB_CMD_IEEE_GET: what `dcb pfc show` and
 * `dcb app show` ask), read-only and without privileges (the kernel wants
 * CAP_NET_ADMIN only for RTM_SETDCB: net/dcb/dcbnl.c dcb_doit()).
 *
 * Upstream mlx5 exposes PFC only here; MLNX_OFED also has sysfs files
 * (/sys/class/net/X/qos/{trust,pfc}, read by sysfs_net.c), the fallback
 * where a netdev has no DCB. Which one was used is recorded in the model
 * (fab_netdev.qos_source, trust_source).
 *
 * Live and capture share one path (as netlink.c): the live kernel's reply
 * bytes are put, as hex, into the fabtop/dcb.json document
 * (docs/capture-format.md), and that document is applied to the model:
 * each reply parsed by dcb_parse_reply(), a pure function over the bytes
 * (unit-tested on recorded messages and fuzzed: fuzz/fuzz_dcb.c).
 *
 * Sequence: collect_net (sysfs) -> collect_rdma -> collect_dcb (collect.h:
 * DCB netlink of each RoCE port's netdev, MLNX_OFED's global traffic class
 * of each port, the NCCL jobs' NCCL_IB_TC) -> findings. `fabtop capture`
 * writes dcb_snapshot_json() as fabtop/dcb.json.
 */
#ifndef FABTOP_DCB_H
#define FABTOP_DCB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fabtop/model.h"

#define DCB_NPRIO 8                   /* IEEE_8021QAZ_MAX_TCS */
#define DCB_NDSCP 64
#define DCB_DSCP_NONE    (-1)         /* dscp2prio: no app entry for this DSCP */
#define DCB_DSCP_SEVERAL (-2)         /* dscp2prio: entries with different priorities */

/* One DCB_CMD_IEEE_GET answer, as dcbnl_ieee_fill() lays it out. */
struct dcb_reply {
	int err;                      /* 0: a reply; else the kernel's -errno (NLMSG_ERROR):
				       * -EOPNOTSUPP: this netdev has no DCB (no dcbnl_ops),
				       * -ENODEV: no such netdev in this network namespace */
	char ifname[16];              /* DCB_ATTR_IFNAME; "" when absent */
	bool ieee;                    /* DCB_ATTR_IEEE was there */
	bool pfc_ok;                  /* DCB_ATTR_IEEE_PFC (struct ieee_pfc) */
	uint8_t pfc_cap, pfc_en;      /* pfc_en bit p: PFC on priority p */
	bool pfc_counts_ok;           /* the whole struct: per-priority pause counts */
	uint64_t pfc_requests[DCB_NPRIO], pfc_indications[DCB_NPRIO]; /* mlx5: tx/rx pause */
	bool ets_ok;                  /* DCB_ATTR_IEEE_ETS (struct ieee_ets) */
	uint8_t prio_tc[DCB_NPRIO];
	bool app_ok;                  /* DCB_ATTR_IEEE_APP_TABLE was there (even empty) */
	int napp;                     /* its DCB_ATTR_IEEE_APP entries */
	int ndscp;                    /* of them, DSCP entries (selector 5, DSCP < 64, prio < 8) */
	int8_t dscp2prio[DCB_NDSCP];  /* priority, DCB_DSCP_NONE or DCB_DSCP_SEVERAL */
	bool dcbx_ok;                 /* DCB_ATTR_DCBX (DCB_CAP_DCBX_* bits) */
	uint8_t dcbx;
};

/* Parses the bytes recv() returned for request seq (one or more netlink
 * messages: the RTM_GETDCB reply and its ACK, or an NLMSG_ERROR) into out.
 * 0: out is the answer (out->err says whether the kernel refused);
 * -ENOMSG: no message answers seq; -EBADMSG: malformed. Never reads past
 * len. */
int dcb_parse_reply(const void *buf, size_t len, uint32_t seq, struct dcb_reply *out);

/* The request `dcb pfc show dev IFNAME` sends (iproute2 dcb/dcb.c:
 * RTM_GETDCB, NLM_F_REQUEST|NLM_F_ACK, struct dcbmsg {AF_UNSPEC,
 * DCB_CMD_IEEE_GET}, DCB_ATTR_IFNAME), built with libnl, seq and port id
 * 0. Its length, or -errno (-ENOSPC: len too small). */
int dcb_request_bytes(const char *ifname, void *buf, size_t len);

/* What a reply says about netdev d, into d: PFC (qos_source "DCB
 * netlink"), trust from the app table for an mlx5 netdev whose trust no
 * sysfs file gave (mlx5 keeps one DSCP app entry per DSCP exactly while
 * trust is dscp: en_dcbnl.c mlx5e_dcbnl_dscp_app/ieee_setapp/delapp), the
 * DSCP map and DCBX mode; d->dcb yes, or no with why for EOPNOTSUPP,
 * unknown for other errors. driver: the netdev's PCI driver ("mlx5_core"),
 * "" when unknown. Pure. */
void dcb_reply_apply(const struct dcb_reply *r, const char *driver, struct fab_netdev *d);

/* MLNX_OFED's /sys/class/infiniband/DEV/tc/PORT/traffic_class contents
 * (drivers/infiniband/hw/mlx5 traffic_class_show(): "Global tclass=%d\n"
 * when set, then one line per rule ending ",tclass=%d\n") into t: set
 * no when the file holds no global line. false (t unknown) when a line is
 * neither. Pure. */
bool dcb_parse_traffic_class(const char *text, struct fab_tclass *t);

struct fab_job_list;
/* The NCCL jobs' traffic class into m->job_tc / job_tc_from: each job's
 * NCCL_IB_TC (parsed as NCCL does, strtoll base 0), or NCCL's default 0
 * when unset (src/transport/net_ib/connect.cc NCCL_IB_TC_DEFAULT; a
 * communicator's ncclConfig_t.trafficClass is not visible from outside).
 * Unknown when there is no job, a value is not a number 0-255, or the jobs
 * differ. Pure. */
void dcb_job_tc(const struct fab_job_list *l, struct fab_model *m);

struct json_t;
/* fabtop/dcb.json of the live node: DCB netlink asked for each RoCE
 * port's netdev in m. NULL with err when no route netlink socket opens. */
struct json_t *dcb_snapshot_json(const struct fab_model *m, char *err, size_t errlen);

#endif
