/*
 * gdr.h: NCCL's path type per GPU-NIC pair, its GPUDirect RDMA decision
 * and the NIC it uses for a GPU, on the bundled scenarios read through the
 * real collectors (dgx-h100: peermem loaded, identity IOMMU, CUDA's
 * answers in fabtop/cuda.json; pcie-2numa: DMA-FQ IOMMU, no CUDA), with
 * one input changed per case.
 *
 * Public real outputs the cases follow:
 *  - https://github.com/NVIDIA/nccl/issues/1737: `nvidia-smi topo -m` of an
 *    8 x H100 node, GPU0 PIX to NIC0 and NODE/SYS to the rest, GPU NUMA ID
 *    N/A (x86): the PIX/PXB rows are GDR pairs, NODE and SYS are not at the
 *    default level.
 *  - https://github.com/NVIDIA/nccl/issues/1537: NCCL_NET_GDR_LEVEL=SYS and
 *    "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'": the level does
 *    not matter when the HCA has neither a module NCCL finds nor DMA-BUF.
 *  - https://github.com/NVIDIA/nccl/issues/1939: nvidia_peermem in lsmod
 *    but NCCL says Disabled: what counts is the version file NCCL tests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "fabtop/collect.h"
#include "fabtop/gdr.h"
#include "fabtop/topo.h"
#include "job.h"

struct fx {
	struct fab_root root;
	struct fab_model m;
	struct fab_topo t;
};

static int open_fx(void **state, const char *dir)
{
	static struct fx f;
	char err[512];
	memset(&f, 0, sizeof(f));
	if (root_open(&f.root, dir, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	model_init(&f.m);
	collect_all(&f.root, &f.m);
	model_derive(&f.m);
	if (topo_build(&f.m, &f.t) != 0)
		return -1;
	*state = &f;
	return 0;
}

static int setup_dgx(void **state) { return open_fx(state, "build/scenarios/dgx-h100"); }
static int setup_2numa(void **state) { return open_fx(state, "build/scenarios/pcie-2numa"); }

static int teardown(void **state)
{
	struct fx *f = *state;
	topo_free(&f->t);
	model_free(&f->m);
	root_close(&f->root);
	return 0;
}

static int nic(const struct fab_model *m, const char *name)
{
	int n = model_find_nic(m, name);
	if (n < 0)
		fail_msg("no HCA %s", name);
	return n;
}

static struct fab_gdr judge(const struct fab_model *m, int g, const char *hca,
			    const struct fab_gdr_env *env)
{
	struct fab_gdr o;
	assert_int_equal(gdr_judge(m, g, nic(m, hca), env, &o), 0);
	return o;
}

/* ---- path types ---- */

static void test_path_words(void **state)
{
	(void)state;
	static const char *const want[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C",
		"PXN", "PHB", "SYS", "NET", "DIS" };
	for (int i = 0; i <= NCCL_PATH_DIS; i++)
		assert_string_equal(nccl_path_word((enum fab_nccl_path)i), want[i]);
	assert_string_equal(nccl_path_word(NCCL_PATH_UNKNOWN), "N/A");
}

static void test_path_x86(void **state)
{
	struct fx *f = *state;
	const struct fab_model *m = &f->m;
	assert_int_equal(gdr_path(m, 0, nic(m, "mlx5_0")), NCCL_PATH_PXB);  /* nvidia-smi PXB */
	assert_int_equal(gdr_path(m, 0, nic(m, "mlx5_3")), NCCL_PATH_PHB);  /* NODE is PHB for NCCL */
	assert_int_equal(gdr_path(m, 0, nic(m, "mlx5_6")), NCCL_PATH_SYS);
	assert_int_equal(gdr_path(m, 0, -1), NCCL_PATH_UNKNOWN);
	assert_int_equal(gdr_path(m, m->ngpus, 0), NCCL_PATH_UNKNOWN);
}

static void test_path_pix_phb(void **state)
{
	struct fx *f = *state;
	const struct fab_model *m = &f->m;
	assert_int_equal(gdr_path(m, 0, nic(m, "mlx5_0")), NCCL_PATH_PIX);  /* one switch */
	assert_int_equal(gdr_path(m, 1, nic(m, "mlx5_0")), NCCL_PATH_PHB);  /* NODE */
	assert_int_equal(gdr_path(m, 3, nic(m, "mlx5_0")), NCCL_PATH_SYS);
}

