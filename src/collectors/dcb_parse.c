/*
 * dcb_parse.c - the pure half of dcb.h: the DCB netlink request and the
 * parser of its reply, what a reply says about a netdev, and MLNX_OFED's
 * traffic_class file. No I/O here (dcb.c asks the kernel and records), so
 * the unit tests and fuzz/fuzz_dcb.c run exactly this code.
 *
 * The reply is laid out by the kernel's dcbnl_ieee_fill() (net/dcb/dcbnl.c,
 * torvalds/linux): DCB_ATTR_IFNAME, then the nest DCB_ATTR_IEEE holding
 * DCB_ATTR_IEEE_ETS (struct ieee_ets) when the driver has ieee_getets,
 * _MAXRATE, _QCN, _QCN_STATS, DCB_ATTR_IEEE_PFC (struct ieee_pfc) when it
 * has ieee_getpfc, DCB_ATTR_DCB_BUFFER, always the nest
 * DCB_ATTR_IEEE_APP_TABLE of DCB_ATTR_IEEE_APP (struct dcb_app) entries,
 * then the peer's ETS/PFC/APP; after the nest DCB_ATTR_DCBX (u8) when the
 * driver has getdcbx. A netdev without dcbnl_ops gets NLMSG_ERROR
 * -EOPNOTSUPP from dcb_doit() before any of that.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include "fabtop/dcb.h"
#include "fabtop/util.h"

/* Nested attributes are walked with nla_for_each_nested; the binary
 * structs are length-checked here, so a short one is left out rather than
 * failing the whole reply. */
static struct nla_policy top_policy[DCB_ATTR_MAX + 1] = {
	[DCB_ATTR_IEEE] = { .type = NLA_NESTED },
	[DCB_ATTR_DCBX] = { .type = NLA_U8 },
};

static struct nla_policy ieee_policy[DCB_ATTR_IEEE_MAX + 1] = {
	[DCB_ATTR_IEEE_APP_TABLE] = { .type = NLA_NESTED },
};

static void parse_pfc(struct nlattr *a, struct dcb_reply *out)
{
	struct ieee_pfc pfc;
	size_t n = (size_t)nla_len(a);
	if (n < offsetof(struct ieee_pfc, pfc_en) + 1)
		return;
	memset(&pfc, 0, sizeof(pfc));
	memcpy(&pfc, nla_data(a), n < sizeof(pfc) ? n : sizeof(pfc));
	out->pfc_ok = true;
	out->pfc_cap = pfc.pfc_cap;
	out->pfc_en = pfc.pfc_en;
	if (n >= sizeof(pfc)) {
		out->pfc_counts_ok = true;
		for (int p = 0; p < DCB_NPRIO; p++) {
			out->pfc_requests[p] = pfc.requests[p];
			out->pfc_indications[p] = pfc.indications[p];
		}
	}
}

static void parse_ets(struct nlattr *a, struct dcb_reply *out)
{
	struct ieee_ets ets;
	size_t n = (size_t)nla_len(a);
	if (n < offsetof(struct ieee_ets, prio_tc) + sizeof(ets.prio_tc))
		return;
	memcpy(&ets, nla_data(a), n < sizeof(ets) ? n : sizeof(ets));
	out->ets_ok = true;
	memcpy(out->prio_tc, ets.prio_tc, sizeof(out->prio_tc));
}

/* DSCP entries as dcb_ieee_getapp_dscp_prio_mask_map() counts them:
 * selector DSCP, protocol < 64, priority < 8. */
static void parse_apps(struct nlattr *table, struct dcb_reply *out)
{
	struct nlattr *a;
	int rem;
	out->app_ok = true;
	nla_for_each_nested(a, table, rem) {
		struct dcb_app app;
		if (nla_type(a) != DCB_ATTR_IEEE_APP || nla_len(a) < (int)sizeof(app))
			continue;
		memcpy(&app, nla_data(a), sizeof(app));
		out->napp++;
		if (app.selector != IEEE_8021QAZ_APP_SEL_DSCP || app.protocol >= DCB_NDSCP ||
		    app.priority >= DCB_NPRIO)
			continue;
		out->ndscp++;
		int8_t *m = &out->dscp2prio[app.protocol];
		if (*m == DCB_DSCP_NONE)
			*m = (int8_t)app.priority;
		else if (*m != (int8_t)app.priority)
			*m = DCB_DSCP_SEVERAL;
	}
}

