/*
 * sysread.h - reading sysfs attributes through the root, for collectors.
 *
 * A missing file (ENOENT) is simply unknown; any other failure (permission,
 * I/O error, binary or oversized content) becomes a model note naming the
 * path and what to do, and the value stays unknown.
 */
#ifndef FABTOP_SYSREAD_H
#define FABTOP_SYSREAD_H

#include <stdbool.h>
#include <stddef.h>
#include "fabtop/model.h"
#include "fabtop/root.h"

/* One-line attribute into buf; returns 0, or -errno (noted unless ENOENT). */
int sys_line(const struct fab_root *r, struct fab_model *m, const char *path,
	     char *buf, size_t len);
/* sys_line for a source a report stands on (enum fab_source bits in src):
 * a failure other than ENOENT makes that report's verdict unknown. */
int sys_line_src(const struct fab_root *r, struct fab_model *m, unsigned src, const char *path,
		 char *buf, size_t len);
/* Whether path exists: 0, -ENOENT when it does not, -errno when that could
 * not be told (a parent not searchable). */
int sys_presence(const struct fab_root *r, const char *path);
/* printf-style path variant of sys_line. */
int sys_linef(const struct fab_root *r, struct fab_model *m, char *buf, size_t len,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Integer attribute ("0x15b3", "16"); garbage is noted and unknown. */
fab_int sys_int(const struct fab_root *r, struct fab_model *m, const char *path);
/* printf-style path variant of sys_int. */
fab_int sys_intf(const struct fab_root *r, struct fab_model *m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The PCI function behind a class device ("/sys/class/net/eth0" -> its
 * device link), as an index into model.pci, or FAB_NO_INDEX (virtual). */
int sys_pci_of(const struct fab_root *r, const struct fab_model *m, const char *classdir);
/* The entries of one class or bus folder ("/sys/class/infiniband") that
 * are links whose target under /sys/devices is missing. */
struct sys_dangling {
	char first[FAB_PATH_LEN], target[FAB_PATH_LEN];
	int count;
};
/* Whether the entry path is such a link: true (counted in d), else false. */
bool sys_dangling_check(const struct fab_root *r, const char *path, struct sys_dangling *d);
/* Counts path, whose target root_resolve_link() found missing, in d. */
void sys_dangling_add(struct sys_dangling *d, const char *path, const char *target);
/* Says what d found in folder, of total entries. With /sys/devices missing,
 * or every entry dangling, the devices are not mounted (a container that
 * sees /sys/class only, or a capture taken in one): a note for src (the
 * report it stands on is unknown, never healthy) naming the mount that
 * fixes it. Otherwise some devices went away while fabtop read them. */
void sys_dangling_note(const struct fab_root *r, struct fab_model *m, unsigned src,
		       const char *folder, const struct sys_dangling *d, int total);
/* Notes a read failure of path with errno e, with a hint for EACCES. */
void sys_note_errno(struct fab_model *m, const char *path, int e);
/* The same for a source a report stands on (enum fab_source bits in src):
 * the report's verdict becomes unknown. */
void sys_note_errno_src(struct fab_model *m, unsigned src, const char *path, int e);

#endif
