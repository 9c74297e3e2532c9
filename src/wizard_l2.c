/*
 * wizard_l2.c - the wizard's layer 2 step: the interface's addresses and
 * MTU (live, in this network namespace), the route to each peer and whether
 * it leaves through that interface (libnl-route, RTM_GETROUTE), the MTU
 * consistency of the interface, its HCA port and its PF, then the path MTU
 * probe (mtu_probe.h) to each peer the user named, and to nothing else.
 * The probes run in a background thread (start/poll), the rest at start.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netlink/netlink.h>
#include <netlink/route/nexthop.h>
#include <netlink/route/route.h>
#include "mtu_probe.h"
#include "fabtop/i18n.h"
#include "fabtop/sanitize.h"
#include "fabtop/util.h"
#include "fabtop/wizard.h"
#include "fabtop/vocab.h"
#include "wizard_int.h"

/* ---- the interface, live ---------------------------------------------------- */

struct iface_info {
	bool exists, up, running;
	int mtu;                      /* 0 unknown */
	char addrs[8][64];
	int naddrs;
};

static void iface_read(const char *name, struct iface_info *ii)
{
	struct ifreq ifr;
	struct ifaddrs *ifa = NULL;
	memset(ii, 0, sizeof(*ii));
	ii->exists = if_nametoindex(name) != 0;
	if (!ii->exists)
		return;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		memset(&ifr, 0, sizeof(ifr));
		fab_strlcpy(ifr.ifr_name, name, sizeof(ifr.ifr_name));
		if (ioctl(fd, SIOCGIFMTU, &ifr) == 0)
			ii->mtu = ifr.ifr_mtu;
		if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
			ii->up = ifr.ifr_flags & IFF_UP;
			ii->running = ifr.ifr_flags & IFF_RUNNING;
		}
		close(fd);
	}
	if (getifaddrs(&ifa) != 0)
		return;
	for (struct ifaddrs *a = ifa; a && ii->naddrs < 8; a = a->ifa_next) {
		if (!a->ifa_addr || strcmp(a->ifa_name, name) != 0)
			continue;
		int fam = a->ifa_addr->sa_family;
		const void *bin = fam == AF_INET ? (const void *)&((struct sockaddr_in *)a->ifa_addr)->sin_addr
			: fam == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)a->ifa_addr)->sin6_addr : NULL;
		if (bin && inet_ntop(fam, bin, ii->addrs[ii->naddrs], sizeof(ii->addrs[0])))
			ii->naddrs++;
	}
	freeifaddrs(ifa);
}

/* ---- the route to a peer ------------------------------------------------------ */

static void addr_text(struct nl_addr *a, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!a || nl_addr_iszero(a))
		return;
	int fam = nl_addr_get_family(a);
	if ((fam == AF_INET && nl_addr_get_len(a) == 4) || (fam == AF_INET6 && nl_addr_get_len(a) == 16))
		inet_ntop(fam, nl_addr_get_binary_addr(a), buf, (socklen_t)len);
}

/* Resolves p->peer into p->addr (first address getaddrinfo gives). */
static int peer_resolve(struct wiz_peer *p, int *family, char *err, size_t len)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM }, *res = NULL;
	int rc = getaddrinfo(p->peer, NULL, &hints, &res);
	if (rc != 0 || !res) {
		snprintf(err, len, "cannot resolve %s: %s", p->peer, gai_strerror(rc));
		return -1;
	}
	*family = res->ai_family;
	const void *bin = res->ai_family == AF_INET ? (const void *)&((struct sockaddr_in *)res->ai_addr)->sin_addr
		: (const void *)&((struct sockaddr_in6 *)res->ai_addr)->sin6_addr;
	inet_ntop(res->ai_family, bin, p->addr, sizeof(p->addr));
	freeaddrinfo(res);
	return 0;
}

