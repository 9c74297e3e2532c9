/* NCCL RAS: the gate never lets through a request the version table marks
 * as dangerous (checked over every version, size and age), the pace and
 * the back-off, the addresses NCCL and its log write, and the verdicts
 * the session reaches from replies fed over time (the parser's own tests
 * are test_ras_parse.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/ras.h"
#include "fabtop/ras_job.h"
#include "job.h"
#include "procfs.h"

static struct ras_gate_in base(void)
{
	struct ras_gate_in in = {
		.now = 1000, .last_query = -1, .interval = 15, .window = 120, .youngest_age = 3600,
		.last_saw_init = false, .version = 22809, .gpus = 16,
	};
	return in;
}

static void test_gate_rules(void **state)
{
	char why[256];
	double next;
	struct ras_gate_in in = base();
	assert_true(ras_gate(RAS_REQ_STATUS, &in, &next, why, sizeof(why)));
	/* NCCL_RAS_ENABLE=0 */
	in.ras_off = true;
	assert_false(ras_gate(RAS_REQ_STATUS, &in, &next, why, sizeof(why)));
	assert_non_null(strstr(why, "NCCL_RAS_ENABLE=0"));
	assert_true(next < 0);
	/* young processes: not before 2 min, and the issue is named */
	in = base();
	in.youngest_age = 40;
	assert_false(ras_gate(RAS_REQ_STATUS, &in, &next, why, sizeof(why)));
	assert_true(next == 1080);
	assert_non_null(strstr(why, "40 s ago"));
	/* the pace: one query per interval */
	in = base();
	in.last_query = 990;
	assert_false(ras_gate(RAS_REQ_STATUS, &in, &next, why, sizeof(why)));
	assert_true(next == 1005);
	in.now = 1005;
	assert_true(ras_gate(RAS_REQ_STATUS, &in, &next, why, sizeof(why)));
	/* INIT seen: nothing until the next window */
	in = base();
	in.last_query = 990;
	in.now = 1050;
	in.last_saw_init = true;
	assert_false(ras_gate(RAS_REQ_STATUS, &in, &next, why, sizeof(why)));
	assert_true(next == 1110);
	assert_non_null(strstr(why, "INIT"));
	/* VERBOSE only when asked */
	in = base();
	assert_false(ras_gate(RAS_REQ_VERBOSE, &in, &next, why, sizeof(why)));
	in.verbose_asked = true;
	assert_true(ras_gate(RAS_REQ_VERBOSE, &in, &next, why, sizeof(why)));
	/* ... and never at 128 GPUs or of unknown size (#1762) */
	in.gpus = 128;
	assert_false(ras_gate(RAS_REQ_VERBOSE, &in, &next, why, sizeof(why)));
	assert_non_null(strstr(why, "1762"));
	in.gpus = -1;
	assert_false(ras_gate(RAS_REQ_VERBOSE, &in, &next, why, sizeof(why)));
	/* capabilities: SET FORMAT from 2.28.7, MONITOR from 2.29 */
	in = base();
	in.version = 22602;
	assert_false(ras_gate(RAS_REQ_SET_FORMAT, &in, &next, why, sizeof(why)));
	assert_false(ras_gate(RAS_REQ_MONITOR, &in, &next, why, sizeof(why)));
	in.version = 22900;
	assert_true(ras_gate(RAS_REQ_MONITOR, &in, &next, why, sizeof(why)));
	in.version = 0;           /* unknown: asked, JSON tried, the reply tells */
	assert_true(ras_gate(RAS_REQ_SET_FORMAT, &in, &next, why, sizeof(why)));
	/* the user's shorter window sets the pace */
	assert_true(ras_interval(120) == 15);
	assert_true(ras_interval(4) == 4);
}

/* Whether a hazard's condition holds for these inputs. */
static bool condition_holds(const struct ras_hazard *h, const struct ras_gate_in *in)
{
	switch (h->when) {
	case RAS_WHEN_ALWAYS: return true;
	case RAS_WHEN_LARGE: return in->gpus < 0 || in->gpus >= RAS_LARGE_GPUS;
	case RAS_WHEN_INIT:
		return (in->youngest_age >= 0 && in->youngest_age < RAS_MIN_AGE) ||
		       (in->last_saw_init && in->last_query >= 0 && in->now < in->last_query + in->window);
	}
	return true;
}

