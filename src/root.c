/* root.c - the node root: live "/", a mirror directory, or a capture tarball. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "beneath.h"
#include "fabtop/root.h"
#include "fabtop/util.h"
#include "memtree.h"
#include "root_mem.h"

struct fab_unreadable {
	char *path;
	int err;
};

/* ---- caps (docs/capture-format.md, "Limits") ---- */

/* The fabtop/ files that grow with the node; every other file is a sysfs
 * or /proc copy, at most ROOT_MAX_FILE. */
static const struct {
	const char *path;
	size_t max;
} file_caps[] = {
	{ "/fabtop/hwloc.xml",      32u << 20 },   /* lstopo --whole-io of a large node */
	{ "/fabtop/samples.json",  128u << 20 },   /* --samples N of every counter */
	{ "/fabtop/rdma-qp.bin",    64u << 20 },   /* 64 B per QP: a million QPs */
	{ "/fabtop/netlink.json",   32u << 20 },   /* every link, address and route */
	{ "/fabtop/unreadable.tsv", 16u << 20 },   /* a line per unreadable file */
	{ "/fabtop/report.json",    64u << 20 },   /* report all --json: ~10 KB a port
						    * (2.9 MB for 272 RoCE functions) */
};

#define ROOT_MAX_BYTES_DEFAULT   (512ull << 20)
#define ROOT_MAX_ENTRIES_DEFAULT 500000u

size_t root_file_cap(const char *node_path)
{
	for (size_t i = 0; i < sizeof(file_caps) / sizeof(file_caps[0]); i++)
		if (strcmp(node_path, file_caps[i].path) == 0)
			return file_caps[i].max;
	return ROOT_MAX_FILE;
}

static unsigned long long env_cap(const char *name, unsigned long long def)
{
	const char *s = getenv(name);
	long long v;
	return s && fab_parse_ll(s, &v) && v > 0 ? (unsigned long long)v : def;
}

unsigned long long root_max_bytes(void)
{
	return env_cap("FABTOP_CAPTURE_MAX_BYTES", ROOT_MAX_BYTES_DEFAULT);
}

size_t root_max_entries(void)
{
	return (size_t)env_cap("FABTOP_CAPTURE_MAX_MEMBERS", ROOT_MAX_ENTRIES_DEFAULT);
}

/* ---- opening ---- */

static int cmp_unreadable(const void *a, const void *b)
{
	return strcmp(((const struct fab_unreadable *)a)->path,
		      ((const struct fab_unreadable *)b)->path);
}

static void load_unreadable(struct fab_root *r)
{
	char *buf;
	size_t len, cap = 0;
	if (root_read_alloc(r, "/fabtop/unreadable.tsv", &buf, &len) != 0)
		return;
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *tab = strchr(line, '\t');
		if (!tab || line[0] != '/')
			continue;
		*tab = '\0';
		int e = atoi(tab + 1);
		if (e <= 0)
			continue;
		if (r->nunreadable == cap) {
			cap = cap ? 2 * cap : 64;
			struct fab_unreadable *u = realloc(r->unreadable, cap * sizeof(*u));
			if (!u)
				break;
			r->unreadable = u;
		}
		struct fab_unreadable *u = &r->unreadable[r->nunreadable];
		if ((u->path = strdup(line))) {
			u->err = e;
			r->nunreadable++;
		}
	}
	free(buf);
	/* Sorted, for a binary search per read. */
	if (r->nunreadable)
		qsort(r->unreadable, r->nunreadable, sizeof(*r->unreadable), cmp_unreadable);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

void root_name_of(const char *spec, char *out, size_t len)
{
	/* Named after what the user gave, without the tarball suffix. */
	fab_strlcpy(out, base_name(spec), len);
	for (const char *const *sfx = (const char *const[]){ ".tar.gz", ".tgz", "/", NULL }; *sfx; sfx++)
		if (ends_with(out, *sfx)) {
			out[strlen(out) - strlen(*sfx)] = '\0';
			break;
		}
}

