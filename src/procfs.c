/* procfs.c - reading another process's /proc files (see procfs.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "procfs.h"
#include "fabtop/util.h"

ssize_t procfs_slurp(const char *path, char **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* /proc files report size 0: grow until read returns 0. */
	size_t cap = 16384, got = 0;
	char *b = malloc(cap + 1);
	while (b) {
		ssize_t n = read(fd, b + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(b);
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got == cap) {
			if (cap >= PROCFS_MAX)
				break;
			char *nb = realloc(b, cap * 2 + 1);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (!b)
		return -ENOMEM;
	b[got] = '\0';
	*out = b;
	return (ssize_t)got;
}

ssize_t procfs_environ(int pid, char **out)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/environ", pid);
	return procfs_slurp(p, out);
}

bool procfs_parse_maps(FILE *f, char *lib, size_t len)
{
	char line[PATH_MAX + 128];
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		if (!path || !strstr(path, "/libnccl"))
			continue;
		path[strcspn(path, "\n")] = '\0';
		fab_strlcpy(lib, path, len);
		return true;
	}
	return false;
}

bool procfs_mapped_nccl(int pid, char *lib, size_t len)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/maps", pid);
	FILE *f = fopen(p, "re");
	if (!f)
		return false;
	bool found = procfs_parse_maps(f, lib, len);
	fclose(f);
	return found;
}

bool procfs_nccl_var(const char *kv)
{
	if (strncmp(kv, "NCCL_", 5) != 0)
		return false;
	return !(strncmp(kv, "NCCL_VERSION", 12) == 0 && (kv[12] == '\0' || kv[12] == '='));
}

bool procfs_parse_kthread(const char *stat)
{
	/* The fields after "(comm)": state ppid pgrp session tty tpgid flags;
	 * the last ')' because comm may hold one. */
	const char *s = strrchr(stat, ')');
	unsigned long flags = 0;
	return s && sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1 &&
	       (flags & 0x00200000UL);   /* PF_KTHREAD */
}

bool procfs_is_kthread(int pid)
{
	char p[64], *b = NULL;
	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	if (procfs_slurp(p, &b) <= 0)
		return false;
	bool k = procfs_parse_kthread(b);
	free(b);
	return k;
}

