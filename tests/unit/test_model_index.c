/*
 * The model's lookups by name (model.c): the hash index the lookups keep
 * must answer exactly what a scan of the arrays would, whatever happened
 * to the arrays since the last lookup: entries added (arrays realloc'd and
 * moved), entries added without a name and named later, an array sorted
 * in place, duplicates (the first wins, as a scan finds), names that
 * differ only in a number, and names that are not there.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/model.h"
#include "fabtop/util.h"

/* What the index must agree with. */
static int scan_netdev(const struct fab_model *m, const char *name)
{
	for (int i = 0; i < m->nnetdevs; i++)
		if (strcmp(m->netdevs[i].name, name) == 0)
			return i;
	return FAB_NO_INDEX;
}

static void add_netdev(struct fab_model *m, const char *fmt, int i)
{
	snprintf(model_add_netdev(m)->name, FAB_NAME_LEN, fmt, i);
}

/* Lookups between appends: every append may move the array, and the
 * index, built at the first lookup, must find what came after. */
static void test_after_realloc(void **state)
{
	struct fab_model m;
	model_init(&m);
	const struct fab_netdev *first = NULL;
	bool moved = false;
	for (int i = 0; i < 3000; i++) {
		add_netdev(&m, "eth%d", i);
		if (!first)
			first = m.netdevs;
		moved |= m.netdevs != first;
		/* The newest, one in the middle, the first, and one not yet there. */
		assert_int_equal(model_find_netdev(&m, m.netdevs[i].name), i);
		char name[32];
		snprintf(name, sizeof(name), "eth%d", i / 2);
		assert_int_equal(model_find_netdev(&m, name), i / 2);
		assert_int_equal(model_find_netdev(&m, "eth0"), 0);
		snprintf(name, sizeof(name), "eth%d", i + 1);
		assert_int_equal(model_find_netdev(&m, name), FAB_NO_INDEX);
	}
	assert_true(moved);             /* the test covered a moved array */
	assert_non_null(m.index);       /* and the index, not a scan */
	for (int i = 0; i < m.nnetdevs; i++)
		assert_ptr_equal(model_netdev(&m, m.netdevs[i].name), &m.netdevs[i]);
	model_free(&m);
	assert_null(m.index);
}

/* eth1, eth10, eth100, eth1000 and eth01: one character apart. */
static void test_names_differ_in_number(void **state)
{
	struct fab_model m;
	model_init(&m);
	for (int i = 0; i < 1200; i++)
		add_netdev(&m, "eth%d", i);
	add_netdev(&m, "eth0%d", 1);
	add_netdev(&m, "eth%d ", 1);     /* a trailing blank is another name */
	const char *probe[] = { "eth1", "eth10", "eth100", "eth1000", "eth01", "eth1 ", "eth", "eth1199",
				"eth1200", "Eth1", "eth-1", "" };
	for (size_t k = 0; k < sizeof(probe) / sizeof(probe[0]); k++)
		assert_int_equal(model_find_netdev(&m, probe[k]), scan_netdev(&m, probe[k]));
	assert_int_equal(model_find_netdev(&m, "eth1"), 1);
	assert_int_equal(model_find_netdev(&m, "eth01"), 1200);
	assert_int_equal(model_find_netdev(&m, "eth1 "), 1201);
	assert_int_equal(model_find_netdev(&m, "eth1200"), FAB_NO_INDEX);
	assert_null(model_netdev(&m, ""));
	assert_null(model_netdev(&m, "eth1200"));
	model_free(&m);
}

/* Two entries of one name (a capture may hold anything): the first, as a
 * scan finds it, also when the second came before the index did, after
 * it, or the first was named later than the second. */
static void test_duplicates(void **state)
{
	struct fab_model m;
	model_init(&m);
	for (int i = 0; i < 40; i++)
		add_netdev(&m, "net%d", i);
	add_netdev(&m, "net%d", 7);
	assert_int_equal(model_find_netdev(&m, "net7"), 7);
	add_netdev(&m, "net%d", 7);
	add_netdev(&m, "net%d", 41);
	assert_int_equal(model_find_netdev(&m, "net7"), 7);
	assert_int_equal(model_find_netdev(&m, "net41"), 42);
	/* A third "net41" added unnamed before it: named after the index saw it. */
	struct fab_netdev *d = model_add_netdev(&m);
	assert_int_equal(model_find_netdev(&m, "net41"), 42);
	fab_strlcpy(d->name, "net41", sizeof(d->name));
	assert_int_equal(model_find_netdev(&m, "net41"), 42);
	model_free(&m);
}

/* An entry the index saw with no name yet (model_add_* returns it zeroed,
 * the collector fills it in): it is found once it has one. */
