/*
 * gpu_bg.c - the GPU libraries of the live node asked in the background.
 *
 * On a real H200 node NVML's and the CUDA driver's initialisation take a
 * quarter to a third of a second, longer than the rest of a snapshot, and
 * a sick GPU can make them hang. So on the live root collect_all() starts
 * them in two threads as collection starts (one for NVML, one for the CUDA
 * runtime, NCCL and the CUDA driver: they do not wait on each other) and
 * reads sysfs meanwhile. Each thread writes only its own part of a job
 * that it shares with the main thread by a reference count; the model is
 * written in the main thread alone (gpu_apply), when a part has arrived.
 *
 * A report waits for the job (at most GPU_BG_WAIT_MS: then what NVML would
 * have said is unknown, and the report says so); the console draws its
 * first frame without waiting and merges the answer when a byte on the
 * job's pipe wakes its loop (gpu_bg_update). NVML calls cannot be
 * cancelled: a thread that hangs is left to the end of the process, with
 * its job (and everything it writes) still allocated, so nothing it
 * touches is ever freed under it. The threads start no process.
 *
 * Never an NVSwitch management function: the gathers in nvml.c and cuda.c
 * ask only device queries.
 */
#define _GNU_SOURCE   /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "fabtop/collect.h"
#include "fabtop/findings.h"
#include "fabtop/i18n.h"
#include "fabtop/util.h"
#include "gpu_int.h"

enum { PART_NVML = 1, PART_CUDA = 2, PART_ALL = 3 };

struct gpu_job {
	/* Under job_lock: */
	int refs;                  /* the threads not finished, and the main side */
	int done;                  /* PART_* finished */
	int pipe[2];               /* a byte for each finished part */
	double started;            /* CLOCK_MONOTONIC seconds */
	/* NVML's part, written by its thread before it sets PART_NVML. */
	struct nvml_table *tab;    /* NULL: NVML not usable, nvml_why says why */
	char nvml_why[256];
	/* CUDA's part, likewise before PART_CUDA. */
	char cuda[256], nccl[256];
	json_t *cuda_gpus;         /* cuda.json's document; NULL: the driver could not say */
};

static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;
/* Main thread only: the job the model waits on (NULL: none), the parts
 * already merged into it, and whether it was told the libraries are late. */
static struct gpu_job *cur;
static int applied;
static bool said_late;

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Drops one reference; the last frees the job. */
static void job_put(struct gpu_job *j)
{
	pthread_mutex_lock(&job_lock);
	bool last = --j->refs == 0;
	pthread_mutex_unlock(&job_lock);
	if (!last)
		return;
	close(j->pipe[0]);
	close(j->pipe[1]);
	free(j->tab);
	json_decref(j->cuda_gpus);
	free(j);
}

/* A part is in: said on the pipe (which never fills: two bytes at most). */
static void job_finish(struct gpu_job *j, int part)
{
	pthread_mutex_lock(&job_lock);
	j->done |= part;
	ssize_t w = write(j->pipe[1], "x", 1);
	(void)w;   /* a full or closed pipe: the loop reads done anyway */
	pthread_mutex_unlock(&job_lock);
	job_put(j);
}

static void *nvml_part(void *arg)
{
	struct gpu_job *j = arg;
	j->tab = nvml_gather_new(j->nvml_why, sizeof(j->nvml_why));
	job_finish(j, PART_NVML);
	return NULL;
}

static void *cuda_part(void *arg)
{
	struct gpu_job *j = arg;
	char why[256];
	cuda_live_status(j->cuda, sizeof(j->cuda), j->nccl, sizeof(j->nccl));
	j->cuda_gpus = cuda_gpus_snapshot_json(why, sizeof(why));
	job_finish(j, PART_CUDA);
	return NULL;
}

/* Runs fn in a detached thread that takes no signal (the console's quit
 * signals go to the main thread), or here when no thread can start. */
static void spawn(void *(*fn)(void *), struct gpu_job *j)
{
	pthread_attr_t attr;
	pthread_t tid;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_attr_init(&attr);
	if (rc == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&tid, &attr, fn, j);
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		fn(j);
}

