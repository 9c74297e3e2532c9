/*
 * nccl_log.c - streaming analysis of NCCL_DEBUG output (see nccl_log.h).
 *
 * Each line is copied (bounded) into one buffer, its NCCL level found, its
 * "host:pid" counted as a rank, and its message matched against the wordings
 * NCCL 2.10 to 2.28 use. Nothing of the log is kept but counters and the
 * first few of each list, so a log of any size runs in the same memory.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "fabtop/nccl_log.h"

#define RANK_SET_MAX (1u << 17)  /* slots; half full at most: 65536 ranks */

enum level { LVL_NONE, LVL_INFO, LVL_WARN, LVL_TRACE };

/* ---- small string helpers (all bounded, all NUL-terminated) ---- */

static const char *after(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* Copies at most len bytes of src, trimmed of spaces, into dst[size]. */
static void copy_trim(char *dst, size_t size, const char *src, size_t len)
{
	while (len && isspace((unsigned char)*src)) {
		src++;
		len--;
	}
	while (len && isspace((unsigned char)src[len - 1]))
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void copy_str(char *dst, size_t size, const char *src)
{
	copy_trim(dst, size, src, strlen(src));
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';  /* not isdigit(): no locale lookup per byte */
}

/* A decimal integer at s (optional sign); *end after it. */
static bool parse_ll(const char *s, long long *v, const char **end)
{
	char *e;
	if (!is_digit(*s) && !((*s == '-' || *s == '+') && is_digit(s[1])))
		return false;
	*v = strtoll(s, &e, 10);
	if (end)
		*end = e;
	return true;
}

/* The integer after the first occurrence of key in s. */
static bool ll_after(const char *s, const char *key, long long *v)
{
	const char *p = strstr(s, key);
	return p && parse_ll(p + strlen(key), v, NULL);
}

static unsigned long long hash_key(const char *s, size_t n)
{
	unsigned long long h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h ? h : 1;
}

/* ---- names ---- */

const char *nccl_verdict_name(enum nccl_verdict v)
{
	switch (v) {
	case NCCL_V_OK: return "ok";
	case NCCL_V_NO_GDR: return "no-gdr";
	case NCCL_V_SOCKET_FALLBACK: return "socket-fallback";
	case NCCL_V_SOCKET_BY_CONFIG: return "socket-by-config";
	case NCCL_V_IB_ERROR: return "ib-error";
	case NCCL_V_BOOTSTRAP_ERROR: return "bootstrap-error";
	case NCCL_V_INVALID_USAGE: return "invalid-usage";
	case NCCL_V_NCCL_ERROR: return "nccl-error";
	case NCCL_V_INCOMPLETE: return "incomplete";
	case NCCL_V_UNKNOWN: break;
	}
	return "unknown";
}

const char *nccl_verdict_hint(enum nccl_verdict v)
{
	switch (v) {
	case NCCL_V_OK: return "";
	case NCCL_V_NO_GDR:
		return "data is staged through host memory: load nvidia-peermem (or use DMA-BUF), "
		       "check the GPU-HCA PCIe distance and NCCL_NET_GDR_LEVEL";
	case NCCL_V_SOCKET_FALLBACK:
		return "RDMA was wanted but not used: check the HCA ports are ACTIVE (ibstat), "
		       "libibverbs and /dev/infiniband inside the container, NCCL_IB_HCA";
	case NCCL_V_SOCKET_BY_CONFIG:
		return "sockets were asked for: unset NCCL_IB_DISABLE / NCCL_NET=Socket to use RDMA";
	case NCCL_V_IB_ERROR:
		return "the RDMA path failed: check links, GID index (NCCL_IB_GID_INDEX), MTU, "
		       "the RoCE fabric and GPUDirect; a completion status 12 (retry exceeded) means "
		       "the peers cannot reach each other";
	case NCCL_V_BOOTSTRAP_ERROR:
		return "the TCP bootstrap failed: NCCL_SOCKET_IFNAME must name an interface that is up "
		       "on every node; check DNS, routes and the firewall";
	case NCCL_V_INVALID_USAGE:
		return "the job is set up wrongly (ranks per GPU, CUDA_VISIBLE_DEVICES, same NCCL "
		       "on every rank)";
	case NCCL_V_NCCL_ERROR: return "see the errors below";
	case NCCL_V_INCOMPLETE:
		return "the log stops without a result or an error: the job hung or the log was "
		       "cut; look at the last line";
	case NCCL_V_UNKNOWN: break;
	}
	return "no NCCL lines found: run the job with NCCL_DEBUG=INFO";
}

const char *nccl_coll_verdict_name(enum nccl_coll_verdict v)
{
	static const char *const names[] = {
		[NCCL_CV_OK] = "ok",
		[NCCL_CV_LOW] = "low-busbw",
		[NCCL_CV_WRONG] = "wrong-values",
		[NCCL_CV_INCOMPLETE] = "incomplete",
	};
	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "unknown";
}

int nccl_log_colls_done(const struct nccl_log *a)
{
	int n = 0;
	for (int i = 0; i < a->ncolls; i++)
		n += a->colls[i].avg_busbw.ok;
	return n;
}

const struct nccl_log_coll *nccl_log_coll_open(const struct nccl_log *a)
{
	for (int i = 0; i < a->ncolls; i++)
		if (!a->colls[i].avg_busbw.ok)
			return &a->colls[i];
	return NULL;
}

const char *nccl_coll_label(const struct nccl_log *a, int i, char *buf, size_t len)
{
	if (a->colls[i].name[0])
		return a->colls[i].name;
	snprintf(buf, len, "run %d", i + 1);
	return buf;
}

void nccl_coll_decide(struct nccl_log_coll *c)
{
	char peak[64] = "no row";
	if (c->peak_busbw.ok)
		snprintf(peak, sizeof(peak), "peak bus bandwidth %.2f GB/s at %lld B", c->peak_busbw.v,
			 c->peak_bytes);
	bool rated = c->line_gbs.ok && c->line_gbs.v > 0 && c->pct.ok;
	if (!c->avg_busbw.ok) {
		c->verdict = NCCL_CV_INCOMPLETE;
		if (c->nsizes)
			snprintf(c->reason, sizeof(c->reason), "no summary: stopped after the %lld-byte row",
				 c->sizes[c->nsizes - 1].bytes);
		else
			snprintf(c->reason, sizeof(c->reason), "no summary and no result row");
	} else if (c->oob_values.ok && c->oob_values.v > 0) {
		c->verdict = NCCL_CV_WRONG;
		snprintf(c->reason, sizeof(c->reason), "%lld wrong values (Out of bounds values)",
			 c->oob_values.v);
	} else if (rated && c->pct.v < FAB_LINE_SHARE_LOW * 100) {
		c->verdict = NCCL_CV_LOW;
		snprintf(c->reason, sizeof(c->reason), "%s is %.0f%% of the %.2f GB/s line rate per rank "
			 "(under %.0f%%)", peak, c->pct.v, c->line_gbs.v, FAB_LINE_SHARE_LOW * 100);
	} else if (rated) {
		c->verdict = NCCL_CV_OK;
		/* Above 100%: NVLink (NVLS, trees) carried part of the reduction. */
		snprintf(c->reason, sizeof(c->reason), "%s is %.0f%% of the %.2f GB/s line rate per rank%s",
			 peak, c->pct.v, c->line_gbs.v, c->pct.v > 100 ?
			 " (more than the NICs carry: NVLink did part of it)" : "");
	} else {
		c->verdict = NCCL_CV_OK;
		snprintf(c->reason, sizeof(c->reason), "%s; line rate unknown", peak);
	}
}

const char *nccl_outcome_name(enum nccl_outcome o)
{
	switch (o) {
	case NCCL_RUN_COMPLETED: return "completed";
	case NCCL_RUN_FAILED: return "failed";
	case NCCL_RUN_INCOMPLETE: return "incomplete";
	case NCCL_RUN_UNKNOWN: break;
	}
	return "unknown";
}

static const char *const kind_names[NCCL_E_COUNT] = {
	[NCCL_E_IBV_CALL] = "ibv-call-failed",
	[NCCL_E_COMPLETION] = "completion-error",
	[NCCL_E_TIMEOUT] = "connection-timed-out",
	[NCCL_E_IB_OTHER] = "ib-other",
	[NCCL_E_BOOTSTRAP] = "bootstrap-error",
	[NCCL_E_SOCKET] = "socket-error",
	[NCCL_E_INVALID_USAGE] = "invalid-usage",
	[NCCL_E_OOM] = "out-of-memory",
	[NCCL_E_CUDA] = "cuda-error",
	[NCCL_E_SYSTEM] = "system-error",
	[NCCL_E_INTERNAL] = "internal-error",
	[NCCL_E_REMOTE] = "remote-error",
	[NCCL_E_NET_INIT] = "net-init-failed",
	[NCCL_E_COLL_TIMEOUT] = "collective-timeout",
	[NCCL_E_OTHER] = "other",
};

const char *nccl_err_kind_name(enum nccl_err_kind k)
{
	return (unsigned)k < NCCL_E_COUNT ? kind_names[k] : "other";
}

const char *nccl_err_class_name(enum nccl_err_class c)
{
	switch (c) {
	case NCCL_C_IB: return "ib";
	case NCCL_C_BOOTSTRAP: return "bootstrap";
	case NCCL_C_USAGE: return "usage";
	case NCCL_C_OTHER: break;
	}
	return "other";
}

const char *nccl_gdr_name(enum nccl_gdr g)
{
	switch (g) {
	case NCCL_GDR_ON: return "on";
	case NCCL_GDR_OFF: return "off";
	case NCCL_GDR_PARTIAL: return "partial";
	case NCCL_GDR_UNKNOWN: break;
	}
	return "unknown";
}

const char *nccl_plugin_name(enum nccl_plugin p)
{
	switch (p) {
	case NCCL_PLUGIN_NONE: return "none";
	case NCCL_PLUGIN_LOADED: return "loaded";
	case NCCL_PLUGIN_FAILED: return "failed";
	case NCCL_PLUGIN_UNKNOWN: break;
	}
	return "unknown";
}

const char *nccl_warn_kind_name(enum nccl_warn_kind k)
{
	return k == NCCL_W_PLUGIN_FAILED ? "net-plugin-failed" : "not-fabric-interface";
}

/*
 * Interfaces no fabric runs on, by the names the kernel and tools give them:
 * lo; enx<MAC> (udev's name for a USB NIC: on DGX/HGX the BMC's host
 * interface, a 169.254 link) and usb*; docker0 and docker's user bridges
 * br-<id>; veth* (a container's end of a pair); virbr* (libvirt). NCCL's own
 * default (NCCL_SOCKET_IFNAME=^docker,lo) skips some of them only while
 * anything else is up, and never skips enx or veth.
 */
const char *nccl_if_not_fabric(const char *ifname)
{
	static const struct { const char *prefix; bool exact; const char *what; } t[] = {
		{ "lo", true, "loopback: no other node can reach it" },
		{ "enx", false, "a USB NIC (on DGX/HGX nodes the BMC's host interface)" },
		{ "usb", false, "a USB NIC" },
		{ "docker", false, "a docker bridge" },
		{ "br-", false, "a docker bridge" },
		{ "veth", false, "a container's virtual ethernet pair" },
		{ "virbr", false, "a libvirt bridge" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t n = strlen(t[i].prefix);
		if (t[i].exact ? strcmp(ifname, t[i].prefix) == 0 :
				 strncmp(ifname, t[i].prefix, n) == 0 && ifname[n])
			return t[i].what;
	}
	return NULL;
}

/* enum ibv_wc_status, in ibv_wc_status_str()'s words (libibverbs verbs.c). */
const char *nccl_wc_status_str(long long status)
{
	static const char *const s[] = {
		"success", "local length error", "local QP operation error",
		"local EE context operation error", "local protection error",
		"Work Request Flushed Error", "memory management operation error",
		"bad response error", "local access error", "remote invalid request error",
		"remote access error", "remote operation error",
		"transport retry counter exceeded", "RNR retry counter exceeded",
		"local RDD violation error", "remote invalid RD request",
		"aborted error", "invalid EE context number", "invalid EE context state",
		"fatal error", "response timeout error", "general error",
	};
	if (status < 0 || status >= (long long)(sizeof(s) / sizeof(s[0])))
		return NULL;
	return s[status];
}

/* ---- lifecycle ---- */

void nccl_log_init(struct nccl_log *a)
{
	memset(a, 0, sizeof(*a));
}

void nccl_log_free(struct nccl_log *a)
{
	free(a->st.rank_set);
	a->st.rank_set = NULL;
	a->st.rank_cap = 0;
}

void nccl_log_source(struct nccl_log *a, const char *name)
{
	copy_str(a->st.source, sizeof(a->st.source), name ? name : "");
	a->st.source_line = 0;
	a->st.last_error_next = false;
}

/* ---- ranks ---- */

static void rank_insert(struct nccl_log *a, unsigned long long h);

static bool rank_grow(struct nccl_log *a)
{
	size_t cap = a->st.rank_cap ? a->st.rank_cap * 2 : 64;
	if (cap > RANK_SET_MAX)
		return false;
	unsigned long long *old = a->st.rank_set;
	size_t oldcap = a->st.rank_cap;
	unsigned long long *set = calloc(cap, sizeof(*set));
	if (!set)
		return false;
	a->st.rank_set = set;
	a->st.rank_cap = cap;
	a->ranks = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i])
			rank_insert(a, old[i]);
	free(old);
	return true;
}

static void rank_insert(struct nccl_log *a, unsigned long long h)
{
	if ((size_t)(a->ranks + 1) * 2 > a->st.rank_cap && !rank_grow(a))
		return;  /* full (or no memory): the count stops growing */
	size_t mask = a->st.rank_cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		if (a->st.rank_set[i] == h)
			return;
		if (!a->st.rank_set[i]) {
			a->st.rank_set[i] = h;
			a->ranks++;
			return;
		}
	}
}

