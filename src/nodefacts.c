/*
 * nodefacts.c - a `report all --json` document flattened into the facts
 * diff and fleet compare (nodefacts.h). What is identity (differs on every
 * node, hidden) and what is a setting (compared) is decided here only.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/nodefacts.h"
#include "fabtop/util.h"

/* The sections in the order they are listed (nodefacts.h). */
static const char *const sections[] = {
	"node", "topology", "hca", "port", "pcie", "netdev", "nccl", "counter", "finding",
};
#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))

static int section_ix(const char *s)
{
	for (size_t i = 0; i < NSECTIONS; i++)
		if (s == sections[i] || strcmp(s, sections[i]) == 0)
			return (int)i;
	return -1;
}

/* Natural order, so GPU2 comes before GPU10 and mlx5_2 before mlx5_10:
 * runs of digits compare by value (leading zeros ignored, then by length
 * of the run), the rest byte by byte. Ties break on strcmp: a total order. */
static int natcmp(const char *a, const char *b)
{
	const char *a0 = a, *b0 = b;
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t la = strspn(a, "0123456789"), lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	if (*a || *b)
		return *a ? 1 : -1;
	return strcmp(a0, b0);
}

int nodefacts_cmp(const struct nodefact *a, const struct nodefact *b)
{
	int sa = section_ix(a->section), sb = section_ix(b->section);
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return natcmp(a->key, b->key);
}

/* The list's order, then the value: duplicates meet in a fixed order. */
static int fact_cmp(const void *pa, const void *pb)
{
	const struct nodefact *a = pa, *b = pb;
	int c = nodefacts_cmp(a, b);
	return c ? c : strcmp(a->value, b->value);
}

struct fb {
	struct nodefacts *f;
	unsigned flags;
	int err;
};

/* Takes key and value (malloc'd); frees them when the fact is left out. */
static void add_owned(struct fb *b, const char *section, bool identity, char *key, char *value)
{
	if (b->err || !key || !value || (identity && !(b->flags & NODEFACTS_IDENTITY))) {
		if (!key || !value)
			b->err = -1;
		free(key);
		free(value);
		return;
	}
	int sx = section_ix(section);
	if (sx < 0) {
		b->err = -1;
		free(key);
		free(value);
		return;
	}
	section = sections[sx];  /* one pointer per section: merge_dups compares them */
	struct nodefacts *f = b->f;
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 256;
		struct nodefact *v = realloc(f->v, cap * sizeof(*v));
		if (!v) {
			b->err = -1;
			free(key);
			free(value);
			return;
		}
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n++] = (struct nodefact){ .section = section, .key = key, .value = value, .identity = identity };
}

static char *xvasprintf(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* A JSON value as the fact's text: null is "unknown" (the document's word
 * for could not be read), numbers as printed, arrays of scalars joined by
 * ",", anything else compact JSON; never "" (an empty string is "(empty)",
 * an empty array "none"), so "" can never pass for a missing fact. */
static char *jtext(const json_t *v)
{
	if (!v || json_is_null(v))
		return strdup("unknown");
	if (json_is_string(v))
		return strdup(*json_string_value(v) ? json_string_value(v) : "(empty)");
	if (json_is_integer(v))
		return xasprintf("%lld", (long long)json_integer_value(v));
	if (json_is_real(v))
		return xasprintf("%g", json_real_value(v));
	if (json_is_boolean(v))
		return strdup(json_is_true(v) ? "true" : "false");
	if (json_is_array(v) && !json_array_size(v))
		return strdup("none");
	if (json_is_array(v)) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (!m)
			return NULL;
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) {
			char *t = json_is_array(e) || json_is_object(e)
				  ? json_dumps(e, JSON_COMPACT) : jtext(e);
			fprintf(m, "%s%s", i ? "," : "", t ? t : "");
			free(t);
		}
		if (fclose(m) != 0) {
			free(buf);
			return NULL;
		}
		return buf;
	}
	return json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
}

