/*
 * perftest.c - perftest output, line by line (perftest.h). The wording
 * comes from perftest's own format strings (perftest_parameters.h:
 * RESULT_FMT*, the header block in ctx_print_test_info) and the outputs
 * under tests/fixtures/perftest/.
 */
#define _GNU_SOURCE   /* strcasestr */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "perftest.h"
#include "fabtop/util.h"

enum { F_MIN, F_MAX, F_TYPICAL, F_AVG, F_STDEV, F_P99, F_P999, F_SKIP = -1 };

void perftest_init(struct perftest *p)
{
	memset(p, 0, sizeof(*p));
}

const char *perftest_err_name(enum pt_err e)
{
	switch (e) {
	case PT_ERR_NO_DEVICE: return "no-device";
	case PT_ERR_CONNECT: return "connect";
	case PT_ERR_QP: return "qp";
	case PT_ERR_COMPLETION: return "completion";
	case PT_ERR_OTHER: return "error";
	case PT_ERR_NONE: break;
	}
	return "";
}

/* ---- small helpers ------------------------------------------------------------ */

static bool has(const char *s, const char *needle)
{
	return strstr(s, needle) != NULL;
}

static bool has_ci(const char *s, const char *needle)
{
	return strcasestr(s, needle) != NULL;
}

/* The value after "KEY<spaces>:" as one word, or false. Keys are matched
 * where a word starts, so "Device" does not match "CUDA device". */
static bool key_value(const char *line, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	for (const char *k = strstr(line, key); k; k = strstr(k + 1, key)) {
		if (k != line && !isspace((unsigned char)k[-1]))
			continue;
		const char *c = k + klen;
		while (*c == ' ' || *c == '\t')
			c++;
		if (*c != ':')
			continue;
		c++;
		while (*c == ' ' || *c == '\t')
			c++;
		size_t n = strcspn(c, " \t");
		if (n == 0)
			return false;
		if (n >= len)
			n = len - 1;
		memcpy(out, c, n);
		out[n] = '\0';
		return true;
	}
	return false;
}

static void key_int(const char *line, const char *key, fab_int *v)
{
	char word[32], *end;
	if (!key_value(line, key, word, sizeof(word)))
		return;
	long long x = strtoll(word, &end, 10);
	if (end != word && (*end == '\0' || *end == '[')) {
		v->v = x;
		v->ok = true;
	}
}

/* Splits into at most max whitespace-separated words (in place). */
static int split(char *s, char **w, int max)
{
	int n = 0;
	for (char *save = NULL, *t = strtok_r(s, " \t", &save); t && n < max;
	     t = strtok_r(NULL, " \t", &save))
		w[n++] = t;
	return n;
}

static bool parse_ll(const char *s, long long *v)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return false;
	*v = strtoll(s, &end, 10);
	return *end == '\0';
}

static bool parse_num(const char *s, double *v)
{
	char *end;
	if (!isdigit((unsigned char)*s) && *s != '-' && *s != '.')
		return false;
	*v = strtod(s, &end);
	return end != s && *end == '\0';
}

/* ---- the tables ------------------------------------------------------------------ */

static void bw_header(struct perftest *p, const char *line)
{
	p->table = PT_KIND_BW;
	if (p->kind == PT_KIND_UNKNOWN)
		p->kind = PT_KIND_BW;
	const char *u = strstr(line, "BW average[");
	p->bw_unit[0] = '\0';
	if (u) {
		u += strlen("BW average[");
		size_t n = strcspn(u, "]");
		if (n < sizeof(p->bw_unit)) {
			memcpy(p->bw_unit, u, n);
			p->bw_unit[n] = '\0';
		}
	}
	/* perftest's MB and MiB are both 2^20 bytes (format_factor 0x100000);
	 * Gb is 10^9 bits (125000000 bytes). */
	p->unit_to_gbps = strcmp(p->bw_unit, "Gb/sec") == 0 ? 1.0 : 1048576.0 * 8.0 / 1e9;
}

