/*
 * wizard_l3.c - the wizard's layer 3 step: RDMA bandwidth and latency with
 * perftest between this node and one peer, on the HCA port the job would
 * use, compared with that port's line rate.
 *
 * Runs, each through the runner (own process group, argv only), one after
 * the other: ib_write_bw -d DEV -i PORT [-x GID] -a --report_gbits -F [PEER]
 * then ib_write_lat -d DEV -i PORT [-x GID] -a -F [PEER]. The server waits
 * for its client: no output for L3_IDLE_S seconds ends it as hung. The
 * client retries "Couldn't connect" up to L3_CONNECT_TRIES times, 1 s apart
 * (the server may not be up yet, or be between its bw and lat runs).
 *
 * Findings (ids):
 *   l3.bw             info: bandwidth at >= 90% of the line rate at the largest size
 *   l3.bw-short       warn: 75-90% of the line rate
 *   l3.bw-low         warn: below 75%
 *   l3.rate-unknown   info: the port's rate is unknown, nothing to compare with
 *   l3.lat            info: latency (typical) at 2 B and 4 KiB
 *   l3.no-device      error: perftest found no RDMA device or not the one named
 *   l3.connect        error: the TCP side channel to the peer failed
 *   l3.qp             error: QP to INIT/RTR/RTS or GID failed
 *   l3.completion     error: a work completion with error (the fabric dropped it)
 *   l3.error          error: another perftest error, an exit without a result,
 *                     or a run killed (hung, timed out)
 *   l3.cpu-freq       info: perftest saw conflicting CPU frequencies
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "perftest.h"
#include "fabtop/i18n.h"
#include "fabtop/runner.h"
#include "fabtop/util.h"
#include "fabtop/wizard.h"
#include "fabtop/vocab.h"
#include "wizard_int.h"

#define L3_IDLE_S          60.0   /* the server waits this long for its client */
#define L3_RUN_S           600.0  /* one perftest run at most */
#define L3_CONNECT_TRIES   10
#define L3_RETRY_S         1.0

enum { PH_BW = 0, PH_LAT, PH_DONE };

struct l3 {
	struct wiz_step *s;
	char dev[FAB_NAME_LEN];
	int port;
	double rate_gbps;             /* port_line_gbps(); <= 0: unknown */
	char rate_why[200];           /* why it is below the port rate, "" if not */
	bool roce;
	int gid;                      /* -1: perftest's default */
	bool server;
	char peer[WIZ_HOST_LEN];
	bool have_lat;                /* ib_write_lat is on PATH */
	int phase;
	int tries;                    /* attempts of the current phase */
	int last_tries;               /* attempts of the phase that ended last */
	double retry_at;              /* monotonic time of the next attempt; 0 none */
	struct run_job *job;
	struct perftest pt;           /* the current run */
	struct perftest bw, lat;      /* the finished runs */
	bool bw_done, lat_done;
	char killed[256];             /* the runner's reason when it killed a run */
};

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Whether prog is an executable file in a directory of $PATH (no shell). */
static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/bin:/bin";
	char buf[4096];
	fab_strlcpy(buf, path, sizeof(buf));
	for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char full[4352];
		snprintf(full, sizeof(full), "%s/%s", *d ? d : ".", prog);
		if (access(full, X_OK) == 0)
			return true;
	}
	return false;
}

/* The HCA port to test: the first ACTIVE port the HCA list selects, else
 * the first ACTIVE port. */
static const struct fab_port *pick_port(const struct wizard *w, const struct fab_model *m,
					const struct fab_nic **nic)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; m && i < m->nnics; i++)
			for (int k = 0; k < m->nics[i].nports && k < FAB_MAX_PORTS; k++) {
				const struct fab_port *p = &m->nics[i].ports[k];
				if (!p->state.ok || p->state.v != 4)
					continue;
				if (pass == 0 && !wiz_hca_selected(w->in.hca, m->nics[i].name, p->num))
					continue;
				*nic = &m->nics[i];
				return p;
			}
	return NULL;
}

static bool is_server(const struct wizard *w)
{
	return strcmp(w->side, "server") == 0;
}

