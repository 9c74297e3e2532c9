/* runner.c - runs one program for the wizard (contract in runner.h).
 *
 * The child is forked and exec'd with a prepared argv/envp, so nothing
 * between fork and exec allocates. The parent watches three things: the
 * output pipe, the child's exit (a pidfd where the kernel has one, else a
 * short poll interval), and the clock. The child's exit is observed with
 * waitid(WNOWAIT): the zombie keeps its pid, and so its process group id,
 * from being reused while fabtop kills what the child left in its group;
 * only then is it reaped.
 *
 * Nothing the runner started outlives fabtop where the kernel lets it see
 * to that: each child gets PR_SET_PDEATHSIG(SIGKILL) (dies with fabtop,
 * even a SIGKILLed one), and fabtop is a child subreaper while it runs
 * children, so what leaves the group (setsid) and is orphaned comes back
 * to fabtop as its child, where the sweep below finds and kills it. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fabtop/runner.h"
#include "fabtop/sanitize.h"

extern char **environ;

/* SIGTERM first, then SIGKILL after this long: time to flush a log. */
#define GRACE_S 1.0
/* How often the group is looked at while something in it ignores SIGTERM,
 * and the wait between exit checks without a pidfd. */
#define TICK_MS 20
/* After SIGKILL, how long a group member may take to go. */
#define STUCK_S 5.0
/* Bytes read per drain() at most: a child that writes faster than fabtop
 * reads must not keep one poll from returning (the console's keys, the
 * timeouts). The next poll reads on. */
#define DRAIN_MAX (1u << 20)
/* The pipe's size asked for: at 1 MB/s a reader that looks every 100 ms
 * (the console) never lets it fill, so the child never waits on fabtop.
 * Best effort: the kernel's default of 64 KiB is kept when refused
 * (/proc/sys/fs/pipe-max-size, the user's pipe quota). */
#define PIPE_SIZE (1 << 20)

/* Jobs started and not yet finished (done): orphans are swept only when
 * the last one ends, so a job still running keeps what it started. */
static int live_jobs;

struct run_job {
	pid_t pid;
	int outfd, pidfd;
	struct run_opts o;
	char *buf;
	size_t cap, len, total;
	double t0, last_out, t_done;
	double term_at;             /* SIGTERM sent to the group; 0: not yet */
	bool kill_sent, exited, done, eof;
	bool timed_out, hung, cancelled;
	int status, leftovers;
	char argv0[128];
	char err[256];
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double fmin_d(double a, double b) { return a < b ? a : b; }

/* ---- starting ---- */

/* argv[0] resolved on PATH the way execvp would, done before fork so the
 * child only calls execve. Returns 0 or an errno. */
static int find_program(const char *prog, const char *path, char *out, size_t len)
{
	if (strchr(prog, '/')) {
		snprintf(out, len, "%s", prog);
		return 0;
	}
	int err = ENOENT;
	const char *p = path;
	while (p) {
		const char *colon = strchr(p, ':');
		size_t dl = colon ? (size_t)(colon - p) : strlen(p);
		/* An empty PATH entry means the current directory. */
		int n = snprintf(out, len, "%.*s%s%s", (int)dl, p, dl ? "/" : "", prog);
		struct stat st;
		if (n > 0 && (size_t)n < len && stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(out, X_OK) == 0)
				return 0;
			err = EACCES;
		}
		p = colon ? colon + 1 : NULL;
	}
	return err;
}

static bool env_key_eq(const char *a, const char *b)
{
	size_t la = strcspn(a, "="), lb = strcspn(b, "=");
	return la == lb && strncmp(a, b, la) == 0;
}

/* The inherited environment with env_add applied; the strings are borrowed.
 * A child's output is parsed (ping, tracepath, ib_write_bw, NCCL tests), so
 * it speaks English: LC_ALL=C and no LANGUAGE (which fabtop itself may have
 * set to show its own interface in another language, i18n.h), unless
 * env_add says otherwise. */
