/* i18n.c - the interface's language (see i18n.h). */
#include <langinfo.h>
#include <libintl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "fabtop/i18n.h"
#include "fabtop/util.h"

#ifndef FABTOP_LOCALEDIR
#define FABTOP_LOCALEDIR "/usr/local/share/locale"
#endif

static bool on;
static char lang_in_use[16] = "C";
static char catalog_dir[PATH_MAX];

const char *fab_gettext(const char *msgid)
{
	/* dgettext("") is the catalog's header, never a message. */
	if (!on || !msgid || !*msgid)
		return msgid;
	return dgettext(FAB_TEXTDOMAIN, msgid);
}

const char *fab_ngettext(const char *one, const char *many, unsigned long n)
{
	if (!on)
		return n == 1 ? one : many;
	return dngettext(FAB_TEXTDOMAIN, one, many, n);
}

const char *fab_pgettext(const char *ctx, const char *msgid)
{
	char key[256];
	if (!on || !ctx || !msgid || !*msgid)
		return msgid;
	/* gettext's key for a msgctxt entry: context, EOT, msgid. */
	int n = snprintf(key, sizeof(key), "%s\004%s", ctx, msgid);
	if (n < 0 || (size_t)n >= sizeof(key))
		return msgid;
	const char *t = dgettext(FAB_TEXTDOMAIN, key);
	return t == key ? msgid : t;
}

void fab_i18n_off(void)
{
	on = false;
}

bool fab_i18n_suspend(void)
{
	bool was = on;
	on = false;
	return was;
}

void fab_i18n_restore(bool was_on)
{
	/* Only back to what was: a catalog that was never bound stays off. */
	on = was_on && catalog_dir[0];
}

bool fab_i18n_on(void)
{
	return on;
}

const char *fab_i18n_lang(void)
{
	return on ? lang_in_use : "C";
}

/* "zh_CN.UTF-8", "zh_CN", "zh", "zh_SG.GB18030" -> "zh_CN"; English and
 * C -> "C"; another language -> itself without codeset or modifier (no
 * catalog will be found for it). Traditional Chinese (zh_TW, zh_HK, zh_MO)
 * is not zh_CN: a reader of it gets English, not the simplified script. */
static void normalise(const char *in, char *out, size_t len)
{
	char buf[64];
	fab_strlcpy(buf, in, sizeof(buf));
	buf[strcspn(buf, ".@:")] = '\0';
	if (!buf[0] || !strcmp(buf, "C") || !strcmp(buf, "POSIX") || !strncmp(buf, "en", 2)) {
		fab_strlcpy(out, "C", len);
		return;
	}
	if (!strcmp(buf, "zh") || !strcmp(buf, "zh_CN") || !strcmp(buf, "zh_SG")) {
		fab_strlcpy(out, "zh_CN", len);
		return;
	}
	fab_strlcpy(out, buf, len);
}

/* The language the environment asks for, in gettext's order: LANGUAGE
 * (its first entry) unless messages are plain C, then LC_ALL, LC_MESSAGES,
 * LANG. */
static void env_lang(char *out, size_t len)
{
	const char *v = NULL;
	const char *names[] = { "LC_ALL", "LC_MESSAGES", "LANG" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !v; i++) {
		const char *e = getenv(names[i]);
		if (e && *e)
			v = e;
	}
	const char *language = getenv("LANGUAGE");
	char first[64] = "";
	if (language && *language) {
		fab_strlcpy(first, language, sizeof(first));
		first[strcspn(first, ":")] = '\0';
	}
	/* gettext ignores LANGUAGE when the locale is plain C (not C.UTF-8);
	 * so does fabtop. */
	char base[16];
	normalise(v ? v : "C", base, sizeof(base));
	if (first[0] && v && strcmp(v, "C") != 0 && strcmp(v, "POSIX") != 0)
		normalise(first, out, len);
	else
		fab_strlcpy(out, base, len);
}

/* The first directory holding LANG's catalog: $FABTOP_LOCALEDIR alone when
 * set; else beside the binary (build/locale for build/fabtop and
 * build/san/fabtop, share/locale of an installed prefix), then the
 * compiled-in one. */
static bool find_catalog(const char *lang, char *dir, size_t len)
{
	char cand[4][PATH_MAX];
	int n = 0;
	const char *env = getenv("FABTOP_LOCALEDIR");
	if (env && *env) {
		fab_strlcpy(cand[n++], env, PATH_MAX);
	} else {
		char exe[PATH_MAX];
		if (fab_exe_dir(exe, sizeof(exe)) == 0) {
			snprintf(cand[n++], PATH_MAX, "%s/locale", exe);
			snprintf(cand[n++], PATH_MAX, "%s/../locale", exe);
			snprintf(cand[n++], PATH_MAX, "%s/../share/locale", exe);
		}
		fab_strlcpy(cand[n++], FABTOP_LOCALEDIR, PATH_MAX);
	}
	for (int i = 0; i < n; i++) {
		char mo[PATH_MAX + 64];
		snprintf(mo, sizeof(mo), "%s/%s/LC_MESSAGES/%s.mo", cand[i], lang, FAB_TEXTDOMAIN);
		if (access(mo, R_OK) == 0) {
			char real[PATH_MAX];
			fab_strlcpy(dir, realpath(cand[i], real) ? real : cand[i], len);
			return true;
		}
	}
	return false;
}

static bool codeset_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

int fab_i18n_init(const char *lang, char *why, size_t len)
{
	char want[16];
	on = false;
	catalog_dir[0] = '\0';
	if (why && len)
		why[0] = '\0';
	if (lang)
		normalise(lang, want, sizeof(want));
	else
		env_lang(want, sizeof(want));
	if (!strcmp(want, "C"))
		return 0;
	if (!find_catalog(want, catalog_dir, sizeof(catalog_dir))) {
		catalog_dir[0] = '\0';
		if (why)
			snprintf(why, len, "no %s catalog (%s.mo) was found; the interface stays in English",
				 want, FAB_TEXTDOMAIN);
		/* The environment asking for a language fabtop has no catalog
		 * for is ordinary: English, silently. */
		return lang ? -1 : 0;
	}
	/* Wide characters (CJK widths, ncursesw) need a UTF-8 codeset: the
	 * locale named may not be generated (a container), so C.UTF-8, which
	 * glibc always has, stands in. */
	if (!codeset_utf8())
		setlocale(LC_CTYPE, "C.UTF-8");
	/* gettext reads LANGUAGE only when messages are not plain C. */
	const char *msgs = setlocale(LC_MESSAGES, NULL);
	if (!msgs || !strcmp(msgs, "C") || !strcmp(msgs, "POSIX"))
		setlocale(LC_MESSAGES, "C.UTF-8");
	setenv("LANGUAGE", want, 1);
	bindtextdomain(FAB_TEXTDOMAIN, catalog_dir);
	bind_textdomain_codeset(FAB_TEXTDOMAIN, "UTF-8");
	fab_strlcpy(lang_in_use, want, sizeof(lang_in_use));
	on = true;
	return 0;
}
