/*
 * test_ras_parse: ras_parse() and ras_parse_events() on the RAS replies
 * under tests/fixtures/ras/ (real ones from NVIDIA/nccl issues and NCCL's
 * docs, and ones built from NCCL's format strings; sources in its README),
 * every field checked with exact values; each file also parsed from an
 * exact-size heap copy (ASan sees a read past len). Run from the repo root.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "fabtop/ras.h"

#define FIX "tests/fixtures/ras/"

static char *slurp(const char *name, size_t *len)
{
	char path[256];
	snprintf(path, sizeof(path), FIX "%s", name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = malloc(1 << 16);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	char *exact = malloc(*len ? *len : 1); /* no NUL after it */
	assert_non_null(exact);
	memcpy(exact, buf, *len);
	free(buf);
	return exact;
}

static int parse(const char *name, struct ras_reply *r)
{
	size_t len;
	char *buf = slurp(name, &len);
	int rc = ras_parse(buf, len, r);
	free(buf);
	return rc;
}

static struct ras_comm *comm(struct ras_reply *r, const char *id)
{
	for (int i = 0; i < r->ncomms; i++)
		if (!strcmp(r->comms[i].id, id))
			return &r->comms[i];
	fail_msg("no comm %s", id);
	return NULL;
}

static struct ras_rank *rank(struct ras_comm *c, int n)
{
	for (int i = 0; i < c->nranks; i++)
		if (c->ranks[i].rank == n)
			return &c->ranks[i];
	fail_msg("no rank %d", n);
	return NULL;
}

static void group_is(const struct ras_count_group *g, const char *op, int64_t v, int n)
{
	assert_string_equal(g->op, op);
	assert_int_equal(g->value, v);
	assert_int_equal(g->nranks, n);
}

static void where_is(const struct ras_rank *k, int cuda, int nvml, int pid, const char *host)
{
	assert_int_equal(k->cuda_dev, cuda);
	assert_int_equal(k->nvml_dev, nvml);
	assert_int_equal(k->pid, pid);
	assert_string_equal(k->host, host);
}

/* NVIDIA/nccl#1730: 256 GPUs, healthy; the watchdog lines are unknown. */
static void test_text_256_ok(void **st)
{
	struct ras_reply r;
	assert_int_equal(parse("text-2.26.2-256gpu-ok.txt", &r), 0);
	assert_int_equal(r.format, RAS_FMT_TEXT);
	assert_string_equal(r.nccl_version, "2.26.2");
	assert_int_equal(r.version, 22602);
	assert_string_equal(r.cuda_compiled, "12.4");
	assert_int_equal(r.cuda_runtime, 12040);
	assert_int_equal(r.cuda_driver, 12040);
	assert_int_equal(r.nodes, 32);
	assert_int_equal(r.processes, 256);
	assert_int_equal(r.gpus, 256);
	assert_true(r.collection_s > 0.0099 && r.collection_s < 0.0101);
	assert_int_equal(r.ncomms, 1);
	struct ras_comm *c = comm(&r, "#0");
	assert_int_equal(c->ncomms, 1);
	assert_int_equal(c->nnodes, 32);
	assert_string_equal(c->ranks_per_node, "8");
	assert_int_equal(c->size, 256);
	assert_int_equal(c->group_ranks, 256);
	assert_string_equal(c->status, "RUNNING");
	assert_string_equal(c->errors, "OK");
	assert_int_equal(c->nranks, 0);
	assert_false(c->counts_known);
	assert_int_equal(r.nprocs, 0);
	assert_int_equal(r.nmissing_procs, 0);
	assert_int_equal(r.ndead_procs, 0);
	assert_int_equal(r.unknown_lines, 2);
	assert_false(r.truncated);
	assert_false(r.no_comms);
	assert_string_equal(r.error, "");
	ras_reply_free(&r);
}