/* Grace: a GPU with a GPU NUMA ID is on C2C; a NIC on its CPU is P2C, a
 * NIC under its own switch stays PIX/PXB, the other socket stays SYS. */
static void test_path_c2c(void **state)
{
	struct fx *f = *state;
	struct fab_model *m = &f->m;
	fab_int saved = m->gpus[0].numa_id;
	m->gpus[0].numa_id = fab_int_of(2);
	assert_int_equal(gdr_path(m, 0, nic(m, "mlx5_0")), NCCL_PATH_PXB);
	assert_int_equal(gdr_path(m, 0, nic(m, "mlx5_3")), NCCL_PATH_P2C);
	assert_int_equal(gdr_path(m, 0, nic(m, "mlx5_6")), NCCL_PATH_SYS);
	/* P2C is within the default level (NCCL 2.27+), not within PXB. */
	struct fab_gdr o = judge(m, 0, "mlx5_3", NULL);
	assert_int_equal(o.v.v, FAB_YES);
	assert_int_equal(o.level, NCCL_PATH_P2C);
	struct fab_gdr_env off = { .net_gdr_c2c = "0" };
	o = judge(m, 0, "mlx5_3", &off);
	assert_int_equal(o.reason, GDR_FAR);
	assert_int_equal(o.level, NCCL_PATH_PXB);
	m->gpus[0].numa_id = saved;
}

/* ---- NCCL_NET_GDR_LEVEL as ncclGetLevel reads it ---- */