static void test_named_after_lookup(void **state)
{
	struct fab_model m;
	model_init(&m);
	for (int i = 0; i < 30; i++)
		snprintf(model_add_nic(&m)->name, FAB_NAME_LEN, "mlx5_%d", i);
	struct fab_nic *n = model_add_nic(&m);
	assert_int_equal(model_find_nic(&m, "mlx5_3"), 3);
	assert_int_equal(model_find_nic(&m, "mlx5_30"), FAB_NO_INDEX);
	assert_int_equal(model_find_nic(&m, ""), 30);   /* as a scan finds it */
	fab_strlcpy(n->name, "mlx5_30", sizeof(n->name));
	n->nports = 1;
	n->ports[0].num = 1;
	assert_int_equal(model_find_nic(&m, "mlx5_30"), 30);
	const struct fab_nic *got = NULL;
	assert_ptr_equal(model_find_port(&m, "mlx5_30", 1, &got), &m.nics[30].ports[0]);
	assert_ptr_equal(got, &m.nics[30]);
	assert_null(model_find_port(&m, "mlx5_30", 2, &got));
	assert_null(model_find_port(&m, "mlx5_31", 1, &got));
	assert_null(got);
	model_free(&m);
}

static int by_bdf_desc(const void *a, const void *b)
{
	return -strcmp(((const struct fab_pci_dev *)a)->bdf, ((const struct fab_pci_dev *)b)->bdf);
}

/* collect_pci_sysfs sorts model.pci in place after it was looked up:
 * positions change, the array does not move, its length does not change. */
static void test_sorted_in_place(void **state)
{
	struct fab_model m;
	model_init(&m);
	for (int i = 0; i < 200; i++)
		snprintf(model_add_pci(&m)->bdf, 16, "0000:%02x:00.%d", i / 8, i % 8);
	for (int i = 0; i < 200; i++)
		assert_int_equal(model_find_pci(&m, m.pci[i].bdf), i);
	qsort(m.pci, (size_t)m.npci, sizeof(*m.pci), by_bdf_desc);
	for (int i = 0; i < 200; i++) {
		char bdf[16];
		snprintf(bdf, sizeof(bdf), "0000:%02x:00.%d", i / 8, i % 8);
		assert_int_equal(model_find_pci(&m, bdf), 199 - i);
	}
	assert_int_equal(model_find_pci(&m, "0000:ff:00.0"), FAB_NO_INDEX);
	model_free(&m);
}

/* A name changed in place: model_reindex() makes the index forget. */
static void test_reindex(void **state)
{
	struct fab_model m;
	model_init(&m);
	for (int i = 0; i < 64; i++)
		add_netdev(&m, "ib%d", i);
	assert_int_equal(model_find_netdev(&m, "ib9"), 9);
	fab_strlcpy(m.netdevs[9].name, "bond0", sizeof(m.netdevs[9].name));
	model_reindex(&m);
	assert_int_equal(model_find_netdev(&m, "bond0"), 9);
	assert_int_equal(model_find_netdev(&m, "ib9"), FAB_NO_INDEX);
	/* Renamed, and the old name looked up first: that lookup sees it. */
	fab_strlcpy(m.netdevs[10].name, "bond1", sizeof(m.netdevs[10].name));
	assert_int_equal(model_find_netdev(&m, "ib10"), FAB_NO_INDEX);
	assert_int_equal(model_find_netdev(&m, "bond1"), 10);
	/* A shorter array (a test, or a caller that drops the tail). */
	m.nnetdevs = 20;
	assert_int_equal(model_find_netdev(&m, "ib30"), FAB_NO_INDEX);
	assert_int_equal(model_find_netdev(&m, "ib19"), 19);
	model_free(&m);
}

/* A cap reached is said in one sentence, whichever table it is. */
static void test_note_cut(void **state)
{
	struct fab_model m;
	(void)state;
	model_init(&m);
	model_note_cut(&m, "netlink", "eth0", "addresses", 20, 16);
	model_note_cut(&m, "hwloc", "", "NUMA nodes", 300, 256);
	model_note_cut(&m, "netlink", "eth0", "addresses", 20, 16);   /* the same cut: once */
	model_note_cut(&m, "netlink", "eth0", "addresses", 21, 16);   /* another: said */
	assert_int_equal(m.nnotes, 3);
	assert_string_equal(m.notes[2].message,
			    "eth0: 21 addresses; the first 16 are kept, the other 5 are not shown");
	assert_string_equal(m.notes[0].message,
			    "eth0: 20 addresses; the first 16 are kept, the other 4 are not shown");
	assert_string_equal(m.notes[1].message,
			    "300 NUMA nodes; the first 256 are kept, the other 44 are not shown");
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_after_realloc),
		cmocka_unit_test(test_names_differ_in_number),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_named_after_lookup),
		cmocka_unit_test(test_sorted_in_place),
		cmocka_unit_test(test_reindex),
		cmocka_unit_test(test_note_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
