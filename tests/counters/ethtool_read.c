/* ethtool_read - the ethtool statistics module (include/fabtop/ethtool.h) on
 * a real netdev, for tests/counters/t_ethtool_veth.sh.
 *
 *   ethtool_read [-n NETNS] [-R RX,TX] IF
 *     opens the reader (in NETNS's namespace: a /run/netns/NAME or
 *     /proc/PID/ns/net path), lists IF's statistics, reads them and prints
 *       # IF n=N
 *       name=value          (one per statistic, listed order; bytes outside
 *                            printable ASCII as \xNN)
 *     With -R, between listing and reading IF's channels are set to RX,TX
 *     (a write: test set-up only), so the read must say "relist ..."; the
 *     tool then lists again ("# IF n=N" anew) and reads.
 *     A failure prints "error STEP WORD: reason" (STEP open, list or read;
 *     WORD ethtool_status_word()) and exits 1.
 *
 *   ethtool_read --set IF gro|tso on|off
 *     test set-up only: turns veth's GRO or TSO on or off (legacy
 *     ETHTOOL_SGRO/STSO), so its NAPI path (which counts rx_queue_N_xdp_*)
 *     carries a ping. fabtop itself never writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "fabtop/ethtool.h"

static int set_ioctl(const char *ifname, void *data)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = data;
	int r = ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? errno : 0;
	close(fd);
	return r;
}

static int set_feature(const char *ifname, const char *what, const char *onoff)
{
	struct ethtool_value v = { .data = strcmp(onoff, "on") == 0 };
	if (strcmp(what, "gro") == 0)
		v.cmd = ETHTOOL_SGRO;
	else if (strcmp(what, "tso") == 0)
		v.cmd = ETHTOOL_STSO;
	else
		return EINVAL;
	return set_ioctl(ifname, &v);
}

static int set_channels(const char *ifname, unsigned rx, unsigned tx)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	int r = set_ioctl(ifname, &ch);
	if (r)
		return r;
	ch.cmd = ETHTOOL_SCHANNELS;
	ch.rx_count = rx;
	ch.tx_count = tx;
	return set_ioctl(ifname, &ch);
}

static void put_name(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x21 && c < 0x7f && c != '\\' && c != '=')
			putchar(c);
		else
			printf("\\x%02x", c);
	}
}

static int list(struct fab_ethtool *e, const char *ifname, struct fab_ethtool_set *s)
{
	char err[512];
	int st = ethtool_list(e, ifname, s, err, sizeof(err));
	if (st != ETHTOOL_ST_OK) {
		printf("error list %s: %s\n", ethtool_status_word(st), err);
		return -1;
	}
	printf("# %s n=%u\n", s->ifname, s->n);
	return 0;
}

int main(int argc, char **argv)
{
	const char *netns = NULL;
	unsigned rx = 0, tx = 0;
	int opt;
	if (argc == 5 && strcmp(argv[1], "--set") == 0) {
		int r = set_feature(argv[2], argv[3], argv[4]);
		if (r)
			fprintf(stderr, "ethtool_read: --set %s %s %s: %s\n", argv[2], argv[3],
				argv[4], strerror(r));
		return r ? 1 : 0;
	}
	while ((opt = getopt(argc, argv, "n:R:")) != -1) {
		if (opt == 'n')
			netns = optarg;
		else if (opt == 'R' && sscanf(optarg, "%u,%u", &rx, &tx) == 2)
			;
		else
			goto usage;
	}
	if (optind != argc - 1)
		goto usage;
	const char *ifname = argv[optind];
	char err[512];
	int nsfd = -1;
	if (netns && (nsfd = open(netns, O_RDONLY | O_CLOEXEC)) < 0) {
		printf("error open fail: %s: %s\n", netns, strerror(errno));
		return 1;
	}
	struct fab_ethtool *e;
	int st = ethtool_open(&e, nsfd, err, sizeof(err));
	if (nsfd >= 0)
		close(nsfd);   /* the reader does not need it: its socket holds the namespace */
	if (st != ETHTOOL_ST_OK) {
		printf("error open %s: %s\n", ethtool_status_word(st), err);
		return 1;
	}
	struct fab_ethtool_set s = { 0 };
	uint64_t *vals = NULL;
	int rc = 1;
	if (list(e, ifname, &s) < 0)
		goto out;
	if (rx) {
		int r = set_channels(ifname, rx, tx);
		if (r) {
			printf("error set-channels fail: %s\n", strerror(r));
			goto out;
		}
		vals = calloc(s.n, sizeof(*vals));
		st = ethtool_read(e, &s, vals, s.n, err, sizeof(err));
		if (st != ETHTOOL_ST_RELIST) {
			printf("error read %s: expected relist after the channels changed (%s)\n",
			       ethtool_status_word(st), st ? err : "values given");
			goto out;
		}
		printf("relist: %s\n", err);
		free(vals);
		vals = NULL;
		if (list(e, ifname, &s) < 0)
			goto out;
	}
	vals = calloc(s.n, sizeof(*vals));
	if (!vals)
		goto out;
	st = ethtool_read(e, &s, vals, s.n, err, sizeof(err));
	if (st != ETHTOOL_ST_OK) {
		printf("error read %s: %s\n", ethtool_status_word(st), err);
		goto out;
	}
	for (uint32_t i = 0; i < s.n; i++) {
		put_name(s.names[i]);
		printf("=%llu\n", (unsigned long long)vals[i]);
	}
	rc = 0;
out:
	free(vals);
	ethtool_set_free(&s);
	ethtool_close(e);
	return rc;
usage:
	fprintf(stderr, "usage: ethtool_read [-n NETNS] [-R RX,TX] IF\n"
			"       ethtool_read --set IF gro|tso on|off\n");
	return 2;
}
