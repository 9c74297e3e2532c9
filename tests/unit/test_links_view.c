/* The Links and Topology panes' hooks for the shell (view.h): pick (what
 * `fabtop learn` takes as an answer), find (the `/` search) and the sort
 * keys, driven on the roce-faults scenario without curses (no draw: the
 * hooks work on the model and the pane's state):
 *  - Links: the selected row picks PICK_PORT mlx5_X/1; Enter steps to its
 *    QoS settings (PICK_SETTING trust, pfc, ecn) and its findings
 *    (PICK_FINDING with the id), Esc back to the port;
 *  - find walks the rows as shown, forwards and backwards, wrapping, and
 *    says false when nothing matches; a re-sort keeps the picked port;
 *  - Topology: find selects a NIC or GPU row; pick says PICK_NIC (the RDMA
 *    device) or PICK_GPU (its PCI address). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/collect.h"
#include "fabtop/findings.h"
#include "fabtop/model.h"
#include "fabtop/root.h"
#include "fabtop/view.h"

static struct fab_model *m;
static struct fab_root root;

static int setup(void **state)
{
	char err[512];
	const char *top = getenv("FABTOP_TOP");
	char path[4096];
	snprintf(path, sizeof(path), "%s/build/scenarios/roce-faults", top && *top ? top : ".");
	if (root_open(&root, path, err, sizeof(err)) != 0)
		return -1;   /* make tests builds the scenarios */
	m = malloc(sizeof(*m));
	if (!m)
		return -1;
	model_init(m);
	collect_all(&root, m);
	findings_run(m);
	return 0;
}

static int teardown(void **state)
{
	model_free(m);
	free(m);
	root_close(&root);
	return 0;
}

static void open_pane(const struct view_ops *ops, struct view *v, struct view_ctx *c)
{
	memset(v, 0, sizeof(*v));
	memset(c, 0, sizeof(*c));
	v->ops = ops;
	c->m = m;
	c->root = &root;
	assert_int_equal(ops->open(v, c), 0);
}

static void pick_is(struct view *v, struct view_ctx *c, enum fab_pick_kind kind, const char *dev,
		    int port, const char *name)
{
	struct fab_pick p;
	assert_true(v->ops->pick(v, c, &p));
	assert_string_equal(fab_pick_kind_name(p.kind), fab_pick_kind_name(kind));
	assert_string_equal(p.dev, dev);
	assert_int_equal(p.port, port);
	if (name)
		assert_string_equal(p.name, name);
	assert_true(p.label[0] != '\0');
}

static void test_links_pick(void **state)
{
	struct view v;
	struct view_ctx c;
	open_pane(&links_view_ops, &v, &c);
	pick_is(&v, &c, PICK_PORT, "mlx5_0", 1, NULL);
	assert_true(links_view_ops.key(&v, KEY_DOWN, &c));
	assert_true(links_view_ops.key(&v, 'j', &c));
	pick_is(&v, &c, PICK_PORT, "mlx5_2", 1, NULL);
	/* Enter: trust, PFC, ECN, then the findings about mlx5_2/1 and mlx5_2. */
	links_view_ops.key(&v, '\n', &c);
	pick_is(&v, &c, PICK_SETTING, "mlx5_2", 1, "trust");
	links_view_ops.key(&v, '\n', &c);
	pick_is(&v, &c, PICK_SETTING, "mlx5_2", 1, "pfc");
	links_view_ops.key(&v, '\n', &c);
	pick_is(&v, &c, PICK_SETTING, "mlx5_2", 1, "ecn");
	links_view_ops.key(&v, '\n', &c);
	pick_is(&v, &c, PICK_FINDING, "mlx5_2", 1, "links.rate-degraded");
	/* Esc: back to the port; another port drops the focus. */
	assert_true(links_view_ops.key(&v, 27, &c));
	pick_is(&v, &c, PICK_PORT, "mlx5_2", 1, NULL);
	links_view_ops.key(&v, '\n', &c);
	links_view_ops.key(&v, KEY_DOWN, &c);
	pick_is(&v, &c, PICK_PORT, "mlx5_3", 1, NULL);
	links_view_ops.close(&v, &c);
}

static void test_links_find_and_sort(void **state)
{
	struct view v;
	struct view_ctx c;
	open_pane(&links_view_ops, &v, &c);
	assert_true(links_view_ops.find(&v, &c, "mlx5_5", 1));
	pick_is(&v, &c, PICK_PORT, "mlx5_5", 1, NULL);
	/* "down" is on mlx5_1/1's row (its state and its netdev), case folded. */
	assert_true(links_view_ops.find(&v, &c, "down", 1));
	pick_is(&v, &c, PICK_PORT, "mlx5_1", 1, NULL);
	/* Backwards from mlx5_1/1: mlx5_0/1, then round to the last row. */
	assert_true(links_view_ops.find(&v, &c, "400 Gb/s", -1));
	pick_is(&v, &c, PICK_PORT, "mlx5_0", 1, NULL);
	assert_true(links_view_ops.find(&v, &c, "400 Gb/s", -1));
	pick_is(&v, &c, PICK_PORT, "mlx5_7", 1, NULL);
	assert_false(links_view_ops.find(&v, &c, "no such port", 1));
	pick_is(&v, &c, PICK_PORT, "mlx5_7", 1, NULL);
	/* Sorted by STATE then inverted: the selection stays on mlx5_7/1, and
	 * Down from the DOWN port (now last) goes nowhere. */
	links_view_ops.key(&v, '>', &c);
	links_view_ops.key(&v, 'I', &c);
	pick_is(&v, &c, PICK_PORT, "mlx5_7", 1, NULL);
	assert_true(links_view_ops.find(&v, &c, "port-down", 1));
	pick_is(&v, &c, PICK_PORT, "mlx5_1", 1, NULL);
	links_view_ops.key(&v, KEY_DOWN, &c);
	pick_is(&v, &c, PICK_PORT, "mlx5_1", 1, NULL);
	links_view_ops.key(&v, KEY_UP, &c);
	pick_is(&v, &c, PICK_PORT, "mlx5_7", 1, NULL);
	links_view_ops.close(&v, &c);
}

static void test_topology_pick(void **state)
{
	struct view v;
	struct view_ctx c;
	struct fab_pick p;
	open_pane(&topology_view_ops, &v, &c);
	assert_true(topology_view_ops.pick(&v, &c, &p));
	assert_int_equal(p.kind, PICK_GPU);
	assert_non_null(strchr(p.dev, ':'));   /* a PCI address */
	assert_true(topology_view_ops.find(&v, &c, "mlx5_3", 1));
	assert_true(topology_view_ops.pick(&v, &c, &p));
	assert_int_equal(p.kind, PICK_NIC);
	assert_string_equal(p.dev, "mlx5_3");
	assert_false(topology_view_ops.find(&v, &c, "no such device", 1));
	topology_view_ops.close(&v, &c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_links_pick),
		cmocka_unit_test(test_links_find_and_sort),
		cmocka_unit_test(test_topology_pick),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
