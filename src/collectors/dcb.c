/*
 * dcb.c - the RoCE traffic-class configuration of the node (dcb.h): DCB
 * netlink per RoCE netdev, MLNX_OFED's global traffic class per port, and
 * the NCCL jobs' NCCL_IB_TC.
 *
 * Live and replay share one path: the live kernel's reply bytes go into
 * the fabtop/dcb.json document (hex), and that document is applied to the
 * model, exactly as a capture's copy is, by the same parser.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <jansson.h>
#include <linux/netlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include "fabtop/collect.h"
#include "fabtop/dcb.h"
#include "fabtop/util.h"
#include "job.h"

#define DCB_DOC "/fabtop/dcb.json"
#define DCB_REPLY_MAX 65536           /* one IEEE reply is under 2 KiB (64 app entries) */

static bool is_roce_netdev(const struct fab_model *m, const char *name)
{
	for (int i = 0; i < m->nnics; i++)
		for (int k = 0; k < m->nics[i].nports; k++) {
			const struct fab_port *p = &m->nics[i].ports[k];
			if (p->ll == FAB_LL_ETH && strcmp(p->netdev, name) == 0)
				return true;
		}
	return false;
}

/* The netdevs asked: each RoCE port's, once, when it is the port's own
 * here and asking does no harm (port_netdev_readable(): DCB's IEEE get
 * makes mlx5 read the same firmware registers as its counters). */
static int roce_netdevs(const struct fab_model *m, const char **names, int max)
{
	int n = 0;
	for (int i = 0; i < m->nnics; i++)
		for (int k = 0; k < m->nics[i].nports; k++) {
			const char *nd = m->nics[i].ports[k].netdev;
			const struct fab_netdev *d;
			bool seen = false;
			if (m->nics[i].ports[k].ll != FAB_LL_ETH || !nd[0] ||
			    port_netdev_readable(m, &m->nics[i], &m->nics[i].ports[k], &d, NULL, 0) != FAB_YES)
				continue;
			for (int j = 0; j < n && !seen; j++)
				seen = strcmp(names[j], nd) == 0;
			if (!seen && n < max)
				names[n++] = nd;
		}
	return n;
}

/* Whether buf holds the NLMSG_ERROR (error or ACK) that ends the answer to seq. */
static bool answer_done(const unsigned char *buf, size_t len, uint32_t seq)
{
	int rem = (int)len;
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem))
		if (h->nlmsg_seq == seq && h->nlmsg_type == NLMSG_ERROR)
			return true;
	return false;
}

/* Sends `dcb pfc show`'s request for ifname and gathers what comes back
 * until the answer's NLMSG_ERROR; rtnetlink answers within the send, so
 * the reads do not wait. 0 with *out (malloc), or -errno. */
static int ask(struct nl_sock *sk, const char *ifname, uint32_t seq, unsigned char **out,
	       size_t *outlen)
{
	unsigned char req[64];
	int n = dcb_request_bytes(ifname, req, sizeof(req));
	*out = NULL;
	*outlen = 0;
	if (n < 0)
		return n;
	((struct nlmsghdr *)req)->nlmsg_seq = seq;
	if (nl_sendto(sk, req, (size_t)n) < 0)
		return -EIO;
	unsigned char *all = NULL;
	size_t have = 0;
	for (int tries = 0; tries < 8 && !answer_done(all, have, seq); tries++) {
		unsigned char *b = NULL;
		struct sockaddr_nl peer;
		int got = nl_recv(sk, &peer, &b, NULL);
		if (got <= 0 || have + (size_t)got > DCB_REPLY_MAX) {
			free(b);
			break;
		}
		unsigned char *na = realloc(all, have + (size_t)got);
		if (!na) {
			free(b);
			free(all);
			return -ENOMEM;
		}
		all = na;
		memcpy(all + have, b, (size_t)got);
		have += (size_t)got;
		free(b);
	}
	if (!have) {
		free(all);
		return -EAGAIN;
	}
	*out = all;
	*outlen = have;
	return 0;
}

