/*
 * ras_parse.c - NCCL RAS replies (text of every release since 2.24, JSON of
 * 2.28.7+, MONITOR events of 2.29+) parsed into struct ras_reply and
 * struct ras_event: pure functions over received bytes (see ras.h).
 *
 * The formats are NCCL's src/ras/client_support.cc (rasClientRunInit,
 * rasClientRunComms, rasClientBreakDownErrors, jsonWrite*,
 * rasClientsNotifyEvent) and src/ras/peers.cc (rasPeerInfoToString); the
 * older wordings (2.24/2.25: one count for all collectives, "UNKNOWN"
 * instead of "NOCOMM", "The missing ranks: 1,2") are accepted as well.
 * Anything else is counted in unknown_lines, never an error: a newer server
 * may say more.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/ras.h"

/* Bounds on what one reply may make us allocate: a 16 MiB reply of NCCL's
 * JSON holds about 30000 ranks, so these never cut a real one. */
#define RAS_PARSE_MAX_RANKS 65536
#define RAS_PARSE_MAX_COMMS 16384
#define RAS_PARSE_MAX_PROCS 4096
/* A MONITOR event NCCL sends is at most 2048 bytes; a partial one longer
 * than this is garbage and is dropped rather than buffered for ever. */
#define RAS_EVENT_MAX 8192

/* NCCL's error bits (rasACError): printed in this order, "OK" when none. */
enum { ERR_MISMATCH = 1, ERR_ERROR = 2, ERR_INCOMPLETE = 4 };

int ras_version_code(const char *s)
{
	int v[3] = { 0, 0, 0 };
	int i = 0;
	if (!s || !isdigit((unsigned char)*s))
		return 0;
	while (i < 3) {
		long n = 0;
		if (!isdigit((unsigned char)*s))
			return 0;
		while (isdigit((unsigned char)*s) && n < 1000)
			n = n * 10 + (*s++ - '0');
		if (n >= 100 || (i == 0 && n > 200))
			return 0;
		v[i++] = (int)n;
		if (i < 3 && *s != '.')
			return 0;
		if (i < 3)
			s++;
	}
	/* "2.26.2", "2.26.2+cuda12.4", "2.26.2-1" */
	if (*s && *s != '+' && *s != '-' && *s != ' ')
		return 0;
	return v[0] * 10000 + v[1] * 100 + v[2];
}

/* ---- small helpers ---- */

static void cpy(char *dst, size_t size, const char *src, size_t n)
{
	size_t k = 0;
	while (k < n && k + 1 < size && src[k])
		k++;
	memcpy(dst, src, k);
	dst[k] = '\0';
}

static void cpys(char *dst, size_t size, const char *src)
{
	cpy(dst, size, src, strlen(src));
}

/* Appends one zeroed element to a growing array; its index, or -1. */
static int push(void **arr, int *n, size_t sz, int max)
{
	if (*n >= max)
		return -1;
	if ((*n & (*n - 1)) == 0) {
		size_t cap = *n ? (size_t)*n * 2 : 4;
		void *p = realloc(*arr, cap * sz);
		if (!p)
			return -1;
		*arr = p;
	}
	memset((char *)*arr + (size_t)*n * sz, 0, sz);
	return (*n)++;
}

/* A decimal at *s (optionally negative); advances *s. */
static bool num(const char **s, long long *v)
{
	const char *p = *s;
	bool neg = *p == '-';
	long long x = 0;
	if (neg)
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p)) {
		if (x < 100000000000000000LL)
			x = x * 10 + (*p - '0');
		p++;
	}
	*v = neg ? -x : x;
	*s = p;
	return true;
}

static bool lit(const char **s, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(*s, word, n))
		return false;
	*s += n;
	return true;
}

static int clampi(long long v)
{
	return v > 2147483647LL ? 2147483647 : v < -2147483647LL ? -2147483647 : (int)v;
}

static int errors_mask(const char *s)
{
	int m = 0;
	if (strstr(s, "INCOMPLETE"))
		m |= ERR_INCOMPLETE;
	if (strstr(s, "ERROR"))
		m |= ERR_ERROR;
	if (strstr(s, "MISMATCH"))
		m |= ERR_MISMATCH;
	return m;
}

/* NCCL's errorStr[] order. */
static void errors_set(char *dst, size_t size, int m)
{
	snprintf(dst, size, "%s%s%s%s", m & ERR_INCOMPLETE ? "INCOMPLETE" : "",
		 (m & ERR_INCOMPLETE) && (m & (ERR_ERROR | ERR_MISMATCH)) ? "," : "",
		 m & ERR_ERROR ? ((m & ERR_MISMATCH) ? "ERROR," : "ERROR") : "",
		 m & ERR_MISMATCH ? "MISMATCH" : "");
	if (!m)
		cpys(dst, size, "OK");
}

static void errors_add(struct ras_comm *c, int m)
{
	errors_set(c->errors, sizeof(c->errors), errors_mask(c->errors) | m);
}

/* "0x27A0..." or "27a0..." -> 16 lower-case hex digits, as the text prints it. */
static void hash_set(char *dst, size_t size, const char *s, size_t n)
{
	char h[24];
	size_t k = 0;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	while (k < n && k < 16 && isxdigit((unsigned char)s[k]))
		k++;
	if (!k || k < n) {
		dst[0] = '\0';
		return;
	}
	memset(h, '0', 16 - k);
	for (size_t i = 0; i < k; i++)
		h[16 - k + i] = (char)tolower((unsigned char)s[i]);
	h[16] = '\0';
	cpys(dst, size, h);
}

static void comm_init(struct ras_comm *c)
{
	c->ncomms = 1;
	c->size = -1;
	c->nnodes = -1;
	c->group_ranks = -1;
}

static void rank_init(struct ras_rank *k, int rank)
{
	k->rank = rank;
	k->pid = -1;
	k->cuda_dev = -1;
	k->nvml_dev = -1;
	k->init_state = -1;
	k->async_error = -1;
}

static struct ras_comm *comm_new(struct ras_reply *r)
{
	int i = push((void **)&r->comms, &r->ncomms, sizeof(*r->comms), RAS_PARSE_MAX_COMMS);
	if (i < 0) {
		r->truncated = true;
		return NULL;
	}
	comm_init(&r->comms[i]);
	return &r->comms[i];
}

static struct ras_rank *rank_new(struct ras_comm *c, int rank, int *budget)
{
	if (*budget <= 0)
		return NULL;
	int i = push((void **)&c->ranks, &c->nranks, sizeof(*c->ranks), RAS_PARSE_MAX_RANKS);
	if (i < 0)
		return NULL;
	(*budget)--;
	rank_init(&c->ranks[i], rank);
	return &c->ranks[i];
}

