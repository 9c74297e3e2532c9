/*
 * job.h - the wizard's step 0: the NCCL processes on this node and their
 * settings, checked against the node as each process sees it.
 *
 * A process is an NCCL job when it has libnccl mapped or sets an NCCL_
 * variable other than NCCL_VERSION (NVIDIA's images set that one in every
 * process); the same rule as `fabtop capture` (capture_procs.c), applied to
 * a capture's fabtop/procs/<pid>.json too (its "nccl_var" says the
 * process set such a variable when the capture did not keep it).
 *
 * Of the environment and nccl.conf only the variables in procfs.c's table
 * are kept (nccl[], rank[]), never one whose name looks secret
 * (procfs_env_kind()); the command line is shown with secret-looking
 * option values hidden. Whatever prints a job prints only these.
 *
 * job_scan() does the reading (I/O); job_check() is a pure function of a
 * scanned job and the model, and appends findings (ids "job.*").
 *
 * The network a process sees is its own network namespace:
 *   - same namespace as fabtop: rtnetlink, directly;
 *   - another namespace, fabtop may enter it (root): a forked child enters
 *     it with setns() and hands back a route netlink socket opened there;
 *     links (IFF_UP, IFF_RUNNING), addresses and the default route are
 *     then read over that socket. Nothing is changed in the namespace;
 *   - another namespace, not permitted: /proc/<pid>/net/dev (names),
 *     if_inet6 (IPv6 addresses) and route (IPv4 routes and the interfaces
 *     they leave through); up/down and IPv4 addresses are then unknown,
 *     and the findings say so instead of guessing;
 *   - a capture: the captured node's interfaces (fabtop/netlink.json, as
 *     the model holds them), which is the capturing process's namespace.
 *
 * Sequence: job_scan() -> job_check_all() (or job_check() per job) ->
 * job_list_free().
 */
#ifndef FABTOP_JOB_H
#define FABTOP_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "fabtop/model.h"
#include "fabtop/root.h"

#define JOB_MAX_VARS  64
#define JOB_MAX_RANK  16
#define JOB_MAX_ADDRS FAB_MAX_ADDRS   /* the model's cap, one number */

struct fab_job_var {
	char name[64];
	char value[FAB_PATH_LEN];
	char source[32];              /* "environment", "/etc/nccl.conf", "~/.nccl.conf" */
};

struct fab_job_if {
	char name[FAB_NAME_LEN];
	fab_int ifindex;
	fab_int up;                   /* IFF_UP: administratively up */
	fab_int running;              /* IFF_RUNNING: up with carrier; NCCL skips others */
	bool loopback;
	char addrs[JOB_MAX_ADDRS][56];/* "10.0.0.1/24", "fe80::1/64" */
	int naddrs;
	bool has_v4, has_v6_global, has_v6_link;
};

enum job_net_how {
	JOB_NET_NONE = 0,             /* nothing could be read */
	JOB_NET_RTNL,                 /* rtnetlink in fabtop's own namespace (the same one) */
	JOB_NET_SETNS,                /* rtnetlink through a socket opened in its namespace */
	JOB_NET_PROCFS,               /* /proc/<pid>/net only: no link state, no IPv4 per interface */
	JOB_NET_MODEL,                /* a capture: the model's netdevs */
};

struct fab_job_net {
	enum job_net_how how;
	char how_text[160];           /* one line for the evidence */
	bool state_known;             /* up/running read */
	bool v4_known;                /* IPv4 addresses per interface read */
	struct fab_job_if *ifs;
	int nifs;
	char default_if[FAB_NAME_LEN];/* the IPv4 default route's interface; "" when none */
	char note[256];               /* why something could not be read; "" */
};

struct fab_job {
	int pid;
	int nspid;                    /* its pid in its own PID namespace (NCCL's %p); = pid if same */
	char comm[32];
	char cmdline[512];            /* argv joined for display; "" when unknown (capture) */
	char netns[48];               /* "net:[4026531840]"; "" when unknown */
	bool other_netns;             /* not fabtop's namespace (live only) */
	char nccl_lib[FAB_PATH_LEN];  /* the libnccl mapped; "" when none or unknown */
	char host[FAB_NAME_LEN];      /* its host name (NCCL's %h, up to the first '.'); "" unknown */
	bool from_capture;
	double age_s;                 /* seconds since it started (at the capture's time for a
				       * capture); < 0 unknown */
	struct fab_job_var nccl[JOB_MAX_VARS];
	int nnccl;
	struct fab_job_var rank[JOB_MAX_RANK];  /* RANK, LOCAL_RANK, OMPI_COMM_WORLD_RANK, ... */
	int nrank;
	struct fab_job_net net;
	/* NCCL_DEBUG_FILE, expanded by job_scan (%h, %p); where fabtop can
	 * open it (through /proc/<pid>/root for a process in a container). */
	char debug_file[FAB_PATH_LEN];   /* "" when NCCL_DEBUG_FILE is unset */
	char debug_file_open[FAB_PATH_LEN];
	fab_int debug_file_size;      /* bytes, or unknown (not there, not live) */
	/* /dev/infiniband/uverbs* as its mount namespace has them (a container
	 * may see fewer than fabtop): "uverbs0 uverbs3"; unknown when !checked. */
	bool uverbs_checked;
	char uverbs_visible[FAB_LIST_LEN];
};

