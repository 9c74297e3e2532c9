/*
 * capture_sysfs.c - the sysfs walk of `fabtop capture`. It reads the
 * source only through the root, by node path (root_list, root_readlink,
 * root_stat, one read per file), so the source may be this node, a
 * directory or a capture held in memory alike. Links are copied as they
 * are, never followed by the walk (sysfs links are relative), and only the
 * directories named in the tables below are entered, so the walk never
 * leaves the set. A file that fails to read is recorded in
 * fabtop/unreadable.tsv and left as an empty placeholder.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "capture_int.h"
#include "fabtop/hazard.h"
#include "fabtop/sanitize.h"
#include "fabtop/util.h"

/* What a directory is, which decides what of it is copied. */
enum kind {
	K_NONE = 0,
	K_ATTRS,        /* attribute files and links, no subdirectories */
	K_TREE,         /* everything below (netdev statistics/, qos/, ecn/ ...) */
	K_CLASS,        /* /sys/class/X, /sys/bus/pci/devices: links and files */
	K_PCI,          /* a PCI function */
	K_RDMA_LIST,    /* <pci>/infiniband/: RDMA devices */
	K_RDMA,         /* one RDMA device */
	K_PORTS,        /* <rdma>/ports/ */
	K_PORT,         /* <rdma>/ports/N/ */
	K_GID_ATTRS,    /* <port>/gid_attrs/ */
	K_GID_ATTR_TAB, /* <port>/gid_attrs/{types,ndevs}/ */
	K_VERBS_LIST,   /* <pci>/infiniband_verbs/ */
	K_NET_LIST,     /* <pci>/net/ */
	K_NETDEV,       /* one network interface */
	K_NODE_ROOT,    /* /sys/devices/system/node */
	K_NODE,         /* /sys/devices/system/node/nodeN */
	K_CPU_ROOT,     /* /sys/devices/system/cpu */
	K_CPU,          /* /sys/devices/system/cpu/cpuN */
	K_DMI,          /* /sys/class/dmi/id: the machine's make and model */
	K_PKEYS,        /* <port>/pkeys/: only the default entry, 0 */
	K_IOMMU_ROOT,   /* /sys/kernel/iommu_groups */
	K_IOMMU_GROUP,  /* /sys/kernel/iommu_groups/N: only its type */
};

/* Names never copied in device directories: huge, irrelevant, slow or
 * links that lead out of the set. */
static const char *const skip_names[] = {
	"power", "msi_irqs", "subsystem", "firmware_node", "iommu",
	"consumer:*", "supplier:*", "resource[0-9]*", "rom", "vpd", "driver_override",
	"reset_method", "of_node", "queues", "phydev", "broken_parity_status",
	NULL
};

struct subdir_rule {
	enum kind parent;
	const char *name;     /* fnmatch pattern */
	enum kind child;
};

/* Which subdirectories are entered, by the kind of their parent. */
static const struct subdir_rule subdir_rules[] = {
	{ K_PCI, "infiniband", K_RDMA_LIST },
	{ K_PCI, "infiniband_verbs", K_VERBS_LIST },
	{ K_PCI, "net", K_NET_LIST },
	{ K_RDMA_LIST, "*", K_RDMA },
	{ K_VERBS_LIST, "*", K_ATTRS },
	{ K_NET_LIST, "*", K_NETDEV },
	{ K_RDMA, "ports", K_PORTS },
	{ K_RDMA, "hw_counters", K_ATTRS },
	{ K_RDMA, "tc", K_TREE },       /* MLNX_OFED: tc/<port>/traffic_class (dcb.h) */
	{ K_PORTS, "*", K_PORT },
	{ K_PORT, "gids", K_ATTRS },
	{ K_PORT, "gid_attrs", K_GID_ATTRS },
	{ K_PORT, "counters", K_ATTRS },
	{ K_PORT, "hw_counters", K_ATTRS },
	{ K_PORT, "pkeys", K_PKEYS },
	{ K_GID_ATTRS, "types", K_GID_ATTR_TAB },
	{ K_GID_ATTRS, "ndevs", K_GID_ATTR_TAB },
	{ K_NETDEV, "statistics", K_TREE },
	{ K_NETDEV, "qos", K_TREE },
	{ K_NETDEV, "ecn", K_TREE },
	{ K_NETDEV, "bonding", K_TREE },
	{ K_NETDEV, "bonding_slave", K_TREE },
	{ K_TREE, "*", K_TREE },
	{ K_NODE_ROOT, "node[0-9]*", K_NODE },
	{ K_CPU_ROOT, "cpu[0-9]*", K_CPU },
	{ K_CPU, "topology", K_ATTRS },
	{ K_IOMMU_ROOT, "[0-9]*", K_IOMMU_GROUP },
};

