/* learn_content.c - the exercises and the glossary of `fabtop learn`
 * (learn.h): data only, every text N_() and shown through _().
 *
 * Each exercise names a bundled scenario (tests/scenarios/mkscenarios.py)
 * where its fault is planted, and answers as the panes pick them
 * (view.h, struct fab_pick): Links rows PICK_PORT (dev, port), Counters
 * rows PICK_COUNTER (dev, port, the counter's file name), Topology rows
 * PICK_GPU (PCI address) / PICK_NIC (RDMA device), Job rows PICK_PROCESS
 * (pid) / PICK_SETTING (variable), findings PICK_FINDING (id). An empty
 * dev or name and port 0 match anything. tests/learn/t_content.sh checks
 * every answer against its scenario's reports.
 *
 * Sources of the facts (cited where they are used):
 *  [k-ib]   Linux, Documentation/ABI/stable/sysfs-class-infiniband (ports/N/
 *           state, phys_state, rate, gid_attrs/types, counters/, hw_counters/)
 *  [k-mtu]  Linux, include/rdma/ib_addr.h iboe_get_mtu(): the RoCE MTU is the
 *           largest IB MTU <= netdev MTU - (GRH 40 + UDP 8 + BTH 12 + XRC 4 +
 *           AtomicETH 28 + ICRC 4) = netdev MTU - 96 (FAB_ROCE_MTU_OVERHEAD)
 *  [k-nl]   Linux, drivers/infiniband/core/nldev.c (QP owner: the creating pid)
 *  [mlx5]   NVIDIA MLNX_OFED docs, "Understanding mlx5 Linux Counters" and
 *           "Understanding mlx5 ethtool Counters" (local_ack_timeout_err,
 *           packet_seq_err, out_of_sequence, np_cnp_sent, rp_cnp_handled,
 *           rx_prioN_pause, rx_*_bytes_phy)
 *  [nccl]   NVIDIA NCCL User Guide, "Environment Variables" (NCCL_IB_HCA,
 *           NCCL_SOCKET_IFNAME, NCCL_IB_GID_INDEX, NCCL_IB_DISABLE,
 *           NCCL_IB_TC, NCCL_IB_TIMEOUT, NCCL_IB_RETRY_CNT, NCCL_NET_GDR_LEVEL)
 *           and "RAS" (troubleshooting/ras.html, NCCL >= 2.24, port 28028)
 *  [roce]   IBTA, InfiniBand Architecture Specification Annex A16 (RoCE) and
 *           A17 (RoCEv2: UDP destination port 4791)
 *  [dcb]    IEEE 802.1Qbb (PFC), RFC 3168 (ECN), Zhu et al., "Congestion
 *           Control for Large-Scale RDMA Deployments", SIGCOMM 2015 (DCQCN)
 *  [smi]    nvidia-smi topo -m legend (PIX, PXB, PHB, NODE, SYS)
 *  [pcie]   PCI Express Base Specification, Link Capabilities / Link Status
 *           (LnkCap, LnkSta), 128b/130b encoding from 8 GT/s on
 *  [seed]   the domain reference, seed/rdma-ai-networking.zh.md (§11 the
 *           IB-disable A/B, §12 the test ladder, §13 the counters)
 */
#include <string.h>
#include "fabtop/i18n.h"
#include "fabtop/learn.h"

#define PORT(d, p) { .kind = PICK_PORT, .dev = d, .port = p }
#define COUNTER(d, p, n) { .kind = PICK_COUNTER, .dev = d, .port = p, .name = n }
#define FINDING(id) { .kind = PICK_FINDING, .name = id }
#define SETTING(v) { .kind = PICK_SETTING, .name = v }
#define GPU(bdf) { .kind = PICK_GPU, .dev = bdf }
#define NIC(d) { .kind = PICK_NIC, .dev = d }

