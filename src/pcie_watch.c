/* pcie_watch.c - PCIe over time (pcie_watch.h): AER counters and link
 * speed/width of the functions the traffic crosses, read each step from
 * kept fds (live) or from a recorded object (playback) through one step. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "fabtop/pcie_watch.h"
#include "fabtop/sampler.h"
#include "fabtop/sanitize.h"
#include "fabtop/util.h"

#define PCI_DIR "/sys/bus/pci/devices"

/* The files of a function, in pcie_fn.fd order: the three AER files, then
 * the link. Their names are the JSON keys of a recorded step. */
enum { F_COR, F_NONFATAL, F_FATAL, F_SPEED, F_WIDTH, F_N };
static const char *const file_names[F_N] = {
	"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal",
	"current_link_speed", "current_link_width",
};

/* The TOTAL line of each AER file, as drivers/pci/pcie/aer.c writes it:
 * aer_stats_dev_attr(aer_dev_correctable, ..., "ERR_COR", ...) and its
 * "TOTAL_%s %llu\n" (https://github.com/torvalds/linux/blob/master/drivers/pci/pcie/aer.c). */
static const char *const total_keys[PCIE_AER_KINDS] = {
	"TOTAL_ERR_COR", "TOTAL_ERR_NONFATAL", "TOTAL_ERR_FATAL",
};

const char *pcie_aer_file(enum pcie_aer_kind k)
{
	return (unsigned)k < PCIE_AER_KINDS ? file_names[k] : "?";
}

/* ---- the AER file ---- */

/* The characters of the kernel's error names: short ones ("RxErr",
 * "BadTLP", "dev_cor_errs_bit[3]") since 5.x, long ones before
 * ("Receiver Error", "RELAY_NUM Rollover", "Advisory Non-Fatal",
 * Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats,
 * https://kernel.org/doc/Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats).
 * Anything else is not the file, and never reaches a finding. */
static bool name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == ' ' || c == '_' || c == '-' || c == '[' || c == ']' || c == '(' || c == ')' ||
	       c == '.' || c == '/';
}

int pcie_aer_parse(enum pcie_aer_kind k, const char *buf, size_t len, struct pcie_aer_file *out)
{
	if ((unsigned)k >= PCIE_AER_KINDS || !buf || len == 0 || len > FAB_SYSFS_PAGE ||
	    buf[len - 1] != '\n')
		return -1;   /* empty, more than a page, or cut short */
	memset(out, 0, sizeof(*out));
	bool total = false;
	size_t i = 0;
	while (i < len) {
		const char *line = buf + i, *nl = memchr(line, '\n', len - i);
		size_t n = (size_t)(nl - line);   /* buf ends with '\n': nl is found */
		i += n + 1;
		if (total)
			return -1;   /* the TOTAL line is the last */
		/* The value is the last word: names may hold spaces. */
		const char *sp = NULL;
		for (size_t j = n; j > 0; j--)
			if (line[j - 1] == ' ') {
				sp = line + j - 1;
				break;
			}
		if (!sp || sp == line || line[0] == ' ')
			return -1;
		size_t nlen = (size_t)(sp - line), vlen = n - nlen - 1;
		uint64_t v;
		if (vlen == 0 || vlen > 20 || line[nlen - 1] == ' ' ||
		    counter_parse_value(sp + 1, vlen, &v) != 0)
			return -1;
		for (size_t j = 0; j < vlen; j++)
			if (sp[1 + j] < '0' || sp[1 + j] > '9')
				return -1;   /* digits only: the kernel prints %llu */
		if (nlen == strlen(total_keys[k]) && memcmp(line, total_keys[k], nlen) == 0) {
			out->total = v;
			total = true;
			continue;
		}
		if (nlen >= PCIE_AER_NAME_LEN || out->n == PCIE_AER_MAX_ENTRIES ||
		    (nlen >= 6 && memcmp(line, "TOTAL_", 6) == 0))
			return -1;   /* another file's TOTAL is not this one */
		for (size_t j = 0; j < nlen; j++)
			if (!name_char(line[j]))
				return -1;
		struct pcie_aer_entry *e = &out->e[out->n];
		memcpy(e->name, line, nlen);
		e->name[nlen] = '\0';
		for (int j = 0; j < out->n; j++)
			if (strcmp(out->e[j].name, e->name) == 0)
				return -1;
		e->v = v;
		out->n++;
	}
	return total ? 0 : -1;
}

/* ---- the list of functions ---- */

static int fn_add(struct pcie_watch *w, int *cap, const struct fab_model *m,
		  const struct fab_pci_dev *d, unsigned role, bool own_link)
{
	int i = pcie_watch_find(w, d->bdf);
	if (i < 0) {
		if (w->nfns == *cap) {
			int nc = *cap ? *cap * 2 : 16;
			struct pcie_fn *v = realloc(w->fns, (size_t)nc * sizeof(*v));
			if (!v)
				return -1;
			w->fns = v;
			*cap = nc;
		}
		i = w->nfns++;
		struct pcie_fn *f = &w->fns[i];
		memset(f, 0, sizeof(*f));
		fab_strlcpy(f->bdf, d->bdf, sizeof(f->bdf));
		for (int k = 0; k < F_N; k++)
			f->fd[k] = -1;
		double s;
		long long wd;
		if (pcie_link_cap(m, d, &s, &wd)) {
			f->cap_speed = fab_num_of(s);
			f->cap_width = fab_int_of(wd);
		}
		f->present = true;
		for (int k = 0; k < PCIE_AER_KINDS; k++)
			f->aer[k].t_value = NAN;
	}
	w->fns[i].roles |= role;
	w->fns[i].own_link |= own_link;
	return 0;
}

