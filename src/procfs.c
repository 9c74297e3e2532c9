/* procfs.c - reading another process's /proc files (see procfs.h). */
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

bool procfs_mapped_nccl(int pid, char *lib, size_t len)
{
	char p[64], line[PATH_MAX + 128];
	snprintf(p, sizeof(p), "/proc/%d/maps", pid);
	FILE *f = fopen(p, "re");
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		if (!path || !strstr(path, "/libnccl"))
			continue;
		path[strcspn(path, "\n")] = '\0';
		fab_strlcpy(lib, path, len);
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

bool procfs_nccl_var(const char *kv)
{
	if (strncmp(kv, "NCCL_", 5) != 0)
		return false;
	return !(strncmp(kv, "NCCL_VERSION", 12) == 0 && (kv[12] == '\0' || kv[12] == '='));
}

bool procfs_is_kthread(int pid)
{
	char p[64], *b = NULL;
	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	if (procfs_slurp(p, &b) <= 0)
		return false;
	/* The fields after "(comm)": state ppid pgrp session tty tpgid flags. */
	char *s = strrchr(b, ')');
	unsigned long flags = 0;
	bool k = s && sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1 &&
		 (flags & 0x00200000UL);   /* PF_KTHREAD */
	free(b);
	return k;
}

int procfs_unreadable_text(int n, unsigned uid, int err, char *buf, size_t len)
{
	return snprintf(buf, len, "%d process%s not readable as uid %u%s%s%s: run as root, or with "
			"CAP_SYS_PTRACE", n, n == 1 ? "" : "es", uid, err ? " (" : "",
			err ? strerror(err) : "", err ? ")" : "");
}
