/*
 * sysfs_rdma.c - RDMA devices (HCAs) from /sys/class/infiniband: identity,
 * PCI function and driver, what the adapter model can do, and per port the
 * state, rate (width and speed), link layer, LIDs, the GID table, the
 * standard error counters, the MTU and the port's netdev (the ibdev2netdev
 * mapping).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/collect.h"
#include "fabtop/hazard.h"
#include "fabtop/counters.h"
#include "sysread.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"

#define PCI_VENDOR_MELLANOX 0x15b3
#define GID_SLOTS_MAX 256      /* real tables have 128-256 slots, most empty */
#define IB_MTU_MAX 4096        /* the largest IB path MTU; mlx5 and every RoCE port */

/* Adapter models by PCI ID (names as pci.ids spells them): the highest rate
 * one port of the model runs, and what the card carries in all, in Gb/s,
 * from NVIDIA's product briefs ("single-port 400GbE or dual-port 200GbE":
 * 400 and 400). A port's capability is the lower of the first and the
 * second shared by the card's ports (card_derive in facts.c). */
static const struct adapter_cap {
	unsigned vendor, device;
	const char *model;
	double port_max, card_total;
} adapter_caps[] = {
	{ PCI_VENDOR_MELLANOX, 0x1013, "ConnectX-4", 100, 200 },     /* 2x EDR/100GbE */
	{ PCI_VENDOR_MELLANOX, 0x1015, "ConnectX-4 Lx", 50, 50 },    /* 1x50 or 2x25 GbE */
	{ PCI_VENDOR_MELLANOX, 0x1017, "ConnectX-5", 100, 200 },     /* 2x EDR/100GbE */
	{ PCI_VENDOR_MELLANOX, 0x1019, "ConnectX-5 Ex", 100, 200 },
	{ PCI_VENDOR_MELLANOX, 0x101b, "ConnectX-6", 200, 400 },     /* 2x HDR/200GbE */
	{ PCI_VENDOR_MELLANOX, 0x101d, "ConnectX-6 Dx", 200, 200 },  /* 1x200 or 2x100 GbE */
	{ PCI_VENDOR_MELLANOX, 0x101f, "ConnectX-6 Lx", 50, 50 },    /* 1x50 or 2x25 GbE */
	{ PCI_VENDOR_MELLANOX, 0x1021, "ConnectX-7", 400, 400 },     /* 1x400 or 2x200 */
	{ PCI_VENDOR_MELLANOX, 0x1023, "ConnectX-8", 800, 800 },     /* 1x800 or 2x400 */
	{ PCI_VENDOR_MELLANOX, 0xa2d6, "BlueField-2", 200, 200 },    /* 1x200 or 2x100 */
	{ PCI_VENDOR_MELLANOX, 0xa2dc, "BlueField-3", 400, 400 },    /* 1x400 or 2x200 */
};

static void adapter_cap_of(const struct fab_pci_dev *d, struct fab_nic *nic)
{
	if (!d->vendor.ok || !d->device.ok)
		return;
	for (size_t i = 0; i < sizeof(adapter_caps) / sizeof(adapter_caps[0]); i++)
		if (adapter_caps[i].vendor == d->vendor.v && adapter_caps[i].device == d->device.v) {
			nic->cap_port_max = fab_num_of(adapter_caps[i].port_max);
			nic->cap_card_total = fab_num_of(adapter_caps[i].card_total);
			return;
		}
}

static bool is_roce(const struct fab_port *pt)
{
	return pt->ll == FAB_LL_ETH;
}

/* The netdev of a port: the RoCE GID table names it; otherwise (IB) the
 * netdev on the same PCI function whose dev_port is port-1. */
