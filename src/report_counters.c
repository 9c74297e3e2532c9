/*
 * report_counters.c - `fabtop report counters`, like `top -b`: a baseline
 * reading, then N samples, each printed (and flushed) as it arrives: per
 * port TX/RX Gb/s, packets/s and share of the line rate, then the counters
 * that changed, the bad ones first. A summary says which bad counters grew,
 * which ports stopped moving traffic, and which QPs are broken.
 *
 * Live roots (and plain directories) are read with the sampler at absolute
 * deadlines; captures with fabtop/samples.json are played back at full
 * speed, the first recorded sample being the baseline.
 *
 * Like every report it goes through the model: a port's link layer and
 * line rate are the model's, its state word is sampler_port_state()'s, and
 * the words and units are vocab.h's and counters.h's, as in the pane.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fabtop/i18n.h"
#include "fabtop/live.h"
#include "fabtop/lossless.h"
#include "fabtop/watch.h"
#include "fabtop/rdma_res.h"
#include "fabtop/sanitize.h"
#include "fabtop/report.h"
#include "fabtop/sampler.h"
#include "fabtop/table.h"
#include "fabtop/vocab.h"

/* Flags worth a line even when the counter did not grow. */
#define EVENT_FLAGS (CTR_RESET | CTR_WRAPPED | CTR_SATURATED | CTR_FIRST | CTR_UNREADABLE | CTR_GONE | \
		     CTR_IMPLAUSIBLE)

