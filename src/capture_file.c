/* capture_file.c - the capture's one output file (`-o FILE.tar.gz`), written
 * so that nothing but that path can ever be written (capture_int.h):
 *
 *   - a new or replaced file: the tarball goes to a temporary file made
 *     with mkstemp (O_EXCL: never an existing file, never through a link)
 *     in the output's own directory, renamed onto the output at the end
 *     (rename is atomic within a directory; a reader never sees half);
 *   - an existing regular file is refused unless --force; then replaced
 *     by that rename, never written in place;
 *   - a FIFO or a character device (/dev/null, `>(ssh ...)`, /dev/stdout
 *     onto a pipe) is streamed into in place, never replaced: renaming a
 *     file over /dev/null would replace the device node for everyone.
 *     Anything a rename would replace must be a plain file;
 *   - a symbolic link is followed only to a FIFO or a character device,
 *     and only when it is the caller's own or root's (as the kernel's
 *     protected_symlinks rule); a link to a regular file or to nothing is
 *     refused, even with --force: fabtop never writes through one nor
 *     replaces one;
 *   - anything else (a block device, a directory, a socket) is refused;
 *   - "-": standard output, streamed, refused when it is a terminal.
 */
#define _GNU_SOURCE   /* renameat2, mkostemps */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "capture_int.h"
#include "fabtop/util.h"

static const char *kind_of(mode_t m)
{
	return S_ISREG(m) ? "a regular file" : S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device"
	       : S_ISCHR(m) ? "a character device" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
	       : S_ISLNK(m) ? "a symbolic link" : "not a file";
}

static bool streamable(mode_t m)
{
	return S_ISFIFO(m) || S_ISCHR(m);
}

/* Opens an existing FIFO or character device to stream into; follow says
 * whether path may be a (trusted) link. Checks the opened file is still
 * one (not swapped for a regular file since it was looked at). */
static int open_stream(struct cap_dest *d, const char *path, bool follow, char *err, size_t len)
{
	int fd;
	do
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	while (fd < 0 && errno == EINTR && !cap_signal_seen);
	if (fd < 0) {
		snprintf(err, len, "cannot open %s: %s (choose a writable -o path)", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !streamable(st.st_mode)) {
		snprintf(err, len, "%s changed while it was opened (now %s): refused", path,
			 kind_of(st.st_mode));
		close(fd);
		return -1;
	}
	d->fd = fd;
	d->how = CAP_DEST_STREAM;
	return 0;
}

/* A temporary file beside path: mkstemp's O_EXCL never meets an existing
 * file or link; it is given the mode a plain create would have. */
static int open_temp(struct cap_dest *d, const char *path, char *err, size_t len)
{
	int n = snprintf(d->tmp, sizeof(d->tmp), "%s.XXXXXX.part", path);
	if (n < 0 || (size_t)n >= sizeof(d->tmp)) {
		snprintf(err, len, "cannot create %s: name too long (choose a shorter -o path)", path);
		d->tmp[0] = '\0';
		return -1;
	}
	int fd = mkostemps(d->tmp, 5, O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, len, "cannot create %s: %s (choose a writable -o path)", path, strerror(errno));
		d->tmp[0] = '\0';
		return -1;
	}
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0644 & ~um);
	d->fd = fd;
	return 0;
}

