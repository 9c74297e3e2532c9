/*
 * sampler_int.h - what sampler.c (live reads) and sampler_playback.c
 * (recorded samples) share: building the port and counter arrays, and one
 * step of readings through the same arithmetic.
 *
 * A step: sampler_step_begin() -> sampler_take() for each counter ->
 * sampler_step_end().
 */
#ifndef FABTOP_SAMPLER_INT_H
#define FABTOP_SAMPLER_INT_H

#include "fabtop/sampler.h"

/* READ_IMPLAUSIBLE: the file was read but held what the counter cannot
 * (counter_value_judge()). */
/* READ_HELD: not read this step (its refresh period, hw_counters/lifespan,
 * has not elapsed): no step, the value kept. */
enum reading { READ_OK, READ_BAD, READ_GONE, READ_IMPLAUSIBLE, READ_HELD };

/* Appends a port (port 0: the device-level hw_counters) with its link
 * layer and line rate read from the root. Its counters must be appended
 * next, before any other port. Returns its index, or -1 (no memory). */
int sampler_add_port(struct fab_sampler *s, const char *dev, int port);
/* Appends a netdev's series (SER_NETDEV, port -1, owner -1); its ethtool
 * counters (dir "ethtool") must be appended next. Returns its index, or -1. */
int sampler_add_netdev(struct fab_sampler *s, const char *ifname);
/* Appends a counter to the last port; fd -1. Returns its index, or -1. */
int sampler_add_ctr(struct fab_sampler *s, const char *dir, const char *name);
/* Frees ports, counters and the device index; closes every fd. */
void sampler_free_ports(struct fab_sampler *s);

void sampler_step_begin(struct fab_sampler *s, double t);
/* One counter's reading at time t; fresh: its file was (re)opened, so the
 * value starts a new series (CTR_FIRST). Every counter is taken once per
 * step: this also writes its history slot and its port's sums. */
void sampler_take(struct fab_sampler *s, struct fab_ctr *c, enum reading r,
		  uint64_t v, bool fresh, double t);
/* Per-port traffic, history rings, bad_grew. */
void sampler_step_end(struct fab_sampler *s);

void sampler_playback_free(struct fab_sampler *s);

/* Back to before the first step, keeping the series and counters (and
 * their files): values, baselines, histories, the documented limits and
 * PCIe over time start again. Playback seeks backwards with it. */
void sampler_run_reset(struct fab_sampler *s);

#endif
