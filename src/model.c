/* model.c - allocation and lookup for the snapshot; no I/O. */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/model.h"
#include "fabtop/util.h"

void model_init(struct fab_model *m)
{
	memset(m, 0, sizeof(*m));
	m->have = FAB_DETAIL_ALL;
}

void model_free(struct fab_model *m)
{
	model_reindex(m);
	free(m->index);
	free(m->pci);
	free(m->numa);
	free(m->gpus);
	free(m->settings);
	free(m->nics);
	free(m->netdevs);
	free(m->findings);
	free(m->notes);
	memset(m, 0, sizeof(*m));
}

/* Appends one zeroed element, doubling the allocation when it is full
 * (a node with thousands of VFs or GIDs must not copy its arrays once per
 * element); aborts on out-of-memory, as a snapshot without memory cannot
 * say anything useful. */
static void *grow(void *base, int *n, int *cap, size_t elem)
{
	char *p = base;
	if (*n >= *cap || !p) {
		size_t want = *cap > 0 ? (size_t)*cap * 2 : 8;
		if (want < (size_t)*n + 1)
			want = (size_t)*n + 1;
		if (want > (size_t)INT_MAX || !(p = realloc(base, want * elem))) {
			fputs("fabtop: out of memory\n", stderr);
			abort();
		}
		*cap = (int)want;
	}
	memset(p + (size_t)*n * elem, 0, elem);
	(*n)++;
	return p;
}

#define ADD(m, arr, n) \
	((m)->arr = grow((m)->arr, &(m)->n, &(m)->cap.arr, sizeof(*(m)->arr)), \
	 &(m)->arr[(m)->n - 1])

struct fab_pci_dev *model_add_pci(struct fab_model *m) { return ADD(m, pci, npci); }
struct fab_numa_node *model_add_numa(struct fab_model *m) { return ADD(m, numa, nnuma); }
struct fab_nic *model_add_nic(struct fab_model *m) { return ADD(m, nics, nnics); }
struct fab_netdev *model_add_netdev(struct fab_model *m) { return ADD(m, netdevs, nnetdevs); }
struct fab_setting *model_add_setting(struct fab_model *m) { return ADD(m, settings, nsettings); }

struct fab_gpu *model_add_gpu(struct fab_model *m)
{
	struct fab_gpu *g = ADD(m, gpus, ngpus);
	g->pci = FAB_NO_INDEX;
	return g;
}

struct fab_finding *model_add_finding(struct fab_model *m, const char *id,
				      enum fab_severity sev, const char *subject)
{
	struct fab_finding *f = ADD(m, findings, nfindings);
	fab_strlcpy(f->id, id, sizeof(f->id));
	fab_strlcpy(f->subject, subject, sizeof(f->subject));
	f->sev = sev;
	return f;
}

static void note_v(struct fab_model *m, unsigned src, const char *what, const char *fmt,
		   va_list ap)
{
	struct fab_note *n = ADD(m, notes, nnotes);
	fab_strlcpy(n->what, what, sizeof(n->what));
	vsnprintf(n->message, sizeof(n->message), fmt, ap);
	n->src = src;
}

void model_note(struct fab_model *m, const char *what, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	note_v(m, 0, what, fmt, ap);
	va_end(ap);
}

void model_note_cut(struct fab_model *m, const char *what, const char *subject, const char *noun,
		    int total, int kept)
{
	char msg[sizeof(m->notes[0].message)];
	snprintf(msg, sizeof(msg), "%s%s%d %s; the first %d are kept, the other %d are not shown",
		 subject, subject[0] ? ": " : "", total, noun, kept, total - kept);
	/* Once: a table applied again (NVML's answer merged as each GPU part
	 * comes) is the same cut. */
	for (int i = 0; i < m->nnotes; i++)
		if (strcmp(m->notes[i].message, msg) == 0 && strncmp(m->notes[i].what, what,
								     sizeof(m->notes[i].what) - 1) == 0)
			return;
	model_note(m, what, "%s", msg);
}

void model_note_src(struct fab_model *m, unsigned src, const char *what, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	note_v(m, src, what, fmt, ap);
	va_end(ap);
}

