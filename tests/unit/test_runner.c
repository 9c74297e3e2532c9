/* The runner against real processes: output, exit codes, exec failures,
 * caps, timeouts that must kill a SIGTERM-ignoring grandchild, hangs,
 * cancel, no zombies; the argv formatter and the input validators.
 *
 * The test process is a child subreaper (as the wizard may be), so a
 * grandchild orphaned by its parent's death becomes ours: "nothing left"
 * is then checked strictly (kill(pid, 0) fails with ESRCH, nothing to
 * wait for), not left to whatever reaps orphans on this machine. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fabtop/runner.h"

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

static bool gone(pid_t pid)
{
	return kill(pid, 0) == -1 && errno == ESRCH;
}

static bool nothing_to_wait_for(void)
{
	return waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD;
}

static void test_echo(void **state)
{
	struct run_result r;
	assert_int_equal(run_argv(ARGV("echo", "hello world"), NULL, &r), 0);
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(r.term_signal, 0);
	assert_string_equal(r.out, "hello world\n");
	assert_int_equal(r.out_len, 12);
	assert_int_equal(r.out_total, 12);
	assert_false(r.truncated || r.timed_out || r.hung || r.cancelled);
	assert_string_equal(r.err, "");
	assert_int_equal(r.leftovers_killed, 0);
	run_result_free(&r);
	assert_true(nothing_to_wait_for());
}

static void test_stderr_merged_and_exit_code(void **state)
{
	struct run_result r;
	assert_int_equal(run_argv(ARGV("sh", "-c", "echo out; echo err >&2; exit 3"), NULL, &r), 0);
	assert_int_equal(r.exit_code, 3);
	assert_string_equal(r.out, "out\nerr\n");
	assert_string_equal(r.err, "");
	run_result_free(&r);
}

static void test_killed_by_signal(void **state)
{
	struct run_result r;
	assert_int_equal(run_argv(ARGV("sh", "-c", "kill -SEGV $$"), NULL, &r), 0);
	assert_int_equal(r.exit_code, -1);
	assert_int_equal(r.term_signal, SIGSEGV);
	assert_string_equal(r.err, "killed by signal 11 (SIGSEGV)");
	run_result_free(&r);
}

static void test_missing_program(void **state)
{
	struct run_result r;
	assert_int_equal(run_argv(ARGV("fabtop-no-such-program", "x"), NULL, &r), -1);
	assert_int_equal(r.exit_code, -1);
	assert_string_equal(r.err, "cannot run fabtop-no-such-program: No such file or directory "
			    "(searched PATH)");
	run_result_free(&r);
	assert_int_equal(run_argv(ARGV("/nonexistent/dir/prog"), NULL, &r), -1);
	assert_string_equal(r.err, "cannot run /nonexistent/dir/prog: No such file or directory");
	run_result_free(&r);
	assert_true(nothing_to_wait_for());
}

/* Failures only execve itself can find, reported through the exec pipe. */
static void test_exec_errors(void **state)
{
	char dir[] = "/tmp/fabtop-test-runner.XXXXXX", path[64], msg[160];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/garbage", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\x7f" "ELF\x01\x02", 6), 6);    /* no shebang, not a valid ELF */
	close(fd);
	struct run_result r;
	assert_int_equal(run_argv(ARGV(path), NULL, &r), -1);
	snprintf(msg, sizeof(msg), "cannot run %s: Exec format error", path);
	assert_string_equal(r.err, msg);
	run_result_free(&r);

	chmod(path, 0644);      /* even root needs an x bit to execute */
	assert_int_equal(run_argv(ARGV(path), NULL, &r), -1);
	snprintf(msg, sizeof(msg), "cannot run %s: Permission denied", path);
	assert_string_equal(r.err, msg);
	run_result_free(&r);

	struct run_opts o = { .cwd = "/nonexistent-fabtop-dir" };
	assert_int_equal(run_argv(ARGV("true"), &o, &r), -1);
	assert_string_equal(r.err, "cannot run true: cannot enter directory /nonexistent-fabtop-dir: "
			    "No such file or directory");
	run_result_free(&r);
	unlink(path);
	rmdir(dir);
	assert_true(nothing_to_wait_for());
}

