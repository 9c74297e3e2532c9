/*
 * verbs.c - each port's active and largest MTU as verbs report them
 * (ibv_query_port), so that IB ports, whose active MTU sysfs does not show,
 * show it. libibverbs is loaded at run time like NVML and CUDA: never linked,
 * absent means "unknown, and why".
 *
 * Live and replay share one path, as uverbs.c and netlink.c do: the live
 * answers become the fabtop/verbs.json document (docs/capture-format.md)
 * and that document is applied to the model, exactly as a capture's copy is.
 *
 * Opening a verbs context and querying a port change nothing on the device
 * (no PD, no QP, no MR); each context is closed at once.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <jansson.h>
#include "fabtop/collect.h"
#include "fabtop/hazard.h"
#include "dl.h"
#include "fabtop/util.h"

/* The words a port's mtu_source carries when verbs answered. */
#define VERBS_MTU_SOURCE "verbs (ibv_query_port)"
/* The most ports one device is asked about (mlx5: one per function). */
#define VERBS_MAX_PORTS 8

/*
 * The exported ibv_query_port (IBVERBS_1.1) takes the old, shorter
 * struct _compat_ibv_port_attr and writes at most that much: verbs.h's
 * inline wrapper hands it a full struct ibv_port_attr the same way, and so
 * does NCCL (src/misc/ibvsymbols.cc, dlvsym "ibv_query_port"
 * "IBVERBS_1.1"). state, max_mtu and active_mtu lead both layouts.
 */
struct vb_syms {
	struct ibv_device **(*get_device_list)(int *);
	void (*free_device_list)(struct ibv_device **);
	const char *(*get_device_name)(struct ibv_device *);
	struct ibv_context *(*open_device)(struct ibv_device *);
	int (*close_device)(struct ibv_context *);
	int (*query_port)(struct ibv_context *, uint8_t, struct _compat_ibv_port_attr *);
};

static const char *const vb_sonames[] = { "libibverbs.so.1", NULL };

/* Resolves one symbol, the IBVERBS_1.1 version first (the one verbs.h
 * binds), then whatever the library's default is. */
static void *vb_sym(void *h, const char *name)
{
	void *p = dlvsym(h, name, "IBVERBS_1.1");
	return p ? p : dlsym(h, name);
}

static void *vb_load(const char *const *sonames, struct vb_syms *s, const char **loaded,
		     char *why, size_t len)
{
	memset(s, 0, sizeof(*s));
	void *h = fab_dlopen_first(sonames, loaded, why, len);
	if (!h)
		return NULL;
	static const char *const names[] = { "ibv_get_device_list", "ibv_free_device_list",
		"ibv_get_device_name", "ibv_open_device", "ibv_close_device", "ibv_query_port" };
	void **slots[] = { (void **)&s->get_device_list, (void **)&s->free_device_list,
		(void **)&s->get_device_name, (void **)&s->open_device,
		(void **)&s->close_device, (void **)&s->query_port };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		*slots[i] = vb_sym(h, names[i]);
		if (!*slots[i]) {
			snprintf(why, len, "not loaded: %s has no %s", *loaded, names[i]);
			memset(s, 0, sizeof(*s));
			dlclose(h);
			return NULL;
		}
	}
	return h;
}

int verbs_mtu_bytes(long long e)
{
	/* enum ibv_mtu: IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5 */
	return e >= IBV_MTU_256 && e <= IBV_MTU_4096 ? 128 << e : 0;
}

/* One device: its ports, or the errno ibv_open_device failed with. */
static json_t *device_json(const struct vb_syms *s, struct ibv_device *dev)
{
	json_t *o = json_object();
	errno = 0;
	struct ibv_context *ctx = s->open_device(dev);
	if (!ctx) {
		int e = errno ? errno : EIO;
		json_object_set_new(o, "open_errno", json_integer(e));
		return o;
	}
	json_object_set_new(o, "open_errno", json_integer(0));
	json_t *ports = json_object();
	for (int p = 1; p <= VERBS_MAX_PORTS; p++) {
		/* Larger than either layout, zeroed: nothing unwritten is read. */
		union {
			struct ibv_port_attr a;
			unsigned char room[512];
		} u;
		memset(&u, 0, sizeof(u));
		errno = 0;
		int rc = s->query_port(ctx, (uint8_t)p, (struct _compat_ibv_port_attr *)&u.a);
		if (rc != 0) {
			/* EINVAL: no such port, the end of the device's ports. */
			int e = rc > 0 ? rc : (errno ? errno : EIO);
			if (e == EINVAL && p > 1)
				break;
			char key[8];
			snprintf(key, sizeof(key), "%d", p);
			json_t *q = json_object();
			json_object_set_new(q, "query_errno", json_integer(e));
			json_object_set_new(ports, key, q);
			break;
		}
		char key[8];
		snprintf(key, sizeof(key), "%d", p);
		json_t *q = json_object();
		json_object_set_new(q, "state", json_integer(u.a.state));
		json_object_set_new(q, "max_mtu", json_integer(verbs_mtu_bytes(u.a.max_mtu)));
		json_object_set_new(q, "active_mtu", json_integer(verbs_mtu_bytes(u.a.active_mtu)));
		json_object_set_new(q, "link_layer", json_integer(u.a.link_layer));
		json_object_set_new(ports, key, q);
	}
	s->close_device(ctx);
	json_object_set_new(o, "ports", ports);
	return o;
}

