/*
 * beneath.h - resolving paths without ever leaving a directory.
 *
 * The root (src/root.c) reads every file of a mirror or an unpacked capture
 * through these, so that no link in it can lead a read out of it. A path is
 * taken relative to a directory fd (a leading '/' means that directory).
 * Links are followed only while they stay beneath it (BENEATH_IN_ROOT: as
 * the process whose root it is would see them):
 *  - an absolute link target, or ".." above the directory, fails with EXDEV;
 *  - more than BENEATH_MAX_LINKS links in one resolution fail with ELOOP;
 *  - there is no limit on the depth of directories or the length of a path.
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) does it where the kernel
 * has it (5.6+); elsewhere a walk, one component at a time with O_NOFOLLOW,
 * resolves the links itself with the same rules, so both answer alike.
 *
 * Nothing here prints; every function returns a status (-errno on failure).
 */
#ifndef FABTOP_BENEATH_H
#define FABTOP_BENEATH_H

#include <stddef.h>
#include <sys/stat.h>

/* The kernel's MAXSYMLINKS. */
#define BENEATH_MAX_LINKS 40

/* Flags for beneath_open() and beneath_resolve(). */
#define BENEATH_NOFOLLOW  0x1   /* a link as the last component is not followed */
#define BENEATH_WALK      0x2   /* the component walk even where openat2 exists */
#define BENEATH_FILE      0x4   /* only a regular file or a directory opens:
				 * anything else is -EMEDIUMTYPE, and is never
				 * opened (a device's open may act, a FIFO's waits) */
#define BENEATH_IN_ROOT   0x8   /* dirfd is a process's root, as in a chroot:
				 * an absolute link starts again at dirfd and
				 * ".." stops there (RESOLVE_IN_ROOT), instead
				 * of failing with EXDEV */
#define BENEATH_CHECKED   0x10  /* with BENEATH_FILE: dirfd's tree passed
				 * beneath_check_tree() (no FIFO, device or
				 * socket in it), so there is no look first:
				 * the file is opened (O_NONBLOCK: a FIFO made
				 * since does not wait, a socket does not
				 * open) and refused after fstat unless it is
				 * a regular file or directory. Only root can
				 * put a device into a tree after the check
				 * (mknod needs CAP_MKNOD), and root can do
				 * anything already. One open instead of two. */

/* The errno beneath_open(BENEATH_FILE) gives for a FIFO, device or socket. */
#define BENEATH_ENOTFILE EMEDIUMTYPE

/* Opens path beneath dirfd with oflags (O_CLOEXEC and O_NOCTTY are added;
 * pass O_NONBLOCK for reads). Returns the fd, or -errno. */
int beneath_open(int dirfd, const char *path, int oflags, int flags);

/* Resolves path beneath dirfd and writes where it leads, as a path from
 * dirfd starting with '/' ("/" for dirfd itself), to out. The walk is used
 * whatever the kernel: it is the one that knows the path it took. */
int beneath_resolve(int dirfd, const char *path, int flags, char *out, size_t outlen);

/* Checks a whole tree before a library that reads by path (hwloc, libpci)
 * is let into it: every link must resolve beneath dirfd (or dangle), and
 * nothing may be a FIFO, device or socket. Stops at the first offender and
 * writes its path from dirfd to bad: returns -EXDEV (a link leads out, or
 * the tree moved while it was checked), -ELOOP, -BENEATH_ENOTFILE, or
 * -EFBIG past max_entries entries; 0 when the tree is clean. Directories it
 * may not read are skipped: nothing can be read through them either. */
int beneath_check_tree(int dirfd, size_t max_entries, char *bad, size_t badlen);

/* Words what beneath_check_tree() returned (rc, bad) for the user into err:
 * "<what>: refused: the link sys/x -> /etc leads outside it", ... */
void beneath_explain(int rc, int dirfd, const char *bad, size_t max_entries,
		     const char *what, char *err, size_t errlen);

#endif
