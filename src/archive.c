/* archive.c - capture tarballs written through libarchive (read: memtree.c). */
#define _GNU_SOURCE
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "beneath.h"
#include "fab_archive.h"
#include "fabtop/root.h"
#include "fabtop/util.h"

/* What a capture tarball holds first, after its top folder and fabtop/:
 * a reader of the head (nodedoc.c) finds the node's own report without
 * unpacking the rest. */
static const char *const head_members[] = { "fabtop/meta.json", "fabtop/report.json", NULL };

static bool is_head(const char *rel)
{
	for (const char *const *h = head_members; *h; h++)
		if (strcmp(rel, *h) == 0)
			return true;
	return false;
}

/* One entry, and below a directory its entries (recurse) in name order,
 * less the head members, which pack() wrote already; skip_self: the
 * directory's own header was written already too. */
static int add_tree(struct archive *w, const char *src, const char *rel, const char *top,
		    bool recurse, bool skip_self, char *err, size_t errlen)
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
	if (!skip_self && archive_write_header(w, e) != ARCHIVE_OK) {
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
	} else if (S_ISDIR(st.st_mode) && recurse) {
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
				if (!is_head(sub))
					rc = add_tree(w, src, sub, top, true,
						      strcmp(sub, "fabtop") == 0, err, errlen);
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
	/* The top folder, fabtop/ and the head members, then the rest. */
	int rc = add_tree(w, src, "", top, false, false, err, errlen);
	char p[PATH_MAX];
	struct stat st;
	snprintf(p, sizeof(p), "%s/fabtop", src);
	bool has_fabtop = lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
	if (!rc && has_fabtop)
		rc = add_tree(w, src, "fabtop", top, false, false, err, errlen);
	for (const char *const *h = head_members; !rc && has_fabtop && *h; h++) {
		snprintf(p, sizeof(p), "%s/%s", src, *h);
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
			rc = add_tree(w, src, *h, top, false, false, err, errlen);
	}
	if (!rc)
		rc = add_tree(w, src, "", top, true, true, err, errlen);
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

/* getdents64's record (the libc's struct dirent is not the kernel's). */
struct kdirent {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Iterative and with two fds at most: no limit on depth or path length,
 * and only async-signal-safe calls (no malloc, no opendir), since the
 * root's signal handler removes an unpacked capture with it. Goes into a
 * folder that will not go away, empties it, comes back up by "..", and
 * removes it on the next pass over its parent. Folders it cannot empty
 * (a mode it may not change) are remembered and left. */
int fab_rmtree(const char *dir)
{
	struct { dev_t dev; ino_t ino; } stuck[64];
	int nstuck = 0, failed = 0;
	struct stat top, st;
	_Alignas(8) char buf[8192];
	int cur = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cur < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(cur, &top) != 0) {
		close(cur);
		return -1;
	}
	for (;;) {
		bool down = false, here_failed = false;
		lseek(cur, 0, SEEK_SET);
		for (;;) {
			long n = syscall(SYS_getdents64, cur, buf, sizeof(buf));
			if (n <= 0)
				break;
			for (long off = 0; off < n && !down; ) {
				struct kdirent *d = (struct kdirent *)(buf + off);
				const char *nm = d->d_name;
				off += d->d_reclen;
				if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
					continue;
				if (d->d_type != DT_DIR && unlinkat(cur, nm, 0) == 0)
					continue;
				if (unlinkat(cur, nm, AT_REMOVEDIR) == 0 || errno == ENOENT)
					continue;
				if (errno != ENOTEMPTY && errno != EEXIST) {
					here_failed = true;
					continue;
				}
				if (nstuck > 0 && fstatat(cur, nm, &st, AT_SYMLINK_NOFOLLOW) == 0) {
					bool skip = false;
					for (int i = 0; i < nstuck && !skip; i++)
						skip = stuck[i].dev == st.st_dev && stuck[i].ino == st.st_ino;
					if (skip) {
						here_failed = true;
						continue;
					}
				}
				int sub = openat(cur, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub < 0 && errno == EACCES && fchmodat(cur, nm, 0700, 0) == 0)
					sub = openat(cur, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub < 0) {
					here_failed = true;
					continue;
				}
				fchmod(sub, 0700);   /* ours: let its entries go */
				close(cur);
				cur = sub;
				down = true;
			}
			if (down)
				break;
		}
		if (down)
			continue;
		if (fstat(cur, &st) != 0)
			break;
		if (st.st_dev == top.st_dev && st.st_ino == top.st_ino) {
			failed |= here_failed;
			break;
		}
		if (here_failed) {
			if (nstuck == (int)(sizeof(stuck) / sizeof(stuck[0]))) {
				failed = 1;
				break;
			}
			stuck[nstuck].dev = st.st_dev;
			stuck[nstuck].ino = st.st_ino;
			nstuck++;
		}
		int up = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(cur);
		cur = up;
		if (cur < 0)
			return -1;
	}
	close(cur);
	if (rmdir(dir) != 0)
		return -1;
	return failed ? -1 : 0;
}
