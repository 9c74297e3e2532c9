/*
 * ras_server - a stand-in for NCCL's RAS client port, for the tests of
 * the RAS client (issue 14). It speaks the client protocol byte for byte
 * as NCCL prints it (src/ras/client_support.cc of the release named by
 * --version: v2.24.3-1, v2.26.2-1, v2.28.7-1, v2.29.2-1 and master were
 * read), about a made-up job, so a test can check every verdict without a
 * GPU. No code of NCCL is copied; the strings and widths are facts of the
 * protocol.
 *
 *   ras_server --scenario NAME --version X.Y.Z [--port N] [--port-file F]
 *              [--log F] [--host0 IP] [--pid0 PID] [--bind ADDR]
 *
 * It listens on --bind (127.0.0.1) port --port (0: any); the port chosen
 * is written to --port-file (atomically: a temp file renamed), then it
 * serves. --log F gets one line per accepted connection, "<t> CONNECT",
 * and one per command line received, "<t> <the line>" ('\n' and one '\r'
 * before it taken off; control bytes shown as '?'), t being
 * CLOCK_MONOTONIC seconds with 3 decimals; each line is written at once,
 * so a test counts requests and checks their spacing while it runs.
 *
 * The job: 2 nodes x 4 GPUs, one process per GPU. Ranks 0-3 on --host0
 * (10.0.0.1) with pids --pid0 (4242), +1, +2, +3; ranks 4-7 on 10.0.0.2
 * with pids 5001-5004; rank r uses GPU r % 4 (CUDA and NVML numbers
 * alike). Communicator A (27a079b828ff1a75) has all 8 ranks, communicator
 * B (5d8e3b1a0c4f7e92) the 4 processes of the first node.
 *
 * The version sets what the server knows, as NCCL's releases do:
 *   < 2.26.0   one collective count per rank ("different collective
 *              operation counts", "The missing rank: 6"), status name
 *              UNKNOWN for ranks not in a communicator;
 *   >= 2.26.0  counts per collective (Broadcast, Reduce, AllGather,
 *              ReduceScatter, AllReduce), missing ranks named with GPU,
 *              process and node;
 *   >= 2.28.7  SET FORMAT text|json; the timing printed with 3 decimals
 *              instead of 2; below it "SET FORMAT json" is an unknown
 *              command. 2.28.x writes a missing rank's JSON without the
 *              comma after "nvml_dev" (invalid JSON, fixed in 2.29.2):
 *              reproduced, as a client meets it;
 *   >= 2.29.0  MONITOR [lifecycle|trace|all,...]; below it an unknown
 *              command.
 * Text: "NCCL version X.Y.Z+cuda12.4 compiled with CUDA 12.4".
 *
 * Scenarios; k is the number of STATUS requests received before this one
 * since the server started (VERBOSE STATUS counts too):
 *   healthy        all ranks equal, counts +100 per STATUS: RUNNING OK
 *   stuck          counts frozen; ranks 5 and 6 one AllReduce behind:
 *                  RUNNING MISMATCH, the Warnings name them
 *   dead           rank 6's process (pid 5003) considered dead, counts
 *                  frozen: DEAD, "#0-0 (...) INCOMPLETE"; JSON
 *                  missing_ranks with considered_dead true; a MONITOR
 *                  (lifecycle) gets a PEER_DEAD event for it 200 ms later
 *   init           communicator A only, all ranks initialising (JSON
 *                  init_state 7, text status INIT), no operation yet
 *   moving-mismatch  rank 3 one and rank 6 two AllReduce behind, all
 *                  advancing +100 per STATUS: MISMATCH that moves
 *   garbage        CLIENT PROTOCOL, TIMEOUT and SET FORMAT answered, then
 *                  STATUS (and MONITOR) get 600 random-looking bytes
 *                  (NULs, invalid UTF-8, newlines) and the close
 *   silent         accepts, reads and logs, never sends, never closes
 *   close-after-handshake  answers the first command as NCCL does
 *                  (SERVER PROTOCOL ...), then closes on the next one
 * As NCCL, the server closes after a STATUS report; commands after STATUS
 * in the same read are not served (NCCL would interleave their replies).
 * Not modelled: ERROR sections (initialisation or asynchronous errors),
 * TIMEOUT warnings, NOCOMM ranks, missing (not dead) processes.
 *
 * Several connections are served at once (poll). SIGTERM or SIGINT end it
 * with status 0; it dies with its parent (PR_SET_PDEATHSIG). Exit 2 on a
 * bad command line, 1 when it cannot listen.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define NPROC 8
#define NOPS 5          /* NCCL_NUM_FUNCTIONS */
#define MAXCLIENTS 64
#define RECVBUF 1024    /* NCCL's rasClient recvBuffer */
#define OUTLIER_FRACTION 0.25
#define VERBOSE_OUTLIER_FRACTION 0.5
#define DETAIL_THRESHOLD 10
#define EV_LIFECYCLE 0x01
#define EV_TRACE 0x02
#define EV_ALL 0xff
#define ST_INIT 2       /* NCCL's rasACStatus bits */
#define ST_RUNNING 4
#define ER_MISMATCH 1   /* rasACError bits */
#define ER_INCOMPLETE 4

