/*
 * root.h - the one way every collector reads the node.
 *
 * A root is "/" (live), a directory that mirrors the live paths (a fixture
 * or a capture written with `capture -o dir/`), or a capture tarball, read
 * once into memory (src/memtree.h: an index of its members; nothing is
 * unpacked, no temporary directory is made). Collectors pass absolute node
 * paths ("/sys/class/infiniband") and never know which kind they read.
 *
 * Reads never leave the root. Every read of a mirror resolves beneath the
 * root's directory fd (src/beneath.h: openat2 RESOLVE_BENEATH, or a walk
 * that follows links itself with the same rules); every read of a capture
 * resolves its links lexically within its members (src/root_mem.c). Either
 * way a link that leads out of it reads as EXDEV, whatever the depth. Only
 * regular files and directories are read: root_open() checks the whole
 * tree once (every link stays inside, no FIFO, device or socket, at most
 * root_max_entries() entries) and refuses the root otherwise: a mirror
 * because hwloc and libpci read the paths of root_path() themselves, a
 * capture as it always was refused. A mirror's file is then opened at once
 * (O_NONBLOCK) and refused after fstat() unless it is a regular file or a
 * directory: a FIFO made since does not wait and a socket does not open;
 * only root could put a device there after the check (beneath.h
 * BENEATH_CHECKED). The live root reads the real files,
 * sysfs links followed: they are the kernel's.
 *
 * A capture tarball is read with caps (root_file_cap() per member,
 * root_max_bytes() and root_max_entries() in all; see
 * docs/capture-format.md).
 *
 * A capture may record that a file was unreadable on the captured node
 * (fabtop/unreadable.tsv); reading it through the root then fails with the
 * recorded errno, exactly as it did live.
 *
 * Sequence: root_open() (or root_open_memtree()) -> root_read()/
 * root_open_fd()/root_list()/... -> root_close().
 */
#ifndef FABTOP_ROOT_H
#define FABTOP_ROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct fab_unreadable;
struct memtree;
struct json_t;
struct json_error_t;

struct fab_root {
	char dir[4096];        /* the directory that mirrors "/"; "" for live and memory */
	char name[256];        /* "live", or the basename of the directory/tarball */
	bool live;
	bool is_capture;       /* has fabtop/meta.json */
	struct memtree *mem;   /* a capture read into memory: every read is served from it */
	char warning[512];     /* a partly readable capture: what was lost */
	int dfd;               /* dir, opened by root_open(): reads resolve beneath it; -1 for memory */
	struct fab_unreadable *unreadable;
	size_t nunreadable;
};

/* Largest file the root will read unless root_file_cap() names it: the
 * format's promise (sysfs files are a page, config space 4 KiB). */
#define ROOT_MAX_FILE (1u << 20)

/* What a sysfs attribute holds at most (show() writes one page), and the
 * unit kernfs and procfs hand out per read() of larger files: the reads
 * size their first buffer by it. */
#define ROOT_PAGE 4096

/* Largest size of the file at node_path: ROOT_MAX_FILE, or more for the
 * fabtop/ files that grow with the node (hwloc.xml, samples.json, ...). */
size_t root_file_cap(const char *node_path);
/* Most bytes a capture may unpack to, and most entries a root may hold:
 * the defaults, or FABTOP_CAPTURE_MAX_BYTES / FABTOP_CAPTURE_MAX_MEMBERS
 * when set to a positive number. */
unsigned long long root_max_bytes(void);
size_t root_max_entries(void);

/* Opens spec ("/" or NULL for live, a directory, or a .tar.gz/.tgz file).
 * A directory or tarball with neither sys/ nor fabtop/ is not a node and
 * is refused. On failure returns -1 and writes a message naming
 * what failed to err. */
int root_open(struct fab_root *r, const char *spec, char *err, size_t errlen);
/* Opens a root served from the tree t, which the root now owns (freed by
 * root_close(), or here on failure); name names it ("live" is not one).
 * For a capture's own report, made before the capture is written. */
int root_open_memtree(struct fab_root *r, struct memtree *t, const char *name,
		      char *err, size_t errlen);
void root_close(struct fab_root *r);
/* The name root_open() gives the root of spec (its fab_root.name): the
 * base name without .tar.gz or .tgz. */
void root_name_of(const char *spec, char *out, size_t len);

/* Opens node_path for reading: O_RDONLY | O_NONBLOCK | O_CLOEXEC, plus
 * O_DIRECTORY when asked. Returns the fd or -errno: the recorded errno of an
 * unreadable file, -EXDEV for a link leading out of the root, and, in a
 * mirror, an errno root_strerror() words for a FIFO, device or socket. In
 * memory a file's fd is a memfd holding its bytes, and a directory has none
 * (-ENOTSUP with O_DIRECTORY, -EISDIR without): list it with root_list(). */