/*
 * Finds "host:pid:tid" among the words of the prefix before "NCCL INFO"
 * (after a timestamp or a "[rank0]:" label); *key and *keylen get "host:pid",
 * pointing into s.
 */
static bool rank_key(const char *s, size_t n, const char **key, size_t *keylen)
{
	size_t i = 0;
	while (i < n) {
		while (i < n && s[i] == ' ')
			i++;
		size_t w = i;
		while (i < n && s[i] != ' ')
			i++;
		const char *t = s + w;
		size_t tl = i - w;
		const char *c2 = NULL, *c1 = NULL, *c0 = NULL;
		for (size_t j = tl; j-- > 0;) {
			if (t[j] != ':')
				continue;
			if (!c2)
				c2 = t + j;
			else if (!c1)
				c1 = t + j;
			else {
				c0 = t + j;
				break;
			}
		}
		if (!c1 || c1 == t || c2 + 1 == t + tl || c1 + 1 == c2)
			continue;
		bool digits = true;
		for (const char *p = c1 + 1; p < t + tl && digits; p++)
			digits = p == c2 || is_digit(*p);
		if (!digits)
			continue;
		const char *host = c0 ? c0 + 1 : t;
		if (host == c1)
			continue;
		*key = host;
		*keylen = (size_t)(c2 - host);
		return true;
	}
	return false;
}

/* ---- lists ---- */

static void count_name(struct nccl_log_count *list, int *n, int max, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(list[i].name, name) == 0) {
			list[i].n++;
			return;
		}
	if (*n >= max)
		return;
	copy_str(list[*n].name, sizeof(list[*n].name), name);
	list[*n].n = 1;
	(*n)++;
}

static void add_int(int *list, int *n, int v)
{
	for (int i = 0; i < *n; i++)
		if (list[i] == v)
			return;
	if (*n < NCCL_LOG_MAX_QPVAL)
		list[(*n)++] = v;
}

/* ---- errors ---- */

struct classified {
	enum nccl_err_kind kind;
	enum nccl_err_class cls;
	fab_int status;
};

static bool has(const char *s, const char *needle)
{
	return strstr(s, needle) != NULL;
}

/* "status=12", "status=IBV_WC_RETRY_EXC_ERR(12)" (2.28), "with error 12," (2.1x). */
static fab_int completion_status(const char *m)
{
	long long v;
	const char *p = strstr(m, "status=");
	if (p) {
		p += 7;
		if (parse_ll(p, &v, NULL))
			return fab_int_of(v);
		const char *paren = strchr(p, '(');
		const char *space = strchr(p, ' ');
		if (paren && (!space || paren < space) && parse_ll(paren + 1, &v, NULL))
			return fab_int_of(v);
	}
	if (ll_after(m, "with error ", &v))
		return fab_int_of(v);
	return (fab_int){ 0, false };
}

