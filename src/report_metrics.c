/*
 * report_metrics.c - `fabtop report metrics`: the node in the Prometheus
 * text exposition format (version 0.0.4), for node_exporter's textfile
 * collector (-o FILE, written atomically) or any scrape of the output.
 * docs/metrics.md lists every metric, its labels and unit.
 *
 * It prints, it never judges: a port's state words, whether it is active
 * or usable and its line rate are the model's (facts.c, vocab.c); a
 * counter's value is one reading of the sampler (the same reader as the
 * Counters pane and `report counters`), its saturation counter_pinned(),
 * its unit counter_scale(), whether its growth is trouble
 * counter_trouble(); the closest NIC is the topology's (topo.h); the
 * findings are the rules'; the verdict is model_verdict(), as in `report
 * all`. Conventions (prometheus.io, "Metric and label naming"): the
 * fabtop_ prefix, base units (bytes, seconds, transfers per second),
 * _total on counters, an enum as one series per state valued 1 or 0,
 * descriptive labels on _info series. Label values come from the node and
 * are untrusted: each goes through report_prom_escape() (the print
 * layer's sanitiser, then the format's own escapes), so no byte of a name
 * can end a line, close a label or make the file invalid UTF-8.
 */
#define _GNU_SOURCE   /* open_memstream */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cap_dest.h"
#include "fabtop/collect.h"
#include "fabtop/counters.h"
#include "fabtop/findings.h"
#include "fabtop/report.h"
#include "fabtop/root.h"
#include "fabtop/sampler.h"
#include "fabtop/sanitize.h"
#include "fabtop/topo.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"

#ifndef FABTOP_VERSION
#define FABTOP_VERSION "0.0.0"
#endif

/* Room for one escaped label value: a shown character is at most
 * FAB_SAN_MAX - 1 bytes and the format's escapes double a backslash. */
#define LV_LEN 1024
/* Free text (fw_ver, board_id, a note's message) is cut to this many bytes
 * before escaping: a label is for telling series apart. */
#define LV_TEXT 160

char *report_prom_escape(const char *s, char *buf, size_t len)
{
	size_t n = 0;
	if (!len)
		return buf;
	buf[0] = '\0';
	if (!s)
		return buf;
	/* The sanitiser's shown form: printable ASCII or valid UTF-8, every
	 * control byte, C1 code point and invalid byte written as text
	 * ("\x1b", "\u009b"). Then the exposition's escapes: backslash,
	 * double quote, newline (none is left, but the format asks). */
	size_t rem = strlen(s);
	while (rem) {
		char sh[FAB_SAN_MAX];
		size_t shl;
		bool esc;
		size_t took = fab_san_next(s, rem, sh, &shl, &esc);
		s += took;
		rem -= took;
		char one[2 * FAB_SAN_MAX];
		size_t ol = 0;
		for (size_t i = 0; i < shl; i++) {
			if (sh[i] == '\\' || sh[i] == '"') {
				one[ol++] = '\\';
				one[ol++] = sh[i];
			} else if (sh[i] == '\n') {
				one[ol++] = '\\';
				one[ol++] = 'n';
			} else {
				one[ol++] = sh[i];
			}
		}
		if (n + ol + 1 > len)
			break;   /* cut at a whole character */
		memcpy(buf + n, one, ol);
		n += ol;
	}
	buf[n] = '\0';
	return buf;
}

/* ---- the writer: families, labels, samples ---- */

struct lbl {
	const char *k, *v;       /* v NULL or "": the label is left out (Prometheus reads "" as absent) */
};

struct prom {
	FILE *fp;
	int series;
};

/* # HELP and # TYPE of a family. Help text escapes backslash and newline
 * only; ours is the table's, escaped anyway. */
static void fam(struct prom *p, const char *name, const char *type, const char *help)
{
	char h[LV_LEN];
	report_prom_escape(help, h, sizeof(h));
	/* A quote needs no escape in HELP: undo it so the text reads plainly. */
	char *w = h;
	for (const char *r = h; *r; r++) {
		if (r[0] == '\\' && r[1] == '"')
			continue;
		*w++ = *r;
	}
	*w = '\0';
	fprintf(p->fp, "# HELP %s %s\n# TYPE %s %s\n", name, h, name, type);
}

static void labels(struct prom *p, const struct lbl *l, int nl)
{
	char v[LV_LEN];
	int n = 0;
	for (int i = 0; i < nl; i++) {
		if (!l[i].v || !l[i].v[0])
			continue;
		fprintf(p->fp, "%s%s=\"%s\"", n++ ? "," : "{", l[i].k,
			report_prom_escape(l[i].v, v, sizeof(v)));
	}
	if (n)
		fputc('}', p->fp);
}

