/* Parsers behind the link health pane, on the kernel's real formats and on
 * garbage: port state lines, rate strings, GIDs, the RoCE MTU rule, PFC and
 * ECN flags, trust, the RDMA netlink SYS_GET reply, and the RDMA collector
 * over a small hand-made sysfs tree. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include "fab_archive.h"
#include "fabtop/collect.h"
#include "fabtop/model.h"
#include "fabtop/root.h"
#include "fabtop/util.h"

static void test_state_lines(void **state)
{
	long long v;
	char w[24];
	(void)state;
	assert_true(fab_parse_enum_line("4: ACTIVE", &v, w, sizeof(w)));
	assert_int_equal(v, 4);
	assert_string_equal(w, "ACTIVE");
	assert_true(fab_parse_enum_line("5: LinkUp\n", &v, w, sizeof(w)));
	assert_int_equal(v, 5);
	assert_string_equal(w, "LinkUp");
	assert_true(fab_parse_enum_line("2: Polling", &v, w, sizeof(w)));
	assert_int_equal(v, 2);
	assert_string_equal(w, "Polling");
	assert_true(fab_parse_enum_line("3: Disabled", &v, w, sizeof(w)));
	assert_int_equal(v, 3);
	assert_string_equal(w, "Disabled");
	assert_false(fab_parse_enum_line("ACTIVE", &v, w, sizeof(w)));
	assert_false(fab_parse_enum_line("4:", &v, w, sizeof(w)));
	assert_false(fab_parse_enum_line("", &v, w, sizeof(w)));
}

static void test_rate_width(void **state)
{
	int width;
	char speed[8];
	double g;
	(void)state;
	assert_true(fab_parse_rate_width("100 Gb/sec (4X EDR)", &width, speed, sizeof(speed)));
	assert_int_equal(width, 4);
	assert_string_equal(speed, "EDR");
	assert_true(fab_parse_rate_width("400 Gb/sec (4X NDR)\n", &width, speed, sizeof(speed)));
	assert_int_equal(width, 4);
	assert_string_equal(speed, "NDR");
	assert_true(fab_parse_rate("400 Gb/sec (4X NDR)", &g));
	assert_true(g > 399.9 && g < 400.1);
	assert_true(fab_parse_rate_width("25 Gb/sec (1X EDR)", &width, speed, sizeof(speed)));
	assert_int_equal(width, 1);
	assert_string_equal(speed, "EDR");
	assert_true(fab_parse_rate_width("200 Gb/sec (2X NDR)", &width, speed, sizeof(speed)));
	assert_int_equal(width, 2);
	assert_string_equal(speed, "NDR");
	assert_true(fab_parse_rate_width("56 Gb/sec (4X FDR)", &width, speed, sizeof(speed)));
	assert_string_equal(speed, "FDR");
	assert_true(fab_parse_rate_width("40 Gb/sec (4X FDR10)", &width, speed, sizeof(speed)));
	assert_string_equal(speed, "FDR10");
	assert_true(fab_parse_rate_width("2.5 Gb/sec (1X SDR)", &width, speed, sizeof(speed)));
	assert_int_equal(width, 1);
	assert_true(fab_parse_rate_width("300 Gb/sec (12X EDR)", &width, speed, sizeof(speed)));
	assert_int_equal(width, 12);
	/* Older kernels print SDR with no name: the width is still known. */
	assert_true(fab_parse_rate_width("10 Gb/sec (4X)", &width, speed, sizeof(speed)));
	assert_int_equal(width, 4);
	assert_string_equal(speed, "");
	/* Garbage. */
	assert_false(fab_parse_rate_width("", &width, speed, sizeof(speed)));
	assert_false(fab_parse_rate_width("fast", &width, speed, sizeof(speed)));
	assert_false(fab_parse_rate_width("100 Gb/sec", &width, speed, sizeof(speed)));
	assert_false(fab_parse_rate_width("100 Gb/sec (3X EDR)", &width, speed, sizeof(speed)));
	assert_false(fab_parse_rate_width("100 Gb/sec (-1X SDR)", &width, speed, sizeof(speed)));
	assert_false(fab_parse_rate_width("100 Gb/sec (4X edr)", &width, speed, sizeof(speed)));
	assert_false(fab_parse_rate_width("100 Gb/sec (4X EDR", &width, speed, sizeof(speed)));
	assert_false(fab_parse_rate_width("100 Gb/sec (4X VERYLONGNAME)", &width, speed, sizeof(speed)));
	assert_false(fab_parse_rate_width("(4X EDR)", &width, speed, sizeof(speed)));
}