static int by_bdf(const void *a, const void *b)
{
	return strcmp(((const struct pcie_fn *)a)->bdf, ((const struct pcie_fn *)b)->bdf);
}

/* The functions from the model: NIC functions (a VF's PF), the bridges
 * above them, GPU functions. A bridge's current_link_* is the link
 * between it and the function below or above it: an upstream port (odd in
 * the chain from the root port, as rules_topo.c counts) reads the link
 * above it, which no other watched function reads; a root or downstream
 * port reads the link below it, the one the next function down reads too.
 * Only the first is watched for its link, so a link is judged once. */
static int build_list(struct pcie_watch *w, const struct fab_model *m)
{
	int cap = 0;
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_pci_dev *d = nic_link_dev(m, &m->nics[i]);
		if (!d)
			continue;
		if (fn_add(w, &cap, m, d, PCIE_ROLE_NIC, true) < 0)
			return -1;
		for (int c = 0; c < d->chain_len && c < FAB_MAX_CHAIN; c++) {
			int b = model_find_pci(m, d->chain[c]);
			if (b != FAB_NO_INDEX && fn_add(w, &cap, m, &m->pci[b], PCIE_ROLE_BRIDGE,
						       c % 2 == 1) < 0)
				return -1;
		}
	}
	for (int g = 0; g < m->ngpus; g++) {
		int p = m->gpus[g].pci;
		if (p >= 0 && p < m->npci && fn_add(w, &cap, m, &m->pci[p], PCIE_ROLE_GPU, true) < 0)
			return -1;
	}
	if (w->nfns > 1)
		qsort(w->fns, (size_t)w->nfns, sizeof(*w->fns), by_bdf);
	return 0;
}

int pcie_watch_find(const struct pcie_watch *w, const char *bdf)
{
	for (int i = 0; i < w->nfns; i++)
		if (strcmp(w->fns[i].bdf, bdf) == 0)
			return i;
	return -1;
}

const struct pcie_event *pcie_watch_event(const struct pcie_watch *w, int i)
{
	if (i < 0 || i >= w->nev)
		return NULL;
	return &w->ev[(w->ev_head + i) % PCIE_WATCH_EVENTS];
}

static void event_push(struct pcie_watch *w, double t, int fn, enum pcie_event_kind kind,
		       struct pcie_link_now from, struct pcie_link_now to)
{
	int at;
	if (w->nev < PCIE_WATCH_EVENTS) {
		at = (w->ev_head + w->nev++) % PCIE_WATCH_EVENTS;
	} else {
		at = w->ev_head;
		w->ev_head = (w->ev_head + 1) % PCIE_WATCH_EVENTS;
		w->ev_dropped++;
	}
	w->ev[at] = (struct pcie_event){ .t = t, .fn = fn, .kind = kind, .from = from, .to = to };
}

/* ---- live files ---- */

static bool watches(const struct pcie_fn *f, int k)
{
	return k < F_SPEED || f->own_link;
}

static void fn_close_fds(struct pcie_fn *f)
{
	for (int k = 0; k < F_N; k++) {
		if (f->fd[k] >= 0)
			close(f->fd[k]);
		f->fd[k] = -1;
	}
}

/* Opens the function's files. An absent one stays -ENOENT (that function
 * has no AER, or no link), another failure reads as unreadable. */
static void fn_open_fds(struct pcie_watch *w, struct pcie_fn *f)
{
	char p[sizeof(PCI_DIR) + 64];
	fn_close_fds(f);
	for (int k = 0; k < F_N; k++) {
		if (!watches(f, k))
			continue;
		snprintf(p, sizeof(p), PCI_DIR "/%s/%s", f->bdf, file_names[k]);
		int fd = root_open_fd(w->root, p, 0);
		if (fd == -EMFILE)
			snprintf(w->note, sizeof(w->note),
				 "too many open files to watch PCIe: raise `ulimit -n`");
		f->fd[k] = fd >= 0 ? fd : (fd == -ENOENT ? -ENOENT : -1);
	}
	char d[sizeof(PCI_DIR) + 20];
	struct stat st;
	snprintf(d, sizeof(d), PCI_DIR "/%s", f->bdf);
	f->dir_ino = root_stat(w->root, d, &st) == 0 ? st.st_ino : 0;
}

int pcie_watch_open(struct pcie_watch *w, const struct fab_root *r, const struct fab_model *m,
		    char *err, size_t len)
{
	memset(w, 0, sizeof(*w));
	w->root = r;
	if (!m) {
		snprintf(err, len, "PCIe watch: no model to take the functions from");
		return -1;
	}
	if (build_list(w, m) < 0) {
		pcie_watch_close(w);
		snprintf(err, len, "PCIe watch: out of memory listing %d functions", m->npci);
		return -1;
	}
	if (w->nfns == 0)
		snprintf(w->note, sizeof(w->note), "no RDMA NIC or GPU function to watch");
	for (int i = 0; r && i < w->nfns; i++)
		fn_open_fds(w, &w->fns[i]);
	return 0;
}

