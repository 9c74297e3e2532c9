/* The per-port detail read on demand (model.h FAB_HAVE_*, collect.h
 * collect_model/collect_detail) on the real scenarios: a model without its
 * GID tables never says a GID is absent (no links.roce-no-ipv4, no
 * job.gid-index "has no GID at index N"), its findings say which rules did
 * not run, and once collect_detail() has read the rest the model, its
 * findings and its notes are those of collect_all(). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/collect.h"
#include "fabtop/findings.h"
#include "fabtop/root.h"
#include "job.h"

struct fix {
	struct fab_root root;
	struct fab_model lazy, full;
};

/* build/scenarios/NAME read twice: without any detail, and whole. */
static struct fix *open_scenario(const char *name)
{
	char path[256], err[512];
	struct fix *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	snprintf(path, sizeof(path), "build/scenarios/%s", name);
	if (root_open(&f->root, path, err, sizeof(err)) != 0)
		fail_msg("%s: %s (make tests)", path, err);
	model_init(&f->lazy);
	model_init(&f->full);
	assert_int_equal(collect_model(&f->root, &f->lazy, 0), 0);
	assert_int_equal(collect_all(&f->root, &f->full), 0);
	return f;
}

static void close_scenario(struct fix *f)
{
	model_free(&f->lazy);
	model_free(&f->full);
	root_close(&f->root);
	free(f);
}

static int count_id(const struct fab_model *m, const char *id)
{
	int n = 0;
	for (int i = 0; i < m->nfindings; i++)
		n += strcmp(m->findings[i].id, id) == 0;
	return n;
}

/* The same findings, in the same order, word for word. */
static void same_findings(const struct fab_model *a, const struct fab_model *b)
{
	assert_int_equal(a->nfindings, b->nfindings);
	for (int i = 0; i < a->nfindings; i++) {
		assert_string_equal(a->findings[i].id, b->findings[i].id);
		assert_string_equal(a->findings[i].subject, b->findings[i].subject);
		assert_string_equal(a->findings[i].message, b->findings[i].message);
		assert_string_equal(a->findings[i].evidence, b->findings[i].evidence);
	}
}

/* Every port of a model read without detail holds no GID and no counter,
 * and the model says it has not read them. */
static void no_detail_read(const struct fab_model *m)
{
	assert_false(model_has(m, FAB_HAVE_GIDS));
	assert_false(model_has(m, FAB_HAVE_PORT_COUNTERS));
	for (int i = 0; i < m->nnics; i++)
		for (int p = 0; p < m->nics[i].nports; p++) {
			assert_int_equal(m->nics[i].ports[p].ngids, 0);
			assert_int_equal(m->nics[i].ports[p].nerrors, 0);
			assert_int_equal(m->nics[i].ports[p].nxport, 0);
		}
}

/* roce-faults: a RoCE port with only link-local GIDs (links.roce-no-ipv4)
 * and error counters that grew (links.errors). */
static void test_roce_no_ipv4_not_from_unread(void **state)
{
	struct fix *f = open_scenario("roce-faults");
	assert_true(count_id(&f->full, "links.roce-no-ipv4") > 0);
	assert_true(count_id(&f->full, "links.errors") > 0);
	assert_int_equal(f->full.findings_lack, 0);

	no_detail_read(&f->lazy);
	assert_int_equal(count_id(&f->lazy, "links.roce-no-ipv4"), 0);
	assert_int_equal(count_id(&f->lazy, "links.gid-netns"), 0);
	assert_int_equal(count_id(&f->lazy, "links.errors"), 0);
	assert_int_equal(count_id(&f->lazy, "links.transport-errors"), 0);
	/* Not "none": the findings say which detail their rules lacked. */
	assert_int_equal(f->lazy.findings_lack, FAB_DETAIL_ALL);
	/* The topology's findings need no detail: already whole. */
	for (int i = 0; i < f->full.nfindings; i++)
		if (strncmp(f->full.findings[i].id, "topo.", 5) == 0 ||
		    strncmp(f->full.findings[i].id, "pcie.", 5) == 0)
			assert_true(count_id(&f->lazy, f->full.findings[i].id) > 0);

	/* Only the GIDs: the GID rules run, the counter rules still do not. */
	assert_int_equal(collect_detail(&f->root, &f->lazy, FAB_HAVE_GIDS), 1);
	assert_true(count_id(&f->lazy, "links.roce-no-ipv4") > 0);
	assert_int_equal(count_id(&f->lazy, "links.errors"), 0);
	assert_int_equal(f->lazy.findings_lack, FAB_HAVE_PORT_COUNTERS);
	assert_int_equal(collect_detail(&f->root, &f->lazy, FAB_HAVE_GIDS), 0);   /* had it */

	assert_int_equal(collect_detail(&f->root, &f->lazy, FAB_DETAIL_ALL), 1);
	assert_int_equal(f->lazy.findings_lack, 0);
	same_findings(&f->lazy, &f->full);
	assert_int_equal(f->lazy.nnotes, f->full.nnotes);
	for (int i = 0; i < f->full.nnics; i++)
		for (int p = 0; p < f->full.nics[i].nports; p++) {
			const struct fab_port *a = &f->lazy.nics[i].ports[p], *b = &f->full.nics[i].ports[p];
			assert_int_equal(a->ngids, b->ngids);
			assert_int_equal(a->nerrors, b->nerrors);
			assert_int_equal(a->nxport, b->nxport);
			for (int g = 0; g < a->ngids; g++)
				assert_string_equal(a->gids[g].gid, b->gids[g].gid);
		}
	close_scenario(f);
}

