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
/* A PMA error counter a snapshot judges (links.errors): one link_downed or
 * port_rcv_errors already means lost traffic; a few symbol errors or
 * retrains over a long uptime are normal noise; remote physical errors
 * were caused elsewhere on the path. A saturated one is a warning too. */
#define PMAW(n, u, w, c, l, warn, m) \
	{ .name = n, .dir = "counters", .unit = u, .width = w, .saturates = true, \
	  .cls = c, .bad_when_grows = true, .layer = l, .meaning = m, .warn_at = warn }
#define HW(n, u, c, bad, l, warn, m) \
	{ .name = n, .dir = "hw_counters", .unit = u, .width = 32, .saturates = false, \
	  .cls = c, .bad_when_grows = bad, .layer = l, .meaning = m, .warn_at = warn }

/* warn_at: the total since the last clear from which a snapshot warns
 * (links.transport-errors here, links.errors for the PMA rows above; below
 * it, info). mlx5 Q-counters are cleared
 * only when the driver loads, so a total is the port's history since
 * then, and the thresholds are set by what one event costs:
 *  - 1: the counter records work that failed (a QP gave up after its
 *    retries, an access or length error, a request completed in error, a
 *    corrupt packet): each broke a transfer of some job (NCCL's "transport
 *    retry counter exceeded", "remote access error"), so one is a warning.
 *  - 100: a full transport timeout (local_ack_timeout_err,
 *    roce_adp_retrans_to): recovered, but each stalls its QP for the ACK
 *    timeout (NCCL_IB_TIMEOUT=20: about 4 s), so a few over a node's life
 *    are noise and a hundred are a path that keeps losing packets.
 *  - 1000: a loss recovered by retransmission (sequence errors, NAKs,
 *    duplicates, adaptive retransmissions, RNR NAKs): a lossless fabric
 *    stays near zero, a busy RoCE port sees some; thousands are steady loss.
 *  - CTR_WARN_NEVER: resp_cqe_error also counts the receives a job left
 *    posted when it exited (NVIDIA, "Understanding mlx5 Linux counters"),
 *    so its total alone is never more than info.
 *  - 0: no finding (traffic, congestion: its own counters; flushes, which
 *    follow another error or a QP torn down, and are counted there).
 * Names and groups: drivers/infiniband/hw/mlx5/counters.c (retrans_q_cnts,
 * extended_err_cnts, roce_accl_cnts, ext_ppcnt_cnts, cong_cnts). */

