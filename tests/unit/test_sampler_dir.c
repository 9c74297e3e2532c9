/* The sampler over a real directory tree: counter files rewritten between
 * reads, a port directory removed and restored, a port replaced by a new
 * directory, a device that appears after open, unreadable files; and
 * playback of a samples.json written here, truncated and garbage ones too. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fabtop/model.h"
#include "fabtop/sampler.h"

#define IB "/sys/class/infiniband"

static char top[PATH_MAX];

static void mkdirs(const char *path)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

/* Writes node path rel under the fixture root, in place (same inode), as
 * the kernel's attribute would change under an open fd. */
static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s%s", top, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	mkdirs(p);
	*slash = '/';
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void setv(const char *dev, int port, const char *dir, const char *name, uint64_t v)
{
	char rel[PATH_MAX], text[32];
	if (port)
		snprintf(rel, sizeof(rel), IB "/%s/ports/%d/%s/%s", dev, port, dir, name);
	else
		snprintf(rel, sizeof(rel), IB "/%s/%s/%s", dev, dir, name);
	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)v);
	put(rel, text);
}

static void run(const char *const argv[])
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void mv(const char *from_rel, const char *to_rel)
{
	char a[PATH_MAX], b[PATH_MAX];
	snprintf(a, sizeof(a), "%s%s", top, from_rel);
	snprintf(b, sizeof(b), "%s%s", top, to_rel);
	assert_int_equal(rename(a, b), 0);
}

static void rm_rf(const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s%s", top, rel);
	const char *argv[] = { "rm", "-rf", "--", p, NULL };
	run(argv);
}

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static struct fab_ctr *ctr(struct fab_sampler *s, const char *dev, int port, const char *name)
{
	for (int i = 0; i < s->nctrs; i++) {
		const struct fab_series *p = &s->ports[s->ctrs[i].port];
		if (strcmp(p->dev, dev) == 0 && p->port == port && strcmp(s->ctrs[i].name, name) == 0)
			return &s->ctrs[i];
	}
	fail_msg("no counter %s/%d/%s", dev, port, name);
	return NULL;
}

static struct fab_series *port_of(struct fab_sampler *s, const char *dev, int port)
{
	for (int i = 0; i < s->nports; i++)
		if (strcmp(s->ports[i].dev, dev) == 0 && s->ports[i].port == port)
			return &s->ports[i];
	return NULL;
}

/* One HCA port: the PMA data/packet counters, two error counters, and
 * mlx5-style hw_counters including a Q-counter about to wrap. */
static void make_port(const char *dev, int port, const char *rate, const char *ll)
{
	char rel[PATH_MAX];
	snprintf(rel, sizeof(rel), IB "/%s/ports/%d/rate", dev, port);
	put(rel, rate);
	snprintf(rel, sizeof(rel), IB "/%s/ports/%d/link_layer", dev, port);
	put(rel, ll);
	setv(dev, port, "counters", "port_xmit_data", 1000);
	setv(dev, port, "counters", "port_rcv_data", 2000);
	setv(dev, port, "counters", "port_xmit_packets", 10);
	setv(dev, port, "counters", "port_rcv_packets", 20);
	setv(dev, port, "counters", "symbol_error", 65000);
	setv(dev, port, "counters", "port_xmit_wait", 0);
	setv(dev, port, "hw_counters", "out_of_sequence", 4294967290u);
	setv(dev, port, "hw_counters", "local_ack_timeout_err", 0);
	setv(dev, port, "hw_counters", "rx_write_requests", 5);
	setv(dev, port, "hw_counters", "lifespan", 10);
}

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/fabtop-sampler-XXXXXX");
	assert_non_null(mkdtemp(top));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	const char *argv[] = { "rm", "-rf", "--", top, NULL };
	run(argv);
	return 0;
}