struct run {
	struct fab_sampler s;
	struct fab_out *o;
	const struct fab_model *m;
	const struct counters_opts *co;
	double interval;         /* --interval, or the settings' (live_default_interval()) */
	FILE *fp;
	double t_base;           /* wall clock of the baseline, epoch seconds */
	double t0_sampler;       /* the sampler's clock at the baseline */
	double t_prev, t_now;    /* wall clock of the previous and the last reading */
	int nsamples;            /* samples taken after the baseline */
	uint64_t *bad_total;     /* per counter: bad growth over the run */
	int *implausible;        /* per counter: steps it was implausible in */
	unsigned *prev_flags;    /* per counter: the flags of the step before */
	int ncap;                /* entries in bad_total, prev_flags */
	int pw;                  /* the port column: the longest label, so long names keep rows in line */
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* The series' name, as every view gives it (sampler_series_label()). */
static const char *port_label(const struct fab_series *p, char *buf, size_t len)
{
	return sampler_series_label(p, buf, len);
}

/* A counter's RDMA device and port in the JSON: a netdev's are its port's
 * (null when no port names it), and its own name goes in "netdev". */
static void json_where(struct fab_out *o, const struct fab_sampler *s, int series)
{
	const struct fab_series *p = &s->ports[series];
	const struct fab_series *own = p->kind == SER_NETDEV && p->owner >= 0 ? &s->ports[p->owner] : NULL;
	out_str(o, PR_JSON, "dev", NULL, sampler_series_dev(s, series));
	out_int(o, PR_JSON, "port", NULL, p->kind == SER_RDMA ? fab_int_of(p->port) :
		own ? fab_int_of(own->port) : (fab_int){ 0, false });
	out_str(o, PR_JSON, "netdev", NULL, p->kind == SER_NETDEV ? p->dev : NULL);
}

static double wall_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static double mono_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* "2025-11-30 17:20:00.000 UTC" */
static const char *utc(double t, char *buf, size_t len)
{
	time_t sec = (time_t)t;
	struct tm tm;
	char day[32];
	gmtime_r(&sec, &tm);
	strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03d UTC", day, (int)((t - (double)sec) * 1000.0 + 0.5) % 1000);
	return buf;
}

/* Keeps the per-counter arrays as long as the sampler's (a port that
 * comes back may add counters). */
static int track_grow(struct run *rn)
{
	char lbl[96];
	if (rn->pw < 10)
		rn->pw = 10;
	for (int i = 0; i < rn->s.nports; i++) {
		int w = (int)strlen(port_label(&rn->s.ports[i], lbl, sizeof(lbl)));
		if (w > rn->pw)
			rn->pw = w;
	}
	if (rn->s.nctrs > rn->ncap) {
		int n = rn->s.nctrs;
		uint64_t *bt = realloc(rn->bad_total, (size_t)n * sizeof(*bt));
		if (!bt)
			return -1;
		rn->bad_total = bt;
		unsigned *pf = realloc(rn->prev_flags, (size_t)n * sizeof(*pf));
		if (!pf)
			return -1;
		rn->prev_flags = pf;
		int *im = realloc(rn->implausible, (size_t)n * sizeof(*im));
		if (!im)
			return -1;
		rn->implausible = im;
		memset(bt + rn->ncap, 0, (size_t)(n - rn->ncap) * sizeof(*bt));
		memset(pf + rn->ncap, 0, (size_t)(n - rn->ncap) * sizeof(*pf));
		memset(im + rn->ncap, 0, (size_t)(n - rn->ncap) * sizeof(*im));
		rn->ncap = n;
	}
	return 0;
}

static bool is_traffic(const struct fab_ctr *c)
{
	return c->def && (c->def->cls == CC_DATA || c->def->cls == CC_PACKETS);
}

/* In the text, a line of its own goes to the counters that speak of trouble
 * and to any counter with an event; traffic is in the port lines, and the
 * rest of what grew is listed per port (JSON lists every one in full). */
static bool worth_a_line(const struct fab_ctr *c)
{
	return (c->def && !is_traffic(c)) || (c->last.flags & EVENT_FLAGS);
}

static bool bad_growth(const struct fab_ctr *c)
{
	return c->def && c->def->bad_when_grows && c->grew && !(c->last.flags & CTR_FIRST);
}

/* Worth a line: it grew, or something happened to it since the last step. */
static bool changed(const struct run *rn, int i)
{
	const struct fab_ctr *c = &rn->s.ctrs[i];
	return c->last.delta > 0 || (c->last.flags & EVENT_FLAGS & ~rn->prev_flags[i]);
}

static const struct fab_sampler *sort_s;

/* Worst first, then in port and file order. */
static int by_badness(const void *a, const void *b)
{
	const struct fab_ctr *x = &sort_s->ctrs[*(const int *)a], *y = &sort_s->ctrs[*(const int *)b];
	int bx = counter_badness(x), by = counter_badness(y);
	if (bx != by)
		return by - bx;
	if (x->port != y->port)
		return x->port - y->port;
	return *(const int *)a - *(const int *)b;
}

/* "+46800000 B", "+3 ev": a counter's change with its unit, exact
 * (counter_amount()); JSON keeps the number in the counter's own unit. */
static const char *delta_text(const struct fab_counter_def *d, uint64_t n, char *buf, size_t len)
{
	char a[48];
	snprintf(buf, len, "+%s", counter_amount(d, (double)n, true, a, sizeof(a)));
	return buf;
}

/* s padded to w screen columns (tbl_width: a CJK character is two), on
 * the left (right) or the right: translated heads and layers keep the
 * text's columns in line, as printf's %-10s, counting bytes, would not. */
static const char *wpad(char *buf, size_t len, const char *s, int w, bool right)
{
	int pad = w - tbl_width(s);
	pad = pad < 0 ? 0 : pad;
	if (right)
		snprintf(buf, len, "%*s%s", pad, "", s);
	else
		snprintf(buf, len, "%s%*s", s, pad, "");
	return buf;
}

static void json_word(void *o, const char *word)
{
	out_str(o, PR_JSON, NULL, NULL, word);
}

static void counter_line(struct run *rn, const struct fab_ctr *c)
{
	struct fab_out *o = rn->o;
	const struct fab_series *p = &rn->s.ports[c->port];
	char lbl[96], path[96], rate[48], flags[64], a[48];
	bool bad = bad_growth(c);
	snprintf(path, sizeof(path), "%s/%s", c->dir, c->name);
	out_open_obj(o, NULL);
	out_text(o, "  %s %-*s %-44s", bad ? "!" : " ", rn->pw, port_label(p, lbl, sizeof(lbl)), path);
	json_where(o, &rn->s, c->port);
	out_str(o, PR_JSON, "dir", NULL, c->dir);
	out_str(o, PR_JSON, "name", NULL, c->name);
	out_int(o, PR_JSON, "value", NULL, (fab_int){ (long long)c->value, c->valid });
	out_int(o, PR_JSON, "delta", NULL, fab_int_of((long long)c->last.delta));
	out_text(o, " %16s", delta_text(c->def, c->last.delta, a, sizeof(a)));
	if (c->def && c->def->gauge && c->valid)   /* a level, not a rate */
		snprintf(rate, sizeof(rate), "=%s", counter_amount(c->def, (double)c->value, true, a, sizeof(a)));
	else
		counter_rate_text(c->def, &c->last, true, rate, sizeof(rate));
	out_text(o, " %16s", rate);
	out_num(o, PR_JSON, "rate", NULL, (fab_num){ c->last.rate, c->last.has_rate });
	out_str(o, PR_JSON, "rate_unit", NULL, counter_rate_unit(c->def));
	out_open_arr(o, "flags");
	ctr_flag_words(c->last.flags, flags, sizeof(flags), json_word, o);
	out_close_arr(o);
	out_text(o, "  %-5s", flags[0] ? flags : "-");
	out_bool(o, PR_JSON, "bad_when_grows", NULL, c->def && c->def->bad_when_grows);
	out_str(o, PR_JSON, "class", NULL, counter_class_name(c->def));
	if (c->def) {
		/* JSON: the table's word; text: the layer as read, in its column. */
		out_str(o, PR_JSON, "layer", NULL, c->def->layer);
		out_text(o, "  %s", wpad(a, sizeof(a), counter_layer_text(c->def), 10, false));
		out_str(o, PR_ANY, "meaning", " %s\n", _(c->def->meaning));
	} else {
		out_str(o, PR_JSON, "layer", NULL, NULL);
		out_str(o, PR_JSON, "meaning", NULL, NULL);
		out_text(o, _("  %-10s not in fabtop's counter table: shown raw\n"), "-");
	}
	out_close_obj(o);
}

static fab_num pct(double gbps, double line)
{
	return line > 0 ? fab_num_of(gbps * 100.0 / line) : (fab_num){ 0, false };
}

static void port_lines(struct run *rn)
{
	struct fab_out *o = rn->o;
	char h1[64], h2[64], h3[64];
	out_text(o, "  %s %s %s %8s %8s %12s %12s %6s %6s  %s\n",
		 wpad(h1, sizeof(h1), _("PORT"), rn->pw + 2, false), wpad(h2, sizeof(h2), _("LINK"), 6, false),
		 wpad(h3, sizeof(h3), _("LINE"), 9, true), "TX Gb/s", "RX Gb/s", "TX pkt/s", "RX pkt/s",
		 "TX%", "RX%", _("STATE"));
	out_open_arr(o, "ports");
	for (int i = 0; i < rn->s.nports; i++) {
		const struct fab_series *p = &rn->s.ports[i];
		char lbl[96], word[64];
		if (p->kind != SER_RDMA || p->port == 0)
			continue;       /* device-level hw_counters, netdevs: no traffic of their own */
		const struct fab_nic *mn = NULL;
		const struct fab_port *mp = model_find_port(rn->m, p->dev, p->port, &mn);
		double lg = mp ? port_line_gbps(rn->m, mn, mp, NULL, 0) : 0;
		fab_num line = lg > 0 ? fab_num_of(lg) : (fab_num){ 0, false };
		bool rates = p->present && p->has_rates;
		out_open_obj(o, NULL);
		out_text(o, "  %-*s", rn->pw + 2, port_label(p, lbl, sizeof(lbl)));
		out_str(o, PR_JSON, "dev", NULL, p->dev);
		out_int(o, PR_JSON, "port", NULL, fab_int_of(p->port));
		out_str(o, PR_JSON, "link_layer", NULL, mp ? ll_name(mp->ll) : NULL);
		out_text(o, " %-6s", mp ? ll_short(mp->ll) : "N/A");
		/* The line rate with its unit; JSON keeps line_gbps a number. */
		char lr[32];
		out_num(o, PR_JSON, "line_gbps", NULL, line);
		out_text(o, " %9s", fab_fmt_line_rate(line.ok ? line.v : 0, lr, sizeof(lr)));
		out_bool(o, PR_JSON, "present", NULL, p->present);
		unsigned st = sampler_port_state(&rn->s, i);
		if (!p->present) {
			out_str(o, PR_ANY, "state", _("  %s: the port or its device vanished\n"),
				traffic_words(st, word, sizeof(word)));
			out_close_obj(o);
			continue;
		}
		out_num(o, PR_ANY, "tx_gbps", " %8.2f", (fab_num){ p->tx_gbps, rates });
		out_num(o, PR_ANY, "rx_gbps", " %8.2f", (fab_num){ p->rx_gbps, rates });
		out_num(o, PR_ANY, "tx_pps", " %12.0f", (fab_num){ p->tx_pps, rates });
		out_num(o, PR_ANY, "rx_pps", " %12.0f", (fab_num){ p->rx_pps, rates });
		fab_num none = { 0, false };
		out_num(o, PR_ANY, "tx_pct", " %6.1f", rates && line.ok ? pct(p->tx_gbps, line.v) : none);
		out_num(o, PR_ANY, "rx_pct", " %6.1f", rates && line.ok ? pct(p->rx_gbps, line.v) : none);
		out_int(o, PR_JSON, "bad_grew", NULL, fab_int_of(p->bad_grew));
		out_str(o, PR_ANY, "state", "  %s\n", traffic_words(st, word, sizeof(word)));
		out_close_obj(o);
	}
	out_close_arr(o);
}

/* "mlx5_0/1   also grew: unicast_rcv_packets +10687500, ..." for the
 * changed counters without a line of their own, other than traffic. */
static void also_grew(struct run *rn, const int *idx, int n)
{
	for (int p = 0; p < rn->s.nports; p++) {
		int listed = 0;
		char lbl[96];
		for (int k = 0; k < n; k++) {
			const struct fab_ctr *c = &rn->s.ctrs[idx[k]];
			if (c->port != p || worth_a_line(c) || is_traffic(c))
				continue;
			if (!listed++)
				out_text(rn->o, _("    %-*s also grew:"), rn->pw, port_label(&rn->s.ports[p], lbl, sizeof(lbl)));
			char a[48];
			out_text(rn->o, "%s %s %s", listed > 1 ? "," : "", c->name,
				 delta_text(c->def, c->last.delta, a, sizeof(a)));
		}
		if (listed)
			out_text(rn->o, "\n");
	}
}

/* One sample: its time, the ports, the counters that changed. */
static int print_sample(struct run *rn)
{
	struct fab_out *o = rn->o;
	char when[64];
	if (track_grow(rn) != 0)
		return -1;
	rn->nsamples++;
	out_open_obj(o, NULL);
	out_text(o, _("\nsample %d  +%.3f s  (dt %.3f s)  %s\n"), rn->nsamples, rn->t_now - rn->t_base,
		 rn->t_now - rn->t_prev, utc(rn->t_now, when, sizeof(when)));
	out_num(o, PR_JSON, "t", NULL, fab_num_of(rn->t_now));
	out_num(o, PR_JSON, "dt", NULL, fab_num_of(rn->t_now - rn->t_prev));
	port_lines(rn);

	int *idx = malloc((size_t)(rn->s.nctrs ? rn->s.nctrs : 1) * sizeof(*idx)), n = 0;
	if (!idx)
		return -1;
	for (int i = 0; i < rn->s.nctrs; i++) {
		const struct fab_ctr *c = &rn->s.ctrs[i];
		if (bad_growth(c))
			rn->bad_total[i] += c->last.delta;
		if (c->last.flags & CTR_IMPLAUSIBLE)
			rn->implausible[i]++;
		if (changed(rn, i))
			idx[n++] = i;
	}
	sort_s = &rn->s;
	qsort(idx, (size_t)n, sizeof(*idx), by_badness);
	out_open_arr(o, "counters");
	int shown = 0, quiet = 0;
	for (int k = 0; k < n; k++) {
		const struct fab_ctr *c = &rn->s.ctrs[idx[k]];
		if (!out_is_json(o) && !worth_a_line(c)) {
			quiet++;
			continue;
		}
		if (!shown++) {
			char h[5][64];
			out_text(o, "    %s %-44s %s %s  %s  %s %s\n",
				 wpad(h[0], sizeof(h[0]), _("COUNTER"), rn->pw, false), "",
				 wpad(h[1], sizeof(h[1]), _("DELTA"), 16, true),
				 wpad(h[2], sizeof(h[2]), _("RATE"), 16, true),
				 wpad(h[3], sizeof(h[3]), _("FLAGS"), 5, false),
				 wpad(h[4], sizeof(h[4]), _("LAYER"), 10, false), _("MEANING"));
		}
		counter_line(rn, c);
	}
	out_close_arr(o);
	if (quiet)
		also_grew(rn, idx, n);
	else if (!shown)
		out_text(o, _("  no other counter changed\n"));
	out_close_obj(o);
	for (int i = 0; i < rn->s.nctrs; i++)
		rn->prev_flags[i] = rn->s.ctrs[i].last.flags;
	free(idx);
	fflush(rn->fp);
	return 0;
}

static void qp_summary(struct run *rn, const struct fab_root *r, int *bad_qps)
{
	struct fab_out *o = rn->o;
	struct fab_qp_list l = { 0 };
	char err[256] = "";
	int rc = rdma_res_from_root(r, &l, err, sizeof(err));
	out_open_obj(o, "qps");
	out_bool(o, PR_JSON, "available", NULL, rc == 0);
	if (rc != 0) {
		out_str(o, PR_ANY, "error", _("  QP state unavailable: %s\n"), err[0] ? err : strerror(-rc));
		out_close_obj(o);
		qp_list_free(&l);
		return;
	}
	out_str(o, PR_JSON, "when", NULL, r->live ? "now" : "recorded");
	out_text(o, "%s", r->live ? _("  QPs: ") : _("  QPs (as recorded with the capture): "));
	out_int(o, PR_ANY, "total", "%lld", fab_int_of(l.n));
	int nbad = 0;
	for (int i = 0; i < l.n; i++)
		nbad += qp_state_bad(l.qps[i].state);
	out_int(o, PR_ANY, "broken", _(", %lld in ERR or SQE state\n"), fab_int_of(nbad));
	out_open_arr(o, "bad");
	for (int i = 0; i < l.n; i++) {
		const struct fab_qp *q = &l.qps[i];
		if (!qp_state_bad(q->state))
			continue;
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "state", "    %-4s", qp_state_name(q->state));
		out_str(o, PR_ANY, "dev", " %s", q->dev);
		out_int(o, PR_ANY, "port", "/%lld", fab_int_of(q->port));
		out_int(o, PR_ANY, "lqpn", " QP %lld", fab_int_of(q->lqpn));
		out_str(o, PR_ANY, "type", " (%s)", qp_type_name(q->type));
		out_int(o, PR_ANY, "rqpn", _(", peer QP %lld"), (fab_int){ q->rqpn, q->has_rqpn });
		out_int(o, PR_ANY, "pid", _(", pid %lld"), (fab_int){ q->pid, q->pid != 0 });
		out_str(o, PR_JSON, "comm", NULL, q->comm);
		if (q->comm[0])
			out_text(o, " (%s)", q->comm);
		out_text(o, _(": broken, its work requests fail until the job re-creates it\n"));
		out_close_obj(o);
	}
	out_close_arr(o);
	out_close_obj(o);
	*bad_qps = nbad;
	qp_list_free(&l);
}

