/*
 * rules_links.c - link rules over the HCA ports: state, subnet manager,
 * rate, PCIe fit, RoCE MTU/GIDs/QoS, error counters, and whether this
 * namespace can use each HCA. Pure functions of the model: nothing here
 * reads a file, and an unknown (!ok) value is never reported as bad.
 *
 * Subjects: "mlx5_0/1" for a port, "mlx5_0" for a device. Severities:
 * error = the port cannot carry traffic, warning = degraded, info = advisory.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/i18n.h"
#include "fabtop/counters.h"
#include "rules.h"
#include "fabtop/sanitize.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"

/* ports/N/state and phys_state numbers (enum ib_port_state, ib_port_phys_state). */
enum { ST_NOP = 0, ST_DOWN = 1, ST_INIT = 2, ST_ARMED = 3, ST_ACTIVE = 4, ST_ACTIVE_DEFER = 5 };
enum { PH_SLEEP = 1, PH_POLLING = 2, PH_DISABLED = 3, PH_TRAINING = 4, PH_LINKUP = 5,
       PH_ERROR_RECOVERY = 6, PH_PHY_TEST = 7 };

/* The kernel derives the RoCE MTU from the netdev MTU minus GRH 40 + UDP 8 +
 * BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4 bytes (iboe_get_mtu). */
#define ROCE_MTU_OVERHEAD 96

static bool is_roce(const struct fab_port *p) { return p->ll == FAB_LL_ETH; }
static bool is_ib(const struct fab_port *p) { return p->ll == FAB_LL_IB; }

static void port_name(const struct fab_nic *n, const struct fab_port *p, char *buf, size_t len)
{
	fab_subject(n->name, p->num, buf, len);
}

static void port_dir(const struct fab_nic *n, const struct fab_port *p, char *buf, size_t len)
{
	snprintf(buf, len, "/sys/class/infiniband/%s/ports/%d", n->name, p->num);
}


static bool same_rate(double a, double b) { return fabs(a - b) < 0.5; }

/* ---- links.port-down ------------------------------------------------- */

/* mlx5 reports a RoCE port DOWN/Disabled whenever its netdev is not running
 * or has no carrier (mlx5_query_port_roce); carrier tells the two apart:
 * it reads 0 on an up interface without link, EINVAL (unknown) on one that
 * is administratively down. */
enum roce_why { ROCE_UNKNOWN, ROCE_ADMIN_DOWN, ROCE_NO_CARRIER };

static enum roce_why roce_disabled_why(const struct fab_netdev *d)
{
	if (!d)
		return ROCE_UNKNOWN;
	if (d->carrier.ok && d->carrier.v == 0)
		return ROCE_NO_CARRIER;
	if (!d->carrier.ok && strcmp(d->operstate, "down") == 0)
		return ROCE_ADMIN_DOWN;
	return ROCE_UNKNOWN;
}

static const char *phys_meaning(long long ps, bool roce, enum roce_why why)
{
	if (roce && ps == PH_DISABLED)
		switch (why) {
		case ROCE_NO_CARRIER:
			return _("its netdev is up but has no carrier: no peer seen; check the cable, "
			       "the transceiver and the switch port");
		case ROCE_ADMIN_DOWN:
			return _("its netdev is administratively down");
		case ROCE_UNKNOWN:
			return _("mlx5 reports this when the netdev is down or has no carrier");
		}
	switch (ps) {
	case PH_SLEEP:
		return _("the PHY is asleep: the port was never enabled or sees no module");
	case PH_POLLING:
		return _("no peer seen: check the cable, the transceiver and the switch port");
	case PH_DISABLED:
		return _("administratively down: the port was disabled here or on the switch");
	case PH_TRAINING:
		return _("the link is training and not coming up: the ends disagree on speed or width, "
		       "e.g. cable type or speed settings");
	case PH_ERROR_RECOVERY:
		return _("the link is recovering from errors: a bad cable or transceiver when it repeats");
	case PH_PHY_TEST:
		return _("the PHY is in a test mode");
	}
	return _("the physical link is not up");
}

static const char *st_word(const struct fab_port *p) { return p->state_str[0] ? p->state_str : "?"; }
static const char *ph_word(const struct fab_port *p)
{
	return p->phys_state_str[0] ? p->phys_state_str : "?";
}

/* The NIC's PCI bus address, "" when unknown. */
static const char *bdf_of(const struct fab_model *m, const struct fab_nic *n)
{
	return n->pci >= 0 && n->pci < m->npci ? m->pci[n->pci].bdf : "";
}

static bool is_up(const struct fab_port *p)
{
	return port_active(p) && p->phys_state.ok && p->phys_state.v == PH_LINKUP;
}

/* The link_downed counter of a port: -1 when absent or unreadable. */
static long long link_downed(const struct fab_port *p)
{
	for (int c = 0; c < p->nerrors; c++)
		if (strcmp(p->errors[c].name, "link_downed") == 0)
			return p->errors[c].value.ok && p->errors[c].value.v >= 0 ? p->errors[c].value.v : -1;
	return -1;
}

/* Why a down port is or is not merely unused (port_unused). */
struct port_role {
	char carrier[FAB_NAME_LEN + 8];   /* the up port on the same card, "" none */
	char rail[160];                   /* its siblings that are up, "a/1, b/1" */
	int sib_up, sib_down;             /* siblings up, and not up */
	long long downed;                 /* link_downed, -1 unknown */
	bool no_cable;
};

/* A port nobody cabled, beside one that carries the traffic, is unused,
 * not broken. The rule, exactly:
 *   unused = no cable: phys_state Disabled, or a RoCE port whose netdev is
 *            up without carrier (Polling means a cable without a peer:
 *            a fault, always)
 *        and never up since the counters were cleared: link_downed is
 *            read and 0 (a port that was up and went down is a fault)
 *        and its card carries traffic: another port of the same card (any
 *            function of the same PCI slot: mlx5_0/mlx5_1 of a dual-port
 *            ConnectX, or port 1 of the same mlx4 device; any function of
 *            a multi-host card, card_derive) is up
 *        and it is not a rail like its siblings. Its siblings are the
 *            ports in the same role on the node's other cards: the same
 *            adapter model (nic_same_model), the same PCI function on their
 *            card and the same port number, the same link layer. It is a
 *            rail when most of its siblings are up (8 dual-port cards
 *            with port 2 cabled on 7: the 8th is a rail down; port 2
 *            cabled on 1 of 8: the other 7 are free).
 * A single-port card has no other port to carry its traffic: its down
 * port is always a fault. (A job's NCCL_IB_HCA naming an unused port is
 * the job step's error, job.ib-hca-down.) */
static bool port_unused(const struct fab_model *m, const struct fab_nic *n, const struct fab_port *p,
			struct port_role *r)
{
	const struct fab_netdev *d = model_netdev(m, p->netdev);
	memset(r, 0, sizeof(*r));
	r->downed = link_downed(p);
	r->no_cable = p->phys_state.ok && (p->phys_state.v == PH_DISABLED ||
		(is_roce(p) && p->phys_state.v != PH_POLLING && d && d->carrier.ok && d->carrier.v == 0));
	int fn = fab_bdf_function(bdf_of(m, n));
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *o = &m->nics[i];
		bool card = o->card == n->card;   /* card_derive: one slot, or a multi-host card */
		for (int k = 0; k < o->nports; k++) {
			const struct fab_port *q = &o->ports[k];
			if (q == p)
				continue;
			if (card) {
				if (is_up(q) && !r->carrier[0])
					snprintf(r->carrier, sizeof(r->carrier), "%s/%d", o->name, q->num);
			} else if (nic_same_model(m, o, n) && q->num == p->num && q->ll == p->ll &&
				   fab_bdf_function(bdf_of(m, o)) == fn) {
				if (is_up(q)) {
					r->sib_up++;
					fab_catf(r->rail, sizeof(r->rail), "%s%s/%d", r->rail[0] ? ", " : "",
						 o->name, q->num);
				} else {
					r->sib_down++;
				}
			}
		}
	}
	return r->no_cable && r->downed == 0 && r->carrier[0] && r->sib_up <= r->sib_down;
}

/* A port that cannot carry traffic: the physical link is not up, or the
 * logical state is DOWN. An IB port in INIT/ARMED has its physical link up
 * and waits for the subnet manager: that is links.no-sm, not this rule. */
static void rule_port_down(struct fab_model *m)
{
	FOR_EACH_PORT(m, n, p) {
		bool phys_down = p->phys_state.ok && p->phys_state.v != PH_LINKUP;
		bool sm_wait = is_ib(p) && p->state.ok &&
			       (p->state.v == ST_INIT || p->state.v == ST_ARMED);
		bool log_down = p->state.ok && !port_active(p) && !sm_wait;
		if (!phys_down && !log_down)
			continue;
		char subj[FAB_NAME_LEN + 8], dir[FAB_PATH_LEN];
		port_name(n, p, subj, sizeof(subj));
		port_dir(n, p, dir, sizeof(dir));
		bool roce = is_roce(p);
		const struct fab_netdev *d = model_netdev(m, p->netdev);
		enum roce_why why = roce_disabled_why(d);
		struct port_role r;
		if (port_unused(m, n, p, &r)) {
			struct fab_finding *f = model_add_finding(m, "links.port-unused", SEV_INFO, subj);
			snprintf(f->message, sizeof(f->message),
				 _("unused: no cable (state %s, physical state %s), while %s on the same "
				 "card carries the traffic and %s"),
				 st_word(p), ph_word(p), r.carrier, r.sib_up ?
				 _("most cards leave this port free too") : _("no other card uses this port"));
			snprintf(f->evidence, sizeof(f->evidence), _("%s/state=%s phys_state=%s; "
				 "link_downed=0 (never up since the counters were cleared)"),
				 dir, st_word(p), ph_word(p));
			if (r.sib_up + r.sib_down)
				fab_catf(f->evidence, sizeof(f->evidence), _("; the same port of its "
					 "model's other cards: %d up, %d not"), r.sib_up, r.sib_down);
			snprintf(f->hint, sizeof(f->hint),
				 _("nothing to do if it is meant to be free: NCCL skips ports that are not "
				 "ACTIVE; a job whose NCCL_IB_HCA names it runs without it (the job step "
				 "says so)"));
			continue;
		}
		struct fab_finding *f = model_add_finding(m, "links.port-down", SEV_ERROR, subj);
		if (phys_down)
			snprintf(f->message, sizeof(f->message),
				 _("not usable: state %s, physical state %s (%s)"),
				 st_word(p), ph_word(p),
				 phys_meaning(p->phys_state.v, roce, why));
		else if (p->phys_state.ok)
			snprintf(f->message, sizeof(f->message),
				 _("not usable: state %s although the physical link is %s"), st_word(p),
				 ph_word(p));
		else
			snprintf(f->message, sizeof(f->message),
				 _("not usable: state %s (physical state unknown)"), st_word(p));
		/* Why it is not just an unused port beside a busy one. */
		bool rail = r.no_cable && r.carrier[0] && r.sib_up > r.sib_down;
		if (r.downed > 0)
			fab_catf(f->message, sizeof(f->message), _("; it was up and went down"));
		else if (rail)
			fab_catf(f->message, sizeof(f->message), _("; a rail like its siblings, "
				 "which are up"));
		else if (r.no_cable && r.carrier[0] && r.downed < 0)
			fab_catf(f->message, sizeof(f->message), _("; whether it was ever up is "
				 "unknown (link_downed unreadable)"));
		snprintf(f->evidence, sizeof(f->evidence), "%s/", dir);
		if (p->state.ok)
			fab_catf(f->evidence, sizeof(f->evidence), "state=%lld: %s", p->state.v, st_word(p));
		if (p->phys_state.ok)
			fab_catf(f->evidence, sizeof(f->evidence), "%sphys_state=%lld: %s",
			    p->state.ok ? " " : "", p->phys_state.v, ph_word(p));
		if (ll_name(p->ll))
			fab_catf(f->evidence, sizeof(f->evidence), " link_layer=%s", ll_name(p->ll));
		if (d && d->operstate[0])
			fab_catf(f->evidence, sizeof(f->evidence), "; /sys/class/net/%s/operstate=%s",
			    d->name, d->operstate);
		if (d && d->carrier.ok)   /* unreadable (EINVAL) while the netdev is down */
			fab_catf(f->evidence, sizeof(f->evidence), " carrier=%lld", d->carrier.v);
		if (r.downed > 0)
			fab_catf(f->evidence, sizeof(f->evidence), _("; link_downed=%lld since the "
				 "counters were cleared"), r.downed);
		if (rail)
			fab_catf(f->evidence, sizeof(f->evidence), _("; the same port is up on %s "
				 "(same model, same function)"), r.rail);
		if (roce && p->netdev[0] && p->phys_state.ok && p->phys_state.v == PH_DISABLED &&
		    why == ROCE_ADMIN_DOWN)
			snprintf(f->hint, sizeof(f->hint),
				 _("ibstat %s %d; ip link show %s (state DOWN?); suggestion: ip link set dev %s up"),
				 FAB_SHQ(n->name), p->num, FAB_SHQ(p->netdev), FAB_SHQ(p->netdev));
		else if (roce && p->netdev[0])
			snprintf(f->hint, sizeof(f->hint),
				 d ? _("ibstat %s %d; ip link show %s; ethtool %s | grep 'Link detected'; "
				       "check the cable, the transceiver and the switch port")
				   : _("ibstat %s %d; on the host (the netdev is not in this namespace): "
				       "ip link show %s; ethtool %s | grep 'Link detected'; "
				       "check the cable, the transceiver and the switch port"),
				 FAB_SHQ(n->name), p->num,
				 FAB_SHQ(p->netdev), FAB_SHQ(p->netdev));
		else
			snprintf(f->hint, sizeof(f->hint),
				 _("ibstat %s %d; check the cable and transceiver seating and the switch "
				 "port (its LEDs and its state on the switch or in UFM)"), FAB_SHQ(n->name), p->num);
	}
}

