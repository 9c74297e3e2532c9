/*
 * capture_qp.c - the QP table of the node as the raw bytes of its RDMA
 * netlink dump (fabtop/rdma-qp.bin), so that replay runs the same parser
 * as the live view. Recorded live when RDMA netlink answers; carried over
 * unchanged when the source is itself a capture.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "capture_int.h"
#include "fabtop/rdma_res.h"
#include "fabtop/sanitize.h"

#define QP_NODE_PATH "/fabtop/rdma-qp.bin"
/* The source capture's dump, read as rdma_res_from_root() reads it
 * (root_file_cap()). */
static void carry_qp(struct cap *c)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = root_read_alloc(&c->src, QP_NODE_PATH, &buf, &len);
	if (rc == 0)
		cap_out_write(c, QP_NODE_PATH, buf, len);
	else if (rc != -ENOENT)
		fab_fprintf(c->log, "fabtop: cannot copy %s of the source: %s\n", QP_NODE_PATH,
			root_strerror(-rc));
	free(buf);
}

void capture_qp(struct cap *c)
{
	if (!c->src.live) {
		carry_qp(c);
		return;
	}
	unsigned char *buf = NULL;
	size_t len = 0;
	char err[512] = "";
	if (rdma_res_dump_bytes(&buf, &len, err, sizeof(err)) < 0) {
		fab_fprintf(c->log, "fabtop: no rdma-qp.bin (QP states will show as not recorded): %s\n", err);
		return;
	}
	if (err[0])
		fab_fprintf(c->log, "fabtop: rdma-qp.bin is missing a device: %s\n", err);
	cap_out_write(c, QP_NODE_PATH, (const char *)buf, len);
	free(buf);
}
