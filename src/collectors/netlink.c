/*
 * netlink.c - links, addresses and routes from route netlink (libnl-route),
 * whether the RDMA netlink family exists, and its netns mode (shared or
 * exclusive: whether a network namespace sees every RDMA device).
 *
 * Live and replay share one path: the live kernel is first turned into the
 * fabtop/netlink.json document (docs/capture-format.md) and that document
 * is applied to the model, exactly as a capture's copy is. So `fabtop
 * capture` writes what the live view showed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <jansson.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>
#include "fabtop/collect.h"
#include "fabtop/util.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

#define RDMA_NOTE "RDMA netlink:"

/* Interface flags as `ip link` spells them. */
static const struct { unsigned bit; const char *name; } link_flags[] = {
	{ IFF_UP, "UP" },
	{ IFF_BROADCAST, "BROADCAST" },
	{ IFF_LOOPBACK, "LOOPBACK" },
	{ IFF_POINTOPOINT, "POINTOPOINT" },
	{ IFF_NOARP, "NOARP" },
	{ IFF_PROMISC, "PROMISC" },
	{ IFF_ALLMULTI, "ALLMULTI" },
	{ IFF_MASTER, "MASTER" },
	{ IFF_SLAVE, "SLAVE" },
	{ IFF_MULTICAST, "MULTICAST" },
	{ IFF_RUNNING, "RUNNING" },
	{ 1u << 16, "LOWER_UP" },   /* IFF_LOWER_UP */
	{ 1u << 17, "DORMANT" },    /* IFF_DORMANT */
};

/* "10.0.0.5/24"; just "10.0.0.5" when prefixlen < 0. */
static bool addr_str(struct nl_addr *a, int prefixlen, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	int fam = a ? nl_addr_get_family(a) : AF_UNSPEC;
	if (!a || (fam != AF_INET && fam != AF_INET6) ||
	    nl_addr_get_len(a) != (fam == AF_INET ? 4u : 16u) ||
	    !inet_ntop(fam, nl_addr_get_binary_addr(a), ip, sizeof(ip)))
		return false;
	if (prefixlen < 0)
		snprintf(buf, len, "%s", ip);
	else
		snprintf(buf, len, "%s/%d", ip, prefixlen & 0xff);  /* & 0xff: a byte, says -Wformat-truncation */
	return true;
}

/* `rdma system show`: RDMA_NLDEV_CMD_SYS_GET on a connected NETLINK_RDMA
 * socket; the reply is parsed by fab_parse_rdma_sys(). The kernel answers
 * within the send, so the reads do not wait. 0 and mode, or -errno. */
static int rdma_netns_mode(struct nl_sock *sk, char *mode, size_t len)
{
	struct nl_msg *msg = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
							  RDMA_NLDEV_CMD_SYS_GET),
						 NLM_F_REQUEST | NLM_F_ACK);
	if (!msg)
		return -ENOMEM;
	int rc = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (rc < 0)
		return -EIO;
	nl_socket_set_nonblocking(sk);
	for (int tries = 0; tries < 4; tries++) {
		unsigned char *buf = NULL;
		struct sockaddr_nl peer;
		int n = nl_recv(sk, &peer, &buf, NULL);
		if (n <= 0) {
			free(buf);
			return -EAGAIN;
		}
		rc = fab_parse_rdma_sys(buf, (size_t)n, mode, len);
		free(buf);
		if (rc != -ENOENT)
			return rc;
	}
	return -ENOENT;
}

/* Opens NETLINK_RDMA once to learn whether the kernel has it, and asks it
 * for the netns mode; "netns_mode" is left out when that is unknown. */
static json_t *rdma_probe(void)
{
	json_t *o = json_object();
	char mode[16];
	struct nl_sock *sk = nl_socket_alloc();
	int err = sk ? nl_connect(sk, NETLINK_RDMA) : -NLE_NOMEM;
	json_object_set_new(o, "available", json_boolean(err == 0));
	json_object_set_new(o, "error", err == 0 ? json_null() : json_string(nl_geterror(err)));
	if (err == 0 && rdma_netns_mode(sk, mode, sizeof(mode)) == 0)
		json_object_set_new(o, "netns_mode", json_string(mode));
	if (sk)
		nl_socket_free(sk);
	return o;
}

