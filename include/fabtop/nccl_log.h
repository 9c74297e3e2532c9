/*
 * nccl_log.h - NCCL log analysis, with no I/O of its own: the caller reads
 * lines (a file, a pipe, a child's output) and feeds them one at a time.
 *
 * Sequence:
 *   nccl_log_init(a)
 *   { nccl_log_source(a, "rank0.log")    optional: names what follows
 *     nccl_log_feed(a, line, len) ... }   one call per line, any order of ranks
 *   nccl_log_finish(a)                    computes outcome, verdict, reason
 *   ... read the fields ...
 *   nccl_log_free(a)
 *
 * Input: NCCL_DEBUG=INFO/WARN/TRACE output of any NCCL from 2.10 on, with or
 * without NCCL_DEBUG_SUBSYS, of one rank or many interleaved: lines such as
 *   host:pid:tid [dev] NCCL INFO msg
 *   [2026-11-30 20:20:09] host:pid:tid [0] file.cc:114 NCCL WARN msg
 *   [rank0]: host:pid:tid [0] NCCL INFO msg      (torch, mpirun, srun labels)
 * plus the nccl-tests table and summary and the errors frameworks print
 * (torch's DistBackendError and the "Last error:" line after it). A line may
 * end in "\n", "\r\n" or nothing (a truncated last line), may hold NUL bytes
 * and may be of any length: only its first NCCL_LOG_LINE_MAX bytes are read.
 *
 * Memory is bounded whatever the log's size: counters, the first few of each
 * list (errors deduplicated by text, with a count), never the log itself.
 *
 * The verdict is the cause the log shows, whatever happened to the run;
 * what happened (completed, failed, incomplete) is the separate outcome. A
 * log cut short or a job that hung still gets its cause as the verdict.
 *
 * Verdicts (nccl_verdict_name), first match wins:
 *   unknown          no NCCL line at all (not an NCCL log, or NCCL_DEBUG unset)
 *   nccl-error       nccl-tests printed its summary with wrong values
 *   (the next four apply unless nccl-tests printed its summary)
 *   invalid-usage    the job is set up wrongly: duplicate GPU, NCCL version
 *                    mismatch between ranks, invalid argument/config
 *   ib-error         the RDMA path failed: an ibv_* call, a work completion
 *                    error (status=12: transport retry counter exceeded), a
 *                    QP connect timeout, no NET plugin left when IB was forced
 *   bootstrap-error  the TCP side failed: no socket interface, connection
 *                    refused/timed out/reset, bootstrap errors
 *   nccl-error       out of memory or a CUDA failure stopped the run
 *   socket-fallback  RDMA was wanted but sockets were used; the reason is the
 *                    log's own ("No device found", "Failed to open libibverbs"),
 *                    whether the run completed or not
 *   nccl-error       another error stopped the run (internal, remote rank
 *                    gone, collective timeout, any other WARN)
 *   no-gdr           RDMA network channels without GPUDirect RDMA (data
 *                    staged through host memory), whether it completed or not
 *   incomplete       nothing above, and no result: the log stops before the
 *                    nccl-tests summary or a communicator's teardown
 *   socket-by-config completed over sockets because the environment said so:
 *                    NCCL_IB_DISABLE=1 or NCCL_NET=Socket reported, or IB
 *                    never tried while the net set-up is in the log
 *   ok               completed, nothing wrong found; a run with no network
 *                    channel (one node, P2P/SHM only) is never said to be
 *                    "over IB"
 *
 * Warnings (nccl_log.warn, computed by nccl_log_finish) do not change the
 * verdict: a net plugin that failed to load (NCCL went on with its internal
 * IB/Socket), and bootstrap, IB out-of-band or socket traffic over an
 * interface that is not the fabric (nccl_if_not_fabric()).
 */
#ifndef FABTOP_NCCL_LOG_H
#define FABTOP_NCCL_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include "fabtop/model.h"

