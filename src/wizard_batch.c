/*
 * wizard_batch.c - `fabtop wizard`: the options, then either the TUI on the
 * Wizard pane or (--batch, or no terminal) every chosen step in ladder
 * order, each printed as it finishes through the print layer, so the text
 * and the JSON cannot disagree.
 *
 * Batch mode never calls into the TUI: this file includes nothing of it,
 * and the one way in is the wizard_tui_fn that main hands to wizard_main()
 * for the interactive path (tests/wizard/t_batch_layers.sh checks the
 * objects). What a step adds to its output and to the exit status comes
 * from its print() and exit_code() hooks; no step is known here by its id
 * except through --steps, the user's own words (wizard_find_step()).
 *
 * Exit status: 0 every step passed or was skipped, 1 a step warned, failed
 * or was blocked, 2 the wizard could not run (bad arguments, unknown step,
 * unreadable root, or a step that says so, as the A/B that could not run),
 * 128+N when signal N (INT, TERM, HUP) interrupted it.
 *
 * Interrupted, batch mode does what the console does: the running step is
 * cancelled (its process groups killed, waited for), it is printed as
 * cancelled, no further step runs, and the exit line says why.
 */
#define _GNU_SOURCE   /* sigabbrev_np */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fabtop/collect.h"
#include "fabtop/report.h"
#include "fabtop/i18n.h"
#include "fabtop/sanitize.h"
#include "fabtop/table.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"
#include "fabtop/wizard.h"
#include "wizard_int.h"

/* The option words stay as they are in every language. */
static const char wizard_usage[] = N_(
"usage: fabtop [--root R] wizard [--batch] [--steps job,l1,l2,l3,ab] [--peer HOST]...\n"
"                                [--iface IF] [--hca LIST] [--pid PID] [--json] [--verbose]\n"
"                                [--side server|client] [--gid-index N]\n"
"                                [--hang S] [--run-timeout S] [-- NCCL-TEST-COMMAND...]\n"
"  Climbs the test ladder: the NCCL job on this node (job), the physical\n"
"  links of its HCAs (l1), IP, route and path MTU to each peer (l2), RDMA\n"
"  bandwidth and latency with perftest (l3), then the NCCL test run with and\n"
"  without NCCL_IB_DISABLE=1 (ab).\n"
"  Without --batch (and on a terminal) it opens the Wizard pane.\n"
"  --peer HOST      another node of the job (up to 8); the MTU probe goes to it only\n"
"  --iface IF       the interface NCCL uses (default: the job's NCCL_SOCKET_IFNAME)\n"
"  --hca LIST       HCAs in NCCL_IB_HCA syntax (default: the job's, else all)\n"
"  --pid PID        check this NCCL process only\n"
"  --steps LIST     run these steps only (batch)\n"
"  --probe-timeout S  seconds to wait for each MTU probe's answer (default 1)\n"
"  --side server|client  this node's side of the perftest pair (default: client\n"
"                   when a peer is given; start the server side on the peer first)\n"
"  --gid-index N    perftest's GID index (default: the job's NCCL_IB_GID_INDEX)\n"
"  --hang S         the A/B: no output for S seconds means hung (default 120)\n"
"  --run-timeout S  the A/B: each run at most S seconds (default: no limit)\n"
"  -- CMD...        the A/B's NCCL test, e.g. -- all_reduce_perf -b 8 -e 1G -f 2 -g 8,\n"
"                   or the job's mpirun/srun/torchrun line (default: a single-node\n"
"                   NIC loopback run when all_reduce_perf is on PATH)\n"
"  --verbose        print each step's raw output too\n"
"Exit status: 0 all passed or skipped, 1 a step warned, failed or was blocked, 2 could not run,\n"
"128+N interrupted by signal N (the running step's processes are killed first).\n");

/* ---- printing one step ---------------------------------------------------------- */

