/* libFuzzer target: what a user types into the wizard (the pane's editor
 * and the options), the last thing before an argv: the host, interface and
 * HCA-list validators and the A/B command splitter. Checked: a string the
 * validators accept has no shell metacharacter and no leading '-'; the
 * splitter reads back word for word what it printed (wizard_cmd_line). */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/runner.h"
#include "fabtop/wizard.h"

static struct wizard *w;

static bool plain(const char *s)
{
	return !strpbrk(s, ";|&$`<>()\\\"' \t\n*?[]{}!~") && s[0] != '-';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[256], err[320];
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!w)
		w = wizard_new(NULL, NULL, NULL, 0);
	if (run_valid_host(s, why, sizeof(why)))
		assert(plain(s) && strlen(s) <= 253);
	if (run_valid_ifname(s, why, sizeof(why)))
		assert(plain(s) && strlen(s) <= 15 && !strchr(s, '/') && !strchr(s, ':'));
	if (run_valid_hca_list(s, why, sizeof(why)))
		assert(!strpbrk(s, ";|&$`<>()\\\"' \t\n"));
	if (w) {
		(void)wizard_set_peers(w, s, err, sizeof(err));
		(void)wizard_set_iface(w, s, err, sizeof(err));
		(void)wizard_set_hca(w, s, err, sizeof(err));
		if (wizard_set_cmd(w, s, err, sizeof(err)) == 0) {
			/* What it printed splits back into the same words. */
			char line[16384], again[16384];
			wizard_cmd_line(w, line, sizeof(line));
			if (wizard_set_cmd(w, line, err, sizeof(err)) == 0) {
				wizard_cmd_line(w, again, sizeof(again));
				assert(strcmp(line, again) == 0);
			}
		}
	}
	free(s);
	return 0;
}