/* The first match wins: the specific IB wordings before the generic ones. */
static struct classified classify(const struct nccl_log *a, const char *m)
{
	struct classified c = { NCCL_E_OTHER, NCCL_C_OTHER, { 0, false } };
	long long v;
	if (has(m, "Got completion from peer")) {
		c.kind = NCCL_E_COMPLETION;
		c.cls = NCCL_C_IB;
		c.status = completion_status(m);
	} else if ((has(m, "ibv_") || has(m, "Ibv")) && (has(m, "failed") || has(m, "Failed"))) {
		c.kind = has(m, "timed out") ? NCCL_E_TIMEOUT : NCCL_E_IBV_CALL;
		c.cls = NCCL_C_IB;
		if (ll_after(m, "failed with ", &v) || ll_after(m, "errno ", &v))
			c.status = fab_int_of(v);
	} else if (after(m, "NET/IB") || has(m, "IbDev")) {
		c.kind = NCCL_E_IB_OTHER;
		c.cls = NCCL_C_IB;
	} else if (has(m, "Duplicate GPU") || has(m, "NCCL version mismatch") ||
		   has(m, "Mismatched NCCL version") || has(m, "nvalid usage") ||
		   has(m, "nvalid argument") || has(m, "nvalid config")) {
		c.kind = NCCL_E_INVALID_USAGE;
		c.cls = NCCL_C_USAGE;
	} else if (has(m, "Failed to initialize any NET plugin")) {
		c.kind = NCCL_E_NET_INIT;
		c.cls = a->ib_tried ? NCCL_C_IB : NCCL_C_OTHER;  /* IB forced, unusable */
	} else if (has(m, "out of memory") || has(m, "Out of memory") ||
		   has(m, "Failed to CUDA calloc") || has(m, "Failed to CUDA host alloc") ||
		   has(m, "Failed to malloc") || has(m, "malloc failed")) {
		c.kind = NCCL_E_OOM;
	} else if (has(m, "Watchdog caught collective operation timeout") ||
		   has(m, "collective operation timeout")) {
		c.kind = NCCL_E_COLL_TIMEOUT;
	} else if (has(m, "Cuda failure") || has(m, "cuda error") || has(m, "CUDA error") ||
		   has(m, "Cuda error") || has(m, "CUDA failure")) {
		c.kind = NCCL_E_CUDA;
	} else if (has(m, "unhandled system error") || has(m, "ncclSystemError")) {
		c.kind = NCCL_E_SYSTEM;  /* before the socket words: "System call (e.g. socket..." */
	} else if (has(m, "timed out") || has(m, "Timed out") || has(m, "timeout")) {
		c.kind = NCCL_E_TIMEOUT;
		c.cls = NCCL_C_BOOTSTRAP;
	} else if (after(m, "Bootstrap") || after(m, "bootstrap") ||
		   has(m, "no socket interface")) {
		c.kind = NCCL_E_BOOTSTRAP;
		c.cls = NCCL_C_BOOTSTRAP;
	} else if (has(m, "remote process exited") || has(m, "Remote process exited")) {
		c.kind = NCCL_E_REMOTE;
	} else if (has(m, "Connection refused") || has(m, "Connection reset") ||
		   has(m, "Connection closed") || has(m, "Broken pipe") ||
		   has(m, "No route to host") || has(m, "Network is unreachable") ||
		   has(m, "socket") || has(m, "Socket") || has(m, "onnect")) {
		c.kind = NCCL_E_SOCKET;
		c.cls = NCCL_C_BOOTSTRAP;
	} else if (has(m, "internal error") || has(m, "ncclInternalError")) {
		c.kind = NCCL_E_INTERNAL;
	}
	return c;
}

static void add_error(struct nccl_log *a, const char *m, struct classified c,
		      bool framework, const char *rank)
{
	char text[NCCL_LOG_TEXT];
	copy_str(text, sizeof(text), m);
	a->errors++;
	a->err_kind[c.kind]++;
	if (!a->st.cls_first[c.cls][0])
		copy_str(a->st.cls_first[c.cls], sizeof(a->st.cls_first[c.cls]), text);
	if (framework)
		a->st.framework_cls[c.cls]++;
	else
		a->st.nccl_cls[c.cls]++;
	/* An IB transport error means IB was in use, even when the log starts
	 * after the set-up lines (a pasted tail, a rotated file). */
	if (!framework && c.cls == NCCL_C_IB && c.kind != NCCL_E_NET_INIT)
		a->ib_tried = true;
	for (int i = 0; i < a->nerr; i++)
		if (strcmp(a->err[i].text, text) == 0) {
			a->err[i].count++;
			return;
		}
	if (a->nerr >= NCCL_LOG_MAX_ERRORS) {
		a->err_dropped++;
		return;
	}
	struct nccl_log_error *e = &a->err[a->nerr++];
	memset(e, 0, sizeof(*e));
	e->kind = c.kind;
	e->cls = c.cls;
	e->framework = framework;
	e->status = c.status;
	memcpy(e->text, text, sizeof(text));
	copy_str(e->rank, sizeof(e->rank), rank ? rank : "");
	copy_str(e->source, sizeof(e->source), a->st.source);
	e->line = a->st.source_line;
	e->count = 1;
}

/* ---- the NCCL messages ---- */

/* "eth0:192.0.2.2<0>" or "[0]eth0:..." at s: interface and address. */
static bool parse_if(const char *s, char *ifname, size_t ifsize, char *addr, size_t addrsize)
{
	while (*s == ' ')
		s++;
	if (*s == '[') {
		const char *e = strchr(s, ']');
		if (!e)
			return false;
		s = e + 1;
	}
	const char *colon = strchr(s, ':');
	const char *stop = s + strcspn(s, " ;");
	if (!colon || colon == s || colon > stop)
		return false;
	copy_trim(ifname, ifsize, s, (size_t)(colon - s));
	const char *v = colon + 1;
	size_t n = strcspn(v, "< ;");
	copy_trim(addr, addrsize, v, n);
	return true;
}

/* "2.28.9+cuda13.0": ranks differ when the part before '+' does. */
static void on_version(struct nccl_log *a, const char *v, bool nccl_said)
{
	char ver[sizeof(a->version)];
	copy_trim(ver, sizeof(ver), v, strcspn(v, " ,"));
	if (!ver[0] || !is_digit(ver[0]))
		return;
	size_t n = strcspn(ver, "+"), have = strcspn(a->version, "+");
	if (!a->version[0])
		memcpy(a->version, ver, sizeof(ver));
	else if (nccl_said && (n != have || strncmp(a->version, ver, n) != 0))
		a->version_mismatch = true;
	else if (nccl_said && !strchr(a->version, '+') && strchr(ver, '+'))
		memcpy(a->version, ver, sizeof(ver));  /* a framework said it first, shorter */
}

/* "NCCL_X set by environment to V" (V ends in "." for numbers) or "NCCL_X set to V". */
static void on_env(struct nccl_log *a, const char *m)
{
	size_t nl = strcspn(m, " ");
	const char *v = after(m + nl, " set by environment to ");
	if (!v)
		v = after(m + nl, " set to ");
	if (!v || nl >= sizeof(a->env[0].name))
		return;
	char name[sizeof(a->env[0].name)], value[sizeof(a->env[0].value)];
	copy_trim(name, sizeof(name), m, nl);
	copy_str(value, sizeof(value), v);
	size_t vl = strlen(value);
	if (vl > 1 && value[vl - 1] == '.' && strspn(value, "-0123456789") == vl - 1)
		value[vl - 1] = '\0';
	for (int i = 0; i < a->nenv; i++)
		if (strcmp(a->env[i].name, name) == 0) {
			if (strcmp(a->env[i].value, value) != 0)
				a->env[i].conflict = true;
			return;
		}
	if (a->nenv >= NCCL_LOG_MAX_ENV)
		return;
	struct nccl_log_env *e = &a->env[a->nenv++];
	memcpy(e->name, name, sizeof(name));
	memcpy(e->value, value, sizeof(value));
	e->conflict = false;
}

static void ib_reason(struct nccl_log *a, const char *why)
{
	a->ib_tried = true;
	if (!a->ib_reason[0])
		copy_str(a->ib_reason, sizeof(a->ib_reason), why);
}

/* "[0]mlx5_0:1/RoCE [1]mlx5_1:1/IB [RO]; OOB eth0:10.0.0.1<0>" */
static void on_ib_devices(struct nccl_log *a, const char *s)
{
	const char *semi = strchr(s, ';');
	const char *end = semi ? semi : s + strlen(s);
	while (s < end) {
		while (s < end && (*s == ' ' || *s == '+'))
			s++;
		size_t wl = strcspn(s, " +;");
		if (s + wl > end)
			wl = (size_t)(end - s);
		const char *w = s, *wend = s + wl;
		s += wl;
		if (*w == '[') {
			if (wl < 2 || !is_digit(w[1]))
				continue;  /* "[RO]": relaxed ordering, not a device */
			const char *rb = memchr(w, ']', wl);
			if (!rb)
				continue;
			w = rb + 1;
		}
		const char *colon = memchr(w, ':', (size_t)(wend - w));
		if (!colon || colon == w)
			continue;
		struct nccl_log_hca h;
		memset(&h, 0, sizeof(h));
		copy_trim(h.name, sizeof(h.name), w, (size_t)(colon - w));
		long long port = 0;
		const char *pe;
		if (!parse_ll(colon + 1, &port, &pe) || pe > wend)
			continue;
		h.port = (int)port;
		if (pe < wend && *pe == '/')
			copy_trim(h.link_layer, sizeof(h.link_layer), pe + 1, (size_t)(wend - pe - 1));
		bool seen = false;
		for (int i = 0; i < a->nhcas && !seen; i++)
			seen = strcmp(a->hcas[i].name, h.name) == 0 && a->hcas[i].port == h.port;
		if (!seen && a->nhcas < NCCL_LOG_MAX_HCAS)
			a->hcas[a->nhcas++] = h;
	}
	if (semi) {
		const char *oob = strstr(semi, "OOB ");
		if (oob && !a->oob_if[0])
			parse_if(oob + 4, a->oob_if, sizeof(a->oob_if), a->oob_addr, sizeof(a->oob_addr));
	}
}

