/*
 * cuda.c - which CUDA runtime and NCCL this node would give a job, in words.
 *
 * Both are dlopen'ed (never linked: a user's machine may have neither) and
 * asked only for versions and the device count, which need no GPU context.
 * A capture replays the lines recorded in fabtop/meta.json.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "fabtop/collect.h"
#include "dl.h"
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

/* The runtime stays loaded for the life of the process: unloading it after
 * it has initialised the driver leaves its exit handlers pointing nowhere. */
static void *cudart;
static const char *cudart_name;

static void live_cuda(struct fab_model *m)
{
	static const char *const sonames[] = { "libcudart.so.13", "libcudart.so.12",
		"libcudart.so.11.0", "libcudart.so", NULL };
	char why[256];
	char *st = m->cuda_status;
	size_t len = sizeof(m->cuda_status);

	if (!cudart && !(cudart = fab_dlopen_first(sonames, &cudart_name, why, sizeof(why)))) {
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

static void live_nccl(struct fab_model *m)
{
	static const char *const sonames[] = { "libnccl.so.2", NULL };
	static void *nccl;
	char why[256];
	char *st = m->nccl_status;
	size_t len = sizeof(m->nccl_status);

	/* Kept loaded too: NCCL carries its own copy of the CUDA runtime. */
	if (!nccl && !(nccl = fab_dlopen_first(sonames, NULL, why, sizeof(why)))) {
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

int collect_cuda(const struct fab_root *r, struct fab_model *m)
{
	if (!r->live) {
		from_meta(r, m);
		return 0;
	}
	live_cuda(m);
	live_nccl(m);
	return 0;
}