static void test_cwd_env_stdin(void **state)
{
	const char *env[] = { "FABTOP_T=one", "FABTOP_T=two", "PATH=/usr/bin:/bin", NULL };
	struct run_opts o = { .cwd = "/proc", .env_add = env, .timeout_s = 5 };
	struct run_result r;
	/* fabtop's own stdin is a pipe that never ends: a child reading it
	 * would wait forever; from /dev/null cat gets EOF at once. */
	int p[2], saved = dup(0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dup2(p[0], 0), 0);
	int rc = run_argv(ARGV("sh", "-c", "cat; echo \"$FABTOP_T $PATH $(pwd)\""), &o, &r);
	dup2(saved, 0);
	close(saved);
	close(p[0]);
	close(p[1]);
	assert_int_equal(rc, 0);
	assert_false(r.timed_out);
	assert_string_equal(r.out, "two /usr/bin:/bin /proc\n");
	run_result_free(&r);

	/* "K" alone removes K from what the child inherits. */
	setenv("FABTOP_GONE", "inherited", 1);
	setenv("FABTOP_KEPT", "inherited", 1);
	const char *rm[] = { "FABTOP_GONE", "FABTOP_NEW=1", NULL };
	o.env_add = rm;
	assert_int_equal(run_argv(ARGV("sh", "-c", "echo \"${FABTOP_GONE-unset} $FABTOP_KEPT $FABTOP_NEW\""),
				  &o, &r), 0);
	assert_string_equal(r.out, "unset inherited 1\n");
	run_result_free(&r);
	unsetenv("FABTOP_GONE");
	unsetenv("FABTOP_KEPT");

	const char *bad[] = { "=NOKEY", NULL };
	o.env_add = bad;
	assert_int_equal(run_argv(ARGV("true"), &o, &r), -1);
	assert_string_equal(r.err, "cannot run true: environment entry '=NOKEY' is not K=V or K");
	run_result_free(&r);
}

/* A descriptor fabtop opened without O_CLOEXEC must not reach the child. */
static void test_no_fd_leak(void **state)
{
	int leak = open("/dev/null", O_RDONLY);
	assert_true(leak >= 3);
	struct run_result r;
	assert_int_equal(run_argv(ARGV("ls", "/proc/self/fd"), NULL, &r), 0);
	/* ls's own directory handle is 3. */
	assert_string_equal(r.out, "0\n1\n2\n3\n");
	run_result_free(&r);
	close(leak);
}

