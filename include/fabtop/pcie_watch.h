/*
 * pcie_watch.h - PCIe over time: the AER counters and the link (speed and
 * width) of every PCI function the fabric's traffic crosses, sampled with
 * the counters, and the judgements over them.
 *
 * Which functions (pcie_watch_open(), from the model): each RDMA NIC's
 * function (an SR-IOV VF's PF: it carries the VF's traffic, nic_link_dev()),
 * every bridge above it up to the root port (the PCIe switch ports), and
 * every GPU's function. Their capability is the model's (pcie_link_cap():
 * max_link_speed/width, read once by the PCI collector, bounded by the
 * port above), never read again.
 *
 * What each step reads, per function, in /sys/bus/pci/devices/BDF/:
 * aer_dev_correctable, aer_dev_nonfatal, aer_dev_fatal (lines "NAME VALUE",
 * the last "TOTAL_ERR_COR VALUE" / "TOTAL_ERR_NONFATAL" / "TOTAL_ERR_FATAL";
 * readable without privileges; absent without AER: a VF, a kernel without
 * CONFIG_PCIEAER), current_link_speed and current_link_width. A live or
 * directory root: each file opened once through the root and pread() each
 * step, and one stat of the function's directory notices that it vanished
 * or came back as a new device (its files are then opened anew). Reads never
 * leave the root.
 *
 * The AER TOTAL_* values go through counters.h's counter_step() as 64-bit
 * counters: a fall is a reset (the device was re-enumerated). A transition
 * of a link's speed or width between two steps, a function that vanished or
 * came back, is an event with its time (a bounded list, oldest dropped).
 *
 * Capture and playback: pcie_watch_read() can return the step's raw file
 * texts as a JSON object (one sample's "pcie" member, docs/capture-format.md),
 * and pcie_watch_apply() takes such an object as the step at a recorded
 * time: the same parser and arithmetic, so playback cannot be told from live.
 * The object is untrusted: every string is bounded and parsed as a file.
 *
 * Sequence: pcie_watch_open(live root, or NULL for playback) ->
 *   { pcie_watch_read() | pcie_watch_apply() } ... (pcie_watch_baseline()
 *   where the sampler takes its baseline) -> pcie_watch_findings() whenever
 *   findings are wanted -> pcie_watch_close().
 * No ncurses, no printing: views and reports read the struct and the
 * findings.
 */
#ifndef FABTOP_PCIE_WATCH_H
#define FABTOP_PCIE_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "fabtop/counters.h"
#include "fabtop/model.h"
#include "fabtop/root.h"

struct json_t;
struct fab_sampler;

/* The three AER files, in this order everywhere (arrays, JSON, messages). */
enum pcie_aer_kind { PCIE_AER_COR = 0, PCIE_AER_NONFATAL, PCIE_AER_FATAL, PCIE_AER_KINDS };

/* "aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal". */
const char *pcie_aer_file(enum pcie_aer_kind k);

/* One AER file parsed (pcie_aer_parse()). The kernel writes one line per
 * error bit it names ("RxErr 0"; before 5.x long names with spaces,
 * "Receiver Error 2"), a line "<array>_bit[N] V" for an unnamed bit that
 * counted, then "TOTAL_<ERR_COR|ERR_NONFATAL|ERR_FATAL> V". */
#define PCIE_AER_MAX_ENTRIES 40   /* the kernel has 16 correctable and 32 uncorrectable bits */
#define PCIE_AER_NAME_LEN    40
struct pcie_aer_entry {
	char name[PCIE_AER_NAME_LEN];
	uint64_t v;
};
struct pcie_aer_file {
	int n;
	struct pcie_aer_entry e[PCIE_AER_MAX_ENTRIES];
	uint64_t total;           /* the TOTAL_ line: what the counter is */
};

/* Parses the text of AER file k (len bytes, need not be NUL-terminated).
 * 0 on the kernel's format. -1 on anything else: no TOTAL line (or not the
 * one of k), a line without a value, a value that is not a decimal
 * counter, a name with characters the kernel's names never have, a
 * repeated name, more than PCIE_AER_MAX_ENTRIES lines, a text that does
 * not end with a newline (a read cut short), more than a sysfs page. */
int pcie_aer_parse(enum pcie_aer_kind k, const char *buf, size_t len, struct pcie_aer_file *out);