/* Asks the kernel which way it sends to p->addr (as `ip route get` does). */
static int peer_route(struct wiz_peer *p, int family, char *err, size_t len)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_addr *dst = NULL;
	struct rtnl_route *r = NULL;
	int rc = -1;
	if (!sk || nl_connect(sk, NETLINK_ROUTE) < 0) {
		snprintf(err, len, _("route netlink unavailable"));
		goto out;
	}
	if (nl_addr_parse(p->addr, family, &dst) < 0) {
		snprintf(err, len, _("cannot parse %s"), p->addr);
		goto out;
	}
	int e = rtnl_route_lookup(sk, dst, &r);
	if (e < 0 || !r) {
		snprintf(err, len, _("no route to %s (%s)"), p->addr, nl_geterror(e));
		goto out;
	}
	struct rtnl_nexthop *nh = rtnl_route_get_nnexthops(r) > 0 ? rtnl_route_nexthop_n(r, 0) : NULL;
	char name[IF_NAMESIZE] = "";
	if (nh && if_indextoname((unsigned)rtnl_route_nh_get_ifindex(nh), name))
		fab_strlcpy(p->route_dev, name, sizeof(p->route_dev));
	if (nh)
		addr_text(rtnl_route_nh_get_gateway(nh), p->route_via, sizeof(p->route_via));
	addr_text(rtnl_route_get_pref_src(r), p->route_src, sizeof(p->route_src));
	rc = 0;
out:
	if (r)
		rtnl_route_put(r);
	if (dst)
		nl_addr_put(dst);
	if (sk)
		nl_socket_free(sk);
	return rc;
}

/* ---- MTU consistency: HCA port and PF --------------------------------------- */

static const struct fab_port *port_of_netdev(const struct fab_model *m, const char *dev,
					     const struct fab_nic **nic)
{
	for (int i = 0; i < m->nnics; i++)
		for (int k = 0; k < m->nics[i].nports && k < FAB_MAX_PORTS; k++)
			if (strcmp(m->nics[i].ports[k].netdev, dev) == 0) {
				*nic = &m->nics[i];
				return &m->nics[i].ports[k];
			}
	return NULL;
}

static void check_port_mtu(struct wiz_step *s, const struct fab_model *m, const char *dev, int mtu)
{
	const struct fab_nic *n = NULL;
	const struct fab_port *p = port_of_netdev(m, dev, &n);
	char subj[FAB_NAME_LEN + 8], am[24], mm[24];
	if (!p) {
		wiz_out(s, _("%s is not the netdev of an HCA port here: no RDMA MTU to compare\n"), dev);
		return;
	}
	snprintf(subj, sizeof(subj), "%s/%d", n->name, p->num);
	wiz_out(s, "%s: %s netdev of %s, active_mtu %s, max_mtu %s%s%s\n", dev, ll_short(p->ll), subj,
		fab_int_str(p->active_mtu, am, sizeof(am)), fab_int_str(p->max_mtu, mm, sizeof(mm)),
		p->mtu_source[0] ? " from " : "", p->mtu_source);
	if (p->ll != FAB_LL_ETH || !p->max_mtu.ok || mtu <= 0)
		return;
	int roce = fab_roce_mtu(mtu);
	if (roce < p->max_mtu.v) {
		struct fab_finding *f = wiz_finding(s, "l2.rdma-mtu-cut", SEV_WARN, subj);
		if (!f)
			return;
		snprintf(f->message, sizeof(f->message),
			 _("%s MTU %d leaves RoCE on %s at %d of its %lld: RDMA messages are cut into smaller packets"),
			 dev, mtu, subj, roce, p->max_mtu.v);
		snprintf(f->evidence, sizeof(f->evidence), "%s mtu=%d; RoCE headers %d bytes; %s max_mtu=%lld",
			 dev, mtu, FAB_ROCE_MTU_OVERHEAD, subj, p->max_mtu.v);
		snprintf(f->hint, sizeof(f->hint),
			 _("suggestion (fabtop changes nothing): ip link set dev %s mtu %lld or more, with the "
			 "switch ports to match"), FAB_SHQ(dev), p->max_mtu.v + FAB_ROCE_MTU_OVERHEAD);
		fab_strlcpy(f->layer, _("layer 2: the RDMA MTU follows the netdev MTU on RoCE"), sizeof(f->layer));
	}
}

