/* util.c - parsers for the kernel's text formats; pure functions. */
#define _GNU_SOURCE 1   /* dl_iterate_phdr() */
#include <elf.h>
#include <link.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include "fabtop/sanitize.h"
#include "fabtop/util.h"

void fab_strlcpy(char *dst, const char *src, size_t len)
{
	if (!len)
		return;
	size_t n = src ? strnlen(src, len - 1) : 0;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

struct build_id_walk {
	char *buf;
	size_t len;
};

/* The main program is the first object dl_iterate_phdr() reports. */
static int build_id_note(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct build_id_walk *w = arg;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
			const unsigned char *name = p + sizeof(*nh);
			const unsigned char *desc = name + ((nh->n_namesz + 3u) & ~3u);
			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0) {
				size_t o = 0;
				for (unsigned j = 0; j < nh->n_descsz && o + 3 <= w->len; j++)
					o += (size_t)snprintf(w->buf + o, w->len - o, "%02x", desc[j]);
				return 1;
			}
			p = desc + ((nh->n_descsz + 3u) & ~3u);
		}
	}
	return 1;
}

void fab_build_id(char *buf, size_t len)
{
	static char cached[2 * 64 + 1];
	static bool done;
	if (!done) {
		struct build_id_walk w = { cached, sizeof(cached) };
		dl_iterate_phdr(build_id_note, &w);
		done = true;
	}
	fab_strlcpy(buf, cached, len);
}

/* Appends the components of p to out (ol bytes long), folded. */
static int fold_into(const char *p, char *out, size_t len, size_t *ol)
{
	for (;;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n == 0)
			return 0;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (*ol == 0)
				return -EXDEV;
			while (*ol > 0 && out[--*ol] != '/')
				;
			out[*ol] = '\0';
		} else if (!(n == 1 && p[0] == '.')) {
			if (*ol + 1 + n >= len)
				return -ENAMETOOLONG;
			out[(*ol)++] = '/';
			memcpy(out + *ol, p, n);
			*ol += n;
			out[*ol] = '\0';
		}
		p += n;
	}
}

int fab_path_fold(const char *base, const char *rel, char *out, size_t len)
{
	size_t ol = 0;
	if (len < 2)
		return -ENAMETOOLONG;
	out[0] = '\0';
	int rc = fold_into(base, out, len, &ol);
	if (rc == 0)
		rc = fold_into(rel, out, len, &ol);
	if (rc == 0 && ol == 0)
		strcpy(out, "/");
	return rc;
}

const char *fab_base_name(const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	const char *b = path + n;
	while (b > path && b[-1] != '/')
		b--;
	return b;
}

bool fab_bdf_same_slot(const char *a, const char *b)
{
	const char *da = strrchr(a, '.'), *db = strrchr(b, '.');
	return da && db && da - a == db - b && strncmp(a, b, (size_t)(da - a)) == 0;
}

int fab_bdf_function(const char *bdf)
{
	const char *dot = strrchr(bdf, '.');
	return dot && dot[1] >= '0' && dot[1] <= '7' && !dot[2] ? dot[1] - '0' : -1;
}