/* What every root does once open: its name, whether it is a capture,
 * whether it is a node at all, and the capture's unreadable files. */
static int open_finish(struct fab_root *r, const char *spec, char *err, size_t errlen)
{
	r->is_capture = root_exists(r, "/fabtop/meta.json");
	/* Not a node (--root /tmp): every source would read as absent, and an
	 * empty node as healthy. */
	if (!r->is_capture && !root_exists(r, "/sys") && !root_exists(r, "/fabtop")) {
		snprintf(err, errlen, "%s is not a node root: it has neither sys/ nor fabtop/ "
			 "(give a capture made by `fabtop capture`, or a directory that mirrors a "
			 "node's /sys)%s%s", spec, r->warning[0] ? "; " : "", r->warning);
		root_close(r);
		return -1;
	}
	load_unreadable(r);
	return 0;
}

int root_open(struct fab_root *r, const char *spec, char *err, size_t errlen)
{
	struct stat st;
	memset(r, 0, sizeof(*r));
	r->dfd = -1;
	if (!spec || strcmp(spec, "/") == 0) {
		r->live = true;
		fab_strlcpy(r->name, "live", sizeof(r->name));
		return 0;
	}
	if (stat(spec, &st) != 0) {
		snprintf(err, errlen, "cannot open root %s: %s", spec, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode)) {
		/* A capture: read once into memory, nothing unpacked. */
		int rc = root_mem_load(r, spec, err, errlen);
		if (rc < 0)
			return -1;
		if (rc > 0)  /* keep what came before the break, and say what was lost */
			fab_strlcpy(r->warning, err, sizeof(r->warning));
		root_name_of(spec, r->name, sizeof(r->name));
		return open_finish(r, spec, err, errlen);
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "root %s is neither a directory nor a capture file", spec);
		return -1;
	}
	if (!realpath(spec, r->dir)) {
		snprintf(err, errlen, "cannot resolve root %s: %s", spec, strerror(errno));
		return -1;
	}
	r->dfd = open(r->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->dfd < 0) {
		snprintf(err, errlen, "cannot open root %s: %s", spec, strerror(errno));
		root_close(r);
		return -1;
	}
	/* Checked here, before hwloc and libpci read it by path. */
	char bad[PATH_MAX];
	size_t max = root_max_entries();
	int rc = beneath_check_tree(r->dfd, max, bad, sizeof(bad));
	if (rc != 0) {
		char what[PATH_MAX + 16];
		snprintf(what, sizeof(what), "root %s", spec);
		beneath_explain(rc, r->dfd, bad, max, what, err, errlen);
		root_close(r);
		return -1;
	}
	root_name_of(spec, r->name, sizeof(r->name));
	return open_finish(r, spec, err, errlen);
}

int root_open_memtree(struct fab_root *r, struct memtree *t, const char *name,
		      char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->dfd = -1;
	r->mem = t;
	fab_strlcpy(r->name, name, sizeof(r->name));
	return open_finish(r, name, err, errlen);
}

void root_close(struct fab_root *r)
{
	for (size_t i = 0; i < r->nunreadable; i++)
		free(r->unreadable[i].path);
	free(r->unreadable);
	r->unreadable = NULL;
	r->nunreadable = 0;
	if (!r->live && r->dfd >= 0)
		close(r->dfd);
	r->dfd = -1;
	memtree_free(r->mem);
	r->mem = NULL;
}

/* ---- reading ---- */

const char *root_path(const struct fab_root *r, const char *node_path,
		      char *buf, size_t len)
{
	if (r->mem)
		return NULL;
	if (r->live)
		fab_strlcpy(buf, node_path, len);
	else
		snprintf(buf, len, "%s%s", r->dir, node_path);
	return buf;
}

