/* job_net.c - the interfaces a process sees: its own network namespace,
 * read without changing anything in it (the ways are listed in job.h).
 *
 * Route netlink is spoken directly (three dumps: links, addresses,
 * routes) because the socket may come from another namespace, handed over
 * by a forked child that entered it with setns(). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "job.h"
#include "fabtop/util.h"

#define NL_TIMEOUT_MS 2000

void job_net_free(struct fab_job_net *net)
{
	free(net->ifs);
	net->ifs = NULL;
	net->nifs = 0;
}

static struct fab_job_if *if_add(struct fab_job_net *net, const char *name)
{
	struct fab_job_if *n = realloc(net->ifs, (size_t)(net->nifs + 1) * sizeof(*n));
	if (!n)
		return NULL;
	net->ifs = n;
	struct fab_job_if *i = &n[net->nifs++];
	memset(i, 0, sizeof(*i));
	fab_strlcpy(i->name, name, sizeof(i->name));
	i->loopback = strcmp(name, "lo") == 0;
	return i;
}

static struct fab_job_if *if_by_index(struct fab_job_net *net, int ifindex)
{
	for (int i = 0; i < net->nifs; i++)
		if (net->ifs[i].ifindex.ok && net->ifs[i].ifindex.v == ifindex)
			return &net->ifs[i];
	return NULL;
}

static struct fab_job_if *if_by_name(struct fab_job_net *net, const char *name)
{
	for (int i = 0; i < net->nifs; i++)
		if (strcmp(net->ifs[i].name, name) == 0)
			return &net->ifs[i];
	return NULL;
}

/* Records one address and what kind it is ("10.0.0.1/24"). */
static void if_addr(struct fab_job_if *i, int family, const void *raw, int plen)
{
	char ip[INET6_ADDRSTRLEN];
	if (!inet_ntop(family, raw, ip, sizeof(ip)))
		return;
	if (family == AF_INET) {
		i->has_v4 = true;
	} else {
		const unsigned char *b = raw;
		static const unsigned char loop6[16] = { [15] = 1 };
		if (memcmp(b, loop6, 16) == 0)
			return;          /* NCCL skips ::1; so does this view */
		if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
			i->has_v6_link = true;
		else
			i->has_v6_global = true;
	}
	if (i->naddrs < JOB_MAX_ADDRS)
		snprintf(i->addrs[i->naddrs++], sizeof(i->addrs[0]), "%s/%d", ip, plen & 0xff);
}

/* ---- route netlink ---- */

typedef void (*nl_cb)(struct nlmsghdr *h, struct fab_job_net *net);

static int nl_dump(int fd, int type, int family, nl_cb cb, struct fab_job_net *net)
{
	static unsigned seq;
	struct {
		struct nlmsghdr h;
		struct rtgenmsg g;
	} req;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtgenmsg));
	req.h.nlmsg_type = (unsigned short)type;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = ++seq;
	req.g.rtgen_family = (unsigned char)family;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	static char buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int pr = poll(&pf, 1, NL_TIMEOUT_MS);
		if (pr == 0)
			return -ETIMEDOUT;
		if (pr < 0 && errno != EINTR)
			return -errno;
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		int len = (int)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != req.h.nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				return h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) ? e->error : -EBADMSG;
			}
			cb(h, net);
		}
	}
}

static void on_link(struct nlmsghdr *h, struct fab_job_net *net)
{
	if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
		return;
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	int alen = (int)IFLA_PAYLOAD(h);
	const char *name = NULL;
	for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, alen); a = RTA_NEXT(a, alen))
		if (a->rta_type == IFLA_IFNAME && RTA_PAYLOAD(a) > 0 &&
		    memchr(RTA_DATA(a), '\0', RTA_PAYLOAD(a)))
			name = RTA_DATA(a);
	if (!name)
		return;
	struct fab_job_if *i = if_add(net, name);
	if (!i)
		return;
	i->ifindex = fab_int_of(ifi->ifi_index);
	i->up = fab_int_of((ifi->ifi_flags & IFF_UP) != 0);
	i->running = fab_int_of((ifi->ifi_flags & IFF_RUNNING) != 0);
	i->loopback = (ifi->ifi_flags & IFF_LOOPBACK) != 0;
}

static void on_addr(struct nlmsghdr *h, struct fab_job_net *net)
{
	if (h->nlmsg_type != RTM_NEWADDR || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifaddrmsg)))
		return;
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	int alen = (int)IFA_PAYLOAD(h);
	const void *local = NULL, *address = NULL;
	size_t want = ifa->ifa_family == AF_INET ? 4 : 16;
	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return;
	for (struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
		if (RTA_PAYLOAD(a) != want)
			continue;
		if (a->rta_type == IFA_LOCAL)
			local = RTA_DATA(a);
		else if (a->rta_type == IFA_ADDRESS)
			address = RTA_DATA(a);
	}
	/* IFA_LOCAL is the interface's own address (IFA_ADDRESS is the peer's
	 * on point-to-point links); IPv6 has only IFA_ADDRESS. */
	const void *own = local ? local : address;
	struct fab_job_if *i = if_by_index(net, (int)ifa->ifa_index);
	if (own && i)
		if_addr(i, ifa->ifa_family, own, ifa->ifa_prefixlen);
}

