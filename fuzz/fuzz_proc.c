/* libFuzzer target: the /proc parsers, each given a file's bytes as the
 * live readers give them (procfs_slurp's NUL-terminated buffer, or a FILE*
 * that fmemopen stands in for). The first byte picks the parser, the rest
 * is the file:
 *   0 net/dev, if_inet6, route (three files, split at the first two NULs)
 *   1 maps      2 stat      3 status (NSpid)   4 comm    5 cmdline
 *   6 environ (the job step's and the capture's, the same parser)
 *   7 nccl.conf 8 NCCL_DEBUG_FILE template ("TEMPLATE\0HOST")
 *   9 the secret-name test and the environment table on one "NAME=value"
 * Checked: names NUL-terminated within their arrays, counts within their
 * capacity, an interface address or default route only for an interface
 * read; a variable kept (job step or capture) is in the table, never one
 * whose name looks secret, and is an entry of the input word for word; a
 * secret option's value never shown; the expanded debug file within its
 * buffer. */
#define _GNU_SOURCE
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "capture_int.h"
#include "job.h"
#include "procfs.h"
#include "fabtop/util.h"

#define TERMINATED(a) assert(memchr((a), '\0', sizeof(a)) != NULL)

static FILE *mem(char *b, size_t n)
{
	/* fmemopen of 0 bytes fails on older glibc: an empty file then. */
	return fmemopen(n ? b : (char *)"", n ? n : 1, "r");
}

static void check_net(const struct fab_job_net *net)
{
	assert(net->nifs >= 0);
	TERMINATED(net->default_if);
	bool def_found = !net->default_if[0];
	for (int i = 0; i < net->nifs; i++) {
		const struct fab_job_if *f = &net->ifs[i];
		TERMINATED(f->name);
		assert(f->naddrs >= 0 && f->naddrs <= JOB_MAX_ADDRS);
		for (int a = 0; a < f->naddrs; a++)
			TERMINATED(f->addrs[a]);
		if (strcmp(f->name, net->default_if) == 0)
			def_found = true;
	}
	assert(def_found);   /* the default route leaves through an interface read */
}

static void fuzz_net(char *b, size_t n)
{
	char *parts[3] = { b, "", "" };
	size_t lens[3] = { n, 0, 0 };
	for (int k = 1; k < 3; k++) {
		char *z = memchr(parts[k - 1], '\0', lens[k - 1]);
		if (!z)
			break;
		parts[k] = z + 1;
		lens[k] = lens[k - 1] - (size_t)(z + 1 - parts[k - 1]);
		lens[k - 1] = (size_t)(z - parts[k - 1]);
	}
	struct fab_job_net net;
	memset(&net, 0, sizeof(net));
	void (*parse[3])(FILE *, struct fab_job_net *) = {
		job_net_parse_dev, job_net_parse_if_inet6, job_net_parse_route,
	};
	for (int k = 0; k < 3; k++) {
		FILE *f = mem(parts[k], lens[k]);
		if (!f)
			continue;
		parse[k](f, &net);
		fclose(f);
	}
	check_net(&net);
	job_net_free(&net);
}

/* Is "name=value" one of env's NUL-separated entries, word for word? A
 * value is kept cut to its field (cap bytes with the NUL): then its head. */
static bool is_entry(const char *env, size_t n, const char *name, const char *value, size_t cap)
{
	size_t nl = strlen(name), vl = strlen(value);
	for (const char *kv = env; kv < env + n; kv += strlen(kv) + 1) {
		size_t el = strlen(kv);
		if (el < nl + 1 || memcmp(kv, name, nl) || kv[nl] != '=')
			continue;
		size_t want = el - nl - 1;
		if (want >= cap)
			want = cap - 1;
		if (vl == want && !memcmp(kv + nl + 1, value, vl))
			return true;
	}
	return false;
}

static void check_kept(const struct fab_job_var *v, enum procfs_env kind)
{
	TERMINATED(v->name);
	TERMINATED(v->value);
	TERMINATED(v->source);
	assert(!procfs_secret_name(v->name));
	assert(procfs_env_kind(v->name) == kind);
}

static void check_job(const struct fab_job *j)
{
	assert(j->nnccl >= 0 && j->nnccl <= JOB_MAX_VARS);
	assert(j->nrank >= 0 && j->nrank <= JOB_MAX_RANK);
	for (int i = 0; i < j->nnccl; i++)
		check_kept(&j->nccl[i], PROCFS_ENV_NCCL);
	for (int i = 0; i < j->nrank; i++)
		check_kept(&j->rank[i], PROCFS_ENV_RANK);
}