void pcie_watch_close(struct pcie_watch *w)
{
	for (int i = 0; i < w->nfns; i++)
		fn_close_fds(&w->fns[i]);
	free(w->fns);
	memset(w, 0, sizeof(*w));
}

/* ---- one step ---- */

/* A file's reading in one step: live or recorded alike. */
enum rd { RD_MISSING, RD_BAD, RD_TEXT };
struct reading {
	enum rd rd;
	const char *text;
	size_t len;              /* above FAB_SYSFS_PAGE: more than a page was there */
};

/* What a step takes a reading for: absent, unreadable, or text. More than
 * a sysfs page, or binary junk, is no kernel attribute: unreadable, as a
 * failed read; a capture records both as null, so playback takes them the
 * same way. Text that is not the format is judged by its parser. */
static enum rd classify(const struct reading *r)
{
	if (r->rd != RD_TEXT)
		return r->rd;
	return r->len <= FAB_SYSFS_PAGE && fab_is_text(r->text, r->len) ? RD_TEXT : RD_BAD;
}

static void aer_take(struct pcie_fn *f, int k, const struct reading *r, bool fresh, double t)
{
	struct pcie_aer *a = &f->aer[k];
	struct pcie_aer_file pf;
	enum rd c = classify(r);
	a->present = c != RD_MISSING;
	if (c == RD_MISSING) {
		a->last = (struct ctr_step){ 0 };
		a->bad = false;
		return;
	}
	if (c == RD_BAD) {
		a->last = (struct ctr_step){ .flags = CTR_UNREADABLE };
		a->bad = true;
		if (fresh)
			a->t_value = NAN;
		return;
	}
	if (pcie_aer_parse((enum pcie_aer_kind)k, r->text, r->len, &pf) != 0) {
		a->last = (struct ctr_step){ .flags = CTR_IMPLAUSIBLE };
		a->bad = true;
		if (fresh)
			a->t_value = NAN;
		return;
	}
	a->bad = false;
	if (!a->valid || fresh || isnan(a->t_value)) {
		/* A new series: at start, or a device that came back (its counters
		 * start anew: what it counted before is in since_baseline). */
		if (!a->valid || fresh)
			a->base = pf;
		a->valid = true;
		a->last = (struct ctr_step){ .flags = CTR_FIRST };
	} else {
		struct ctr_step st = counter_step(a->cur.total, pf.total, 64, false, 1.0, t - a->t_value);
		if (st.flags & CTR_RESET)
			memset(&a->base, 0, sizeof(a->base));   /* every bit counts from 0 again */
		a->last = st;
		a->since_baseline += st.delta;
	}
	a->cur = pf;
	a->t_value = t;
}

/* The correctable window: how many ERR_COR the last PCIE_AER_COR_WINDOW_S
 * seconds of steps counted, from the oldest step inside it (never more than
 * the true count in 60 s, so a warning is never a rounding). */
static void cor_window(struct pcie_fn *f, double t)
{
	struct pcie_aer *a = &f->aer[PCIE_AER_COR];
	int at = (f->ring_head + f->ring_n) % PCIE_WATCH_RING;
	if (f->ring_n == PCIE_WATCH_RING) {
		f->ring_head = (f->ring_head + 1) % PCIE_WATCH_RING;
		f->ring_n--;
	}
	f->ring_t[at] = t;
	f->ring_v[at] = a->since_baseline;
	f->ring_n++;
	while (f->ring_n > 1 && t - f->ring_t[f->ring_head] > PCIE_AER_COR_WINDOW_S) {
		f->ring_head = (f->ring_head + 1) % PCIE_WATCH_RING;
		f->ring_n--;
	}
	uint64_t in = a->since_baseline - f->ring_v[f->ring_head];
	if (in > a->window_peak)
		a->window_peak = in;
}

static bool link_same(struct pcie_link_now a, struct pcie_link_now b)
{
	if (a.speed.ok != b.speed.ok || a.width.ok != b.width.ok)
		return false;
	return (!a.speed.ok || fabs(a.speed.v - b.speed.v) < 0.01) &&
	       (!a.width.ok || a.width.v == b.width.v);
}

/* current_link_speed: the PCI collector's parser (fab_parse_gts); "Unknown"
 * is a link the kernel cannot read (down): unknown speed, a true reading.
 * current_link_width: 0 is a link that is down. Anything else is garbage. */
static bool link_parse(const struct reading *sp, const struct reading *wd, struct pcie_link_now *out)
{
	char s[64], v[32];
	if (classify(sp) != RD_TEXT || classify(wd) != RD_TEXT || sp->len >= sizeof(s) ||
	    wd->len >= sizeof(v))
		return false;
	memcpy(s, sp->text, sp->len);
	s[sp->len] = '\0';
	memcpy(v, wd->text, wd->len);
	v[wd->len] = '\0';
	double gts;
	long long lanes;
	*out = (struct pcie_link_now){ { 0, false }, { 0, false } };
	if (fab_parse_gts(s, &gts))
		out->speed = fab_num_of(gts);
	else if (strncmp(s, "Unknown", 7) != 0)
		return false;
	if (!fab_parse_ll(v, &lanes) || lanes < 0 || lanes > 32)
		return false;
	if (pcie_width_ok(lanes))
		out->width = fab_int_of(lanes);
	return true;
}

