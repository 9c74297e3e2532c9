/* The settings file (config.h) as untrusted input and as a file written
 * back: good lines, comments, bad values and unknown keys (the defaults
 * stay, the first problem is said with a count), a FIFO and a device that
 * must not be read (nor hang), a file over the cap, the XDG path, and the
 * save: kept comments and unknown lines, a link planted at the path that is
 * replaced and never written through, a new inode (renamed, not written in
 * place), no temporary file left, a directory made 0700, one writable by
 * others refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabtop/config.h"

static char dir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/fabtop-cfg.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	setenv("XDG_CONFIG_HOME", dir, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[320];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void assert_defaults(void)
{
	const struct fab_config *c = cfg_get();
	assert_true(c->interval == 1.0);
	assert_int_equal(c->theme, CFG_THEME_DARK);
	assert_string_equal(c->pane, "topology");
	assert_true(c->mouse);
}

static void test_missing_is_defaults(void **state)
{
	char p[300];
	(void)state;
	path_in(p, sizeof(p), "nothing-here");
	assert_int_equal(cfg_load(p), 0);
	assert_string_equal(cfg_error(), "");
	assert_defaults();
}

static void test_good_file(void **state)
{
	char p[300];
	(void)state;
	path_in(p, sizeof(p), "good");
	write_text(p, "# my settings\n"
		      "\n"
		      "  interval =   0.25   # fast\r\n"
		      "theme=light\n"
		      "\tpane = counters\n"
		      "mouse = no\n");
	assert_int_equal(cfg_load(p), 0);
	assert_string_equal(cfg_error(), "");
	const struct fab_config *c = cfg_get();
	assert_true(c->interval == 0.25);
	assert_int_equal(c->theme, CFG_THEME_LIGHT);
	assert_string_equal(c->pane, "counters");
	assert_false(c->mouse);
	/* "2s" and a plain integer are seconds too; mono. */
	write_text(p, "interval = 2s\ntheme = mono\n");
	assert_int_equal(cfg_load(p), 0);
	assert_true(cfg_get()->interval == 2.0);
	assert_int_equal(cfg_get()->theme, CFG_THEME_MONO);
}

static void test_bad_values_keep_defaults(void **state)
{
	char p[300];
	(void)state;
	static const char *const bad[] = {
		"interval = 0.1\n", "interval = 61\n", "interval = abc\n", "interval = 1,5\n",
		"interval = -2\n", "interval = nan\n", "interval =\n", "theme = blue\n",
		"theme = Dark\n", "pane = nope\n", "pane = ../../etc\n", "mouse = maybe\n",
	};
	path_in(p, sizeof(p), "bad");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_text(p, bad[i]);
		assert_int_equal(cfg_load(p), -1);
		assert_non_null(strstr(cfg_error(), "line 1"));
		assert_non_null(strstr(cfg_error(), "default is kept"));
		assert_defaults();
	}
	/* Good lines around bad ones still count; the first problem is said,
	 * the others counted. */
	write_text(p, "theme = light\ninterval = 0\ncolour = red\nmouse = no\nnot a setting\n");
	assert_int_equal(cfg_load(p), -1);
	assert_int_equal(cfg_get()->theme, CFG_THEME_LIGHT);
	assert_false(cfg_get()->mouse);
	assert_true(cfg_get()->interval == 1.0);
	assert_non_null(strstr(cfg_error(), "line 2: interval = \"0\""));
	assert_non_null(strstr(cfg_error(), "(and 2 more problems)"));
}

static void test_unknown_key(void **state)
{
	char p[300];
	(void)state;
	path_in(p, sizeof(p), "unknown");
	write_text(p, "# comment\ncolour = red\npane = links\n");
	assert_int_equal(cfg_load(p), -1);
	assert_non_null(strstr(cfg_error(), "line 2: unknown key \"colour\""));
	assert_null(strstr(cfg_error(), "more problem"));
	assert_string_equal(cfg_get()->pane, "links");
}

static void test_hostile_lines(void **state)
{
	char p[300], big[2048];
	(void)state;
	path_in(p, sizeof(p), "hostile");
	/* A NUL byte in a line, a line far too long, an escape sequence in a key. */
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fwrite("theme = li\0ght\n", 1, 15, f);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	fprintf(f, "pane = %s\n\x1b[2Jkey = 1\nmouse = no\n", big);
	fclose(f);
	assert_int_equal(cfg_load(p), -1);
	assert_non_null(strstr(cfg_error(), "line 1: a NUL byte"));
	assert_non_null(strstr(cfg_error(), "(and 2 more problems)"));
	assert_int_equal(cfg_get()->theme, CFG_THEME_DARK);
	assert_false(cfg_get()->mouse);
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("cfg_load blocked on a FIFO");
}