static struct ras_count_group *group_new(struct ras_comm *c, const char *op, int64_t value, int n)
{
	int i = push((void **)&c->groups, &c->ngroups, sizeof(*c->groups), RAS_PARSE_MAX_RANKS);
	if (i < 0)
		return NULL;
	struct ras_count_group *g = &c->groups[i];
	cpys(g->op, sizeof(g->op), op);
	g->value = value;
	g->nranks = n;
	c->counts_known = true;
	return g;
}

/* Sets a rank's count of op (adds the op when new). */
static void count_set(struct ras_rank *k, const char *op, int64_t value)
{
	for (int i = 0; i < k->ncounts; i++)
		if (!strcmp(k->counts[i].op, op)) {
			k->counts[i].value = value;
			return;
		}
	if (k->ncounts >= RAS_MAX_OPS)
		return;
	cpys(k->counts[k->ncounts].op, sizeof(k->counts[0].op), op);
	k->counts[k->ncounts++].value = value;
}

static struct ras_proc *proc_new(struct ras_reply *r)
{
	int i = push((void **)&r->procs, &r->nprocs, sizeof(*r->procs), RAS_PARSE_MAX_PROCS);
	if (i < 0)
		return NULL;
	r->procs[i].pid = -1;
	return &r->procs[i];
}

void ras_reply_free(struct ras_reply *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->ncomms; i++) {
		free(r->comms[i].ranks);
		free(r->comms[i].groups);
	}
	free(r->comms);
	free(r->procs);
	memset(r, 0, sizeof(*r));
}

static void reply_init(struct ras_reply *r)
{
	memset(r, 0, sizeof(*r));
	r->cuda_runtime = -1;
	r->cuda_driver = -1;
	r->nodes = r->processes = r->gpus = -1;
	r->nmissing_procs = r->ndead_procs = -1;
	r->collection_s = -1;
}

/* ---- the text report ---- */

enum { SEC_HEAD, SEC_JOB, SEC_COMMS, SEC_ERRORS, SEC_WARNINGS };
enum { JT_NONE, JT_FULL, JT_TOTAL, JT_DIST };
enum { DET_NONE, DET_MISSING, DET_DEAD, DET_TIMEOUT, DET_INCOMPLETE, DET_ERROR, DET_MISMATCH };
enum { SUB_NONE, SUB_STATUS, SUB_COUNTS, SUB_INIT, SUB_ASYNC };

struct tctx {
	struct ras_reply *r;
	int sec, table, det, sub;
	int comm;                 /* index of the comm a detail section is about; -1 */
	char op[24];              /* SUB_COUNTS: the collective ("" before 2.26) */
	int64_t value;            /* SUB_COUNTS: the group's count */
	char status[16];          /* SUB_STATUS: the group's status */
	int code;                 /* SUB_INIT/ASYNC: the error the next ranks reported */
	int budget;               /* ranks still allowed */
	bool known, warnings;
};

static struct ras_comm *tcomm(struct tctx *t)
{
	return t->comm >= 0 ? &t->r->comms[t->comm] : NULL;
}

static struct ras_comm *comm_by_id(struct ras_reply *r, const char *id)
{
	for (int i = 0; i < r->ncomms; i++)
		if (!strcmp(r->comms[i].id, id))
			return &r->comms[i];
	return NULL;
}

static struct ras_rank *rank_get(struct tctx *t, struct ras_comm *c, int rank)
{
	for (int i = 0; i < c->nranks; i++)
		if (c->ranks[i].rank == rank)
			return &c->ranks[i];
	return rank_new(c, rank, &t->budget);
}

/* "GPU 5 managed by process 483077 on node 172.16.64.210", "GPU 1 (NVML 3)
 * managed by ...", or "[process information not found]". */
static void rank_where(struct ras_rank *k, const char *s)
{
	long long v;
	if (!lit(&s, "GPU ") || !num(&s, &v))
		return;
	k->cuda_dev = k->nvml_dev = clampi(v);
	if (lit(&s, " (NVML ") && num(&s, &v) && lit(&s, ")"))
		k->nvml_dev = clampi(v);
	const char *m = strstr(s, " managed by process ");
	if (!m)
		return;
	s = m + strlen(" managed by process ");
	if (!num(&s, &v) || !lit(&s, " on node "))
		return;
	k->pid = clampi(v);
	cpys(k->host, sizeof(k->host), s);
}

/* "Process 3487984 on node 172.16.64.213 managing GPU 5" (also the GPUs of
 * rasGpuDevsToString: "0,1", "1 (NVML 3)"). */
static bool proc_line(const char *s, int *pid, char *host, size_t hlen, char *gpus, size_t glen)
{
	long long v;
	if (!lit(&s, "Process ") || !num(&s, &v) || !lit(&s, " on node "))
		return false;
	const char *m = strstr(s, " managing GPU");
	if (!m)
		return false;
	*pid = clampi(v);
	cpy(host, hlen, s, (size_t)(m - s));
	s = m + strlen(" managing GPU");
	lit(&s, "s");
	if (!lit(&s, " "))
		return false;
	cpys(gpus, glen, s);
	return true;
}

static void t_proc(struct tctx *t, const char *s)
{
	struct ras_proc p = { .pid = -1 };
	if (!proc_line(s, &p.pid, p.host, sizeof(p.host), p.gpus, sizeof(p.gpus)))
		return;
	p.dead = t->det == DET_DEAD;
	struct ras_proc *q = proc_new(t->r);
	if (q)
		*q = p;
	t->known = true;
}

/* "The missing ranks: 3,5" (2.24/2.25) and "The unknown ranks: 1,2". */
static void rank_list(struct tctx *t, struct ras_comm *c, const char *s, bool missing)
{
	long long v;
	while (num(&s, &v)) {
		struct ras_rank *k = rank_get(t, c, clampi(v));
		if (k && missing)
			k->missing = k->unresponsive = true;
		else if (k)
			cpys(k->status, sizeof(k->status), "UNKNOWN");
		if (!lit(&s, ","))
			break;
	}
	t->known = true;
}

/* NCCL's ncclErrorToString, back to ncclResult_t. */
static int error_code(const char *s)
{
	static const char *const names[] = { "Unhandled CUDA error", "System error",
		"Internal error", "Invalid argument", "Invalid usage", "Remote process error",
		"NCCL operation in progress" };
	for (int i = 0; i < 7; i++)
		if (!strncmp(s, names[i], strlen(names[i])))
			return i + 1;
	return -1;
}

