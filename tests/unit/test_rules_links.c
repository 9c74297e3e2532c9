/*
 * The links.* rules over synthetic models: a healthy RoCE node and a
 * healthy IB node (no links.* finding), then one change each that must
 * trigger exactly the rule it concerns, with the right subject and
 * severity; and unknown values that must trigger nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/counters.h"
#include "fabtop/findings.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"

#define NNIC 8

static void add_gid(struct fab_port *p, const char *type, const char *ip, bool v4, const char *nd)
{
	struct fab_gid *g = &p->gids[p->ngids];
	g->index = p->ngids++;
	fab_strlcpy(g->type, type, sizeof(g->type));
	fab_strlcpy(g->ip, ip, sizeof(g->ip));
	fab_strlcpy(g->netdev, nd, sizeof(g->netdev));
	snprintf(g->gid, sizeof(g->gid), "fe80:0000:0000:0000:0000:0000:0000:%04x", g->index);
	g->ipv4 = v4;
}

static void add_err(struct fab_port *p, const char *name, long long v)
{
	struct fab_counter *c = &p->errors[p->nerrors++];
	fab_strlcpy(c->name, name, sizeof(c->name));
	c->value = fab_int_of(v);
}

/* A transport counter (ports/N/hw_counters) as the collector fills it:
 * with its table row. */
static void set_xport(struct fab_port *p, const char *name, long long v)
{
	for (int i = 0; i < p->nxport; i++)
		if (strcmp(p->xport[i].name, name) == 0) {
			p->xport[i].value = fab_int_of(v);
			return;
		}
	struct fab_counter *c = &p->xport[p->nxport++];
	fab_strlcpy(c->name, name, sizeof(c->name));
	c->def = counter_def("hw_counters", name);
	assert_non_null(c->def);
	c->value = fab_int_of(v);
}

/* Eight single-port ConnectX-7 NICs at 400 Gb/s, each on its own Gen5 x16
 * slot; RoCE: netdev ethN at MTU 9000, PFC+ECN on priority 3, IPv4 GIDs. */
static void build(struct fab_model *m, bool roce)
{
	model_init(m);
	for (int i = 0; i < NNIC; i++) {
		struct fab_pci_dev *d = model_add_pci(m);
		snprintf(d->bdf, sizeof(d->bdf), "0000:%02x:00.0", 0x10 + i * 0x10);
		d->link.cur_speed = d->link.max_speed = fab_num_of(32.0);
		d->link.cur_width = d->link.max_width = fab_int_of(16);
		d->vendor = fab_int_of(0x15b3);
		d->device = fab_int_of(0x1021);
		char nd[16];
		snprintf(nd, sizeof(nd), "eth%d", i);
		if (roce) {
			struct fab_netdev *n = model_add_netdev(m);
			fab_strlcpy(n->name, nd, sizeof(n->name));
			n->pci = i;
			n->mtu = fab_int_of(9000);
			n->carrier = fab_int_of(1);
			fab_strlcpy(n->operstate, "up", sizeof(n->operstate));
			fab_strlcpy(n->qos_trust, "dscp", sizeof(n->qos_trust));
			n->pfc_mask = n->ecn_np_mask = n->ecn_rp_mask = fab_int_of(0x08);
		}
		struct fab_nic *c = model_add_nic(m);
		snprintf(c->name, sizeof(c->name), "mlx5_%d", i);
		c->pci = i;
		fab_strlcpy(c->hca_type, "MT4129", sizeof(c->hca_type));
		c->cap_port_max = c->cap_card_total = fab_num_of(400);
		snprintf(c->uverbs.name, sizeof(c->uverbs.name), "uverbs%d", i);
		c->uverbs.present = true;
		c->uverbs.open_errno = fab_int_of(0);
		c->nports = 1;
		struct fab_port *p = &c->ports[0];
		p->num = 1;
		p->state = fab_int_of(4);
		fab_strlcpy(p->state_str, "ACTIVE", sizeof(p->state_str));
		p->phys_state = fab_int_of(5);
		fab_strlcpy(p->phys_state_str, "LinkUp", sizeof(p->phys_state_str));
		p->rate_gbps = fab_num_of(400);
		fab_strlcpy(p->rate_str, "400 Gb/sec (4X NDR)", sizeof(p->rate_str));
		p->width = fab_int_of(4);
		fab_strlcpy(p->speed, "NDR", sizeof(p->speed));
		p->ll = roce ? FAB_LL_ETH : FAB_LL_IB;
		p->max_mtu = fab_int_of(4096);
		p->active_mtu = fab_int_of(4096);
		if (roce) {
			fab_strlcpy(p->netdev, nd, sizeof(p->netdev));
			char v4[32];
			snprintf(v4, sizeof(v4), "10.0.%d.1", i);
			add_gid(p, "IB/RoCE v1", "fe80::1", false, nd);
			add_gid(p, "RoCE v2", "fe80::1", false, nd);
			add_gid(p, "IB/RoCE v1", v4, true, nd);
			add_gid(p, "RoCE v2", v4, true, nd);
		} else {
			p->lid = fab_int_of(i + 1);
			p->sm_lid = fab_int_of(0x100);
			add_gid(p, "", "", false, "");
		}
		add_err(p, "symbol_error", 0);
		add_err(p, "link_downed", 0);
		add_err(p, "port_rcv_errors", 0);
		/* A healthy mlx5 port has them all, at zero. */
		for (int k = 0; k < fab_ncounter_defs; k++)
			if (fab_counter_defs[k].warn_at &&
			    strcmp(fab_counter_defs[k].dir, "hw_counters") == 0)
				set_xport(p, fab_counter_defs[k].name, 0);
	}
}

static struct fab_port *port(struct fab_model *m, int nic) { return &m->nics[nic].ports[0]; }

/* An adapter model fabtop's table does not list. */
static void no_cap(struct fab_nic *n)
{
	n->cap_port_max.ok = n->cap_card_total.ok = false;
}

/* Number of links.* findings; with id, of that id. */
static int nlinks(const struct fab_model *m, const char *id)
{
	int n = 0;
	for (int i = 0; i < m->nfindings; i++)
		if (strncmp(m->findings[i].id, id ? id : "links.", strlen(id ? id : "links.")) == 0)
			n++;
	return n;
}

/* The only links.* finding: it must have this id and subject. */
static const struct fab_finding *only(const struct fab_model *m, const char *id, const char *subj)
{
	const struct fab_finding *f = NULL;
	for (int i = 0; i < m->nfindings; i++) {
		if (strncmp(m->findings[i].id, "links.", 6) != 0)
			continue;
		if (f)
			fail_msg("more than one links.* finding: %s %s and %s %s", f->id, f->subject,
				 m->findings[i].id, m->findings[i].subject);
		f = &m->findings[i];
	}
	if (!f)
		fail_msg("no links.* finding, expected %s %s", id, subj);
	if (getenv("FABTOP_DUMP"))   /* read the wording */
		print_message("# [%s] %s %s: %s\n#   layer: %s\n#   evidence: %s\n#   next: %s\n",
			      sev_name(f->sev), f->id, f->subject, f->message, f->layer,
			      f->evidence, f->hint);
	assert_string_equal(f->id, id);
	assert_string_equal(f->subject, subj);
	assert_true(f->layer[0]);
	/* Nothing cut off by its buffer. */
	assert_true(strlen(f->message) < sizeof(f->message) - 1);
	assert_true(strlen(f->evidence) < sizeof(f->evidence) - 1);
	assert_true(strlen(f->hint) < sizeof(f->hint) - 1);
	return f;
}

#define HAS(s, sub) do { if (!strstr((s), (sub))) fail_msg("\"%s\" lacks \"%s\"", (s), (sub)); } while (0)

static void test_healthy(void **state)
{
	struct fab_model m;
	for (int roce = 0; roce < 2; roce++) {
		build(&m, roce);
		findings_run(&m);
		for (int i = 0; i < m.nfindings; i++)
			print_message("# unexpected: %s %s: %s\n", m.findings[i].id, m.findings[i].subject,
				      m.findings[i].message);
		assert_int_equal(nlinks(&m, NULL), 0);
		model_free(&m);
	}
}

static void set_err(struct fab_port *p, const char *name, long long v)
{
	for (int i = 0; i < p->nerrors; i++)
		if (strcmp(p->errors[i].name, name) == 0) {
			p->errors[i].value = fab_int_of(v);
			return;
		}
	add_err(p, name, v);
}

static void set_state(struct fab_port *p, int st, const char *sw, int ph, const char *pw)
{
	p->state = fab_int_of(st);
	fab_strlcpy(p->state_str, sw, sizeof(p->state_str));
	p->phys_state = fab_int_of(ph);
	fab_strlcpy(p->phys_state_str, pw, sizeof(p->phys_state_str));
}

/* A dual-port card is two PCI functions, one RDMA device each (as mst
 * status lists a ConnectX-6 Lx at 99:00.0 and 99:00.1 in
 * https://github.com/stepfun-ai/StepMesh/issues/15): here mlx5_1 becomes
 * the second function of mlx5_0's card, without a cable. */
static void second_function_uncabled(struct fab_model *m, int ph, const char *pw)
{
	fab_strlcpy(m->pci[1].bdf, "0000:10:00.1", sizeof(m->pci[1].bdf));
	set_state(port(m, 1), 1, "DOWN", ph, pw);
	m->netdevs[1].carrier = fab_int_of(0);
}

