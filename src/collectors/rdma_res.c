/*
 * rdma_res.c - per-QP state from RDMA netlink (`rdma resource show qp`).
 *
 * The kernel answers RDMA_NLDEV_CMD_RES_QP_GET for one device at a time
 * (nldev.c res_get_common_dumpit requires DEV_INDEX), so the live query
 * first dumps the device list, then each device's QPs. Each device's reply
 * is one or more NLM_F_MULTI messages, then NLMSG_DONE:
 *
 *   nlmsghdr | DEV_INDEX u32 | DEV_NAME string | RES_QP {
 *       RES_QP_ENTRY { PORT_INDEX? LQPN PDN? PID|KERN_NAME RQPN? RQ_PSN?
 *                      SQ_PSN PATH_MIG_STATE? TYPE u8 STATE u8 DRIVER? } ... }
 *
 * nldev has no genetlink header: attributes start right after the 16-byte
 * nlmsghdr. The parser walks them with libnl's nla_ok()/nla_next(), which
 * never step outside the length they are given; everything it reports as
 * malformed names the byte offset in the buffer it was handed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include "fabtop/rdma_res.h"
#include "fabtop/root.h"
#include "fabtop/util.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

#define QP_MSG_TYPE  RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET)
#define DEV_MSG_TYPE RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET)

/* ---- parsing ---- */

struct dev_ref {
	uint32_t index;
	char name[64];
};

struct dev_list {
	struct dev_ref *v;
	int n, cap;
};

struct parse {
	const unsigned char *base;   /* offsets in messages are counted from here */
	uint16_t want;               /* the message type carrying data */
	struct fab_qp_list *qps;     /* QP_MSG_TYPE */
	struct dev_list *devs;       /* DEV_MSG_TYPE */
	int kernel_errno;            /* from NLMSG_ERROR or a failed NLMSG_DONE */
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct parse *p, const void *at, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "%s at offset %zu", what,
			 (size_t)((const unsigned char *)at - p->base));
	return -1;
}

/* Why an attribute walk stopped before the end of its space, if it did. */
static int walk_end(struct parse *p, const struct nlattr *a, int rem, const char *where)
{
	if (rem <= 0)
		return 0;     /* < 0: the last attribute lacked its padding, as the kernel allows */
	if (rem < NLA_HDRLEN)
		return fail(p, a, "%d stray byte(s) after the last attribute of the %s", rem, where);
	if (a->nla_len < NLA_HDRLEN)
		return fail(p, a, "attribute %d of the %s has nla_len %u, shorter than its own header",
			    nla_type(a), where, a->nla_len);
	return fail(p, a, "attribute %d runs past the end of the %s (nla_len %u, %d bytes left)",
		    nla_type(a), where, a->nla_len, rem);
}

/* tb[type] = the attribute (the last one of a type wins, as in the kernel). */
static int walk_attrs(struct parse *p, const struct nlattr *head, int len, const char *where,
		      const struct nlattr **tb, int maxtype)
{
	const struct nlattr *a = head;
	int rem = len;
	for (; nla_ok(a, rem); a = nla_next(a, &rem))
		if (nla_type(a) <= maxtype)
			tb[nla_type(a)] = a;
	return walk_end(p, a, rem, where);
}

static int get_u32(struct parse *p, const struct nlattr *a, const char *name, uint32_t *v)
{
	if (nla_len(a) < 4)
		return fail(p, a, "%s is %d byte(s), a u32 needs 4", name, nla_len(a));
	/* read here, not by nla_get_u32() inside libnl, so sanitizers see the read */
	memcpy(v, nla_data(a), sizeof(*v));
	return 0;
}

static int get_u8(struct parse *p, const struct nlattr *a, const char *name, int *v)
{
	if (nla_len(a) < 1)
		return fail(p, a, "%s is empty, a u8 needs 1 byte", name);
	*v = *(const uint8_t *)nla_data(a);
	return 0;
}

