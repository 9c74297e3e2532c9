/* learn.c - `fabtop learn` (learn.h). PLACEHOLDER until the engine lands:
 * says there are no exercises yet. */
#include <stdio.h>
#include "fabtop/learn.h"

int learn_list(FILE *out)
{
	(void)out;
	return 2;
}

int learn_main(int argc, char **argv,
	       int (*tui_run)(struct fab_root *, struct fab_model *, struct wizard *))
{
	(void)argc; (void)argv; (void)tui_run;
	fprintf(stderr, "fabtop: learn: not built yet\n");
	return 2;
}