static void test_live_dir(void **state)
{
	(void)state;
	make_port("mlx5_0", 1, "400 Gb/sec (4X NDR)\n", "InfiniBand\n");
	make_port("mlx5_1", 1, "200 Gb/sec (4X HDR)\n", "Ethernet\n");
	setv("mlx5_0", 0, "hw_counters", "lifespan", 10);
	setv("mlx5_0", 0, "hw_counters", "dev_ctr", 100);
	/* Not counters: a directory inside counters/, a non-numeric ports/ entry. */
	char rel[PATH_MAX], p[PATH_MAX];
	snprintf(p, sizeof(p), "%s" IB "/mlx5_0/ports/1/counters/subdir", top);
	mkdirs(p);
	put(IB "/mlx5_0/ports/uevent", "");

	struct fab_root r;
	struct fab_sampler s;
	char err[512] = "";
	assert_int_equal(root_open(&r, top, err, sizeof(err)), 0);
	int fds0 = count_fds();   /* the root holds its directory open */
	assert_int_equal(sampler_open(&s, &r, err, sizeof(err)), 0);
	/* mlx5_0 device level (dev_ctr), mlx5_0/1 and mlx5_1/1: 9 counters each. */
	assert_int_equal(s.nports, 3);
	assert_int_equal(s.nctrs, 19);
	assert_string_equal(s.ports[0].dev, "mlx5_0");
	assert_int_equal(s.ports[0].port, 0);
	assert_int_equal(s.ports[0].nctr, 1);
	assert_int_equal(s.ports[1].port, 1);
	assert_int_equal(s.ports[1].nctr, 9);
	assert_int_equal(s.ports[1].first_ctr, 1);
	for (int i = 0; i < s.nctrs; i++) {
		assert_string_not_equal(s.ctrs[i].name, "lifespan");
		assert_string_not_equal(s.ctrs[i].name, "subdir");
		assert_true(s.ctrs[i].fd >= 0);
	}
	assert_int_equal(count_fds(), fds0 + 19);

	/* t=100: first readings. */
	assert_int_equal(sampler_read(&s, 100.0), 0);
	struct fab_ctr *xd = ctr(&s, "mlx5_0", 1, "port_xmit_data");
	assert_int_equal(xd->last.flags, CTR_FIRST);
	assert_true(xd->value == 1000);
	assert_false(s.ports[1].has_rates);

	/* t=101: 400 Gb/s out, 100 Gb/s in, a wrap, a saturation, a climbing retry. */
	setv("mlx5_0", 1, "counters", "port_xmit_data", 1000 + 12500000000ull);
	setv("mlx5_0", 1, "counters", "port_rcv_data", 2000 + 3125000000ull);
	setv("mlx5_0", 1, "counters", "port_xmit_packets", 10 + 12500000);
	setv("mlx5_0", 1, "counters", "port_rcv_packets", 20 + 3125000);
	setv("mlx5_0", 1, "counters", "symbol_error", 65535);
	setv("mlx5_0", 1, "hw_counters", "out_of_sequence", 5);
	setv("mlx5_0", 1, "hw_counters", "local_ack_timeout_err", 3);
	setv("mlx5_0", 0, "hw_counters", "dev_ctr", 90);
	assert_int_equal(sampler_read(&s, 101.0), 0);
	struct fab_series *p01 = port_of(&s, "mlx5_0", 1);
	assert_true(p01->has_rates);
	assert_true(p01->tx_gbps == 400.0);
	assert_true(p01->rx_gbps == 100.0);
	assert_true(p01->tx_pps == 12500000.0);
	assert_true(p01->rx_pps == 3125000.0);
	assert_true(xd->last.rate == 5e10);
	struct fab_ctr *oos = ctr(&s, "mlx5_0", 1, "out_of_sequence");
	assert_int_equal(oos->last.flags, CTR_WRAPPED);
	assert_true(oos->last.delta == 11);
	struct fab_ctr *se = ctr(&s, "mlx5_0", 1, "symbol_error");
	assert_int_equal(se->last.flags, CTR_SATURATED);
	assert_true(se->last.delta == 535);
	assert_int_equal(ctr(&s, "mlx5_0", 0, "dev_ctr")->last.flags, CTR_RESET);
	/* symbol_error, out_of_sequence, local_ack_timeout_err grew. */
	assert_int_equal(p01->bad_grew, 3);
	assert_int_equal(sampler_bad_grew(&s), 3);
	assert_int_equal(s.hist_len, 1);
	assert_true(sampler_hist(&s, p01->tx_hist, 0) == 400.0f);

	/* t=102.25 (late): same words again read as 320 Gb/s. Garbage is
	 * implausible (no counter holds "N/A"), a failing read unreadable;
	 * both keep their values. */
	setv("mlx5_0", 1, "counters", "port_xmit_data", 1000 + 25000000000ull);
	put(IB "/mlx5_0/ports/1/counters/port_rcv_data", "N/A\n");
	assert_int_equal(sampler_read(&s, 102.25), 0);
	assert_true(s.dt == 1.25);
	assert_true(xd->last.rate == 4e10);
	struct fab_ctr *rd = ctr(&s, "mlx5_0", 1, "port_rcv_data");
	assert_int_equal(rd->last.flags, CTR_IMPLAUSIBLE);
	assert_true(sampler_port_state(&s, (int)(p01 - s.ports)) & PT_IMPLAUSIBLE);
	assert_true(rd->value == 2000 + 3125000000ull);
	assert_false(p01->has_rates);
	assert_true(p01->tx_gbps == 320.0);

	/* The kernel's "N/A (no PMA)" (node_exporter#966) is no value: unreadable,
	 * not implausible, and the port's other counters still read. */
	put(IB "/mlx5_0/ports/1/counters/port_rcv_data", "N/A (no PMA)\n");
	assert_int_equal(sampler_read(&s, 102.5), 0);
	assert_int_equal(rd->last.flags, CTR_UNREADABLE);
	assert_int_equal(xd->last.flags & (CTR_UNREADABLE | CTR_IMPLAUSIBLE), 0);

	/* t=103: readable again: the rate spans from its last good value (101). */
	setv("mlx5_0", 1, "counters", "port_rcv_data", 2000 + 3125000000ull + 6250000000ull);
	assert_int_equal(sampler_read(&s, 103.0), 0);
	assert_int_equal(rd->last.flags, 0);
	assert_true(rd->last.rate == 25e9 / 2.0);

	/* The port directory vanishes (VF reclaimed, driver unloaded). */
	mv(IB "/mlx5_1/ports/1", IB "/mlx5_1/ports/1.away");
	assert_int_equal(sampler_read(&s, 104.0), 0);
	struct fab_series *p11 = port_of(&s, "mlx5_1", 1);
	assert_false(p11->present);
	assert_false(p11->has_rates);
	for (int k = 0; k < p11->nctr; k++) {
		assert_int_equal(s.ctrs[p11->first_ctr + k].last.flags, CTR_GONE);
		assert_int_equal(s.ctrs[p11->first_ctr + k].fd, -1);
	}
	assert_string_equal(s.note, "mlx5_1 port 1 vanished");
	assert_int_equal(count_fds(), fds0 + 10);
	assert_int_equal(sampler_read(&s, 105.0), 0);
	assert_int_equal(ctr(&s, "mlx5_1", 1, "port_xmit_data")->last.flags, CTR_GONE);

	/* It comes back (same directory): first readings, then rates again. */
	mv(IB "/mlx5_1/ports/1.away", IB "/mlx5_1/ports/1");
	setv("mlx5_1", 1, "counters", "port_xmit_data", 500);
	assert_int_equal(sampler_read(&s, 106.0), 0);
	struct fab_ctr *xd1 = ctr(&s, "mlx5_1", 1, "port_xmit_data");
	assert_true(p11->present);
	assert_int_equal(xd1->last.flags, CTR_FIRST);
	assert_true(xd1->value == 500);
	assert_string_equal(s.note, "mlx5_1 port 1 came back");
	assert_int_equal(count_fds(), fds0 + 19);
	setv("mlx5_1", 1, "counters", "port_xmit_data", 500 + 6250000000ull);
	setv("mlx5_1", 1, "counters", "port_rcv_data", 2000 + 6250000000ull);
	assert_int_equal(sampler_read(&s, 107.0), 0);
	assert_true(p11->has_rates);
	assert_true(p11->tx_gbps == 200.0);
	assert_true(p11->rx_gbps == 200.0);

	/* Replaced between two reads by a new directory (driver reload): the
	 * old files would still read their old values through the kept fds. */
	mkdirs(strcat(strcpy(p, top), IB "/mlx5_1/ports/new"));
	setv("mlx5_1", 1, "counters", "port_xmit_data", 777);
	snprintf(rel, sizeof(rel), "%s" IB "/mlx5_1/ports/1/counters", top);
	char to[PATH_MAX];
	snprintf(to, sizeof(to), "%s" IB "/mlx5_1/ports/new/counters", top);
	const char *cp[] = { "cp", "-a", rel, to, NULL };
	run(cp);
	snprintf(rel, sizeof(rel), "%s" IB "/mlx5_1/ports/1/hw_counters", top);
	snprintf(to, sizeof(to), "%s" IB "/mlx5_1/ports/new/hw_counters", top);
	const char *cp2[] = { "cp", "-a", rel, to, NULL };
	run(cp2);
	setv("mlx5_1", 1, "counters", "port_xmit_data", 1);   /* the old one, about to go */
	mv(IB "/mlx5_1/ports/1", IB "/mlx5_1/ports/old");
	mv(IB "/mlx5_1/ports/new", IB "/mlx5_1/ports/1");
	rm_rf(IB "/mlx5_1/ports/old");
	assert_int_equal(sampler_read(&s, 108.0), 0);
	assert_int_equal(xd1->last.flags, CTR_FIRST);
	assert_true(xd1->value == 777);
	assert_int_equal(count_fds(), fds0 + 19);

	/* A device appears after open: its ports join, first readings, then rates. */
	make_port("mlx5_2", 1, "400 Gb/sec (4X NDR)\n", "InfiniBand\n");
	assert_int_equal(sampler_read(&s, 109.0), 0);
	assert_int_equal(s.nports, 4);
	assert_int_equal(s.nctrs, 28);
	assert_string_equal(s.note, "mlx5_2 appeared");
	xd = ctr(&s, "mlx5_2", 1, "port_xmit_data");   /* the array may have moved */
	assert_int_equal(xd->last.flags, CTR_FIRST);
	setv("mlx5_2", 1, "counters", "port_xmit_data", 1000 + 1250000000ull);
	setv("mlx5_2", 1, "counters", "port_rcv_data", 2000);
	assert_int_equal(sampler_read(&s, 110.0), 0);
	assert_true(port_of(&s, "mlx5_2", 1)->tx_gbps == 40.0);
	assert_true(port_of(&s, "mlx5_2", 1)->rx_gbps == 0.0);
	assert_int_equal(s.tick, 12);   /* eleven reads above, and the "no PMA" one */

	sampler_close(&s);
	assert_int_equal(count_fds(), fds0);
	root_close(&r);
}

