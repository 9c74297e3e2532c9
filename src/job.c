/* job.c - finds the NCCL jobs (step 0): live from /proc, or from a
 * capture's fabtop/procs/<pid>.json, by the rule capture_procs.c records
 * them with; reads their settings, rank variables, network view and log. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "job.h"
#include "procfs.h"
#include "fabtop/runner.h"
#include "fabtop/util.h"

const char *job_var(const struct fab_job *j, const char *name)
{
	for (int i = 0; i < j->nnccl; i++)
		if (strcmp(j->nccl[i].name, name) == 0)
			return j->nccl[i].value;
	for (int i = 0; i < j->nrank; i++)
		if (strcmp(j->rank[i].name, name) == 0)
			return j->rank[i].value;
	return NULL;
}

/* Files NCCL also reads settings from; the environment wins over them.
 * Only the variables in procfs.c's table are kept (never a secret's):
 * what is kept here is what the job step prints, live or from a capture. */
static void add_var(struct fab_job *j, const char *name, const char *value, const char *source)
{
	struct fab_job_var *v = NULL;
	switch (procfs_env_kind(name)) {
	case PROCFS_ENV_NCCL:
		for (int i = 0; i < j->nnccl; i++)
			if (strcmp(j->nccl[i].name, name) == 0)
				return;   /* set already, by a source NCCL prefers */
		if (j->nnccl < JOB_MAX_VARS)
			v = &j->nccl[j->nnccl++];
		break;
	case PROCFS_ENV_RANK:
		if (j->nrank < JOB_MAX_RANK)
			v = &j->rank[j->nrank++];
		break;
	default:
		break;
	}
	if (!v)
		return;
	fab_strlcpy(v->name, name, sizeof(v->name));
	fab_strlcpy(v->value, value, sizeof(v->value));
	fab_strlcpy(v->source, source, sizeof(v->source));
}

static int var_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fab_job_var *)a)->name, ((const struct fab_job_var *)b)->name);
}

static void sort_vars(struct fab_job *j)
{
	qsort(j->nccl, (size_t)j->nnccl, sizeof(j->nccl[0]), var_cmp);
}

void job_parse_conf(struct fab_job *j, FILE *f, const char *label)
{
	char line[1024];
	size_t seen = 0;
	while (seen < ROOT_MAX_FILE && fgets(line, sizeof(line), f)) {
		seen += strlen(line);
		if (line[0] == '#')
			continue;
		char *eq = strchr(line, '=');
		if (!eq || eq == line)
			continue;
		*eq = '\0';
		char *v = eq + 1;
		size_t l = strlen(v);
		while (l && (v[l - 1] == '\n' || v[l - 1] == '\r' || v[l - 1] == ' '))
			v[--l] = '\0';
		add_var(j, line, v, label);
	}
}

/* NCCL's setEnvFile(): the file is the job's, read as it sees it (path
 * inside its root, links resolved there) and never a FIFO or device: a
 * user's ~/.nccl.conf must not stop fabtop. */
static void read_conf(struct fab_job *j, int pid, const char *path, const char *label)
{
	char root[64];
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	int fd = root_open_in(root, path);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	job_parse_conf(j, f, label);
	fclose(f);
}

/* ---- NCCL_DEBUG_FILE ---- */

void job_expand_debug_file(const char *tmpl, const char *host, int pid, char *out, size_t len)
{
	size_t o = 0;
	if (!len)
		return;
	for (const char *p = tmpl; *p && o + 1 < len; p++) {
		char tmp[FAB_NAME_LEN + 16];
		const char *add = tmp;
		if (*p != '%' || !p[1]) {
			tmp[0] = *p;
			tmp[1] = '\0';
		} else if (p[1] == 'h') {
			add = host && *host ? host : "%h";
			p++;
		} else if (p[1] == 'p') {
			snprintf(tmp, sizeof(tmp), "%d", pid);
			p++;
		} else {
			/* NCCL copies an unknown %x through as it is. */
			tmp[0] = '%';
			tmp[1] = p[1];
			tmp[2] = '\0';
			p++;
		}
		size_t al = strlen(add);
		if (o + al >= len)
			al = len - 1 - o;
		memcpy(out + o, add, al);
		o += al;
	}
	out[o] = '\0';
}

