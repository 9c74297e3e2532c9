/* archive.c - capture tarballs through libarchive, with path safety checks. */
#define _GNU_SOURCE
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif
#include "fab_archive.h"
#include "fabtop/util.h"

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
 * inside the tree (checked lexically: the tree has no other links yet). */
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

/* Resolves rel (a symlink) beneath rootfd: 0 when it stays inside the tree
 * or is dangling, -1 when some step of it leads out (or loops). */
static int link_stays_inside(int rootfd, const char *root, const char *rel)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	for (int tries = 0; tries < 3; tries++) {
		int fd = (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;   /* dangling: nothing can be read through it */
		if (errno == EXDEV || errno == ELOOP)
			return -1;
		if (errno != EAGAIN)
			break;   /* ENOSYS (kernel < 5.6) and the like: check below */
	}
#else
	(void)rootfd;
#endif
	char full[2 * PATH_MAX], res[PATH_MAX];
	snprintf(full, sizeof(full), "%s/%s", root, rel);
	if (!realpath(full, res))
		return errno == ELOOP ? -1 : 0;
	size_t n = strlen(root);
	return strncmp(res, root, n) == 0 && (res[n] == '/' || res[n] == '\0') ? 0 : -1;
}

/* Every link is checked once the tree is complete: links that each stay
 * inside can still lead out together ("b -> .." and "a -> b/.."). */
static int check_links(int rootfd, const char *root, int dfd, const char *rel,
		       char *bad, size_t badlen, int depth)
{
	int lfd = dup(dfd);
	DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
	if (!d) {
		if (lfd >= 0)
			close(lfd);
		return 0;
	}
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char sub[PATH_MAX];
		struct stat st;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			if (link_stays_inside(rootfd, root, sub) != 0) {
				fab_strlcpy(bad, sub, badlen);
				rc = -1;
			}
		} else if (S_ISDIR(st.st_mode) && depth < 64) {
			int sfd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sfd >= 0) {
				rc = check_links(rootfd, root, sfd, sub, bad, badlen, depth + 1);
				close(sfd);
			}
		}
	}
	closedir(d);
	return rc;
}

int archive_unpack(const char *tarball, const char *dir, char *top, size_t toplen,
		   char *err, size_t errlen)
{
	struct archive *a = archive_read_new();
	struct archive *w = archive_write_disk_new();
	struct archive_entry *e;
	char common[256] = "", first[256], last[PATH_MAX] = "", root[PATH_MAX];
	bool one_top = true;
	int members = 0, rc = 0;

	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	/* Names are checked below and joined to the (absolute) directory, so
	 * SECURE_NOABSOLUTEPATHS would refuse every member. */
	archive_write_disk_set_options(w, ARCHIVE_EXTRACT_SECURE_NODOTDOT |
		ARCHIVE_EXTRACT_SECURE_SYMLINKS);
	/* The real path: SECURE_SYMLINKS also refuses links above the tree. */
	if (!realpath(dir, root)) {
		snprintf(err, errlen, "cannot unpack capture %s into %s: %s", tarball, dir,
			 strerror(errno));
		rc = -1;
		goto out;
	}
	if (archive_read_open_filename(a, tarball, 65536) != ARCHIVE_OK) {
		snprintf(err, errlen, "cannot open capture %s: %s", tarball,
			 archive_error_string(a));
		rc = -1;
		goto out;
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
		/* A copy: set_pathname() below frees the entry's own string. */
		char name[PATH_MAX];
		const char *ename = archive_entry_pathname(e);
		fab_strlcpy(name, ename ? ename : "", sizeof(name));
		if (!safe_name(name)) {
			snprintf(err, errlen, "capture %s: refused member \"%s\" (absolute or '..' path)",
				 tarball, name);
			rc = -1;
			break;
		}
		const char *lt = archive_entry_symlink(e);
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
		if (first_component(name, first, sizeof(first)) != 0)
			one_top = false;
		else if (!common[0])
			fab_strlcpy(common, first, sizeof(common));
		else if (strcmp(common, first) != 0)
			one_top = false;
		char full[2 * PATH_MAX];
		snprintf(full, sizeof(full), "%s/%s", root, name);
		archive_entry_set_pathname(e, full);
		/* Keep files readable by us whatever the capture's modes were. */
		archive_entry_set_perm(e, type == AE_IFDIR ? 0755 : 0644);
		if (archive_write_header(w, e) < ARCHIVE_WARN) {
			snprintf(err, errlen, "capture %s: cannot unpack %s: %s", tarball, name,
				 archive_error_string(w));
			rc = members ? 1 : -1;
			break;
		}
		const void *buf;
		size_t size;
		la_int64_t off;
		int d;
		while ((d = archive_read_data_block(a, &buf, &size, &off)) == ARCHIVE_OK)
			if (archive_write_data_block(w, buf, size, off) < ARCHIVE_WARN)
				break;
		archive_write_finish_entry(w);
		if (d < ARCHIVE_WARN) {
			snprintf(err, errlen, "capture %s is truncated or corrupt in member %s "
				 "(%d member(s) before it kept): %s", tarball, name, members,
				 archive_error_string(a));
			rc = members ? 1 : -1;
			break;
		}
		fab_strlcpy(last, name, sizeof(last));
		members++;
	}
	if (rc == 0 && members == 0) {
		snprintf(err, errlen, "capture %s holds no files", tarball);
		rc = -1;
	}
	if (rc >= 0) {
		char bad[PATH_MAX] = "";
		int rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (rfd < 0 || check_links(rfd, root, rfd, "", bad, sizeof(bad), 0) != 0) {
			if (bad[0])
				snprintf(err, errlen, "capture %s: refused link %s (with the other links "
					 "it points outside the capture)", tarball, bad);
			else
				snprintf(err, errlen, "cannot check the links of capture %s: %s",
					 tarball, strerror(errno));
			rc = -1;
		}
		if (rfd >= 0)
			close(rfd);
	}
out:
	archive_read_free(a);
	archive_write_free(w);
	if (rc >= 0) {
		if (one_top && common[0])
			snprintf(top, toplen, "%s/%s", root, common);
		else
			fab_strlcpy(top, root, toplen);
	}
	return rc;
}

