/*
 * wizard_steps.c - the ladder: the table of steps (seed §12, from the job
 * down to the wire and back up), step 0 (the NCCL job on this node, job.h)
 * and layer 1 (the link health findings for the HCAs in use). Layer 2 is in
 * wizard_l2.c, layer 3 (perftest) in wizard_l3.c, the A/B in wizard_ab.c.
 *
 * To add a step: its file (run, or start/poll/cancel/fini; gate), its ops
 * in wizard_int.h, one row below in ladder order, and output hooks
 * (print, exit_code, draw; wizard.h) only if it needs more than the
 * defaults. The job step hands what it learnt to the steps above through
 * struct wizard's job_* fields, never through its id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "job.h"
#include "fabtop/i18n.h"
#include "fabtop/runner.h"
#include "fabtop/util.h"
#include "fabtop/wizard.h"
#include "fabtop/vocab.h"
#include "wizard_int.h"

/* ---- NCCL_IB_HCA: which HCA ports a list selects ----------------------------- */

/* NCCL's rules, as net_ib.cc applies them (wizard.h). */
bool wiz_hca_selected(const char *spec, const char *dev, int port)
{
	if (!spec || !*spec)
		return true;
	bool exclude = false, exact = false;
	if (*spec == '^') {
		exclude = true;
		spec++;
	}
	if (*spec == '=') {
		exact = true;
		spec++;
	}
	bool hit = false;
	char buf[FAB_LIST_LEN], *save = NULL;
	fab_strlcpy(buf, spec, sizeof(buf));
	for (char *tok = strtok_r(buf, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		int want_port = -1;
		if (colon) {
			*colon = '\0';
			want_port = atoi(colon + 1);
		}
		bool name_ok = exact ? strcmp(dev, tok) == 0 : strncmp(dev, tok, strlen(tok)) == 0;
		hit = name_ok && (want_port < 0 || port < 0 || want_port == port);
	}
	return exclude ? !hit : hit;
}

/* ---- step 0: the job ---------------------------------------------------------- */

static void job_print(struct wiz_step *s, const struct fab_job *j)
{
	wiz_out(s, "pid %d (%s)%s%s\n", j->pid, j->comm, j->cmdline[0] ? ": " : "", j->cmdline);
	if (j->nspid && j->nspid != j->pid)
		wiz_out(s, _("  pid in its own PID namespace: %d\n"), j->nspid);
	wiz_out(s, _("  network namespace %s%s\n"), j->netns[0] ? j->netns : "N/A",
		j->other_netns ? _(" (not fabtop's)") : "");
	if (j->nccl_lib[0])
		wiz_out(s, "  libnccl: %s\n", j->nccl_lib);
	for (int i = 0; i < j->nrank; i++)
		wiz_out(s, "  %s=%s\n", j->rank[i].name, j->rank[i].value);
	for (int i = 0; i < j->nnccl; i++)
		wiz_out(s, "  %s=%s%s%s\n", j->nccl[i].name, j->nccl[i].value,
			strcmp(j->nccl[i].source, "environment") ? "  (from " : "",
			strcmp(j->nccl[i].source, "environment") ? j->nccl[i].source : "");
	if (j->net.how == JOB_NET_NONE && j->from_capture)
		wiz_out(s, _("  its network: the captured node's interfaces (the checks use them)\n"));
	else
		wiz_out(s, _("  its network, %s:\n"), j->net.how_text[0] ? j->net.how_text : _("not read"));
	for (int i = 0; i < j->net.nifs; i++) {
		const struct fab_job_if *f = &j->net.ifs[i];
		wiz_out(s, "    %s %s", f->name, !f->up.ok ? "state N/A" : !f->up.v ? "DOWN"
			: f->running.ok && !f->running.v ? "UP, no carrier" : "UP");
		for (int k = 0; k < f->naddrs; k++)
			wiz_out(s, " %s", f->addrs[k]);
		wiz_out(s, "%s\n", strcmp(f->name, j->net.default_if) == 0 ? _("  (default route)") : "");
	}
	if (j->net.note[0])
		wiz_out(s, "    %s\n", j->net.note);
	if (j->debug_file[0])
		wiz_out(s, "  NCCL_DEBUG_FILE: %s\n", j->debug_file);
}

/* What the steps above take from the job: its interface as NCCL would
 * choose it in its own namespace, and its HCA list. */
static void job_inputs(struct wizard *w, const struct fab_job *j)
{
	char names[4][FAB_NAME_LEN];
	const char *rule = NULL;
	const char *spec = job_var(j, "NCCL_SOCKET_IFNAME");
	const char *hca = job_var(j, "NCCL_IB_HCA");
	w->job_pid = j->pid;
	fab_strlcpy(w->job_netns, j->netns, sizeof(w->job_netns));
	w->job_other_netns = j->other_netns;
	fab_strlcpy(w->job_iface_spec, spec ? spec : "", sizeof(w->job_iface_spec));
	w->job_niface = 0;
	int n = job_nccl_ifaces(&j->net, spec, job_var(j, "NCCL_COMM_ID"), names, 4, &rule);
	for (int i = 0; i < n && i < 4; i++) {
		char why[128];
		/* An interface name that could not be passed on is not used. */
		if (run_valid_ifname(names[i], why, sizeof(why)))
			fab_strlcpy(w->job_ifaces[w->job_niface++], names[i], WIZ_IF_LEN);
	}
	const char *gid = job_var(j, "NCCL_IB_GID_INDEX");
	char *end = NULL;
	long g = gid ? strtol(gid, &end, 10) : -1;
	w->job_gid_set = gid && *gid && *end == '\0' && g >= 0 && g <= 255;
	w->job_gid_index = w->job_gid_set ? (int)g : 0;
	w->job_hca_spec[0] = '\0';
	if (hca) {
		char why[128];
		if (run_valid_hca_list(hca, why, sizeof(why)))
			fab_strlcpy(w->job_hca_spec, hca, sizeof(w->job_hca_spec));
	}
}

static int job_run(struct wizard *w, struct wiz_step *s, const struct fab_model *m)
{
	struct fab_job_list l;
	struct fab_model out;
	char err[256];
	w->job_ran = false;
	w->job_nprocs = 0;
	w->job_niface = 0;
	w->job_gid_set = false;
	w->job_iface_spec[0] = w->job_hca_spec[0] = '\0';
	if (w->opt.pid)
		wiz_input(s, _("pid %d (--pid)"), w->opt.pid);
	else
		wiz_input(s, _("every NCCL process (libnccl mapped, or an NCCL_ variable other than NCCL_VERSION)"));
	memset(&l, 0, sizeof(l));
	if (job_scan(w->root, &l, err, sizeof(err)) != 0) {
		snprintf(s->verdict, sizeof(s->verdict), _("could not list the processes: %s"), err);
		snprintf(s->hint, sizeof(s->hint), _("run fabtop where it can read /proc (the job's pod, or the "
			 "host with root)"));
		return -1;
	}
	wiz_cmd(s, _("scan %s: each process's maps (libnccl) and environment (NCCL_*, rank variables), "
		"/etc/nccl.conf and ~/.nccl.conf"), l.source[0] ? l.source : "/proc");
	if (l.note[0])
		wiz_out(s, "%s\n", l.note);
	model_init(&out);
	int kept = 0;
	for (int i = 0; i < l.njobs; i++) {
		const struct fab_job *j = &l.jobs[i];
		if (w->opt.pid && j->pid != w->opt.pid)
			continue;
		if (!kept)
			job_inputs(w, j);   /* the first job speaks for the node */
		kept++;
		if (j->net.how != JOB_NET_NONE || !j->from_capture)
			wiz_cmd(s, _("the network of pid %d: %s"), j->pid,
				j->net.how_text[0] ? j->net.how_text : _("not read"));
		job_print(s, j);
		job_check(j, m, &out);
	}
	job_check_unreadable(&l, &out);
	w->job_ran = true;
	w->job_nprocs = kept;
	for (int i = 0; i < out.nfindings; i++) {
		struct fab_finding *f = wiz_finding(s, out.findings[i].id, out.findings[i].sev,
						    out.findings[i].subject);
		if (f)
			*f = out.findings[i];
	}
	model_free(&out);
	int unreadable = l.unreadable;
	char note[sizeof(l.note)];
	fab_strlcpy(note, l.note, sizeof(note));
	job_list_free(&l);
	if (!kept && unreadable && !w->opt.pid) {
		/* Not "no NCCL process": the ones not read may be it (job.unreadable). */
		snprintf(s->verdict, sizeof(s->verdict), _("no NCCL process among those readable; %s"),
			 note);
		snprintf(s->hint, sizeof(s->hint), _("run the wizard as root (or with CAP_SYS_PTRACE, or as "
			 "the job's user) to see the job; meanwhile it uses --iface/--hca/--peer"));
		return 0;
	}
	if (!kept) {
		s->status = WIZ_SKIPPED;
		if (w->opt.pid)
			snprintf(s->verdict, sizeof(s->verdict), _("pid %d is not an NCCL process here; using "
				 "--iface/--hca/--peer"), w->opt.pid);
		else if (w->root && !w->root->live)
			snprintf(s->verdict, sizeof(s->verdict), _("no NCCL process in the capture; using "
				 "--iface/--hca/--peer"));
		else
			snprintf(s->verdict, sizeof(s->verdict), _("no NCCL process on this node; using "
				 "--iface/--hca/--peer"));
		snprintf(s->hint, sizeof(s->hint), _("start the job (or run the wizard where it runs: its pod, "
			 "its node) to check its settings"));
		return 0;
	}
	if (wiz_status_of(s) == WIZ_PASS) {
		if (w->job_niface && w->job_iface_spec[0])
			snprintf(s->verdict, sizeof(s->verdict),
				 P_("%d NCCL process; the settings match the node; NCCL's sockets use %s "
				    "(NCCL_SOCKET_IFNAME=%s)",
				    "%d NCCL processes; the settings match the node; NCCL's sockets use %s "
				    "(NCCL_SOCKET_IFNAME=%s)", (unsigned long)kept),
				 kept, w->job_ifaces[0], w->job_iface_spec);
		else if (w->job_niface)
			snprintf(s->verdict, sizeof(s->verdict),
				 P_("%d NCCL process; the settings match the node; NCCL's sockets use %s",
				    "%d NCCL processes; the settings match the node; NCCL's sockets use %s",
				    (unsigned long)kept), kept, w->job_ifaces[0]);
		else
			snprintf(s->verdict, sizeof(s->verdict),
				 P_("%d NCCL process; the settings match the node",
				    "%d NCCL processes; the settings match the node", (unsigned long)kept), kept);
	}
	return 0;
}

/* ---- layer 1: physical and driver --------------------------------------------- */

/* A links.* finding about this HCA ("mlx5_0") or one of its ports ("mlx5_0/1"). */
static bool about_nic(const struct fab_finding *f, const struct fab_nic *n, const char *spec)
{
	size_t len = strlen(n->name);
	if (strncmp(f->id, "links.", 6) != 0 || strncmp(f->subject, n->name, len) != 0)
		return false;
	if (f->subject[len] == '\0')
		return true;
	if (f->subject[len] != '/')
		return false;
	return wiz_hca_selected(spec, n->name, atoi(f->subject + len + 1));
}

static bool l1_gate(const struct wizard *w, const struct fab_model *m, char *why, size_t len)
{
	(void)w;
	if (m)
		return false;
	snprintf(why, len, _("no node model"));
	return true;
}

static int l1_run(struct wizard *w, struct wiz_step *s, const struct fab_model *m)
{
	const char *spec = w->in.hca;
	int nsel = 0, nports = 0;
	wiz_input(s, _("HCAs %s (%s)"), spec[0] ? spec : _("all"), spec[0] ? w->in.hca_src : _("NCCL_IB_HCA unset: "
		  "NCCL uses every HCA"));
	wiz_cmd(s, _("read each HCA port's state, phys_state, rate, link_layer, GIDs and error counters under "
		"/sys/class/infiniband, and the PCIe links; the Links pane's rules (links.*)"));
	if (m->nnics == 0) {
		s->status = WIZ_SKIPPED;
		snprintf(s->verdict, sizeof(s->verdict), _("no RDMA devices on this node (%s): nothing to check at "
			 "layer 1; NCCL can only use sockets here"), m->live ? _("/sys/class/infiniband is empty")
			 : _("none in the capture"));
		snprintf(s->hint, sizeof(s->hint), _("on a GPU node, check the driver (lsmod | grep mlx5_ib) and "
			 "that the pod was given the HCAs"));
		return 0;
	}
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *n = &m->nics[i];
		bool any = false;
		for (int k = 0; k < n->nports && k < FAB_MAX_PORTS; k++) {
			const struct fab_port *p = &n->ports[k];
			if (!wiz_hca_selected(spec, n->name, p->num))
				continue;
			any = true;
			nports++;
			char sb[24], pb[24];
			const char *st = port_state_word(p, sb, sizeof(sb)), *ph = port_phys_word(p, pb, sizeof(pb));
			wiz_out(s, "%s/%d: %s, %s, %s, %s, netdev %s\n", n->name, p->num,
				st ? st : "state N/A", ph ? ph : "phys N/A",
				p->rate_str[0] ? p->rate_str : "rate N/A",
				ll_name(p->ll) ? ll_name(p->ll) : "link layer N/A",
				p->netdev[0] ? p->netdev : "none");
		}
		if (!any && !(n->nports == 0 && wiz_hca_selected(spec, n->name, -1)))
			continue;
		nsel++;
		for (int f = 0; f < m->nfindings; f++)
			if (about_nic(&m->findings[f], n, spec)) {
				struct fab_finding *c = wiz_finding(s, m->findings[f].id, m->findings[f].sev,
								    m->findings[f].subject);
				if (c)
					*c = m->findings[f];
			}
	}
	if (nsel == 0) {
		struct fab_finding *f = wiz_finding(s, "l1.hca-missing", SEV_ERROR, spec);
		if (f) {
			char names[FAB_LIST_LEN] = "";
			size_t n = 0;
			for (int i = 0; i < m->nnics && n < sizeof(names); i++)
				n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? " " : "",
						      m->nics[i].name);
			snprintf(f->message, sizeof(f->message), _("the HCA list \"%s\" selects no HCA on this node"),
				 spec);
			snprintf(f->evidence, sizeof(f->evidence), _("HCAs here: %s"), names);
			snprintf(f->hint, sizeof(f->hint), _("fix NCCL_IB_HCA (or --hca) to name HCAs that exist here; "
				 "NCCL falls back to sockets when it selects none"));
			fab_strlcpy(f->layer, _("layer 1: NCCL can only use the HCAs it is told about"),
				    sizeof(f->layer));
		}
		return 0;
	}
	if (s->nfindings == 0 && nsel == 1)
		snprintf(s->verdict, sizeof(s->verdict),
			 P_("%d HCA port on 1 HCA: no link health findings",
			    "%d HCA ports on 1 HCA: no link health findings", (unsigned long)nports), nports);
	else if (s->nfindings == 0)   /* two HCAs or more */
		snprintf(s->verdict, sizeof(s->verdict),
			 P_("%d HCA port on %d HCAs: no link health findings",
			    "%d HCA ports on %d HCAs: no link health findings", (unsigned long)nports), nports, nsel);
	return 0;
}