static void test_port_unused(void **state)
{
	struct fab_model m;
	build(&m, true);
	second_function_uncabled(&m, 3, "Disabled");
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.port-unused", "mlx5_1/1");
	assert_int_equal(f->sev, SEV_INFO);
	HAS(f->message, "unused: no cable (state DOWN, physical state Disabled), while mlx5_0/1 on the same card");
	assert_int_equal(nlinks(&m, "links.port-down"), 0);
	model_free(&m);

	/* It was up and went down: a fault. */
	build(&m, true);
	second_function_uncabled(&m, 3, "Disabled");
	port(&m, 1)->errors[1].value = fab_int_of(2);   /* link_downed */
	findings_run(&m);
	assert_int_equal(only(&m, "links.port-down", "mlx5_1/1")->sev, SEV_ERROR);
	assert_int_equal(nlinks(&m, "links.port-unused"), 0);
	model_free(&m);

	/* Cabled, no peer (Polling): a fault. */
	build(&m, true);
	second_function_uncabled(&m, 2, "Polling");
	findings_run(&m);
	assert_int_equal(only(&m, "links.port-down", "mlx5_1/1")->sev, SEV_ERROR);
	model_free(&m);

	/* A rail like its siblings: another card's second function is up
	 * (mlx5_3 as the second function of mlx5_2's card; their shared
	 * PCIe link is links.pcie-bottleneck's business). */
	build(&m, true);
	second_function_uncabled(&m, 3, "Disabled");
	fab_strlcpy(m.pci[3].bdf, "0000:30:00.1", sizeof(m.pci[3].bdf));
	findings_run(&m);
	int down = 0;
	for (int i = 0; i < m.nfindings; i++)
		down += strcmp(m.findings[i].id, "links.port-down") == 0 &&
			strcmp(m.findings[i].subject, "mlx5_1/1") == 0 && m.findings[i].sev == SEV_ERROR;
	assert_int_equal(down, 1);
	assert_int_equal(nlinks(&m, "links.port-unused"), 0);
	model_free(&m);

	/* A single-port card down beside up rails: a fault, as before. */
	build(&m, true);
	set_state(port(&m, 5), 1, "DOWN", 3, "Disabled");
	findings_run(&m);
	assert_int_equal(only(&m, "links.port-down", "mlx5_5/1")->sev, SEV_ERROR);
	assert_int_equal(nlinks(&m, "links.port-unused"), 0);
	model_free(&m);
}

/* The finding of that id and subject, NULL if none. */
static const struct fab_finding *find_f(const struct fab_model *m, const char *id, const char *subj)
{
	for (int i = 0; i < m->nfindings; i++)
		if (strcmp(m->findings[i].id, id) == 0 && strcmp(m->findings[i].subject, subj) == 0)
			return &m->findings[i];
	return NULL;
}

/* Four dual-port cards: mlx5_2k at function .0, mlx5_2k+1 at .1 of the
 * same slot, the layout ibdev2netdev and lspci show for a dual-port
 * ConnectX-6 in https://github.com/openshift/sriov-network-operator/issues/635
 * (mlx5_4 enp97s0f0 Up at 61:00.0, mlx5_5 ibp97s0f1 Down at 61:00.1).
 * Port 2 (function .1) is up on the cards listed in up2, without a cable
 * (Disabled, no carrier, link_downed 0) on the others. */
static void four_dual_port(struct fab_model *m, unsigned up2)
{
	build(m, true);
	for (int c = 0; c < 4; c++) {
		snprintf(m->pci[2 * c].bdf, sizeof(m->pci[0].bdf), "0000:%02x:00.0", 0x10 + c * 0x20);
		snprintf(m->pci[2 * c + 1].bdf, sizeof(m->pci[0].bdf), "0000:%02x:00.1", 0x10 + c * 0x20);
		if (up2 & (1u << c))
			continue;
		set_state(port(m, 2 * c + 1), 1, "DOWN", 3, "Disabled");
		m->netdevs[2 * c + 1].carrier = fab_int_of(0);
	}
}

/* An HCA's model as the kernel shows it twice: hca_type and the PCI ID
 * (MT4125 is a ConnectX-6 Dx, 15b3:101d; MT4129 a ConnectX-7, 15b3:1021). */
static void set_hca_type(struct fab_model *m, int c, const char *type)
{
	fab_strlcpy(m->nics[c].hca_type, type, sizeof(m->nics[c].hca_type));
	m->pci[m->nics[c].pci].device = fab_int_of(strcmp(type, "MT4125") == 0 ? 0x101d : 0x1021);
}

/* The rule written above port_unused(), case by case. */
static void test_port_unused_rule(void **state)
{
	struct fab_model m;
	const struct fab_finding *f;

	/* Port 2 cabled on one card of four: the other three are free. */
	four_dual_port(&m, 1u << 1);
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.port-down"), 0);
	assert_int_equal(nlinks(&m, "links.port-unused"), 3);
	f = find_f(&m, "links.port-unused", "mlx5_5/1");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_INFO);
	assert_string_equal(f->message, "unused: no cable (state DOWN, physical state Disabled), while "
			    "mlx5_4/1 on the same card carries the traffic and most cards leave this port free too");
	assert_string_equal(f->evidence, "/sys/class/infiniband/mlx5_5/ports/1/state=DOWN phys_state=Disabled; "
			    "link_downed=0 (never up since the counters were cleared); the same port of its "
			    "model's other cards: 1 up, 2 not");
	model_free(&m);

	/* Port 2 cabled on three cards of four: the fourth is a rail down. */
	four_dual_port(&m, 0xe);
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.port-unused"), 0);
	f = find_f(&m, "links.port-down", "mlx5_1/1");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_ERROR);
	assert_string_equal(f->message, "not usable: state DOWN, physical state Disabled (its netdev is up "
			    "but has no carrier: no peer seen; check the cable, the transceiver and the switch "
			    "port); a rail like its siblings, which are up");
	HAS(f->evidence, "; the same port is up on mlx5_3/1, mlx5_5/1, mlx5_7/1 (same model, same function)");
	model_free(&m);

	/* Two cards, the other's port 2 up: a rail (one up, none down). */
	four_dual_port(&m, 0xe);
	for (int c = 2; c < 8; c++)
		set_hca_type(&m, c, "MT4125");
	set_hca_type(&m, 2, "MT4129");
	set_hca_type(&m, 3, "MT4129");
	findings_run(&m);
	f = find_f(&m, "links.port-down", "mlx5_1/1");
	assert_non_null(f);
	HAS(f->message, "a rail like its siblings, which are up");
	HAS(f->evidence, "; the same port is up on mlx5_3/1 (same model, same function)");
	model_free(&m);

	/* Another model's port 2 up is no sibling: hca_type, then board id. */
	four_dual_port(&m, 0x2);
	set_hca_type(&m, 3, "MT4125");
	findings_run(&m);
	assert_non_null(find_f(&m, "links.port-unused", "mlx5_1/1"));
	model_free(&m);
	four_dual_port(&m, 0x2);
	for (int c = 0; c < 8; c++)
		fab_strlcpy(m.nics[c].board_id, c == 2 || c == 3 ? "MT_0000000834" : "MT_0000000838",
			    sizeof(m.nics[c].board_id));
	findings_run(&m);
	assert_non_null(find_f(&m, "links.port-unused", "mlx5_1/1"));
	model_free(&m);

	/* Up once and down since the counters were cleared: a fault, said so. */
	four_dual_port(&m, 0);
	set_err(port(&m, 1), "link_downed", 2);
	findings_run(&m);
	f = find_f(&m, "links.port-down", "mlx5_1/1");
	assert_non_null(f);
	HAS(f->message, "; it was up and went down");
	HAS(f->evidence, "; link_downed=2 since the counters were cleared");
	assert_null(find_f(&m, "links.port-unused", "mlx5_1/1"));
	assert_non_null(find_f(&m, "links.port-unused", "mlx5_3/1"));
	model_free(&m);

	/* link_downed unreadable: whether it was up is unknown, a fault. */
	four_dual_port(&m, 0);
	port(&m, 1)->errors[1].value.ok = false;
	findings_run(&m);
	f = find_f(&m, "links.port-down", "mlx5_1/1");
	assert_non_null(f);
	HAS(f->message, "; whether it was ever up is unknown (link_downed unreadable)");
	model_free(&m);

	/* The carrying port on the card is down too: both are faults. */
	four_dual_port(&m, 0);
	set_state(port(&m, 0), 1, "DOWN", 3, "Disabled");
	m.netdevs[0].carrier = fab_int_of(0);
	findings_run(&m);
	assert_non_null(find_f(&m, "links.port-down", "mlx5_0/1"));
	assert_non_null(find_f(&m, "links.port-down", "mlx5_1/1"));
	model_free(&m);
}

