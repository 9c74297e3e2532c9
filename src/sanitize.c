/* sanitize.c - the one output sanitiser and shell quoting (sanitize.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "fabtop/sanitize.h"

/* One UTF-8 character at s: its length and code point, or 0 when the bytes
 * are not one valid, shortest-form, non-surrogate sequence up to U+10FFFF. */
static size_t utf8_char(const unsigned char *s, size_t rem, uint32_t *cp)
{
	unsigned c = s[0];
	size_t need;
	uint32_t min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c < 0xc2)   /* a continuation byte, or the overlong leads C0/C1 */
		return 0;
	if (c < 0xe0) {
		need = 1, min = 0x80, *cp = c & 0x1f;
	} else if (c < 0xf0) {
		need = 2, min = 0x800, *cp = c & 0x0f;
	} else if (c < 0xf5) {
		need = 3, min = 0x10000, *cp = c & 0x07;
	} else {
		return 0;
	}
	if (rem < need + 1)
		return 0;
	for (size_t i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return need + 1;
}

/* Valid characters that still act on a terminal or on how a line reads:
 * C1 controls (0x9b is CSI), and the bidi marks, overrides and isolates
 * and line separators that can reorder or split what is shown. */
static bool cp_hidden(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t fab_san_next(const char *s, size_t rem, char out[FAB_SAN_MAX], size_t *outlen,
		    bool *escaped)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp = 0;
	size_t n = utf8_char(u, rem, &cp);
	*escaped = true;
	if (n == 0) {
		/* One byte at a time, so what follows a broken sequence shows. */
		out[0] = '\\', out[1] = 'x', out[2] = hex[u[0] >> 4], out[3] = hex[u[0] & 15];
		*outlen = 4;
		n = 1;
	} else if (cp == '\n' || cp == '\t') {
		out[0] = '\\', out[1] = cp == '\n' ? 'n' : 't';
		*outlen = 2;
	} else if (cp < 0x20 || cp == 0x7f) {
		out[0] = '\\', out[1] = 'x', out[2] = hex[cp >> 4], out[3] = hex[cp & 15];
		*outlen = 4;
	} else if (cp_hidden(cp)) {
		out[0] = '\\', out[1] = 'u';
		for (int i = 0; i < 4; i++)
			out[2 + i] = hex[cp >> (12 - 4 * i) & 15];
		*outlen = 6;
	} else {
		memcpy(out, s, n);
		*outlen = n;
		*escaped = false;
	}
	out[*outlen] = '\0';
	return n;
}

bool fab_utf8_valid(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	while (n) {
		size_t k = utf8_char(u, n, &cp);
		if (!k)
			return false;
		u += k;
		n -= k;
	}
	return true;
}

bool fab_san_clean(const char *s)
{
	char out[FAB_SAN_MAX];
	size_t rem = s ? strlen(s) : 0, ol;
	bool esc;
	while (rem) {
		/* Printable ASCII needs no decoding: the common case, kept fast. */
		if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f) {
			s++, rem--;
			continue;
		}
		size_t n = fab_san_next(s, rem, out, &ol, &esc);
		if (esc)
			return false;
		s += n, rem -= n;
	}
	return true;
}

enum san_mode { SAN_SHOW, SAN_LINE, SAN_UTF8 };

/* The shown form of the first n bytes of s into buf; tabs expanded for a
 * line of output; only the bytes that are not UTF-8 escaped for JSON.
 * Stops at the first character that does not fit. */
