/*
 * main.c - the command line: TUI, report, capture, demo. Only main exits.
 * Exit status of batch commands: 0 healthy, 1 findings, 2 usage or
 * environment error.
 */
#include "fabtop/nccl_log.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "fabtop/capture.h"
#include "fabtop/collect.h"
#include "fabtop/config.h"
#include "fabtop/diff.h"
#include "fabtop/fleet.h"
#include "fabtop/hazard.h"
#include "fabtop/i18n.h"
#include "fabtop/learn.h"
#include "fabtop/report.h"
#include "fabtop/root.h"
#include "fabtop/scenario.h"
#include "fabtop/sanitize.h"
#include "fabtop/tui.h"
#include "fabtop/util.h"
#include "fabtop/wizard.h"

static int list_scenarios(void)
{
	struct scenario sc[SCEN_MAX];
	char dir[PATH_MAX];
	int n = scenario_index(sc, SCEN_MAX, dir, sizeof(dir));
	if (n <= 0) {
		fprintf(stderr, "fabtop: no bundled scenarios found (no index%s; `make` writes "
			"build/scenarios/index, `make install` installs it, or set FABTOP_SCENARIOS "
			"to a directory with one)\n", n == 0 ? " entry" : " file");
		return 2;
	}
	fab_fprintf(stdout, _("Bundled scenarios (%s):\n"), dir);
	for (int i = 0; i < n; i++)
		fab_fprintf(stdout, "  %-16s %s\n", sc[i].name, sc[i].desc);
	fputs(_("Open one with: fabtop demo NAME\n"), stdout);
	return 0;
}

/* No HCA here: the TUI opens the bundled demo instead of an empty node. */
static bool node_has_hca(void)
{
	DIR *d = opendir("/sys/class/infiniband");
	if (!d)
		return false;
	struct dirent *de;
	bool any = false;
	while (!any && (de = readdir(d)))
		any = de->d_name[0] != '.';
	closedir(d);
	return any;
}

/* Opens the root, collects, and runs the TUI or a report. */
static int run_on(const char *rootspec, const char *section, bool json, bool demo)
{
	struct fab_root root;
	struct fab_model m;
	char err[1024];
	if (root_open(&root, rootspec, err, sizeof(err)) != 0) {
		fab_fprintf(stderr, "fabtop: %s\n", err);
		return 2;
	}
	int rc;
	char why[256];
	bool script = getenv("FABTOP_SCRIPT") != NULL;
	bool no_tty = !script && (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO));
	bool bad_term = !section && !script && !no_tty && !tui_term_usable(why, sizeof(why));
	/* `report topo` shows no GID and no counter, and the console reads
	 * them after its first screen (tui.c read_detail); the other reports
	 * show every port's detail. The console draws its first frame before
	 * the GPU libraries answer (gpu_bg.c); a report waits for them. */
	bool console = !section && !no_tty && !bad_term;
	bool light = console || (section && strcmp(section, "topo") == 0);
	model_init(&m);
	if (console)
		collect_model_nowait(&root, &m, 0);
	else
		collect_model(&root, &m, light ? 0 : FAB_DETAIL_ALL);
	if (demo)
		m.demo = true;
	if (section) {
		rc = report_run(section, json, stdout, &m);
	} else if (no_tty) {
		/* No terminal: print what the TUI would have shown. */
		rc = report_run("all", json, stdout, &m);
	} else if (bad_term) {
		/* A terminal the console cannot draw on: the same, said once. */
		fprintf(stderr, "fabtop: %s: printing `fabtop report all` instead of the console "
			"(set TERM, e.g. TERM=xterm-256color, for the console)\n", why);
		gpu_bg_wait(GPU_BG_WAIT_MS);   /* a report waits for the GPU libraries */
		gpu_bg_update(&root, &m);
		rc = report_run("all", json, stdout, &m);
	} else {
		rc = tui_run(&root, &m, NULL);
	}
	model_free(&m);
	root_close(&root);
	return rc;
}

/* report counters: the model for the ports' facts, the sampler for the
 * counters, both from the one root. */
static int run_counters(const struct fab_cli *o)
{
	struct fab_root root;
	char err[1024];
	if (root_open(&root, o->root, err, sizeof(err)) != 0) {
		fab_fprintf(stderr, "fabtop: %s\n", err);
		return 2;
	}
	struct counters_opts co = {
		.interval = o->interval, .interval_set = o->interval_set,
		.count = o->count, .json = o->json,
	};
	struct fab_model m;
	model_init(&m);
	collect_all(&root, &m);
	int rc = report_counters(&root, &m, &co, stdout, stderr);
	model_free(&m);
	root_close(&root);
	return rc;
}

/* report job: the node's model to join the ranks with, RAS over the window. */
static int run_job(const struct fab_cli *o)
{
	struct fab_root root;
	char err[1024];
	if (root_open(&root, o->root, err, sizeof(err)) != 0) {
		fab_fprintf(stderr, "fabtop: %s\n", err);
		return 2;
	}
	struct job_report_opts jo = { .ras = o->ras, .window = o->window, .verbose = o->verbose, .json = o->json };
	struct fab_model m;
	model_init(&m);
	collect_all(&root, &m);
	int rc = report_job(&root, &m, &jo, stdout, stderr);
	model_free(&m);
	root_close(&root);
	return rc;
}