/* A value as Go's ParseFloat reads it back: integers exactly, NaN for
 * "cannot be told". */
static void value_num(struct prom *p, double v)
{
	if (isnan(v))
		fputs(" NaN\n", p->fp);
	else if (isinf(v))
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", p->fp);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)   /* 2^53: exact */
		fprintf(p->fp, " %.0f\n", v);
	else
		fprintf(p->fp, " %.17g\n", v);
}

static void sample(struct prom *p, const char *name, const struct lbl *l, int nl, double v)
{
	fputs(name, p->fp);
	labels(p, l, nl);
	value_num(p, v);
	p->series++;
}

/* An enum: one series per word, 1 for the one that holds. */
static void enum_series(struct prom *p, const char *name, struct lbl *l, int nl,
			const char *key, const char *const *words, int nwords, const char *is)
{
	l[nl].k = key;
	for (int i = 0; i < nwords; i++) {
		if (!words[i])
			continue;
		l[nl].v = words[i];
		sample(p, name, l, nl + 1, is && strcmp(is, words[i]) == 0 ? 1 : 0);
	}
}

/* ---- ports ---- */

struct portref {
	const struct fab_nic *n;
	const struct fab_port *pt;
	char num[12];
};

static int port_refs(const struct fab_model *m, struct portref **out)
{
	int np = 0;
	for (int i = 0; i < m->nnics; i++)
		np += m->nics[i].nports > FAB_MAX_PORTS ? FAB_MAX_PORTS : m->nics[i].nports;
	struct portref *r = calloc(np ? (size_t)np : 1, sizeof(*r));
	if (!r)
		return -1;
	int k = 0;
	for (int i = 0; i < m->nnics; i++) {
		int n = m->nics[i].nports > FAB_MAX_PORTS ? FAB_MAX_PORTS : m->nics[i].nports;
		for (int j = 0; j < n; j++, k++) {
			r[k].n = &m->nics[i];
			r[k].pt = &m->nics[i].ports[j];
			snprintf(r[k].num, sizeof(r[k].num), "%d", r[k].pt->num);
		}
	}
	*out = r;
	return np;
}

/* The labels of every port series: device, port. */
static void port_labels(struct lbl *l, const struct portref *r)
{
	l[0] = (struct lbl){ "device", r->n->name };
	l[1] = (struct lbl){ "port", r->num };
}

/* The port's numeric facts, each the model's one judgement; !ok leaves
 * the series out. */
static fab_num pv_active(const struct fab_model *m, const struct portref *r)
{
	return (fab_num){ port_active(r->pt) ? 1 : 0, r->pt->state.ok };
}

static fab_num pv_rate(const struct fab_model *m, const struct portref *r)
{
	return (fab_num){ r->pt->rate_gbps.v * 1e9 / 8, r->pt->rate_gbps.ok };
}

static fab_num pv_line(const struct fab_model *m, const struct portref *r)
{
	double line = port_line_gbps(m, r->n, r->pt, NULL, 0);
	return (fab_num){ line * 1e9 / 8, line > 0 };
}

static fab_num pv_width(const struct fab_model *m, const struct portref *r)
{
	return (fab_num){ (double)r->pt->width.v, r->pt->width.ok };
}

static const struct {
	const char *name, *help;
	fab_num (*value)(const struct fab_model *m, const struct portref *r);
} port_gauges[] = {
	{ "fabtop_port_active", "1 when the port is ACTIVE or ACTIVE_DEFER, 0 when not; absent when "
	  "its state could not be read (fabtop_port_state{state=\"unknown\"} is then 1).", pv_active },
	{ "fabtop_port_rate_bytes_per_second", "The port's signalling rate (ports/N/rate), in bytes "
	  "per second (400 Gb/s is 5e10).", pv_rate },
	{ "fabtop_port_line_rate_bytes_per_second", "The line rate bandwidth is judged against: the "
	  "lower of the port's rate and what its PCIe link carries, bytes per second.", pv_line },
	{ "fabtop_port_link_width_lanes", "The port's link width in lanes (4 for 4X).", pv_width },
};