static char *san(const char *s, size_t n, char *buf, size_t len, enum san_mode mode)
{
	size_t o = 0, col = 0, ol;
	char out[FAB_SAN_MAX];
	bool esc;
	if (!len)
		return buf;
	n = s ? strnlen(s, n) : 0;
	while (n) {
		size_t k = fab_san_next(s, n, out, &ol, &esc);
		/* A byte >= 0x80 taken alone is never valid UTF-8; anything else
		 * is, and JSON keeps it as it is (its encoder escapes controls). */
		if (mode == SAN_UTF8 && esc && !(k == 1 && (unsigned char)*s >= 0x80)) {
			memcpy(out, s, k);
			ol = k;
			esc = false;
		}
		if (mode == SAN_LINE && *s == '\t') {
			ol = 8 - col % 8;
			memset(out, ' ', ol);
		}
		if (o + ol + 1 > len)
			break;
		memcpy(buf + o, out, ol);
		o += ol;
		col += esc || *s == '\t' ? ol : 1;
		s += k, n -= k;
	}
	buf[o] = '\0';
	return buf;
}

char *fab_sanitize(const char *s, char *buf, size_t len)
{
	return san(s, SIZE_MAX, buf, len, SAN_SHOW);
}

char *fab_sanitize_n(const char *s, size_t n, char *buf, size_t len)
{
	return san(s, n, buf, len, SAN_SHOW);
}

char *fab_sanitize_line(const char *s, size_t n, char *buf, size_t len)
{
	return san(s, n, buf, len, SAN_LINE);
}

char *fab_sanitize_utf8(const char *s, char *buf, size_t len)
{
	return san(s, SIZE_MAX, buf, len, SAN_UTF8);
}

size_t fab_san_size(const char *s, size_t n)
{
	size_t total = 1, ol;
	char out[FAB_SAN_MAX];
	bool esc;
	n = s ? strnlen(s, n) : 0;
	while (n) {
		size_t k = fab_san_next(s, n, out, &ol, &esc);
		total += ol;
		s += k, n -= k;
	}
	return total;
}

/* ---- printf with sanitised arguments ---- */

/* Writes one string argument: the first prec bytes (prec < 0: all) of s,
 * shown safely, padded to the spec's flags and width. */
static int put_str(FILE *fp, const char *spec, const char *s, int prec)
{
	char small[512], *buf = small;
	size_t n = prec < 0 ? SIZE_MAX : (size_t)prec;
	if (!s)
		s = "(null)";
	size_t need = fab_san_size(s, n);
	if (need > sizeof(small) && !(buf = malloc(need)))
		return -1;
	fab_sanitize_n(s, n, buf, need);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	int rc = fprintf(fp, spec, buf);
#pragma GCC diagnostic pop
	if (buf != small)
		free(buf);
	return rc;
}

