/* sampler.c - live counters (sampler.h): the rate arithmetic, the port and
 * counter arrays, and live reads that keep every counter file open and
 * pread() it each step. Playback of recorded samples is sampler_playback.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sampler_int.h"
#include "fabtop/ctr_limits.h"
#include "fabtop/ethtool.h"
#include "fabtop/hazard.h"
#include "fabtop/i18n.h"
#include "fabtop/pcie_watch.h"
#include "fabtop/model.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"

#define CLASS_DIR "/sys/class/infiniband"

int counter_badness(const struct fab_ctr *c)
{
	int b = 10;
	if (c->def) {
		switch (c->def->cls) {
		case CC_RETRY:      b = 40; break;
		case CC_CONGESTION: b = 30; break;
		case CC_ERROR:      b = 20; break;
		default:            b = 0;  break;
		}
	}
	return b + (c->grew ? 5 : 0);
}

int sampler_bad_grew(const struct fab_sampler *s)
{
	int n = 0;
	for (int i = 0; i < s->nports; i++)
		n += s->ports[i].bad_grew;
	return n;
}

int sampler_find(const struct fab_sampler *s, const char *dev, int port)
{
	for (int i = 0; i < s->nports; i++)
		if (s->ports[i].port == port && strcmp(s->ports[i].dev, dev) == 0)
			return i;
	return -1;
}

int sampler_grown(const struct fab_sampler *s, int i, char *buf, size_t len)
{
	int n = 0;
	size_t o = 0;
	buf[0] = '\0';
	if (i < 0 || i >= s->nports)
		return 0;
	const struct fab_series *p = &s->ports[i];
	for (int k = p->first_ctr; k < p->first_ctr + p->nctr; k++) {
		const struct fab_ctr *c = &s->ctrs[k];
		if (!c->def || !c->def->bad_when_grows || !c->since_baseline)
			continue;
		if (o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s +%llu", n ? ", " : "", c->name,
					      (unsigned long long)c->since_baseline);
		n++;
	}
	return n;
}

float sampler_hist(const struct fab_sampler *s, const float *ring, int i)
{
	if (!ring || i < 0 || i >= s->hist_len)
		return 0.0f;
	return ring[(s->hist_pos + i) % SAMPLER_HISTORY];
}

/* ---- ports and counters ---- */

struct sampler_priv {
	char (*devs)[64];        /* every device seen, strcmp order: the relist's index */
	int ndevs, devcap;
	int portcap, ctrcap;
	bool nofile_raised;
	long nofile;             /* RLIMIT_NOFILE's soft limit, once read; 0 not yet */
	long fd_budget;          /* counter fds at or past this number are not kept */
	struct fab_ethtool *et;  /* live: the ethtool socket, opened with the first netdev */
	bool et_tried;
	char et_err[128];        /* why it could not be opened */
	/* the step in progress */
	int slot;                /* history slot it writes, -1 for none */
	unsigned char *traffic;  /* per port: 1 tx rate seen, 2 rx rate seen */
	const struct fab_counter_def *xd, *rd, *xp, *rp;
	/* Ports left out because a folder could not be listed (not ENOENT:
	 * EMFILE, EACCES): a device's ports/, or both counter folders of a
	 * port. Not sampled, so never healthy (sampler_coverage()). */
	int unlisted;
	int unlisted_err;
};

static struct sampler_priv *priv(struct fab_sampler *s)
{
	if (!s->priv)
		s->priv = calloc(1, sizeof(struct sampler_priv));
	return s->priv;
}

