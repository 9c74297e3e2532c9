/* fleet.c over report documents written here as files (report all --json
 * objects, as `fabtop report all --json` prints them): the rows, the odd
 * node out of a majority, a fact with no majority, a kind too small to
 * compare, an unreadable file, a directory of reports, the JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "fabtop/fleet.h"
#include "fabtop/print.h"

static char dir[PATH_MAX];

/* What sets one test node apart. */
struct spec {
	const char *host;
	double rate1;           /* mlx5_1/1's rate; 0: 400 */
	double line1;           /* its line rate; 0: the rate */
	const char *state1;     /* NULL: ACTIVE */
	const char *fw1;        /* NULL: 28.39.1002 */
	const char *cell;       /* GPU0 to NIC0; NULL: PXB */
	const char *finding;    /* an extra warning's id; NULL: none */
	bool no_common;         /* lacks the finding every other node has */
	const char *verdict;    /* NULL: "ok" ("findings" with a warning) */
};

static json_t *port(const char *state, double rate, double line)
{
	bool up = strcmp(state, "ACTIVE") == 0;
	/* Whole rates are integers in a report, as json_real would not print them. */
	return json_pack("{s:i, s:s, s:s, s:s, s:I, s:I, s:i, s:s, s:s, s:s}", "port", 1,
			 "state", state, "phys_state", up ? "LinkUp" : "Polling",
			 "rate", rate >= 400 ? "400 Gb/sec (4X NDR)" : "200 Gb/sec (4X HDR)",
			 "rate_gbps", (json_int_t)rate, "line_gbps", (json_int_t)line, "width", 4,
			 "speed", rate >= 400 ? "NDR" : "HDR", "link_layer", "InfiniBand",
			 "usable", up ? "yes" : "no");
}

static json_t *hca(const char *name, const char *guid, const char *fw, json_t *p)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:[o]}", "name", name,
			 "hca_type", "MT4129", "driver", "mlx5_core", "fw_ver", fw,
			 "node_guid", guid, "board_id", "MT_0000000838", "bdf",
			 strcmp(name, "mlx5_0") == 0 ? "0000:18:00.0" : "0000:29:00.0", "ports", p);
}

static json_t *finding(const char *sev, const char *id, const char *subject)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "severity", sev, "id", id,
			 "subject", subject, "message", "m", "layer", "l", "evidence", "e", "hint", "h");
}

/* A report all --json document of a 2-GPU, 2-HCA node, written to
 * dir/NAME; returns its path (static, per call overwritten). */
