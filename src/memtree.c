/* memtree.c - a node tree in memory: the members of a capture (memtree.h). */
#define _GNU_SOURCE
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabtop/root.h"
#include "fabtop/util.h"
#include "memtree.h"

struct memtree {
	struct mt_node *root;
	struct mt_node **buckets;
	size_t nbuckets;
	size_t count;                 /* nodes but the root */
	unsigned long long bytes;     /* of the files */
};

/* ---- hashing: FNV-1a over the node path, so that a child's hash follows
 * from its parent's ("/x" then "/a" gives "/x/a"); the root is the basis ---- */

#define FNV_BASIS 14695981039346656037ull
#define FNV_PRIME 1099511628211ull

static size_t fnv(size_t h, const char *s, size_t n)
{
	uint64_t x = h;
	for (size_t i = 0; i < n; i++) {
		x ^= (unsigned char)s[i];
		x *= FNV_PRIME;
	}
	return (size_t)x;
}

static size_t child_hash(const struct mt_node *parent, const char *name, size_t n)
{
	return fnv(fnv(parent->hash, "/", 1), name, n);
}

static void bucket_put(struct memtree *t, struct mt_node *n)
{
	size_t b = n->hash & (t->nbuckets - 1);
	n->hnext = t->buckets[b];
	t->buckets[b] = n;
}

/* Puts every node below n into the buckets again (after a resize or a lift). */
static void rehash_below(struct memtree *t, struct mt_node *n)
{
	for (size_t i = 0; i < n->nkids; i++) {
		bucket_put(t, n->kids[i]);
		rehash_below(t, n->kids[i]);
	}
}

static int grow(struct memtree *t)
{
	size_t nb = t->nbuckets ? 2 * t->nbuckets : 1024;
	struct mt_node **b = calloc(nb, sizeof(*b));
	if (!b)
		return -ENOMEM;
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = nb;
	rehash_below(t, t->root);
	return 0;
}

/* The child name (n bytes) of parent, or NULL. */
static struct mt_node *child_of(const struct memtree *t, const struct mt_node *parent,
				const char *name, size_t n)
{
	size_t h = child_hash(parent, name, n);
	for (struct mt_node *c = t->buckets[h & (t->nbuckets - 1)]; c; c = c->hnext)
		if (c->hash == h && c->parent == parent && strncmp(c->name, name, n) == 0 &&
		    c->name[n] == '\0')
			return c;
	return NULL;
}

/* The node at a canonical path of len bytes, or NULL. */
static struct mt_node *lookup(const struct memtree *t, const char *path, size_t len)
{
	if (len == 0 || (len == 1 && path[0] == '/'))
		return t->root;
	size_t h = fnv(FNV_BASIS, path, len);
	for (struct mt_node *c = t->buckets[h & (t->nbuckets - 1)]; c; c = c->hnext)
		if (c->hash == h && strncmp(c->path, path, len) == 0 && c->path[len] == '\0')
			return c;
	return NULL;
}

/* ---- building ---- */

struct memtree *memtree_new(void)
{
	struct memtree *t = calloc(1, sizeof(*t));
	struct mt_node *r = calloc(1, sizeof(*r) + 2);
	if (!t || !r) {
		free(t);
		free(r);
		return NULL;
	}
	char *p = (char *)(r + 1);
	p[0] = '/';
	r->type = MT_DIR;
	r->mode = 0755;
	r->path = p;
	r->name = p + 1;      /* "" */
	r->hash = FNV_BASIS;
	t->root = r;
	if (grow(t) != 0) {
		free(r);
		free(t);
		return NULL;
	}
	return t;
}

static void free_below(struct mt_node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		free_below(n->kids[i]);
	free(n->kids);
	free((char *)n->data);
	free((char *)n->target);
	free(n);
}

void memtree_free(struct memtree *t)
{
	if (!t)
		return;
	free_below(t->root);
	free(t->buckets);
	free(t);
}

/* A node path: absolute, no empty, "." or ".." component, no trailing '/'. */
static bool node_path_ok(const char *p)
{
	if (!p || p[0] != '/' || !p[1])
		return false;
	for (const char *c = p + 1;; ) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += n;
		if (!*c)
			return true;
		c++;
	}
}