/* ncclFuncStr / ncclFuncToString, in ncclFunc_t order */
static const char *const op_name[NOPS] = { "Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce" };
static const char *const error_str[] = { "OK", "MISMATCH", "ERROR", "ERROR,MISMATCH", "INCOMPLETE",
					 "INCOMPLETE,MISMATCH", "INCOMPLETE,ERROR", "INCOMPLETE,ERROR,MISMATCH" };

enum scenario { SC_HEALTHY, SC_STUCK, SC_DEAD, SC_INIT, SC_MOVING, SC_GARBAGE, SC_SILENT, SC_CLOSE };
static const char *const scenario_name[] = { "healthy", "stuck", "dead", "init", "moving-mismatch",
					      "garbage", "silent", "close-after-handshake" };

static enum scenario scen;
static char version[32];
static int vcode;                /* major*10000 + minor*100 + patch */
static char host0[64] = "10.0.0.1";
static const char host1[] = "10.0.0.2";
static int pid0 = 4242;
static int log_fd = -1;
static unsigned long nstatus;    /* STATUS requests served so far */
static volatile sig_atomic_t stop;

/* ---- the job ---- */

struct rank {
	int proc;                 /* process index 0..7; node = proc / 4; GPU = proc % 4 */
	int init_state;           /* ncclResult_t: 0 success, 7 in progress */
	unsigned long counts[NOPS];
};

struct comm {
	unsigned long hash, host_hash, pid_hash;
	int size;                 /* commNRanks */
	struct rank ranks[NPROC]; /* present ranks by comm rank; missing ones have proc -1 */
	/* derived, as rasClientRunComms works them out */
	int nranks, nnodes, rpn_min, rpn_max, nincomplete;
	unsigned status, errors;
};

struct job {
	struct comm comms[2];
	int ncomms;
	bool dead[NPROC];
	int ndead;
};

static const char *proc_host(int p) { return p < 4 ? host0 : host1; }
static int proc_pid(int p) { return p < 4 ? pid0 + p : 5001 + (p - 4); }
static int proc_gpu(int p) { return p % 4; }

/* The job as the scenario has it at its k-th STATUS. */
static void job_state(struct job *j, unsigned long k)
{
	static const int moving_lag[NPROC] = { 0, 0, 0, 1, 0, 0, 2, 0 };
	bool frozen = scen == SC_STUCK || scen == SC_DEAD;
	unsigned long step = frozen ? 0 : k;

	memset(j, 0, sizeof(*j));
	j->ncomms = scen == SC_INIT ? 1 : 2;
	struct comm *a = &j->comms[0], *b = &j->comms[1];
	a->hash = 0x27a079b828ff1a75ul; a->host_hash = 0x8a3f1c2b9d0e4f57ul; a->pid_hash = 0x1b2c3d4e5f607182ul;
	a->size = 8;
	b->hash = 0x5d8e3b1a0c4f7e92ul; b->host_hash = 0x8a3f1c2b9d0e4f57ul; b->pid_hash = 0x2c3d4e5f60718293ul;
	b->size = 4;
	for (int r = 0; r < 8; r++) {
		struct rank *x = &a->ranks[r];
		x->proc = r;
		if (scen == SC_INIT) {
			x->init_state = 7;
			continue;
		}
		x->counts[0] = 1;
		x->counts[4] = 1000 + 100 * step;
		if (scen == SC_STUCK && (r == 5 || r == 6))
			x->counts[4] -= 1;
		if (scen == SC_MOVING)
			x->counts[4] -= moving_lag[r];
	}
	for (int r = 0; r < 4; r++) {
		struct rank *x = &b->ranks[r];
		x->proc = r;
		x->counts[0] = 1;
		x->counts[2] = 500 + 100 * step;
	}
	if (scen == SC_DEAD) {
		j->dead[6] = true;
		j->ndead = 1;
		a->ranks[6].proc = -1;
	}
}

/* ---- output buffer (NCCL's rasOutAppend) ---- */

struct out {
	char *p;
	size_t n, cap;
};