static void print_peer(struct fab_out *o, const struct wiz_peer *p)
{
	out_open_obj(o, NULL);
	out_str(o, PR_ANY, "peer", _("  peer %s"), p->peer);
	out_str(o, PR_ANY, "address", " (%s)", p->addr);
	if (!p->route_dev[0] && !out_is_json(o)) {
		out_text(o, ": %s\n", p->message);
		out_close_obj(o);
		return;
	}
	out_str(o, PR_ANY, "route_dev", _(": route dev %s"), p->route_dev);
	if (p->route_via[0] || out_is_json(o))
		out_str(o, PR_ANY, "route_via", " via %s", p->route_via);
	out_bool(o, PR_JSON, "route_ok", NULL, p->route_ok);
	out_str(o, PR_JSON, "route_src", NULL, p->route_src[0] ? p->route_src : NULL);
	if (!p->route_ok && p->route_dev[0])
		out_text(o, "%s", _(" (not the chosen interface)"));
	if (p->probed || out_is_json(o)) {
		out_str(o, PR_ANY, "verdict", "; %s", p->verdict[0] ? p->verdict : NULL);
		out_int(o, PR_ANY, "path_mtu", _(", path MTU %lld"), p->path_mtu);
		out_int(o, PR_ANY, "iface_mtu", _(" of %lld"), p->iface_mtu);
		if (p->hop[0] || out_is_json(o)) {
			out_str(o, PR_ANY, "hop", _(", hop %s"), p->hop);
			out_int(o, PR_ANY, "hop_mtu", _(" said %lld"), p->hop_mtu);
		}
		out_int(o, PR_JSON, "probes", NULL, p->nprobes);
		if (p->nprobes.ok)
			out_text(o, P_(", %lld probe", ", %lld probes", (unsigned long)p->nprobes.v), p->nprobes.v);
		out_num(o, PR_ANY, "elapsed_s", _(" in %.2f s"), p->elapsed_s);
	}
	out_str(o, PR_JSON, "message", NULL, p->message);
	out_text(o, "\n");
	out_close_obj(o);
}

/* The labels of a step's lines, in the interface's language, padded to
 * the widest of them (display columns: a CJK character is two), so the
 * values line up as the English "  verdict: " does. */
enum { LBL_VERDICT, LBL_HINT, LBL_INPUTS, LBL_RAN, LBL_N };

static void step_labels(char fmt[LBL_N][96], char *cont, size_t cont_len)
{
	const char *words[LBL_N] = { _("verdict:"), _("hint:"), _("inputs:"), _("ran:") };
	int w = 8;
	for (int i = 0; i < LBL_N; i++)
		if (tbl_width(words[i]) > w)
			w = tbl_width(words[i]);
	for (int i = 0; i < LBL_N; i++) {
		int pad = w - tbl_width(words[i]);
		/* A label never holds a %: it is the catalog's, not the node's. */
		snprintf(fmt[i], 96, "  %s%*s %%s\n", strchr(words[i], '%') ? "?" : words[i], pad > 0 ? pad : 0, "");
	}
	snprintf(cont, cont_len, "  %*s %%s\n", w, "");
}

