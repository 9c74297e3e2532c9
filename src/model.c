/* model.c - allocation and lookup for the snapshot; no I/O. */
#include <limits.h>
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

void model_note_src(struct fab_model *m, unsigned src, const char *what, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	note_v(m, src, what, fmt, ap);
	va_end(ap);
}

int model_find_pci(const struct fab_model *m, const char *bdf)
{
	for (int i = 0; i < m->npci; i++)
		if (strcmp(m->pci[i].bdf, bdf) == 0)
			return i;
	return FAB_NO_INDEX;
}

int model_find_nic(const struct fab_model *m, const char *name)
{
	for (int i = 0; i < m->nnics; i++)
		if (strcmp(m->nics[i].name, name) == 0)
			return i;
	return FAB_NO_INDEX;
}

int model_find_netdev(const struct fab_model *m, const char *name)
{
	for (int i = 0; i < m->nnetdevs; i++)
		if (strcmp(m->netdevs[i].name, name) == 0)
			return i;
	return FAB_NO_INDEX;
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
