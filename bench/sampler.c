/* bench/sampler.c - what one counter costs per read: fabtop's sampler
 * (sampler_read: pread on kept-open files, a stat per port, the device
 * relist, the arithmetic), against the floor (a bare pread loop on the same
 * files already open) and against open/read/close per file, as most tools
 * read sysfs. Run by bench/sampler, which gives it an empty directory.
 *
 * Synthetic nodes: 16 HCAs x 2 ports with mlx5's counter set, and the same
 * plus 128 single-port VFs; each with plain files, and with every counter
 * read from a real sysfs attribute (/sys/class/net/.../statistics/...) so
 * the reads go through the kernel's show() path as on a live node. A root
 * never follows a link out of itself, so for those the sampler opens the
 * mirror's files and each of its fds is then replaced by one of the sysfs
 * attribute (its stat per port still goes to the mirror).
 *
 * The three methods run interleaved, round after round, and the medians
 * are reported, so a noisy neighbour moves all three alike. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "fabtop/sampler.h"

static const char *const pma[] = {
	"port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets",
	"unicast_xmit_packets", "unicast_rcv_packets", "multicast_xmit_packets",
	"multicast_rcv_packets", "symbol_error", "link_error_recovery", "link_downed",
	"port_rcv_errors", "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
	"local_link_integrity_errors", "excessive_buffer_overrun_errors", "port_xmit_discards",
	"port_xmit_constraint_errors", "port_rcv_constraint_errors", "VL15_dropped",
	"port_xmit_wait",
};

/* drivers/infiniband/hw/mlx5/counters.c: basic, out-of-sequence,
 * retransmission, congestion, extended errors, RoCE acceleration. */
static const char *const mlx5_hw[] = {
	"rx_write_requests", "rx_read_requests", "rx_atomic_requests", "rx_dct_connect",
	"out_of_buffer", "out_of_sequence", "duplicate_request", "rnr_nak_retry_err",
	"packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err", "rp_cnp_ignored",
	"rp_cnp_handled", "np_ecn_marked_roce_packets", "np_cnp_sent",
	"resp_local_length_error", "resp_cqe_error", "req_cqe_error",
	"req_remote_invalid_request", "req_remote_access_errors", "resp_remote_access_errors",
	"resp_cqe_flush_error", "req_cqe_flush_error", "req_transport_retries_exceeded",
	"req_rnr_retries_exceeded", "roce_adp_retrans", "roce_adp_retrans_to",
	"roce_slow_restart", "roce_slow_restart_cnps", "roce_slow_restart_trans",
	"rx_icrc_encapsulated", "lifespan",
};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Real sysfs attributes to link to, for the show() variant. */
static char **targets;
static int ntargets;

static int find_targets(void)
{
	DIR *nets = opendir("/sys/class/net");
	struct dirent *n;
	while (nets && (n = readdir(nets))) {
		char dir[PATH_MAX];
		if (n->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "/sys/class/net/%s/statistics", n->d_name);
		DIR *st = opendir(dir);
		struct dirent *a;
		while (st && (a = readdir(st))) {
			char p[PATH_MAX + 256], buf[64];
			if (a->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, a->d_name);
			int fd = open(p, O_RDONLY);
			if (fd < 0)
				continue;
			ssize_t r = pread(fd, buf, sizeof(buf), 0);
			close(fd);
			char **v = realloc(targets, (size_t)(ntargets + 1) * sizeof(*v));
			if (r <= 0 || !v)
				continue;
			targets = v;
			targets[ntargets++] = strdup(p);
		}
		if (st)
			closedir(st);
	}
	if (nets)
		closedir(nets);
	return ntargets;
}

static int mkdirs(const char *path)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

struct node {
	char **paths;            /* every counter file, for the other two methods */
	char **mirror;           /* its file in the mirror (the sysfs variant) */
	int n;
};