/* The promise: over every release 2.24.0 - 2.31.15 (and unknown), every
 * request, job size, age and INIT state, the gate never allows a request
 * whose hazard applies with its condition true. */
static void test_gate_never_dangerous(void **state)
{
	static const int gpus[] = { -1, 1, 8, 127, 128, 256, 4096 };
	static const double ages[] = { -1, 0, 60, 119, 120, 7200 };
	int allowed = 0, checked = 0;
	for (int v = 22400; v <= 23115; v++) {
		if (v % 100 > 15)
			continue;
		for (int q = RAS_REQ_STATUS; q <= RAS_REQ_VERBOSE; q++)
			for (size_t g = 0; g < sizeof(gpus) / sizeof(gpus[0]); g++)
				for (size_t a = 0; a < sizeof(ages) / sizeof(ages[0]); a++)
					for (int init = 0; init < 2; init++) {
						struct ras_gate_in in = base();
						in.version = v == 22400 ? 0 : v;
						in.gpus = gpus[g];
						in.youngest_age = ages[a];
						in.last_saw_init = init;
						in.last_query = init ? 900 : -1;
						in.verbose_asked = true;
						char why[256];
						double next;
						if (!ras_gate((enum ras_req)q, &in, &next, why, sizeof(why)))
							continue;
						allowed++;
						for (int i = 0; i < ras_nhazards; i++) {
							const struct ras_hazard *h = &ras_hazards[i];
							bool in_range = !in.version || (in.version >= h->lo &&
									(!h->hi || in.version <= h->hi));
							checked++;
							if ((int)h->req == q && in_range)
								assert_false(condition_holds(h, &in));
						}
					}
	}
	assert_true(allowed > 1000);   /* the check is not vacuous */
	assert_true(checked > allowed);
}

static void test_table_names_issues(void **state)
{
	static const int issues[] = { 1669, 1718, 1762, 2346 };
	for (size_t k = 0; k < sizeof(issues) / sizeof(issues[0]); k++) {
		bool found = false;
		for (int i = 0; i < ras_nhazards; i++)
			found |= ras_hazards[i].issue == issues[k];
		assert_true(found);
	}
	for (int i = 0; i < ras_nhazards; i++) {
		assert_true(ras_hazards[i].lo >= 22400);
		assert_true(!ras_hazards[i].hi || ras_hazards[i].hi >= ras_hazards[i].lo);
		assert_true(strlen(ras_hazards[i].what) > 10);
	}
}

static void test_addr_forms(void **state)
{
	struct ras_addr a;
	assert_int_equal(ras_addr_parse("10.0.0.5:29000", &a), 0);
	assert_string_equal(a.host, "10.0.0.5");
	assert_string_equal(a.port, "29000");
	assert_int_equal(ras_addr_parse("localhost", &a), 0);
	assert_string_equal(a.port, "28028");
	assert_int_equal(ras_addr_parse("[fe80::1]:28030", &a), 0);
	assert_string_equal(a.host, "fe80::1");
	assert_string_equal(a.port, "28030");
	/* the log's ncclSocketToString form, NVIDIA/nccl#1669's log */
	assert_int_equal(ras_addr_parse("::1<28028>\n", &a), 0);
	assert_string_equal(a.host, "::1");
	assert_string_equal(a.port, "28028");
	assert_int_equal(ras_addr_parse("127.0.0.1<28028>", &a), 0);
	assert_string_equal(a.host, "127.0.0.1");
	assert_int_equal(ras_addr_parse("::1", &a), 0);     /* bare IPv6: the default port */
	assert_string_equal(a.port, "28028");
	assert_int_equal(ras_addr_parse("", &a), -1);
	assert_int_equal(ras_addr_parse("host:", &a), -1);
	assert_int_equal(ras_addr_parse("host:12ab", &a), -1);
	assert_int_equal(ras_addr_parse("host:123456", &a), -1);
	assert_int_equal(ras_addr_parse(NULL, &a), -1);
}

