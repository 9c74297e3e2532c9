/*
 * fleet.c - many nodes in one view (fleet.h): rows from each node's report
 * document, then what sets a node apart from the majority of its kind.
 *
 * Memory stays one document plus the summary, so 2,000 captures fit: each
 * document is loaded, its row and facts taken, and freed before the next.
 * The facts are not kept as strings per node: every key and value is
 * interned once (one string table for the whole fleet), each kind keeps a
 * slot per fact key with its values and their counts, and a node keeps only
 * the ids of its values. A second pass over those ids, once every node is
 * counted, finds the odd ones.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabtop/fleet.h"
#include "fabtop/nodedoc.h"
#include "fabtop/nodefacts.h"
#include "fabtop/sanitize.h"
#include "fabtop/table.h"
#include "fabtop/tui.h"
#include "fabtop/util.h"

/* A kind needs this many nodes before one value can be the majority that
 * the others are told apart from: with 2, any difference is a tie. */
#define FLEET_MIN_COMPARE 3
/* Odd facts shown per node in the text (JSON lists them all). */
#define FLEET_TEXT_ODD 8
/* Facts without a majority listed per kind in the text. */
#define FLEET_TEXT_NOMAJ 8
/* Odd nodes named in the summary line. */
#define FLEET_TEXT_NAMED 5

/* ---- interning: strings and (u64 -> u32) maps, open addressing ---- */

struct strtab {
	char **s;               /* id -> string */
	uint32_t *hash;         /* id -> its hash */
	size_t *len;            /* id -> its length */
	size_t n, cap;
	uint32_t *slot;         /* id + 1; 0 empty */
	size_t nslot;           /* a power of two */
};

struct u64map {
	uint64_t *k;
	uint32_t *v;            /* value + 1; 0 empty */
	size_t n, nslot;
};

static uint32_t fnv1a(const void *p, size_t n, uint32_t h)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 16777619u;
	}
	return h;
}
#define FNV_START 2166136261u

static int strtab_grow(struct strtab *t)
{
	size_t ns = t->nslot ? t->nslot * 2 : 1024;
	uint32_t *slot = calloc(ns, sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = t->hash[i] & (ns - 1);
		while (slot[j])
			j = (j + 1) & (ns - 1);
		slot[j] = (uint32_t)i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
	return 0;
}

/* The id of s (added when new); -1 out of memory. */
static int64_t strtab_id(struct strtab *t, const char *s, size_t len)
{
	if ((t->n + 1) * 2 > t->nslot && strtab_grow(t) != 0)
		return -1;
	uint32_t h = fnv1a(s, len, FNV_START);
	size_t j = h & (t->nslot - 1);
	for (; t->slot[j]; j = (j + 1) & (t->nslot - 1)) {
		uint32_t id = t->slot[j] - 1;
		if (t->hash[id] == h && t->len[id] == len && memcmp(t->s[id], s, len) == 0)
			return id;
	}
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 1024;
		char **ns = realloc(t->s, nc * sizeof(*ns));
		if (!ns)
			return -1;
		t->s = ns;
		uint32_t *nh = realloc(t->hash, nc * sizeof(*nh));
		if (!nh)
			return -1;
		t->hash = nh;
		size_t *nl = realloc(t->len, nc * sizeof(*nl));
		if (!nl)
			return -1;
		t->len = nl;
		t->cap = nc;
	}
	char *copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->s[t->n] = copy;
	t->hash[t->n] = h;
	t->len[t->n] = len;
	t->slot[j] = (uint32_t)t->n + 1;
	return (int64_t)t->n++;
}

static void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->hash);
	free(t->len);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static size_t u64_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

static int u64map_grow(struct u64map *m)
{
	size_t ns = m->nslot ? m->nslot * 2 : 1024;
	uint64_t *k = calloc(ns, sizeof(*k));
	uint32_t *v = calloc(ns, sizeof(*v));
	if (!k || !v) {
		free(k);
		free(v);
		return -1;
	}
	for (size_t i = 0; i < m->nslot; i++) {
		if (!m->v[i])
			continue;
		size_t j = u64_hash(m->k[i]) & (ns - 1);
		while (v[j])
			j = (j + 1) & (ns - 1);
		k[j] = m->k[i];
		v[j] = m->v[i];
	}
	free(m->k);
	free(m->v);
	m->k = k;
	m->v = v;
	m->nslot = ns;
	return 0;
}

/* The value of key; when absent, stores next and sets *added. -1 out of memory. */
static int64_t u64map_get_add(struct u64map *m, uint64_t key, uint32_t next, bool *added)
{
	*added = false;
	if ((m->n + 1) * 2 > m->nslot && u64map_grow(m) != 0)
		return -1;
	size_t j = u64_hash(key) & (m->nslot - 1);
	for (; m->v[j]; j = (j + 1) & (m->nslot - 1))
		if (m->k[j] == key)
			return m->v[j] - 1;
	m->k[j] = key;
	m->v[j] = next + 1;
	m->n++;
	*added = true;
	return next;
}

