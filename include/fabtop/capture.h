/*
 * capture.h - `fabtop capture`: records this node into the capture format
 * (docs/capture-format.md) so that `--root` replays it anywhere.
 */
#ifndef FABTOP_CAPTURE_H
#define FABTOP_CAPTURE_H

#include <stdbool.h>
#include <stdio.h>

struct capture_opts {
	/* FILE.tar.gz, a FIFO or character device (streamed into), "-" for
	 * standard output, or a directory when it ends in '/'. An existing
	 * file is replaced only with force; a symbolic link is never written
	 * through nor replaced (but to a FIFO or a character device); a
	 * non-empty, foreign or linked directory is refused. */
	const char *output;
	bool force;            /* --force: replace an existing regular file */
	int samples;           /* counter samples, 0 for none */
	double interval;       /* seconds between samples */
	const char *src_root;  /* "/" normally; another root for tests */
	/* NCCL's RAS, asked under the gate's rules (ras.h) and recorded in
	 * fabtop/ras/: at the start, and when window > 0 again window seconds
	 * later. ras: --ras ADDR, else the job's own address. */
	const char *ras;
	double window;
};

/* Returns 0, or 2 with a message on stderr naming what failed. */
int capture_run(const struct capture_opts *o, FILE *log);

#endif
