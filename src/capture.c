/*
 * capture.c - `fabtop capture`: copies the part of a node that fabtop reads
 * into the capture format (docs/capture-format.md), then packs it.
 *
 * The sysfs walk uses openat()/fstatat() without following links: links are
 * copied as they are (sysfs links are relative), and only the directories
 * named in the tables below are entered, so the walk never leaves the set.
 * A file that fails to read is recorded in fabtop/unreadable.tsv with its
 * errno and left as an empty placeholder, so a replay lists it and fails to
 * read it the same way the live run did.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fabtop/archive.h"
#include "fabtop/capture.h"
#include "fabtop/collect.h"
#include "fabtop/model.h"
#include "fabtop/root.h"
#include "fabtop/util.h"

#ifndef FABTOP_VERSION
#define FABTOP_VERSION "0.0.0"
#endif

#define CAP_MAX_FILE ROOT_MAX_FILE
#define CAP_MAX_ENV  (4u << 20)     /* a process environment, read whole */

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
};

/* Names never copied in device directories: huge, irrelevant, slow or
 * links that lead out of the set. */
static const char *const skip_names[] = {
	"power", "msi_irqs", "subsystem", "firmware_node", "iommu", "iommu_group",
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
};

/* Kinds that copy only the files named here (the rest of them is noise). */
static const char *const node_root_files[] = { "online", "possible", "has_*", NULL };
static const char *const node_files[] = { "cpulist", "cpumap", "distance", "meminfo", NULL };
static const char *const cpu_root_files[] = { "online", "possible", "present", "kernel_max",
	NULL };
static const char *const pkey_files[] = { "0", NULL };
/* No serial numbers or UUIDs: they identify the machine, not its fabric. */
static const char *const dmi_files[] = { "sys_vendor", "product_name", "product_version",
	"product_family", "board_vendor", "board_name", "board_version", "bios_vendor",
	"bios_version", "bios_date", NULL };
static const char *const no_files[] = { NULL };

struct cap {
	FILE *log;
	struct fab_root src;
	const char *base;       /* "" live, else the mirror directory */
	char out[PATH_MAX];     /* the directory being written */
	char *buf;              /* CAP_MAX_FILE + 1 */
	FILE *unreadable;
	char **visited;
	size_t nvisited, capvisited;
	int files, links, nunreadable, toobig;
	long long bytes;
	char err[PATH_MAX + 256]; /* first fatal error */
};

/* Set by SIGINT/SIGTERM/SIGHUP during a capture: stop, clean up, return 2. */
static volatile sig_atomic_t cap_signal;

static void on_signal(int sig)
{
	cap_signal = sig;
}

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
	case K_CPU: case K_PORTS: case K_GID_ATTRS: return no_files;
	default: return NULL;
	}
}