static void u64map_free(struct u64map *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* ---- the summary kept while the nodes are read ---- */

/* One fact key within one kind. */
struct fslot {
	uint32_t kind;
	uint32_t key;           /* strtab id of the key */
	uint32_t jkey;          /* strtab id of section 0x1f key: the slot's identity */
	const char *section;    /* nodefacts.h's static string */
	uint32_t present;       /* nodes of the kind that have it */
	uint32_t stamp;         /* node index + 1 that last counted it */
	int64_t maj;            /* the majority's value index; MAJ_ABSENT, MAJ_NONE */
	uint32_t maj_count;
};
#define MAJ_ABSENT (-1)     /* most nodes of the kind lack the fact */
#define MAJ_NONE   (-2)     /* no value (nor its absence) on a strict majority */

/* One value of one slot. */
struct fval {
	uint32_t slot;
	uint32_t str;           /* strtab id */
	uint32_t count;
};

struct kacc {
	uint32_t name;          /* strtab id */
	uint32_t family;        /* strtab id of nodefacts_family() */
	uint32_t nodes;
	uint32_t *slots;
	size_t nslots, cap;
};

struct acc {
	struct strtab str;
	struct u64map slot_of;  /* kind << 32 | key-with-section id -> slot */
	struct u64map val_of;   /* slot << 32 | value id -> value */
	struct fslot *slots;
	size_t nslots, capslots;
	struct fval *vals;
	size_t nvals, capvals;
	struct kacc *kinds;
	size_t nkinds, capkinds;
	/* Per node: its kind (-1: unreadable) and its value indices. */
	int32_t *node_kind;
	uint32_t **node_vals;
	size_t *node_nvals;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 16;
	while (nc < need)
		nc *= 2;
	void *np = realloc(*p, nc * size);
	if (!np)
		return -1;
	*p = np;
	*cap = nc;
	return 0;
}

static int64_t kind_id(struct acc *a, const char *name, const char *family)
{
	int64_t sid = strtab_id(&a->str, name, strlen(name));
	int64_t fid = strtab_id(&a->str, family, strlen(family));
	if (sid < 0 || fid < 0)
		return -1;
	for (size_t i = 0; i < a->nkinds; i++)
		if (a->kinds[i].name == (uint32_t)sid)
			return (int64_t)i;
	if (grow((void **)&a->kinds, &a->capkinds, a->nkinds + 1, sizeof(*a->kinds)) != 0)
		return -1;
	memset(&a->kinds[a->nkinds], 0, sizeof(a->kinds[0]));
	a->kinds[a->nkinds].name = (uint32_t)sid;
	a->kinds[a->nkinds].family = (uint32_t)fid;
	return (int64_t)a->nkinds++;
}

/* Counts node's value vid of the fact (section, key kid; jid the joined
 * section and key) into kind: the value's index, -2 when the node counted
 * this fact already, -1 out of memory. */
static int64_t acc_value(struct acc *a, size_t node, uint32_t kind, uint32_t jid, uint32_t kid,
			 const char *section, uint32_t vid)
{
	struct kacc *k = &a->kinds[kind];
	bool added;
	int64_t s = u64map_get_add(&a->slot_of, (uint64_t)kind << 32 | (uint64_t)jid,
				   (uint32_t)a->nslots, &added);
	if (s < 0)
		return -1;
	if (added) {
		if (grow((void **)&a->slots, &a->capslots, a->nslots + 1, sizeof(*a->slots)) != 0 ||
		    grow((void **)&k->slots, &k->cap, k->nslots + 1, sizeof(*k->slots)) != 0)
			return -1;
		a->slots[a->nslots++] = (struct fslot){ .kind = kind, .key = kid, .jkey = jid,
							.section = section };
		k->slots[k->nslots++] = (uint32_t)s;
	}
	struct fslot *fs = &a->slots[s];
	if (fs->stamp == node + 1)
		return -2;
	fs->stamp = (uint32_t)node + 1;
	fs->present++;
	int64_t x = u64map_get_add(&a->val_of, (uint64_t)s << 32 | (uint64_t)vid, (uint32_t)a->nvals, &added);
	if (x < 0)
		return -1;
	if (added) {
		if (grow((void **)&a->vals, &a->capvals, a->nvals + 1, sizeof(*a->vals)) != 0)
			return -1;
		a->vals[a->nvals++] = (struct fval){ .slot = (uint32_t)s, .str = vid };
	}
	a->vals[x].count++;
	return x;
}

/* Counts one node's facts into its kind; its value ids into ids/nids. */
static int acc_node(struct acc *a, size_t node, uint32_t kind, const struct nodefacts *nf,
		    uint32_t **ids, size_t *nids)
{
	struct kacc *k = &a->kinds[kind];
	uint32_t *v = nf->n ? malloc(nf->n * sizeof(*v)) : NULL;
	size_t nv = 0;
	if (nf->n && !v)
		return -1;
	k->nodes++;
	for (size_t i = 0; i < nf->n; i++) {
		const struct nodefact *f = &nf->v[i];
		const char *key = f->key ? f->key : "", *val = f->value ? f->value : "";
		/* The slot is keyed by section and key: the section is a static
		 * word without a 0x1f, so the joined form is unambiguous. */
		size_t sl = strlen(f->section), kl = strlen(key);
		char small[256];
		char *joined = sl + kl + 2 <= sizeof(small) ? small : malloc(sl + kl + 2);
		if (!joined)
			goto oom;
		memcpy(joined, f->section, sl);
		joined[sl] = 0x1f;
		memcpy(joined + sl + 1, key, kl + 1);
		int64_t jid = strtab_id(&a->str, joined, sl + kl + 1);
		if (joined != small)
			free(joined);
		int64_t kid = strtab_id(&a->str, key, kl);
		int64_t vid = strtab_id(&a->str, val, strlen(val));
		if (jid < 0 || kid < 0 || vid < 0)
			goto oom;
		int64_t x = acc_value(a, node, kind, (uint32_t)jid, (uint32_t)kid, f->section, (uint32_t)vid);
		if (x == -2)
			continue;       /* the same key twice in one node counts once */
		if (x < 0)
			goto oom;
		v[nv++] = (uint32_t)x;
	}
	*ids = v;
	*nids = nv;
	return 0;
oom:
	free(v);
	return -1;
}

/* A node alone in its kind, or one of two (nothing to compare against),
 * whose family (its models without their counts) is that of a kind of
 * FLEET_MIN_COMPARE nodes or more, is counted in the largest such kind
 * instead: a node that lost an HCA or a GPU is then compared with the nodes
 * it was built like, and its count sets it apart. Its values move over:
 * taken out of its own kind's counts, counted into the other's. */
static int acc_rehome(struct fleet *f, struct acc *a)
{
	for (size_t i = 0; i < f->n; i++) {
		int32_t from = a->node_kind[i];
		if (from < 0 || a->kinds[from].nodes >= FLEET_MIN_COMPARE)
			continue;
		int64_t to = -1;
		for (size_t k = 0; k < a->nkinds; k++)
			if ((int32_t)k != from && a->kinds[k].family == a->kinds[from].family &&
			    a->kinds[k].nodes >= FLEET_MIN_COMPARE &&
			    (to < 0 || a->kinds[k].nodes > a->kinds[to].nodes))
				to = (int64_t)k;
		if (to < 0)
			continue;
		for (size_t j = 0; j < a->node_nvals[i]; j++) {
			uint32_t x = a->node_vals[i][j];
			struct fslot old = a->slots[a->vals[x].slot];
			a->vals[x].count--;
			a->slots[a->vals[x].slot].present--;
			int64_t y = acc_value(a, i, (uint32_t)to, old.jkey, old.key, old.section, a->vals[x].str);
			if (y < 0)
				return -1;
			a->node_vals[i][j] = (uint32_t)y;
		}
		a->kinds[from].nodes--;
		a->kinds[to].nodes++;
		a->node_kind[i] = (int32_t)to;
		char *name = strdup(a->str.s[a->kinds[to].name]);
		if (!name)
			return -1;
		free(f->nodes[i].kind);
		f->nodes[i].kind = name;
	}
	return 0;
}

/* Each slot's majority: a value (or the fact's absence) held by more than
 * half of the kind's nodes, else none. */
static void acc_majorities(struct acc *a)
{
	for (size_t s = 0; s < a->nslots; s++) {
		a->slots[s].maj = MAJ_NONE;
		a->slots[s].maj_count = 0;
	}
	for (size_t i = 0; i < a->nvals; i++) {
		struct fslot *fs = &a->slots[a->vals[i].slot];
		if ((uint64_t)a->vals[i].count * 2 > a->kinds[fs->kind].nodes) {
			fs->maj = (int64_t)i;
			fs->maj_count = a->vals[i].count;
		}
	}
	for (size_t s = 0; s < a->nslots; s++) {
		struct fslot *fs = &a->slots[s];
		uint32_t nodes = a->kinds[fs->kind].nodes, absent = nodes - fs->present;
		if (fs->maj == MAJ_NONE && (uint64_t)absent * 2 > nodes) {
			fs->maj = MAJ_ABSENT;
			fs->maj_count = absent;
		}
	}
}

static void acc_free(struct acc *a, size_t nnodes)
{
	strtab_free(&a->str);
	u64map_free(&a->slot_of);
	u64map_free(&a->val_of);
	free(a->slots);
	free(a->vals);
	for (size_t i = 0; i < a->nkinds; i++)
		free(a->kinds[i].slots);
	free(a->kinds);
	if (a->node_vals)
		for (size_t i = 0; i < nnodes; i++)
			free(a->node_vals[i]);
	free(a->node_vals);
	free(a->node_nvals);
	free(a->node_kind);
	memset(a, 0, sizeof(*a));
}

/* ---- one node's row, from its document ---- */

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s;
}


