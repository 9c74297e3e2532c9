/*
 * procfs.h - what /proc says about another process, for the capture
 * (fabtop/procs) and the wizard's job step: one reading of its files, one
 * rule for "this process is an NCCL job", and one table of the environment
 * variables fabtop keeps and prints, so the two cannot disagree.
 *
 * Secrets: a process's environment is kept (in a capture) and printed (the
 * job step, in batch mode and in the TUI) only for the variables in that
 * table, named exactly; a name that looks like it holds a secret (KEY,
 * TOKEN, SECRET, PASS, CRED or AUTH in it, any case) is never kept, even
 * when the table names it. Everything else of the environment stays in
 * /proc.
 */
#ifndef FABTOP_PROCFS_H
#define FABTOP_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
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
/* Its parser: the first mapping whose path holds "/libnccl", cut to len
 * (NUL-terminated); false when none. */
bool procfs_parse_maps(FILE *f, char *lib, size_t len);
/* An NCCL_ variable of the process's own ("NCCL_IB_HCA" or "NCCL_IB_HCA=x").
 * NVIDIA's images set NCCL_VERSION in every process, the shell included,
 * so on its own it does not make a process an NCCL job. */
bool procfs_nccl_var(const char *kv);

/* A kernel thread (PF_KTHREAD in /proc/<pid>/stat): it has no environment,
 * so one that cannot be read is not a process fabtop missed. */
bool procfs_is_kthread(int pid);
/* Its parser: the flags field of a NUL-terminated /proc/<pid>/stat. */
bool procfs_parse_kthread(const char *stat);

/* How long ago the process started, in seconds: field 22 (starttime,
 * clock ticks after boot) of /proc/<pid>/stat against /proc/uptime; -1
 * when unknown. The parser takes both files' text and the tick rate. */
double procfs_age(int pid);
double procfs_parse_age(const char *stat, const char *uptime, long hz);

/* The pid in its own PID namespace: the last field of NSpid: in a
 * NUL-terminated /proc/<pid>/status; dflt when there is none. */
int procfs_parse_nspid(const char *status, int dflt);
/* /proc/<pid>/comm (n bytes, NUL-terminated or not): its first line into
 * comm, NUL-terminated and cut to len. */
void procfs_parse_comm(const char *b, size_t n, char *comm, size_t len);

/* /proc/<pid>/environ ("K=V\0K=V\0...", n bytes, env[n] == '\0' as
 * procfs_slurp leaves it), split in place at each '=': fn(name, value,
 * arg) for every entry that has one (fn may be NULL); entries without '='
 * are not variables and are skipped. Returns whether one is an NCCL
 * variable of the process's own (procfs_nccl_var), the job rule's half.
 * It keeps nothing: what fn keeps is its own filter's (procfs_env_kind). */
typedef void (*procfs_var_fn)(const char *name, const char *value, void *arg);
bool procfs_parse_environ(char *env, size_t n, procfs_var_fn fn, void *arg);

/* What the capture and the job step say of the processes they could not
 * read: "12 processes not readable as uid 1000 (Permission denied): run as
 * root, or with CAP_SYS_PTRACE". err: the first failure's errno; 0 when
 * unknown (a capture records only the count). */
int procfs_unreadable_text(int n, unsigned uid, int err, char *buf, size_t len);

/* What a variable is to fabtop: the table's kind for its exact name. */
enum procfs_env {
	PROCFS_ENV_NONE = 0,   /* not fabtop's, or a secret's name: never kept or shown */
	PROCFS_ENV_NCCL,       /* an NCCL setting the job step checks, prints or advises on */
	PROCFS_ENV_RANK,       /* a launcher's rank or placement variable (torchrun, MPI, Slurm) */
	PROCFS_ENV_HOST,       /* HOSTNAME: NCCL's %h in NCCL_DEBUG_FILE, for a capture */
};
/* The kind of "NAME" or "NAME=value": PROCFS_ENV_NONE unless NAME is in
 * the table and procfs_secret_name() is false for it. */
enum procfs_env procfs_env_kind(const char *kv);
/* True when "NAME" or "NAME=value" has KEY, TOKEN, SECRET, PASS, CRED or
 * AUTH in its name, in any case. */
bool procfs_secret_name(const char *kv);
/* The table itself, for tests and docs: the i-th name, NULL past the end. */
const char *procfs_env_name(int i);

/* Word i of a command line as it may be shown: "NAME=<hidden>" for a
 * NAME=value word whose NAME looks secret ("--password=x" too), "<hidden>"
 * for the word after an option that does ("--api-key X"), else the word.
 * A name too long for buf is cut; "=<hidden>" always ends the word (for
 * len >= 10). Returns argv[i] or buf. */
const char *procfs_shown_arg(const char *const argv[], int i, char *buf, size_t len);

#endif