/* ---- the ladder ----------------------------------------------------------------- */

const struct wiz_step_def wiz_steps[] = {
	{
		.id = "job",
		.layer = N_("0 job"),
		.title = N_("The NCCL job on this node"),
		.why = N_("Before testing the network, check what the job asked for. Most NCCL network "
		       "failures are settings: NCCL_SOCKET_IFNAME naming an interface that does not "
		       "exist in the job's network namespace, NCCL_IB_HCA naming the wrong HCAs, a GID "
		       "index that is not RoCE v2, or NCCL_IB_DISABLE left on from an old experiment."),
		.run = job_run,
	},
	{
		.id = "l1",
		.layer = N_("1 physical"),
		.title = N_("Physical link and driver"),
		.why = N_("The wire first: a port that is down, trained at a lower rate or width, or "
		       "counting symbol errors makes every layer above look broken. These are the Links "
		       "pane's findings, for the HCAs the job uses."),
		.gate = l1_gate,
		.run = l1_run,
	},
	{
		.id = "l2",
		.layer = N_("2 IP/MTU"),
		.title = N_("IP addresses, route and path MTU"),
		.why = N_("NCCL bootstraps over TCP and may fall back to sockets, so the interface needs an "
		       "address and a route to the peers through itself. A path MTU below the interface "
		       "MTU makes small messages work while large ones stall: the probe finds the real "
		       "path MTU and tells a lower hop (ICMP said so) from a black hole (big packets "
		       "vanish)."),
		.gate = wiz_l2_gate,
		.start = wiz_l2_start,
		.poll = wiz_l2_poll,
		.cancel = wiz_l2_cancel,
		.fini = wiz_l2_fini,
	},
	{
		.id = "l3",
		.layer = N_("3 RDMA"),
		.title = N_("RDMA bandwidth and latency (perftest)"),
		/* xgettext:no-c-format */
		.why = N_("Below NCCL, the HCAs must move RDMA traffic at close to line rate. ib_write_bw "
		       "and ib_write_lat between this node and a peer, on the HCA port and GID index "
		       "the job uses, show whether RDMA itself works (QP setup, GID, MTU) and how "
		       "fast: a healthy link reaches about 90-97% of line rate at 64 KiB and above."),
		.gate = wiz_l3_gate,
		.start = wiz_l3_start,
		.poll = wiz_l3_poll,
		.cancel = wiz_l3_cancel,
		.fini = wiz_l3_fini,
		.wait_fd = wiz_l3_wait_fd,
	},
	{
		.id = "ab",
		.layer = N_("4 NCCL"),
		.title = N_("The NCCL test with and without IB (A/B)"),
		.why = N_("The single most useful experiment: the same NCCL test run twice, as given (A) "
		       "and with NCCL_IB_DISABLE=1 (B), each with NCCL_DEBUG=INFO and a hang timeout. "
		       "If sockets work where IB fails, the fault is in the RDMA path (HCA, GID index, "
		       "RoCE fabric, GPUDirect, RDMA namespace); if both fail, look at the application "
		       "start, DNS, ports and the bootstrap interface. The logs also show whether IB was "
		       "used at all."),
		.gate = wiz_ab_gate,
		.start = wiz_ab_start,
		.poll = wiz_ab_poll,
		.cancel = wiz_ab_cancel,
		.fini = wiz_ab_fini,
		.print = wiz_ab_print,
		.exit_code = wiz_ab_exit,
		.draw = wizard_ab_body,
		.wait_fd = wiz_ab_wait_fd,
	},
};
const int wiz_nsteps = (int)(sizeof(wiz_steps) / sizeof(wiz_steps[0]));
