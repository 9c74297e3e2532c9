/*
 * nodefacts.h - a node document (nodedoc.h) flattened into comparable
 * facts: the one list `fabtop diff` prints side by side and `fabtop fleet`
 * takes the majority of. Both compare nodes through this list only, so what
 * counts as "different" is decided here, once.
 *
 * A fact is (section, key, value), all plain strings taken from the
 * document (outside input: print them through the print layer):
 *   section  what the user reads it under: "node" (GPU and HCA models,
 *            counts, kernel; why the verdict is unknown, when it is: an
 *            "ok" or "findings" verdict is the findings' own), "topology" (matrix cells, closest NICs),
 *            "hca" (model, firmware, board, PCIe), "port" (state, rate,
 *            width, link layer, MTU, GID types, usable), "pcie" (each
 *            GPU/NIC/bridge link the document holds), "netdev" (the
 *            netdevs no HCA port names: management, bonds, the pod's
 *            own), "nccl" (NCCL-relevant settings: the document holds
 *            only whether libnccl loads), "counter" (per sampled port
 *            "quiet" or "grows: NAME, ..." of its bad_when_grows
 *            counters, from doc["counters"]), "finding" (id and
 *            subject -> severity);
 *   key      names the thing, never by an identifier that always differs
 *            between nodes: "GPU0 NIC3", "mlx5_0 fw_ver", "mlx5_0/1 rate_gbps";
 *   value    as printed: "PXB", "28.39.1002", "400"; JSON null (could
 *            not be read) is "unknown"; never "" (an empty string is
 *            "(empty)", an empty list "none").
 * Each fact is shown once: a symmetric matrix cell under its upper
 * triangle's key ("GPU0 NIC3"; the mirror only when it differs), a NIC's
 * PCIe link under its HCA's name, a port's netdev under the port.
 * Identity facts (GUIDs, MACs, host names, IP addresses, GIDs, LIDs,
 * times, serials, the document's source and fabtop version, veth names)
 * have identity = true and are left out unless NODEFACTS_IDENTITY is
 * asked: two healthy nodes of one kind then have equal lists.
 *
 * The list is sorted by (section order above, key in natural order:
 * GPU2 before GPU10); keys are unique within a section (a key met twice
 * has its values joined by ", "); nodefacts_find() is a binary search.
 */
#ifndef FABTOP_NODEFACTS_H
#define FABTOP_NODEFACTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum nodefacts_flags {
	NODEFACTS_IDENTITY = 1u << 0,   /* keep identity facts (diff --all) */
};

struct nodefact {
	const char *section;    /* a static string from the list above */
	char *key;
	char *value;
	bool identity;
};

struct nodefacts {
	struct nodefact *v;
	size_t n, cap;
};

/* 0, or -1 (out of memory) with out emptied. */
int nodefacts_from_doc(const json_t *doc, unsigned flags, struct nodefacts *out);
void nodefacts_free(struct nodefacts *f);
const struct nodefact *nodefacts_find(const struct nodefacts *f, const char *section, const char *key);
/* The list's order over (section, key), values aside: <0, 0 or >0. Two
 * lists are walked side by side with it (diff, fleet). */
int nodefacts_cmp(const struct nodefact *a, const struct nodefact *b);

/* The node's kind, the group fleet compares within: its GPU models and
 * counts and its HCA models and counts ("8x NVIDIA H100 80GB HBM3 + 12x
 * MT4129"); "unknown" when the document names neither. */
void nodefacts_kind(const json_t *doc, char *out, size_t len);
/* The same models without their counts ("NVIDIA H100 80GB HBM3 + MT4129"):
 * a node alone in its kind (one that lost an HCA or a GPU) is compared with
 * the largest kind of its family instead, where its count sets it apart. */
void nodefacts_family(const json_t *doc, char *out, size_t len);

#endif