static struct mt_node *new_node(struct memtree *t, struct mt_node *parent, const char *path,
				size_t len, enum mt_type type, unsigned mode)
{
	if (t->count + 1 > t->nbuckets && grow(t) != 0)
		return NULL;
	if (parent->nkids == parent->capkids) {
		size_t cap = parent->capkids ? 2 * parent->capkids : 4;
		struct mt_node **k = realloc(parent->kids, cap * sizeof(*k));
		if (!k)
			return NULL;
		parent->kids = k;
		parent->capkids = cap;
	}
	struct mt_node *n = calloc(1, sizeof(*n) + len + 1);
	if (!n)
		return NULL;
	char *p = (char *)(n + 1);
	memcpy(p, path, len);
	p[len] = '\0';
	n->path = p;
	n->name = strrchr(p, '/') + 1;
	n->type = type;
	n->mode = mode & 07777;
	n->parent = parent;
	n->hash = child_hash(parent, n->name, strlen(n->name));
	n->data = n->target = NULL;
	parent->kids[parent->nkids++] = n;
	bucket_put(t, n);
	t->count++;
	return n;
}

/* The directory at path[0..len), made (with its parents) when missing. */
static int dir_at(struct memtree *t, const char *path, size_t len, struct mt_node **out)
{
	struct mt_node *n = lookup(t, path, len);
	if (n) {
		*out = n;
		return n->type == MT_DIR ? 0 : -EEXIST;
	}
	size_t pl = len;
	while (pl > 0 && path[pl - 1] != '/')
		pl--;
	struct mt_node *parent;
	int rc = dir_at(t, path, pl > 1 ? pl - 1 : 0, &parent);
	if (rc < 0)
		return rc;
	if (!(n = new_node(t, parent, path, len, MT_DIR, 0755)))
		return -ENOMEM;
	*out = n;
	return 0;
}

/* The node at path (made as type when missing, with its parents), or the
 * one there of the same type; -EEXIST when one of another type is there. */
static int node_at(struct memtree *t, const char *path, enum mt_type type, unsigned mode,
		   struct mt_node **out)
{
	if (!node_path_ok(path))
		return strcmp(path ? path : "", "/") == 0 && type == MT_DIR ?
		       (*out = t->root, 0) : -EINVAL;
	size_t len = strlen(path);
	struct mt_node *n = lookup(t, path, len);
	if (n) {
		*out = n;
		return n->type == type ? 0 : -EEXIST;
	}
	const char *slash = strrchr(path, '/');
	struct mt_node *parent;
	int rc = dir_at(t, path, (size_t)(slash - path), &parent);
	if (rc < 0)
		return rc;
	if (!(n = new_node(t, parent, path, len, type, mode)))
		return -ENOMEM;
	*out = n;
	return 0;
}

/* Adds a file taking data (malloc'd, size + 1 bytes, NUL-terminated). */
static int put_file(struct memtree *t, const char *path, char *data, size_t len, unsigned mode)
{
	struct mt_node *n;
	int rc = node_at(t, path, MT_FILE, mode, &n);
	if (rc < 0)
		return rc;
	if (n->data) {
		t->bytes -= n->size;
		free((char *)n->data);
	}
	n->data = data;
	n->size = len;
	n->mode = mode & 07777;
	t->bytes += len;
	return 0;
}

int memtree_add_file(struct memtree *t, const char *path, const void *data, size_t len,
		     unsigned mode)
{
	char *copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	int rc = put_file(t, path, copy, len, mode);
	if (rc < 0)
		free(copy);
	return rc;
}

int memtree_add_dir(struct memtree *t, const char *path, unsigned mode)
{
	struct mt_node *n;
	int rc = node_at(t, path, MT_DIR, mode, &n);
	if (rc == 0)
		n->mode = mode & 07777;
	return rc;
}

int memtree_add_link(struct memtree *t, const char *path, const char *target)
{
	struct mt_node *n;
	size_t tl = strlen(target);
	char *copy = malloc(tl + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, target, tl + 1);
	int rc = node_at(t, path, MT_LINK, 0777, &n);
	if (rc < 0) {
		free(copy);
		return rc;
	}
	free((char *)n->target);
	n->target = copy;
	return 0;
}

/* ---- reading ---- */