void fab_catf(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strnlen(buf, len);
	if (n + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

bool fab_parse_ll(const char *s, long long *out)
{
	char *end;
	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	errno = 0;
	long long v = strtoll(s, &end, 0);
	if (errno || end == s)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	*out = v;
	return true;
}

/* Leading decimal number of s, with the rest left in *end. */
static bool lead_double(const char *s, double *v, const char **end)
{
	char *e;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtod(s, &e);
	if (errno || e == s)
		return false;
	*end = e;
	return true;
}

/* "<number> <unit>..." with the number in [lo, hi]. */
static bool number_with_unit(const char *s, const char *unit, double lo, double hi, double *out)
{
	const char *end;
	double v;
	if (!s || !lead_double(s, &v, &end))
		return false;
	while (*end == ' ')
		end++;
	if (strncmp(end, unit, strlen(unit)) != 0 || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

bool fab_parse_gts(const char *s, double *out)
{
	return number_with_unit(s, "GT/s", 0.1, 1000, out);
}

bool fab_parse_enum_line(const char *s, long long *num, char *word, size_t wlen)
{
	char *end;
	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end != ':')
		return false;
	end++;
	while (isspace((unsigned char)*end))
		end++;
	size_t n = strcspn(end, "\r\n");
	while (n && isspace((unsigned char)end[n - 1]))
		n--;
	if (n == 0 || n >= wlen)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isprint((unsigned char)end[i]))
			return false;
	memcpy(word, end, n);
	word[n] = '\0';
	*num = v;
	return true;
}

bool fab_parse_rate(const char *s, double *gbps)
{
	return number_with_unit(s, "Gb/sec", 0, 100000, gbps);
}

int fab_cpulist_count(const char *s)
{
	int count = 0;
	if (!s)
		return -1;
	while (*s && *s != '\n') {
		char *end;
		if (!isdigit((unsigned char)*s))
			return -1;
		long a = strtol(s, &end, 10), b = a;
		s = end;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -1;
			b = strtol(s, &end, 10);
			s = end;
		}
		if (b < a || b - a > 1 << 20)
			return -1;
		count += (int)(b - a + 1);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return count;
}

bool fab_is_text(const char *s, size_t len)
{
	/* What the sanitiser would escape is not text, line ends aside: a C1
	 * byte (0x9b is CSI) or broken UTF-8 as much as a C0 control. */
	char out[FAB_SAN_MAX];
	size_t ol;
	bool esc;
	while (len) {
		size_t n = fab_san_next(s, len, out, &ol, &esc);
		if (esc && *s != '\n' && *s != '\t' && *s != '\r')
			return false;
		s += n;
		len -= n;
	}
	return true;
}

const char *fab_int_str(fab_int v, char *buf, size_t len)
{
	if (v.ok)
		snprintf(buf, len, "%lld", v.v);
	else
		snprintf(buf, len, "N/A");
	return buf;
}

bool fab_parse_rate_width(const char *s, int *width, char *speed, size_t slen)
{
	double g;
	const char *p;
	char *end;
	if (!fab_parse_rate(s, &g) || !(p = strchr(s, '(')))
		return false;
	p++;
	if (!isdigit((unsigned char)*p))
		return false;
	errno = 0;
	long w = strtol(p, &end, 10);
	if (errno || *end != 'X' || (w != 1 && w != 2 && w != 4 && w != 8 && w != 12))
		return false;
	p = end + 1;
	size_t n = 0;
	if (*p == ' ') {
		p++;
		n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
		if (n == 0 || n >= slen || n >= 8)
			return false;
	}
	if (p[n] != ')')
		return false;
	memcpy(speed, p, n);
	speed[n] = '\0';
	*width = (int)w;
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool fab_parse_gid(const char *s, unsigned char raw[16])
{
	if (!s)
		return false;
	for (int g = 0; g < 8; g++) {
		unsigned v = 0;
		for (int k = 0; k < 4; k++) {
			int h = hexval(*s++);
			if (h < 0)
				return false;
			v = v << 4 | (unsigned)h;
		}
		raw[2 * g] = (unsigned char)(v >> 8);
		raw[2 * g + 1] = (unsigned char)v;
		if (g < 7 && *s++ != ':')
			return false;
	}
	while (*s == '\n' || *s == ' ')
		s++;
	return *s == '\0';
}

bool fab_gid_is_zero(const unsigned char raw[16])
{
	for (int i = 0; i < 16; i++)
		if (raw[i])
			return false;
	return true;
}

void fab_gid_ip(const unsigned char raw[16], bool roce, char *ip, size_t len, bool *ipv4)
{
	static const unsigned char v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	char buf[INET6_ADDRSTRLEN];
	*ipv4 = false;
	ip[0] = '\0';
	if (!roce)
		return;   /* an IB GID is a subnet prefix and a port GUID, not an address */
	if (memcmp(raw, v4mapped, sizeof(v4mapped)) == 0) {
		if (inet_ntop(AF_INET, raw + 12, buf, sizeof(buf))) {
			fab_strlcpy(ip, buf, len);
			*ipv4 = true;
		}
		return;
	}
	if (inet_ntop(AF_INET6, raw, buf, sizeof(buf)))
		fab_strlcpy(ip, buf, len);
}

int fab_roce_mtu(long long netdev_mtu)
{
	long long mtu = netdev_mtu - FAB_ROCE_MTU_OVERHEAD;
	for (int m = 4096; m >= 256; m /= 2)
		if (mtu >= m)
			return m;
	return 0;
}

bool fab_parse_prio_mask(const char *s, long long *mask)
{
	long long m = 0;
	int n = 0;
	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	size_t tok = strcspn(s, " \t,\n");
	const char *rest = s + tok;
	while (isspace((unsigned char)*rest))
		rest++;
	if (tok && !*rest) {
		/* One token: a hex mask of eight priorities. */
		char *end;
		errno = 0;
		long v = strtol(s, &end, 16);
		while (isspace((unsigned char)*end))
			end++;
		if (errno || end == s || *end || v < 0 || v > 0xff)
			return false;
		*mask = v;
		return true;
	}
	while (*s) {
		if ((*s != '0' && *s != '1') || n >= 8)
			return false;
		if (*s == '1')
			m |= 1LL << n;
		n++;
		s++;
		while (isspace((unsigned char)*s))
			s++;
		if (*s == ',') {
			s++;
			while (isspace((unsigned char)*s))
				s++;
			if (!*s)
				return false;
		}
	}
	if (n != 8)
		return false;
	*mask = m;
	return true;
}

bool fab_parse_flag(const char *s, bool *on)
{
	long long v;
	if (!fab_parse_ll(s, &v) || (v != 0 && v != 1))
		return false;
	*on = v == 1;
	return true;
}

bool fab_parse_trust(const char *s, char *out, size_t len)
{
	if (!s)
		return false;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	size_t b = n;
	while (b && !isspace((unsigned char)s[b - 1]) && s[b - 1] != ':')
		b--;
	const char *w = s + b;
	size_t wl = n - b;
	const char *word = wl == 3 && !strncasecmp(w, "pcp", 3) ? "pcp" :
			   wl == 4 && !strncasecmp(w, "dscp", 4) ? "dscp" : NULL;
	if (!word)
		return false;
	fab_strlcpy(out, word, len);
	return true;
}

/* One attribute list (after the netlink header): the netns mode, if there. */
static int rdma_sys_attrs(const unsigned char *p, size_t len, char *mode, size_t mlen)
{
	while (len >= NLA_HDRLEN) {
		struct nlattr a;
		memcpy(&a, p, sizeof(a));   /* the buffer may not be aligned */
		if (a.nla_len < NLA_HDRLEN || a.nla_len > len)
			return -EBADMSG;
		if ((a.nla_type & NLA_TYPE_MASK) == RDMA_NLDEV_SYS_ATTR_NETNS_MODE) {
			if (a.nla_len < NLA_HDRLEN + 1)
				return -EBADMSG;
			unsigned char v = p[NLA_HDRLEN];
			if (v > 1)
				return -EBADMSG;
			fab_strlcpy(mode, v ? "shared" : "exclusive", mlen);
			return 0;
		}
		size_t step = NLA_ALIGN(a.nla_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return -ENOENT;
}

int fab_parse_rdma_sys(const void *buf, size_t len, char *mode, size_t mlen)
{
	const unsigned char *p = buf;
	const unsigned want = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET);
	if (!p)
		return -EBADMSG;
	while (len >= NLMSG_HDRLEN) {
		struct nlmsghdr h;
		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len)
			return -EBADMSG;
		const unsigned char *body = p + NLMSG_HDRLEN;
		size_t blen = h.nlmsg_len - NLMSG_HDRLEN;
		if (h.nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr e;
			if (blen < sizeof(e.error))
				return -EBADMSG;
			memcpy(&e.error, body, sizeof(e.error));
			if (e.error < 0)
				return e.error;   /* e.g. -EOPNOTSUPP: a kernel before 5.2 */
		} else if (h.nlmsg_type == NLMSG_DONE) {
			return -ENOENT;
		} else if (h.nlmsg_type == want) {
			int rc = rdma_sys_attrs(body, blen, mode, mlen);
			if (rc != -ENOENT)
				return rc;
		}
		size_t step = NLMSG_ALIGN(h.nlmsg_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return -ENOENT;
}

int fab_exe_dir(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (l <= 0)
		return -1;
	exe[l] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	fab_strlcpy(buf, exe, len);
	return 0;
}