bool wiz_l3_gate(const struct wizard *w, const struct fab_model *m, char *why, size_t len)
{
	const struct fab_nic *nic;
	if (w->root && w->root->is_capture) {
		snprintf(why, len, _("--root %s is a capture of a node: perftest must run on that node, "
			 "with its HCAs (run the wizard there)"), w->root->name);
		return true;
	}
	if (!w->side[0] && w->in.npeers == 0) {
		snprintf(why, len, _("give --peer HOST on the client, or --side server on the peer"));
		return true;
	}
	if (strcmp(w->side, "client") == 0 && w->in.npeers == 0) {
		snprintf(why, len, _("the client side needs --peer HOST (the node running --side server)"));
		return true;
	}
	if (!m) {
		snprintf(why, len, _("no node model"));
		return true;
	}
	if (!pick_port(w, m, &nic)) {
		snprintf(why, len, _("no ACTIVE HCA port on this node (see layer 1)"));
		return true;
	}
	return false;
}

/* ---- the runs ------------------------------------------------------------------ */

static void on_output(void *ctx, const char *buf, size_t len)
{
	struct l3 *st = ctx;
	perftest_feed(&st->pt, buf, len);
	wiz_out(st->s, "%.*s", (int)len, buf);
}

static int start_run(struct l3 *st)
{
	char port[8], gid[8], err[256];
	const char *argv[16];
	int n = 0;
	argv[n++] = st->phase == PH_BW ? "ib_write_bw" : "ib_write_lat";
	argv[n++] = "-d";
	argv[n++] = st->dev;
	snprintf(port, sizeof(port), "%d", st->port);
	argv[n++] = "-i";
	argv[n++] = port;
	if (st->gid >= 0) {
		snprintf(gid, sizeof(gid), "%d", st->gid);
		argv[n++] = "-x";
		argv[n++] = gid;
	}
	argv[n++] = "-a";
	if (st->phase == PH_BW)
		argv[n++] = "--report_gbits";
	argv[n++] = "-F";   /* without it perftest refuses to run on CPU frequency scaling */
	if (!st->server)
		argv[n++] = st->peer;
	argv[n] = NULL;
	if (st->tries == 0) {
		char line[512];
		run_format_argv(argv, line, sizeof(line));
		wiz_cmd(st->s, "%s", line);
	}
	st->tries++;
	if (st->tries > 1)
		wiz_out(st->s, _("[fabtop: attempt %d of %d]\n"), st->tries, L3_CONNECT_TRIES);
	perftest_init(&st->pt);
	struct run_opts o = {
		.timeout_s = L3_RUN_S,
		.idle_timeout_s = L3_IDLE_S,
		.on_output = on_output,
		.ctx = st,
	};
	if (run_start(argv, &o, &st->job, err, sizeof(err)) != 0) {
		st->job = NULL;
		wiz_out(st->s, "%s\n", err);
		fab_strlcpy(st->killed, err, sizeof(st->killed));
		return -1;
	}
	return 0;
}

/* The current run ended: keep it, retry it, or move on. */
static void run_ended(struct l3 *st, const struct run_result *r)
{
	perftest_end(&st->pt);
	st->killed[0] = '\0';
	if (r->err[0]) {
		fab_strlcpy(st->killed, r->err, sizeof(st->killed));
		wiz_out(st->s, "[fabtop: %s]\n", r->err);
	}
	if (!st->server && st->pt.err == PT_ERR_CONNECT && !r->cancelled && st->tries < L3_CONNECT_TRIES) {
		st->retry_at = mono() + L3_RETRY_S;
		return;
	}
	if (st->phase == PH_BW) {
		st->bw = st->pt;
		st->bw_done = true;
		bool ok = !st->killed[0] && st->bw.err == PT_ERR_NONE && st->bw.nbw > 0;
		st->phase = ok && st->have_lat ? PH_LAT : PH_DONE;
	} else {
		st->lat = st->pt;
		st->lat_done = true;
		st->phase = PH_DONE;
	}
	st->last_tries = st->tries;
	st->tries = 0;
	st->retry_at = st->phase == PH_DONE ? 0 : mono();
}

/* ---- the result ----------------------------------------------------------------- */

