/*
 * analyze_log_int.h - `fabtop analyze-log`'s command line, parsed apart
 * from the reading (analyze_log.c). Not a public API: the fuzz target and
 * analyze_log_main() use it.
 */
#ifndef FABTOP_ANALYZE_LOG_INT_H
#define FABTOP_ANALYZE_LOG_INT_H

#include <stdbool.h>

/* argv[0] is "analyze-log". The files ("-": standard input) go to names
 * (room for argc entries), their count to *n; --json to *json; "--" ends
 * the options; --root R to *root (NULL without). Prints --help and usage
 * errors, reads nothing. Returns -1
 * to go on (at least one file), or main's exit status: 0 after --help, 2
 * after a usage error. */
int analyze_log_parse_args(int argc, char **argv, const char **names, int *n, bool *json,
			   const char **root);

#endif
