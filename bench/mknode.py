#!/usr/bin/env python3
"""bench/mknode.py: the benchmarks' node trees, the same bytes every run.

Usage:  python3 bench/mknode.py DIR KIND...

KIND is one of
  dgx      a DGX-class node: 8 GPUs, 8 InfiniBand compute NICs and one
           dual-port RoCE storage NIC (10 ports), full GID tables
  hca32    16 GPUs + 32 dual-port InfiniBand HCAs (64 ports)
  sriov    8 GPUs + 16 RoCE PFs (8 dual-port cards) + 256 VFs (16 per PF)
  portsN   8 GPUs + N InfiniBand ports on N/2 dual-port HCAs (bench/scale)
and DIR/KIND/ is written as a live node's root: sys/ and proc/ only, no
fabtop/ (so `fabtop --root DIR/KIND` reads it as it reads /, and
`HWLOC_FSROOT=DIR/KIND lstopo-no-graphics --whole-io` builds the topology
from it).  Every tree is checked with lstopo before it is handed over: hwloc
must see every CPU, NUMA node, PCI function, RDMA device and netdev.

The writer is tests/scenarios/mkscenarios.py's (imported, not changed): its
PCI functions with 4 KiB config space (PCIe capability, LnkCap/LnkSta, the
bridges above), class links relative into sys/devices/pci..., device links,
numa_node, local_cpulist, infiniband/<dev>/ports/1/*, net/<ifname>/*,
infiniband_verbs/uverbsN, the CPU/NUMA tree and /proc/cpuinfo that hwloc's
Linux backend reads.  What a benchmark needs beyond a demo scenario is added
here:
  - full GID tables, as the kernel shows them: gids/0..gid_tbl_len-1 (128 on
    an mlx5 InfiniBand port, 255 on RoCE), the empty slots all zeros; RoCE
    ports have gid_attrs/{types,ndevs}/N for the filled slots (reading an
    empty slot's attribute is EINVAL on a real node, so a capture has none);
  - SR-IOV: a PF's sriov_numvfs/sriov_totalvfs, virtfnN links to its VFs and
    an SR-IOV extended capability in its config space; each VF's physfn link;
    the VFs sit beside their PF on its bus (ARI routing IDs from offset 2 or
    17, stride 1, as a dual-port ConnectX lays them out), each bound to
    mlx5_core with its own RDMA device, port and netdev.
One PCI domain holds 16 "slots" (root port, PCIe switch, downstream ports,
cards and GPUs on 16 buses); larger nodes use more domains.
"""

import os
import re
import shutil
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "scenarios"))
import mkscenarios as M     # noqa: E402  (the scenario writer; read-only use)

# A ConnectX-7 virtual function (PCI id 15b3:101e, "ConnectX Family mlx5Gen
# Virtual Function"), Ethernet mode.  Only this module's trees use it.
VF_PART = dict(vendor=0x15b3, device=0x101e, cls=0x020000, rev=0x00, sub=(0x15b3, 0x0041),
               driver="mlx5_core", fw="28.39.1002", board="MT_0000000838", hca="MT4126")
GID_TBL = {"InfiniBand": 128, "Ethernet": 255}     # mlx5 gid_tbl_len per link layer
ZERO_GID = M.gid(bytes(16))