/* NUL-terminated inside the attribute, not merely followed by padding zeros. */
static int get_str(struct parse *p, const struct nlattr *a, const char *name, char *buf, size_t len)
{
	const char *s = nla_data(a);
	if (nla_len(a) < 1 || !memchr(s, '\0', (size_t)nla_len(a)))
		return fail(p, a, "unterminated %s", name);
	fab_strlcpy(buf, s, len);
	return 0;
}

static struct fab_qp *qp_add(struct fab_qp_list *l)
{
	if (l->n == l->cap) {
		int ncap = l->cap ? l->cap * 2 : 64;
		struct fab_qp *v = ncap > l->cap ? realloc(l->qps, (size_t)ncap * sizeof(*v)) : NULL;
		if (!v)
			return NULL;
		l->qps = v;
		l->cap = ncap;
	}
	struct fab_qp *q = &l->qps[l->n++];
	memset(q, 0, sizeof(*q));
	return q;
}

static int parse_qp_entry(struct parse *p, const struct nlattr *entry, const char *dev)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_RES_KERN_NAME + 1] = { 0 };
	struct fab_qp q = { .type = -1, .state = -1 };
	if (walk_attrs(p, nla_data(entry), nla_len(entry), "RES_QP_ENTRY nest", tb,
		       RDMA_NLDEV_ATTR_RES_KERN_NAME) < 0)
		return -1;
	if (!tb[RDMA_NLDEV_ATTR_RES_LQPN])
		return fail(p, entry, "QP entry without LQPN");
	fab_strlcpy(q.dev, dev, sizeof(q.dev));
	if (get_u32(p, tb[RDMA_NLDEV_ATTR_RES_LQPN], "LQPN", &q.lqpn) < 0)
		return -1;
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX] &&
	    get_u32(p, tb[RDMA_NLDEV_ATTR_PORT_INDEX], "PORT_INDEX", &q.port) < 0)
		return -1;
	if (tb[RDMA_NLDEV_ATTR_RES_RQPN]) {
		if (get_u32(p, tb[RDMA_NLDEV_ATTR_RES_RQPN], "RQPN", &q.rqpn) < 0)
			return -1;
		q.has_rqpn = true;
	}
	if (tb[RDMA_NLDEV_ATTR_RES_TYPE] &&
	    get_u8(p, tb[RDMA_NLDEV_ATTR_RES_TYPE], "TYPE", &q.type) < 0)
		return -1;
	if (tb[RDMA_NLDEV_ATTR_RES_STATE] &&
	    get_u8(p, tb[RDMA_NLDEV_ATTR_RES_STATE], "STATE", &q.state) < 0)
		return -1;
	if (tb[RDMA_NLDEV_ATTR_RES_PID] &&
	    get_u32(p, tb[RDMA_NLDEV_ATTR_RES_PID], "PID", &q.pid) < 0)
		return -1;
	if (tb[RDMA_NLDEV_ATTR_RES_KERN_NAME] &&
	    get_str(p, tb[RDMA_NLDEV_ATTR_RES_KERN_NAME], "KERN_NAME", q.comm, sizeof(q.comm)) < 0)
		return -1;
	struct fab_qp *slot = qp_add(p->qps);
	if (!slot)
		return fail(p, entry, "out of memory after %d QPs", p->qps->n);
	*slot = q;
	return 0;
}