json_t *verbs_snapshot_json_from(const struct fab_root *r, const char *const *sonames)
{
	json_t *doc = json_object(), *devs = json_object();
	struct vb_syms s;
	const char *loaded = NULL;
	char why[512] = "";
	void *h = vb_load(sonames, &s, &loaded, why, sizeof(why));
	json_object_set_new(doc, "library", loaded && h ? json_string(loaded) : json_null());
	if (!h) {
		json_object_set_new(doc, "error", json_string(why));
		json_object_set_new(doc, "devices", devs);
		return doc;
	}
	int n = 0;
	errno = 0;
	struct ibv_device **list = s.get_device_list(&n);
	if (!list) {
		/* ENOSYS: the kernel has no RDMA (ib_uverbs) support. */
		int e = errno ? errno : EIO;
		snprintf(why, sizeof(why), "ibv_get_device_list failed: %s", strerror(e));
		json_object_set_new(doc, "error", json_string(why));
		json_object_set_new(doc, "list_errno", json_integer(e));
	} else {
		for (int i = 0; i < n && list[i]; i++) {
			const char *name = s.get_device_name(list[i]);
			char hz[256];
			if (!name || !name[0])
				continue;
			/* ibv_query_port makes mlx5 read the registers a management
			 * function refuses (hazard.h): such a device is not opened. */
			if (r && hazard_counters(r, name, hz, sizeof(hz)) == HAZARD_SKIP) {
				json_t *o = json_object();
				json_object_set_new(o, "skipped", json_string(hz));
				json_object_set_new(devs, name, o);
				continue;
			}
			json_object_set_new(devs, name, device_json(&s, list[i]));
		}
		s.free_device_list(list);
	}
	json_object_set_new(doc, "devices", devs);
	dlclose(h);
	return doc;
}

json_t *verbs_snapshot_json(const struct fab_root *r, char *err, size_t errlen)
{
	json_t *doc = verbs_snapshot_json_from(r, vb_sonames);
	if (!doc)
		snprintf(err, errlen, "out of memory");
	return doc;
}

/* --- the document applied to the model ---------------------------------- */

static const char *errno_words(long long e, char *buf, size_t len)
{
	if (e > 0 && e < 4096)
		snprintf(buf, len, "%s", strerror((int)e));
	else
		snprintf(buf, len, "error %lld", e);
	return buf;
}

/* The bytes a JSON value gives, 0 when it is not one of the five MTUs. */
static int mtu_of(json_t *v)
{
	if (!json_is_integer(v))
		return 0;
	long long b = json_integer_value(v);
	for (int e = IBV_MTU_256; e <= IBV_MTU_4096; e++)
		if (b == verbs_mtu_bytes(e))
			return (int)b;
	return 0;
}

/* Why one device has no verbs answer, in words a user can act on. */
static void device_note(struct fab_model *m, const struct fab_nic *n, long long e,
			const char *where)
{
	char w[96];
	errno_words(e, w, sizeof(w));
	if (e == EACCES || e == EPERM)
		model_note(m, "verbs", "%s: ibv_open_device(%s) failed: %s (its /dev/infiniband/%s "
			   "does not open for this user): active MTU from verbs unknown", where,
			   n->name, w, n->uverbs.name[0] ? n->uverbs.name : "uverbsN");
	else if (e == ENOENT || e == ENODEV || e == ENXIO)
		model_note(m, "verbs", "%s: ibv_open_device(%s) failed: %s (no /dev/infiniband/%s "
			   "here: ib_uverbs not loaded, or not passed into this container): active MTU "
			   "from verbs unknown", where, n->name, w,
			   n->uverbs.name[0] ? n->uverbs.name : "uverbsN");
	else
		model_note(m, "verbs", "%s: ibv_open_device(%s) failed: %s: active MTU from verbs "
			   "unknown", where, n->name, w);
}

