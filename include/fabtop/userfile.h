/*
 * userfile.h - the small files fabtop keeps for its user: the settings
 * (config.h) and the learning progress (learn.h). One way to read and one
 * way to write them, so both keep the same promises.
 *
 * Reading treats the file as outside input: a regular file only (a FIFO
 * there is never waited on: the open does not block), of at most max bytes
 * (one byte more is refused, so a file that grows is too), through a
 * symbolic link only when follow says so.
 *
 * Writing is atomic and private: the directory is made (0700, parents
 * too) when missing and used only when it is the user's own and no one
 * else may write to it (someone else could swap the file between our write
 * and our rename); the data goes to a new file created there exclusively
 * (never an existing file, never through a link), synced, then renamed
 * over the name, so a link planted at the name is replaced, not followed.
 */
#ifndef FABTOP_USERFILE_H
#define FABTOP_USERFILE_H

#include <stdbool.h>
#include <stddef.h>

/* 0 and a NUL-terminated copy in *out (free() it) of *len bytes, or -1 with
 * errno: ENOENT (none), ELOOP (a link, follow false), EINVAL (not a regular
 * file), EFBIG (more than max bytes), or what open/read said. */
int fab_user_read(const char *path, size_t max, bool follow, char **out, size_t *len);
/* Writes len bytes of buf as dir/name (see above): 0, or -1 with errno
 * (EPERM: the directory is someone else's or others may write to it). */
int fab_user_write(const char *dir, const char *name, const char *buf, size_t len);

#endif
