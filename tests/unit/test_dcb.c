/*
 * The DCB netlink parser (dcb.h) on recorded bytes (tests/fixtures/dcb:
 * the request and error replies `dcb pfc show` really exchanged with this
 * kernel, recorded under strace; mlx5 replies built byte for byte as
 * dcbnl_ieee_fill() lays them out, by mkdcb.py), what a reply says about a
 * netdev, the traffic-class judgements (facts.c), MLNX_OFED's
 * traffic_class file, the jobs' NCCL_IB_TC, and the live path against the
 * real kernel (lo has no DCB; a name that does not exist).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "fabtop/dcb.h"
#include "fabtop/util.h"
#include "job.h"

#define FIX "tests/fixtures/dcb/"
#define SEQ 0x6b0fa2d5u               /* the recorded exchange's sequence number */

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	unsigned char *b = malloc(65536);
	assert_non_null(b);
	*len = fread(b, 1, 65536, f);
	fclose(f);
	return b;
}

static struct dcb_reply parse_file(const char *name, int want_rc)
{
	size_t len;
	struct dcb_reply r;
	unsigned char *b = slurp(name, &len);
	assert_int_equal(dcb_parse_reply(b, len, SEQ, &r), want_rc);
	free(b);
	return r;
}

static void netdev_init(struct fab_netdev *d, const char *name)
{
	memset(d, 0, sizeof(*d));
	fab_strlcpy(d->name, name, sizeof(d->name));
	d->pci = FAB_NO_INDEX;
}

/* What we send is what `dcb pfc show dev veth0` sent (veth0.strace.txt),
 * its sequence number aside. */
static void test_request(void **state)
{
	(void)state;
	size_t len;
	unsigned char *rec = slurp(FIX "veth0-request.bin", &len), mine[64];
	assert_int_equal(len, 32);
	memset(rec + 8, 0, 4);
	assert_int_equal(dcb_request_bytes("veth0", mine, sizeof(mine)), 32);
	assert_memory_equal(mine, rec, 32);
	assert_int_equal(dcb_request_bytes("veth0", mine, 16), -ENOSPC);
	assert_int_equal(dcb_request_bytes("", mine, sizeof(mine)), -EINVAL);
	free(rec);
}

/* The kernel's real answer for a netdev without dcbnl_ops: "no DCB on this
 * netdev", never "PFC off"; what sysfs said stays. */
static void test_eopnotsupp(void **state)
{
	(void)state;
	struct dcb_reply r = parse_file(FIX "veth0-eopnotsupp.bin", 0);
	assert_int_equal(r.err, -EOPNOTSUPP);
	assert_false(r.pfc_ok);
	struct fab_netdev d;
	netdev_init(&d, "veth0");
	dcb_reply_apply(&r, "", &d);
	assert_int_equal(d.dcb, FAB_NO);
	assert_non_null(strstr(d.dcb_why, "no DCB on this netdev"));
	assert_false(d.pfc_mask.ok);
	assert_string_equal(d.qos_source, "");
	/* MLNX_OFED's files read before stay, with their source. */
	d.pfc_mask = fab_int_of(0x08);
	fab_strlcpy(d.qos_source, "MLNX_OFED sysfs", sizeof(d.qos_source));
	dcb_reply_apply(&r, "mlx5_core", &d);
	assert_true(d.pfc_mask.ok);
	assert_int_equal(d.pfc_mask.v, 0x08);
	assert_string_equal(d.qos_source, "MLNX_OFED sysfs");

	r = parse_file(FIX "nosuch0-enodev.bin", 0);
	assert_int_equal(r.err, -ENODEV);
	netdev_init(&d, "nosuch0");
	dcb_reply_apply(&r, "", &d);
	assert_int_equal(d.dcb, FAB_UNKNOWN);
	assert_false(d.pfc_mask.ok);
	/* Not our request: no answer in it. */
	size_t len;
	unsigned char *b = slurp(FIX "veth0-eopnotsupp.bin", &len);
	assert_int_equal(dcb_parse_reply(b, len, SEQ + 1, &r), -ENOMSG);
	free(b);
}

