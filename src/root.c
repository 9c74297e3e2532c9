/* root.c - the node root: live "/", a mirror directory, or a capture tarball. */
#include <dirent.h>
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
#include "fabtop/util.h"

struct fab_unreadable {
	char *path;
	int err;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void load_unreadable(struct fab_root *r)
{
	char path[4096 + 64];
	snprintf(path, sizeof(path), "%s/fabtop/unreadable.tsv", r->dir);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return;
	char line[4096 + 128];
	while (fgets(line, sizeof(line), fp)) {
		char *tab = strchr(line, '\t');
		if (!tab || line[0] != '/')
			continue;
		*tab = '\0';
		int e = atoi(tab + 1);
		if (e <= 0)
			continue;
		struct fab_unreadable *u = realloc(r->unreadable,
			(r->nunreadable + 1) * sizeof(*u));
		if (!u)
			break;
		r->unreadable = u;
		u[r->nunreadable].path = strdup(line);
		u[r->nunreadable].err = e;
		if (u[r->nunreadable].path)
			r->nunreadable++;
	}
	fclose(fp);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

int root_open(struct fab_root *r, const char *spec, char *err, size_t errlen)
{
	struct stat st;
	memset(r, 0, sizeof(*r));
	if (!spec || strcmp(spec, "/") == 0) {
		r->live = true;
		fab_strlcpy(r->name, "live", sizeof(r->name));
		return 0;
	}
	if (stat(spec, &st) != 0) {
		snprintf(err, errlen, "cannot open root %s: %s", spec, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		if (!realpath(spec, r->dir)) {
			snprintf(err, errlen, "cannot resolve root %s: %s", spec, strerror(errno));
			return -1;
		}
	} else if (S_ISREG(st.st_mode)) {
		const char *tmp = getenv("TMPDIR");
		snprintf(r->tmpdir, sizeof(r->tmpdir), "%s/fabtop-root.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(r->tmpdir)) {
			snprintf(err, errlen, "cannot create a temporary directory for %s: %s",
				 spec, strerror(errno));
			r->tmpdir[0] = '\0';
			return -1;
		}
		int rc = archive_unpack(spec, r->tmpdir, r->dir, sizeof(r->dir), err, errlen);
		if (rc < 0) {
			root_close(r);
			return -1;
		}
		if (rc > 0)  /* keep what came before the break, and say what was lost */
			fab_strlcpy(r->warning, err, sizeof(r->warning));
	} else {
		snprintf(err, errlen, "root %s is neither a directory nor a capture file", spec);
		return -1;
	}
	/* Name it after what the user gave, without the tarball suffix. */
	fab_strlcpy(r->name, base_name(spec), sizeof(r->name));
	for (const char *const *sfx = (const char *const[]){ ".tar.gz", ".tgz", "/", NULL }; *sfx; sfx++)
		if (ends_with(r->name, *sfx)) {
			r->name[strlen(r->name) - strlen(*sfx)] = '\0';
			break;
		}
	char meta[4096 + 32];
	snprintf(meta, sizeof(meta), "%s/fabtop/meta.json", r->dir);
	r->is_capture = access(meta, F_OK) == 0;
	/* Not a node (--root /tmp): every source would read as absent, and an
	 * empty node as healthy. */
	if (!r->is_capture && !root_exists(r, "/sys") && !root_exists(r, "/fabtop")) {
		snprintf(err, errlen, "%s is not a node root: it has neither sys/ nor fabtop/ "
			 "(give a capture made by `fabtop capture`, or a directory that mirrors a "
			 "node's /sys)%s%s", spec, r->warning[0] ? "; " : "", r->warning);
		root_close(r);
		return -1;
	}
	load_unreadable(r);
	return 0;
}

void root_close(struct fab_root *r)
{
	for (size_t i = 0; i < r->nunreadable; i++)
		free(r->unreadable[i].path);
	free(r->unreadable);
	r->unreadable = NULL;
	r->nunreadable = 0;
	if (r->tmpdir[0])
		fab_rmtree(r->tmpdir);
	r->tmpdir[0] = '\0';
}

const char *root_path(const struct fab_root *r, const char *node_path,
		      char *buf, size_t len)
{
	if (r->live)
		fab_strlcpy(buf, node_path, len);
	else
		snprintf(buf, len, "%s%s", r->dir, node_path);
	return buf;
}

int root_recorded_errno(const struct fab_root *r, const char *node_path)
{
	for (size_t i = 0; i < r->nunreadable; i++)
		if (strcmp(r->unreadable[i].path, node_path) == 0)
			return r->unreadable[i].err;
	return 0;
}

ssize_t root_read(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	char p[PATH_MAX];
	int e = root_recorded_errno(r, node_path);
	if (e)
		return -e;
	if (len == 0)
		return -EINVAL;
	int fd = open(root_path(r, node_path, p, sizeof(p)), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	/* No fstat: read() on a directory fails with EISDIR, and sysfs and
	 * unpacked captures hold no FIFOs or devices (O_NONBLOCK covers a FIFO
	 * in a hand-made mirror); a snapshot reads hundreds of attributes. */
	size_t cap = len - 1 < ROOT_MAX_FILE ? len - 1 : ROOT_MAX_FILE, got = 0;
	while (got < cap) {
		ssize_t n = read(fd, buf + got, cap - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int saved = errno;
			close(fd);
			return -saved;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	/* A capture lists unreadable files by their real path and leaves an
	 * empty placeholder; collectors often read through class links. */
	if (got == 0 && r->nunreadable) {
		char real[PATH_MAX];
		if (root_realpath(r, node_path, real, sizeof(real)) == 0 &&
		    (e = root_recorded_errno(r, real)) != 0)
			return -e;
	}
	return (ssize_t)got;
}

int root_read_line(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	ssize_t n = root_read(r, node_path, buf, len);
	if (n < 0)
		return (int)n;
	if (!fab_is_text(buf, (size_t)n))
		return -EILSEQ;
	size_t l = strcspn(buf, "\n");
	buf[l] = '\0';
	while (l && (buf[l - 1] == ' ' || buf[l - 1] == '\t' || buf[l - 1] == '\r'))
		buf[--l] = '\0';
	return 0;
}

ssize_t root_readlink(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	char p[PATH_MAX];
	if (len == 0)
		return -EINVAL;
	ssize_t n = readlink(root_path(r, node_path, p, sizeof(p)), buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

int root_realpath(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	char p[PATH_MAX], res[PATH_MAX];
	if (!realpath(root_path(r, node_path, p, sizeof(p)), res))
		return -errno;
	if (r->live) {
		fab_strlcpy(buf, res, len);
		return 0;
	}
	size_t dl = strlen(r->dir);
	/* A link that resolves outside the mirror is not part of the node. */
	if (strncmp(res, r->dir, dl) != 0 || (res[dl] != '/' && res[dl] != '\0'))
		return -EXDEV;
	fab_strlcpy(buf, res[dl] ? res + dl : "/", len);
	return 0;
}

int root_resolve_link(const struct fab_root *r, const char *node_path, char *buf, size_t len)
{
	char target[PATH_MAX], joined[2 * PATH_MAX];
	ssize_t n = root_readlink(r, node_path, target, sizeof(target));
	if (n < 0)
		return n == -EINVAL ? root_realpath(r, node_path, buf, len) : (int)n;
	if (target[0] == '/')
		return root_realpath(r, node_path, buf, len);
	const char *slash = strrchr(node_path, '/');
	snprintf(joined, sizeof(joined), "%.*s/%s", (int)(slash ? slash - node_path : 0),
		 node_path, target);
	/* Fold "." and ".." lexically, component by component. */
	char out[PATH_MAX] = "";
	size_t ol = 0;
	for (const char *p = joined; *p; ) {
		while (*p == '/')
			p++;
		size_t c = strcspn(p, "/");
		if (c == 0)
			break;
		if (c == 2 && p[0] == '.' && p[1] == '.') {
			if (ol == 0)
				return root_realpath(r, node_path, buf, len);
			while (ol > 0 && out[--ol] != '/')
				;
			out[ol] = '\0';
		} else if (!(c == 1 && p[0] == '.')) {
			if (ol + 1 + c >= sizeof(out))
				return -ENAMETOOLONG;
			out[ol++] = '/';
			memcpy(out + ol, p, c);
			ol += c;
			out[ol] = '\0';
		}
		p += c;
	}
	if (!root_exists(r, out[0] ? out : "/"))
		return -ENOENT;
	fab_strlcpy(buf, out[0] ? out : "/", len);
	return 0;
}

bool root_exists(const struct fab_root *r, const char *node_path)
{
	char p[PATH_MAX];
	struct stat st;
	if (root_recorded_errno(r, node_path))
		return true;
	return lstat(root_path(r, node_path, p, sizeof(p)), &st) == 0;
}

int fab_natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			const char *ea = a, *eb = b;
			while (*a == '0') a++;
			while (*b == '0') b++;
			ea = a; eb = b;
			while (*ea >= '0' && *ea <= '9') ea++;
			while (*eb >= '0' && *eb <= '9') eb++;
			if (ea - a != eb - b)
				return (ea - a) < (eb - b) ? -1 : 1;
			int c = strncmp(a, b, (size_t)(ea - a));
			if (c)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static int natcmp_ptr(const void *a, const void *b)
{
	return fab_natcmp(*(char *const *)a, *(char *const *)b);
}

int root_list(const struct fab_root *r, const char *node_path, char ***names)
{
	char p[PATH_MAX];
	int e = root_recorded_errno(r, node_path);
	*names = NULL;
	if (e)
		return -e;
	DIR *d = opendir(root_path(r, node_path, p, sizeof(p)));
	if (!d)
		return -errno;
	int n = 0, cap = 0;
	char **v = NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nv = realloc(v, (size_t)cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		if (!(v[n] = strdup(de->d_name)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), natcmp_ptr);
	*names = v;
	return n;
}

void root_free_list(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