const struct mt_node *memtree_get(const struct memtree *t, const char *path)
{
	if (!path)
		return NULL;
	if (node_path_ok(path) || strcmp(path, "/") == 0)
		return lookup(t, path, strlen(path));
	/* The slow way: "//", "." and a trailing '/' dropped; ".." would
	 * need links followed (memtree_resolve). */
	const struct mt_node *cur = t->root;
	for (const char *c = path; *c; ) {
		while (*c == '/')
			c++;
		size_t n = strcspn(c, "/");
		if (n == 0)
			break;
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return NULL;
		if (!(n == 1 && c[0] == '.')) {
			if (cur->type != MT_DIR || !(cur = child_of(t, cur, c, n)))
				return NULL;
		}
		c += n;
	}
	return cur;
}

int memtree_resolve(const struct memtree *t, const char *path, int flags,
		    const struct mt_node **out, char *where, size_t wlen)
{
	const struct mt_node *cur = t->root;
	char *buf = strdup(path ? path : "");
	int links = 0, steps = 0, rc = 0;
	if (!buf)
		return -ENOMEM;
	/* A trailing '/' asks for a directory, and follows a last link. */
	size_t pl = strlen(buf);
	bool want_dir = pl > 0 && buf[pl - 1] == '/';
	const char *rest = buf;
	for (;;) {
		while (*rest == '/')
			rest++;
		if (!*rest)
			break;
		const char *comp = rest;
		size_t n = strcspn(rest, "/");
		rest += n;
		const char *after = rest;
		while (*after == '/')
			after++;
		bool last = !*after;
		/* Links are few, but each may hold thousands of "d/.." steps:
		 * the walk as a whole is bounded, not only its links. */
		if (++steps > MT_MAX_STEPS) {
			rc = -ELOOP;
			break;
		}
		if (cur->type != MT_DIR) {
			rc = -ENOTDIR;
			break;
		}
		if (n == 1 && comp[0] == '.')
			continue;
		if (n == 2 && comp[0] == '.' && comp[1] == '.') {
			if (!cur->parent) {
				rc = -EXDEV;
				break;
			}
			cur = cur->parent;
			continue;
		}
		const struct mt_node *c = child_of(t, cur, comp, n);
		if (!c) {
			/* where names the missing component and what follows it */
			rc = -ENOENT;
			if (where && wlen && fab_path_fold(cur->path, comp, where, wlen) != 0)
				where[0] = '\0';
			break;
		}
		if (c->type == MT_LINK && (!last || want_dir || !(flags & MT_NOFOLLOW))) {
			if (++links > MT_MAX_LINKS) {
				rc = -ELOOP;
				break;
			}
			if (c->target[0] == '/') {
				rc = -EXDEV;
				break;
			}
			if (!c->target[0]) {
				rc = -ENOENT;
				break;
			}
			/* Go on from the link's folder with its target, then the rest. */
			size_t tl = strlen(c->target), rl = strlen(rest);
			if (tl + rl + 2 > MT_MAX_WALK) {
				rc = -ENAMETOOLONG;
				break;
			}
			char *nb = malloc(tl + rl + 2);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			memcpy(nb, c->target, tl);
			nb[tl] = '/';
			memcpy(nb + tl + 1, rest, rl + 1);
			free(buf);
			buf = nb;
			rest = buf;
			continue;
		}
		cur = c;
	}
	if (rc == 0 && want_dir && cur->type != MT_DIR)
		rc = -ENOTDIR;
	if (rc == 0) {
		*out = cur;
		if (where && wlen)
			rc = strlen(cur->path) < wlen ? (strcpy(where, cur->path), 0) : -ENAMETOOLONG;
	}
	free(buf);
	return rc;
}

static int natcmp_node(const void *a, const void *b)
{
	return fab_natcmp((*(const struct mt_node *const *)a)->name,
			  (*(const struct mt_node *const *)b)->name);
}

static int bytecmp_node(const void *a, const void *b)
{
	return strcmp((*(const struct mt_node *const *)a)->name,
		      (*(const struct mt_node *const *)b)->name);
}

/* A sorted copy of dir's children (NULL and 0 when it has none). */
static int sorted_kids(const struct mt_node *dir, int (*cmp)(const void *, const void *),
		       const struct mt_node ***kids)
{
	*kids = NULL;
	if (dir->type != MT_DIR)
		return -ENOTDIR;
	if (!dir->nkids)
		return 0;
	const struct mt_node **v = malloc(dir->nkids * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, dir->kids, dir->nkids * sizeof(*v));
	qsort(v, dir->nkids, sizeof(*v), cmp);
	*kids = v;
	return (int)dir->nkids;
}

