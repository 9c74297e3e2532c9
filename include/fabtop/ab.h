/*
 * ab.h - the IB-disable A/B (seed §11): the same NCCL test run twice, run A
 * as the user gave it and run B with NCCL_IB_DISABLE=1, each with
 * NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET added, each under a hang
 * timeout, both logs read by the NCCL log analyzer (nccl_log.h) as they
 * stream, then one verdict for the pair.
 *
 * Sequence:
 *   ab_init(ab, opts, err)      copies the command, builds both runs' env
 *   ab_start(ab)                starts run A (runner.h: own process group)
 *   ab_poll(ab, ms) ...         until it returns 1: A ends, B starts, B ends
 *   [ab_cancel(ab)]             kills the running one; the pair ends "cancelled"
 *   ... read ab->run[0..1], ab->verdict, ab->reason, ab->hint ...
 *   ab_free(ab)
 * or ab_run_all(ab) for all of it, blocking (batch). The runs are
 * sequential: two NCCL jobs at once would fight for the same GPUs and ports.
 *
 * The environment each run gets (run_opts.env_add): the inherited one plus
 * NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET, NCCL_DEBUG_FILE removed (the
 * log must reach the pipe) and, for B, NCCL_IB_DISABLE=1. When argv[0] is
 * Open MPI's launcher (orterun, prterun, mpirun.openmpi, or an mpirun or
 * mpiexec whose --version says Open MPI or names no MPI) each added
 * variable is also passed to the remote ranks with "-x NAME=VALUE" inserted
 * after argv[0]; Hydra (MPICH, Intel MPI: mpiexec.hydra, mpirun.mpich, an
 * mpirun whose --version says so), srun and torchrun pass the environment
 * on by themselves. ab->launcher says which was found.
 * Nothing is ever run through a shell.
 *
 * Hang: no new output for hang_s seconds means hung; the runner kills the
 * whole process group (SIGTERM, then SIGKILL), so nothing is left running.
 *
 * A/B verdicts (ab_verdict_name), first match wins:
 *   not-run              a run could not start (command not found, bad
 *                        input), or A printed no NCCL line at all (the
 *                        command is not an NCCL program, or it drops
 *                        NCCL_DEBUG): nothing to compare; exit 2
 *   no-network           A set up no NET channel (one node: P2P/SHM only,
 *                        or nNodes 1) and completed or knew it was alone:
 *                        no network carried data, so neither run says
 *                        anything about IB/RoCE; run it across two nodes
 *   ib-disable-ignored   B still used IB or an external net plugin: the
 *                        plugin ignores NCCL_IB_DISABLE; set NCCL_NET=Socket
 *   ib-not-used          A completed but over sockets: NCCL never used the
 *                        RDMA network (the log's reason: no device, no
 *                        libibverbs, NCCL_IB_DISABLE/NCCL_NET set)
 *   rdma-ok              both completed, A over IB/RoCE, A at least
 *                        AB_FASTER_RATIO times faster than B (bus bandwidth
 *                        from the nccl-tests summary, the slowest of the
 *                        runs both printed when there are several, else
 *                        wall time). With a model, the reason adds A's peak
 *                        bus bandwidth per run against the line rate of the
 *                        HCAs A used, and a low one gives the hint
 *   rdma-slow            both completed, A over IB/RoCE but not clearly
 *                        faster than B
 *   socket-path-problem  A completed over IB/RoCE, B failed or hung: the
 *                        job works; its socket fallback would not (bootstrap
 *                        interface, firewall)
 *   rdma-path-problem    A failed or hung, B completed: the RDMA path is
 *                        broken (layers 1-3: HCA, GID index, RoCE fabric,
 *                        GPUDirect, RDMA namespace); A's errors are named
 *   not-rdma             both failed or hung: look at the application
 *                        start, DNS, ports, the bootstrap interface
 */
#ifndef FABTOP_AB_H
#define FABTOP_AB_H

#include <stdbool.h>
#include <stddef.h>
#include "fabtop/nccl_log.h"
#include "fabtop/runner.h"

#define AB_HANG_DEFAULT_S 120.0   /* a rank waiting on a peer prints nothing for long */
#define AB_FASTER_RATIO   1.5     /* A/B bus bandwidth (or B/A time) that counts as faster */
#define AB_MAX_ARGS       128
#define AB_MAX_ENV        16
#define AB_TAIL_LINES     8       /* last output lines kept per run, for the pane */
#define AB_TAIL_LEN       200

enum ab_verdict {
	AB_V_PENDING = 0,             /* not decided yet (running, or not started) */
	AB_V_NOT_RUN,
	AB_V_IB_DISABLE_IGNORED,
	AB_V_IB_NOT_USED,
	AB_V_RDMA_OK,
	AB_V_RDMA_SLOW,
	AB_V_SOCKET_PATH_PROBLEM,
	AB_V_RDMA_PATH_PROBLEM,
	AB_V_NOT_RDMA,
	AB_V_CANCELLED,               /* the user stopped it */
	AB_V_NO_NETWORK,              /* one node: no NET channel, nothing to compare */
};