static void test_level_parse(void **state)
{
	(void)state;
	enum fab_nccl_path l;
	static const struct { const char *s; enum fab_nccl_path want; } ok[] = {
		{ "LOC", NCCL_PATH_LOC }, { "PIX", NCCL_PATH_PIX }, { "PXB", NCCL_PATH_PXB },
		{ "PHB", NCCL_PATH_PHB }, { "SYS", NCCL_PATH_SYS }, { "C2C", NCCL_PATH_C2C },
		{ "P2C", NCCL_PATH_P2C }, { "PXN", NCCL_PATH_PXN }, { "NVL", NCCL_PATH_NVL },
		/* old numbers: levelsOldToNew, capped at 5 */
		{ "0", NCCL_PATH_LOC }, { "1", NCCL_PATH_PIX }, { "2", NCCL_PATH_PXB },
		{ "3", NCCL_PATH_PHB }, { "4", NCCL_PATH_SYS }, { "5", NCCL_PATH_SYS },
		{ "99", NCCL_PATH_SYS }, { "0x2", NCCL_PATH_PXB }, { "2abc", NCCL_PATH_PXB },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(gdr_level_parse(ok[i].s, &l), 0);
		assert_int_equal(l, ok[i].want);
	}
	/* Not understood: NCCL keeps its default. NODE is nvidia-smi's word, not NCCL's. */
	static const char *const bad[] = { "NODE", "pxb", "-1", "", "NET", "DIS", " PXB" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(gdr_level_parse(bad[i], &l), -1);
	assert_int_equal(gdr_level_parse(NULL, &l), -1);
}

static void test_param_int(void **state)
{
	(void)state;
	assert_int_equal(nccl_param_int(NULL, 1), 1);
	assert_int_equal(nccl_param_int("", 1), 1);
	assert_int_equal(nccl_param_int("0", 1), 0);
	assert_int_equal(nccl_param_int("0x10", 1), 16);
	assert_int_equal(nccl_param_int("abc", 1), 0);   /* strtoll: no digits, no errno */
	assert_int_equal(nccl_param_int("99999999999999999999", 1), 1);  /* ERANGE */
}

/* ---- the decision ---- */

static void test_gdr_on_and_far(void **state)
{
	struct fx *f = *state;
	const struct fab_model *m = &f->m;
	assert_int_equal(m->peermem.v, FAB_YES);
	struct fab_gdr o = judge(m, 0, "mlx5_0", NULL);
	assert_int_equal(o.v.v, FAB_YES);
	assert_int_equal(o.reason, GDR_ON);
	assert_int_equal(o.nccl, FAB_YES);
	assert_int_equal(o.nic, FAB_YES);
	assert_string_equal(o.v.why, "PXB within P2C (NCCL's default), nvidia_peermem");
	o = judge(m, 0, "mlx5_3", NULL);
	assert_int_equal(o.v.v, FAB_NO);
	assert_int_equal(o.reason, GDR_FAR);
	assert_string_equal(o.v.why, "path PHB is farther than P2C (NCCL's default)");
	struct fab_gdr_env sys = { .net_gdr_level = "SYS" };
	o = judge(m, 0, "mlx5_6", &sys);
	assert_int_equal(o.v.v, FAB_YES);
	struct fab_gdr_env pix = { .net_gdr_level = "1" };
	o = judge(m, 0, "mlx5_0", &pix);
	assert_int_equal(o.reason, GDR_FAR);
	assert_string_equal(o.v.why, "path PXB is farther than PIX (NCCL_NET_GDR_LEVEL=1)");
	struct fab_gdr_env node = { .net_gdr_level = "NODE" };   /* ignored: the default */
	o = judge(m, 0, "mlx5_3", &node);
	assert_int_equal(o.reason, GDR_FAR);
	assert_int_equal(o.level, NCCL_PATH_P2C);
}

/* nccl#1537: NCCL_NET_GDR_LEVEL=SYS, and still "Disabled for HCA". */
static void test_no_module_no_dmabuf(void **state)
{
	struct fx *f = *state;
	struct fab_model *m = &f->m;
	struct fab_judged saved = m->peermem;
	m->peermem = (struct fab_judged){ FAB_NO, "no peer-memory module" };
	struct fab_gdr_env env = { .net_gdr_level = "SYS", .dmabuf_enable = "0" };
	struct fab_gdr o = judge(m, 0, "mlx5_0", &env);
	assert_int_equal(o.v.v, FAB_NO);
	assert_int_equal(o.reason, GDR_NO_SUPPORT);
	assert_int_equal(o.nic, FAB_NO);
	assert_non_null(strstr(o.v.why, "NCCL_DMABUF_ENABLE=0"));
	/* DMA-BUF carries it without a module: kernel 5.15 and the GPU's attribute. */
	o = judge(m, 0, "mlx5_0", NULL);
	assert_int_equal(o.v.v, FAB_YES);
	assert_non_null(strstr(o.v.why, "DMA-BUF"));
	/* A kernel before 5.12 has no RDMA DMA-BUF. */
	char kernel[FAB_NAME_LEN];
	memcpy(kernel, m->kernel, sizeof(kernel));
	snprintf(m->kernel, sizeof(m->kernel), "5.4.0-150-generic");
	o = judge(m, 0, "mlx5_0", NULL);
	assert_int_equal(o.reason, GDR_NO_SUPPORT);
	/* The GPU without DMA-BUF. */
	memcpy(m->kernel, kernel, sizeof(kernel));
	m->gpus[0].cu_dmabuf = FAB_NO;
	o = judge(m, 0, "mlx5_0", NULL);
	assert_int_equal(o.reason, GDR_NO_SUPPORT);
	/* Unknown DMA-BUF and no module: unknown, not no. */
	m->gpus[0].cu_dmabuf = FAB_UNKNOWN;
	o = judge(m, 0, "mlx5_0", NULL);
	assert_int_equal(o.v.v, FAB_UNKNOWN);
	assert_int_equal(o.reason, GDR_UNKNOWN_SUPPORT);
	/* ... but a path past the level decides without it. */
	o = judge(m, 0, "mlx5_6", NULL);
	assert_int_equal(o.reason, GDR_FAR);
	/* A module NCCL may find, unknown (an older capture), and DMA-BUF unknown. */
	m->peermem = (struct fab_judged){ FAB_UNKNOWN, "this capture did not look" };
	o = judge(m, 0, "mlx5_0", NULL);
	assert_int_equal(o.reason, GDR_UNKNOWN_SUPPORT);
	m->gpus[0].cu_dmabuf = FAB_YES;
	m->peermem = saved;
}

static void test_gpu_support(void **state)
{
	struct fx *f = *state;
	struct fab_model *m = &f->m;
	m->gpus[1].cu_gdr = FAB_NO;   /* a GeForce: cudaDevAttrGPUDirectRDMASupported 0 */
	struct fab_gdr o = judge(m, 1, "mlx5_3", NULL);
	assert_int_equal(o.reason, GDR_GPU_NO);
	assert_int_equal(o.nccl, FAB_NO);
	m->gpus[1].cu_gdr = FAB_UNKNOWN;
	o = judge(m, 1, "mlx5_3", NULL);
	assert_int_equal(o.v.v, FAB_UNKNOWN);
	assert_int_equal(o.reason, GDR_UNKNOWN_GPU);
	m->gpus[1].cu_gdr = FAB_YES;
}

static void test_iommu(void **state)
{
	struct fx *f = *state;
	struct fab_model *m = &f->m;
	struct fab_pci_dev *p = &m->pci[m->nics[nic(m, "mlx5_0")].pci];
	assert_int_equal(p->iommu, FAB_IOMMU_IDENTITY);
	p->iommu = FAB_IOMMU_DMA;
	snprintf(p->iommu_type, sizeof(p->iommu_type), "DMA");
	struct fab_gdr o = judge(m, 0, "mlx5_0", NULL);
	assert_int_equal(o.v.v, FAB_NO);
	assert_int_equal(o.reason, GDR_IOMMU);
	assert_int_equal(o.nccl, FAB_YES);    /* NCCL's log says GDRDMA all the same */
	p->iommu = FAB_IOMMU_UNKNOWN;
	o = judge(m, 0, "mlx5_0", NULL);
	assert_int_equal(o.reason, GDR_UNKNOWN_IOMMU);
	p->iommu = FAB_IOMMU_OTHER;           /* "unmanaged": VFIO owns it */
	o = judge(m, 0, "mlx5_0", NULL);
	assert_int_equal(o.reason, GDR_UNKNOWN_IOMMU);
	p->iommu = FAB_IOMMU_NONE;
	o = judge(m, 0, "mlx5_0", NULL);
	assert_int_equal(o.reason, GDR_ON);
	p->iommu = FAB_IOMMU_IDENTITY;
}

static void test_unknown_path(void **state)
{
	struct fx *f = *state;
	struct fab_model *m = &f->m;
	int n = nic(m, "mlx5_0"), pci = m->nics[n].pci;
	m->nics[n].pci = FAB_NO_INDEX;        /* a soft device (rxe): no place in the tree */
	struct fab_gdr o = judge(m, 0, "mlx5_0", NULL);
	assert_int_equal(o.reason, GDR_UNKNOWN_PATH);
	assert_int_equal(o.v.v, FAB_UNKNOWN);
	m->nics[n].pci = pci;
	assert_int_equal(gdr_judge(m, -1, n, NULL, &o), -1);
	assert_int_equal(o.v.v, FAB_UNKNOWN);
}

/* pcie-2numa: intel_iommu=on without iommu=pt, no CUDA driver asked. */
static void test_scenario_iommu(void **state)
{
	struct fx *f = *state;
	const struct fab_model *m = &f->m;
	assert_int_equal(m->peermem.v, FAB_YES);
	struct fab_gdr o = judge(m, 0, "mlx5_0", NULL);
	assert_int_equal(o.v.v, FAB_NO);
	assert_int_equal(o.reason, GDR_IOMMU);
	assert_int_equal(o.nccl, FAB_UNKNOWN);   /* the GPU's support is unknown */
	assert_string_equal(o.v.why, "NCCL may turn it on (PIX within P2C, nvidia_peermem), but the "
			    "IOMMU translates GPU0 0000:03:00.0's DMA (DMA-FQ): peer-to-peer fails; "
			    "set iommu=pt");
	o = judge(m, 1, "mlx5_0", NULL);
	assert_int_equal(o.reason, GDR_FAR);
}

/* ---- the NIC NCCL uses ---- */

static void test_nic_closest(void **state)
{
	struct fx *f = *state;
	const struct fab_model *m = &f->m;
	struct fab_nccl_nic c;
	assert_int_equal(gdr_nic_for_gpu(m, &f->t, 0, NULL, &c), 0);
	assert_string_equal(m->nics[c.nic].name, "mlx5_0");
	assert_int_equal(c.port, 1);
	assert_int_equal(c.ties, 1);
	assert_int_equal(c.path, NCCL_PATH_PXB);
	assert_string_equal(c.why, "the closest usable NIC (PXB)");
	assert_int_equal(gdr_nic_for_gpu(m, &f->t, 5, "", &c), 0);
	assert_string_equal(m->nics[c.nic].name, "mlx5_9");
	assert_int_equal(gdr_nic_for_gpu(m, &f->t, 99, NULL, &c), -1);
}

static void test_nic_ib_hca(void **state)
{
	struct fx *f = *state;
	const struct fab_model *m = &f->m;
	struct fab_nccl_nic c;
	/* Only the other socket's rails: GPU0 gets a SYS NIC, one of six. */
	assert_int_equal(gdr_nic_for_gpu(m, &f->t, 0, "=mlx5_6,mlx5_7,mlx5_8,mlx5_9,mlx5_10,mlx5_11",
					 &c), 0);
	assert_string_equal(m->nics[c.nic].name, "mlx5_6");
	assert_int_equal(c.path, NCCL_PATH_SYS);
	assert_int_equal(c.ties, 6);
	assert_string_equal(c.why, "NCCL_IB_HCA==mlx5_6,mlx5_7,mlx5_8,mlx5_9,mlx5_10,mlx5_11: the "
			    "closest port it selects (SYS); one of 6 as close: NCCL spreads GPUs over "
			    "them by device index");
	/* Exclusion keeps the rest: without mlx5_0, GPU0's nearest are NODE. */
	assert_int_equal(gdr_nic_for_gpu(m, &f->t, 0, "^mlx5_0", &c), 0);
	assert_int_equal(c.path, NCCL_PATH_PHB);
	assert_true(c.ties > 1);
	/* A port filter: mlx5_0:2 does not exist. */
	assert_int_equal(gdr_nic_for_gpu(m, &f->t, 0, "=mlx5_0:2", &c), -1);
	assert_int_equal(c.nic, -1);
	assert_non_null(strstr(c.why, "selects no usable port here"));
	assert_int_equal(gdr_nic_for_gpu(m, &f->t, 0, "mlx5_0:1", &c), 0);
	assert_int_equal(c.port, 1);
}

/* pcie-2numa: GPU3's closest NIC (PIX) is down; NCCL_IB_HCA naming only it
 * leaves nothing, unset it gives the usable SYS one. */
static void test_nic_down(void **state)
{
	struct fx *f = *state;
	const struct fab_model *m = &f->m;
	struct fab_nccl_nic c;
	assert_int_equal(gdr_nic_for_gpu(m, &f->t, 3, NULL, &c), 0);
	assert_string_equal(m->nics[c.nic].name, "mlx5_0");
	assert_int_equal(c.path, NCCL_PATH_SYS);
	assert_int_equal(gdr_nic_for_gpu(m, &f->t, 3, "mlx5_1", &c), -1);
}

static void test_hca_match(void **state)
{
	(void)state;
	assert_true(job_hca_match(NULL, "mlx5_0", 1));
	assert_true(job_hca_match("mlx5", "mlx5_10", 1));
	assert_false(job_hca_match("=mlx5_1", "mlx5_10", 1));
	assert_true(job_hca_match("mlx5_1:1", "mlx5_1", 1));
	assert_false(job_hca_match("mlx5_1:1", "mlx5_1", 2));
	assert_false(job_hca_match("^mlx5_1", "mlx5_1", 1));
	assert_true(job_hca_match("^=mlx5_1", "mlx5_10", 1));
}

int main(void)
{
	const struct CMUnitTest dgx[] = {
		cmocka_unit_test(test_path_words),
		cmocka_unit_test(test_path_x86),
		cmocka_unit_test(test_path_c2c),
		cmocka_unit_test(test_level_parse),
		cmocka_unit_test(test_param_int),
		cmocka_unit_test(test_gdr_on_and_far),
		cmocka_unit_test(test_no_module_no_dmabuf),
		cmocka_unit_test(test_gpu_support),
		cmocka_unit_test(test_iommu),
		cmocka_unit_test(test_unknown_path),
		cmocka_unit_test(test_nic_closest),
		cmocka_unit_test(test_nic_ib_hca),
		cmocka_unit_test(test_hca_match),
	};
	const struct CMUnitTest numa2[] = {
		cmocka_unit_test(test_path_pix_phb),
		cmocka_unit_test(test_scenario_iommu),
		cmocka_unit_test(test_nic_down),
	};
	int rc = cmocka_run_group_tests_name("gdr dgx-h100", dgx, setup_dgx, teardown);
	return rc | cmocka_run_group_tests_name("gdr pcie-2numa", numa2, setup_2numa, teardown);
}