const struct learn_exercise learn_exercises[] = {
	{
		.id = "port-down",
		.title = N_("A port that is down"),
		.layer = LEARN_PHYSICAL,
		.scenario = "roce-faults",
		.pane = "links",
		.symptom = N_("The job on this node starts, but NCCL reports one NIC fewer than on its "
			      "neighbours, and one rank's traffic goes through another GPU's NIC."),
		.task = N_("In the Links pane, select the port that carries no link, then press A."),
		.answers = { PORT("mlx5_1", 1), FINDING("links.port-down") },
		.hints = {
			{ LEARN_PHYSICAL, N_("Start at the bottom: is every port's physical state LinkUp? A port "
					     "whose physical state is Disabled or Polling has no signal from the "
					     "cable or the switch.") },
			{ LEARN_LINK, N_("A port whose state is DOWN cannot carry a byte; ACTIVE is the only "
					 "state that moves data. Look at the State column.") },
			{ LEARN_RDMA, N_("Its netdev is down too and it has no carrier: the HCA is fine, the "
					 "cable, the optics or the switch port are not.") },
		},
		.concept = N_("A port has two states. The physical state says whether the lanes have a "
			      "signal (LinkUp, or Polling while it looks for one, or Disabled); the logical "
			      "state says whether the port may carry traffic (DOWN, INIT, ARMED, ACTIVE). "
			      "On RoCE a port without carrier is DOWN and Disabled. link_downed counts links "
			      "lost after they were up, so a port that never came up reads 0 there: check "
			      "the cable, the transceiver and the switch port (ibstat, ethtool, the switch's "
			      "own port view)."),
		.terms = { "port-state", "phys-state", "hca", "rail" },
	},
	{
		.id = "link-downtrained",
		.title = N_("A link that trained at half width"),
		.layer = LEARN_PHYSICAL,
		.scenario = "roce-faults",
		.pane = "links",
		.symptom = N_("All-reduce bandwidth on this node is lower than on its twins, and always by "
			      "the same amount; no error counter grows."),
		.task = N_("In the Links pane, select the port that runs below the rate its card can do, "
			   "then press A."),
		.answers = { PORT("mlx5_2", 1), FINDING("links.rate-degraded") },
		.hints = {
			{ LEARN_PHYSICAL, N_("Compare each port's rate with its siblings'. A 400 Gb/s NDR port "
					     "has 4 lanes of 100 Gb/s: 4X. What does a port showing 2X mean?") },
			{ LEARN_PHYSICAL, N_("The PCIe side can downtrain too (LnkSta below LnkCap): it is a "
					     "different fault, on another NIC here. This one is on the network "
					     "side of the card.") },
			{ LEARN_LINK, N_("The port is ACTIVE and error-free: nothing but the rate tells. Sort "
					 "the Links pane by rate.") },
		},
		.concept = N_("A link trains when it comes up: both ends agree on the number of lanes "
			      "(width, 1X/2X/4X) and the speed per lane (HDR, NDR). A dirty or damaged fibre, "
			      "a bad lane in a cable or a mismatched switch setting can leave a link ACTIVE at "
			      "half its lanes: it works, at half the bandwidth, and no counter complains. PCIe "
			      "does the same between the card and the CPU: a Gen5 x16 slot that trained at x8 "
			      "carries about 252 Gb/s, under what a 400 Gb/s port needs. Compare the rate and "
			      "the PCIe link with what the card can do, never only with 'is it up'."),
		.terms = { "link-width", "pcie-training", "symbol-error", "fec" },
	},
	{
		.id = "far-nic",
		.title = N_("A GPU far from its NIC"),
		.layer = LEARN_RDMA,
		.scenario = "far-nic",
		.pane = "topology",
		.symptom = N_("A two-GPU job runs at the pace of its slowest rank, and rank 1 is always "
			      "the slow one."),
		.task = N_("In the Topology pane, select the GPU whose closest NIC is across the CPU "
			   "interconnect, then press A."),
		.answers = { GPU("0000:81:00.0"), FINDING("topo.nic-far") },
		.hints = {
			{ LEARN_PHYSICAL, N_("Both GPUs' PCIe links are healthy: the fault is not a link but "
					     "where the cards sit.") },
			{ LEARN_RDMA, N_("Read the matrix row of each GPU in the NIC column: PIX means a "
					 "PCIe switch between them, SYS means the path crosses the link "
					 "between the two CPU sockets.") },
			{ LEARN_RDMA, N_("NCCL uses GPUDirect RDMA only when the GPU and the NIC are close on "
					 "PCIe. Which GPU's data must go through host memory instead?") },
			{ LEARN_NCCL, N_("The Job pane's 'What NCCL will do' shows each GPU's NIC, its path "
					 "type and whether GPUDirect RDMA is used.") },
		},
		.concept = N_("GPUDirect RDMA lets the NIC read and write GPU memory directly over PCIe. "
			      "It is fast when the GPU and the NIC share a PCIe switch (PIX or PXB in "
			      "nvidia-smi topo -m); across the CPU interconnect (SYS) NCCL does not use it by "
			      "default and copies through host memory, which costs bandwidth and latency. "
			      "Servers built for training give every GPU a NIC under the same switch (one "
			      "rail per GPU); when a GPU has none close, move the rank, add a NIC, or accept "
			      "the slower path knowingly."),
		.terms = { "gpudirect", "numa", "topo-distance", "rail", "nvlink" },
	},
	{
		.id = "wrong-gid",
		.title = N_("The wrong GID index"),
		.layer = LEARN_IP,
		.scenario = "wrong-gid",
		.pane = "job",
		.symptom = N_("The job starts, connects, and never finishes its first all-reduce; after a "
			      "few minutes NCCL reports 'transport retry counter exceeded'."),
		.task = N_("In the Job pane, select the setting that makes NCCL address its peers with a "
			   "GID they cannot be reached with (or its finding), then press A."),
		.answers = { SETTING("NCCL_IB_GID_INDEX"), FINDING("job.gid-index") },
		.hints = {
			{ LEARN_PHYSICAL, N_("Every port is up at full rate: the cables are not it.") },
			{ LEARN_LINK, N_("The ports are ACTIVE and PFC and ECN are set: the link layer is "
					 "not it either.") },
			{ LEARN_IP, N_("Each RoCE port has a GID table: an entry per address and per RoCE "
				       "version. Look at the Links pane's GID table: which index holds the "
				       "IPv4 address as RoCE v2?") },
			{ LEARN_NCCL, N_("Now compare it with the index the job asks for: the Job pane lists "
					 "the NCCL_* settings each process runs with.") },
		},
		.concept = N_("RDMA addresses a peer by a GID. On RoCE every IP address of the port's "
			      "netdev appears in the GID table twice: as RoCE v1 (an Ethernet frame with no IP "
			      "header, so it stays inside one layer-2 segment) and as RoCE v2 (UDP to port "
			      "4791 over IP, so routers forward it). The index of an entry depends on the "
			      "order addresses were added, so it differs between nodes. NCCL_IB_GID_INDEX "
			      "picks one entry by number; pointing it at a RoCE v1 or a link-local (fe80::) "
			      "entry breaks routed fabrics. Unset it and let NCCL choose a RoCE v2 GID "
			      "(recent NCCL does), or set the index that holds RoCE v2 with the IPv4 address."),
		.terms = { "gid", "gid-index", "roce-v1", "roce-v2", "nccl-ib-gid-index" },
	},
	{
		.id = "mtu-blackhole",
		.title = N_("An MTU black hole"),
		.layer = LEARN_IP,
		.scenario = "mtu-blackhole",
		.pane = "counters",
		.symptom = N_("The job hangs on its first large all-reduce; small messages still pass, and "
			      "the NCCL bootstrap worked."),
		.task = N_("In the Counters pane (or Links), select the port whose large frames vanish "
			   "on the path, then press A."),
		.answers = { PORT("mlx5_5", 1), COUNTER("mlx5_5", 1, "") },
		.hints = {
			{ LEARN_PHYSICAL, N_("No symbol errors, no link lost: the lanes are clean.") },
			{ LEARN_LINK, N_("No pause storm and no drops counted on this node: whatever is "
					 "lost is lost after the packets leave it.") },
			{ LEARN_IP, N_("Every netdev has MTU 9000, so every RoCE port uses 4096-byte "
				       "payloads: frames of about 4.2 KB. Which port keeps sending while its "
				       "received data falls to small frames?") },
			{ LEARN_RDMA, N_("That port's local_ack_timeout_err climbs: its sends are never "
					 "acknowledged, so they wait out the ACK timeout and go again.") },
		},
		.concept = N_("The MTU is the largest frame payload a link carries. RoCE puts about 96 "
			      "bytes of headers around each RDMA payload (IP 20 or 40, UDP 8, BTH 12, more "
			      "for some operations, ICRC 4), so the kernel picks the largest RDMA MTU that "
			      "fits in the netdev MTU less 96: 9000 gives 4096, 4096 gives only 2048. Every "
			      "hop must carry the frame: if one switch port on the path is at 1500, frames "
			      "above it are dropped without a word (RoCE gets no ICMP), small messages pass "
			      "and large ones vanish. That is a black hole. The node cannot see a switch's "
			      "MTU; the wizard's layer 2 probe finds it by sending packets with "
			      "don't-fragment set and halving the size until one passes."),
		.terms = { "mtu", "path-mtu", "retry", "roce-v2" },
	},
	{
		.id = "socket-fallback",
		.title = N_("A job that fell back to sockets"),
		.layer = LEARN_NCCL,
		.scenario = "socket-fallback",
		.pane = "job",
		.symptom = N_("The job runs, but ten times slower than on its neighbours, and the "
			      "InfiniBand ports sit idle."),
		.task = N_("In the Job pane, select the setting that keeps NCCL off the HCAs (or its "
			   "finding), then press A."),
		.answers = { SETTING("NCCL_IB_DISABLE"), FINDING("job.ib-disabled") },
		.hints = {
			{ LEARN_PHYSICAL, N_("The 8 ports are up at 400 Gb/s with clean counters.") },
			{ LEARN_LINK, N_("Nothing moves on them: the Counters pane shows no traffic at all. "
					 "If the fabric is fine, why would a running job not use it?") },
			{ LEARN_RDMA, N_("The job owns no QP on any HCA: RDMA was never set up.") },
			{ LEARN_NCCL, N_("NCCL chooses its network transport from its settings: read the "
					 "NCCL_* variables of the job's processes in the Job pane.") },
		},
		.concept = N_("NCCL moves data between nodes with its IB transport (verbs over "
			      "InfiniBand or RoCE) or, when that is disabled or finds no usable HCA, with "
			      "TCP sockets over the interface NCCL_SOCKET_IFNAME names. Sockets work "
			      "anywhere and are many times slower. NCCL_IB_DISABLE=1 forces them: it is the "
			      "'B' of the IB-disable A/B test, which tells an RDMA fault from an "
			      "application fault (IB fails but sockets work: look at the fabric). Left in a "
			      "job template after such a test, it quietly costs most of the bandwidth. With "
			      "NCCL_DEBUG=INFO the log says which transport was picked (NET/IB or "
			      "NET/Socket)."),
		.terms = { "nccl-ib-disable", "socket-transport", "nccl-socket-ifname", "nccl-ib-hca", "qp" },
	},
	{
		.id = "retries-climbing",
		.title = N_("Retries climbing"),
		.layer = LEARN_RDMA,
		.scenario = "hang",
		.pane = "counters",
		.symptom = N_("The job on this node hangs after an hour; NCCL's watchdog fires, and no "
			      "link went down."),
		.task = N_("In the Counters pane, select a counter that shows the HCAs retrying, then "
			   "press A."),
		.answers = { COUNTER("", 1, "local_ack_timeout_err"), COUNTER("", 1, "packet_seq_err"),
			     FINDING("counters.ack-timeout") },
		.hints = {
			{ LEARN_PHYSICAL, N_("Every port stays ACTIVE at full rate: no link was lost.") },
			{ LEARN_LINK, N_("Watch the traffic columns: 20 s in, six ports stop moving data "
					 "while two go on.") },
			{ LEARN_RDMA, N_("Traffic stopped, but something still counts on those six ports. "
					 "Counters marked as bad when they grow are the ones to look at.") },
			{ LEARN_NCCL, N_("The Job pane and the QP list show which processes own the QPs "
					 "that broke (ERR): the job's ranks.") },
		},
		.concept = N_("A reliable-connected QP resends what the peer does not acknowledge. When "
			      "no ACK comes within the timeout (NCCL_IB_TIMEOUT, 4.096 us x 2^20, about 4 s "
			      "by default) the HCA counts local_ack_timeout_err and retries; a NAK for a gap "
			      "in the sequence counts packet_seq_err. After NCCL_IB_RETRY_CNT tries (7) the "
			      "QP moves to ERR and the job's collective never completes: a hang. A port whose "
			      "traffic stopped while these counters climb points at the peer or the path, not "
			      "this node's link: check the peer node and the switch ports between."),
		.terms = { "retry", "packet-seq-err", "qp", "ras" },
	},
	{
		.id = "lossless-no-pfc",
		.title = N_("A lossless path without PFC"),
		.layer = LEARN_LINK,
		.scenario = "lossless-mismatch",
		.pane = "counters",
		.symptom = N_("Under load, the job's bandwidth collapses every few seconds, and "
			      "out_of_sequence grows on most ports."),
		.task = N_("Select what puts the job's RDMA traffic on a priority without PFC (the "
			   "setting in the Job pane, or the finding), then press A."),
		.answers = { SETTING("NCCL_IB_TC"), FINDING("lossless.rdma-no-pfc"),
			     FINDING("links.tc-no-pfc") },
		.hints = {
			{ LEARN_PHYSICAL, N_("No symbol errors, no link lost: packets are not dropped on the "
					     "wire.") },
			{ LEARN_LINK, N_("PFC is on for priority 3 on every port. On which priority does the "
					 "RDMA traffic actually run? The Counters pane's lossless view shows it "
					 "per priority.") },
			{ LEARN_IP, N_("On a port that trusts DSCP, the priority comes from the IP header's "
				       "DSCP: the traffic class byte shifted right by 2.") },
			{ LEARN_NCCL, N_("NCCL_IB_TC sets that traffic class byte. 3 is not priority 3.") },
		},
		.concept = N_("RoCE needs a network that does not drop: each drop costs a retransmission "
			      "timeout. PFC (IEEE 802.1Qbb) pauses one of eight priorities when a buffer "
			      "fills, instead of dropping, so only traffic on a PFC priority is lossless. "
			      "Which priority a packet gets comes from its DSCP (trust dscp) or its VLAN PCP "
			      "(trust pcp). NCCL_IB_TC is the IP traffic class byte, DSCP x 4 plus the ECN "
			      "bits: NCCL_IB_TC=106 is DSCP 26, priority 3 in mlx5's default map, while "
			      "NCCL_IB_TC=3 is DSCP 0, priority 0, without PFC. ECN and DCQCN slow senders "
			      "before PFC has to act; PFC alone can spread pauses through the fabric."),
		.terms = { "pfc", "lossless", "ecn", "dcqcn", "nccl-ib-tc", "pause", "cnp" },
	},
};
const int learn_nexercises = sizeof(learn_exercises) / sizeof(learn_exercises[0]);

