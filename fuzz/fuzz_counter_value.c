/* libFuzzer target: counter_parse_value() over arbitrary bytes (not
 * NUL-terminated: ASan sees any read past len), checked against the
 * contract in sampler.h: optional leading spaces, decimal digits, optional
 * trailing spaces and one newline, nothing else; overflow rejected. Inputs
 * whose trailing blanks come in another order are left to the parser. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "fabtop/sampler.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	uint64_t got = 0, want = 0;
	int rc = counter_parse_value(s, size, &got);

	size_t i = 0;
	bool overflow = false;
	while (i < size && s[i] == ' ')
		i++;
	size_t start = i;
	for (; i < size && s[i] >= '0' && s[i] <= '9'; i++)
		overflow |= __builtin_mul_overflow(want, 10, &want) ||
			    __builtin_add_overflow(want, (uint64_t)(s[i] - '0'), &want);
	bool digits = i > start, blanks_only = true, canonical;
	int newlines = 0;
	size_t tail = i;
	for (; i < size; i++) {
		if (s[i] == '\n')
			newlines++;
		else if (s[i] != ' ')
			blanks_only = false;
	}
	/* spaces, then at most one newline, then the end */
	i = tail;
	while (i < size && s[i] == ' ')
		i++;
	canonical = i == size || (s[i] == '\n' && i + 1 == size);

	if (!digits || overflow || !blanks_only || newlines > 1) {
		if (rc != -1)
			abort();
	} else if (canonical) {
		if (rc != 0 || got != want)
			abort();
	} else if (rc != -1 && rc != 0) {
		abort();
	}
	return 0;
}
