/* Step 0's pure parts: NCCL's interface list matching and choice, the
 * NCCL_DEBUG_FILE template, HCA/GID findings over a built model, and
 * job_scan on capture directories written here (good, garbage, old-style
 * NCCL_VERSION-only records). Namespaces and real processes: tests/job. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fabtop/vocab.h"
#include <unistd.h>
#include "job.h"
#include "procfs.h"
#include "fabtop/util.h"

static void test_if_match(void **state)
{
	assert_true(job_if_match("eth", "eth0"));
	assert_true(job_if_match("eth0", "eth0.100"));      /* prefixes, as NCCL */
	assert_false(job_if_match("=eth0", "eth0.100"));
	assert_true(job_if_match("=eth0", "eth0"));
	assert_true(job_if_match("ib0:1,eth1", "eth1"));     /* ":port" ignored for interfaces */
	assert_true(job_if_match("ib0:1,eth1", "ib0"));
	assert_false(job_if_match("^docker,lo", "lo"));
	assert_false(job_if_match("^docker,lo", "docker0"));
	assert_false(job_if_match("^docker,lo", "loop3"));   /* "lo" is a prefix too */
	assert_true(job_if_match("^docker,lo", "ens1f0"));
	assert_false(job_if_match("^=eth0", "eth0"));
	assert_true(job_if_match("^=eth0", "eth0.5"));
	assert_true(job_if_match("", "anything"));           /* empty list matches all */
	assert_true(job_if_match(",,", "x"));                /* only separators: still empty */
}

static void test_expand_debug_file(void **state)
{
	char out[128];
	job_expand_debug_file("/tmp/nccl.%h.%p.log", "gpu17", 4242, out, sizeof(out));
	assert_string_equal(out, "/tmp/nccl.gpu17.4242.log");
	job_expand_debug_file("log%x%%-%", "h", 1, out, sizeof(out));
	assert_string_equal(out, "log%x%%-%");
	job_expand_debug_file("/a/%h", "", 1, out, sizeof(out));
	assert_string_equal(out, "/a/%h");                   /* host unknown: left as written */
	job_expand_debug_file("/very/long/%p/%p/%p", "h", 123456, out, 12);
	assert_string_equal(out, "/very/long/");
	assert_int_equal(strlen(out), 11);
}

static struct fab_job_if *add_if(struct fab_job_net *n, const char *name, int idx, bool running,
				 const char *v4, const char *v6)
{
	n->ifs = realloc(n->ifs, (size_t)(n->nifs + 1) * sizeof(*n->ifs));
	struct fab_job_if *i = &n->ifs[n->nifs++];
	memset(i, 0, sizeof(*i));
	fab_strlcpy(i->name, name, sizeof(i->name));
	i->ifindex = fab_int_of(idx);
	i->up = fab_int_of(running);
	i->running = fab_int_of(running);
	if (v4) {
		fab_strlcpy(i->addrs[i->naddrs++], v4, sizeof(i->addrs[0]));
		i->has_v4 = true;
	}
	if (v6) {
		fab_strlcpy(i->addrs[i->naddrs++], v6, sizeof(i->addrs[0]));
		if (strncmp(v6, "fe80", 4) == 0)
			i->has_v6_link = true;
		else
			i->has_v6_global = true;
	}
	return i;
}