static void test_process_age(void **state)
{
	/* /proc/<pid>/stat of a process started 1000 ticks after boot; a comm
	 * with spaces and a ')' must not shift the fields. */
	const char *stat = "4242 (py thon) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 9 0 1000 "
			   "123456 789 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0";
	assert_true(procfs_parse_age(stat, "3610.50 7000.00\n", 100) == 3600.5);
	assert_true(procfs_parse_age(stat, "5.00 1.00\n", 100) == 0);   /* clock oddities: never negative */
	assert_true(procfs_parse_age("garbage", "1.0", 100) < 0);
	assert_true(procfs_parse_age(stat, "x", 100) < 0);
}

/* ---- the session over time, fed as a capture's record feeds it ---- */

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/tests/fixtures/ras/%s", getenv("FABTOP_TOP") ? getenv("FABTOP_TOP") : ".",
		 name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *b = malloc(1 << 20);
	*len = fread(b, 1, (1 << 20) - 1, f);
	b[*len] = '\0';
	fclose(f);
	return b;
}

static void feed(struct ras_session *s, const char *text, double t)
{
	struct ras_xfer x = { .reply = (char *)text, .len = strlen(text) };
	ras_session_feed(s, &x, t);
}

static struct ras_session session(void)
{
	struct ras_session s;
	struct fab_job_list none = { 0 };
	ras_session_init(&s, &none, "127.0.0.1:1", 120, false);
	return s;
}

/* One 4-rank communicator in NCCL's JSON, ranks' AllReduce counts given. */
static void json4(char *buf, size_t len, long c0, long c1, long c2, long c3, int init)
{
	long c[4] = { c0, c1, c2, c3 };
	int o = snprintf(buf, len, "{\n  \"nccl_version\": \"2.28.9\",\n  \"cuda_runtime_version\": 12040,\n"
			 "  \"cuda_driver_version\": 12040,\n  \"timestamp\": \"2026-12-02 01:00:00\",\n"
			 "  \"communicators_count\": 1,\n  \"communicators\": [\n    {\n"
			 "      \"hash\": \"0x27a079b828ff1a75\",\n      \"secondary_hash\": \"0x1:0x2\",\n"
			 "      \"size\": 4,\n      \"ranks_count\": 4,\n      \"missing_ranks_count\": 0,\n"
			 "      \"ranks\": [\n");
	for (int r = 0; r < 4; r++)
		o += snprintf(buf + o, len - (size_t)o,
			      "%s        {\n          \"rank\": %d,\n          \"host\": \"10.0.0.%d\",\n"
			      "          \"pid\": %d,\n          \"cuda_dev\": %d,\n          \"nvml_dev\": %d,\n"
			      "          \"status\": {\n            \"init_state\": %d,\n            \"async_error\": 0,\n"
			      "            \"finalize_called\": false,\n            \"destroy_flag\": false,\n"
			      "            \"abort_flag\": false\n          },\n          \"collective_counts\": {\n"
			      "            \"AllReduce\": %ld\n          }\n        }",
			      r ? ",\n" : "", r, 1 + r / 2, 4242 + r, r % 2, r % 2, init ? 7 : 0, c[r]);
	snprintf(buf + o, len - (size_t)o, "\n      ],\n      \"missing_ranks\": [\n\n      ]\n    }\n  ],\n"
		 "  \"ras\": {\n    \"collection_time_sec\": 0.001,\n    \"timeouts_count\": 0\n  }\n}\n");
}