static int parse_getdcb(struct nlmsghdr *h, struct dcb_reply *out)
{
	struct nlattr *tb[DCB_ATTR_MAX + 1], *ieee[DCB_ATTR_IEEE_MAX + 1];
	if (h->nlmsg_len < NLMSG_HDRLEN + sizeof(struct dcbmsg))
		return -EBADMSG;
	const struct dcbmsg *dm = nlmsg_data(h);
	if (dm->cmd != DCB_CMD_IEEE_GET)
		return -EBADMSG;
	if (nlmsg_parse(h, sizeof(struct dcbmsg), tb, DCB_ATTR_MAX, top_policy) < 0)
		return -EBADMSG;
	if (tb[DCB_ATTR_IFNAME]) {
		size_t n = (size_t)nla_len(tb[DCB_ATTR_IFNAME]);
		if (n >= sizeof(out->ifname))
			n = sizeof(out->ifname) - 1;
		memcpy(out->ifname, nla_data(tb[DCB_ATTR_IFNAME]), n);
		out->ifname[n] = '\0';
	}
	if (tb[DCB_ATTR_DCBX]) {
		out->dcbx_ok = true;
		out->dcbx = nla_get_u8(tb[DCB_ATTR_DCBX]);
	}
	if (!tb[DCB_ATTR_IEEE])
		return 0;
	out->ieee = true;
	if (nla_parse_nested(ieee, DCB_ATTR_IEEE_MAX, tb[DCB_ATTR_IEEE], ieee_policy) < 0)
		return -EBADMSG;
	if (ieee[DCB_ATTR_IEEE_PFC])
		parse_pfc(ieee[DCB_ATTR_IEEE_PFC], out);
	if (ieee[DCB_ATTR_IEEE_ETS])
		parse_ets(ieee[DCB_ATTR_IEEE_ETS], out);
	if (ieee[DCB_ATTR_IEEE_APP_TABLE])
		parse_apps(ieee[DCB_ATTR_IEEE_APP_TABLE], out);
	return 0;
}

int dcb_parse_reply(const void *buf, size_t len, uint32_t seq, struct dcb_reply *out)
{
	memset(out, 0, sizeof(*out));
	memset(out->dscp2prio, DCB_DSCP_NONE, sizeof(out->dscp2prio));
	if (!buf || len > INT_MAX)
		return -EBADMSG;
	int rem = (int)len;
	/* libnl's walkers take non-const pointers; they only read. */
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
		if (h->nlmsg_seq != seq)
			continue;
		if (h->nlmsg_type == NLMSG_ERROR) {
			int e;
			if (h->nlmsg_len < NLMSG_HDRLEN + sizeof(e))
				return -EBADMSG;
			memcpy(&e, nlmsg_data(h), sizeof(e));
			if (e == 0)
				continue;          /* the ACK (NLM_F_ACK) after a reply */
			if (e > 0 || e < -4095)
				return -EBADMSG;
			out->err = e;
			return 0;
		}
		if (h->nlmsg_type == RTM_GETDCB) {
			int rc = parse_getdcb(h, out);
			if (rc < 0) {
				struct dcb_reply z;
				memset(&z, 0, sizeof(z));
				memset(z.dscp2prio, DCB_DSCP_NONE, sizeof(z.dscp2prio));
				*out = z;     /* nothing half-parsed survives */
			}
			return rc;
		}
	}
	return -ENOMSG;
}

