/*
 * analyze_log.c - `fabtop analyze-log FILE... [--json]`: streams NCCL logs
 * through the analyzer (nccl_log.h) and prints the result through the print
 * layer. Files are read in fixed chunks, never whole: logs of thousands of
 * ranks run to hundreds of MB, and one line may be any length.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabtop/collect.h"
#include "fabtop/model.h"
#include "fabtop/nccl_log.h"
#include "fabtop/print.h"
#include "fabtop/root.h"
#include "fabtop/sanitize.h"
#include "analyze_log_int.h"

#define CHUNK (1u << 20)

static const char usage[] =
"usage: fabtop analyze-log FILE... [--json] [--root DIR|FILE.tar.gz]\n"
"  Reads NCCL_DEBUG=INFO (or WARN) output, one rank's or many interleaved, from\n"
"  the files together (\"-\" is standard input) and says what NCCL did: version,\n"
"  bootstrap interface, network (IB, Socket or a plugin), HCAs, GPUDirect RDMA,\n"
"  transports, errors, the nccl-tests results, and a verdict.\n"
"nccl-tests: each run in the output (alltoall_perf, then sendrecv_perf, ...) has\n"
"  its own table, average and verdict (ok, low-busbw, wrong-values, incomplete).\n"
"  Its peak bus bandwidth is set against the line rate per rank of the HCAs\n"
"  NCCL used, read from --root (a capture of the node the log came from) or,\n"
"  without it, from this node when it has every HCA the log names.\n"
"Verdicts (the cause the log shows, even when the run hung or the log is cut):\n"
"  ok, no-gdr, socket-fallback, socket-by-config, ib-error, bootstrap-error,\n"
"  invalid-usage, nccl-error, incomplete, unknown. The outcome (completed,\n"
"  failed, incomplete) is said apart, and so are warnings: a net plugin that\n"
"  did not load, traffic over an interface that is not the fabric.\n"
"Exit status: 0 ok, 1 any other verdict or a run's low bus bandwidth (a problem\n"
"  found), 2 a file could not\n"
"  be read, no NCCL line was found, or bad usage.\n";

struct input {
	const char *name;
	long long lines;
	int err;  /* errno, 0 when read to the end */
};