def cpus_2x56(n):
    """Two Sapphire Rapids sockets, 56 cores with SMT each (224 CPUs), as a DGX H100."""
    n.cpu_model = (6, 143, 8, "Intel(R) Xeon(R) Platinum 8480C")
    for c in range(224):
        n.cpus.append(dict(cpu=c, pkg=(c // 56) % 2, core=c % 56, node=(c // 56) % 2))
    n.nodes = [dict(id=0, mem_kb=1056574636), dict(id=1, mem_kb=1056868912)]
    n.distances = [[10, 21], [21, 10]]


def new_node(kind, desc):
    n = M.Node(kind, "bench-" + kind, "5.15.0-1042-nvidia", 0, False, desc)
    cpus_2x56(n)
    n.dmi = dict(sys_vendor="NVIDIA", product_name="DGXH100", product_version="Not Specified",
                 board_vendor="NVIDIA", board_name="DGXH100", bios_vendor="American Megatrends International, LLC.",
                 bios_version="1.1.3", bios_date="03/28/2024")
    n.iommu = "identity"
    n.peermem = True
    n.hwloc = False          # a live node: the CPU tree stays, hwloc reads it through HWLOC_FSROOT
    return n


def slot_bus(slot):
    """(domain, root bus) of a slot: 16 slots of 16 buses per PCI domain."""
    return slot // 16, (slot % 16) * 16


def build_cards(kind, gpus, cards, funcs, ll, vfs=0, desc=""):
    """gpus GPUs and `cards` NICs of `funcs` PCI functions (ports) each, spread
    over max(gpus, cards/8) slots; ll "InfiniBand" or "Ethernet" (RoCE);
    vfs VFs per function."""
    n = new_node(kind, desc)
    nslots = max(gpus, -(-cards // 8))
    per = [cards // nslots + (1 if s < cards % nslots else 0) for s in range(nslots)]
    gpu_at = {(i * nslots) // gpus for i in range(gpus)}
    port = 0
    for s in range(nslots):
        dom, b = slot_bus(s)
        numa = 0 if s < nslots / 2 else 1
        t = n.pci
        rp = M.fn(t, M.bdf(b, 1, dom=dom), None, "spr-rp", "root", numa, 32.0, 16, acs=0)
        up = M.fn(t, M.bdf(b + 1, dom=dom), rp, "pex89144", "up", numa, 32.0, 16)
        dev = 0
        for c in range(per[s]):
            dn = M.fn(t, M.bdf(b + 2, dev, dom=dom), up, "pex89144", "down", numa, 32.0, 16, acs=0)
            cb = b + 3 + dev
            dev += 1
            pfs = []
            for f in range(funcs):
                if ll == "InfiniBand":
                    r = M.ib_port("ibP%dp%ds0f%d" % (dom, cb, f) if dom else "ibp%ds0f%d" % (cb, f),
                                  "10.%d.%d.5/24" % (100 + port // 250, port % 250), 0x12 + port)
                    part = "cx7-ib"
                else:
                    r = M.eth_port("enP%dp%ds0f%dnp%d" % (dom, cb, f, f) if dom else "enp%ds0f%dnp%d" % (cb, f, f),
                                   "10.%d.%d.5/24" % (100 + port // 250, port % 250),
                                   "400 Gb/sec (4X NDR)", 400000)
                    part = "cx7-eth"
                port += 1
                pf = M.fn(t, M.bdf(cb, 0, f, dom=dom), dn, part, "ep", numa, 32.0, 16,
                          multifn=funcs > 1, rdma=r)
                pfs.append(pf)
            for f, pf in enumerate(pfs):
                # ARI routing IDs: the VFs follow the card's PFs (0..funcs-1).
                for v in range(vfs):
                    vrid = funcs + f * vfs + v
                    nd = "enP%dp%ds0f%dv%d" % (dom, cb, f, v) if dom else "enp%ds0f%dv%d" % (cb, f, v)
                    r = M.eth_port(nd, None, "400 Gb/sec (4X NDR)", 400000)
                    M.fn(t, M.bdf(cb, vrid >> 3, vrid & 7, dom=dom), dn, "cx7-eth", "ep", numa, 32.0, 16,
                         rdma=r, vf_of=pf, vf_index=v, card=pf)
        if s in gpu_at:
            dn = M.fn(t, M.bdf(b + 2, dev, dom=dom), up, "pex89144", "down", numa, 32.0, 16, acs=0)
            M.fn(t, M.bdf(b + 3 + dev, dom=dom), dn, "h100", "ep", numa, 32.0, 16, label="GPU")
    return n


def build_dgx():
    """DGX H100-like: 8 slots of (compute IB NIC, GPU), two NVSwitch management
    functions on two of them, one dual-port RoCE storage NIC on its own root
    port, the management Ethernet on the PCH."""
    n = new_node("dgx", "DGX-class node: 8 GPUs, 8 IB + 2 RoCE ports, full GID tables")
    rp = M.fn(n.pci, M.bdf(0x00, 0x1c), None, "pch-rp", "root", 0, 8.0, 4, acs=0)
    M.fn(n.pci, M.bdf(0x01), rp, "x550", "ep", 0, 8.0, 4,
         netdev=dict(name="eno1", mtu=1500, ipv4="10.10.0.5/24", speed=10000))
    n.macs[M.bdf(0x01)] = "5c:ff:35:0a:1b:2c"
    for rail, (b, numa) in enumerate(((0x15, 0), (0x3d, 0), (0x4c, 0), (0x5b, 0),
                                      (0x97, 1), (0xbd, 1), (0xcb, 1), (0xd9, 1))):
        M.dgx_slot(n, b, numa, rail, nvswitches=2 if rail in (0, 4) else 0)
    M.dgx_storage(n, 0x28, 0, ("enp41s0f0np0", "enp41s0f1np1"), ("10.0.1.5/24", "10.0.2.5/24"))
    return n


def build(kind):
    if kind == "dgx":
        return build_dgx()
    if kind == "hca32":
        return build_cards(kind, 16, 32, 2, "InfiniBand",
                           desc="16 GPUs + 32 dual-port InfiniBand HCAs (64 ports)")
    if kind == "sriov":
        return build_cards(kind, 8, 8, 2, "Ethernet", vfs=16,
                           desc="8 GPUs + 16 RoCE PFs + 256 VFs")
    m = re.fullmatch(r"ports([0-9]+)", kind)
    if m and int(m.group(1)) >= 2 and int(m.group(1)) % 2 == 0:
        p = int(m.group(1))
        return build_cards(kind, 8, p // 2, 2, "InfiniBand", desc="8 GPUs + %d InfiniBand ports" % p)
    sys.exit("mknode: unknown kind %s (dgx, hca32, sriov, portsN with N even)" % kind)


def sriov_cap(cfg, total, num, offset, vf_device):
    """The SR-IOV extended capability (PCIe base spec 9.3.3) at 0x100, alone in the list."""
    c = bytearray(cfg)
    struct.pack_into("<I", c, 0x100, 0x0010 | 1 << 16)          # cap id 0x10, version 1, next 0
    struct.pack_into("<H", c, 0x108, 0x0009 if num else 0)      # SR-IOV Control: VF Enable, ARI
    struct.pack_into("<HHH", c, 0x10c, total, total, num)       # InitialVFs, TotalVFs, NumVFs
    struct.pack_into("<HH", c, 0x114, offset, 1)                # First VF Offset, VF Stride
    struct.pack_into("<H", c, 0x11a, vf_device)                 # VF Device ID
    return bytes(c)


# Sapphire Rapids caches as x86's cacheinfo shows them (drivers/base/cacheinfo.c
# attributes): (index, level, type, size KiB, ways, shared by "core" or "pkg").
CACHES = ((0, 1, "Data", 48, 12, "core"), (1, 1, "Instruction", 32, 8, "core"),
          (2, 2, "Unified", 2048, 16, "core"), (3, 3, "Unified", 107520, 15, "pkg"))
HUGEPAGES = ("hugepages-2048kB", "hugepages-1048576kB")


def write_caches_hugepages(tr, n):
    """What a real node has and hwloc 2.9's Linux backend reads besides the
    CPU topology M writes (strace of lstopo under HWLOC_FSROOT): each CPU's
    cache/indexN (shared_cpu_map first), the NUMA nodes' and the system's
    hugepage pools (empty)."""
    ncpu = len(n.cpus)
    for c in n.cpus:
        core = [o["cpu"] for o in n.cpus if o["pkg"] == c["pkg"] and o["core"] == c["core"]]
        pkg = [o["cpu"] for o in n.cpus if o["pkg"] == c["pkg"]]
        for idx, lvl, typ, kib, ways, share in CACHES:
            b = "sys/devices/system/cpu/cpu%d/cache/index%d/" % (c["cpu"], idx)
            cpus = core if share == "core" else pkg
            for k, v in (("id", c["core"] if share == "core" else c["pkg"]), ("level", lvl), ("type", typ),
                         ("size", "%dK" % kib), ("coherency_line_size", 64), ("physical_line_partition", 1),
                         ("ways_of_associativity", ways), ("number_of_sets", kib * 1024 // 64 // ways),
                         ("shared_cpu_map", M.cpumask(cpus, ncpu)), ("shared_cpu_list", M.cpulist(cpus))):
                tr.line(b + k, v)
        f = "sys/devices/system/cpu/cpu%d/cpufreq/" % c["cpu"]
        tr.line(f + "cpuinfo_max_freq", 3800000)           # intel_pstate: turbo and base, kHz
        tr.line(f + "base_frequency", 2000000)
    for base in ["sys/kernel/mm/hugepages/"] + ["sys/devices/system/node/node%d/hugepages/" % x["id"]
                                                 for x in n.nodes]:
        for h in HUGEPAGES:
            for k in ("nr_hugepages", "free_hugepages", "surplus_hugepages"):
                tr.line(base + h + "/" + k, 0)


def rid(b):
    """The routing ID (device * 8 + function) of "dddd:bb:dd.f" on its bus."""
    return int(b[8:10], 16) * 8 + int(b[11], 16)


def write_live(n, root):
    """n as a live node's root: M's writer for every PCI function, RDMA port,
    netdev, the CPUs and NUMA nodes; then full GID tables and SR-IOV."""
    M.resolve(n)
    by = {d["bdf"]: d for d in n.pci}
    vfs = [d for d in n.pci if d.get("vf_of")]
    M.PARTS.setdefault("cx7-vf", VF_PART)
    for d in vfs:
        d["part"] = "cx7-vf"          # resolve() gave it a ConnectX MAC; it is a VF
    if os.path.lexists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    tr = M.Tree(root)
    for d in n.pci:
        M.write_pci(tr, n, d)
        if d["rdma"]:
            M.write_rdma(tr, n, d)
            gids = d["sysdir"] + "/infiniband/%s/ports/1/gids/" % d["ibdev"]
            for i in range(8, GID_TBL[d["rdma"]["ll"]]):
                tr.line(gids + str(i), ZERO_GID)
        if "nd" in d:
            M.write_netdev(tr, n, d)
    tr.line("sys/class/infiniband_verbs/abi_version", 6)
    M.write_lo(tr)
    M.write_cpus(tr, n)
    write_caches_hugepages(tr, n)
    for k, v in n.dmi.items():
        tr.line("sys/devices/virtual/dmi/id/" + k, v)
    tr.rlink("sys/class/dmi/id", "sys/devices/virtual/dmi/id")
    tr.line("proc/sys/kernel/hostname", n.host)
    tr.line("proc/sys/kernel/osrelease", n.kernel)
    M.write_gdr(tr, n)
    # SR-IOV: numbers, links both ways, the PF's capability.
    for pf in sorted({d["vf_of"] for d in vfs}):
        p = by[pf]
        mine = sorted((d for d in vfs if d["vf_of"] == pf), key=lambda d: d["vf_index"])
        s = p["sysdir"]
        tr.line(s + "/sriov_numvfs", len(mine))
        # First VF Offset: from the PF's routing ID to its first VF's.
        offset = rid(mine[0]["bdf"]) - rid(pf)
        tr.line(s + "/sriov_offset", offset)
        tr.line(s + "/sriov_stride", 1)
        tr.line(s + "/sriov_vf_device", "%04x" % VF_PART["device"])
        with open(tr.p(s + "/config"), "rb") as f:
            cfg = f.read()
        tr.write(s + "/config", sriov_cap(cfg, M.PARTS[p["part"]]["totalvfs"], len(mine),
                                          offset, VF_PART["device"]))
        for d in mine:
            tr.link(s + "/virtfn%d" % d["vf_index"], "../" + d["bdf"])
            tr.link(d["sysdir"] + "/physfn", "../" + pf)
    M.check(n, root)


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: %s DIR KIND..." % argv[0])
    for kind in argv[2:]:
        n = build(kind)
        write_live(n, os.path.join(argv[1], kind))


if __name__ == "__main__":
    main(sys.argv)