/* The kinds of trouble the verdict counts ports for, in its order. */
static const struct { unsigned bit; const char *what; } kinds[] = {
	{ PT_RETRIES, N_("loss/retry counters grew") }, { PT_CONGESTED, N_("congestion counters grew") },
	{ PT_ERRORS, N_("error counters grew") }, { PT_STOPPED, N_("traffic stopped") },
};
#define NKINDS ((int)(sizeof(kinds) / sizeof(kinds[0])))

/* The bad counters that grew over the run, with totals; counts the ports
 * (or devices) each kind of trouble touched into ports_with[]. */

/* One counter's row in a summary list: its port (text) or dev and port
 * (JSON), and its folder; the caller adds what the list is about and
 * closes the object. */
static void ctr_row_open(struct run *rn, const struct fab_ctr *c)
{
	struct fab_out *o = rn->o;
	char lbl[96];
	out_open_obj(o, NULL);
	out_text(o, "    %-*s", rn->pw, port_label(&rn->s.ports[c->port], lbl, sizeof(lbl)));
	json_where(o, &rn->s, c->port);
	out_str(o, PR_JSON, "dir", NULL, c->dir);
	out_text(o, " %s/", c->dir);
}
static int list_bad_grew(struct run *rn, int ports_with[NKINDS])
{
	struct fab_out *o = rn->o;
	int grew = 0;
	unsigned *seen = calloc((size_t)(rn->s.nports ? rn->s.nports : 1), sizeof(*seen));
	out_open_arr(o, "bad_grew");
	for (int i = 0; i < rn->s.nctrs && i < rn->ncap; i++) {
		const struct fab_ctr *c = &rn->s.ctrs[i];
		if (!rn->bad_total[i])
			continue;
		if (!grew++)
			out_text(o, _("  bad counters that grew:\n"));
		if (seen)
			seen[c->port] |= counter_trouble(c->def);
		ctr_row_open(rn, c);
		out_str(o, PR_ANY, "name", "%-32s", c->name);
		char a[48];
		out_int(o, PR_JSON, "total", NULL, fab_int_of((long long)rn->bad_total[i]));
		out_text(o, " %16s", delta_text(c->def, rn->bad_total[i], a, sizeof(a)));
		out_str(o, PR_JSON, "layer", NULL, c->def->layer);
		out_text(o, "  %s:", counter_layer_text(c->def));
		out_str(o, PR_ANY, "meaning", " %s\n", _(c->def->meaning));
		out_close_obj(o);
	}
	out_close_arr(o);
	if (!grew)
		out_text(o, _("  no loss, retry, congestion or error counter grew\n"));
	for (int p = 0; seen && p < rn->s.nports; p++)
		for (int k = 0; k < NKINDS; k++)
			ports_with[k] += !!(seen[p] & kinds[k].bit);
	free(seen);
	return grew;
}

