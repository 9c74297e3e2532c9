/*
 * ras_job.h - a job as NCCL's RAS shows it over time: which communicators
 * advance, which are stuck, which ranks lag, and the one verdict that
 * `report job`, its JSON and the Job pane print.
 *
 * A session holds where the server is, what the gate knows (ras.h), the
 * replies so far and each communicator's progress. It is fed either by
 * ras_session_poll() (live: the gate, then one query) or by the exchanges
 * a capture recorded (ras_session_feed()); the judgement is the same.
 *
 * Stuck, not just mismatched (NCCL's ras.rst: counts that differ between
 * ranks are normal as long as they increase across queries):
 *   - advancing: some rank's counts moved since the earlier reply;
 *   - stuck: counts known and unchanged over at least the window, with
 *     ranks at different counts (the lowest lag, the rest wait for them);
 *   - frozen together: unchanged over the window, every rank at the same
 *     count: idle when other communicators advance, stuck when none does;
 *   - unknown: the release's text report prints counts only when ranks
 *     differ, so agreement there says nothing about progress.
 *
 * Sequence: ras_session_init() -> { ras_session_poll() | ras_session_feed() }*
 * -> ras_session_verdict() / ras_session_lagging() -> ras_session_free().
 */
#ifndef FABTOP_RAS_JOB_H
#define FABTOP_RAS_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include "fabtop/ras.h"

struct fab_job_list;
struct fab_job;

enum job_verdict {
	JV_NO_JOB = 0,        /* no NCCL process here and no --ras */
	JV_RAS_OFF,           /* NCCL_RAS_ENABLE=0 in the job */
	JV_UNAVAILABLE,       /* no server, refused, timed out, unknown protocol, or not sent */
	JV_INIT,              /* still initialising: not queried, or a reply showed INIT */
	JV_DEAD_RANKS,        /* ranks missing or dead */
	JV_STUCK,             /* counts frozen over the window; lagging ranks named */
	JV_OK,                /* communicators advance */
	JV_WATCHING,          /* asked, but the window has not passed yet (the pane only) */
	JV_UNKNOWN,           /* answered, but the release's report cannot show progress */
};
/* "job-ok", "job-stuck", "job-dead-ranks", "job-init", "ras-off",
 * "ras-unavailable", "no-job", "job-watching", "job-unknown". */
const char *job_verdict_word(enum job_verdict v);
/* 0 job-ok; 1 stuck, dead ranks, init; 2 unavailable, unknown, no-job,
 * ras-off (could not see), and watching (not decided). */
int job_verdict_exit(enum job_verdict v);

enum comm_progress { CP_UNKNOWN = 0, CP_TOO_SOON, CP_ADVANCING, CP_STUCK, CP_FROZEN_EQUAL };
const char *ras_progress_word(enum comm_progress p);  /* "advancing", "stuck", ... */

/* One communicator followed across replies. */
struct ras_track {
	char key[80];             /* hash:secondary, or the text report's id */
	char label[48];           /* "#0-0 27a079b828ff1a75" */
	uint64_t sig;             /* the counts' fingerprint in the last reply */
	bool counts_known;        /* in the last reply */
	bool mismatch;            /* ranks at different counts in the last reply */
	int64_t total, prev_total;/* sum of every rank's counts (JSON); the highest count (text) */
	double first_t;           /* first reply that showed it */
	double since_t;           /* when its counts last changed (first_t if never seen to) */
	double last_t;            /* last reply that showed it */
	int seen;                 /* replies that showed it */
	bool moved_once;          /* its counts changed between two replies */
	bool in_last;             /* present in the last reply */
	bool dup;                 /* two communicators of one reply share its key: progress unknown */
	int reply_idx;            /* its comms[] index there (when in_last) */
	enum comm_progress progress;
};

/* A rank that holds the job back: lowest count of a stuck communicator,
 * missing, or dead. */
