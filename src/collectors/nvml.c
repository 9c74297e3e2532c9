/*
 * nvml.c - GPU names, NVML indices and NVLink counts from NVML, loaded with
 * dlopen (nvtop's way: local type declarations, every symbol resolved or
 * none). A capture's fabtop/nvml.json fills the same table.
 *
 * collect_gpus() runs later and asks this table through nvml_lookup() and
 * nvml_nvlinks(); the table is rebuilt on every collect_nvml() call.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "fabtop/collect.h"
#include "dl.h"
#include "gpu_int.h"
#include "fabtop/util.h"

/* The part of nvml.h fabtop uses; the ABI is stable for these. */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
#define NVML_SUCCESS 0
#define NVML_FEATURE_ENABLED 1
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_NVLINK_DEVICE_TYPE_GPU 0
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 2
typedef struct {
	unsigned int gpu, memory;     /* percent of the last sample period */
} nvmlUtilization_t;
#define NVML_PSTATE_UNKNOWN 32

/* The resolved entry points: one per gather, on its stack, so that a
 * gather in the background thread (gpu_bg.c) and one for a capture share
 * nothing. */
struct nv_api {
	nvmlReturn_t (*Init)(void);
	nvmlReturn_t (*Shutdown)(void);
	const char *(*ErrorString)(nvmlReturn_t);
	nvmlReturn_t (*DriverVersion)(char *, unsigned);
	nvmlReturn_t (*NVMLVersion)(char *, unsigned);
	nvmlReturn_t (*Count)(unsigned *);
	nvmlReturn_t (*Handle)(unsigned, nvmlDevice_t *);
	nvmlReturn_t (*Name)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*PciInfo)(nvmlDevice_t, nvmlPciInfo_t *);
	nvmlReturn_t (*LinkState)(nvmlDevice_t, unsigned, int *);
	nvmlReturn_t (*LinkRemotePci)(nvmlDevice_t, unsigned, nvmlPciInfo_t *);
	/* Optional: newer drivers only. */
	nvmlReturn_t (*LinkRemoteType)(nvmlDevice_t, unsigned, int *);
	nvmlReturn_t (*NumaNode)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*Utilization)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*PState)(nvmlDevice_t, int *);
};

/* Symbol names, newest first where there are several versions. */
#define NV_SLOT(f) offsetof(struct nv_api, f)
static const struct {
	size_t slot;
	const char *names[3];
	bool required;
} nv_syms[] = {
	{ NV_SLOT(Init), { "nvmlInit_v2" }, true },
	{ NV_SLOT(Shutdown), { "nvmlShutdown" }, true },
	{ NV_SLOT(ErrorString), { "nvmlErrorString" }, true },
	{ NV_SLOT(DriverVersion), { "nvmlSystemGetDriverVersion" }, true },
	{ NV_SLOT(NVMLVersion), { "nvmlSystemGetNVMLVersion" }, true },
	{ NV_SLOT(Count), { "nvmlDeviceGetCount_v2" }, true },
	{ NV_SLOT(Handle), { "nvmlDeviceGetHandleByIndex_v2" }, true },
	{ NV_SLOT(Name), { "nvmlDeviceGetName" }, true },
	{ NV_SLOT(PciInfo), { "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2" }, true },
	{ NV_SLOT(LinkState), { "nvmlDeviceGetNvLinkState" }, true },
	{ NV_SLOT(LinkRemotePci), { "nvmlDeviceGetNvLinkRemotePciInfo_v2" }, true },
	{ NV_SLOT(LinkRemoteType), { "nvmlDeviceGetNvLinkRemoteDeviceType" }, false },
	{ NV_SLOT(NumaNode), { "nvmlDeviceGetNumaNodeId" }, false },
	/* Plain device queries (nvidia-smi's utilization and pstate). */
	{ NV_SLOT(Utilization), { "nvmlDeviceGetUtilizationRates" }, false },
	{ NV_SLOT(PState), { "nvmlDeviceGetPerformanceState" }, false },
};
#define NV_NSYMS (sizeof(nv_syms) / sizeof(nv_syms[0]))

