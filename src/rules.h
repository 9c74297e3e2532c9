/*
 * rules.h - the rule files the findings engine runs. Each rule file
 * (rules_*.c) ends with its table: one row per finding id, its layer line
 * and its function, which appends fab_finding entries and reads nothing but
 * the model (its derived facts: usable, pinned, ll). Adding a finding is a
 * function and a row in its file, and its test; findings.c lists the files.
 */
#ifndef FABTOP_RULES_H
#define FABTOP_RULES_H

#include "fabtop/findings.h"

struct fab_rule_set {
	const struct fab_rule *rules;
	int n;
};

#define FAB_RULE_SET(name, table) \
	const struct fab_rule_set name = { table, (int)(sizeof(table) / sizeof((table)[0])) }

extern const struct fab_rule_set topo_rule_set;    /* rules_topo.c: GPU/NIC placement, PCIe */
extern const struct fab_rule_set links_rule_set;   /* rules_links.c: HCA ports, RoCE, errors, access */

#endif
