/* Capture tarballs: pack/read round trip, truncated and garbage files, and
 * members that try to leave the capture. A capture is read into memory
 * (memtree_read_archive); unpack() writes what was read to a directory, so
 * that these checks see every member that was kept. */
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
#include <sys/stat.h>
#include <unistd.h>
#include "fab_archive.h"
#include "fabtop/root.h"
#include "memtree.h"

/* Each test gets a fresh scratch directory: base/{src,out,x.tar.gz}. */
struct scratch {
	char base[PATH_MAX];
	char src[PATH_MAX + 16];
	char out[PATH_MAX + 16];
	char tar[PATH_MAX + 16];
};

static int setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");
	if (!s)
		return -1;
	snprintf(s->base, sizeof(s->base), "%s/fabtop-test-archive.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->base))
		return -1;
	snprintf(s->src, sizeof(s->src), "%s/src", s->base);
	snprintf(s->out, sizeof(s->out), "%s/out", s->base);
	snprintf(s->tar, sizeof(s->tar), "%s/x.tar.gz", s->base);
	if (mkdir(s->src, 0755) != 0 || mkdir(s->out, 0755) != 0)
		return -1;
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct scratch *s = *state;
	fab_rmtree(s->base);
	free(s);
	return 0;
}

static void put_file(const char *dir, const char *rel, const char *data, size_t len)
{
	char p[PATH_MAX * 2], d[PATH_MAX * 2];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	/* mkdir -p of the parent */
	snprintf(d, sizeof(d), "%s", p);
	for (char *c = d + strlen(dir) + 1; *c; c++)
		if (*c == '/') {
			*c = '\0';
			mkdir(d, 0755);
			*c = '/';
		}
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return NULL;
	char *buf = malloc(1 << 22);
	size_t n = fread(buf, 1, (1 << 22) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Random, incompressible bytes: truncation then lands inside a member. */
static void put_random(const char *dir, const char *rel, size_t len, unsigned seed)
{
	char *b = malloc(len);
	for (size_t i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		b[i] = (char)(seed >> 16);
	}
	put_file(dir, rel, b, len);
	free(b);
}

/* Writes a tarball by hand, for member names archive_pack never makes. */
struct member {
	const char *name;
	char type;           /* 'f' file, 'd' dir, 'l' symlink, 'h' hard link */
	const char *data;    /* file content or link target */
};

static void write_tar(const char *tar, const struct member *m, int n)
{
	struct archive *w = archive_write_new();
	archive_write_add_filter_gzip(w);
	archive_write_set_format_pax_restricted(w);
	assert_int_equal(archive_write_open_filename(w, tar), ARCHIVE_OK);
	for (int i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();
		archive_entry_set_pathname(e, m[i].name);
		archive_entry_set_mtime(e, 1764523200, 0);
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
			archive_entry_set_perm(e, 0644);
			archive_entry_set_hardlink(e, m[i].data);
			break;
		default:
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_perm(e, 0644);
			archive_entry_set_size(e, (la_int64_t)strlen(m[i].data));
			break;
		}
		assert_int_equal(archive_write_header(w, e), ARCHIVE_OK);
		if (m[i].type == 'f')
			archive_write_data(w, m[i].data, strlen(m[i].data));
		archive_entry_free(e);
	}
	assert_int_equal(archive_write_close(w), ARCHIVE_OK);
	archive_write_free(w);
}

/* Reads tar as root_open() reads a capture, and writes the members it kept
 * under dir/<top> (dir when they have no top folder), named in top: the
 * return of memtree_read_archive(). */
static int unpack(const char *tar, const char *dir, char *top, size_t toplen,
		  char *err, size_t errlen)
{
	char name[256], werr[1024];
	int fd = open(tar, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open capture %s", tar);
		return -1;
	}
	struct memtree *t = memtree_new();
	assert_non_null(t);
	int rc = memtree_read_archive(t, fd, tar, name, sizeof(name), err, errlen);
	close(fd);
	if (rc >= 0) {
		snprintf(top, toplen, "%s%s%s", dir, name[0] ? "/" : "", name);
		assert_int_equal(memtree_write_dir(t, top, werr, sizeof(werr)), 0);
	}
	memtree_free(t);
	return rc;
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static void test_round_trip(void **state)
{
	struct scratch *s = *state;
	char err[1024] = "", top[PATH_MAX], p[PATH_MAX * 2], l[256];
	put_file(s->src, "sys/bus/pci/devices/.keep", "", 0);
	put_file(s->src, "sys/devices/pci0000:00/0000:00:01.0/vendor", "0x15b3\n", 7);
	put_file(s->src, "sys/devices/pci0000:00/0000:00:01.0/empty", "", 0);
	put_random(s->src, "sys/devices/pci0000:00/0000:00:01.0/config", 4096, 7);
	put_file(s->src, "fabtop/meta.json", "{\"format\": 1}\n", 14);
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/0000:00:01.0", s->src);
	assert_int_equal(symlink("../../../devices/pci0000:00/0000:00:01.0", p), 0);

	assert_int_equal(archive_pack(s->src, "node17-20261130T172000", s->tar, err, sizeof(err)), 0);
	assert_int_equal(unpack(s->tar, s->out, top, sizeof(top), err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/node17-20261130T172000", s->out);
	assert_string_equal(top, p);

	size_t a, b;
	char *x, *y;
	snprintf(p, sizeof(p), "%s/sys/devices/pci0000:00/0000:00:01.0/config", top);
	x = slurp(p, &a);
	snprintf(p, sizeof(p), "%s/sys/devices/pci0000:00/0000:00:01.0/config", s->src);
	y = slurp(p, &b);
	assert_non_null(x);
	assert_non_null(y);
	assert_int_equal(a, 4096);
	assert_int_equal(a, b);
	assert_memory_equal(x, y, a);
	free(x);
	free(y);
	snprintf(p, sizeof(p), "%s/sys/devices/pci0000:00/0000:00:01.0/empty", top);
	x = slurp(p, &a);
	assert_non_null(x);
	assert_int_equal(a, 0);
	free(x);
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/0000:00:01.0", top);
	ssize_t n = readlink(p, l, sizeof(l) - 1);
	assert_true(n > 0);
	l[n] = '\0';
	assert_string_equal(l, "../../../devices/pci0000:00/0000:00:01.0");

	/* The same through root_open: a capture, read by node paths. */
	struct fab_root r;
	char buf[256];
	assert_int_equal(root_open(&r, s->tar, err, sizeof(err)), 0);
	assert_true(r.is_capture);
	assert_false(r.live);
	assert_string_equal(r.warning, "");
	assert_string_equal(r.name, "x");
	assert_int_equal(root_read_line(&r, "/sys/bus/pci/devices/0000:00:01.0/vendor", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x15b3");
	assert_int_equal(root_realpath(&r, "/sys/bus/pci/devices/0000:00:01.0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/devices/pci0000:00/0000:00:01.0");
	assert_non_null(r.mem);          /* served from memory: no host path */
	assert_string_equal(r.dir, "");
	assert_null(root_path(&r, "/sys", buf, sizeof(buf)));
	root_close(&r);
	assert_null(r.mem);
}

static void test_truncated(void **state)
{
	struct scratch *s = *state;
	char err[1024] = "", top[PATH_MAX], p[PATH_MAX * 2];
	put_file(s->src, "fabtop/meta.json", "{\"format\": 1}\n", 14);
	put_file(s->src, "sys/a_first", "first\n", 6);
	put_random(s->src, "sys/b_big", 200000, 1);
	put_random(s->src, "sys/c_big", 200000, 2);
	put_file(s->src, "sys/d_last", "last\n", 5);
	assert_int_equal(archive_pack(s->src, "cap", s->tar, err, sizeof(err)), 0);
	struct stat st;
	assert_int_equal(stat(s->tar, &st), 0);
	assert_int_equal(truncate(s->tar, st.st_size / 2), 0);

	err[0] = '\0';
	int rc = unpack(s->tar, s->out, top, sizeof(top), err, sizeof(err));
	print_message("# truncated: rc %d: %s\n", rc, err);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "truncated"));
	assert_non_null(strstr(err, s->tar));
	assert_non_null(strstr(err, "sys/b_big"));   /* the member where it broke */
	snprintf(p, sizeof(p), "%s/cap", s->out);
	assert_string_equal(top, p);
	snprintf(p, sizeof(p), "%s/cap/sys/a_first", s->out);
	char *x = slurp(p, NULL);
	assert_non_null(x);
	assert_string_equal(x, "first\n");
	free(x);
	snprintf(p, sizeof(p), "%s/cap/fabtop/meta.json", s->out);
	assert_true(exists(p));
	snprintf(p, sizeof(p), "%s/cap/sys/d_last", s->out);
	assert_false(exists(p));

	/* root_open keeps what came before the break and says what was lost. */
	struct fab_root r;
	char buf[64];
	assert_int_equal(root_open(&r, s->tar, err, sizeof(err)), 0);
	assert_non_null(strstr(r.warning, "truncated"));
	assert_true(r.is_capture);
	assert_int_equal(root_read_line(&r, "/sys/a_first", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "first");
	root_close(&r);
}

static void test_truncated_early(void **state)
{
	struct scratch *s = *state;
	char err[1024] = "", top[PATH_MAX];
	put_random(s->src, "sys/a_big", 100000, 3);
	assert_int_equal(archive_pack(s->src, "cap", s->tar, err, sizeof(err)), 0);
	assert_int_equal(truncate(s->tar, 100), 0);   /* inside the first header */
	int rc = unpack(s->tar, s->out, top, sizeof(top), err, sizeof(err));
	print_message("# truncated early: rc %d: %s\n", rc, err);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, s->tar));
	struct fab_root r;
	assert_int_equal(root_open(&r, s->tar, err, sizeof(err)), -1);
	assert_null(r.mem);
}

static void test_garbage(void **state)
{
	struct scratch *s = *state;
	char err[1024] = "", top[PATH_MAX];
	put_random(s->base, "x.tar.gz", 10000, 9);
	int rc = unpack(s->tar, s->out, top, sizeof(top), err, sizeof(err));
	print_message("# garbage: rc %d: %s\n", rc, err);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, s->tar));
	assert_true(strlen(err) > strlen(s->tar) + 10);   /* says why, not just where */

	/* Through root_open: -1, a message, and no temporary directory left. */
	struct fab_root r;
	err[0] = '\0';
	assert_int_equal(root_open(&r, s->tar, err, sizeof(err)), -1);
	assert_non_null(strstr(err, s->tar));
	assert_null(r.mem);

	/* An empty file and a plain text file are not captures either. */
	put_file(s->base, "x.tar.gz", "", 0);
	assert_int_equal(root_open(&r, s->tar, err, sizeof(err)), -1);
	assert_non_null(strstr(err, s->tar));
	put_file(s->base, "x.tar.gz", "hello, world\n", 13);
	assert_int_equal(root_open(&r, s->tar, err, sizeof(err)), -1);
	assert_non_null(strstr(err, s->tar));
}

static void expect_refused(struct scratch *s, const struct member *m, int n,
			   const char *what, const char *outside)
{
	char err[1024] = "", top[PATH_MAX];
	write_tar(s->tar, m, n);
	int rc = unpack(s->tar, s->out, top, sizeof(top), err, sizeof(err));
	print_message("# %s: rc %d: %s\n", what, rc, err);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "refused"));
	assert_non_null(strstr(err, what));
	if (outside)
		assert_false(exists(outside));
	struct fab_root r;
	assert_int_equal(root_open(&r, s->tar, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "refused"));
}