#define NCCL_LOG_LINE_MAX   8192  /* bytes of a line that are read */
#define NCCL_LOG_TEXT       256   /* stored message text */
#define NCCL_LOG_MAX_ERRORS 20    /* distinct error texts kept */
#define NCCL_LOG_MAX_ENV    32
#define NCCL_LOG_MAX_NETS   8
#define NCCL_LOG_MAX_HCAS   32
#define NCCL_LOG_MAX_VIA    16    /* distinct channel transports */
#define NCCL_LOG_MAX_QPVAL  8     /* distinct GID indexes, MTUs */
#define NCCL_LOG_MAX_SIZES  64    /* nccl-tests rows */

enum nccl_verdict {
	NCCL_V_UNKNOWN,
	NCCL_V_OK,
	NCCL_V_NO_GDR,
	NCCL_V_SOCKET_FALLBACK,
	NCCL_V_SOCKET_BY_CONFIG,
	NCCL_V_IB_ERROR,
	NCCL_V_BOOTSTRAP_ERROR,
	NCCL_V_INVALID_USAGE,
	NCCL_V_NCCL_ERROR,
	NCCL_V_INCOMPLETE,
};

/* What happened to the run, apart from the diagnosis. */
enum nccl_outcome {
	NCCL_RUN_UNKNOWN,     /* no NCCL lines */
	NCCL_RUN_COMPLETED,   /* nccl-tests summary, or a clean comm teardown */
	NCCL_RUN_FAILED,      /* an error stopped it */
	NCCL_RUN_INCOMPLETE,  /* stops without result or error: hung or cut */
};

enum nccl_err_kind {
	NCCL_E_IBV_CALL,      /* Call to ibv_* failed, ibv_post_send() failed */
	NCCL_E_COMPLETION,    /* Got completion from peer ... status=N */
	NCCL_E_TIMEOUT,       /* connection timed out (socket or QP connect) */
	NCCL_E_IB_OTHER,      /* other NET/IB warnings: async events, devices */
	NCCL_E_BOOTSTRAP,     /* Bootstrap : ..., no socket interface found */
	NCCL_E_SOCKET,        /* connect refused/reset/closed, socket errors */
	NCCL_E_INVALID_USAGE, /* Duplicate GPU, version mismatch, invalid args */
	NCCL_E_OOM,           /* out of memory, failed allocations */
	NCCL_E_CUDA,          /* Cuda failure, unhandled cuda error */
	NCCL_E_SYSTEM,        /* unhandled system error */
	NCCL_E_INTERNAL,      /* internal error */
	NCCL_E_REMOTE,        /* remote process exited or network error */
	NCCL_E_NET_INIT,      /* Failed to initialize any NET plugin */
	NCCL_E_COLL_TIMEOUT,  /* a framework watchdog saw a collective hang */
	NCCL_E_OTHER,         /* any other WARN */
	NCCL_E_COUNT
};

/* Which verdict an error points at. */
enum nccl_err_class { NCCL_C_IB, NCCL_C_BOOTSTRAP, NCCL_C_USAGE, NCCL_C_OTHER };

/* none: no external plugin was there (the default libnccl-net.so absent);
 * failed: one was asked for (NCCL_NET_PLUGIN) or found, but did not load,
 * and NCCL went on with its internal networks. */
enum nccl_plugin { NCCL_PLUGIN_UNKNOWN, NCCL_PLUGIN_NONE, NCCL_PLUGIN_LOADED, NCCL_PLUGIN_FAILED };

enum nccl_warn_kind { NCCL_W_PLUGIN_FAILED, NCCL_W_NOT_FABRIC };

#define NCCL_LOG_MAX_WARN    8
#define NCCL_LOG_MAX_SOCKIFS 8    /* NET/Socket interfaces kept */

struct nccl_log_warning {
	enum nccl_warn_kind kind;
	char role[16];                /* "bootstrap", "oob", "socket"; "" for the plugin */
	char ifname[32];              /* the interface, "" for the plugin */
	char text[NCCL_LOG_TEXT];
};

/* GPUDirect RDMA over the RDMA network (sockets never have it). */
enum nccl_gdr { NCCL_GDR_UNKNOWN, NCCL_GDR_ON, NCCL_GDR_OFF, NCCL_GDR_PARTIAL };