static char **build_env(const char *const *add)
{
	static char c_locale[] = "LC_ALL=C";
	size_t n = 0, na = 0;
	while (environ && environ[n])
		n++;
	while (add && add[na])
		na++;
	char **e = calloc(n + na + 2, sizeof(*e));
	if (!e)
		return NULL;
	size_t k = 0;
	bool add_lc = true;
	for (size_t a = 0; a < na; a++)
		if (env_key_eq(add[a], c_locale))
			add_lc = false;
	for (size_t i = 0; i < n; i++) {
		bool replaced = env_key_eq(environ[i], "LANGUAGE=") || env_key_eq(environ[i], c_locale);
		for (size_t a = 0; a < na && !replaced; a++)
			replaced = env_key_eq(environ[i], add[a]);
		if (!replaced)
			e[k++] = environ[i];
	}
	if (add_lc)
		e[k++] = c_locale;
	for (size_t a = 0; a < na; a++) {
		bool dup = false;   /* the last of repeated keys wins */
		for (size_t b = a + 1; b < na && !dup; b++)
			dup = env_key_eq(add[a], add[b]);
		if (!dup && strchr(add[a], '='))   /* "K" alone only removed K */
			e[k++] = (char *)add[a];
	}
	return e;
}

static const char *env_get(char **env, const char *key)
{
	size_t kl = strlen(key);
	for (char **p = env; *p; p++)
		if (strncmp(*p, key, kl) == 0 && (*p)[kl] == '=')
			return *p + kl + 1;
	return NULL;
}

/* Moves fd to 3 or above (close-on-exec), so that dup2 onto 0..2 in the
 * child never meets itself and silently keeps FD_CLOEXEC. */
static int fd_above_stdio(int fd)
{
	if (fd < 0 || fd > 2)
		return fd;
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return nfd;
}

struct exec_fail { int stage; int err; };
enum { STAGE_EXEC = 0, STAGE_CHDIR, STAGE_SETUP };

/* Only async-signal-safe calls from here to execve. */
static void child(const char *path, char *const argv[], char *const envp[], const char *cwd,
		  int devnull, int outw, int errw, int maxfd, pid_t parent)
{
	struct exec_fail f = { STAGE_SETUP, 0 };
	sigset_t none;
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	/* Dies with fabtop. A fabtop gone before this line would never send
	 * it: the parent is then another process, and the child must not run. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	setpgid(0, 0);
	/* Ignored signals and the mask survive exec: give the child defaults. */
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(devnull, 0) < 0 || dup2(outw, 1) < 0 || dup2(outw, 2) < 0) {
		f.err = errno;
		goto fail;
	}
	/* Nothing of fabtop's but the error pipe (close-on-exec) stays open. */
	if (syscall(SYS_close_range, 3, (unsigned)errw - 1, 0) != 0 ||
	    syscall(SYS_close_range, (unsigned)errw + 1, ~0U, 0) != 0)
		for (int fd = 3; fd <= maxfd; fd++)
			if (fd != errw)
				close(fd);
	if (cwd && chdir(cwd) != 0) {
		f.stage = STAGE_CHDIR;
		f.err = errno;
		goto fail;
	}
	execve(path, argv, envp);
	f.stage = STAGE_EXEC;
	f.err = errno;
fail:
	while (write(errw, &f, sizeof(f)) < 0 && errno == EINTR)
		;
	_exit(127);
}

static void short_name(const char *prog, char *out, size_t len)
{
	snprintf(out, len, "%s", prog ? prog : "(null)");
}