/* ---- links.no-sm ----------------------------------------------------- */

/* An IB port goes ACTIVE only after a subnet manager gives it a LID
 * (INIT -> ARMED -> ACTIVE). INIT/ARMED with the physical link up means no
 * SM reached it; an ACTIVE port with sm_lid 0 knows no SM for SA queries. */
static void rule_no_sm(struct fab_model *m)
{
	FOR_EACH_PORT(m, n, p) {
		if (!is_ib(p) || !p->state.ok)
			continue;
		if (p->phys_state.ok && p->phys_state.v != PH_LINKUP)
			continue;   /* links.port-down speaks for it */
		bool waiting = p->state.v == ST_INIT || p->state.v == ST_ARMED;
		bool no_sm = port_active(p) && p->sm_lid.ok && p->sm_lid.v == 0;
		if (!waiting && !no_sm)
			continue;
		char subj[FAB_NAME_LEN + 8], dir[FAB_PATH_LEN];
		port_name(n, p, subj, sizeof(subj));
		port_dir(n, p, dir, sizeof(dir));
		struct fab_finding *f = model_add_finding(m, "links.no-sm",
							  waiting ? SEV_ERROR : SEV_WARN, subj);
		if (p->state.v == ST_INIT)
			snprintf(f->message, sizeof(f->message),
				 _("INIT: the physical link is up but no subnet manager has "
				 "configured the port (no LID, no routes), so it carries no traffic"));
		else if (p->state.v == ST_ARMED)
			snprintf(f->message, sizeof(f->message),
				 _("ARMED: a subnet manager gave it a LID but never made it ACTIVE "
				 "(the SM stopped or failed mid-sweep); it carries no traffic"));
		else
			snprintf(f->message, sizeof(f->message),
				 _("ACTIVE but its sm_lid is 0: the port knows no subnet manager, so "
				 "SA queries (path records for rdma_cm, IPoIB, MPI) fail"));
		char lb[24], sb[24];
		snprintf(f->evidence, sizeof(f->evidence),
			 "%s/state=%lld: %s phys_state=%s lid=%s sm_lid=%s", dir, p->state.v,
			 st_word(p), p->phys_state.ok ? ph_word(p) : "N/A",
			 fab_int_str(p->lid, lb, sizeof(lb)), fab_int_str(p->sm_lid, sb, sizeof(sb)));
		snprintf(f->hint, sizeof(f->hint),
			 _("sminfo -C %s -P %d; ibstat %s %d (SM lid); check that opensm runs "
			 "(systemctl status opensm on the SM node) or that UFM manages this subnet"),
			 FAB_SHQ(n->name), p->num, FAB_SHQ(n->name), p->num);
	}
}

/* ---- links.rate-degraded --------------------------------------------- */

/* The rates the ACTIVE ports of one adapter model and link layer run at,
 * counted once per findings run for each model met (not once per port:
 * that scanned every port per port). Rates within 0.5 Gb/s are one value,
 * the first met standing for it. */
struct rate_census {
	const struct fab_nic *model;  /* a NIC of the model (sig_same) */
	enum fab_link_layer ll;
	struct rate_count { double rate; int n; } *v;
	int nv, total;
};

struct rate_censuses {
	struct rate_census *c;
	int n, cap;
};

/* a and b are the same model to every other NIC (nic_same_model(x, a) ==
 * nic_same_model(x, b) for all x): what that function reads of its second
 * argument is equal. */
static bool sig_same(const struct fab_model *m, const struct fab_nic *a, const struct fab_nic *b)
{
	const struct fab_pci_dev *da = nic_pci(m, a), *db = nic_pci(m, b);
	bool ka = da && da->vendor.ok && da->device.ok, kb = db && db->vendor.ok && db->device.ok;
	if (ka != kb || (ka && (da->vendor.v != db->vendor.v || da->device.v != db->device.v)))
		return false;
	return strcmp(a->hca_type, b->hca_type) == 0 && strcmp(a->board_id, b->board_id) == 0;
}

/* The census of self_nic's model on link layer ll, counted on first use;
 * NULL when out of memory. */
static const struct rate_census *rate_census_of(const struct fab_model *m, struct rate_censuses *all,
						const struct fab_nic *self_nic, enum fab_link_layer ll)
{
	for (int i = 0; i < all->n; i++)
		if (all->c[i].ll == ll && sig_same(m, all->c[i].model, self_nic))
			return &all->c[i];
	if (all->n == all->cap) {
		int cap = all->cap ? all->cap * 2 : 4;
		struct rate_census *v = realloc(all->c, (size_t)cap * sizeof(*v));
		if (!v)
			return NULL;
		all->c = v;
		all->cap = cap;
	}
	struct rate_census *c = &all->c[all->n];
	*c = (struct rate_census){ .model = self_nic, .ll = ll };
	int cap = 0;
	for (int i = 0; i < m->nnics; i++) {
		if (!nic_same_model(m, &m->nics[i], self_nic))
			continue;
		for (int k = 0; k < m->nics[i].nports; k++) {
			const struct fab_port *q = &m->nics[i].ports[k];
			if (!port_active(q) || !q->rate_gbps.ok || q->ll != ll)
				continue;
			int v = 0;
			while (v < c->nv && !same_rate(c->v[v].rate, q->rate_gbps.v))
				v++;
			if (v == c->nv) {
				if (c->nv == cap) {
					cap = cap ? cap * 2 : 4;
					struct rate_count *nv = realloc(c->v, (size_t)cap * sizeof(*nv));
					if (!nv) {
						free(c->v);
						return NULL;
					}
					c->v = nv;
				}
				c->v[c->nv++] = (struct rate_count){ q->rate_gbps.v, 0 };
			}
			c->v[v].n++;
			c->total++;
		}
	}
	all->n++;
	return c;
}

static void rate_censuses_free(struct rate_censuses *all)
{
	for (int i = 0; i < all->n; i++)
		free(all->c[i].v);
	free(all->c);
}

/* The rate most (more than half) of the other ACTIVE ports of the same
 * adapter model and link layer run at, when there are at least three of
 * them: the model's census less self (an ACTIVE port with a rate). */
static bool sibling_rate(const struct fab_model *m, struct rate_censuses *all,
			 const struct fab_nic *self_nic, const struct fab_port *self,
			 double *rate, int *agree, int *total)
{
	const struct rate_census *c = rate_census_of(m, all, self_nic, self->ll);
	if (!c)
		return false;
	/* Self is in its census when its NIC is of its own model (it is not
	 * when neither its PCI ID nor its hca_type is known). */
	bool in = nic_same_model(m, self_nic, self_nic);
	int tot = c->total - (in ? 1 : 0);
	if (tot < 3)
		return false;
	int own = -1;
	for (int v = 0; in && own < 0 && v < c->nv; v++)
		if (same_rate(c->v[v].rate, self->rate_gbps.v))
			own = v;
	for (int v = 0; v < c->nv; v++) {
		int cnt = c->v[v].n - (v == own ? 1 : 0);
		if (cnt * 2 > tot) {
			*rate = c->v[v].rate;
			*agree = cnt;
			*total = tot;
			return true;
		}
	}
	return false;
}

static const char *pci_bdf(const struct fab_model *m, const struct fab_nic *n)
{
	return n->pci >= 0 && n->pci < m->npci ? m->pci[n->pci].bdf : "";
}

/* An ACTIVE port below what it should run at: what one port of its card
 * can do (card_derive: a dual-port ConnectX-5 EDR card runs 100 Gb/s on
 * each port), all four lanes (InfiniBand; Ethernet 1X/2X is native for
 * 25/50/100 GbE), or the rate most of its siblings of the same model run
 * at. A warning when the evidence is firm: below a capability that does
 * not depend on ports out of sight (cap_sure), below its siblings, or
 * narrowed. Below a capability that might (one port of a ConnectX-7 seen:
 * 400 alone, 200 on a dual-port card) is info. A narrowed port is
 * expected at what its card does at 4X, never at another model's rate. */
