/* bench/ethtool.c - what one ethtool statistic costs per interval: fabtop's
 * module (include/fabtop/ethtool.h: the socket kept open, the names listed
 * once, one ETHTOOL_GSTATS per netdev) against what scripts do (fork+exec
 * `ethtool -S IF` once per netdev per interval and parse its output), and
 * against the module listing again every interval (GSSET_INFO + GSTRINGS +
 * GSTATS, what a reader that keeps nothing pays). Run by bench/ethtool
 * inside a private network namespace holding the veth pairs; the netdevs to
 * read are the arguments.
 *
 * The methods run interleaved, round after round, and the medians are
 * reported, so a noisy neighbour moves all of them alike. Before timing,
 * one `ethtool -S` per netdev is checked against the module: same count,
 * same names, same values (the links are idle). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "fabtop/ethtool.h"

#define ROUNDS 11
#define MAXDEV 64

static volatile unsigned long long sink;

/* `ethtool -S ifname` into buf (NUL-terminated); bytes read, or -1. */
static ssize_t run_ethtool(const char *ifname, char *buf, size_t len)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	pid_t c = fork();
	if (c < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (c == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execlp("ethtool", "ethtool", "-S", ifname, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	size_t got = 0;
	ssize_t r;
	while (got + 1 < len && ((r = read(p[0], buf + got, len - 1 - got)) > 0 ||
				 (r < 0 && errno == EINTR)))
		if (r > 0)
			got += (size_t)r;
	buf[got] = '\0';
	close(p[0]);
	int st;
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? (ssize_t)got : -1;
}

/* What a script does with it: "     name: value" lines after the header.
 * Names into names[] when given; returns how many values. */
static int parse_ethtool(char *buf, unsigned long long *vals, int max,
			 char (*names)[ETHTOOL_NAME_LEN + 1])
{
	int n = 0;
	char *save = NULL;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *colon = strrchr(l, ':');
		if (!colon || colon[1] != ' ' || n >= max)
			continue;   /* "NIC statistics:" */
		vals[n] = strtoull(colon + 2, NULL, 10);
		if (names) {
			*colon = '\0';
			while (*l == ' ' || *l == '\t')
				l++;
			snprintf(names[n], sizeof(names[n]), "%s", l);
		}
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	int ndev = argc - 1;
	if (ndev < 1 || ndev > MAXDEV) {
		fprintf(stderr, "usage: %s IF... (bench/ethtool makes them)\n", argv[0]);
		return 2;
	}
	char err[512];
	struct fab_ethtool *e;
	if (ethtool_open(&e, -1, err, sizeof(err)) != ETHTOOL_ST_OK) {
		fprintf(stderr, "bench/ethtool: %s\n", err);
		return 1;
	}
	struct fab_ethtool_set *sets = calloc((size_t)ndev, sizeof(*sets));
	uint64_t *vals = NULL;
	unsigned total = 0, nmax = 0;
	for (int i = 0; i < ndev; i++) {
		if (ethtool_list(e, argv[i + 1], &sets[i], err, sizeof(err)) != ETHTOOL_ST_OK) {
			fprintf(stderr, "bench/ethtool: %s\n", err);
			return 1;
		}
		total += sets[i].n;
		if (sets[i].n > nmax)
			nmax = sets[i].n;
	}
	vals = calloc(nmax, sizeof(*vals));
	size_t outlen = (size_t)nmax * 80 + 4096;
	char *out = malloc(outlen);
	unsigned long long *pv = calloc(nmax, sizeof(*pv));
	char (*pn)[ETHTOOL_NAME_LEN + 1] = calloc(nmax, sizeof(*pn));
	printf("bench/ethtool: ns per ethtool statistic read, median of %d interleaved rounds\n",
	       ROUNDS);
	printf("  %d netdevs, %u statistics each (%u in all), as the driver counts them\n",
	       ndev, sets[0].n, total);

	/* ethtool -S there? And does it say what the module reads? */
	bool have = run_ethtool(argv[1], out, outlen) >= 0;
	for (int i = 0; have && i < ndev; i++) {
		if (ethtool_read(e, &sets[i], vals, nmax, err, sizeof(err)) != ETHTOOL_ST_OK) {
			fprintf(stderr, "bench/ethtool: %s\n", err);
			return 1;
		}
		if (run_ethtool(argv[i + 1], out, outlen) < 0) {
			fprintf(stderr, "bench/ethtool: ethtool -S %s failed\n", argv[i + 1]);
			return 1;
		}
		int n = parse_ethtool(out, pv, (int)nmax, pn);
		bool same = n == (int)sets[i].n;
		for (int k = 0; same && k < n; k++)
			same = pv[k] == vals[k] && strcmp(pn[k], sets[i].names[k]) == 0;
		if (!same)
			printf("  note: ethtool -S %s does not say what the module read (%d values, "
			       "%u listed; a link not idle?)\n", argv[i + 1], n, sets[i].n);
	}
	if (!have)
		printf("  (b) skipped: `ethtool` is not installed (Debian package ethtool)\n");

	/* Intervals per round: ~40k statistics for (a) and (c), a few for (b). */
	int ka = 40000 / (int)total + 1, kb = 3, kc = ka / 4 + 1;
	double a[ROUNDS], b[ROUNDS], c[ROUNDS], ba[ROUNDS], ca[ROUNDS];
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = bench_now();
		for (int k = 0; k < ka; k++)
			for (int i = 0; i < ndev; i++) {
				if (ethtool_read(e, &sets[i], vals, nmax, err, sizeof(err)) != ETHTOOL_ST_OK) {
					fprintf(stderr, "bench/ethtool: %s\n", err);
					return 1;
				}
				sink += vals[0];
			}
		double t1 = bench_now();
		for (int k = 0; have && k < kb; k++)
			for (int i = 0; i < ndev; i++) {
				if (run_ethtool(argv[i + 1], out, outlen) < 0) {
					fprintf(stderr, "bench/ethtool: ethtool -S %s failed\n", argv[i + 1]);
					return 1;
				}
				sink += (unsigned long long)parse_ethtool(out, pv, (int)nmax, NULL);
			}
		double t2 = bench_now();
		for (int k = 0; k < kc; k++)
			for (int i = 0; i < ndev; i++) {
				struct fab_ethtool_set s = { 0 };
				if (ethtool_list(e, argv[i + 1], &s, err, sizeof(err)) != ETHTOOL_ST_OK ||
				    ethtool_read(e, &s, vals, nmax, err, sizeof(err)) != ETHTOOL_ST_OK) {
					fprintf(stderr, "bench/ethtool: %s\n", err);
					return 1;
				}
				sink += vals[0];
				ethtool_set_free(&s);
			}
		double t3 = bench_now();
		a[r] = (t1 - t0) / ((double)ka * total) * 1e9;
		b[r] = have ? (t2 - t1) / ((double)kb * total) * 1e9 : 0;
		c[r] = (t3 - t2) / ((double)kc * total) * 1e9;
		ba[r] = b[r] / a[r];
		ca[r] = c[r] / a[r];
	}
	printf("  (a) fabtop: ethtool_read on the kept socket, names listed once\n"
	       "  (b) fork+exec `ethtool -S IF` per netdev per interval, output parsed\n"
	       "  (c) fabtop listing again every interval (GSSET_INFO+GSTRINGS+GSTATS)\n");
	/* fork+exec waits for a CPU each time: on a busy machine (b) grows the most. */
	FILE *la = fopen("/proc/loadavg", "r");
	char load[64] = "?";
	if (la && fgets(load, sizeof(load), la))
		load[strcspn(load, " ")] = '\0';
	if (la)
		fclose(la);
	printf("  load average (1 min) at the end: %s on %ld CPUs\n", load, sysconf(_SC_NPROCESSORS_ONLN));
	double ma = bench_median(a, ROUNDS), mb = bench_median(b, ROUNDS), mc = bench_median(c, ROUNDS);
	printf("%-26s %9s %9s %9s %8s %8s\n", "", "(a)", "(b)", "(c)", "b/a", "c/a");
	printf("%-26s %9.1f %9.1f %9.1f %8.1f %8.2f\n", "ns per statistic", ma, mb, mc,
	       bench_median(ba, ROUNDS), bench_median(ca, ROUNDS));
	printf("%-26s %9.3f %9.3f %9.3f\n", "ms per interval (all)", ma * total / 1e6,
	       mb * total / 1e6, mc * total / 1e6);
	for (int i = 0; i < ndev; i++)
		ethtool_set_free(&sets[i]);
	free(sets);
	free(vals);
	free(out);
	free(pv);
	free(pn);
	ethtool_close(e);
	return 0;
}