static void test_port_down(void **state)
{
	struct fab_model m;
	build(&m, true);
	set_state(port(&m, 1), 1, "DOWN", 2, "Polling");
	m.netdevs[1].carrier = fab_int_of(0);
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.port-down", "mlx5_1/1");
	assert_int_equal(f->sev, SEV_ERROR);
	HAS(f->message, "Polling");
	HAS(f->message, "no peer seen");
	HAS(f->evidence, "/sys/class/infiniband/mlx5_1/ports/1/state=1: DOWN phys_state=2: Polling");
	HAS(f->evidence, "carrier=0");
	HAS(f->hint, "ibstat mlx5_1 1");
	HAS(f->hint, "ip link show eth1");
	model_free(&m);

	/* RoCE Disabled: admin down (carrier unreadable) vs no carrier. */
	build(&m, true);
	set_state(port(&m, 2), 1, "DOWN", 3, "Disabled");
	m.netdevs[2].carrier.ok = false;
	fab_strlcpy(m.netdevs[2].operstate, "down", sizeof(m.netdevs[2].operstate));
	findings_run(&m);
	f = only(&m, "links.port-down", "mlx5_2/1");
	HAS(f->message, "administratively down");
	HAS(f->hint, "ip link set dev eth2 up");
	model_free(&m);

	build(&m, true);
	set_state(port(&m, 2), 1, "DOWN", 3, "Disabled");
	m.netdevs[2].carrier = fab_int_of(0);
	fab_strlcpy(m.netdevs[2].operstate, "down", sizeof(m.netdevs[2].operstate));
	findings_run(&m);
	f = only(&m, "links.port-down", "mlx5_2/1");
	HAS(f->message, "no carrier");
	HAS(f->hint, "ethtool eth2");
	model_free(&m);

	/* IB Disabled: administratively. */
	build(&m, false);
	set_state(port(&m, 2), 1, "DOWN", 3, "Disabled");
	findings_run(&m);
	f = only(&m, "links.port-down", "mlx5_2/1");
	HAS(f->message, "administratively down");
	model_free(&m);

	/* A down port's link_downed is that very event: port-down only. */
	build(&m, true);
	set_state(port(&m, 1), 1, "DOWN", 3, "Disabled");
	set_err(port(&m, 1), "link_downed", 1);
	findings_run(&m);
	only(&m, "links.port-down", "mlx5_1/1");
	model_free(&m);

	/* IB, physical link training. */
	build(&m, false);
	set_state(port(&m, 0), 1, "DOWN", 4, "PortConfigurationTrain");
	findings_run(&m);
	f = only(&m, "links.port-down", "mlx5_0/1");
	HAS(f->message, "training");
	model_free(&m);

	/* Unknown state and phys_state: nothing. */
	build(&m, true);
	port(&m, 3)->state.ok = false;
	port(&m, 3)->phys_state.ok = false;
	findings_run(&m);
	assert_int_equal(nlinks(&m, NULL), 0);
	model_free(&m);
}

static void test_no_sm(void **state)
{
	struct fab_model m;
	build(&m, false);
	set_state(port(&m, 3), 2, "INIT", 5, "LinkUp");
	port(&m, 3)->sm_lid = fab_int_of(0);
	port(&m, 3)->lid = fab_int_of(0);
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.no-sm", "mlx5_3/1");
	assert_int_equal(f->sev, SEV_ERROR);
	HAS(f->message, "no subnet manager");
	HAS(f->evidence, "state=2: INIT");
	HAS(f->evidence, "sm_lid=0");
	HAS(f->hint, "sminfo");
	model_free(&m);

	/* ACTIVE with sm_lid 0: warning. */
	build(&m, false);
	port(&m, 4)->sm_lid = fab_int_of(0);
	findings_run(&m);
	f = only(&m, "links.no-sm", "mlx5_4/1");
	assert_int_equal(f->sev, SEV_WARN);
	model_free(&m);

	/* INIT with the physical link down is port-down, not no-sm. */
	build(&m, false);
	set_state(port(&m, 3), 2, "INIT", 2, "Polling");
	findings_run(&m);
	only(&m, "links.port-down", "mlx5_3/1");
	model_free(&m);

	/* RoCE ports have no SM: sm_lid 0 means nothing there. */
	build(&m, true);
	port(&m, 0)->sm_lid = fab_int_of(0);
	findings_run(&m);
	assert_int_equal(nlinks(&m, NULL), 0);
	model_free(&m);
}

static void half_width(struct fab_port *p)
{
	p->rate_gbps = fab_num_of(200);
	fab_strlcpy(p->rate_str, "200 Gb/sec (2X NDR)", sizeof(p->rate_str));
	p->width = fab_int_of(2);
}

static void test_rate(void **state)
{
	struct fab_model m;
	build(&m, true);
	half_width(port(&m, 2));
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.rate-degraded", "mlx5_2/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "runs at 200 Gb/s, expected 400 Gb/s");
	HAS(f->message, "7 of 7 other RoCE ports run at 400");
	HAS(f->message, "2 of 4 lanes");
	HAS(f->evidence, "/sys/class/infiniband/mlx5_2/ports/1/rate=200 Gb/sec (2X NDR)");
	HAS(f->hint, "ethtool eth2");
	HAS(f->hint, "mlxlink -d 0000:30:00.0 -m");
	model_free(&m);

	/* Capability unknown: the siblings are the reference. */
	build(&m, true);
	for (int i = 0; i < NNIC; i++)
		no_cap(&m.nics[i]);
	half_width(port(&m, 5));
	findings_run(&m);
	f = only(&m, "links.rate-degraded", "mlx5_5/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "expected 400");
	model_free(&m);

	/* Every port at 200 of a 400 capability: node-wide, info on each. */
	build(&m, false);
	for (int i = 0; i < NNIC; i++)
		half_width(port(&m, i));
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.rate-degraded"), NNIC);
	for (int i = 0; i < m.nfindings; i++)
		assert_int_equal(m.findings[i].sev, SEV_INFO);
	model_free(&m);

	/* A lone IB port at 2X, capability unknown: the width says it. */
	build(&m, false);
	m.nnics = 1;
	no_cap(&m.nics[0]);
	half_width(port(&m, 0));
	findings_run(&m);
	f = only(&m, "links.rate-degraded", "mlx5_0/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "runs at 200 Gb/s, expected 400 Gb/s: 2 of 4 lanes are up (2X)");
	model_free(&m);

	/* Two RoCE ports below the chip's capability, no sibling majority: info. */
	build(&m, true);
	m.nnics = 2;
	for (int i = 0; i < 2; i++) {
		port(&m, i)->rate_gbps = fab_num_of(200);
		fab_strlcpy(port(&m, i)->rate_str, "200 Gb/sec (4X HDR)", sizeof(port(&m, i)->rate_str));
	}
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.rate-degraded"), 2);
	assert_int_equal(m.findings[0].sev, SEV_INFO);
	HAS(m.findings[0].message, "if the card has one port");
	model_free(&m);

	/* A lone 25GbE port (1X), capability unknown: native, nothing. */
	build(&m, true);
	m.nnics = 1;
	no_cap(&m.nics[0]);
	port(&m, 0)->rate_gbps = fab_num_of(25);
	port(&m, 0)->width = fab_int_of(1);
	findings_run(&m);
	assert_int_equal(nlinks(&m, NULL), 0);
	model_free(&m);

	/* A DOWN port's rate (mlx5 reports 40 Gb/s without link) is not judged here. */
	build(&m, true);
	set_state(port(&m, 1), 1, "DOWN", 2, "Polling");
	port(&m, 1)->rate_gbps = fab_num_of(40);
	findings_run(&m);
	only(&m, "links.port-down", "mlx5_1/1");
	model_free(&m);
}

static void test_pcie(void **state)
{
	struct fab_model m;
	build(&m, true);
	m.pci[3].link.cur_width = fab_int_of(8);
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.pcie-bottleneck", "mlx5_3");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "PCIe Gen5 x8 = 32 GT/s \u00d7 8 \u00d7 128/130 \u2248 252 Gb/s < 400 Gb/s port rate");
	HAS(f->evidence, "/sys/bus/pci/devices/0000:40:00.0/current_link_speed=32.0 GT/s current_link_width=8");
	HAS(f->evidence, "/sys/class/infiniband/mlx5_3/ports/1/rate=400 Gb/sec (4X NDR)");
	HAS(f->hint, "pcie.degraded");
	model_free(&m);

	/* A card whose own maximum (LnkCap, max_link_*) is Gen4 x16 at it:
	 * no slot does better, the card is built so: info, never "move it". */
	build(&m, true);
	m.pci[0].link.cur_speed = m.pci[0].link.max_speed = fab_num_of(16.0);
	findings_run(&m);
	f = only(&m, "links.pcie-bottleneck", "mlx5_0");
	assert_int_equal(f->sev, SEV_INFO);
	HAS(f->message, "by the card's design: PCIe Gen4 x16");
	HAS(f->hint, "no slot does better");
	assert_null(strstr(f->hint, "move"));
	model_free(&m);

	/* Its maximum unknown: a warning that says how to find out. */
	build(&m, true);
	m.pci[0].link.cur_speed = fab_num_of(16.0);
	m.pci[0].link.max_speed.ok = false;
	findings_run(&m);
	f = only(&m, "links.pcie-bottleneck", "mlx5_0");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->evidence, "max_link_speed=N/A max_link_width=16");
	HAS(f->hint, "LnkCap says what the card can do");
	model_free(&m);

	/* Two functions of one card share the link: 2 x 200 on Gen4 x16. */
	build(&m, true);
	m.nnics = 2;
	snprintf(m.pci[1].bdf, sizeof(m.pci[1].bdf), "0000:10:00.1");
	for (int i = 0; i < 2; i++) {
		m.pci[i].link.cur_speed = m.pci[i].link.max_speed = fab_num_of(16.0);
		port(&m, i)->rate_gbps = fab_num_of(200);
	}
	findings_run(&m);
	f = only(&m, "links.pcie-bottleneck", "mlx5_0");
	HAS(f->message, "mlx5_0/1+mlx5_1/1");
	model_free(&m);

	/* A DOWN port does not count; unknown link speed says nothing. */
	build(&m, true);
	m.pci[3].link.cur_width = fab_int_of(8);
	set_state(port(&m, 3), 1, "DOWN", 0, "");
	port(&m, 3)->phys_state.ok = false;
	m.pci[4].link.cur_width = fab_int_of(8);
	m.pci[4].link.cur_speed.ok = false;
	findings_run(&m);
	only(&m, "links.port-down", "mlx5_3/1");
	model_free(&m);
}