static void rule_rate_degraded(struct fab_model *m)
{
	struct rate_censuses census = { 0 };
	FOR_EACH_PORT(m, n, p) {
		if (!port_active(p) || !p->rate_gbps.ok)
			continue;
		double rate = p->rate_gbps.v, sib = 0;
		int agree = 0, total = 0;
		bool has_sib = sibling_rate(m, &census, n, p, &sib, &agree, &total);
		bool below_cap = n->cap_gbps.ok && rate < n->cap_gbps.v - 0.5;
		bool below_sib = has_sib && rate < sib - 0.5;
		bool narrow = is_ib(p) && p->width.ok && p->width.v < 4 &&
			      !(n->cap_gbps.ok && !below_cap);
		if (!below_cap && !below_sib && !narrow)
			continue;
		bool like_sibs = has_sib && same_rate(rate, sib);
		enum fab_severity sev = below_sib || (below_cap && n->cap_sure && !like_sibs) ||
					(narrow && !like_sibs) ? SEV_WARN : SEV_INFO;
		double expect = below_cap ? n->cap_gbps.v : 0;
		if (below_sib && sib > expect)
			expect = sib;
		if (!expect && narrow && p->width.v > 0 && !like_sibs)
			expect = rate * 4.0 / (double)p->width.v;   /* same lane speed, 4X */
		char subj[FAB_NAME_LEN + 8], dir[FAB_PATH_LEN], why[400] = "";
		port_name(n, p, subj, sizeof(subj));
		port_dir(n, p, dir, sizeof(dir));
		const char *ll = is_roce(p) ? "RoCE" : "IB";
		if (below_cap)
			fab_catf(why, sizeof(why), sev == SEV_INFO && !n->cap_sure && !like_sibs ?
				 _("a port of this card can do %.0f Gb/s (if the card has one port: a dual-port "
				   "card runs less per port)") : _("a port of this card can do %.0f Gb/s"),
				 n->cap_gbps.v);
		if (below_sib)
			fab_catf(why, sizeof(why), _("%s%d of %d other %s ports run at %.0f Gb/s"),
			    why[0] ? "; " : "", agree, total, ll, sib);
		if (narrow || (p->width.ok && p->width.v < 4 && (below_cap || below_sib)))
			fab_catf(why, sizeof(why), _("%s%lld of 4 lanes are up (%lldX)"),
			    why[0] ? "; " : "", p->width.v, p->width.v);
		struct fab_finding *f = model_add_finding(m, "links.rate-degraded", sev, subj);
		if (expect > 0)
			snprintf(f->message, sizeof(f->message), like_sibs ?
				 _("runs at %.0f Gb/s, expected %.0f Gb/s: %s (as do its siblings: a "
				   "node-wide limit such as the switch speed or a split-cable design)") :
				 _("runs at %.0f Gb/s, expected %.0f Gb/s: %s"), rate, expect, why);
		else
			snprintf(f->message, sizeof(f->message), like_sibs ?
				 _("runs at %.0f Gb/s: %s (as do its siblings: a node-wide limit such as a "
				   "split-cable design)") : _("runs at %.0f Gb/s: %s"), rate, why);
		snprintf(f->evidence, sizeof(f->evidence), "%s/rate=%s", dir, p->rate_str);
		if (n->cap_gbps.ok)
			fab_catf(f->evidence, sizeof(f->evidence),
				 P_("; a port of %s (%s, %d port on the card): %.0f Gb/s (fabtop's adapter table)",
				    "; a port of %s (%s, %d ports on the card): %.0f Gb/s (fabtop's adapter table)",
				    (unsigned long)n->card_ports), n->name,
				 n->hca_type[0] ? n->hca_type : n->board_id, n->card_ports, n->cap_gbps.v);
		if (has_sib)
			fab_catf(f->evidence, sizeof(f->evidence), _("; %d of %d other ACTIVE %s ports at %.0f Gb/s"),
			    agree, total, ll, sib);
		const char *bdf = pci_bdf(m, n);
		if (is_roce(p) && p->netdev[0])
			snprintf(f->hint, sizeof(f->hint),
				 _("ethtool %s (Speed, Lanes); mlxlink -d %s -m (cable, lanes, BER); "
				 "reseat or replace the cable/transceiver, check the switch port's speed"),
				 FAB_SHQ(p->netdev), FAB_SHQ(bdf[0] ? bdf : n->name));
		else
			snprintf(f->hint, sizeof(f->hint),
				 _("ibstat %s %d; mlxlink -d %s -m (cable, lanes, BER); reseat or replace "
				 "the cable/transceiver, check the switch port"),
				 FAB_SHQ(n->name), p->num, FAB_SHQ(bdf[0] ? bdf : n->name));
	}
	rate_censuses_free(&census);
}

/* ---- links.pcie-bottleneck ------------------------------------------- */

static int pcie_gen(double gts)
{
	static const double g[] = { 2.5, 5, 8, 16, 32, 64 };
	for (int i = 0; i < 6; i++)
		if (fabs(gts - g[i]) < 0.1)
			return i + 1;
	return 0;
}


/* The PCIe link behind an HCA for this rule: its own function's, never a
 * VF's (a VF crosses its PF's link and repeats its PF's ports). */
static const struct fab_pci_dev *pf_link(const struct fab_model *m, const struct fab_nic *n)
{
	const struct fab_pci_dev *d = nic_pci(m, n);
	return d && !d->is_vf ? d : NULL;
}

/* The NIC's PCIe link is slower than the share of its ACTIVE ports it
 * carries: the port can never run at line rate. pcie.degraded says whether
 * the link is below its own capability; this rule says whether the port
 * rate fits at all. The physical functions of one slot share its link and
 * sum; a multi-host / socket-direct card (card_links > 1) spreads each
 * port over its links, by design, so each link carries its share, and
 * moving the card is never the answer. */
static void rule_pcie_bottleneck(struct fab_model *m)
{
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *n = &m->nics[i];
		const struct fab_pci_dev *d = pf_link(m, n);
		if (!d)
			continue;
		bool seen = false;
		for (int j = 0; j < i && !seen; j++) {
			const struct fab_pci_dev *e = pf_link(m, &m->nics[j]);
			seen = e && fab_bdf_same_slot(e->bdf, d->bdf);
		}
		if (seen || !d->link.cur_speed.ok || !d->link.cur_width.ok ||
		    d->link.cur_speed.v <= 0 || d->link.cur_width.v <= 0)
			continue;
		double sum = 0;
		int nports = 0;
		char names[128] = "", rates[FAB_PATH_LEN] = "";
		for (int j = i; j < m->nnics; j++) {
			const struct fab_nic *o = &m->nics[j];
			const struct fab_pci_dev *e = pf_link(m, o);
			if (!e || !fab_bdf_same_slot(e->bdf, d->bdf))
				continue;
			for (int k = 0; k < o->nports; k++) {
				const struct fab_port *p = &o->ports[k];
				if (!port_active(p) || !p->rate_gbps.ok)
					continue;
				sum += p->rate_gbps.v;
				nports++;
				fab_catf(names, sizeof(names), "%s%s/%d", names[0] ? "+" : "", o->name, p->num);
				fab_catf(rates, sizeof(rates), "%s/sys/class/infiniband/%s/ports/%d/rate=%s",
				    rates[0] ? "; " : "", o->name, p->num, p->rate_str);
			}
		}
		int links = n->card_links > 1 ? n->card_links : 1;
		double share = sum / links;
		double gts = d->link.cur_speed.v;
		long long w = d->link.cur_width.v;
		double bw = pcie_gbps(gts, w);
		if (!nports || bw >= share - 0.5)
			continue;
		/* At the card's own maximum (max_link_* is its LnkCap) no slot
		 * does better: the card is built so (two 100 Gb/s ports on a Gen3
		 * x16 ConnectX-5), info. A multi-host card says it once in
		 * links.multi-host. */
		bool below_max = (d->link.max_speed.ok && gts + 0.01 < d->link.max_speed.v) ||
				 (d->link.max_width.ok && w < d->link.max_width.v);
		bool known_max = d->link.max_speed.ok && d->link.max_width.ok;
		if (!below_max && known_max && links > 1)
			continue;
		enum fab_severity sev = !below_max && known_max ? SEV_INFO : SEV_WARN;
		struct fab_finding *f = model_add_finding(m, "links.pcie-bottleneck", sev, n->name);
		char gen[16] = "", of[96] = "";
		if (pcie_gen(gts))
			snprintf(gen, sizeof(gen), "Gen%d ", pcie_gen(gts));
		if (links > 1)
			snprintf(of, sizeof(of), _(" (this link's share: the card spreads its ports over %d links)"),
				 links);
		snprintf(f->message, sizeof(f->message),
			 sev == SEV_INFO ?
			 _("its ports cannot all run at line rate at once, by the card's design: PCIe %sx%lld = "
			   "%g GT/s \u00d7 %lld \u00d7 %s \u2248 %.0f Gb/s < %.0f Gb/s port rate%s (%s)") :
			 _("cannot reach its port rate over PCIe: PCIe %sx%lld = %g GT/s \u00d7 %lld \u00d7 %s "
			   "\u2248 %.0f Gb/s < %.0f Gb/s port rate%s (%s)"),
			 gen, w, gts, w, gts < 8.0 ? "8/10" : "128/130", bw, share, of, names);
		char mxs[24] = "N/A", mxw[24] = "N/A";
		if (d->link.max_speed.ok)
			snprintf(mxs, sizeof(mxs), "%.1f GT/s", d->link.max_speed.v);
		if (d->link.max_width.ok)
			snprintf(mxw, sizeof(mxw), "%lld", d->link.max_width.v);
		snprintf(f->evidence, sizeof(f->evidence),
			 "/sys/bus/pci/devices/%s/current_link_speed=%.1f GT/s current_link_width=%lld "
			 "max_link_speed=%s max_link_width=%s; %s", d->bdf, gts, w, mxs, mxw, rates);
		if (below_max)
			snprintf(f->hint, sizeof(f->hint),
				 _("the link trained below the card's capability (see pcie.degraded): lspci -s %s -vv "
				 "| grep -E 'LnkCap|LnkSta'; reseat the card, check the slot/riser and bifurcation"),
				 FAB_SHQ(d->bdf));
		else if (known_max)
			snprintf(f->hint, sizeof(f->hint),
				 _("the link runs at the card's own maximum, so no slot does better: one port alone "
				 "gets \u2248%.0f Gb/s; for every port at line rate at once, a card with a faster "
				 "host link (lspci -s %s -vv | grep -E 'LnkCap|LnkSta')"),
				 pcie_payload_gbps(gts, w), FAB_SHQ(d->bdf));
		else
			snprintf(f->hint, sizeof(f->hint),
				 _("lspci -s %s -vv | grep -E 'LnkCap|LnkSta' (run as root: LnkCap says what the "
				 "card can do); expect \u2248%.0f Gb/s through this link"), FAB_SHQ(d->bdf),
				 pcie_payload_gbps(gts, w));
	}
}

/* ---- links.multi-host ------------------------------------------------ */

/* A card whose physical functions sit on two or more PCIe links (a GB10's
 * ConnectX-7: 0000:01:00.0/.1 and 0002:01:00.0/.1, two Gen5 x4 links, two
 * 200 Gb/s ports; socket-direct cards on two sockets): each function
 * carries only its link's share, and a port reaches its rate only through
 * the functions of every link together. Info, said once per card: it is the
 * design, and it explains why one function measures about half a port. */
