/*
 * test_wizard.c - the wizard's engine: NCCL_IB_HCA selection, input
 * validation (nothing stored from a refused value), the step life cycle
 * (gate -> blocked with the reason, run -> status from the findings, the
 * verdict from the worst one), bounded raw output, a real command through
 * the runner (output, exit status, a timeout), layer 1 over a model built
 * here, the command line (exit 2 for bad arguments), and the output hooks
 * of a step (print, exit_code, draw): the engine, batch mode and the pane
 * call a step's own, and a step without them gets the defaults.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "fabtop/ab.h"
#include "fabtop/util.h"
#include "fabtop/view.h"
#include "fabtop/wizard.h"

static void test_hca_selected(void **state)
{
	(void)state;
	assert_true(wiz_hca_selected("", "mlx5_0", 1));
	assert_true(wiz_hca_selected(NULL, "mlx5_0", 1));
	/* A prefix takes every device it starts. */
	assert_true(wiz_hca_selected("mlx5", "mlx5_10", 1));
	assert_true(wiz_hca_selected("mlx5_1", "mlx5_10", 1));
	assert_false(wiz_hca_selected("mlx5_1", "mlx5_0", 1));
	/* "=" wants the exact name. */
	assert_true(wiz_hca_selected("=mlx5_1", "mlx5_1", 1));
	assert_false(wiz_hca_selected("=mlx5_1", "mlx5_10", 1));
	/* ":N" limits to one port. */
	assert_true(wiz_hca_selected("mlx5_0:1,mlx5_1:1", "mlx5_1", 1));
	assert_false(wiz_hca_selected("mlx5_0:1,mlx5_1:1", "mlx5_1", 2));
	assert_true(wiz_hca_selected("mlx5_0:1", "mlx5_0", -1));
	/* "^" excludes. */
	assert_false(wiz_hca_selected("^mlx5_3", "mlx5_3", 1));
	assert_true(wiz_hca_selected("^mlx5_3", "mlx5_2", 1));
	assert_true(wiz_hca_selected("^=mlx5_1", "mlx5_10", 1));
	assert_false(wiz_hca_selected("^=mlx5_1", "mlx5_1", 1));
}

