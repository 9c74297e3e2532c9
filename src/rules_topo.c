/*
 * rules_topo.c - topology and PCIe rules: GPUs far from their NIC, GPUs
 * sharing one NIC, PCIe links below capability, ACS redirect, a GPU with
 * fewer NVLinks than the others.
 */
#include <stdio.h>
#include <string.h>
#include "rules.h"
#include "fabtop/i18n.h"
#include "fabtop/topo.h"
#include "fabtop/sanitize.h"
#include "fabtop/util.h"

#define ACS_RR 0x04   /* P2P Request Redirect */
#define ACS_CR 0x08   /* P2P Completion Redirect */

static const char *nic_label(const struct fab_topo *t, int nic, char *buf, size_t len)
{
	for (int j = 0; j < t->nnics; j++)
		if (t->devs[t->ngpus + j].idx == nic) {
			snprintf(buf, len, "%s", t->devs[t->ngpus + j].label);
			return buf;
		}
	snprintf(buf, len, "-");
	return buf;
}

/* A GPU whose closest usable NIC is NODE or SYS away cannot use GPUDirect
 * RDMA at NCCL's default level; traffic is staged through host memory. */
static void rule_nic_far(struct fab_model *m)
{
	struct fab_topo t;
	if (topo_build(m, &t) != 0 || t.nnics == 0) {
		topo_free(&t);
		return;
	}
	for (int g = 0; g < t.ngpus; g++) {
		enum fab_topo_level l = t.best_level[g];
		if (l < TOPO_NODE || l == TOPO_UNKNOWN || !t.best[g] || t.best_usable[g] == FAB_NO)
			continue;
		int j = __builtin_ctzll(t.best[g]);
		const struct fab_nic *nic = &m->nics[t.devs[t.ngpus + j].idx];
		const struct fab_pci_dev *gp = &m->pci[m->gpus[g].pci];
		struct fab_finding *f = model_add_finding(m, "topo.nic-far", SEV_WARN, t.devs[g].label);
		snprintf(f->message, sizeof(f->message),
			 t.best_usable[g] == FAB_YES ?
			 _("its closest usable NIC is %s %s, %s away: GPUDirect RDMA is off at NCCL's "
			   "default level (PXB), so its traffic crosses %s through host memory") :
			 _("its closest NIC (usable here: unknown) is %s %s, %s away: GPUDirect RDMA is off "
			   "at NCCL's default level (PXB), so its traffic crosses %s through host memory"),
			 t.devs[t.ngpus + j].label, nic->name, topo_level_word(l),
			 l == TOPO_SYS ? _("the CPU interconnect") : _("the host bridges"));
		/* Say so when a closer NIC exists but is not usable. */
		char closer[512] = "", na[24], nb[24];
		if (t.closer[g] >= 0) {
			int k = t.closer[g], ni = t.devs[t.ngpus + k].idx;
			snprintf(closer, sizeof(closer), _("; %s %s is %s but not usable: %s"),
				 t.devs[t.ngpus + k].label, m->nics[ni].name,
				 topo_level_word(t.level[g * t.n + t.ngpus + k]), m->nics[ni].usable.why);
		}
		snprintf(f->evidence, sizeof(f->evidence),
			 "%s %s numa_node=%s, %s %s %s numa_node=%s%s",
			 t.devs[g].label, gp->bdf,
			 fab_int_str(gp->numa_node, na, sizeof(na)),
			 t.devs[t.ngpus + j].label, nic->name, m->pci[nic->pci].bdf,
			 fab_int_str(m->pci[nic->pci].numa_node, nb, sizeof(nb)),
			 closer);
		snprintf(f->hint, sizeof(f->hint),
			 "%s", closer[0] ? _("make the closer NIC usable (ibstat; ls -l /dev/infiniband), or pin this GPU's rank to a NIC on its NUMA node with NCCL_IB_HCA")
				   : _("check NCCL's choice with NCCL_DEBUG=INFO (NET/IB lines); a NIC on the GPU's own PCIe switch is the right one"));
	}
	topo_free(&t);
}

/* Two or more GPUs whose only closest NIC is the same one, while a NIC of
 * the same link layer serves no GPU: the rail is oversubscribed. */