/* Totals the first reading already held that a snapshot warns about
 * (counter_total_judge(), the same judgement as links.errors and
 * links.transport-errors): a run where nothing grew is not healthy when
 * the port carries them; counts the ports (or devices) they sit on. */
static int list_standing(struct run *rn)
{
	struct fab_out *o = rn->o;
	int n = 0, ports = 0, last_port = -1;
	out_open_arr(o, "large_totals");
	for (int i = 0; i < rn->s.nctrs; i++) {
		const struct fab_ctr *c = &rn->s.ctrs[i];
		if (!c->valid || c->baseline > (uint64_t)INT64_MAX ||
		    counter_total_judge(c->def, (long long)c->baseline) != CTR_TOTAL_WARN)
			continue;
		if (!n++)
			out_text(o, _("  large totals already in the first reading (since the counters were "
				    "last cleared):\n"));
		if (c->port != last_port) {
			ports++;
			last_port = c->port;
		}
		ctr_row_open(rn, c);
		out_str(o, PR_ANY, "name", "%-32s", c->name);
		char a[48];
		out_int(o, PR_JSON, "total", NULL, fab_int_of((long long)c->baseline));
		out_text(o, " %16s", counter_amount(c->def, (double)c->baseline, true, a, sizeof(a)));
		out_int(o, PR_JSON, "warn_at", NULL, fab_int_of(c->def->warn_at));
		out_text(o, _("  (a warning from %s)"), counter_amount(c->def, (double)c->def->warn_at, true, a,
								sizeof(a)));
		out_str(o, PR_ANY, "meaning", " %s\n", _(c->def->meaning));
		out_close_obj(o);
	}
	out_close_arr(o);
	return ports;
}