void wizard_print_step(struct fab_out *o, const struct wiz_step *s, bool verbose)
{
	const struct wiz_step_def *d = s->def;
	char head[512], padded[600], fmt[LBL_N][96], cont[64];
	out_open_obj(o, NULL);
	out_str(o, PR_JSON, "id", NULL, d->id);
	out_str(o, PR_JSON, "layer", NULL, d->layer);
	out_str(o, PR_JSON, "title", NULL, d->title);
	out_str(o, PR_JSON, "status", NULL, wiz_status_name(s->status));
	if (!out_is_json(o)) {
		/* The id stays as --steps takes it; layer and title are translated. */
		snprintf(head, sizeof(head), "[%s] %s: %s", d->id, _(d->layer), _(d->title));
		int pad = 58 - tbl_width(head);
		snprintf(padded, sizeof(padded), "%s%*s", head, pad > 0 ? pad : 0, "");
		out_text(o, "%s %s", padded, wiz_status_text(s->status));
	}
	step_labels(fmt, cont, sizeof(cont));
	out_num(o, PR_ANY, "elapsed_s", " (%.2f s)\n", fab_num_of(round(s->elapsed_s * 1000) / 1000));
	out_str(o, PR_ANY, "verdict", fmt[LBL_VERDICT], s->verdict);
	if (s->hint[0] || out_is_json(o))
		out_str(o, PR_ANY, "hint", fmt[LBL_HINT], s->hint);
	out_open_arr(o, "inputs");
	for (int i = 0; i < s->ninputs; i++)
		out_str(o, PR_ANY, NULL, i ? cont : fmt[LBL_INPUTS], s->inputs[i]);
	out_close_arr(o);
	out_open_arr(o, "commands");
	for (int i = 0; i < s->ncmds; i++)
		out_str(o, PR_ANY, NULL, i ? cont : fmt[LBL_RAN], s->cmds[i]);
	out_close_arr(o);
	if (s->npeers || out_is_json(o)) {
		out_open_arr(o, "peers");
		for (int i = 0; i < s->npeers; i++)
			print_peer(o, &s->peers[i]);
		out_close_arr(o);
	}
	out_open_arr(o, "findings");
	for (int i = 0; i < s->nfindings; i++)
		finding_print(o, &s->findings[i], 2);
	out_close_arr(o);
	if (d->print)
		d->print(o, s, verbose);
	if (verbose) {
		out_text(o, "  %s\n", _("output:"));
		const char *p = s->out ? s->out : "";
		while (*p && !out_is_json(o)) {
			size_t n = strcspn(p, "\n");
			/* Tabs align command output: spaces here, \t in a name. A tab
			 * takes at most 8 bytes shown, any other byte 4. */
			char *line = malloc(8 * n + 1);
			if (line)
				out_text(o, "    %s\n", fab_sanitize_line(p, n, line, 8 * n + 1));
			free(line);
			p += n + (p[n] == '\n');
		}
		out_str(o, PR_JSON, "output", NULL, s->out ? s->out : "");
		if (s->out_total > s->out_len)
			out_text(o, _("    [output cut at %zu of %zu bytes]\n"), s->out_len, s->out_total);
	}
	out_text(o, "\n");
	out_close_obj(o);
}

/* ---- options ---------------------------------------------------------------------- */

int wizard_parse_args(int argc, char **argv, struct wiz_args *a)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, 'R' },
		{ "batch", no_argument, NULL, 'b' },
		{ "steps", required_argument, NULL, 's' },
		{ "peer", required_argument, NULL, 'p' },
		{ "iface", required_argument, NULL, 'i' },
		{ "hca", required_argument, NULL, 'H' },
		{ "pid", required_argument, NULL, 'P' },
		{ "probe-timeout", required_argument, NULL, 't' },
		{ "side", required_argument, NULL, 'S' },
		{ "gid-index", required_argument, NULL, 'g' },
		{ "hang", required_argument, NULL, 'T' },
		{ "run-timeout", required_argument, NULL, 'W' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	char *end;
	bool seen_cmd = false;
	memset(a, 0, sizeof(*a));
	/* 0, not 1: glibc then starts afresh, forgetting where it stopped in
	 * the last argv it parsed (a cluster like -jh left half read). */
	optind = 0;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "-jvh", longopts, NULL)) != -1) {
		switch (c) {
		case 1:   /* a word: "wizard" once, nothing else */
			if (!seen_cmd && strcmp(optarg, "wizard") == 0) {
				seen_cmd = true;
				break;
			}
			fab_fprintf(stderr, _("fabtop wizard: unexpected argument \"%s\"\n"), optarg);
			return 2;
		case 'R': a->root = optarg; break;
		case 'b': a->batch = true; break;
		case 's': a->steps = optarg; break;
		case 'p':
			if (a->wo.npeers >= WIZ_MAX_PEERS) {
				fprintf(stderr, _("fabtop wizard: too many peers: at most %d\n"), WIZ_MAX_PEERS);
				return 2;
			}
			a->wo.peers[a->wo.npeers++] = optarg;
			break;
		case 'i': a->wo.iface = optarg; break;
		case 'H': a->wo.hca = optarg; break;
		case 'P': {
			long v = strtol(optarg, &end, 10);
			if (!*optarg || *end || v < 1 || v > 4194304) {
				fab_fprintf(stderr, _("fabtop wizard: --pid wants a process id, not \"%s\"\n"), optarg);
				return 2;
			}
			a->wo.pid = (int)v;
			break;
		}
		case 't':
			a->wo.probe_timeout_s = strtod(optarg, &end);
			if (!*optarg || *end || !(a->wo.probe_timeout_s > 0) || a->wo.probe_timeout_s > 60) {
				fab_fprintf(stderr, _("fabtop wizard: --probe-timeout wants seconds (0 < S <= 60), not \"%s\"\n"),
					optarg);
				return 2;
			}
			break;
		case 'S': a->wo.side = optarg; break;
		case 'g': {
			long v = strtol(optarg, &end, 10);
			if (!*optarg || *end || v < 0 || v > 255) {
				fab_fprintf(stderr, _("fabtop wizard: --gid-index wants 0..255, not \"%s\"\n"), optarg);
				return 2;
			}
			a->wo.gid_index = (int)v;
			a->wo.gid_index_set = true;
			break;
		}
		case 'T':
		case 'W': {
			double v = strtod(optarg, &end);
			if (!*optarg || *end || !(v > 0) || v > 86400) {
				fab_fprintf(stderr, _("fabtop wizard: --%s wants seconds (0 < S <= 86400), not \"%s\"\n"),
					c == 'T' ? "hang" : "run-timeout", optarg);
				return 2;
			}
			*(c == 'T' ? &a->wo.hang_s : &a->wo.run_timeout_s) = v;
			break;
		}
		case 'j': a->json = true; break;
		case 'v': a->verbose = true; break;
		case 'h': fputs(_(wizard_usage), stdout); return 0;
		default: fputs(_(wizard_usage), stderr); return 2;
		}
	}
	/* Everything after "--" is the A/B's command, word for word. */
	if (optind < argc && optind > 1 && strcmp(argv[optind - 1], "--") == 0) {
		a->wo.cmd = (const char *const *)&argv[optind];
		return -1;
	}
	if (optind < argc) {
		fab_fprintf(stderr, _("fabtop wizard: unexpected argument \"%s\"\n"), argv[optind]);
		return 2;
	}
	return -1;
}