/* Two physical functions of one card, fn 0 and 1 of slot bus:00. */
static void dual_port(struct fab_model *m, int a, int bus, unsigned device, double port_max,
		      double total)
{
	for (int i = a; i < a + 2; i++) {
		snprintf(m->pci[i].bdf, sizeof(m->pci[i].bdf), "0000:%02x:00.%d", bus, i - a);
		m->pci[i].device = fab_int_of(device);
		m->nics[i].cap_port_max = fab_num_of(port_max);
		m->nics[i].cap_card_total = fab_num_of(total);
	}
}

static void set_rate(struct fab_port *p, double g, int width, const char *str, const char *speed)
{
	p->rate_gbps = fab_num_of(g);
	p->width = fab_int_of(width);
	fab_strlcpy(p->rate_str, str, sizeof(p->rate_str));
	fab_strlcpy(p->speed, speed, sizeof(p->speed));
}

/* A GB10's ConnectX-7 (sources in test_card): four functions, .0 and .1
 * on each of two Gen5 x4 links in PCI domains 0000 and 0002, one card by
 * sys_image_guid and board id, every port up at 200 Gb/s. */
static void gb10(struct fab_model *m)
{
	build(m, true);
	m->nnics = 4;
	for (int i = 0; i < 4; i++) {
		struct fab_pci_dev *d = &m->pci[i];
		snprintf(d->bdf, sizeof(d->bdf), "%04x:01:00.%d", i < 2 ? 0 : 2, i % 2);
		d->link.cur_width = d->link.max_width = fab_int_of(4);
		fab_strlcpy(m->nics[i].sys_image_guid, "4821:0b03:0096:04cb", sizeof(m->nics[i].sys_image_guid));
		fab_strlcpy(m->nics[i].board_id, "NVD0000000087", sizeof(m->nics[i].board_id));
		set_rate(port(m, i), 200, 4, "200 Gb/sec (4X HDR)", "HDR");
	}
}

/* Issue 13, class 1 and 2: what a port of a card can do, and the line rate
 * of a function. */
static void test_card(void **state)
{
	struct fab_model m;
	const struct fab_finding *f;

	/* A dual-port ConnectX-5 (MCX556A-ECAT, MT4119, 2x EDR on Gen3 x16:
	 * mlx5_0/mlx5_1 with one System image GUID in the ibstat of
	 * https://lore.kernel.org/netdev/CAMGffEmFCgKv-6XNXjAKzr5g6TtT_=wj6H62AdGCUXx4hruxBQ@mail.gmail.com/)
	 * with one port at FDR: each port of the card can do 100 (not 100 / 2
	 * functions), so the FDR port is a warning, its sibling port fine. */
	build(&m, false);
	m.nnics = 2;
	dual_port(&m, 0, 0x3b, 0x1017, 100, 200);
	for (int i = 0; i < 2; i++) {
		m.pci[i].link.cur_speed = m.pci[i].link.max_speed = fab_num_of(8.0);
		set_rate(port(&m, i), 100, 4, "100 Gb/sec (4X EDR)", "EDR");
	}
	set_rate(port(&m, 1), 56, 4, "56 Gb/sec (4X FDR)", "FDR");
	findings_run(&m);
	assert_int_equal(m.nics[0].card_ports, 2);
	assert_int_equal(m.nics[1].card, 0);
	assert_true(m.nics[1].cap_gbps.ok && m.nics[1].cap_sure);
	assert_true(m.nics[1].cap_gbps.v == 100);
	assert_int_equal(nlinks(&m, "links.rate-degraded"), 1);
	for (int i = 0; i < m.nfindings; i++)
		if (strcmp(m.findings[i].id, "links.rate-degraded") == 0) {
			f = &m.findings[i];
			assert_string_equal(f->subject, "mlx5_1/1");
			assert_int_equal(f->sev, SEV_WARN);
			HAS(f->message, "runs at 56 Gb/s, expected 100 Gb/s: a port of this card can do 100 Gb/s");
			HAS(f->evidence, "2 ports on the card");
		}
	/* 156 Gb/s of ports on a Gen3 x16 card at its maximum: the design. */
	assert_int_equal(nlinks(&m, "links.pcie-bottleneck"), 1);
	model_free(&m);

	/* A dual-port ConnectX-7 (2x200): 200 a port, sure with both seen;
	 * the single-port card's 400 when one function is all there is. */
	build(&m, true);
	m.nnics = 2;
	dual_port(&m, 0, 0x10, 0x1021, 400, 400);
	for (int i = 0; i < 2; i++)
		set_rate(port(&m, i), 200, 4, "200 Gb/sec (4X HDR)", "HDR");
	findings_run(&m);
	assert_true(m.nics[0].cap_gbps.v == 200 && m.nics[0].cap_sure);
	assert_int_equal(nlinks(&m, NULL), 0);
	model_free(&m);

	/* A port of a ConnectX-5 narrowed to 1X among ConnectX-7 NDR ports:
	 * expected at what its own card does at 4X (100), not at 400. */
	build(&m, false);
	m.pci[7].device = fab_int_of(0x1017);
	m.nics[7].cap_port_max = fab_num_of(100);
	m.nics[7].cap_card_total = fab_num_of(200);
	set_rate(port(&m, 7), 25, 1, "25 Gb/sec (1X EDR)", "EDR");
	findings_run(&m);
	f = only(&m, "links.rate-degraded", "mlx5_7/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "runs at 25 Gb/s, expected 100 Gb/s");
	HAS(f->message, "1 of 4 lanes are up (1X)");
	assert_null(strstr(f->message, "400"));
	model_free(&m);

	/* A PF with 7 VFs at .1-.7 (VFs fill the PF's device's functions, as
	 * lspci lists 11:00.1-11:00.7 in https://github.com/xcp-ng/xcp/issues/544;
	 * a VF's ibstat repeats its PF's port and rate): the VFs repeat the PF's port and
	 * cross its link; they are no ports of the card (not 8 x 400 Gb/s on
	 * one Gen5 x16), and a VF's line rate is its PF link's. */
	build(&m, false);
	for (int i = 1; i < NNIC; i++) {
		struct fab_pci_dev *d = &m.pci[i];
		snprintf(d->bdf, sizeof(d->bdf), "0000:10:00.%d", i);
		d->is_vf = true;
		fab_strlcpy(d->pf_bdf, "0000:10:00.0", sizeof(d->pf_bdf));
		d->link.cur_speed.ok = d->link.max_speed.ok = false;   /* "Unknown" for a VF */
		no_cap(&m.nics[i]);
	}
	findings_run(&m);
	assert_int_equal(nlinks(&m, NULL), 0);
	assert_int_equal(m.nics[5].card, 0);
	assert_int_equal(m.nics[0].card_ports, 1);
	assert_true(m.nics[5].cap_gbps.ok && m.nics[5].cap_gbps.v == 400);
	assert_ptr_equal(nic_link_dev(&m, &m.nics[5]), &m.pci[0]);
	assert_true(port_line_gbps(&m, &m.nics[5], port(&m, 5), NULL, 0) == 400);
	model_free(&m);

	/* A GB10's ConnectX-7 (DGX Spark): two 200 Gb/s ports, each through
	 * two functions on two Gen5 x4 links in two PCI domains (0000:01:00.0/.1
	 * and 0002:01:00.0/.1, LnkSta 32GT/s x4 in
	 * https://forums.developer.nvidia.com/t/asus-ascent-gx10-second-connectx-7-pcie-slot-wired-at-gen5-x2-instead-of-x4-50-bandwidth-loss-vs-dgx-spark-fe/367853),
	 * one card: all four report one sys_image_guid (ibstat in
	 * https://github.com/geerlingguy/sbc-reviews/issues/92) and board_id
	 * NVD0000000087. Each function is judged against its link (about
	 * 101 Gb/s): NVIDIA's own ib_write_bw halves, 92.57 and 97.28 Gb/s
	 * (github.com/NVIDIA/dgx-spark-playbooks, connect-two-sparks
	 * performance_benchmarking_guide.md), are healthy, not "49% of 200".
	 * One info finding says the halves make the port; nothing advises
	 * another slot. */
	gb10(&m);
	findings_run(&m);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(m.nics[i].card, 0);
		assert_int_equal(m.nics[i].card_links, 2);
		assert_int_equal(m.nics[i].card_ports, 2);
		assert_true(m.nics[i].cap_gbps.v == 200);
	}
	f = only(&m, "links.multi-host", "mlx5_0");
	assert_int_equal(f->sev, SEV_INFO);
	HAS(f->message, "serves its 2 ports through 2 PCIe links");
	HAS(f->message, "(mlx5_0+mlx5_2; mlx5_1+mlx5_3)");
	HAS(f->message, "\u2248202 Gb/s in all for 200 Gb/s ports");
	assert_true(strlen(f->message) < sizeof(f->message) - 1);
	HAS(f->evidence, "0000:01:00.0 (32 GT/s x4, \u2248101 Gb/s), 0002:01:00.0 (32 GT/s x4, \u2248101 Gb/s)");
	HAS(f->hint, "NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3");
	assert_null(strstr(f->hint, "move"));
	char why[200];
	double line = port_line_gbps(&m, &m.nics[2], port(&m, 2), why, sizeof(why));
	assert_true(line > 100 && line < 102);
	assert_true(92.57 / line >= 0.90 && 97.28 / line >= 0.90);
	HAS(why, "PCIe 32 GT/s x4 (0002:01:00.0)");
	HAS(why, "the functions together make the port");

	/* One of its links trained at x2 (the ASUS Ascent GX10 of the forum
	 * thread above: 0002:01:00.0/.1 LnkSta Width x2 of x4): a warning for
	 * that link, which points at the link, not at the slot. */
	model_free(&m);
	gb10(&m);
	m.pci[2].link.cur_width = m.pci[3].link.cur_width = fab_int_of(2);
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.pcie-bottleneck"), 1);
	for (int i = 0; i < m.nfindings; i++)
		if (strcmp(m.findings[i].id, "links.pcie-bottleneck") == 0) {
			f = &m.findings[i];
			assert_string_equal(f->subject, "mlx5_2");
			assert_int_equal(f->sev, SEV_WARN);
			HAS(f->message, "this link's share: the card spreads its ports over 2 links");
			HAS(f->hint, "trained below the card's capability");
		}
	model_free(&m);
}

