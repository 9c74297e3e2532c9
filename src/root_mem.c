/* root_mem.c - a capture root served from memory (root_mem.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fabtop/root.h"
#include "fabtop/util.h"
#include "memtree.h"
#include "root_mem.h"

int root_mem_load(struct fab_root *r, const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open capture %s: %s", path, strerror(errno));
		return -1;
	}
	struct memtree *t = memtree_new();
	if (!t) {
		close(fd);
		snprintf(err, errlen, "cannot read capture %s: out of memory", path);
		return -1;
	}
	char top[256];
	int rc = memtree_read_archive(t, fd, path, top, sizeof(top), err, errlen);
	close(fd);
	if (rc < 0) {
		memtree_free(t);
		return -1;
	}
	r->mem = t;
	return rc;
}

/* The node at node_path, links followed (or not): 0 or -errno. */
static int node(const struct fab_root *r, const char *node_path, int flags,
		const struct mt_node **n)
{
	return memtree_resolve(r->mem, node_path, flags, n, NULL, 0);
}

int root_mem_open_fd(const struct fab_root *r, const char *node_path, int oflags)
{
	const struct mt_node *n;
	int rc = node(r, node_path, oflags & O_NOFOLLOW ? MT_NOFOLLOW : 0, &n);
	if (rc < 0)
		return rc;
	if (n->type == MT_LINK)
		return -ELOOP;                  /* O_NOFOLLOW on a link, as open() */
	if (n->type == MT_DIR)
		return oflags & O_DIRECTORY ? -ENOTSUP : -EISDIR;
	if (oflags & O_DIRECTORY)
		return -ENOTDIR;
	/* An fd for readers that keep one (the sampler, pread): the bytes in
	 * anonymous memory, never on a disk. */
	int fd = memfd_create("fabtop-root", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (size_t off = 0; off < n->size; ) {
		ssize_t w = write(fd, n->data + off, n->size - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			close(fd);
			return -e;
		}
		off += (size_t)w;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

int root_mem_stat(const struct fab_root *r, const char *node_path, struct stat *st)
{
	const struct mt_node *n;
	int rc = node(r, node_path, 0, &n);
	if (rc < 0)
		return rc;
	memset(st, 0, sizeof(*st));
	/* The modes an unpacked capture had (readable by us, whatever the
	 * capture says); the node is its own inode while the root is open. */
	st->st_mode = n->type == MT_DIR ? S_IFDIR | 0755 : S_IFREG | 0644;
	st->st_nlink = n->type == MT_DIR ? 2 : 1;
	st->st_size = (off_t)n->size;
	st->st_ino = (ino_t)(uintptr_t)n;
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)((n->size + 511) / 512);
	return 0;
}

/* The file at node_path (links followed), after the recorded errno. */
static int file(const struct fab_root *r, const char *node_path, const struct mt_node **n)
{
	int e = root_recorded_errno(r, node_path);
	if (e)
		return -e;
	int rc = node(r, node_path, 0, n);
	if (rc < 0)
		return rc;
	return (*n)->type == MT_DIR ? -EISDIR : 0;
}

ssize_t root_mem_read(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	const struct mt_node *n;
	int rc = file(r, node_path, &n);
	if (rc < 0)
		return rc;
	size_t got = n->size;
	if (got > len - 1)
		got = len - 1;
	if (got > ROOT_MAX_FILE)
		got = ROOT_MAX_FILE;
	memcpy(buf, n->data, got);
	buf[got] = '\0';
	return (ssize_t)got;
}

int root_mem_read_alloc(const struct fab_root *r, const char *node_path, char **buf, size_t *len)
{
	const struct mt_node *n;
	*buf = NULL;
	*len = 0;
	int rc = file(r, node_path, &n);
	if (rc < 0)
		return rc;
	if (n->size > root_file_cap(node_path))
		return -EFBIG;
	char *b = malloc(n->size + 1);
	if (!b)
		return -ENOMEM;
	memcpy(b, n->data, n->size + 1);   /* the tree keeps a NUL after the bytes */
	*buf = b;
	*len = n->size;
	return 0;
}

ssize_t root_mem_readlink(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	const struct mt_node *n;
	int rc = node(r, node_path, MT_NOFOLLOW, &n);
	if (rc < 0)
		return rc;
	if (n->type != MT_LINK)
		return -EINVAL;    /* readlink() of what is not a link */
	size_t l = strlen(n->target);
	if (l > len - 1)
		l = len - 1;       /* cut, as readlink() cuts */
	memcpy(buf, n->target, l);
	buf[l] = '\0';
	return (ssize_t)l;
}

int root_mem_realpath(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	const struct mt_node *n;
	return memtree_resolve(r->mem, node_path, 0, &n, buf, len);
}

bool root_mem_exists(const struct fab_root *r, const char *node_path)
{
	const struct mt_node *n;
	return node(r, node_path, MT_NOFOLLOW, &n) == 0;
}

int root_mem_list(const struct fab_root *r, const char *node_path, char ***names)
{
	const struct mt_node *n, **kids;
	*names = NULL;
	int e = root_recorded_errno(r, node_path);
	if (e)
		return -e;
	int rc = node(r, node_path, 0, &n);
	if (rc < 0)
		return rc;
	int k = memtree_list(r->mem, n, &kids);
	if (k <= 0)
		return k;
	char **v = calloc((size_t)k, sizeof(*v));
	if (!v) {
		free(kids);
		return -ENOMEM;
	}
	int i;
	for (i = 0; i < k; i++)
		if (!(v[i] = strdup(kids[i]->name)))
			break;      /* what fitted, as root_list() keeps what it read */
	free(kids);
	if (i == 0) {
		free(v);
		return -ENOMEM;
	}
	*names = v;
	return i;
}
