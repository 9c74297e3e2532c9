/*
 * pci_lib.c - what only libpci knows about the PCI functions the sysfs
 * collector found: pci.ids names, and from the full config space the PCIe
 * port type, LnkCap/LnkSta and the ACS control register.
 *
 * libpci's default error handler exits the process, and a replacement must
 * not return; ours longjmps back here so a broken fixture or an unreadable
 * sysfs becomes a model note.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <pci/pci.h>
#include "fabtop/collect.h"
#include "fabtop/util.h"

static jmp_buf pci_jmp;
static char pci_errmsg[256];

static void __attribute__((format(printf, 1, 2), noreturn)) on_pci_error(char *msg, ...)
{
	va_list ap;
	va_start(ap, msg);
	vsnprintf(pci_errmsg, sizeof(pci_errmsg), msg, ap);
	va_end(ap);
	longjmp(pci_jmp, 1);
}

/* Warnings (an unreadable config file, ...) show up as missing data. */
static void __attribute__((format(printf, 1, 2))) on_pci_warning(char *msg, ...)
{
	(void)msg;
}

static void __attribute__((format(printf, 1, 2))) on_pci_debug(char *msg, ...)
{
	(void)msg;
}

/* PCIe speed codes of LnkCap/LnkSta to GT/s; 0 for unknown codes. */
static double speed_gts(unsigned code)
{
	static const double gts[] = { 0, 2.5, 5, 8, 16, 32, 64 };
	return code < sizeof(gts) / sizeof(gts[0]) ? gts[code] : 0;
}

static enum fab_pcie_type pcie_type(unsigned t)
{
	switch (t) {
	case PCI_EXP_TYPE_ENDPOINT:
	case PCI_EXP_TYPE_LEG_END:
	case PCI_EXP_TYPE_ROOT_INT_EP:
		return PCIE_TYPE_ENDPOINT;
	case PCI_EXP_TYPE_ROOT_PORT:   return PCIE_TYPE_ROOT_PORT;
	case PCI_EXP_TYPE_UPSTREAM:    return PCIE_TYPE_UPSTREAM;
	case PCI_EXP_TYPE_DOWNSTREAM:  return PCIE_TYPE_DOWNSTREAM;
	default:                       return PCIE_TYPE_OTHER;
	}
}

/* Names are shown only for GPUs that NVML did not name, and loading
 * pci.ids costs more than the rest of a snapshot: collect_gpus() asks for
 * those alone, once NVML has answered (it may answer late: gpu_bg.c).
 * pci.ids only: the udev hwdb lookup is slower still and adds nothing. */
static void lookup_name(struct pci_access *pa, struct fab_pci_dev *p)
{
	char name[256];
	unsigned ven = (unsigned)p->vendor.v, dev = (unsigned)p->device.v;
	if (!p->vendor.ok || !p->device.ok)
		return;
	if (pci_lookup_name(pa, name, sizeof(name), PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE |
			    PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB, ven, dev))
		fab_strlcpy(p->name, name, sizeof(p->name));
	else if (pci_lookup_name(pa, name, sizeof(name), PCI_LOOKUP_VENDOR |
				 PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB, ven))
		/* A device newer than pci.ids: name it the way lspci does. */
		snprintf(p->name, sizeof(p->name), "%.100s Device %04x", name, dev);
}

/* lookup_name with the error handler armed; -1 when libpci gave up. */
static int guarded_lookup(struct pci_access *pa, struct fab_pci_dev *p)
{
	if (setjmp(pci_jmp))
		return -1;
	lookup_name(pa, p);
	return 0;
}

int collect_pci_names(struct fab_model *m, bool (*pick)(const struct fab_model *m, int i))
{
	struct pci_access *pa = NULL;
	for (int i = 0; i < m->npci; i++) {
		if (!pick(m, i))
			continue;
		if (!pa) {
			if (!(pa = pci_alloc()))
				return -1;
			pa->error = on_pci_error;
			pa->warning = on_pci_warning;
			pa->debug = on_pci_debug;
		}
		if (guarded_lookup(pa, &m->pci[i]) != 0)
			break;   /* libpci gave up (pci.ids unreadable): the names stay unknown */
	}
	if (pa)
		pci_cleanup(pa);
	return 0;
}