static void port_facts(struct prom *p, const struct fab_model *m, const struct portref *r, int np)
{
	struct lbl l[6];
	const char *st[PORT_STATE_MAX + 2], *ph[PORT_PHYS_MAX + 2];
	for (int i = 0; i <= PORT_STATE_MAX; i++)
		st[i] = port_state_name(i);
	st[PORT_STATE_MAX + 1] = "unknown";
	for (int i = 0; i <= PORT_PHYS_MAX; i++)
		ph[i] = port_phys_name(i);
	ph[PORT_PHYS_MAX + 1] = "unknown";
	static const char *const tri[] = { "yes", "no", "unknown" };

	fam(p, "fabtop_port_info", "gauge", "An RDMA port: its link layer and netdev (1 per port; join on device, port).");
	for (int i = 0; i < np; i++) {
		port_labels(l, &r[i]);
		l[2] = (struct lbl){ "link_layer", r[i].pt->ll == FAB_LL_UNKNOWN ? "unknown" : ll_name(r[i].pt->ll) };
		l[3] = (struct lbl){ "netdev", r[i].pt->netdev };
		l[4] = (struct lbl){ "speed", r[i].pt->speed };
		sample(p, "fabtop_port_info", l, 5, 1);
	}
	fam(p, "fabtop_port_state", "gauge", "ports/N/state as an enum: 1 for the state the port is in "
	    "(the kernel's words; unknown: not read, or a number the kernel does not define).");
	for (int i = 0; i < np; i++) {
		const struct fab_port *pt = r[i].pt;
		const char *is = pt->state.ok ? port_state_name(pt->state.v) : NULL;
		port_labels(l, &r[i]);
		enum_series(p, "fabtop_port_state", l, 2, "state", st, PORT_STATE_MAX + 2, is ? is : "unknown");
	}
	fam(p, "fabtop_port_physical_state", "gauge", "ports/N/phys_state as an enum: 1 for the "
	    "physical state (the kernel's words; unknown: not read, or undefined).");
	for (int i = 0; i < np; i++) {
		const struct fab_port *pt = r[i].pt;
		const char *is = pt->phys_state.ok ? port_phys_name(pt->phys_state.v) : NULL;
		port_labels(l, &r[i]);
		enum_series(p, "fabtop_port_physical_state", l, 2, "state", ph, PORT_PHYS_MAX + 2,
			    is ? is : "unknown");
	}
	fam(p, "fabtop_port_usable", "gauge", "Whether a job on this node can use the port now "
	    "(verbs access and an ACTIVE port), as an enum: yes, no, unknown.");
	for (int i = 0; i < np; i++) {
		port_labels(l, &r[i]);
		enum_series(p, "fabtop_port_usable", l, 2, "usable", tri, 3, tri_name(r[i].pt->usable.v));
	}
	for (size_t g = 0; g < sizeof(port_gauges) / sizeof(port_gauges[0]); g++) {
		fam(p, port_gauges[g].name, "gauge", port_gauges[g].help);
		for (int i = 0; i < np; i++) {
			fab_num v = port_gauges[g].value(m, &r[i]);
			if (!v.ok)
				continue;   /* unknown: the enums above say so */
			port_labels(l, &r[i]);
			sample(p, port_gauges[g].name, l, 2, v.v);
		}
	}
}

static void hca_facts(struct prom *p, const struct fab_model *m)
{
	struct lbl l[6];
	char fw[LV_TEXT], board[LV_TEXT], type[LV_TEXT];
	fam(p, "fabtop_hca_info", "gauge", "An RDMA device (1 per device): PCI function, driver, "
	    "firmware, board id (PSID) and HCA type as the driver reports them.");
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *n = &m->nics[i];
		const struct fab_pci_dev *d = nic_pci(m, n);
		fab_strlcpy(fw, n->fw_ver, sizeof(fw));
		fab_strlcpy(board, n->board_id, sizeof(board));
		fab_strlcpy(type, n->hca_type, sizeof(type));
		l[0] = (struct lbl){ "device", n->name };
		l[1] = (struct lbl){ "bdf", d ? d->bdf : NULL };
		l[2] = (struct lbl){ "driver", n->driver };
		l[3] = (struct lbl){ "fw_ver", fw };
		l[4] = (struct lbl){ "board_id", board };
		l[5] = (struct lbl){ "hca_type", type };
		sample(p, "fabtop_hca_info", l, 6, 1);
	}
	fam(p, "fabtop_hca_counters_skipped", "gauge", "1 for a device whose counters fabtop does not "
	    "read on purpose (an NVSwitch management function, --exclude-dev): its counters are absent "
	    "because they were not read, not because they are zero.");
	for (int i = 0; i < m->nnics; i++) {
		if (!m->nics[i].counters_skipped[0])
			continue;
		l[0] = (struct lbl){ "device", m->nics[i].name };
		char why[LV_TEXT];
		fab_strlcpy(why, m->nics[i].counters_skipped, sizeof(why));
		l[1] = (struct lbl){ "reason", why };
		sample(p, "fabtop_hca_counters_skipped", l, 2, 1);
	}
}