static void fn_gone(struct pcie_watch *w, int i, double t)
{
	struct pcie_fn *f = &w->fns[i];
	if (f->present) {
		snprintf(w->note, sizeof(w->note), "%s vanished", f->bdf);
		event_push(w, t, i, PCIE_EV_GONE, f->link, (struct pcie_link_now){ 0 });
	}
	f->present = false;
	fn_close_fds(f);
	for (int k = 0; k < PCIE_AER_KINDS; k++) {
		f->aer[k].last = (struct ctr_step){ .flags = CTR_GONE };
		f->aer[k].t_value = NAN;
	}
}

/* One function's step from its readings (rd[F_N]); back: it was gone and
 * is here again, or it is a new device at the same address. */
static void fn_step(struct pcie_watch *w, int i, const struct reading *rd, bool back, double t)
{
	struct pcie_fn *f = &w->fns[i];
	bool fresh = back;
	for (int k = 0; k < PCIE_AER_KINDS; k++)
		aer_take(f, k, &rd[k], fresh, t);
	cor_window(f, t);
	struct pcie_link_now now = f->link;
	f->link_bad = f->own_link && !link_parse(&rd[F_SPEED], &rd[F_WIDTH], &now);
	bool fresh_link = f->own_link && !f->link_bad;
	/* Back: one event, from the link before it went to the link now. */
	if (back)
		event_push(w, t, i, PCIE_EV_BACK, f->link, now);
	else if (fresh_link && f->link_read && !link_same(f->link, now))
		event_push(w, t, i, PCIE_EV_LINK, f->link, now);
	if (fresh_link) {
		f->link = now;
		f->link_read = true;
	}
}

static void step_begin(struct pcie_watch *w, double t)
{
	if (w->tick++ == 0)
		w->t_first = t;
	w->t_last = t;
}

/* ---- live ---- */

static json_t *record_text(const struct reading *r)
{
	/* Junk cannot be JSON text: null, which the step reads as it read the
	 * junk (classify()). */
	if (classify(r) != RD_TEXT)
		return json_null();
	json_t *s = json_stringn(r->text, r->len);
	return s ? s : json_null();
}

int pcie_watch_read(struct pcie_watch *w, double t, json_t **record)
{
	if (record)
		*record = NULL;
	if (!w->root)
		return -1;
	json_t *rec = record ? json_object() : NULL;
	step_begin(w, t);
	/* A page and one byte: a file that fills it is more than a sysfs page. */
	char bufs[F_N][FAB_SYSFS_PAGE + 1];
	for (int i = 0; i < w->nfns; i++) {
		struct pcie_fn *f = &w->fns[i];
		char d[sizeof(PCI_DIR) + 20];
		struct stat st;
		snprintf(d, sizeof(d), PCI_DIR "/%s", f->bdf);
		int e = root_stat(w->root, d, &st);
		e = e == 0 ? (S_ISDIR(st.st_mode) ? 0 : ENOTDIR) : -e;
		if (e == ENOENT || e == ENOTDIR || e == ENODEV) {
			fn_gone(w, i, t);
			continue;
		}
		bool back = false;
		if (e == 0 && (!f->present || st.st_ino != f->dir_ino)) {
			/* Back, or a new device at that address (hot-plug, a reset
			 * that re-enumerated it): its files are new. */
			if (f->present)
				fn_gone(w, i, t);
			fn_open_fds(w, f);
			f->present = true;
			back = true;
		}
		if (!f->present)
			continue;
		struct reading rd[F_N];
		bool vanished = false;
		for (int k = 0; k < F_N; k++) {
			rd[k] = (struct reading){ .rd = RD_BAD };
			if (!watches(f, k) || f->fd[k] == -ENOENT) {
				rd[k].rd = RD_MISSING;
				continue;
			}
			ssize_t n = f->fd[k] >= 0 ? pread(f->fd[k], bufs[k], sizeof(bufs[k]), 0) : -1;
			if (n < 0 && f->fd[k] >= 0 && (errno == ENODEV || errno == ESTALE))
				vanished = true;
			if (n >= 0)
				rd[k] = (struct reading){ .rd = RD_TEXT, .text = bufs[k], .len = (size_t)n };
		}
		if (vanished) {
			fn_gone(w, i, t);
			continue;
		}
		fn_step(w, i, rd, back, t);
		if (rec) {
			json_t *o = json_object();
			for (int k = 0; k < F_N && o; k++)
				if (rd[k].rd != RD_MISSING)
					json_object_set_new(o, file_names[k], record_text(&rd[k]));
			if (o)
				json_object_set_new(rec, f->bdf, o);
		}
	}
	if (record)
		*record = rec;
	return 0;
}

/* ---- playback ---- */

