/*
 * cap_dest.h - one output file written so that nothing but that path can
 * ever be written (capture_file.c says what is refused and why): a new or
 * replaced regular file goes to a temporary file beside it (mkstemp, named
 * PATH.XXXXXX.part) that is fsync'ed and renamed onto it, so a reader sees
 * the old file or the whole new one; a FIFO or character device is
 * streamed into in place; a symbolic link is never written through nor
 * replaced (only followed, when the caller's own or root's, to a FIFO or
 * character device); "-" is standard output.
 *
 * Users: `fabtop capture -o` (the tarball) and `fabtop report metrics -o`
 * (the textfile node_exporter reads: its collector reads only *.prom, so
 * the temporary .part file is never read half-written).
 *
 * Sequence: cap_dest_open() -> write(d.fd, ...) -> cap_dest_commit(), or
 * cap_dest_abort() after a failure.
 */
#ifndef FABTOP_CAP_DEST_H
#define FABTOP_CAP_DEST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

enum cap_dest_how { CAP_DEST_NEW, CAP_DEST_REPLACE, CAP_DEST_STREAM };
struct cap_dest {
	const char *path;
	enum cap_dest_how how;
	int fd;                 /* the output goes here */
	char tmp[PATH_MAX];     /* the temporary file, "" when none (a stream) */
	bool is_stdout;
	long long size;         /* after cap_dest_commit(), for a file */
};
/* 0 with d ready to write, or -1 with err (nothing created). */
int cap_dest_open(struct cap_dest *d, const char *path, bool force, char *err, size_t len);
/* Puts the written file in place (or closes the stream): 0, or -1 with err. */
int cap_dest_commit(struct cap_dest *d, char *err, size_t len);
/* After a failure: closes, removes the temporary file. */
void cap_dest_abort(struct cap_dest *d);

#endif
