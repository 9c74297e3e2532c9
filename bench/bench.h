/* bench/bench.h - what every benchmark here measures with: a monotonic
 * clock, and the median of interleaved rounds (so a noisy neighbour moves
 * all the methods of a round alike, and one slow round moves nothing). */
#ifndef FABTOP_BENCH_H
#define FABTOP_BENCH_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static inline int bench_cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Sorts v. */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
