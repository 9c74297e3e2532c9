/*
 * root_mem.h - the capture root served from memory (src/root_mem.c): what
 * root.c's functions do when fab_root.mem is set. A capture tarball is read
 * once into a memtree (memtree.h); nothing is unpacked, no temporary
 * directory is made, and links resolve lexically within the tree (an
 * absolute target or ".." above the top is EXDEV).
 *
 * Each function has the contract of its root.c namesake (fabtop/root.h);
 * root.c calls them, and checks nothing for them (the recorded errnos of
 * fabtop/unreadable.tsv are applied here, where the namesake applies them).
 */
#ifndef FABTOP_ROOT_MEM_H
#define FABTOP_ROOT_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct fab_root;

/* Reads the capture at path into r->mem: 0; 1 when it broke after some
 * members (err says what was lost; the rest is kept); -1 with err set. */
int root_mem_load(struct fab_root *r, const char *path, char *err, size_t errlen);

/* A file's bytes in a memfd (rewound); -ENOTSUP for O_DIRECTORY on a
 * directory, which has no fd in memory; -EISDIR for a directory otherwise. */
int root_mem_open_fd(const struct fab_root *r, const char *node_path, int oflags);
int root_mem_stat(const struct fab_root *r, const char *node_path, struct stat *st);
ssize_t root_mem_read(const struct fab_root *r, const char *node_path, char *buf, size_t len);
int root_mem_read_alloc(const struct fab_root *r, const char *node_path, char **buf, size_t *len);
ssize_t root_mem_readlink(const struct fab_root *r, const char *node_path, char *buf, size_t len);
int root_mem_realpath(const struct fab_root *r, const char *node_path, char *buf, size_t len);
bool root_mem_exists(const struct fab_root *r, const char *node_path);
int root_mem_list(const struct fab_root *r, const char *node_path, char ***names);

/* The recorded errno an empty placeholder stands for: a capture lists an
 * unreadable file by its real path, and collectors often read through
 * class links. 0 when there is none. */
int root_placeholder_errno(const struct fab_root *r, const char *node_path);

#endif
