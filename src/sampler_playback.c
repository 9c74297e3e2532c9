/* sampler_playback.c - recorded counter samples (fabtop/samples.json, see
 * docs/capture-format.md) played back through the sampler's arithmetic.
 * The whole file is checked and turned into arrays at open, so a step
 * cannot fail and no JSON is kept. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "sampler_int.h"
#include "fabtop/pcie_watch.h"
#include "fabtop/util.h"

#define SAMPLES_NAME "fabtop/samples.json"   /* as messages name it */
#define SAMPLES_PATH "/" SAMPLES_NAME
#define CLASS_PREFIX "/sys/class/infiniband/"
#define ETHTOOL_PREFIX SAMPLER_ETHTOOL_KEY   /* "ethtool:" */
/* Samples x counters kept in memory: far above any capture fabtop writes. */
#define PB_MAX_CELLS (64u << 20)

enum cell { CELL_MISSING, CELL_NULL, CELL_VALUE };

struct pb_data {
	double *t;               /* per sample */
	json_t **pcie;           /* per sample: its "pcie" readings (pcie_watch_apply()), or NULL */
	size_t nsamples;         /* entries in t and pcie */
	uint64_t *val;           /* sample-major: val[k * nctrs + i] */
	unsigned char *cell;     /* enum cell, same layout */
	int nctrs;
};

struct ctr_key {
	char dev[64];            /* an RDMA device, or a netdev (port -1) */
	int port;                /* 0: device-level hw_counters; -1: a netdev's ethtool statistic */
	char dir[16];
	char name[64];
	const char *path;        /* borrowed from the JSON */
};

void sampler_playback_free(struct fab_sampler *s)
{
	struct pb_data *pb = s->pb_samples;
	if (!pb)
		return;
	for (size_t k = 0; pb->pcie && k < pb->nsamples; k++)
		json_decref(pb->pcie[k]);
	free(pb->pcie);
	free(pb->t);
	free(pb->val);
	free(pb->cell);
	free(pb);
	s->pb_samples = NULL;
}

/* "ethtool:IF:NAME": a netdev's ethtool statistic. A netdev name never
 * holds ':' (the kernel's dev_valid_name()); the statistic's name may. */
static bool parse_ethtool_key(const char *path, struct ctr_key *k)
{
	const char *p = path + strlen(ETHTOOL_PREFIX), *colon = strchr(p, ':');
	if (!colon || colon == p || colon - p >= (long)sizeof(k->dev) || !colon[1] ||
	    strlen(colon + 1) >= sizeof(k->name))
		return false;
	memset(k, 0, sizeof(*k));
	memcpy(k->dev, p, (size_t)(colon - p));
	k->port = -1;
	fab_strlcpy(k->dir, "ethtool", sizeof(k->dir));
	fab_strlcpy(k->name, colon + 1, sizeof(k->name));
	k->path = path;
	return !strchr(k->dev, '/');
}

/* "/sys/class/infiniband/DEV/hw_counters/NAME",
 * "/sys/class/infiniband/DEV/ports/N/{counters,hw_counters}/NAME", or an
 * ethtool statistic. */