const struct fab_counter_def fab_counter_defs[] = {
	PMA("port_xmit_data", UNIT_WORDS, 64, false, CC_DATA, false, "link",
	    "data transmitted, in units of 4 octets"),
	PMA("port_rcv_data", UNIT_WORDS, 64, false, CC_DATA, false, "link",
	    "data received, in units of 4 octets"),
	PMA("port_xmit_packets", "packets", 64, false, CC_PACKETS, false, "link", "packets transmitted"),
	PMA("port_rcv_packets", "packets", 64, false, CC_PACKETS, false, "link", "packets received"),
	PMAW("symbol_error", "events", 16, CC_ERROR, "physical", 100,
	    "minor link errors on a physical lane (cable, connector, signal integrity)"),
	PMAW("link_error_recovery", "events", 8, CC_ERROR, "physical", 100,
	    "times the link retrained successfully after errors"),
	PMAW("link_downed", "events", 8, CC_ERROR, "physical", 1,
	    "times the link failed to recover and went down"),
	PMAW("port_rcv_errors", "packets", 16, CC_ERROR, "link", 1,
	    "packets received with errors (bad CRC, malformed)"),
	PMAW("port_rcv_remote_physical_errors", "packets", 16, CC_ERROR, "link", 100,
	    "packets marked bad by a remote physical error (EBP)"),
	PMA("port_rcv_switch_relay_errors", "packets", 16, true, CC_ERROR, true, "link",
	    "packets the switch could not relay"),
	PMAW("local_link_integrity_errors", "events", 4, CC_ERROR, "physical", 1,
	    "local physical errors beyond the threshold"),
	PMAW("excessive_buffer_overrun_errors", "events", 4, CC_ERROR, "link", 1,
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
	HW("req_transport_retries_exceeded", "events", CC_RETRY, true, "transport", 1,
	   "requests that gave up after the transport retry count: the QP went to error"),
	HW("req_rnr_retries_exceeded", "events", CC_RETRY, true, "transport", 1,
	   "requests that gave up after the RNR retry count: the QP went to error"),
	HW("req_cqe_error", "events", CC_ERROR, true, "transport", 1,
	   "work requests completed with an error at the requester (the QP went to error)"),
	HW("req_remote_access_errors", "events", CC_ERROR, true, "transport", 1,
	   "remote access errors at the requester: the peer refused the memory key or range"),
	HW("req_remote_invalid_request", "events", CC_ERROR, true, "transport", 1,
	   "invalid-request NAKs at the requester: the peer rejected the request"),
	HW("resp_remote_access_errors", "events", CC_ERROR, true, "transport", 1,
	   "remote access errors at the responder: a request with a bad memory key or range"),
	HW("resp_local_length_error", "events", CC_ERROR, true, "transport", 1,
	   "incoming messages longer than the posted receive buffer"),
	HW("rx_icrc_encapsulated", "packets", CC_ERROR, true, "transport", 1,
	   "RoCE packets received with a bad ICRC: corrupted between the two HCAs"),
	HW("resp_cqe_error", "events", CC_ERROR, true, "transport", CTR_WARN_NEVER,
	   "receives completed with an error at the responder (also the ones left posted at exit)"),
	HW("local_ack_timeout_err", "events", CC_RETRY, true, "transport", 100,
	   "ACK timeouts on the requester: the peer or the path is not answering"),
	HW("roce_adp_retrans_to", "events", CC_RETRY, true, "transport", 100,
	   "RoCE adaptive retransmission timeouts: no ACK within the adaptive timeout"),
	HW("out_of_sequence", "packets", CC_RETRY, true, "transport", 1000,
	   "packets received out of sequence (PSN errors): loss on the path"),
	HW("packet_seq_err", "events", CC_RETRY, true, "transport", 1000,
	   "NAKs for packet sequence errors received"),
	HW("implied_nak_seq_err", "events", CC_RETRY, true, "transport", 1000,
	   "implied NAK sequence errors (a read response arrived out of order)"),
	HW("rnr_nak_retry_err", "events", CC_RETRY, true, "transport", 1000,
	   "receiver-not-ready NAKs: the peer had no receive buffer posted"),
	HW("duplicate_request", "packets", CC_RETRY, true, "transport", 1000,
	   "duplicate requests received (the peer retransmitted)"),
	HW("out_of_buffer", "packets", CC_RETRY, true, "transport", 1000,
	   "packets dropped for lack of a receive WQE"),
	HW("roce_adp_retrans", "events", CC_RETRY, true, "transport", 1000,
	   "RoCE adaptive retransmissions (packets sent again after a loss)"),
	HW("roce_slow_restart", "events", CC_RETRY, true, "transport", 1000,
	   "times RoCE slow restart was used (the send rate restarted low after a loss)"),
	HW("roce_slow_restart_cnps", "packets", CC_RETRY, false, "transport", 0,
	   "CNPs that RoCE slow restart generated"),
	HW("roce_slow_restart_trans", "events", CC_RETRY, false, "transport", 0,
	   "times RoCE slow restart changed state to slow restart"),
	HW("req_cqe_flush_error", "events", CC_ERROR, false, "transport", 0,
	   "requests flushed because their QP was already in error (follows another error)"),
	HW("resp_cqe_flush_error", "events", CC_ERROR, false, "transport", 0,
	   "receives flushed because their QP was already in error or torn down"),
	HW("np_cnp_sent", "packets", CC_CONGESTION, true, "congestion", 0,
	   "CNPs sent by the notification point after ECN-marked packets"),
	HW("rp_cnp_handled", "packets", CC_CONGESTION, true, "congestion", 0,
	   "CNPs handled by the reaction point (rate reduced)"),
	HW("np_ecn_marked_roce_packets", "packets", CC_CONGESTION, true, "congestion", 0,
	   "RoCE packets received with the ECN CE mark"),
	HW("rp_cnp_ignored", "packets", CC_CONGESTION, false, "congestion", 0,
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


/* The one judgement of a total since the last clear (counters.h): the
 * thresholds are the table's warn_at, explained above it. */
enum ctr_total counter_total_judge(const struct fab_counter_def *d, long long total)
{
	if (!d || d->warn_at == 0 || total <= 0)
		return CTR_TOTAL_NONE;
	/* Saturated: the true count is higher and new errors no longer show. */
	if (counter_pinned(d, (uint64_t)total))
		return CTR_TOTAL_WARN;
	if (d->warn_at == CTR_WARN_NEVER || total < d->warn_at)
		return CTR_TOTAL_INFO;
	return CTR_TOTAL_WARN;
}
