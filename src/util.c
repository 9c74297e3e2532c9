/* util.c - parsers for the kernel's text formats; pure functions. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/util.h"

void fab_strlcpy(char *dst, const char *src, size_t len)
{
	if (!len)
		return;
	size_t n = src ? strnlen(src, len - 1) : 0;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

bool fab_parse_ll(const char *s, long long *out)
{
	char *end;
	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	errno = 0;
	long long v = strtoll(s, &end, 0);
	if (errno || end == s)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	*out = v;
	return true;
}

/* Leading decimal number of s, with the rest left in *end. */
static bool lead_double(const char *s, double *v, const char **end)
{
	char *e;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtod(s, &e);
	if (errno || e == s)
		return false;
	*end = e;
	return true;
}

/* "<number> <unit>..." with the number in [lo, hi]. */
static bool number_with_unit(const char *s, const char *unit, double lo, double hi, double *out)
{
	const char *end;
	double v;
	if (!s || !lead_double(s, &v, &end))
		return false;
	while (*end == ' ')
		end++;
	if (strncmp(end, unit, strlen(unit)) != 0 || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

bool fab_parse_gts(const char *s, double *out)
{
	return number_with_unit(s, "GT/s", 0.1, 1000, out);
}

bool fab_parse_enum_line(const char *s, long long *num, char *word, size_t wlen)
{
	char *end;
	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end != ':')
		return false;
	end++;
	while (isspace((unsigned char)*end))
		end++;
	size_t n = strcspn(end, "\r\n");
	while (n && isspace((unsigned char)end[n - 1]))
		n--;
	if (n == 0 || n >= wlen)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isprint((unsigned char)end[i]))
			return false;
	memcpy(word, end, n);
	word[n] = '\0';
	*num = v;
	return true;
}

bool fab_parse_rate(const char *s, double *gbps)
{
	return number_with_unit(s, "Gb/sec", 0, 100000, gbps);
}

int fab_cpulist_count(const char *s)
{
	int count = 0;
	if (!s)
		return -1;
	while (*s && *s != '\n') {
		char *end;
		if (!isdigit((unsigned char)*s))
			return -1;
		long a = strtol(s, &end, 10), b = a;
		s = end;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -1;
			b = strtol(s, &end, 10);
			s = end;
		}
		if (b < a || b - a > 1 << 20)
			return -1;
		count += (int)(b - a + 1);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return count;
}

bool fab_is_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
			return false;
		if (c == 0x7f)
			return false;
	}
	return true;
}

const char *fab_int_str(fab_int v, char *buf, size_t len)
{
	if (v.ok)
		snprintf(buf, len, "%lld", v.v);
	else
		snprintf(buf, len, "N/A");
	return buf;
}
