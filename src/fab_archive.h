/*
 * archive.h - capture tarballs (gzip-compressed tar) through libarchive.
 */
#ifndef FABTOP_ARCHIVE_H
#define FABTOP_ARCHIVE_H

#include <stddef.h>

/* A capture is read into memory by memtree_read_archive() (memtree.h). */

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
