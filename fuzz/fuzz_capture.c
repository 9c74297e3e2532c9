/* libFuzzer target: the capture loader. The input is a capture file (a tar,
 * or anything libarchive reads), opened as `fabtop --root FILE report all`
 * opens it (main.c run_on): root_open(), collect_all(), `report all` as text
 * and JSON, `report counters` when it has samples, root_close(). Beyond
 * ASan/UBSan, after each input it checks the promises of issue 12:
 *
 *   nothing read outside: CANARY, a folder outside every root at a fixed
 *     path that seeds point at (fuzz/mkseeds.py), holds files whose content
 *     is a token drawn at start; the token never appears in the output or
 *     in root_open()'s message;
 *   nothing written outside: CANARY's entries (names, types, sizes, mtimes,
 *     inodes) are as they were;
 *   no temp left: $TMPDIR is a private folder, empty again after
 *     root_close() (and after a refused root_open());
 *   the output is shown safely: text as sanitize.h promises, JSON parses.
 *
 * FABTOP_CAPTURE_MAX_BYTES is 8 MiB here (the bundled scenarios unpack to
 * 3.4 MB at most), so a bomb costs little. One process at a time: CANARY
 * is rebuilt at start (-jobs/-fork would rebuild it under each other). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz_root_common.h"
#include "fabtop/sanitize.h"

#define CANARY "/tmp/fabtop-fuzz-canary"

static char base[PATH_MAX];                         /* private: the input, $TMPDIR */
static char tmpdir[PATH_MAX], input[PATH_MAX];
static char token[48];
static char *canary_before;                        /* the listing at start */

__attribute__((noreturn)) static void die(const char *what)
{
	fprintf(stderr, "fuzz_capture: %s: %s\n", what, strerror(errno));
	abort();
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	return remove(p);
}

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", CANARY, rel);
	for (char *s = strchr(p + strlen(CANARY) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			die(p);
		*s = '/';
	}
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) != 0)
		die(p);
}

/* CANARY, rebuilt: a shadow file and a device folder laid out like
 * sysfs's, so a link that lands there reads a device whose every value is
 * the token. */
