/*
 * report.c - batch output through the print layer. The topology text keeps
 * nvidia-smi's layout (tab-separated, same headers, cell words and legend)
 * so the two can be diffed; fabtop's extras follow the NIC legend.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "fabtop/findings.h"
#include "fabtop/i18n.h"
#include "fabtop/report.h"
#include "fabtop/topo.h"
#include "fabtop/util.h"
#include "fabtop/vocab.h"

/* JSON only: the text layout of links is in topo_links(). */
static void out_link(struct fab_out *o, const char *key, const struct fab_pcie_link *l)
{
	out_open_obj(o, key);
	out_num(o, PR_JSON, "speed_gts", NULL, l->cur_speed);
	out_int(o, PR_JSON, "width", NULL, l->cur_width);
	out_num(o, PR_JSON, "max_speed_gts", NULL, l->max_speed);
	out_int(o, PR_JSON, "max_width", NULL, l->max_width);
	out_close_obj(o);
}

static const struct fab_port *first_port(const struct fab_nic *n)
{
	return n->nports ? &n->ports[0] : NULL;
}

static void topo_header(struct fab_out *o, const struct fab_topo *t)
{
	out_open_arr(o, "columns");
	for (int j = 0; j < t->n; j++)
		out_str(o, PR_ANY, NULL, "\t%s", t->devs[j].label);
	out_close_arr(o);
	out_text(o, "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n");
}

static void topo_rows(struct fab_out *o, const struct fab_model *m, const struct fab_topo *t)
{
	char cell[16];
	out_open_arr(o, "rows");
	for (int i = 0; i < t->n; i++) {
		const struct fab_topo_dev *d = &t->devs[i];
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "label", "%s", d->label);
		out_open_arr(o, "cells");
		for (int j = 0; j < t->n; j++) {
			topo_cell(t, i, j, cell, sizeof(cell));
			out_str(o, PR_JSON, NULL, NULL, cell);
			out_text(o, i == j ? "\t %s " : "\t%s", cell);
		}
		out_close_arr(o);
		if (d->kind == TOPO_GPU) {
			const struct fab_pci_dev *p = &m->pci[d->pci];
			out_str(o, PR_ANY, "cpu_affinity", "\t%s", p->local_cpulist);
			out_int(o, PR_ANY, "numa_affinity", "\t%lld", topo_numa_affinity(m, p));
			out_int(o, PR_ANY, "gpu_numa_id", "\t\t%lld", m->gpus[d->idx].numa_id);
		}
		out_text(o, "\n");
		out_close_obj(o);
	}
	out_close_arr(o);
}

static void topo_devices(struct fab_out *o, const struct fab_model *m, const struct fab_topo *t)
{
	out_open_arr(o, "devices");
	for (int i = 0; i < t->n; i++) {
		const struct fab_topo_dev *d = &t->devs[i];
		const struct fab_pci_dev *p = &m->pci[d->pci];
		out_open_obj(o, NULL);
		out_str(o, PR_JSON, "label", NULL, d->label);
		out_str(o, PR_JSON, "kind", NULL, d->kind == TOPO_GPU ? "gpu" : "nic");
		out_str(o, PR_JSON, "bdf", NULL, p->bdf);
		out_str(o, PR_JSON, "host_bridge", NULL, p->host_bridge);
		out_int(o, PR_JSON, "numa_node", NULL, p->numa_node);
		out_str(o, PR_JSON, "cpu_affinity", NULL, p->local_cpulist);
		if (d->kind == TOPO_GPU) {
			out_str(o, PR_JSON, "name", NULL, m->gpus[d->idx].name);
			out_int(o, PR_JSON, "nvml_index", NULL, m->gpus[d->idx].nvml_index);
		} else {
			const struct fab_nic *n = &m->nics[d->idx];
			const struct fab_port *pt = first_port(n);
			out_str(o, PR_JSON, "name", NULL, n->name);
			out_str(o, PR_JSON, "netdev", NULL, pt ? pt->netdev : NULL);
			out_str(o, PR_JSON, "link_layer", NULL, pt ? ll_name(pt->ll) : NULL);
			char sb[24];
			out_str(o, PR_JSON, "state", NULL, pt ? port_state_word(pt, sb, sizeof(sb)) : NULL);
			out_str(o, PR_JSON, "rate", NULL, pt ? pt->rate_str : NULL);
			out_str(o, PR_JSON, "usable", NULL, tri_name(n->usable.v));
			out_str(o, PR_JSON, "usable_why", NULL, n->usable.why);
		}
		out_link(o, "pcie", &p->link);
		out_str(o, PR_JSON, "config_space", NULL, p->config_full ? "full" : "partial");
		out_close_obj(o);
	}
	out_close_arr(o);
}