/* Kinds that copy only the files named here (the rest of them is noise). */
static const char *const node_root_files[] = { "online", "possible", "has_*", NULL };
static const char *const node_files[] = { "cpulist", "cpumap", "distance", "meminfo", NULL };
static const char *const cpu_root_files[] = { "online", "possible", "present", "kernel_max",
	NULL };
static const char *const pkey_files[] = { "0", NULL };
/* A PCI function's iommu_group link leads here: whether the IOMMU
 * translates its DMA (GPUDirect RDMA's peer-to-peer breaks when it does). */
static const char *const iommu_group_files[] = { "type", NULL };
/* No serial numbers or UUIDs: they identify the machine, not its fabric. */
static const char *const dmi_files[] = { "sys_vendor", "product_name", "product_version",
	"product_family", "board_vendor", "board_name", "board_version", "bios_vendor",
	"bios_version", "bios_date", NULL };
static const char *const no_files[] = { NULL };

static bool name_in(const char *name, const char *const *pats)
{
	for (; *pats; pats++)
		if (fnmatch(*pats, name, 0) == 0)
			return true;
	return false;
}

static bool skipped(const char *name)
{
	return name_in(name, skip_names);
}

static enum kind subdir_kind(enum kind parent, const char *name)
{
	for (size_t i = 0; i < sizeof(subdir_rules) / sizeof(subdir_rules[0]); i++)
		if (subdir_rules[i].parent == parent &&
		    fnmatch(subdir_rules[i].name, name, 0) == 0)
			return subdir_rules[i].child;
	return K_NONE;
}

/* The only files kept in kinds that name them; NULL: every attribute. */
static const char *const *file_filter(enum kind k)
{
	switch (k) {
	case K_NODE_ROOT: return node_root_files;
	case K_NODE: return node_files;
	case K_CPU_ROOT: return cpu_root_files;
	case K_DMI: return dmi_files;
	case K_PKEYS: return pkey_files;
	case K_IOMMU_GROUP: return iommu_group_files;
	case K_CPU: case K_PORTS: case K_GID_ATTRS: case K_IOMMU_ROOT: return no_files;
	default: return NULL;
	}
}

/* ---- the sysfs walk ---- */

static bool visited(struct cap *c, const char *node_dir, bool add)
{
	for (size_t i = 0; i < c->nvisited; i++)
		if (strcmp(c->visited[i], node_dir) == 0)
			return true;
	if (!add)
		return false;
	if (c->nvisited == c->capvisited) {
		size_t ncap = c->capvisited ? c->capvisited * 2 : 256;
		char **v = realloc(c->visited, ncap * sizeof(*v));
		if (!v)
			return false;
		c->visited = v;
		c->capvisited = ncap;
	}
	char *s = strdup(node_dir);
	if (s)
		c->visited[c->nvisited++] = s;
	return false;
}

/* A link of the source, its target read already (target). */
static void copy_link(struct cap *c, const char *node_dir, const char *name, const char *target)
{
	char node[PATH_MAX], res[PATH_MAX];
	snprintf(node, sizeof(node), "%s/%s", node_dir, name);
	int fold = target[0] == '/' ? -EXDEV : fab_path_fold(node_dir, target, res, sizeof(res));
	if (fold != 0) {
		/* Not sysfs-made: a replay would refuse the whole capture for it. */
		fab_fprintf(c->log, "fabtop: left out link %s -> %s (%s)\n", node, target,
			    fold == -EXDEV ? "it points outside the node's tree" : "its target path is too long");
		return;
	}
	if (cap_out_link(c, node, target) != 0)
		return;
	c->links++;
	/* The driver's folder, empty, so that realpath() of the link works. */
	if (strcmp(name, "driver") == 0 && strncmp(res, "/sys/bus/", 9) == 0)
		cap_out_dir(c, res);
}

/* A regular file of the source (st: its cap_dir_lstat()). */
static void copy_file(struct cap *c, const struct cap_dir *d, const char *name,
		      const struct stat *st)
{
	char node[PATH_MAX];
	snprintf(node, sizeof(node), "%s/%s", d->node, name);
	/* Write-only controls (remove, rescan, reset) are not data. */
	if (!(st->st_mode & 0444) && (st->st_mode & 0222))
		return;
	if (root_recorded_errno(&c->src, node)) {
		cap_out_write(c, node, "", 0);   /* already listed in the carried-over tsv */
		return;
	}
	ssize_t n = cap_dir_file(c, d, name, st, c->buf, CAP_MAX_FILE);
	if (n == -ENOENT || n == -ENODEV || n == -ENXIO)
		return;   /* the device went away while we walked */
	if (n > (ssize_t)CAP_MAX_FILE) {
		fab_fprintf(c->log, "fabtop: %s is larger than %u bytes: recorded as unreadable\n",
			node, CAP_MAX_FILE);
		c->toobig++;
		n = -EFBIG;
	}
	if (n < 0) {
		cap_record_unreadable(c, node, (int)-n);
		cap_out_write(c, node, "", 0);
		return;
	}
	if (cap_out_write(c, node, c->buf, (size_t)n) == 0)
		c->files++;
}

