/*
 * cli.h - main's command line, parsed apart from what it runs: the
 * options of `fabtop [OPTIONS] [COMMAND [ARG]]` (report, capture, demo,
 * the TUI). analyze-log and wizard parse their own (analyze_log_int.h,
 * wizard_int.h); main hands them the argv before this parser sees it.
 *
 * fab_cli_parse() only parses: it prints --help and --version, and a
 * usage error, and opens, reads or runs nothing. Numbers it accepts are
 * within what its messages promise: samples 0..100000, interval in
 * (0, 3600] seconds, count 1..100000 (0: not given), window in (0, 86400] seconds. It may be called
 * again with another argv: getopt's state is reset each time.
 */
#ifndef FABTOP_CLI_H
#define FABTOP_CLI_H

#include <stdbool.h>

struct fab_cli {
	const char *root;
	bool json;
	const char *output;
	const char *source;
	int samples;
	double interval;
	bool interval_set;
	int count;
	bool force;
	const char *ras;              /* --ras ADDR: report job, capture */
	double window;                /* --window S: report job, capture; 0 not given */
	bool verbose;                 /* --verbose: VERBOSE STATUS for report job */
	const char *exclude_dev;      /* --exclude-dev LIST: counters never read (hazard.h) */
	const char *cmd;              /* the first word: report, capture, demo; NULL: the TUI */
	const char *arg;              /* the word after it, or NULL */
};

/* Options every command takes, taken out of argv before any command's
 * own parser sees it: --lang LANG (i18n.h), -M/--no-mouse; and whether the
 * output is for a machine (--json anywhere, capture, report metrics), which
 * stays English. */
struct fab_cli_globals {
	const char *lang;             /* NULL: the locale's */
	bool mouse;
	bool machine;
};
/* Removes the global options from argv (argc updated); -1 to go on, or 2
 * after a usage error (said on stderr). */
int fab_cli_globals(int *argc, char **argv, struct fab_cli_globals *g);

/* What `fabtop --help` prints. */
extern const char fab_cli_usage[];

/* Fills out from argv (its strings are pointed at, not copied). Returns
 * -1 to go on with out->cmd, or the exit status for main: 0 after --help
 * or --version, 2 after a usage error (said on stderr). */
int fab_cli_parse(int argc, char **argv, struct fab_cli *out);

#endif
