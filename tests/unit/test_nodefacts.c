/* nodefacts: a real scenario's `report all --json` (made here by the real
 * collectors and report_run) flattened; the same node with every identifier
 * changed has an equal list, and one changed setting is one fact; a
 * hand-made minimal document checks the list exactly (order, the matrix's
 * mirror, duplicate keys, null, counters). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/collect.h"
#include "fabtop/nodefacts.h"
#include "fabtop/report.h"
#include "fabtop/root.h"

/* build/scenarios/NAME's report all --json, as `fabtop --root` makes it. */
static json_t *scenario_doc(const char *name)
{
	char path[256], err[512];
	snprintf(path, sizeof(path), "build/scenarios/%s", name);
	struct fab_root root;
	if (root_open(&root, path, err, sizeof(err)) != 0)
		return NULL;
	struct fab_model *m = malloc(sizeof(*m));
	assert_non_null(m);
	model_init(m);
	collect_all(&root, m);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_run("all", true, f, m);
	assert_int_equal(fclose(f), 0);
	model_free(m);
	free(m);
	root_close(&root);
	json_error_t je;
	json_t *doc = json_loads(buf, 0, &je);
	free(buf);
	assert_non_null(doc);
	return doc;
}

static const char *val(const struct nodefacts *f, const char *section, const char *key)
{
	const struct nodefact *x = nodefacts_find(f, section, key);
	return x ? x->value : NULL;
}

/* The facts that differ between two lists, as "section key: a | b". */
static int count_diffs(const struct nodefacts *a, const struct nodefacts *b, char *first, size_t len)
{
	int n = 0;
	first[0] = 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct nodefact *y = nodefacts_find(b, a->v[i].section, a->v[i].key);
		if (!y || strcmp(y->value, a->v[i].value) != 0) {
			if (!n++)
				snprintf(first, len, "%s %s: %s | %s", a->v[i].section, a->v[i].key,
					 a->v[i].value, y ? y->value : "-");
		}
	}
	for (size_t i = 0; i < b->n; i++)
		if (!nodefacts_find(a, b->v[i].section, b->v[i].key) && !n++)
			snprintf(first, len, "%s %s: - | %s", b->v[i].section, b->v[i].key, b->v[i].value);
	return n;
}

/* Every identifier of the document changed, as on another node of the
 * same kind: host, time, source, GUIDs, GIDs and their addresses, LIDs,
 * netdev addresses. */
static void other_node(json_t *d)
{
	json_object_set_new(d, "host", json_string("node-b"));
	json_object_set_new(d, "time", json_integer(1764600000));
	json_object_set_new(d, "source", json_string("node-b.tar.gz"));
	size_t i, j, k;
	json_t *h, *p, *g, *nd;
	json_array_foreach(json_object_get(json_object_get(d, "links"), "hcas"), i, h) {
		json_object_set_new(h, "node_guid", json_sprintf("0c42:a103:00%02zx:beef", i));
		json_array_foreach(json_object_get(h, "ports"), j, p) {
			if (json_is_integer(json_object_get(p, "lid")))
				json_object_set_new(p, "lid", json_integer(100 + (json_int_t)i));
			if (json_is_integer(json_object_get(p, "sm_lid")))
				json_object_set_new(p, "sm_lid", json_integer(7));
			json_array_foreach(json_object_get(p, "gids"), k, g) {
				json_object_set_new(g, "gid", json_sprintf("fe80:0000:0000:0000:0e42:a1ff:fe00:%04zx", k));
				const char *ip = json_string_value(json_object_get(g, "ip"));
				if (ip)
					json_object_set_new(g, "ip", json_string(strchr(ip, ':') ? "fe80::e42:a1ff:fe00:1"
										    : "10.9.9.9"));
			}
		}
	}
	json_array_foreach(json_object_get(d, "nics"), i, nd)
		json_object_set_new(nd, "node_guid", json_string("0c42:a103:0000:0001"));
	json_array_foreach(json_object_get(d, "netdevs"), i, nd)
		json_object_set_new(nd, "addrs", json_pack("[s]", "10.20.0.6/24"));
}