/* A fact whose value is a document member; key from fmt. */
static void add_json(struct fb *b, const char *section, bool identity, const json_t *v,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void add_json(struct fb *b, const char *section, bool identity, const json_t *v,
		     const char *fmt, ...)
{
	if (b->err || (identity && !(b->flags & NODEFACTS_IDENTITY)))
		return;
	va_list ap;
	va_start(ap, fmt);
	char *key = xvasprintf(fmt, ap);
	va_end(ap);
	add_owned(b, section, identity, key, jtext(v));
}

/* Each listed member of obj that obj holds, as "PREFIX member". */
static void add_members(struct fb *b, const char *section, const json_t *obj, const char *prefix,
			const char *const *members)
{
	for (; *members; members++) {
		const json_t *v = json_object_get(obj, *members);
		if (v)
			add_json(b, section, false, v, "%s %s", prefix, *members);
	}
}

static const char *jstr(const json_t *obj, const char *k)
{
	return json_string_value(json_object_get(obj, k));
}

static int str_cmp(const void *a, const void *b)
{
	return natcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "8x NVIDIA H100 80GB HBM3" from a list of model names (sorted, counted);
 * "4x A, 4x B" when mixed; NULL when the list is empty. */
/* "8x A, 2x B" (counted), or "A, B" (the distinct models only). */
static char *count_models(const char **names, size_t n, bool counted)
{
	if (!n)
		return NULL;
	qsort(names, n, sizeof(*names), str_cmp);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && strcmp(names[j], names[i]) == 0)
			j++;
		if (counted)
			fprintf(m, "%s%zux %s", i ? ", " : "", j - i, names[i]);
		else
			fprintf(m, "%s%s", i ? ", " : "", names[i]);
		i = j;
	}
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The models of arr's entries (only those whose "kind" is kind, when kind
 * is given) under name_key, counted. */
static char *models_of(const json_t *arr, const char *kind, const char *name_key, const char *unknown,
		       bool counted)
{
	size_t n = json_array_size(arr), k = 0, i;
	const char **names = calloc(n ? n : 1, sizeof(*names));
	if (!names)
		return NULL;
	const json_t *e;
	json_array_foreach(arr, i, e) {
		const char *ek = jstr(e, "kind");
		if (!kind || (ek && strcmp(ek, kind) == 0))
			names[k++] = jstr(e, name_key) ? jstr(e, name_key) : unknown;
	}
	char *s = count_models(names, k, counted);
	free(names);
	return s;
}

/* The GPU models (topology.devices of kind gpu) or the HCA models
 * (links.hcas' hca_type), counted. */
static char *gpu_models(const json_t *doc, bool counted)
{
	return models_of(json_object_get(json_object_get(doc, "topology"), "devices"), "gpu", "name",
			 "unknown GPU", counted);
}

static char *hca_models(const json_t *doc, bool counted)
{
	return models_of(json_object_get(json_object_get(doc, "links"), "hcas"), NULL, "hca_type",
			 "unknown HCA", counted);
}

static void kind_text(const json_t *doc, bool counted, char *out, size_t len)
{
	char *g = gpu_models(doc, counted), *h = hca_models(doc, counted);
	if (g && h)
		snprintf(out, len, "%s + %s", g, h);
	else if (g || h)
		snprintf(out, len, "%s", g ? g : h);
	else
		snprintf(out, len, "unknown");
	free(g);
	free(h);
}

void nodefacts_kind(const json_t *doc, char *out, size_t len)
{
	kind_text(doc, true, out, len);
}

void nodefacts_family(const json_t *doc, char *out, size_t len)
{
	kind_text(doc, false, out, len);
}

/* The document's own metadata (who, when, from where, which fabtop) is
 * identity: it differs between any two documents, never between settings. */