static void list_saturated(struct run *rn)
{
	struct fab_out *o = rn->o;
	int nsat = 0;
	out_open_arr(o, "saturated");
	for (int i = 0; i < rn->s.nctrs; i++) {
		const struct fab_ctr *c = &rn->s.ctrs[i];
		if (!(c->last.flags & CTR_SATURATED))
			continue;
		if (!nsat++)
			out_text(o, _("  PINNED (stuck at their maximum: growth no longer shows):\n"));
		ctr_row_open(rn, c);
		out_str(o, PR_ANY, "name", "%s", c->name);
		char a[48];
		out_int(o, PR_JSON, "value", NULL, fab_int_of((long long)c->value));
		out_text(o, " = %s", counter_amount(c->def, (double)c->value, true, a, sizeof(a)));
		/* What the pin hides and the command that clears it: the words
		 * the Links pane and `report links` print. */
		char hides[160], cmd[160];
		const struct fab_series *p = &rn->s.ports[c->port];
		const struct fab_nic *n = NULL;
		const struct fab_port *mp = p->kind == SER_RDMA && p->port > 0 ?
			model_find_port(rn->m, p->dev, p->port, &n) : NULL;
		out_str(o, PR_ANY, "hides", ": %s", counter_pin_hides(c->def, hides, sizeof(hides)) == 0 ?
			hides : NULL);
		out_str(o, PR_ANY, "clear", _("; clear: %s"), mp ? port_pin_clear_cmd(rn->m, n, mp, cmd,
									sizeof(cmd)) : NULL);
		out_text(o, "\n");
		out_close_obj(o);
	}
	out_close_arr(o);
}

/* Counters that read or stepped to what they cannot be (counters.h):
 * their values are not believed, and the run is not healthy. */
static int list_implausible(struct run *rn)
{
	struct fab_out *o = rn->o;
	char lbl[96];
	int n = 0;
	out_open_arr(o, "implausible");
	for (int i = 0; i < rn->s.nctrs && i < rn->ncap; i++) {
		const struct fab_ctr *c = &rn->s.ctrs[i];
		const struct fab_series *p = &rn->s.ports[c->port];
		if (!rn->implausible[i])
			continue;
		if (!n++)
			out_text(o, _("  implausible (a value or a step the counter or port cannot have: "
				    "no rate taken from it):\n"));
		out_open_obj(o, NULL);
		out_text(o, "    %-*s", rn->pw, port_label(p, lbl, sizeof(lbl)));
		json_where(o, &rn->s, c->port);
		out_str(o, PR_JSON, "dir", NULL, c->dir);
		out_text(o, " %s/", c->dir);
		out_str(o, PR_ANY, "name", "%s", c->name);
		out_int(o, PR_ANY, "steps", _(" in %lld step(s)"), fab_int_of(rn->implausible[i]));
		out_num(o, PR_ANY, "line_gbps", _(" (line rate %.0f Gb/s)\n"),
			(fab_num){ p->line_gbps, p->line_gbps > 0 });
		out_close_obj(o);
	}
	out_close_arr(o);
	return n;
}

static int list_stopped(struct run *rn)
{
	struct fab_out *o = rn->o;
	char lbl[96];
	int nstop = 0;
	out_open_arr(o, "stopped");
	for (int i = 0; i < rn->s.nports; i++) {
		const struct fab_series *p = &rn->s.ports[i];
		if (p->kind != SER_RDMA || p->port == 0 || !(sampler_port_state(&rn->s, i) & PT_STOPPED))
			continue;
		if (!nstop++)
			out_text(o, _("  stopped moving traffic (under 1%% of their peak):\n"));
		out_open_obj(o, NULL);
		out_text(o, "    %-*s", rn->pw, port_label(p, lbl, sizeof(lbl)));
		out_str(o, PR_JSON, "dev", NULL, p->dev);
		out_int(o, PR_JSON, "port", NULL, fab_int_of(p->port));
		out_bool(o, PR_JSON, "present", NULL, p->present);
		out_num(o, PR_ANY, "last_traffic", _(" last traffic at +%.3f s\n"),
			(fab_num){ p->t_moved - rn->t0_sampler, p->t_moved >= 0 });
		out_close_obj(o);
	}
	out_close_arr(o);
	return nstop;
}

/* ---- the lossless path (lossless.h) ---- */

static const char *tri_pick(enum fab_tri t, const char *yes, const char *no)
{
	return t == FAB_YES ? yes : t == FAB_NO ? no : "?";
}

static void json_flag(struct fab_out *o, unsigned flags, unsigned bit, const char *word)
{
	if (flags & bit)
		out_str(o, PR_JSON, NULL, NULL, word);
}

/* Per RoCE port: each priority that carried anything, has PFC or is the
 * job's, against PFC and ECN; then what lossless_judge() concluded. */