/* Writes DIR/REL with content, creating folders. */
static void put(const char *dir, const char *rel, const char *content)
{
	char p[1024], cmd[1200];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	snprintf(cmd, sizeof(cmd), "%s", p);
	for (char *q = cmd + strlen(dir) + 1; *q; q++)
		if (*q == '/') {
			*q = '\0';
			mkdir(cmd, 0755);
			*q = '/';
		}
	mkdir(cmd, 0755);
	*slash = '/';
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static bool has_note(const struct fab_model *m, const char *a, const char *b)
{
	for (int i = 0; i < m->nnotes; i++)
		if (strstr(m->notes[i].message, a) && (!b || strstr(m->notes[i].message, b)))
			return true;
	return false;
}

/* The collector over a hand-made RoCE port: GID types and netdevs, empty
 * slots skipped, a removed attribute, and a counter that is not a number. */
static void test_collect_port(void **state)
{
	char dir[] = "/tmp/fabtop-test-links.XXXXXX", err[256];
	const char *P = "sys/class/infiniband/mlx5_0/ports/1";
	char rel[256];
	struct fab_root r;
	struct fab_model m;
	(void)state;
	assert_non_null(mkdtemp(dir));
#define PUT(sub, text) do { snprintf(rel, sizeof(rel), "%s/%s", P, sub); put(dir, rel, text); } while (0)
	put(dir, "sys/class/infiniband/mlx5_0/hca_type", "MT4129\n");
	PUT("state", "4: ACTIVE\n");
	PUT("phys_state", "5: LinkUp\n");
	PUT("rate", "200 Gb/sec (2X NDR)\n");
	PUT("link_layer", "Ethernet\n");
	PUT("lid", "0x0000\n");
	PUT("sm_lid", "0x0012\n");
	PUT("sm_sl", "0\n");
	PUT("gids/0", "fe80:0000:0000:0000:0e42:a1ff:feed:e000\n");
	PUT("gids/1", "0000:0000:0000:0000:0000:0000:0000:0000\n");
	PUT("gids/2", "0000:0000:0000:0000:0000:ffff:0a00:0105\n");
	PUT("gids/3", "0000:0000:0000:0000:0000:ffff:0a00:0105\n");
	PUT("gid_attrs/types/0", "IB/RoCE v1\n");
	PUT("gid_attrs/types/2", "IB/RoCE v1\n");
	PUT("gid_attrs/types/3", "RoCE v2\n");   /* types/1: empty slot, no entry */
	PUT("gid_attrs/ndevs/0", "eth9\n");
	PUT("gid_attrs/ndevs/2", "eth9\n");      /* ndevs/3 removed */
	PUT("counters/symbol_error", "abc\n");
	PUT("counters/link_downed", "2\n");
	PUT("counters/port_xmit_data", "123\n"); /* data, not an error counter */
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	model_init(&m);
	assert_int_equal(collect_rdma(&r, &m), 0);
	assert_int_equal(m.nnics, 1);
	const struct fab_nic *n = &m.nics[0];
	assert_string_equal(n->hca_type, "MT4129");
	assert_false(n->cap_gbps.ok);   /* no PCI function: adapter unknown */
	assert_int_equal(n->nports, 1);
	const struct fab_port *p = &n->ports[0];
	assert_true(p->width.ok);
	assert_int_equal(p->width.v, 2);
	assert_string_equal(p->speed, "NDR");
	assert_int_equal(p->sm_lid.v, 0x12);
	assert_true(p->sm_sl.ok);
	assert_int_equal(p->ngids, 3);
	assert_int_equal(p->gids[0].index, 0);
	assert_string_equal(p->gids[0].type, "IB/RoCE v1");
	assert_string_equal(p->gids[0].netdev, "eth9");
	assert_string_equal(p->gids[0].ip, "fe80::e42:a1ff:feed:e000");
	assert_int_equal(p->gids[1].index, 2);
	assert_string_equal(p->gids[1].ip, "10.0.1.5");
	assert_true(p->gids[1].ipv4);
	assert_int_equal(p->gids[2].index, 3);
	assert_string_equal(p->gids[2].type, "RoCE v2");
	assert_string_equal(p->gids[2].netdev, "");
	assert_string_equal(p->netdev, "eth9");
	assert_int_equal(p->max_mtu.v, 4096);
	assert_false(p->active_mtu.ok);   /* eth9 is not in this namespace */
	assert_int_equal(p->nerrors, 2);
	assert_string_equal(p->errors[0].name, "symbol_error");
	assert_false(p->errors[0].value.ok);
	assert_string_equal(p->errors[1].name, "link_downed");
	assert_int_equal(p->errors[1].value.v, 2);
	assert_true(has_note(&m, "symbol_error", "abc"));
	assert_int_equal(m.nnotes, 1);
	model_free(&m);
	root_close(&r);
	assert_int_equal(fab_rmtree(dir), 0);
#undef PUT
}

static const struct fab_note *note_with(const struct fab_model *m, const char *a, const char *b)
{
	for (int i = 0; i < m->nnotes; i++)
		if (strstr(m->notes[i].message, a) && (!b || strstr(m->notes[i].message, b)))
			return &m->notes[i];
	return NULL;
}

/* Input real nodes give (issue 13, class 12), over a hand-made tree:
 * - an hfi1 board_id of 74 bytes (the text comes from the Omni-Path 100
 *   HFI's subsystem name, "Omni-Path HFI Adapter 100 Series, 1 Port,
 *   PCIe x16" in hardware databases; prometheus/procfs#341 shows a real
 *   hfi1_0/board_id) is kept whole, as is any attribute up to a sysfs page
 *   (4095 bytes); 4096 bytes cannot come from a show() and is refused;
 * - counters reading "N/A (no PMA)" (the kernel's text before 4.19 for a
 *   device without a PMA: i40iw and a ConnectX-3 VF in
 *   prometheus/node_exporter#966) are unknown, not implausible, and the
 *   port's other counters are read;
 * - a counter whose read fails with EINVAL (a newer kernel's answer when
 *   the PMA query fails: bnxt_re in prometheus/procfs#675, new hardware in
 *   prometheus/procfs#705) loses that counter only. A directory cannot make
 *   read() fail with EINVAL; the capture format's unreadable.tsv replays
 *   the errno a capture recorded, through the same reader. */
static void test_collect_real_input(void **state)
{
	char dir[] = "/tmp/fabtop-test-links.XXXXXX", err[256];
	const char *D = "sys/class/infiniband/hfi1_0", *P = "sys/class/infiniband/hfi1_0/ports/1";
	const char *hfi1 = "Intel Omni-Path Host Fabric Interface Adapter 100 Series, 1 Port, PCIe x16";
	static char page[FAB_SYSFS_PAGE + 2];
	char rel[256];
	struct fab_root r;
	struct fab_model m;
	(void)state;
	assert_int_equal(strlen(hfi1), 74);   /* over the 32 the model held before */
	assert_non_null(mkdtemp(dir));
#define PUT(base, sub, text) do { snprintf(rel, sizeof(rel), "%s/%s", base, sub); put(dir, rel, text); } while (0)
	PUT(D, "board_id", "Intel Omni-Path Host Fabric Interface Adapter 100 Series, 1 Port, PCIe x16\n");
	memset(page, 'x', FAB_SYSFS_PAGE - 1);
	page[FAB_SYSFS_PAGE - 1] = '\0';   /* 4095 bytes: a full show() */
	PUT(D, "hca_type", page);
	memset(page, 'y', FAB_SYSFS_PAGE);
	page[FAB_SYSFS_PAGE] = '\0';       /* 4096 bytes: more than a page holds */
	PUT(D, "fw_ver", page);
	PUT(P, "state", "4: ACTIVE\n");
	PUT(P, "rate", "100 Gb/sec (4X EDR)\n");
	PUT(P, "link_layer", "InfiniBand\n");
	PUT(P, "counters/symbol_error", "N/A (no PMA)\n");
	PUT(P, "counters/link_downed", "N/A (no PMA)\n");
	PUT(P, "counters/port_rcv_errors", "");   /* EINVAL, recorded below */
	PUT(P, "counters/port_xmit_discards", "7\n");
	snprintf(rel, sizeof(rel), "/%s/counters/port_rcv_errors\t22\tInvalid argument\n", P);
	put(dir, "fabtop/unreadable.tsv", rel);
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	model_init(&m);
	assert_int_equal(collect_rdma(&r, &m), 0);
	assert_int_equal(m.nnics, 1);
	const struct fab_nic *n = &m.nics[0];
	assert_string_equal(n->board_id, hfi1);
	assert_int_equal(strlen(n->hca_type), FAB_SYSFS_PAGE - 1);
	assert_string_equal(n->fw_ver, "");
	assert_non_null(note_with(&m, "fw_ver", "value too long (4096 bytes)"));
	assert_int_equal(n->nports, 1);
	const struct fab_port *p = &n->ports[0];
	assert_true(p->state.ok);
	assert_int_equal(p->nerrors, 4);
	int valued = 0;
	for (int k = 0; k < p->nerrors; k++) {
		const struct fab_counter *c = &p->errors[k];
		assert_false(c->implausible);
		if (strcmp(c->name, "port_xmit_discards") == 0) {
			assert_true(c->value.ok);
			assert_int_equal(c->value.v, 7);
			valued++;
		} else {
			assert_false(c->value.ok);
		}
	}
	assert_int_equal(valued, 1);
	const struct fab_note *na = note_with(&m, "2 of 4 counters in /sys/class/infiniband/hfi1_0/ports/1/counters "
					     "read \"N/A (no PMA)\" (symbol_error first)", "unknown, not zero");
	assert_non_null(na);
	assert_int_equal(na->src, 0);   /* a counter lost, not the port: no report is unknown */
	const struct fab_note *inv = note_with(&m, "port_rcv_errors: Invalid argument", "1 of 4 counters");
	assert_non_null(inv);
	assert_int_equal(inv->src, 0);
	assert_int_equal(m.nnotes, 3);
	model_free(&m);
	root_close(&r);
	assert_int_equal(fab_rmtree(dir), 0);
#undef PUT
}

/* A container that mounts /sys/class/infiniband but not /sys/devices
 * (prometheus/node_exporter#2427: "the actual information is in
 * /sys/devices"): the class links lead nowhere. No HCA of N/As: one note
 * that leaves the RDMA reports unknown and names the mount that fixes it.
 * With /sys/devices there and one link dangling, the device went away. */
static void test_collect_dangling(void **state)
{
	char dir[] = "/tmp/fabtop-test-links.XXXXXX", err[256], p[512];
	struct fab_root r;
	struct fab_model m;
	(void)state;
	assert_non_null(mkdtemp(dir));
	put(dir, "sys/class/infiniband/.keep", "");
	const char *devs[] = { "mlx5_0", "mlx5_1" };
	for (int i = 0; i < 2; i++) {
		char t[256];
		snprintf(p, sizeof(p), "%s/sys/class/infiniband/%s", dir, devs[i]);
		snprintf(t, sizeof(t), "../../devices/pci0000:15/0000:15:01.0/0000:1%d:00.0/infiniband/%s",
			 i, devs[i]);
		assert_int_equal(symlink(t, p), 0);
	}
	snprintf(p, sizeof(p), "%s/sys/class/infiniband/.keep", dir);
	unlink(p);
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	model_init(&m);
	assert_int_equal(collect_rdma(&r, &m), 0);
	assert_int_equal(m.nnics, 0);
	assert_int_equal(m.nnotes, 1);
	assert_string_equal(m.notes[0].message,
			    "/sys/class/infiniband: 2 of 2 entries (mlx5_0, ...) link into /sys/devices, "
			    "which is not mounted here: unknown, not zero; run the container with "
			    "-v /sys/devices:/sys/devices:ro (or -v /sys:/sys:ro)");
	assert_int_equal(m.notes[0].src, FAB_SRC_RDMA);
	assert_int_equal(model_verdict(&m, FAB_SRC_RDMA, 0), FAB_VERDICT_UNKNOWN);
	model_free(&m);
	root_close(&r);

	/* /sys/devices is there and mlx5_1's device too: mlx5_0 went away. */
	put(dir, "sys/devices/pci0000:15/0000:15:01.0/0000:11:00.0/infiniband/mlx5_1/node_guid",
	    "b83f:d203:001d:0210\n");
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	model_init(&m);
	assert_int_equal(collect_rdma(&r, &m), 0);
	assert_int_equal(m.nnics, 1);
	assert_string_equal(m.nics[0].name, "mlx5_1");
	assert_non_null(note_with(&m, "/sys/class/infiniband/mlx5_0 links to /sys/devices/pci0000:15/"
				  "0000:15:01.0/0000:10:00.0/infiniband/mlx5_0, which is missing",
				  "went away"));
	assert_null(note_with(&m, "-v /sys/devices", NULL));
	model_free(&m);
	root_close(&r);
	assert_int_equal(fab_rmtree(dir), 0);
}

/* QoS where the driver exposes it: trust, PFC in either format, ECN per
 * priority; absent files are unknown without a note. */
static void test_collect_qos(void **state)
{
	char dir[] = "/tmp/fabtop-test-qos.XXXXXX", err[256], rel[128];
	struct fab_root r;
	struct fab_model m;
	(void)state;
	assert_non_null(mkdtemp(dir));
	put(dir, "sys/class/net/eth9/mtu", "4200\n");
	put(dir, "sys/class/net/eth9/carrier", "1\n");
	put(dir, "sys/class/net/eth9/qos/trust", "dscp\n");
	put(dir, "sys/class/net/eth9/qos/pfc", "0 0 0 1 0 0 0 0\n");
	for (int p = 0; p < 8; p++) {
		snprintf(rel, sizeof(rel), "sys/class/net/eth9/ecn/roce_np/enable/%d", p);
		put(dir, rel, p == 3 ? "1\n" : "0\n");
		if (p != 5) {   /* roce_rp/enable/5 missing: the mask is unknown */
			snprintf(rel, sizeof(rel), "sys/class/net/eth9/ecn/roce_rp/enable/%d", p);
			put(dir, rel, "1\n");
		}
	}
	put(dir, "sys/class/net/eth8/mtu", "1500\n");
	put(dir, "sys/class/net/eth8/qos/pfc", "0x18\n");
	put(dir, "sys/class/net/eth8/qos/trust", "vlan\n");
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	model_init(&m);
	assert_int_equal(collect_net(&r, &m), 0);
	assert_int_equal(m.nnetdevs, 2);
	const struct fab_netdev *e8 = &m.netdevs[model_find_netdev(&m, "eth8")];
	const struct fab_netdev *e9 = &m.netdevs[model_find_netdev(&m, "eth9")];
	assert_true(e9->carrier.ok);
	assert_int_equal(e9->carrier.v, 1);
	assert_string_equal(e9->qos_trust, "dscp");
	assert_int_equal(e9->pfc_mask.v, 0x08);
	assert_true(e9->ecn_np_mask.ok);
	assert_int_equal(e9->ecn_np_mask.v, 0x08);
	assert_false(e9->ecn_rp_mask.ok);
	assert_false(e8->carrier.ok);
	assert_int_equal(e8->pfc_mask.v, 0x18);
	assert_string_equal(e8->qos_trust, "");
	assert_false(e8->ecn_np_mask.ok);
	assert_int_equal(m.nnotes, 1);   /* only the garbage trust */
	assert_true(has_note(&m, "qos/trust", "vlan"));
	model_free(&m);
	root_close(&r);
	assert_int_equal(fab_rmtree(dir), 0);
}

/* Replay of fabtop/devices.json: present and openable, present and refused,
 * not in the map (absent); and a capture without the file: one note. */
static void test_uverbs_replay(void **state)
{
	char dir[] = "/tmp/fabtop-test-uverbs.XXXXXX", err[256], rel[128];
	struct fab_root r;
	struct fab_model m;
	(void)state;
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 3; i++) {
		char ib[16];
		snprintf(rel, sizeof(rel), "sys/class/infiniband/mlx5_%d/ports/1/link_layer", i);
		put(dir, rel, "InfiniBand\n");
		snprintf(rel, sizeof(rel), "sys/class/infiniband_verbs/uverbs%d/ibdev", i);
		snprintf(ib, sizeof(ib), "mlx5_%d\n", i);
		put(dir, rel, ib);
	}
	for (int pass = 0; pass < 2; pass++) {
		assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
		model_init(&m);
		collect_rdma(&r, &m);
		assert_int_equal(m.nnics, 3);
		assert_int_equal(collect_uverbs(&r, &m), 0);
		if (pass == 0) {
			assert_int_equal(m.nnotes, 1);
			assert_true(has_note(&m, "does not record /dev/infiniband", "older fabtop"));
			assert_string_equal(m.nics[0].uverbs.name, "uverbs0");
			assert_false(m.nics[0].uverbs.present);
			assert_false(m.nics[0].uverbs.open_errno.ok);
			put(dir, "fabtop/devices.json",
			    "{\"uverbs\": {\"uverbs0\": {\"present\": true, \"open_errno\": 0},\n"
			    "              \"uverbs1\": {\"present\": true, \"open_errno\": 13}}}\n");
		} else {
			assert_int_equal(m.nnotes, 0);
			assert_true(m.nics[0].uverbs.present);
			assert_int_equal(m.nics[0].uverbs.open_errno.v, 0);
			assert_true(m.nics[1].uverbs.present);
			assert_int_equal(m.nics[1].uverbs.open_errno.v, EACCES);
			assert_false(m.nics[2].uverbs.present);
			assert_true(m.nics[2].uverbs.open_errno.ok);
			assert_int_equal(m.nics[2].uverbs.open_errno.v, ENOENT);
		}
		model_free(&m);
		root_close(&r);
	}
	assert_int_equal(fab_rmtree(dir), 0);
}

