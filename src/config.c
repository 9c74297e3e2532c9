/* config.c - the user's settings (config.h): the file read as untrusted
 * input, and written back atomically beside itself. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fabtop/config.h"
#include "fabtop/userfile.h"
#include "fabtop/i18n.h"
#include "fabtop/view.h"

#define LINE_MAX_LEN 512     /* a longer line is not a setting */

static const struct fab_config defaults = { .interval = 1.0, .theme = CFG_THEME_DARK,
					    .pane = "topology", .mouse = true };
static struct fab_config current = { .interval = 1.0, .theme = CFG_THEME_DARK,
				     .pane = "topology", .mouse = true };
static char error[512];
static int nproblems;        /* found by the last load, the first in error[] */

static const char *const theme_names[] = {
	[CFG_THEME_DARK] = "dark", [CFG_THEME_LIGHT] = "light", [CFG_THEME_MONO] = "mono",
};
static const double steps[] = { 0.25, 0.5, 1, 2, 5, 10, 30, 60 };
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

const struct fab_config *cfg_get(void)
{
	return &current;
}

const char *cfg_error(void)
{
	return error;
}

void cfg_defaults(struct fab_config *c)
{
	*c = defaults;
}

const char *cfg_theme_name(enum cfg_theme t)
{
	return (unsigned)t < sizeof(theme_names) / sizeof(theme_names[0]) ? theme_names[t] : "?";
}

bool cfg_pane_known(const char *name)
{
	for (int i = 0; i < fab_npanes; i++)
		if (strcmp(fab_panes[i]->name, name) == 0)
			return true;
	return false;
}

double cfg_interval_step(double cur, int dir)
{
	if (dir > 0) {
		for (size_t i = 0; i < NSTEPS; i++)
			if (steps[i] > cur + 1e-9)
				return steps[i];
		return steps[NSTEPS - 1];
	}
	for (size_t i = NSTEPS; i-- > 0;)
		if (steps[i] < cur - 1e-9)
			return steps[i];
	return steps[0];
}

const char *cfg_interval_text(double s, char *buf, size_t len)
{
	/* Milliseconds as integers: printf's %g would write the locale's
	 * decimal point ("0,25"), which the file must not depend on. */
	long ms = lround(s * 1000.0);
	snprintf(buf, len, "%ld.%03ld", ms / 1000, ms % 1000);
	char *dot = strchr(buf, '.');
	if (dot) {
		char *end = buf + strlen(buf);
		while (end > dot + 1 && end[-1] == '0')
			*--end = '\0';
		if (end == dot + 1)
			*dot = '\0';
	}
	return buf;
}

void cfg_set(const struct fab_config *c)
{
	struct fab_config n = *c;
	if (!(n.interval >= CFG_INTERVAL_MIN))   /* NaN too */
		n.interval = CFG_INTERVAL_MIN;
	if (n.interval > CFG_INTERVAL_MAX)
		n.interval = CFG_INTERVAL_MAX;
	if ((unsigned)n.theme > CFG_THEME_MONO)
		n.theme = current.theme;
	n.pane[sizeof(n.pane) - 1] = '\0';
	if (!cfg_pane_known(n.pane))
		memcpy(n.pane, current.pane, sizeof(n.pane));
	current = n;
}

int cfg_path(char *buf, size_t len)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	int n;
	/* The XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored. */
	if (x && x[0] == '/')
		n = snprintf(buf, len, "%s/fabtop/config", x);
	else if (h && h[0] == '/')
		n = snprintf(buf, len, "%s/.config/fabtop/config", h);
	else
		return -1;
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* ---- reading ----------------------------------------------------------- */

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...)
{
	if (nproblems++)
		return;   /* the first one is said; the count says the rest */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(error, sizeof(error), fmt, ap);
	va_end(ap);
}

/* The file's bytes into a buffer (NUL-terminated, *len without it): a
 * regular file of at most CFG_MAX_BYTES. O_NONBLOCK so that a FIFO planted
 * there does not hang the console at start; the type is checked on the
 * descriptor, so nothing can be swapped in between. 0; 1 when it does not
 * exist; -1 with error[] set. */
/* 0 and the file, 1 when there is none, -1 said in error[]. A settings
 * file may be a link (dotfiles are); it is read as outside input. */
