/* ethtool.c - a netdev's driver statistics through SIOCETHTOOL (the
 * contract is include/fabtop/ethtool.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabtop/ethtool.h"

_Static_assert(ETHTOOL_NAME_LEN == ETH_GSTRING_LEN, "ETH_GSTRING_LEN");
_Static_assert(ETHTOOL_IFNAME_LEN == IFNAMSIZ, "IFNAMSIZ");

struct fab_ethtool {
	int fd;
};

const char *ethtool_status_word(int st)
{
	switch (st) {
	case ETHTOOL_ST_OK: return "ok";
	case ETHTOOL_ST_RELIST: return "relist";
	case ETHTOOL_ST_NODEV: return "nodev";
	case ETHTOOL_ST_NOSTATS: return "nostats";
	case ETHTOOL_ST_PERM: return "perm";
	default: return "fail";
	}
}

/* ---- the pure parts ---- */

size_t ethtool_name_cut(char out[ETHTOOL_NAME_LEN + 1], const void *raw)
{
	const char *nul = memchr(raw, '\0', ETHTOOL_NAME_LEN);
	size_t n = nul ? (size_t)(nul - (const char *)raw) : ETHTOOL_NAME_LEN;
	memcpy(out, raw, n);
	out[n] = '\0';
	return n;
}

int ethtool_take_names(struct fab_ethtool_set *s, const void *raw, uint32_t n,
		       char *err, size_t len)
{
	if (n == 0) {
		snprintf(err, len, "%s: its driver lists no ethtool statistics", s->ifname);
		return ETHTOOL_ST_NOSTATS;
	}
	if (n > ETHTOOL_MAX_STATS) {
		snprintf(err, len, "%s: its driver lists %u ethtool statistics, more than the %u "
			 "fabtop reads", s->ifname, n, ETHTOOL_MAX_STATS);
		return ETHTOOL_ST_FAIL;
	}
	char (*names)[ETHTOOL_NAME_LEN + 1] = calloc(n, sizeof(*names));
	if (!names) {
		snprintf(err, len, "%s: out of memory for %u statistic names", s->ifname, n);
		return ETHTOOL_ST_FAIL;
	}
	for (uint32_t i = 0; i < n; i++)
		ethtool_name_cut(names[i], (const char *)raw + (size_t)i * ETHTOOL_NAME_LEN);
	free(s->names);
	s->names = names;
	s->n = n;
	return ETHTOOL_ST_OK;
}

int ethtool_take_values(const struct fab_ethtool_set *s, uint32_t reported,
			const uint64_t *data, uint64_t *vals, size_t nvals,
			char *err, size_t len)
{
	if (reported != s->n) {
		if (reported == 0)    /* 7b07be1ff1cb: the kernel's answer to a mismatch */
			snprintf(err, len, "%s: the driver no longer counts the %u ethtool statistics "
				 "listed (the kernel answered none): list again", s->ifname, s->n);
		else
			snprintf(err, len, "%s: the driver now counts %u ethtool statistics, %u were "
				 "listed: list again", s->ifname, reported, s->n);
		return ETHTOOL_ST_RELIST;
	}
	if (nvals < s->n) {
		snprintf(err, len, "%s: room for %zu values, %u listed", s->ifname, nvals, s->n);
		return ETHTOOL_ST_FAIL;
	}
	memcpy(vals, data, (size_t)s->n * sizeof(*vals));
	return ETHTOOL_ST_OK;
}

int ethtool_errno_status(int errnum, const char *ifname, const char *what,
			 char *err, size_t len)
{
	switch (errnum) {
	case ENODEV:
	case ENXIO:
		snprintf(err, len, "%s: no such netdev in the network namespace read (%s: %s)",
			 ifname, what, strerror(errnum));
		return ETHTOOL_ST_NODEV;
	case EOPNOTSUPP:
		snprintf(err, len, "%s: its driver has no ethtool statistics (%s: %s)",
			 ifname, what, strerror(errnum));
		return ETHTOOL_ST_NOSTATS;
	case EPERM:
	case EACCES:
		snprintf(err, len, "%s: %s refused: %s (the kernel lets anyone read statistics: "
			 "an LSM or seccomp policy forbids SIOCETHTOOL here)",
			 ifname, what, strerror(errnum));
		return ETHTOOL_ST_PERM;
	default:
		snprintf(err, len, "%s: %s failed: %s", ifname, what, strerror(errnum));
		return ETHTOOL_ST_FAIL;
	}
}

/* ---- the socket, here or in another namespace ---- */

static int plain_socket(void)
{
	/* Any family reaches dev_ioctl(); AF_UNIX where IPv4 is compiled out. */
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	return fd;
}

struct ns_job {
	int netns_fd;
	int fd;             /* the socket opened there, or -1 */
	int err;            /* errno of what failed */
	const char *step;   /* which call failed */
};

/* Runs on its own thread: network namespaces are per thread, so only this
 * thread enters netns_fd's, and it goes back before it ends. */