static void test_fifo_and_device(void **state)
{
	char p[300];
	(void)state;
	path_in(p, sizeof(p), "fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	/* No writer: a blocking open would wait for ever. */
	signal(SIGALRM, on_alarm);
	alarm(5);
	assert_int_equal(cfg_load(p), -1);
	alarm(0);
	assert_non_null(strstr(cfg_error(), "not a regular file"));
	assert_defaults();
	assert_int_equal(cfg_load("/dev/zero"), -1);
	assert_non_null(strstr(cfg_error(), "not a regular file"));
	assert_int_equal(cfg_load(dir), -1);
}

static void test_size_cap(void **state)
{
	char p[300];
	(void)state;
	path_in(p, sizeof(p), "huge");
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("theme = light\n", f);
	for (int i = 0; i < CFG_MAX_BYTES / 10 + 10; i++)
		fputs("#########\n", f);
	fclose(f);
	assert_int_equal(cfg_load(p), -1);
	assert_non_null(strstr(cfg_error(), "larger than 64 KiB"));
	assert_int_equal(cfg_get()->theme, CFG_THEME_DARK);
}

static void test_xdg_path(void **state)
{
	char p[300], want[300];
	(void)state;
	assert_int_equal(cfg_path(p, sizeof(p)), 0);
	path_in(want, sizeof(want), "fabtop/config");
	assert_string_equal(p, want);
	/* A relative XDG_CONFIG_HOME is ignored (the XDG spec): HOME's. */
	setenv("XDG_CONFIG_HOME", "relative/dir", 1);
	setenv("HOME", "/home/someone", 1);
	assert_int_equal(cfg_path(p, sizeof(p)), 0);
	assert_string_equal(p, "/home/someone/.config/fabtop/config");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	assert_int_equal(cfg_path(p, sizeof(p)), -1);
	assert_int_equal(cfg_load(NULL), 0);   /* nothing to read: defaults */
	setenv("XDG_CONFIG_HOME", dir, 1);
}

static void test_steps(void **state)
{
	char b[32];
	(void)state;
	assert_true(cfg_interval_step(1, 1) == 2);
	assert_true(cfg_interval_step(1, -1) == 0.5);
	assert_true(cfg_interval_step(0.25, -1) == 0.25);
	assert_true(cfg_interval_step(60, 1) == 60);
	assert_true(cfg_interval_step(3, 1) == 5);     /* a value from the file */
	assert_true(cfg_interval_step(3, -1) == 2);
	assert_string_equal(cfg_interval_text(0.25, b, sizeof(b)), "0.25");
	assert_string_equal(cfg_interval_text(2, b, sizeof(b)), "2");
	assert_string_equal(cfg_interval_text(0.5, b, sizeof(b)), "0.5");
	assert_string_equal(cfg_interval_text(60, b, sizeof(b)), "60");
	assert_true(cfg_pane_known("counters"));
	assert_false(cfg_pane_known("settings"));
}

/* No ".config.*.tmp" left beside the file. */
static void assert_no_temp(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	assert_non_null(dp);
	while ((e = readdir(dp)))
		assert_null(strstr(e->d_name, ".tmp"));
	closedir(dp);
}

static void test_save_new_dir(void **state)
{
	char p[300], d[300];
	struct stat st;
	(void)state;
	struct fab_config c;
	cfg_defaults(&c);
	c.interval = 0.5;
	c.theme = CFG_THEME_LIGHT;
	snprintf(c.pane, sizeof(c.pane), "links");
	c.mouse = false;
	assert_int_equal(cfg_save(&c, NULL), 0);   /* the XDG place: $dir/fabtop/config */
	assert_string_equal(cfg_error(), "");
	path_in(d, sizeof(d), "fabtop");
	assert_int_equal(stat(d, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	path_in(p, sizeof(p), "fabtop/config");
	const char *text = slurp(p);
	assert_non_null(strstr(text, "interval = 0.5\n"));
	assert_non_null(strstr(text, "theme = light\n"));
	assert_non_null(strstr(text, "pane = links\n"));
	assert_non_null(strstr(text, "mouse = no\n"));
	assert_no_temp(d);
	/* What was saved is read back the same. */
	cfg_load(NULL);
	assert_true(cfg_get()->interval == 0.5);
	assert_int_equal(cfg_get()->theme, CFG_THEME_LIGHT);
	assert_string_equal(cfg_get()->pane, "links");
	assert_false(cfg_get()->mouse);
}

static void test_save_keeps_lines(void **state)
{
	char p[300];
	(void)state;
	path_in(p, sizeof(p), "kept");
	write_text(p, "# my comment\n"
		      "theme = dark   # old\n"
		      "future_key = 7\n"
		      "\n"
		      "theme = mono\n");
	struct fab_config c;
	cfg_defaults(&c);
	c.theme = CFG_THEME_LIGHT;
	assert_int_equal(cfg_save(&c, p), 0);
	assert_string_equal(slurp(p), "# my comment\n"
				      "theme = light\n"
				      "future_key = 7\n"
				      "\n"
				      "interval = 1\n"
				      "pane = topology\n"
				      "mouse = yes\n");
}

static void test_save_is_atomic(void **state)
{
	char p[300], old[300];
	struct stat before, after;
	(void)state;
	path_in(p, sizeof(p), "atomic");
	path_in(old, sizeof(old), "atomic.oldlink");
	write_text(p, "theme = dark\n");
	assert_int_equal(link(p, old), 0);   /* a second name for the old inode */
	assert_int_equal(stat(p, &before), 0);
	struct fab_config c;
	cfg_defaults(&c);
	c.theme = CFG_THEME_MONO;
	assert_int_equal(cfg_save(&c, p), 0);
	assert_int_equal(stat(p, &after), 0);
	/* Renamed over, never rewritten in place: a reader holding the old
	 * file still sees it whole. */
	assert_true(before.st_ino != after.st_ino);
	assert_string_equal(slurp(old), "theme = dark\n");
	assert_non_null(strstr(slurp(p), "theme = mono\n"));
	assert_no_temp(dir);
}

static void test_save_never_follows_link(void **state)
{
	char p[300], victim[300];
	struct stat st;
	(void)state;
	path_in(p, sizeof(p), "linked");
	path_in(victim, sizeof(victim), "victim");
	write_text(victim, "precious\n");
	assert_int_equal(symlink(victim, p), 0);
	struct fab_config c;
	cfg_defaults(&c);
	assert_int_equal(cfg_save(&c, p), 0);
	assert_string_equal(slurp(victim), "precious\n");
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	/* A dangling link, as planted before the file exists: the same. */
	char p2[300], target[300];
	path_in(p2, sizeof(p2), "dangling");
	path_in(target, sizeof(target), "created-through-link");
	assert_int_equal(symlink(target, p2), 0);
	assert_int_equal(cfg_save(&c, p2), 0);
	assert_int_equal(lstat(target, &st), -1);
	assert_int_equal(lstat(p2, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

static void test_save_refuses_open_dir(void **state)
{
	char d[300], p[300];
	(void)state;
	path_in(d, sizeof(d), "shared");
	assert_int_equal(mkdir(d, 0700), 0);
	assert_int_equal(chmod(d, 0777), 0);
	path_in(p, sizeof(p), "shared/config");
	struct fab_config c;
	cfg_defaults(&c);
	assert_int_equal(cfg_save(&c, p), -1);
	assert_non_null(strstr(cfg_error(), "others can write"));
	struct stat st;
	assert_int_equal(lstat(p, &st), -1);
}

static void test_set_clamps(void **state)
{
	(void)state;
	struct fab_config c;
	cfg_defaults(&c);
	cfg_set(&c);
	c.interval = 1000;
	snprintf(c.pane, sizeof(c.pane), "nope");
	cfg_set(&c);
	assert_true(cfg_get()->interval == CFG_INTERVAL_MAX);
	assert_string_equal(cfg_get()->pane, "topology");
	c.interval = 0;
	cfg_set(&c);
	assert_true(cfg_get()->interval == CFG_INTERVAL_MIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_is_defaults),
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_bad_values_keep_defaults),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_hostile_lines),
		cmocka_unit_test(test_fifo_and_device),
		cmocka_unit_test(test_size_cap),
		cmocka_unit_test(test_xdg_path),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_save_new_dir),
		cmocka_unit_test(test_save_keeps_lines),
		cmocka_unit_test(test_save_is_atomic),
		cmocka_unit_test(test_save_never_follows_link),
		cmocka_unit_test(test_save_refuses_open_dir),
		cmocka_unit_test(test_set_clamps),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
