/*
 * wizard.h - the NCCL wizard: the seed's test ladder (job, layer 1, layer
 * 2, ...) as an engine of steps that run one at a time on the user's go.
 *
 * A step belongs to one layer, says why it matters, shows the inputs it
 * used, the commands or in-process probes it ran, their raw output
 * (bounded), its findings and a verdict with a hint. Steps are data: a
 * table of struct wiz_step_def (wizard_steps.c), one row per step. The
 * engine knows no step by name: what a step shows beyond the common parts
 * comes from its own hooks (print, exit_code, draw), and what it learnt for
 * the steps above it goes into named fields of struct wizard (the job's).
 *
 * Adding a step: write src/wizard_<name>.c with its run() (or start/poll/
 * cancel/fini for a long one) and an optional gate(), declared in
 * src/wizard_int.h; add one row to wiz_steps[] in ladder order; give it
 * print/exit_code/draw hooks only when its result is more than a verdict,
 * findings and peers (a drawer lives under views/ and is declared below).
 * Then its id in wizard_batch.c's usage text and docs/report-json.md.
 *
 * Sequence:
 *   wizard_new(root, opts, err) -> wizard_run_step(w, i, m) ... (or
 *   wizard_run_next) -> wizard_free(w)
 * The model m (collect_all + findings_run) is only read. The wizard keeps
 * no pointer to it, so the TUI may reload it between steps.
 *
 * Inputs: the options (--iface, --hca, --peer, --pid) win; what is unset
 * is taken from the job step's NCCL process once it ran (its
 * NCCL_SOCKET_IFNAME resolved to an interface here, its NCCL_IB_HCA). Every
 * input is validated (runner.h validators) before it is stored, so nothing
 * a shell would interpret ever reaches a step.
 *
 * Nothing here exits or draws; errors come back as messages.
 */
#ifndef FABTOP_WIZARD_H
#define FABTOP_WIZARD_H

#include <stdbool.h>
#include <stddef.h>
#include "fabtop/model.h"
#include "fabtop/print.h"
#include "fabtop/root.h"

#define WIZ_MAX_PEERS  8
#define WIZ_MAX_STEPS  8
#define WIZ_MAX_CMDS   16
#define WIZ_OUT_CAP    (64 * 1024)   /* raw output kept per step; the rest is counted */
#define WIZ_HOST_LEN   256
#define WIZ_IF_LEN     16            /* IFNAMSIZ */
#define WIZ_CMD_WORD   512           /* a word of the A/B command typed in the pane */

enum wiz_status {
	WIZ_PENDING = 0,
	WIZ_RUNNING,
	WIZ_PASS,
	WIZ_WARN,
	WIZ_FAIL,
	WIZ_SKIPPED,
	WIZ_BLOCKED,
};

/* Where an input came from, for the "inputs" lines. */
struct wiz_inputs {
	char iface[WIZ_IF_LEN];
	char iface_src[96];           /* "--iface", "NCCL_SOCKET_IFNAME=eth of pid 812", "" */
	char hca[FAB_LIST_LEN];       /* NCCL_IB_HCA syntax: "mlx5_0:1,mlx5_1", "^mlx5_3" */
	char hca_src[96];
	char peers[WIZ_MAX_PEERS][WIZ_HOST_LEN];
	int npeers;
	int pid;                      /* the NCCL process to check; 0: every one found */
};

/* The L2 result for one peer, kept whole for JSON and the pane. */
struct wiz_peer {
	char peer[WIZ_HOST_LEN];
	char addr[64];                /* resolved; "" when it did not resolve */
	char route_dev[WIZ_IF_LEN];   /* interface the kernel routes through; "" unknown */
	char route_via[64];           /* gateway, "" when on-link */
	char route_src[64];           /* preferred source address */
	bool route_ok;                /* leaves through the intended interface */
	bool probed;
	char verdict[24];             /* mtu_verdict_name(): "mtu-ok", ... */
	fab_int iface_mtu, path_mtu, hop_mtu, nprobes;
	char hop[64];
	fab_num elapsed_s;
	char message[256];
};

struct wiz_step_def;

