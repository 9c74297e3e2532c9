/* ras.c - asking NCCL's RAS without hurting the job: the table of known
 * crashes, the gate every request passes, where the server is, and the
 * client (see ras.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "fabtop/ras.h"
#include "fabtop/sanitize.h"
#include "job.h"

/* ---- the version table ----
 *
 * Every report of a RAS request crashing a job, by NCCL release. A request
 * is never sent where an entry says it is dangerous; the age rule (no query
 * to a job younger than RAS_MIN_AGE) and the INIT back-off (no query until
 * the next window after a reply showing a communicator in INIT) hold for
 * every version, because RAS_WHEN_INIT entries cover almost every release.
 *
 * Not a request's hazard, so not in the table: NVIDIA/nccl#1996 (2.27.5 -
 * 2.27.7, open): a segfault in rasMsgHandlePeersUpdate after unexpected
 * traffic reached RAS's peer port (a port scanner). fabtop only ever
 * connects to the client address the job names (NCCL_RAS_ADDR, its log, or
 * NCCL's default) or the one the user gives, never to RAS's peer ports. */
const struct ras_hazard ras_hazards[] = {
	{ 22400, 22702, RAS_REQ_STATUS, RAS_WHEN_INIT, 1669,
	  "a STATUS during communicator init crashed the job (2.26.2; fixed in 2.27.3)" },
	{ 22400, 22702, RAS_REQ_VERBOSE, RAS_WHEN_INIT, 1669,
	  "a status query during communicator init crashed the job (2.26.2; fixed in 2.27.3)" },
	{ 22400, 22702, RAS_REQ_STATUS, RAS_WHEN_INIT, 1718,
	  "polling STATUS while communicators were created and destroyed crashed the job "
	  "(2.26.5, even at a 5 s interval; fixed in 2.27.3)" },
	{ 22400, 0, RAS_REQ_VERBOSE, RAS_WHEN_LARGE, 1762,
	  "VERBOSE STATUS corrupted memory and crashed 128-GPU jobs (2.27.3; no release names a fix)" },
	{ 22900, 0, RAS_REQ_STATUS, RAS_WHEN_INIT, 2346,
	  "a STATUS while communicators were being created crashed 256-GPU jobs (2.29.7; open)" },
	{ 22900, 0, RAS_REQ_VERBOSE, RAS_WHEN_INIT, 2346,
	  "a status query while communicators were being created crashed 256-GPU jobs (2.29.7; open)" },
};
const int ras_nhazards = (int)(sizeof(ras_hazards) / sizeof(ras_hazards[0]));

const char *ras_req_name(enum ras_req q)
{
	switch (q) {
	case RAS_REQ_STATUS: return "STATUS";
	case RAS_REQ_VERBOSE: return "VERBOSE STATUS";
	case RAS_REQ_MONITOR: return "MONITOR";
	case RAS_REQ_SET_FORMAT: return "SET FORMAT json";
	}
	return "?";
}

double ras_interval(double window)
{
	return window > 0 && window < RAS_MIN_INTERVAL ? window : RAS_MIN_INTERVAL;
}

/* A hazard that applies to req on version (0: unknown, so every range). */
static bool hazard_applies(const struct ras_hazard *h, enum ras_req req, int version)
{
	if (h->req != req)
		return false;
	if (!version)
		return true;
	return version >= h->lo && (h->hi == 0 || version <= h->hi);
}

/* "#1669, #1718" for the INIT entries that apply: the reason the age rule
 * and the back-off name. */
static void init_issues(enum ras_req req, int version, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 0; i < ras_nhazards; i++) {
		const struct ras_hazard *h = &ras_hazards[i];
		if (h->when != RAS_WHEN_INIT || !hazard_applies(h, req, version) || o >= len)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%sNVIDIA/nccl#%d", o ? ", " : "", h->issue);
	}
	if (!buf[0])
		snprintf(buf, len, "NVIDIA/nccl#1669");
}

