/* archive.c - a directory packed as a capture tarball (memtree.c writes it; it reads captures too), and fab_rmtree(). */
#define _GNU_SOURCE
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
#include "memtree.h"
#include "fabtop/root.h"
#include "fabtop/util.h"

/* Adds the directory host (node path node) and what it holds to t: files
 * (read whole), folders and links as they are, nothing followed. */
static int tree_of_dir(struct memtree *t, const char *host, const char *node,
		       char *err, size_t errlen)
{
	struct dirent **list;
	int nn = scandir(host, &list, NULL, alphasort), rc = 0;
	if (nn < 0) {
		snprintf(err, errlen, "cannot list %s: %s", host, strerror(errno));
		return -1;
	}
	for (int i = 0; i < nn; i++) {
		const char *d = list[i]->d_name;
		char hp[PATH_MAX], np[PATH_MAX];
		struct stat st;
		if (rc || !strcmp(d, ".") || !strcmp(d, ".."))
			goto next;
		snprintf(hp, sizeof(hp), "%s/%s", host, d);
		snprintf(np, sizeof(np), "%s/%s", node, d);
		if (lstat(hp, &st) != 0) {
			snprintf(err, errlen, "cannot stat %s: %s", hp, strerror(errno));
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			rc = memtree_add_dir(t, np, st.st_mode & 07777);
			if (rc == 0)
				rc = tree_of_dir(t, hp, np, err, errlen);
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlink(hp, target, sizeof(target) - 1);
			if (n >= 0) {
				target[n] = '\0';
				rc = memtree_add_link(t, np, target);
			}
		} else if (S_ISREG(st.st_mode)) {
			char *buf = NULL;
			size_t len = 0;
			FILE *f = fopen(hp, "re");
			rc = -1;
			if (f) {
				buf = malloc((size_t)st.st_size + 1);
				len = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
				rc = buf && !ferror(f) ? memtree_add_file(t, np, buf, len,
									  st.st_mode & 07777) : -1;
				fclose(f);
			}
			free(buf);
			if (rc == -1)
				snprintf(err, errlen, "cannot read %s: %s", hp, strerror(errno));
		}
		if (rc < -1) {
			snprintf(err, errlen, "cannot pack %s: %s", hp, strerror(-rc));
			rc = -1;
		}
next:
		free(list[i]);
	}
	free(list);
	return rc;
}

/* The directory read into memory, then written as `capture` writes its
 * tree (memtree_write_archive: one writer, one order, the same bytes). */
int archive_pack(const char *src, const char *top, const char *tarball,
		 char *err, size_t errlen)
{
	struct stat st;
	struct memtree *t = memtree_new();
	int rc = -1;
	if (!t) {
		snprintf(err, errlen, "cannot pack %s: out of memory", src);
		return -1;
	}
	if (stat(src, &st) != 0) {
		snprintf(err, errlen, "cannot pack %s: %s", src, strerror(errno));
		goto out;
	}
	if (tree_of_dir(t, src, "", err, errlen) != 0)
		goto out;
	int fd = open(tarball, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", tarball, strerror(errno));
		goto out;
	}
	rc = memtree_write_archive(t, top, fd, tarball, (long long)st.st_mtime, err, errlen);
	if (close(fd) != 0 && rc == 0) {
		snprintf(err, errlen, "cannot write %s: %s", tarball, strerror(errno));
		rc = -1;
	}
out:
	memtree_free(t);
	return rc;
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