/* The HCAs of the document: report links' "hcas" (with each port's usable
 * and line rate), else report all's "nics". */
static const json_t *doc_hcas(const json_t *doc)
{
	const json_t *h = json_object_get(json_object_get(doc, "links"), "hcas");
	return json_is_array(h) ? h : json_object_get(doc, "nics");
}

static int row_ports(struct fleet_node *r, const json_t *doc)
{
	const json_t *hcas = doc_hcas(doc), *hca, *port;
	size_t i, j;
	double slow = 0;
	char slow_name[300] = "";
	json_array_foreach(hcas, i, hca) {
		const char *name = jstr(hca, "name");
		json_array_foreach(json_object_get(hca, "ports"), j, port) {
			/* Expected: every port the document lists; up: the report's
			 * "active" (port_active(); a report without it: its state
			 * word). One whose state could not be read is neither up
			 * nor down: counted apart. */
			r->ports_expected++;
			const json_t *act = json_object_get(port, "active");
			const char *st = jstr(port, "state");
			if (json_is_boolean(act))
				r->ports_up += json_is_true(act);
			else if (act || !st)
				r->ports_unknown++;
			else if (strcmp(st, "ACTIVE") == 0 || strcmp(st, "ACTIVE_DEFER") == 0)
				r->ports_up++;
			const char *us = jstr(port, "usable");
			if (!us || strcmp(us, "yes") != 0)
				continue;
			/* The line rate is what the port carries (the rate, capped by
			 * the function's PCIe); the rate when the document has none. */
			const json_t *g = json_object_get(port, "line_gbps");
			if (!json_is_number(g))
				g = json_object_get(port, "rate_gbps");
			if (!json_is_number(g))
				continue;
			double gbps = json_number_value(g);
			if (slow_name[0] && gbps >= slow)
				continue;
			slow = gbps;
			snprintf(slow_name, sizeof(slow_name), "%s/%lld %g Gb/s", name ? name : "?",
				 json_integer_value(json_object_get(port, "port")), gbps);
		}
	}
	if (slow_name[0] && !(r->slowest = strdup(slow_name)))
		return -1;
	return 0;
}

struct fwcount {
	const char *ver;
	int n;
};

static int fw_cmp(const void *a, const void *b)
{
	const struct fwcount *x = a, *y = b;
	if (x->n != y->n)
		return y->n - x->n;
	return strcmp(x->ver, y->ver);
}

/* One version, or "A (8), B (2)", most common first. */
static int row_firmware(struct fleet_node *r, const json_t *doc)
{
	const json_t *hcas = doc_hcas(doc), *hca;
	size_t i, nv = 0, n = json_array_size(hcas);
	if (!n)
		return 0;
	struct fwcount *v = calloc(n, sizeof(*v));
	if (!v)
		return -1;
	json_array_foreach(hcas, i, hca) {
		const char *fw = jstr(hca, "fw_ver");
		if (!fw || !*fw)
			continue;
		size_t k;
		for (k = 0; k < nv && strcmp(v[k].ver, fw) != 0; k++)
			;
		if (k == nv)
			v[nv++].ver = fw;
		v[k].n++;
	}
	qsort(v, nv, sizeof(*v), fw_cmp);
	size_t len = 1;
	for (size_t k = 0; k < nv; k++)
		len += strlen(v[k].ver) + 24;
	if (nv && (r->firmware = malloc(len))) {
		r->firmware[0] = '\0';
		for (size_t k = 0; k < nv; k++) {
			if (nv == 1)
				fab_catf(r->firmware, len, "%s", v[k].ver);
			else
				fab_catf(r->firmware, len, "%s%s (%d)", k ? ", " : "", v[k].ver, v[k].n);
		}
	}
	free(v);
	return nv && !r->firmware ? -1 : 0;
}

/* FNV-1a of the matrix as the document prints it (columns, then each row's
 * label and cells, each ended by a separator no cell holds in the
 * canonical form), 8 hex digits: equal matrices, equal fingerprints. */
static int row_topo_fp(struct fleet_node *r, const json_t *doc)
{
	const json_t *t = json_object_get(doc, "topology");
	const json_t *cols = json_object_get(t, "columns"), *rows = json_object_get(t, "rows");
	const json_t *x, *row, *cell;
	size_t i, j;
	if (!json_array_size(rows))
		return 0;
	uint32_t h = FNV_START;
	json_array_foreach(cols, i, x) {
		const char *s = json_string_value(x);
		h = fnv1a(s ? s : "", s ? strlen(s) : 0, h);
		h = fnv1a("\x1f", 1, h);
	}
	h = fnv1a("\x1e", 1, h);
	json_array_foreach(rows, i, row) {
		const char *l = jstr(row, "label");
		h = fnv1a(l ? l : "", l ? strlen(l) : 0, h);
		h = fnv1a("\x1d", 1, h);
		json_array_foreach(json_object_get(row, "cells"), j, cell) {
			const char *s = json_string_value(cell);
			h = fnv1a(s ? s : "", s ? strlen(s) : 0, h);
			h = fnv1a("\x1f", 1, h);
		}
		h = fnv1a("\x1e", 1, h);
	}
	char buf[9];
	snprintf(buf, sizeof(buf), "%08x", h);
	return (r->topo_fp = strdup(buf)) ? 0 : -1;
}

/* An NCCL setting among nodefacts' "nccl" facts (the section also holds
 * which library the node would load, which is no setting). */
static bool nccl_setting(const struct nodefact *f)
{
	return strcmp(f->section, "nccl") == 0 && f->key && strncmp(f->key, "NCCL_", 5) == 0;
}