static void test_out_cap(void **state)
{
	struct run_opts o = { .out_cap = 100 };
	struct run_result r;
	/* seq 1 20000 prints 108894 bytes. */
	assert_int_equal(run_argv(ARGV("seq", "1", "20000"), &o, &r), 0);
	assert_int_equal(r.out_len, 100);
	assert_int_equal(r.out_total, 108894);
	assert_true(r.truncated);
	assert_int_equal(strlen(r.out), 100);
	assert_memory_equal(r.out, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", 21);
	run_result_free(&r);

	o.keep_tail = true;
	assert_int_equal(run_argv(ARGV("seq", "1", "20000"), &o, &r), 0);
	assert_int_equal(r.out_len, 100);
	assert_int_equal(r.out_total, 108894);
	assert_true(r.truncated);
	assert_string_equal(r.out + 100 - 24, "19997\n19998\n19999\n20000\n");
	run_result_free(&r);
}

struct counted { size_t bytes, calls; };
static void count_output(void *ctx, const char *buf, size_t len)
{
	struct counted *c = ctx;
	c->bytes += len;
	c->calls++;
}

static void test_on_output_sees_everything(void **state)
{
	struct counted c = { 0 };
	struct run_opts o = { .out_cap = 10, .on_output = count_output, .ctx = &c };
	struct run_result r;
	assert_int_equal(run_argv(ARGV("seq", "1", "20000"), &o, &r), 0);
	assert_int_equal(c.bytes, 108894);
	assert_true(c.calls >= 1);
	assert_int_equal(r.out_total, 108894);
	run_result_free(&r);
}

static pid_t first_line_pid(const char *out)
{
	long v = strtol(out, NULL, 10);
	return v > 1 ? (pid_t)v : 0;
}

/* The case: the step's command spawns a grandchild that ignores
 * SIGTERM and never exits, and so does the command itself. */
static void test_timeout_kills_group(void **state)
{
	struct run_opts o = { .timeout_s = 0.5 };
	struct run_job *j;
	char err[256];
	assert_int_equal(run_start(ARGV("sh", "-c", "trap '' TERM; sleep 100 & echo $!; sleep 100"),
				   &o, &j, err, sizeof(err)), 0);
	pid_t leader = run_pid(j);
	assert_int_equal(getpgid(leader), leader);
	struct run_result r;
	assert_int_equal(run_finish(j, &r), 0);
	pid_t grandchild = first_line_pid(r.out);
	assert_true(grandchild > 0);
	assert_true(r.timed_out);
	assert_false(r.hung || r.cancelled);
	assert_int_equal(r.exit_code, -1);
	assert_int_equal(r.term_signal, SIGKILL);    /* it ignored SIGTERM */
	assert_string_equal(r.err, "timed out after 0.5 s (process group killed)");
	/* 0.5 s, then one second of grace before SIGKILL. */
	assert_true(r.elapsed_s >= 1.45 && r.elapsed_s < 3.0);
	assert_true(gone(grandchild));
	assert_true(gone(leader));
	assert_true(kill(-leader, 0) == -1 && errno == ESRCH);
	assert_true(nothing_to_wait_for());
	run_result_free(&r);
}

/* The command exits by itself but leaves a SIGTERM-ignoring grandchild. */
static void test_leftover_grandchild_killed(void **state)
{
	struct run_result r;
	assert_int_equal(run_argv(ARGV("sh", "-c", "trap '' TERM; sleep 100 & echo $!"), NULL, &r), 0);
	pid_t grandchild = first_line_pid(r.out);
	assert_true(grandchild > 0);
	assert_int_equal(r.exit_code, 0);
	assert_false(r.timed_out || r.hung || r.cancelled);
	assert_int_equal(r.leftovers_killed, 1);
	assert_true(r.elapsed_s >= 0.95 && r.elapsed_s < 2.5);
	assert_true(gone(grandchild));
	assert_true(nothing_to_wait_for());
	run_result_free(&r);

	/* One that goes on SIGTERM costs no grace second. */
	assert_int_equal(run_argv(ARGV("sh", "-c", "sleep 100 & echo $!"), NULL, &r), 0);
	grandchild = first_line_pid(r.out);
	assert_int_equal(r.leftovers_killed, 1);
	assert_true(r.elapsed_s < 0.5);
	assert_true(gone(grandchild));
	assert_true(nothing_to_wait_for());
	run_result_free(&r);
}

/* A grandchild that leaves the group (setsid) and prints its pid once it
 * has, then sleeps; its parent exits at once. */
#define ESCAPE "{ setsid sh -c 'echo $$; exec sleep 100' & } | head -n 1"

/* In a process that is not a subreaper of its own (fork does not pass it
 * on): a grandchild that setsid()s and outlives its parent is out of the
 * group, yet the runner finds it (orphaned to fabtop, which made itself a
 * subreaper), kills it and reaps it. */
static void test_setsid_escapee_killed(void **state)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		close(fds[0]);
		int bad = 0, reaper = -1;
		struct run_result r;
		prctl(PR_GET_CHILD_SUBREAPER, &reaper);
		bad |= reaper != 0;
		run_argv(ARGV("sh", "-c", ESCAPE), NULL, &r);
		pid_t esc = first_line_pid(r.out);
		prctl(PR_GET_CHILD_SUBREAPER, &reaper);
		bad |= (reaper != 1) << 1;
		bad |= (esc <= 0) << 2;
		bad |= (r.leftovers_killed != 1) << 3;
		bad |= (esc > 0 && !gone(esc)) << 4;
		bad |= !nothing_to_wait_for() << 5;
		if (write(fds[1], &esc, sizeof(esc)) != (ssize_t)sizeof(esc))
			bad |= 1 << 6;
		run_result_free(&r);
		_exit(bad);
	}
	close(fds[1]);
	pid_t esc = 0;
	assert_int_equal(read(fds[0], &esc, sizeof(esc)), (ssize_t)sizeof(esc));
	close(fds[0]);
	int st;
	assert_int_equal(waitpid(p, &st, 0), p);
	if (esc > 0 && !gone(esc))
		kill(esc, SIGKILL);   /* the test's own cleanup, after the verdict */
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);   /* bits: see above */
}

