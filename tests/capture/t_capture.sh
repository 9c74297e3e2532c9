#!/bin/sh
# `fabtop capture` and `--root CAPTURE`: a capture replays as the node did,
# unprivileged captures record what they could not read, and broken
# captures give notes, not crashes. Prints "ok - name" / "not ok - name".
# Needs $FABTOP (the sanitized binary) and $FABTOP_TOP (the repository).
FABTOP=${FABTOP:-$PWD/build/san/fabtop}
FABTOP_TOP=${FABTOP_TOP:-$PWD}
SCEN=$FABTOP_TOP/build/scenarios/pcie-2numa
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-capture.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
SLEEP_PID=
cleanup() {
	[ -n "$SLEEP_PID" ] && kill "$SLEEP_PID" 2>/dev/null
	chmod -R u+rwX "$T" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"
# A private TMPDIR: what fabtop leaves there is ours to find (and remove).
mkdir -m 1777 "$T/tmp" && export TMPDIR="$T/tmp"

. "$FABTOP_TOP/tests/capture/lib.sh"

# Reports compare equal once the fields that name the source and the time
# are dropped: nothing else may differ.
cat > "$T/norm.py" <<'EOF'
import json, sys
DROP = {"time", "source", "live", "demo"}
def norm(v):
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items() if k not in DROP}
    if isinstance(v, list):
        return [norm(x) for x in v]
    return v