static void test_mlx5_dscp(void **state)
{
	(void)state;
	struct dcb_reply r = parse_file(FIX "mlx5-dscp.bin", 0);
	assert_int_equal(r.err, 0);
	assert_string_equal(r.ifname, "ens1f0np0");
	assert_true(r.ieee && r.pfc_ok && r.pfc_counts_ok && r.ets_ok && r.app_ok && r.dcbx_ok);
	assert_int_equal(r.pfc_cap, 8);
	assert_int_equal(r.pfc_en, 0x08);
	assert_int_equal(r.pfc_requests[3], 1200);
	assert_int_equal(r.pfc_indications[3], 3400);
	assert_int_equal(r.prio_tc[0], 1);
	assert_int_equal(r.prio_tc[1], 0);
	assert_int_equal(r.prio_tc[7], 7);
	assert_int_equal(r.napp, 64);
	assert_int_equal(r.ndscp, 64);
	for (int d = 0; d < 64; d++)
		assert_int_equal(r.dscp2prio[d], d >> 3);
	assert_int_equal(r.dcbx, 0x0d);

	struct fab_netdev d;
	netdev_init(&d, "ens1f0np0");
	dcb_reply_apply(&r, "mlx5_core", &d);
	assert_int_equal(d.dcb, FAB_YES);
	assert_true(d.pfc_mask.ok);
	assert_int_equal(d.pfc_mask.v, 0x08);
	assert_string_equal(d.qos_source, "DCB netlink");
	assert_string_equal(d.qos_trust, "dscp");
	assert_string_equal(d.trust_source, "DCB netlink");
	assert_true(d.dscp_map_ok);
	assert_int_equal(d.dcbx.v, 0x0d);
	char why[256];
	/* 106 = DSCP 26 (<< 2) | ECT(0): priority 3, the map from the app table. */
	assert_int_equal(netdev_tc_priority(&d, 106, why, sizeof(why)), 3);
	assert_non_null(strstr(why, "DSCP 26"));
	assert_non_null(strstr(why, "app table"));
	assert_int_equal(netdev_tc_priority(&d, 0, why, sizeof(why)), 0);
	assert_int_equal(netdev_tc_priority(&d, 255, NULL, 0), 7);
	assert_int_equal(netdev_tc_priority(&d, -1, why, sizeof(why)), -1);
	assert_int_equal(netdev_tc_priority(&d, 256, why, sizeof(why)), -1);

	/* Another driver: its app table does not promise the trust mode. */
	netdev_init(&d, "eth9");
	dcb_reply_apply(&r, "ice", &d);
	assert_string_equal(d.qos_trust, "");
	assert_int_equal(netdev_tc_priority(&d, 106, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "trust mode of eth9 is unknown"));
}

static void test_mlx5_custom_and_pcp(void **state)
{
	(void)state;
	struct dcb_reply r = parse_file(FIX "mlx5-dscp-custom.bin", 0);
	struct fab_netdev d;
	char why[256];
	netdev_init(&d, "ens1f0np0");
	dcb_reply_apply(&r, "mlx5_core", &d);
	assert_int_equal(netdev_tc_priority(&d, 106, why, sizeof(why)), 5);
	assert_int_equal(netdev_tc_priority(&d, 104, why, sizeof(why)), 5);   /* ECN bits aside */
	assert_int_equal(netdev_tc_priority(&d, 108, why, sizeof(why)), 3);   /* DSCP 27 */

	r = parse_file(FIX "mlx5-pcp.bin", 0);
	assert_true(r.app_ok);
	assert_int_equal(r.napp, 0);
	netdev_init(&d, "ens1f0np0");
	dcb_reply_apply(&r, "mlx5_core", &d);
	assert_string_equal(d.qos_trust, "pcp");
	assert_false(d.dscp_map_ok);
	assert_int_equal(netdev_tc_priority(&d, 106, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "trusts pcp (DCB netlink)"));
	assert_non_null(strstr(why, "NCCL_IB_SL"));

	/* MLNX_OFED's qos/trust says it directly and wins; without a map the
	 * judgement uses mlx5's default, and says so. */
	netdev_init(&d, "ens1f0np0");
	fab_strlcpy(d.qos_trust, "dscp", sizeof(d.qos_trust));
	fab_strlcpy(d.trust_source, "MLNX_OFED sysfs", sizeof(d.trust_source));
	dcb_reply_apply(&r, "mlx5_core", &d);
	assert_string_equal(d.qos_trust, "dscp");
	assert_string_equal(d.trust_source, "MLNX_OFED sysfs");
	assert_int_equal(netdev_tc_priority(&d, 106, why, sizeof(why)), 3);
	assert_non_null(strstr(why, "default map, DSCP >> 3"));
	assert_int_equal(netdev_tc_priority(NULL, 106, why, sizeof(why)), -1);
}

/* Every cut of a reply, and damage inside it: a status, never a read past
 * the end (ASan watches), and nothing half-parsed. */