static void rule_nic_shared(struct fab_model *m)
{
	struct fab_topo t;
	if (topo_build(m, &t) != 0 || t.nnics < 2) {
		topo_free(&t);
		return;
	}
	unsigned long long served = 0;
	for (int g = 0; g < t.ngpus; g++)
		served |= t.best[g];
	for (int j = 0; j < t.nnics && j < 64; j++) {
		char gpus[160] = "";
		int users = 0;
		for (int g = 0; g < t.ngpus; g++)
			if (t.best[g] == 1ULL << j) {
				size_t l = strlen(gpus);
				snprintf(gpus + l, sizeof(gpus) - l, "%s%s", users ? ", " : "", t.devs[g].label);
				users++;
			}
		if (users < 2)
			continue;
		const struct fab_nic *nic = &m->nics[t.devs[t.ngpus + j].idx];
		for (int k = 0; k < t.nnics && k < 64; k++) {
			const struct fab_nic *idle = &m->nics[t.devs[t.ngpus + k].idx];
			if ((served >> k) & 1 || m->nics[t.devs[t.ngpus + k].idx].usable.v == FAB_NO)
				continue;
			if (nic->nports && idle->nports &&
			    nic->ports[0].ll != idle->ports[0].ll)
				continue;
			struct fab_finding *f = model_add_finding(m, "topo.nic-shared", SEV_WARN,
								  t.devs[t.ngpus + j].label);
			char lb[16];
			snprintf(f->message, sizeof(f->message),
				 _("%s share %s %s as their closest NIC while %s %s is closest to no GPU"),
				 gpus, t.devs[t.ngpus + j].label, nic->name,
				 nic_label(&t, t.devs[t.ngpus + k].idx, lb, sizeof(lb)), idle->name);
			snprintf(f->evidence, sizeof(f->evidence), "%s at %s; %s at %s",
				 nic->name, m->pci[nic->pci].bdf, idle->name, m->pci[idle->pci].bdf);
			snprintf(f->hint, sizeof(f->hint),
				 _("one NIC per GPU is the usual rail design: check cabling/slot placement, or spread ranks with NCCL_IB_HCA"));
			break;
		}
	}
	topo_free(&t);
}


static bool in_chain_of(const struct fab_model *m, int bridge, bool want_nic)
{
	for (int i = 0; i < m->npci; i++) {
		bool is_nic = false, is_gpu = false;
		for (int n = 0; n < m->nnics; n++)
			is_nic |= m->nics[n].pci == i;
		for (int g = 0; g < m->ngpus; g++)
			is_gpu |= m->gpus[g].pci == i;
		if (!(want_nic ? is_nic : is_gpu))
			continue;
		for (int c = 0; c < m->pci[i].chain_len; c++)
			if (strcmp(m->pci[i].chain[c], m->pci[bridge].bdf) == 0)
				return true;
	}
	return false;
}

/* A root or downstream port's link files describe the link below it, which
 * the function below reports already; only an upstream port's describe its
 * own (upstream) link. Without a port type, the chain position says it. */
static bool link_is_below(const struct fab_model *m, int bridge)
{
	const struct fab_pci_dev *b = &m->pci[bridge];
	if (b->pcie_type == PCIE_TYPE_ROOT_PORT || b->pcie_type == PCIE_TYPE_DOWNSTREAM)
		return true;
	if (b->pcie_type != PCIE_TYPE_UNKNOWN)
		return false;
	for (int i = 0; i < m->npci; i++)
		for (int c = 0; c < m->pci[i].chain_len; c++)
			if (strcmp(m->pci[i].chain[c], b->bdf) == 0)
				return c % 2 == 0;
	return false;
}

/* True when the device is function N > 0 of a device whose function 0 is
 * known: all functions share one link, which function 0 reports. */
static bool other_function_of(const struct fab_model *m, int i)
{
	if (fab_bdf_function(m->pci[i].bdf) <= 0)
		return false;
	for (int j = 0; j < m->npci; j++)
		if (fab_bdf_function(m->pci[j].bdf) == 0 &&
		    fab_bdf_same_slot(m->pci[j].bdf, m->pci[i].bdf))
			return true;
	return false;
}

/* Links below what both ends can do. GPUs drop their link speed when idle
 * (power saving), so a GPU-only slow speed is information, not a fault. */