static void rule_multi_host(struct fab_model *m)
{
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *n = &m->nics[i];
		if (n->card != i || n->card_links < 2)
			continue;
		char links[FAB_PATH_LEN] = "", halves[FAB_PATH_LEN] = "", hca[160] = "";
		double total = 0, port_rate = 0;
		for (int fn = 0; fn < 8; fn++) {
			char group[96] = "";
			int members = 0;
			for (int j = 0; j < m->nnics; j++) {
				const struct fab_nic *o = &m->nics[j];
				const struct fab_pci_dev *d = pf_link(m, o);
				if (o->card != i || !d || fab_bdf_function(d->bdf) != fn)
					continue;
				fab_catf(group, sizeof(group), "%s%s", members ? "+" : "", o->name);
				members++;
				for (int k = 0; k < o->nports; k++)
					if (o->ports[k].rate_gbps.ok && o->ports[k].rate_gbps.v > port_rate)
						port_rate = o->ports[k].rate_gbps.v;
				if (fn != 0 || !d->link.cur_speed.ok || !d->link.cur_width.ok)
					continue;
				double bw = pcie_payload_gbps(d->link.cur_speed.v, d->link.cur_width.v);
				total += bw;
				fab_catf(links, sizeof(links), "%s%s (%g GT/s x%lld, \u2248%.0f Gb/s)",
				    links[0] ? ", " : "", d->bdf, d->link.cur_speed.v, d->link.cur_width.v, bw);
			}
			if (members > 1)
				fab_catf(halves, sizeof(halves), "%s%s", halves[0] ? "; " : "", group);
		}
		for (int j = i; j < m->nnics; j++)
			if (m->nics[j].card == i && pf_link(m, &m->nics[j]))
				fab_catf(hca, sizeof(hca), "%s%s", hca[0] ? "," : "", m->nics[j].name);
		const struct fab_pci_dev *d0 = nic_pci(m, n);
		struct fab_finding *f = model_add_finding(m, "links.multi-host", SEV_INFO, n->name);
		snprintf(f->message, sizeof(f->message),
			 P_("one %s card serves its %d port through %d PCIe links (multi-host/socket direct); "
			    "each function carries its link's share, a port's functions together make it (%s)",
			    "one %s card serves its %d ports through %d PCIe links (multi-host/socket direct); "
			    "each function carries its link's share, a port's functions together make it (%s)",
			    (unsigned long)n->card_ports),
			 d0 && d0->name[0] ? d0->name : n->hca_type, n->card_ports,
			 n->card_links, halves[0] ? halves : n->name);
		if (total > 0 && port_rate > 0)
			fab_catf(f->message, sizeof(f->message), _(": \u2248%.0f Gb/s in all for %.0f Gb/s "
				 "ports"), total, port_rate);
		snprintf(f->evidence, sizeof(f->evidence),
			 _("one card by board_id %s and sys_image_guid %s; links: %s"), n->board_id,
			 n->sys_image_guid, links);
		snprintf(f->hint, sizeof(f->hint),
			 _("the card is built so, no slot to change: a job reaches a port's rate only through "
			 "all its functions (NCCL_IB_HCA=%s); perftest one function at a time measures its "
			 "link's share"), FAB_SHQ(hca));
	}
}

/* ---- links.mtu-mismatch ---------------------------------------------- */

/* The MTUs the RoCE ports' netdevs use, each netdev once: the values
 * with how many netdevs use each, and the two most used. Counted once per
 * findings run, so that judging every port against its siblings stays
 * linear in ports (it was a scan of all ports per port). */
struct mtu_census {
	struct mtu_count { long long mtu; int n; } *v;
	int nv, total;
	int top[2];                   /* indexes into v of the two largest counts; -1: none */
};

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

/* 0, or -1 when out of memory (then no port has siblings to compare). */
static int mtu_census(const struct fab_model *m, struct mtu_census *c)
{
	memset(c, 0, sizeof(*c));
	c->top[0] = c->top[1] = -1;
	if (m->nnetdevs == 0)
		return 0;
	bool *seen = calloc((size_t)m->nnetdevs, sizeof(*seen));
	long long *all = malloc((size_t)m->nnetdevs * sizeof(*all));
	c->v = malloc((size_t)m->nnetdevs * sizeof(*c->v));
	if (!seen || !all || !c->v) {
		free(seen);
		free(all);
		free(c->v);
		c->v = NULL;
		return -1;
	}
	FOR_EACH_PORT(m, n, q) {
		int i = is_roce(q) && q->netdev[0] ? model_find_netdev(m, q->netdev) : FAB_NO_INDEX;
		if (i == FAB_NO_INDEX || seen[i] || !m->netdevs[i].mtu.ok)
			continue;
		seen[i] = true;
		all[c->total++] = m->netdevs[i].mtu.v;
	}
	qsort(all, (size_t)c->total, sizeof(*all), cmp_ll);
	for (int i = 0; i < c->total; i++) {
		if (c->nv == 0 || c->v[c->nv - 1].mtu != all[i])
			c->v[c->nv++] = (struct mtu_count){ all[i], 0 };
		c->v[c->nv - 1].n++;
	}
	for (int i = 0; i < c->nv; i++) {
		if (c->top[0] < 0 || c->v[i].n > c->v[c->top[0]].n) {
			c->top[1] = c->top[0];
			c->top[0] = i;
		} else if (c->top[1] < 0 || c->v[i].n > c->v[c->top[1]].n) {
			c->top[1] = i;
		}
	}
	free(seen);
	free(all);
	return 0;
}

/* The MTU most (more than half) of the other RoCE ports' netdevs use, when
 * there are at least two of them: the census less self's own netdev. Only
 * the census' two most used values can hold that majority (taking one
 * netdev away lowers one count by one). */
static bool sibling_mtu(const struct fab_model *m, const struct mtu_census *c,
			const struct fab_port *self, long long *mtu, int *agree, int *total)
{
	const struct fab_netdev *own = model_netdev(m, self->netdev);
	bool out = own && own->mtu.ok;      /* self's netdev is in the census: leave it out */
	int tot = c->total - (out ? 1 : 0);
	if (tot < 2)
		return false;
	for (int t = 0; t < 2; t++) {
		if (c->top[t] < 0)
			continue;
		const struct mtu_count *v = &c->v[c->top[t]];
		int cnt = v->n - (out && own->mtu.v == v->mtu ? 1 : 0);
		if (cnt * 2 > tot) {
			*mtu = v->mtu;
			*agree = cnt;
			*total = tot;
			return true;
		}
	}
	return false;
}

/* A RoCE port whose RDMA MTU is cut by its netdev MTU (warning), or whose
 * netdev MTU differs from what its sibling RoCE netdevs use (info when the
 * RDMA MTU is not affected). fabtop only suggests the command. */
static void rule_mtu_mismatch(struct fab_model *m)
{
	struct mtu_census census;
	if (mtu_census(m, &census) != 0)
		model_note(m, "links.mtu-mismatch", "out of memory: RoCE netdev MTUs not compared with their siblings'");
	FOR_EACH_PORT(m, n, p) {
		const struct fab_netdev *d = is_roce(p) ? model_netdev(m, p->netdev) : NULL;
		if (!d || !d->mtu.ok)
			continue;
		bool cut = p->active_mtu.ok && p->max_mtu.ok && p->active_mtu.v < p->max_mtu.v &&
			   d->mtu.v < p->max_mtu.v + ROCE_MTU_OVERHEAD;
		long long common = 0;
		int agree = 0, total = 0;
		bool odd = sibling_mtu(m, &census, p, &common, &agree, &total) && d->mtu.v != common;
		if (!cut && !odd)
			continue;
		char subj[FAB_NAME_LEN + 8], dir[FAB_PATH_LEN];
		port_name(n, p, subj, sizeof(subj));
		port_dir(n, p, dir, sizeof(dir));
		struct fab_finding *f = model_add_finding(m, "links.mtu-mismatch",
							  cut ? SEV_WARN : SEV_INFO, subj);
		if (cut)
			snprintf(f->message, sizeof(f->message),
				 _("RoCE MTU %lld needs the netdev MTU above %lld plus headers (%lld or more); "
				 "%s has MTU %lld, so RDMA on %s runs at %lld"),
				 p->max_mtu.v, p->max_mtu.v, p->max_mtu.v + ROCE_MTU_OVERHEAD, d->name,
				 d->mtu.v, subj, p->active_mtu.v);
		else
			snprintf(f->message, sizeof(f->message),
				 _("its netdev %s has MTU %lld while its sibling RoCE netdevs use %lld"),
				 d->name, d->mtu.v, common);
		if (cut && odd)
			fab_catf(f->message, sizeof(f->message), _("; its sibling RoCE netdevs use MTU %lld"), common);
		char am[24], mm[24];
		snprintf(f->evidence, sizeof(f->evidence), "/sys/class/net/%s/mtu=%lld; %s active_mtu=%s max_mtu=%s",
			 d->name, d->mtu.v, subj, fab_int_str(p->active_mtu, am, sizeof(am)),
			 fab_int_str(p->max_mtu, mm, sizeof(mm)));
		if (p->mtu_source[0])
			fab_catf(f->evidence, sizeof(f->evidence), _(" from %s"), p->mtu_source);
		if (odd)
			fab_catf(f->evidence, sizeof(f->evidence), _("; %d of %d other RoCE netdevs have mtu=%lld"),
			    agree, total, common);
		long long want = odd && common > d->mtu.v ? common : 9000;
		snprintf(f->hint, sizeof(f->hint),
			 _("suggestion (fabtop changes nothing): ip link set dev %s mtu %lld, with the switch "
			 "port's MTU to match; then ibv_devinfo -d %s | grep active_mtu"),
			 FAB_SHQ(d->name), want, FAB_SHQ(n->name));
	}
	free(census.v);
}

/* ---- links.roce-no-ipv4 ---------------------------------------------- */

static bool is_v2(const struct fab_gid *g) { return strcmp(g->type, "RoCE v2") == 0; }

/* A RoCE port whose GID table holds no RoCE v2 GID with an IPv4 address:
 * NCCL (NCCL_IB_ADDR_FAMILY=AF_INET by default) and most RoCE applications
 * look for one; link-local GIDs do not route beyond the L2 segment. */
static void rule_roce_no_ipv4(struct fab_model *m)
{
	FOR_EACH_PORT(m, n, p) {
		/* A port that carries nothing (no cable, down) needs no
		 * address yet: links.port-down/port-unused speak for it. */
		if (!is_roce(p) || p->ngids == 0 || !port_active(p))
			continue;
		bool found = false, unknown = false, v6 = false;
		for (int g = 0; g < p->ngids; g++) {
			const struct fab_gid *gd = &p->gids[g];
			unknown |= !gd->type[0];
			found |= is_v2(gd) && gd->ipv4;
			v6 |= is_v2(gd) && !gd->ipv4 && gd->ip[0] &&
			      strncmp(gd->ip, "fe80:", 5) != 0;
		}
		/* Not among the kept GIDs of a cut table: may be past them. */
		if (found || unknown || p->gids_more)
			continue;
		char subj[FAB_NAME_LEN + 8], dir[FAB_PATH_LEN];
		port_name(n, p, subj, sizeof(subj));
		port_dir(n, p, dir, sizeof(dir));
		struct fab_finding *f = model_add_finding(m, "links.roce-no-ipv4", SEV_WARN, subj);
		snprintf(f->message, sizeof(f->message),
			 _("no RoCE v2 GID with an IPv4 address (%s): NCCL and most RoCE apps pick "
			 "an IPv4 RoCE v2 GID, and a link-local GID does not route beyond the L2 segment"),
			 v6 ? _("its RoCE v2 GIDs are IPv6 only") : _("only link-local GIDs"));
		snprintf(f->evidence, sizeof(f->evidence), "%s/gids, gid_attrs/types:", dir);
		for (int g = 0; g < p->ngids; g++) {
			const struct fab_gid *gd = &p->gids[g];
			fab_catf(f->evidence, sizeof(f->evidence), " %d=%s %s%s", gd->index, gd->type,
			    gd->ip[0] ? gd->ip : gd->gid, g + 1 < p->ngids ? ";" : "");
		}
		snprintf(f->hint, sizeof(f->hint),
			 _("cat %s/gid_attrs/types/* (or show_gids); suggestion: ip addr add <IPv4>/<len> "
			 "dev %s adds the IPv4 GID; NCCL_IB_GID_INDEX selects a GID by hand"),
			 FAB_SHQ(dir), p->netdev[0] ? FAB_SHQ(p->netdev) : "<netdev>");
	}
}