static void fuzz_environ(const char *orig, char *b, size_t n)
{
	static struct fab_job j;
	memset(&j, 0, sizeof(j));
	struct job_env e = { .j = &j };
	bool own = job_parse_environ(&e, b, n);
	check_job(&j);
	for (int i = 0; i < j.nnccl; i++)
		assert(is_entry(orig, n, j.nccl[i].name, j.nccl[i].value, sizeof(j.nccl[i].value)));
	for (int i = 0; i < j.nrank; i++)
		assert(is_entry(orig, n, j.rank[i].name, j.rank[i].value, sizeof(j.rank[i].value)));
	if (e.home)
		assert(is_entry(orig, n, "HOME", e.home, SIZE_MAX));
	if (e.hostname)
		assert(is_entry(orig, n, "HOSTNAME", e.hostname, SIZE_MAX));

	/* The capture's reading of the same bytes keeps the same rule. */
	char *c = malloc(n + 1);
	if (!c)
		return;
	memcpy(c, orig, n + 1);
	bool nccl;
	json_t *ej = capture_env_json(c, n, &nccl);
	assert(nccl == own);
	const char *key;
	json_t *v;
	json_object_foreach(ej, key, v) {
		assert(!procfs_secret_name(key));
		assert(procfs_env_kind(key) != PROCFS_ENV_NONE);
		if (json_is_string(v))
			assert(is_entry(orig, n, key, json_string_value(v), SIZE_MAX));
	}
	json_decref(ej);
	free(c);
}

static void fuzz_cmdline(char *b, size_t n)
{
	char out[512];
	job_parse_cmdline(b, n, out, sizeof(out));
	TERMINATED(out);
	/* Each word as shown: a secret NAME=value or the word after a secret
	 * option is hidden, whatever the value. */
	const char *argv[65];
	int argc = 0;
	for (const char *s = b; s < b + n && argc < 64; s += strlen(s) + 1)
		argv[argc++] = s;
	argv[argc] = NULL;
	for (int i = 0; i < argc; i++) {
		char buf[FAB_NAME_LEN];
		const char *w = procfs_shown_arg(argv, i, buf, sizeof(buf));
		const char *eq = strchr(argv[i], '=');
		if (eq && procfs_secret_name(argv[i]))
			assert(w == buf && strlen(w) >= 9 && strcmp(w + strlen(w) - 9, "=<hidden>") == 0);
		else if (i > 0 && argv[i - 1][0] == '-' && !strchr(argv[i - 1], '=') &&
			 procfs_secret_name(argv[i - 1]))
			assert(strcmp(w, "<hidden>") == 0);
		else
			assert(w == argv[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int which = data[0] % 10;
	size_t n = size - 1;
	/* As procfs_slurp leaves it: n bytes and a NUL after them. */
	char *b = malloc(n + 1), *orig = malloc(n + 1);
	if (!b || !orig) {
		free(b);
		free(orig);
		return 0;
	}
	memcpy(b, data + 1, n);
	b[n] = '\0';
	memcpy(orig, b, n + 1);

	switch (which) {
	case 0:
		fuzz_net(b, n);
		break;
	case 1: {
		char lib[FAB_PATH_LEN], small[8];
		FILE *f = mem(b, n);
		if (f) {
			if (procfs_parse_maps(f, lib, sizeof(lib))) {
				TERMINATED(lib);
				assert(lib[0] == '/');
			}
			rewind(f);
			if (procfs_parse_maps(f, small, sizeof(small)))
				TERMINATED(small);
			fclose(f);
		}
		break;
	}
	case 2:
		(void)procfs_parse_kthread(b);
		break;
	case 3:
		(void)procfs_parse_nspid(b, 42);
		break;
	case 4: {
		char comm[32];
		procfs_parse_comm(b, n, comm, sizeof(comm));
		TERMINATED(comm);
		assert(!strchr(comm, '\n'));
		break;
	}
	case 5:
		fuzz_cmdline(b, n);
		break;
	case 6:
		fuzz_environ(orig, b, n);
		break;
	case 7: {
		static struct fab_job j;
		memset(&j, 0, sizeof(j));
		FILE *f = mem(b, n);
		if (f) {
			job_parse_conf(&j, f, "/etc/nccl.conf");
			fclose(f);
		}
		check_job(&j);
		for (int i = 0; i < j.nnccl; i++)
			assert(strcmp(j.nccl[i].source, "/etc/nccl.conf") == 0);
		break;
	}
	case 8: {
		const char *host = b + strlen(b) < b + n ? b + strlen(b) + 1 : "";
		char out[FAB_PATH_LEN], tiny[5];
		int pid = n ? (int)(signed char)b[n - 1] * 99991 : 0;
		job_expand_debug_file(b, host, pid, out, sizeof(out));
		assert(strlen(out) < sizeof(out));
		job_expand_debug_file(b, host, pid, tiny, sizeof(tiny));
		assert(strlen(tiny) < sizeof(tiny));
		job_expand_debug_file(b, host, pid, tiny, 0);
		break;
	}
	case 9: {
		enum procfs_env k = procfs_env_kind(b);
		if (procfs_secret_name(b))
			assert(k == PROCFS_ENV_NONE);
		if (k != PROCFS_ENV_NONE) {
			/* Only a name the table has, exactly. */
			size_t nl = strcspn(b, "=");
			bool in_table = false;
			for (int i = 0; procfs_env_name(i); i++)
				if (strlen(procfs_env_name(i)) == nl && !memcmp(procfs_env_name(i), b, nl))
					in_table = true;
			assert(in_table);
		}
		break;
	}
	}
	free(b);
	free(orig);
	return 0;
}
