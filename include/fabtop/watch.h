/*
 * watch.h - what a run of the sampler found, as findings: the lossless
 * path of each RoCE port (lossless.h), the counters' documented limits
 * (ctr_limits.h, stepped by the sampler) and PCIe over time (pcie_watch.h,
 * stepped by the sampler). The Counters pane and `report counters` print
 * this one gathering, so the two cannot differ.
 */
#ifndef FABTOP_WATCH_H
#define FABTOP_WATCH_H

#include "fabtop/model.h"
#include "fabtop/sampler.h"

/* Appends the run's findings to out (model_add_finding()), in that order:
 * lossless.*, counters.*, pcie.*. m is the node's model (the ports' link
 * layers, netdevs, QoS; the NICs and GPUs). Returns how many. */
int watch_findings(const struct fab_sampler *s, const struct fab_model *m, struct fab_model *out);

#endif
