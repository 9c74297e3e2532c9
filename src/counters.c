/* counters.c - the counter table (counters.h). Meanings from the kernel's
 * sysfs-class-infiniband ABI and drivers/infiniband/hw/mlx5/counters.c;
 * PMA widths are the PortCounters field widths the kernel reads them at
 * (PORT_PMA_ATTR in drivers/infiniband/core/sysfs.c): they saturate there. */
#include <stdint.h>
#include <string.h>
#include "fabtop/counters.h"

#define UNIT_WORDS "4-octet words"

#define PMA(n, u, w, sat, c, bad, l, m) \
	{ .name = n, .dir = "counters", .unit = u, .width = w, .saturates = sat, \
	  .cls = c, .bad_when_grows = bad, .layer = l, .meaning = m }
#define HW(n, u, c, bad, l, m) \
	{ .name = n, .dir = "hw_counters", .unit = u, .width = 32, .saturates = false, \
	  .cls = c, .bad_when_grows = bad, .layer = l, .meaning = m }

const struct fab_counter_def fab_counter_defs[] = {
	PMA("port_xmit_data", UNIT_WORDS, 64, false, CC_DATA, false, "link",
	    "data transmitted, in units of 4 octets"),
	PMA("port_rcv_data", UNIT_WORDS, 64, false, CC_DATA, false, "link",
	    "data received, in units of 4 octets"),
	PMA("port_xmit_packets", "packets", 64, false, CC_PACKETS, false, "link", "packets transmitted"),
	PMA("port_rcv_packets", "packets", 64, false, CC_PACKETS, false, "link", "packets received"),
	PMA("symbol_error", "events", 16, true, CC_ERROR, true, "physical",
	    "minor link errors on a physical lane (cable, connector, signal integrity)"),
	PMA("link_error_recovery", "events", 8, true, CC_ERROR, true, "physical",
	    "times the link retrained successfully after errors"),
	PMA("link_downed", "events", 8, true, CC_ERROR, true, "physical",
	    "times the link failed to recover and went down"),
	PMA("port_rcv_errors", "packets", 16, true, CC_ERROR, true, "link",
	    "packets received with errors (bad CRC, malformed)"),
	PMA("port_rcv_remote_physical_errors", "packets", 16, true, CC_ERROR, true, "link",
	    "packets marked bad by a remote physical error (EBP)"),
	PMA("port_rcv_switch_relay_errors", "packets", 16, true, CC_ERROR, true, "link",
	    "packets the switch could not relay"),
	PMA("local_link_integrity_errors", "events", 4, true, CC_ERROR, true, "physical",
	    "local physical errors beyond the threshold"),
	PMA("excessive_buffer_overrun_errors", "events", 4, true, CC_ERROR, true, "link",
	    "consecutive flow-control update errors (buffer overrun)"),
	PMA("port_xmit_discards", "packets", 16, true, CC_CONGESTION, true, "congestion",
	    "outbound packets discarded because the port was down or congested"),
	PMA("port_xmit_constraint_errors", "packets", 8, true, CC_ERROR, true, "link",
	    "outbound packets not sent because of constraints (partition, filtering)"),
	PMA("port_rcv_constraint_errors", "packets", 8, true, CC_ERROR, true, "link",
	    "inbound packets discarded because of constraints"),
	PMA("VL15_dropped", "packets", 16, true, CC_ERROR, true, "link",
	    "subnet management packets dropped (no buffer)"),
	PMA("port_xmit_wait", "ticks", 32, true, CC_CONGESTION, true, "congestion",
	    "ticks the port had data to send but could not send it"),
	HW("out_of_sequence", "packets", CC_RETRY, true, "transport",
	   "packets received out of sequence (PSN errors): loss on the path"),
	HW("packet_seq_err", "events", CC_RETRY, true, "transport",
	   "NAKs for packet sequence errors received"),
	HW("implied_nak_seq_err", "events", CC_RETRY, true, "transport",
	   "implied NAK sequence errors (a read response arrived out of order)"),
	HW("local_ack_timeout_err", "events", CC_RETRY, true, "transport",
	   "ACK timeouts on the requester: the peer or the path is not answering"),
	HW("rnr_nak_retry_err", "events", CC_RETRY, true, "transport",
	   "receiver-not-ready NAKs: the peer had no receive buffer posted"),
	HW("duplicate_request", "packets", CC_RETRY, true, "transport",
	   "duplicate requests received (the peer retransmitted)"),
	HW("out_of_buffer", "packets", CC_RETRY, true, "transport",
	   "packets dropped for lack of a receive WQE"),
	HW("req_transport_retries_exceeded", "events", CC_RETRY, true, "transport",
	   "requests that gave up after the transport retry count"),
	HW("req_rnr_retries_exceeded", "events", CC_RETRY, true, "transport",
	   "requests that gave up after the RNR retry count"),
	HW("np_cnp_sent", "packets", CC_CONGESTION, true, "congestion",
	   "CNPs sent by the notification point after ECN-marked packets"),
	HW("rp_cnp_handled", "packets", CC_CONGESTION, true, "congestion",
	   "CNPs handled by the reaction point (rate reduced)"),
	HW("np_ecn_marked_roce_packets", "packets", CC_CONGESTION, true, "congestion",
	   "RoCE packets received with the ECN CE mark"),
	HW("rp_cnp_ignored", "packets", CC_CONGESTION, false, "congestion",
	   "CNPs received and ignored by the reaction point"),
};
const int fab_ncounter_defs = (int)(sizeof(fab_counter_defs) / sizeof(fab_counter_defs[0]));

