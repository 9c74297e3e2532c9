/* hazard.h: the PCI VPD parser on bytes rebuilt from a real `lspci -vv`
 * listing and on cut and hostile bytes, the --exclude-dev list, and
 * hazard_counters() with the snapshot collector over a root laid out as
 * the kernel lays it out (class link -> device under its PCI function,
 * whose vpd file holds the bytes). */
#define _GNU_SOURCE    /* memmem */
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
#include "fab_archive.h"
#include "fabtop/collect.h"
#include "fabtop/hazard.h"
#include "fabtop/model.h"
#include "fabtop/root.h"
#include "fabtop/util.h"

/* --- VPD bytes --------------------------------------------------------- */

struct vpd { unsigned char b[4096]; size_t n; size_t ro_at; };

static void large(struct vpd *v, unsigned char tag, const void *d, size_t n)
{
	v->b[v->n++] = tag;
	v->b[v->n++] = (unsigned char)(n & 0xff);
	v->b[v->n++] = (unsigned char)(n >> 8);
	memcpy(v->b + v->n, d, n);
	v->n += n;
}

static void kw(unsigned char *p, size_t *n, const char *k, const char *val)
{
	size_t l = strlen(val);
	p[(*n)++] = (unsigned char)k[0];
	p[(*n)++] = (unsigned char)k[1];
	p[(*n)++] = (unsigned char)l;
	memcpy(p + *n, val, l);
	*n += l;
}

/*
 * The VPD of a ConnectX-7 as `lspci -vv` prints it in Leon Romanovsky's
 * patch "net/mlx5: Enable unprivileged read of PCI VPD file" (linux-pci /
 * netdev, 2025: "The parsed VPD section looks like this: ... [PN] Part
 * number: MCX713106AEHEA_QP1 ... [VA] Vendor specific:
 * MLX:MN=MLNX:CSKU=V2:UUID=V3:PCI=V0:MODL=CX713106A ... [RV] Reserved:
 * checksum good, 1 byte(s) reserved"), rebuilt as the bytes the PCI spec
 * lays out. va: the [VA] value (with_sw_mng appends ":SMDL=SW_MNG"; no
 * public byte dump of a B200 NVSwitch management function was found, only
 * that its lspci -vv shows SMDL=SW_MNG: https://github.com/siderolabs/extensions/pull/717).
 */
static void cx7_vpd(struct vpd *v, bool with_sw_mng)
{
	static const char name[] = "NVIDIA ConnectX-7 HHHL adapter Card, 200GbE / NDR200 IB, "
		"Dual-port QSFP112, PCIe 5.0 x16 with x16 PCIe extension option, Crypto, "
		"Secure Boot Capable";
	unsigned char ro[1024];
	size_t n = 0;
	memset(v, 0, sizeof(*v));
	large(v, 0x82, name, sizeof(name) - 1);
	kw(ro, &n, "PN", "MCX713106AEHEA_QP1");
	kw(ro, &n, "EC", "A5");
	kw(ro, &n, "V2", "MCX713106AEHEA_QP1");
	kw(ro, &n, "SN", "MT2314XZ0JUZ");
	kw(ro, &n, "V3", "0a5efb8958deed118000946dae7db798");
	kw(ro, &n, "VA", with_sw_mng ? "MLX:MN=MLNX:CSKU=V2:UUID=V3:PCI=V0:MODL=CX713106A:SMDL=SW_MNG"
				     : "MLX:MN=MLNX:CSKU=V2:UUID=V3:PCI=V0:MODL=CX713106A");
	kw(ro, &n, "V0", "PCIeGen5 x16");
	kw(ro, &n, "VU", "MT2314XZ0JUZMLNXS0D0F0");
	/* RV: checksum, then 1 reserved byte: every byte up to it sums to 0. */
	ro[n++] = 'R';
	ro[n++] = 'V';
	ro[n++] = 2;
	size_t ck = n;
	ro[n++] = 0;
	ro[n++] = 0;
	v->ro_at = v->n;
	large(v, 0x90, ro, n);
	unsigned sum = 0;
	for (size_t i = 0; i < v->ro_at + 3 + ck; i++)
		sum += v->b[i];
	v->b[v->ro_at + 3 + ck] = (unsigned char)(0x100 - (sum & 0xff));
	v->b[v->n++] = 0x78;
}