static void lossless_section(struct run *rn)
{
	struct fab_out *o = rn->o;
	int shown = 0, known = 0, roce = 0;
	char first_why[200] = "";
	/* Text: a port that cannot be judged gets its line only when another
	 * can; when none can, one line says why (JSON lists each). */
	for (int i = 0; i < rn->s.nports; i++) {
		struct lossless_port lp;
		if (lossless_judge(&rn->s, rn->m, i, &lp) != 0 || !lp.netdev[0])
			continue;
		roce++;
		known += lp.known;
		if (!lp.known && !first_why[0])
			snprintf(first_why, sizeof(first_why), "%s", lp.why);
	}
	if (roce && !known)
		out_text(o, _("  lossless path: not judged (%d RoCE port(s)): %s\n"), roce, first_why);
	out_open_arr(o, "lossless");
	for (int i = 0; i < rn->s.nports; i++) {
		struct lossless_port lp;
		char a[32];
		if (lossless_judge(&rn->s, rn->m, i, &lp) != 0 || !lp.netdev[0])
			continue;
		if (known && !shown++)
			out_text(o, _("  lossless path (RoCE: per-priority traffic against PFC and ECN):\n"));
		out_open_obj(o, NULL);
		if (known)
			out_text(o, "    %-*s", rn->pw, lp.port);
		out_str(o, PR_JSON, "dev", NULL, rn->s.ports[i].dev);
		out_int(o, PR_JSON, "port", NULL, fab_int_of(rn->s.ports[i].port));
		out_str(o, PR_JSON, "netdev", NULL, lp.netdev);
		out_bool(o, PR_JSON, "known", NULL, lp.known);
		if (!lp.known) {
			out_str(o, known ? PR_ANY : PR_JSON, "why", " %s\n", lp.why);
			out_close_obj(o);
			continue;
		}
		out_str(o, PR_ANY, "trust", " trust %s", lp.trust[0] ? lp.trust : "?");
		out_text(o, _(", PFC on %s"), fab_na(fab_prio_list(lp.pfc_mask, a, sizeof(a))));
		out_int(o, PR_ANY, "job_tc", _(", job traffic class %lld"), lp.job_tc);
		out_int(o, PR_ANY, "job_prio", _(" -> priority %lld"), (fab_int){ lp.job_prio, lp.job_prio >= 0 });
		out_str(o, PR_JSON, "job_prio_why", NULL, lp.job_prio_why);
		out_int(o, lp.tc_override.ok ? PR_ANY : PR_JSON, "tc_override", ", global traffic_class=%lld",
			lp.tc_override);
		out_num(o, PR_ANY, "seconds", " (%.1f s)\n", fab_num_of(lp.elapsed));
		out_int(o, PR_JSON, "rdma_bytes", NULL, fab_int_of((long long)lp.rdma_bytes));
		out_bool(o, PR_JSON, "rdma_ambiguous", NULL, lp.rdma_ambiguous);
		if (lp.rdma_ambiguous)
			out_text(o, _("      which priority carries the RDMA cannot be told: others carry "
				    "as many non-RDMA bytes\n"));
		out_open_arr(o, "prios");
		for (int b = 0; b < LOSSLESS_NPRIO; b++) {
			const struct lossless_prio *pp = &lp.prio[b];
			if (!lossless_prio_shown(pp))
				continue;
			out_open_obj(o, NULL);
			out_int(o, PR_ANY, "prio", _("      prio %lld"), fab_int_of(b));
			out_str(o, PR_ANY, "pfc", "  PFC %-3s", tri_pick(pp->pfc, "on", "off"));
			out_str(o, PR_ANY, "ecn_np", "  ECN np %-3s", tri_pick(pp->ecn_np, "on", "off"));
			out_str(o, PR_ANY, "ecn_rp", " rp %-3s", tri_pick(pp->ecn_rp, "on", "off"));
			out_num(o, PR_ANY, "rx_pps", "  rx %10.0f pkt/s", fab_num_of((double)pp->rx_pkts / lp.elapsed));
			out_num(o, PR_ANY, "tx_pps", "  tx %10.0f pkt/s", fab_num_of((double)pp->tx_pkts / lp.elapsed));
			out_int(o, PR_ANY, "rx_pause", _("  pauses rx %lld"), fab_int_of((long long)pp->rx_pause));
			out_int(o, PR_ANY, "tx_pause", " tx %lld", fab_int_of((long long)pp->tx_pause));
			out_int(o, PR_ANY, "discards", _("  discards %lld"), fab_int_of((long long)pp->discards));
			out_bool(o, PR_JSON, "rdma", NULL, pp->rdma);
			out_bool(o, PR_JSON, "job", NULL, pp->job);
			out_text(o, "%s%s\n", pp->rdma ? "  RDMA" : "", pp->job ? _("  (the job's)") : "");
			out_close_obj(o);
		}
		out_close_arr(o);
		out_open_arr(o, "flags");
		json_flag(o, lp.flags, LL_RDMA_NO_PFC, "rdma-no-pfc");
		json_flag(o, lp.flags, LL_PFC_IDLE, "pfc-idle");
		json_flag(o, lp.flags, LL_PAUSE_NO_CNP, "pause-no-cnp");
		json_flag(o, lp.flags, LL_NOT_JOB_PRIO, "not-job-prio");
		json_flag(o, lp.flags, LL_OVERRIDE, "override");
		out_close_arr(o);
		out_close_obj(o);
	}
	out_close_arr(o);
}

/* Findings over the run (lossless path; counter limits; PCIe), each
 * printed by finding_print; returns the worst severity, -1 for none, and
 * in *nwarn how many are warnings or errors. */
static int run_findings(struct run *rn, int *nwarn)
{
	struct fab_model f;
	int worst = -1;
	*nwarn = 0;
	model_init(&f);
	watch_findings(&rn->s, rn->m, &f);
	out_open_arr(rn->o, "findings");
	if (f.nfindings)
		out_text(rn->o, _("  findings over the run:\n"));
	for (int i = 0; i < f.nfindings; i++) {
		finding_print(rn->o, &f.findings[i], 4);
		*nwarn += f.findings[i].sev >= SEV_WARN;
		if ((int)f.findings[i].sev > worst)
			worst = (int)f.findings[i].sev;
	}
	out_close_arr(rn->o);
	model_free(&f);
	return worst;
}

