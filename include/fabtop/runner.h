/*
 * runner.h - the one way fabtop runs another program (the wizard's probes).
 *
 * Contract:
 *   - argv arrays only, never a shell string; argv[0] is searched on PATH
 *     (the child's PATH: env_add may set one) before anything is forked.
 *   - The child gets its own process group (setpgid(0, 0)), stdin from
 *     /dev/null, stdout and stderr into one pipe, and no other descriptor of
 *     fabtop's (everything else is closed before exec).
 *   - On timeout, hang (no output for idle_timeout_s) or cancel the whole
 *     group gets SIGTERM, then SIGKILL one second later.
 *   - When the child exits, whatever it left running in its group
 *     (grandchildren, daemons it started) gets the same SIGTERM then
 *     SIGKILL: a finished job leaves nothing behind.
 *   - fabtop makes itself a child subreaper (PR_SET_CHILD_SUBREAPER) on the
 *     first run_start(), so a descendant that left the group (setsid,
 *     double fork) comes back to fabtop as its child once its parent
 *     dies. When a job ends and no other job is running, every such
 *     orphan is killed too (SIGTERM, SIGKILL), over and over until none
 *     is left, and reaped; it counts in leftovers_killed. What stays out
 *     of reach: an escapee whose parent is still alive outside the group,
 *     and anything below another subreaper (a container's init).
 *   - The child gets PR_SET_PDEATHSIG(SIGKILL): when fabtop dies, even by
 *     SIGKILL, the kernel kills the child. Only the child: its own
 *     children (in its group or not) are then orphaned to init, beyond
 *     fabtop's reach. PDEATHSIG follows the thread that forked, so call
 *     run_start() from the main thread; the kernel drops it on exec of a
 *     set-user-ID or file-capability program.
 *   - Every started child is waited for: no zombies from fabtop. fabtop
 *     forks nothing else that outlives the call that forked it, so any
 *     other child of fabtop is an orphan from a job.
 *   - An exec failure comes back through a close-on-exec pipe with its
 *     errno, so the message is precise ("cannot run ping: No such file or
 *     directory") and nothing is left half-started.
 *
 * Sequence: run_start() -> run_poll()... [run_cancel()] -> run_finish(),
 * or run_argv() for all of it at once. run_result_free() afterwards.
 * A run_job is used from one thread.
 */
#ifndef FABTOP_RUNNER_H
#define FABTOP_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define RUN_OUT_CAP_DEFAULT (256u * 1024u)

struct run_opts {
	double timeout_s;            /* whole run; 0: none */
	double idle_timeout_s;       /* no new output for this long = hung; 0: none */
	size_t out_cap;              /* bytes kept; 0: RUN_OUT_CAP_DEFAULT; the rest counted, dropped */
	bool keep_tail;              /* keep the last out_cap bytes instead of the first */
	const char *const *env_add;  /* "K=V" added to (or replacing in) the inherited
	                                environment, "K" alone removes K; NULL-terminated,
	                                or NULL. An empty entry or one starting with '='
	                                is refused. The child always runs with LC_ALL=C
	                                and without LANGUAGE (its output is parsed)
	                                unless env_add sets LC_ALL itself. */
	const char *cwd;             /* NULL: fabtop's own */
	/* Called with every chunk of output as it is read, the dropped bytes
	 * included (a streaming log parser sees all of it); may be NULL. */
	void (*on_output)(void *ctx, const char *buf, size_t len);
	void *ctx;
};

struct run_result {
	int exit_code;               /* -1 when killed by a signal or never started */
	int term_signal;             /* the signal that ended it, 0 if none */
	bool timed_out, hung, cancelled, truncated;
	char *out;                   /* NUL-terminated, malloc'd; may hold NUL bytes of the child's */
	size_t out_len;              /* bytes in out */
	size_t out_total;            /* bytes the child wrote */
	double elapsed_s;
	/* "" for a normal exit (any code); else one line: "cannot run ping: No
	 * such file or directory", "timed out after 5 s (killed)", "no output
	 * for 3 s: hung (killed)", "cancelled (killed)", "killed by SIGSEGV". */
	char err[256];
	/* Processes still in the group after the child exited, or escaped
	 * from it and orphaned to fabtop, that had to be killed; 0 normally. */
	int leftovers_killed;
};

struct run_job;  /* a running child */

/* Forks and execs argv. 0 and *job on success; -1 with err filled
 * ("cannot run X: ...") when it could not start; no child is left then. */
int run_start(const char *const argv[], const struct run_opts *o,
	      struct run_job **job, char *err, size_t errlen);

/* Reads the output there is (never blocking on the pipe, at most 1 MiB a
 * round), then advances the timeout/kill state machine. Waits at most
 * timeout_ms (0: read what is there and look, then return; negative: until
 * finished), returning early when output arrived or the state changed.
 * Output is read before the clocks are looked at, so the hang timeout
 * measures the child's silence whatever the caller's cadence: polled only
 * with 0, a child that keeps printing is never hung and a silent one is
 * hung after idle_timeout_s (as soon as the caller looks). 1 when finished
 * (child and group gone, child reaped), 0 still running, -1 on an
 * internal error (the job is then killed; run_finish still reports it). */
int run_poll(struct run_job *j, int timeout_ms);

/* Starts killing the whole group now (SIGTERM, SIGKILL after 1 s); does
 * not block. run_poll()/run_finish() complete it. */
void run_cancel(struct run_job *j);

/* Waits until finished (timeouts still apply), fills r, frees j. 0, or -1
 * when r describes an internal error. */
int run_finish(struct run_job *j, struct run_result *r);

/* run_start + run_poll + run_finish. 0 when the program ran (whatever its
 * exit code), -1 when it could not start (r->err says why, exit_code -1). */
int run_argv(const char *const argv[], const struct run_opts *o, struct run_result *r);

void run_result_free(struct run_result *r);

/* While running: the child's pid (also its process group id), the output
 * kept so far (not NUL-terminated; valid until the next run_poll), the
 * seconds since start, and the pipe's descriptor for an outer poll()
 * (readable: call run_poll(j, 0); -1 once the pipe is at its end, since a
 * poll() on it would then return at once forever). */
pid_t run_pid(const struct run_job *j);
const char *run_output(const struct run_job *j, size_t *len);
double run_elapsed(const struct run_job *j);
int run_fd(const struct run_job *j);

/* Formats argv for display, each word shell-quoted when needed (never
 * executed): ping -M do -s 8972 'a b' 'it'\''s'. Truncated with "..." to fit. */
void run_format_argv(const char *const argv[], char *buf, size_t len);

/* Input checks for what the user types into the wizard, before any of it
 * reaches an argv. False with a one-line reason in why. */
/* Host name, IPv4 or IPv6 literal: letters, digits, '.', '-' and ':' only,
 * 1..253 characters, no leading '-'; a dotted quad or anything with ':'
 * must parse as an address. */
bool run_valid_host(const char *s, char *why, size_t len);
/* One interface name as the kernel takes it (1..15 characters, not "." or
 * "..", no '/', ':' or whitespace), also refusing shell metacharacters and
 * a leading '-'. */
bool run_valid_ifname(const char *s, char *why, size_t len);
/* NCCL_IB_HCA syntax: optional '^' then optional '=', then a comma list of
 * name[:port]. */
bool run_valid_hca_list(const char *s, char *why, size_t len);

#endif
