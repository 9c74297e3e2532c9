/*
 * fake_nccl - stands in for an nccl-tests run (all_reduce_perf -g 2: one
 * process, two GPUs) so the A/B is tested against real child processes.
 *
 *   fake_nccl MODE [--slow-lines MS] [--stream KIB SECONDS] [--escape] [ANY WORD...]
 *   all_reduce_perf ARGS...       (a symlink: the mode is $FAKE_NCCL_MODE, else ok)
 *
 * Like NCCL, it prints its log lines only when NCCL_DEBUG=INFO is in its
 * environment, and into the file NCCL_DEBUG_FILE names when that is set
 * (%h and %p expanded), so a test sees whether the A/B's environment
 * reached the child. The nccl-tests table goes to stdout whatever the
 * environment. NCCL_IB_DISABLE=1 switches to the socket transport, except
 * in plugin-ignores, whose external plugin does not read it. The wording
 * is NCCL 2.28.9's, from tests/fixtures/nccl-logs/h200-*.log.
 *
 * Modes (run A is IB, run B is NCCL_IB_DISABLE=1):
 *   ok              IB + GDR, bus bandwidth 180; sockets 9
 *   slow            IB 10; sockets 9
 *   ib-fail         IB: completion error status=12, exit 1; sockets complete
 *   ib-hang         IB: init, then a grandchild that sleeps and the process
 *                   itself sleeping forever (its pid printed); sockets complete
 *   both-fail       bootstrap connection refused, exit 1, both
 *   both-hang       both stop after the bootstrap and sleep forever
 *   no-ib           "NET/IB : No device found.": sockets, both complete
 *   plugin-ignores  external plugin IBext_v8, used even with NCCL_IB_DISABLE=1
 *   b-fail          IB ok; sockets fail at the bootstrap, exit 1
 *   not-nccl        prints no NCCL line, exits 0
 * --slow-lines MS pauses after every line. --stream KIB SECONDS: once the
 * channels are set up, KIB KiB of NCCL INFO lines more, written steadily
 * (a burst every 50 ms) over SECONDS, as NCCL_DEBUG=INFO does on a big
 * job; a run that streams longer than the A/B's --hang is not hung.
 * --escape: first of all, a grandchild that leaves the process group and
 * the session (setsid), as a daemonizing launcher does, and sleeps
 * forever with the output pipe open; the process goes on only once it
 * has left, so the runner never finds it in the group by luck. With
 * $FAKE_NCCL_ESCAPED set, it appends its pid to that file (a test then
 * knows it ran, and which process to look for).
 * Other words are ignored (a test passes a unique marker to find its
 * processes with pgrep -f). Exit 2 on an unknown mode.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static FILE *logf_;       /* NCCL lines; NULL when NCCL_DEBUG is not INFO */
static char host[64];
static int pid;
static long slow_ms;
static long stream_kib;
static double stream_s;
static bool escape_;