/* NVIDIA/nccl#1911: AllGather counts differ; two ranks ahead. */
static void test_text_mismatch_allgather(void **st)
{
	struct ras_reply r;
	assert_int_equal(parse("text-2.26.2-mismatch-allgather.txt", &r), 0);
	assert_int_equal(r.ncomms, 2);
	struct ras_comm *c = comm(&r, "#0-0");
	assert_string_equal(c->hash, "fa93daea854b060b");
	assert_string_equal(c->status, "RUNNING");
	assert_string_equal(c->errors, "MISMATCH");
	assert_int_equal(c->size, 32);
	assert_int_equal(c->nnodes, 4);
	assert_true(c->counts_known);
	assert_int_equal(c->ngroups, 2);
	group_is(&c->groups[0], "AllGather", 640, 30);
	group_is(&c->groups[1], "AllGather", 641, 2);
	assert_int_equal(c->nranks, 2);
	struct ras_rank *k = rank(c, 12);
	where_is(k, 4, 4, 323032, "10.137.190.124");
	assert_int_equal(k->ncounts, 1);
	assert_string_equal(k->counts[0].op, "AllGather");
	assert_int_equal(k->counts[0].value, 641);
	where_is(rank(c, 13), 5, 5, 323033, "10.137.190.124");
	assert_int_equal(r.unknown_lines, 0);
	assert_false(r.truncated);
	ras_reply_free(&r);
}

/* NVIDIA/nccl#1762: per-node tables, outlier node, NOCOMM group, cut. */
static void test_text_outlier_nocomm_cut(void **st)
{
	struct ras_reply r;
	assert_int_equal(parse("text-2.27.3-outlier-nocomm-cut.txt", &r), 0);
	assert_int_equal(r.version, 22703);
	assert_int_equal(r.cuda_runtime, 12090);
	assert_int_equal(r.cuda_driver, 12040);
	assert_int_equal(r.nodes, 2);
	assert_int_equal(r.processes, 10);
	assert_int_equal(r.gpus, 10);
	assert_int_equal(r.unknown_lines, 1); /* the PyTorch warning */
	assert_true(r.truncated);             /* no Warnings heading */
	struct ras_comm *g2 = comm(&r, "#2");
	assert_int_equal(g2->ncomms, 4);
	assert_int_equal(g2->nnodes, 0);
	assert_string_equal(g2->status, "NOCOMM");
	assert_string_equal(g2->errors, "INCOMPLETE,MISMATCH");
	assert_int_equal(r.nmissing_procs, 1);
	assert_int_equal(r.nprocs, 1);
	assert_int_equal(r.procs[0].pid, 60004);
	assert_string_equal(r.procs[0].host, "10.4.109.13");
	assert_string_equal(r.procs[0].gpus, "0");
	assert_false(r.procs[0].dead);
	struct ras_comm *c = comm(&r, "#0-0");
	assert_string_equal(c->hash, "b3398875b8b2a063");
	assert_string_equal(c->errors, "INCOMPLETE");
	assert_int_equal(c->nmissing, 1);
	struct ras_rank *k = rank(c, 1);
	assert_true(k->missing && k->unresponsive);
	where_is(k, 0, 0, 60004, "10.4.109.13");
	c = comm(&r, "#2-0");
	assert_string_equal(c->status, "NOCOMM");
	assert_string_equal(c->errors, "INCOMPLETE,MISMATCH");
	assert_int_equal(c->nmissing, 255);
	ras_reply_free(&r);
}

