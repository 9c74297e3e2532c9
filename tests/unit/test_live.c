/* The TUI's counters driver (live.h) on a virtual clock: playback at the
 * recorded pace (the hang scenario's 1.25 s step included), speed, pause
 * and step, the end of a recording, a capture without samples, this
 * machine's live root (QPs asked once, not per tick), and live reads of a
 * directory whose counter files are rewritten between ticks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabtop/live.h"

/* The repository top: tests/run.sh exports it and runs from there. */
static const char *top(void)
{
	const char *t = getenv("FABTOP_TOP");
	return t && *t ? t : ".";
}

static void open_scenario(struct fab_root *r, const char *name)
{
	char path[PATH_MAX], err[512] = "";
	snprintf(path, sizeof(path), "%s/build/scenarios/%s", top(), name);
	if (root_open(r, path, err, sizeof(err)) != 0)
		fail_msg("cannot open %s: %s", path, err);
}

static void playback_pace(void **state)
{
	struct fab_root r;
	struct fab_live l;
	(void)state;
	open_scenario(&r, "busy");
	assert_int_equal(live_open(&l, &r, 100.0), 0);
	assert_true(l.ok && l.s.playback);
	assert_int_equal(l.s.pb_pos, 1);          /* the first sample is applied at once */
	assert_int_equal(live_due(&l, 100.0), 1000);
	assert_false(live_tick(&l, 100.999));
	assert_int_equal(l.s.pb_pos, 1);
	assert_true(live_tick(&l, 101.0));
	assert_int_equal(l.s.pb_pos, 2);
	assert_true(l.s.nports > 0 && l.s.ports[0].has_rates);
	assert_int_equal(live_due(&l, 101.25), 750);

	/* Twice as fast: the next sample is due half a recorded second after the last. */
	live_faster(&l, true);
	assert_true(l.speed == 2.0);
	assert_int_equal(live_due(&l, 101.0), 500);
	assert_true(live_tick(&l, 101.5));
	assert_int_equal(l.s.pb_pos, 3);
	assert_int_equal(live_due(&l, 101.5), 500);
	for (int i = 0; i < 8; i++)
		live_faster(&l, true);
	assert_true(l.speed == LIVE_SPEED_MAX);
	for (int i = 0; i < 12; i++)
		live_faster(&l, false);
	assert_true(l.speed == LIVE_SPEED_MIN);
	assert_int_equal(live_due(&l, 101.5), 4000);
	live_close(&l);
	root_close(&r);
}

static void pause_and_step(void **state)
{
	struct fab_root r;
	struct fab_live l;
	(void)state;
	open_scenario(&r, "busy");
	assert_int_equal(live_open(&l, &r, 0.0), 0);
	live_toggle_pause(&l);
	assert_int_equal(live_due(&l, 0.0), -1);
	assert_false(live_tick(&l, 500.0));       /* time passes, nothing moves */
	assert_int_equal(l.s.pb_pos, 1);
	live_request_step(&l);
	assert_int_equal(live_due(&l, 500.0), 0);
	assert_true(live_tick(&l, 500.0));
	assert_int_equal(l.s.pb_pos, 2);
	assert_false(l.step_req);
	assert_true(l.paused);
	assert_false(live_tick(&l, 1000.0));
	/* Resuming after a long pause steps at once, then keeps the pace. */
	live_toggle_pause(&l);
	assert_int_equal(live_due(&l, 1000.0), 0);
	assert_true(live_tick(&l, 1000.0));
	assert_int_equal(l.s.pb_pos, 3);
	assert_int_equal(live_due(&l, 1000.0), 1000);
	live_close(&l);
	root_close(&r);
}

/* hang.samples: the step to sample 10 took 1.25 s; the rest 1 s. */
static void recorded_gaps_and_end(void **state)
{
	struct fab_root r;
	struct fab_live l;
	double now = 0;
	int steps = 0;
	(void)state;
	open_scenario(&r, "hang");
	assert_int_equal(live_open(&l, &r, now), 0);
	int count = l.s.pb_count;
	assert_true(count > 11);
	while (!l.ended) {
		double due = l.next_due;
		int pos = l.s.pb_pos;
		assert_true(due - now == (pos == 10 ? 1.25 : 1.0));
		now = due;
		assert_true(live_tick(&l, now));
		steps++;
		assert_true(steps < 1000);
	}
	assert_int_equal(steps, count - 1);
	assert_int_equal(l.s.pb_pos, count);
	assert_int_equal(live_due(&l, now), -1);
	assert_false(live_tick(&l, now + 100));
	assert_false(live_step(&l, now + 100));
	assert_int_equal(l.s.pb_pos, count);
	live_close(&l);
	root_close(&r);
}

static void capture_without_samples(void **state)
{
	struct fab_root r;
	struct fab_live l;
	(void)state;
	open_scenario(&r, "dgx-h100");
	assert_int_equal(live_open(&l, &r, 0.0), -1);
	assert_false(l.ok);
	assert_non_null(strstr(l.err, "no samples in this capture"));
	assert_int_equal(live_due(&l, 0.0), -1);
	assert_false(live_tick(&l, 10.0));
	live_request_step(&l);
	assert_false(live_tick(&l, 20.0));
	live_close(&l);
	root_close(&r);
}

