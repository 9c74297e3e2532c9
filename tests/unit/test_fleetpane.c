/* The Fleet pane and the shell's node switch (tui.c tui_fleet_open), on a
 * fleet filled by hand with real bundled captures (build/scenarios), a
 * saved report JSON and a capture that is gone:
 *  - opening a node unpacks its capture, the next node removes the first
 *    one's temporary directory (root_close), the panes show the new node;
 *  - a report JSON and a missing capture are refused with a message and
 *    leave the open node as it was;
 *  - headless (FABTOP_SCRIPT) through tui_fleet_run: the rows, the marks,
 *    Enter to the Topology pane with the banner naming the node, Backspace
 *    back to the same selection, sorting and the odd-only list (the `/`
 *    search is the shell's: test_panes_pick.c drives the pane's find hook). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabtop/fleet.h"
#include "fabtop/model.h"
#include "fabtop/util.h"
#include "fab_archive.h"
#include "tui_int.h"

static const char *top(void)
{
	const char *t = getenv("FABTOP_TOP");
	return t && *t ? t : ".";
}

static char tmp[PATH_MAX];          /* this test's TMPDIR: the unpacked captures land here */
static char paths[5][PATH_MAX];
static struct fleet_odd odd1[2];
static struct fleet_node nodes[5];
static struct fleet fl = { .nodes = nodes, .n = 5, .nkinds = 2 };

static int count_unpacked(void)
{
	DIR *d = opendir(tmp);
	struct dirent *de;
	int n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += strncmp(de->d_name, "fabtop-root.", 12) == 0;
	closedir(d);
	return n;
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Five nodes: two healthy of one kind, one unlike them (roce-faults), a
 * saved report and a capture that could not be read. */
static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "%s/fleetpane.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp))
		return -1;
	setenv("TMPDIR", tmp, 1);
	snprintf(paths[0], PATH_MAX, "%s/build/scenarios/dgx-h100.tar.gz", top());
	snprintf(paths[1], PATH_MAX, "%s/build/scenarios/roce-faults.tar.gz", top());
	snprintf(paths[2], PATH_MAX, "%s/build/scenarios/hang.tar.gz", top());
	snprintf(paths[3], PATH_MAX, "%s/node3.json", tmp);
	snprintf(paths[4], PATH_MAX, "%s/gone.tar.gz", tmp);
	FILE *f = fopen(paths[3], "w");
	if (!f)
		return -1;
	fputs("{\"verdict\": \"ok\", \"nics\": [], \"topology\": {}}\n", f);
	fclose(f);
	odd1[0] = (struct fleet_odd){ .section = "hca", .key = "mlx5_2/1 rate", .value = "200",
				      .majority = "400", .agree = 2, .of = 3 };
	odd1[1] = (struct fleet_odd){ .section = "hca", .key = "firmware", .value = "28.39.1002",
				      .majority = "28.40.1000", .agree = 2, .of = 3 };
	const char *host[5] = { "dgx-h100-demo", "roce-faults-demo", "hang-demo", "node3", "gone" };
	const char *verdict[5] = { "ok", "findings", "ok", "ok", "unknown" };
	for (int i = 0; i < 5; i++)
		nodes[i] = (struct fleet_node){
			.path = paths[i], .host = (char *)host[i], .kind = "8x H100 / ConnectX-7",
			.verdict = (char *)verdict[i], .ports_up = 8, .ports_expected = 8,
			.slowest = "mlx5_0/1 400 Gb/s", .firmware = "28.40.1000", .env = "",
			.topo_fp = "a1b2c3d4",
		};
	nodes[1].sev[1] = 2;
	nodes[1].sev[0] = 1;
	nodes[1].ports_up = 7;
	nodes[1].slowest = "mlx5_2/1 200 Gb/s";
	nodes[1].firmware = "28.39.1002";
	nodes[1].odd = odd1;
	nodes[1].nodd = 2;
	nodes[3].kind = "2x A100 / ConnectX-6";
	nodes[4].error = "cannot open gone.tar.gz: No such file or directory";
	nodes[4].kind = NULL;
	nodes[4].slowest = nodes[4].firmware = nodes[4].topo_fp = NULL;
	if (!is_dir(tmp))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fab_rmtree(tmp);
	return 0;
}

static bool have_scenarios(void)
{
	if (access(paths[0], R_OK) == 0 && access(paths[1], R_OK) == 0 && access(paths[2], R_OK) == 0)
		return true;
	print_message("# the bundled scenarios are missing: `make tests` builds them\n");
	return false;
}

/* The switch: each node's capture read once into memory (nothing unpacked
 * in TMPDIR, ever), the previous one's tree let go, refusals leave the
 * open node alone. */