/* Folders of gid_attrs/{types,ndevs}/N whose GID is unset read EINVAL for
 * every entry; only the entries of set GIDs are copied. */
static bool gid_is_set(struct cap *c, const char *tab_dir, const char *idx)
{
	char gid[PATH_MAX], buf[128];
	const char *ga = strstr(tab_dir, "/gid_attrs/");
	if (!ga)
		return true;
	snprintf(gid, sizeof(gid), "%.*s/gids/%s", (int)(ga - tab_dir), tab_dir, idx);
	if (cap_src_read(c, gid, buf, sizeof(buf)) <= 0)
		return false;
	for (const char *p = buf; *p && *p != '\n'; p++)
		if (*p != '0' && *p != ':')
			return true;
	return false;
}

/* Whether a counters/ or hw_counters/ folder of an RDMA device (node_dir
 * is the device or one of its ports) must not be copied: hazard_counters()
 * decides; each skipped device is logged and recorded once. */
static bool counters_hazard(struct cap *c, const char *node_dir, const char *name)
{
	if (strcmp(name, "counters") != 0 && strcmp(name, "hw_counters") != 0)
		return false;
	const char *s = strstr(node_dir, "/infiniband/");
	char dev[FAB_NAME_LEN], why[256];
	if (!s)
		return false;
	s += strlen("/infiniband/");
	size_t n = strcspn(s, "/");
	if (n == 0 || n >= sizeof(dev))
		return false;
	memcpy(dev, s, n);
	dev[n] = '\0';
	enum hazard_verdict v = hazard_counters(&c->src, dev, why, sizeof(why));
	if (v == HAZARD_READ)
		return false;
	if (!c->hazards) {
		c->hazards = json_object();
		json_object_set_new(c->hazards, "skipped", json_object());
		json_object_set_new(c->hazards, "unknown", json_object());
	}
	json_t *tab = json_object_get(c->hazards, v == HAZARD_SKIP ? "skipped" : "unknown");
	if (!json_object_get(tab, dev)) {
		json_object_set_new(tab, dev, json_string(why));
		fab_fprintf(c->log, "fabtop: %s: %s%s\n", dev,
			    v == HAZARD_SKIP ? "counters not copied: " : "", why);
	}
	return v == HAZARD_SKIP;
}

/* Copies one directory of kind k, and what k enters. */
static void walk(struct cap *c, const char *node_dir, enum kind k, int depth)
{
	char **names;
	struct cap_dir d;
	if (c->err[0] || depth > 8)
		return;
	int n = cap_dir_open(c, &d, node_dir);
	if (n == 0)
		n = root_list(&c->src, node_dir, &names);
	if (n < 0) {
		if (n != -ENOENT && n != -ENOTDIR && n != -ELOOP)
			cap_record_unreadable(c, node_dir, -n);
		cap_dir_close(&d);
		return;
	}
	if (cap_out_dir(c, node_dir) != 0) {
		root_free_list(names, n);
		cap_dir_close(&d);
		return;
	}
	const char *const *only = file_filter(k);
	bool lists = k == K_CLASS || k == K_NODE_ROOT || k == K_CPU_ROOT;
	for (int i = 0; i < n && !cap_stopped(c); i++) {
		const char *name = names[i];
		char child[PATH_MAX], target[PATH_MAX];
		struct stat st;
		if (!lists && skipped(name))
			continue;
		if (cap_dir_lstat(c, &d, name, &st, target, sizeof(target)) != 0)
			continue;   /* vanished */
		if (S_ISDIR(st.st_mode)) {
			enum kind sub = subdir_kind(k, name);
			if (sub == K_NONE)
				continue;
			if ((k == K_RDMA || k == K_PORT) && counters_hazard(c, node_dir, name))
				continue;   /* not even opened */
			snprintf(child, sizeof(child), "%s/%s", node_dir, name);
			if (visited(c, child, true))
				continue;
			walk(c, child, sub, depth + 1);
			continue;
		}
		if (only && !name_in(name, only))
			continue;
		if (k == K_GID_ATTR_TAB && !gid_is_set(c, node_dir, name))
			continue;
		if (S_ISLNK(st.st_mode))
			copy_link(c, node_dir, name, target);
		else if (S_ISREG(st.st_mode))
			copy_file(c, &d, name, &st);
	}
	root_free_list(names, n);
	cap_dir_close(&d);
}