static void note(struct ras_comm *c, const char *s)
{
	if (c->nnotes < 4)
		cpys(c->notes[c->nnotes++], sizeof(c->notes[0]), s);
}

/* The part of a "Rank R ..." line between the rank and " -- ". */
static void rank_mid(struct tctx *t, struct ras_comm *c, struct ras_rank *k, const char *mid,
		     size_t n)
{
	const char *s = mid;
	long long v;
	char word[24];
	if (t->det == DET_INCOMPLETE) {
		k->missing = k->unresponsive = true;
	} else if (t->det == DET_ERROR) {
		int code = n > 10 && lit(&s, " reported ") ? error_code(s) : t->code;
		if (t->sub == SUB_INIT)
			k->init_state = code;
		else if (t->sub == SUB_ASYNC)
			k->async_error = code;
	} else if (t->sub == SUB_STATUS) {
		if (lit(&s, " has status ")) {
			cpy(word, sizeof(word), s, n - (size_t)(s - mid));
			cpys(t->status, sizeof(t->status), word);
		}
		cpys(k->status, sizeof(k->status), t->status);
	} else if (t->sub == SUB_COUNTS) {
		if (lit(&s, " has launched up to operation ") && num(&s, &v))
			group_new(c, t->op, v, 1), t->value = v;
		else if (lit(&s, " has not launched any operations"))
			group_new(c, t->op, 0, 1), t->value = 0;
		count_set(k, t->op, t->value);
	}
}

/* "Rank 21 -- GPU 5 managed by process 3487984 on node 172.16.64.213" and
 * its variants ("has status S", "has launched up to operation X", "reported
 * E", "[process information not found]"). */
static bool t_rank(struct tctx *t, const char *s)
{
	struct ras_comm *c = tcomm(t);
	long long v;
	if (!c || !lit(&s, "Rank ") || !num(&s, &v))
		return false;
	const char *dash = strstr(s, " -- ");
	if (!dash && *s == ',') /* 2.24: "Rank 3,5 has status UNKNOWN" never has two */
		return false;
	struct ras_rank *k = rank_get(t, c, clampi(v));
	t->known = true;
	if (!k)
		return true;
	rank_mid(t, c, k, s, dash ? (size_t)(dash - s) : strlen(s));
	if (dash)
		rank_where(k, dash + 4);
	return true;
}

/* "  26 ranks have launched up to operation 6650", "  2 ranks have not
 * launched any operations", "  26 ranks have status UNKNOWN", "  3 ranks
 * reported Internal error". */
static bool t_ranks_have(struct tctx *t, const char *s)
{
	struct ras_comm *c = tcomm(t);
	long long n, v;
	if (!c || !num(&s, &n) || !lit(&s, " ranks "))
		return false;
	if (lit(&s, "have launched up to operation ") && num(&s, &v)) {
		group_new(c, t->op, v, clampi(n));
		t->value = v;
	} else if (lit(&s, "have not launched any operations")) {
		group_new(c, t->op, 0, clampi(n));
		t->value = 0;
	} else if (lit(&s, "have status ")) {
		cpys(t->status, sizeof(t->status), s);
	} else if (lit(&s, "reported ")) {
		t->code = error_code(s);
	} else {
		return false;
	}
	t->known = true;
	return true;
}

static void t_mismatch(struct tctx *t, const char *s)
{
	struct ras_comm *c = tcomm(t);
	const char *p = s;
	if (!strcmp(s, "Communicator ranks have different status")) {
		t->sub = SUB_STATUS;
		t->known = true;
	} else if (lit(&p, "Communicator ranks have different ")) {
		const char *e = strstr(p, " operation counts");
		if (!e)
			return;
		t->sub = SUB_COUNTS;
		t->value = -1;
		/* before 2.26: "different collective operation counts", one count */
		if (!strncmp(p, "collective ", 11))
			t->op[0] = '\0';
		else
			cpy(t->op, sizeof(t->op), p, (size_t)(e - p));
		t->known = true;
	} else if (lit(&p, "The unknown ranks: ")) {
		rank_list(t, c, p, false);
	} else if (!t_ranks_have(t, s)) {
		t_rank(t, s);
	}
}

static void t_error(struct tctx *t, const char *s)
{
	struct ras_comm *c = tcomm(t);
	const char *p = s;
	if (lit(&p, "Initialization error")) {
		t->sub = SUB_INIT;
	} else if (lit(&p, "Asynchronous error")) {
		t->sub = SUB_ASYNC;
	} else if (t_ranks_have(t, s) || t_rank(t, s)) {
		if (!strstr(s, " -- "))
			note(c, s);
		return;
	} else {
		return;
	}
	t->code = -1;
	note(c, s);
	t->known = true;
}

static void t_detail(struct tctx *t, const char *s)
{
	struct ras_comm *c = tcomm(t);
	struct ras_reply *r = t->r;
	const char *p = s;
	long long v;
	if (t->det == DET_MISSING || t->det == DET_DEAD) {
		if (lit(&p, "Missing communicator data from ") && num(&p, &v))
			r->nmissing_procs = clampi(v), t->known = true;
		else if (t->det == DET_DEAD && num(&p, &v) && lit(&p, " job process"))
			r->ndead_procs = clampi(v), t->known = true;
		else if (!strncmp(s, "[could not find information on ", 31))
			t->known = true;
		else
			t_proc(t, s);
	} else if (t->det == DET_TIMEOUT) {
		if (lit(&p, "Encountered ") && num(&p, &v))
			r->timeouts = clampi(v), t->known = true;
	} else if (t->det == DET_INCOMPLETE && c) {
		if (lit(&p, "Missing communicator data from ") && num(&p, &v))
			c->nmissing = clampi(v), t->known = true;
		else if (lit(&p, "The missing rank: ") || lit(&p, "The missing ranks: "))
			rank_list(t, c, p, true);
		else
			t_rank(t, s);
	} else if (t->det == DET_ERROR && c) {
		t_error(t, s);
	} else if (t->det == DET_MISMATCH && c) {
		t_mismatch(t, s);
	}
}