static void outf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void outf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int need = vsnprintf(o->p ? o->p + o->n : NULL, o->p ? o->cap - o->n : 0, fmt, ap);
		va_end(ap);
		if (need < 0)
			return;
		if (o->p && (size_t)need < o->cap - o->n) {
			o->n += need;
			return;
		}
		size_t cap = o->cap ? o->cap : 4096;
		while (cap < o->n + need + 1)
			cap *= 2;
		char *p = realloc(o->p, cap);
		if (!p)
			return;
		o->p = p;
		o->cap = cap;
	}
}

static bool send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		len -= w;
	}
	return true;
}

/* Sends what o holds as one message and empties it. */
static bool out_flush(struct out *o, int fd)
{
	bool ok = send_all(fd, o->p ? o->p : "", o->n);
	o->n = 0;
	return ok;
}

/* ---- the report ---- */

static bool outlier(int count, bool verbose, int total)
{
	if (count == 1)
		return true;
	if (verbose)
		return total != -1 ? count < total * VERBOSE_OUTLIER_FRACTION : true;
	return count <= DETAIL_THRESHOLD && (total == -1 || count <= total * OUTLIER_FRACTION);
}

static int high_bit(unsigned v) { return 31 - __builtin_clz(v); }

/* A rank's count as the release has it: one for all types before 2.26. */
static unsigned long rank_count(const struct rank *x, int op)
{
	if (vcode >= 22600)
		return x->counts[op];
	unsigned long s = 0;
	for (int i = 0; i < NOPS; i++)
		s += x->counts[i];
	return s;
}

static int nops(void) { return vcode >= 22600 ? NOPS : 1; }

static void comm_derive(struct comm *c)
{
	int pernode[2] = { 0, 0 };
	c->nranks = c->nincomplete = 0;
	c->status = c->errors = 0;
	const struct rank *first = NULL;
	for (int r = 0; r < c->size; r++) {
		const struct rank *x = &c->ranks[r];
		if (x->proc < 0) {
			/* the process is dead: no data, not a NOCOMM */
			c->errors |= ER_INCOMPLETE;
			c->nincomplete++;
			continue;
		}
		c->nranks++;
		pernode[x->proc / 4]++;
		c->status |= x->init_state == 0 ? ST_RUNNING : ST_INIT;
		if (!first)
			first = x;
		for (int op = 0; op < nops(); op++)
			if (rank_count(x, op) != rank_count(first, op))
				c->errors |= ER_MISMATCH;
	}
	c->nnodes = 0;
	c->rpn_min = 64;
	c->rpn_max = 0;
	for (int n = 0; n < 2; n++) {
		if (!pernode[n])
			continue;
		c->nnodes++;
		if (pernode[n] < c->rpn_min)
			c->rpn_min = pernode[n];
		if (pernode[n] > c->rpn_max)
			c->rpn_max = pernode[n];
	}
	if (__builtin_popcount(c->status) > 1)
		c->errors |= ER_MISMATCH;
}

/* rasAuxCommsCompareRev: the largest first. */
static int comm_cmp(const void *p1, const void *p2)
{
	const struct comm *a = *(const struct comm *const *)p1, *b = *(const struct comm *const *)p2;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	if (a->nnodes != b->nnodes)
		return a->nnodes > b->nnodes ? -1 : 1;
	int s1 = __builtin_clz(a->status), s2 = __builtin_clz(b->status);
	if (s1 != s2)
		return s1 < s2 ? -1 : 1;
	if (a->errors != b->errors)
		return a->errors > b->errors ? -1 : 1;
	if (a->nranks != b->nranks)
		return a->nranks < b->nranks ? -1 : 1;
	return 0;
}

struct valcount {
	unsigned long value;
	int count, first;
};

/* rasValCountsCompareRev: the most frequent first, then the larger value. */
static int vc_cmp(const void *p1, const void *p2)
{
	const struct valcount *a = p1, *b = p2;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->value > b->value ? -1 : a->value < b->value ? 1 : 0;
}

struct rankval {
	int rank, proc;
	unsigned long value;
};