struct fab_job_list {
	struct fab_job *jobs;
	int njobs;
	int unreadable;               /* processes whose environment could not be read (kernel
				       * threads not counted; a capture: as recorded, and bad files) */
	char source[64];              /* "/proc", "capture fabtop/procs" */
	char note[256];               /* "" or what limited the scan */
};

/* Finds the NCCL jobs: /proc for a live root, fabtop/procs/ for a capture;
 * a directory without either has none (note says so). fabtop's own process
 * is skipped. 0, or -1 with err when nothing could be listed. */
int job_scan(const struct fab_root *r, struct fab_job_list *out, char *err, size_t len);
void job_list_free(struct fab_job_list *l);

/* Reads the interfaces of process pid's network namespace into net, in the
 * first way that works (see above); same_netns: it is fabtop's own.
 * Always fills net->how and how_text; free with job_net_free(). */
void job_net_read(int pid, bool same_netns, struct fab_job_net *net);
/* The same view from a model's netdevs (a capture). */
void job_net_from_model(const struct fab_model *m, struct fab_job_net *net);
void job_net_free(struct fab_job_net *net);

/* A socket (socket(2)'s arguments; SOCK_CLOEXEC is added) opened inside
 * pid's network namespace by a forked child that entered it with setns()
 * (CAP_SYS_ADMIN over it); the child only enters, opens and sends it back,
 * so nothing is changed there. Route netlink for job_net_read(), TCP for
 * the RAS client. fd, or -errno. */
int job_netns_socket(int pid, int domain, int type, int protocol);

/* The value of a variable the job has (environment or nccl.conf), or NULL. */
const char *job_var(const struct fab_job *j, const char *name);

/* Appends the findings for one job to out (model_add_finding); returns how
 * many. m is the node (NICs, ports, GIDs, netdevs); out may be m. */
int job_check(const struct fab_job *j, const struct fab_model *m, struct fab_model *out);
/* Every job, and job.unreadable when processes could not be read (a
 * warning when no job was found: then whether one runs is unknown), or
 * job.none when there is none and every process was read. */
int job_check_all(const struct fab_job_list *l, const struct fab_model *m, struct fab_model *out);
/* job.unreadable alone (the wizard's step 0 checks the jobs one by one);
 * returns 1 when it added it. */
int job_check_unreadable(const struct fab_job_list *l, struct fab_model *out);

/* NCCL's interface list matching (ncclFindInterfaces, src/misc/socket.cc):
 * "^" excludes, "=" matches whole names, else prefixes; ":port" ignored. */
bool job_if_match(const char *spec, const char *ifname);
/* NCCL_IB_HCA's matching (ncclIbInit: the same list syntax, "dev:port"
 * entries): whether spec selects port `port` of HCA dev (port -1: any).
 * NULL or "" selects every port. */
bool job_hca_match(const char *spec, const char *dev, int port);

/* The interfaces NCCL would use for its sockets in net: spec is
 * NCCL_SOCKET_IFNAME (NULL or shorter than 2 characters: NCCL's own choice:
 * ib*, then NCCL_COMM_ID's subnet, then anything but docker/lo/virbr, then
 * docker*, lo, virbr*), only interfaces that are running and have an
 * address, IPv4 before IPv6, IPv6 loopback never. Returns how many (up to
 * max) were written to names; *rule says which rule chose them. */
int job_nccl_ifaces(const struct fab_job_net *net, const char *spec, const char *comm_id,
		    char names[][FAB_NAME_LEN], int max, const char **rule);

/* The parsers of the files job_scan() reads, each given the file's bytes
 * (the live readers only open and call them):
 *   - job_parse_environ: /proc/<pid>/environ (n bytes, env[n] == '\0',
 *     split in place): the table's variables into e->j (nccl[], rank[],
 *     "environment"), HOME and HOSTNAME pointed at in env; returns whether
 *     the process set an NCCL variable of its own (the job rule's half);
 *   - job_parse_conf: an nccl.conf ("NAME=value" lines, '#' comments),
 *     the table's variables into j, the environment's winning;
 *   - job_parse_cmdline: /proc/<pid>/cmdline (n bytes, b[n] == '\0') as
 *     it is shown, secret-looking option values hidden, cut to len. */
struct job_env {
	struct fab_job *j;
	const char *home, *hostname;  /* into env; NULL when unset */
};
bool job_parse_environ(struct job_env *e, char *env, size_t n);
void job_parse_conf(struct fab_job *j, FILE *f, const char *label);
void job_parse_cmdline(const char *b, size_t n, char *out, size_t len);

/* The /proc/<pid>/net parsers (the fallback above), each adding to net:
 * dev (interface names), if_inet6 (IPv6 addresses of interfaces already
 * in net) and route (IPv4 routes: default_if, has_v4). */
void job_net_parse_dev(FILE *f, struct fab_job_net *net);
void job_net_parse_if_inet6(FILE *f, struct fab_job_net *net);
void job_net_parse_route(FILE *f, struct fab_job_net *net);

/* NCCL_DEBUG_FILE's template expanded as NCCL does: %h host, %p pid. */
void job_expand_debug_file(const char *tmpl, const char *host, int pid, char *out, size_t len);

#endif