int memtree_list(const struct memtree *t, const struct mt_node *dir,
		 const struct mt_node ***kids)
{
	(void)t;
	return sorted_kids(dir, natcmp_node, kids);
}

size_t memtree_count(const struct memtree *t)
{
	return t->count;
}

unsigned long long memtree_bytes(const struct memtree *t)
{
	return t->bytes;
}

static int each_below(const struct mt_node *dir,
		      int (*fn)(const char *, const struct mt_node *, void *), void *arg)
{
	const struct mt_node **kids;
	int n = sorted_kids(dir, bytecmp_node, &kids), rc = 0;
	if (n < 0)
		return n;
	for (int i = 0; i < n && rc == 0; i++) {
		rc = fn(kids[i]->path, kids[i], arg);
		if (rc == 0 && kids[i]->type == MT_DIR)
			rc = each_below(kids[i], fn, arg);
	}
	free(kids);
	return rc;
}

int memtree_each(const struct memtree *t,
		 int (*fn)(const char *path, const struct mt_node *n, void *arg), void *arg)
{
	return each_below(t->root, fn, arg);
}

static int check_below(const struct memtree *t, const struct mt_node *dir, char *bad,
		       size_t badlen)
{
	const struct mt_node **kids, *res;
	int n = sorted_kids(dir, bytecmp_node, &kids), rc = 0;
	if (n < 0)
		return n;
	/* A folder's links first, as beneath_check_tree() meets them. */
	for (int i = 0; i < n && rc == 0; i++) {
		if (kids[i]->type != MT_LINK)
			continue;
		int r = memtree_resolve(t, kids[i]->path, 0, &res, NULL, 0);
		if (r == -EXDEV || r == -ELOOP || r == -ENOMEM) {
			if (bad && badlen)
				fab_strlcpy(bad, kids[i]->path + 1, badlen);
			rc = r;
		}
	}
	for (int i = 0; i < n && rc == 0; i++)
		if (kids[i]->type == MT_DIR)
			rc = check_below(t, kids[i], bad, badlen);
	free(kids);
	return rc;
}

int memtree_check_links(const struct memtree *t, char *bad, size_t badlen)
{
	if (bad && badlen)
		bad[0] = '\0';
	return check_below(t, t->root, bad, badlen);
}

/* ---- capture files ---- */

/* True when name is relative and has no ".." component. */
static bool safe_name(const char *name)
{
	if (!name || !*name || name[0] == '/')
		return false;
	for (const char *p = name; *p; ) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += n;
		while (*p == '/')
			p++;
	}
	return true;
}

/* True when a relative link target, taken from the link's folder, stays
 * inside the capture by its text alone (memtree_check_links() then checks
 * them all together). */
static bool safe_link(const char *member, const char *target)
{
	if (!target || target[0] == '/')
		return false;
	int depth = 0;
	for (const char *p = member; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			depth++;
	for (const char *p = target; *p; ) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			depth--;
		else if (n && !(n == 1 && p[0] == '.'))
			depth++;
		if (depth < 0)
			return false;
		p += n;
		while (*p == '/')
			p++;
	}
	return true;
}

static int first_component(const char *name, char *out, size_t len)
{
	size_t n = strcspn(name, "/");
	if (!name[n] || n >= len)
		return -1;
	memcpy(out, name, n);
	out[n] = '\0';
	return 0;
}

/* The cap of one member: the format's limit for the file it is, taken
 * with and without the top folder (which is not known until the end). */
static size_t member_cap(const char *name)
{
	char node[PATH_MAX + 2];
	snprintf(node, sizeof(node), "/%s", name);
	size_t cap = root_file_cap(node);
	const char *rest = strchr(name, '/');
	if (rest) {
		size_t c2 = root_file_cap(rest);
		cap = c2 > cap ? c2 : cap;
	}
	return cap;
}

/* The node path of a member name: "/" and its components, without empty
 * and "." ones ("./a//b/" is "/a/b"); "/" for the top of the archive. */