def same(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append("%s/%s: only in %s" % (path, k, "node" if k in a else "replay"))
            else:
                same(a[k], b[k], path + "/" + k, out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append("%s: %d vs %d entries: %s / %s" % (path, len(a), len(b), a, b))
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, "%s[%d]" % (path, i), out)
    elif a != b:
        out.append("%s: node %r, replay %r" % (path, a, b))
a, b = (norm(json.load(open(f))) for f in sys.argv[1:3])
out = []
same(a, b, "", out)
print("\n".join(out[:30]))
sys.exit(1 if out else 0)
EOF
# untar.py TARBALL DIR: unpacks with Python (not our code) to check what we wrote.
cat > "$T/untar.py" <<'EOF'
import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    names = t.getnames()
    tops = {n.split("/")[0] for n in names}
    t.extractall(sys.argv[2], filter="tar") if hasattr(tarfile, "data_filter") else t.extractall(sys.argv[2])
print(tops.pop() if len(tops) == 1 else "")
EOF

if [ ! -x "$FABTOP" ]; then
	echo "not ok - fabtop binary $FABTOP is missing (make build/san/fabtop)"
	exit 0
fi
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"

# ---- 1. live round trip -------------------------------------------------
"$FABTOP" capture -o "$T/live.tar.gz" 2> "$T/cap.err"
rc=$?
if [ $rc -eq 0 ] && [ -s "$T/live.tar.gz" ] && ! asan "$T/cap.err"; then
	ok "capture of this node writes a tarball"
else
	notok "capture of this node writes a tarball (rc $rc)" "$T/cap.err"
fi
"$FABTOP" report all --json > "$T/node.json" 2> "$T/node.err"
"$FABTOP" --root "$T/live.tar.gz" report all --json > "$T/replay.json" 2> "$T/replay.err"
if python3 "$T/norm.py" "$T/node.json" "$T/replay.json" > "$T/diff" 2>&1 &&
   ! asan "$T/node.err" && ! asan "$T/replay.err"; then
	ok "replay of a live capture reports what the node reported"
else
	notok "replay of a live capture reports what the node reported" "$T/diff" "$T/replay.err"
fi

mkdir "$T/live"
top=$(python3 "$T/untar.py" "$T/live.tar.gz" "$T/live" 2> "$T/untar.err")
L=$T/live/$top
host=$(cat /proc/sys/kernel/hostname)
if [ -n "$top" ] && echo "$top" | grep -Eq '^.+-[0-9]{8}T[0-9]{6}$' && [ -f "$L/fabtop/meta.json" ]; then
	ok "tarball holds one top folder <host>-<YYYYmmddTHHMMSS> ($top)"
else
	notok "tarball holds one top folder <host>-<YYYYmmddTHHMMSS> (got '$top')" "$T/untar.err"
fi
if python3 - "$L/fabtop/meta.json" "$host" "$(uname -r)" "$(id -u)" > "$T/meta.out" 2>&1 <<'EOF'
import json, sys, time
m = json.load(open(sys.argv[1]))
assert m["format"] == 1, m
assert isinstance(m["fabtop"], str) and m["fabtop"], m
assert m["host"] == sys.argv[2], m
assert m["kernel"] == sys.argv[3], m
assert abs(m["time"] - time.time()) < 600, m
assert m["uid"] == int(sys.argv[4]), m
assert m["samples"] == 0 and m["demo"] is False, m
for k in ("nvml", "cuda", "nccl"):
    assert isinstance(m[k], str) and m[k], (k, m)
assert isinstance(m["procs_unreadable"], int), m
EOF
then ok "meta.json has format, version, host, kernel, time, uid and library status"
else notok "meta.json has format, version, host, kernel, time, uid and library status" "$T/meta.out"
fi
missing=""
for f in fabtop/unreadable.tsv fabtop/hwloc.xml fabtop/netlink.json proc/sys/kernel/hostname \
	 proc/sys/kernel/osrelease proc/cpuinfo sys/devices/system/cpu/online sys/class/net; do
	[ -e "$L/$f" ] || missing="$missing $f"
done
for d in /sys/bus/pci/devices/*; do
	[ -e "$d" ] || continue
	n=$(basename "$d")
	[ -L "$L/sys/bus/pci/devices/$n" ] || missing="$missing pci/$n"
	[ "$(readlink "$L/sys/bus/pci/devices/$n")" = "$(readlink "$d")" ] || missing="$missing link:$n"
	[ -f "$L/sys/bus/pci/devices/$n/vendor" ] || missing="$missing $n/vendor"
done
bad=$(find "$L" -name 'resource[0-9]*' -o -name msi_irqs -o -name power -o -name subsystem -o -name iommu_group | head -3)
if [ -z "$missing" ] && [ -z "$bad" ]; then
	ok "capture holds the sysfs subset, links as they are, and no skipped entries"
else
	echo "# missing:$missing skipped but present: $bad" > "$T/subset"
	notok "capture holds the sysfs subset, links as they are, and no skipped entries" "$T/subset"
fi

# ---- 2. unprivileged --------------------------------------------------
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv > /dev/null; then
	echo "ok - capture as nobody # SKIP needs root and setpriv to become nobody"
	NOBODY=""
fi
if [ -n "$NOBODY" ]; then
mkdir -m 777 "$T/nb"
(cd "$T" && $NOBODY "$FABTOP" capture -o "$T/nb/nobody.tar.gz") > /dev/null 2> "$T/nb.err"
rc=$?
mkdir "$T/nbx"
top=$(python3 "$T/untar.py" "$T/nb/nobody.tar.gz" "$T/nbx" 2>> "$T/nb.err")
N=$T/nbx/$top
if [ $rc -eq 0 ] && [ -n "$top" ] && ! asan "$T/nb.err" &&
   python3 - "$N" > "$T/nb.out" 2>&1 <<'EOF'
import glob, json, os, sys
root = sys.argv[1]
m = json.load(open(root + "/fabtop/meta.json"))
assert m["uid"] == 65534, m["uid"]
unread = {l.split("\t")[0] for l in open(root + "/fabtop/unreadable.tsv") if l.strip()}
cfgs = glob.glob(root + "/sys/bus/pci/devices/*/config")
assert cfgs or not glob.glob("/sys/bus/pci/devices/*/config"), "no config copied"
for c in cfgs:
    node = os.path.realpath(c)[len(root):]
    size = os.path.getsize(c)
    assert size == 64 or node in unread, (c, size)
for l in open(root + "/fabtop/unreadable.tsv"):
    p, e, msg = l.rstrip("\n").split("\t")
    assert p.startswith("/") and int(e) > 0 and msg, l
EOF
then ok "capture as nobody: config is 64 bytes, unreadable.tsv well formed, uid 65534"
else notok "capture as nobody: config is 64 bytes, unreadable.tsv well formed, uid 65534 (rc $rc)" "$T/nb.err" "$T/nb.out"
fi

if [ -d "$SCEN" ]; then
	cp -a "$SCEN" "$T/fx" && chmod -R a+rX "$T/fx"
	NIC=$(cd "$T/fx/sys/bus/pci/devices/0000:04:00.0" 2>/dev/null && pwd -P)
	chmod 000 "$NIC/current_link_speed"
	node_path=${NIC#"$T/fx"}/current_link_speed
	(cd "$T" && $NOBODY "$FABTOP" --root "$T/fx" report all --json) > "$T/fx-node.json" 2> "$T/fx-node.err"
	(cd "$T" && $NOBODY "$FABTOP" capture --source "$T/fx" -o "$T/nb/fx.tar.gz") 2> "$T/fx-cap.err"
	rc=$?
	mkdir "$T/fxx"
	top=$(python3 "$T/untar.py" "$T/nb/fx.tar.gz" "$T/fxx" 2>> "$T/fx-cap.err")
	if [ $rc -eq 0 ] && grep -q "^$node_path	13	" "$T/fxx/$top/fabtop/unreadable.tsv" 2>/dev/null; then
		ok "a file nobody cannot read is listed in unreadable.tsv with EACCES"
	else
		notok "a file nobody cannot read is listed in unreadable.tsv with EACCES (rc $rc)" "$T/fx-cap.err"
	fi
	(cd "$T" && "$FABTOP" --root "$T/nb/fx.tar.gz" report all --json) > "$T/fx-replay.json" 2> "$T/fx-replay.err"
	if python3 - "$T/fx-node.json" "$T/fx-replay.json" "$node_path" > "$T/fx.out" 2>&1 <<'EOF'
import json, sys
def denied(f):
    return sorted(n["message"] for n in json.load(open(f))["notes"]
                  if "ermission denied" in n["message"])
a, b = denied(sys.argv[1]), denied(sys.argv[2])
print("node:", a, "\nreplay:", b)
assert any(sys.argv[3] in m and "cannot read" in m for m in a), "no note live"
assert a == b
EOF
	then ok "replay (even as root) prints the same 'cannot read ... permission denied' note"
	else notok "replay (even as root) prints the same 'cannot read ... permission denied' note" "$T/fx.out" "$T/fx-replay.err"
	fi
	if python3 "$T/norm.py" "$T/fx-node.json" "$T/fx-replay.json" > "$T/diff" 2>&1; then
		ok "replay of a capture of a directory reports what the directory did"
	else
		notok "replay of a capture of a directory reports what the directory did" "$T/diff"
	fi
else
	echo "not ok - scenario $SCEN is missing (unprivileged fixture tests)"
fi
fi

# ---- 3. bad input -----------------------------------------------------
if [ -d "$SCEN" ]; then
	"$FABTOP" capture --source "$SCEN" -o "$T/sc.tar.gz" 2> "$T/sc.err"
	size=$(wc -c < "$T/sc.tar.gz")
	head -c $((size / 2)) "$T/sc.tar.gz" > "$T/half.tar.gz"
	"$FABTOP" --root "$T/half.tar.gz" report topo > "$T/half.out" 2> "$T/half.err"
	rc=$?
	# What it kept is shown; what it lost is unknown, so the verdict is too.
	if [ $rc -eq 2 ] && ! asan "$T/half.err" && grep -q "^Verdict: unknown" "$T/half.out" &&
	   grep -qi truncated "$T/half.out" "$T/half.err"; then
		ok "a tarball cut in half: exit 2 (verdict unknown), says 'truncated', shows the rest"
	else
		notok "a tarball cut in half: exit 2 (verdict unknown), says 'truncated', shows the rest (rc $rc)" "$T/half.err" "$T/half.out"
	fi
	head -c 4096 /dev/urandom > "$T/garbage.tar.gz"
	"$FABTOP" --root "$T/garbage.tar.gz" report topo > "$T/garbage.out" 2> "$T/garbage.err"
	rc=$?
	if [ $rc -eq 2 ] && ! asan "$T/garbage.err" && grep -q "garbage.tar.gz" "$T/garbage.err"; then
		ok "a garbage file as --root: exit 2 with a message naming it"
	else
		notok "a garbage file as --root: exit 2 with a message naming it (rc $rc)" "$T/garbage.err"
	fi

	cp -a "$SCEN" "$T/bad"
	B=$T/bad
	GPU=$(cd "$B/sys/bus/pci/devices/0000:03:00.0" && pwd -P)
	NIC=$(cd "$B/sys/bus/pci/devices/0000:04:00.0" && pwd -P)
	: > "$NIC/current_link_width"
	printf '\000\001\377\376garbage\000\033[2J' > "$GPU/numa_node"
	head -c 5242880 /dev/zero | tr '\0' 7 > "$NIC/max_link_width"
	ln -s ../../../devices/pci0000:00/0000:00:99.0 "$B/sys/bus/pci/devices/0000:00:99.0"
	npci=$(ls "$SCEN/sys/bus/pci/devices" | wc -l)
	"$FABTOP" --root "$B" report all --json > "$T/bad.json" 2> "$T/bad.err"
	rc=$?
	if { [ $rc -eq 0 ] || [ $rc -eq 1 ]; } && ! asan "$T/bad.err"; then
		ok "a corrupted capture directory: exit $rc, no sanitizer report"
	else
		notok "a corrupted capture directory: exit $rc, no sanitizer report" "$T/bad.err"
	fi
	for what in "current_link_width|empty file" "numa_node|binary garbage" \
		    "max_link_width|5 MiB attribute" "0000:00:99.0|broken link in /sys/bus/pci/devices"; do
		f=${what%%|*}
		if python3 - "$T/bad.json" "$f" > /dev/null 2>&1 <<'EOF'
import json, sys
notes = json.load(open(sys.argv[1]))["notes"]
assert any(sys.argv[2] in n["message"] or sys.argv[2] in n["what"] for n in notes)
EOF
		then ok "corrupted directory: a note names the ${what#*|}"
		else notok "corrupted directory: a note names the ${what#*|}" "$T/bad.json"
		fi
	done
	if python3 - "$T/bad.json" "$npci" > "$T/bad.out" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(d.get("pci_functions"), len(d.get("nics", [])))
assert d["pci_functions"] == int(sys.argv[2]), "PCI functions lost"
assert len(d["nics"]) == 2, "NICs lost"
EOF
	then ok "corrupted directory: the rest (PCI functions, NICs) is still shown"
	else notok "corrupted directory: the rest (PCI functions, NICs) is still shown" "$T/bad.out"
	fi
	# Capturing the broken directory: the oversize file is listed, the rest copied.
	"$FABTOP" capture --source "$B" -o "$T/badcap/" > /dev/null 2> "$T/badcap.err"
	rc=$?
	"$FABTOP" --root "$T/badcap" report all --json > "$T/badcap.json" 2> "$T/badcap2.err"
	rc2=$?
	if [ $rc -eq 0 ] && { [ $rc2 -eq 0 ] || [ $rc2 -eq 1 ]; } && ! asan "$T/badcap.err" &&
	   ! asan "$T/badcap2.err" &&
	   grep -q "max_link_width	27	" "$T/badcap/fabtop/unreadable.tsv" &&
	   [ -L "$T/badcap/sys/bus/pci/devices/0000:00:99.0" ]; then
		ok "capture of a corrupted directory: 5 MiB file listed as EFBIG, broken link kept"
	else
		notok "capture of a corrupted directory: 5 MiB file listed as EFBIG, broken link kept (rc $rc/$rc2)" "$T/badcap.err" "$T/badcap2.err"
	fi
else
	echo "not ok - scenario $SCEN is missing (bad input tests)"
fi

# ---- 4. samples -------------------------------------------------------
if [ -d "$SCEN" ]; then
	"$FABTOP" capture --source "$SCEN" --samples 3 --interval 0.2 -o "$T/samp/" 2> "$T/samp.err"
	rc=$?
	if [ $rc -eq 0 ] && ! asan "$T/samp.err" && python3 - "$T/samp" > "$T/samp.out" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1] + "/fabtop/samples.json"))
