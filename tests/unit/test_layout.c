/* test_layout.c - layout_compute() over many terminal sizes, without curses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "fabtop/layout.h"

/* What must hold for every size that is large enough. */
static void check_usable(int rows, int cols, bool banner)
{
	struct fab_layout l = layout_compute(rows, cols, banner);
	assert_false(l.too_small);
	assert_int_equal(l.tabs_y, 0);
	assert_int_equal(l.status_y, rows - 1);
	assert_int_equal(l.pane_w, cols);
	if (banner) {
		assert_int_equal(l.banner_y, 1);
		assert_int_equal(l.pane_y, 2);
	} else {
		assert_int_equal(l.banner_y, -1);
		assert_int_equal(l.pane_y, 1);
	}
	assert_true(l.pane_h > 0);
	/* The pane fills exactly the rows between the bars. */
	assert_int_equal(l.pane_y + l.pane_h, l.status_y);
}

static void test_minimum_exactly(void **state)
{
	(void)state;
	check_usable(10, 40, false);
	check_usable(10, 40, true);
	struct fab_layout l = layout_compute(10, 40, true);
	assert_int_equal(l.pane_h, 7);
	l = layout_compute(10, 40, false);
	assert_int_equal(l.pane_h, 8);
}

static void test_just_below_minimum(void **state)
{
	(void)state;
	for (int b = 0; b < 2; b++) {
		assert_true(layout_compute(10, 39, b).too_small);
		assert_true(layout_compute(9, 40, b).too_small);
		assert_true(layout_compute(9, 39, b).too_small);
		assert_true(layout_compute(8, 30, b).too_small);
	}
}

static void test_common_sizes(void **state)
{
	(void)state;
	check_usable(24, 80, false);
	check_usable(24, 80, true);
	check_usable(50, 200, false);
	check_usable(50, 200, true);
	struct fab_layout l = layout_compute(24, 80, false);
	assert_int_equal(l.pane_y, 1);
	assert_int_equal(l.pane_h, 22);
	assert_int_equal(l.status_y, 23);
	l = layout_compute(24, 80, true);
	assert_int_equal(l.pane_h, 21);
	l = layout_compute(50, 200, true);
	assert_int_equal(l.pane_h, 47);
	assert_int_equal(l.status_y, 49);
}

static void test_sweep(void **state)
{
	(void)state;
	/* Every size from nothing to large: never a negative extent, and the
	 * minimum is the only thing that decides too_small. */
	for (int rows = 0; rows <= 120; rows++)
		for (int cols = 0; cols <= 260; cols += 7)
			for (int b = 0; b < 2; b++) {
				struct fab_layout l = layout_compute(rows, cols, b);
				assert_true(l.pane_h >= 0);
				assert_true(l.pane_w >= 0);
				assert_true(l.status_y >= 0);
				bool small = rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS;
				assert_int_equal(l.too_small, small);
				if (!small)
					check_usable(rows, cols, b);
			}
}

static void test_degenerate(void **state)
{
	(void)state;
	struct fab_layout l = layout_compute(0, 0, true);
	assert_true(l.too_small);
	assert_int_equal(l.pane_h, 0);
	l = layout_compute(-5, -5, false);
	assert_true(l.too_small);
	assert_true(l.pane_h >= 0 && l.pane_w >= 0 && l.status_y >= 0);
}

/* The list+detail split of the Links and Wizard panes, over many sizes:
 * inside the pane, nothing negative, the list never more than half below. */
static void test_split(void **state)
{
	(void)state;
	for (int h = 1; h <= 80; h++)
		for (int w = 1; w <= 240; w += 7)
			for (int rows = 0; rows <= 40; rows += 3) {
				struct split_spec sp = { .top = 2, .head = 1, .bottom = 1, .nrows = rows,
							 .list_w = 70, .side_min_w = 160, .titled = true };
				struct split l = layout_split(h, w, &sp);
				assert_true(l.list_h >= 0 && l.detail_h >= 0 && l.detail_w >= 0);
				assert_true(l.list_h <= rows);
				assert_true(l.detail_x + l.detail_w <= w);
				assert_true(l.side == (w >= 160));
				if (!l.side && h - 1 - 3 - 1 >= 2)
					assert_true(l.list_h <= (h - 1 - 3 - 1) / 2 || l.list_h == 1);
				if (l.side)
					assert_int_equal(l.rule_y, 2);
				else
					assert_int_equal(l.detail_y, l.rule_y + 1);
			}
	/* Wizard-like: no title of its own, the detail from the top when beside. */
	struct split_spec wz = { .nrows = 6, .list_w = 30, .side_min_w = 96, .bottom = 1 };
	struct split l = layout_split(30, 120, &wz);
	assert_true(l.side);
	assert_int_equal(l.rule_y, -1);
	assert_int_equal(l.detail_y, 0);
	assert_int_equal(l.detail_x, 33);
	assert_int_equal(l.detail_h, 29);
	l = layout_split(24, 80, &wz);
	assert_false(l.side);
	assert_int_equal(l.list_h, 6);
	assert_int_equal(l.rule_y, 6);
	assert_int_equal(l.detail_y, 7);
	assert_int_equal(l.detail_h, 23 - 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimum_exactly),
		cmocka_unit_test(test_just_below_minimum),
		cmocka_unit_test(test_common_sizes),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_degenerate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