static void test_verdicts_over_time(void **state)
{
	char j[8192], why[256];
	struct ras_lag lag[8];
	/* advancing, with ranks at different counts: normal */
	struct ras_session s = session();
	json4(j, sizeof(j), 10, 10, 9, 10, 0);
	feed(&s, j, 0);
	assert_int_equal(ras_session_verdict(&s, why, sizeof(why)), JV_WATCHING);
	json4(j, sizeof(j), 30, 29, 30, 30, 0);
	feed(&s, j, 120);
	assert_int_equal(ras_session_verdict(&s, why, sizeof(why)), JV_OK);
	assert_int_equal(s.tracks[0].progress, CP_ADVANCING);
	ras_session_free(&s);
	/* frozen with two ranks behind, over the window: stuck, those two lag */
	s = session();
	json4(j, sizeof(j), 50, 49, 49, 50, 0);
	feed(&s, j, 0);
	feed(&s, j, 60);
	assert_int_equal(ras_session_verdict(&s, why, sizeof(why)), JV_WATCHING);
	feed(&s, j, 120);
	assert_int_equal(ras_session_verdict(&s, why, sizeof(why)), JV_STUCK);
	assert_int_equal(ras_session_lagging(&s, lag, 8), 2);
	assert_int_equal(lag[0].rank, 1);
	assert_int_equal(lag[1].rank, 2);
	assert_int_equal(lag[1].pid, 4244);
	assert_string_equal(lag[1].host, "10.0.0.2");
	assert_non_null(strstr(lag[0].why, "AllReduce at 49"));
	ras_session_free(&s);
	/* every rank at the same count, nothing else moves: stuck together */
	s = session();
	json4(j, sizeof(j), 7, 7, 7, 7, 0);
	feed(&s, j, 0);
	feed(&s, j, 130);
	assert_int_equal(ras_session_verdict(&s, why, sizeof(why)), JV_STUCK);
	assert_non_null(strstr(why, "same count"));
	assert_int_equal(ras_session_lagging(&s, lag, 8), 0);
	ras_session_free(&s);
	/* a communicator in INIT: job-init, and the gate backs off */
	s = session();
	json4(j, sizeof(j), 0, 0, 0, 0, 1);
	feed(&s, j, 0);
	assert_int_equal(ras_session_verdict(&s, why, sizeof(why)), JV_INIT);
	assert_true(s.last_saw_init);
	ras_session_free(&s);
	/* a failed exchange and an answer that is no report: unavailable */
	s = session();
	struct ras_xfer x = { .err = 111 };
	snprintf(x.why, sizeof(x.why), "nothing listens on 127.0.0.1 port 1");
	ras_session_feed(&s, &x, 0);
	assert_int_equal(ras_session_verdict(&s, why, sizeof(why)), JV_UNAVAILABLE);
	assert_non_null(strstr(why, "nothing listens"));
	feed(&s, "\x01\x02garbage\n", 20);
	assert_int_equal(ras_session_verdict(&s, why, sizeof(why)), JV_UNAVAILABLE);
	assert_non_null(strstr(why, "not a RAS report"));
	ras_session_free(&s);
}

static void test_verdicts_from_transcripts(void **state)
{
	char why[256];
	size_t n;
	/* NCCL's docs: a dead process and a missing rank */
	struct ras_session s = session();
	char *t = slurp("text-docs-dead.txt", &n);
	feed(&s, t, 0);
	assert_int_equal(ras_session_verdict(&s, why, sizeof(why)), JV_DEAD_RANKS);
	struct ras_lag lag[8];
	assert_true(ras_session_lagging(&s, lag, 8) >= 1);
	free(t);
	ras_session_free(&s);
	/* NVIDIA/nccl#1730: 256 GPUs, RUNNING OK in 2.26.2's text: agreement
	 * shows no counts, so progress is unknown, never "ok" */
	s = session();
	t = slurp("text-2.26.2-256gpu-ok.txt", &n);
	feed(&s, t, 0);
	feed(&s, t, 130);
	assert_int_equal(ras_session_verdict(&s, why, sizeof(why)), JV_UNKNOWN);
	assert_int_equal(s.version, 22602);
	free(t);
	ras_session_free(&s);
	/* the same MISMATCH section twice over the window: stuck (text) */
	s = session();
	t = slurp("text-docs-mismatch.txt", &n);
	feed(&s, t, 0);
	feed(&s, t, 125);
	assert_int_equal(ras_session_verdict(&s, why, sizeof(why)), JV_STUCK);
	free(t);
	ras_session_free(&s);
	/* RAS off and no job */
	struct fab_job_list none = { 0 };
	ras_session_init(&s, &none, NULL, 120, false);
	assert_int_equal(ras_session_verdict(&s, why, sizeof(why)), JV_NO_JOB);
	assert_int_equal(ras_session_poll(&s, 0), 0);   /* nothing is asked */
	ras_session_free(&s);
}

/* The prediction set against the job's own NCCL log (the public logs of
 * tests/fixtures/nccl-logs, sources in its README). */