/* A file that opens but whose read fails (as an hw_counter in a pod does):
 * /proc/self/mem at offset 0 is unmapped, so pread() gives EIO even as root.
 * A root never reads through a link out of it, so the counter's open fd is
 * replaced by one of /proc/self/mem after the sampler opened it. */
static void test_read_error(void **state)
{
	(void)state;
	make_port("mlx5_0", 1, "400 Gb/sec (4X NDR)\n", "InfiniBand\n");
	setv("mlx5_0", 1, "hw_counters", "np_cnp_sent", 0);
	struct fab_root r;
	struct fab_sampler s;
	char err[512];
	assert_int_equal(root_open(&r, top, err, sizeof(err)), 0);
	assert_int_equal(sampler_open(&s, &r, err, sizeof(err)), 0);
	struct fab_ctr *c = ctr(&s, "mlx5_0", 1, "np_cnp_sent");
	assert_true(c->fd >= 0);
	int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	assert_true(mem >= 0);
	assert_int_equal(dup2(mem, c->fd), c->fd);
	close(mem);
	assert_int_equal(sampler_read(&s, 1.0), 0);
	assert_int_equal(c->last.flags, CTR_UNREADABLE);
	assert_false(c->valid);
	assert_int_equal(sampler_read(&s, 2.0), 0);
	assert_int_equal(c->last.flags, CTR_UNREADABLE);
	/* The rest of the port still reads. */
	assert_int_equal(ctr(&s, "mlx5_0", 1, "port_xmit_data")->last.flags, 0);
	sampler_close(&s);
	root_close(&r);
}

