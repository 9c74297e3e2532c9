/* vocab.c - the words and units every medium prints (vocab.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "fabtop/counters.h"
#include "fabtop/i18n.h"
#include "fabtop/sampler.h"
#include "fabtop/vocab.h"

const char *fab_na(const char *s)
{
	return s && s[0] ? s : "N/A";
}

enum fab_link_layer ll_parse(const char *word)
{
	if (!word || !word[0])
		return FAB_LL_UNKNOWN;
	if (strcmp(word, "InfiniBand") == 0)
		return FAB_LL_IB;
	if (strcmp(word, "Ethernet") == 0)
		return FAB_LL_ETH;
	return FAB_LL_OTHER;
}

const char *ll_name(enum fab_link_layer ll)
{
	switch (ll) {
	case FAB_LL_IB:      return "InfiniBand";
	case FAB_LL_ETH:     return "Ethernet";
	case FAB_LL_OTHER:   return "other";
	case FAB_LL_UNKNOWN: break;
	}
	return NULL;
}

const char *ll_short(enum fab_link_layer ll)
{
	switch (ll) {
	case FAB_LL_IB:      return "IB";
	case FAB_LL_ETH:     return "RoCE";
	case FAB_LL_OTHER:   return "other";
	case FAB_LL_UNKNOWN: break;
	}
	return "N/A";
}

const char *tri_name(enum fab_tri t)
{
	return t == FAB_YES ? "yes" : t == FAB_NO ? "no" : "unknown";
}

const char *tri_word(enum fab_tri t)
{
	static const char *const w[] = { [FAB_UNKNOWN] = N_("unknown"), [FAB_NO] = N_("no"),
					 [FAB_YES] = N_("yes") };
	return t >= FAB_UNKNOWN && t <= FAB_YES ? _(w[t]) : tri_name(t);
}

static const char *state_word(const char *word, fab_int num, char *buf, size_t len)
{
	if (word[0])
		return word;
	if (!num.ok)
		return NULL;
	snprintf(buf, len, "%lld", num.v);
	return buf;
}

const char *port_state_word(const struct fab_port *p, char *buf, size_t len)
{
	return state_word(p->state_str, p->state, buf, len);
}

const char *port_phys_word(const struct fab_port *p, char *buf, size_t len)
{
	return state_word(p->phys_state_str, p->phys_state, buf, len);
}

/* drivers/infiniband/core/sysfs.c: state_show() prints ib_port_state_to_str()
 * (include/rdma/ib_verbs.h), phys_state_show() phys_state_to_str(). */
const char *port_state_name(long long num)
{
	static const char *const words[PORT_STATE_MAX + 1] = {
		"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
	};
	return num >= 0 && num <= PORT_STATE_MAX ? words[num] : NULL;
}

const char *port_phys_name(long long num)
{
	static const char *const words[PORT_PHYS_MAX + 1] = {
		NULL, "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp",
		"LinkErrorRecovery", "Phy Test",
	};
	return num >= 0 && num <= PORT_PHYS_MAX ? words[num] : NULL;
}

const char *fab_subject(const char *dev, int port, char *buf, size_t len)
{
	if (port > 0)
		snprintf(buf, len, "%s/%d", dev, port);
	else
		snprintf(buf, len, "%s", dev);
	return buf;
}

const char *fab_prio_list(fab_int mask, char *buf, size_t len)
{
	size_t n = 0;
	if (!mask.ok)
		return NULL;
	buf[0] = '\0';
	for (int p = 0; p < 8 && n < len; p++)
		if (mask.v >> p & 1)
			n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", p);
	if (!n)
		snprintf(buf, len, "none");
	return buf;
}

const char *fab_fmt_bps(double bps, char *buf, size_t len)
{
	static const char *const unit[] = { "b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s" };
	int u = 0;
	if (!isfinite(bps) || bps < 0)
		bps = 0;
	while (bps >= 1000.0 && u < 4) {
		bps /= 1000.0;
		u++;
	}
	/* Three significant digits, no trailing zeros: 400, 12.5, 1.25. */
	snprintf(buf, len, "%.*f %s", bps >= 100 || bps == floor(bps) ? 0 : bps >= 10 ? 1 : 2,
		 bps, unit[u]);
	/* "12.50" -> "12.5" */
	char *dot = strchr(buf, '.');
	if (dot) {
		char *sp = strchr(dot, ' '), *e = sp;
		while (e > dot + 1 && e[-1] == '0')
			e--;
		if (e == dot + 1)
			e = dot;
		memmove(e, sp, strlen(sp) + 1);
	}
	return buf;
}

