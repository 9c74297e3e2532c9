/*
 * i18n.h - the interface's language: GNU gettext (glibc's libintl), text
 * domain "fabtop", catalogs po/<LANG>/ (one .po per part) merged into
 * <localedir>/<LANG>/LC_MESSAGES/fabtop.mo (the Makefile).
 *
 * What is translated: what a person reads in the console and in the text
 * reports (panes, help, findings' messages and next steps, the wizard,
 * learn). What is never translated: JSON keys and values, finding and rule
 * IDs, metric names, command names and options, the `nvidia-smi topo -m`
 * matrix and its legend (they stay diffable with the original), and
 * anything a machine reads (report --json, metrics, captures, fleet and
 * diff documents): main calls fab_i18n_off() before those collect, so a
 * finding's message that a rule writes with _() is English there.
 *
 * Marking: _("text") where the text is used; N_("text") in a static table
 * whose entries go through _() where shown. Every msgid in the sources must
 * have a zh_CN entry (tests/i18n/t_catalog.sh fails otherwise).
 *
 * The language: chosen by the locale as gettext does (LANGUAGE, LC_ALL,
 * LC_MESSAGES, LANG). When the locale named is not generated on the machine
 * (setlocale fails, as in most containers), or with --lang LANG, fabtop
 * forces it: C.UTF-8 for characters and LANGUAGE=LANG for messages, so a
 * pod without locales still gets Chinese. --lang C (or en) forces English.
 */
#ifndef FABTOP_I18N_H
#define FABTOP_I18N_H

#include <stdbool.h>
#include <stddef.h>

#define FAB_TEXTDOMAIN "fabtop"

/* The translation of msgid, or msgid itself when none (or i18n is off).
 * The pointer stays valid for the program's life. */
const char *fab_gettext(const char *msgid) __attribute__((format_arg(1)));
/* Plural forms: n picks the form the language wants. */
const char *fab_ngettext(const char *one, const char *many, unsigned long n)
	__attribute__((format_arg(1))) __attribute__((format_arg(2)));

#define _(s) fab_gettext(s)
#define N_(s) (s)
#define P_(one, many, n) fab_ngettext(one, many, n)

/* A word that reads differently in two places ("transport": a counter's
 * layer, the A/B's transport) gets a context: NC_(ctx, s) marks it in a
 * table (xgettext --keyword=NC_:1c,2, a msgctxt entry), fab_pgettext(ctx,
 * s) translates it where shown; the translation, or s itself. */
#define NC_(ctx, s) (s)
const char *fab_pgettext(const char *ctx, const char *msgid) __attribute__((format_arg(2)));

/* Once, early in main, after setlocale(LC_ALL, ""): lang NULL follows the
 * environment, else forces LANG ("zh_CN", "C", "en"). Returns 0, or -1 with
 * why when the language asked for has no catalog (the interface is then
 * English; main says so). */
int fab_i18n_init(const char *lang, char *why, size_t len);
/* Messages in English from here on: output a machine reads. */
void fab_i18n_off(void);
/* Messages in English until fab_i18n_restore(): a document for a machine
 * made inside the console (a fleet node's report, nodedoc.h). Returns the
 * state to hand back. */
bool fab_i18n_suspend(void);
void fab_i18n_restore(bool was_on);
/* True when messages are being translated (a catalog is in use). */
bool fab_i18n_on(void);
/* The language in use: "zh_CN", or "C" for English. */
const char *fab_i18n_lang(void);

#endif