static bool parse_key(const char *path, struct ctr_key *k)
{
	if (strncmp(path, ETHTOOL_PREFIX, strlen(ETHTOOL_PREFIX)) == 0)
		return parse_ethtool_key(path, k);
	const char *p = path + strlen(CLASS_PREFIX), *slash;
	if (strncmp(path, CLASS_PREFIX, strlen(CLASS_PREFIX)) != 0 || !(slash = strchr(p, '/')) ||
	    slash == p || slash - p >= (long)sizeof(k->dev))
		return false;
	memset(k, 0, sizeof(*k));
	memcpy(k->dev, p, (size_t)(slash - p));
	p = slash + 1;
	if (strncmp(p, "ports/", 6) == 0) {
		char *end;
		if (p[6] < '1' || p[6] > '9')
			return false;
		long n = strtol(p + 6, &end, 10);
		if (*end != '/' || n > 65535)
			return false;
		k->port = (int)n;
		p = end + 1;
		if (strncmp(p, "counters/", 9) == 0) {
			fab_strlcpy(k->dir, "counters", sizeof(k->dir));
			p += 9;
		}
	}
	if (!k->dir[0]) {
		if (strncmp(p, "hw_counters/", 12) != 0)
			return false;
		fab_strlcpy(k->dir, "hw_counters", sizeof(k->dir));
		p += 12;
	}
	/* lifespan is the hw_counters refresh period, a setting, not a counter. */
	if (!*p || strchr(p, '/') || strlen(p) >= sizeof(k->name) ||
	    (strcmp(k->dir, "hw_counters") == 0 && strcmp(p, "lifespan") == 0))
		return false;
	fab_strlcpy(k->name, p, sizeof(k->name));
	k->path = path;
	return true;
}

/* The order sampler_open() lists them in: device, port, counters before
 * hw_counters, names in natural order. */
static int key_cmp(const void *a, const void *b)
{
	const struct ctr_key *x = a, *y = b;
	int c = fab_natcmp(x->dev, y->dev);
	if (c)
		return c;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	if ((c = strcmp(x->dir, y->dir)))
		return c;
	return fab_natcmp(x->name, y->name);
}

/* null: 1; a counter value: 0 and *v; anything else: -1. */
static int cell_value(const json_t *j, uint64_t *v)
{
	if (json_is_null(j))
		return 1;
	if (json_is_integer(j) && json_integer_value(j) >= 0) {
		*v = (uint64_t)json_integer_value(j);
		return 0;
	}
	/* Above 2^63 a capture writes reals. */
	if (json_is_real(j)) {
		double d = json_real_value(j);
		if (isfinite(d) && d >= 0 && d < 18446744073709551616.0) {
			*v = (uint64_t)d;
			return 0;
		}
	}
	return -1;
}

static const char *err_at(char *err, size_t len, const char *what)
{
	snprintf(err, len, "%s: %s", SAMPLES_NAME, what);
	return err;
}

/* Checks the document and collects the distinct counters into keys. */
static int collect_keys(json_t *samples, json_t *index, struct ctr_key **keys, int *nkeys,
			char *err, size_t len)
{
	int cap = 0;
	size_t k;
	json_t *smp;
	json_array_foreach(samples, k, smp) {
		json_t *t = json_object_get(smp, "t"), *vals = json_object_get(smp, "values");
		char what[512];
		if (!json_is_object(smp) || !json_is_object(vals) ||
		    (t && !(json_is_number(t) && isfinite(json_number_value(t))))) {
			snprintf(what, sizeof(what),
				 "sample %zu is not {\"t\": seconds, \"values\": {path: value}}", k + 1);
			err_at(err, len, what);
			return -1;
		}
		const char *path;
		json_t *v;
		json_object_foreach(vals, path, v) {
			uint64_t x;
			struct ctr_key key;
			if (cell_value(v, &x) < 0) {
				snprintf(what, sizeof(what),
					 "sample %zu: %.300s is not a counter value (a non-negative "
					 "number or null)", k + 1, path);
				err_at(err, len, what);
				return -1;
			}
			/* Paths that are not counters are another fabtop's business. */
			if (json_object_get(index, path) || !parse_key(path, &key))
				continue;
			if (*nkeys == cap) {
				cap = cap ? cap * 2 : 256;
				struct ctr_key *nv = realloc(*keys, (size_t)cap * sizeof(*nv));
				if (!nv)
					goto oom;
				*keys = nv;
			}
			(*keys)[(*nkeys)++] = key;
			if (json_object_set_new(index, path, json_null()) < 0)
				goto oom;
		}
	}
	return 0;
oom:
	err_at(err, len, "out of memory");
	return -1;
}