static void member_path(const char *name, char *out, size_t len)
{
	size_t o = 0;
	for (const char *c = name; *c && o + 2 < len; ) {
		while (*c == '/')
			c++;
		size_t n = strcspn(c, "/");
		if (n == 0)
			break;
		if (!(n == 1 && c[0] == '.') && o + 1 + n < len) {
			out[o++] = '/';
			memcpy(out + o, c, n);
			o += n;
		}
		c += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
}

/* Makes the folder top (every member lies under it) the root: every node's
 * path loses its first component, and the hashes follow. */
static int lift(struct memtree *t, struct mt_node *top)
{
	size_t k = strlen(top->path);
	for (size_t i = 0; i < t->root->nkids; i++)
		if (t->root->kids[i] != top)
			return 0;   /* not the only member at the top: never here */
	/* Every node at most once on the stack: room for all, before a thing
	 * changes (a lift stopped halfway would leave stale paths). */
	struct mt_node **stack = malloc((t->count + 1) * sizeof(*stack));
	size_t ns = 0;
	if (!stack)
		return -ENOMEM;
	free(t->root->kids);
	free(t->root);
	t->root = top;
	t->count--;
	/* The old root's "/" survives in top's block: its path was "/top". */
	char *p = (char *)(top + 1);
	p[1] = '\0';
	top->path = p;
	top->name = p + 1;
	top->parent = NULL;
	top->hash = FNV_BASIS;
	/* Below it, "/top/x" is "/x": the same bytes, k further on. */
	for (size_t i = 0; i < top->nkids; i++)
		stack[ns++] = top->kids[i];
	while (ns) {
		struct mt_node *n = stack[--ns];
		n->path += k;
		n->hash = child_hash(n->parent, n->name, strlen(n->name));
		for (size_t i = 0; i < n->nkids; i++)
			stack[ns++] = n->kids[i];
	}
	free(stack);
	memset(t->buckets, 0, t->nbuckets * sizeof(*t->buckets));
	rehash_below(t, t->root);
	return 0;
}

/* Reads the data of a regular member of size bytes into a new buffer:
 * 0, -1 on a read error, -2 when the data runs past size. */
static int read_member(struct archive *a, la_int64_t size, char **out)
{
	char *b = calloc(1, (size_t)size + 1);
	const void *buf;
	size_t bsize;
	la_int64_t off;
	int d;
	*out = NULL;
	if (!b)
		return -1;
	/* Never past what the header declared (a sparse entry's blocks carry
	 * their own offsets). */
	while ((d = archive_read_data_block(a, &buf, &bsize, &off)) == ARCHIVE_OK) {
		if (off < 0 || (unsigned long long)off + bsize > (unsigned long long)size) {
			free(b);
			return -2;
		}
		memcpy(b + off, buf, bsize);
	}
	if (d < ARCHIVE_WARN) {
		free(b);
		return -1;
	}
	*out = b;
	return 0;
}

int memtree_read_archive(struct memtree *t, int fd, const char *tarball, char *top, size_t toplen,
			 char *err, size_t errlen)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char common[256] = "", first[256], last[PATH_MAX] = "";
	bool one_top = true;
	int members = 0, rc = 0;
	unsigned long long total = 0, max_bytes = root_max_bytes();
	size_t entries = 0, max_entries = root_max_entries();

	if (toplen)
		top[0] = '\0';
	if (!a) {
		snprintf(err, errlen, "cannot read capture %s: out of memory", tarball);
		return -1;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
		snprintf(err, errlen, "cannot open capture %s: %s", tarball,
			 archive_error_string(a));
		archive_read_free(a);
		return -1;
	}
	for (;;) {
		int r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			if (members)
				snprintf(err, errlen, "capture %s is truncated or corrupt after member %s "
					 "(%d member(s) kept): %s", tarball, last, members,
					 archive_error_string(a));
			else
				snprintf(err, errlen, "capture %s is truncated or corrupt: %s",
					 tarball, archive_error_string(a));
			rc = members ? 1 : -1;
			break;
		}
		/* A bomb of tiny members costs as much as one large one. */
		if (++entries > max_entries) {
			snprintf(err, errlen, "capture %s: refused: more than %zu members "
				 "(FABTOP_CAPTURE_MAX_MEMBERS)", tarball, max_entries);
			rc = -1;
			break;
		}
		/* Never cut: two long names cut alike would land on one member. */
		char name[PATH_MAX], path[PATH_MAX + 2];
		const char *ename = archive_entry_pathname(e);
		if (!ename) {
			snprintf(err, errlen, "capture %s: refused a member whose name cannot be "
				 "read (after member %s)", tarball, last);
			rc = -1;
			break;
		}
		if (strlen(ename) >= sizeof(name)) {
			snprintf(err, errlen, "capture %s: refused a member name of %zu bytes "
				 "(longer than PATH_MAX, %d)", tarball, strlen(ename), PATH_MAX);
			rc = -1;
			break;
		}
		strcpy(name, ename);
		if (!safe_name(name)) {
			snprintf(err, errlen, "capture %s: refused member \"%s\" (absolute or '..' path)",
				 tarball, name);
			rc = -1;
			break;
		}
		const char *lt = archive_entry_symlink(e);
		if (lt && strlen(lt) >= PATH_MAX) {
			snprintf(err, errlen, "capture %s: refused link %s: a target of %zu bytes "
				 "(longer than PATH_MAX, %d)", tarball, name, strlen(lt), PATH_MAX);
			rc = -1;
			break;
		}
		if (lt && !safe_link(name, lt)) {
			snprintf(err, errlen, "capture %s: refused link %s -> %s (points outside the capture)",
				 tarball, name, lt);
			rc = -1;
			break;
		}
		if (archive_entry_hardlink(e)) {
			snprintf(err, errlen, "capture %s: refused hard link %s", tarball, name);
			rc = -1;
			break;
		}
		mode_t type = archive_entry_filetype(e);
		if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
			continue;  /* devices and fifos are never part of a capture */
		/* The sizes the header declares, before a byte is kept. */
		size_t cap = member_cap(name);
		la_int64_t size = type == AE_IFREG ? archive_entry_size(e) : 0;
		if (size < 0 || (unsigned long long)size > cap) {
			snprintf(err, errlen, "capture %s: refused member %s: %lld bytes, over the "
				 "format's %zu for it", tarball, name, (long long)size, cap);
			rc = -1;
			break;
		}
		if (total + (unsigned long long)size > max_bytes) {
			snprintf(err, errlen, "capture %s: refused: it unpacks to more than %llu "
				 "bytes (FABTOP_CAPTURE_MAX_BYTES)", tarball, max_bytes);
			rc = -1;
			break;
		}
		total += (unsigned long long)size;
		if (first_component(name, first, sizeof(first)) != 0)
			one_top = false;
		else if (!common[0])
			fab_strlcpy(common, first, sizeof(common));
		else if (strcmp(common, first) != 0)
			one_top = false;
		member_path(name, path, sizeof(path));
		unsigned mode = archive_entry_perm(e);
		int ar = 0;
		size_t before = memtree_count(t);
		if (type == AE_IFDIR) {
			ar = memtree_add_dir(t, path, mode);
		} else if (type == AE_IFLNK) {
			ar = strcmp(path, "/") ? memtree_add_link(t, path, lt ? lt : "") : -EEXIST;
		} else {
			char *data;
			int d = read_member(a, size, &data);
			if (d == -2) {
				snprintf(err, errlen, "capture %s: refused member %s: its data runs past the "
					 "%lld bytes its header declares", tarball, name, (long long)size);
				rc = -1;
				break;
			}
			if (d < 0) {
				snprintf(err, errlen, "capture %s is truncated or corrupt in member %s "
					 "(%d member(s) before it kept): %s", tarball, name, members,
					 archive_error_string(a));
				rc = members ? 1 : -1;
				break;
			}
			ar = strcmp(path, "/") ? put_file(t, path, data, (size_t)size, mode) : -EEXIST;
			if (ar < 0)
				free(data);
		}
		if (ar < 0) {
			/* A file where a folder is, a member below a file or link. */
			snprintf(err, errlen, "capture %s: cannot unpack %s: %s", tarball, name,
				 ar == -EEXIST ? "another member of another type is there" : strerror(-ar));
			rc = members ? 1 : -1;
			break;
		}
		/* A deep name makes its folders too, each holding its path: they
		 * count as members, and their memory as bytes, or a few KB of
		 * tarball with names 2,000 folders deep would take gigabytes. */
		size_t made = memtree_count(t) - before;
		if (memtree_count(t) > max_entries) {
			/* the folders its names make are members too */
			snprintf(err, errlen, "capture %s: refused: more than %zu members "
				 "(FABTOP_CAPTURE_MAX_MEMBERS)", tarball, max_entries);
			rc = -1;
			break;
		}
		total += (unsigned long long)made * (sizeof(struct mt_node) + strlen(path) + 1) +
			 (lt ? strlen(lt) : 0);
		if (total > max_bytes) {
			snprintf(err, errlen, "capture %s: refused: it unpacks to more than %llu "
				 "bytes with its names and folders (FABTOP_CAPTURE_MAX_BYTES)", tarball,
				 max_bytes);
			rc = -1;
			break;
		}
		fab_strlcpy(last, name, sizeof(last));
		members++;
	}
	archive_read_free(a);
	if (rc == 0 && members == 0) {
		snprintf(err, errlen, "capture %s holds no files", tarball);
		rc = -1;
	}
	if (rc < 0)
		return rc;
	if (one_top && common[0]) {
		char tp[sizeof(common) + 1];
		snprintf(tp, sizeof(tp), "/%s", common);
		struct mt_node *tn = lookup(t, tp, strlen(tp));
		if (tn && tn->type == MT_DIR) {
			if (lift(t, tn) != 0) {
				snprintf(err, errlen, "cannot read capture %s: out of memory", tarball);
				return -1;
			}
			fab_strlcpy(top, common, toplen);
		}
	}
	/* Links that each stay inside can still lead out together. Inside
	 * means inside the top folder: nothing above it is read. */
	char bad[PATH_MAX] = "";
	int c = memtree_check_links(t, bad, sizeof(bad));
	if (c != 0) {
		char node[PATH_MAX + 2];
		snprintf(node, sizeof(node), "/%s", bad);
		const struct mt_node *ln = memtree_get(t, node);
		const char *target = ln && ln->target ? ln->target : "";
		const char *tp = toplen && top[0] ? top : "";
		const char *sep = tp[0] ? "/" : "";
		/* Named as the member is in the tarball: with its top folder. */
		/* A target may be 4 KB: its head names it, the reason must show. */
		const char *more = strlen(target) > 400 ? "..." : "";
		if (c == -EXDEV)
			snprintf(err, errlen, "capture %s: refused: the link %s%s%s -> %.400s%s leads "
				 "outside it", tarball, tp, sep, bad, target, more);
		else if (c == -ELOOP || c == -ENAMETOOLONG)
			snprintf(err, errlen, "capture %s: refused: the link %s%s%s -> %.400s%s does not "
				 "resolve (a loop, more than %d links, or more than %d steps)", tarball,
				 tp, sep, bad, target, more, MT_MAX_LINKS, MT_MAX_STEPS);
		else
			snprintf(err, errlen, "cannot check capture %s: %s", tarball, strerror(-c));
		return -1;
	}
	return rc;
}