/* A VF whose MTU is above its PF's: the PF (uplink) drops or cuts what the VF sends. */
static void check_pf_mtu(struct wizard *w, struct wiz_step *s, const char *dev, int mtu)
{
	char path[FAB_PATH_LEN], pf[FAB_PATH_LEN], line[64];
	char **names = NULL;
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/physfn", dev);
	if (root_realpath(w->root, path, pf, sizeof(pf)) != 0) {
		wiz_out(s, _("%s is not an SR-IOV VF (no device/physfn)\n"), dev);
		return;
	}
	snprintf(path, sizeof(path), "%s/net", pf);
	int n = root_list(w->root, path, &names);
	if (n <= 0) {
		wiz_out(s, _("%s is a VF of %s; the PF's netdev is not visible in this network namespace\n"),
			dev, strrchr(pf, '/') ? strrchr(pf, '/') + 1 : pf);
		if (n == 0)
			root_free_list(names, n);
		return;
	}
	for (int i = 0; i < n; i++) {
		long long pmtu;
		snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", names[i]);
		if (root_read_line(w->root, path, line, sizeof(line)) != 0 || !fab_parse_ll(line, &pmtu)) {
			wiz_out(s, _("%s is a VF of PF netdev %s, whose MTU is not readable here\n"), dev, names[i]);
			continue;
		}
		wiz_out(s, _("%s is a VF of PF netdev %s (MTU %lld)\n"), dev, names[i], pmtu);
		if (mtu > pmtu) {
			struct fab_finding *f = wiz_finding(s, "l2.vf-pf-mtu", SEV_WARN, dev);
			if (!f)
				break;
			snprintf(f->message, sizeof(f->message),
				 _("VF %s has MTU %d but its PF %s has %lld: frames above %lld leave the VF and are "
				 "dropped at the uplink"), dev, mtu, names[i], pmtu, pmtu);
			snprintf(f->evidence, sizeof(f->evidence), "/sys/class/net/%s/mtu=%d; /sys/class/net/%s/mtu=%lld",
				 dev, mtu, names[i], pmtu);
			snprintf(f->hint, sizeof(f->hint),
				 _("suggestion (fabtop changes nothing): on the host, ip link set dev %s mtu %d"),
				 FAB_SHQ(names[i]), mtu);
			fab_strlcpy(f->layer, _("layer 2: an SR-IOV VF cannot send more than its PF carries"), sizeof(f->layer));
		}
	}
	root_free_list(names, n);
}

/* ---- the probe ---------------------------------------------------------------- */

/* A probe's result into the peer's line, the raw output and a finding (on
 * the pane's thread, once the background probes are over). */