const struct learn_term learn_terms[] = {
	{ "hca", N_("HCA (Host Channel Adapter)"), LEARN_RDMA,
	  N_("The RDMA network card: a ConnectX on most GPU nodes. Linux lists it under "
	     "/sys/class/infiniband as mlx5_0, mlx5_1, ...; each has one or more ports. On RoCE each "
	     "port also has an Ethernet netdev (ens33np0)."),
	  { "port-state", "qp", "rail" } },
	{ "port-state", N_("Port state"), LEARN_LINK,
	  N_("The logical state of an HCA port: DOWN, INIT, ARMED or ACTIVE. Only ACTIVE carries "
	     "traffic. On InfiniBand a port stays INIT until the subnet manager configures it."),
	  { "phys-state", "hca" } },
	{ "phys-state", N_("Physical state"), LEARN_PHYSICAL,
	  N_("Whether the lanes have a signal: LinkUp when they do, Polling while the port looks for "
	     "a peer, Disabled when it is switched off or (on RoCE) has no carrier. A port that is "
	     "not LinkUp points at the cable, the optics or the switch port."),
	  { "port-state", "link-width" } },
	{ "link-width", N_("Link width and speed"), LEARN_PHYSICAL,
	  N_("A port's rate is its lanes times the speed of each: 4X NDR is 4 lanes of 100 Gb/s, "
	     "400 Gb/s. A link that trains with fewer lanes (2X) stays up at a fraction of its "
	     "bandwidth, with no error to tell."),
	  { "pcie-training", "symbol-error", "fec" } },
	{ "pcie-training", N_("PCIe link training"), LEARN_PHYSICAL,
	  N_("A PCIe card and its slot agree on a speed (Gen4 16 GT/s, Gen5 32 GT/s) and a width "
	     "(x8, x16) at boot. LnkCap says what both can do, LnkSta what they got. A Gen5 x16 link "
	     "carries about 504 Gb/s; one that trained at x8 carries half, less than a 400 Gb/s port "
	     "needs."),
	  { "link-width", "numa", "gpudirect" } },
	{ "numa", N_("NUMA"), LEARN_RDMA,
	  N_("Non-uniform memory access: on a two-socket server each CPU has its own memory and PCIe "
	     "slots. Reaching a device or memory of the other socket crosses the CPU interconnect "
	     "(UPI, Infinity Fabric), slower and shared. A GPU, its NIC and the process driving them "
	     "should sit on one NUMA node."),
	  { "topo-distance", "gpudirect" } },
	{ "topo-distance", N_("PIX, PXB, PHB, NODE, SYS"), LEARN_RDMA,
	  N_("The path types of nvidia-smi topo -m, from closest to farthest: PIX crosses at most one "
	     "PCIe switch, PXB several switches, PHB a host bridge, NODE the host bridges of one NUMA "
	     "node, SYS the interconnect between sockets. NCCL uses them to decide whether GPUDirect "
	     "RDMA is worth it."),
	  { "gpudirect", "numa" } },
	{ "gpudirect", N_("GPUDirect RDMA"), LEARN_RDMA,
	  N_("The NIC reads and writes GPU memory directly over PCIe, without a copy through host "
	     "memory. It needs the driver's support (nvidia-peermem or DMA-BUF) and a short PCIe path: "
	     "NCCL uses it only up to NCCL_NET_GDR_LEVEL (by default, when the GPU and the NIC share "
	     "a PCIe switch)."),
	  { "topo-distance", "nvlink", "rail" } },
	{ "nvlink", N_("NVLink"), LEARN_NCCL,
	  N_("NVIDIA's GPU-to-GPU link, through NVSwitches on an HGX or DGX board: far faster than "
	     "PCIe. NCCL uses it for traffic between GPUs of one node and the network only between "
	     "nodes; nvidia-smi topo -m shows it as NV#."),
	  { "rail", "gpudirect" } },
	{ "rail", N_("Rail"), LEARN_NCCL,
	  N_("In a rail-optimised fabric GPU i of every node connects through its own NIC i to leaf "
	     "switch i: rail i. Traffic between the same GPU index of two nodes stays on one rail, "
	     "one switch hop away. A fault on one rail slows every job that spans it."),
	  { "hca", "nvlink", "gpudirect" } },
	{ "gid", N_("GID (Global Identifier)"), LEARN_IP,
	  N_("The 128-bit address RDMA uses for a port. On InfiniBand it is built from the port's "
	     "GUID; on RoCE every IP address of the netdev becomes a GID (IPv4 as ::ffff:a.b.c.d), "
	     "once per RoCE version. The table is in /sys/class/infiniband/DEV/ports/N/gids, each "
	     "entry's type in gid_attrs/types."),
	  { "gid-index", "roce-v1", "roce-v2" } },
	{ "gid-index", N_("GID index"), LEARN_IP,
	  N_("The position of a GID in its port's table. The order follows the order addresses were "
	     "added, so the same index can mean a different address, or another RoCE version, on "
	     "another node. Choosing by type and address is safer than by number."),
	  { "gid", "nccl-ib-gid-index" } },
	{ "roce-v1", N_("RoCE v1"), LEARN_IP,
	  N_("RDMA over Converged Ethernet, first version: InfiniBand transport in an Ethernet frame "
	     "of its own ethertype (0x8915), with no IP header. It cannot cross a router, so it works "
	     "only inside one layer-2 segment."),
	  { "roce-v2", "gid" } },
	{ "roce-v2", N_("RoCE v2"), LEARN_IP,
	  N_("RDMA over Converged Ethernet in UDP/IP (UDP destination port 4791): routable like any IP "
	     "traffic, and marked with ECN and DSCP like it. This is what GPU fabrics run; NCCL looks "
	     "for a RoCE v2 GID."),
	  { "roce-v1", "gid", "ecn", "mtu" } },
	{ "mtu", N_("MTU"), LEARN_IP,
	  N_("The largest payload one frame carries. RoCE uses InfiniBand MTUs (256 to 4096 bytes) "
	     "and needs 96 bytes of headers around them, so the kernel picks the largest that fits in "
	     "the netdev MTU less 96: 9000 gives 4096, 4096 only 2048. InfiniBand ports run 4096 "
	     "directly."),
	  { "path-mtu", "roce-v2" } },
	{ "path-mtu", N_("Path MTU"), LEARN_IP,
	  N_("The smallest MTU of every hop between two hosts. A frame larger than one hop's MTU is "
	     "dropped there; RoCE gets no notice, so large messages vanish while small ones pass: a "
	     "black hole. ping -M do -s SIZE (don't fragment) finds it."),
	  { "mtu", "retry" } },
	{ "pfc", N_("PFC (Priority Flow Control)"), LEARN_LINK,
	  N_("IEEE 802.1Qbb: a switch or NIC whose buffer for one of eight priorities fills asks the "
	     "sender to pause that priority only, instead of dropping. RoCE relies on it for a "
	     "lossless path; it must be on for the same priority on every hop."),
	  { "pause", "lossless", "ecn", "nccl-ib-tc" } },
	{ "pause", N_("Pause frames"), LEARN_LINK,
	  N_("The frames PFC (per priority) or 802.3x (the whole link) send to stop a sender for a "
	     "while. A few are normal; a port paused most of the time, or sending pauses without end "
	     "(a pause storm), stalls everything behind it."),
	  { "pfc", "lossless" } },
	{ "lossless", N_("Lossless Ethernet"), LEARN_LINK,
	  N_("An Ethernet fabric that pauses instead of dropping on the priorities RoCE uses, through "
	     "PFC, usually with ECN to keep pauses rare. Traffic on any other priority is dropped "
	     "under congestion like ordinary Ethernet."),
	  { "pfc", "ecn", "dcqcn" } },
	{ "ecn", N_("ECN (Explicit Congestion Notification)"), LEARN_LINK,
	  N_("Two bits in the IP header that a congested switch sets (Congestion Experienced) instead "
	     "of dropping. The receiving NIC answers with a CNP so the sender slows down before PFC has "
	     "to pause the link."),
	  { "cnp", "dcqcn", "pfc" } },
	{ "cnp", N_("CNP (Congestion Notification Packet)"), LEARN_LINK,
	  N_("The packet a RoCE receiver (notification point) sends back when it receives packets "
	     "marked with ECN; the sender (reaction point) then lowers its rate. mlx5 counts them as "
	     "np_cnp_sent and rp_cnp_handled."),
	  { "ecn", "dcqcn" } },
	{ "dcqcn", N_("DCQCN"), LEARN_LINK,
	  N_("The congestion control RoCE NICs run: ECN marks at the switches, CNPs from the "
	     "receivers, and a sender that cuts its rate on each CNP and raises it again over time. "
	     "It keeps queues short so PFC pauses stay rare."),
	  { "ecn", "cnp", "pfc" } },
	{ "qp", N_("QP (Queue Pair)"), LEARN_RDMA,
	  N_("An RDMA connection endpoint: a send queue and a receive queue. NCCL opens reliable-"
	     "connected (RC) QPs to its peers; a QP moves through RESET, INIT, RTR and RTS (ready to "
	     "send) and ends in ERR when it breaks. The kernel knows the pid that created each "
	     "(rdma resource show qp)."),
	  { "retry", "hca" } },
	{ "retry", N_("Retries and local_ack_timeout_err"), LEARN_RDMA,
	  N_("An RC QP resends what is not acknowledged in time. local_ack_timeout_err counts the "
	     "ACK timeouts on this sender; after NCCL_IB_RETRY_CNT retries (7) the QP moves to ERR. "
	     "Growing while traffic stops, it points at a lost path or a dead peer."),
	  { "packet-seq-err", "qp", "path-mtu" } },
	{ "packet-seq-err", N_("packet_seq_err and out_of_sequence"), LEARN_RDMA,
	  N_("packet_seq_err counts NAKs received for a gap in the packet sequence: the peer missed "
	     "packets this port sent. out_of_sequence counts packets this port received with a gap. "
	     "Both mean loss on the path; on RoCE, often a priority without PFC."),
	  { "retry", "lossless" } },
	{ "symbol-error", N_("Symbol errors"), LEARN_PHYSICAL,
	  N_("symbol_error counts minor errors detected on the lanes of a link: bit errors the "
	     "physical layer saw. A few over weeks are normal; a steady climb means a dirty "
	     "connector, a bad cable or failing optics."),
	  { "fec", "link-width" } },
	{ "fec", N_("FEC (Forward Error Correction)"), LEARN_PHYSICAL,
	  N_("Redundant bits that let the receiver repair bit errors without a resend; fast links "
	     "(50 Gb/s per lane and up) cannot work without it. The pre-FEC bit error rate shows how "
	     "hard FEC works: rising toward its limit, the link is about to drop."),
	  { "symbol-error" } },
	{ "nccl-ib-hca", N_("NCCL_IB_HCA"), LEARN_NCCL,
	  N_("Which HCAs and ports NCCL may use: a list of prefixes (mlx5 matches mlx5_0, mlx5_10, "
	     "...), exact names with '=', exclusions with '^', a port with ':1'. A name that matches "
	     "nothing usable leaves NCCL without RDMA."),
	  { "nccl-ib-disable", "socket-transport", "hca" } },
	{ "nccl-socket-ifname", N_("NCCL_SOCKET_IFNAME"), LEARN_NCCL,
	  N_("The IP interfaces NCCL uses for its bootstrap and its socket transport, by prefix ('^' "
	     "excludes, '=' is exact). It must exist, be up and have an address in the job's network "
	     "namespace; naming the management interface is fine while RDMA carries the data."),
	  { "socket-transport", "nccl-ib-hca" } },
	{ "nccl-ib-gid-index", N_("NCCL_IB_GID_INDEX"), LEARN_NCCL,
	  N_("The GID table index NCCL uses on RoCE ports. Recent NCCL chooses a RoCE v2 GID of the "
	     "address family NCCL_IB_ADDR_FAMILY by itself when it is unset; a fixed number breaks "
	     "when tables differ between nodes."),
	  { "gid-index", "roce-v2" } },
	{ "nccl-ib-disable", N_("NCCL_IB_DISABLE"), LEARN_NCCL,
	  N_("Set to 1, NCCL does not use its IB transport (InfiniBand and RoCE) and falls back to "
	     "TCP sockets. Useful as the B side of an A/B test; costly when left on."),
	  { "socket-transport", "nccl-ib-hca" } },
	{ "nccl-ib-tc", N_("NCCL_IB_TC"), LEARN_NCCL,
	  N_("The traffic class NCCL's RoCE packets carry: the IP header's DSCP times 4 plus the ECN "
	     "bits. With a port trusting DSCP it decides the priority, so it must map to the priority "
	     "PFC protects (106: DSCP 26, priority 3 in mlx5's default map)."),
	  { "pfc", "lossless" } },
	{ "socket-transport", N_("Socket transport"), LEARN_NCCL,
	  N_("NCCL's fallback between nodes: TCP over the interfaces NCCL_SOCKET_IFNAME names. It "
	     "needs no RDMA hardware and is many times slower. NCCL_DEBUG=INFO prints NET/Socket when "
	     "it is in use, NET/IB when RDMA is."),
	  { "nccl-ib-disable", "nccl-socket-ifname" } },
	{ "ras", N_("NCCL RAS"), LEARN_NCCL,
	  N_("NCCL's reliability, availability and serviceability service (NCCL 2.24 and later): "
	     "every process answers on localhost port 28028 with the job's communicators, each rank's "
	     "collective counts and the ranks missing. Counts that stop moving name the stuck ranks."),
	  { "qp", "retry" } },
};
const int learn_nterms = sizeof(learn_terms) / sizeof(learn_terms[0]);
