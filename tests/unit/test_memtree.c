/* memtree: members by node path, links resolved lexically inside the tree
 * (EXDEV, ELOOP), natural listing, archive order, the caps and refusals of
 * a capture, and the archive round trip. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fab_archive.h"
#include "fabtop/root.h"
#include "memtree.h"

static void test_build(void **state)
{
	struct memtree *t = memtree_new();
	assert_non_null(t);
	assert_int_equal(memtree_add_file(t, "/sys/class/net/eth0/mtu", "1500\n", 5, 0644), 0);
	const struct mt_node *n = memtree_get(t, "/sys/class/net/eth0/mtu");
	assert_non_null(n);
	assert_int_equal(n->type, MT_FILE);
	assert_string_equal(n->data, "1500\n");
	assert_int_equal(n->size, 5);
	assert_string_equal(n->name, "mtu");
	assert_string_equal(n->path, "/sys/class/net/eth0/mtu");
	/* parents became directories */
	n = memtree_get(t, "/sys/class/net");
	assert_non_null(n);
	assert_int_equal(n->type, MT_DIR);
	assert_int_equal(memtree_count(t), 5);
	/* replacing a file */
	assert_int_equal(memtree_add_file(t, "/sys/class/net/eth0/mtu", "9000\n", 5, 0600), 0);
	assert_string_equal(memtree_get(t, "/sys/class/net/eth0/mtu")->data, "9000\n");
	assert_int_equal(memtree_bytes(t), 5);
	assert_int_equal(memtree_count(t), 5);
	/* a file where a folder is, a member below a file or a link */
	assert_int_equal(memtree_add_file(t, "/sys/class", "x", 1, 0644), -EEXIST);
	assert_int_equal(memtree_add_file(t, "/sys/class/net/eth0/mtu/x", "x", 1, 0644), -EEXIST);
	assert_int_equal(memtree_add_link(t, "/sys/l", "class"), 0);
	assert_int_equal(memtree_add_dir(t, "/sys/l/x", 0755), -EEXIST);
	assert_int_equal(memtree_add_link(t, "/sys/l", "class/net"), 0);   /* a link replaces a link */
	assert_string_equal(memtree_get(t, "/sys/l")->target, "class/net");
	/* not node paths */
	const char *bad[] = { "sys/x", "/sys//x", "/sys/./x", "/sys/../x", "/sys/x/", "", NULL };
	for (int i = 0; bad[i]; i++)
		assert_int_equal(memtree_add_file(t, bad[i], "x", 1, 0644), -EINVAL);
	/* lookups the kernel would take */
	assert_ptr_equal(memtree_get(t, "//sys/./class/net/"), memtree_get(t, "/sys/class/net"));
	assert_null(memtree_get(t, "/sys/class/../class"));
	assert_null(memtree_get(t, "/sys/nothing"));
	assert_int_equal(memtree_get(t, "/")->type, MT_DIR);
	/* many members: the hash grows */
	char p[64];
	for (int i = 0; i < 5000; i++) {
		snprintf(p, sizeof(p), "/many/d%d/f", i);
		assert_int_equal(memtree_add_file(t, p, p, strlen(p), 0644), 0);
	}
	for (int i = 0; i < 5000; i += 97) {
		snprintf(p, sizeof(p), "/many/d%d/f", i);
		assert_string_equal(memtree_get(t, p)->data, p);
	}
	memtree_free(t);
}

/* The shape of sysfs: class links into /sys/devices, ".." of a link's
 * target taken from where the target is. */
