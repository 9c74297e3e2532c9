/*
 * report_links.c - `fabtop report links`: every HCA port as ibstat,
 * ibdev2netdev, show_gids and mlnx_qos would show it, in one listing, and
 * the same data as JSON through the print layer.
 */
#include <stdio.h>
#include <string.h>
#include "fabtop/counters.h"
#include "fabtop/findings.h"
#include "fabtop/i18n.h"
#include "fabtop/report.h"
#include "fabtop/table.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"

static void out_prio_arr(struct fab_out *o, const char *key, fab_int mask)
{
	if (!mask.ok) {
		out_str(o, PR_JSON, key, NULL, NULL);
		return;
	}
	out_open_arr(o, key);
	for (int p = 0; p < 8; p++)
		if (mask.v >> p & 1)
			out_int(o, PR_JSON, NULL, NULL, fab_int_of(p));
	out_close_arr(o);
}

/* A judgement: "yes"/"no"/"unknown"; its reason in JSON always, in the
 * text (as in the pane) when it is not yes. */
static void out_judged(struct fab_out *o, const char *key, const char *fmt,
		       const struct fab_judged *j)
{
	/* The text says the judgement in the reader's language; JSON (i18n
	 * off) keeps the word. */
	out_str(o, PR_ANY, key, fmt, j->v == FAB_YES ? _("yes") : j->v == FAB_NO ? _("no") : _("unknown"));
	char wk[48];
	snprintf(wk, sizeof(wk), "%s_why", key);
	out_str(o, j->v == FAB_YES ? PR_JSON : PR_ANY, wk, " (%s)", j->why);
}

/* ---- the port table: columns as wide as their widest cell (table.h) ---- */

enum { T_PORT, T_STATE, T_PHYS, T_RATE, T_LINE, T_LAYER, T_NETDEV, T_MTU, T_USABLE, NTCOLS };

/* Headings: marked here, translated in port_table(). Every number with its
 * unit, one unit down a column (vocab.h): rates in Gb/s, MTUs in bytes. */
static const struct tbl_col tcols[NTCOLS] = {
	[T_PORT] = { .head = N_("DEV/PORT") }, [T_STATE] = { .head = N_("STATE") },
	[T_PHYS] = { .head = N_("PHYS") },     [T_RATE] = { .head = N_("RATE") },
	[T_LINE] = { .head = N_("LINE") },     [T_LAYER] = { .head = N_("LAYER") },
	[T_NETDEV] = { .head = N_("NETDEV") }, [T_MTU] = { .head = N_("MTU") },
	[T_USABLE] = { .head = N_("USABLE") },
};

/* Row r: the r-th port over every HCA. */
static const struct fab_port *port_at(const struct fab_model *m, int r, const struct fab_nic **nic)
{
	for (int i = 0; i < m->nnics; i++) {
		int np = m->nics[i].nports > FAB_MAX_PORTS ? FAB_MAX_PORTS : m->nics[i].nports;
		if (r < np) {
			*nic = &m->nics[i];
			return &m->nics[i].ports[r];
		}
		r -= np;
	}
	return NULL;
}

static void tcell(const void *ctx, int r, int col, char *buf, size_t len)
{
	const struct fab_nic *n = NULL;
	const struct fab_port *pt = port_at(ctx, r, &n);
	char b[24];
	buf[0] = '\0';
	if (!pt)
		return;
	switch (col) {
	case T_PORT:   fab_subject(n->name, pt->num, buf, len); break;
	case T_STATE:  snprintf(buf, len, "%s", fab_na(port_state_word(pt, b, sizeof(b)))); break;
	case T_PHYS:   snprintf(buf, len, "%s", fab_na(port_phys_word(pt, b, sizeof(b)))); break;
	case T_RATE:   fab_fmt_port_rate(pt, buf, len); break;
	case T_LINE:   fab_fmt_line_rate(port_line_gbps(ctx, n, pt, NULL, 0), buf, len); break;
	case T_LAYER:  snprintf(buf, len, "%s", ll_short(pt->ll)); break;
	case T_NETDEV: snprintf(buf, len, "%s", fab_na(pt->netdev)); break;
	case T_MTU:
		if (pt->active_mtu.ok)
			snprintf(buf, len, "%lld B", pt->active_mtu.v);
		else
			snprintf(buf, len, "N/A");
		break;
	case T_USABLE:
		snprintf(buf, len, "%s", pt->usable.v == FAB_YES ? _("yes") : pt->usable.v == FAB_NO ?
			 _("no") : _("unknown"));
		break;
	}
}

