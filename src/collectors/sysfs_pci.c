/*
 * sysfs_pci.c - PCI functions from /sys/bus/pci/devices: identity, NUMA
 * locality, link speed/width, and the bridge chain from the real path
 * (/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/... ).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/collect.h"
#include "sysread.h"
#include "fabtop/util.h"

/* "0000:1a:00.0": four hex, colon, two hex, colon, two hex, dot, one digit. */
static bool is_bdf(const char *s, size_t n)
{
	static const char pat[] = "xxxx:xx:xx.x";
	if (n != sizeof(pat) - 1)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
		if (pat[i] == 'x' ? !hex : s[i] != pat[i])
			return false;
	}
	return true;
}

/* Splits a resolved device path into host bridge and the BDF chain above
 * the device. Returns -1 when the path is not a PCI device path. */
static int parse_chain(const char *real, struct fab_pci_dev *d)
{
	const char *p = strstr(real, "/devices/pci");
	if (!p)
		return -1;
	p += strlen("/devices/");
	size_t n = strcspn(p, "/");
	if (n >= sizeof(d->host_bridge))
		return -1;
	memcpy(d->host_bridge, p, n);
	d->host_bridge[n] = '\0';
	p += n;
	char comps[FAB_MAX_CHAIN + 1][16];
	int nc = 0;
	while (*p == '/') {
		p++;
		n = strcspn(p, "/");
		if (!is_bdf(p, n))
			break;   /* a non-PCI child (e.g. a platform node): stop */
		if (nc == FAB_MAX_CHAIN + 1)
			return -1;
		memcpy(comps[nc], p, n);
		comps[nc][n] = '\0';
		nc++;
		p += n;
	}
	if (nc == 0 || strcmp(comps[nc - 1], d->bdf) != 0)
		return -1;
	d->chain_len = nc - 1;
	for (int i = 0; i < nc - 1; i++)
		fab_strlcpy(d->chain[i], comps[i], sizeof(d->chain[i]));
	return 0;
}

static fab_num read_speed(const struct fab_root *r, struct fab_model *m, const char *path)
{
	char buf[64];
	double v;
	if (sys_line(r, m, path, buf, sizeof(buf)) != 0)
		return (fab_num){ 0, false };
	if (fab_parse_gts(buf, &v))
		return fab_num_of(v);
	/* "Unknown" is what the kernel prints for a link it cannot read. */
	if (strncmp(buf, "Unknown", 7) != 0)
		model_note(m, path, "unexpected content in %s: \"%.40s\"", path, buf);
	return (fab_num){ 0, false };
}

/* iommu_group/type (kernel 5.11+): "identity" passes DMA through, "DMA"
 * and "DMA-FQ" translate it (lazy flush for -FQ), "blocked" and
 * "unmanaged" (VFIO) leave it to others. No group: no IOMMU handles the
 * device, when fabtop could look (live, or a capture that recorded it). */
static void read_iommu(const struct fab_root *r, struct fab_model *m, struct fab_pci_dev *d,
		       const char *dir)
{
	char p[1024], buf[64];
	snprintf(p, sizeof(p), "%s/iommu_group", dir);
	if (root_readlink(r, p, buf, sizeof(buf)) <= 0) {
		d->iommu = m->gdr_recorded ? FAB_IOMMU_NONE : FAB_IOMMU_UNKNOWN;
		return;
	}
	snprintf(p, sizeof(p), "%s/iommu_group/type", dir);
	if (sys_line(r, m, p, buf, sizeof(buf)) != 0)
		return;   /* a kernel before 5.11, or unreadable: unknown */
	fab_strlcpy(d->iommu_type, buf, sizeof(d->iommu_type));
	if (strcmp(buf, "identity") == 0)
		d->iommu = FAB_IOMMU_IDENTITY;
	else if (strcmp(buf, "DMA") == 0 || strcmp(buf, "DMA-FQ") == 0)
		d->iommu = FAB_IOMMU_DMA;
	else
		d->iommu = FAB_IOMMU_OTHER;
}