static int dev_find(const struct sampler_priv *pv, const char *dev, bool *found)
{
	int lo = 0, hi = pv->ndevs;
	while (lo < hi) {
		int mid = (lo + hi) / 2, c = strcmp(pv->devs[mid], dev);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

static bool dev_known(const struct fab_sampler *s, const char *dev)
{
	bool found = false;
	if (s->priv)
		dev_find(s->priv, dev, &found);
	return found;
}

static int dev_remember(struct fab_sampler *s, const char *dev)
{
	struct sampler_priv *pv = priv(s);
	bool found;
	if (!pv)
		return -1;
	int at = dev_find(pv, dev, &found);
	if (found)
		return 0;
	if (pv->ndevs == pv->devcap) {
		int cap = pv->devcap ? pv->devcap * 2 : 16;
		char (*v)[64] = realloc(pv->devs, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		pv->devs = v;
		pv->devcap = cap;
	}
	memmove(pv->devs[at + 1], pv->devs[at], (size_t)(pv->ndevs - at) * sizeof(*pv->devs));
	fab_strlcpy(pv->devs[at], dev, sizeof(pv->devs[at]));
	pv->ndevs++;
	return 0;
}

/* The model's line rate of a port, 0 when unknown (no model, no such
 * port, rate unread, or the device-level hw_counters). */
static double line_of(const struct fab_model *m, const char *dev, int port)
{
	const struct fab_port *p = m && port > 0 ? model_find_port(m, dev, port, NULL) : NULL;
	return p && p->rate_gbps.ok ? p->rate_gbps.v : 0;
}

/* A new series at the end of s->ports, zeroed but for what every series
 * starts with (present, no counters yet, never moved); NULL without memory. */
static struct fab_series *series_new(struct fab_sampler *s, const char *name, enum series_kind kind,
				     int port)
{
	struct sampler_priv *pv = priv(s);
	if (!pv)
		return NULL;
	if (s->nports == pv->portcap) {
		int cap = pv->portcap ? pv->portcap * 2 : 16;
		struct fab_series *v = realloc(s->ports, (size_t)cap * sizeof(*v));
		if (!v)
			return NULL;
		s->ports = v;
		unsigned char *t = realloc(pv->traffic, (size_t)cap);
		if (!t)
			return NULL;
		pv->traffic = t;
		pv->portcap = cap;
	}
	struct fab_series *p = &s->ports[s->nports];
	memset(p, 0, sizeof(*p));
	pv->traffic[s->nports] = 0;
	fab_strlcpy(p->dev, name, sizeof(p->dev));
	p->port = port;
	p->kind = kind;
	p->owner = -1;
	p->present = true;
	p->first_ctr = s->nctrs;
	p->t_moved = -1;
	return p;
}

int sampler_add_port(struct fab_sampler *s, const char *dev, int port)
{
	if (dev_remember(s, dev) < 0)
		return -1;
	struct fab_series *p = series_new(s, dev, SER_RDMA, port);
	if (!p)
		return -1;
	if (port > 0) {
		snprintf(p->dirpath, sizeof(p->dirpath), CLASS_DIR "/%s/ports/%d", dev, port);
	} else {
		snprintf(p->dirpath, sizeof(p->dirpath), CLASS_DIR "/%s", dev);
	}
	p->line_gbps = line_of(s->model, dev, port);
	return s->nports++;
}

int sampler_add_netdev(struct fab_sampler *s, const char *ifname)
{
	struct fab_series *p = series_new(s, ifname, SER_NETDEV, -1);
	if (!p)
		return -1;
	snprintf(p->dirpath, sizeof(p->dirpath), "/sys/class/net/%s", ifname);
	return s->nports++;
}

/* The newest series of a netdev (a re-listed one replaces the old). */
static int netdev_find(const struct fab_sampler *s, const char *ifname)
{
	for (int i = s->nports - 1; i >= 0; i--)
		if (s->ports[i].kind == SER_NETDEV && strcmp(s->ports[i].dev, ifname) == 0)
			return i;
	return -1;
}

static int ethtool_of(struct fab_sampler *s, char *why, size_t len);
static int add_live_netdev(struct fab_sampler *s, const char *ifname);
static void netdev_free(struct fab_series *p);

/* PCIe over time: the functions of the model's NICs, their switches and
 * GPUs; live (and directory roots) read their files each step, playback
 * applies the samples' recorded texts. Opened once. */
static void open_pcie(struct fab_sampler *s, const struct fab_model *m)
{
	char err[160];
	if (s->pcie || !m)
		return;
	if (!(s->pcie = calloc(1, sizeof(*s->pcie))))
		return;
	if (pcie_watch_open(s->pcie, s->playback ? NULL : s->root, m, err, sizeof(err)) != 0) {
		pcie_watch_close(s->pcie);
		free(s->pcie);
		s->pcie = NULL;
	}
}

void sampler_use_model(struct fab_sampler *s, const struct fab_model *m)
{
	s->model = m;
	open_pcie(s, m);
	int n = s->nports;   /* netdevs added below need no line rate */
	for (int i = 0; i < n; i++) {
		struct fab_series *p = &s->ports[i];
		p->line_gbps = line_of(m, p->dev, p->port);
		const struct fab_nic *mn = NULL;
		const struct fab_port *mp = m && p->kind == SER_RDMA && p->port > 0 ?
			model_find_port(m, p->dev, p->port, &mn) : NULL;
		if (!mp || !mp->netdev[0])
			continue;
		int k = netdev_find(s, mp->netdev);
		if (k < 0 && s->root && s->root->live && !s->playback) {
			/* Live: list the netdev's statistics the first time its port
			 * names it, when they are this port's to read here; else an
			 * empty series says why (a pod's namespace, a hazard). */
			const struct fab_netdev *nd;
			char why[sizeof(s->ports->why)];
			if (port_netdev_readable(m, mn, mp, &nd, why, sizeof(why)) == FAB_YES) {
				k = add_live_netdev(s, mp->netdev);
			} else if ((k = sampler_add_netdev(s, mp->netdev)) >= 0) {
				s->ports[k].present = false;
				fab_strlcpy(s->ports[k].why, why, sizeof(s->ports[k].why));
			}
		}
		if (k >= 0)
			s->ports[k].owner = i;
	}
}

int sampler_netdev_of(const struct fab_sampler *s, int i)
{
	int best = -1;
	for (int k = 0; k < s->nports; k++)
		if (s->ports[k].kind == SER_NETDEV && s->ports[k].owner == i)
			best = k;
	return best;
}

const char *sampler_series_dev(const struct fab_sampler *s, int i)
{
	if (i < 0 || i >= s->nports)
		return NULL;
	const struct fab_series *p = &s->ports[i];
	if (p->kind == SER_RDMA)
		return p->dev;
	return p->owner >= 0 && p->owner < s->nports ? s->ports[p->owner].dev : NULL;
}

const char *sampler_series_label(const struct fab_series *p, char *buf, size_t len)
{
	if (p->kind == SER_NETDEV) {
		snprintf(buf, len, "%s", p->dev);
		return buf;
	}
	return fab_subject(p->dev, p->port, buf, len);
}

const struct fab_ctr *sampler_ctr(const struct fab_sampler *s, int i, const char *dir,
				  const char *name)
{
	if (i < 0 || i >= s->nports)
		return NULL;
	const struct fab_series *p = &s->ports[i];
	for (int k = p->first_ctr; k < p->first_ctr + p->nctr && k < s->nctrs; k++)
		if (strcmp(s->ctrs[k].name, name) == 0 && strcmp(s->ctrs[k].dir, dir) == 0)
			return &s->ctrs[k];
	return NULL;
}

int sampler_add_ctr(struct fab_sampler *s, const char *dir, const char *name)
{
	struct sampler_priv *pv = priv(s);
	if (!pv || s->nports == 0)
		return -1;
	if (s->nctrs == pv->ctrcap) {
		int cap = pv->ctrcap ? pv->ctrcap * 2 : 256;
		struct fab_ctr *v = realloc(s->ctrs, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		s->ctrs = v;
		pv->ctrcap = cap;
	}
	struct fab_ctr *c = &s->ctrs[s->nctrs];
	memset(c, 0, sizeof(*c));
	fab_strlcpy(c->name, name, sizeof(c->name));
	fab_strlcpy(c->dir, dir, sizeof(c->dir));
	c->def = counter_def(dir, name);
	c->port = s->nports - 1;
	c->fd = -1;
	c->last_grew = -1;
	s->ports[c->port].nctr++;
	return s->nctrs++;
}

static void port_close_fds(struct fab_sampler *s, struct fab_series *p)
{
	for (int k = 0; k < p->nctr; k++) {
		struct fab_ctr *c = &s->ctrs[p->first_ctr + k];
		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
	}
}

void sampler_free_ports(struct fab_sampler *s)
{
	for (int i = 0; i < s->nports; i++) {
		port_close_fds(s, &s->ports[i]);
		netdev_free(&s->ports[i]);
	}
	free(s->ports);
	free(s->ctrs);
	if (s->priv) {
		struct sampler_priv *pv = s->priv;
		free(pv->devs);
		free(pv->traffic);
		if (pv->et)
			ethtool_close(pv->et);
	}
	free(s->priv);
	s->ports = NULL;
	s->ctrs = NULL;
	s->priv = NULL;
	s->nports = s->nctrs = 0;
}

/* ---- one step ---- */

void sampler_step_begin(struct fab_sampler *s, double t)
{
	struct sampler_priv *pv = priv(s);
	s->tick++;
	s->dt = s->tick > 1 ? t - s->t_last : 0;
	s->t_last = t;
	if (s->tick == 1)
		s->t_baseline = t;
	if (!pv)
		return;
	pv->slot = -1;
	if (s->tick > 1) {
		if (s->hist_len < SAMPLER_HISTORY) {
			pv->slot = (s->hist_pos + s->hist_len++) % SAMPLER_HISTORY;
		} else {
			pv->slot = s->hist_pos;
			s->hist_pos = (s->hist_pos + 1) % SAMPLER_HISTORY;
		}
	}
	pv->xd = counter_def("counters", "port_xmit_data");
	pv->rd = counter_def("counters", "port_rcv_data");
	pv->xp = counter_def("counters", "port_xmit_packets");
	pv->rp = counter_def("counters", "port_rcv_packets");
	for (int i = 0; i < s->nports; i++) {
		struct fab_series *p = &s->ports[i];
		p->bad_grew = 0;
		p->tx_gbps = p->rx_gbps = p->tx_pps = p->rx_pps = 0;
		pv->traffic[i] = 0;
	}
}

/* The step's history slot and the port's sums, while the counter is in
 * cache: a second pass over thousands of counters costs more than the
 * arithmetic. */
static void account(struct fab_sampler *s, struct fab_ctr *c)
{
	struct sampler_priv *pv = s->priv;
	/* A gauge's history is its level; a counter's, its rate. */
	double r = c->def && c->def->gauge ? (c->valid ? (double)c->value : 0) :
		   c->last.has_rate ? c->last.rate : 0;
	if (!pv)
		return;
	if (pv->slot >= 0)
		c->hist[pv->slot] = (float)r;
	const struct fab_counter_def *d = c->def;
	if (!d)
		return;
	struct fab_series *p = &s->ports[c->port];
	if (c->grew && d->bad_when_grows)
		p->bad_grew++;
	if (d->cls > CC_PACKETS)
		return;
	if (d == pv->xd) {
		p->tx_gbps = r * 8 / 1e9;
		pv->traffic[c->port] |= c->last.has_rate ? 1 : 0;
	} else if (d == pv->rd) {
		p->rx_gbps = r * 8 / 1e9;
		pv->traffic[c->port] |= c->last.has_rate ? 2 : 0;
	} else if (d == pv->xp) {
		p->tx_pps = r;
	} else if (d == pv->rp) {
		p->rx_pps = r;
	}
}

void sampler_take(struct fab_sampler *s, struct fab_ctr *c, enum reading r,
		  uint64_t v, bool fresh, double t)
{
	c->grew = false;
	const struct fab_counter_def *d = c->def;
	if (r == READ_HELD) {
		/* The kernel would have answered its cached value: no step. The
		 * history repeats the slot before rather than dipping to 0. */
		struct sampler_priv *pv = s->priv;
		c->last = (struct ctr_step){ .flags = CTR_HELD };
		if (pv && pv->slot >= 0)
			c->hist[pv->slot] = s->hist_len > 1 ?
				c->hist[(pv->slot + SAMPLER_HISTORY - 1) % SAMPLER_HISTORY] : 0.0f;
		return;
	}
	/* A value the counter cannot hold, however it was read. */
	if (r == READ_OK && !counter_value_plausible(d, v))
		r = READ_IMPLAUSIBLE;
	/* What the run's totals cannot vouch for (lossless.h, the limits). */
	if (r == READ_BAD || r == READ_GONE || r == READ_IMPLAUSIBLE)
		c->bad_steps++;
	if (r == READ_OK && d && d->gauge) {
		/* A level (counters.h): the reading is the value; no step. */
		c->value = v;
		c->valid = true;
		c->t_value = t;
		c->last = (struct ctr_step){ .flags = fresh ? CTR_FIRST : 0 };
		account(s, c);
		return;
	}
	if (r != READ_OK) {
		c->last = (struct ctr_step){ .flags = r == READ_GONE ? CTR_GONE :
					     r == READ_IMPLAUSIBLE ? CTR_IMPLAUSIBLE : CTR_UNREADABLE };
		/* NAN: whatever comes next starts a new series, not a rate across the
		 * gap. An unreadable or implausible reading keeps the last good value,
		 * and the next good one makes a rate from it. */
		if (r == READ_GONE || fresh)
			c->t_value = NAN;
	} else if (fresh || !c->valid || isnan(c->t_value)) {
		if (!c->valid)
			c->baseline = v;
		c->value = v;
		c->valid = true;
		c->t_value = t;
		c->last = (struct ctr_step){ .flags = CTR_FIRST };
	} else {
		/* Unknown counters: 64-bit, so a fall is a reset and never a fake wrap. */
		struct ctr_step st = counter_step(c->value, v, d ? d->width : 64,
						  d && d->saturates, counter_scale(d),
						  t - c->t_value);
		c->value = v;
		c->t_value = t;
		if (counter_step_implausible(d, &st, s->ports[c->port].line_gbps)) {
			/* More than the port can carry: a jump, not traffic. The new
			 * value is the base of the next step; this one counts for nothing. */
			st.flags |= CTR_IMPLAUSIBLE;
			st.has_rate = false;
			st.rate = 0;
		}
		c->last = st;
		if (!(st.flags & CTR_IMPLAUSIBLE))
			c->since_baseline += st.delta;
		if (st.delta > 0 && !(st.flags & CTR_IMPLAUSIBLE)) {
			c->grew = true;
			c->last_grew = s->tick;
		}
	}
	account(s, c);
}

void sampler_step_end(struct fab_sampler *s)
{
	struct sampler_priv *pv = s->priv;
	if (!pv)
		return;
	for (int i = 0; i < s->nports; i++) {
		struct fab_series *p = &s->ports[i];
		p->has_rates = pv->traffic[i] == 3;
		if (p->has_rates && p->present) {
			double cur = p->tx_gbps + p->rx_gbps;
			if (cur > p->peak_gbps)
				p->peak_gbps = cur;
			if (cur >= SAMPLER_MOVING_GBPS && cur >= SAMPLER_STOP_FRACTION * p->peak_gbps)
				p->t_moved = s->t_last;
		}
		if (pv->slot >= 0) {
			p->tx_hist[pv->slot] = (float)p->tx_gbps;
			p->rx_hist[pv->slot] = (float)p->rx_gbps;
		}
	}
	if (!s->limits && (s->limits = malloc(sizeof(*s->limits))))
		ctr_limits_init(s->limits);
	if (s->limits)
		ctr_limits_step(s->limits, s);
}

void sampler_run_reset(struct fab_sampler *s)
{
	s->tick = 0;
	s->hist_len = s->hist_pos = 0;
	s->t_last = s->dt = s->t_baseline = 0;
	s->note[0] = '\0';
	for (int i = 0; i < s->nctrs; i++) {
		struct fab_ctr *c = &s->ctrs[i];
		c->value = c->baseline = c->since_baseline = 0;
		c->t_value = 0;
		c->valid = c->grew = false;
		c->bad_steps = 0;
		c->unread_steps = 0;
		c->last = (struct ctr_step){ 0 };
		c->last_grew = -1;
		memset(c->hist, 0, sizeof(c->hist));
	}
	for (int i = 0; i < s->nports; i++) {
		struct fab_series *p = &s->ports[i];
		p->present = true;
		p->has_rates = false;
		p->tx_gbps = p->rx_gbps = p->tx_pps = p->rx_pps = 0;
		memset(p->tx_hist, 0, sizeof(p->tx_hist));
		memset(p->rx_hist, 0, sizeof(p->rx_hist));
		p->bad_grew = 0;
		p->peak_gbps = 0;
		p->t_moved = -1;
	}
	/* The judgements over time start again with the run. */
	if (s->limits) {
		ctr_limits_free(s->limits);
		free(s->limits);
		s->limits = NULL;
	}
	if (s->pcie) {
		pcie_watch_close(s->pcie);
		free(s->pcie);
		s->pcie = NULL;
		open_pcie(s, s->model);
	}
}

void sampler_baseline(struct fab_sampler *s)
{
	s->t_baseline = s->t_last;
	if (s->limits)
		ctr_limits_baseline(s->limits, s);
	if (s->pcie)
		pcie_watch_baseline(s->pcie);
	for (int i = 0; i < s->nctrs; i++) {
		s->ctrs[i].baseline = s->ctrs[i].value;
		s->ctrs[i].since_baseline = 0;
		s->ctrs[i].bad_steps = 0;
		s->ctrs[i].unread_steps = 0;
	}
	for (int i = 0; i < s->nports; i++) {
		s->ports[i].peak_gbps = 0;
		s->ports[i].t_moved = -1;
	}
}

unsigned ctr_trouble(const struct fab_ctr *c)
{
	return c->grew ? counter_trouble(c->def) : 0;
}

unsigned counter_trouble(const struct fab_counter_def *d)
{
	if (!d || !d->bad_when_grows)
		return 0;
	switch (d->cls) {
	case CC_RETRY:      return PT_RETRIES;
	case CC_CONGESTION: return PT_CONGESTED;
	case CC_ERROR:      return PT_ERRORS;
	default:            return 0;
	}
}

static unsigned range_trouble(const struct fab_sampler *s, const struct fab_series *p)
{
	unsigned bits = 0;
	for (int i = p->first_ctr; i < p->first_ctr + p->nctr && i < s->nctrs; i++)
		bits |= ctr_trouble(&s->ctrs[i]) |
			(s->ctrs[i].last.flags & CTR_IMPLAUSIBLE ? PT_IMPLAUSIBLE : 0);
	return bits;
}

unsigned sampler_port_state(const struct fab_sampler *s, int i)
{
	const struct fab_series *p = &s->ports[i];
	unsigned bits = range_trouble(s, p);
	/* The device-level hw_counters and the port's netdev speak for it too. */
	for (int k = 0; k < s->nports && p->port > 0; k++)
		if ((s->ports[k].kind == SER_RDMA && s->ports[k].port == 0 &&
		     strcmp(s->ports[k].dev, p->dev) == 0) ||
		    (s->ports[k].kind == SER_NETDEV && s->ports[k].owner == i && s->ports[k].present))
			bits |= range_trouble(s, &s->ports[k]);
	if (!p->present)   /* it carried traffic before it went: that stopped too */
		return bits | PT_GONE | (p->peak_gbps >= SAMPLER_MOVING_GBPS ? PT_STOPPED : 0);
	if (!p->has_rates)
		return bits | PT_WAIT;
	double cur = p->tx_gbps + p->rx_gbps;
	if (p->peak_gbps < SAMPLER_MOVING_GBPS)
		bits |= PT_IDLE;
	else if (cur < SAMPLER_STOP_FRACTION * p->peak_gbps)
		bits |= PT_STOPPED;
	return bits;
}

/* ---- coverage: what the live sampler could not read ---- */

int sampler_coverage(const struct fab_sampler *s, struct sampler_coverage *c)
{
	const struct sampler_priv *pv = s->priv;
	memset(c, 0, sizeof(*c));
	c->nofile = pv && pv->nofile != LONG_MAX ? pv->nofile : 0;
	for (int i = 0; i < s->nports; i++) {
		const struct fab_series *p = &s->ports[i];
		bool missed = false;
		if (p->kind != SER_RDMA)
			continue;
		c->ports++;
		for (int k = p->first_ctr; k < p->first_ctr + p->nctr && k < s->nctrs; k++) {
			const struct fab_ctr *x = &s->ctrs[k];
			c->ctrs++;
			c->by_path += x->by_path;
			if (!x->unread_steps)
				continue;
			if (!c->unsampled_ctrs++)
				c->err = x->err ? x->err : EIO;
			missed = true;
		}
		/* A counter folder of it not listed: its files in it unseen. */
		if (p->unlisted_err && !missed) {
			if (!c->unsampled_ctrs++)
				c->err = p->unlisted_err;
			missed = true;
		}
		c->unsampled_ports += missed;
	}
	/* Ports left out whole (a folder not listed): a folder is at least
	 * one counter file not read. */
	if (pv && pv->unlisted) {
		if (!c->unsampled_ctrs)
			c->err = pv->unlisted_err;
		c->ports += pv->unlisted;
		c->unsampled_ports += pv->unlisted;
		c->unsampled_ctrs += pv->unlisted;
	}
	return c->unsampled_ports;
}

const char *sampler_coverage_say(const struct sampler_coverage *c, char *buf, size_t len)
{
	char lim[48] = "";
	if (c->nofile > 0)
		snprintf(lim, sizeof(lim), " (ulimit -n %ld)", c->nofile);
	if (c->unsampled_ports && c->err == EMFILE)
		snprintf(buf, len, _("%d of %d port(s) not sampled: %d counter file(s) could not be "
			 "opened even one at a time, the open-file limit%s is reached; raise `ulimit -n`"),
			 c->unsampled_ports, c->ports, c->unsampled_ctrs, lim);
	else if (c->unsampled_ports)
		snprintf(buf, len, _("%d of %d port(s) not sampled: %d counter file(s) could not be "
			 "read (%s)"), c->unsampled_ports, c->ports, c->unsampled_ctrs,
			 root_strerror(c->err));
	else if (c->by_path)
		snprintf(buf, len, _("%d counter file(s) past the open-file limit%s are read by "
			 "open/read/close each step: every port is sampled, more slowly"),
			 c->by_path, lim);
	else if (len)
		buf[0] = '\0';
	return buf;
}

/* ---- live files ---- */

/* The fds the counters may keep: the open-file limit less a headroom for
 * the rest of the process (hwloc, ncurses, NVML, sockets, a capture's
 * files, the by-path reads themselves). With raise, the soft limit is
 * first taken up to the hard one, once. */
static long fd_budget(struct sampler_priv *pv, bool raise)
{
	struct rlimit rl;
	if (pv->nofile && !(raise && !pv->nofile_raised))
		return pv->fd_budget;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
		pv->nofile = LONG_MAX;
		return pv->fd_budget = LONG_MAX;
	}
	if (raise && !pv->nofile_raised) {
		pv->nofile_raised = true;
		if (rl.rlim_cur < rl.rlim_max) {
			struct rlimit up = { rl.rlim_max, rl.rlim_max };
			if (setrlimit(RLIMIT_NOFILE, &up) == 0)
				rl = up;
		}
	}
	pv->nofile = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)LONG_MAX ?
		     LONG_MAX : (long)rl.rlim_cur;
	long head = pv->nofile / 8;
	head = head < 32 ? 32 : head > 256 ? 256 : head;
	return pv->fd_budget = pv->nofile - head;
}

/* Opens a counter file to keep. Returns its fd; or -1 with errno: EMFILE
 * when it is past the fd budget or the open-file limit (then it is read
 * by open/read/close each step), ENOENT/ENOTDIR gone, EISDIR not a
 * regular file (not a counter), anything else unreadable. Hundreds of VFs
 * hold thousands of counter files: the hard limit is taken once first. */
static int open_counter(struct fab_sampler *s, const char *node)
{
	struct sampler_priv *pv = priv(s);
	struct stat st;
	int fd = root_open_fd(s->root, node, 0);
	if (pv && (fd == -EMFILE || fd == -ENFILE || fd >= fd_budget(pv, false)) &&
	    !pv->nofile_raised) {
		fd_budget(pv, true);
		if (fd < 0)
			fd = root_open_fd(s->root, node, 0);
	}
	if (fd < 0) {
		errno = -fd == ENFILE ? EMFILE : -fd;
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EISDIR;
		return -1;
	}
	if (pv && fd >= fd_budget(pv, false)) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
}

/* The counter's file, opened by open_counter(): kept, read by path each
 * step, or unreadable (err says why). */
static void ctr_set_file(struct fab_ctr *c, int fd, int e)
{
	c->fd = fd;
	c->by_path = fd < 0 && e == EMFILE;
	c->err = fd < 0 && !c->by_path ? e : 0;
}

static const char *ctr_node_path(const struct fab_series *p, const struct fab_ctr *c,
				 char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s", p->dirpath, c->dir, c->name);
	return buf;
}

/* Adds the counter files of one directory to the last port, skipping what
 * is not a counter: hw_counters/lifespan (the refresh period, a control)
 * and anything that is not a regular file. */
static int add_dir_files(struct fab_sampler *s, const char *dir)
{
	struct fab_series *p = &s->ports[s->nports - 1];
	char node[sizeof(p->dirpath) + 16], file[sizeof(node) + 80];
	char **names;
	snprintf(node, sizeof(node), "%s/%s", p->dirpath, dir);
	int n = root_list(s->root, node, &names);
	if (n < 0 && n != -ENOENT && n != -ENOTDIR)
		p->unlisted_err = n == -ENFILE ? EMFILE : -n;
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i], "lifespan") == 0 || strlen(names[i]) >= sizeof(s->ctrs->name))
			continue;
		snprintf(file, sizeof(file), "%s/%s", node, names[i]);
		int fd = open_counter(s, file), e = fd < 0 ? errno : 0;
		if (fd < 0 && (e == ENOENT || e == ENOTDIR || e == EISDIR))
			continue;
		/* Unopenable (EACCES in a pod): kept, it reads as unreadable. */
		int ci = sampler_add_ctr(s, dir, names[i]);
		if (ci < 0) {
			if (fd >= 0)
				close(fd);
			root_free_list(names, n);
			return -1;
		}
		ctr_set_file(&s->ctrs[ci], fd, e);
	}
	if (n > 0)
		root_free_list(names, n);
	return 0;
}