static void test_vpd_real(void **state)
{
	struct vpd v;
	struct hazard_vpd h;
	(void)state;
	cx7_vpd(&v, false);
	assert_int_equal(hazard_vpd_parse(v.b, v.n, &h), 0);
	assert_true(h.ended);
	assert_int_equal(h.nfields, 9);
	assert_false(h.sw_mng);
	assert_string_equal(h.name, "NVIDIA ConnectX-7 HHHL adapter Card, 200GbE / NDR200 IB, "
			    "Dual-port QSFP112, PCIe 5.0 x16 with x16 PCIe extension option, "
			    "Crypto, Secure Boot Capable");
	cx7_vpd(&v, true);
	assert_int_equal(hazard_vpd_parse(v.b, v.n, &h), 0);
	assert_true(h.sw_mng);
	/* The sysfs file is as long as the VPD the kernel sized: padding after
	 * the end tag is not read. */
	memset(v.b + v.n, 0xff, 64);
	assert_int_equal(hazard_vpd_parse(v.b, v.n + 64, &h), 0);
	assert_true(h.sw_mng);
}

/* A token, not a substring: SMDL=SW_MNGX or XSMDL=SW_MNG is not the marker. */
static void test_vpd_token(void **state)
{
	const char *vals[] = { "SMDL=SW_MNG", "MODL=X:SMDL=SW_MNG", "SMDL=SW_MNG:MODL=X",
			       "SMDL=SW_MNGX", "XSMDL=SW_MNG", "SMDL=SW_MN", "smdl=sw_mng" };
	const bool want[] = { true, true, true, false, false, false, false };
	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		unsigned char ro[128];
		size_t n = 0;
		struct vpd v = { .n = 0 };
		struct hazard_vpd h;
		kw(ro, &n, "VA", vals[i]);
		large(&v, 0x90, ro, n);
		v.b[v.n++] = 0x78;
		assert_int_equal(hazard_vpd_parse(v.b, v.n, &h), 0);
		assert_true(h.sw_mng == want[i]);
	}
}

/* Every cut of the real bytes, and hostile lengths: never a read past the
 * buffer (ASan watches a heap copy of exactly that many bytes). */
static void test_vpd_hostile(void **state)
{
	struct vpd v;
	struct hazard_vpd h;
	(void)state;
	cx7_vpd(&v, true);
	const unsigned char *mark = memmem(v.b, v.n, "SMDL=SW_MNG", 11);
	assert_non_null(mark);
	size_t va_end = (size_t)(mark - v.b) + 11;
	for (size_t cut = 0; cut < v.n; cut++) {
		unsigned char *p = malloc(cut ? cut : 1);
		memcpy(p, v.b, cut);
		assert_int_equal(hazard_vpd_parse(p, cut, &h), -1);
		assert_false(h.ended);
		/* A read cut after [VA] still knows what [VA] said; before, it cannot. */
		assert_true(h.sw_mng == (cut >= va_end));
		free(p);
	}
	static const unsigned char all_ones[] = { 0xff, 0xff, 0xff, 0xff };
	assert_int_equal(hazard_vpd_parse(all_ones, sizeof(all_ones), &h), -1);
	static const unsigned char zeros[] = { 0, 0, 0, 0 };
	assert_int_equal(hazard_vpd_parse(zeros, sizeof(zeros), &h), -1);
	/* A resource claiming 65535 bytes. */
	static const unsigned char huge[] = { 0x82, 0xff, 0xff, 'A' };
	assert_int_equal(hazard_vpd_parse(huge, sizeof(huge), &h), -1);
	/* A keyword whose length runs past its resource. */
	static const unsigned char kwlong[] = { 0x90, 0x05, 0x00, 'V', 'A', 0x09, 'S', 'M', 0x78 };
	assert_int_equal(hazard_vpd_parse(kwlong, sizeof(kwlong), &h), -1);
	/* A keyword header cut inside its resource. */
	static const unsigned char kwcut[] = { 0x90, 0x02, 0x00, 'V', 'A', 0x78 };
	assert_int_equal(hazard_vpd_parse(kwcut, sizeof(kwcut), &h), -1);
	/* Non-printable name bytes are shown as '?'. */
	static const unsigned char odd[] = { 0x82, 0x03, 0x00, 'A', 0x1b, 'B', 0x78 };
	assert_int_equal(hazard_vpd_parse(odd, sizeof(odd), &h), 0);
	assert_string_equal(h.name, "A?B");
	assert_int_equal(hazard_vpd_parse(NULL, 0, &h), -1);
	/* Random bytes: only that it returns. */
	unsigned seed = 12345;
	unsigned char rnd[512];
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)(round % 64) + 1;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			rnd[i] = (unsigned char)(seed >> 16);
		}
		if (round % 3 == 0)
			rnd[0] = 0x90;
		unsigned char *p = malloc(n);
		memcpy(p, rnd, n);
		int rc = hazard_vpd_parse(p, n, &h);
		assert_true(rc == 0 || rc == -1);
		free(p);
	}
}