static void test_nccl_choice(void **state)
{
	struct fab_job_net n = { .how = JOB_NET_RTNL, .state_known = true, .v4_known = true };
	char names[8][FAB_NAME_LEN];
	const char *rule;
	add_if(&n, "lo", 1, true, "127.0.0.1/8", NULL);
	add_if(&n, "eno1", 2, true, "192.168.0.10/24", NULL);
	add_if(&n, "docker0", 3, true, "172.17.0.1/16", NULL);
	add_if(&n, "ens1np0", 4, true, NULL, "fd00::5/64");
	add_if(&n, "ens2np0", 5, false, "10.0.2.5/24", NULL);
	add_if(&n, "ens3np0", 6, true, "10.0.3.5/24", NULL);

	/* Unset: IPv4 first in interface order, then IPv6; lo, docker, down ones out. */
	assert_int_equal(job_nccl_ifaces(&n, NULL, NULL, names, 8, &rule), 3);
	assert_string_equal(rule, "anything but docker*, lo*, virbr*");
	assert_string_equal(names[0], "eno1");
	assert_string_equal(names[1], "ens3np0");
	assert_string_equal(names[2], "ens1np0");
	/* A one-character value is ignored by NCCL, exactly like unset. */
	assert_int_equal(job_nccl_ifaces(&n, "e", NULL, names, 8, &rule), 3);
	assert_string_equal(rule, "anything but docker*, lo*, virbr*");
	/* NCCL_COMM_ID's subnet comes before the catch-all. */
	assert_int_equal(job_nccl_ifaces(&n, NULL, "10.0.3.200:5000", names, 8, &rule), 1);
	assert_string_equal(rule, "NCCL_COMM_ID's subnet");
	assert_string_equal(names[0], "ens3np0");
	/* Set: only what matches, still only running ones with an address. */
	assert_int_equal(job_nccl_ifaces(&n, "ens", NULL, names, 8, &rule), 2);
	assert_string_equal(rule, "NCCL_SOCKET_IFNAME");
	assert_string_equal(names[0], "ens3np0");
	assert_string_equal(names[1], "ens1np0");
	assert_int_equal(job_nccl_ifaces(&n, "=ens2np0", NULL, names, 8, &rule), 0);
	/* ib* wins over everything when present. */
	add_if(&n, "ib0", 7, true, "10.9.0.1/16", NULL);
	assert_int_equal(job_nccl_ifaces(&n, NULL, NULL, names, 8, &rule), 1);
	assert_string_equal(rule, "ib* first");
	assert_string_equal(names[0], "ib0");
	/* Only loopback left: lo, said as such. */
	struct fab_job_net lo = { .how = JOB_NET_RTNL, .state_known = true, .v4_known = true };
	add_if(&lo, "lo", 1, true, "127.0.0.1/8", NULL);
	assert_int_equal(job_nccl_ifaces(&lo, NULL, NULL, names, 8, &rule), 1);
	assert_string_equal(rule, "lo (nothing else was usable)");
	/* Link state unknown (procfs): judged by addresses alone. */
	n.state_known = false;
	assert_int_equal(job_nccl_ifaces(&n, "=ens2np0", NULL, names, 8, &rule), 1);
	job_net_free(&n);
	job_net_free(&lo);
}

/* One RoCE HCA with a RoCE v1 GID at 0 and a RoCE v2 IPv4 GID at 3. */
static void build_node(struct fab_model *m)
{
	model_init(m);
	fab_strlcpy(m->host, "node1", sizeof(m->host));
	struct fab_nic *n = model_add_nic(m);
	fab_strlcpy(n->name, "mlx5_0", sizeof(n->name));
	fab_strlcpy(n->uverbs.name, "uverbs0", sizeof(n->uverbs.name));
	n->uverbs.present = true;
	n->uverbs.open_errno = fab_int_of(0);
	n->nports = 1;
	struct fab_port *p = &n->ports[0];
	p->num = 1;
	p->state = fab_int_of(4);
	fab_strlcpy(p->state_str, "ACTIVE", sizeof(p->state_str));
	p->ll = FAB_LL_ETH;
	fab_strlcpy(p->netdev, "ens1np0", sizeof(p->netdev));
	/* The GID table mlx5 fills for a netdev with an IPv4 address (as
	 * show_gids lists it): v1 and v2 on the link-local address, then v1
	 * and v2 on the IPv4-mapped one. */
	static const struct { const char *gid, *type, *ip; bool v4; } t[] = {
		{ "fe80:0000:0000:0000:ba3f:d2ff:fe8a:7000", "IB/RoCE v1", "fe80::ba3f:d2ff:fe8a:7000", false },
		{ "fe80:0000:0000:0000:ba3f:d2ff:fe8a:7000", "RoCE v2", "fe80::ba3f:d2ff:fe8a:7000", false },
		{ "0000:0000:0000:0000:0000:ffff:0a00:0105", "IB/RoCE v1", "10.0.1.5", true },
		{ "0000:0000:0000:0000:0000:ffff:0a00:0105", "RoCE v2", "10.0.1.5", true },
	};
	p->ngids = 4;
	for (int k = 0; k < 4; k++) {
		p->gids[k].index = k;
		fab_strlcpy(p->gids[k].gid, t[k].gid, sizeof(p->gids[k].gid));
		fab_strlcpy(p->gids[k].type, t[k].type, sizeof(p->gids[k].type));
		fab_strlcpy(p->gids[k].ip, t[k].ip, sizeof(p->gids[k].ip));
		p->gids[k].ipv4 = t[k].v4;
	}
}