static int add_file(struct node *nd, const char *dir, const char *name, bool sysfs, int k)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (!f)
		return -1;
	fprintf(f, "%llu\n", 1234567890123ull * (unsigned)(k + 1));
	fclose(f);
	if (strcmp(name, "lifespan") == 0)
		return 0;
	char **v = realloc(nd->paths, (size_t)(nd->n + 1) * sizeof(*v));
	char **m = v ? realloc(nd->mirror, (size_t)(nd->n + 1) * sizeof(*m)) : NULL;
	if (v)
		nd->paths = v;
	if (!m)
		return -1;
	nd->mirror = m;
	nd->mirror[nd->n] = strdup(p);
	nd->paths[nd->n++] = strdup(sysfs ? targets[k % ntargets] : p);
	return 0;
}

static int make_port(struct node *nd, const char *top, int dev, int port, bool sysfs)
{
	char d[PATH_MAX], f[PATH_MAX + 16];
	int k = 0;
	snprintf(d, sizeof(d), "%s/sys/class/infiniband/mlx5_%d/ports/%d", top, dev, port);
	snprintf(f, sizeof(f), "%s/counters", d);
	if (mkdirs(f) < 0)
		return -1;
	for (int i = 0; i < N(pma); i++)
		if (add_file(nd, f, pma[i], sysfs, k++) < 0)
			return -1;
	snprintf(f, sizeof(f), "%s/hw_counters", d);
	if (mkdirs(f) < 0)
		return -1;
	for (int i = 0; i < N(mlx5_hw); i++)
		if (add_file(nd, f, mlx5_hw[i], sysfs, k++) < 0)
			return -1;
	snprintf(f, sizeof(f), "%s/rate", d);
	FILE *r = fopen(f, "w");
	if (!r)
		return -1;
	fputs("400 Gb/sec (4X NDR)\n", r);
	fclose(r);
	/* The device level holds only lifespan on mlx5 outside switchdev mode. */
	snprintf(f, sizeof(f), "%s/sys/class/infiniband/mlx5_%d/hw_counters", top, dev);
	if (mkdirs(f) < 0)
		return -1;
	return port == 1 ? add_file(nd, f, "lifespan", sysfs, 0) : 0;
}

static int make_node(struct node *nd, const char *top, int vfs, bool sysfs)
{
	for (int d = 0; d < 16; d++)
		for (int p = 1; p <= 2; p++)
			if (make_port(nd, top, d, p, sysfs) < 0)
				return -1;
	for (int v = 0; v < vfs; v++)
		if (make_port(nd, top, 16 + v, 1, sysfs) < 0)
			return -1;
	return 0;
}

/* The sysfs variant: each counter fd the sampler opened on the mirror is
 * replaced by one of the sysfs attribute that file stands for. */
static int to_sysfs(const struct node *nd, struct fab_sampler *s, const char *top)
{
	for (int i = 0; i < s->nctrs; i++) {
		const struct fab_ctr *c = &s->ctrs[i];
		char p[PATH_MAX + 256];
		snprintf(p, sizeof(p), "%s%s/%s/%s", top, s->ports[c->port].dirpath, c->dir, c->name);
		int j = 0;
		while (j < nd->n && strcmp(nd->mirror[j], p) != 0)
			j++;
		int fd = j < nd->n ? open(nd->paths[j], O_RDONLY | O_CLOEXEC) : -1;
		if (fd < 0 || c->fd < 0 || dup2(fd, c->fd) < 0) {
			fprintf(stderr, "bench/sampler: cannot put %s in place of %s\n",
				j < nd->n ? nd->paths[j] : "a sysfs attribute", p);
			return -1;
		}
		close(fd);
	}
	return 0;
}

static volatile unsigned long long sink;

#define ROUNDS 11

