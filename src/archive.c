/* archive.c - capture tarballs through libarchive, with path safety checks. */
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

int archive_unpack(const char *tarball, const char *dir, char *top, size_t toplen,
		   char *err, size_t errlen)
{
	struct archive *a = archive_read_new();
	struct archive *w = archive_write_disk_new();
	struct archive_entry *e;
	char common[256] = "", first[256], last[PATH_MAX] = "", root[PATH_MAX];
	bool one_top = true;
	int members = 0, rc = 0;
	unsigned long long total = 0, max_bytes = root_max_bytes();
	size_t entries = 0, max_entries = root_max_entries();

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
		/* A bomb of tiny members costs as much as one large one. */
		if (++entries > max_entries) {
			snprintf(err, errlen, "capture %s: refused: more than %zu members "
				 "(FABTOP_CAPTURE_MAX_MEMBERS)", tarball, max_entries);
			rc = -1;
			break;
		}
		/* A copy: set_pathname() below frees the entry's own string. Never
		 * cut: two long names cut alike would land on one file. */
		char name[PATH_MAX];
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
		/* The sizes the header declares, before a byte is written. */
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
		size_t bsize;
		la_int64_t off;
		int d;
		bool over = false;
		/* The data never goes past what the header declared (a sparse
		 * entry's blocks carry their own offsets). */
		while ((d = archive_read_data_block(a, &buf, &bsize, &off)) == ARCHIVE_OK) {
			if (off < 0 || (unsigned long long)off + bsize > (unsigned long long)size) {
				over = true;
				break;
			}
			if (archive_write_data_block(w, buf, bsize, off) < ARCHIVE_WARN)
				break;
		}
		archive_write_finish_entry(w);
		if (over) {
			snprintf(err, errlen, "capture %s: refused member %s: its data runs past the "
				 "%lld bytes its header declares", tarball, name, (long long)size);
			rc = -1;
			break;
		}
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
		if (one_top && common[0])
			snprintf(top, toplen, "%s/%s", root, common);
		else
			fab_strlcpy(top, root, toplen);
		/* Every link, once the tree is complete: links that each stay
		 * inside can still lead out together ("b -> .." and "a -> b/..").
		 * Inside means inside the top folder: the root reads beneath it. */
		char bad[PATH_MAX] = "", named[2 * PATH_MAX], what[PATH_MAX + 16];
		int tfd = open(top, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int c = tfd < 0 ? -errno : beneath_check_tree(tfd, max_entries, bad, sizeof(bad));
		if (tfd >= 0)
			close(tfd);
		if (c != 0) {
			/* Named as the member is in the tarball: with its top folder. */
			int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
			snprintf(named, sizeof(named), "%s%s%s", one_top && common[0] ? common : "",
				 one_top && common[0] && bad[0] ? "/" : "", bad);
			snprintf(what, sizeof(what), "capture %s", tarball);
			beneath_explain(c, rfd, named, max_entries, what, err, errlen);
			if (rfd >= 0)
				close(rfd);
			rc = -1;
		}
	}
out:
	archive_read_free(a);
	archive_write_free(w);
	return rc;
}

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