const char *fab_fmt_port_rate(const struct fab_port *p, char *buf, size_t len)
{
	size_t n;
	if (!p->rate_gbps.ok) {
		snprintf(buf, len, "%s", fab_na(p->rate_str));
		return buf;
	}
	n = (size_t)snprintf(buf, len, "%g Gb/s", p->rate_gbps.v);
	if (p->width.ok && n < len)
		n += (size_t)snprintf(buf + n, len - n, " %lldX", p->width.v);
	if (p->speed[0] && n < len)
		snprintf(buf + n, len - n, " %s", p->speed);
	return buf;
}

const char *fab_fmt_line_rate(double gbps, char *buf, size_t len)
{
	/* Three significant digits like fab_fmt_bps, but always Gb/s: a PCIe
	 * ceiling of 201.6 is "202 Gb/s" beside the ports' "400 Gb/s". */
	if (!(gbps > 0) || !isfinite(gbps))
		snprintf(buf, len, "N/A");
	else
		snprintf(buf, len, gbps >= 100 ? "%.0f Gb/s" : "%.3g Gb/s", gbps);
	return buf;
}

const char *sev_name(enum fab_severity s)
{
	switch (s) {
	case SEV_INFO:  return "info";
	case SEV_WARN:  return "warning";
	case SEV_ERROR: return "error";
	}
	return "?";
}

const char *sev_word(enum fab_severity s)
{
	switch (s) {
	case SEV_INFO:  return _("info");
	case SEV_WARN:  return _("warning");
	case SEV_ERROR: return _("error");
	}
	return "?";
}

/* Only the panes show it: translated, as sev_word. */
const char *sev_label(enum fab_severity s)
{
	switch (s) {
	case SEV_INFO:  return _("INFO");
	case SEV_WARN:  return _("WARNING");
	case SEV_ERROR: return _("ERROR");
	}
	return "?";
}

static void join(char *buf, size_t len, size_t *n, const char *w)
{
	if (*n < len)
		*n += (size_t)snprintf(buf + *n, len - *n, "%s%s", *n ? "," : "", w);
}

const char *traffic_words(unsigned bits, char *buf, size_t len)
{
	static const struct { unsigned bit; const char *word; } words[] = {
		{ PT_GONE, "GONE" }, { PT_STOPPED, "STOPPED" }, { PT_RETRIES, "RETRIES" },
		{ PT_ERRORS, "ERRORS" }, { PT_CONGESTED, "CONGESTED" },
		{ PT_IMPLAUSIBLE, "IMPLAUSIBLE" },
	};
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (bits & words[i].bit)
			join(buf, len, &n, words[i].word);
	if (!n)
		snprintf(buf, len, "%s", bits & PT_WAIT ? "-" : bits & PT_IDLE ? "idle" : "ok");
	return buf;
}

const char *ctr_flag_words(unsigned flags, char *buf, size_t len,
			   void (*each)(void *ctx, const char *word), void *ctx)
{
	static const struct { unsigned bit; const char *word; } words[] = {
		{ CTR_RESET, "RESET" }, { CTR_WRAPPED, "WRAP" }, { CTR_SATURATED, "PINNED" },
		{ CTR_GONE, "GONE" }, { CTR_FIRST, "NEW" }, { CTR_UNREADABLE, "UNREADABLE" },
		{ CTR_IMPLAUSIBLE, "IMPLAUSIBLE" }, { CTR_HELD, "HELD" },
	};
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (flags & words[i].bit) {
			join(buf, len, &n, words[i].word);
			if (each)
				each(ctx, words[i].word);
		}
	return buf;
}

const char *fab_verdict_name(enum fab_verdict v)
{
	switch (v) {
	case FAB_VERDICT_OK:       return "ok";
	case FAB_VERDICT_FINDINGS: return "findings";
	default:                   return "unknown";
	}
}
