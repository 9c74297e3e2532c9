/* capture_samples.c - counter samples over time (fabtop/samples.json). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "capture_int.h"
#include "fabtop/collect.h"
#include "fabtop/counters.h"
#include "fabtop/ethtool.h"
#include "fabtop/hazard.h"
#include "fabtop/model.h"
#include "fabtop/pcie_watch.h"
#include "fabtop/sanitize.h"
#include "fabtop/sampler.h"
#include "fabtop/util.h"
#include <math.h>

/* ---- counters over time ---- */

struct counter_set {
	char **paths;
	int n, cap;
};

static void counters_add_dir(struct cap *c, struct counter_set *cs, const char *dir)
{
	char **names;
	int n = root_list(&c->src, dir, &names);
	for (int i = 0; i < n; i++) {
		if (cs->n == cs->cap) {
			int ncap = cs->cap ? cs->cap * 2 : 128;
			char **v = realloc(cs->paths, (size_t)ncap * sizeof(*v));
			if (!v)
				break;
			cs->paths = v;
			cs->cap = ncap;
		}
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		if ((cs->paths[cs->n] = strdup(p)))
			cs->n++;
	}
	if (n > 0)
		root_free_list(names, n);
}

static void counters_list(struct cap *c, struct counter_set *cs)
{
	char **devs;
	int nd = root_list(&c->src, "/sys/class/infiniband", &devs);
	for (int i = 0; i < nd; i++) {
		char dir[PATH_MAX];
		/* Never sampled where reading hurts (hazard.h); capture_sysfs.c
		 * already logged why and recorded it in fabtop/hazards.json. */
		if (hazard_counters(&c->src, devs[i], NULL, 0) == HAZARD_SKIP)
			continue;
		snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/hw_counters", devs[i]);
		counters_add_dir(c, cs, dir);
		char **ports;
		snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports", devs[i]);
		int np = root_list(&c->src, dir, &ports);
		for (int j = 0; j < np; j++) {
			char pd[PATH_MAX + 300];
			snprintf(pd, sizeof(pd), "%s/%s/counters", dir, ports[j]);
			counters_add_dir(c, cs, pd);
			snprintf(pd, sizeof(pd), "%s/%s/hw_counters", dir, ports[j]);
			counters_add_dir(c, cs, pd);
		}
		if (np > 0)
			root_free_list(ports, np);
	}
	if (nd > 0)
		root_free_list(devs, nd);
}

/* Parsed as every counter reader parses it (counter_parse_value): what
 * the sampler would refuse live is recorded as null. */