struct nvml_gpu {
	char bdf[24];
	char name[FAB_NAME_LEN];
	int index;
	long long numa_id;          /* -1: none */
	int util_pct, pstate;       /* GPU utilisation %, P-state (0 = P0); -1: unknown */
	bool nvlink_known;
	int nvlinks[FAB_MAX_GPUS];  /* by the other GPU's NVML index */
};

struct nvml_table {
	int n;
	int more;  /* GPUs NVML counted past FAB_MAX_GPUS: not kept, said */
	char driver[80], version[80];
	struct nvml_gpu gpus[FAB_MAX_GPUS];
};

/* What collect_gpus() asks: set in the main thread only (collect_nvml,
 * nvml_install). */
static struct nvml_table tab;

/* "00000000:1B:00.0" -> "0000:1b:00.0"; false when it is not a bus id. */
static bool norm_bdf(const char *in, char *out, size_t len)
{
	unsigned dom, bus, dev, fn;
	if (!in || sscanf(in, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return false;
	/* Full domain: VMD domains (10000 and up) must not alias domain 0. */
	snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus & 0xff, dev & 0x1f, fn & 7);
	return true;
}

static const struct nvml_gpu *find_gpu(const struct nvml_table *t, const char *bdf)
{
	char b[24];
	if (!norm_bdf(bdf, b, sizeof(b)))
		return NULL;
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->gpus[i].bdf, b) == 0)
			return &t->gpus[i];
	return NULL;
}

int nvml_lookup(const char *bdf, char *name, size_t len, int *nvml_index,
		long long *numa_id_or_minus1)
{
	const struct nvml_gpu *g = find_gpu(&tab, bdf);
	if (!g)
		return -1;
	if (name && len)
		fab_strlcpy(name, g->name, len);
	if (nvml_index)
		*nvml_index = g->index;
	if (numa_id_or_minus1)
		*numa_id_or_minus1 = g->numa_id;
	return 0;
}

int nvml_activity(const char *bdf, int *util_pct, int *pstate)
{
	const struct nvml_gpu *g = find_gpu(&tab, bdf);
	if (!g)
		return -1;
	*util_pct = g->util_pct;
	*pstate = g->pstate;
	return 0;
}

int nvml_nvlinks(const char *bdf_a, const char *bdf_b)
{
	const struct nvml_gpu *a = find_gpu(&tab, bdf_a), *b = find_gpu(&tab, bdf_b);
	if (!a || !b || !a->nvlink_known || b->index < 0 || b->index >= FAB_MAX_GPUS)
		return -1;
	return a == b ? 0 : a->nvlinks[b->index];
}

/* --- live NVML ---------------------------------------------------------- */

static void nv_unload(struct nv_api *nv, void *h)
{
	memset(nv, 0, sizeof(*nv));
	if (h)
		dlclose(h);
}

/* Opens NVML and resolves every symbol into nv; NULL with why set otherwise. */
static void *nv_load(struct nv_api *nv, char *why, size_t len)
{
	static const char *const sonames[] = { "libnvidia-ml.so.1", NULL };
	const char *loaded;
	void *h = fab_dlopen_first(sonames, &loaded, why, len);
	if (!h)
		return NULL;
	for (size_t i = 0; i < NV_NSYMS; i++) {
		void **slot = (void **)((char *)nv + nv_syms[i].slot);
		*slot = NULL;
		for (int k = 0; k < 3 && nv_syms[i].names[k] && !*slot; k++)
			*slot = dlsym(h, nv_syms[i].names[k]);
		if (!*slot && nv_syms[i].required) {
			snprintf(why, len, "not loaded: %s has no %s (driver too old?)",
				 loaded, nv_syms[i].names[0]);
			nv_unload(nv, h);
			return NULL;
		}
	}
	return h;
}

/* Fills t from the live driver; -1 with why ("not loaded: ...",
 * "nvmlInit failed: ...") when NVML is not usable. Touches no shared
 * state: the background thread runs it (gpu_bg.c). */
