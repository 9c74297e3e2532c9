/* libFuzzer target: the perftest output parser over arbitrary bytes, fed in
 * chunks whose sizes come from the input itself (a pipe splits output
 * anywhere), each in its own exact-size heap copy so ASan sees any read
 * past it. Then the bounds perftest.h promises. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "perftest.h"

static struct perftest p;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	perftest_init(&p);
	size_t i = 0;
	while (i < size) {
		size_t n = 1 + data[i] % 97;   /* the chunk's size, then the chunk */
		i++;
		if (n > size - i)
			n = size - i;
		char *chunk = malloc(n ? n : 1);
		if (!chunk)
			abort();
		memcpy(chunk, data + i, n);
		perftest_feed(&p, chunk, n);
		free(chunk);
		i += n;
	}
	perftest_end(&p);
	if (p.nbw < 0 || p.nbw > PT_MAX_ROWS || p.nlat < 0 || p.nlat > PT_MAX_ROWS ||
	    p.blen >= sizeof(p.buf) || strlen(p.err_line) >= sizeof(p.err_line) ||
	    strlen(p.test) >= sizeof(p.test) || (p.err != PT_ERR_NONE) != (p.nerrors > 0))
		abort();
	for (int r = 0; r < p.nbw; r++)
		if (p.bw[r].avg_gbps != p.bw[r].avg_gbps)   /* NaN */
			abort();
	return 0;
}