struct ras_lag {
	char comm[48];            /* the track's label */
	int rank;                 /* -1 unknown (a process RAS names without its rank) */
	char host[64];
	int pid;                  /* -1 unknown */
	int gpu;                  /* nvml_dev, else cuda_dev; -1 unknown */
	char why[96];             /* "AllReduce at 6649, others at 6650", "dead", "unresponsive" */
};

struct ras_session {
	/* where and how */
	struct ras_addr addr;
	bool explicit_addr;       /* --ras: asked even without an NCCL process here */
	int netns_pid;            /* > 0: connect from inside this process's namespace */
	char netns_note[160];     /* why the namespace is or is not entered */
	double window, interval, timeout;
	bool window_given;        /* the user chose the window (else a capture's own is used) */
	bool verbose_asked;
	/* the job here */
	int njobs;
	double youngest_age;      /* < 0 unknown (no process seen); as read at ages_at */
	double ages_at;           /* when the ages were read (session clock); < 0: at the first poll */
	int age_unknown;          /* a live process whose start time cannot be read (its pid): never asked */
	bool ras_off;
	char off_why[160];
	int version;              /* 0 unknown; from the library's name, then the replies */
	char version_from[96];
	/* progress */
	double start_t;           /* first poll */
	double last_query;        /* < 0 none */
	bool last_saw_init;
	int nqueries, nfailed;
	int last_err;             /* the last exchange's errno; 0 */
	char last_why[200];       /* the last exchange's failure, or why the reply is no report */
	bool have_reply;          /* the last exchange gave a report */
	struct ras_reply reply;   /* the last report */
	double reply_t;
	struct ras_track *tracks;
	int ntracks;
	char not_sent[256];       /* why the last due query was not sent; "" */
	double next;              /* when the gate allows the next query; < 0 never */
	/* what a capture records: every exchange, in order */
	struct ras_xfer *log;
	int nlog;
	bool keep_log;
	bool replayed;            /* fed from a capture's record, not asked live */
	bool offline;             /* never asks: a capture or another node's directory */
};

/* Sets the session up from the jobs found here (ras_off, the address from
 * NCCL_RAS_ADDR or the job's log, the youngest age, the version from the
 * library mapped, the namespace); ras_addr when the user gave --ras. */
void ras_session_init(struct ras_session *s, const struct fab_job_list *jobs, const char *ras_addr,
		      double window, bool verbose);
void ras_session_free(struct ras_session *s);
/* The processes here scanned again (a live node, before a query: a job that
 * restarted is young again): the count, the youngest age (as read at now,
 * on the session's clock; -1 at init), an unreadable start time, RAS off. */
void ras_session_jobs(struct ras_session *s, const struct fab_job_list *jobs, double now);

/* Whether the gate lets the session ask now: the request, and whether to
 * ask for JSON; when not, s->not_sent says why and s->next when it may.
 * The Job pane asks from a worker thread with ras_query() and feeds the
 * result back with ras_session_feed(), stamped with this now. */
bool ras_session_may_ask(struct ras_session *s, double now, enum ras_req *req, bool *json);
/* Whether a MONITOR stream may be opened now (live, after a first reply,
 * on 2.29+ or an unknown version, the age rule met); why when not. */
bool ras_session_may_monitor(const struct ras_session *s, double now, bool *json, char *why, size_t len);
/* Live: when the gate allows, one query (blocking up to the timeout);
 * otherwise s->not_sent says why. Returns 1 when a query was made, 0 not. */
int ras_session_poll(struct ras_session *s, double now);
/* One exchange made elsewhere (a capture's record) at time t: parsed and
 * tracked exactly as a live one. x is copied (its reply too). */
void ras_session_feed(struct ras_session *s, const struct ras_xfer *x, double t);

struct fab_root;
struct json_t;
/* A capture's record of the session's exchanges (keep_log): the document
 * for fabtop/ras/exchanges.json, and in files[i] the name each reply's
 * bytes go under in fabtop/ras/ (up to max). */
struct json_t *ras_session_record(const struct ras_session *s, char (*files)[32], int max);
/* Feeds a capture's recorded exchanges, in order, with their times;
 * returns how many (0: the capture recorded none). */
int ras_session_load(struct ras_session *s, const struct fab_root *r);