enum ab_state {
	AB_IDLE = 0,                  /* not started */
	AB_RUNNING,
	AB_COMPLETED,                 /* exit 0 and the log shows no failure */
	AB_FAILED,                    /* non-zero exit, a signal, or the log's error */
	AB_HUNG,                      /* killed: no output for hang_s */
	AB_TIMED_OUT,                 /* killed: ran past run_timeout_s */
	AB_NOT_STARTED,               /* could not start (res.err says why) */
	AB_CANCELLED,
};

struct ab_run {
	char label;                   /* 'A' or 'B' */
	char *argv[AB_MAX_ARGS + 1];  /* what runs, malloc'd strings (mpirun -x inserted) */
	char *env[AB_MAX_ENV + 1];    /* the K=V added or replaced ("K" alone: removed) */
	char display[1024];           /* "NCCL_IB_DISABLE=1 NCCL_DEBUG=INFO ... all_reduce_perf -b 8" */
	enum ab_state state;
	struct run_job *job;          /* while running */
	struct run_result res;        /* once finished */
	struct nccl_log log;          /* fed every output line as it arrives; finished at the end */
	char partial[NCCL_LOG_LINE_MAX + 1]; /* a line not yet ended by '\n' */
	size_t partial_len;
	long long out_lines;
	char tail[AB_TAIL_LINES][AB_TAIL_LEN];  /* ring of the last lines */
	int tail_next, tail_n;
	double elapsed_s;
	char why[256];                /* one line: "exit 1: NET/IB : Got completion ... status=12", "hung: no output for 120 s" */
};

struct ab_opts {
	const char *const *argv;      /* the test command, NULL-terminated, non-empty */
	double hang_s;                /* 0: AB_HANG_DEFAULT_S */
	double run_timeout_s;         /* 0: none */
	const char *const *env_extra; /* more K=V for both runs (e.g. the wizard's
	                                 NCCL_SOCKET_IFNAME), NULL-terminated, or NULL */
	const struct fab_model *model; /* the node's, for A's bus bandwidth against its HCAs'
	                                 line rate (nccl_log_line_rate); NULL: not judged. It
	                                 must outlive the A/B */
};

struct ab {
	struct ab_run run[2];         /* [0] A, [1] B */
	int cur;                      /* the run in progress: 0, 1, or -1 */
	double hang_s, run_timeout_s;
	enum ab_verdict verdict;
	double ratio;                 /* A over B: bus bandwidth, or B's time over A's; 0 unknown */
	char measure[32];             /* "bus bandwidth" or "wall time", "" */
	char reason[512];             /* the verdict in one or two sentences, with evidence */
	char hint[512];               /* what to do next, "" for rdma-ok */
	char launcher[160];           /* how an MPI launcher passes the variables on, "" none */
	const struct fab_model *model; /* ab_opts.model */
};

/* Copies argv (at most AB_MAX_ARGS words, each validated as plain text:
 * no NUL, not empty) and builds both runs. 0, or -1 with a message. */
int ab_init(struct ab *ab, const struct ab_opts *o, char *err, size_t errlen);
/* Starts run A. 0, or -1 when A could not start: then B is not run and the
 * verdict is already not-run (ab_poll returns 1 at once). */
int ab_start(struct ab *ab);
/* Reads output, feeds the analyzer, moves A -> B -> decided. Waits at most
 * timeout_ms (negative: until done). 1 when both runs are over and the
 * verdict is set, 0 while running. */
int ab_poll(struct ab *ab, int timeout_ms);
/* The running run's output descriptor, for an outer poll() that calls
 * ab_poll(ab, 0) when it is readable; -1 when there is none to watch. */
int ab_fd(const struct ab *ab);
/* Kills the running run's whole process group and ends the pair with
 * AB_V_CANCELLED (returns once the group is reaped). */
void ab_cancel(struct ab *ab);
/* ab_start + ab_poll until done. Returns the verdict. */
enum ab_verdict ab_run_all(struct ab *ab);
void ab_free(struct ab *ab);

/* The verdict from two finished runs (state and analysed log): pure, so
 * it is tested on its own. Fills ab->verdict, ratio, measure, reason, hint. */
void ab_decide(struct ab *ab);

const char *ab_verdict_name(enum ab_verdict v);   /* "rdma-ok", "not-run", ... */
const char *ab_state_name(enum ab_state s);       /* "completed", "hung", ... (ids; _() shows them) */
/* Whether all_reduce_perf is on PATH: the loopback proposal's first need. */
bool ab_have_loopback_test(void);
/* Exit status for batch: 0 rdma-ok, 2 not-run, 1 any other decided verdict. */
int ab_exit_code(enum ab_verdict v);

/* The single-node NIC loopback proposal: when all_reduce_perf is on PATH
 * and the node has at least two GPUs, fills argv (NULL-terminated,
 * pointing into buf) with
 *   all_reduce_perf -b 8 -e 256M -f 4 -g NGPUS
 * and env with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 (so the ranks must
 * talk through the NIC) and returns true; else false with why ("no
 * all_reduce_perf on PATH: build nccl-tests ..."). */
bool ab_propose_loopback(int ngpus, char *buf, size_t buflen, const char *argv[], int maxargv,
			 const char *env[], int maxenv, char *why, size_t whylen);

struct fab_out;
/* The pair through the print layer: verdict on top, then each run's
 * status, transport, HCAs, GDR, bus bandwidth, errors and last lines. */
void ab_print(struct fab_out *o, const struct ab *ab, bool verbose);

#endif