const struct fab_counter_def *counter_def(const char *dir, const char *name)
{
	for (int i = 0; i < fab_ncounter_defs; i++)
		if (strcmp(fab_counter_defs[i].name, name) == 0 &&
		    (!dir || strcmp(fab_counter_defs[i].dir, dir) == 0))
			return &fab_counter_defs[i];
	return NULL;
}

/* ---- the arithmetic ---- */

uint64_t counter_max(int width)
{
	return width <= 0 || width >= 64 ? UINT64_MAX : ((uint64_t)1 << width) - 1;
}

/* The one saturation test (counters.h): a saturating counter narrower
 * than 64 bits at its top. */
static bool at_max(int width, bool saturates, uint64_t v)
{
	return saturates && width > 0 && width < 64 && v == counter_max(width);
}

bool counter_pinned(const struct fab_counter_def *d, uint64_t v)
{
	return d && at_max(d->width, d->saturates, v);
}


int counter_parse_value(const char *buf, size_t len, uint64_t *out)
{
	size_t i = 0, start;
	uint64_t v = 0;
	while (i < len && buf[i] == ' ')
		i++;
	for (start = i; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
		unsigned d = (unsigned)(buf[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (i == start)
		return -1;
	while (i < len && buf[i] == ' ')
		i++;
	if (i < len && buf[i] == '\n')
		i++;
	if (i != len)
		return -1;
	*out = v;
	return 0;
}

struct ctr_step counter_step(uint64_t prev, uint64_t cur, int width, bool saturates,
			     double scale, double dt_s)
{
	struct ctr_step st = { 0 };
	if (width <= 0 || width > 64)
		width = 64;
	uint64_t max = counter_max(width);
	if (cur >= prev) {
		st.delta = cur - prev;
		if (at_max(width, saturates, cur))
			st.flags |= CTR_SATURATED;
	} else if (!saturates && width < 64 && prev <= max &&
		   prev - cur > ((uint64_t)1 << (width - 1))) {
		/* A fall of more than half the range is the counter passing its top,
		 * not a clear: counting from the top gives the exact growth. */
		st.delta = (max - prev) + cur + 1;
		st.flags |= CTR_WRAPPED;
	} else {
		/* Cleared: it grew by at least cur since, but over an unknown time. */
		st.delta = cur;
		st.flags |= CTR_RESET;
		return st;
	}
	if (dt_s > 0) {
		st.rate = (double)st.delta * (scale > 0 ? scale : 1.0) / dt_s;
		st.has_rate = true;
	}
	return st;
}

int counter_value_judge(const struct fab_counter_def *d, const char *buf, size_t len,
			uint64_t *out)
{
	size_t i = 0;
	while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\0'))
		i++;
	if (i == len)
		return -1;
	size_t np = sizeof(CTR_NO_PMA_TEXT) - 1, e = len;
	while (e > i && (buf[e - 1] == '\n' || buf[e - 1] == ' ' || buf[e - 1] == '\0'))
		e--;
	if (e - i == np && memcmp(buf + i, CTR_NO_PMA_TEXT, np) == 0)
		return -2;
	if (counter_parse_value(buf, len, out) != 0)
		return 1;
	return d && *out > counter_max(d->width) ? 1 : 0;
}

bool counter_step_implausible(const struct fab_counter_def *d, const struct ctr_step *st,
			      double line_gbps)
{
	if (!d || !st->has_rate || !(line_gbps > 0))
		return false;
	double bytes_s = line_gbps * 1e9 / 8 * CTR_IMPLAUSIBLE_LINE;
	if (d->cls == CC_DATA)
		return st->rate > bytes_s;
	if (d->cls == CC_PACKETS)
		return st->rate > bytes_s / CTR_MIN_PACKET_BYTES;
	return false;
}

double counter_scale(const struct fab_counter_def *d)
{
	return d && d->unit && strcmp(d->unit, UNIT_WORDS) == 0 ? 4.0 : 1.0;
}

const char *counter_rate_unit(const struct fab_counter_def *d)
{
	if (!d)
		return NULL;
	return counter_scale(d) == 4.0 ? "bytes" : d->unit;
}

const char *counter_class_name(const struct fab_counter_def *d)
{
	static const char *const names[] = {
		[CC_DATA] = "data", [CC_PACKETS] = "packets", [CC_ERROR] = "error",
		[CC_RETRY] = "retry", [CC_CONGESTION] = "congestion",
	};
	return d ? names[d->cls] : NULL;
}