static void fatal(struct cap *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fatal(struct cap *c, const char *fmt, ...)
{
	if (c->err[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
}

/* True (and the capture fails) once a signal asked to stop. */
static bool stopped(struct cap *c)
{
	if (cap_signal)
		fatal(c, "interrupted by %s", strsignal(cap_signal));
	return c->err[0] != '\0';
}

/* ---- the destination tree ---- */

/* mkdir -p: tries the folder itself first, its parents only when missing. */
static int mkdir_p(char *path, mode_t mode)
{
	struct stat st;
	if (mkdir(path, mode) == 0)
		return 0;
	if (errno == EEXIST)
		return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
	if (errno != ENOENT)
		return -1;
	char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return -1;
	*slash = '\0';
	int rc = mkdir_p(path, mode);
	*slash = '/';
	if (rc != 0)
		return -1;
	return mkdir(path, mode) == 0 || errno == EEXIST ? 0 : -1;
}

static const char *out_path(const struct cap *c, const char *node_path, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", c->out, node_path);
	return buf;
}

/* Creates the destination folder of a node directory. */
static int out_dir(struct cap *c, const char *node_dir)
{
	char p[PATH_MAX];
	out_path(c, node_dir, p, sizeof(p));
	if (mkdir_p(p, 0755) != 0) {
		fatal(c, "cannot create %s: %s", p, strerror(errno));
		return -1;
	}
	return 0;
}

static int out_write(struct cap *c, const char *node_path, const char *data, size_t len)
{
	char p[PATH_MAX];
	out_path(c, node_path, p, sizeof(p));
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 && errno == ENOENT) {
		char *slash = strrchr(p, '/');
		*slash = '\0';
		int rc = mkdir_p(p, 0755);
		*slash = '/';
		if (rc == 0)
			fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	}
	if (fd < 0) {
		fatal(c, "cannot create %s: %s", p, strerror(errno));
		return -1;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fatal(c, "cannot write %s: %s", p, n < 0 ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (close(fd) != 0) {
		fatal(c, "cannot write %s: %s", p, strerror(errno));
		return -1;
	}
	c->bytes += (long long)len;
	return 0;
}

static int out_json(struct cap *c, const char *node_path, json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(2));
	if (!s) {
		fatal(c, "cannot encode %s", node_path);
		return -1;
	}
	size_t n = strlen(s);
	s[n] = '\n';   /* the NUL's byte becomes the final newline */
	int rc = out_write(c, node_path, s, n + 1);
	free(s);
	return rc;
}

static void record_unreadable(struct cap *c, const char *node_path, int e)
{
	fprintf(c->unreadable, "%s\t%d\t%s\n", node_path, e, strerror(e));
	c->nunreadable++;
}

/* ---- reading the source ---- */

static const char *src_path(const struct cap *c, const char *node_path, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", c->base, node_path);
	return buf;
}

/* Reads an open file up to max bytes into buf (NUL-terminated);
 * returns the size, max + 1 when there is more, or -errno. */
static ssize_t read_fd(int fd, char *buf, size_t max)
{
	size_t got = 0;
	while (got < max + 1) {
		ssize_t n = read(fd, buf + got, max + 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got < max + 1 ? got : max] = '\0';
	return (ssize_t)got;
}

/* Reads a small file of the source by node path; -errno on failure. */
static ssize_t src_read(struct cap *c, const char *node_path, char *buf, size_t len)
{
	char p[PATH_MAX];
	int e = root_recorded_errno(&c->src, node_path);
	if (e)
		return -e;
	int fd = open(src_path(c, node_path, p, sizeof(p)), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	ssize_t n = read_fd(fd, buf, len - 1);
	close(fd);
	return n;
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

/* Lexically resolves a relative link target against the link's folder;
 * -1 when it climbs above "/" (a replay would refuse such a link). */
static int resolve_lexical(const char *dir, const char *target, char *out, size_t len)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s/%s", dir, target);
	char *parts[256];
	int n = 0;
	for (char *tok = strtok(tmp, "/"); tok && n < 256; tok = strtok(NULL, "/")) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0) {
			if (!n)
				return -1;
			n--;
			continue;
		}
		parts[n++] = tok;
	}
	size_t o = 0;
	out[0] = '\0';
	for (int i = 0; i < n && o + 1 < len; i++)
		o += (size_t)snprintf(out + o, len - o, "/%s", parts[i]);
	if (!n)
		fab_strlcpy(out, "/", len);
	return 0;
}

static void copy_link(struct cap *c, int dfd, const char *node_dir, const char *name)
{
	char target[PATH_MAX], node[PATH_MAX], p[PATH_MAX];
	ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);
	if (n < 0)
		return;   /* vanished (ENOENT) or not a link any more */
	target[n] = '\0';
	snprintf(node, sizeof(node), "%s/%s", node_dir, name);
	char res[PATH_MAX];
	if (target[0] == '/' || resolve_lexical(node_dir, target, res, sizeof(res)) != 0) {
		/* Not sysfs-made: a replay would refuse the whole capture for it. */
		fprintf(c->log, "fabtop: left out link %s -> %s (it points outside the node's tree)\n",
			node, target);
		return;
	}
	out_path(c, node, p, sizeof(p));
	if (symlink(target, p) != 0 && errno != EEXIST) {
		fatal(c, "cannot create link %s: %s", p, strerror(errno));
		return;
	}
	c->links++;
	/* The driver's folder, empty, so that realpath() of the link works. */
	if (strcmp(name, "driver") == 0 && strncmp(res, "/sys/bus/", 9) == 0)
		out_dir(c, res);
}

static void copy_file(struct cap *c, int dfd, const char *node_dir, const char *name,
		      const struct stat *st)
{
	char node[PATH_MAX];
	snprintf(node, sizeof(node), "%s/%s", node_dir, name);
	/* Write-only controls (remove, rescan, reset) are not data. */
	if (!(st->st_mode & 0444) && (st->st_mode & 0222))
		return;
	if (root_recorded_errno(&c->src, node)) {
		out_write(c, node, "", 0);   /* already listed in the carried-over tsv */
		return;
	}
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	ssize_t n;
	struct stat fst;
	if (fd < 0) {
		n = -errno;
	} else if (fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
		close(fd);
		return;   /* swapped for something else mid-walk */
	} else {
		n = read_fd(fd, c->buf, CAP_MAX_FILE);
		close(fd);
	}
	if (n == -ENOENT || n == -ENODEV || n == -ENXIO)
		return;   /* the device went away while we walked */
	if (n > (ssize_t)CAP_MAX_FILE) {
		fprintf(c->log, "fabtop: %s is larger than %u bytes: recorded as unreadable\n",
			node, CAP_MAX_FILE);
		c->toobig++;
		n = -EFBIG;
	}
	if (n < 0) {
		record_unreadable(c, node, (int)-n);
		out_write(c, node, "", 0);
		return;
	}
	if (out_write(c, node, c->buf, (size_t)n) == 0)
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
	if (src_read(c, gid, buf, sizeof(buf)) <= 0)
		return false;
	for (const char *p = buf; *p && *p != '\n'; p++)
		if (*p != '0' && *p != ':')
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Copies one directory of kind k (dfd is open on it) and what k enters. */
static void walk(struct cap *c, int dfd, const char *node_dir, enum kind k, int depth)
{
	if (c->err[0] || depth > 8 || out_dir(c, node_dir) != 0)
		return;
	int lfd = dup(dfd);
	DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
	if (!d) {
		if (lfd >= 0)
			close(lfd);
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **v = realloc(names, cap * sizeof(*v));
			if (!v)
				break;
			names = v;
		}
		if (!(names[n] = strdup(de->d_name)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);

	const char *const *only = file_filter(k);
	for (size_t i = 0; i < n && !stopped(c); i++) {
		const char *name = names[i];
		struct stat st;
		bool lists = k == K_CLASS || k == K_NODE_ROOT || k == K_CPU_ROOT;
		if (!lists && skipped(name))
			continue;
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;   /* vanished */
		if (S_ISDIR(st.st_mode)) {
			enum kind sub = subdir_kind(k, name);
			if (sub == K_NONE)
				continue;
			char child[PATH_MAX];
			snprintf(child, sizeof(child), "%s/%s", node_dir, name);
			if (visited(c, child, true))
				continue;
			int sfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sfd < 0) {
				if (errno != ENOENT)
					record_unreadable(c, child, errno);
				continue;
			}
			walk(c, sfd, child, sub, depth + 1);
			close(sfd);
			continue;
		}
		if (only && !name_in(name, only))
			continue;
		if (k == K_GID_ATTR_TAB && !gid_is_set(c, node_dir, name))
			continue;
		if (S_ISLNK(st.st_mode))
			copy_link(c, dfd, node_dir, name);
		else if (S_ISREG(st.st_mode))
			copy_file(c, dfd, node_dir, name, &st);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Copies a node directory as kind k, once. */
static void copy_dir(struct cap *c, const char *node_dir, enum kind k)
{
	char p[PATH_MAX];
	if (c->err[0] || visited(c, node_dir, true))
		return;
	int fd = open(src_path(c, node_dir, p, sizeof(p)),
		      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			record_unreadable(c, node_dir, errno);
		return;
	}
	walk(c, fd, node_dir, k, 0);
	close(fd);
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
static void copy_node_file(struct cap *c, const char *node_path)
{
	char p[PATH_MAX], dir[PATH_MAX];
	fab_strlcpy(dir, node_path, sizeof(dir));
	char *slash = strrchr(dir, '/');
	*slash = '\0';
	int dfd = open(src_path(c, dir, p, sizeof(p)), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	struct stat st;
	if (fstatat(dfd, slash + 1, &st, 0) == 0 && S_ISREG(st.st_mode))
		copy_file(c, dfd, dir, slash + 1, &st);
	close(dfd);
}

static void copy_sysfs(struct cap *c)
{
	copy_class(c, "/sys/bus/pci/devices", K_PCI);
	copy_class(c, "/sys/class/infiniband", K_RDMA);
	copy_class(c, "/sys/class/infiniband_verbs", K_ATTRS);
	copy_class(c, "/sys/class/net", K_NETDEV);
	copy_class(c, "/sys/class/dmi", K_DMI);
	copy_dir(c, "/sys/devices/system/node", K_NODE_ROOT);
	copy_dir(c, "/sys/devices/system/cpu", K_CPU_ROOT);
	copy_node_file(c, "/proc/sys/kernel/hostname");
	copy_node_file(c, "/proc/sys/kernel/osrelease");
	copy_node_file(c, "/proc/cpuinfo");
	copy_node_file(c, "/proc/meminfo");
}

/* ---- counters over time ---- */

struct counter_set {
	char **paths;
	int n, cap;
};

static void counters_add_dir(struct cap *c, struct counter_set *cs, const char *dir)
{
	char **names;
	int n = root_list(&c->src, dir, &names);
	for (int i = 0; i < n; i++) {
		if (cs->n == cs->cap) {
			int ncap = cs->cap ? cs->cap * 2 : 128;
			char **v = realloc(cs->paths, (size_t)ncap * sizeof(*v));
			if (!v)
				break;
			cs->paths = v;
			cs->cap = ncap;
		}
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		if ((cs->paths[cs->n] = strdup(p)))
			cs->n++;
	}
	if (n > 0)
		root_free_list(names, n);
}

static void counters_list(struct cap *c, struct counter_set *cs)
{
	char **devs;
	int nd = root_list(&c->src, "/sys/class/infiniband", &devs);
	for (int i = 0; i < nd; i++) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/hw_counters", devs[i]);
		counters_add_dir(c, cs, dir);
		char **ports;
		snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports", devs[i]);
		int np = root_list(&c->src, dir, &ports);
		for (int j = 0; j < np; j++) {
			char pd[PATH_MAX + 300];
			snprintf(pd, sizeof(pd), "%s/%s/counters", dir, ports[j]);
			counters_add_dir(c, cs, pd);
			snprintf(pd, sizeof(pd), "%s/%s/hw_counters", dir, ports[j]);
			counters_add_dir(c, cs, pd);
		}
		if (np > 0)
			root_free_list(ports, np);
	}
	if (nd > 0)
		root_free_list(devs, nd);
}

static json_t *counter_value(struct cap *c, const char *path)
{
	char buf[128];
	ssize_t n = src_read(c, path, buf, sizeof(buf));
	if (n <= 0 || n >= (ssize_t)sizeof(buf))
		return json_null();
	char *s = buf, *end;
	while (*s == ' ')
		s++;
	if (*s < '0' || *s > '9')
		return json_null();
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	while (*end == ' ' || *end == '\n')
		end++;
	if (errno || *end)
		return json_null();
	/* JSON integers here are signed 64-bit: the top half goes as a real. */
	return v <= (unsigned long long)LLONG_MAX ? json_integer((json_int_t)v)
						  : json_real((double)v);
}

static void ts_add(struct timespec *t, double s)
{
	long long ns = (long long)(s * 1e9);
	t->tv_sec += (time_t)(ns / 1000000000LL);
	t->tv_nsec += (long)(ns % 1000000000LL);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static void take_samples(struct cap *c, int count, double interval)
{
	struct counter_set cs = { 0 };
	counters_list(c, &cs);
	fprintf(c->log, "fabtop: sampling %d counter(s) %d time(s), %.3g s apart\n",
		cs.n, count, interval);
	json_t *root = json_object(), *arr = json_array();
	json_object_set_new(root, "interval", json_real(interval));
	json_object_set_new(root, "samples", arr);
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (int k = 0; k < count && !stopped(c); k++) {
		if (k) {
			/* Absolute deadlines: the time spent reading does not add up. */
			ts_add(&deadline, interval);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR &&
			       !cap_signal)
				;
			if (stopped(c))
				break;
		}
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		json_t *s = json_object(), *vals = json_object();
		json_object_set_new(s, "t", json_real((double)now.tv_sec + now.tv_nsec / 1e9));
		for (int i = 0; i < cs.n; i++)
			json_object_set_new(vals, cs.paths[i], counter_value(c, cs.paths[i]));
		json_object_set_new(s, "values", vals);
		json_array_append_new(arr, s);
	}
	if (!c->err[0])
		out_json(c, "/fabtop/samples.json", root);
	json_decref(root);
	for (int i = 0; i < cs.n; i++)
		free(cs.paths[i]);
	free(cs.paths);
}

/* ---- NCCL processes ---- */

static bool env_kept(const char *kv)
{
	static const char *const prefixes[] = { "NCCL_", "UCX_", "CUDA_", "NVIDIA_", "OMPI_",
						"PMI", NULL };
	for (const char *const *p = prefixes; *p; p++)
		if (strncmp(kv, *p, strlen(*p)) == 0)
			return true;
	return strncmp(kv, "HOSTNAME=", 9) == 0;
}

/* Reads /proc/<pid>/environ whole; -errno on failure. */
static ssize_t read_environ(const char *pid, char **out)
{
	char p[320];
	snprintf(p, sizeof(p), "/proc/%s/environ", pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 65536, got = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		ssize_t n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got == cap) {
			if (cap >= CAP_MAX_ENV)
				break;
			char *nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (!buf)
		return -ENOMEM;
	buf[got] = '\0';
	*out = buf;
	return (ssize_t)got;
}

/* Kernel threads have no environment: PF_KTHREAD in /proc/<pid>/stat. */
static bool is_kthread(const char *pid)
{
	char p[320], buf[1024];
	snprintf(p, sizeof(p), "/proc/%s/stat", pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read_fd(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	/* The fields after "(comm)": state ppid pgrp session tty tpgid flags. */
	char *s = strrchr(buf, ')');
	unsigned long flags = 0;
	if (!s || sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & 0x00200000UL;
}

static void capture_proc(struct cap *c, const char *pid, int *unreadable, int *found)
{
	char *env = NULL;
	ssize_t n = read_environ(pid, &env);
	if (n < 0) {
		if (n != -ENOENT && n != -ESRCH && !is_kthread(pid))
			(*unreadable)++;
		return;
	}
	bool nccl = false;
	for (char *kv = env; kv < env + n; kv += strlen(kv) + 1)
		if (strncmp(kv, "NCCL_", 5) == 0)
			nccl = true;
	if (!nccl) {
		free(env);
		return;
	}
	json_t *j = json_object(), *ej = json_object();
	char p[320], buf[256];
	json_object_set_new(j, "pid", json_integer(atoll(pid)));
	snprintf(p, sizeof(p), "/proc/%s/comm", pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t l = fd >= 0 ? read_fd(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (l > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		json_object_set_new(j, "comm", json_string(buf));
	} else {
		json_object_set_new(j, "comm", json_null());
	}
	snprintf(p, sizeof(p), "/proc/%s/ns/net", pid);
	l = readlink(p, buf, sizeof(buf) - 1);
	if (l > 0)
		buf[l] = '\0';
	json_object_set_new(j, "netns", l > 0 ? json_string(buf) : json_null());
	for (char *kv = env; kv < env + n; kv += strlen(kv) + 1) {
		char *eq = strchr(kv, '=');
		if (!eq || !env_kept(kv))
			continue;
		*eq = '\0';
		json_t *v = json_string(eq + 1);   /* NULL for invalid UTF-8 */
		json_object_set_new(ej, kv, v ? v : json_null());
		*eq = '=';
	}
	json_object_set_new(j, "env", ej);
	snprintf(p, sizeof(p), "/fabtop/procs/%s.json", pid);
	if (out_json(c, p, j) == 0)
		(*found)++;
	json_decref(j);
	free(env);
}

/* Returns how many processes could not be read. */
static int capture_procs(struct cap *c)
{
	DIR *d = opendir("/proc");
	int unreadable = 0, found = 0;
	if (!d) {
		fprintf(c->log, "fabtop: cannot list /proc: %s (no NCCL processes recorded)\n",
			strerror(errno));
		return 0;
	}
	struct dirent *de;
	char self[32];
	snprintf(self, sizeof(self), "%d", (int)getpid());
	while ((de = readdir(d)) && !stopped(c)) {
		if (strspn(de->d_name, "0123456789") != strlen(de->d_name) || !strcmp(de->d_name, self))
			continue;
		capture_proc(c, de->d_name, &unreadable, &found);
	}
	closedir(d);
	fprintf(c->log, "fabtop: %d NCCL process(es) recorded, %d process(es) not readable%s\n",
		found, unreadable, unreadable ? " (run as root to see them all)" : "");
	return unreadable;
}

/* ---- fabtop/ files ---- */

/* Copies fabtop/<name> from a capture source, when it has one. */
static void carry_file(struct cap *c, const char *name)
{
	char node[256], p[PATH_MAX];
	snprintf(node, sizeof(node), "/fabtop/%s", name);
	int fd = open(src_path(c, node, p, sizeof(p)), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read_fd(fd, c->buf, CAP_MAX_FILE);
	close(fd);
	if (n < 0 || n > (ssize_t)CAP_MAX_FILE) {
		fprintf(c->log, "fabtop: cannot copy %s of the source: %s\n", p,
			n < 0 ? strerror((int)-n) : "larger than 1 MiB");
		return;
	}
	out_write(c, node, c->buf, (size_t)n);
}

static void line_of(struct cap *c, const char *node_path, char *buf, size_t len)
{
	ssize_t n = src_read(c, node_path, buf, len);
	if (n < 0)
		n = 0;
	buf[n < (ssize_t)len ? n : (ssize_t)len - 1] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static void write_meta(struct cap *c, const struct capture_opts *o, long long now,
		       int procs_unreadable)
{
	char host[256], kernel[256];
	line_of(c, "/proc/sys/kernel/hostname", host, sizeof(host));
	line_of(c, "/proc/sys/kernel/osrelease", kernel, sizeof(kernel));
	json_t *m = json_object();
	json_object_set_new(m, "format", json_integer(1));
	json_object_set_new(m, "fabtop", json_string(FABTOP_VERSION));
	json_object_set_new(m, "host", json_string(host));
	json_object_set_new(m, "kernel", json_string(kernel));
	json_object_set_new(m, "time", json_integer(now));
	json_object_set_new(m, "uid", json_integer((json_int_t)getuid()));
	json_object_set_new(m, "samples", json_integer(o->samples));
	json_object_set_new(m, "interval", json_real(o->interval));
	if (c->src.live) {
		struct fab_model tm;
		model_init(&tm);
		collect_nvml(&c->src, &tm);
		collect_cuda(&c->src, &tm);
		json_object_set_new(m, "nvml", json_string(tm.nvml_status));
		json_object_set_new(m, "cuda", json_string(tm.cuda_status));
		json_object_set_new(m, "nccl", json_string(tm.nccl_status));
		model_free(&tm);
		json_object_set_new(m, "procs_unreadable", json_integer(procs_unreadable));
	} else {
		/* A capture of a capture keeps what the first one knew. */
		char p[PATH_MAX];
		json_t *sm = json_load_file(src_path(c, "/fabtop/meta.json", p, sizeof(p)), 0, NULL);
		static const char *const keep[] = { "nvml", "cuda", "nccl", NULL };
		for (const char *const *k = keep; *k; k++) {
			json_t *v = sm ? json_object_get(sm, *k) : NULL;
			if (json_is_string(v))
				json_object_set(m, *k, v);
		}
		json_decref(sm);
	}
	json_object_set_new(m, "demo", json_false());
	json_object_set_new(m, "description", json_string(""));
	out_json(c, "/fabtop/meta.json", m);
	json_decref(m);
}

static void write_live_extras(struct cap *c)
{
	char err[512] = "", p[PATH_MAX];
	if (hwloc_export_xml(out_path(c, "/fabtop/hwloc.xml", p, sizeof(p)), err, sizeof(err)) != 0)
		fprintf(c->log, "fabtop: no hwloc.xml: %s\n", err);
	err[0] = '\0';
	json_t *j = netlink_snapshot_json(err, sizeof(err));
	if (j) {
		out_json(c, "/fabtop/netlink.json", j);
		json_decref(j);
	} else {
		fprintf(c->log, "fabtop: no netlink.json: %s\n", err);
	}
	err[0] = '\0';
	j = uverbs_snapshot_json(err, sizeof(err));
	if (j) {
		out_json(c, "/fabtop/devices.json", j);
		json_decref(j);
	} else {
		fprintf(c->log, "fabtop: no devices.json: %s\n", err);
	}
	err[0] = '\0';
	j = nvml_snapshot_json(err, sizeof(err));
	if (j) {
		out_json(c, "/fabtop/nvml.json", j);
		json_decref(j);
	} else if (err[0]) {
		fprintf(c->log, "fabtop: no nvml.json: %s\n", err);
	}
}

/* Starts unreadable.tsv with what a capture source already recorded. */
static void carry_unreadable(struct cap *c)
{
	char p[PATH_MAX], line[PATH_MAX + 128];
	FILE *fp = fopen(src_path(c, "/fabtop/unreadable.tsv", p, sizeof(p)), "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp))
		if (line[0] == '/' && strchr(line, '\t')) {
			fputs(line, c->unreadable);
			c->nunreadable++;
		}
	fclose(fp);
}

/* "<host>-<YYYYmmddTHHMMSS>" (UTC), with the host made safe for a file name. */
static void top_name(struct cap *c, time_t now, char *out, size_t len)
{
	char host[128];
	line_of(c, "/proc/sys/kernel/hostname", host, sizeof(host));
	if (!host[0] && gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	for (char *h = host; *h; h++)
		if (!((*h >= 'a' && *h <= 'z') || (*h >= 'A' && *h <= 'Z') ||
		      (*h >= '0' && *h <= '9') || *h == '-' || *h == '_' || *h == '.'))
			*h = '_';
	struct tm tm;
	char ts[32];
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%S", &tm);
	snprintf(out, len, "%s-%s", host[0] && host[0] != '.' ? host : "node", ts);
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return false;
	struct dirent *de;
	bool empty = true;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

static double mono_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

int capture_run(const struct capture_opts *o, FILE *log)
{
	struct cap c = { .log = log ? log : stderr };
	char err[2 * PATH_MAX] = "", top[256], part[PATH_MAX] = "", defout[512];
	const char *output = o->output;
	bool to_dir, made_dir = false, made_tmp = false;
	int rc = 2;
	double t0 = mono_now();
	time_t now = time(NULL);

	if (o->samples < 0 || !isfinite(o->interval) || o->interval < 0 ||
	    (o->samples > 1 && o->interval * o->samples > 86400)) {
		fprintf(c.log, "fabtop: capture: bad --samples %d / --interval %g "
			"(samples >= 0, interval in seconds >= 0, one day at most)\n",
			o->samples, o->interval);
		return 2;
	}
	if (root_open(&c.src, o->src_root, err, sizeof(err)) != 0) {
		fprintf(c.log, "fabtop: capture: %s (give a directory in capture format, or none for this node)\n",
			err);
		return 2;
	}
	if (c.src.warning[0])
		fprintf(c.log, "fabtop: capture: source: %s\n", c.src.warning);
	c.base = c.src.live ? "" : c.src.dir;
	c.buf = malloc(CAP_MAX_FILE + 2);
	if (!c.buf) {
		fprintf(c.log, "fabtop: capture: out of memory\n");
		root_close(&c.src);
		return 2;
	}
	/* Ctrl-C during a long --samples run: remove what was written, then stop. */
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_signal }, old_sa[3];
	bool installed[3] = { false, false, false };
	sigemptyset(&sa.sa_mask);
	cap_signal = 0;
	for (int i = 0; i < 3; i++)
		if (sigaction(sigs[i], NULL, &old_sa[i]) == 0 && old_sa[i].sa_handler == SIG_DFL)
			installed[i] = sigaction(sigs[i], &sa, NULL) == 0;
	top_name(&c, now, top, sizeof(top));
	if (!output || !*output) {
		snprintf(defout, sizeof(defout), "%s.tar.gz", top);
		output = defout;
	}
	to_dir = output[strlen(output) - 1] == '/';

	if (to_dir) {
		fab_strlcpy(c.out, output, sizeof(c.out));
		size_t l = strlen(c.out);
		while (l > 1 && c.out[l - 1] == '/')
			c.out[--l] = '\0';
		struct stat st;
		made_dir = stat(c.out, &st) != 0;
		if (mkdir_p(c.out, 0755) != 0) {
			snprintf(err, sizeof(err), "cannot create %s: %s (choose a writable -o path)",
				 output, strerror(errno));
			goto out;
		}
		if (!made_dir && !dir_empty(c.out)) {
			snprintf(err, sizeof(err), "%s is not empty (choose a new or empty directory)",
				 output);
			goto out;
		}
	} else {
		/* Fail now, not after the walk, when the output cannot be written. */
		snprintf(part, sizeof(part), "%s.part", output);
		int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			snprintf(err, sizeof(err), "cannot create %s: %s (choose a writable -o path)",
				 output, strerror(errno));
			part[0] = '\0';
			goto out;
		}
		close(fd);
		const char *tmp = getenv("TMPDIR");
		snprintf(c.out, sizeof(c.out), "%s/fabtop-capture.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(c.out)) {
			snprintf(err, sizeof(err), "cannot create a temporary directory %s: %s "
				 "(set TMPDIR to a writable directory)", c.out, strerror(errno));
			goto out;
		}
		made_tmp = true;
	}

	fprintf(c.log, "fabtop: capturing %s into %s\n",
		c.src.live ? "this node" : c.src.dir, output);
	char tsv[PATH_MAX];
	out_path(&c, "/fabtop", tsv, sizeof(tsv));
	if (mkdir_p(tsv, 0755) != 0) {
		snprintf(err, sizeof(err), "cannot create %s: %s", tsv, strerror(errno));
		goto out;
	}
	out_path(&c, "/fabtop/unreadable.tsv", tsv, sizeof(tsv));
	if (!(c.unreadable = fopen(tsv, "w"))) {
		snprintf(err, sizeof(err), "cannot create %s: %s", tsv, strerror(errno));
		goto out;
	}
	carry_unreadable(&c);

	copy_sysfs(&c);
	fprintf(c.log, "fabtop: copied %d file(s) and %d link(s), %lld bytes; %d unreadable "
		"file(s) listed in fabtop/unreadable.tsv\n", c.files, c.links, c.bytes, c.nunreadable);
	if (c.toobig)
		fprintf(c.log, "fabtop: %d file(s) over 1 MiB were not copied\n", c.toobig);

	int procs_unreadable = 0;
	if (!c.err[0] && c.src.live) {
		write_live_extras(&c);
		procs_unreadable = capture_procs(&c);
	} else if (!c.err[0]) {
		carry_file(&c, "hwloc.xml");
		carry_file(&c, "netlink.json");
		carry_file(&c, "nvml.json");
		carry_file(&c, "devices.json");
	}
	if (!c.err[0])
		write_meta(&c, o, (long long)now, procs_unreadable);
	if (!c.err[0] && o->samples > 0)
		take_samples(&c, o->samples, o->interval);
	if (fclose(c.unreadable) != 0)
		fatal(&c, "cannot write %s: %s", tsv, strerror(errno));
	c.unreadable = NULL;
	if (c.err[0]) {
		snprintf(err, sizeof(err), "%s%s", c.err, cap_signal ? "; nothing was written" :
			 " (check the free space and permissions of TMPDIR and of the -o folder)");
		goto out;
	}

	if (!to_dir) {
		if (archive_pack(c.out, top, part, err, sizeof(err)) != 0)
			goto out;
		if (rename(part, output) != 0) {
			snprintf(err, sizeof(err), "cannot create %s: %s (choose a writable -o path)",
				 output, strerror(errno));
			goto out;
		}
		part[0] = '\0';
	}
	struct stat st;
	fprintf(c.log, "fabtop: wrote %s", output);
	if (!to_dir && stat(output, &st) == 0)
		fprintf(c.log, " (%lld bytes)", (long long)st.st_size);
	fprintf(c.log, " in %.2f s\n", mono_now() - t0);
	rc = 0;
out:
	if (rc != 0)
		fprintf(c.log, "fabtop: capture failed: %s\n", err);
	if (c.unreadable)
		fclose(c.unreadable);
	if (part[0])
		unlink(part);
	if (made_tmp || (rc != 0 && made_dir))
		fab_rmtree(c.out);
	for (size_t i = 0; i < c.nvisited; i++)
		free(c.visited[i]);
	free(c.visited);
	free(c.buf);
	root_close(&c.src);
	for (int i = 0; i < 3; i++)
		if (installed[i])
			sigaction(sigs[i], &old_sa[i], NULL);
	return rc;
}