/* ---- live processes ---- */

static bool same_ns(int pid, const char *kind, char *link, size_t len)
{
	char p[64], self[64], mine[64] = "";
	snprintf(p, sizeof(p), "/proc/%d/ns/%s", pid, kind);
	snprintf(self, sizeof(self), "/proc/self/ns/%s", kind);
	ssize_t n = readlink(p, link, len - 1);
	link[n > 0 ? n : 0] = '\0';
	ssize_t m = readlink(self, mine, sizeof(mine) - 1);
	mine[m > 0 ? m : 0] = '\0';
	return n > 0 && m > 0 && strcmp(link, mine) == 0;
}

void job_parse_cmdline(const char *b, size_t n, char *out, size_t len)
{
	const char *argv[65], *shown[65];
	char hidden[64][FAB_NAME_LEN];
	int argc = 0;
	for (const char *s = b; s < b + n && argc < 64; s += strlen(s) + 1)
		argv[argc++] = s;
	argv[argc] = NULL;
	/* A secret on the command line (--api-key X) is not shown either. */
	for (int i = 0; i < argc; i++)
		shown[i] = procfs_shown_arg(argv, i, hidden[i], sizeof(hidden[i]));
	shown[argc] = NULL;
	run_format_argv(shown, out, len);
}

static void read_comm_cmdline(struct fab_job *j)
{
	char p[64], *b = NULL;
	snprintf(p, sizeof(p), "/proc/%d/comm", j->pid);
	ssize_t n = procfs_slurp(p, &b);
	if (n > 0)
		procfs_parse_comm(b, (size_t)n, j->comm, sizeof(j->comm));
	free(b);
	b = NULL;
	snprintf(p, sizeof(p), "/proc/%d/cmdline", j->pid);
	n = procfs_slurp(p, &b);
	if (n > 0)
		job_parse_cmdline(b, (size_t)n, j->cmdline, sizeof(j->cmdline));
	free(b);
}

/* Its pid inside its own PID namespace (NCCL's %p): NSpid's last field. */
static int ns_pid(int pid)
{
	char p[64], *b = NULL;
	snprintf(p, sizeof(p), "/proc/%d/status", pid);
	int v = pid;
	if (procfs_slurp(p, &b) > 0)
		v = procfs_parse_nspid(b, pid);
	free(b);
	return v;
}

/* What its mount namespace has under /dev/infiniband. */
static void visible_uverbs(struct fab_job *j)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/root/dev/infiniband", j->pid);
	DIR *d = opendir(p);
	if (!d) {
		j->uverbs_checked = errno == ENOENT;   /* no such directory: none */
		return;
	}
	j->uverbs_checked = true;
	char **names = NULL;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strncmp(de->d_name, "uverbs", 6) == 0) {
			char **nn = realloc(names, (size_t)(n + 1) * sizeof(*nn));
			if (!nn)
				break;
			names = nn;
			names[n++] = strdup(de->d_name);
		}
	closedir(d);
	for (int a = 0; a < n; a++)          /* natural order, as the model lists them */
		for (int b = a + 1; b < n; b++)
			if (names[a] && names[b] && fab_natcmp(names[a], names[b]) > 0) {
				char *t = names[a];
				names[a] = names[b];
				names[b] = t;
			}
	size_t o = 0;
	for (int a = 0; a < n; a++) {
		if (names[a] && o + strlen(names[a]) + 2 < sizeof(j->uverbs_visible))
			o += (size_t)snprintf(j->uverbs_visible + o, sizeof(j->uverbs_visible) - o,
					      "%s%s", o ? " " : "", names[a]);
		free(names[a]);
	}
	free(names);
}