static int parse_qp_msg(struct parse *p, const struct nlmsghdr *h)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_RES_QP + 1] = { 0 };
	char dev[64] = "";
	if (walk_attrs(p, nlmsg_attrdata(h, 0), nlmsg_attrlen(h, 0), "message", tb,
		       RDMA_NLDEV_ATTR_RES_QP) < 0)
		return -1;
	if (tb[RDMA_NLDEV_ATTR_DEV_NAME] &&
	    get_str(p, tb[RDMA_NLDEV_ATTR_DEV_NAME], "DEV_NAME", dev, sizeof(dev)) < 0)
		return -1;
	const struct nlattr *table = tb[RDMA_NLDEV_ATTR_RES_QP];
	if (!table)
		return 0;
	if (!dev[0])
		return fail(p, table, "QP table without a DEV_NAME");
	const struct nlattr *e = nla_data(table);
	int rem = nla_len(table);
	for (; nla_ok(e, rem); e = nla_next(e, &rem))
		if (nla_type(e) == RDMA_NLDEV_ATTR_RES_QP_ENTRY && parse_qp_entry(p, e, dev) < 0)
			return -1;
	return walk_end(p, e, rem, "RES_QP table");
}

static int parse_dev_msg(struct parse *p, const struct nlmsghdr *h)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_DEV_NAME + 1] = { 0 };
	struct dev_ref d = { 0 };
	if (walk_attrs(p, nlmsg_attrdata(h, 0), nlmsg_attrlen(h, 0), "message", tb,
		       RDMA_NLDEV_ATTR_DEV_NAME) < 0)
		return -1;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return fail(p, h, "device without DEV_INDEX or DEV_NAME");
	if (get_u32(p, tb[RDMA_NLDEV_ATTR_DEV_INDEX], "DEV_INDEX", &d.index) < 0 ||
	    get_str(p, tb[RDMA_NLDEV_ATTR_DEV_NAME], "DEV_NAME", d.name, sizeof(d.name)) < 0)
		return -1;
	struct dev_list *l = p->devs;
	if (l->n == l->cap) {
		int ncap = l->cap ? l->cap * 2 : 16;
		struct dev_ref *v = realloc(l->v, (size_t)ncap * sizeof(*v));
		if (!v)
			return fail(p, h, "out of memory");
		l->v = v;
		l->cap = ncap;
	}
	l->v[l->n++] = d;
	return 0;
}

/* The kernel's negative errno, spelled; INT_MIN has no positive int. */
static const char *errno_text(int neg, int *e)
{
	*e = neg == INT_MIN ? EINVAL : -neg;
	return strerror(*e);
}

/* Walks the messages of buf (4-byte aligned). A recorded file holds one dump
 * per device back to back, so parsing goes on after NLMSG_DONE; returns 1
 * when the last message was NLMSG_DONE (every dump in buf is complete). */
static int parse_msgs(struct parse *p, const unsigned char *buf, size_t len)
{
	size_t pos = 0;
	int ended = 0;
	p->base = buf;
	while (pos < len) {
		const struct nlmsghdr *h = (const void *)(buf + pos);
		size_t left = len - pos;
		if (left < NLMSG_HDRLEN)
			return fail(p, h, "truncated netlink header (%zu of 16 bytes)", left);
		if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > INT_MAX)
			return fail(p, h, "netlink message with nlmsg_len %u", h->nlmsg_len);
		if (h->nlmsg_len > left)
			return fail(p, h, "truncated netlink message (nlmsg_len %u, %zu bytes left)",
				    h->nlmsg_len, left);
		int payload = (int)h->nlmsg_len - NLMSG_HDRLEN;
		const int *code = nlmsg_data(h);
		int e;
		ended = 0;
		switch (h->nlmsg_type) {
		case NLMSG_NOOP:
			break;
		case NLMSG_DONE:
			/* Errors the dump callback returns arrive here, not as NLMSG_ERROR. */
			if (payload >= (int)sizeof(int) && *code < 0) {
				const char *s = errno_text(*code, &e);
				p->kernel_errno = e;
				return fail(p, h, "the kernel ended the dump with an error: %s (errno %d)", s, e);
			}
			ended = 1;
			break;
		case NLMSG_ERROR:
			if (payload < (int)sizeof(int))
				return fail(p, h, "truncated NLMSG_ERROR (%d payload bytes)", payload);
			if (*code != 0) {
				const char *s = errno_text(*code, &e);
				p->kernel_errno = e;
				return fail(p, h, "netlink error reply: %s (errno %d)", s, e);
			}
			ended = 1;      /* an acknowledgement */
			break;
		case NLMSG_OVERRUN:
			return fail(p, h, "netlink overrun: the kernel dropped messages");
		default:
			if (h->nlmsg_type != p->want)
				return fail(p, h, "unexpected netlink message type 0x%x (wanted 0x%x)",
					    h->nlmsg_type, p->want);
			if ((p->qps ? parse_qp_msg(p, h) : parse_dev_msg(p, h)) < 0)
				return -1;
		}
		size_t step = NLMSG_ALIGN((size_t)h->nlmsg_len);
		pos += step < left ? step : left;
	}
	return ended;
}