static void port_table(struct fab_out *o, const struct fab_model *m)
{
	int count[3];
	struct tbl_col cols[NTCOLS];
	for (int k = 0; k < NTCOLS; k++) {
		cols[k] = tcols[k];
		cols[k].head = _(tcols[k].head);
	}
	struct tbl t = { .cols = cols, .ncols = NTCOLS, .nrows = model_usable_counts(m, count),
			 .cell = tcell, .ctx = m, .gap = 2 };
	struct tbl_fit f;
	char line[512];
	if (out_is_json(o))
		return;
	tbl_fit(&t, 0, &f);
	for (int r = -1; r < t.nrows; r++)
		out_text(o, "%s\n", tbl_line(&t, &f, r, line, sizeof(line)));
}

static void port_netdev(struct fab_out *o, const struct fab_model *m, const struct fab_port *pt)
{
	const struct fab_netdev *d;
	char b[32], why[FAB_PATH_LEN];
	enum fab_tri here = model_netdev_here(m, pt->netdev, &d, why, sizeof(why));
	out_open_obj(o, "netdev");
	out_str(o, PR_ANY, "name", _("    netdev %s:"), pt->netdev);
	out_str(o, PR_JSON, "here", NULL, tri_name(here));
	if (d) {
		out_int(o, PR_ANY, "mtu", _(" mtu %lld B"), d->mtu);
		out_str(o, PR_ANY, "operstate", ", %s", d->operstate);
		/* carrier is 0 or 1: said as a word, not a bare number. */
		out_int(o, PR_JSON, "carrier", NULL, d->carrier);
		out_text(o, _(", carrier %s"), !d->carrier.ok ? "N/A" : d->carrier.v ? _("on") : _("off"));
		/* sysfs gives Mb/s; the text says it as port rates are said. */
		out_int(o, PR_JSON, "speed_mbps", NULL, d->speed_mbps);
		if (d->speed_mbps.ok && d->speed_mbps.v >= 0)
			out_text(o, _(", speed %s"), fab_fmt_bps((double)d->speed_mbps.v * 1e6, b, sizeof(b)));
		else
			out_text(o, _(", speed %s"), "N/A");
		out_open_obj(o, "qos");
		out_str(o, PR_ANY, "trust", _("\n    QoS: trust %s"), d->qos_trust);
		out_text(o, _(", PFC on %s"), fab_na(fab_prio_list(d->pfc_mask, b, sizeof(b))));
		out_prio_arr(o, "pfc", d->pfc_mask);
		out_text(o, ", ECN np %s", fab_na(fab_prio_list(d->ecn_np_mask, b, sizeof(b))));
		out_prio_arr(o, "ecn_np", d->ecn_np_mask);
		out_text(o, " rp %s", fab_na(fab_prio_list(d->ecn_rp_mask, b, sizeof(b))));
		out_prio_arr(o, "ecn_rp", d->ecn_rp_mask);
		out_close_obj(o);
	} else if (here == FAB_UNKNOWN) {
		out_text(o, _(" unknown here (%s)"), why);
	} else if (pt->netdev[0]) {
		out_text(o, _(" not in this network namespace"));
	}
	out_text(o, "\n");
	out_close_obj(o);
}

static void port_gids(struct fab_out *o, const struct fab_port *pt);
static void port_counters(struct fab_out *o, const struct fab_model *m, const struct fab_nic *n,
			  const struct fab_port *pt);

static void port_detail(struct fab_out *o, const struct fab_model *m, const struct fab_nic *n,
			const struct fab_port *pt)
{
	out_open_obj(o, NULL);
	out_int(o, PR_ANY, "port", _("  port %lld:"), fab_int_of(pt->num));
	char sb[24], pb[24];
	out_str(o, PR_ANY, "state", " %s", port_state_word(pt, sb, sizeof(sb)));
	out_str(o, PR_ANY, "phys_state", " / %s", port_phys_word(pt, pb, sizeof(pb)));
	/* port_active()'s judgement (ACTIVE or ACTIVE_DEFER), null when the
	 * state could not be read: what fleet counts as up. */
	if (pt->state.ok)
		out_bool(o, PR_JSON, "active", NULL, port_active(pt));
	else
		out_str(o, PR_JSON, "active", NULL, NULL);
	out_str(o, PR_ANY, "rate", ", %s", pt->rate_str);
	out_num(o, PR_JSON, "rate_gbps", NULL, pt->rate_gbps);
	char why[200];
	double line = port_line_gbps(m, n, pt, why, sizeof(why));
	out_num(o, PR_JSON, "line_gbps", NULL, line > 0 ? fab_num_of(line) : (fab_num){ 0, false });
	if (why[0])
		out_str(o, PR_ANY, "line_why", _(" (line rate %s)"), why);
	out_int(o, PR_JSON, "width", NULL, pt->width);
	out_str(o, PR_JSON, "speed", NULL, pt->speed);
	out_str(o, PR_ANY, "link_layer", ", %s", ll_name(pt->ll));
	out_judged(o, "usable", _(", usable here: %s"), &pt->usable);
	if (pt->ll != FAB_LL_ETH) {
		out_int(o, PR_ANY, "lid", ", lid %lld", pt->lid);
		out_int(o, PR_ANY, "sm_lid", ", sm_lid %lld", pt->sm_lid);
		out_int(o, PR_ANY, "sm_sl", ", sm_sl %lld", pt->sm_sl);
	}
	out_int(o, PR_ANY, "active_mtu", _("\n    active MTU %lld B"), pt->active_mtu);
	out_int(o, PR_ANY, "max_mtu", _(" (max %lld B"), pt->max_mtu);
	out_str(o, PR_ANY, "mtu_source", _("; from %s)\n"), pt->mtu_source);
	if (pt->netdev[0])
		port_netdev(o, m, pt);

	/* A table not read is null ("not read"), never an empty one. */
	if (!model_has(m, FAB_HAVE_GIDS)) {
		out_text(o, _("    GIDs: not read\n"));
		out_str(o, PR_JSON, "gids", NULL, NULL);
	} else {
		port_gids(o, pt);
	}
	if (!model_has(m, FAB_HAVE_PORT_COUNTERS)) {
		out_text(o, _("    errors: not read\n"));
		out_str(o, PR_JSON, "errors", NULL, NULL);
	} else {
		port_counters(o, m, n, pt);
	}
	out_close_obj(o);
}

