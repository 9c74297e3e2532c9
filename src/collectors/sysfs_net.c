/* sysfs_net.c - network interfaces from /sys/class/net and their PCI function. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "fabtop/collect.h"
#include "fabtop/sysread.h"
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

int collect_net(const struct fab_root *r, struct fab_model *m)
{
	char **names;
	int n = root_list(r, "/sys/class/net", &names);
	if (n < 0) {
		if (n != -ENOENT)
			sys_note_errno(m, "/sys/class/net", -n);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char dir[512], p[600], buf[64];
		snprintf(dir, sizeof(dir), "/sys/class/net/%s", names[i]);
		if (!root_exists(r, dir))
			continue;
		struct fab_netdev *d = model_add_netdev(m);
		fab_strlcpy(d->name, names[i], sizeof(d->name));
		d->pci = sys_pci_of(r, m, dir);
		snprintf(p, sizeof(p), "%s/mtu", dir);
		d->mtu = sys_int(r, m, p);
		snprintf(p, sizeof(p), "%s/ifindex", dir);
		d->ifindex = sys_int(r, m, p);
		snprintf(p, sizeof(p), "%s/dev_port", dir);
		d->dev_port = sys_int(r, m, p);
		/* speed reads EINVAL while the link is down: that is "unknown", not an error. */
		snprintf(p, sizeof(p), "%s/speed", dir);
		if (root_read_line(r, p, buf, sizeof(buf)) == 0) {
			long long v;
			if (fab_parse_ll(buf, &v) && v > 0)
				d->speed_mbps = fab_int_of(v);
		}
		snprintf(p, sizeof(p), "%s/operstate", dir);
		sys_line(r, m, p, d->operstate, sizeof(d->operstate));
	}
	root_free_list(names, n);
	return 0;
}