/* "GPU Direct RDMA Enabled/Disabled ..."; sockets never do GPUDirect, skip them. */
static void on_gdr(struct nccl_log *a, const char *m, const char *net)
{
	if (net && strncmp(net, "Socket", 6) == 0)
		return;
	const char *p = strstr(m, "GPU Direct RDMA ");
	if (!p)
		return;
	p += 16;
	if (after(p, "Enabled") || after(p, "enabled"))
		a->gdr_enabled_lines++;
	else if (after(p, "Disabled") || after(p, "disabled"))
		a->gdr_disabled_lines++;
}

/* "NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1234 mtu 5 GID 3 (...)" and older "Dev 0 Port 1 ...". */
static void on_qp(struct nccl_log *a, const char *m)
{
	long long v;
	a->qp_lines++;
	if (ll_after(m, " mtu ", &v)) {
		static const int bytes[] = { 0, 256, 512, 1024, 2048, 4096 };
		add_int(a->mtu, &a->nmtu, v >= 1 && v <= 5 ? bytes[v] : (int)v);
	}
	if (ll_after(m, " GID ", &v))
		add_int(a->gid_index, &a->ngid_index, (int)v);
}

/* The plugin's file names in "Could not find: nosuch libnccl-net-nosuch.so"
 * (2.24+) or "No plugin found (libnccl-net.so)": anything but the default
 * libnccl-net.so means NCCL_NET_PLUGIN asked for one. */
static bool names_asked_plugin(const char *s)
{
	const char *p = strstr(s, "Could not find:");
	if (p)
		p += 15;
	else if ((p = strstr(s, "No plugin found (")))
		p += 17;
	else
		return false;
	/* The list ends at ")" or at the sentence after it (". Using internal ..."). */
	const char *stop = strstr(p, ". ");
	size_t len = strcspn(p, ")");
	if (stop && (size_t)(stop - p) < len)
		len = (size_t)(stop - p);
	while (len) {
		size_t sp = strspn(p, " ");
		p += sp;
		len = len > sp ? len - sp : 0;
		size_t n = strcspn(p, " ");
		if (n > len)
			n = len;
		if (!n)
			break;
		size_t w = n - (p[n - 1] == '.');
		if (!(w == 14 && strncmp(p, "libnccl-net.so", 14) == 0))
			return true;
		p += n;
		len -= n;
	}
	return false;
}

/* glibc's dlerror for a plugin that is there but needs a library that is
 * not ("libnccl-net.so: libfabric.so.1: cannot open shared object file: No
 * such file or directory"): the file it could not open is not the plugin. */
static bool dependency_missing(const char *s)
{
	const char *c = strstr(s, ": cannot open shared object file");
	if (!c)
		return false;
	const char *b = c;
	while (b > s && b[-1] != ' ' && b[-1] != '=' && b[-1] != '/')
		b--;
	return strncmp(b, "libnccl-net", 11) != 0;
}

/*
 * "NET/Plugin..." lines, in the words of each NCCL (src/net.cc up to 2.23,
 * src/plugin/net.cc and plugin_open.cc after):
 *   Loaded net plugin NAME (vN)                          loaded
 *   No plugin found (libnccl-net.so), using internal ... absent (2.1x)
 *   Plugin load (libnccl-net.so) returned 2 : DLERROR    absent when DLERROR is
 *   Plugin load returned N : DLERROR[ : when loading X]  "No such file or
 *   dlerror=DLERROR No plugin found (X), ...             directory", else failed
 *   Could not find: NAMES[. Using internal ...]          absent (2.24+)
 *   LIB: DLERROR                                         failed (2.24+: found, not loadable)
 *   Failed to find ncclNetPlugin symbol (>= v5) ...      failed unless a later
 *   Failed to find ncclNetPlugin_vN symbol.              "Loaded net plugin"
 * A dlerror that names another library as missing is a failed plugin (it is
 * there; what it needs is not), whatever NCCL calls it.
 * The errno NCCL prints is unreliable (2.14 says "returned 17" for a missing
 * file), so the dlerror text decides. CollNet lines do not count.
 */
static void on_plugin(struct nccl_log *a, const char *rest)
{
	const char *p = strstr(rest, "Loaded net plugin ");
	if (p) {
		p += 18;
		const char *v = strstr(p, " (v");
		a->plugin = NCCL_PLUGIN_LOADED;
		copy_trim(a->plugin_name, sizeof(a->plugin_name), p, v ? (size_t)(v - p) : strlen(p));
		return;
	}
	if (has(rest, "CollNet") || has(rest, "coll plugin"))
		return;
	bool missing = (has(rest, "No such file or directory") || has(rest, "Could not find") ||
			has(rest, "No plugin found")) && !dependency_missing(rest);
	bool load_said = has(rest, "Plugin load") || has(rest, "dlerror=") ||
			 has(rest, "Unable to load") || has(rest, ".so: ");
	char *slot = NULL;
	if (has(rest, "Failed to find ncclNetPlugin"))
		slot = a->st.plugin_fail;  /* the file is there, not a plugin of this NCCL */
	else if (missing && names_asked_plugin(rest))
		slot = a->st.plugin_missing;
	else if (!missing && load_said)
		slot = a->st.plugin_fail;  /* found, but dlopen failed: undefined symbol, ELF class */
	if (missing && a->plugin == NCCL_PLUGIN_UNKNOWN)
		a->plugin = NCCL_PLUGIN_NONE;
	if (slot && (!slot[0] || (slot == a->st.plugin_fail && has(rest, "not supported"))))
		copy_str(slot, NCCL_LOG_TEXT, rest);  /* the symbol search's last line gives up */
}

/* "[0]eth0:10.0.0.1<0> [1]veth12:fe80::...%veth12<0>": every interface named. */
static void on_socket_ifs(struct nccl_log *a, const char *s)
{
	for (const char *w = s; *w;) {
		w += strspn(w, " ");
		size_t wl = strcspn(w, " ");
		char ifname[32], addr[64], word[128];
		copy_trim(word, sizeof(word), w, wl);
		w += wl;
		if (!parse_if(word, ifname, sizeof(ifname), addr, sizeof(addr)) || !ifname[0])
			continue;
		bool seen = false;
		for (int i = 0; i < a->st.nsocket_ifs && !seen; i++)
			seen = strcmp(a->st.socket_ifs[i], ifname) == 0;
		if (!seen && a->st.nsocket_ifs < NCCL_LOG_MAX_SOCKIFS)
			memcpy(a->st.socket_ifs[a->st.nsocket_ifs++], ifname, sizeof(ifname));
	}
}

/* Lines that start "NET/<name> : ..." or "NET/<name>: ...". */
static void on_net(struct nccl_log *a, const char *m)
{
	const char *net = m + 4;
	size_t nl = strcspn(net, " :");
	const char *rest = net + nl;
	while (*rest == ' ' || *rest == ':')
		rest++;
	if (nl == 6 && strncmp(net, "Plugin", 6) == 0) {
		on_plugin(a, rest);
		return;
	}
	bool socket = nl == 6 && strncmp(net, "Socket", 6) == 0;
	if (has(rest, "GPU Direct RDMA")) {
		on_gdr(a, rest, net);
		return;
	}
	const char *using = after(rest, "Using");
	if (socket) {
		if (using && !a->st.socket_if[0])
			parse_if(using, a->st.socket_if, sizeof(a->st.socket_if),
				 a->st.socket_addr, sizeof(a->st.socket_addr));
		if (using)
			on_socket_ifs(a, using);
		return;
	}
	if (after(rest, "No device found")) {
		ib_reason(a, "No device found");
	} else if (using && (*using == ' ' || *using == '[')) {
		a->ib_tried = true;
		on_ib_devices(a, using);
	} else if (has(rest, " qpn ") && has(rest, " mtu ")) {
		on_qp(a, rest);
	} else if (after(rest, "Unable to open device") || after(rest, "Failed to open libibverbs")) {
		char why[NCCL_LOG_TEXT];
		copy_str(why, sizeof(why), rest);
		ib_reason(a, why);
	}
}

