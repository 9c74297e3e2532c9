/*
 * wizard_ab.c - the IB-disable A/B inside the Wizard pane's detail: the
 * pair's verdict on top (its name coloured by severity, the reason,
 * "next:"), then run A and run B, side by side when the detail
 * is at least AB_SIDE_MIN_W columns wide and stacked below that. Each run
 * shows its command, its state (RUNNING 12 s / 340 lines, COMPLETED,
 * FAILED exit 1, HUNG no output 120 s, ...), the transport and HCAs its
 * log names, GDR, the average bus bandwidth, its first errors and the last
 * lines of its output; run B also the A/B ratio. While a run goes, its last
 * lines are shown live across the whole detail, above the columns.
 *
 * It is the A/B step's draw() hook (wizard.h): the pane calls it through
 * the step's def, never by its id. It only reads struct ab (ab.h), which
 * the A/B step keeps in s->priv and the shell's poll advances; a run still
 * going shows what its log said so far. Each run is laid out into a column
 * of lines first, so the two columns can be drawn row by row beside each
 * other. Its words are translated (i18n.h) and its labels padded by
 * display width (view_pad); the log's own words (transport and HCA names,
 * error text, output lines) stay as NCCL wrote them.
 */
#include <stdio.h>
#include <string.h>
#include "fabtop/ab.h"
#include "fabtop/i18n.h"
#include "fabtop/view.h"
#include "fabtop/wizard.h"

/* From this detail width the runs go side by side: two 40-column runs,
 * which a 120-column terminal gives the detail beside the ladder. */
#define AB_SIDE_MIN_W  84
#define AB_GAP         3      /* columns between them */
#define COL_LINES      96     /* lines of one run's column; the rest is cut */
#define COL_TEXT       256
#define SHOWN_ERRORS   3
#define LABEL_W        10     /* a run's field labels ("transport"), by display width */

struct col_line {
	int x;
	int attr;
	char text[COL_TEXT];
};

struct col {
	int w;                        /* columns available */
	int n;
	struct col_line l[COL_LINES];
};

/* Bytes of s that fit in `cols` screen columns (view_pad measures: a CJK
 * character takes two, a sequence is kept whole). */
static int fit_bytes(const char *s, int cols)
{
	char buf[COL_TEXT * 2];
	if (cols <= 0)
		return 0;
	view_pad(buf, sizeof(buf), s, cols, false);
	/* view_pad copies the prefix that fits, then pads with blanks. */
	size_t n = 0;
	while (s[n] && buf[n] == s[n])
		n++;
	return (int)n;
}

static void col_push(struct col *c, int x, const char *s, int len, int attr)
{
	if (c->n >= COL_LINES)
		return;
	struct col_line *l = &c->l[c->n++];
	if (len >= COL_TEXT)
		len = COL_TEXT - 1;
	l->x = x;
	l->attr = attr;
	memcpy(l->text, s, (size_t)len);
	l->text[len] = '\0';
}

/* Word-wrapped to the column, later lines indented to x2. */
static void col_wrap(struct col *c, int x, int x2, const char *s, int attr)
{
	do {
		int len, width = c->w - x;
		const char *next = view_wrap_next(s, width < 8 ? 8 : width, &len);
		col_push(c, x, s, len, attr);
		s = next;
		x = x2;
	} while (*s && c->n < COL_LINES);
}

/* One line, cut at the column's edge (output lines: their start matters). */
static void col_clip(struct col *c, int x, const char *s, int attr)
{
	int width = c->w - x;
	col_push(c, x, s, fit_bytes(s, width > 0 ? width : 0), attr);
}

static int verdict_attr(enum ab_verdict v)
{
	switch (v) {
	case AB_V_RDMA_OK: return fab_attr(CP_OK);
	case AB_V_RDMA_SLOW:
	case AB_V_IB_NOT_USED:
	case AB_V_IB_DISABLE_IGNORED:
	case AB_V_NO_NETWORK:
	case AB_V_SOCKET_PATH_PROBLEM: return fab_attr(CP_WARN);
	case AB_V_RDMA_PATH_PROBLEM:
	case AB_V_NOT_RDMA:
	case AB_V_NOT_RUN: return fab_attr(CP_ERROR);
	case AB_V_CANCELLED: return fab_attr(CP_DIM);
	default: return A_BOLD;
	}
}

