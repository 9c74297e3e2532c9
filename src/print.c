/* print.c - one print layer for text and JSON (jansson underneath). */
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "fabtop/print.h"
#include "fabtop/sanitize.h"

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

/* jansson writes C1 code points (U+0080..U+009F) as raw UTF-8, and a
 * terminal may take U+009B for CSI: each goes out as its \u escape, which
 * reads back as the same string. DEL too. Only strings hold such bytes. */
#define DUMP_BUF 65536

struct dump_ctx {
	FILE *fp;
	bool c2;   /* the last chunk ended with the lead byte 0xC2 */
	/* jansson hands over a token at a time (a key, a colon, an indent):
	 * gathered here and written in large pieces, not one stdio call each
	 * (DUMP_BUF; a small one on the stack when that cannot be had). */
	char *buf;
	size_t cap, len;
};

/* Writes the gathered bytes, C1 code points and DEL escaped. */
static int dump_flush(struct dump_ctx *d)
{
	const unsigned char *u = (const unsigned char *)d->buf;
	size_t size = d->len;
	d->len = 0;
	size_t start = 0;   /* the run of bytes not yet written */
	for (size_t i = 0; i < size; i++) {
		unsigned c = u[i];
		if (d->c2) {
			d->c2 = false;
			if (c >= 0x80 && c <= 0x9f) {
				if (fprintf(d->fp, "\\u%04X", c) < 0)   /* as jansson writes its escapes */
					return -1;
				start = i + 1;
				continue;
			}
			if (fputc(0xc2, d->fp) == EOF)
				return -1;
		}
		if (c != 0xc2 && c != 0x7f)
			continue;
		if (fwrite(u + start, 1, i - start, d->fp) != i - start)
			return -1;
		if (c == 0x7f && fputs("\\u007F", d->fp) == EOF)
			return -1;
		d->c2 = c == 0xc2;   /* held until the next byte says what it starts */
		start = i + 1;
	}
	if (fwrite(u + start, 1, size - start, d->fp) != size - start)
		return -1;
	return 0;
}

static int dump_chunk(const char *buf, size_t size, void *data)
{
	struct dump_ctx *d = data;
	while (size) {
		size_t n = size < d->cap - d->len ? size : d->cap - d->len;
		memcpy(d->buf + d->len, buf, n);
		d->len += n;
		buf += n;
		size -= n;
		if (d->len == d->cap && dump_flush(d) != 0)
			return -1;
	}
	return 0;
}

int out_free(struct fab_out *o)
{
	int rc = 0;
	if (!o)
		return -1;
	if (o->mode == OUT_JSON && o->doc) {
		char small[256];
		struct dump_ctx d = { .fp = o->fp, .buf = malloc(DUMP_BUF), .cap = DUMP_BUF };
		if (!d.buf) {
			d.buf = small;
			d.cap = sizeof(small);
		}
		if (json_dump_callback(o->doc, dump_chunk, &d, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 ||
		    dump_flush(&d) != 0)
			rc = -1;
		if (d.c2)
			fputc(0xc2, o->fp);
		if (d.buf != small)
			free(d.buf);
		fputc('\n', o->fp);
	}
	json_decref(o->doc);
	if (fflush(o->fp) != 0 || ferror(o->fp))
		rc = -1;
	free(o);
	return rc;
}

/* A JSON string of s: s itself when it is valid UTF-8 (jansson escapes
 * its controls), else s with each bad byte as "\\xff", so a name from the
 * node is kept, never dropped or turned into null. */
static json_t *json_text(const char *s)
{
	if (fab_utf8_valid(s, strlen(s)))
		return json_string(s);
	size_t need = fab_san_size(s, strlen(s));
	char *buf = malloc(need);
	if (!buf)
		return NULL;
	json_t *v = json_string(fab_sanitize_utf8(s, buf, need));
	free(buf);
	return v;
}

/* Puts v into the current container (under key when it is an object). */
static void put(struct fab_out *o, const char *key, json_t *v)
{
	char kbuf[512];
	if (!v)
		return;
	/* Keys may be names too (a counter file's name). */
	if (key && !fab_utf8_valid(key, strlen(key)))
		key = fab_sanitize_utf8(key, kbuf, sizeof(kbuf));
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
	fab_vfprintf(o->fp, fmt, ap);
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
		put(o, key, known ? json_text(val) : json_null());
	else if (fmt)
		fab_fprintf(o->fp, fmt, known ? val : "N/A");
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