static void test_real_scenario(void **state)
{
	json_t *a = scenario_doc("dgx-h100");
	if (!a)
		skip();  /* make tests builds the scenarios */
	struct nodefacts fa, fb, fi;
	assert_int_equal(nodefacts_from_doc(a, 0, &fa), 0);
	assert_true(fa.n > 300);
	assert_string_equal(val(&fa, "node", "gpus"), "8x NVIDIA H100 80GB HBM3");
	assert_string_equal(val(&fa, "node", "hcas"), "12x MT4129");
	assert_string_equal(val(&fa, "node", "kernel"), "5.15.0-1042-nvidia");
	assert_null(val(&fa, "node", "verdict"));          /* the findings' */
	assert_null(val(&fa, "node", "unknown_because"));  /* known */
	assert_string_equal(val(&fa, "topology", "GPU0 NIC0"), "PXB");
	assert_string_equal(val(&fa, "topology", "GPU0 NIC6"), "SYS");
	assert_null(val(&fa, "topology", "NIC0 GPU0"));  /* the mirror of GPU0 NIC0: once */
	assert_string_equal(val(&fa, "topology", "GPU0 closest"), "NIC0 PXB");
	assert_string_equal(val(&fa, "hca", "mlx5_0 fw_ver"), "28.39.1002");
	assert_string_equal(val(&fa, "port", "mlx5_0/1 rate_gbps"), "400");
	assert_string_equal(val(&fa, "port", "mlx5_0/1 state"), "ACTIVE");
	assert_string_equal(val(&fa, "port", "mlx5_0/1 netdev mtu"), "4092");
	assert_string_equal(val(&fa, "port", "mlx5_1/1 gid_kinds"),
			    "IB/RoCE v1 IPv4, IB/RoCE v1 IPv6, RoCE v2 IPv4, RoCE v2 IPv6");
	assert_string_equal(val(&fa, "pcie", "GPU0"), "32 GT/s x16, max 32 GT/s x16");
	assert_string_equal(val(&fa, "pcie", "mlx5_0"), "32 GT/s x16, max 32 GT/s x16");
	assert_string_equal(val(&fa, "netdev", "eno1 mtu"), "1500");
	assert_null(val(&fa, "netdev", "ibp24s0 mtu"));  /* a port's netdev: under port, once */
	assert_string_equal(val(&fa, "finding", "links.ll-mixed node"), "info");
	/* Identity is left out by default, kept on request. */
	assert_null(val(&fa, "node", "host"));
	assert_null(val(&fa, "hca", "mlx5_0 node_guid"));
	assert_null(val(&fa, "port", "mlx5_0/1 lid"));
	assert_int_equal(nodefacts_from_doc(a, NODEFACTS_IDENTITY, &fi), 0);
	assert_string_equal(val(&fi, "node", "host"), "dgx-h100-demo");
	assert_string_equal(val(&fi, "hca", "mlx5_0 node_guid"), "b83f:d203:00a4:1c3e");
	assert_string_equal(val(&fi, "port", "mlx5_0/1 lid"), "18");
	assert_true(nodefacts_find(&fi, "node", "host")->identity);
	/* Sorted, keys unique, every fact found where it is. */
	for (size_t i = 0; i < fi.n; i++) {
		assert_ptr_equal(nodefacts_find(&fi, fi.v[i].section, fi.v[i].key), &fi.v[i]);
		assert_true(i == 0 || nodefacts_cmp(&fi.v[i - 1], &fi.v[i]) < 0);
		assert_true(fi.v[i].value[0] != 0);
	}
	char kind[256];
	nodefacts_kind(a, kind, sizeof(kind));
	assert_string_equal(kind, "8x NVIDIA H100 80GB HBM3 + 12x MT4129");
	nodefacts_family(a, kind, sizeof(kind));
	assert_string_equal(kind, "NVIDIA H100 80GB HBM3 + MT4129");

	/* Another healthy node of the kind: every identifier differs, the
	 * comparable facts are equal, the identity facts are not. */
	json_t *b = json_deep_copy(a);
	other_node(b);
	char first[512];
	assert_int_equal(nodefacts_from_doc(b, 0, &fb), 0);
	assert_int_equal(count_diffs(&fa, &fb, first, sizeof(first)), 0);
	assert_int_equal(fa.n, fb.n);
	nodefacts_free(&fb);
	assert_int_equal(nodefacts_from_doc(b, NODEFACTS_IDENTITY, &fb), 0);
	assert_true(count_diffs(&fi, &fb, first, sizeof(first)) > 12);
	nodefacts_free(&fb);

	/* One setting changed: one fact. */
	json_t *p = json_array_get(json_object_get(json_array_get(json_object_get(json_object_get(b, "links"),
										   "hcas"), 3), "ports"), 0);
	json_object_set_new(p, "rate_gbps", json_integer(200));
	assert_int_equal(nodefacts_from_doc(b, 0, &fb), 0);
	assert_int_equal(count_diffs(&fa, &fb, first, sizeof(first)), 1);
	assert_string_equal(first, "port mlx5_3/1 rate_gbps: 400 | 200");
	nodefacts_free(&fb);

	nodefacts_free(&fa);
	nodefacts_free(&fi);
	json_decref(a);
	json_decref(b);
}