static void test_truncated_and_damaged(void **state)
{
	(void)state;
	size_t len;
	unsigned char *b = slurp(FIX "mlx5-dscp.bin", &len);
	struct dcb_reply r;
	for (size_t n = 0; n < len; n++) {
		unsigned char *c = malloc(n ? n : 1);
		memcpy(c, b, n);
		int rc = dcb_parse_reply(c, n, SEQ, &r);
		assert_true(rc == 0 || rc == -ENOMSG || rc == -EBADMSG);
		if (rc == 0)
			assert_true(r.pfc_ok);   /* only the whole reply message parses */
		free(c);
	}
	/* DCB_ATTR_DCBX with no byte: malformed, and nothing of it is kept. */
	unsigned char *c = malloc(len);
	memcpy(c, b, len);
	uint32_t mlen;
	memcpy(&mlen, c, sizeof(mlen));
	size_t at = mlen - 8;         /* the reply's last attribute, DCBX: "05 00 0e 00 0d" */
	assert_int_equal(c[at], 5);
	assert_int_equal(c[at + 2], 14);
	c[at] = 4;
	assert_int_equal(dcb_parse_reply(c, len, SEQ, &r), -EBADMSG);
	assert_false(r.pfc_ok);
	/* A positive error number is no kernel's. */
	memcpy(c, b, len);
	unsigned char *e = slurp(FIX "veth0-eopnotsupp.bin", &len);
	e[16] = 5; e[17] = e[18] = e[19] = 0;
	assert_int_equal(dcb_parse_reply(e, len, SEQ, &r), -EBADMSG);
	assert_int_equal(dcb_parse_reply(NULL, 0, SEQ, &r), -EBADMSG);
	free(e);
	free(c);
	free(b);
}

/* drivers/infiniband/hw/mlx5 traffic_class_show(): "Global tclass=%d\n",
 * then rules as tclass_print_*() write them. */
static void test_traffic_class(void **state)
{
	(void)state;
	struct fab_tclass t;
	assert_true(dcb_parse_traffic_class("Global tclass=106\n", &t));
	assert_int_equal(t.set, FAB_YES);
	assert_int_equal(t.value, 106);
	assert_int_equal(t.rules, 0);
	assert_true(dcb_parse_traffic_class("", &t));
	assert_int_equal(t.set, FAB_NO);
	assert_true(dcb_parse_traffic_class("dst_ip=10.0.0.0/8,tclass=96\n", &t));
	assert_int_equal(t.set, FAB_NO);
	assert_int_equal(t.rules, 1);
	assert_true(dcb_parse_traffic_class("Global tclass=236\nsrc_ip=10.1.1.1,dst_ip=10.2.0.0/16,"
					    "tclass=96\n", &t));
	assert_int_equal(t.set, FAB_YES);
	assert_int_equal(t.value, 236);
	assert_int_equal(t.rules, 1);
	assert_false(dcb_parse_traffic_class("Global tclass=300\n", &t));
	assert_int_equal(t.set, FAB_UNKNOWN);
	assert_false(dcb_parse_traffic_class("106\n", &t));
	assert_false(dcb_parse_traffic_class("Global tclass=\n", &t));

	struct fab_port p;
	char why[160];
	memset(&p, 0, sizeof(p));
	p.num = 1;
	assert_int_equal(port_effective_tc(&p, 106, why, sizeof(why)), 106);
	assert_string_equal(why, "");
	assert_int_equal(port_effective_tc(&p, -1, why, sizeof(why)), -1);
	assert_true(dcb_parse_traffic_class("Global tclass=96\n", &p.tclass));
	assert_int_equal(port_effective_tc(&p, 106, why, sizeof(why)), 96);
	assert_non_null(strstr(why, "tc/1/traffic_class forces traffic class 96"));
	assert_int_equal(port_effective_tc(&p, -1, NULL, 0), 96);
}

static void add_job(struct fab_job_list *l, int pid, const char *tc)
{
	l->jobs = realloc(l->jobs, (size_t)(l->njobs + 1) * sizeof(*l->jobs));
	struct fab_job *j = &l->jobs[l->njobs++];
	memset(j, 0, sizeof(*j));
	j->pid = pid;
	fab_strlcpy(j->comm, "python3", sizeof(j->comm));
	if (tc) {
		fab_strlcpy(j->nccl[0].name, "NCCL_IB_TC", sizeof(j->nccl[0].name));
		fab_strlcpy(j->nccl[0].value, tc, sizeof(j->nccl[0].value));
		j->nnccl = 1;
	}
}

