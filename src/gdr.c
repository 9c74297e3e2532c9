/*
 * gdr.c - NCCL's path type, its GPUDirect RDMA decision and its NIC per
 * GPU, as gdr.h states them. Pure: the model and strings in, facts out.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/i18n.h"
#include "fabtop/gdr.h"
#include "fabtop/util.h"
#include "job.h"

/* topoPathTypeStr, src/graph/topo.cc (NCCL 2.26+: C2C and P2C). */
static const char *const path_words[] = {
	"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET", "DIS",
};

const char *nccl_path_word(enum fab_nccl_path p)
{
	return p < NCCL_PATH_UNKNOWN ? path_words[p] : "N/A";
}

/* Grace: NVML gives a GPU on a C2C link its own NUMA node (the "GPU NUMA
 * ID" column of nvidia-smi topo -m), N/A on x86. */
static bool gpu_on_c2c(const struct fab_gpu *g)
{
	return g->numa_id.ok;
}

enum fab_nccl_path gdr_path(const struct fab_model *m, int g, int n)
{
	if (g < 0 || g >= m->ngpus || n < 0 || n >= m->nnics || m->nics[n].pci == FAB_NO_INDEX)
		return NCCL_PATH_UNKNOWN;
	switch (topo_classify(m, m->gpus[g].pci, m->nics[n].pci)) {
	case TOPO_X: return NCCL_PATH_LOC;
	case TOPO_NV: return NCCL_PATH_NVL;
	case TOPO_PIX: return NCCL_PATH_PIX;
	case TOPO_PXB: return NCCL_PATH_PXB;
	case TOPO_PHB:
	case TOPO_NODE: return gpu_on_c2c(&m->gpus[g]) ? NCCL_PATH_P2C : NCCL_PATH_PHB;
	case TOPO_SYS: return NCCL_PATH_SYS;
	default: return NCCL_PATH_UNKNOWN;
	}
}

long long nccl_param_int(const char *s, long long deflt)
{
	if (!s || !*s)
		return deflt;
	errno = 0;
	long long v = strtoll(s, NULL, 0);
	return errno ? deflt : v;
}

int gdr_level_parse(const char *s, enum fab_nccl_path *level)
{
	/* levelsOldToNew: the numbers NCCL used before it named the levels. */
	static const enum fab_nccl_path old[] = { NCCL_PATH_LOC, NCCL_PATH_PIX, NCCL_PATH_PXB,
		NCCL_PATH_PHB, NCCL_PATH_SYS, NCCL_PATH_SYS };
	if (!s)
		return -1;
	for (int i = 0; i <= NCCL_PATH_SYS; i++)
		if (strcmp(s, path_words[i]) == 0) {
			*level = (enum fab_nccl_path)i;
			return 0;
		}
	if (s[0] >= '0' && s[0] <= '9') {
		long v = strtol(s, NULL, 0);
		int max = (int)(sizeof(old) / sizeof(old[0])) - 1;
		*level = old[v > max || v < 0 ? max : v];
		return 0;
	}
	return -1;
}

/* The level in force and where it comes from, into src. */
static enum fab_nccl_path level_of(const struct fab_gdr_env *env, char *src, size_t len)
{
	enum fab_nccl_path l;
	if (gdr_level_parse(env->net_gdr_level, &l) == 0) {
		snprintf(src, len, "NCCL_NET_GDR_LEVEL=%s", env->net_gdr_level);
		return l;
	}
	bool c2c = nccl_param_int(env->net_gdr_c2c, 1) != 0;
	snprintf(src, len, "%s", env->net_gdr_level ? _("NCCL's default (NCCL_NET_GDR_LEVEL not "
		 "understood)") : _("NCCL's default"));
	return c2c ? NCCL_PATH_P2C : NCCL_PATH_PXB;
}

/* RDMA DMA-BUF (ib_umem_dmabuf) came with Linux 5.12: before it NCCL's
 * test registration fails with EOPNOTSUPP. */
