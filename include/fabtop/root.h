/*
 * root.h - the one way every collector reads the node.
 *
 * A root is "/" (live), a directory that mirrors the live paths (a fixture
 * or an unpacked capture), or a capture tarball, unpacked once into a
 * private temporary directory. Collectors pass absolute node paths
 * ("/sys/class/infiniband") and never know which kind they read.
 *
 * A capture may record that a file was unreadable on the captured node
 * (fabtop/unreadable.tsv); reading it through the root then fails with the
 * recorded errno, exactly as it did live.
 *
 * Sequence: root_open() -> root_read()/root_path()/... -> root_close().
 */
#ifndef FABTOP_ROOT_H
#define FABTOP_ROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct fab_unreadable;

struct fab_root {
	char dir[4096];        /* "" for live, else the directory that mirrors "/" */
	char name[256];        /* "live", or the basename of the directory/tarball */
	bool live;
	bool is_capture;       /* has fabtop/meta.json */
	char tmpdir[4096];     /* unpacked tarball, removed by root_close() */
	char warning[512];     /* a partly readable capture: what was lost */
	struct fab_unreadable *unreadable;
	size_t nunreadable;
};

/* Largest file the root will read; sysfs files are a page, config 4 KiB. */
#define ROOT_MAX_FILE (1u << 20)

/* Opens spec ("/" or NULL for live, a directory, or a .tar.gz/.tgz file).
 * A directory or tarball with neither sys/ nor fabtop/ is not a node and
 * is refused. On failure returns -1 and writes a message naming
 * what failed to err. */
int root_open(struct fab_root *r, const char *spec, char *err, size_t errlen);
void root_close(struct fab_root *r);

/* Maps a node path to the path to open on this machine. */
const char *root_path(const struct fab_root *r, const char *node_path,
		      char *buf, size_t len);

/* Reads a whole file (at most ROOT_MAX_FILE bytes, NUL-terminated).
 * Returns bytes read, or -errno (recorded unreadable files included). */
ssize_t root_read(const struct fab_root *r, const char *node_path,
		  char *buf, size_t len);

/* Reads a one-line file with its trailing newline and spaces stripped. */
int root_read_line(const struct fab_root *r, const char *node_path,
		   char *buf, size_t len);

/* readlink() relative to the node; the result is a node path or as stored. */
ssize_t root_readlink(const struct fab_root *r, const char *node_path,
		      char *buf, size_t len);

/* realpath() inside the root: the result is a node path ("/sys/devices/..."). */
int root_realpath(const struct fab_root *r, const char *node_path,
		  char *buf, size_t len);

/* Resolves one symlink (node_path itself) to a node path with one readlink
 * and lexical ".." folding, as sysfs class and bus links allow (their own
 * parent directories are not links). Falls back to root_realpath() when the
 * result would leave the node. Much cheaper than realpath() per device. */
int root_resolve_link(const struct fab_root *r, const char *node_path,
		      char *buf, size_t len);

bool root_exists(const struct fab_root *r, const char *node_path);

/* Lists the names in a directory (no "." or ".."), sorted in natural order
 * (mlx5_2 before mlx5_10). *names is malloc'd; free with root_free_list(). */
int root_list(const struct fab_root *r, const char *node_path, char ***names);
void root_free_list(char **names, int n);

/* The recorded errno for a path a capture marked unreadable, or 0. */
int root_recorded_errno(const struct fab_root *r, const char *node_path);

/* Natural order of names with numbers ("mlx5_2" < "mlx5_10"). */
int fab_natcmp(const char *a, const char *b);

#endif