int run_start(const char *const argv[], const struct run_opts *o,
	      struct run_job **job, char *err, size_t errlen)
{
	static const struct run_opts none = { 0 };
	char prog[128], path[4096];
	*job = NULL;
	if (!o)
		o = &none;
	if (!argv || !argv[0] || !argv[0][0]) {
		snprintf(err, errlen, "cannot run: empty command");
		return -1;
	}
	short_name(argv[0], prog, sizeof(prog));
	for (const char *const *a = o->env_add; a && *a; a++)
		if (**a == '=' || !**a) {
			snprintf(err, errlen, "cannot run %s: environment entry '%s' is not K=V or K", prog, *a);
			return -1;
		}
	char **envp = build_env(o->env_add);
	struct run_job *j = calloc(1, sizeof(*j));
	size_t cap = o->out_cap ? o->out_cap : RUN_OUT_CAP_DEFAULT;
	char *buf = malloc(cap + 1);
	if (!envp || !j || !buf) {
		snprintf(err, errlen, "cannot run %s: out of memory", prog);
		goto fail_mem;
	}
	const char *pathvar = env_get(envp, "PATH");
	int e = find_program(argv[0], pathvar ? pathvar : "/usr/local/bin:/usr/bin:/bin",
			     path, sizeof(path));
	if (e) {
		snprintf(err, errlen, "cannot run %s: %s%s", prog, strerror(e),
			 strchr(argv[0], '/') ? "" : " (searched PATH)");
		goto fail_mem;
	}

	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "cannot run %s: %s (opening pipes)", prog, strerror(errno));
		goto fail_fds;
	}
	devnull = fd_above_stdio(devnull);
	outp[1] = fd_above_stdio(outp[1]);
	errp[1] = fd_above_stdio(errp[1]);
	if (devnull < 0 || outp[1] < 0 || errp[1] < 0) {
		snprintf(err, errlen, "cannot run %s: %s (moving descriptors)", prog, strerror(errno));
		goto fail_fds;
	}
	struct rlimit rl;
	int maxfd = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
	/* Orphans of what it starts (setsid escapees) come back to fabtop,
	 * not to init: the sweep can then find and kill them. Set each time
	 * (a forked copy of fabtop is no subreaper); it stays set, and fabtop
	 * forks nothing it does not wait for. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot run %s: fork: %s", prog, strerror(errno));
		goto fail_fds;
	}
	if (pid == 0)
		child(path, (char *const *)argv, envp, o->cwd, devnull, outp[1], errp[1], maxfd, parent);
	/* Also from this side, so a kill of the group cannot precede it. */
	setpgid(pid, pid);
	close(outp[1]);
	close(errp[1]);
	close(devnull);
	outp[1] = errp[1] = devnull = -1;

	struct exec_fail f;
	ssize_t n;
	do
		n = read(errp[0], &f, sizeof(f));
	while (n < 0 && errno == EINTR);
	close(errp[0]);
	if (n == (ssize_t)sizeof(f)) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(outp[0]);
		if (f.stage == STAGE_CHDIR)
			snprintf(err, errlen, "cannot run %s: cannot enter directory %s: %s",
				 prog, o->cwd, strerror(f.err));
		else
			snprintf(err, errlen, "cannot run %s: %s%s", prog, strerror(f.err),
				 f.stage == STAGE_SETUP ? " (setting up its output)" : "");
		free(envp);
		free(j);
		free(buf);
		return -1;
	}
	free(envp);
	/* The read side never blocks: run_poll(j, 0) must return at once. */
	fcntl(outp[0], F_SETFL, O_NONBLOCK);
	fcntl(outp[0], F_SETPIPE_SZ, PIPE_SIZE);
	j->pid = pid;
	j->outfd = outp[0];
#ifdef SYS_pidfd_open
	j->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
	j->pidfd = -1;
#endif
	j->o = *o;
	j->o.env_add = NULL;    /* borrowed only while starting */
	j->o.cwd = NULL;
	j->buf = buf;
	j->cap = cap;
	j->t0 = j->last_out = now_s();
	snprintf(j->argv0, sizeof(j->argv0), "%s", prog);
	live_jobs++;
	*job = j;
	return 0;

fail_fds:
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (devnull >= 0)
		close(devnull);
fail_mem:
	free(envp);
	free(j);
	free(buf);
	return -1;
}

/* ---- watching ---- */

/* What is left of a job once its child exited: the members of its process
 * group still running (the leader, a zombie kept by WNOWAIT, excluded),
 * and, when sweep, fabtop's own children that it did not start: orphans
 * reparented to it as a subreaper, i.e. descendants that left the group
 * (setsid) and whose parent died. Those get sig (0: none); the ones
 * already dead are reaped here. Returns how many are still running, -1
 * when /proc cannot be read. */
static int strays(pid_t pgid, bool sweep, int sig)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -1;
	int n = 0;
	pid_t self = getpid();
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		long pid = strtol(de->d_name, NULL, 10);
		if (pid == pgid)
			continue;
		char p[64], st[512];
		snprintf(p, sizeof(p), "/proc/%ld/stat", pid);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t l = read(fd, st, sizeof(st) - 1);
		close(fd);
		if (l <= 0)
			continue;
		st[l] = '\0';
		/* After "(comm)", which may hold spaces and parentheses. */
		char *s = strrchr(st, ')'), state = 0;
		int ppid, pgrp;
		if (!s || sscanf(s + 1, " %c %d %d", &state, &ppid, &pgrp) != 3)
			continue;
		bool dead = state == 'Z' || state == 'X';
		if (pgrp == pgid) {
			n += !dead;
		} else if (sweep && ppid == self) {
			/* Fabtop's child, so its pid cannot be reused before
			 * fabtop reaps it: the kill reaches this process. */
			if (dead)
				waitpid((pid_t)pid, NULL, WNOHANG);
			else if (++n && sig)
				kill((pid_t)pid, sig);
		}
	}
	closedir(d);
	return n;
}