/* One AER counter of a function, over time. */
struct pcie_aer {
	bool present;             /* the file exists (the function has AER) */
	bool valid;               /* read and parsed at least once */
	bool bad;                 /* the last reading was unreadable or not the format */
	struct pcie_aer_file cur; /* the last good reading */
	struct pcie_aer_file base;/* the reading at the baseline: which bits grew */
	uint64_t since_baseline;  /* TOTAL growth since the baseline, resets included */
	struct ctr_step last;     /* the last step (CTR_FIRST, CTR_RESET, CTR_UNREADABLE ...) */
	/* Correctable errors: the most counted within PCIE_AER_COR_WINDOW_S of
	 * real time since the baseline (pcie_aer_cor_window()). */
	uint64_t window_peak;
	double t_value;           /* private: when cur was read (NAN: the next starts a series) */
};

/* Correctable errors are replays on the link (BadTLP, BadDLLP, Timeout,
 * Rollover, RxErr): DCGM's PCIe health watch warns when a GPU's PCIe replay
 * counter grows by more than 8 in a minute (DCGM_LIMIT_MAX_PCIREPLAY_RATE,
 * "8 replays per minute is the maximum recommended by RM",
 * https://github.com/NVIDIA/DCGM dcgmlib dcgm_gpu_hardware_limits.h, used by
 * modules/health/DcgmHealthWatch.cpp). The same bound is taken for every
 * function's ERR_COR total: more than PCIE_AER_COR_PER_WINDOW within
 * PCIE_AER_COR_WINDOW_S seconds of real time is a warning. */
#define PCIE_AER_COR_PER_WINDOW 8
#define PCIE_AER_COR_WINDOW_S   60.0

/* Roles of a watched function (bits: a function may be several). */
enum pcie_role {
	PCIE_ROLE_NIC    = 1 << 0, /* the function (PF) of an RDMA NIC */
	PCIE_ROLE_BRIDGE = 1 << 1, /* a switch or root port above a NIC */
	PCIE_ROLE_GPU    = 1 << 2,
};

/* A link as read: speed in GT/s (unknown for "Unknown", a link that is
 * down), width in lanes (unknown for 0). */
struct pcie_link_now {
	fab_num speed;
	fab_int width;
};

#define PCIE_WATCH_RING 256       /* steps kept for the correctable window */

struct pcie_fn {
	char bdf[16];
	unsigned roles;           /* enum pcie_role */
	/* What the link can train to (pcie_link_cap()), from the model at open;
	 * unknown when the model does not know. */
	fab_num cap_speed;
	fab_int cap_width;
	bool present;             /* false while vanished */
	/* Its current_link_* is watched: a NIC's or GPU's function, or a switch
	 * upstream port (the link above it); a root or downstream port reads
	 * the link the function below it reads, so only its AER is watched. */
	bool own_link;
	bool link_read;           /* the link was read at least once */
	struct pcie_link_now link;/* the last reading (unknown when unreadable) */
	bool link_bad;            /* the last link reading was unreadable or garbage */
	struct pcie_aer aer[PCIE_AER_KINDS];
	/* private */
	int fd[5];                /* aer x3, current_link_speed, current_link_width; -1 closed */
	ino_t dir_ino;
	double ring_t[PCIE_WATCH_RING];      /* correctable window: step times ... */
	uint64_t ring_v[PCIE_WATCH_RING];    /* ... and since_baseline then */
	int ring_head, ring_n;
};

enum pcie_event_kind {
	PCIE_EV_LINK,             /* speed or width changed */
	PCIE_EV_GONE,             /* the function vanished */
	PCIE_EV_BACK,             /* it came back (a new device: counters start anew) */
};

struct pcie_event {
	double t;                 /* the step's time (monotonic live, recorded in playback) */
	int fn;                   /* index into pcie_watch.fns */
	enum pcie_event_kind kind;
	struct pcie_link_now from, to;  /* PCIE_EV_LINK */
};

#define PCIE_WATCH_EVENTS 64