static void pause_line(void)
{
	if (slow_ms > 0) {
		struct timespec ts = { slow_ms / 1000, (slow_ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/* One NCCL line of GPU dev from thread tid (0: the main thread). */
static void __attribute__((format(printf, 3, 4))) nccl(int dev, int tid, const char *fmt, ...)
{
	va_list ap;
	if (!logf_)
		return;
	fprintf(logf_, "%s:%d:%d [%d] NCCL INFO ", host, pid, tid ? pid + tid : pid, dev);
	va_start(ap, fmt);
	vfprintf(logf_, fmt, ap);
	va_end(ap);
	fputc('\n', logf_);
	fflush(logf_);
	pause_line();
}

/* A WARN, as NCCL prints it: a blank line, then file:line before "NCCL WARN". */
static void __attribute__((format(printf, 3, 4))) warn(int tid, const char *where, const char *fmt, ...)
{
	va_list ap;
	if (!logf_)
		return;
	fprintf(logf_, "\n%s:%d:%d [0] %s NCCL WARN ", host, pid, pid + tid, where);
	va_start(ap, fmt);
	vfprintf(logf_, fmt, ap);
	va_end(ap);
	fputc('\n', logf_);
	fflush(logf_);
	pause_line();
}

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	pause_line();
}

static void sleep_forever(void)
{
	for (;;)
		pause();
}

/* --escape: a grandchild in a session of its own; returns once it is there. */
static void escape(void)
{
	int fds[2];
	char c = 0;
	if (pipe(fds) != 0)
		return;
	fflush(NULL);
	pid_t g = fork();
	if (g == 0) {
		close(fds[0]);
		setsid();
		const char *note = getenv("FAKE_NCCL_ESCAPED");
		FILE *f = note && *note ? fopen(note, "a") : NULL;
		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		close(fds[1]);
		logf_ = NULL;
		sleep_forever();
	}
	close(fds[1]);
	while (g > 0 && read(fds[0], &c, 1) < 0)
		;
	close(fds[0]);
	fprintf(stderr, "fake_nccl: escaped grandchild pid %d (setsid)\n", (int)g);
	fflush(stderr);
}

/* NCCL_DEBUG_FILE's template: %h the host, %p the pid. */
static FILE *open_debug_file(const char *tmpl)
{
	char path[4096];
	size_t n = 0;
	for (const char *p = tmpl; *p && n + 32 < sizeof(path); p++) {
		if (p[0] == '%' && p[1] == 'h') {
			n += (size_t)snprintf(path + n, sizeof(path) - n, "%s", host);
			p++;
		} else if (p[0] == '%' && p[1] == 'p') {
			n += (size_t)snprintf(path + n, sizeof(path) - n, "%d", pid);
			p++;
		} else {
			path[n++] = *p;
		}
	}
	path[n] = '\0';
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "fake_nccl: cannot open NCCL_DEBUG_FILE %s\n", path);
	return f;
}

static void header(void)
{
	out("# nccl-tests version 2.17.6 nccl-headers=22809 nccl-library=22809\n");
	out("# Collective test starting: all_reduce_perf\n");
	out("# nThread 1 nGpus 2 minBytes 134217728 maxBytes 1073741824 step: 2(factor) warmup iters: 5 "
	    "iters: 20 agg iters: 1 validation: 1 graph: 0\n");
	out("#\n# Using devices\n");
	out("#  Rank  0 Group  0 Pid %6d on %10s device  0 [0000:18:00] NVIDIA H200\n", pid, host);
	out("#  Rank  1 Group  0 Pid %6d on %10s device  1 [0000:2a:00] NVIDIA H200\n", pid, host);
}

static void bootstrap(void)
{
	nccl(0, 0, "ENV/Plugin: Could not find: libnccl-env.so");
	nccl(0, 0, "Bootstrap: Using eth0:192.0.2.2<0>");
	nccl(0, 0, "cudaDriverVersion 13000");
	nccl(0, 0, "NCCL version 2.28.9+cuda13.0");
	nccl(0, 0, "Comm config Blocking set to 1");
}

/* The network set-up: "IB", "Socket", "no-ib" (IB wanted, no device) or
 * "IBext_v8" (an external plugin). */
static void net_setup(const char *net)
{
	if (strcmp(net, "IBext_v8") == 0) {
		nccl(0, 0, "NET/Plugin: Plugin name set by env to libnccl-net.so");
		nccl(0, 0, "NET/Plugin: Loaded net plugin IBext_v8 (v8)");
		nccl(0, 0, "NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:192.0.2.2<0>");
		nccl(0, 0, "Using network IBext_v8");
		return;
	}
	nccl(0, 0, "NET/Plugin: Could not find: libnccl-net.so");
	if (strcmp(net, "IB") == 0) {
		nccl(0, 0, "NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:192.0.2.2<0>");
		nccl(0, 0, "Initialized NET plugin IB");
		nccl(0, 0, "Assigned NET plugin IB to comm");
		nccl(0, 0, "Using network IB");
		return;
	}
	if (strcmp(net, "no-ib") == 0) {
		nccl(0, 0, "NET/IB : No device found.");
		nccl(0, 0, "NET/IB : Using [RO]; OOB eth0:192.0.2.2<0>");
		nccl(0, 0, "Failed to initialize NET plugin IB");
	}
	nccl(0, 0, "NET/Socket : Using [0]eth0:192.0.2.2<0>");
	nccl(0, 0, "Initialized NET plugin Socket");
	nccl(0, 0, "Assigned NET plugin Socket to comm");
	nccl(0, 0, "Using network Socket");
}

static void init_start(void)
{
	for (int d = 0; d < 2; d++)
		nccl(d, 0, "ncclCommInitAll comm 0x%x rank %d nranks 2 cudaDev %d nvmlDev %d busId %s "
		     "commId 0x36fd4c78b53948e0 - Init START", 0x31e2db40 + d * 0x100, d, d, d,
		     d ? "2a000" : "18000");
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --stream: stream_kib KiB of 128-byte INFO lines over stream_s seconds,
 * one burst every 50 ms on a fixed schedule (a slow reader does not make
 * it write less, only later). */
static void stream(void)
{
	FILE *f = logf_ ? logf_ : stdout;
	long lines = stream_kib * 1024 / 128, bursts = (long)(stream_s * 20), done = 0;
	double t0 = mono();
	if (bursts < 1)
		bursts = 1;
	for (long b = 1; b <= bursts; b++) {
		for (long upto = lines * b / bursts; done < upto; done++) {
			/* 128 bytes with the newline: the prefix, then padding. */
			char line[160];
			int n = snprintf(line, sizeof(line), "%s:%d:%d [0] NCCL INFO fake_nccl stream line %ld of %ld ",
					 host, pid, pid, done + 1, lines);
			while (n < 127)
				line[n++] = '.';
			line[127] = '\n';
			fwrite(line, 1, 128, f);
		}
		fflush(f);
		double wait = t0 + b * 0.05 - mono();
		if (wait > 0) {
			struct timespec ts = { (time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9) };
			nanosleep(&ts, NULL);
		}
	}
}

static void channels(const char *net)
{
	bool rdma = strncmp(net, "IB", 2) == 0;
	const char *gdrnet = strcmp(net, "IBext_v8") == 0 ? "IBext_v8" : "IB";
	for (int d = 0; d < 2; d++)
		nccl(d, 40 + d, "comm 0x%x rank %d nRanks 2 nNodes 1 localRanks 2 localRank %d MNNVL 0",
		     0x31e2db40 + d * 0x100, d, d);
	if (rdma)
		nccl(0, 40, "NET/%s : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'", gdrnet);
	else
		nccl(0, 40, "NET/Socket : GPU Direct RDMA Disabled for HCA 0 'eth0'");
	for (int ch = 0; ch < 2; ch++)
		for (int d = 0; d < 2; d++) {
			if (rdma)
				nccl(d, 40 + d, "Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/%s/0/GDRDMA",
				     ch, d, d, 1 - d, 1 - d, gdrnet);
			else
				nccl(d, 40 + d, "Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/Socket/0",
				     ch, d, d, 1 - d, 1 - d);
		}
	if (rdma)
		for (int d = 0; d < 2; d++)
			nccl(d, 45 + d, "NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn %d mtu 5 GID 3 "
			     "(80FE/1A2B3CFFFE4D5E6F) fifoRkey=0x1f2e fifoLkey=0x3d4c", 17513 + d);
	for (int d = 0; d < 2; d++)
		nccl(d, 0, "ncclCommInitAll comm 0x%x rank %d nranks 2 cudaDev %d nvmlDev %d busId %s "
		     "commId 0x36fd4c78b53948e0 - Init COMPLETE", 0x31e2db40 + d * 0x100, d, d, d,
		     d ? "2a000" : "18000");
	if (stream_kib > 0)
		stream();
}

static void table_head(void)
{
	out("#\n");
	out("#                                                              out-of-place                       in-place          \n");
	out("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n");
	out("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n");
}

/* One row: two ranks, so algbw = busbw. */
static void table_row(long long bytes, double busbw)
{
	double us = (double)bytes / (busbw * 1e3);
	out("%12lld  %12lld     float     sum      -1  %7.1f  %6.2f  %6.2f      0  %7.1f  %6.2f  %6.2f      0\n",
	    bytes, bytes / 4, us, busbw, busbw, us, busbw, busbw);
}

/* Three sizes whose bus bandwidths average to busbw, then the summary. */
static void table(double busbw)
{
	table_head();
	table_row(134217728LL, busbw * 0.98);
	table_row(536870912LL, busbw);
	table_row(1073741824LL, busbw * 1.02);
	out("# Out of bounds values : 0 OK\n");
	out("# Avg bus bandwidth    : %.2f \n", busbw);
	out("#\n");
}

static void destroy(void)
{
	for (int d = 0; d < 2; d++)
		nccl(d, 0, "comm 0x%x rank %d nranks 2 cudaDev %d busId %s - Destroy COMPLETE",
		     0x31e2db40 + d * 0x100, d, d, d ? "2a000" : "18000");
	nccl(0, 0, "ENV/Plugin: Closing env plugin ncclEnvDefault");
	out("# Collective test concluded: all_reduce_perf\n");
}

static int complete(const char *net, double busbw)
{
	bootstrap();
	net_setup(net);
	init_start();
	channels(net);
	table(busbw);
	destroy();
	return 0;
}

static int bootstrap_refused(const char *net)
{
	bootstrap();
	net_setup(net);
	init_start();
	warn(50, "misc/socket.cc:484", "socketStartConnect: Connect to 192.0.2.3<39043> failed : "
	     "Connection refused");
	nccl(0, 50, "misc/socket.cc:565 -> 2");
	nccl(0, 50, "bootstrap.cc:285 -> 2");
	warn(50, "bootstrap.cc:298", "Bootstrap : Unable to connect to rank 1");
	nccl(0, 0, "init.cc:1572 -> 2");
	out("%s: Test NCCL failure common.cu:1279 'unhandled system error (run with NCCL_DEBUG=INFO for "
	    "details) / '\n", host);
	out(" .. %s pid %d: Test failure common.cu:1100\n", host, pid);
	return 1;
}

static int ib_completion_error(void)
{
	bootstrap();
	net_setup("IB");
	init_start();
	channels("IB");
	table_head();
	table_row(134217728LL, 176.4);
	warn(51, "transport/net_ib/p2p.cc:598", "NET/IB: Got completion from peer 192.0.2.3<52211> with "
	     "status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) reqSize=524288 vendor_err=129 "
	     "req_type=Send localGid ::ffff:192.0.2.2 remoteGids::ffff:192.0.2.3 hca mlx5_0");
	nccl(0, 51, "transport/net.cc:1421 -> 6");
	nccl(0, 51, "proxy.cc:880 -> 6 [Progress Thread]");
	out("%s: Test NCCL failure common.cu:1005 'remote process exited or there was a network error / '\n",
	    host);
	out(" .. %s pid %d: Test failure common.cu:891\n", host, pid);
	return 1;
}

/* Init, then silence: a grandchild in the same process group that sleeps,
 * the process itself sleeping too. Only the hang timeout ends it. */
static int hang(const char *net, bool after_init)
{
	bootstrap();
	net_setup(net);
	init_start();
	if (after_init)
		channels(net);
	fflush(NULL);
	pid_t g = fork();
	if (g == 0) {
		logf_ = NULL;
		sleep_forever();
	}
	fprintf(stderr, "fake_nccl: grandchild pid %d\n", (int)g);
	fflush(stderr);
	sleep_forever();
	return 1;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	const char *mode = NULL;
	int first = 1;
	if (strcmp(base, "all_reduce_perf") == 0) {
		mode = getenv("FAKE_NCCL_MODE");
	} else if (argc > 1) {
		mode = argv[1];
		first = 2;
	}
	if (!mode || !*mode)
		mode = "ok";
	for (int i = first; i < argc; i++)
		if (strcmp(argv[i], "--slow-lines") == 0 && i + 1 < argc) {
			slow_ms = atol(argv[++i]);
		} else if (strcmp(argv[i], "--stream") == 0 && i + 2 < argc) {
			stream_kib = atol(argv[++i]);
			stream_s = atof(argv[++i]);
		} else if (strcmp(argv[i], "--escape") == 0) {
			escape_ = true;
		}

	pid = (int)getpid();
	if (gethostname(host, sizeof(host)) != 0 || !host[0])
		strcpy(host, "node1");
	host[sizeof(host) - 1] = '\0';
	const char *dbg = getenv("NCCL_DEBUG");
	if (dbg && strcasecmp(dbg, "INFO") == 0) {
		const char *file = getenv("NCCL_DEBUG_FILE");
		logf_ = file && *file ? open_debug_file(file) : stdout;
	}
	const char *dis = getenv("NCCL_IB_DISABLE");
	bool ib_off = dis && atoi(dis) == 1;
	const char *sub = getenv("NCCL_DEBUG_SUBSYS");
	if (ib_off && sub && (strstr(sub, "ENV") || strstr(sub, "ALL")))
		nccl(0, 0, "NCCL_IB_DISABLE set by environment to 1.");

	if (escape_)
		escape();
	if (strcmp(mode, "not-nccl") == 0) {
		out("fake_nccl: not an NCCL program; nothing to see\n");
		return 0;
	}
	header();
	if (strcmp(mode, "ok") == 0)
		return complete(ib_off ? "Socket" : "IB", ib_off ? 9.0 : 180.0);
	if (strcmp(mode, "slow") == 0)
		return complete(ib_off ? "Socket" : "IB", ib_off ? 9.0 : 10.0);
	if (strcmp(mode, "ib-fail") == 0)
		return ib_off ? complete("Socket", 9.0) : ib_completion_error();
	if (strcmp(mode, "ib-hang") == 0)
		return ib_off ? complete("Socket", 9.0) : hang("IB", true);
	if (strcmp(mode, "both-fail") == 0)
		return bootstrap_refused(ib_off ? "Socket" : "IB");
	if (strcmp(mode, "both-hang") == 0)
		return hang(ib_off ? "Socket" : "IB", false);
	if (strcmp(mode, "no-ib") == 0)
		return complete(ib_off ? "Socket" : "no-ib", 9.0);
	if (strcmp(mode, "plugin-ignores") == 0)
		return complete("IBext_v8", 180.0);
	if (strcmp(mode, "b-fail") == 0)
		return ib_off ? bootstrap_refused("Socket") : complete("IB", 180.0);
	fprintf(stderr, "fake_nccl: unknown mode \"%s\" (ok slow ib-fail ib-hang both-fail both-hang "
		"no-ib plugin-ignores b-fail not-nccl)\n", mode);
	return 2;
}
