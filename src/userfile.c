/* userfile.c - the user's own small files (userfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabtop/userfile.h"
#include "fabtop/util.h"

int fab_user_read(const char *path, size_t max, bool follow, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	char *buf = malloc(max + 2);
	size_t n = 0;
	ssize_t r = 0;
	/* One byte past the cap, so that a file that grew is refused too. */
	while (buf && n < max + 1 && ((r = read(fd, buf + n, max + 1 - n)) > 0 || (r < 0 && errno == EINTR)))
		if (r > 0)
			n += (size_t)r;
	int e = buf ? errno : ENOMEM;
	close(fd);
	if (!buf || r < 0 || n > max) {
		free(buf);
		errno = buf && r >= 0 ? EFBIG : e;
		return -1;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* mkdir -p, each directory it makes private (0700). */
static int make_dirs(const char *dir)
{
	char p[PATH_MAX];
	fab_strlcpy(p, dir, sizeof(p));
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST)
			return -1;
		*s = c;
		if (!c)
			return 0;
	}
}

/* The directory, without a link as its last component, the user's own and
 * not writable by others; -1 with errno. */
static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int fab_user_write(const char *dir, const char *name, const char *buf, size_t len)
{
	char tmp[NAME_MAX + 1] = "";
	int dfd = -1, fd = -1, rc = -1, e = 0;
	if (!*name || strchr(name, '/') || strlen(name) > 200) {
		errno = EINVAL;
		return -1;
	}
	if (make_dirs(dir) != 0 || (dfd = open_dir(dir)) < 0)
		return -1;
	for (int tries = 0; fd < 0 && tries < 16; tries++) {
		unsigned long long r = 0;
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
			r = (unsigned long long)getpid() * 2654435761u + (unsigned)tries;
		snprintf(tmp, sizeof(tmp), ".%s.%016llx", name, r);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		e = errno;
		tmp[0] = '\0';
		goto out;
	}
	if (write_all(fd, buf, len) != 0 || fsync(fd) != 0) {
		e = errno;
		goto out;
	}
	int c = close(fd);
	fd = -1;
	if (c != 0 || renameat(dfd, tmp, dfd, name) != 0) {
		e = errno;
		goto out;
	}
	tmp[0] = '\0';
	fsync(dfd);   /* the rename itself survives a crash */
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmp[0])
		unlinkat(dfd, tmp, 0);
	close(dfd);
	if (rc != 0)
		errno = e;
	return rc;
}