/* ---- counters: one reading of every counter file ---- */

/* The family of a counter: fabtop_port_<name> for the PMA counters/
 * (a leading "port_" of the file name dropped: port_xmit_data is
 * fabtop_port_xmit_data_bytes_total), fabtop_port_hw_<name> for
 * hw_counters/, fabtop_device_hw_<name> for a device's own hw_counters;
 * "_bytes" added where the scaled unit is bytes and the name does not say
 * so; "_total" on all but gauges. Names the table does not know share
 * one family with the name as a label (they come from the node). */
static void family_name(const struct fab_ctr *c, const struct fab_series *s, char *buf, size_t len)
{
	const struct fab_counter_def *d = c->def;
	const char *where = s->port == 0 ? "device" : "port";
	if (!d) {
		snprintf(buf, len, "fabtop_%s_unlisted_total", where);
		return;
	}
	const char *n = d->name;
	bool pma = strcmp(d->dir, "counters") == 0;
	if (pma && strncmp(n, "port_", 5) == 0)
		n += 5;
	const char *unit = counter_rate_unit(d);
	size_t nl = strlen(n);
	bool add_bytes = unit && strcmp(unit, "bytes") == 0 &&
			 !(nl >= 6 && strcmp(n + nl - 6, "_bytes") == 0);
	int w = snprintf(buf, len, "fabtop_%s_%s%s%s%s", where, pma ? "" : "hw_", n,
			 add_bytes ? "_bytes" : "", d->gauge ? "" : "_total");
	/* Table names are [A-Za-z0-9_]; metric names are lower case by convention. */
	for (int i = 0; i < w && (size_t)i < len; i++)
		buf[i] = (buf[i] >= 'A' && buf[i] <= 'Z') ? (char)(buf[i] - 'A' + 'a') : buf[i];
}

struct ctr_ref {
	const struct fab_ctr *c;
	int idx;
	char fam[96];
};

static int by_family(const void *a, const void *b)
{
	const struct ctr_ref *x = a, *y = b;
	int c = strcmp(x->fam, y->fam);
	return c ? c : x->idx - y->idx;
}

/* The value in base units: 4-octet words x4, bits /8 (counter_scale()). */
static void value_ctr(struct prom *p, const struct fab_counter_def *d, uint64_t v)
{
	double sc = counter_scale(d);
	if (sc == 1.0 || (sc == 4.0 && v <= UINT64_MAX / 4)) {
		/* Exact: Prometheus parses it as a float64, which rounds above 2^53. */
		fprintf(p->fp, " %llu\n", (unsigned long long)(v * (uint64_t)sc));
		return;
	}
	value_num(p, (double)v * sc);
}

static const char *ctr_unit_help(const struct fab_counter_def *d)
{
	const char *u = counter_rate_unit(d);
	return u ? u : "units";
}

/* Counters that could not be read this time: listed, never left out silently. */
static void counters_unreadable(struct prom *p, const struct fab_sampler *s)
{
	char num[12];
	fam(p, "fabtop_port_unreadable", "gauge", "1 for a counter file that could not be "
	    "read (reason unreadable), held what the counter cannot hold (implausible) or vanished "
	    "(gone): its value series is absent because it is unknown, not zero.");
	for (int i = 0; i < s->nctrs; i++) {
		const struct fab_ctr *c = &s->ctrs[i];
		const struct fab_series *se = &s->ports[c->port];
		unsigned f = c->last.flags;
		if (se->kind != SER_RDMA || !(f & (CTR_UNREADABLE | CTR_IMPLAUSIBLE | CTR_GONE)))
			continue;
		struct lbl l[5];
		snprintf(num, sizeof(num), "%d", se->port);
		l[0] = (struct lbl){ "device", se->dev };
		l[1] = (struct lbl){ "port", se->port > 0 ? num : NULL };
		l[2] = (struct lbl){ "dir", c->dir };
		l[3] = (struct lbl){ "counter", c->name };
		l[4] = (struct lbl){ "reason", f & CTR_GONE ? "gone" : f & CTR_IMPLAUSIBLE ?
				     "implausible" : "unreadable" };
		sample(p, "fabtop_port_unreadable", l, 5, 1);
	}
}