int root_recorded_errno(const struct fab_root *r, const char *node_path)
{
	if (!r->nunreadable)
		return 0;
	struct fab_unreadable key = { .path = (char *)node_path };
	const struct fab_unreadable *u = bsearch(&key, r->unreadable, r->nunreadable,
						 sizeof(*u), cmp_unreadable);
	return u ? u->err : 0;
}

const char *root_strerror(int e)
{
	if (e == EXDEV)
		return "a link in the path leads outside the root";
	if (e == BENEATH_ENOTFILE)
		return "not a regular file (a FIFO, device or socket)";
	return strerror(e);
}

/* The live root's directory fd: "/", opened once for the process. Live
 * roots are also built without root_open() ({ .live = true }), so the fd is
 * the process's, not the struct's. -1 when "/" cannot be opened (the reads
 * then take the absolute path, which is the same file). */
static int live_root_fd(void)
{
	static int fd = -2;
	if (fd == -2)
		fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd;
}

/* The directory fd and relative name a live node path is read by
 * (openat() and friends from "/"). */
static int live_at(const char *node_path, const char **rel)
{
	int dfd = live_root_fd();
	*rel = node_path;
	if (dfd < 0)
		return AT_FDCWD;
	while (**rel == '/')
		(*rel)++;
	if (!**rel)
		*rel = ".";
	return dfd;
}

/* openat() of a live node path relative to "/": links followed (they are
 * the kernel's), no FIFO to wait on. */
