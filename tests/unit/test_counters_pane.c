/* The Counters pane's hooks and the playback seek, on the hang scenario
 * (build/scenarios/hang): the `/` search (find) walks the counters list as
 * shown and wraps, pick names the selected counter as `fabtop learn`
 * compares it, a click selects the row under it, and seeking backwards
 * replays the run so every value, delta, history and total is what it was
 * when played forward. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/collect.h"
#include "fabtop/live.h"
#include "fabtop/model.h"
#include "fabtop/root.h"
#include "fabtop/view.h"

static const char *top(void)
{
	const char *t = getenv("FABTOP_TOP");
	return t && *t ? t : ".";
}

static struct fab_root root;
static struct fab_model model;
static SCREEN *scr;
static FILE *devnull;

static int setup(void **state)
{
	char path[PATH_MAX], err[512];
	(void)state;
	snprintf(path, sizeof(path), "%s/build/scenarios/hang", top());
	if (root_open(&root, path, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s (make tests builds the scenarios)\n", err);
		return -1;
	}
	model_init(&model);
	collect_all(&root, &model);
	devnull = fopen("/dev/null", "w");
	scr = devnull ? newterm("xterm", devnull, stdin) : NULL;
	return scr ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	endwin();
	delscreen(scr);
	fclose(devnull);
	model_free(&model);
	root_close(&root);
	return 0;
}

static const struct view_ops *ops = &counters_view_ops;

/* The pane opened and shown on hang, then stepped with ] to sample pos. */
static void pane_at(struct view *v, struct view_ctx *c, int pos)
{
	memset(v, 0, sizeof(*v));
	*c = (struct view_ctx){ .m = &model, .root = &root, .virtual_clock = true };
	v->ops = ops;
	v->current = true;
	assert_int_equal(ops->open(v, c), 0);
	ops->show(v, c);
	for (int i = 1; i < pos; i++)
		assert_true(ops->key(v, ']', c));
}

static void test_find_pick(void **state)
{
	struct view v;
	struct view_ctx c;
	struct fab_pick pk;
	(void)state;
	pane_at(&v, &c, 22);
	assert_false(ops->pick(&v, &c, &pk));          /* nothing selected yet */
	/* Rows worst first: the six ACK-timeout rows head the list. */
	assert_true(ops->find(&v, &c, "ACK_TIMEOUT", 1));   /* case-insensitive */
	assert_true(ops->pick(&v, &c, &pk));
	assert_int_equal(pk.kind, PICK_COUNTER);
	assert_string_equal(pk.dev, "mlx5_0");
	assert_int_equal(pk.port, 1);
	assert_string_equal(pk.name, "local_ack_timeout_err");
	assert_string_equal(pk.label, "local_ack_timeout_err on mlx5_0 port 1");
	assert_true(ops->find(&v, &c, "ack_timeout", 1));
	assert_true(ops->pick(&v, &c, &pk));
	assert_string_equal(pk.dev, "mlx5_1");
	assert_true(ops->find(&v, &c, "ack_timeout", -1));
	assert_true(ops->pick(&v, &c, &pk));
	assert_string_equal(pk.dev, "mlx5_0");
	/* Backwards from the first wraps to the last ACK-timeout row (mlx5_6). */
	assert_true(ops->find(&v, &c, "ack_timeout", -1));
	assert_true(ops->pick(&v, &c, &pk));
	assert_string_equal(pk.dev, "mlx5_6");
	/* No match: false, and the selection stays. */
	assert_false(ops->find(&v, &c, "no-such-counter", 1));
	assert_true(ops->pick(&v, &c, &pk));
	assert_string_equal(pk.dev, "mlx5_6");
	/* The text as shown: a unit in a cell is found too. */
	assert_true(ops->find(&v, &c, "Gb/s", 1));
	assert_true(ops->pick(&v, &c, &pk));
	assert_true(strcmp(pk.name, "port_xmit_data") == 0 || strcmp(pk.name, "port_rcv_data") == 0);
	ops->close(&v, &c);
}

/* A click on a row of the list selects the counter drawn there. */
static void test_click(void **state)
{
	struct view v;
	struct view_ctx c;
	struct fab_pick pk;
	char line[256];
	int y = -1;
	(void)state;
	pane_at(&v, &c, 22);
	WINDOW *w = newwin(60, 160, 0, 0);
	assert_non_null(w);
	ops->draw(&v, w, &c);
	for (int r = 0; r < 60 && y < 0; r++) {
		mvwinnstr(w, r, 0, line, sizeof(line) - 1);
		if (strstr(line, "mlx5_2/1  packet_seq_err"))
			y = r;
	}
	assert_true(y >= 0);
	assert_false(ops->click(&v, &c, 0, 0));          /* the title: no row */
	assert_true(ops->click(&v, &c, y, 12));
	assert_true(ops->pick(&v, &c, &pk));
	assert_string_equal(pk.name, "packet_seq_err");
	assert_string_equal(pk.dev, "mlx5_2");
	assert_int_equal(pk.port, 1);
	delwin(w);
	ops->close(&v, &c);
}

/* Seeking back replays: the state at sample 20 reached by going to 40 and
 * back equals the one played forward to 20. */
static void test_seek_replays(void **state)
{
	struct fab_live a, b;
	double at, total;
	(void)state;
	assert_int_equal(live_open(&a, &root, 0), 0);
	assert_int_equal(live_open(&b, &root, 0), 0);
	sampler_use_model(&a.s, &model);
	sampler_use_model(&b.s, &model);
	assert_true(live_seek(&a, 20, 1));
	assert_true(live_seek(&b, 40, 1));
	assert_int_equal(b.s.pb_pos, 40);
	assert_true(live_seek(&b, 20, 2));
	assert_int_equal(a.s.pb_pos, 20);
	assert_int_equal(b.s.pb_pos, 20);
	assert_int_equal(a.s.tick, b.s.tick);
	assert_int_equal(a.s.hist_len, b.s.hist_len);
	assert_int_equal(a.s.nctrs, b.s.nctrs);
	for (int i = 0; i < a.s.nctrs; i++) {
		const struct fab_ctr *x = &a.s.ctrs[i], *y = &b.s.ctrs[i];
		assert_true(x->value == y->value && x->since_baseline == y->since_baseline);
		assert_true(x->last.delta == y->last.delta && x->last.flags == y->last.flags);
		assert_int_equal(x->last_grew, y->last_grew);
		assert_memory_equal(x->hist, y->hist, sizeof(x->hist));
	}
	for (int i = 0; i < a.s.nports; i++) {
		assert_true(a.s.ports[i].tx_gbps == b.s.ports[i].tx_gbps);
		assert_true(a.s.ports[i].peak_gbps == b.s.ports[i].peak_gbps);
		assert_true(sampler_port_state(&a.s, i) == sampler_port_state(&b.s, i));
	}
	assert_int_equal(sampler_playback_times(&b.s, &at, &total), 0);
	assert_true(at > 18 && at < 20 && total > 58);
	/* Out of range is clamped; at the end the playback has ended. */
	assert_true(live_seek(&b, 1000, 3));
	assert_int_equal(b.s.pb_pos, b.s.pb_count);
	assert_true(b.ended);
	assert_true(live_seek(&b, 0, 4));
	assert_int_equal(b.s.pb_pos, 1);
	assert_false(b.ended);
	assert_int_equal(sampler_playback_seek(&b.s, 0), -1);
	live_close(&a);
	live_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_pick),
		cmocka_unit_test(test_click),
		cmocka_unit_test(test_seek_replays),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