static void port_gids(struct fab_out *o, const struct fab_port *pt)
{
	out_open_arr(o, "gids");
	if (pt->ngids)
		out_text(o, "    GIDs:\n");
	for (int g = 0; g < pt->ngids; g++) {
		const struct fab_gid *gd = &pt->gids[g];
		out_open_obj(o, NULL);
		out_int(o, PR_ANY, "index", "      %3lld", fab_int_of(gd->index));
		out_str(o, PR_ANY, "gid", "  %s", gd->gid);
		out_str(o, PR_ANY, "type", "  %-10s", gd->type);
		out_str(o, PR_ANY, "netdev", "  %s", gd->netdev);
		out_str(o, PR_ANY, "ip", "  %s\n", gd->ip);
		out_close_obj(o);
	}
	out_close_arr(o);
	if (pt->gids_more)
		out_int(o, PR_ANY, "gids_more", _("      and %lld more, not kept\n"),
			fab_int_of(pt->gids_more));
}

/* The error counters, those pinned at their maximum, what each hides and
 * the command that clears them, and the implausible ones. */
static void port_counters(struct fab_out *o, const struct fab_model *m, const struct fab_nic *n,
			  const struct fab_port *pt)
{
	out_open_obj(o, "errors");
	if (pt->nerrors)
		out_text(o, _("    errors:"));
	for (int e = 0; e < pt->nerrors; e++) {
		out_text(o, " %s=", pt->errors[e].name);
		out_int(o, PR_ANY, pt->errors[e].name, "%lld", pt->errors[e].value);
		if (pt->errors[e].pinned)
			out_text(o, " PINNED");
		if (pt->errors[e].implausible)
			out_str(o, PR_TEXT, NULL, _(" (implausible: \"%s\")"), pt->errors[e].raw);
	}
	out_close_obj(o);
	if (pt->nerrors)
		out_text(o, "\n");
	/* The pinned ones once more as a list, so a script need not know widths. */
	out_open_arr(o, "saturated");
	for (int e = 0; e < pt->nerrors; e++)
		if (pt->errors[e].pinned)
			out_str(o, PR_JSON, NULL, NULL, pt->errors[e].name);
	out_close_arr(o);
	/* What each pin hides and the one command that clears them. */
	out_open_arr(o, "pinned");
	char hides[160], cmd[160];
	int npin = 0;
	for (int e = 0; e < pt->nerrors; e++) {
		if (!pt->errors[e].pinned || counter_pin_hides(pt->errors[e].def, hides, sizeof(hides)) != 0)
			continue;
		if (!npin++)
			port_pin_clear_cmd(m, n, pt, cmd, sizeof(cmd));
		out_open_obj(o, NULL);
		out_str(o, PR_JSON, "name", NULL, pt->errors[e].name);
		out_int(o, PR_JSON, "value", NULL, pt->errors[e].value);
		out_str(o, PR_ANY, "hides", _("    PINNED: %s\n"), hides);
		out_str(o, PR_JSON, "clear", NULL, cmd);
		out_close_obj(o);
	}
	out_close_arr(o);
	if (npin)
		out_str(o, PR_TEXT, NULL, _("    clear them to count again (printed, not run): %s\n"), cmd);
	/* Values no counter of its width can hold (links.counter-implausible). */
	out_open_arr(o, "implausible");
	for (int e = 0; e < pt->nerrors; e++)
		if (pt->errors[e].implausible)
			out_str(o, PR_JSON, NULL, NULL, pt->errors[e].name);
	out_close_arr(o);
}