static void on_route(struct nlmsghdr *h, struct fab_job_net *net)
{
	if (h->nlmsg_type != RTM_NEWROUTE || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
		return;
	const struct rtmsg *rt = NLMSG_DATA(h);
	if (rt->rtm_family != AF_INET || rt->rtm_dst_len != 0 || rt->rtm_type != RTN_UNICAST ||
	    net->default_if[0])
		return;
	int alen = (int)RTM_PAYLOAD(h), oif = 0;
	unsigned table = rt->rtm_table;
	for (struct rtattr *a = RTM_RTA(rt); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
		if (a->rta_type == RTA_OIF && RTA_PAYLOAD(a) >= sizeof(int))
			memcpy(&oif, RTA_DATA(a), sizeof(int));
		else if (a->rta_type == RTA_TABLE && RTA_PAYLOAD(a) >= sizeof(unsigned))
			memcpy(&table, RTA_DATA(a), sizeof(unsigned));
		else if (a->rta_type == RTA_MULTIPATH && !oif &&
			 RTA_PAYLOAD(a) >= sizeof(struct rtnexthop))
			oif = ((const struct rtnexthop *)RTA_DATA(a))->rtnh_ifindex;
	}
	const struct fab_job_if *i = table == RT_TABLE_MAIN ? if_by_index(net, oif) : NULL;
	if (i)
		fab_strlcpy(net->default_if, i->name, sizeof(net->default_if));
}

static int read_rtnl(int fd, struct fab_job_net *net)
{
	int e = nl_dump(fd, RTM_GETLINK, AF_UNSPEC, on_link, net);
	if (!e)
		e = nl_dump(fd, RTM_GETADDR, AF_UNSPEC, on_addr, net);
	if (!e)
		e = nl_dump(fd, RTM_GETROUTE, AF_INET, on_route, net);
	return e;
}

int job_netns_socket(int pid, int domain, int type, int protocol)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/net", pid);
	int nsfd = open(p, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return -errno;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0) {
		int e = errno;
		close(nsfd);
		return -e;
	}
	pid_t c = fork();
	if (c < 0) {
		int e = errno;
		close(nsfd);
		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	if (c == 0) {
		int err = 0, s = -1;
		if (setns(nsfd, CLONE_NEWNET) != 0)
			err = errno;
		else if ((s = socket(domain, type | SOCK_CLOEXEC, protocol)) < 0)
			err = errno;
		union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
		struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		if (s >= 0) {
			memset(&u, 0, sizeof(u));
			mh.msg_control = u.b;
			mh.msg_controllen = sizeof(u.b);
			struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &s, sizeof(int));
		}
		_exit(sendmsg(sv[1], &mh, 0) < 0 ? 1 : 0);
	}
	close(nsfd);
	close(sv[1]);
	int err = EIO, fd = -1;
	struct pollfd pf = { .fd = sv[0], .events = POLLIN };
	if (poll(&pf, 1, NL_TIMEOUT_MS) == 1) {
		union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
		struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = u.b, .msg_controllen = sizeof(u.b) };
		if (recvmsg(sv[0], &mh, MSG_CMSG_CLOEXEC) == (ssize_t)sizeof(err)) {
			struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
			if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
				memcpy(&fd, CMSG_DATA(cm), sizeof(int));
		}
	} else {
		kill(c, SIGKILL);
	}
	close(sv[0]);
	while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
		;
	return fd >= 0 ? fd : -(err ? err : EIO);
}

/* ---- /proc/<pid>/net, for when the namespace cannot be entered ---- */

static FILE *proc_net(int pid, const char *file)
{
	char p[96];
	snprintf(p, sizeof(p), "/proc/%d/net/%s", pid, file);
	return fopen(p, "re");
}

void job_net_parse_dev(FILE *f, struct fab_job_net *net)
{
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *s = line;
		if (!colon || strchr(line, '|'))
			continue;   /* the two header lines */
		*colon = '\0';
		while (*s == ' ')
			s++;
		if (*s)
			if_add(net, s);
	}
}

void job_net_parse_if_inet6(FILE *f, struct fab_job_net *net)
{
	char line[512], hex[33], name[IFNAMSIZ + 1];
	unsigned idx, plen, scope, flags;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%32s %x %x %x %x %16s", hex, &idx, &plen, &scope, &flags,
			   name) != 6 || strlen(hex) != 32)
			continue;
		unsigned char raw[16];
		for (int k = 0; k < 16; k++) {
			unsigned b;
			sscanf(hex + 2 * k, "%2x", &b);
			raw[k] = (unsigned char)b;
		}
		struct fab_job_if *i = if_by_name(net, name);
		if (i) {
			i->ifindex = fab_int_of(idx);
			if_addr(i, AF_INET6, raw, (int)plen);
		}
	}
}