static int build(struct fab_sampler *s, json_t *doc, char *err, size_t len)
{
	json_t *samples = json_object_get(doc, "samples"), *iv = json_object_get(doc, "interval");
	struct ctr_key *keys = NULL;
	int nkeys = 0, rc = -1;
	if (!json_is_object(doc) || !json_is_array(samples)) {
		err_at(err, len, "not {\"interval\": S, \"samples\": [...]}");
		return -1;
	}
	size_t ns = json_array_size(samples);
	if (ns == 0 || ns > INT_MAX) {
		err_at(err, len, ns ? "too many samples" : "no samples");
		return -1;
	}
	json_t *index = json_object();
	if (!index || collect_keys(samples, index, &keys, &nkeys, err, len) < 0)
		goto out;
	if (nkeys > 0 && ns > PB_MAX_CELLS / (size_t)nkeys) {
		err_at(err, len, "too many samples times counters to play back");
		goto out;
	}
	qsort(keys, (size_t)nkeys, sizeof(*keys), key_cmp);
	for (int i = 0; i < nkeys; i++) {
		bool new_port = i == 0 || strcmp(keys[i].dev, keys[i - 1].dev) != 0 ||
				keys[i].port != keys[i - 1].port;
		if ((new_port && (keys[i].port < 0 ? sampler_add_netdev(s, keys[i].dev)
					 : sampler_add_port(s, keys[i].dev, keys[i].port)) < 0) ||
		    sampler_add_ctr(s, keys[i].dir, keys[i].name) < 0 ||
		    json_object_set_new(index, keys[i].path, json_integer(i)) < 0) {
			err_at(err, len, "out of memory");
			goto out;
		}
	}
	struct pb_data *pb = calloc(1, sizeof(*pb));
	s->pb_samples = pb;
	size_t cells = ns * (size_t)nkeys;
	if (!pb || !(pb->t = calloc(ns, sizeof(*pb->t))) || !(pb->pcie = calloc(ns, sizeof(*pb->pcie))) ||
	    !(pb->val = calloc(cells ? cells : 1, sizeof(*pb->val))) ||
	    !(pb->cell = calloc(cells ? cells : 1, 1))) {
		err_at(err, len, "out of memory");
		goto out;
	}
	pb->nctrs = nkeys;
	pb->nsamples = ns;
	s->pb_interval = json_is_number(iv) && json_number_value(iv) > 0 ? json_number_value(iv) : 0;
	size_t k;
	json_t *smp;
	json_array_foreach(samples, k, smp) {
		json_t *t = json_object_get(smp, "t"), *v;
		const char *path;
		/* No time recorded: the nominal pace (1 s when that is unknown too). */
		pb->t[k] = t ? json_number_value(t)
			     : (k ? pb->t[k - 1] : 0) + (s->pb_interval > 0 ? s->pb_interval : 1.0);
		json_t *pc = json_object_get(smp, "pcie");
		if (json_is_object(pc))
			pb->pcie[k] = json_incref(pc);
		json_object_foreach(json_object_get(smp, "values"), path, v) {
			json_t *ix = json_object_get(index, path);
			if (!json_is_integer(ix))
				continue;
			size_t at = k * (size_t)nkeys + (size_t)json_integer_value(ix);
			pb->cell[at] = cell_value(v, &pb->val[at]) == 0 ? CELL_VALUE : CELL_NULL;
		}
	}
	if (s->pb_interval <= 0)
		s->pb_interval = ns > 1 && pb->t[1] > pb->t[0] ? pb->t[1] - pb->t[0] : 1.0;
	s->pb_count = (int)ns;
	if (nkeys == 0)
		snprintf(s->note, sizeof(s->note), "the samples hold no RDMA counters");
	rc = 0;
out:
	json_decref(index);
	free(keys);
	return rc;
}