/* ras.rst: the excerpts of the docs (2.24 wording). */
static void test_text_docs(void **st)
{
	struct ras_reply r;
	assert_int_equal(parse("text-docs-healthy.txt", &r), 0);
	assert_int_equal(r.nodes, 4);
	assert_int_equal(r.processes, 32);
	assert_int_equal(comm(&r, "#0")->ncomms, 8);
	assert_int_equal(comm(&r, "#0")->group_ranks, 32);
	assert_true(r.truncated);
	ras_reply_free(&r);

	assert_int_equal(parse("text-docs-mismatch.txt", &r), 0);
	struct ras_comm *c = comm(&r, "#0-0");
	assert_string_equal(c->hash, "27a079b828ff1a75");
	assert_int_equal(c->ngroups, 2);
	group_is(&c->groups[0], "", 6650, 26);
	group_is(&c->groups[1], "", 6649, 6);
	assert_int_equal(c->nranks, 6);
	assert_int_equal(rank(c, 7)->counts[0].value, 6649);
	assert_string_equal(rank(c, 7)->counts[0].op, "");
	where_is(rank(c, 5), 5, 5, 483077, "172.16.64.210");
	assert_false(r.truncated);
	ras_reply_free(&r);

	assert_int_equal(parse("text-docs-finalize.txt", &r), 0);
	assert_string_equal(comm(&r, "#0")->ranks_per_node, "1-2");
	assert_string_equal(comm(&r, "#0")->status, "FINALIZE");
	assert_string_equal(comm(&r, "#2")->status, "INIT");
	c = comm(&r, "#0-0");
	assert_string_equal(c->status, "FINALIZE");
	assert_false(c->counts_known);
	assert_int_equal(c->nranks, 6);
	assert_string_equal(rank(c, 24)->status, "RUNNING");
	assert_string_equal(rank(c, 20)->status, "FINALIZE");
	where_is(rank(c, 20), 4, 4, 3500075, "172.16.64.213");
	assert_int_equal(r.unknown_lines, 1); /* "[...]" */
	ras_reply_free(&r);

	assert_int_equal(parse("text-docs-incomplete.txt", &r), 0);
	assert_true(r.collection_s > 2.049 && r.collection_s < 2.051);
	assert_int_equal(r.timeouts, 2);
	assert_int_equal(r.nmissing_procs, 1);
	assert_int_equal(r.procs[0].pid, 3487984);
	assert_string_equal(r.procs[0].gpus, "5");
	c = comm(&r, "#0-0");
	assert_string_equal(c->hash, "cf264af53edbe986");
	assert_string_equal(c->ranks_per_node, "7-8");
	assert_int_equal(c->nmissing, 1);
	assert_true(rank(c, 21)->missing);
	assert_int_equal(rank(c, 21)->pid, -1);
	ras_reply_free(&r);

	assert_int_equal(parse("text-docs-dead.txt", &r), 0);
	assert_int_equal(r.ndead_procs, 1);
	assert_int_equal(r.nprocs, 1);
	assert_true(r.procs[0].dead);
	assert_string_equal(r.procs[0].host, "172.16.64.213");
	ras_reply_free(&r);
}

/* Built from 2.30's format strings: every section of an unhealthy job. */
static void test_text_built_errors(void **st)
{
	struct ras_reply r;
	assert_int_equal(parse("text-built-2.30-errors.txt", &r), 0);
	assert_string_equal(r.nccl_version, "2.30.7");
	assert_int_equal(r.version, 23007);
	assert_string_equal(r.cuda_compiled, "13.0");
	assert_int_equal(r.nodes, 2);
	assert_int_equal(r.processes, 3);
	assert_int_equal(r.gpus, 4);
	assert_true(r.collection_s > 1.2499 && r.collection_s < 1.2501);
	assert_int_equal(r.timeouts, 1);
	assert_int_equal(r.nmissing_procs, 1);
	assert_int_equal(r.ndead_procs, 2);
	assert_int_equal(r.nprocs, 2);
	assert_string_equal(r.procs[0].gpus, "0,1 (NVML 2,3)");
	assert_false(r.procs[0].dead);
	assert_int_equal(r.procs[1].pid, 4244);
	assert_true(r.procs[1].dead);
	assert_int_equal(r.unknown_lines, 2); /* FUTURE and its line */
	struct ras_comm *c = comm(&r, "#0-0");
	assert_string_equal(c->errors, "INCOMPLETE,ERROR,MISMATCH");
	assert_string_equal(c->hash, "00000000000abcde");
	assert_int_equal(c->nmissing, 2);
	where_is(rank(c, 6), 0, 2, 4243, "10.0.0.2");
	assert_true(rank(c, 7)->missing);
	assert_int_equal(rank(c, 3)->init_state, 3);
	assert_int_equal(rank(c, 1)->async_error, 6);
	assert_int_equal(rank(c, 2)->async_error, 6);
	assert_int_equal(c->nnotes, 3);
	assert_string_equal(c->notes[0], "Initialization error on 1 rank");
	assert_string_equal(c->notes[2], "2 ranks reported Remote process error");
	assert_int_equal(c->ngroups, 5);
	group_is(&c->groups[0], "AllReduce", 100, 4);
	group_is(&c->groups[1], "AllReduce", 99, 1);
	group_is(&c->groups[2], "AllReduce", 0, 1);
	group_is(&c->groups[3], "Broadcast", 2, 3);
	group_is(&c->groups[4], "Broadcast", 0, 2);
	struct ras_rank *k = rank(c, 4);
	assert_int_equal(k->ncounts, 2);
	assert_string_equal(k->counts[0].op, "AllReduce");
	assert_int_equal(k->counts[0].value, 0);
	assert_string_equal(k->counts[1].op, "Broadcast");
	assert_int_equal(k->counts[1].value, 0);
	where_is(k, 0, 0, 4245, "10.0.0.2");
	assert_int_equal(rank(c, 5)->counts[0].value, 99);
	c = comm(&r, "#1-0");
	assert_string_equal(c->status, "NOCOMM");
	assert_string_equal(rank(c, 1)->status, "NOCOMM");
	assert_int_equal(rank(c, 1)->nvml_dev, 3);
	assert_false(r.truncated);
	ras_reply_free(&r);
}