static int read_file(const char *path, char **out, size_t *len)
{
	if (fab_user_read(path, CFG_MAX_BYTES, true, out, len) == 0)
		return 0;
	if (errno == ENOENT || errno == ENOTDIR)
		return 1;
	if (errno == EINVAL)
		snprintf(error, sizeof(error),
			 _("the settings file %s is not a regular file: it was not read"), path);
	else if (errno == EFBIG)
		snprintf(error, sizeof(error),
			 _("the settings file %s is larger than %d KiB: it was not read"), path,
			 CFG_MAX_BYTES / 1024);
	else
		snprintf(error, sizeof(error), _("cannot read the settings file %s: %s"), path,
			 strerror(errno));
	return -1;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* Seconds as the file writes them: digits, at most one '.', an optional
 * "s"; parsed by hand, so the locale's decimal point does not matter. */
static bool parse_secs(const char *v, double *out)
{
	double x = 0, scale = 1;
	bool digits = false, dot = false;
	const char *p = v;
	for (; *p; p++) {
		if (*p >= '0' && *p <= '9') {
			if (dot) {
				scale /= 10;
				x += (*p - '0') * scale;
			} else {
				x = x * 10 + (*p - '0');
			}
			digits = true;
			if (x > 1e6)
				return false;
		} else if (*p == '.' && !dot) {
			dot = true;
		} else {
			break;
		}
	}
	if (*p == 's')
		p++;
	if (!digits || *p)
		return false;
	*out = x;
	return true;
}

static int parse_bool(const char *v)
{
	static const char *const yes[] = { "yes", "true", "on", "1" }, *const no[] = { "no", "false", "off", "0" };
	for (size_t i = 0; i < 4; i++) {
		if (strcmp(v, yes[i]) == 0)
			return 1;
		if (strcmp(v, no[i]) == 0)
			return 0;
	}
	return -1;
}

enum cfg_key { K_NONE = -1, K_INTERVAL, K_THEME, K_PANE, K_MOUSE, K_N };
static const char *const key_names[K_N] = { "interval", "theme", "pane", "mouse" };

static enum cfg_key key_of(const char *k)
{
	for (int i = 0; i < K_N; i++)
		if (strcmp(k, key_names[i]) == 0)
			return (enum cfg_key)i;
	return K_NONE;
}

/* One line "key = value" (comments and blank lines already skipped): into
 * c, or a problem said with the line's number. The file is outside input:
 * what is quoted from it is cut short, and the status bar escapes it. */
static void parse_line(struct fab_config *c, const char *path, int no, char *line)
{
	char *eq = strchr(line, '=');
	if (!eq) {
		problem(_("%s line %d: not \"key = value\": ignored"), path, no);
		return;
	}
	*eq = '\0';
	char *k = trim(line), *v = eq + 1;
	char *hash = strchr(v, '#');   /* "interval = 2  # seconds" */
	if (hash)
		*hash = '\0';
	v = trim(v);
	enum cfg_key key = key_of(k);
	double secs;
	int b;
	switch (key) {
	case K_NONE:
		problem(_("%s line %d: unknown key \"%.32s\": ignored"), path, no, k);
		return;
	case K_INTERVAL:
		if (parse_secs(v, &secs) && secs >= CFG_INTERVAL_MIN && secs <= CFG_INTERVAL_MAX) {
			c->interval = secs;
			return;
		}
		break;
	case K_THEME:
		for (int t = CFG_THEME_DARK; t <= CFG_THEME_MONO; t++)
			if (strcmp(v, theme_names[t]) == 0) {
				c->theme = (enum cfg_theme)t;
				return;
			}
		break;
	case K_PANE:
		if (strlen(v) < sizeof(c->pane) && cfg_pane_known(v)) {
			snprintf(c->pane, sizeof(c->pane), "%s", v);
			return;
		}
		break;
	case K_MOUSE:
		if ((b = parse_bool(v)) >= 0) {
			c->mouse = b;
			return;
		}
		break;
	case K_N:
		break;
	}
	static const char *const want[K_N] = {
		N_("seconds from 0.25 to 60"), N_("dark, light or mono"),
		N_("a pane's name"), N_("yes or no"),
	};
	problem(_("%s line %d: %s = \"%.32s\" is not valid (%s): the default is kept"), path, no,
		key_names[key], v, _(want[key]));
}

/* Splits buf into lines and calls fn on each, with its number. */
static void each_line(char *buf, size_t len, void (*fn)(void *arg, int no, char *line, size_t n),
		      void *arg)
{
	int no = 0;
	char *p = buf, *end = buf + len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		no++;
		fn(arg, no, p, n);
		p += n + 1;
	}
}

struct load_arg {
	struct fab_config *c;
	const char *path;
};

static void load_line(void *arg, int no, char *line, size_t n)
{
	struct load_arg *a = arg;
	char copy[LINE_MAX_LEN + 1];
	if (memchr(line, '\0', n)) {
		problem(_("%s line %d: a NUL byte: ignored"), a->path, no);
		return;
	}
	if (n > LINE_MAX_LEN) {
		problem(_("%s line %d: longer than %d bytes: ignored"), a->path, no, LINE_MAX_LEN);
		return;
	}
	memcpy(copy, line, n);
	copy[n] = '\0';
	char *s = trim(copy);
	if (!*s || *s == '#')
		return;
	parse_line(a->c, a->path, no, s);
}

