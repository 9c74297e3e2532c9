/*
 * counters.h - RDMA port counters described as data: file, unit, width,
 * meaning, the layer it speaks for, and whether growth is bad. The link
 * health collector, the findings, the help text (and the live counters
 * pane) all read this one table.
 */
#ifndef FABTOP_COUNTERS_H
#define FABTOP_COUNTERS_H

#include <stdbool.h>

enum fab_counter_class {
	CC_DATA,        /* bytes/words moved */
	CC_PACKETS,
	CC_ERROR,       /* physical/link errors */
	CC_RETRY,       /* loss and retransmission */
	CC_CONGESTION,
};

struct fab_counter_def {
	const char *name;        /* file name */
	const char *dir;         /* "counters" (PMA) or "hw_counters" (driver) */
	const char *unit;        /* "4-octet words", "packets", "events", "ticks" */
	int width;               /* bits: 64 for data; PMA error fields are 4 to 32 bits */
	bool saturates;          /* PMA counters stop at 2^width-1; Q-counters wrap */
	enum fab_counter_class cls;
	bool bad_when_grows;
	const char *layer;       /* "physical", "link", "transport", "congestion" */
	const char *meaning;
};

extern const struct fab_counter_def fab_counter_defs[];
extern const int fab_ncounter_defs;

/* The definition of a counter file, or NULL when the table does not know it. */
const struct fab_counter_def *counter_def(const char *dir, const char *name);

#endif