/* NCCL-relevant settings: nodefacts' NCCL_* facts, as NAME=VALUE. */
static int row_env(struct fleet_node *r, const struct nodefacts *nf)
{
	size_t len = 1;
	for (size_t i = 0; i < nf->n; i++)
		if (nccl_setting(&nf->v[i]))
			len += strlen(nf->v[i].key) + strlen(nf->v[i].value ? nf->v[i].value : "") + 2;
	if (!(r->env = malloc(len)))
		return -1;
	r->env[0] = '\0';
	for (size_t i = 0; i < nf->n; i++)
		if (nccl_setting(&nf->v[i]))
			fab_catf(r->env, len, "%s%s=%s", r->env[0] ? " " : "",
				 nf->v[i].key ? nf->v[i].key : "", nf->v[i].value ? nf->v[i].value : "");
	return 0;
}

static int row_from_doc(struct fleet_node *r, const json_t *doc, const char *path)
{
	const char *host = jstr(doc, "host");
	if (!(r->host = strdup(host && *host ? host : fab_base_name(path))))
		return -1;
	const char *v = jstr(doc, "verdict");
	/* Only the report's own three words; anything else is not a verdict. */
	if (!v || (strcmp(v, "ok") && strcmp(v, "findings") && strcmp(v, "unknown")))
		v = "unknown";
	if (!(r->verdict = strdup(v)))
		return -1;
	const json_t *f;
	size_t i;
	json_array_foreach(json_object_get(doc, "findings"), i, f) {
		const char *sev = jstr(f, "severity");
		if (!sev)
			continue;
		if (strcmp(sev, "info") == 0)
			r->sev[0]++;
		else if (strcmp(sev, "warning") == 0)
			r->sev[1]++;
		else if (strcmp(sev, "error") == 0)
			r->sev[2]++;
	}
	if (row_ports(r, doc) || row_firmware(r, doc) || row_topo_fp(r, doc))
		return -1;
	return 0;
}

static int row_error(struct fleet_node *r, const char *path, const char *why)
{
	r->host = strdup(fab_base_name(path));
	r->verdict = strdup("unknown");
	r->error = strdup(why && *why ? why : "could not be read");
	return r->host && r->verdict && r->error ? 0 : -1;
}

/* ---- the paths ---- */

/* A directory is one capture when it holds the capture's own files;
 * otherwise it is a directory of captures (nodedoc_list()). */
static bool is_capture_dir(const char *path)
{
	char p[4096];
	struct stat st;
	snprintf(p, sizeof(p), "%s/fabtop/meta.json", path);
	if (stat(p, &st) == 0)
		return true;
	snprintf(p, sizeof(p), "%s/sys/class", path);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

struct pathlist {
	char **v;
	size_t n, cap;
};

static int pathlist_add(struct pathlist *pl, const char *p)
{
	if (grow((void **)&pl->v, &pl->cap, pl->n + 1, sizeof(*pl->v)) != 0)
		return -1;
	if (!(pl->v[pl->n] = strdup(p)))
		return -1;
	pl->n++;
	return 0;
}

static void pathlist_free(struct pathlist *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->v[i]);
	free(pl->v);
}

/* Every node to read, in order; a directory that cannot be listed is a
 * node that cannot be read (its row says why). */
static int expand(char *const *paths, size_t n, struct pathlist *pl, struct pathlist *errs, FILE *log)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(paths[i], &st) != 0 || !S_ISDIR(st.st_mode) || is_capture_dir(paths[i])) {
			if (pathlist_add(pl, paths[i]) || pathlist_add(errs, ""))
				return -1;
			continue;
		}
		char **list = NULL, err[512] = "";
		size_t nl = 0;
		if (nodedoc_list(paths[i], &list, &nl, err, sizeof(err)) != 0) {
			if (pathlist_add(pl, paths[i]) || pathlist_add(errs, err[0] ? err : "cannot list"))
				return -1;
			continue;
		}
		if (!nl && log)
			fab_fprintf(log, "fabtop: fleet: %s holds no capture or report\n", paths[i]);
		for (size_t j = 0; j < nl; j++)
			if (pathlist_add(pl, list[j]) || pathlist_add(errs, "")) {
				nodedoc_list_free(list, nl);
				return -1;
			}
		nodedoc_list_free(list, nl);
	}
	return 0;
}

/* ---- the odd facts, second pass ---- */

static int section_rank(const char *s)
{
	/* nodefacts.c's order of sections, for reading (a display order only). */
	static const char *const order[] = { "node", "topology", "hca", "port", "pcie", "netdev",
					     "nccl", "counter", "finding" };
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (strcmp(s, order[i]) == 0)
			return (int)i;
	return 99;
}

static int odd_cmp(const void *a, const void *b)
{
	const struct fleet_odd *x = a, *y = b;
	int rx = section_rank(x->section), ry = section_rank(y->section);
	if (rx != ry)
		return rx - ry;
	return strcmp(x->key, y->key);
}

static int odd_add(struct fleet_node *r, size_t *cap, const struct acc *a, const struct fslot *fs,
		   const char *value)
{
	if (grow((void **)&r->odd, cap, r->nodd + 1, sizeof(*r->odd)) != 0)
		return -1;
	struct fleet_odd *o = &r->odd[r->nodd];
	memset(o, 0, sizeof(*o));
	o->section = fs->section;
	o->key = strdup(a->str.s[fs->key]);
	o->value = value ? strdup(value) : NULL;
	o->majority = fs->maj >= 0 ? strdup(a->str.s[a->vals[fs->maj].str]) : NULL;
	o->agree = (int)fs->maj_count;
	o->of = (int)a->kinds[fs->kind].nodes;
	r->nodd++;
	if (!o->key || (value && !o->value) || (fs->maj >= 0 && !o->majority))
		return -1;
	return 0;
}

static int find_odd(struct fleet *f, struct acc *a)
{
	for (size_t s = 0; s < a->nslots; s++)
		a->slots[s].stamp = 0;
	for (size_t i = 0; i < f->n; i++) {
		struct fleet_node *r = &f->nodes[i];
		if (a->node_kind[i] < 0)
			continue;
		const struct kacc *k = &a->kinds[a->node_kind[i]];
		if (k->nodes < FLEET_MIN_COMPARE)
			continue;
		size_t cap = 0;
		for (size_t j = 0; j < a->node_nvals[i]; j++) {
			uint32_t x = a->node_vals[i][j];
			struct fslot *fs = &a->slots[a->vals[x].slot];
			fs->stamp = (uint32_t)i + 1;
			if (fs->maj == MAJ_NONE || fs->maj == (int64_t)x)
				continue;
			if (odd_add(r, &cap, a, fs, a->str.s[a->vals[x].str]) != 0)
				return -1;
		}
		/* What most of the kind has and this node lacks. */
		for (size_t j = 0; j < k->nslots; j++) {
			struct fslot *fs = &a->slots[k->slots[j]];
			if (fs->stamp != i + 1 && fs->maj >= 0 && odd_add(r, &cap, a, fs, NULL) != 0)
				return -1;
		}
		if (r->nodd > 1)
			qsort(r->odd, r->nodd, sizeof(*r->odd), odd_cmp);
	}
	return 0;
}