static void probe_apply(struct wiz_step *s, struct wiz_peer *p, const char *dev, int rc,
			const struct mtu_result *rp)
{
	const struct mtu_result r = *rp;
	char sizes[256] = "";
	size_t n = 0;
	for (int i = 0; i < r.nprobes && i < MTU_MAX_PROBES && n < sizeof(sizes); i++)
		n += (size_t)snprintf(sizes + n, sizeof(sizes) - n, "%s%d", i ? ", " : "", r.probes[i].size);
	wiz_cmd(s, _("UDP DF probe to %s:33434 (in-process, IP_PMTUDISC_PROBE + IP_RECVERR), sizes %s"),
		r.addr[0] ? r.addr : p->addr, n ? sizes : _("none"));
	if (r.route_mtu > 0 && r.iface_mtu > 0 && r.route_mtu < r.iface_mtu)
		wiz_out(s, _("the kernel had cached path MTU %d to %s (an earlier frag-needed)\n"), r.route_mtu,
			p->peer);
	for (int i = 0; i < r.nprobes && i < MTU_MAX_PROBES; i++) {
		char line[200];
		mtu_probe_rec_str(&r.probes[i], line, sizeof(line));
		wiz_out(s, "probe %s: %s\n", p->peer, line);
	}
	p->probed = true;
	p->nprobes = fab_int_of(r.nprobes);
	p->elapsed_s = fab_num_of(r.elapsed_s);
	if (r.iface_mtu > 0)
		p->iface_mtu = fab_int_of(r.iface_mtu);
	if (r.path_mtu > 0)
		p->path_mtu = fab_int_of(r.path_mtu);
	if (r.hop_mtu > 0)
		p->hop_mtu = fab_int_of(r.hop_mtu);
	fab_strlcpy(p->hop, r.hop, sizeof(p->hop));
	fab_strlcpy(p->message, r.message, sizeof(p->message));
	fab_strlcpy(p->verdict, rc == 0 ? mtu_verdict_name(r.verdict) : "error", sizeof(p->verdict));
	wiz_out(s, "verdict %s: %s\n", p->verdict, r.message);

	struct fab_finding *f;
	char pm[24], im[24];
	fab_int_str(p->path_mtu, pm, sizeof(pm));
	fab_int_str(p->iface_mtu, im, sizeof(im));
	if (rc != 0 || r.verdict == MTU_ERROR) {
		if (!(f = wiz_finding(s, "l2.probe-error", SEV_ERROR, p->peer)))
			return;
		snprintf(f->message, sizeof(f->message), _("the MTU probe to %s could not run: %s"), p->peer,
			 r.message[0] ? r.message : _("unknown error"));
		snprintf(f->hint, sizeof(f->hint), _("check the address and that UDP sockets are allowed here"));
	} else if (r.verdict == MTU_OK) {
		if (!(f = wiz_finding(s, "l2.mtu-ok", SEV_INFO, p->peer)))
			return;
		if (p->iface_mtu.ok && p->iface_mtu.v > 65535)   /* lo: 65536, above any IP packet */
			snprintf(f->message, sizeof(f->message), _("the path to %s carries the largest IP packet, "
				 "65535 bytes (the interface MTU is %s)"), p->peer, im);
		else
			snprintf(f->message, sizeof(f->message), _("the path to %s carries the interface MTU %s"),
				 p->peer, im);
	} else if (r.verdict == MTU_PATH_LOWER) {
		if (!(f = wiz_finding(s, "l2.mtu-path-lower", SEV_WARN, p->peer)))
			return;
		snprintf(f->message, sizeof(f->message),
			 _("path MTU to %s is %s, below %s's %s: hop %s answered \"fragmentation needed\" (mtu %d)"),
			 p->peer, pm, dev, im, r.hop[0] ? r.hop : "N/A", r.hop_mtu);
		snprintf(f->hint, sizeof(f->hint),
			 _("raise the MTU of the link after %s to %s, or lower %s's MTU to %s on every node of the job"),
			 r.hop[0] ? r.hop : _("that hop"), im, dev, pm);
	} else if (r.verdict == MTU_BLACKHOLE) {
		if (!(f = wiz_finding(s, "l2.mtu-blackhole", SEV_ERROR, p->peer)))
			return;
		snprintf(f->message, sizeof(f->message),
			 _("MTU black hole to %s: packets up to %s arrive, larger ones vanish with no ICMP error"),
			 p->peer, pm);
		snprintf(f->hint, sizeof(f->hint),
			 _("a hop drops big frames silently (or filters ICMP frag-needed): find the link with the "
			 "smaller MTU (tracepath -n %s from here), fix it or lower %s's MTU to %s"),
			 FAB_SHQ(p->addr[0] ? p->addr : p->peer), dev, pm);
	} else {
		if (!(f = wiz_finding(s, "l2.unreachable", SEV_ERROR, p->peer)))
			return;
		snprintf(f->message, sizeof(f->message), _("nothing reaches %s: the peer answered no probe, not even a %d-byte one"),
			 p->peer, r.nprobes > 0 ? r.probes[r.nprobes - 1].size : 0);
		snprintf(f->hint, sizeof(f->hint),
			 _("check the peer is up and its address right, the route (%s) and any firewall dropping "
			 "UDP or ICMP"), p->route_dev[0] ? p->route_dev : _("none"));
	}
	snprintf(f->evidence, sizeof(f->evidence), P_("%d probe in %.2f s: %s; %s", "%d probes in %.2f s: %s; %s",
						       (unsigned long)r.nprobes), r.nprobes, r.elapsed_s,
		 n ? sizes : _("none"), r.message);
	fab_strlcpy(f->layer, _("layer 2: the path MTU limits every packet NCCL sends over sockets or RoCE"),
		    sizeof(f->layer));
}