int gpu_bg_start(const struct fab_root *r)
{
	if (!r->live)
		return 0;
	if (cur) {
		pthread_mutex_lock(&job_lock);
		int done = cur->done;
		pthread_mutex_unlock(&job_lock);
		/* Still asking (a reload while NVML hangs): the new model waits
		 * on the same answer rather than on a second hung call. */
		if (done != PART_ALL)
			return 0;
		job_put(cur);
		cur = NULL;
	}
	struct gpu_job *j = calloc(1, sizeof(*j));
	if (!j)
		return -1;
	if (pipe2(j->pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		free(j);
		return -1;
	}
	j->refs = 3;   /* two threads and the main side */
	j->started = mono_s();
	cur = j;
	applied = 0;
	said_late = false;
	spawn(nvml_part, j);
	spawn(cuda_part, j);
	return 0;
}

int gpu_bg_fd(void)
{
	return cur ? cur->pipe[0] : -1;
}

/* Waits until every part is in or ms pass (0: does not wait). */
static int wait_done(int ms)
{
	double end = mono_s() + ms / 1000.0;
	for (;;) {
		pthread_mutex_lock(&job_lock);
		int done = cur->done;
		pthread_mutex_unlock(&job_lock);
		double left = end - mono_s();
		if (done == PART_ALL || left <= 0)
			return done;
		struct pollfd pf = { .fd = cur->pipe[0], .events = POLLIN };
		poll(&pf, 1, (int)(left * 1000) + 1);
		char b[8];
		while (read(cur->pipe[0], b, sizeof(b)) > 0)
			;
	}
}

/* The model from what has arrived: the parts not in are said to be
 * awaited (late: have not answered in GPU_BG_WAIT_MS). */
static void gpu_apply(struct fab_model *m, int done, bool late)
{
	int s = GPU_BG_WAIT_MS / 1000;
	if (done & PART_NVML)
		nvml_install(m, cur->tab, cur->nvml_why);
	else {
		nvml_forget();
		if (late)
			snprintf(m->nvml_status, sizeof(m->nvml_status), _("NVML did not answer within "
				 "%d s (a hung driver or GPU?): NVLink, GPU names and order unknown"), s);
		else
			fab_strlcpy(m->nvml_status, _("waiting for NVML: NVLink, GPU names and order "
				    "come when it answers"), sizeof(m->nvml_status));
	}
	if (done & PART_CUDA) {
		fab_strlcpy(m->cuda_status, cur->cuda, sizeof(m->cuda_status));
		fab_strlcpy(m->nccl_status, cur->nccl, sizeof(m->nccl_status));
	} else {
		const char *w = late ? _("did not answer in time (GPUDirect support unknown)")
				     : _("waiting for the CUDA driver");
		fab_strlcpy(m->cuda_status, w, sizeof(m->cuda_status));
		fab_strlcpy(m->nccl_status, w, sizeof(m->nccl_status));
	}
	m->gpu_pending = done != PART_ALL;
	/* Names from pci.ids only once NVML cannot name them any more. */
	gpu_list_build(m, (done & PART_NVML) || late);
	if (done & PART_CUDA)
		cuda_gpus_apply(m, cur->cuda_gpus);
	applied = done;
	if (done == PART_ALL) {
		job_put(cur);
		cur = NULL;
	}
}

/* NVML, CUDA, the GPUs and their GPUDirect support asked in this thread. */
static int collect_here(const struct fab_root *r, struct fab_model *m)
{
	collect_nvml(r, m);
	collect_cuda(r, m);
	collect_gpus(r, m);
	collect_cuda_gpus(r, m);
	m->gpu_pending = false;
	return 0;
}

int gpu_bg_collect(const struct fab_root *r, struct fab_model *m, int wait_ms)
{
	if (!r->live)   /* a capture replays what it recorded: nothing to wait for */
		return collect_here(r, m);
	if (!cur && gpu_bg_start(r) != 0)   /* no pipe or memory for a job: as before */
		return collect_here(r, m);
	said_late = false;
	int done = wait_done(wait_ms);
	bool late = wait_ms > 0 && done != PART_ALL;
	gpu_apply(m, done, late);
	if (late) {
		said_late = true;
		if (!(done & PART_NVML))
			model_note(m, "nvml", "NVML did not answer within %d s: NVLink, GPU names "
				   "and order are unknown", GPU_BG_WAIT_MS / 1000);
		if (!(done & PART_CUDA))
			model_note(m, "cuda", "the CUDA runtime or driver did not answer within %d s: "
				   "GPUDirect RDMA support is unknown", GPU_BG_WAIT_MS / 1000);
	}
	return 0;
}

int gpu_bg_update(const struct fab_root *r, struct fab_model *m)
{
	if (!r || !r->live || !m->gpu_pending || !cur)
		return 0;
	char b[8];
	while (read(cur->pipe[0], b, sizeof(b)) > 0)
		;
	pthread_mutex_lock(&job_lock);
	int done = cur->done;
	pthread_mutex_unlock(&job_lock);
	bool late = mono_s() - cur->started >= GPU_BG_WAIT_MS / 1000.0;
	if (done == applied && (!late || said_late))
		return 0;
	said_late = said_late || late;
	gpu_apply(m, done, late);
	findings_run(m);
	return 1;
}

bool gpu_bg_asking(void)
{
	if (!cur)
		return false;
	pthread_mutex_lock(&job_lock);
	int done = cur->done;
	pthread_mutex_unlock(&job_lock);
	return done != PART_ALL;
}

int gpu_bg_wait(int ms)
{
	if (!cur)
		return 1;
	return wait_done(ms) == PART_ALL;
}