static int rv_cmp(const void *p1, const void *p2)
{
	const struct rankval *a = p1, *b = p2;
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static void mismatch_counts(struct out *o, const struct comm *c, int op, bool verbose)
{
	struct rankval rv[NPROC];
	struct valcount vc[NPROC];
	int n = 0, nvc = 0;
	for (int r = 0; r < c->size; r++)
		if (c->ranks[r].proc >= 0)
			rv[n++] = (struct rankval){ r, c->ranks[r].proc, rank_count(&c->ranks[r], op) };
	bool inconsistent = false;
	for (int i = 1; i < n; i++)
		inconsistent |= rv[i].value != rv[0].value;
	if (!inconsistent)
		return;
	if (vcode >= 22600)
		outf(o, "  Communicator ranks have different %s operation counts\n", op_name[op]);
	else
		outf(o, "  Communicator ranks have different collective operation counts\n");
	qsort(rv, n, sizeof(rv[0]), rv_cmp);
	for (int i = 0; i < n; i++) {
		if (i == 0 || rv[i].value != rv[i - 1].value)
			vc[nvc++] = (struct valcount){ rv[i].value, 1, i };
		else
			vc[nvc - 1].count++;
	}
	qsort(vc, nvc, sizeof(vc[0]), vc_cmp);
	bool none_form = vcode >= 22600; /* "not launched any operations" since 2.26 */
	for (int g = 0; g < nvc; g++) {
		const struct valcount *v = &vc[g];
		if (v->count > 1) {
			if (v->value > 0 || !none_form)
				outf(o, "  %d ranks have launched up to operation %lu\n", v->count, v->value);
			else
				outf(o, "  %d ranks have not launched any operations\n", v->count);
		}
		if (!outlier(v->count, verbose, c->size))
			continue;
		for (int i = v->first; i < v->first + v->count; i++) {
			int p = rv[i].proc;
			if (v->count > 1)
				outf(o, "  Rank %d -- GPU %d managed by process %d on node %s\n", rv[i].rank,
				     proc_gpu(p), proc_pid(p), proc_host(p));
			else if (v->value > 0 || !none_form)
				outf(o, "  Rank %d has launched up to operation %lu -- GPU %d managed by process %d "
					"on node %s\n", rv[i].rank, v->value, proc_gpu(p), proc_pid(p), proc_host(p));
			else
				outf(o, "  Rank %d has not launched any operations -- GPU %d managed by process %d "
					"on node %s\n", rv[i].rank, proc_gpu(p), proc_pid(p), proc_host(p));
		}
	}
	outf(o, "\n");
}

static const char *ts_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, len, "%F %T", &tm);
	return buf;
}

/* rasDumpCommsToJSON and the json* writers. */
static void report_json(struct out *o, const struct job *j)
{
	char ts[64];
	outf(o, "{\n");
	outf(o, "  \"nccl_version\": \"%s+cuda12.4\",\n", version);
	outf(o, "  \"cuda_runtime_version\": %d,\n", 12040);
	outf(o, "  \"cuda_driver_version\": %d,\n", 12080);
	outf(o, "  \"timestamp\": \"%s\",\n", ts_now(ts, sizeof(ts)));
	outf(o, "  \"communicators_count\": %d,\n", j->ncomms);
	outf(o, "  \"communicators\": [\n");
	for (int ci = 0; ci < j->ncomms; ci++) {
		const struct comm *c = &j->comms[ci];
		if (ci)
			outf(o, ",\n");
		outf(o, "    {\n");
		outf(o, "      \"hash\": \"0x%lx\",\n", c->hash);
		outf(o, "      \"secondary_hash\": \"0x%lx:0x%lx\",\n", c->host_hash, c->pid_hash);
		outf(o, "      \"size\": %d,\n", c->size);
		outf(o, "      \"ranks_count\": %d,\n", c->nranks);
		outf(o, "      \"missing_ranks_count\": %d,\n", c->size - c->nranks);
		outf(o, "      \"ranks\": [\n");
		bool first = true;
		for (int r = 0; r < c->size; r++) {
			const struct rank *x = &c->ranks[r];
			int p = x->proc;
			if (p < 0)
				continue;
			if (!first)
				outf(o, ",\n");
			first = false;
			outf(o, "        {\n");
			outf(o, "          \"rank\": %d,\n", r);
			outf(o, "          \"host\": \"%s\",\n", proc_host(p));
			outf(o, "          \"pid\": %d,\n", proc_pid(p));
			outf(o, "          \"cuda_dev\": %d,\n", proc_gpu(p));
			outf(o, "          \"nvml_dev\": %d,\n", proc_gpu(p));
			outf(o, "          \"status\": {\n");
			outf(o, "            \"init_state\": %d,\n", x->init_state);
			outf(o, "            \"async_error\": %d,\n", 0);
			outf(o, "            \"finalize_called\": %s,\n", "false");
			outf(o, "            \"destroy_flag\": %s,\n", "false");
			outf(o, "            \"abort_flag\": %s\n", "false");
			outf(o, "          },\n");
			outf(o, "          \"collective_counts\": {\n");
			for (int op = 0; op < NOPS; op++) {
				outf(o, "            \"%s\": %lu", op_name[op], x->counts[op]);
				if (op < NOPS - 1)
					outf(o, ",");
				outf(o, "\n");
			}
			outf(o, "          }\n");
			outf(o, "        }");
		}
		outf(o, "\n      ],\n");
		outf(o, "      \"missing_ranks\": [\n");
		first = true;
		for (int r = 0; r < c->size; r++) {
			if (c->ranks[r].proc >= 0)
				continue;
			int p = r; /* communicator A: rank r is process r */
			if (!first)
				outf(o, ",\n");
			first = false;
			outf(o, "        {\n");
			outf(o, "          \"rank\": %d,\n", r);
			outf(o, "          \"host\": \"%s\",\n", proc_host(p));
			outf(o, "          \"pid\": %d,\n", proc_pid(p));
			outf(o, "          \"cuda_dev\": %d,\n", proc_gpu(p));
			/* 2.28.x leaves the comma out (fixed in 2.29.2) */
			outf(o, "          \"nvml_dev\": %d%s\n", proc_gpu(p), vcode < 22902 ? "" : ",");
			outf(o, "          \"status\": {\n");
			outf(o, "            \"unresponsive\": %s,\n", "true");
			outf(o, "            \"considered_dead\": %s\n", j->dead[p] ? "true" : "false");
			outf(o, "          }\n");
			outf(o, "        }");
		}
		outf(o, "\n      ]\n");
		outf(o, "    }");
	}
	outf(o, "\n  ],\n");
	outf(o, "  \"ras\": {\n");
	outf(o, "    \"collection_time_sec\": %.3f,\n", 0.01);
	outf(o, "    \"timeouts_count\": %d\n", 0);
	outf(o, "  }\n");
	outf(o, "}\n");
}