/* "Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA" (2.12+), "Channel 00 : ..." (older). */
static void on_channel(struct nccl_log *a, const char *m)
{
	const char *via = strstr(m, " via ");
	if (!via)
		return;  /* "Channel 00/64 : 0 1": the ring order, not a connection */
	via += 5;
	char name[sizeof(a->via[0].name)];
	copy_str(name, sizeof(name), via);
	count_name(a->via, &a->nvia, NCCL_LOG_MAX_VIA, name);
	if (after(via, "NET/")) {
		if (after(via, "NET/Socket"))
			a->ch_net_socket++;
		else {
			a->ch_net_rdma++;
			if (has(via, "/GDRDMA"))
				a->ch_net_gdr++;
		}
	} else if (after(via, "P2P/")) {
		a->ch_p2p++;
	} else if (after(via, "SHM/")) {
		a->ch_shm++;
	} else if (after(via, "COLLNET/")) {
		a->ch_collnet++;
	}
}

/* "... comm 0x.. rank 0 nranks 2 cudaDev 0 ... - Init START|COMPLETE", "Destroy COMPLETE". */
static void on_comm_state(struct nccl_log *a, const char *m, size_t len)
{
	long long v;
	if (ends_with(m, len, " - Init START")) {
		a->init_start++;
	} else if (ends_with(m, len, " - Init COMPLETE")) {
		a->init_complete++;
	} else if (ends_with(m, len, " - Destroy COMPLETE")) {
		a->destroy_complete++;
		return;
	} else if (ends_with(m, len, " - Abort COMPLETE")) {
		a->abort_complete++;
		return;
	} else {
		return;
	}
	if (ll_after(m, " nranks ", &v) && (!a->nranks.ok || v > a->nranks.v))
		a->nranks = fab_int_of(v);
}

/* "init.cc:126 -> 5": NCCL's error trace, one line per return. */
static void on_retcode(struct nccl_log *a, const char *m)
{
	long long v;
	size_t wl = strcspn(m, " ");
	if (a->first_retcode.ok || !memchr(m, ':', wl) || !memchr(m, '.', wl) ||
	    strncmp(m + wl, " -> ", 4) != 0 || !parse_ll(m + wl + 4, &v, NULL))
		return;
	a->first_retcode = fab_int_of(v);
	copy_trim(a->first_retcode_at, sizeof(a->first_retcode_at), m, wl);
}

static void on_message(struct nccl_log *a, const char *m, size_t len, enum level lvl,
		       const char *rank)
{
	const char *p;
	long long v;
	switch (m[0]) {
	case 'B':
		if ((p = after(m, "Bootstrap : Using")) || (p = after(m, "Bootstrap: Using")))
			if (!a->bootstrap_if[0])
				parse_if(p, a->bootstrap_if, sizeof(a->bootstrap_if),
					 a->bootstrap_addr, sizeof(a->bootstrap_addr));
		break;
	case 'N':
		if ((p = after(m, "NCCL version ")))
			on_version(a, p, true);
		else if (after(m, "NCCL_"))
			on_env(a, m);
		else if (after(m, "NET/"))
			on_net(a, m);
		break;
	case 'P':
		/* NCCL 2.19-2.22 say so once a plugin is loaded: "P2P plugin
		 * IBext_v8" (and "Plugin Path : /opt/hpcx/.../libnccl-net.so"). */
		if ((p = after(m, "P2P plugin ")) && *p) {
			a->plugin = NCCL_PLUGIN_LOADED;
			if (!a->plugin_name[0])
				copy_str(a->plugin_name, sizeof(a->plugin_name), p);
		}
		break;
	case 'U':
		if ((p = after(m, "Using network "))) {
			char name[sizeof(a->nets[0].name)];
			copy_str(name, sizeof(name), p);
			if (name[0])
				count_name(a->nets, &a->nnets, NCCL_LOG_MAX_NETS, name);
		}
		break;
	case 'C':
		if (after(m, "Channel "))
			on_channel(a, m);
		break;
	case 'G':
		if (after(m, "GPU Direct RDMA "))
			on_gdr(a, m, NULL);
		break;
	case 'F':
		if (after(m, "Failed to open libibverbs") || after(m, "Failed to load libibverbs"))
			ib_reason(a, m);
		else if (after(m, "Failed to initialize NET plugin IB")) {
			a->ib_tried = true;
			if (!a->st.ib_generic[0])
				copy_str(a->st.ib_generic, sizeof(a->st.ib_generic), m);
		}
		break;
	case 'c':
		if (after(m, "comm ") && ll_after(m, " nRanks ", &v)) {
			if (!a->nranks.ok || v > a->nranks.v)
				a->nranks = fab_int_of(v);
			if (ll_after(m, " nNodes ", &v) && (!a->nnodes.ok || v > a->nnodes.v))
				a->nnodes = fab_int_of(v);
		}
		break;
	default:
		break;
	}
	if (m[len ? len - 1 : 0] == 'T' || m[len ? len - 1 : 0] == 'E')
		on_comm_state(a, m, len);
	if (lvl == LVL_INFO && m[0] >= 'a' && m[0] <= 'z')
		on_retcode(a, m);  /* "init.cc:126 -> 5": a source file name first */
	if (lvl == LVL_WARN) {
		if (has(m, ", retrying "))
			a->retries++;  /* NCCL tries again; an error only if it gives up */
		else if (m[0] == 'F' && a->ib_reason[0] && after(m, "Failed to open libibverbs"))
			;  /* 2.7-2.10 WARN the IB probe's answer: the fallback's reason, not an error */
		else
			add_error(a, m, classify(a, m), false, rank);
	}
}

/* ---- lines that are not NCCL's: nccl-tests and frameworks ---- */

static bool is_word(const char *s)
{
	return isalpha((unsigned char)*s) != 0;
}

static bool parse_num(const char *s, fab_num *out)
{
	char *e;
	double d = strtod(s, &e);
	if (e == s || (*e && !isspace((unsigned char)*e)))
		return false;
	*out = fab_num_of(d);
	return true;
}

/* ---- nccl-tests runs (nccl_log.h: struct nccl_log_coll) ---- */

static struct nccl_log_coll *coll_cur(struct nccl_log *a)
{
	return a->ncolls && !a->st.coll_drop ? &a->colls[a->ncolls - 1] : NULL;
}

static bool coll_fresh(const struct nccl_log_coll *c)
{
	return !c->nsizes && !c->sizes_dropped && !c->avg_busbw.ok && !c->oob_values.ok;
}

/* A run begins: the current one goes on while it holds nothing yet (its
 * version, starting and nThread lines all begin it); NULL once
 * NCCL_LOG_MAX_COLLS are kept (the run is counted, its lines dropped). */
static struct nccl_log_coll *coll_begin(struct nccl_log *a)
{
	struct nccl_log_coll *c = a->ncolls ? &a->colls[a->ncolls - 1] : NULL;
	if (a->st.coll_drop && !a->st.coll_drop_data)
		return NULL;
	if (!(c && !a->st.coll_drop && coll_fresh(c))) {
		if (a->ncolls >= NCCL_LOG_MAX_COLLS) {
			a->colls_dropped++;
			a->st.coll_drop = true;
			a->st.coll_drop_data = false;
			return NULL;
		}
		c = &a->colls[a->ncolls++];
		memset(c, 0, sizeof(*c));
	}
	a->st.coll_drop = false;
	if (!c->name[0] && a->st.next_name[0]) {
		copy_str(c->name, sizeof(c->name), a->st.next_name);
		copy_str(c->named_by, sizeof(c->named_by), "command");
	}
	a->st.next_name[0] = '\0';
	return c;
}

/* The run a row or a summary line belongs to: a new one after a finished run. */
static struct nccl_log_coll *coll_for_data(struct nccl_log *a, bool summary_line)
{
	if (a->st.coll_drop) {
		a->st.coll_drop_data = true;
		return NULL;
	}
	struct nccl_log_coll *c = coll_cur(a);
	if (!c || c->avg_busbw.ok || (summary_line && c->oob_values.ok && !c->nsizes))
		c = coll_begin(a);
	if (!c)
		a->st.coll_drop_data = true;
	return c;
}

/* "alltoall_perf" from a command line's word ("./build/alltoall_perf",
 * "/nix/store/...-nccl-tests-2.13.6/bin/all_gather_perf"), false if none. */