/* "#0-0 (27a079b828ff1a75) MISMATCH": the comm, with what its group row said. */
static bool t_comm_head(struct tctx *t, const char *s)
{
	int g, i, n = 0;
	char hash[24], kind[16], id[16];
	if (sscanf(s, "#%d-%d (%23[0-9a-fA-F]) %15s%n", &g, &i, hash, kind, &n) != 4 || s[n])
		return false;
	int det = !strcmp(kind, "INCOMPLETE") ? DET_INCOMPLETE : !strcmp(kind, "ERROR") ? DET_ERROR :
		  !strcmp(kind, "MISMATCH") ? DET_MISMATCH : DET_NONE;
	if (det == DET_NONE)
		return false;
	snprintf(id, sizeof(id), "#%d-%d", g, i);
	struct ras_comm *c = comm_by_id(t->r, id);
	if (!c) {
		char gid[16];
		snprintf(gid, sizeof(gid), "#%d", g);
		const struct ras_comm *row = comm_by_id(t->r, gid);
		struct ras_comm copy;
		if (row)
			copy = *row;
		if (!(c = comm_new(t->r)))
			return true;
		if (row) {
			c->size = copy.size;
			c->nnodes = copy.nnodes;
			cpys(c->ranks_per_node, sizeof(c->ranks_per_node), copy.ranks_per_node);
			cpys(c->status, sizeof(c->status), copy.status);
			cpys(c->errors, sizeof(c->errors), copy.errors);
		}
		cpys(c->id, sizeof(c->id), id);
	}
	hash_set(c->hash, sizeof(c->hash), hash, strlen(hash));
	errors_add(c, det == DET_INCOMPLETE ? ERR_INCOMPLETE : det == DET_ERROR ? ERR_ERROR :
		   ERR_MISMATCH);
	t->comm = (int)(c - t->r->comms);
	t->det = det;
	t->sub = SUB_NONE;
	t->op[0] = '\0';
	t->known = true;
	return true;
}

/* "    0         1         4       7-8        32        32   RUNNING  INCOMPLETE" */
static bool t_group_row(struct tctx *t, const char *s)
{
	int g, nc, nn, size, rig, n = 0;
	char rpn[16], st[24], err[40];
	if (sscanf(s, "%d %d %d %15s %d %d %23s %39s%n", &g, &nc, &nn, rpn, &size, &rig, st, err,
		   &n) != 8 || s[n] || !isupper((unsigned char)st[0]))
		return false;
	struct ras_comm *c = comm_new(t->r);
	if (!c)
		return true;
	snprintf(c->id, sizeof(c->id), "#%d", g);
	c->ncomms = nc;
	c->nnodes = nn;
	cpys(c->ranks_per_node, sizeof(c->ranks_per_node), rpn);
	c->size = size;
	c->group_ranks = rig;
	cpys(c->status, sizeof(c->status), st);
	errors_set(c->errors, sizeof(c->errors), errors_mask(err));
	return true;
}

/* The Job summary: which table the header says, then its rows. */
static bool t_job(struct tctx *t, const char *s)
{
	long long v[6];
	int n = 0;
	const char *p = s;
	if (!strncmp(s, "Nodes", 5) || !strncmp(s, "Processes", 9) || !strcmp(s, "per process") ||
	    !strncmp(s, "The outlier node", 16) || !strncmp(s, "Node ", 5))
		return true;
	if (!strncmp(s, "(total)", 7)) {
		t->table = strstr(s, "per node") ? JT_FULL : JT_TOTAL;
		return true;
	}
	if (!strncmp(s, "per node", 8)) {
		t->table = JT_DIST;
		return true;
	}
	while (n < 6 && num(&p, &v[n])) {
		n++;
		while (*p == ' ')
			p++;
	}
	if (*p || n < 2)
		return false;
	if (t->table == JT_FULL && n == 5) {
		t->r->nodes = clampi(v[0]);
		t->r->processes = clampi(v[3]);
		t->r->gpus = clampi(v[4]);
	} else if (t->table == JT_TOTAL && n == 3) {
		t->r->nodes = clampi(v[0]);
		t->r->processes = clampi(v[1]);
		t->r->gpus = clampi(v[2]);
	}
	return t->table != JT_NONE;
}

static void t_version(struct ras_reply *r, const char *s)
{
	const char *e = strstr(s, " compiled with CUDA ");
	size_t n = e ? (size_t)(e - s) : strlen(s);
	size_t k = strspn(s, "0123456789.");
	cpy(r->nccl_version, sizeof(r->nccl_version), s, k < n ? k : n);
	r->version = ras_version_code(s);
	if (e)
		cpys(r->cuda_compiled, sizeof(r->cuda_compiled), e + strlen(" compiled with CUDA "));
}

/* Lines that change the section; false when s is none. */
static bool t_heading(struct tctx *t, const char *s)
{
	struct ras_reply *r = t->r;
	const char *p = s;
	long long a, b;
	if (lit(&p, "NCCL version ")) {
		t_version(r, p);
	} else if (lit(&p, "CUDA runtime version ") && num(&p, &a) && lit(&p, ", driver version ") &&
		   num(&p, &b)) {
		r->cuda_runtime = clampi(a);
		r->cuda_driver = clampi(b);
	} else if (!strcmp(s, "Job summary")) {
		t->sec = SEC_JOB;
	} else if (lit(&p, "Communicators...")) {
		t->sec = SEC_COMMS;
		double sec;
		if (sscanf(p, " (%lfs)", &sec) == 1 && sec >= 0)
			r->collection_s = sec;
	} else if (!strcmp(s, "Errors") || !strcmp(s, "Warnings")) {
		t->sec = s[0] == 'E' ? SEC_ERRORS : SEC_WARNINGS;
		t->det = DET_NONE;
		t->warnings |= s[0] == 'W';
		if (r->nmissing_procs < 0)
			r->nmissing_procs = r->ndead_procs = 0;
	} else if (!strcmp(s, "No communicator data collected!")) {
		r->no_comms = true;
	} else if (!strncmp(s, "Group ", 6) || !strncmp(s, "#  in group", 11)) {
		t->sec = SEC_COMMS;
	} else {
		return false;
	}
	return true;
}

static bool t_section_kind(struct tctx *t, const char *s)
{
	int det = !strcmp(s, "INCOMPLETE") ? DET_MISSING : !strcmp(s, "DEAD") ? DET_DEAD :
		  !strcmp(s, "TIMEOUT") ? DET_TIMEOUT : DET_NONE;
	if (det == DET_NONE)
		return t_comm_head(t, s);
	t->det = det;
	t->comm = -1;
	return true;
}

static void text_line(struct tctx *t, char *line)
{
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	const char *s = line + strspn(line, " \t");
	if (!*s)
		return;
	if (strspn(s, "=") == strlen(s))
		return; /* the underlines: neither known nor unknown */
	if (t_heading(t, s)) {
		t->known = true;
		return;
	}
	bool ok = false;
	if (t->sec == SEC_JOB)
		ok = t_job(t, s);
	else if (t->sec == SEC_COMMS)
		ok = t_group_row(t, s);
	/* an excerpt may lack its Errors/Warnings heading: the sections are
	 * told by their own first line */
	if (!ok && t->sec >= SEC_COMMS) {
		ok = t_section_kind(t, s);
		if (!ok && t->det != DET_NONE) {
			t->known = false;
			t_detail(t, s);
			ok = t->known;
		}
	}
	if (ok)
		t->known = true;
	else
		t->r->unknown_lines++;
}