static void set_var(struct fab_job *j, const char *k, const char *v)
{
	struct fab_job_var *x = &j->nccl[j->nnccl++];
	fab_strlcpy(x->name, k, sizeof(x->name));
	fab_strlcpy(x->value, v, sizeof(x->value));
	fab_strlcpy(x->source, "environment", sizeof(x->source));
}

static struct fab_job *job_with(const char *k1, const char *v1, const char *k2, const char *v2)
{
	struct fab_job *j = calloc(1, sizeof(*j));
	j->pid = j->nspid = 77;
	fab_strlcpy(j->comm, "python3", sizeof(j->comm));
	j->net.how = JOB_NET_RTNL;
	j->net.state_known = j->net.v4_known = true;
	add_if(&j->net, "ens1np0", 2, true, "10.0.1.5/24", NULL);
	if (k1)
		set_var(j, k1, v1);
	if (k2)
		set_var(j, k2, v2);
	return j;
}

static int only_finding(struct fab_job *j, struct fab_model *m, const char *id,
			enum fab_severity sev, const char *message)
{
	struct fab_model out;
	model_init(&out);
	int n = job_check(j, m, &out);
	assert_int_equal(n, out.nfindings);
	bool seen = false;
	for (int i = 0; i < out.nfindings; i++) {
		if (strcmp(out.findings[i].id, id) != 0)
			continue;
		seen = true;
		assert_int_equal(out.findings[i].sev, sev);
		assert_string_equal(out.findings[i].subject, "pid 77 python3");
		if (message)
			assert_string_equal(out.findings[i].message, message);
	}
	if (!seen && id[0])
		fail_msg("no %s among %d findings", id, out.nfindings);
	model_free(&out);
	job_net_free(&j->net);
	free(j);
	return n;
}

static void test_gid_and_hca(void **state)
{
	struct fab_model m;
	build_node(&m);
	assert_int_equal(only_finding(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_GID_INDEX", "3"),
				      &m, "", SEV_INFO, NULL), 0);
	only_finding(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_GID_INDEX", "5"), &m,
		     "job.gid-index", SEV_ERROR, "NCCL_IB_GID_INDEX=5: mlx5_0 port 1 has no GID at index 5");
	only_finding(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_GID_INDEX", "0"), &m,
		     "job.gid-index", SEV_WARN, NULL);
	only_finding(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_GID_INDEX", "2"), &m,
		     "job.gid-index", SEV_WARN,
		     "NCCL_IB_GID_INDEX=2: mlx5_0 port 1 GID 2 is IB/RoCE v1, not RoCE v2 (not routable across subnets)");
	/* RoCE v2, but on the link-local address: routed RoCE cannot reach a
	 * peer on another subnet. The hint names the IPv4 RoCE v2 index. */
	struct fab_model out;
	model_init(&out);
	struct fab_job *jg = job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_GID_INDEX", "1");
	job_check(jg, &m, &out);
	assert_int_equal(out.nfindings, 1);
	assert_string_equal(out.findings[0].id, "job.gid-index");
	assert_int_equal(out.findings[0].sev, SEV_ERROR);
	assert_string_equal(out.findings[0].message, "NCCL_IB_GID_INDEX=1: mlx5_0 port 1 GID 1 is RoCE v2 on "
			    "the link-local address fe80::ba3f:d2ff:fe8a:7000: packets to a peer on another "
			    "subnet cannot be routed");
	assert_non_null(strstr(out.findings[0].hint, "NCCL_IB_GID_INDEX=3 on mlx5_0 (RoCE v2, 10.0.1.5)"));
	model_free(&out);
	job_net_free(&jg->net);
	free(jg);
	only_finding(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_GID_INDEX", "three"), &m,
		     "job.gid-index", SEV_ERROR, "NCCL_IB_GID_INDEX=three is not a GID index");
	only_finding(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_HCA", "=mlx5_0:2"), &m,
		     "job.ib-hca-unusable", SEV_ERROR, NULL);
	only_finding(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_HCA", "^mlx5"), &m,
		     "job.ib-hca-missing", SEV_ERROR,
		     "NCCL_IB_HCA=^mlx5 excludes every usable HCA on this node");
	/* The uverbs node missing from the job's container. */
	struct fab_job *j = job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_HCA", "mlx5_0");
	j->uverbs_checked = true;
	fab_strlcpy(j->uverbs_visible, "uverbs1", sizeof(j->uverbs_visible));
	only_finding(j, &m, "job.ib-hca-unusable", SEV_ERROR, NULL);
	/* NCCL_NET=Socket, any case, with RDMA usable: a warning. */
	only_finding(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_NET", "socket"), &m,
		     "job.ib-disabled", SEV_WARN,
		     "NCCL_NET=Socket: NCCL uses TCP sockets between nodes although RDMA devices are usable here");
	model_free(&m);
}