/* hw_counters/lifespan: milliseconds the kernel keeps its last answer
 * from the device (drivers/infiniband/core/sysfs.c, update_hw_stats():
 * a read within lifespan of the last refresh gets the cached values; the
 * default is 10 ms). 0 when absent or not a number. */
static double read_lifespan(const struct fab_sampler *s, const struct fab_series *p)
{
	char node[sizeof(p->dirpath) + 32], buf[32];
	uint64_t ms;
	snprintf(node, sizeof(node), "%s/hw_counters/lifespan", p->dirpath);
	ssize_t n = root_read(s->root, node, buf, sizeof(buf));
	if (n <= 0 || counter_parse_value(buf, (size_t)n, &ms) != 0 || ms > 3600000)
		return 0;
	return (double)ms / 1000.0;
}

/* A port (or a device's ports) left out: its folder could not be listed. */
static void unlisted(struct fab_sampler *s, int e)
{
	struct sampler_priv *pv = priv(s);
	if (pv && !pv->unlisted++)
		pv->unlisted_err = e;
}

static int add_live_port(struct fab_sampler *s, const char *dev, int port)
{
	if (sampler_add_port(s, dev, port) < 0)
		return -1;
	if ((port > 0 && add_dir_files(s, "counters") < 0) || add_dir_files(s, "hw_counters") < 0)
		return -1;
	struct fab_series *p = &s->ports[s->nports - 1];
	p->lifespan_s = read_lifespan(s, p);
	if (p->nctr == 0) {
		if (p->unlisted_err)
			unlisted(s, p->unlisted_err);
		s->nports--;
		return 0;
	}
	struct stat st;
	if (root_stat(s->root, p->dirpath, &st) == 0)
		p->dir_ino = st.st_ino;
	return 0;
}

