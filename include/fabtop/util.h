/*
 * util.h - small parsers shared by collectors, pure functions over strings.
 */
#ifndef FABTOP_UTIL_H
#define FABTOP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include "fabtop/model.h"

/* "0x15b3", "42", " 7\n" -> value; false on empty, garbage or overflow. */
bool fab_parse_ll(const char *s, long long *out);
/* sysfs speed "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s PCIe" -> GT/s.
 * "Unknown" and garbage -> false. */
bool fab_parse_gts(const char *s, double *out);
/* "4: ACTIVE" -> 4 and "ACTIVE"; false when the number is missing. */
bool fab_parse_enum_line(const char *s, long long *num, char *word, size_t wlen);
/* "400 Gb/sec (4X NDR)" -> 400; "2.5 Gb/sec (1X SDR)" -> 2.5. */
bool fab_parse_rate(const char *s, double *gbps);
/* "0-3,8-11" -> count of CPUs, -1 on garbage. */
int fab_cpulist_count(const char *s);
/* A number or "N/A" for an unknown value, into buf. */
const char *fab_int_str(fab_int v, char *buf, size_t len);
/* snprintf that always terminates and never warns about truncation. */
void fab_strlcpy(char *dst, const char *src, size_t len);
/* True when every byte is printable ASCII or whitespace (not binary junk). */
bool fab_is_text(const char *s, size_t len);

#endif