/* Feeds each line of fd; a line longer than the buffer is fed its head. */
static int feed_fd(struct nccl_log *a, int fd, char *buf, long long *lines)
{
	size_t have = 0;
	bool skipping = false;  /* inside the tail of an over-long line */
	for (;;) {
		ssize_t n = read(fd, buf + have, CHUNK - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			break;
		have += (size_t)n;
		size_t start = 0;
		for (char *nl; (nl = memchr(buf + start, '\n', have - start)); start = (size_t)(nl - buf) + 1) {
			if (!skipping) {
				nccl_log_feed(a, buf + start, (size_t)(nl - buf) - start + 1);
				(*lines)++;
			}
			skipping = false;
		}
		if (start == 0 && have == CHUNK) {
			if (!skipping) {
				nccl_log_feed(a, buf, have);
				(*lines)++;
			}
			skipping = true;
			have = 0;
		} else {
			memmove(buf, buf + start, have - start);
			have -= start;
		}
	}
	if (have && !skipping) {  /* the last line, cut short */
		nccl_log_feed(a, buf, have);
		(*lines)++;
	}
	return 0;
}

static int read_input(struct nccl_log *a, struct input *in, char *buf)
{
	bool is_stdin = strcmp(in->name, "-") == 0;
	int fd = is_stdin ? STDIN_FILENO : open(in->name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	struct stat st;
	int err = 0;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		err = EISDIR;
	if (!err) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
		nccl_log_source(a, is_stdin ? "stdin" : in->name);
		err = feed_fd(a, fd, buf, &in->lines);
	}
	if (!is_stdin)
		close(fd);
	return err;
}

static fab_int cnt(long long v)
{
	return fab_int_of(v);
}

static void print_env(struct fab_out *o, const struct nccl_log *a)
{
	out_text(o, "env          ");
	if (!a->nenv)
		out_text(o, "none reported (NCCL prints them with NCCL_DEBUG_SUBSYS=ENV)");
	out_open_arr(o, "env");
	for (int i = 0; i < a->nenv; i++) {
		out_open_obj(o, NULL);
		out_str(o, PR_JSON, "name", NULL, a->env[i].name);
		out_str(o, PR_JSON, "value", NULL, a->env[i].value);
		out_bool(o, PR_JSON, "conflict", NULL, a->env[i].conflict);
		out_text(o, "%s%s=%s%s", i ? " " : "", a->env[i].name, a->env[i].value,
			 a->env[i].conflict ? " (ranks differ)" : "");
		out_close_obj(o);
	}
	out_close_arr(o);
	out_text(o, "\n");
}

static void print_net(struct fab_out *o, const struct nccl_log *a)
{
	out_open_obj(o, "net_plugin");
	out_str(o, PR_ANY, "state", "net plugin   %s", nccl_plugin_name(a->plugin));
	if (a->plugin == NCCL_PLUGIN_LOADED)
		out_str(o, PR_ANY, "name", " (%s)", a->plugin_name);
	else
		out_str(o, PR_JSON, "name", NULL, NULL);
	out_str(o, PR_ANY, "error", a->plugin_error[0] ? ": %s" : NULL,
		a->plugin_error[0] ? a->plugin_error : NULL);
	out_text(o, "\n");
	out_close_obj(o);

	out_text(o, "network      ");
	if (!a->nnets)
		out_text(o, "N/A");
	out_open_arr(o, "networks");
	for (int i = 0; i < a->nnets; i++) {
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "name", i ? ", %s" : "%s", a->nets[i].name);
		out_int(o, PR_JSON, "lines", NULL, cnt(a->nets[i].n));
		out_close_obj(o);
	}
	out_close_arr(o);
	/* Named is not used: one node's ranks talk over P2P/SHM. */
	if (nccl_log_used_rdma(a) && nccl_log_no_net_channel(a))
		out_text(o, " (named only: no NET channel, %s within one node)", nccl_log_local_paths(a));
	out_text(o, "\n");

	out_open_obj(o, "ib");
	out_bool(o, PR_ANY, "tried", "ib tried     %s", a->ib_tried);
	out_str(o, PR_ANY, "reason", a->ib_reason[0] ? ": %s" : NULL, a->ib_reason);
	out_text(o, "\n");
	out_close_obj(o);

	out_text(o, "hcas         ");
	if (!a->nhcas)
		out_text(o, "N/A");
	out_open_arr(o, "hcas");
	for (int i = 0; i < a->nhcas; i++) {
		const struct nccl_log_hca *h = &a->hcas[i];
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "name", i ? " %s" : "%s", h->name);
		out_int(o, PR_ANY, "port", ":%lld", cnt(h->port));
		out_str(o, PR_JSON, "link_layer", NULL, h->link_layer);
		if (h->link_layer[0])
			out_text(o, "/%s", h->link_layer);
		out_close_obj(o);
	}
	out_close_arr(o);
	out_text(o, "\n");
}

static void print_if(struct fab_out *o, const char *key, const char *label,
		     const char *ifname, const char *addr)
{
	out_open_obj(o, key);
	out_text(o, "%-13s", label);
	out_str(o, PR_ANY, "interface", "%s", ifname);
	out_str(o, PR_ANY, "address", ifname[0] && addr[0] ? " %s" : NULL, addr);
	out_text(o, "\n");
	out_close_obj(o);
}

static void print_transports(struct fab_out *o, const struct nccl_log *a)
{
	out_open_obj(o, "gdr");
	out_str(o, PR_ANY, "state", "gdr          %s", nccl_gdr_name(a->gdr));
	out_int(o, PR_ANY, "enabled_lines", " (lines: %lld enabled", cnt(a->gdr_enabled_lines));
	out_int(o, PR_ANY, "disabled_lines", ", %lld disabled)\n", cnt(a->gdr_disabled_lines));
	out_close_obj(o);

	out_open_obj(o, "channels");
	out_int(o, PR_ANY, "net_rdma", "channels     net-rdma %lld", cnt(a->ch_net_rdma));
	out_int(o, PR_ANY, "net_gdr", " (gdr %lld)", cnt(a->ch_net_gdr));
	out_int(o, PR_ANY, "net_socket", ", net-socket %lld", cnt(a->ch_net_socket));
	out_int(o, PR_ANY, "p2p", ", p2p %lld", cnt(a->ch_p2p));
	out_int(o, PR_ANY, "shm", ", shm %lld", cnt(a->ch_shm));
	out_int(o, PR_ANY, "collnet", ", collnet %lld\n", cnt(a->ch_collnet));
	if (a->nvia)
		out_text(o, "via         ");
	out_open_arr(o, "via");
	for (int i = 0; i < a->nvia; i++) {
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "name", " %s", a->via[i].name);
		out_int(o, PR_ANY, "channels", " x%lld", cnt(a->via[i].n));
		out_close_obj(o);
	}
	out_close_arr(o);
	if (a->nvia)
		out_text(o, "\n");
	out_close_obj(o);

	out_open_obj(o, "qps");
	out_int(o, PR_ANY, "lines", "qps          %lld lines", cnt(a->qp_lines));
	out_text(o, ", gid index");
	out_open_arr(o, "gid_index");
	for (int i = 0; i < a->ngid_index; i++)
		out_int(o, PR_ANY, NULL, " %lld", cnt(a->gid_index[i]));
	out_close_arr(o);
	out_text(o, "%s, mtu", a->ngid_index ? "" : " N/A");
	out_open_arr(o, "mtu");
	for (int i = 0; i < a->nmtu; i++)
		out_int(o, PR_ANY, NULL, " %lld", cnt(a->mtu[i]));
	out_close_arr(o);
	out_text(o, "%s\n", a->nmtu ? "" : " N/A");
	out_close_obj(o);
}