static enum fab_tri kernel_dmabuf(const struct fab_model *m)
{
	int a, b;
	if (sscanf(m->kernel, "%d.%d", &a, &b) != 2)
		return FAB_UNKNOWN;
	return a > 5 || (a == 5 && b >= 12) ? FAB_YES : FAB_NO;
}

/* NCCL's DMA-BUF route for GPU g (init.cc dmaBufSupported, net_ib's
 * ncclIbDmaBufSupport): NCCL_DMABUF_ENABLE, the kernel, the GPU. */
static struct fab_judged dmabuf(const struct fab_model *m, const struct fab_gpu *g,
				const struct fab_gdr_env *env)
{
	struct fab_judged j = { FAB_UNKNOWN, "" };
	enum fab_tri k = kernel_dmabuf(m);
	if (nccl_param_int(env->dmabuf_enable, 1) == 0) {
		j.v = FAB_NO;
		snprintf(j.why, sizeof(j.why), "NCCL_DMABUF_ENABLE=%s", env->dmabuf_enable);
	} else if (k == FAB_NO) {
		j.v = FAB_NO;
		snprintf(j.why, sizeof(j.why), _("kernel %s has no RDMA DMA-BUF (5.12+)"), m->kernel);
	} else if (g->cu_dmabuf == FAB_NO) {
		j.v = FAB_NO;
		snprintf(j.why, sizeof(j.why), _("CUDA says the GPU has no DMA-BUF support"));
	} else if (k == FAB_YES && g->cu_dmabuf == FAB_YES) {
		j.v = FAB_YES;
		snprintf(j.why, sizeof(j.why), _("DMA-BUF (kernel %s, CUDA DMA_BUF_SUPPORTED)"), m->kernel);
	} else {
		snprintf(j.why, sizeof(j.why), _("DMA-BUF unknown (%s)"), k == FAB_UNKNOWN ?
			 _("kernel version unknown") : _("the GPU's DMA_BUF_SUPPORTED unknown: no CUDA driver"));
	}
	return j;
}

/* The IOMMU of one device against peer-to-peer DMA: no, unknown or yes
 * (it breaks it), with the device named in why. */
static enum fab_tri iommu_breaks(const struct fab_model *m, int pci, const char *who,
				 char *why, size_t len)
{
	const struct fab_pci_dev *d = pci >= 0 && pci < m->npci ? &m->pci[pci] : NULL;
	if (!d) {
		snprintf(why, len, _("%s has no PCI function"), who);
		return FAB_UNKNOWN;
	}
	switch (d->iommu) {
	case FAB_IOMMU_NONE:
	case FAB_IOMMU_IDENTITY:
		return FAB_NO;
	case FAB_IOMMU_DMA:
		snprintf(why, len, _("the IOMMU translates %s %s's DMA (%s)"), who, d->bdf,
			 d->iommu_type);
		return FAB_YES;
	case FAB_IOMMU_OTHER:
		snprintf(why, len, _("%s %s's iommu_group type is %s"), who, d->bdf, d->iommu_type);
		return FAB_UNKNOWN;
	default:
		snprintf(why, len, _("the IOMMU mode of %s %s is unknown"), who, d->bdf);
		return FAB_UNKNOWN;
	}
}

