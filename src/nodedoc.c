/* nodedoc.c - one node as its `report all --json` document (see nodedoc.h). */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "beneath.h"
#include "fabtop/collect.h"
#include "fabtop/hazard.h"
#include "fabtop/model.h"
#include "fabtop/i18n.h"
#include "fabtop/nodedoc.h"
#include "fabtop/report.h"
#include "fabtop/root.h"
#include "fabtop/util.h"

/* The members a capture tarball holds first (archive.c packs them ahead of
 * the rest): the top folder, fabtop/, then these. A reader that has not met
 * report.json within this many headers stops: the capture has none. */
#define HEAD_ENTRIES 6

static bool ends_with(const char *s, const char *suffix)
{
	size_t l = strlen(s), k = strlen(suffix);
	return l >= k && strcmp(s + l - k, suffix) == 0;
}

static bool is_tarball(const char *p)
{
	return ends_with(p, ".tar.gz") || ends_with(p, ".tgz");
}

/* A report all --json object, as far as fleet and diff stand on it. */
static bool is_report(const json_t *d)
{
	return json_is_object(d) && json_is_string(json_object_get(d, "verdict")) &&
	       json_is_array(json_object_get(d, "nics")) && json_is_object(json_object_get(d, "topology"));
}

/* The stream's text into a JSON document; fp is closed. */
static json_t *stream_json(FILE *fp, char **buf, size_t *len, char *err, size_t errlen)
{
	if (fclose(fp) != 0) {
		snprintf(err, errlen, "cannot hold the report in memory: %s", strerror(errno));
		free(*buf);
		*buf = NULL;
		return NULL;
	}
	json_error_t je;
	json_t *d = json_loadb(*buf, *len, 0, &je);
	free(*buf);
	*buf = NULL;
	if (!d)
		snprintf(err, errlen, "the report is not JSON (%s)", je.text);
	return d;
}

static int make_doc(const struct fab_root *r, json_t **doc, char *err, size_t errlen);

int nodedoc_make(const struct fab_root *r, json_t **doc, char *err, size_t errlen)
{
	bool was_on = fab_i18n_suspend();
	int rc = make_doc(r, doc, err, errlen);
	fab_i18n_restore(was_on);
	return rc;
}

/* The document is data for a machine (fleet, diff compare its values):
 * English, whatever the console shows, as every JSON is (i18n.h). */
