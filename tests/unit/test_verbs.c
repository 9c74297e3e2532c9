/* collect_verbs(): the real libibverbs on this machine (loaded, asked,
 * answering what it answers here), a library name that cannot load, and
 * fabtop/verbs.json documents applied to a model built by the RDMA
 * collector from a hand-made sysfs tree: IB ports at 4096 of 4096 and at
 * 2048 of 4096, a device that does not open, one libibverbs does not
 * list, and garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "fab_archive.h"
#include "fabtop/collect.h"
#include "fabtop/findings.h"
#include "fabtop/model.h"
#include "fabtop/root.h"
#include "fabtop/util.h"

static void put(const char *dir, const char *rel, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static bool has_note(const struct fab_model *m, const char *a, const char *b)
{
	for (int i = 0; i < m->nnotes; i++)
		if (strstr(m->notes[i].message, a) && (!b || strstr(m->notes[i].message, b)))
			return true;
	return false;
}

static void test_mtu_enum(void **state)
{
	(void)state;
	assert_int_equal(verbs_mtu_bytes(1), 256);
	assert_int_equal(verbs_mtu_bytes(2), 512);
	assert_int_equal(verbs_mtu_bytes(3), 1024);
	assert_int_equal(verbs_mtu_bytes(4), 2048);
	assert_int_equal(verbs_mtu_bytes(5), 4096);
	assert_int_equal(verbs_mtu_bytes(0), 0);
	assert_int_equal(verbs_mtu_bytes(6), 0);
	assert_int_equal(verbs_mtu_bytes(-1), 0);
	assert_int_equal(verbs_mtu_bytes(1LL << 40), 0);
}

/* IB HCAs mlx5_0..mlx5_3, one port each; mlx5_4 a RoCE port on eth4
 * (netdev MTU 1500: 1024 derived). verbs_json, when given, is the capture's. */
static void make_root(char *dir, const char *verbs_json)
{
	char rel[256];
	for (int i = 0; i < 5; i++) {
		snprintf(rel, sizeof(rel), "sys/class/infiniband/mlx5_%d/ports/1/state", i);
		put(dir, rel, "4: ACTIVE\n");
		snprintf(rel, sizeof(rel), "sys/class/infiniband/mlx5_%d/ports/1/link_layer", i);
		put(dir, rel, i == 4 ? "Ethernet\n" : "InfiniBand\n");
		snprintf(rel, sizeof(rel), "sys/class/infiniband/mlx5_%d/ports/1/rate", i);
		put(dir, rel, "400 Gb/sec (4X NDR)\n");
	}
	put(dir, "sys/class/infiniband/mlx5_4/ports/1/gids/0", "fe80:0000:0000:0000:0e42:a1ff:feed:e000\n");
	put(dir, "sys/class/infiniband/mlx5_4/ports/1/gid_attrs/types/0", "RoCE v2\n");
	put(dir, "sys/class/infiniband/mlx5_4/ports/1/gid_attrs/ndevs/0", "eth4\n");
	put(dir, "sys/class/net/eth4/mtu", "1500\n");
	put(dir, "sys/class/net/eth4/operstate", "up\n");
	put(dir, "fabtop/meta.json", "{\"format\": 1, \"host\": \"t\"}\n");
	if (verbs_json)
		put(dir, "fabtop/verbs.json", verbs_json);
}

static void collect(const char *dir, struct fab_root *r, struct fab_model *m)
{
	char err[256];
	assert_int_equal(root_open(r, dir, err, sizeof(err)), 0);
	model_init(m);
	collect_net(r, m);
	collect_rdma(r, m);
	collect_uverbs(r, m);
}

static const struct fab_port *port(const struct fab_model *m, const char *nic)
{
	int i = model_find_nic(m, nic);
	assert_int_not_equal(i, FAB_NO_INDEX);
	assert_int_equal(m->nics[i].nports, 1);
	return &m->nics[i].ports[0];
}