static int run(const char *label, const char *top, int vfs, bool sysfs)
{
	struct node nd = { 0 };
	struct fab_root r;
	struct fab_sampler s;
	char err[512];
	if (make_node(&nd, top, vfs, sysfs) < 0) {
		fprintf(stderr, "bench/sampler: cannot build the node under %s: %s\n", top,
			strerror(errno));
		return -1;
	}
	if (root_open(&r, top, err, sizeof(err)) < 0 ||
	    sampler_open(&s, &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench/sampler: %s\n", err);
		return -1;
	}
	if (s.nctrs != nd.n) {
		fprintf(stderr, "bench/sampler: the sampler opened %d counters, the node has %d\n",
			s.nctrs, nd.n);
		return -1;
	}
	if (sysfs && to_sysfs(&nd, &s, top) < 0)
		return -1;
	int *fds = calloc((size_t)nd.n, sizeof(int));
	for (int i = 0; i < nd.n; i++)
		if ((fds[i] = open(nd.paths[i], O_RDONLY | O_CLOEXEC)) < 0) {
			fprintf(stderr, "bench/sampler: %s: %s\n", nd.paths[i], strerror(errno));
			return -1;
		}
	/* About 40k counter reads per method per round. */
	int passes = 40000 / nd.n + 1;
	double a[ROUNDS], b[ROUNDS], c[ROUNDS], ab[ROUNDS], cb[ROUNDS], t = 1.0;
	char buf[32];
	sampler_read(&s, t);
	for (int k = 0; k < ROUNDS; k++) {
		double t0 = bench_now();
		for (int i = 0; i < passes; i++)
			sampler_read(&s, t += 1.0);
		double t1 = bench_now();
		for (int i = 0; i < passes; i++)
			for (int j = 0; j < nd.n; j++)
				sink += (unsigned long long)pread(fds[j], buf, sizeof(buf), 0);
		double t2 = bench_now();
		for (int i = 0; i < passes; i++)
			for (int j = 0; j < nd.n; j++) {
				int fd = open(nd.paths[j], O_RDONLY | O_CLOEXEC);
				sink += (unsigned long long)read(fd, buf, sizeof(buf));
				close(fd);
			}
		double t3 = bench_now(), reads = (double)passes * nd.n;
		a[k] = (t1 - t0) / reads * 1e9;
		b[k] = (t2 - t1) / reads * 1e9;
		c[k] = (t3 - t2) / reads * 1e9;
		ab[k] = a[k] / b[k];
		cb[k] = c[k] / b[k];
	}
	int bad = 0;
	for (int i = 0; i < s.nctrs; i++)
		bad += (s.ctrs[i].last.flags & (CTR_UNREADABLE | CTR_GONE)) != 0;
	printf("%-44s %6d %9.0f %9.0f %9.0f %7.2f %7.2f%s\n", label, nd.n,
	       bench_median(a, ROUNDS), bench_median(b, ROUNDS), bench_median(c, ROUNDS),
	       bench_median(ab, ROUNDS), bench_median(cb, ROUNDS),
	       bad ? "  (some counters unreadable!)" : "");
	sampler_close(&s);
	root_close(&r);
	for (int i = 0; i < nd.n; i++) {
		close(fds[i]);
		free(nd.paths[i]);
		free(nd.mirror[i]);
	}
	free(fds);
	free(nd.paths);
	free(nd.mirror);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s EMPTY-DIR (bench/sampler makes one)\n", argv[0]);
		return 2;
	}
	char dir[PATH_MAX];
	static const struct { const char *label, *sub; int vfs; bool sysfs; } v[] = {
		{ "16 HCAs x 2 ports, files", "files", 0, false },
		{ "16 HCAs x 2 ports + 128 VFs, files", "files-vf", 128, false },
		{ "16 HCAs x 2 ports, sysfs attributes", "sysfs", 0, true },
		{ "16 HCAs x 2 ports + 128 VFs, sysfs attributes", "sysfs-vf", 128, true },
	};
	bool have_sysfs = find_targets() > 0;
	printf("bench/sampler: ns per counter read, median of %d interleaved rounds\n", ROUNDS);
	printf("  (a) fabtop sampler_read   (b) floor: pread on open fds   "
	       "(c) open/read/close per file\n");
	printf("%-44s %6s %9s %9s %9s %7s %7s\n", "node", "ctrs", "(a)", "(b)", "(c)", "a/b",
	       "c/b");
	for (int i = 0; i < N(v); i++) {
		if (v[i].sysfs && !have_sysfs) {
			printf("%-44s skipped: no readable /sys/class/net/*/statistics\n", v[i].label);
			continue;
		}
		snprintf(dir, sizeof(dir), "%s/%s", argv[1], v[i].sub);
		if (run(v[i].label, dir, v[i].vfs, v[i].sysfs) < 0)
			return 1;
	}
	return 0;
}