int dcb_request_bytes(const char *ifname, void *buf, size_t len)
{
	struct dcbmsg dm = { .dcb_family = AF_UNSPEC, .cmd = DCB_CMD_IEEE_GET };
	if (!ifname || !*ifname || strlen(ifname) >= 16)
		return -EINVAL;
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETDCB, NLM_F_REQUEST | NLM_F_ACK);
	if (!msg)
		return -ENOMEM;
	int rc = -ENOMEM;
	if (nlmsg_append(msg, &dm, sizeof(dm), NLMSG_ALIGNTO) == 0 &&
	    nla_put_string(msg, DCB_ATTR_IFNAME, ifname) == 0) {
		struct nlmsghdr *h = nlmsg_hdr(msg);
		h->nlmsg_seq = 0;
		h->nlmsg_pid = 0;
		if (h->nlmsg_len > len) {
			rc = -ENOSPC;
		} else {
			memcpy(buf, h, h->nlmsg_len);
			rc = (int)h->nlmsg_len;
		}
	}
	nlmsg_free(msg);
	return rc;
}

void dcb_reply_apply(const struct dcb_reply *r, const char *driver, struct fab_netdev *d)
{
	if (r->err) {
		d->dcb = r->err == -EOPNOTSUPP ? FAB_NO : FAB_UNKNOWN;
		if (r->err == -EOPNOTSUPP)
			snprintf(d->dcb_why, sizeof(d->dcb_why), "no DCB on this netdev (the kernel "
				 "answered EOPNOTSUPP: its driver has no DCB operations)");
		else
			snprintf(d->dcb_why, sizeof(d->dcb_why), "DCB netlink answered: %s",
				 strerror(-r->err));
		return;
	}
	d->dcb = FAB_YES;
	d->dcb_why[0] = '\0';
	if (r->pfc_ok) {
		d->pfc_mask = fab_int_of(r->pfc_en);
		fab_strlcpy(d->qos_source, "DCB netlink", sizeof(d->qos_source));
	}
	if (r->dcbx_ok)
		d->dcbx = fab_int_of(r->dcbx);
	d->dscp_map_ok = r->ndscp > 0;
	for (int i = 0; i < DCB_NDSCP; i++)
		d->dscp2prio[i] = r->dscp2prio[i];
	/* mlx5 keeps the app table's DSCP entries exactly while trust is dscp:
	 * all 64 added at init when the firmware trusts DSCP
	 * (mlx5e_dcbnl_dscp_app), the first one set switches to dscp and the
	 * last one deleted back to pcp (mlx5e_dcbnl_ieee_setapp/delapp,
	 * drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c). Other drivers
	 * do not promise that, and a sysfs trust file says it directly. */
	if (!d->trust_source[0] && r->app_ok && driver && strcmp(driver, "mlx5_core") == 0) {
		fab_strlcpy(d->qos_trust, r->ndscp > 0 ? "dscp" : "pcp", sizeof(d->qos_trust));
		fab_strlcpy(d->trust_source, "DCB netlink", sizeof(d->trust_source));
	}
}

/* One line of traffic_class: 1 global, 2 a rule, 0 blank, -1 unknown. */
static int tclass_line(const char *s, size_t n, int *value)
{
	static const char global[] = "Global tclass=";
	char b[160];
	long long v;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
		n--;
	if (n == 0)
		return 0;
	if (n >= sizeof(b))
		return -1;
	memcpy(b, s, n);
	b[n] = '\0';
	if (strncmp(b, global, sizeof(global) - 1) == 0) {
		if (!fab_parse_ll(b + sizeof(global) - 1, &v) || v < 0 || v > 255)
			return -1;
		*value = (int)v;
		return 1;
	}
	/* A rule: "src_ip=...,dst_ip=a.b.c.d/N,tclass=N" (tclass_print_*). */
	const char *t = strstr(b, "tclass=");
	if (t && (t == b || t[-1] == ',') && fab_parse_ll(t + 7, &v) && v >= 0 && v <= 255)
		return 2;
	return -1;
}

bool dcb_parse_traffic_class(const char *text, struct fab_tclass *t)
{
	memset(t, 0, sizeof(*t));
	t->set = FAB_NO;
	for (const char *s = text; s && *s;) {
		size_t n = strcspn(s, "\n");
		int v = 0, k = tclass_line(s, n, &v);
		if (k < 0) {
			memset(t, 0, sizeof(*t));
			return false;
		}
		if (k == 1) {
			t->set = FAB_YES;
			t->value = v;
		} else if (k == 2) {
			t->rules++;
		}
		s += n;
		if (*s == '\n')
			s++;
	}
	return true;
}