static void test_gids(void **state)
{
	unsigned char raw[16];
	char ip[48];
	bool v4;
	(void)state;
	/* Empty slots. */
	assert_true(fab_parse_gid("0000:0000:0000:0000:0000:0000:0000:0000\n", raw));
	assert_true(fab_gid_is_zero(raw));
	/* IPv4-mapped RoCE v2 GID. */
	assert_true(fab_parse_gid("0000:0000:0000:0000:0000:ffff:0a00:0105", raw));
	assert_false(fab_gid_is_zero(raw));
	fab_gid_ip(raw, true, ip, sizeof(ip), &v4);
	assert_string_equal(ip, "10.0.1.5");
	assert_true(v4);
	/* Link-local: an address on RoCE, nothing on IB. */
	assert_true(fab_parse_gid("fe80:0000:0000:0000:b83f:d203:00a4:1c3e", raw));
	fab_gid_ip(raw, true, ip, sizeof(ip), &v4);
	assert_string_equal(ip, "fe80::b83f:d203:a4:1c3e");
	assert_false(v4);
	fab_gid_ip(raw, false, ip, sizeof(ip), &v4);
	assert_string_equal(ip, "");
	assert_false(v4);
	/* A global RoCE GID. */
	assert_true(fab_parse_gid("2001:0db8:0000:0000:0000:0000:0000:0001", raw));
	fab_gid_ip(raw, true, ip, sizeof(ip), &v4);
	assert_string_equal(ip, "2001:db8::1");
	/* An IB GID with a site prefix is not an address either. */
	assert_true(fab_parse_gid("fec0:0000:0000:0000:0002:c903:00ec:0e51", raw));
	fab_gid_ip(raw, false, ip, sizeof(ip), &v4);
	assert_string_equal(ip, "");
	/* Upper case hex is accepted. */
	assert_true(fab_parse_gid("FE80:0000:0000:0000:B83F:D203:00A4:1C3E", raw));
	/* Garbage. */
	assert_false(fab_parse_gid("", raw));
	assert_false(fab_parse_gid("abc", raw));
	assert_false(fab_parse_gid("fe80::1", raw));
	assert_false(fab_parse_gid("fe80:0000:0000:0000:b83f:d203:00a4", raw));
	assert_false(fab_parse_gid("fe80:0000:0000:0000:b83f:d203:00a4:1c3e:0000", raw));
	assert_false(fab_parse_gid("fe80:0000:0000:0000:b83f:d203:00a4:1c3g", raw));
	assert_false(fab_parse_gid(NULL, raw));
}