static void node_facts(struct fb *b, const json_t *doc)
{
	static const char *const ident[] = { "host", "time", "source", "live", "demo", "fabtop", NULL };
	for (const char *const *k = ident; *k; k++)
		if (json_object_get(doc, *k))
			add_json(b, "node", true, json_object_get(doc, *k), "%s", *k);
	static const char *const comp[] = { "kernel", "cuda", "pci_functions", NULL };
	for (const char *const *k = comp; *k; k++)
		if (json_object_get(doc, *k))
			add_json(b, "node", false, json_object_get(doc, *k), "%s", *k);
	/* The verdict "ok" or "findings" is the findings' (below), so it is
	 * no fact of its own; "unknown" is not, so its reasons are one. */
	const json_t *ub = json_object_get(doc, "unknown_because");
	if (json_array_size(ub))
		add_json(b, "node", false, ub, "unknown_because");
	char *g = gpu_models(doc, true), *h = hca_models(doc, true);
	add_owned(b, "node", false, strdup("gpus"), g ? g : strdup("none"));
	add_owned(b, "node", false, strdup("hcas"), h ? h : strdup("none"));
	const json_t *links = json_object_get(doc, "links");
	if (json_object_get(links, "netns_mode"))
		add_json(b, "node", false, json_object_get(links, "netns_mode"), "rdma netns_mode");
	const json_t *numa = json_object_get(doc, "numa_nodes");
	if (json_is_array(numa)) {
		add_owned(b, "node", false, strdup("numa_nodes"), xasprintf("%zu", json_array_size(numa)));
		size_t i;
		const json_t *nn;
		json_array_foreach(numa, i, nn) {
			char *id = jtext(json_object_get(nn, "id"));
			if (!id) {
				b->err = -1;
				return;
			}
			add_json(b, "node", false, json_object_get(nn, "cpus"), "numa%s cpus", id);
			add_json(b, "node", false, json_object_get(nn, "distances"), "numa%s distances", id);
			free(id);
		}
	}
}

/* "32 GT/s x16, max 32 GT/s x16"; unknown parts say so. */
static char *pcie_text(const json_t *p)
{
	char sp[32] = "unknown", msp[32] = "unknown", w[32] = "unknown", mw[32] = "unknown";
	const json_t *v;
	if (json_is_number(v = json_object_get(p, "speed_gts")))
		snprintf(sp, sizeof(sp), "%g", json_number_value(v));
	if (json_is_number(v = json_object_get(p, "max_speed_gts")))
		snprintf(msp, sizeof(msp), "%g", json_number_value(v));
	if (json_is_integer(v = json_object_get(p, "width")))
		snprintf(w, sizeof(w), "%lld", (long long)json_integer_value(v));
	if (json_is_integer(v = json_object_get(p, "max_width")))
		snprintf(mw, sizeof(mw), "%lld", (long long)json_integer_value(v));
	return xasprintf("%s GT/s x%s, max %s GT/s x%s", sp, w, msp, mw);
}

static const json_t *row_by_label(const json_t *rows, const char *label)
{
	size_t i;
	const json_t *r;
	json_array_foreach(rows, i, r) {
		const char *l = jstr(r, "label");
		if (l && strcmp(l, label) == 0)
			return r;
	}
	return NULL;
}

static size_t col_index(const json_t *cols, const char *label)
{
	size_t i;
	const json_t *c;
	json_array_foreach(cols, i, c) {
		const char *l = json_string_value(c);
		if (l && strcmp(l, label) == 0)
			return i;
	}
	return (size_t)-1;
}

/* The matrix by its row and column labels (NIC numbering follows PCI
 * order: the same on nodes of one kind), the closest NICs, and where each
 * device sits. A NIC's first-port summary in devices is left to "port". */
