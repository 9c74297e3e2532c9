/* cli.c - main's command line (see cli.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fabtop/ras.h"
#include "fabtop/sanitize.h"
#include "fabtop/hazard.h"

const char fab_cli_usage[] =
"usage: fabtop [--root DIR|FILE.tar.gz]             TUI (bundled demo when this node has no HCA)\n"
"              [--ras ADDR] [--window S]             the Job pane's RAS address and window\n"
"       fabtop [--root R] report [topo|links|all] [--json]\n"
"                                                    batch output, no TTY needed\n"
"       fabtop [--root R] report counters [--interval S] [--count N] [--json]\n"
"                                                    counter rates, sample by sample (like top -b;\n"
"                                                    default 5 samples 1 s apart; a capture with\n"
"                                                    samples plays them all back)\n"
"       fabtop [--root R] report job [--ras ADDR] [--window S] [--verbose] [--json]\n"
"                                                    the job as NCCL's RAS sees it: which rank is\n"
"                                                    stuck (job-ok 0; job-stuck, job-dead-ranks,\n"
"                                                    job-init 1; ras-off, ras-unavailable, no-job 2)\n"
"       fabtop [--root R] report metrics [-o FILE.prom]\n"
"                                                    Prometheus text (docs/metrics.md); -o writes\n"
"                                                    FILE atomically for node_exporter's textfile\n"
"                                                    collector (exit status: the verdict)\n"
"       fabtop capture -o FILE.tar.gz|DIR/|- [--force] [--samples N --interval S]\n"
"                                                    record this node for replay with --root\n"
"                                                    (an existing file is replaced only with\n"
"                                                    --force; a FIFO or /dev/null is written\n"
"                                                    in place; - is standard output;\n"
"              [--ras ADDR] [--window S]             RAS asked at the start and, with --window,\n"
"                                                    again S seconds later)\n"
"       fabtop [--root R] wizard [--batch] [--steps job,l1,l2,l3,ab] [--peer HOST]...\n"
"              [--iface IF] [--hca LIST] [--json]    the NCCL test ladder, step by step\n"
"                                                    (`fabtop wizard --help` for the rest)\n"
"       fabtop analyze-log FILE... [--json] [--root R]\n"
"                                                    NCCL_DEBUG logs: network, HCAs, GDR, errors, verdict;\n"
"                                                    nccl-tests runs against the HCAs' line rate\n"
"       fabtop diff A [B] [--all] [--json] | diff --golden G [A]\n"
"                                                    two nodes side by side (captures or saved\n"
"                                                    report all --json; B omitted: this node)\n"
"       fabtop fleet CAPTURE...|DIR... [--json] [--batch]\n"
"                                                    many nodes: one row each, then the odd ones\n"
"                                                    out of their kind (`fabtop fleet --help`)\n"
"       fabtop demo [NAME]                           list the bundled scenarios, or open one\n"
"       fabtop learn [--list] [ID|N]                 guided exercises on the bundled scenarios:\n"
"                                                    find the cause of a symptom in the panes\n"
"Any command reading counters (the TUI, report, capture) also takes\n"
"              [--exclude-dev DEV[,DEV...]]           RDMA devices whose counters are never read\n"
"                                                    (NVSwitch management functions whose VPD\n"
"                                                    cannot be read; those saying SMDL=SW_MNG\n"
"                                                    are skipped anyway)\n"
"Every command also takes\n"
"              [--lang LANG]                         the interface's language: zh_CN, or C for\n"
"                                                    English (default: the locale, LANGUAGE,\n"
"                                                    LC_ALL, LC_MESSAGES, LANG); JSON stays English\n"
"              [-M | --no-mouse]                     the console ignores the mouse\n"
"       fabtop --version | --help\n"
"Exit status: 0 healthy, 1 findings of warning severity or worse, 2 usage or environment error.\n";

int fab_cli_parse(int argc, char **argv, struct fab_cli *out)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "samples", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "source", required_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'f' },
		{ "ras", required_argument, NULL, 'r' },
		{ "window", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "exclude-dev", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	memset(out, 0, sizeof(*out));
	out->interval = 1.0;
	/* 0, not 1: glibc then starts afresh, forgetting where it stopped in
	 * the last argv it parsed (a cluster like -jh left half read). */
	optind = 0;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "o:jhV", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'R': out->root = optarg; break;
		case 'j': out->json = true; break;
		case 'o': out->output = optarg; break;
		case 's': out->source = optarg; break;
		case 'f': out->force = true; break;
		case 'r': {
			struct ras_addr a;
			if (ras_addr_parse(optarg, &a) != 0) {
				fab_fprintf(stderr, "fabtop: --ras wants HOST:PORT, [V6]:PORT or HOST (port %s), not \"%s\"\n",
					    RAS_DEFAULT_PORT, optarg);
				return 2;
			}
			out->ras = optarg;
			break;
		}
		case 'v': out->verbose = true; break;
		case 'x':
			if (!hazard_exclude_valid(optarg)) {
				fab_fprintf(stderr, "fabtop: --exclude-dev wants RDMA device names separated by "
					    "commas (mlx5_0,mlx5_1), not \"%s\"\n", optarg);
				return 2;
			}
			out->exclude_dev = optarg;
			break;
		case 'w':
			out->window = strtod(optarg, &end);
			if (*end || !(out->window > 0.0) || out->window > 86400) {
				fab_fprintf(stderr, "fabtop: --window wants seconds (0 < S <= 86400), not \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 'n': {
			/* Checked as a long: cast first, 2^32 + 1 became 1. */
			long v = strtol(optarg, &end, 10);
			if (!*optarg || *end || v < 0 || v > 100000) {
				fab_fprintf(stderr, "fabtop: --samples wants a count from 0 to 100000, not \"%s\"\n", optarg);
				return 2;
			}
			out->samples = (int)v;
			break;
		}
		case 'i':
			out->interval = strtod(optarg, &end);
			if (*end || !(out->interval > 0.0) || out->interval > 3600) {
				fab_fprintf(stderr, "fabtop: --interval wants seconds (0 < S <= 3600), not \"%s\"\n", optarg);
				return 2;
			}
			out->interval_set = true;
			break;
		case 'c': {
			long v = strtol(optarg, &end, 10);
			if (!*optarg || *end || v < 1 || v > 100000) {
				fab_fprintf(stderr, "fabtop: --count wants a number of samples from 1 to 100000, not \"%s\"\n",
					optarg);
				return 2;
			}
			out->count = (int)v;
			break;
		}
		case 'h': fputs(fab_cli_usage, stdout); return 0;
		case 'V': puts("fabtop " FABTOP_VERSION); return 0;
		default: fputs(fab_cli_usage, stderr); return 2;
		}
	}
	out->cmd = optind < argc ? argv[optind] : NULL;
	out->arg = optind + 1 < argc ? argv[optind + 1] : NULL;
	if (optind + 2 < argc) {
		fab_fprintf(stderr, "fabtop: unexpected argument \"%s\"\n", argv[optind + 2]);
		fputs(fab_cli_usage, stderr);
		return 2;
	}
	return -1;
}