static int state_attr(enum ab_state st)
{
	switch (st) {
	case AB_COMPLETED: return fab_attr(CP_OK);
	case AB_FAILED:
	case AB_HUNG:
	case AB_TIMED_OUT:
	case AB_NOT_STARTED: return fab_attr(CP_ERROR);
	case AB_RUNNING: return A_BOLD;
	default: return fab_attr(CP_DIM);
	}
}

static double run_seconds(const struct ab_run *r)
{
	return r->job ? run_elapsed(r->job) : r->elapsed_s;
}

/* The state in the words the pane uses: "RUNNING 12 s / 340 lines". */
static void state_words(const struct ab *ab, const struct ab_run *r, char *buf, size_t len)
{
	switch (r->state) {
	case AB_RUNNING:
		snprintf(buf, len, P_("RUNNING %.0f s / %lld line", "RUNNING %.0f s / %lld lines",
				      (unsigned long)r->out_lines), run_seconds(r), r->out_lines);
		break;
	case AB_COMPLETED:
		snprintf(buf, len, _("COMPLETED in %.1f s"), r->elapsed_s);
		break;
	case AB_FAILED:
		if (r->res.term_signal > 0)
			snprintf(buf, len, _("FAILED signal %d"), r->res.term_signal);
		else
			snprintf(buf, len, _("FAILED exit %d"), r->res.exit_code);
		break;
	case AB_HUNG:
		snprintf(buf, len, _("HUNG no output %.0f s"), ab->hang_s);
		break;
	case AB_TIMED_OUT:
		snprintf(buf, len, _("TIMED OUT after %.0f s"), ab->run_timeout_s);
		break;
	case AB_NOT_STARTED:
		snprintf(buf, len, "%s", _("NOT STARTED"));
		break;
	case AB_CANCELLED:
		snprintf(buf, len, "%s", _("CANCELLED"));
		break;
	default:
		snprintf(buf, len, "%s", ab->cur == 0 && r == &ab->run[1] ? _("WAITING for run A")
			 : ab->cur < 0 ? _("NOT RUN") : _("WAITING"));
		break;
	}
}

/* "IB (RDMA)", "Socket (sockets)", "IB, Socket (RDMA and sockets)". */
static void transport(const struct nccl_log *lg, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < lg->nnets && n + 1 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", lg->nets[i].name);
	bool rdma = nccl_log_used_rdma(lg), sock = nccl_log_used_socket(lg);
	if (n + 1 >= len)
		return;
	if (rdma && nccl_log_no_net_channel(lg)) {
		/* NCCL named IB, but no NET channel carried a byte. */
		snprintf(buf + n, len - n, _(" (named only: no NET channel, %s within one node)"),
			 nccl_log_local_paths(lg));
		return;
	}
	if (!rdma && !sock) {
		snprintf(buf, len, "%s", lg->nccl_lines ? _("not named in the log") : "-");
		return;
	}
	snprintf(buf + n, len - n, "%s(%s)", n ? " " : "",
		 rdma && sock ? _("RDMA and sockets") : rdma ? "RDMA" : _("sockets"));
}

static void field(struct col *c, const char *name, const char *value, int attr)
{
	char line[COL_TEXT + 64], label[64];
	snprintf(line, sizeof(line), "%s %s", view_pad(label, sizeof(label), name, LABEL_W, false), value);
	col_wrap(c, 2, 3 + LABEL_W, line, attr);
}