static void test_exclude_list(void **state)
{
	(void)state;
	assert_true(hazard_exclude_valid("mlx5_0"));
	assert_true(hazard_exclude_valid("mlx5_0,mlx5_1,ibp3s0.1"));
	assert_false(hazard_exclude_valid(""));
	assert_false(hazard_exclude_valid("mlx5_0,"));
	assert_false(hazard_exclude_valid(",mlx5_0"));
	assert_false(hazard_exclude_valid("mlx5_0,,mlx5_1"));
	assert_false(hazard_exclude_valid("../x"));
	assert_false(hazard_exclude_valid("mlx5 0"));
	hazard_exclude_set("mlx5_1,mlx5_10");
	assert_true(hazard_excluded("mlx5_1"));
	assert_true(hazard_excluded("mlx5_10"));
	assert_false(hazard_excluded("mlx5_"));
	assert_false(hazard_excluded("mlx5_0"));
	assert_false(hazard_excluded("mlx5_100"));
	hazard_exclude_set(NULL);
	assert_false(hazard_excluded("mlx5_1"));
}

/* --- a root laid out as sysfs is ----------------------------------------- */

static void mkparents(const char *path)
{
	char p[PATH_MAX];
	fab_strlcpy(p, path, sizeof(p));
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
}

static void put_bytes(const char *dir, const char *rel, const void *d, size_t n, mode_t mode)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	mkparents(p);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(d, 1, n, f), n);
	fclose(f);
	chmod(p, mode);
}

static void put(const char *dir, const char *rel, const char *text)
{
	put_bytes(dir, rel, text, strlen(text), 0644);
}

static void link_to(const char *dir, const char *rel, const char *target)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	mkparents(p);
	assert_int_equal(symlink(target, p), 0);
}

#define PCI0 "sys/devices/pci0000:00/0000:00:01.0/0000:05:00.0"
#define PCI1 "sys/devices/pci0000:00/0000:00:01.0/0000:05:00.1"

/* Two IB functions as the kernel shows them; mlx5_0's VPD says
 * SMDL=SW_MNG, mlx5_1's does not (vpd_mode 0: no vpd file at all). */
static void make_node(const char *dir, int vpd1_mode)
{
	struct vpd v;
	const char *pcis[] = { PCI0, PCI1 };
	for (int i = 0; i < 2; i++) {
		char rel[PATH_MAX], tgt[PATH_MAX], dev[16];
		snprintf(dev, sizeof(dev), "mlx5_%d", i);
		snprintf(rel, sizeof(rel), "sys/class/infiniband/%s", dev);
		snprintf(tgt, sizeof(tgt), "../../%s/infiniband/%s", pcis[i] + 4, dev);
		link_to(dir, rel, tgt);
		snprintf(rel, sizeof(rel), "%s/infiniband/%s/device", pcis[i], dev);
		/* The kernel's form: up to the PCI function's parent, then its name. */
		link_to(dir, rel, i ? "../../../0000:05:00.1" : "../../../0000:05:00.0");
		snprintf(rel, sizeof(rel), "%s/vendor", pcis[i]);
		put(dir, rel, "0x15b3\n");
		snprintf(rel, sizeof(rel), "%s/infiniband/%s/ports/1/state", pcis[i], dev);
		put(dir, rel, "4: ACTIVE\n");
		snprintf(rel, sizeof(rel), "%s/infiniband/%s/ports/1/link_layer", pcis[i], dev);
		put(dir, rel, "InfiniBand\n");
		snprintf(rel, sizeof(rel), "%s/infiniband/%s/ports/1/counters/symbol_error", pcis[i], dev);
		put(dir, rel, "7\n");
		snprintf(rel, sizeof(rel), "%s/infiniband/%s/ports/1/counters/link_downed", pcis[i], dev);
		put(dir, rel, "1\n");
	}
	cx7_vpd(&v, true);
	put_bytes(dir, PCI0 "/vpd", v.b, v.n, 0600);
	if (vpd1_mode) {
		cx7_vpd(&v, false);
		put_bytes(dir, PCI1 "/vpd", v.b, v.n, 0600);
	}
}