/* rasClientRunInit + rasClientRunComms, text or JSON, sent in the pieces
 * NCCL sends them in (the communicators' part after the collective's
 * 10 ms). */
static bool report(int fd, bool json, bool verbose)
{
	struct job j;
	struct out o = { 0 };
	bool ok = true;
	job_state(&j, nstatus++);
	for (int c = 0; c < j.ncomms; c++)
		comm_derive(&j.comms[c]);

	if (json) {
		report_json(&o, &j);
		usleep(10000);
		ok = out_flush(&o, fd);
		free(o.p);
		return ok;
	}
	outf(&o, "NCCL version %s+cuda12.4 compiled with CUDA 12.4\n", version);
	outf(&o, "CUDA runtime version %d, driver version %d\n\n", 12040, 12080);
	ok = ok && out_flush(&o, fd);
	outf(&o, "Job summary\n===========\n\n");
	outf(&o, "  Nodes  Processes         GPUs  Processes     GPUs\n"
		 "(total)   per node  per process    (total)  (total)\n"
		 "%7d  %9d  %11d  %9d  %7d\n", 2, 4, 1, NPROC, NPROC);
	outf(&o, "\nCommunicators...");
	ok = ok && out_flush(&o, fd);
	usleep(10000);
	outf(&o, vcode >= 22807 ? " (%.3fs)\n=============\n\n" : " (%.2fs)\n=============\n\n", 0.01);

	/* the group table, the largest communicators first */
	struct comm *sorted[2];
	for (int c = 0; c < j.ncomms; c++)
		sorted[c] = &j.comms[c];
	qsort(sorted, j.ncomms, sizeof(sorted[0]), comm_cmp);
	struct valcount groups[2];
	int ngroups = 0;
	for (int c = 0; c < j.ncomms; c++) {
		if (c == 0 || comm_cmp(&sorted[c], &sorted[c - 1]) != 0 || sorted[c]->nranks != sorted[c - 1]->nranks)
			groups[ngroups++] = (struct valcount){ 0, 1, c };
		else
			groups[ngroups - 1].count++;
	}
	if (j.ncomms > 0)
		outf(&o, "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
			 "    #  in group  per comm  per node  per comm  in group\n");
	else
		outf(&o, "No communicator data collected!\n");
	for (int g = 0; g < ngroups; g++) {
		const struct comm *c0 = sorted[groups[g].first];
		int mn = 64, mx = 0, total = 0;
		unsigned procs = 0;
		for (int c = groups[g].first; c < groups[g].first + groups[g].count; c++) {
			const struct comm *c1 = sorted[c];
			mn = c1->rpn_min < mn ? c1->rpn_min : mn;
			mx = c1->rpn_max > mx ? c1->rpn_max : mx;
			for (int r = 0; r < c1->size; r++)
				if (c1->ranks[r].proc >= 0)
					procs |= 1u << c1->ranks[r].proc;
		}
		total = __builtin_popcount(procs);
		char rpn[32];
		if (mn == mx)
			snprintf(rpn, sizeof(rpn), "%d", mn);
		else
			snprintf(rpn, sizeof(rpn), "%d-%d", mn, mx);
		static const char *const status_str[] = { "NOCOMM", "INIT", "RUNNING", "FINALIZE", "ABORT" };
		const char *st = status_str[high_bit(c0->status)];
		if (vcode < 22600 && high_bit(c0->status) == 0)
			st = "UNKNOWN";
		outf(&o, "%5d  %8d  %8d  %8s  %8d  %8d  %8s  %6s\n", g, groups[g].count, c0->nnodes, rpn, c0->size,
		     total, st, error_str[c0->errors]);
	}
	ok = ok && out_flush(&o, fd);

	outf(&o, "\nErrors\n======\n\n");
	if (j.ndead > 0) {
		outf(&o, "DEAD\n  %d job process%s considered dead (unreachable via the RAS network)\n", j.ndead,
		     j.ndead > 1 ? "es are" : " is");
		if (outlier(j.ndead, verbose, -1))
			for (int p = 0; p < NPROC; p++)
				if (j.dead[p])
					outf(&o, "  Process %d on node %s managing GPU %d\n", proc_pid(p), proc_host(p),
					     proc_gpu(p));
		outf(&o, "\n");
	}
	for (int g = 0; g < ngroups; g++)
		for (int c = groups[g].first; c < groups[g].first + groups[g].count; c++) {
			const struct comm *cm = sorted[c];
			if (!(cm->errors & ER_INCOMPLETE))
				continue;
			outf(&o, "#%d-%d (%016lx) INCOMPLETE\n  Missing communicator data from %d rank%s\n", g,
			     c - groups[g].first, cm->hash, cm->nincomplete, cm->nincomplete > 1 ? "s" : "");
			if (outlier(cm->nincomplete, verbose, -1)) {
				if (vcode < 22600) {
					char line[256] = "";
					for (int r = 0, idx = 0; r < cm->size; r++) {
						if (cm->ranks[r].proc >= 0) {
							idx++;
							continue;
						}
						snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%d",
							 idx == r ? "" : ",", r);
					}
					outf(&o, "  The missing rank%s: %s\n", cm->nincomplete > 1 ? "s" : "", line);
				} else {
					for (int r = 0; r < cm->size; r++)
						if (cm->ranks[r].proc < 0)
							outf(&o, "  Rank %d -- GPU %d managed by process %d on node %s\n", r,
							     proc_gpu(r), proc_pid(r), proc_host(r));
				}
			}
			outf(&o, "\n");
		}
	ok = ok && out_flush(&o, fd);

	outf(&o, "Warnings\n========\n\n");
	for (int g = 0; g < ngroups; g++)
		for (int c = groups[g].first; c < groups[g].first + groups[g].count; c++) {
			const struct comm *cm = sorted[c];
			if (!(cm->errors & ER_MISMATCH))
				continue;
			outf(&o, "#%d-%d (%016lx) MISMATCH\n", g, c - groups[g].first, cm->hash);
			for (int op = 0; op < nops(); op++)
				mismatch_counts(&o, cm, op, verbose);
		}
	ok = ok && out_flush(&o, fd);
	free(o.p);
	return ok;
}

