/* job_check.c - step 0's findings: a scanned NCCL job's settings against
 * the node as it sees it. Pure: no I/O, only the job and the model.
 *
 * NCCL's own rules are followed where they decide the outcome: interface
 * lists as ncclFindInterfaces()/matchIfList() read them (src/misc/socket.cc,
 * src/misc/utils.cc: '^' excludes, '=' exact, otherwise prefixes, ":port"
 * ignored for interfaces; a value shorter than two characters is ignored;
 * only IFF_RUNNING interfaces with an address, IPv4 before IPv6, never ::1);
 * NCCL_IB_HCA by the same list syntax with ports. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "job.h"
#include "fabtop/i18n.h"
#include "fabtop/sanitize.h"
#include "fabtop/util.h"

#define LIST_MAX 32

/* ---- NCCL's list syntax ---- */

struct nccl_list {
	bool exclude, exact;
	int n;
	char name[LIST_MAX][64];
	int port[LIST_MAX];           /* -1: any */
};

static void parse_list(const char *spec, struct nccl_list *l)
{
	memset(l, 0, sizeof(*l));
	if (!spec)
		return;
	if (*spec == '^') {
		l->exclude = true;
		spec++;
	}
	if (*spec == '=') {
		l->exact = true;
		spec++;
	}
	while (*spec && l->n < LIST_MAX) {
		size_t tl = strcspn(spec, ","), nl = strcspn(spec, ":,");
		if (nl > 0) {
			snprintf(l->name[l->n], sizeof(l->name[0]), "%.*s", (int)(nl < 63 ? nl : 63), spec);
			l->port[l->n] = nl < tl ? atoi(spec + nl + 1) : -1;
			l->n++;
		}
		spec += tl;
		if (*spec == ',')
			spec++;
	}
}

static bool name_match(const struct nccl_list *l, int k, const char *name)
{
	return l->exact ? strcmp(name, l->name[k]) == 0
			: strncmp(name, l->name[k], strlen(l->name[k])) == 0;
}

/* matchIfList() ^ searchNot; an empty list matches everything. */
static bool list_match(const struct nccl_list *l, const char *name, int port)
{
	bool m = l->n == 0;
	for (int k = 0; k < l->n && !m; k++)
		m = name_match(l, k, name) && (port < 0 || l->port[k] < 0 || l->port[k] == port);
	return m != l->exclude;
}

bool job_if_match(const char *spec, const char *ifname)
{
	struct nccl_list l;
	parse_list(spec, &l);
	return list_match(&l, ifname, -1);
}

bool job_hca_match(const char *spec, const char *dev, int port)
{
	struct nccl_list l;
	parse_list(spec && *spec ? spec : NULL, &l);
	return list_match(&l, dev, port);
}

/* ---- which interfaces NCCL would use ---- */

static bool if_usable(const struct fab_job_net *net, const struct fab_job_if *i)
{
	/* Link state unknown (no way into the namespace): judged by addresses. */
	return (!net->state_known || (i->running.ok && i->running.v));
}

static bool in_subnet4(const struct fab_job_if *i, const char *ip)
{
	struct in_addr want;
	if (inet_pton(AF_INET, ip, &want) != 1)
		return false;
	for (int a = 0; a < i->naddrs; a++) {
		char buf[64];
		fab_strlcpy(buf, i->addrs[a], sizeof(buf));
		char *slash = strchr(buf, '/');
		int plen = slash ? atoi(slash + 1) : 32;
		struct in_addr have;
		if (slash)
			*slash = '\0';
		if (inet_pton(AF_INET, buf, &have) != 1 || plen < 0 || plen > 32)
			continue;
		unsigned mask = plen ? htonl(~0u << (32 - plen)) : 0;
		if ((have.s_addr & mask) == (want.s_addr & mask))
			return true;
	}
	return false;
}

/* findInterfaces(): IPv4 addresses first, then IPv6, each in interface order. */
static int pick(const struct fab_job_net *net, const char *filter, const char *subnet_of,
		char names[][FAB_NAME_LEN], int max)
{
	struct nccl_list l;
	parse_list(filter, &l);
	int n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < net->nifs && n < max; k++) {
			const struct fab_job_if *i = &net->ifs[k];
			bool addr = pass == 0 ? i->has_v4 : (i->has_v6_global || i->has_v6_link);
			if (!addr || !if_usable(net, i))
				continue;
			if (subnet_of ? (pass != 0 || !in_subnet4(i, subnet_of)) : !list_match(&l, i->name, -1))
				continue;
			bool dup = false;
			for (int d = 0; d < n && !dup; d++)
				dup = strcmp(names[d], i->name) == 0;
			if (!dup)
				fab_strlcpy(names[n++], i->name, FAB_NAME_LEN);
		}
	return n;
}

int job_nccl_ifaces(const struct fab_job_net *net, const char *spec, const char *comm_id,
		    char names[][FAB_NAME_LEN], int max, const char **rule)
{
	static const struct { const char *filter, *rule; } order[] = {
		{ "ib", N_("ib* first") },
		{ NULL, N_("NCCL_COMM_ID's subnet") },
		{ "^docker,lo,virbr", N_("anything but docker*, lo*, virbr*") },
		{ "docker", N_("docker* (nothing else was usable)") },
		{ "lo", N_("lo (nothing else was usable)") },
		{ "virbr", N_("virbr* (nothing else was usable)") },
	};
	if (spec && strlen(spec) > 1) {
		*rule = "NCCL_SOCKET_IFNAME";
		return pick(net, spec, NULL, names, max);
	}
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		char ip[64] = "";
		if (!order[k].filter) {
			/* "10.0.0.1:5000"; a host name would need resolving: skipped. */
			if (!comm_id || strlen(comm_id) < 2)
				continue;
			fab_strlcpy(ip, comm_id, sizeof(ip));
			ip[strcspn(ip, ":")] = '\0';
		}
		int n = pick(net, order[k].filter, order[k].filter ? NULL : ip, names, max);
		if (n > 0) {
			*rule = order[k].rule;
			return n;
		}
	}
	*rule = N_("none usable");
	return 0;
}

