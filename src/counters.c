/* counters.c - the counter table (counters.h). Meanings from the kernel's
 * sysfs-class-infiniband ABI and drivers/infiniband/hw/mlx5/counters.c;
 * PMA widths are the PortCounters field widths the kernel reads them at
 * (PORT_PMA_ATTR in drivers/infiniband/core/sysfs.c): they saturate there.
 * The ethtool rows: Documentation/networking/device_drivers/ethernet/
 * mellanox/mlx5/counters.rst (meanings, "Error" vs "Informative") and
 * drivers/net/ethernet/mellanox/mlx5/core/en_stats.c (the exact names). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "fabtop/counters.h"
#include "fabtop/i18n.h"
#include "fabtop/vocab.h"

#define UNIT_WORDS "4-octet words"

#define PMA(n, u, w, sat, c, bad, l, m) \
	{ .name = n, .dir = "counters", .unit = u, .width = w, .saturates = sat, \
	  .cls = c, .bad_when_grows = bad, .layer = l, .meaning = m }
/* A narrow PMA field that pins and that a snapshot does not judge (no
 * warn_at); noun: what the pin hides (counter_pin_hides). */
#define PMAS(n, u, w, c, l, noun_, m) \
	{ .name = n, .dir = "counters", .unit = u, .width = w, .saturates = true, \
	  .cls = c, .bad_when_grows = true, .layer = l, .meaning = m, .noun = noun_ }
/* A PMA error counter a snapshot judges (links.errors): one link_downed or
 * port_rcv_errors already means lost traffic; a few symbol errors or
 * retrains over a long uptime are normal noise; remote physical errors
 * were caused elsewhere on the path. A saturated one is a warning too. */
#define PMAW(n, u, w, c, l, warn, noun_, m) \
	{ .name = n, .dir = "counters", .unit = u, .width = w, .saturates = true, \
	  .cls = c, .bad_when_grows = true, .layer = l, .meaning = m, .warn_at = warn, \
	  .noun = noun_ }
/* mlx5 Q-counters: 32-bit fields of QUERY_Q_COUNTER (mlx5_ib_query_q_counters
 * reads a __be32), so they wrap. */
#define HW(n, u, c, bad, l, warn, m) \
	{ .name = n, .dir = "hw_counters", .unit = u, .width = 32, .saturates = false, \
	  .cls = c, .bad_when_grows = bad, .layer = l, .meaning = m, .warn_at = warn }
/* hw_counters read as 64 bits: the extended PPCNT group
 * (rx_icrc_encapsulated, mlx5_ib_query_ext_ppcnt_counters reads a __be64),
 * the congestion counters (cong_cnts: mlx5_lag_query_cong_counters sums
 * be64 values) and the optional flow counters (packets_op_cnts, cc_*): a
 * fall is a clear, never a wrap. */
#define HW64(n, u, c, bad, l, warn, m) \
	{ .name = n, .dir = "hw_counters", .unit = u, .width = 64, .saturates = false, \
	  .cls = c, .bad_when_grows = bad, .layer = l, .meaning = m, .warn_at = warn }
/* ethtool statistics: u64 in the ETHTOOL_GSTATS ABI. Some are 32-bit
 * fields in the device (link_down_events_phy, the PCIe group) but none is
 * documented to wrap: a fall is read as a clear (driver reload). */
#define ET(n, u, c, bad, l, warn, m) \
	{ .name = n, .dir = "ethtool", .unit = u, .width = 64, .saturates = false, \
	  .cls = c, .bad_when_grows = bad, .layer = l, .meaning = m, .warn_at = warn }
/* A per-priority statistic (8 priorities, "%d" = 0..7); the PFC ones exist
 * only for the priorities PFC is enabled on (en_stats.c
 * mlx5e_grp_per_prio_pfc_fill_strings). */
#define ETP(n, u, c, bad, l, warn, m) \
	{ .name = n, .dir = "ethtool", .unit = u, .width = 64, .saturates = false, \
	  .cls = c, .bad_when_grows = bad, .layer = l, .meaning = m, .warn_at = warn, \
	  .ix = CTR_IX_PRIO }