static void port_netdev(const struct fab_root *r, struct fab_model *m,
			const struct fab_nic *nic, struct fab_port *pt, const char *pdir)
{
	char p[700], buf[FAB_NAME_LEN];
	snprintf(p, sizeof(p), "%s/gid_attrs/ndevs/0", pdir);
	if (root_read_line(r, p, buf, sizeof(buf)) == 0 && buf[0]) {
		fab_strlcpy(pt->netdev, buf, sizeof(pt->netdev));
		return;
	}
	if (nic->pci == FAB_NO_INDEX)
		return;
	for (int i = 0; i < m->nnetdevs; i++) {
		const struct fab_netdev *d = &m->netdevs[i];
		if (d->pci != nic->pci)
			continue;
		if (d->dev_port.ok && d->dev_port.v != pt->num - 1)
			continue;
		fab_strlcpy(pt->netdev, d->name, sizeof(pt->netdev));
		return;
	}
}

/* What went wrong reading a table of files, noted once per table. */
struct tab_err {
	char first[FAB_PATH_LEN];
	int err, count;
};

static void tab_err_add(struct tab_err *t, const char *path, int e)
{
	if (!t->count++) {
		fab_strlcpy(t->first, path, sizeof(t->first));
		t->err = e;
	}
}

static void tab_err_note(struct fab_model *m, const struct tab_err *t, const char *what)
{
	if (!t->count)
		return;
	if (t->count == 1) {
		sys_note_errno(m, t->first, t->err);
		return;
	}
	model_note(m, t->first, "cannot read %s: %s%s (and %d more %s)", t->first,
		   t->err == EILSEQ ? "not a text attribute" : root_strerror(t->err),
		   t->err == EACCES || t->err == EPERM ?
		   " (run as root, or inside the pod that owns the device)" : "",
		   t->count - 1, what);
}

/* gid_attrs/{types,ndevs}/N: EINVAL for IB ports and empty slots, absent in
 * captures for those; both mean "no value", not a failure. */
static void gid_attr(const struct fab_root *r, const char *pdir, const char *tab, int idx,
		     char *out, size_t len, struct tab_err *errs)
{
	char p[700];
	snprintf(p, sizeof(p), "%s/gid_attrs/%s/%d", pdir, tab, idx);
	int rc = root_read_line(r, p, out, len);
	if (rc != 0) {
		out[0] = '\0';
		if (rc != -EINVAL && rc != -ENOENT && rc != -ENOTDIR)
			tab_err_add(errs, p, -rc);
	}
}

/* The filled slots of the GID table, in index order: the first
 * FAB_MAX_GIDS kept, the others counted (gids_more) and noted. One read per
 * slot and none for the attributes of empty or uncounted ones. */
