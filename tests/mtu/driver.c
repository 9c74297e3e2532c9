/*
 * driver.c - runs mtu_probe() once and prints the result as key=value lines,
 * for tests/mtu/t_mtu.sh and bench/mtu (compiled by them against the
 * library objects; not part of fabtop).
 *
 *   driver PEER [--max N] [--min N] [--timeout S] [--retries N] [--iface IF]
 *
 * Exit 0 when the probe ran (any verdict), 2 when it could not, 64 on usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mtu_probe.h"

static int usage(void)
{
	fprintf(stderr, "usage: driver PEER [--max N] [--min N] [--timeout S] [--retries N] [--iface IF]\n");
	return 64;
}

int main(int argc, char **argv)
{
	struct mtu_opts o = { 0 };
	const char *peer = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (a[0] != '-') {
			peer = a;
			continue;
		}
		if (!v)
			return usage();
		i++;
		if (!strcmp(a, "--max"))
			o.max = atoi(v);
		else if (!strcmp(a, "--min"))
			o.min = atoi(v);
		else if (!strcmp(a, "--timeout"))
			o.timeout_s = atof(v);
		else if (!strcmp(a, "--retries"))
			o.retries = atoi(v);
		else if (!strcmp(a, "--iface"))
			o.iface = v;
		else
			return usage();
	}
	if (!peer)
		return usage();
	static struct mtu_result r;
	int rc = mtu_probe(peer, &o, &r);
	printf("rc=%d\nverdict=%s\naddr=%s\npath_mtu=%d\nhop=%s\nhop_mtu=%d\n"
	       "egress=%s\niface_mtu=%d\nroute_mtu=%d\nwrong_egress=%d\nnprobes=%d\nrate_limited=%d\n"
	       "elapsed_s=%.3f\nmessage=%s\n",
	       rc, mtu_verdict_name(r.verdict), r.addr, r.path_mtu, r.hop, r.hop_mtu,
	       r.egress, r.iface_mtu, r.route_mtu, r.wrong_egress, r.nprobes, r.rate_limited,
	       r.elapsed_s, r.message);
	for (int i = 0; i < r.nprobes; i++) {
		char line[256];
		mtu_probe_rec_str(&r.probes[i], line, sizeof(line));
		printf("probe=%s\n", line);
	}
	return rc ? 2 : 0;
}
