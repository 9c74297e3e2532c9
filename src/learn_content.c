/*
 * learn_content.c - the exercises and the glossary of `fabtop learn`
 * (learn.h). TEMPORARY: two exercises and three terms so the engine links
 * and runs on real scenarios; the content helper's file replaces this one
 * whole. Data only: the engine (src/learn.c) owns every judgement.
 */
#include "fabtop/i18n.h"
#include "fabtop/learn.h"

const struct learn_exercise learn_exercises[] = {
	{
		.id = "port-down",
		.title = N_("A port is down"),
		.layer = LEARN_PHYSICAL,
		.scenario = "roce-faults",
		.pane = "links",
		.symptom = N_("NCCL on this node finds only seven of its eight NICs, and the job "
			      "runs slower than on its neighbours."),
		.task = N_("Select the port that cannot carry traffic in the Links pane, then "
			   "press A."),
		.answers = { { .kind = PICK_PORT, .dev = "mlx5_1", .port = 1 } },
		.hints = {
			{ LEARN_PHYSICAL, N_("Every port has a state (is the link up?) and a "
					     "physical state (does the cable carry light?).") },
			{ LEARN_LINK, N_("A port that can carry traffic is ACTIVE and LinkUp: "
					 "read the STATE column of the Links pane.") },
		},
		.concept = N_("A port carries traffic only when its link is up: the physical "
			      "state LinkUp says the cable and optics trained, the state ACTIVE "
			      "says the port can send. Disabled means nothing came up on the "
			      "cable: reseat it, check the optics, or the switch port."),
		.terms = { "port-state", "hca" },
	},
	{
		.id = "retries",
		.title = N_("Retries climbing"),
		.layer = LEARN_RDMA,
		.scenario = "hang",
		.pane = "counters",
		.symptom = N_("The job on this node hangs after twenty seconds: no rank "
			      "reports an error, and nothing moves."),
		.task = N_("Select the counter that says the peers stopped answering in the "
			   "Counters pane, then press A."),
		.answers = { { .kind = PICK_COUNTER, .name = "local_ack_timeout_err" } },
		.hints = {
			{ LEARN_LINK, N_("The ports are up: the cause is above the link.") },
			{ LEARN_RDMA, N_("An RDMA sender waits for an acknowledgement of every "
					 "packet; when none comes, it retries and counts it.") },
		},
		.concept = N_("A queue pair that sends waits for the peer's acknowledgement; "
			      "when it does not come in time the HCA sends again and counts "
			      "local_ack_timeout_err. A count that climbs while the traffic stops "
			      "says the packets or their answers are lost on the way."),
		.terms = { "hca" },
	},
};
const int learn_nexercises = sizeof(learn_exercises) / sizeof(learn_exercises[0]);

const struct learn_term learn_terms[] = {
	{
		.id = "hca",
		.term = N_("HCA (Host Channel Adapter)"),
		.layer = LEARN_RDMA,
		.text = N_("The network card that speaks RDMA: it reads and writes the "
			   "memory of the host (and of the GPUs) without the CPU. Linux names "
			   "each one mlx5_0, mlx5_1, ... under /sys/class/infiniband."),
		.see = { "port-state", "qp" },
	},
	{
		.id = "port-state",
		.term = N_("Port state"),
		.layer = LEARN_PHYSICAL,
		.text = N_("Two words say whether a port can carry traffic: the physical "
			   "state (LinkUp when the cable trained) and the logical state "
			   "(ACTIVE when the port may send)."),
		.see = { "hca" },
	},
	{
		.id = "qp",
		.term = N_("QP (Queue Pair)"),
		.layer = LEARN_RDMA,
		.text = N_("The endpoint of an RDMA connection: a send queue and a receive "
			   "queue. NCCL opens several per peer and per NIC."),
		.see = { "hca" },
	},
};
const int learn_nterms = sizeof(learn_terms) / sizeof(learn_terms[0]);
