/* The one table of environment variables fabtop keeps and prints
 * (procfs.c): exact names only, the deny pattern winning over it, every
 * name in it shown by docs/capture-format.md and nothing else there; the
 * command line's secret-looking values hidden. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "procfs.h"

static void test_exact_names(void **state)
{
	assert_int_equal(procfs_env_kind("NCCL_SOCKET_IFNAME=eth0"), PROCFS_ENV_NCCL);
	assert_int_equal(procfs_env_kind("NCCL_SOCKET_IFNAME"), PROCFS_ENV_NCCL);
	assert_int_equal(procfs_env_kind("NCCL_IB_HCA==mlx5_0"), PROCFS_ENV_NCCL);
	assert_int_equal(procfs_env_kind("OMPI_COMM_WORLD_RANK=3"), PROCFS_ENV_RANK);
	assert_int_equal(procfs_env_kind("PMIX_RANK=0"), PROCFS_ENV_RANK);
	assert_int_equal(procfs_env_kind("CUDA_VISIBLE_DEVICES=0,1"), PROCFS_ENV_RANK);
	assert_int_equal(procfs_env_kind("HOSTNAME=node1"), PROCFS_ENV_HOST);
	/* Prefixes are no longer enough. */
	assert_int_equal(procfs_env_kind("NCCL_SOCKET_IFNAMEX=eth0"), PROCFS_ENV_NONE);
	assert_int_equal(procfs_env_kind("NCCL_SOCKET=eth0"), PROCFS_ENV_NONE);
	assert_int_equal(procfs_env_kind("NCCL_IB_TIMEOUT=22"), PROCFS_ENV_NONE);
	assert_int_equal(procfs_env_kind("UCX_TLS=rc"), PROCFS_ENV_NONE);
	assert_int_equal(procfs_env_kind("OMPI_MCA_plm_rsh_args=-i /root/.ssh/id_rsa"), PROCFS_ENV_NONE);
	assert_int_equal(procfs_env_kind("nccl_socket_ifname=eth0"), PROCFS_ENV_NONE);
	assert_int_equal(procfs_env_kind("=eth0"), PROCFS_ENV_NONE);
	assert_int_equal(procfs_env_kind(""), PROCFS_ENV_NONE);
}

static void test_deny_pattern(void **state)
{
	static const char *const secret[] = {
		"NVIDIA_API_KEY=nvapi-x", "NCCL_IB_PASSWORD=x", "NCCL_FOO_TOKEN=x", "UCX_PASSWORD=x",
		"PMIX_SECURITY_KEY=x", "AWS_SECRET_ACCESS_KEY=x", "GIT_CREDENTIALS=x", "MY_auth=x",
		"passwd=x", "NCCL_IB_PKEY=1", "SOME_Token", NULL,
	};
	for (const char *const *s = secret; *s; s++) {
		if (!procfs_secret_name(*s))
			fail_msg("%s is not taken for a secret", *s);
		assert_int_equal(procfs_env_kind(*s), PROCFS_ENV_NONE);
	}
	/* Only the name counts: a value may say anything. */
	assert_false(procfs_secret_name("NCCL_DEBUG_FILE=/tmp/key-token-secret.%h.log"));
	assert_false(procfs_secret_name("MASTER_PORT=29500"));
	/* The deny pattern wins over the table, so no name in the table may
	 * match it (it would never be shown). */
	int n = 0;
	for (const char *name; (name = procfs_env_name(n)); n++) {
		if (procfs_secret_name(name))
			fail_msg("%s in the table matches the deny pattern", name);
		assert_int_not_equal(procfs_env_kind(name), PROCFS_ENV_NONE);
	}
	assert_true(n > 20);
	assert_null(procfs_env_name(-1));
}

/* docs/capture-format.md names exactly the table's variables, in the
 * paragraph that starts "Kept, by exact name:" and ends at a blank line. */