/* ---- MONITOR events (rasClientsNotifyEvent) ---- */

static bool send_peer_dead(int fd, bool json)
{
	char ts[64], msg[2048];
	int p = 6;
	ts_now(ts, sizeof(ts));
	if (json)
		snprintf(msg, sizeof(msg),
			 "{\n"
			 "  \"timestamp\": \"%s\",\n"
			 "  \"group\": \"%s\",\n"
			 "  \"event\": \"%s\",\n"
			 "  \"peer\": {\n"
			 "    \"host\": \"%s\",\n"
			 "    \"pid\": %d,\n"
			 "    \"cuda_devs\": [%d],\n"
			 "    \"nvml_devs\": [%d]\n"
			 "  },\n"
			 "  \"details\": \"%s\"\n"
			 "}\n",
			 ts, "LIFECYCLE", "PEER_DEAD", proc_host(p), proc_pid(p), proc_gpu(p), proc_gpu(p), "");
	else
		snprintf(msg, sizeof(msg), "[%s] %s: Process %d on node %s managing GPU %d %s\n", ts, "PEER_DEAD",
			 proc_pid(p), proc_host(p), proc_gpu(p), "");
	return send_all(fd, msg, strlen(msg));
}

/* ---- connections ---- */

struct client {
	int fd;
	char buf[RECVBUF];
	size_t len;
	bool json;
	bool greeted;             /* close-after-handshake: the first command was answered */
	unsigned monitor;         /* event groups asked for; 0: not monitoring */
	double event_due;         /* when the PEER_DEAD event goes out; 0: none */
};

static struct client clients[MAXCLIENTS];
static int nclients;

