/* print.c - one print layer for text and JSON (jansson underneath). */
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/print.h"

#define OUT_DEPTH 32

struct fab_out {
	enum out_mode mode;
	FILE *fp;
	json_t *stack[OUT_DEPTH];
	int depth;
	json_t *doc;
};

struct fab_out *out_new(enum out_mode mode, FILE *fp)
{
	struct fab_out *o = calloc(1, sizeof(*o));
	if (o) {
		o->mode = mode;
		o->fp = fp;
	}
	return o;
}

bool out_is_json(const struct fab_out *o)
{
	return o->mode == OUT_JSON;
}

int out_free(struct fab_out *o)
{
	int rc = 0;
	if (!o)
		return -1;
	if (o->mode == OUT_JSON && o->doc) {
		if (json_dumpf(o->doc, o->fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
			rc = -1;
		fputc('\n', o->fp);
	}
	json_decref(o->doc);
	if (fflush(o->fp) != 0 || ferror(o->fp))
		rc = -1;
	free(o);
	return rc;
}

/* Puts v into the current container (under key when it is an object). */
static void put(struct fab_out *o, const char *key, json_t *v)
{
	if (!v)
		return;
	if (o->depth == 0) {
		if (!o->doc)
			o->doc = v;
		else
			json_decref(v);
		return;
	}
	json_t *top = o->stack[o->depth - 1];
	if (json_is_array(top))
		json_array_append_new(top, v);
	else
		json_object_set_new(top, key ? key : "value", v);
}

static void open_container(struct fab_out *o, const char *key, json_t *c)
{
	if (o->mode != OUT_JSON || o->depth >= OUT_DEPTH) {
		json_decref(c);
		return;
	}
	put(o, key, json_incref(c));
	o->stack[o->depth++] = c;
	json_decref(c);
}

void out_open_obj(struct fab_out *o, const char *key) { open_container(o, key, json_object()); }
void out_open_arr(struct fab_out *o, const char *key) { open_container(o, key, json_array()); }

void out_close_obj(struct fab_out *o)
{
	if (o->mode == OUT_JSON && o->depth > 0)
		o->depth--;
}

void out_close_arr(struct fab_out *o) { out_close_obj(o); }

void out_text(struct fab_out *o, const char *fmt, ...)
{
	va_list ap;
	if (o->mode != OUT_TEXT)
		return;
	va_start(ap, fmt);
	vfprintf(o->fp, fmt, ap);
	va_end(ap);
}

static bool wants(const struct fab_out *o, enum out_where w)
{
	return w == PR_ANY || (w == PR_JSON) == (o->mode == OUT_JSON);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
void out_str(struct fab_out *o, enum out_where w, const char *key,
	     const char *fmt, const char *val)
{
	if (!wants(o, w))
		return;
	bool known = val && *val;
	if (o->mode == OUT_JSON)
		put(o, key, known ? json_string(val) : json_null());
	else if (fmt)
		fprintf(o->fp, fmt, known ? val : "N/A");
}

/* Prints fmt with its one conversion replaced by "N/A", keeping the text
 * around it and the field width, so unknown values keep the layout. */
static void text_na(FILE *fp, const char *fmt)
{
	const char *pct = strchr(fmt, '%');
	if (!pct) {
		fputs(fmt, fp);
		return;
	}
	const char *spec = pct + 1;
	bool left = *spec == '-';
	if (left)
		spec++;
	int width = atoi(spec);
	const char *conv = spec + strspn(spec, "0123456789.hlLqjzt");
	fprintf(fp, "%.*s%*s%s", (int)(pct - fmt), fmt, left ? -width : width, "N/A",
		*conv ? conv + 1 : conv);
}

void out_int(struct fab_out *o, enum out_where w, const char *key,
	     const char *fmt, fab_int v)
{
	if (!wants(o, w))
		return;
	if (o->mode == OUT_JSON)
		put(o, key, v.ok ? json_integer(v.v) : json_null());
	else if (fmt && v.ok)
		fprintf(o->fp, fmt, v.v);
	else if (fmt)
		text_na(o->fp, fmt);
}

void out_num(struct fab_out *o, enum out_where w, const char *key,
	     const char *fmt, fab_num v)
{
	if (!wants(o, w))
		return;
	if (o->mode == OUT_JSON)
		put(o, key, v.ok ? json_real(v.v) : json_null());
	else if (fmt && v.ok)
		fprintf(o->fp, fmt, v.v);
	else if (fmt)
		text_na(o->fp, fmt);
}

void out_bool(struct fab_out *o, enum out_where w, const char *key,
	      const char *fmt, bool v)
{
	if (!wants(o, w))
		return;
	if (o->mode == OUT_JSON)
		put(o, key, json_boolean(v));
	else if (fmt)
		fprintf(o->fp, fmt, v ? "yes" : "no");
}
#pragma GCC diagnostic pop