static void locate_debug_file(struct fab_job *j)
{
	const char *t = job_var(j, "NCCL_DEBUG_FILE");
	if (!t || !*t)
		return;
	job_expand_debug_file(t, j->host, j->nspid, j->debug_file, sizeof(j->debug_file));
	if (j->from_capture)
		return;
	/* Its path is in its mount namespace, relative ones from its cwd. */
	snprintf(j->debug_file_open, sizeof(j->debug_file_open), "/proc/%d/%s%s", j->pid,
		 j->debug_file[0] == '/' ? "root" : "cwd/", j->debug_file);
	struct stat st;
	if (stat(j->debug_file_open, &st) == 0)
		j->debug_file_size = fab_int_of((long long)st.st_size);
}

static void on_env(const char *name, const char *value, void *arg)
{
	struct job_env *e = arg;
	if (strcmp(name, "HOME") == 0)
		e->home = value;
	else if (strcmp(name, "HOSTNAME") == 0)
		e->hostname = value;
	add_var(e->j, name, value, "environment");
}

bool job_parse_environ(struct job_env *e, char *env, size_t n)
{
	return procfs_parse_environ(env, n, on_env, e);
}

/* Returns 1 for a job (kept in *j), 0 for another process (a kernel
 * thread, one that exited), -errno when its environment cannot be read. */
static int scan_pid(int pid, struct fab_job *j)
{
	char *env = NULL;
	ssize_t n = procfs_environ(pid, &env);
	if (n < 0)
		return n == -ENOENT || n == -ESRCH || procfs_is_kthread(pid) ? 0 : (int)n;
	memset(j, 0, sizeof(*j));
	j->pid = pid;
	j->age_s = procfs_age(pid);
	struct job_env e = { .j = j };
	bool own_nccl = job_parse_environ(&e, env, (size_t)n);
	const char *home = e.home, *hostname = e.hostname;
	bool mapped = procfs_mapped_nccl(pid, j->nccl_lib, sizeof(j->nccl_lib));
	/* A kernel thread has an empty environment and no maps: not a job. */
	if (!own_nccl && !mapped) {
		free(env);
		return 0;
	}
	read_comm_cmdline(j);
	char link[64];
	j->other_netns = !same_ns(pid, "net", j->netns, sizeof(j->netns));
	j->nspid = ns_pid(pid);
	if (same_ns(pid, "uts", link, sizeof(link))) {
		gethostname(j->host, sizeof(j->host) - 1);
	} else if (hostname) {
		fab_strlcpy(j->host, hostname, sizeof(j->host));
	}
	j->host[strcspn(j->host, ".")] = '\0';   /* NCCL's getHostName() cuts at the first '.' */
	char conf[FAB_PATH_LEN + 64];
	if (home) {
		snprintf(conf, sizeof(conf), "%s/.nccl.conf", home);
		read_conf(j, pid, conf, "~/.nccl.conf");
	}
	read_conf(j, pid, "/etc/nccl.conf", "/etc/nccl.conf");
	sort_vars(j);
	free(env);
	job_net_read(pid, !j->other_netns && j->netns[0], &j->net);
	visible_uverbs(j);
	locate_debug_file(j);
	return 1;
}

static int push(struct fab_job_list *l, const struct fab_job *j)
{
	struct fab_job *n = realloc(l->jobs, (size_t)(l->njobs + 1) * sizeof(*n));
	if (!n)
		return -1;
	l->jobs = n;
	l->jobs[l->njobs++] = *j;
	return 0;
}

