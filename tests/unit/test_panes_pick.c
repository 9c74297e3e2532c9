/* The Wizard, Job and Fleet panes' hooks for the shell's `/` search
 * (find), the mouse (click) and `fabtop learn`'s answers (pick), called
 * directly on each pane drawn into a headless curses window (the shell's
 * own keys and clicks reach them the same way):
 *  - Wizard: the selected step is picked by its id; find walks the ladder's
 *    rows as shown; a click selects a step, a second one is Enter;
 *  - Job, on the bundled hang and lossless-mismatch captures (NCCL
 *    processes with their environment): a setting row picks the setting
 *    (NCCL_SOCKET_IFNAME, NCCL_IB_TC), a process row its pid, a finding row
 *    its id, a GPU row its PCI address; find moves the selection and keeps it
 *    in view; a click on a row selects what is there, elsewhere nothing;
 *  - Fleet: find moves the selection over the rows as listed, a click
 *    selects a node and a second click opens it (fleet_open); '/' is no
 *    longer the pane's own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fabtop/collect.h"
#include "fabtop/fleet.h"
#include "fabtop/root.h"
#include "fabtop/view.h"
#include "fabtop/wizard.h"

static SCREEN *scr;
static FILE *out, *in;

static const char *top(void)
{
	const char *t = getenv("FABTOP_TOP");
	return t && *t ? t : ".";
}

static int setup(void **state)
{
	(void)state;
	setenv("LANG", "C.UTF-8", 1);
	setlocale(LC_ALL, "C.UTF-8");
	out = fopen("/dev/null", "w");
	in = fopen("/dev/null", "r");
	if (!out || !in)
		return -1;
	scr = newterm("xterm-256color", out, in);
	if (!scr)
		scr = newterm("vt100", out, in);
	if (!scr)
		return -1;
	set_term(scr);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	endwin();
	delscreen(scr);
	fclose(out);
	fclose(in);
	return 0;
}

/* A pane opened on a scenario, drawn into its own window. */
struct pane {
	struct fab_root r;
	struct fab_model m;
	struct view_ctx c;
	struct view v;
	WINDOW *win;
	struct wizard *wz;
};

static bool have(const char *scen, char *path, size_t len)
{
	snprintf(path, len, "%s/build/scenarios/%s.tar.gz", top(), scen);
	if (access(path, R_OK) == 0)
		return true;
	print_message("# %s is missing: `make tests` builds the scenarios\n", path);
	return false;
}

static void pane_open(struct pane *p, const struct view_ops *ops, const char *scen, int h, int w)
{
	char path[PATH_MAX], err[512];
	memset(p, 0, sizeof(*p));
	assert_true(have(scen, path, sizeof(path)));
	assert_int_equal(root_open(&p->r, path, err, sizeof(err)), 0);
	model_init(&p->m);
	collect_all(&p->r, &p->m);
	p->c = (struct view_ctx){ .m = &p->m, .root = &p->r, .virtual_clock = true, .fleet_shown = -1,
				  .fleet_open = -1 };
	if (ops == &wizard_view_ops) {
		p->wz = wizard_new(&p->r, NULL, err, sizeof(err));
		assert_non_null(p->wz);
		p->c.wizard = p->wz;
	}
	p->v = (struct view){ .ops = ops, .current = true };
	assert_int_equal(ops->open(&p->v, &p->c), 0);
	if (ops->show)
		ops->show(&p->v, &p->c);
	p->win = newwin(h, w, 0, 0);
	assert_non_null(p->win);
}

static void pane_draw(struct pane *p)
{
	werase(p->win);
	p->v.ops->draw(&p->v, p->win, &p->c);
}

static void pane_close(struct pane *p)
{
	p->v.ops->close(&p->v, &p->c);
	delwin(p->win);
	if (p->wz)
		wizard_free(p->wz);
	model_free(&p->m);
	root_close(&p->r);
}

/* Row y of a window as text. */
static const char *row_text(WINDOW *win, int y)
{
	static char buf[1024];
	wchar_t w[512];
	int n = mvwinnwstr(win, y, 0, w, 511);
	w[n > 0 ? n : 0] = L'\0';
	size_t len = wcstombs(buf, w, sizeof(buf) - 1);
	buf[len == (size_t)-1 ? 0 : len] = '\0';
	return buf;
}

/* The first window row that has text; -1 none. */
static int row_with(WINDOW *win, const char *text)
{
	for (int y = 0; y < getmaxy(win); y++)
		if (strstr(row_text(win, y), text))
			return y;
	return -1;
}

static bool pick(struct pane *p, struct fab_pick *pk)
{
	memset(pk, 0xa5, sizeof(*pk));
	return p->v.ops->pick(&p->v, &p->c, pk);
}