static void device_detail(struct fab_out *o, const struct fab_model *m, const struct fab_nic *n)
{
	const struct fab_pci_dev *p = n->pci != FAB_NO_INDEX ? &m->pci[n->pci] : NULL;
	out_open_obj(o, NULL);
	out_str(o, PR_ANY, "name", "\n%s:", n->name);
	out_str(o, PR_ANY, "hca_type", " %s", n->hca_type);
	out_str(o, PR_ANY, "driver", " (%s)", n->driver);
	out_str(o, PR_ANY, "fw_ver", _(", fw %s"), n->fw_ver);
	out_str(o, PR_ANY, "node_guid", _(", guid %s"), n->node_guid);
	out_str(o, PR_ANY, "board_id", _(", board %s\n"), n->board_id);
	out_str(o, PR_ANY, "bdf", "  PCI %s", p ? p->bdf : NULL);
	out_int(o, PR_ANY, "numa_node", ", NUMA %lld", p ? p->numa_node : (fab_int){ 0, false });
	out_open_obj(o, "pcie");
	if (p) {
		const struct fab_pcie_link *l = &p->link;
		out_num(o, PR_ANY, "speed_gts", ", PCIe %.1f GT/s", l->cur_speed);
		out_int(o, PR_ANY, "width", " x%lld", l->cur_width);
		out_num(o, PR_ANY, "max_speed_gts", _(" (max %.1f GT/s"), l->max_speed);
		out_int(o, PR_ANY, "max_width", " x%lld)", l->max_width);
	}
	out_close_obj(o);
	out_num(o, PR_ANY, "cap_gbps", _(", adapter %.0f Gb/s per port\n"), n->cap_gbps);
	out_open_obj(o, "uverbs");
	out_str(o, PR_ANY, "name", "  %s:", n->uverbs.name);
	out_bool(o, PR_ANY, "present", _(" present %s"), n->uverbs.present);
	out_int(o, PR_JSON, "open_errno", NULL, n->uverbs.open_errno);
	if (n->uverbs.open_errno.ok)
		out_text(o, _(", open: %s"), n->uverbs.open_errno.v ? strerror((int)n->uverbs.open_errno.v) : _("ok"));
	out_text(o, "\n");
	out_close_obj(o);
	out_judged(o, "usable", _("  usable here: %s"), &n->usable);
	out_text(o, "\n");
	/* Only when skipped: a key that is there means its counters are absent on purpose. */
	if (n->counters_skipped[0])
		out_str(o, PR_ANY, "counters_skipped", _("  counters not read: %s\n"), n->counters_skipped);
	out_open_arr(o, "ports");
	for (int i = 0; i < n->nports; i++)
		port_detail(o, m, n, &n->ports[i]);
	out_close_arr(o);
	out_close_obj(o);
}

int report_links(struct fab_out *o, const struct fab_model *m)
{
	int count[3], nports = model_usable_counts(m, count);
	out_open_obj(o, "links");
	out_str(o, PR_ANY, "netns_mode", _("RDMA netns mode: %s"), m->rdma_netns_mode);
	/* None read from a class that could not be read is not "none". */
	const struct fab_note *rdma = model_unknown(m, FAB_SRC_RDMA, NULL);
	out_int(o, PR_ANY, "devices", _(", RDMA devices: %lld"),
		(fab_int){ m->nnics, m->nnics > 0 || !rdma });
	out_int(o, PR_ANY, "ports", _(", ports: %lld"), fab_int_of(nports));
	/* Counts by judgement, never a bare number that hides "unknown". */
	out_open_obj(o, "usable");
	out_int(o, PR_ANY, "yes", _("; usable here: %lld"), fab_int_of(count[FAB_YES]));
	out_int(o, PR_ANY, "no", _(", not usable %lld"), fab_int_of(count[FAB_NO]));
	out_int(o, PR_ANY, "unknown", _(", unknown %lld\n\n"), fab_int_of(count[FAB_UNKNOWN]));
	out_close_obj(o);
	if (m->nnics == 0 && rdma) {
		out_text(o, _("RDMA devices unknown: %s\n"), rdma->message);
	} else if (m->nnics == 0) {
		out_text(o, _("No RDMA devices on this node.\n"));
	} else {
		port_table(o, m);
		out_open_arr(o, "hcas");
		for (int i = 0; i < m->nnics; i++)
			device_detail(o, m, &m->nics[i]);
		out_close_arr(o);
	}
	out_close_obj(o);
	return findings_worst(m, "links.") >= SEV_WARN ? 1 : 0;
}