/* The document fabtop capture writes on a node with HCAs (docs/capture-format.md). */
static const char fixture[] =
	"{ \"library\": \"libibverbs.so.1\", \"devices\": {\n"
	"  \"mlx5_0\": { \"open_errno\": 0, \"ports\": { \"1\": { \"state\": 4, \"max_mtu\": 4096,"
	"   \"active_mtu\": 4096, \"link_layer\": 1 } } },\n"
	"  \"mlx5_1\": { \"open_errno\": 0, \"ports\": { \"1\": { \"state\": 4, \"max_mtu\": 4096,"
	"   \"active_mtu\": 2048, \"link_layer\": 1 } } },\n"
	"  \"mlx5_2\": { \"open_errno\": 13 },\n"
	"  \"mlx5_3\": { \"skipped\": \"its VPD says SMDL=SW_MNG\" },\n"
	"  \"mlx5_4\": { \"open_errno\": 0, \"ports\": { \"1\": { \"state\": 4, \"max_mtu\": 4096,"
	"   \"active_mtu\": 1024, \"link_layer\": 2 } } } } }\n";

static void test_replay_fixture(void **state)
{
	char dir[] = "/tmp/fabtop-test-verbs.XXXXXX";
	struct fab_root r;
	struct fab_model m;
	(void)state;
	assert_non_null(mkdtemp(dir));
	make_root(dir, fixture);
	collect(dir, &r, &m);
	/* Before verbs: IB ports know their largest MTU only; RoCE derives. */
	assert_false(port(&m, "mlx5_0")->active_mtu.ok);
	assert_int_equal(port(&m, "mlx5_4")->active_mtu.v, 1024);
	assert_string_equal(port(&m, "mlx5_4")->mtu_source, "netdev MTU (RoCE)");
	assert_int_equal(collect_verbs(&r, &m), 0);
	assert_int_equal(port(&m, "mlx5_0")->active_mtu.v, 4096);
	assert_int_equal(port(&m, "mlx5_0")->max_mtu.v, 4096);
	assert_string_equal(port(&m, "mlx5_0")->mtu_source, "verbs (ibv_query_port)");
	assert_int_equal(port(&m, "mlx5_1")->active_mtu.v, 2048);
	assert_int_equal(port(&m, "mlx5_1")->max_mtu.v, 4096);
	/* Verbs answered for the RoCE port: verbs win, and say so. */
	assert_int_equal(port(&m, "mlx5_4")->active_mtu.v, 1024);
	assert_string_equal(port(&m, "mlx5_4")->mtu_source, "verbs (ibv_query_port)");
	/* EACCES: said, never an MTU of 0. */
	assert_false(port(&m, "mlx5_2")->active_mtu.ok);
	assert_string_equal(port(&m, "mlx5_2")->mtu_source, "");
	assert_true(has_note(&m, "ibv_open_device(mlx5_2) failed: Permission denied", "does not open"));
	/* Not opened on purpose (hazard.h): no MTU, and not called "no provider". */
	assert_false(port(&m, "mlx5_3")->active_mtu.ok);
	assert_false(has_note(&m, "libibverbs does not list mlx5_3", "provider"));
	/* The MTU rule judges the verbs value and prints where it came from. */
	findings_run(&m);
	const struct fab_finding *f = NULL;
	for (int i = 0; i < m.nfindings; i++)
		if (strcmp(m.findings[i].id, "links.mtu-mismatch") == 0 &&
		    strstr(m.findings[i].subject, "mlx5_4"))
			f = &m.findings[i];
	assert_non_null(f);
	assert_non_null(strstr(f->message, "so RDMA on mlx5_4"));
	assert_non_null(strstr(f->evidence, "active_mtu=1024 max_mtu=4096 from verbs (ibv_query_port)"));
	model_free(&m);
	root_close(&r);
	assert_int_equal(fab_rmtree(dir), 0);
}

