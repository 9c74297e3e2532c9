/*
 * procfs.h - what /proc says about another process, for the capture
 * (fabtop/procs) and the wizard's job step: one reading of its files and
 * one rule for "this process is an NCCL job", so the two cannot disagree.
 */
#ifndef FABTOP_PROCFS_H
#define FABTOP_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The most of one /proc file read: environments beyond it are cut. */
#define PROCFS_MAX (4u << 20)

/* Reads a /proc file whole (up to PROCFS_MAX bytes) into a malloc'd,
 * NUL-terminated *out; returns its length or -errno (nothing to free). */
ssize_t procfs_slurp(const char *path, char **out);
/* /proc/<pid>/environ through procfs_slurp: "K=V\0K=V\0...". */
ssize_t procfs_environ(int pid, char **out);
/* The libnccl the process has mapped (/proc/<pid>/maps) into lib: the NCCL
 * the job runs, often its own wheel's rather than the loader path's. */
bool procfs_mapped_nccl(int pid, char *lib, size_t len);
/* An NCCL_ variable of the process's own ("NCCL_IB_HCA" or "NCCL_IB_HCA=x").
 * NVIDIA's images set NCCL_VERSION in every process, the shell included,
 * so on its own it does not make a process an NCCL job. */
bool procfs_nccl_var(const char *kv);

/* A kernel thread (PF_KTHREAD in /proc/<pid>/stat): it has no environment,
 * so one that cannot be read is not a process fabtop missed. */
bool procfs_is_kthread(int pid);

/* What the capture and the job step say of the processes they could not
 * read: "12 processes not readable as uid 1000 (Permission denied): run as
 * root, or with CAP_SYS_PTRACE". err: the first failure's errno; 0 when
 * unknown (a capture records only the count). */
int procfs_unreadable_text(int n, unsigned uid, int err, char *buf, size_t len);

#endif