/* ---- helpers for the findings ---- */

static struct fab_finding *add(struct fab_model *out, const char *id, enum fab_severity sev,
			       const struct fab_job *j, const char *layer)
{
	char subj[FAB_NAME_LEN];
	snprintf(subj, sizeof(subj), "pid %d %s", j->pid, j->comm[0] ? j->comm : "?");
	struct fab_finding *f = model_add_finding(out, id, sev, subj);
	if (f)
		fab_strlcpy(f->layer, _(layer), sizeof(f->layer));
	return f;
}

#define LAYER_IF  N_("step 0 (the job): NCCL's bootstrap and its socket transport use this interface")
#define LAYER_IB  N_("step 0 (the job): the HCAs NCCL's IB/RoCE transport may use")
#define LAYER_GID N_("step 0 (the job): RoCE traffic is addressed by this GID (layer 3 of RoCE v2)")
#define LAYER_LOG N_("step 0 (the job): where NCCL writes its log (NCCL_DEBUG_FILE)")

/* Appends "a, b, c" to buf. */
static void list_add(char *buf, size_t len, const char *item)
{
	size_t o = strlen(buf);
	if (o + 1 < len)
		snprintf(buf + o, len - o, "%s%s", o ? ", " : "", item);
}

static const struct fab_job_if *find_if(const struct fab_job_net *net, const char *name)
{
	for (int k = 0; k < net->nifs; k++)
		if (strcmp(net->ifs[k].name, name) == 0)
			return &net->ifs[k];
	return NULL;
}

static void if_state_text(const struct fab_job_net *net, const struct fab_job_if *i,
			  char *buf, size_t len)
{
	char addrs[200] = "";
	for (int a = 0; a < i->naddrs; a++)
		list_add(addrs, sizeof(addrs), i->addrs[a]);
	const char *st = !net->state_known ? _("state unknown") :
			 !i->up.v ? "DOWN (admin)" : !i->running.v ? "UP, no carrier (not RUNNING)" :
			 "UP, RUNNING";
	snprintf(buf, len, "%s %s, %s", i->name, st,
		 addrs[0] ? addrs : (i->has_v4 ? _("IPv4 route") : _("no address")));
}

static bool is_true(const char *v)
{
	return v && atoi(v) != 0;
}

/* The RDMA netdevs (from the model's HCA ports) present in this view. */
static void rdma_netdevs_here(const struct fab_model *m, const struct fab_job_net *net,
			      char *buf, size_t len)
{
	buf[0] = '\0';
	for (int n = 0; n < m->nnics; n++)
		for (int p = 0; p < m->nics[n].nports; p++) {
			const char *nd = m->nics[n].ports[p].netdev;
			if (nd[0] && find_if(net, nd))
				list_add(buf, len, nd);
		}
}

static bool is_rdma_netdev(const struct fab_model *m, const char *name)
{
	for (int n = 0; n < m->nnics; n++)
		for (int p = 0; p < m->nics[n].nports; p++)
			if (strcmp(m->nics[n].ports[p].netdev, name) == 0)
				return true;
	return false;
}

/* Whether the job can open an HCA at all; why not in why: verbs access
 * from here (nic_verbs, the model's judgement), then what only the job
 * knows, the verbs devices of its own container. Unknown is not "no": a
 * capture that did not record verbs access does not make every HCA
 * unreachable. */
static bool job_nic_reachable(const struct fab_nic *n, const struct fab_job *j, char *why, size_t len)
{
	struct fab_judged verbs = nic_verbs(n);
	if (verbs.v == FAB_NO) {
		snprintf(why, len, _("%s: %s (ib_uverbs not loaded, or not passed into fabtop's "
			 "container)"), n->name, verbs.why);
		return false;
	}
	if (j->uverbs_checked) {
		char list[FAB_LIST_LEN + 2], want[24];
		snprintf(list, sizeof(list), " %s ", j->uverbs_visible);
		snprintf(want, sizeof(want), " %s ", n->uverbs.name);
		if (!strstr(list, want)) {
			snprintf(why, len, _("%s: /dev/infiniband/%s is not in the process's container "
				 "(it has: %s)"), n->name, n->uverbs.name,
				 j->uverbs_visible[0] ? j->uverbs_visible : _("none"));
			return false;
		}
	}
	return true;
}

/* Whether an HCA can carry NCCL's traffic for this job (reachable, and
 * port `port`, or any port when -1, usable by port_usable); why not in why. */
static bool job_nic_usable(const struct fab_nic *n, const struct fab_job *j, int port,
			   char *why, size_t len)
{
	if (!job_nic_reachable(n, j, why, len))
		return false;
	char states[128] = "";
	for (int p = 0; p < n->nports; p++) {
		const struct fab_port *pt = &n->ports[p];
		if (port > 0 && pt->num != port)
			continue;
		if (pt->usable.v != FAB_NO)
			return true;
		char s[200];
		snprintf(s, sizeof(s), _("port %d: %s"), pt->num, pt->usable.why);
		list_add(states, sizeof(states), s);
	}
	if (port > 0 && !states[0])
		snprintf(why, len, _("%s has no port %d"), n->name, port);
	else
		snprintf(why, len, _("%s: no usable port (%s)"), n->name, states[0] ? states : _("no ports"));
	return false;
}

/* ---- the checks ---- */

struct ctx {
	const struct fab_job *j;
	const struct fab_model *m;
	struct fab_model *out;
	const struct fab_job_net *net;
	bool ib_off;                  /* NCCL_IB_DISABLE=1 or NCCL_NET=Socket */
	char usable_hcas[256];        /* usable on this node for this job */
	bool *hca_in_use;             /* per model NIC: the HCAs NCCL would use */
	bool (*reported)[FAB_MAX_PORTS];   /* per model NIC and port: said already */
	int found;
};