struct nccl_log_error {
	enum nccl_err_kind kind;
	enum nccl_err_class cls;
	bool framework;               /* said by torch/nccl-tests, not NCCL */
	fab_int status;               /* completion status or errno, if given */
	char text[NCCL_LOG_TEXT];     /* the message after "NCCL WARN" */
	char rank[64];                /* "host:pid" that said it first, or "" */
	char source[64];              /* nccl_log_source() name, or "" */
	long long line;               /* line number in that source */
	long long count;              /* lines with this same text */
};

struct nccl_log_hca {
	char name[32];                /* mlx5_0 */
	int port;
	char link_layer[16];          /* IB, RoCE, IB/SHARP, "" */
};

struct nccl_log_env {
	char name[48];                /* NCCL_IB_DISABLE */
	char value[96];               /* 1 */
	bool conflict;                /* ranks reported different values */
};

struct nccl_log_count {
	char name[48];                /* a network, or a channel's "via" */
	long long n;
};

struct nccl_log_size {
	long long bytes, count;
	char type[16], redop[16];     /* redop "" where the layout has none (before 2.13) */
	fab_num algbw_oop, busbw_oop, algbw_ip, busbw_ip;  /* GB/s */
};

/*
 * One nccl-tests run in the output: its table, summary and verdict. Several
 * binaries run one after the other (a script, `for t in *_perf`, files
 * appended) give one each. A run begins at its "# nccl-tests version" line
 * (2.13 on), its "# Collective test starting: NAME" (2.16.7 on) or its
 * "# nThread ..." line (every version), or at a table header or row that
 * follows a finished run. Its name is nccl-tests' own (the starting line),
 * else the *_perf binary of a command line seen before it (`mpirun ...
 * ./build/alltoall_perf -b 8`, "Running .../all_gather_perf"), else "".
 * The column layout does not name it: before 2.13 all_gather, sendrecv,
 * alltoall and broadcast rows carry no redop, and from 2.13 alltoall,
 * all_gather and broadcast say "none" while sendrecv says "sum".
 */
enum nccl_coll_verdict {
	NCCL_CV_OK,                   /* summary printed, no wrong value, bandwidth not low */
	NCCL_CV_LOW,                  /* peak bus bandwidth under FAB_LINE_SHARE_LOW of the line rate */
	NCCL_CV_WRONG,                /* Out of bounds values > 0 */
	NCCL_CV_INCOMPLETE,           /* no summary: stopped, hung or cut */
};

#define NCCL_LOG_MAX_COLLS 12     /* nccl-tests runs kept */

struct nccl_log_coll {
	char name[32];                /* "alltoall_perf", "" when the output does not say */
	char named_by[16];            /* "nccl-tests", "command", "" */
	fab_num avg_busbw;            /* "# Avg bus bandwidth : x" GB/s */
	fab_int oob_values;           /* "# Out of bounds values : n OK|FAILED" */
	fab_num peak_busbw;           /* the largest busbw of its rows, GB/s */
	long long peak_bytes;         /* the row it was seen at */
	struct nccl_log_size sizes[NCCL_LOG_MAX_SIZES];
	int nsizes;
	long long sizes_dropped;
	/* Set by nccl_log_line_rate() (nccl_rate.c) when a model is there. */
	fab_num line_gbs;             /* GB/s this collective's peak busbw can reach, per rank */
	fab_num pct;                  /* peak_busbw / line_gbs * 100 */
	char basis[NCCL_LOG_TEXT];    /* how line_gbs was worked out, or why it is unknown */
	/* Set by nccl_log_finish(), again by nccl_log_line_rate(). */
	enum nccl_coll_verdict verdict;
	char reason[NCCL_LOG_TEXT];
};

struct nccl_log {
	long long lines, nccl_lines, warn_lines, long_lines;
	long long ranks;              /* distinct host:pid seen (capped at 65536) */
	fab_int nranks, nnodes;       /* the largest communicator's */