static void print_coll(struct fab_out *o, const struct nccl_log *a, int k)
{
	const struct nccl_log_coll *c = &a->colls[k];
	char label[32];
	out_open_obj(o, NULL);
	out_str(o, PR_JSON, "name", NULL, c->name[0] ? c->name : NULL);
	out_str(o, PR_JSON, "named_by", NULL, c->named_by[0] ? c->named_by : NULL);
	out_str(o, PR_TEXT, NULL, "  %s", nccl_coll_label(a, k, label, sizeof(label)));
	out_str(o, PR_ANY, "verdict", " %s", nccl_coll_verdict_name(c->verdict));
	out_str(o, PR_ANY, "reason", ": %s\n", c->reason);
	out_num(o, PR_ANY, "avg_busbw_gbs", "    avg bus bandwidth %.2f GB/s", c->avg_busbw);
	out_int(o, PR_ANY, "out_of_bounds", ", out of bounds values %lld\n", c->oob_values);
	out_num(o, PR_JSON, "peak_busbw_gbs", NULL, c->peak_busbw);
	out_int(o, PR_JSON, "peak_bytes", NULL, c->peak_busbw.ok ? cnt(c->peak_bytes) : (fab_int){ 0 });
	out_open_obj(o, "line_rate");
	bool rated = c->line_gbs.ok;
	out_num(o, rated ? PR_ANY : PR_JSON, "per_rank_gbs", "    line rate %.2f GB/s per rank", c->line_gbs);
	if (!rated)
		out_text(o, "    line rate unknown");
	out_num(o, c->pct.ok ? PR_ANY : PR_JSON, "pct", " (peak %.0f%%)", c->pct);
	out_str(o, PR_ANY, "basis", ": %s\n", c->basis[0] ? c->basis : NULL);
	if (!c->basis[0])
		out_text(o, "\n");
	out_close_obj(o);
	if (c->nsizes)
		out_text(o, "%16s %12s %8s %6s %10s %10s %10s %10s\n", "size(B)", "count", "type",
			 "redop", "algbw", "busbw", "algbw ip", "busbw ip");
	out_open_arr(o, "sizes");
	for (int i = 0; i < c->nsizes; i++) {
		const struct nccl_log_size *s = &c->sizes[i];
		out_open_obj(o, NULL);
		out_int(o, PR_ANY, "bytes", "%16lld", cnt(s->bytes));
		out_int(o, PR_ANY, "count", " %12lld", cnt(s->count));
		out_str(o, PR_ANY, "type", " %8s", s->type);
		out_str(o, PR_ANY, "redop", " %6s", s->redop[0] ? s->redop : NULL);
		out_num(o, PR_ANY, "algbw_oop_gbs", " %10.2f", s->algbw_oop);
		out_num(o, PR_ANY, "busbw_oop_gbs", " %10.2f", s->busbw_oop);
		out_num(o, PR_ANY, "algbw_ip_gbs", " %10.2f", s->algbw_ip);
		out_num(o, PR_ANY, "busbw_ip_gbs", " %10.2f\n", s->busbw_ip);
		out_close_obj(o);
	}
	out_close_arr(o);
	out_int(o, PR_JSON, "sizes_dropped", NULL, cnt(c->sizes_dropped));
	if (c->sizes_dropped)
		out_text(o, "             (%lld more rows not kept)\n", c->sizes_dropped);
	out_close_obj(o);
}