/* Port numbers are positive decimals; anything else in ports/ is not a port. */
static int port_number(const char *name)
{
	char *end;
	errno = 0;
	long v = strtol(name, &end, 10);
	if (name[0] < '0' || name[0] > '9' || *end || errno || v <= 0 || v > 65535)
		return -1;
	return (int)v;
}

static int add_live_device(struct fab_sampler *s, const char *dev)
{
	char node[PATH_MAX];
	char **ports;
	if (strlen(dev) >= sizeof(s->ports->dev))
		return 0;
	if (dev_remember(s, dev) < 0)
		return -1;
	/* A function whose counter reads hurt (hazard.h: SMDL=SW_MNG, or
	 * --exclude-dev) is never opened; the model says why. Asked once per
	 * device: it reads the VPD. */
	if (hazard_counters(s->root, dev, NULL, 0) == HAZARD_SKIP)
		return 0;
	if (add_live_port(s, dev, 0) < 0)
		return -1;
	snprintf(node, sizeof(node), CLASS_DIR "/%s/ports", dev);
	int np = root_list(s->root, node, &ports);
	int rc = 0;
	if (np < 0 && np != -ENOENT && np != -ENOTDIR)
		unlisted(s, np == -ENFILE ? EMFILE : -np);
	for (int j = 0; j < np && rc == 0; j++) {
		int pn = port_number(ports[j]);
		if (pn > 0)
			rc = add_live_port(s, dev, pn);
	}
	if (np > 0)
		root_free_list(ports, np);
	return rc;
}