static void test_mtu(void **state)
{
	struct fab_model m;
	build(&m, true);
	m.netdevs[4].mtu = fab_int_of(4096);
	port(&m, 4)->active_mtu = fab_int_of(2048);
	fab_strlcpy(port(&m, 4)->mtu_source, "netdev MTU (RoCE)", sizeof(port(&m, 4)->mtu_source));
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.mtu-mismatch", "mlx5_4/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "RoCE MTU 4096 needs the netdev MTU above 4096 plus headers");
	HAS(f->message, "eth4 has MTU 4096, so RDMA on mlx5_4/1 runs at 2048");
	HAS(f->message, "sibling RoCE netdevs use MTU 9000");
	HAS(f->evidence, "/sys/class/net/eth4/mtu=4096");
	HAS(f->evidence, "7 of 7 other RoCE netdevs have mtu=9000");
	HAS(f->hint, "ip link set dev eth4 mtu 9000");
	HAS(f->hint, "fabtop changes nothing");
	model_free(&m);

	/* Differs from the siblings, RDMA MTU unaffected: info. */
	build(&m, true);
	m.netdevs[6].mtu = fab_int_of(4200);
	findings_run(&m);
	f = only(&m, "links.mtu-mismatch", "mlx5_6/1");
	assert_int_equal(f->sev, SEV_INFO);
	model_free(&m);

	/* Unknown netdev MTU: nothing; IB: nothing. */
	build(&m, true);
	m.netdevs[4].mtu.ok = false;
	port(&m, 4)->active_mtu = fab_int_of(2048);
	findings_run(&m);
	assert_int_equal(nlinks(&m, NULL), 0);
	model_free(&m);
}

/* More RoCE netdevs than the sibling census once held (256, then it
 * stopped counting): 300 single-port NICs, the first 130 at MTU 4200,
 * the other 170 at 9000. Over all of them 9000 is the siblings' MTU, so
 * the 130 are the odd ones; a census of the first 256 netdevs only sees
 * 4200 as the majority and names the 9000 ones instead. */
static void test_mtu_many_siblings(void **state)
{
	struct fab_model m;
	model_init(&m);
	enum { N = 300, LOW = 130 };
	for (int i = 0; i < N; i++) {
		struct fab_pci_dev *d = model_add_pci(&m);
		snprintf(d->bdf, sizeof(d->bdf), "%04x:%02x:00.0", i / 200, 1 + i % 200);
		struct fab_netdev *nd = model_add_netdev(&m);
		snprintf(nd->name, sizeof(nd->name), "enp%ds0np%d", i, i % 2);
		nd->pci = i;
		nd->mtu = fab_int_of(i < LOW ? 4200 : 9000);
		struct fab_nic *c = model_add_nic(&m);
		snprintf(c->name, sizeof(c->name), "mlx5_%d", i);
		c->pci = i;
		c->nports = 1;
		struct fab_port *p = &c->ports[0];
		p->num = 1;
		p->state = fab_int_of(4);
		p->ll = FAB_LL_ETH;
		p->max_mtu = p->active_mtu = fab_int_of(4096);
		fab_strlcpy(p->netdev, nd->name, sizeof(p->netdev));
	}
	findings_run(&m);
	int odd = 0;
	for (int i = 0; i < m.nfindings; i++) {
		const struct fab_finding *f = &m.findings[i];
		if (strcmp(f->id, "links.mtu-mismatch") != 0)
			continue;
		int k = -1;
		assert_int_equal(sscanf(f->subject, "mlx5_%d/1", &k), 1);
		if (k >= LOW)
			fail_msg("%s (MTU 9000, as 170 of the 299 others) named odd: %s", f->subject, f->evidence);
		assert_int_equal(f->sev, SEV_INFO);
		HAS(f->message, "while its sibling RoCE netdevs use 9000");
		HAS(f->evidence, "170 of 299 other RoCE netdevs have mtu=9000");
		odd++;
	}
	assert_int_equal(odd, LOW);
	model_free(&m);
}

static void test_roce_ipv4(void **state)
{
	struct fab_model m;
	build(&m, true);
	port(&m, 5)->ngids = 2;   /* only the link-local pair */
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.roce-no-ipv4", "mlx5_5/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "only link-local");
	HAS(f->evidence, "1=RoCE v2 fe80::1");
	HAS(f->hint, "/sys/class/infiniband/mlx5_5/ports/1/gid_attrs/types/*");
	HAS(f->hint, "ip addr add");
	model_free(&m);

	/* IPv4 only on a RoCE v1 GID does not count. */
	build(&m, true);
	port(&m, 5)->ngids = 3;
	findings_run(&m);
	only(&m, "links.roce-no-ipv4", "mlx5_5/1");
	model_free(&m);

	/* GID types unreadable: unknown, nothing; no GIDs read: nothing. */
	build(&m, true);
	port(&m, 5)->ngids = 2;
	port(&m, 5)->gids[1].type[0] = '\0';
	port(&m, 6)->ngids = 0;
	findings_run(&m);
	assert_int_equal(nlinks(&m, NULL), 0);
	model_free(&m);
}

static void test_gid_netns(void **state)
{
	struct fab_model m;
	build(&m, true);
	fab_strlcpy(m.netdevs[2].name, "net1", sizeof(m.netdevs[2].name));
	fab_strlcpy(port(&m, 2)->netdev, "net1", sizeof(port(&m, 2)->netdev));
	/* mlx5_2's GIDs still name eth2, which this namespace does not have. */
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.gid-netns", "mlx5_2/1");
	assert_int_equal(f->sev, SEV_INFO);
	HAS(f->message, "GIDs 0,1,2,3 name eth2");
	HAS(f->evidence, "/sys/class/infiniband/mlx5_2/ports/1/gid_attrs/ndevs/{0,1,2,3}=eth2");
	model_free(&m);

	/* No netdevs known at all: nothing. */
	build(&m, true);
	m.nnetdevs = 0;
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.gid-netns"), 0);
	model_free(&m);

	/* /sys/class/net could not be read (a netlink snapshot still named
	 * some): a netdev missing from it is unknown, not elsewhere. */
	build(&m, true);
	fab_strlcpy(m.netdevs[2].name, "net1", sizeof(m.netdevs[2].name));
	model_note_src(&m, FAB_SRC_NET, "/sys/class/net", "cannot read /sys/class/net: Permission denied");
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.gid-netns"), 0);
	char why[256];
	assert_int_equal(model_netdev_here(&m, "eth2", NULL, why, sizeof(why)), FAB_UNKNOWN);
	HAS(why, "Permission denied");
	model_free(&m);

	/* A netdev whose folder could not be read is here, its values unknown. */
	build(&m, true);
	m.netdevs[4].read_errno = EACCES;
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.gid-netns"), 0);
	const struct fab_netdev *d;
	assert_int_equal(model_netdev_here(&m, "eth4", &d, why, sizeof(why)), FAB_UNKNOWN);
	assert_null(d);
	HAS(why, "cannot read /sys/class/net/eth4: Permission denied");
	assert_int_equal(model_netdev_here(&m, "eth5", &d, why, sizeof(why)), FAB_YES);
	assert_non_null(d);
	assert_int_equal(model_netdev_here(&m, "eth99", &d, why, sizeof(why)), FAB_NO);
	model_free(&m);
}