/* An orphan is swept only when the last running job ends: a job still
 * running may own it. */
static void test_escapee_kept_while_another_job_runs(void **state)
{
	struct run_job *a;
	struct run_result r, ra;
	char err[256];
	assert_int_equal(run_start(ARGV("sleep", "100"), NULL, &a, err, sizeof(err)), 0);
	assert_int_equal(run_argv(ARGV("sh", "-c", ESCAPE), NULL, &r), 0);
	pid_t esc = first_line_pid(r.out);
	assert_true(esc > 0);
	assert_int_equal(r.leftovers_killed, 0);
	assert_false(gone(esc));
	run_result_free(&r);
	run_cancel(a);
	assert_int_equal(run_finish(a, &ra), 0);
	assert_true(ra.cancelled);
	assert_true(gone(esc));
	assert_true(nothing_to_wait_for());
	run_result_free(&ra);
}

/* fabtop killed with SIGKILL: the kernel kills its child
 * (PR_SET_PDEATHSIG). The "fabtop" is a forked process here; the child
 * it started is orphaned to this test (a subreaper), which sees it die
 * of SIGKILL. Bounded: a child that lives on fails the test. */
static void test_child_dies_with_parent(void **state)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		struct run_job *j;
		char err[256];
		close(fds[0]);
		pid_t c = run_start(ARGV("sleep", "100"), NULL, &j, err, sizeof(err)) == 0 ? run_pid(j) : 0;
		if (write(fds[1], &c, sizeof(c)) != (ssize_t)sizeof(c))
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	pid_t c = 0;
	assert_int_equal(read(fds[0], &c, sizeof(c)), (ssize_t)sizeof(c));
	close(fds[0]);
	assert_true(c > 0);
	assert_int_equal(kill(p, SIGKILL), 0);
	int st;
	assert_int_equal(waitpid(p, &st, 0), p);
	pid_t got = 0;
	for (int i = 0; i < 1000 && got == 0; i++) {
		got = waitpid(c, &st, WNOHANG);
		if (got == 0)
			usleep(10000);
	}
	if (got != c)
		kill(c, SIGKILL);
	assert_int_equal(got, c);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGKILL);
	assert_true(nothing_to_wait_for());
}

static void test_idle_timeout(void **state)
{
	struct run_opts o = { .idle_timeout_s = 0.5, .timeout_s = 30 };
	struct run_result r;
	assert_int_equal(run_argv(ARGV("sh", "-c", "echo started; sleep 100"), &o, &r), 0);
	assert_true(r.hung);
	assert_false(r.timed_out || r.cancelled);
	assert_string_equal(r.out, "started\n");
	assert_string_equal(r.err, "no output for 0.5 s: hung (process group killed)");
	assert_int_equal(r.term_signal, SIGTERM);
	assert_true(r.elapsed_s >= 0.45 && r.elapsed_s < 1.4);
	run_result_free(&r);

	/* Output every 0.2 s keeps a 0.5 s idle timeout from firing. */
	assert_int_equal(run_argv(ARGV("sh", "-c", "for i in 1 2 3 4 5; do echo $i; sleep 0.2; done"),
				  &o, &r), 0);
	assert_false(r.hung);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.out, "1\n2\n3\n4\n5\n");
	run_result_free(&r);
	assert_true(nothing_to_wait_for());
}

static void test_poll_and_cancel(void **state)
{
	struct run_job *j;
	char err[256];
	assert_int_equal(run_start(ARGV("sh", "-c", "echo first; sleep 100"), NULL, &j, err,
				   sizeof(err)), 0);
	size_t len = 0;
	for (int i = 0; i < 100 && len < 6; i++) {
		assert_int_equal(run_poll(j, 50), 0);
		run_output(j, &len);
	}
	assert_int_equal(len, 6);
	assert_memory_equal(run_output(j, &len), "first\n", 6);
	assert_int_equal(run_poll(j, 0), 0);      /* still running */
	pid_t pid = run_pid(j);
	run_cancel(j);
	struct run_result r;
	assert_int_equal(run_finish(j, &r), 0);
	assert_true(r.cancelled);
	assert_false(r.timed_out || r.hung);
	assert_int_equal(r.term_signal, SIGTERM);
	assert_string_equal(r.err, "cancelled (process group killed)");
	assert_true(r.elapsed_s < 1.0);
	assert_true(gone(pid));
	assert_true(nothing_to_wait_for());
	run_result_free(&r);
}