static void test_text_built_224(void **st)
{
	struct ras_reply r;
	assert_int_equal(parse("text-built-2.24-missing-ranks.txt", &r), 0);
	assert_string_equal(r.nccl_version, "2.24.3");
	assert_int_equal(r.nodes, 4);
	assert_int_equal(r.processes, 31);
	struct ras_comm *c = comm(&r, "#0-0");
	assert_string_equal(c->errors, "INCOMPLETE,MISMATCH");
	assert_int_equal(c->nmissing, 2);
	assert_true(rank(c, 30)->missing);
	assert_true(rank(c, 31)->missing);
	assert_string_equal(rank(c, 29)->status, "UNKNOWN");
	assert_int_equal(r.unknown_lines, 0);
	ras_reply_free(&r);
}

/* ras.rst's JSON sample (2.29.1): one rank, one unresponsive. */
static void test_json_docs(void **st)
{
	struct ras_reply r;
	assert_int_equal(parse("json-docs-2.29.1.json", &r), 0);
	assert_int_equal(r.format, RAS_FMT_JSON);
	assert_string_equal(r.nccl_version, "2.29.1");
	assert_int_equal(r.version, 22901);
	assert_int_equal(r.cuda_runtime, 13000);
	assert_int_equal(r.cuda_driver, 13000);
	assert_string_equal(r.timestamp, "2025-12-19 13:06:53");
	assert_int_equal(r.ncomms, 1);
	struct ras_comm *c = &r.comms[0];
	assert_string_equal(c->id, "");
	assert_string_equal(c->hash, "ae94423cfbb2ef4a");
	assert_string_equal(c->secondary, "0xb7e7187447156001:0xb8242ed28a71381e");
	assert_int_equal(c->size, 2);
	assert_int_equal(c->nmissing, 1);
	assert_int_equal(c->nranks, 2);
	assert_string_equal(c->status, "RUNNING");
	assert_string_equal(c->errors, "INCOMPLETE");
	assert_true(c->counts_known);
	assert_int_equal(c->ngroups, 5);
	group_is(&c->groups[0], "Broadcast", 0, 1);
	group_is(&c->groups[4], "AllReduce", 0, 1);
	struct ras_rank *k = rank(c, 0);
	where_is(k, 0, 0, 1524344, "172.16.64.245");
	assert_int_equal(k->init_state, 0);
	assert_int_equal(k->async_error, 0);
	assert_false(k->missing);
	assert_int_equal(k->ncounts, 5);
	assert_string_equal(k->counts[2].op, "AllGather");
	k = rank(c, 1);
	assert_true(k->missing && k->unresponsive && !k->dead);
	where_is(k, 1, 1, 1524345, "172.16.64.245");
	assert_int_equal(k->ncounts, 0);
	assert_int_equal(r.nodes, 1);
	assert_int_equal(r.processes, 2);
	assert_int_equal(r.gpus, 2);
	assert_int_equal(r.nprocs, 1);
	assert_int_equal(r.procs[0].pid, 1524345);
	assert_string_equal(r.procs[0].gpus, "1");
	assert_false(r.procs[0].dead);
	assert_int_equal(r.nmissing_procs, 1);
	assert_int_equal(r.ndead_procs, 0);
	assert_true(r.collection_s == 0.0);
	assert_int_equal(r.timeouts, 0);
	assert_int_equal(r.unknown_lines, 0);
	assert_false(r.truncated);
	ras_reply_free(&r);
}