static bool refuse(double *next, double when, char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static bool refuse(double *next, double when, char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	*next = when;
	return false;
}

/* The table's entries that forbid req outright for this job. */
static bool table_forbids(enum ras_req req, const struct ras_gate_in *in, char *why, size_t len)
{
	for (int i = 0; i < ras_nhazards; i++) {
		const struct ras_hazard *h = &ras_hazards[i];
		if (!hazard_applies(h, req, in->version))
			continue;
		bool large = in->gpus < 0 || in->gpus >= RAS_LARGE_GPUS;
		if (h->when == RAS_WHEN_ALWAYS || (h->when == RAS_WHEN_LARGE && large)) {
			char n[48];
			if (in->gpus >= 0)
				snprintf(n, sizeof(n), "a %d-GPU job", in->gpus);
			else
				snprintf(n, sizeof(n), "a job of unknown size");
			snprintf(why, len, "%s not sent to %s on %s: %s (NVIDIA/nccl#%d)",
				 ras_req_name(req), n, in->version ? "this NCCL" : "an NCCL of unknown version",
				 h->what, h->issue);
			return true;
		}
	}
	return false;
}

bool ras_gate(enum ras_req req, const struct ras_gate_in *in, double *next, char *why, size_t len)
{
	char issues[96];
	*next = -1;
	why[0] = '\0';
	if (in->ras_off)
		return refuse(next, -1, why, len, "RAS is off in this job (NCCL_RAS_ENABLE=0): not asked");
	if (req == RAS_REQ_VERBOSE && !in->verbose_asked)
		return refuse(next, -1, why, len, "VERBOSE STATUS is only sent when asked (--verbose)");
	if (req == RAS_REQ_MONITOR && in->version && in->version < 22900)
		return refuse(next, -1, why, len, "MONITOR needs NCCL 2.29 or later; this job runs %d.%d.%d",
			      in->version / 10000, in->version / 100 % 100, in->version % 100);
	if (req == RAS_REQ_SET_FORMAT && in->version && in->version < 22807)
		return refuse(next, -1, why, len, "JSON needs NCCL 2.28.7 or later: the text report is read");
	if (table_forbids(req, in, why, len)) {
		*next = -1;
		return false;
	}
	init_issues(req == RAS_REQ_VERBOSE ? RAS_REQ_VERBOSE : RAS_REQ_STATUS, in->version,
		    issues, sizeof(issues));
	if (in->youngest_age >= 0 && in->youngest_age < RAS_MIN_AGE)
		return refuse(next, in->now + (RAS_MIN_AGE - in->youngest_age), why, len,
			      "the job's NCCL processes started %.0f s ago: no query before %.0f s "
			      "(queries during communicator init crashed jobs: %s)",
			      in->youngest_age, RAS_MIN_AGE, issues);
	if (req == RAS_REQ_MONITOR || req == RAS_REQ_SET_FORMAT)
		return true;
	if (in->last_saw_init && in->last_query >= 0 && in->now < in->last_query + in->window)
		return refuse(next, in->last_query + in->window, why, len,
			      "the last reply showed communicators in INIT: no query until the next "
			      "window (%.0f s; %s)", in->window, issues);
	if (in->last_query >= 0 && in->now < in->last_query + in->interval)
		return refuse(next, in->last_query + in->interval, why, len,
			      "at most one query per %.0f s", in->interval);
	return true;
}

/* ---- where the server is ---- */

int ras_addr_parse(const char *s, struct ras_addr *a)
{
	if (!s)
		return -1;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return -1;
	char tmp[300];
	snprintf(tmp, sizeof(tmp), "%s", s);
	tmp[strcspn(tmp, " \t\r\n")] = '\0';
	char *host = tmp, *port = NULL;
	char *lt = strchr(tmp, '<');
	if (lt) {                                   /* the log's "::1<28028>" */
		*lt = '\0';
		port = lt + 1;
		port[strcspn(port, ">")] = '\0';
	} else if (tmp[0] == '[') {                 /* "[fe80::1]:28028" */
		char *rb = strchr(tmp, ']');
		if (!rb)
			return -1;
		*rb = '\0';
		host = tmp + 1;
		if (rb[1] == ':')
			port = rb + 2;
	} else {
		char *c = strrchr(tmp, ':');
		if (c && strchr(tmp, ':') == c) {   /* one colon: host:port */
			*c = '\0';
			port = c + 1;
		}
	}
	if (!*host)
		return -1;
	if (port && (!*port || strspn(port, "0123456789") != strlen(port) || strlen(port) > 5))
		return -1;
	snprintf(a->host, sizeof(a->host), "%s", host);
	snprintf(a->port, sizeof(a->port), "%s", port ? port : RAS_DEFAULT_PORT);
	return 0;
}

/* ---- the client ---- */

void ras_xfer_free(struct ras_xfer *x)
{
	free(x->reply);
	x->reply = NULL;
	x->len = 0;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fail(struct ras_xfer *x, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct ras_xfer *x, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->why, sizeof(x->why), fmt, ap);
	va_end(ap);
	x->err = err;
	return -1;
}

/* Waits until fd is ready for ev or the deadline passes: 1, 0 on timeout,
 * -errno. */
/* The calling thread's cancel descriptor (ras_cancel_on): readable means
 * "stop now". Per thread, so each worker of the pane has its own. */
static __thread int cancel_fd = -1;

void ras_cancel_on(int fd)
{
	cancel_fd = fd;
}

static int wait_fd(int fd, short ev, double deadline)
{
	for (;;) {
		double left = deadline - mono();
		if (left <= 0)
			return 0;
		struct pollfd pf[2] = { { .fd = fd, .events = ev }, { .fd = cancel_fd, .events = POLLIN } };
		int r = poll(pf, cancel_fd >= 0 ? 2 : 1, (int)ceil(left * 1000));
		if (r > 0 && cancel_fd >= 0 && (pf[1].revents & POLLIN))
			return -ECANCELED;
		if (r > 0)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

static int connect_one(const struct addrinfo *ai, int netns_pid, double timeout_s)
{
	int fd = netns_pid > 0 ? job_netns_socket(netns_pid, ai->ai_family, ai->ai_socktype, ai->ai_protocol)
			       : socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0)
		return netns_pid > 0 ? fd : -errno;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		int e = errno;
		if (e != EINPROGRESS) {
			close(fd);
			return -e;
		}
		int r = wait_fd(fd, POLLOUT, mono() + timeout_s);
		socklen_t sl = sizeof(e);
		if (r <= 0) {
			close(fd);
			return r == 0 ? -ETIMEDOUT : r;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl) != 0 || e) {
			close(fd);
			return -(e ? e : EIO);
		}
	}
	return fd;
}