/* Two scenarios of one kind (8 H100 + 8 ConnectX-7) that differ: the kind
 * is equal, the facts tell the link layer and the down port apart. */
static void test_two_scenarios_kind(void **state)
{
	json_t *a = scenario_doc("ib-8port"), *b = scenario_doc("roce-faults");
	if (!a || !b) {
		json_decref(a);
		json_decref(b);
		skip();
	}
	char ka[256], kb[256];
	nodefacts_kind(a, ka, sizeof(ka));
	nodefacts_kind(b, kb, sizeof(kb));
	assert_string_equal(ka, "8x NVIDIA H100 80GB HBM3 + 8x MT4129");
	assert_string_equal(ka, kb);
	struct nodefacts fa, fb;
	assert_int_equal(nodefacts_from_doc(a, 0, &fa), 0);
	assert_int_equal(nodefacts_from_doc(b, 0, &fb), 0);
	/* roce-faults: mlx5_1's port is down, an InfiniBand node's is not. */
	assert_string_equal(val(&fa, "port", "mlx5_0/1 link_layer"), "InfiniBand");
	assert_string_equal(val(&fb, "port", "mlx5_0/1 link_layer"), "Ethernet");
	assert_string_equal(val(&fb, "port", "mlx5_1/1 state"), "DOWN");
	assert_string_equal(val(&fb, "port", "mlx5_1/1 usable"), "no: port DOWN/Disabled");
	nodefacts_free(&fa);
	nodefacts_free(&fb);
	json_decref(a);
	json_decref(b);
}

