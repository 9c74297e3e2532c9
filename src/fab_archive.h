/*
 * archive.h - capture tarballs (gzip-compressed tar) through libarchive.
 */
#ifndef FABTOP_ARCHIVE_H
#define FABTOP_ARCHIVE_H

#include <stddef.h>

/* A capture is read into memory by memtree_read_archive() (memtree.h). */

/* Packs the directory src into tarball as top/..., as `fabtop capture`
 * writes its tree (memtree_write_archive(): the head members first, owned
 * by 0:0, every member at src's mtime); returns 0 or -1 with err. A
 * capture itself is written from memory (capture.c), not through this. */
int archive_pack(const char *src, const char *top, const char *tarball,
		 char *err, size_t errlen);

/* Removes a directory tree: no link followed, no limit on depth or path
 * length, async-signal-safe. Returns 0 (also when dir does not exist) or -1. */
int fab_rmtree(const char *dir);

#endif