static int send_line(int fd, const char *line, double deadline)
{
	size_t n = strlen(line), done = 0;
	while (done < n) {
		int r = wait_fd(fd, POLLOUT, deadline);
		if (r <= 0)
			return r == 0 ? -ETIMEDOUT : r;
		ssize_t w = send(fd, line + done, n - done, MSG_NOSIGNAL);
		if (w < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
		if (w > 0)
			done += (size_t)w;
	}
	return 0;
}

/* Reads one reply line ("SERVER PROTOCOL 2", "OK") into line, without its
 * '\n': 0, -ECONNRESET when the server closed first, -ETIMEDOUT. The
 * server answers one line per command and nothing before it, so reading
 * byte by byte costs a few calls and leaves nothing behind. */
static int read_line(int fd, char *line, size_t len, double deadline)
{
	size_t o = 0;
	for (;;) {
		int r = wait_fd(fd, POLLIN, deadline);
		if (r <= 0)
			return r == 0 ? -ETIMEDOUT : r;
		char c;
		ssize_t n = recv(fd, &c, 1, 0);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (c == '\n')
			break;
		if (o + 1 < len)
			line[o++] = c;
	}
	if (o && line[o - 1] == '\r')
		o--;
	line[o] = '\0';
	return 0;
}

/* The report after the request: until the server closes, each read within
 * the read timeout, the whole within the overall deadline, at most
 * RAS_REPLY_MAX bytes (the rest is left unread and said so). */
static int read_reply(int fd, struct ras_xfer *x, double timeout_s, double deadline)
{
	size_t cap = 0;
	for (;;) {
		double d = mono() + timeout_s;
		int r = wait_fd(fd, POLLIN, d < deadline ? d : deadline);
		if (r <= 0)
			return r == 0 ? -ETIMEDOUT : r;
		if (x->len == cap) {
			if (cap >= RAS_REPLY_MAX) {
				x->truncated = true;
				return 0;
			}
			size_t nc = cap ? cap * 2 : 16384;
			char *nb = realloc(x->reply, nc + 1);
			if (!nb)
				return -ENOMEM;
			x->reply = nb;
			cap = nc;
		}
		ssize_t n = recv(fd, x->reply + x->len, cap - x->len, 0);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		x->len += (size_t)n;
	}
	if (x->reply)
		x->reply[x->len] = '\0';
	return 0;
}

/* The exchange over a connected socket; 0 or -1 with x->err, x->why. */
static int handshake(int fd, bool want_json, double timeout_s, struct ras_xfer *x);

static int converse(int fd, enum ras_req req, bool want_json, double timeout_s, struct ras_xfer *x)
{
	char cmd[64];
	/* The server is silent while it gathers from the job: up to TIMEOUT
	 * per leg, plus NCCL's 5 s extra when a peer does not answer (its own
	 * client waits as long): each read of the report waits that long. */
	double reply_timeout = 2 * timeout_s + 7;
	double deadline = mono() + 3 * timeout_s + reply_timeout + 10;   /* the whole exchange */
	if (handshake(fd, want_json, timeout_s, x) != 0)
		return -1;
	const char *step = ras_req_name(req);
	snprintf(cmd, sizeof(cmd), "%s\n", step);
	int e = send_line(fd, cmd, mono() + timeout_s);
	if (!e)
		e = read_reply(fd, x, reply_timeout, deadline);
	if (e == -ETIMEDOUT)
		return fail(x, ETIMEDOUT, "no complete answer to %s (read timeout %.0f s)", step, reply_timeout);
	if (e)
		return fail(x, -e, "%s: %s", step, strerror(-e));
	if (!x->len)
		return fail(x, ECONNRESET, "the server closed the connection without answering %s", step);
	return 0;
}

/* The handshake up to (not including) the request: CLIENT PROTOCOL,
 * TIMEOUT, SET FORMAT json when want_json. 0 or -1 with x->err, x->why. */
static int handshake(int fd, bool want_json, double timeout_s, struct ras_xfer *x)
{
	char line[256], cmd[64];
	int e = send_line(fd, "CLIENT PROTOCOL 2\n", mono() + timeout_s);
	if (!e)
		e = read_line(fd, line, sizeof(line), mono() + timeout_s);
	if (e == -ETIMEDOUT)
		return fail(x, ETIMEDOUT, "connected, but no answer to CLIENT PROTOCOL within %.0f s", timeout_s);
	if (e == -ECONNRESET)
		return fail(x, ECONNRESET, "the server closed the connection before the handshake");
	if (e)
		return fail(x, -e, "handshake: %s", strerror(-e));
	if (strncasecmp(line, "SERVER PROTOCOL ", 16) != 0) {
		char s[80];
		fab_sanitize(line, s, sizeof(s));
		return fail(x, EPROTO, "not a RAS server: answered \"%s\" to CLIENT PROTOCOL", s);
	}
	snprintf(x->server_protocol, sizeof(x->server_protocol), "%.31s", line + 16);
	snprintf(cmd, sizeof(cmd), "TIMEOUT %d\n", (int)ceil(timeout_s));
	const char *step = "TIMEOUT";
	e = send_line(fd, cmd, mono() + timeout_s);
	if (!e)
		e = read_line(fd, line, sizeof(line), mono() + timeout_s);
	if (!e && want_json) {
		step = "SET FORMAT";
		x->json_asked = true;
		e = send_line(fd, "SET FORMAT json\n", mono() + timeout_s);
		if (!e)
			e = read_line(fd, line, sizeof(line), mono() + timeout_s);
		/* "ERROR: Unknown command SET FORMAT json": a release before
		 * 2.28.7, which then prints its text report. */
		if (!e && strcasecmp(line, "OK") != 0)
			x->json_refused = true;
	}
	if (e)
		return fail(x, e == -ECONNRESET ? ECONNRESET : -e, "%s: %s", step,
			    e == -ECONNRESET ? "the server closed the connection" : strerror(-e));
	return 0;
}

/* A connected socket to a (from inside netns_pid's namespace when > 0),
 * or -1 with x->err, x->why. */
/* Connects to one resolved host: each of its addresses in turn; an fd, or
 * -errno of the last failure (-ECONNREFUSED when there was none). */
static int dial_host(const char *host, const char *port, int flags, int netns_pid, double timeout_s,
		     struct ras_xfer *x)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = flags };
	struct addrinfo *res = NULL;
	int g = getaddrinfo(host, port, &hints, &res);
	if (g != 0) {
		fail(x, EHOSTUNREACH, "cannot resolve %s: %s", host, gai_strerror(g));
		return -EHOSTUNREACH;
	}
	int fd = -ECONNREFUSED;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		fd = connect_one(ai, netns_pid, timeout_s);
		if (fd >= 0)
			break;
	}
	freeaddrinfo(res);
	return fd;
}