static void lat_header(struct perftest *p, const char *line)
{
	char buf[PT_LINE_MAX], *w[24];
	fab_strlcpy(buf, line, sizeof(buf));
	int n = split(buf, w, 24);
	p->table = PT_KIND_LAT;
	if (p->kind == PT_KIND_UNKNOWN)
		p->kind = PT_KIND_LAT;
	p->lat_ncols = 0;
	p->lat_cols = 0;
	for (int i = 0; i < n && p->lat_ncols < (int)sizeof(p->lat_map); i++) {
		const char *t = w[i];
		int f;
		if (strcmp(t, "#bytes") == 0 || strcmp(t, "#iterations") == 0 ||
		    strncmp(t, "percentile", 10) == 0 || strcmp(t, "average") == 0)
			continue;   /* the first two are read by position; the rest continue a name */
		if (strncmp(t, "t_min", 5) == 0) f = F_MIN;
		else if (strncmp(t, "t_max", 5) == 0) f = F_MAX;
		else if (strncmp(t, "t_typical", 9) == 0) f = F_TYPICAL;
		else if (strncmp(t, "t_avg", 5) == 0) f = F_AVG;
		else if (strncmp(t, "t_stdev", 7) == 0) f = F_STDEV;
		else if (strcmp(t, "99%") == 0) f = F_P99;
		else if (strcmp(t, "99.9%") == 0) f = F_P999;
		else f = F_SKIP;   /* "tps average" of -D, "CPU_Util[%]" */
		p->lat_map[p->lat_ncols++] = (signed char)f;
		if (f != F_SKIP)
			p->lat_cols++;
	}
}

static bool bw_row(struct perftest *p, char **w, int n)
{
	struct pt_bw_row r;
	double peak, avg, rate;
	memset(&r, 0, sizeof(r));
	/* Perftest before 2.x had no MsgRate column. */
	if (n < 4 || !parse_ll(w[0], &r.bytes) || !parse_ll(w[1], &r.iters) ||
	    !parse_num(w[2], &peak) || !parse_num(w[3], &avg))
		return false;
	if (n >= 5) {
		if (!parse_num(w[4], &rate))
			return false;
		r.msg_rate_mpps.v = rate;
		r.msg_rate_mpps.ok = true;
	}
	r.peak_gbps = peak * p->unit_to_gbps;
	r.avg_gbps = avg * p->unit_to_gbps;
	if (p->nbw < PT_MAX_ROWS)
		p->bw[p->nbw++] = r;
	else
		p->rows_dropped++;
	return true;
}

static bool lat_row(struct perftest *p, char **w, int n)
{
	struct pt_lat_row r;
	memset(&r, 0, sizeof(r));
	if (n < 3 || !parse_ll(w[0], &r.bytes) || !parse_ll(w[1], &r.iters))
		return false;
	fab_num *field[] = { &r.t_min, &r.t_max, &r.t_typical, &r.t_avg, &r.t_stdev, &r.p99, &r.p999 };
	for (int i = 0; i < p->lat_ncols && 2 + i < n; i++) {
		double v;
		if (!parse_num(w[2 + i], &v))
			return false;
		if (p->lat_map[i] != F_SKIP) {
			field[p->lat_map[i]]->v = v;
			field[p->lat_map[i]]->ok = true;
		}
	}
	if (p->nlat < PT_MAX_ROWS)
		p->lat[p->nlat++] = r;
	else
		p->rows_dropped++;
	return true;
}

/* ---- errors ------------------------------------------------------------------------ */

static enum pt_err classify(const char *t)
{
	if (has(t, "No IB devices found") || has(t, "Unable to find the Infiniband/RoCE device") ||
	    has(t, "Did not detect devices") || has(t, "Couldn't get device list") ||
	    (has(t, "IB device") && has(t, "not found")))
		return PT_ERR_NO_DEVICE;
	if (has(t, "Couldn't connect to") || has(t, "Unable to open file descriptor for socket") ||
	    has(t, "Failed to exchange data between server and clients") ||
	    has(t, "Couldn't read remote address") || has(t, "accept() failed") ||
	    has(t, "Unable to init the socket connection") || has(t, "Couldn't establish connection"))
		return PT_ERR_CONNECT;
	if (has(t, "Failed to modify QP") || has(t, "Unable to Connect the HCA's through the link") ||
	    (has_ci(t, "gid") && (has_ci(t, "fail") || has_ci(t, "couldn't") || has_ci(t, "invalid") ||
				 has_ci(t, "unable"))))
		return PT_ERR_QP;
	if (has(t, "Completion with error") || has(t, "Problems with warm up") ||
	    has(t, "Failed status") || has(t, "Failed to complete run_iter") ||
	    has(t, "Error occurred while running"))
		return PT_ERR_COMPLETION;
	if (strncmp(t, "Couldn't", 8) == 0 || strncmp(t, "Failed", 6) == 0 ||
	    strncmp(t, "Unable", 6) == 0 || strncmp(t, "Error", 5) == 0)
		return PT_ERR_OTHER;
	return PT_ERR_NONE;
}