static int live_open(const char *node_path, int oflags)
{
	const char *rel;
	int dfd = live_at(node_path, &rel);
	int fd = openat(dfd, rel, oflags | O_CLOEXEC | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}

int root_open_fd(const struct fab_root *r, const char *node_path, int oflags)
{
	int e = root_recorded_errno(r, node_path);
	if (e)
		return -e;
	if (r->mem)
		return root_mem_open_fd(r, node_path, oflags);
	if (r->live)   /* the kernel's own files: no look first */
		return live_open(node_path, O_RDONLY | O_NONBLOCK | oflags);
	/* root_open() checked the whole tree: no device or FIFO was in it. */
	return beneath_open(r->dfd, node_path, O_RDONLY | O_NONBLOCK | oflags,
			    BENEATH_FILE | BENEATH_CHECKED);
}

int root_stat(const struct fab_root *r, const char *node_path, struct stat *st)
{
	if (r->mem)
		return root_mem_stat(r, node_path, st);
	if (r->live) {
		const char *rel;
		int dfd = live_at(node_path, &rel);
		return fstatat(dfd, rel, st, 0) == 0 ? 0 : -errno;
	}
	int fd = beneath_open(r->dfd, node_path, O_PATH, 0);
	if (fd < 0)
		return fd;
	int rc = fstat(fd, st) == 0 ? 0 : -errno;
	close(fd);
	return rc;
}

/* One read() where the file allows it: a short read is the end of a
 * regular file (a mirror's, a capture's), and of a sysfs attribute, whose
 * show() answers whole in the first read (at most a page). Only a live
 * sysfs read that returned whole pages may have more: kernfs gives a
 * binary attribute (config, vpd) a page per read. Live files outside /sys
 * (procfs seq_files: /proc/cpuinfo returns short reads long before its
 * end) are read to EOF. */
ssize_t root_read_fd(const struct fab_root *r, const char *node_path, int fd, char *buf,
			 size_t want, bool *full)
{
	bool to_eof = r->live && strncmp(node_path, "/sys/", 5) != 0;
	size_t got = 0;
	*full = false;
	while (got < want) {
		ssize_t n = read(fd, buf + got, want - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
		if (n == 0)
			break;
		if (got == want)
			*full = true;
		else if (!to_eof && (!r->live || n % ROOT_PAGE))
			break;
	}
	return (ssize_t)got;
}

ssize_t root_read(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	bool full;
	if (len == 0)
		return -EINVAL;
	if (r->mem) {
		ssize_t got = root_mem_read(r, node_path, buf, len);
		int e = got == 0 ? root_placeholder_errno(r, node_path) : 0;
		return e ? -e : got;
	}
	int fd = root_open_fd(r, node_path, 0);
	if (fd < 0)
		return fd;
	/* read() of a directory fails with EISDIR. */
	ssize_t got = root_read_fd(r, node_path, fd, buf, len - 1 < ROOT_MAX_FILE ? len - 1 : ROOT_MAX_FILE, &full);
	close(fd);
	if (got < 0)
		return got;
	buf[got] = '\0';
	int e = got == 0 ? root_placeholder_errno(r, node_path) : 0;
	return e ? -e : got;
}

int root_placeholder_errno(const struct fab_root *r, const char *node_path)
{
	/* A capture lists unreadable files by their real path and leaves an
	 * empty placeholder; collectors often read through class links. */
	char real[PATH_MAX];
	if (r->nunreadable && root_realpath(r, node_path, real, sizeof(real)) == 0)
		return root_recorded_errno(r, real);
	return 0;
}

int root_read_alloc(const struct fab_root *r, const char *node_path, char **buf, size_t *len)
{
	/* A sysfs file is a page: start there, and double for the fabtop/
	 * files that grow with the node. */
	size_t cap = root_file_cap(node_path), size = 0, have = ROOT_PAGE;
	char *b = NULL;
	if (r->mem)
		return root_mem_read_alloc(r, node_path, buf, len);
	*buf = NULL;
	*len = 0;
	int fd = root_open_fd(r, node_path, 0);
	if (fd < 0)
		return fd;
	for (;;) {
		if (size + 1 >= have || !b) {
			if (b)
				have *= 2;
			char *nb = realloc(b, have + 1);
			if (!nb) {
				free(b);
				close(fd);
				return -ENOMEM;
			}
			b = nb;
		}
		/* One byte past the cap tells "larger" from "exactly the cap". */
		size_t want = have - size;
		bool full;
		if (want > cap + 1 - size)
			want = cap + 1 - size;
		ssize_t n = root_read_fd(r, node_path, fd, b + size, want, &full);
		if (n < 0) {
			free(b);
			close(fd);
			return (int)n;
		}
		size += (size_t)n;
		if (size > cap) {
			free(b);
			close(fd);
			return -EFBIG;
		}
		if (!full)
			break;
	}
	close(fd);
	b[size] = '\0';
	*buf = b;
	*len = size;
	return 0;
}

json_t *root_load_json(const struct fab_root *r, const char *node_path, json_error_t *je)
{
	char *buf;
	size_t len;
	int rc = root_read_alloc(r, node_path, &buf, &len);
	if (rc < 0) {
		memset(je, 0, sizeof(*je));
		fab_strlcpy(je->source, node_path, sizeof(je->source));
		if (rc == -EFBIG)
			snprintf(je->text, sizeof(je->text), "larger than %zu bytes",
				 root_file_cap(node_path));
		else
			fab_strlcpy(je->text, root_strerror(-rc), sizeof(je->text));
		return NULL;
	}
	json_t *doc = json_loadb(buf, len, 0, je);
	free(buf);
	return doc;
}

int root_read_line(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	ssize_t n = root_read(r, node_path, buf, len);
	if (n < 0)
		return (int)n;
	if (!fab_is_text(buf, (size_t)n))
		return -EILSEQ;
	size_t l = strcspn(buf, "\n");
	buf[l] = '\0';
	while (l && (buf[l - 1] == ' ' || buf[l - 1] == '\t' || buf[l - 1] == '\r'))
		buf[--l] = '\0';
	return 0;
}

ssize_t root_readlink(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	if (len == 0)
		return -EINVAL;
	if (r->mem)
		return root_mem_readlink(r, node_path, buf, len);
	ssize_t n;
	if (r->live) {
		const char *rel;
		int dfd = live_at(node_path, &rel);
		n = readlinkat(dfd, rel, buf, len - 1);
		if (n < 0)
			return -errno;
	} else {
		/* The link itself (its folders resolved inside the root), read
		 * through an O_PATH fd: readlinkat() with an empty name. */
		int fd = beneath_open(r->dfd, node_path, O_PATH, BENEATH_NOFOLLOW);
		struct stat st;
		if (fd < 0)
			return fd;
		if (fstat(fd, &st) != 0 || !S_ISLNK(st.st_mode)) {
			close(fd);
			return -EINVAL;   /* readlink() of what is not a link */
		}
		n = readlinkat(fd, "", buf, len - 1);
		int e = errno;
		close(fd);
		if (n < 0)
			return -e;
	}
	buf[n] = '\0';
	return n;
}

int root_realpath(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	if (r->mem)
		return root_mem_realpath(r, node_path, buf, len);
	if (!r->live)
		return beneath_resolve(r->dfd, node_path, 0, buf, len);
	char res[PATH_MAX];
	if (!realpath(node_path, res))
		return -errno;
	fab_strlcpy(buf, res, len);
	return 0;
}

int root_resolve_link(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	char target[PATH_MAX], dir[PATH_MAX];
	if (len)
		buf[0] = '\0';
	ssize_t n = root_readlink(r, node_path, target, sizeof(target));
	if (n < 0)
		return n == -EINVAL ? root_realpath(r, node_path, buf, len) : (int)n;
	if (target[0] == '/')
		return root_realpath(r, node_path, buf, len);
	const char *slash = strrchr(node_path, '/');
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash ? slash - node_path : 0), node_path);
	char out[PATH_MAX];
	int rc = fab_path_fold(dir, target, out, sizeof(out));
	if (rc == -EXDEV)
		return root_realpath(r, node_path, buf, len);
	if (rc < 0)
		return rc;
	/* A missing target is named too: a dangling class link's, for its note. */
	fab_strlcpy(buf, out, len);
	return root_exists(r, out) ? 0 : -ENOENT;
}