struct wiz_step {
	const struct wiz_step_def *def;
	enum wiz_status status;
	char verdict[256];            /* one line */
	char hint[256];               /* what to do next; "" when nothing */
	char inputs[4][160];          /* the inputs this step used, one per line */
	int ninputs;
	char cmds[WIZ_MAX_CMDS][512]; /* what it ran: argv (shell-quoted for display) or a probe */
	int ncmds;
	char *out;                    /* raw output, NUL-terminated, at most WIZ_OUT_CAP bytes */
	size_t out_len, out_total;    /* kept, and produced in all */
	struct fab_finding *findings; /* what it found (job.*, links.*, l2.*) */
	int nfindings;
	struct wiz_peer peers[WIZ_MAX_PEERS];   /* l2 */
	int npeers;
	double elapsed_s;
	int runs;                     /* how many times it ran */
	void *priv;                   /* a long step's own state (def->fini frees it) */
};

struct wizard;
struct view_pen;   /* the Wizard pane's pen (view.h): only drawers use it */

/* A row of the ladder. run() fills s (status, verdict, findings, ...) and
 * returns 0, or -1 when it could not run at all (verdict says why); gate()
 * (may be NULL) says why the step cannot run now: it returns true and
 * writes the reason, and the step is shown blocked. */
struct wiz_step_def {
	const char *id;               /* "job", "l1", "l2" */
	const char *layer;            /* "0 job", "1 physical", "2 IP/MTU" */
	const char *title;
	const char *why;              /* a short paragraph for newcomers */
	bool (*gate)(const struct wizard *w, const struct fab_model *m, char *why, size_t len);
	int (*run)(struct wizard *w, struct wiz_step *s, const struct fab_model *m);
	/* Optional, for steps that take long (perftest, the A/B) so the pane
	 * stays live while they run. start() begins the work (children
	 * started through the runner, state in s->priv) and returns 0 with
	 * the step still WIZ_RUNNING, or -1 (verdict says why). poll()
	 * advances it, waiting at most timeout_ms (negative: until done), and
	 * returns 1 once finished (status, verdict, findings set), else 0.
	 * cancel() kills what it started and finishes the step now
	 * (WIZ_FAIL, "cancelled by the user"). fini() frees s->priv; it is
	 * called whenever the step is cleared. When start is set, run may be
	 * NULL: wizard_run_step() then starts and polls until done. wait_fd()
	 * (may be NULL) names a descriptor that becomes readable when poll()
	 * has output to read (a child's pipe), -1 when there is none now. */
	int (*start)(struct wizard *w, struct wiz_step *s, const struct fab_model *m);
	int (*poll)(struct wizard *w, struct wiz_step *s, int timeout_ms);
	void (*cancel)(struct wizard *w, struct wiz_step *s);
	void (*fini)(struct wiz_step *s);
	/* Optional output hooks, for a step whose result is more than what
	 * every step has (status, verdict, hint, inputs, commands, peers,
	 * findings, raw output); NULL takes the engine's default.
	 * print() adds the step's own result to its object in batch mode,
	 * through the print layer (text and JSON), after the findings and
	 * before the raw output. Default: nothing more.
	 * exit_code() says what the outcome means for the batch exit status:
	 * 0 fine, 1 warned, failed or blocked, 2 could not run; for 2 it
	 * points *why at the words of the exit line ("the A/B could not run").
	 * Default: wiz_exit_of().
	 * draw() draws the step's result at the top of the Wizard pane's
	 * detail, in place of the verdict and hint, and returns true; false
	 * when it has nothing of its own yet (it then drew nothing). It lives
	 * under views/, so the engine and batch mode never call it. Default:
	 * the verdict and the hint (wizard_step_result(), view.h). */
	void (*print)(struct fab_out *o, const struct wiz_step *s, bool verbose);
	int (*exit_code)(const struct wiz_step *s, const char **why);
	bool (*draw)(struct view_pen *p, const struct wiz_step *s);
	int (*wait_fd)(const struct wiz_step *s);
};

extern const struct wiz_step_def wiz_steps[];
extern const int wiz_nsteps;

struct wizard_opts {
	const char *iface;            /* NULL: from the job */
	const char *hca;
	const char *peers[WIZ_MAX_PEERS];
	int npeers;
	int pid;
	double probe_timeout_s;       /* per MTU probe; 0: the probe's default */
	/* Layer 3 (perftest). */
	const char *side;             /* "server" or "client"; NULL: client when a peer is given */
	int gid_index;                /* perftest's -x; used when gid_index_set */
	bool gid_index_set;           /* false: the job's NCCL_IB_GID_INDEX, else perftest's default */
	/* Layer 4 (the A/B). */
	const char *const *cmd;       /* the NCCL test command (after "--"), NULL-terminated;
	                                 NULL or empty: the single-node loopback proposal */
	double hang_s;                /* no new output for this long = hung; 0: AB_HANG_DEFAULT_S */
	double run_timeout_s;         /* each run at most this long; 0: no limit */
};