/* Netlink headers are read in place: copy an unaligned buffer first. */
static int parse_aligned(struct parse *p, const void *buf, size_t len)
{
	if (((uintptr_t)buf & (NLMSG_ALIGNTO - 1)) == 0)
		return parse_msgs(p, buf, len);
	unsigned char *copy = malloc(len ? len : 1);
	if (!copy) {
		p->base = buf;
		return fail(p, buf, "out of memory");
	}
	memcpy(copy, buf, len);
	int rc = parse_msgs(p, copy, len);
	free(copy);
	return rc;
}

static int parse_qp_bytes(const void *buf, size_t len, struct fab_qp_list *out,
			  int *kernel_errno, char *err, size_t errlen)
{
	struct parse p = { .want = QP_MSG_TYPE, .qps = out, .err = err, .errlen = errlen };
	if (!buf || len == 0)
		return 0;
	int rc = parse_aligned(&p, buf, len);
	if (rc >= 0)
		out->done = rc == 1;
	if (kernel_errno)
		*kernel_errno = p.kernel_errno;
	return rc;
}

int rdma_res_parse_qp(const void *buf, size_t len, struct fab_qp_list *out,
		      char *err, size_t errlen)
{
	return parse_qp_bytes(buf, len, out, NULL, err, errlen);
}

/* ---- names ---- */

const char *qp_state_name(int state)
{
	static const char *const names[] = {
		[QPS_RESET] = "RESET", [QPS_INIT] = "INIT", [QPS_RTR] = "RTR", [QPS_RTS] = "RTS",
		[QPS_SQD] = "SQD", [QPS_SQE] = "SQE", [QPS_ERR] = "ERR",
	};
	return state >= 0 && state < (int)(sizeof(names) / sizeof(names[0])) ? names[state] : "?";
}

const char *qp_type_name(int type)
{
	/* enum ib_qp_type; 7 is unused */
	static const char *const names[] = {
		"SMI", "GSI", "RC", "UC", "UD", "RAW_IPV6", "RAW_ETHERTYPE", NULL,
		"RAW_PACKET", "XRC_INI", "XRC_TGT",
	};
	if (type >= 0 && type < (int)(sizeof(names) / sizeof(names[0])) && names[type])
		return names[type];
	/* IB_QPT_DRIVER is 0xFF on the wire; 0x1000+ are the drivers' own types */
	if (type == 0xFF || type >= 0x1000)
		return "DRIVER";
	return "?";
}

bool qp_state_bad(int state)
{
	return state == QPS_ERR || state == QPS_SQE;
}

void qp_list_free(struct fab_qp_list *l)
{
	if (!l)
		return;
	free(l->qps);
	memset(l, 0, sizeof(*l));
}

/* ---- process names ---- */