static double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void log_line(const char *what)
{
	if (log_fd < 0)
		return;
	char line[RECVBUF + 64];
	int n = snprintf(line, sizeof(line), "%.3f ", now_mono());
	for (const char *s = what; *s && n < (int)sizeof(line) - 2; s++)
		line[n++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
	line[n++] = '\n';
	if (write(log_fd, line, n) < 0) {
		/* a log that cannot be written is the test's to notice */
	}
}

static bool reply(struct client *c, const char *s) { return send_all(c->fd, s, strlen(s)); }

static bool send_garbage(int fd)
{
	unsigned char g[600];
	uint32_t x = 0x9e3779b9u ^ (uint32_t)nstatus;
	for (size_t i = 0; i < sizeof(g); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		g[i] = (unsigned char)x;
	}
	g[0] = 0xff; /* never the start of "NCCL version" or of "{" */
	g[100] = '\0';
	g[200] = '\n';
	return send_all(fd, g, sizeof(g));
}

/* One command line; false when the connection is to close. As
 * rasClientEventLoop handles it. */
static bool command(struct client *c, char *cmd)
{
	char line[RECVBUF + 64];
	log_line(cmd);
	if (scen == SC_SILENT)
		return true;
	if (scen == SC_CLOSE && c->greeted)
		return false;
	c->greeted = true;
	bool has_format = vcode >= 22807, has_monitor = vcode >= 22900;

	if (strncasecmp(cmd, "client protocol ", 16) == 0)
		return reply(c, "SERVER PROTOCOL 2\n");
	if (strncasecmp(cmd, "timeout ", 8) == 0) {
		char *end = NULL;
		int t = strtol(cmd + 8, &end, 10);
		if (t < 0 || !end || *end != '\0')
			snprintf(line, sizeof(line), "ERROR: Invalid timeout value %s\n", cmd + 8);
		else
			snprintf(line, sizeof(line), "OK\n");
		return reply(c, line);
	}
	if (has_format && strncasecmp(cmd, "set format ", 11) == 0) {
		const char *f = cmd + 11;
		if (strcasecmp(f, "text") == 0) {
			c->json = false;
			snprintf(line, sizeof(line), "OK\n");
		} else if (strcasecmp(f, "json") == 0) {
			c->json = true;
			snprintf(line, sizeof(line), "OK\n");
		} else {
			snprintf(line, sizeof(line), "ERROR: Invalid format %s\n", f);
		}
		return reply(c, line);
	}
	bool verbose = strcasecmp(cmd, "verbose status") == 0;
	if (verbose || strcasecmp(cmd, "status") == 0) {
		if (scen == SC_GARBAGE) {
			send_garbage(c->fd);
			nstatus++;
		} else
			report(c->fd, c->json, verbose);
		return false;
	}
	if (has_monitor && (strcasecmp(cmd, "monitor") == 0 || strncasecmp(cmd, "monitor ", 8) == 0)) {
		char *spec = cmd + 7, *save = NULL;
		unsigned mask = 0;
		while (*spec == ' ')
			spec++;
		const char *bad = NULL;
		for (char *t = *spec ? strtok_r(spec, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
			if (strcasecmp(t, "lifecycle") == 0)
				mask |= EV_LIFECYCLE;
			else if (strcasecmp(t, "trace") == 0)
				mask |= EV_TRACE;
			else if (strcasecmp(t, "all") == 0)
				mask |= EV_ALL;
			else {
				bad = t;
				break;
			}
		}
		if (bad) {
			snprintf(line, sizeof(line), "ERROR: Invalid event group '%s'\n", bad);
			return reply(c, line);
		}
		if (scen == SC_GARBAGE) {
			send_garbage(c->fd);
			return false;
		}
		c->monitor = mask ? mask : EV_LIFECYCLE;
		if (scen == SC_DEAD && (c->monitor & EV_LIFECYCLE) && c->event_due == 0)
			c->event_due = now_mono() + 0.2;
		return reply(c, "OK\n");
	}
	snprintf(line, sizeof(line), "ERROR: Unknown command %s\n", cmd);
	return reply(c, line);
}

static void drop(int i)
{
	close(clients[i].fd);
	clients[i] = clients[--nclients];
}

/* Reads what the client sent and serves its complete lines; false when
 * the connection is to close. */
static bool client_read(struct client *c)
{
	if (c->len == sizeof(c->buf))
		return false; /* a line longer than NCCL's buffer: NCCL terminates it */
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, MSG_DONTWAIT);
	if (n == 0)
		return false;
	if (n < 0)
		return errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK;
	c->len += n;
	char *cmd = c->buf, *end;
	while ((end = memchr(cmd, '\n', c->len - (cmd - c->buf))) != NULL) {
		*end = '\0';
		if (end > cmd && end[-1] == '\r')
			end[-1] = '\0';
		if (!command(c, cmd))
			return false;
		cmd = end + 1;
	}
	if (cmd == c->buf && c->len == sizeof(c->buf))
		return false;
	memmove(c->buf, cmd, c->len - (cmd - c->buf));
	c->len -= cmd - c->buf;
	return true;
}

static void on_signal(int sig) { (void)sig; stop = 1; }

static int usage(void)
{
	fprintf(stderr, "usage: ras_server --scenario NAME --version X.Y.Z [--port N] [--port-file F] [--log F] "
			"[--host0 IP] [--pid0 PID] [--bind ADDR]\n");
	return 2;
}

static int version_code(const char *s)
{
	int a, b, c, n = 0;
	if (sscanf(s, "%d.%d.%d%n", &a, &b, &c, &n) != 3 || s[n] != '\0' || a < 0 || b < 0 || b > 99 || c < 0 ||
	    c > 99)
		return 0;
	return a * 10000 + b * 100 + c;
}

static int write_port_file(const char *path, int port)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%d\n", port);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "scenario", required_argument, NULL, 's' }, { "version", required_argument, NULL, 'v' },
		{ "port", required_argument, NULL, 'p' },     { "port-file", required_argument, NULL, 'f' },
		{ "log", required_argument, NULL, 'l' },      { "host0", required_argument, NULL, 'h' },
		{ "pid0", required_argument, NULL, 'i' },     { "bind", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sname = NULL, *port_file = NULL, *log_path = NULL, *bind_addr = "127.0.0.1";
	long port = 0;
	pid_t parent = getppid();
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 's': sname = optarg; break;
		case 'v': snprintf(version, sizeof(version), "%s", optarg); break;
		case 'p': port = strtol(optarg, NULL, 10); break;
		case 'f': port_file = optarg; break;
		case 'l': log_path = optarg; break;
		case 'h': snprintf(host0, sizeof(host0), "%s", optarg); break;
		case 'i': pid0 = atoi(optarg); break;
		case 'b': bind_addr = optarg; break;
		default: return usage();
		}
	}
	if (!sname || !version[0] || optind != argc || port < 0 || port > 65535)
		return usage();
	vcode = version_code(version);
	if (!vcode) {
		fprintf(stderr, "ras_server: not a version: %s\n", version);
		return 2;
	}
	size_t k;
	for (k = 0; k < sizeof(scenario_name) / sizeof(scenario_name[0]); k++)
		if (strcmp(sname, scenario_name[k]) == 0)
			break;
	if (k == sizeof(scenario_name) / sizeof(scenario_name[0])) {
		fprintf(stderr, "ras_server: unknown scenario %s\n", sname);
		return 2;
	}
	scen = (enum scenario)k;

	/* never outlive the test that started it */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		return 0;
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (log_path) {
		log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (log_fd < 0) {
			perror(log_path);
			return 1;
		}
	}
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	if (inet_pton(AF_INET, bind_addr, &sin.sin_addr) != 1) {
		fprintf(stderr, "ras_server: not an IPv4 address: %s\n", bind_addr);
		return 2;
	}
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(lfd, 64) < 0) {
		perror("ras_server: listen");
		return 1;
	}
	socklen_t sl = sizeof(sin);
	getsockname(lfd, (struct sockaddr *)&sin, &sl);
	if (port_file && write_port_file(port_file, ntohs(sin.sin_port)) < 0) {
		perror(port_file);
		return 1;
	}

	while (!stop) {
		struct pollfd pf[MAXCLIENTS + 1];
		int timeout = -1;
		double t = now_mono();
		pf[0] = (struct pollfd){ .fd = lfd, .events = nclients < MAXCLIENTS ? POLLIN : 0 };
		for (int i = 0; i < nclients; i++) {
			pf[i + 1] = (struct pollfd){ .fd = clients[i].fd, .events = POLLIN };
			if (clients[i].event_due > 0) {
				int ms = clients[i].event_due > t ? (int)((clients[i].event_due - t) * 1000) + 1 : 0;
				if (timeout < 0 || ms < timeout)
					timeout = ms;
			}
		}
		int n = nclients;
		if (poll(pf, n + 1, timeout) < 0) {
			if (errno == EINTR)
				continue;
			perror("ras_server: poll");
			return 1;
		}
		/* the newest first, so drop() moving the last entry down skips none */
		for (int i = n - 1; i >= 0; i--) {
			struct client *c = &clients[i];
			bool keep = true;
			if (pf[i + 1].revents & (POLLIN | POLLHUP | POLLERR))
				keep = client_read(c);
			if (keep && c->event_due > 0 && now_mono() >= c->event_due) {
				c->event_due = 0;
				keep = send_peer_dead(c->fd, c->json);
			}
			if (!keep)
				drop(i);
		}
		if (pf[0].revents & POLLIN) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0) {
				struct timeval tv = { .tv_sec = 2 };
				setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
				clients[nclients++] = (struct client){ .fd = fd };
				log_line("CONNECT");
			}
		}
	}
	for (int i = nclients - 1; i >= 0; i--)
		drop(i);
	close(lfd);
	return 0;
}
