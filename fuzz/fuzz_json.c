/* libFuzzer target: every loader of a root's JSON files. At start a
 * scenario ($FABTOP_FUZZ_SCENARIO, a directory of build/scenarios with
 * samples) is copied into a private folder. The input's first byte picks
 * one of the files in files[] below, the rest is that file's content; it is
 * written there, and the root goes through what reads it:
 *
 *   root_open(), collect_all() (host, nvml and cuda read meta.json, uverbs
 *   devices.json, nvml nvml.json, netlink netlink.json), job_scan() and
 *   job_check_all() (fabtop/procs/<pid>.json, netlink.json's routes,
 *   meta.json), `report all` text and JSON, `report counters` text and JSON
 *   (sampler_playback.c, samples.json), and for meta.json a capture of the
 *   root (capture.c keeps the source's nvml/cuda/nccl status);
 *
 * then the file's own content is put back, so inputs stand alone. Beyond
 * ASan/UBSan it checks the sanitiser's promise on the text output, that
 * the JSON output parses back, and that the capture's meta.json does. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz_root_common.h"
#include "fabtop/capture.h"
#include "job.h"

/* The selector byte's table; fuzz/mkseeds.py's JSON_FILES follows it. */
static const char *const files[] = {
	"/fabtop/meta.json", "/fabtop/devices.json", "/fabtop/nvml.json",
	"/fabtop/netlink.json", "/fabtop/samples.json", "/fabtop/procs/4242.json",
};
#define NFILES (sizeof(files) / sizeof(files[0]))

static char base[PATH_MAX], rootdir[PATH_MAX], capout[PATH_MAX];
static char *orig[NFILES];          /* the scenario's content; NULL: no such file */
static size_t norig[NFILES];
static bool procs_dir;              /* the scenario has fabtop/procs/ */
static size_t scen_len;

__attribute__((noreturn)) static void die(const char *what)
{
	fprintf(stderr, "fuzz_json: %s: %s\n", what, strerror(errno));
	abort();
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	return remove(p);
}

static void remove_tree(const char *p)
{
	struct stat st;
	if (lstat(p, &st) == 0 && nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		die(p);
}

static void remove_base(void)
{
	remove_tree(base);
}

static void write_file(const char *p, const void *data, size_t n)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, n) != (ssize_t)n || close(fd) != 0)
		die(p);
}

/* The scenario into rootdir: folders, files and links as they are. */
static int copy_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	char dst[PATH_MAX];
	snprintf(dst, sizeof(dst), "%s%s", rootdir, p + scen_len);
	if (type == FTW_D) {
		if (mkdir(dst, 0755) != 0)
			die(dst);
	} else if (type == FTW_SL) {
		char t[PATH_MAX];
		ssize_t n = readlink(p, t, sizeof(t) - 1);
		if (n < 0)
			die(p);
		t[n] = '\0';
		if (symlink(t, dst) != 0)
			die(dst);
	} else if (type == FTW_F) {
		char *buf;
		size_t n;
		FILE *in = fopen(p, "re");
		if (!in || !(buf = malloc((size_t)st->st_size + 1)) ||
		    (n = fread(buf, 1, (size_t)st->st_size, in)) != (size_t)st->st_size)
			die(p);
		fclose(in);
		write_file(dst, buf, n);
		free(buf);
	} else {
		fprintf(stderr, "fuzz_json: %s: not a file, folder or link\n", p);
		abort();
	}
	return 0;
}

static void host_path(size_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", rootdir, files[i]);
}

/* The copy's samples.json cut to its first 3 samples, as the seeds are:
 * every input plays it back, and the whole is 1.4 MB or more. */