static int nomaj_cmp(const void *a, const void *b)
{
	const struct fleet_nomaj *x = a, *y = b;
	int rx = section_rank(x->section), ry = section_rank(y->section);
	if (rx != ry)
		return rx - ry;
	return strcmp(x->key, y->key);
}

static int count_cmp(const void *a, const void *b)
{
	const struct fleet_count *x = a, *y = b;
	if (x->count != y->count)
		return y->count - x->count;
	if (!x->value || !y->value)
		return !x->value - !y->value;
	return strcmp(x->value, y->value);
}

/* The kinds as fleet.h shows them: nodes, odd nodes, facts without a majority. */
static int build_kinds_ix(struct fleet *f, struct acc *a, const int64_t *ix, size_t nk);

static int build_kinds(struct fleet *f, struct acc *a)
{
	/* Kinds left empty by acc_rehome() are not listed: ix maps the
	 * accumulator's kinds to the listed ones (-1: empty). */
	int64_t *ix = a->nkinds ? malloc(a->nkinds * sizeof(*ix)) : NULL;
	if (a->nkinds && !ix)
		return -1;
	size_t nk = 0;
	for (size_t k = 0; k < a->nkinds; k++)
		ix[k] = a->kinds[k].nodes ? (int64_t)nk++ : -1;
	int rc = build_kinds_ix(f, a, ix, nk);
	free(ix);
	return rc;
}

static int build_kinds_ix(struct fleet *f, struct acc *a, const int64_t *ix, size_t nk)
{
	f->kinds = nk ? calloc(nk, sizeof(*f->kinds)) : NULL;
	if (nk && !f->kinds)
		return -1;
	f->nkinds = nk;
	for (size_t k = 0; k < a->nkinds; k++) {
		if (ix[k] < 0)
			continue;
		struct fleet_kind *fk = &f->kinds[ix[k]];
		const struct kacc *ka = &a->kinds[k];
		if (!(fk->name = strdup(a->str.s[ka->name])))
			return -1;
		fk->nodes = ka->nodes;
		fk->facts = ka->nslots;
		fk->compared = ka->nodes >= FLEET_MIN_COMPARE;
		if (!fk->compared)
			continue;
		size_t cap = 0;
		for (size_t j = 0; j < ka->nslots; j++) {
			const struct fslot *fs = &a->slots[ka->slots[j]];
			if (fs->maj != MAJ_NONE)
				continue;
			if (grow((void **)&fk->nomaj, &cap, fk->nnomaj + 1, sizeof(*fk->nomaj)) != 0)
				return -1;
			struct fleet_nomaj *nm = &fk->nomaj[fk->nnomaj++];
			memset(nm, 0, sizeof(*nm));
			nm->section = fs->section;
			if (!(nm->key = strdup(a->str.s[fs->key])))
				return -1;
		}
		if (fk->nnomaj > 1)
			qsort(fk->nomaj, fk->nnomaj, sizeof(*fk->nomaj), nomaj_cmp);
	}
	for (size_t i = 0; i < f->n; i++)
		if (f->nodes[i].nodd && a->node_kind[i] >= 0)
			f->kinds[ix[a->node_kind[i]]].odd_nodes++;
	/* Each fact without a majority with its values and counts: one walk of
	 * the values, looked up by key in the (sorted) list. */
	for (size_t x = 0; x < a->nvals; x++) {
		const struct fslot *fs = &a->slots[a->vals[x].slot];
		if (ix[fs->kind] < 0)
			continue;
		struct fleet_kind *fk = &f->kinds[ix[fs->kind]];
		if (fs->maj != MAJ_NONE || !fk->compared || !a->vals[x].count)
			continue;
		struct fleet_nomaj key = { .section = fs->section, .key = a->str.s[fs->key] };
		struct fleet_nomaj *nm = fk->nnomaj ? bsearch(&key, fk->nomaj, fk->nnomaj, sizeof(*nm), nomaj_cmp) : NULL;
		if (!nm)
			continue;
		size_t cap = nm->nvalues;
		if (grow((void **)&nm->values, &cap, nm->nvalues + 2, sizeof(*nm->values)) != 0)
			return -1;
		if (nm->nvalues == 0 && fs->present < fk->nodes)
			nm->values[nm->nvalues++] = (struct fleet_count){ NULL, (int)(fk->nodes - fs->present) };
		if (!(nm->values[nm->nvalues].value = strdup(a->str.s[a->vals[x].str])))
			return -1;
		nm->values[nm->nvalues++].count = (int)a->vals[x].count;
	}
	for (size_t k = 0; k < f->nkinds; k++)
		for (size_t j = 0; j < f->kinds[k].nnomaj; j++)
			qsort(f->kinds[k].nomaj[j].values, f->kinds[k].nomaj[j].nvalues,
			      sizeof(struct fleet_count), count_cmp);
	return 0;
}

/* ---- load ---- */

static int load_one(struct fleet_node *r, struct acc *a, size_t idx, const char *path, FILE *log,
		    size_t *collected, char *first_why, size_t whylen)
{
	struct nodedoc nd;
	char err[512] = "";
	memset(&nd, 0, sizeof(nd));
	a->node_kind[idx] = -1;
	if (nodedoc_load(path, &nd, err, sizeof(err)) != 0) {
		if (log)
			fab_fprintf(log, "fabtop: fleet: %s: %s\n", path, err[0] ? err : "cannot read");
		return row_error(r, path, err);
	}
	r->how = nodedoc_how_word(nd.how);
	if (nd.how == NODEDOC_COLLECTED && path) {
		if (!(*collected)++ && nd.why[0])
			fab_strlcpy(first_why, nd.why, whylen);
	}
	struct nodefacts nf;
	memset(&nf, 0, sizeof(nf));
	char kind[512], family[512];
	int rc = -1;
	if (row_from_doc(r, nd.doc, path) != 0 || nodefacts_from_doc(nd.doc, 0, &nf) != 0)
		goto out;
	nodefacts_kind(nd.doc, kind, sizeof(kind));
	nodefacts_family(nd.doc, family, sizeof(family));
	if (!(r->kind = strdup(kind)) || row_env(r, &nf) != 0)
		goto out;
	int64_t k = kind_id(a, kind, family);
	if (k < 0 || acc_node(a, idx, (uint32_t)k, &nf, &a->node_vals[idx], &a->node_nvals[idx]) != 0)
		goto out;
	a->node_kind[idx] = (int32_t)k;
	rc = 0;
out:
	nodefacts_free(&nf);
	nodedoc_free(&nd);
	return rc;
}