static void test_gdr_against_log(void **state)
{
	char why[256], buf[320];
	struct fab_job j;
	memset(&j, 0, sizeof(j));
	j.pid = 77;
	snprintf(j.debug_file_open, sizeof(j.debug_file_open), "%s/tests/fixtures/nccl-logs/v2.10-ib-gdr-ok.log",
		 getenv("FABTOP_TOP") ? getenv("FABTOP_TOP") : ".");
	assert_int_equal(job_log_gdr(&j, why, sizeof(why)), NCCL_GDR_ON);
	assert_non_null(strstr(why, "Enabled"));
	snprintf(j.debug_file_open, sizeof(j.debug_file_open), "%s/tests/fixtures/nccl-logs/v2.12-roce-no-gdr.log",
		 getenv("FABTOP_TOP") ? getenv("FABTOP_TOP") : ".");
	assert_int_equal(job_log_gdr(&j, why, sizeof(why)), NCCL_GDR_OFF);
	j.debug_file_open[0] = '\0';
	assert_int_equal(job_log_gdr(&j, why, sizeof(why)), NCCL_GDR_UNKNOWN);
	struct job_gpu_plan p[2];
	memset(p, 0, sizeof(p));
	p[0].gdr.nccl = p[1].gdr.nccl = FAB_YES;
	assert_int_equal(job_gdr_vs_log(NCCL_GDR_ON, p, 2, buf, sizeof(buf)), 1);
	assert_non_null(strstr(buf, "agree"));
	assert_int_equal(job_gdr_vs_log(NCCL_GDR_OFF, p, 2, buf, sizeof(buf)), -1);
	assert_non_null(strstr(buf, "differ"));
	p[1].gdr.nccl = FAB_NO;
	assert_int_equal(job_gdr_vs_log(NCCL_GDR_PARTIAL, p, 2, buf, sizeof(buf)), 1);
	p[1].gdr.nccl = FAB_UNKNOWN;
	assert_int_equal(job_gdr_vs_log(NCCL_GDR_ON, p, 2, buf, sizeof(buf)), 0);
}

/* A job that restarts between two queries is young again: the second is
 * not sent. A settings-only process (no libnccl) does not make it young. */
static void test_restart_is_young_again(void **state)
{
	struct fab_job_list l = { 0 };
	l.jobs = calloc(2, sizeof(*l.jobs));
	l.njobs = 1;
	l.jobs[0].pid = 4242;
	l.jobs[0].age_s = 3600;
	snprintf(l.jobs[0].nccl_lib, sizeof(l.jobs[0].nccl_lib), "/usr/lib/libnccl.so.2.28.9");
	struct ras_session s;
	ras_session_init(&s, &l, NULL, 120, false);
	assert_int_equal(s.version, 22809);
	enum ras_req req;
	bool json;
	assert_true(ras_session_may_ask(&s, 100, &req, &json));
	assert_int_equal(req, RAS_REQ_STATUS);
	struct ras_xfer x = { .err = 111 };
	ras_session_feed(&s, &x, 100);
	/* a shell with NCCL_* set, seconds old: not one of the ranks */
	l.njobs = 2;
	l.jobs[1].pid = 5000;
	l.jobs[1].age_s = 3;
	ras_session_jobs(&s, &l, 130);
	assert_true(ras_session_may_ask(&s, 130, &req, &json));
	/* the job restarted: its new process is 10 s old */
	l.njobs = 1;
	l.jobs[0].pid = 4300;
	l.jobs[0].age_s = 10;
	ras_session_jobs(&s, &l, 150);
	assert_false(ras_session_may_ask(&s, 150, &req, &json));
	assert_non_null(strstr(s.not_sent, "10 s ago"));
	assert_true(s.next > 250 && s.next < 270);
	/* its start time cannot be read: not asked at all */
	l.jobs[0].age_s = -1;
	ras_session_jobs(&s, &l, 300);
	assert_false(ras_session_may_ask(&s, 300, &req, &json));
	assert_non_null(strstr(s.not_sent, "cannot be read"));
	ras_session_free(&s);
	free(l.jobs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_rules),
		cmocka_unit_test(test_gate_never_dangerous),
		cmocka_unit_test(test_table_names_issues),
		cmocka_unit_test(test_addr_forms),
		cmocka_unit_test(test_process_age),
		cmocka_unit_test(test_verdicts_over_time),
		cmocka_unit_test(test_verdicts_from_transcripts),
		cmocka_unit_test(test_gdr_against_log),
		cmocka_unit_test(test_restart_is_young_again),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