static const char *size_name(long long b, char *buf, size_t len)
{
	if (b >= 1048576 && b % 1048576 == 0)
		snprintf(buf, len, "%lld MiB", b / 1048576);
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(buf, len, "%lld KiB", b / 1024);
	else
		snprintf(buf, len, "%lld B", b);
	return buf;
}

static void error_finding(struct l3 *st, const struct perftest *p, const char *what)
{
	static const struct { enum pt_err e; const char *id, *msg, *hint; } tab[] = {
		{ PT_ERR_NO_DEVICE, "l3.no-device", N_("perftest found no RDMA device%s"),
		  N_("check that the HCA is visible here (ibv_devices; in a pod, the RDMA device plugin) "
		  "and that -d names it") },
		{ PT_ERR_CONNECT, "l3.connect", N_("perftest could not reach its peer over TCP%s"),
		  N_("start the server side first (fabtop wizard --side server, or ib_write_bw -d DEV on the "
		  "peer); check layer 2 (route, firewall on port 18515)") },
		{ PT_ERR_QP, "l3.qp", N_("the queue pair could not be connected%s"),
		  N_("QP to RTR fails on a wrong GID index (use the RoCE v2 GID: --gid-index), an MTU the "
		  "path does not carry, or a peer on another subnet/partition") },
		{ PT_ERR_COMPLETION, "l3.completion", N_("RDMA traffic failed with a completion error%s"),
		  N_("the fabric dropped or refused the traffic: check the switch ports, PFC/ECN on RoCE, "
		  "and the error counters (Counters pane)") },
		{ PT_ERR_OTHER, "l3.error", N_("perftest failed%s"), N_("read the raw output (v) for the failing call") },
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (tab[i].e != p->err)
			continue;
		struct fab_finding *f = wiz_finding(st->s, tab[i].id, SEV_ERROR, st->dev);
		if (!f)
			return;
		char tail[96];
		snprintf(tail, sizeof(tail), " (%s)", what);
		snprintf(f->message, sizeof(f->message), _(tab[i].msg), tail);
		fab_strlcpy(f->evidence, p->err_line, sizeof(f->evidence));
		if (p->err == PT_ERR_CONNECT && !st->server)
			snprintf(f->evidence, sizeof(f->evidence), _("%s (after %d attempts, %.0f s apart)"),
				 p->err_line, st->last_tries, L3_RETRY_S);
		fab_strlcpy(f->hint, _(tab[i].hint), sizeof(f->hint));
		fab_strlcpy(f->layer, _("layer 3: RDMA between the HCAs, below NCCL"), sizeof(f->layer));
		return;
	}
}