static struct reading json_reading(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	if (!v)
		return (struct reading){ .rd = RD_MISSING };
	if (!json_is_string(v))
		return (struct reading){ .rd = RD_BAD };
	/* Longer than a page: judged by its length (the step refuses it), never copied. */
	return (struct reading){ .rd = RD_TEXT, .text = json_string_value(v),
				 .len = json_string_length(v) };
}

int pcie_watch_apply(struct pcie_watch *w, const json_t *obj, double t)
{
	if (!json_is_object(obj) || !isfinite(t))
		return -1;
	step_begin(w, t);
	for (int i = 0; i < w->nfns; i++) {
		struct pcie_fn *f = &w->fns[i];
		const json_t *o = json_object_get(obj, f->bdf);
		if (!o) {
			fn_gone(w, i, t);
			continue;
		}
		bool back = !f->present;
		f->present = true;
		struct reading rd[F_N];
		for (int k = 0; k < F_N; k++)
			rd[k] = !watches(f, k) ? (struct reading){ .rd = RD_MISSING } :
				json_is_object(o) ? json_reading(o, file_names[k]) :
				(struct reading){ .rd = RD_BAD };
		fn_step(w, i, rd, back, t);
	}
	return 0;
}

void pcie_watch_baseline(struct pcie_watch *w)
{
	for (int i = 0; i < w->nfns; i++) {
		struct pcie_fn *f = &w->fns[i];
		for (int k = 0; k < PCIE_AER_KINDS; k++) {
			f->aer[k].base = f->aer[k].cur;
			f->aer[k].since_baseline = 0;
			f->aer[k].window_peak = 0;
		}
		f->ring_n = 0;
		f->ring_head = 0;
	}
}

/* ---- the judgements ---- */

unsigned pcie_fn_below(const struct pcie_fn *f)
{
	if (!f->present || !f->own_link || !f->link_read || f->link_bad || !f->link.speed.ok ||
	    !f->link.width.ok || !f->cap_speed.ok || !f->cap_width.ok)
		return 0;
	return pcie_link_below(f->link.speed.v, f->link.width.v, f->cap_speed.v, f->cap_width.v);
}

void pcie_nic_moving(const struct fab_sampler *s, const struct fab_model *m, bool *moving)
{
	for (int i = 0; i < m->nnics; i++)
		moving[i] = false;
	for (int i = 0; s && s->tick > 0 && i < s->nports; i++) {
		const struct fab_series *p = &s->ports[i];
		if (p->port <= 0 || !p->present || p->t_moved < 0 || p->t_moved != s->t_last)
			continue;
		int n = model_find_nic(m, p->dev);
		if (n >= 0)
			moving[n] = true;
	}
}

/* Whether HCA n's traffic crosses function bdf: its own (PF) function, or
 * a bridge above it. */
static bool nic_crosses(const struct fab_model *m, int n, const char *bdf)
{
	const struct fab_pci_dev *d = nic_link_dev(m, &m->nics[n]);
	if (!d)
		return false;
	if (strcmp(d->bdf, bdf) == 0)
		return true;
	for (int c = 0; c < d->chain_len && c < FAB_MAX_CHAIN; c++)
		if (strcmp(d->chain[c], bdf) == 0)
			return true;
	return false;
}

enum fab_tri pcie_fn_loaded(const struct pcie_watch *w, int fn, const struct fab_model *m,
			    const bool *moving, char *why, size_t len)
{
	const struct pcie_fn *f = &w->fns[fn];
	enum fab_tri v = FAB_UNKNOWN;
	why[0] = '\0';
	if (f->roles & PCIE_ROLE_GPU) {
		for (int g = 0; g < m->ngpus; g++) {
			int p = m->gpus[g].pci;
			if (p < 0 || p >= m->npci || strcmp(m->pci[p].bdf, f->bdf) != 0)
				continue;
			struct fab_judged b = gpu_busy(&m->gpus[g]);
			snprintf(why, len, "GPU%d %s: %s", g, b.v == FAB_YES ? "busy" :
				 b.v == FAB_NO ? "idle" : "load unknown", b.why);
			return b.v;
		}
		return FAB_UNKNOWN;
	}
	for (int n = 0; n < m->nnics; n++) {
		if (!nic_crosses(m, n, f->bdf))
			continue;
		if (!moving) {
			snprintf(why, len, "whether %s moves traffic is unknown", m->nics[n].name);
			return FAB_UNKNOWN;
		}
		if (moving[n]) {
			snprintf(why, len, "%s moves traffic", m->nics[n].name);
			return FAB_YES;
		}
		if (v == FAB_UNKNOWN)
			snprintf(why, len, "%s moves no traffic", m->nics[n].name);
		v = FAB_NO;
	}
	return v;
}