static void check_ifname_set(struct ctx *c, const char *spec)
{
	const struct fab_job_net *net = c->net;
	struct nccl_list l;
	parse_list(spec, &l);
	char all[512] = "", matched[512] = "", states[384] = "";
	int nmatched = 0, nusable = 0;
	for (int k = 0; k < net->nifs; k++) {
		const struct fab_job_if *i = &net->ifs[k];
		list_add(all, sizeof(all), i->name);
		if (!list_match(&l, i->name, -1))
			continue;
		nmatched++;
		list_add(matched, sizeof(matched), i->name);
		char st[160];
		if_state_text(net, i, st, sizeof(st));
		list_add(states, sizeof(states), st);
		if (if_usable(net, i) && (i->has_v4 || i->has_v6_global || i->has_v6_link))
			nusable++;
	}
	struct fab_finding *f;
	if (nmatched == 0 || (l.exclude && nusable == 0)) {
		f = add(c->out, "job.ifname-missing", SEV_ERROR, c->j, LAYER_IF);
		snprintf(f->message, sizeof(f->message), l.exclude ?
			 _("NCCL_SOCKET_IFNAME=%s leaves no usable interface in the process's network namespace") :
			 _("NCCL_SOCKET_IFNAME=%s names no interface in the process's network namespace"),
			 spec);
		snprintf(f->evidence, sizeof(f->evidence), _("interfaces there (%s): %s%s%s"),
			 c->j->netns[0] ? c->j->netns : _("namespace unknown"), all[0] ? all : _("none"),
			 nmatched ? _("; matching but unusable: ") : "", nmatched ? states : "");
		snprintf(f->hint, sizeof(f->hint), _("NCCL fails at init ('no socket interface found'): set "
			 "NCCL_SOCKET_IFNAME to an interface that exists where the job runs (names are per "
			 "namespace: a pod sees its own), or leave it unset for NCCL's choice"));
		c->found++;
		return;
	}
	if (l.exclude)
		return;
	/* Each named interface that cannot carry traffic: an error when nothing
	 * usable remains (NCCL fails), else a warning (NCCL uses the others). */
	enum fab_severity sev = nusable ? SEV_WARN : SEV_ERROR;
	for (int k = 0; k < net->nifs; k++) {
		const struct fab_job_if *i = &net->ifs[k];
		if (!list_match(&l, i->name, -1))
			continue;
		char st[160];
		if_state_text(net, i, st, sizeof(st));
		bool any_addr = i->has_v4 || i->has_v6_global || i->has_v6_link;
		if (net->state_known && !(i->running.ok && i->running.v)) {
			f = add(c->out, "job.ifname-down", sev, c->j, LAYER_IF);
			snprintf(f->message, sizeof(f->message), _("NCCL_SOCKET_IFNAME=%s: %s is %s; NCCL "
				 "skips interfaces that are not RUNNING"), spec, i->name,
				 !i->up.v ? _("down") : _("up without carrier"));
			snprintf(f->evidence, sizeof(f->evidence), _("%s (read by %s)"), st, net->how_text);
			snprintf(f->hint, sizeof(f->hint), "%s", !i->up.v ?
				 _("bring the interface up in the job's namespace, or point NCCL_SOCKET_IFNAME "
				 "at one that is") : _("check the cable/peer of this port (no carrier)"));
			c->found++;
		} else if (!any_addr) {
			bool sure = net->v4_known;
			f = add(c->out, "job.ifname-no-addr", sure ? sev : SEV_WARN, c->j, LAYER_IF);
			snprintf(f->message, sizeof(f->message), sure ? _("NCCL_SOCKET_IFNAME=%s: %s has no IP "
				 "address; NCCL needs one to bind its sockets") : _("NCCL_SOCKET_IFNAME=%s: %s has "
				 "no IP address that fabtop could see; NCCL needs one to bind its sockets"), spec, i->name);
			snprintf(f->evidence, sizeof(f->evidence), _("%s (read by %s)%s%s"), st, net->how_text,
				 net->note[0] ? "; " : "", net->note);
			snprintf(f->hint, sizeof(f->hint), _("give %s an address on the cluster network, or "
				 "name the interface that has it"), i->name);
			c->found++;
		} else if (!i->has_v4 && !i->has_v6_global) {
			f = add(c->out, "job.ifname-no-addr", SEV_WARN, c->j, LAYER_IF);
			snprintf(f->message, sizeof(f->message), _("NCCL_SOCKET_IFNAME=%s: %s has only an "
				 "IPv6 link-local address; NCCL will use it, but other nodes reach it only "
				 "on the same link and with a scope id"), spec, i->name);
			snprintf(f->evidence, sizeof(f->evidence), _("%s (read by %s)"), st, net->how_text);
			snprintf(f->hint, sizeof(f->hint), _("give %s an IPv4 or global IPv6 address"), i->name);
			c->found++;
		}
	}
}

static void check_mgmt(struct ctx *c, char chosen[][FAB_NAME_LEN], int n, const char *spec,
		       const char *rule)
{
	char rdma[256];
	rdma_netdevs_here(c->m, c->net, rdma, sizeof(rdma));
	if (n == 0 || !rdma[0] || !c->net->default_if[0])
		return;
	for (int k = 0; k < n; k++)
		if (strcmp(chosen[k], c->net->default_if) != 0 || is_rdma_netdev(c->m, chosen[k]))
			return;
	/* Bootstrap on the front-end network is normal; the data path on it
	 * (sockets instead of RDMA) is what hurts. */
	bool sockets = c->ib_off || !c->usable_hcas[0];
	struct fab_finding *f = add(c->out, "job.ifname-mgmt", sockets ? SEV_WARN : SEV_INFO, c->j,
				    LAYER_IF);
	snprintf(f->message, sizeof(f->message), _("NCCL's socket interface is %s, the default-route "
		 "(management) interface, while RDMA netdevs exist: %s"), chosen[0], sockets ?
		 _("with IB off, all inter-node traffic goes over it") :
		 _("only bootstrap uses it while IB carries the data"));
	snprintf(f->evidence, sizeof(f->evidence), "%s%s -> %s (%s); default route via %s; RDMA "
		 "netdevs there: %s", spec && strlen(spec) > 1 ? "NCCL_SOCKET_IFNAME=" : "unset, rule: ",
		 spec && strlen(spec) > 1 ? spec : rule, chosen[0], c->net->how_text,
		 c->net->default_if, rdma);
	snprintf(f->hint, sizeof(f->hint), sockets ?
		 _("if this is not the deliberate socket run of an A/B test, re-enable IB; for sockets on "
		 "the fast network set NCCL_SOCKET_IFNAME=%s") :
		 _("fine as it is; to keep bootstrap off the management network set NCCL_SOCKET_IFNAME=%s"),
		 FAB_SHQ(rdma));
	c->found++;
}