/* A node with more HCAs than the checks once looked at (64: SR-IOV nodes
 * have hundreds of VFs): the job's HCA past them is checked like the
 * first. And a GID table the model cut (gids_more): an index past the
 * kept slots is not known absent, one before the last kept still is. */
static void test_many_hcas_and_cut_gids(void **state)
{
	struct fab_model m;
	(void)state;
	build_node(&m);
	struct fab_nic tmpl = m.nics[0];
	for (int k = 1; k < 80; k++) {
		struct fab_nic *n = model_add_nic(&m);
		*n = tmpl;
		snprintf(n->name, sizeof(n->name), "mlx5_%d", k);
		snprintf(n->uverbs.name, sizeof(n->uverbs.name), "uverbs%d", k);
	}
	only_finding(job_with("NCCL_IB_HCA", "=mlx5_70", "NCCL_IB_GID_INDEX", "5"), &m,
		     "job.gid-index", SEV_ERROR, "NCCL_IB_GID_INDEX=5: mlx5_70 port 1 has no GID at index 5");
	only_finding(job_with("NCCL_IB_HCA", "=mlx5_79:2", NULL, NULL), &m,
		     "job.ib-hca-unusable", SEV_ERROR, "NCCL_IB_HCA==mlx5_79:2 names mlx5_79, which NCCL "
		     "cannot use here");
	model_free(&m);

	build_node(&m);
	struct fab_port *p = &m.nics[0].ports[0];
	p->gids[3].index = 40;   /* the kept slots end at 40; more were filled past it */
	p->gids_more = 6;
	assert_int_equal(only_finding(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_GID_INDEX", "41"),
				      &m, "", SEV_INFO, NULL), 0);
	only_finding(job_with("NCCL_IB_HCA", "=mlx5_0", "NCCL_IB_GID_INDEX", "5"), &m,
		     "job.gid-index", SEV_ERROR, "NCCL_IB_GID_INDEX=5: mlx5_0 port 1 has no GID at index 5");
	p->gids_more = 0;
	only_finding(job_with("NCCL_IB_HCA", "=mlx5_0", "NCCL_IB_GID_INDEX", "41"), &m,
		     "job.gid-index", SEV_ERROR, "NCCL_IB_GID_INDEX=41: mlx5_0 port 1 has no GID at index 41");
	model_free(&m);
}

/* The findings' ids of one job_check, "id/sev" joined by spaces. */
static void ids_of(struct fab_job *j, const struct fab_model *m, char *buf, size_t len, struct fab_model *out)
{
	model_init(out);
	job_check(j, m, out);
	buf[0] = '\0';
	for (int i = 0; i < out->nfindings; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s/%s", i ? " " : "",
			 out->findings[i].id, sev_name(out->findings[i].sev));
	job_net_free(&j->net);
	free(j);
}

static const struct fab_finding *finding_of(const struct fab_model *out, const char *id)
{
	for (int i = 0; i < out->nfindings; i++)
		if (strcmp(out->findings[i].id, id) == 0)
			return &out->findings[i];
	fail_msg("no %s", id);
	return NULL;
}