static void run_column(struct col *c, const struct ab *ab, int k)
{
	const struct ab_run *r = &ab->run[k];
	const struct nccl_log *lg = &r->log;
	char buf[COL_TEXT], st[96];
	size_t n;

	state_words(ab, r, st, sizeof(st));
	snprintf(buf, sizeof(buf), "%s", k == 0 ? _("Run A as given") : _("Run B with NCCL_IB_DISABLE=1"));
	col_clip(c, 0, buf, fab_attr(CP_TITLE));
	col_wrap(c, 2, 4, st, state_attr(r->state) | A_BOLD);
	/* "exit 0" says nothing more, and a failure's why is its first error,
	 * listed below with the others. */
	if (r->why[0] && r->state != AB_COMPLETED && !(r->state == AB_FAILED && r->log.nerr > 0))
		col_wrap(c, 2, 4, r->why, state_attr(r->state));
	if (r->display[0]) {
		snprintf(buf, sizeof(buf), "$ %s", r->display);
		col_wrap(c, 2, 4, buf, fab_attr(CP_DIM));
	}
	if (r->state == AB_IDLE || r->state == AB_NOT_STARTED)
		return;

	transport(lg, buf, sizeof(buf));
	field(c, _("transport"), buf, 0);
	n = 0;
	buf[0] = '\0';
	for (int i = 0; i < lg->nhcas && n + 1 < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s:%d%s%s", i ? " " : "",
				      lg->hcas[i].name, lg->hcas[i].port,
				      lg->hcas[i].link_layer[0] ? "/" : "", lg->hcas[i].link_layer);
	field(c, "HCAs", n ? buf : _("none named"), 0);
	/* The analyzer decides GDR once the log is over. */
	field(c, "GDR", r->state == AB_RUNNING ? "-" : nccl_gdr_name(lg->gdr), 0);
	n = 0;
	buf[0] = '\0';
	for (int i = 0; i < lg->ncolls && n + 1 < sizeof(buf); i++) {
		const struct nccl_log_coll *co = &lg->colls[i];
		char label[32], pct[48] = "";
		if (!co->avg_busbw.ok)
			continue;
		if (co->pct.ok)
			snprintf(pct, sizeof(pct), co->verdict == NCCL_CV_LOW ? _(" (peak %.0f%% of line, low)")
				 : _(" (peak %.0f%% of line)"), co->pct.v);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s%s%.2f GB/s%s", n ? ", " : "",
				      lg->ncolls > 1 ? nccl_coll_label(lg, i, label, sizeof(label)) : "",
				      lg->ncolls > 1 ? " " : "", co->avg_busbw.v, pct);
	}
	if (!n)
		snprintf(buf, sizeof(buf), "%s", r->state == AB_RUNNING ? "-" : _("N/A (no nccl-tests summary)"));
	field(c, _("bus bw"), buf, 0);
	if (k == 1 && ab->ratio > 0) {
		snprintf(buf, sizeof(buf), _("%.2fx by %s"), ab->ratio, ab->measure[0] ? ab->measure : _("bus bandwidth"));
		field(c, "A/B", buf, 0);
	}

	if (lg->nerr == 0) {
		field(c, _("errors"), _("none"), 0);
	} else {
		snprintf(buf, sizeof(buf), "%lld", lg->errors);
		field(c, _("errors"), buf, fab_attr(CP_ERROR));
		for (int i = 0; i < lg->nerr && i < SHOWN_ERRORS; i++) {
			const struct nccl_log_error *e = &lg->err[i];
			char line[COL_TEXT + 64];
			snprintf(line, sizeof(line), "%s: %s", nccl_err_kind_name(e->kind), e->text);
			col_wrap(c, 4, 6, line, fab_attr(CP_ERROR));
		}
		if (lg->nerr > SHOWN_ERRORS) {
			snprintf(buf, sizeof(buf), _("and %d more"), lg->nerr - SHOWN_ERRORS);
			col_clip(c, 4, buf, fab_attr(CP_DIM));
		}
	}

	/* The running run's lines are shown live, full width, above. */
	if (r->state == AB_RUNNING)
		return;
	snprintf(buf, sizeof(buf), _("last %d of %lld lines"), r->tail_n, r->out_lines);
	col_clip(c, 2, r->tail_n ? buf : _("no output"), fab_attr(CP_DIM));
	for (int i = 0; i < r->tail_n && i < AB_TAIL_LINES; i++) {
		int at = ((r->tail_next - r->tail_n + i) % AB_TAIL_LINES + AB_TAIL_LINES) % AB_TAIL_LINES;
		char line[AB_TAIL_LEN + 1];
		snprintf(line, sizeof(line), "%s", r->tail[at]);
		col_clip(c, 4, line, 0);
	}
}