/* A connected socket to a (from inside netns_pid's namespace when > 0),
 * or -1 with x->err, x->why. "localhost" is the loopback itself (RFC 6761),
 * ::1 then 127.0.0.1, never looked up: a minimal container's /etc/hosts
 * may not name it, and the job's namespace is not fabtop's. */
static int dial(const struct ras_addr *a, int netns_pid, double timeout_s, struct ras_xfer *x)
{
	int fd;
	if (strcasecmp(a->host, "localhost") == 0 || strcasecmp(a->host, "localhost.") == 0) {
		fd = dial_host("::1", a->port, AI_NUMERICHOST, netns_pid, timeout_s, x);
		if (fd < 0)
			fd = dial_host("127.0.0.1", a->port, AI_NUMERICHOST, netns_pid, timeout_s, x);
	} else {
		fd = dial_host(a->host, a->port, 0, netns_pid, timeout_s, x);
	}
	if (fd >= 0) {
		x->err = 0;
		x->why[0] = '\0';
		return fd;
	}
	if (fd == -EHOSTUNREACH)
		return -1;                      /* the lookup failed: said */
	if (fd == -ECONNREFUSED)
		return fail(x, ECONNREFUSED, "nothing listens on %s port %s%s", a->host, a->port,
			    netns_pid > 0 ? " in the job's network namespace" : "");
	if (fd == -EPERM && netns_pid > 0)
		return fail(x, EPERM, "cannot enter the job's network namespace (pid %d): "
			    "run as root, or give --ras with an address reachable from here", netns_pid);
	return fail(x, -fd, "connecting to %s port %s: %s", a->host, a->port, strerror(-fd));
}