/* "mlx5_0 (0000:1a:00.0)", "GPU3 (0000:19:00.0)", "switch port 0000:18:00.0". */
static void fn_label(const struct pcie_fn *f, const struct fab_model *m, char *buf, size_t len)
{
	if (f->roles & PCIE_ROLE_GPU) {
		for (int g = 0; g < m->ngpus; g++) {
			int p = m->gpus[g].pci;
			if (p >= 0 && p < m->npci && strcmp(m->pci[p].bdf, f->bdf) == 0) {
				snprintf(buf, len, "GPU%d", g);
				return;
			}
		}
	}
	if (f->roles & PCIE_ROLE_NIC) {
		for (int n = 0; n < m->nnics; n++) {
			const struct fab_pci_dev *d = nic_link_dev(m, &m->nics[n]);
			if (d && strcmp(d->bdf, f->bdf) == 0) {
				snprintf(buf, len, "%s", m->nics[n].name);
				return;
			}
		}
	}
	/* A root port, by its config space, or else by its place: a bridge
	 * right under the host bridge. */
	int p = model_find_pci(m, f->bdf);
	bool root = p != FAB_NO_INDEX && (m->pci[p].pcie_type == PCIE_TYPE_ROOT_PORT ||
					  (m->pci[p].pcie_type == PCIE_TYPE_UNKNOWN &&
					   m->pci[p].chain_len == 0));
	snprintf(buf, len, "%s %s", root ? "root port" : "switch port", f->bdf);
}

static void link_str(struct pcie_link_now l, char *buf, size_t len)
{
	char s[16] = "?", w[16] = "?";
	if (l.speed.ok)
		snprintf(s, sizeof(s), "%.1f", l.speed.v);
	if (l.width.ok)
		snprintf(w, sizeof(w), "%lld", l.width.v);
	if (!l.speed.ok && !l.width.ok)
		snprintf(buf, len, "down");
	else
		snprintf(buf, len, "%s GT/s x%s", s, w);
}

#define LAYER_PCIE "PCIe (host <-> NIC, switch, GPU): every RDMA byte and GPUDirect transfer " \
		   "crosses these links; a slow or erroring link caps the port below its line rate"

static struct fab_finding *add(struct fab_model *out, const char *id, enum fab_severity sev,
			       const char *subject)
{
	struct fab_finding *f = model_add_finding(out, id, sev, subject);
	if (f)
		fab_strlcpy(f->layer, LAYER_PCIE, sizeof(f->layer));
	return f;
}

/* One information finding that lists several functions (subject "PCIe"). */
static int add_list(struct fab_model *out, const char *id, const char *message,
		    const char *evidence, const char *hint)
{
	struct fab_finding *x = add(out, id, SEV_INFO, "PCIe");
	if (!x)
		return 0;
	fab_strlcpy(x->message, message, sizeof(x->message));
	fab_strlcpy(x->evidence, evidence, sizeof(x->evidence));
	fab_strlcpy(x->hint, hint, sizeof(x->hint));
	return 1;
}

/* "BadTLP +3, Timeout +1": the bits of an AER file that grew since the baseline. */
static void grown_bits(const struct pcie_aer *a, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < a->cur.n; i++) {
		uint64_t was = 0;
		for (int j = 0; j < a->base.n; j++)
			if (strcmp(a->base.e[j].name, a->cur.e[i].name) == 0)
				was = a->base.e[j].v;
		if (a->cur.e[i].v > was)
			fab_catf(buf, len, "%s%s +%llu", buf[0] ? ", " : "", a->cur.e[i].name,
				 (unsigned long long)(a->cur.e[i].v - was));
	}
}

static int aer_findings(const struct pcie_watch *w, const struct fab_model *m, struct fab_model *out)
{
	int added = 0;
	char totals[256] = "", tev[384] = "";
	int ntot = 0;
	for (int i = 0; i < w->nfns; i++) {
		const struct pcie_fn *f = &w->fns[i];
		const struct pcie_aer *c = &f->aer[PCIE_AER_COR], *nf = &f->aer[PCIE_AER_NONFATAL],
				      *fa = &f->aer[PCIE_AER_FATAL];
		char label[FAB_NAME_LEN];
		fn_label(f, m, label, sizeof(label));
		uint64_t g_cor = c->since_baseline, g_nf = nf->since_baseline, g_fa = fa->since_baseline;
		if (g_cor || g_nf || g_fa) {
			enum fab_severity sev = g_nf || g_fa ? SEV_ERROR :
						c->window_peak > PCIE_AER_COR_PER_WINDOW ? SEV_WARN : SEV_INFO;
			struct fab_finding *x = add(out, "pcie.aer-grew", sev, label);
			if (!x)
				continue;
			added++;
			snprintf(x->message, sizeof(x->message),
				 "PCIe errors at %s (%s) while watched: ERR_FATAL +%llu, ERR_NONFATAL +%llu, "
				 "ERR_COR +%llu (at most %llu within %.0f s; more than %d a minute is a "
				 "warning, as DCGM's PCIe replay limit)%s", label, f->bdf,
				 (unsigned long long)g_fa, (unsigned long long)g_nf,
				 (unsigned long long)g_cor, (unsigned long long)c->window_peak,
				 PCIE_AER_COR_WINDOW_S, PCIE_AER_COR_PER_WINDOW,
				 g_nf || g_fa ? ": uncorrectable errors lose or poison transfers" : "");
			x->evidence[0] = '\0';
			for (int k = PCIE_AER_KINDS - 1; k >= 0; k--) {
				const struct pcie_aer *a = &f->aer[k];
				if (!a->since_baseline)
					continue;
				char bits[160];
				grown_bits(a, bits, sizeof(bits));
				fab_catf(x->evidence, sizeof(x->evidence), "%s" PCI_DIR "/%s/%s %s %llu%s%s%s",
					 x->evidence[0] ? "; " : "", f->bdf, file_names[k], total_keys[k],
					 (unsigned long long)a->cur.total, bits[0] ? " (" : "", bits,
					 bits[0] ? ")" : "");
			}
			snprintf(x->hint, sizeof(x->hint),
				 "lspci -vvv -s %s | grep -E 'CESta|UESta|LnkSta'; dmesg | grep -i aer; "
				 "errors are counted where they are seen: check the link partner too "
				 "(reseat, riser, cable)", FAB_SHQ(f->bdf));
			continue;
		}
		/* Nothing grew: a total since boot is history, worth a line. */
		uint64_t t_cor = c->valid ? c->cur.total : 0, t_nf = nf->valid ? nf->cur.total : 0,
			 t_fa = fa->valid ? fa->cur.total : 0;
		if (!t_cor && !t_nf && !t_fa)
			continue;
		ntot++;
		fab_catf(totals, sizeof(totals), "%s%s", ntot > 1 ? ", " : "", label);
		fab_catf(tev, sizeof(tev), "%s%s: TOTAL_ERR_COR %llu TOTAL_ERR_NONFATAL %llu "
			 "TOTAL_ERR_FATAL %llu", ntot > 1 ? "; " : "", f->bdf, (unsigned long long)t_cor,
			 (unsigned long long)t_nf, (unsigned long long)t_fa);
	}
	if (ntot) {
		char msg[sizeof(out->findings->message)], ev[sizeof(out->findings->evidence)];
		snprintf(msg, sizeof(msg), "PCIe errors counted since boot, none while watched, at %s",
			 totals);
		snprintf(ev, sizeof(ev), PCI_DIR "/BDF/aer_dev_*: %s", tev);
		added += add_list(out, "pcie.aer-total", msg, ev, "dmesg | grep -i aer (when they "
				  "happened); they matter again if they grow: watch the Counters pane");
	}
	return added;
}