static void read_dev(const struct fab_root *r, struct fab_model *m, struct fab_pci_dev *d,
		     const char *dir)
{
	char p[1024], buf[FAB_LIST_LEN];
#define ATTR(name) (snprintf(p, sizeof(p), "%s/%s", dir, name), p)
	d->class_code = sys_int(r, m, ATTR("class"));
	d->vendor = sys_int(r, m, ATTR("vendor"));
	d->device = sys_int(r, m, ATTR("device"));
	d->subsys_vendor = sys_int(r, m, ATTR("subsystem_vendor"));
	d->subsys_device = sys_int(r, m, ATTR("subsystem_device"));
	fab_int numa = sys_int(r, m, ATTR("numa_node"));
	d->numa_node = numa.ok && numa.v >= 0 ? numa : (fab_int){ 0, false };
	if (sys_line(r, m, ATTR("local_cpulist"), buf, sizeof(buf)) == 0 &&
	    fab_cpulist_count(buf) > 0)
		fab_strlcpy(d->local_cpulist, buf, sizeof(d->local_cpulist));
	d->is_bridge = d->class_code.ok && (d->class_code.v >> 8) == 0x0604;
	d->link.cur_speed = read_speed(r, m, ATTR("current_link_speed"));
	d->link.max_speed = read_speed(r, m, ATTR("max_link_speed"));
	fab_int w = sys_int(r, m, ATTR("current_link_width"));
	d->link.cur_width = w.ok && pcie_width_ok(w.v) ? w : (fab_int){ 0, false };
	w = sys_int(r, m, ATTR("max_link_width"));
	d->link.max_width = w.ok && pcie_width_ok(w.v) ? w : (fab_int){ 0, false };
	ssize_t n = root_readlink(r, ATTR("driver"), buf, sizeof(buf));
	if (n > 0) {
		const char *s = strrchr(buf, '/');
		fab_strlcpy(d->driver, s ? s + 1 : buf, sizeof(d->driver));
	}
	/* The kernel links a VF to its PF: physfn -> ../0000:29:00.0. */
	n = root_readlink(r, ATTR("physfn"), buf, sizeof(buf));
	if (n > 0) {
		const char *s = strrchr(buf, '/');
		d->is_vf = true;
		const char *pf = s ? s + 1 : buf;
		if (is_bdf(pf, strlen(pf)))
			fab_strlcpy(d->pf_bdf, pf, sizeof(d->pf_bdf));
	}
	read_iommu(r, m, d, dir);
#undef ATTR
}

static int by_bdf(const void *a, const void *b)
{
	return strcmp(((const struct fab_pci_dev *)a)->bdf, ((const struct fab_pci_dev *)b)->bdf);
}

int collect_pci_sysfs(const struct fab_root *r, struct fab_model *m)
{
	char **names;
	int n = root_list(r, "/sys/bus/pci/devices", &names);
	if (n < 0) {
		/* The PCI tree is what the topology stands on: unreadable, it is unknown. */
		if (n != -ENOENT)
			sys_note_errno_src(m, FAB_SRC_PCI, "/sys/bus/pci/devices", -n);
		else
			model_note(m, "pci", "no /sys/bus/pci/devices on this node: no PCI data");
		return -1;
	}
	struct sys_dangling dangling = { .count = 0 };
	int nbdf = 0;
	for (int i = 0; i < n; i++) {
		char link[512], real[1024];
		if (!is_bdf(names[i], strlen(names[i])))
			continue;
		nbdf++;
		snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s", names[i]);
		int e = root_resolve_link(r, link, real, sizeof(real));
		if (e == -ENOENT && real[0]) {
			sys_dangling_add(&dangling, link, real);   /* its target is missing */
			continue;
		}
		if (e == -ENOENT) {
			model_note(m, link, "cannot resolve %s: %s (the device vanished or the link is broken)",
				   link, root_strerror(-e));
			continue;
		}
		if (e != 0) {
			/* Not absent: a part of the tree that could not be read. */
			model_note_src(m, FAB_SRC_PCI, link, "cannot resolve %s: %s", link, strerror(-e));
			continue;
		}
		struct fab_pci_dev d = { 0 };
		fab_strlcpy(d.bdf, names[i], sizeof(d.bdf));
		if (parse_chain(real, &d) != 0) {
			model_note(m, link, "%s resolves to %s, which is not a PCI device path", link, real);
			continue;
		}
		read_dev(r, m, &d, real);
		*model_add_pci(m) = d;
	}
	root_free_list(names, n);
	sys_dangling_note(r, m, FAB_SRC_PCI, "/sys/bus/pci/devices", &dangling, nbdf);
	/* Bus order, as nvidia-smi and the kernel's probe order use. */
	if (m->npci > 1) {
		qsort(m->pci, (size_t)m->npci, sizeof(*m->pci), by_bdf);
		model_reindex(m);   /* entries moved in place: the index must not answer stale */
	}
	return 0;
}