/* What a capture holds first, after its top folder and fabtop/: a reader
 * of the head (nodedoc.c) finds the node's own report without reading the
 * rest. */
static const char *const head_members[] = { "/fabtop/meta.json", "/fabtop/report.json", NULL };

static bool is_head(const char *path)
{
	if (strcmp(path, "/fabtop") == 0)
		return true;
	for (const char *const *h = head_members; *h; h++)
		if (strcmp(path, *h) == 0)
			return true;
	return false;
}

struct writer {
	struct archive *w;
	const char *top;
	const char *name;
	long long mtime;
	char *err;
	size_t errlen;
};

static int write_entry(const char *path, const struct mt_node *n, void *arg)
{
	struct writer *wr = arg;
	char name[2 * PATH_MAX];
	if (wr->top[0])
		snprintf(name, sizeof(name), "%s%s", wr->top, strcmp(path, "/") ? path : "");
	else if (strcmp(path, "/") == 0)
		return 0;      /* no top folder: the members are all there is */
	else
		fab_strlcpy(name, path + 1, sizeof(name));
	struct archive_entry *e = archive_entry_new();
	if (!e) {
		snprintf(wr->err, wr->errlen, "cannot write %s: out of memory", wr->name);
		return -1;
	}
	archive_entry_set_pathname(e, name);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_mtime(e, (time_t)wr->mtime, 0);
	switch (n->type) {
	case MT_DIR:
		archive_entry_set_filetype(e, AE_IFDIR);
		archive_entry_set_perm(e, n->mode);
		break;
	case MT_LINK:
		archive_entry_set_filetype(e, AE_IFLNK);
		archive_entry_set_perm(e, 0777);
		archive_entry_set_symlink(e, n->target);
		break;
	case MT_FILE:
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, n->mode);
		archive_entry_set_size(e, (la_int64_t)n->size);
		break;
	}
	int rc = 0;
	if (archive_write_header(wr->w, e) != ARCHIVE_OK) {
		snprintf(wr->err, wr->errlen, "cannot write %s into %s: %s", name, wr->name,
			 archive_error_string(wr->w));
		rc = -1;
	} else if (n->type == MT_FILE && n->size &&
		   archive_write_data(wr->w, n->data, n->size) != (la_ssize_t)n->size) {
		snprintf(wr->err, wr->errlen, "cannot write %s into %s: %s", name, wr->name,
			 archive_error_string(wr->w));
		rc = -1;
	}
	archive_entry_free(e);
	return rc;
}