static json_t *links_json(struct nl_cache *links, struct nl_cache *addrs)
{
	json_t *arr = json_array();
	for (struct nl_object *o = nl_cache_get_first(links); o; o = nl_cache_get_next(o)) {
		struct rtnl_link *l = (struct rtnl_link *)o;
		char buf[64];
		json_t *j = json_object(), *flags = json_array(), *al = json_array();
		int ifindex = rtnl_link_get_ifindex(l);
		unsigned f = rtnl_link_get_flags(l);

		json_object_set_new(j, "ifindex", json_integer(ifindex));
		json_object_set_new(j, "name", json_string(rtnl_link_get_name(l) ? rtnl_link_get_name(l) : ""));
		json_object_set_new(j, "mtu", json_integer(rtnl_link_get_mtu(l)));
		rtnl_link_operstate2str(rtnl_link_get_operstate(l), buf, sizeof(buf));
		json_object_set_new(j, "operstate", json_string(buf));
		for (size_t i = 0; i < sizeof(link_flags) / sizeof(link_flags[0]); i++)
			if (f & link_flags[i].bit)
				json_array_append_new(flags, json_string(link_flags[i].name));
		json_object_set_new(j, "flags", flags);
		for (struct nl_object *ao = nl_cache_get_first(addrs); ao; ao = nl_cache_get_next(ao)) {
			struct rtnl_addr *a = (struct rtnl_addr *)ao;
			char s[INET6_ADDRSTRLEN + 16];
			if (rtnl_addr_get_ifindex(a) == ifindex &&
			    addr_str(rtnl_addr_get_local(a), rtnl_addr_get_prefixlen(a), s, sizeof(s)))
				json_array_append_new(al, json_string(s));
		}
		json_object_set_new(j, "addrs", al);
		json_array_append_new(arr, j);
	}
	return arr;
}

static json_t *routes_json(struct nl_cache *routes, struct nl_cache *links)
{
	json_t *arr = json_array();
	for (struct nl_object *o = nl_cache_get_first(routes); o; o = nl_cache_get_next(o)) {
		struct rtnl_route *rt = (struct rtnl_route *)o;
		if (rtnl_route_get_table(rt) != RT_TABLE_MAIN)
			continue;
		json_t *j = json_object();
		struct nl_addr *dst = rtnl_route_get_dst(rt);
		char s[INET6_ADDRSTRLEN + 16], dev[IFNAMSIZ + 1] = "";
		int plen = dst ? (int)nl_addr_get_prefixlen(dst) : 0;
		/* A host route prints bare, as `ip route` shows it. */
		if (dst && plen == (int)nl_addr_get_len(dst) * 8)
			plen = -1;
		if (!dst || plen == 0 || !addr_str(dst, plen, s, sizeof(s)))
			fab_strlcpy(s, "default", sizeof(s));
		json_object_set_new(j, "dst", json_string(s));
		struct rtnl_nexthop *nh = rtnl_route_get_nnexthops(rt) > 0 ?
			rtnl_route_nexthop_n(rt, 0) : NULL;
		if (nh && addr_str(rtnl_route_nh_get_gateway(nh), -1, s, sizeof(s)))
			json_object_set_new(j, "gateway", json_string(s));
		else
			json_object_set_new(j, "gateway", json_null());
		if (nh && rtnl_route_nh_get_ifindex(nh) > 0)
			rtnl_link_i2name(links, rtnl_route_nh_get_ifindex(nh), dev, sizeof(dev));
		json_object_set_new(j, "dev", dev[0] ? json_string(dev) : json_null());
		json_object_set_new(j, "table", json_integer(rtnl_route_get_table(rt)));
		json_array_append_new(arr, j);
	}
	return arr;
}

json_t *netlink_snapshot_json(char *err, size_t errlen)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_cache *links = NULL, *addrs = NULL, *routes = NULL;
	json_t *doc = NULL;
	int e;

	if (!sk) {
		snprintf(err, errlen, "netlink: cannot allocate a socket (out of memory)");
		return NULL;
	}
	if ((e = nl_connect(sk, NETLINK_ROUTE)) < 0) {
		snprintf(err, errlen, "cannot open a route netlink socket: %s", nl_geterror(e));
		goto out;
	}
	if ((e = rtnl_link_alloc_cache(sk, AF_UNSPEC, &links)) < 0) {
		snprintf(err, errlen, "route netlink link dump failed: %s", nl_geterror(e));
		goto out;
	}
	if ((e = rtnl_addr_alloc_cache(sk, &addrs)) < 0) {
		snprintf(err, errlen, "route netlink address dump failed: %s", nl_geterror(e));
		goto out;
	}
	if ((e = rtnl_route_alloc_cache(sk, AF_UNSPEC, 0, &routes)) < 0) {
		snprintf(err, errlen, "route netlink route dump failed: %s", nl_geterror(e));
		goto out;
	}
	doc = json_object();
	json_object_set_new(doc, "links", links_json(links, addrs));
	json_object_set_new(doc, "routes", routes_json(routes, links));
	json_object_set_new(doc, "rdma_netlink", rdma_probe());
out:
	if (routes)
		nl_cache_free(routes);
	if (addrs)
		nl_cache_free(addrs);
	if (links)
		nl_cache_free(links);
	nl_socket_free(sk);
	return doc;
}

