/* Resolution beneath a directory (src/beneath.h): the kernel's openat2 and
 * the component walk give the same answer for every path; whole-tree
 * checks find an escape at any depth; fab_rmtree removes trees deeper than
 * PATH_MAX; the root refuses what leads out and never blocks on a FIFO. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
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
#include "fab_archive.h"
#include "fabtop/root.h"

/* base/root is the tree under test; base/outside/secret must never be read. */
struct scratch {
	char base[PATH_MAX];
	char root[PATH_MAX + 16];
	int rfd;
};

static int setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");
	if (!s)
		return -1;
	snprintf(s->base, sizeof(s->base), "%s/fabtop-test-beneath.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->base))
		return -1;
	snprintf(s->root, sizeof(s->root), "%s/root", s->base);
	if (mkdir(s->root, 0755) != 0)
		return -1;
	s->rfd = open(s->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	*state = s;
	return s->rfd >= 0 ? 0 : -1;
}

static int teardown(void **state)
{
	struct scratch *s = *state;
	close(s->rfd);
	assert_int_equal(fab_rmtree(s->base), 0);
	free(s);
	return 0;
}

static void mkdirs(const char *dir, const char *rel)
{
	char p[2 * PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *c = p + strlen(dir) + 1; *c; c++)
		if (*c == '/') {
			*c = '\0';
			mkdir(p, 0755);
			*c = '/';
		}
	mkdir(p, 0755);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char p[2 * PATH_MAX], parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", rel);
	char *slash = strrchr(parent, '/');
	if (slash) {
		*slash = '\0';
		mkdirs(dir, parent);
	}
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static void ln(const char *dir, const char *rel, const char *target)
{
	char p[2 * PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	assert_int_equal(symlink(target, p), 0);
}

/* The kernel and the walk agree: both open, or both fail with one errno. */
static int both(int rfd, const char *path, int oflags, int flags)
{
	int a = beneath_open(rfd, path, oflags, flags);
	int b = beneath_open(rfd, path, oflags, flags | BENEATH_WALK);
	if ((a >= 0) != (b >= 0) || (a < 0 && a != b))
		fail_msg("%s: openat2 gives %d, the walk %d", path, a, b);
	if (a >= 0) {
		struct stat sa, sb;
		assert_int_equal(fstat(a, &sa), 0);
		assert_int_equal(fstat(b, &sb), 0);
		assert_true(sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev);
		close(a);
		close(b);
		return 0;
	}
	return a;
}

/* A chain of n links, l0 -> l1 -> ... -> l(n-1) -> file. */
static void chain(const char *root, const char *prefix, int n)
{
	char name[64], target[64];
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s%d", prefix, i);
		if (i == n - 1)
			snprintf(target, sizeof(target), "a/b/c/file");
		else
			snprintf(target, sizeof(target), "%s%d", prefix, i + 1);
		ln(root, name, target);
	}
}

/* depth nested folders d0/d1/..., returned in rel. */
static void deep(const char *root, int depth, char *rel, size_t len)
{
	size_t l = 0;
	rel[0] = '\0';
	for (int i = 0; i < depth; i++)
		l += (size_t)snprintf(rel + l, len - l, "%sd%d", i ? "/" : "", i);
	mkdirs(root, rel);
}

static void test_kernel_and_walk_agree(void **state)
{
	struct scratch *s = *state;
	char rel[4096], p[8192], secret[PATH_MAX * 2];
	snprintf(secret, sizeof(secret), "%s/outside/secret", s->base);
	put(s->base, "outside/secret", "root:$6$not-for-you\n");
	put(s->root, "a/b/c/file", "inside\n");
	ln(s->root, "in", "a/b/c/file");
	ln(s->root, "a/b/updown", "../b/c");          /* inside, through ".." */
	ln(s->root, "abs", secret);
	ln(s->root, "out", "../outside/secret");
	ln(s->root, "up", "..");                      /* the chain of the issue: */
	ln(s->root, "pair", "up/outside/secret");     /* each link alone looks fine */
	ln(s->root, "loop1", "loop2");
	ln(s->root, "loop2", "loop1");
	ln(s->root, "dangling", "nowhere");
	ln(s->root, "empty-ish", "a/b/c/file/x");     /* through a file */
	chain(s->root, "ok", BENEATH_MAX_LINKS);      /* exactly the limit */
	chain(s->root, "long", BENEATH_MAX_LINKS + 1);

	/* 75 folders deep, a link that climbs out from the bottom. */
	deep(s->root, 75, rel, sizeof(rel));
	snprintf(p, sizeof(p), "%s/%s", s->root, rel);
	char target[4096] = "";
	for (int i = 0; i < 76; i++)
		strcat(target, "../");
	strcat(target, "outside/secret");
	ln(p, "hca_type", target);
	char fine[4096] = "";
	for (int i = 0; i < 75; i++)
		strcat(fine, "../");
	strcat(fine, "a/b/c/file");
	ln(p, "fine", fine);                          /* climbs to the top, stays inside */

	assert_int_equal(both(s->rfd, "/in", O_RDONLY, 0), 0);
	assert_int_equal(both(s->rfd, "a/b/updown/file", O_RDONLY, 0), 0);
	assert_int_equal(both(s->rfd, "/a/b/c/../../b/c/file", O_RDONLY, 0), 0);
	assert_int_equal(both(s->rfd, "/", O_RDONLY | O_DIRECTORY, 0), 0);
	assert_int_equal(both(s->rfd, "/abs", O_RDONLY, 0), -EXDEV);
	assert_int_equal(both(s->rfd, "/out", O_RDONLY, 0), -EXDEV);
	assert_int_equal(both(s->rfd, "/pair", O_RDONLY, 0), -EXDEV);
	assert_int_equal(both(s->rfd, "/..", O_RDONLY, 0), -EXDEV);
	assert_int_equal(both(s->rfd, "/a/../../outside/secret", O_RDONLY, 0), -EXDEV);
	assert_int_equal(both(s->rfd, "/loop1", O_RDONLY, 0), -ELOOP);
	assert_int_equal(both(s->rfd, "/dangling", O_RDONLY, 0), -ENOENT);
	assert_int_equal(both(s->rfd, "/empty-ish", O_RDONLY, 0), -ENOTDIR);
	assert_int_equal(both(s->rfd, "/ok0", O_RDONLY, 0), 0);
	assert_int_equal(both(s->rfd, "/long0", O_RDONLY, 0), -ELOOP);
	snprintf(p, sizeof(p), "/%s/hca_type", rel);
	assert_int_equal(both(s->rfd, p, O_RDONLY, 0), -EXDEV);
	snprintf(p, sizeof(p), "/%s/fine", rel);
	assert_int_equal(both(s->rfd, p, O_RDONLY, 0), 0);
	/* Not following the last link: the link itself. */
	assert_int_equal(both(s->rfd, "/abs", O_PATH, BENEATH_NOFOLLOW), 0);
	assert_int_equal(both(s->rfd, "/abs", O_RDONLY | O_NOFOLLOW, 0), -ELOOP);

	/* Where a link leads, as a path from the root. */
	char out[PATH_MAX];
	assert_int_equal(beneath_resolve(s->rfd, "/in", 0, out, sizeof(out)), 0);
	assert_string_equal(out, "/a/b/c/file");
	assert_int_equal(beneath_resolve(s->rfd, "/a/b/updown", 0, out, sizeof(out)), 0);
	assert_string_equal(out, "/a/b/c");
	assert_int_equal(beneath_resolve(s->rfd, "/a/..", 0, out, sizeof(out)), 0);
	assert_string_equal(out, "/");
	assert_int_equal(beneath_resolve(s->rfd, "/pair", 0, out, sizeof(out)), -EXDEV);
	assert_int_equal(beneath_resolve(s->rfd, "/abs", BENEATH_NOFOLLOW, out, sizeof(out)), 0);
	assert_string_equal(out, "/abs");
}

/* A FIFO, a socket-like special file: never opened for reading, never waited on. */
static void test_special_files(void **state)
{
	struct scratch *s = *state;
	char p[PATH_MAX * 2];
	snprintf(p, sizeof(p), "%s/fifo", s->root);
	assert_int_equal(mkfifo(p, 0644), 0);
	ln(s->root, "to-fifo", "fifo");
	assert_int_equal(both(s->rfd, "/fifo", O_RDONLY | O_NONBLOCK, BENEATH_FILE), -BENEATH_ENOTFILE);
	assert_int_equal(both(s->rfd, "/to-fifo", O_RDONLY | O_NONBLOCK, BENEATH_FILE), -BENEATH_ENOTFILE);
	/* A FIFO made after the tree was checked: opened without waiting (no
	 * writer, O_NONBLOCK), then refused; a socket does not even open. */
	assert_int_equal(both(s->rfd, "/fifo", O_RDONLY | O_NONBLOCK, BENEATH_FILE | BENEATH_CHECKED),
			 -BENEATH_ENOTFILE);
	assert_int_equal(both(s->rfd, "/to-fifo", O_RDONLY | O_NONBLOCK,
			      BENEATH_FILE | BENEATH_CHECKED), -BENEATH_ENOTFILE);
	/* Looking at it (O_PATH) is harmless, and allowed. */
	assert_int_equal(both(s->rfd, "/fifo", O_PATH, BENEATH_FILE), 0);
	assert_int_equal(root_open_plain(p), -BENEATH_ENOTFILE);
}

/* A process's root (/proc/PID/root), as in a chroot: an absolute link
 * starts again at the top, ".." stops there; a FIFO is still refused. */
static void test_in_root(void **state)
{
	struct scratch *s = *state;
	char p[PATH_MAX * 2];
	put(s->base, "outside/secret", "root:$6$not-for-you\n");
	put(s->root, "etc/nccl.conf", "NCCL_DEBUG=INFO\n");
	put(s->root, "home/u/real.conf", "NCCL_IB_HCA=mlx5_0\n");
	ln(s->root, "home/u/.nccl.conf", "/home/u/real.conf");       /* absolute, in the job's view */
	ln(s->root, "home/u/up.conf", "../../../../../etc/nccl.conf"); /* climbs past the top */
	ln(s->root, "home/u/out", "/../outside/secret");
	snprintf(p, sizeof(p), "%s/home/u/fifo.conf", s->root);
	assert_int_equal(mkfifo(p, 0644), 0);
	int f = BENEATH_IN_ROOT | BENEATH_FILE;
	assert_int_equal(both(s->rfd, "/home/u/.nccl.conf", O_RDONLY | O_NONBLOCK, f), 0);
	assert_int_equal(both(s->rfd, "/home/u/up.conf", O_RDONLY | O_NONBLOCK, f), 0);
	assert_int_equal(both(s->rfd, "/home/u/out", O_RDONLY | O_NONBLOCK, f), -ENOENT);
	assert_int_equal(both(s->rfd, "/home/u/fifo.conf", O_RDONLY | O_NONBLOCK, f), -BENEATH_ENOTFILE);
	/* The same links, beneath (a capture): absolute ones lead out. */
	assert_int_equal(both(s->rfd, "/home/u/.nccl.conf", O_RDONLY, 0), -EXDEV);
	int fd = root_open_in(s->root, "/home/u/.nccl.conf");
	char buf[64] = "";
	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	assert_string_equal(buf, "NCCL_IB_HCA=mlx5_0\n");
	assert_int_equal(root_open_in(s->root, "/home/u/fifo.conf"), -BENEATH_ENOTFILE);
}

/* Over PATH_MAX from the root: openat2 cannot take it, the walk can. */
static void test_longer_than_path_max(void **state)
{
	struct scratch *s = *state;
	char name[201], *path = malloc(6 * PATH_MAX);
	memset(name, 'n', 200);
	name[200] = '\0';
	int fd = openat(s->rfd, ".", O_RDONLY | O_DIRECTORY);
	size_t l = 0;
	for (int i = 0; i < 30; i++) {   /* 30 * 201 bytes */
		assert_int_equal(mkdirat(fd, name, 0755), 0);
		int sub = openat(fd, name, O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = sub;
		l += (size_t)sprintf(path + l, "/%s", name);
	}
	int f = openat(fd, "file", O_WRONLY | O_CREAT, 0644);
	assert_true(f >= 0);
	close(f);
	assert_int_equal(symlinkat("../../../../../../../../../../../../../../../../../../../../"
				   "../../../../../../../../../../../../outside", fd, "up"), 0);
	close(fd);
	assert_true(l > PATH_MAX);
	strcpy(path + l, "/file");
	fd = beneath_open(s->rfd, path, O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
	strcpy(path + l, "/up");
	assert_int_equal(beneath_open(s->rfd, path, O_PATH, 0), -EXDEV);
	/* The tree check sees it too, and the tree is removed whole. */
	char bad[PATH_MAX];
	assert_int_equal(beneath_check_tree(s->rfd, 1000, bad, sizeof(bad)), -EXDEV);
	free(path);
}

static void test_check_tree(void **state)
{
	struct scratch *s = *state;
	char rel[4096], p[8192], bad[PATH_MAX], target[4096] = "";
	put(s->root, "sys/devices/pci0000:00/0000:00:01.0/vendor", "0x15b3\n");
	ln(s->root, "sys/devices/pci0000:00/0000:00:01.0/subsystem", "../../../bus/pci");
	mkdirs(s->root, "sys/bus/pci/devices");
	ln(s->root, "sys/bus/pci/devices/0000:00:01.0", "../../../devices/pci0000:00/0000:00:01.0");
	ln(s->root, "sys/dangling", "../nowhere");
	assert_int_equal(beneath_check_tree(s->rfd, 1000, bad, sizeof(bad)), 0);
	assert_int_equal(beneath_check_tree(s->rfd, 5, bad, sizeof(bad)), -EFBIG);

	/* Below 64 folders, where the old check stopped looking. */
	deep(s->root, 80, rel, sizeof(rel));
	snprintf(p, sizeof(p), "%s/%s", s->root, rel);
	for (int i = 0; i < 81; i++)
		strcat(target, "../");
	strcat(target, "outside");
	ln(p, "hca_type", target);
	assert_int_equal(beneath_check_tree(s->rfd, 1000, bad, sizeof(bad)), -EXDEV);
	snprintf(p, sizeof(p), "%s/hca_type", rel);
	assert_string_equal(bad, p);
	char err[8192];
	beneath_explain(-EXDEV, s->rfd, bad, 1000, "root X", err, sizeof(err));
	assert_non_null(strstr(err, "root X: refused: the link d0/d1/"));
	assert_non_null(strstr(err, "leads outside it"));
	snprintf(p, sizeof(p), "%s/%s/hca_type", s->root, rel);
	unlink(p);

	snprintf(p, sizeof(p), "%s/sys/fifo", s->root);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(beneath_check_tree(s->rfd, 1000, bad, sizeof(bad)), -BENEATH_ENOTFILE);
	assert_string_equal(bad, "sys/fifo");
	beneath_explain(-BENEATH_ENOTFILE, s->rfd, bad, 1000, "root X", err, sizeof(err));
	assert_string_equal(err, "root X: refused: sys/fifo is a FIFO (a node's files are "
			    "regular files, folders and links)");
}

/* fab_rmtree: deeper than PATH_MAX, folders without write permission. */
static void test_rmtree(void **state)
{
	struct scratch *s = *state;
	char name[201], p[PATH_MAX * 2];
	memset(name, 'r', 200);
	name[200] = '\0';
	snprintf(p, sizeof(p), "%s/tree", s->base);
	assert_int_equal(mkdir(p, 0755), 0);
	int fd = open(p, O_RDONLY | O_DIRECTORY);
	for (int i = 0; i < 40; i++) {
		assert_int_equal(mkdirat(fd, name, 0755), 0);
		int f = openat(fd, "f", O_WRONLY | O_CREAT, 0644);
		close(f);
		assert_int_equal(symlinkat("/etc/passwd", fd, "l"), 0);
		int sub = openat(fd, name, O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = sub;
	}
	fchmod(fd, 0555);   /* a folder we may not write: fab_rmtree may chmod its own */
	close(fd);
	assert_int_equal(fab_rmtree(p), 0);
	struct stat st;
	assert_int_equal(lstat(p, &st), -1);
	assert_int_equal(lstat("/etc/passwd", &st), 0);   /* links are not followed */
	assert_int_equal(fab_rmtree(p), 0);               /* gone: nothing to do */
}

/* The root: a mirror with a link out is refused; one planted after the
 * check reads as EXDEV; a FIFO neither blocks nor is read. */
static void test_root_reads(void **state)
{
	struct scratch *s = *state;
	struct fab_root r;
	char err[4096], buf[256], secret[PATH_MAX * 2];
	snprintf(secret, sizeof(secret), "%s/outside/secret", s->base);
	put(s->base, "outside/secret", "root:$6$not-for-you\n");
	put(s->root, "fabtop/meta.json", "{\"format\": 1}\n");
	put(s->root, "sys/class/infiniband/.keep", "");
	ln(s->root, "sys/class/infiniband/mlx5_0", secret);
	assert_int_equal(root_open(&r, s->root, err, sizeof(err)), -1);
	char want[PATH_MAX * 4];
	snprintf(want, sizeof(want), "root %s: refused: the link sys/class/infiniband/mlx5_0 -> "
		 "%s leads outside it", s->root, secret);
	assert_string_equal(err, want);

	char p[PATH_MAX * 2];
	snprintf(p, sizeof(p), "%s/sys/class/infiniband/mlx5_0", s->root);
	unlink(p);
	assert_int_equal(root_open(&r, s->root, err, sizeof(err)), 0);
	/* Planted after the check. */
	assert_int_equal(symlink(secret, p), 0);
	assert_int_equal(root_read(&r, "/sys/class/infiniband/mlx5_0", buf, sizeof(buf)), -EXDEV);
	assert_int_equal(root_realpath(&r, "/sys/class/infiniband/mlx5_0", buf, sizeof(buf)), -EXDEV);
	assert_string_equal(root_strerror(EXDEV), "a link in the path leads outside the root");
	snprintf(p, sizeof(p), "%s/fabtop/devices.json", s->root);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(root_read(&r, "/fabtop/devices.json", buf, sizeof(buf)), -BENEATH_ENOTFILE);
	json_error_t je;
	assert_null(root_load_json(&r, "/fabtop/devices.json", &je));
	assert_int_equal(je.line, 0);
	assert_string_equal(je.text, "not a regular file (a FIFO, device or socket)");
	assert_true(root_exists(&r, "/fabtop/devices.json"));
	root_close(&r);
}

/* root_read_alloc: the cap of each kind of file, exactly. */
static void test_caps(void **state)
{
	struct scratch *s = *state;
	struct fab_root r;
	char err[512], *buf;
	size_t len;
	assert_int_equal(root_file_cap("/sys/class/net/eth0/mtu"), ROOT_MAX_FILE);
	assert_int_equal(root_file_cap("/fabtop/samples.json"), 128u << 20);
	char *big = malloc(ROOT_MAX_FILE + 2);
	memset(big, 'x', ROOT_MAX_FILE + 1);
	big[ROOT_MAX_FILE] = '\0';
	put(s->root, "fabtop/nvml.json", big);            /* exactly 1 MiB */
	big[ROOT_MAX_FILE] = 'x';
	big[ROOT_MAX_FILE + 1] = '\0';
	put(s->root, "fabtop/procs/1.json", big);         /* one byte over */
	free(big);
	assert_int_equal(root_open(&r, s->root, err, sizeof(err)), 0);
	assert_int_equal(root_read_alloc(&r, "/fabtop/nvml.json", &buf, &len), 0);
	assert_int_equal(len, ROOT_MAX_FILE);
	free(buf);
	assert_int_equal(root_read_alloc(&r, "/fabtop/procs/1.json", &buf, &len), -EFBIG);
	assert_null(buf);
	root_close(&r);
	setenv("FABTOP_CAPTURE_MAX_BYTES", "12345", 1);
	assert_int_equal(root_max_bytes(), 12345);
	setenv("FABTOP_CAPTURE_MAX_BYTES", "nonsense", 1);
	assert_int_equal(root_max_bytes(), 512ull << 20);
	unsetenv("FABTOP_CAPTURE_MAX_BYTES");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kernel_and_walk_agree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_special_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_longer_than_path_max, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rmtree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_caps, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