/* This machine: no /sys/class/infiniband, no RDMA netlink (where it has
 * either, the parts that depend on it are skipped). */
static void live_root_here(void **state)
{
	struct fab_root r;
	struct fab_live l;
	char err[256];
	(void)state;
	assert_int_equal(root_open(&r, "/", err, sizeof(err)), 0);
	assert_int_equal(live_open(&l, &r, 5.0), 0);
	assert_true(l.ok);
	assert_false(l.s.playback);
	DIR *d = opendir("/sys/class/infiniband");
	if (!d)
		assert_int_equal(l.s.nports, 0);
	else
		closedir(d);
	if (l.qp_rc == -EPROTONOSUPPORT) {
		/* Said once; a kernel without RDMA netlink is never asked again. */
		assert_non_null(strstr(l.qp_note, "RDMA netlink unavailable"));
		assert_true(l.qp_next == 0);
	} else if (l.qp_rc != 0) {
		assert_true(l.qp_next == 5.0 + LIVE_QP_RETRY_S);
	} else {
		assert_true(l.qp_next == 5.0 + LIVE_QP_REFRESH_S);
	}
	assert_int_equal(live_due(&l, 5.0), 1000);
	assert_true(live_tick(&l, 6.0));
	assert_int_equal(l.s.tick, 2);
	live_close(&l);
	root_close(&r);
}

/* ---- a directory root read live ---- */

static char dir[PATH_MAX];

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s%s", dir, rel);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	/* In place, as sysfs changes under an open fd. */
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

#define PORT "/sys/class/infiniband/mlx5_0/ports/1"

static void counters(unsigned long long words, unsigned long long retries)
{
	char v[32];
	snprintf(v, sizeof(v), "%llu\n", words);
	put(PORT "/counters/port_xmit_data", v);
	put(PORT "/counters/port_rcv_data", v);
	snprintf(v, sizeof(v), "%llu\n", retries);
	put(PORT "/hw_counters/local_ack_timeout_err", v);
}

static void rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char p[PATH_MAX];
	if (!d) {
		unlink(path);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
			rm_tree(p);
		}
	closedir(d);
	rmdir(path);
}

static void live_directory(void **state)
{
	struct fab_root r;
	struct fab_live l;
	char err[256];
	const char *t = getenv("TMPDIR");
	(void)state;
	snprintf(dir, sizeof(dir), "%s/fabtop-live.XXXXXX", t && *t ? t : "/tmp");
	assert_non_null(mkdtemp(dir));
	put(PORT "/rate", "400 Gb/sec (4X NDR)\n");
	put(PORT "/link_layer", "InfiniBand\n");
	counters(1000, 7);
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	assert_int_equal(live_open(&l, &r, 10.0), 0);
	assert_int_equal(l.s.nports, 1);
	assert_int_equal(l.s.tick, 1);

	/* 125,000,000 words in 1 s: 4 Gb/s each way; 3 ACK timeouts. */
	counters(1000 + 125000000ULL, 10);
	assert_false(live_tick(&l, 10.5));
	assert_true(live_tick(&l, 11.0));
	assert_true(l.s.ports[0].has_rates);
	assert_true(l.s.ports[0].tx_gbps == 4.0);
	assert_true(l.s.ports[0].rx_gbps == 4.0);
	assert_int_equal(sampler_bad_grew(&l.s), 1);

	/* A late wake-up keeps the cadence: the next read is due at 13, not 13.4. */
	counters(1000 + 2 * 125000000ULL, 10);
	assert_true(live_tick(&l, 12.4));
	assert_true(l.next_due == 13.0);
	assert_true(l.s.ports[0].tx_gbps < 4.0);   /* 1.4 s measured, not 1 */

	/* Faster halves the interval, from the last read; clamps at both ends. */
	live_faster(&l, true);
	assert_true(l.interval == 0.5);
	assert_true(fabs(l.next_due - 12.9) < 1e-9);
	for (int i = 0; i < 5; i++)
		live_faster(&l, true);
	assert_true(l.interval == LIVE_INTERVAL_MIN);
	for (int i = 0; i < 12; i++)
		live_faster(&l, false);
	assert_true(l.interval == LIVE_INTERVAL_MAX);

	/* A new baseline: growth since then starts at zero. */
	live_baseline(&l);
	for (int i = 0; i < l.s.nctrs; i++)
		assert_true(l.s.ctrs[i].since_baseline == 0);
	counters(1000 + 3 * 125000000ULL, 12);
	assert_true(live_step(&l, 13.0));
	for (int i = 0; i < l.s.nctrs; i++)
		if (strcmp(l.s.ctrs[i].name, "local_ack_timeout_err") == 0)
			assert_true(l.s.ctrs[i].since_baseline == 2);
	assert_true(l.next_due == 13.0 + LIVE_INTERVAL_MAX);
	live_close(&l);
	root_close(&r);
	rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(playback_pace),
		cmocka_unit_test(pause_and_step),
		cmocka_unit_test(recorded_gaps_and_end),
		cmocka_unit_test(capture_without_samples),
		cmocka_unit_test(live_root_here),
		cmocka_unit_test(live_directory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