/* ---- links.gid-netns ------------------------------------------------- */

/* True when the space-separated list holds word. */
static bool has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	for (const char *s = list; *s; ) {
		size_t l = strcspn(s, " ");
		if (l == wl && strncmp(s, word, wl) == 0)
			return true;
		s += l;
		s += strspn(s, " ");
	}
	return false;
}

/* A GID whose netdev is not among this namespace's netdevs belongs to an
 * interface in another network namespace (the host's, or another pod's).
 * Info: that is the normal view from a pod when RDMA runs in "shared" netns
 * mode, and raw verbs (NCCL) still work through such a GID; the message says
 * what does not (rdma_cm address resolution from here). */
static void rule_gid_netns(struct fab_model *m)
{
	if (m->nnetdevs == 0)
		return;   /* netdevs unknown: unknown is not bad */
	FOR_EACH_PORT(m, n, p) {
		char names[160] = "", idx[96] = "";
		const char *first = NULL;   /* the first foreign netdev, for the hint */
		int nforeign = 0, nlocal = 0;
		for (int g = 0; g < p->ngids; g++) {
			const struct fab_gid *gd = &p->gids[g];
			if (!gd->netdev[0])
				continue;
			enum fab_tri here = model_netdev_here(m, gd->netdev, NULL, NULL, 0);
			if (here == FAB_YES)
				nlocal++;
			if (here != FAB_NO)
				continue;   /* unknown is not elsewhere */
			fab_catf(idx, sizeof(idx), "%s%d", nforeign ? "," : "", gd->index);
			if (!nforeign)
				first = gd->netdev;
			nforeign++;
			if (!has_word(names, gd->netdev))
				fab_catf(names, sizeof(names), "%s%s", names[0] ? " " : "", gd->netdev);
		}
		if (!nforeign)
			continue;
		char subj[FAB_NAME_LEN + 8], dir[FAB_PATH_LEN];
		port_name(n, p, subj, sizeof(subj));
		port_dir(n, p, dir, sizeof(dir));
		struct fab_finding *f = model_add_finding(m, "links.gid-netns", SEV_INFO, subj);
		snprintf(f->message, sizeof(f->message),
			 _("RoCE GIDs %s name %s, not in this network namespace: the interface lives "
			 "in another one (the host's or another pod's); %s"),
			 idx, names,
			 nlocal ? _("rdma_cm here can use only the GIDs of local netdevs")
				: _("rdma_cm here cannot address this port; raw verbs (NCCL) still can"));
		snprintf(f->evidence, sizeof(f->evidence), _("%s/gid_attrs/ndevs/{%s}=%s; /sys/class/net here has"),
			 dir, idx, names);
		for (int d = 0; d < m->nnetdevs; d++)
			fab_catf(f->evidence, sizeof(f->evidence), " %s", m->netdevs[d].name);
		if (m->rdma_netns_mode[0])
			fab_catf(f->evidence, sizeof(f->evidence), _("; rdma system netns mode %s"), m->rdma_netns_mode);
		snprintf(f->hint, sizeof(f->hint),
			 _("rdma system show (netns shared/exclusive); ip -br link (interfaces here); on the "
			 "host: ip -br link show %s; in a pod, use the HCA whose netdev the pod owns"),
			 FAB_SHQ(first));
	}
}

/* ---- links.errors ---------------------------------------------------- */

/* The standard PMA error counters this rule reads, in the order it lists
 * them, each with a gloss; their widths and thresholds (warn_at) are the
 * counter table's, judged by counter_total_judge(). */
static const struct err_def {
	const char *name;
	const char *gloss;
} err_defs[] = {
	{ "link_downed", N_("the link went down") },
	{ "port_rcv_errors", N_("bad packets received") },
	{ "local_link_integrity_errors", N_("lane error bursts over threshold") },
	{ "excessive_buffer_overrun_errors", N_("flow-control buffer overruns") },
	{ "symbol_error", N_("bit errors on a lane") },
	{ "link_error_recovery", N_("the link retrained") },
	{ "port_rcv_remote_physical_errors", N_("packets marked bad upstream") },
};
#define NERR_DEFS ((int)(sizeof(err_defs) / sizeof(err_defs[0])))

/* Non-zero link error counters on a port, since they were last cleared: a
 * snapshot cannot tell whether they still grow, so it says so. */
static void rule_link_errors(struct fab_model *m)
{
	FOR_EACH_PORT(m, n, p) {
		char list[400] = "", ev[FAB_PATH_LEN] = "", sat[96] = "";
		int hits = 0;
		enum fab_severity sev = SEV_INFO;
		/* A port that is down now: link_downed records that very event,
		 * which links.port-down reports already. */
		bool down_now = (p->state.ok && !port_active(p)) ||
				(p->phys_state.ok && p->phys_state.v != PH_LINKUP);
		for (int d = 0; d < NERR_DEFS; d++)
			for (int c = 0; c < p->nerrors; c++) {
				const struct fab_counter *ct = &p->errors[c];
				if (strcmp(ct->name, err_defs[d].name) != 0 || !ct->value.ok ||
				    ct->value.v <= 0)
					continue;
				if (down_now && strcmp(ct->name, "link_downed") == 0)
					continue;
				bool s = ct->pinned;
				if (counter_total_judge(ct->def, ct->value.v) == CTR_TOTAL_WARN)
					sev = SEV_WARN;
				/* A gloss for the first two; the evidence has them all. */
				fab_catf(list, sizeof(list), "%s%s=%lld%s%s%s", hits ? ", " : "", ct->name,
				    ct->value.v, hits < 2 ? " (" : "", hits < 2 ? _(err_defs[d].gloss) : "",
				    hits < 2 ? ")" : "");
				fab_catf(ev, sizeof(ev), " %s=%lld", ct->name, ct->value.v);
				if (s)
					fab_catf(sat, sizeof(sat), "%s%s", sat[0] ? ", " : "", ct->name);
				hits++;
			}
		if (!hits)
			continue;
		char subj[FAB_NAME_LEN + 8], dir[FAB_PATH_LEN];
		port_name(n, p, subj, sizeof(subj));
		port_dir(n, p, dir, sizeof(dir));
		struct fab_finding *f = model_add_finding(m, "links.errors", sev, subj);
		if (sat[0])
			snprintf(f->message, sizeof(f->message),
				 _("%s since the counters were last cleared; %s PINNED (stuck at the "
				 "counter's maximum): the true count is higher and new errors no longer show"),
				 list, sat);
		else
			snprintf(f->message, sizeof(f->message),
				 _("%s since the counters were last cleared; a snapshot cannot tell "
				 "whether they still grow"), list);
		snprintf(f->evidence, sizeof(f->evidence), "%s/counters/:%s", dir, ev);
		if (is_roce(p) && p->netdev[0])
			snprintf(f->hint, sizeof(f->hint),
				 _("watch them grow in fabtop's live counters pane; ethtool -S %s | grep -iE "
				 "'fec|symbol|err'; mlxlink -d %s -c; growing errors: reseat/replace the cable"),
				 FAB_SHQ(p->netdev), FAB_SHQ(pci_bdf(m, n)[0] ? pci_bdf(m, n) : n->name));
		else
			snprintf(f->hint, sizeof(f->hint),
				 _("watch them grow in fabtop's live counters pane, or perfquery -x -C %s -P %d "
				 "twice a minute apart (perfquery -R clears them); growing errors: "
				 "reseat/replace the cable"), FAB_SHQ(n->name), p->num);
		if (sat[0]) {
			char cmd[160];
			fab_catf(f->hint, sizeof(f->hint), _("; PINNED: clear them to count again: %s"),
				 port_pin_clear_cmd(m, n, p, cmd, sizeof(cmd)));
		}
	}
}

/* ---- links.transport-errors ------------------------------------------ */

/* What to look at next, by what the counter records: a QP that failed
 * (its job saw an error), or loss that was recovered by retransmission
 * (where the loss comes from depends on the link layer). */
static void xport_hint(const struct fab_nic *n, const struct fab_port *p,
		       const struct fab_counter *ct, char *buf, size_t len)
{
	char dev[FAB_NAME_LEN + 8];
	snprintf(dev, sizeof(dev), "%s/%d", n->name, p->num);
	int k = snprintf(buf, len, _("fabtop report counters shows whether it still grows; rdma statistic "
			 "show link %s; "), FAB_SHQ(dev));
	if (k < 0 || (size_t)k >= len)
		return;
	if (ct->def->cls == CC_ERROR || ct->def->warn_at == 1)
		snprintf(buf + k, len - (size_t)k, _("a job's transfer failed: its log names it (NCCL WARN "
			 "... 'transport retry counter exceeded', 'remote access error')"));
	else if (is_roce(p))
		snprintf(buf + k, len - (size_t)k, _("loss on RoCE: PFC and ECN on the RDMA priority, "
			 "ethtool -S %s | grep -iE 'discard|pause|buffer'"), FAB_SHQ(p->netdev[0] ? p->netdev : "NETDEV"));
	else
		snprintf(buf + k, len - (size_t)k, _("loss on InfiniBand: ibqueryerrors along the path "
			 "(symbol errors, discards, PortXmitWait)"));
}

/* Transport counters (hw_counters) with a total since they were last
 * cleared: one finding each, its severity by counter_total_judge() (the
 * thresholds are the counter table's, counters.c). A snapshot cannot
 * tell whether they still grow; `report counters` can. */
static void rule_transport_errors(struct fab_model *m)
{
	FOR_EACH_PORT(m, n, p) {
		for (int c = 0; c < p->nxport && c < FAB_MAX_XPORT; c++) {
			const struct fab_counter *ct = &p->xport[c];
			if (!ct->value.ok || !ct->def)
				continue;
			enum ctr_total j = counter_total_judge(ct->def, ct->value.v);
			if (j == CTR_TOTAL_NONE)
				continue;
			char subj[FAB_NAME_LEN + 8], dir[FAB_PATH_LEN], th[96];
			port_name(n, p, subj, sizeof(subj));
			port_dir(n, p, dir, sizeof(dir));
			if (ct->def->warn_at == CTR_WARN_NEVER)
				snprintf(th, sizeof(th), _("info at any total"));
			else
				snprintf(th, sizeof(th), _("a warning from %lld"), ct->def->warn_at);
			struct fab_finding *f = model_add_finding(m, "links.transport-errors",
				j == CTR_TOTAL_WARN ? SEV_WARN : SEV_INFO, subj);
			snprintf(f->message, sizeof(f->message),
				 _("%s=%lld since the counters were last cleared (%s): %s; a snapshot "
				 "cannot tell whether it still grows"), ct->name, ct->value.v, th,
				 _(ct->def->meaning));
			snprintf(f->evidence, sizeof(f->evidence),
				 _("%s/hw_counters/%s=%lld (%s, %d-bit, wraps)"), dir, ct->name,
				 ct->value.v, _(ct->def->layer), ct->def->width);
			xport_hint(n, p, ct, f->hint, sizeof(f->hint));
		}
	}
}