static void print_tests(struct fab_out *o, const struct nccl_log *a)
{
	out_open_obj(o, "nccl_tests");
	out_bool(o, PR_JSON, "started", NULL, a->tests_started);
	if (!a->tests_started)
		out_text(o, "nccl-tests   not in the log\n");
	else
		out_text(o, "nccl-tests   %d run%s%s\n", a->ncolls, a->ncolls == 1 ? "" : "s",
			 a->ncolls ? "" : " with a result");
	out_open_arr(o, "runs");
	for (int k = 0; k < a->ncolls; k++)
		print_coll(o, a, k);
	out_close_arr(o);
	out_int(o, PR_JSON, "runs_dropped", NULL, cnt(a->colls_dropped));
	if (a->colls_dropped)
		out_text(o, "             (%lld more runs not kept)\n", a->colls_dropped);
	out_close_obj(o);
}

static void print_errors(struct fab_out *o, const struct nccl_log *a)
{
	out_open_obj(o, "errors");
	out_int(o, PR_ANY, "total", "errors       %lld", cnt(a->errors));
	out_int(o, PR_ANY, "retries", " (and %lld retried warnings)", cnt(a->retries));
	out_open_obj(o, "by_kind");
	bool first = true;
	for (int k = 0; k < NCCL_E_COUNT; k++)
		if (a->err_kind[k]) {
			out_text(o, first ? ":" : ",");
			out_int(o, PR_ANY, nccl_err_kind_name(k), " %lld", cnt(a->err_kind[k]));
			out_text(o, " %s", nccl_err_kind_name(k));
			first = false;
		}
	out_close_obj(o);
	out_text(o, "\n");
	out_open_arr(o, "list");
	for (int i = 0; i < a->nerr; i++) {
		const struct nccl_log_error *e = &a->err[i];
		out_open_obj(o, NULL);
		out_text(o, "  [%s", e->framework ? "framework: " : "");
		out_str(o, PR_ANY, "kind", "%s]", nccl_err_kind_name(e->kind));
		out_str(o, PR_JSON, "class", NULL, nccl_err_class_name(e->cls));
		out_bool(o, PR_JSON, "framework", NULL, e->framework);
		out_int(o, PR_JSON, "status", NULL, e->status);
		const char *st = e->kind == NCCL_E_COMPLETION && e->status.ok ?
				 nccl_wc_status_str(e->status.v) : NULL;
		out_str(o, PR_JSON, "status_text", NULL, st);
		out_str(o, PR_ANY, "text", " %s", e->text);
		if (st)
			out_text(o, " [%s]", st);
		out_int(o, PR_ANY, "count", " (x%lld", cnt(e->count));
		out_str(o, PR_ANY, "rank", e->rank[0] ? ", first %s" : NULL, e->rank);
		out_str(o, PR_ANY, "source", e->source[0] ? ", %s" : NULL, e->source);
		out_int(o, PR_ANY, "line", ":%lld)\n", cnt(e->line));
		out_close_obj(o);
	}
	out_close_arr(o);
	out_int(o, PR_JSON, "dropped", NULL, cnt(a->err_dropped));
	if (a->err_dropped)
		out_text(o, "  (%lld more error lines with other texts not kept)\n", a->err_dropped);
	out_open_obj(o, "first_retcode");
	out_int(o, PR_JSON, "code", NULL, a->first_retcode);
	out_str(o, PR_JSON, "at", NULL, a->first_retcode_at);
	out_close_obj(o);
	if (a->first_retcode.ok)
		out_text(o, "return code  %lld first at %s\n", a->first_retcode.v, a->first_retcode_at);
	out_close_obj(o);
}