static void test_errors(void **state)
{
	struct fab_model m;
	build(&m, false);
	set_err(port(&m, 7), "symbol_error", 37);
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.errors", "mlx5_7/1");
	assert_int_equal(f->sev, SEV_INFO);
	HAS(f->message, "symbol_error=37");
	HAS(f->message, "since the counters were last cleared");
	HAS(f->evidence, "/sys/class/infiniband/mlx5_7/ports/1/counters/: symbol_error=37");
	HAS(f->hint, "perfquery -x");
	model_free(&m);

	build(&m, true);
	set_err(port(&m, 7), "symbol_error", 37);
	set_err(port(&m, 7), "link_downed", 2);
	findings_run(&m);
	f = only(&m, "links.errors", "mlx5_7/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "link_downed=2 (the link went down), symbol_error=37 (bit errors on a lane)");
	model_free(&m);

	/* link_downed is an 8-bit PMA field: 255 is its ceiling. */
	build(&m, false);
	set_err(port(&m, 0), "link_downed", 255);
	findings_run(&m);
	f = only(&m, "links.errors", "mlx5_0/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "link_downed PINNED");
	/* The command that clears it, one truth (port_pin_clear_cmd), printed. */
	HAS(f->hint, "PINNED: clear them to count again: perfquery -x -R -C mlx5_0 -P 1");
	assert_true(port(&m, 0)->errors[0].pinned || port(&m, 0)->errors[1].pinned);
	model_free(&m);

	/* The 16-bit PMA field's ceiling is saturation too. */
	build(&m, false);
	set_err(port(&m, 0), "symbol_error", 65535);
	findings_run(&m);
	f = only(&m, "links.errors", "mlx5_0/1");
	HAS(f->message, "symbol_error PINNED (stuck at the counter's maximum)");
	model_free(&m);

	/* Unknown values and counters outside the list: nothing. */
	build(&m, false);
	port(&m, 0)->errors[0].value.ok = false;
	port(&m, 0)->errors[0].value.v = 99;
	set_err(port(&m, 1), "port_xmit_discards", 12);
	findings_run(&m);
	assert_int_equal(nlinks(&m, NULL), 0);
	model_free(&m);
}

/* links.transport-errors: one finding per non-zero transport counter,
 * info below the table's warn_at, a warning from it; zeros, unknown
 * values and counters that are not judged (flushes, congestion): none. */
static void test_transport_errors(void **state)
{
	struct fab_model m;
	/* The values of a real RoCE port (roce-faults scenario, mlx5_6). */
	build(&m, true);
	set_xport(port(&m, 6), "out_of_sequence", 184213);
	set_xport(port(&m, 6), "local_ack_timeout_err", 31);
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.transport-errors"), 2);
	assert_int_equal(nlinks(&m, NULL), 2);
	const struct fab_finding *oos = NULL, *ack = NULL;
	for (int i = 0; i < m.nfindings; i++) {
		const struct fab_finding *f = &m.findings[i];
		assert_string_equal(f->subject, "mlx5_6/1");
		if (strstr(f->message, "out_of_sequence="))
			oos = f;
		if (strstr(f->message, "local_ack_timeout_err="))
			ack = f;
	}
	assert_non_null(oos);
	assert_non_null(ack);
	assert_int_equal(oos->sev, SEV_WARN);
	HAS(oos->message, "out_of_sequence=184213 since the counters were last cleared (a warning from 1000)");
	HAS(oos->message, "loss on the path");
	HAS(oos->evidence, "/sys/class/infiniband/mlx5_6/ports/1/hw_counters/out_of_sequence=184213");
	HAS(oos->hint, "loss on RoCE");
	HAS(oos->hint, "ethtool -S eth6");
	assert_int_equal(ack->sev, SEV_INFO);
	HAS(ack->message, "local_ack_timeout_err=31 since the counters were last cleared (a warning from 100)");
	model_free(&m);

	/* At the threshold: a warning; one below: info. */
	build(&m, false);
	set_xport(port(&m, 0), "local_ack_timeout_err", 100);
	findings_run(&m);
	assert_int_equal(only(&m, "links.transport-errors", "mlx5_0/1")->sev, SEV_WARN);
	HAS(only(&m, "links.transport-errors", "mlx5_0/1")->hint, "loss on InfiniBand");
	model_free(&m);
	build(&m, false);
	set_xport(port(&m, 1), "local_ack_timeout_err", 99);
	findings_run(&m);
	assert_int_equal(only(&m, "links.transport-errors", "mlx5_1/1")->sev, SEV_INFO);
	model_free(&m);

	/* One failed request is a warning: the QP went to error. */
	build(&m, false);
	set_xport(port(&m, 2), "req_transport_retries_exceeded", 1);
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.transport-errors", "mlx5_2/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "the QP went to error");
	HAS(f->hint, "transport retry counter exceeded");
	model_free(&m);

	/* resp_cqe_error also counts receives left posted at exit: info at any total. */
	build(&m, false);
	set_xport(port(&m, 3), "resp_cqe_error", 1000000);
	findings_run(&m);
	f = only(&m, "links.transport-errors", "mlx5_3/1");
	assert_int_equal(f->sev, SEV_INFO);
	HAS(f->message, "info at any total");
	model_free(&m);

	/* Not judged (a flush follows another error; congestion has its own
	 * rules), unknown values, zeros: nothing. */
	build(&m, true);
	struct fab_counter *c = &port(&m, 4)->xport[port(&m, 4)->nxport++];
	fab_strlcpy(c->name, "req_cqe_flush_error", sizeof(c->name));
	c->def = counter_def("hw_counters", "req_cqe_flush_error");
	c->value = fab_int_of(5000);
	c = &port(&m, 4)->xport[port(&m, 4)->nxport++];
	fab_strlcpy(c->name, "np_cnp_sent", sizeof(c->name));
	c->def = counter_def("hw_counters", "np_cnp_sent");
	c->value = fab_int_of(5000);
	set_xport(port(&m, 5), "out_of_sequence", 77);
	for (int i = 0; i < port(&m, 5)->nxport; i++)
		port(&m, 5)->xport[i].value.ok = false;
	findings_run(&m);
	assert_int_equal(nlinks(&m, NULL), 0);
	model_free(&m);
}

/* The one judgement of a total, over the table's thresholds. */
static void test_total_judge(void **state)
{
	const struct fab_counter_def *d = counter_def("hw_counters", "out_of_sequence");
	assert_non_null(d);
	assert_int_equal(counter_total_judge(d, 0), CTR_TOTAL_NONE);
	assert_int_equal(counter_total_judge(d, -1), CTR_TOTAL_NONE);
	assert_int_equal(counter_total_judge(d, 1), CTR_TOTAL_INFO);
	assert_int_equal(counter_total_judge(d, 999), CTR_TOTAL_INFO);
	assert_int_equal(counter_total_judge(d, 1000), CTR_TOTAL_WARN);
	assert_int_equal(counter_total_judge(NULL, 1000), CTR_TOTAL_NONE);
	assert_int_equal(counter_total_judge(counter_def("hw_counters", "np_cnp_sent"), 1000000),
			 CTR_TOTAL_NONE);
	assert_int_equal(counter_total_judge(counter_def("counters", "port_xmit_data"), 1000000),
			 CTR_TOTAL_NONE);
	assert_int_equal(counter_total_judge(counter_def("hw_counters", "resp_cqe_error"), 1LL << 40),
			 CTR_TOTAL_INFO);
	assert_int_equal(counter_total_judge(counter_def("hw_counters", "req_cqe_error"), 1),
			 CTR_TOTAL_WARN);
	/* PMA rows: the links.errors thresholds; a saturated one warns. */
	d = counter_def("counters", "symbol_error");
	assert_int_equal(counter_total_judge(d, 99), CTR_TOTAL_INFO);
	assert_int_equal(counter_total_judge(d, 100), CTR_TOTAL_WARN);
	d = counter_def("counters", "link_downed");
	assert_int_equal(counter_total_judge(d, 1), CTR_TOTAL_WARN);
	d = counter_def("counters", "port_xmit_wait");
	assert_int_equal(counter_total_judge(d, 4294967295LL), CTR_TOTAL_NONE);
}

/* A counter file that held what the counter cannot: a warning, and no
 * links.errors from a value nobody read. */
static void test_counter_implausible(void **state)
{
	struct fab_model m;
	build(&m, false);
	struct fab_counter *c = &port(&m, 3)->errors[0];   /* symbol_error: 16 bits */
	c->value = (fab_int){ 0, false };
	c->implausible = true;
	fab_strlcpy(c->raw, "-1", sizeof(c->raw));
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.counter-implausible", "mlx5_3/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "symbol_error=\"-1\"");
	HAS(f->message, "cannot be believed");
	HAS(f->evidence, "/sys/class/infiniband/mlx5_3/ports/1/counters/: symbol_error=\"-1\" (16-bit, 0..65535)");
	HAS(f->hint, "perfquery -x -C mlx5_3 -P 1");
	model_free(&m);

	/* A hostile device name goes into the suggested commands quoted. */
	build(&m, false);
	c = &port(&m, 3)->errors[0];
	c->value = (fab_int){ 0, false };
	c->implausible = true;
	fab_strlcpy(c->raw, "-1", sizeof(c->raw));
	fab_strlcpy(m.nics[3].name, "m5;touch pwned;#", sizeof(m.nics[3].name));
	findings_run(&m);
	f = only(&m, "links.counter-implausible", "m5;touch pwned;#/1");
	HAS(f->hint, "perfquery -x -C 'm5;touch pwned;#' -P 1");
	HAS(f->hint, "cat '/sys/class/infiniband/m5;touch pwned;#/ports/1'/counters/*");
	model_free(&m);
}

/* A RoCE LAG as on https://github.com/stepfun-ai/StepMesh/issues/15
 * (ibdev2netdev: "mlx5_bond_0 port 1 ==> bond0 (Up)", a ConnectX-6 Lx at
 * 99:00.0 and 99:00.1): the RDMA port's netdev is the bond, which stays up
 * while one slave is (https://github.com/openucx/ucx/pull/5401: "when
 * bringing one of ports down, the number changes to 1"). */
static void make_bond(struct fab_model *m, const char *mode, const char *mii1, long long carrier1)
{
	struct fab_netdev *b = &m->netdevs[0];   /* eth0, mlx5_0's netdev */
	fab_strlcpy(b->name, "bond0", sizeof(b->name));
	b->pci = FAB_NO_INDEX;
	fab_strlcpy(b->bond_mode, mode, sizeof(b->bond_mode));
	fab_strlcpy(b->bond_slaves, "enp153s0f0np0 enp153s0f1np1", sizeof(b->bond_slaves));
	fab_strlcpy(m->nics[0].name, "mlx5_bond_0", sizeof(m->nics[0].name));
	fab_strlcpy(m->nics[0].ports[0].netdev, "bond0", sizeof(m->nics[0].ports[0].netdev));
	for (int k = 0; k < m->nics[0].ports[0].ngids; k++)
		fab_strlcpy(m->nics[0].ports[0].gids[k].netdev, "bond0", sizeof(m->nics[0].ports[0].gids[k].netdev));
	for (int i = 0; i < 2; i++) {
		struct fab_netdev *s = model_add_netdev(m);
		snprintf(s->name, sizeof(s->name), "enp153s0f%dnp%d", i, i);
		s->pci = 0;
		s->mtu = fab_int_of(9000);
		fab_strlcpy(s->slave_mii, i ? mii1 : "up", sizeof(s->slave_mii));
		s->carrier = fab_int_of(i ? carrier1 : 1);
		fab_strlcpy(s->operstate, i && !carrier1 ? "down" : "up", sizeof(s->operstate));
	}
}