/* The console's way: run_poll(j, 0) between keys, never a wait in the
 * runner. Polls every pause_ms until finished (at most 60 s: a broken
 * runner fails the test instead of hanging it), then finishes. */
static void poll0_until_done(struct run_job *j, long pause_ms, struct run_result *r)
{
	struct timespec ts = { pause_ms / 1000, (pause_ms % 1000) * 1000000L };
	int rc = 0;
	for (long waited = 0; waited < 60000 && (rc = run_poll(j, 0)) == 0; waited += pause_ms)
		nanosleep(&ts, NULL);
	assert_int_equal(rc, 1);
	assert_int_equal(run_fd(j), -1);   /* the pipe is at its end: nothing to poll() */
	assert_int_equal(run_finish(j, r), 0);
}

/* Several MiB, far more than a pipe holds: polled only with 0, the child
 * is read as it writes and ends, every byte counted. */
static void test_poll0_drains_big_output(void **state)
{
	struct run_opts o = { .idle_timeout_s = 5, .timeout_s = 60 };
	struct run_job *j;
	struct run_result r;
	char err[256];
	assert_int_equal(run_start(ARGV("head", "-c", "6291456", "/dev/zero"), &o, &j, err, sizeof(err)), 0);
	assert_true(run_fd(j) >= 0);
	poll0_until_done(j, 5, &r);
	assert_false(r.hung || r.timed_out || r.cancelled);
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(r.out_total, 6291456);
	assert_int_equal(r.out_len, RUN_OUT_CAP_DEFAULT);
	run_result_free(&r);
	assert_true(nothing_to_wait_for());
}

/* Silent after one line: polled only with 0, killed as hung all the
 * same, not before its idle time. */
static void test_poll0_silent_is_hung(void **state)
{
	struct run_opts o = { .idle_timeout_s = 0.5, .timeout_s = 30 };
	struct run_job *j;
	struct run_result r;
	char err[256];
	assert_int_equal(run_start(ARGV("sh", "-c", "echo started; sleep 100"), &o, &j, err, sizeof(err)), 0);
	pid_t pid = run_pid(j);
	poll0_until_done(j, 20, &r);
	assert_true(r.hung);
	assert_false(r.timed_out || r.cancelled);
	assert_string_equal(r.out, "started\n");
	assert_string_equal(r.err, "no output for 0.5 s: hung (process group killed)");
	assert_true(r.elapsed_s >= 0.5);
	assert_true(gone(pid));
	run_result_free(&r);
	assert_true(nothing_to_wait_for());
}

/* script prints for 1.5 s, three times the 0.5 s idle timeout, polled
 * with 0 every pause_ms: it must end by itself, all of it read. */
static void steady(const char *script, long pause_ms, size_t total)
{
	struct run_opts o = { .idle_timeout_s = 0.5, .timeout_s = 60 };
	struct run_job *j;
	struct run_result r;
	char err[256];
	assert_int_equal(run_start(ARGV("sh", "-c", script), &o, &j, err, sizeof(err)), 0);
	poll0_until_done(j, pause_ms, &r);
	assert_false(r.hung || r.timed_out || r.cancelled);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.err, "");
	assert_int_equal(r.out_total, total);
	run_result_free(&r);
}

/* A child that prints steadily for longer than its idle timeout is not
 * hung, whether the reader looks often or more rarely than the idle
 * timeout: the hang clock is the child's silence, not the reader's. */
static void test_poll0_steady_printer_not_hung(void **state)
{
	const char *lines = "i=0; while [ $i -lt 15 ]; do echo line $i; i=$((i + 1)); sleep 0.1; done";
	steady(lines, 20, 15 * 7 + 5 * 1);    /* "line 0\n".."line 14\n" */
	steady(lines, 700, 15 * 7 + 5 * 1);
	/* More than a pipe holds, in bursts. */
	steady("i=0; while [ $i -lt 15 ]; do head -c 262144 /dev/zero; i=$((i + 1)); sleep 0.1; done",
	       30, 15 * 262144);
	assert_true(nothing_to_wait_for());
}