int ras_monitor_open(const struct ras_addr *a, int netns_pid, bool want_json, double timeout_s,
		     struct ras_xfer *x)
{
	memset(x, 0, sizeof(*x));
	x->addr = *a;
	x->req = RAS_REQ_MONITOR;
	x->t_sent = mono();
	int fd = dial(a, netns_pid, timeout_s, x);
	if (fd < 0)
		return -1;
	char line[256];
	int e = handshake(fd, want_json, timeout_s, x);
	if (!e) {
		e = send_line(fd, "MONITOR\n", mono() + timeout_s);
		if (!e)
			e = read_line(fd, line, sizeof(line), mono() + timeout_s);
		if (e)
			e = fail(x, -e, "MONITOR: %s", strerror(-e));
		else if (strcasecmp(line, "OK") != 0) {
			char s[96];
			fab_sanitize(line, s, sizeof(s));
			e = fail(x, ENOTSUP, "MONITOR refused (NCCL 2.29 or later has it): %s", s);
		}
	}
	if (e) {
		close(fd);
		return -1;
	}
	return fd;
}

int ras_query(const struct ras_addr *a, int netns_pid, enum ras_req req, bool want_json,
	      double timeout_s, struct ras_xfer *x)
{
	memset(x, 0, sizeof(*x));
	x->addr = *a;
	x->req = req;
	double t0 = mono();
	x->t_sent = t0;
	if (req != RAS_REQ_STATUS && req != RAS_REQ_VERBOSE)
		return fail(x, EINVAL, "%s is not a query", ras_req_name(req));
	int fd = dial(a, netns_pid, timeout_s, x);
	if (fd < 0) {
		x->elapsed = mono() - t0;
		return -1;
	}
	int rc = converse(fd, req, want_json, timeout_s, x);
	close(fd);
	x->elapsed = mono() - t0;
	return rc;
}
