/* The PCIe watch (pcie_watch.h) over a directory root laid out as the kernel
 * lays out sysfs: /sys/devices/pci0000:17/<root port>/<switch up>/<switch
 * down>/<NIC> and a GPU beside it, /sys/bus/pci/devices/BDF links to them.
 * AER files in the kernel's format (tests/fixtures/pcie/README.md says
 * where each comes from), rewritten in place between steps as the kernel's
 * attributes change under an open fd; links that retrain; a function that
 * vanishes and comes back; hostile files; and playback of recorded steps,
 * which must leave the watch exactly as live reading did. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>
#include "fabtop/collect.h"
#include "fabtop/pcie_watch.h"
#include "fabtop/sampler.h"
#include "fabtop/util.h"

#define FIX "tests/fixtures/pcie/"
#define RP   "0000:17:01.0"
#define USP  "0000:18:00.0"
#define DSP  "0000:19:00.0"
#define NIC  "0000:1a:00.0"
#define DSP2 "0000:19:01.0"
#define GPU  "0000:1b:00.0"
#define DEVS "/sys/devices/pci0000:17"

static char top[PATH_MAX];

static void mkdirs(const char *path)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

/* Writes node path rel in place (same inode), as a sysfs attribute changes. */
static void put_n(const char *rel, const char *text, size_t n)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s%s", top, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	mkdirs(p);
	*slash = '/';
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
}

static void put(const char *rel, const char *text)
{
	put_n(rel, text, strlen(text));
}

static char *slurp(const char *path)
{
	static char buf[8][4096];
	static int k;
	char *b = buf[k++ % 8];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(b, 1, sizeof(buf[0]) - 1, f);
	b[n] = '\0';
	fclose(f);
	return b;
}