static void test_docs_list_the_table(void **state)
{
	FILE *f = fopen("docs/capture-format.md", "r");
	if (!f)
		skip();   /* run from elsewhere than the repository root */
	char line[1024], text[8192] = "";
	bool in = false;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "Kept, by exact name:"))
			in = true;
		else if (in && line[0] == '\n')
			break;
		if (in && strlen(text) + strlen(line) < sizeof(text))
			strcat(text, line);
	}
	fclose(f);
	assert_true(in);
	int n = 0;
	for (const char *name; (name = procfs_env_name(n)); n++) {
		char quoted[128];
		snprintf(quoted, sizeof(quoted), "`%s`", name);
		if (!strstr(text, quoted))
			fail_msg("docs/capture-format.md does not list %s", name);
	}
	int quoted = 0;
	for (const char *p = text; (p = strchr(p, '`')); p++)
		quoted++;
	assert_int_equal(quoted, 2 * n);   /* and nothing else */
}

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const char *shown(const char *const argv[], int i)
{
	static char buf[128];
	return procfs_shown_arg(argv, i, buf, sizeof(buf));
}

static void test_cmdline(void **state)
{
	const char *const *a = ARGV("python3", "train.py", "--api-key", "sk-123", "--token=abc",
				    "--lr", "0.1", "AWS_SECRET_ACCESS_KEY=xyz", "-x", "NCCL_IB_HCA=mlx5_0");
	assert_string_equal(shown(a, 0), "python3");
	assert_string_equal(shown(a, 2), "--api-key");
	assert_string_equal(shown(a, 3), "<hidden>");
	assert_string_equal(shown(a, 4), "--token=<hidden>");
	assert_string_equal(shown(a, 5), "--lr");
	assert_string_equal(shown(a, 6), "0.1");
	assert_string_equal(shown(a, 7), "AWS_SECRET_ACCESS_KEY=<hidden>");
	assert_string_equal(shown(a, 9), "NCCL_IB_HCA=mlx5_0");
}

/* A secret NAME=value word whose name is longer than the buffer: the name
 * is cut, never the "=<hidden>" that says the value was hidden (the job
 * step's cmdline buffer is 64 bytes a word). Found by fuzz/fuzz_proc.c. */
static void test_long_secret_name(void **state)
{
	(void)state;
	char word[200], buf[64];
	memset(word, 'x', 150);
	memcpy(word, "--wandb", 7);
	snprintf(word + 150, sizeof(word) - 150, "_token=xyz");
	const char *argv[] = { "python3", word, NULL };
	const char *w = procfs_shown_arg(argv, 1, buf, sizeof(buf));
	assert_ptr_equal(w, buf);
	assert_true(strlen(w) < sizeof(buf));
	assert_string_equal(w + strlen(w) - 9, "=<hidden>");
	assert_memory_equal(w, "--wandbxxx", 10);
}

struct seen {
	int n;
	char names[8][64], values[8][64];
};

static void on_var(const char *name, const char *value, void *arg)
{
	struct seen *s = arg;
	if (s->n < 8) {
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
		snprintf(s->values[s->n], sizeof(s->values[0]), "%s", value);
		s->n++;
	}
}

/* A value with '=' in it is that variable's value, never a variable of
 * its own: API_TOKEN=NCCL_SOCKET_IFNAME=x must not become a kept (and
 * shown, and captured) NCCL_SOCKET_IFNAME=x, nor HOME=/a=b a HOME of
 * "/a". Found by fuzz/fuzz_proc.c. */
static void test_environ_value_with_equals(void **state)
{
	(void)state;
	char env[] = "API_TOKEN=NCCL_SOCKET_IFNAME=leak\0HOME=/a=b\0NOEQUALS\0NCCL_IB_HCA=mlx5_0";
	struct seen s = { 0 };
	bool own = procfs_parse_environ(env, sizeof(env) - 1, on_var, &s);
	assert_true(own);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.names[0], "API_TOKEN");
	assert_string_equal(s.values[0], "NCCL_SOCKET_IFNAME=leak");
	assert_string_equal(s.names[1], "HOME");
	assert_string_equal(s.values[1], "/a=b");
	assert_string_equal(s.names[2], "NCCL_IB_HCA");
	assert_string_equal(s.values[2], "mlx5_0");
	/* Only the value made it look like an NCCL job: it is not one. */
	char env2[] = "FOO=NCCL_IB_HCA=mlx5_0";
	memset(&s, 0, sizeof(s));
	assert_false(procfs_parse_environ(env2, sizeof(env2) - 1, on_var, &s));
	assert_int_equal(s.n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_names),
		cmocka_unit_test(test_deny_pattern),
		cmocka_unit_test(test_docs_list_the_table),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_environ_value_with_equals),
		cmocka_unit_test(test_long_secret_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
