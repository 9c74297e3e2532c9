/* libFuzzer target: the NCCL log analyzer over arbitrary bytes. The input is
 * split at '\n' and each line handed over in its own exact-size heap copy
 * (no NUL after it: ASan sees any read past len); a 0xff byte starts a new
 * source, as another file would. Then the bounds the header promises. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/nccl_log.h"

static struct nccl_log a;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	nccl_log_init(&a);
	size_t i = 0;
	while (i < size) {
		if (data[i] == 0xff) {
			nccl_log_source(&a, "next");
			i++;
			continue;
		}
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t n = nl ? (size_t)(nl - (data + i)) + 1 : size - i;
		char *line = malloc(n ? n : 1);
		if (!line)
			abort();
		memcpy(line, data + i, n);
		nccl_log_feed(&a, line, n);
		free(line);
		i += n;
	}
	nccl_log_finish(&a);

	long long kinds = 0;
	for (int k = 0; k < NCCL_E_COUNT; k++)
		kinds += a.err_kind[k];
	if (kinds != a.errors || a.nerr > NCCL_LOG_MAX_ERRORS || a.nhcas > NCCL_LOG_MAX_HCAS ||
	    a.nenv > NCCL_LOG_MAX_ENV || a.nnets > NCCL_LOG_MAX_NETS || a.nvia > NCCL_LOG_MAX_VIA ||
	    a.ncolls < 0 || a.ncolls > NCCL_LOG_MAX_COLLS || a.ngid_index > NCCL_LOG_MAX_QPVAL ||
	    a.nmtu > NCCL_LOG_MAX_QPVAL || a.nccl_lines > a.lines || a.warn_lines > a.nccl_lines ||
	    strlen(a.reason) >= sizeof(a.reason) || !nccl_verdict_name(a.verdict))
		abort();
	for (int c = 0; c < a.ncolls; c++)
		if (a.colls[c].nsizes < 0 || a.colls[c].nsizes > NCCL_LOG_MAX_SIZES ||
		    strlen(a.colls[c].reason) >= sizeof(a.colls[c].reason) ||
		    !nccl_coll_verdict_name(a.colls[c].verdict))
			abort();
	long long kept = a.err_dropped;
	for (int e = 0; e < a.nerr; e++)
		kept += a.err[e].count;
	if (kept != a.errors)
		abort();
	/* Warnings: bounded, each named, and a failed plugin says why. */
	if (a.nwarn < 0 || a.nwarn > NCCL_LOG_MAX_WARN ||
	    strlen(a.outcome_reason) >= sizeof(a.outcome_reason) ||
	    (a.plugin == NCCL_PLUGIN_FAILED) != (a.plugin_error[0] != '\0'))
		abort();
	for (int w = 0; w < a.nwarn; w++)
		if (!a.warn[w].text[0] || (a.warn[w].kind == NCCL_W_NOT_FABRIC &&
					   !nccl_if_not_fabric(a.warn[w].ifname)))
			abort();
	nccl_log_free(&a);
	return 0;
}