json_t *dcb_snapshot_json(const struct fab_model *m, char *err, size_t errlen)
{
	const char *names[64];
	int n = roce_netdevs(m, names, 64);
	json_t *doc = json_object(), *arr = json_array();
	json_object_set_new(doc, "netdevs", arr);
	if (n == 0)
		return doc;
	struct nl_sock *sk = nl_socket_alloc();
	int e = sk ? nl_connect(sk, NETLINK_ROUTE) : -NLE_NOMEM;
	if (e < 0) {
		snprintf(err, errlen, "cannot open a route netlink socket for DCB: %s", nl_geterror(e));
		if (sk)
			nl_socket_free(sk);
		json_decref(doc);
		return NULL;
	}
	nl_socket_set_nonblocking(sk);
	nl_socket_enable_msg_peek(sk);
	for (int i = 0; i < n; i++) {
		json_t *j = json_object();
		unsigned char *buf;
		size_t len;
		uint32_t seq = (uint32_t)i + 1;
		json_object_set_new(j, "name", json_string(names[i]));
		int rc = ask(sk, names[i], seq, &buf, &len);
		if (rc < 0) {
			json_object_set_new(j, "error", json_string(strerror(-rc)));
		} else {
			char *hex = malloc(len * 2 + 1);
			for (size_t k = 0; hex && k < len; k++)
				snprintf(hex + 2 * k, 3, "%02x", buf[k]);
			if (hex && len == 0)
				hex[0] = '\0';
			json_object_set_new(j, "seq", json_integer(seq));
			json_object_set_new(j, "reply", hex ? json_string(hex) : json_null());
			free(hex);
			free(buf);
		}
		json_array_append_new(arr, j);
	}
	nl_socket_free(sk);
	return doc;
}

static int unhex(const char *s, unsigned char **out, size_t *len)
{
	size_t n = strlen(s);
	*out = NULL;
	*len = 0;
	if (n % 2 || n / 2 > DCB_REPLY_MAX)
		return -EBADMSG;
	unsigned char *b = malloc(n / 2 + 1);
	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < n / 2; i++) {
		int v = 0;
		for (int k = 0; k < 2; k++) {
			char c = s[2 * i + k];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (d < 0) {
				free(b);
				return -EBADMSG;
			}
			v = v * 16 + d;
		}
		b[i] = (unsigned char)v;
	}
	*out = b;
	*len = n / 2;
	return 0;
}

static void apply_entry(struct fab_model *m, json_t *e, const char *where)
{
	const char *name = json_string_value(json_object_get(e, "name"));
	int i = name ? model_find_netdev(m, name) : FAB_NO_INDEX;
	if (i == FAB_NO_INDEX)
		return;
	struct fab_netdev *d = &m->netdevs[i];
	const char *error = json_string_value(json_object_get(e, "error"));
	const char *hex = json_string_value(json_object_get(e, "reply"));
	json_t *seq = json_object_get(e, "seq");
	if (error || !hex || !json_is_integer(seq) || json_integer_value(seq) < 0 ||
	    json_integer_value(seq) > UINT32_MAX) {
		d->dcb = FAB_UNKNOWN;
		snprintf(d->dcb_why, sizeof(d->dcb_why), "DCB netlink could not be asked: %.60s",
			 error ? error : "no reply recorded");
		model_note(m, "DCB netlink", "%s: %s: %s; PFC and trust come from sysfs where "
			   "MLNX_OFED has it, else are unknown", where, d->name, d->dcb_why);
		return;
	}
	unsigned char *bytes;
	size_t len;
	struct dcb_reply r;
	int rc = unhex(hex, &bytes, &len);
	if (rc == 0) {
		rc = dcb_parse_reply(bytes, len, (uint32_t)json_integer_value(seq), &r);
		free(bytes);
	}
	if (rc < 0) {
		d->dcb = FAB_UNKNOWN;
		snprintf(d->dcb_why, sizeof(d->dcb_why), "the DCB netlink reply is %s",
			 rc == -ENOMSG ? "not an answer to the request" : "malformed");
		model_note(m, "DCB netlink", "%s: %s: %s; PFC and trust from it are unknown", where,
			   d->name, d->dcb_why);
		return;
	}
	const char *driver = d->pci != FAB_NO_INDEX && d->pci < m->npci ? m->pci[d->pci].driver : "";
	dcb_reply_apply(&r, driver, d);
}

static void apply_doc(struct fab_model *m, json_t *doc, const char *where)
{
	json_t *arr = json_object_get(doc, "netdevs"), *e;
	size_t k;
	if (!json_is_array(arr)) {
		model_note(m, "DCB netlink", "%s: no \"netdevs\" array; PFC and trust from DCB "
			   "netlink are unknown", where);
		return;
	}
	json_array_foreach(arr, k, e)
		if (json_is_object(e))
			apply_entry(m, e, where);
}

