/* settings.c - the node's NCCL settings besides a job's own environment
 * (model.settings, collect.h): what `fabtop fleet` and `fabtop diff` set
 * side by side. The variables kept are procfs.c's NCCL table, never a
 * secret-looking name (procfs_env_kind()), whatever the source: a
 * capture's meta.json is outside input and is filtered again. The parsing
 * of nccl.conf is the job step's (job_parse_conf). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fabtop/collect.h"
#include "fabtop/model.h"
#include "fabtop/root.h"
#include "fabtop/util.h"
#include "job.h"
#include "procfs.h"

#define CONF_PATH "/etc/nccl.conf"

static int add(struct fab_model *m, const char *name, const char *value, const char *source)
{
	if (procfs_env_kind(name) != PROCFS_ENV_NCCL)
		return 0;
	struct fab_setting *s = model_add_setting(m);
	fab_strlcpy(s->name, name, sizeof(s->name));
	fab_strlcpy(s->value, value, sizeof(s->value));
	fab_strlcpy(s->source, source, sizeof(s->source));
	return 0;
}

json_t *collect_settings_json(const json_t *env)
{
	json_t *o = json_object();
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)env, k, v)
		if (o && json_is_string(v) && procfs_env_kind(k) == PROCFS_ENV_NCCL)
			json_object_set(o, k, v);
	return o;
}

json_t *collect_settings_env(char *const *envp)
{
	json_t *o = json_object();
	for (char *const *e = envp; o && e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char name[64];
		if (!eq || (size_t)(eq - *e) >= sizeof(name))
			continue;
		memcpy(name, *e, (size_t)(eq - *e));
		name[eq - *e] = '\0';
		if (procfs_env_kind(name) == PROCFS_ENV_NCCL)
			json_object_set_new(o, name, json_string(eq + 1));
	}
	return o;
}

/* /etc/nccl.conf through the root; absent is none, unreadable a note. */
static void read_conf(const struct fab_root *r, struct fab_model *m)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = root_read_alloc(r, CONF_PATH, &buf, &len);
	if (rc == -ENOENT)
		return;
	if (rc != 0) {
		model_note(m, CONF_PATH, "cannot read %s: %s: the node's NCCL settings are not all known",
			   CONF_PATH, root_strerror(-rc));
		m->settings_known = false;
		snprintf(m->settings_why, sizeof(m->settings_why), "cannot read %s: %s", CONF_PATH,
			 root_strerror(-rc));
		return;
	}
	struct fab_job *j = calloc(1, sizeof(*j));
	FILE *f = fmemopen(buf, len, "r");
	if (j && f) {
		job_parse_conf(j, f, CONF_PATH);
		for (int i = 0; i < j->nnccl; i++)
			add(m, j->nccl[i].name, j->nccl[i].value, CONF_PATH);
	}
	if (f)
		fclose(f);
	free(j);
	free(buf);
}

int collect_settings(const struct fab_root *r, struct fab_model *m)
{
	extern char **environ;
	json_t *env = NULL;
	if (r->live) {
		env = collect_settings_env(environ);
	} else {
		json_error_t je;
		json_t *meta = root_load_json(r, "/fabtop/meta.json", &je);
		json_t *e = json_object_get(meta, "env");
		if (json_is_object(e))
			env = collect_settings_json(e);
		json_decref(meta);
	}
	/* A capture that did not record its environment did not look for
	 * nccl.conf either: both unknown, not "none". */
	m->settings_known = env != NULL;
	if (!env) {
		snprintf(m->settings_why, sizeof(m->settings_why), "the capture did not record them");
		return 0;
	}
	const char *k;
	json_t *v;
	json_object_foreach(env, k, v)
		if (json_is_string(v))
			add(m, k, json_string_value(v), "environment");
	json_decref(env);
	/* NCCL lets the environment win over nccl.conf: listed, not merged,
	 * so a diff shows both. */
	read_conf(r, m);
	return 0;
}
