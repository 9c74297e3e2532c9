/*
 * mtu_probe.c - the path-MTU probe (see mtu_probe.h for the contract and the
 * search strategy). Unprivileged: UDP, DF through IP_PMTUDISC_PROBE, answers
 * from the socket's error queue (IP_RECVERR), as tracepath does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/errqueue.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "mtu_probe.h"
#include "fabtop/i18n.h"
#include "fabtop/util.h"

/* traceroute's ports. Each probe goes to the next one so that a late answer
 * to an earlier probe (the error queue returns the port it was sent to)
 * cannot be taken for the answer to the current one. */
#define PROBE_PORT 33434
_Static_assert(MTU_MAX_PROBES <= 100, "probes stay within traceroute's 100 ports");

#define IP_MAX_PACKET 65535

/* The shortest wait for a loss once round trips are known. */
#define SHORT_TIMEOUT_MIN 0.1
/* Linux answers "port unreachable" to one source a burst of 6 times, then
 * once a second (net.ipv4.icmp_ratelimit 1000 ms; IPv6 is faster). A loss
 * decides the verdict only when the probe went out this long after the
 * peer's last answer (or, before any, after our last probe: answers to
 * another run or tool may have used the burst), so the peer could answer. */
#define RATE_GAP 1.0

/* Common link MTUs, most likely first: 1500 (a 9000 path crossing a
 * default-MTU hop, seed section 9), VXLAN over 9000 and over 1500, RoCE's
 * 4096 payload plus headers, PPPoE, WireGuard. The search tries a few of
 * these before halving, and confirms a hit with one probe above it, so the
 * usual black hole costs one loss in the search instead of eight. */
static const int plateaus[] = { 1500, 8950, 4200, 1450, 1492, 1420, 1400, 4096, 2048 };
#define MAX_PLATEAU_TRIES 3

struct prober {
	int fd, family, overhead;          /* IP + UDP header bytes */
	struct sockaddr_storage dst;
	socklen_t dlen;
	double timeout_s;
	int retries;
	unsigned char *payload;            /* zeros, largest size */
	struct mtu_result *r;
	double sent_at[MTU_MAX_PROBES];    /* per record: when it was sent */
	bool gap[MTU_MAX_PROBES];          /* ... when the peer had an answer to give (RATE_GAP) */
	bool full[MTU_MAX_PROBES];         /* ... and waited the full timeout */
	double waited_ms;                  /* how long the current probe waits */
	double last_reached;               /* when the peer last answered (0: never) */
	double last_sent;                  /* when the last probe went out (0: none yet) */
	bool paced;                        /* a size reached after a smaller one was lost */
	const _Atomic bool *cancel;        /* mtu_opts.cancel */
};

static bool cancelled(const struct prober *p)
{
	return p->cancel && atomic_load(p->cancel);
}

const char *mtu_verdict_name(enum mtu_verdict v)
{
	switch (v) {
	case MTU_OK: return "mtu-ok";
	case MTU_PATH_LOWER: return "mtu-path-lower";
	case MTU_BLACKHOLE: return "mtu-blackhole";
	case MTU_UNREACHABLE: return "unreachable";
	case MTU_ERROR: break;
	}
	return "error";
}

const char *mtu_outcome_name(enum mtu_probe_outcome o)
{
	switch (o) {
	case PROBE_REACHED: return "reached";
	case PROBE_FRAG_NEEDED: return "frag-needed";
	case PROBE_TIMEOUT: return "timeout";
	case PROBE_LOCAL_TOO_BIG: return "local-too-big";
	case PROBE_ERROR: break;
	}
	return "error";
}

