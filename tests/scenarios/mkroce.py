#!/usr/bin/env python3
"""A RoCE node of any size, for measuring how fabtop scales with ports.

Usage:  python3 tests/scenarios/mkroce.py PORTS OUTDIR

Writes OUTDIR as a capture directory (the layout of mkscenarios.py, whose
writer it uses): 8 H100 GPUs and PORTS/2 dual-port ConnectX-7 cards in
Ethernet mode, each card on a root port of its own, every port ACTIVE at
400 Gb/s with an IPv4 RoCE v2 GID and MTU 9000 (every 16th card's
second port at 4200: links.mtu-mismatch has work to do). Cards spread over
PCI domains of 100 cards each, as large nodes use several segments.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mkscenarios as mk   # noqa: E402


def build(ports):
    assert ports >= 2 and ports % 2 == 0, "PORTS: an even number, 2 or more"
    n = mk.Node("roce-%d" % ports, "roce%d-bench" % ports, "5.15.0-119-generic", 0, False,
                "A RoCE node with %d ports, for measuring scale." % ports)
    n.cpu_model = (6, 143, 8, "Intel(R) Xeon(R) Platinum 8480+")
    for c in range(224):
        n.cpus.append(dict(cpu=c, pkg=(c // 56) % 2, core=c % 56, node=(c // 56) % 2))
    n.nodes = [dict(id=0, mem_kb=1056574636), dict(id=1, mem_kb=1056868912)]
    n.distances = [[10, 21], [21, 10]]
    t = n.pci
    # Eight GPUs on domain 0, buses 0xe0..0xef.
    for g in range(8):
        b = 0xe0 + 2 * g
        rp = mk.fn(t, mk.bdf(b, 1), None, "spr-rp", "root", g // 4, 32.0, 16, acs=0)
        mk.fn(t, mk.bdf(b + 1), rp, "h100", "ep", g // 4, 32.0, 16, label="GPU")
    cards = ports // 2
    for c in range(cards):
        dom, k = c // 100, c % 100
        b, numa = 2 * k + 1, (c * 2) // cards
        rp = mk.fn(t, mk.bdf(b, 1, 0, dom), None, "spr-rp", "root", numa, 32.0, 16, acs=0)
        for f in (0, 1):
            name = "enP%dp%ds0f%dnp%d" % (dom, b + 1, f, f) if dom else "enp%ds0f%dnp%d" % (b + 1, f, f)
            mtu = 4200 if f == 1 and c % 16 == 15 else 9000
            ip = "10.%d.%d.%d/16" % (100 + f, c // 250, c % 250 + 1)
            mk.fn(t, mk.bdf(b + 1, 0, f, dom), rp, "cx7-eth", "ep", numa, 32.0, 16, multifn=True,
                  label="NIC %d port %d" % (c, f), rdma=mk.roce_port(name, ip, mtu=mtu))
    n.nvml = mk.hgx_nvml(n)
    n.meta_extra = dict(nvml="loaded libnvidia-ml.so.1", cuda="loaded libcuda.so.1",
                        nccl="not loaded: libnccl.so.2: cannot open shared object file")
    n.devices = mk.all_uverbs_ok(ports)
    n.rdma_netlink = {"available": True, "netns_mode": "shared"}
    return n


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: %s PORTS OUTDIR" % argv[0])
    mk.write_node(build(int(argv[1])), argv[2])


if __name__ == "__main__":
    main(sys.argv)
