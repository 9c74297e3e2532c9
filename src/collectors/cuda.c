/*
 * cuda.c - which CUDA runtime and NCCL this node would give a job, in words.
 *
 * Both are dlopen'ed (never linked: a user's machine may have neither) and
 * asked only for versions and the device count, which need no GPU context.
 * A capture replays the lines recorded in fabtop/meta.json.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "fabtop/collect.h"
#include "dl.h"
#include "gpu_int.h"
#include "fabtop/util.h"

typedef int cudaError_t;
#define CUDA_SUCCESS_RC 0
#define CUDA_ERR_INSUFFICIENT_DRIVER 35
#define CUDA_ERR_NO_DEVICE 100

static void __attribute__((format(printf, 3, 4))) put(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

/* "not loaded: libx.so: cannot open shared object file: No such file..."
 * means the library is simply absent: say "not installed". */
static void missing(char *dst, size_t len, const char *pattern, const char *why)
{
	if (strstr(why, "No such file"))
		put(dst, len, "not installed (%s: not found)", pattern);
	else
		put(dst, len, "%s", why);
}

/* 13000 -> "13.0", 12040 -> "12.4" */
static void cuda_ver(int v, char *buf, size_t len)
{
	put(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* The libraries stay loaded for the life of the process: unloading one
 * after it has initialised the driver leaves its exit handlers pointing
 * nowhere. The handles are opened once, under a lock: the background
 * loader (gpu_bg.c) and a capture may both ask. */
static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;

static void *open_once(void **h, const char *const *sonames, const char **loaded,
		       char *why, size_t len)
{
	pthread_mutex_lock(&lib_lock);
	if (!*h)
		*h = fab_dlopen_first(sonames, loaded, why, len);
	void *r = *h;
	pthread_mutex_unlock(&lib_lock);
	return r;
}

static void *cudart;
static const char *cudart_name;

static void live_cuda(char *st, size_t len)
{
	static const char *const sonames[] = { "libcudart.so.13", "libcudart.so.12",
		"libcudart.so.11.0", "libcudart.so", NULL };
	char why[256];

	if (!open_once(&cudart, sonames, &cudart_name, why, sizeof(why))) {
		missing(st, len, "libcudart.so.*", why);
		return;
	}
	cudaError_t (*rt_ver)(int *) = (cudaError_t (*)(int *))dlsym(cudart, "cudaRuntimeGetVersion");
	cudaError_t (*drv_ver)(int *) = (cudaError_t (*)(int *))dlsym(cudart, "cudaDriverGetVersion");
	cudaError_t (*count)(int *) = (cudaError_t (*)(int *))dlsym(cudart, "cudaGetDeviceCount");
	const char *(*err_name)(cudaError_t) =
		(const char *(*)(cudaError_t))dlsym(cudart, "cudaGetErrorName");
	if (!rt_ver || !drv_ver || !count) {
		put(st, len, "not loaded: %s lacks cudaRuntimeGetVersion/cudaDriverGetVersion/"
		    "cudaGetDeviceCount", cudart_name);
		return;
	}

	int rv = 0, dv = 0, n = 0;
	char rts[16], drs[32];
	if (rt_ver(&rv) != CUDA_SUCCESS_RC)
		rv = 0;
	cuda_ver(rv, rts, sizeof(rts));
	/* Driver version 0: libcuda.so.1 is absent (no NVIDIA driver). */
	if (drv_ver(&dv) != CUDA_SUCCESS_RC || dv <= 0) {
		dv = 0;
		fab_strlcpy(drs, "driver: none", sizeof(drs));
	} else {
		char d[16];
		cuda_ver(dv, d, sizeof(d));
		put(drs, sizeof(drs), "driver %s", d);
	}

	cudaError_t rc = count(&n);
	if (rc == CUDA_SUCCESS_RC)
		put(st, len, "CUDA runtime %s, %s, %d device(s)", rts, drs, n);
	else if (rc == CUDA_ERR_INSUFFICIENT_DRIVER && dv == 0)
		put(st, len, "CUDA runtime %s, %s (cudaErrorInsufficientDriver: no NVIDIA driver loaded)",
		    rts, drs);
	else if (rc == CUDA_ERR_INSUFFICIENT_DRIVER)
		put(st, len, "CUDA runtime %s, %s (cudaErrorInsufficientDriver: the driver is older "
		    "than the runtime; update the NVIDIA driver)", rts, drs);
	else if (rc == CUDA_ERR_NO_DEVICE)
		put(st, len, "CUDA runtime %s, %s, no device (cudaErrorNoDevice: no GPU visible; "
		    "check CUDA_VISIBLE_DEVICES)", rts, drs);
	else
		put(st, len, "CUDA runtime %s, %s (cudaGetDeviceCount: %s, error %d)", rts, drs,
		    err_name ? err_name(rc) : "error", rc);
}

static void live_nccl(char *st, size_t len)
{
	static const char *const sonames[] = { "libnccl.so.2", NULL };
	static void *nccl;
	char why[256];

	/* Kept loaded too: NCCL carries its own copy of the CUDA runtime. */
	if (!open_once(&nccl, sonames, NULL, why, sizeof(why))) {
		missing(st, len, "libnccl.so.2", why);
		return;
	}
	int (*get_version)(int *) = (int (*)(int *))dlsym(nccl, "ncclGetVersion");
	int v = 0;
	if (!get_version) {
		put(st, len, "not loaded: libnccl.so.2 has no ncclGetVersion");
		return;
	}
	if (get_version(&v) != 0 || v <= 0) {
		put(st, len, "NCCL loaded, but ncclGetVersion failed");
		return;
	}
	/* 2.9 and later: major*10000 + minor*100 + patch; before: *1000. */
	if (v >= 10000)
		put(st, len, "NCCL %d.%d.%d", v / 10000, (v % 10000) / 100, v % 100);
	else
		put(st, len, "NCCL %d.%d.%d", v / 1000, (v % 1000) / 100, v % 100);
}

/* A capture replays what `fabtop capture` saw on the node. */
static void from_meta(const struct fab_root *r, struct fab_model *m)
{
	json_error_t je;
	json_t *meta = root_load_json(r, "/fabtop/meta.json", &je);
	const char *c = json_string_value(json_object_get(meta, "cuda"));
	const char *n = json_string_value(json_object_get(meta, "nccl"));
	fab_strlcpy(m->cuda_status, c ? c : "not recorded in this capture", sizeof(m->cuda_status));
	fab_strlcpy(m->nccl_status, n ? n : "not recorded in this capture", sizeof(m->nccl_status));
	json_decref(meta);
}

/* ---- what NCCL asks the driver before GPUDirect RDMA, per GPU ----
 * CUdevice_attribute values of cuda.h (CUDA 11.3+ and 11.7+). */
#define CU_ATTR_GPU_DIRECT_RDMA_SUPPORTED 116
#define CU_ATTR_DMA_BUF_SUPPORTED 124

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_busid_fn)(char *, int, int);
typedef int (*cu_attr_fn)(int *, int, int);

/* One attribute as JSON: true/false, null when the driver would not say. */
static json_t *attr_json(cu_attr_fn attr, int a, int dev)
{
	int v = 0;
	return attr(&v, a, dev) == 0 ? json_boolean(v != 0) : json_null();
}

/* libcuda.so.1 is the driver itself: cuInit and attribute queries make no
 * context on the GPU. NULL with why when it cannot be asked. */
json_t *cuda_gpus_snapshot_json(char *why, size_t len)
{
	static const char *const sonames[] = { "libcuda.so.1", NULL };
	static void *cu;
	if (!open_once(&cu, sonames, NULL, why, len))
		return NULL;
	cu_init_fn init = (cu_init_fn)dlsym(cu, "cuInit");
	cu_count_fn count = (cu_count_fn)dlsym(cu, "cuDeviceGetCount");
	cu_get_fn get = (cu_get_fn)dlsym(cu, "cuDeviceGet");
	cu_busid_fn busid = (cu_busid_fn)dlsym(cu, "cuDeviceGetPCIBusId");
	cu_attr_fn attr = (cu_attr_fn)dlsym(cu, "cuDeviceGetAttribute");
	int n = 0;
	if (!init || !count || !get || !busid || !attr) {
		put(why, len, "libcuda.so.1 lacks cuInit/cuDeviceGetCount/cuDeviceGet/"
		    "cuDeviceGetPCIBusId/cuDeviceGetAttribute");
		return NULL;
	}
	int rc = init(0);
	if (rc != 0 || count(&n) != 0) {
		put(why, len, "cuInit failed (CUresult %d): no GPU the driver can use", rc);
		return NULL;
	}
	json_t *gpus = json_array();
	for (int i = 0; i < n && i < FAB_MAX_GPUS; i++) {
		int dev;
		char bus[32];
		if (get(&dev, i) != 0 || busid(bus, (int)sizeof(bus), dev) != 0)
			continue;
		for (char *c = bus; *c; c++)
			if (*c >= 'A' && *c <= 'F')
				*c = (char)(*c - 'A' + 'a');   /* "0000:1B:00.0" as sysfs spells it */
		json_t *g = json_object();
		json_object_set_new(g, "bus_id", json_string(bus));
		json_object_set_new(g, "gpu_direct_rdma", attr_json(attr, CU_ATTR_GPU_DIRECT_RDMA_SUPPORTED, dev));
		json_object_set_new(g, "dma_buf", attr_json(attr, CU_ATTR_DMA_BUF_SUPPORTED, dev));
		json_array_append_new(gpus, g);
	}
	json_t *j = json_object();
	json_object_set_new(j, "gpus", gpus);
	return j;
}

static enum fab_tri tri_of(json_t *v)
{
	return json_is_boolean(v) ? (json_is_true(v) ? FAB_YES : FAB_NO) : FAB_UNKNOWN;
}

void cuda_gpus_apply(struct fab_model *m, json_t *j)
{
	json_t *gpus = json_object_get(j, "gpus");
	size_t i;
	json_t *g;
	json_array_foreach(gpus, i, g) {
		const char *bus = json_string_value(json_object_get(g, "bus_id"));
		int p = bus ? model_find_pci(m, bus) : FAB_NO_INDEX;
		for (int k = 0; p != FAB_NO_INDEX && k < m->ngpus; k++)
			if (m->gpus[k].pci == p) {
				m->gpus[k].cu_gdr = tri_of(json_object_get(g, "gpu_direct_rdma"));
				m->gpus[k].cu_dmabuf = tri_of(json_object_get(g, "dma_buf"));
			}
	}
}

int collect_cuda_gpus(const struct fab_root *r, struct fab_model *m)
{
	char why[256] = "";
	json_error_t je;
	json_t *j = r->live ? cuda_gpus_snapshot_json(why, sizeof(why))
			    : root_load_json(r, "/fabtop/cuda.json", &je);
	cuda_gpus_apply(m, j);
	json_decref(j);
	return 0;
}

void cuda_live_status(char *cuda, size_t clen, char *nccl, size_t nlen)
{
	live_cuda(cuda, clen);
	live_nccl(nccl, nlen);
}

int collect_cuda(const struct fab_root *r, struct fab_model *m)
{
	if (!r->live) {
		from_meta(r, m);
		return 0;
	}
	cuda_live_status(m->cuda_status, sizeof(m->cuda_status),
			 m->nccl_status, sizeof(m->nccl_status));
	return 0;
}