static void rule_pcie_degraded(struct fab_model *m)
{
	for (int i = 0; i < m->npci; i++) {
		struct fab_pci_dev *d = &m->pci[i];
		const char *label = NULL;
		char lbuf[FAB_NAME_LEN];
		bool gpu_only = false;
		int gpu = -1;
		for (int g = 0; g < m->ngpus; g++)
			if (m->gpus[g].pci == i) {
				snprintf(lbuf, sizeof(lbuf), "GPU%d", g);
				label = lbuf;
				gpu_only = true;
				gpu = g;
			}
		for (int n = 0; n < m->nnics && !label; n++)
			if (m->nics[n].pci == i)
				label = m->nics[n].name;
		bool off_path = false;
		if (!label && d->is_bridge && !link_is_below(m, i)) {
			snprintf(lbuf, sizeof(lbuf), "switch port %s", d->bdf);
			label = lbuf;
			off_path = !in_chain_of(m, i, true) && !in_chain_of(m, i, false);
			gpu_only = !off_path && !in_chain_of(m, i, true);
		} else if (!label && !d->is_bridge && !other_function_of(m, i)) {
			label = d->bdf;   /* NVMe, a storage or management NIC, ... */
			off_path = true;
		}
		/* What the link can train to is bounded by the port above it too. */
		double cap_s;
		long long cap_w;
		if (!label || !d->link.cur_speed.ok || !d->link.cur_width.ok ||
		    !pcie_link_cap(m, d, &cap_s, &cap_w))
			continue;
		/* Off the GPU and NIC paths only a narrower link is said, as
		 * information: it slows that device alone, and many idle devices
		 * lower their speed (ASPM) but never their width. */
		unsigned below = pcie_link_below(d->link.cur_speed.v, d->link.cur_width.v, cap_s, cap_w);
		bool slow = (below & PCIE_SLOW) && !off_path;
		bool narrow = below & PCIE_NARROW;
		if (!slow && !narrow)
			continue;
		/* A GPU's speed alone is judged by its load: a busy GPU should
		 * run its link at full speed, an idle one lowers it. */
		struct fab_judged busy = { FAB_UNKNOWN, "" };
		if (gpu_only && gpu >= 0)
			busy = gpu_busy(&m->gpus[gpu]);
		enum fab_severity sev = off_path ? SEV_INFO :
					(narrow || !gpu_only || busy.v == FAB_YES) ? SEV_WARN : SEV_INFO;
		struct fab_finding *f = model_add_finding(m, "pcie.degraded", sev, label);
		char busy_note[320] = "";
		if (busy.v == FAB_YES)
			snprintf(busy_note, sizeof(busy_note), _(" while the GPU is busy (%s): a busy GPU "
				 "runs its link at full speed"), busy.why);
		else if (busy.v == FAB_NO)
			snprintf(busy_note, sizeof(busy_note), _(" (the GPU is idle, %s: GPUs lower their "
				 "link speed when idle; check under load)"), busy.why);
		else if (gpu >= 0)
			snprintf(busy_note, sizeof(busy_note), _(" (GPUs lower their link speed when idle; "
				 "its load is unknown without NVML: check under load)"));
		else
			snprintf(busy_note, sizeof(busy_note), _(" (the GPUs below lower their link speed "
				 "when idle; check under load)"));
		double have = pcie_gbps(d->link.cur_speed.v, d->link.cur_width.v);
		double can = pcie_gbps(cap_s, cap_w);
		const char *note = off_path ? _(" (off every GPU and NIC path: only this device is slowed)") :
				   gpu_only && !narrow ? busy_note : "";
		if (d->is_bridge)
			snprintf(f->message, sizeof(f->message),
				 _("PCIe link runs at %.1f GT/s x%lld, capable of %.1f GT/s x%lld: "
				   "%.0f of %.0f Gb/s%s"),
				 d->link.cur_speed.v, d->link.cur_width.v, cap_s, cap_w, have, can, note);
		else
			snprintf(f->message, sizeof(f->message),
				 _("PCIe link of %s runs at %.1f GT/s x%lld, capable of %.1f GT/s x%lld: "
				   "%.0f of %.0f Gb/s%s"),
				 d->bdf, d->link.cur_speed.v, d->link.cur_width.v, cap_s, cap_w, have, can, note);
		snprintf(f->evidence, sizeof(f->evidence),
			 "/sys/bus/pci/devices/%s/current_link_speed=%.1f GT/s current_link_width=%lld "
			 "max_link_speed=%.1f GT/s max_link_width=%lld",
			 d->bdf, d->link.cur_speed.v, d->link.cur_width.v, d->link.max_speed.v,
			 d->link.max_width.v);
		snprintf(f->hint, sizeof(f->hint),
			 _("lspci -s %s -vv | grep -E 'LnkCap|LnkSta'; reseat the card or check the slot/riser "
			 "and BIOS bifurcation"), FAB_SHQ(d->bdf));
	}
}