static void topology_facts(struct fb *b, const json_t *doc)
{
	const json_t *t = json_object_get(doc, "topology");
	if (!json_is_object(t))
		return;
	static const char *const top[] = { "source", "nvlink_known", NULL };
	add_members(b, "topology", t, "matrix", top);
	const json_t *cols = json_object_get(t, "columns"), *rows = json_object_get(t, "rows");
	size_t i, j;
	const json_t *row, *cell;
	json_array_foreach(rows, i, row) {
		const char *rl = jstr(row, "label");
		if (!rl)
			continue;
		json_array_foreach(json_object_get(row, "cells"), j, cell) {
			const char *cl = json_string_value(json_array_get(cols, j));
			if (!cl || strcmp(cl, rl) == 0)
				continue;
			/* The matrix is symmetric: a cell below the diagonal is a
			 * fact of its own only when it differs from its mirror,
			 * so one changed path is one line, not two. */
			const json_t *mrow = row_by_label(rows, cl);
			size_t ri = col_index(cols, rl);
			if (mrow && ri != (size_t)-1 && ri > j &&
			    json_equal(cell, json_array_get(json_object_get(mrow, "cells"), ri)))
				continue;
			add_json(b, "topology", false, cell, "%s %s", rl, cl);
		}
		/* cpu_affinity is the device's (below), once. */
		static const char *const rowm[] = { "numa_affinity", "gpu_numa_id", NULL };
		add_members(b, "topology", row, rl, rowm);
	}
	const json_t *c;
	json_array_foreach(json_object_get(t, "closest_nics"), i, c) {
		const char *g = jstr(c, "gpu");
		if (!g)
			continue;
		char *nics = jtext(json_object_get(c, "nics")), *lvl = jtext(json_object_get(c, "level"));
		add_owned(b, "topology", false, xasprintf("%s closest", g),
			  nics && lvl ? xasprintf("%s %s", nics, lvl) : NULL);
		free(nics);
		free(lvl);
		add_json(b, "topology", false, json_object_get(c, "usable"), "%s closest usable", g);
		const json_t *note = json_object_get(c, "note");
		if (note && !json_is_null(note))
			add_json(b, "topology", false, note, "%s closest note", g);
	}
	const json_t *d;
	json_array_foreach(json_object_get(t, "devices"), i, d) {
		const char *l = jstr(d, "label");
		if (!l)
			continue;
		static const char *const devm[] = { "kind", "name", "bdf", "host_bridge", "numa_node",
						    "cpu_affinity", "config_space", "nvml_index", NULL };
		add_members(b, "topology", d, l, devm);
		const char *kind = jstr(d, "kind");
		/* NICs' PCIe is their HCA's (hca below), once. */
		if (kind && strcmp(kind, "gpu") == 0 && json_object_get(d, "pcie"))
			add_owned(b, "pcie", false, strdup(l), pcie_text(json_object_get(d, "pcie")));
	}
}

static int gidtype_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The set of GID kinds a port has: "RoCE v2 IPv4, RoCE v2 IPv6, ..." (the
 * addresses are identity; which kinds exist is what NCCL_IB_GID_INDEX and
 * RoCE v2 need). A table the report cut (gids_more) says so: the kinds of
 * the slots not kept are not known. */
static char *gid_kinds(const json_t *gids, const json_t *more)
{
	size_t n = json_array_size(gids), k = 0, i;
	json_int_t nmore = json_is_integer(more) ? json_integer_value(more) : 0;
	if (!n && nmore <= 0)
		return strdup("none");
	char **v = calloc(n, sizeof(*v));
	if (!v)
		return NULL;
	const json_t *g;
	json_array_foreach(gids, i, g) {
		const char *type = jstr(g, "type"), *ip = jstr(g, "ip");
		const char *fam = !ip ? "" : strchr(ip, ':') ? " IPv6" : " IPv4";
		v[k] = xasprintf("%s%s", type ? type : "untyped", fam);
		if (!v[k])
			break;
		k++;
	}
	char *out = NULL;
	if (k == n) {
		qsort(v, k, sizeof(*v), gidtype_cmp);
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (m) {
			for (i = 0; i < k; i++)
				if (!i || strcmp(v[i], v[i - 1]) != 0)
					fprintf(m, "%s%s", i ? ", " : "", v[i]);
			if (nmore > 0)
				fprintf(m, "%s+%lld not kept, of kinds unknown", k ? "; " : "",
					(long long)nmore);
			if (fclose(m) == 0)
				out = buf;
			else
				free(buf);
		}
	}
	for (i = 0; i < k; i++)
		free(v[i]);
	free(v);
	return out;
}

/* usable "yes", or "no: port DOWN/Disabled": the why matters only when not. */
static char *usable_text(const json_t *o)
{
	const char *u = jstr(o, "usable"), *why = jstr(o, "usable_why");
	if (!u)
		return strdup("unknown");
	if (strcmp(u, "yes") == 0 || !why || !*why)
		return strdup(u);
	return xasprintf("%s: %s", u, why);
}