static void fill_comms(const struct fab_root *r, struct fab_qp_list *l)
{
	for (int i = 0; i < l->n; i++) {
		struct fab_qp *q = &l->qps[i];
		if (!q->pid || q->comm[0])
			continue;
		/* a process owns many QPs, dumped next to each other */
		if (i > 0 && l->qps[i - 1].pid == q->pid) {
			memcpy(q->comm, l->qps[i - 1].comm, sizeof(q->comm));
			continue;
		}
		char path[64], line[sizeof(q->comm)];
		snprintf(path, sizeof(path), "/proc/%u/comm", q->pid);
		if (root_read_line(r, path, line, sizeof(line)) == 0)
			memcpy(q->comm, line, sizeof(q->comm));
	}
}

/* ---- live: RDMA netlink through libnl ---- */

static int nl_open(struct nl_sock **skp, char *err, size_t errlen)
{
	struct nl_sock *sk = nl_socket_alloc();
	if (!sk) {
		snprintf(err, errlen, "RDMA netlink unavailable: out of memory");
		return -ENOMEM;
	}
	errno = 0;
	int rc = nl_connect(sk, NETLINK_RDMA);
	if (rc < 0) {
		/* libnl folds the socket() errno into its own codes; the errno says more */
		int e = errno ? errno : EPROTONOSUPPORT;
		snprintf(err, errlen, "RDMA netlink unavailable: %s", errno ? strerror(e) : nl_geterror(rc));
		nl_socket_free(sk);
		return -e;
	}
	/* a kernel that never finishes a dump must not hang the TUI */
	struct timeval tv = { .tv_sec = 2 };
	setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	*skp = sk;
	return 0;
}

static int send_dump(struct nl_sock *sk, int cmd, const struct dev_ref *dev)
{
	struct nl_msg *m = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd),
					      NLM_F_REQUEST | NLM_F_DUMP);
	if (!m)
		return -NLE_NOMEM;
	int rc = dev ? nla_put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, dev->index) : 0;
	if (rc >= 0)
		rc = nl_send_auto(sk, m);
	nlmsg_free(m);
	return rc;
}

struct bytes {
	unsigned char *v;
	size_t n, cap;
};

static int bytes_add(struct bytes *b, const void *data, size_t len)
{
	if (b->n + len > b->cap) {
		size_t ncap = b->cap ? b->cap : 16384;
		while (ncap < b->n + len)
			ncap *= 2;
		unsigned char *v = realloc(b->v, ncap);
		if (!v)
			return -1;
		b->v = v;
		b->cap = ncap;
	}
	memcpy(b->v + b->n, data, len);
	b->n += len;
	return 0;
}

/* Receives one dump until its NLMSG_DONE, parsing each datagram with p and
 * appending the raw bytes to keep (when not NULL). 0, or -errno with err. */
static int recv_dump(struct nl_sock *sk, struct parse *p, struct bytes *keep,
		     const char *what, char *err, size_t errlen)
{
	for (;;) {
		struct sockaddr_nl from;
		unsigned char *data = NULL;
		int n = nl_recv(sk, &from, &data, NULL);
		if (n <= 0) {
			free(data);
			snprintf(err, errlen, "RDMA netlink: %s: %s", what,
				 n == 0 ? "no answer within 2 s" : nl_geterror(n));
			return n == 0 ? -ETIMEDOUT : -EIO;
		}
		char perr[256] = "";
		p->err = perr;
		p->errlen = sizeof(perr);
		int rc = parse_aligned(p, data, (size_t)n);
		if (rc >= 0 && keep && bytes_add(keep, data, (size_t)n) < 0) {
			snprintf(perr, sizeof(perr), "out of memory");
			rc = -1;
		}
		free(data);
		if (rc < 0) {
			snprintf(err, errlen, "RDMA netlink: %s: %s", what, perr);
			return p->kernel_errno ? -p->kernel_errno : -EBADMSG;
		}
		if (rc == 1)
			return 0;
	}
}