static void bw_findings(struct l3 *st)
{
	const struct perftest *p = &st->bw;
	const struct pt_bw_row *big = perftest_bw_largest(p);
	static const long long pick[] = { 4096, 65536, 1048576, 8388608 };
	char ev[384] = "", sz[16];
	size_t n = 0;
	for (size_t i = 0; i < sizeof(pick) / sizeof(pick[0]); i++) {
		const struct pt_bw_row *r = perftest_bw_at(p, pick[i]);
		if (!r)
			continue;
		if (st->rate_gbps > 0)
			n += (size_t)snprintf(ev + n, sizeof(ev) - n, "%s%s %.2f Gb/s (%.0f%%)", n ? ", " : "",
					      size_name(r->bytes, sz, sizeof(sz)), r->avg_gbps,
					      100.0 * r->avg_gbps / st->rate_gbps);
		else
			n += (size_t)snprintf(ev + n, sizeof(ev) - n, "%s%s %.2f Gb/s", n ? ", " : "",
					      size_name(r->bytes, sz, sizeof(sz)), r->avg_gbps);
		if (n >= sizeof(ev))
			break;
	}
	if (!n && big)
		snprintf(ev, sizeof(ev), "%s %.2f Gb/s", size_name(big->bytes, sz, sizeof(sz)), big->avg_gbps);
	if (st->rate_gbps <= 0) {
		struct fab_finding *f = wiz_finding(st->s, "l3.rate-unknown", SEV_INFO, st->dev);
		if (f) {
			snprintf(f->message, sizeof(f->message), _("%.2f Gb/s at %s; the port's line rate is "
				 "unknown"), big->avg_gbps, size_name(big->bytes, sz, sizeof(sz)));
			fab_strlcpy(f->evidence, ev, sizeof(f->evidence));
		}
		return;
	}
	double frac = big->avg_gbps / st->rate_gbps;
	const char *id = frac >= FAB_LINE_SHARE_GOOD ? "l3.bw" : frac >= FAB_LINE_SHARE_LOW ? "l3.bw-short" : "l3.bw-low";
	struct fab_finding *f = wiz_finding(st->s, id, frac >= FAB_LINE_SHARE_GOOD ? SEV_INFO : SEV_WARN, st->dev);
	if (!f)
		return;
	const char *fmt = frac >= FAB_LINE_SHARE_GOOD ? _("%s: %.2f Gb/s at %s = %.0f%% of the %.0f Gb/s line rate")
		: frac >= FAB_LINE_SHARE_LOW ? _("%s: %.2f Gb/s at %s = %.0f%% of the %.0f Gb/s line rate (short of "
						 "the 90%% a healthy link reaches)")
		: _("%s: %.2f Gb/s at %s = %.0f%% of the %.0f Gb/s line rate (low)");
	snprintf(f->message, sizeof(f->message), fmt,
		 p->test[0] ? p->test : "ib_write_bw", big->avg_gbps, size_name(big->bytes, sz, sizeof(sz)),
		 100.0 * frac, st->rate_gbps);
	fab_strlcpy(f->evidence, ev, sizeof(f->evidence));
	if (st->rate_why[0])
		fab_catf(f->evidence, sizeof(f->evidence), _("; line rate: %s"), st->rate_why);
	/* xgettext:no-c-format */
	fab_strlcpy(f->layer, _("layer 3: a healthy link reaches about 90-97% of line rate with "
		    "ib_write_bw at 64 KiB and above"), sizeof(f->layer));
	if (frac < FAB_LINE_SHARE_GOOD)
		snprintf(f->hint, sizeof(f->hint), "%s", frac >= FAB_LINE_SHARE_LOW
			 ? _("check PCIe (width/speed of the HCA's link, Topology pane), the HCA's NUMA node, and "
			     "congestion from other traffic")
			 : _("well below line rate: a degraded link (layer 1 rate/width), PCIe downtraining, "
			     "congestion or pause frames (Counters pane), or a peer slower than this port"));
}

static void lat_finding(struct l3 *st)
{
	const struct perftest *p = &st->lat;
	const struct pt_lat_row *a = perftest_lat_at(p, 2), *b = perftest_lat_at(p, 4096);
	if (!a && !b)
		return;
	struct fab_finding *f = wiz_finding(st->s, "l3.lat", SEV_INFO, st->dev);
	if (!f)
		return;
	char one[64] = "", two[64] = "";
	if (a && a->t_typical.ok)
		snprintf(one, sizeof(one), _("%.2f us at 2 B"), a->t_typical.v);
	if (b && b->t_typical.ok)
		snprintf(two, sizeof(two), _("%.2f us at 4 KiB"), b->t_typical.v);
	snprintf(f->message, sizeof(f->message), _("latency (typical) %s%s%s"), one, one[0] && two[0] ? ", " : "",
		 two);
	if (a && a->p99.ok)
		snprintf(f->evidence, sizeof(f->evidence), "2 B: min %.2f, 99%% %.2f, max %.2f us",
			 a->t_min.v, a->p99.v, a->t_max.v);
}

