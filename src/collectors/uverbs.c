/*
 * uverbs.c - visible is not usable: an HCA listed in /sys/class/infiniband
 * can only be used through its verbs device node, /dev/infiniband/uverbsN,
 * which must exist in this mount namespace and open read-write for this
 * user (a pod without the RDMA device plugin sees the first, not the second).
 *
 * Live and replay share one path, as netlink.c does: the live /dev is first
 * turned into the fabtop/devices.json document (docs/capture-format.md):
 *   { "uverbs": { "uverbs0": { "present": true, "open_errno": 0 } } }
 * and that document is applied to the model, exactly as a capture's copy is.
 * A node missing from the map does not exist.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "fabtop/collect.h"
#include "sysread.h"
#include "fabtop/util.h"

#define DEV_DIR "/dev/infiniband"

/* stat, then open read-write and close at once: opening creates no verbs
 * context and changes nothing; its errno is what a verbs user would get. */
static json_t *node_json(const char *path)
{
	struct stat st;
	json_t *o = json_object();
	bool present = stat(path, &st) == 0;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	int e = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	json_object_set_new(o, "present", json_boolean(present));
	json_object_set_new(o, "open_errno", json_integer(e));
	return o;
}

json_t *uverbs_snapshot_json(char *err, size_t errlen)
{
	json_t *doc = json_object(), *map = json_object();
	json_object_set_new(doc, "uverbs", map);
	DIR *d = opendir(DEV_DIR);
	if (!d) {
		if (errno == ENOENT)
			return doc;   /* no verbs device nodes here at all */
		snprintf(err, errlen, "cannot list %s: %s", DEV_DIR, strerror(errno));
		json_decref(doc);
		return NULL;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		char p[PATH_MAX];
		if (strncmp(de->d_name, "uverbs", 6) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", DEV_DIR, de->d_name);
		json_object_set_new(map, de->d_name, node_json(p));
	}
	closedir(d);
	return doc;
}

/* The uverbsN of each HCA, from /sys/class/infiniband_verbs/uverbsN/ibdev. */
static void map_names(const struct fab_root *r, struct fab_model *m)
{
	char **names;
	int n = root_list(r, "/sys/class/infiniband_verbs", &names);
	if (n < 0) {
		if (n != -ENOENT)
			sys_note_errno(m, "/sys/class/infiniband_verbs", -n);
		return;
	}
	for (int i = 0; i < n; i++) {
		char ibdev[FAB_NAME_LEN];
		if (strncmp(names[i], "uverbs", 6) != 0 || strlen(names[i]) >= sizeof(m->nics[0].uverbs.name))
			continue;
		if (sys_linef(r, m, ibdev, sizeof(ibdev), "/sys/class/infiniband_verbs/%s/ibdev",
			      names[i]) != 0)
			continue;
		int k = model_find_nic(m, ibdev);
		if (k != FAB_NO_INDEX)
			fab_strlcpy(m->nics[k].uverbs.name, names[i], sizeof(m->nics[k].uverbs.name));
	}
	root_free_list(names, n);
}

static void apply_doc(struct fab_model *m, json_t *doc, const char *where)
{
	json_t *map = json_object_get(doc, "uverbs");
	if (!json_is_object(map)) {
		model_note(m, "uverbs", "%s: no \"uverbs\" object; whether the HCAs are usable "
			   "here is unknown", where);
		return;
	}
	for (int i = 0; i < m->nnics; i++) {
		struct fab_uverbs *u = &m->nics[i].uverbs;
		if (!u->name[0])
			continue;   /* no verbs device known for it: usability unknown */
		json_t *o = json_object_get(map, u->name);
		json_t *e = json_object_get(o, "open_errno");
		if (!json_is_object(o)) {
			/* Not in /dev/infiniband here: opening it fails so. */
			u->present = false;
			u->open_errno = fab_int_of(ENOENT);
			continue;
		}
		u->present = json_is_true(json_object_get(o, "present"));
		u->open_errno = json_is_integer(e) ? fab_int_of(json_integer_value(e))
						   : (fab_int){ 0, false };
	}
}

int collect_uverbs(const struct fab_root *r, struct fab_model *m)
{
	char err[512] = "";
	if (m->nnics == 0)
		return 0;
	map_names(r, m);
	if (r->live) {
		json_t *doc = uverbs_snapshot_json(err, sizeof(err));
		if (!doc) {
			model_note(m, DEV_DIR, "%s: whether the HCAs are usable here is unknown", err);
			return -1;
		}
		apply_doc(m, doc, DEV_DIR);
		json_decref(doc);
		return 0;
	}
	if (!root_exists(r, "/fabtop/devices.json")) {
		model_note(m, "uverbs", "this capture does not record /dev/infiniband (made by an "
			   "older fabtop): usability unknown");
		return 0;
	}
	const char *path = "/fabtop/devices.json";
	json_error_t je;
	json_t *doc = root_load_json(r, path, &je);
	if (!doc) {
		model_note(m, "uverbs", "cannot parse %s: line %d: %s (re-capture it with "
			   "`fabtop capture`): usability unknown", path, je.line, je.text);
		return -1;
	}
	apply_doc(m, doc, path);
	json_decref(doc);
	return 0;
}
