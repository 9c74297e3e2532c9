/*
 * capture.c - `fabtop capture`: copies the part of a node that fabtop reads
 * into the capture format (docs/capture-format.md), then packs it into the
 * output, which only capture_file.c opens and puts in place. This file
 * runs the parts in order (sysfs walk, fabtop/ snapshots, NCCL processes,
 * counter samples) and writes meta.json; see capture_int.h for the parts.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fab_archive.h"
#include "fabtop/capture.h"
#include "fabtop/nodedoc.h"
#include "fabtop/collect.h"
#include "fabtop/dcb.h"
#include "fabtop/model.h"
#include "fabtop/root.h"
#include "capture_int.h"
#include "memtree.h"
#include "fabtop/sanitize.h"
#include "fabtop/util.h"

#ifndef FABTOP_VERSION
#define FABTOP_VERSION "0.0.0"
#endif

static void on_signal(int sig)
{
	cap_signal_seen = sig;
}

/* ---- fabtop/ files ---- */

/* Copies a fabtop/ file of a capture source, when it has one, up to the
 * size its reader takes (root_file_cap(): samples.json, hwloc.xml grow
 * with the node). */
static void carry_file(struct cap *c, const char *node)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = root_read_alloc(&c->src, node, &buf, &len);
	if (rc == 0)
		cap_out_write(c, node, buf, len);
	else if (rc != -ENOENT)
		fab_fprintf(c->log, "fabtop: cannot copy %s of the source: %s\n", node,
			rc == -EFBIG ? "larger than its reader takes" : root_strerror(-rc));
	free(buf);
}