int fleet_load(char *const *paths, size_t n, struct fleet *f, FILE *log)
{
	struct pathlist pl = { 0 }, errs = { 0 };
	struct acc a;
	memset(f, 0, sizeof(*f));
	memset(&a, 0, sizeof(a));
	size_t collected = 0;
	char first_why[256] = "";
	bool tty = log && isatty(fileno(log));
	if (expand(paths, n, &pl, &errs, log) != 0)
		goto oom;
	if (!pl.n) {
		if (log)
			fputs("fabtop: fleet: no capture or report to read\n", log);
		pathlist_free(&pl);
		pathlist_free(&errs);
		return -1;
	}
	f->nodes = calloc(pl.n, sizeof(*f->nodes));
	a.node_kind = calloc(pl.n, sizeof(*a.node_kind));
	a.node_vals = calloc(pl.n, sizeof(*a.node_vals));
	a.node_nvals = calloc(pl.n, sizeof(*a.node_nvals));
	if (!f->nodes || !a.node_kind || !a.node_vals || !a.node_nvals)
		goto oom;
	for (size_t i = 0; i < pl.n; i++) {
		struct fleet_node *r = &f->nodes[i];
		f->n = i + 1;
		if (!(r->path = strdup(pl.v[i])))
			goto oom;
		if (tty && (i % 50 == 0 || i + 1 == pl.n))
			fprintf(log, "\rfabtop: fleet: reading %zu/%zu", i + 1, pl.n);
		int rc;
		a.node_kind[i] = -1;
		if (errs.v[i][0])
			rc = row_error(r, pl.v[i], errs.v[i]);
		else
			rc = load_one(r, &a, i, pl.v[i], log, &collected, first_why, sizeof(first_why));
		if (rc != 0)
			goto oom;
	}
	if (tty)
		fputs("\r\033[K", log);
	if (collected && log)
		fab_fprintf(log, "fabtop: fleet: %zu of %zu captures collected now%s%s\n", collected, pl.n,
			    first_why[0] ? ", not from their embedded report: " : "", first_why);
	if (acc_rehome(f, &a) != 0)
		goto oom;
	acc_majorities(&a);
	if (find_odd(f, &a) != 0 || build_kinds(f, &a) != 0)
		goto oom;
	acc_free(&a, pl.n);
	pathlist_free(&pl);
	pathlist_free(&errs);
	return 0;
oom:
	if (log)
		fputs("fabtop: fleet: out of memory\n", log);
	acc_free(&a, pl.n);
	pathlist_free(&pl);
	pathlist_free(&errs);
	fleet_free(f);
	return -1;
}

void fleet_free(struct fleet *f)
{
	for (size_t i = 0; f->nodes && i < f->n; i++) {
		struct fleet_node *r = &f->nodes[i];
		free(r->path);
		free(r->host);
		free(r->kind);
		free(r->verdict);
		free(r->slowest);
		free(r->firmware);
		free(r->env);
		free(r->topo_fp);
		free(r->error);
		for (size_t j = 0; j < r->nodd; j++) {
			free(r->odd[j].key);
			free(r->odd[j].value);
			free(r->odd[j].majority);
		}
		free(r->odd);
	}
	free(f->nodes);
	for (size_t k = 0; f->kinds && k < f->nkinds; k++) {
		struct fleet_kind *fk = &f->kinds[k];
		free(fk->name);
		for (size_t j = 0; j < fk->nnomaj; j++) {
			for (size_t v = 0; v < fk->nomaj[j].nvalues; v++)
				free(fk->nomaj[j].values[v].value);
			free(fk->nomaj[j].values);
			free(fk->nomaj[j].key);
		}
		free(fk->nomaj);
	}
	free(f->kinds);
	memset(f, 0, sizeof(*f));
}

/* ---- exit and print ---- */

static bool node_warns(const struct fleet_node *r)
{
	return r->sev[1] + r->sev[2] > 0 || (r->verdict && strcmp(r->verdict, "findings") == 0);
}

static bool node_unknown(const struct fleet_node *r)
{
	return r->error || !r->verdict || strcmp(r->verdict, "unknown") == 0;
}

int fleet_exit(const struct fleet *f)
{
	int rc = 0;
	for (size_t i = 0; i < f->n; i++) {
		const struct fleet_node *r = &f->nodes[i];
		if (node_unknown(r))
			return 2;
		if (node_warns(r) || r->nodd)
			rc = 1;
	}
	/* A kind split with no majority is not a uniform fleet either. */
	for (size_t k = 0; k < f->nkinds; k++)
		if (f->kinds[k].nnomaj)
			rc = 1;
	return rc;
}

/* "port mlx5_0/1 rate_gbps 200 vs 400 on 20 of 21" */
static void odd_line(const struct fleet_odd *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s %s vs %s on %d of %d", o->section, o->key,
		 o->value ? o->value : "(absent)", o->majority ? o->majority : "(absent)",
		 o->agree, o->of);
}

static void print_summary(struct fab_out *o, const struct fleet *f)
{
	size_t odd = 0, unread = 0, warn = 0;
	for (size_t i = 0; i < f->n; i++) {
		odd += f->nodes[i].nodd > 0;
		unread += node_unknown(&f->nodes[i]);
		warn += node_warns(&f->nodes[i]);
	}
	out_open_obj(o, "summary");
	out_int(o, PR_ANY, "nodes", f->n == 1 ? "Fleet: %lld node" : "Fleet: %lld nodes",
		fab_int_of((long long)f->n));
	out_int(o, PR_ANY, "kinds", ", %lld kind", fab_int_of((long long)f->nkinds));
	out_text(o, "%s", f->nkinds == 1 ? "" : "s");
	out_int(o, PR_JSON, "odd", NULL, fab_int_of((long long)odd));
	out_int(o, PR_JSON, "unknown", NULL, fab_int_of((long long)unread));
	out_int(o, PR_JSON, "with_findings", NULL, fab_int_of((long long)warn));
	out_int(o, PR_JSON, "exit", NULL, fab_int_of(fleet_exit(f)));
	if (!odd)
		out_text(o, "; no odd node");
	else
		out_text(o, "; %zu odd: ", odd);
	out_open_arr(o, "odd_nodes");
	size_t named = 0;
	for (size_t i = 0; i < f->n; i++) {
		const struct fleet_node *r = &f->nodes[i];
		if (!r->nodd)
			continue;
		char why[1024];
		odd_line(&r->odd[0], why, sizeof(why));
		if (named < FLEET_TEXT_NAMED)
			out_text(o, "%s%s (%s%s)", named ? ", " : "", r->host, why,
				 r->nodd > 1 ? ", ..." : "");
		else if (named == FLEET_TEXT_NAMED)
			out_text(o, ", ... (%zu more)", odd - named);
		named++;
		out_str(o, PR_JSON, NULL, NULL, r->host);
	}
	out_close_arr(o);
	size_t nomaj = 0;
	for (size_t k = 0; k < f->nkinds; k++)
		nomaj += f->kinds[k].nnomaj;
	out_int(o, PR_JSON, "no_majority", NULL, fab_int_of((long long)nomaj));
	if (nomaj)
		out_text(o, "; no majority on %zu fact%s (under Kinds)", nomaj, nomaj == 1 ? "" : "s");
	if (unread)
		out_text(o, "; %zu unknown (not read, or verdict unknown)", unread);
	if (warn)
		out_text(o, "; %zu with findings of warning severity or worse", warn);
	out_text(o, "\n");
	out_close_obj(o);
}