static int nv_gather(struct nvml_table *t, char *why, size_t len)
{
	struct nv_api api, *nv = &api;
	memset(t, 0, sizeof(*t));
	memset(&api, 0, sizeof(api));
	void *h = nv_load(nv, why, len);
	if (!h)
		return -1;
	nvmlReturn_t rc = nv->Init();
	if (rc != NVML_SUCCESS) {
		snprintf(why, len, "nvmlInit failed: %s", nv->ErrorString(rc));
		nv_unload(nv, h);
		return -1;
	}
	unsigned count = 0;
	if (nv->DriverVersion(t->driver, sizeof(t->driver)) != NVML_SUCCESS)
		fab_strlcpy(t->driver, "?", sizeof(t->driver));
	if (nv->NVMLVersion(t->version, sizeof(t->version)) != NVML_SUCCESS)
		fab_strlcpy(t->version, "?", sizeof(t->version));
	if ((rc = nv->Count(&count)) != NVML_SUCCESS) {
		snprintf(why, len, "nvmlDeviceGetCount failed: %s", nv->ErrorString(rc));
		nv->Shutdown();
		nv_unload(nv, h);
		return -1;
	}
	if (count > FAB_MAX_GPUS) {
		t->more = (int)(count - FAB_MAX_GPUS);
		count = FAB_MAX_GPUS;
	}

	nvmlDevice_t dev[FAB_MAX_GPUS];
	for (unsigned i = 0; i < count; i++) {
		struct nvml_gpu *g = &t->gpus[t->n];
		nvmlPciInfo_t pci;
		memset(&pci, 0, sizeof(pci));
		if (nv->Handle(i, &dev[t->n]) != NVML_SUCCESS ||
		    nv->PciInfo(dev[t->n], &pci) != NVML_SUCCESS ||
		    !norm_bdf(pci.busId, g->bdf, sizeof(g->bdf)))
			continue;  /* a GPU NVML cannot describe stays a PCI-only GPU */
		g->index = (int)i;
		if (nv->Name(dev[t->n], g->name, sizeof(g->name)) != NVML_SUCCESS)
			g->name[0] = '\0';
		unsigned node;
		g->numa_id = nv->NumaNode && nv->NumaNode(dev[t->n], &node) == NVML_SUCCESS ?
			(long long)node : -1;
		nvmlUtilization_t u;
		int ps;
		g->util_pct = nv->Utilization && nv->Utilization(dev[t->n], &u) == NVML_SUCCESS &&
			      u.gpu <= 100 ? (int)u.gpu : -1;
		g->pstate = nv->PState && nv->PState(dev[t->n], &ps) == NVML_SUCCESS &&
			    ps >= 0 && ps < NVML_PSTATE_UNKNOWN ? ps : -1;
		t->n++;
	}

	/* Active links per remote: another GPU directly, or the NVSwitch fabric. */
	int direct[FAB_MAX_GPUS][FAB_MAX_GPUS], sw[FAB_MAX_GPUS];
	memset(direct, 0, sizeof(direct));
	memset(sw, 0, sizeof(sw));
	for (int a = 0; a < t->n; a++) {
		for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
			int state = 0, type = -1;
			nvmlPciInfo_t rp;
			char rb[24];
			memset(&rp, 0, sizeof(rp));
			/* NOT_SUPPORTED / INVALID_ARGUMENT: no such link on this GPU. */
			if (nv->LinkState(dev[a], l, &state) != NVML_SUCCESS ||
			    state != NVML_FEATURE_ENABLED ||
			    nv->LinkRemotePci(dev[a], l, &rp) != NVML_SUCCESS ||
			    !norm_bdf(rp.busId, rb, sizeof(rb)))
				continue;
			if (nv->LinkRemoteType && nv->LinkRemoteType(dev[a], l, &type) != NVML_SUCCESS)
				type = -1;
			int b = -1;
			for (int k = 0; k < t->n; k++)
				if (strcmp(t->gpus[k].bdf, rb) == 0)
					b = k;
			if (b >= 0 && type != NVML_NVLINK_DEVICE_TYPE_SWITCH)
				direct[a][b]++;
			else if (type == NVML_NVLINK_DEVICE_TYPE_SWITCH || type == -1)
				sw[a]++;  /* not a GPU we know: an NVSwitch */
		}
	}
	/* Through NVSwitches every pair gets the smaller of the two link counts,
	 * which is the NV# nvidia-smi shows on such systems. */
	for (int a = 0; a < t->n; a++) {
		t->gpus[a].nvlink_known = true;
		for (int b = 0; b < t->n; b++) {
			if (a == b)
				continue;
			int n = direct[a][b];
			if (sw[a] && sw[b])
				n += sw[a] < sw[b] ? sw[a] : sw[b];
			t->gpus[a].nvlinks[t->gpus[b].index] = n;
		}
	}
	nv->Shutdown();
	nv_unload(nv, h);
	return 0;
}

