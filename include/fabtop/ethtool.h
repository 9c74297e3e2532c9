/*
 * ethtool.h - a netdev's driver statistics ("ethtool -S"), read from the
 * kernel without privileges, inside the network namespace where the netdev
 * lives. mlx5 keeps RoCE loss, pauses, PCIe stalls and pre-FEC errors there
 * (rx_prio3_pause, rx_discards_phy, rx_pcs_symbol_err_phy, ...), nowhere else.
 *
 * How: the SIOCETHTOOL ioctl on one datagram socket kept open.
 *   ETHTOOL_GSSET_INFO(ETH_SS_STATS) -> how many (ETHTOOL_GDRVINFO n_stats on
 *   kernels without it), ETHTOOL_GSTRINGS -> the names, ETHTOOL_GSTATS ->
 *   the values in the same order. All three are in the kernel's "allowed to
 *   anyone" list (net/ethtool/ioctl.c, __dev_ethtool), so no capability is
 *   needed; the netdev is looked up by name in the socket's namespace
 *   (sock_net), which is why the socket is what is opened in a job's
 *   namespace, never the process.
 *
 * Why not the ethtool netlink family: ETHTOOL_MSG_STATS_GET carries only the
 * standard groups (IEEE 802.3 PHY/MAC/control, RMON), not the driver's own
 * counters, and its STRSET_GET serves the same ETH_SS_STATS names that
 * GSTRINGS does; the values of the driver's own names exist only through
 * ETHTOOL_GSTATS. So the ioctl alone, one syscall per netdev per interval.
 *
 * The count can change between the calls (mlx5 adds per-channel and PTP
 * groups at run time; channels change; the driver reloads). Kernels before
 * commit 7b07be1ff1cb ("ethtool: Avoid overflowing userspace buffer on stats
 * query", December 2025, backported to the stable series; 6.18.44 has it)
 * write as many values and names as the driver counts at that moment,
 * whatever the caller's buffer holds; newer ones answer a count of 0 when
 * the caller's n_stats differs. Both are handled: every reply buffer is
 * followed by an inaccessible guard page (an older kernel's larger reply
 * ends in EFAULT instead of overwriting memory), and a reply whose count is
 * not the listed one returns ETHTOOL_ST_RELIST: values are never given to
 * names they do not belong to (`ethtool -S` then prints zeros, or "no stats
 * available"). A change that keeps the count (rx and tx channels swapped)
 * cannot be seen from GSTATS: list again when the netdev's ifindex changes.
 *
 * Names are the driver's bytes: ETH_GSTRING_LEN (32) each, possibly without
 * a NUL, possibly anything. They are kept as bytes cut at the first NUL
 * (at most 32, then a NUL is added) and never interpreted here; printing
 * goes through the print layer, which sanitises. Names may repeat: a
 * statistic is its index in the list, not its name.
 *
 * The namespace: ethtool_open(netns_fd = -1) uses fabtop's own; with a
 * /proc/PID/ns/net (or /run/netns/NAME) fd, a short-lived thread enters that
 * namespace with setns(), opens the socket, goes back and ends, so the rest
 * of fabtop never changes namespace. setns() needs CAP_SYS_ADMIN: without it
 * ethtool_open fails with ETHTOOL_ST_PERM and says so. An fd of fabtop's
 * own namespace (a job sharing it) needs no setns and no privilege. The fd
 * is not kept (close it after ethtool_open), but the socket holds the
 * namespace alive (and with it any netdev in it, e.g. a VF that would go
 * back to the host when the pod ends): close the reader when the job whose
 * namespace it reads is gone.
 *
 * Names to read come from the node (the HCA's netdev), never from a user:
 * for a name that does not exist, a caller with CAP_NET_ADMIN makes the
 * kernel ask modprobe for "netdev-NAME" (dev_load() in dev_ioctl()), as
 * `ethtool -S NAME` does.
 *
 * Cost: one ioctl per netdev per interval (plus the driver's own work: mlx5
 * queries the firmware for the physical-port groups on each call; functions
 * whose reads hurt, SMDL=SW_MNG, must not be read at all).
 *
 * Sequence: ethtool_open() -> for each netdev ethtool_list() once ->
 *   ethtool_read() every interval (ETHTOOL_ST_RELIST: ethtool_list() again,
 *   then read) -> ethtool_set_free() per netdev -> ethtool_close().
 * A reader is used by one thread at a time.
 */
#ifndef FABTOP_ETHTOOL_H
#define FABTOP_ETHTOOL_H

#include <stddef.h>
#include <stdint.h>