/* Orphans are fabtop's to sweep only when no other job runs: one that
 * still runs may own them. */
static bool may_sweep(const struct run_job *j)
{
	return live_jobs == 1 && j->exited;
}

static void signal_group(struct run_job *j, int sig)
{
	kill(-j->pid, sig);
	if (may_sweep(j))
		strays(j->pid, true, sig);
}

/* Starts the kill sequence (SIGTERM now, SIGKILL after GRACE_S). */
static void terminate(struct run_job *j, double now)
{
	if (j->term_at > 0)
		return;
	signal_group(j, SIGTERM);
	j->term_at = now;
}

static void keep(struct run_job *j, const char *b, size_t n)
{
	j->total += n;
	if (j->o.on_output)
		j->o.on_output(j->o.ctx, b, n);
	if (!j->o.keep_tail) {
		size_t room = j->cap - j->len, k = n < room ? n : room;
		memcpy(j->buf + j->len, b, k);
		j->len += k;
		return;
	}
	if (n >= j->cap) {
		memcpy(j->buf, b + n - j->cap, j->cap);
		j->len = j->cap;
		return;
	}
	if (j->len + n > j->cap) {
		size_t drop = j->len + n - j->cap;
		memmove(j->buf, j->buf + drop, j->len - drop);
		j->len -= drop;
	}
	memcpy(j->buf + j->len, b, n);
	j->len += n;
}

/* Reads what the pipe holds now, up to DRAIN_MAX bytes, without
 * blocking; true when something came. Output read now was written by the
 * child at the latest now, so it restarts the hang clock: a reader that
 * looks late never makes a talking child look silent. */
static bool drain(struct run_job *j)
{
	char b[65536];
	size_t got = 0;
	while (!j->eof && got < DRAIN_MAX) {
		ssize_t n = read(j->outfd, b, sizeof(b));
		if (n > 0) {
			keep(j, b, (size_t)n);
			got += (size_t)n;
		} else if (n == 0) {
			j->eof = true;
		} else if (errno != EINTR) {
			break;      /* EAGAIN: nothing more for now */
		}
	}
	if (got)
		j->last_out = now_s();
	return got > 0;
}

/* Reaps the child, and any zombie of its group that became fabtop's
 * child (when fabtop is a subreaper, orphans are reparented to it). */
static void reap(struct run_job *j)
{
	bool leader = false;
	for (;;) {
		int st;
		pid_t r = waitpid(-j->pid, &st, WNOHANG);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (r == j->pid) {
			j->status = st;
			leader = true;
		}
	}
	while (!leader && waitpid(j->pid, &j->status, 0) < 0 && errno == EINTR)
		;
}

