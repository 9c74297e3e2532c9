/* beneath.c - path resolution that never leaves a directory (beneath.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif
#include "beneath.h"
#include "fabtop/util.h"

#define WALK_DIR (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* ---- the kernel's way ---- */

/* openat2() beneath dirfd; -ENOSYS means "ask the walk" (an old kernel, a
 * seccomp filter that does not know the call, a path over PATH_MAX). */
static int kernel_open(int dirfd, const char *path, int oflags, int flags)
{
#ifdef SYS_openat2
	static int missing;   /* ENOSYS once: it will not appear later */
	if (missing)
		return -ENOSYS;
	struct open_how how = {
		/* openat2 refuses O_PATH with anything but these */
		.flags = (unsigned long long)(oflags | O_CLOEXEC |
			 (oflags & O_PATH ? 0 : O_NOCTTY) |
			 (flags & BENEATH_NOFOLLOW ? O_NOFOLLOW : 0)),
		.resolve = (flags & BENEATH_IN_ROOT ? RESOLVE_IN_ROOT : RESOLVE_BENEATH) |
			   RESOLVE_NO_MAGICLINKS,
	};
	/* EAGAIN: a rename raced the lookup; the kernel asks to retry. */
	for (int tries = 0; tries < 8; tries++) {
		int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
		if (fd >= 0)
			return fd;
		switch (errno) {
		case EAGAIN:
			continue;
		case ENOSYS:
			missing = 1;
			return -ENOSYS;
		case EPERM:         /* seccomp profiles that predate openat2 */
		case ENAMETOOLONG:  /* the walk has no length limit */
		case E2BIG:
			return -ENOSYS;
		default:
			return -errno;
		}
	}
	return -ENOSYS;
#else
	(void)dirfd; (void)path; (void)oflags; (void)flags;
	return -ENOSYS;
#endif
}

/* ---- the walk ---- */

struct level {
	dev_t dev;
	ino_t ino;
	size_t reslen;     /* length of the resolved path at this level */
};

struct walk {
	int dirfd, cur;    /* cur == dirfd until the walk enters a directory */
	struct level *lv;  /* lv[0] is dirfd, lv[nlv - 1] is cur */
	size_t nlv, caplv;
	char *res;         /* the resolved path, when asked for */
	size_t reslen, rescap;
};

static int push_level(struct walk *w, const struct stat *st)
{
	if (w->nlv == w->caplv) {
		size_t cap = w->caplv ? 2 * w->caplv : 16;
		struct level *lv = realloc(w->lv, cap * sizeof(*lv));
		if (!lv)
			return -ENOMEM;
		w->lv = lv;
		w->caplv = cap;
	}
	w->lv[w->nlv++] = (struct level){ st->st_dev, st->st_ino, w->reslen };
	return 0;
}

static int res_append(struct walk *w, const char *name, size_t n)
{
	if (w->rescap == 0)
		return 0;   /* not asked for */
	if (w->reslen + n + 2 > w->rescap) {
		size_t cap = 2 * (w->reslen + n + 2);
		char *r = realloc(w->res, cap);
		if (!r)
			return -ENOMEM;
		w->res = r;
		w->rescap = cap;
	}
	w->res[w->reslen++] = '/';
	memcpy(w->res + w->reslen, name, n);
	w->reslen += n;
	w->res[w->reslen] = '\0';
	return 0;
}

static void set_cur(struct walk *w, int fd)
{
	if (w->cur != w->dirfd)
		close(w->cur);
	w->cur = fd;
}

/* ".." from cur: the directory it came from, never above dirfd. The parent
 * is opened and checked against the one recorded on the way down, so a
 * directory moved away meanwhile cannot lead out. */
static int walk_up(struct walk *w, int flags)
{
	struct stat st;
	if (w->nlv <= 1)
		return flags & BENEATH_IN_ROOT ? 0 : -EXDEV;   /* "/.." is "/" in a chroot */
	int fd = openat(w->cur, "..", WALK_DIR);
	if (fd < 0)
		return -errno;
	const struct level *up = &w->lv[w->nlv - 2];
	if (fstat(fd, &st) != 0 || st.st_dev != up->dev || st.st_ino != up->ino) {
		close(fd);
		return -EXDEV;
	}
	set_cur(w, fd);
	w->nlv--;
	w->reslen = up->reslen;
	if (w->res)
		w->res[w->reslen] = '\0';
	return 0;
}