double procfs_parse_age(const char *stat, const char *uptime, long hz)
{
	/* starttime is field 22; after "(comm)" (field 2) it is the 20th. */
	const char *s = strrchr(stat, ')');
	unsigned long long start;
	double up;
	if (!s || hz <= 0 || sscanf(uptime, "%lf", &up) != 1 ||
	    sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu", &start) != 1)
		return -1;
	double age = up - (double)start / (double)hz;
	return age >= 0 ? age : 0;
}

double procfs_age(int pid)
{
	char p[64], *st = NULL, *up = NULL;
	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	double age = -1;
	if (procfs_slurp(p, &st) > 0 && procfs_slurp("/proc/uptime", &up) > 0)
		age = procfs_parse_age(st, up, sysconf(_SC_CLK_TCK));
	free(st);
	free(up);
	return age;
}

int procfs_parse_nspid(const char *status, int dflt)
{
	const char *l = strstr(status, "\nNSpid:");
	if (!l)
		return dflt;
	l += 7;
	const char *end = l + strcspn(l, "\n"), *last = NULL;
	for (const char *s = l; s < end; s++)
		if ((s == l || s[-1] == '\t' || s[-1] == ' ') && *s >= '0' && *s <= '9')
			last = s;
	return last ? atoi(last) : dflt;
}

void procfs_parse_comm(const char *b, size_t n, char *comm, size_t len)
{
	const char *nl = memchr(b, '\n', n);
	size_t l = nl ? (size_t)(nl - b) : strnlen(b, n);
	if (!len)
		return;
	if (l >= len)
		l = len - 1;
	memcpy(comm, b, l);
	comm[l] = '\0';
}

bool procfs_parse_environ(char *env, size_t n, procfs_var_fn fn, void *arg)
{
	bool own = false;
	for (char *kv = env, *next; kv < env + n; kv = next) {
		/* The next entry is found before the split: past it, a value
		 * holding '=' would read as a variable of its own. */
		next = kv + strlen(kv) + 1;
		char *eq = strchr(kv, '=');
		if (!eq)
			continue;   /* not a variable: getenv() would not find it either */
		*eq = '\0';
		if (procfs_nccl_var(kv))
			own = true;
		if (fn)
			fn(kv, eq + 1, arg);
	}
	return own;
}

int procfs_unreadable_text(int n, unsigned uid, int err, char *buf, size_t len)
{
	return snprintf(buf, len, "%d process%s not readable as uid %u%s%s%s: run as root, or with "
			"CAP_SYS_PTRACE", n, n == 1 ? "" : "es", uid, err ? " (" : "",
			err ? strerror(err) : "", err ? ")" : "");
}

/* ---- the environment fabtop keeps and shows ---- */

/* Every variable fabtop reads from a process, by exact name, and why; a
 * capture keeps these and nothing else, the job step prints these and
 * nothing else. Add a row when code starts reading one (job_var(), the
 * A/B's settings, a hint that names it). */
static const struct {
	const char *name;
	enum procfs_env kind;
} env_table[] = {
	/* The job step's checks (job_check.c) and the wizard's inputs. */
	{ "NCCL_SOCKET_IFNAME", PROCFS_ENV_NCCL },
	{ "NCCL_COMM_ID", PROCFS_ENV_NCCL },          /* its subnet picks the interface */
	{ "NCCL_IB_HCA", PROCFS_ENV_NCCL },
	{ "NCCL_IB_GID_INDEX", PROCFS_ENV_NCCL },     /* layer 3 takes it too */
	{ "NCCL_IB_ROCE_VERSION_NUM", PROCFS_ENV_NCCL }, /* the GID NCCL picks without an index */
	{ "NCCL_IB_ADDR_FAMILY", PROCFS_ENV_NCCL },
	{ "NCCL_IB_TC", PROCFS_ENV_NCCL },            /* the RoCE traffic class (collectors/dcb.c) */
	{ "NCCL_IB_DISABLE", PROCFS_ENV_NCCL },
	{ "NCCL_NET", PROCFS_ENV_NCCL },
	{ "NCCL_DEBUG", PROCFS_ENV_NCCL },
	{ "NCCL_DEBUG_FILE", PROCFS_ENV_NCCL },
	{ "NCCL_VERSION", PROCFS_ENV_NCCL },          /* the job rule sets it apart */
	/* What the A/B sets and its hints name (ab.c, ab_decide.c). */
	{ "NCCL_DEBUG_SUBSYS", PROCFS_ENV_NCCL },
	{ "NCCL_P2P_DISABLE", PROCFS_ENV_NCCL },
	{ "NCCL_SHM_DISABLE", PROCFS_ENV_NCCL },
	{ "NCCL_NET_PLUGIN", PROCFS_ENV_NCCL },
	{ "NCCL_NET_GDR_LEVEL", PROCFS_ENV_NCCL },
	/* Where the job's RAS listens, and whether it runs (ras.c). */
	{ "NCCL_RAS_ADDR", PROCFS_ENV_NCCL },
	{ "NCCL_RAS_ENABLE", PROCFS_ENV_NCCL },
	/* GPUDirect RDMA's settings besides NCCL_NET_GDR_LEVEL (gdr.c). */
	{ "NCCL_NET_GDR_C2C", PROCFS_ENV_NCCL },
	{ "NCCL_DMABUF_ENABLE", PROCFS_ENV_NCCL },
	/* Launchers' rank and placement variables: torchrun, Open MPI, Slurm,
	 * PMI/PMIx (MPICH, Intel MPI), the rendezvous they point at. */
	{ "RANK", PROCFS_ENV_RANK },
	{ "LOCAL_RANK", PROCFS_ENV_RANK },
	{ "WORLD_SIZE", PROCFS_ENV_RANK },
	{ "LOCAL_WORLD_SIZE", PROCFS_ENV_RANK },
	{ "GROUP_RANK", PROCFS_ENV_RANK },
	{ "NODE_RANK", PROCFS_ENV_RANK },
	{ "OMPI_COMM_WORLD_RANK", PROCFS_ENV_RANK },
	{ "OMPI_COMM_WORLD_SIZE", PROCFS_ENV_RANK },
	{ "OMPI_COMM_WORLD_LOCAL_RANK", PROCFS_ENV_RANK },
	{ "SLURM_PROCID", PROCFS_ENV_RANK },
	{ "SLURM_LOCALID", PROCFS_ENV_RANK },
	{ "SLURM_NTASKS", PROCFS_ENV_RANK },
	{ "PMI_RANK", PROCFS_ENV_RANK },
	{ "PMI_SIZE", PROCFS_ENV_RANK },
	{ "PMIX_RANK", PROCFS_ENV_RANK },
	{ "MASTER_ADDR", PROCFS_ENV_RANK },
	{ "MASTER_PORT", PROCFS_ENV_RANK },
	{ "CUDA_VISIBLE_DEVICES", PROCFS_ENV_RANK },
	/* NCCL's %h (NCCL_DEBUG_FILE) for a process in another UTS namespace. */
	{ "HOSTNAME", PROCFS_ENV_HOST },
};

/* Case-insensitive: does the name part of kv (up to '=') hold word? */
static bool name_has(const char *kv, size_t nl, const char *word)
{
	size_t wl = strlen(word);
	for (size_t i = 0; i + wl <= nl; i++) {
		size_t k = 0;
		while (k < wl && toupper((unsigned char)kv[i + k]) == word[k])
			k++;
		if (k == wl)
			return true;
	}
	return false;
}

bool procfs_secret_name(const char *kv)
{
	static const char *const deny[] = { "KEY", "TOKEN", "SECRET", "PASS", "CRED", "AUTH" };
	size_t nl = strcspn(kv, "=");
	for (size_t i = 0; i < sizeof(deny) / sizeof(deny[0]); i++)
		if (name_has(kv, nl, deny[i]))
			return true;
	return false;
}

enum procfs_env procfs_env_kind(const char *kv)
{
	size_t nl = strcspn(kv, "=");
	if (procfs_secret_name(kv))
		return PROCFS_ENV_NONE;   /* the deny pattern wins over the table */
	for (size_t i = 0; i < sizeof(env_table) / sizeof(env_table[0]); i++)
		if (strlen(env_table[i].name) == nl && strncmp(env_table[i].name, kv, nl) == 0)
			return env_table[i].kind;
	return PROCFS_ENV_NONE;
}

const char *procfs_env_name(int i)
{
	return i >= 0 && (size_t)i < sizeof(env_table) / sizeof(env_table[0]) ? env_table[i].name : NULL;
}

const char *procfs_shown_arg(const char *const argv[], int i, char *buf, size_t len)
{
	const char *w = argv[i], *eq = strchr(w, '=');
	if (eq && procfs_secret_name(w)) {
		/* A long name is cut, never the marker that says what was hidden. */
		static const char mark[] = "=<hidden>";
		size_t keep = (size_t)(eq - w);
		if (len >= sizeof(mark) && keep > len - sizeof(mark))
			keep = len - sizeof(mark);
		snprintf(buf, len, "%.*s%s", (int)keep, w, mark);
		return buf;
	}
	/* "--token X", "-password X": the option's value is the next word. */
	const char *prev = i > 0 ? argv[i - 1] : NULL;
	if (prev && prev[0] == '-' && !strchr(prev, '=') && procfs_secret_name(prev)) {
		snprintf(buf, len, "<hidden>");
		return buf;
	}
	return w;
}