static void test_roce_mtu(void **state)
{
	(void)state;
	/* iboe_get_mtu(): netdev MTU minus 96 bytes of headers, rounded down. */
	assert_int_equal(FAB_ROCE_MTU_OVERHEAD, 96);
	assert_int_equal(fab_roce_mtu(9000), 4096);
	assert_int_equal(fab_roce_mtu(4200), 4096);   /* 4104 left */
	assert_int_equal(fab_roce_mtu(4192), 4096);   /* exactly 4096 left */
	assert_int_equal(fab_roce_mtu(4191), 2048);
	assert_int_equal(fab_roce_mtu(4096), 2048);
	assert_int_equal(fab_roce_mtu(2144), 2048);
	assert_int_equal(fab_roce_mtu(2143), 1024);
	assert_int_equal(fab_roce_mtu(1500), 1024);
	assert_int_equal(fab_roce_mtu(1120), 1024);
	assert_int_equal(fab_roce_mtu(1119), 512);
	assert_int_equal(fab_roce_mtu(576), 256);   /* IPv4's minimum */
	assert_int_equal(fab_roce_mtu(352), 256);
	assert_int_equal(fab_roce_mtu(351), 0);
	assert_int_equal(fab_roce_mtu(68), 0);
	assert_int_equal(fab_roce_mtu(65536), 4096);
}