/* ACS redirect on a bridge above a GPU or NIC sends peer-to-peer traffic
 * (GPUDirect RDMA, GPU P2P) up to the root complex instead of across the switch. */
static void rule_pcie_acs(struct fab_model *m)
{
	for (int i = 0; i < m->npci; i++) {
		const struct fab_pci_dev *d = &m->pci[i];
		if (!d->is_bridge || !d->acs_ctrl.ok || !(d->acs_ctrl.v & (ACS_RR | ACS_CR)))
			continue;
		if (!in_chain_of(m, i, false) && !in_chain_of(m, i, true))
			continue;
		if (d->pcie_type == PCIE_TYPE_ROOT_PORT)
			continue;   /* P2P through a root port goes through the CPU anyway */
		struct fab_finding *f = model_add_finding(m, "pcie.acs", SEV_WARN, d->bdf);
		snprintf(f->message, sizeof(f->message),
			 _("ACS redirect is on at switch port %s: GPU<->NIC peer-to-peer traffic below it "
			 "is forced up to the root complex (slower GPUDirect RDMA, or none)"), d->bdf);
		snprintf(f->evidence, sizeof(f->evidence), _("ACSCtl=0x%04llx (RR=%d CR=%d) from the config space"),
			 d->acs_ctrl.v, !!(d->acs_ctrl.v & ACS_RR), !!(d->acs_ctrl.v & ACS_CR));
		snprintf(f->hint, sizeof(f->hint),
			 _("lspci -s %s -vvv | grep ACSCtl; disable ACS in the BIOS (or leave it on only where "
			 "a VM needs isolation)"), FAB_SHQ(d->bdf));
	}
}

/* ---- topo.nvlink-asymmetric ---------------------------------------------- */

/* A GPU's NVLinks to the other GPUs, summed (the NV# of each pair): -1 when
 * one pair is unknown (no NVML, or a capture without it). */
static int nvlink_total(const struct fab_model *m, int g)
{
	int sum = 0;
	for (int j = 0; j < m->ngpus && j < FAB_MAX_GPUS; j++) {
		if (j == g)
			continue;
		if (!m->gpus[g].nvlinks[j].ok)
			return -1;
		sum += (int)m->gpus[g].nvlinks[j].v;
	}
	return sum;
}

/* "GPU1 NV1, GPU5 NV2" (the pairs with links), or "none". */
static void nvlink_list(const struct fab_model *m, int g, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int j = 0; j < m->ngpus && j < FAB_MAX_GPUS; j++)
		if (j != g && m->gpus[g].nvlinks[j].ok && m->gpus[g].nvlinks[j].v > 0)
			fab_catf(buf, len, "%sGPU%d NV%lld", buf[0] ? ", " : "", j, m->gpus[g].nvlinks[j].v);
	if (!buf[0])
		snprintf(buf, len, _("none"));
}

/* Designs differ (an NVSwitch board gives every pair NV18, DGX-1's hybrid
 * cube-mesh mixes NV1 and NV2 pairs and leaves others without, bridged PCIe
 * cards pair up), but within one node every GPU carries the same number of
 * links: 18, 6, 12. A GPU below what most GPUs carry has links down (a
 * bridge badly seated, a failed link, a GPU off the fabric), and NCCL's
 * rings and trees through it run at its bandwidth, or over PCIe. Two GPUs
 * cannot show this (their one pair is the same from both ends). */