static void finish(struct l3 *st)
{
	struct wiz_step *s = st->s;
	const char *which = st->server ? _("server side") : _("client side");
	if (st->bw.cpu_freq_warning || st->lat.cpu_freq_warning) {
		struct fab_finding *f = wiz_finding(s, "l3.cpu-freq", SEV_INFO, st->dev);
		if (f)
			snprintf(f->message, sizeof(f->message), _("perftest saw conflicting CPU frequencies "
				 "(run with -F, as here; pin the CPU governor for exact latency)"));
	}
	const struct perftest *bad = st->bw.err ? &st->bw : st->lat_done && st->lat.err ? &st->lat : NULL;
	if (bad) {
		error_finding(st, bad, bad == &st->bw ? "ib_write_bw" : "ib_write_lat");
	} else if (st->killed[0] || (st->bw_done && st->bw.nbw == 0)) {
		struct fab_finding *f = wiz_finding(s, "l3.error", SEV_ERROR, st->dev);
		if (f) {
			if (st->killed[0] && st->server && strstr(st->killed, "hung"))
				snprintf(f->message, sizeof(f->message), _("no client connected within %.0f s"),
					 L3_IDLE_S);
			else if (st->killed[0])
				snprintf(f->message, sizeof(f->message), _("%s gave no result: %s"),
					 st->phase == PH_LAT || st->lat_done ? "ib_write_lat" : "ib_write_bw",
					 st->killed);
			else
				snprintf(f->message, sizeof(f->message), _("%s gave no result"),
					 st->phase == PH_LAT || st->lat_done ? "ib_write_lat" : "ib_write_bw");
			fab_strlcpy(f->hint, st->server ? _("start the client side on the peer within a minute "
				    "(fabtop wizard --peer THIS-NODE)") : _("read the raw output (v)"), sizeof(f->hint));
		}
	}
	if (st->bw.nbw > 0)
		bw_findings(st);
	if (st->lat_done && st->lat.nlat > 0)
		lat_finding(st);
	s->status = wiz_status_of(s);
	/* The verdict: the worst finding, led by the side. */
	const struct fab_finding *worst = NULL;
	for (int i = 0; i < s->nfindings; i++)
		if (!worst || s->findings[i].sev > worst->sev ||
		    (s->findings[i].sev == worst->sev && worst->sev == SEV_INFO &&
		     strncmp(s->findings[i].id, "l3.bw", 5) == 0))
			worst = &s->findings[i];
	if (worst) {
		snprintf(s->verdict, sizeof(s->verdict), "%s: %s", which, worst->message);
		fab_strlcpy(s->hint, worst->sev > SEV_INFO ? worst->hint : "", sizeof(s->hint));
	}
	const struct fab_finding *lat = NULL;
	for (int i = 0; i < s->nfindings; i++)
		if (strcmp(s->findings[i].id, "l3.lat") == 0)
			lat = &s->findings[i];
	if (lat && worst != lat) {
		size_t n = strlen(s->verdict);
		snprintf(s->verdict + n, sizeof(s->verdict) - n, "; %s", lat->message);
	}
	if (!st->have_lat && s->status == WIZ_PASS)
		wiz_out(s, _("[fabtop: ib_write_lat is not on PATH: latency not measured]\n"));
}

/* ---- the step ------------------------------------------------------------------- */

static void l3_skip_missing(struct wiz_step *s)
{
	s->status = WIZ_SKIPPED;
	snprintf(s->verdict, sizeof(s->verdict), _("perftest is not installed (ib_write_bw is not on PATH)"));
	snprintf(s->hint, sizeof(s->hint), _("install perftest (Debian/Ubuntu: apt install perftest; RHEL: "
		 "dnf install perftest; MLNX_OFED/DOCA include it), or run the pair by hand: on the peer "
		 "ib_write_bw -d DEV -a --report_gbits -F, here ib_write_bw -d DEV -a --report_gbits -F PEER"));
}