/* Fills one model device from its libpci twin. */
static void fill_dev(struct pci_dev *d, struct fab_pci_dev *p)
{
	pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CAPS | PCI_FILL_EXT_CAPS);

	/* Without root only 64 bytes are readable: no capability list. */
	struct pci_cap *exp = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
	if (!exp)
		return;
	p->config_full = true;
	u16 flags = pci_read_word(d, exp->addr + PCI_EXP_FLAGS);
	p->pcie_type = pcie_type((flags & PCI_EXP_FLAGS_TYPE) >> 4);

	/* sysfs current_link_* / max_link_* win: the kernel may know better. */
	u32 cap = pci_read_long(d, exp->addr + PCI_EXP_LNKCAP);
	u16 sta = pci_read_word(d, exp->addr + PCI_EXP_LNKSTA);
	double s;
	unsigned w;
	if (!p->link.max_speed.ok && (s = speed_gts(cap & PCI_EXP_LNKCAP_SPEED)) > 0)
		p->link.max_speed = fab_num_of(s);
	if (!p->link.max_width.ok && (w = (cap & PCI_EXP_LNKCAP_WIDTH) >> 4) > 0)
		p->link.max_width = fab_int_of(w);
	if (!p->link.cur_speed.ok && (s = speed_gts(sta & PCI_EXP_LNKSTA_SPEED)) > 0)
		p->link.cur_speed = fab_num_of(s);
	if (!p->link.cur_width.ok && (w = (sta & PCI_EXP_LNKSTA_WIDTH) >> 4) > 0)
		p->link.cur_width = fab_int_of(w);

	bool bridge = p->is_bridge || d->device_class == PCI_CLASS_BRIDGE_PCI;
	struct pci_cap *acs = bridge ? pci_find_cap(d, PCI_EXT_CAP_ID_ACS, PCI_CAP_EXTENDED) : NULL;
	if (acs)
		p->acs_ctrl = fab_int_of(pci_read_word(d, acs->addr + PCI_ACS_CTRL));
}

/* Runs fill_dev with the error handler armed; -1 when libpci gave up. */
static int guarded_fill(struct pci_dev *d, struct fab_pci_dev *p)
{
	if (setjmp(pci_jmp))
		return -1;
	fill_dev(d, p);
	return 0;
}

/* pci_init + pci_scan_bus with the error handler armed. */
static int guarded_scan(struct pci_access *pa)
{
	if (setjmp(pci_jmp))
		return -1;
	pci_init(pa);
	pci_scan_bus(pa);
	return 0;
}

/* A non-root reader gets only the first 64 bytes of config (no capability
 * list): say once that LnkCap, port types and ACS need root, rather than
 * leaving a silent N/A. Devices without a PCIe capability are not counted. */
static void note_short_config(const struct fab_root *r, struct fab_model *m)
{
	int shortc = 0, bridges = 0;
	for (int i = 0; i < m->npci; i++) {
		char path[128], buf[128];
		if (m->pci[i].config_full)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", m->pci[i].bdf);
		ssize_t n = root_read(r, path, buf, sizeof(buf));
		if (n >= 0 && n <= 64) {
			shortc++;
			bridges += m->pci[i].is_bridge;
		}
	}
	if (shortc)
		model_note(m, "PCI config space",
			   "only 64 bytes of config space readable for %d PCI function(s) (%d bridges): "
			   "LnkCap, PCIe port types and ACS need root (run fabtop, or the capture, as root)",
			   shortc, bridges);
}

int collect_pci_lib(const struct fab_root *r, struct fab_model *m)
{
	char sysfs[PATH_MAX];

	if (m->npci == 0)
		return 0;
	struct pci_access *pa = pci_alloc();
	if (!pa) {
		model_note(m, "libpci", "pci_alloc failed: out of memory");
		return -1;
	}
	pa->error = on_pci_error;
	pa->warning = on_pci_warning;
	pa->debug = on_pci_debug;
	pa->method = PCI_ACCESS_SYS_BUS_PCI;
	root_path(r, "/sys/bus/pci", sysfs, sizeof(sysfs));
	if (!r->live)
		pci_set_param(pa, "sysfs.path", sysfs);

	if (guarded_scan(pa) != 0) {
		/* Partly built state is still owned by pa; pci_cleanup frees it. */
		model_note(m, "libpci", "libpci could not read %s: %s (PCI names, LnkCap "
			   "and ACS are unknown)", sysfs, pci_errmsg);
		pci_cleanup(pa);
		return -1;
	}
	int failed = 0;
	for (struct pci_dev *d = pa->devices; d; d = d->next) {
		char bdf[32];
		snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%x",
			 (unsigned)d->domain, d->bus, d->dev, d->func);
		int i = model_find_pci(m, bdf);
		/* One unreadable device costs only its own details. */
		if (i != FAB_NO_INDEX && guarded_fill(d, &m->pci[i]) != 0 && !failed++)
			model_note(m, "libpci", "libpci could not read %s/devices/%s: %s",
				   sysfs, bdf, pci_errmsg);
	}
	pci_cleanup(pa);
	note_short_config(r, m);
	return 0;
}