/* wrong-gid: the job sets NCCL_IB_GID_INDEX to a GID that is not RoCE v2
 * (job.gid-index). Checked against a model without GID tables, no finding
 * may say the GID is missing. */
static void test_job_gid_index_not_from_unread(void **state)
{
	struct fix *f = open_scenario("wrong-gid");
	struct fab_job_list jobs;
	char err[256];
	assert_int_equal(job_scan(&f->root, &jobs, err, sizeof(err)), 0);
	struct fab_model out;

	model_init(&out);
	job_check_all(&jobs, &f->full, &out);
	assert_true(count_id(&out, "job.gid-index") > 0);
	model_free(&out);

	model_init(&out);
	job_check_all(&jobs, &f->lazy, &out);
	assert_int_equal(count_id(&out, "job.gid-index"), 0);
	for (int i = 0; i < out.nfindings; i++)
		assert_null(strstr(out.findings[i].message, "has no GID"));
	model_free(&out);

	/* Asked for, the GIDs give the full model's judgement. */
	collect_detail(&f->root, &f->lazy, FAB_HAVE_GIDS);
	struct fab_model a, b;
	model_init(&a);
	model_init(&b);
	job_check_all(&jobs, &f->lazy, &a);
	job_check_all(&jobs, &f->full, &b);
	same_findings(&a, &b);
	model_free(&a);
	model_free(&b);
	job_list_free(&jobs);
	close_scenario(f);
}

/* A model built by hand holds what it says (model_init: every detail),
 * and a hand-made one that says it lacks the GIDs does not run their rules. */
static void test_hand_model(void **state)
{
	struct fab_model m;
	model_init(&m);
	assert_true(model_has(&m, FAB_DETAIL_ALL));
	struct fab_nic *n = model_add_nic(&m);
	snprintf(n->name, sizeof(n->name), "mlx5_0");
	n->pci = FAB_NO_INDEX;
	n->nports = 1;
	struct fab_port *p = &n->ports[0];
	p->num = 1;
	p->ll = FAB_LL_ETH;
	p->state = fab_int_of(4);
	snprintf(p->state_str, sizeof(p->state_str), "ACTIVE");
	p->phys_state = fab_int_of(5);
	p->ngids = 1;
	p->gids[0].index = 0;
	snprintf(p->gids[0].gid, sizeof(p->gids[0].gid), "fe80:0000:0000:0000:b83f:d203:00a4:1c3e");
	snprintf(p->gids[0].type, sizeof(p->gids[0].type), "RoCE v2");
	findings_run(&m);
	assert_int_equal(count_id(&m, "links.roce-no-ipv4"), 1);
	assert_int_equal(m.findings_lack, 0);
	m.have &= ~FAB_HAVE_GIDS;
	findings_run(&m);
	assert_int_equal(count_id(&m, "links.roce-no-ipv4"), 0);
	assert_int_equal(m.findings_lack, FAB_HAVE_GIDS);
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roce_no_ipv4_not_from_unread),
		cmocka_unit_test(test_job_gid_index_not_from_unread),
		cmocka_unit_test(test_hand_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