static const char *write_doc(const char *name, const struct spec *s)
{
	static char path[PATH_MAX + 64];
	char guid0[64], guid1[64];
	/* Identifiers differ on every node, as on real ones. */
	unsigned h = 0;
	for (const char *c = s->host; *c; c++)
		h = h * 31 + (unsigned char)*c;
	snprintf(guid0, sizeof(guid0), "b83f:d203:%04x:1c3e", h & 0xffff);
	snprintf(guid1, sizeof(guid1), "b83f:d203:%04x:1c4e", h & 0xffff);
	double rate1 = s->rate1 ? s->rate1 : 400, line1 = s->line1 ? s->line1 : rate1;
	const char *st1 = s->state1 ? s->state1 : "ACTIVE", *fw1 = s->fw1 ? s->fw1 : "28.39.1002";
	json_t *hcas = json_pack("[o, o]", hca("mlx5_0", guid0, "28.39.1002", port("ACTIVE", 400, 400)),
				 hca("mlx5_1", guid1, fw1, port(st1, rate1, line1)));
	json_t *nics = json_array();
	size_t i;
	json_t *x;
	json_array_foreach(hcas, i, x) {
		json_t *p = json_array_get(json_object_get(x, "ports"), 0);
		json_array_append_new(nics, json_pack("{s:O, s:O, s:O, s:O, s:O, s:[{s:i, s:O, s:O, s:O, s:O, s:n}]}",
			"name", json_object_get(x, "name"), "bdf", json_object_get(x, "bdf"),
			"node_guid", json_object_get(x, "node_guid"), "fw_ver", json_object_get(x, "fw_ver"),
			"board_id", json_object_get(x, "board_id"),
			"ports", "port", 1, "state", json_object_get(p, "state"),
			"phys_state", json_object_get(p, "phys_state"), "rate_gbps", json_object_get(p, "rate_gbps"),
			"link_layer", json_object_get(p, "link_layer"), "netdev"));
	}
	const char *cell = s->cell ? s->cell : "PXB";
	json_t *topo = json_pack("{s:s, s:b, s:s, s:[s,s,s,s], s:[{s:s, s:[s,s,s,s]}, {s:s, s:[s,s,s,s]},"
				 " {s:s, s:[s,s,s,s]}, {s:s, s:[s,s,s,s]}],"
				 " s:[{s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s},"
				 " {s:s, s:s, s:s, s:s}], s:[]}",
				 "source", "pci-tree", "nvlink_known", false, "nvml", "not loaded",
				 "columns", "GPU0", "GPU1", "NIC0", "NIC1",
				 "rows", "label", "GPU0", "cells", "X", "SYS", cell, "SYS",
				 "label", "GPU1", "cells", "SYS", "X", "SYS", "PXB",
				 "label", "NIC0", "cells", cell, "SYS", "X", "SYS",
				 "label", "NIC1", "cells", "SYS", "PXB", "SYS", "X",
				 "devices", "label", "GPU0", "kind", "gpu", "bdf", "0000:1b:00.0", "name", "NVIDIA H100 80GB HBM3",
				 "label", "GPU1", "kind", "gpu", "bdf", "0000:2b:00.0", "name", "NVIDIA H100 80GB HBM3",
				 "label", "NIC0", "kind", "nic", "bdf", "0000:18:00.0", "name", "mlx5_0",
				 "label", "NIC1", "kind", "nic", "bdf", "0000:29:00.0", "name", "mlx5_1",
				 "closest_nics");
	json_t *findings = json_array();
	if (!s->no_common)
		json_array_append_new(findings, finding("info", "links.transport-errors", "mlx5_0/1"));
	if (s->finding)
		json_array_append_new(findings, finding("warning", s->finding, "mlx5_1/1"));
	const char *verdict = s->verdict ? s->verdict : s->finding ? "findings" : "ok";
	json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:b, s:b, s:n, s:s, s:s, s:[], s:i,"
				" s:o, s:o, s:{s:s, s:i, s:i, s:{s:i, s:i, s:i}, s:o}, s:o, s:[], s:s, s:[]}",
				"fabtop", "0.1.0", "host", s->host, "kernel", "5.15.0-1042-nvidia",
				"source", "test", "live", false, "demo", false, "time",
				"cuda", "not loaded", "nccl", "not loaded", "numa_nodes", "pci_functions", 6,
				"nics", nics, "topology", topo,
				"links", "netns_mode", "shared", "devices", 2, "ports", 2,
				"usable", "yes", 2, "no", 0, "unknown", 0, "hcas", hcas,
				"findings", findings, "notes", "verdict", verdict, "unknown_because");
	assert_non_null(doc);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(json_dump_file(doc, path, JSON_INDENT(1)), 0);
	json_decref(doc);
	return path;
}

/* Writes n nodes node0..node(n-1).json, node k as specs[k] (host set here);
 * loads them as a list of paths. */
static void load_nodes(struct fleet *f, struct spec *specs, size_t n)
{
	char **paths = calloc(n, sizeof(*paths));
	char name[64], host[64];
	assert_non_null(paths);
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "node%02zu.json", i);
		snprintf(host, sizeof(host), "node%02zu", i);
		if (!specs[i].host)
			specs[i].host = host;
		paths[i] = strdup(write_doc(name, &specs[i]));
		specs[i].host = NULL;
	}
	assert_int_equal(fleet_load(paths, n, f, NULL), 0);
	for (size_t i = 0; i < n; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	free(paths);
}

