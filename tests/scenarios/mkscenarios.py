#!/usr/bin/env python3
"""Generate fabtop's demo scenarios and unit-test fixtures, in the capture format.

Usage:  python3 tests/scenarios/mkscenarios.py build/scenarios     (`make scenarios`)

The trees are build output, never committed: `make` runs this whenever it or
nldev.py changes.  It writes a fresh <dir> (into <dir>.tmp, then swapped in, so
an interrupted run leaves the old one whole; an existing <dir> must hold an
index, i.e. be one this script made):
  <dir>/NAME/                a scenario as a capture directory (the tests read these)
  <dir>/NAME.tar.gz          the same capture as one file (what `make install`
                             installs and a user would attach to a ticket)
  <dir>/index                "NAME<TAB>description" a line, sorted: the list
                             `fabtop demo` shows, without opening a capture
and <dir>/../fixtures/topo-mini (deleted first).  The scenarios:
  dgx-h100             healthy DGX H100: 8 GPUs, 4 NVSwitches, 12 ConnectX-7
  pcie-2numa           PCIe server with faults (downtrained NIC, NIC port
                       down, ACS on a GPU's switch port, no NVML)
  ib-8port             healthy HGX H100 on InfiniBand: 8 single-port NDR HCAs
  roce-faults          HGX H100 on RoCE, 8 400GbE NICs, one planted link
                       fault on each of mlx5_1..mlx5_7 (see build_roce_faults)
  roce-faults-pod      the same node seen from a Kubernetes pod (shared RDMA
                       device plugin): 3 of 8 verbs nodes, host netdevs hidden
  busy                 ib-8port's hardware in a training job: 60 counter samples,
                       every port moving 340-380 Gb/s, no bad counter growing
                       (busy, hang and congested also carry the job's QPs in
                       fabtop/rdma-qp.bin; hang has 12 of them in ERR)
  hang                 the same hardware hanging: 20 s in, 6 of 8 ports stop while
                       local_ack_timeout_err and packet_seq_err climb; one 1.25 s step
  congested            RoCE HGX H100, 8 healthy 400GbE ports capped at 180-220 Gb/s,
                       ECN marks, CNPs and port_xmit_wait growing; one Q-counter
                       wraps past 2^32, one port_xmit_wait saturates
  gb10-spark           a DGX Spark's multi-host ConnectX-7 (two functions per port)
  pause-storm          RoCE: mlx5_6's host stalls, it sends PFC pauses until pause-storm
                       prevention trips; mlx5_3 is paused 95 % of the time
  lossless-mismatch    RoCE: PFC on priority 3, the job's NCCL_IB_TC=3 sends on 0; a global
                       traffic_class overrides it on two ports, one paused without CNPs
  link-flap            RoCE: mlx5_4's pre-FEC BER climbs from 1e-9 to 5e-4, its link goes
                       down 4 times
  pinned               InfiniBand: PMA counters pinned at 2^width-1 (link_downed 255, ...),
                       one symbol_error pins during the samples
                       (pause-storm, lossless-mismatch and link-flap sample their RoCE
                       netdevs' ethtool statistics too: see the section "SCENARIOS
                       pause-storm, ...")
  ../fixtures/topo-mini  small non-root capture for the PIX/PXB/PHB/NODE/SYS
                       unit tests (no hwloc.xml: the CPU tree stays)

Every tree is what `fabtop capture` would have copied from such a node (see
docs/capture-format.md): the sysfs subset with its symlinks kept relative,
proc/sys/kernel, and fabtop/*.json; busy, hang, congested and the issue-15
four also carry fabtop/samples.json (counters over time, see
timeline_samples), and their counter files hold the last sample.  The scenarios also get fabtop/hwloc.xml,
made by running lstopo over the tree itself (HWLOC_FSROOT), so the XML always
agrees with the sysfs next to it.  Then the per-CPU sysfs directories lstopo
read are dropped (see drop_cpu_tree): fabtop reads the CPUs from hwloc.xml,
and those directories were half the members of each capture file, whose
opening time grows with its member count.

The same input gives the same bytes: no clock, no randomness, capture files
whose members are sorted, owned by 0:0, stamped with the snapshot time and
gzipped without a name or a time, and lstopo limited to its linux component
(installed hwloc plugins would add names from this machine's pci.ids).  What
may still differ between machines: lstopo's version, and zlib's.

Each node is first described in memory (a list of dicts, one per PCI function,
plus CPUs and NUMA nodes); one writer turns any description into files.
Standard library only.  Needs lstopo-no-graphics (Debian package hwloc).
"""

import gzip
import hashlib
import ipaddress
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET

import nldev                # RDMA netlink dump bytes (fabtop/rdma-qp.bin), next to this file

TIME = 1764523200           # 2025-11-30T17:20:00Z, the snapshot time of every tree
FABTOP_VERSION = "0.1.0"

# --------------------------------------------------------------------------
# PCI parts catalogue: what each kind of chip reports in sysfs and config space
# --------------------------------------------------------------------------

PARTS = {
    # Sapphire Rapids / Ice Lake root ports (Intel), bound to the port driver.
    "spr-rp":   dict(vendor=0x8086, device=0x352a, cls=0x060400, rev=0x04, sub=(0x8086, 0x0000), driver="pcieport"),
    "icx-rp":   dict(vendor=0x8086, device=0x347a, cls=0x060400, rev=0x04, sub=(0x8086, 0x0000), driver="pcieport"),
    "pch-rp":   dict(vendor=0x8086, device=0x1bbc, cls=0x060400, rev=0x11, sub=(0x8086, 0x0000), driver="pcieport"),
    # Broadcom PCIe switches; upstream and downstream ports share one device id.
    "pex89144": dict(vendor=0x1000, device=0xc030, cls=0x060400, rev=0xb0, sub=(0x1000, 0x0000), driver="pcieport"),
    "pex88096": dict(vendor=0x1000, device=0xc010, cls=0x060400, rev=0xb0, sub=(0x1000, 0x0000), driver="pcieport"),
    "h100":     dict(vendor=0x10de, device=0x2330, cls=0x030200, rev=0xa1, sub=(0x10de, 0x16c1), driver="nvidia"),
    "a100":     dict(vendor=0x10de, device=0x20b5, cls=0x030200, rev=0xa1, sub=(0x10de, 0x1533), driver="nvidia"),
    "nvswitch": dict(vendor=0x10de, device=0x22a3, cls=0x068000, rev=0xa1, sub=(0x10de, 0x1796), driver="nvidia"),
    # ConnectX-7: class 0x0207 when the port runs InfiniBand, 0x0200 in Ethernet mode.
    "cx7-ib":   dict(vendor=0x15b3, device=0x1021, cls=0x020700, rev=0x00, sub=(0x15b3, 0x0041), driver="mlx5_core",
                     fw="28.39.1002", board="MT_0000000838", hca="MT4129", totalvfs=16),
    "cx7-eth":  dict(vendor=0x15b3, device=0x1021, cls=0x020000, rev=0x00, sub=(0x15b3, 0x0041), driver="mlx5_core",
                     fw="28.39.1002", board="MT_0000000838", hca="MT4129", totalvfs=16),
    "cx6dx":    dict(vendor=0x15b3, device=0x101d, cls=0x020000, rev=0x00, sub=(0x15b3, 0x0016), driver="mlx5_core",
                     fw="22.39.1002", board="MT_0000000359", hca="MT4125", totalvfs=8),
    # A GB10's ConnectX-7 (DGX Spark): MT2910 Family, board_id and firmware as
    # ibv_devinfo shows them on DGX Spark nodes (NVD0000000087, 28.45.4028).
    "cx7-gb10": dict(vendor=0x15b3, device=0x1021, cls=0x020000, rev=0x00, sub=(0x10de, 0x0000), driver="mlx5_core",
                     fw="28.45.4028", board="NVD0000000087", hca="MT4129", totalvfs=0),
    # The GB10 SoC's PCIe root ports (the device id is illustrative).
    "gb10-rp":  dict(vendor=0x10de, device=0x22ce, cls=0x060400, rev=0x01, sub=(0x10de, 0x0000), driver="pcieport"),
    "x550":     dict(vendor=0x8086, device=0x1563, cls=0x020000, rev=0x01, sub=(0x8086, 0x0001), driver="ixgbe",
                     totalvfs=63),
}

# PCI Express Capabilities register, bits 7:4 (device/port type).
PCIE_TYPE = {"ep": 0, "root": 4, "up": 5, "down": 6, "rciep": 9}
BRIDGE_ROLES = ("root", "up", "down")
# LnkCap/LnkSta speed codes and the kernel's sysfs spelling.
SPEED_CODE = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5}
SPEED_TEXT = {2.5: "2.5 GT/s PCIe", 5.0: "5.0 GT/s PCIe", 8.0: "8.0 GT/s PCIe",
              16.0: "16.0 GT/s PCIe", 32.0: "32.0 GT/s PCIe", None: "Unknown"}

# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------


def bdf(bus, dev=0, fn=0, dom=0):
    return "%04x:%02x:%02x.%x" % (dom, bus, dev, fn)


def bus_of(b):
    return int(b.split(":")[1], 16)