/* Copies a node directory as kind k, once (never through a link: the
 * folder is opened without following one). */
static void copy_dir(struct cap *c, const char *node_dir, enum kind k)
{
	if (c->err[0] || visited(c, node_dir, true))
		return;
	walk(c, node_dir, k, 0);
}

/* The attribute files of every folder between /sys/devices and dev. */
static void copy_ancestors(struct cap *c, const char *dev)
{
	char p[PATH_MAX];
	fab_strlcpy(p, dev, sizeof(p));
	for (char *s = strrchr(p, '/'); s && s > p; s = strrchr(p, '/')) {
		*s = '\0';
		if (strcmp(p, "/sys/devices") == 0 || strncmp(p, "/sys/devices/", 13) != 0)
			break;
		copy_dir(c, p, K_ATTRS);
	}
}

/* Follows each link of a class folder to its device under /sys/devices. */
static void copy_class(struct cap *c, const char *class_dir, enum kind k)
{
	char **names;
	copy_dir(c, class_dir, K_CLASS);
	int n = root_list(&c->src, class_dir, &names);
	if (n <= 0)
		return;
	for (int i = 0; i < n && !c->err[0]; i++) {
		char link[PATH_MAX], real[PATH_MAX];
		snprintf(link, sizeof(link), "%s/%s", class_dir, names[i]);
		if (root_realpath(&c->src, link, real, sizeof(real)) != 0)
			continue;   /* broken link, or a link that leaves the mirror */
		if (strncmp(real, "/sys/devices/", 13) != 0)
			continue;   /* not a device (abi_version), or out of the set */
		copy_dir(c, real, k);
	}
	/* Ancestors after all devices, so a bridge is copied as a device first. */
	for (int i = 0; i < n && !c->err[0]; i++) {
		char link[PATH_MAX], real[PATH_MAX];
		snprintf(link, sizeof(link), "%s/%s", class_dir, names[i]);
		if (root_realpath(&c->src, link, real, sizeof(real)) == 0 &&
		    strncmp(real, "/sys/devices/", 13) == 0)
			copy_ancestors(c, real);
	}
	root_free_list(names, n);
}

/* Copies a plain file of the source by node path, if it exists. */
void cap_copy_node_file(struct cap *c, const char *node_path)
{
	char dir[PATH_MAX];
	struct stat st;
	fab_strlcpy(dir, node_path, sizeof(dir));
	char *slash = strrchr(dir, '/');
	*slash = '\0';
	struct cap_dir d;
	if (cap_dir_open(c, &d, dir) != 0)
		return;
	/* Followed if a link, as before: /proc/cpuinfo is the kernel's. */
	if (root_stat(&c->src, node_path, &st) == 0 && S_ISREG(st.st_mode))
		copy_file(c, &d, slash + 1, &st);
	cap_dir_close(&d);
}

void cap_copy_sysfs(struct cap *c)
{
	copy_class(c, "/sys/bus/pci/devices", K_PCI);
	copy_class(c, "/sys/class/infiniband", K_RDMA);
	copy_class(c, "/sys/class/infiniband_verbs", K_ATTRS);
	copy_class(c, "/sys/class/net", K_NETDEV);
	copy_class(c, "/sys/class/dmi", K_DMI);
	copy_dir(c, "/sys/devices/system/node", K_NODE_ROOT);
	copy_dir(c, "/sys/devices/system/cpu", K_CPU_ROOT);
	copy_dir(c, "/sys/kernel/iommu_groups", K_IOMMU_ROOT);
	/* What NCCL tests for a GPU peer-memory module (host.c's list), and
	 * a file that only a loaded nvidia_peermem has. */
	cap_copy_node_file(c, "/sys/kernel/mm/memory_peers/nv_mem/version");
	cap_copy_node_file(c, "/sys/kernel/mm/memory_peers/nv_mem_nc/version");
	cap_copy_node_file(c, "/sys/module/nvidia_peermem/version");
	cap_copy_node_file(c, "/sys/module/nvidia_peermem/initstate");
	cap_copy_node_file(c, "/proc/sys/kernel/hostname");
	cap_copy_node_file(c, "/proc/sys/kernel/osrelease");
	cap_copy_node_file(c, "/proc/cpuinfo");
	cap_copy_node_file(c, "/proc/meminfo");
	/* The NCCL settings every job here inherits (collect_settings). */
	cap_copy_node_file(c, "/etc/nccl.conf");
}