#define ETHTOOL_NAME_LEN  32         /* ETH_GSTRING_LEN: bytes per name from the kernel */
#define ETHTOOL_IFNAME_LEN 16        /* IFNAMSIZ, its NUL included */
/* More than any driver lists (mlx5 with 256 channels: ~20000); a count above
 * it is refused, not allocated. */
#define ETHTOOL_MAX_STATS (1u << 18)

/* Every function returns one of these (0 or 1: usable; < 0: why not). */
enum ethtool_status {
	ETHTOOL_ST_OK      = 0,
	ETHTOOL_ST_RELIST  = 1,  /* the driver's count changed since ethtool_list():
				  * no value was taken; list again */
	ETHTOOL_ST_NODEV   = -1, /* ENODEV: no such netdev in the reader's namespace */
	ETHTOOL_ST_NOSTATS = -2, /* EOPNOTSUPP, or a count of 0: the driver has none */
	ETHTOOL_ST_PERM    = -3, /* EPERM/EACCES: refused (setns without
				  * CAP_SYS_ADMIN; an LSM or seccomp on SIOCETHTOOL) */
	ETHTOOL_ST_FAIL    = -4, /* anything else (err says what) */
};

/* The reader: one socket in one network namespace (opaque). */
struct fab_ethtool;

/* One netdev's listed statistics. */
struct fab_ethtool_set {
	char ifname[ETHTOOL_IFNAME_LEN];
	uint32_t n;                           /* statistics listed (> 0 once listed) */
	char (*names)[ETHTOOL_NAME_LEN + 1];  /* n names: the driver's bytes cut at
					       * the first NUL; untrusted */
	/* private: the guarded GSTATS reply buffer */
	void *buf;
	size_t buf_len;
	uint32_t cap;                         /* values the buffer holds before its guard */
};

/* Opens the reader in fabtop's namespace (netns_fd -1) or in netns_fd's.
 * *e is NULL on failure. 0, or a status < 0 with err ("reading another
 * network namespace needs CAP_SYS_ADMIN", "fd 5 is not a network
 * namespace", ...). */
int ethtool_open(struct fab_ethtool **e, int netns_fd, char *err, size_t len);
void ethtool_close(struct fab_ethtool *e);

/* Lists ifname's statistics into s (whatever s held is freed first; s must
 * be zeroed or listed before). Call once per netdev, and again after
 * ETHTOOL_ST_RELIST. 0, or a status < 0 with err (then s is empty). */
int ethtool_list(struct fab_ethtool *e, const char *ifname, struct fab_ethtool_set *s,
		 char *err, size_t len);

/* Reads the values of s's netdev now into vals[0..s->n-1], in the listed
 * order (nvals must be >= s->n). One ioctl. 0; ETHTOOL_ST_RELIST (vals
 * untouched) when the driver's count is no longer s->n; or a status < 0
 * with err (the netdev vanished: ETHTOOL_ST_NODEV). */
int ethtool_read(struct fab_ethtool *e, struct fab_ethtool_set *s, uint64_t *vals,
		 size_t nvals, char *err, size_t len);

void ethtool_set_free(struct fab_ethtool_set *s);

/* "ok", "relist", "nodev", "nostats", "perm", "fail": one word per status,
 * for JSON and test output. */
const char *ethtool_status_word(int st);

/* ---- the pure parts (no kernel), exposed for the unit tests ---- */

/* One raw 32-byte name -> out (the bytes before the first NUL, then NUL);
 * returns its length (<= ETHTOOL_NAME_LEN). */
size_t ethtool_name_cut(char out[ETHTOOL_NAME_LEN + 1], const void *raw);

/* A GSTRINGS reply (n names of ETHTOOL_NAME_LEN bytes at raw) -> s->names,
 * s->n. 0, or ETHTOOL_ST_NOSTATS (n == 0) / ETHTOOL_ST_FAIL (n over
 * ETHTOOL_MAX_STATS, out of memory) with err. */
int ethtool_take_names(struct fab_ethtool_set *s, const void *raw, uint32_t n,
		       char *err, size_t len);

/* A GSTATS reply: the kernel reported `reported` values at data. Copies them
 * into vals when reported == s->n; ETHTOOL_ST_RELIST with err otherwise. */
int ethtool_take_values(const struct fab_ethtool_set *s, uint32_t reported,
			const uint64_t *data, uint64_t *vals, size_t nvals,
			char *err, size_t len);

/* An errno from SIOCETHTOOL (what: "ETHTOOL_GSTATS") -> its status, with a
 * one-line reason in err. */
int ethtool_errno_status(int errnum, const char *ifname, const char *what,
			 char *err, size_t len);

#endif