static void test_pfc(void **state)
{
	long long m;
	(void)state;
	assert_true(fab_parse_prio_mask("0 0 0 1 0 0 0 0", &m));
	assert_int_equal(m, 0x08);
	assert_true(fab_parse_prio_mask("0,0,0,1,0,0,0,0\n", &m));
	assert_int_equal(m, 0x08);
	assert_true(fab_parse_prio_mask("0, 0, 0, 1, 1, 0, 0, 0", &m));
	assert_int_equal(m, 0x18);
	assert_true(fab_parse_prio_mask("1 0 0 0 0 0 0 1", &m));
	assert_int_equal(m, 0x81);
	assert_true(fab_parse_prio_mask("0 0 0 0 0 0 0 0", &m));
	assert_int_equal(m, 0);
	assert_true(fab_parse_prio_mask("0x08", &m));
	assert_int_equal(m, 0x08);
	assert_true(fab_parse_prio_mask("08\n", &m));
	assert_int_equal(m, 0x08);
	assert_true(fab_parse_prio_mask("0xff", &m));
	assert_int_equal(m, 0xff);
	assert_true(fab_parse_prio_mask("0", &m));
	assert_int_equal(m, 0);
	/* Garbage. */
	assert_false(fab_parse_prio_mask("", &m));
	assert_false(fab_parse_prio_mask("abc", &m));
	assert_false(fab_parse_prio_mask("0x100", &m));
	assert_false(fab_parse_prio_mask("0 0 0 1", &m));
	assert_false(fab_parse_prio_mask("0 0 0 1 0 0 0 0 0", &m));
	assert_false(fab_parse_prio_mask("0 0 0 2 0 0 0 0", &m));
	assert_false(fab_parse_prio_mask("0,0,0,1,0,0,0,0,", &m));
	assert_false(fab_parse_prio_mask("on off", &m));
	assert_false(fab_parse_prio_mask(NULL, &m));
}