void mtu_probe_rec_str(const struct mtu_probe_rec *p, char *buf, size_t len)
{
	char what[160];
	switch (p->outcome) {
	case PROBE_REACHED:
		snprintf(what, sizeof(what), "reached %s", p->from);
		break;
	case PROBE_FRAG_NEEDED:
		snprintf(what, sizeof(what), "frag-needed from %s mtu %d", p->from, p->reported_mtu);
		break;
	case PROBE_LOCAL_TOO_BIG:
		snprintf(what, sizeof(what), "local error: message too long, mtu %d", p->reported_mtu);
		break;
	case PROBE_TIMEOUT:
		snprintf(what, sizeof(what), "no answer");
		break;
	case PROBE_ERROR:
		if (p->err == ECONNREFUSED) {   /* from a hop: the peer's own would be "reached" */
			snprintf(what, sizeof(what), "port unreachable from %s, not the peer", p->from);
			break;
		}
		snprintf(what, sizeof(what), "%s%s%s", strerror(p->err),
			 p->from[0] ? " from " : "", p->from);
		break;
	}
	snprintf(buf, len, "%d bytes: %s (%.1f ms%s)", p->size, what, p->ms, p->late ? ", late" : "");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static uint16_t get_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

static void addr_text(const struct sockaddr *sa, char *buf, size_t len)
{
	buf[0] = '\0';
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, len);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf, len);
}

/* Whether an ICMP error came from the peer itself: a firewall on the way
 * that rejects the probe with "port unreachable" must not count as the
 * peer's answer. */
static bool same_addr(const struct sockaddr *off, const struct sockaddr_storage *peer)
{
	if (off->sa_family != peer->ss_family)
		return false;
	if (off->sa_family == AF_INET)
		return !memcmp(&((const struct sockaddr_in *)off)->sin_addr,
			       &((const struct sockaddr_in *)peer)->sin_addr, sizeof(struct in_addr));
	if (off->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)off)->sin6_addr,
			       &((const struct sockaddr_in6 *)peer)->sin6_addr, sizeof(struct in6_addr));
	return false;
}

/* The interface the kernel routes dst through: RTM_GETROUTE, as `ip route
 * get` asks (answers unprivileged, in the caller's namespace, and names the
 * real egress where the source address lives on another interface, e.g. a
 * loopback address on routed fabrics). ifindex > 0, or -errno. */
static int route_oif(const struct sockaddr_storage *dst)
{
	struct {
		struct nlmsghdr n;
		struct rtmsg r;
		char attrs[64];
	} req;
	memset(&req, 0, sizeof(req));
	int alen = dst->ss_family == AF_INET ? 4 : 16;
	const void *a = dst->ss_family == AF_INET
		? (const void *)&((const struct sockaddr_in *)dst)->sin_addr
		: (const void *)&((const struct sockaddr_in6 *)dst)->sin6_addr;
	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	req.n.nlmsg_type = RTM_GETROUTE;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.n.nlmsg_seq = 1;
	req.r.rtm_family = (unsigned char)dst->ss_family;
	req.r.rtm_dst_len = (unsigned char)(alen * 8);
	struct rtattr *rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.n.nlmsg_len));
	rta->rta_type = RTA_DST;
	rta->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(rta), a, (size_t)alen);
	req.n.nlmsg_len = NLMSG_ALIGN(req.n.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	/* Policy routing by uid (ip rule uidrange) must see the prober's uid. */
	rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.n.nlmsg_len));
	rta->rta_type = RTA_UID;
	rta->rta_len = (unsigned short)RTA_LENGTH(sizeof(uint32_t));
	uint32_t uid = (uint32_t)getuid();
	memcpy(RTA_DATA(rta), &uid, sizeof(uid));
	req.n.nlmsg_len = NLMSG_ALIGN(req.n.nlmsg_len) + RTA_ALIGN(rta->rta_len);

	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	int ret = -EIO;
	if (sendto(fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		ret = -errno;
		goto out;
	}
	struct timeval tv = { .tv_sec = 1 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0) {
		ret = -errno;
		goto out;
	}
	for (size_t off = 0; off + sizeof(struct nlmsghdr) <= (size_t)n;) {
		struct nlmsghdr *h = (struct nlmsghdr *)(buf + off);
		if (h->nlmsg_len < sizeof(*h) || h->nlmsg_len > (size_t)n - off)
			break;
		off += NLMSG_ALIGN(h->nlmsg_len);
		if (h->nlmsg_type == NLMSG_ERROR) {
			if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				ret = e->error ? e->error : -EIO;
			}
			break;
		}
		if (h->nlmsg_type != RTM_NEWROUTE || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
			continue;
		int rlen = (int)RTM_PAYLOAD(h);
		for (struct rtattr *at = RTM_RTA(NLMSG_DATA(h)); RTA_OK(at, rlen); at = RTA_NEXT(at, rlen))
			if (at->rta_type == RTA_OIF && RTA_PAYLOAD(at) >= sizeof(int)) {
				int idx;
				memcpy(&idx, RTA_DATA(at), sizeof(idx));
				ret = idx > 0 ? idx : -ENODEV;
			}
		break;
	}
out:
	close(fd);
	return ret;
}