bool root_exists(const struct fab_root *r, const char *node_path)
{
	struct stat st;
	if (root_recorded_errno(r, node_path))
		return true;
	if (r->mem)
		return root_mem_exists(r, node_path);
	if (r->live) {
		const char *rel;
		int dfd = live_at(node_path, &rel);
		return fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
	}
	int fd = beneath_open(r->dfd, node_path, O_PATH, BENEATH_NOFOLLOW);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int root_open_plain(const char *path)
{
	struct stat st, ost;
	if (stat(path, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -BENEATH_ENOTFILE;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &ost) != 0 || !S_ISREG(ost.st_mode)) {
		close(fd);
		return -BENEATH_ENOTFILE;
	}
	return fd;
}

int root_open_in(const char *dir, const char *path)
{
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	int fd = beneath_open(dfd, path, O_RDONLY | O_NONBLOCK, BENEATH_FILE | BENEATH_IN_ROOT);
	close(dfd);
	return fd;
}

int fab_natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			const char *ea = a, *eb = b;
			while (*a == '0') a++;
			while (*b == '0') b++;
			ea = a; eb = b;
			while (*ea >= '0' && *ea <= '9') ea++;
			while (*eb >= '0' && *eb <= '9') eb++;
			if (ea - a != eb - b)
				return (ea - a) < (eb - b) ? -1 : 1;
			int c = strncmp(a, b, (size_t)(ea - a));
			if (c)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static int natcmp_ptr(const void *a, const void *b)
{
	return fab_natcmp(*(char *const *)a, *(char *const *)b);
}

int root_list(const struct fab_root *r, const char *node_path, char ***names)
{
	*names = NULL;
	if (r->mem)
		return root_mem_list(r, node_path, names);
	int fd = root_open_fd(r, node_path, O_DIRECTORY);
	if (fd < 0)
		return fd;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		return -e;
	}
	int n = 0, cap = 0;
	char **v = NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nv = realloc(v, (size_t)cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		if (!(v[n] = strdup(de->d_name)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), natcmp_ptr);
	*names = v;
	return n;
}

void root_free_list(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