static int write_rest(const char *path, const struct mt_node *n, void *arg)
{
	return is_head(path) ? 0 : write_entry(path, n, arg);
}

int memtree_write_archive(const struct memtree *t, const char *top, int fd, const char *name,
			  long long mtime, char *err, size_t errlen)
{
	struct writer wr = { .top = top ? top : "", .name = name, .mtime = mtime,
			     .err = err, .errlen = errlen };
	struct archive *w = wr.w = archive_write_new();
	if (!w) {
		snprintf(err, errlen, "cannot create %s: out of memory", name);
		return -1;
	}
	archive_write_add_filter_gzip(w);
	archive_write_set_format_pax_restricted(w);
	/* No time in the gzip header: the same tree gives the same bytes. */
	archive_write_set_options(w, "gzip:!timestamp");
	/* No padding after the gzip stream, whatever fd is (a FIFO, a device). */
	archive_write_set_bytes_in_last_block(w, 1);
	if (archive_write_open_fd(w, fd) != ARCHIVE_OK) {
		snprintf(err, errlen, "cannot create %s: %s", name, archive_error_string(w));
		archive_write_free(w);
		return -1;
	}
	/* The top folder, fabtop/ and the head members, then the rest. */
	int rc = write_entry("/", t->root, &wr);
	const struct mt_node *f = memtree_get(t, "/fabtop");
	if (!rc && f && f->type == MT_DIR) {
		rc = write_entry(f->path, f, &wr);
		for (const char *const *h = head_members; !rc && *h; h++) {
			const struct mt_node *hn = memtree_get(t, *h);
			if (hn && hn->type == MT_FILE)
				rc = write_entry(hn->path, hn, &wr);
		}
	}
	if (!rc)
		rc = memtree_each(t, f && f->type == MT_DIR ? write_rest : write_entry, &wr);
	if (archive_write_close(w) != ARCHIVE_OK && rc == 0) {
		snprintf(err, errlen, "cannot finish %s: %s", name, archive_error_string(w));
		rc = -1;
	}
	archive_write_free(w);
	return rc ? -1 : 0;
}