/* ---- one line --------------------------------------------------------------------- */

void perftest_line(struct perftest *p, const char *line, size_t len)
{
	char t[PT_LINE_MAX];
	if (len >= sizeof(t))
		len = sizeof(t) - 1;
	memcpy(t, line, len);
	t[len] = '\0';
	/* NUL bytes or a CR end the line early; leading/trailing blanks go. */
	t[strcspn(t, "\r")] = '\0';
	char *s = t;
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	p->lines++;
	if (n == 0)
		return;
	if (strncmp(s, "-----", 5) == 0) {
		p->table = 0;   /* a dashed line closes a table */
		return;
	}
	if (has(s, "Waiting for client to connect")) {
		p->server_waiting = true;
		return;
	}
	if (has(s, "Conflicting CPU frequency values detected")) {
		p->cpu_freq_warning = true;
		return;
	}
	if (strncmp(s, "#bytes", 6) == 0) {
		if (has(s, "BW peak") || has(s, "BW average"))
			bw_header(p, s);
		else if (has(s, "t_min") || has(s, "t_avg"))
			lat_header(p, s);
		return;
	}
	if (p->table && isdigit((unsigned char)*s)) {
		char buf[PT_LINE_MAX], *w[16];
		fab_strlcpy(buf, s, sizeof(buf));
		int nw = split(buf, w, 16);
		if (p->table == PT_KIND_BW ? bw_row(p, w, nw) : lat_row(p, w, nw))
			return;
	}
	/* The test's name: "RDMA_Write BW Test", "Send Latency Test". */
	if (!p->test[0] && !strchr(s, ':') && n > 5 && strcmp(s + n - 5, " Test") == 0 &&
	    (has(s, " BW") || has(s, "Latency"))) {
		fab_strlcpy(p->test, s, sizeof(p->test));
		p->kind = has(s, "Latency") ? PT_KIND_LAT : PT_KIND_BW;
		return;
	}
	enum pt_err e = classify(s);
	if (e != PT_ERR_NONE) {
		p->nerrors++;
		/* The first specific kind speaks; a later one refines a generic first. */
		if (p->err == PT_ERR_NONE || (p->err == PT_ERR_OTHER && e != PT_ERR_OTHER)) {
			p->err = e;
			fab_strlcpy(p->err_line, s, sizeof(p->err_line));
		}
		return;
	}
	if (strchr(s, ':')) {
		key_value(s, "Device", p->device, sizeof(p->device));
		key_int(s, "Number of qps", &p->nqps);
		key_value(s, "Transport type", p->transport, sizeof(p->transport));
		key_value(s, "Connection type", p->conn_type, sizeof(p->conn_type));
		key_value(s, "Link type", p->link_type, sizeof(p->link_type));
		key_int(s, "GID index", &p->gid_index);
		key_value(s, "rdma_cm QPs", p->rdma_cm, sizeof(p->rdma_cm));
		key_int(s, "Mtu", &p->mtu);
	}
}

void perftest_feed(struct perftest *p, const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			perftest_line(p, p->buf, p->blen);
			p->blen = 0;
			p->cut = false;
		} else if (p->blen < sizeof(p->buf) - 1) {
			p->buf[p->blen++] = buf[i];
		} else {
			p->cut = true;
		}
	}
}

void perftest_end(struct perftest *p)
{
	if (p->blen) {
		perftest_line(p, p->buf, p->blen);
		p->blen = 0;
	}
	p->table = 0;
}

const struct pt_bw_row *perftest_bw_at(const struct perftest *p, long long bytes)
{
	for (int i = 0; i < p->nbw; i++)
		if (p->bw[i].bytes == bytes)
			return &p->bw[i];
	return NULL;
}

const struct pt_lat_row *perftest_lat_at(const struct perftest *p, long long bytes)
{
	for (int i = 0; i < p->nlat; i++)
		if (p->lat[i].bytes == bytes)
			return &p->lat[i];
	return NULL;
}

const struct pt_bw_row *perftest_bw_largest(const struct perftest *p)
{
	const struct pt_bw_row *best = NULL;
	for (int i = 0; i < p->nbw; i++)
		if (!best || p->bw[i].bytes > best->bytes)
			best = &p->bw[i];
	return best;
}
