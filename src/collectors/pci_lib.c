/*
 * pci_lib.c - what only libpci knows about the PCI functions the sysfs
 * collector found: pci.ids names, and from the full config space the PCIe
 * port type, LnkCap/LnkSta and the ACS control register.
 *
 * libpci's default error handler exits the process, and a replacement must
 * not return; ours longjmps back here so a broken fixture or an unreadable
 * sysfs becomes a model note.
 *
 * A root in memory (a capture tarball) has no sysfs directory for libpci to
 * read: its config spaces go to libpci's dump access method instead (the
 * `lspci -xxxx` text, domains and 4 KiB of config included, in a memfd),
 * and what the sysfs method takes from sysfs files (vendor, device, class)
 * is read through the root, so that both give the same answers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
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

#define PCI_NODE_DIR "/sys/bus/pci/devices"

/* The config spaces of a root's PCI functions as libpci's dump method reads
 * them (lib/dump.c: "DDDD:BB:DD.F title" then "OFF: hh hh ..." lines, at most
 * 4096 bytes each), in a memfd: the fd, or -1 with pci_errmsg set as the
 * sysfs method words a device name it cannot parse. */
static int config_dump(const struct fab_root *r)
{
	char **names, line[8 + 16 * 3 + 2];
	int n = root_list(r, PCI_NODE_DIR, &names);
	if (n < 0) {
		snprintf(pci_errmsg, sizeof(pci_errmsg), "Cannot open %s", PCI_NODE_DIR);
		return -1;
	}
	int fd = memfd_create("fabtop-pci-dump", MFD_CLOEXEC);
	int wfd = fd >= 0 ? dup(fd) : -1;
	FILE *f = wfd >= 0 ? fdopen(wfd, "w") : NULL;
	if (!f && wfd >= 0)
		close(wfd);
	unsigned char *cfg = malloc(4097);
	bool ok = f && cfg;
	if (!ok)
		snprintf(pci_errmsg, sizeof(pci_errmsg), "cannot hold the config spaces: %s",
			 strerror(errno));
	for (int i = 0; ok && i < n; i++) {
		unsigned dom, bus, dev, func;
		char path[PATH_MAX];
		if (names[i][0] == '.')
			continue;   /* as sysfs_scan() */
		if (sscanf(names[i], "%x:%x:%x.%u", &dom, &bus, &dev, &func) < 4 || dom > 0x7fffffff) {
			snprintf(pci_errmsg, sizeof(pci_errmsg),
				 "sysfs_scan: Couldn't parse entry name %s", names[i]);
			ok = false;
			break;
		}
		/* dump_init() wants a space after the address, as lspci's title */
		fprintf(f, "%04x:%02x:%02x.%x %s\n", dom, bus, dev, func, names[i]);
		/* An unreadable config is no bytes: every read of it fails, as
		 * the sysfs method's reads of a config it cannot open. */
		snprintf(path, sizeof(path), PCI_NODE_DIR "/%s/config", names[i]);
		ssize_t got = root_read(r, path, (char *)cfg, 4097);
		for (ssize_t off = 0; off < got; off += 16) {
			int l = snprintf(line, sizeof(line), "%03zx:", (size_t)off);
			for (ssize_t k = off; k < got && k < off + 16; k++)
				l += snprintf(line + l, sizeof(line) - (size_t)l, " %02x", cfg[k]);
			fprintf(f, "%s\n", line);
		}
		fputc('\n', f);
	}
	if (f && fclose(f) != 0 && ok) {
		snprintf(pci_errmsg, sizeof(pci_errmsg), "cannot hold the config spaces: %s",
			 strerror(errno));
		ok = false;
	}
	free(cfg);
	if (n > 0)
		root_free_list(names, n);
	if (!ok) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* What the sysfs method reads from sysfs files rather than config space
 * (the kernel's view: a class fixed for a broken device), read through the
 * root; -1 with pci_errmsg set when one is missing, as the sysfs method
 * fails on it. */
static int sysfs_ident(const struct fab_root *r, struct pci_dev *d, const char *bdf)
{
	static const char *const files[] = { "vendor", "device", "class" };
	long v[3];
	for (int i = 0; i < 3; i++) {
		char path[PATH_MAX], buf[64];
		snprintf(path, sizeof(path), PCI_NODE_DIR "/%s/%s", bdf, files[i]);
		int rc = root_read_line(r, path, buf, sizeof(buf));
		if (rc < 0) {
			snprintf(pci_errmsg, sizeof(pci_errmsg), "Cannot open %s: %s", path,
				 root_strerror(-rc));
			return -1;
		}
		v[i] = strtol(buf, NULL, 0);
	}
	d->vendor_id = (u16)v[0];
	d->device_id = (u16)v[1];
	d->device_class = (u16)(v[2] >> 8);
	d->known_fields |= PCI_FILL_IDENT | PCI_FILL_CLASS;
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
	char sysfs[PATH_MAX], dump_name[64];
	int dump = -1;

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
	if (r->mem) {
		/* No host path: the config spaces, from memory. */
		fab_strlcpy(sysfs, "/sys/bus/pci", sizeof(sysfs));
		if ((dump = config_dump(r)) < 0) {
			model_note(m, "libpci", "libpci could not read %s: %s (PCI names, LnkCap "
				   "and ACS are unknown)", sysfs, pci_errmsg);
			pci_cleanup(pa);
			return -1;
		}
		pa->method = PCI_ACCESS_DUMP;
		snprintf(dump_name, sizeof(dump_name), "/proc/self/fd/%d", dump);
		pci_set_param(pa, "dump.name", dump_name);
	} else {
		pa->method = PCI_ACCESS_SYS_BUS_PCI;
		root_path(r, "/sys/bus/pci", sysfs, sizeof(sysfs));
		if (!r->live)
			pci_set_param(pa, "sysfs.path", sysfs);
	}

	int scanned = guarded_scan(pa);
	if (dump >= 0)
		close(dump);   /* dump_init() read it whole */
	if (scanned != 0) {
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
		if (i != FAB_NO_INDEX && ((r->mem && sysfs_ident(r, d, bdf) != 0) ||
					  guarded_fill(d, &m->pci[i]) != 0) && !failed++)
			model_note(m, "libpci", "libpci could not read %s/devices/%s: %s",
				   sysfs, bdf, pci_errmsg);
	}
	pci_cleanup(pa);
	note_short_config(r, m);
	return 0;
}