static void run(const char *const argv[])
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The device directory of each function (its real path, as the kernel's). */
static const char *dir_of(const char *bdf)
{
	static char p[PATH_MAX];
	if (!strcmp(bdf, RP))
		snprintf(p, sizeof(p), DEVS "/" RP);
	else if (!strcmp(bdf, USP))
		snprintf(p, sizeof(p), DEVS "/" RP "/" USP);
	else if (!strcmp(bdf, DSP))
		snprintf(p, sizeof(p), DEVS "/" RP "/" USP "/" DSP);
	else if (!strcmp(bdf, NIC))
		snprintf(p, sizeof(p), DEVS "/" RP "/" USP "/" DSP "/" NIC);
	else if (!strcmp(bdf, DSP2))
		snprintf(p, sizeof(p), DEVS "/" RP "/" USP "/" DSP2);
	else
		snprintf(p, sizeof(p), DEVS "/" RP "/" USP "/" DSP2 "/" GPU);
	return p;
}

static void attr(const char *bdf, const char *name, const char *text)
{
	char rel[PATH_MAX];
	snprintf(rel, sizeof(rel), "%s/%s", dir_of(bdf), name);
	put(rel, text);
}

static void set_link(const char *bdf, const char *speed, const char *width)
{
	attr(bdf, "current_link_speed", speed);
	attr(bdf, "current_link_width", width);
}

static void make_fn(const char *bdf, const char *cls, const char *vendor, const char *max_speed,
		    const char *max_width)
{
	attr(bdf, "class", cls);
	attr(bdf, "vendor", vendor);
	attr(bdf, "device", "0x1021\n");
	attr(bdf, "max_link_speed", max_speed);
	attr(bdf, "max_link_width", max_width);
	set_link(bdf, max_speed, max_width);
	attr(bdf, "aer_dev_correctable", slurp(FIX "aer_dev_correctable.rootport"));
	attr(bdf, "aer_dev_nonfatal", slurp(FIX "aer_dev_nonfatal.rootport"));
	attr(bdf, "aer_dev_fatal", slurp(FIX "aer_dev_fatal.rootport"));
	/* /sys/bus/pci/devices/BDF -> ../../../devices/pci0000:17/... */
	char l[PATH_MAX], target[PATH_MAX];
	snprintf(l, sizeof(l), "%s/sys/bus/pci/devices", top);
	mkdirs(l);
	snprintf(l, sizeof(l), "%s/sys/bus/pci/devices/%s", top, bdf);
	snprintf(target, sizeof(target), "../../..%s", dir_of(bdf) + 4);
	unlink(l);
	assert_int_equal(symlink(target, l), 0);
}

struct fx {
	struct fab_root root;
	struct fab_model m;
	struct pcie_watch w;
};

/* The node: a Gen4 x16 NIC behind a switch (root port Gen4, switch Gen5),
 * a Gen5 GPU behind the same switch. */
static int setup(void **state)
{
	static struct fx f;
	char err[512];
	memset(&f, 0, sizeof(f));
	snprintf(top, sizeof(top), "%s/pcie-watch-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(top))
		return -1;
	make_fn(RP, "0x060400\n", "0x8086\n", "16.0 GT/s PCIe\n", "16\n");
	make_fn(USP, "0x060400\n", "0x1000\n", "32.0 GT/s PCIe\n", "16\n");
	make_fn(DSP, "0x060400\n", "0x1000\n", "32.0 GT/s PCIe\n", "16\n");
	make_fn(NIC, "0x020700\n", "0x15b3\n", "16.0 GT/s PCIe\n", "16\n");
	make_fn(DSP2, "0x060400\n", "0x1000\n", "32.0 GT/s PCIe\n", "16\n");
	make_fn(GPU, "0x030200\n", "0x10de\n", "32.0 GT/s PCIe\n", "16\n");
	set_link(USP, "16.0 GT/s PCIe\n", "16\n");   /* its link above: the Gen4 root port */
	if (root_open(&f.root, top, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	model_init(&f.m);
	if (collect_pci_sysfs(&f.root, &f.m) != 0 || f.m.npci != 6)
		return -1;
	struct fab_nic *n = model_add_nic(&f.m);
	snprintf(n->name, sizeof(n->name), "mlx5_0");
	n->pci = model_find_pci(&f.m, NIC);
	struct fab_gpu *g = model_add_gpu(&f.m);
	g->pci = model_find_pci(&f.m, GPU);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	pcie_watch_close(&f->w);
	model_free(&f->m);
	root_close(&f->root);
	const char *argv[] = { "rm", "-rf", "--", top, NULL };
	run(argv);
	return 0;
}

static struct pcie_fn *fn(struct pcie_watch *w, const char *bdf)
{
	int i = pcie_watch_find(w, bdf);
	if (i < 0)
		fail_msg("%s is not watched", bdf);
	return &w->fns[i];
}

static void open_live(struct fx *f)
{
	char err[256];
	assert_int_equal(pcie_watch_open(&f->w, &f->root, &f->m, err, sizeof(err)), 0);
}

/* Findings of the watch into a fresh model; returns how many. */
static int findings(struct fx *f, const bool *moving, struct fab_model *out)
{
	model_init(out);
	int n = pcie_watch_findings(&f->w, &f->m, moving, out);
	assert_int_equal(n, out->nfindings);
	return n;
}

static const struct fab_finding *finding(const struct fab_model *out, const char *id,
					 const char *subject)
{
	for (int i = 0; i < out->nfindings; i++)
		if (!strcmp(out->findings[i].id, id) && !strcmp(out->findings[i].subject, subject))
			return &out->findings[i];
	return NULL;
}

/* ---- the AER file ---- */

static void test_parse_real(void **state)
{
	(void)state;
	struct pcie_aer_file a;
	const char *t = slurp(FIX "aer_dev_correctable.rootport");
	assert_int_equal(pcie_aer_parse(PCIE_AER_COR, t, strlen(t), &a), 0);
	assert_int_equal(a.n, 8);
	assert_string_equal(a.e[0].name, "RxErr");
	assert_string_equal(a.e[1].name, "BadTLP");
	assert_int_equal(a.e[1].v, 3);
	assert_string_equal(a.e[7].name, "HeaderOF");
	assert_int_equal(a.total, 3);
	/* Kernel 4.19's long names, with spaces: the value is the last word. */
	t = slurp(FIX "aer_dev_correctable.abi-4.19");
	assert_int_equal(pcie_aer_parse(PCIE_AER_COR, t, strlen(t), &a), 0);
	assert_int_equal(a.n, 8);
	assert_string_equal(a.e[0].name, "Receiver Error");
	assert_int_equal(a.e[0].v, 2);
	assert_string_equal(a.e[3].name, "RELAY_NUM Rollover");
	assert_string_equal(a.e[5].name, "Advisory Non-Fatal");
	assert_int_equal(a.total, 2);
	t = slurp(FIX "aer_dev_fatal.rootport");
	assert_int_equal(pcie_aer_parse(PCIE_AER_FATAL, t, strlen(t), &a), 0);
	assert_int_equal(a.n, 18);
	assert_string_equal(a.e[17].name, "PoisonTLPBlocked");
	assert_int_equal(a.total, 0);
	/* A file is only its own kind: the fatal TOTAL is not the correctable one. */
	assert_int_equal(pcie_aer_parse(PCIE_AER_COR, t, strlen(t), &a), -1);
	t = slurp(FIX "aer_dev_nonfatal.rootport");
	assert_int_equal(pcie_aer_parse(PCIE_AER_NONFATAL, t, strlen(t), &a), 0);
	/* An unnamed bit that counted: "<array>_bit[N] V" (aer_stats_dev_attr). */
	const char *u = "RxErr 1\ndev_cor_errs_bit[3] 7\nTOTAL_ERR_COR 18446744073709551615\n";
	assert_int_equal(pcie_aer_parse(PCIE_AER_COR, u, strlen(u), &a), 0);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.e[1].name, "dev_cor_errs_bit[3]");
	assert_int_equal(a.e[1].v, 7);
	assert_true(a.total == UINT64_MAX);
}

static void test_parse_hostile(void **state)
{
	(void)state;
	struct pcie_aer_file a;
	static const char *const bad[] = {
		"",
		"\n",
		"RxErr 0\nTOTAL_ERR_COR 3",                    /* no newline: cut short */
		"RxErr 0\nTOTAL_ERR_COR 3\nBadTLP 1\n",        /* a line after TOTAL */
		"RxErr 0\n",                                   /* no TOTAL */
		"RxErr 12a\nTOTAL_ERR_COR 3\n",                /* garbage number */
		"RxErr -1\nTOTAL_ERR_COR 3\n",
		"RxErr 0x10\nTOTAL_ERR_COR 3\n",
		"RxErr 18446744073709551616\nTOTAL_ERR_COR 3\n",  /* 2^64 */
		"RxErr\nTOTAL_ERR_COR 3\n",                    /* no value */
		"RxErr  1\nTOTAL_ERR_COR 3\n",                 /* two spaces */
		" RxErr 1\nTOTAL_ERR_COR 3\n",
		"\x1b[31mRxErr 1\nTOTAL_ERR_COR 3\n",           /* an escape in a name */
		"Rx\tErr 1\nTOTAL_ERR_COR 3\n",
		"RxErr 1\nRxErr 2\nTOTAL_ERR_COR 3\n",         /* repeated */
		"TOTAL_ERR_FATAL 1\nTOTAL_ERR_COR 3\n",        /* another file's total */
		"TOTAL_ERR_COR 1\nTOTAL_ERR_COR 3\n",
		"RxErr 1\n\nTOTAL_ERR_COR 3\n",                /* an empty line */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (pcie_aer_parse(PCIE_AER_COR, bad[i], strlen(bad[i]), &a) != -1)
			fail_msg("accepted hostile AER text %zu", i);
	/* A NUL inside the text. */
	static const char nul[] = "Rx\0Err 1\nTOTAL_ERR_COR 3\n";
	assert_int_equal(pcie_aer_parse(PCIE_AER_COR, nul, sizeof(nul) - 1, &a), -1);
	/* A name longer than PCIE_AER_NAME_LEN - 1. */
	char longname[200];
	snprintf(longname, sizeof(longname), "%0*d 1\nTOTAL_ERR_COR 1\n", PCIE_AER_NAME_LEN, 0);
	assert_int_equal(pcie_aer_parse(PCIE_AER_COR, longname, strlen(longname), &a), -1);
	/* More lines than the kernel has bits. */
	char many[4096] = "";
	for (int i = 0; i <= PCIE_AER_MAX_ENTRIES; i++)
		fab_catf(many, sizeof(many), "E%d 0\n", i);
	fab_catf(many, sizeof(many), "TOTAL_ERR_COR 0\n");
	assert_int_equal(pcie_aer_parse(PCIE_AER_COR, many, strlen(many), &a), -1);
	/* More than a sysfs page, though well formed. */
	char *huge = malloc(FAB_SYSFS_PAGE + 64);
	size_t o = 0;
	while (o < FAB_SYSFS_PAGE)
		o += (size_t)snprintf(huge + o, 64, "RxErr 0\n");
	o += (size_t)snprintf(huge + o, 64, "TOTAL_ERR_COR 0\n");
	assert_int_equal(pcie_aer_parse(PCIE_AER_COR, huge, o, &a), -1);
	free(huge);
	assert_int_equal(pcie_aer_parse(PCIE_AER_KINDS, "TOTAL_ERR_COR 0\n", 16, &a), -1);
}

/* ---- the list ---- */

static void test_list(void **state)
{
	struct fx *f = *state;
	open_live(f);
	assert_int_equal(f->w.nfns, 5);   /* RP, USP, DSP, NIC, GPU; not the GPU's DSP2 */
	assert_string_equal(f->w.fns[0].bdf, RP);
	assert_int_equal(fn(&f->w, RP)->roles, PCIE_ROLE_BRIDGE);
	assert_false(fn(&f->w, RP)->own_link);
	assert_true(fn(&f->w, USP)->own_link);
	assert_false(fn(&f->w, DSP)->own_link);
	assert_int_equal(fn(&f->w, NIC)->roles, PCIE_ROLE_NIC);
	assert_int_equal(fn(&f->w, GPU)->roles, PCIE_ROLE_GPU);
	assert_int_equal(pcie_watch_find(&f->w, DSP2), -1);
	/* Capability: its own, bounded by the port above (the Gen4 root port for the switch). */
	assert_true(fn(&f->w, USP)->cap_speed.ok);
	assert_true(fabs(fn(&f->w, USP)->cap_speed.v - 16.0) < 1e-9);
	assert_int_equal(fn(&f->w, USP)->cap_width.v, 16);
	assert_true(fabs(fn(&f->w, GPU)->cap_speed.v - 32.0) < 1e-9);
	assert_true(fabs(fn(&f->w, NIC)->cap_speed.v - 16.0) < 1e-9);
	/* The kept files: three AER, and the link where watched. */
	assert_true(fn(&f->w, NIC)->fd[4] >= 0);
	assert_true(fn(&f->w, RP)->fd[0] >= 0);
	assert_true(fn(&f->w, RP)->fd[3] < 0);
}

/* ---- AER over time ---- */

static void test_aer_deltas_and_reset(void **state)
{
	struct fx *f = *state;
	open_live(f);
	char cor[512];
	assert_int_equal(pcie_watch_read(&f->w, 100.0, NULL), 0);
	struct pcie_aer *a = &fn(&f->w, NIC)->aer[PCIE_AER_COR];
	assert_true(a->present && a->valid);
	assert_int_equal(a->last.flags, CTR_FIRST);
	assert_int_equal(a->cur.total, 3);
	/* BadTLP 3 -> 5 in 2 s: +2, 1/s. */
	snprintf(cor, sizeof(cor), "%s", slurp(FIX "aer_dev_correctable.rootport"));
	char *p = strstr(cor, "BadTLP 3");
	p[7] = '5';
	p = strstr(cor, "TOTAL_ERR_COR 3");
	p[14] = '5';
	attr(NIC, "aer_dev_correctable", cor);
	assert_int_equal(pcie_watch_read(&f->w, 102.0, NULL), 0);
	assert_int_equal(a->last.delta, 2);
	assert_true(a->last.has_rate);
	assert_true(fabs(a->last.rate - 1.0) < 1e-9);
	assert_int_equal(a->since_baseline, 2);
	assert_int_equal(a->window_peak, 2);
	/* A fall is a reset: it grew by at least the new value. */
	attr(NIC, "aer_dev_correctable", "RxErr 1\nBadTLP 0\nTOTAL_ERR_COR 1\n");
	assert_int_equal(pcie_watch_read(&f->w, 103.0, NULL), 0);
	assert_true(a->last.flags & CTR_RESET);
	assert_int_equal(a->last.delta, 1);
	assert_int_equal(a->since_baseline, 3);
	/* A fatal error at the switch's upstream port. */
	attr(USP, "aer_dev_fatal", "Undefined 0\nDLP 1\nTOTAL_ERR_FATAL 1\n");
	assert_int_equal(pcie_watch_read(&f->w, 104.0, NULL), 0);
	assert_int_equal(fn(&f->w, USP)->aer[PCIE_AER_FATAL].since_baseline, 1);

	struct fab_model out;
	bool moving[1] = { false };
	assert_int_equal(findings(f, moving, &out), 3);
	const struct fab_finding *x = finding(&out, "pcie.aer-grew", "switch port " USP);
	assert_non_null(x);
	assert_int_equal(x->sev, SEV_ERROR);
	assert_string_equal(x->evidence, "/sys/bus/pci/devices/" USP "/aer_dev_fatal TOTAL_ERR_FATAL 1 (DLP +1)");
	x = finding(&out, "pcie.aer-grew", "mlx5_0");
	assert_non_null(x);
	assert_int_equal(x->sev, SEV_INFO);   /* 3 in 60 s: under DCGM's 8 a minute */
	assert_non_null(strstr(x->message, "ERR_FATAL +0, ERR_NONFATAL +0, ERR_COR +3 (at most 3 within 60 s"));
	/* After the reset every bit counts from 0: RxErr +1. */
	assert_string_equal(x->evidence, "/sys/bus/pci/devices/" NIC "/aer_dev_correctable TOTAL_ERR_COR 1 (RxErr +1)");
	assert_string_equal(x->hint, "lspci -vvv -s " NIC " | grep -E 'CESta|UESta|LnkSta'; dmesg | grep -i aer; "
			    "errors are counted where they are seen: check the link partner too (reseat, riser, cable)");
	/* The totals since boot of the others (BadTLP 3 on the node this came from). */
	x = finding(&out, "pcie.aer-total", "PCIe");
	assert_non_null(x);
	assert_int_equal(x->sev, SEV_INFO);
	assert_string_equal(x->message, "PCIe errors counted since boot, none while watched, at "
			    "root port " RP ", switch port " DSP ", GPU0");
	model_free(&out);

	/* The baseline clears the growth: nothing grew since. */
	pcie_watch_baseline(&f->w);
	assert_int_equal(pcie_watch_read(&f->w, 105.0, NULL), 0);
	assert_int_equal(a->since_baseline, 0);
	assert_int_equal(findings(f, moving, &out), 1);
	assert_non_null(finding(&out, "pcie.aer-total", "PCIe"));
	model_free(&out);
}

/* More than 8 correctable errors within 60 s of real time is a warning;
 * 8 a minute for longer is not. */
static void test_aer_cor_rate(void **state)
{
	struct fx *f = *state;
	open_live(f);
	char text[128];
	struct fab_model out;
	uint64_t total = 3;
	assert_int_equal(pcie_watch_read(&f->w, 0.0, NULL), 0);
	/* 4 every 30 s: 8 in any 60 s window, never more. */
	for (int k = 1; k <= 6; k++) {
		total += 4;
		snprintf(text, sizeof(text), "BadTLP %llu\nTOTAL_ERR_COR %llu\n",
			 (unsigned long long)total, (unsigned long long)total);
		attr(GPU, "aer_dev_correctable", text);
		assert_int_equal(pcie_watch_read(&f->w, 30.0 * k, NULL), 0);
	}
	struct pcie_aer *a = &fn(&f->w, GPU)->aer[PCIE_AER_COR];
	assert_int_equal(a->since_baseline, 24);
	assert_int_equal(a->window_peak, 8);
	assert_int_equal(findings(f, NULL, &out), 2);
	assert_int_equal(finding(&out, "pcie.aer-grew", "GPU0")->sev, SEV_INFO);
	model_free(&out);
	/* 9 more within one second. */
	total += 9;
	snprintf(text, sizeof(text), "BadTLP %llu\nTOTAL_ERR_COR %llu\n", (unsigned long long)total,
		 (unsigned long long)total);
	attr(GPU, "aer_dev_correctable", text);
	assert_int_equal(pcie_watch_read(&f->w, 181.0, NULL), 0);
	assert_int_equal(a->window_peak, 13);   /* 4 (t=180) + 9 since t=150 */
	assert_int_equal(findings(f, NULL, &out), 2);
	const struct fab_finding *x = finding(&out, "pcie.aer-grew", "GPU0");
	assert_int_equal(x->sev, SEV_WARN);
	assert_string_equal(x->evidence, "/sys/bus/pci/devices/" GPU "/aer_dev_correctable TOTAL_ERR_COR 36 (BadTLP +33)");
	model_free(&out);
}

/* ---- the link over time ---- */

static void test_link_transitions(void **state)
{
	struct fx *f = *state;
	open_live(f);
	assert_int_equal(pcie_watch_read(&f->w, 10.0, NULL), 0);
	struct pcie_fn *n = fn(&f->w, NIC);
	assert_true(n->link.speed.ok && fabs(n->link.speed.v - 16.0) < 1e-9);
	assert_int_equal(n->link.width.v, 16);
	assert_int_equal(f->w.nev, 0);
	set_link(NIC, "8.0 GT/s PCIe\n", "8\n");
	assert_int_equal(pcie_watch_read(&f->w, 11.0, NULL), 0);
	set_link(NIC, "16.0 GT/s PCIe\n", "16\n");
	assert_int_equal(pcie_watch_read(&f->w, 12.5, NULL), 0);
	assert_int_equal(pcie_watch_read(&f->w, 13.5, NULL), 0);   /* no change: no event */
	assert_int_equal(f->w.nev, 2);
	const struct pcie_event *e = pcie_watch_event(&f->w, 0);
	assert_int_equal(e->kind, PCIE_EV_LINK);
	assert_int_equal(e->fn, pcie_watch_find(&f->w, NIC));
	assert_true(fabs(e->t - 11.0) < 1e-9);
	assert_true(fabs(e->from.speed.v - 16.0) < 1e-9 && e->from.width.v == 16);
	assert_true(fabs(e->to.speed.v - 8.0) < 1e-9 && e->to.width.v == 8);
	e = pcie_watch_event(&f->w, 1);
	assert_true(fabs(e->t - 12.5) < 1e-9);
	assert_true(fabs(e->from.speed.v - 8.0) < 1e-9 && e->from.width.v == 8);
	assert_true(fabs(e->to.speed.v - 16.0) < 1e-9 && e->to.width.v == 16);
	assert_null(pcie_watch_event(&f->w, 2));

	struct fab_model out;
	bool moving[1] = { true };
	assert_int_equal(findings(f, moving, &out), 2);   /* link-changed, aer-total */
	const struct fab_finding *x = finding(&out, "pcie.link-changed", "mlx5_0");
	assert_non_null(x);
	assert_int_equal(x->sev, SEV_WARN);
	assert_string_equal(x->message, "PCIe link of mlx5_0 changed 2 times while watched: "
			    "16.0 GT/s x16 -> 8.0 GT/s x8 at +1.0 s, 8.0 GT/s x8 -> 16.0 GT/s x16 at +2.5 s");
	assert_string_equal(x->evidence, "/sys/bus/pci/devices/" NIC "/current_link_speed and "
			    "current_link_width, read each step");
	model_free(&out);

	/* A link that goes down ("Unknown", width 0) is an error. */
	set_link(NIC, "Unknown\n", "0\n");
	assert_int_equal(pcie_watch_read(&f->w, 14.0, NULL), 0);
	assert_false(n->link_bad);
	assert_false(n->link.speed.ok);
	assert_int_equal(findings(f, moving, &out), 2);
	x = finding(&out, "pcie.link-changed", "mlx5_0");
	assert_int_equal(x->sev, SEV_ERROR);
	assert_non_null(strstr(x->message, "16.0 GT/s x16 -> down at +4.0 s"));
	model_free(&out);
}

/* The events are bounded: the oldest go, and are counted. */
static void test_event_ring(void **state)
{
	struct fx *f = *state;
	open_live(f);
	assert_int_equal(pcie_watch_read(&f->w, 0, NULL), 0);
	for (int k = 1; k <= PCIE_WATCH_EVENTS + 6; k++) {
		set_link(GPU, k % 2 ? "2.5 GT/s PCIe\n" : "32.0 GT/s PCIe\n", "16\n");
		assert_int_equal(pcie_watch_read(&f->w, k, NULL), 0);
	}
	assert_int_equal(f->w.nev, PCIE_WATCH_EVENTS);
	assert_int_equal(f->w.ev_dropped, 6);
	assert_true(fabs(pcie_watch_event(&f->w, 0)->t - 7.0) < 1e-9);
	assert_true(fabs(pcie_watch_event(&f->w, PCIE_WATCH_EVENTS - 1)->t - 70.0) < 1e-9);
}

/* ---- below capability: under traffic, idle, GPUs by their load ---- */

static void test_below_cap_traffic_vs_idle(void **state)
{
	struct fx *f = *state;
	open_live(f);
	set_link(NIC, "8.0 GT/s PCIe\n", "8\n");
	set_link(USP, "8.0 GT/s PCIe\n", "16\n");
	set_link(DSP, "2.5 GT/s PCIe\n", "1\n");   /* a downstream port: its link is the NIC's; not read */
	assert_int_equal(pcie_watch_read(&f->w, 1.0, NULL), 0);
	assert_int_equal(pcie_fn_below(fn(&f->w, NIC)), PCIE_SLOW | PCIE_NARROW);
	assert_int_equal(pcie_fn_below(fn(&f->w, USP)), PCIE_SLOW);
	assert_int_equal(pcie_fn_below(fn(&f->w, DSP)), 0);
	assert_int_equal(pcie_fn_below(fn(&f->w, GPU)), 0);

	struct fab_model out;
	bool moving[1] = { true };
	assert_int_equal(findings(f, moving, &out), 3);   /* NIC, USP, aer-total */
	const struct fab_finding *x = finding(&out, "pcie.below-cap-under-load", "mlx5_0");
	assert_non_null(x);
	assert_int_equal(x->sev, SEV_WARN);
	assert_string_equal(x->message, "PCIe link of mlx5_0 runs slower and narrower at 8.0 GT/s x8 "
			    "while mlx5_0 moves traffic, capable of 16.0 GT/s x16: 63 of 252 Gb/s");
	assert_string_equal(x->evidence, "/sys/bus/pci/devices/" NIC "/current_link_speed=8.0 GT/s "
			    "current_link_width=8 at +0.0 s; max_link_speed/max_link_width (bounded by the "
			    "port above): 16.0 GT/s x16");
	assert_string_equal(x->hint, "lspci -vvv -s " NIC " | grep -E 'LnkCap|LnkSta'; reseat the card, "
			    "check the riser and the BIOS bifurcation");
	x = finding(&out, "pcie.below-cap-under-load", "switch port " USP);
	assert_non_null(x);
	assert_non_null(strstr(x->message, "runs slower at 8.0 GT/s x16 while mlx5_0 moves traffic, "
			       "capable of 16.0 GT/s x16"));
	assert_null(finding(&out, "pcie.below-cap-idle", "PCIe"));
	model_free(&out);

	/* Idle: power management, information only. */
	moving[0] = false;
	assert_int_equal(findings(f, moving, &out), 2);
	assert_null(finding(&out, "pcie.below-cap-under-load", "mlx5_0"));
	x = finding(&out, "pcie.below-cap-idle", "PCIe");
	assert_non_null(x);
	assert_int_equal(x->sev, SEV_INFO);
	assert_string_equal(x->message, "below capability while idle (power management lowers an idle "
			    "link; judged under load): switch port " USP " at 8.0 GT/s x16 of 16.0 GT/s x16 "
			    "(mlx5_0 moves no traffic); mlx5_0 at 8.0 GT/s x8 of 16.0 GT/s x16 (mlx5_0 "
			    "moves no traffic)");
	model_free(&out);
	/* Unknown traffic: not judged either. */
	assert_int_equal(findings(f, NULL, &out), 2);
	assert_non_null(strstr(finding(&out, "pcie.below-cap-idle", "PCIe")->message,
			       "(whether mlx5_0 moves traffic is unknown)"));
	model_free(&out);
}

static void test_gpu_judged_when_busy(void **state)
{
	struct fx *f = *state;
	open_live(f);
	set_link(GPU, "2.5 GT/s PCIe\n", "16\n");
	assert_int_equal(pcie_watch_read(&f->w, 1.0, NULL), 0);
	char why[160];
	struct fab_model out;
	int gi = pcie_watch_find(&f->w, GPU);
	/* No NVML: its load is unknown, so it is not judged. */
	assert_int_equal(pcie_fn_loaded(&f->w, gi, &f->m, NULL, why, sizeof(why)), FAB_UNKNOWN);
	assert_int_equal(findings(f, NULL, &out), 2);
	assert_null(finding(&out, "pcie.below-cap-under-load", "GPU0"));
	assert_non_null(strstr(finding(&out, "pcie.below-cap-idle", "PCIe")->message,
			       "GPU0 at 2.5 GT/s x16 of 32.0 GT/s x16 (GPU0 load unknown: its load is unknown (no NVML))"));
	model_free(&out);
	/* Idle (P8): power management. */
	f->m.gpus[0].pstate = fab_int_of(8);
	assert_int_equal(pcie_fn_loaded(&f->w, gi, &f->m, NULL, why, sizeof(why)), FAB_NO);
	assert_string_equal(why, "GPU0 idle: P8");
	assert_int_equal(findings(f, NULL, &out), 2);
	assert_null(finding(&out, "pcie.below-cap-under-load", "GPU0"));
	model_free(&out);
	/* Busy (P0, 87%): a finding. */
	f->m.gpus[0].pstate = fab_int_of(0);
	f->m.gpus[0].util_pct = fab_int_of(87);
	assert_int_equal(findings(f, NULL, &out), 2);
	const struct fab_finding *x = finding(&out, "pcie.below-cap-under-load", "GPU0");
	assert_non_null(x);
	assert_int_equal(x->sev, SEV_WARN);
	assert_string_equal(x->message, "PCIe link of GPU0 runs slower at 2.5 GT/s x16 while GPU0 busy: "
			    "P0, 87% utilisation, capable of 32.0 GT/s x16: 32 of 504 Gb/s");
	assert_null(finding(&out, "pcie.below-cap-idle", "PCIe"));
	model_free(&out);
}

/* ---- a function that vanishes and comes back ---- */

static void test_vanished(void **state)
{
	struct fx *f = *state;
	open_live(f);
	assert_int_equal(pcie_watch_read(&f->w, 1.0, NULL), 0);
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s%s", top, dir_of(GPU));
	const char *rm[] = { "rm", "-rf", "--", p, NULL };
	run(rm);
	assert_int_equal(pcie_watch_read(&f->w, 2.0, NULL), 0);
	struct pcie_fn *g = fn(&f->w, GPU);
	assert_false(g->present);
	assert_int_equal(g->aer[PCIE_AER_COR].last.flags, CTR_GONE);
	assert_true(g->fd[0] < 0);
	assert_string_equal(f->w.note, GPU " vanished");
	assert_int_equal(f->w.nev, 1);
	assert_int_equal(pcie_watch_event(&f->w, 0)->kind, PCIE_EV_GONE);
	assert_int_equal(pcie_watch_read(&f->w, 3.0, NULL), 0);
	assert_int_equal(f->w.nev, 1);   /* gone once */
	struct fab_model out;
	assert_int_equal(findings(f, NULL, &out), 2);
	const struct fab_finding *x = finding(&out, "pcie.function-gone", "GPU0");
	assert_non_null(x);
	assert_int_equal(x->sev, SEV_ERROR);
	assert_string_equal(x->message, "PCI function " GPU " of GPU0 vanished while watched (vanished at "
			    "+1.0 s): it fell off the bus, was reset or its device was removed");
	model_free(&out);
	/* Back as a new device: its counters start a new series (from 0). */
	make_fn(GPU, "0x030200\n", "0x10de\n", "32.0 GT/s PCIe\n", "16\n");
	attr(GPU, "aer_dev_correctable", "RxErr 0\nTOTAL_ERR_COR 0\n");
	set_link(GPU, "16.0 GT/s PCIe\n", "8\n");
	assert_int_equal(pcie_watch_read(&f->w, 4.0, NULL), 0);
	assert_true(g->present);
	assert_int_equal(g->aer[PCIE_AER_COR].last.flags, CTR_FIRST);
	assert_int_equal(g->aer[PCIE_AER_COR].since_baseline, 0);
	assert_int_equal(f->w.nev, 2);
	const struct pcie_event *e = pcie_watch_event(&f->w, 1);
	assert_int_equal(e->kind, PCIE_EV_BACK);
	assert_true(fabs(e->from.speed.v - 32.0) < 1e-9 && e->to.width.v == 8);
	assert_int_equal(findings(f, NULL, &out), 3);
	x = finding(&out, "pcie.function-gone", "GPU0");
	assert_int_equal(x->sev, SEV_WARN);
	assert_non_null(strstr(x->message, "vanished and came back while watched (vanished at +1.0 s, "
			       "came back at +3.0 s)"));
	model_free(&out);
}

/* ---- hostile files, live ---- */

static void test_hostile_files(void **state)
{
	struct fx *f = *state;
	open_live(f);
	assert_int_equal(pcie_watch_read(&f->w, 1.0, NULL), 0);
	struct pcie_aer *a = &fn(&f->w, NIC)->aer[PCIE_AER_COR];
	/* Bigger than a sysfs page. */
	char *huge = malloc(3 * FAB_SYSFS_PAGE);
	memset(huge, 'A', 3 * FAB_SYSFS_PAGE);
	huge[3 * FAB_SYSFS_PAGE - 1] = '\n';
	put_n("/sys/bus/pci/devices/" NIC "/aer_dev_correctable", huge, 3 * FAB_SYSFS_PAGE);
	free(huge);
	json_t *rec = NULL;
	assert_int_equal(pcie_watch_read(&f->w, 2.0, &rec), 0);
	assert_true(a->bad);
	assert_int_equal(a->last.flags, CTR_UNREADABLE);
	assert_int_equal(a->cur.total, 3);   /* the last good value is kept */
	assert_true(json_is_null(json_object_get(json_object_get(rec, NIC), "aer_dev_correctable")));
	json_decref(rec);
	/* No newline: a read cut short. */
	attr(NIC, "aer_dev_correctable", "RxErr 0\nTOTAL_ERR_COR 9");
	assert_int_equal(pcie_watch_read(&f->w, 3.0, NULL), 0);
	assert_int_equal(a->last.flags, CTR_IMPLAUSIBLE);
	/* Garbage numbers. */
	attr(NIC, "aer_dev_correctable", "RxErr lots\nTOTAL_ERR_COR -5\n");
	assert_int_equal(pcie_watch_read(&f->w, 4.0, NULL), 0);
	assert_int_equal(a->last.flags, CTR_IMPLAUSIBLE);
	/* Binary junk. */
	put_n("/sys/bus/pci/devices/" NIC "/aer_dev_correctable", "\xff\xfe\x01\n", 4);
	assert_int_equal(pcie_watch_read(&f->w, 5.0, NULL), 0);
	assert_int_equal(a->last.flags, CTR_UNREADABLE);
	/* Good again: a rate from the last good reading (t=1). */
	attr(NIC, "aer_dev_correctable", "RxErr 4\nBadTLP 3\nTOTAL_ERR_COR 7\n");
	assert_int_equal(pcie_watch_read(&f->w, 6.0, NULL), 0);
	assert_false(a->bad);
	assert_int_equal(a->last.delta, 4);
	assert_true(fabs(a->last.rate - 0.8) < 1e-9);
	/* A garbage link keeps the last link, and is no event. */
	set_link(NIC, "fast\n", "sixteen\n");
	assert_int_equal(pcie_watch_read(&f->w, 7.0, NULL), 0);
	assert_true(fn(&f->w, NIC)->link_bad);
	assert_int_equal(fn(&f->w, NIC)->link.width.v, 16);
	set_link(NIC, "16.0 GT/s PCIe\n", "64\n");
	assert_int_equal(pcie_watch_read(&f->w, 8.0, NULL), 0);
	assert_true(fn(&f->w, NIC)->link_bad);
	assert_int_equal(f->w.nev, 0);
	/* A file absent at open: that function has no AER there. */
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s%s/aer_dev_fatal", top, dir_of(RP));
	unlink(p);
	pcie_watch_close(&f->w);
	open_live(f);
	assert_int_equal(pcie_watch_read(&f->w, 9.0, NULL), 0);
	assert_false(fn(&f->w, RP)->aer[PCIE_AER_FATAL].present);
	assert_true(fn(&f->w, RP)->aer[PCIE_AER_NONFATAL].present);
}

/* ---- capture and playback ---- */

/* Everything a step leaves that a view or a finding reads. */
static void assert_same(const struct pcie_watch *a, const struct pcie_watch *b)
{
	assert_int_equal(a->nfns, b->nfns);
	assert_int_equal(a->tick, b->tick);
	for (int i = 0; i < a->nfns; i++) {
		const struct pcie_fn *x = &a->fns[i], *y = &b->fns[i];
		assert_string_equal(x->bdf, y->bdf);
		assert_int_equal(x->present, y->present);
		assert_int_equal(x->link_read, y->link_read);
		assert_int_equal(x->link_bad, y->link_bad);
		assert_int_equal(x->link.speed.ok, y->link.speed.ok);
		assert_true(x->link.speed.v == y->link.speed.v);
		assert_int_equal(x->link.width.ok, y->link.width.ok);
		assert_int_equal(x->link.width.v, y->link.width.v);
		for (int k = 0; k < PCIE_AER_KINDS; k++) {
			const struct pcie_aer *p = &x->aer[k], *q = &y->aer[k];
			assert_int_equal(p->present, q->present);
			assert_int_equal(p->valid, q->valid);
			assert_int_equal(p->bad, q->bad);
			assert_int_equal(p->cur.total, q->cur.total);
			assert_int_equal(p->since_baseline, q->since_baseline);
			assert_int_equal(p->window_peak, q->window_peak);
			assert_int_equal(p->last.flags, q->last.flags);
			assert_int_equal(p->last.delta, q->last.delta);
			assert_true(p->last.rate == q->last.rate);
			assert_int_equal(memcmp(&p->cur, &q->cur, sizeof(p->cur)), 0);
		}
	}
	assert_int_equal(a->nev, b->nev);
	for (int e = 0; e < a->nev; e++) {
		const struct pcie_event *x = pcie_watch_event(a, e), *y = pcie_watch_event(b, e);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->fn, y->fn);
		assert_true(x->t == y->t);
		assert_int_equal(x->to.width.v, y->to.width.v);
	}
}

static void test_playback_of_live(void **state)
{
	struct fx *f = *state;
	char err[128];
	open_live(f);
	json_t *recs[6];
	double ts[6] = { 1, 2, 3.5, 4, 5, 6 };
	for (int k = 0; k < 6; k++) {
		if (k == 1) {
			set_link(NIC, "8.0 GT/s PCIe\n", "8\n");
			attr(NIC, "aer_dev_correctable", "RxErr 9\nBadTLP 3\nTOTAL_ERR_COR 12\n");
		} else if (k == 2) {
			put_n("/sys/bus/pci/devices/" GPU "/aer_dev_nonfatal", "\x01\x02\n", 3);
			attr(USP, "aer_dev_fatal", "DLP 2\nTOTAL_ERR_FATAL 2\n");
		} else if (k == 3) {
			char p[PATH_MAX];
			snprintf(p, sizeof(p), "%s%s", top, dir_of(GPU));
			const char *rm[] = { "rm", "-rf", "--", p, NULL };
			run(rm);
			attr(NIC, "aer_dev_correctable", "RxErr 0\nTOTAL_ERR_COR 1\n");
		} else if (k == 4) {
			make_fn(GPU, "0x030200\n", "0x10de\n", "32.0 GT/s PCIe\n", "16\n");
			set_link(NIC, "Unknown\n", "0\n");
		} else if (k == 5) {
			attr(NIC, "aer_dev_correctable", "RxErr 0\nTOTAL_ERR_COR 1");
		}
		assert_int_equal(pcie_watch_read(&f->w, ts[k], &recs[k]), 0);
		assert_non_null(recs[k]);
	}
	/* The records survive a round trip through JSON text, as a capture file. */
	struct pcie_watch pb;
	assert_int_equal(pcie_watch_open(&pb, NULL, &f->m, err, sizeof(err)), 0);
	for (int k = 0; k < 6; k++) {
		char *s = json_dumps(recs[k], JSON_COMPACT);
		json_error_t je;
		json_t *back = json_loads(s, 0, &je);
		assert_non_null(back);
		assert_int_equal(pcie_watch_apply(&pb, back, ts[k]), 0);
		json_decref(back);
		free(s);
		json_decref(recs[k]);
	}
	assert_same(&f->w, &pb);
	/* And the findings are the same. */
	struct fab_model o1, o2;
	bool moving[1] = { true };
	findings(f, moving, &o1);
	model_init(&o2);
	pcie_watch_findings(&pb, &f->m, moving, &o2);
	assert_int_equal(o1.nfindings, o2.nfindings);
	assert_true(o1.nfindings >= 4);
	for (int i = 0; i < o1.nfindings; i++) {
		assert_string_equal(o1.findings[i].id, o2.findings[i].id);
		assert_string_equal(o1.findings[i].message, o2.findings[i].message);
		assert_string_equal(o1.findings[i].evidence, o2.findings[i].evidence);
	}
	model_free(&o1);
	model_free(&o2);
	pcie_watch_close(&pb);
}

/* The recorded file in the fixtures (the capture format), with exact values. */
static void test_playback_recorded(void **state)
{
	struct fx *f = *state;
	char err[128];
	json_error_t je;
	json_t *doc = json_load_file(FIX "recorded.json", 0, &je);
	assert_non_null(doc);
	assert_int_equal(pcie_watch_open(&f->w, NULL, &f->m, err, sizeof(err)), 0);
	assert_int_equal(pcie_watch_read(&f->w, 0, NULL), -1);   /* no root: playback only */
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(doc, "samples"), i, s)
		assert_int_equal(pcie_watch_apply(&f->w, json_object_get(s, "pcie"),
						  json_real_value(json_object_get(s, "t"))), 0);
	json_decref(doc);
	struct pcie_fn *n = fn(&f->w, NIC);
	assert_int_equal(n->aer[PCIE_AER_COR].since_baseline, 12);
	assert_true(fabs(n->aer[PCIE_AER_COR].last.rate - 8.0) < 1e-9);   /* 12 in 1.5 s */
	assert_int_equal(n->link.width.v, 8);
	assert_int_equal(fn(&f->w, USP)->aer[PCIE_AER_FATAL].since_baseline, 1);
	assert_false(fn(&f->w, GPU)->present);
	assert_int_equal(f->w.nev, 2);
	assert_int_equal(pcie_watch_event(&f->w, 0)->kind, PCIE_EV_LINK);
	assert_int_equal(pcie_watch_event(&f->w, 1)->kind, PCIE_EV_GONE);
	struct fab_model out;
	bool moving[1] = { true };
	assert_int_equal(findings(f, moving, &out), 6);
	assert_non_null(finding(&out, "pcie.aer-total", "PCIe"));
	assert_int_equal(finding(&out, "pcie.aer-grew", "mlx5_0")->sev, SEV_WARN);   /* 12 in 1.5 s */
	assert_int_equal(finding(&out, "pcie.aer-grew", "switch port " USP)->sev, SEV_ERROR);
	assert_int_equal(finding(&out, "pcie.below-cap-under-load", "mlx5_0")->sev, SEV_WARN);
	assert_int_equal(finding(&out, "pcie.link-changed", "mlx5_0")->sev, SEV_WARN);
	assert_int_equal(finding(&out, "pcie.function-gone", "GPU0")->sev, SEV_ERROR);
	model_free(&out);
}

static void test_playback_hostile(void **state)
{
	struct fx *f = *state;
	char err[128];
	assert_int_equal(pcie_watch_open(&f->w, NULL, &f->m, err, sizeof(err)), 0);
	json_t *arr = json_array();
	assert_int_equal(pcie_watch_apply(&f->w, arr, 1.0), -1);
	assert_int_equal(pcie_watch_apply(&f->w, NULL, 1.0), -1);
	json_decref(arr);
	assert_int_equal(f->w.tick, 0);
	/* A function that is not an object; files that are numbers, arrays,
	 * NUL-laden, longer than a page; a link that is an object; unknown
	 * functions and keys. */
	char *big = malloc(3 * FAB_SYSFS_PAGE + 1);
	memset(big, 'A', 3 * FAB_SYSFS_PAGE);
	big[3 * FAB_SYSFS_PAGE] = '\0';
	json_t *o = json_pack("{s:i, s:{s:i, s:[], s:s%, s:o, s:{}}, s:{s:s, s:s}, s:{s:s}, s:s}",
			      RP, 7,
			      NIC, "aer_dev_correctable", 3, "aer_dev_nonfatal",
			      "aer_dev_fatal", "Undefined 0\0TOTAL_ERR_FATAL 0\n", (size_t)30,
			      "current_link_speed", json_null(), "current_link_width",
			      USP, "aer_dev_correctable", big, "current_link_speed", "16.0 GT/s PCIe\n",
			      "9999:ff:ff.7", "aer_dev_fatal", "TOTAL_ERR_FATAL 1\n",
			      "junk", "x");
	free(big);
	assert_non_null(o);
	assert_int_equal(pcie_watch_apply(&f->w, o, 1.0), 0);
	json_decref(o);
	struct pcie_fn *rp = fn(&f->w, RP), *n = fn(&f->w, NIC), *u = fn(&f->w, USP);
	assert_true(rp->present);
	for (int k = 0; k < PCIE_AER_KINDS; k++)
		assert_int_equal(rp->aer[k].last.flags, CTR_UNREADABLE);
	assert_int_equal(n->aer[PCIE_AER_COR].last.flags, CTR_UNREADABLE);
	assert_int_equal(n->aer[PCIE_AER_NONFATAL].last.flags, CTR_UNREADABLE);
	assert_int_equal(n->aer[PCIE_AER_FATAL].last.flags, CTR_UNREADABLE);   /* a NUL: binary */
	assert_true(n->link_bad);
	assert_int_equal(u->aer[PCIE_AER_COR].last.flags, CTR_UNREADABLE);   /* over a page */
	assert_false(u->aer[PCIE_AER_FATAL].present);
	assert_true(u->link_bad);   /* no width */
	assert_false(fn(&f->w, GPU)->present);
	/* NaN time: refused. */
	o = json_object();
	assert_int_equal(pcie_watch_apply(&f->w, o, NAN), -1);
	json_decref(o);
	struct fab_model out;
	/* The GPU and DSP, not in the object: vanished; the unreadable ones are
	 * unknown, said once (pcie.unread), never "no errors". */
	assert_int_equal(findings(f, NULL, &out), 3);
	assert_non_null(finding(&out, "pcie.function-gone", "GPU0"));
	assert_non_null(finding(&out, "pcie.function-gone", "switch port " DSP));
	const struct fab_finding *u3 = finding(&out, "pcie.unread", "PCIe");
	assert_non_null(u3);
	assert_int_equal(u3->sev, SEV_INFO);
	assert_non_null(strstr(u3->message, "3 PCI function(s) could not be watched"));
	model_free(&out);
}

/* ---- which HCAs move traffic: from the sampler's one classifier ---- */

static void test_nic_moving(void **state)
{
	struct fx *f = *state;
	struct fab_series ports[3];
	memset(ports, 0, sizeof(ports));
	snprintf(ports[0].dev, sizeof(ports[0].dev), "mlx5_0");
	ports[0].port = 0;
	ports[0].present = true;
	ports[0].t_moved = 5;
	snprintf(ports[1].dev, sizeof(ports[1].dev), "mlx5_0");
	ports[1].port = 1;
	ports[1].present = true;
	ports[1].t_moved = 4;   /* moved before, not in the last step */
	snprintf(ports[2].dev, sizeof(ports[2].dev), "mlx5_9");
	ports[2].port = 1;
	ports[2].present = true;
	ports[2].t_moved = 5;
	struct fab_sampler s = { .ports = ports, .nports = 3, .tick = 5, .t_last = 5 };
	bool moving[1] = { true };
	pcie_nic_moving(&s, &f->m, moving);
	assert_false(moving[0]);
	ports[1].t_moved = 5;
	pcie_nic_moving(&s, &f->m, moving);
	assert_true(moving[0]);
	ports[1].present = false;
	pcie_nic_moving(&s, &f->m, moving);
	assert_false(moving[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_real),
		cmocka_unit_test(test_parse_hostile),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_aer_deltas_and_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_aer_cor_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_transitions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_below_cap_traffic_vs_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpu_judged_when_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vanished, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_playback_of_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_playback_recorded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_playback_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nic_moving, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
