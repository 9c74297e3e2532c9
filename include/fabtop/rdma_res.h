/*
 * rdma_res.h - per-QP resource state over RDMA netlink, the equivalent of
 * `rdma resource show qp`: which process owns which QP, and in what state.
 *
 * The parser is a pure function over received bytes (one or more netlink
 * messages of an RDMA_NLDEV_CMD_RES_QP_GET dump), tested with recorded
 * messages and fuzzed. The live query opens NETLINK_RDMA through libnl-3;
 * where the kernel has no RDMA netlink it fails once with a clear reason.
 */
#ifndef FABTOP_RDMA_RES_H
#define FABTOP_RDMA_RES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* enum ib_qp_state order, as the kernel sends RDMA_NLDEV_ATTR_RES_STATE */
enum fab_qp_state { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD, QPS_SQE, QPS_ERR };

struct fab_qp {
	char dev[64];            /* RDMA_NLDEV_ATTR_DEV_NAME */
	uint32_t port;           /* 0 when not bound to a port yet */
	uint32_t lqpn, rqpn;     /* rqpn 0 when not connected */
	bool has_rqpn;
	int type;                /* enum ib_qp_type: 2 RC, 3 UC, 4 UD, ... */
	int state;               /* enum fab_qp_state; -1 when absent */
	uint32_t pid;            /* 0 for kernel QPs */
	char comm[64];           /* process name, or the kernel owner (KERN_NAME) */
};

struct fab_qp_list {
	struct fab_qp *qps;
	int n, cap;
	bool done;               /* NLMSG_DONE seen */
};

/* Parses buf (len bytes: netlink messages back to back, as recv() returns
 * them) and appends the QPs found. Returns 0 when more messages may follow,
 * 1 when NLMSG_DONE was seen, -1 on a malformed or truncated message or a
 * netlink error reply (err says which, at what offset; QPs parsed before it
 * are kept). Never reads outside buf. */
int rdma_res_parse_qp(const void *buf, size_t len, struct fab_qp_list *out,
		      char *err, size_t errlen);

/* Live dump over NETLINK_RDMA (libnl-3). 0 on success; -errno with err
 * ("RDMA netlink unavailable: Protocol not supported") otherwise. */
int rdma_res_query_qp(struct fab_qp_list *out, char *err, size_t errlen);

/* The raw bytes of the live dump, one RES_QP_GET dump per device back to
 * back (what `fabtop capture` stores as fabtop/rdma-qp.bin; the parser
 * reads them whole). *buf is malloc'd. 0, or -errno with err; a device
 * whose dump failed is left out (err names it) unless every one failed. */
int rdma_res_dump_bytes(unsigned char **buf, size_t *len, char *err, size_t errlen);

struct fab_root;
/* The QPs of the node a root shows: live roots query RDMA netlink; captures
 * parse the recorded dump bytes fabtop/rdma-qp.bin (written by `fabtop
 * capture` when RDMA netlink answered). 0 on success; -errno with err
 * ("not recorded in this capture", "RDMA netlink unavailable: ...") else. */
int rdma_res_from_root(const struct fab_root *r, struct fab_qp_list *out,
		       char *err, size_t errlen);

void qp_list_free(struct fab_qp_list *l);
const char *qp_state_name(int state);   /* "RTS", "ERR", "?" */
const char *qp_type_name(int type);     /* "RC", "UD", "?" */
/* True for the states that mean the QP is broken (ERR, SQE). */
bool qp_state_bad(int state);

#endif