static void test_bond_slave_down(void **state)
{
	struct fab_model m;
	build(&m, true);
	make_bond(&m, "802.3ad", "up", 1);
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.bond-slave-down"), 0);
	model_free(&m);

	build(&m, true);
	make_bond(&m, "802.3ad", "down", 0);
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.bond-slave-down", "mlx5_bond_0/1");
	assert_int_equal(f->sev, SEV_WARN);
	assert_string_equal(f->message, "bond bond0 runs on 1 of its 2 links: enp153s0f1np1 (mii_status down, "
			    "operstate down) down; the port carries only what the links left can, and the "
			    "flows hashed to the lost link move");
	HAS(f->evidence, "/sys/class/net/bond0/bonding/mode=802.3ad slaves=enp153s0f0np0 enp153s0f1np1");
	HAS(f->evidence, "/sys/class/net/enp153s0f1np1/bonding_slave/mii_status=down operstate=down");
	HAS(f->hint, "cat /proc/net/bonding/bond0; ip link show enp153s0f1np1");
	model_free(&m);

	/* active-backup: the failover is what is lost. */
	build(&m, true);
	make_bond(&m, "active-backup", "down", 0);
	findings_run(&m);
	f = only(&m, "links.bond-slave-down", "mlx5_bond_0/1");
	HAS(f->message, "active-backup: the traffic has no failover left");
	model_free(&m);

	/* A slave the bond names that is not here at all. */
	build(&m, true);
	make_bond(&m, "802.3ad", "up", 1);
	fab_strlcpy(m.netdevs[0].bond_slaves, "enp153s0f0np0 enp153s0f1np1 gone0", sizeof(m.netdevs[0].bond_slaves));
	findings_run(&m);
	f = only(&m, "links.bond-slave-down", "mlx5_bond_0/1");
	HAS(f->message, "runs on 2 of its 3 links: gone0 (not in /sys/class/net) down");
	model_free(&m);
}

/* Consistency across HCAs: firmware, IB subnets, IB beside RoCE. */
static void test_consistency(void **state)
{
	struct fab_model m;
	build(&m, false);
	for (int i = 0; i < NNIC; i++)
		fab_strlcpy(m.nics[i].fw_ver, i == 7 ? "28.36.1010" : "28.39.1002", sizeof(m.nics[i].fw_ver));
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.fw-mismatch", "MT4129");
	assert_int_equal(f->sev, SEV_WARN);
	assert_string_equal(f->message, "the 8 MT4129 HCAs run 2 firmware versions: 28.39.1002 on mlx5_0, "
			    "mlx5_1, mlx5_2, mlx5_3, mlx5_4, mlx5_5, mlx5_6; 28.36.1010 on mlx5_7");
	HAS(f->hint, "flint -d 0000:10:00.0 q");
	model_free(&m);

	/* Rails 4-7 under another subnet manager, with another prefix. */
	build(&m, false);
	for (int i = 4; i < NNIC; i++) {
		port(&m, i)->sm_lid = fab_int_of(7);
		memcpy(port(&m, i)->gids[0].gid, "fec0", 4);
	}
	findings_run(&m);
	f = only(&m, "links.subnet-mismatch", "node");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "its 8 active IB ports are on 2 subnets");
	HAS(f->evidence, "prefix fe80:0000:0000:0000 SM LID 256: mlx5_0/1, mlx5_1/1, mlx5_2/1, mlx5_3/1; "
	    "prefix fec0:0000:0000:0000 SM LID 7: mlx5_4/1, mlx5_5/1, mlx5_6/1, mlx5_7/1");
	model_free(&m);

	/* More subnets and firmware versions than the rules once kept (4
	 * subnets, 8 versions: they then said 4 and 8): every rail its own. */
	build(&m, false);
	for (int i = 0; i < NNIC; i++) {
		port(&m, i)->sm_lid = fab_int_of(i + 1);
		snprintf(m.nics[i].fw_ver, sizeof(m.nics[i].fw_ver), "28.39.%d", 1000 + i);
	}
	model_add_nic(&m);   /* a ninth HCA with its own firmware, in a slot of its own */
	m.nics[8] = m.nics[7];
	model_add_pci(&m);
	m.pci[NNIC] = m.pci[7];
	fab_strlcpy(m.pci[NNIC].bdf, "0000:90:00.0", sizeof(m.pci[NNIC].bdf));
	m.nics[8].pci = NNIC;
	fab_strlcpy(m.nics[8].name, "mlx5_8", sizeof(m.nics[8].name));
	fab_strlcpy(m.nics[8].fw_ver, "28.40.1000", sizeof(m.nics[8].fw_ver));
	port(&m, 8)->sm_lid = fab_int_of(9);
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.subnet-mismatch"), 1);
	assert_int_equal(nlinks(&m, "links.fw-mismatch"), 1);
	f = find_f(&m, "links.subnet-mismatch", "node");
	HAS(f->message, "its 9 active IB ports are on 9 subnets");
	HAS(f->evidence, "SM LID 9: mlx5_8/1");
	f = find_f(&m, "links.fw-mismatch", "MT4129");
	HAS(f->message, "the 9 MT4129 HCAs run 9 firmware versions");
	HAS(f->message, "28.40.1000 on mlx5_8");
	model_free(&m);

	/* One subnet, one firmware: neither finding. */
	build(&m, false);
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.subnet-mismatch"), 0);
	assert_int_equal(nlinks(&m, "links.fw-mismatch"), 0);
	assert_int_equal(nlinks(&m, "links.ll-mixed"), 0);
	/* Two of the ports RoCE (storage NICs beside IB rails): information. */
	for (int i = 6; i < NNIC; i++)
		port(&m, i)->ll = FAB_LL_ETH;
	findings_run(&m);
	int mixed = 0;
	for (int i = 0; i < m.nfindings; i++)
		if (strcmp(m.findings[i].id, "links.ll-mixed") == 0) {
			mixed++;
			assert_int_equal(m.findings[i].sev, SEV_INFO);
			assert_string_equal(m.findings[i].evidence, "InfiniBand: mlx5_0/1, mlx5_1/1, mlx5_2/1, "
					    "mlx5_3/1, mlx5_4/1, mlx5_5/1; RoCE: mlx5_6/1, mlx5_7/1");
		}
	assert_int_equal(mixed, 1);
	model_free(&m);
}

/* The job's traffic class against PFC (links.tc-no-pfc), and MLNX_OFED's
 * global traffic class (links.tc-override). The healthy RoCE node trusts
 * dscp with PFC on 3; without a DSCP map mlx5's default (DSCP >> 3). */