static int text_report(const char *buf, size_t len, struct ras_reply *r)
{
	struct tctx t = { .r = r, .comm = -1, .value = -1, .code = -1,
			  .budget = RAS_PARSE_MAX_RANKS };
	char *copy = malloc(len + 1);
	bool any = false;
	if (!copy) {
		cpys(r->error, sizeof(r->error), "out of memory");
		return -1;
	}
	memcpy(copy, buf, len);
	copy[len] = '\0';
	for (char *line = copy; line && line < copy + len;) {
		char *nl = memchr(line, '\n', (size_t)(copy + len - line));
		if (nl)
			*nl = '\0';
		t.known = false;
		text_line(&t, line);
		any |= t.known;
		line = nl ? nl + 1 : NULL;
	}
	free(copy);
	if (!any) {
		snprintf(r->error, sizeof(r->error), "not a RAS report: none of its %d lines is one "
			 "NCCL prints", r->unknown_lines);
		return -1;
	}
	/* NCCL ends every text report with its Warnings heading or after it. */
	if (!t.warnings)
		r->truncated = true;
	return 0;
}

/* ---- the JSON report (2.28.7+) ---- */

/* A string member copied bounded; false (and counted unknown) when the
 * value is not a string. */
static bool jstr(struct ras_reply *r, json_t *v, char *dst, size_t size)
{
	if (!json_is_string(v)) {
		r->unknown_lines++;
		return false;
	}
	cpy(dst, size, json_string_value(v), json_string_length(v));
	return true;
}

static bool jint(struct ras_reply *r, json_t *v, int *dst)
{
	if (!json_is_integer(v)) {
		r->unknown_lines++;
		return false;
	}
	*dst = clampi(json_integer_value(v));
	return true;
}

static void jbool(struct ras_reply *r, json_t *v, bool *dst)
{
	if (json_is_boolean(v))
		*dst = json_is_true(v);
	else
		r->unknown_lines++;
}

/* "collective_counts": {"Broadcast": 0, ...} in the server's order. */
static void j_counts(struct ras_reply *r, struct ras_rank *k, json_t *o)
{
	const char *op;
	json_t *v;
	if (!json_is_object(o)) {
		r->unknown_lines++;
		return;
	}
	json_object_foreach(o, op, v) {
		if (json_is_integer(v))
			count_set(k, op, json_integer_value(v));
		else
			r->unknown_lines++;
	}
}

static void j_rank_status(struct ras_reply *r, struct ras_rank *k, json_t *o)
{
	const char *key;
	json_t *v;
	if (!json_is_object(o)) {
		r->unknown_lines++;
		return;
	}
	json_object_foreach(o, key, v) {
		if (!strcmp(key, "init_state"))
			jint(r, v, &k->init_state);
		else if (!strcmp(key, "async_error"))
			jint(r, v, &k->async_error);
		else if (!strcmp(key, "finalize_called"))
			jbool(r, v, &k->finalize_called);
		else if (!strcmp(key, "destroy_flag"))
			jbool(r, v, &k->destroy_flag);
		else if (!strcmp(key, "abort_flag"))
			jbool(r, v, &k->abort_flag);
		else if (!strcmp(key, "unresponsive"))
			jbool(r, v, &k->unresponsive);
		else if (!strcmp(key, "considered_dead"))
			jbool(r, v, &k->dead);
		else
			r->unknown_lines++;
	}
}

static void j_rank(struct ras_reply *r, struct ras_rank *k, json_t *o)
{
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v) {
		if (!strcmp(key, "rank"))
			jint(r, v, &k->rank);
		else if (!strcmp(key, "host"))
			jstr(r, v, k->host, sizeof(k->host));
		else if (!strcmp(key, "pid"))
			jint(r, v, &k->pid);
		else if (!strcmp(key, "cuda_dev"))
			jint(r, v, &k->cuda_dev);
		else if (!strcmp(key, "nvml_dev"))
			jint(r, v, &k->nvml_dev);
		else if (!strcmp(key, "status"))
			j_rank_status(r, k, v);
		else if (!strcmp(key, "collective_counts"))
			j_counts(r, k, v);
		else
			r->unknown_lines++;
	}
}

static void j_ranks(struct ras_reply *r, struct ras_comm *c, json_t *a, bool missing, int *budget)
{
	size_t i;
	json_t *o;
	if (!json_is_array(a)) {
		r->unknown_lines++;
		return;
	}
	json_array_foreach(a, i, o) {
		if (!json_is_object(o)) {
			r->unknown_lines++;
			continue;
		}
		struct ras_rank *k = rank_new(c, -1, budget);
		if (!k) {
			r->truncated = true;
			return;
		}
		k->missing = missing;
		j_rank(r, k, o);
	}
}

static void j_comm_key(struct ras_reply *r, struct ras_comm *c, const char *key, json_t *v,
		       int *budget)
{
	char h[40];
	int ignored;
	if (!strcmp(key, "hash")) {
		if (jstr(r, v, h, sizeof(h)))
			hash_set(c->hash, sizeof(c->hash), h, strlen(h));
	} else if (!strcmp(key, "secondary_hash")) {
		jstr(r, v, c->secondary, sizeof(c->secondary));
	} else if (!strcmp(key, "size")) {
		jint(r, v, &c->size);
	} else if (!strcmp(key, "ranks_count")) {
		jint(r, v, &ignored); /* the length of "ranks" */
	} else if (!strcmp(key, "missing_ranks_count")) {
		jint(r, v, &c->nmissing);
	} else if (!strcmp(key, "ranks")) {
		j_ranks(r, c, v, false, budget);
	} else if (!strcmp(key, "missing_ranks")) {
		j_ranks(r, c, v, true, budget);
	} else {
		r->unknown_lines++;
	}
}