	char version[32];             /* "2.28.9+cuda13.0" or "2.28.9" */
	bool version_mismatch;        /* ranks reported different versions */
	char bootstrap_if[32], bootstrap_addr[64];
	char oob_if[32], oob_addr[64];
	struct nccl_log_env env[NCCL_LOG_MAX_ENV];
	int nenv;

	enum nccl_plugin plugin;
	char plugin_name[64];         /* as loaded, e.g. "NCCL RDMA Plugin v8" */
	char plugin_error[NCCL_LOG_TEXT]; /* why it did not load (failed only) */

	struct nccl_log_count nets[NCCL_LOG_MAX_NETS];  /* "Using network X" */
	int nnets;
	struct nccl_log_hca hcas[NCCL_LOG_MAX_HCAS];
	int nhcas;
	bool ib_tried;                /* the IB transport was attempted */
	char ib_reason[NCCL_LOG_TEXT];/* why it was not usable, the log's words */

	long long gdr_enabled_lines, gdr_disabled_lines;  /* RDMA HCAs only */
	struct nccl_log_count via[NCCL_LOG_MAX_VIA];      /* "NET/IB/0/GDRDMA" */
	int nvia;
	long long ch_net_rdma, ch_net_gdr, ch_net_socket, ch_p2p, ch_shm, ch_collnet;

	long long qp_lines;
	int gid_index[NCCL_LOG_MAX_QPVAL], ngid_index;
	int mtu[NCCL_LOG_MAX_QPVAL], nmtu;   /* bytes (the enum 1..5 decoded) */

	long long errors;             /* error lines, all kinds */
	long long err_kind[NCCL_E_COUNT];
	struct nccl_log_error err[NCCL_LOG_MAX_ERRORS];
	int nerr;
	long long err_dropped;        /* error lines whose text was not kept */
	long long retries;            /* "..., retrying n/m" warnings */
	fab_int first_retcode;        /* first "file.cc:N -> code" line */
	char first_retcode_at[64];

	long long init_start, init_complete, destroy_complete, abort_complete;

	bool tests_started;           /* nccl-tests header or table seen */
	struct nccl_log_coll colls[NCCL_LOG_MAX_COLLS];  /* in the order they ran */
	int ncolls;
	long long colls_dropped;      /* runs past NCCL_LOG_MAX_COLLS, not kept */

	char last_line[NCCL_LOG_TEXT];/* the last NCCL line: where it stopped (finish) */

	/* Set by nccl_log_finish(). */
	enum nccl_outcome outcome;
	char outcome_reason[NCCL_LOG_TEXT];
	enum nccl_verdict verdict;
	enum nccl_gdr gdr;
	char reason[NCCL_LOG_TEXT];
	struct nccl_log_warning warn[NCCL_LOG_MAX_WARN];
	int nwarn;

	/* Internal state. */
	struct {
		unsigned long long *rank_set;
		size_t rank_cap;
		char source[64];
		long long source_line;
		bool last_error_next;  /* torch's "Last error:" came before */
		char ib_generic[NCCL_LOG_TEXT];     /* "Failed to initialize NET plugin IB" */
		char cls_first[4][NCCL_LOG_TEXT];   /* first error text of each class */
		long long nccl_cls[4], framework_cls[4];
		char socket_if[32], socket_addr[64];
		char socket_ifs[NCCL_LOG_MAX_SOCKIFS][32];  /* every NET/Socket interface */
		int nsocket_ifs;
		char plugin_fail[NCCL_LOG_TEXT];    /* a plugin found but not loaded */
		char plugin_missing[NCCL_LOG_TEXT]; /* a plugin asked for by name, not found */
		char tests_version[32];             /* from nccl-tests' nccl-library= */
		char next_name[32];                 /* a *_perf on a command line, for the next run */
		bool coll_drop, coll_drop_data;     /* a run past the cap; it has had lines */
		char buf[2][NCCL_LOG_LINE_MAX + 1];  /* this line; the last NCCL one */
		int cur, last;
		size_t last_len;
	} st;
};