/*
 * The lookups by name: a hash index per array, by position (the arrays are
 * realloc'd, so never by pointer), built by the lookups themselves as the
 * model grows. The collectors add entries after lookups have happened, so
 * before answering a lookup brings the index up to date:
 *  - entries added since are indexed (the array only grew);
 *  - a moved array (realloc) or a shorter one is indexed again, whole;
 *  - an entry indexed while its name was still "" (just added, not yet
 *    filled in) is kept aside and indexed once it has a name;
 *  - every hit is compared with the name in the array, and a slot whose
 *    entry no longer has the name it was indexed under (an array sorted in
 *    place, as collect_pci_sysfs does) has the index built again.
 * A name changed in place after a lookup, to a name never looked up since,
 * would still be missed: code that renames an entry calls model_reindex().
 * Small arrays are scanned: below INDEX_MIN a scan costs no more than a
 * hash, and needs no allocation.
 */
#define INDEX_MIN 16

struct ix_slot {
	int pos;                      /* position in the array; -1: empty */
	uint32_t hash;                /* of the name it was indexed under */
};

struct key_index {
	const void *base;             /* the array indexed: a realloc moves it */
	int n;                        /* entries [0, n) are indexed or kept aside */
	int used;                     /* filled slots */
	unsigned mask;                /* slots - 1 (a power of two) */
	struct ix_slot *slot;
	int *unnamed, nunnamed, capunnamed;   /* positions whose name was "" */
};

struct fab_model_index {
	struct key_index pci, nics, netdevs;
};

/* An array of entries and where the key sits in each. */
struct keyed {
	const char *base;
	int n;
	size_t stride, off;
};

static const char *key_at(const struct keyed *a, int i)
{
	return a->base + (size_t)i * a->stride + a->off;
}

/* FNV-1a: short names, no adversary that gains anything by colliding. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void *ix_alloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (!p) {
		fputs("fabtop: out of memory\n", stderr);
		abort();
	}
	return p;
}

static void ix_clear(struct key_index *ix)
{
	free(ix->slot);
	free(ix->unnamed);
	memset(ix, 0, sizeof(*ix));
}

static void ix_slot_put(struct key_index *ix, int pos, uint32_t h)
{
	unsigned s = h & ix->mask;
	while (ix->slot[s].pos >= 0)
		s = (s + 1) & ix->mask;
	ix->slot[s].pos = pos;
	ix->slot[s].hash = h;
	ix->used++;
}

/* Indexes entry i, or keeps it aside while it has no name; the table has
 * room (ix_refresh sees to it). */
static void ix_add(struct key_index *ix, const struct keyed *a, int i)
{
	const char *k = key_at(a, i);
	if (k[0]) {
		ix_slot_put(ix, i, name_hash(k));
		return;
	}
	if (ix->nunnamed == ix->capunnamed) {
		int cap = ix->capunnamed ? ix->capunnamed * 2 : 8;
		int *v = realloc(ix->unnamed, (size_t)cap * sizeof(*v));
		if (!v) {
			fputs("fabtop: out of memory\n", stderr);
			abort();
		}
		ix->unnamed = v;
		ix->capunnamed = cap;
	}
	ix->unnamed[ix->nunnamed++] = i;
}

/* Indexes a->n entries again from scratch, in a table at most half full. */
static void ix_rebuild(struct key_index *ix, const struct keyed *a)
{
	unsigned slots = 16;
	while (slots < (unsigned)a->n * 2 + 2)
		slots *= 2;
	ix_clear(ix);
	ix->slot = ix_alloc(slots, sizeof(*ix->slot));
	ix->mask = slots - 1;
	for (unsigned s = 0; s < slots; s++)
		ix->slot[s].pos = -1;
	ix->base = a->base;
	for (int i = 0; i < a->n; i++)
		ix_add(ix, a, i);
	ix->n = a->n;
}

/* Brings the index up to what the array holds now. */
static void ix_refresh(struct key_index *ix, const struct keyed *a)
{
	/* Moved or shorter, or no room for what was added: index it whole
	 * (the table doubles with the array, so this stays amortised O(1)). */
	if (!ix->slot || ix->base != (const void *)a->base || a->n < ix->n ||
	    (size_t)(ix->used + ix->nunnamed + (a->n - ix->n)) * 2 > (size_t)ix->mask + 1) {
		ix_rebuild(ix, a);
		return;
	}
	int keep = 0;
	for (int u = 0; u < ix->nunnamed; u++) {
		int i = ix->unnamed[u];
		if (key_at(a, i)[0])
			ix_slot_put(ix, i, name_hash(key_at(a, i)));
		else
			ix->unnamed[keep++] = i;
	}
	ix->nunnamed = keep;
	for (int i = ix->n; i < a->n; i++)
		ix_add(ix, a, i);
	ix->n = a->n;
}