int cap_dest_open(struct cap_dest *d, const char *path, bool force, char *err, size_t len)
{
	struct stat st, tgt;
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->path = path;
	if (strcmp(path, "-") == 0) {
		if (isatty(STDOUT_FILENO)) {
			snprintf(err, len, "-o - writes the compressed capture to standard output, which is "
				 "a terminal: redirect it (> FILE.tar.gz, | ssh ...) or give a file name");
			return -1;
		}
		d->fd = STDOUT_FILENO;
		d->how = CAP_DEST_STREAM;
		d->is_stdout = true;
		return 0;
	}
	if (lstat(path, &st) != 0) {
		if (errno != ENOENT) {
			snprintf(err, len, "cannot create %s: %s (choose a writable -o path)", path,
				 strerror(errno));
			return -1;
		}
		d->how = CAP_DEST_NEW;
		return open_temp(d, path, err, len);
	}
	if (S_ISREG(st.st_mode)) {
		if (!force) {
			snprintf(err, len, "%s exists (give --force to replace it, or another -o path)", path);
			return -1;
		}
		d->how = CAP_DEST_REPLACE;
		return open_temp(d, path, err, len);
	}
	if (streamable(st.st_mode))
		return open_stream(d, path, false, err, len);
	if (S_ISLNK(st.st_mode)) {
		bool to = stat(path, &tgt) == 0;
		if (to && streamable(tgt.st_mode)) {
			if (st.st_uid != geteuid() && st.st_uid != 0) {
				snprintf(err, len, "%s is a symbolic link owned by uid %u, not yours: "
					 "not followed (give the path it points to)", path, (unsigned)st.st_uid);
				return -1;
			}
			return open_stream(d, path, true, err, len);
		}
		snprintf(err, len, "%s is a symbolic link to %s: fabtop never writes through a link nor "
			 "replaces one (give the path it points to, or another -o path)", path,
			 to ? kind_of(tgt.st_mode) : "nothing");
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, len, "%s is a directory (end -o with / to write the capture as a directory "
			 "into it, or give a file name)", path);
		return -1;
	}
	snprintf(err, len, "%s is %s: refused (a capture goes to a file, a FIFO or a character "
		 "device)", path, kind_of(st.st_mode));
	return -1;
}

int cap_dest_commit(struct cap_dest *d, char *err, size_t len)
{
	struct stat st;
	if (d->how == CAP_DEST_STREAM) {
		int rc = 0;
		if (d->is_stdout)
			d->fd = -1;   /* main's to close */
		else if (close(d->fd) != 0 && errno != EINTR)
			rc = -1;
		if (rc)
			snprintf(err, len, "cannot finish %s: %s", d->path, strerror(errno));
		d->fd = -1;
		return rc;
	}
	if (fsync(d->fd) != 0 || fstat(d->fd, &st) != 0 || close(d->fd) != 0) {
		snprintf(err, len, "cannot finish %s: %s", d->path, strerror(errno));
		d->fd = -1;
		return -1;
	}
	d->fd = -1;
	d->size = (long long)st.st_size;
	if (d->how == CAP_DEST_NEW) {
		/* Never over something that appeared meanwhile. */
		int rc = renameat2(AT_FDCWD, d->tmp, AT_FDCWD, d->path, RENAME_NOREPLACE);
		if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
			/* A file system without it: link() refuses an existing name too. */
			rc = link(d->tmp, d->path);
			if (rc == 0)
				unlink(d->tmp);
		}
		if (rc != 0) {
			snprintf(err, len, errno == EEXIST ? "%s appeared while the capture ran: not replaced "
				 "(give --force to replace it)" : "cannot create %s: %s (choose a writable -o path)",
				 d->path, strerror(errno));
			return -1;
		}
	} else {
		/* --force replaces a regular file only, as it was when looked at. */
		if (lstat(d->path, &st) == 0 && !S_ISREG(st.st_mode)) {
			snprintf(err, len, "%s is now %s: not replaced", d->path, kind_of(st.st_mode));
			return -1;
		}
		if (rename(d->tmp, d->path) != 0) {
			snprintf(err, len, "cannot replace %s: %s (choose a writable -o path)", d->path,
				 strerror(errno));
			return -1;
		}
	}
	d->tmp[0] = '\0';
	return 0;
}

void cap_dest_abort(struct cap_dest *d)
{
	if (d->fd >= 0 && !d->is_stdout)
		close(d->fd);
	d->fd = -1;
	if (d->tmp[0])
		unlink(d->tmp);
	d->tmp[0] = '\0';
}