static void test_inputs_refused(void **state)
{
	char err[512];
	(void)state;
	struct wizard_opts o = { .npeers = 1, .peers = { ";reboot" } };
	assert_null(wizard_new(NULL, &o, err, sizeof(err)));
	assert_non_null(strstr(err, "refused peer ';reboot': ';' is a shell metacharacter"));
	assert_non_null(strstr(err, "nothing was run"));

	struct wizard_opts o2 = { .iface = "$(id)" };
	assert_null(wizard_new(NULL, &o2, err, sizeof(err)));
	assert_non_null(strstr(err, "refused interface '$(id)'"));

	struct wizard_opts o3 = { .hca = "mlx5_0;ls" };
	assert_null(wizard_new(NULL, &o3, err, sizeof(err)));
	assert_non_null(strstr(err, "'mlx5_0;ls'"));
	assert_non_null(strstr(err, "nothing was run"));

	struct wizard_opts good = { .iface = "eth0", .hca = "^mlx5_3", .npeers = 2,
				    .peers = { "10.0.0.1", "node-17.cluster" } };
	struct wizard *w = wizard_new(NULL, &good, err, sizeof(err));
	assert_non_null(w);
	assert_string_equal(w->in.iface, "eth0");
	assert_string_equal(w->in.iface_src, "--iface");
	assert_string_equal(w->in.hca, "^mlx5_3");
	assert_int_equal(w->in.npeers, 2);

	/* The editor: a refused list changes nothing; a good one replaces. */
	assert_int_equal(wizard_set_peers(w, "10.0.0.2 `id`", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "`id`"));
	assert_int_equal(w->in.npeers, 2);
	assert_int_equal(wizard_set_peers(w, "10.0.0.2, fe80::1 ,b", err, sizeof(err)), 0);
	assert_int_equal(w->in.npeers, 3);
	assert_string_equal(w->in.peers[1], "fe80::1");
	char line[256];
	wizard_peers_line(w, line, sizeof(line));
	assert_string_equal(line, "10.0.0.2 fe80::1 b");
	assert_int_equal(wizard_set_iface(w, "a b", err, sizeof(err)), -1);
	assert_string_equal(w->in.iface, "eth0");
	assert_int_equal(wizard_set_iface(w, "ib0.8001", err, sizeof(err)), 0);
	assert_string_equal(w->in.iface, "ib0.8001");
	assert_string_equal(w->in.iface_src, "entered in the wizard");
	assert_int_equal(wizard_set_peers(w, "h1 h2 h3 h4 h5 h6 h7 h8 h9", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 8"));
	wizard_free(w);
}

/* ---- a step of the test's own, through the engine ---------------------------- */

static bool test_gate_closed;

static bool t_gate(const struct wizard *w, const struct fab_model *m, char *why, size_t len)
{
	(void)w; (void)m;
	if (test_gate_closed)
		snprintf(why, len, "the door is shut");
	return test_gate_closed;
}

static int t_run(struct wizard *w, struct wiz_step *s, const struct fab_model *m)
{
	(void)w; (void)m;
	struct fab_finding *f = wiz_finding(s, "t.info", SEV_INFO, "a");
	snprintf(f->message, sizeof(f->message), "fine");
	f = wiz_finding(s, "t.warn", SEV_WARN, "b");
	snprintf(f->message, sizeof(f->message), "odd");
	snprintf(f->hint, sizeof(f->hint), "look at b");
	f = wiz_finding(s, "t.warn2", SEV_WARN, "c");
	snprintf(f->message, sizeof(f->message), "odd too");
	for (int i = 0; i < 2000; i++)
		wiz_out(s, "line %04d of output that is long enough to pass the cap soon\n", i);
	return 0;
}

static const struct wiz_step_def t_def = {
	.id = "t", .layer = "9 test", .title = "test", .why = "tests", .gate = t_gate, .run = t_run,
};

static void test_step_life(void **state)
{
	char err[256];
	struct fab_model m;
	(void)state;
	model_init(&m);
	struct wizard *w = wizard_new(NULL, NULL, err, sizeof(err));
	assert_non_null(w);
	w->steps[0].def = &t_def;
	assert_int_equal(wizard_next_pending(w), 0);

	test_gate_closed = true;
	assert_int_equal(wizard_run_step(w, 0, &m), WIZ_BLOCKED);
	assert_string_equal(w->steps[0].verdict, "blocked: the door is shut");
	assert_int_equal(w->steps[0].nfindings, 0);

	test_gate_closed = false;
	assert_int_equal(wizard_run_step(w, 0, &m), WIZ_WARN);
	struct wiz_step *s = &w->steps[0];
	assert_string_equal(s->verdict, "b: odd (and 1 more)");
	assert_string_equal(s->hint, "look at b");
	assert_int_equal(s->runs, 2);
	/* The output is cut at the cap; what was dropped is still counted. */
	assert_int_equal(s->out_len, WIZ_OUT_CAP);
	assert_int_equal(strlen(s->out), WIZ_OUT_CAP);
	assert_int_equal(s->out_total, 2000 * 61);
	assert_true(s->out_total > s->out_len);

	wizard_skip_step(w, 0);
	assert_int_equal(s->status, WIZ_SKIPPED);
	assert_int_equal(s->nfindings, 0);
	assert_null(s->out);
	assert_string_equal(wiz_status_name(WIZ_SKIPPED), "skipped");
	wizard_free(w);
	model_free(&m);
}

static void test_run_cmd(void **state)
{
	struct wiz_step s;
	(void)state;
	memset(&s, 0, sizeof(s));
	const char *const echo[] = { "echo", "hello", "it's", NULL };
	assert_int_equal(wiz_run_cmd(&s, echo, 5), 0);
	assert_int_equal(s.ncmds, 1);
	assert_non_null(strstr(s.cmds[0], "echo hello"));
	assert_non_null(strstr(s.out, "hello it's\n"));

	const char *const f[] = { "sh", "-c", "echo out; exit 3", NULL };
	assert_int_equal(wiz_run_cmd(&s, f, 5), 3);
	assert_non_null(strstr(s.out, "[exit status 3]"));

	const char *const slow[] = { "sleep", "30", NULL };
	assert_int_equal(wiz_run_cmd(&s, slow, 0.3), -1);
	assert_non_null(strstr(s.out, "[timed out after"));

	const char *const none[] = { "/nonexistent/fabtop-test", NULL };
	assert_int_equal(wiz_run_cmd(&s, none, 5), -1);
	assert_non_null(strstr(s.out, "No such file"));
	assert_int_equal(s.ncmds, 4);
	free(s.out);
}

/* ---- layer 1 over a model made here ------------------------------------------ */

static void add_port(struct fab_nic *n, int num, const char *state)
{
	struct fab_port *p = &n->ports[n->nports++];
	p->num = num;
	snprintf(p->state_str, sizeof(p->state_str), "%s", state);
	p->ll = FAB_LL_ETH;
}

static void test_l1(void **state)
{
	char err[256];
	struct fab_model m;
	(void)state;
	model_init(&m);
	struct wizard *w = wizard_new(NULL, NULL, err, sizeof(err));
	int l1 = wizard_find_step(w, "l1");
	assert_true(l1 >= 0);

	/* No HCA at all: skipped, and said why. */
	assert_int_equal(wizard_run_step(w, l1, &m), WIZ_SKIPPED);
	assert_non_null(strstr(w->steps[l1].verdict, "no RDMA devices"));

	struct fab_nic *a = model_add_nic(&m);
	snprintf(a->name, sizeof(a->name), "mlx5_0");
	add_port(a, 1, "ACTIVE");
	struct fab_nic *b = model_add_nic(&m);
	snprintf(b->name, sizeof(b->name), "mlx5_1");
	add_port(b, 1, "DOWN");
	add_port(b, 2, "ACTIVE");
	struct fab_finding *f = model_add_finding(&m, "links.port-down", SEV_ERROR, "mlx5_1/1");
	snprintf(f->message, sizeof(f->message), "down");
	f = model_add_finding(&m, "links.rate-degraded", SEV_WARN, "mlx5_0/1");
	snprintf(f->message, sizeof(f->message), "slow");
	model_add_finding(&m, "topo.nic-far", SEV_WARN, "GPU0");

	/* Every HCA: both link findings, the error first in the verdict. */
	assert_int_equal(wizard_run_step(w, l1, &m), WIZ_FAIL);
	assert_int_equal(w->steps[l1].nfindings, 2);
	assert_string_equal(w->steps[l1].verdict, "mlx5_1/1: down (and 1 more)");

	/* Only mlx5_1's port 2: nothing wrong there. */
	assert_int_equal(wizard_set_hca(w, "mlx5_1:2", err, sizeof(err)), 0);
	assert_int_equal(wizard_run_step(w, l1, &m), WIZ_PASS);
	assert_string_equal(w->steps[l1].verdict, "1 HCA port on 1 HCA: no link health findings");
	assert_string_equal(w->steps[l1].inputs[0], "HCAs mlx5_1:2 (entered in the wizard)");

	/* Excluding mlx5_1: only mlx5_0's warning. */
	assert_int_equal(wizard_set_hca(w, "^mlx5_1", err, sizeof(err)), 0);
	assert_int_equal(wizard_run_step(w, l1, &m), WIZ_WARN);
	assert_int_equal(w->steps[l1].nfindings, 1);
	assert_string_equal(w->steps[l1].findings[0].id, "links.rate-degraded");

	/* A list that selects nothing here. */
	assert_int_equal(wizard_set_hca(w, "=mlx5_9", err, sizeof(err)), 0);
	assert_int_equal(wizard_run_step(w, l1, &m), WIZ_FAIL);
	assert_string_equal(w->steps[l1].findings[0].id, "l1.hca-missing");
	assert_string_equal(w->steps[l1].findings[0].evidence, "HCAs here: mlx5_0 mlx5_1");
	wizard_free(w);
	model_free(&m);
}

/* ---- the command line ---------------------------------------------------------- */

static int run_main(int argc, const char **argv)
{
	return wizard_main(argc, (char **)argv, NULL);
}

static void test_command_line(void **state)
{
	(void)state;
	const char *a1[] = { "fabtop", "--root", "x", "wizard", NULL };
	assert_true(wizard_is_command(4, (char **)a1));
	const char *a2[] = { "fabtop", "--json", "report", "wizard", NULL };
	assert_false(wizard_is_command(4, (char **)a2));
	const char *a3[] = { "fabtop", "--peer", "wizard", "report", NULL };
	assert_false(wizard_is_command(4, (char **)a3));
	const char *a4[] = { "fabtop", "--", "wizard", NULL };
	assert_false(wizard_is_command(3, (char **)a4));

	const char *b1[] = { "fabtop", "wizard", "--batch", "--steps", "bogus", NULL };
	assert_int_equal(run_main(5, b1), 2);
	const char *b2[] = { "fabtop", "wizard", "--batch", "--peer", ";reboot", NULL };
	assert_int_equal(run_main(5, b2), 2);
	const char *b3[] = { "fabtop", "wizard", "extra", NULL };
	assert_int_equal(run_main(3, b3), 2);
	const char *b4[] = { "fabtop", "wizard", "--pid", "x1", NULL };
	assert_int_equal(run_main(4, b4), 2);
	const char *b5[] = { "fabtop", "wizard", "--batch", "--root", "/nonexistent/fabtop", NULL };
	assert_int_equal(run_main(5, b5), 2);
}

/* The A/B command typed in the pane: words as a shell splits them, nothing
 * expanded; a bad line changes nothing; the line reads back word for word. */
static void test_ab_command(void **state)
{
	(void)state;
	char err[256], line[1024];
	struct wizard *w = wizard_new(NULL, NULL, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(wizard_set_cmd(w, "  mpirun -np 2 -x 'A=b c' \"it's \\\"q\\\"\" x\\ y $(id) ", err,
					sizeof(err)), 0);
	const char *want[] = { "mpirun", "-np", "2", "-x", "A=b c", "it's \"q\"", "x y", "$(id)" };
	assert_int_equal(w->ncmd, 8);
	for (int i = 0; i < 8; i++)
		assert_string_equal(w->cmd[i], want[i]);
	assert_null(w->cmd[8]);

	/* What the editor shows is read back into the same words. */
	wizard_cmd_line(w, line, sizeof(line));
	assert_int_equal(wizard_set_cmd(w, line, err, sizeof(err)), 0);
	assert_int_equal(w->ncmd, 8);
	for (int i = 0; i < 8; i++)
		assert_string_equal(w->cmd[i], want[i]);

	const char *bad[][2] = {
		{ "all_reduce_perf 'open", "the command has an open ' quote" },
		{ "a \"b", "the command has an open \" quote" },
		{ "a b\\", "the command ends in a backslash" },
		{ "a '' b", "the command has an empty word (2): '' passes nothing" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(wizard_set_cmd(w, bad[i][0], err, sizeof(err)), -1);
		assert_string_equal(err, bad[i][1]);
		assert_int_equal(w->ncmd, 8);   /* unchanged */
	}
	char many[AB_MAX_ARGS * 2 + 8] = "";
	for (int i = 0; i <= AB_MAX_ARGS; i++)
		strcat(many, "a ");
	assert_int_equal(wizard_set_cmd(w, many, err, sizeof(err)), -1);
	assert_int_equal(w->ncmd, 8);

	/* Empty: no command, the loopback proposal again. */
	assert_int_equal(wizard_set_cmd(w, "   ", err, sizeof(err)), 0);
	assert_int_equal(w->ncmd, 0);
	assert_null(w->cmd);
	wizard_cmd_line(w, line, sizeof(line));
	assert_string_equal(line, "");
	wizard_free(w);

	/* Layer 3 and 4 options are checked like the others. */
	struct wizard_opts o = { .side = "both" };
	assert_null(wizard_new(NULL, &o, err, sizeof(err)));
	assert_string_equal(err, "--side wants server or client, not \"both\"");
	struct wizard_opts o2 = { .gid_index = 256, .gid_index_set = true };
	assert_null(wizard_new(NULL, &o2, err, sizeof(err)));
	assert_string_equal(err, "--gid-index wants 0..255, not 256");
	const char *cmd[] = { "all_reduce_perf", "", NULL };
	struct wizard_opts o3 = { .cmd = cmd };
	assert_null(wizard_new(NULL, &o3, err, sizeof(err)));
	assert_string_equal(err, "the command after -- has an empty word (2)");
}

/* ---- output hooks: steps of the test's own, with and without them ------------- */

static struct {
	int print, exit, draw;
	bool verbose;               /* what print() was given */
	bool draw_says;             /* what draw() returns */
} hooks;

static int h_run(struct wizard *w, struct wiz_step *s, const struct fab_model *m)
{
	(void)w; (void)m;
	struct fab_finding *f = wiz_finding(s, "t.warn", SEV_WARN, "b");
	snprintf(f->message, sizeof(f->message), "b is odd");
	snprintf(f->hint, sizeof(f->hint), "look at b");
	wiz_out(s, "raw line\n");
	return 0;
}

static int h_run_clean(struct wizard *w, struct wiz_step *s, const struct fab_model *m)
{
	(void)w; (void)m;
	snprintf(s->verdict, sizeof(s->verdict), "all fine");
	return 0;
}

static void h_print(struct fab_out *o, const struct wiz_step *s, bool verbose)
{
	hooks.print++;
	hooks.verbose = verbose;
	out_str(o, PR_ANY, "extra", "  extra: %s\n", s->def->id);
}

static int h_exit(const struct wiz_step *s, const char **why)
{
	hooks.exit++;
	*why = "the hooked step could not run";
	return s->status == WIZ_WARN ? 2 : 0;
}

static bool h_draw(struct view_pen *p, const struct wiz_step *s)
{
	(void)s;
	hooks.draw++;
	if (!hooks.draw_says)
		return false;
	view_pen_put(p, 0, "drawn by the step", 0);
	view_pen_nl(p);
	return true;
}

static const struct wiz_step_def hooked_def = {
	.id = "hooked", .layer = "8 test", .title = "with hooks", .why = "tests", .run = h_run,
	.print = h_print, .exit_code = h_exit, .draw = h_draw,
};
static const struct wiz_step_def plain_def = {
	.id = "plain", .layer = "9 test", .title = "without hooks", .why = "tests", .run = h_run,
};
static const struct wiz_step_def clean_def = {
	.id = "clean", .layer = "9 test", .title = "without hooks", .why = "tests", .run = h_run_clean,
};

/* Batch mode over a ladder of the test's own; the output in *text. */
static int batch_of(const struct wiz_step_def *const defs[], int n, enum out_mode mode,
		    bool verbose, char **text)
{
	char err[256];
	size_t len;
	struct fab_model m;
	model_init(&m);
	fab_strlcpy(m.host, "testhost", sizeof(m.host));
	m.live = true;
	struct wizard *w = wizard_new(NULL, NULL, err, sizeof(err));
	assert_non_null(w);
	w->nsteps = n;
	for (int i = 0; i < n; i++)
		w->steps[i].def = defs[i];
	FILE *fp = open_memstream(text, &len);
	assert_non_null(fp);
	int rc = wizard_batch(w, &m, (1u << n) - 1, mode, fp, verbose);
	fclose(fp);
	wizard_free(w);
	model_free(&m);
	return rc;
}

static void test_hooks_batch(void **state)
{
	(void)state;
	char *text = NULL;
	memset(&hooks, 0, sizeof(hooks));
	const struct wiz_step_def *const both[] = { &plain_def, &hooked_def };
	/* The hooked step warns: its exit_code() makes that a 2, with its words. */
	assert_int_equal(batch_of(both, 2, OUT_TEXT, true, &text), 2);
	assert_int_equal(hooks.print, 1);
	assert_true(hooks.verbose);
	assert_int_equal(hooks.exit, 1);
	assert_int_equal(hooks.draw, 0);   /* batch mode never draws */
	/* print() speaks after the findings, before the raw output, and only
	 * in its own step's block. */
	const char *hooked = strstr(text, "[hooked]");
	assert_non_null(hooked);
	const char *extra = strstr(text, "  extra: hooked\n");
	assert_non_null(extra);
	assert_true(extra > hooked);
	assert_true(extra > strstr(hooked, "WARNING t.warn"));
	assert_true(extra < strstr(hooked, "  output:\n"));
	assert_ptr_equal(strstr(text, "extra:"), extra + 2);   /* once, in its block */
	assert_null(strstr(extra + 3, "extra:"));
	assert_non_null(strstr(text, "exit status 2 (the hooked step could not run)\n"));
	free(text);

	/* JSON: the hook's key in its step's object. */
	memset(&hooks, 0, sizeof(hooks));
	assert_int_equal(batch_of(both, 2, OUT_JSON, false, &text), 2);
	assert_int_equal(hooks.print, 1);
	assert_false(hooks.verbose);
	assert_non_null(strstr(text, "\"extra\": \"hooked\""));
	assert_non_null(strstr(text, "\"exit\": 2"));
	free(text);

	/* No hooks: nothing added, and the default exit (a warning is 1). */
	memset(&hooks, 0, sizeof(hooks));
	const struct wiz_step_def *const plain[] = { &plain_def };
	assert_int_equal(batch_of(plain, 1, OUT_TEXT, false, &text), 1);
	assert_null(strstr(text, "extra"));
	assert_non_null(strstr(text, "exit status 1 (a step warned, failed or was blocked)\n"));
	assert_int_equal(hooks.print + hooks.exit + hooks.draw, 0);
	free(text);
	const struct wiz_step_def *const clean[] = { &clean_def };
	assert_int_equal(batch_of(clean, 1, OUT_TEXT, false, &text), 0);
	assert_non_null(strstr(text, "exit status 0 (every step passed or was skipped)\n"));
	free(text);
}

static void test_hooks_exit_and_draw(void **state)
{
	(void)state;
	const char *why = "stale";
	struct wiz_step s = { .def = &plain_def, .status = WIZ_BLOCKED };
	/* The default exit: 1 for warn, fail and blocked, 0 for the rest. */
	assert_int_equal(wizard_step_exit(&s, &why), 1);
	assert_null(why);
	s.status = WIZ_SKIPPED;
	assert_int_equal(wizard_step_exit(&s, NULL), 0);
	memset(&hooks, 0, sizeof(hooks));
	s.def = &hooked_def;
	s.status = WIZ_WARN;
	assert_int_equal(wizard_step_exit(&s, &why), 2);
	assert_string_equal(why, "the hooked step could not run");
	assert_int_equal(hooks.exit, 1);

	/* The pane: a measuring pen (no terminal needed) counts the rows. */
	struct view v = { 0 };
	struct view_pen p = { .v = &v, .w = 80, .h = 24, .draw = false };
	snprintf(s.verdict, sizeof(s.verdict), "b is odd");
	snprintf(s.hint, sizeof(s.hint), "look at b");
	hooks.draw_says = true;
	wizard_step_result(&p, &s);
	assert_int_equal(hooks.draw, 1);
	assert_int_equal(p.row, 1);   /* its own row, no verdict nor hint */
	assert_int_equal(p.width, (int)strlen("drawn by the step"));
	/* A drawer with nothing of its own yet: the verdict and the hint. */
	hooks.draw_says = false;
	p.row = p.width = 0;
	wizard_step_result(&p, &s);
	assert_int_equal(hooks.draw, 2);
	assert_int_equal(p.row, 2);
	assert_int_equal(p.width, (int)strlen("next: look at b"));
	/* No drawer: the same default. */
	s.def = &plain_def;
	p.row = p.width = 0;
	wizard_step_result(&p, &s);
	assert_int_equal(hooks.draw, 2);
	assert_int_equal(p.row, 2);
}

/* The real ladder: the A/B's hooks are registered on its row; an A/B
 * that could not run exits 2 through them, any other verdict as its
 * status says. */
static void test_ab_hooks(void **state)
{
	(void)state;
	char err[256];
	const char *why = NULL;
	struct wizard *w = wizard_new(NULL, NULL, err, sizeof(err));
	assert_non_null(w);
	int i = wizard_find_step(w, "ab");
	assert_true(i >= 0);
	const struct wiz_step_def *d = w->steps[i].def;
	assert_true(d->draw == wizard_ab_body);
	assert_non_null(d->print);
	assert_non_null(d->exit_code);
	for (int k = 0; k < w->nsteps; k++)
		if (k != i)
			assert_true(!w->steps[k].def->print && !w->steps[k].def->exit_code &&
				    !w->steps[k].def->draw);
	struct ab ab;
	memset(&ab, 0, sizeof(ab));
	struct wiz_step s = { .def = d, .status = WIZ_FAIL, .priv = &ab };
	ab.verdict = AB_V_NOT_RUN;
	assert_int_equal(wizard_step_exit(&s, &why), 2);
	assert_string_equal(why, "the A/B could not run");
	ab.verdict = AB_V_RDMA_PATH_PROBLEM;
	assert_int_equal(wizard_step_exit(&s, &why), 1);
	assert_null(why);
	s.status = WIZ_PASS;
	ab.verdict = AB_V_RDMA_OK;
	assert_int_equal(wizard_step_exit(&s, &why), 0);
	/* Blocked before it made a struct ab: the default's 1. */
	s.priv = NULL;
	s.status = WIZ_BLOCKED;
	assert_int_equal(wizard_step_exit(&s, &why), 1);
	/* Without a struct ab its drawer leaves the pane to the default. */
	struct view v = { 0 };
	struct view_pen p = { .v = &v, .w = 80, .h = 24, .draw = false };
	assert_false(wizard_ab_body(&p, &s));
	assert_int_equal(p.row, 0);
	wizard_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hca_selected),
		cmocka_unit_test(test_inputs_refused),
		cmocka_unit_test(test_step_life),
		cmocka_unit_test(test_run_cmd),
		cmocka_unit_test(test_l1),
		cmocka_unit_test(test_command_line),
		cmocka_unit_test(test_ab_command),
		cmocka_unit_test(test_hooks_batch),
		cmocka_unit_test(test_hooks_exit_and_draw),
		cmocka_unit_test(test_ab_hooks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