int sampler_open(struct fab_sampler *s, const struct fab_root *r, char *err, size_t len)
{
	char **devs;
	memset(s, 0, sizeof(*s));
	if (!r) {
		snprintf(err, len, "sampler: no root to read");
		return -1;
	}
	s->root = r;
	int nd = root_list(r, CLASS_DIR, &devs);
	if (nd < 0 && nd != -ENOENT)
		snprintf(s->note, sizeof(s->note), "cannot list " CLASS_DIR ": %s", strerror(-nd));
	else if (nd <= 0)
		snprintf(s->note, sizeof(s->note),
			 "no RDMA devices (" CLASS_DIR " is empty or missing)");
	for (int i = 0; i < nd; i++) {
		if (add_live_device(s, devs[i]) < 0) {
			root_free_list(devs, nd);
			sampler_close(s);
			snprintf(err, len, "sampler: out of memory listing the counters of %s",
				 devs[i]);
			return -1;
		}
	}
	if (nd > 0) {
		root_free_list(devs, nd);
		if (s->nctrs == 0)
			snprintf(s->note, sizeof(s->note),
				 "no counter files under " CLASS_DIR "/*/ports/*/counters or hw_counters");
	}
	return 0;
}

static void port_gone(struct fab_sampler *s, struct fab_series *p, double t)
{
	if (p->present && p->kind == SER_NETDEV)
		snprintf(s->note, sizeof(s->note), "netdev %s vanished", p->dev);
	else if (p->present)
		snprintf(s->note, sizeof(s->note), "%s port %d vanished", p->dev, p->port);
	p->present = false;
	port_close_fds(s, p);
	for (int k = 0; k < p->nctr; k++)
		sampler_take(s, &s->ctrs[p->first_ctr + k], READ_GONE, 0, false, t);
	/* Counters read before the port failed this step count for nothing. */
	p->bad_grew = 0;
	p->tx_gbps = p->rx_gbps = p->tx_pps = p->rx_pps = 0;
	((struct sampler_priv *)s->priv)->traffic[p - s->ports] = 0;
}

