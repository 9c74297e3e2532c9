#!/bin/sh
# SR-IOV virtual functions as the kernel lays them out (issue 13, class 1):
# a VF is a PCI function of its own with a physfn link to its PF (and the PF
# has virtfnN links back), its own RDMA device whose port repeats the PF's
# rate, and a link the kernel reports as Unknown/0. With ARI the VFs fill the
# PF's device: 0000:18:00.1-.7 next to the PF at 0000:18:00.0, as lspci lists
# 11:00.1-11:00.7 after 11:00.0 in https://github.com/xcp-ng/xcp/issues/544.
# They are no ports of the card: not 8 x 400 Gb/s on one Gen5 x16 link, not
# a card of 8 ports whose each port can do 50. Built on ib-8port (mlx5_0 at
# 0000:18:00.0, 400 Gb/s InfiniBand); the check runs on the tree and again on
# a capture of it, so the capture keeps physfn.
# Prints "ok - name" / "not ok - name". Needs $FABTOP and $FABTOP_TOP.
NAME=vf; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
S=$top/build/scenarios/ib-8port
need "$S"
command -v python3 >/dev/null || { echo "ok - vf # SKIP needs python3"; exit 0; }

R=$T/root
cp -a "$S" "$R"
rm -f "$R/fabtop/meta.json.demo"
python3 - "$R" <<'PY'
import os, shutil, sys
root = sys.argv[1]
cls = os.path.join(root, "sys/class/infiniband")
pf_ib = os.path.realpath(os.path.join(cls, "mlx5_0"))
pf = os.path.dirname(os.path.dirname(pf_ib))          # .../0000:18:00.0
parent, pfname = os.path.split(pf)
assert pfname == "0000:18:00.0", pfname
def line(p, v):
    with open(p, "w") as f:
        f.write("%s\n" % v)
line(os.path.join(pf, "sriov_numvfs"), 7)
for k in range(1, 8):
    bdf = "0000:18:00.%d" % k
    vf = os.path.join(parent, bdf)
    os.makedirs(vf)
    for a in ("class", "vendor", "subsystem_vendor", "subsystem_device", "numa_node",
              "local_cpulist", "local_cpus", "revision"):
        shutil.copy(os.path.join(pf, a), os.path.join(vf, a))
    line(os.path.join(vf, "device"), "0x101e")              # ConnectX Family mlx5Gen Virtual Function
    line(os.path.join(vf, "current_link_speed"), "Unknown")  # a VF has no link of its own
    line(os.path.join(vf, "current_link_width"), 0)
    line(os.path.join(vf, "max_link_speed"), "Unknown")
    line(os.path.join(vf, "max_link_width"), 0)
    os.symlink("../" + pfname, os.path.join(vf, "physfn"))
    os.symlink("../" + bdf, os.path.join(pf, "virtfn%d" % (k - 1)))
    drv = os.readlink(os.path.join(pf, "driver"))
    os.symlink(drv, os.path.join(vf, "driver"))
    name = "mlx5_%d" % (7 + k)
    ib = os.path.join(vf, "infiniband", name)
    shutil.copytree(pf_ib, ib, symlinks=True)
    os.remove(os.path.join(ib, "device"))
    os.symlink("../../../" + bdf, os.path.join(ib, "device"))
    line(os.path.join(ib, "node_guid"), "0000:0000:0000:0000")
    os.symlink(os.path.relpath(ib, cls), os.path.join(cls, name))
    bus = os.path.join(root, "sys/bus/pci/devices")
    os.symlink(os.path.relpath(vf, bus), os.path.join(bus, bdf))
PY

# check NAME ROOT: the JSON of report links on ROOT.
check() {
	"$bin" --root "$2" report links --json > "$T/out.json" 2> "$T/err"
	python3 - "$T/out.json" > "$T/why" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ids, hcas = [], set()
def walk(o):
    if isinstance(o, dict):
        if "id" in o and "severity" in o:
            ids.append((o["id"], o.get("subject")))
        if "name" in o and "ports" in o:
            hcas.add(o["name"])
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(doc)
bad = [i for i in ids if i[0] in ("links.pcie-bottleneck", "links.rate-degraded")]
vfs = {"mlx5_%d" % i for i in range(8, 15)}
if bad or not vfs <= hcas:
    print("findings:", bad, "hcas:", sorted(hcas))
    sys.exit(1)
PY
	if [ $? -eq 0 ]; then ok "$1"; else nok "$1" "$(cat "$T/why")" "$(head -5 "$T/err")"; fi
}

check "7 VFs of mlx5_0: 15 HCAs, no PCIe bottleneck, no rate below the card's" "$R"
"$bin" capture --source "$R" -o "$T/c.tar.gz" 2> "$T/cap.err"
if tar -tzf "$T/c.tar.gz" 2>/dev/null | grep -q "0000:18:00.3/physfn"; then ok "the capture keeps each VF's physfn link"
else nok "the capture keeps each VF's physfn link" "$(head -5 "$T/cap.err")"; fi
check "the same from the capture" "$T/c.tar.gz"
# Without the physfn links the VFs are functions of the PF's card: the rule
# that must not fire does (the test can fail).
for k in 1 2 3 4 5 6 7; do rm -f "$(dirname "$(readlink -f "$R/sys/class/infiniband/mlx5_0")")"/../../0000:18:00.$k/physfn; done
"$bin" --root "$R" report links > "$T/nophys" 2>&1
if grep -q "links.pcie-bottleneck mlx5_0" "$T/nophys"; then ok "without physfn the 8 functions would sum to a bottleneck"
else nok "without physfn the 8 functions would sum to a bottleneck" "$(grep '\[' "$T/nophys" | head -5)"; fi