m = json.load(open(sys.argv[1] + "/fabtop/meta.json"))
s = d["samples"]
assert len(s) == 3, len(s)
assert abs(d["interval"] - 0.2) < 1e-9 and m["samples"] == 3, (d["interval"], m["samples"])
dt = [b["t"] - a["t"] for a, b in zip(s, s[1:])]
print("dt", dt)
# The samples keep their schedule (start + k * interval): a late one makes
# the next one's gap shorter, so a busy machine moves the gaps but never the
# span, which cannot be shorter than the schedule (no timed bound above:
# a loaded machine may take longer).
assert all(x > 0 for x in dt), dt
assert s[-1]["t"] - s[0]["t"] >= 2 * 0.2 - 0.02, dt
v = s[0]["values"]
assert v and all(k.startswith("/sys/class/infiniband/") for k in v), list(v)[:3]
assert any("/ports/1/counters/port_xmit_data" in k for k in v), list(v)[:5]
assert all(x is None or isinstance(x, int) for x in v.values())
assert set(s[1]["values"]) == set(v)
EOF
	then ok "--samples 3 --interval 0.2: three samples on a 0.2 s schedule, integer values"
	else notok "--samples 3 --interval 0.2: three samples on a 0.2 s schedule, integer values (rc $rc)" "$T/samp.err" "$T/samp.out"
	fi