int wiz_l3_start(struct wizard *w, struct wiz_step *s, const struct fab_model *m)
{
	const struct fab_nic *nic = NULL;
	const struct fab_port *p = pick_port(w, m, &nic);
	wiz_input(s, _("side: %s"), w->side[0] ? (is_server(w) ? _("server (--side)") : _("client (--side)"))
		  : _("client (a peer was given)"));
	if (!on_path("ib_write_bw")) {
		wiz_cmd(s, _("look for ib_write_bw and ib_write_lat on PATH"));
		l3_skip_missing(s);
		return -1;   /* the status stays skipped */
	}
	struct l3 *st = calloc(1, sizeof(*st));
	if (!st || !p) {
		free(st);
		snprintf(s->verdict, sizeof(s->verdict), p ? _("out of memory") : _("no ACTIVE HCA port"));
		return -1;
	}
	s->priv = st;
	st->s = s;
	fab_strlcpy(st->dev, nic->name, sizeof(st->dev));
	st->port = p->num;
	st->rate_gbps = port_line_gbps(m, nic, p, st->rate_why, sizeof(st->rate_why));
	st->roce = p->ll == FAB_LL_ETH;
	st->server = is_server(w);
	if (!st->server)
		fab_strlcpy(st->peer, w->in.peers[0], sizeof(st->peer));
	st->have_lat = on_path("ib_write_lat");
	wiz_input(s, _("HCA port %s/%d, %s, line rate %s%s"), st->dev, st->port,
		  st->roce ? "RoCE" : ll_name(p->ll) ? ll_name(p->ll) : _("link layer N/A"),
		  p->rate_str[0] ? p->rate_str : "N/A",
		  w->in.hca[0] ? "" : _(" (the first ACTIVE port; --hca to choose)"));
	if (st->rate_why[0])
		wiz_input(s, _("line rate judged against: %s"), st->rate_why);
	if (w->gid_index >= 0) {
		st->gid = w->gid_index;
		wiz_input(s, _("GID index %d (--gid-index)"), st->gid);
	} else if (w->job_gid_set) {
		st->gid = w->job_gid_index;
		wiz_input(s, _("GID index %d (NCCL_IB_GID_INDEX of the job)"), st->gid);
	} else {
		st->gid = -1;
		wiz_input(s, _("GID index: perftest's default%s"), st->roce ? _(" (RoCE: NCCL may use another; "
			  "--gid-index N to test the one NCCL uses)") : "");
	}
	if (!st->server)
		wiz_input(s, _("peer %s (it must run the server side: fabtop wizard --side server, or "
			  "ib_write_bw/ib_write_lat with the same -d)"), st->peer);
	else
		wiz_input(s, _("waiting up to %.0f s for the client (fabtop wizard --peer THIS-NODE on the "
			  "peer)"), L3_IDLE_S);
	st->phase = PH_BW;
	if (start_run(st) != 0) {
		st->phase = PH_DONE;
		finish(st);
		return -1;
	}
	return 0;
}

int wiz_l3_poll(struct wizard *w, struct wiz_step *s, int timeout_ms)
{
	struct l3 *st = s->priv;
	(void)w;
	if (!st || st->phase == PH_DONE)
		return 1;
	if (st->job) {
		int rc = run_poll(st->job, timeout_ms);
		if (rc == 0)
			return 0;
		struct run_result r;
		run_finish(st->job, &r);
		st->job = NULL;
		run_ended(st, &r);
		run_result_free(&r);
		if (st->phase == PH_DONE) {
			finish(st);
			return 1;
		}
		return 0;
	}
	/* Between runs: wait for the next attempt, at most timeout_ms here. */
	double left = st->retry_at - mono();
	if (left > 0) {
		double wait = timeout_ms >= 0 && timeout_ms / 1000.0 < left ? timeout_ms / 1000.0 : left;
		struct timespec ts = { (time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9) };
		nanosleep(&ts, NULL);
		if (st->retry_at - mono() > 0)
			return 0;
	}
	st->retry_at = 0;
	if (start_run(st) != 0) {
		if (st->phase == PH_BW)
			st->bw_done = true;
		st->phase = PH_DONE;
		finish(st);
		return 1;
	}
	return 0;
}

void wiz_l3_cancel(struct wizard *w, struct wiz_step *s)
{
	struct l3 *st = s->priv;
	(void)w;
	if (!st || !st->job)
		return;
	struct run_result r;
	run_cancel(st->job);
	run_finish(st->job, &r);
	st->job = NULL;
	run_result_free(&r);
	st->phase = PH_DONE;
}

int wiz_l3_wait_fd(const struct wiz_step *s)
{
	const struct l3 *st = s->priv;
	return st && st->job ? run_fd(st->job) : -1;
}

void wiz_l3_fini(struct wiz_step *s)
{
	struct l3 *st = s->priv;
	if (st && st->job) {
		struct run_result r;
		run_cancel(st->job);
		run_finish(st->job, &r);
		run_result_free(&r);
	}
	free(st);
	s->priv = NULL;
}
