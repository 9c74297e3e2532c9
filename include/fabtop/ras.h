/*
 * ras.h - NCCL's RAS (2.24 and later), asked safely: which communicator of
 * a job is stuck, and which ranks lag.
 *
 * Every NCCL process runs a RAS thread; the threads form a mesh across the
 * job, and any one of them answers a client on NCCL_RAS_ADDR (default
 * localhost:28028) for the whole job. The protocol is NCCL's src/ras/
 * client.cc and client_support.cc: lines ending in '\n',
 *   C: CLIENT PROTOCOL 2      S: SERVER PROTOCOL 2
 *   C: TIMEOUT 5              S: OK
 *   C: SET FORMAT json        S: OK  (2.28.7+; older: "ERROR: Unknown command ...")
 *   C: STATUS                 S: the report, then the server closes
 *   C: MONITOR                S: OK, then one event per line (text) or one
 *                                JSON object per event, until closed (2.29+)
 *
 * Three parts, each its own file:
 *   - ras_parse.c: the parsers, pure functions over received bytes (the
 *     text report of every release, the JSON of 2.28.7+, MONITOR events);
 *     unknown lines, keys and replies mean an older or newer server, never
 *     an error. Unit-tested on public real transcripts, fuzzed.
 *   - ras.c: where the server is, the version table of known crashes, the
 *     gate every request passes, and the client (one connection at a time,
 *     connect and read timeouts, inside the job's network namespace).
 *   - ras_job.c: replies over time -> per communicator progress, stuck or
 *     not, lagging ranks, and the verdict `report job` and the Job pane print.
 */
#ifndef FABTOP_RAS_H
#define FABTOP_RAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RAS_DEFAULT_HOST "localhost"
#define RAS_DEFAULT_PORT "28028"
#define RAS_PROTOCOL 2
/* Never more than one query per this many seconds, unless the user's
 * --window is shorter (then the window sets the pace). */
#define RAS_MIN_INTERVAL 15.0
/* The confirmation window: counts frozen this long are stuck. */
#define RAS_DEFAULT_WINDOW 120.0
/* No query while an NCCL process of the job is younger than this: its
 * communicators may still be initialising, when queries crashed jobs. */
#define RAS_MIN_AGE 120.0
/* The most of one reply kept; beyond it the reply is cut (and says so). */
#define RAS_REPLY_MAX (16u << 20)
#define RAS_MAX_OPS 8

/* "2.26.5" -> 22605 (major*10000 + minor*100 + patch); 0 when not a version. */
int ras_version_code(const char *s);

/* ---- the parsed reply (ras_parse.c) ---- */

enum ras_format { RAS_FMT_UNKNOWN = 0, RAS_FMT_TEXT, RAS_FMT_JSON };

/* One collective type's count of one rank ("AllReduce" 6650). The text
 * format before 2.26 has one count for all types: name "". */
struct ras_count {
	char op[24];
	int64_t value;
};

struct ras_rank {
	int rank;                 /* rank in the communicator; -1 unknown */
	char host[64];            /* the node as RAS names it: its bootstrap IP ("172.16.64.210") */
	int pid;                  /* in the job's PID namespace; -1 unknown */
	int cuda_dev, nvml_dev;   /* -1 unknown */
	/* JSON status; -1/false when not given (text) */
	int init_state;           /* 0 ncclSuccess, 7 ncclInProgress (initialising), else an error */
	int async_error;
	bool finalize_called, destroy_flag, abort_flag;
	/* Missing from the reply: RAS could not get its data */
	bool missing, unresponsive, dead;
	char status[16];          /* text: "RUNNING", "INIT", "FINALIZE", "ABORT", "NOCOMM",
				   * "UNKNOWN" when named; "" otherwise */
	struct ras_count counts[RAS_MAX_OPS];
	int ncounts;              /* 0: counts not known for this rank */
};

/* A group of ranks with the same count of one collective type, as the text
 * format's MISMATCH warning prints them ("26 ranks have launched up to
 * operation 6650"); derived from the per-rank counts in JSON. */
struct ras_count_group {
	char op[24];              /* "" when the release has one count for all types */
	int64_t value;            /* 0 for "have not launched any operations" */
	int nranks;
};