static const struct fleet_odd *odd_in(const struct fleet_node *r, const char *section, const char *key_part)
{
	for (size_t i = 0; i < r->nodd; i++)
		if (strcmp(r->odd[i].section, section) == 0 && strstr(r->odd[i].key, key_part))
			return &r->odd[i];
	return NULL;
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "%s/fabtop-fleet-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Five nodes of one kind, one with mlx5_1/1 at 200: that node, that fact. */
static void test_odd_rate(void **state)
{
	struct spec s[5] = { { 0 } };
	struct fleet f;
	s[3].rate1 = 200;
	load_nodes(&f, s, 5);
	assert_int_equal(f.n, 5);
	assert_int_equal(f.nkinds, 1);
	assert_true(f.kinds[0].compared);
	assert_int_equal(f.kinds[0].nodes, 5);
	assert_int_equal(f.kinds[0].odd_nodes, 1);
	for (size_t i = 0; i < 5; i++)
		if (i != 3)
			assert_int_equal(f.nodes[i].nodd, 0);
	const struct fleet_odd *o = odd_in(&f.nodes[3], "port", "mlx5_1/1");
	assert_non_null(o);
	assert_string_equal(o->value, "200");
	assert_string_equal(o->majority, "400");
	assert_int_equal(o->agree, 4);
	assert_int_equal(o->of, 5);
	/* Identifiers (GUIDs, host names) differ on every node and are no fact. */
	assert_null(odd_in(&f.nodes[3], "hca", "guid"));
	assert_string_equal(f.nodes[3].host, "node03");
	assert_int_equal(fleet_exit(&f), 1);
	fleet_free(&f);
}

static void test_uniform(void **state)
{
	struct spec s[4] = { { 0 } };
	struct fleet f;
	load_nodes(&f, s, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(f.nodes[i].nodd, 0);
		assert_null(f.nodes[i].error);
		assert_string_equal(f.nodes[i].verdict, "ok");
	}
	assert_int_equal(f.kinds[0].nnomaj, 0);
	assert_int_equal(fleet_exit(&f), 0);
	fleet_free(&f);
}

/* 2 at 400, 2 at 200: no majority, said on the kind, nobody odd. */
static void test_split(void **state)
{
	struct spec s[4] = { { 0 } };
	struct fleet f;
	s[2].rate1 = s[3].rate1 = 200;
	load_nodes(&f, s, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(f.nodes[i].nodd, 0);
	const struct fleet_kind *k = &f.kinds[0];
	assert_true(k->nnomaj >= 1);
	const struct fleet_nomaj *nm = NULL;
	for (size_t j = 0; j < k->nnomaj; j++)
		if (strcmp(k->nomaj[j].section, "port") == 0 && strstr(k->nomaj[j].key, "mlx5_1/1") &&
		    strstr(k->nomaj[j].key, "rate"))
			nm = &k->nomaj[j];
	assert_non_null(nm);
	assert_int_equal(nm->nvalues, 2);
	assert_int_equal(nm->values[0].count, 2);
	assert_int_equal(nm->values[1].count, 2);
	assert_string_equal(nm->values[0].value, "200");
	assert_string_equal(nm->values[1].value, "400");
	assert_int_equal(fleet_exit(&f), 1);
	fleet_free(&f);
}

/* Two nodes: no majority to compare against, so nobody is odd. */
static void test_small_kind(void **state)
{
	struct spec s[2] = { { 0 } };
	struct fleet f;
	s[1].rate1 = 200;
	load_nodes(&f, s, 2);
	assert_false(f.kinds[0].compared);
	assert_int_equal(f.nodes[0].nodd + f.nodes[1].nodd, 0);
	assert_int_equal(fleet_exit(&f), 0);
	fleet_free(&f);
}

/* A finding most have and one lacks; one only one has. */
static void test_absent(void **state)
{
	struct spec s[5] = { { 0 } };
	struct fleet f;
	s[1].no_common = true;
	s[4].finding = "links.rate-degraded";
	load_nodes(&f, s, 5);
	const struct fleet_odd *o = odd_in(&f.nodes[1], "finding", "links.transport-errors");
	assert_non_null(o);
	assert_null(o->value);
	assert_string_equal(o->majority, "info");
	assert_int_equal(o->agree, 4);
	o = odd_in(&f.nodes[4], "finding", "links.rate-degraded");
	assert_non_null(o);
	assert_string_equal(o->value, "warning");
	assert_null(o->majority);
	assert_int_equal(o->agree, 4);
	assert_int_equal(o->of, 5);
	assert_string_equal(f.nodes[4].verdict, "findings");
	assert_int_equal(f.nodes[4].sev[1], 1);
	fleet_free(&f);
}

/* The row: ports up of expected, slowest usable, firmware, fingerprint. */
static void test_row(void **state)
{
	struct spec s[4] = { { 0 } };
	struct fleet f;
	s[0].state1 = "DOWN";
	s[1].line1 = 256;               /* a PCIe ceiling under the 400 rate */
	s[2].fw1 = "28.40.1000";
	s[3].cell = "SYS";
	load_nodes(&f, s, 4);
	assert_int_equal(f.nodes[0].ports_up, 1);
	assert_int_equal(f.nodes[0].ports_expected, 2);
	assert_string_equal(f.nodes[0].slowest, "mlx5_0/1 400 Gb/s");
	assert_int_equal(f.nodes[1].ports_up, 2);
	assert_string_equal(f.nodes[1].slowest, "mlx5_1/1 256 Gb/s");
	assert_string_equal(f.nodes[1].firmware, "28.39.1002");
	assert_string_equal(f.nodes[2].firmware, "28.39.1002 (1), 28.40.1000 (1)");
	assert_int_equal(strlen(f.nodes[0].topo_fp), 8);
	assert_string_equal(f.nodes[0].topo_fp, f.nodes[1].topo_fp);
	assert_string_not_equal(f.nodes[0].topo_fp, f.nodes[3].topo_fp);
	assert_non_null(f.nodes[0].env);
	assert_non_null(f.nodes[0].kind);
	fleet_free(&f);
}

/* A garbage file and a missing one are rows with verdict unknown; the
 * others are still read and compared; exit 2. */
static void test_unreadable(void **state)
{
	struct spec s = { 0 };
	char *paths[6], p[PATH_MAX + 64];
	for (int i = 0; i < 3; i++) {
		char name[32], host[32];
		snprintf(name, sizeof(name), "ok%d.json", i);
		snprintf(host, sizeof(host), "ok%d", i);
		s.host = host;
		paths[i] = strdup(write_doc(name, &s));
	}
	snprintf(p, sizeof(p), "%s/garbage.json", dir);
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	fputs("{\"verdict\": \"ok\", \"nics\": [", fp);
	fclose(fp);
	paths[3] = strdup(p);
	snprintf(p, sizeof(p), "%s/absent.tar.gz", dir);
	paths[4] = strdup(p);
	struct fleet f;
	assert_int_equal(fleet_load(paths, 5, &f, NULL), 0);
	assert_int_equal(f.n, 5);
	for (int i = 0; i < 3; i++) {
		assert_null(f.nodes[i].error);
		assert_string_equal(f.nodes[i].verdict, "ok");
	}
	for (int i = 3; i < 5; i++) {
		assert_non_null(f.nodes[i].error);
		assert_string_equal(f.nodes[i].verdict, "unknown");
		assert_null(f.nodes[i].kind);
	}
	assert_string_equal(f.nodes[3].host, "garbage.json");
	assert_int_equal(f.nkinds, 1);
	assert_int_equal(f.kinds[0].nodes, 3);
	assert_int_equal(fleet_exit(&f), 2);
	fleet_free(&f);
	for (int i = 0; i < 5; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
}

/* A directory of reports is every report in it, in name order; the
 * JSON has the summary, the rows and the kinds. */
static void test_dir_json(void **state)
{
	char sub[PATH_MAX + 8];
	snprintf(sub, sizeof(sub), "%s/d", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	struct spec s = { 0 };
	const char *hosts[] = { "c", "a", "b", "d" };
	for (int i = 0; i < 4; i++) {
		char name[32];
		snprintf(name, sizeof(name), "d/%s.json", hosts[i]);
		s.host = hosts[i];
		s.rate1 = i == 3 ? 200 : 0;
		write_doc(name, &s);
	}
	char *paths[] = { sub };
	struct fleet f;
	assert_int_equal(fleet_load(paths, 1, &f, NULL), 0);
	assert_int_equal(f.n, 4);
	assert_string_equal(f.nodes[0].host, "a");
	assert_string_equal(f.nodes[3].host, "d");
	assert_true(f.nodes[3].nodd > 0);

	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	struct fab_out *o = out_new(OUT_JSON, mem);
	out_open_obj(o, NULL);
	fleet_print(o, &f);
	out_close_obj(o);
	assert_int_equal(out_free(o), 0);
	fclose(mem);
	json_error_t je;
	json_t *doc = json_loads(buf, 0, &je);
	assert_non_null(doc);
	assert_int_equal(json_array_size(json_object_get(doc, "nodes")), 4);
	assert_int_equal(json_array_size(json_object_get(doc, "kinds")), 1);
	json_t *sum = json_object_get(doc, "summary");
	assert_int_equal(json_integer_value(json_object_get(sum, "odd")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "exit")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(sum, "odd_nodes"), 0)), "d");
	json_t *n3 = json_array_get(json_object_get(doc, "nodes"), 3);
	assert_true(json_array_size(json_object_get(n3, "odd")) >= 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(n3, "ports"), "expected")), 2);
	json_decref(doc);
	free(buf);
	fleet_free(&f);
}

static void test_nothing(void **state)
{
	char empty[PATH_MAX + 8];
	snprintf(empty, sizeof(empty), "%s/empty", dir);
	assert_int_equal(mkdir(empty, 0755), 0);
	char *paths[] = { empty };
	struct fleet f;
	assert_int_equal(fleet_load(paths, 1, &f, NULL), -1);
	assert_int_equal(f.n, 0);
	assert_int_equal(fleet_load(paths, 0, &f, NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_odd_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uniform, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split, setup, teardown),
		cmocka_unit_test_setup_teardown(test_small_kind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