int root_open_fd(const struct fab_root *r, const char *node_path, int oflags);

/* stat() of node_path, links followed inside the root; 0 or -errno. */
int root_stat(const struct fab_root *r, const char *node_path, struct stat *st);

/* Reads a whole file (at most ROOT_MAX_FILE bytes, NUL-terminated), with
 * one read() when it fits in buf: a short read is the end (a regular
 * file's, a sysfs attribute's); only a live read of whole pages reads on.
 * Live reads are openat() from a directory fd of "/", mirror reads
 * resolve beneath the root's fd. A file larger than buf is cut at len - 1.
 * Returns bytes read, or -errno (recorded unreadable files included). */
ssize_t root_read(const struct fab_root *r, const char *node_path,
		  char *buf, size_t len);

/* Reads an open file of r (node_path, opened by the caller) into buf, at
 * most want bytes, by root_read()'s rule of where a file ends. Not
 * NUL-terminated; *full says the buffer filled (there may be more).
 * Returns the count or -errno. */
ssize_t root_read_fd(const struct fab_root *r, const char *node_path, int fd, char *buf,
		     size_t want, bool *full);

/* Reads a whole file of at most root_file_cap(node_path) bytes into a
 * malloc'd, NUL-terminated *buf; 0, or -errno (-EFBIG when it is larger). */
int root_read_alloc(const struct fab_root *r, const char *node_path,
		    char **buf, size_t *len);

/* Loads a JSON file through root_read_alloc(). NULL on failure, with je
 * saying why: jansson's line and text, or line 0 and why it was not read. */
struct json_t *root_load_json(const struct fab_root *r, const char *node_path,
			      struct json_error_t *je);

/* Reads a one-line file with its trailing newline and spaces stripped. */
int root_read_line(const struct fab_root *r, const char *node_path,
		   char *buf, size_t len);

/* strerror(), with the root's own meanings: EXDEV is a link that leads out
 * of the root, and a FIFO, device or socket is not a file to read. */
const char *root_strerror(int e);

/* readlink() relative to the node; the result is a node path or as stored. */
ssize_t root_readlink(const struct fab_root *r, const char *node_path,
		      char *buf, size_t len);

/* realpath() inside the root: the result is a node path ("/sys/devices/...");
 * -EXDEV when it would leave the root. */
int root_realpath(const struct fab_root *r, const char *node_path,
		  char *buf, size_t len);

/* Resolves one symlink (node_path itself) to a node path with one readlink
 * and lexical ".." folding, as sysfs class and bus links allow (their own
 * parent directories are not links). Falls back to root_realpath() when the
 * result would leave the node. Much cheaper than realpath() per device.
 * -ENOENT with buf set names a link's missing target (a dangling link);
 * with buf "" the link itself is missing. */
int root_resolve_link(const struct fab_root *r, const char *node_path,
		      char *buf, size_t len);

/* lstat() succeeds (or the capture recorded the file as unreadable). */
bool root_exists(const struct fab_root *r, const char *node_path);

/* Lists the names in a directory (no "." or ".."), sorted in natural order
 * (mlx5_2 before mlx5_10). *names is malloc'd; free with root_free_list(). */
int root_list(const struct fab_root *r, const char *node_path, char ***names);
void root_free_list(char **names, int n);

/* The recorded errno for a path a capture marked unreadable, or 0. */
int root_recorded_errno(const struct fab_root *r, const char *node_path);

/* The host path of a node path. Only for libraries that open paths
 * themselves (hwloc's HWLOC_FSROOT, libpci's sysfs directory); root_open()
 * checked the tree they read. fabtop's own reads use the functions above.
 * NULL for a root in memory, which has no host path. */
const char *root_path(const struct fab_root *r, const char *node_path,
		      char *buf, size_t len);

/* Opens a data file of this machine that is not part of a root (the
 * scenario index) as root_open_fd() opens one: never blocks on a FIFO,
 * never opens a device. Returns the fd or -errno. */
int root_open_plain(const char *path);

/* Opens path for reading as a process whose root directory is dir
 * ("/proc/PID/root") sees it: links resolved inside dir as in a chroot
 * (RESOLVE_IN_ROOT), never a FIFO, device or socket. The fd, or -errno. */
int root_open_in(const char *dir, const char *path);

/* Natural order of names with numbers ("mlx5_2" < "mlx5_10"). */
int fab_natcmp(const char *a, const char *b);

#endif
