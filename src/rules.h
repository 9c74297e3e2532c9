/*
 * rules.h - the rules the findings engine runs (findings.c holds the
 * registry). Each appends fab_finding entries to the model and reads
 * nothing but the model.
 */
#ifndef FABTOP_RULES_H
#define FABTOP_RULES_H

#include "fabtop/model.h"

/* rules_topo.c */
void rule_nic_far(struct fab_model *m);
void rule_nic_shared(struct fab_model *m);
void rule_pcie_degraded(struct fab_model *m);
void rule_pcie_acs(struct fab_model *m);

/* rules_links.c: HCA ports, RoCE settings, error counters, usability here */
void rule_port_down(struct fab_model *m);
void rule_no_sm(struct fab_model *m);
void rule_rate_degraded(struct fab_model *m);
void rule_pcie_bottleneck(struct fab_model *m);
void rule_mtu_mismatch(struct fab_model *m);
void rule_roce_no_ipv4(struct fab_model *m);
void rule_gid_netns(struct fab_model *m);
void rule_link_errors(struct fab_model *m);
void rule_pfc_off(struct fab_model *m);
void rule_pfc_no_ecn(struct fab_model *m);
void rule_not_usable(struct fab_model *m);

#endif