/* One step of the state machine; returns true when something changed. */
static bool step(struct run_job *j, double now)
{
	bool changed = false;
	if (!j->exited) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)j->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == j->pid) {
			j->exited = true;
			changed = true;
		} else if (j->term_at == 0) {
			if (j->o.timeout_s > 0 && now - j->t0 >= j->o.timeout_s) {
				j->timed_out = true;
				terminate(j, now);
				changed = true;
			} else if (j->o.idle_timeout_s > 0 && now - j->last_out >= j->o.idle_timeout_s) {
				j->hung = true;
				terminate(j, now);
				changed = true;
			}
		}
	}
	if (j->term_at > 0 && !j->kill_sent && now - j->term_at >= GRACE_S) {
		signal_group(j, SIGKILL);
		j->kill_sent = true;
		changed = true;
	}
	if (j->exited && !j->done) {
		/* Once SIGKILL went out, whatever shows up later (an orphan of
		 * a process just killed) gets it at once. */
		int left = strays(j->pid, may_sweep(j), j->kill_sent ? SIGKILL : 0);
		if (left < 0 && !j->kill_sent) {
			/* No /proc to look in: make sure, the hard way. */
			signal_group(j, SIGKILL);
			j->kill_sent = true;
			left = 0;
		}
		if (left > 0 && j->term_at == 0) {
			j->leftovers = left;
			terminate(j, now);
			changed = true;
		} else if (left > 0 && j->kill_sent && now - j->term_at > GRACE_S + STUCK_S) {
			/* Uninterruptible sleep, or not ours to kill: say so, stop waiting. */
			snprintf(j->err, sizeof(j->err), "%d process(es) it left (in its group, or "
				 "escaped from it) survived SIGKILL for %g s (stuck in the kernel, or "
				 "not fabtop's to kill)",
				 left, STUCK_S);
			left = 0;
		}
		if (left <= 0) {
			reap(j);
			j->done = true;
			live_jobs--;
			j->t_done = now;
			/* Every writer is gone: read to the end (or to EAGAIN,
			 * when one escaped the group and keeps it open). */
			while (drain(j))
				;
			changed = true;
		}
	}
	return changed;
}

/* Milliseconds until the next thing the state machine must do. */
static int next_wait_ms(const struct run_job *j, double now)
{
	double t = 3600;
	if (j->exited || j->pidfd < 0)
		t = TICK_MS / 1000.0;
	if (!j->exited && j->term_at == 0) {
		if (j->o.timeout_s > 0)
			t = fmin_d(t, j->t0 + j->o.timeout_s - now);
		if (j->o.idle_timeout_s > 0)
			t = fmin_d(t, j->last_out + j->o.idle_timeout_s - now);
	}
	if (j->term_at > 0 && !j->kill_sent)
		t = fmin_d(t, j->term_at + GRACE_S - now);
	if (t < 0)
		t = 0;
	return (int)(t * 1000.0) + 1;
}

/* Each round reads the pipe before it looks at the clocks, so whatever
 * the caller's cadence (0 from the console between keys, -1 in batch)
 * the output is read, the child never waits on a full pipe for long, and
 * the hang clock measures the child's silence, not the caller's. */
int run_poll(struct run_job *j, int timeout_ms)
{
	double start = now_s();
	for (;;) {
		bool got = drain(j);
		double now = now_s();
		bool changed = step(j, now) || got;
		if (j->done)
			return 1;
		if (changed && timeout_ms >= 0)
			return 0;
		int wait = next_wait_ms(j, now);
		if (timeout_ms >= 0) {
			int left = timeout_ms - (int)((now - start) * 1000.0);
			if (left <= 0)
				return 0;
			if (wait > left)
				wait = left;
		}
		struct pollfd pf[2];
		int npf = 0;
		if (!j->eof)
			pf[npf++] = (struct pollfd){ .fd = j->outfd, .events = POLLIN };
		if (j->pidfd >= 0 && !j->exited)
			pf[npf++] = (struct pollfd){ .fd = j->pidfd, .events = POLLIN };
		if (poll(pf, (nfds_t)npf, wait) < 0 && errno != EINTR) {
			snprintf(j->err, sizeof(j->err), "poll: %s", strerror(errno));
			terminate(j, now_s());
			return -1;
		}
	}
}

void run_cancel(struct run_job *j)
{
	if (!j || j->done || j->term_at > 0)
		return;
	j->cancelled = true;
	terminate(j, now_s());
}

pid_t run_pid(const struct run_job *j) { return j->pid; }
int run_fd(const struct run_job *j) { return j && !j->eof ? j->outfd : -1; }
double run_elapsed(const struct run_job *j)
{
	return (j->done ? j->t_done : now_s()) - j->t0;
}

const char *run_output(const struct run_job *j, size_t *len)
{
	*len = j->len;
	return j->buf;
}

static void describe(const struct run_job *j, const struct run_result *r, char *err, size_t len)
{
	char sig[48] = "";
	if (r->term_signal) {
		const char *abbr = sigabbrev_np(r->term_signal);
		snprintf(sig, sizeof(sig), " (SIG%s)", abbr ? abbr : "?");
	}
	if (j->err[0])
		snprintf(err, len, "%s", j->err);
	else if (j->timed_out)
		snprintf(err, len, "timed out after %g s (process group killed)", j->o.timeout_s);
	else if (j->hung)
		snprintf(err, len, "no output for %g s: hung (process group killed)", j->o.idle_timeout_s);
	else if (j->cancelled)
		snprintf(err, len, "cancelled (process group killed)");
	else if (r->term_signal)
		snprintf(err, len, "killed by signal %d%s", r->term_signal, sig);
	else
		err[0] = '\0';
}