struct ras_comm {
	char id[16];              /* text: "#0-0" when named in a detail section, "#0" for a
				   * group row standing for its comms; JSON: "" */
	char hash[24];            /* lower-case hex without 0x ("27a079b828ff1a75"); "" unknown */
	char secondary[48];       /* JSON secondary_hash; "" */
	int ncomms;               /* text group row: comms in the group; else 1 */
	int group_ranks;          /* text group row: "Ranks in group" (distinct GPUs of its
				   * comms); -1 otherwise */
	int size;                 /* ranks in the communicator; -1 unknown */
	int nnodes;               /* -1 unknown */
	char ranks_per_node[16];  /* text: "8", "7-8"; "" */
	char status[24];          /* "RUNNING", "INIT", "FINALIZE", "ABORT", "NOCOMM"; JSON: derived
				   * from the ranks (INIT if any initialises, ABORT if any aborted,
				   * FINALIZE if any finalises, else RUNNING) */
	char errors[40];          /* "OK", "MISMATCH", "INCOMPLETE,ERROR", ...; JSON: derived */
	struct ras_rank *ranks;   /* ranks with data and missing ones (missing = true); text:
				   * only the ranks the report names */
	int nranks;
	int nmissing;             /* missing ranks (JSON missing_ranks_count; text "Missing
				   * communicator data from N ranks") */
	struct ras_count_group *groups;  /* per op type, largest group first */
	int ngroups;
	bool counts_known;        /* groups describe all ranks (JSON, or a text MISMATCH section) */
	char notes[4][160];       /* text lines of its sections fabtop does not model */
	int nnotes;
};

/* A process the report names in its job-level Errors (INCOMPLETE, DEAD). */
struct ras_proc {
	int pid;
	char host[64];
	char gpus[32];            /* "5", "0,1", "1 (NVML 3)" */
	bool dead;                /* DEAD section, or considered_dead */
};

struct ras_reply {
	enum ras_format format;
	char nccl_version[32];    /* "2.26.2" (text: from "NCCL version 2.26.2+cuda12.4 ...") */
	int version;              /* ras_version_code(nccl_version); 0 unknown */
	char cuda_compiled[16];   /* text "compiled with CUDA 12.4"; "" */
	int cuda_runtime, cuda_driver;  /* -1 unknown */
	char timestamp[32];       /* JSON "timestamp"; "" */
	/* Job summary (text); JSON: derived from the ranks' hosts and pids */
	int nodes, processes, gpus;     /* -1 unknown */
	struct ras_comm *comms;
	int ncomms;
	struct ras_proc *procs;   /* missing and dead processes */
	int nprocs;
	/* How many the Errors section counts ("Missing communicator data from 12 job
	 * processes", "3 job processes are considered dead"): NCCL names only up to
	 * 10 of them, so procs may hold fewer. JSON: from the missing ranks. 0 when
	 * the Errors section has none; -1 when the report never got that far. */
	int nmissing_procs, ndead_procs;
	int timeouts;             /* communication timeouts while gathering; 0 */
	double collection_s;      /* -1 unknown */
	bool no_comms;            /* "No communicator data collected!" or an empty list */
	int unknown_lines;        /* text lines or JSON keys fabtop does not know: a newer server */
	bool truncated;           /* cut at RAS_REPLY_MAX, or ended mid-way (no closing brace) */
	char error[160];          /* why the bytes are not a report ("" when parsed) */
};

/* Parses one STATUS reply: the bytes the server sent after the STATUS
 * line until it closed (text or JSON, told apart by the first character
 * that is not white space). 0 when they are a report (fields not seen stay
 * unknown); -1 with r->error when they are not (garbage, empty, an
 * "ERROR: ..." line). Never reads outside buf; buf need not be
 * NUL-terminated. Free with ras_reply_free(). */
int ras_parse(const char *buf, size_t len, struct ras_reply *r);
void ras_reply_free(struct ras_reply *r);

/* One MONITOR event: text "[2025-12-19 13:07:07] PEER_DEAD: Process 1524345
 * on node 172.16.64.245 managing GPU 1" or its JSON object. */
struct ras_event {
	char time[32];            /* "2025-12-19 13:07:07" */
	char group[16];           /* "LIFECYCLE", "TRACE"; "" in text */
	char event[32];           /* "PEER_DEAD", "PEER_NEW", "PEER_CONNECTING", ... */
	int pid;                  /* -1 unknown */
	char host[64];            /* or the address when the peer is unknown */
	char gpus[32];            /* "1", "0,1"; "" */
	char details[160];
};

/* Parses the events complete in buf[0..len): returns how many were written
 * to ev (up to max) and sets *used to the bytes consumed (a partial line or
 * object stays for the next call). Lines that are not events (the "OK"
 * line, blank lines, unknown text) are consumed and skipped. */
int ras_parse_events(const char *buf, size_t len, struct ras_event *ev, int max, size_t *used);

/* ---- the version table and the gate (ras.c) ---- */

enum ras_req {
	RAS_REQ_STATUS = 0,
	RAS_REQ_VERBOSE,          /* VERBOSE STATUS: only when the user asks */
	RAS_REQ_MONITOR,
	RAS_REQ_SET_FORMAT,
};
const char *ras_req_name(enum ras_req q);   /* "STATUS", "VERBOSE STATUS", ... */