/* Garbage and odd documents: a note each, no MTU invented, no crash. */
static void test_garbage(void **state)
{
	static const struct { const char *doc, *note; } cases[] = {
		{ "{not json", "cannot parse /fabtop/verbs.json" },
		{ "[]", "no \"devices\" object" },
		{ "{\"devices\": 7}", "no \"devices\" object" },
		{ "{\"devices\": {\"mlx5_0\": {\"ports\": {\"1\": {\"active_mtu\": 4097, \"max_mtu\": \"x\"}}}}}",
		  "no MTU verbs know" },
		{ "{\"devices\": {\"mlx5_0\": {\"ports\": {\"1\": {\"query_errno\": 5}}}}}",
		  "ibv_query_port(mlx5_0, 1) failed: Input/output error" },
		{ "{\"devices\": {\"mlx5_0\": {\"open_errno\": -3}}}", "failed: error -3" },
		{ "{\"devices\": {\"mlx5_0\": {\"ports\": [1, 2]}}}", NULL },
		{ "{\"devices\": {}}", "lists no verbs devices" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[] = "/tmp/fabtop-test-verbs.XXXXXX";
		struct fab_root r;
		struct fab_model m;
		assert_non_null(mkdtemp(dir));
		make_root(dir, cases[i].doc);
		collect(dir, &r, &m);
		collect_verbs(&r, &m);
		if (cases[i].note)
			assert_true(has_note(&m, cases[i].note, NULL));
		assert_false(port(&m, "mlx5_0")->active_mtu.ok);
		assert_string_equal(port(&m, "mlx5_0")->mtu_source, "");
		model_free(&m);
		root_close(&r);
		assert_int_equal(fab_rmtree(dir), 0);
	}
	/* An older capture without verbs.json: unknown, as it always was. */
	char dir[] = "/tmp/fabtop-test-verbs.XXXXXX";
	struct fab_root r;
	struct fab_model m;
	assert_non_null(mkdtemp(dir));
	make_root(dir, NULL);
	collect(dir, &r, &m);
	int before = m.nnotes;
	assert_int_equal(collect_verbs(&r, &m), 0);
	assert_int_equal(m.nnotes, before);
	assert_false(port(&m, "mlx5_0")->active_mtu.ok);
	model_free(&m);
	root_close(&r);
	assert_int_equal(fab_rmtree(dir), 0);
}

/* A name that cannot be loaded: the document says so, and so does the note. */
static void test_not_loaded(void **state)
{
	static const char *const none[] = { "libibverbs-fabtop-test-absent.so.1", NULL };
	(void)state;
	json_t *doc = verbs_snapshot_json_from(NULL, none);
	assert_non_null(doc);
	assert_true(json_is_null(json_object_get(doc, "library")));
	const char *e = json_string_value(json_object_get(doc, "error"));
	assert_non_null(e);
	assert_non_null(strstr(e, "not loaded: libibverbs-fabtop-test-absent.so.1"));
	char dir[] = "/tmp/fabtop-test-verbs.XXXXXX", *text = json_dumps(doc, 0);
	struct fab_root r;
	struct fab_model m;
	assert_non_null(mkdtemp(dir));
	make_root(dir, text);
	free(text);
	json_decref(doc);
	collect(dir, &r, &m);
	collect_verbs(&r, &m);
	assert_true(has_note(&m, "libibverbs not loaded", "install rdma-core's libibverbs1"));
	assert_false(port(&m, "mlx5_0")->active_mtu.ok);
	model_free(&m);
	root_close(&r);
	assert_int_equal(fab_rmtree(dir), 0);
}

/* The real library on this machine, live: loaded, listed, asked. This
 * machine has libibverbs and no RDMA device (no ib_uverbs in its kernel):
 * ibv_get_device_list answers none, and the note says so. */
static void test_live_real_library(void **state)
{
	(void)state;
	char err[128] = "";
	json_t *doc = verbs_snapshot_json(NULL, err, sizeof(err));
	assert_non_null(doc);
	if (json_is_null(json_object_get(doc, "library"))) {
		json_decref(doc);
		skip();     /* libibverbs.so.1 is not installed here */
	}
	json_t *devs = json_object_get(doc, "devices");
	assert_true(json_is_object(devs));
	if (json_object_size(devs) != 0) {
		json_decref(doc);
		skip();     /* a machine with verbs devices: the fixture tests cover them */
	}
	json_decref(doc);
	struct fab_root r;
	struct fab_model m;
	char e[256];
	assert_int_equal(root_open(&r, NULL, e, sizeof(e)), 0);
	assert_true(r.live);
	model_init(&m);
	struct fab_nic *n = model_add_nic(&m);
	fab_strlcpy(n->name, "mlx5_0", sizeof(n->name));
	n->nports = 1;
	n->ports[0].num = 1;
	n->ports[0].ll = FAB_LL_IB;
	assert_int_equal(collect_verbs(&r, &m), 0);
	assert_true(has_note(&m, "no verbs devices", NULL));
	assert_false(n->ports[0].active_mtu.ok);
	model_free(&m);
	root_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mtu_enum),
		cmocka_unit_test(test_replay_fixture),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_not_loaded),
		cmocka_unit_test(test_live_real_library),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