/* "verdict: loss/retry counters grew on 6 port(s); traffic stopped on 6 port(s) (exit 1)" */
static void verdict(struct fab_out *o, const int ports_with[NKINDS], int bad_qps, int implausible,
		    int standing, int nwarn, int unsampled, int rc)
{
	int parts = 0;
	/* Each clause a whole sentence of its own; "; " joins them. */
	const char *sep = _("; ");
	out_text(o, _("verdict: "));
	for (int k = 0; k < NKINDS; k++)
		if (ports_with[k])
			out_text(o, _("%s%s on %d port(s)"), parts++ ? sep : "", _(kinds[k].what),
				 ports_with[k]);
	if (bad_qps)
		out_text(o, _("%s%d QP(s) broken"), parts++ ? sep : "", bad_qps);
	if (implausible)
		out_text(o, _("%s%d counter(s) implausible"), parts++ ? sep : "", implausible);
	if (nwarn)
		out_text(o, _("%s%d finding(s) over the run"), parts++ ? sep : "", nwarn);
	if (standing && !ports_with[0] && !ports_with[1] && !ports_with[2])
		out_text(o, _("%sno bad counter grew during the sampling, but the first reading already "
			 "held large error totals on %d port(s) (listed above)"), parts++ ? sep : "",
			 standing);
	else if (standing)
		out_text(o, _("%sthe first reading already held large error totals on %d port(s)"),
			 parts++ ? sep : "", standing);
	if (!rc && parts)
		out_text(o, _(", but no bad counter grew"));
	else if (!rc)
		out_text(o, _("healthy: no bad counter grew"));
	else if (rc == FAB_VERDICT_UNKNOWN && unsampled)
		out_text(o, _("%sunknown: %d port(s) not sampled (see coverage above)"), parts ? sep : "",
			 unsampled);
	else if (rc == FAB_VERDICT_UNKNOWN)
		out_text(o, _("%sunknown: not every RDMA device could be read"), parts ? sep : "");
	out_text(o, _(" (exit %d)\n"), rc);
}

/* How completely the counters were read (sampler_coverage()): a line
 * when not every file was kept open, and the numbers in JSON. Returns the
 * ports not sampled. */
static int coverage(struct run *rn)
{
	struct sampler_coverage c;
	char say[512];
	int n = rn->s.playback ? 0 : sampler_coverage(&rn->s, &c);
	if (rn->s.playback)
		return 0;
	out_open_obj(rn->o, "coverage");
	out_int(rn->o, PR_JSON, "ports", NULL, fab_int_of(c.ports));
	out_int(rn->o, PR_JSON, "counters", NULL, fab_int_of(c.ctrs));
	out_int(rn->o, PR_JSON, "by_path", NULL, fab_int_of(c.by_path));
	out_int(rn->o, PR_JSON, "unsampled_ports", NULL, fab_int_of(c.unsampled_ports));
	out_int(rn->o, PR_JSON, "unsampled_counters", NULL, fab_int_of(c.unsampled_ctrs));
	if (c.nofile > 0)
		out_int(rn->o, PR_JSON, "nofile", NULL, fab_int_of(c.nofile));
	sampler_coverage_say(&c, say, sizeof(say));
	if (say[0])
		out_str(rn->o, PR_ANY, "says", _("  coverage: %s\n"), say);
	out_close_obj(rn->o);
	return n;
}

/* The verdict over the whole run; returns the exit status. */
static int summary(struct run *rn, const struct fab_root *r)
{
	struct fab_out *o = rn->o;
	int ports_with[NKINDS] = { 0 }, bad_qps = 0;
	out_open_obj(o, "summary");
	out_text(o, _("\nsummary: "));
	out_int(o, PR_ANY, "samples", _("%lld sample(s)"), fab_int_of(rn->nsamples));
	out_num(o, PR_ANY, "seconds", _(" over %.3f s\n"), fab_num_of(rn->t_now - rn->t_base));
	int grew = list_bad_grew(rn, ports_with);
	list_saturated(rn);
	ports_with[NKINDS - 1] = list_stopped(rn);
	int implausible = list_implausible(rn);
	int standing = list_standing(rn);
	qp_summary(rn, r, &bad_qps);
	lossless_section(rn);
	int nwarn = 0, worst = run_findings(rn, &nwarn);
	int unsampled = coverage(rn);
	/* What could not be read leaves the run unknown (model_verdict()), and
	 * so does a port whose counters were not all read: never "healthy". */
	int rc = model_verdict(rn->m, FAB_NEED_LINKS,
			       grew || bad_qps || implausible || standing || worst >= SEV_WARN ?
			       SEV_WARN : -1);
	if (unsampled)
		rc = FAB_VERDICT_UNKNOWN;
	verdict(o, ports_with, bad_qps, implausible, standing, nwarn, unsampled, rc);
	out_int(o, PR_JSON, "exit", NULL, fab_int_of(rc));
	out_close_obj(o);
	return rc;
}

static void ts_add(struct timespec *t, double s)
{
	long long ns = (long long)(s * 1e9);
	t->tv_sec += (time_t)(ns / 1000000000LL);
	t->tv_nsec += (long)(ns % 1000000000LL);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* Live (or a plain directory): baseline now, then count readings at
 * absolute deadlines, so the time spent reading does not add up. */
static int run_live(struct run *rn, int count)
{
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	if (sampler_read(&rn->s, mono_now()) != 0)
		return -1;
	rn->t_base = rn->t_now = wall_now();
	rn->t0_sampler = rn->s.t_last;
	if (track_grow(rn) != 0)
		return -1;
	for (int k = 0; k < count && !stop_requested; k++) {
		ts_add(&deadline, rn->interval);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR &&
		       !stop_requested)
			;
		if (stop_requested)
			break;
		if (sampler_read(&rn->s, mono_now()) != 0)
			return -1;
		rn->t_prev = rn->t_now;
		rn->t_now = wall_now();
		if (print_sample(rn) != 0)
			return -1;
	}
	return 0;
}

