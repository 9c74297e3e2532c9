/*
 * capture.h - `fabtop capture`: records this node into the capture format
 * (docs/capture-format.md) so that `--root` replays it anywhere.
 */
#ifndef FABTOP_CAPTURE_H
#define FABTOP_CAPTURE_H

#include <stdio.h>

struct capture_opts {
	const char *output;    /* FILE.tar.gz, or a directory when it ends in '/' */
	int samples;           /* counter samples, 0 for none */
	double interval;       /* seconds between samples */
	const char *src_root;  /* "/" normally; another root for tests */
};

/* Returns 0, or 2 with a message on stderr naming what failed. */
int capture_run(const struct capture_opts *o, FILE *log);

#endif