static void apply_port(struct fab_model *m, const struct fab_nic *n, struct fab_port *pt,
		       json_t *q, const char *where)
{
	json_t *qe = json_object_get(q, "query_errno");
	if (json_is_integer(qe)) {
		char w[96];
		model_note(m, "verbs", "%s: ibv_query_port(%s, %d) failed: %s", where, n->name,
			   pt->num, errno_words(json_integer_value(qe), w, sizeof(w)));
		return;
	}
	int act = mtu_of(json_object_get(q, "active_mtu"));
	int max = mtu_of(json_object_get(q, "max_mtu"));
	if (!act && !max) {
		model_note(m, "verbs", "%s: %s port %d: no MTU verbs know (active_mtu, max_mtu "
			   "missing or not 256..4096)", where, n->name, pt->num);
		return;
	}
	/* Verbs answer for the port itself: they win over the netdev's derivation. */
	if (max)
		pt->max_mtu = fab_int_of(max);
	if (act) {
		pt->active_mtu = fab_int_of(act);
		fab_strlcpy(pt->mtu_source, VERBS_MTU_SOURCE, sizeof(pt->mtu_source));
	}
}

static void apply_doc(struct fab_model *m, json_t *doc, const char *where)
{
	json_t *devs = json_object_get(doc, "devices");
	const char *err = json_string_value(json_object_get(doc, "error"));
	if (!json_is_object(doc) || (!json_is_object(devs) && !err)) {
		model_note(m, "verbs", "%s: no \"devices\" object: active MTU from verbs unknown",
			   where);
		return;
	}
	json_t *le = json_object_get(doc, "list_errno");
	if (err && json_is_integer(le)) {
		/* ENOSYS: the kernel has no RDMA (ib_uverbs) support at all. */
		char w[96];
		model_note(m, "verbs", "%s: libibverbs lists no verbs devices: ibv_get_device_list: "
			   "%s%s: active MTU from verbs unknown", where,
			   errno_words(json_integer_value(le), w, sizeof(w)),
			   json_integer_value(le) == ENOSYS ? " (no ib_uverbs in this kernel)" : "");
		return;
	}
	if (err) {
		/* "not loaded: libibverbs.so.1: cannot open shared object file" */
		model_note(m, "verbs", "%s: libibverbs %s%s: active MTU from verbs unknown", where,
			   err, strncmp(err, "not loaded", 10) == 0 ?
			   " (install rdma-core's libibverbs1)" : "");
		return;
	}
	if (json_object_size(devs) == 0) {
		model_note(m, "verbs", "%s: libibverbs lists no verbs devices (no ib_uverbs, or no "
			   "user-space provider for these HCAs): active MTU from verbs unknown", where);
		return;
	}
	for (int i = 0; i < m->nnics; i++) {
		struct fab_nic *n = &m->nics[i];
		json_t *o = json_object_get(devs, n->name);
		if (!json_is_object(o)) {
			model_note(m, "verbs", "%s: libibverbs does not list %s (no user-space provider "
				   "for its driver %s: rdma-core's lib<provider>-rdmav*.so): active MTU "
				   "from verbs unknown", where, n->name, n->driver[0] ? n->driver : "?");
			continue;
		}
		/* Not opened, on purpose: the model says why (counters_skipped). */
		if (json_is_string(json_object_get(o, "skipped")))
			continue;
		json_t *oe = json_object_get(o, "open_errno");
		if (json_is_integer(oe) && json_integer_value(oe) != 0) {
			device_note(m, n, json_integer_value(oe), where);
			continue;
		}
		json_t *ports = json_object_get(o, "ports");
		for (int k = 0; k < n->nports; k++) {
			char key[8];
			snprintf(key, sizeof(key), "%d", n->ports[k].num);
			json_t *q = json_is_object(ports) ? json_object_get(ports, key) : NULL;
			if (json_is_object(q))
				apply_port(m, n, &n->ports[k], q, where);
		}
	}
}

int collect_verbs(const struct fab_root *r, struct fab_model *m)
{
	if (m->nnics == 0)
		return 0;   /* nothing to ask about: libibverbs is not even loaded */
	if (r->live) {
		char err[128] = "";
		json_t *doc = verbs_snapshot_json(r, err, sizeof(err));
		if (!doc) {
			model_note(m, "verbs", "libibverbs: %s: active MTU from verbs unknown", err);
			return -1;
		}
		apply_doc(m, doc, "verbs");
		json_decref(doc);
		return 0;
	}
	const char *path = "/fabtop/verbs.json";
	if (!root_exists(r, path))
		return 0;   /* an older capture: IB active MTU unknown, as it always was */
	json_error_t je;
	json_t *doc = root_load_json(r, path, &je);
	if (!doc) {
		model_note(m, "verbs", "cannot parse %s: line %d: %s (re-capture it with `fabtop "
			   "capture`): active MTU from verbs unknown", path, je.line, je.text);
		return -1;
	}
	apply_doc(m, doc, path);
	json_decref(doc);
	return 0;
}