/* A level in percent of the last second (counters.rst, Device Counters). */
#define ETG(n, l, warn, m) \
	{ .name = n, .dir = "ethtool", .unit = "percent", .width = 64, .saturates = false, \
	  .cls = CC_CONGESTION, .bad_when_grows = false, .layer = l, .meaning = m, \
	  .warn_at = warn, .gauge = true, .gauge_max = 100 }

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
 * Names and groups: drivers/infiniband/hw/mlx5/counters.c (basic_q_cnts,
 * out_of_seq_q_cnts, retrans_q_cnts, extended_err_cnts, roce_accl_cnts,
 * cong_cnts, ext_ppcnt_cnts, and the optional basic_op_cnts,
 * rdmarx/rdmatx_cnp_op_cnts, packets_op_cnts). The new rows of issue 15
 * are traffic (rx_*_requests, rx_dct_connect, unicast/multicast packets,
 * rdma_*) or congestion (cc_*): 0, their own rules judge rates.
 *
 * The ethtool rows follow the same scale (the mlx5 port counters are
 * likewise cleared only when the driver loads):
 *  - 1: a frame lost at the physical or MAC layer that nothing healthy
 *    causes (rx_pcs_symbol_err_phy: errors FEC could not correct, the
 *    issue's "over 0"; FCS, symbol, length and size errors; tx_errors_phy),
 *    a link that went down (link_down_events_phy: the same event as PMA
 *    link_downed, whose threshold is 1), a pause storm that made the
 *    device stop pausing (tx_pause_storm_error_events: drops followed) or
 *    one long enough to warn (tx_pause_storm_warning_events), and module
 *    faults (module_bus_stuck, module_high_temp, module_bad_shorted);
 *    on the host, a frame its own XDP program built wrong (rx_xdp_tx_err:
 *    too long or too short, counters.rst "Error").
 *  - 100: PCIe link recoveries (rx/tx_pci_signal_integrity), like PMA
 *    link_error_recovery: a few at boot or over a long uptime are noise,
 *    a hundred are a slot or riser that keeps retraining; seconds spent
 *    above 30 % PCIe stall (outbound_pci_stalled_*_events): a few under a
 *    burst are normal, a hundred are a host that keeps throttling the NIC.
 *  - 1000: drops for lack of buffers or congestion (rx_discards_phy,
 *    rx_prio%d_buf_discard, rx_prio%d_cong_discard, rx_prio%d_discards,
 *    tx_discards_phy, rx_out_of_buffer, outbound_pci_buffer_overflow,
 *    dev_out_of_buffer, rx_xdp_tx_full): the same loss-recovered-by-retransmission scale
 *    as the Q-counters (a lossless priority should stay near zero; lossy
 *    TCP traffic on the same port adds some).
 *  - 31 for the gauges outbound_pci_stalled_rd/wr: the level (percent)
 *    from which the "PCIe stalls over 30 %" holds (counters.rst
 *    counts a second in _events when the stall is above 30 %).
 *  - 0: traffic, pauses (congestion that the live rules judge by rate),
 *    FEC-corrected bits (normal on PAM4 links: judged as a BER against
 *    rx_bits_phy, not as a total), informative and host-side counters. */

const struct fab_counter_def fab_counter_defs[] = {
	/* ---- PMA PortCounters (ports/N/counters) ---- */
	PMA("port_xmit_data", UNIT_WORDS, 64, false, CC_DATA, false, "link",
	    N_("data transmitted, in units of 4 octets")),
	PMA("port_rcv_data", UNIT_WORDS, 64, false, CC_DATA, false, "link",
	    N_("data received, in units of 4 octets")),
	PMA("port_xmit_packets", "packets", 64, false, CC_PACKETS, false, "link", N_("packets transmitted")),
	PMA("port_rcv_packets", "packets", 64, false, CC_PACKETS, false, "link", N_("packets received")),
	/* PortCountersExtended only (PORT_PMA_ATTR_EXT): 64 bits, no pin. */
	PMA("unicast_xmit_packets", "packets", 64, false, CC_PACKETS, false, "link",
	    N_("unicast packets transmitted (extended PMA)")),
	PMA("unicast_rcv_packets", "packets", 64, false, CC_PACKETS, false, "link",
	    N_("unicast packets received (extended PMA)")),
	PMA("multicast_xmit_packets", "packets", 64, false, CC_PACKETS, false, "link",
	    N_("multicast packets transmitted (extended PMA)")),
	PMA("multicast_rcv_packets", "packets", 64, false, CC_PACKETS, false, "link",
	    N_("multicast packets received (extended PMA)")),
	PMAW("symbol_error", "events", 16, CC_ERROR, "physical", 100, N_("symbol errors"),
	    N_("minor link errors on a physical lane (cable, connector, signal integrity)")),
	PMAW("link_error_recovery", "events", 8, CC_ERROR, "physical", 100, N_("link retrains"),
	    N_("times the link retrained successfully after errors")),
	PMAW("link_downed", "events", 8, CC_ERROR, "physical", 1, N_("link downs"),
	    N_("times the link failed to recover and went down")),
	PMAW("port_rcv_errors", "packets", 16, CC_ERROR, "link", 1, N_("receive errors"),
	    N_("packets received with errors (bad CRC, malformed)")),
	PMAW("port_rcv_remote_physical_errors", "packets", 16, CC_ERROR, "link", 100,
	    N_("packets marked bad upstream"),
	    N_("packets marked bad by a remote physical error (EBP)")),
	PMAS("port_rcv_switch_relay_errors", "packets", 16, CC_ERROR, "link", N_("relay errors"),
	    N_("packets the switch could not relay")),
	PMAW("local_link_integrity_errors", "events", 4, CC_ERROR, "physical", 1,
	    N_("link integrity errors"), N_("local physical errors beyond the threshold")),
	PMAW("excessive_buffer_overrun_errors", "events", 4, CC_ERROR, "link", 1,
	    N_("buffer overruns"), N_("consecutive flow-control update errors (buffer overrun)")),
	PMAS("port_xmit_discards", "packets", 16, CC_CONGESTION, "congestion", N_("transmit discards"),
	    N_("outbound packets discarded because the port was down or congested")),
	PMAS("port_xmit_constraint_errors", "packets", 8, CC_ERROR, "link", N_("constraint errors"),
	    N_("outbound packets not sent because of constraints (partition, filtering)")),
	PMAS("port_rcv_constraint_errors", "packets", 8, CC_ERROR, "link", N_("constraint errors"),
	    N_("inbound packets discarded because of constraints")),
	PMAS("VL15_dropped", "packets", 16, CC_ERROR, "link", N_("dropped management packets"),
	    N_("subnet management packets dropped (no buffer)")),
	PMAS("port_xmit_wait", "ticks", 32, CC_CONGESTION, "congestion",
	    N_("waits (congestion)"), N_("ticks the port had data to send but could not send it")),

	/* ---- the driver's hw_counters (mlx5) ---- */
	HW("req_transport_retries_exceeded", "events", CC_RETRY, true, "transport", 1,
	   N_("requests that gave up after the transport retry count: the QP went to error")),
	HW("req_rnr_retries_exceeded", "events", CC_RETRY, true, "transport", 1,
	   N_("requests that gave up after the RNR retry count: the QP went to error")),
	HW("req_cqe_error", "events", CC_ERROR, true, "transport", 1,
	   N_("work requests completed with an error at the requester (the QP went to error)")),
	HW("req_remote_access_errors", "events", CC_ERROR, true, "transport", 1,
	   N_("remote access errors at the requester: the peer refused the memory key or range")),
	HW("req_remote_invalid_request", "events", CC_ERROR, true, "transport", 1,
	   N_("invalid-request NAKs at the requester: the peer rejected the request")),
	HW("resp_remote_access_errors", "events", CC_ERROR, true, "transport", 1,
	   N_("remote access errors at the responder: a request with a bad memory key or range")),
	HW("resp_local_length_error", "events", CC_ERROR, true, "transport", 1,
	   N_("incoming messages longer than the posted receive buffer")),
	HW64("rx_icrc_encapsulated", "packets", CC_ERROR, true, "transport", 1,
	   N_("RoCE packets received with a bad ICRC: corrupted between the two HCAs")),
	HW("resp_cqe_error", "events", CC_ERROR, true, "transport", CTR_WARN_NEVER,
	   N_("receives completed with an error at the responder (also the ones left posted at exit)")),
	HW("local_ack_timeout_err", "events", CC_RETRY, true, "transport", 100,
	   N_("ACK timeouts on the requester: the peer or the path is not answering")),
	HW("roce_adp_retrans_to", "events", CC_RETRY, true, "transport", 100,
	   N_("RoCE adaptive retransmission timeouts: no ACK within the adaptive timeout")),
	HW("out_of_sequence", "packets", CC_RETRY, true, "transport", 1000,
	   N_("packets received out of sequence (PSN errors): loss on the path")),
	HW("packet_seq_err", "events", CC_RETRY, true, "transport", 1000,
	   N_("NAKs for packet sequence errors received")),
	HW("implied_nak_seq_err", "events", CC_RETRY, true, "transport", 1000,
	   N_("implied NAK sequence errors (a read response arrived out of order)")),
	HW("rnr_nak_retry_err", "events", CC_RETRY, true, "transport", 1000,
	   N_("receiver-not-ready NAKs: the peer had no receive buffer posted")),
	HW("duplicate_request", "packets", CC_RETRY, true, "transport", 1000,
	   N_("duplicate requests received (the peer retransmitted)")),
	HW("out_of_buffer", "packets", CC_RETRY, true, "transport", 1000,
	   N_("packets dropped for lack of a receive WQE")),
	HW("roce_adp_retrans", "events", CC_RETRY, true, "transport", 1000,
	   N_("RoCE adaptive retransmissions (packets sent again after a loss)")),
	HW("roce_slow_restart", "events", CC_RETRY, true, "transport", 1000,
	   N_("times RoCE slow restart was used (the send rate restarted low after a loss)")),
	HW("roce_slow_restart_cnps", "packets", CC_RETRY, false, "transport", 0,
	   N_("CNPs that RoCE slow restart generated")),
	HW("roce_slow_restart_trans", "events", CC_RETRY, false, "transport", 0,
	   N_("times RoCE slow restart changed state to slow restart")),
	HW("req_cqe_flush_error", "events", CC_ERROR, false, "transport", 0,
	   N_("requests flushed because their QP was already in error (follows another error)")),
	HW("resp_cqe_flush_error", "events", CC_ERROR, false, "transport", 0,
	   N_("receives flushed because their QP was already in error or torn down")),
	HW64("np_cnp_sent", "packets", CC_CONGESTION, true, "congestion", 0,
	   N_("CNPs sent by the notification point after ECN-marked packets")),
	HW64("rp_cnp_handled", "packets", CC_CONGESTION, true, "congestion", 0,
	   N_("CNPs handled by the reaction point (rate reduced)")),
	HW64("np_ecn_marked_roce_packets", "packets", CC_CONGESTION, true, "congestion", 0,
	   N_("RoCE packets received with the ECN CE mark")),
	HW64("rp_cnp_ignored", "packets", CC_CONGESTION, false, "congestion", 0,
	   N_("CNPs received and ignored by the reaction point")),
	/* basic_q_cnts: what the port's peers asked of it. */
	HW("rx_write_requests", "requests", CC_PACKETS, false, "transport", 0,
	   N_("RDMA WRITE requests received")),
	HW("rx_read_requests", "requests", CC_PACKETS, false, "transport", 0,
	   N_("RDMA READ requests received")),
	HW("rx_atomic_requests", "requests", CC_PACKETS, false, "transport", 0,
	   N_("atomic requests received")),
	HW("rx_dct_connect", "requests", CC_PACKETS, false, "transport", 0,
	   N_("DC target connect requests received")),
	/* Optional counters (IB_STAT_FLAG_OPTIONAL: zero until `rdma statistic
	 * set link DEV/PORT optional-counters ...` enables them); flow counters,
	 * 64 bits. */
	HW64("cc_rx_ce_pkts", "packets", CC_CONGESTION, false, "congestion", 0,
	   N_("RoCE packets received with the ECN CE mark (optional counter)")),
	HW64("cc_rx_cnp_pkts", "packets", CC_CONGESTION, false, "congestion", 0,
	   N_("CNPs received (optional counter)")),
	HW64("cc_tx_cnp_pkts", "packets", CC_CONGESTION, false, "congestion", 0,
	   N_("CNPs sent (optional counter)")),
	HW64("rdma_tx_packets", "packets", CC_PACKETS, false, "transport", 0,
	   N_("RDMA packets sent (optional counter)")),
	HW64("rdma_tx_bytes", "bytes", CC_DATA, false, "transport", 0,
	   N_("RDMA bytes sent (optional counter)")),
	HW64("rdma_rx_packets", "packets", CC_PACKETS, false, "transport", 0,
	   N_("RDMA packets received (optional counter)")),
	HW64("rdma_rx_bytes", "bytes", CC_DATA, false, "transport", 0,
	   N_("RDMA bytes received (optional counter)")),

	/* ---- the netdev's ethtool statistics (mlx5e) ---- */
	/* Physical port: IEEE 802.3, RFC 2863, RFC 2819 groups. */
	ET("rx_bytes_phy", "bytes", CC_DATA, false, "link", 0,
	   N_("bytes received on the physical port (Ethernet header and FCS included; RoCE too)")),
	ET("tx_bytes_phy", "bytes", CC_DATA, false, "link", 0,
	   N_("bytes transmitted on the physical port (RoCE too)")),
	ET("rx_packets_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("packets received on the physical port, bad frames excluded (RoCE too)")),
	ET("tx_packets_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("packets transmitted on the physical port (RoCE too)")),
	ET("rx_multicast_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("multicast packets received on the physical port")),
	ET("tx_multicast_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("multicast packets transmitted on the physical port")),
	ET("rx_broadcast_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("broadcast packets received on the physical port")),
	ET("tx_broadcast_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("broadcast packets transmitted on the physical port")),
	ET("rx_crc_errors_phy", "packets", CC_ERROR, true, "physical", 1,
	   N_("frames dropped for a bad FCS: check rx_pcs_symbol_err_phy and the BER")),
	ET("rx_in_range_len_errors_phy", "packets", CC_ERROR, true, "link", 1,
	   N_("frames dropped for a length/type error")),
	ET("rx_out_of_range_len_phy", "packets", CC_ERROR, true, "link", 1,
	   N_("frames dropped for a length above the allowed: the peer's MTU is larger")),
	ET("rx_oversize_pkts_phy", "packets", CC_ERROR, true, "link", 1,
	   N_("frames dropped for exceeding the MTU: the peer's MTU is larger")),
	ET("rx_symbol_err_phy", "packets", CC_ERROR, true, "physical", 1,
	   N_("frames dropped for physical coding (symbol) errors")),
	ET("rx_mac_control_phy", "packets", CC_CONGESTION, false, "link", 0,
	   N_("MAC control frames received (pause frames among them)")),
	ET("tx_mac_control_phy", "packets", CC_CONGESTION, false, "link", 0,
	   N_("MAC control frames transmitted (pause frames among them)")),
	ET("rx_pause_ctrl_phy", "packets", CC_CONGESTION, true, "congestion", 0,
	   N_("pause frames received (all priorities): the network cannot absorb what this port sends")),
	ET("tx_pause_ctrl_phy", "packets", CC_CONGESTION, true, "congestion", 0,
	   N_("pause frames sent (all priorities): this NIC cannot absorb what the network sends")),
	ET("rx_unsupported_op_phy", "packets", CC_ERROR, false, "link", 0,
	   N_("MAC control frames received with an unsupported opcode")),
	ET("rx_discards_phy", "packets", CC_CONGESTION, true, "congestion", 1000,
	   N_("received packets dropped for lack of buffers: the adapter is congested")),
	ET("tx_discards_phy", "packets", CC_CONGESTION, true, "congestion", 1000,
	   N_("packets discarded on transmission (link down, head-of-line drop, pause from the network)")),
	ET("tx_errors_phy", "packets", CC_ERROR, true, "link", 1,
	   N_("transmitted packets dropped for a length above the MTU")),
	ET("rx_undersize_pkts_phy", "packets", CC_ERROR, true, "link", 1,
	   N_("frames dropped for being shorter than 64 bytes (non-standard MTU or malformed)")),
	ET("rx_fragments_phy", "packets", CC_ERROR, true, "link", 1,
	   N_("frames dropped for being shorter than 64 bytes with a bad FCS")),
	ET("rx_jabbers_phy", "packets", CC_ERROR, true, "link", 1,
	   N_("frames dropped for being longer than 64 bytes with a bad FCS")),
	/* Received frame sizes (RFC 2819 histogram, Informative): where the
	 * traffic's sizes sit; RoCE at a 4096 MTU lands in 4096_to_8191. */
	ET("rx_64_bytes_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("frames of 64 bytes received on the physical port")),
	ET("rx_65_to_127_bytes_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("frames of 65 to 127 bytes received on the physical port")),
	ET("rx_128_to_255_bytes_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("frames of 128 to 255 bytes received on the physical port")),
	ET("rx_256_to_511_bytes_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("frames of 256 to 511 bytes received on the physical port")),
	ET("rx_512_to_1023_bytes_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("frames of 512 to 1023 bytes received on the physical port")),
	ET("rx_1024_to_1518_bytes_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("frames of 1024 to 1518 bytes received on the physical port")),
	ET("rx_1519_to_2047_bytes_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("frames of 1519 to 2047 bytes received on the physical port")),
	ET("rx_2048_to_4095_bytes_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("frames of 2048 to 4095 bytes received on the physical port")),
	ET("rx_4096_to_8191_bytes_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("frames of 4096 to 8191 bytes received on the physical port")),
	ET("rx_8192_to_10239_bytes_phy", "packets", CC_PACKETS, false, "link", 0,
	   N_("frames of 8192 to 10239 bytes received on the physical port")),
	/* Physical layer (PPCNT physical layer and statistical groups). */
	ET("link_down_events_phy", "events", CC_ERROR, true, "physical", 1,
	   N_("times the link went down (port flapping: cable or transceiver)")),
	ET("rx_pcs_symbol_err_phy", "events", CC_ERROR, true, "physical", 1,
	   N_("symbol errors FEC did not correct (or with no FEC): high BER, traffic lost")),
	ET("rx_corrected_bits_phy", "bits", CC_ERROR, false, "physical", 0,
	   N_("bits corrected by FEC: the pre-FEC BER is this over rx_bits_phy")),
	ET("rx_bits_phy", "bits", CC_DATA, false, "physical", 0,
	   N_("bits the port could have received (the line's capacity): the BER denominator")),
	{ .name = "rx_err_lane_%d_phy", .dir = "ethtool", .unit = "bits", .width = 64,
	  .cls = CC_ERROR, .bad_when_grows = false, .layer = "physical", .ix = CTR_IX_LANE,
	  .meaning = N_("raw errors on one lane before FEC: compare with rx_corrected_bits_phy") },
	ET("rx_buffer_passed_thres_phy", "events", CC_CONGESTION, true, "congestion", 0,
	   /* xgettext:no-c-format */
	   N_("times the port's receive buffer was over 85 % full")),
	/* Global (802.3x) pause, when enabled instead of PFC. */
	ET("rx_global_pause", "packets", CC_CONGESTION, true, "congestion", 0,
	   N_("global pause frames received: the network cannot absorb what this port sends")),
	ET("rx_global_pause_duration", "microseconds", CC_CONGESTION, false, "congestion", 0,
	   N_("time paused by the network (global pause): the port sent nothing")),
	ET("tx_global_pause", "packets", CC_CONGESTION, true, "congestion", 0,
	   N_("global pause frames sent: this NIC cannot absorb what the network sends")),
	ET("tx_global_pause_duration", "microseconds", CC_CONGESTION, false, "congestion", 0,
	   N_("time this NIC paused the network (global pause)")),
	ET("rx_global_pause_transition", "events", CC_CONGESTION, false, "congestion", 0,
	   N_("Xoff to Xon transitions (global pause)")),
	/* Per priority (PFC). */
	ETP("rx_prio%d_bytes", "bytes", CC_DATA, false, "link", 0,
	    N_("bytes received on this priority")),
	ETP("rx_prio%d_packets", "packets", CC_PACKETS, false, "link", 0,
	    N_("packets received on this priority")),
	ETP("tx_prio%d_bytes", "bytes", CC_DATA, false, "link", 0,
	    N_("bytes transmitted on this priority")),
	ETP("tx_prio%d_packets", "packets", CC_PACKETS, false, "link", 0,
	    N_("packets transmitted on this priority")),
	ETP("rx_prio%d_discards", "packets", CC_CONGESTION, true, "congestion", 1000,
	    N_("packets of this priority discarded for lack of receive buffers")),
	ETP("rx_prio%d_pause", "packets", CC_CONGESTION, true, "congestion", 0,
	    N_("PFC pause frames received on this priority: the network cannot absorb what this port sends")),
	ETP("rx_prio%d_pause_duration", "microseconds", CC_CONGESTION, false, "congestion", 0,
	    N_("time this priority was paused by the network: it sent nothing")),
	ETP("rx_prio%d_pause_transition", "events", CC_CONGESTION, false, "congestion", 0,
	    N_("Xoff to Xon transitions on this priority")),
	ETP("tx_prio%d_pause", "packets", CC_CONGESTION, true, "congestion", 0,
	    N_("PFC pause frames sent on this priority: this NIC cannot absorb what the network sends")),
	ETP("tx_prio%d_pause_duration", "microseconds", CC_CONGESTION, false, "congestion", 0,
	    N_("time this NIC paused the network on this priority")),
	ETP("rx_prio%d_buf_discard", "packets", CC_CONGESTION, true, "congestion", 1000,
	    N_("packets of this priority discarded for lack of per-host receive buffers")),
	ETP("rx_prio%d_cong_discard", "packets", CC_CONGESTION, true, "congestion", 1000,
	    N_("packets of this priority discarded by per-host congestion (WRED)")),
	ETP("rx_prio%d_marked", "packets", CC_CONGESTION, false, "congestion", 0,
	    N_("packets of this priority ECN-marked by per-host congestion")),
	ET("tx_pause_storm_warning_events", "events", CC_CONGESTION, true, "congestion", 1,
	   N_("times the device sent pauses for a long time (the stall warning watermark)")),
	ET("tx_pause_storm_error_events", "events", CC_CONGESTION, true, "congestion", 1,
	   N_("times the device paused so long that it stopped sending pauses: drops followed")),
	/* Module (cable/transceiver) events. */
	ET("module_unplug", "events", CC_ERROR, false, "physical", 0,
	   N_("times the module was ejected")),
	ET("module_bus_stuck", "events", CC_ERROR, true, "physical", 1,
	   N_("times the module's I2C bus was stuck (shorted wire): replace the cable or module")),
	ET("module_high_temp", "events", CC_ERROR, true, "physical", 1,
	   N_("times the module was too hot: ambient temperature, or replace it")),
	ET("module_bad_shorted", "events", CC_ERROR, true, "physical", 1,
	   N_("times the module's cables were shorted: replace the cable or module")),
	/* Device: the PCIe side. */
	ET("rx_pci_signal_integrity", "events", CC_ERROR, true, "pcie", 100,
	   N_("PCIe recoveries for framing or CRC errors: try another slot, firmware, BIOS")),
	ET("tx_pci_signal_integrity", "events", CC_ERROR, true, "pcie", 100,
	   N_("PCIe recoveries the other side started: try another slot, firmware, BIOS")),
	ET("outbound_pci_buffer_overflow", "packets", CC_CONGESTION, true, "pcie", 1000,
	   N_("packets dropped because the PCIe buffer overflowed (traffic above what PCIe carries)")),
	ETG("outbound_pci_stalled_rd", "pcie", 31,
	    /* xgettext:no-c-format */
	    N_("% of the last second the NIC's PCIe reads waited for credits")),
	ETG("outbound_pci_stalled_wr", "pcie", 31,
	    /* xgettext:no-c-format */
	    N_("% of the last second the NIC's PCIe writes waited for credits")),
	ET("outbound_pci_stalled_rd_events", "events", CC_CONGESTION, true, "pcie", 100,
	   N_("seconds in which PCIe reads stalled more than 30 %")),
	ET("outbound_pci_stalled_wr_events", "events", CC_CONGESTION, true, "pcie", 100,
	   N_("seconds in which PCIe writes stalled more than 30 %")),
	ET("dev_out_of_buffer", "events", CC_CONGESTION, true, "host", 1000,
	   N_("times a device-owned queue had too few buffers")),
	/* vPort: what passed the eSwitch, RDMA apart from Ethernet. */
	ET("rx_vport_rdma_unicast_bytes", "bytes", CC_DATA, false, "transport", 0,
	   N_("RDMA unicast bytes received on this function (RoCE, UD, RC)")),
	ET("tx_vport_rdma_unicast_bytes", "bytes", CC_DATA, false, "transport", 0,
	   N_("RDMA unicast bytes transmitted from this function (RoCE, UD, RC)")),
	ET("rx_vport_rdma_unicast_packets", "packets", CC_PACKETS, false, "transport", 0,
	   N_("RDMA unicast packets received on this function")),
	ET("tx_vport_rdma_unicast_packets", "packets", CC_PACKETS, false, "transport", 0,
	   N_("RDMA unicast packets transmitted from this function")),
	ET("rx_vport_rdma_multicast_bytes", "bytes", CC_DATA, false, "transport", 0,
	   N_("RDMA multicast bytes received on this function")),
	ET("tx_vport_rdma_multicast_bytes", "bytes", CC_DATA, false, "transport", 0,
	   N_("RDMA multicast bytes transmitted from this function")),
	ET("rx_vport_rdma_multicast_packets", "packets", CC_PACKETS, false, "transport", 0,
	   N_("RDMA multicast packets received on this function")),
	ET("tx_vport_rdma_multicast_packets", "packets", CC_PACKETS, false, "transport", 0,
	   N_("RDMA multicast packets transmitted from this function")),
	ET("rx_vport_unicast_bytes", "bytes", CC_DATA, false, "link", 0,
	   N_("Ethernet unicast bytes received on this function (not RDMA)")),
	ET("tx_vport_unicast_bytes", "bytes", CC_DATA, false, "link", 0,
	   N_("Ethernet unicast bytes transmitted from this function (not RDMA)")),
	ET("rx_vport_unicast_packets", "packets", CC_PACKETS, false, "link", 0,
	   N_("Ethernet unicast packets received on this function (not RDMA)")),
	ET("tx_vport_unicast_packets", "packets", CC_PACKETS, false, "link", 0,
	   N_("Ethernet unicast packets transmitted from this function (not RDMA)")),
	ET("rx_steer_missed_packets", "packets", CC_ERROR, false, "host", 0,
	   N_("packets received that matched no flow of the NIC's steering tables (dropped)")),
	ET("dev_internal_queue_oob", "packets", CC_CONGESTION, true, "host", 1000,
	   N_("packets dropped for lack of receive WQEs on an internal device queue")),
	/* The netdev's software port (sums of its rings): host-side, and RoCE
	 * traffic bypasses them entirely. */
	ET("rx_packets", "packets", CC_PACKETS, false, "host", 0,
	   N_("packets the netdev's rings received (RoCE bypasses them)")),
	ET("rx_bytes", "bytes", CC_DATA, false, "host", 0,
	   N_("bytes the netdev's rings received (RoCE bypasses them)")),
	ET("tx_packets", "packets", CC_PACKETS, false, "host", 0,
	   N_("packets the netdev's rings sent (RoCE bypasses them)")),
	ET("tx_bytes", "bytes", CC_DATA, false, "host", 0,
	   N_("bytes the netdev's rings sent (RoCE bypasses them)")),
	ET("rx_out_of_buffer", "packets", CC_CONGESTION, true, "host", 1000,
	   N_("times a receive queue had no software buffer for incoming traffic")),
	ET("rx_if_down_packets", "packets", CC_CONGESTION, false, "host", 0,
	   N_("packets dropped because the interface was down")),
	ET("rx_wqe_err", "packets", CC_ERROR, true, "host", 1,
	   N_("wrong opcodes received on the netdev's receive queues")),
	ET("rx_buff_alloc_err", "events", CC_ERROR, true, "host", 1000,
	   N_("failures to allocate a receive buffer (host memory pressure)")),
	ET("tx_queue_dropped", "packets", CC_ERROR, true, "host", 1000,
	   N_("packets dropped on transmit for a DMA mapping failure")),
	ET("tx_cqe_err", "events", CC_ERROR, true, "host", 1,
	   N_("error completions on the netdev's send queues")),
	ET("tx_recover", "events", CC_ERROR, true, "host", 1,
	   N_("times a send queue was recovered after an error")),
	ET("rx_recover", "events", CC_ERROR, true, "host", 1,
	   N_("times a receive queue was recovered after an error")),
	ET("ch_eq_rearm", "events", CC_ERROR, true, "host", 1,
	   N_("times an event queue was recovered (a lost interrupt)")),
	/* More of the software port (sums over the rings), seen in recorded
	 * outputs (tests/fixtures/ethtool/): NAPI, checksum offload, XDP and
	 * the page pool. Host-side and informative unless counters.rst says
	 * "Error"; class packets where there is no better one (never a
	 * finding, never trouble). */
	ET("tx_tso_packets", "packets", CC_PACKETS, false, "host", 0,
	   N_("TSO packets the netdev sent (segmented by the NIC)")),
	ET("tx_tso_bytes", "bytes", CC_DATA, false, "host", 0,
	   N_("TSO bytes the netdev sent (segmented by the NIC)")),
	ET("tx_tso_inner_packets", "packets", CC_PACKETS, false, "host", 0,
	   N_("TSO packets sent with an encapsulated inner header")),
	ET("tx_tso_inner_bytes", "bytes", CC_DATA, false, "host", 0,
	   N_("TSO bytes sent with an encapsulated inner header")),
	ET("tx_added_vlan_packets", "packets", CC_PACKETS, false, "host", 0,
	   N_("packets sent whose VLAN tag the NIC inserted")),
	ET("rx_removed_vlan_packets", "packets", CC_PACKETS, false, "host", 0,
	   N_("packets received whose VLAN tag the NIC stripped")),
	ET("rx_lro_packets", "packets", CC_PACKETS, false, "host", 0,
	   N_("LRO packets received (coalesced by the NIC)")),
	ET("rx_lro_bytes", "bytes", CC_DATA, false, "host", 0,
	   N_("LRO bytes received (coalesced by the NIC)")),
	ET("rx_csum_none", "packets", CC_PACKETS, false, "host", 0,
	   N_("packets received with no checksum offload (CHECKSUM_NONE)")),
	ET("rx_csum_complete", "packets", CC_PACKETS, false, "host", 0,
	   N_("packets received with the NIC's full checksum (CHECKSUM_COMPLETE)")),
	ET("rx_csum_unnecessary_inner", "packets", CC_PACKETS, false, "host", 0,
	   N_("encapsulated packets whose inner checksum the NIC verified")),
	ET("tx_csum_none", "packets", CC_PACKETS, false, "host", 0,
	   N_("packets sent without checksum offload")),
	ET("tx_csum_partial", "packets", CC_PACKETS, false, "host", 0,
	   N_("packets sent with the checksum left to the NIC (CHECKSUM_PARTIAL)")),
	ET("tx_csum_partial_inner", "packets", CC_PACKETS, false, "host", 0,
	   N_("encapsulated packets sent with the inner checksum left to the NIC")),
	ET("tx_queue_stopped", "events", CC_CONGESTION, false, "host", 0,
	   N_("times a send queue was full and stopped (more send buffers may help)")),
	ET("ch_events", "events", CC_PACKETS, false, "host", 0,
	   N_("hard interrupts on the netdev's completion queues")),
	ET("ch_poll", "events", CC_PACKETS, false, "host", 0,
	   N_("NAPI polls of the netdev's channels")),
	ET("ch_arm", "events", CC_PACKETS, false, "host", 0,
	   N_("times a NAPI poll finished and re-armed its completion queues")),
	ET("rx_csum_unnecessary", "packets", CC_PACKETS, false, "host", 0,
	   N_("packets received whose checksum the NIC verified (CHECKSUM_UNNECESSARY)")),
	ET("rx_congst_umr", "events", CC_CONGESTION, false, "host", 0,
	   N_("times a pending UMR (memory registration) request was delayed by congestion")),
	ET("rx_xdp_drop", "packets", CC_PACKETS, false, "host", 0,
	   N_("packets an XDP program dropped (XDP_DROP): not in the other software counters")),
	ET("rx_xdp_redirect", "packets", CC_PACKETS, false, "host", 0,
	   N_("packets an XDP program redirected (XDP_REDIRECT)")),
	ET("rx_xdp_tx_xmit", "packets", CC_PACKETS, false, "host", 0,
	   N_("packets an XDP program sent back out of the port (XDP_TX)")),
	ET("rx_xdp_tx_mpwqe", "events", CC_PACKETS, false, "host", 0,
	   N_("multi-packet send WQEs posted for XDP_TX")),
	ET("rx_xdp_tx_inlnw", "events", CC_PACKETS, false, "host", 0,
	   N_("XDP_TX data segments inlined in their WQE")),
	ET("rx_xdp_tx_nops", "events", CC_PACKETS, false, "host", 0,
	   N_("NOP WQE blocks posted to the XDP send queue")),
	ET("rx_xdp_tx_full", "packets", CC_ERROR, true, "host", 1000,
	   N_("XDP_TX packets dropped because the XDP send queue was full")),
	ET("rx_xdp_tx_err", "packets", CC_ERROR, true, "host", 1,
	   N_("XDP_TX packets dropped for an error (frame too long or too short)")),
	ET("rx_xdp_tx_cqe", "events", CC_PACKETS, false, "host", 0,
	   N_("completions on the XDP_TX send queues")),
	ET("rx_pp_alloc_fast", "events", CC_PACKETS, false, "host", 0,
	   N_("receive pages the page pool handed out from its cache (fast path)")),
	ET("rx_pp_alloc_slow", "events", CC_PACKETS, false, "host", 0,
	   N_("receive pages the page pool allocated one at a time (slow path)")),
	ET("rx_pp_alloc_slow_high_order", "events", CC_PACKETS, false, "host", 0,
	   N_("high-order page allocations on the page pool's slow path")),
	ET("rx_pp_alloc_empty", "events", CC_PACKETS, false, "host", 0,
	   N_("times the page pool's ring was empty and forced a slow allocation")),
	ET("rx_pp_alloc_refill", "events", CC_PACKETS, false, "host", 0,
	   N_("allocations that refilled the page pool's cache")),
	ET("rx_pp_alloc_waive", "events", CC_PACKETS, false, "host", 0,
	   N_("pages from the page pool's ring not cached because of a NUMA mismatch")),
	ET("rx_pp_recycle_cached", "events", CC_PACKETS, false, "host", 0,
	   N_("pages recycled into the page pool's cache")),
};
const int fab_ncounter_defs = (int)(sizeof(fab_counter_defs) / sizeof(fab_counter_defs[0]));

/* The largest number a pattern row's "%d" takes. */
static int ix_max(enum ctr_index ix)
{
	return ix == CTR_IX_PRIO || ix == CTR_IX_LANE ? 7 : -1;
}

/* name against pattern row d: the number its "%d" holds, or -1. Digits
 * as the kernel prints them with %d: no sign, no leading zero. */
static int match_pattern(const struct fab_counter_def *d, const char *name)
{
	const char *pc = strstr(d->name, "%d");
	if (!pc || d->ix == CTR_IX_NONE)
		return -1;
	size_t pre = (size_t)(pc - d->name);
	if (strncmp(name, d->name, pre) != 0)
		return -1;
	const char *p = name + pre;
	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return -1;
	int v = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > ix_max(d->ix))
			return -1;
	}
	return strcmp(p, pc + 2) == 0 ? v : -1;
}

const struct fab_counter_def *counter_def(const char *dir, const char *name)
{
	if (!name)
		return NULL;
	for (int i = 0; i < fab_ncounter_defs; i++) {
		const struct fab_counter_def *d = &fab_counter_defs[i];
		if (dir && strcmp(d->dir, dir) != 0)
			continue;
		if (d->ix == CTR_IX_NONE ? strcmp(d->name, name) == 0 : match_pattern(d, name) >= 0)
			return d;
	}
	return NULL;
}

int counter_index(const struct fab_counter_def *d, const char *name)
{
	return d && name ? match_pattern(d, name) : -1;
}

int counter_prio(const struct fab_counter_def *d, const char *name)
{
	return d && d->ix == CTR_IX_PRIO ? counter_index(d, name) : -1;
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

int counter_pin_hides(const struct fab_counter_def *d, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (!d || !d->saturates || d->width <= 0 || d->width >= 64)
		return -1;
	snprintf(buf, len, _("%s stopped at %llu: later %s no longer show"), d->name,
		 (unsigned long long)counter_max(d->width), d->noun ? _(d->noun) : _("counts"));
	return 0;
}


/* The table's layer words as a person reads them: a context of their own,
 * since "transport" and "link" read otherwise elsewhere. */
#define LAYER_CTX "counter layer"
static const char *const layer_words[] = {
	NC_("counter layer", "physical"), NC_("counter layer", "link"), NC_("counter layer", "pcie"),
	NC_("counter layer", "transport"), NC_("counter layer", "congestion"), NC_("counter layer", "host"),
};

const char *counter_layer_text(const struct fab_counter_def *d)
{
	if (!d || !d->layer)
		return "-";
	for (size_t i = 0; i < sizeof(layer_words) / sizeof(layer_words[0]); i++)
		if (strcmp(d->layer, layer_words[i]) == 0)
			return fab_pgettext(LAYER_CTX, layer_words[i]);
	return d->layer;
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
		if (at_max(width, saturates, cur)) {
			st.flags |= CTR_SATURATED;
			/* Pinned before and after: whatever happened between does not
			 * show, so there is no rate to give, not even 0. */
			if (prev == cur)
				return st;
		}
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
	return counter_value_plausible(d, *out) ? 0 : 1;
}

bool counter_value_plausible(const struct fab_counter_def *d, uint64_t v)
{
	if (!d)
		return true;   /* unknown counters are read as 64-bit */
	if (d->gauge)
		return v <= d->gauge_max;
	return v <= counter_max(d->width);
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
	if (!d || !d->unit)
		return 1.0;
	if (strcmp(d->unit, UNIT_WORDS) == 0)
		return 4.0;
	/* rx_bits_phy: the line's capacity, in bytes like the traffic it
	 * bounds (and checked against the line rate as data is). */
	if (d->cls == CC_DATA && strcmp(d->unit, "bits") == 0)
		return 0.125;
	return 1.0;
}

const char *counter_rate_unit(const struct fab_counter_def *d)
{
	if (!d)
		return NULL;
	return counter_scale(d) != 1.0 ? "bytes" : d->unit;
}

/* The symbols of the table's units once scaled (counter_rate_unit()):
 * what every surface writes after a counter's number. */
static const struct { const char *unit, *sym; } unit_syms[] = {
	{ "bytes", "B" }, { "bits", "bit" }, { "packets", "pkt" }, { "events", "ev" },
	{ "ticks", "tick" }, { "microseconds", "us" }, { "percent", "%" }, { "requests", "req" },
};

const char *counter_unit_symbol(const struct fab_counter_def *d)
{
	const char *u = counter_rate_unit(d);
	for (size_t i = 0; u && i < sizeof(unit_syms) / sizeof(unit_syms[0]); i++)
		if (strcmp(unit_syms[i].unit, u) == 0)
			return unit_syms[i].sym;
	return "";
}

/* 3 significant digits and an SI prefix: 950 -> "950", 12345 -> "12.3k". */
static void si3(double v, char *num, size_t len, char *prefix);

const char *counter_si(double v, char *buf, size_t len)
{
	char num[48], pfx = 0;
	si3(v, num, sizeof(num), &pfx);
	if (pfx)
		snprintf(buf, len, "%s%c", num, pfx);
	else
		snprintf(buf, len, "%s", num);
	return buf;
}

static void si3(double v, char *num, size_t len, char *prefix)
{
	static const char sfx[] = "\0kMGTPE";
	int k = 0;
	while (fabs(v) >= 999.5 && k < 6) {
		v /= 1000.0;
		k++;
	}
	double a = fabs(v);
	if (k == 0)
		snprintf(num, len, v == floor(v) || a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", v);
	else
		snprintf(num, len, "%.*f", a < 9.995 ? 2 : a < 99.95 ? 1 : 0, v);
	*prefix = sfx[k];
}

/* v in the base unit (bytes for data), per second when per_s. */
static const char *amount_text(const struct fab_counter_def *d, double v, bool per_s, bool exact,
			       char *buf, size_t len)
{
	const char *sym = counter_unit_symbol(d);
	bool data = strcmp(sym, "B") == 0;
	char num[48], pfx = '\0';
	if (!isfinite(v))
		v = 0;
	if (data && per_s)   /* data rates are bits/s, as port rates are given */
		return fab_fmt_bps(v * 8.0, buf, len);
	if (exact && !per_s)
		snprintf(num, sizeof(num), "%.0f", v);
	else if (exact)      /* whole numbers from 100/s up, as people read rates */
		snprintf(num, sizeof(num), v >= 100.0 ? "%.0f" : "%.2f", v);
	else if (!per_s && v == floor(v) && fabs(v) < 1e7)   /* counts exact to 7 digits */
		snprintf(num, sizeof(num), "%.0f", v);
	else
		si3(v, num, sizeof(num), &pfx);
	/* Bytes take the prefix on the unit ("46.8 GB"); counted things on
	 * the number ("11.7M pkt"); a unit-less (unknown) counter none. */
	char p[2] = { pfx, '\0' };
	if (data)
		snprintf(buf, len, "%s %s%s", num, p, sym);
	else
		snprintf(buf, len, "%s%s%s%s%s", num, p, sym[0] && strcmp(sym, "%") ? " " : "", sym,
			 per_s ? "/s" : "");
	return buf;
}

const char *counter_amount(const struct fab_counter_def *d, double n, bool exact, char *buf,
			   size_t len)
{
	return amount_text(d, n * counter_scale(d), false, exact, buf, len);
}

const char *counter_rate_text(const struct fab_counter_def *d, const struct ctr_step *st,
			      bool exact, char *buf, size_t len)
{
	if (!st->has_rate) {
		snprintf(buf, len, "-");
		return buf;
	}
	return amount_text(d, st->rate, true, exact, buf, len);
}

const char *counter_class_name(const struct fab_counter_def *d)
{
	static const char *const names[] = {
		[CC_DATA] = "data", [CC_PACKETS] = "packets", [CC_ERROR] = "error",
		[CC_RETRY] = "retry", [CC_CONGESTION] = "congestion",
	};
	return d ? names[d->cls] : NULL;
}

bool counter_is_error_row(const struct fab_counter_def *d)
{
	return d->cls == CC_ERROR || d->bad_when_grows;
}

bool counter_is_xport_row(const struct fab_counter_def *d)
{
	return d->warn_at != 0;
}

/* The one judgement of a total since the last clear (counters.h): the
 * thresholds are the table's warn_at, explained above it. */
enum ctr_total counter_total_judge(const struct fab_counter_def *d, long long total)
{
	if (!d || d->warn_at == 0 || total <= 0)
		return CTR_TOTAL_NONE;
	/* A gauge's "total" is its level: only a high one is worth saying. */
	if (d->gauge)
		return total >= d->warn_at ? CTR_TOTAL_WARN : CTR_TOTAL_NONE;
	/* Saturated: the true count is higher and new errors no longer show. */
	if (counter_pinned(d, (uint64_t)total))
		return CTR_TOTAL_WARN;
	if (d->warn_at == CTR_WARN_NEVER || total < d->warn_at)
		return CTR_TOTAL_INFO;
	return CTR_TOTAL_WARN;
}
