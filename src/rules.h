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

/* Every port of every HCA of model m: n (its HCA) and p (the port) are
 * const pointers in the body. `continue` goes to the next port; `break`
 * would leave only the current one, so a rule that stops early loops by
 * hand. */
#define FOR_EACH_PORT(m, n, p) \
	for (int p##_nic = 0; p##_nic < (m)->nnics; p##_nic++) \
		for (const struct fab_nic *n = &(m)->nics[p##_nic]; n; n = NULL) \
			for (int p##_num = 0; p##_num < n->nports; p##_num++) \
				for (const struct fab_port *p = &n->ports[p##_num]; p; p = NULL)

extern const struct fab_rule_set topo_rule_set;    /* rules_topo.c: GPU/NIC placement, PCIe */
extern const struct fab_rule_set links_rule_set;   /* rules_links.c: HCA ports, RoCE, errors, access */

#endif
