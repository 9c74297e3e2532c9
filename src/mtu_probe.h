/*
 * mtu_probe.h - the path-MTU probe of the wizard's layer 2: the largest IP
 * packet that crosses the path to one peer with DF set, and why it stops.
 *
 * Works as non-root, the way tracepath does: a UDP socket connected to the
 * peer's port 33434 with IP_PMTUDISC_PROBE (DF set, the kernel's cached path
 * MTU ignored) and IP_RECVERR. A closed port answers "port unreachable": the
 * probe reached the peer, when the answer comes from the peer's own address
 * (from anyone else it is a firewall's rejection: an error). A hop that
 * cannot forward it answers "fragmentation needed" with its MTU. Silence
 * means the probe was lost. Sizes are whole IP packets (IPv4 header 20 +
 * UDP 8, IPv6 40 + 8), as MTUs are counted.
 *
 * Strategy, to use few probes (each loss costs a wait): the interface MTU
 * first (reaches: mtu-ok, 1 probe); frag-needed M: confirm M reaches
 * (mtu-path-lower, 2 probes); lost: the minimum (lost too: unreachable),
 * then a search between the largest size that reached and the smallest that
 * did not, trying up to three common link MTUs (1500, 8950, 4200) before
 * halving. Once anything answered, a loss is called after 4 round trips
 * (0.1 s at least) instead of timeout_s. The size that decides the verdict
 * (the first that fails, or the minimum) is sent again a second after the
 * peer's last answer, with the full timeout: 1 + retries losses in all.
 * Peers rate-limit "port unreachable" (Linux: a burst of 6, then 1/s for
 * IPv4), and a loss for want of an answer must not make the result too
 * small: when a size reaches after one as large was lost, the search goes
 * on with every probe paced a second after the last answer (rate_limited).
 * A 9000 path with a silent 1500 hop costs 5 sends, about 2 s; an odd size
 * about log2(max - min) more short waits. Answers that come late still
 * count (matched by port: probe n goes to port 33434 + n). Probes only ever
 * go to the peer's resolved address. Blocks for at most MTU_MAX_PROBES *
 * (timeout_s + 1) seconds; no shared state.
 */
#ifndef FABTOP_MTU_PROBE_H
#define FABTOP_MTU_PROBE_H

#include <stdbool.h>
#include <stddef.h>

enum mtu_verdict {
	MTU_OK,          /* the path carries the interface MTU */
	MTU_PATH_LOWER,  /* a hop said frag-needed: hop, hop_mtu; path_mtu reached */
	MTU_BLACKHOLE,   /* small probes arrive, large ones vanish without an ICMP */
	MTU_UNREACHABLE, /* not even the minimum arrived */
	MTU_ERROR,       /* the probe could not run (message says why) */
};

enum mtu_probe_outcome {
	PROBE_REACHED,       /* port unreachable from the peer's own address (or an answer) */
	PROBE_FRAG_NEEDED,   /* ICMP frag-needed / packet-too-big: reported_mtu, from */
	PROBE_TIMEOUT,       /* no answer within timeout_s */
	PROBE_LOCAL_TOO_BIG, /* the kernel refused to send it: reported_mtu is its limit */
	PROBE_ERROR,         /* another ICMP error (host/net unreachable, prohibited, port
	                        unreachable from a hop, not the peer) or send failure */
};

struct mtu_probe_rec {
	int size;                      /* IP packet size sent */
	enum mtu_probe_outcome outcome;
	int reported_mtu;              /* frag-needed / local limit; 0 otherwise */
	char from[64];                 /* who answered: the peer, the hop; "" on timeout */
	double ms;                     /* send to answer (or to giving up) */
	int err;                       /* PROBE_ERROR: the errno (EHOSTUNREACH ...); 0 otherwise */
	bool late;                     /* answered after the probe was given up (still counts) */
};

#define MTU_MAX_PROBES 48

struct mtu_opts {
	int max;          /* 0: the egress interface's MTU */
	int min;          /* 0: 576 IPv4 / 1280 IPv6 */
	double timeout_s; /* per probe; 0: 1.0 */
	int retries;      /* extra sends of the deciding size before calling it lost; 0: 1, -1: none */
	const char *iface;/* expected egress interface or NULL: a different one is said */
	/* Set by another thread to stop: the probes left go unsent and the
	 * probe under way stops waiting within 0.1 s (the result is then not
	 * meaningful). NULL: never. */
	const _Atomic bool *cancel;
};

struct mtu_result {
	enum mtu_verdict verdict;
	char peer[256];   /* as given */
	char addr[64];    /* the address probed */
	int family;       /* AF_INET or AF_INET6 */
	int iface_mtu;    /* the egress interface's MTU; 0 when unknown */
	char egress[32];  /* interface the kernel routes through; "" when unknown */
	bool wrong_egress;/* opts.iface was given and the kernel routes elsewhere */
	int route_mtu;    /* IP_MTU before probing: below iface_mtu means the kernel
	                     had cached a frag-needed for this peer from earlier */
	int path_mtu;     /* largest size that reached, 0 none */
	char hop[64];     /* the hop that said frag-needed; "" none */
	int hop_mtu;      /* the MTU it reported; 0 none */
	int nprobes;      /* packets sent, retries included */
	bool rate_limited;/* the peer held back answers (a size reached after a
	                     smaller one was lost): later probes were paced */
	struct mtu_probe_rec probes[MTU_MAX_PROBES];
	double elapsed_s;
	char message[256];/* one line for people: the verdict in words, or why it could not run */
};

/* Probes peer (numeric address or a name; the caller validates names) and
 * fills r. 0 when the probe ran, whatever the verdict; -1 when it could not
 * (name does not resolve, no route, socket refused): r->message says why and
 * r->verdict is MTU_ERROR. o may be NULL for the defaults. */
int mtu_probe(const char *peer, const struct mtu_opts *o, struct mtu_result *r);

/* "mtu-ok", "mtu-path-lower", "mtu-blackhole", "unreachable", "error" */
const char *mtu_verdict_name(enum mtu_verdict v);
/* "reached", "frag-needed", "timeout", "local-too-big", "error" */
const char *mtu_outcome_name(enum mtu_probe_outcome o);
/* One probe as a line of raw output: "9000 bytes: frag-needed from
 * 10.99.1.1 mtu 1500 (0.1 ms)", "1501 bytes: timeout (1000.2 ms)". */
void mtu_probe_rec_str(const struct mtu_probe_rec *p, char *buf, size_t len);

#endif