static void switch_nodes(void **state)
{
	(void)state;
	assert_true(have_scenarios());
	struct tui t;
	struct fab_model m;
	const struct memtree *first;
	model_init(&m);
	tui_init(&t, NULL, &m, NULL);
	t.fleet = t.ctx.fleet = &fl;
	assert_true(t.fleet_pane >= 0);
	t.cur = t.fleet_pane;
	assert_int_equal(count_unpacked(), 0);

	assert_int_equal(tui_fleet_open(&t, 0), 0);
	assert_string_equal(t.ctx.fleet_msg, "");
	assert_ptr_equal(t.root, &t.node_root);
	assert_int_equal(t.ctx.fleet_shown, 0);
	assert_int_equal(t.cur, t.topo_pane);
	assert_string_equal(m.host, "dgx-h100-demo");
	assert_non_null(t.node_root.mem);
	assert_int_equal(count_unpacked(), 0);
	first = t.node_root.mem;
	for (int i = 0; i < t.npanes; i++)
		assert_true(t.opened[i]);

	/* Another node: the first one's unpacked files are gone. */
	assert_int_equal(tui_fleet_open(&t, 1), 0);
	assert_string_equal(m.host, "roce-faults-demo");
	assert_non_null(t.node_root.mem);
	assert_int_equal(count_unpacked(), 0);
	assert_int_equal(t.ctx.fleet_shown, 1);

	/* A saved report: refused in one line, the node stays open. */
	t.cur = t.fleet_pane;
	assert_int_equal(tui_fleet_open(&t, 3), -1);
	assert_non_null(strstr(t.ctx.fleet_msg, "node3 is a saved report"));
	assert_int_equal(t.ctx.fleet_shown, 1);
	assert_string_equal(m.host, "roce-faults-demo");
	assert_int_equal(t.cur, t.fleet_pane);
	assert_int_equal(count_unpacked(), 0);

	/* A capture that is gone: why, and still the same node. */
	assert_int_equal(tui_fleet_open(&t, 4), -1);
	assert_non_null(strstr(t.ctx.fleet_msg, "cannot open gone:"));
	assert_int_equal(t.ctx.fleet_shown, 1);
	assert_non_null(t.node_root.mem);

	/* The same node again: not read again, just the panes. */
	first = t.node_root.mem;
	assert_int_equal(tui_fleet_open(&t, 1), 0);
	assert_ptr_equal(first, t.node_root.mem);
	assert_int_equal(t.cur, t.topo_pane);

	tui_finish(&t);
	for (int i = 0; i < t.npanes; i++)
		assert_false(t.opened[i]);
	root_close(t.root);
	assert_int_equal(count_unpacked(), 0);
	model_free(&m);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[1 << 16];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return f ? buf : NULL;
}

/* The line of a dump that starts with prefix, or NULL. */
static const char *line_of(const char *dump, const char *prefix)
{
	static char line[1024];
	for (const char *p = dump; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (strncmp(p, prefix, strlen(prefix)) == 0) {
			snprintf(line, sizeof(line), "%.*s", (int)n, p);
			return line;
		}
		p = e ? e + 1 : NULL;
	}
	return NULL;
}

#define DUMP(name) do { snprintf(d, sizeof(d), "%s/%s.txt", tmp, name); } while (0)

static void run_script(const char *script, int size_w, int size_h)
{
	char spath[PATH_MAX], size[32];
	snprintf(spath, sizeof(spath), "%s/script", tmp);
	FILE *f = fopen(spath, "w");
	assert_non_null(f);
	fputs(script, f);
	fclose(f);
	snprintf(size, sizeof(size), "%dx%d", size_w, size_h);
	setenv("FABTOP_SCRIPT", spath, 1);
	setenv("FABTOP_SCRIPT_SIZE", size, 1);
	setenv("LANG", "C.UTF-8", 1);
	int rc = tui_fleet_run(&fl);
	unsetenv("FABTOP_SCRIPT");
	assert_int_equal(rc, 0);
}