/* Built from 2.30's jsonWrite*: lagging rank, dead rank, error, INIT. */
static void test_json_built(void **st)
{
	struct ras_reply r;
	assert_int_equal(parse("json-built-2.30-stuck.json", &r), 0);
	assert_string_equal(r.nccl_version, "2.30.7");
	assert_int_equal(r.cuda_driver, 13010);
	assert_int_equal(r.unknown_lines, 2);
	assert_int_equal(r.ncomms, 2);
	struct ras_comm *c = &r.comms[0];
	assert_string_equal(c->hash, "00000000000abcde");
	assert_string_equal(c->status, "RUNNING");
	assert_string_equal(c->errors, "INCOMPLETE,ERROR,MISMATCH");
	assert_int_equal(c->ngroups, 3);
	group_is(&c->groups[0], "Broadcast", 1, 3);
	group_is(&c->groups[1], "AllReduce", 500, 2);
	group_is(&c->groups[2], "AllReduce", 499, 1);
	assert_int_equal(rank(c, 1)->async_error, 6);
	assert_int_equal(rank(c, 2)->nvml_dev, 4);
	assert_true(rank(c, 3)->dead);
	c = &r.comms[1];
	assert_string_equal(c->hash, "27a079b828ff1a75");
	assert_string_equal(c->status, "INIT");
	assert_string_equal(c->errors, "MISMATCH"); /* INIT beside RUNNING */
	assert_int_equal(c->ngroups, 1);
	group_is(&c->groups[0], "AllReduce", 0, 2);
	assert_int_equal(r.nodes, 2);
	assert_int_equal(r.processes, 4);
	assert_int_equal(r.gpus, 4);
	assert_int_equal(r.nprocs, 1);
	assert_true(r.procs[0].dead);
	assert_int_equal(r.procs[0].pid, 201);
	assert_string_equal(r.procs[0].gpus, "1");
	assert_int_equal(r.ndead_procs, 1);
	assert_int_equal(r.nmissing_procs, 0);
	assert_true(r.collection_s > 0.124 && r.collection_s < 0.126);
	assert_int_equal(r.timeouts, 1);
	ras_reply_free(&r);
}

/* Every prefix of a JSON reply is truncated (-1, truncated), never a crash. */
static void test_json_truncated(void **st)
{
	size_t len;
	char *buf = slurp("json-docs-2.29.1.json", &len);
	for (size_t n = 1; n + 2 < len; n += 7) {
		struct ras_reply r;
		assert_int_equal(ras_parse(buf, n, &r), -1);
		assert_true(r.truncated);
		assert_non_null(strstr(r.error, "truncated JSON"));
		ras_reply_free(&r);
	}
	free(buf);
}

static void test_not_reports(void **st)
{
	static const char *bad[] = { "", "   \n\n", "ERROR: Unknown command STATUSX\n",
		"OK\nERROR: Invalid format yaml\n", "hello world\nthis is not RAS\n", "[1,2,3]",
		"{\"a\":1}xx", "\x01\x02\xff" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ras_reply r;
		assert_int_equal(ras_parse(bad[i], strlen(bad[i]), &r), -1);
		assert_true(r.error[0]);
		ras_reply_free(&r);
	}
	struct ras_reply r;
	assert_int_equal(ras_parse("ERROR: Unknown command SET FORMAT json\n", 38, &r), -1);
	assert_string_equal(r.error, "the server answered: ERROR: Unknown command SET FORMAT json");
	ras_reply_free(&r);
	assert_int_equal(ras_parse(NULL, 0, &r), -1);
	ras_reply_free(&r);
}