/* Playback: the first recorded sample is the baseline; no sleeping. */
static int run_playback(struct run *rn, int count)
{
	if (sampler_playback_step(&rn->s) != 0)
		return -1;
	rn->t_base = rn->t_now = rn->t0_sampler = rn->s.t_last;
	if (track_grow(rn) != 0)
		return -1;
	for (int k = 0; (count < 0 || k < count) && !stop_requested; k++) {
		if (sampler_playback_step(&rn->s) != 0)
			break;
		rn->t_prev = rn->t_now;
		rn->t_now = rn->s.t_last;
		if (print_sample(rn) != 0)
			return -1;
	}
	return 0;
}

static void header(struct run *rn, const struct fab_root *r, bool playback, int count)
{
	struct fab_out *o = rn->o;
	out_str(o, PR_JSON, "source", NULL, r->live ? "live" : r->name);
	out_bool(o, PR_JSON, "live", NULL, r->live);
	out_bool(o, PR_JSON, "playback", NULL, playback);
	out_num(o, PR_JSON, "interval", NULL, fab_num_of(playback ? rn->s.pb_interval : rn->interval));
	if (playback) {
		out_text(o, _("counters of %s: playback of %d recorded samples, %g s apart, at full speed; "
			 "the first is the baseline\n"), r->name, rn->s.pb_count, rn->s.pb_interval);
	} else {
		out_text(o, _("counters of %s: %d sample(s), %g s apart, after a baseline reading\n"),
			  r->live ? _("this node") : r->name, count, rn->interval);
	}
	out_open_arr(o, "notes");
	if (playback && rn->co->interval_set)
		out_str(o, PR_ANY, NULL, _("note: %s\n"),
			_("--interval is ignored on playback: the recorded interval rules"));
	if (playback && count > rn->s.pb_count - 1) {
		char n[128];
		snprintf(n, sizeof(n), _("the capture has %d sample(s) after the baseline, fewer than --count %d"),
			 rn->s.pb_count - 1, count);
		out_str(o, PR_ANY, NULL, _("note: %s\n"), n);
	}
	if (rn->s.note[0])
		out_str(o, PR_ANY, NULL, _("note: %s\n"), rn->s.note);
	/* Devices whose counters are never read (hazard.h): the model's words. */
	for (int i = 0; i < rn->m->nnics; i++)
		if (rn->m->nics[i].counters_skipped[0]) {
			char n[FAB_NAME_LEN + 300];
			snprintf(n, sizeof(n), _("%s: counters not read: %s"), rn->m->nics[i].name,
				 rn->m->nics[i].counters_skipped);
			out_str(o, PR_ANY, NULL, _("note: %s\n"), n);
		}
	out_close_arr(o);
}

int report_counters(const struct fab_root *r, const struct fab_model *m,
		    const struct counters_opts *co, FILE *fp, FILE *log)
{
	struct run rn = { .co = co, .fp = fp, .m = m,
			  .interval = co->interval_set ? co->interval : live_default_interval() };
	char err[512] = "";
	bool playback = root_exists(r, "/fabtop/samples.json");
	if (!playback && r->is_capture) {
		fab_fprintf(log, _("fabtop: %s has no counter samples (fabtop/samples.json); record some with "
			"fabtop capture --samples N --interval S\n"), r->name);
		return 2;
	}
	if (sampler_open(&rn.s, r, err, sizeof(err)) != 0) {
		fab_fprintf(log, _("fabtop: cannot read the counters of %s: %s\n"), r->name, err);
		return 2;
	}
	if (playback && sampler_playback_open(&rn.s, r, err, sizeof(err)) != 0) {
		fab_fprintf(log, _("fabtop: cannot play back %s/fabtop/samples.json: %s\n"), r->name, err);
		sampler_close(&rn.s);
		return 2;
	}
	/* Each port's line rate bounds what a step can be. */
	sampler_use_model(&rn.s, m);
	int count = co->count > 0 ? co->count : playback ? -1 : COUNTERS_DEFAULT_COUNT;
	rn.o = out_new(co->json ? OUT_JSON : OUT_TEXT, fp);
	if (!rn.o) {
		sampler_close(&rn.s);
		return 2;
	}
	out_open_obj(rn.o, NULL);
	if (rn.s.nports == 0) {
		/* Nothing to sample is not a fault of the node: say so, exit 0;
		 * nothing readable is not nothing there: unknown, exit 2. */
		const struct fab_note *why = model_unknown(m, FAB_NEED_LINKS, NULL);
		out_str(rn.o, PR_JSON, "source", NULL, r->live ? "live" : r->name);
		out_bool(rn.o, PR_JSON, "live", NULL, r->live);
		out_open_arr(rn.o, "notes");
		out_str(rn.o, PR_ANY, NULL, "%s\n", why ? _("no RDMA device could be read: no counters "
			"to sample") : _("no RDMA devices: no counters to sample"));
		out_close_arr(rn.o);
		out_open_arr(rn.o, "samples");
		out_close_arr(rn.o);
		int v = report_verdict(rn.o, m, FAB_NEED_LINKS, -1);
		out_close_obj(rn.o);
		sampler_close(&rn.s);
		return out_free(rn.o) == 0 ? v : 2;
	}
	header(&rn, r, playback, count);
	fflush(fp);

	struct sigaction sa = { .sa_handler = on_stop }, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	stop_requested = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	out_open_arr(rn.o, "samples");
	int rc = playback ? run_playback(&rn, count) : run_live(&rn, count);
	out_close_arr(rn.o);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc != 0) {
		fab_fprintf(log, _("fabtop: reading the counters of %s failed\n"), r->name);
		rc = 2;
	} else {
		rc = summary(&rn, r);
		report_verdict(rn.o, m, FAB_NEED_LINKS, rc == FAB_VERDICT_FINDINGS ? SEV_WARN : -1);
	}
	out_close_obj(rn.o);
	if (out_free(rn.o) != 0 && rc != 2) {
		fprintf(log, _("fabtop: cannot write the report: %s\n"), strerror(errno));
		rc = 2;
	}
	sampler_close(&rn.s);
	free(rn.bad_total);
	free(rn.prev_flags);
	free(rn.implausible);
	return rc;
}