static void test_flags_and_trust(void **state)
{
	bool on;
	char t[8];
	(void)state;
	/* ecn/roce_np/enable/<p> and carrier read "0" or "1". */
	assert_true(fab_parse_flag("1\n", &on));
	assert_true(on);
	assert_true(fab_parse_flag("0", &on));
	assert_false(on);
	assert_false(fab_parse_flag("", &on));
	assert_false(fab_parse_flag("2", &on));
	assert_false(fab_parse_flag("abc", &on));
	assert_true(fab_parse_trust("dscp\n", t, sizeof(t)));
	assert_string_equal(t, "dscp");
	assert_true(fab_parse_trust("PCP", t, sizeof(t)));
	assert_string_equal(t, "pcp");
	assert_true(fab_parse_trust("Priority trust state: dscp", t, sizeof(t)));
	assert_string_equal(t, "dscp");
	assert_false(fab_parse_trust("", t, sizeof(t)));
	assert_false(fab_parse_trust("vlan", t, sizeof(t)));
	assert_false(fab_parse_trust("dscpx", t, sizeof(t)));
}

/* Builds a netlink message of type `type` with one u8 attribute into buf. */
static size_t nl_msg(unsigned char *buf, unsigned type, int attr, unsigned char val)
{
	struct nlmsghdr h = { .nlmsg_type = (unsigned short)type, .nlmsg_seq = 1 };
	struct nlattr a = { .nla_len = NLA_HDRLEN + 1, .nla_type = (unsigned short)attr };
	size_t len = NLMSG_HDRLEN;
	memset(buf, 0, 64);
	if (attr >= 0) {
		memcpy(buf + len, &a, sizeof(a));
		buf[len + NLA_HDRLEN] = val;
		len += NLA_ALIGN(a.nla_len);
	}
	h.nlmsg_len = (unsigned)len;
	memcpy(buf, &h, sizeof(h));
	return len;
}