void nccl_log_print(struct fab_out *o, const struct nccl_log *a)
{
	out_str(o, PR_ANY, "verdict", "verdict      %s", nccl_verdict_name(a->verdict));
	out_str(o, PR_ANY, "reason", ": %s\n", a->reason);
	out_str(o, PR_ANY, "hint", *nccl_verdict_hint(a->verdict) ? "hint         %s\n" : NULL,
		nccl_verdict_hint(a->verdict));
	out_str(o, PR_ANY, "outcome", "outcome      %s", nccl_outcome_name(a->outcome));
	out_str(o, PR_ANY, "outcome_reason", a->outcome_reason[0] ? ": %s" : NULL,
		a->outcome_reason[0] ? a->outcome_reason : NULL);
	out_text(o, "\n");
	out_open_arr(o, "warnings");
	for (int i = 0; i < a->nwarn; i++) {
		const struct nccl_log_warning *w = &a->warn[i];
		out_open_obj(o, NULL);
		out_str(o, PR_JSON, "kind", NULL, nccl_warn_kind_name(w->kind));
		out_str(o, PR_JSON, "role", NULL, w->role[0] ? w->role : NULL);
		out_str(o, PR_JSON, "interface", NULL, w->ifname[0] ? w->ifname : NULL);
		out_str(o, PR_ANY, "text", "warning      %s\n", w->text);
		out_close_obj(o);
	}
	out_close_arr(o);
	out_int(o, PR_ANY, "lines", "lines        %lld", cnt(a->lines));
	out_int(o, PR_ANY, "nccl_lines", " (%lld NCCL", cnt(a->nccl_lines));
	out_int(o, PR_ANY, "warn_lines", ", %lld WARN", cnt(a->warn_lines));
	out_int(o, PR_ANY, "long_lines", ", %lld cut at 8 KiB)\n", cnt(a->long_lines));
	out_int(o, PR_ANY, "ranks", "ranks        %lld in the log", cnt(a->ranks));
	out_int(o, PR_ANY, "nranks", ", communicator of %lld", a->nranks);
	out_int(o, PR_ANY, "nnodes", " on %lld nodes\n", a->nnodes);
	out_str(o, PR_ANY, "version", "nccl         %s", a->version);
	out_bool(o, PR_JSON, "version_mismatch", NULL, a->version_mismatch);
	out_text(o, "%s\n", a->version_mismatch ? " (ranks report different versions)" : "");
	print_if(o, "bootstrap", "bootstrap", a->bootstrap_if, a->bootstrap_addr);
	print_if(o, "oob", "oob", a->oob_if, a->oob_addr);
	print_net(o, a);
	print_transports(o, a);
	print_env(o, a);
	out_open_obj(o, "comms");
	out_int(o, PR_ANY, "init_start", "comms        init %lld started", cnt(a->init_start));
	out_int(o, PR_ANY, "init_complete", ", %lld complete", cnt(a->init_complete));
	out_int(o, PR_ANY, "destroy_complete", "; %lld destroyed", cnt(a->destroy_complete));
	out_int(o, PR_ANY, "abort_complete", ", %lld aborted\n", cnt(a->abort_complete));
	out_close_obj(o);
	print_tests(o, a);
	print_errors(o, a);
	out_str(o, PR_ANY, "last_line", "last line    %s\n", a->last_line);
}

static void print_inputs(struct fab_out *o, const struct input *in, int n)
{
	out_text(o, "read        ");
	out_open_arr(o, "files");
	for (int i = 0; i < n; i++) {
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "name", " %s", strcmp(in[i].name, "-") ? in[i].name : "stdin");
		out_int(o, PR_ANY, "lines", " (%lld lines", cnt(in[i].lines));
		out_str(o, PR_ANY, "error", in[i].err ? ", %s" : NULL,
			in[i].err ? strerror(in[i].err) : NULL);
		out_text(o, ")");
		out_close_obj(o);
	}
	out_close_arr(o);
	out_text(o, "\n");
}

/*
 * The runs' bus bandwidth against the line rate of the log's HCAs. With
 * --root, that node (an error if it cannot be opened: 2). Without, this node,
 * and only when it has every HCA the log names: a log read on a laptop or on
 * another node must not be judged by this one's ports. The node is read only
 * when there is something to judge (runs, and HCAs NCCL used).
 */
static int rate_against_node(struct nccl_log *a, const char *rootspec)
{
	if (!a->ncolls || (!rootspec && (!a->nhcas || !nccl_log_used_rdma(a)))) {
		nccl_log_line_rate(a, NULL);
		return 0;
	}
	struct fab_root root;
	char err[1024];
	if (root_open(&root, rootspec, err, sizeof(err)) != 0) {
		if (rootspec) {
			fab_fprintf(stderr, "fabtop: analyze-log: %s\n", err);
			return -1;
		}
		nccl_log_line_rate(a, NULL);
		return 0;
	}
	struct fab_model *m = malloc(sizeof(*m));
	if (!m) {
		root_close(&root);
		nccl_log_line_rate(a, NULL);
		return 0;
	}
	model_init(m);
	collect_all(&root, m);
	if (rootspec || nccl_log_hcas_in_model(a, m)) {
		nccl_log_line_rate(a, m);
	} else {
		nccl_log_line_rate(a, NULL);
		for (int i = 0; i < a->ncolls; i++) {
			snprintf(a->colls[i].basis, sizeof(a->colls[i].basis), "this node does not have "
				 "the HCAs the log names (give --root with a capture of that node)");
			nccl_coll_decide(&a->colls[i]);
		}
	}
	model_free(m);
	free(m);
	root_close(&root);
	return 0;
}