static void wizard_hooks(void **state)
{
	(void)state;
	struct pane p;
	struct fab_pick pk;
	pane_open(&p, &wizard_view_ops, "hang", 24, 80);
	pane_draw(&p);
	assert_true(pick(&p, &pk));
	assert_int_equal(pk.kind, PICK_STEP);
	assert_string_equal(pk.name, "job");
	assert_non_null(strstr(pk.label, "step job"));

	/* find: the ladder's rows as shown, forwards and backwards, wrapping. */
	assert_true(wizard_view_ops.find(&p.v, &p.c, "IP/MTU", 1));
	assert_true(pick(&p, &pk));
	assert_string_equal(pk.name, "l2");
	assert_true(wizard_view_ops.find(&p.v, &p.c, "PHYSICAL", -1));
	assert_string_equal((pick(&p, &pk), pk.name), "l1");
	assert_true(wizard_view_ops.find(&p.v, &p.c, "pending", 1));
	assert_string_equal((pick(&p, &pk), pk.name), "l2");
	assert_true(wizard_view_ops.find(&p.v, &p.c, "pending", -1));
	assert_string_equal((pick(&p, &pk), pk.name), "l1");
	assert_false(wizard_view_ops.find(&p.v, &p.c, "no such step", 1));
	assert_string_equal((pick(&p, &pk), pk.name), "l1");

	/* click: on the l3 row of the ladder as drawn. */
	pane_draw(&p);
	int y = row_with(p.win, " l3 ");
	assert_true(y > 0);
	assert_true(wizard_view_ops.click(&p.v, &p.c, y, 4));
	assert_string_equal((pick(&p, &pk), pk.name), "l3");
	/* The title row and the detail take no click. */
	assert_false(wizard_view_ops.click(&p.v, &p.c, 0, 2));
	int dy = row_with(p.win, "Why this matters");
	assert_true(dy > y);
	assert_false(wizard_view_ops.click(&p.v, &p.c, dy, 2));
	assert_string_equal((pick(&p, &pk), pk.name), "l3");
	/* A second click on the selected step is Enter: the next pending
	 * step (job) runs and is selected. */
	pane_draw(&p);
	assert_int_equal(p.wz->steps[0].status, WIZ_PENDING);
	assert_true(wizard_view_ops.click(&p.v, &p.c, y, 4));
	assert_int_not_equal(p.wz->steps[0].status, WIZ_PENDING);
	assert_string_equal((pick(&p, &pk), pk.name), "job");
	pane_close(&p);
}

/* Selects the Job row whose text has q (find from the top) and picks it. */
static void job_find_pick(struct pane *p, const char *q, struct fab_pick *pk)
{
	p->v.sel = 0;
	assert_true(job_view_ops.find(&p->v, &p->c, q, 1));
	assert_true(pick(p, pk));
}

static void job_hooks(void **state)
{
	(void)state;
	struct pane p;
	struct fab_pick pk;
	pane_open(&p, &job_view_ops, "hang", 24, 80);
	pane_draw(&p);
	/* The first frame shows the verdict, nothing scrolled. */
	assert_int_equal(p.v.top, 0);
	assert_true(row_with(p.win, "Job: ") == 0);

	/* A setting row: the variable's name. */
	job_find_pick(&p, "NCCL_SOCKET_IFNAME", &pk);
	assert_int_equal(pk.kind, PICK_SETTING);
	assert_string_equal(pk.name, "NCCL_SOCKET_IFNAME");
	assert_string_equal(pk.label, "NCCL_SOCKET_IFNAME=eno1");
	assert_string_equal(pk.dev, "");
	/* find keeps the selection in view: the row is drawn, marked. */
	pane_draw(&p);
	int y = row_with(p.win, "NCCL_SOCKET_IFNAME  eno1");
	assert_true(y >= 0);
	assert_int_equal(row_text(p.win, y)[0], '>');
	assert_true(p.v.top > 0);

	/* A process row: its pid. */
	job_find_pick(&p, "pid 4245 python3", &pk);
	assert_int_equal(pk.kind, PICK_PROCESS);
	assert_string_equal(pk.name, "4245");
	/* Backwards from there: the process before it. */
	assert_true(job_view_ops.find(&p.v, &p.c, "python3, 5400 s old", -1));
	assert_string_equal((pick(&p, &pk), pk.name), "4244");
	/* A finding row: its id. */
	job_find_pick(&p, "job.ifname-mgmt", &pk);
	assert_int_equal(pk.kind, PICK_FINDING);
	assert_string_equal(pk.name, "job.ifname-mgmt");
	/* A GPU row: the GPU's PCI address. */
	job_find_pick(&p, "GPU3 ->", &pk);
	assert_int_equal(pk.kind, PICK_GPU);
	assert_string_equal(pk.dev, p.m.pci[p.m.gpus[3].pci].bdf);
	/* Nothing matches: the selection stays. */
	assert_false(job_view_ops.find(&p.v, &p.c, "NCCL_IB_GID_INDEX", 1));
	assert_string_equal((pick(&p, &pk), pk.dev), p.m.pci[p.m.gpus[3].pci].bdf);

	/* click: the GPU5 row as drawn selects GPU5; the verdict line nothing. */
	pane_draw(&p);
	y = row_with(p.win, "GPU5 ->");
	assert_true(y >= 0);
	assert_true(job_view_ops.click(&p.v, &p.c, y, 10));
	assert_true(pick(&p, &pk));
	assert_int_equal(pk.kind, PICK_GPU);
	assert_string_equal(pk.dev, p.m.pci[p.m.gpus[5].pci].bdf);
	pane_draw(&p);
	assert_int_equal(row_text(p.win, y)[0], '>');
	int hy = row_with(p.win, "What NCCL will do here");
	if (hy >= 0) {
		assert_false(job_view_ops.click(&p.v, &p.c, hy, 2));
		assert_string_equal((pick(&p, &pk), pk.dev), p.m.pci[p.m.gpus[5].pci].bdf);
	}

	/* Down walks the rows (GPU5, 6, 7, then the processes from 4242) and
	 * keeps the selected one in view. */
	for (int i = 0; i < 6; i++)
		assert_true(job_view_ops.key(&p.v, KEY_DOWN, &p.c));
	pane_draw(&p);
	bool marked = false;
	for (int r = 0; r < 24; r++)
		marked |= row_text(p.win, r)[0] == '>';
	assert_true(marked);
	assert_true(pick(&p, &pk));
	assert_int_equal(pk.kind, PICK_PROCESS);
	assert_string_equal(pk.name, "4245");
	assert_true(row_with(p.win, "> pid 4245 python3") >= 0);
	pane_close(&p);

	/* lossless-mismatch: the job's NCCL_IB_TC. */
	pane_open(&p, &job_view_ops, "lossless-mismatch", 24, 80);
	pane_draw(&p);
	job_find_pick(&p, "NCCL_IB_TC", &pk);
	assert_int_equal(pk.kind, PICK_SETTING);
	assert_string_equal(pk.name, "NCCL_IB_TC");
	assert_string_equal(pk.label, "NCCL_IB_TC=3");
	pane_close(&p);
}

