/* capture_procs.c - NCCL processes and their filtered environment
 * (fabtop/procs/<pid>.json): only the variables in procfs.c's table are
 * written, never one whose name looks secret, so secrets never leave the
 * node. A process is an NCCL job when it has libnccl mapped or sets an
 * NCCL_ variable of its own (procfs_nccl_var()). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "capture_int.h"
#include "procfs.h"
#include "fabtop/util.h"

/* ---- NCCL processes ---- */

static void keep_var(const char *name, const char *value, void *arg)
{
	if (procfs_env_kind(name) == PROCFS_ENV_NONE)
		return;
	json_t *v = json_string(value);   /* NULL for invalid UTF-8 */
	json_object_set_new(arg, name, v ? v : json_null());
}

json_t *capture_env_json(char *env, size_t n, bool *nccl)
{
	json_t *ej = json_object();
	*nccl = procfs_parse_environ(env, n, ej ? keep_var : NULL, ej);
	return ej;
}

static void capture_proc(struct cap *c, const char *pid, int *unreadable, int *found)
{
	char *env = NULL;
	ssize_t n = procfs_environ(atoi(pid), &env);
	if (n < 0) {
		if (n != -ENOENT && n != -ESRCH && !procfs_is_kthread(atoi(pid)))
			(*unreadable)++;
		return;
	}
	bool nccl;
	json_t *ej = capture_env_json(env, (size_t)n, &nccl);
	free(env);
	char lib[PATH_MAX];
	bool mapped = procfs_mapped_nccl(atoi(pid), lib, sizeof(lib));
	if (!nccl && !mapped) {
		json_decref(ej);
		return;
	}
	json_t *j = json_object();
	char p[320], buf[256];
	json_object_set_new(j, "pid", json_integer(atoll(pid)));
	json_object_set_new(j, "nccl_lib", mapped ? json_string(lib) : json_null());
	/* The job rule's other half, since that variable may not be kept. */
	json_object_set_new(j, "nccl_var", json_boolean(nccl));
	/* Its age when captured: RAS is not asked of a job still starting. */
	double age = procfs_age(atoi(pid));
	json_object_set_new(j, "age_s", age >= 0 ? json_real(floor(age)) : json_null());
	snprintf(p, sizeof(p), "/proc/%s/comm", pid);
	ssize_t l = root_read(&c->src, p, buf, sizeof(buf));
	if (l > 0) {
		char comm[sizeof(buf)];
		procfs_parse_comm(buf, (size_t)l, comm, sizeof(comm));
		json_object_set_new(j, "comm", json_string(comm));
	} else {
		json_object_set_new(j, "comm", json_null());
	}
	snprintf(p, sizeof(p), "/proc/%s/ns/net", pid);
	l = readlink(p, buf, sizeof(buf) - 1);
	if (l > 0)
		buf[l] = '\0';
	json_object_set_new(j, "netns", l > 0 ? json_string(buf) : json_null());
	json_object_set_new(j, "env", ej ? ej : json_object());
	snprintf(p, sizeof(p), "/fabtop/procs/%s.json", pid);
	if (cap_out_json(c, p, j) == 0)
		(*found)++;
	json_decref(j);
}

/* Returns how many processes could not be read. */
int capture_procs(struct cap *c)
{
	DIR *d = opendir("/proc");
	int unreadable = 0, found = 0;
	if (!d) {
		fprintf(c->log, "fabtop: cannot list /proc: %s (no NCCL processes recorded)\n",
			strerror(errno));
		return 0;
	}
	struct dirent *de;
	char self[32];
	snprintf(self, sizeof(self), "%d", (int)getpid());
	while ((de = readdir(d)) && !cap_stopped(c)) {
		if (strspn(de->d_name, "0123456789") != strlen(de->d_name) || !strcmp(de->d_name, self))
			continue;
		capture_proc(c, de->d_name, &unreadable, &found);
	}
	closedir(d);
	fprintf(c->log, "fabtop: %d NCCL process(es) recorded, %d process(es) not readable%s\n",
		found, unreadable, unreadable ? " (run as root to see them all)" : "");
	return unreadable;
}