/* ---- the step ----------------------------------------------------------------- */

bool wiz_l2_gate(const struct wizard *w, const struct fab_model *m, char *why, size_t len)
{
	(void)m;
	if (!w->root || !w->root->live) {
		snprintf(why, len, _("layer 2 probes the network from this node, and --root %s is a capture: "
			 "run the wizard on the node itself"), w->root ? w->root->name : "?");
		return true;
	}
	if (!w->in.iface[0]) {
		if (w->job_ran && w->job_nprocs > 0 && w->job_iface_spec[0])
			snprintf(why, len, _("NCCL_SOCKET_IFNAME=%s of pid %d matches no usable interface in its "
				 "network namespace (step job); give --iface IF"), w->job_iface_spec, w->job_pid);
		else if (w->job_ran && w->job_nprocs > 0)
			snprintf(why, len, _("NCCL would find no usable interface for pid %d (step job); give --iface IF"),
				 w->job_pid);
		else
			snprintf(why, len, _("no interface to check: give --iface IF (or run step job to take "
				 "NCCL_SOCKET_IFNAME from the NCCL process)"));
		return true;
	}
	if (if_nametoindex(w->in.iface) == 0) {
		if (w->job_other_netns && !w->opt.iface[0])
			snprintf(why, len, _("interface %s (%s) does not exist in this network namespace; the job "
					     "runs in another one: run the wizard inside its pod (or nsenter -n -t PID)"),
				 w->in.iface, w->in.iface_src[0] ? w->in.iface_src : _("input"));
		else
			snprintf(why, len, _("interface %s (%s) does not exist in this network namespace"),
				 w->in.iface, w->in.iface_src[0] ? w->in.iface_src : _("input"));
		return true;
	}
	return false;
}

/*
 * The probes are the slow part (a black hole costs seconds per peer): they
 * run in a thread of their own, on data of their own (struct l2_bg), while
 * the pane stays live. Everything that touches the step, the wizard or the
 * model happens on the caller's thread, in start() and in poll() once the
 * thread is over.
 */
struct l2_job {
	int peer;                     /* index in s->peers */
	char addr[WIZ_HOST_LEN];
	int rc;
	struct mtu_result r;
};

struct l2_bg {
	pthread_t th;
	bool started, joined;
	atomic_bool done, cancel;
	char dev[WIZ_IF_LEN];
	double timeout_s;
	int mtu;                      /* the interface's, for the verdict */
	struct l2_job jobs[WIZ_MAX_PEERS];
	int njobs, nrun;
};

static void *probe_all(void *arg)
{
	struct l2_bg *bg = arg;
	struct mtu_opts o = { .iface = bg->dev, .timeout_s = bg->timeout_s, .cancel = &bg->cancel };
	for (int i = 0; i < bg->njobs && !atomic_load(&bg->cancel); i++) {
		memset(&bg->jobs[i].r, 0, sizeof(bg->jobs[i].r));
		bg->jobs[i].rc = mtu_probe(bg->jobs[i].addr, &o, &bg->jobs[i].r);
		bg->nrun = i + 1;
	}
	atomic_store(&bg->done, true);
	return NULL;
}

static void bg_join(struct l2_bg *bg)
{
	if (bg->started && !bg->joined) {
		pthread_join(bg->th, NULL);
		bg->joined = true;
	}
}

void wiz_l2_fini(struct wiz_step *s)
{
	struct l2_bg *bg = s->priv;
	if (bg) {
		atomic_store(&bg->cancel, true);
		bg_join(bg);   /* at most the probe under way: its timeout bounds it */
		free(bg);
	}
	s->priv = NULL;
}

void wiz_l2_cancel(struct wizard *w, struct wiz_step *s)
{
	(void)w;
	wiz_l2_fini(s);
}

