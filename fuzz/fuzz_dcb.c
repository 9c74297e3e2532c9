/* libFuzzer target: DCB netlink replies (dcb.h) over arbitrary bytes. The
 * input, in an exact-size heap copy (ASan sees any read past it), is parsed
 * for the sequence number its first message carries and for 0, applied to
 * a netdev, judged for every traffic class, and read as a traffic_class
 * file; then the bounds dcb.h promises. Seeds: tests/fixtures/dcb. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/dcb.h"

static void check(const struct dcb_reply *r, int rc)
{
	if (rc != 0 && rc != -ENOMSG && rc != -EBADMSG)
		abort();
	if (r->err > 0 || r->err < -4095 || (rc != 0 && (r->err || r->pfc_ok || r->napp)) ||
	    r->ndscp < 0 || r->ndscp > r->napp || memchr(r->ifname, 0, sizeof(r->ifname)) == NULL)
		abort();
	for (int d = 0; d < DCB_NDSCP; d++)
		if (r->dscp2prio[d] < DCB_DSCP_SEVERAL || r->dscp2prio[d] >= DCB_NPRIO)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *b = malloc(size ? size : 1);
	struct dcb_reply r;
	if (!b)
		abort();
	memcpy(b, data, size);
	uint32_t seq = 0;
	if (size >= 12)
		memcpy(&seq, b + 8, sizeof(seq));
	for (int k = 0; k < 2; k++) {
		int rc = dcb_parse_reply(b, size, k ? 0 : seq, &r);
		check(&r, rc);
		if (rc != 0)
			continue;
		struct fab_netdev d;
		memset(&d, 0, sizeof(d));
		dcb_reply_apply(&r, size & 1 ? "mlx5_core" : "", &d);
		if (memchr(d.dcb_why, 0, sizeof(d.dcb_why)) == NULL ||
		    memchr(d.qos_trust, 0, sizeof(d.qos_trust)) == NULL)
			abort();
		for (int tc = -1; tc <= 256; tc++) {
			char why[200];
			int p = netdev_tc_priority(&d, tc, why, sizeof(why));
			if (p < -1 || p >= DCB_NPRIO || memchr(why, 0, sizeof(why)) == NULL)
				abort();
		}
	}
	char *text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	struct fab_tclass t;
	if (dcb_parse_traffic_class(text, &t)) {
		if (t.set == FAB_UNKNOWN || t.value < 0 || t.value > 255 || t.rules < 0)
			abort();
	} else if (t.set != FAB_UNKNOWN) {
		abort();
	}
	free(text);
	free(b);
	return 0;
}