/* ---- links.counter-implausible ---------------------------------------- */

/* A counter file that held what the counter cannot (counter_value_judge():
 * a sign, not a number, above its width): the port's counts are not to be
 * believed, and a healthy reading would be a lie. */
static void rule_counter_implausible(struct fab_model *m)
{
	FOR_EACH_PORT(m, n, p) {
		char list[160] = "", ev[FAB_PATH_LEN] = "";
		int hits = 0;
		for (int c = 0; c < p->nerrors; c++) {
			const struct fab_counter *ct = &p->errors[c];
			if (!ct->implausible)
				continue;
			int w = ct->def ? ct->def->width : 64;
			fab_catf(list, sizeof(list), "%s%s=\"%s\"", hits ? ", " : "", ct->name, ct->raw);
			fab_catf(ev, sizeof(ev), " %s=\"%s\" (%d-bit, 0..%llu)", ct->name, ct->raw, w,
			    (unsigned long long)counter_max(w));
			hits++;
		}
		if (!hits)
			continue;
		char subj[FAB_NAME_LEN + 8], dir[FAB_PATH_LEN];
		port_name(n, p, subj, sizeof(subj));
		port_dir(n, p, dir, sizeof(dir));
		struct fab_finding *f = model_add_finding(m, "links.counter-implausible", SEV_WARN,
							  subj);
		snprintf(f->message, sizeof(f->message),
			 _("%s: not a value an unsigned counter of its width can hold, so this port's "
			 "counts cannot be believed (a driver or firmware fault, or an altered capture)"),
			 list);
		snprintf(f->evidence, sizeof(f->evidence), "%s/counters/:%s", dir, ev);
		snprintf(f->hint, sizeof(f->hint),
			 _("cat %s/counters/* twice a few seconds apart; perfquery -x -C %s -P %d reads the "
			 "same counters through the MAD interface; a capture: take it again"), FAB_SHQ(dir),
			 FAB_SHQ(n->name), p->num);
	}
}

/* ---- links.pfc-off / links.pfc-no-ecn -------------------------------- */

/* Where d's PFC setting was read, for evidence (fab_netdev.qos_source). */
static const char *pfc_where(const struct fab_netdev *d, char *buf, size_t len)
{
	if (strcmp(d->qos_source, "DCB netlink") == 0)
		snprintf(buf, len, _("DCB netlink (dcb pfc show dev %s)"), d->name);
	else
		snprintf(buf, len, "/sys/class/net/%s/qos/pfc", d->name);
	return buf;
}

/* A RoCE port whose netdev exposes QoS but has PFC on no priority: RoCE
 * expects a lossless class, and every drop costs a go-back-N retransmission. */
static void rule_pfc_off(struct fab_model *m)
{
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *n = &m->nics[i];
		for (int k = 0; k < n->nports; k++) {
			const struct fab_port *p = &n->ports[k];
			const struct fab_netdev *d = is_roce(p) ? model_netdev(m, p->netdev) : NULL;
			if (!d || !d->pfc_mask.ok || (d->pfc_mask.v & 0xff) != 0)
				continue;
			char subj[FAB_NAME_LEN + 8];
			port_name(n, p, subj, sizeof(subj));
			struct fab_finding *f = model_add_finding(m, "links.pfc-off", SEV_WARN, subj);
			snprintf(f->message, sizeof(f->message),
				 _("PFC is off on every priority of %s, so RoCE traffic is not lossless: each "
				 "drop costs a go-back-N retransmission (fine only on a fabric designed for lossy RoCE)"),
				 d->name);
			char where[96];
			snprintf(f->evidence, sizeof(f->evidence), _("%s: PFC mask=0x%02llx (none)"),
				 pfc_where(d, where, sizeof(where)), d->pfc_mask.v);
			if (d->qos_trust[0])
				fab_catf(f->evidence, sizeof(f->evidence), "; trust %s (%s)", d->qos_trust,
					 d->trust_source[0] ? d->trust_source : "qos/trust");
			snprintf(f->hint, sizeof(f->hint),
				 _("mlnx_qos -i %s (PFC row); suggestion: mlnx_qos -i %s --trust dscp --pfc 0,0,0,1,0,0,0,0 "
				 "(the RoCE priority, matching the switch)"), FAB_SHQ(d->name), FAB_SHQ(d->name));
		}
	}
}

/* ---- links.bond-slave-down ---------------------------------------------- */

/* Why a bond's slave carries nothing, or NULL when it is up: the bonding
 * driver's own MII status first, then the slave's link. */
static const char *slave_down_why(const struct fab_netdev *s, char *buf, size_t len)
{
	if (!s) {
		snprintf(buf, len, _("not in /sys/class/net"));
		return buf;
	}
	if (strcmp(s->slave_mii, "down") == 0)
		snprintf(buf, len, "mii_status down");
	else if (s->carrier.ok && s->carrier.v == 0)
		snprintf(buf, len, _("no carrier"));
	else if (strcmp(s->operstate, "down") == 0)
		snprintf(buf, len, "operstate down");
	else
		return NULL;
	if (s->operstate[0])
		fab_catf(buf, len, ", operstate %s", s->operstate);
	return buf;
}

/* A RoCE LAG (mlx5_bond_N) over a bond: the bond, and so the RDMA port,
 * stays up while one slave is, so a slave down looks healthy from the
 * port. With 802.3ad or balance-xor half the bandwidth is gone and flows
 * hashed to the lost link move; with active-backup the redundancy is. */
static void rule_bond_slave_down(struct fab_model *m)
{
	FOR_EACH_PORT(m, n, p) {
		const struct fab_netdev *b = is_roce(p) ? model_netdev(m, p->netdev) : NULL;
		if (!b || !b->bond_mode[0])
			continue;
		char list[sizeof(b->bond_slaves)], down[400] = "", ev[FAB_PATH_LEN] = "", why[64];
		const char *first = NULL;
		int nslaves = 0, ndown = 0;
		fab_strlcpy(list, b->bond_slaves, sizeof(list));
		for (char *save, *w = strtok_r(list, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
			const struct fab_netdev *sl = model_netdev(m, w);
			nslaves++;
			if (!slave_down_why(sl, why, sizeof(why)))
				continue;
			fab_catf(down, sizeof(down), "%s%s (%s)", ndown ? ", " : "", w, why);
			fab_catf(ev, sizeof(ev), "; /sys/class/net/%s/bonding_slave/mii_status=%s operstate=%s",
				 w, sl && sl->slave_mii[0] ? sl->slave_mii : "?",
				 sl && sl->operstate[0] ? sl->operstate : "?");
			if (!ndown++)
				first = sl ? sl->name : w;
		}
		if (nslaves && !ndown)
			continue;
		char subj[FAB_NAME_LEN + 8];
		port_name(n, p, subj, sizeof(subj));
		struct fab_finding *f = model_add_finding(m, "links.bond-slave-down", SEV_WARN, subj);
		bool backup = strcmp(b->bond_mode, "active-backup") == 0;
		if (!nslaves)
			snprintf(f->message, sizeof(f->message),
				 _("its netdev %s is a %s bond with no slave: the RDMA port has no link under it"),
				 b->name, b->bond_mode);
		else
			snprintf(f->message, sizeof(f->message),
				 _("bond %s runs on %d of its %d links: %s down; %s"), b->name,
				 nslaves - ndown, nslaves, down,
				 backup ? _("active-backup: the traffic has no failover left")
					: _("the port carries only what the links left can, and the "
					    "flows hashed to the lost link move"));
		snprintf(f->evidence, sizeof(f->evidence), "/sys/class/net/%s/bonding/mode=%s slaves=%s%s",
			 b->name, b->bond_mode, b->bond_slaves[0] ? b->bond_slaves : "(none)", ev);
		if (first)
			snprintf(f->hint, sizeof(f->hint),
				 _("cat /proc/net/bonding/%s; ip link show %s; ethtool %s | grep 'Link detected'; "
				 "check that link's cable, transceiver and switch port (and the switch's LAG)"),
				 FAB_SHQ(b->name), FAB_SHQ(first), FAB_SHQ(first));
		else
			snprintf(f->hint, sizeof(f->hint), "cat /proc/net/bonding/%s; ip link set <port> master %s",
				 FAB_SHQ(b->name), FAB_SHQ(b->name));
	}
}

/* ---- links.fw-mismatch / links.subnet-mismatch / links.ll-mixed ---------- */

/* Cards of one model running different firmware: a fix (or a bug) present
 * on some rails only, and a known cause of one slow or failing rail. */
static void rule_fw_mismatch(struct fab_model *m)
{
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *a = &m->nics[i];
		if (!a->hca_type[0] || !a->fw_ver[0])
			continue;
		bool first = true, differs = false;
		for (int k = 0; k < i && first; k++)
			first = strcmp(m->nics[k].hca_type, a->hca_type) != 0;
		if (!first)
			continue;   /* this model was judged at its first HCA */
		char byver[512] = "";
		int nseen = 0, ncards = 0;
		for (int k = i; k < m->nnics; k++) {
			const struct fab_nic *b = &m->nics[k];
			if (strcmp(b->hca_type, a->hca_type) != 0 || !b->fw_ver[0])
				continue;
			ncards++;
			differs |= strcmp(b->fw_ver, a->fw_ver) != 0;
		}
		if (!differs)
			continue;
		/* Every version counts (the message says how many); each is
		 * listed at its first HCA. */
		const char **seen = malloc((size_t)ncards * sizeof(*seen));
		if (!seen) {
			model_note(m, "links.fw-mismatch", "out of memory: %s firmware versions not compared",
				   a->hca_type);
			continue;
		}
		/* "28.39.1002 on mlx5_0, mlx5_1; 28.36.1010 on mlx5_7" */
		for (int k = i; k < m->nnics; k++) {
			const struct fab_nic *b = &m->nics[k];
			if (strcmp(b->hca_type, a->hca_type) != 0 || !b->fw_ver[0])
				continue;
			bool dup = false;
			for (int v = 0; v < nseen && !dup; v++)
				dup = strcmp(seen[v], b->fw_ver) == 0;
			if (dup)
				continue;
			seen[nseen++] = b->fw_ver;
			fab_catf(byver, sizeof(byver), _("%s%s on"), nseen > 1 ? "; " : "", b->fw_ver);
			int listed = 0;
			for (int q = k; q < m->nnics; q++)
				if (strcmp(m->nics[q].hca_type, a->hca_type) == 0 &&
				    strcmp(m->nics[q].fw_ver, b->fw_ver) == 0)
					fab_catf(byver, sizeof(byver), "%s %s", listed++ ? "," : "",
						 m->nics[q].name);
		}
		free(seen);
		struct fab_finding *f = model_add_finding(m, "links.fw-mismatch", SEV_WARN, a->hca_type);
		snprintf(f->message, sizeof(f->message), _("the %d %s HCAs run %d firmware versions: %s"),
			 ncards, a->hca_type, nseen, byver);
		snprintf(f->evidence, sizeof(f->evidence), _("/sys/class/infiniband/*/fw_ver and hca_type"));
		snprintf(f->hint, sizeof(f->hint), _("mlxfwmanager --query (or flint -d %s q) on each; bring "
			 "them to one version (the rails of a job should behave alike)"),
			 FAB_SHQ(a->pci >= 0 && a->pci < m->npci ? m->pci[a->pci].bdf : a->name));
	}
}