static void l2_finish(struct wizard *w, struct wiz_step *s, struct l2_bg *bg)
{
	for (int i = 0; i < bg->nrun; i++)
		probe_apply(s, &s->peers[bg->jobs[i].peer], bg->dev, bg->jobs[i].rc, &bg->jobs[i].r);
	if (w->in.npeers > 1 && wiz_status_of(s) == WIZ_PASS) {
		char line[160];
		wizard_peers_line(w, line, sizeof(line));
		snprintf(s->verdict, sizeof(s->verdict), _("%s (MTU %d) reaches every peer through itself at its "
			 "full MTU: %s"), bg->dev, bg->mtu, line);
	}
}

int wiz_l2_poll(struct wizard *w, struct wiz_step *s, int timeout_ms)
{
	struct l2_bg *bg = s->priv;
	if (!bg)
		return 1;
	/* The thread ends on its own: look every 10 ms until it has or the
	 * caller's time is up. */
	for (int waited = 0; !atomic_load(&bg->done); waited += 10) {
		if (timeout_ms >= 0 && waited >= timeout_ms)
			return 0;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	bg_join(bg);
	l2_finish(w, s, bg);
	free(bg);
	s->priv = NULL;
	return 1;
}

int wiz_l2_start(struct wizard *w, struct wiz_step *s, const struct fab_model *m)
{
	const char *dev = w->in.iface;
	struct iface_info ii;
	char err[256];
	struct l2_bg *bg = calloc(1, sizeof(*bg));
	if (!bg) {
		snprintf(s->verdict, sizeof(s->verdict), _("out of memory"));
		return -1;
	}
	iface_read(dev, &ii);
	fab_strlcpy(bg->dev, dev, sizeof(bg->dev));
	bg->timeout_s = w->probe_timeout_s;
	bg->mtu = ii.mtu;
	wiz_input(s, _("interface %s (%s)"), dev, w->in.iface_src[0] ? w->in.iface_src : _("input"));
	if (w->in.npeers) {
		char line[160];
		wizard_peers_line(w, line, sizeof(line));
		wiz_input(s, _("peers %s"), line);
	} else {
		wiz_input(s, _("peers: none (--peer HOST)"));
	}
	if (w->job_other_netns && !w->opt.iface[0]) {
		struct fab_finding *nf = wiz_finding(s, "l2.other-netns", SEV_WARN, dev);
		if (nf) {
			snprintf(nf->message, sizeof(nf->message), _("pid %d runs in network namespace %s, not fabtop's: "
				 "this step looked at fabtop's %s, which may not be the job's"), w->job_pid,
				 w->job_netns[0] ? w->job_netns : "N/A", dev);
			snprintf(nf->hint, sizeof(nf->hint), _("run the wizard inside the job's pod, or as root with "
				 "nsenter -n -t %d fabtop wizard"), w->job_pid);
		}
	}
	wiz_cmd(s, _("getifaddrs() and ioctl(SIOCGIFMTU, SIOCGIFFLAGS) on %s"), dev);
	wiz_out(s, "%s: mtu %d, %s%s, addresses:", dev, ii.mtu, ii.up ? "UP" : "DOWN",
		ii.running ? ",RUNNING" : "");
	for (int i = 0; i < ii.naddrs; i++)
		wiz_out(s, " %s", ii.addrs[i]);
	wiz_out(s, "%s\n", ii.naddrs ? "" : " none");

	struct fab_finding *f;
	if (!ii.up || !ii.running) {
		if ((f = wiz_finding(s, "l2.iface-down", SEV_ERROR, dev))) {
			snprintf(f->message, sizeof(f->message), "%s",
				 !ii.up ? _("administratively down") : _("up but has no carrier (link down)"));
			snprintf(f->hint, sizeof(f->hint), _("bring it up (ip link set dev %s up) or check the cable "
				 "and switch port; NCCL cannot use it as it is"), FAB_SHQ(dev));
		}
	}
	if (ii.naddrs == 0) {
		if ((f = wiz_finding(s, "l2.iface-no-addr", SEV_ERROR, dev))) {
			snprintf(f->message, sizeof(f->message), _("no IP address: NCCL's bootstrap and socket "
				 "transport cannot use it"));
			snprintf(f->hint, sizeof(f->hint), _("give it an address (DHCP, netplan, the CNI of the pod) "
				 "or point NCCL_SOCKET_IFNAME at the interface that has one"));
		}
	}

	wiz_cmd(s, _("MTU consistency: %s vs its HCA port (model) and /sys/class/net/%s/device/physfn"), dev, dev);
	check_port_mtu(s, m, dev, ii.mtu);
	check_pf_mtu(w, s, dev, ii.mtu);

	if (w->in.npeers == 0) {
		if ((f = wiz_finding(s, "l2.no-peer", SEV_INFO, dev))) {
			snprintf(f->message, sizeof(f->message),
				 _("no peer given: the route and the path MTU were not checked"));
			snprintf(f->hint, sizeof(f->hint), _("name another node of the job: --peer HOST (up to %d)"),
				 WIZ_MAX_PEERS);
		}
	}
	for (int i = 0; i < w->in.npeers && s->npeers < WIZ_MAX_PEERS; i++) {
		struct wiz_peer *p = &s->peers[s->npeers++];
		int family = AF_UNSPEC;
		memset(p, 0, sizeof(*p));
		fab_strlcpy(p->peer, w->in.peers[i], sizeof(p->peer));
		if (peer_resolve(p, &family, err, sizeof(err)) != 0) {
			fab_strlcpy(p->message, err, sizeof(p->message));
			if ((f = wiz_finding(s, "l2.resolve", SEV_ERROR, p->peer))) {
				snprintf(f->message, sizeof(f->message), "%s", err);
				snprintf(f->hint, sizeof(f->hint), _("use the peer's IP address, or fix the name in DNS or "
					 "/etc/hosts (NCCL resolves the same names)"));
			}
			continue;
		}
		wiz_cmd(s, _("route lookup to %s (RTM_GETROUTE via libnl-route, as ip route get)"), p->addr);
		if (peer_route(p, family, err, sizeof(err)) != 0) {
			wiz_out(s, _("route to %s: %s\n"), p->addr, err);
			fab_strlcpy(p->message, err, sizeof(p->message));
			if ((f = wiz_finding(s, "l2.no-route", SEV_ERROR, p->peer))) {
				snprintf(f->message, sizeof(f->message), "%s", err);
				snprintf(f->hint, sizeof(f->hint), _("add a route to %s through %s (or a default route)"),
					 p->addr, dev);
			}
			continue;
		}
		p->route_ok = strcmp(p->route_dev, dev) == 0;
		wiz_out(s, "route to %s: dev %s%s%s%s%s\n", p->addr, p->route_dev[0] ? p->route_dev : "?",
			p->route_via[0] ? " via " : "", p->route_via, p->route_src[0] ? " src " : "", p->route_src);
		if (!p->route_ok && (f = wiz_finding(s, "l2.route-other-iface", SEV_WARN, p->peer))) {
			snprintf(f->message, sizeof(f->message), _("traffic to %s leaves through %s, not %s"),
				 p->peer, p->route_dev[0] ? p->route_dev : _("an unknown interface"), dev);
			snprintf(f->evidence, sizeof(f->evidence), "route to %s: dev %s%s%s", p->addr, p->route_dev,
				 p->route_via[0] ? " via " : "", p->route_via);
			snprintf(f->hint, sizeof(f->hint), _("NCCL binds to %s's address but the kernel routes by "
				 "destination: add a route to the peers' subnet via %s, or choose the interface the "
				 "route uses"), dev, dev);
			fab_strlcpy(f->layer, _("layer 2: the route decides which link carries the job's traffic"),
				    sizeof(f->layer));
		}
		struct l2_job *j = &bg->jobs[bg->njobs++];
		j->peer = s->npeers - 1;
		fab_strlcpy(j->addr, p->addr[0] ? p->addr : p->peer, sizeof(j->addr));
	}
	s->priv = bg;
	if (bg->njobs == 0) {
		atomic_store(&bg->done, true);   /* nothing to probe: poll ends it */
		return 0;
	}
	if (pthread_create(&bg->th, NULL, probe_all, bg) != 0) {
		snprintf(s->verdict, sizeof(s->verdict), _("cannot start the MTU probes: %s"), strerror(errno));
		free(bg);
		s->priv = NULL;
		return -1;
	}
	bg->started = true;
	return 0;
}