int run_finish(struct run_job *j, struct run_result *r)
{
	memset(r, 0, sizeof(*r));
	int rc = 0;
	while (!j->done)
		if (run_poll(j, -1) < 0)
			rc = -1;
	r->exit_code = WIFEXITED(j->status) ? WEXITSTATUS(j->status) : -1;
	r->term_signal = WIFSIGNALED(j->status) ? WTERMSIG(j->status) : 0;
	r->timed_out = j->timed_out;
	r->hung = j->hung;
	r->cancelled = j->cancelled;
	r->out = j->buf;
	r->out[j->len] = '\0';
	r->out_len = j->len;
	r->out_total = j->total;
	r->truncated = j->total > j->len;
	r->elapsed_s = j->t_done - j->t0;
	r->leftovers_killed = j->leftovers;
	describe(j, r, r->err, sizeof(r->err));
	close(j->outfd);
	if (j->pidfd >= 0)
		close(j->pidfd);
	free(j);
	return rc;
}

int run_argv(const char *const argv[], const struct run_opts *o, struct run_result *r)
{
	struct run_job *j;
	char err[256];
	if (run_start(argv, o, &j, err, sizeof(err)) != 0) {
		memset(r, 0, sizeof(*r));
		r->exit_code = -1;
		r->out = calloc(1, 1);
		snprintf(r->err, sizeof(r->err), "%s", err);
		return -1;
	}
	return run_finish(j, r);
}

void run_result_free(struct run_result *r)
{
	if (!r)
		return;
	free(r->out);
	r->out = NULL;
	r->out_len = r->out_total = 0;
}

/* ---- display ---- */

void run_format_argv(const char *const argv[], char *buf, size_t len)
{
	if (!len)
		return;
	size_t o = 0;
	bool full = false;
	buf[0] = '\0';
	for (int i = 0; argv && argv[i] && !full; i++) {
		char w[1024];
		size_t k = strlen(fab_shq(argv[i], w, sizeof(w)));
		size_t need = (i ? 1 : 0) + k;
		if (o + need + 1 > len) {
			full = true;
			break;
		}
		if (i)
			buf[o++] = ' ';
		memcpy(buf + o, w, k);
		o += k;
		buf[o] = '\0';
	}
	if (full) {
		size_t at = len > 4 ? len - 4 : 0;
		if (o > at)
			o = at;
		snprintf(buf + o, len - o, "...");
	}
}

/* ---- input checks ---- */

static bool refuse(char *why, size_t len, const char *fmt, const char *what, const char *s, char c)
{
	char shown[48];
	snprintf(shown, sizeof(shown), "%s", s);
	if (strlen(s) >= sizeof(shown))
		memcpy(shown + sizeof(shown) - 4, "...", 4);
	if (c && isprint((unsigned char)c))
		snprintf(why, len, "%s '%s': '%c' %s", what, shown, c, fmt);
	else if (c)
		snprintf(why, len, "%s '%s': byte 0x%02x %s", what, shown, (unsigned char)c, fmt);
	else
		snprintf(why, len, "%s '%s': %s", what, shown, fmt);
	return false;
}

/* Characters a shell gives a meaning to, named in the refusal. */
static bool shell_meta(char c)
{
	return c && strchr(";&|$`()<>\\'\"*?[]{}!~#", c);
}

