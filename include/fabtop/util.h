/*
 * util.h - small parsers shared by collectors, pure functions over strings.
 */
#ifndef FABTOP_UTIL_H
#define FABTOP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include "fabtop/model.h"

/* "0x15b3", "42", " 7\n" -> value; false on empty, garbage or overflow. */
bool fab_parse_ll(const char *s, long long *out);
/* sysfs speed "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s PCIe" -> GT/s.
 * "Unknown" and garbage -> false. */
bool fab_parse_gts(const char *s, double *out);
/* "4: ACTIVE" -> 4 and "ACTIVE"; false when the number is missing. */
bool fab_parse_enum_line(const char *s, long long *num, char *word, size_t wlen);
/* "400 Gb/sec (4X NDR)" -> 400; "2.5 Gb/sec (1X SDR)" -> 2.5. */
bool fab_parse_rate(const char *s, double *gbps);
/* "0-3,8-11" -> count of CPUs, -1 on garbage. */
int fab_cpulist_count(const char *s);
/* A number or "N/A" for an unknown value, into buf. */
const char *fab_int_str(fab_int v, char *buf, size_t len);
/* snprintf that always terminates and never warns about truncation. */
void fab_strlcpy(char *dst, const char *src, size_t len);
/* This program's build: the GNU build ID of its executable in hex ("" when
 * the linker wrote none). Two fabtop binaries judge alike only when it is
 * the same: a capture's embedded report is used by that (nodedoc.h), and
 * never when it is "". */
void fab_build_id(char *buf, size_t len);
/* base (a node path) joined with rel, "." and ".." folded lexically (no
 * link is looked at), into out: "/a/b" + "../c" -> "/a/c". 0, -EXDEV when
 * a ".." climbs above "/", or -ENAMETOOLONG when a step does not fit in
 * len. The one folder of link targets: a root's, a capture's, a memtree's. */
int fab_path_fold(const char *base, const char *rel, char *out, size_t len);
/* The last component of path, trailing slashes ignored ("a/b/" -> "b/":
 * a pointer into path, so the slash stays). */
const char *fab_base_name(const char *path);
/* Functions of one PCIe device (0000:1a:00.0 and .1) share one link and
 * one card: true when the two bus addresses differ at most in the function. */
bool fab_bdf_same_slot(const char *a, const char *b);
/* The function number of a bus address ("0000:1a:00.1" -> 1), -1 if none. */
int fab_bdf_function(const char *bdf);
/* The directory of this program's executable (/proc/self/exe): where the
 * data installed with it is looked for first (scenarios, catalogs). 0, or
 * -1 when it cannot be read. */
int fab_exe_dir(char *buf, size_t len);
/* Appends to the string in buf (len bytes); stops quietly when it is full. */
__attribute__((format(printf, 3, 4)))
void fab_catf(char *buf, size_t len, const char *fmt, ...);
/* True when s is text a kernel attribute could hold: valid UTF-8 with
 * nothing the output sanitiser would escape (no C0 control but line ends
 * and tabs, no DEL, no C1 byte or code point), so not binary junk. */
bool fab_is_text(const char *s, size_t len);

/* The link width and speed in a port's rate: "400 Gb/sec (4X NDR)" -> 4 and
 * "NDR"; "10 Gb/sec (4X)" (older kernels print SDR without a name) -> 4 and "".
 * Widths are 1, 2, 4, 8 or 12; anything else, or no "(..X ..)", is false. */
bool fab_parse_rate_width(const char *s, int *width, char *speed, size_t slen);
/* A GID as sysfs prints it ("fe80:0000:0000:0000:b83f:d203:00a4:1c3e":
 * eight groups of four hex digits) into 16 bytes. */
bool fab_parse_gid(const char *s, unsigned char raw[16]);
/* An empty GID table slot reads as all zeros. */
bool fab_gid_is_zero(const unsigned char raw[16]);
/* The IP address a GID carries, "" when none: IPv4-mapped ::ffff:a.b.c.d ->
 * "a.b.c.d" (*ipv4 true); other RoCE GIDs, link-local included -> IPv6 text;
 * InfiniBand GIDs (roce false) are not addresses -> "". */
void fab_gid_ip(const unsigned char raw[16], bool roce, char *ip, size_t len, bool *ipv4);
/* Headers the kernel subtracts from a netdev MTU for RoCE (iboe_get_mtu()
 * in include/rdma/ib_addr.h: GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28
 * + ICRC 4, sizes from include/rdma/ib_pack.h). */
#define FAB_ROCE_MTU_OVERHEAD 96
/* The RoCE path MTU the kernel derives from a netdev MTU: the largest of
 * 4096/2048/1024/512/256 that fits after the headers; 0 when none fits. */
int fab_roce_mtu(long long netdev_mtu);
/* A per-priority 0/1 list ("0 0 0 1 0 0 0 0", "0,0,0,1,0,0,0,0": priority
 * 0 first, as mlnx_qos --pfc takes it) or a single hex mask ("0x08", "08",
 * bit p = priority p, as mlx4_en pfctx= takes it) -> mask of 8 bits. */
bool fab_parse_prio_mask(const char *s, long long *mask);
/* A flag attribute that reads "0" or "1" (ecn/.../enable/<p>, carrier). */
bool fab_parse_flag(const char *s, bool *on);
/* QoS trust state: "pcp" or "dscp" (any case, last word of the line). */
bool fab_parse_trust(const char *s, char *out, size_t len);
/* The RDMA netns mode in a NETLINK_RDMA reply to RDMA_NLDEV_CMD_SYS_GET
 * (buf: the bytes received, one or more netlink messages): "shared" (1) or
 * "exclusive" (0) into mode and 0; -errno of an NLMSG_ERROR reply; -ENOENT
 * when the reply does not carry the attribute; -EBADMSG when malformed. */
int fab_parse_rdma_sys(const void *buf, size_t len, char *mode, size_t mlen);

#endif