static bool has_note(const struct fab_model *m, const char *a, const char *b)
{
	for (int i = 0; i < m->nnotes; i++)
		if (strstr(m->notes[i].message, a) && (!b || strstr(m->notes[i].message, b)))
			return true;
	return false;
}

static void test_collect_skips_sw_mng(void **state)
{
	char dir[] = "/tmp/fabtop-test-hazard.XXXXXX", err[256], why[256];
	struct fab_root r;
	struct fab_model m;
	(void)state;
	assert_non_null(mkdtemp(dir));
	make_node(dir, 1);
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	assert_int_equal(hazard_counters(&r, "mlx5_0", why, sizeof(why)), HAZARD_SKIP);
	assert_non_null(strstr(why, "SMDL=SW_MNG"));
	assert_int_equal(hazard_counters(&r, "mlx5_1", why, sizeof(why)), HAZARD_READ);
	assert_string_equal(why, "");
	/* Names that are no device never reach a path. */
	assert_int_equal(hazard_counters(&r, "../x", why, sizeof(why)), HAZARD_READ);
	model_init(&m);
	assert_int_equal(collect_rdma(&r, &m), 0);
	assert_int_equal(m.nnics, 2);
	assert_int_equal(m.nics[0].ports[0].nerrors, 0);      /* never read */
	assert_non_null(strstr(m.nics[0].counters_skipped, "SMDL=SW_MNG"));
	assert_true(has_note(&m, "mlx5_0: counters not read", "SMDL=SW_MNG"));
	assert_int_equal(m.nics[1].ports[0].nerrors, 2);      /* an ordinary HCA is */
	assert_string_equal(m.nics[1].counters_skipped, "");
	/* --exclude-dev skips an HCA whose VPD is fine too. */
	model_free(&m);
	hazard_exclude_set("mlx5_1");
	model_init(&m);
	assert_int_equal(collect_rdma(&r, &m), 0);
	assert_int_equal(m.nics[1].ports[0].nerrors, 0);
	assert_string_equal(m.nics[1].counters_skipped, "named by --exclude-dev");
	hazard_exclude_set(NULL);
	model_free(&m);
	root_close(&r);
	assert_int_equal(fab_rmtree(dir), 0);
}

/* An unreadable VPD (a directory where the file should be: EISDIR, as a
 * root-only file is EACCES for a user) is "not known to be safe": read
 * and said, unless --exclude-dev names the device. */
static void test_unreadable_vpd(void **state)
{
	char dir[] = "/tmp/fabtop-test-hazard.XXXXXX", err[256], why[300], p[PATH_MAX];
	struct fab_root r;
	struct fab_model m;
	(void)state;
	assert_non_null(mkdtemp(dir));
	make_node(dir, 0);
	snprintf(p, sizeof(p), "%s/%s/vpd", dir, PCI1);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	assert_int_equal(hazard_counters(&r, "mlx5_1", why, sizeof(why)), HAZARD_UNKNOWN);
	assert_non_null(strstr(why, "unreadable"));
	assert_non_null(strstr(why, "--exclude-dev mlx5_1"));
	model_init(&m);
	collect_rdma(&r, &m);
	assert_int_equal(m.nics[1].ports[0].nerrors, 2);
	assert_true(has_note(&m, "mlx5_1: its PCI VPD is unreadable", "--exclude-dev mlx5_1"));
	model_free(&m);
	hazard_exclude_set("mlx5_1");
	assert_int_equal(hazard_counters(&r, "mlx5_1", why, sizeof(why)), HAZARD_SKIP);
	assert_non_null(strstr(why, "named by --exclude-dev (its PCI VPD"));
	model_init(&m);
	collect_rdma(&r, &m);
	assert_int_equal(m.nics[1].ports[0].nerrors, 0);
	assert_true(has_note(&m, "mlx5_1: counters not read: named by --exclude-dev", NULL));
	hazard_exclude_set(NULL);
	model_free(&m);
	root_close(&r);
	/* No vpd file at all (a VF, rxe): nothing to fear, nothing said. */
	snprintf(p, sizeof(p), "%s/%s/vpd", dir, PCI0);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	assert_int_equal(hazard_counters(&r, "mlx5_0", why, sizeof(why)), HAZARD_READ);
	root_close(&r);
	assert_int_equal(fab_rmtree(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vpd_real),
		cmocka_unit_test(test_vpd_token),
		cmocka_unit_test(test_vpd_hostile),
		cmocka_unit_test(test_exclude_list),
		cmocka_unit_test(test_collect_skips_sw_mng),
		cmocka_unit_test(test_unreadable_vpd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