/* The subnet an active IB port is on: its GID prefix (the first 64 bits of
 * GID 0) and the LID of its subnet manager (none known: links.no-sm). */
static bool ib_subnet(const struct fab_port *p, char *prefix, size_t len)
{
	if (!is_ib(p) || !is_up(p) || !p->ngids || !p->sm_lid.ok || p->sm_lid.v <= 0)
		return false;
	snprintf(prefix, len, "%.19s", p->gids[0].gid);   /* "fe80:0000:0000:0000" */
	return strlen(prefix) == 19;
}

/* Active IB ports on different subnets (another SM, another prefix): a
 * port of one subnet cannot reach a peer port of the other, so NCCL
 * connections between rails that are not paired by subnet fail or hang.
 * Some clusters run one subnet per rail by design: then the rails must be
 * paired alike on every node. */
static void rule_subnet_mismatch(struct fab_model *m)
{
	/* One entry per subnet met, as many as there are. */
	struct subnet { char key[48], list[200]; } *nets = NULL;
	char prefix[24];
	int nnets = 0, cap = 0, nports = 0;
	for (int i = 0; i < m->nnics; i++)
		for (int k = 0; k < m->nics[i].nports; k++) {
			const struct fab_port *p = &m->nics[i].ports[k];
			if (!ib_subnet(p, prefix, sizeof(prefix)))
				continue;
			char key[48], subj[FAB_NAME_LEN + 8];
			snprintf(key, sizeof(key), "%s SM LID %lld", prefix, p->sm_lid.v);
			port_name(&m->nics[i], p, subj, sizeof(subj));
			int v = 0;
			while (v < nnets && strcmp(nets[v].key, key) != 0)
				v++;
			if (v == nnets) {
				if (nnets == cap) {
					cap = cap ? cap * 2 : 4;
					struct subnet *nv = realloc(nets, (size_t)cap * sizeof(*nv));
					if (!nv) {
						free(nets);
						model_note(m, "links.subnet-mismatch",
							   "out of memory: IB subnets not compared");
						return;
					}
					nets = nv;
				}
				fab_strlcpy(nets[nnets].key, key, sizeof(nets[0].key));
				nets[nnets++].list[0] = '\0';
			}
			fab_catf(nets[v].list, sizeof(nets[0].list), "%s%s", nets[v].list[0] ? ", " : "", subj);
			nports++;
		}
	if (nnets < 2) {
		free(nets);
		return;
	}
	struct fab_finding *f = model_add_finding(m, "links.subnet-mismatch", SEV_WARN, "node");
	snprintf(f->message, sizeof(f->message), _("its %d active IB ports are on %d subnets: NCCL "
		 "connections between ports of different subnets fail or hang unless every node pairs "
		 "the rails alike"), nports, nnets);
	f->evidence[0] = '\0';
	for (int v = 0; v < nnets; v++)
		fab_catf(f->evidence, sizeof(f->evidence), _("%sprefix %s: %s"), v ? "; " : "", nets[v].key,
			 nets[v].list);
	snprintf(f->hint, sizeof(f->hint), _("ibstat (SM lid, Base lid) and sminfo per port; one "
		 "subnet manager for all rails, or NCCL_IB_HCA naming one subnet's ports"));
	free(nets);
}

/* IB and RoCE ports side by side (e.g. IB rails and RoCE storage NICs):
 * NCCL without NCCL_IB_HCA takes every usable port of either kind, and an
 * IB port cannot talk to a RoCE one. Information for the node; the job
 * step warns when a job's list mixes them (job.ib-hca-mixed). */
static void rule_ll_mixed(struct fab_model *m)
{
	char ib[200] = "", roce[200] = "";
	for (int i = 0; i < m->nnics; i++)
		for (int k = 0; k < m->nics[i].nports; k++) {
			const struct fab_port *p = &m->nics[i].ports[k];
			if (p->usable.v != FAB_YES)
				continue;
			char subj[FAB_NAME_LEN + 8];
			port_name(&m->nics[i], p, subj, sizeof(subj));
			if (is_ib(p))
				fab_catf(ib, sizeof(ib), "%s%s", ib[0] ? ", " : "", subj);
			else if (is_roce(p))
				fab_catf(roce, sizeof(roce), "%s%s", roce[0] ? ", " : "", subj);
		}
	if (!ib[0] || !roce[0])
		return;
	struct fab_finding *f = model_add_finding(m, "links.ll-mixed", SEV_INFO, "node");
	snprintf(f->message, sizeof(f->message), _("usable InfiniBand and RoCE ports side by side: "
		 "without NCCL_IB_HCA a job uses both kinds, and IB ports cannot reach RoCE ones"));
	snprintf(f->evidence, sizeof(f->evidence), "InfiniBand: %s; RoCE: %s", ib, roce);
	snprintf(f->hint, sizeof(f->hint), _("give jobs NCCL_IB_HCA with the ports of one kind (the "
		 "compute rails)"));
}

/* PFC on a priority where ECN is off (np or rp, when known): congestion is
 * then handled by pause frames alone, which spread back through the fabric
 * (head-of-line blocking, victim flows, pause storms) instead of DCQCN
 * slowing the senders. */
static void rule_pfc_no_ecn(struct fab_model *m)
{
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *n = &m->nics[i];
		for (int k = 0; k < n->nports; k++) {
			const struct fab_port *p = &n->ports[k];
			const struct fab_netdev *d = is_roce(p) ? model_netdev(m, p->netdev) : NULL;
			if (!d || !d->pfc_mask.ok || (!d->ecn_np_mask.ok && !d->ecn_rp_mask.ok))
				continue;
			long long pfc = d->pfc_mask.v & 0xff, bad = 0;
			for (int b = 0; b < 8; b++) {
				if (!(pfc >> b & 1))
					continue;
				if ((d->ecn_np_mask.ok && !(d->ecn_np_mask.v >> b & 1)) ||
				    (d->ecn_rp_mask.ok && !(d->ecn_rp_mask.v >> b & 1)))
					bad |= 1LL << b;
			}
			if (!bad)
				continue;
			char subj[FAB_NAME_LEN + 8], bl[24], pl[24], npl[24], rpl[24];
			port_name(n, p, subj, sizeof(subj));
			fab_prio_list(fab_int_of(bad), bl, sizeof(bl));
			fab_prio_list(fab_int_of(pfc), pl, sizeof(pl));
			const char *np = fab_na(fab_prio_list(d->ecn_np_mask, npl, sizeof(npl)));
			const char *rp = fab_na(fab_prio_list(d->ecn_rp_mask, rpl, sizeof(rpl)));
			int b0 = __builtin_ctzll((unsigned long long)bad);
			struct fab_finding *f = model_add_finding(m, "links.pfc-no-ecn", SEV_WARN, subj);
			snprintf(f->message, sizeof(f->message),
				 _("PFC is on for priority %s of %s but ECN is not: congestion is handled by "
				 "pause frames alone (head-of-line blocking, pause storms) instead of DCQCN "
				 "slowing the senders"), bl, d->name);
			char where[96];
			snprintf(f->evidence, sizeof(f->evidence),
				 _("%s: PFC on priority %s; /sys/class/net/%s/ecn/"
				 "roce_np/enable/<prio>=1 on: %s; ecn/roce_rp/enable/<prio>=1 on: %s"),
				 pfc_where(d, where, sizeof(where)), pl, d->name, np, rp);
			snprintf(f->hint, sizeof(f->hint),
				 _("mlnx_qos -i %s; cat /sys/class/net/%s/ecn/roce_{np,rp}/enable/%d; suggestion: "
				 "echo 1 into both files for priority %d"), FAB_SHQ(d->name), FAB_SHQ(d->name), b0, b0);
		}
	}
}

/* ---- links.tc-override / links.tc-no-pfc ------------------------------ */

/* MLNX_OFED's tc/<port>/traffic_class: "Global tclass=N" puts N in every
 * QP of the port at modify_qp, whatever the application asked
 * (tclass_get_tclass_locked(), drivers/infiniband/hw/mlx5, MLNX_OFED). A
 * warning when it differs from the traffic class the NCCL jobs ask for;
 * information naming what it forces when their traffic class is unknown. */
static void rule_tc_override(struct fab_model *m)
{
	FOR_EACH_PORT(m, n, p) {
		if (!is_roce(p) || p->tclass.set != FAB_YES)
			continue;
		int tc = p->tclass.value;
		if (m->job_tc.ok && m->job_tc.v == tc)
			continue;
		char subj[FAB_NAME_LEN + 8], file[FAB_NAME_LEN + 64], pwhy[200];
		port_name(n, p, subj, sizeof(subj));
		snprintf(file, sizeof(file), "/sys/class/infiniband/%s/tc/%d/traffic_class", n->name, p->num);
		const struct fab_netdev *d = model_netdev(m, p->netdev);
		int prio = netdev_tc_priority(d, tc, pwhy, sizeof(pwhy));
		/* A warning only against a class the jobs set themselves: a site
		 * that sets the global class so that jobs need not is working as meant. */
		struct fab_finding *f = model_add_finding(m, "links.tc-override",
							  m->job_tc.ok && m->job_tc_set ? SEV_WARN : SEV_INFO,
							  subj);
		char pr[48] = "";
		if (prio >= 0)
			snprintf(pr, sizeof(pr), _(", priority %d"), prio);
		if (m->job_tc.ok && m->job_tc_set)
			snprintf(f->message, sizeof(f->message),
				 _("a global traffic class %d (DSCP %d%s) on %s overrides the job's %lld "
				 "(DSCP %lld): its RDMA traffic leaves in another class than the job and "
				 "the fabric were set up for"), tc, tc >> 2, pr, subj, m->job_tc.v,
				 m->job_tc.v >> 2);
		else
			snprintf(f->message, sizeof(f->message),
				 _("every RoCE QP of %s carries traffic class %d (DSCP %d%s), whatever the "
				 "application asks: a global override"), subj, tc, tc >> 2, pr);
		snprintf(f->evidence, sizeof(f->evidence), _("%s: Global tclass=%d%s; %s; the job: %s"),
			 file, tc, p->tclass.rules ? _(" (and per-destination rules)") : "", pwhy,
			 m->job_tc_from[0] ? m->job_tc_from : _("not looked for"));
		if (m->job_tc.ok && m->job_tc_set)
			snprintf(f->hint, sizeof(f->hint),
				 _("cat %s; to let the job's NCCL_IB_TC apply: echo -1 > %s (as root); or run "
				 "the job with NCCL_IB_TC=%d"), FAB_SHQ(file), FAB_SHQ(file), tc);
		else
			snprintf(f->hint, sizeof(f->hint),
				 _("cat %s; NCCL_IB_TC of the job has no effect while it is set; echo -1 > %s "
				 "(as root) clears it"), FAB_SHQ(file), FAB_SHQ(file));
	}
}