int analyze_log_parse_args(int argc, char **argv, const char **names, int *n, bool *json,
			   const char **root)
{
	bool opts = true;
	*n = 0;
	*json = false;
	*root = NULL;
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (opts && strcmp(s, "--") == 0) {
			opts = false;
		} else if (opts && strcmp(s, "--json") == 0) {
			*json = true;
		} else if (opts && strncmp(s, "--root=", 7) == 0 && s[7]) {
			*root = s + 7;
		} else if (opts && strcmp(s, "--root") == 0) {
			if (i + 1 >= argc || !argv[i + 1][0]) {
				fputs("fabtop: analyze-log: --root needs a directory or a capture\n", stderr);
				fputs(usage, stderr);
				return 2;
			}
			*root = argv[++i];
		} else if (opts && (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0)) {
			fputs(usage, stdout);
			return 0;
		} else if (opts && s[0] == '-' && s[1]) {
			fab_fprintf(stderr, "fabtop: analyze-log: unknown option \"%s\"\n", s);
			fputs(usage, stderr);
			return 2;
		} else {
			names[(*n)++] = s;
		}
	}
	if (!*n) {
		fprintf(stderr, "fabtop: analyze-log needs a log file (or \"-\" for stdin)\n%s", usage);
		return 2;
	}
	return -1;
}

int analyze_log_main(int argc, char **argv)
{
	bool json;
	const char *rootspec;
	int n;
	struct input *in = calloc((size_t)(argc > 0 ? argc : 1), sizeof(*in));
	const char **names = calloc((size_t)(argc > 0 ? argc : 1), sizeof(*names));
	if (!in || !names) {
		fputs("fabtop: analyze-log: out of memory\n", stderr);
		free(in);
		free(names);
		return 2;
	}
	int rc = analyze_log_parse_args(argc, argv, names, &n, &json, &rootspec);
	for (int i = 0; i < n; i++)
		in[i].name = names[i];
	free(names);
	if (rc >= 0) {
		free(in);
		return rc;
	}
	char *buf = malloc(CHUNK);
	struct nccl_log *a = malloc(sizeof(*a));
	if (!buf || !a) {
		fputs("fabtop: analyze-log: out of memory\n", stderr);
		free(buf);
		free(a);
		free(in);
		return 2;
	}
	nccl_log_init(a);
	bool unreadable = false;
	for (int i = 0; i < n; i++) {
		in[i].err = read_input(a, &in[i], buf);
		if (in[i].err) {
			unreadable = true;
			fab_fprintf(stderr, "fabtop: cannot read %s: %s\n", in[i].name, strerror(in[i].err));
		}
	}
	free(buf);
	nccl_log_finish(a);
	if (rate_against_node(a, rootspec) != 0) {
		nccl_log_free(a);
		free(a);
		free(in);
		return 2;
	}
	if (a->verdict == NCCL_V_UNKNOWN && !unreadable)
		fab_fprintf(stderr, "fabtop: no NCCL lines found in %s%s (was NCCL_DEBUG=INFO set?)\n",
			in[0].name, n > 1 ? " and the others" : "");

	struct fab_out *o = out_new(json ? OUT_JSON : OUT_TEXT, stdout);
	rc = 2;
	if (o) {
		out_open_obj(o, NULL);
		nccl_log_print(o, a);
		print_inputs(o, in, n);
		out_close_obj(o);
		rc = out_free(o) == 0 ? 0 : 2;
	}
	bool low = false;
	for (int i = 0; i < a->ncolls; i++)
		low |= a->colls[i].verdict == NCCL_CV_LOW;
	if (rc == 0)
		rc = unreadable || a->verdict == NCCL_V_UNKNOWN ? 2 : a->verdict == NCCL_V_OK && !low ? 0 : 1;
	nccl_log_free(a);
	free(a);
	free(in);
	return rc;
}