static int main_run(int argc, char **argv);

int main(int argc, char **argv)
{
	/* Before any thread starts (gpu_bg.c's read the environment): hwloc
	 * prints its complaints about odd sysfs trees to stderr, which would
	 * scribble over the console; failures reach the user as notes. */
	setenv("HWLOC_HIDE_ERRORS", "2", 0);
	int rc = main_run(argc, argv);
	/* A thread still inside NVML or CUDA (a hung driver): exit() would run
	 * their destructors under it. Everything is written; end here. */
	if (gpu_bg_asking()) {
		fflush(NULL);
		_exit(rc);
	}
	return rc;
}

static int main_run(int argc, char **argv)
{
	struct fab_cli o;
	struct fab_cli_globals g;
	char why[256];
	setlocale(LC_ALL, "");
	int grc = fab_cli_globals(&argc, argv, &g);
	if (grc >= 0)
		return grc;
	if (fab_i18n_init(g.lang, why, sizeof(why)) != 0)
		fab_fprintf(stderr, "fabtop: --lang %s: %s\n", g.lang, why);
	/* The settings' interval is the default of every sampler, the batch
	 * ones too (report counters, capture): read before any command. The
	 * console says a problem in the file on its status bar; report and
	 * capture say it below, on stderr. */
	cfg_load(NULL);
	if (g.machine)
		fab_i18n_off();
	tui_mouse_opts(g.mouse);
	if (argc > 1 && strcmp(argv[1], "learn") == 0)
		return learn_main(argc - 1, argv + 1, tui_run);
	/* analyze-log takes any number of files: its arguments are its own. */
	if (argc > 1 && strcmp(argv[1], "analyze-log") == 0)
		return analyze_log_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "diff") == 0)
		return diff_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "fleet") == 0)
		return fleet_main(argc - 1, argv + 1);
	/* The wizard has options of its own (--peer, --iface, ...). */
	if (wizard_is_command(argc, argv))
		return wizard_main(argc, argv, tui_run);
	int rc = fab_cli_parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	const char *cmd = o.cmd, *arg = o.arg;
	tui_job_opts(o.ras, o.window);
	/* Every reader of counters (collectors, capture, sampler) asks hazard_counters(). */
	hazard_exclude_set(o.exclude_dev);
	if (!cmd) {
		/* No HCA here: the demo opens on a node with a problem to find
		 * (a job that hangs), and its banner says how to learn it (L)
		 * and how to switch scenario (D); a healthy node teaches nothing. */
		if (!o.root && !node_has_hca() && (isatty(STDOUT_FILENO) || getenv("FABTOP_SCRIPT"))) {
			char path[PATH_MAX];
			if (scenario_find("hang", path, sizeof(path)) == 0) {
				/* Its story is in the Counters pane: traffic stops
				 * 20 s in while the retries climb. */
				tui_start_pane("counters");
				return run_on(path, NULL, o.json, true);
			}
			if (scenario_find("dgx-h100", path, sizeof(path)) == 0)
				return run_on(path, NULL, o.json, true);
		}
		return run_on(o.root, NULL, o.json, false);
	}
	if ((strcmp(cmd, "report") == 0 || strcmp(cmd, "capture") == 0) && cfg_error()[0])
		fab_fprintf(stderr, "fabtop: %s\n", cfg_error());
	if (strcmp(cmd, "report") == 0) {
		const char *section = arg ? arg : "all";
		if (strcmp(section, "counters") == 0)
			return run_counters(&o);
		if (strcmp(section, "job") == 0)
			return run_job(&o);
		if (strcmp(section, "metrics") == 0)
			return report_metrics_run(o.root, o.output, stderr);
		if (strcmp(section, "topo") && strcmp(section, "links") && strcmp(section, "all")) {
			fab_fprintf(stderr, "fabtop: unknown report \"%s\" (topo, links, counters, job, metrics or all)\n", section);
			return 2;
		}
		return run_on(o.root, section, o.json, false);
	}
	if (strcmp(cmd, "capture") == 0) {
		if (!o.output || arg) {
			fprintf(stderr, "fabtop: capture needs -o FILE.tar.gz\n%s", fab_cli_usage);
			return 2;
		}
		struct capture_opts co = {
			.output = o.output, .force = o.force, .samples = o.samples, .interval = o.interval,
			.src_root = o.source ? o.source : o.root,
			.ras = o.ras, .window = o.window,
		};
		return capture_run(&co, stderr);
	}
	if (strcmp(cmd, "demo") == 0) {
		char path[PATH_MAX];
		if (!arg)
			return list_scenarios();
		if (scenario_find(arg, path, sizeof(path)) != 0) {
			fab_fprintf(stderr, "fabtop: no scenario named \"%s\"\n", arg);
			list_scenarios();
			return 2;
		}
		return run_on(path, NULL, o.json, true);
	}
	fab_fprintf(stderr, "fabtop: unknown command \"%s\"\n", cmd);
	fputs(fab_cli_usage, stderr);
	return 2;
}
