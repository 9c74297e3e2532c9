/* Stands in for `fabtop analyze-log` until main.c dispatches to it:
 * `driver analyze-log FILE... [--json]` makes the same call main.c will. */
#include <stdio.h>
#include <string.h>
#include "fabtop/nccl_log.h"

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "analyze-log") != 0) {
		fputs("usage: driver analyze-log FILE... [--json]\n", stderr);
		return 2;
	}
	return analyze_log_main(argc - 1, argv + 1);
}