static int link_findings(const struct pcie_watch *w, const struct fab_model *m, const bool *moving,
			 struct fab_model *out)
{
	int added = 0, nidle = 0;
	char idle[256] = "", iev[384] = "";
	for (int i = 0; i < w->nfns; i++) {
		const struct pcie_fn *f = &w->fns[i];
		unsigned below = pcie_fn_below(f);
		if (!below)
			continue;
		char label[FAB_NAME_LEN], why[160], now[32], cap[32];
		fn_label(f, m, label, sizeof(label));
		link_str(f->link, now, sizeof(now));
		link_str((struct pcie_link_now){ f->cap_speed, f->cap_width }, cap, sizeof(cap));
		enum fab_tri loaded = pcie_fn_loaded(w, i, m, moving, why, sizeof(why));
		if (loaded != FAB_YES) {
			nidle++;
			fab_catf(idle, sizeof(idle), "%s%s at %s of %s (%s)", nidle > 1 ? "; " : "",
				 label, now, cap, why);
			fab_catf(iev, sizeof(iev), "%s%s/current_link_speed,width=%s", nidle > 1 ? "; " : "",
				 f->bdf, now);
			continue;
		}
		struct fab_finding *x = add(out, "pcie.below-cap-under-load", SEV_WARN, label);
		if (!x)
			continue;
		added++;
		snprintf(x->message, sizeof(x->message),
			 "PCIe link of %s runs %s%s%s at %s while %s, capable of %s: %.0f of %.0f Gb/s",
			 label, below & PCIE_SLOW ? "slower" : "", below == (PCIE_SLOW | PCIE_NARROW) ?
			 " and " : "", below & PCIE_NARROW ? "narrower" : "", now, why, cap,
			 pcie_gbps(f->link.speed.v, f->link.width.v),
			 pcie_gbps(f->cap_speed.v, f->cap_width.v));
		snprintf(x->evidence, sizeof(x->evidence),
			 PCI_DIR "/%s/current_link_speed=%.1f GT/s current_link_width=%lld at +%.1f s; "
			 "max_link_speed/max_link_width (bounded by the port above): %s",
			 f->bdf, f->link.speed.v, f->link.width.v, w->t_last - w->t_first, cap);
		snprintf(x->hint, sizeof(x->hint),
			 "lspci -vvv -s %s | grep -E 'LnkCap|LnkSta'; reseat the card, check the riser "
			 "and the BIOS bifurcation", FAB_SHQ(f->bdf));
	}
	if (nidle) {
		char msg[sizeof(out->findings->message)], ev[sizeof(out->findings->evidence)];
		snprintf(msg, sizeof(msg), "below capability while idle (power management lowers an "
			 "idle link; judged under load): %s", idle);
		snprintf(ev, sizeof(ev), PCI_DIR "/ %s", iev);
		added += add_list(out, "pcie.below-cap-idle", msg, ev,
				  "check again under load (a job, or ib_write_bw)");
	}
	return added;
}