static void port_reopen(struct fab_sampler *s, struct fab_series *p, ino_t ino)
{
	char node[sizeof(p->dirpath) + sizeof(s->ctrs->dir) + sizeof(s->ctrs->name) + 4];
	snprintf(s->note, sizeof(s->note), "%s port %d came back", p->dev, p->port);
	port_close_fds(s, p);
	for (int k = 0; k < p->nctr; k++) {
		struct fab_ctr *c = &s->ctrs[p->first_ctr + k];
		int fd = open_counter(s, ctr_node_path(p, c, node, sizeof(node)));
		ctr_set_file(c, fd, fd < 0 ? errno : 0);
	}
	p->present = true;
	p->dir_ino = ino;
	p->lifespan_s = read_lifespan(s, p);
}

/* A read that says the file's port left (the same answers whether the
 * file was kept open or is opened by path each step). */
static bool read_gone(int e)
{
	return e == ENOENT || e == ENOTDIR || e == ENODEV || e == ESTALE;
}

/* Reads every counter of a port. A counter that fails alone (EACCES in a
 * pod, EINVAL from a failed PMA query on a VF, a one-off error) is that
 * counter's CTR_UNREADABLE and nothing more. The port is unsampled in a
 * step (unread_steps, sampler_coverage()) only where fabtop itself could
 * not read: the open-file limit even for open/read/close, or no counter
 * of the port giving a value at all. */