static void counters(struct prom *p, const struct fab_sampler *s)
{
	struct ctr_ref *r = calloc(s->nctrs > 0 ? (size_t)s->nctrs : 1, sizeof(*r));
	int n = 0;
	if (!r)
		return;
	for (int i = 0; i < s->nctrs; i++) {
		const struct fab_ctr *c = &s->ctrs[i];
		const struct fab_series *se = &s->ports[c->port];
		if (se->kind != SER_RDMA || !c->valid)
			continue;
		r[n].c = c;
		r[n].idx = i;
		family_name(c, se, r[n].fam, sizeof(r[n].fam));
		n++;
	}
	qsort(r, (size_t)n, sizeof(*r), by_family);
	char help[512], num[12];
	for (int i = 0; i < n; i++) {
		const struct fab_ctr *c = r[i].c;
		const struct fab_counter_def *d = c->def;
		const struct fab_series *se = &s->ports[c->port];
		if (i == 0 || strcmp(r[i].fam, r[i - 1].fam) != 0) {
			if (d)
				snprintf(help, sizeof(help), "%s/%s: %s (%s%s).", d->dir, d->name, d->meaning,
					 ctr_unit_help(d), counter_scale(d) != 1.0 ? ", converted from the "
					 "counter's unit" : "");
			else
				snprintf(help, sizeof(help), "A counter file fabtop's table does not list, "
					 "as read (64-bit, unit unknown); the counter label names it.");
			fam(p, r[i].fam, d && d->gauge ? "gauge" : "counter", help);
		}
		struct lbl l[5];
		int nl = 0;
		snprintf(num, sizeof(num), "%d", se->port);
		l[nl++] = (struct lbl){ "device", se->dev };
		if (se->port > 0)
			l[nl++] = (struct lbl){ "port", num };
		l[nl++] = (struct lbl){ "counter", c->name };
		if (!d)
			l[nl++] = (struct lbl){ "dir", c->dir };
		/* Growth that is trouble, by the sampler's one judgement, named by
		 * the table's class: retry, error, congestion. */
		if (counter_trouble(d))
			l[nl++] = (struct lbl){ "trouble", counter_class_name(d) };
		fputs(r[i].fam, p->fp);
		labels(p, l, nl);
		value_ctr(p, d, c->value);
		p->series++;
	}
	fam(p, "fabtop_port_saturated", "gauge", "1 when a saturating PMA counter sits at its "
	    "maximum (2^width-1): it stopped counting, so its growth no longer shows; clear it to count "
	    "again. 0 when it counts. Only counters that can saturate.");
	for (int i = 0; i < n; i++) {
		const struct fab_ctr *c = r[i].c;
		const struct fab_series *se = &s->ports[c->port];
		if (!c->def || !c->def->saturates)
			continue;
		struct lbl l[3];
		snprintf(num, sizeof(num), "%d", se->port);
		l[0] = (struct lbl){ "device", se->dev };
		l[1] = (struct lbl){ "port", se->port > 0 ? num : NULL };
		l[2] = (struct lbl){ "counter", c->name };
		sample(p, "fabtop_port_saturated", l, 3, counter_pinned(c->def, c->value) ? 1 : 0);
	}
	free(r);
	counters_unreadable(p, s);
}

/* ---- PCIe links of GPUs, NICs and the bridges above them ---- */

struct pcie_ref {
	const struct fab_pci_dev *d;
	const char *kind, *name;
};

static int pcie_refs(const struct fab_model *m, struct pcie_ref **out)
{
	int max = m->ngpus + m->nnics + m->npci;
	struct pcie_ref *r = calloc(max ? (size_t)max : 1, sizeof(*r));
	bool *bridge = calloc(m->npci ? (size_t)m->npci : 1, sizeof(*bridge));
	int n = 0;
	if (!r || !bridge) {
		free(r);
		free(bridge);
		return -1;
	}
	for (int i = 0; i < m->ngpus; i++) {
		if (m->gpus[i].pci < 0 || m->gpus[i].pci >= m->npci)
			continue;
		r[n++] = (struct pcie_ref){ &m->pci[m->gpus[i].pci], "gpu", NULL };
	}
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_pci_dev *d = nic_pci(m, &m->nics[i]);
		if (d)
			r[n++] = (struct pcie_ref){ d, "nic", m->nics[i].name };
	}
	/* The bridges on the way up from each of them, once each. */
	int ends = n;
	for (int i = 0; i < ends; i++)
		for (int c = 0; c < r[i].d->chain_len && c < FAB_MAX_CHAIN; c++) {
			int b = model_find_pci(m, r[i].d->chain[c]);
			if (b >= 0 && !bridge[b]) {
				bridge[b] = true;
				r[n++] = (struct pcie_ref){ &m->pci[b], "bridge", NULL };
			}
		}
	free(bridge);
	*out = r;
	return n;
}