struct wizard {
	const struct fab_root *root;  /* borrowed; processes are read through it */
	struct wiz_inputs in;         /* what the steps use now */
	struct wiz_inputs opt;        /* what the user gave (options or the pane's editor) */
	double probe_timeout_s;
	int nsteps;
	struct wiz_step steps[WIZ_MAX_STEPS];
	/* What the job step learnt, for the steps above it. */
	bool job_ran;
	int job_nprocs;
	char job_iface_spec[FAB_LIST_LEN];   /* NCCL_SOCKET_IFNAME as the process set it */
	char job_hca_spec[FAB_LIST_LEN];
	char job_ifaces[4][WIZ_IF_LEN];      /* interfaces the spec matches here */
	int job_niface;
	int job_pid;
	char job_netns[48];                  /* "net:[4026531840]"; "" unknown */
	bool job_other_netns;                /* not fabtop's network namespace */
	bool job_gid_set;                    /* NCCL_IB_GID_INDEX was set (layer 3 uses it) */
	int job_gid_index;
	bool focus;                   /* `fabtop wizard`: the TUI opens on the Wizard pane */
	/* Layer 3 and 4 inputs, copied from the options. */
	char side[8];                 /* "server", "client" or "" (decided at run time) */
	int gid_index;                /* -1 unset */
	char **cmd;                   /* malloc'd NULL-terminated copy, or NULL */
	int ncmd;
	double hang_s, run_timeout_s;
	int busy;                     /* the step running asynchronously, -1 none */
	double busy_t0;
};

const char *wiz_status_name(enum wiz_status s);   /* "pass", "blocked", ... */
const char *wiz_status_text(enum wiz_status s);   /* the same, in the interface's language (text, panes) */

/* Validates the options (runner.h validators) and makes a wizard with every
 * step pending. NULL with a message naming the bad input; nothing runs. */
struct wizard *wizard_new(const struct fab_root *root, const struct wizard_opts *o,
			  char *err, size_t errlen);
void wizard_free(struct wizard *w);

/* The step with this id, or -1: for what the user names (--steps); the
 * engine itself never looks a step up by its id. */
int wizard_find_step(const struct wizard *w, const char *id);
/* Runs step i now (again if it ran): gate first (blocked), then run().
 * Returns its status. */
enum wiz_status wizard_run_step(struct wizard *w, int i, const struct fab_model *m);
/* The first pending step, or -1 when none is left. */
int wizard_next_pending(const struct wizard *w);
/* Clears step i and shows it running (the pane draws this before it
 * blocks in wizard_run_step). */
void wizard_mark_running(struct wizard *w, int i);
/* Starts step i: its gate first (blocked), then, for a step with start(),
 * begins it and returns WIZ_RUNNING at once (wizard_busy() names it); a
 * step without start() runs to its end here, as wizard_run_step(). Only
 * one step runs at a time: while one is busy this returns WIZ_BLOCKED
 * and changes nothing. */
enum wiz_status wizard_start_step(struct wizard *w, int i, const struct fab_model *m);
/* The step running asynchronously, or -1. */
int wizard_busy(const struct wizard *w);
/* Advances the busy step, waiting at most timeout_ms for its children.
 * True when there is something to draw (a step is busy, or just ended);
 * false at once when nothing is busy. */
bool wizard_poll(struct wizard *w, int timeout_ms);
/* A descriptor to poll() beside the terminal while a step is busy: when
 * it is readable, wizard_poll(w, 0) reads what the step's child wrote, so
 * a child that prints fast never waits on a full pipe. -1: none (nothing
 * busy, or a step without a child's pipe); poll at the usual cadence. */
int wizard_wait_fd(const struct wizard *w);
/* Cancels the busy step: what it started is killed (whole process
 * groups), the step ends WIZ_FAIL "cancelled by the user". */
void wizard_cancel(struct wizard *w);
/* Marks step i skipped by the user. */
void wizard_skip_step(struct wizard *w, int i);

/* Replaces the user's inputs (the pane's editor): space- or comma-separated
 * peers, an interface ("" to take it from the job again). Validated; on a
 * bad value returns -1 with the message and changes nothing. */
