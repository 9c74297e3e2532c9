/* host.c - who and when: hostname, kernel, and a capture's meta.json. */
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
	json_decref(meta);
}

int collect_host(const struct fab_root *r, struct fab_model *m)
{
	m->live = r->live;
	fab_strlcpy(m->source, r->name, sizeof(m->source));
	sys_line(r, m, "/proc/sys/kernel/hostname", m->host, sizeof(m->host));
	sys_line(r, m, "/proc/sys/kernel/osrelease", m->kernel, sizeof(m->kernel));
	/* A capture's time is the one it recorded (unknown without it), never this clock's. */
	m->time = r->is_capture ? 0 : (long long)time(NULL);
	if (r->is_capture)
		read_meta(r, m);
	/* A capture cut short may lack anything: no report on it is "healthy". */
	if (r->warning[0])
		model_note_src(m, FAB_SRC_CAPTURE, "capture", "%s", r->warning);
	return 0;
}