static bool perf_binary(const char *t, char *out, size_t size)
{
	/* Build output names every binary: it runs none. */
	if (strncmp(t, "Linking", 7) == 0 || strncmp(t, "Compiling", 9) == 0 || strncmp(t, "make", 4) == 0)
		return false;
	for (const char *p = t; *p; ) {
		p += strspn(p, " \t\"'=");
		size_t n = strcspn(p, " \t\"'");
		const char *w = p, *slash;
		while ((slash = memchr(w, '/', (size_t)(p + n - w))))
			w = slash + 1;
		size_t wl = (size_t)(p + n - w);
		if (wl > 5 && wl < size && memcmp(w + wl - 5, "_perf", 5) == 0 &&
		    strspn(w, "abcdefghijklmnopqrstuvwxyz_0123456789") >= wl) {
			memcpy(out, w, wl);
			out[wl] = '\0';
			return true;
		}
		p += n;
	}
	return false;
}

/* "       8      2  float  sum  -1  37.2  0.00  0.00  0  36.5  0.00  0.00  0";
 * before nccl-tests 2.13 rows of all_gather, sendrecv, alltoall and
 * broadcast have no redop word ("  8  2  float  37.2 ..."). */
static bool on_tests_row(struct nccl_log *a, char *s)
{
	char *tok[32];
	int n = 0;
	for (char *t = strtok(s, " \t"); t && n < 32; t = strtok(NULL, " \t"))
		tok[n++] = t;
	for (int i = 0; i < 4 && i + 11 <= n; i++) {
		long long bytes, count;
		const char *e1, *e2;
		if (!parse_ll(tok[i], &bytes, &e1) || *e1 || !parse_ll(tok[i + 1], &count, &e2) || *e2 ||
		    !is_word(tok[i + 2]))
			continue;
		bool redop = is_word(tok[i + 3]);
		/* The last eight: time algbw busbw #wrong, out of place then in place. */
		struct nccl_log_size r;
		memset(&r, 0, sizeof(r));
		if (n - (i + 3 + redop) < 8 || !parse_num(tok[n - 7], &r.algbw_oop) ||
		    !parse_num(tok[n - 6], &r.busbw_oop) || !parse_num(tok[n - 3], &r.algbw_ip) ||
		    !parse_num(tok[n - 2], &r.busbw_ip))
			return false;
		r.bytes = bytes;
		r.count = count;
		copy_str(r.type, sizeof(r.type), tok[i + 2]);
		copy_str(r.redop, sizeof(r.redop), redop ? tok[i + 3] : "");
		struct nccl_log_coll *c = coll_for_data(a, false);
		if (!c)
			return true;
		for (int k = 0; k < 2; k++) {
			fab_num b = k ? r.busbw_ip : r.busbw_oop;
			if (b.ok && (!c->peak_busbw.ok || b.v > c->peak_busbw.v)) {
				c->peak_busbw = b;
				c->peak_bytes = bytes;
			}
		}
		if (c->nsizes < NCCL_LOG_MAX_SIZES)
			c->sizes[c->nsizes++] = r;
		else
			c->sizes_dropped++;
		return true;
	}
	return false;
}

static void on_tests_comment(struct nccl_log *a, const char *s)
{
	const char *p;
	long long v;
	struct nccl_log_coll *c;
	if ((p = strstr(s, "Avg bus bandwidth"))) {
		p = strchr(p, ':');
		char *e;
		double x = p ? strtod(p + 1, &e) : 0;
		if (p && e != p + 1 && (c = coll_for_data(a, true)))
			c->avg_busbw = fab_num_of(x);
		a->tests_started = true;
	} else if ((p = strstr(s, "Out of bounds values"))) {
		p = strchr(p, ':');
		if (p && parse_ll(p + 1 + strspn(p + 1, " "), &v, NULL) && (c = coll_for_data(a, true)))
			c->oob_values = fab_int_of(v);
		a->tests_started = true;
	} else if ((p = strstr(s, "nccl-tests version"))) {
		a->tests_started = true;
		coll_begin(a);
		if (ll_after(p, "nccl-library=", &v) && v > 0)
			snprintf(a->st.tests_version, sizeof(a->st.tests_version), "%lld.%lld.%lld",
				 v / 10000, v / 100 % 100, v % 100);
	} else if ((p = strstr(s, "Collective test starting:"))) {
		/* nccl-tests 2.16.7 on: the binary's own name. */
		char name[32];
		a->tests_started = true;
		c = coll_begin(a);
		if (c && perf_binary(p + 25, name, sizeof(name))) {
			copy_str(c->name, sizeof(c->name), name);
			copy_str(c->named_by, sizeof(c->named_by), "nccl-tests");
		}
	} else if (has(s, "nThread ")) {
		a->tests_started = true;
		coll_begin(a);
	} else if (has(s, "  size ")) {
		/* A table header after a run's rows: the next run, whose nThread
		 * line was lost (a cut paste, grep). */
		a->tests_started = true;
		if (a->st.coll_drop ? a->st.coll_drop_data : (c = coll_cur(a)) && !coll_fresh(c))
			coll_begin(a);
	} else if (has(s, "Using devices") || has(s, " Rank ")) {
		a->tests_started = true;
	}
}

/* torch's "[rank0]: torch.distributed.DistBackendError: NCCL error in: ...",
 * nccl-tests' "Test NCCL failure ...": NCCL's return code, said again. */
static bool framework_error(const char *s)
{
	return has(s, "NCCL error") || has(s, "Test NCCL failure") || has(s, "Test CUDA failure") ||
	       has(s, "ncclSystemError:") || has(s, "ncclInternalError:") ||
	       has(s, "ncclInvalidUsage:") || has(s, "ncclInvalidArgument:") ||
	       has(s, "ncclRemoteError:") || has(s, "ncclUnhandledCudaError:") ||
	       has(s, "Watchdog caught collective operation timeout") ||
	       has(s, "NCCL communicator was aborted");
}

static bool known_error(const struct nccl_log *a, const char *t)
{
	char text[NCCL_LOG_TEXT];
	copy_str(text, sizeof(text), t);
	for (int i = 0; i < a->nerr; i++)
		if (strcmp(a->err[i].text, text) == 0)
			return true;
	return false;
}

/* Skips the labels launchers put before each line: torch's "[rank1]: ",
 * mpirun --tag-output's "[1,0]<stdout>:", srun -l's "1: ". */
static const char *skip_labels(const char *t)
{
	for (;;) {
		t += strspn(t, " \t");
		const char *p = t;
		if (*p == '[') {
			const char *rb = strchr(p, ']');
			if (!rb || rb - p > 24 || strchr(p, ' ') < rb)
				return t;
			p = rb + 1;
			if (*p == '<') {
				const char *gt = strchr(p, '>');
				p = gt ? gt + 1 : p;
			}
			if (*p != ':')
				return t;
			t = p + 1;
		} else if (is_digit(*p)) {
			p += strspn(p, "0123456789");
			if (p[0] != ':' || p[1] != ' ')
				return t;
			t = p + 2;
		} else {
			return t;
		}
	}
}

static void on_other_line(struct nccl_log *a, char *s, size_t len)
{
	const char *t = skip_labels(s);
	if (a->st.last_error_next) {
		/* torch's "Last error:" is followed by NCCL's own last WARN text. */
		a->st.last_error_next = false;
		if (*t) {
			if (!known_error(a, t))  /* usually NCCL's WARN, said again */
				add_error(a, t, classify(a, t), true, NULL);
			return;
		}
	}
	const char *le = strstr(t, "Last error:");
	if (le && !le[11 + strspn(le + 11, " ")]) {
		a->st.last_error_next = true;
		return;
	}
	/* NCCL before 2.10 printed its version as a bare line on rank 0. */
	if (strncmp(t, "NCCL version ", 13) == 0 && is_digit(t[13])) {
		on_version(a, t + 13, false);
		return;
	}
	const char *hash = strchr(t, '#');
	if (hash && (hash == t || hash[-1] == ' ' || hash[-1] == ':')) {
		on_tests_comment(a, hash);
		return;
	}
	if (framework_error(t)) {
		struct classified c = classify(a, t);
		if (c.kind != NCCL_E_COLL_TIMEOUT)
			c.cls = NCCL_C_OTHER;  /* the code, not the cause: NCCL's WARN says that */
		const char *v = strstr(t, "NCCL version ");
		if (v)
			on_version(a, v + 13, false);
		add_error(a, t, c, true, NULL);
		return;
	}
	char name[32];
	if (perf_binary(t, name, sizeof(name)))
		copy_str(a->st.next_name, sizeof(a->st.next_name), name);
	else if (a->tests_started && len < 512 && strpbrk(t, "0123456789"))
		on_tests_row(a, s);
}

/* ---- one line ---- */