int sampler_playback_open(struct fab_sampler *s, const struct fab_root *r, char *err, size_t len)
{
	json_error_t je;
	sampler_close(s);
	s->root = r;
	s->playback = true;
	if (!r) {
		snprintf(err, len, "sampler: no root to play back");
		return -1;
	}
	int e = root_recorded_errno(r, SAMPLES_PATH);
	if (e) {
		err_at(err, len, strerror(e));
		return -1;
	}
	json_t *doc = root_load_json(r, SAMPLES_PATH, &je);
	if (!doc) {
		if (je.line > 0)
			snprintf(err, len, "cannot load %s: %s (line %d, column %d)", SAMPLES_NAME,
				 je.text, je.line, je.column);
		else   /* not read at all (root_load_json): why */
			snprintf(err, len, "cannot load %s: %s", SAMPLES_NAME, je.text);
		return -1;
	}
	int rc = build(s, doc, err, len);
	json_decref(doc);
	if (rc < 0) {
		sampler_free_ports(s);
		sampler_playback_free(s);
	}
	return rc;
}

int sampler_playback_step(struct fab_sampler *s)
{
	struct pb_data *pb = s->pb_samples;
	if (!s->playback || !pb || s->pb_pos >= s->pb_count)
		return 1;
	int k = s->pb_pos++;
	double t = pb->t[k];
	const unsigned char *cell = pb->cell + (size_t)k * (size_t)pb->nctrs;
	const uint64_t *val = pb->val + (size_t)k * (size_t)pb->nctrs;
	sampler_step_begin(s, t);
	for (int i = 0; i < s->nports; i++) {
		struct fab_series *p = &s->ports[i];
		bool any = false;
		for (int j = p->first_ctr; j < p->first_ctr + p->nctr && !any; j++)
			any = cell[j] != CELL_MISSING;
		if (any != p->present && p->kind == SER_NETDEV)
			snprintf(s->note, sizeof(s->note), "netdev %s %s", p->dev,
				 any ? "came back" : "vanished");
		else if (any != p->present)
			snprintf(s->note, sizeof(s->note), "%s port %d %s", p->dev, p->port,
				 any ? "came back" : "vanished");
		p->present = any;
		/* A counter missing from a sample was not there to read: gone. */
		for (int j = p->first_ctr; j < p->first_ctr + p->nctr; j++)
			sampler_take(s, &s->ctrs[j],
				     cell[j] == CELL_VALUE ? READ_OK :
				     cell[j] == CELL_NULL ? READ_BAD : READ_GONE, val[j], false, t);
	}
	sampler_step_end(s);
	if (s->pcie && pb->pcie[k])
		pcie_watch_apply(s->pcie, pb->pcie[k], t);
	return 0;
}

double sampler_playback_gap(const struct fab_sampler *s)
{
	const struct pb_data *pb = s->pb_samples;
	if (!s->playback || !pb || s->pb_pos >= s->pb_count)
		return -1;
	if (s->pb_pos == 0)
		return 0;
	double g = pb->t[s->pb_pos] - pb->t[s->pb_pos - 1];
	return g > 0 ? g : s->pb_interval;
}

int sampler_playback_seek(struct fab_sampler *s, int pos)
{
	if (!s->playback || !s->pb_samples || pos < 1 || pos > s->pb_count)
		return -1;
	/* Deltas and histories are made by stepping: backwards is a replay. */
	if (pos < s->pb_pos) {
		sampler_run_reset(s);
		s->pb_pos = 0;
	}
	while (s->pb_pos < pos)
		if (sampler_playback_step(s) != 0)
			return -1;
	return 0;
}

int sampler_playback_times(const struct fab_sampler *s, double *at, double *total)
{
	const struct pb_data *pb = s->pb_samples;
	if (!s->playback || !pb || s->pb_pos < 1)
		return -1;
	*at = pb->t[s->pb_pos - 1] - pb->t[0];
	*total = pb->t[pb->nsamples - 1] - pb->t[0];
	return 0;
}