/* Text: what sets each odd node apart, first, for the one on call. */
static void print_odd_text(struct fab_out *o, const struct fleet *f)
{
	bool any = false;
	for (size_t i = 0; i < f->n; i++) {
		const struct fleet_node *r = &f->nodes[i];
		if (!r->nodd)
			continue;
		if (!any)
			out_text(o, "\nOdd nodes (what sets each apart from the majority of its kind):\n");
		any = true;
		out_text(o, "  %s  [%s]  %s\n", r->host, r->kind, r->path);
		for (size_t j = 0; j < r->nodd && j < FLEET_TEXT_ODD; j++) {
			const struct fleet_odd *d = &r->odd[j];
			out_text(o, "    %-8s %s: %s, the majority %s (%d of %d)\n", d->section, d->key,
				 d->value ? d->value : "(absent)", d->majority ? d->majority : "(absent)",
				 d->agree, d->of);
		}
		if (r->nodd > FLEET_TEXT_ODD)
			out_text(o, "    ... and %zu more (--json lists them all)\n", r->nodd - FLEET_TEXT_ODD);
	}
	any = false;
	for (size_t i = 0; i < f->n; i++) {
		const struct fleet_node *r = &f->nodes[i];
		if (!r->error)
			continue;
		if (!any)
			out_text(o, "\nNot read (verdict unknown):\n");
		any = true;
		out_text(o, "  %s: %s\n", r->path, r->error);
	}
}

enum { C_HOST, C_VERDICT, C_ERR, C_WARN, C_INFO, C_PORTS, C_SLOW, C_FW, C_TOPO, C_ODD, C_ENV, NCOLS };

static const struct tbl_col cols[NCOLS] = {
	[C_HOST] = { .head = "HOST", .max = 40 },
	[C_VERDICT] = { .head = "VERDICT" },
	[C_ERR] = { .head = "ERR", .right = true },
	[C_WARN] = { .head = "WARN", .right = true },
	[C_INFO] = { .head = "INFO", .right = true },
	[C_PORTS] = { .head = "PORTS", .right = true },
	[C_SLOW] = { .head = "SLOWEST", .max = 32 },
	[C_FW] = { .head = "FIRMWARE", .max = 40 },
	[C_TOPO] = { .head = "TOPO" },
	[C_ODD] = { .head = "ODD", .right = true },
	[C_ENV] = { .head = "NCCL ENV", .last_free = true },
};

static void cell(const void *ctx, int row, int col, char *buf, size_t len)
{
	const struct fleet_node *r = &((const struct fleet *)ctx)->nodes[row];
	const char *na = r->error ? "-" : "N/A";
	switch (col) {
	case C_HOST:    snprintf(buf, len, "%s", r->host ? r->host : na); break;
	case C_VERDICT: snprintf(buf, len, "%s", r->verdict ? r->verdict : "unknown"); break;
	case C_ERR:     snprintf(buf, len, r->error ? "-" : "%d", r->sev[2]); break;
	case C_WARN:    snprintf(buf, len, r->error ? "-" : "%d", r->sev[1]); break;
	case C_INFO:    snprintf(buf, len, r->error ? "-" : "%d", r->sev[0]); break;
	case C_PORTS:
		if (r->error)
			snprintf(buf, len, "-");
		else
			fleet_ports_text(r, buf, len);
		break;
	case C_SLOW:    snprintf(buf, len, "%s", r->slowest ? r->slowest : na); break;
	case C_FW:      snprintf(buf, len, "%s", r->firmware ? r->firmware : na); break;
	case C_TOPO:    snprintf(buf, len, "%s", r->topo_fp ? r->topo_fp : na); break;
	case C_ODD:     snprintf(buf, len, r->error ? "-" : "%zu", r->nodd); break;
	case C_ENV:     snprintf(buf, len, "%s", r->env && *r->env ? r->env : "-"); break;
	}
}

static void print_rows(struct fab_out *o, const struct fleet *f)
{
	if (!out_is_json(o)) {
		struct tbl t = { .cols = cols, .ncols = NCOLS, .nrows = (int)f->n, .cell = cell,
				 .ctx = f, .gap = 2 };
		struct tbl_fit fit;
		char line[2048];
		tbl_fit(&t, 0, &fit);
		out_text(o, "\nNodes (ports: ACTIVE of those the report lists; slowest: usable ports' line rate):\n");
		for (int r = -1; r < (int)f->n; r++)
			out_text(o, "%s\n", tbl_line(&t, &fit, r, line, sizeof(line)));
		return;
	}
	out_open_arr(o, "nodes");
	for (size_t i = 0; i < f->n; i++) {
		const struct fleet_node *r = &f->nodes[i];
		out_open_obj(o, NULL);
		out_str(o, PR_JSON, "host", NULL, r->host);
		out_str(o, PR_JSON, "path", NULL, r->path);
		out_str(o, PR_JSON, "how", NULL, r->how);
		out_str(o, PR_JSON, "kind", NULL, r->kind);
		out_str(o, PR_JSON, "verdict", NULL, r->verdict);
		out_str(o, PR_JSON, "error", NULL, r->error);
		fab_int none = { 0, false };
		out_open_obj(o, "findings");
		out_int(o, PR_JSON, "error", NULL, r->error ? none : fab_int_of(r->sev[2]));
		out_int(o, PR_JSON, "warning", NULL, r->error ? none : fab_int_of(r->sev[1]));
		out_int(o, PR_JSON, "info", NULL, r->error ? none : fab_int_of(r->sev[0]));
		out_close_obj(o);
		out_open_obj(o, "ports");
		out_int(o, PR_JSON, "up", NULL, r->error ? none : fab_int_of(r->ports_up));
		out_int(o, PR_JSON, "expected", NULL, r->error ? none : fab_int_of(r->ports_expected));
		out_int(o, PR_JSON, "unknown", NULL, r->error ? none : fab_int_of(r->ports_unknown));
		out_close_obj(o);
		out_str(o, PR_JSON, "slowest", NULL, r->slowest);
		out_str(o, PR_JSON, "firmware", NULL, r->firmware);
		out_str(o, PR_JSON, "env", NULL, r->env);
		out_str(o, PR_JSON, "topology_fp", NULL, r->topo_fp);
		out_open_arr(o, "odd");
		for (size_t j = 0; j < r->nodd; j++) {
			const struct fleet_odd *d = &r->odd[j];
			out_open_obj(o, NULL);
			out_str(o, PR_JSON, "section", NULL, d->section);
			out_str(o, PR_JSON, "key", NULL, d->key);
			out_str(o, PR_JSON, "value", NULL, d->value);
			out_str(o, PR_JSON, "majority", NULL, d->majority);
			out_int(o, PR_JSON, "agree", NULL, fab_int_of(d->agree));
			out_int(o, PR_JSON, "of", NULL, fab_int_of(d->of));
			out_close_obj(o);
		}
		out_close_arr(o);
		out_close_obj(o);
	}
	out_close_arr(o);
}