int wizard_find_step(const struct wizard *w, const char *id)
{
	for (int i = 0; i < w->nsteps; i++)
		if (strcmp(w->steps[i].def->id, id) == 0)
			return i;
	return -1;
}

/* Which steps --steps names, as a mask over the ladder; -1 on an unknown id. */
static int steps_mask(const struct wizard *w, const char *list, unsigned *mask)
{
	char buf[256], *save = NULL;
	*mask = 0;
	if (!list) {
		*mask = (1u << w->nsteps) - 1;
		return 0;
	}
	if (strlen(list) >= sizeof(buf)) {
		fprintf(stderr, _("fabtop wizard: --steps list too long\n"));
		return -1;
	}
	fab_strlcpy(buf, list, sizeof(buf));
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i = wizard_find_step(w, tok);
		if (i < 0) {
			fab_fprintf(stderr, _("fabtop wizard: unknown step \"%s\" (steps:"), tok);
			for (int k = 0; k < w->nsteps; k++)
				fprintf(stderr, " %s", w->steps[k].def->id);
			fprintf(stderr, ")\n");
			return -1;
		}
		*mask |= 1u << i;
	}
	if (!*mask) {
		fprintf(stderr, _("fabtop wizard: --steps names no step\n"));
		return -1;
	}
	return 0;
}

/* ---- running ----------------------------------------------------------------------- */

static volatile sig_atomic_t batch_signal;

static void on_batch_signal(int sig)
{
	batch_signal = sig;
}

static const int batch_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* Runs step i, polling a long one so that a signal cancels it (its
 * children killed) instead of killing fabtop and orphaning them. */
static void run_step(struct wizard *w, int i, const struct fab_model *m)
{
	wizard_start_step(w, i, m);
	while (wizard_busy(w) >= 0) {
		if (batch_signal) {
			wizard_cancel(w);
			snprintf(w->steps[i].verdict, sizeof(w->steps[i].verdict),
				 _("interrupted by SIG%s: cancelled, its processes killed"),
				 sigabbrev_np(batch_signal));
			break;
		}
		wizard_poll(w, 100);
	}
}

