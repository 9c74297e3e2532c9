/* capture_out.c - where a capture's members go (one tree in memory,
 * written out at the end by capture.c) and how it reads the source node;
 * shared by every part of the capture. */
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
#include "memtree.h"
#include "fabtop/util.h"

volatile sig_atomic_t cap_signal_seen;

void cap_fatal(struct cap *c, const char *fmt, ...)
{
	if (c->err[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
}

/* True (and the capture fails) once a signal asked to stop. */
bool cap_stopped(struct cap *c)
{
	if (cap_signal_seen)
		cap_fatal(c, "interrupted by %s", strsignal(cap_signal_seen));
	return c->err[0] != '\0';
}

/* ---- the -o folder ---- */

/* mkdir -p: tries the folder itself first, its parents only when missing. */
int cap_mkdir_p(char *path, mode_t mode)
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
	int rc = cap_mkdir_p(path, mode);
	*slash = '/';
	if (rc != 0)
		return -1;
	return mkdir(path, mode) == 0 || errno == EEXIST ? 0 : -1;
}

/* ---- the capture's members, in memory ---- */

/* The caps a reader of the capture applies (root.h): past them it would
 * be refused when opened, and the memory it holds is bounded by them. */
static int out_checked(struct cap *c, const char *node_path, int rc)
{
	if (rc < 0) {
		cap_fatal(c, "cannot add %s to the capture: %s", node_path,
			  rc == -EEXIST ? "a folder, link or file is there already" : strerror(-rc));
		return -1;
	}
	if (memtree_bytes(c->mt) > root_max_bytes()) {
		cap_fatal(c, "the capture would hold more than %llu bytes "
			  "(FABTOP_CAPTURE_MAX_BYTES), which a reader refuses", root_max_bytes());
		return -1;
	}
	if (memtree_count(c->mt) > root_max_entries()) {
		cap_fatal(c, "the capture would hold more than %zu members "
			  "(FABTOP_CAPTURE_MAX_MEMBERS), which a reader refuses", root_max_entries());
		return -1;
	}
	return 0;
}

int cap_out_dir(struct cap *c, const char *node_dir)
{
	return out_checked(c, node_dir, memtree_add_dir(c->mt, node_dir, 0755));
}

int cap_out_write(struct cap *c, const char *node_path, const char *data, size_t len)
{
	/* What a reader would refuse is not written: the capture must open. */
	if (len > root_file_cap(node_path)) {
		cap_fatal(c, "%s would be %zu bytes, over the format's %zu for it "
			  "(docs/capture-format.md)", node_path, len, root_file_cap(node_path));
		return -1;
	}
	if (out_checked(c, node_path, memtree_add_file(c->mt, node_path, data, len, 0644)) != 0)
		return -1;
	c->bytes += (long long)len;
	return 0;
}

int cap_out_link(struct cap *c, const char *node_path, const char *target)
{
	int rc = memtree_add_link(c->mt, node_path, target);
	/* A folder or file made there first (a driver's folder) is kept. */
	return out_checked(c, node_path, rc == -EEXIST ? 0 : rc);
}

int cap_out_json(struct cap *c, const char *node_path, json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(2));
	if (!s) {
		cap_fatal(c, "cannot encode %s", node_path);
		return -1;
	}
	size_t n = strlen(s);
	s[n] = '\n';   /* the NUL's byte becomes the final newline */
	int rc = cap_out_write(c, node_path, s, n + 1);
	free(s);
	return rc;
}

void cap_record_unreadable(struct cap *c, const char *node_path, int e)
{
	fprintf(c->unreadable, "%s\t%d\t%s\n", node_path, e, strerror(e));
	c->nunreadable++;
}

/* ---- reading the source ---- */

ssize_t cap_src_read(struct cap *c, const char *node_path, char *buf, size_t len)
{
	char tmp[ROOT_PAGE + 1];
	if (len < 1 || len > ROOT_PAGE)
		return -EINVAL;
	ssize_t n = root_read(&c->src, node_path, tmp, sizeof(tmp));
	if (n < 0)
		return n;
	size_t k = (size_t)n < len - 1 ? (size_t)n : len - 1;
	memcpy(buf, tmp, k);
	buf[k] = '\0';
	return (size_t)n > len - 1 ? (ssize_t)len : n;
}

int cap_dir_open(struct cap *c, struct cap_dir *d, const char *node_dir)
{
	struct stat st;
	d->node = node_dir;
	d->fd = -1;
	if (c->src.mem) {
		char t[8];
		if (root_readlink(&c->src, node_dir, t, sizeof(t)) >= 0)
			return -ELOOP;   /* as O_NOFOLLOW says of a link */
		int rc = root_stat(&c->src, node_dir, &st);
		return rc < 0 ? rc : S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	}
	int fd = root_open_fd(&c->src, node_dir, O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0)
		return fd;
	d->fd = fd;
	return 0;
}

void cap_dir_close(struct cap_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

int cap_dir_lstat(struct cap *c, const struct cap_dir *d, const char *name, struct stat *st,
		  char *target, size_t tlen)
{
	char node[PATH_MAX];
	ssize_t n;
	if (d->fd >= 0) {
		if (fstatat(d->fd, name, st, AT_SYMLINK_NOFOLLOW) != 0)
			return -errno;
		if (!S_ISLNK(st->st_mode))
			return 0;
		n = readlinkat(d->fd, name, target, tlen - 1);
		if (n < 0)
			return -errno;
		target[n] = '\0';
		return 0;
	}
	/* In memory: a link reads, anything else is EINVAL; then what it is. */
	snprintf(node, sizeof(node), "%s/%s", d->node, name);
	n = root_readlink(&c->src, node, target, tlen);
	if (n >= 0) {
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFLNK | 0777;
		return 0;
	}
	return n != -EINVAL ? (int)n : root_stat(&c->src, node, st);
}

ssize_t cap_dir_file(struct cap *c, const struct cap_dir *d, const char *name,
		     const struct stat *st, char *buf, size_t max)
{
	char node[PATH_MAX];
	snprintf(node, sizeof(node), "%s/%s", d->node, name);
	if (d->fd >= 0) {
		int fd = openat(d->fd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
		struct stat fst;
		if (fd < 0)
			return -errno;
		/* Swapped for something else since it was looked at: not read. */
		if (fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
			close(fd);
			return -ENOENT;
		}
		bool full;
		ssize_t n = root_read_fd(&c->src, node, fd, buf, max + 1, &full);
		close(fd);
		if (n >= 0)
			buf[n] = '\0';
		return n;
	}
	/* A capture's file in memory: its size is known, one copy reads it. */
	if (st->st_size > (off_t)max)
		return (ssize_t)max + 1;
	return root_read(&c->src, node, buf, max + 1);
}