static void set(struct fab_gdr *o, enum fab_tri v, enum fab_gdr_reason r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set(struct fab_gdr *o, enum fab_tri v, enum fab_gdr_reason r, const char *fmt, ...)
{
	va_list ap;
	o->v.v = v;
	o->reason = r;
	va_start(ap, fmt);
	vsnprintf(o->v.why, sizeof(o->v.why), fmt, ap);
	va_end(ap);
}

int gdr_judge(const struct fab_model *m, int g, int n, const struct fab_gdr_env *env,
	      struct fab_gdr *out)
{
	static const struct fab_gdr_env defaults = { NULL, NULL, NULL };
	memset(out, 0, sizeof(*out));
	out->path = out->level = NCCL_PATH_UNKNOWN;
	if (g < 0 || g >= m->ngpus || n < 0 || n >= m->nnics) {
		set(out, FAB_UNKNOWN, GDR_UNKNOWN_PATH, _("no such GPU or HCA"));
		return -1;
	}
	if (!env)
		env = &defaults;
	const struct fab_gpu *gpu = &m->gpus[g];
	const struct fab_nic *nic = &m->nics[n];
	char lsrc[FAB_PATH_LEN + 32];
	out->path = gdr_path(m, g, n);
	out->level = level_of(env, lsrc, sizeof(lsrc));

	/* The HCA's support: a module, else DMA-BUF (topo.cc's gdrSupport). */
	struct fab_judged db = dmabuf(m, gpu, env);
	const struct fab_judged *pm = &m->peermem;
	out->nic = pm->v == FAB_YES || db.v == FAB_YES ? FAB_YES :
		   pm->v == FAB_NO && db.v == FAB_NO ? FAB_NO : FAB_UNKNOWN;
	bool far = out->path != NCCL_PATH_UNKNOWN && out->path > out->level;
	const char *pw = nccl_path_word(out->path), *lw = nccl_path_word(out->level);

	/* NCCL's order (ncclTopoCheckGdr): the HCA, the GPU, the distance. */
	if (out->nic == FAB_NO) {
		out->nccl = FAB_NO;
		set(out, FAB_NO, GDR_NO_SUPPORT, _("NCCL disables it for %s: no peer-memory module "
		    "NCCL finds, and no DMA-BUF: %s"), nic->name, db.why);
		return 0;
	}
	if (gpu->cu_gdr == FAB_NO) {
		out->nccl = FAB_NO;
		set(out, FAB_NO, GDR_GPU_NO, _("CUDA says GPU%d does not support GPUDirect RDMA"), g);
		return 0;
	}
	if (far) {
		out->nccl = FAB_NO;
		set(out, FAB_NO, GDR_FAR, _("path %s is farther than %s (%s)"), pw, lw, lsrc);
		return 0;
	}
	/* Beyond NCCL's rule: peer-to-peer DMA through a translating IOMMU
	 * fails whatever NCCL decides about the rest. */
	char wg[160] = "", wn[160] = "", gname[16];
	snprintf(gname, sizeof(gname), "GPU%d", g);
	enum fab_tri ig = iommu_breaks(m, gpu->pci, gname, wg, sizeof(wg));
	enum fab_tri in = iommu_breaks(m, nic->pci, nic->name, wn, sizeof(wn));
	const char *via = pm->v == FAB_YES ? "nvidia_peermem" : db.v == FAB_YES ? "DMA-BUF" :
			  _("module or DMA-BUF unknown");
	bool known = out->nic == FAB_YES && gpu->cu_gdr == FAB_YES && out->path != NCCL_PATH_UNKNOWN;
	out->nccl = known ? FAB_YES : FAB_UNKNOWN;
	if (ig == FAB_YES || in == FAB_YES) {
		set(out, FAB_NO, GDR_IOMMU, known ? _("NCCL turns it on (%s within %s, %s), but %s: "
		    "peer-to-peer fails; set iommu=pt") : _("NCCL may turn it on (%s within %s, %s), but %s: "
		    "peer-to-peer fails; set iommu=pt"), pw, lw, via,
		    ig == FAB_YES ? wg : wn);
		return 0;
	}
	if (out->nic == FAB_UNKNOWN) {
		set(out, FAB_UNKNOWN, GDR_UNKNOWN_SUPPORT, "%s: %s", pm->v == FAB_UNKNOWN ? _("peer-memory "
		    "module unknown") : _("no peer-memory module NCCL finds"), db.why);
		return 0;
	}
	if (gpu->cu_gdr == FAB_UNKNOWN) {
		set(out, FAB_UNKNOWN, GDR_UNKNOWN_GPU, _("GPU%d's GPUDirect RDMA support is unknown "
		    "(no CUDA driver asked)"), g);
		return 0;
	}
	if (out->path == NCCL_PATH_UNKNOWN) {
		set(out, FAB_UNKNOWN, GDR_UNKNOWN_PATH, _("the path from GPU%d to %s is unknown"), g,
		    nic->name);
		return 0;
	}
	if (ig == FAB_UNKNOWN || in == FAB_UNKNOWN) {
		set(out, FAB_UNKNOWN, GDR_UNKNOWN_IOMMU, _("NCCL turns it on (%s within %s, %s); %s"),
		    pw, lw, via, ig == FAB_UNKNOWN ? wg : wn);
		return 0;
	}
	set(out, FAB_YES, GDR_ON, _("%s within %s (%s), %s"), pw, lw, lsrc, via);
	return 0;
}

/* A port NCCL may take for this job: selected by NCCL_IB_HCA (when set)
 * and not judged unusable; want: FAB_YES for usable ports only. */
static int pick_port(const struct fab_nic *n, const char *spec, enum fab_tri want)
{
	for (int p = 0; p < n->nports; p++) {
		const struct fab_port *pt = &n->ports[p];
		if (pt->usable.v == FAB_NO || (want == FAB_YES && pt->usable.v != FAB_YES))
			continue;
		if (job_hca_match(spec, n->name, pt->num))
			return pt->num;
	}
	return 0;
}

int gdr_nic_for_gpu(const struct fab_model *m, const struct fab_topo *t, int g,
		    const char *ib_hca, struct fab_nccl_nic *out)
{
	memset(out, 0, sizeof(*out));
	out->nic = -1;
	out->path = NCCL_PATH_UNKNOWN;
	if (g < 0 || g >= t->ngpus) {
		snprintf(out->why, sizeof(out->why), _("no GPU%d"), g);
		return -1;
	}
	bool spec = ib_hca && *ib_hca;
	if (!spec && t->best_usable[g] == FAB_NO) {
		snprintf(out->why, sizeof(out->why), _("no NIC is usable here: NCCL falls back to sockets"));
		return -1;
	}
	int best = -1, ties = 0;
	enum fab_topo_level bl = TOPO_UNKNOWN;
	for (int j = 0; j < t->nnics && j < 64; j++) {
		const struct fab_nic *n = &m->nics[t->devs[t->ngpus + j].idx];
		if (spec ? !pick_port(n, ib_hca, FAB_UNKNOWN) : !(t->best[g] >> j & 1))
			continue;
		enum fab_topo_level l = t->level[g * t->n + t->ngpus + j];
		if (best < 0 || l < bl) {
			best = j;
			bl = l;
			ties = 1;
		} else if (l == bl) {
			ties++;
		}
	}
	if (best < 0) {
		if (spec)
			snprintf(out->why, sizeof(out->why), _("NCCL_IB_HCA=%s selects no usable port "
				 "here: NCCL falls back to sockets"), ib_hca);
		else
			snprintf(out->why, sizeof(out->why), _("no NIC with a PCI function here"));
		return -1;
	}
	out->nic = t->devs[t->ngpus + best].idx;
	const struct fab_nic *n = &m->nics[out->nic];
	const char *s = spec ? ib_hca : NULL;
	out->port = pick_port(n, s, FAB_YES);
	if (!out->port)
		out->port = pick_port(n, s, FAB_UNKNOWN);
	out->ties = ties;
	out->path = gdr_path(m, g, out->nic);
	int k;
	if (spec)
		k = snprintf(out->why, sizeof(out->why), _("NCCL_IB_HCA=%s: the closest port it "
			     "selects (%s)"), ib_hca, nccl_path_word(out->path));
	else
		k = snprintf(out->why, sizeof(out->why), t->best_usable[g] == FAB_YES ?
			     _("the closest usable NIC (%s)") : _("the closest NIC (%s)"),
			     nccl_path_word(out->path));
	if (!spec && t->best_usable[g] == FAB_UNKNOWN && k > 0 && (size_t)k < sizeof(out->why))
		k += snprintf(out->why + k, sizeof(out->why) - (size_t)k, _(", usable here: unknown"));
	if (ties > 1 && k > 0 && (size_t)k < sizeof(out->why))
		snprintf(out->why + k, sizeof(out->why) - (size_t)k, _("; one of %d as close: NCCL "
			 "spreads GPUs over them by device index"), ties);
	return 0;
}
