/* live.c - the TUI's counters driver (live.h): paces the sampler, keeps
 * the QP list, and takes the pane's requests. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "fabtop/config.h"
#include "fabtop/i18n.h"
#include "fabtop/live.h"

/* Errors that will not go away while fabtop runs: the kernel has no RDMA
 * netlink, or the capture did not record QPs. */
static bool qp_permanent(int rc)
{
	return rc == -EPROTONOSUPPORT || rc == -EAFNOSUPPORT || rc == -ENOENT ||
	       rc == -EOPNOTSUPP;
}

static void load_qps(struct fab_live *l, double now)
{
	struct fab_qp_list q = { 0 };
	char err[256] = "";
	int rc = rdma_res_from_root(l->root, &q, err, sizeof(err));
	l->qp_rc = rc;
	if (rc == 0) {
		qp_list_free(&l->qps);
		l->qps = q;
		l->qp_note[0] = '\0';
	} else {
		/* Keep the last good list: a transient failure should not blank it. */
		qp_list_free(&q);
		snprintf(l->qp_note, sizeof(l->qp_note), "%s", err[0] ? err : strerror(-rc));
	}
	/* Only a live node changes; a capture's QPs are what they were. */
	if (!l->root->live)
		l->qp_next = 0;
	else if (rc == 0)
		l->qp_next = now + LIVE_QP_REFRESH_S;
	else
		l->qp_next = qp_permanent(rc) ? 0 : now + LIVE_QP_RETRY_S;
}

static bool has_samples(const struct fab_root *r)
{
	return r->is_capture && root_exists(r, "/fabtop/samples.json");
}

double live_default_interval(void)
{
	double iv = cfg_get()->interval;
	/* The settings file is outside input: a value out of range is clamped. */
	if (!(iv >= LIVE_INTERVAL_MIN))
		return iv > 0 ? LIVE_INTERVAL_MIN : 1.0;
	return iv > LIVE_INTERVAL_MAX ? LIVE_INTERVAL_MAX : iv;
}

int live_open(struct fab_live *l, const struct fab_root *r, double now)
{
	char err[256] = "";
	memset(l, 0, sizeof(*l));
	l->root = r;
	l->interval = live_default_interval();
	l->speed = 1.0;
	l->last = now;
	load_qps(l, now);
	if (r->is_capture && !has_samples(r)) {
		/* Only the Counters pane shows it: in the interface's language. */
		snprintf(l->err, sizeof(l->err), "%s",
			 _("no samples in this capture (record them with "
			   "`fabtop capture --samples N --interval S`)"));
		return -1;
	}
	if (has_samples(r)) {
		/* The capture's own sysfs gives each port its line rate and link
		 * layer; the samples work without it. */
		if (sampler_open(&l->s, r, err, sizeof(err)) != 0)
			memset(&l->s, 0, sizeof(l->s));
		if (sampler_playback_open(&l->s, r, err, sizeof(err)) != 0) {
			snprintf(l->err, sizeof(l->err), "%s", err);
			sampler_close(&l->s);
			return -1;
		}
		if (sampler_playback_step(&l->s) != 0) {
			snprintf(l->err, sizeof(l->err), "%s", _("no samples in this capture"));
			sampler_close(&l->s);
			return -1;
		}
		double gap = sampler_playback_gap(&l->s);
		l->ended = gap < 0;
		l->next_due = now + (gap > 0 ? gap : 0);
	} else {
		if (sampler_open(&l->s, r, err, sizeof(err)) != 0) {
			snprintf(l->err, sizeof(l->err), "%s", err);
			return -1;
		}
		sampler_read(&l->s, now);
		l->next_due = now + l->interval;
	}
	l->ok = true;
	return 0;
}

double live_next(const struct fab_live *l)
{
	double at = -1;
	if (l->ok && l->step_req)
		return 0;
	if (l->ok && !l->paused && !l->ended)
		at = l->next_due;
	if (l->qp_next > 0 && (at < 0 || l->qp_next < at))
		at = l->qp_next;
	return at;
}

int live_due(const struct fab_live *l, double now)
{
	double at = live_next(l);
	if (at < 0)
		return -1;
	double ms = ceil((at - now) * 1000.0);
	return ms <= 0 ? 0 : ms > 3600e3 ? 3600000 : (int)ms;
}

bool live_step(struct fab_live *l, double now)
{
	if (!l->ok)
		return false;
	l->last = now;
	if (!l->s.playback) {
		sampler_read(&l->s, now);
		l->next_due = now + l->interval;
		return true;
	}
	if (l->ended)
		return false;
	if (sampler_playback_step(&l->s) != 0) {
		l->ended = true;
		return true;
	}
	double gap = sampler_playback_gap(&l->s);
	if (gap < 0)
		l->ended = true;
	else
		l->next_due = now + gap / l->speed;
	return true;
}

bool live_tick(struct fab_live *l, double now)
{
	bool redraw = false;
	if (l->qp_next > 0 && now >= l->qp_next) {
		load_qps(l, now);
		redraw = true;
	}
	if (!l->ok)
		return redraw;
	if (l->step_req) {
		l->step_req = false;
		return live_step(l, now) || redraw;
	}
	if (l->paused || l->ended || now < l->next_due)
		return redraw;
	double due = l->next_due;
	redraw = live_step(l, now) || redraw;
	/* Live reads keep their cadence (absolute deadlines) unless the
	 * process was stopped long enough to miss one. */
	if (!l->s.playback && due + l->interval > now)
		l->next_due = due + l->interval;
	return redraw;
}

void live_close(struct fab_live *l)
{
	sampler_close(&l->s);
	qp_list_free(&l->qps);
	memset(l, 0, sizeof(*l));
}

/* Seconds from one step to the next at the current pace. */
static double step_len(const struct fab_live *l)
{
	if (!l->s.playback)
		return l->interval;
	double gap = sampler_playback_gap(&l->s);
	return gap > 0 ? gap / l->speed : 0;
}

void live_toggle_pause(struct fab_live *l)
{
	l->paused = !l->paused;
	/* A pause longer than the interval makes the step after it due at once. */
	if (!l->paused)
		l->next_due = l->last + step_len(l);
}

void live_faster(struct fab_live *l, bool faster)
{
	if (l->s.playback) {
		double sp = faster ? l->speed * 2 : l->speed / 2;
		l->speed = sp < LIVE_SPEED_MIN ? LIVE_SPEED_MIN : sp > LIVE_SPEED_MAX ? LIVE_SPEED_MAX : sp;
	} else {
		double iv = faster ? l->interval / 2 : l->interval * 2;
		l->interval = iv < LIVE_INTERVAL_MIN ? LIVE_INTERVAL_MIN :
			      iv > LIVE_INTERVAL_MAX ? LIVE_INTERVAL_MAX : iv;
	}
	l->next_due = l->last + step_len(l);
}

void live_baseline(struct fab_live *l)
{
	if (l->ok)
		sampler_baseline(&l->s);
}

void live_request_step(struct fab_live *l)
{
	if (l->ok)
		l->step_req = true;
}

bool live_seek(struct fab_live *l, int pos, double now)
{
	if (!l->ok || !l->s.playback)
		return false;
	pos = pos < 1 ? 1 : pos > l->s.pb_count ? l->s.pb_count : pos;
	if (pos == l->s.pb_pos || sampler_playback_seek(&l->s, pos) != 0)
		return false;
	l->step_req = false;
	l->last = now;
	double gap = sampler_playback_gap(&l->s);
	l->ended = gap < 0;
	if (!l->ended)
		l->next_due = now + gap / l->speed;
	return true;
}