static void dcb_netlink(const struct fab_root *r, struct fab_model *m)
{
	char err[256] = "";
	json_t *doc;
	if (r->live) {
		doc = dcb_snapshot_json(m, err, sizeof(err));
		if (!doc) {
			model_note(m, "DCB netlink", "%s; PFC and trust come from sysfs where MLNX_OFED "
				   "has it, else are unknown", err);
			return;
		}
		apply_doc(m, doc, "DCB netlink");
		json_decref(doc);
		return;
	}
	if (!root_exists(r, DCB_DOC)) {
		/* An older capture: only the sysfs files it holds speak. */
		for (int i = 0; i < m->nnetdevs; i++)
			if (is_roce_netdev(m, m->netdevs[i].name))
				snprintf(m->netdevs[i].dcb_why, sizeof(m->netdevs[i].dcb_why),
					 "DCB netlink was not recorded in this capture (no fabtop/dcb.json)");
		return;
	}
	json_error_t je;
	doc = root_load_json(r, DCB_DOC, &je);
	if (!doc) {
		model_note(m, "DCB netlink", "cannot parse %s: line %d: %s (re-capture it with "
			   "`fabtop capture`)", DCB_DOC, je.line, je.text);
		return;
	}
	apply_doc(m, doc, DCB_DOC);
	json_decref(doc);
}

/* MLNX_OFED's tc/<port>/traffic_class of every port; absent upstream. */
static void traffic_classes(const struct fab_root *r, struct fab_model *m)
{
	for (int i = 0; i < m->nnics; i++)
		for (int k = 0; k < m->nics[i].nports; k++) {
			struct fab_port *p = &m->nics[i].ports[k];
			char path[FAB_NAME_LEN + 80], *text;
			size_t len;
			snprintf(path, sizeof(path), "/sys/class/infiniband/%s/tc/%d/traffic_class",
				 m->nics[i].name, p->num);
			int rc = root_read_alloc(r, path, &text, &len);
			if (rc < 0) {
				if (rc != -ENOENT && rc != -ENOTDIR)
					model_note(m, path, "cannot read %s: %s: the port's global traffic "
						   "class is unknown", path, root_strerror(-rc));
				continue;
			}
			if (!dcb_parse_traffic_class(text, &p->tclass))
				model_note(m, path, "unexpected content in %s: \"%.60s\" (expected "
					   "\"Global tclass=N\" or rules ending \",tclass=N\")", path, text);
			free(text);
		}
}

void dcb_job_tc(const struct fab_job_list *l, struct fab_model *m)
{
	int tc = -1, n = 0;
	bool set = true;
	char first[120] = "", other[120] = "";
	m->job_tc = (fab_int){ 0, false };
	m->job_tc_set = false;
	for (int i = 0; i < l->njobs; i++) {
		const struct fab_job *j = &l->jobs[i];
		const char *v = job_var(j, "NCCL_IB_TC");
		char *end;
		long long t = 0;
		char what[120];
		if (v) {
			errno = 0;
			t = strtoll(v, &end, 0);     /* NCCL's ncclLoadParam(): strtoll(str, NULL, 0) */
			if (end == v || *end || errno || t < 0 || t > 255) {
				snprintf(m->job_tc_from, sizeof(m->job_tc_from), "NCCL_IB_TC=%.40s of pid %d "
					 "(%.24s) is not a traffic class (0-255)", v, j->pid, j->comm);
				return;
			}
			snprintf(what, sizeof(what), "NCCL_IB_TC=%s of pid %d (%.24s)", v, j->pid, j->comm);
		} else {
			snprintf(what, sizeof(what), "pid %d (%.24s) without NCCL_IB_TC: NCCL's default "
				 "0", j->pid, j->comm);
			set = false;
		}
		if (n++ == 0) {
			tc = (int)t;
			fab_strlcpy(first, what, sizeof(first));
		} else if ((int)t != tc && !other[0]) {
			fab_strlcpy(other, what, sizeof(other));
		}
	}
	if (n == 0) {
		snprintf(m->job_tc_from, sizeof(m->job_tc_from), "no NCCL job found (%.60s)%s%.100s",
			 l->source[0] ? l->source : "not scanned", l->note[0] ? ": " : "", l->note);
		return;
	}
	if (other[0]) {
		snprintf(m->job_tc_from, sizeof(m->job_tc_from), "the jobs differ: %s; %s", first, other);
		return;
	}
	m->job_tc = fab_int_of(tc);
	m->job_tc_set = set;
	if (n == 1)
		snprintf(m->job_tc_from, sizeof(m->job_tc_from), "%s", first);
	else
		snprintf(m->job_tc_from, sizeof(m->job_tc_from), "%s, and %d more alike", first, n - 1);
}

int collect_dcb(const struct fab_root *r, struct fab_model *m)
{
	const char *names[1];
	traffic_classes(r, m);
	if (roce_netdevs(m, names, 1) == 0)
		return 0;                    /* no RoCE port: no traffic class to judge */
	dcb_netlink(r, m);
	struct fab_job_list l;
	char err[256] = "";
	if (job_scan(r, &l, err, sizeof(err)) == 0) {
		dcb_job_tc(&l, m);
		job_list_free(&l);
	} else {
		snprintf(m->job_tc_from, sizeof(m->job_tc_from), "the NCCL jobs could not be "
			 "listed: %.150s", err);
	}
	return 0;
}
