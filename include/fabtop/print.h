/*
 * print.h - one print layer for text and JSON (the iproute2 way): each call
 * names a JSON key and a text format; in JSON mode the value goes into the
 * document, in text mode it is formatted. So the two outputs cannot disagree.
 *
 * Sequence: out_new() -> out_open_obj(NULL) ... out_close_obj() -> out_free()
 * (which writes the JSON document).
 *
 * Strings are untrusted (names from the node, a capture, a log): in text,
 * every string value (out_str's val, each %s and %c of out_text) is shown
 * through the sanitiser (sanitize.h), so an ESC, a C1 byte or a newline in
 * a name can neither drive the terminal nor forge a line; only the
 * format's own text is written as it is. In JSON a string keeps its value
 * (jansson escapes controls; C1 code points and DEL go out as \u escapes)
 * and one that is not valid UTF-8 is kept with each bad byte as "\\xff"
 * (fab_sanitize_utf8), never dropped or null. Keys likewise.
 */
#ifndef FABTOP_PRINT_H
#define FABTOP_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include "fabtop/model.h"

enum out_mode { OUT_TEXT, OUT_JSON };
enum out_where { PR_ANY, PR_TEXT, PR_JSON };

struct fab_out;

struct fab_out *out_new(enum out_mode mode, FILE *fp);
/* Writes the JSON document (JSON mode) and frees; returns 0 or -1 on write error. */
int out_free(struct fab_out *o);
bool out_is_json(const struct fab_out *o);

void out_open_obj(struct fab_out *o, const char *key);
void out_close_obj(struct fab_out *o);
void out_open_arr(struct fab_out *o, const char *key);
void out_close_arr(struct fab_out *o);

/* val NULL or "" -> JSON null, text "N/A" (formatted with fmt). */
void out_str(struct fab_out *o, enum out_where w, const char *key,
	     const char *fmt, const char *val);
void out_int(struct fab_out *o, enum out_where w, const char *key,
	     const char *fmt, fab_int v);
void out_num(struct fab_out *o, enum out_where w, const char *key,
	     const char *fmt, fab_num v);
void out_bool(struct fab_out *o, enum out_where w, const char *key,
	      const char *fmt, bool v);
/* Text only; every %s and %c argument is sanitised. */
void out_text(struct fab_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