static void topo_legends(struct fab_out *o, const struct fab_model *m, const struct fab_topo *t)
{
	out_text(o, "\nLegend:\n\n");
	for (int i = 0; topo_legend[i]; i++)
		out_text(o, "%s\n", topo_legend[i]);
	if (t->ngpus > 1 && !t->nvlink_known)
		out_text(o, _("  *    = NVLink unknown (no NVML): the PCIe path is shown; nvidia-smi "
				  "shows NV# where GPUs are NVLinked\n"));
	if (t->nnics == 0)
		return;
	out_text(o, "\nNIC Legend:\n\n");
	for (int j = 0; j < t->nnics; j++) {
		const struct fab_nic *n = &m->nics[t->devs[t->ngpus + j].idx];
		const struct fab_port *pt = first_port(n);
		char sb[24];
		out_text(o, "  %s: %s", t->devs[t->ngpus + j].label, n->name);
		if (pt)
			out_text(o, "  %s  %s  %s  %s",
				 pt->netdev[0] ? pt->netdev : "N/A",
				 fab_na(ll_name(pt->ll)),
				 fab_na(port_state_word(pt, sb, sizeof(sb))),
				 pt->rate_str[0] ? pt->rate_str : "N/A");
		out_text(o, "\n");
	}
}

static void topo_closest(struct fab_out *o, const struct fab_model *m, const struct fab_topo *t)
{
	if (t->ngpus == 0 || t->nnics == 0)
		return;
	out_text(o, _("\nClosest NIC per GPU:\n\n"));
	out_open_arr(o, "closest_nics");
	for (int g = 0; g < t->ngpus; g++) {
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "gpu", "  %s ->", t->devs[g].label);
		out_open_arr(o, "nics");
		for (int j = 0, any = 0; j < t->nnics && j < 64; j++)
			if (t->best[g] >> j & 1) {
				const struct fab_topo_dev *d = &t->devs[t->ngpus + j];
				out_text(o, "%s", any++ ? "," : "");
				out_str(o, PR_ANY, NULL, " %s", d->label);
				out_text(o, " %s", m->nics[d->idx].name);
			}
		out_close_arr(o);
		out_str(o, PR_ANY, "level", " (%s)", topo_level_word(t->best_level[g]));
		out_str(o, PR_JSON, "usable", NULL, tri_name(t->best_usable[g]));
		char note[320];
		const char *nt = topo_closest_note(m, t, g, note, sizeof(note));
		out_str(o, nt ? PR_ANY : PR_JSON, "note", "  %s", nt);
		out_text(o, "\n");
		out_close_obj(o);
	}
	out_close_arr(o);
}

static void topo_links(struct fab_out *o, const struct fab_model *m, const struct fab_topo *t)
{
	if (!out_is_json(o) && t->n)
		out_text(o, _("\nPCIe links (current, max):\n\n"));
	for (int i = 0; i < t->n && !out_is_json(o); i++) {
		const struct fab_pci_dev *p = &m->pci[t->devs[i].pci];
		const struct fab_pcie_link *l = &p->link;
		char cs[16] = "N/A", ms[16] = "N/A", cw[16], mw[16];
		if (l->cur_speed.ok)
			snprintf(cs, sizeof(cs), "%.1f GT/s", l->cur_speed.v);
		if (l->max_speed.ok)
			snprintf(ms, sizeof(ms), "%.1f GT/s", l->max_speed.v);
		/* The labels are nvidia-smi's (GPU0, NIC12): ASCII, padded by bytes. */
		out_text(o, _("  %-6s %s  %s x%s (max %s x%s)\n"), t->devs[i].label, p->bdf, cs,
			 fab_int_str(l->cur_width, cw, sizeof(cw)), ms,
			 fab_int_str(l->max_width, mw, sizeof(mw)));
	}
}