/* NCCL's per-rank state (the text's rasACStatus of a rank). */
static const char *rank_state(const struct ras_rank *k)
{
	if (k->abort_flag)
		return "ABORT";
	if (k->finalize_called || k->destroy_flag)
		return "FINALIZE";
	return k->init_state == 0 ? "RUNNING" : "INIT";
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Largest group first, then the higher count (NCCL's rasValCountsCompareRev). */
static int cmp_group(const void *a, const void *b)
{
	const struct ras_count_group *x = a, *y = b;
	if (x->nranks != y->nranks)
		return x->nranks > y->nranks ? -1 : 1;
	return x->value > y->value ? -1 : x->value < y->value;
}

/* The groups of one op over the ranks with data; true when they differ. */
static bool op_groups(struct ras_comm *c, const char *op, int64_t *vals)
{
	int n = 0, first = c->ngroups;
	for (int i = 0; i < c->nranks; i++)
		for (int j = 0; !c->ranks[i].missing && j < c->ranks[i].ncounts; j++)
			if (!strcmp(c->ranks[i].counts[j].op, op))
				vals[n++] = c->ranks[i].counts[j].value;
	qsort(vals, (size_t)n, sizeof(*vals), cmp_i64);
	for (int i = 0; i < n;) {
		int j = i;
		while (j < n && vals[j] == vals[i])
			j++;
		group_new(c, op, vals[i], j - i);
		i = j;
	}
	qsort(c->groups + first, (size_t)(c->ngroups - first), sizeof(*c->groups), cmp_group);
	return c->ngroups - first > 1;
}

/* Count groups per op, in the first rank's op order; the MISMATCH bit. */
static int comm_groups(struct ras_comm *c)
{
	const struct ras_rank *first = NULL;
	int m = 0;
	for (int i = 0; i < c->nranks && !first; i++)
		if (!c->ranks[i].missing)
			first = &c->ranks[i];
	if (!first)
		return 0;
	int64_t *vals = malloc((size_t)c->nranks * sizeof(*vals));
	if (!vals)
		return 0;
	struct ras_count ops[RAS_MAX_OPS];
	int nops = first->ncounts;
	memcpy(ops, first->counts, sizeof(ops));
	for (int j = 0; j < nops; j++)
		if (op_groups(c, ops[j].op, vals))
			m |= ERR_MISMATCH;
	free(vals);
	c->counts_known = true;
	return m;
}

/* status and errors as NCCL's text would print them for this comm. */
static void comm_derive(struct ras_comm *c)
{
	bool init = false, abort_ = false, fin = false, some = false;
	const char *state = NULL;
	int m = comm_groups(c);
	for (int i = 0; i < c->nranks; i++) {
		const struct ras_rank *k = &c->ranks[i];
		if (k->missing) {
			/* reachable but not a member: NCCL's NOCOMM, a MISMATCH */
			m |= k->unresponsive || k->dead ? ERR_INCOMPLETE : ERR_MISMATCH;
			continue;
		}
		some = true;
		init |= k->init_state == 7;
		abort_ |= k->abort_flag;
		fin |= k->finalize_called || k->destroy_flag;
		if ((k->init_state != 0 && k->init_state != 7) ||
		    (k->async_error != 0 && k->async_error != 7))
			m |= ERR_ERROR;
		if (state && strcmp(state, rank_state(k)))
			m |= ERR_MISMATCH;
		state = rank_state(k);
	}
	if (c->nmissing > 0 && !(m & (ERR_INCOMPLETE | ERR_MISMATCH)))
		m |= ERR_INCOMPLETE; /* counted, but not listed */
	cpys(c->status, sizeof(c->status), !some ? "" : init ? "INIT" : abort_ ? "ABORT" :
	     fin ? "FINALIZE" : "RUNNING");
	errors_set(c->errors, sizeof(c->errors), m);
}

static void j_comm(struct ras_reply *r, json_t *o, int *budget)
{
	const char *key;
	json_t *v;
	if (!json_is_object(o)) {
		r->unknown_lines++;
		return;
	}
	struct ras_comm *c = comm_new(r);
	if (!c)
		return;
	json_object_foreach(o, key, v)
		j_comm_key(r, c, key, v, budget);
	if (c->nmissing == 0)
		for (int i = 0; i < c->nranks; i++)
			c->nmissing += c->ranks[i].missing;
	comm_derive(c);
}

struct jkey {
	const char *host;
	int pid, dev;
};

static int cmp_jkey(const void *a, const void *b)
{
	const struct jkey *x = a, *y = b;
	int d = strcmp(x->host, y->host);
	if (d)
		return d;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

/* Distinct nodes (hosts), processes (host, pid) and GPUs (host, NVML
 * device) over every rank of every comm; "unknown" hosts are not counted. */
static void job_counts(struct ras_reply *r)
{
	int n = 0;
	for (int i = 0; i < r->ncomms; i++)
		n += r->comms[i].nranks;
	struct jkey *k = malloc((size_t)(n ? n : 1) * sizeof(*k));
	if (!k)
		return;
	n = 0;
	for (int i = 0; i < r->ncomms; i++)
		for (int j = 0; j < r->comms[i].nranks; j++) {
			const struct ras_rank *x = &r->comms[i].ranks[j];
			if (x->host[0] && strcmp(x->host, "unknown"))
				k[n++] = (struct jkey){ x->host, x->pid, x->nvml_dev };
		}
	qsort(k, (size_t)n, sizeof(*k), cmp_jkey);
	r->nodes = r->processes = r->gpus = 0;
	for (int i = 0; i < n; i++) {
		bool host = !i || strcmp(k[i].host, k[i - 1].host);
		bool pid = host || k[i].pid != k[i - 1].pid;
		r->nodes += host;
		r->processes += pid;
		r->gpus += pid || k[i].dev != k[i - 1].dev;
	}
	free(k);
}

/* Adds GPU dev to a "0,1" list unless there. */
static void gpus_add(char *gpus, size_t size, int dev)
{
	char d[16];
	snprintf(d, sizeof(d), "%d", dev);
	for (const char *p = gpus; *p;) {
		size_t n = strcspn(p, ",");
		if (n == strlen(d) && !strncmp(p, d, n))
			return;
		p += n + (p[n] == ',');
	}
	size_t l = strlen(gpus);
	snprintf(gpus + l, size - l, "%s%s", l ? "," : "", d);
}

/* The missing ranks' processes, as the text's INCOMPLETE and DEAD list them. */
static void job_procs(struct ras_reply *r)
{
	r->nmissing_procs = r->ndead_procs = 0;
	for (int i = 0; i < r->ncomms; i++)
		for (int j = 0; j < r->comms[i].nranks; j++) {
			const struct ras_rank *x = &r->comms[i].ranks[j];
			if (!x->missing || !(x->unresponsive || x->dead))
				continue;
			struct ras_proc *p = NULL;
			for (int q = 0; q < r->nprocs && !p; q++)
				if (r->procs[q].pid == x->pid && !strcmp(r->procs[q].host, x->host))
					p = &r->procs[q];
			if (!p && (p = proc_new(r))) {
				p->pid = x->pid;
				cpys(p->host, sizeof(p->host), x->host);
				r->nmissing_procs += !x->dead;
				r->ndead_procs += x->dead;
			}
			if (p) {
				p->dead |= x->dead;
				if (x->cuda_dev >= 0)
					gpus_add(p->gpus, sizeof(p->gpus), x->cuda_dev);
			}
		}
}

static void j_footer(struct ras_reply *r, json_t *o)
{
	const char *key;
	json_t *v;
	if (!json_is_object(o)) {
		r->unknown_lines++;
		return;
	}
	json_object_foreach(o, key, v) {
		if (!strcmp(key, "collection_time_sec") && json_is_number(v))
			r->collection_s = json_number_value(v);
		else if (!strcmp(key, "timeouts_count"))
			jint(r, v, &r->timeouts);
		else
			r->unknown_lines++;
	}
}

static void j_top_key(struct ras_reply *r, const char *key, json_t *v, int *budget)
{
	char ver[32];
	int ignored;
	size_t i;
	json_t *c;
	if (!strcmp(key, "nccl_version") && jstr(r, v, ver, sizeof(ver))) {
		cpy(r->nccl_version, sizeof(r->nccl_version), ver, strspn(ver, "0123456789."));
		r->version = ras_version_code(ver);
	} else if (!strcmp(key, "cuda_runtime_version")) {
		jint(r, v, &r->cuda_runtime);
	} else if (!strcmp(key, "cuda_driver_version")) {
		jint(r, v, &r->cuda_driver);
	} else if (!strcmp(key, "timestamp")) {
		jstr(r, v, r->timestamp, sizeof(r->timestamp));
	} else if (!strcmp(key, "communicators_count")) {
		jint(r, v, &ignored);
	} else if (!strcmp(key, "communicators") && json_is_array(v)) {
		json_array_foreach(v, i, c)
			j_comm(r, c, budget);
		r->no_comms = json_array_size(v) == 0;
	} else if (!strcmp(key, "ras")) {
		j_footer(r, v);
	} else if (strcmp(key, "nccl_version")) {
		r->unknown_lines++;
	}
}

/* NCCL 2.28.7 - 2.29.1 print a missing rank's "nvml_dev": N without the
 * comma before its "status" (jsonWriteMissingRank; 2.29.2 added it), so
 * every report of a job with a missing or dead rank - the one that
 * matters - is invalid JSON. A copy with that one comma put back, or NULL
 * when the defect is not there. */
static char *repair_missing_comma(const char *buf, size_t len, size_t *outlen)
{
	static const char key[] = "\"nvml_dev\": ";
	char *out = NULL;
	size_t o = 0, from = 0, fixes = 0;
	for (size_t i = 0; i + sizeof(key) - 1 <= len; i++) {
		if (memcmp(buf + i, key, sizeof(key) - 1) != 0)
			continue;
		size_t k = i + sizeof(key) - 1;
		while (k < len && ((buf[k] >= '0' && buf[k] <= '9') || buf[k] == '-'))
			k++;
		size_t w = k;
		while (w < len && (buf[w] == ' ' || buf[w] == '\n' || buf[w] == '\r' || buf[w] == '\t'))
			w++;
		if (w >= len || buf[w] != '"')
			continue;
		if (!out && !(out = malloc(len + len / 16 + 2)))
			return NULL;
		if (o + (k - from) + 1 > len + len / 16 + 1)
			break;
		memcpy(out + o, buf + from, k - from);
		o += k - from;
		out[o++] = ',';
		from = k;
		fixes++;
	}
	if (!fixes) {
		free(out);
		return NULL;
	}
	memcpy(out + o, buf + from, len - from);
	*outlen = o + len - from;
	return out;
}

static int json_report(const char *buf, size_t len, struct ras_reply *r)
{
	json_error_t je;
	const char *key;
	json_t *v;
	int budget = RAS_PARSE_MAX_RANKS;
	json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		size_t fl;
		char *fixed = repair_missing_comma(buf, len, &fl);
		if (fixed) {
			json_error_t je2;
			doc = json_loadb(fixed, fl, JSON_REJECT_DUPLICATES, &je2);
			free(fixed);
		}
	}
	if (!doc) {
		/* cut mid-way: the parser ran out of input (also inside "tru") */
		r->truncated |= json_error_code(&je) == json_error_premature_end_of_input ||
				(je.position >= 0 && (size_t)je.position >= len);
		snprintf(r->error, sizeof(r->error), "%s JSON at line %d column %d: %.80s",
			 r->truncated ? "truncated" : "invalid", je.line, je.column, je.text);
		return -1;
	}
	if (!json_is_object(doc)) {
		json_decref(doc);
		cpys(r->error, sizeof(r->error), "JSON that is not an object");
		return -1;
	}
	json_object_foreach(doc, key, v)
		j_top_key(r, key, v, &budget);
	json_decref(doc);
	job_counts(r);
	job_procs(r);
	return 0;
}

/* ---- the entry point ---- */

/* The protocol lines a client may have left before the report: the
 * handshake's answers and the "ERROR: Unknown command SET FORMAT json" of a
 * server older than 2.28.7. Returns where the report starts. */
static size_t skip_preamble(const char *buf, size_t len, char *err, size_t errlen)
{
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && (buf[j] == ' ' || buf[j] == '\t' || buf[j] == '\r'))
			j++;
		const char *nl = memchr(buf + j, '\n', len - j);
		size_t end = nl ? (size_t)(nl - buf) : len;
		size_t n = end - j;
		while (n && (buf[j + n - 1] == '\r' || buf[j + n - 1] == ' '))
			n--;
		bool ok = n == 2 && !memcmp(buf + j, "OK", 2);
		bool proto = n >= 16 && !memcmp(buf + j, "SERVER PROTOCOL ", 16);
		bool error = n >= 6 && !memcmp(buf + j, "ERROR:", 6);
		if (n && !ok && !proto && !error)
			return i;
		if (error)
			cpy(err, errlen, buf + j, n);
		i = nl ? end + 1 : len;
	}
	return len;
}