/* When a request is known to crash a job on a version range. */
enum ras_when {
	RAS_WHEN_INIT = 0,        /* while communicators initialise (covered by the age rule
				   * and the INIT back-off; for these versions a reply showing
				   * INIT also stops queries until the next window) */
	RAS_WHEN_LARGE,           /* on a job of RAS_LARGE_GPUS GPUs or more (or of unknown size) */
	RAS_WHEN_ALWAYS,          /* never send it */
};
#define RAS_LARGE_GPUS 128

struct ras_hazard {
	int lo, hi;               /* version codes, inclusive; hi 0: not fixed in any known release */
	enum ras_req req;
	enum ras_when when;
	int issue;                /* NVIDIA/nccl issue number */
	const char *what;         /* one line */
};
extern const struct ras_hazard ras_hazards[];
extern const int ras_nhazards;

/* What the gate knows when fabtop is about to send a request. */
struct ras_gate_in {
	double now;               /* seconds, monotonic */
	double last_query;        /* when the last request was sent; < 0 never */
	double interval;          /* the least time between queries (ras_interval()) */
	double window;            /* the confirmation window */
	double youngest_age;      /* age in seconds of the youngest NCCL process of the job
				   * here; < 0 unknown (no process seen: an explicit --ras) */
	bool last_saw_init;       /* the last reply showed a communicator in INIT */
	int version;              /* the job's NCCL, 0 unknown */
	int gpus;                 /* the job's GPUs from the last reply; -1 unknown */
	bool ras_off;             /* NCCL_RAS_ENABLE=0 in the job's environment */
	bool verbose_asked;       /* the user asked for VERBOSE STATUS */
};

/* The least time between two queries for a window: RAS_MIN_INTERVAL, or
 * the window when the user chose a shorter one. */
double ras_interval(double window);

/* Whether req may be sent now. When not, why says so in one line ("the
 * job's NCCL processes started 40 s ago; no query before 2 min (queries
 * during communicator init crashed jobs: NVIDIA/nccl#1669)") and *next is
 * when it may be (a time on in->now's clock; < 0 never). A version of 0
 * (unknown) meets every hazard whose condition could hold. */
bool ras_gate(enum ras_req req, const struct ras_gate_in *in, double *next, char *why, size_t len);

/* ---- where the server is (ras.c) ---- */

struct ras_addr {
	char host[256];           /* "localhost", "10.0.0.5", "::1" */
	char port[16];            /* "28028" */
	char source[128];         /* "NCCL_RAS_ADDR of pid 4242", "its log (RAS client listening
				   * socket at ::1<28028>)", "--ras", "NCCL's default" */
};

/* NCCL_RAS_ADDR's forms: "host:port", "[v6]:port", "host" (default port),
 * and the log's "::1<28028>" / "10.0.0.5<28028>". 0, or -1 when s is none. */
int ras_addr_parse(const char *s, struct ras_addr *a);

/* ---- the client (ras.c) ---- */

/* One exchange with a server, as sent and received: what a capture records
 * and replays. */
struct ras_xfer {
	struct ras_addr addr;
	enum ras_req req;
	double t_sent;            /* on the caller's clock */
	double elapsed;           /* seconds the exchange took */
	char server_protocol[32]; /* "2" from "SERVER PROTOCOL 2"; "" none */
	bool json_asked, json_refused;  /* SET FORMAT json sent; answered with an error */
	char *reply;              /* the bytes after the request until close (malloc'd) */
	size_t len;
	bool truncated;
	int err;                  /* 0, or an errno (ECONNREFUSED, ETIMEDOUT, EPROTO, ...) */
	char why[200];            /* "" or what went wrong, in one line */
};
void ras_xfer_free(struct ras_xfer *x);

/* Connects to a->host:a->port (from inside pid's network namespace when
 * netns_pid > 0: a socket opened there by a forked child), with a connect
 * and a read timeout of timeout_s each, says CLIENT PROTOCOL, TIMEOUT,
 * SET FORMAT json when want_json, then req (STATUS or VERBOSE STATUS), and
 * reads the reply until the server closes. The caller has passed the gate.
 * 0, or -1 with x->err and x->why. */
int ras_query(const struct ras_addr *a, int netns_pid, enum ras_req req, bool want_json,
	      double timeout_s, struct ras_xfer *x);

/* From now on, in the calling thread, ras_query() and ras_monitor_open()
 * stop at once with ECANCELED when fd becomes readable (a pipe the caller
 * writes to when it must not wait: the console quitting, a query due);
 * -1 turns it off. */
void ras_cancel_on(int fd);

/* MONITOR (2.29+): the handshake, MONITOR, and its "OK"; returns the
 * connected socket, from which the events then arrive (ras_parse_events)
 * until the caller closes it, or -1 with x->err and x->why (an older server
 * answers "ERROR: Unknown command MONITOR": ENOTSUP). The caller has passed
 * the gate for RAS_REQ_MONITOR and holds no other connection. */
int ras_monitor_open(const struct ras_addr *a, int netns_pid, bool want_json, double timeout_s,
		     struct ras_xfer *x);

#endif
