/* libFuzzer target: NCCL RAS replies and MONITOR streams over arbitrary
 * bytes. The input, in an exact-size heap copy (no NUL after it: ASan sees
 * any read past len), goes to ras_parse whole, and to ras_parse_events in
 * chunks cut at its bytes' values, with the partial rest carried over as
 * the client carries it. Then the bounds ras.h promises. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/ras.h"

static void check_reply(const struct ras_reply *r, int rc)
{
	if ((rc == 0) == (r->error[0] != '\0') || strlen(r->error) >= sizeof(r->error) ||
	    r->ncomms < 0 || r->nprocs < 0 || r->unknown_lines < 0 ||
	    strlen(r->nccl_version) >= sizeof(r->nccl_version))
		abort();
	for (int i = 0; i < r->ncomms; i++) {
		const struct ras_comm *c = &r->comms[i];
		if (c->nranks < 0 || c->ngroups < 0 || c->nnotes < 0 || c->nnotes > 4 ||
		    strlen(c->hash) >= sizeof(c->hash) || strlen(c->errors) >= sizeof(c->errors) ||
		    (c->nranks && !c->ranks) || (c->ngroups && !c->groups))
			abort();
		for (int k = 0; k < c->nranks; k++)
			if (c->ranks[k].ncounts < 0 || c->ranks[k].ncounts > RAS_MAX_OPS ||
			    strlen(c->ranks[k].host) >= sizeof(c->ranks[k].host))
				abort();
	}
}

static void events(const uint8_t *data, size_t size)
{
	struct ras_event ev[4];
	char *pending = malloc(size ? size : 1);
	size_t have = 0;
	if (!pending)
		abort();
	for (size_t i = 0; i < size;) {
		size_t step = 1 + data[i] % 64;
		if (step > size - i)
			step = size - i;
		memcpy(pending + have, data + i, step);
		have += step;
		i += step;
		size_t used = 0;
		int n = ras_parse_events(pending, have, ev, 4, &used);
		if (n < 0 || n > 4 || used > have)
			abort();
		for (int k = 0; k < n; k++)
			if (strlen(ev[k].host) >= sizeof(ev[k].host) ||
			    strlen(ev[k].details) >= sizeof(ev[k].details))
				abort();
		memmove(pending, pending + used, have - used);
		have -= used;
	}
	free(pending);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct ras_reply r;
	if (!buf)
		abort();
	memcpy(buf, data, size);
	int rc = ras_parse(buf, size, &r);
	check_reply(&r, rc);
	ras_reply_free(&r);
	free(buf);
	events(data, size);
	return 0;
}
