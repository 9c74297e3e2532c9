#!/bin/sh
# Captures of real nodes, checked against what the vendor tools printed on
# the same node at the same time (tests/fixtures/<node>.*.txt).
#
# h200-vm: a Firecracker VM with one H200 (driver 580.159.04, kernel 6.18),
# captured with `fabtop capture` while a one-rank NCCL job ran; beside it
# `nvidia-smi topo -m` from the same minute, ANSI underline removed.
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FABTOP:-$top/build/fabtop}
fx=$top/tests/fixtures
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; shift; for f in "$@"; do sed 's/^/#   /' "$f" | tail -n 20; done; }

# The matrix: header and rows, up to the blank line before the legend.
matrix() { sed -n '1,/^$/p' "$1" | sed '/^$/d'; }

"$bin" --root "$fx/h200-vm.tar.gz" report topo > "$T/topo.txt" 2> "$T/topo.err"
matrix "$fx/h200-vm.nvidia-smi-topo-m.txt" > "$T/want"
matrix "$T/topo.txt" > "$T/got"
if cmp -s "$T/want" "$T/got"; then
	ok "h200-vm: the matrix is nvidia-smi's, NUMA Affinity 0 where sysfs says -1"
else
	diff "$T/want" "$T/got" > "$T/diff"
	notok "h200-vm: the matrix is nvidia-smi's, NUMA Affinity 0 where sysfs says -1" "$T/diff" "$T/topo.err"
fi

# nvidia-smi's legend, line for line.
sed -n '/^Legend:/,$p' "$fx/h200-vm.nvidia-smi-topo-m.txt" | sed '/^$/d' > "$T/want-legend"
sed -n '/^Legend:/,/NV#/p' "$T/topo.txt" | sed '/^$/d' > "$T/got-legend"
if cmp -s "$T/want-legend" "$T/got-legend"; then
	ok "h200-vm: the legend is nvidia-smi's"
else
	diff "$T/want-legend" "$T/got-legend" > "$T/diff"
	notok "h200-vm: the legend is nvidia-smi's" "$T/diff"
fi

# No HCA on that node: the links report says so and finds nothing.
"$bin" --root "$fx/h200-vm.tar.gz" report links > "$T/links.txt" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "No RDMA devices on this node" "$T/links.txt"; then
	ok "h200-vm: no RDMA devices, exit 0"
else
	echo "# rc=$rc" >> "$T/links.txt"; notok "h200-vm: no RDMA devices, exit 0" "$T/links.txt"
fi

# The job's NCCL came from its own wheel, not the loader path's libnccl.
"$bin" --root "$fx/h200-vm.tar.gz" report all --json > "$T/all.json" 2> "$T/all.err"
if python3 - "$T/all.json" > "$T/all.out" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["nccl"] == "NCCL 2.28.3", j["nccl"]
assert j["cuda"].startswith("CUDA runtime 13.0"), j["cuda"]
assert [n["name"] for n in j["netdevs"]][:1] == ["eth0"], j["netdevs"]
PY
then ok "h200-vm: CUDA and NCCL status as the node reported them"
else notok "h200-vm: CUDA and NCCL status as the node reported them" "$T/all.out" "$T/all.err"
fi
exit 0
