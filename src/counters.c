/* counters.c - the counter table (counters.h). Meanings from the kernel's
 * sysfs-class-infiniband ABI and drivers/infiniband/hw/mlx5/counters.c;
 * PMA widths are the PortCounters field widths the kernel reads them at
 * (PORT_PMA_ATTR in drivers/infiniband/core/sysfs.c): they saturate there. */
#include <string.h>
#include "fabtop/counters.h"

#define PMA(n, u, w, sat, c, bad, l, m) \
	{ .name = n, .dir = "counters", .unit = u, .width = w, .saturates = sat, \
	  .cls = c, .bad_when_grows = bad, .layer = l, .meaning = m }
#define HW(n, u, c, bad, l, m) \
	{ .name = n, .dir = "hw_counters", .unit = u, .width = 32, .saturates = false, \
	  .cls = c, .bad_when_grows = bad, .layer = l, .meaning = m }

const struct fab_counter_def fab_counter_defs[] = {
	PMA("port_xmit_data", "4-octet words", 64, false, CC_DATA, false, "link",
	    "data transmitted, in units of 4 octets"),
	PMA("port_rcv_data", "4-octet words", 64, false, CC_DATA, false, "link",
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