struct dir_writer {
	int dfd;
	const char *dir;
	char *err;
	size_t errlen;
};

static int write_member(const char *path, const struct mt_node *n, void *arg)
{
	struct dir_writer *dw = arg;
	const char *rel = path + 1;
	int rc = 0;
	switch (n->type) {
	case MT_DIR:
		rc = mkdirat(dw->dfd, rel, (n->mode & 0777) | 0700);
		break;
	case MT_LINK:
		rc = symlinkat(n->target, dw->dfd, rel);
		break;
	case MT_FILE: {
		/* O_EXCL | O_NOFOLLOW: what is there is never written through. */
		int fd = openat(dw->dfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				(n->mode & 0777) | 0600);
		if (fd < 0) {
			rc = -1;
			break;
		}
		for (size_t off = 0; off < n->size && rc == 0; ) {
			ssize_t w = write(fd, n->data + off, n->size - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				rc = -1;
			else
				off += (size_t)w;
		}
		int e = errno;
		if (close(fd) != 0 && rc == 0)
			rc = -1;
		else
			errno = e;
		break;
	}
	}
	if (rc != 0)
		snprintf(dw->err, dw->errlen, "cannot write %s%s: %s", dw->dir, path, strerror(errno));
	return rc;
}

int memtree_write_dir(const struct memtree *t, const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	struct dir_writer dw = { .dir = dir, .err = err, .errlen = errlen };
	dw.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dw.dfd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	int rc = memtree_each(t, write_member, &dw);
	close(dw.dfd);
	return rc ? -1 : 0;
}
