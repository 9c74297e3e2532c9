/* sysread.c - sysfs attribute reads that turn failures into notes. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "sysread.h"
#include "fabtop/util.h"

void sys_note_errno_src(struct fab_model *m, unsigned src, const char *path, int e)
{
	const char *hint = "";
	if (e == EACCES || e == EPERM)
		hint = " (run as root, or inside the pod that owns the device)";
	else if (e == EILSEQ)
		hint = " (binary content where text was expected)";
	/* root_strerror(): a link out of a capture or mirror, a FIFO in it */
	model_note_src(m, src, path, "cannot read %s: %s%s", path,
		       e == EILSEQ ? "not a text attribute" : root_strerror(e), hint);
}

void sys_note_errno(struct fab_model *m, const char *path, int e)
{
	sys_note_errno_src(m, 0, path, e);
}

int sys_presence(const struct fab_root *r, const char *path)
{
	char buf[8];
	if (root_exists(r, path))
		return 0;
	/* lstat() said no: ENOENT is absence, EACCES on a parent is not. */
	ssize_t n = root_readlink(r, path, buf, sizeof(buf));
	return n >= 0 || n == -EINVAL ? 0 : (int)n;
}

void sys_dangling_add(struct sys_dangling *d, const char *path, const char *target)
{
	if (!d->count++) {
		fab_strlcpy(d->first, path, sizeof(d->first));
		fab_strlcpy(d->target, target, sizeof(d->target));
	}
}

bool sys_dangling_check(const struct fab_root *r, const char *path, struct sys_dangling *d)
{
	char target[FAB_PATH_LEN];
	/* One readlink and one lstat of the target: class folders are links. */
	if (root_resolve_link(r, path, target, sizeof(target)) != -ENOENT || !target[0])
		return false;   /* resolves, or the entry itself went away */
	sys_dangling_add(d, path, target);
	return true;
}

void sys_dangling_note(const struct fab_root *r, struct fab_model *m, unsigned src,
		       const char *folder, const struct sys_dangling *d, int total)
{
	if (!d->count)
		return;
	char more[48] = "";
	if (d->count > 1)
		snprintf(more, sizeof(more), " (and %d more)", d->count - 1);
	if (d->count < total && root_exists(r, "/sys/devices")) {
		model_note(m, d->first, "%s links to %s, which is missing%s: the device went away "
			   "while fabtop read it", d->first, d->target, more);
		return;
	}
	/* node_exporter#2427: mounting /sys/class/infiniband alone gives links
	 * into nowhere. The fix leads: a note holds 255 characters. */
	const char *base = strrchr(d->first, '/');
	model_note_src(m, src, folder, "%s: %d of %d entries (%s%s) link into /sys/devices, which is "
		       "not mounted here: unknown, not zero; run the container with "
		       "-v /sys/devices:/sys/devices:ro (or -v /sys:/sys:ro)", folder, d->count, total,
		       base ? base + 1 : d->first, d->count > 1 ? ", ..." : "");
}

int sys_line(const struct fab_root *r, struct fab_model *m, const char *path,
	     char *buf, size_t len)
{
	return sys_line_src(r, m, 0, path, buf, len);
}

int sys_line_src(const struct fab_root *r, struct fab_model *m, unsigned src, const char *path,
		 char *buf, size_t len)
{
	/* A show() returns at most FAB_SYSFS_PAGE - 1 bytes; one byte more
	 * than that tells an oversized file (not sysfs) from a full page. */
	char big[FAB_SYSFS_PAGE + 1];
	ssize_t n = root_read(r, path, big, sizeof(big));
	if (n < 0) {
		if (n != -ENOENT && n != -ENOTDIR)
			sys_note_errno_src(m, src, path, (int)-n);
		buf[0] = '\0';
		return (int)n;
	}
	if (!fab_is_text(big, (size_t)n)) {
		sys_note_errno_src(m, src, path, EILSEQ);
		buf[0] = '\0';
		return -EILSEQ;
	}
	size_t l = strcspn(big, "\n");
	while (l && (big[l - 1] == ' ' || big[l - 1] == '\t' || big[l - 1] == '\r'))
		l--;
	if ((size_t)n >= FAB_SYSFS_PAGE || l >= len) {
		model_note_src(m, src, path, "cannot read %s: value too long (%zd bytes) for a "
			       "sysfs attribute", path, n);
		buf[0] = '\0';
		return -EFBIG;
	}
	memcpy(buf, big, l);
	buf[l] = '\0';
	return 0;
}

int sys_linef(const struct fab_root *r, struct fab_model *m, char *buf, size_t len,
	      const char *fmt, ...)
{
	char path[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return sys_line(r, m, path, buf, len);
}

fab_int sys_int(const struct fab_root *r, struct fab_model *m, const char *path)
{
	char buf[64];
	long long v;
	if (sys_line(r, m, path, buf, sizeof(buf)) != 0)
		return (fab_int){ 0, false };
	if (!fab_parse_ll(buf, &v)) {
		model_note(m, path, "unexpected content in %s: \"%.40s\" (expected a number)",
			   path, buf);
		return (fab_int){ 0, false };
	}
	return fab_int_of(v);
}

fab_int sys_intf(const struct fab_root *r, struct fab_model *m, const char *fmt, ...)
{
	char path[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return sys_int(r, m, path);
}