/* The first entry named key (the lowest position, as a scan finds), or -1;
 * *stale when a slot no longer matches the entry it points at. */
static int ix_probe(const struct key_index *ix, const struct keyed *a, const char *key,
		    bool *stale)
{
	uint32_t h = name_hash(key);
	int best = FAB_NO_INDEX;
	*stale = false;
	for (unsigned s = h & ix->mask; ix->slot[s].pos >= 0; s = (s + 1) & ix->mask) {
		const struct ix_slot *sl = &ix->slot[s];
		if (sl->hash != h)
			continue;
		const char *k = key_at(a, sl->pos);
		if (strcmp(k, key) == 0) {
			if (best == FAB_NO_INDEX || sl->pos < best)
				best = sl->pos;
		} else if (name_hash(k) != h) {
			*stale = true;    /* renamed or moved since: not a collision */
		}
	}
	return best;
}

static int scan(const struct keyed *a, const char *key)
{
	for (int i = 0; i < a->n; i++)
		if (strcmp(key_at(a, i), key) == 0)
			return i;
	return FAB_NO_INDEX;
}

/* The model is const to the lookups, its index is not: it is a cache of
 * what the arrays hold, allocated on the first lookup of a large array
 * and freed by model_free(). */
static struct fab_model_index *model_index_of(const struct fab_model *m)
{
	struct fab_model *w = (struct fab_model *)m;
	if (!w->index)
		w->index = ix_alloc(1, sizeof(*w->index));
	return w->index;
}

/* The first entry of array a named key; ixoff says which of the model's
 * indexes is a's. */
static int find(const struct fab_model *m, size_t ixoff, const struct keyed *a, const char *key)
{
	if (a->n < INDEX_MIN || !key[0])
		return scan(a, key);
	struct key_index *ix = (struct key_index *)((char *)model_index_of(m) + ixoff);
	ix_refresh(ix, a);
	bool stale;
	int i = ix_probe(ix, a, key, &stale);
	if (stale) {
		ix_rebuild(ix, a);
		i = ix_probe(ix, a, key, &stale);
	}
	return i;
}

#define KEYED(arr, n, type, field) { (const char *)(arr), (n), sizeof(type), offsetof(type, field) }

int model_find_pci(const struct fab_model *m, const char *bdf)
{
	const struct keyed a = KEYED(m->pci, m->npci, struct fab_pci_dev, bdf);
	return find(m, offsetof(struct fab_model_index, pci), &a, bdf);
}

int model_find_nic(const struct fab_model *m, const char *name)
{
	const struct keyed a = KEYED(m->nics, m->nnics, struct fab_nic, name);
	return find(m, offsetof(struct fab_model_index, nics), &a, name);
}

int model_find_netdev(const struct fab_model *m, const char *name)
{
	const struct keyed a = KEYED(m->netdevs, m->nnetdevs, struct fab_netdev, name);
	return find(m, offsetof(struct fab_model_index, netdevs), &a, name);
}

void model_reindex(struct fab_model *m)
{
	if (!m->index)
		return;
	ix_clear(&m->index->pci);
	ix_clear(&m->index->nics);
	ix_clear(&m->index->netdevs);
}

const struct fab_netdev *model_netdev(const struct fab_model *m, const char *name)
{
	int i = name && name[0] ? model_find_netdev(m, name) : FAB_NO_INDEX;
	return i == FAB_NO_INDEX ? NULL : &m->netdevs[i];
}

const struct fab_port *model_find_port(const struct fab_model *m, const char *dev, int port,
				       const struct fab_nic **nic)
{
	int i = model_find_nic(m, dev);
	if (nic)
		*nic = i == FAB_NO_INDEX ? NULL : &m->nics[i];
	if (i == FAB_NO_INDEX)
		return NULL;
	for (int p = 0; p < m->nics[i].nports && p < FAB_MAX_PORTS; p++)
		if (m->nics[i].ports[p].num == port)
			return &m->nics[i].ports[p];
	return NULL;
}