static void headless(void **state)
{
	(void)state;
	assert_true(have_scenarios());
	char d[PATH_MAX], script[4096];
	snprintf(script, sizeof(script),
		 "dump %s/first.txt\n"
		 "key 1\n"
		 "dump-pane %s/waiting.txt\n"
		 "key 6\n"
		 "key Down\n"
		 "dump-pane %s/sel1.txt\n"
		 "key Enter\n"
		 "dump %s/opened.txt\n"
		 "key BSpace\n"
		 "dump-pane %s/back.txt\n"
		 "key Down\n"
		 "key Down\n"
		 "key Enter\n"
		 "dump-pane %s/report.txt\n"
		 "key Down\n"
		 "key Enter\n"
		 "dump-pane %s/gone.txt\n"
		 "key s\n"
		 "dump-pane %s/sorted.txt\n"
		 "key o\n"
		 "dump-pane %s/odd.txt\n"
		 "key Esc\n"
		 "dump-pane %s/all.txt\n"
		 "key q\n",
		 tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp);
	run_script(script, 100, 40);

	/* The first frame: the Fleet pane, the banner, every node a row,
	 * roce-faults marked unlike its kind and gone as unreadable. */
	DUMP("first");
	const char *s = slurp(d), *l;
	assert_non_null(s);
	assert_non_null(strstr(s, " 6 Fleet "));
	assert_non_null(strstr(s, "FLEET: 5 nodes"));
	assert_non_null(strstr(s, "fleet of 5 nodes"));
	assert_non_null(l = line_of(s, "> "));
	assert_non_null(strstr(l, "dgx-h100-demo"));
	assert_non_null(l = line_of(s, "  ! roce-faults-demo"));
	assert_non_null(strstr(l, "findings"));
	assert_non_null(strstr(l, "7/8"));
	assert_non_null(strstr(l, "mlx5_2/1 200 Gb/s"));
	assert_non_null(l = line_of(s, "  ? gone"));
	assert_non_null(strstr(l, "unknown"));

	/* A node pane before any node is open. */
	DUMP("waiting");
	assert_non_null(strstr(slurp(d), "No node is open yet: choose one in the Fleet pane (6)"));

	/* The selected node's detail: what sets it apart. */
	DUMP("sel1");
	s = slurp(d);
	assert_non_null(l = line_of(s, "> ! roce-faults-demo"));
	assert_non_null(strstr(s, "hca mlx5_2/1 rate: 200 vs 400 on 2 of 3"));
	assert_non_null(strstr(s, "hca firmware: 28.39.1002 vs 28.40.1000 on 2 of 3"));

	/* Enter: the Topology pane on that node, the banner names it. */
	DUMP("opened");
	s = slurp(d);
	assert_non_null(strstr(s, "FLEET: node roce-faults-demo (2/5)"));
	assert_non_null(strstr(s, "Backspace returns to the fleet"));
	assert_non_null(strstr(s, "Topology source:"));
	assert_non_null(strstr(s, " roce-faults-demo "));   /* the status bar's host */

	/* Backspace: the fleet again, the same node selected. */
	DUMP("back");
	s = slurp(d);
	assert_non_null(line_of(s, "> ! roce-faults-demo"));

	/* The saved report: one line says why it cannot be opened. */
	DUMP("report");
	s = slurp(d);
	assert_non_null(line_of(s, ">   node3"));
	assert_non_null(strstr(s, "node3 is a saved report (report all --json), not a capture"));

	DUMP("gone");
	s = slurp(d);
	assert_non_null(line_of(s, "> ? gone"));
	assert_non_null(strstr(s, "cannot open gone:"));
	assert_non_null(strstr(s, "No such file or directory"));

	/* s: odd first — the unreadable node, then the odd one, at the top. */
	DUMP("sorted");
	s = slurp(d);
	assert_non_null(strstr(s, "sort: odd first"));
	const char *q = strstr(s, "  ? gone"), *r = strstr(s, " ! roce-faults-demo"),
		   *h = strstr(s, "dgx-h100-demo");
	if (!q)
		q = strstr(s, "> ? gone");
	assert_non_null(q);
	assert_non_null(r);
	assert_non_null(h);
	assert_true(q < r && r < h);

	/* o: only the nodes worth a look. */
	DUMP("odd");
	s = slurp(d);
	assert_non_null(strstr(s, "roce-faults-demo"));
	assert_non_null(strstr(s, "gone"));
	assert_null(strstr(s, "dgx-h100-demo"));
	assert_null(strstr(s, "hang-demo"));

	/* Esc: every node listed again. */
	DUMP("all");
	s = slurp(d);
	assert_non_null(strstr(s, "dgx-h100-demo"));
	assert_non_null(strstr(s, "hang-demo"));
	assert_null(strstr(s, "worth a look ("));
	/* Every capture it unpacked is gone once it quit. */
	assert_int_equal(count_unpacked(), 0);
}

/* Without a fleet (`fabtop --root`) the Fleet pane is not in the tab bar:
 * 6 is the Help pane, and Backspace (back to the fleet) does nothing. */
static void no_fleet(void **state)
{
	(void)state;
	assert_true(have_scenarios());
	struct fab_root r;
	struct fab_model m;
	char err[512], d[PATH_MAX], script[1024];
	assert_int_equal(root_open(&r, paths[0], err, sizeof(err)), 0);
	model_init(&m);
	snprintf(script, sizeof(script), "key 6\ndump-pane %s/none.txt\nkey BSpace\ndump-pane %s/none2.txt\nkey q\n",
		 tmp, tmp);
	char spath[PATH_MAX];
	snprintf(spath, sizeof(spath), "%s/script", tmp);
	FILE *f = fopen(spath, "w");
	assert_non_null(f);
	fputs(script, f);
	fclose(f);
	setenv("FABTOP_SCRIPT", spath, 1);
	setenv("FABTOP_SCRIPT_SIZE", "80x24", 1);
	assert_int_equal(tui_run(&r, &m, NULL), 0);
	unsetenv("FABTOP_SCRIPT");
	DUMP("none");
	const char *s = slurp(d);
	assert_non_null(s);
	assert_null(strstr(s, "No fleet loaded."));
	assert_non_null(strstr(s, "fabtop: diagnostics console"));
	/* Backspace does nothing without a fleet: the same pane. */
	char first[8192];
	fab_strlcpy(first, s, sizeof(first));
	DUMP("none2");
	assert_string_equal(first, slurp(d));
	model_free(&m);
	root_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(switch_nodes),
		cmocka_unit_test(headless),
		cmocka_unit_test(no_fleet),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