/* Fallback when route netlink is unavailable: the interface that holds the
 * source address the kernel chose for the connected socket. */
static bool source_iface(int fd, char *name, size_t len)
{
	struct sockaddr_storage me;
	socklen_t ml = sizeof(me);
	struct ifaddrs *ifs;
	bool found = false;
	if (getsockname(fd, (struct sockaddr *)&me, &ml) < 0 || getifaddrs(&ifs) < 0)
		return false;
	for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != me.ss_family)
			continue;
		if (me.ss_family == AF_INET)
			found = !memcmp(&((struct sockaddr_in *)i->ifa_addr)->sin_addr,
					&((struct sockaddr_in *)&me)->sin_addr, sizeof(struct in_addr));
		else
			found = !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
					&((struct sockaddr_in6 *)&me)->sin6_addr, sizeof(struct in6_addr));
		if (found)
			fab_strlcpy(name, i->ifa_name, len);
	}
	freeifaddrs(ifs);
	return found;
}

static int iface_mtu(int fd, const char *name)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	fab_strlcpy(ifr.ifr_name, name, sizeof(ifr.ifr_name));
	return ioctl(fd, SIOCGIFMTU, &ifr) == 0 ? ifr.ifr_mtu : 0;
}

/* The kernel's MTU for the connected route: the cached path MTU when an
 * ICMP frag-needed was received for this peer, else the route or device MTU. */
static int route_mtu(const struct prober *p)
{
	int mtu = 0;
	socklen_t l = sizeof(mtu);
	if (p->family == AF_INET)
		getsockopt(p->fd, IPPROTO_IP, IP_MTU, &mtu, &l);
	else
		getsockopt(p->fd, IPPROTO_IPV6, IPV6_MTU, &mtu, &l);
	return mtu;
}

/* Reads one entry of the error queue into the record of the probe it
 * answers, found by the port it was sent to. An answer to a probe already
 * given up is still recorded (late): the search reads its bounds from the
 * records, so a late "reached" or frag-needed is not lost. Returns the
 * record's index, -1 for an entry that answers none, -2 when the queue is
 * empty. */