int report_topo(struct fab_out *o, const struct fab_model *m)
{
	struct fab_topo t;
	if (topo_build(m, &t) != 0) {
		out_text(o, _("fabtop: out of memory building the topology\n"));
		return 2;
	}
	out_open_obj(o, "topology");
	const char *src = t.nvlink_known ? "pci-tree+nvml" : "pci-tree";
	out_str(o, PR_JSON, "source", NULL, src);
	out_bool(o, PR_JSON, "nvlink_known", NULL, t.nvlink_known);
	out_str(o, PR_JSON, "nvml", NULL, m->nvml_status);
	const struct fab_note *pci = model_unknown(m, FAB_SRC_PCI, NULL);
	if (t.n == 0 && pci) {
		out_text(o, _("Topology unknown: the PCI tree could not be read (%s).\n"), pci->message);
	} else if (t.n == 0) {
		out_text(o, _("No GPUs and no RDMA NICs on this node: there is no topology matrix "
				  "to show.\n"));
		out_text(o, P_("(%d PCI functions, %d NUMA node seen; NVML: %s)\n",
			       "(%d PCI functions, %d NUMA nodes seen; NVML: %s)\n", (unsigned long)m->nnuma),
			 m->npci, m->nnuma, m->nvml_status[0] ? m->nvml_status : "N/A");
	} else {
		topo_header(o, &t);
		topo_rows(o, m, &t);
		topo_legends(o, m, &t);
		out_text(o, t.nvlink_known ? _("\nTopology source: PCI tree (sysfs) + NVML NVLink\n")
						 : _("\nTopology source: PCI tree (sysfs); NVLink unknown\n"));
		out_text(o, "NVML: %s\n", m->nvml_status[0] ? m->nvml_status : "N/A");
		topo_closest(o, m, &t);
		topo_links(o, m, &t);
		topo_devices(o, m, &t);
	}
	out_close_obj(o);
	int worst = findings_worst(m, "topo.");
	int wp = findings_worst(m, "pcie.");
	topo_free(&t);
	return (worst >= SEV_WARN || wp >= SEV_WARN) ? 1 : 0;
}

