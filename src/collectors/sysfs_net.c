/* sysfs_net.c - network interfaces from /sys/class/net: their PCI function,
 * MTU, link state, and the RoCE QoS settings a driver exposes in sysfs
 * (MLNX_OFED's qos/ and ecn/ folders). Upstream mlx5 keeps PFC and trust
 * in DCB netlink only: collect_dcb (dcb.h) reads them there afterwards,
 * and these files are the fallback where a netdev has no DCB. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "fabtop/collect.h"
#include "sysread.h"
#include "fabtop/util.h"

/* The PCI function behind a class device link ("/sys/class/net/eth0"),
 * or FAB_NO_INDEX for virtual devices. */
int sys_pci_of(const struct fab_root *r, const struct fab_model *m, const char *classdir)
{
	char dir[1024], link[1100], real[1024];
	/* Two single-link hops (class link, then device link) instead of a
	 * realpath() that stats every component of a deep sysfs path. */
	if (root_resolve_link(r, classdir, dir, sizeof(dir)) != 0)
		return FAB_NO_INDEX;
	snprintf(link, sizeof(link), "%s/device", dir);
	if (root_resolve_link(r, link, real, sizeof(real)) != 0)
		return FAB_NO_INDEX;
	/* The device may be a child of the PCI function (virtio2 under
	 * 0000:00:03.0): take the deepest path component that is a PCI device. */
	char *s;
	while ((s = strrchr(real, '/')) && s != real) {
		int i = model_find_pci(m, s + 1);
		if (i != FAB_NO_INDEX)
			return i;
		*s = '\0';
	}
	return FAB_NO_INDEX;
}

/* A one-line attribute where some failures mean "no value here": ENOENT
 * (not exposed), EINVAL (carrier of a link that is down) and an empty file
 * (a driver whose query failed; a capture's placeholder for a file it could
 * not read, reached here through the class link). Other errors are noted.
 * Returns 0 with buf set, or -errno. */
static int opt_line(const struct fab_root *r, struct fab_model *m, const char *path,
		    char *buf, size_t len)
{
	int rc = root_read_line(r, path, buf, len);
	if (rc != 0) {
		buf[0] = '\0';
		if (rc != -ENOENT && rc != -ENOTDIR && rc != -EINVAL)
			sys_note_errno(m, path, -rc);
		return rc;
	}
	return buf[0] ? 0 : -ENODATA;
}

/* ecn/<proto>/enable/0..7 (MLNX_OFED: "%d\n" per priority) into a mask;
 * unknown unless all eight read as 0 or 1. */
static fab_int ecn_mask(const struct fab_root *r, struct fab_model *m, const char *dir,
			const char *proto)
{
	char p[700], buf[16];
	long long mask = 0;
	for (int prio = 0; prio < 8; prio++) {
		bool on;
		snprintf(p, sizeof(p), "%s/ecn/%s/enable/%d", dir, proto, prio);
		if (opt_line(r, m, p, buf, sizeof(buf)) != 0)
			return (fab_int){ 0, false };
		if (!fab_parse_flag(buf, &on)) {
			model_note(m, p, "unexpected content in %s: \"%.40s\" (expected 0 or 1)", p, buf);
			return (fab_int){ 0, false };
		}
		if (on)
			mask |= 1LL << prio;
	}
	return fab_int_of(mask);
}

static void read_qos(const struct fab_root *r, struct fab_model *m, struct fab_netdev *d,
		     const char *dir)
{
	char p[700], buf[128];
	snprintf(p, sizeof(p), "%s/qos/trust", dir);
	if (opt_line(r, m, p, buf, sizeof(buf)) == 0) {
		if (fab_parse_trust(buf, d->qos_trust, sizeof(d->qos_trust)))
			fab_strlcpy(d->trust_source, "MLNX_OFED sysfs", sizeof(d->trust_source));
		else
			model_note(m, p, "unexpected content in %s: \"%.40s\" (expected pcp or dscp)",
				   p, buf);
	}
	snprintf(p, sizeof(p), "%s/qos/pfc", dir);
	if (opt_line(r, m, p, buf, sizeof(buf)) == 0) {
		long long mask;
		if (fab_parse_prio_mask(buf, &mask)) {
			d->pfc_mask = fab_int_of(mask);
			fab_strlcpy(d->qos_source, "MLNX_OFED sysfs", sizeof(d->qos_source));
		} else
			model_note(m, p, "unexpected content in %s: \"%.40s\" (expected eight 0/1 "
				   "flags or a hex mask)", p, buf);
	}
	d->ecn_np_mask = ecn_mask(r, m, dir, "roce_np");
	d->ecn_rp_mask = ecn_mask(r, m, dir, "roce_rp");
}

