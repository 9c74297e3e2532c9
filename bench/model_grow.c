/* bench/model_grow.c - what appending to the model's arrays costs per
 * element as a node grows: model_add_netdev/_finding/_note/_pci, N times
 * each, with a small allocation between appends as the collectors make
 * (a name list, a strdup), for a small and a large N. Appending is linear
 * when the cost per element stays flat; an array grown by one element at
 * a time copies it on every append, and the large node costs more per
 * element. A second figure sets the appends against the floor: one
 * calloc of the final size and the same element writes.
 *
 * Usage: build/bench/model_grow [small-N large-N rounds]; prints ns per
 * element and the ratios. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fabtop/model.h"

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The collectors' pattern: append, then allocate something small that
 * outlives the step, so a realloc cannot simply extend in place. */
static double appends(int n)
{
	struct fab_model m;
	char **keep = calloc((size_t)n, sizeof(*keep));
	if (!keep)
		return -1;
	model_init(&m);
	double t0 = now_s();
	for (int i = 0; i < n; i++) {
		struct fab_netdev *d = model_add_netdev(&m);
		snprintf(d->name, sizeof(d->name), "veth%d", i);
		model_add_pci(&m)->chain_len = i & 7;
		model_add_finding(&m, "links.x", SEV_INFO, d->name);
		model_note(&m, "bench", "note %d", i);
		keep[i] = strdup(d->name);
	}
	double t = now_s() - t0;
	for (int i = 0; i < n; i++)
		free(keep[i]);
	free(keep);
	model_free(&m);
	return t;
}

/* The floor: every array allocated once at its final size, the same writes. */
static double floor_of(int n)
{
	char **keep = calloc((size_t)n, sizeof(*keep));
	if (!keep)
		return -1;
	double t0 = now_s();
	struct fab_netdev *nd = calloc((size_t)n, sizeof(*nd));
	struct fab_pci_dev *pd = calloc((size_t)n, sizeof(*pd));
	struct fab_finding *fd = calloc((size_t)n, sizeof(*fd));
	struct fab_note *no = calloc((size_t)n, sizeof(*no));
	if (!nd || !pd || !fd || !no)
		return -1;
	for (int i = 0; i < n; i++) {
		snprintf(nd[i].name, sizeof(nd[i].name), "veth%d", i);
		pd[i].chain_len = i & 7;
		snprintf(fd[i].id, sizeof(fd[i].id), "links.x");
		snprintf(no[i].message, sizeof(no[i].message), "note %d", i);
		keep[i] = strdup(nd[i].name);
	}
	double t = now_s() - t0;
	free(nd);
	free(pd);
	free(fd);
	free(no);
	for (int i = 0; i < n; i++)
		free(keep[i]);
	free(keep);
	return t;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of rounds runs of f(n), in ns per element. */
static double median_ns(double (*f)(int), int n, int rounds)
{
	double v[64];
	if (rounds > 64)
		rounds = 64;
	for (int r = 0; r < rounds; r++)
		v[r] = f(n) * 1e9 / n;
	qsort(v, (size_t)rounds, sizeof(v[0]), cmp_d);
	return v[rounds / 2];
}

int main(int argc, char **argv)
{
	int small = argc > 1 ? atoi(argv[1]) : 1000;
	int large = argc > 2 ? atoi(argv[2]) : 64000;
	int rounds = argc > 3 ? atoi(argv[3]) : 5;
	if (small < 1 || large <= small || rounds < 1) {
		fprintf(stderr, "usage: %s [small-N large-N rounds]\n", argv[0]);
		return 2;
	}
	double as = median_ns(appends, small, rounds), al = median_ns(appends, large, rounds);
	double fs = median_ns(floor_of, small, rounds), fl = median_ns(floor_of, large, rounds);
	if (as < 0 || al < 0 || fs < 0 || fl < 0) {
		fprintf(stderr, "bench/model_grow: out of memory\n");
		return 2;
	}
	printf("bench/model_grow: 4 model arrays (netdevs, pci, findings, notes), median of %d rounds,\n"
	       "ns per element (one append to each array)\n", rounds);
	printf("  %-40s %10s %10s\n", "", "N=", "N=");
	printf("  %-40s %10d %10d\n", "", small, large);
	printf("  %-40s %10.1f %10.1f\n", "model_add_* (fabtop)", as, al);
	printf("  %-40s %10.1f %10.1f\n", "one calloc of the final size (floor)", fs, fl);
	printf("  ratio large/small per element, appends  %.2f   (1: linear)\n", al / as);
	printf("  ratio appends/floor at N=%-8d         %.2f\n", large, al / fl);
	return 0;
}