static bool has_note(const struct fab_model *m, const char *prefix)
{
	for (int i = 0; i < m->nnotes; i++)
		if (strncmp(m->notes[i].message, prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

static void apply_rdma(struct fab_model *m, json_t *rn)
{
	if (!json_is_object(rn))
		return;
	const char *mode = json_string_value(json_object_get(rn, "netns_mode"));
	if (mode && (strcmp(mode, "shared") == 0 || strcmp(mode, "exclusive") == 0))
		fab_strlcpy(m->rdma_netns_mode, mode, sizeof(m->rdma_netns_mode));
	if (json_is_true(json_object_get(rn, "available")) || has_note(m, RDMA_NOTE))
		return;
	const char *e = json_string_value(json_object_get(rn, "error"));
	if (!e)
		e = "unknown error";
	/* EPROTONOSUPPORT: the kernel was built without CONFIG_INFINIBAND. */
	bool absent = strstr(e, "Protocol mismatch") || strstr(e, "not supported");
	model_note(m, "netlink", RDMA_NOTE " %s (%s): QP state and rdma statistic are off",
		   absent ? "not available in this kernel" : "cannot be opened", e);
}

static void apply_link(struct fab_model *m, json_t *l)
{
	const char *name = json_string_value(json_object_get(l, "name"));
	if (!name || !*name)
		return;
	int i = model_find_netdev(m, name);
	struct fab_netdev *nd;
	if (i == FAB_NO_INDEX) {
		/* Not in /sys/class/net's PCI view: a virtual device (bond, vlan, veth). */
		nd = model_add_netdev(m);
		fab_strlcpy(nd->name, name, sizeof(nd->name));
		nd->pci = FAB_NO_INDEX;
	} else {
		nd = &m->netdevs[i];
	}
	/* sysfs read the same kernel values; keep what it already set. */
	json_t *v;
	if (!nd->ifindex.ok && json_is_integer(v = json_object_get(l, "ifindex")))
		nd->ifindex = fab_int_of(json_integer_value(v));
	if (!nd->mtu.ok && json_is_integer(v = json_object_get(l, "mtu")))
		nd->mtu = fab_int_of(json_integer_value(v));
	if (!nd->operstate[0] && json_is_string(v = json_object_get(l, "operstate")))
		fab_strlcpy(nd->operstate, json_string_value(v), sizeof(nd->operstate));
	json_t *addrs = json_object_get(l, "addrs");
	if (json_is_array(addrs)) {
		size_t k;
		json_t *a;
		nd->naddrs = 0;
		int more = 0;
		json_array_foreach(addrs, k, a) {
			if (!json_is_string(a))
				continue;
			if (nd->naddrs == FAB_MAX_ADDRS)
				more++;
			else
				fab_strlcpy(nd->addrs[nd->naddrs++], json_string_value(a),
					    sizeof(nd->addrs[0]));
		}
		if (more)
			model_note_cut(m, "netlink", nd->name, "addresses", nd->naddrs + more, nd->naddrs);
	}
}

/* Applies a netlink.json document; where names the file for notes. */
static int apply_doc(struct fab_model *m, json_t *doc, const char *where)
{
	if (!json_is_object(doc)) {
		model_note(m, "netlink", "%s: the top level is not a JSON object; "
			   "addresses and virtual links are unknown", where);
		return -1;
	}
	json_t *links = json_object_get(doc, "links");
	if (json_is_array(links)) {
		size_t i;
		json_t *l;
		json_array_foreach(links, i, l)
			if (json_is_object(l))
				apply_link(m, l);
	} else {
		model_note(m, "netlink", "%s: no \"links\" array; addresses and virtual "
			   "links are unknown", where);
	}
	apply_rdma(m, json_object_get(doc, "rdma_netlink"));
	return 0;
}

int collect_netlink(const struct fab_root *r, struct fab_model *m)
{
	char err[512];
	if (r->live) {
		json_t *doc = netlink_snapshot_json(err, sizeof(err));
		if (!doc) {
			model_note(m, "netlink", "%s; addresses and virtual links are unknown", err);
			return -1;
		}
		int rc = apply_doc(m, doc, "route netlink");
		json_decref(doc);
		return rc;
	}

	const char *path = "/fabtop/netlink.json";
	if (!root_exists(r, path)) {
		model_note(m, "netlink", "no netlink snapshot in this capture: addresses "
			   "and virtual links are unknown");
		return 0;
	}
	json_error_t je;
	json_t *doc = root_load_json(r, path, &je);
	if (!doc) {
		model_note(m, "netlink", "cannot parse %s: line %d: %s (re-capture it with "
			   "`fabtop capture`)", path, je.line, je.text);
		return -1;
	}
	int rc = apply_doc(m, doc, path);
	json_decref(doc);
	return rc;
}