static void port_facts(struct fb *b, const char *hca, const json_t *p)
{
	char *pn = jtext(json_object_get(p, "port"));
	if (!pn) {
		b->err = -1;
		return;
	}
	char *id = xasprintf("%s/%s", hca, pn);
	free(pn);
	if (!id) {
		b->err = -1;
		return;
	}
	static const char *const pm[] = { "state", "phys_state", "rate_gbps", "line_gbps", "line_why", "width",
					  "speed", "link_layer", "active_mtu", "max_mtu", "mtu_source", "sm_sl",
					  NULL };
	add_members(b, "port", p, id, pm);
	add_owned(b, "port", false, xasprintf("%s usable", id), usable_text(p));
	add_owned(b, "port", false, xasprintf("%s gid_kinds", id), gid_kinds(json_object_get(p, "gids"),
							 json_object_get(p, "gids_more")));
	/* LIDs are handed out per port by the subnet manager: identity. */
	static const char *const lids[] = { "lid", "sm_lid", NULL };
	for (const char *const *k = lids; *k; k++)
		if (json_object_get(p, *k))
			add_json(b, "port", true, json_object_get(p, *k), "%s %s", id, *k);
	size_t i;
	const json_t *g;
	json_array_foreach(json_object_get(p, "gids"), i, g) {
		char *ix = jtext(json_object_get(g, "index"));
		add_owned(b, "port", true, ix ? xasprintf("%s gid %s", id, ix) : NULL,
			  jtext(json_object_get(g, "gid")));
		free(ix);
	}
	const json_t *nd = json_object_get(p, "netdev");
	if (json_is_object(nd)) {
		char *pre = xasprintf("%s netdev", id);
		if (!pre) {
			b->err = -1;
			free(id);
			return;
		}
		add_json(b, "port", false, json_object_get(nd, "name"), "%s", pre);
		static const char *const ndm[] = { "here", "mtu", "operstate", "carrier", "speed_mbps", NULL };
		add_members(b, "port", nd, pre, ndm);
		const json_t *qos = json_object_get(nd, "qos");
		if (json_is_object(qos)) {
			static const char *const qm[] = { "trust", "pfc", "ecn_np", "ecn_rp", NULL };
			char *q = xasprintf("%s qos", id);
			if (q)
				add_members(b, "port", qos, q, qm);
			else
				b->err = -1;
			free(q);
		}
		free(pre);
	}
	free(id);
}

static void hca_facts(struct fb *b, const json_t *doc)
{
	size_t i, j;
	const json_t *h, *p;
	json_array_foreach(json_object_get(json_object_get(doc, "links"), "hcas"), i, h) {
		const char *name = jstr(h, "name");
		if (!name)
			continue;
		static const char *const hm[] = { "hca_type", "fw_ver", "board_id", "driver", "numa_node",
						  "cap_gbps", "counters_skipped", NULL };
		add_members(b, "hca", h, name, hm);
		/* Its usable and uverbs access are its ports' usable (below), once. */
		if (json_object_get(h, "node_guid"))
			add_json(b, "hca", true, json_object_get(h, "node_guid"), "%s node_guid", name);
		if (json_object_get(h, "pcie"))
			add_owned(b, "pcie", false, strdup(name), pcie_text(json_object_get(h, "pcie")));
		json_array_foreach(json_object_get(h, "ports"), j, p)
			port_facts(b, name, p);
	}
}

/* Whether an HCA port names this netdev (its facts are then the port's). */
static bool port_netdev(const json_t *doc, const char *name)
{
	size_t i, j;
	const json_t *h, *p;
	json_array_foreach(json_object_get(json_object_get(doc, "links"), "hcas"), i, h)
		json_array_foreach(json_object_get(h, "ports"), j, p) {
			const char *n = jstr(json_object_get(p, "netdev"), "name");
			if (n && strcmp(n, name) == 0)
				return true;
		}
	return false;
}

/* The netdevs no HCA port names (management, bonds, the pod's own), and
 * every netdev's addresses (identity). Container runtimes name veth pairs
 * at random per container: their facts are identity too. */