/* The batch run (`report job`, `capture`): a capture's record when r is
 * a capture that has one and live_asked is false (no --ras); otherwise a
 * query at the start and one at the end of the window, each through the
 * gate, sleeping in between. Returns early when the verdict cannot change
 * (RAS off, no job, unavailable, init, dead ranks). */
void ras_session_run(struct ras_session *s, const struct fab_root *r, bool live_asked);

/* A root that is not this live node (a capture, a fixture directory)
 * is never asked on the network without --ras: the session only judges
 * what the capture recorded (ras_session_load() first). */
void ras_session_offline(struct ras_session *s, const struct fab_root *r);

/* The verdict, and one line saying why. */
enum job_verdict ras_session_verdict(const struct ras_session *s, char *why, size_t len);
/* The lagging ranks, up to max; returns how many there are. */
int ras_session_lagging(const struct ras_session *s, struct ras_lag *out, int max);

/* ---- the ranks on this node, joined with the node (ras_job.c) ---- */

#include "fabtop/gdr.h"
struct fab_qp_list;

/* What NCCL will do for one GPU here (gdr.h): the NIC it will use (the
 * job's NCCL_IB_HCA, else the closest usable NIC), NCCL's path type to it,
 * and whether GPUDirect RDMA will be used and work. */
struct job_gpu_plan {
	int gpu;                      /* index into model.gpus */
	struct fab_nccl_nic nic;
	struct fab_gdr gdr;           /* unknown when no NIC */
};
/* The plan for GPU g under job j's settings (j NULL: NCCL's defaults). */
void job_gpu_plan(const struct fab_model *m, const struct fab_topo *t, const struct fab_job *j, int g,
		  struct job_gpu_plan *out);

/* A rank RAS names that runs here: its host is one of this node's
 * addresses (or, when none is known, its pid is an NCCL process's here). */
struct job_local_rank {
	char comm[48];            /* the communicator's label */
	int rank;
	int ras_pid;              /* as RAS names it: the job's PID namespace */
	int pid;                  /* fabtop's view of that process; -1 not seen here */
	int job;                  /* index into the job list; -1 */
	int gpu;                  /* index into model.gpus (by NVML index); -1 unknown */
	int nqps, nqps_bad;       /* RDMA QPs the process owns (RDMA netlink), in ERR/SQE */
	char qp_devs[64];         /* "mlx5_0 mlx5_3": the HCAs its QPs are on */
	char why[96];             /* how it was matched ("10.0.0.1 is ens1's address") */
	struct job_gpu_plan plan; /* its GPU's NIC and GPUDirect RDMA (plan.nic.nic -1: none) */
};
/* Writes the ranks of the last reply that run here (up to max; each (rank,
 * pid) once, from the first communicator naming it); returns how many there are.
 * qps may be NULL (QPs unknown). */
int ras_local_ranks(const struct ras_session *s, const struct fab_job_list *jobs,
		    const struct fab_model *m, const struct fab_qp_list *qps,
		    struct job_local_rank *out, int max);
/* Is host (RAS's name of a node: its bootstrap address) this node? */
bool ras_host_is_here(const char *host, const struct fab_job_list *jobs, const struct fab_model *m,
		      char *why, size_t len);

/* ---- the prediction against the job's own log (ras_job.c) ---- */

#include "fabtop/nccl_log.h"
/* What job j's NCCL_DEBUG_FILE says of GPUDirect RDMA (nccl_log.h: the
 * "GPU Direct RDMA Enabled/Disabled for HCA" and "/GDRDMA" channel lines);
 * unknown when it has none fabtop can open (why says so, or ""). */
enum nccl_gdr job_log_gdr(const struct fab_job *j, char *why, size_t len);
/* NCCL's own decision predicted for n GPUs (plans[].gdr.nccl) set against
 * the log's: 1 agree, -1 differ, 0 cannot tell; buf says which. */
int job_gdr_vs_log(enum nccl_gdr logged, const struct job_gpu_plan *plans, int n, char *buf, size_t len);

#endif