static void check_ifname(struct ctx *c)
{
	const char *spec = job_var(c->j, "NCCL_SOCKET_IFNAME");
	const struct fab_job_net *net = c->net;
	if (net->how == JOB_NET_NONE || net->nifs == 0) {
		struct fab_finding *f = add(c->out, "job.net-unreadable", SEV_WARN, c->j, LAYER_IF);
		snprintf(f->message, sizeof(f->message), _("the interfaces of its network namespace could "
			 "not be read: NCCL_SOCKET_IFNAME is not checked"));
		snprintf(f->evidence, sizeof(f->evidence), "%s", net->note[0] ? net->note : net->how_text);
		snprintf(f->hint, sizeof(f->hint), _("run fabtop as root, on the node (or in the pod) "
			 "where the job runs"));
		c->found++;
		return;
	}
	char chosen[8][FAB_NAME_LEN];
	const char *rule;
	int n = job_nccl_ifaces(net, spec, job_var(c->j, "NCCL_COMM_ID"), chosen, 8, &rule);
	if (spec && strlen(spec) > 1) {
		check_ifname_set(c, spec);
		check_mgmt(c, chosen, n, spec, rule);
		return;
	}
	char cands[384] = "", names[160] = "";
	for (int k = 0; k < net->nifs; k++) {
		char st[160];
		if_state_text(net, &net->ifs[k], st, sizeof(st));
		list_add(cands, sizeof(cands), st);
	}
	for (int k = 0; k < n; k++)
		list_add(names, sizeof(names), chosen[k]);
	bool only_lo = n > 0 && strcmp(rule, "lo (nothing else was usable)") == 0;
	struct fab_finding *f = add(c->out, "job.ifname-auto", n == 0 ? SEV_ERROR :
				    only_lo ? SEV_WARN : SEV_INFO, c->j, LAYER_IF);
	if (n == 0)
		snprintf(f->message, sizeof(f->message), _("NCCL_SOCKET_IFNAME is unset and NCCL would "
			 "find no usable interface (none RUNNING with an address)"));
	else
		snprintf(f->message, sizeof(f->message), _("NCCL_SOCKET_IFNAME is unset: NCCL would use "
			 "%s (its rule: %s)%s"), names, _(rule), only_lo ?
			 _("; loopback only reaches this node") : "");
	snprintf(f->evidence, sizeof(f->evidence), _("%s%s; NCCL's order: ib*, NCCL_COMM_ID's subnet, "
		 "anything but docker/lo/virbr, docker*, lo, virbr* (running, with an address); "
		 "here (%s): %s"), spec ? _("a one-character value is ignored by NCCL: ") : "",
		 spec ? spec : "unset", net->how_text, cands);
	snprintf(f->hint, sizeof(f->hint), "%s", n == 0 ? _("bring up an interface with an address in "
		 "the job's namespace") : _("set NCCL_SOCKET_IFNAME to make the choice explicit (the same "
		 "on every node)"));
	c->found++;
	check_mgmt(c, chosen, n, spec, rule);
}

/* A port NCCL passes over: its state is read and not ACTIVE. ncclIbInit
 * (src/transport/net_ib.cc) queries every port of every device and drops
 * one that is not IBV_PORT_ACTIVE before it matches NCCL_IB_HCA: no
 * warning, the job runs on the others (on none: sockets). */
static bool port_skipped(const struct fab_port *pt)
{
	return pt->state.ok && !port_active(pt);
}

static void port_words(const struct fab_port *pt, char *buf, size_t len)
{
	snprintf(buf, len, _("%s, physical state %s"), pt->state_str[0] ? pt->state_str : "not ACTIVE",
		 pt->phys_state_str[0] ? pt->phys_state_str : _("unknown"));
}

/* NCCL_IB_HCA names this port (exactly, or "dev" with dev's one port, or
 * "dev:N") and NCCL will skip it: an error, the job meant that rail. */
static void hca_port_down(struct ctx *c, const char *spec, const struct fab_nic *nic,
			  const struct fab_port *pt, bool by_port)
{
	char st[96], usable[256];
	port_words(pt, st, sizeof(st));
	model_usable_hcas(c->m, usable, sizeof(usable));
	struct fab_finding *f = add(c->out, "job.ib-hca-down", SEV_ERROR, c->j, LAYER_IB);
	snprintf(f->message, sizeof(f->message), by_port ? _("NCCL_IB_HCA=%s names %s port %d, which is %s: "
		 "NCCL skips a port that is not ACTIVE, so the job runs without this rail (with none left, "
		 "over sockets)") : _("NCCL_IB_HCA=%s names %s's only port %d, which is %s: NCCL skips a port "
		 "that is not ACTIVE, so the job runs without this rail (with none left, over sockets)"),
		 spec, nic->name, pt->num, st);
	snprintf(f->evidence, sizeof(f->evidence), _("/sys/class/infiniband/%s/ports/%d/state=%s "
		 "phys_state=%s; ncclIbInit drops ports that are not ACTIVE before it reads NCCL_IB_HCA"),
		 nic->name, pt->num, pt->state_str[0] ? pt->state_str : "?",
		 pt->phys_state_str[0] ? pt->phys_state_str : "?");
	if (usable[0])
		snprintf(f->hint, sizeof(f->hint), _("bring the port up (ibstat %s %d; the Links pane says "
			 "why it is down), or name the usable ports: NCCL_IB_HCA=%s"), FAB_SHQ(nic->name),
			 pt->num, FAB_SHQ(usable));
	else
		snprintf(f->hint, sizeof(f->hint), _("bring the port up (ibstat %s %d; the Links pane says "
			 "why it is down): no port is usable here"), FAB_SHQ(nic->name), pt->num);
	c->found++;
}