/* An old server refuses SET FORMAT json and answers STATUS in text; the
 * handshake's lines before the report are not part of it. */
static void test_preamble(void **st)
{
	size_t len;
	char *rep = slurp("text-2.26.2-mismatch-allgather.txt", &len);
	const char *pre = "SERVER PROTOCOL 2\nOK\nERROR: Unknown command SET FORMAT json\n";
	char *buf = malloc(strlen(pre) + len);
	memcpy(buf, pre, strlen(pre));
	memcpy(buf + strlen(pre), rep, len);
	struct ras_reply r;
	assert_int_equal(ras_parse(buf, strlen(pre) + len, &r), 0);
	assert_int_equal(r.unknown_lines, 0);
	assert_int_equal(r.version, 22602);
	assert_string_equal(comm(&r, "#0-0")->hash, "fa93daea854b060b");
	ras_reply_free(&r);
	free(buf);
	free(rep);
}

static void test_no_comms(void **st)
{
	const char *t = "NCCL version 2.27.3 compiled with CUDA 12.9\n\nCommunicators... (0.00s)\n"
			"=============\n\nNo communicator data collected!\n\nErrors\n======\n\n"
			"Warnings\n========\n\n";
	struct ras_reply r;
	assert_int_equal(ras_parse(t, strlen(t), &r), 0);
	assert_true(r.no_comms);
	assert_int_equal(r.ncomms, 0);
	assert_false(r.truncated);
	ras_reply_free(&r);
	const char *j = "{\"nccl_version\": \"2.28.7\", \"communicators_count\": 0, "
			"\"communicators\": [], \"ras\": {\"collection_time_sec\": 0.001, "
			"\"timeouts_count\": 0}}";
	assert_int_equal(ras_parse(j, strlen(j), &r), 0);
	assert_true(r.no_comms);
	assert_int_equal(r.nodes, 0);
	ras_reply_free(&r);
}

static void test_version_code(void **st)
{
	assert_int_equal(ras_version_code("2.26.5"), 22605);
	assert_int_equal(ras_version_code("2.26.2+cuda12.4"), 22602);
	assert_int_equal(ras_version_code("2.30.7-1"), 23007);
	assert_int_equal(ras_version_code("2.26"), 0);
	assert_int_equal(ras_version_code("x2.26.5"), 0);
	assert_int_equal(ras_version_code("2.260.5"), 0);
	assert_int_equal(ras_version_code("2.26.5x"), 0);
	assert_int_equal(ras_version_code(""), 0);
	assert_int_equal(ras_version_code(NULL), 0);
}

static void event_is(const struct ras_event *e, const char *time, const char *ev, int pid,
		     const char *host, const char *gpus, const char *details)
{
	assert_string_equal(e->time, time);
	assert_string_equal(e->event, ev);
	assert_int_equal(e->pid, pid);
	assert_string_equal(e->host, host);
	assert_string_equal(e->gpus, gpus);
	assert_string_equal(e->details, details);
}

static void test_events_docs(void **st)
{
	struct ras_event ev[4];
	size_t len, used;
	char *buf = slurp("events-docs-text.txt", &len);
	assert_int_equal(ras_parse_events(buf, len, ev, 4, &used), 1);
	assert_int_equal(used, len);
	event_is(&ev[0], "2025-12-19 13:07:07", "PEER_DEAD", 1524345, "172.16.64.245", "1", "");
	assert_string_equal(ev[0].group, "");
	free(buf);
	buf = slurp("events-docs-2.29.1.json", &len);
	assert_int_equal(ras_parse_events(buf, len, ev, 4, &used), 1);
	assert_int_equal(used, len);
	event_is(&ev[0], "2025-12-19 13:07:07", "PEER_DEAD", 1524345, "172.16.64.245", "1", "");
	assert_string_equal(ev[0].group, "LIFECYCLE");
	free(buf);
}

/* The built stream, whole and then fed one byte more at a time: the same
 * events, partial lines and objects kept for the next call. */