static size_t nl_err(unsigned char *buf, int err)
{
	struct nlmsghdr h = { .nlmsg_type = NLMSG_ERROR,
			      .nlmsg_len = NLMSG_LENGTH(sizeof(struct nlmsgerr)) };
	struct nlmsgerr e = { .error = err };
	memset(buf, 0, h.nlmsg_len);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + NLMSG_HDRLEN, &e, sizeof(e));
	return NLMSG_ALIGN(h.nlmsg_len);
}

static void test_rdma_sys(void **state)
{
	unsigned char buf[256];
	char mode[16];
	const unsigned sys = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET);
	(void)state;
	size_t n = nl_msg(buf, sys, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1);
	assert_int_equal(fab_parse_rdma_sys(buf, n, mode, sizeof(mode)), 0);
	assert_string_equal(mode, "shared");
	n = nl_msg(buf, sys, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 0);
	assert_int_equal(fab_parse_rdma_sys(buf, n, mode, sizeof(mode)), 0);
	assert_string_equal(mode, "exclusive");
	/* The reply followed by its ACK, in one read. */
	n = nl_msg(buf, sys, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1);
	n += nl_err(buf + n, 0);
	assert_int_equal(fab_parse_rdma_sys(buf, n, mode, sizeof(mode)), 0);
	assert_string_equal(mode, "shared");
	/* An ACK alone, then the kernel without SYS_GET (before 5.2). */
	n = nl_err(buf, 0);
	assert_int_equal(fab_parse_rdma_sys(buf, n, mode, sizeof(mode)), -ENOENT);
	n = nl_err(buf, -EOPNOTSUPP);
	assert_int_equal(fab_parse_rdma_sys(buf, n, mode, sizeof(mode)), -EOPNOTSUPP);
	/* A reply without the attribute, another attribute, another message type. */
	n = nl_msg(buf, sys, -1, 0);
	assert_int_equal(fab_parse_rdma_sys(buf, n, mode, sizeof(mode)), -ENOENT);
	n = nl_msg(buf, sys, RDMA_NLDEV_SYS_ATTR_NETNS_MODE + 1, 1);
	assert_int_equal(fab_parse_rdma_sys(buf, n, mode, sizeof(mode)), -ENOENT);
	n = nl_msg(buf, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET),
		   RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1);
	assert_int_equal(fab_parse_rdma_sys(buf, n, mode, sizeof(mode)), -ENOENT);
	/* Malformed: a bad value, a length past the buffer, a truncated header. */
	n = nl_msg(buf, sys, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 7);
	assert_int_equal(fab_parse_rdma_sys(buf, n, mode, sizeof(mode)), -EBADMSG);
	n = nl_msg(buf, sys, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1);
	assert_int_equal(fab_parse_rdma_sys(buf, n - 4, mode, sizeof(mode)), -EBADMSG);
	assert_int_equal(fab_parse_rdma_sys(buf, 3, mode, sizeof(mode)), -ENOENT);
	struct nlattr bad = { .nla_len = 200, .nla_type = RDMA_NLDEV_SYS_ATTR_NETNS_MODE };
	memcpy(buf + NLMSG_HDRLEN, &bad, sizeof(bad));
	assert_int_equal(fab_parse_rdma_sys(buf, n, mode, sizeof(mode)), -EBADMSG);
	/* Unaligned input is read byte-wise. */
	unsigned char odd[257];
	n = nl_msg(buf, sys, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 0);
	memcpy(odd + 1, buf, n);
	assert_int_equal(fab_parse_rdma_sys(odd + 1, n, mode, sizeof(mode)), 0);
	assert_string_equal(mode, "exclusive");
	assert_int_equal(fab_parse_rdma_sys(NULL, 0, mode, sizeof(mode)), -EBADMSG);
}

/* The reply a real kernel sent (6.18, Firecracker VM with an H200, no HCA),
 * recorded byte for byte: it carries attributes newer than our header's
 * (93, 96, 103), which must be skipped, not refused. */
static void test_rdma_sys_recorded(void **state)
{
	unsigned char buf[256];
	FILE *f = fopen("tests/fixtures/netlink-kernel/6.18-sys_get.bin", "rb");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(n, 48);
	char mode[16] = "";
	assert_int_equal(fab_parse_rdma_sys(buf, n, mode, sizeof(mode)), 0);
	assert_string_equal(mode, "shared");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_lines),
		cmocka_unit_test(test_rate_width),
		cmocka_unit_test(test_collect_port),
		cmocka_unit_test(test_collect_real_input),
		cmocka_unit_test(test_collect_dangling),
		cmocka_unit_test(test_collect_qos),
		cmocka_unit_test(test_uverbs_replay),
		cmocka_unit_test(test_gids),
		cmocka_unit_test(test_roce_mtu),
		cmocka_unit_test(test_pfc),
		cmocka_unit_test(test_flags_and_trust),
		cmocka_unit_test(test_rdma_sys),
		cmocka_unit_test(test_rdma_sys_recorded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