void nccl_log_init(struct nccl_log *a);
/* Names the input the next lines come from (errors record it) and restarts
 * the line count; lines cut short at the end of one input stay separate. */
void nccl_log_source(struct nccl_log *a, const char *name);
void nccl_log_feed(struct nccl_log *a, const char *line, size_t len);
void nccl_log_finish(struct nccl_log *a);
void nccl_log_free(struct nccl_log *a);

const char *nccl_verdict_name(enum nccl_verdict v);
const char *nccl_coll_verdict_name(enum nccl_coll_verdict v);
/* A run's verdict and reason from its fields (one function for both callers). */
void nccl_coll_decide(struct nccl_log_coll *c);
/* The runs that ended with their summary; the first one that did not, or NULL. */
int nccl_log_colls_done(const struct nccl_log *a);
const struct nccl_log_coll *nccl_log_coll_open(const struct nccl_log *a);
/* "alltoall_perf", or "run 2" when the output does not name it. */
const char *nccl_coll_label(const struct nccl_log *a, int i, char *buf, size_t len);

/*
 * nccl_rate.c: each run's peak bus bandwidth set against the line rate of
 * the HCAs the log says NCCL used ("NET/IB : Using [0]mlx5_0:1/IB ..."), read
 * from the model (port_line_gbps). Unknown, with the reason in basis, when
 * an HCA is not in the model, a port's rate is unknown, the ranks per node
 * are not in the log, or no network channel carried data. Then each run's
 * verdict is decided again. Needs the model, so not in nccl_log.c (which
 * stays free of it for the fuzzer).
 */
void nccl_log_line_rate(struct nccl_log *a, const struct fab_model *m);
/* Whether every HCA the log names is in the model (a live node that is
 * not the one the log came from has other HCAs or none). */
bool nccl_log_hcas_in_model(const struct nccl_log *a, const struct fab_model *m);
/* One line on what to do next, "" for ok. */
const char *nccl_verdict_hint(enum nccl_verdict v);
const char *nccl_outcome_name(enum nccl_outcome o);
const char *nccl_err_kind_name(enum nccl_err_kind k);
const char *nccl_err_class_name(enum nccl_err_class c);
const char *nccl_gdr_name(enum nccl_gdr g);
const char *nccl_plugin_name(enum nccl_plugin p);
/* ibv_wc_status_str() wording for a completion status, NULL if unknown. */
const char *nccl_wc_status_str(long long status);

/* True when the log shows the communicators connected with no NET channel at
 * all (one node: P2P/SHM only, or nNodes 1): no network carried data. */
bool nccl_log_no_net_channel(const struct nccl_log *a);
/* What carried the data of such a run: "P2P", "SHM", "P2P and SHM", or
 * "nNodes 1" when the log names no channel. */
const char *nccl_log_local_paths(const struct nccl_log *a);
/* What an interface is when it is clearly not the fabric (loopback, a USB
 * NIC, a docker/libvirt bridge, a veth), NULL otherwise. */
const char *nccl_if_not_fabric(const char *ifname);
const char *nccl_warn_kind_name(enum nccl_warn_kind k);
/* Whether the run used an RDMA network (IB or a plugin), and sockets. */
bool nccl_log_used_rdma(const struct nccl_log *a);
bool nccl_log_used_socket(const struct nccl_log *a);
/* The value a rank reported for an NCCL_* variable, NULL if none. */
const char *nccl_log_env(const struct nccl_log *a, const char *name);

/*
 * fabtop analyze-log FILE... [--json]: the analysis above over the files
 * together ("-" is stdin), streamed line by line, printed through the print
 * layer. Exit: 0 verdict ok; 1 a problem found (any other verdict,
 * no-gdr included: GPUDirect off costs bandwidth); 2 a file could not be
 * read (missing, a directory, a read error) or it held no NCCL line
 * (verdict unknown), or bad usage.
 */
int analyze_log_main(int argc, char **argv);

struct fab_out;
/* The analysis through the print layer (text and JSON from one path). */
void nccl_log_print(struct fab_out *o, const struct nccl_log *a);

#endif