/* bonding/ of a bond (its slaves and mode) and bonding_slave/ of a slave
 * (its MII status); absent on every other netdev. */
static void read_bonding(const struct fab_root *r, struct fab_model *m, struct fab_netdev *d,
			 const char *dir)
{
	char p[600], buf[160];
	snprintf(p, sizeof(p), "%s/bonding/slaves", dir);
	if (opt_line(r, m, p, buf, sizeof(buf)) == 0)
		fab_strlcpy(d->bond_slaves, buf, sizeof(d->bond_slaves));
	snprintf(p, sizeof(p), "%s/bonding/mode", dir);
	if (opt_line(r, m, p, buf, sizeof(buf)) == 0) {
		buf[strcspn(buf, " ")] = '\0';   /* "802.3ad 4": the name */
		fab_strlcpy(d->bond_mode, buf, sizeof(d->bond_mode));
	}
	snprintf(p, sizeof(p), "%s/bonding_slave/mii_status", dir);
	if (opt_line(r, m, p, buf, sizeof(buf)) == 0)
		fab_strlcpy(d->slave_mii, buf, sizeof(d->slave_mii));
}

int collect_net(const struct fab_root *r, struct fab_model *m)
{
	char **names;
	int n = root_list(r, "/sys/class/net", &names);
	if (n < 0) {
		/* Unreadable is not "no netdev here": a port's netdev is then
		 * unknown, never "not in this network namespace". */
		if (n != -ENOENT)
			sys_note_errno_src(m, FAB_SRC_NET, "/sys/class/net", -n);
		return -1;
	}
	struct sys_dangling dangling = { .count = 0 };
	for (int i = 0; i < n; i++) {
		char dir[512], p[600], buf[64];
		char **attrs;
		snprintf(dir, sizeof(dir), "/sys/class/net/%s", names[i]);
		int e = sys_presence(r, dir);
		if (e == -ENOENT || sys_dangling_check(r, dir, &dangling))
			continue;
		struct fab_netdev *d = model_add_netdev(m);
		fab_strlcpy(d->name, names[i], sizeof(d->name));
		d->pci = FAB_NO_INDEX;
		int na = e ? e : root_list(r, dir, &attrs);
		if (na < 0 && na != -ENOENT) {
			/* It is here, but what it is cannot be read: one note, not one per attribute. */
			d->read_errno = -na;
			sys_note_errno(m, dir, -na);
			continue;
		}
		if (na > 0)
			root_free_list(attrs, na);
		d->pci = sys_pci_of(r, m, dir);
		d->mtu = sys_intf(r, m, "%s/mtu", dir);
		d->ifindex = sys_intf(r, m, "%s/ifindex", dir);
		d->dev_port = sys_intf(r, m, "%s/dev_port", dir);
		/* speed reads EINVAL while the link is down: that is "unknown", not an error. */
		snprintf(p, sizeof(p), "%s/speed", dir);
		if (root_read_line(r, p, buf, sizeof(buf)) == 0) {
			long long v;
			if (fab_parse_ll(buf, &v) && v > 0)
				d->speed_mbps = fab_int_of(v);
		}
		snprintf(p, sizeof(p), "%s/operstate", dir);
		sys_line(r, m, p, d->operstate, sizeof(d->operstate));
		/* carrier reads EINVAL while the interface is administratively down. */
		snprintf(p, sizeof(p), "%s/carrier", dir);
		bool on;
		if (opt_line(r, m, p, buf, sizeof(buf)) == 0) {
			if (fab_parse_flag(buf, &on))
				d->carrier = fab_int_of(on);
			else
				model_note(m, p, "unexpected content in %s: \"%.40s\" (expected 0 or 1)",
					   p, buf);
		}
		read_qos(r, m, d, dir);
		read_bonding(r, m, d, dir);
	}
	root_free_list(names, n);
	sys_dangling_note(r, m, FAB_SRC_NET, "/sys/class/net", &dangling, n);
	return 0;
}