int wizard_set_peers(struct wizard *w, const char *list, char *err, size_t errlen);
int wizard_set_iface(struct wizard *w, const char *iface, char *err, size_t errlen);
int wizard_set_hca(struct wizard *w, const char *hca, char *err, size_t errlen);
/* The A/B's command from one line typed in the pane, split into words
 * the way a shell would split it but with nothing expanded: blanks part
 * words, '...' keeps everything literally, "..." keeps everything but
 * \" and \\, and a backslash outside quotes keeps the next character.
 * "" clears it (the loopback proposal again). -1 with the message on an
 * open quote, a trailing backslash or more than AB_MAX_ARGS words;
 * nothing changes then. */
int wizard_set_cmd(struct wizard *w, const char *line, char *err, size_t errlen);
/* The command as one line the splitter above reads back word for word. */
void wizard_cmd_line(const struct wizard *w, char *buf, size_t len);
/* The peers as one line, "a b c", for the editor. */
void wizard_peers_line(const struct wizard *w, char *buf, size_t len);

/* ---- for the steps (wizard_steps.c) ---- */

/* Appends to the raw output (bounded by WIZ_OUT_CAP; the rest is counted). */
void wiz_out(struct wiz_step *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records a command or probe line shown under "ran". */
void wiz_cmd(struct wiz_step *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wiz_input(struct wiz_step *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct fab_finding *wiz_finding(struct wiz_step *s, const char *id, enum fab_severity sev,
				const char *subject);
/* Runs argv through the runner (own process group, timeout, capped output),
 * records its display form under "ran" and its output; returns the exit
 * code, or -1 when it did not run or was killed (the reason in the output). */
int wiz_run_cmd(struct wiz_step *s, const char *const argv[], double timeout_s);
/* Status from the findings: any error -> fail, any warning -> warn, else pass. */
enum wiz_status wiz_status_of(const struct wiz_step *s);
/* The default exit_code(): 1 when the step warned, failed or was blocked, else 0. */
int wiz_exit_of(const struct wiz_step *s);
/* Step s's batch exit status: its exit_code() hook, else wiz_exit_of(). *why
 * (may be NULL) gets the hook's words for a 2, else NULL. */
int wizard_step_exit(const struct wiz_step *s, const char **why);
/* Whether an NCCL_IB_HCA-style list selects port `port` of HCA dev (port
 * -1: the device as a whole). NCCL's rules: "^" excludes what the list
 * names, "=" wants exact names, otherwise each name is a prefix ("mlx5"
 * takes every mlx5_N); "name:N" only port N. An empty list takes all. */
bool wiz_hca_selected(const char *spec, const char *dev, int port);
/* Fills inputs from the options and the job: call before a step runs. */
void wizard_resolve_inputs(struct wizard *w);

/* ---- output (wizard_batch.c) ---- */

/* One step's result through the print layer (text and JSON): the parts
 * every step has, with its print() hook's own after the findings. */
void wizard_print_step(struct fab_out *o, const struct wiz_step *s, bool verbose);

/* Runs the steps in mask (bit i: step i) in ladder order, printing each as
 * it finishes, then the exit line. Returns the exit status: the highest of
 * the steps' (wizard_step_exit()), 2 also when the output cannot be written;
 * 128+N when signal N (INT, TERM, HUP) came: the running step is cancelled
 * (its processes killed and waited for) and printed, and no other runs. */
int wizard_batch(struct wizard *w, const struct fab_model *m, unsigned mask,
		 enum out_mode mode, FILE *fp, bool verbose);

/* How wizard_main() opens the TUI when it is not in batch mode: main passes
 * tui_run() (tui.h), so batch mode links nothing of the TUI. */
typedef int (*wizard_tui_fn)(struct fab_root *root, struct fab_model *m, struct wizard *w);

/* `fabtop [--root R] wizard [--batch] [--steps LIST] [--peer HOST]...
 * [--iface IF] [--hca LIST] [--pid PID] [--json] [--verbose]`. argv is
 * main's whole argv (the wizard parses --root itself). tui NULL: batch
 * always. Returns the exit status: 0 all pass/skipped, 1 a
 * warn/fail/blocked step, 2 could not run. */
int wizard_main(int argc, char **argv, wizard_tui_fn tui);
/* True when main's command word (options and their values skipped) is
 * "wizard": main then hands the whole argv to wizard_main(). */
bool wizard_is_command(int argc, char **argv);

/* ---- the steps' detail drawers (views/; draw() hooks of wiz_steps[]) ---- */

/* The A/B (views/wizard_ab.c): its verdict on top, then run A and run B
 * side by side from AB_SIDE_MIN_W columns, stacked below that; false
 * while it holds no struct ab (not started, blocked). */
bool wizard_ab_body(struct view_pen *p, const struct wiz_step *s);

#endif