static int make_doc(const struct fab_root *r, json_t **doc, char *err, size_t errlen)
{
	struct fab_model m;
	char *buf = NULL;
	size_t len = 0;
	*doc = NULL;
	model_init(&m);
	collect_all(r, &m);
	FILE *fp = open_memstream(&buf, &len);
	if (!fp) {
		model_free(&m);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	report_run("all", true, fp, &m);
	json_t *d = stream_json(fp, &buf, &len, err, errlen);
	if (d && !r->live && root_exists(r, "/fabtop/samples.json")) {
		/* Played back at full speed: what grew on this node, and what did not. */
		struct counters_opts co = { .json = true };
		char *lbuf = NULL;
		size_t llen = 0;
		FILE *log = open_memstream(&lbuf, &llen);
		fp = log ? open_memstream(&buf, &len) : NULL;
		if (fp) {
			report_counters(r, &m, &co, fp, log);
			json_t *c = stream_json(fp, &buf, &len, err, errlen);
			/* A capture whose samples cannot be played back still has
			 * its snapshot: the document just lacks "counters". */
			if (c) {
				/* The report's own summary (what grew) is what a
				 * comparison needs; every sample would make a
				 * document of megabytes. */
				json_object_del(c, "samples");
				json_object_set_new(d, "counters", c);
			}
			err[0] = '\0';
		}
		if (log)
			fclose(log);
		free(lbuf);
	}
	model_free(&m);
	if (!d)
		return -1;
	*doc = d;
	return 0;
}


/* Reads at most max bytes of the current member into a NUL-terminated buffer. */
static char *member_text(struct archive *a, la_int64_t size, size_t max)
{
	if (size < 0 || (unsigned long long)size > max)
		return NULL;
	char *b = malloc((size_t)size + 1);
	if (!b)
		return NULL;
	la_ssize_t n = archive_read_data(a, b, (size_t)size);
	if (n != size) {
		free(b);
		return NULL;
	}
	b[n] = '\0';
	return b;
}

/* The head of a capture tarball: fabtop/meta.json and fabtop/report.json
 * among its first members, under the first member's top folder. Only the
 * head is decompressed. Returns the report when both are there and meta
 * names this build; else NULL with why set. */
static json_t *tarball_head(const char *path, char *why, size_t len)
{
	struct archive *a = archive_read_new();
	archive_read_support_filter_gzip(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, path, 16384) != ARCHIVE_OK) {
		snprintf(why, len, "%s", archive_error_string(a) ? archive_error_string(a) : "cannot open");
		archive_read_free(a);
		return NULL;
	}
	char top[256] = "", *meta = NULL, *report = NULL;
	struct archive_entry *e;
	for (int i = 0; i < HEAD_ENTRIES && !report; i++) {
		if (archive_read_next_header(a, &e) != ARCHIVE_OK)
			break;
		const char *name = archive_entry_pathname(e);
		if (!name)
			break;
		size_t tl = strcspn(name, "/");
		if (i == 0) {
			if (tl >= sizeof(top))
				break;
			memcpy(top, name, tl);
			top[tl] = '\0';
		}
		if (strncmp(name, top, tl) || tl != strlen(top) || name[tl] != '/')
			continue;
		const char *rel = name + tl + 1;
		if (strcmp(rel, "fabtop/meta.json") == 0 && !meta)
			meta = member_text(a, archive_entry_size(e), ROOT_MAX_FILE);
		else if (strcmp(rel, "fabtop/report.json") == 0 && meta)
			report = member_text(a, archive_entry_size(e), NODEDOC_MAX_JSON);
	}
	archive_read_free(a);
	json_t *d = NULL;
	if (!meta || !report) {
		snprintf(why, len, "the capture holds no report of its own (made before captures carried their report)");
	} else {
		json_t *mj = json_loads(meta, 0, NULL);
		char id[64];
		fab_build_id(id, sizeof(id));
		const char *b = json_string_value(json_object_get(mj, "report_build"));
		if (!b || !*id || strcmp(b, id) != 0)
			snprintf(why, len, "its report was made by another fabtop build");
		else if (!is_report(d = json_loads(report, 0, NULL))) {
			json_decref(d);
			d = NULL;
			snprintf(why, len, "its report is not a report all --json document");
		}
		json_decref(mj);
	}
	free(meta);
	free(report);
	return d;
}

/* The same for a capture directory, read beneath it (no link out). */
static json_t *dir_head(const char *path, char *why, size_t len)
{
	struct fab_root r;
	char err[512];
	/* A directory root is opened for its two files only: root_open()
	 * checks the tree once, which is what keeps these reads inside. */
	if (root_open(&r, path, err, sizeof(err)) != 0) {
		snprintf(why, len, "%s", err);
		return NULL;
	}
	json_error_t je;
	json_t *mj = root_load_json(&r, "/fabtop/meta.json", &je), *d = NULL;
	char id[64];
	fab_build_id(id, sizeof(id));
	const char *b = json_string_value(json_object_get(mj, "report_build"));
	if (!b)
		snprintf(why, len, "the capture holds no report of its own (made before captures carried their report)");
	else if (!*id || strcmp(b, id) != 0)
		snprintf(why, len, "its report was made by another fabtop build");
	else if (!is_report(d = root_load_json(&r, "/fabtop/report.json", &je))) {
		json_decref(d);
		d = NULL;
		snprintf(why, len, "its report is missing or not a report all --json document");
	}
	json_decref(mj);
	root_close(&r);
	return d;
}

static int collect_doc(const char *spec, struct nodedoc *nd, char *err, size_t len)
{
	struct fab_root r;
	char e[1024];
	if (root_open(&r, spec, e, sizeof(e)) != 0) {
		snprintf(err, len, "%s", e);
		return -1;
	}
	int rc = nodedoc_make(&r, &nd->doc, e, sizeof(e));
	if (rc != 0)
		snprintf(err, len, "%s: %s", nd->name, e);
	nd->how = NODEDOC_COLLECTED;
	root_close(&r);
	return rc;
}