static json_t *counter_value(struct cap *c, const char *path)
{
	char buf[128];
	uint64_t v;
	ssize_t n = cap_src_read(c, path, buf, sizeof(buf));
	if (n <= 0 || n >= (ssize_t)sizeof(buf) || counter_parse_value(buf, (size_t)n, &v) != 0)
		return json_null();
	/* JSON integers here are signed 64-bit: the top half goes as a real. */
	return v <= (uint64_t)LLONG_MAX ? json_integer((json_int_t)v) : json_real((double)v);
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

/* ---- the ports' netdevs: their ethtool statistics ---- */

struct netdev_stats {
	struct fab_ethtool_set set;
	uint64_t *vals;
};

struct netdev_set {
	struct fab_ethtool *et;
	struct netdev_stats *d;
	int n;
};

/* The netdevs of the RDMA ports, as the model names them (one truth: the
 * collectors' port_netdev), listed once. Live only: a capture of a capture
 * has no kernel to ask. */
static void netdevs_list(struct cap *c, const struct fab_model *m, struct netdev_set *ns)
{
	char err[256] = "";
	if (!c->src.live)
		return;
	for (int i = 0; i < m->nnics; i++)
		for (int p = 0; p < m->nics[i].nports && p < FAB_MAX_PORTS; p++) {
			const char *ifname = m->nics[i].ports[p].netdev;
			const struct fab_netdev *nd;
			char why[200];
			/* Only the port's own netdev, here, where reading does no harm. */
			bool dup = !ifname[0];
			for (int k = 0; k < ns->n && !dup; k++)
				dup = strcmp(ns->d[k].set.ifname, ifname) == 0;
			if (dup)
				continue;
			if (port_netdev_readable(m, &m->nics[i], &m->nics[i].ports[p], &nd, why,
						 sizeof(why)) != FAB_YES) {
				fab_fprintf(c->log, "fabtop: no ethtool statistics for %s: %s\n", ifname, why);
				continue;
			}
			if (!ns->et && ethtool_open(&ns->et, -1, err, sizeof(err)) != 0) {
				fab_fprintf(c->log, "fabtop: no ethtool statistics: %s\n", err);
				return;
			}
			struct netdev_stats *v = realloc(ns->d, (size_t)(ns->n + 1) * sizeof(*v));
			if (!v)
				break;
			ns->d = v;
			struct netdev_stats *d = &ns->d[ns->n];
			memset(d, 0, sizeof(*d));
			if (ethtool_list(ns->et, ifname, &d->set, err, sizeof(err)) != 0) {
				fab_fprintf(c->log, "fabtop: no ethtool statistics for %s: %s\n", ifname, err);
				ethtool_set_free(&d->set);
				continue;
			}
			if (!(d->vals = calloc(d->set.n, sizeof(*d->vals)))) {
				ethtool_set_free(&d->set);
				continue;
			}
			ns->n++;
		}
}

/* A driver's statistic name as a JSON key: its bytes outside printable
 * ASCII as \xNN (a JSON key must be UTF-8, and a name is 32 raw bytes:
 * dropping it would lose the statistic). */
static void key_name(char *out, size_t len, const char *name)
{
	size_t o = 0;
	out[0] = '\0';
	for (const unsigned char *p = (const unsigned char *)name; *p && o + 5 < len; p++)
		o += (size_t)snprintf(out + o, len - o, *p > 0x20 && *p < 0x7f && *p != '\\' ? "%c" :
				      "\\x%02x", *p);
}

/* One reading of every netdev into vals, keyed SAMPLER_ETHTOOL_KEY IF:NAME;
 * a netdev that cannot be read this time records nothing (playback: gone). */
static void netdevs_sample(struct cap *c, struct netdev_set *ns, json_t *vals)
{
	char key[256], name[4 * ETHTOOL_NAME_LEN + 1], err[160];
	for (int k = 0; k < ns->n; k++) {
		struct netdev_stats *d = &ns->d[k];
		int rc = ethtool_read(ns->et, &d->set, d->vals, d->set.n, err, sizeof(err));
		if (rc == ETHTOOL_ST_RELIST) {
			/* Listed again: the same names keep their keys. */
			char ifname[sizeof(d->set.ifname)];
			fab_strlcpy(ifname, d->set.ifname, sizeof(ifname));
			free(d->vals);
			d->vals = NULL;
			if (ethtool_list(ns->et, ifname, &d->set, err, sizeof(err)) != 0 ||
			    !(d->vals = calloc(d->set.n, sizeof(*d->vals)))) {
				ethtool_set_free(&d->set);
				fab_strlcpy(d->set.ifname, ifname, sizeof(d->set.ifname));
				continue;
			}
			rc = ethtool_read(ns->et, &d->set, d->vals, d->set.n, err, sizeof(err));
		}
		if (rc != ETHTOOL_ST_OK)
			continue;
		for (uint32_t i = 0; i < d->set.n; i++) {
			key_name(name, sizeof(name), d->set.names[i]);
			snprintf(key, sizeof(key), SAMPLER_ETHTOOL_KEY "%s:%s", d->set.ifname, name);
			if (json_object_set_new(vals, key, d->vals[i] <= (uint64_t)LLONG_MAX ?
						json_integer((json_int_t)d->vals[i]) :
						json_real((double)d->vals[i])) != 0)
				fab_fprintf(c->log, "fabtop: %s's statistic %s not recorded\n",
					    d->set.ifname, name);
		}
	}
}

static void netdevs_free(struct netdev_set *ns)
{
	for (int k = 0; k < ns->n; k++) {
		ethtool_set_free(&ns->d[k].set);
		free(ns->d[k].vals);
	}
	free(ns->d);
	if (ns->et)
		ethtool_close(ns->et);
}

void cap_take_samples(struct cap *c, int count, double interval)
{
	struct counter_set cs = { 0 };
	struct netdev_set ns = { 0 };
	struct pcie_watch pw = { 0 };
	struct fab_model m;
	char err[256] = "";
	bool pcie = false;
	counters_list(c, &cs);
	/* The node's model, as the sampler sees it: the ports' netdevs, the
	 * PCI functions of the NICs, their switches and the GPUs. Live only:
	 * a capture of a capture has no kernel to ask. */
	model_init(&m);
	if (c->src.live) {
		collect_pci_sysfs(&c->src, &m);
		collect_net(&c->src, &m);
		collect_rdma(&c->src, &m);
		collect_gpus(&c->src, &m);
		netdevs_list(c, &m, &ns);
		pcie = pcie_watch_open(&pw, &c->src, &m, err, sizeof(err)) == 0;
		if (!pcie)
			fab_fprintf(c->log, "fabtop: no PCIe readings in the samples: %s\n", err);
	}
	fprintf(c->log, "fabtop: sampling %d counter(s) %d time(s), %.3g s apart\n",
		cs.n, count, interval);
	json_t *root = json_object(), *arr = json_array();
	json_object_set_new(root, "interval", json_real(interval));
	json_object_set_new(root, "samples", arr);
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (int k = 0; k < count && !cap_stopped(c); k++) {
		if (k) {
			/* Absolute deadlines: the time spent reading does not add up. */
			ts_add(&deadline, interval);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR &&
			       !cap_signal_seen)
				;
			if (cap_stopped(c))
				break;
		}
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		json_t *s = json_object(), *vals = json_object();
		json_object_set_new(s, "t", json_real((double)now.tv_sec + now.tv_nsec / 1e9));
		for (int i = 0; i < cs.n; i++)
			json_object_set_new(vals, cs.paths[i], counter_value(c, cs.paths[i]));
		netdevs_sample(c, &ns, vals);
		json_object_set_new(s, "values", vals);
		if (pcie) {
			/* The same reads a live step makes, as pcie_watch_apply() takes them. */
			struct timespec mono;
			json_t *rec = NULL;
			clock_gettime(CLOCK_MONOTONIC, &mono);
			pcie_watch_read(&pw, (double)mono.tv_sec + mono.tv_nsec / 1e9, &rec);
			if (rec)
				json_object_set_new(s, "pcie", rec);
		}
		json_array_append_new(arr, s);
	}
	if (!c->err[0])
		cap_out_json(c, "/fabtop/samples.json", root);
	json_decref(root);
	for (int i = 0; i < cs.n; i++)
		free(cs.paths[i]);
	free(cs.paths);
	netdevs_free(&ns);
	if (pcie)
		pcie_watch_close(&pw);
	model_free(&m);
}

