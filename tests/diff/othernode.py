#!/usr/bin/env python3
"""othernode.py DIR: turn a copy of a scenario capture directory into another
node of the same kind, as a second healthy node of a cluster is: another host
name and capture time, other node/system image GUIDs, port GIDs and LIDs,
other MAC (netdev hardware) addresses, other IP addresses in the netlink
snapshot. Settings (rates, firmware, MTUs, topology) stay as they are."""
import json
import os
import sys

root = sys.argv[1]


def rewrite(path, text):
    with open(path, "w") as f:
        f.write(text)


def other_hex(s, salt):
    """Same shape (separators, length), other hex digits."""
    out = []
    for i, c in enumerate(s):
        if c in "0123456789abcdefABCDEF":
            out.append("0123456789abcdef"[(int(c, 16) + salt + i) % 16])
        else:
            out.append(c)
    return "".join(out)


def other_ip(addr):
    """10.10.0.5/24 -> 10.10.0.6/24; fe80::5eff:...:1b2c/64 -> another
    interface id; loopback stays (it is the same on every node)."""
    ip, _, plen = addr.partition("/")
    if ip in ("127.0.0.1", "::1"):
        return addr
    if ":" in ip:
        head, _, last = ip.rpartition(":")
        ip = head + ":" + format((int(last or "0", 16) + 0x111) & 0xffff, "x")
    else:
        a = ip.split(".")
        a[3] = str((int(a[3]) + 1) % 250 + 1)
        ip = ".".join(a)
    return ip + ("/" + plen if plen else "")


rewrite(os.path.join(root, "proc/sys/kernel/hostname"), "dgx-h100-b\n")
meta_path = os.path.join(root, "fabtop/meta.json")
with open(meta_path) as f:
    meta = json.load(f)
meta["host"] = "dgx-h100-b"
meta["time"] = meta.get("time", 0) + 86400
rewrite(meta_path, json.dumps(meta, indent=2))

nl_path = os.path.join(root, "fabtop/netlink.json")
with open(nl_path) as f:
    nl = json.load(f)
for link in nl.get("links", []):
    link["addrs"] = [other_ip(a) for a in link.get("addrs", [])]
rewrite(nl_path, json.dumps(nl, indent=2))

for dirpath, dirnames, filenames in os.walk(os.path.join(root, "sys")):
    for name in filenames:
        p = os.path.join(dirpath, name)
        if os.path.islink(p):
            continue
        base = os.path.basename(dirpath)
        if name in ("node_guid", "sys_image_guid"):
            with open(p) as f:
                rewrite(p, other_hex(f.read().strip(), 5) + "\n")
        elif name == "address" and "/net/" in p:
            with open(p) as f:
                v = f.read().strip()
            # IB netdev addresses hold the port GID in their last 8 bytes.
            rewrite(p, v[:6] + other_hex(v[6:], 3) + "\n")
        elif name == "lid" and base.isdigit():
            with open(p) as f:
                v = int(f.read().strip(), 16)
            rewrite(p, "0x%04x\n" % (v + 0x40 if v else 0))
        elif base == "gids":
            with open(p) as f:
                g = f.read().strip()
            if g.replace("0", "").replace(":", "") == "":
                continue
            if g.startswith("0000:0000:0000:0000:0000:ffff:"):
                # An IPv4-mapped RoCE GID: another IPv4 address.
                rewrite(p, g[:30] + "0a63:0107\n")
            else:
                # The prefix (fe80::) stays; the interface id differs.
                rewrite(p, g[:20] + other_hex(g[20:], 7) + "\n")