/* One entry of an NCCL_IB_HCA list that names HCAs (exactly, or by
 * prefix): the HCAs it selects in use, or why not (job.ib-hca-down for a
 * port NCCL will skip, job.ib-hca-unusable, job.ib-hca-missing); reported
 * marks the ports said. */
static void check_hca_entry(struct ctx *c, const char *spec, const struct nccl_list *l, int k,
			    const char *all)
{
	const struct fab_model *m = c->m;
	char why[256];
	struct fab_finding *f;
	int hits = 0;
	for (int n = 0; n < m->nnics; n++) {
		const struct fab_nic *nic = &m->nics[n];
		if (!name_match(l, k, nic->name))
			continue;
		hits++;
		if (job_nic_usable(nic, c->j, l->port[k], why, sizeof(why))) {
			c->hca_in_use[n] = true;
			continue;
		}
		/* A prefix ("mlx5") selects a family: NCCL passing over one
		 * of its down ports is note_hca_skipped's info, not an error. */
		char why2[256];
		bool named = l->exact || strcmp(nic->name, l->name[k]) == 0;
		bool reach = job_nic_reachable(nic, c->j, why2, sizeof(why2));
		int down = 0;
		for (int p = 0; reach && named && p < nic->nports && p < FAB_MAX_PORTS; p++) {
			const struct fab_port *pt = &nic->ports[p];
			if ((l->port[k] > 0 && pt->num != l->port[k]) || !port_skipped(pt))
				continue;
			if (c->reported[n][p])
				continue;
			c->reported[n][p] = true;
			hca_port_down(c, spec, nic, pt, l->port[k] > 0 || nic->nports > 1);
			down++;
		}
		if (down || (reach && !named))
			continue;
		f = add(c->out, "job.ib-hca-unusable", SEV_ERROR, c->j, LAYER_IB);
		snprintf(f->message, sizeof(f->message), _("NCCL_IB_HCA=%s names %s, which NCCL "
			 "cannot use here"), spec, nic->name);
		snprintf(f->evidence, sizeof(f->evidence), "%s", why);
		snprintf(f->hint, sizeof(f->hint), _("fix the device (layer 1 of the wizard) or "
			 "name a usable HCA: %s"), c->usable_hcas[0] ? FAB_SHQ(c->usable_hcas) : _("none here"));
		c->found++;
	}
	if (hits == 0) {
		f = add(c->out, "job.ib-hca-missing", SEV_ERROR, c->j, LAYER_IB);
		snprintf(f->message, sizeof(f->message), l->exact ? _("NCCL_IB_HCA=%s: no HCA named '%s' on "
			 "this node") : _("NCCL_IB_HCA=%s: no HCA starting with '%s' on this node"), spec, l->name[k]);
		snprintf(f->evidence, sizeof(f->evidence), _("HCAs here (/sys/class/infiniband): %s"),
			 all[0] ? all : _("none"));
		snprintf(f->hint, sizeof(f->hint), _("names differ between node types (mlx5_0 vs "
			 "mlx5_ib0); without a usable HCA NCCL falls back to sockets"));
		c->found++;
	}
}

/* The ports NCCL passes over that the job did not name (reported): what
 * NCCL does, said once (job.ib-hca-skipped); an unused port
 * (links.port-unused) costs nothing. */
static void note_hca_skipped(struct ctx *c, const char *spec, const struct nccl_list *l)
{
	const struct fab_model *m = c->m;
	char why[256];
	struct fab_finding *f;
	char skipped[320] = "";
	int nskip = 0;
	for (int n = 0; n < m->nnics; n++) {
		const struct fab_nic *nic = &m->nics[n];
		if (!job_nic_reachable(nic, c->j, why, sizeof(why)))
			continue;
		for (int p = 0; p < nic->nports && p < FAB_MAX_PORTS; p++) {
			const struct fab_port *pt = &nic->ports[p];
			if (c->reported[n][p] || !port_skipped(pt) || !list_match(l, nic->name, pt->num))
				continue;
			char one[FAB_NAME_LEN + 64];
			snprintf(one, sizeof(one), "%s:%d (%s/%s)", nic->name, pt->num,
				 pt->state_str[0] ? pt->state_str : "?",
				 pt->phys_state_str[0] ? pt->phys_state_str : "?");
			list_add(skipped, sizeof(skipped), one);
			nskip++;
		}
	}
	if (!nskip)
		return;
	char usable[256];
	model_usable_hcas(m, usable, sizeof(usable));
	f = add(c->out, "job.ib-hca-skipped", SEV_INFO, c->j, LAYER_IB);
	if (spec && *spec)
		snprintf(f->message, sizeof(f->message), P_("NCCL_IB_HCA selects them by prefix or exclusion: NCCL "
			 "takes the ACTIVE ports and passes over the one that is not: %s", "NCCL_IB_HCA selects "
			 "them by prefix or exclusion: NCCL takes the ACTIVE ports and passes over those that are "
			 "not: %s", (unsigned long)nskip), skipped);
	else
		snprintf(f->message, sizeof(f->message), P_("NCCL_IB_HCA is unset: NCCL takes the ACTIVE ports "
			 "and passes over the one that is not: %s", "NCCL_IB_HCA is unset: NCCL takes the ACTIVE "
			 "ports and passes over those that are not: %s", (unsigned long)nskip), skipped);
	snprintf(f->evidence, sizeof(f->evidence), _("NCCL_IB_HCA=%s; ncclIbInit drops ports that are not "
		 "ACTIVE before it reads NCCL_IB_HCA, without a warning; usable here: %s"),
		 spec && *spec ? spec : "(unset)", usable[0] ? usable : "none");
	if (usable[0])
		snprintf(f->hint, sizeof(f->hint), _("nothing to do for a port meant to be free (links.port-unused); "
			 "a down rail is links.port-down's error; to make the choice explicit: NCCL_IB_HCA=%s"),
			 FAB_SHQ(usable));
	else
		snprintf(f->hint, sizeof(f->hint), _("nothing to do for a port meant to be free (links.port-unused); "
			 "a down rail is links.port-down's error"));
	c->found++;
}

