/* libFuzzer target: rdma_res_parse_qp() over arbitrary bytes, as whole
 * buffers and split in two the way recv() may hand a dump over. Beyond
 * ASan/UBSan it checks what the contract promises: a result in -1..1, an
 * error text on -1, and NUL-terminated names in every QP kept. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include "fabtop/rdma_res.h"

static void check(const struct fab_qp_list *l, int rc, const char *err)
{
	if (rc < -1 || rc > 1 || (rc == -1 && !err[0]) || l->n < 0 || l->n > l->cap)
		abort();
	for (int i = 0; i < l->n; i++)
		if (!memchr(l->qps[i].dev, '\0', sizeof(l->qps[i].dev)) ||
		    !memchr(l->qps[i].comm, '\0', sizeof(l->qps[i].comm)) || !l->qps[i].dev[0])
			abort();
}

/* The input again as the attributes of one QP entry, framed by a valid
 * message that ends where the input ends: the fuzzer reaches the entry
 * parser without guessing four length fields, and a read past an attribute
 * at the end of the input is a read past the end of the heap block. */
static void as_entry(const uint8_t *data, size_t size)
{
	enum { HDR = 16, NAME = 8, NESTS = 8 };
	if (size > 65000)
		return;
	size_t total = HDR + NAME + NESTS + size;
	uint8_t *m = malloc(total);
	if (!m)
		return;
	struct nlmsghdr h = {
		.nlmsg_len = (uint32_t)total,
		.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET),
		.nlmsg_flags = NLM_F_MULTI,
	};
	struct nlattr name = { .nla_len = 7, .nla_type = RDMA_NLDEV_ATTR_DEV_NAME };
	struct nlattr table = { .nla_len = (uint16_t)(NESTS + size), .nla_type = RDMA_NLDEV_ATTR_RES_QP };
	struct nlattr entry = { .nla_len = (uint16_t)(4 + size), .nla_type = RDMA_NLDEV_ATTR_RES_QP_ENTRY };
	memcpy(m, &h, HDR);
	memcpy(m + HDR, &name, 4);
	memcpy(m + HDR + 4, "fz\0\0", 4);
	memcpy(m + HDR + NAME, &table, 4);
	memcpy(m + HDR + NAME + 4, &entry, 4);
	memcpy(m + HDR + NAME + NESTS, data, size);
	struct fab_qp_list l = { 0 };
	char err[256] = "";
	check(&l, rdma_res_parse_qp(m, total, &l, err, sizeof(err)), err);
	qp_list_free(&l);
	free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_entry(data, size);

	struct fab_qp_list l = { 0 };
	char err[256] = "";
	int rc = rdma_res_parse_qp(data, size, &l, err, sizeof(err));
	check(&l, rc, err);
	int whole = l.n;
	qp_list_free(&l);

	/* the first message alone, then the rest, as two datagrams would come */
	if (size >= 4) {
		uint32_t first;
		memcpy(&first, data, 4);
		first = (first + 3) & ~3u;
		if (first > 0 && first < size) {
			err[0] = '\0';
			rc = rdma_res_parse_qp(data, first, &l, err, sizeof(err));
			check(&l, rc, err);
			if (rc >= 0) {
				err[0] = '\0';
				rc = rdma_res_parse_qp(data + first, size - first, &l, err, sizeof(err));
				check(&l, rc, err);
				/* the same messages, so the same QPs */
				if (l.n != whole)
					abort();
			}
			qp_list_free(&l);
		}
	}
	return 0;
}