static struct memtree *sysfs_tree(void)
{
	struct memtree *t = memtree_new();
	assert_int_equal(memtree_add_file(t, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/infiniband/mlx5_0/hca_type",
					  "MT4129\n", 7, 0444), 0);
	assert_int_equal(memtree_add_file(t, "/sys/devices/pci0000:00/0000:00:01.0/vendor", "0x10de\n", 7, 0444), 0);
	assert_int_equal(memtree_add_link(t, "/sys/class/infiniband/mlx5_0",
					  "../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/infiniband/mlx5_0"), 0);
	assert_int_equal(memtree_add_link(t, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/infiniband/mlx5_0/device",
					  "../../../0000:01:00.0"), 0);
	assert_int_equal(memtree_add_link(t, "/sys/class/infiniband/mlx5_9", "../../devices/gone"), 0);
	return t;
}

static void test_resolve(void **state)
{
	struct memtree *t = sysfs_tree();
	const struct mt_node *n;
	char where[PATH_MAX];
	assert_int_equal(memtree_resolve(t, "/sys/class/infiniband/mlx5_0/hca_type", 0, &n, where,
					 sizeof(where)), 0);
	assert_string_equal(n->data, "MT4129\n");
	assert_string_equal(where, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/infiniband/mlx5_0/hca_type");
	/* ".." after a link: the parent of where the link led */
	assert_int_equal(memtree_resolve(t, "/sys/class/infiniband/mlx5_0/device/../vendor", 0, &n,
					 where, sizeof(where)), 0);
	assert_string_equal(n->data, "0x10de\n");
	assert_string_equal(where, "/sys/devices/pci0000:00/0000:00:01.0/vendor");
	/* the link itself */
	assert_int_equal(memtree_resolve(t, "/sys/class/infiniband/mlx5_0", MT_NOFOLLOW, &n, where,
					 sizeof(where)), 0);
	assert_int_equal(n->type, MT_LINK);
	assert_string_equal(where, "/sys/class/infiniband/mlx5_0");
	assert_int_equal(memtree_resolve(t, "/sys/class/infiniband/mlx5_0/", MT_NOFOLLOW, &n, NULL, 0), 0);
	assert_int_equal(n->type, MT_DIR);
	/* a dangling link names where it leads */
	assert_int_equal(memtree_resolve(t, "/sys/class/infiniband/mlx5_9", 0, &n, where, sizeof(where)),
			 -ENOENT);
	assert_string_equal(where, "/sys/devices/gone");
	assert_int_equal(memtree_resolve(t, "/sys/class/infiniband/mlx5_0/hca_type/x", 0, &n, NULL, 0),
			 -ENOTDIR);
	assert_int_equal(memtree_resolve(t, "/sys/class/infiniband/mlx5_0/hca_type/", 0, &n, NULL, 0),
			 -ENOTDIR);
	memtree_free(t);
}

static void test_exdev(void **state)
{
	struct memtree *t = sysfs_tree();
	const struct mt_node *n;
	assert_int_equal(memtree_add_link(t, "/sys/abs", "/etc"), 0);
	assert_int_equal(memtree_add_link(t, "/sys/up", "../.."), 0);
	/* each stays inside by its text; together they lead out */
	assert_int_equal(memtree_add_link(t, "/b", ".."), 0);
	assert_int_equal(memtree_add_link(t, "/a", "b/x"), 0);
	assert_int_equal(memtree_resolve(t, "/sys/abs", 0, &n, NULL, 0), -EXDEV);
	assert_int_equal(memtree_resolve(t, "/sys/abs", MT_NOFOLLOW, &n, NULL, 0), 0);
	assert_int_equal(memtree_resolve(t, "/sys/up", 0, &n, NULL, 0), -EXDEV);
	assert_int_equal(memtree_resolve(t, "/sys/up/etc/passwd", 0, &n, NULL, 0), -EXDEV);
	assert_int_equal(memtree_resolve(t, "/..", 0, &n, NULL, 0), -EXDEV);
	assert_int_equal(memtree_resolve(t, "/sys/../../sys", 0, &n, NULL, 0), -EXDEV);
	assert_int_equal(memtree_resolve(t, "/a", 0, &n, NULL, 0), -EXDEV);
	char bad[PATH_MAX];
	assert_int_equal(memtree_check_links(t, bad, sizeof(bad)), -EXDEV);
	assert_string_equal(bad, "a");
	memtree_free(t);
}

static void test_eloop(void **state)
{
	struct memtree *t = memtree_new();
	const struct mt_node *n;
	char p[32], q[32];
	assert_int_equal(memtree_add_link(t, "/x", "y"), 0);
	assert_int_equal(memtree_add_link(t, "/y", "x"), 0);
	assert_int_equal(memtree_resolve(t, "/x", 0, &n, NULL, 0), -ELOOP);
	/* 40 links in one resolution resolve, 41 do not */
	assert_int_equal(memtree_add_file(t, "/end", "", 0, 0644), 0);
	for (int i = 0; i < 41; i++) {
		snprintf(p, sizeof(p), "/l%d", i);
		snprintf(q, sizeof(q), i ? "l%d" : "end", i - 1);
		assert_int_equal(memtree_add_link(t, p, q), 0);
	}
	assert_int_equal(memtree_resolve(t, "/l39", 0, &n, NULL, 0), 0);
	assert_ptr_equal(n, memtree_get(t, "/end"));
	assert_int_equal(memtree_resolve(t, "/l40", 0, &n, NULL, 0), -ELOOP);
	memtree_free(t);
}

static void test_list_order(void **state)
{
	struct memtree *t = memtree_new();
	const char *names[] = { "mlx5_10", "mlx5_2", "mlx5_1", "eth0", NULL };
	char p[64];
	for (int i = 0; names[i]; i++) {
		snprintf(p, sizeof(p), "/sys/class/infiniband/%s", names[i]);
		assert_int_equal(memtree_add_dir(t, p, 0755), 0);
	}
	const struct mt_node **kids;
	int n = memtree_list(t, memtree_get(t, "/sys/class/infiniband"), &kids);
	assert_int_equal(n, 4);
	assert_string_equal(kids[0]->name, "eth0");
	assert_string_equal(kids[1]->name, "mlx5_1");
	assert_string_equal(kids[2]->name, "mlx5_2");
	assert_string_equal(kids[3]->name, "mlx5_10");
	free(kids);
	assert_int_equal(memtree_add_file(t, "/f", "", 0, 0644), 0);
	assert_int_equal(memtree_list(t, memtree_get(t, "/f"), &kids), -ENOTDIR);
	memtree_free(t);
}

struct seen {
	char buf[1024];
};

static int collect(const char *path, const struct mt_node *n, void *arg)
{
	struct seen *s = arg;
	strcat(s->buf, path);
	strcat(s->buf, " ");
	return 0;
}

static void test_each_order(void **state)
{
	struct memtree *t = memtree_new();
	assert_int_equal(memtree_add_file(t, "/a-c", "", 0, 0644), 0);
	assert_int_equal(memtree_add_file(t, "/a/b", "", 0, 0644), 0);
	assert_int_equal(memtree_add_file(t, "/B", "", 0, 0644), 0);
	struct seen s = { "" };
	assert_int_equal(memtree_each(t, collect, &s), 0);
	/* a folder before what it holds, names in byte order */
	assert_string_equal(s.buf, "/B /a /a/b /a-c ");
	memtree_free(t);
}

/* The deep-link attack of tests/hostile: the link that climbs out ("up")
 * is named, not the one that goes through it (hca_type), as
 * beneath_check_tree() names it in a directory. */
static void test_check_order(void **state)
{
	struct memtree *t = memtree_new();
	char bad[PATH_MAX];
	assert_int_equal(memtree_add_link(t, "/sys/class/infiniband/mlx5_0", "../../devices/d1/d2/mlx5_0"), 0);
	assert_int_equal(memtree_add_link(t, "/sys/devices/d1/d2/mlx5_0/hca_type", "../up/../../etc/shadow"), 0);
	assert_int_equal(memtree_add_link(t, "/sys/devices/d1/d2/up", "../../../../../"), 0);
	assert_int_equal(memtree_add_link(t, "/sys/devices/d1/dangling", "nothing"), 0);
	assert_int_equal(memtree_check_links(t, bad, sizeof(bad)), -EXDEV);
	assert_string_equal(bad, "sys/devices/d1/d2/up");
	memtree_free(t);
	t = memtree_new();
	assert_int_equal(memtree_add_link(t, "/sys/x", "y"), 0);
	assert_int_equal(memtree_add_link(t, "/sys/y", "x"), 0);
	assert_int_equal(memtree_check_links(t, bad, sizeof(bad)), -ELOOP);
	assert_string_equal(bad, "sys/x");
	memtree_free(t);
}

/* ---- archives ---- */

struct member {
	const char *name;
	char type;           /* 'f' file, 'd' dir, 'l' symlink, 'h' hard link, 'p' FIFO */
	const char *data;    /* file content or link target */
	long long size;      /* a file's declared size when not strlen(data) */
};

/* A tar written by hand into a memfd (rewound), for members memtree never writes. */
static int tar_fd(const struct member *m, int n, bool gzip)
{
	int fd = memfd_create("tar", MFD_CLOEXEC);
	assert_true(fd >= 0);
	struct archive *w = archive_write_new();
	if (gzip)
		archive_write_add_filter_gzip(w);
	archive_write_set_format_pax_restricted(w);
	assert_int_equal(archive_write_open_fd(w, fd), ARCHIVE_OK);
	for (int i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();
		archive_entry_set_pathname(e, m[i].name);
		switch (m[i].type) {
		case 'd':
			archive_entry_set_filetype(e, AE_IFDIR);
			archive_entry_set_perm(e, 0755);
			break;
		case 'l':
			archive_entry_set_filetype(e, AE_IFLNK);
			archive_entry_set_perm(e, 0777);
			archive_entry_set_symlink(e, m[i].data);
			break;
		case 'h':
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_hardlink(e, m[i].data);
			break;
		case 'p':
			archive_entry_set_filetype(e, AE_IFIFO);
			archive_entry_set_perm(e, 0644);
			break;
		default:
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_perm(e, 0644);
			archive_entry_set_size(e, m[i].size ? m[i].size : (la_int64_t)strlen(m[i].data));
			break;
		}
		assert_int_equal(archive_write_header(w, e), ARCHIVE_OK);
		if (m[i].type == 'f' && m[i].size) {
			char *z = calloc(1, (size_t)m[i].size);
			archive_write_data(w, z, (size_t)m[i].size);
			free(z);
		} else if (m[i].type == 'f') {
			archive_write_data(w, m[i].data, strlen(m[i].data));
		}
		archive_entry_free(e);
	}
	assert_int_equal(archive_write_close(w), ARCHIVE_OK);
	archive_write_free(w);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* Reads m into a new tree: memtree_read_archive's return; t, top, err out. */
static int read_members(const struct member *m, int n, struct memtree **t, char *top, char *err)
{
	int fd = tar_fd(m, n, true);
	*t = memtree_new();
	int rc = memtree_read_archive(*t, fd, "x.tar.gz", top, 256, err, 1024);
	close(fd);
	return rc;
}

static void expect_refused(const struct member *m, int n, const char *want)
{
	struct memtree *t;
	char top[256], err[1024] = "";
	assert_int_equal(read_members(m, n, &t, top, err), -1);
	if (!strstr(err, want))
		fail_msg("err \"%s\" lacks \"%s\"", err, want);
	memtree_free(t);
}

static void test_read_refusals(void **state)
{
	const struct member ok = { "cap/sys/x", 'f', "1\n", 0 };
	struct member m[3] = { ok };
	m[1] = (struct member){ "cap/../../etc/x", 'f', "x", 0 };
	expect_refused(m, 2, "refused member \"cap/../../etc/x\" (absolute or '..' path)");
	m[1] = (struct member){ "/etc/x", 'f', "x", 0 };
	expect_refused(m, 2, "refused member \"/etc/x\" (absolute or '..' path)");
	m[1] = (struct member){ "cap/sys/l", 'l', "/etc", 0 };
	expect_refused(m, 2, "refused link cap/sys/l -> /etc (points outside the capture)");
	m[1] = (struct member){ "cap/sys/l", 'l', "../../..", 0 };
	expect_refused(m, 2, "refused link cap/sys/l -> ../../.. (points outside the capture)");
	m[1] = (struct member){ "cap/sys/h", 'h', "cap/sys/x", 0 };
	expect_refused(m, 2, "refused hard link cap/sys/h");
	/* inside the tarball by its text, outside the top folder: out together */
	m[1] = (struct member){ "cap/sys/up", 'l', "../..", 0 };
	expect_refused(m, 2, "capture x.tar.gz: refused: the link cap/sys/up -> ../.. leads outside it");
	/* a member below a file: the members before it are kept, as when a
	 * capture breaks */
	struct memtree *t;
	char top[256], err[1024] = "";
	m[1] = (struct member){ "cap/sys/x/y", 'f', "x", 0 };
	assert_int_equal(read_members(m, 2, &t, top, err), 1);
	assert_non_null(strstr(err, "capture x.tar.gz: cannot unpack cap/sys/x/y"));
	assert_string_equal(memtree_get(t, "/sys/x")->data, "1\n");
	memtree_free(t);
	m[1] = (struct member){ "cap/sys/big", 'f', "", (1 << 20) + 1 };
	expect_refused(m, 2, "refused member cap/sys/big: 1048577 bytes, over the format's 1048576 for it");
	expect_refused(m, 0, "capture x.tar.gz holds no files");
}

static void test_read_caps(void **state)
{
	struct member m[8];
	for (int i = 0; i < 8; i++)
		m[i] = (struct member){ "cap/fabtop/samples.json", 'f', "", 1 << 20 };
	/* one member may be larger than a page when the format says so */
	struct memtree *t;
	char top[256], err[1024];
	m[0].size = 2 << 20;
	assert_int_equal(read_members(m, 1, &t, top, err), 0);
	assert_int_equal(memtree_get(t, "/fabtop/samples.json")->size, 2 << 20);
	memtree_free(t);
	setenv("FABTOP_CAPTURE_MAX_BYTES", "4194304", 1);
	expect_refused(m, 8, "refused: it unpacks to more than 4194304 bytes (FABTOP_CAPTURE_MAX_BYTES)");
	unsetenv("FABTOP_CAPTURE_MAX_BYTES");
	setenv("FABTOP_CAPTURE_MAX_MEMBERS", "5", 1);
	expect_refused(m, 8, "refused: more than 5 members (FABTOP_CAPTURE_MAX_MEMBERS)");
	unsetenv("FABTOP_CAPTURE_MAX_MEMBERS");
}

static void test_read_top(void **state)
{
	struct memtree *t;
	char top[256], err[1024];
	const struct member m[] = {
		{ "node1/", 'd', NULL, 0 }, { "node1/sys/class/", 'd', NULL, 0 },
		{ "node1/sys/class/net/eth0/mtu", 'f', "1500\n", 0 },
		{ "node1/sys/l", 'l', "class/net", 0 }, { "node1/dev/fifo", 'p', NULL, 0 },
	};
	assert_int_equal(read_members(m, 5, &t, top, err), 0);
	assert_string_equal(top, "node1");
	assert_string_equal(memtree_get(t, "/sys/class/net/eth0/mtu")->data, "1500\n");
	assert_null(memtree_get(t, "/node1"));
	assert_null(memtree_get(t, "/dev/fifo"));   /* skipped */
	const struct mt_node *n;
	assert_int_equal(memtree_resolve(t, "/sys/l/eth0/mtu", 0, &n, NULL, 0), 0);
	assert_string_equal(n->data, "1500\n");
	assert_int_equal(memtree_count(t), 6);   /* sys class net eth0 mtu l */
	memtree_free(t);
	/* two top folders: kept as they are */
	const struct member two[] = { { "a/x", 'f', "1", 0 }, { "./b/y", 'f', "2", 0 } };
	assert_int_equal(read_members(two, 2, &t, top, err), 0);
	assert_string_equal(top, "");
	assert_string_equal(memtree_get(t, "/a/x")->data, "1");
	assert_string_equal(memtree_get(t, "/b/y")->data, "2");
	memtree_free(t);
}

/* Random, incompressible bytes: truncation then lands inside a member. */
static char *random_bytes(size_t len, unsigned seed)
{
	char *b = malloc(len);
	for (size_t i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		b[i] = (char)(seed >> 16);
	}
	return b;
}

static void test_truncated(void **state)
{
	struct memtree *t = memtree_new();
	char *r = random_bytes(200000, 7);
	assert_int_equal(memtree_add_file(t, "/fabtop/meta.json", "{}", 2, 0644), 0);
	assert_int_equal(memtree_add_file(t, "/sys/a", "1", 1, 0644), 0);
	assert_int_equal(memtree_add_file(t, "/sys/b", r, 200000, 0644), 0);
	free(r);
	int fd = memfd_create("cap", MFD_CLOEXEC);
	char err[1024], top[256];
	assert_int_equal(memtree_write_archive(t, "cap", fd, "cap.tar.gz", 1764523200, err, sizeof(err)), 0);
	memtree_free(t);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(ftruncate(fd, st.st_size / 2), 0);
	lseek(fd, 0, SEEK_SET);
	t = memtree_new();
	int rc = memtree_read_archive(t, fd, "cap.tar.gz", top, sizeof(top), err, sizeof(err));
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "is truncated or corrupt"));
	assert_non_null(memtree_get(t, "/fabtop/meta.json"));   /* what came before is kept */
	memtree_free(t);
	/* garbage */
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, "not a tarball at all, just text\n", 32, 0), 32);
	lseek(fd, 0, SEEK_SET);
	t = memtree_new();
	assert_int_equal(memtree_read_archive(t, fd, "cap.tar.gz", top, sizeof(top), err, sizeof(err)), -1);
	memtree_free(t);
	close(fd);
}