int fab_cli_globals(int *argc, char **argv, struct fab_cli_globals *g)
{
	int o = 1;
	memset(g, 0, sizeof(*g));
	g->mouse = true;
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];
		/* After "--" everything is an operand (a file named -M). */
		if (strcmp(a, "--") == 0) {
			while (i < *argc)
				argv[o++] = argv[i++];
			break;
		}
		if (strcmp(a, "-M") == 0 || strcmp(a, "--no-mouse") == 0) {
			g->mouse = false;
			continue;
		}
		if (strcmp(a, "--lang") == 0 || strncmp(a, "--lang=", 7) == 0) {
			const char *v = a[6] == '=' ? a + 7 : (i + 1 < *argc ? argv[++i] : NULL);
			if (!v || !*v || strlen(v) > 32 || strpbrk(v, "/\\")) {
				fab_fprintf(stderr, "fabtop: --lang wants a language (zh_CN, or C for "
					    "English), not \"%s\"\n", v ? v : "");
				return 2;
			}
			g->lang = v;
			continue;
		}
		if (strcmp(a, "--json") == 0)
			g->machine = true;
		argv[o++] = argv[i];
	}
	argv[o] = NULL;
	*argc = o;
	/* What a machine reads stays English: JSON, metrics, captures. */
	if (o > 1 && strcmp(argv[1], "capture") == 0)
		g->machine = true;
	for (int i = 1; i + 1 < o; i++)
		if (strcmp(argv[i], "report") == 0 && strcmp(argv[i + 1], "metrics") == 0)
			g->machine = true;
	return -1;
}