/* Resolves path beneath dirfd one component at a time. With want_fd, opens
 * the result with oflags and returns the fd; otherwise fills w->res. */
static int walk(struct walk *w, const char *path, int oflags, int flags, bool want_fd)
{
	char name[NAME_MAX + 1], target[PATH_MAX];
	char *rest = strdup(path);
	const char *p = rest;
	int links = 0, rc = 0;
	struct stat st;

	if (!rest)
		return -ENOMEM;
	if (fstat(w->dirfd, &st) != 0) {
		rc = -errno;
		goto out;
	}
	if ((rc = push_level(w, &st)) < 0)
		goto out;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;   /* the result is cur itself */
		size_t n = strcspn(p, "/");
		const char *next = p + n, *q = next;
		while (*q == '/')
			q++;
		bool last = !*q, trailing = last && *next == '/';
		if (n > NAME_MAX) {
			rc = -ENAMETOOLONG;
			goto out;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p = next;
		if (n == 1 && name[0] == '.')
			continue;
		if (n == 2 && name[0] == '.' && name[1] == '.') {
			if ((rc = walk_up(w, flags)) < 0)
				goto out;
			continue;
		}
		if (fstatat(w->cur, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			rc = -errno;
			goto out;
		}
		if (S_ISLNK(st.st_mode) && (!last || trailing || !(flags & BENEATH_NOFOLLOW))) {
			if (++links > BENEATH_MAX_LINKS) {
				rc = -ELOOP;
				goto out;
			}
			ssize_t tl = readlinkat(w->cur, name, target, sizeof(target));
			if (tl < 0 || (size_t)tl >= sizeof(target)) {
				rc = tl < 0 ? -errno : -ENAMETOOLONG;
				goto out;
			}
			target[tl] = '\0';
			if (tl == 0) {
				rc = -ENOENT;
				goto out;
			}
			if (target[0] == '/') {
				if (!(flags & BENEATH_IN_ROOT)) {   /* it leaves, as RESOLVE_BENEATH says */
					rc = -EXDEV;
					goto out;
				}
				/* from the top again, as the chrooted process would */
				set_cur(w, w->dirfd);
				w->nlv = 1;
				w->reslen = 0;
				if (w->res)
					w->res[0] = '\0';
			}
			/* The target, then what was left after the link. */
			size_t rl = strlen(next);
			char *nr = malloc((size_t)tl + rl + 1);
			if (!nr) {
				rc = -ENOMEM;
				goto out;
			}
			memcpy(nr, target, (size_t)tl);
			memcpy(nr + tl, next, rl + 1);
			free(rest);
			p = rest = nr;
			continue;
		}
		if (!last || trailing) {
			if (!S_ISDIR(st.st_mode)) {
				rc = -ENOTDIR;
				goto out;
			}
			int fd = openat(w->cur, name, WALK_DIR);
			if (fd < 0 || fstat(fd, &st) != 0) {
				rc = -errno;
				if (fd >= 0)
					close(fd);
				goto out;
			}
			set_cur(w, fd);
			if ((rc = res_append(w, name, n)) < 0 || (rc = push_level(w, &st)) < 0)
				goto out;
			continue;
		}
		/* The last component, a file (or a link not followed). */
		if (!want_fd) {
			rc = res_append(w, name, n);
			goto out;
		}
		if ((flags & BENEATH_FILE) && !(oflags & O_PATH) && !S_ISREG(st.st_mode) &&
		    !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)) {
			rc = -BENEATH_ENOTFILE;
			goto out;
		}
		rc = openat(w->cur, name, oflags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		if (rc < 0)
			rc = -errno;
		goto out;
	}
	/* The path ended on a directory ("", ".", "..", "dir/"). */
	if (want_fd) {
		rc = openat(w->cur, ".", oflags | O_CLOEXEC | O_NOCTTY);
		if (rc < 0)
			rc = -errno;
	}
out:
	free(rest);
	set_cur(w, w->dirfd);
	return rc;
}

static int walk_open(int dirfd, const char *path, int oflags, int flags)
{
	struct walk w = { .dirfd = dirfd, .cur = dirfd };
	int rc = walk(&w, path, oflags, flags, true);
	free(w.lv);
	return rc;
}

/* A regular file or a directory; anything else is never read. */
static bool is_file(const struct stat *st)
{
	return S_ISREG(st->st_mode) || S_ISDIR(st->st_mode);
}

int beneath_open(int dirfd, const char *path, int oflags, int flags)
{
	const char *rel = path;
	if (oflags & O_NOFOLLOW)   /* the walk reads it from flags */
		flags |= BENEATH_NOFOLLOW;
	while (*rel == '/')
		rel++;
	if (!*rel)
		rel = ".";
	int fd = -ENOSYS;
	if (!(flags & BENEATH_WALK)) {
		if ((flags & BENEATH_FILE) && !(flags & BENEATH_CHECKED) && !(oflags & O_PATH)) {
			/* Look before opening: a device's open() may act. */
			struct stat st;
			int pfd = kernel_open(dirfd, rel, O_PATH, flags);
			if (pfd >= 0) {
				int ok = fstat(pfd, &st) == 0 ? 0 : -errno;
				close(pfd);
				if (ok < 0)
					return ok;
				if (!is_file(&st) && !S_ISLNK(st.st_mode))
					return -BENEATH_ENOTFILE;
			} else if (pfd != -ENOSYS) {
				return pfd;
			}
			if (pfd >= 0)
				fd = kernel_open(dirfd, rel, oflags, flags);
		} else {
			fd = kernel_open(dirfd, rel, oflags, flags);
		}
	}
	if (fd == -ENOSYS)
		fd = walk_open(dirfd, rel, oflags, flags);
	/* Swapped between the look and the open: still never read. */
	if (fd >= 0 && (flags & BENEATH_FILE) && !(oflags & O_PATH)) {
		struct stat st;
		if (fstat(fd, &st) != 0 || !is_file(&st)) {
			close(fd);
			return -BENEATH_ENOTFILE;
		}
	}
	return fd;
}

int beneath_resolve(int dirfd, const char *path, int flags, char *out, size_t outlen)
{
	struct walk w = { .dirfd = dirfd, .cur = dirfd, .rescap = 64 };
	if (!(w.res = malloc(w.rescap)))
		return -ENOMEM;
	w.res[0] = '\0';
	int rc = walk(&w, path, 0, flags, false);
	if (rc == 0) {
		const char *r = w.reslen ? w.res : "/";
		if (strlen(r) >= outlen)
			rc = -ENAMETOOLONG;
		else
			memcpy(out, r, strlen(r) + 1);
	}
	free(w.res);
	free(w.lv);
	return rc;
}

/* ---- checking a whole tree ---- */

/* A directory being checked: its subdirectories still to enter. */
struct pending {
	char **names;
	size_t n, next;
	dev_t dev;
	ino_t ino;
	size_t rellen;     /* length of its path from dirfd */
	int fd;            /* kept open while a subdirectory is checked, or -1 */
};

/* Directories kept open on the way down (no ".." to open and verify on the
 * way back up); deeper ones are reopened through "..", so the depth stays
 * unlimited and the fds few. */
#define CHECK_KEEP_FDS 64

static void pending_free(struct pending *pd)
{
	for (size_t i = 0; i < pd->n; i++)
		free(pd->names[i]);
	free(pd->names);
	if (pd->fd >= 0)
		close(pd->fd);
	pd->fd = -1;
}

/* The kernel's struct linux_dirent64: getdents64 straight into a buffer,
 * without opendir's fcntl calls (two per directory). */
struct dirent64_raw {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct tree {
	int dirfd;
	char *rel;          /* the current directory's path from dirfd, "" at the top */
	size_t rellen, relcap;
	size_t entries, max_entries;
	char *bad;
	size_t badlen;
	char *dbuf;         /* CHECK_DBUF bytes for getdents64 */
};
#define CHECK_DBUF 32768

static int rel_set(struct tree *t, size_t len, const char *name)
{
	size_t n = strlen(name), need = len + (len ? 1 : 0) + n + 1;
	if (need > t->relcap) {
		size_t cap = 2 * need;
		char *r = realloc(t->rel, cap);
		if (!r)
			return -ENOMEM;
		t->rel = r;
		t->relcap = cap;
	}
	if (len)
		t->rel[len++] = '/';
	memcpy(t->rel + len, name, n + 1);
	t->rellen = len + n;
	return 0;
}

static int offender(struct tree *t, size_t len, const char *name, int rc)
{
	if (rel_set(t, len, name) == 0)
		fab_strlcpy(t->bad, t->rel, t->badlen);
	return rc;
}

/* Reads one directory (cur, at t->rel): checks its links and special
 * files, and lists its subdirectories into pd. */
static int scan_dir(struct tree *t, int cur, struct pending *pd)
{
	int lfd = openat(cur, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t len = t->rellen, cap = 0;
	int rc = 0;
	if (lfd < 0)
		return errno == EACCES ? 0 : -errno;
	char *dbuf = t->dbuf;
	long got = 0, off = 0;
	while (rc == 0) {
		if (off >= got) {
			got = syscall(SYS_getdents64, lfd, dbuf, CHECK_DBUF);
			off = 0;
			if (got < 0) {
				rc = errno == EACCES ? 0 : -errno;
				break;
			}
			if (got == 0)
				break;
		}
		const struct dirent64_raw *de = (const struct dirent64_raw *)(dbuf + off);
		off += de->d_reclen;
		const char *nm = de->d_name;
		if (!strcmp(nm, ".") || !strcmp(nm, ".."))
			continue;
		if (++t->entries > t->max_entries) {
			rc = offender(t, len, nm, -EFBIG);
			break;
		}
		unsigned type = de->d_type;
		if (type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(cur, nm, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;   /* gone meanwhile */
			type = IFTODT(st.st_mode);
		}
		if (type == DT_LNK) {
			if ((rc = rel_set(t, len, nm)) < 0)
				break;
			int fd = beneath_open(t->dirfd, t->rel, O_PATH, 0);
			if (fd >= 0)
				close(fd);
			else if (fd == -EXDEV || fd == -ELOOP)
				rc = offender(t, len, nm, fd);
			/* dangling, or through what we may not read: nothing reads it */
		} else if (type == DT_DIR) {
			if (pd->n == cap) {
				cap = cap ? 2 * cap : 16;
				char **v = realloc(pd->names, cap * sizeof(*v));
				if (!v) {
					rc = -ENOMEM;
					break;
				}
				pd->names = v;
			}
			if (!(pd->names[pd->n] = strdup(nm))) {
				rc = -ENOMEM;
				break;
			}
			pd->n++;
		} else if (type != DT_REG) {
			rc = offender(t, len, nm, -BENEATH_ENOTFILE);
		}
	}
	close(lfd);
	if (rc == 0) {
		t->rellen = len;
		t->rel[len] = '\0';
	}
	return rc;
}

/* Depth-first, without recursion: no depth limit, no stack limit, and at
 * most CHECK_KEEP_FDS directories open. Going back up returns to the
 * directory kept open on the way down; past that depth it opens ".." and
 * checks it is the directory recorded on the way down. */
int beneath_check_tree(int dirfd, size_t max_entries, char *bad, size_t badlen)
{
	struct tree t = { .dirfd = dirfd, .max_entries = max_entries, .bad = bad, .badlen = badlen,
			  .dbuf = malloc(CHECK_DBUF) };
	struct pending *stk = NULL;
	size_t nstk = 0, capstk = 0;
	struct stat st;
	int rc = 0, cur = openat(dirfd, ".", WALK_DIR);
	if (bad && badlen)
		bad[0] = '\0';
	if (cur < 0) {
		free(t.dbuf);
		return -errno;
	}
	if (!t.dbuf || rel_set(&t, 0, "") < 0) {
		free(t.dbuf);
		close(cur);
		return -ENOMEM;
	}
	bool enter = true;
	for (;;) {
		if (enter) {
			if (nstk == capstk) {
				capstk = capstk ? 2 * capstk : 16;
				struct pending *s = realloc(stk, capstk * sizeof(*s));
				if (!s) {
					rc = -ENOMEM;
					break;
				}
				stk = s;
			}
			struct pending *pd = &stk[nstk++];
			memset(pd, 0, sizeof(*pd));
			pd->fd = -1;
			if (fstat(cur, &st) != 0) {
				rc = -errno;
				break;
			}
			pd->dev = st.st_dev;
			pd->ino = st.st_ino;
			pd->rellen = t.rellen;
			if ((rc = scan_dir(&t, cur, pd)) != 0)
				break;
		}
		struct pending *top = &stk[nstk - 1];
		if (top->next < top->n) {
			const char *nm = top->names[top->next++];
			/* A folder this user cannot search: nothing beneath it can be
			 * read (each read resolves beneath anyway), and ".." would not
			 * lead back out of it. Its readers say "cannot read". */
			if (faccessat(cur, nm, X_OK, AT_EACCESS) != 0) {
				enter = false;
				continue;
			}
			int fd = openat(cur, nm, WALK_DIR);
			enter = fd >= 0;
			if (!enter)
				continue;   /* gone, or replaced by a link meanwhile */
			if ((rc = rel_set(&t, top->rellen, nm)) < 0) {
				close(fd);
				break;
			}
			if (nstk <= CHECK_KEEP_FDS)
				top->fd = cur;   /* back here without ".." */
			else
				close(cur);
			cur = fd;
			continue;
		}
		pending_free(top);
		if (--nstk == 0)
			break;
		enter = false;
		struct pending *parent = &stk[nstk - 1];
		if (parent->fd >= 0) {
			close(cur);
			cur = parent->fd;
			parent->fd = -1;
			t.rellen = parent->rellen;
			t.rel[t.rellen] = '\0';
			continue;
		}
		int up = openat(cur, "..", WALK_DIR);
		if (up < 0 || fstat(up, &st) != 0 || st.st_dev != parent->dev ||
		    st.st_ino != parent->ino) {
			/* moved while we looked: say where, and check nothing more */
			if (up >= 0)
				close(up);
			fab_strlcpy(bad, t.rel, badlen);
			rc = -EXDEV;
			break;
		}
		close(cur);
		cur = up;
		t.rellen = parent->rellen;
		t.rel[t.rellen] = '\0';
	}
	while (nstk > 0)
		pending_free(&stk[--nstk]);
	free(stk);
	free(t.rel);
	free(t.dbuf);
	close(cur);
	return rc;
}

void beneath_explain(int rc, int dirfd, const char *bad, size_t max_entries,
		     const char *what, char *err, size_t errlen)
{
	char target[PATH_MAX] = "";
	struct stat st;
	ssize_t n = readlinkat(dirfd, bad, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	switch (rc) {
	case -EXDEV:
		if (n > 0)
			snprintf(err, errlen, "%s: refused: the link %s -> %s leads outside it",
				 what, bad, target);
		else
			snprintf(err, errlen, "%s: refused: %s moved while it was checked",
				 what, bad);
		break;
	case -ELOOP:
		snprintf(err, errlen, "%s: refused: the link %s -> %s does not resolve "
			 "(a loop, or more than %d links)", what, bad, target, BENEATH_MAX_LINKS);
		break;
	case -BENEATH_ENOTFILE: {
		const char *kind = "a special file";
		if (fstatat(dirfd, bad, &st, AT_SYMLINK_NOFOLLOW) == 0)
			kind = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" :
			       S_ISCHR(st.st_mode) ? "a character device" :
			       S_ISBLK(st.st_mode) ? "a block device" : kind;
		snprintf(err, errlen, "%s: refused: %s is %s (a node's files are regular "
			 "files, folders and links)", what, bad, kind);
		break;
	}
	case -EFBIG:
		snprintf(err, errlen, "%s: refused: more than %zu entries "
			 "(FABTOP_CAPTURE_MAX_MEMBERS)", what, max_entries);
		break;
	default:
		snprintf(err, errlen, "cannot check %s: %s%s%s", what, bad,
			 *bad ? ": " : "", strerror(-rc));
	}
}