static void check_hca(struct ctx *c)
{
	const struct fab_model *m = c->m;
	const char *spec = job_var(c->j, "NCCL_IB_HCA");
	char all[256] = "", why[256];
	for (int n = 0; n < m->nnics; n++)
		list_add(all, sizeof(all), m->nics[n].name);
	struct nccl_list l;
	parse_list(spec && *spec ? spec : NULL, &l);
	struct fab_finding *f;
	if (!spec || !*spec) {
		for (int n = 0; n < m->nnics; n++)
			c->hca_in_use[n] = job_nic_usable(&m->nics[n], c->j, -1, why, sizeof(why));
	} else if (l.exclude) {
		int left = 0;
		for (int n = 0; n < m->nnics; n++)
			if (list_match(&l, m->nics[n].name, -1) &&
			    job_nic_usable(&m->nics[n], c->j, -1, why, sizeof(why))) {
				c->hca_in_use[n] = true;
				left++;
			}
		if (left == 0 && !c->ib_off) {
			f = add(c->out, "job.ib-hca-missing", SEV_ERROR, c->j, LAYER_IB);
			snprintf(f->message, sizeof(f->message), _("NCCL_IB_HCA=%s excludes every usable HCA "
				 "on this node"), spec);
			snprintf(f->evidence, sizeof(f->evidence), _("HCAs here: %s; usable: %s"),
				 all[0] ? all : _("none"), c->usable_hcas[0] ? c->usable_hcas : _("none"));
			snprintf(f->hint, sizeof(f->hint), _("NCCL falls back to sockets: narrow the exclusion"));
			c->found++;
		}
	} else {
		for (int k = 0; k < l.n; k++)
			check_hca_entry(c, spec, &l, k, all);
	}
	if (!c->ib_off)
		note_hca_skipped(c, spec, &l);
}

/* The HCAs this job would use mix IB and RoCE ports: NCCL then pairs an
 * IB port with a RoCE one across ranks, which cannot connect (a hang at
 * init, or completion errors). */
static void check_hca_mixed(struct ctx *c)
{
	if (c->ib_off)
		return;
	const struct fab_model *m = c->m;
	char ib[200] = "", roce[200] = "", ibcsv[200] = "";
	for (int n = 0; n < m->nnics; n++) {
		if (!c->hca_in_use[n])
			continue;
		bool has_ib = false, has_roce = false;
		for (int p = 0; p < m->nics[n].nports; p++) {
			const struct fab_port *pt = &m->nics[n].ports[p];
			has_ib |= pt->usable.v == FAB_YES && pt->ll == FAB_LL_IB;
			has_roce |= pt->usable.v == FAB_YES && pt->ll == FAB_LL_ETH;
		}
		if (has_ib) {
			list_add(ib, sizeof(ib), m->nics[n].name);
			fab_catf(ibcsv, sizeof(ibcsv), "%s%s", ibcsv[0] ? "," : "", m->nics[n].name);
		}
		if (has_roce)
			list_add(roce, sizeof(roce), m->nics[n].name);
	}
	if (!ib[0] || !roce[0])
		return;
	const char *spec = job_var(c->j, "NCCL_IB_HCA");
	struct fab_finding *f = add(c->out, "job.ib-hca-mixed", SEV_WARN, c->j,
				    N_("step 0 (the job): NCCL pairs its HCAs across ranks; IB and RoCE cannot meet"));
	snprintf(f->message, sizeof(f->message), spec && *spec ? _("NCCL_IB_HCA lets NCCL use InfiniBand and "
		 "RoCE HCAs together: an IB port cannot connect to a RoCE one") : _("no NCCL_IB_HCA lets NCCL use "
		 "InfiniBand and RoCE HCAs together: an IB port cannot connect to a RoCE one"));
	snprintf(f->evidence, sizeof(f->evidence), "NCCL_IB_HCA=%s; InfiniBand: %s; RoCE: %s",
		 spec && *spec ? spec : "(unset)", ib, roce);
	snprintf(f->hint, sizeof(f->hint), _("NCCL_IB_HCA=%s (the IB rails), or the RoCE list if those "
		 "are the job's network"), FAB_SHQ(ibcsv));
	c->found++;
}

static bool is_v2(const struct fab_gid *g)
{
	return strcmp(g->type, "RoCE v2") == 0;
}

/* fe80::/10: a link-local address, reachable on its own segment only. */
static bool gid_link_local(const struct fab_gid *g)
{
	return strncasecmp(g->gid, "fe8", 3) == 0 || strncasecmp(g->gid, "fe9", 3) == 0 ||
	       strncasecmp(g->gid, "fea", 3) == 0 || strncasecmp(g->gid, "feb", 3) == 0;
}