static void make_canary(void)
{
	struct stat st;
	unsigned char r[16];
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		die("getrandom");
	int o = snprintf(token, sizeof(token), "CANARY");
	for (size_t i = 0; i < sizeof(r); i++)
		o += snprintf(token + o, sizeof(token) - (size_t)o, "%02x", r[i]);
	if (lstat(CANARY, &st) == 0) {
		/* Only a folder of ours is ours to rebuild. */
		if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
			fprintf(stderr, "fuzz_capture: %s is not a folder of this user\n", CANARY);
			abort();
		}
		if (nftw(CANARY, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
			die("removing the old " CANARY);
	}
	if (mkdir(CANARY, 0755) != 0)
		die(CANARY);
	char line[128];
	snprintf(line, sizeof(line), "root:%s:19700:0:99999:7:::\n", token);
	put("shadow", line);
	snprintf(line, sizeof(line), "%s\n", token);
	static const char *const files[] = {
		"mlx5_0/hca_type", "mlx5_0/fw_ver", "mlx5_0/board_id", "mlx5_0/node_desc",
		"mlx5_0/node_guid", "mlx5_0/sys_image_guid", "mlx5_0/node_type",
		"mlx5_0/ports/1/state", "mlx5_0/ports/1/phys_state", "mlx5_0/ports/1/rate",
		"mlx5_0/ports/1/link_layer", "mlx5_0/ports/1/lid", "mlx5_0/ports/1/gids/0",
		"mlx5_0/ports/1/gid_attrs/types/0", "mlx5_0/ports/1/gid_attrs/ndevs/0",
		"mlx5_0/ports/1/counters/port_rcv_data", "mlx5_0/device/vendor",
		"mlx5_0/device/device", "mlx5_0/device/uevent", "mlx5_0/device/current_link_speed",
		NULL,
	};
	for (const char *const *f = files; *f; f++)
		put(*f, line);
}

static char *listing;
static size_t nlisting;
static FILE *lfp;

static int list_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	fprintf(lfp, "%s %o %lld %lld.%09ld %llu\n", p, (unsigned)st->st_mode, (long long)st->st_size,
		(long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec, (unsigned long long)st->st_ino);
	return 0;
}

/* CANARY's entries, one line each, in a fixed order (nftw's readdir order
 * is stable while nothing changes). */
static char *canary_listing(void)
{
	listing = NULL;
	lfp = open_memstream(&listing, &nlisting);
	if (!lfp || nftw(CANARY, list_one, 16, FTW_PHYS) != 0 || fclose(lfp) != 0)
		die("listing " CANARY);
	return listing;
}

static void remove_base(void)
{
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* In memory where there is a tmpfs: each input unpacks thousands of files. */
	snprintf(base, sizeof(base), "%s/fabtop-fuzz-XXXXXX",
		 access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(base))
		die(base);
	snprintf(tmpdir, sizeof(tmpdir), "%s/tmp", base);
	snprintf(input, sizeof(input), "%s/capture.tar", base);
	if (mkdir(tmpdir, 0700) != 0)
		die(tmpdir);
	atexit(remove_base);
	/* Before anything reads them. */
	setenv("TMPDIR", tmpdir, 1);
	setenv("FABTOP_CAPTURE_MAX_BYTES", "8388608", 1);
	make_canary();
	canary_before = canary_listing();
	fprintf(stderr, "fuzz_capture: input %s, TMPDIR %s, canary %s\n", input, tmpdir, CANARY);
	return 0;
}

/* The token in s, searched byte by byte in code libFuzzer does not trace
 * (see fuzz_root_common.h). */
__attribute__((no_sanitize("coverage")))
static void check_no_token(const char *name, const char *s, size_t n)
{
	size_t t = strlen(token);
	for (size_t i = 0; i + t <= n; i++) {
		size_t k = 0;
		while (k < t && s[i + k] == token[k])
			k++;
		if (k == t)
			fz_fail("the canary's token (a file outside the root was read)", name, s, n, i);
	}
}

/* $TMPDIR holds nothing of fabtop's (libFuzzer's own files, in merge
 * mode, are not fabtop's). */
static void check_tmp_empty(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	if (!d)
		die(tmpdir);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strncmp(de->d_name, "libFuzzer", 9)) {
			fprintf(stderr, "\n*** fuzz invariant broken: %s/%s left behind\n", tmpdir, de->d_name);
			abort();
		}
	closedir(d);
}

static void check_canary(void)
{
	char *now = canary_listing();
	if (strcmp(now, canary_before) != 0) {
		fprintf(stderr, "\n*** fuzz invariant broken: %s changed.\nbefore:\n%s\nafter:\n%s\n",
			CANARY, canary_before, now);
		abort();
	}
	free(now);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = open(input, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) != 0)
		die(input);
	struct fab_root r;
	char err[1024] = "";
	if (root_open(&r, input, err, sizeof(err)) == 0) {
		struct fab_model m;
		struct fz_out o = { 0 };
		model_init(&m);
		collect_all(&r, &m);
		fz_run_reports(&r, &m, &o);
		check_no_token("root_open's warning", r.warning, strlen(r.warning));
		model_free(&m);
		root_close(&r);
		check_no_token("report all", o.text, o.ntext);
		check_no_token("report all --json", o.json, o.njson);
		check_no_token("report counters", o.ctext, o.nctext);
		check_no_token("report counters --json", o.cjson, o.ncjson);
		check_no_token("report counters' log", o.log, o.nlog);
		fz_check_out(&o);
		fz_out_free(&o);
	} else {
		/* As main.c prints it. */
		char *msg = NULL;
		size_t n = 0;
		FILE *fp = open_memstream(&msg, &n);
		if (!fp)
			abort();
		fab_fprintf(fp, "fabtop: %s\n", err);
		fclose(fp);
		check_no_token("root_open's message", msg, n);
		fz_check_shown("root_open's message", msg, n);
		free(msg);
	}
	check_tmp_empty();
	check_canary();
	return 0;
}