static void test_dotdot(void **state)
{
	struct scratch *s = *state;
	char outside[PATH_MAX * 2];
	snprintf(outside, sizeof(outside), "%s/evil", s->base);
	const struct member m[] = {
		{ "cap/fabtop/meta.json", 'f', "{}" },
		{ "../evil", 'f', "pwned\n" },
	};
	expect_refused(s, m, 2, "../evil", outside);
	const struct member m2[] = { { "cap/sys/../../evil", 'f', "pwned\n" } };
	fab_rmtree(s->out);
	mkdir(s->out, 0755);
	expect_refused(s, m2, 1, "cap/sys/../../evil", outside);
}

static void test_absolute(void **state)
{
	struct scratch *s = *state;
	char abs[PATH_MAX * 2];
	snprintf(abs, sizeof(abs), "%s/abs-member", s->base);   /* a path we may write */
	const struct member m[] = {
		{ "cap/fabtop/meta.json", 'f', "{}" },
		{ abs, 'f', "pwned\n" },
	};
	expect_refused(s, m, 2, abs, abs);
	const struct member m2[] = { { "/abs", 'f', "pwned\n" } };
	fab_rmtree(s->out);
	mkdir(s->out, 0755);
	expect_refused(s, m2, 1, "/abs", "/abs");
}