static void verdict_head(struct view_pen *p, const struct ab *ab)
{
	char buf[640];
	const char *name = ab->verdict == AB_V_PENDING ? _("pending") : ab_verdict_name(ab->verdict);
	int x = view_pen_fixed(p, 0, _("A/B verdict: "), A_BOLD);
	view_pen_fixed(p, x, name, verdict_attr(ab->verdict) | A_BOLD);
	view_pen_nl(p);
	if (ab->verdict == AB_V_PENDING) {
		const char *what = ab->cur < 0 ? _("run A is not started; the verdict comes when both runs are over")
			: ab->cur == 1 ? _("run B is running; the verdict comes when both runs are over")
			: _("run A is running; the verdict comes when both runs are over");
		view_pen_wrap_hang(p, 2, 2, what, fab_attr(CP_DIM));
		return;
	}
	if (ab->reason[0])
		view_pen_wrap_hang(p, 2, 2, ab->reason, 0);
	if (ab->hint[0]) {
		snprintf(buf, sizeof(buf), _("next: %s"), ab->hint);
		view_pen_wrap_hang(p, 0, view_strwidth(_("next: ")), buf, 0);
	}
}

/* ---- the running run's output, live ---------------------------------------- */

/* The last lines of the run in progress, each cut at the detail's edge:
 * the whole width, since a 40-column run column would cut an NCCL line
 * before its message. The runner reads the child's pipe as it writes and
 * the pane is redrawn as they come, so this moves while the run prints. */
static void live_output(struct view_pen *p, const struct ab *ab)
{
	if (ab->cur < 0 || ab->run[ab->cur].state != AB_RUNNING)
		return;
	const struct ab_run *r = &ab->run[ab->cur];
	char buf[96];
	int w = p->w - 3;
	view_pen_nl(p);
	if (r->tail_n)
		snprintf(buf, sizeof(buf), _("Run %c output, live: last %d of %lld lines"), r->label,
			 r->tail_n, r->out_lines);
	else
		snprintf(buf, sizeof(buf), _("Run %c output, live: no line yet"), r->label);
	view_pen_fixed(p, 0, buf, fab_attr(CP_TITLE));
	view_pen_nl(p);
	for (int i = 0; i < r->tail_n && i < AB_TAIL_LINES; i++) {
		int at = ((r->tail_next - r->tail_n + i) % AB_TAIL_LINES + AB_TAIL_LINES) % AB_TAIL_LINES;
		char line[AB_TAIL_LEN + 1];
		int n = fit_bytes(r->tail[at], w > 0 ? w : 0);
		snprintf(line, sizeof(line), "%.*s", n, r->tail[at]);
		view_pen_fixed(p, 2, line, 0);
		view_pen_nl(p);
	}
}

static void emit(struct view_pen *p, const struct col_line *l, int x0)
{
	view_pen_fixed(p, x0 + l->x, l->text, l->attr);
}

/* The A/B step's draw() hook (wizard.h, registered in wiz_steps[]). */
bool wizard_ab_body(struct view_pen *p, const struct wiz_step *s)
{
	static struct col cols[2];   /* 50 KB: kept off the stack */
	if (!s->priv)
		return false;   /* not started: the pane shows the verdict */
	const struct ab *ab = s->priv;
	bool side = p->w >= AB_SIDE_MIN_W;
	int w = side ? (p->w - AB_GAP) / 2 : p->w - 1;

	view_pen_nl(p);
	verdict_head(p, ab);
	live_output(p, ab);
	for (int k = 0; k < 2; k++) {
		cols[k].w = w > 20 ? w : 20;
		cols[k].n = 0;
		run_column(&cols[k], ab, k);
	}
	view_pen_nl(p);
	if (side) {
		int rows = cols[0].n > cols[1].n ? cols[0].n : cols[1].n;
		for (int i = 0; i < rows; i++) {
			if (i < cols[0].n)
				emit(p, &cols[0].l[i], 0);
			if (i < cols[1].n)
				emit(p, &cols[1].l[i], w + AB_GAP);
			view_pen_nl(p);
		}
		return true;
	}
	for (int k = 0; k < 2; k++) {
		if (k)
			view_pen_nl(p);
		for (int i = 0; i < cols[k].n; i++) {
			emit(p, &cols[k].l[i], 0);
			view_pen_nl(p);
		}
	}
	return true;
}