static void read_port(struct fab_sampler *s, struct fab_series *p, bool fresh, double t)
{
	/* A counter is at most 20 digits and a newline: 32 bytes read is
	 * not a counter (the by-path read NUL-terminates: one byte more). */
	char buf[33], node[sizeof(p->dirpath) + sizeof(s->ctrs->dir) + sizeof(s->ctrs->name) + 4];
	struct fab_ctr *c = &s->ctrs[p->first_ctr], *end = c + p->nctr;
	bool any = false;   /* a counter gave a value (or a held one) this step */
	for (; c < end; c++) {
		uint64_t v = 0;
		ssize_t n;
		/* hw_counters refreshed less than a lifespan ago would answer the
		 * cached value: a rate over this step would be 0 then a burst. */
		if (!fresh && p->lifespan_s > 0 && c->valid && !isnan(c->t_value) &&
		    t - c->t_value < p->lifespan_s && c->dir[0] == 'h') {
			sampler_take(s, c, READ_HELD, 0, false, t);
			any = true;
			continue;
		}
		if (c->fd >= 0) {
			n = pread(c->fd, buf, 32, 0);
			if (n < 0 && read_gone(errno)) {
				port_gone(s, p, t);
				return;
			}
			if (n < 0)
				c->err = errno;
		} else if (c->by_path) {
			/* Past the fd budget: one open, read and close. */
			n = root_read(s->root, ctr_node_path(p, c, node, sizeof(node)), buf, sizeof(buf));
			if (n < 0 && read_gone((int)-n)) {
				port_gone(s, p, t);
				return;
			}
			if (n < 0)
				c->err = n == -ENFILE ? EMFILE : (int)-n;
			/* fabtop's own limit, not the node's answer: not sampled. */
			if (n < 0 && c->err == EMFILE)
				c->unread_steps++;
		} else {
			n = -1;   /* its open failed: c->err says why */
		}
		if (n >= 0 && c->err)
			c->err = 0;
		int j = n >= 0 && n < 32 ? counter_value_judge(c->def, buf, (size_t)n, &v) :
			n >= 0 ? 1 : -1;
		any |= j >= 0;
		sampler_take(s, c, j == 0 ? READ_OK : j > 0 ? READ_IMPLAUSIBLE : READ_BAD, v, fresh, t);
	}
	/* Not one value from the port: it was not sampled in this step
	 * (those past the file limit were counted above). */
	for (c = &s->ctrs[p->first_ctr]; !any && c < end; c++)
		if (!(c->by_path && c->err == EMFILE))
			c->unread_steps++;
}

/* Devices that appeared since the last read; their files open fresh. */
static void relist(struct fab_sampler *s)
{
	char **names;
	int n = root_list(s->root, CLASS_DIR, &names);   /* in natural order */
	for (int i = 0; i < n; i++) {
		if (names[i][0] == '.' || dev_known(s, names[i]))
			continue;
		int before = s->nports;
		if (add_live_device(s, names[i]) == 0 && s->nports > before)
			snprintf(s->note, sizeof(s->note), "%s appeared", names[i]);
	}
	if (n > 0)
		root_free_list(names, n);
}

/* ---- a port's netdev: its ethtool statistics ---- */