/* In a process of its own (a subreaper too, so orphans come back to it):
 * after every kind of ending there is nothing left to wait for. */
static void test_no_zombies(void **state)
{
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		prctl(PR_SET_CHILD_SUBREAPER, 1);
		struct run_result r;
		struct run_opts t = { .timeout_s = 0.2 };
		struct run_job *j;
		char err[256];
		int bad = 0;
		run_argv(ARGV("true"), NULL, &r);
		run_result_free(&r);
		run_argv(ARGV("fabtop-no-such-program"), NULL, &r);
		run_result_free(&r);
		run_argv(ARGV("sh", "-c", "sleep 100 & sleep 100 & exit 4"), NULL, &r);
		bad += r.exit_code != 4;
		run_result_free(&r);
		run_argv(ARGV("sh", "-c", "trap '' TERM; sleep 100 & sleep 100"), &t, &r);
		bad += !r.timed_out;
		run_result_free(&r);
		if (run_start(ARGV("sleep", "100"), NULL, &j, err, sizeof(err)) == 0) {
			run_cancel(j);
			run_finish(j, &r);
			run_result_free(&r);
		} else {
			bad++;
		}
		bad += !nothing_to_wait_for();
		_exit(bad ? 1 : 0);
	}
	int st;
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_format_argv(void **state)
{
	char buf[128];
	run_format_argv(ARGV("ping", "-M", "do", "-s", "8972", "10.0.0.1"), buf, sizeof(buf));
	assert_string_equal(buf, "ping -M do -s 8972 10.0.0.1");
	run_format_argv(ARGV("sh", "-c", "echo $HOME; rm x", "it's", ""), buf, sizeof(buf));
	assert_string_equal(buf, "sh -c 'echo $HOME; rm x' 'it'\\''s' ''");
	run_format_argv(ARGV("all_reduce_perf", "-b", "8", "-e", "1G"), buf, 16);
	assert_string_equal(buf, "all_reduce_p...");
	assert_int_equal(strlen(buf), 15);
}

static void expect_refused(bool (*fn)(const char *, char *, size_t), const char *in,
			   const char *why_expected)
{
	char why[256] = "";
	if (fn(in, why, sizeof(why)))
		fail_msg("'%s' was accepted", in);
	assert_string_equal(why, why_expected);
}

static void expect_ok(bool (*fn)(const char *, char *, size_t), const char *in)
{
	char why[256] = "";
	if (!fn(in, why, sizeof(why)))
		fail_msg("'%s' refused: %s", in, why);
}

static void test_valid_host(void **state)
{
	expect_refused(run_valid_host, ";reboot", "peer ';reboot': ';' is a shell metacharacter; "
		       "a peer is a host name or an IP address (letters, digits, '.', '-', ':')");
	expect_refused(run_valid_host, "$(id)", "peer '$(id)': '$' is a shell metacharacter; "
		       "a peer is a host name or an IP address (letters, digits, '.', '-', ':')");
	expect_refused(run_valid_host, "a b", "peer 'a b': ' ' is not allowed; a peer is a host "
		       "name or an IP address (letters, digits, '.', '-', ':')");
	expect_refused(run_valid_host, "-x", "peer '-x': a peer cannot start with '-' "
		       "(it would read as an option)");
	expect_refused(run_valid_host, "", "peer '': empty");
	expect_refused(run_valid_host, "10.0.0.300", "peer '10.0.0.300': not a valid IPv4 address");
	expect_refused(run_valid_host, "fe80::1::2", "peer 'fe80::1::2': not a valid IPv6 address");
	expect_refused(run_valid_host, "node-.cluster", "peer 'node-.cluster': not a valid host name "
		       "(each dot-separated label 1..63 characters, not starting or ending in '-')");
	char longname[300];
	memset(longname, 'a', 254);
	longname[254] = '\0';
	char why[256];
	assert_false(run_valid_host(longname, why, sizeof(why)));
	assert_non_null(strstr(why, "longer than 253 characters"));
	expect_ok(run_valid_host, "10.0.0.1");
	expect_ok(run_valid_host, "fe80::1");
	expect_ok(run_valid_host, "node-17.cluster");
	expect_ok(run_valid_host, "gpu017");
}

