/* hazard.c - RDMA devices whose counters must not be read (hazard.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "fabtop/hazard.h"
#include "fabtop/model.h"
#include "fabtop/util.h"

/* PCI VPD can address at most 32 KiB (15-bit addresses). */
#define VPD_MAX 32768

#define TAG_ID   0x82
#define TAG_RO   0x90
#define TAG_RW   0x91
#define TAG_END  0x78

/* "SMDL=SW_MNG" as a whole token: bounded by the value's ends or by the
 * separators Mellanox uses inside [VA] ("MLX:MN=MLNX:CSKU=V2:..."). */
static bool is_sep(unsigned char c)
{
	return c == ':' || c == ' ' || c == ',' || c == ';' || c == '\0';
}

static bool has_sw_mng(const unsigned char *v, size_t n)
{
	static const char tok[] = "SMDL=SW_MNG";
	size_t t = sizeof(tok) - 1;
	for (size_t i = 0; i + t <= n; i++)
		if (memcmp(v + i, tok, t) == 0 && (i == 0 || is_sep(v[i - 1])) &&
		    (i + t == n || is_sep(v[i + t])))
			return true;
	return false;
}

/* Keyword records of a VPD-R or VPD-W resource: 2 + 1 + length bytes each. */
static int parse_fields(const unsigned char *p, size_t n, struct hazard_vpd *out)
{
	size_t i = 0;
	while (i < n) {
		if (n - i < 3)
			return -1;          /* a record header cut short */
		size_t flen = p[i + 2];
		if (flen > n - i - 3)
			return -1;          /* its value runs past the resource */
		out->nfields++;
		/* RV (checksum) and RW (free space) carry no text. */
		if (!(p[i] == 'R' && (p[i + 1] == 'V' || p[i + 1] == 'W')) &&
		    has_sw_mng(p + i + 3, flen))
			out->sw_mng = true;
		i += 3 + flen;
	}
	return 0;
}

int hazard_vpd_parse(const unsigned char *buf, size_t len, struct hazard_vpd *out)
{
	memset(out, 0, sizeof(*out));
	size_t i = 0;
	if (!buf)
		return -1;
	while (i < len) {
		unsigned char tag = buf[i];
		if (tag == TAG_END) {
			out->ended = true;
			return 0;
		}
		if (!(tag & 0x80))
			return -1;          /* another small resource: not what VPD holds */
		if (len - i < 3)
			return -1;
		size_t rlen = (size_t)buf[i + 1] | (size_t)buf[i + 2] << 8;
		const unsigned char *d = buf + i + 3;
		if (rlen > len - i - 3) {
			/* Runs past the bytes we have: keep what its whole records say. */
			if (tag == TAG_RO || tag == TAG_RW)
				parse_fields(d, len - i - 3, out);
			return -1;
		}
		if (tag == TAG_ID) {
			size_t k = 0;
			for (; k < rlen && k + 1 < sizeof(out->name); k++)
				out->name[k] = d[k] >= 0x20 && d[k] < 0x7f ? (char)d[k] : '?';
			out->name[k] = '\0';
			if (has_sw_mng(d, rlen))
				out->sw_mng = true;
		} else if (tag == TAG_RO || tag == TAG_RW) {
			if (parse_fields(d, rlen, out) != 0)
				return -1;
		} else {
			return -1;          /* 0xff (no VPD: all ones) or an unknown tag */
		}
		i += 3 + rlen;
	}
	return -1;                          /* no end tag */
}

/* --- the exclusion list ------------------------------------------------- */

static const char *excluded_csv;

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

bool hazard_exclude_valid(const char *csv)
{
	if (!csv || !*csv)
		return false;
	size_t run = 0;
	for (const char *s = csv; ; s++) {
		if (*s == ',' || *s == '\0') {
			if (run == 0 || run > 63)
				return false;
			if (!*s)
				return true;
			run = 0;
		} else if (!name_char(*s)) {
			return false;
		} else {
			run++;
		}
	}
}

void hazard_exclude_set(const char *csv)
{
	excluded_csv = csv;
}

bool hazard_exclude_any(void)
{
	return excluded_csv && *excluded_csv;
}