fi

# ---- 5. errors and NCCL processes --------------------------------------
"$FABTOP" capture -o /proc/no/such/dir/x.tar.gz > /dev/null 2> "$T/err1"
rc=$?
if [ $rc -eq 2 ] && grep -q "cannot create /proc/no/such/dir/x.tar.gz" "$T/err1" &&
   grep -q "writable -o" "$T/err1" && ! asan "$T/err1"; then
	ok "an unwritable -o path: exit 2, names the path and what to do"
else
	notok "an unwritable -o path: exit 2, names the path and what to do (rc $rc)" "$T/err1"
fi
mkdir "$T/full" && : > "$T/full/x"
"$FABTOP" capture -o "$T/full/" > /dev/null 2> "$T/err2"
rc=$?
if [ $rc -eq 2 ] && grep -q "not empty" "$T/err2" && [ -f "$T/full/x" ]; then
	ok "a non-empty output directory is refused and left alone"
else
	notok "a non-empty output directory is refused and left alone (rc $rc)" "$T/err2"
fi
if [ -d "$SCEN" ]; then
	"$FABTOP" capture --source "$SCEN" --samples 100 --interval 0.1 -o "$T/int.tar.gz" \
		> /dev/null 2> "$T/int.err" &
	pid=$!
	sleep 1.5
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "interrupted" "$T/int.err" && [ ! -e "$T/int.tar.gz" ] &&
	   ! asan "$T/int.err"; then
		ok "SIGTERM during --samples: exit 2, says so, writes nothing"
	else
		notok "SIGTERM during --samples: exit 2, says so, writes nothing (rc $rc)" "$T/int.err"
	fi
