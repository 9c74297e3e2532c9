/*
 * sysfs_rdma.c - RDMA devices (HCAs) from /sys/class/infiniband: identity,
 * PCI function, ports with state, rate and link layer, and each port's
 * netdev (the ibdev2netdev mapping).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/collect.h"
#include "fabtop/sysread.h"
#include "fabtop/util.h"


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

static void read_port(const struct fab_root *r, struct fab_model *m, struct fab_nic *nic,
		      const char *devdir, int num)
{
	char pdir[512], buf[64];
	long long v;
	struct fab_port *pt = &nic->ports[nic->nports++];
	pt->num = num;
	snprintf(pdir, sizeof(pdir), "%s/ports/%d", devdir, num);
	if (sys_linef(r, m, buf, sizeof(buf), "%s/state", pdir) == 0) {
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
		if (fab_parse_rate(pt->rate_str, &g))
			pt->rate_gbps = fab_num_of(g);
		else {
			model_note(m, pdir, "unexpected content in %s/rate: \"%.40s\"", pdir, pt->rate_str);
			pt->rate_str[0] = '\0';
		}
	}
	sys_linef(r, m, pt->link_layer, sizeof(pt->link_layer), "%s/link_layer", pdir);
	port_netdev(r, m, nic, pt, pdir);
}

static void read_nic(const struct fab_root *r, struct fab_model *m, const char *name)
{
	char dir[512], pdir[600];
	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s", name);
	if (!root_exists(r, dir))
		return;
	struct fab_nic *nic = model_add_nic(m);
	fab_strlcpy(nic->name, name, sizeof(nic->name));
	nic->pci = sys_pci_of(r, m, dir);
	sys_linef(r, m, nic->node_guid, sizeof(nic->node_guid), "%s/node_guid", dir);
	sys_linef(r, m, nic->fw_ver, sizeof(nic->fw_ver), "%s/fw_ver", dir);
	sys_linef(r, m, nic->board_id, sizeof(nic->board_id), "%s/board_id", dir);
	snprintf(pdir, sizeof(pdir), "%s/ports", dir);
	char **ports;
	int np = root_list(r, pdir, &ports);
	if (np < 0) {
		if (np == -ENOENT)
			model_note(m, dir, "%s has no ports/ directory (the device is going away?)", dir);
		else
			sys_note_errno(m, pdir, -np);
		return;
	}
	for (int i = 0; i < np && nic->nports < FAB_MAX_PORTS; i++) {
		long long num;
		if (fab_parse_ll(ports[i], &num) && num > 0 && num < 256)
			read_port(r, m, nic, dir, (int)num);
	}
	root_free_list(ports, np);
}

int collect_rdma(const struct fab_root *r, struct fab_model *m)
{
	char **names;
	int n = root_list(r, "/sys/class/infiniband", &names);
	if (n < 0) {
		if (n != -ENOENT)
			sys_note_errno(m, "/sys/class/infiniband", -n);
		return 0;   /* no RDMA subsystem is a legitimate state, not a failure */
	}
	for (int i = 0; i < n; i++)
		read_nic(r, m, names[i]);
	root_free_list(names, n);
	return 0;
}