static int same_tree(const char *path, const struct mt_node *n, void *arg)
{
	const struct memtree *other = arg;
	const struct mt_node *o = memtree_get(other, path);
	if (!o || o->type != n->type || o->size != n->size ||
	    (n->type == MT_FILE && memcmp(o->data, n->data, n->size) != 0) ||
	    (n->type == MT_LINK && strcmp(o->target, n->target) != 0))
		fail_msg("%s differs after the round trip", path);
	return 0;
}

static void test_round_trip(void **state)
{
	struct memtree *t = sysfs_tree();
	char err[1024], top[256];
	assert_int_equal(memtree_add_file(t, "/sys/a-b", "x", 1, 0644), 0);
	assert_int_equal(memtree_add_file(t, "/fabtop/report.json", "{\"r\":1}", 7, 0644), 0);
	assert_int_equal(memtree_add_file(t, "/fabtop/hwloc.xml", "<x/>", 4, 0644), 0);
	assert_int_equal(memtree_add_file(t, "/fabtop/meta.json", "{}", 2, 0644), 0);
	assert_int_equal(memtree_add_file(t, "/empty", "", 0, 0644), 0);
	int fd = memfd_create("cap", MFD_CLOEXEC), fd2 = memfd_create("cap2", MFD_CLOEXEC);
	assert_int_equal(memtree_write_archive(t, "node17-20261130T172000", fd, "cap", 1764523200,
					       err, sizeof(err)), 0);
	assert_int_equal(memtree_write_archive(t, "node17-20261130T172000", fd2, "cap2", 1764523200,
					       err, sizeof(err)), 0);
	/* the same tree gives the same bytes: no time in the gzip header */
	struct stat a, b;
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(fstat(fd2, &b), 0);
	assert_int_equal(a.st_size, b.st_size);
	char *x = malloc((size_t)a.st_size), *y = malloc((size_t)b.st_size);
	assert_int_equal(pread(fd, x, (size_t)a.st_size, 0), a.st_size);
	assert_int_equal(pread(fd2, y, (size_t)b.st_size, 0), b.st_size);
	assert_memory_equal(x, y, (size_t)a.st_size);
	assert_int_equal(x[4] | x[5] | x[6] | x[7], 0);   /* gzip MTIME */
	free(x);
	free(y);
	close(fd2);
	/* the head first, owned by 0:0, every time the snapshot's */
	const char *want[] = { "node17-20261130T172000/", "node17-20261130T172000/fabtop/",
			       "node17-20261130T172000/fabtop/meta.json",
			       "node17-20261130T172000/fabtop/report.json",
			       "node17-20261130T172000/empty", "node17-20261130T172000/fabtop/hwloc.xml",
			       "node17-20261130T172000/sys/", "node17-20261130T172000/sys/a-b",
			       "node17-20261130T172000/sys/class/", NULL };
	lseek(fd, 0, SEEK_SET);
	struct archive *r = archive_read_new();
	struct archive_entry *e;
	archive_read_support_filter_all(r);
	archive_read_support_format_all(r);
	assert_int_equal(archive_read_open_fd(r, fd, 65536), ARCHIVE_OK);
	for (int i = 0; archive_read_next_header(r, &e) == ARCHIVE_OK; i++) {
		if (i < 9)
			assert_string_equal(archive_entry_pathname(e), want[i]);
		assert_int_equal(archive_entry_uid(e), 0);
		assert_int_equal(archive_entry_gid(e), 0);
		assert_int_equal(archive_entry_mtime(e), 1764523200);
	}
	archive_read_free(r);
	/* read back: the same members */
	lseek(fd, 0, SEEK_SET);
	struct memtree *u = memtree_new();
	assert_int_equal(memtree_read_archive(u, fd, "cap", top, sizeof(top), err, sizeof(err)), 0);
	assert_string_equal(top, "node17-20261130T172000");
	assert_int_equal(memtree_count(u), memtree_count(t));
	assert_int_equal(memtree_bytes(u), memtree_bytes(t));
	assert_int_equal(memtree_each(t, same_tree, u), 0);
	assert_int_equal(memtree_get(u, "/sys/devices/pci0000:00/0000:00:01.0/vendor")->mode, 0444);
	memtree_free(u);
	close(fd);
	memtree_free(t);
}

static void test_write_dir(void **state)
{
	struct memtree *t = sysfs_tree();
	char dir[PATH_MAX], p[PATH_MAX + 64], err[1024], buf[64];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/fabtop-test-memtree.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/out", dir);
	assert_int_equal(memtree_write_dir(t, p, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/out/sys/class/infiniband/mlx5_0/hca_type", dir);
	int fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 7);
	close(fd);
	/* what is there is never replaced */
	snprintf(p, sizeof(p), "%s/out", dir);
	assert_int_equal(memtree_write_dir(t, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "File exists"));
	assert_int_equal(fab_rmtree(dir), 0);
	memtree_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_exdev),
		cmocka_unit_test(test_eloop),
		cmocka_unit_test(test_list_order),
		cmocka_unit_test(test_each_order),
		cmocka_unit_test(test_check_order),
		cmocka_unit_test(test_read_refusals),
		cmocka_unit_test(test_read_caps),
		cmocka_unit_test(test_read_top),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_write_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