static void check_gid(struct ctx *c)
{
	const char *v = job_var(c->j, "NCCL_IB_GID_INDEX");
	const char *fam = job_var(c->j, "NCCL_IB_ADDR_FAMILY");
	bool want6 = fam && strcmp(fam, "AF_INET6") == 0;
	if (!v || !*v || c->ib_off)
		return;
	char *end;
	long want = strtol(v, &end, 10);
	struct fab_finding *f;
	if (*end || want < -1 || want >= 1024) {
		f = add(c->out, "job.gid-index", SEV_ERROR, c->j, LAYER_GID);
		snprintf(f->message, sizeof(f->message), _("NCCL_IB_GID_INDEX=%s is not a GID index"), v);
		snprintf(f->evidence, sizeof(f->evidence), _("expected a number (0..255), or -1 for NCCL's "
			 "own choice"));
		snprintf(f->hint, sizeof(f->hint), _("unset it, or set the index of a RoCE v2 GID"));
		c->found++;
		return;
	}
	if (want < 0)
		return;   /* NCCL picks by NCCL_IB_ROCE_VERSION_NUM and NCCL_IB_ADDR_FAMILY */
	/* A GID table not read yet holds no GID: that is no "has no GID at
	 * index N". The caller asks for it (collect_detail) before checking. */
	if (!model_has(c->m, FAB_HAVE_GIDS))
		return;
	for (int n = 0; n < c->m->nnics; n++) {
		if (!c->hca_in_use[n])
			continue;
		const struct fab_nic *nic = &c->m->nics[n];
		for (int p = 0; p < nic->nports; p++) {
			const struct fab_port *pt = &nic->ports[p];
			if (pt->ll != FAB_LL_ETH)
				continue;   /* InfiniBand addresses by LID; the GID index is for RoCE */
			const struct fab_gid *g = NULL, *best = NULL;
			char v2[160] = "";
			for (int k = 0; k < pt->ngids; k++) {
				const struct fab_gid *x = &pt->gids[k];
				if (x->index == want)
					g = x;
				if (!is_v2(x))
					continue;
				char s[80];
				snprintf(s, sizeof(s), "%d%s%s%s", x->index, x->ip[0] ? " (" : "", x->ip,
					 x->ip[0] ? ")" : "");
				list_add(v2, sizeof(v2), s);
				/* What NCCL wants: RoCE v2 on the job's address family
				 * (IPv4 unless NCCL_IB_ADDR_FAMILY=AF_INET6), not link-local. */
				if (!best && !gid_link_local(x) && x->ip[0] && x->ipv4 == !want6)
					best = x;
			}
			bool local = g && is_v2(g) && gid_link_local(g);
			if (g && is_v2(g) && !local)
				continue;
			/* Past the kept slots of a cut table: not known absent. */
			if (!g && fab_port_gids_cut(pt, want))
				continue;
			f = add(c->out, "job.gid-index", g && !local ? SEV_WARN : SEV_ERROR, c->j, LAYER_GID);
			if (!g)
				snprintf(f->message, sizeof(f->message), _("NCCL_IB_GID_INDEX=%ld: %s port %d "
					 "has no GID at index %ld"), want, nic->name, pt->num, want);
			else if (local)
				snprintf(f->message, sizeof(f->message), _("NCCL_IB_GID_INDEX=%ld: %s port %d "
					 "GID %ld is RoCE v2 on the link-local address %s: packets to a peer "
					 "on another subnet cannot be routed"), want, nic->name, pt->num, want,
					 g->ip[0] ? g->ip : "fe80::");
			else
				snprintf(f->message, sizeof(f->message), _("NCCL_IB_GID_INDEX=%ld: %s port %d "
					 "GID %ld is %s, not RoCE v2 (not routable across subnets)"), want,
					 nic->name, pt->num, want, g->type[0] ? g->type : _("of unknown type"));
			snprintf(f->evidence, sizeof(f->evidence), _("%s/%d: %d GIDs set; RoCE v2: %s%s%s"),
				 nic->name, pt->num, pt->ngids + pt->gids_more, v2[0] ? v2 : "none",
				 g ? _("; index is ") : "", g ? g->gid : "");
			if (best)
				snprintf(f->hint, sizeof(f->hint), _("NCCL_IB_GID_INDEX=%d on %s (RoCE v2, %s), or "
					 "unset it to let NCCL choose (GID indexes differ per node and change "
					 "when addresses do)"), best->index, nic->name, best->ip);
			else
				snprintf(f->hint, sizeof(f->hint), _("give the port's netdev an %s address so a "
					 "routable RoCE v2 GID appears"), want6 ? _("IPv6 global") : "IPv4");
			c->found++;
		}
	}
}

static void check_ib_disabled(struct ctx *c)
{
	const char *dis = job_var(c->j, "NCCL_IB_DISABLE"), *net = job_var(c->j, "NCCL_NET");
	bool by_disable = is_true(dis), by_net = net && strcasecmp(net, "Socket") == 0;
	if (!by_disable && !by_net)
		return;
	bool rdma = c->usable_hcas[0] != '\0';
	struct fab_finding *f = add(c->out, "job.ib-disabled", rdma ? SEV_WARN : SEV_INFO, c->j,
				    N_("step 0 (the job): which transport NCCL uses between nodes"));
	snprintf(f->message, sizeof(f->message), rdma ? _("%s: NCCL uses TCP sockets between nodes although "
		 "RDMA devices are usable here") : _("%s: NCCL uses TCP sockets between nodes; no usable RDMA "
		 "device here anyway"), by_disable ? "NCCL_IB_DISABLE=1" : "NCCL_NET=Socket");
	snprintf(f->evidence, sizeof(f->evidence), "%s%s%s%s; usable HCAs: %s",
		 by_disable ? "NCCL_IB_DISABLE=" : "", by_disable ? dis : "",
		 by_disable && by_net ? ", " : "", by_net ? "NCCL_NET=Socket" : "",
		 rdma ? c->usable_hcas : "none");
	snprintf(f->hint, sizeof(f->hint), "%s", rdma ?
		 _("expect a fraction of the bandwidth; remove it unless this is the socket run of an A/B "
		 "test (an external net plugin ignores NCCL_IB_DISABLE: NCCL_NET=Socket is the sure way)") :
		 _("nothing to gain from RDMA on this node as it is"));
	c->found++;
}