int ras_parse(const char *buf, size_t len, struct ras_reply *r)
{
	char said[120] = "";
	reply_init(r);
	if (!buf)
		len = 0;
	if (len > RAS_REPLY_MAX) {
		len = RAS_REPLY_MAX;
		r->truncated = true;
	}
	size_t at = skip_preamble(buf, len, said, sizeof(said));
	size_t k = at;
	while (k < len && isspace((unsigned char)buf[k]))
		k++;
	if (k == len) {
		snprintf(r->error, sizeof(r->error), "%s%s",
			 said[0] ? "the server answered: " : "empty reply",
			 said);
		return -1;
	}
	if (buf[k] == '{') {
		r->format = RAS_FMT_JSON;
		return json_report(buf + k, len - k, r);
	}
	r->format = RAS_FMT_TEXT;
	return text_report(buf + at, len - at, r);
}

/* ---- MONITOR events (2.29+) ---- */

/* "1 (NVML 3) details" after "managing GPU(s) ": the GPUs, then details. */
static void ev_gpus_details(struct ras_event *e, const char *s)
{
	size_t n = strspn(s, "0123456789,");
	const char *p = s + n;
	if (!strncmp(p, " (NVML ", 7)) {
		const char *close = strchr(p, ')');
		if (close)
			p = close + 1;
	}
	cpy(e->gpus, sizeof(e->gpus), s, (size_t)(p - s));
	if (*p == ' ')
		p++;
	cpys(e->details, sizeof(e->details), p);
}

