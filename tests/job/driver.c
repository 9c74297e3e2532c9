/* job_driver - step 0 from the command line, for tests/job/t_job.sh:
 * job_scan() + job_check_all() over real processes, printed one fact per
 * line so the test can compare exact strings.
 *
 *   job_driver [--root SPEC] [--jobs-from SPEC] [--pid N]...
 *
 * --root: the node model (default live). --jobs-from: where the processes
 * come from (default: the same root). Taking live processes against a
 * captured node lets the test check HCA and GID settings of real processes
 * against HCAs this machine does not have; the processes' own
 * /dev/infiniband then belongs to this machine, not the capture, so it is
 * not compared. --pid limits the output to those processes ("nojob N" when
 * one is not an NCCL job). Exit 0, or 2 when something could not be read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/collect.h"
#include "job.h"
#include "fabtop/vocab.h"

static void print_job(const struct fab_job *j)
{
	static const char *const how[] = { "none", "rtnl", "setns", "procfs", "model" };
	printf("job %d %s nspid=%d netns=%s other_netns=%d host=%s lib=%s net=%s default_if=%s\n",
	       j->pid, j->comm, j->nspid, j->netns, j->other_netns, j->host,
	       j->nccl_lib[0] ? j->nccl_lib : "-", how[j->net.how],
	       j->net.default_if[0] ? j->net.default_if : "-");
	if (j->cmdline[0])
		printf("  cmdline %s\n", j->cmdline);
	for (int i = 0; i < j->nnccl; i++)
		printf("  var %s=%s (%s)\n", j->nccl[i].name, j->nccl[i].value, j->nccl[i].source);
	for (int i = 0; i < j->nrank; i++)
		printf("  rank %s=%s\n", j->rank[i].name, j->rank[i].value);
	for (int i = 0; i < j->net.nifs; i++) {
		const struct fab_job_if *f = &j->net.ifs[i];
		printf("  if %s up=%s running=%s addrs=", f->name,
		       f->up.ok ? (f->up.v ? "1" : "0") : "?",
		       f->running.ok ? (f->running.v ? "1" : "0") : "?");
		for (int a = 0; a < f->naddrs; a++)
			printf("%s%s", a ? "," : "", f->addrs[a]);
		printf("%s\n", f->naddrs ? "" : "-");
	}
	if (j->net.note[0])
		printf("  netnote %s\n", j->net.note);
}

static void print_finding(const struct fab_finding *f)
{
	printf("finding %s %s %s\n", f->id, sev_name(f->sev), f->subject);
	printf("  message: %s\n  evidence: %s\n  hint: %s\n", f->message, f->evidence, f->hint);
}

int main(int argc, char **argv)
{
	const char *root_spec = NULL, *jobs_spec = NULL;
	int pids[64], npids = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--root") && i + 1 < argc)
			root_spec = argv[++i];
		else if (!strcmp(argv[i], "--jobs-from") && i + 1 < argc)
			jobs_spec = argv[++i];
		else if (!strcmp(argv[i], "--pid") && i + 1 < argc && npids < 64)
			pids[npids++] = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: job_driver [--root SPEC] [--jobs-from SPEC] [--pid N]...\n");
			return 2;
		}
	}
	char err[512];
	struct fab_root root, jroot;
	if (root_open(&root, root_spec, err, sizeof(err)) != 0) {
		fprintf(stderr, "job_driver: %s\n", err);
		return 2;
	}
	bool cross = jobs_spec != NULL;
	if (cross && root_open(&jroot, jobs_spec, err, sizeof(err)) != 0) {
		fprintf(stderr, "job_driver: %s\n", err);
		root_close(&root);
		return 2;
	}
	struct fab_model m;
	model_init(&m);
	collect_all(&root, &m);
	struct fab_job_list l;
	if (job_scan(cross ? &jroot : &root, &l, err, sizeof(err)) != 0) {
		fprintf(stderr, "job_driver: %s\n", err);
		return 2;
	}
	printf("scan source=%s jobs=%d unreadable=%d note=%s\n", l.source, l.njobs, l.unreadable,
	       l.note[0] ? l.note : "-");
	if (cross && !jroot.is_capture)
		for (int i = 0; i < l.njobs; i++)
			l.jobs[i].uverbs_checked = false;
	/* Only the asked-for processes: this machine runs others' tests too. */
	struct fab_job_list shown = l;
	struct fab_job *keep = calloc((size_t)l.njobs + 1, sizeof(*keep));
	if (npids) {
		shown.njobs = 0;
		shown.jobs = keep;
		for (int p = 0; p < npids; p++) {
			bool found = false;
			for (int i = 0; i < l.njobs; i++)
				if (l.jobs[i].pid == pids[p]) {
					shown.jobs[shown.njobs++] = l.jobs[i];
					found = true;
				}
			if (!found)
				printf("nojob %d\n", pids[p]);
		}
	}
	struct fab_model out;
	model_init(&out);
	for (int i = 0; i < shown.njobs; i++) {
		print_job(&shown.jobs[i]);
		int first = out.nfindings;
		job_check(&shown.jobs[i], &m, &out);
		for (int k = first; k < out.nfindings; k++)
			print_finding(&out.findings[k]);
	}
	if (!npids && l.njobs == 0) {
		job_check_all(&l, &m, &out);
		for (int k = 0; k < out.nfindings; k++)
			print_finding(&out.findings[k]);
	}
	free(keep);
	model_free(&out);
	model_free(&m);
	job_list_free(&l);
	if (cross)
		root_close(&jroot);
	root_close(&root);
	return 0;
}