/* Finds "NCCL INFO|WARN|TRACE " and returns the message after it. */
static const char *find_level(const char *b, enum level *lvl, const char **at)
{
	for (const char *p = b; (p = strstr(p, "NCCL ")); p += 5) {
		if (p != b && p[-1] != ' ' && p[-1] != ']' && p[-1] != ':')
			continue;
		const char *q = p + 5;
		size_t n;
		if (strncmp(q, "INFO", 4) == 0) {
			*lvl = LVL_INFO;
			n = 4;
		} else if (strncmp(q, "WARN", 4) == 0) {
			*lvl = LVL_WARN;
			n = 4;
		} else if (strncmp(q, "TRACE", 5) == 0) {
			*lvl = LVL_TRACE;
			n = 5;
		} else {
			continue;
		}
		if (q[n] != ' ' && q[n] != '\0')
			continue;
		*at = p;
		q += n;
		return q + strspn(q, " ");
	}
	return NULL;
}

void nccl_log_feed(struct nccl_log *a, const char *line, size_t len)
{
	a->lines++;
	a->st.source_line++;
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (len > NCCL_LOG_LINE_MAX) {
		a->long_lines++;
		len = NCCL_LOG_LINE_MAX;
	}
	char *b = a->st.buf[a->st.cur];
	memcpy(b, line, len);
	b[len] = '\0';
	for (char *z = memchr(b, '\0', len); z; z = memchr(z, '\0', len - (size_t)(z - b)))
		*z = ' ';  /* binary garbage is read as text */

	enum level lvl = LVL_NONE;
	const char *at = NULL;
	const char *m = find_level(b, &lvl, &at);
	if (!m) {
		on_other_line(a, b, len);
		return;
	}
	a->nccl_lines++;
	if (lvl == LVL_WARN)
		a->warn_lines++;
	a->st.last_error_next = false;
	char key[64];
	const char *k, *rank = NULL;
	size_t kl;
	if (rank_key(b, (size_t)(at - b), &k, &kl)) {
		rank_insert(a, hash_key(k, kl));
		if (lvl == LVL_WARN) {  /* only errors keep it */
			copy_trim(key, sizeof(key), k, kl);
			rank = key;
		}
	}
	on_message(a, m, len - (size_t)(m - b), lvl, rank);
	/* Keep this buffer as the last NCCL line; the next line goes to the other. */
	a->st.last = a->st.cur;
	a->st.last_len = len;
	a->st.cur ^= 1;
}

/* ---- the verdict ---- */

bool nccl_log_used_socket(const struct nccl_log *a)
{
	for (int i = 0; i < a->nnets; i++)
		if (strcasecmp(a->nets[i].name, "Socket") == 0)
			return true;
	return a->ch_net_socket > 0;
}

bool nccl_log_used_rdma(const struct nccl_log *a)
{
	for (int i = 0; i < a->nnets; i++)
		if (strcasecmp(a->nets[i].name, "Socket") != 0)
			return true;
	return a->ch_net_rdma > 0;
}

const char *nccl_log_env(const struct nccl_log *a, const char *name)
{
	for (int i = 0; i < a->nenv; i++)
		if (strcmp(a->env[i].name, name) == 0)
			return a->env[i].value;
	return NULL;
}

static enum nccl_gdr gdr_state(const struct nccl_log *a)
{
	if (a->ch_net_rdma)
		return a->ch_net_gdr == a->ch_net_rdma ? NCCL_GDR_ON :
		       a->ch_net_gdr == 0 ? NCCL_GDR_OFF : NCCL_GDR_PARTIAL;
	if (a->gdr_enabled_lines)
		return a->gdr_disabled_lines ? NCCL_GDR_PARTIAL : NCCL_GDR_ON;
	return a->gdr_disabled_lines ? NCCL_GDR_OFF : NCCL_GDR_UNKNOWN;
}

static void set_reason(struct nccl_log *a, const char *fmt, const char *s1, const char *s2)
{
	snprintf(a->reason, sizeof(a->reason), fmt, s1 ? s1 : "", s2 ? s2 : "");
}

/* Error kinds that are a cause of their own, not a symptom of another. */
static bool cause_kind(enum nccl_err_kind k)
{
	return k == NCCL_E_OOM || k == NCCL_E_CUDA;
}

/* Errors of class c that count: an unclassified WARN in a run that finished
 * is not what stopped it. causes: only the cause kinds of NCCL_C_OTHER;
 * otherwise only the others. */
static long long class_errors(const struct nccl_log *a, enum nccl_err_class c, bool completed,
			      bool causes)
{
	long long n = a->st.nccl_cls[c] + a->st.framework_cls[c];
	if (c != NCCL_C_OTHER)
		return causes ? n : 0;
	long long cause = a->err_kind[NCCL_E_OOM] + a->err_kind[NCCL_E_CUDA];
	if (causes)
		return cause;
	n -= cause;
	if (completed)
		n -= a->err_kind[NCCL_E_OTHER];
	return n;
}

/* The first kept error text of class c (of a cause kind or not). */
static const char *first_error(const struct nccl_log *a, enum nccl_err_class c, bool causes)
{
	if (c != NCCL_C_OTHER)
		return a->st.cls_first[c];
	for (int i = 0; i < a->nerr; i++)
		if (a->err[i].cls == c && cause_kind(a->err[i].kind) == causes)
			return a->err[i].text;
	return a->st.cls_first[c];
}

/* The error class that decides the verdict, NCCL's own WARNs first: the
 * causes (causes true), or what is left once the log shows no other cause. */
static bool error_verdict(struct nccl_log *a, bool completed, bool causes)
{
	static const struct { enum nccl_err_class cls; enum nccl_verdict v; } order[] = {
		{ NCCL_C_USAGE, NCCL_V_INVALID_USAGE },
		{ NCCL_C_IB, NCCL_V_IB_ERROR },
		{ NCCL_C_BOOTSTRAP, NCCL_V_BOOTSTRAP_ERROR },
		{ NCCL_C_OTHER, NCCL_V_NCCL_ERROR },
	};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		enum nccl_err_class c = order[i].cls;
		if (class_errors(a, c, completed, causes) <= 0)
			continue;
		a->verdict = order[i].v;
		const char *first = first_error(a, c, causes);
		const char *ifname = nccl_log_env(a, "NCCL_SOCKET_IFNAME");
		if (c == NCCL_C_IB && a->ib_reason[0] && has(first, "NET plugin"))
			set_reason(a, "%s (NET/IB: %s)", first, a->ib_reason);
		else if (c == NCCL_C_BOOTSTRAP && ifname)
			set_reason(a, "%s (NCCL_SOCKET_IFNAME=%s)", first, ifname);
		else
			set_reason(a, "%s", first, NULL);
		return true;
	}
	return false;
}

static void incomplete_reason(struct nccl_log *a, char *out, size_t size)
{
	const struct nccl_log_coll *c = nccl_log_coll_open(a);
	const char *name = c && c->name[0] ? c->name : NULL;
	if (c && c->nsizes)
		snprintf(out, size, "nccl-tests%s%s stopped after the %lld-byte row, before its summary",
			 name ? " " : "", name ? name : "", c->sizes[c->nsizes - 1].bytes);
	else if (a->tests_started)
		snprintf(out, size, "nccl-tests%s%s started but printed no result", name ? " " : "",
			 name ? name : "");
	else if (a->init_start > a->init_complete)
		snprintf(out, size, "stopped during communicator init");
	else if (a->init_complete)
		snprintf(out, size, "communicators initialised, but the log ends before a result or "
			 "their teardown");
	else if (a->nvia)
		snprintf(out, size, "stopped while NCCL connected its channels");
	else
		snprintf(out, size, "the log ends before NCCL initialised a communicator");
}

/* socket-fallback or socket-by-config, with its reason; false when the run
 * did not use sockets. */
static bool socket_verdict(struct nccl_log *a)
{
	if (!nccl_log_used_socket(a))
		return false;
	const char *ib_disable = nccl_log_env(a, "NCCL_IB_DISABLE");
	const char *net = nccl_log_env(a, "NCCL_NET");
	bool mixed = nccl_log_used_rdma(a);
	if (ib_disable && strcmp(ib_disable, "0") != 0) {
		a->verdict = NCCL_V_SOCKET_BY_CONFIG;
		set_reason(a, "NCCL_IB_DISABLE=%s set by environment", ib_disable, NULL);
	} else if (net && strcasecmp(net, "Socket") == 0) {
		a->verdict = NCCL_V_SOCKET_BY_CONFIG;
		set_reason(a, "NCCL_NET=%s set by environment", net, NULL);
	} else if (a->ib_tried || mixed) {
		a->verdict = NCCL_V_SOCKET_FALLBACK;
		const char *why = a->ib_reason[0] ? a->ib_reason :
				  a->st.ib_generic[0] ? a->st.ib_generic :
				  "RDMA not used; the log gives no reason";
		set_reason(a, mixed ? "some ranks used sockets: %s" : "%s", why, NULL);
	} else {
		/* NCCL tries IB before sockets unless told not to, and says so. */
		a->verdict = NCCL_V_SOCKET_BY_CONFIG;
		set_reason(a, "IB was not tried (NCCL_IB_DISABLE=1 or NCCL_NET=Socket in the "
			   "environment; this log does not say which)", NULL, NULL);
	}
	return true;
}