/* A traffic class whose DSCP lands on priority want on d, with ECT(0) in
 * the ECN bits (DSCP 26 -> 106, as NVIDIA's lossless RoCE setups use); -1
 * when none does. */
static int tc_for_priority(const struct fab_netdev *d, int want)
{
	/* DSCP 8p + 2 first (26 for priority 3), then any the map sends there. */
	for (int pass = 0; pass < 2; pass++)
		for (int dscp = 0; dscp < 64; dscp++) {
			int tc = dscp << 2 | 2;
			if ((pass == 0) != (dscp % 8 == 2) || netdev_tc_priority(d, tc, NULL, 0) != want)
				continue;
			return tc;
		}
	return -1;
}

/* The priority the RoCE traffic of a port goes out on (the job's traffic
 * class, or the port's global override, through the trust mode and the
 * DSCP map) has no PFC while others have: that traffic is lossy, and each
 * drop costs a go-back-N retransmission; under load a cause of RoCE
 * timeouts and hangs. Configuration only: the Counters pane's per-priority
 * packets confirm it while traffic runs. */
static void rule_tc_no_pfc(struct fab_model *m)
{
	FOR_EACH_PORT(m, n, p) {
		const struct fab_netdev *d = is_roce(p) ? model_netdev(m, p->netdev) : NULL;
		if (!d || !d->pfc_mask.ok || (d->pfc_mask.v & 0xff) == 0)
			continue;                /* PFC unknown, or off everywhere: links.pfc-off */
		char twhy[160], pwhy[200];
		int tc = port_effective_tc(p, m->job_tc.ok ? (int)m->job_tc.v : -1, twhy, sizeof(twhy));
		int prio = tc < 0 ? -1 : netdev_tc_priority(d, tc, pwhy, sizeof(pwhy));
		if (prio < 0 || (d->pfc_mask.v >> prio & 1))
			continue;
		char subj[FAB_NAME_LEN + 8], pl[24], where[96];
		port_name(n, p, subj, sizeof(subj));
		fab_prio_list(d->pfc_mask, pl, sizeof(pl));
		int want = __builtin_ctzll((unsigned long long)(d->pfc_mask.v & 0xff));
		int good = tc_for_priority(d, want);
		struct fab_finding *f = model_add_finding(m, "links.tc-no-pfc", SEV_WARN, subj);
		snprintf(f->message, sizeof(f->message),
			 _("RDMA traffic on a priority without PFC: %s sends traffic class %d on priority "
			 "%d, where PFC is off (PFC is on %s): drops there are not prevented, and each "
			 "costs a retransmission (configuration; traffic confirms it)"), subj, tc, prio, pl);
		snprintf(f->evidence, sizeof(f->evidence), _("traffic class %d: %s; %s; PFC on %s from %s"),
			 tc, twhy[0] ? twhy : m->job_tc_from[0] ? m->job_tc_from : _("the NCCL jobs' NCCL_IB_TC"),
			 pwhy, pl, pfc_where(d, where, sizeof(where)));
		if (good >= 0)
			snprintf(f->hint, sizeof(f->hint),
				 _("dcb app show dev %s; dcb pfc show dev %s; run the job with NCCL_IB_TC=%d "
				 "(DSCP %d, priority %d)%s; or enable PFC on priority %d on the NIC and the "
				 "switch: dcb pfc set dev %s prio-pfc %d:on"), FAB_SHQ(d->name),
				 FAB_SHQ(d->name), good, good >> 2, want,
				 p->tclass.set == FAB_YES ? _(" after clearing the global traffic class") : "",
				 prio, FAB_SHQ(d->name), prio);
		else
			snprintf(f->hint, sizeof(f->hint),
				 _("dcb app show dev %s; dcb pfc show dev %s; enable PFC on priority %d on the "
				 "NIC and the switch (dcb pfc set dev %s prio-pfc %d:on), or map the job's "
				 "DSCP to a priority with PFC"), FAB_SHQ(d->name), FAB_SHQ(d->name), prio,
				 FAB_SHQ(d->name), prio);
	}
}

/* ---- links.not-usable ------------------------------------------------ */

static const char *errno_name(long long e)
{
	switch (e) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case ENXIO: return "ENXIO";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	}
	return "errno";
}

/* Known usability: open_errno says whether the device node was tried. */
/* Visible in /sys/class/infiniband is not usable: the verbs device node must
 * exist in this mount namespace and open. A pod with the shared RDMA device
 * plugin sees every HCA but gets only its own: info per HCA, warning when
 * no HCA at all is usable here (nothing can do RDMA from here). */
static void rule_not_usable(struct fab_model *m)
{
	char ulist[160];
	int usable = model_usable_hcas(m, ulist, sizeof(ulist));
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *n = &m->nics[i];
		struct fab_judged verbs = nic_verbs(n);
		if (verbs.v != FAB_NO)
			continue;
		char node[96];
		if (n->uverbs.name[0])
			snprintf(node, sizeof(node), "/dev/infiniband/%s", n->uverbs.name);
		else
			snprintf(node, sizeof(node), _("its /dev/infiniband/uverbs node"));
		struct fab_finding *f = model_add_finding(m, "links.not-usable",
							  usable ? SEV_INFO : SEV_WARN, n->name);
		long long e = n->uverbs.open_errno.v;
		const char *none = usable ? "" : _("; no HCA is usable here");
		if (!n->uverbs.present)
			snprintf(f->message, sizeof(f->message),
				 _("visible but %s does not exist here: not usable from this container%s"),
				 node, none);
		else
			snprintf(f->message, sizeof(f->message),
				 _("visible but %s cannot be opened (%s: %s): not usable by this user or "
				 "container%s"), node, errno_name(e), strerror((int)e), none);
		if (!n->uverbs.present)
			snprintf(f->evidence, sizeof(f->evidence),
				 _("/sys/class/infiniband/%s exists; %s: absent in this mount namespace"),
				 n->name, node);
		else
			snprintf(f->evidence, sizeof(f->evidence),
				 _("/sys/class/infiniband/%s exists; open(%s, O_RDWR) failed with %s (%lld)"),
				 n->name, node, errno_name(e), e);
		if (usable)
			snprintf(f->hint, sizeof(f->hint),
				 _("ls -l /dev/infiniband; ibv_devices lists what is visible, not what is usable: "
				 "give NCCL the usable ports, NCCL_IB_HCA=%s"), FAB_SHQ(ulist));
		else if (!n->uverbs.present)
			snprintf(f->hint, sizeof(f->hint),
				 _("ls -l /dev/infiniband; in Kubernetes, request the HCA through the RDMA device "
				 "plugin's resource (rdma/...); on a host, modprobe ib_uverbs"));
		else
			snprintf(f->hint, sizeof(f->hint),
				 _("ls -l %s (owner, group, mode); add the user to its group (often rdma), or in a "
				 "container allow the device (cgroup) through the RDMA device plugin"), FAB_SHQ(node));
	}
}

/* The findings of this file: adding one is a function above and a row here. */
static const struct fab_rule links_rules[] = {
	{ .id = "links.port-down", .run = rule_port_down,   /* and links.port-unused */
	  .needs = FAB_HAVE_PORT_COUNTERS,   /* link_downed tells a cable from a fault */
	  .layer = N_("link: a port that is not ACTIVE with its physical link up carries no traffic at all") },
	{ .id = "links.no-sm", .run = rule_no_sm,
	  .layer = N_("InfiniBand subnet: a port turns ACTIVE only after a subnet manager assigns its LID and routes") },
	{ .id = "links.rate-degraded", .run = rule_rate_degraded,
	  .layer = N_("link: the negotiated width x lane speed caps every transfer over this port") },
	{ .id = "links.pcie-bottleneck", .run = rule_pcie_bottleneck,
	  .layer = N_("PCIe: the NIC's host link must carry its ports' line rate, or the network never reaches it") },
	{ .id = "links.multi-host", .run = rule_multi_host,
	  .layer = N_("PCIe: a multi-host or socket-direct card spreads each port over several links") },
	{ .id = "links.mtu-mismatch", .run = rule_mtu_mismatch,
	  .layer = N_("RoCE: the RDMA MTU follows the netdev MTU; smaller packets cost bandwidth, mismatches break paths") },
	{ .id = "links.roce-no-ipv4", .run = rule_roce_no_ipv4, .needs = FAB_HAVE_GIDS,
	  .layer = N_("RoCE addressing: each connection picks a GID; NCCL and most apps want a routable IPv4 RoCE v2 one") },
	{ .id = "links.gid-netns", .run = rule_gid_netns, .needs = FAB_HAVE_GIDS,
	  .layer = N_("namespaces: a RoCE GID belongs to a netdev, which may live in another network namespace (pod)") },
	{ .id = "links.errors", .run = rule_link_errors, .needs = FAB_HAVE_PORT_COUNTERS,
	  .layer = N_("physical/link: error counters record cable, transceiver and signal trouble since the last clear") },
	{ .id = "links.counter-implausible", .run = rule_counter_implausible,
	  .needs = FAB_HAVE_PORT_COUNTERS,
	  .layer = N_("counters: every verdict on errors and traffic rests on counter values that can be true") },
	{ .id = "links.fw-mismatch", .run = rule_fw_mismatch,
	  .layer = N_("consistency: the rails of a job should run the same firmware") },
	{ .id = "links.subnet-mismatch", .run = rule_subnet_mismatch,
	  .needs = FAB_HAVE_GIDS,   /* the subnet prefix is GID 0's */
	  .layer = N_("consistency: IB ports reach each other only within one subnet (one SM)") },
	{ .id = "links.ll-mixed", .run = rule_ll_mixed,
	  .layer = N_("consistency: NCCL uses every usable RDMA port it is not told to skip, IB and RoCE alike") },
	{ .id = "links.bond-slave-down", .run = rule_bond_slave_down,
	  .layer = N_("RoCE LAG: a bond stays up while one of its links is, at a fraction of its bandwidth") },
	{ .id = "links.pfc-off", .run = rule_pfc_off,
	  .layer = N_("RoCE QoS: RDMA over Ethernet expects a lossless traffic class (PFC) and recovers from drops slowly") },
	{ .id = "links.pfc-no-ecn", .run = rule_pfc_no_ecn,
	  .layer = N_("RoCE congestion: ECN (DCQCN) slows senders before PFC pause frames spread through the fabric") },
	{ .id = "links.tc-override", .run = rule_tc_override,
	  .layer = N_("RoCE QoS: a global traffic class decides which DSCP, so which priority and lossless class, every QP uses") },
	{ .id = "links.tc-no-pfc", .run = rule_tc_no_pfc,
	  .layer = N_("RoCE QoS: the job's traffic class maps to a priority; only priorities with PFC are lossless") },
	{ .id = "links.not-usable", .run = rule_not_usable,
	  .layer = N_("access: verbs need /dev/infiniband/uverbsN in this mount namespace, openable by this user") },
	/* Last: a port's own faults above name the cause; its transport totals
	 * are what those faults (or the fabric) cost. */
	{ .id = "links.transport-errors", .run = rule_transport_errors,
	  .needs = FAB_HAVE_PORT_COUNTERS,
	  .layer = N_("transport: the HCA counts every retransmission, timeout and failed request; they stall or break jobs") },
};
FAB_RULE_SET(links_rule_set, links_rules);