/* The ethtool socket, opened once, in fabtop's own network namespace. */
static int ethtool_of(struct fab_sampler *s, char *why, size_t len)
{
	struct sampler_priv *pv = priv(s);
	if (!pv)
		return -1;
	if (!pv->et_tried) {
		pv->et_tried = true;
		if (ethtool_open(&pv->et, -1, pv->et_err, sizeof(pv->et_err)) != 0)
			pv->et = NULL;
	}
	if (!pv->et)
		snprintf(why, len, "%s", pv->et_err[0] ? pv->et_err : "no ethtool socket");
	return pv->et ? 0 : -1;
}

/* Lists the netdev's statistics into a new series: one counter per name,
 * in the kernel's order, so one GSTATS fills them all. A netdev that
 * cannot be listed still gets its series, empty, saying why. Returns the
 * series, or -1 (no memory). */
static int add_live_netdev(struct fab_sampler *s, const char *ifname)
{
	char why[sizeof(s->ports->why)] = "";
	struct fab_ethtool_set *set = calloc(1, sizeof(*set));
	if (!set)
		return -1;
	if (ethtool_of(s, why, sizeof(why)) == 0 &&
	    ethtool_list(((struct sampler_priv *)s->priv)->et, ifname, set, why, sizeof(why)) != 0)
		ethtool_set_free(set);
	int k = sampler_add_netdev(s, ifname);
	if (k < 0)
		goto fail;
	struct fab_series *p = &s->ports[k];
	fab_strlcpy(p->why, why, sizeof(p->why));
	p->et_set = set;
	if (set->n > 0 && !(p->et_vals = calloc(set->n, sizeof(*p->et_vals)))) {
		ethtool_set_free(set);   /* n 0: read_netdev never reads into NULL */
		return -1;
	}
	for (uint32_t i = 0; i < set->n; i++)
		if (sampler_add_ctr(s, "ethtool", set->names[i]) < 0)
			return -1;
	return k;
fail:
	ethtool_set_free(set);
	free(set);
	return -1;
}

static void netdev_free(struct fab_series *p)
{
	if (p->et_set) {
		ethtool_set_free(p->et_set);
		free(p->et_set);
	}
	free(p->et_vals);
	p->et_set = NULL;
	p->et_vals = NULL;
}

/* One GSTATS for the whole netdev. A netdev that left this namespace is
 * gone; one whose statistics changed in number (driver reload, channels
 * changed) is listed again as a new series, never read against old names. */
static void read_netdev(struct fab_sampler *s, int i, double t)
{
	struct fab_series *p = &s->ports[i];
	struct sampler_priv *pv = s->priv;
	struct fab_ethtool_set *set = p->et_set;
	char err[160];
	if (!set || !set->n || !p->et_vals || !pv || !pv->et)
		return;
	int rc = ethtool_read(pv->et, set, p->et_vals, set->n, err, sizeof(err));
	if (rc == ETHTOOL_ST_RELIST) {
		int owner = p->owner;
		char ifname[sizeof(p->dev)];
		fab_strlcpy(ifname, p->dev, sizeof(ifname));   /* the array may move */
		port_gone(s, p, t);
		snprintf(p->why, sizeof(p->why), "its statistics changed in number: listed again");
		netdev_free(p);
		int k = add_live_netdev(s, ifname);
		if (k >= 0) {
			s->ports[k].owner = owner;
			snprintf(s->note, sizeof(s->note), "netdev %s: statistics listed again",
				 s->ports[k].dev);
		}
		return;
	}
	if (rc != ETHTOOL_ST_OK) {
		if (rc == ETHTOOL_ST_NODEV) {
			port_gone(s, p, t);
		} else {
			fab_strlcpy(p->why, err, sizeof(p->why));
			for (int k = 0; k < p->nctr; k++)
				sampler_take(s, &s->ctrs[p->first_ctr + k], READ_BAD, 0, false, t);
		}
		return;
	}
	bool fresh = !p->present;
	if (fresh)
		snprintf(s->note, sizeof(s->note), "netdev %s came back", p->dev);
	p->present = true;
	p->why[0] = '\0';
	for (int k = 0; k < p->nctr && (uint32_t)k < set->n; k++)
		sampler_take(s, &s->ctrs[p->first_ctr + k], READ_OK, p->et_vals[k], fresh, t);
}

int sampler_read(struct fab_sampler *s, double t_mono)
{
	if (!s->root || s->playback)
		return -1;
	sampler_step_begin(s, t_mono);
	int known = s->nports;
	relist(s);
	for (int i = 0; i < s->nports; i++) {
		struct fab_series *p = &s->ports[i];
		bool fresh = i >= known;
		if (p->kind == SER_NETDEV) {
			read_netdev(s, i, t_mono);
			continue;
		}
		if (!fresh) {
			/* One stat per port notices it vanished, or came back as a new
			 * kobject (driver reload, VF re-created): new files to open. */
			struct stat st;
			int e = root_stat(s->root, p->dirpath, &st);
			e = e == 0 ? (S_ISDIR(st.st_mode) ? 0 : ENOTDIR) : -e;
			if (e == ENOENT || e == ENOTDIR || e == ENODEV) {
				port_gone(s, p, t_mono);
				continue;
			}
			if (e == 0 && (!p->present || st.st_ino != p->dir_ino)) {
				port_reopen(s, p, st.st_ino);
				fresh = true;
			}
			if (!p->present) {
				port_gone(s, p, t_mono);
				continue;
			}
		}
		read_port(s, p, fresh, t_mono);
	}
	sampler_step_end(s);
	if (s->pcie)
		pcie_watch_read(s->pcie, t_mono, NULL);
	return 0;
}

void sampler_close(struct fab_sampler *s)
{
	if (s->limits) {
		ctr_limits_free(s->limits);
		free(s->limits);
	}
	if (s->pcie) {
		pcie_watch_close(s->pcie);
		free(s->pcie);
	}
	sampler_free_ports(s);
	sampler_playback_free(s);
	memset(s, 0, sizeof(*s));
}