static void cut_samples(void)
{
	char p[PATH_MAX];
	json_error_t je;
	snprintf(p, sizeof(p), "%s/fabtop/samples.json", rootdir);
	json_t *doc = json_load_file(p, 0, &je);
	json_t *s = json_object_get(doc, "samples");
	if (!json_is_array(s)) {
		fprintf(stderr, "fuzz_json: %s: no samples: %s\n", p, je.text);
		abort();
	}
	while (json_array_size(s) > 3)
		json_array_remove(s, json_array_size(s) - 1);
	if (json_dump_file(doc, p, JSON_INDENT(1)) != 0)
		die(p);
	json_decref(doc);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *scen = getenv("FABTOP_FUZZ_SCENARIO");
	char p[PATH_MAX];
	struct stat st;
	if (!scen || !*scen)
		scen = "build/scenarios/busy";
	snprintf(p, sizeof(p), "%s/fabtop/samples.json", scen);
	if (stat(p, &st) != 0) {
		fprintf(stderr, "fuzz_json: %s is not a scenario with samples (make scenarios; "
			"FABTOP_FUZZ_SCENARIO names one)\n", scen);
		abort();
	}
	snprintf(base, sizeof(base), "%s/fabtop-fuzz-json-XXXXXX",
		 access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(base))
		die(base);
	atexit(remove_base);
	snprintf(rootdir, sizeof(rootdir), "%s/root", base);
	snprintf(capout, sizeof(capout), "%s/capture", base);
	scen_len = strlen(scen);
	while (scen_len > 1 && scen[scen_len - 1] == '/')
		scen_len--;
	if (nftw(scen, copy_one, 16, FTW_PHYS) != 0)
		die(scen);
	cut_samples();
	snprintf(p, sizeof(p), "%s/fabtop/procs", rootdir);
	procs_dir = stat(p, &st) == 0;
	for (size_t i = 0; i < NFILES; i++) {
		host_path(i, p, sizeof(p));
		FILE *in = fopen(p, "re");
		if (!in)
			continue;
		if (fstat(fileno(in), &st) != 0 || !(orig[i] = malloc((size_t)st.st_size + 1)) ||
		    (norig[i] = fread(orig[i], 1, (size_t)st.st_size, in)) != (size_t)st.st_size)
			die(p);
		fclose(in);
	}
	fprintf(stderr, "fuzz_json: root %s (a copy of %s)\n", rootdir, scen);
	return 0;
}

/* The capture of the root (capture.c reads its meta.json): its log shown
 * safely, and the meta.json it wrote parses. */
static void run_capture(void)
{
	char *log = NULL, p[PATH_MAX];
	size_t nlog = 0;
	FILE *fp = open_memstream(&log, &nlog);
	if (!fp)
		abort();
	char out[PATH_MAX + 2];
	snprintf(out, sizeof(out), "%s/", capout);
	struct capture_opts co = { .output = out, .src_root = rootdir };
	int rc = capture_run(&co, fp);
	fclose(fp);
	fz_check_shown("capture's log", log, nlog);
	if (rc == 0) {
		json_error_t je;
		snprintf(p, sizeof(p), "%s/fabtop/meta.json", capout);
		json_t *m = json_load_file(p, 0, &je);
		if (!m) {
			fprintf(stderr, "\n*** fuzz invariant broken: the capture's meta.json does not "
				"parse: %s\n", je.text);
			abort();
		}
		json_decref(m);
	}
	free(log);
	remove_tree(capout);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t sel = data[0] % NFILES;
	char p[PATH_MAX], dir[PATH_MAX], err[1024];
	host_path(sel, p, sizeof(p));
	snprintf(dir, sizeof(dir), "%s/fabtop/procs", rootdir);
	if (strncmp(files[sel], "/fabtop/procs/", 14) == 0 && !procs_dir && mkdir(dir, 0755) != 0)
		die(dir);
	write_file(p, data + 1, size - 1);

	struct fab_root r;
	if (root_open(&r, rootdir, err, sizeof(err)) != 0) {
		/* Nothing in a JSON file's content is a reason to refuse a root. */
		fprintf(stderr, "\n*** fuzz invariant broken: root_open refused %s: %s\n", rootdir, err);
		abort();
	}
	struct fab_model m;
	struct fab_job_list jobs;
	struct fz_out o = { 0 };
	model_init(&m);
	collect_all(&r, &m);
	if (job_scan(&r, &jobs, err, sizeof(err)) == 0) {
		job_check_all(&jobs, &m, &m);
		job_list_free(&jobs);
	}
	fz_run_reports(&r, &m, &o);
	model_free(&m);
	root_close(&r);
	fz_check_out(&o);
	fz_out_free(&o);
	if (strcmp(files[sel], "/fabtop/meta.json") == 0)
		run_capture();

	/* Put the scenario back as it was. */
	if (orig[sel]) {
		write_file(p, orig[sel], norig[sel]);
	} else {
		if (unlink(p) != 0)
			die(p);
		if (strncmp(files[sel], "/fabtop/procs/", 14) == 0 && !procs_dir && rmdir(dir) != 0)
			die(dir);
	}
	return 0;
}