static int load_json(const char *path, struct nodedoc *nd, char *err, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, len, "%s: %s", nd->name, fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((unsigned long long)st.st_size > NODEDOC_MAX_JSON) {
		snprintf(err, len, "%s: %lld bytes, over the %u a report may have", nd->name,
			 (long long)st.st_size, NODEDOC_MAX_JSON);
		close(fd);
		return -1;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		snprintf(err, len, "%s: %s", nd->name, strerror(errno));
		return -1;
	}
	json_error_t je;
	json_t *d = json_loadf(f, 0, &je);
	fclose(f);
	if (!d) {
		snprintf(err, len, "%s: not JSON (line %d: %s)", nd->name, je.line, je.text);
		return -1;
	}
	if (!is_report(d)) {
		json_decref(d);
		snprintf(err, len, "%s: not a `fabtop report all --json` document", nd->name);
		return -1;
	}
	nd->doc = d;
	nd->how = NODEDOC_JSON;
	return 0;
}

int nodedoc_load(const char *path, struct nodedoc *nd, char *err, size_t len)
{
	memset(nd, 0, sizeof(*nd));
	err[0] = '\0';
	if (!path) {
		snprintf(nd->name, sizeof(nd->name), "this node");
		return collect_doc(NULL, nd, err, len);
	}
	fab_strlcpy(nd->name, fab_base_name(path), sizeof(nd->name));
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode) && ends_with(path, ".json"))
		return load_json(path, nd, err, len);
	if ((S_ISREG(st.st_mode) && is_tarball(path)) || S_ISDIR(st.st_mode)) {
		/* The embedded report read every device's counters the capture
		 * holds: --exclude-dev asks for a report made without some. */
		if (hazard_exclude_any()) {
			snprintf(nd->why, sizeof(nd->why), "--exclude-dev: collected without those devices");
			return collect_doc(path, nd, err, len);
		}
	}
	if (S_ISREG(st.st_mode) && is_tarball(path))
		nd->doc = tarball_head(path, nd->why, sizeof(nd->why));
	else if (S_ISDIR(st.st_mode))
		nd->doc = dir_head(path, nd->why, sizeof(nd->why));
	else {
		snprintf(err, len, "%s: not a capture (FILE.tar.gz or a directory) or a report (.json)", path);
		return -1;
	}
	if (nd->doc) {
		/* Made from the capture's staging folder: named now after what
		 * was opened, as --root names it. */
		char src[256];
		root_name_of(path, src, sizeof(src));
		json_object_set_new(nd->doc, "source", json_string(src));
		nd->how = NODEDOC_EMBEDDED;
		return 0;
	}
	return collect_doc(path, nd, err, len);
}

const char *nodedoc_how_word(enum nodedoc_how how)
{
	return how == NODEDOC_EMBEDDED ? "embedded" : how == NODEDOC_COLLECTED ? "collected" : "json";
}

void nodedoc_free(struct nodedoc *nd)
{
	json_decref(nd->doc);
	nd->doc = NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int nodedoc_list(const char *dir, char ***paths, size_t *n, char *err, size_t len)
{
	*paths = NULL;
	*n = 0;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		snprintf(err, len, "%s: %s", dir, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	size_t cap = 0;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		struct stat st;
		if (nm[0] == '.')
			continue;
		/* lstat: an entry that is a link is not followed out of dir. */
		if (fstatat(dfd, nm, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		bool take = S_ISREG(st.st_mode) && (is_tarball(nm) || ends_with(nm, ".json"));
		if (S_ISDIR(st.st_mode)) {
			/* A capture directory: it has its fabtop/ folder. */
			char sub[NAME_MAX + 16];
			snprintf(sub, sizeof(sub), "%s/fabtop", nm);
			take = fstatat(dfd, sub, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
		}
		if (!take)
			continue;
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			char **np = realloc(*paths, nc * sizeof(*np));
			if (!np) {
				rc = -1;
				break;
			}
			*paths = np;
			cap = nc;
		}
		size_t pl = strlen(dir) + strlen(nm) + 2;
		char *p = malloc(pl);
		if (!p) {
			rc = -1;
			break;
		}
		snprintf(p, pl, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", nm);
		(*paths)[(*n)++] = p;
	}
	closedir(d);
	if (rc != 0) {
		nodedoc_list_free(*paths, *n);
		*paths = NULL;
		*n = 0;
		snprintf(err, len, "out of memory listing %s", dir);
		return -1;
	}
	if (*n)
		qsort(*paths, *n, sizeof(**paths), cmp_str);
	return 0;
}

void nodedoc_list_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