int fab_vfprintf(FILE *fp, const char *fmt, va_list ap)
{
	int total = 0, rc, err = errno;   /* %m: errno as the call found it */
	va_list aq;
	va_copy(aq, ap);
	for (const char *p = fmt; *p; ) {
		if (*p != '%') {
			size_t lit = strcspn(p, "%");
			if (fwrite(p, 1, lit, fp) != lit)
				goto fail;
			total += (int)lit;
			p += lit;
			continue;
		}
		/* One conversion: rebuild its spec with '*' made explicit and the
		 * precision of a string taken out (it limits the bytes read). */
		char spec[48];
		size_t sl = 0;
		int prec = -1;
		bool has_prec = false;
		const char *q = p + 1;
		spec[sl++] = '%';
		while (*q && strchr("-+ #0'", *q) && sl < 8)
			spec[sl++] = *q++;
		if (*q == '*') {
			sl += (size_t)snprintf(spec + sl, sizeof(spec) - sl, "%d", va_arg(aq, int));
			q++;
		} else {
			while (*q >= '0' && *q <= '9' && sl < 20)
				spec[sl++] = *q++;
		}
		if (*q == '.') {
			has_prec = true;
			q++;
			if (*q == '*') {
				prec = va_arg(aq, int);
				q++;
			} else {
				prec = atoi(q);
				while (*q >= '0' && *q <= '9')
					q++;
			}
		}
		const char *len_at = q;
		while (*q && strchr("hlLqjzt", *q))
			q++;
		char conv = *q;
		if (!conv)
			break;
		q++;
		if ((conv == 's' || conv == 'c') && q - 1 > len_at) {
			/* %ls, %lc: wide text, which fabtop never prints; its argument
			 * is taken so the rest still lines up, nothing written. */
			if (conv == 's')
				(void)va_arg(aq, const wchar_t *);
			else
				(void)va_arg(aq, wint_t);
			rc = 0;
		} else if (conv == 's' || conv == 'c' || conv == 'm') {
			spec[sl++] = 's';
			spec[sl] = '\0';
			if (conv == 's') {
				rc = put_str(fp, spec, va_arg(aq, const char *), has_prec ? prec : -1);
			} else if (conv == 'm') {
				rc = put_str(fp, spec, strerror(err), -1);
			} else {
				char ch[2] = { (char)va_arg(aq, int), '\0' };
				rc = put_str(fp, spec, ch, -1);
			}
		} else if (conv == '%') {
			rc = fputc('%', fp) == EOF ? -1 : 1;
		} else {
			/* Numbers and pointers carry no text: printed by the C library. */
			if (has_prec && prec >= 0)
				sl += (size_t)snprintf(spec + sl, sizeof(spec) - sl, ".%d", prec);
			size_t ll = (size_t)(q - len_at);   /* the length modifier and conv */
			if (sl + ll + 1 >= sizeof(spec))
				goto fail;
			memcpy(spec + sl, len_at, ll);
			sl += ll;
			spec[sl] = '\0';
			ll--;
			bool l1 = ll == 1 && len_at[0] == 'l';
			bool l2 = (ll == 2 && len_at[0] == 'l') || (ll == 1 && len_at[0] == 'q');
			char z = ll == 1 ? len_at[0] : 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			switch (conv) {
			case 'd': case 'i':
				if (l2)
					rc = fprintf(fp, spec, va_arg(aq, long long));
				else if (l1 || z == 'j' || z == 'z' || z == 't')
					rc = fprintf(fp, spec, va_arg(aq, long));
				else
					rc = fprintf(fp, spec, va_arg(aq, int));
				break;
			case 'o': case 'u': case 'x': case 'X':
				if (l2)
					rc = fprintf(fp, spec, va_arg(aq, unsigned long long));
				else if (l1 || z == 'j' || z == 'z' || z == 't')
					rc = fprintf(fp, spec, va_arg(aq, unsigned long));
				else
					rc = fprintf(fp, spec, va_arg(aq, unsigned));
				break;
			case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
				if (z == 'L')
					rc = fprintf(fp, spec, va_arg(aq, long double));
				else
					rc = fprintf(fp, spec, va_arg(aq, double));
				break;
			case 'p':
				rc = fprintf(fp, spec, va_arg(aq, void *));
				break;
			default:
				/* %n and anything unknown: nothing written, nothing read. */
				rc = 0;
				break;
			}
#pragma GCC diagnostic pop
		}
		if (rc < 0)
			goto fail;
		total += rc;
		p = q;
	}
	va_end(aq);
	return total;
fail:
	va_end(aq);
	return -1;
}

int fab_fprintf(FILE *fp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = fab_vfprintf(fp, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- shell quoting ---- */

static bool shell_safe(const char *w)
{
	if (!*w)
		return false;
	for (const char *p = w; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("_@%+=:,./-", *p)))
			return false;
	return true;
}

char *fab_shq(const char *s, char *buf, size_t len)
{
	if (len < 3) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	if (!s)
		s = "";
	if (shell_safe(s) && strlen(s) < len) {
		memcpy(buf, s, strlen(s) + 1);
		return buf;
	}
	size_t o = 0;
	buf[o++] = '\'';
	for (const char *p = s; *p; p++) {
		size_t need = *p == '\'' ? 4 : 1;
		if (o + need + 2 > len)   /* the closing quote and the NUL */
			break;
		if (*p == '\'') {
			memcpy(buf + o, "'\\''", 4);
		} else {
			buf[o] = *p;
		}
		o += need;
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}