/* A minimal document by hand: the whole list, in order. */
static void test_minimal_exact(void **state)
{
	const char *text =
		"{\"host\": \"h1\", \"time\": null, \"kernel\": \"6.8.0\", \"verdict\": \"unknown\","
		" \"unknown_because\": [\"/sys/class/infiniband: permission denied\"],"
		" \"topology\": {\"source\": \"pci-tree\", \"columns\": [\"GPU0\", \"NIC0\", \"NIC1\"],"
		"  \"rows\": [{\"label\": \"GPU0\", \"cells\": [\"X\", \"PIX\", \"SYS\"], \"numa_affinity\": 0},"
		"            {\"label\": \"NIC0\", \"cells\": [\"PIX\", \"X\", \"SYS\"]},"
		"            {\"label\": \"NIC1\", \"cells\": [\"NODE\", \"SYS\", \"X\"]}],"
		"  \"closest_nics\": [{\"gpu\": \"GPU0\", \"nics\": [\"NIC0\"], \"level\": \"PIX\", \"usable\": \"yes\", \"note\": null}],"
		"  \"devices\": [{\"label\": \"GPU0\", \"kind\": \"gpu\", \"name\": \"A100\","
		"                \"pcie\": {\"speed_gts\": 16, \"width\": 8, \"max_speed_gts\": 16, \"max_width\": 16}}]},"
		" \"links\": {\"hcas\": ["
		"   {\"name\": \"mlx5_10\", \"hca_type\": \"MT4125\", \"fw_ver\": \"22.1\", \"node_guid\": \"aa\","
		"    \"ports\": [{\"port\": 1, \"state\": \"ACTIVE\", \"rate_gbps\": 100, \"usable\": \"yes\", \"usable_why\": \"ok\", \"lid\": 3,"
		"                \"gids\": [{\"index\": 0, \"gid\": \"fe80::1\", \"type\": \"RoCE v2\", \"ip\": \"10.0.0.1\"}]}]},"
		"   {\"name\": \"mlx5_2\", \"hca_type\": \"MT4125\", \"fw_ver\": null,"
		"    \"ports\": [{\"port\": 1, \"state\": \"DOWN\", \"usable\": \"no\", \"usable_why\": \"port DOWN/Polling\", \"gids\": [],"
		"                \"netdev\": {\"name\": \"eth2\", \"mtu\": 9000}}]}]},"
		" \"netdevs\": [{\"name\": \"eth2\", \"mtu\": 9000, \"addrs\": []}, {\"name\": \"veth1a2b\", \"mtu\": 1500},"
		"              {\"name\": \"bond0\", \"mtu\": 1500, \"addrs\": [\"10.1.0.1/16\"]}],"
		" \"counters\": {\"samples\": [{\"ports\": [{\"dev\": \"mlx5_2\", \"port\": 1}, {\"dev\": \"mlx5_10\", \"port\": 1}]}],"
		"   \"summary\": {\"bad_grew\": [{\"dev\": \"mlx5_10\", \"port\": 1, \"name\": \"packet_seq_err\"},"
		"                              {\"dev\": \"mlx5_10\", \"port\": 1, \"name\": \"local_ack_timeout_err\"}]}},"
		" \"findings\": [{\"id\": \"links.port-down\", \"subject\": \"mlx5_2/1\", \"severity\": \"warning\"},"
		"              {\"id\": \"links.port-down\", \"subject\": \"mlx5_2/1\", \"severity\": \"error\"},"
		"              {\"id\": \"topo.nic-far\", \"severity\": \"info\"}]}";
	static const char *const want[] = {
		"node gpus=1x A100",
		"node hcas=2x MT4125",
		"node kernel=6.8.0",
		"node unknown_because=/sys/class/infiniband: permission denied",
		"topology GPU0 NIC0=PIX",
		"topology GPU0 NIC1=SYS",
		"topology GPU0 closest=NIC0 PIX",
		"topology GPU0 closest usable=yes",
		"topology GPU0 kind=gpu",
		"topology GPU0 name=A100",
		"topology GPU0 numa_affinity=0",
		"topology NIC0 NIC1=SYS",
		"topology NIC1 GPU0=NODE",          /* differs from its mirror: kept */
		"topology matrix source=pci-tree",
		"hca mlx5_2 fw_ver=unknown",
		"hca mlx5_2 hca_type=MT4125",
		"hca mlx5_10 fw_ver=22.1",
		"hca mlx5_10 hca_type=MT4125",
		"port mlx5_2/1 gid_kinds=none",
		"port mlx5_2/1 netdev=eth2",
		"port mlx5_2/1 netdev mtu=9000",
		"port mlx5_2/1 state=DOWN",
		"port mlx5_2/1 usable=no: port DOWN/Polling",
		"port mlx5_10/1 gid_kinds=RoCE v2 IPv4",
		"port mlx5_10/1 rate_gbps=100",
		"port mlx5_10/1 state=ACTIVE",
		"port mlx5_10/1 usable=yes",
		"pcie GPU0=16 GT/s x8, max 16 GT/s x16",
		"netdev bond0 mtu=1500",
		"counter mlx5_2/1=quiet",
		"counter mlx5_10/1=grows: local_ack_timeout_err, packet_seq_err",
		"finding links.port-down mlx5_2/1=error, warning",
		"finding topo.nic-far node=info",
		NULL };
	json_error_t je;
	json_t *d = json_loads(text, 0, &je);
	assert_non_null(d);
	struct nodefacts f;
	assert_int_equal(nodefacts_from_doc(d, 0, &f), 0);
	size_t n = 0;
	for (; want[n]; n++) {
		assert_true(n < f.n);
		char got[256];
		snprintf(got, sizeof(got), "%s %s=%s", f.v[n].section, f.v[n].key, f.v[n].value);
		assert_string_equal(got, want[n]);
	}
	assert_int_equal(f.n, n);
	nodefacts_free(&f);

	/* Counters without their samples (nodedoc keeps the summary only):
	 * the sampled ports are the HCAs' ports, those of an HCA whose
	 * counters were skipped aside. */
	json_t *c = json_object_get(d, "counters");
	json_object_del(c, "samples");
	json_object_set_new(json_array_get(json_object_get(json_object_get(d, "links"), "hcas"), 1),
			    "counters_skipped", json_string("SMDL=SW_MNG"));
	assert_int_equal(nodefacts_from_doc(d, 0, &f), 0);
	assert_string_equal(val(&f, "counter", "mlx5_10/1"), "grows: local_ack_timeout_err, packet_seq_err");
	assert_null(val(&f, "counter", "mlx5_2/1"));
	assert_string_equal(val(&f, "hca", "mlx5_2 counters_skipped"), "SMDL=SW_MNG");
	json_object_set_new(json_array_get(json_object_get(json_object_get(d, "links"), "hcas"), 1),
			    "counters_skipped", json_null());
	nodefacts_free(&f);
	assert_int_equal(nodefacts_from_doc(d, 0, &f), 0);
	assert_string_equal(val(&f, "counter", "mlx5_2/1"), "quiet");
	nodefacts_free(&f);

	/* With identity: the host, the GUID, the LID, the GID, addresses and
	 * the veth's facts join; time null is "unknown". */
	assert_int_equal(nodefacts_from_doc(d, NODEFACTS_IDENTITY, &f), 0);
	assert_string_equal(val(&f, "node", "host"), "h1");
	assert_string_equal(val(&f, "node", "time"), "unknown");
	assert_string_equal(val(&f, "hca", "mlx5_10 node_guid"), "aa");
	assert_string_equal(val(&f, "port", "mlx5_10/1 lid"), "3");
	assert_string_equal(val(&f, "port", "mlx5_10/1 gid 0"), "fe80::1");
	assert_string_equal(val(&f, "netdev", "bond0 addrs"), "10.1.0.1/16");
	assert_string_equal(val(&f, "netdev", "eth2 addrs"), "none");
	assert_string_equal(val(&f, "netdev", "veth1a2b mtu"), "1500");
	assert_true(nodefacts_find(&f, "netdev", "veth1a2b mtu")->identity);
	assert_null(nodefacts_find(&f, "nosuch", "host"));
	nodefacts_free(&f);

	/* A GID table the report cut (gids_more): the kinds of what was not
	 * kept are unknown, so two nodes that differ only past the cut do not
	 * read as differing in kind; an empty kept list is not "none". */
	json_t *hcas = json_object_get(json_object_get(d, "links"), "hcas");
	json_object_set_new(json_array_get(json_object_get(json_array_get(hcas, 0), "ports"), 0),
			    "gids_more", json_integer(3));
	json_object_set_new(json_array_get(json_object_get(json_array_get(hcas, 1), "ports"), 0),
			    "gids_more", json_integer(2));
	assert_int_equal(nodefacts_from_doc(d, 0, &f), 0);
	assert_string_equal(val(&f, "port", "mlx5_10/1 gid_kinds"), "RoCE v2 IPv4; +3 not kept, of kinds unknown");
	assert_string_equal(val(&f, "port", "mlx5_2/1 gid_kinds"), "+2 not kept, of kinds unknown");
	nodefacts_free(&f);
	json_decref(d);

	char kind[64];
	d = json_pack("{s:s}", "host", "x");
	nodefacts_kind(d, kind, sizeof(kind));
	assert_string_equal(kind, "unknown");
	json_decref(d);
	/* Not an object: no facts, no error. */
	d = json_integer(3);
	assert_int_equal(nodefacts_from_doc(d, 0, &f), 0);
	assert_int_equal(f.n, 0);
	nodefacts_free(&f);
	json_decref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_exact),
		cmocka_unit_test(test_real_scenario),
		cmocka_unit_test(test_two_scenarios_kind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
