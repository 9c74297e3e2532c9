/* sampler_netdev - the sampler's live path for a port's netdev (its ethtool
 * statistics as a SER_NETDEV series) on a real netdev, for
 * tests/counters/t_ethtool_veth.sh. This machine has no RDMA device, so the
 * port is declared here: a model with one RoCE port "fake0/1" whose netdev
 * is IF, and its series in the sampler; everything after that is what a
 * node runs: sampler_use_model() lists IF through the kernel,
 * sampler_read() reads it each step.
 *
 *   sampler_netdev IF
 *     reads once, prints "# ready", waits for a line on standard input
 *     (the test sends traffic meanwhile), reads again and prints
 *       # series KIND owner=N n=COUNT why=WHY
 *       name delta=D flags=F      (every statistic that grew, listed order)
 *     Exits 1 when IF's statistics could not be listed.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "sampler_int.h"
#include "fabtop/model.h"
#include "fabtop/root.h"
#include "fabtop/vocab.h"

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct fab_root r;
	struct fab_sampler s;
	struct fab_model m;
	char err[256] = "", line[64], flags[96];
	if (argc != 2) {
		fprintf(stderr, "usage: sampler_netdev IF\n");
		return 2;
	}
	if (root_open(&r, "/", err, sizeof(err)) != 0) {
		fprintf(stderr, "root: %s\n", err);
		return 2;
	}
	memset(&s, 0, sizeof(s));
	s.root = &r;
	model_init(&m);
	struct fab_nic *n = model_add_nic(&m);
	snprintf(n->name, sizeof(n->name), "fake0");
	n->pci = FAB_NO_INDEX;
	n->nports = 1;
	n->ports[0].num = 1;
	n->ports[0].ll = FAB_LL_ETH;
	snprintf(n->ports[0].netdev, sizeof(n->ports[0].netdev), "%s", argv[1]);
	if (sampler_add_port(&s, "fake0", 1) != 0)
		return 2;
	sampler_use_model(&s, &m);
	int k = sampler_netdev_of(&s, 0);
	if (k < 0 || s.ports[k].nctr == 0) {
		printf("# series none why=%s\n", k >= 0 ? s.ports[k].why : "not added");
		return 1;
	}
	sampler_read(&s, mono());
	printf("# ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	sampler_read(&s, mono());
	const struct fab_series *p = &s.ports[k];
	printf("# series %s owner=%d n=%d why=%s\n", p->kind == SER_NETDEV ? "netdev" : "other",
	       p->owner, p->nctr, p->why);
	for (int i = p->first_ctr; i < p->first_ctr + p->nctr; i++) {
		const struct fab_ctr *c = &s.ctrs[i];
		if (c->last.delta > 0)
			printf("%s delta=%llu flags=%s\n", c->name, (unsigned long long)c->last.delta,
			       ctr_flag_words(c->last.flags, flags, sizeof(flags), NULL, NULL));
	}
	sampler_close(&s);
	model_free(&m);
	root_close(&r);
	return 0;
}
