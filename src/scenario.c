/* scenario.c - the bundled scenarios' index (see scenario.h). */
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fabtop/i18n.h"
#include "fabtop/root.h"
#include "fabtop/scenario.h"
#include "fabtop/util.h"

/* Where the index may be, most specific first: $FABTOP_SCENARIOS alone when
 * set; else beside the binary (build/fabtop and build/san/fabtop in the
 * source tree, bin/ of an installed prefix, DESTDIR included), then the
 * compiled-in data directory. */
static int scenario_dirs(const char *dirs[], int max, char store[][PATH_MAX])
{
	int n = 0;
	const char *env = getenv("FABTOP_SCENARIOS");
	if (env && *env) {
		dirs[n++] = env;
		return n;
	}
	char exe[PATH_MAX];
	if (fab_exe_dir(exe, sizeof(exe)) == 0) {
		const char *rel[] = { "scenarios", "../scenarios", "../share/fabtop/scenarios" };
		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]) && n < max - 1; i++) {
			snprintf(store[n], PATH_MAX, "%s/%s", exe, rel[i]);
			dirs[n] = store[n];
			n++;
		}
	}
	dirs[n++] = FABTOP_DATADIR "/scenarios";
	return n;
}

/* A scenario name is a plain file name: no '/', no leading '.'. */
bool scenario_name_ok(const char *s)
{
	if (!*s || *s == '.' || strlen(s) >= SCEN_NAME_LEN)
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '-' || *s == '_' || *s == '.'))
			return false;
	return true;
}

/* One line of an index into line: false at the end. A line longer than
 * the buffer is skipped whole (its tail is no entry of its own). */
static bool index_line(FILE *fp, char *line, size_t len)
{
	while (fgets(line, (int)len, fp)) {
		size_t n = strlen(line);
		if (n && line[n - 1] != '\n' && !feof(fp)) {
			int c;
			while ((c = fgetc(fp)) != EOF && c != '\n')
				;
			continue;
		}
		line[strcspn(line, "\r\n")] = '\0';
		return true;
	}
	return false;
}

/* A field of the index into dst: cut at a character boundary when it is
 * too long, its control characters blanked (the index is data; what the
 * terminal is shown still goes through the sanitiser). */
static void index_field(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);
	if (n >= len) {
		n = len - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
	for (char *c = dst; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
}

/* index.LANG beside the index (mkscenarios.py writes index.zh_CN) holds
 * the same lines in the interface's language: its description and title
 * replace the English ones of the scenarios it names. */
static void translate(struct scenario *sc, int n, const char *dir)
{
	char path[PATH_MAX + 32], line[1024];
	if (!fab_i18n_on())
		return;
	snprintf(path, sizeof(path), "%s/index.%s", dir, fab_i18n_lang());
	int fd = root_open_plain(path);
	FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!fp) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (index_line(fp, line, sizeof(line))) {
		char *tab = strchr(line, '\t');
		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		char *tab2 = strchr(tab + 1, '\t');
		if (tab2)
			*tab2 = '\0';
		for (int i = 0; i < n; i++) {
			if (strcmp(sc[i].name, line) != 0)
				continue;
			index_field(sc[i].desc, sizeof(sc[i].desc), tab + 1);
			if (tab2)
				index_field(sc[i].title, sizeof(sc[i].title), tab2 + 1);
		}
	}
	fclose(fp);
}

/* Reads the first index found into sc (at most SCEN_MAX) and its directory
 * into dir; returns the number of scenarios, or -1 when no index was found. */
int scenario_index(struct scenario *sc, int max, char *dir, size_t dirlen)
{
	const char *dirs[8];
	char store[8][PATH_MAX];
	int nd = scenario_dirs(dirs, 8, store);
	for (int i = 0; i < nd; i++) {
		char path[PATH_MAX + 16], line[1024];
		snprintf(path, sizeof(path), "%s/index", dirs[i]);
		int fd = root_open_plain(path);   /* a FIFO there must not hang `fabtop demo` */
		FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
		if (!fp) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		int n = 0;
		while (n < max && index_line(fp, line, sizeof(line))) {
			char *tab = strchr(line, '\t');
			if (line[0] == '#' || !tab)
				continue;
			*tab = '\0';
			if (!scenario_name_ok(line))
				continue;
			char *tab2 = strchr(tab + 1, '\t');
			if (tab2)
				*tab2 = '\0';
			fab_strlcpy(sc[n].name, line, sizeof(sc[n].name));
			index_field(sc[n].desc, sizeof(sc[n].desc), tab + 1);
			index_field(sc[n].title, sizeof(sc[n].title), tab2 ? tab2 + 1 : "");
			n++;
		}
		fclose(fp);
		translate(sc, n, dirs[i]);
		/* Said to the user: /usr/local/share/..., not bin/../share/... */
		char real[PATH_MAX];
		fab_strlcpy(dir, realpath(dirs[i], real) ? real : dirs[i], dirlen);
		return n;
	}
	return -1;
}

/* Finds a scenario the index names, as NAME/ or NAME.tar.gz; 0 and the path, or -1. */
int scenario_find(const char *name, char *out, size_t len)
{
	struct scenario sc[SCEN_MAX];
	char dir[PATH_MAX];
	int n = scenario_index(sc, SCEN_MAX, dir, sizeof(dir));
	for (int i = 0; i < n; i++) {
		if (strcmp(sc[i].name, name) != 0)
			continue;
		snprintf(out, len, "%s/%s", dir, name);
		if (access(out, R_OK) == 0)
			return 0;
		snprintf(out, len, "%s/%s.tar.gz", dir, name);
		if (access(out, R_OK) == 0)
			return 0;
	}
	return -1;
}