/* True when id starts with one of the comma-separated prefixes (NULL: all). */
static bool id_matches(const char *id, const char *prefixes)
{
	if (!prefixes)
		return true;
	for (const char *p = prefixes; *p; ) {
		size_t n = strcspn(p, ",");
		if (n && strncmp(id, p, n) == 0)
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

void finding_print(struct fab_out *o, const struct fab_finding *f, int indent)
{
	out_open_obj(o, NULL);
	out_text(o, "%*s", indent, "");
	/* JSON keeps the English word; the text says it in the reader's language. */
	out_str(o, PR_JSON, "severity", NULL, sev_name(f->sev));
	out_text(o, "[%s]", sev_word(f->sev));
	out_str(o, PR_ANY, "id", " %s", f->id);
	out_str(o, PR_ANY, "subject", " %s:", f->subject);
	out_str(o, PR_ANY, "message", " %s\n", f->message);
	if (f->layer[0])
		out_text(o, "%*s", indent + 4, "");
	out_str(o, f->layer[0] ? PR_ANY : PR_JSON, "layer", _("layer: %s\n"), f->layer);
	if (f->evidence[0])
		out_text(o, "%*s", indent + 4, "");
	out_str(o, f->evidence[0] ? PR_ANY : PR_JSON, "evidence", _("evidence: %s\n"), f->evidence);
	if (f->hint[0])
		out_text(o, "%*s", indent + 4, "");
	out_str(o, f->hint[0] ? PR_ANY : PR_JSON, "hint", _("next: %s\n"), f->hint);
	out_close_obj(o);
}

int report_findings(struct fab_out *o, const struct fab_model *m, const char *prefixes)
{
	int shown = 0, worst = -1;
	out_open_arr(o, "findings");
	for (int i = 0; i < m->nfindings; i++) {
		const struct fab_finding *f = &m->findings[i];
		if (!id_matches(f->id, prefixes))
			continue;
		if (!shown++)
			out_text(o, _("\nFindings:\n\n"));
		if ((int)f->sev > worst)
			worst = (int)f->sev;
		finding_print(o, f, 2);
	}
	out_close_arr(o);
	if (!shown)
		out_text(o, _("\nFindings: none\n"));
	return worst >= SEV_WARN ? 1 : 0;
}

int report_notes(struct fab_out *o, const struct fab_model *m)
{
	out_open_arr(o, "notes");
	if (m->nnotes)
		out_text(o, _("\nNot read or not available (the rest is shown):\n\n"));
	for (int i = 0; i < m->nnotes; i++) {
		out_open_obj(o, NULL);
		out_str(o, PR_JSON, "what", NULL, m->notes[i].what);
		out_str(o, PR_ANY, "message", "  %s\n", m->notes[i].message);
		out_close_obj(o);
	}
	out_close_arr(o);
	return 0;
}

/* The node's NCCL settings (model.settings), as collected: unknown when a
 * capture did not record them. */
static void report_settings(struct fab_out *o, const struct fab_model *m)
{
	out_open_obj(o, "nccl_settings");
	out_bool(o, PR_JSON, "known", NULL, m->settings_known);
	out_str(o, PR_JSON, "why", NULL, m->settings_known ? NULL : m->settings_why);
	out_text(o, "NCCL settings:");
	out_open_arr(o, "vars");
	for (int i = 0; i < m->nsettings; i++) {
		const struct fab_setting *s = &m->settings[i];
		out_open_obj(o, NULL);
		out_str(o, PR_ANY, "name", " %s", s->name);
		out_str(o, PR_ANY, "value", "=%s", s->value);
		out_str(o, PR_ANY, "source", " (%s)", s->source);
		out_close_obj(o);
	}
	out_close_arr(o);
	out_close_obj(o);
	if (!m->settings_known)
		out_text(o, "%s not all known (%s)\n", m->nsettings ? ";" : "", m->settings_why);
	else
		out_text(o, "%s\n", m->nsettings ? "" : " none (neither the environment nor /etc/nccl.conf sets one)");
}

int report_node(struct fab_out *o, const struct fab_model *m)
{
	char when[64] = "N/A";
	time_t tt = (time_t)m->time;
	struct tm tm;
	if (m->time > 0 && gmtime_r(&tt, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	out_str(o, PR_JSON, "fabtop", NULL, FABTOP_VERSION);
	out_str(o, PR_ANY, "host", "fabtop " FABTOP_VERSION " on %s", m->host);
	out_str(o, PR_ANY, "kernel", " (kernel %s)", m->kernel);
	out_str(o, PR_ANY, "source", ", source: %s", m->source);
	out_bool(o, PR_JSON, "live", NULL, m->live);
	out_bool(o, PR_JSON, "demo", NULL, m->demo);
	out_int(o, PR_JSON, "time", NULL, (fab_int){ m->time, m->time > 0 });
	out_text(o, ", %s\n", when);
	out_str(o, PR_ANY, "cuda", "CUDA: %s\n", m->cuda_status);
	out_str(o, PR_ANY, "nccl", "NCCL: %s\n", m->nccl_status);
	report_settings(o, m);

	out_open_arr(o, "numa_nodes");
	out_text(o, "NUMA nodes:");
	for (int i = 0; i < m->nnuma; i++) {
		out_open_obj(o, NULL);
		out_int(o, PR_ANY, "id", " node%lld", fab_int_of(m->numa[i].id));
		out_str(o, PR_ANY, "cpus", " (CPUs %s)", m->numa[i].cpulist);
		out_open_arr(o, "distances");
		for (int d = 0; d < m->numa[i].ndist; d++)
			out_int(o, PR_JSON, NULL, NULL, fab_int_of(m->numa[i].dist[d]));
		out_close_arr(o);
		out_close_obj(o);
	}
	out_close_arr(o);
	out_text(o, m->nnuma ? "\n" : " N/A\n");

	out_open_arr(o, "nics");
	for (int i = 0; i < m->nnics; i++) {
		const struct fab_nic *n = &m->nics[i];
		out_open_obj(o, NULL);
		out_str(o, PR_JSON, "name", NULL, n->name);
		out_str(o, PR_JSON, "bdf", NULL, n->pci != FAB_NO_INDEX ? m->pci[n->pci].bdf : NULL);
		out_str(o, PR_JSON, "node_guid", NULL, n->node_guid);
		out_str(o, PR_JSON, "fw_ver", NULL, n->fw_ver);
		out_str(o, PR_JSON, "board_id", NULL, n->board_id);
		out_open_arr(o, "ports");
		for (int p = 0; p < n->nports; p++) {
			const struct fab_port *pt = &n->ports[p];
			out_open_obj(o, NULL);
			out_int(o, PR_JSON, "port", NULL, fab_int_of(pt->num));
			char sb[24], pb[24];
			out_str(o, PR_JSON, "state", NULL, port_state_word(pt, sb, sizeof(sb)));
			out_str(o, PR_JSON, "phys_state", NULL, port_phys_word(pt, pb, sizeof(pb)));
			out_num(o, PR_JSON, "rate_gbps", NULL, pt->rate_gbps);
			out_str(o, PR_JSON, "link_layer", NULL, ll_name(pt->ll));
			out_str(o, PR_JSON, "netdev", NULL, pt->netdev);
			out_close_obj(o);
		}
		out_close_arr(o);
		out_close_obj(o);
	}
	out_close_arr(o);

	out_open_arr(o, "netdevs");
	for (int i = 0; i < m->nnetdevs; i++) {
		const struct fab_netdev *d = &m->netdevs[i];
		out_open_obj(o, NULL);
		out_str(o, PR_JSON, "name", NULL, d->name);
		out_str(o, PR_JSON, "bdf", NULL, d->pci != FAB_NO_INDEX ? m->pci[d->pci].bdf : NULL);
		out_int(o, PR_JSON, "mtu", NULL, d->mtu);
		out_str(o, PR_JSON, "operstate", NULL, d->operstate);
		out_int(o, PR_JSON, "carrier", NULL, d->carrier);
		out_int(o, PR_JSON, "speed_mbps", NULL, d->speed_mbps);
		out_str(o, PR_JSON, "qos_trust", NULL, d->qos_trust);
		out_int(o, PR_JSON, "pfc_mask", NULL, d->pfc_mask);
		out_open_arr(o, "addrs");
		for (int a = 0; a < d->naddrs; a++)
			out_str(o, PR_JSON, NULL, NULL, d->addrs[a]);
		out_close_arr(o);
		out_close_obj(o);
	}
	out_close_arr(o);
	out_int(o, PR_JSON, "pci_functions", NULL, fab_int_of(m->npci));
	return 0;
}

int report_verdict(struct fab_out *o, const struct fab_model *m, unsigned need, int worst)
{
	enum fab_verdict v = model_verdict(m, need, worst);
	out_str(o, PR_JSON, "verdict", NULL, fab_verdict_name(v));
	out_open_arr(o, "unknown_because");
	if (v == FAB_VERDICT_UNKNOWN)
		out_text(o, _("\nVerdict: unknown: what this report stands on could not be read, so it "
			      "cannot call the node healthy:\n"));
	for (int i = 0; i < m->nnotes && v == FAB_VERDICT_UNKNOWN; i++)
		if (m->notes[i].src & need)
			out_str(o, PR_ANY, NULL, "  %s\n", m->notes[i].message);
	out_close_arr(o);
	return (int)v;
}

int report_run(const char *section, bool json, FILE *fp, const struct fab_model *m)
{
	bool all = strcmp(section, "all") == 0;
	bool links = strcmp(section, "links") == 0;
	unsigned need = all ? FAB_NEED_ALL : links ? FAB_NEED_LINKS : FAB_NEED_TOPO;
	if (!all && !links && strcmp(section, "topo") != 0)
		return 2;
	struct fab_out *o = out_new(json ? OUT_JSON : OUT_TEXT, fp);
	if (!o)
		return 2;
	int rc = 0, r;
	out_open_obj(o, NULL);
	if (all) {
		report_node(o, m);
		out_text(o, "\n");
	}
	if (!links) {
		r = report_topo(o, m);
		rc = r > rc ? r : rc;
	}
	if (all)
		out_text(o, "\n");
	if (all || links) {
		r = report_links(o, m);
		rc = r > rc ? r : rc;
	}
	r = report_findings(o, m, all ? NULL : links ? "links." : "topo.,pcie.");
	rc = r > rc ? r : rc;
	report_notes(o, m);
	if (rc < 2)
		rc = report_verdict(o, m, need, rc ? SEV_WARN : -1);
	out_close_obj(o);
	if (out_free(o) != 0)
		return 2;
	return rc;
}