/* A fleet filled by hand: the pane shows the fleet's documents, no capture
 * is opened here. */
static struct fleet_node nodes[4];
static struct fleet fl = { .nodes = nodes, .n = 4, .nkinds = 1 };

static void fleet_hooks(void **state)
{
	(void)state;
	const char *host[4] = { "node-a1", "node-b7", "spare-c3", "node-d4" };
	for (int i = 0; i < 4; i++)
		nodes[i] = (struct fleet_node){ .path = "/nonexistent/x.tar.gz", .host = (char *)host[i],
						.kind = "8x H100 / ConnectX-7", .verdict = "ok", .ports_up = 8,
						.ports_expected = 8, .slowest = "mlx5_0/1 400 Gb/s",
						.firmware = "28.40.1000", .env = "", .topo_fp = "a1b2" };
	nodes[2].firmware = "28.39.1002";
	struct view_ctx c = { .fleet = &fl, .fleet_shown = -1, .fleet_open = -1, .virtual_clock = true };
	struct view v = { .ops = &fleet_view_ops, .current = true };
	WINDOW *win = newwin(30, 100, 0, 0);
	assert_int_equal(fleet_view_ops.open(&v, &c), 0);
	fleet_view_ops.draw(&v, win, &c);
	assert_int_equal(v.sel, 0);
	/* find over the rows as shown: a host, a firmware, backwards, none. */
	assert_true(fleet_view_ops.find(&v, &c, "D4", 1));
	assert_int_equal(v.sel, 3);
	assert_true(fleet_view_ops.find(&v, &c, "28.39", 1));
	assert_int_equal(v.sel, 2);
	assert_true(fleet_view_ops.find(&v, &c, "node-", -1));
	assert_int_equal(v.sel, 1);
	assert_true(fleet_view_ops.find(&v, &c, "node-", -1));
	assert_int_equal(v.sel, 0);
	assert_true(fleet_view_ops.find(&v, &c, "node-", -1));   /* wraps */
	assert_int_equal(v.sel, 3);
	assert_false(fleet_view_ops.find(&v, &c, "zzz", 1));
	assert_int_equal(v.sel, 3);
	/* '/' is the shell's now: the pane does not take it. */
	assert_false(fleet_view_ops.key(&v, '/', &c));
	/* click: selects the row, a second click opens the node. */
	werase(win);
	fleet_view_ops.draw(&v, win, &c);
	int y = row_with(win, "spare-c3");
	assert_true(y > 0);
	assert_true(fleet_view_ops.click(&v, &c, y, 5));
	assert_int_equal(v.sel, 2);
	assert_int_equal(c.fleet_open, -1);
	assert_true(fleet_view_ops.click(&v, &c, y, 5));
	assert_int_equal(c.fleet_open, 2);
	/* The headings and the summary take no click. */
	assert_false(fleet_view_ops.click(&v, &c, 0, 5));
	fleet_view_ops.close(&v, &c);
	delwin(win);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wizard_hooks),
		cmocka_unit_test(job_hooks),
		cmocka_unit_test(fleet_hooks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