static int event_findings(const struct pcie_watch *w, const struct fab_model *m, struct fab_model *out)
{
	int added = 0;
	for (int i = 0; i < w->nfns; i++) {
		const struct pcie_fn *f = &w->fns[i];
		int nlink = 0, gone = 0;
		bool down = false;
		char seq[200] = "", gseq[200] = "";
		for (int e = 0; e < w->nev; e++) {
			const struct pcie_event *ev = pcie_watch_event(w, e);
			if (ev->fn != i)
				continue;
			char a[32], b[32];
			link_str(ev->from, a, sizeof(a));
			link_str(ev->to, b, sizeof(b));
			if (ev->kind == PCIE_EV_LINK) {
				nlink++;
				down |= !ev->to.speed.ok && !ev->to.width.ok;
				fab_catf(seq, sizeof(seq), "%s%s -> %s at +%.1f s", nlink > 1 ? ", " : "",
					 a, b, ev->t - w->t_first);
			} else {
				gone += ev->kind == PCIE_EV_GONE;
				fab_catf(gseq, sizeof(gseq), "%s%s at +%.1f s", gseq[0] ? ", " : "",
					 ev->kind == PCIE_EV_GONE ? "vanished" : "came back",
					 ev->t - w->t_first);
			}
		}
		char label[FAB_NAME_LEN];
		fn_label(f, m, label, sizeof(label));
		if (nlink) {
			enum fab_severity sev = down ? SEV_ERROR :
						f->roles & PCIE_ROLE_GPU ? SEV_INFO : SEV_WARN;
			struct fab_finding *x = add(out, "pcie.link-changed", sev, label);
			if (x) {
				added++;
				snprintf(x->message, sizeof(x->message),
					 "PCIe link of %s changed %d time%s while watched: %s%s", label, nlink,
					 nlink == 1 ? "" : "s", seq, f->roles & PCIE_ROLE_GPU && !down ?
					 " (GPUs change their link speed with their load)" : "");
				snprintf(x->evidence, sizeof(x->evidence),
					 PCI_DIR "/%s/current_link_speed and current_link_width, read each step%s",
					 f->bdf, w->ev_dropped ? " (older events were dropped)" : "");
				snprintf(x->hint, sizeof(x->hint),
					 "lspci -vvv -s %s | grep -E 'LnkSta|LnkCtl2'; dmesg | grep -i %s "
					 "(retraining, bandwidth notifications)", FAB_SHQ(f->bdf), FAB_SHQ(f->bdf));
			}
		}
		if (gone) {
			struct fab_finding *x = add(out, "pcie.function-gone",
						    f->present ? SEV_WARN : SEV_ERROR, label);
			if (x) {
				added++;
				snprintf(x->message, sizeof(x->message),
					 "PCI function %s of %s %s while watched (%s): %s", f->bdf, label,
					 f->present ? "vanished and came back" : "vanished", gseq,
					 "it fell off the bus, was reset or its device was removed");
				snprintf(x->evidence, sizeof(x->evidence), PCI_DIR "/%s %s", f->bdf,
					 f->present ? "is back (a new device: its counters start anew)" :
					 "no longer exists");
				snprintf(x->hint, sizeof(x->hint),
					 "dmesg | grep -i -e aer -e %s -e surprise -e 'link down'; lspci -s %s",
					 FAB_SHQ(f->bdf), FAB_SHQ(f->bdf));
			}
		}
	}
	return added;
}

/* Unknown is not healthy: the functions whose AER counters or link could
 * not be read in the last step (EACCES in a pod, a file cut short, not the
 * kernel's format) are one info finding, so silence never reads as "no
 * errors". */
static int unread_findings(const struct pcie_watch *w, struct fab_model *out)
{
	char list[200] = "", ev[384] = "";
	int n = 0;
	for (int i = 0; i < w->nfns; i++) {
		const struct pcie_fn *f = &w->fns[i];
		bool aer = false;
		for (int k = 0; k < PCIE_AER_KINDS; k++)
			aer = aer || (f->aer[k].present && (f->aer[k].bad || !f->aer[k].valid));
		bool link = f->own_link && (f->link_bad || !f->link_read);
		if (!f->present || (!aer && !link))
			continue;
		fab_catf(list, sizeof(list), "%s%s", n ? ", " : "", f->bdf);
		fab_catf(ev, sizeof(ev), "%s" PCI_DIR "/%s:%s%s", n ? "; " : "", f->bdf,
			 aer ? " aer_dev_* unreadable" : "", link ? " current_link_* unreadable" : "");
		n++;
	}
	if (!n)
		return 0;
	struct fab_finding *x = model_add_finding(out, "pcie.unread", SEV_INFO, "PCIe");
	snprintf(x->message, sizeof(x->message), "%d PCI function(s) could not be watched in the last "
		 "step (%s): their AER errors or link changes are unknown, not absent", n, list);
	snprintf(x->evidence, sizeof(x->evidence), "%s", ev);
	snprintf(x->hint, sizeof(x->hint), "ls -l " PCI_DIR "/<bdf>/aer_dev_* (readable by anyone on "
		 "a stock kernel: a container may hide them); run fabtop on the node");
	return 1;
}

int pcie_watch_findings(const struct pcie_watch *w, const struct fab_model *m,
			const bool *moving, struct fab_model *out)
{
	if (w->tick == 0)
		return 0;
	return aer_findings(w, m, out) + link_findings(w, m, moving, out) + event_findings(w, m, out) +
	       unread_findings(w, out);
}