static void test_no_devices(void **state)
{
	(void)state;
	struct fab_root r;
	struct fab_sampler s;
	char err[512], p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/sys", top);   /* a node, with no RDMA device */
	mkdirs(p);
	assert_int_equal(root_open(&r, top, err, sizeof(err)), 0);
	assert_int_equal(sampler_open(&s, &r, err, sizeof(err)), 0);
	assert_int_equal(s.nports, 0);
	assert_string_equal(s.note, "no RDMA devices (" IB " is empty or missing)");
	assert_int_equal(sampler_read(&s, 1.0), 0);
	/* A device that shows up later is still found. */
	make_port("mlx5_0", 1, "400 Gb/sec (4X NDR)\n", "InfiniBand\n");
	assert_int_equal(sampler_read(&s, 2.0), 0);
	assert_int_equal(s.nports, 1);
	sampler_close(&s);
	root_close(&r);
}

/* ---- playback ---- */

#define P0 "/sys/class/infiniband/mlx5_0/ports/1/"
#define P1 "/sys/class/infiniband/mlx5_1/ports/1/"

static const char samples_json[] =
	"{\"interval\": 1.0, \"samples\": [\n"
	" {\"t\": 1000.0, \"values\": {\"" P0 "counters/port_xmit_data\": 0,"
	" \"" P0 "counters/port_rcv_data\": 1000, \"" P0 "hw_counters/out_of_sequence\": 4294967290,"
	" \"" P0 "counters/symbol_error\": 65000, \"" P0 "hw_counters/lifespan\": 10,"
	" \"" P0 "hw_counters/vendor_ctr\": 9000000000000000000,"
	" \"/sys/class/infiniband/mlx5_0/hw_counters/dev_ctr\": 7,"
	" \"/sys/class/net/eth0/statistics/rx_bytes\": 5,"
	" \"" P1 "counters/port_xmit_data\": 100, \"" P1 "counters/port_rcv_data\": 100}},\n"
	" {\"t\": 1001.25, \"values\": {\"" P0 "counters/port_xmit_data\": 12500000000,"
	" \"" P0 "counters/port_rcv_data\": null, \"" P0 "hw_counters/out_of_sequence\": 5,"
	" \"" P0 "counters/symbol_error\": 65535, \"" P0 "hw_counters/lifespan\": 10,"
	" \"" P0 "hw_counters/vendor_ctr\": 1e19,"
	" \"/sys/class/infiniband/mlx5_0/hw_counters/dev_ctr\": 7,"
	" \"" P1 "counters/port_xmit_data\": 200, \"" P1 "counters/port_rcv_data\": 200}},\n"
	" {\"t\": 1002.25, \"values\": {\"" P0 "counters/port_xmit_data\": 12500000000,"
	" \"" P0 "counters/port_rcv_data\": 0}},\n"
	" {\"t\": 1003.25, \"values\": {\"" P1 "counters/port_xmit_data\": 50,"
	" \"" P1 "counters/port_rcv_data\": 50}},\n"
	" {\"t\": 1004.25, \"values\": {\"" P1 "counters/port_xmit_data\": 6250000050,"
	" \"" P1 "counters/port_rcv_data\": 3125000050}}\n"
	"]}\n";

