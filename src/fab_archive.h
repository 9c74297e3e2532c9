/*
 * archive.h - capture tarballs (gzip-compressed tar) through libarchive.
 */
#ifndef FABTOP_ARCHIVE_H
#define FABTOP_ARCHIVE_H

#include <stddef.h>

/* Unpacks tarball into dir (which must exist and be empty). Refuses absolute
 * member names, ".." components, names of PATH_MAX bytes or more (never cut),
 * hard links, and links leaving the tree (checked at any depth once the tree
 * is complete); refuses the whole capture past the caps of fabtop/root.h:
 * root_file_cap() per member, root_max_bytes() and root_max_entries() in
 * all. FIFOs and devices are skipped. On success
 * writes the path of the capture's top folder (dir/<top>, or dir itself when
 * members are not under one folder) to top. Returns 0, or -1 with err set
 * (a truncated or corrupt archive names the member where it broke). */
int archive_unpack(const char *tarball, const char *dir, char *top, size_t toplen,
		   char *err, size_t errlen);

/* Packs the directory src into tarball as top/...; returns 0 or -1 with err. */
int archive_pack(const char *src, const char *top, const char *tarball,
		 char *err, size_t errlen);
/* The same into the open descriptor fd (left open); name is what messages
 * call it. */
int archive_pack_fd(const char *src, const char *top, int fd, const char *name,
		    char *err, size_t errlen);

/* Removes a directory tree: no link followed, no limit on depth or path
 * length, async-signal-safe. Returns 0 (also when dir does not exist) or -1. */
int fab_rmtree(const char *dir);

#endif
