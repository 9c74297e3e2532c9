/*
 * dl.h - optional libraries loaded at run time (CUDA runtime, NVML, NCCL).
 * Absent means the feature is off: never a build or start failure.
 */
#ifndef FABTOP_DL_H
#define FABTOP_DL_H

#include <stddef.h>

/* Tries each soname in turn; returns the handle or NULL and writes why. */
void *fab_dlopen_first(const char *const *sonames, const char **loaded,
		       char *why, size_t whylen);

#endif
