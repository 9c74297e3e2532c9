#!/bin/sh
# The RoCE traffic-class configuration end to end (dcb.h), on roce-faults
# made upstream-like: mlx5_0's netdev loses MLNX_OFED's qos/ folder and
# gets a DCB netlink answer in fabtop/dcb.json (the bytes of
# tests/fixtures/dcb/mlx5-dscp-custom.bin: trust dscp, DSCP 26 on priority
# 5, PFC on 3); mlx5_1 gets MLNX_OFED's "Global tclass=96"; an NCCL job
# runs with NCCL_IB_TC=106 (fabtop/procs). Expected: links.tc-no-pfc on
# mlx5_0/1 naming DCB netlink, links.tc-override on mlx5_1/1; the same
# from a capture of it, which carries dcb.json and tc/; and an answer the
# kernel refused (EOPNOTSUPP) leaves the sysfs fallback in place.
# Prints "ok - name" / "not ok - name". Needs $FABTOP and $FABTOP_TOP.
NAME=dcb; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
S=$top/build/scenarios/roce-faults
need "$S"
command -v python3 >/dev/null || { echo "ok - dcb # SKIP needs python3"; exit 0; }

R=$T/root
cp -a "$S" "$R"
python3 - "$R" "$top/tests/fixtures/dcb" <<'PY'
import json, os, shutil, sys
root, fix = sys.argv[1], sys.argv[2]
nd = os.readlink(os.path.join(root, "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0")) \
    if os.path.islink(os.path.join(root, "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0")) \
    else open(os.path.join(root, "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0")).read().strip()
qos = os.path.join(os.path.realpath(os.path.join(root, "sys/class/net", nd)), "qos")
shutil.rmtree(qos)
reply = open(os.path.join(fix, "mlx5-dscp-custom.bin"), "rb").read()
seq = int.from_bytes(reply[8:12], "little")
json.dump({"netdevs": [{"name": nd, "seq": seq, "reply": reply.hex()}]},
          open(os.path.join(root, "fabtop/dcb.json"), "w"))
tc = os.path.join(os.path.realpath(os.path.join(root, "sys/class/infiniband/mlx5_1")), "tc/1")
os.makedirs(tc)
open(os.path.join(tc, "traffic_class"), "w").write("Global tclass=96\n")
os.makedirs(os.path.join(root, "fabtop/procs"), exist_ok=True)
json.dump({"pid": 4242, "comm": "python3", "netns": "net:[4026531840]",
           "nccl_lib": "/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2",
           "nccl_var": True, "age_s": 600, "env": {"NCCL_IB_TC": "106", "RANK": "0"}},
          open(os.path.join(root, "fabtop/procs/4242.json"), "w"))

PY
[ $? -eq 0 ] || { nok "building the root"; exit 0; }

# check NAME ROOT: the findings of report links --json on ROOT.
check() {
	"$bin" --root "$2" report links --json > "$T/out.json" 2> "$T/err"
	python3 - "$T/out.json" > "$T/why" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
found = {}
def walk(o):
    if isinstance(o, dict):
        if "id" in o and "severity" in o:
            found.setdefault(o["id"], []).append(o)
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(doc)
def one(fid, subj, *words):
    fs = [f for f in found.get(fid, []) if f.get("subject") == subj]
    if len(fs) != 1:
        print(fid, subj, "found", [(f["id"], f.get("subject")) for f in sum(found.values(), [])])
        sys.exit(1)
    text = json.dumps(fs[0])
    for w in words:
        if w not in text:
            print(fid, "lacks", w, text)
            sys.exit(1)
one("links.tc-no-pfc", "mlx5_0/1", "traffic class 106 on priority 5", "DCB netlink app table",
    "PFC on 3 from DCB netlink", "NCCL_IB_TC=106 of pid 4242")
one("links.tc-override", "mlx5_1/1", "overrides the job's 106", "Global tclass=96")
if len(found.get("links.tc-no-pfc", [])) != 1:
    print("tc-no-pfc elsewhere:", [f.get("subject") for f in found["links.tc-no-pfc"]])
    sys.exit(1)
PY
	if [ $? -eq 0 ]; then ok "$1"; else nok "$1" "$(cat "$T/why")" "$(head -5 "$T/err")"; fi
}

check "DCB netlink's DSCP map puts the job's 106 on priority 5, without PFC; a global tclass overrides it" "$R"
"$bin" capture --source "$R" -o "$T/c.tar.gz" 2> "$T/cap.err"
if tar -tzf "$T/c.tar.gz" 2>/dev/null | grep -q "fabtop/dcb.json" &&
   tar -tzf "$T/c.tar.gz" 2>/dev/null | grep -q "tc/1/traffic_class"; then
	ok "a capture carries fabtop/dcb.json and tc/1/traffic_class"
else
	nok "a capture carries fabtop/dcb.json and tc/1/traffic_class" "$(head -5 "$T/cap.err")"
fi
check "the same from the capture" "$T/c.tar.gz"

# The kernel's real EOPNOTSUPP (veth0-eopnotsupp.bin): no DCB on this
# netdev; roce-faults' mlx5_2 keeps its MLNX_OFED qos/ (PFC off there:
# links.pfc-off with the sysfs file as evidence), never "PFC off" from DCB.
R2=$T/root2
cp -a "$S" "$R2"
python3 - "$R2" "$top/tests/fixtures/dcb" <<'PY'
import json, os, sys
root, fix = sys.argv[1], sys.argv[2]
reply = open(os.path.join(fix, "veth0-eopnotsupp.bin"), "rb").read()
seq = int.from_bytes(reply[8:12], "little")
names = sorted(os.listdir(os.path.join(root, "sys/class/net")))
json.dump({"netdevs": [{"name": n, "seq": seq, "reply": reply.hex()} for n in names]},
          open(os.path.join(root, "fabtop/dcb.json"), "w"))
PY
"$bin" --root "$R" report links > "$T/a.txt" 2>&1
"$bin" --root "$S" report links > "$T/base.txt" 2>&1
"$bin" --root "$R2" report links > "$T/b.txt" 2>&1
if diff "$T/base.txt" "$T/b.txt" > "$T/diff"; then
	ok "EOPNOTSUPP from DCB netlink: the sysfs fallback's report, unchanged"
else
	nok "EOPNOTSUPP from DCB netlink: the sysfs fallback's report, unchanged" "$(head -20 "$T/diff")"
fi