static void *ns_thread(void *arg)
{
	struct ns_job *j = arg;
	int home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0) {
		j->err = errno;
		j->step = "open /proc/thread-self/ns/net";
		return NULL;
	}
	if (setns(j->netns_fd, CLONE_NEWNET) != 0) {
		j->err = errno;
		j->step = "setns";
	} else {
		j->fd = plain_socket();
		if (j->fd < 0) {
			j->err = errno;
			j->step = "socket";
		}
		/* Back home; if that failed the thread still ends here, taking
		 * the foreign namespace with it. */
		(void)setns(home, CLONE_NEWNET);
	}
	close(home);
	return NULL;
}

static int netns_socket(int netns_fd, char *err, size_t len)
{
	struct ns_job j = { .netns_fd = netns_fd, .fd = -1, .err = 0, .step = "" };
	pthread_t t;
	int e = pthread_create(&t, NULL, ns_thread, &j);
	if (e != 0) {
		snprintf(err, len, "cannot start a thread to enter the network namespace: %s",
			 strerror(e));
		return ETHTOOL_ST_FAIL;
	}
	pthread_join(t, NULL);
	if (j.fd >= 0)
		return j.fd;
	if (strcmp(j.step, "setns") == 0 && j.err == EPERM) {
		snprintf(err, len, "reading another network namespace needs CAP_SYS_ADMIN "
			 "(setns: %s); run fabtop as root, or inside the job's namespace",
			 strerror(j.err));
		return ETHTOOL_ST_PERM;
	}
	if (strcmp(j.step, "setns") == 0 && j.err == EINVAL) {
		snprintf(err, len, "fd %d is not a network namespace (setns: %s)", netns_fd,
			 strerror(j.err));
		return ETHTOOL_ST_FAIL;
	}
	snprintf(err, len, "cannot open a socket in the network namespace of fd %d (%s: %s)",
		 netns_fd, j.step, strerror(j.err));
	return j.err == EPERM || j.err == EACCES ? ETHTOOL_ST_PERM : ETHTOOL_ST_FAIL;
}

/* netns_fd names the namespace this thread is in already (a job that shares
 * fabtop's): then no setns, and no privilege, is needed. */
static bool netns_is_ours(int netns_fd)
{
	struct stat a, b;
	return fstat(netns_fd, &a) == 0 && stat("/proc/thread-self/ns/net", &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int ethtool_open(struct fab_ethtool **e, int netns_fd, char *err, size_t len)
{
	*e = NULL;
	int fd;
	if (netns_fd < 0 || netns_is_ours(netns_fd)) {
		fd = plain_socket();
		if (fd < 0) {
			int en = errno;
			snprintf(err, len, "cannot open a socket for SIOCETHTOOL: %s", strerror(en));
			return en == EPERM || en == EACCES ? ETHTOOL_ST_PERM : ETHTOOL_ST_FAIL;
		}
	} else if ((fd = netns_socket(netns_fd, err, len)) < 0) {
		return fd;
	}
	*e = calloc(1, sizeof(**e));
	if (!*e) {
		close(fd);
		snprintf(err, len, "out of memory");
		return ETHTOOL_ST_FAIL;
	}
	(*e)->fd = fd;
	return ETHTOOL_ST_OK;
}

void ethtool_close(struct fab_ethtool *e)
{
	if (!e)
		return;
	close(e->fd);
	free(e);
}

/* ---- the ioctls ---- */

/* A reply buffer of at least size bytes, followed by a PROT_NONE page: the
 * kernel writes what the driver counts now, so a reply larger than planned
 * faults (EFAULT) instead of running over. *cap_len: usable bytes. */
static void *guarded_alloc(size_t size, size_t *cap_len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t usable = (size + pg - 1) / pg * pg;
	if (usable == 0)
		usable = pg;
	char *p = mmap(NULL, usable + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + usable, pg, PROT_NONE) != 0) {
		munmap(p, usable + pg);
		return NULL;
	}
	*cap_len = usable;
	return p;
}

static void guarded_free(void *p, size_t cap_len)
{
	if (p)
		munmap(p, cap_len + (size_t)sysconf(_SC_PAGESIZE));
}

/* SIOCETHTOOL on ifname with data; 0 or errno. */
static int eth_ioctl(const struct fab_ethtool *e, const char *ifname, void *data)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strlen(ifname) + 1);
	ifr.ifr_data = data;
	int r;
	while ((r = ioctl(e->fd, SIOCETHTOOL, &ifr)) < 0 && errno == EINTR)
		;
	return r < 0 ? errno : 0;
}

/* The driver's ETH_SS_STATS count now (0: it has none): GSSET_INFO, or
 * GDRVINFO's n_stats on kernels older than GSSET_INFO (2.6.27). 0 or a
 * status < 0. */