int wizard_batch(struct wizard *w, const struct fab_model *m, unsigned mask,
		 enum out_mode mode, FILE *fp, bool verbose)
{
	struct fab_out *o = out_new(mode, fp);
	const char *why2 = NULL;   /* the words of the first step that could not run */
	int rc = 0;
	char why_sig[64] = "";
	if (!o)
		return 2;
	/* No SA_RESTART: the wait for a child ends at once. Not a signal the
	 * caller ignores (nohup); over the root's own handler (a tarball
	 * root), which would end fabtop with the run's children still there:
	 * wizard_main's root_close() removes the unpacked capture after. */
	struct sigaction sa = { .sa_handler = on_batch_signal }, old_sa[3];
	bool installed[3] = { false, false, false };
	sigemptyset(&sa.sa_mask);
	batch_signal = 0;
	for (int k = 0; k < 3; k++)
		if (sigaction(batch_signals[k], NULL, &old_sa[k]) == 0 && old_sa[k].sa_handler != SIG_IGN)
			installed[k] = sigaction(batch_signals[k], &sa, NULL) == 0;
	out_open_obj(o, NULL);
	out_open_obj(o, "wizard");
	out_str(o, PR_ANY, "host", _("fabtop wizard on %s"), m->host);
	out_str(o, PR_ANY, "source", " (%s)\n\n", m->live ? (out_is_json(o) ? "live" : _("live")) : m->source);
	out_open_arr(o, "steps");
	for (int i = 0; i < w->nsteps && !batch_signal; i++) {
		if (!(mask >> i & 1))
			continue;
		const char *why = NULL;
		run_step(w, i, m);
		int e = wizard_step_exit(&w->steps[i], &why);
		if (e == 2 && !why2)
			why2 = why ? why : _("a step could not run");
		if (e > rc)
			rc = e;
		wizard_print_step(o, &w->steps[i], verbose);
		if (!out_is_json(o))
			fflush(fp);
	}
	int sig = batch_signal;
	for (int k = 0; k < 3; k++)
		if (installed[k])
			sigaction(batch_signals[k], &old_sa[k], NULL);
	if (sig) {
		rc = 128 + sig;
		snprintf(why_sig, sizeof(why_sig), _("interrupted by SIG%s; no further step ran"),
			 sigabbrev_np(sig));
	}
	out_close_arr(o);
	out_int(o, PR_ANY, "exit", _("exit status %lld"), fab_int_of(rc));
	out_text(o, " (%s)\n", sig ? why_sig : rc == 2 ? why2 : rc ? _("a step warned, failed or was blocked")
		 : _("every step passed or was skipped"));
	out_close_obj(o);
	out_close_obj(o);
	if (out_free(o) != 0 && !sig)
		return 2;
	return rc;
}

int wizard_main(int argc, char **argv, wizard_tui_fn tui)
{
	struct wiz_args a;
	struct fab_root root;
	struct fab_model m;
	char err[1024];
	unsigned mask;
	int rc = wizard_parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	/* Inputs are checked before anything is read or run. */
	struct wizard *w = wizard_new(NULL, &a.wo, err, sizeof(err));
	if (!w) {
		fab_fprintf(stderr, "fabtop wizard: %s\n", err);
		return 2;
	}
	if (steps_mask(w, a.steps, &mask) != 0) {
		wizard_free(w);
		return 2;
	}
	if (root_open(&root, a.root, err, sizeof(err)) != 0) {
		fab_fprintf(stderr, "fabtop wizard: %s\n", err);
		wizard_free(w);
		return 2;
	}
	w->root = &root;
	model_init(&m);
	collect_all(&root, &m);
	bool tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	if (tui && !a.batch && (tty || getenv("FABTOP_SCRIPT"))) {
		w->focus = true;
		rc = tui(&root, &m, w);
	} else {
		rc = wizard_batch(w, &m, mask, a.json ? OUT_JSON : OUT_TEXT, stdout, a.verbose);
	}
	wizard_free(w);
	model_free(&m);
	root_close(&root);
	return rc;
}

/* Whether main's first word (options and their values skipped) is
 * "wizard": the wizard then parses the whole command line itself. */
bool wizard_is_command(int argc, char **argv)
{
	static const char *const with_value[] = {
		"--root", "-o", "--output", "--samples", "--interval", "--count", "--source",
		"--peer", "--iface", "--hca", "--steps", "--pid", "--probe-timeout",
		"--side", "--gid-index", "--hang", "--run-timeout",
	};
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (strcmp(s, "--") == 0)
			return false;
		if (s[0] != '-')
			return strcmp(s, "wizard") == 0;
		for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
			if (strcmp(s, with_value[k]) == 0) {
				i++;
				break;
			}
	}
	return false;
}