/* --- the capture file ---------------------------------------------------- */

static json_t *table_json(const struct nvml_table *t)
{
	json_t *doc = json_object(), *gpus = json_array();
	json_object_set_new(doc, "driver", json_string(t->driver));
	json_object_set_new(doc, "nvml", json_string(t->version));
	for (int i = 0; i < t->n; i++) {
		const struct nvml_gpu *g = &t->gpus[i];
		json_t *j = json_object(), *links = json_object();
		json_object_set_new(j, "index", json_integer(g->index));
		json_object_set_new(j, "name", json_string(g->name));
		json_object_set_new(j, "pci_bus_id", json_string(g->bdf));
		json_object_set_new(j, "numa_id", g->numa_id >= 0 ? json_integer(g->numa_id) : json_null());
		json_object_set_new(j, "utilization_gpu", g->util_pct >= 0 ? json_integer(g->util_pct) : json_null());
		json_object_set_new(j, "pstate", g->pstate >= 0 ? json_integer(g->pstate) : json_null());
		for (int k = 0; k < t->n; k++) {
			int idx = t->gpus[k].index;
			if (k != i && g->nvlinks[idx] > 0) {
				char key[16];
				snprintf(key, sizeof(key), "%d", idx);
				json_object_set_new(links, key, json_integer(g->nvlinks[idx]));
			}
		}
		json_object_set_new(j, "nvlinks", links);
		json_array_append_new(gpus, j);
	}
	json_object_set_new(doc, "gpus", gpus);
	if (t->more)
		json_object_set_new(doc, "gpus_more", json_integer(t->more));
	return doc;
}

/* Reads nvml.json into t; -1 with why when it is not a usable snapshot. */
static int table_from_json(struct nvml_table *t, json_t *doc, char *why, size_t len)
{
	memset(t, 0, sizeof(*t));
	json_t *gpus = json_object_get(doc, "gpus");
	if (!json_is_object(doc) || !json_is_array(gpus)) {
		snprintf(why, len, "no \"gpus\" array");
		return -1;
	}
	fab_strlcpy(t->driver, json_string_value(json_object_get(doc, "driver")) ?: "?",
		    sizeof(t->driver));
	fab_strlcpy(t->version, json_string_value(json_object_get(doc, "nvml")) ?: "?",
		    sizeof(t->version));
	size_t i;
	json_t *j;
	json_array_foreach(gpus, i, j) {
		struct nvml_gpu *g = &t->gpus[t->n];
		json_t *idx = json_object_get(j, "index"), *numa = json_object_get(j, "numa_id");
		json_t *links = json_object_get(j, "nvlinks");
		if (t->n >= FAB_MAX_GPUS) {
			t->more++;
			continue;
		}
		if (!json_is_integer(idx) ||
		    json_integer_value(idx) < 0 || json_integer_value(idx) >= FAB_MAX_GPUS ||
		    !norm_bdf(json_string_value(json_object_get(j, "pci_bus_id")), g->bdf,
			      sizeof(g->bdf)))
			continue;
		g->index = (int)json_integer_value(idx);
		fab_strlcpy(g->name, json_string_value(json_object_get(j, "name")) ?: "",
			    sizeof(g->name));
		g->numa_id = json_is_integer(numa) ? json_integer_value(numa) : -1;
		json_t *u = json_object_get(j, "utilization_gpu"), *ps = json_object_get(j, "pstate");
		g->util_pct = json_is_integer(u) && json_integer_value(u) >= 0 &&
			      json_integer_value(u) <= 100 ? (int)json_integer_value(u) : -1;
		g->pstate = json_is_integer(ps) && json_integer_value(ps) >= 0 &&
			    json_integer_value(ps) < NVML_PSTATE_UNKNOWN ? (int)json_integer_value(ps) : -1;
		/* No "nvlinks" key: the capture did not know; never guess. */
		if (json_is_object(links)) {
			const char *key;
			json_t *v;
			g->nvlink_known = true;
			json_object_foreach(links, key, v) {
				long long other;
				if (fab_parse_ll(key, &other) && other >= 0 && other < FAB_MAX_GPUS &&
				    json_is_integer(v))
					g->nvlinks[other] = (int)json_integer_value(v);
			}
		}
		t->n++;
	}
	json_t *more = json_object_get(doc, "gpus_more");
	if (json_is_integer(more) && json_integer_value(more) > 0 &&
	    json_integer_value(more) < INT_MAX - t->more)
		t->more += (int)json_integer_value(more);
	return 0;
}