/* mlx5_0 carries the traffic; mlx5_1, the second function of a dual-port
 * card (as StepMesh#15's ConnectX-6 Lx at 99:00.0/99:00.1 and
 * sriov-network-operator#635's mlx5_4 Up / mlx5_5 Down at 61:00.0/.1),
 * has no cable: DOWN, Disabled. NCCL's ncclIbInit drops it before it
 * reads NCCL_IB_HCA. Naming it is the job's error; not naming it is NCCL
 * passing over it, said as information. */
static void test_hca_names_down_port(void **state)
{
	struct fab_model m, out;
	char ids[512];
	build_node(&m);
	struct fab_nic *n = model_add_nic(&m);
	fab_strlcpy(n->name, "mlx5_1", sizeof(n->name));
	fab_strlcpy(n->uverbs.name, "uverbs1", sizeof(n->uverbs.name));
	n->uverbs.present = true;
	n->uverbs.open_errno = fab_int_of(0);
	n->nports = 1;
	n->ports[0].num = 1;
	n->ports[0].state = fab_int_of(1);
	fab_strlcpy(n->ports[0].state_str, "DOWN", sizeof(n->ports[0].state_str));
	n->ports[0].phys_state = fab_int_of(3);
	fab_strlcpy(n->ports[0].phys_state_str, "Disabled", sizeof(n->ports[0].phys_state_str));
	n->ports[0].ll = FAB_LL_ETH;
	fab_strlcpy(n->ports[0].netdev, "ens1f1np1", sizeof(n->ports[0].netdev));
	model_derive(&m);

	ids_of(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_HCA", "mlx5_0,mlx5_1"), &m, ids, sizeof(ids), &out);
	assert_string_equal(ids, "job.ib-hca-down/error");
	const struct fab_finding *f = finding_of(&out, "job.ib-hca-down");
	assert_string_equal(f->message, "NCCL_IB_HCA=mlx5_0,mlx5_1 names mlx5_1's only port 1, which is DOWN, "
			    "physical state Disabled: NCCL skips a port that is not ACTIVE, so the job runs "
			    "without this rail (with none left, over sockets)");
	assert_string_equal(f->evidence, "/sys/class/infiniband/mlx5_1/ports/1/state=DOWN phys_state=Disabled; "
			    "ncclIbInit drops ports that are not ACTIVE before it reads NCCL_IB_HCA");
	assert_string_equal(f->hint, "bring the port up (ibstat mlx5_1 1; the Links pane says why it is "
			    "down), or name the usable ports: NCCL_IB_HCA=mlx5_0");
	model_free(&out);

	/* Exact, with the port. */
	ids_of(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_HCA", "=mlx5_1:1"), &m, ids, sizeof(ids), &out);
	assert_string_equal(ids, "job.ib-hca-down/error");
	assert_non_null(strstr(finding_of(&out, "job.ib-hca-down")->message, "=mlx5_1:1 names mlx5_1 port 1, which is DOWN"));
	model_free(&out);

	/* Unset: NCCL passes over it; information, no error. */
	ids_of(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", NULL, NULL), &m, ids, sizeof(ids), &out);
	assert_string_equal(ids, "job.ib-hca-skipped/info");
	f = finding_of(&out, "job.ib-hca-skipped");
	assert_string_equal(f->message, "NCCL_IB_HCA is unset: NCCL takes the ACTIVE ports and passes over the "
			    "one that is not: mlx5_1:1 (DOWN/Disabled)");
	assert_string_equal(f->evidence, "NCCL_IB_HCA=(unset); ncclIbInit drops ports that are not ACTIVE "
			    "before it reads NCCL_IB_HCA, without a warning; usable here: mlx5_0");
	model_free(&out);

	/* A prefix selects a family: the same information. */
	ids_of(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_HCA", "mlx5"), &m, ids, sizeof(ids), &out);
	assert_string_equal(ids, "job.ib-hca-skipped/info");
	model_free(&out);

	/* Excluded, or IB off: nothing to say. */
	ids_of(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_HCA", "^mlx5_1"), &m, ids, sizeof(ids), &out);
	assert_string_equal(ids, "");
	model_free(&out);
	ids_of(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_DISABLE", "1"), &m, ids, sizeof(ids), &out);
	assert_string_equal(ids, "job.ib-disabled/warning");
	model_free(&out);
	model_free(&m);
}

/* ---- job_scan on capture directories ---- */

static void put(const char *dir, const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_scan_capture_dir(void **state)
{
	char dir[] = "/tmp/fabtop-test-job.XXXXXX", p[600];
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/fabtop", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/fabtop/procs", dir);
	mkdir(p, 0755);
	put(dir, "fabtop/meta.json", "{ \"format\": 1, \"host\": \"cap\" }\n");
	put(dir, "fabtop/procs/10.json", "{ \"pid\": 10, \"comm\": \"bash\", \"env\": "
	    "{ \"NCCL_VERSION\": \"2.28.3-1\", \"HOSTNAME\": \"pod-a.cluster\" } }");
	put(dir, "fabtop/procs/20.json", "{ \"pid\": 20, \"comm\": \"python3\", \"nccl_lib\": "
	    "\"/v/libnccl.so.2\", \"env\": { \"OMPI_COMM_WORLD_RANK\": \"3\", \"HOSTNAME\": "
	    "\"pod-a.cluster\", \"NCCL_DEBUG_FILE\": \"/l/%h.%p\" } }");
	put(dir, "fabtop/procs/30.json", "{ \"pid\": \"thirty\" }");
	put(dir, "fabtop/procs/40.json", "not json at all");
	put(dir, "fabtop/procs/50.json", "{ \"pid\": 50, \"env\": [ 1, 2 ], \"comm\": 7 }");
	put(dir, "fabtop/procs/5.json", "{ \"pid\": 5, \"env\": { \"NCCL_IB_HCA\": \"mlx5_0\", "
	    "\"NCCL_X\": 12 } }");
	struct fab_root r;
	char err[256];
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	assert_true(r.is_capture);
	struct fab_job_list l;
	assert_int_equal(job_scan(&r, &l, err, sizeof(err)), 0);
	assert_string_equal(l.source, "capture fabtop/procs");
	assert_int_equal(l.unreadable, 2);          /* 30 and 40; 50 is readable, not a job */
	assert_non_null(strstr(l.note, "2 files in fabtop/procs are not a process record"));
	assert_int_equal(l.njobs, 2);
	assert_int_equal(l.jobs[0].pid, 5);
	assert_string_equal(job_var(&l.jobs[0], "NCCL_IB_HCA"), "mlx5_0");
	assert_null(job_var(&l.jobs[0], "NCCL_X"));  /* not a string: dropped */
	assert_int_equal(l.jobs[1].pid, 20);
	assert_string_equal(l.jobs[1].comm, "python3");
	assert_string_equal(l.jobs[1].nccl_lib, "/v/libnccl.so.2");
	assert_string_equal(l.jobs[1].host, "pod-a");
	assert_string_equal(l.jobs[1].debug_file, "/l/pod-a.20");
	assert_string_equal(job_var(&l.jobs[1], "OMPI_COMM_WORLD_RANK"), "3");
	assert_int_equal(l.jobs[1].net.how, JOB_NET_MODEL);
	job_list_free(&l);
	root_close(&r);

	/* A directory that is not a capture: no processes, and job.none. */
	snprintf(p, sizeof(p), "%s/fabtop/meta.json", dir);
	unlink(p);
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	assert_int_equal(job_scan(&r, &l, err, sizeof(err)), 0);
	assert_int_equal(l.njobs, 0);
	struct fab_model m, out;
	model_init(&m);
	model_init(&out);
	assert_int_equal(job_check_all(&l, &m, &out), 1);
	assert_string_equal(out.findings[0].id, "job.none");
	model_free(&m);
	model_free(&out);
	job_list_free(&l);
	root_close(&r);
	static const char *const files[] = { "10", "20", "30", "40", "50", "5" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/fabtop/procs/%s.json", dir, files[i]);
		assert_int_equal(unlink(p), 0);
	}
	snprintf(p, sizeof(p), "%s/fabtop/procs", dir);
	assert_int_equal(rmdir(p), 0);
	snprintf(p, sizeof(p), "%s/fabtop", dir);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Processes that could not be read: not "no NCCL process" (job.none), but
 * job.unreadable, a warning while no job was found, info beside one. */
static void test_unreadable(void **state)
{
	(void)state;
	struct fab_job_list l;
	struct fab_model m, out;
	memset(&l, 0, sizeof(l));
	l.unreadable = 12;
	fab_strlcpy(l.source, "/proc", sizeof(l.source));
	procfs_unreadable_text(12, 1000, EACCES, l.note, sizeof(l.note));
	assert_string_equal(l.note, "12 processes not readable as uid 1000 (Permission denied): "
			    "run as root, or with CAP_SYS_PTRACE");
	model_init(&m);
	model_init(&out);
	assert_int_equal(job_check_all(&l, &m, &out), 1);
	assert_string_equal(out.findings[0].id, "job.unreadable");
	assert_int_equal(out.findings[0].sev, SEV_WARN);
	assert_non_null(strstr(out.findings[0].message, "whether an NCCL process runs here is unknown"));
	assert_non_null(strstr(out.findings[0].message, "12 processes not readable as uid 1000"));
	model_free(&out);
	/* Every process read: job.none as before. */
	l.unreadable = 0;
	model_init(&out);
	assert_int_equal(job_check_all(&l, &m, &out), 1);
	assert_string_equal(out.findings[0].id, "job.none");
	model_free(&out);
	model_free(&m);
}

/* An IB HCA beside the RoCE one: without NCCL_IB_HCA the job takes both
 * kinds (a warning naming the IB list to set); naming one kind is fine. */
static void test_hca_mixed(void **state)
{
	struct fab_model m;
	build_node(&m);
	struct fab_nic *ib = model_add_nic(&m);
	fab_strlcpy(ib->name, "mlx5_4", sizeof(ib->name));
	fab_strlcpy(ib->uverbs.name, "uverbs4", sizeof(ib->uverbs.name));
	ib->uverbs.present = true;
	ib->uverbs.open_errno = fab_int_of(0);
	ib->nports = 1;
	ib->ports[0].num = 1;
	ib->ports[0].state = fab_int_of(4);
	fab_strlcpy(ib->ports[0].state_str, "ACTIVE", sizeof(ib->ports[0].state_str));
	ib->ports[0].ll = FAB_LL_IB;
	model_derive(&m);
	struct fab_model out;
	model_init(&out);
	struct fab_job *j = job_with("NCCL_SOCKET_IFNAME", "=ens1np0", NULL, NULL);
	job_check(j, &m, &out);
	int mixed = 0;
	for (int i = 0; i < out.nfindings; i++)
		if (strcmp(out.findings[i].id, "job.ib-hca-mixed") == 0) {
			mixed++;
			assert_int_equal(out.findings[i].sev, SEV_WARN);
			assert_string_equal(out.findings[i].message, "no NCCL_IB_HCA lets NCCL use InfiniBand "
					    "and RoCE HCAs together: an IB port cannot connect to a RoCE one");
			assert_string_equal(out.findings[i].evidence, "NCCL_IB_HCA=(unset); InfiniBand: "
					    "mlx5_4; RoCE: mlx5_0");
			assert_non_null(strstr(out.findings[i].hint, "NCCL_IB_HCA=mlx5_4 (the IB rails)"));
		}
	assert_int_equal(mixed, 1);
	model_free(&out);
	job_net_free(&j->net);
	free(j);
	/* One kind named: nothing mixed. */
	assert_int_equal(only_finding(job_with("NCCL_SOCKET_IFNAME", "=ens1np0", "NCCL_IB_HCA", "mlx5_4"),
				      &m, "", SEV_INFO, NULL), 0);
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_if_match),
		cmocka_unit_test(test_expand_debug_file),
		cmocka_unit_test(test_nccl_choice),
		cmocka_unit_test(test_gid_and_hca),
		cmocka_unit_test(test_many_hcas_and_cut_gids),
		cmocka_unit_test(test_hca_names_down_port),
		cmocka_unit_test(test_hca_mixed),
		cmocka_unit_test(test_scan_capture_dir),
		cmocka_unit_test(test_unreadable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