int rdma_res_dump_bytes(unsigned char **buf, size_t *len, char *err, size_t errlen)
{
	struct nl_sock *sk = NULL;
	struct dev_list devs = { 0 };
	struct bytes all = { 0 };
	int rc, ok = 0, first_err = 0;
	char derr[384] = "";

	*buf = NULL;
	*len = 0;
	if ((rc = nl_open(&sk, err, errlen)) < 0)
		return rc;
	struct parse pd = { .want = DEV_MSG_TYPE, .devs = &devs };
	if ((rc = send_dump(sk, RDMA_NLDEV_CMD_GET, NULL)) < 0) {
		snprintf(err, errlen, "RDMA netlink: cannot ask for the devices: %s", nl_geterror(rc));
		rc = -EIO;
		goto out;
	}
	if ((rc = recv_dump(sk, &pd, NULL, "device list", err, errlen)) < 0)
		goto out;
	for (int i = 0; i < devs.n; i++) {
		/* validated per device: a device that vanished since the list is left out */
		struct fab_qp_list scratch = { 0 };
		struct parse pq = { .want = QP_MSG_TYPE, .qps = &scratch };
		size_t mark = all.n;
		char what[96];
		snprintf(what, sizeof(what), "QPs of %s", devs.v[i].name);
		int r = send_dump(sk, RDMA_NLDEV_CMD_RES_QP_GET, &devs.v[i]);
		if (r < 0) {
			snprintf(derr, sizeof(derr), "RDMA netlink: %s: cannot ask: %s", what, nl_geterror(r));
			r = -EIO;
		} else {
			r = recv_dump(sk, &pq, &all, what, derr, sizeof(derr));
		}
		qp_list_free(&scratch);
		if (r < 0) {
			all.n = mark;
			if (!first_err) {
				first_err = r;
				snprintf(err, errlen, "%s", derr);
			}
			/* the kernel ended that dump; anything else leaves the socket out of step */
			if (!pq.kernel_errno)
				break;
			continue;
		}
		ok++;
	}
	if (devs.n > 0 && ok == 0) {
		rc = first_err;
		goto out;
	}
	*buf = all.v;
	*len = all.n;
	all.v = NULL;
	rc = 0;
out:
	free(all.v);
	free(devs.v);
	nl_socket_free(sk);
	return rc;
}

static const struct fab_root live_root = { .live = true, .name = "live" };

int rdma_res_query_qp(struct fab_qp_list *out, char *err, size_t errlen)
{
	unsigned char *buf;
	size_t len;
	int rc = rdma_res_dump_bytes(&buf, &len, err, errlen);
	if (rc < 0)
		return rc;
	int ke = 0;
	rc = parse_qp_bytes(buf, len, out, &ke, err, errlen);
	free(buf);
	if (rc < 0)
		return ke ? -ke : -EBADMSG;
	out->done = true;
	fill_comms(&live_root, out);
	return 0;
}

/* ---- captures ---- */

int rdma_res_from_root(const struct fab_root *r, struct fab_qp_list *out,
		       char *err, size_t errlen)
{
	if (r->live)
		return rdma_res_query_qp(out, err, errlen);
	const char *path = "/fabtop/rdma-qp.bin";
	char perr[256] = "", *buf = NULL;
	size_t len = 0;
	/* root_read() stops at 1 MiB; a busy node's dump can be larger */
	int rc = root_read_alloc(r, path, &buf, &len);
	if (rc == -ENOENT) {
		snprintf(err, errlen, "not recorded in this capture");
		return rc;
	}
	if (rc < 0) {
		if (rc == -EFBIG)
			snprintf(err, errlen, "cannot read %s: larger than %zu MiB", path,
				 root_file_cap(path) >> 20);
		else
			snprintf(err, errlen, "cannot read %s: %s", path, root_strerror(-rc));
		return rc;
	}
	rc = parse_qp_bytes((unsigned char *)buf, len, out, NULL, perr, sizeof(perr));
	free(buf);
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", path, perr);
		return -EBADMSG;
	}
	fill_comms(r, out);
	return 0;
}