/* An IPv4 route leaving through an interface: it is up and, for a route
 * without a gateway, has an IPv4 address on that subnet. */
void job_net_parse_route(FILE *f, struct fab_job_net *net)
{
	char line[512], name[IFNAMSIZ + 1];
	unsigned dst, gw, fl, mask;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%16s %x %x %x %*d %*d %*d %x", name, &dst, &gw, &fl, &mask) != 5)
			continue;
		struct fab_job_if *i = if_by_name(net, name);
		if (!i)
			continue;
		if (dst == 0 && mask == 0 && !net->default_if[0])
			fab_strlcpy(net->default_if, name, sizeof(net->default_if));
		if (gw == 0)
			i->has_v4 = true;
	}
}

static int read_procfs(int pid, struct fab_job_net *net)
{
	FILE *f = proc_net(pid, "dev");
	if (!f)
		return -errno;
	job_net_parse_dev(f, net);
	fclose(f);
	if ((f = proc_net(pid, "if_inet6"))) {
		job_net_parse_if_inet6(f, net);
		fclose(f);
	}
	if ((f = proc_net(pid, "route"))) {
		job_net_parse_route(f, net);
		fclose(f);
	}
	return 0;
}

void job_net_read(int pid, bool same_netns, struct fab_job_net *net)
{
	memset(net, 0, sizeof(*net));
	int fd = same_netns ? socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)
			    : job_netns_socket(pid, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	int e = fd >= 0 ? 0 : (same_netns ? -errno : fd);
	if (fd >= 0) {
		e = read_rtnl(fd, net);
		close(fd);
		if (e == 0) {
			net->how = same_netns ? JOB_NET_RTNL : JOB_NET_SETNS;
			net->state_known = net->v4_known = true;
			snprintf(net->how_text, sizeof(net->how_text), same_netns ?
				 "rtnetlink (fabtop's own network namespace)" :
				 "rtnetlink inside its network namespace (socket opened there via setns)");
			return;
		}
		job_net_free(net);
		net->default_if[0] = '\0';
	}
	char why[128];
	snprintf(why, sizeof(why), "%s", strerror(-e));
	if (read_procfs(pid, net) == 0) {
		net->how = JOB_NET_PROCFS;
		snprintf(net->how_text, sizeof(net->how_text),
			 "/proc/%d/net (names, IPv6 addresses, IPv4 routes; link state unknown)", pid);
		snprintf(net->note, sizeof(net->note), "cannot enter its network namespace: %s "
			 "(run fabtop as root to read link state and IPv4 addresses there)", why);
		return;
	}
	net->how = JOB_NET_NONE;
	snprintf(net->how_text, sizeof(net->how_text), "nothing readable");
	snprintf(net->note, sizeof(net->note), "cannot read its network namespace (%s) nor "
		 "/proc/%d/net: %s", why, pid, strerror(errno));
}

void job_net_from_model(const struct fab_model *m, struct fab_job_net *net)
{
	memset(net, 0, sizeof(*net));
	net->how = JOB_NET_MODEL;
	snprintf(net->how_text, sizeof(net->how_text),
		 "the captured node's interfaces (fabtop/netlink.json; its own namespace is not recorded)");
	net->state_known = net->v4_known = true;
	for (int k = 0; k < m->nnetdevs; k++) {
		const struct fab_netdev *d = &m->netdevs[k];
		struct fab_job_if *i = if_add(net, d->name);
		if (!i)
			break;
		i->ifindex = d->ifindex;
		bool down = strcmp(d->operstate, "down") == 0;
		i->up = d->operstate[0] ? fab_int_of(!down) : (fab_int){ 0, false };
		/* "unknown" is what lo and many virtual devices report while up. */
		if (d->carrier.ok)
			i->running = fab_int_of(!down && d->carrier.v);
		else if (d->operstate[0])
			i->running = fab_int_of(!down);
		for (int a = 0; a < d->naddrs; a++) {
			char ip[64];
			fab_strlcpy(ip, d->addrs[a], sizeof(ip));
			char *slash = strchr(ip, '/');
			int plen = slash ? atoi(slash + 1) : -1;
			if (slash)
				*slash = '\0';
			unsigned char raw[16];
			if (inet_pton(AF_INET, ip, raw) == 1)
				if_addr(i, AF_INET, raw, plen < 0 ? 32 : plen);
			else if (inet_pton(AF_INET6, ip, raw) == 1)
				if_addr(i, AF_INET6, raw, plen < 0 ? 128 : plen);
		}
	}
	if (!net->nifs)
		snprintf(net->note, sizeof(net->note), "the capture records no network interfaces");
}
