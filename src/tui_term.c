/* tui_term.c - whether this terminal can hold the console (tui.h). Apart
 * from tui.c because <term.h> defines macros named like ordinary words
 * (lines, columns). */
#include <stdio.h>
#include <stdlib.h>
#include <curses.h>
#include <term.h>
#include <unistd.h>
#include "fabtop/tui.h"

bool tui_term_usable(char *why, size_t len)
{
	const char *term = getenv("TERM");
	int err = 0;
	if (!term || !*term) {
		snprintf(why, len, "TERM is not set");
		return false;
	}
	/* Without cursor addressing (cup) every frame would scroll past as
	 * text: TERM=dumb, an emacs shell buffer, a serial console. */
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
		snprintf(why, len, "TERM=%s has no terminfo entry", term);
		return false;
	}
	const char *cup = tigetstr("cup");
	bool ok = cup && cup != (char *)-1;
	del_curterm(cur_term);
	if (!ok)
		snprintf(why, len, "TERM=%s cannot move the cursor (no \"cup\" in its terminfo)", term);
	return ok;
}