bool nccl_log_no_net_channel(const struct nccl_log *a)
{
	if (a->ch_net_rdma || a->ch_net_socket || a->ch_collnet)
		return false;
	return a->ch_p2p + a->ch_shm > 0 || (a->nnodes.ok && a->nnodes.v == 1);
}

const char *nccl_log_local_paths(const struct nccl_log *a)
{
	return a->ch_p2p && a->ch_shm ? "P2P and SHM" : a->ch_shm ? "SHM" : a->ch_p2p ? "P2P" : "nNodes 1";
}

static void add_warning(struct nccl_log *a, enum nccl_warn_kind kind, const char *role,
			const char *ifname, const char *text)
{
	for (int i = 0; i < a->nwarn; i++)
		if (a->warn[i].kind == kind && strcmp(a->warn[i].role, role) == 0 &&
		    strcmp(a->warn[i].ifname, ifname) == 0)
			return;
	if (a->nwarn >= NCCL_LOG_MAX_WARN)
		return;
	struct nccl_log_warning *w = &a->warn[a->nwarn++];
	memset(w, 0, sizeof(*w));
	w->kind = kind;
	copy_str(w->role, sizeof(w->role), role);
	copy_str(w->ifname, sizeof(w->ifname), ifname);
	copy_str(w->text, sizeof(w->text), text);
}

static void if_warning(struct nccl_log *a, const char *role, const char *label, const char *ifname)
{
	const char *what = ifname[0] ? nccl_if_not_fabric(ifname) : NULL;
	if (!what)
		return;
	char text[NCCL_LOG_TEXT];
	snprintf(text, sizeof(text), "%s over %s, not the fabric (%s): set NCCL_SOCKET_IFNAME to "
		 "the interface the nodes reach each other on", label, ifname, what);
	add_warning(a, NCCL_W_NOT_FABRIC, role, ifname, text);
}

/* The plugin's end state and the warnings, from what the lines said. */
static void finish_warnings(struct nccl_log *a)
{
	const char *asked = nccl_log_env(a, "NCCL_NET_PLUGIN");
	a->plugin_error[0] = '\0';
	if (a->plugin != NCCL_PLUGIN_LOADED) {
		const char *why = a->st.plugin_fail[0] ? a->st.plugin_fail : a->st.plugin_missing;
		char buf[NCCL_LOG_TEXT];
		if (!why[0] && asked && strcasecmp(asked, "none") != 0 && a->plugin == NCCL_PLUGIN_NONE) {
			snprintf(buf, sizeof(buf), "NCCL_NET_PLUGIN=%s not found", asked);
			why = buf;
		}
		if (why[0]) {
			a->plugin = NCCL_PLUGIN_FAILED;
			copy_str(a->plugin_error, sizeof(a->plugin_error), why);
			char text[NCCL_LOG_TEXT];
			snprintf(text, sizeof(text), "the net plugin did not load; NCCL used its internal "
				 "IB/Socket instead: %s", why);
			add_warning(a, NCCL_W_PLUGIN_FAILED, "", "", text);
		}
	}
	if_warning(a, "bootstrap", "bootstrap", a->bootstrap_if);
	if (nccl_log_used_rdma(a))
		if_warning(a, "oob", "IB out-of-band (QP exchange)", a->oob_if);
	if (nccl_log_used_socket(a))
		for (int i = 0; i < a->st.nsocket_ifs; i++)
			if_warning(a, "socket", "socket traffic", a->st.socket_ifs[i]);
}

void nccl_log_finish(struct nccl_log *a)
{
	if (a->nccl_lines)
		copy_trim(a->last_line, sizeof(a->last_line), a->st.buf[a->st.last], a->st.last_len);
	if (!a->bootstrap_if[0] && a->st.socket_if[0]) {
		/* Versions before "Bootstrap : Using" named it in the socket line. */
		memcpy(a->bootstrap_if, a->st.socket_if, sizeof(a->bootstrap_if));
		memcpy(a->bootstrap_addr, a->st.socket_addr, sizeof(a->bootstrap_addr));
	}
	if (!a->version[0] && a->st.tests_version[0])
		copy_str(a->version, sizeof(a->version), a->st.tests_version);
	a->gdr = gdr_state(a);
	a->reason[0] = '\0';
	a->outcome_reason[0] = '\0';
	a->nwarn = 0;

	for (int i = 0; i < a->ncolls; i++)
		nccl_coll_decide(&a->colls[i]);
	/* Every run printed its summary (a run cut or hung is the outcome). */
	bool summary = a->ncolls > 0 && nccl_log_colls_done(a) == a->ncolls;
	bool completed = summary || (a->destroy_complete > 0 && !a->tests_started);
	if (!a->nccl_lines && !a->tests_started && !a->errors) {
		a->outcome = NCCL_RUN_UNKNOWN;
		a->verdict = NCCL_V_UNKNOWN;
		set_reason(a, "no NCCL lines found", NULL, NULL);
		return;
	}
	finish_warnings(a);

	/* What happened to the run. */
	bool failed = false;
	for (int c = 0; c < 4 && !summary && !failed; c++)
		failed = class_errors(a, c, completed, true) + class_errors(a, c, completed, false) > 0;
	if (failed) {
		a->outcome = NCCL_RUN_FAILED;
		for (int i = 0; i < a->nerr && !a->outcome_reason[0]; i++)
			if (!completed || a->err[i].kind != NCCL_E_OTHER)
				snprintf(a->outcome_reason, sizeof(a->outcome_reason), "stopped by: %s",
					 a->err[i].text);
	} else if (completed) {
		a->outcome = NCCL_RUN_COMPLETED;
		snprintf(a->outcome_reason, sizeof(a->outcome_reason), "%s", summary ?
			 "nccl-tests printed its summary" : "communicators destroyed");
	} else {
		a->outcome = NCCL_RUN_INCOMPLETE;
		incomplete_reason(a, a->outcome_reason, sizeof(a->outcome_reason));
	}

	/* The cause the log shows, first match wins (nccl_log.h). */
	bool no_net = nccl_log_no_net_channel(a);
	long long wrong = 0;
	char where[NCCL_LOG_TEXT] = "";
	for (int i = 0, at = 0; i < a->ncolls; i++) {
		const struct nccl_log_coll *c = &a->colls[i];
		if (!c->oob_values.ok || c->oob_values.v <= 0)
			continue;
		wrong += c->oob_values.v;
		if (c->name[0] && at < (int)sizeof(where))
			at += snprintf(where + at, sizeof(where) - (size_t)at, "%s%s", at ? ", " : " in ", c->name);
	}
	if (summary && wrong > 0) {
		char buf[NCCL_LOG_TEXT];
		snprintf(buf, sizeof(buf), "%lld wrong values%s", wrong, where);
		a->verdict = NCCL_V_NCCL_ERROR;
		set_reason(a, "nccl-tests found %s (Out of bounds values)", buf, NULL);
	} else if (!summary && error_verdict(a, completed, true)) {
		/* invalid usage, IB, bootstrap, out of memory, CUDA */
	} else if (socket_verdict(a) && a->verdict == NCCL_V_SOCKET_FALLBACK) {
		/* RDMA wanted, sockets used: the cause even of a hang or a timeout */
	} else if (!summary && error_verdict(a, completed, false)) {
		/* a symptom, with no cause shown */
	} else if (nccl_log_used_rdma(a) && a->gdr == NCCL_GDR_OFF && !no_net) {
		a->verdict = NCCL_V_NO_GDR;
		set_reason(a, completed ? "completed over %s without GPUDirect RDMA (staged through "
			   "host memory)" : "%s channels set up without GPUDirect RDMA (staged through "
			   "host memory)", a->nnets ? a->nets[0].name : "RDMA", NULL);
	} else if (!completed) {
		a->verdict = NCCL_V_INCOMPLETE;
		set_reason(a, "%s", a->outcome_reason, NULL);
	} else if (socket_verdict(a)) {
		/* socket-by-config: sockets as asked, completed */
	} else if (no_net) {
		a->verdict = NCCL_V_OK;
		set_reason(a, "completed within one node (%s): no network channel was set up",
			   nccl_log_local_paths(a), NULL);
	} else {
		a->verdict = NCCL_V_OK;
		if (nccl_log_used_rdma(a))
			set_reason(a, "completed over %s, GPUDirect RDMA %s",
				   a->nnets ? a->nets[0].name : "RDMA", nccl_gdr_name(a->gdr));
		else
			set_reason(a, "completed", NULL, NULL);
	}
}