static void netdev_facts(struct fb *b, const json_t *doc)
{
	size_t i;
	const json_t *nd;
	json_array_foreach(json_object_get(doc, "netdevs"), i, nd) {
		const char *name = jstr(nd, "name");
		if (!name)
			continue;
		if (json_object_get(nd, "addrs"))
			add_json(b, "netdev", true, json_object_get(nd, "addrs"), "%s addrs", name);
		if (port_netdev(doc, name))
			continue;
		bool eph = strncmp(name, "veth", 4) == 0;
		static const char *const m[] = { "bdf", "mtu", "operstate", "carrier", "speed_mbps", "qos_trust",
						  "pfc_mask", NULL };
		for (const char *const *k = m; *k; k++)
			if (json_object_get(nd, *k))
				add_json(b, "netdev", eph, json_object_get(nd, *k), "%s %s", name, *k);
	}
}

/* What the node's NCCL would load. report all holds no NCCL_* settings
 * (they belong to a job's processes): only the library is compared. */
/* The library, and the node's NCCL settings (report all's nccl_settings):
 * one fact per variable, keyed by its name; a value from /etc/nccl.conf
 * says so (one set in both is both values, the environment's first, as
 * NCCL lets it win). Settings not known are one fact saying why, never
 * "none". */
static void nccl_facts(struct fb *b, const json_t *doc)
{
	if (json_object_get(doc, "nccl"))
		add_json(b, "nccl", false, json_object_get(doc, "nccl"), "library");
	const json_t *ns = json_object_get(doc, "nccl_settings");
	if (!json_is_object(ns))
		return;
	if (!json_is_true(json_object_get(ns, "known"))) {
		const char *why = json_string_value(json_object_get(ns, "why"));
		add_owned(b, "nccl", false, strdup("settings"),
			  xasprintf("unknown (%s)", why && *why ? why : "not recorded"));
	}
	size_t i;
	const json_t *v;
	json_array_foreach(json_object_get(ns, "vars"), i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		const char *val = json_string_value(json_object_get(v, "value"));
		const char *src = json_string_value(json_object_get(v, "source"));
		if (!name || !*name || !val)
			continue;
		add_owned(b, "nccl", false, strdup(name),
			  src && strcmp(src, "environment") ? xasprintf("%s (%s)", *val ? val : "(empty)", src)
							    : strdup(*val ? val : "(empty)"));
	}
}

/* One fact per sampled port: "quiet", or "grows: " and the bad_when_grows
 * counters that grew over the recorded run (report counters' summary). A
 * fact per port, not per counter, so a node where nothing grew still has
 * the value the others are compared with. */