static void test_events_incremental(void **st)
{
	struct ras_event ev[8], one[8];
	size_t len, used;
	char *buf = slurp("events-built-2.30.txt", &len);
	assert_int_equal(ras_parse_events(buf, len, ev, 8, &used), 4);
	assert_int_equal(used, len);
	event_is(&ev[0], "2026-12-02 10:00:01", "PEER_NEW", 4242, "10.0.0.1", "0,1", "");
	event_is(&ev[1], "2026-12-02 10:00:02", "PEER_RETRY", -1, "10.0.0.9", "",
		 "retrying connection");
	event_is(&ev[2], "2026-12-02 10:00:03", "PEER_CONNECTED", 4243, "10.0.0.2", "1 (NVML 3)",
		 "connection established successfully");
	event_is(&ev[3], "2026-12-02 10:00:04", "PEER_UNRESPONSIVE", -1, "10.0.0.9", "",
		 "peer not responding for 5s (keepalive warning)");
	assert_string_equal(ev[3].group, "TRACE");
	int n = 0;
	size_t start = 0;
	for (size_t end = 1; end <= len; end++) {
		n += ras_parse_events(buf + start, end - start, one + n, 8 - n, &used);
		start += used;
	}
	assert_int_equal(n, 4);
	assert_int_equal(start, len);
	for (int i = 0; i < 4; i++)
		assert_memory_equal(&one[i], &ev[i], sizeof(ev[i]));
	/* max 1: stops after the first event, the rest stays */
	assert_int_equal(ras_parse_events(buf, len, ev, 1, &used), 1);
	assert_true(used > 3 && used < len);
	assert_int_equal(ras_parse_events(buf + used, len - used, ev, 8, &used), 3);
	free(buf);
	/* a partial line: nothing consumed */
	assert_int_equal(ras_parse_events("[2026-12-02 10:00:01] PEER_NEW: Pro", 35, ev, 8, &used),
			 0);
	assert_int_equal(used, 0);
	/* not events: consumed and skipped */
	const char *junk = "garbage\n{\"x\": 1}\n";
	assert_int_equal(ras_parse_events(junk, strlen(junk), ev, 8, &used), 0);
	assert_int_equal(used, strlen(junk));
}

/* NCCL 2.28.7 - 2.29.1 leave the comma out after a missing rank's
 * nvml_dev: the report of exactly the job that lost a rank is invalid JSON.
 * It is read with that one comma put back. */
static void test_json_228_missing_comma(void **state)
{
	size_t n;
	char *b = slurp("json-built-2.28.9-dead.json", &n);
	struct ras_reply r;
	assert_int_equal(ras_parse(b, n, &r), 0);
	assert_int_equal(r.version, 22809);
	int dead = 0, missing = 0;
	for (int c = 0; c < r.ncomms; c++)
		for (int k = 0; k < r.comms[c].nranks; k++) {
			missing += r.comms[c].ranks[k].missing;
			dead += r.comms[c].ranks[k].dead;
			if (r.comms[c].ranks[k].missing)
				assert_int_equal(r.comms[c].ranks[k].nvml_dev, 2);
		}
	assert_true(missing >= 1);
	assert_true(dead >= 1);
	ras_reply_free(&r);
	/* a real syntax error elsewhere stays an error */
	char bad[] = "{ \"nccl_version\": \"2.28.9\" \"x\": 1 }";
	assert_int_equal(ras_parse(bad, strlen(bad), &r), -1);
	ras_reply_free(&r);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_256_ok),
		cmocka_unit_test(test_text_mismatch_allgather),
		cmocka_unit_test(test_text_outlier_nocomm_cut),
		cmocka_unit_test(test_text_docs),
		cmocka_unit_test(test_text_built_errors),
		cmocka_unit_test(test_text_built_224),
		cmocka_unit_test(test_json_docs),
		cmocka_unit_test(test_json_built),
		cmocka_unit_test(test_json_truncated),
		cmocka_unit_test(test_not_reports),
		cmocka_unit_test(test_preamble),
		cmocka_unit_test(test_no_comms),
		cmocka_unit_test(test_version_code),
		cmocka_unit_test(test_events_docs),
		cmocka_unit_test(test_events_incremental),
		cmocka_unit_test(test_json_228_missing_comma),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