static void test_job_tc(void **state)
{
	(void)state;
	struct fab_model m;
	struct fab_job_list l;
	memset(&l, 0, sizeof(l));
	model_init(&m);
	fab_strlcpy(l.source, "/proc", sizeof(l.source));
	dcb_job_tc(&l, &m);
	assert_false(m.job_tc.ok);
	assert_non_null(strstr(m.job_tc_from, "no NCCL job found (/proc)"));

	add_job(&l, 100, "106");
	add_job(&l, 101, "0x6a");     /* strtoll base 0, as NCCL reads it */
	dcb_job_tc(&l, &m);
	assert_true(m.job_tc.ok);
	assert_int_equal(m.job_tc.v, 106);
	assert_string_equal(m.job_tc_from, "NCCL_IB_TC=106 of pid 100 (python3), and 1 more alike");

	add_job(&l, 102, NULL);       /* NCCL's default 0 */
	dcb_job_tc(&l, &m);
	assert_false(m.job_tc.ok);
	assert_non_null(strstr(m.job_tc_from, "the jobs differ"));
	assert_non_null(strstr(m.job_tc_from, "pid 102 (python3) without NCCL_IB_TC"));

	free(l.jobs);
	memset(&l, 0, sizeof(l));
	add_job(&l, 7, NULL);
	dcb_job_tc(&l, &m);
	assert_true(m.job_tc.ok);
	assert_int_equal(m.job_tc.v, 0);
	add_job(&l, 8, "lossless");
	dcb_job_tc(&l, &m);
	assert_false(m.job_tc.ok);
	assert_non_null(strstr(m.job_tc_from, "is not a traffic class"));
	free(l.jobs);
	model_free(&m);
}

/* The live path against this kernel: lo has no dcbnl_ops (EOPNOTSUPP:
 * no DCB), a name that vanished after collect_net read it is ENODEV; both
 * through the JSON document. A port whose netdev this namespace does not
 * hold is never asked by that name (port_netdev_readable()). */
static void test_live_kernel(void **state)
{
	(void)state;
	struct fab_model m;
	char err[256] = "";
	model_init(&m);
	struct fab_nic *n = model_add_nic(&m);
	fab_strlcpy(n->name, "mlx5_0", sizeof(n->name));
	n->pci = FAB_NO_INDEX;
	n->nports = 3;
	n->ports[0].num = 1;
	n->ports[0].ll = FAB_LL_ETH;
	fab_strlcpy(n->ports[0].netdev, "lo", sizeof(n->ports[0].netdev));
	n->ports[1].num = 2;
	n->ports[1].ll = FAB_LL_ETH;
	fab_strlcpy(n->ports[1].netdev, "fabtopnone0", sizeof(n->ports[1].netdev));
	n->ports[2].num = 3;
	n->ports[2].ll = FAB_LL_ETH;
	fab_strlcpy(n->ports[2].netdev, "fabtopelsewhere0", sizeof(n->ports[2].netdev));
	for (int i = 0; i < 2; i++) {   /* what collect_net saw here */
		struct fab_netdev *d = model_add_netdev(&m);
		fab_strlcpy(d->name, i ? "fabtopnone0" : "lo", sizeof(d->name));
		d->pci = FAB_NO_INDEX;
	}
	json_t *doc = dcb_snapshot_json(&m, err, sizeof(err));
	if (!doc) {
		model_free(&m);
		fprintf(stderr, "# SKIP no route netlink socket here: %s\n", err);
		skip();
	}
	json_t *arr = json_object_get(doc, "netdevs");
	assert_int_equal(json_array_size(arr), 2);
	const char *hex = json_string_value(json_object_get(json_array_get(arr, 0), "reply"));
	assert_non_null(hex);
	unsigned char b[256];
	size_t len = strlen(hex) / 2;
	assert_true(len <= sizeof(b));
	for (size_t i = 0; i < len; i++) {
		unsigned v;
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		b[i] = (unsigned char)v;
	}
	struct dcb_reply r;
	assert_int_equal(dcb_parse_reply(b, len, 1, &r), 0);
	assert_int_equal(r.err, -EOPNOTSUPP);
	hex = json_string_value(json_object_get(json_array_get(arr, 1), "reply"));
	assert_non_null(hex);
	len = strlen(hex) / 2;
	for (size_t i = 0; i < len && i < sizeof(b); i++) {
		unsigned v;
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		b[i] = (unsigned char)v;
	}
	assert_int_equal(dcb_parse_reply(b, len, 2, &r), 0);
	json_decref(doc);
	model_free(&m);
	if (r.err == -EOPNOTSUPP) {
		fprintf(stderr, "# SKIP this kernel answers RTM_GETDCB with EOPNOTSUPP for any "
			"name (built without CONFIG_DCB)\n");
		skip();
	}
	assert_int_equal(r.err, -ENODEV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_eopnotsupp),
		cmocka_unit_test(test_mlx5_dscp),
		cmocka_unit_test(test_mlx5_custom_and_pcp),
		cmocka_unit_test(test_truncated_and_damaged),
		cmocka_unit_test(test_traffic_class),
		cmocka_unit_test(test_job_tc),
		cmocka_unit_test(test_live_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
