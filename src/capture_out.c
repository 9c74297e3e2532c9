/* capture_out.c - where a capture writes (the destination tree) and how it
 * reads the source node; shared by every part of the capture. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "capture_int.h"
#include "fabtop/util.h"

volatile sig_atomic_t cap_signal_seen;

void cap_fatal(struct cap *c, const char *fmt, ...)
{
	if (c->err[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
}

/* True (and the capture fails) once a signal asked to stop. */
bool cap_stopped(struct cap *c)
{
	if (cap_signal_seen)
		cap_fatal(c, "interrupted by %s", strsignal(cap_signal_seen));
	return c->err[0] != '\0';
}

/* ---- the destination tree ---- */

/* mkdir -p: tries the folder itself first, its parents only when missing. */
int cap_mkdir_p(char *path, mode_t mode)
{
	struct stat st;
	if (mkdir(path, mode) == 0)
		return 0;
	if (errno == EEXIST)
		return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
	if (errno != ENOENT)
		return -1;
	char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return -1;
	*slash = '\0';
	int rc = cap_mkdir_p(path, mode);
	*slash = '/';
	if (rc != 0)
		return -1;
	return mkdir(path, mode) == 0 || errno == EEXIST ? 0 : -1;
}

const char *cap_out_path(const struct cap *c, const char *node_path, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", c->out, node_path);
	return buf;
}

/* Creates the destination folder of a node directory. */
int cap_out_dir(struct cap *c, const char *node_dir)
{
	char p[PATH_MAX];
	cap_out_path(c, node_dir, p, sizeof(p));
	if (cap_mkdir_p(p, 0755) != 0) {
		cap_fatal(c, "cannot create %s: %s", p, strerror(errno));
		return -1;
	}
	return 0;
}

int cap_out_write(struct cap *c, const char *node_path, const char *data, size_t len)
{
	char p[PATH_MAX];
	cap_out_path(c, node_path, p, sizeof(p));
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 && errno == ENOENT) {
		char *slash = strrchr(p, '/');
		*slash = '\0';
		int rc = cap_mkdir_p(p, 0755);
		*slash = '/';
		if (rc == 0)
			fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	}
	if (fd < 0) {
		cap_fatal(c, "cannot create %s: %s", p, strerror(errno));
		return -1;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			cap_fatal(c, "cannot write %s: %s", p, n < 0 ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (close(fd) != 0) {
		cap_fatal(c, "cannot write %s: %s", p, strerror(errno));
		return -1;
	}
	c->bytes += (long long)len;
	return 0;
}

int cap_out_json(struct cap *c, const char *node_path, json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(2));
	if (!s) {
		cap_fatal(c, "cannot encode %s", node_path);
		return -1;
	}
	size_t n = strlen(s);
	s[n] = '\n';   /* the NUL's byte becomes the final newline */
	int rc = cap_out_write(c, node_path, s, n + 1);
	free(s);
	return rc;
}

void cap_record_unreadable(struct cap *c, const char *node_path, int e)
{
	fprintf(c->unreadable, "%s\t%d\t%s\n", node_path, e, strerror(e));
	c->nunreadable++;
}

/* ---- reading the source ---- */

/* Reads an open file up to max bytes into buf (NUL-terminated);
 * returns the size, max + 1 when there is more, or -errno. */
ssize_t cap_read_fd(int fd, char *buf, size_t max)
{
	size_t got = 0;
	while (got < max + 1) {
		ssize_t n = read(fd, buf + got, max + 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got < max + 1 ? got : max] = '\0';
	return (ssize_t)got;
}

/* Reads a small file of the source by node path; -errno on failure. */
ssize_t cap_src_read(struct cap *c, const char *node_path, char *buf, size_t len)
{
	int fd = root_open_fd(&c->src, node_path, 0);
	if (fd < 0)
		return fd;
	ssize_t n = cap_read_fd(fd, buf, len - 1);
	close(fd);
	return n;
}