static void read_gids(const struct fab_root *r, struct fab_model *m, struct fab_port *pt,
		      const char *pdir)
{
	char dir[600], p[700], buf[64];
	char **names;
	snprintf(dir, sizeof(dir), "%s/gids", pdir);
	int n = root_list(r, dir, &names);
	if (n < 0) {
		if (n != -ENOENT && n != -ENOTDIR)
			sys_note_errno(m, dir, -n);
		return;
	}
	struct tab_err gid_errs = { .count = 0 }, attr_errs = { .count = 0 };
	int bad = 0;
	char bad_path[700] = "", bad_val[48] = "";
	bool roce = is_roce(pt);
	for (int i = 0; i < n && i < GID_SLOTS_MAX; i++) {
		long long idx;
		unsigned char raw[16];
		if (!fab_parse_ll(names[i], &idx) || idx < 0 || idx >= 1 << 16)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		int rc = root_read_line(r, p, buf, sizeof(buf));
		if (rc != 0) {
			if (rc != -ENOENT)
				tab_err_add(&gid_errs, p, -rc);
			continue;
		}
		if (!buf[0])
			continue;   /* a capture's placeholder for an unreadable entry */
		if (!fab_parse_gid(buf, raw)) {
			if (!bad++) {
				fab_strlcpy(bad_path, p, sizeof(bad_path));
				fab_strlcpy(bad_val, buf, sizeof(bad_val));
			}
			continue;
		}
		if (fab_gid_is_zero(raw))
			continue;
		if (pt->ngids == FAB_MAX_GIDS) {
			pt->gids_more++;
			continue;
		}
		struct fab_gid *g = &pt->gids[pt->ngids++];
		g->index = (int)idx;
		fab_strlcpy(g->gid, buf, sizeof(g->gid));
		gid_attr(r, pdir, "types", g->index, g->type, sizeof(g->type), &attr_errs);
		gid_attr(r, pdir, "ndevs", g->index, g->netdev, sizeof(g->netdev), &attr_errs);
		fab_gid_ip(raw, roce, g->ip, sizeof(g->ip), &g->ipv4);
	}
	root_free_list(names, n);
	tab_err_note(m, &gid_errs, "GID entries");
	tab_err_note(m, &attr_errs, "GID attributes");
	if (pt->gids_more)
		model_note(m, dir, "%d GIDs set; the first %d (to index %d) are kept and shown, "
			   "%d past it are not: what looks for one of them says unknown",
			   pt->ngids + pt->gids_more, pt->ngids, pt->gids[pt->ngids - 1].index,
			   pt->gids_more);
	if (bad)
		model_note(m, bad_path, "unexpected content in %s: \"%.40s\" (expected a GID)%s",
			   bad_path, bad_val, bad > 1 ? "; other entries too" : "");
}

/* Counter files of one port that hold no value, noted once per port. */
struct ctr_lost {
	struct tab_err err;    /* read() failed: EINVAL when the driver's PMA query fails */
	char no_pma[FAB_PATH_LEN];
	int nno_pma;           /* files reading CTR_NO_PMA_TEXT */
};

/* One counter file: a value, unknown when unreadable or when the kernel
 * says it has none (lost, noted per port by ctr_lost_note()), or
 * implausible (counter_value_judge()) when it holds what the counter
 * cannot: the rule links.counter-implausible reports that. */
static void read_counter(const struct fab_root *r, struct fab_model *m, struct fab_counter *c,
			 const char *path, struct ctr_lost *lost)
{
	char buf[64];
	uint64_t v;
	c->value = (fab_int){ 0, false };
	int rc = root_read_line(r, path, buf, sizeof(buf));
	if (rc != 0) {
		if (rc != -ENOENT && rc != -ENOTDIR)
			tab_err_add(&lost->err, path, -rc);
		return;
	}
	int j = counter_value_judge(c->def, buf, strlen(buf), &v);
	if (j == -2 && !lost->nno_pma++)
		fab_strlcpy(lost->no_pma, path, sizeof(lost->no_pma));
	if (j > 0 || (j == 0 && v > (uint64_t)LLONG_MAX)) {
		c->implausible = true;
		fab_strlcpy(c->raw, buf, sizeof(c->raw));
		model_note(m, path, "unexpected content in %s: \"%.40s\" (not a value this counter "
			   "can hold: implausible)", path, buf);
	} else if (j == 0) {
		c->value = fab_int_of((long long)v);
	}
}

/* What a port lost: only those counters are unknown; the port and its
 * other counters stand. */
static void ctr_lost_note(struct fab_model *m, const struct ctr_lost *lost, int nread)
{
	if (lost->nno_pma) {
		const char *name = strrchr(lost->no_pma, '/');
		model_note(m, lost->no_pma, "%d of %d counters in %.*s read \"" CTR_NO_PMA_TEXT "\" "
			   "(%s first): the driver has no Performance Management Agent for this port, "
			   "so those counters are unknown, not zero", lost->nno_pma, nread,
			   (int)(name - lost->no_pma), lost->no_pma, name + 1);
	}
	if (lost->err.count && lost->err.err == EINVAL)
		model_note(m, lost->err.first, "cannot read %s: %s (%d of %d counters): the kernel's "
			   "PMA query for it failed, so it is unknown; the port's other counters are read",
			   lost->err.first, root_strerror(EINVAL), lost->err.count, nread);
	else
		tab_err_note(m, &lost->err, "counters");
}

