/* host.c - who and when: hostname, kernel, and a capture's meta.json. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "fabtop/collect.h"
#include "sysread.h"
#include "fabtop/util.h"

static void read_meta(const struct fab_root *r, struct fab_model *m)
{
	json_error_t je;
	json_t *meta = root_load_json(r, "/fabtop/meta.json", &je);
	if (!meta) {
		model_note(m, "/fabtop/meta.json", "cannot read the capture's meta.json: %s (line %d)",
			   je.text, je.line);
		return;
	}
	json_t *v;
	if (json_is_string(v = json_object_get(meta, "host")) && !m->host[0])
		fab_strlcpy(m->host, json_string_value(v), sizeof(m->host));
	if (json_is_string(v = json_object_get(meta, "kernel")) && !m->kernel[0])
		fab_strlcpy(m->kernel, json_string_value(v), sizeof(m->kernel));
	if (json_is_integer(v = json_object_get(meta, "time")))
		m->time = json_integer_value(v);
	m->gdr_recorded = json_is_true(json_object_get(meta, "gdr_sysfs"));
	json_decref(meta);
}

/* The files NCCL's net_ib tests for a GPU peer-memory module (gdr.cc,
 * ncclIbGdrSupport: access(F_OK) on each): nv_peer_mem (MLNX_OFED's
 * nv_mem, nv_mem_nc) and the driver's nvidia_peermem, whose
 * MODULE_VERSION makes its version file. */
static const char *const peermem_files[] = {
	"/sys/kernel/mm/memory_peers/nv_mem/version",
	"/sys/kernel/mm/memory_peers/nv_mem_nc/version",
	"/sys/module/nvidia_peermem/version",
	NULL,
};

static void read_peermem(const struct fab_root *r, struct fab_model *m)
{
	struct fab_judged *j = &m->peermem;
	if (!m->gdr_recorded) {
		j->v = FAB_UNKNOWN;
		snprintf(j->why, sizeof(j->why), "this capture did not look for nvidia_peermem "
			 "(made before fabtop recorded it)");
		return;
	}
	for (const char *const *f = peermem_files; *f; f++) {
		int e = sys_presence(r, *f);
		if (e == 0) {
			j->v = FAB_YES;
			snprintf(j->why, sizeof(j->why), "%s exists", *f);
			return;
		}
		if (e != -ENOENT) {
			j->v = FAB_UNKNOWN;
			snprintf(j->why, sizeof(j->why), "cannot tell whether %s exists: %s", *f,
				 strerror(-e));
			return;
		}
	}
	j->v = FAB_NO;
	if (root_exists(r, "/sys/module/nvidia_peermem"))
		snprintf(j->why, sizeof(j->why), "nvidia_peermem is loaded but has no version file, "
			 "which is what NCCL tests");
	else
		snprintf(j->why, sizeof(j->why), "no peer-memory module: nvidia_peermem is not loaded "
			 "(no /sys/module/nvidia_peermem/version, no memory_peers/nv_mem)");
}

int collect_host(const struct fab_root *r, struct fab_model *m)
{
	m->live = r->live;
	fab_strlcpy(m->source, r->name, sizeof(m->source));
	sys_line(r, m, "/proc/sys/kernel/hostname", m->host, sizeof(m->host));
	sys_line(r, m, "/proc/sys/kernel/osrelease", m->kernel, sizeof(m->kernel));
	/* A capture's time is the one it recorded (unknown without it), never this clock's. */
	m->time = r->is_capture ? 0 : (long long)time(NULL);
	m->gdr_recorded = r->live;
	if (r->is_capture)
		read_meta(r, m);
	read_peermem(r, m);
	/* A capture cut short may lack anything: no report on it is "healthy". */
	if (r->warning[0])
		model_note_src(m, FAB_SRC_CAPTURE, "capture", "%s", r->warning);
	return 0;
}