static void check_debug_file(struct ctx *c)
{
	const struct fab_job *j = c->j;
	const char *t = job_var(j, "NCCL_DEBUG_FILE");
	if (!t || !*t)
		return;
	const char *lvl = job_var(j, "NCCL_DEBUG");
	char path[FAB_PATH_LEN], size[64] = "";
	fab_strlcpy(path, j->debug_file, sizeof(path));
	if (!path[0])
		job_expand_debug_file(t, c->m->host, j->nspid, path, sizeof(path));
	struct fab_finding *f = add(c->out, "job.debug-file", SEV_INFO, c->j, LAYER_LOG);
	snprintf(f->message, sizeof(f->message), lvl && *lvl ? _("NCCL writes its log to %s") :
		 _("NCCL writes its log to %s (but NCCL_DEBUG is unset: nothing is logged)"), path);
	if (j->debug_file_size.ok)
		snprintf(size, sizeof(size), _("; %lld bytes now"), j->debug_file_size.v);
	else if (!j->from_capture)
		snprintf(size, sizeof(size), _("; not there (yet)"));
	snprintf(f->evidence, sizeof(f->evidence), "NCCL_DEBUG_FILE=%s (%%h=%s, %%p=%d)%s%s%s; "
		 "NCCL_DEBUG=%s", t, j->host[0] ? j->host : c->m->host, j->nspid,
		 j->debug_file_open[0] ? _("; from here: ") : "", j->debug_file_open, size,
		 lvl && *lvl ? lvl : "unset");
	snprintf(f->hint, sizeof(f->hint), "fabtop analyze-log %s", FAB_SHQ(j->debug_file_open[0] ?
		 j->debug_file_open : path));
	c->found++;
}

int job_check(const struct fab_job *j, const struct fab_model *m, struct fab_model *out)
{
	struct ctx c = { .j = j, .m = m, .out = out };
	struct fab_job_net view;
	bool own_view = j->net.how == JOB_NET_MODEL;
	if (own_view) {
		job_net_from_model(m, &view);
		fab_strlcpy(view.default_if, j->net.default_if, sizeof(view.default_if));
		c.net = &view;
	} else {
		c.net = &j->net;
	}
	/* One flag per HCA of the node, however many (SR-IOV: hundreds). */
	size_t nn = m->nnics > 0 ? (size_t)m->nnics : 1;
	c.hca_in_use = calloc(nn, sizeof(*c.hca_in_use));
	c.reported = calloc(nn, sizeof(*c.reported));
	if (!c.hca_in_use || !c.reported) {
		free(c.hca_in_use);
		free(c.reported);
		if (own_view)
			job_net_free(&view);
		return 0;
	}
	const char *dis = job_var(j, "NCCL_IB_DISABLE"), *net = job_var(j, "NCCL_NET");
	c.ib_off = is_true(dis) || (net && strcasecmp(net, "Socket") == 0);
	char why[256];
	for (int n = 0; n < m->nnics; n++)
		if (job_nic_usable(&m->nics[n], j, -1, why, sizeof(why)))
			list_add(c.usable_hcas, sizeof(c.usable_hcas), m->nics[n].name);
	check_hca(&c);
	check_hca_mixed(&c);
	check_ib_disabled(&c);
	check_ifname(&c);
	check_gid(&c);
	check_debug_file(&c);
	if (own_view)
		job_net_free(&view);
	free(c.hca_in_use);
	free(c.reported);
	return c.found;
}

int job_check_unreadable(const struct fab_job_list *l, struct fab_model *out)
{
	if (!l->unreadable)
		return 0;
	/* With no job found, the unread ones may be the job: that is unknown,
	 * and worth a warning; beside found jobs, they may be other ranks. */
	struct fab_finding *f = model_add_finding(out, "job.unreadable",
						  l->njobs ? SEV_INFO : SEV_WARN, "node");
	const char *note = l->note[0] ? l->note : _("processes could not be read");
	if (l->njobs)
		snprintf(f->message, sizeof(f->message), "%s", note);
	else
		snprintf(f->message, sizeof(f->message), _("whether an NCCL process runs here is unknown: %s"), note);
	snprintf(f->evidence, sizeof(f->evidence), P_("looked in %s; %d process not readable",
						       "looked in %s; %d processes not readable", (unsigned long)l->unreadable),
		 l->source[0] ? l->source : "?", l->unreadable);
	snprintf(f->hint, sizeof(f->hint), _("run fabtop as root (sudo -E fabtop wizard), with "
		 "CAP_SYS_PTRACE, or as the job's user, in the job's pod or on its node"));
	fab_strlcpy(f->layer, _("step 0 (the job): the NCCL processes on this node"), sizeof(f->layer));
	return 1;
}

int job_check_all(const struct fab_job_list *l, const struct fab_model *m, struct fab_model *out)
{
	int n = 0;
	for (int i = 0; i < l->njobs; i++)
		n += job_check(&l->jobs[i], m, out);
	n += job_check_unreadable(l, out);
	if (l->njobs == 0 && !l->unreadable) {
		struct fab_finding *f = model_add_finding(out, "job.none", SEV_INFO, "node");
		if (f) {
			snprintf(f->message, sizeof(f->message), _("no NCCL process on this node: the wizard "
				 "uses its own inputs (--iface, --hca, --peer)"));
			snprintf(f->evidence, sizeof(f->evidence), _("looked in %s for libnccl mapped or an "
				 "NCCL_ variable other than NCCL_VERSION%s%s"), l->source[0] ? l->source : "?",
				 l->note[0] ? "; " : "", l->note);
			snprintf(f->hint, sizeof(f->hint), _("start the job (or a small NCCL test) and run "
				 "step 0 again to check its settings"));
			fab_strlcpy(f->layer, _("step 0 (the job): the NCCL processes on this node"),
				    sizeof(f->layer));
			n++;
		}
	}
	return n;
}
