/*
 * sanitize.h - the one output sanitiser. Every string that comes from a
 * node, a capture or a log (device and netdev names, file contents, log
 * lines, paths) is untrusted: printed raw, an ESC or a C1 CSI (0x9b) would
 * drive the terminal and a newline would forge a line. Text output (the
 * print layer, fab_fprintf), the TUI (view_put and friends) and the tables
 * show such a string through fab_san_next, so all media escape alike:
 *
 *   C0 controls and DEL       \x1b, \x7f; newline \n, tab \t
 *   C1 code points (U+0080..U+009F, valid UTF-8)     \u009b
 *   bidi overrides/isolates and line separators      \u202e, \u2028
 *   every byte of invalid UTF-8 (a raw 0x9b, an overlong or truncated
 *   sequence, a surrogate, beyond U+10FFFF)          \x9b, \xc0
 *
 * Valid printable UTF-8 (accents, CJK) passes unchanged, and so does a
 * backslash: the shown form is for reading, not for parsing back. The
 * shown form is printable ASCII or valid UTF-8, so sanitising twice
 * changes nothing. The JSON output keeps the name itself (print.c).
 *
 * fab_shq quotes one word for a shell, for the commands fabtop suggests
 * ("next: ibstat 'mlx5;touch pwned;#' 1"): a word of safe characters stays
 * as it is, any other is single-quoted with ' written '\''.
 */
#ifndef FABTOP_SANITIZE_H
#define FABTOP_SANITIZE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The longest shown form of one character ("\u202e") plus its NUL. */
#define FAB_SAN_MAX 8

/* The next character of s (rem > 0 bytes; s need not be NUL-terminated):
 * its shown form into out (NUL-terminated, *outlen bytes: the character's
 * own bytes, or its escape) and whether that is an escape; returns the bytes
 * of s it took (at least 1). */
size_t fab_san_next(const char *s, size_t rem, char out[FAB_SAN_MAX], size_t *outlen,
		    bool *escaped);
/* True when the n bytes of s are valid UTF-8 (controls allowed). */
bool fab_utf8_valid(const char *s, size_t n);
/* True when s shows as it is (nothing to escape). */
bool fab_san_clean(const char *s);

/* s shown safely into buf (len > 0): always NUL-terminated, cut at a whole
 * shown character when buf is short. Returns buf. */
char *fab_sanitize(const char *s, char *buf, size_t len);
/* The same for the first n bytes of s (up to a NUL). */
char *fab_sanitize_n(const char *s, size_t n, char *buf, size_t len);
/* A line of a command's output: as fab_sanitize_n, but tabs are expanded
 * to spaces (stops every 8 columns, counted in bytes of the shown form),
 * since command output uses them to align, where a name never does. */
char *fab_sanitize_line(const char *s, size_t n, char *buf, size_t len);
/* For JSON: only the bytes that are not UTF-8 escaped (\xff), the rest
 * kept as it is (the encoder escapes controls), so the value stays the
 * name and becomes a valid string. */
char *fab_sanitize_utf8(const char *s, char *buf, size_t len);
/* The bytes fab_sanitize_n needs for the whole shown form, NUL included
 * (never more than 4 n + 1); enough for fab_sanitize_utf8 too. */
size_t fab_san_size(const char *s, size_t n);

/* printf where every %s and %c argument is shown through the sanitiser
 * (a %.Ns precision limits the bytes read from the argument, the width
 * pads the shown form); the format's own text is written as it is, so a
 * "\n" in the format still ends a line. Returns what vfprintf returns. */
int fab_vfprintf(FILE *fp, const char *fmt, va_list ap);
int fab_fprintf(FILE *fp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s quoted as one shell word into buf (len >= 3): as it is when every
 * character is one of [A-Za-z0-9_@%+=:,./-] (and s is not empty), else in
 * single quotes, each ' as '\''. Cut to fit with the quote still closed.
 * Returns buf. */
char *fab_shq(const char *s, char *buf, size_t len);
/* Room for fab_shq of a name (FAB_NAME_LEN) or a short path. */
#define FAB_SHQ_LEN 600
/* fab_shq into a buffer that lives until the end of the enclosing block,
 * for use among snprintf's arguments: snprintf(h, n, "ibstat %s", FAB_SHQ(name)). */
#define FAB_SHQ(s) fab_shq((s), (char[FAB_SHQ_LEN]){ 0 }, FAB_SHQ_LEN)

#endif