fi
left=$(ls -d "$TMPDIR"/fabtop-* 2>/dev/null | head -1)
if [ -z "$left" ] && ! ls "$T"/*.part > /dev/null 2>&1; then
	ok "no temporary folder or .part file left behind"
else
	echo "# left: $left" > "$T/left"
	notok "no temporary folder or .part file left behind" "$T/left"
fi

env -i PATH="$PATH" NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth0 UCX_TLS=rc HOSTNAME=node17 \
	OMPI_COMM_WORLD_RANK=3 SECRET_TOKEN=hunter2 AWS_SECRET_ACCESS_KEY=x sleep 60 &
SLEEP_PID=$!
# NVIDIA's images set NCCL_VERSION in every process: that alone is no job.
env -i PATH="$PATH" NCCL_VERSION=2.28.3-1 sleep 60 &
IMAGE_PID=$!
# A job that sets no NCCL_ variable but has the real libnccl mapped.
NCCL_SO=$(ldconfig -p | awk '/libnccl\.so\.2 /{print $NF; exit}')
[ -n "$NCCL_SO" ] || NCCL_SO=$(ls /usr/local/cuda/lib64/libnccl.so.2 2>/dev/null)
LIB_PID=
if [ -n "$NCCL_SO" ]; then
	env -i PATH="$PATH" python3 -c 'import ctypes, sys, time; ctypes.CDLL(sys.argv[1]); time.sleep(60)' "$NCCL_SO" &
	LIB_PID=$!
	# Loading a 200 MB libnccl takes seconds under load: wait (bounded)
	# until the process maps it, not a fixed time.
	i=0
	while [ $i -lt 300 ] && ! grep -q libnccl "/proc/$LIB_PID/maps" 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
fi
sleep 0.5
"$FABTOP" capture -o "$T/procs/" > /dev/null 2> "$T/procs.err"
if [ ! -e "$T/procs/fabtop/procs/$IMAGE_PID.json" ]; then
	ok "a process with only the image's NCCL_VERSION is not taken for a job"
else
	notok "a process with only the image's NCCL_VERSION is not taken for a job" "$T/procs/fabtop/procs/$IMAGE_PID.json"
fi
if [ -z "$LIB_PID" ]; then
	ok "a process with libnccl mapped is recorded # SKIP no libnccl.so.2 on this machine"
elif python3 - "$T/procs/fabtop/procs/$LIB_PID.json" "$NCCL_SO" > "$T/lib.out" 2>&1 <<'EOF'
import json, os, sys
p = json.load(open(sys.argv[1]))
assert os.path.realpath(p["nccl_lib"]) == os.path.realpath(sys.argv[2]), p
assert p["env"] == {} and p["nccl_var"] is False, p
EOF
then ok "a process with libnccl mapped is recorded, with the library it runs"
else notok "a process with libnccl mapped is recorded, with the library it runs" "$T/lib.out"
fi
kill $IMAGE_PID $LIB_PID 2>/dev/null
wait $IMAGE_PID $LIB_PID 2>/dev/null
if python3 - "$T/procs/fabtop/procs/$SLEEP_PID.json" "$SLEEP_PID" > "$T/procs.out" 2>&1 <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["pid"] == int(sys.argv[2]) and p["comm"] == "sleep", p
assert p["netns"].startswith("net:["), p
# UCX_TLS: not a variable fabtop reads (procfs.c's table), so not kept.
assert p["env"] == {"NCCL_DEBUG": "INFO", "NCCL_SOCKET_IFNAME": "eth0",
                    "HOSTNAME": "node17", "OMPI_COMM_WORLD_RANK": "3"}, p["env"]
assert p["nccl_var"] is True, p
EOF
then ok "an NCCL process is recorded with comm, netns and only the variables fabtop reads"
else notok "an NCCL process is recorded with comm, netns and only the variables fabtop reads" "$T/procs.out" "$T/procs.err"
fi
if grep -rq hunter2 "$T/procs" "$T/live" 2>/dev/null; then
	echo "not ok - secrets from the environment never reach the capture"
else
	ok "secrets from the environment never reach the capture"
fi
kill "$SLEEP_PID" 2>/dev/null
wait "$SLEEP_PID" 2>/dev/null
SLEEP_PID=
exit 0