static void counter_facts(struct fb *b, const json_t *doc)
{
	const json_t *c = json_object_get(doc, "counters");
	if (!json_is_object(c))
		return;
	struct nodefacts ports = { 0 };
	struct fb pb = { .f = &ports, .flags = NODEFACTS_IDENTITY };
	size_t i, j;
	const json_t *s, *p;
	/* The sampled ports: the samples' when the document keeps them, else
	 * (nodedoc drops them for size) every port of an HCA whose counters
	 * were read, as the sampler takes them. */
	json_array_foreach(json_object_get(c, "samples"), i, s) {
		json_array_foreach(json_object_get(s, "ports"), j, p) {
			const char *dev = jstr(p, "dev");
			char *pn = jtext(json_object_get(p, "port"));
			add_owned(&pb, "counter", false, dev && pn ? xasprintf("%s/%s", dev, pn) : NULL,
				  strdup(""));
			free(pn);
		}
	}
	const json_t *h;
	if (!json_array_size(json_object_get(c, "samples")))
		json_array_foreach(json_object_get(json_object_get(doc, "links"), "hcas"), i, h) {
			const char *dev = jstr(h, "name");
			const json_t *skipped = json_object_get(h, "counters_skipped");
			if (!dev || (skipped && !json_is_null(skipped)))
				continue;
			json_array_foreach(json_object_get(h, "ports"), j, p) {
				char *pn = jtext(json_object_get(p, "port"));
				add_owned(&pb, "counter", false, pn ? xasprintf("%s/%s", dev, pn) : NULL,
					  strdup(""));
				free(pn);
			}
		}
	const json_t *g;
	json_array_foreach(json_object_get(json_object_get(c, "summary"), "bad_grew"), i, g) {
		const char *dev = jstr(g, "dev"), *name = jstr(g, "name"), *netdev = jstr(g, "netdev");
		const json_t *port = json_object_get(g, "port");
		if (!dev || !name)
			continue;
		char *key = json_is_integer(port)
			    ? xasprintf("%s/%lld", dev, (long long)json_integer_value(port))
			    : xasprintf("%s %s", dev, netdev ? netdev : "device");
		add_owned(&pb, "counter", false, key, strdup(name));
	}
	if (pb.err) {
		b->err = -1;
		nodefacts_free(&ports);
		return;
	}
	qsort(ports.v, ports.n, sizeof(*ports.v), fact_cmp);
	/* Per key: "" rows (the port was sampled) then its counter names. */
	for (i = 0; i < ports.n && !b->err;) {
		j = i;
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (!m) {
			b->err = -1;
			break;
		}
		int k = 0;
		for (; j < ports.n && strcmp(ports.v[j].key, ports.v[i].key) == 0; j++) {
			const char *v = ports.v[j].value;
			if (*v && (j == i || strcmp(v, ports.v[j - 1].value) != 0))
				fprintf(m, "%s%s", k++ ? ", " : "grows: ", v);
		}
		if (!k)
			fputs("quiet", m);
		if (fclose(m) != 0) {
			free(buf);
			b->err = -1;
			break;
		}
		add_owned(b, "counter", false, strdup(ports.v[i].key), buf);
		i = j;
	}
	nodefacts_free(&ports);
}

static void finding_facts(struct fb *b, const json_t *doc)
{
	size_t i;
	const json_t *f;
	json_array_foreach(json_object_get(doc, "findings"), i, f) {
		const char *id = jstr(f, "id"), *subj = jstr(f, "subject");
		if (id)
			add_json(b, "finding", false, json_object_get(f, "severity"), "%s %s", id,
				 subj ? subj : "node");
	}
}

/* Facts with one (section, key) twice (a finding raised twice for one
 * subject) become one, their values joined in order: keys stay unique,
 * so nodefacts_find() and a side-by-side diff are well defined. */
static int merge_dups(struct nodefacts *f)
{
	size_t o = 0;
	for (size_t i = 0; i < f->n; i++) {
		if (o && f->v[o - 1].section == f->v[i].section && strcmp(f->v[o - 1].key, f->v[i].key) == 0) {
			char *v = xasprintf("%s, %s", f->v[o - 1].value, f->v[i].value);
			if (!v)
				return -1;
			free(f->v[o - 1].value);
			f->v[o - 1].value = v;
			f->v[o - 1].identity |= f->v[i].identity;
			free(f->v[i].key);
			free(f->v[i].value);
			continue;
		}
		f->v[o++] = f->v[i];
	}
	f->n = o;
	return 0;
}

int nodefacts_from_doc(const json_t *doc, unsigned flags, struct nodefacts *out)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(doc))
		return 0;
	struct fb b = { .f = out, .flags = flags };
	node_facts(&b, doc);
	topology_facts(&b, doc);
	hca_facts(&b, doc);
	netdev_facts(&b, doc);
	nccl_facts(&b, doc);
	counter_facts(&b, doc);
	finding_facts(&b, doc);
	if (!b.err) {
		qsort(out->v, out->n, sizeof(*out->v), fact_cmp);
		b.err = merge_dups(out);
	}
	if (b.err) {
		nodefacts_free(out);
		return -1;
	}
	return 0;
}

void nodefacts_free(struct nodefacts *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].key);
		free(f->v[i].value);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}

const struct nodefact *nodefacts_find(const struct nodefacts *f, const char *section, const char *key)
{
	if (section_ix(section) < 0)
		return NULL;
	const struct nodefact want = { .section = section, .key = (char *)key };
	size_t lo = 0, hi = f->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct nodefact *m = &f->v[mid];
		int c = nodefacts_cmp(m, &want);
		if (c == 0)
			return m;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