static void print_kinds(struct fab_out *o, const struct fleet *f)
{
	out_text(o, "\nKinds (nodes compared within their kind):\n");
	out_open_arr(o, "kinds");
	for (size_t k = 0; k < f->nkinds; k++) {
		const struct fleet_kind *fk = &f->kinds[k];
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "kind", "  %s: ", fk->name);
		out_int(o, PR_ANY, "nodes", fk->nodes == 1 ? "%lld node" : "%lld nodes",
			fab_int_of((long long)fk->nodes));
		out_int(o, PR_JSON, "facts", NULL, fab_int_of((long long)fk->facts));
		out_bool(o, PR_JSON, "compared", NULL, fk->compared);
		out_int(o, PR_JSON, "odd_nodes", NULL, fab_int_of((long long)fk->odd_nodes));
		if (!fk->compared) {
			out_str(o, PR_ANY, "why", ": %s\n",
				"no majority to compare against (a kind needs 3 nodes or more)");
			out_close_obj(o);
			continue;
		}
		out_text(o, ", %zu facts compared, %zu odd node%s", fk->facts, fk->odd_nodes,
			 fk->odd_nodes == 1 ? "" : "s");
		if (!fk->nnomaj)
			out_text(o, "; every fact has a majority\n");
		else
			out_text(o, "; no majority on %zu fact%s:\n", fk->nnomaj, fk->nnomaj == 1 ? "" : "s");
		out_open_arr(o, "no_majority");
		for (size_t j = 0; j < fk->nnomaj; j++) {
			const struct fleet_nomaj *nm = &fk->nomaj[j];
			out_open_obj(o, NULL);
			bool shown = j < FLEET_TEXT_NOMAJ;
			out_str(o, shown ? PR_ANY : PR_JSON, "section", "    %s", nm->section);
			out_str(o, shown ? PR_ANY : PR_JSON, "key", " %s:", nm->key);
			out_open_arr(o, "values");
			for (size_t v = 0; v < nm->nvalues; v++) {
				out_open_obj(o, NULL);
				/* The JSON keeps null for "lacks the fact"; the text names it. */
				out_str(o, PR_JSON, "value", NULL, nm->values[v].value);
				if (shown)
					out_text(o, "%s %s on %d", v ? "," : "",
						 nm->values[v].value ? nm->values[v].value : "(absent)",
						 nm->values[v].count);
				out_int(o, PR_JSON, "count", NULL, fab_int_of(nm->values[v].count));
				out_close_obj(o);
			}
			out_close_arr(o);
			if (shown)
				out_text(o, "\n");
			out_close_obj(o);
		}
		if (fk->nnomaj > FLEET_TEXT_NOMAJ)
			out_text(o, "    ... and %zu more (--json lists them all)\n", fk->nnomaj - FLEET_TEXT_NOMAJ);
		out_close_arr(o);
		out_close_obj(o);
	}
	out_close_arr(o);
}

void fleet_print(struct fab_out *o, const struct fleet *f)
{
	print_summary(o, f);
	print_odd_text(o, f);
	print_rows(o, f);
	print_kinds(o, f);
}

/* ---- the command ---- */

static const char fleet_usage[] =
"usage: fabtop fleet CAPTURE...|DIR... [--json] [--batch]\n"
"  many nodes' captures (FILE.tar.gz, capture directories) or saved `fabtop report all --json`\n"
"  outputs, or directories of them: one row per node, then what sets a node apart from the\n"
"  majority of its kind (same GPU and HCA models). On a terminal the Fleet pane; --batch or\n"
"  --json print instead.\n"
"Exit status: 0 every node ok and none odd, 1 findings of warning severity or worse or an odd\n"
"node, 2 usage error or a node that could not be read (verdict unknown).\n";

void fleet_ports_text(const struct fleet_node *r, char *buf, size_t len)
{
	snprintf(buf, len, "%d/%d", r->ports_up, r->ports_expected);
	if (r->ports_unknown)
		fab_catf(buf, len, " %d?", r->ports_unknown);
}

int fleet_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "batch", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, batch = false;
	int c;
	optind = 0;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'b': batch = true; break;
		case 'h': fputs(fleet_usage, stdout); return 0;
		default: fputs(fleet_usage, stderr); return 2;
		}
	}
	if (optind >= argc) {
		fputs("fabtop: fleet needs captures, reports or directories of them\n", stderr);
		fputs(fleet_usage, stderr);
		return 2;
	}
	/* Each node's document is a few hundred KiB of short-lived blocks:
	 * glibc would hand them back to the kernel after every node and fault
	 * them in again (a fifth of the time over 2,000 captures, bench/fleet).
	 * Keep them for the next node instead. */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	struct fleet f;
	if (fleet_load(argv + optind, (size_t)(argc - optind), &f, stderr) != 0)
		return 2;
	int rc;
	char why[256];
	bool script = getenv("FABTOP_SCRIPT") != NULL;
	bool term = script || (isatty(STDOUT_FILENO) && isatty(STDIN_FILENO));
	bool pane = !json && !batch && term;
	if (pane && (script || tui_term_usable(why, sizeof(why)))) {
		rc = tui_fleet_run(&f);
	} else {
		if (pane)
			fprintf(stderr, "fabtop: %s: printing the fleet as text instead of the console "
				"(set TERM, e.g. TERM=xterm-256color, for the console)\n", why);
		struct fab_out *o = out_new(json ? OUT_JSON : OUT_TEXT, stdout);
		rc = 2;
		if (o) {
			out_open_obj(o, NULL);
			fleet_print(o, &f);
			out_close_obj(o);
			rc = out_free(o) == 0 ? fleet_exit(&f) : 2;
		}
	}
	fleet_free(&f);
	return rc;
}
