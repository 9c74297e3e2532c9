/*
 * hazard.h - RDMA devices whose counters fabtop must not read.
 *
 * On DGX/HGX B200 the NVSwitches are managed through ConnectX functions
 * ("Limited PFs") whose PCI VPD carries SMDL=SW_MNG. They show up in
 * /sys/class/infiniband like any HCA, but reading their counters makes
 * mlx5 issue ACCESS_REG commands the firmware refuses, and every read
 * floods dmesg with
 *   mlx5_core 0000:05:00.0: mlx5_cmd_out_err:835:(pid 18360): ACCESS_REG(0x805)
 *   op_mod(0x1) failed, status bad operation(0x2), syndrome (0x9a6171), err(-22)
 * (https://github.com/prometheus/node_exporter/issues/3434, citing the DGX
 * OS 7 known issue "Accessing PF0 and PF1 is restricted"). NVIDIA's
 * nvidia-fabricmanager-start.sh finds those functions by SMDL=SW_MNG in
 * `lspci -vv` (https://github.com/siderolabs/extensions/pull/717, #895).
 *
 * Contract: hazard_counters() is THE judgement; every reader of an RDMA
 * device's counters/ and hw_counters/ files (snapshot collector, capture,
 * sampler) asks it first and opens none of them on HAZARD_SKIP.
 * The VPD is read at most once per call, never written; unreadable VPD
 * (root-only on kernels before mlx5 marked it world-readable) leaves the
 * function "not known to be safe": then only the devices named with
 * --exclude-dev (hazard_exclude_set) are skipped. A capture records its
 * skips in fabtop/hazards.json (docs/capture-format.md); a replay answers
 * from it (captures never copy VPD), then from any VPD file the root has.
 */
#ifndef FABTOP_HAZARD_H
#define FABTOP_HAZARD_H

#include <stdbool.h>
#include <stddef.h>
#include "fabtop/root.h"

/* What PCI VPD bytes say (PCI Local Bus 3.0 §6.4 / PCIe 6.0 §6.28): large
 * resources 0x82 (identifier string), 0x90 (VPD-R), 0x91 (VPD-W), each a
 * tag, a 16-bit little-endian length and data; keyword records in VPD-R
 * and VPD-W are two characters, a length byte and the value; the small
 * resource 0x78 ends the list. */
struct hazard_vpd {
	char name[256];          /* the identifier string, non-printables as '?' */
	int nfields;             /* keyword records seen */
	bool sw_mng;             /* a value (or the name) holds the token SMDL=SW_MNG */
	bool ended;              /* the end tag was reached */
};

/* Parses len bytes; never reads outside them. Returns 0 when the list was
 * well formed up to the end tag, -1 when it is not VPD or is cut or
 * malformed (what came before the fault is kept in *out, the records of
 * a resource cut short included: a marker read is a marker). */
int hazard_vpd_parse(const unsigned char *buf, size_t len, struct hazard_vpd *out);

enum hazard_verdict {
	HAZARD_READ = 0,         /* read its counters */
	HAZARD_UNKNOWN,          /* read them, but the VPD was unreadable: why says so */
	HAZARD_SKIP,             /* open none of its counter files: why says why */
};

/* Whether the counters of RDMA device dev (a /sys/class/infiniband name)
 * under r may be read. why (may be NULL) gets one sentence for SKIP and
 * UNKNOWN, "" for READ. */
enum hazard_verdict hazard_counters(const struct fab_root *r, const char *dev,
				    char *why, size_t len);

/* The --exclude-dev list ("mlx5_0,mlx5_1"), kept by pointer: main's argv.
 * NULL clears it. hazard_exclude_valid() says whether a list is usable
 * (names of [A-Za-z0-9_.-], at most 63 characters each). */
void hazard_exclude_set(const char *csv);
bool hazard_exclude_valid(const char *csv);
bool hazard_excluded(const char *dev);
/* Whether --exclude-dev names any device (a capture's embedded report,
 * made without the list, is then not used: nodedoc.h). */
bool hazard_exclude_any(void);

#endif