static void test_valid_ifname(void **state)
{
	expect_refused(run_valid_ifname, ";reboot", "interface ';reboot': ';' is a shell "
		       "metacharacter, not part of an interface name");
	expect_refused(run_valid_ifname, "$(id)", "interface '$(id)': '$' is a shell "
		       "metacharacter, not part of an interface name");
	expect_refused(run_valid_ifname, "a b", "interface 'a b': ' ' is not allowed in an "
		       "interface name by the kernel");
	expect_refused(run_valid_ifname, "-x", "interface '-x': cannot start with '-' "
		       "(it would read as an option)");
	expect_refused(run_valid_ifname, "abcdefghijklmnop", "interface 'abcdefghijklmnop': "
		       "longer than 15 characters (IFNAMSIZ)");
	expect_refused(run_valid_ifname, "..", "interface '..': not an interface name");
	expect_refused(run_valid_ifname, "eth0/1", "interface 'eth0/1': '/' is not allowed in an "
		       "interface name by the kernel");
	expect_ok(run_valid_ifname, "eth0");
	expect_ok(run_valid_ifname, "ib0.8001");
	expect_ok(run_valid_ifname, "abcdefghijklmno");     /* 15 */
	expect_ok(run_valid_ifname, "enp26s0f1np1");
}

static void test_valid_hca_list(void **state)
{
	expect_ok(run_valid_hca_list, "mlx5_0:1,mlx5_1:1");
	expect_ok(run_valid_hca_list, "^mlx5_3");
	expect_ok(run_valid_hca_list, "=mlx5_0");
	expect_ok(run_valid_hca_list, "^=mlx5_0,mlx5_1");
	expect_ok(run_valid_hca_list, "mlx5");
	expect_refused(run_valid_hca_list, "mlx5_0;reboot", "HCA list 'mlx5_0;reboot': ';' is a "
		       "shell metacharacter, not part of an HCA name");
	expect_refused(run_valid_hca_list, "$(id)", "HCA list '$(id)': '$' is a shell "
		       "metacharacter, not part of an HCA name");
	expect_refused(run_valid_hca_list, "mlx5_0,,mlx5_1", "HCA list 'mlx5_0,,mlx5_1': has an "
		       "empty entry (expected [^][=]name[:port],...)");
	expect_refused(run_valid_hca_list, "mlx5_0:x", "HCA list 'mlx5_0:x': has a port that is "
		       "not a number (name:port)");
	expect_refused(run_valid_hca_list, "^", "HCA list '^': names no HCA "
		       "(expected [^][=]name[:port],...)");
	expect_refused(run_valid_hca_list, "mlx5_0,", "HCA list 'mlx5_0,': ends with ','");
}

int main(void)
{
	/* Orphans of the children come back here, to be reaped by the runner. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_echo),
		cmocka_unit_test(test_stderr_merged_and_exit_code),
		cmocka_unit_test(test_killed_by_signal),
		cmocka_unit_test(test_missing_program),
		cmocka_unit_test(test_exec_errors),
		cmocka_unit_test(test_cwd_env_stdin),
		cmocka_unit_test(test_no_fd_leak),
		cmocka_unit_test(test_out_cap),
		cmocka_unit_test(test_on_output_sees_everything),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_leftover_grandchild_killed),
		cmocka_unit_test(test_setsid_escapee_killed),
		cmocka_unit_test(test_escapee_kept_while_another_job_runs),
		cmocka_unit_test(test_child_dies_with_parent),
		cmocka_unit_test(test_idle_timeout),
		cmocka_unit_test(test_poll_and_cancel),
		cmocka_unit_test(test_poll0_drains_big_output),
		cmocka_unit_test(test_poll0_silent_is_hung),
		cmocka_unit_test(test_poll0_steady_printer_not_hung),
		cmocka_unit_test(test_no_zombies),
		cmocka_unit_test(test_format_argv),
		cmocka_unit_test(test_valid_host),
		cmocka_unit_test(test_valid_ifname),
		cmocka_unit_test(test_valid_hca_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