/* The counters of the table under pdir/sub that this port has and want()
 * picks, into out[] (at most max): the PMA error counters, or the
 * driver's transport counters. A missing directory is no note: bnxt_re
 * and soft devices have no counters/, and only some drivers hw_counters/.
 * What could not be read is noted once per folder (ctr_lost_note). */
static int read_table_dir(const struct fab_root *r, struct fab_model *m, const char *pdir,
			  const char *sub, bool (*want)(const struct fab_counter_def *),
			  struct fab_counter *out, int max)
{
	char dir[600], p[700];
	char **names;
	int got = 0;
	snprintf(dir, sizeof(dir), "%s/%s", pdir, sub);
	int n = root_list(r, dir, &names);
	if (n < 0) {
		if (n != -ENOENT && n != -ENOTDIR)
			sys_note_errno(m, dir, -n);
		return 0;
	}
	struct ctr_lost lost = { .nno_pma = 0 };
	int nread = 0;
	for (int k = 0; k < fab_ncounter_defs && got < max; k++) {
		const struct fab_counter_def *d = &fab_counter_defs[k];
		if (strcmp(d->dir, sub) != 0 || !want(d))
			continue;
		bool have = false;
		for (int i = 0; i < n && !have; i++)
			have = strcmp(names[i], d->name) == 0;
		if (!have)
			continue;
		struct fab_counter *c = &out[got++];
		fab_strlcpy(c->name, d->name, sizeof(c->name));
		c->def = d;
		snprintf(p, sizeof(p), "%s/%s", dir, d->name);
		read_counter(r, m, c, p, &lost);
		nread++;
	}
	root_free_list(names, n);
	ctr_lost_note(m, &lost, nread);
	return got;
}

static void read_errors(const struct fab_root *r, struct fab_model *m, struct fab_port *pt,
			const char *pdir)
{
	pt->nerrors = read_table_dir(r, m, pdir, "counters", counter_is_error_row, pt->errors,
				     FAB_MAX_COUNTERS);
	pt->nxport = read_table_dir(r, m, pdir, "hw_counters", counter_is_xport_row, pt->xport,
				    FAB_MAX_XPORT);
}

/* max_mtu from what the port is; active_mtu of a RoCE port as the kernel
 * derives it from its netdev's MTU (mlx5_query_port_roce: the smaller of
 * max_mtu and iboe_get_mtu()). An IB port's active MTU needs verbs. */
static void port_mtu(const struct fab_model *m, const struct fab_nic *nic, struct fab_port *pt)
{
	bool roce = is_roce(pt);
	if (roce || strcmp(nic->driver, "mlx5_core") == 0 || strncmp(nic->name, "mlx5_", 5) == 0)
		pt->max_mtu = fab_int_of(IB_MTU_MAX);
	if (!roce || !pt->netdev[0])
		return;
	int i = model_find_netdev(m, pt->netdev);
	if (i == FAB_NO_INDEX || !m->netdevs[i].mtu.ok)
		return;   /* the netdev lives in another network namespace */
	int mtu = fab_roce_mtu(m->netdevs[i].mtu.v);
	if (!mtu)
		return;
	if (pt->max_mtu.ok && mtu > pt->max_mtu.v)
		mtu = (int)pt->max_mtu.v;
	pt->active_mtu = fab_int_of(mtu);
	fab_strlcpy(pt->mtu_source, "netdev MTU (RoCE)", sizeof(pt->mtu_source));
}

/* The detail of one port that want (FAB_HAVE_* bits) asks for: its GID
 * table, and its counters unless the function's reads hurt (hazard.h:
 * counters_skipped says why, noted when the HCA was read). */