static void pcie_links(struct prom *p, const struct fab_model *m, const struct fab_topo *t)
{
	struct pcie_ref *r;
	int n = pcie_refs(m, &r);
	if (n < 0)
		return;
	/* GPUs are named as the topology matrix names them (GPU0). */
	for (int i = 0; i < n; i++)
		if (strcmp(r[i].kind, "gpu") == 0)
			for (int j = 0; j < t->ngpus; j++)
				if (&m->pci[t->devs[j].pci] == r[i].d)
					r[i].name = t->devs[j].label;
	static const struct {
		const char *name, *help;
		int which;
	} fams[] = {
		{ "fabtop_pcie_link_speed_transfers_per_second", "current_link_speed of the PCI function, "
		  "in transfers per second (16 GT/s is 1.6e10).", 0 },
		{ "fabtop_pcie_link_max_speed_transfers_per_second", "max_link_speed of the PCI function, "
		  "in transfers per second.", 1 },
		{ "fabtop_pcie_link_width_lanes", "current_link_width of the PCI function, in lanes "
		  "(0: the link is down).", 2 },
		{ "fabtop_pcie_link_max_width_lanes", "max_link_width of the PCI function, in lanes.", 3 },
	};
	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		fam(p, fams[f].name, "gauge", fams[f].help);
		for (int i = 0; i < n; i++) {
			const struct fab_pcie_link *k = &r[i].d->link;
			fab_num v = fams[f].which == 0 ? k->cur_speed : fams[f].which == 1 ? k->max_speed :
				    fams[f].which == 2 ? (fab_num){ (double)k->cur_width.v, k->cur_width.ok } :
				    (fab_num){ (double)k->max_width.v, k->max_width.ok };
			if (!v.ok)
				continue;
			struct lbl l[3] = {
				{ "bdf", r[i].d->bdf }, { "kind", r[i].kind }, { "name", r[i].name },
			};
			sample(p, fams[f].name, l, 3, fams[f].which < 2 ? v.v * 1e9 : v.v);
		}
	}
	free(r);
}

/* The closest NIC of each GPU, as the topology matrix marks it. */
static void gpu_nic(struct prom *p, const struct fab_model *m, const struct fab_topo *t)
{
	fam(p, "fabtop_gpu_closest_nic_level", "gauge", "The closest NIC of each GPU (the topology's "
	    "choice among the NICs usable here) and its distance as nvidia-smi topo -m names it (level "
	    "label) and ranks it (value: 2 PIX, 3 PXB, 4 PHB, 5 NODE, 6 SYS; NaN when unknown).");
	for (int g = 0; g < t->ngpus; g++) {
		enum fab_topo_level lv = t->best_level[g];
		for (int j = 0; j < t->nnics && j < 64; j++) {
			if (!(t->best[g] >> j & 1))
				continue;
			const struct fab_topo_dev *nd = &t->devs[t->ngpus + j];
			struct lbl l[6] = {
				{ "gpu", t->devs[g].label },
				{ "gpu_bdf", m->pci[t->devs[g].pci].bdf },
				{ "nic", nd->label },
				{ "device", m->nics[nd->idx].name },
				{ "level", lv == TOPO_UNKNOWN ? "unknown" : topo_level_word(lv) },
				{ "usable", tri_name(t->best_usable[g]) },
			};
			sample(p, "fabtop_gpu_closest_nic_level", l, 6, lv == TOPO_UNKNOWN ? NAN : (double)lv);
		}
	}
}

/* ---- findings, read errors, verdict ---- */

static void findings(struct prom *p, const struct fab_model *m)
{
	int count[SEV_ERROR + 1] = { 0 };
	fam(p, "fabtop_finding", "gauge", "1 for each finding of fabtop's rules (id, severity, subject); "
	    "README's findings table and `fabtop report all` say what each means.");
	for (int i = 0; i < m->nfindings; i++) {
		const struct fab_finding *f = &m->findings[i];
		if (f->sev >= SEV_INFO && f->sev <= SEV_ERROR)
			count[f->sev]++;
		/* One series per (id, severity, subject): a rule that said it twice. */
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = m->findings[j].sev == f->sev && strcmp(m->findings[j].id, f->id) == 0 &&
			       strcmp(m->findings[j].subject, f->subject) == 0;
		if (seen)
			continue;
		struct lbl l[3] = { { "id", f->id }, { "severity", sev_name(f->sev) }, { "subject", f->subject } };
		sample(p, "fabtop_finding", l, 3, 1);
	}
	fam(p, "fabtop_findings", "gauge", "Number of findings by severity.");
	for (int s = SEV_INFO; s <= SEV_ERROR; s++) {
		struct lbl l[1] = { { "severity", sev_name((enum fab_severity)s) } };
		sample(p, "fabtop_findings", l, 1, count[s]);
	}
}