static void write_samples(const char *text, size_t len)
{
	char p[PATH_MAX];
	/* A node mirror (root_open refuses a directory without sys/ or meta.json). */
	snprintf(p, sizeof(p), "%s/sys", top);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/fabtop", top);
	mkdirs(p);
	strcat(p, "/samples.json");
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void test_playback(void **state)
{
	(void)state;
	put(IB "/mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)\n");
	put(IB "/mlx5_0/ports/1/link_layer", "InfiniBand\n");
	write_samples(samples_json, sizeof(samples_json) - 1);
	struct fab_root r;
	struct fab_sampler s = { 0 };
	char err[512] = "";
	assert_int_equal(root_open(&r, top, err, sizeof(err)), 0);
	assert_int_equal(sampler_playback_open(&s, &r, err, sizeof(err)), 0);
	assert_true(s.playback);
	assert_int_equal(s.pb_count, 5);
	assert_true(s.pb_interval == 1.0);
	/* mlx5_0 device level, mlx5_0/1, mlx5_1/1; lifespan and netdevs left out. */
	assert_int_equal(s.nports, 3);
	assert_int_equal(s.nctrs, 8);
	assert_int_equal(s.ports[0].port, 0);
	/* The same order a live open lists. */
	assert_string_equal(s.ctrs[1].name, "port_rcv_data");
	assert_string_equal(s.ctrs[2].name, "port_xmit_data");
	assert_string_equal(s.ctrs[3].name, "symbol_error");
	assert_string_equal(s.ctrs[4].dir, "hw_counters");
	assert_int_equal(s.ctrs[0].fd, -1);
	assert_true(sampler_playback_gap(&s) == 0.0);

	assert_int_equal(sampler_playback_step(&s), 0);
	assert_true(s.t_last == 1000.0);
	assert_true(sampler_playback_gap(&s) == 1.25);
	assert_int_equal(sampler_playback_step(&s), 0);
	struct fab_ctr *xd = ctr(&s, "mlx5_0", 1, "port_xmit_data");
	assert_true(xd->last.rate == 4e10);
	assert_int_equal(ctr(&s, "mlx5_0", 1, "port_rcv_data")->last.flags, CTR_UNREADABLE);
	assert_int_equal(ctr(&s, "mlx5_0", 1, "out_of_sequence")->last.flags, CTR_WRAPPED);
	assert_true(ctr(&s, "mlx5_0", 1, "out_of_sequence")->last.delta == 11);
	assert_int_equal(ctr(&s, "mlx5_0", 1, "symbol_error")->last.flags, CTR_SATURATED);
	struct fab_ctr *big = ctr(&s, "mlx5_0", 1, "vendor_ctr");
	assert_true(big->value == 10000000000000000000ull);
	assert_true(big->last.delta == 1000000000000000000ull);
	assert_true(big->last.rate == 8e17);
	assert_int_equal(sampler_bad_grew(&s), 2);
	assert_true(port_of(&s, "mlx5_1", 1)->tx_gbps == 100 * 4 * 8 / 1.25 / 1e9);

	/* Sample 3: mlx5_1 and the device counter are missing: gone. */
	assert_true(sampler_playback_gap(&s) == 1.0);
	assert_int_equal(sampler_playback_step(&s), 0);
	struct fab_series *p11 = port_of(&s, "mlx5_1", 1);
	assert_false(p11->present);
	assert_int_equal(ctr(&s, "mlx5_1", 1, "port_xmit_data")->last.flags, CTR_GONE);
	assert_int_equal(ctr(&s, "mlx5_0", 0, "dev_ctr")->last.flags, CTR_GONE);
	assert_string_equal(s.note, "mlx5_1 port 1 vanished");
	/* port_rcv_data: readable again, down from its last good value: a reset. */
	assert_int_equal(ctr(&s, "mlx5_0", 1, "port_rcv_data")->last.flags, CTR_RESET);

	/* Sample 4: back, first readings; mlx5_0 now gone. Sample 5: rates. */
	assert_int_equal(sampler_playback_step(&s), 0);
	assert_true(p11->present);
	assert_int_equal(ctr(&s, "mlx5_1", 1, "port_xmit_data")->last.flags, CTR_FIRST);
	assert_int_equal(sampler_playback_step(&s), 0);
	assert_true(p11->tx_gbps == 200.0);
	assert_true(p11->rx_gbps == 100.0);
	assert_true(sampler_playback_gap(&s) == -1);
	assert_int_equal(sampler_playback_step(&s), 1);
	assert_int_equal(s.tick, 5);
	assert_int_equal(s.hist_len, 4);
	sampler_close(&s);
	root_close(&r);
}


/* hw_counters/lifespan (ms): the kernel answers its cached values until it
 * passes, so a step closer than that holds them (CTR_HELD) instead of a
 * 0/s step followed by a burst; counters/ read as always. */
static void test_lifespan_held(void **state)
{
	(void)state;
	make_port("mlx5_0", 1, "400 Gb/sec (4X NDR)\n", "Ethernet\n");
	setv("mlx5_0", 1, "hw_counters", "lifespan", 2000);
	struct fab_root r;
	struct fab_sampler s;
	char err[512] = "";
	assert_int_equal(root_open(&r, top, err, sizeof(err)), 0);
	assert_int_equal(sampler_open(&s, &r, err, sizeof(err)), 0);
	assert_true(port_of(&s, "mlx5_0", 1)->lifespan_s == 2.0);
	assert_int_equal(sampler_read(&s, 10.0), 0);
	setv("mlx5_0", 1, "hw_counters", "local_ack_timeout_err", 7);
	setv("mlx5_0", 1, "counters", "port_xmit_data", 1100);
	/* 1 s later: within the lifespan. */
	assert_int_equal(sampler_read(&s, 11.0), 0);
	struct fab_ctr *la = ctr(&s, "mlx5_0", 1, "local_ack_timeout_err");
	assert_int_equal(la->last.flags, CTR_HELD);
	assert_false(la->last.has_rate);
	assert_false(la->grew);
	assert_true(la->value == 0);
	assert_true(ctr(&s, "mlx5_0", 1, "port_xmit_data")->last.delta == 100);
	/* 2.5 s after its last reading: read, the growth over 2.5 s. */
	assert_int_equal(sampler_read(&s, 12.5), 0);
	assert_int_equal(la->last.flags, 0);
	assert_true(la->last.delta == 7);
	assert_true(la->last.rate == 7 / 2.5);
	assert_true(la->grew);
	sampler_close(&s);
	root_close(&r);
}

#define NE "ethtool:ens1f0np0:"
static const char ethtool_json[] =
	"{\"interval\": 1.0, \"samples\": [\n"
	" {\"t\": 10.0, \"values\": {\"" P0 "counters/port_xmit_data\": 0,"
	" \"" NE "rx_prio3_pause\": 100, \"" NE "rx_pcs_symbol_err_phy\": 0,"
	" \"" NE "odd:name/with\": 1}},\n"
	" {\"t\": 12.0, \"values\": {\"" P0 "counters/port_xmit_data\": 0,"
	" \"" NE "rx_prio3_pause\": 300, \"" NE "rx_pcs_symbol_err_phy\": 4,"
	" \"" NE "odd:name/with\": 1}},\n"
	" {\"t\": 13.0, \"values\": {\"" P0 "counters/port_xmit_data\": 0}},\n"
	" {\"t\": 14.0, \"values\": {\"" P0 "counters/port_xmit_data\": 0,"
	" \"ethtool::nameless\": 1, \"ethtool:bad/if:x\": 1,"
	" \"" NE "rx_prio3_pause\": 310, \"" NE "rx_pcs_symbol_err_phy\": 4,"
	" \"" NE "odd:name/with\": 1}}\n"
	"]}\n";

/* A port's netdev statistics in the samples ("ethtool:IF:NAME"): a series
 * of their own (SER_NETDEV), stepped by the same arithmetic, gone when a
 * sample lacks them, and linked to their port by the model. */
static void test_playback_ethtool(void **state)
{
	(void)state;
	write_samples(ethtool_json, sizeof(ethtool_json) - 1);
	struct fab_root r;
	struct fab_sampler s = { 0 };
	char err[512] = "";
	assert_int_equal(root_open(&r, top, err, sizeof(err)), 0);
	assert_int_equal(sampler_playback_open(&s, &r, err, sizeof(err)), 0);
	/* mlx5_0/1 and the netdev; the malformed keys are not counters. */
	assert_int_equal(s.nports, 2);
	int nd = -1;
	for (int i = 0; i < s.nports; i++)
		if (s.ports[i].kind == SER_NETDEV)
			nd = i;
	assert_true(nd >= 0);
	assert_string_equal(s.ports[nd].dev, "ens1f0np0");
	assert_int_equal(s.ports[nd].port, -1);
	assert_int_equal(s.ports[nd].owner, -1);
	assert_int_equal(s.ports[nd].nctr, 3);
	const struct fab_ctr *odd = sampler_ctr(&s, nd, "ethtool", "odd:name/with");
	assert_non_null(odd);
	const struct fab_ctr *pause = sampler_ctr(&s, nd, "ethtool", "rx_prio3_pause");
	assert_non_null(pause);
	assert_null(sampler_ctr(&s, nd, "counters", "rx_prio3_pause"));

	/* Linked by the model: the port whose netdev it is. */
	struct fab_model m;
	model_init(&m);
	struct fab_nic *n = model_add_nic(&m);
	snprintf(n->name, sizeof(n->name), "mlx5_0");
	n->pci = FAB_NO_INDEX;
	n->nports = 1;
	n->ports[0].num = 1;
	n->ports[0].ll = FAB_LL_ETH;
	snprintf(n->ports[0].netdev, sizeof(n->ports[0].netdev), "ens1f0np0");
	sampler_use_model(&s, &m);
	int p1 = s.ports[0].kind == SER_RDMA ? 0 : 1;
	assert_int_equal(s.ports[nd].owner, p1);
	assert_int_equal(sampler_netdev_of(&s, p1), nd);
	assert_string_equal(sampler_series_dev(&s, nd), "mlx5_0");

	assert_int_equal(sampler_playback_step(&s), 0);
	assert_int_equal(sampler_playback_step(&s), 0);
	assert_true(pause->last.delta == 200);
	assert_true(pause->last.rate == 100.0);
	assert_true(s.ports[nd].present);
	/* Sample 3 has no netdev keys: gone; the port itself is not. */
	assert_int_equal(sampler_playback_step(&s), 0);
	assert_false(s.ports[nd].present);
	assert_int_equal(pause->last.flags, CTR_GONE);
	assert_string_equal(s.note, "netdev ens1f0np0 vanished");
	assert_true(s.ports[p1].present);
	/* Sample 4: back, a new series of readings. */
	assert_int_equal(sampler_playback_step(&s), 0);
	assert_true(s.ports[nd].present);
	assert_int_equal(pause->last.flags, CTR_FIRST);
	assert_true(pause->since_baseline == 200);
	sampler_close(&s);
	model_free(&m);
	root_close(&r);
}

/* As live.c does: sampler_open on the capture's tree, then playback. */
static void test_playback_after_open(void **state)
{
	(void)state;
	make_port("mlx5_0", 1, "400 Gb/sec (4X NDR)\n", "InfiniBand\n");
	write_samples(samples_json, sizeof(samples_json) - 1);
	struct fab_root r;
	struct fab_sampler s;
	char err[512];
	assert_int_equal(root_open(&r, top, err, sizeof(err)), 0);
	int fds0 = count_fds();   /* the root holds its directory open */
	assert_int_equal(sampler_open(&s, &r, err, sizeof(err)), 0);
	assert_int_equal(s.nctrs, 9);
	assert_int_equal(sampler_playback_open(&s, &r, err, sizeof(err)), 0);
	assert_int_equal(s.nctrs, 8);
	assert_int_equal(count_fds(), fds0);
	assert_int_equal(sampler_read(&s, 1.0), -1);   /* playback only steps */
	assert_int_equal(sampler_playback_step(&s), 0);
	sampler_close(&s);
	root_close(&r);
}

static void expect_load_error(const char *text, size_t len, const char *want)
{
	struct fab_root r;
	struct fab_sampler s = { 0 };
	char err[512] = "";
	write_samples(text, len);
	assert_int_equal(root_open(&r, top, err, sizeof(err)), 0);
	assert_int_equal(sampler_playback_open(&s, &r, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("error \"%s\" does not say \"%s\"", err, want);
	assert_int_equal(s.nports, 0);
	assert_int_equal(sampler_playback_step(&s), 1);
	assert_true(sampler_playback_gap(&s) == -1);
	sampler_close(&s);
	root_close(&r);
}

static void test_playback_bad(void **state)
{
	(void)state;
	/* Truncated at every tenth byte: always a clear error, never a crash or leak. */
	size_t len = sizeof(samples_json) - 1;
	for (size_t cut = 0; cut + 2 < len; cut += 10)
		expect_load_error(samples_json, cut, "samples.json");
	expect_load_error(samples_json, len / 2, "cannot load fabtop/samples.json");
	const char empty[] = "{\"interval\": 1, \"samples\": []}";
	expect_load_error(empty, sizeof(empty) - 1, "fabtop/samples.json: no samples");
	const char str[] = "{\"samples\": [{\"t\": 1, \"values\": {\"" P0 "counters/port_xmit_data\": \"12\"}}]}";
	expect_load_error(str, sizeof(str) - 1, P0 "counters/port_xmit_data is not a counter value");
	const char neg[] = "{\"samples\": [{\"t\": 1, \"values\": {\"" P0 "counters/symbol_error\": -1}}]}";
	expect_load_error(neg, sizeof(neg) - 1, "sample 1: " P0 "counters/symbol_error is not");
	const char shape[] = "{\"samples\": [{\"t\": \"noon\", \"values\": {}}]}";
	expect_load_error(shape, sizeof(shape) - 1, "sample 1 is not");
	const char arr[] = "[1, 2]";
	expect_load_error(arr, sizeof(arr) - 1, "not {\"interval\"");
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/fabtop/samples.json", top);
	unlink(p);
	struct fab_root r;
	struct fab_sampler s = { 0 };
	char err[512];
	assert_int_equal(root_open(&r, top, err, sizeof(err)), 0);
	assert_int_equal(sampler_playback_open(&s, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot load fabtop/samples.json"));
	sampler_close(&s);
	root_close(&r);
}

/* No "t": the nominal interval paces it; a repeated t gives no rate. */
static void test_playback_times(void **state)
{
	(void)state;
	const char text[] = "{\"interval\": 2.0, \"samples\": ["
		"{\"values\": {\"" P0 "counters/port_xmit_packets\": 0}},"
		"{\"values\": {\"" P0 "counters/port_xmit_packets\": 100}},"
		"{\"t\": 10, \"values\": {\"" P0 "counters/port_xmit_packets\": 200}},"
		"{\"t\": 10, \"values\": {\"" P0 "counters/port_xmit_packets\": 300}}]}";
	write_samples(text, sizeof(text) - 1);
	struct fab_root r;
	struct fab_sampler s = { 0 };
	char err[512];
	assert_int_equal(root_open(&r, top, err, sizeof(err)), 0);
	assert_int_equal(sampler_playback_open(&s, &r, err, sizeof(err)), 0);
	assert_int_equal(sampler_playback_step(&s), 0);
	assert_true(sampler_playback_gap(&s) == 2.0);
	assert_int_equal(sampler_playback_step(&s), 0);
	assert_true(s.ctrs[0].last.rate == 50.0);
	assert_int_equal(sampler_playback_step(&s), 0);
	assert_true(s.ctrs[0].last.rate == 100.0 / 6.0);
	assert_true(sampler_playback_gap(&s) == 2.0);   /* 0 s recorded: the nominal pace */
	assert_int_equal(sampler_playback_step(&s), 0);
	assert_false(s.ctrs[0].last.has_rate);
	assert_true(s.ctrs[0].last.delta == 100);
	sampler_close(&s);
	root_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_live_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_playback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_playback_after_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_playback_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_playback_times, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lifespan_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_playback_ethtool, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