int cfg_load(const char *path)
{
	char where[4096], *buf;
	size_t len;
	error[0] = '\0';
	nproblems = 0;
	current = defaults;
	if (!path) {
		if (cfg_path(where, sizeof(where)) != 0)
			return 0;   /* no HOME: nothing to read, the defaults hold */
		path = where;
	}
	int rc = read_file(path, &buf, &len);
	if (rc)
		return rc > 0 ? 0 : -1;
	struct fab_config c = defaults;
	struct load_arg a = { .c = &c, .path = path };
	each_line(buf, len, load_line, &a);
	free(buf);
	current = c;
	if (nproblems > 1) {
		size_t n = strlen(error);
		snprintf(error + n, sizeof(error) - n,
			 P_(" (and %d more problem)", " (and %d more problems)", (unsigned long)(nproblems - 1)),
			 nproblems - 1);
	}
	return nproblems ? -1 : 0;
}

/* ---- writing ----------------------------------------------------------- */

struct out {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void out_add(struct out *o, const char *s, size_t n)
{
	if (o->failed)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = (o->len + n + 1) * 2;
		char *b = realloc(o->buf, cap);
		if (!b) {
			o->failed = true;
			return;
		}
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void key_line(struct out *o, const struct fab_config *c, enum cfg_key k)
{
	char line[96], num[32];
	const char *v = "";
	switch (k) {
	case K_INTERVAL: v = cfg_interval_text(c->interval, num, sizeof(num)); break;
	case K_THEME:    v = cfg_theme_name(c->theme); break;
	case K_PANE:     v = c->pane; break;
	case K_MOUSE:    v = c->mouse ? "yes" : "no"; break;
	default:         return;
	}
	int n = snprintf(line, sizeof(line), "%s = %s\n", key_names[k], v);
	out_add(o, line, (size_t)n);
}

struct save_arg {
	struct out *o;
	const struct fab_config *c;
	bool done[K_N];
};

/* A line of the old file: a known key's line gets its new value (the
 * first time; a repeat goes), everything else stays as it was. */
static void save_line(void *arg, int no, char *line, size_t n)
{
	struct save_arg *a = arg;
	char copy[LINE_MAX_LEN + 1];
	(void)no;
	if (n <= LINE_MAX_LEN && !memchr(line, '\0', n)) {
		memcpy(copy, line, n);
		copy[n] = '\0';
		char *s = trim(copy), *eq = strchr(s, '=');
		if (*s && *s != '#' && eq) {
			*eq = '\0';
			enum cfg_key k = key_of(trim(s));
			if (k != K_NONE) {
				if (!a->done[k])
					key_line(a->o, a->c, k);
				a->done[k] = true;
				return;
			}
		}
	}
	out_add(a->o, line, n);
	out_add(a->o, "\n", 1);
}

/* The directory the file goes in, made 0700 when missing (and its parent,
 * ~/.config, the same way): an fd on it, or -1 with error[] set. It must
 * belong to us and be writable by nobody else, or someone else could
 * swap the file between our write and our rename. */
int cfg_save(const struct fab_config *c, const char *path)
{
	char where[4096], dir[4096];
	error[0] = '\0';
	cfg_set(c);
	if (!path) {
		if (cfg_path(where, sizeof(where)) != 0) {
			snprintf(error, sizeof(error),
				 _("neither XDG_CONFIG_HOME nor HOME is set: the settings were not saved"));
			return -1;
		}
		path = where;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if (!*base) {
		snprintf(error, sizeof(error), _("%s names no file: the settings were not saved"), path);
		return -1;
	}

	/* The old file's lines, with the known keys' values replaced. A file
	 * that cannot be read (too big, not regular) is not kept: the new one
	 * replaces it. */
	struct out o = { 0 };
	struct save_arg a = { .o = &o, .c = &current };
	char *old = NULL;
	size_t oldlen = 0;
	int nerr = nproblems;
	if (read_file(path, &old, &oldlen) < 0)
		error[0] = '\0';
	nproblems = nerr;
	if (old) {
		each_line(old, oldlen, save_line, &a);
		free(old);
	} else {
		static const char head[] = "# fabtop settings (F2 in the console edits them; see fabtop(1))\n";
		out_add(&o, head, sizeof(head) - 1);
	}
	for (int k = 0; k < K_N; k++)
		if (!a.done[k])
			key_line(&o, &current, (enum cfg_key)k);
	if (o.failed) {
		free(o.buf);
		snprintf(error, sizeof(error), _("out of memory saving the settings"));
		return -1;
	}

	int rc = fab_user_write(dir, base, o.buf ? o.buf : "", o.len);
	if (rc != 0 && errno == EPERM)
		snprintf(error, sizeof(error),
			 _("the directory %s belongs to someone else or others can write to it: "
			   "the settings were not saved"), dir);
	else if (rc != 0)
		snprintf(error, sizeof(error), _("cannot replace %s: %s"), path, strerror(errno));
	free(o.buf);
	return rc;
}