static const struct {
	unsigned bit;
	const char *name;
} sources[] = {
	{ FAB_SRC_RDMA, "rdma" }, { FAB_SRC_PCI, "pci" }, { FAB_SRC_NET, "net" },
	{ FAB_SRC_CAPTURE, "capture" },
};

static void source_word(unsigned src, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (src & sources[i].bit)
			fab_catf(buf, len, "%s%s", buf[0] ? "," : "", sources[i].name);
	if (!buf[0])
		snprintf(buf, len, "detail");
}

static int read_errors(struct prom *p, const struct fab_model *m, const struct fab_sampler *s,
		       bool sampled, const char *sampler_err)
{
	fam(p, "fabtop_source_up", "gauge", "1 when fabtop could read the source (rdma: "
	    "/sys/class/infiniband; pci: /sys/bus/pci/devices; net: /sys/class/net; capture: the "
	    "capture whole; counters: the counter files), 0 when it exists and could not be read: "
	    "what stands on it is unknown, never absent.");
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		struct lbl l[1] = { { "source", sources[i].name } };
		sample(p, "fabtop_source_up", l, 1, model_unknown(m, sources[i].bit, NULL) ? 0 : 1);
	}
	struct lbl lc[1] = { { "source", "counters" } };
	sample(p, "fabtop_source_up", lc, 1, sampled ? 1 : 0);
	int nbad = 0;
	for (int i = 0; sampled && i < s->nctrs; i++)
		nbad += s->ports[s->ctrs[i].port].kind == SER_RDMA &&
			(s->ctrs[i].last.flags & (CTR_UNREADABLE | CTR_IMPLAUSIBLE | CTR_GONE));
	fam(p, "fabtop_read_errors", "gauge", "What fabtop could not read in this run: the model's notes "
	    "(fabtop_read_error lists them) plus counter files (fabtop_port_unreadable), "
	    "plus 1 when the counters could not be sampled at all.");
	sample(p, "fabtop_read_errors", NULL, 0, m->nnotes + nbad + (sampled ? 0 : 1));
	fam(p, "fabtop_read_error", "gauge", "1 for each thing a collector could not read (what: the "
	    "path or source; source: the sources it leaves unknown, detail when none). The "
	    "comment line before each says why.");
	char src[64], msg[LV_LEN];
	for (int i = 0; i < m->nnotes; i++) {
		const struct fab_note *nt = &m->notes[i];
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = strcmp(m->notes[j].what, nt->what) == 0 && m->notes[j].src == nt->src;
		if (seen)
			continue;
		source_word(nt->src, src, sizeof(src));
		fprintf(p->fp, "# fabtop: %s\n", fab_sanitize(nt->message, msg, sizeof(msg)));
		struct lbl l[2] = { { "what", nt->what }, { "source", src } };
		sample(p, "fabtop_read_error", l, 2, 1);
	}
	if (!sampled) {
		fprintf(p->fp, "# fabtop: %s\n", fab_sanitize(sampler_err, msg, sizeof(msg)));
		struct lbl l[2] = { { "what", "counters" }, { "source", "counters" } };
		sample(p, "fabtop_read_error", l, 2, 1);
	}
	return nbad;
}

static int verdict(struct prom *p, const struct fab_model *m, const struct fab_sampler *s,
		   bool sampled)
{
	static const char *const words[] = { "ok", "findings", "unknown" };
	enum fab_verdict v = model_verdict(m, FAB_NEED_ALL, findings_worst(m, NULL));
	struct sampler_coverage cov;
	char say[512];
	/* Counters that could not be sampled at all, or not on every port:
	 * the metrics stand on them. */
	if (!sampled || sampler_coverage(s, &cov))
		v = FAB_VERDICT_UNKNOWN;
	if (sampled && sampler_coverage_say(&cov, say, sizeof(say))[0])
		fprintf(p->fp, "# fabtop: counters: %s\n", say);
	char msg[LV_LEN];
	if (v == FAB_VERDICT_UNKNOWN) {
		fprintf(p->fp, "# fabtop: verdict unknown: what these metrics stand on could not be read, "
			"so they cannot call the node healthy:\n");
		for (int i = 0; i < m->nnotes; i++)
			if (m->notes[i].src & FAB_NEED_ALL)
				fprintf(p->fp, "# fabtop:   %s\n", fab_sanitize(m->notes[i].message, msg, sizeof(msg)));
		if (!sampled)
			fprintf(p->fp, "# fabtop:   the counters could not be sampled\n");
		else if (cov.unsampled_ports)
			fprintf(p->fp, "# fabtop:   %s\n", say);
	}
	fam(p, "fabtop_verdict", "gauge", "The node's verdict as `fabtop report all` gives it, or unknown "
	    "when the counters these metrics also stand on could not be sampled (the exit status), as "
	    "an enum: ok (0), findings (1: a warning or worse), unknown (2: a source it stands on could "
	    "not be read).");
	struct lbl l[1];
	enum_series(p, "fabtop_verdict", l, 0, "verdict", words, 3, fab_verdict_name(v));
	return (int)v;
}