static void rule_nvlink_asymmetric(struct fab_model *m)
{
	int total[FAB_MAX_GPUS], known = 0, ref = -1, ref_votes = 0;
	for (int g = 0; g < m->ngpus && g < FAB_MAX_GPUS; g++)
		if ((total[g] = nvlink_total(m, g)) >= 0)
			known++;
	if (known < 3)
		return;
	/* The total most GPUs carry; a tie goes to the larger (a fault only
	 * takes links away). */
	for (int g = 0; g < m->ngpus && g < FAB_MAX_GPUS; g++) {
		if (total[g] < 0)
			continue;
		int votes = 0;
		for (int h = 0; h < m->ngpus && h < FAB_MAX_GPUS; h++)
			votes += total[h] == total[g];
		if (votes > ref_votes || (votes == ref_votes && total[g] > total[ref])) {
			ref = g;
			ref_votes = votes;
		}
	}
	if (ref < 0 || total[ref] == 0 || ref_votes < 2)
		return;
	/* Every GPU of the reference linked to every other GPU: a full mesh
	 * (NVSwitch), where a GPU without links is off the fabric. */
	bool mesh = true;
	for (int j = 0; j < m->ngpus && j < FAB_MAX_GPUS; j++)
		if (j != ref && total[j] > 0 && m->gpus[ref].nvlinks[j].v == 0)
			mesh = false;
	for (int g = 0; g < m->ngpus && g < FAB_MAX_GPUS; g++) {
		if (total[g] < 0 || total[g] >= total[ref])
			continue;
		enum fab_severity sev = total[g] > 0 || mesh ? SEV_WARN : SEV_INFO;
		char subj[16], mine[512], theirs[512], idx[24];
		snprintf(subj, sizeof(subj), "GPU%d", g);
		nvlink_list(m, g, mine, sizeof(mine));
		nvlink_list(m, ref, theirs, sizeof(theirs));
		struct fab_finding *f = model_add_finding(m, "topo.nvlink-asymmetric", sev, subj);
		snprintf(f->message, sizeof(f->message),
			 P_("%d NVLink up where %d of the %d GPUs carry %d: %s; NCCL's rings and trees "
			    "through this GPU run at its bandwidth, or over PCIe",
			    "%d NVLinks up where %d of the %d GPUs carry %d: %s; NCCL's rings and trees "
			    "through this GPU run at its bandwidth, or over PCIe", (unsigned long)total[g]),
			 total[g], ref_votes, known, total[ref],
			 total[g] ? _("links are down or a bridge is badly seated")
				  : mesh ? _("this GPU is off the NVLink fabric")
					 : _("it has no NVLink partner (a missing or unseated bridge?)"));
		snprintf(f->evidence, sizeof(f->evidence), _("NVML active links per GPU pair: GPU%d: %s; "
			 "GPU%d (as most): %s"), g, mine, ref, theirs);
		snprintf(idx, sizeof(idx), "%lld", m->gpus[g].nvml_index.ok ? m->gpus[g].nvml_index.v : g);
		snprintf(f->hint, sizeof(f->hint),
			 _("nvidia-smi nvlink --status -i %s (each link's state) and nvidia-smi topo -m; "
			 "cards joined by NVLink bridges: reseat the bridge; an NVSwitch board: "
			 "nvidia-smi nvlink -e -i %s (link errors) and the fabric manager's log"), idx, idx);
	}
}

/* The findings of this file: adding one is a function above and a row here. */
static const struct fab_rule topo_rules[] = {
	{ .id = "topo.nic-far", .run = rule_nic_far,
	  .layer = N_("topology: GPUDirect RDMA needs the GPU and its NIC under one PCIe switch") },
	{ .id = "topo.nic-shared", .run = rule_nic_shared,
	  .layer = N_("topology: one NIC (rail) per GPU keeps each GPU's network traffic separate") },
	{ .id = "pcie.degraded", .run = rule_pcie_degraded,
	  .layer = N_("PCIe: the link between CPU/switch and device caps every byte above it") },
	{ .id = "pcie.acs", .run = rule_pcie_acs,
	  .layer = N_("PCIe: ACS decides whether peer-to-peer traffic may stay inside a switch") },
	{ .id = "topo.nvlink-asymmetric", .run = rule_nvlink_asymmetric,
	  .layer = N_("topology: NCCL's rings and trees over NVLink run at the slowest GPU's links") },
};
FAB_RULE_SET(topo_rule_set, topo_rules);