static void test_symlink_outside(void **state)
{
	struct scratch *s = *state;
	const struct member rel[] = {
		{ "cap/sys/bus/pci/devices/0000:00:01.0", 'l', "../../../../../../etc" },
	};
	expect_refused(s, rel, 1, "../../../../../../etc", NULL);
	const struct member absl[] = { { "cap/sys/x", 'l', "/etc/passwd" } };
	fab_rmtree(s->out);
	mkdir(s->out, 0755);
	expect_refused(s, absl, 1, "/etc/passwd", NULL);
	/* Each link stays inside on its own; together they lead out. */
	const struct member chain[] = {
		{ "cap/x/b", 'l', ".." },
		{ "cap/a", 'l', "x/b/../.." },
	};
	fab_rmtree(s->out);
	mkdir(s->out, 0755);
	expect_refused(s, chain, 2, "cap/a", NULL);
	/* A hard link is never part of a capture. */
	const struct member hard[] = {
		{ "cap/f", 'f', "x" },
		{ "cap/g", 'h', "cap/f" },
	};
	fab_rmtree(s->out);
	mkdir(s->out, 0755);
	expect_refused(s, hard, 2, "cap/g", NULL);
}

static void test_symlink_inside(void **state)
{
	struct scratch *s = *state;
	char err[1024] = "", top[PATH_MAX];
	/* sysfs links are relative and stay inside: kept, even when dangling. */
	const struct member m[] = {
		{ "cap/sys/devices/pci0000:00/0000:00:01.0/vendor", 'f', "0x8086\n" },
		{ "cap/sys/bus/pci/devices/0000:00:01.0", 'l', "../../../devices/pci0000:00/0000:00:01.0" },
		{ "cap/sys/bus/pci/devices/0000:00:02.0", 'l', "../../../devices/pci0000:00/0000:00:02.0" },
	};
	write_tar(s->tar, m, 3);
	assert_int_equal(unpack(s->tar, s->out, top, sizeof(top), err, sizeof(err)), 0);
	struct fab_root r;
	char buf[64];
	assert_int_equal(root_open(&r, s->tar, err, sizeof(err)), 0);
	assert_int_equal(root_read_line(&r, "/sys/bus/pci/devices/0000:00:01.0/vendor", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x8086");
	assert_int_equal(root_realpath(&r, "/sys/bus/pci/devices/0000:00:02.0", buf, sizeof(buf)), -ENOENT);
	root_close(&r);
}

/* Nothing of a refused capture stays in $TMPDIR. */
static void expect_refused_whole(struct scratch *s, const char *want)
{
	char err[8192] = "", tmp[PATH_MAX * 2];
	struct fab_root r;
	snprintf(tmp, sizeof(tmp), "%s/tmp", s->base);
	mkdir(tmp, 0700);
	setenv("TMPDIR", tmp, 1);
	int rc = root_open(&r, s->tar, err, sizeof(err));
	unsetenv("TMPDIR");
	print_message("# %s\n", err);
	assert_int_equal(rc, -1);
	char full[8192];
	snprintf(full, sizeof(full), "capture %s: %s", s->tar, want);
	assert_string_equal(err, full);
	assert_int_equal(rmdir(tmp), 0);   /* empty: the unpacked part is gone */
}

static char *filled(size_t n, char c)
{
	char *b = malloc(n + 1);
	memset(b, c, n);
	b[n] = '\0';
	return b;
}

/* Each member at most the format's limit for its kind, to the byte. */
static void test_member_cap(void **state)
{
	struct scratch *s = *state;
	char err[1024], top[PATH_MAX];
	char *mib = filled(1 << 20, 'x'), *over = filled((1 << 20) + 1, 'x');
	char *samples = filled(3 << 20, ' ');
	const struct member ok[] = {
		{ "cap/fabtop/meta.json", 'f', "{}" },
		{ "cap/sys/mib", 'f', mib },
		{ "cap/fabtop/samples.json", 'f', samples },   /* grows with --samples */
	};
	write_tar(s->tar, ok, 3);
	assert_int_equal(unpack(s->tar, s->out, top, sizeof(top), err, sizeof(err)), 0);
	const struct member bad[] = {
		{ "cap/fabtop/meta.json", 'f', "{}" },
		{ "cap/sys/over", 'f', over },
	};
	write_tar(s->tar, bad, 2);
	expect_refused_whole(s, "refused member cap/sys/over: 1048577 bytes, over the "
			     "format's 1048576 for it");
	free(mib);
	free(over);
	free(samples);
}

/* A bomb: each member within its cap, too many bytes or members in all. */
static void test_total_caps(void **state)
{
	struct scratch *s = *state;
	char *mib = filled(1 << 20, '\0' + '0');
	const struct member m[] = {
		{ "cap/fabtop/meta.json", 'f', "{}" },
		{ "cap/sys/z1", 'f', mib }, { "cap/sys/z2", 'f', mib },
		{ "cap/sys/z3", 'f', mib }, { "cap/sys/z4", 'f', mib },
	};
	write_tar(s->tar, m, 5);
	setenv("FABTOP_CAPTURE_MAX_BYTES", "3000000", 1);
	expect_refused_whole(s, "refused: it unpacks to more than 3000000 bytes "
			     "(FABTOP_CAPTURE_MAX_BYTES)");
	unsetenv("FABTOP_CAPTURE_MAX_BYTES");
	setenv("FABTOP_CAPTURE_MAX_MEMBERS", "4", 1);
	expect_refused_whole(s, "refused: more than 4 members (FABTOP_CAPTURE_MAX_MEMBERS)");
	unsetenv("FABTOP_CAPTURE_MAX_MEMBERS");
	free(mib);
}

/* A name over PATH_MAX is refused, never cut (cut alike, two long names
 * would be one file); nothing is left behind. */
static void test_long_name(void **state)
{
	struct scratch *s = *state;
	char *name = filled(5000, 'n');
	memcpy(name, "cap/", 4);
	for (size_t i = 200; i < 5000; i += 200)
		name[i] = '/';
	const struct member m[] = {
		{ "cap/fabtop/meta.json", 'f', "{}" },
		{ name, 'f', "x" },
	};
	write_tar(s->tar, m, 2);
	expect_refused_whole(s, "refused a member name of 5000 bytes (longer than PATH_MAX, 4096)");
	free(name);
}

/* A link below 64 folders is checked like any other (the old check stopped). */
static void test_deep_link(void **state)
{
	struct scratch *s = *state;
	char dir[1024] = "cap", link[1200], target[1024] = "";
	for (int i = 0; i < 80; i++)
		snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/d%d", i);
	snprintf(link, sizeof(link), "%s/up", dir);
	for (int i = 0; i < 81; i++)
		strcat(target, "../");   /* to the unpack folder, above cap/ */
	const struct member m[] = {
		{ "cap/fabtop/meta.json", 'f', "{}" },
		{ link, 'l', target },
	};
	write_tar(s->tar, m, 2);
	char want[4096];
	snprintf(want, sizeof(want), "refused: the link %s -> %s leads outside it", link, target);
	expect_refused_whole(s, want);
}

static void test_pack_errors(void **state)
{
	struct scratch *s = *state;
	char err[1024] = "";
	assert_int_equal(archive_pack(s->src, "cap", "/nonexistent-dir/x.tar.gz", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent-dir/x.tar.gz"));
	char missing[PATH_MAX * 2];
	snprintf(missing, sizeof(missing), "%s/missing", s->base);
	assert_int_equal(archive_pack(missing, "cap", s->tar, err, sizeof(err)), -1);
	assert_non_null(strstr(err, missing));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_early, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dotdot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absolute, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_outside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_inside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_member_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_total_caps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deep_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_errors, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
