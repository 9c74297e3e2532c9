/*
 * memtree.h - a node tree held in memory: the members of a capture.
 *
 * A capture is read once (memtree_read_archive) into an index of members by
 * node path ("/sys/class/net/eth0"), looked up by hash; the root
 * (src/root_mem.c) serves every read of it from memory, and `capture`
 * builds one and writes it out in one pass (memtree_write_archive,
 * memtree_write_dir). Nothing here touches the disk except those three.
 *
 * Paths are node paths: absolute, components separated by one '/', no "."
 * or ".." component ("/" is the root, always a directory). A member's
 * parents are directories, made implicitly when a member is added below
 * them. Links are stored as their target text and followed only by
 * memtree_resolve(), lexically within the tree: an absolute target, or ".."
 * above "/", is -EXDEV (the hostile-input rule of issue 12: nothing outside);
 * more than MT_MAX_LINKS links in one resolution is -ELOOP.
 *
 * Every function returns a status: 0 (or a count) or -errno. Not thread
 * safe for writers; any number of readers once built.
 *
 * Sequence: memtree_new() -> memtree_add_*() or memtree_read_archive() ->
 * memtree_get()/memtree_resolve()/memtree_list()/memtree_each() ->
 * memtree_free().
 */
#ifndef FABTOP_MEMTREE_H
#define FABTOP_MEMTREE_H

#include <stddef.h>

/* The kernel's MAXSYMLINKS, as beneath.h. */
#define MT_MAX_LINKS 40
/* Components walked in one resolution, links' targets included (-ELOOP
 * past it), and the longest path a walk may hold (-ENAMETOOLONG): a link
 * is never more than PATH_MAX, but forty of them could be walked again
 * and again, each full of "d/..". */
#define MT_MAX_STEPS 4096
#define MT_MAX_WALK (2 * 4096)

/* memtree_resolve(): a link as the last component is not followed. */
#define MT_NOFOLLOW 0x1

struct memtree;

enum mt_type { MT_FILE, MT_DIR, MT_LINK };

struct mt_node {
	enum mt_type type;
	unsigned mode;             /* permission bits as stored (07777) */
	const char *name;          /* last component; "" for the root */
	const char *data;          /* MT_FILE: its bytes, NUL-terminated copy */
	size_t size;
	const char *target;        /* MT_LINK: the target as stored */
	const char *path;          /* the node path ("/" for the root) */
	const struct mt_node *parent;   /* NULL for the root */
	/* private to memtree.c */
	struct mt_node *hnext;
	size_t hash;
	struct mt_node **kids;
	size_t nkids, capkids;
};

struct memtree *memtree_new(void);
void memtree_free(struct memtree *t);

/* Adds a file (its bytes copied), replacing a file already there: 0, or
 * -EEXIST (a directory or link is there, or a parent is not a directory),
 * -EINVAL (not a node path: relative, "." or ".." or an empty component),
 * -ENOMEM. */
int memtree_add_file(struct memtree *t, const char *path, const void *data, size_t len,
		     unsigned mode);
/* Adds a directory; one already there gets mode. Errors as above. */
int memtree_add_dir(struct memtree *t, const char *path, unsigned mode);
/* Adds a link with the target as given (never checked here), replacing a
 * link already there. Errors as above. */
int memtree_add_link(struct memtree *t, const char *path, const char *target);

/* The node at path, no link followed; NULL when there is none. "//" and
 * "." components and a trailing '/' are taken as the kernel would. */
const struct mt_node *memtree_get(const struct memtree *t, const char *path);

/* Resolves path (from "/"; relative means the same), following links
 * lexically within the tree (the last one too unless MT_NOFOLLOW). *out is
 * the node; where (when not NULL) gets its node path. -ENOENT (where gets
 * the path as far as it was resolved, the missing rest folded lexically
 * by fab_path_fold(); "" when that rest climbs above "/" or does not fit),
 * -ENOTDIR, -EXDEV (an absolute target, or ".." above "/"), -ELOOP, or
 * -ENAMETOOLONG when where is too short. */
int memtree_resolve(const struct memtree *t, const char *path, int flags,
		    const struct mt_node **out, char *where, size_t wlen);

/* The children of dir in natural order (fab_natcmp: mlx5_2 before
 * mlx5_10), as a malloc'd array (free() it) in *kids: their count, or
 * -ENOTDIR, -ENOMEM. */
int memtree_list(const struct memtree *t, const struct mt_node *dir,
		 const struct mt_node ***kids);

/* Members (every node but the root) and the bytes of their files. */
size_t memtree_count(const struct memtree *t);
unsigned long long memtree_bytes(const struct memtree *t);

/* Calls fn for every member, parents before children, the children of a
 * directory in byte order of their names: archive order. Stops at fn's
 * first non-zero return and returns it; 0 at the end. */
int memtree_each(const struct memtree *t,
		 int (*fn)(const char *path, const struct mt_node *n, void *arg), void *arg);

/* Checks every link once the tree is complete: links that each stay inside
 * can still lead out together ("b -> .." and "a -> b/.."). The links of a
 * directory are checked before what its subdirectories hold. 0, or the
 * first offender's -EXDEV or -ELOOP with its path (no leading '/') in bad;
 * a dangling link is no offender. */
int memtree_check_links(const struct memtree *t, char *bad, size_t badlen);

/* Reads a capture (a tar, gzip'ed or not) from fd in one libarchive pass;
 * name is what messages call it. Refuses absolute member names, ".."
 * components, names of PATH_MAX bytes or more (never cut), hard links,
 * links that lead outside the capture (each by its text, and all together
 * by memtree_check_links()), and the whole capture past the caps of
 * fabtop/root.h: root_file_cap() per member, root_max_bytes() and
 * root_max_entries() in all. FIFOs and devices are skipped. When every
 * member lies under one folder, that folder's name goes to top and the
 * members are stored without it; else top is "". Returns 0; 1 when the
 * archive breaks after some members (err says where, what came before is
 * kept); -1 with err set when it is refused or unreadable. */
int memtree_read_archive(struct memtree *t, int fd, const char *name, char *top, size_t toplen,
			 char *err, size_t errlen);

/* Writes the tree as a capture to fd (left open; name is what messages
 * call it): a gzip'ed pax tar whose members are top/..., the top folder,
 * fabtop/, fabtop/meta.json and fabtop/report.json first (a reader of the
 * head finds the node's report without reading the rest), then the rest in
 * memtree_each() order; owned by 0:0 without names, every time mtime, no
 * time in the gzip header: the same tree gives the same bytes. 0 or -1
 * with err set. */
int memtree_write_archive(const struct memtree *t, const char *top, int fd, const char *name,
			  long long mtime, char *err, size_t errlen);

/* Writes the tree under dir (made when missing; what is there is never
 * replaced, links are never followed): 0, or -1 with err set. */
int memtree_write_dir(const struct memtree *t, const char *dir, char *err, size_t errlen);

#endif