bool run_valid_host(const char *s, char *why, size_t len)
{
	if (!s || !*s)
		return refuse(why, len, "empty", "peer", "", 0);
	size_t n = strlen(s);
	if (n > 253)
		return refuse(why, len, "longer than 253 characters", "peer", s, 0);
	if (s[0] == '-')
		return refuse(why, len, "a peer cannot start with '-' (it would read as an option)",
			      "peer", s, 0);
	bool colon = false, alpha = false;
	for (const char *p = s; *p; p++) {
		char c = *p;
		if (isalnum((unsigned char)c) || c == '.' || c == '-' || c == ':') {
			colon |= c == ':';
			alpha |= isalpha((unsigned char)c) != 0;
			continue;
		}
		if (shell_meta(c))
			return refuse(why, len, "is a shell metacharacter; a peer is a host name or "
				      "an IP address (letters, digits, '.', '-', ':')", "peer", s, c);
		return refuse(why, len, "is not allowed; a peer is a host name or an IP address "
			      "(letters, digits, '.', '-', ':')", "peer", s, c);
	}
	unsigned char a[16];
	if (colon) {
		if (inet_pton(AF_INET6, s, a) != 1)
			return refuse(why, len, "not a valid IPv6 address", "peer", s, 0);
		return true;
	}
	if (!alpha && inet_pton(AF_INET, s, a) != 1)
		return refuse(why, len, "not a valid IPv4 address", "peer", s, 0);
	/* Host names: labels of 1..63 characters, none starting or ending in '-'. */
	for (const char *p = s; *p;) {
		size_t l = strcspn(p, ".");
		if (l == 0 || l > 63 || p[0] == '-' || p[l - 1] == '-')
			return refuse(why, len, "not a valid host name (each dot-separated label "
				      "1..63 characters, not starting or ending in '-')", "peer", s, 0);
		p += l;
		if (*p == '.')
			p++;
	}
	return true;
}

bool run_valid_ifname(const char *s, char *why, size_t len)
{
	if (!s || !*s)
		return refuse(why, len, "empty", "interface", "", 0);
	if (strlen(s) > 15)
		return refuse(why, len, "longer than 15 characters (IFNAMSIZ)", "interface", s, 0);
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return refuse(why, len, "not an interface name", "interface", s, 0);
	if (s[0] == '-')
		return refuse(why, len, "cannot start with '-' (it would read as an option)",
			      "interface", s, 0);
	for (const char *p = s; *p; p++) {
		char c = *p;
		if (isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-' || c == '@' || c == '+')
			continue;
		if (c == '/' || c == ':' || isspace((unsigned char)c))
			return refuse(why, len, "is not allowed in an interface name by the kernel",
				      "interface", s, c);
		if (shell_meta(c))
			return refuse(why, len, "is a shell metacharacter, not part of an interface name",
				      "interface", s, c);
		return refuse(why, len, "is not allowed (letters, digits, '.', '_', '-', '@', '+')",
			      "interface", s, c);
	}
	return true;
}

bool run_valid_hca_list(const char *s, char *why, size_t len)
{
	if (!s || !*s)
		return refuse(why, len, "empty", "HCA list", "", 0);
	if (strlen(s) > 1024)
		return refuse(why, len, "longer than 1024 characters", "HCA list", s, 0);
	const char *p = s;
	if (*p == '^')
		p++;
	if (*p == '=')
		p++;
	if (!*p)
		return refuse(why, len, "names no HCA (expected [^][=]name[:port],...)", "HCA list", s, 0);
	while (*p) {
		size_t nl = 0;
		while (isalnum((unsigned char)p[nl]) || p[nl] == '_' || p[nl] == '-' || p[nl] == '.')
			nl++;
		if (nl == 0) {
			if (*p == ',')
				return refuse(why, len, "has an empty entry (expected [^][=]name[:port],...)",
					      "HCA list", s, 0);
			return refuse(why, len, shell_meta(*p) ? "is a shell metacharacter, not part of "
				      "an HCA name" : "is not allowed in an HCA name "
				      "(expected [^][=]name[:port],...)", "HCA list", s, *p);
		}
		if (nl > 63)
			return refuse(why, len, "has a name longer than 63 characters", "HCA list", s, 0);
		p += nl;
		if (*p == ':') {
			size_t dl = strspn(p + 1, "0123456789");
			if (dl == 0 || dl > 3)
				return refuse(why, len, "has a port that is not a number (name:port)",
					      "HCA list", s, 0);
			p += 1 + dl;
		}
		if (*p == ',') {
			p++;
			if (!*p)
				return refuse(why, len, "ends with ','", "HCA list", s, 0);
		} else if (*p) {
			return refuse(why, len, shell_meta(*p) ? "is a shell metacharacter, not part of "
				      "an HCA name" : "is not allowed (expected [^][=]name[:port],...)",
				      "HCA list", s, *p);
		}
	}
	return true;
}