static int stats_count(const struct fab_ethtool *e, const char *ifname, uint32_t *count,
		       char *err, size_t len)
{
	union {
		struct ethtool_sset_info info;
		char b[sizeof(struct ethtool_sset_info) + sizeof(uint32_t)];
	} u;
	memset(&u, 0, sizeof(u));
	u.info.cmd = ETHTOOL_GSSET_INFO;
	u.info.sset_mask = 1ULL << ETH_SS_STATS;
	int r = eth_ioctl(e, ifname, &u);
	if (r == 0) {
		/* The bit stays set only when the driver counts that set. */
		*count = (u.info.sset_mask & (1ULL << ETH_SS_STATS)) ? u.info.data[0] : 0;
		return ETHTOOL_ST_OK;
	}
	if (r == ENODEV || r == ENXIO || r == EPERM || r == EACCES)
		return ethtool_errno_status(r, ifname, "ETHTOOL_GSSET_INFO", err, len);
	struct ethtool_drvinfo di;
	memset(&di, 0, sizeof(di));
	di.cmd = ETHTOOL_GDRVINFO;
	r = eth_ioctl(e, ifname, &di);
	if (r != 0)
		return ethtool_errno_status(r, ifname, "ETHTOOL_GDRVINFO", err, len);
	*count = di.n_stats;
	return ETHTOOL_ST_OK;
}

void ethtool_set_free(struct fab_ethtool_set *s)
{
	free(s->names);
	guarded_free(s->buf, s->buf_len);
	memset(s, 0, sizeof(*s));
}

int ethtool_list(struct fab_ethtool *e, const char *ifname, struct fab_ethtool_set *s,
		 char *err, size_t len)
{
	ethtool_set_free(s);
	size_t il = strnlen(ifname, ETHTOOL_IFNAME_LEN);
	if (il == 0 || il >= ETHTOOL_IFNAME_LEN) {
		snprintf(err, len, "\"%.40s\" cannot be a netdev name (1 to %d bytes)", ifname,
			 ETHTOOL_IFNAME_LEN - 1);
		return ETHTOOL_ST_NODEV;
	}
	memcpy(s->ifname, ifname, il + 1);
	/* The count can change between GSSET_INFO and GSTRINGS (the kernel
	 * counts again for each): a reply past the guard is retried. */
	for (int attempt = 0; attempt < 3; attempt++) {
		uint32_t count = 0;
		int st = stats_count(e, ifname, &count, err, len);
		if (st < 0)
			return st;
		if (count == 0 || count > ETHTOOL_MAX_STATS)
			return ethtool_take_names(s, NULL, count, err, len);
		size_t cap_len;
		struct ethtool_gstrings *g = guarded_alloc(
			sizeof(*g) + (size_t)count * ETHTOOL_NAME_LEN, &cap_len);
		if (!g) {
			snprintf(err, len, "%s: cannot map a buffer for %u names: %s", ifname,
				 count, strerror(errno));
			return ETHTOOL_ST_FAIL;
		}
		g->cmd = ETHTOOL_GSTRINGS;
		g->string_set = ETH_SS_STATS;
		g->len = count;
		int r = eth_ioctl(e, ifname, g);
		uint32_t got = g->len;
		/* Counted again in between: an older kernel's larger reply ran
		 * into the guard (EFAULT), a newer one answers 0 names. */
		bool changed = r == EFAULT || (r == 0 && got == 0);
		if (r == 0 && !changed)
			st = ethtool_take_names(s, g->data, got, err, len);
		guarded_free(g, cap_len);
		if (changed)
			continue;
		if (r != 0)
			return ethtool_errno_status(r, ifname, "ETHTOOL_GSTRINGS", err, len);
		if (st < 0)
			return st;
		/* The GSTATS buffer: room for the listed count, then the guard. */
		s->buf = guarded_alloc(sizeof(struct ethtool_stats) + (size_t)s->n * sizeof(uint64_t),
				       &s->buf_len);
		if (!s->buf) {
			snprintf(err, len, "%s: cannot map a buffer for %u values: %s", ifname, s->n,
				 strerror(errno));
			ethtool_set_free(s);
			return ETHTOOL_ST_FAIL;
		}
		s->cap = (uint32_t)((s->buf_len - sizeof(struct ethtool_stats)) / sizeof(uint64_t));
		return ETHTOOL_ST_OK;
	}
	snprintf(err, len, "%s: its statistics kept changing in number while being listed",
		 ifname);
	ethtool_set_free(s);
	return ETHTOOL_ST_FAIL;
}

int ethtool_read(struct fab_ethtool *e, struct fab_ethtool_set *s, uint64_t *vals,
		 size_t nvals, char *err, size_t len)
{
	if (!s->buf || s->n == 0) {
		snprintf(err, len, "%s: not listed", s->ifname[0] ? s->ifname : "netdev");
		return ETHTOOL_ST_RELIST;
	}
	struct ethtool_stats *st = s->buf;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = s->n;
	int r = eth_ioctl(e, s->ifname, st);
	/* EFAULT with another count: the header was written before the data
	 * ran into the guard. */
	if (r != 0 && !(r == EFAULT && st->n_stats != s->n))
		return ethtool_errno_status(r, s->ifname, "ETHTOOL_GSTATS", err, len);
	return ethtool_take_values(s, st->n_stats, (const uint64_t *)(void *)st->data, vals, nvals, err, len);
}