def cpulist(cpus):
    """[0,1,2,5] -> "0-2,5", the kernel's cpulist format."""
    cpus = sorted(cpus)
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def cpumask(cpus, nbits):
    """The kernel's "%*pb" bitmap: 32-bit hex groups, most significant first;
    the first group is only as wide as the bits left over (8 CPUs -> "0f")."""
    val = 0
    for c in cpus:
        val |= 1 << c
    groups, first = [], nbits % 32 or 32
    pos = ((nbits + 31) // 32 - 1) * 32
    width = (first + 3) // 4
    while pos >= 0:
        groups.append("%0*x" % (width, (val >> pos) & 0xffffffff))
        pos -= 32
        width = 8
    return ",".join(groups)


def rnd(key, lo, hi):
    """Deterministic 'random' integer in [lo, hi] for counter values."""
    h = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    return lo + h % (hi - lo + 1)


def colon_hex(bs, group):
    h = bs.hex()
    return ":".join(h[i:i + group] for i in range(0, len(h), group))


def eui64_from_mac(mac):
    """IPv6 interface id of a MAC (RoCE default GIDs and link-local addrs)."""
    m = bytes.fromhex(mac.replace(":", ""))
    return bytes([m[0] ^ 2]) + m[1:3] + b"\xff\xfe" + m[3:]


# --------------------------------------------------------------------------
# In-memory description
# --------------------------------------------------------------------------


def fn(t, b, parent, part, role, numa, speed, width, **kw):
    """Append one PCI function. `speed`/`width` are the link capability; the
    current values default to them (a healthy link) unless cur_* is given."""
    d = dict(bdf=b, parent=parent, part=part, role=role, numa=numa,
             speed=speed, width=width, cur_speed=speed, cur_width=width,
             acs=None, multifn=False, rdma=None, netdev=None, label="")
    d.update(kw)
    t.append(d)
    return b


def ib_port(netdev, ipv4, lid, mtu=4092, **kw):
    d = dict(ll="InfiniBand", rate="400 Gb/sec (4X NDR)", up=True, lid=lid,
             nd=dict(name=netdev, mtu=mtu, ipv4=ipv4, speed=400000))
    d.update(kw)
    return d


def eth_port(netdev, ipv4, rate, speed, up=True, mtu=9000):
    if not up:
        # A mlx5 Ethernet port without link reports this rate, whatever the cable.
        rate, speed = "40 Gb/sec (4X QDR)", -1
    return dict(ll="Ethernet", rate=rate, up=up, lid=0,
                nd=dict(name=netdev, mtu=mtu, ipv4=ipv4, speed=speed))


class Node:
    """One node: CPUs, NUMA nodes, PCI functions and what is not sysfs."""

    def __init__(self, name, host, kernel, uid, demo, description):
        self.name, self.host, self.kernel = name, host, kernel
        self.uid, self.demo, self.description = uid, demo, description
        self.title = ""            # the index's short title (the demo banner); ZH_INDEX translates it
        self.pci = []
        self.cpus = []          # dicts: cpu, pkg, core, node
        self.nodes = []         # dicts: id, mem_kb
        self.distances = []
        self.cpu_model = None   # (family, model, stepping, "model name")
        self.dmi = {}
        self.macs = {}          # bdf -> MAC, for NICs without RDMA too
        self.gateway = None     # (netdev, gateway)
        self.nvml = None
        self.meta_extra = {}
        self.config_bytes = 4096   # root reads 4096; a user only 64
        self.hwloc = True
        self.os_version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1 (2024-09-30)"   # uname -v
        # Added for the link-health scenarios; the defaults keep the older trees unchanged.
        self.key = name            # seeds MACs/GUIDs: two views of one node share it
        self.time = TIME
        self.devices = None        # fabtop/devices.json (dict), None: not written
        self.rdma_netlink = None   # netlink.json "rdma_netlink"; None: {"available": true}
        self.virt_netdevs = []     # virtual interfaces (veth, macvlan): dicts, see write_virt_netdev
        self.timeline = None       # counter samples over time: dict(interval, times, step), see timeline_samples
        self.qps = None            # fabtop/rdma-qp.bin: fn(rail, ib) -> QPs of that device, see job_qps
        self.procs = []            # fabtop/procs/<pid>.json: the NCCL job's processes, see job_procs
        # GPUDirect RDMA's inputs (gdr.h): the IOMMU mode every PCI function's
        # iommu_group reports (None: no IOMMU, no groups), whether the driver's
        # nvidia_peermem is loaded; fabtop/cuda.json follows nvml (the driver is there).
        self.iommu = "identity"
        self.peermem = True

    def node_cpus(self, nid):
        return [c["cpu"] for c in self.cpus if c["node"] == nid]


# --------------------------------------------------------------------------
# SCENARIO dgx-h100
# --------------------------------------------------------------------------
# Modelled on the published DGX H100 layout: per GPU "slot" a host bridge, a
# root port, a Broadcom PEX89144 switch whose downstream ports hold the compute
# ConnectX-7 and a second-level switch with the H100 behind it.  So GPU->own NIC
# crosses two switches (PXB), GPU->other slot on the socket is NODE, across
# sockets SYS.  Bus numbers match a real DGX H100 (GPUs 1b,43,52,61,9d,c3,d1,df;
# compute NICs 18,40,4f,5e,9a,c0,ce,dc; storage NICs 29,aa), which also makes
# the kernel's probe order give the familiar mlx5_0..mlx5_11 names.


def dgx_slot(n, root_bus, numa, rail, nvswitches):
    t, b = n.pci, root_bus
    rp = fn(t, bdf(b, 1), None, "spr-rp", "root", numa, 32.0, 16, acs=0)
    up1 = fn(t, bdf(b + 1), rp, "pex89144", "up", numa, 32.0, 16, label="PEX L1 up")
    # Level-1 downstream port 0: compute NIC.
    d0 = fn(t, bdf(b + 2, 0), up1, "pex89144", "down", numa, 32.0, 16, acs=0)
    nic = bdf(b + 3)
    fn(t, nic, d0, "cx7-ib", "ep", numa, 32.0, 16, label="compute NIC rail %d" % rail,
       rdma=ib_port("ibp%ds0" % (b + 3), "10.100.%d.5/24" % rail, 0x12 + rail))
    # Level-1 downstream port 1: level-2 switch, GPU behind it.
    d1 = fn(t, bdf(b + 2, 1), up1, "pex89144", "down", numa, 32.0, 16, acs=0)
    up2 = fn(t, bdf(b + 4), d1, "pex89144", "up", numa, 32.0, 16, label="PEX L2 up")
    d2 = fn(t, bdf(b + 5), up2, "pex89144", "down", numa, 32.0, 16, acs=0)
    fn(t, bdf(b + 6), d2, "h100", "ep", numa, 32.0, 16, label="GPU")
    # More level-1 downstream ports: NVSwitch management functions (Gen4 x2).
    for i in range(nvswitches):
        dn = fn(t, bdf(b + 2, 2 + i), up1, "pex89144", "down", numa, 16.0, 2, acs=0)
        fn(t, bdf(b + 7 + i), dn, "nvswitch", "ep", numa, 16.0, 2, label="NVSwitch")


def dgx_storage(n, root_bus, numa, names, addrs):
    """Dual-port ConnectX-7 in Ethernet mode (RoCE), straight on a root port."""
    t, b = n.pci, root_bus
    rp = fn(t, bdf(b, 1), None, "spr-rp", "root", numa, 32.0, 16, acs=0)
    for f in (0, 1):
        fn(t, bdf(b + 1, 0, f), rp, "cx7-eth", "ep", numa, 32.0, 16, multifn=True,
           label="storage NIC port %d" % f,
           rdma=eth_port(names[f], addrs[f], "200 Gb/sec (4X HDR)", 200000))


def build_dgx():
    n = Node("dgx-h100", "dgx-h100-demo", "5.15.0-1042-nvidia", 0, True,
             "A healthy NVIDIA DGX H100: 8 H100 GPUs on NVLink through 4 NVSwitches, "
             "each GPU sharing a PCIe switch with its own 400G NDR InfiniBand ConnectX-7.")
    n.cpu_model = (6, 143, 8, "Intel(R) Xeon(R) Platinum 8480C")
    n.os_version = "#42-Ubuntu SMP Wed Nov 15 20:28:30 UTC 2023"
    n.dmi = dict(sys_vendor="NVIDIA", product_name="DGXH100", product_version="Not Specified",
                 board_vendor="NVIDIA", board_name="DGXH100", bios_vendor="American Megatrends International, LLC.",
                 bios_version="1.1.3", bios_date="03/28/2024")
    # 2 x 56 cores with SMT: thread 0 of every core first (0-111), then thread 1.
    for c in range(224):
        n.cpus.append(dict(cpu=c, pkg=(c // 56) % 2, core=c % 56, node=(c // 56) % 2))
    n.nodes = [dict(id=0, mem_kb=1056574636), dict(id=1, mem_kb=1056868912)]
    n.distances = [[10, 21], [21, 10]]

    # Socket 0.  Management Ethernet on the PCH root port of pci0000:00.
    rp = fn(n.pci, bdf(0x00, 0x1c), None, "pch-rp", "root", 0, 8.0, 4, acs=0)
    fn(n.pci, bdf(0x01), rp, "x550", "ep", 0, 8.0, 4, label="mgmt NIC",
       netdev=dict(name="eno1", mtu=1500, ipv4="10.10.0.5/24", speed=10000))
    n.macs[bdf(0x01)] = "5c:ff:35:0a:1b:2c"
    n.gateway = ("eno1", "10.10.0.1")
    dgx_slot(n, 0x15, 0, 0, nvswitches=2)
    dgx_storage(n, 0x28, 0, ("enp41s0f0np0", "enp41s0f1np1"), ("10.0.1.5/24", "10.0.2.5/24"))
    dgx_slot(n, 0x3d, 0, 1, 0)
    dgx_slot(n, 0x4c, 0, 2, 0)
    dgx_slot(n, 0x5b, 0, 3, 0)
    # Socket 1.
    dgx_slot(n, 0x97, 1, 4, nvswitches=2)
    dgx_storage(n, 0xa9, 1, ("enp170s0f0np0", "enp170s0f1np1"), ("10.0.3.5/24", "10.0.4.5/24"))
    dgx_slot(n, 0xbd, 1, 5, 0)
    dgx_slot(n, 0xcb, 1, 6, 0)
    dgx_slot(n, 0xd9, 1, 7, 0)

    gpus = sorted(d["bdf"] for d in n.pci if d["part"] == "h100")
    n.nvml = {"driver": "550.90.07", "nvml": "12.550.90.07", "gpus": [
        {"index": i, "name": "NVIDIA H100 80GB HBM3", "pci_bus_id": g, "numa_id": None,
         # Every pair of H100s has 18 NVLinks through the NVSwitches (NV18).
         "nvlinks": {str(j): 18 for j in range(len(gpus)) if j != i}}
        for i, g in enumerate(gpus)]}
    n.meta_extra = dict(nvml="loaded libnvidia-ml.so.1", cuda="loaded libcuda.so.1",
                        nccl="not loaded: libnccl.so.2: cannot open shared object file")
    n.devices = all_uverbs_ok(12)
    return n


# --------------------------------------------------------------------------
# SCENARIO pcie-2numa
# --------------------------------------------------------------------------
# A PCIe GPU server (Ice Lake, PEX88096 switches) with three faults:
#   - mlx5_0 (04:00.0) trained at x8 on an x16 link (current_link_width 8,
#     LnkSta x8; the switch port above it reads x8 too, it is the same link);
#   - mlx5_1 (84:00.0) port DOWN / Polling: cable or peer problem;
#   - ACS control 0x1d (SV|RR|CR|UF) on GPU0's switch downstream port 02:00.0,
#     which sends GPU<->NIC peer traffic up to the root complex.
# NVML is not loaded, so there is no nvml.json and NVLink is unknown.
# Intended reading: GPU0 PIX mlx5_0; GPU1, GPU2 NODE from mlx5_0; GPU3 PIX
# mlx5_1, but that port is down, so GPU3's nearest usable NIC is mlx5_0 (SYS).


def build_pcie_2numa():
    n = Node("pcie-2numa", "pcie-2numa-demo", "6.1.0-26-amd64", 0, True,
             "A dual-socket PCIe server with 4 A100 GPUs and 2 ConnectX-6 Dx RoCE NICs, "
             "where one NIC trained at x8, the other NIC's port is down and ACS is on "
             "at GPU0's switch port.")
    n.cpu_model = (6, 106, 6, "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz")
    n.dmi = dict(sys_vendor="Supermicro", product_name="SYS-420GP-TNR", product_version="0123456789",
                 board_vendor="Supermicro", board_name="X12DPG-OA6", bios_vendor="American Megatrends International, LLC.",
                 bios_version="1.4", bios_date="07/14/2023")
    # 2 x 32 cores, SMT off.
    for c in range(64):
        n.cpus.append(dict(cpu=c, pkg=c // 32, core=c % 32, node=c // 32))
    n.nodes = [dict(id=0, mem_kb=263921276), dict(id=1, mem_kb=264211112)]
    n.distances = [[10, 32], [32, 10]]
    t = n.pci

    # Socket 0, pci0000:00: root port -> switch -> GPU0 (port A) and mlx5_0 (port B).
    rp = fn(t, bdf(0x00, 1), None, "icx-rp", "root", 0, 16.0, 16, acs=0)
    up = fn(t, bdf(0x01), rp, "pex88096", "up", 0, 16.0, 16, label="PEX88096 up")
    a = fn(t, bdf(0x02, 0), up, "pex88096", "down", 0, 16.0, 16, acs=0x1d, label="port A (ACS on)")
    fn(t, bdf(0x03), a, "a100", "ep", 0, 16.0, 16, label="GPU0")
    pb = fn(t, bdf(0x02, 1), up, "pex88096", "down", 0, 16.0, 16, cur_width=8, acs=0, label="port B")
    fn(t, bdf(0x04), pb, "cx6dx", "ep", 0, 16.0, 16, cur_width=8, label="NIC (x8 of x16)",
       rdma=eth_port("ens1f0np0", "10.0.1.7/24", "100 Gb/sec (4X EDR)", 100000))
    # Management Ethernet on a PCH root port of the same root bus.
    rp = fn(t, bdf(0x00, 0x1c), None, "pch-rp", "root", 0, 8.0, 4, acs=0)
    fn(t, bdf(0x05), rp, "x550", "ep", 0, 8.0, 4, label="mgmt NIC",
       netdev=dict(name="eno1", mtu=1500, ipv4="10.20.0.7/24", speed=10000))
    n.macs[bdf(0x05)] = "3c:ec:ef:5a:60:12"
    n.gateway = ("eno1", "10.20.0.1")
    # Socket 0, pci0000:20 and pci0000:40: one GPU straight on a root port each.
    rp = fn(t, bdf(0x20, 1), None, "icx-rp", "root", 0, 16.0, 16, acs=0)
    fn(t, bdf(0x21), rp, "a100", "ep", 0, 16.0, 16, label="GPU1")
    rp = fn(t, bdf(0x40, 1), None, "icx-rp", "root", 0, 16.0, 16, acs=0)
    fn(t, bdf(0x41), rp, "a100", "ep", 0, 16.0, 16, label="GPU2")
    # Socket 1, pci0000:80: root port -> switch -> GPU3 and mlx5_1 (port down).
    rp = fn(t, bdf(0x80, 1), None, "icx-rp", "root", 1, 16.0, 16, acs=0)
    up = fn(t, bdf(0x81), rp, "pex88096", "up", 1, 16.0, 16, label="PEX88096 up")
    d = fn(t, bdf(0x82, 0), up, "pex88096", "down", 1, 16.0, 16, acs=0)
    fn(t, bdf(0x83), d, "a100", "ep", 1, 16.0, 16, label="GPU3")
    d = fn(t, bdf(0x82, 1), up, "pex88096", "down", 1, 16.0, 16, acs=0)
    fn(t, bdf(0x84), d, "cx6dx", "ep", 1, 16.0, 16, label="NIC (port DOWN)",
       rdma=eth_port("ens5f0np0", "10.0.2.7/24", "100 Gb/sec (4X EDR)", 100000, up=False))

    n.meta_extra = dict(nvml="not loaded: libnvidia-ml.so.1: cannot open shared object file",
                        cuda="not loaded: libcuda.so.1: cannot open shared object file",
                        nccl="not loaded: libnccl.so.2: cannot open shared object file")
    n.devices = all_uverbs_ok(2)
    # intel_iommu=on without iommu=pt: the kernel's default domain translates
    # (DMA-FQ), so GPUDirect RDMA between GPU0 and mlx5_0 (PIX) breaks although
    # NCCL turns it on.
    n.iommu = "DMA-FQ"
    return n


# --------------------------------------------------------------------------
# SCENARIOS ib-8port, roce-faults, roce-faults-pod (the link health pane)
# --------------------------------------------------------------------------
# An HGX H100 8-GPU node: per GPU a root port, a Broadcom switch, and on two of
# its downstream ports one ConnectX-7 (single port) and one H100, so every GPU
# is PIX to its own NIC.  The first slot of each socket also carries two
# NVSwitch management functions.  Root buses 15,37,48,59 (socket 0) and
# 97,b7,c8,d9 (socket 1); the NIC of a slot is on root bus + 3, its GPU on
# root bus + 4, so mlx5_0..mlx5_7 follow the slots in order.

HGX_ROOTS = ((0x15, 0), (0x37, 0), (0x48, 0), (0x59, 0), (0x97, 1), (0xb7, 1), (0xc8, 1), (0xd9, 1))


def hgx_slot(n, root_bus, numa, part, port, nvswitches=0, nic_width=16, label=""):
    t, b = n.pci, root_bus
    rp = fn(t, bdf(b, 1), None, "spr-rp", "root", numa, 32.0, 16, acs=0)
    up = fn(t, bdf(b + 1), rp, "pex89144", "up", numa, 32.0, 16, label="PEX up")
    # A downtrained link reads the same width at both ends (switch port and NIC).
    d0 = fn(t, bdf(b + 2, 0), up, "pex89144", "down", numa, 32.0, 16, cur_width=nic_width, acs=0)
    fn(t, bdf(b + 3), d0, part, "ep", numa, 32.0, 16, cur_width=nic_width, label=label, rdma=port)
    d1 = fn(t, bdf(b + 2, 1), up, "pex89144", "down", numa, 32.0, 16, acs=0)
    fn(t, bdf(b + 4), d1, "h100", "ep", numa, 32.0, 16, label="GPU")
    for i in range(nvswitches):
        dn = fn(t, bdf(b + 2, 2 + i), up, "pex89144", "down", numa, 16.0, 2, acs=0)
        fn(t, bdf(b + 5 + i), dn, "nvswitch", "ep", numa, 16.0, 2, label="NVSwitch")


def hgx_nvml(n):
    gpus = sorted(d["bdf"] for d in n.pci if d["part"] == "h100")
    return {"driver": "550.90.07", "nvml": "12.550.90.07", "gpus": [
        {"index": i, "name": "NVIDIA H100 80GB HBM3", "pci_bus_id": g, "numa_id": None,
         "nvlinks": {str(j): 18 for j in range(len(gpus)) if j != i}}
        for i, g in enumerate(gpus)]}


def hgx_software(n):
    """What an HGX node's software adds to its hardware: the NVIDIA driver
    (NVML, CUDA; NCCL is the job's), 8 verbs devices that open, RDMA netlink
    in shared namespace mode."""
    n.nvml = hgx_nvml(n)
    n.meta_extra = dict(nvml="loaded libnvidia-ml.so.1", cuda="loaded libcuda.so.1",
                        nccl="not loaded: libnccl.so.2: cannot open shared object file")
    n.devices = all_uverbs_ok(8)
    n.rdma_netlink = {"available": True, "netns_mode": "shared"}


def all_uverbs_ok(count):
    return {"uverbs": {"uverbs%d" % i: {"present": True, "open_errno": 0} for i in range(count)}}


def build_ib_8port():
    n = Node("ib-8port", "hgx-ib-demo", "5.15.0-105-generic", 0, True,
             "A healthy HGX H100 node on InfiniBand: 8 single-port 400G NDR ConnectX-7 HCAs, "
             "each sharing a PCIe switch with one H100, every port active with clean error counters.")
    n.cpu_model = (6, 143, 8, "Intel(R) Xeon(R) Platinum 8468")
    n.os_version = "#115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024"
    n.dmi = dict(sys_vendor="Supermicro", product_name="SYS-821GE-TNHR", product_version="0123456789",
                 board_vendor="Supermicro", board_name="X13DEG-OAD", board_version="1.01A",
                 bios_vendor="American Megatrends International, LLC.", bios_version="2.1",
                 bios_date="01/16/2024")
    # 2 x 48 cores with SMT: thread 0 of every core first (0-95), then thread 1.
    for c in range(192):
        n.cpus.append(dict(cpu=c, pkg=(c // 48) % 2, core=c % 48, node=(c // 48) % 2))
    n.nodes = [dict(id=0, mem_kb=1055719232), dict(id=1, mem_kb=1056963312)]
    n.distances = [[10, 21], [21, 10]]
    rp = fn(n.pci, bdf(0x00, 0x1c), None, "pch-rp", "root", 0, 8.0, 4, acs=0)
    fn(n.pci, bdf(0x01), rp, "x550", "ep", 0, 8.0, 4, label="mgmt NIC",
       netdev=dict(name="eno1", mtu=1500, ipv4="10.10.0.17/24", speed=10000))
    n.macs[bdf(0x01)] = "3c:ec:ef:c4:7a:10"
    n.gateway = ("eno1", "10.10.0.1")
    for rail, (b, numa) in enumerate(HGX_ROOTS):
        hgx_slot(n, b, numa, "cx7-ib", ib_port("ibp%ds0" % (b + 3), "10.100.%d.17/24" % rail, 0x11 + rail),
                 nvswitches=2 if rail in (0, 4) else 0, label="HCA rail %d" % rail)
    hgx_software(n)
    return n


def roce_port(netdev, ipv4, up=True, rate="400 Gb/sec (4X NDR)", speed=400000, mtu=9000, q=None, **kw):
    """A ConnectX-7 port in Ethernet mode with MLNX_OFED's QoS sysfs."""
    d = eth_port(netdev, ipv4, rate, speed, up=up, mtu=mtu)
    if not up:
        # mlx5_query_port_roce(): a RoCE port without carrier is DOWN/Disabled;
        # Polling is an InfiniBand port training state, RoCE never reports it.
        d["phys"] = "3: Disabled"
    d["nd"]["qos"] = q or qos()
    d["nd"]["phys_port_name"] = "p0"
    d.update(kw)
    return d


ROCE_SLOTS = (33, 34, 35, 36, 41, 42, 43, 44)   # ACPI slot numbers: netdev ens<slot>np0


def roce_fault_port(rail, name, ip):
    """The port of NIC `rail` of roce-faults, with its planted fault."""
    if rail == 1:
        # No link since boot (cable or peer): link_downed counts lost links, so 0.
        return roce_port(name, ip, up=False, counters=dict(link_downed=0))
    if rail == 2:
        return roce_port(name, ip, rate="200 Gb/sec (2X NDR)", speed=200000)
    if rail == 4:
        return roce_port(name, ip, mtu=4096)
    if rail == 5:
        return roce_port(name, None)
    if rail == 6:
        # Lossy without PFC: drops show as out-of-sequence packets, NAKs, retries.
        return roce_port(name, ip, q=qos(pfc=()), hw_counters=dict(
            out_of_sequence=184213, packet_seq_err=12077, local_ack_timeout_err=31,
            duplicate_request=955))
    if rail == 7:
        # Switches still mark CE, but with NP/RP off no CNP is sent or handled.
        return roce_port(name, ip, q=qos(np=(), rp=()), counters=dict(symbol_error=37, link_downed=2),
                         hw_counters=dict(np_cnp_sent=0, rp_cnp_handled=0))
    return roce_port(name, ip)     # 0 healthy; 3 is faulty on the PCIe side only


def build_roce_faults(pod=False):
    """roce-faults: mlx5_0 healthy, one planted fault on each other NIC:
      mlx5_1  port DOWN/Disabled, netdev down, no carrier (cable or peer)
      mlx5_2  ACTIVE at 200 Gb/sec (2X NDR): half the lanes
      mlx5_3  PCIe Gen5 x8 of x16 (~252 Gb/s usable, under the 400G port)
      mlx5_4  netdev MTU 4096 (siblings 9000): RoCE active MTU 2048
      mlx5_5  no IPv4 on the netdev: its only RoCE v2 GID is link-local
      mlx5_6  PFC off on every priority (packet loss: out_of_sequence, NAKs)
      mlx5_7  PFC on 3 but ECN NP/RP off on 3 (no CNPs); symbol_error 37, link_downed 2
    roce-faults-pod (pod=True): the same node from a pod with the shared RDMA
    device plugin: all of sysfs but the host's netdevs; eth0 (veth) and net1
    (macvlan on mlx5_0's netdev, whose GIDs mlx5_0's table then carries);
    /dev/infiniband holds uverbs0, uverbs1 and uverbs2 (mode 0600, EACCES for
    the pod's uid 1000); non-root, so config reads 64 bytes."""
    n = Node("roce-faults", "roce-faults-demo", "5.15.0-119-generic", 0, True,
             "An HGX H100 node on RoCE with 8 ConnectX-7 400GbE NICs where every NIC but mlx5_0 "
             "has one planted link fault: port down, half width, PCIe x8, MTU 4096, no IPv4 "
             "RoCE v2 GID, PFC off, and ECN off with symbol errors.")
    n.cpu_model = (6, 143, 8, "Intel(R) Xeon(R) Platinum 8480+")
    n.os_version = "#129-Ubuntu SMP Fri Aug 2 19:25:20 UTC 2024"
    n.dmi = dict(sys_vendor="Dell Inc.", product_name="PowerEdge XE9680",
                 board_vendor="Dell Inc.", board_name="0PKY3K", board_version="A01",
                 bios_vendor="Dell Inc.", bios_version="2.2.8", bios_date="05/13/2024")
    for c in range(224):
        n.cpus.append(dict(cpu=c, pkg=(c // 56) % 2, core=c % 56, node=(c // 56) % 2))
    n.nodes = [dict(id=0, mem_kb=1056574636), dict(id=1, mem_kb=1056868912)]
    n.distances = [[10, 21], [21, 10]]
    mgmt = dict(name="eno1", mtu=1500, ipv4="10.10.1.23/24", speed=10000, hidden=pod)
    rp = fn(n.pci, bdf(0x00, 0x1c), None, "pch-rp", "root", 0, 8.0, 4, acs=0)
    fn(n.pci, bdf(0x01), rp, "x550", "ep", 0, 8.0, 4, label="mgmt NIC", netdev=mgmt)
    n.macs[bdf(0x01)] = "b0:7b:25:de:41:9a"
    n.gateway = ("eno1", "10.10.1.1")
    ports = [roce_fault_port(rail, "ens%dnp0" % slot, "10.0.%d.5/24" % (rail + 1))
             for rail, slot in enumerate(ROCE_SLOTS)]
    for rail, (b, numa) in enumerate(HGX_ROOTS):
        hgx_slot(n, b, numa, "cx7-eth", ports[rail], nvswitches=2 if rail in (0, 4) else 0,
                 nic_width=8 if rail == 3 else 16, label="NIC rail %d" % rail)
    hgx_software(n)
    if not pod:
        return n

    n.name, n.host = "roce-faults-pod", "trainer-pod-7f9c"
    n.key = "roce-faults"          # same adapters: same MACs and GUIDs
    n.description = ("The roce-faults node seen from a Kubernetes pod with the shared RDMA device "
                     "plugin: every HCA is visible in sysfs, but only uverbs0 and uverbs1 open, "
                     "uverbs2 is denied, and the host's netdevs are not in the pod's namespace.")
    n.time = TIME + 900            # a quarter of an hour after the host capture
    n.uid, n.config_bytes = 1000, 64
    for p in ports:
        p["nd"]["hidden"] = True
    # Host ifindexes (resolve(): lo 1, eno1 2, then the NICs in PCI order):
    # net1's lower device is mlx5_0's netdev, ifindex 3.
    net1 = dict(name="net1", mac="5a:3c:8e:71:2d:09", ifindex=3, iflink=3, mtu=9000, speed=400000,
                ipv4="10.0.1.50/24")
    eth0 = dict(name="eth0", mac="86:4b:1f:c2:90:3e", ifindex=2, iflink=41, mtu=1450, speed=10000,
                ipv4="10.244.7.23/24")
    n.virt_netdevs = [eth0, net1]
    n.gateway = ("eth0", "10.244.7.1")
    # The kernel adds the GIDs of upper devices (macvlan) to the lower port's
    # table, whatever their namespace: slots 4-7 of mlx5_0.
    ports[0]["upper_gids"] = [
        (bytes.fromhex("fe80000000000000") + eui64_from_mac(net1["mac"]), "net1"),
        (bytes(10) + b"\xff\xff" + ipaddress.IPv4Interface(net1["ipv4"]).ip.packed, "net1")]
    n.devices = {"uverbs": {"uverbs0": {"present": True, "open_errno": 0},
                            "uverbs1": {"present": True, "open_errno": 0},
                            "uverbs2": {"present": True, "open_errno": 13}}}
    return n


# --------------------------------------------------------------------------
# SCENARIOS busy, hang, congested (the live counters pane: captures with time)
# --------------------------------------------------------------------------
# Each carries fabtop/samples.json: 60 readings of every port counter, 1 s
# apart, ending at the snapshot time; the counter files in the tree hold the
# last reading.  Growth is chosen so the rates can be checked by hand:
# traffic runs at whole, even Gb/s, and 1 Gb/s is 31,250,000 four-octet
# words a second (1e9 / 8 / 4), so 360 Gb/s is port_xmit_data growing by
# 11,250,000,000 a second; packets average 4000 bytes, so pkt/s is
# Gb/s * 31,250.  Even Gb/s keep a 1.25 s step's growth whole too.

NSAMPLES = 60
GBPS_WORDS = 31250000       # 4-octet words per second at 1 Gb/s
WORDS_PER_PACKET = 1000     # 4000-byte packets on average
U32 = 1 << 32


def sample_times(jitter_at=None):
    """NSAMPLES times 1 s apart, the last at TIME; step jitter_at (k-1 -> k)
    takes 1.25 s instead, as when a reading was late."""
    gaps = [1.25 if k == jitter_at else 1.0 for k in range(1, NSAMPLES)]
    t = [float(TIME)]
    for g in reversed(gaps):
        t.insert(0, t[0] - g)
    return t


def gbps(key, lo, hi):
    """An even whole number of Gb/s in [lo, hi], the same for the same key."""
    return 2 * rnd(key, lo // 2, hi // 2)


def traffic(tx_gbps, rx_gbps, dt):
    """Growth of the traffic counters over dt seconds at the given rates."""
    wx, wr = tx_gbps * GBPS_WORDS * dt, rx_gbps * GBPS_WORDS * dt
    assert wx == int(wx) and wr == int(wr)
    px, pr = int(wx) // WORDS_PER_PACKET, int(wr) // WORDS_PER_PACKET
    return {("counters", "port_xmit_data"): int(wx), ("counters", "port_rcv_data"): int(wr),
            ("counters", "port_xmit_packets"): px, ("counters", "port_rcv_packets"): pr,
            ("counters", "unicast_xmit_packets"): px, ("counters", "unicast_rcv_packets"): pr}


U64 = 1 << 64

# The widths of the PMA counters in ports/N/counters (the kernel's
# drivers/infiniband/core/sysfs.c, PORT_PMA_ATTR): they saturate at
# 2^width-1 and stay there until cleared (perfquery -R).  The data and
# packet counters are read from the extended PortCounters (64 bits) on a
# ConnectX, so they do not.
PMA_WIDTH = {"symbol_error": 16, "link_error_recovery": 8, "link_downed": 8, "port_rcv_errors": 16,
             "port_rcv_remote_physical_errors": 16, "port_rcv_switch_relay_errors": 16,
             "port_xmit_discards": 16, "port_xmit_constraint_errors": 8, "port_rcv_constraint_errors": 8,
             "local_link_integrity_errors": 4, "excessive_buffer_overrun_errors": 4, "VL15_dropped": 16,
             "port_xmit_wait": 32}


class Level(int):
    """In a step's growth: the gauge's new value, not an increment (mlx5's
    outbound_pci_stalled_rd/wr: the percentage of the last second)."""


# hw_counters the kernel reads as 64 bits (src/counters.c, HW64): mlx5's
# congestion counters (mlx5_lag_query_cong_counters) and the extended PPCNT
# group; the other hw_counters are 32-bit Q-counters and wrap.
HW64 = {"np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets", "rp_cnp_ignored",
        "rx_icrc_encapsulated"}


def grow(values, d, inc):
    """Adds one step's growth the way the hardware counts: 32-bit Q-counters
    (hw_counters) wrap, saturating PMA counters stop at their maximum, the
    netdev's ethtool statistics are u64 (a Level is set, not added)."""
    for (where, name), v in inc.items():
        if isinstance(v, Level):
            values[where][name] = int(v)
            continue
        cur = values[where][name] + v
        if where == "hw_counters":
            cur %= U64 if name in HW64 else U32
        elif where == "ethtool":
            cur %= U64
        elif name in PMA_WIDTH:
            cur = min(cur, (1 << PMA_WIDTH[name]) - 1)
        values[where][name] = cur


def timeline_samples(n):
    """Runs n.timeline over every RDMA device: returns samples.json and leaves
    the last reading in each port's counters/hw_counters overrides."""
    tl = n.timeline
    devs = sorted((d for d in n.pci if d["rdma"]), key=lambda d: d["bdf"])
    vals = {}
    for d in devs:
        pc, hc = counter_values(n, d)
        vals[d["ibdev"]] = {"counters": pc, "hw_counters": hc}
        if "ethtool_prio" in d["rdma"]:
            vals[d["ibdev"]]["ethtool"] = ethtool_start(n.name + d["ibdev"], d["rdma"], pc)
    samples = []
    for k, t in enumerate(tl["times"]):
        if k:
            dt = t - tl["times"][k - 1]
            for rail, d in enumerate(devs):
                grow(vals[d["ibdev"]], d, tl["step"](rail, k, dt))
        values = {}
        for d in devs:
            for where in ("counters", "hw_counters"):
                for name, v in sorted(vals[d["ibdev"]][where].items()):
                    values["/sys/class/infiniband/%s/ports/1/%s/%s" % (d["ibdev"], where, name)] = v
        # Then each netdev's ethtool statistics, in the driver's order (what
        # ETHTOOL_GSTRINGS lists), as `fabtop capture` appends them.
        for d in devs:
            for name, v in vals[d["ibdev"]].get("ethtool", {}).items():
                values["ethtool:%s:%s" % (d["rdma"]["nd"]["name"], name)] = v
        samples.append({"t": t, "values": values})
    for d in devs:
        d["rdma"]["counters"] = dict(vals[d["ibdev"]]["counters"])
        d["rdma"]["hw_counters"] = dict(vals[d["ibdev"]]["hw_counters"])
    return {"interval": tl["interval"], "samples": samples}


def samples_text(doc):
    """samples.json with one sample per line: readable diffs, a third of the size."""
    lines = ['{"t": %s, "values": %s}' % (json.dumps(s["t"]), json.dumps(s["values"], separators=(",", ":")))
             for s in doc["samples"]]
    return '{\n  "interval": %s,\n  "samples": [\n    %s\n  ]\n}\n' % (json.dumps(doc["interval"]),
                                                                      ",\n    ".join(lines))


JOB_PID = 4242          # the training job's first process; rail r's RC QPs are pid JOB_PID + r's
JOB_QPS = 4             # RC QPs per HCA


def job_qps(bad_states=None, per_hca=JOB_QPS, owners=None):
    """QPs as `rdma resource show qp` lists them: the kernel's SMI (IB only)
    and GSI QPs, then the job's RC QPs, per_hca per HCA (0: the job made
    none), all RTS unless bad_states(rail) names other states for some of
    them.  Rail r's QPs belong to pid JOB_PID + r, the local rank whose GPU
    that HCA serves, unless owners(rail) lists the pids (QP i: owners[i %
    len]): the kernel reports each user QP's owner as the pid of the
    process that created it (nldev.c fill_res_name_pid, task_pid_vnr), and
    that process is one of fabtop/procs."""
    def qps(rail, ib):
        out = [{"lqpn": n, "type": t, "state": "RTS", "port": 1, "kern": "ib_core"}
               for n, t in ((0, "SMI"), (1, "GSI")) if ib or t == "GSI"]
        states = (bad_states(rail) if bad_states else None) or {}
        pids = (owners(rail) if owners else None) or [JOB_PID + rail]
        for i in range(per_hca):
            out.append({"lqpn": 4200 + 16 * rail + i, "type": "RC", "state": states.get(i, "RTS"),
                        "port": 1, "pid": pids[i % len(pids)], "rqpn": 8300 + 16 * rail + i, "pdn": 3,
                        "sq_psn": rnd("sq%d.%d" % (rail, i), 0, 0xffffff),
                        "rq_psn": rnd("rq%d.%d" % (rail, i), 0, 0xffffff)})
        return out
    return qps


def job_procs(nranks, world, master, age_s=5400, env=None):
    """The job's processes as `fabtop capture` records them (fabtop/procs):
    torchrun's one process per GPU, pids JOB_PID + local rank, with only the
    environment fabtop keeps (procfs.c's table) and its age when captured;
    env adds variables every rank sets (NCCL_IB_TC)."""
    return [{"pid": JOB_PID + r, "comm": "python3", "netns": "net:[4026531840]",
             "nccl_lib": "/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2",
             "nccl_var": True, "age_s": age_s,
             "env": dict({"NCCL_DEBUG": "WARN", "NCCL_SOCKET_IFNAME": "eno1", "RANK": str(r),
                          "LOCAL_RANK": str(r), "WORLD_SIZE": str(world), "LOCAL_WORLD_SIZE": str(nranks),
                          "MASTER_ADDR": master, "MASTER_PORT": "29500", "HOSTNAME": "trainer-0"},
                         **(env or {}))}
            for r in range(nranks)]


def qp_bytes(n):
    devs = sorted((d for d in n.pci if d["rdma"]), key=lambda d: d["bdf"])
    return nldev.qp_dump([{"index": rail + 1, "name": d["ibdev"],
                           "qps": n.qps(rail, d["rdma"]["ll"] == "InfiniBand")}
                          for rail, d in enumerate(devs)])


def ib_timeline_node(name, host, description):
    """The ib-8port hardware under another name (so other GUIDs and MACs)."""
    n = build_ib_8port()
    n.name = n.key = name
    n.host, n.description = host, description
    return n


def busy_step(name):
    def step(rail, k, dt):
        key = "%s%d.%d" % (name, rail, k)
        return traffic(gbps(key + "tx", 340, 380), gbps(key + "rx", 340, 380), dt)
    return step


def build_busy():
    n = ib_timeline_node(
        "busy", "hgx-busy-demo",
        "A healthy HGX H100 node on InfiniBand in the middle of a training job: all 8 NDR ports "
        "move 340-380 Gb/s each way, and no loss, retry or congestion counter grows.")
    n.timeline = dict(interval=1.0, times=sample_times(), step=busy_step("busy"))
    n.qps = job_qps()
    return n


HANG_STALLED = (0, 1, 2, 4, 5, 6)   # the rails whose traffic stops; 3 and 7 carry another job
HANG_LOSS_AT = 18                   # retries start climbing (step 17 -> 18)
HANG_STOP_AT = 20                   # no more bytes from this step on
HANG_JITTER_AT = 10                 # the 1.25 s step


def hang_step(rail, k, dt):
    key = "hang%d.%d" % (rail, k)
    if rail in HANG_STALLED and k >= HANG_STOP_AT:
        inc = traffic(0, 0, dt)
    else:
        inc = traffic(gbps(key + "tx", 340, 380), gbps(key + "rx", 340, 380), dt)
    if rail in HANG_STALLED and k >= HANG_LOSS_AT:
        # Every second: 3 ACK timeouts (the peer stopped answering), 2 sequence-error NAKs.
        inc[("hw_counters", "local_ack_timeout_err")] = 3
        inc[("hw_counters", "packet_seq_err")] = 2
    return inc


def build_hang():
    n = ib_timeline_node(
        "hang", "hgx-hang-demo",
        "An HGX H100 node on InfiniBand whose training job hangs: 20 s in, traffic on 6 of the 8 "
        "ports drops to zero while local_ack_timeout_err and packet_seq_err climb on them.")
    n.timeline = dict(interval=1.0, times=sample_times(jitter_at=HANG_JITTER_AT), step=hang_step)
    # On the stalled rails two of the job's QPs ran out of retries (ERR); the
    # other two still retry, which is what local_ack_timeout_err counts.
    n.qps = job_qps(lambda rail: {0: "ERR", 1: "ERR"} if rail in HANG_STALLED else None)
    # The job: 8 local ranks of a 16-rank job, an hour and a half old.
    n.procs = job_procs(8, 16, "10.10.0.17")
    return n


CONG_WRAP_RAIL = 2        # its rx_write_requests (a 32-bit Q-counter) passes 2^32 at step 3
CONG_SAT_RAIL = 5         # its port_xmit_wait reaches 2^32-1 at step 3 and stays


def congested_step(rail, k, dt):
    key = "congested%d.%d" % (rail, k)
    inc = traffic(gbps(key + "tx", 180, 220), gbps(key + "rx", 180, 220), dt)
    inc[("hw_counters", "np_ecn_marked_roce_packets")] = rnd(key + "ecn", 20000, 30000)
    inc[("hw_counters", "rx_write_requests")] = rnd(key + "rw", 200000, 400000)
    inc[("hw_counters", "np_cnp_sent")] = rnd(key + "cnp", 4000, 6000)
    inc[("hw_counters", "rp_cnp_handled")] = rnd(key + "cnph", 4000, 6000)
    inc[("counters", "port_xmit_wait")] = rnd(key + "wait", 2000000, 4000000)
    return inc


def roce_hgx_node(name, host, description, net, octet, mac, port=None):
    """An HGX H100 node on RoCE (a Dell XE9680): 8 ConnectX-7 400GbE NICs,
    each sharing a PCIe switch with one H100; eno1 is 10.10.NET.OCTET with
    MAC mac, NIC rail r's netdev ens<slot>np0 is 10.NET-1.(r+1).OCTET.
    port(rail, netdev, ipv4) makes each NIC's port (default: roce_port)."""
    n = Node(name, host, "5.15.0-119-generic", 0, True, description)
    n.cpu_model = (6, 143, 8, "Intel(R) Xeon(R) Platinum 8480+")
    n.os_version = "#129-Ubuntu SMP Fri Aug 2 19:25:20 UTC 2024"
    n.dmi = dict(sys_vendor="Dell Inc.", product_name="PowerEdge XE9680",
                 board_vendor="Dell Inc.", board_name="0PKY3K", board_version="A01",
                 bios_vendor="Dell Inc.", bios_version="2.2.8", bios_date="05/13/2024")
    for c in range(224):
        n.cpus.append(dict(cpu=c, pkg=(c // 56) % 2, core=c % 56, node=(c // 56) % 2))
    n.nodes = [dict(id=0, mem_kb=1056574636), dict(id=1, mem_kb=1056868912)]
    n.distances = [[10, 21], [21, 10]]
    rp = fn(n.pci, bdf(0x00, 0x1c), None, "pch-rp", "root", 0, 8.0, 4, acs=0)
    fn(n.pci, bdf(0x01), rp, "x550", "ep", 0, 8.0, 4, label="mgmt NIC",
       netdev=dict(name="eno1", mtu=1500, ipv4="10.10.%d.%d/24" % (net, octet), speed=10000))
    n.macs[bdf(0x01)] = mac
    n.gateway = ("eno1", "10.10.%d.1" % net)
    for rail, (b, numa) in enumerate(HGX_ROOTS):
        ifname, ip = "ens%dnp0" % ROCE_SLOTS[rail], "10.%d.%d.%d/24" % (net - 1, rail + 1, octet)
        hgx_slot(n, b, numa, "cx7-eth", port(rail, ifname, ip) if port else roce_port(ifname, ip),
                 nvswitches=2 if rail in (0, 4) else 0, label="NIC rail %d" % rail)
    hgx_software(n)
    return n


def build_congested():
    n = roce_hgx_node("congested", "roce-congested-demo",
                      "An HGX H100 node on RoCE with 8 healthy 400GbE ConnectX-7 ports where the fabric is "
                      "congested: throughput stays at 180-220 Gb/s while ECN marks, CNPs and port_xmit_wait grow.",
                      2, 31, "b0:7b:25:de:52:1c")
    # Starting points of the wrap and the saturation (see CONG_*_RAIL).
    first = [congested_step(CONG_WRAP_RAIL, k, 1.0) for k in (1, 2)]
    ports = [d["rdma"] for d in sorted((d for d in n.pci if d["rdma"]), key=lambda d: d["bdf"])]
    ports[CONG_WRAP_RAIL]["hw_counters"] = {"rx_write_requests": U32 - 1000 - sum(
        s[("hw_counters", "rx_write_requests")] for s in first)}
    first = [congested_step(CONG_SAT_RAIL, k, 1.0) for k in (1, 2)]
    ports[CONG_SAT_RAIL]["counters"] = {"port_xmit_wait": U32 - 1 - 1000000 - sum(
        s[("counters", "port_xmit_wait")] for s in first)}
    n.timeline = dict(interval=1.0, times=sample_times(), step=congested_step)
    n.qps = job_qps()
    return n


# --------------------------------------------------------------------------
# SCENARIOS pause-storm, lossless-mismatch, link-flap, pinned (issue 15)
# --------------------------------------------------------------------------
# Captures with time, as busy/hang/congested, whose RoCE netdevs also carry
# their ethtool statistics: each sample's "values" holds them under
# "ethtool:IFNAME:STATNAME" (what `fabtop capture` records through
# ETHTOOL_GSTRINGS/ETHTOOL_GSTATS), after the sysfs counters.  Every rate
# is constant over a phase and whole, so a test can check it by hand: the
# samples are 1 s apart, traffic runs at whole Gb/s (4000-byte packets, as
# above), and each step's growth is spelled out by the step functions.
#
# The statistics a ConnectX-7 netdev lists, in the driver's order: the
# groups of mlx5e_nic_stats_grps[] in drivers/net/ethernet/mellanox/mlx5/
# core/en_stats.c (torvalds/linux at 01dd74246c75: the names of each
# group's counter_desc), meanings from Documentation/networking/
# device_drivers/ethernet/mellanox/mlx5/counters.rst.  Left out: the
# per-ring rows (rx<i>_*, tx<i>_*, ch<i>_*: a real port lists them for
# each of its channels; per ring they tell nothing a port's verdict needs
# and would triple the file) and the groups a node without TLS offload,
# PTP or HTB does not list.  These nodes run MLNX_OFED's driver (its QoS
# sysfs and tc/ files are there).  rx_bits_phy, the BER's denominator
# (PPCNT's phy_received_bits), is documented in counters.rst; the in-tree
# driver did not list it when an RFC of January 2026 proposed it
# (linux-rdma: "net/mlx5e: Expose physical received bits counters to
# ethtool"); this node's driver has it.

MLX5_SW_STATS = (   # sw_stats_desc (CONFIG_MLX5_EN_TLS=y, as distribution kernels build it)
    "rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "tx_tso_packets", "tx_tso_bytes",
    "tx_tso_inner_packets", "tx_tso_inner_bytes", "tx_added_vlan_packets", "tx_nop", "tx_mpwqe_blks",
    "tx_mpwqe_pkts", "tx_tls_encrypted_packets", "tx_tls_encrypted_bytes", "tx_tls_ooo",
    "tx_tls_dump_packets", "tx_tls_dump_bytes", "tx_tls_resync_bytes", "tx_tls_skip_no_sync_data",
    "tx_tls_drop_no_sync_data", "tx_tls_drop_bypass_req", "rx_lro_packets", "rx_lro_bytes",
    "rx_gro_packets", "rx_gro_bytes", "rx_gro_skbs", "rx_gro_match_packets", "rx_gro_large_hds",
    "rx_ecn_mark", "rx_removed_vlan_packets", "rx_csum_unnecessary", "rx_csum_none", "rx_csum_complete",
    "rx_csum_complete_tail", "rx_csum_complete_tail_slow", "rx_csum_unnecessary_inner", "rx_xdp_drop",
    "rx_xdp_redirect", "rx_xdp_tx_xmit", "rx_xdp_tx_mpwqe", "rx_xdp_tx_inlnw", "rx_xdp_tx_nops",
    "rx_xdp_tx_full", "rx_xdp_tx_err", "rx_xdp_tx_cqe", "tx_csum_none", "tx_csum_partial",
    "tx_csum_partial_inner", "tx_queue_stopped", "tx_queue_dropped", "tx_xmit_more", "tx_recover",
    "tx_cqes", "tx_queue_wake", "tx_cqe_err", "tx_xdp_xmit", "tx_xdp_mpwqe", "tx_xdp_inlnw",
    "tx_xdp_nops", "tx_xdp_full", "tx_xdp_err", "tx_xdp_cqes", "rx_wqe_err", "rx_mpwqe_filler_cqes",
    "rx_mpwqe_filler_strides", "rx_oversize_pkts_sw_drop", "rx_buff_alloc_err", "rx_cqe_compress_blks",
    "rx_cqe_compress_pkts", "rx_cache_reuse", "rx_cache_full", "rx_cache_empty", "rx_cache_busy",
    "rx_cache_waive", "rx_congst_umr", "rx_arfs_err", "rx_recover", "rx_tls_decrypted_packets",
    "rx_tls_decrypted_bytes", "rx_tls_resync_req_pkt", "rx_tls_resync_req_start",
    "rx_tls_resync_req_end", "rx_tls_resync_req_skip", "rx_tls_resync_res_ok",
    "rx_tls_resync_res_retry", "rx_tls_resync_res_skip", "rx_tls_err", "ch_events", "ch_poll",
    "ch_arm", "ch_aff_change", "ch_force_irq", "ch_eq_rearm", "rx_xsk_packets", "rx_xsk_bytes",
    "rx_xsk_csum_complete", "rx_xsk_csum_unnecessary", "rx_xsk_csum_unnecessary_inner",
    "rx_xsk_csum_none", "rx_xsk_ecn_mark", "rx_xsk_removed_vlan_packets", "rx_xsk_xdp_drop",
    "rx_xsk_xdp_redirect", "rx_xsk_wqe_err", "rx_xsk_mpwqe_filler_cqes", "rx_xsk_mpwqe_filler_strides",
    "rx_xsk_oversize_pkts_sw_drop", "rx_xsk_buff_alloc_err", "rx_xsk_cqe_compress_blks",
    "rx_xsk_cqe_compress_pkts", "rx_xsk_congst_umr", "rx_xsk_arfs_err", "tx_xsk_xmit", "tx_xsk_mpwqe",
    "tx_xsk_inlnw", "tx_xsk_full", "tx_xsk_err", "tx_xsk_cqes")
MLX5_PORT_STATS = (
    # qcnt, vnic_env
    "rx_out_of_buffer", "rx_if_down_packets", "rx_steer_missed_packets", "dev_internal_queue_oob",
    # vport: what the function sent and received, RoCE ("rdma") apart
    "rx_vport_unicast_packets", "rx_vport_unicast_bytes", "tx_vport_unicast_packets",
    "tx_vport_unicast_bytes", "rx_vport_multicast_packets", "rx_vport_multicast_bytes",
    "tx_vport_multicast_packets", "tx_vport_multicast_bytes", "rx_vport_broadcast_packets",
    "rx_vport_broadcast_bytes", "tx_vport_broadcast_packets", "tx_vport_broadcast_bytes",
    "rx_vport_rdma_unicast_packets", "rx_vport_rdma_unicast_bytes", "tx_vport_rdma_unicast_packets",
    "tx_vport_rdma_unicast_bytes", "rx_vport_rdma_multicast_packets", "rx_vport_rdma_multicast_bytes",
    "tx_vport_rdma_multicast_packets", "tx_vport_rdma_multicast_bytes",
    # 802_3 (PPCNT IEEE 802.3 group)
    "tx_packets_phy", "rx_packets_phy", "rx_crc_errors_phy", "tx_bytes_phy", "rx_bytes_phy",
    "tx_multicast_phy", "tx_broadcast_phy", "rx_multicast_phy", "rx_broadcast_phy",
    "rx_in_range_len_errors_phy", "rx_out_of_range_len_phy", "rx_oversize_pkts_phy",
    "rx_symbol_err_phy", "tx_mac_control_phy", "rx_mac_control_phy", "rx_unsupported_op_phy",
    "rx_pause_ctrl_phy", "tx_pause_ctrl_phy",
    # 2863, 2819
    "rx_discards_phy", "tx_discards_phy", "tx_errors_phy",
    "rx_undersize_pkts_phy", "rx_fragments_phy", "rx_jabbers_phy", "rx_64_bytes_phy",
    "rx_65_to_127_bytes_phy", "rx_128_to_255_bytes_phy", "rx_256_to_511_bytes_phy",
    "rx_512_to_1023_bytes_phy", "rx_1024_to_1518_bytes_phy", "rx_1519_to_2047_bytes_phy",
    "rx_2048_to_4095_bytes_phy", "rx_4096_to_8191_bytes_phy", "rx_8192_to_10239_bytes_phy",
    # phy: link_down_events_phy first, then the statistical group (BER), 4 lanes at 400G
    "link_down_events_phy", "rx_pcs_symbol_err_phy", "rx_corrected_bits_phy", "rx_bits_phy",
    "rx_err_lane_0_phy", "rx_err_lane_1_phy", "rx_err_lane_2_phy", "rx_err_lane_3_phy",
    # eth_ext, pcie (the stalled ones are a percentage of the last second: levels)
    "rx_buffer_passed_thres_phy",
    "rx_pci_signal_integrity", "tx_pci_signal_integrity", "outbound_pci_buffer_overflow",
    "outbound_pci_stalled_rd", "outbound_pci_stalled_wr", "outbound_pci_stalled_rd_events",
    "outbound_pci_stalled_wr_events")
MLX5_PME_STATS = ("module_unplug", "module_bus_stuck", "module_high_temp", "module_bad_shorted")

ROCE_LINE_BITS = 400 * 10 ** 9      # rx_bits_phy a second on a 400GbE port while its link is up
UPTIME_S = 5 * 86400                # the ports came up 5 days before the first sample
PAUSE_US = 84                       # one pause of quanta 0xffff at 400 Gb/s: 65535 * 512 bit times


def mlx5_ethtool_names(pfc):
    """`ethtool -S` of a ConnectX-7 400GbE netdev with PFC on the priorities
    pfc: the PFC rows exist only for priorities with PFC on (en_stats.c
    mlx5e_grp_per_prio_pfc_fill_strings), the pause-storm ones where the
    device has stall detection (a ConnectX-7 has)."""
    names = list(MLX5_SW_STATS) + list(MLX5_PORT_STATS)
    for p in range(8):
        names += ["rx_prio%d_bytes" % p, "rx_prio%d_packets" % p, "rx_prio%d_discards" % p,
                  "tx_prio%d_bytes" % p, "tx_prio%d_packets" % p]
    for p in sorted(pfc):
        names += [f % p for f in ("rx_prio%d_pause", "rx_prio%d_pause_duration", "tx_prio%d_pause",
                                  "tx_prio%d_pause_duration", "rx_prio%d_pause_transition")]
    names += ["tx_pause_storm_warning_events", "tx_pause_storm_error_events"]
    names += list(MLX5_PME_STATS)
    for p in range(8):
        names += ["rx_prio%d_buf_discard" % p, "rx_prio%d_cong_discard" % p, "rx_prio%d_marked" % p]
    return names


def ethtool_start(key, r, pc):
    """The statistics of port r's netdev at the first sample, agreeing with
    its PMA counters pc: the RoCE traffic (port_xmit_data counts 4-octet
    words) on the job's priority r["ethtool_prio"], the kernel's own little
    traffic (ARP, LLDP, ssh: 200-byte frames, multicast, broadcast) on
    priority 0, a BER of 1e-9 since the link came up UPTIME_S ago, and a
    few pauses on the PFC priorities.  Everything else is 0."""
    prio = r["ethtool_prio"]
    v = dict.fromkeys(mlx5_ethtool_names(r["nd"]["qos"]["pfc"]), 0)
    up = r["up"]
    k_rx, k_tx = rnd(key + "krx", 10 ** 6, 10 ** 7), rnd(key + "ktx", 10 ** 6, 10 ** 7)
    mc_rx, mc_tx, bc_rx, bc_tx = (rnd(key + x, 1000, 9000) for x in ("mcr", "mct", "bcr", "bct"))
    rd_rxp, rd_txp = pc["port_rcv_packets"], pc["port_xmit_packets"]
    rd_rxb, rd_txb = 4 * pc["port_rcv_data"], 4 * pc["port_xmit_data"]
    v.update(rx_packets=k_rx + mc_rx + bc_rx, rx_bytes=200 * (k_rx + mc_rx + bc_rx),
             tx_packets=k_tx + mc_tx + bc_tx, tx_bytes=200 * (k_tx + mc_tx + bc_tx),
             rx_csum_complete=k_rx + mc_rx + bc_rx, tx_csum_partial=k_tx, tx_csum_none=mc_tx + bc_tx,
             tx_cqes=k_tx + mc_tx + bc_tx, ch_events=k_rx // 4, ch_poll=k_rx // 2, ch_arm=k_rx // 4,
             rx_vport_unicast_packets=k_rx, rx_vport_unicast_bytes=200 * k_rx,
             tx_vport_unicast_packets=k_tx, tx_vport_unicast_bytes=200 * k_tx,
             rx_vport_multicast_packets=mc_rx, rx_vport_multicast_bytes=200 * mc_rx,
             tx_vport_multicast_packets=mc_tx, tx_vport_multicast_bytes=200 * mc_tx,
             rx_vport_broadcast_packets=bc_rx, rx_vport_broadcast_bytes=200 * bc_rx,
             tx_vport_broadcast_packets=bc_tx, tx_vport_broadcast_bytes=200 * bc_tx,
             rx_vport_rdma_unicast_packets=rd_rxp, rx_vport_rdma_unicast_bytes=rd_rxb,
             tx_vport_rdma_unicast_packets=rd_txp, tx_vport_rdma_unicast_bytes=rd_txb,
             rx_packets_phy=rd_rxp + k_rx + mc_rx + bc_rx, rx_bytes_phy=rd_rxb + 200 * (k_rx + mc_rx + bc_rx),
             tx_packets_phy=rd_txp + k_tx + mc_tx + bc_tx, tx_bytes_phy=rd_txb + 200 * (k_tx + mc_tx + bc_tx),
             rx_multicast_phy=mc_rx, tx_multicast_phy=mc_tx, rx_broadcast_phy=bc_rx, tx_broadcast_phy=bc_tx,
             rx_128_to_255_bytes_phy=k_rx + mc_rx + bc_rx, rx_2048_to_4095_bytes_phy=rd_rxp)
    v["rx_prio0_packets"], v["rx_prio0_bytes"] = k_rx + mc_rx + bc_rx, 200 * (k_rx + mc_rx + bc_rx)
    v["tx_prio0_packets"], v["tx_prio0_bytes"] = k_tx + mc_tx + bc_tx, 200 * (k_tx + mc_tx + bc_tx)
    for d, pk, b in (("rx", rd_rxp, rd_rxb), ("tx", rd_txp, rd_txb)):
        v["%s_prio%d_packets" % (d, prio)] += pk
        v["%s_prio%d_bytes" % (d, prio)] += b
    if up:
        v["rx_bits_phy"] = UPTIME_S * ROCE_LINE_BITS
        v["rx_corrected_bits_phy"] = v["rx_bits_phy"] // 10 ** 9
        for lane in range(4):
            v["rx_err_lane_%d_phy" % lane] = v["rx_corrected_bits_phy"] // 4
    for p in r["nd"]["qos"]["pfc"]:
        for d in ("rx", "tx"):
            count = rnd("%s%s%d" % (key, d, p), 10 ** 4, 10 ** 5)
            v["%s_prio%d_pause" % (d, p)] = count
            v["%s_prio%d_pause_duration" % (d, p)] = count * PAUSE_US
        v["rx_prio%d_pause_transition" % p] = v["rx_prio%d_pause" % p] // 2
    return v


def roce_step(tx, rx, dt, prio, corrected=400, up=True):
    """One step of a RoCE port moving tx/rx Gb/s of RDMA traffic on priority
    prio: the PMA data counters (traffic()) and the same traffic in the
    netdev's statistics (vport rdma, the 802.3 frame and octet counters, the
    2048-4095 byte frames of the RFC 2819 histogram, the priority's
    counters); rx_bits_phy grows at the line rate while the link is up
    (ROCE_LINE_BITS a second, traffic or not), rx_corrected_bits_phy by
    corrected a second, split evenly over the 4 lanes.  The pre-FEC BER
    of the step is corrected / 4e11: 400 is 1e-9."""
    inc = traffic(tx, rx, dt)
    bx, br = 4 * inc[("counters", "port_xmit_data")], 4 * inc[("counters", "port_rcv_data")]
    px, pr = inc[("counters", "port_xmit_packets")], inc[("counters", "port_rcv_packets")]
    bits, corr = ROCE_LINE_BITS * dt if up else 0, corrected * dt
    assert bits == int(bits) and corr == int(corr) and corrected % 4 == 0
    for name, val in (("tx_vport_rdma_unicast_packets", px), ("tx_vport_rdma_unicast_bytes", bx),
                      ("rx_vport_rdma_unicast_packets", pr), ("rx_vport_rdma_unicast_bytes", br),
                      ("tx_packets_phy", px), ("tx_bytes_phy", bx), ("rx_packets_phy", pr),
                      ("rx_bytes_phy", br), ("rx_2048_to_4095_bytes_phy", pr),
                      ("tx_prio%d_packets" % prio, px), ("tx_prio%d_bytes" % prio, bx),
                      ("rx_prio%d_packets" % prio, pr), ("rx_prio%d_bytes" % prio, br),
                      ("rx_bits_phy", int(bits)), ("rx_corrected_bits_phy", int(corr))):
        inc[("ethtool", name)] = val
    for lane in range(4):
        inc[("ethtool", "rx_err_lane_%d_phy" % lane)] = int(corr) // 4
    return inc


def add(inc, where, name, v):
    """More growth of one counter in a step (inc: as traffic() returns it)."""
    inc[(where, name)] = inc.get((where, name), 0) + v


def lossless_port(netdev, ipv4, prio=3, q=None, tclass=None):
    """A RoCE port set up for a lossless priority (MLNX_OFED: PFC on 3, trust
    dscp, ECN on 3, unless q says otherwise) whose netdev's ethtool
    statistics are sampled; the job's RDMA traffic runs on prio; tclass is
    its tc/1/traffic_class override (None: none)."""
    return roce_port(netdev, ipv4, q=q, ethtool_prio=prio, tclass=tclass)


def roce_counter_node(name, host, description, net, octet, mac, step, tc, port=None):
    """A roce_hgx_node (ports: port, or lossless_port on priority 3) with 60
    samples 1 s apart grown by step, in a training job: 8 local ranks of
    16, rank 0 on this node's eno1, NCCL_IB_TC=tc in each, its QPs in RTS."""
    n = roce_hgx_node(name, host, description, net, octet, mac,
                      port or (lambda rail, netdev, ipv4: lossless_port(netdev, ipv4)))
    n.timeline = dict(interval=1.0, times=sample_times(), step=step)
    n.procs = job_procs(8, 16, "10.10.%d.%d" % (net, octet), env={"NCCL_IB_TC": str(tc)})
    n.qps = job_qps()
    return n


# ---- pause-storm ----------------------------------------------------------
# mlx5_6's host stalls: from step PS_STALL_AT the NIC cannot write what it
# receives to memory fast enough (outbound_pci_stalled_wr, a gauge, reads
# 85: 85 % of each second stalled), its receive buffer fills
# (rx_buffer_passed_thres_phy) and it sends PFC pauses on priority 3.  The
# driver's pause-storm prevention (auto: a critical stall timeout of 100 ms,
# the minor watermark at 85 % of it, 85 ms: en_ethtool.c
# MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC, MLX5E_PFC_PREVEN_MINOR_PRECENT) counts:
#   steps 15-19: two stalls a second of about 90 ms, each past the minor
#     watermark (tx_pause_storm_warning_events +2), pausing 180 ms a second
#     (tx_prio3_pause +2,000, tx_prio3_pause_duration +180,000 us); what it
#     receives falls from 320 to 256 Gb/s;
#   steps 20-59: one stall a second that reaches the critical timeout: +1
#     warning, +1 error (tx_pause_storm_error_events), pauses stop after
#     100 ms (tx_prio3_pause +1,200, duration +100,000 us) and what arrives
#     into the full buffer is dropped: rx_discards_phy, rx_prio3_discards and
#     rx_prio3_buf_discard +4,000 a second, out_of_sequence +400; it
#     receives 224 Gb/s.
# The pauses spread back through the fabric (the rails meet at the spine
# switches): from step PS_STORM_AT mlx5_3
# receives a storm of PFC pauses on priority 3 (rx_prio3_pause +20,000 a
# second, rx_prio3_pause_duration +950,000 us: paused 95 % of each second,
# rx_prio3_pause_transition +20) and what it sends collapses from 320 to
# 16 Gb/s (5 %) while DCQCN slows it too (rp_cnp_handled +2,000 a second).
# Every other port moves 320 Gb/s each way on priority 3 (the job's
# NCCL_IB_TC=106: DSCP 26, priority 3 by mlx5's default DSCP map): no
# pause, no CNP, no drop.

PS_TX_RAIL = 6
PS_RX_RAIL = 3
PS_STALL_AT = 15
PS_STORM_AT = 20


def pause_storm_step(rail, k, dt):
    tx = rx = 320
    if rail == PS_RX_RAIL and k >= PS_STORM_AT:
        tx = 16
    if rail == PS_TX_RAIL and k >= PS_STALL_AT:
        rx = 256 if k < PS_STORM_AT else 224
    inc = roce_step(tx, rx, dt, 3)
    if rail == PS_RX_RAIL and k >= PS_STORM_AT:
        for name, v in (("rx_prio3_pause", 20000), ("rx_prio3_pause_duration", 950000),
                        ("rx_prio3_pause_transition", 20)):
            add(inc, "ethtool", name, v)
        add(inc, "hw_counters", "rp_cnp_handled", 2000)
    if rail == PS_TX_RAIL and k >= PS_STALL_AT:
        inc[("ethtool", "outbound_pci_stalled_wr")] = Level(85)
        add(inc, "ethtool", "outbound_pci_stalled_wr_events", 1)
        add(inc, "ethtool", "rx_buffer_passed_thres_phy", 40)
        if k < PS_STORM_AT:
            for name, v in (("tx_prio3_pause", 2000), ("tx_prio3_pause_duration", 180000),
                            ("tx_pause_storm_warning_events", 2)):
                add(inc, "ethtool", name, v)
        else:
            for name, v in (("tx_prio3_pause", 1200), ("tx_prio3_pause_duration", 100000),
                            ("tx_pause_storm_warning_events", 1), ("tx_pause_storm_error_events", 1),
                            ("rx_discards_phy", 4000), ("rx_prio3_discards", 4000),
                            ("rx_prio3_buf_discard", 4000)):
                add(inc, "ethtool", name, v)
            add(inc, "hw_counters", "out_of_sequence", 400)
    return inc


def build_pause_storm():
    return roce_counter_node(
        "pause-storm", "roce-pausestorm-demo",
        "An HGX H100 node on RoCE in a PFC pause storm: mlx5_6's host stalls its PCIe writes, "
        "it sends pauses on priority 3 until pause-storm prevention trips and drops, and "
        "mlx5_3, paused 95 % of the time, sends 16 Gb/s instead of 320.",
        3, 41, "b0:7b:25:de:63:2e", pause_storm_step, 106)


# ---- lossless-mismatch ------------------------------------------------------
# The fabric is lossless on priority 3 (PFC and ECN on 3, trust dscp, on
# every netdev), but the job sets NCCL_IB_TC=3, meaning "priority 3": the
# traffic class is the IP header's TOS byte, DSCP 0 (3 >> 2) with ECN bits
# 11, so its RoCE packets carry priority 0 (mlx5's default DSCP map: DSCP
# >> 3), which has no PFC.  On 6 ports (all but LM_OVERRIDE) the job's
# 300 Gb/s each way runs on priority 0: tx/rx_prio0_packets grow by
# 9,375,000 a second while tx/rx_prio3_packets stay flat (PFC on a priority
# that carries nothing), and the loss that a lossy priority takes under
# load shows as out_of_sequence and packet_seq_err, +20 a second each; the
# switch marks ECN on its priority-3 queue only, so no CNP either.
# MLNX_OFED's global traffic class is set on 2 ports (the admin's RoCE QoS
# script ran on those two NICs only): "Global tclass=106" (DSCP 26,
# priority 3) overrides the job's 3 for every QP there, so their traffic
# runs on priority 3:
#   mlx5_2 (LM_OVERRIDE[0]): 300 Gb/s each way on priority 3, no pause;
#   mlx5_5 (LM_PAUSED): ECN is off on its netdev (ecn/roce_np and roce_rp
#     enable/3 read 0): congestion control is not engaged, no CNP is sent
#     or handled (np_cnp_sent, rp_cnp_handled, np_ecn_marked_roce_packets
#     flat), and the switch falls back on PFC: rx_prio3_pause +3,000 a
#     second, rx_prio3_pause_duration +250,000 us (paused a quarter of each
#     second), rx_prio3_pause_transition +1,500; it sends 224 Gb/s.

LM_JOB_TC = 3
LM_GLOBAL_TC = 106
LM_OVERRIDE = (2, 5)
LM_PAUSED = 5


def lossless_mismatch_port(rail, netdev, ipv4):
    if rail not in LM_OVERRIDE:
        return lossless_port(netdev, ipv4, prio=0)
    if rail != LM_PAUSED:
        return lossless_port(netdev, ipv4, prio=3, tclass=LM_GLOBAL_TC)
    # ECN off: no CNP was ever sent or handled on this port.
    port = lossless_port(netdev, ipv4, prio=3, q=qos(np=(), rp=()), tclass=LM_GLOBAL_TC)
    port["hw_counters"] = dict(np_cnp_sent=0, rp_cnp_handled=0, np_ecn_marked_roce_packets=0)
    return port


def lossless_mismatch_step(rail, k, dt):
    if rail not in LM_OVERRIDE:
        inc = roce_step(300, 300, dt, 0)
        add(inc, "hw_counters", "out_of_sequence", 20)
        add(inc, "hw_counters", "packet_seq_err", 20)
    elif rail == LM_PAUSED:
        inc = roce_step(224, 300, dt, 3)
        for name, v in (("rx_prio3_pause", 3000), ("rx_prio3_pause_duration", 250000),
                        ("rx_prio3_pause_transition", 1500)):
            add(inc, "ethtool", name, v)
    else:
        inc = roce_step(300, 300, dt, 3)
    return inc


def build_lossless_mismatch():
    return roce_counter_node(
        "lossless-mismatch", "roce-mismatch-demo",
        "An HGX H100 node on RoCE whose lossless path is not: PFC is on priority 3, but the "
        "job's NCCL_IB_TC=3 puts its traffic on priority 0 on 6 ports; a global "
        "traffic_class of 106 overrides it on mlx5_2 and mlx5_5, and mlx5_5 receives "
        "pauses with ECN off and no CNP.",
        4, 43, "b0:7b:25:de:74:3f", lossless_mismatch_step, LM_JOB_TC, lossless_mismatch_port)


# ---- link-flap --------------------------------------------------------------
# mlx5_4's optics degrade: its pre-FEC BER (rx_corrected_bits_phy over
# rx_bits_phy, which grows 4e11 a second while the link is up) climbs a
# decade every 8 steps, LF_CORRECTED[(k - 1) // 8] corrected bits a second:
#   steps  1-8 1e-9 (400), 9-16 1e-8, 17-24 1e-7, 25-32 1e-6, 33-40 1e-5,
#   41-48 1e-4 (40,000,000), 49-59 5e-4 (200,000,000: past the 2.4e-4
#   that RS(544,514) FEC corrects, the IEEE 802.3 limit for 50G-per-lane
#   PAM4 links);
# from 1e-4 on, FEC no longer corrects every symbol: rx_pcs_symbol_err_phy
# and the PMA symbol_error grow by 2 a second at 1e-4, by 150 at 5e-4,
# where whole frames are lost too (rx_crc_errors_phy and port_rcv_errors
# +40 a second, out_of_sequence +40).  The link goes down 4 times, 2 s each
# (LF_DOWN: down at steps 44, 50, 54 and 57, up again 2 steps later):
# link_down_events_phy and link_downed +1 at each of those 4 steps (0 -> 4);
# while down nothing is sent or received, rx_bits_phy stands still and the
# job's QPs time out (local_ack_timeout_err +2 a second).  mlx5's RoCE port
# keeps its sysfs directory and counters while the link is down (its state
# reads 1: DOWN, phys_state 3: Disabled, which a capture records only at the
# snapshot); the snapshot, after step 59, finds it up again.  The other 7
# ports move 320 Gb/s each way on priority 3 at a BER of 1e-9, nothing
# else grows.

LF_RAIL = 4
LF_CORRECTED = (400, 4000, 40000, 400000, 4000000, 40000000, 200000000)
LF_DOWN = (44, 45, 50, 51, 54, 55, 57, 58)


def link_flap_step(rail, k, dt):
    if rail != LF_RAIL:
        return roce_step(320, 320, dt, 3)
    if k in LF_DOWN:
        inc = roce_step(0, 0, dt, 3, corrected=0, up=False)
        if k - 1 not in LF_DOWN:
            add(inc, "counters", "link_downed", 1)
            add(inc, "ethtool", "link_down_events_phy", 1)
        add(inc, "hw_counters", "local_ack_timeout_err", 2)
        return inc
    stage = min((k - 1) // 8, len(LF_CORRECTED) - 1)
    inc = roce_step(320, 320, dt, 3, corrected=LF_CORRECTED[stage])
    sym = {5: 2, 6: 150}.get(stage, 0)
    if sym:
        add(inc, "ethtool", "rx_pcs_symbol_err_phy", sym)
        add(inc, "counters", "symbol_error", sym)
    if stage == 6:
        for where, name in (("ethtool", "rx_crc_errors_phy"), ("counters", "port_rcv_errors"),
                            ("hw_counters", "out_of_sequence")):
            add(inc, where, name, 40)
    return inc


def build_link_flap():
    return roce_counter_node(
        "link-flap", "roce-linkflap-demo",
        "An HGX H100 node on RoCE where mlx5_4's link flaps: its pre-FEC BER climbs from 1e-9 "
        "to 5e-4 in a minute, symbol errors and CRC errors follow, and the link goes down 4 "
        "times (link_downed 0 to 4) before the snapshot finds it up again.",
        5, 47, "b0:7b:25:de:85:40", link_flap_step, 106)


# ---- pinned -----------------------------------------------------------------
# The ib-8port hardware (InfiniBand NDR, no ethtool statistics sampled: an
# IPoIB netdev's say nothing of the link) in a training job, every port at
# 360 Gb/s each way, with PMA error counters pinned at their maximum, the
# widths of PMA_WIDTH:
#   mlx5_2 (PIN_STUCK): link_downed 255 (8 bits), port_xmit_discards 65535
#     (16), excessive_buffer_overrun_errors 15 (4), as a real H100 node
#     shows them (issue 15); they stay pinned through the samples while the
#     errors they would count go on (+50 discards, +1 overrun a second: no
#     reading changes): blind;
#   mlx5_5 (PIN_SYM): symbol_error 65535 from the first sample, +30 a second
#     that never shows;
#   mlx5_6 (PIN_RISE): symbol_error grows 120 a second from 61,920: 65,520
#     at sample 30, and the step to sample 31 saturates it (65,535, a step of
#     15 where 120 happened); it reads 65,535 from there to the end.
# The other ports are clean.

PIN_STUCK = 2
PIN_SYM = 5
PIN_RISE = 6
PIN_RISE_RATE = 120
PIN_RISE_AT = 31


def pinned_step(rail, k, dt):
    inc = traffic(360, 360, dt)
    if rail == PIN_STUCK:
        add(inc, "counters", "port_xmit_discards", 50)
        add(inc, "counters", "excessive_buffer_overrun_errors", 1)
    elif rail == PIN_SYM:
        add(inc, "counters", "symbol_error", 30)
    elif rail == PIN_RISE:
        add(inc, "counters", "symbol_error", PIN_RISE_RATE)
    return inc


def build_pinned():
    n = ib_timeline_node(
        "pinned", "hgx-pinned-demo",
        "An HGX H100 node on InfiniBand whose PMA counters are pinned at their maximum: mlx5_2 reads "
        "link_downed 255, port_xmit_discards 65535 and excessive_buffer_overrun_errors 15, mlx5_5 "
        "symbol_error 65535, and mlx5_6's symbol_error climbs 120 a second until it pins at 31 s.")
    ports = [d["rdma"] for d in sorted((d for d in n.pci if d["rdma"]), key=lambda d: d["bdf"])]
    ports[PIN_STUCK]["counters"] = dict(link_downed=255, port_xmit_discards=65535,
                                        excessive_buffer_overrun_errors=15)
    ports[PIN_SYM]["counters"] = dict(symbol_error=65535)
    ports[PIN_RISE]["counters"] = dict(symbol_error=65535 - 15 - PIN_RISE_RATE * (PIN_RISE_AT - 1))
    n.timeline = dict(interval=1.0, times=sample_times(), step=pinned_step)
    n.qps = job_qps()
    n.procs = job_procs(8, 16, "10.10.0.17")
    return n


# --------------------------------------------------------------------------
# FIXTURE topo-mini (build/fixtures/topo-mini)
# --------------------------------------------------------------------------
# A non-root capture (uid 1000): config files hold only the 64-byte header, so
# no capabilities; the link comes from sysfs current_link_*/max_link_*.  No
# hwloc.xml: fabtop falls back to HWLOC_FSROOT on it.
#
#   pci0000:00 (node 0)
#     00:01.0 root port
#       01:00.0 switch S1 up
#         02:00.0 down -> 03:00.0 GPU A
#         02:01.0 down -> 04:00.0 NIC a  mlx5_0 (IB, ibp4s0)
#         02:02.0 down -> 05:00.0 switch S2 up
#                           06:00.0 down -> 07:00.0 GPU B
#                           06:01.0 down -> 08:00.0 mlx5_1 (ibp8s0f0)
#                                           08:00.1 mlx5_2 (ibp8s0f1)
#     00:05.0 GPU D, integrated on the root bus (RCiEP: link reads "Unknown"/"0")
#   pci0000:10 (node 0)   10:01.0 root port -> 11:00.0 GPU C
#   pci0000:80 (node 1)   80:01.0 root port -> 81:00.0 mlx5_3 (IB, ibp129s0)
#
# Expected classification (nvidia-smi topo -m terms):
#   GPU A  - mlx5_0   PIX   (one switch between them)
#   GPU A  - GPU B    PXB   (two switches, S1 and S2)
#   GPU B  - mlx5_1   PIX
#   mlx5_1 - mlx5_2   PIX   (two functions of one device)
#   GPU A  - GPU C    NODE  (other host bridge, same NUMA node)
#   GPU A  - mlx5_3   SYS   (other NUMA node)
#   GPU A  - GPU D    PHB   (same host bridge, through the root complex)


def build_topo_mini():
    n = Node("topo-mini", "topo-mini", "6.1.0-26-amd64", 1000, False, "")
    n.config_bytes = 64
    n.hwloc = False
    n.cpu_model = (6, 106, 6, "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz")
    for c in range(8):
        n.cpus.append(dict(cpu=c, pkg=c // 4, core=c % 4, node=c // 4))
    n.nodes = [dict(id=0, mem_kb=8039428), dict(id=1, mem_kb=8257536)]
    n.distances = [[10, 21], [21, 10]]
    t = n.pci
    rp = fn(t, bdf(0x00, 1), None, "icx-rp", "root", 0, 16.0, 16, acs=0)
    s1 = fn(t, bdf(0x01), rp, "pex88096", "up", 0, 16.0, 16, label="S1 up")
    d = fn(t, bdf(0x02, 0), s1, "pex88096", "down", 0, 16.0, 16, acs=0, label="S1 down")
    fn(t, bdf(0x03), d, "a100", "ep", 0, 16.0, 16, label="GPU A")
    d = fn(t, bdf(0x02, 1), s1, "pex88096", "down", 0, 16.0, 16, acs=0, label="S1 down")
    fn(t, bdf(0x04), d, "cx7-ib", "ep", 0, 16.0, 16, label="NIC a",
       rdma=ib_port("ibp4s0", "10.100.0.9/24", 0x1))
    d = fn(t, bdf(0x02, 2), s1, "pex88096", "down", 0, 16.0, 16, acs=0, label="S1 down")
    s2 = fn(t, bdf(0x05), d, "pex88096", "up", 0, 16.0, 16, label="S2 up")
    d = fn(t, bdf(0x06, 0), s2, "pex88096", "down", 0, 16.0, 16, acs=0, label="S2 down")
    fn(t, bdf(0x07), d, "a100", "ep", 0, 16.0, 16, label="GPU B")
    d = fn(t, bdf(0x06, 1), s2, "pex88096", "down", 0, 16.0, 16, acs=0, label="S2 down")
    fn(t, bdf(0x08, 0, 0), d, "cx7-ib", "ep", 0, 16.0, 16, multifn=True, label="NIC b port 0",
       rdma=ib_port("ibp8s0f0", "10.100.1.9/24", 0x2))
    fn(t, bdf(0x08, 0, 1), d, "cx7-ib", "ep", 0, 16.0, 16, multifn=True, label="NIC b port 1",
       rdma=ib_port("ibp8s0f1", "10.100.2.9/24", 0x3))
    fn(t, bdf(0x00, 5), None, "a100", "rciep", 0, None, 0, label="GPU D")
    rp = fn(t, bdf(0x10, 1), None, "icx-rp", "root", 0, 16.0, 16, acs=0)
    fn(t, bdf(0x11), rp, "a100", "ep", 0, 16.0, 16, label="GPU C")
    rp = fn(t, bdf(0x80, 1), None, "icx-rp", "root", 1, 16.0, 16, acs=0)
    fn(t, bdf(0x81), rp, "cx7-ib", "ep", 1, 16.0, 16, label="NIC mlx5_3",
       rdma=ib_port("ibp129s0", "10.100.3.9/24", 0x4))
    n.meta_extra = dict(nvml="not loaded: libnvidia-ml.so.1: cannot open shared object file",
                        cuda="not loaded: libcuda.so.1: cannot open shared object file",
                        nccl="not loaded: libnccl.so.2: cannot open shared object file")
    return n


# --------------------------------------------------------------------------
# SCENARIO gb10-spark (a multi-host ConnectX-7)
# --------------------------------------------------------------------------
# An NVIDIA DGX Spark (GB10): its ConnectX-7 serves each of its two 200 GbE
# ports through two PCIe functions, one on each of two Gen5 x4 links in two
# PCI domains: 0000:01:00.0/.1 and 0002:01:00.0/.1 (ServeTheHome,
# https://www.servethehome.com/the-nvidia-gb10-connectx-7-200gbe-networking-is-really-different;
# LnkSta 32GT/s x4 on all four in
# https://forums.developer.nvidia.com/t/asus-ascent-gx10-second-connectx-7-pcie-slot-wired-at-gen5-x2-instead-of-x4-50-bandwidth-loss-vs-dgx-spark-fe/367853).
# The names are the udev ones: rocep1s0f0 -> enp1s0f0np0, roceP2p1s0f0 ->
# enP2p1s0f0np0 (NVIDIA's dgx-spark-playbooks, connect-two-sparks
# performance_benchmarking_guide.md, where port 1 is cabled and port 2 is
# not). All four report one sys_image_guid, the first function's node GUID
# (ibstat in https://github.com/geerlingguy/sbc-reviews/issues/92). One NUMA
# node, 20 Arm cores (10 Cortex-X925, 10 Cortex-A725); the integrated GPU is
# left out (its PCI identity is not what this scenario is about).


def build_gb10():
    n = Node("gb10-spark", "spark-01", "6.17.0-1014-nvidia", 0, True,
             "A DGX Spark (GB10) whose ConnectX-7 serves each 200 GbE port through two PCIe "
             "Gen5 x4 functions in two PCI domains (multi-host): each half is judged against "
             "its own link; port 2 has no cable.")
    n.cpu_model = ("arm", "0xd85", 1, "0xd87")   # X925 cores, then A725
    n.os_version = "#14-Ubuntu SMP PREEMPT_DYNAMIC"
    for c in range(20):
        n.cpus.append(dict(cpu=c, pkg=0, core=c, node=0))
    n.nodes = [dict(id=0, mem_kb=127535780)]
    n.distances = [[10]]
    t = n.pci
    for dom, ips in ((0, ("192.168.100.10/24", None)), (2, ("192.168.200.10/24", None))):
        rp = fn(t, bdf(0x00, 0, 0, dom=dom), None, "gb10-rp", "root", 0, 32.0, 4, acs=0)
        for f in (0, 1):
            up = f == 0
            name = ("enP%dp1s0f%dnp%d" % (dom, f, f)) if dom else ("enp1s0f%dnp%d" % (f, f))
            ib = ("roceP%dp1s0f%d" % (dom, f)) if dom else ("rocep1s0f%d" % f)
            port = eth_port(name, ips[f], "200 Gb/sec (4X HDR)", 200000, up=up)
            port["ibdev"] = ib
            if not up:
                # No cable, never up: Disabled, and link_downed never counted.
                port["phys"] = "3: Disabled"
                port["counters"] = {"link_downed": 0}
            fn(t, bdf(0x01, 0, f, dom=dom), rp, "cx7-gb10", "ep", 0, 32.0, 4, multifn=True,
               card=bdf(0x01, 0, 0, dom=0) if dom else None,
               label="CX-7 port %d, %s link" % (f + 1, "first" if dom == 0 else "second"), rdma=port)
    n.meta_extra = dict(nvml="not loaded: libnvidia-ml.so.1: cannot open shared object file",
                        cuda="not loaded: libcuda.so.1: cannot open shared object file",
                        nccl="not loaded: libnccl.so.2: cannot open shared object file")
    n.devices = all_uverbs_ok(4)
    return n


# --------------------------------------------------------------------------
# Derived facts: bus ranges, sysfs paths, RDMA names, MACs
# --------------------------------------------------------------------------


def resolve(n):
    by = {d["bdf"]: d for d in n.pci}
    for d in n.pci:
        d["children"] = [c for c in n.pci if c["parent"] == d["bdf"]]
        chain, p = [], d["parent"]
        while p:
            chain.insert(0, p)
            p = by[p]["parent"]
        d["chain"] = chain
        top = chain[0] if chain else d["bdf"]
        d["hostbridge"] = "pci%s:%s" % (top[:4], top[5:7])
        d["sysdir"] = "sys/devices/%s/%s" % (d["hostbridge"], "/".join(chain + [d["bdf"]]))

    def max_bus(d):
        return max([bus_of(d["bdf"])] + [max_bus(c) for c in d["children"]])

    for d in n.pci:
        if d["role"] in BRIDGE_ROLES:
            secs = {bus_of(c["bdf"]) for c in d["children"]}
            assert len(secs) == 1, "%s: children on several buses" % d["bdf"]
            d["secondary"] = secs.pop()
            d["subordinate"] = max(max_bus(c) for c in d["children"])
            assert d["secondary"] > bus_of(d["bdf"])

    # The kernel names RDMA devices in probe order, which is ascending BDF.
    rdma = sorted((d for d in n.pci if d["rdma"]), key=lambda d: d["bdf"])
    oui = {"cx7-ib": "b8:3f:d2", "cx7-eth": "b8:3f:d2", "cx6dx": "0c:42:a1", "cx7-gb10": "48:21:0b"}
    # dgx-h100's mlx5_0 gets the GUID b83f:d203:00a4:1c3e used in the docs.
    base = 0xa41c3e if n.name == "dgx-h100" else rnd(n.key, 0x100000, 0xefffff) & ~0xff
    for i, d in enumerate(rdma):
        d["ibdev"] = d["rdma"].get("ibdev") or "mlx5_%d" % i
        d["uverbs"] = "uverbs%d" % i
        low = base + i * 0x10
        mac = "%s:%02x:%02x:%02x" % (oui[d["part"]], low >> 16, (low >> 8) & 0xff, low & 0xff)
        n.macs[d["bdf"]] = mac
        m = bytes.fromhex(mac.replace(":", ""))
        d["guid"] = m[:3] + b"\x03\x00" + m[3:]
    # sys_image_guid: one per adapter, the GUID of function 0 (of the card's
    # first link, for a multi-host card: card=BDF of that function).
    for d in rdma:
        f0 = by[d.get("card") or d["bdf"][:-1] + "0"]
        d["sysguid"] = f0.get("guid", d["guid"])

    # ifindex: lo is 1, then netdevs in PCI order.
    nds = sorted((d for d in n.pci if d["rdma"] or d["netdev"]), key=lambda d: d["bdf"])
    for i, d in enumerate(nds):
        nd = d["rdma"]["nd"] if d["rdma"] else d["netdev"]
        nd["ifindex"] = 2 + i
        nd["up"] = d["rdma"]["up"] if d["rdma"] else True
        nd["ib"] = bool(d["rdma"]) and d["rdma"]["ll"] == "InfiniBand"
        d["nd"] = nd


# --------------------------------------------------------------------------
# The writer
# --------------------------------------------------------------------------


class Tree:
    def __init__(self, root):
        self.root = root

    def p(self, rel):
        return os.path.join(self.root, rel)

    def write(self, rel, data):
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(data, str):
            data = data.encode()
        with open(path, "wb") as f:
            f.write(data)

    def line(self, rel, value):
        """A sysfs attribute: one value and a newline."""
        self.write(rel, "%s\n" % value)

    def link(self, rel, target):
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(target, path)

    def rlink(self, rel, target_rel):
        """Symlink at rel to target_rel (both root-relative), written relative."""
        self.link(rel, os.path.relpath(target_rel, os.path.dirname(rel)))

    def json(self, rel, obj):
        self.write(rel, json.dumps(obj, indent=2) + "\n")


def config_space(d, nbytes):
    """The config space as the kernel's sysfs `config` file returns it."""
    part = PARTS[d["part"]]
    c = bytearray(4096)
    bridge = d["role"] in BRIDGE_ROLES
    struct.pack_into("<HHHH", c, 0x00, part["vendor"], part["device"],
                     0x0407 if bridge else 0x0406,   # command: io/mem/bus master
                     0x0010)                          # status: capabilities list
    c[0x08] = part["rev"]
    c[0x09], c[0x0a], c[0x0b] = part["cls"] & 0xff, (part["cls"] >> 8) & 0xff, part["cls"] >> 16
    c[0x0c] = 0x10                                    # cache line, 64 bytes
    c[0x0e] = (0x01 if bridge else 0x00) | (0x80 if d["multifn"] else 0)
    if bridge:
        c[0x18], c[0x19], c[0x1a] = bus_of(d["bdf"]), d["secondary"], d["subordinate"]
    else:
        struct.pack_into("<HH", c, 0x2c, *part["sub"])
        c[0x3d] = 1                                   # INTA
    c[0x34] = 0x40
    # PCI Express capability (v2) at 0x40.
    ptype = PCIE_TYPE[d["role"]]
    c[0x40], c[0x41] = 0x10, 0x00
    slot = 0x100 if d["role"] in ("root", "down") else 0
    struct.pack_into("<H", c, 0x42, 0x2 | ptype << 4 | slot)
    struct.pack_into("<I", c, 0x44, 0x10008022 if not bridge else 0x00008022)   # DevCap
    struct.pack_into("<H", c, 0x48, 0x2930)           # DevCtl: MPS 256, MRRS 512
    if d["role"] != "rciep":                          # an RCiEP has no link
        scap, ccur = SPEED_CODE[d["speed"]], SPEED_CODE[d["cur_speed"]]
        port = (int(d["bdf"][8:10], 16) + 1) << 24 if d["role"] in ("root", "down") else 0
        dll = 0x100000 if d["role"] in ("root", "down") else 0
        struct.pack_into("<I", c, 0x4c, scap | d["width"] << 4 | 0x400000 | dll | port)  # LnkCap
        struct.pack_into("<H", c, 0x50, 0x0040)       # LnkCtl: common clock
        sta = ccur | d["cur_width"] << 4 | 0x1000 | (0x2000 if dll else 0)
        struct.pack_into("<H", c, 0x52, sta)          # LnkSta
        struct.pack_into("<I", c, 0x6c, ((1 << scap) - 1) << 1)   # LnkCap2: speeds vector
        struct.pack_into("<H", c, 0x70, scap)         # LnkCtl2: target speed
        struct.pack_into("<H", c, 0x72, 0x1e if ccur >= 3 else 0)  # LnkSta2: EQ complete
    if d["acs"] is not None:
        # ACS extended capability at 0x100, the only one in the list.
        struct.pack_into("<I", c, 0x100, 0x000d | 1 << 16)
        struct.pack_into("<HH", c, 0x104, 0x005f if d["role"] == "down" else 0x001f, d["acs"])
    return bytes(c[:nbytes])


def write_pci(tr, n, d):
    part, s = PARTS[d["part"]], d["sysdir"]
    tr.line(s + "/class", "0x%06x" % part["cls"])
    tr.line(s + "/vendor", "0x%04x" % part["vendor"])
    tr.line(s + "/device", "0x%04x" % part["device"])
    tr.line(s + "/subsystem_vendor", "0x%04x" % part["sub"][0])
    tr.line(s + "/subsystem_device", "0x%04x" % part["sub"][1])
    tr.line(s + "/revision", "0x%02x" % part["rev"])
    tr.line(s + "/numa_node", d["numa"])
    cpus = n.node_cpus(d["numa"])
    tr.line(s + "/local_cpulist", cpulist(cpus))
    tr.line(s + "/local_cpus", cpumask(cpus, len(n.cpus)))
    tr.line(s + "/current_link_speed", SPEED_TEXT[d["cur_speed"]])
    tr.line(s + "/current_link_width", d["cur_width"])
    tr.line(s + "/max_link_speed", SPEED_TEXT[d["speed"]])
    tr.line(s + "/max_link_width", d["width"])
    tr.line(s + "/irq", 0)
    tr.line(s + "/enable", 1)
    # 13 resource lines for endpoints, 17 for bridges (all unassigned here).
    tr.write(s + "/resource", "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
             * (17 if d["role"] in BRIDGE_ROLES else 13))
    modalias = "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X" % (
        part["vendor"], part["device"], part["sub"][0], part["sub"][1],
        part["cls"] >> 16, (part["cls"] >> 8) & 0xff, part["cls"] & 0xff)
    tr.line(s + "/modalias", modalias)
    tr.write(s + "/uevent", "DRIVER=%s\nPCI_CLASS=%X\nPCI_ID=%04X:%04X\nPCI_SUBSYS_ID=%04X:%04X\n"
             "PCI_SLOT_NAME=%s\nMODALIAS=%s\n" % (part["driver"], part["cls"], part["vendor"],
                                                 part["device"], part["sub"][0], part["sub"][1],
                                                 d["bdf"], modalias))
    tr.write(s + "/config", config_space(d, n.config_bytes))
    if d["role"] in BRIDGE_ROLES:
        tr.line(s + "/secondary_bus_number", d["secondary"])
        tr.line(s + "/subordinate_bus_number", d["subordinate"])
    if "totalvfs" in part:
        tr.line(s + "/sriov_totalvfs", part["totalvfs"])
        tr.line(s + "/sriov_numvfs", 0)
    # Driver binding, both directions, as the kernel links them.
    drv = "sys/bus/pci/drivers/" + part["driver"]
    tr.rlink(s + "/driver", drv)
    tr.rlink(drv + "/" + d["bdf"], s)
    tr.rlink("sys/bus/pci/devices/" + d["bdf"], s)


def port_counters(key, up, busy):
    """Standard IB PMA counters (the data counters count 4-octet words)."""
    data_x = rnd(key + "tx", 10 ** 12, 9 * 10 ** 12) if busy else rnd(key + "tx", 10 ** 6, 10 ** 7)
    data_r = rnd(key + "rx", 10 ** 12, 9 * 10 ** 12) if busy else rnd(key + "rx", 10 ** 6, 10 ** 7)
    pk_x, pk_r = data_x // 1000, data_r // 1000
    mc_x, mc_r = rnd(key + "mx", 1000, 9000), rnd(key + "mr", 1000, 90000)
    return {
        "VL15_dropped": 0,
        "excessive_buffer_overrun_errors": 0,
        "link_downed": 0 if up else 1,
        "link_error_recovery": 0,
        "local_link_integrity_errors": 0,
        "multicast_rcv_packets": mc_r,
        "multicast_xmit_packets": mc_x,
        "port_rcv_constraint_errors": 0,
        "port_rcv_data": data_r,
        "port_rcv_errors": 0,
        "port_rcv_packets": pk_r,
        "port_rcv_remote_physical_errors": 0,
        "port_rcv_switch_relay_errors": 0,
        "port_xmit_constraint_errors": 0,
        "port_xmit_data": data_x,
        "port_xmit_discards": 0,
        "port_xmit_packets": pk_x,
        "port_xmit_wait": rnd(key + "wait", 10 ** 5, 10 ** 7) if busy else 0,
        "symbol_error": 0,
        "unicast_rcv_packets": max(0, pk_r - mc_r),   # sysfs prints unsigned values
        "unicast_xmit_packets": max(0, pk_x - mc_x),
    }


def hw_counters(key, roce, busy):
    """mlx5 hw_counters; the congestion-control ones exist on RoCE ports only."""
    h = {
        "duplicate_request": 0,
        "implied_nak_seq_err": 0,
        "lifespan": 10,
        "local_ack_timeout_err": 0,
        "out_of_buffer": 0,
        "out_of_sequence": rnd(key + "oos", 0, 40) if busy else 0,
        "packet_seq_err": 0,
        "req_cqe_error": 0,
        "req_cqe_flush_error": rnd(key + "fl", 0, 12) if busy else 0,
        "req_remote_access_errors": 0,
        "req_remote_invalid_request": 0,
        "resp_cqe_error": 0,
        "resp_cqe_flush_error": 0,
        "resp_local_length_error": 0,
        "resp_remote_access_errors": 0,
        "rnr_nak_retry_err": 0,
        "rx_atomic_requests": 0,
        "rx_dct_connect": 0,
        "rx_read_requests": rnd(key + "rr", 10 ** 5, 10 ** 7) if busy else 0,
        "rx_write_requests": rnd(key + "rw", 10 ** 7, 10 ** 9) if busy else 0,
    }
    if roce:
        h.update({
            "np_cnp_sent": rnd(key + "cnp", 100, 5000) if busy else 0,
            "np_ecn_marked_roce_packets": rnd(key + "ecn", 100, 5000) if busy else 0,
            "roce_adp_retrans": 0,
            "roce_adp_retrans_to": 0,
            "roce_slow_restart": 0,
            "roce_slow_restart_cnps": 0,
            "roce_slow_restart_trans": 0,
            "rp_cnp_handled": rnd(key + "cnph", 100, 5000) if busy else 0,
            "rp_cnp_ignored": 0,
            "rx_icrc_encapsulated": 0,
        })
    return dict(sorted(h.items()))


def gid(bs):
    return colon_hex(bs, 4)


def counter_values(n, d):
    """The port's counters/ and hw_counters/ values, with its overrides."""
    r = d["rdma"]
    key, busy = n.name + d["ibdev"], r["up"]
    pc = port_counters(key, r["up"], busy)
    pc.update(r.get("counters", {}))
    hc = hw_counters(key, r["ll"] != "InfiniBand", busy)
    hc.update(r.get("hw_counters", {}))
    return pc, hc


def write_rdma(tr, n, d):
    r, name, s = d["rdma"], d["ibdev"], d["sysdir"]
    part = PARTS[d["part"]]
    ib = r["ll"] == "InfiniBand"
    base = s + "/infiniband/" + name
    tr.line(base + "/node_guid", colon_hex(d["guid"], 4))
    tr.line(base + "/sys_image_guid", colon_hex(d["sysguid"], 4))
    tr.line(base + "/fw_ver", part["fw"])
    tr.line(base + "/board_id", part["board"])
    tr.line(base + "/hca_type", part["hca"])
    tr.line(base + "/hw_rev", "0x0")
    tr.line(base + "/node_type", "1: CA")
    tr.line(base + "/node_desc", "%s %s" % (n.host, name))
    tr.link(base + "/device", "../../../" + d["bdf"])
    p = base + "/ports/1"
    tr.line(p + "/state", "4: ACTIVE" if r["up"] else "1: DOWN")
    tr.line(p + "/phys_state", r.get("phys") or ("5: LinkUp" if r["up"] else "2: Polling"))
    tr.line(p + "/rate", r["rate"])
    tr.line(p + "/link_layer", r["ll"])
    tr.line(p + "/lid", "0x%04x" % r["lid"])
    tr.line(p + "/sm_lid", "0x0001" if ib else "0x0000")
    tr.line(p + "/sm_sl", 0)
    tr.line(p + "/lid_mask_count", 0)
    tr.line(p + "/cap_mask", "0xa751e848" if ib else "0x04010000")
    tr.line(p + "/pkeys/0", "0xffff")
    nd = r["nd"]
    gids = [bytes(16)] * 8
    if ib:
        gids[0] = bytes.fromhex("fe80000000000000") + d["guid"]
    else:
        # The default GIDs (link-local, from the MAC) in slots 0 and 1, then one
        # v1/v2 pair per IPv4 address, then those of upper devices (macvlan).
        ll = bytes.fromhex("fe80000000000000") + eui64_from_mac(n.macs[d["bdf"]])
        ents = [(ll, nd["name"]), ]
        if nd["ipv4"]:
            v4 = ipaddress.IPv4Interface(nd["ipv4"]).ip.packed
            ents.append((bytes(10) + b"\xff\xff" + v4, nd["name"]))
        ents += r.get("upper_gids", [])
        slot = 0
        for g, dev in ents:
            # Only filled GID slots have attributes; reading an empty one is EINVAL.
            for ty in ("IB/RoCE v1", "RoCE v2"):
                gids[slot] = g
                tr.line(p + "/gid_attrs/types/%d" % slot, ty)
                tr.line(p + "/gid_attrs/ndevs/%d" % slot, dev)
                slot += 1
    for i, g in enumerate(gids):
        tr.line(p + "/gids/%d" % i, gid(g))
    pc, hc = counter_values(n, d)
    for k, v in pc.items():
        tr.line(p + "/counters/" + k, v)
    for k, v in hc.items():
        tr.line(p + "/hw_counters/" + k, v)
    if "tclass" in r:
        # MLNX_OFED's mlx5_ib makes tc/<port>/traffic_class for every port:
        # traffic_class_show() prints "Global tclass=%d\n" once one is set
        # (echo 106 > ...: every QP of the port then carries it), nothing
        # before (https://github.com/openucx/ucx/pull/11105 shows the file).
        tr.write(base + "/tc/1/traffic_class",
                 "" if r["tclass"] is None else "Global tclass=%d\n" % r["tclass"])
    tr.rlink("sys/class/infiniband/" + name, base)
    # uverbs character device, as libibverbs finds devices without netlink.
    u = s + "/infiniband_verbs/" + d["uverbs"]
    tr.line(u + "/ibdev", name)
    tr.line(u + "/abi_version", 1)
    tr.line(u + "/dev", "231:%d" % (192 + int(d["uverbs"][6:])))
    tr.link(u + "/device", "../../../" + d["bdf"])
    tr.rlink("sys/class/infiniband_verbs/" + d["uverbs"], u)


def write_netdev(tr, n, d):
    nd, s = d["nd"], d["sysdir"]
    base = s + "/net/" + nd["name"]
    if nd["ib"]:
        # IPoIB hardware address (20 bytes): flags, 24-bit QPN, port GID.
        addr = colon_hex(bytes.fromhex("00%06x" % (0x1049 + nd["ifindex"] * 8)) +
                         bytes.fromhex("fe80000000000000") + d["guid"], 2)
        bcast = "00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff"
        typ, alen, txq = 32, 20, 256
    else:
        addr, bcast, typ, alen, txq = n.macs[d["bdf"]], "ff:ff:ff:ff:ff:ff", 1, 6, 1000
    up = nd["up"]
    vals = [("addr_assign_type", 0), ("addr_len", alen), ("address", addr), ("broadcast", bcast),
            ("carrier", 1 if up else 0), ("dev_id", "0x0"), ("dev_port", 0),
            ("duplex", "full" if up else "unknown"), ("flags", "0x1003"),
            ("ifindex", nd["ifindex"]), ("iflink", nd["ifindex"]), ("mtu", nd["mtu"]),
            ("operstate", "up" if up else "down"), ("speed", nd["speed"] if up else -1),
            ("tx_queue_len", txq), ("type", typ)]
    if nd.get("phys_port_name"):
        vals.append(("phys_port_name", nd["phys_port_name"]))
    for k, v in vals:
        tr.line(base + "/" + k, v)
    tr.link(base + "/device", "../../../" + d["bdf"])
    tr.rlink("sys/class/net/" + nd["name"], base)
    if nd.get("qos"):
        write_qos(tr, base, nd["qos"])


# DCQCN reaction/notification point parameters as MLNX_OFED's mlx5_core shows
# them under ecn/roce_rp/ and ecn/roce_np/ (firmware defaults, as mlxconfig
# lists them: RPG_TIME_RESET_P1 300, ..., CNP_DSCP_P1 48).
ECN_RP_PARAMS = [("clamp_tgt_rate", 0), ("clamp_tgt_rate_after_time_inc", 1), ("dce_tcp_g", 1019),
                 ("dce_tcp_rtt", 1), ("initial_alpha_value", 1023), ("rate_reduce_monitor_period", 4),
                 ("rate_to_set_on_first_cnp", 0), ("rpg_ai_rate", 5), ("rpg_byte_reset", 32767),
                 ("rpg_gd", 11), ("rpg_hai_rate", 50), ("rpg_max_rate", 0), ("rpg_min_dec_fac", 50),
                 ("rpg_min_rate", 1), ("rpg_threshold", 1), ("rpg_time_reset", 300)]
ECN_NP_PARAMS = [("cnp_802p_prio", 6), ("cnp_dscp", 48), ("min_time_between_cnps", 4)]


def qos(pfc=(3,), np=(3,), rp=(3,), trust="dscp"):
    """RoCE QoS of one netdev: priorities with PFC, ECN NP and ECN RP enabled."""
    return dict(trust=trust, pfc=set(pfc), np=set(np), rp=set(rp))


def write_qos(tr, base, q):
    """MLNX_OFED's sysfs QoS folders of an mlx5 netdev (upstream mlx5 has none:
    there it is DCB netlink only).  Formats: qos/trust is the word, as mlnx_qos
    reads it (f.read() minus the newline); qos/maxrate is "%lld " per TC and a
    newline; qos/prio2buffer a "Priority\tBuffer" table; ecn/<proto>/enable/<prio>
    is "%d\n".  qos/pfc is not a file any mlx5 driver version we could find
    creates (PFC is read over DCB netlink); it is written here as one 0/1 per
    priority, space separated, the way mlnx_qos prints its "enabled" row."""
    tr.line(base + "/qos/trust", q["trust"])
    tr.line(base + "/qos/pfc", " ".join("1" if p in q["pfc"] else "0" for p in range(8)))
    tr.line(base + "/qos/maxrate", "0 " * 8)
    tr.write(base + "/qos/prio2buffer", "Priority\tBuffer\n" + "".join(
        "%d\t\t%d\n" % (p, 1 if p in q["pfc"] else 0) for p in range(8)))
    for proto, on, params in (("roce_np", q["np"], ECN_NP_PARAMS), ("roce_rp", q["rp"], ECN_RP_PARAMS)):
        e = base + "/ecn/" + proto
        for p in range(8):
            tr.line("%s/enable/%d" % (e, p), 1 if p in on else 0)
        for k, v in params:
            tr.line(e + "/" + k, v)


def write_virt_netdev(tr, v):
    """A virtual interface (veth, macvlan): /sys/devices/virtual/net/<name>, no
    device link.  iflink is the peer's or the lower device's ifindex, which may
    be in another network namespace."""
    base = "sys/devices/virtual/net/" + v["name"]
    for k, val in [("addr_assign_type", 1), ("addr_len", 6), ("address", v["mac"]),
                   ("broadcast", "ff:ff:ff:ff:ff:ff"), ("carrier", 1), ("dev_id", "0x0"),
                   ("dev_port", 0), ("duplex", "full"), ("flags", "0x1003"), ("ifindex", v["ifindex"]),
                   ("iflink", v["iflink"]), ("mtu", v["mtu"]), ("operstate", "up"),
                   ("speed", v["speed"]), ("tx_queue_len", v.get("txq", 1000)), ("type", 1)]:
        tr.line(base + "/" + k, val)
    tr.rlink("sys/class/net/" + v["name"], base)


def write_lo(tr):
    base = "sys/devices/virtual/net/lo"
    for k, v in [("addr_assign_type", 0), ("addr_len", 6), ("address", "00:00:00:00:00:00"),
                 ("broadcast", "00:00:00:00:00:00"), ("carrier", 1), ("dev_id", "0x0"),
                 ("dev_port", 0), ("flags", "0x9"), ("ifindex", 1), ("iflink", 1),
                 ("mtu", 65536), ("operstate", "unknown"), ("tx_queue_len", 1000), ("type", 772)]:
        tr.line(base + "/" + k, v)
    tr.rlink("sys/class/net/lo", base)


def write_cpus(tr, n):
    ncpu = len(n.cpus)
    allc = [c["cpu"] for c in n.cpus]
    sysc = "sys/devices/system/cpu"
    for f in ("online", "possible", "present"):
        tr.line(sysc + "/" + f, cpulist(allc))
    tr.line(sysc + "/kernel_max", 8191)
    for c in n.cpus:
        sib = [o["cpu"] for o in n.cpus if o["pkg"] == c["pkg"] and o["core"] == c["core"]]
        pkg = [o["cpu"] for o in n.cpus if o["pkg"] == c["pkg"]]
        t = "%s/cpu%d/topology" % (sysc, c["cpu"])
        tr.line(t + "/physical_package_id", c["pkg"])
        tr.line(t + "/die_id", 0)
        tr.line(t + "/core_id", c["core"])
        for name, cpus in (("core_cpus", sib), ("thread_siblings", sib), ("die_cpus", pkg),
                           ("package_cpus", pkg), ("core_siblings", pkg)):
            tr.line("%s/%s" % (t, name), cpumask(cpus, ncpu))
            tr.line("%s/%s_list" % (t, name), cpulist(cpus))
    nodes = [x["id"] for x in n.nodes]
    sysn = "sys/devices/system/node"
    for f in ("online", "possible", "has_cpu", "has_memory", "has_normal_memory"):
        tr.line(sysn + "/" + f, cpulist(nodes))
    for x, dist in zip(n.nodes, n.distances):
        cpus = n.node_cpus(x["id"])
        b = "%s/node%d" % (sysn, x["id"])
        tr.line(b + "/cpulist", cpulist(cpus))
        tr.line(b + "/cpumap", cpumask(cpus, ncpu))
        tr.line(b + "/distance", " ".join(map(str, dist)))
        used = x["mem_kb"] // 23
        tr.write(b + "/meminfo",
                 "Node %d MemTotal:       %d kB\nNode %d MemFree:        %d kB\n"
                 "Node %d MemUsed:        %d kB\nNode %d HugePages_Total:     0\n"
                 "Node %d HugePages_Free:      0\n" %
                 (x["id"], x["mem_kb"], x["id"], x["mem_kb"] - used, x["id"], used, x["id"], x["id"]))
    # /proc/cpuinfo, trimmed to the fields hwloc and people read.
    fam, model, step, mname = n.cpu_model
    out = []
    if fam == "arm":
        # An arm64 kernel's /proc/cpuinfo: no model name, the implementer and part.
        for c in n.cpus:
            out.append("processor\t: %d\nBogoMIPS\t: 2000.00\nCPU implementer\t: 0x41\n"
                       "CPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: %s\nCPU revision\t: %d\n\n"
                       % (c["cpu"], model if c["core"] < 10 else mname, step))
        tr.write("proc/cpuinfo", "".join(out))
        total = sum(x["mem_kb"] for x in n.nodes)
        tr.write("proc/meminfo", "MemTotal:       %d kB\nMemFree:        %d kB\n" % (total, total - total // 23))
        return
    for c in n.cpus:
        nsib = sum(1 for o in n.cpus if o["pkg"] == c["pkg"])
        ncores = len({o["core"] for o in n.cpus if o["pkg"] == c["pkg"]})
        out.append("processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: %d\nmodel\t\t: %d\n"
                   "model name\t: %s\nstepping\t: %d\nphysical id\t: %d\nsiblings\t: %d\n"
                   "core id\t\t: %d\ncpu cores\t: %d\n\n" %
                   (c["cpu"], fam, model, mname, step, c["pkg"], nsib, c["core"], ncores))
    tr.write("proc/cpuinfo", "".join(out))
    total = sum(x["mem_kb"] for x in n.nodes)
    tr.write("proc/meminfo", "MemTotal:       %d kB\nMemFree:        %d kB\n" % (total, total - total // 23))


def netlink_json(n):
    links = [{"ifindex": 1, "name": "lo", "mtu": 65536, "operstate": "unknown",
              "flags": ["LOOPBACK", "UP", "LOWER_UP"], "addrs": ["127.0.0.1/8", "::1/128"]}]
    routes = []
    nds = sorted((d for d in n.pci if "nd" in d and not d["nd"].get("hidden")),
                 key=lambda d: d["nd"]["ifindex"])
    for d in nds:
        nd = d["nd"]
        addrs = [nd["ipv4"]] if nd["ipv4"] else []
        if nd["up"]:
            # IPv6 link-local appears once the link has carrier.
            if nd["ib"]:
                iid = bytes([d["guid"][0] ^ 2]) + d["guid"][1:]
            else:
                iid = eui64_from_mac(n.macs[d["bdf"]])
            addrs.append("%s/64" % ipaddress.IPv6Address(bytes.fromhex("fe80000000000000") + iid))
        links.append({"ifindex": nd["ifindex"], "name": nd["name"], "mtu": nd["mtu"],
                      "operstate": "up" if nd["up"] else "down",
                      "flags": ["BROADCAST", "MULTICAST", "UP"] + (["LOWER_UP"] if nd["up"] else []),
                      "addrs": addrs})
        if not nd["ipv4"]:
            continue
        net = ipaddress.IPv4Interface(nd["ipv4"]).network
        r = {"dst": str(net), "dev": nd["name"], "table": 254}
        if not nd["up"]:
            r["flags"] = ["linkdown"]
        routes.append(r)
    for v in sorted(n.virt_netdevs, key=lambda v: v["ifindex"]):
        ll = ipaddress.IPv6Address(bytes.fromhex("fe80000000000000") + eui64_from_mac(v["mac"]))
        links.append({"ifindex": v["ifindex"], "name": v["name"], "mtu": v["mtu"], "operstate": "up",
                      "flags": ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"],
                      "addrs": [v["ipv4"], "%s/64" % ll]})
        routes.append({"dst": str(ipaddress.IPv4Interface(v["ipv4"]).network), "dev": v["name"],
                       "table": 254})
    if n.gateway:
        routes.insert(0, {"dst": "default", "gateway": n.gateway[1], "dev": n.gateway[0], "table": 254})
    return {"links": links, "routes": routes,
            "rdma_netlink": n.rdma_netlink or {"available": True}}


def write_node(n, root):
    resolve(n)
    samples = timeline_samples(n) if n.timeline else None
    if os.path.lexists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    tr = Tree(root)
    for d in n.pci:
        write_pci(tr, n, d)
        if d["rdma"]:
            write_rdma(tr, n, d)
        if "nd" in d and not d["nd"].get("hidden"):
            write_netdev(tr, n, d)
    if any(d["rdma"] for d in n.pci):
        tr.line("sys/class/infiniband_verbs/abi_version", 6)
    write_lo(tr)
    for v in n.virt_netdevs:
        write_virt_netdev(tr, v)
    write_cpus(tr, n)
    for k, v in n.dmi.items():
        tr.line("sys/devices/virtual/dmi/id/" + k, v)
    if n.dmi:
        tr.rlink("sys/class/dmi/id", "sys/devices/virtual/dmi/id")
    tr.line("proc/sys/kernel/hostname", n.host)
    tr.line("proc/sys/kernel/osrelease", n.kernel)
    write_gdr(tr, n)
    meta = {"format": 1, "fabtop": FABTOP_VERSION, "host": n.host, "kernel": n.kernel,
            "time": n.time, "uid": n.uid, "samples": 0, "interval": 0}
    if samples:
        meta.update({"samples": len(samples["samples"]), "interval": samples["interval"]})
    meta["gdr_sysfs"] = True
    # The capture's own environment (collect_settings): none of NCCL's here;
    # a scenario sets some through meta_extra.
    meta["env"] = {}
    meta.update(n.meta_extra)
    meta.update({"demo": n.demo, "description": n.description})
    tr.json("fabtop/meta.json", meta)
    tr.json("fabtop/netlink.json", netlink_json(n))
    if n.nvml:
        tr.json("fabtop/nvml.json", n.nvml)
    if n.devices is not None:
        tr.json("fabtop/devices.json", n.devices)
    if samples:
        tr.write("fabtop/samples.json", samples_text(samples))
    if n.qps:
        tr.write("fabtop/rdma-qp.bin", qp_bytes(n))
    for p in n.procs:
        tr.json("fabtop/procs/%d.json" % p["pid"], p)
    if n.hwloc:
        make_hwloc(n, root)
        drop_cpu_tree(root)
    check(n, root)


def write_gdr(tr, n):
    """What fabtop reads for GPUDirect RDMA (gdr.h): each function's IOMMU group
    (one per function, as an ACS-isolating server has them), nvidia_peermem's
    version file (MODULE_VERSION(NV_VERSION_STRING)), and CUDA's answers."""
    if n.iommu:
        for i, d in enumerate(sorted(n.pci, key=lambda d: d["bdf"])):
            g = "sys/kernel/iommu_groups/%d" % i
            tr.line(g + "/type", n.iommu)
            tr.rlink(d["sysdir"] + "/iommu_group", g)
    if n.peermem:
        ver = (n.nvml or {}).get("driver", "550.90.07")
        tr.line("sys/module/nvidia_peermem/version", ver)
        tr.line("sys/module/nvidia_peermem/initstate", "live")
    if n.nvml:
        tr.json("fabtop/cuda.json", {"gpus": [
            {"bus_id": g["pci_bus_id"], "gpu_direct_rdma": True, "dma_buf": True}
            for g in n.nvml["gpus"]]})


def drop_cpu_tree(root):
    """Removes sys/devices/system/cpu/cpuN/ once hwloc.xml holds the CPUs:
    fabtop reads no file there when a capture has hwloc.xml (it falls back to
    HWLOC_FSROOT only without one), and on a 224-CPU node they are 3,000 of
    the capture's 6,000 members.  online/possible/present stay."""
    cpu = os.path.join(root, "sys/devices/system/cpu")
    for x in sorted(os.listdir(cpu)):
        if re.fullmatch(r"cpu[0-9]+", x):
            shutil.rmtree(os.path.join(cpu, x))


def pack(root, top, path, mtime):
    """root as the capture file path (members top/...), the same bytes for the
    same tree: members sorted (a folder before what it holds), owned by 0:0
    with no names, modes fixed, every time the snapshot's; gzip without a
    file name or a time."""
    rels = [""]
    for dp, dns, fns in os.walk(root):
        for x in dns + fns:
            rels.append(os.path.relpath(os.path.join(dp, x), root))
    tmp = path + ".tmp"
    with open(tmp, "wb") as raw, \
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in sorted(rels):
            p = os.path.join(root, rel) if rel else root
            ti = tarfile.TarInfo(top + "/" + rel if rel else top)
            ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = mtime, 0, 0, "", ""
            if os.path.islink(p):
                ti.type, ti.mode, ti.linkname = tarfile.SYMTYPE, 0o777, os.readlink(p)
                tar.addfile(ti)
            elif os.path.isdir(p):
                ti.type, ti.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(ti)
            else:
                ti.mode, ti.size = 0o644, os.path.getsize(p)
                with open(p, "rb") as f:
                    tar.addfile(ti, f)
    os.replace(tmp, path)


# --------------------------------------------------------------------------
# hwloc.xml, and the checks that the tree is a usable capture
# --------------------------------------------------------------------------


def hwloc_env(root):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HWLOC_")}
    env["HWLOC_FSROOT"] = os.path.abspath(root)
    # Only the tree may count: hwloc 2.9 still runs its x86 backend under an
    # fsroot (the caches of the machine running this script, by CPUID, clash
    # with the tree's CPUs: "intersection without inclusion"), and the plugins
    # of hwloc-plugins (pci, opencl, ...) look at this machine too.  no_os
    # adds the uname infos that fix_host_infos replaces.
    env["HWLOC_COMPONENTS"] = "linux,no_os,stop"
    return env


def fix_host_infos(n, text):
    """hwloc fills OSRelease/OSVersion/HostName/Architecture from uname() of the
    machine running lstopo, even under an fsroot; a capture made on the node
    would carry the node's own, and fabtop (not lstopo) as ProcessName."""
    for key, val in (("OSRelease", n.kernel), ("OSVersion", n.os_version),
                     ("HostName", n.host), ("Architecture", "x86_64"),
                     ("ProcessName", "fabtop")):
        text, k = re.subn(r'(<info name="%s" value=")[^"]*(")' % key,
                          lambda m: m.group(1) + val + m.group(2), text, count=1)
        if k != 1:
            sys.exit("mkscenarios: no %s info in hwloc's XML" % key)
    return text


def make_hwloc(n, root):
    xml = os.path.join(root, "fabtop", "hwloc.xml")
    try:
        r = subprocess.run(["lstopo-no-graphics", "--whole-io", "--of", "xml", "-"],
                           env=hwloc_env(root), capture_output=True, text=True)
    except FileNotFoundError:
        sys.exit("mkscenarios: lstopo-no-graphics not found (apt-get install hwloc)")
    if r.returncode != 0 or not r.stdout.startswith("<?xml"):
        sys.exit("mkscenarios: lstopo failed on %s (rc %d): %s" % (root, r.returncode, r.stderr.strip()))
    if r.stderr.strip():
        sys.exit("mkscenarios: lstopo warned on %s: %s" % (root, r.stderr.strip()))
    with open(xml, "w") as f:
        f.write(fix_host_infos(n, r.stdout))
    # The XML must load back.
    r = subprocess.run(["lstopo-no-graphics", "-i", xml, "--whole-io"], capture_output=True, text=True,
                       env={k: v for k, v in os.environ.items() if not k.startswith("HWLOC_")})
    if r.returncode != 0:
        sys.exit("mkscenarios: lstopo cannot read back %s: %s" % (xml, r.stderr.strip()))


def hwloc_census(xmlpath=None, root=None):
    """Counts and names of what hwloc found, from an XML file or an fsroot."""
    if xmlpath:
        tree = ET.parse(xmlpath)
    else:
        r = subprocess.run(["lstopo-no-graphics", "--whole-io", "--of", "xml", "-"],
                           env=hwloc_env(root), capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("mkscenarios: lstopo failed on %s: %s" % (root, r.stderr.strip()))
        tree = ET.ElementTree(ET.fromstring(r.stdout))
    objs = list(tree.iter("object"))
    count = lambda ty: sum(1 for o in objs if o.get("type") == ty)
    pci = {o.get("pci_busid") for o in objs if o.get("type") in ("PCIDev", "Bridge") and o.get("pci_busid")}
    osdev = {o.get("name") for o in objs if o.get("type") == "OSDev"}
    numa_cpus = {}
    for o in objs:
        if o.get("type") == "NUMANode":
            # hwloc writes "0x000000ff,0xffffffff": 32-bit groups, high first.
            numa_cpus[int(o.get("os_index"))] = int("".join(
                g.replace("0x", "").rjust(8, "0") for g in o.get("cpuset").split(",")), 16)
    return dict(numa=count("NUMANode"), package=count("Package"), core=count("Core"),
                pu=count("PU"), pci=pci, osdev=osdev, numa_cpus=numa_cpus)


def check(n, root):
    errs = []
    # Every symlink relative, resolving, and staying inside the tree.
    rootabs = os.path.realpath(root)
    for dp, dns, fns in os.walk(root):
        if not dns and not fns:
            errs.append("empty directory (capture never writes one): " + dp)
        for x in dns + fns:
            p = os.path.join(dp, x)
            if os.path.islink(p):
                t = os.readlink(p)
                real = os.path.realpath(p)
                if t.startswith("/"):
                    errs.append("absolute link %s -> %s" % (p, t))
                elif not os.path.exists(p):
                    errs.append("dangling link %s -> %s" % (p, t))
                elif not (real + "/").startswith(rootabs + "/"):
                    errs.append("link leaves the tree: %s -> %s" % (p, t))
    for b in os.listdir(os.path.join(root, "sys/bus/pci/devices")):
        p = os.path.join(root, "sys/bus/pci/devices", b)
        if not os.path.isfile(os.path.join(p, "config")):
            errs.append("no config behind " + p)
    for dp, _, fns in os.walk(os.path.join(root, "fabtop")):
        for x in fns:
            if x.endswith(".json"):
                try:
                    with open(os.path.join(dp, x)) as f:
                        json.load(f)
                except ValueError as e:
                    errs.append("%s: %s" % (x, e))
    # devices.json names only verbs nodes that sysfs has (infiniband_verbs/uverbsN).
    if n.devices is not None:
        for u in n.devices["uverbs"]:
            if not os.path.isfile(os.path.join(root, "sys/class/infiniband_verbs", u, "ibdev")):
                errs.append("devices.json names %s, which sysfs lacks" % u)
    # hwloc must see both NUMA nodes, every CPU, every PCI function and every
    # RDMA device and PCI netdev, from the XML when there is one.
    xml = os.path.join(root, "fabtop", "hwloc.xml")
    c = hwloc_census(xmlpath=xml if n.hwloc else None, root=root)
    want_pci = {d["bdf"] for d in n.pci}
    want_os = {d["ibdev"] for d in n.pci if d.get("ibdev")} | \
        {d["nd"]["name"] for d in n.pci if "nd" in d and not d["nd"].get("hidden")}
    ncores = len({(x["pkg"], x["core"]) for x in n.cpus})
    if c["numa"] != len(n.nodes) or c["pu"] != len(n.cpus) or c["core"] != ncores:
        errs.append("hwloc sees %d NUMA nodes, %d cores, %d PUs; want %d, %d, %d" %
                    (c["numa"], c["core"], c["pu"], len(n.nodes), ncores, len(n.cpus)))
    for nid, mask in sorted(c["numa_cpus"].items()):
        if mask != sum(1 << x for x in n.node_cpus(nid)):
            errs.append("hwloc NUMA node %d has cpuset %#x" % (nid, mask))
    if want_pci - c["pci"]:
        errs.append("hwloc misses PCI functions: " + " ".join(sorted(want_pci - c["pci"])))
    if want_os - c["osdev"]:
        errs.append("hwloc misses OS devices: " + " ".join(sorted(want_os - c["osdev"])))
    if errs:
        sys.exit("mkscenarios: %s is not right:\n  %s" % (root, "\n  ".join(errs)))
    print("%-11s %3d PCI functions, %d NUMA nodes, %d cores, %d PUs; hwloc sees all PCI, %d OS devices (%s)" %
          (n.name, len(c["pci"]), c["numa"], c["core"], c["pu"], len(c["osdev"]),
           "hwloc.xml" if n.hwloc else "fsroot"))


def summary(n):
    """One line per PCI function, for the log and for people writing tests."""
    for d in sorted(n.pci, key=lambda d: d["bdf"]):
        extra = ""
        if d.get("ibdev"):
            extra = "%s %s %s" % (d["ibdev"], d["nd"]["name"], d["rdma"]["ll"])
        elif "nd" in d:
            extra = d["nd"]["name"]
        print("  %s %-10s %-5s %-9s numa %d %s %s" % (d["bdf"], d["hostbridge"], d["role"], d["part"],
                                                    d["numa"], d["label"], extra))


# --------------------------------------------------------------------------
# SCENARIOS socket-fallback, wrong-gid, mtu-blackhole, far-nic (`fabtop learn`)
# --------------------------------------------------------------------------
# One classic failure each, as a node shows it: the job's processes with the
# settings they run with (fabtop/procs), the QPs those processes own
# (fabtop/rdma-qp.bin, the owner is the creating pid), and for the last two
# the counters over time.

def build_socket_fallback():
    """ib-8port's hardware, healthy, under a job whose ranks all carry
    NCCL_IB_DISABLE=1 (left over from an A/B test): NCCL's net transport is
    then its socket transport over NCCL_SOCKET_IFNAME (eno1, 10 GbE), so
    the job opens no RC QP on any HCA (only ib_core's SMI and GSI are
    there), and the 8 NDR ports stay idle while the job runs (NCCL docs,
    Environment Variables, NCCL_IB_DISABLE: "disable the IB/RoCE transport
    that is to be used by NCCL. Instead, NCCL will fallback to using IP
    sockets")."""
    n = ib_timeline_node(
        "socket-fallback", "hgx-sockets-demo",
        "An HGX H100 node on InfiniBand whose training job runs ten times slower than on its "
        "neighbours: the 8 NDR ports are healthy but idle, the job's processes set NCCL_IB_DISABLE=1, "
        "so NCCL sends over TCP sockets on the 10 GbE management interface eno1 and owns no QP.")
    n.title = "a job that runs on sockets"
    n.timeline = dict(interval=1.0, times=sample_times(), step=lambda rail, k, dt: traffic(0, 0, dt))
    n.qps = job_qps(per_hca=0)
    n.procs = job_procs(8, 16, "10.10.0.17", env={"NCCL_IB_DISABLE": "1"})
    return n


WG_INDEX = 2    # the GID slot the job names: ::ffff:<IPv4>, IB/RoCE v1 (3 is its RoCE v2 twin)


def build_wrong_gid():
    """A RoCE HGX node whose job sets NCCL_IB_GID_INDEX=2: on every port slot
    2 is the IPv4 GID of type RoCE v1 (write_rdma: the link-local pair in
    slots 0-1, the IPv4 pair in 2-3, v1 then v2 as mlx5 fills them).  RoCE
    v1 frames have no IP header (ethertype 0x8915), so a routed rail drops
    them: the QPs reach RTS, their sends time out (local_ack_timeout_err),
    and two of each HCA's QPs ran out of retries (ERR) (NVIDIA's RoCE docs:
    "RoCE v2 ... can be routed"; NCCL docs, NCCL_IB_GID_INDEX)."""
    def port(rail, ifname, ip):
        return roce_port(ifname, ip, hw_counters=dict(local_ack_timeout_err=14, packet_seq_err=0))
    n = roce_hgx_node(
        "wrong-gid", "roce-gid-demo",
        "An HGX H100 node on RoCE whose job never finishes its first all-reduce: every port is healthy "
        "and has an IPv4 RoCE v2 GID at index 3, but the job sets NCCL_IB_GID_INDEX=2, the RoCE v1 "
        "GID, which the routed rails cannot carry: its QPs time out and break.",
        3, 41, "b0:7b:25:de:52:10", port=port)
    n.title = "a job pinned to the wrong GID"
    n.qps = job_qps(lambda rail: {0: "ERR", 1: "ERR"})
    n.procs = job_procs(8, 16, "10.10.3.41", age_s=900,
                        env={"NCCL_IB_GID_INDEX": str(WG_INDEX), "NCCL_IB_TC": "106"})
    return n


# ---- mtu-blackhole ---------------------------------------------------------
# Every netdev has MTU 9000, so every RoCE port runs its largest MTU, 4096
# (active_mtu: the netdev MTU less FAB_ROCE_MTU_OVERHEAD, 96 bytes, rounded
# down to an IB MTU).  The leaf switch of rail BH_RAIL was replaced and its
# ports came back with the default 1500: frames of a 4096-byte RoCE payload
# are dropped there, silently (a switch drops what exceeds its port's MTU;
# RoCE has no ICMP "fragmentation needed" to tell anyone).  What still
# passes is what fits in 1500 bytes: ACKs, NCCL's small control writes.  So
# from step BH_AT mlx5_5's bulk traffic stops while small frames go on
# (rx_128_to_255_bytes_phy grows, rx_2048_to_4095_bytes_phy does not), each
# large send waits out its ACK timeout (local_ack_timeout_err +4 a second)
# and is sent again.  The node itself cannot see the switch's MTU: the
# wizard's layer 2 path probe (ping -M do -s 8972, then smaller) finds it
# live; the capture shows its mark.
BH_RAIL = 5
BH_AT = 12
BH_SMALL = 20000        # small frames a second each way, 200 bytes on average


def mtu_blackhole_step(rail, k, dt):
    if rail != BH_RAIL or k < BH_AT:
        return roce_step(320, 320, dt, 3)
    inc = roce_step(0, 0, dt, 3)
    px = int(BH_SMALL * dt)
    for where, name, v in (("counters", "port_xmit_packets", px), ("counters", "port_rcv_packets", px),
                           ("counters", "unicast_xmit_packets", px), ("counters", "unicast_rcv_packets", px),
                           ("counters", "port_xmit_data", px * 50), ("counters", "port_rcv_data", px * 50),
                           ("ethtool", "tx_packets_phy", px), ("ethtool", "rx_packets_phy", px),
                           ("ethtool", "tx_bytes_phy", px * 200), ("ethtool", "rx_bytes_phy", px * 200),
                           ("ethtool", "tx_vport_rdma_unicast_packets", px),
                           ("ethtool", "rx_vport_rdma_unicast_packets", px),
                           ("ethtool", "tx_vport_rdma_unicast_bytes", px * 200),
                           ("ethtool", "rx_vport_rdma_unicast_bytes", px * 200),
                           ("ethtool", "tx_prio3_packets", px), ("ethtool", "rx_prio3_packets", px),
                           ("ethtool", "tx_prio3_bytes", px * 200), ("ethtool", "rx_prio3_bytes", px * 200),
                           ("ethtool", "rx_128_to_255_bytes_phy", px),
                           ("hw_counters", "local_ack_timeout_err", int(4 * dt))):
        add(inc, where, name, v)
    return inc


def build_mtu_blackhole():
    n = roce_counter_node(
        "mtu-blackhole", "roce-mtu-demo",
        "An HGX H100 node on RoCE whose job stalls on one rail: every netdev has MTU 9000 and every "
        "port RoCE MTU 4096, but rail 5's leaf switch came back from a swap at MTU 1500; 12 s in, "
        "mlx5_5 moves only small frames while local_ack_timeout_err climbs: its 4 KB frames vanish "
        "on the path.",
        7, 31, "b0:7b:25:de:63:21", mtu_blackhole_step, 106)
    n.title = "a rail whose large frames vanish"
    n.qps = job_qps(lambda rail: {0: "ERR"} if rail == BH_RAIL else None)
    return n


# ---- far-nic ---------------------------------------------------------------
# A 2-socket PCIe server, 2 A100s and one ConnectX-6 Dx: GPU0 shares a PCIe
# switch with the NIC (PIX), GPU1 sits on the other socket (SYS).  NCCL uses
# GPUDirect RDMA only up to NCCL_NET_GDR_LEVEL (default PXB): GPU1's traffic
# is staged through host memory and crosses the CPU interconnect (NCCL docs,
# NCCL_NET_GDR_LEVEL; nvidia-smi topo -m legend for SYS).

def build_far_nic():
    n = Node("far-nic", "far-nic-demo", "6.1.0-26-amd64", 0, True,
             "A dual-socket PCIe server with 2 A100 GPUs and one ConnectX-6 Dx RoCE NIC: GPU0 shares a "
             "PCIe switch with the NIC, GPU1 sits on the other socket, so rank 1's traffic crosses the "
             "CPU interconnect through host memory without GPUDirect RDMA, and the job runs at its pace.",
             )
    n.title = "a GPU far from its NIC"
    n.cpu_model = (6, 106, 6, "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz")
    n.dmi = dict(sys_vendor="Supermicro", product_name="SYS-220GQ-TNAR+", product_version="0123456789",
                 board_vendor="Supermicro", board_name="X12DGQ-R", bios_vendor="American Megatrends International, LLC.",
                 bios_version="1.5", bios_date="10/02/2023")
    for c in range(64):
        n.cpus.append(dict(cpu=c, pkg=c // 32, core=c % 32, node=c // 32))
    n.nodes = [dict(id=0, mem_kb=263921276), dict(id=1, mem_kb=264211112)]
    n.distances = [[10, 20], [20, 10]]
    t = n.pci
    rp = fn(t, bdf(0x00, 1), None, "icx-rp", "root", 0, 16.0, 16, acs=0)
    up = fn(t, bdf(0x01), rp, "pex88096", "up", 0, 16.0, 16, label="PEX88096 up")
    d = fn(t, bdf(0x02, 0), up, "pex88096", "down", 0, 16.0, 16, acs=0)
    fn(t, bdf(0x03), d, "a100", "ep", 0, 16.0, 16, label="GPU0")
    d = fn(t, bdf(0x02, 1), up, "pex88096", "down", 0, 16.0, 16, acs=0)
    fn(t, bdf(0x04), d, "cx6dx", "ep", 0, 16.0, 16, label="NIC",
       rdma=eth_port("ens1f0np0", "10.0.1.9/24", "100 Gb/sec (4X EDR)", 100000))
    rp = fn(t, bdf(0x00, 0x1c), None, "pch-rp", "root", 0, 8.0, 4, acs=0)
    fn(t, bdf(0x05), rp, "x550", "ep", 0, 8.0, 4, label="mgmt NIC",
       netdev=dict(name="eno1", mtu=1500, ipv4="10.20.0.9/24", speed=10000))
    n.macs[bdf(0x05)] = "3c:ec:ef:5a:71:08"
    n.gateway = ("eno1", "10.20.0.1")
    rp = fn(t, bdf(0x80, 1), None, "icx-rp", "root", 1, 16.0, 16, acs=0)
    fn(t, bdf(0x81), rp, "a100", "ep", 1, 16.0, 16, label="GPU1")
    n.meta_extra = dict(nvml="not loaded: libnvidia-ml.so.1: cannot open shared object file",
                        cuda="not loaded: libcuda.so.1: cannot open shared object file",
                        nccl="not loaded: libnccl.so.2: cannot open shared object file")
    n.devices = all_uverbs_ok(1)
    # Both local ranks use the one NIC: each owns two of its QPs.
    n.qps = job_qps(owners=lambda rail: [JOB_PID, JOB_PID + 1])
    n.procs = job_procs(2, 4, "10.20.0.9", env={"NCCL_SOCKET_IFNAME": "eno1"})
    return n


# Short titles (the demo banner) of the older scenarios.
TITLES = {
    "dgx-h100": "a healthy DGX H100",
    "pcie-2numa": "a PCIe server with link faults",
    "ib-8port": "a healthy InfiniBand node",
    "roce-faults": "a RoCE node with seven faults",
    "roce-faults-pod": "the faulty RoCE node from a pod",
    "busy": "a healthy node in a training job",
    "hang": "a node whose job hangs",
    "congested": "a node on a congested fabric",
    "gb10-spark": "a DGX Spark's multi-host NIC",
    "pause-storm": "a node in a PFC pause storm",
    "lossless-mismatch": "a lossless path without PFC",
    "link-flap": "a link that flaps",
    "pinned": "counters pinned at their maximum",
}

# index.zh_CN: each scenario's description and title in Chinese.
ZH_INDEX = {
    "busy": ("一台运行训练任务的健康 HGX H100 InfiniBand 节点：8 个 NDR 端口每个方向都在跑 340-380 Gb/s，"
             "没有任何丢包、重传或拥塞计数器在增长。", "训练任务中的健康节点"),
    "congested": ("一台 RoCE 上的 HGX H100 节点，8 个健康的 400GbE ConnectX-7 端口，但网络拥塞："
                  "吞吐量只有 180-220 Gb/s，ECN 标记、CNP 和 port_xmit_wait 都在增长。", "拥塞网络上的节点"),
    "dgx-h100": ("一台健康的 NVIDIA DGX H100：8 块 H100 GPU 通过 4 个 NVSwitch 以 NVLink 互联，"
                 "每块 GPU 与自己的 400G NDR InfiniBand ConnectX-7 共用一个 PCIe 交换芯片。", "健康的 DGX H100"),
    "far-nic": ("一台双路 PCIe 服务器，2 块 A100 GPU、1 张 ConnectX-6 Dx RoCE 网卡：GPU0 与网卡共用 PCIe 交换芯片，"
                "GPU1 在另一个 CPU 插槽上，因此 rank 1 的流量不走 GPUDirect RDMA，要经主机内存跨越 CPU 互联，"
                "整个任务都被它拖慢。", "离网卡很远的 GPU"),
    "gb10-spark": ("一台 DGX Spark（GB10），其 ConnectX-7 的每个 200 GbE 端口由两个位于不同 PCI 域的 PCIe Gen5 x4 "
                   "功能提供（multi-host）：每一半按自己的链路评估；端口 2 没有插线缆。", "DGX Spark 的 multi-host 网卡"),
    "hang": ("一台 InfiniBand 上的 HGX H100 节点，训练任务卡住了：20 秒后 8 个端口中有 6 个流量降到零，"
             "同时这些端口上的 local_ack_timeout_err 和 packet_seq_err 不断增长。", "任务卡住的节点"),
    "ib-8port": ("一台健康的 InfiniBand HGX H100 节点：8 张单端口 400G NDR ConnectX-7 HCA，每张与一块 H100 共用一个 "
                 "PCIe 交换芯片，所有端口均为 Active，错误计数器干净。", "健康的 InfiniBand 节点"),
    "link-flap": ("一台 RoCE 上的 HGX H100 节点，mlx5_4 的链路在抖动：一分钟内其 FEC 前 BER 从 1e-9 升到 5e-4，"
                  "随后出现符号错误和 CRC 错误，链路断开 4 次（link_downed 从 0 到 4），快照时又恢复 up。",
                  "反复抖动的链路"),
    "lossless-mismatch": ("一台 RoCE 上的 HGX H100 节点，其无损路径并不无损：PFC 开在优先级 3 上，但任务的 NCCL_IB_TC=3 "
                          "让 6 个端口上的流量走优先级 0；mlx5_2 和 mlx5_5 上全局 traffic_class 106 覆盖了它，"
                          "而 mlx5_5 在 ECN 关闭、没有 CNP 的情况下收到 pause 帧。", "没有 PFC 的无损路径"),
    "mtu-blackhole": ("一台 RoCE 上的 HGX H100 节点，任务卡在一条 rail 上：所有 netdev 的 MTU 都是 9000，所有端口的 "
                      "RoCE MTU 都是 4096，但 rail 5 的 leaf 交换机更换后端口 MTU 回到了 1500；12 秒后 mlx5_5 只剩小帧"
                      "在传，local_ack_timeout_err 不断增长：它的 4 KB 帧在路径上消失了。", "大帧消失的 rail"),
    "pause-storm": ("一台处于 PFC pause 风暴中的 RoCE HGX H100 节点：mlx5_6 的主机 PCIe 写入停顿，它在优先级 3 上持续"
                    "发送 pause 直到 pause 风暴保护触发并丢包；mlx5_3 有 95% 的时间被暂停，只能发送 16 Gb/s 而不是 320。",
                    "PFC pause 风暴中的节点"),
    "pcie-2numa": ("一台双路 PCIe 服务器，4 块 A100 GPU、2 张 ConnectX-6 Dx RoCE 网卡：一张网卡协商在 x8，"
                   "另一张网卡端口 down，GPU0 所在交换端口开启了 ACS。", "有链路故障的 PCIe 服务器"),
    "pinned": ("一台 InfiniBand 上的 HGX H100 节点，PMA 计数器卡在最大值：mlx5_2 的 link_downed 为 255、"
               "port_xmit_discards 为 65535、excessive_buffer_overrun_errors 为 15，mlx5_5 的 symbol_error 为 65535，"
               "mlx5_6 的 symbol_error 每秒增长 120，在 31 秒时到顶。", "卡在最大值的计数器"),
    "roce-faults": ("一台 RoCE 上的 HGX H100 节点，8 张 ConnectX-7 400GbE 网卡中除 mlx5_0 外每张都埋了一个链路故障："
                    "端口 down、宽度减半、PCIe x8、MTU 4096、没有 IPv4 RoCE v2 GID、PFC 关闭，以及 ECN 关闭并伴有"
                    "符号错误。", "有七处故障的 RoCE 节点"),
    "roce-faults-pod": ("从使用共享 RDMA 设备插件的 Kubernetes pod 里看到的 roce-faults 节点：sysfs 中能看到所有 HCA，"
                        "但只有 uverbs0 和 uverbs1 能打开，uverbs2 被拒绝，主机的 netdev 不在 pod 的网络命名空间里。",
                        "从 pod 里看故障 RoCE 节点"),
    "socket-fallback": ("一台 InfiniBand 上的 HGX H100 节点，训练任务比邻居慢十倍：8 个 NDR 端口健康但空闲，"
                        "任务进程设置了 NCCL_IB_DISABLE=1，NCCL 于是经 10 GbE 管理网口 eno1 走 TCP socket，"
                        "不拥有任何 QP。", "走 socket 的任务"),
    "wrong-gid": ("一台 RoCE 上的 HGX H100 节点，任务的第一个 all-reduce 永远完不成：每个端口都健康，并在索引 3 上有 IPv4 "
                  "RoCE v2 GID，但任务设置了 NCCL_IB_GID_INDEX=2，即 RoCE v1 GID，路由化的 rail 无法承载它："
                  "QP 超时并出错。", "用错 GID 的任务"),
}


SCENARIOS = (build_dgx, build_pcie_2numa, build_ib_8port, build_roce_faults,
             lambda: build_roce_faults(pod=True), build_busy, build_hang, build_congested, build_gb10,
             build_pause_storm, build_lossless_mismatch, build_link_flap, build_pinned,
             build_socket_fallback, build_wrong_gid, build_mtu_blackhole, build_far_nic)


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: %s build/scenarios" % argv[0])
    out = argv[1].rstrip("/")
    if os.path.lexists(out) and not os.path.isfile(os.path.join(out, "index")):
        sys.exit("mkscenarios: %s exists but holds no index: not a directory this script made, "
                 "left alone (remove it or name another)" % out)
    new = out + ".tmp"
    if os.path.lexists(new):
        shutil.rmtree(new)
    os.makedirs(new)
    verbose = os.environ.get("MKSCENARIOS_VERBOSE")
    index, index_zh = [], []
    for build in SCENARIOS:
        n = build()
        n.title = n.title or TITLES.get(n.name, "")
        # The index is a line per scenario, and NAME a file name.
        assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", n.name) and n.demo, n.name
        assert not re.search(r"[\x00-\x1f]", n.description), n.name
        write_node(n, os.path.join(new, n.name))
        pack(os.path.join(new, n.name), n.name, os.path.join(new, n.name + ".tar.gz"), n.time)
        assert n.title and not re.search(r"[\x00-\x1f]", n.title) and n.name in ZH_INDEX, n.name
        index.append("%s\t%s\t%s\n" % (n.name, n.description, n.title))
        zh_desc, zh_title = ZH_INDEX[n.name]
        index_zh.append("%s\t%s\t%s\n" % (n.name, zh_desc, zh_title))
        if verbose:
            summary(n)
    with open(os.path.join(new, "index"), "w") as f:
        f.write("# fabtop demo scenarios, made by tests/scenarios/mkscenarios.py: NAME<TAB>description<TAB>title;\n"
                "# NAME/ is the capture directory, NAME.tar.gz the same capture as one file.\n")
        f.writelines(sorted(index))
    # The same lines in Chinese (scenario.h: index.LANG beside the index).
    with open(os.path.join(new, "index.zh_CN"), "w", encoding="utf-8") as f:
        f.write("# fabtop 演示场景（由 tests/scenarios/mkscenarios.py 生成）：名称<TAB>说明<TAB>标题\n")
        f.writelines(sorted(index_zh))
    if os.path.lexists(out):
        shutil.rmtree(out)
    os.rename(new, out)
    fixtures = os.path.join(os.path.dirname(os.path.abspath(out)), "fixtures")
    os.makedirs(fixtures, exist_ok=True)
    n = build_topo_mini()
    write_node(n, os.path.join(fixtures, "topo-mini"))
    if verbose:
        summary(n)


if __name__ == "__main__":
    main(sys.argv)