static void read_port_detail(const struct fab_root *r, struct fab_model *m,
			     const struct fab_nic *nic, struct fab_port *pt, unsigned want)
{
	char pdir[512];
	snprintf(pdir, sizeof(pdir), "/sys/class/infiniband/%s/ports/%d", nic->name, pt->num);
	if (want & FAB_HAVE_GIDS)
		read_gids(r, m, pt, pdir);
	if ((want & FAB_HAVE_PORT_COUNTERS) && !nic->counters_skipped[0])
		read_errors(r, m, pt, pdir);
}

static void read_port(const struct fab_root *r, struct fab_model *m, struct fab_nic *nic,
		      const char *devdir, int num, unsigned want)
{
	char pdir[512], buf[64];
	long long v;
	struct fab_port *pt = &nic->ports[nic->nports++];
	pt->num = num;
	snprintf(pdir, sizeof(pdir), "%s/ports/%d", devdir, num);
	char sp[600];
	snprintf(sp, sizeof(sp), "%s/state", pdir);
	/* The state is what the links report stands on: unreadable, it is unknown. */
	if (sys_line_src(r, m, FAB_SRC_RDMA, sp, buf, sizeof(buf)) == 0) {
		if (fab_parse_enum_line(buf, &v, pt->state_str, sizeof(pt->state_str)))
			pt->state = fab_int_of(v);
		else
			model_note(m, pdir, "unexpected content in %s/state: \"%.40s\"", pdir, buf);
	}
	if (sys_linef(r, m, buf, sizeof(buf), "%s/phys_state", pdir) == 0) {
		if (fab_parse_enum_line(buf, &v, pt->phys_state_str, sizeof(pt->phys_state_str)))
			pt->phys_state = fab_int_of(v);
		else
			model_note(m, pdir, "unexpected content in %s/phys_state: \"%.40s\"", pdir, buf);
	}
	if (sys_linef(r, m, pt->rate_str, sizeof(pt->rate_str), "%s/rate", pdir) == 0) {
		double g;
		int w;
		if (fab_parse_rate(pt->rate_str, &g)) {
			pt->rate_gbps = fab_num_of(g);
			if (fab_parse_rate_width(pt->rate_str, &w, pt->speed, sizeof(pt->speed)))
				pt->width = fab_int_of(w);
		} else {
			model_note(m, pdir, "unexpected content in %s/rate: \"%.40s\"", pdir, pt->rate_str);
			pt->rate_str[0] = '\0';
		}
	}
	char ll[32] = "";
	sys_linef(r, m, ll, sizeof(ll), "%s/link_layer", pdir);
	pt->ll = ll_parse(ll);
	pt->lid = sys_intf(r, m, "%s/lid", pdir);
	pt->sm_lid = sys_intf(r, m, "%s/sm_lid", pdir);
	pt->sm_sl = sys_intf(r, m, "%s/sm_sl", pdir);
	/* ndevs/0 names a RoCE port's netdev as the kernel does (a RoCE LAG's
	 * bond, a pod's interface): one file, not the GID table. */
	port_netdev(r, m, nic, pt, pdir);
	read_port_detail(r, m, nic, pt, want);
	port_mtu(m, nic, pt);
}