static int scan_live(struct fab_job_list *l, char *err, size_t len)
{
	DIR *d = opendir("/proc");
	if (!d) {
		snprintf(err, len, "cannot list /proc: %s", strerror(errno));
		return -1;
	}
	fab_strlcpy(l->source, "/proc", sizeof(l->source));
	struct fab_job *j = malloc(sizeof(*j));
	struct dirent *de;
	int self = (int)getpid(), err1 = 0;
	char which[96] = "";
	while (j && (de = readdir(d))) {
		if (strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		int pid = atoi(de->d_name);
		if (pid == self)
			continue;
		int r = scan_pid(pid, j);
		if (r < 0) {
			if (!l->unreadable++)
				err1 = -r;
			size_t o = strlen(which);
			if (l->unreadable <= 4)
				snprintf(which + o, sizeof(which) - o, "%s%d", o ? " " : "", pid);
		} else if (r == 1 && push(l, j) != 0) {
			job_net_free(&j->net);
		}
	}
	closedir(d);
	free(j);
	if (l->unreadable) {
		char t[200];
		procfs_unreadable_text(l->unreadable, (unsigned)geteuid(), err1, t, sizeof(t));
		snprintf(l->note, sizeof(l->note), "%s; pid %s%s", t, which,
			 l->unreadable > 4 ? " ..." : "");
	}
	return 0;
}

/* ---- a capture ---- */

static int pid_cmp(const void *a, const void *b)
{
	return ((const struct fab_job *)a)->pid - ((const struct fab_job *)b)->pid;
}

/* The IPv4 default route's interface, from the capture's netlink.json. */
static void capture_default_if(const struct fab_root *r, char *out, size_t len)
{
	json_error_t je;
	json_t *doc = root_load_json(r, "/fabtop/netlink.json", &je), *rt;
	size_t i;
	json_array_foreach(json_object_get(doc, "routes"), i, rt) {
		const char *dst = json_string_value(json_object_get(rt, "dst"));
		const char *gw = json_string_value(json_object_get(rt, "gateway"));
		const char *dev = json_string_value(json_object_get(rt, "dev"));
		if (dst && dev && strcmp(dst, "default") == 0 && (!gw || !strchr(gw, ':'))) {
			fab_strlcpy(out, dev, len);
			break;
		}
	}
	json_decref(doc);
}

/* What the capture could not read on its node (meta.json procs_unreadable,
 * as which uid) and the process files here that are not one: the jobs
 * among them are unknown, so "none" cannot be said. */
static void capture_unreadable(const struct fab_root *r, struct fab_job_list *l, int bad_files)
{
	char t[200];
	json_error_t je;
	json_t *meta = root_load_json(r, "/fabtop/meta.json", &je);
	json_t *n = json_object_get(meta, "procs_unreadable"), *uid = json_object_get(meta, "uid");
	int missed = json_is_integer(n) && json_integer_value(n) > 0 && json_integer_value(n) < 1 << 24 ?
		     (int)json_integer_value(n) : 0;
	l->unreadable = missed + bad_files;
	if (missed && json_is_integer(uid)) {
		procfs_unreadable_text(missed, (unsigned)json_integer_value(uid), 0, t, sizeof(t));
		snprintf(l->note, sizeof(l->note), "when the capture was taken, %s", t);
	} else if (missed) {
		snprintf(l->note, sizeof(l->note), "when the capture was taken, %d process%s could not "
			 "be read: take it as root, or with CAP_SYS_PTRACE", missed, missed == 1 ? "" : "es");
	}
	if (bad_files) {
		size_t o = strlen(l->note);
		snprintf(l->note + o, sizeof(l->note) - o, "%s%d file%s in fabtop/procs %s not a "
			 "process record", o ? "; " : "", bad_files, bad_files == 1 ? "" : "s",
			 bad_files == 1 ? "is" : "are");
	}
	json_decref(meta);
}

static int scan_capture(const struct fab_root *r, struct fab_job_list *l, char *err, size_t len)
{
	char **names = NULL;
	int n = root_list(r, "/fabtop/procs", &names);
	fab_strlcpy(l->source, "capture fabtop/procs", sizeof(l->source));
	if (n < 0) {
		capture_unreadable(r, l, 0);
		if (!l->note[0])
			snprintf(l->note, sizeof(l->note), "the capture records no processes (no fabtop/procs)");
		return 0;
	}
	char def[FAB_NAME_LEN] = "";
	capture_default_if(r, def, sizeof(def));
	int bad_files = 0;
	struct fab_job *j = malloc(sizeof(*j));
	for (int i = 0; j && i < n; i++) {
		char node[320];
		json_error_t je;
		snprintf(node, sizeof(node), "/fabtop/procs/%s", names[i]);
		json_t *doc = root_load_json(r, node, &je);
		json_t *env = json_object_get(doc, "env");
		if (!json_is_object(doc) || !json_is_integer(json_object_get(doc, "pid"))) {
			bad_files++;
			json_decref(doc);
			continue;
		}
		memset(j, 0, sizeof(*j));
		j->from_capture = true;
		j->pid = j->nspid = (int)json_integer_value(json_object_get(doc, "pid"));
		json_t *age = json_object_get(doc, "age_s");
		j->age_s = json_is_number(age) ? json_number_value(age) : -1;
		const char *s;
		if ((s = json_string_value(json_object_get(doc, "comm"))))
			fab_strlcpy(j->comm, s, sizeof(j->comm));
		if ((s = json_string_value(json_object_get(doc, "netns"))))
			fab_strlcpy(j->netns, s, sizeof(j->netns));
		if ((s = json_string_value(json_object_get(doc, "nccl_lib"))))
			fab_strlcpy(j->nccl_lib, s, sizeof(j->nccl_lib));
		/* "nccl_var": it set an NCCL_ variable the capture did not keep. */
		bool own_nccl = json_is_true(json_object_get(doc, "nccl_var"));
		const char *key;
		json_t *v;
		json_object_foreach(env, key, v) {
			const char *val = json_string_value(v);
			if (!val)
				continue;
			if (procfs_nccl_var(key))
				own_nccl = true;
			if (strcmp(key, "HOSTNAME") == 0)
				fab_strlcpy(j->host, val, sizeof(j->host));
			add_var(j, key, val, "environment");
		}
		json_decref(doc);
		/* Older captures kept NCCL_VERSION-only processes: the same rule
		 * as live drops them here. */
		if (!own_nccl && !j->nccl_lib[0])
			continue;
		if (!j->host[0])       /* the captured node's name, as NCCL's %h sees it */
			root_read_line(r, "/proc/sys/kernel/hostname", j->host, sizeof(j->host));
		j->host[strcspn(j->host, ".")] = '\0';
		sort_vars(j);
		j->net.how = JOB_NET_MODEL;
		fab_strlcpy(j->net.default_if, def, sizeof(j->net.default_if));
		locate_debug_file(j);
		push(l, j);
	}
	free(j);
	root_free_list(names, n);
	if (l->njobs > 1)
		qsort(l->jobs, (size_t)l->njobs, sizeof(l->jobs[0]), pid_cmp);
	capture_unreadable(r, l, bad_files);
	(void)err;
	(void)len;
	return 0;
}

int job_scan(const struct fab_root *r, struct fab_job_list *out, char *err, size_t len)
{
	memset(out, 0, sizeof(*out));
	if (!r || r->live)
		return scan_live(out, err, len);
	if (r->is_capture)
		return scan_capture(r, out, err, len);
	/* A fixture directory: this machine's processes would be checked
	 * against another node's HCAs, so none are taken. */
	fab_strlcpy(out->source, "none", sizeof(out->source));
	snprintf(out->note, sizeof(out->note), "%s is not a capture and records no processes", r->name);
	return 0;
}

void job_list_free(struct fab_job_list *l)
{
	for (int i = 0; i < l->njobs; i++)
		job_net_free(&l->jobs[i].net);
	free(l->jobs);
	l->jobs = NULL;
	l->njobs = 0;
}