bool hazard_excluded(const char *dev)
{
	size_t n = dev ? strlen(dev) : 0;
	if (!excluded_csv || !n)
		return false;
	for (const char *s = excluded_csv; *s; ) {
		const char *e = strchr(s, ',');
		size_t k = e ? (size_t)(e - s) : strlen(s);
		if (k == n && strncmp(s, dev, n) == 0)
			return true;
		if (!e)
			break;
		s = e + 1;
	}
	return false;
}

/* --- the judgement ------------------------------------------------------ */

/* Reads the VPD through the root: bytes read, or -errno. */
static ssize_t read_vpd(const struct fab_root *r, const char *path, unsigned char *buf,
			size_t len)
{
	int fd = root_open_fd(r, path, 0);
	if (fd < 0)
		return fd;
	size_t got = 0;
	while (got < len) {
		ssize_t k = read(fd, buf + got, len - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	return (ssize_t)got;
}

static void say(char *why, size_t len, const char *fmt, const char *a, const char *b)
{
	if (why && len)
		snprintf(why, len, fmt, a, b);
}

#define SW_MNG_WHY "its PCI VPD says SMDL=SW_MNG: an NVSwitch management function " \
	"(DGX/HGX B200), whose counter reads flood dmesg with mlx5_cmd_out_err ACCESS_REG failures"

/* A capture's record: fabtop/hazards.json {"skipped": {"mlx5_0": "why"}}. */
static bool captured_skip(const struct fab_root *r, const char *dev, char *why, size_t len)
{
	if (!root_exists(r, "/fabtop/hazards.json"))
		return false;
	json_error_t je;
	json_t *doc = root_load_json(r, "/fabtop/hazards.json", &je);
	const char *w = json_string_value(json_object_get(json_object_get(doc, "skipped"), dev));
	if (w)
		say(why, len, "%s%s", "not read when captured: ", w);
	json_decref(doc);
	return w != NULL;
}

enum hazard_verdict hazard_counters(const struct fab_root *r, const char *dev,
				    char *why, size_t len)
{
	if (why && len)
		why[0] = '\0';
	if (!dev || !*dev || strchr(dev, '/') || strcmp(dev, "..") == 0 || strcmp(dev, ".") == 0)
		return HAZARD_READ;     /* not a device name: nothing to read under it either */
	bool named = hazard_excluded(dev);
	/* Captures hold no VPD: what the capture decided comes first. */
	if (!r->live && captured_skip(r, dev, why, len))
		return HAZARD_SKIP;
	char path[FAB_PATH_LEN];
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/vpd", dev);
	unsigned char *buf = malloc(VPD_MAX);
	ssize_t n = buf ? read_vpd(r, path, buf, VPD_MAX) : -ENOMEM;
	struct hazard_vpd v;
	if (n >= 0) {
		int rc = hazard_vpd_parse(buf, (size_t)n, &v);
		free(buf);
		if (v.sw_mng) {
			say(why, len, "%s%s", SW_MNG_WHY, "");
			return HAZARD_SKIP;
		}
		if (named) {
			say(why, len, "%s%s", "named by --exclude-dev", "");
			return HAZARD_SKIP;
		}
		if (rc != 0 && n > 0) {
			say(why, len, "its PCI VPD (%s) is not well formed: whether it is an NVSwitch "
			    "management function (SMDL=SW_MNG) is unknown; --exclude-dev %s leaves its "
			    "counters alone", path, dev);
			return HAZARD_UNKNOWN;
		}
		return HAZARD_READ;     /* no VPD at all (n == 0) is no management function */
	}
	free(buf);
	if (n == -ENOENT && !named)
		return HAZARD_READ;     /* no VPD capability (a VF, a soft device) */
	char e[160];
	snprintf(e, sizeof(e), "%s: %s", path, root_strerror((int)-n));
	if (named) {
		say(why, len, "named by --exclude-dev (its PCI VPD %s)", e, "");
		return HAZARD_SKIP;
	}
	say(why, len, "its PCI VPD is unreadable (%s): whether it is an NVSwitch management "
	    "function (SMDL=SW_MNG) is unknown; --exclude-dev %s leaves its counters alone", e, dev);
	return HAZARD_UNKNOWN;
}
