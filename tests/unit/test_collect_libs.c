/*
 * The library-backed collectors (hwloc, libpci, libnl, NVML, CUDA) on the
 * bundled scenarios and fixtures, on broken captures made on the fly, and
 * live on this machine where that cannot depend on its hardware.
 */
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
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>
#include "fab_archive.h"
#include "fabtop/collect.h"
#include "dl.h"
#include "fabtop/model.h"
#include "fabtop/root.h"
#include "fabtop/util.h"

/* The repository top: tests/run.sh exports it and runs from there. */
static const char *top(void)
{
	const char *t = getenv("FABTOP_TOP");
	return t && *t ? t : ".";
}

static void open_root(struct fab_root *r, const char *rel)
{
	char path[PATH_MAX], err[512] = "";
	snprintf(path, sizeof(path), "%s/%s", top(), rel);
	if (root_open(r, path, err, sizeof(err)) != 0)
		fail_msg("cannot open %s: %s", path, err);
}

static void open_live(struct fab_root *r)
{
	char err[512];
	assert_int_equal(root_open(r, "/", err, sizeof(err)), 0);
}

/* A scratch capture directory, removed by the test. */
static void scratch(char *dir, size_t len)
{
	const char *t = getenv("TMPDIR");
	snprintf(dir, len, "%s/fabtop-test.XXXXXX", t && *t ? t : "/tmp");
	assert_non_null(mkdtemp(dir));
	char sub[PATH_MAX];
	snprintf(sub, sizeof(sub), "%s/fabtop", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
}

static void write_file(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* Points dir/sys at a scenario's sys tree, so a broken capture still has
 * the sysfs the fallbacks read. */
/* A copy of a scenario's sys/ (a root never follows a link out of itself). */
static void copy_sys(const char *dir, const char *scenario)
{
	char src[PATH_MAX];
	snprintf(src, sizeof(src), "%s/%s/sys", top(), scenario);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execlp("cp", "cp", "-a", src, dir, (char *)NULL);
		_exit(127);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static bool has_note(const struct fab_model *m, const char *what, const char *needle)
{
	for (int i = 0; i < m->nnotes; i++)
		if ((!what || strcmp(m->notes[i].what, what) == 0) &&
		    strstr(m->notes[i].message, needle))
			return true;
	return false;
}

static int count_notes(const struct fab_model *m, const char *needle)
{
	int n = 0;
	for (int i = 0; i < m->nnotes; i++)
		n += strstr(m->notes[i].message, needle) != NULL;
	return n;
}

/* Adds every PCI function of the root, the way the sysfs collector would. */
static void add_all_pci(const struct fab_root *r, struct fab_model *m)
{
	char **names;
	int n = root_list(r, "/sys/bus/pci/devices", &names);
	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		fab_strlcpy(model_add_pci(m)->bdf, names[i], sizeof(m->pci[0].bdf));
	root_free_list(names, n);
}

/* --- dl.c ---------------------------------------------------------------- */

static void test_dlopen_first(void **state)
{
	(void)state;
	char why[256] = "x";
	const char *loaded = "x";
	static const char *const none[] = { "libfabtop-none.so.1", "libfabtop-none.so.2", NULL };
	assert_null(fab_dlopen_first(none, &loaded, why, sizeof(why)));
	assert_null(loaded);
	assert_int_equal(strncmp(why, "not loaded: ", 12), 0);
	assert_non_null(strstr(why, "libfabtop-none.so.2"));  /* the last error */

	static const char *const libc[] = { "libfabtop-none.so.1", "libc.so.6", NULL };
	void *h = fab_dlopen_first(libc, &loaded, why, sizeof(why));
	assert_non_null(h);
	assert_string_equal(loaded, "libc.so.6");
	assert_string_equal(why, "");
}

/* --- hwloc.c ------------------------------------------------------------- */

static void test_numa_from_xml(void **state)
{
	(void)state;
	struct fab_root r;
	struct fab_model m;
	open_root(&r, "build/scenarios/dgx-h100");
	model_init(&m);
	assert_int_equal(collect_numa(&r, &m), 0);
	assert_int_equal(m.nnuma, 2);
	assert_int_equal(m.numa[0].id, 0);
	assert_string_equal(m.numa[0].cpulist, "0-55,112-167");
	assert_int_equal(m.numa[1].id, 1);
	assert_string_equal(m.numa[1].cpulist, "56-111,168-223");
	assert_int_equal(m.numa[0].ndist, 2);
	assert_int_equal(m.numa[0].dist[0], 10);
	assert_int_equal(m.numa[0].dist[1], 21);
	assert_int_equal(m.numa[1].dist[0], 21);
	assert_int_equal(m.numa[1].dist[1], 10);
	assert_int_equal(m.nnotes, 0);
	model_free(&m);
	root_close(&r);

	/* The PCIe scenario's matrix differs: it really comes from the XML. */
	open_root(&r, "build/scenarios/pcie-2numa");
	model_init(&m);
	assert_int_equal(collect_numa(&r, &m), 0);
	assert_int_equal(m.nnuma, 2);
	assert_string_equal(m.numa[0].cpulist, "0-31");
	assert_string_equal(m.numa[1].cpulist, "32-63");
	assert_int_equal(m.numa[0].dist[1], 32);
	model_free(&m);
	root_close(&r);
}

static void test_numa_fsroot(void **state)
{
	(void)state;
	struct fab_root r;
	struct fab_model m;
	const char *before = getenv("HWLOC_FSROOT");
	open_root(&r, "build/fixtures/topo-mini");  /* no hwloc.xml: HWLOC_FSROOT */
	model_init(&m);
	assert_int_equal(collect_numa(&r, &m), 0);
	assert_int_equal(m.nnuma, 2);
	assert_string_equal(m.numa[0].cpulist, "0-3");
	assert_string_equal(m.numa[1].cpulist, "4-7");
	assert_int_equal(m.numa[1].ndist, 2);
	assert_int_equal(m.numa[1].dist[0], 21);
	/* The environment is put back. */
	if (before)
		assert_string_equal(getenv("HWLOC_FSROOT"), before);
	else
		assert_null(getenv("HWLOC_FSROOT"));
	model_free(&m);
	root_close(&r);
}

static void test_numa_garbage_xml(void **state)
{
	(void)state;
	char dir[PATH_MAX], err[512];
	struct fab_root r;
	struct fab_model m;
	scratch(dir, sizeof(dir));
	write_file(dir, "fabtop/hwloc.xml", "this is not XML\n");
	copy_sys(dir, "build/scenarios/pcie-2numa");
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	model_init(&m);
	assert_int_equal(collect_numa(&r, &m), 0);
	/* The note names the file; the sysfs fallback still finds both nodes. */
	assert_true(has_note(&m, "hwloc", "fabtop/hwloc.xml"));
	assert_true(has_note(&m, "hwloc", "/sys/devices/system/node"));
	assert_int_equal(m.nnuma, 2);
	assert_string_equal(m.numa[0].cpulist, "0-31");
	assert_string_equal(m.numa[1].cpulist, "32-63");
	assert_int_equal(m.numa[0].ndist, 2);
	assert_int_equal(m.numa[0].dist[1], 32);
	model_free(&m);
	root_close(&r);
	fab_rmtree(dir);
}

static void test_numa_live(void **state)
{
	(void)state;
	struct fab_root r;
	struct fab_model m;
	open_live(&r);
	model_init(&m);
	assert_int_equal(collect_numa(&r, &m), 0);
	assert_true(m.nnuma >= 1);
	assert_true(m.numa[0].cpulist[0] != '\0');
	model_free(&m);
	root_close(&r);
}

/* What `fabtop capture` writes reads back as the same NUMA layout. */
static void test_hwloc_export_roundtrip(void **state)
{
	(void)state;
	char dir[PATH_MAX], path[PATH_MAX], err[512] = "";
	struct fab_root r;
	struct fab_model live, replay;
	scratch(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/fabtop/hwloc.xml", dir);
	char *xml = NULL;
	size_t len = 0;
	if (collect_hwloc_xml(&xml, &len, err, sizeof(err)) != 0)
		fail_msg("collect_hwloc_xml: %s", err);
	assert_true(len > 0 && xml[len] == '\0' && strstr(xml, "<topology"));
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(xml, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	free(xml);

	open_live(&r);
	model_init(&live);
	assert_int_equal(collect_numa(&r, &live), 0);
	root_close(&r);
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	model_init(&replay);
	assert_int_equal(collect_numa(&r, &replay), 0);
	assert_int_equal(replay.nnotes, 0);
	assert_int_equal(replay.nnuma, live.nnuma);
	for (int i = 0; i < live.nnuma; i++) {
		assert_int_equal(replay.numa[i].id, live.numa[i].id);
		assert_string_equal(replay.numa[i].cpulist, live.numa[i].cpulist);
	}
	model_free(&live);
	model_free(&replay);
	root_close(&r);

	fab_rmtree(dir);
}

/* --- pci_lib.c ----------------------------------------------------------- */

/* mlx5_0's PCI function, from the class link as the rdma collector finds it. */
static void mlx5_0_bdf(const struct fab_root *r, char *bdf, size_t len)
{
	char p[PATH_MAX];
	assert_int_equal(root_realpath(r, "/sys/class/infiniband/mlx5_0", p, sizeof(p)), 0);
	char *ib = strstr(p, "/infiniband/");
	assert_non_null(ib);
	*ib = '\0';
	fab_strlcpy(bdf, strrchr(p, '/') + 1, len);
}

static void test_pci_lib_degraded_link(void **state)
{
	(void)state;
	struct fab_root r;
	struct fab_model m;
	char bdf[32];
	open_root(&r, "build/scenarios/pcie-2numa");
	mlx5_0_bdf(&r, bdf, sizeof(bdf));
	model_init(&m);
	add_all_pci(&r, &m);
	assert_int_equal(collect_pci_lib(&r, &m), 0);

	int i = model_find_pci(&m, bdf);
	assert_int_not_equal(i, FAB_NO_INDEX);
	const struct fab_pci_dev *p = &m.pci[i];
	assert_true(p->config_full);
	assert_int_equal(p->pcie_type, PCIE_TYPE_ENDPOINT);
	assert_string_equal(p->name, "");   /* only GPUs are named (no NVML here) */
	assert_true(p->link.cur_width.ok);
	assert_int_equal(p->link.cur_width.v, 8);      /* LnkSta */
	assert_true(p->link.max_width.ok);
	assert_int_equal(p->link.max_width.v, 16);     /* LnkCap */
	assert_true(p->link.cur_speed.ok && p->link.max_speed.ok);
	assert_true(p->link.cur_speed.v > 15.9 && p->link.cur_speed.v < 16.1);

	/* Switch ports: typed, and the downstream ones carry ACS. */
	int up = 0, down_acs = 0;
	for (int k = 0; k < m.npci; k++) {
		up += m.pci[k].pcie_type == PCIE_TYPE_UPSTREAM;
		down_acs += m.pci[k].pcie_type == PCIE_TYPE_DOWNSTREAM && m.pci[k].acs_ctrl.ok;
		/* Names wait for NVML's answer: collect_gpus gives them. */
		assert_string_equal(m.pci[k].name, "");
	}
	assert_true(up >= 1);
	assert_true(down_acs >= 1);
	model_free(&m);

	/* pci.ids names only the GPUs NVML did not name: here, all four. */
	model_init(&m);
	assert_int_equal(collect_nvml(&r, &m), 0);      /* no nvml.json: none named */
	assert_int_equal(collect_pci_sysfs(&r, &m), 0);
	assert_int_equal(collect_gpus(&r, &m), 0);
	assert_int_equal(m.ngpus, 4);
	for (int k = 0; k < m.npci; k++) {
		bool gpu = strstr("0000:03:00.0 0000:21:00.0 0000:41:00.0 0000:83:00.0",
				  m.pci[k].bdf) != NULL;
		if (gpu)
			assert_non_null(strstr(m.pci[k].name, "NVIDIA"));
		else
			assert_string_equal(m.pci[k].name, "");
	}
	model_free(&m);

	/* sysfs current_link_width wins over LnkSta. */
	model_init(&m);
	add_all_pci(&r, &m);
	i = model_find_pci(&m, bdf);
	m.pci[i].link.cur_width = fab_int_of(4);
	assert_int_equal(collect_pci_lib(&r, &m), 0);
	assert_int_equal(m.pci[i].link.cur_width.v, 4);
	assert_int_equal(m.pci[i].link.max_width.v, 16);
	model_free(&m);
	root_close(&r);
}

static void test_pci_lib_64_byte_config(void **state)
{
	(void)state;
	struct fab_root r;
	struct fab_model m;
	open_root(&r, "build/fixtures/topo-mini");
	model_init(&m);
	add_all_pci(&r, &m);
	fab_strlcpy(model_add_pci(&m)->bdf, "0000:ee:00.0", sizeof(m.pci[0].bdf));  /* unseen */
	assert_int_equal(collect_pci_lib(&r, &m), 0);
	for (int k = 0; k < m.npci; k++) {
		assert_false(m.pci[k].config_full);     /* what a non-root user sees */
		assert_int_equal(m.pci[k].pcie_type, PCIE_TYPE_UNKNOWN);
		assert_false(m.pci[k].link.max_width.ok);
		assert_false(m.pci[k].acs_ctrl.ok);
	}
	model_free(&m);
	/* Names need no config space: collect_gpus names the GPU from pci.ids. */
	model_init(&m);
	assert_int_equal(collect_nvml(&r, &m), 0);
	assert_int_equal(collect_pci_sysfs(&r, &m), 0);
	assert_int_equal(collect_gpus(&r, &m), 0);
	int gpu = model_find_pci(&m, "0000:03:00.0");
	assert_int_not_equal(gpu, FAB_NO_INDEX);
	assert_non_null(strstr(m.pci[gpu].name, "NVIDIA"));
	model_free(&m);
	root_close(&r);
}

static void test_pci_lib_no_sysfs(void **state)
{
	(void)state;
	char dir[PATH_MAX], err[512];
	struct fab_root r;
	struct fab_model m;
	scratch(dir, sizeof(dir));
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	model_init(&m);
	fab_strlcpy(model_add_pci(&m)->bdf, "0000:04:00.0", sizeof(m.pci[0].bdf));
	/* libpci's error handler would exit(1); ours returns here. */
	assert_int_equal(collect_pci_lib(&r, &m), -1);
	assert_true(has_note(&m, "libpci", "/sys/bus/pci"));
	assert_false(m.pci[0].config_full);
	model_free(&m);
	root_close(&r);
	fab_rmtree(dir);
}

/* --- nvml.c -------------------------------------------------------------- */

static void test_nvml_from_capture(void **state)
{
	(void)state;
	struct fab_root r;
	struct fab_model m;
	char name[64];
	int idx = -5;
	long long numa = 5;
	open_root(&r, "build/scenarios/dgx-h100");
	model_init(&m);
	assert_int_equal(collect_nvml(&r, &m), 0);
	assert_int_equal(m.gpu_source, GPU_SRC_NVML);
	assert_int_equal(strncmp(m.nvml_status, "NVML 12.550.90.07, driver 550.90.07, 8 GPU(s)", 45), 0);
	/* Case and domain width do not matter. */
	assert_int_equal(nvml_lookup("0000:1B:00.0", name, sizeof(name), &idx, &numa), 0);
	assert_string_equal(name, "NVIDIA H100 80GB HBM3");
	assert_int_equal(idx, 0);
	assert_int_equal(numa, -1);
	assert_int_equal(nvml_nvlinks("0000:1b:00.0", "0000:43:00.0"), 18);   /* NV18 */
	assert_int_equal(nvml_nvlinks("00000000:43:00.0", "0000:1b:00.0"), 18);
	assert_int_equal(nvml_lookup("0000:04:00.0", name, sizeof(name), &idx, &numa), -1);
	assert_int_equal(nvml_nvlinks("0000:1b:00.0", "0000:04:00.0"), -1);
	model_free(&m);
	root_close(&r);

	/* The next root starts from an empty table: NVLink is unknown there. */
	open_root(&r, "build/scenarios/pcie-2numa");
	model_init(&m);
	assert_int_equal(collect_nvml(&r, &m), 0);
	assert_int_equal(m.gpu_source, GPU_SRC_PCI);
	/* meta.json's line, word for word, as the node said it. */
	assert_string_equal(m.nvml_status,
			    "not loaded: libnvidia-ml.so.1: cannot open shared object file");
	assert_int_equal(nvml_nvlinks("0000:1b:00.0", "0000:43:00.0"), -1);
	assert_int_equal(nvml_nvlinks("0000:03:00.0", "0000:21:00.0"), -1);
	assert_int_equal(nvml_lookup("0000:1b:00.0", NULL, 0, NULL, NULL), -1);
	model_free(&m);
	root_close(&r);
}

static void test_nvml_malformed(void **state)
{
	(void)state;
	char dir[PATH_MAX], err[512];
	struct fab_root r;
	struct fab_model m;
	scratch(dir, sizeof(dir));
	write_file(dir, "fabtop/nvml.json", "{ \"gpus\": [ { \"index\": 0,, } ] }\n");
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	model_init(&m);
	assert_int_equal(collect_nvml(&r, &m), -1);
	assert_true(has_note(&m, "nvml", "nvml.json"));
	assert_int_equal(m.gpu_source, GPU_SRC_PCI);
	assert_int_equal(nvml_nvlinks("0000:1b:00.0", "0000:43:00.0"), -1);
	model_free(&m);
	root_close(&r);
	fab_rmtree(dir);
}

static void test_nvml_live(void **state)
{
	(void)state;
	struct fab_root r;
	struct fab_model m;
	open_live(&r);
	model_init(&m);
	assert_int_equal(collect_nvml(&r, &m), 0);
	assert_true(m.nvml_status[0] != '\0');
	if (m.gpu_source != GPU_SRC_NVML) {
		assert_true(strncmp(m.nvml_status, "not loaded: ", 12) == 0 ||
			    strncmp(m.nvml_status, "nvmlInit failed: ", 17) == 0);
		char e[256] = "";
		assert_null(nvml_snapshot_json(e, sizeof(e)));
		assert_true(e[0] != '\0');
	}
	model_free(&m);
	root_close(&r);
}

/* --- netlink.c ----------------------------------------------------------- */

static void test_netlink_from_capture(void **state)
{
	(void)state;
	struct fab_root r;
	struct fab_model m;
	open_root(&r, "build/scenarios/pcie-2numa");
	model_init(&m);
	struct fab_netdev *nd = model_add_netdev(&m);   /* as sysfs_net left it */
	fab_strlcpy(nd->name, "ens1f0np0", sizeof(nd->name));
	nd->pci = 0;
	nd->mtu = fab_int_of(1500);
	assert_int_equal(collect_netlink(&r, &m), 0);
	int i = model_find_netdev(&m, "ens1f0np0");
	assert_int_equal(i, 0);
	assert_int_equal(m.netdevs[i].pci, 0);
	assert_int_equal(m.netdevs[i].mtu.v, 1500);       /* sysfs value kept */
	assert_true(m.netdevs[i].ifindex.ok);
	assert_int_equal(m.netdevs[i].ifindex.v, 2);
	assert_string_equal(m.netdevs[i].operstate, "up");
	assert_true(m.netdevs[i].naddrs >= 1);
	assert_string_equal(m.netdevs[i].addrs[0], "10.0.1.7/24");
	i = model_find_netdev(&m, "lo");                  /* a virtual link, added */
	assert_int_not_equal(i, FAB_NO_INDEX);
	assert_int_equal(m.netdevs[i].pci, FAB_NO_INDEX);
	assert_int_equal(m.netdevs[i].mtu.v, 65536);
	assert_string_equal(m.netdevs[i].addrs[1], "::1/128");
	assert_int_equal(count_notes(&m, "RDMA netlink"), 0);   /* available there */
	model_free(&m);
	root_close(&r);
}

static void test_netlink_malformed(void **state)
{
	(void)state;
	char dir[PATH_MAX], err[512];
	struct fab_root r;
	struct fab_model m;
	scratch(dir, sizeof(dir));
	write_file(dir, "fabtop/netlink.json", "{ \"links\": [ { \"name\": \"eth0\",\n \"mtu\": 9000,, } ] }\n");
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	model_init(&m);
	fab_strlcpy(model_add_netdev(&m)->name, "eth0", sizeof(m.netdevs[0].name));
	assert_int_equal(collect_netlink(&r, &m), -1);
	assert_true(has_note(&m, "netlink", "fabtop/netlink.json"));
	assert_true(has_note(&m, "netlink", "line 2"));
	assert_int_equal(m.nnetdevs, 1);
	assert_false(m.netdevs[0].mtu.ok);
	model_free(&m);

	/* Valid JSON of the wrong shape: a note, no crash. */
	write_file(dir, "fabtop/netlink.json", "{ \"links\": 7, \"rdma_netlink\": [] }\n");
	model_init(&m);
	assert_int_equal(collect_netlink(&r, &m), 0);
	assert_true(has_note(&m, "netlink", "\"links\""));
	model_free(&m);

	/* RDMA netlink missing on the node: one note, however often we reload. */
	write_file(dir, "fabtop/netlink.json", "{ \"links\": [], \"rdma_netlink\": "
		   "{ \"available\": false, \"error\": \"Protocol mismatch\" } }\n");
	model_init(&m);
	assert_int_equal(collect_netlink(&r, &m), 0);
	assert_int_equal(collect_netlink(&r, &m), 0);
	assert_int_equal(count_notes(&m, "RDMA netlink: not available in this kernel (Protocol mismatch)"), 1);
	model_free(&m);
	root_close(&r);

	/* No snapshot at all. */
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/fabtop/netlink.json", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	model_init(&m);
	assert_int_equal(collect_netlink(&r, &m), 0);
	assert_true(has_note(&m, "netlink", "no netlink snapshot in this capture"));
	model_free(&m);
	root_close(&r);
	fab_rmtree(dir);
}

static void test_netlink_live(void **state)
{
	(void)state;
	struct fab_root r;
	struct fab_model m;
	open_live(&r);
	model_init(&m);
	assert_int_equal(collect_netlink(&r, &m), 0);
	assert_int_equal(collect_netlink(&r, &m), 0);
	int i = model_find_netdev(&m, "lo");
	assert_int_not_equal(i, FAB_NO_INDEX);
	assert_true(m.netdevs[i].ifindex.ok && m.netdevs[i].mtu.ok);
	assert_true(count_notes(&m, "RDMA netlink:") <= 1);
	model_free(&m);
	root_close(&r);

	/* The capture writer's document has the documented shape. */
	char err[256] = "";
	json_t *doc = netlink_snapshot_json(err, sizeof(err));
	if (!doc)
		fail_msg("netlink_snapshot_json: %s", err);
	json_t *links = json_object_get(doc, "links");
	assert_true(json_is_array(links) && json_array_size(links) >= 1);
	json_t *l0 = json_array_get(links, 0);
	assert_true(json_is_integer(json_object_get(l0, "ifindex")));
	assert_true(json_is_string(json_object_get(l0, "name")));
	assert_true(json_is_integer(json_object_get(l0, "mtu")));
	assert_true(json_is_string(json_object_get(l0, "operstate")));
	assert_true(json_is_array(json_object_get(l0, "flags")));
	assert_true(json_is_array(json_object_get(l0, "addrs")));
	assert_true(json_is_array(json_object_get(doc, "routes")));
	json_t *rn = json_object_get(doc, "rdma_netlink");
	assert_true(json_is_boolean(json_object_get(rn, "available")));
	json_decref(doc);
}

/* --- cuda.c -------------------------------------------------------------- */

static void test_cuda_live(void **state)
{
	(void)state;
	struct fab_root r;
	struct fab_model m;
	open_live(&r);
	model_init(&m);
	assert_int_equal(collect_cuda(&r, &m), 0);
	assert_int_equal(collect_cuda(&r, &m), 0);   /* the TUI reloads */
	assert_true(m.cuda_status[0] != '\0');
	assert_true(m.nccl_status[0] != '\0');
	assert_true(strncmp(m.cuda_status, "CUDA runtime ", 13) == 0 ||
		    strncmp(m.cuda_status, "not installed", 13) == 0 ||
		    strncmp(m.cuda_status, "not loaded: ", 12) == 0);
	assert_true(strncmp(m.nccl_status, "NCCL ", 5) == 0 ||
		    strncmp(m.nccl_status, "not installed", 13) == 0 ||
		    strncmp(m.nccl_status, "not loaded: ", 12) == 0);
	print_message("cuda: %s\nnccl: %s\n", m.cuda_status, m.nccl_status);
	model_free(&m);
	root_close(&r);
}

static void test_cuda_from_capture(void **state)
{
	(void)state;
	struct fab_root r;
	struct fab_model m;
	open_root(&r, "build/scenarios/dgx-h100");
	model_init(&m);
	assert_int_equal(collect_cuda(&r, &m), 0);
	assert_string_equal(m.cuda_status, "loaded libcuda.so.1");
	assert_non_null(strstr(m.nccl_status, "libnccl.so.2"));
	model_free(&m);
	root_close(&r);

	char dir[PATH_MAX], err[512];
	scratch(dir, sizeof(dir));
	write_file(dir, "fabtop/meta.json", "{ \"format\": 1 }\n");
	assert_int_equal(root_open(&r, dir, err, sizeof(err)), 0);
	model_init(&m);
	assert_int_equal(collect_cuda(&r, &m), 0);
	assert_string_equal(m.cuda_status, "not recorded in this capture");
	assert_string_equal(m.nccl_status, "not recorded in this capture");
	model_free(&m);
	root_close(&r);
	fab_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dlopen_first),
		cmocka_unit_test(test_numa_from_xml),
		cmocka_unit_test(test_numa_fsroot),
		cmocka_unit_test(test_numa_garbage_xml),
		cmocka_unit_test(test_numa_live),
		cmocka_unit_test(test_hwloc_export_roundtrip),
		cmocka_unit_test(test_pci_lib_degraded_link),
		cmocka_unit_test(test_pci_lib_64_byte_config),
		cmocka_unit_test(test_pci_lib_no_sysfs),
		cmocka_unit_test(test_nvml_from_capture),
		cmocka_unit_test(test_nvml_malformed),
		cmocka_unit_test(test_nvml_live),
		cmocka_unit_test(test_netlink_from_capture),
		cmocka_unit_test(test_netlink_malformed),
		cmocka_unit_test(test_netlink_live),
		cmocka_unit_test(test_cuda_live),
		cmocka_unit_test(test_cuda_from_capture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
