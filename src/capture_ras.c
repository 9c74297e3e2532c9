/* capture_ras.c - `fabtop capture` asks NCCL's RAS under the same rules as
 * `report job` (the gate in ras.c) and records every exchange in
 * fabtop/ras/: exchanges.json and each reply's bytes, so that `--root`
 * replays the Job pane and `report job`. A capture of a capture carries
 * the source's processes and record instead of asking anyone. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>
#include "capture_int.h"
#include "fabtop/ras_job.h"
#include "fabtop/sanitize.h"
#include "job.h"

#define MAX_EXCHANGES 64

/* Copies the files of fabtop/<dir>/ in the source capture (processes, RAS record). */
static void carry_dir(struct cap *c, const char *dir)
{
	char node[320], **names = NULL;
	snprintf(node, sizeof(node), "/fabtop/%s", dir);
	int n = root_list(&c->src, node, &names);
	for (int i = 0; i < n && !cap_stopped(c); i++) {
		char *buf = NULL;
		size_t len = 0;
		snprintf(node, sizeof(node), "/fabtop/%s/%s", dir, names[i]);
		if (strchr(names[i], '/') || root_read_alloc(&c->src, node, &buf, &len) != 0)
			continue;
		cap_out_write(c, node, buf, len);
		free(buf);
	}
	root_free_list(names, n);
}

static void write_record(struct cap *c, const struct ras_session *s)
{
	static char files[MAX_EXCHANGES][32];
	json_t *doc = ras_session_record(s, files, MAX_EXCHANGES);
	if (!doc)
		return;
	char node[96];
	for (int i = 0; i < s->nlog && i < MAX_EXCHANGES; i++) {
		if (!s->log[i].len)
			continue;
		snprintf(node, sizeof(node), "/fabtop/ras/%s", files[i]);
		cap_out_write(c, node, s->log[i].reply, s->log[i].len);
	}
	cap_out_json(c, "/fabtop/ras/exchanges.json", doc);
	json_decref(doc);
}

int capture_ras(struct cap *c, const char *ras_addr, double window)
{
	if (!c->src.live && c->src.is_capture) {
		carry_dir(c, "procs");
		if (!ras_addr) {
			carry_dir(c, "ras");
			return 0;
		}
	}
	struct fab_job_list jobs;
	char err[256];
	if (job_scan(&c->src, &jobs, err, sizeof(err)) != 0)
		return 0;
	struct ras_session s;
	/* Without --window one query: the capture is a snapshot, and its replay
	 * says the window was not watched. */
	ras_session_init(&s, &jobs, ras_addr, window > 0 ? window : RAS_DEFAULT_WINDOW, false);
	s.keep_log = true;
	if (window > 0) {
		ras_session_run(&s, NULL, true);
	} else {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ras_session_poll(&s, (double)ts.tv_sec + ts.tv_nsec / 1e9);
	}
	if (s.nlog) {
		write_record(c, &s);
		fab_fprintf(c->log, "fabtop: asked NCCL's RAS at %s:%s %d time(s)%s%s\n", s.addr.host, s.addr.port,
			    s.nlog, s.last_why[0] ? "; last: " : "", s.last_why);
	} else if (jobs.njobs || ras_addr) {
		fab_fprintf(c->log, "fabtop: NCCL's RAS not asked: %s\n", s.not_sent[0] ? s.not_sent : s.off_why);
	}
	ras_session_free(&s);
	job_list_free(&jobs);
	return 0;
}