static void line_of(struct cap *c, const char *node_path, char *buf, size_t len)
{
	ssize_t n = cap_src_read(c, node_path, buf, len);
	if (n < 0)
		n = 0;
	buf[n < (ssize_t)len ? n : (ssize_t)len - 1] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static void write_meta(struct cap *c, const struct capture_opts *o, long long now,
		       int procs_unreadable)
{
	char host[256], kernel[256];
	line_of(c, "/proc/sys/kernel/hostname", host, sizeof(host));
	line_of(c, "/proc/sys/kernel/osrelease", kernel, sizeof(kernel));
	json_t *m = json_object();
	json_object_set_new(m, "format", json_integer(1));
	json_object_set_new(m, "fabtop", json_string(FABTOP_VERSION));
	json_object_set_new(m, "host", json_string(host));
	json_object_set_new(m, "kernel", json_string(kernel));
	json_object_set_new(m, "time", json_integer(now));
	json_object_set_new(m, "uid", json_integer((json_int_t)getuid()));
	json_object_set_new(m, "samples", json_integer(o->samples));
	json_object_set_new(m, "interval", json_real(o->interval));
	/* fabtop/report.json is this build's judgement (nodedoc.h). */
	char id[64];
	fab_build_id(id, sizeof(id));
	json_object_set_new(m, "report_build", json_string(id));
	if (c->src.live) {
		struct fab_model tm;
		model_init(&tm);
		collect_nvml(&c->src, &tm);
		collect_cuda(&c->src, &tm);
		json_object_set_new(m, "nvml", json_string(tm.nvml_status));
		json_object_set_new(m, "cuda", json_string(tm.cuda_status));
		json_object_set_new(m, "nccl", json_string(tm.nccl_status));
		model_free(&tm);
		json_object_set_new(m, "procs_unreadable", json_integer(procs_unreadable));
		/* The peer-memory and IOMMU files were looked for: absent means absent. */
		json_object_set_new(m, "gdr_sysfs", json_true());
		/* The NCCL settings a job here inherits (collect_settings):
		 * only the NCCL table's names, no secret-looking one. */
		extern char **environ;
		json_object_set_new(m, "env", collect_settings_env(environ));
	} else {
		/* A capture of a capture keeps what the first one knew. */
		json_error_t je;
		json_t *sm = root_load_json(&c->src, "/fabtop/meta.json", &je);
		static const char *const keep[] = { "nvml", "cuda", "nccl", "env", NULL };
		for (const char *const *k = keep; *k; k++) {
			json_t *v = sm ? json_object_get(sm, *k) : NULL;
			if (json_is_string(v))
				json_object_set(m, *k, v);
			else if (json_is_object(v) && strcmp(*k, "env") == 0)
				json_object_set_new(m, *k, collect_settings_json(v));
		}
		if (sm && json_is_true(json_object_get(sm, "gdr_sysfs")))
			json_object_set_new(m, "gdr_sysfs", json_true());
		json_decref(sm);
	}
	json_object_set_new(m, "demo", json_false());
	json_object_set_new(m, "description", json_string(""));
	cap_out_json(c, "/fabtop/meta.json", m);
	json_decref(m);
}

/* fabtop/dcb.json: DCB netlink asked for the RoCE ports' netdevs, which
 * the sysfs collectors find (dcb.h). */
static json_t *capture_dcb_json(struct cap *c, char *err, size_t len)
{
	struct fab_model tm;
	model_init(&tm);
	collect_pci_sysfs(&c->src, &tm);
	collect_net(&c->src, &tm);
	collect_rdma(&c->src, &tm);
	json_t *j = dcb_snapshot_json(&tm, err, len);
	model_free(&tm);
	return j;
}

static void write_live_extras(struct cap *c)
{
	char err[512] = "", *xml;
	size_t xlen;
	if (collect_hwloc_xml(&xml, &xlen, err, sizeof(err)) != 0) {
		fab_fprintf(c->log, "fabtop: no hwloc.xml: %s\n", err);
	} else {
		cap_out_write(c, "/fabtop/hwloc.xml", xml, xlen);
		free(xml);
	}
	err[0] = '\0';
	json_t *j = netlink_snapshot_json(err, sizeof(err));
	if (j) {
		cap_out_json(c, "/fabtop/netlink.json", j);
		json_decref(j);
	} else {
		fab_fprintf(c->log, "fabtop: no netlink.json: %s\n", err);
	}
	err[0] = '\0';
	j = capture_dcb_json(c, err, sizeof(err));
	if (j) {
		cap_out_json(c, "/fabtop/dcb.json", j);
		json_decref(j);
	} else {
		fab_fprintf(c->log, "fabtop: no dcb.json (PFC and trust from DCB netlink will be "
			    "unknown): %s\n", err);
	}
	err[0] = '\0';
	j = uverbs_snapshot_json(err, sizeof(err));
	if (j) {
		cap_out_json(c, "/fabtop/devices.json", j);
		json_decref(j);
	} else {
		fab_fprintf(c->log, "fabtop: no devices.json: %s\n", err);
	}
	err[0] = '\0';
	j = verbs_snapshot_json(&c->src, err, sizeof(err));
	if (j) {
		cap_out_json(c, "/fabtop/verbs.json", j);
		json_decref(j);
	} else {
		fab_fprintf(c->log, "fabtop: no verbs.json: %s\n", err);
	}
	err[0] = '\0';
	j = cuda_gpus_snapshot_json(err, sizeof(err));
	if (j) {
		cap_out_json(c, "/fabtop/cuda.json", j);
		json_decref(j);
	} else if (err[0]) {
		fab_fprintf(c->log, "fabtop: no cuda.json: %s\n", err);
	}
	err[0] = '\0';
	j = nvml_snapshot_json(err, sizeof(err));
	if (j) {
		cap_out_json(c, "/fabtop/nvml.json", j);
		json_decref(j);
	} else if (err[0]) {
		fab_fprintf(c->log, "fabtop: no nvml.json: %s\n", err);
	}
}

/* fabtop/report.json: the capture as `report all --json` judges it, made
 * from what was written (so it is what --root would say), for fleet and
 * diff to read from the tarball's head. Without it they collect the
 * capture instead: a capture is whole without it. */
static void embed_report(struct cap *c, const char *output, const char *top)
{
	struct fab_root r;
	char err[1024], name[256];
	json_t *doc = NULL;
	/* Named as --root will name the capture. */
	root_name_of(strcmp(output, "-") ? output : top, name, sizeof(name));
	/* A root over the capture's own tree in memory. It owns the tree
	 * while open; the tree is taken back before it is closed. */
	struct memtree *t = c->mt;
	c->mt = NULL;
	if (root_open_memtree(&r, t, name, err, sizeof(err)) != 0) {
		cap_fatal(c, "cannot read back the capture: %s", err);   /* t is freed */
		return;
	}
	if (nodedoc_make(&r, &doc, err, sizeof(err)) != 0)
		doc = NULL;
	c->mt = r.mem;
	r.mem = NULL;
	root_close(&r);
	if (doc) {
		json_object_set_new(doc, "source", json_string(name));
		cap_out_json(c, "/fabtop/report.json", doc);
		json_decref(doc);
	} else {
		fab_fprintf(c->log, "fabtop: the capture holds no report of its own (%s): "
			    "fabtop fleet and diff will collect it instead\n", err);
	}
}

/* Starts unreadable.tsv with what a capture source already recorded. */
static void carry_unreadable(struct cap *c)
{
	char *buf = NULL;
	size_t len = 0;
	if (root_read_alloc(&c->src, "/fabtop/unreadable.tsv", &buf, &len) != 0)
		return;
	for (char *line = buf, *next; line < buf + len; line = next) {
		char *nl = memchr(line, '\n', (size_t)(buf + len - line));
		next = nl ? nl + 1 : buf + len;
		if (line[0] == '/' && memchr(line, '\t', (size_t)(next - line))) {
			fwrite(line, 1, (size_t)(next - line), c->unreadable);
			if (!nl)
				fputc('\n', c->unreadable);
			c->nunreadable++;
		}
	}
	free(buf);
}

/* "<host>-<YYYYmmddTHHMMSS>" (UTC), with the host made safe for a file name. */
static void top_name(struct cap *c, time_t now, char *out, size_t len)
{
	char host[128];
	line_of(c, "/proc/sys/kernel/hostname", host, sizeof(host));
	if (!host[0] && gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	for (char *h = host; *h; h++)
		if (!((*h >= 'a' && *h <= 'z') || (*h >= 'A' && *h <= 'Z') ||
		      (*h >= '0' && *h <= '9') || *h == '-' || *h == '_' || *h == '.'))
			*h = '_';
	struct tm tm;
	char ts[32];
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%S", &tm);
	snprintf(out, len, "%s-%s", host[0] && host[0] != '.' ? host : "node", ts);
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return false;
	struct dirent *de;
	bool empty = true;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

static double mono_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

int capture_run(const struct capture_opts *o, FILE *log)
{
	struct cap c = { .log = log ? log : stderr };
	char err[2 * PATH_MAX] = "", top[256], defout[512], outdir[PATH_MAX] = "";
	const char *output = o->output;
	bool to_dir, made_dir = false, dest_open = false;
	struct cap_dest dest;
	int rc = 2;
	double t0 = mono_now();
	time_t now = time(NULL);

	if (o->samples < 0 || !isfinite(o->interval) || o->interval < 0 ||
	    (o->samples > 1 && o->interval * o->samples > 86400)) {
		fprintf(c.log, "fabtop: capture: bad --samples %d / --interval %g "
			"(samples >= 0, interval in seconds >= 0, one day at most)\n",
			o->samples, o->interval);
		return 2;
	}
	if (root_open(&c.src, o->src_root, err, sizeof(err)) != 0) {
		fab_fprintf(c.log, "fabtop: capture: %s (give a directory in capture format, or none for this node)\n",
			err);
		return 2;
	}
	if (c.src.warning[0])
		fab_fprintf(c.log, "fabtop: capture: source: %s\n", c.src.warning);
	c.buf = malloc(CAP_MAX_FILE + 2);
	c.mt = memtree_new();
	c.unreadable = open_memstream(&c.unreadable_buf, &c.unreadable_len);
	if (!c.buf || !c.mt || !c.unreadable) {
		fprintf(c.log, "fabtop: capture: out of memory\n");
		if (c.unreadable)
			fclose(c.unreadable);
		free(c.unreadable_buf);
		memtree_free(c.mt);
		free(c.buf);
		root_close(&c.src);
		return 2;
	}
	/* Ctrl-C during a long --samples run: stop, and write nothing (the
	 * output's .part file is removed). Over the root's own handler too
	 * (a tarball source): the run ends through root_close(). A stream's
	 * reader that goes away (SIGPIPE) is a write error, cleaned up the
	 * same way, not a death that leaves a .part file. */
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct sigaction sa = { .sa_handler = on_signal }, ign = { .sa_handler = SIG_IGN }, old_sa[4];
	bool installed[4] = { false, false, false, false };
	sigemptyset(&sa.sa_mask);
	sigemptyset(&ign.sa_mask);
	cap_signal_seen = 0;
	for (int i = 0; i < 4; i++)
		if (sigaction(sigs[i], NULL, &old_sa[i]) == 0 && old_sa[i].sa_handler != SIG_IGN)
			installed[i] = sigaction(sigs[i], sigs[i] == SIGPIPE ? &ign : &sa, NULL) == 0;
	top_name(&c, now, top, sizeof(top));
	if (!output || !*output) {
		snprintf(defout, sizeof(defout), "%s.tar.gz", top);
		output = defout;
	}
	to_dir = output[strlen(output) - 1] == '/';

	if (to_dir) {
		fab_strlcpy(outdir, output, sizeof(outdir));
		size_t l = strlen(outdir);
		while (l > 1 && outdir[l - 1] == '/')
			outdir[--l] = '\0';
		struct stat st;
		made_dir = lstat(outdir, &st) != 0;
		/* Files are written inside it by name: a folder that is a link,
		 * or that someone else may write to, could send them elsewhere. */
		if (!made_dir && (S_ISLNK(st.st_mode) || (S_ISDIR(st.st_mode) &&
		    (st.st_uid != geteuid() || (st.st_mode & 022))))) {
			snprintf(err, sizeof(err), "%s is %s: refused (choose a new directory; fabtop "
				 "creates it)", output, S_ISLNK(st.st_mode) ? "a symbolic link" :
				 st.st_uid != geteuid() ? "another user's directory" :
				 "a directory others may write to");
			goto out;
		}
		/* Made now, so that a bad -o fails before the walk. */
		if (cap_mkdir_p(outdir, 0755) != 0) {
			snprintf(err, sizeof(err), "cannot create %s: %s (choose a writable -o path)",
				 output, strerror(errno));
			goto out;
		}
		if (!made_dir && !dir_empty(outdir)) {
			snprintf(err, sizeof(err), "%s is not empty (choose a new or empty directory)",
				 output);
			goto out;
		}
	} else {
		/* Fail now, not after the walk, when the output cannot be written. */
		if (cap_dest_open(&dest, output, o->force, err, sizeof(err)) != 0)
			goto out;
		dest_open = true;
	}

	fab_fprintf(c.log, "fabtop: capturing %s into %s\n",
		c.src.live ? "this node" : o->src_root, strcmp(output, "-") ? output : "standard output");
	cap_out_dir(&c, "/fabtop");
	carry_unreadable(&c);

	cap_copy_sysfs(&c);
	if (c.hazards && !c.err[0])
		cap_out_json(&c, "/fabtop/hazards.json", c.hazards);
	fprintf(c.log, "fabtop: copied %d file(s) and %d link(s), %lld bytes; %d unreadable "
		"file(s) listed in fabtop/unreadable.tsv\n", c.files, c.links, c.bytes, c.nunreadable);
	if (c.toobig)
		fprintf(c.log, "fabtop: %d file(s) over 1 MiB were not copied\n", c.toobig);

	int procs_unreadable = 0;
	if (!c.err[0] && c.src.live) {
		write_live_extras(&c);
		procs_unreadable = capture_procs(&c);
	} else if (!c.err[0]) {
		static const char *const carried[] = { "/fabtop/hwloc.xml", "/fabtop/netlink.json",
			"/fabtop/nvml.json", "/fabtop/cuda.json", "/fabtop/devices.json",
			"/fabtop/dcb.json", "/fabtop/verbs.json", NULL };
		for (const char *const *f = carried; *f; f++)
			carry_file(&c, *f);
		/* Its recorded counters too, unless new samples are taken. */
		if (o->samples <= 0)
			carry_file(&c, "/fabtop/samples.json");
	}
	if (!c.err[0])
		capture_qp(&c);
	if (!c.err[0])
		capture_ras(&c, o->ras, o->window);
	if (!c.err[0])
		write_meta(&c, o, (long long)now, procs_unreadable);
	if (!c.err[0] && o->samples > 0)
		cap_take_samples(&c, o->samples, o->interval);
	if (fclose(c.unreadable) != 0)
		cap_fatal(&c, "cannot keep fabtop/unreadable.tsv: %s", strerror(errno));
	c.unreadable = NULL;
	if (!c.err[0])
		cap_out_write(&c, "/fabtop/unreadable.tsv", c.unreadable_buf, c.unreadable_len);
	if (!c.err[0])
		embed_report(&c, output, top);
	cap_stopped(&c);
	if (c.err[0]) {
		snprintf(err, sizeof(err), "%s%s", c.err, cap_signal_seen ? "; nothing was written" : "");
		goto out;
	}

	/* The one pass: the members from memory, in archive order. */
	if (to_dir) {
		if (memtree_write_dir(c.mt, outdir, err, sizeof(err)) != 0) {
			size_t l = strlen(err);
			snprintf(err + l, sizeof(err) - l, " (check the free space and permissions "
				 "of the -o folder)");
			goto out;
		}
	} else {
		if (memtree_write_archive(c.mt, top, dest.fd, output, (long long)now,
					  err, sizeof(err)) != 0) {
			size_t l = strlen(err);
			if (dest.how == CAP_DEST_STREAM)
				snprintf(err + l, sizeof(err) - l, " (what was streamed so far is cut short)");
			goto out;
		}
		/* A signal while it was written: nothing is put in place. */
		if (cap_stopped(&c)) {
			snprintf(err, sizeof(err), "%s; nothing was written", c.err);
			goto out;
		}
		if (cap_dest_commit(&dest, err, sizeof(err)) != 0)
			goto out;
		dest_open = false;
	}
	fab_fprintf(c.log, "fabtop: wrote %s", strcmp(output, "-") ? output : "the capture to standard output");
	if (!to_dir && dest.how != CAP_DEST_STREAM)
		fprintf(c.log, " (%lld bytes)", dest.size);
	else if (!to_dir)
		fprintf(c.log, " (streamed in place)");
	fprintf(c.log, " in %.2f s\n", mono_now() - t0);
	rc = 0;
out:
	if (rc != 0)
		fab_fprintf(c.log, "fabtop: capture failed: %s\n", err);
	if (c.unreadable)
		fclose(c.unreadable);
	free(c.unreadable_buf);
	if (dest_open)
		cap_dest_abort(&dest);
	if (rc != 0 && made_dir)
		fab_rmtree(outdir);
	memtree_free(c.mt);
	for (size_t i = 0; i < c.nvisited; i++)
		free(c.visited[i]);
	free(c.visited);
	free(c.buf);
	json_decref(c.hazards);
	root_close(&c.src);
	for (int i = 0; i < 4; i++)
		if (installed[i])
			sigaction(sigs[i], &old_sa[i], NULL);
	return rc;
}