static int add_tree(struct archive *w, const char *src, const char *rel, const char *top,
		    char *err, size_t errlen)
{
	char path[PATH_MAX], name[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof(path), "%s%s%s", src, *rel ? "/" : "", rel);
	if (lstat(path, &st) != 0) {
		snprintf(err, errlen, "cannot stat %s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(name, sizeof(name), "%s%s%s", top, *rel ? "/" : "", rel);
	struct archive_entry *e = archive_entry_new();
	archive_entry_copy_stat(e, &st);
	archive_entry_set_pathname(e, name);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	if (S_ISLNK(st.st_mode)) {
		char t[PATH_MAX];
		ssize_t n = readlink(path, t, sizeof(t) - 1);
		if (n < 0) {
			archive_entry_free(e);
			return 0;
		}
		t[n] = '\0';
		archive_entry_set_symlink(e, t);
	}
	if (archive_write_header(w, e) != ARCHIVE_OK) {
		snprintf(err, errlen, "cannot write %s: %s", name, archive_error_string(w));
		archive_entry_free(e);
		return -1;
	}
	archive_entry_free(e);
	if (S_ISREG(st.st_mode)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
			return -1;
		}
		char buf[65536];
		ssize_t n;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			archive_write_data(w, buf, (size_t)n);
		close(fd);
	} else if (S_ISDIR(st.st_mode)) {
		int nn = 0;
		struct dirent **list;
		nn = scandir(path, &list, NULL, alphasort);
		if (nn < 0) {
			snprintf(err, errlen, "cannot list %s: %s", path, strerror(errno));
			return -1;
		}
		int rc = 0;
		for (int i = 0; i < nn; i++) {
			const char *d = list[i]->d_name;
			if (!rc && strcmp(d, ".") && strcmp(d, "..")) {
				char sub[PATH_MAX];
				snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", d);
				rc = add_tree(w, src, sub, top, err, errlen);
			}
			free(list[i]);
		}
		free(list);
		return rc;
	}
	return 0;
}

/* fd >= 0: written there (name only names it in messages); else tarball
 * is created. */
static int pack(const char *src, const char *top, const char *tarball, int fd,
		char *err, size_t errlen)
{
	struct archive *w = archive_write_new();
	archive_write_add_filter_gzip(w);
	archive_write_set_format_pax_restricted(w);
	/* No padding after the gzip stream, whatever fd is (a FIFO, a device). */
	archive_write_set_bytes_in_last_block(w, 1);
	int orc = fd >= 0 ? archive_write_open_fd(w, fd) : archive_write_open_filename(w, tarball);
	if (orc != ARCHIVE_OK) {
		snprintf(err, errlen, "cannot create %s: %s", tarball, archive_error_string(w));
		archive_write_free(w);
		return -1;
	}
	int rc = add_tree(w, src, "", top, err, errlen);
	if (archive_write_close(w) != ARCHIVE_OK && rc == 0) {
		snprintf(err, errlen, "cannot finish %s: %s", tarball, archive_error_string(w));
		rc = -1;
	}
	archive_write_free(w);
	return rc;
}

int archive_pack(const char *src, const char *top, const char *tarball,
		 char *err, size_t errlen)
{
	return pack(src, top, tarball, -1, err, errlen);
}

int archive_pack_fd(const char *src, const char *top, int fd, const char *name,
		    char *err, size_t errlen)
{
	return pack(src, top, name, fd, err, errlen);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

int fab_rmtree(const char *dir)
{
	return nftw(dir, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}
