/*
 * perftest.h - reading perftest's output (ib_write_bw, ib_read_bw,
 * ib_send_bw, ib_write_lat, ib_read_lat, ib_send_lat; server or client
 * side; perftest 4.x to 24.x wording). No I/O: the caller feeds bytes as
 * they come, in chunks split anywhere.
 *
 * Sequence: perftest_init(p) -> perftest_feed(p, buf, len)... ->
 * perftest_end(p) (the last line without a newline) -> read the fields.
 *
 * What is read:
 *   - the header block: test name ("RDMA_Write BW Test"), Device, Number of
 *     qps, Transport type, Connection type, Link type, Mtu ("4096[B]"), GID
 *     index, rdma_cm QPs; the server's "Waiting for client to connect";
 *   - the BW table (#bytes #iterations BW peak BW average MsgRate), in
 *     Gb/sec (--report_gbits: 10^9 bit/s) or MB/sec / MiB/sec (perftest's
 *     MB is 2^20 bytes: print_report_bw divides by 0x100000), always
 *     stored in Gb/s;
 *   - the latency table, whatever columns the header names (4.x+: t_min
 *     t_max t_typical t_avg t_stdev 99% 99.9%; older: fewer; -D: t_avg);
 *   - errors with a kind (enum pt_err), and the "Conflicting CPU frequency"
 *     warning (perftest wants -F then).
 * Rows may be interleaved with warnings; a table ends at the dashed line.
 */
#ifndef FABTOP_PERFTEST_H
#define FABTOP_PERFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include "fabtop/model.h"

#define PT_MAX_ROWS  32     /* -a gives 23 sizes (2 B .. 8 MiB) */
#define PT_LINE_MAX  512    /* longer lines are cut (perftest's are < 200) */

enum pt_kind { PT_KIND_UNKNOWN = 0, PT_KIND_BW, PT_KIND_LAT };

enum pt_err {
	PT_ERR_NONE = 0,
	PT_ERR_NO_DEVICE,     /* no RDMA device, or not the one named by -d */
	PT_ERR_CONNECT,       /* the TCP side channel: server not up, port blocked */
	PT_ERR_QP,            /* QP to INIT/RTR/RTS, GID: addressing between the HCAs */
	PT_ERR_COMPLETION,    /* a work completion with error: the fabric dropped it */
	PT_ERR_OTHER,         /* any other "Couldn't"/"Failed"/"Unable" line */
};

struct pt_bw_row {
	long long bytes, iters;
	double peak_gbps, avg_gbps;   /* Gb/s (10^9 bit/s), whatever the table's unit */
	fab_num msg_rate_mpps;        /* unknown in perftest before 2.x */
};

struct pt_lat_row {
	long long bytes, iters;
	fab_num t_min, t_max, t_typical, t_avg, t_stdev, p99, p999;   /* usec */
};

struct perftest {
	char test[64];                /* "RDMA_Write BW Test"; "" before the header */
	enum pt_kind kind;
	char device[32];
	fab_int nqps, mtu, gid_index;
	char transport[16], conn_type[16], link_type[16], rdma_cm[8];
	bool server_waiting;          /* printed "Waiting for client to connect" */
	char bw_unit[16];             /* the table's own: "Gb/sec", "MB/sec", "MiB/sec" */
	struct pt_bw_row bw[PT_MAX_ROWS];
	int nbw;
	struct pt_lat_row lat[PT_MAX_ROWS];
	int nlat;
	int lat_cols;                 /* latency columns after #bytes #iterations */
	int rows_dropped;             /* rows past PT_MAX_ROWS */
	enum pt_err err;              /* the first error's kind */
	char err_line[160];           /* that line, trimmed */
	int nerrors;                  /* error lines in all */
	bool cpu_freq_warning;
	long long lines;
	/* parser state */
	int table;                    /* 0 none, PT_KIND_BW / PT_KIND_LAT while inside one */
	double unit_to_gbps;
	signed char lat_map[12];      /* data column -> field (internal) */
	int lat_ncols;
	char buf[PT_LINE_MAX];
	size_t blen;
	bool cut;                     /* the current line was longer than buf */
};

void perftest_init(struct perftest *p);
void perftest_feed(struct perftest *p, const char *buf, size_t len);
void perftest_end(struct perftest *p);
/* One complete line (no newline), for callers that split lines themselves. */
void perftest_line(struct perftest *p, const char *line, size_t len);

/* "no-device", "connect", "qp", "completion", "error", "" for none. */
const char *perftest_err_name(enum pt_err e);
/* The row for exactly this message size, or NULL. */
const struct pt_bw_row *perftest_bw_at(const struct perftest *p, long long bytes);
const struct pt_lat_row *perftest_lat_at(const struct perftest *p, long long bytes);
/* The row with the largest message size, or NULL when the table is empty. */
const struct pt_bw_row *perftest_bw_largest(const struct perftest *p);

#endif