static void read_nic(const struct fab_root *r, struct fab_model *m, const char *name,
		     struct sys_dangling *dangling, unsigned want)
{
	char dir[512], pdir[600];
	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s", name);
	int e = sys_presence(r, dir);
	if (e == -ENOENT)
		return;   /* went away since the listing */
	if (sys_dangling_check(r, dir, dangling))
		return;   /* a link into nowhere is no HCA of N/As: noted for the folder */
	if (e) {
		sys_note_errno_src(m, FAB_SRC_RDMA, dir, -e);
		return;
	}
	struct fab_nic *nic = model_add_nic(m);
	fab_strlcpy(nic->name, name, sizeof(nic->name));
	nic->pci = sys_pci_of(r, m, dir);
	sys_linef(r, m, nic->node_guid, sizeof(nic->node_guid), "%s/node_guid", dir);
	sys_linef(r, m, nic->fw_ver, sizeof(nic->fw_ver), "%s/fw_ver", dir);
	sys_linef(r, m, nic->board_id, sizeof(nic->board_id), "%s/board_id", dir);
	sys_linef(r, m, nic->hca_type, sizeof(nic->hca_type), "%s/hca_type", dir);
	sys_linef(r, m, nic->sys_image_guid, sizeof(nic->sys_image_guid), "%s/sys_image_guid", dir);
	if (nic->pci != FAB_NO_INDEX) {
		const struct fab_pci_dev *d = &m->pci[nic->pci];
		fab_strlcpy(nic->driver, d->driver, sizeof(nic->driver));
		/* A VF has its PF's PCI ID (minus one) or its own: its card is its PF's. */
		if (!d->is_vf)
			adapter_cap_of(d, nic);
	}
	snprintf(pdir, sizeof(pdir), "%s/ports", dir);
	char **ports;
	int np = root_list(r, pdir, &ports);
	if (np < 0) {
		if (np == -ENOENT)
			model_note(m, dir, "%s has no ports/ directory (the device is going away?)", dir);
		else
			sys_note_errno_src(m, FAB_SRC_RDMA, pdir, -np);
		return;
	}
	/* Asked before any counter file is opened: some functions must not be read. */
	char why[sizeof(nic->counters_skipped)];
	enum hazard_verdict hv = hazard_counters(r, name, why, sizeof(why));
	if (hv == HAZARD_SKIP) {
		/* Never empty: collect_rdma_detail() reads counters only where it is. */
		fab_strlcpy(nic->counters_skipped, why[0] ? why : "its reads hurt", sizeof(nic->counters_skipped));
		model_note(m, dir, "%s: counters not read: %s", name, why);
	} else if (hv == HAZARD_UNKNOWN) {
		model_note(m, dir, "%s: %s", name, why);
	}
	int more = 0;
	for (int i = 0; i < np; i++) {
		long long num;
		if (!fab_parse_ll(ports[i], &num) || num <= 0 || num >= 256)
			continue;
		if (nic->nports == FAB_MAX_PORTS)
			more++;
		else
			read_port(r, m, nic, dir, (int)num, want);
	}
	if (more)
		model_note_cut(m, dir, name, "ports", nic->nports + more, nic->nports);
	root_free_list(ports, np);
}

int collect_rdma(const struct fab_root *r, struct fab_model *m)
{
	return collect_rdma_want(r, m, FAB_DETAIL_ALL);
}

int collect_rdma_detail(const struct fab_root *r, struct fab_model *m, unsigned want)
{
	for (int i = 0; i < m->nnics; i++)
		for (int p = 0; p < m->nics[i].nports; p++)
			read_port_detail(r, m, &m->nics[i], &m->nics[i].ports[p], want);
	return 0;
}

int collect_rdma_want(const struct fab_root *r, struct fab_model *m, unsigned want)
{
	char **names;
	int n = root_list(r, "/sys/class/infiniband", &names);
	if (n < 0) {
		/* No RDMA subsystem (ENOENT) is a legitimate state; one that cannot
		 * be read is not "no RDMA device": the links verdict is unknown. */
		if (n != -ENOENT)
			sys_note_errno_src(m, FAB_SRC_RDMA, "/sys/class/infiniband", -n);
		return n == -ENOENT ? 0 : -1;
	}
	struct sys_dangling dangling = { .count = 0 };
	for (int i = 0; i < n; i++)
		read_nic(r, m, names[i], &dangling, want);
	root_free_list(names, n);
	sys_dangling_note(r, m, FAB_SRC_RDMA, "/sys/class/infiniband", &dangling, n);
	return 0;
}
