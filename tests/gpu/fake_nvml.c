/*
 * fake_nvml.c - a stand-in libnvidia-ml.so.1 for the tests of the GPU
 * libraries' background load (tests/gpu): the NVML entry points that
 * src/collectors/nvml.c resolves, with the ABI of nvml.h, answering from
 * the environment. It is a test part only: built into
 * build/tests/fake-nvml/ and loaded through LD_LIBRARY_PATH.
 *
 *   FAKE_NVML_GPUS      comma-separated PCI addresses ("0000:1b:00.0,...");
 *                       GPU i is NVML index i; none: no GPU
 *   FAKE_NVML_LINKS     NVLinks between each pair of GPUs (default 4;
 *                       18 links a GPU at most, as on Hopper)
 *   FAKE_NVML_DELAY_MS  nvmlInit_v2 sleeps this long first; -1: forever
 *                       (a hung driver)
 *   FAKE_NVML_GATE      nvmlInit_v2 waits until this file exists, so a
 *                       test orders events without timing them
 *
 * It has no NVSwitch function: a caller that needed one would not load it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;

#define OK 0
#define ERR_INVALID_ARGUMENT 2
#define ERR_NOT_SUPPORTED 3
#define MAX_GPUS 32
#define MAX_LINKS 18

static int ngpus;
static unsigned dom[MAX_GPUS], bus[MAX_GPUS], dev[MAX_GPUS], fn[MAX_GPUS];

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

nvmlReturn_t nvmlInit_v2(void)
{
	const char *d = getenv("FAKE_NVML_DELAY_MS"), *gate = getenv("FAKE_NVML_GATE");
	long ms = d ? atol(d) : 0;
	if (ms < 0)
		for (;;)
			sleep_ms(1000);
	if (ms > 0)
		sleep_ms(ms);
	while (gate && *gate && access(gate, F_OK) != 0)
		sleep_ms(10);
	ngpus = 0;
	const char *s = getenv("FAKE_NVML_GPUS");
	while (s && *s && ngpus < MAX_GPUS) {
		int n = 0;
		if (sscanf(s, "%x:%x:%x.%x%n", &dom[ngpus], &bus[ngpus], &dev[ngpus], &fn[ngpus], &n) != 4)
			break;
		ngpus++;
		s += n;
		if (*s == ',')
			s++;
	}
	return OK;
}

nvmlReturn_t nvmlShutdown(void) { return OK; }

const char *nvmlErrorString(nvmlReturn_t rc)
{
	return rc == OK ? "Success" : rc == ERR_NOT_SUPPORTED ? "Not Supported" : "Invalid Argument";
}

static nvmlReturn_t put(char *buf, unsigned len, const char *s)
{
	if (!buf || len <= strlen(s))
		return ERR_INVALID_ARGUMENT;
	strcpy(buf, s);
	return OK;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *b, unsigned len) { return put(b, len, "550.90.07"); }
nvmlReturn_t nvmlSystemGetNVMLVersion(char *b, unsigned len) { return put(b, len, "12.550.90.07"); }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = (unsigned)ngpus;
	return OK;
}

/* A handle is the index + 1: never NULL. */
static int idx(nvmlDevice_t d)
{
	long i = (long)(size_t)d - 1;
	return i >= 0 && i < ngpus ? (int)i : -1;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{
	if ((int)i >= ngpus)
		return ERR_INVALID_ARGUMENT;
	*d = (nvmlDevice_t)(size_t)(i + 1);
	return OK;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *b, unsigned len)
{
	return idx(d) < 0 ? ERR_INVALID_ARGUMENT : put(b, len, "NVIDIA H100 80GB HBM3");
}

static void fill_pci(int i, nvmlPciInfo_t *p)
{
	memset(p, 0, sizeof(*p));
	p->domain = dom[i];
	p->bus = bus[i];
	p->device = dev[i];
	/* NVML's own spelling: eight domain digits, upper case. */
	snprintf(p->busId, sizeof(p->busId), "%08X:%02X:%02X.%X", dom[i], bus[i], dev[i], fn[i]);
	snprintf(p->busIdLegacy, sizeof(p->busIdLegacy), "%04X:%02X:%02X.%X", dom[i], bus[i], dev[i], fn[i]);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p)
{
	int i = idx(d);
	if (i < 0)
		return ERR_INVALID_ARGUMENT;
	fill_pci(i, p);
	return OK;
}

static int links_per_pair(void)
{
	const char *s = getenv("FAKE_NVML_LINKS");
	int n = s ? atoi(s) : 4;
	if (ngpus > 1 && n * (ngpus - 1) > MAX_LINKS)
		n = MAX_LINKS / (ngpus - 1);
	return n < 0 ? 0 : n;
}

/* Link l of GPU i goes to the (l / links + 1)-th next GPU: every pair gets
 * the same number of links, both ways. -1: no such link. */
static int remote_of(int i, unsigned l)
{
	int per = links_per_pair();
	if (i < 0 || ngpus < 2 || per == 0 || l >= MAX_LINKS || (int)l >= per * (ngpus - 1))
		return -1;
	return (i + 1 + (int)l / per) % ngpus;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned l, int *active)
{
	if (idx(d) < 0 || l >= MAX_LINKS)
		return ERR_INVALID_ARGUMENT;
	*active = remote_of(idx(d), l) >= 0;
	return OK;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned l, nvmlPciInfo_t *p)
{
	int r = remote_of(idx(d), l);
	if (r < 0)
		return ERR_NOT_SUPPORTED;
	fill_pci(r, p);
	return OK;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned l, int *type)
{
	if (remote_of(idx(d), l) < 0)
		return ERR_NOT_SUPPORTED;
	*type = 0;   /* NVML_NVLINK_DEVICE_TYPE_GPU */
	return OK;
}