/* ---- the document ---- */

int report_metrics(FILE *fp, const struct fab_root *r, const struct fab_model *m)
{
	struct prom p = { .fp = fp };
	struct fab_sampler s;
	char err[512] = "";
	/* One reading of every counter file: the sampler, which reads them
	 * as the Counters pane does (hazardous devices skipped). */
	bool sampled = sampler_open(&s, r, err, sizeof(err)) == 0;
	if (sampled && sampler_read(&s, 0) != 0) {
		snprintf(err, sizeof(err), "reading the counters of %s failed", r->name);
		sampled = false;
	}
	if (!sampled && !err[0])
		snprintf(err, sizeof(err), "the counters of %s could not be sampled", r->name);

	fam(&p, "fabtop_build_info", "gauge", "fabtop's version (1).");
	struct lbl bl[1] = { { "version", FABTOP_VERSION } };
	sample(&p, "fabtop_build_info", bl, 1, 1);
	fam(&p, "fabtop_snapshot_timestamp_seconds", "gauge", "When the node was read (a capture: "
	    "when it was taken), seconds since the epoch.");
	if (m->time > 0)
		sample(&p, "fabtop_snapshot_timestamp_seconds", NULL, 0, (double)m->time);

	struct portref *pr = NULL;
	int np = port_refs(m, &pr);
	if (np >= 0) {
		port_facts(&p, m, pr, np);
		free(pr);
	}
	hca_facts(&p, m);
	if (sampled)
		counters(&p, &s);
	struct fab_topo t;
	if (topo_build(m, &t) == 0) {
		pcie_links(&p, m, &t);
		gpu_nic(&p, m, &t);
		topo_free(&t);
	}
	findings(&p, m);
	read_errors(&p, m, &s, sampled, err);
	int v = verdict(&p, m, &s, sampled);
	if (sampled)
		sampler_close(&s);
	return ferror(fp) ? -1 : v;
}

int report_metrics_run(const char *rootspec, const char *output, FILE *err)
{
	struct fab_root root;
	struct fab_model m;
	char e[1024];
	struct stat st;
	/* Refused before reading the node: a directory is no file to write. */
	if (output && strcmp(output, "-") != 0 && lstat(output, &st) == 0 && S_ISDIR(st.st_mode)) {
		fab_fprintf(err, "fabtop: %s is a directory: give the file to write, e.g. "
			    "%s/fabtop.prom (node_exporter's textfile collector reads *.prom)\n",
			    output, output);
		return 2;
	}
	if (root_open(&root, rootspec, e, sizeof(e)) != 0) {
		fab_fprintf(err, "fabtop: %s\n", e);
		return 2;
	}
	model_init(&m);
	collect_all(&root, &m);
	char *doc = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&doc, &len);
	int rc = mem ? report_metrics(mem, &root, &m) : -1;
	if (mem && fclose(mem) != 0)
		rc = -1;
	model_free(&m);
	root_close(&root);
	if (rc < 0) {
		fprintf(err, "fabtop: cannot build the metrics: %s\n", strerror(errno));
		free(doc);
		return 2;
	}
	if (!output) {
		if (fwrite(doc, 1, len, stdout) != len || fflush(stdout) != 0) {
			fprintf(err, "fabtop: cannot write the metrics: %s\n", strerror(errno));
			rc = 2;
		}
		free(doc);
		return rc;
	}
	/* The textfile collector reads the file whole or not at all: a
	 * temporary file beside it, fsync'ed, renamed over it (cap_dest.h).
	 * It is replaced on every run, so the old one needs no --force. */
	struct cap_dest d;
	if (cap_dest_open(&d, output, true, e, sizeof(e)) != 0) {
		fab_fprintf(err, "fabtop: %s\n", e);
		free(doc);
		return 2;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(d.fd, doc + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			fab_fprintf(err, "fabtop: cannot write %s: %s\n", output, strerror(errno));
			cap_dest_abort(&d);
			free(doc);
			return 2;
		}
		off += (size_t)w;
	}
	free(doc);
	if (cap_dest_commit(&d, e, sizeof(e)) != 0) {
		fab_fprintf(err, "fabtop: %s\n", e);
		cap_dest_abort(&d);
		return 2;
	}
	return rc;
}
