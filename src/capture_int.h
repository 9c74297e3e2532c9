/*
 * capture_int.h - the parts of `fabtop capture` share one struct cap and
 * these helpers (capture_out.c); the sysfs walk (capture_sysfs.c), the
 * counter samples (capture_samples.c) and the NCCL processes
 * (capture_procs.c) write through them; capture.c runs them in order.
 * Every member of the capture goes through cap_out_*() into one tree held
 * in memory (memtree.h), which capture.c writes out in one pass at the
 * end: nothing is staged on disk. The source is read only through the
 * root (fabtop/root.h), whatever it is (live, a directory, a capture held
 * in memory). Internal to the capture: nothing else includes it.
 */
#ifndef FABTOP_CAPTURE_INT_H
#define FABTOP_CAPTURE_INT_H

#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "fabtop/root.h"
#include "cap_dest.h"

#define CAP_MAX_FILE ROOT_MAX_FILE

struct memtree;

struct cap {
	FILE *log;
	struct fab_root src;
	struct memtree *mt;     /* the capture being built: node path -> member */
	char *buf;              /* CAP_MAX_FILE + 2 */
	/* fabtop/unreadable.tsv, in memory (open_memstream) until the end */
	FILE *unreadable;
	char *unreadable_buf;
	size_t unreadable_len;
	char **visited;
	size_t nvisited, capvisited;
	int files, links, nunreadable, toobig;
	long long bytes;
	/* fabtop/hazards.json: {"skipped": {dev: why}}, devices whose counter
	 * files were not copied (hazard.h); NULL until one is. */
	json_t *hazards;
	char err[PATH_MAX + 256]; /* first fatal error */
};

/* Set by SIGINT/SIGTERM/SIGHUP during a capture: stop, clean up, return 2. */
extern volatile sig_atomic_t cap_signal_seen;

/* capture_out.c: the first fatal error wins; cap_stopped() is true after one. */
void cap_fatal(struct cap *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool cap_stopped(struct cap *c);
int cap_mkdir_p(char *path, mode_t mode);
/* The members: a folder, a file (its bytes copied), a link as its target
 * text. 0, or -1 with the capture failed (cap_fatal): out of memory, a
 * path the tree refuses, or past the caps a reader of the capture would
 * refuse it for (root_max_bytes(), root_max_entries()). */
int cap_out_dir(struct cap *c, const char *node_dir);
int cap_out_write(struct cap *c, const char *node_path, const char *data, size_t len);
int cap_out_json(struct cap *c, const char *node_path, json_t *j);
int cap_out_link(struct cap *c, const char *node_path, const char *target);
void cap_record_unreadable(struct cap *c, const char *node_path, int e);
/* Reads a small file of the source (len <= a page) into buf
 * (NUL-terminated): the size, len when there was more, or -errno. */
ssize_t cap_src_read(struct cap *c, const char *node_path, char *buf, size_t len);
/* A folder of the source being walked. Where the source has folders
 * (this node, a mirror) it is an fd opened beneath the root, and each of
 * its names is looked at and read relative to it, no link followed (a
 * name has no '/': nothing can lead out); a capture held in memory has no
 * fd (-1), and its names are read by node path through the root. */
struct cap_dir {
	int fd;
	const char *node;       /* its node path */
};
/* 0, or -errno (the folder is not there, or not a folder). */
int cap_dir_open(struct cap *c, struct cap_dir *d, const char *node_dir);
void cap_dir_close(struct cap_dir *d);
/* lstat() of a name: 0 (and a link's target in target), or -errno. */
int cap_dir_lstat(struct cap *c, const struct cap_dir *d, const char *name, struct stat *st,
		  char *target, size_t tlen);
/* Reads a regular file (st: its cap_dir_lstat()) into buf (max + 2
 * bytes, NUL-terminated), as root_read() reads: the size, max + 1 when
 * there is more, or -errno. */
ssize_t cap_dir_file(struct cap *c, const struct cap_dir *d, const char *name,
		     const struct stat *st, char *buf, size_t max);

/* capture_sysfs.c */
void cap_copy_sysfs(struct cap *c);
void cap_copy_node_file(struct cap *c, const char *node_path);

/* capture_samples.c */
void cap_take_samples(struct cap *c, int count, double interval);

/* capture_qp.c: fabtop/rdma-qp.bin, the raw RDMA netlink QP dump. */
void capture_qp(struct cap *c);

/* capture_procs.c: returns how many processes could not be read. */
/* What a capture keeps of an environ block (n bytes, env[n] == '\0',
 * split in place): {"NAME": value} for the table's variables only
 * (procfs_env_kind), NULL when out of memory; *nccl: the process set an
 * NCCL variable of its own. */
json_t *capture_env_json(char *env, size_t n, bool *nccl);
int capture_procs(struct cap *c);
/* capture_ras.c: NCCL's RAS asked under the gate and recorded in
 * fabtop/ras/ (see there); a capture source's processes and record are
 * carried instead when no --ras is given. 0. */
int capture_ras(struct cap *c, const char *ras_addr, double window);

#endif