struct pcie_watch {
	const struct fab_root *root;  /* NULL: playback, nothing is opened */
	struct pcie_fn *fns; int nfns;
	long tick;                /* steps taken */
	double t_first, t_last;   /* times of the first and the last step */
	/* The events, oldest first: ev[(ev_head + i) % PCIE_WATCH_EVENTS] for
	 * i < nev; ev_dropped counts those pushed out. */
	struct pcie_event ev[PCIE_WATCH_EVENTS];
	int ev_head, nev;
	long ev_dropped;
	char note[256];           /* once-only remark ("0000:1a:00.0 vanished") */
};

/* Builds the list of functions from m and, with a root, opens their files
 * (an absent AER file: no AER; the others read as unreadable until they
 * open). r NULL: playback (pcie_watch_apply()). 0, or -1 with err (out of
 * memory). m is not kept. */
int pcie_watch_open(struct pcie_watch *w, const struct fab_root *r, const struct fab_model *m,
		    char *err, size_t len);
/* One live step at t (CLOCK_MONOTONIC seconds; the sampler's step time).
 * With record non-NULL, *record gets a new JSON object of the raw texts
 * read (NULL on no memory): what pcie_watch_apply() takes. 0, or -1 without
 * a root. */
int pcie_watch_read(struct pcie_watch *w, double t, struct json_t **record);
/* The recorded object of one sample as the step at recorded time t:
 * {"BDF": {"aer_dev_correctable": TEXT, ..., "current_link_speed": TEXT,
 * "current_link_width": TEXT}}. A function missing from it vanished; a
 * file missing is absent; null, a non-string, a string longer than a sysfs
 * page or one that is not text (binary, a NUL) is unreadable, as it was
 * live (the record writes null for those). Functions it names that the
 * model does not are ignored. 0, or -1 when obj is not an object or t is
 * not finite (the step is then not taken). */
int pcie_watch_apply(struct pcie_watch *w, const struct json_t *obj, double t);
/* The current values become the baseline (since_baseline and the
 * correctable window start again; events are kept). */
void pcie_watch_baseline(struct pcie_watch *w);
void pcie_watch_close(struct pcie_watch *w);

/* Index of the function with that bus address, or -1. */
int pcie_watch_find(const struct pcie_watch *w, const char *bdf);
/* Event i (0 = oldest) of nev, or NULL. */
const struct pcie_event *pcie_watch_event(const struct pcie_watch *w, int i);

/* ---- the judgements (one function each) ---- */

/* Whether the function's link runs below what it can train to now
 * (pcie_link_below() bits; 0 when either is unknown or it is gone). */
unsigned pcie_fn_below(const struct pcie_fn *f);

/* Which HCAs of m move traffic now: moving[i] for m->nics[i] is true when
 * one of its ports moved traffic in the sampler's last step (its t_moved is
 * that step's time). moving has m->nnics entries. */
void pcie_nic_moving(const struct fab_sampler *s, const struct fab_model *m, bool *moving);

/* Whether traffic runs through function f now: a NIC function or a bridge
 * above it whose HCA moves traffic (moving, m->nnics entries; NULL:
 * unknown), or a GPU function whose GPU is busy (gpu_busy()). FAB_UNKNOWN
 * when it cannot be told; why gets the reason. */
enum fab_tri pcie_fn_loaded(const struct pcie_watch *w, int fn, const struct fab_model *m,
			    const bool *moving, char *why, size_t len);

/* Appends the findings of the watch to out (model_add_finding(); m is the
 * node's model, for names, loads and chains; moving as above). Returns how
 * many it added:
 *   pcie.aer-grew              error: ERR_FATAL or ERR_NONFATAL grew since the
 *                              baseline; warning: ERR_COR more than
 *                              PCIE_AER_COR_PER_WINDOW within PCIE_AER_COR_WINDOW_S;
 *                              info: ERR_COR grew, slower
 *   pcie.aer-total             info: totals since boot, no growth while watched
 *   pcie.below-cap-under-load  warning: a NIC or switch port below its
 *                              capability while its HCA moves traffic, a GPU
 *                              below it while busy
 *   pcie.below-cap-idle        info: below capability while idle (power management)
 *   pcie.link-changed          the link changed speed or width while watched:
 *                              warning for a NIC or switch port, info for a GPU;
 *                              error when it went down
 *   pcie.function-gone         error: a function vanished (warning when it came back)
 */
int pcie_watch_findings(const struct pcie_watch *w, const struct fab_model *m,
			const bool *moving, struct fab_model *out);

#endif