/* "[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245
 * managing GPU 1" (rasPeerInfoToString), "[...] PEER_RETRY: 10.0.0.5<41234>
 * details" (an address NCCL has no peer for) or "[...] EVENT: details". */
static bool ev_text(struct ras_event *e, char *line)
{
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
		line[--n] = '\0';
	const char *close = strchr(line, ']');
	if (line[0] != '[' || !close || close[1] != ' ')
		return false;
	const char *ev = close + 2, *colon = strstr(ev, ": ");
	if (!colon || colon == ev || strspn(ev, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") !=
	    (size_t)(colon - ev))
		return false;
	cpy(e->time, sizeof(e->time), line + 1, (size_t)(close - line - 1));
	cpy(e->event, sizeof(e->event), ev, (size_t)(colon - ev));
	const char *rest = colon + 2, *p = rest, *lt = NULL;
	if (proc_line(rest, &e->pid, e->host, sizeof(e->host), e->gpus, sizeof(e->gpus))) {
		p = strstr(rest, " managing GPU") + strlen(" managing GPU");
		lit(&p, "s");
		ev_gpus_details(e, p + 1);
		return true;
	}
	size_t w = strcspn(rest, " ");
	if (w && rest[w - 1] == '>' && (lt = memchr(rest, '<', w)) != NULL) {
		cpy(e->host, sizeof(e->host), rest, (size_t)(lt - rest));
		p = rest + w + (rest[w] == ' ');
	}
	cpys(e->details, sizeof(e->details), p);
	return true;
}

static void ev_devs(struct ras_event *e, json_t *a, char *dst, size_t size)
{
	size_t i;
	json_t *v;
	dst[0] = '\0';
	if (!json_is_array(a))
		return;
	json_array_foreach(a, i, v)
		if (json_is_integer(v))
			gpus_add(dst, size, clampi(json_integer_value(v)));
}

static void ev_peer(struct ras_event *e, json_t *o)
{
	char nvml[32], addr[64] = "";
	json_t *v;
	if (!json_is_object(o))
		return;
	if ((v = json_object_get(o, "host")) && json_is_string(v))
		cpys(e->host, sizeof(e->host), json_string_value(v));
	if ((v = json_object_get(o, "addr")) && json_is_string(v)) {
		cpys(addr, sizeof(addr), json_string_value(v));
		addr[strcspn(addr, "<")] = '\0';
		cpys(e->host, sizeof(e->host), addr);
	}
	if ((v = json_object_get(o, "pid")) && json_is_integer(v))
		e->pid = clampi(json_integer_value(v));
	ev_devs(e, json_object_get(o, "cuda_devs"), e->gpus, sizeof(e->gpus));
	ev_devs(e, json_object_get(o, "nvml_devs"), nvml, sizeof(nvml));
	if (e->gpus[0] && nvml[0] && strcmp(e->gpus, nvml)) {
		size_t l = strlen(e->gpus);
		snprintf(e->gpus + l, sizeof(e->gpus) - l, " (NVML %s)", nvml);
	}
}

static bool ev_json(struct ras_event *e, const char *buf, size_t len)
{
	json_t *o = json_loadb(buf, len, 0, NULL), *v;
	if (!o)
		return false;
	bool ok = json_is_object(o) && json_is_string(json_object_get(o, "event"));
	if (ok) {
		cpys(e->event, sizeof(e->event), json_string_value(json_object_get(o, "event")));
		if ((v = json_object_get(o, "timestamp")) && json_is_string(v))
			cpys(e->time, sizeof(e->time), json_string_value(v));
		if ((v = json_object_get(o, "group")) && json_is_string(v))
			cpys(e->group, sizeof(e->group), json_string_value(v));
		if ((v = json_object_get(o, "details")) && json_is_string(v))
			cpys(e->details, sizeof(e->details), json_string_value(v));
		ev_peer(e, json_object_get(o, "peer"));
	}
	json_decref(o);
	return ok;
}

/* The length of the JSON object at buf (from its '{' through its '}'), or 0
 * while it is incomplete. */
static size_t object_end(const char *buf, size_t len)
{
	int depth = 0;
	bool str = false, esc = false;
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];
		if (str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				str = false;
		} else if (c == '"') {
			str = true;
		} else if (c == '{') {
			depth++;
		} else if (c == '}' && --depth == 0) {
			return i + 1;
		}
	}
	return 0;
}

/* One event or line at buf: its length (0 while incomplete); *got when it
 * was an event. */
static size_t ev_one(const char *buf, size_t len, struct ras_event *e, bool *got)
{
	*got = false;
	memset(e, 0, sizeof(*e));
	e->pid = -1;
	if (buf[0] == '{') {
		size_t n = object_end(buf, len);
		if (n)
			*got = ev_json(e, buf, n);
		return n ? n : len > RAS_EVENT_MAX ? len : 0;
	}
	const char *nl = memchr(buf, '\n', len);
	if (!nl)
		return len > RAS_EVENT_MAX ? len : 0;
	size_t n = (size_t)(nl - buf);
	char line[RAS_EVENT_MAX + 1];
	cpy(line, sizeof(line), buf, n);
	*got = ev_text(e, line);
	return n + 1;
}

int ras_parse_events(const char *buf, size_t len, struct ras_event *ev, int max, size_t *used)
{
	size_t at = 0;
	int n = 0;
	while (buf && n < max && at < len) {
		if (isspace((unsigned char)buf[at])) {
			at++;
			continue;
		}
		bool got;
		size_t k = ev_one(buf + at, len - at, &ev[n], &got);
		if (!k)
			break;
		at += k;
		n += got;
	}
	if (used)
		*used = at;
	return n;
}