static int read_err(struct prober *p)
{
	struct mtu_result *r = p->r;
	unsigned char data[64];
	char cbuf[512] __attribute__((aligned(8)));
	struct sockaddr_storage from;
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr m = {
		.msg_name = &from, .msg_namelen = sizeof(from),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	memset(&from, 0, sizeof(from));
	if (recvmsg(p->fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
		return -2;
	const struct sock_extended_err *ee = NULL;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
		    (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR))
			ee = (const struct sock_extended_err *)CMSG_DATA(c);
	int idx = (int)get_port(&from) - PROBE_PORT;
	if (!ee || idx < 0 || idx >= r->nprobes)
		return -1;
	struct mtu_probe_rec *rec = &r->probes[idx];
	if (rec->outcome != PROBE_TIMEOUT)
		return -1;      /* a second answer (a duplicate): the first stands */
	const struct sockaddr *off = SO_EE_OFFENDER(ee);
	if (off->sa_family == AF_INET || off->sa_family == AF_INET6)
		addr_text(off, rec->from, sizeof(rec->from));
	if (ee->ee_origin == SO_EE_ORIGIN_LOCAL) {
		if (ee->ee_errno == EMSGSIZE) {
			rec->outcome = PROBE_LOCAL_TOO_BIG;
			rec->reported_mtu = (int)ee->ee_info;
		} else {
			rec->outcome = PROBE_ERROR;
			rec->err = (int)ee->ee_errno;
		}
	} else if (ee->ee_errno == ECONNREFUSED && same_addr(off, &p->dst)) {
		rec->outcome = PROBE_REACHED;   /* port unreachable: the peer's own answer */
	} else if (ee->ee_errno == EMSGSIZE) {
		rec->outcome = PROBE_FRAG_NEEDED;
		rec->reported_mtu = (int)ee->ee_info;
	} else {
		rec->outcome = PROBE_ERROR;     /* host/net unreachable, prohibited, ... */
		rec->err = (int)ee->ee_errno;
	}
	rec->ms = (now_s() - p->sent_at[idx]) * 1e3;
	rec->late = idx != r->nprobes - 1 || rec->ms > p->waited_ms;
	if (rec->outcome == PROBE_REACHED)
		p->last_reached = now_s();
	return idx;
}

/* Records answers that came after their probe was given up, and clears the
 * socket error they left pending (the next send() would fail with it). */
static void drain(struct prober *p)
{
	while (read_err(p) != -2)
		;
	int e;
	socklen_t l = sizeof(e);
	getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &e, &l);
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Sends one packet of size bytes (a whole IP packet) and waits up to
 * timeout_s for its answer. gap: first waits until the peer can answer
 * again (RATE_GAP). */
static void probe_once(struct prober *p, int size, double timeout_s, bool gap)
{
	struct mtu_result *r = p->r;
	int idx = r->nprobes;
	struct mtu_probe_rec *rec = &r->probes[idx];
	memset(rec, 0, sizeof(*rec));
	rec->size = size;
	rec->outcome = PROBE_TIMEOUT;
	if (cancelled(p)) {   /* unsent: the search runs out at once */
		r->nprobes++;
		return;
	}
	drain(p);
	if (gap && !cancelled(p)) {
		double since = p->last_reached ? p->last_reached : p->last_sent;
		double wait = since ? since + RATE_GAP - now_s() : 0;
		if (wait > 0)
			sleep_s(wait);
		drain(p);
	}
	double since = p->last_reached ? p->last_reached : p->last_sent;
	r->nprobes++;
	p->gap[idx] = !since || now_s() - since >= RATE_GAP;
	p->full[idx] = timeout_s >= p->timeout_s;
	p->waited_ms = timeout_s * 1e3;
	set_port(&p->dst, (uint16_t)(PROBE_PORT + idx));
	double t0 = p->sent_at[idx] = p->last_sent = now_s();
	if (connect(p->fd, (struct sockaddr *)&p->dst, p->dlen) < 0) {
		rec->outcome = PROBE_ERROR;
		rec->err = errno;
		return;
	}
	if (send(p->fd, p->payload, (size_t)(size - p->overhead), 0) < 0) {
		int err = errno;
		/* The refusal is queued too (IP_RECVERR), with the limit in ee_info. */
		int got;
		while ((got = read_err(p)) != -2 && got != idx)
			;
		if (rec->outcome == PROBE_TIMEOUT) {
			rec->outcome = err == EMSGSIZE ? PROBE_LOCAL_TOO_BIG : PROBE_ERROR;
			rec->err = err == EMSGSIZE ? 0 : err;
			rec->reported_mtu = err == EMSGSIZE ? route_mtu(p) : 0;
		}
		rec->ms = (now_s() - t0) * 1e3;
		rec->late = false;
		return;
	}
	double deadline = t0 + timeout_s;
	while (rec->outcome == PROBE_TIMEOUT) {
		double left = deadline - now_s();
		if (left <= 0 || cancelled(p))
			break;
		/* Slices of 0.1 s at most, so a cancel is seen soon. */
		struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
		int pr = poll(&pfd, 1, left > 0.1 ? 100 : (int)(left * 1e3) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0)
			continue;
		if (pr < 0)
			break;
		if (pfd.revents & POLLERR)
			while (read_err(p) != -2)
				;
		char b[16];
		if ((pfd.revents & POLLIN) && recv(p->fd, b, sizeof(b), MSG_DONTWAIT) >= 0) {
			/* A service listens on the port and replied: the probe arrived. */
			rec->outcome = PROBE_REACHED;
			fab_strlcpy(rec->from, r->addr, sizeof(rec->from));
			p->last_reached = now_s();
		}
	}
	if (rec->outcome == PROBE_TIMEOUT || !rec->ms)
		rec->ms = (now_s() - t0) * 1e3;
}

static void say_unreachable(struct mtu_result *r, int min)
{
	/* The last definite answer, if any, says why (host unreachable from a router). */
	for (int i = r->nprobes - 1; i >= 0; i--)
		if (r->probes[i].outcome == PROBE_ERROR && r->probes[i].err == ECONNREFUSED) {
			snprintf(r->message, sizeof(r->message),
				 _("nothing reached %s: port unreachable from %s, not the peer: "
				 "something on the way rejects UDP to ports %d+ (%d probes)"),
				 r->addr, r->probes[i].from, PROBE_PORT, r->nprobes);
			return;
		} else if (r->probes[i].outcome == PROBE_ERROR) {
			snprintf(r->message, sizeof(r->message),
				 _("nothing reached %s: %s%s%s (%d probes)"), r->addr,
				 strerror(r->probes[i].err), r->probes[i].from[0] ? _(" from ") : "",
				 r->probes[i].from, r->nprobes);
			return;
		}
	snprintf(r->message, sizeof(r->message),
		 _("nothing reached %s: no answer to %d probes down to %d bytes, not even an ICMP error"),
		 r->addr, r->nprobes, min);
}

/* What the records say so far. lo: the largest size that reached (0: none);
 * hi: the smallest larger size that did not (max + 1: none); hint: the
 * smallest MTU a hop (or our kernel, local) reported, the next thing to try. */
struct bounds {
	int lo, hi, hint;
	bool hint_local, hint_sent;
};

/* Once the peer is known to drop answers, only losses it could have
 * answered count. */
static bool counts(const struct prober *p, int i)
{
	return p->r->probes[i].outcome != PROBE_TIMEOUT || !p->paced || p->gap[i];
}

static void read_bounds(const struct prober *p, int max, struct bounds *b)
{
	const struct mtu_result *r = p->r;
	memset(b, 0, sizeof(*b));
	b->hi = max + 1;
	for (int i = 0; i < r->nprobes; i++)
		if (r->probes[i].outcome == PROBE_REACHED && r->probes[i].size > b->lo)
			b->lo = r->probes[i].size;
	for (int i = 0; i < r->nprobes; i++) {
		const struct mtu_probe_rec *q = &r->probes[i];
		/* A loss at or below a size that reached was not the size's fault. */
		if (q->outcome != PROBE_REACHED && counts(p, i) && q->size > b->lo && q->size < b->hi)
			b->hi = q->size;
		bool told = q->outcome == PROBE_FRAG_NEEDED || q->outcome == PROBE_LOCAL_TOO_BIG;
		int m = q->reported_mtu;
		if (told && m >= 68 && m < q->size && (!b->hint || m < b->hint)) {
			b->hint = m;
			b->hint_local = q->outcome == PROBE_LOCAL_TOO_BIG;
		}
	}
	for (int i = 0; i < r->nprobes; i++)
		if (r->probes[i].size == b->hint && counts(p, i))
			b->hint_sent = true;
}

/* The size d that decides the verdict is settled when something answered it
 * (frag-needed, an ICMP error), or it was lost 1 + retries times, once at
 * least when the peer could answer and with the full timeout (the other
 * losses may have been answers that were slow, or that the peer's rate
 * limit held back). */
static bool settled(const struct prober *p, int d)
{
	int lost = 0, trusted = 0;
	for (int i = 0; i < p->r->nprobes; i++) {
		const struct mtu_probe_rec *q = &p->r->probes[i];
		if (q->size != d)
			continue;
		if (q->outcome != PROBE_TIMEOUT)
			return true;
		lost++;
		trusted += p->gap[i] && p->full[i];
	}
	return lost >= 1 + p->retries && trusted >= 1;
}

static bool sent_size(const struct mtu_result *r, int s)
{
	for (int i = 0; i < r->nprobes; i++)
		if (r->probes[i].size == s)
			return true;
	return false;
}

/* Once something answered, a loss is called after a few round trips rather
 * than the full timeout; the size that decides is confirmed at the full one. */
static double short_timeout(const struct prober *p)
{
	double rtt = -1;
	for (int i = 0; i < p->r->nprobes; i++) {
		const struct mtu_probe_rec *q = &p->r->probes[i];
		if (q->outcome != PROBE_TIMEOUT && !q->late && q->ms / 1e3 > rtt)
			rtt = q->ms / 1e3;
	}
	if (rtt < 0)
		return p->timeout_s;
	double t = 4 * rtt > SHORT_TIMEOUT_MIN ? 4 * rtt : SHORT_TIMEOUT_MIN;
	return t < p->timeout_s ? t : p->timeout_s;
}

/* The search of mtu_probe.h, its state read back from the records each
 * round. Returns with r->verdict and r->path_mtu set. */
static void search(struct prober *p, int min, int max)
{
	struct mtu_result *r = p->r;
	struct bounds b;
	int s = max, plateau_tries = 0, was_plateau = 0;
	size_t pi = 0;
	bool verify = false;          /* s is the deciding size, sent again */

	for (;;) {
		if (r->nprobes >= MTU_MAX_PROBES)
			break;
		probe_once(p, s, verify ? p->timeout_s : short_timeout(p), verify || p->paced);
		int plateau = was_plateau;
		was_plateau = 0;
		read_bounds(p, max, &b);
		for (int i = 0; i < r->nprobes && !p->paced; i++)
			if (r->probes[i].outcome == PROBE_TIMEOUT && r->probes[i].size <= b.lo)
				p->paced = true;   /* lost, yet a size as large reached */
		if (p->paced)
			read_bounds(p, max, &b);
		if (b.lo == max || (b.hint && b.hint == b.lo))
			break;
		/* Converged: d = hi is the smallest size that did not reach, just
		 * above the largest that did (or at the minimum, none did). */
		if ((b.lo && b.hi == b.lo + 1) || (!b.lo && b.hi <= min)) {
			if (settled(p, b.hi))
				break;
			s = b.hi;
			verify = true;
			continue;
		}
		verify = false;
		if (b.hint && !b.hint_sent && b.hint > b.lo && b.hint < b.hi) {
			s = b.hint;
		} else if (!b.lo) {
			s = min;
		} else if (plateau && b.lo == plateau && plateau + 1 < b.hi && !sent_size(r, plateau + 1)) {
			s = plateau + 1;        /* a common MTU reached: is it the limit? */
		} else {
			s = 0;
			while (plateau_tries < MAX_PLATEAU_TRIES && pi < sizeof(plateaus) / sizeof(plateaus[0])) {
				int q = plateaus[pi++];
				if (q > b.lo && q < b.hi && !sent_size(r, q)) {
					s = was_plateau = q;
					plateau_tries++;
					break;
				}
			}
			if (!s)
				s = b.lo + (b.hi - b.lo) / 2;
		}
	}
	read_bounds(p, max, &b);
	r->path_mtu = b.lo;
	for (int i = 0; i < r->nprobes; i++)   /* the hop that set the hint */
		if (r->probes[i].outcome == PROBE_FRAG_NEEDED && r->probes[i].reported_mtu == b.hint) {
			fab_strlcpy(r->hop, r->probes[i].from, sizeof(r->hop));
			r->hop_mtu = b.hint;
		}
	if (b.lo && b.lo == max)
		r->verdict = MTU_OK;
	else if (b.lo && b.hint == b.lo)
		/* The reported MTU reached: that hop is the bottleneck (our own
		 * kernel's limit at the interface MTU is no finding). */
		r->verdict = b.hint_local && (r->iface_mtu <= 0 || b.lo >= r->iface_mtu)
			? MTU_OK : MTU_PATH_LOWER;
	else
		r->verdict = b.lo ? MTU_BLACKHOLE : MTU_UNREACHABLE;
	if (r->verdict == MTU_BLACKHOLE && b.hi > b.lo + 1)
		snprintf(r->message, sizeof(r->message),
			 _("black hole, %d bytes arrive, %d do not; search stopped after %d probes"),
			 b.lo, b.hi, r->nprobes);
}

static void say_verdict(struct mtu_result *r, int min)
{
	char path[160];
	if (r->egress[0])
		snprintf(path, sizeof(path), _("path to %s via %s (MTU %d)"), r->addr, r->egress, r->iface_mtu);
	else
		snprintf(path, sizeof(path), _("path to %s"), r->addr);
	switch (r->verdict) {
	case MTU_OK:
		snprintf(r->message, sizeof(r->message), _("%s carries %d bytes"), path, r->path_mtu);
		break;
	case MTU_PATH_LOWER:
		if (r->hop[0] && r->hop_mtu == r->path_mtu)
			snprintf(r->message, sizeof(r->message),
				 _("%s: hop %s reports MTU %d (frag-needed), larger packets stop there"),
				 path, r->hop, r->hop_mtu);
		else if (r->hop[0])
			snprintf(r->message, sizeof(r->message),
				 _("%s: hop %s reports MTU %d (frag-needed); %d bytes arrive"),
				 path, r->hop, r->hop_mtu, r->path_mtu);
		else
			snprintf(r->message, sizeof(r->message), _("%s: the kernel sends no more than %d bytes"),
				 path, r->path_mtu);
		break;
	case MTU_BLACKHOLE:
		if (r->message[0]) {   /* the search stopped early and said where */
			char stopped[160];
			fab_strlcpy(stopped, r->message, sizeof(stopped));
			snprintf(r->message, sizeof(r->message), "%s: %s", path, stopped);
			break;
		}
		snprintf(r->message, sizeof(r->message),
			 _("%s: black hole, up to %d bytes arrive, larger ones vanish without an ICMP error"),
			 path, r->path_mtu);
		if (r->hop[0]) {
			size_t l = strlen(r->message);
			snprintf(r->message + l, sizeof(r->message) - l,
				 _("; hop %s reported MTU %d, which did not arrive either"), r->hop, r->hop_mtu);
		}
		break;
	case MTU_UNREACHABLE:
		say_unreachable(r, min);
		break;
	case MTU_ERROR:
		break;
	}
	size_t l = strlen(r->message);
	int dev = r->iface_mtu < IP_MAX_PACKET ? r->iface_mtu : IP_MAX_PACKET;
	if (r->verdict != MTU_UNREACHABLE && r->route_mtu > 0 && r->route_mtu < dev)
		snprintf(r->message + l, sizeof(r->message) - l,
			 _("; the kernel had cached PMTU %d from an earlier ICMP"), r->route_mtu);
	l = strlen(r->message);
	if (r->rate_limited)
		snprintf(r->message + l, sizeof(r->message) - l,
			 _("; the peer rate-limits its answers, probes were paced %.0f s apart"), RATE_GAP);
}

static int fail(struct mtu_result *r, const char *fmt, const char *a, const char *b)
{
	r->verdict = MTU_ERROR;
	snprintf(r->message, sizeof(r->message), fmt, a, b);
	return -1;
}

int mtu_probe(const char *peer, const struct mtu_opts *o, struct mtu_result *r)
{
	static const struct mtu_opts defaults = { 0 };
	double t0 = now_s();
	if (!o)
		o = &defaults;
	memset(r, 0, sizeof(*r));
	r->verdict = MTU_ERROR;
	if (!peer || !peer[0])
		return fail(r, _("no peer given%s%s"), "", "");
	fab_strlcpy(r->peer, peer, sizeof(r->peer));

	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM,
				  .ai_protocol = IPPROTO_UDP, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	int gai = getaddrinfo(peer, "33434", &hints, &ai);
	if (gai)
		return fail(r, _("cannot resolve %s: %s"), peer, gai_strerror(gai));
	struct prober p = { .fd = -1, .r = r, .family = ai->ai_family };
	memcpy(&p.dst, ai->ai_addr, ai->ai_addrlen);
	p.dlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	r->family = p.family;
	addr_text((struct sockaddr *)&p.dst, r->addr, sizeof(r->addr));
	p.overhead = p.family == AF_INET ? 28 : 48;
	p.timeout_s = o->timeout_s > 0 ? o->timeout_s : 1.0;
	p.retries = o->retries < 0 ? 0 : o->retries ? o->retries : 1;
	p.cancel = o->cancel;

	p.fd = socket(p.family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (p.fd < 0)
		return fail(r, _("cannot open a UDP socket: %s%s"), strerror(errno), "");
	/* PROBE: DF set and the kernel's cached path MTU ignored, so every size
	 * really goes out; RECVERR: ICMP answers land in the error queue. */
	int on = 1, pmtu = p.family == AF_INET ? IP_PMTUDISC_PROBE : IPV6_PMTUDISC_PROBE;
	int rc = p.family == AF_INET
		? setsockopt(p.fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) |
		  setsockopt(p.fd, IPPROTO_IP, IP_RECVERR, &on, sizeof(on))
		: setsockopt(p.fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &pmtu, sizeof(pmtu)) |
		  setsockopt(p.fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof(on));
	if (rc) {
		int e = errno;
		close(p.fd);
		return fail(r, _("cannot set DF probing on a UDP socket: %s%s"), strerror(e), "");
	}

	set_port(&p.dst, PROBE_PORT);
	if (connect(p.fd, (struct sockaddr *)&p.dst, p.dlen) < 0) {
		/* No route (or an unreachable/prohibit route): a verdict, not a failure. */
		snprintf(r->message, sizeof(r->message), _("nothing reached %s: no route (%s)"),
			 r->addr, strerror(errno));
		r->verdict = MTU_UNREACHABLE;
		close(p.fd);
		r->elapsed_s = now_s() - t0;
		return 0;
	}
	r->route_mtu = route_mtu(&p);
	char ifname[IF_NAMESIZE] = "";
	int oif = route_oif(&p.dst);
	if ((oif > 0 && if_indextoname((unsigned)oif, ifname)) || source_iface(p.fd, ifname, sizeof(ifname))) {
		fab_strlcpy(r->egress, ifname, sizeof(r->egress));
		r->iface_mtu = iface_mtu(p.fd, ifname);
	}
	if (o->iface && o->iface[0] && r->egress[0] && strcmp(o->iface, r->egress))
		r->wrong_egress = true;

	/* Loopback's 65536 is more than an IP packet can be. */
	int max = o->max > 0 ? o->max : r->iface_mtu > 0 ? r->iface_mtu : r->route_mtu;
	if (o->max <= 0 && max > IP_MAX_PACKET)
		max = IP_MAX_PACKET;
	int min = o->min > 0 ? o->min : p.family == AF_INET ? 576 : 1280;
	if (o->min <= 0 && min > max)
		min = max;
	if (max <= p.overhead || max > IP_MAX_PACKET || min <= p.overhead || min > max) {
		close(p.fd);
		snprintf(r->message, sizeof(r->message),
			 _("cannot probe sizes %d..%d to %s: need %d < min <= max <= 65535"),
			 min, max, r->addr, p.overhead);
		return -1;
	}
	p.payload = calloc(1, (size_t)max);
	if (!p.payload) {
		close(p.fd);
		return fail(r, _("out of memory%s%s"), "", "");
	}
	search(&p, min, max);
	free(p.payload);
	close(p.fd);
	r->rate_limited = p.paced;
	say_verdict(r, min);
	if (r->wrong_egress) {
		size_t l = strlen(r->message);
		snprintf(r->message + l, sizeof(r->message) - l, _("; routed via %s, not %s"),
			 r->egress, o->iface);
	}
	r->elapsed_s = now_s() - t0;
	return 0;
}