/* Status lines are short by design; a cut is fine (vsnprintf: no warning). */
static void __attribute__((format(printf, 2, 3))) set_status(struct fab_model *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->nvml_status, sizeof(m->nvml_status), fmt, ap);
	va_end(ap);
}

static void status_ok(struct fab_model *m, const struct nvml_table *t, const char *suffix)
{
	set_status(m, "NVML %s, driver %s, %d GPU(s)%s",
		 t->version, t->driver, t->n, suffix);
	m->gpu_source = GPU_SRC_NVML;
	if (t->more)
		model_note_cut(m, "nvml", "", "GPUs", t->n + t->more, t->n);
}

/* The "nvml" line fabtop/meta.json recorded on the node, or NULL. */
static const char *meta_nvml(const struct fab_root *r, char *buf, size_t len)
{
	json_error_t je;
	json_t *meta = root_load_json(r, "/fabtop/meta.json", &je);
	const char *s = json_string_value(json_object_get(meta, "nvml"));
	if (s)
		fab_strlcpy(buf, s, len);
	json_decref(meta);
	return s ? buf : NULL;
}

struct nvml_table *nvml_gather_new(char *why, size_t len)
{
	struct nvml_table *t = malloc(sizeof(*t));
	if (!t) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	if (nv_gather(t, why, len) != 0) {
		free(t);
		return NULL;
	}
	return t;
}

void nvml_install(struct fab_model *m, const struct nvml_table *t, const char *why)
{
	if (!t) {
		memset(&tab, 0, sizeof(tab));
		/* No NVML is a normal state: GPUs come from PCI. */
		fab_strlcpy(m->nvml_status, why, sizeof(m->nvml_status));
		return;
	}
	tab = *t;
	status_ok(m, &tab, "");
}

void nvml_forget(void)
{
	memset(&tab, 0, sizeof(tab));
}

int collect_nvml(const struct fab_root *r, struct fab_model *m)
{
	char why[256];
	memset(&tab, 0, sizeof(tab));
	if (r->live) {
		struct nvml_table *t = nvml_gather_new(why, sizeof(why));
		nvml_install(m, t, why);
		free(t);
		return 0;
	}

	const char *path = "/fabtop/nvml.json";
	char meta[sizeof(m->nvml_status)];
	if (!root_exists(r, path)) {
		/* The node's own words, so a replay reads exactly as the live run did. */
		if (meta_nvml(r, meta, sizeof(meta)))
			fab_strlcpy(m->nvml_status, meta, sizeof(m->nvml_status));
		else
			fab_strlcpy(m->nvml_status, "no NVML snapshot in this capture (NVLink unknown)",
				    sizeof(m->nvml_status));
		return 0;
	}
	json_error_t je;
	json_t *doc = root_load_json(r, path, &je);
	if (!doc) {
		model_note(m, "nvml", "cannot parse %s: line %d: %s (NVLink unknown)",
			   path, je.line, je.text);
		set_status(m, "fabtop/nvml.json unreadable: line %d: %s", je.line, je.text);
		return -1;
	}
	int rc = table_from_json(&tab, doc, why, sizeof(why));
	json_decref(doc);
	if (rc != 0) {
		memset(&tab, 0, sizeof(tab));
		model_note(m, "nvml", "%s: %s (NVLink unknown)", path, why);
		set_status(m, "fabtop/nvml.json unusable: %s", why);
		return -1;
	}
	status_ok(m, &tab, " (captured)");
	return 0;
}

json_t *nvml_snapshot_json(char *err, size_t errlen)
{
	struct nvml_table *t = malloc(sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	json_t *doc = NULL;
	if (nv_gather(t, err, errlen) == 0)
		doc = table_json(t);
	free(t);
	return doc;
}