static void test_tc(void **state)
{
	struct fab_model m;
	/* NCCL_IB_TC=106: DSCP 26, priority 3, PFC on: nothing. */
	build(&m, true);
	m.job_tc = fab_int_of(106);
	findings_run(&m);
	assert_int_equal(nlinks(&m, NULL), 0);
	model_free(&m);

	/* NCCL's default 0: priority 0 on every port, where PFC is off. */
	build(&m, true);
	m.job_tc = fab_int_of(0);
	fab_strlcpy(m.job_tc_from, "pid 4242 (python3) without NCCL_IB_TC: NCCL's default 0",
		    sizeof(m.job_tc_from));
	fab_strlcpy(m.netdevs[2].qos_source, "DCB netlink", sizeof(m.netdevs[2].qos_source));
	fab_strlcpy(m.netdevs[2].trust_source, "DCB netlink", sizeof(m.netdevs[2].trust_source));
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.tc-no-pfc"), NNIC);
	assert_int_equal(nlinks(&m, NULL), NNIC);
	const struct fab_finding *f = NULL;
	for (int i = 0; i < m.nfindings; i++)
		if (strcmp(m.findings[i].subject, "mlx5_2/1") == 0)
			f = &m.findings[i];
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "RDMA traffic on a priority without PFC");
	HAS(f->message, "traffic class 0 on priority 0");
	HAS(f->evidence, "NCCL's default 0");
	HAS(f->evidence, "trust dscp from DCB netlink; mlx5's default map, DSCP >> 3");
	HAS(f->evidence, "PFC on 3 from DCB netlink (dcb pfc show dev eth2)");
	HAS(f->hint, "NCCL_IB_TC=106 (DSCP 26, priority 3)");
	HAS(f->hint, "dcb pfc set dev eth2 prio-pfc 0:on");
	for (int i = 0; i < m.nfindings; i++)
		if (strcmp(m.findings[i].subject, "mlx5_3/1") == 0)
			HAS(m.findings[i].evidence, "PFC on 3 from /sys/class/net/eth3/qos/pfc");
	model_free(&m);

	/* A DSCP map from the app table that sends DSCP 26 to priority 5. */
	build(&m, true);
	m.job_tc = fab_int_of(106);
	for (int i = 0; i < NNIC; i++) {
		struct fab_netdev *d = &m.netdevs[i];
		d->dscp_map_ok = i == 5;
		for (int k = 0; k < 64; k++)
			d->dscp2prio[k] = (signed char)(k >> 3);
		d->dscp2prio[26] = 5;
	}
	findings_run(&m);
	f = only(&m, "links.tc-no-pfc", "mlx5_5/1");
	HAS(f->message, "traffic class 106 on priority 5");
	HAS(f->evidence, "DSCP map from the DCB netlink app table");
	HAS(f->hint, "NCCL_IB_TC=98 (DSCP 24, priority 3)");
	model_free(&m);

	/* trust pcp: the traffic class does not decide the priority. */
	build(&m, true);
	m.job_tc = fab_int_of(0);
	for (int i = 0; i < NNIC; i++)
		fab_strlcpy(m.netdevs[i].qos_trust, i == 4 ? "dscp" : "pcp", sizeof(m.netdevs[i].qos_trust));
	findings_run(&m);
	only(&m, "links.tc-no-pfc", "mlx5_4/1");
	model_free(&m);

	/* PFC unknown, or off everywhere (links.pfc-off says it): no tc-no-pfc. */
	build(&m, true);
	m.job_tc = fab_int_of(0);
	for (int i = 0; i < NNIC; i++)
		m.netdevs[i].pfc_mask = i == 1 ? fab_int_of(0) : (fab_int){ 0, false };
	findings_run(&m);
	only(&m, "links.pfc-off", "mlx5_1/1");
	model_free(&m);

	/* A global traffic class that differs from the job's: warning; the
	 * priority it forces (DSCP 24 -> 3) has PFC, so no tc-no-pfc. */
	build(&m, true);
	m.job_tc = fab_int_of(106);
	m.job_tc_set = true;
	fab_strlcpy(m.job_tc_from, "NCCL_IB_TC=106 of pid 4242 (python3)", sizeof(m.job_tc_from));
	port(&m, 4)->tclass = (struct fab_tclass){ .set = FAB_YES, .value = 96 };
	port(&m, 6)->tclass = (struct fab_tclass){ .set = FAB_YES, .value = 106 };   /* the same */
	port(&m, 7)->tclass = (struct fab_tclass){ .set = FAB_NO };
	findings_run(&m);
	f = only(&m, "links.tc-override", "mlx5_4/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "a global traffic class 96 (DSCP 24, priority 3) on mlx5_4/1 overrides the job's 106");
	HAS(f->evidence, "/sys/class/infiniband/mlx5_4/tc/1/traffic_class: Global tclass=96");
	HAS(f->evidence, "NCCL_IB_TC=106 of pid 4242");
	HAS(f->hint, "echo -1 > /sys/class/infiniband/mlx5_4/tc/1/traffic_class");
	model_free(&m);

	/* The jobs leave NCCL_IB_TC unset (NCCL's default 0): a site that sets
	 * the global class so that jobs need not is working as meant: info. */
	build(&m, true);
	m.job_tc = fab_int_of(0);
	m.job_tc_set = false;
	fab_strlcpy(m.job_tc_from, "pid 4242 (python3) without NCCL_IB_TC: NCCL's default 0",
		    sizeof(m.job_tc_from));
	port(&m, 4)->tclass = (struct fab_tclass){ .set = FAB_YES, .value = 106 };
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.tc-override"), 1);
	for (int i = 0; i < m.nfindings; i++)
		if (strcmp(m.findings[i].id, "links.tc-override") == 0)
			f = &m.findings[i];
	assert_string_equal(f->subject, "mlx5_4/1");
	assert_int_equal(f->sev, SEV_INFO);
	HAS(f->message, "every RoCE QP of mlx5_4/1 carries traffic class 106");
	HAS(f->evidence, "without NCCL_IB_TC: NCCL's default 0");
	model_free(&m);

	/* The job unknown: the override alone is information, and it is the
	 * traffic class judged against PFC (0: priority 0, no PFC). */
	build(&m, true);
	port(&m, 0)->tclass = (struct fab_tclass){ .set = FAB_YES, .value = 0 };
	fab_strlcpy(m.job_tc_from, "no NCCL job found (/proc)", sizeof(m.job_tc_from));
	findings_run(&m);
	assert_int_equal(nlinks(&m, NULL), 2);
	assert_int_equal(nlinks(&m, "links.tc-override"), 1);
	assert_int_equal(nlinks(&m, "links.tc-no-pfc"), 1);
	for (int i = 0; i < m.nfindings; i++) {
		f = &m.findings[i];
		assert_string_equal(f->subject, "mlx5_0/1");
		if (strcmp(f->id, "links.tc-override") == 0) {
			assert_int_equal(f->sev, SEV_INFO);
			HAS(f->message, "every RoCE QP of mlx5_0/1 carries traffic class 0 (DSCP 0, priority 0)");
			HAS(f->evidence, "the job: no NCCL job found");
		} else {
			HAS(f->evidence, "tc/1/traffic_class forces traffic class 0");
			HAS(f->hint, "after clearing the global traffic class");
		}
	}
	model_free(&m);
}

static void test_pfc(void **state)
{
	struct fab_model m;
	build(&m, true);
	m.netdevs[6].pfc_mask = fab_int_of(0);
	m.netdevs[6].ecn_np_mask = m.netdevs[6].ecn_rp_mask = fab_int_of(0);
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.pfc-off", "mlx5_6/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->evidence, "/sys/class/net/eth6/qos/pfc");
	HAS(f->hint, "mlnx_qos -i eth6");
	model_free(&m);

	build(&m, true);
	m.netdevs[7].ecn_np_mask = m.netdevs[7].ecn_rp_mask = fab_int_of(0);
	findings_run(&m);
	f = only(&m, "links.pfc-no-ecn", "mlx5_7/1");
	assert_int_equal(f->sev, SEV_WARN);
	HAS(f->message, "priority 3 of eth7");
	HAS(f->hint, "/sys/class/net/eth7/ecn/roce_{np,rp}/enable/3");
	model_free(&m);

	/* np on, rp unknown: fine. Both unknown: nothing. PFC unknown: nothing. */
	build(&m, true);
	m.netdevs[1].ecn_rp_mask.ok = false;
	m.netdevs[2].ecn_np_mask.ok = m.netdevs[2].ecn_rp_mask.ok = false;
	m.netdevs[3].pfc_mask.ok = false;
	m.netdevs[3].pfc_mask.v = 0;
	findings_run(&m);
	assert_int_equal(nlinks(&m, NULL), 0);
	model_free(&m);
}

static void test_not_usable(void **state)
{
	struct fab_model m;
	build(&m, true);
	m.nics[4].uverbs.present = false;
	m.nics[4].uverbs.open_errno = fab_int_of(ENOENT);
	findings_run(&m);
	const struct fab_finding *f = only(&m, "links.not-usable", "mlx5_4");
	assert_int_equal(f->sev, SEV_INFO);
	HAS(f->message, "visible but /dev/infiniband/uverbs4 does not exist here: "
		       "not usable from this container");
	HAS(f->hint, "NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_5,mlx5_6,mlx5_7");
	model_free(&m);

	/* A DOWN port is not proposed to NCCL (roce-faults-pod proposed it). */
	build(&m, true);
	m.nics[4].uverbs.present = false;
	m.nics[4].uverbs.open_errno = fab_int_of(ENOENT);
	port(&m, 1)->state = fab_int_of(1);
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.port-down"), 1);
	f = NULL;
	for (int i = 0; i < m.nfindings; i++)
		if (strcmp(m.findings[i].id, "links.not-usable") == 0)
			f = &m.findings[i];
	assert_non_null(f);
	assert_string_equal(f->subject, "mlx5_4");
	HAS(f->hint, "NCCL_IB_HCA=mlx5_0,mlx5_2,mlx5_3,mlx5_5,mlx5_6,mlx5_7");
	model_free(&m);

	build(&m, true);
	m.nics[2].uverbs.open_errno = fab_int_of(EACCES);
	findings_run(&m);
	f = only(&m, "links.not-usable", "mlx5_2");
	HAS(f->message, "EACCES");
	HAS(f->evidence, "open(/dev/infiniband/uverbs2, O_RDWR) failed with EACCES");
	model_free(&m);

	/* None usable: warning on each. */
	build(&m, true);
	for (int i = 0; i < NNIC; i++) {
		m.nics[i].uverbs.present = false;
		m.nics[i].uverbs.open_errno = fab_int_of(ENOENT);
	}
	findings_run(&m);
	assert_int_equal(nlinks(&m, "links.not-usable"), NNIC);
	for (int i = 0; i < m.nfindings; i++)
		assert_int_equal(m.findings[i].sev, SEV_WARN);
	model_free(&m);

	/* Unknown: absent and not tried, or present and not tried: nothing. */
	build(&m, true);
	m.nics[1].uverbs.present = false;
	m.nics[1].uverbs.open_errno.ok = false;
	m.nics[2].uverbs.open_errno.ok = false;
	findings_run(&m);
	assert_int_equal(nlinks(&m, NULL), 0);
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_port_down),
		cmocka_unit_test(test_no_sm),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_pcie),
		cmocka_unit_test(test_card),
		cmocka_unit_test(test_mtu),
		cmocka_unit_test(test_mtu_many_siblings),
		cmocka_unit_test(test_roce_ipv4),
		cmocka_unit_test(test_gid_netns),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_counter_implausible),
		cmocka_unit_test(test_bond_slave_down),
		cmocka_unit_test(test_port_unused),
		cmocka_unit_test(test_port_unused_rule),
		cmocka_unit_test(test_consistency),
		cmocka_unit_test(test_transport_errors),
		cmocka_unit_test(test_total_judge),
		cmocka_unit_test(test_pfc),
		cmocka_unit_test(test_tc),
		cmocka_unit_test(test_not_usable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
