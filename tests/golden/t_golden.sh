#!/bin/sh
# Golden tests of `fabtop report topo`, `report links` and `report counters`
# (text and JSON) on the scenarios, the exit statuses, the live root of this
# machine, and rules that need a variant of a fixture. UPDATE=1 rewrites the expected files (then read them!).
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FABTOP:-$top/build/san/fabtop}
g=$top/tests/golden
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "#   $l"; done; }

golden() {  # name, expected file, command...
	name=$1 exp=$2; shift 2
	"$@" > "$T/out" 2> "$T/err"; rc=$?
	echo "$rc" > "$T/rc"
	if [ -n "${UPDATE:-}" ]; then cp "$T/out" "$exp"; fi
	if [ ! -f "$exp" ]; then nok "$name" "missing $exp (run with UPDATE=1)"; return; fi
	if diff -u "$exp" "$T/out" > "$T/diff"; then ok "$name"; else nok "$name" "$(head -20 "$T/diff")"; fi
}
expect_rc() {  # name, expected rc
	got=$(cat "$T/rc")
	[ "$got" = "$2" ] && ok "$1 exits $2" || nok "$1 exits $2" "got $got: $(head -3 "$T/err")"
}

for s in dgx-h100 pcie-2numa busy hang congested far-nic; do
	golden "report topo text $s" "$g/$s-topo.txt" "$bin" --root "$top/build/scenarios/$s" report topo
	# pcie-2numa and far-nic: a GPU whose closest usable NIC is far (topo.nic-far).
	case $s in pcie-2numa|far-nic) expect_rc "report topo $s" 1 ;; *) expect_rc "report topo $s" 0 ;; esac
	golden "report topo json $s" "$g/$s-topo.json" "$bin" --root "$top/build/scenarios/$s" report topo --json
	if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" 2>/dev/null; then
		ok "report topo json $s parses"
	else
		nok "report topo json $s parses"
	fi
done

# report links on every scenario; the exit status says whether a port has a
# finding of warning severity or worse.
for d in "$top"/build/scenarios/*/; do
	[ -f "$d/fabtop/meta.json" ] || continue
	s=$(basename "$d")
	golden "report links text $s" "$g/$s-links.txt" "$bin" --root "$d" report links
	# hang: its snapshot holds local_ack_timeout_err=126 on 6 ports (links.transport-errors).
	# gb10-spark: its multi-host card and uncabled ports are info, nothing worse.
	# socket-fallback, wrong-gid, far-nic: healthy links; their faults are the
	# job's settings and the topology (job step, report topo).
	case $s in dgx-h100|ib-8port|busy|congested|gb10-spark|socket-fallback|wrong-gid|far-nic) want=0 ;; *) want=1 ;; esac
	expect_rc "report links $s" $want
	golden "report links json $s" "$g/$s-links.json" "$bin" --root "$d" report links --json
done

# report counters on the scenarios with samples: the first 5 after the
# baseline (hang's counters are still healthy then, but its recorded QPs are
# not; its full run is checked in tests/counters).
# mtu-blackhole: its rail 5 is still whole in the first 5, but one of its
# recorded QPs is in ERR.
for s in busy:0 hang:1 congested:1 mtu-blackhole:1; do
	n=${s%%:*}
	golden "report counters text $n" "$g/$n-counters.txt" "$bin" --root "$top/build/scenarios/$n" report counters --count 5
	expect_rc "report counters $n" "${s##*:}"
	golden "report counters json $n" "$g/$n-counters.json" "$bin" --root "$top/build/scenarios/$n" report counters --count 5 --json
	expect_rc "report counters --json $n" "${s##*:}"
done

# The JSON carries the same matrix as the text.
"$bin" --root "$top/build/scenarios/dgx-h100" report topo --json > "$T/j"
"$bin" --root "$top/build/scenarios/dgx-h100" report topo > "$T/t"
if python3 - "$T/j" "$T/t" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["topology"]
rows = [l.split("\t") for l in open(sys.argv[2]).read().split("\n\n")[0].splitlines()[1:]]
for r, jr in zip(rows, j["rows"]):
    assert r[0] == jr["label"], (r[0], jr["label"])
    assert [c.strip() for c in r[1:1 + len(jr["cells"])]] == jr["cells"], r[0]
assert len(rows) == len(j["rows"]) == 20
PY
then ok "text and JSON matrices agree"; else nok "text and JSON matrices agree"; fi

# nvidia-smi's layout: a tab-separated header with the affinity columns.
head -1 "$T/t" | grep -q "$(printf '^\tGPU0\tGPU1')" && head -1 "$T/t" | grep -q "$(printf 'NIC11\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID$')" \
	&& ok "header matches nvidia-smi's" || nok "header matches nvidia-smi's" "$(head -1 "$T/t")"

# This machine: no GPU, no HCA. It must say so and exit 0.
"$bin" report topo > "$T/live" 2> "$T/live.err"; rc=$?
if [ $rc -eq 0 ] && grep -q "No GPUs and no RDMA NICs" "$T/live"; then ok "live root without GPU/HCA says so, exits 0"
else nok "live root without GPU/HCA says so, exits 0" "rc $rc" "$(head -3 "$T/live")"; fi

# topo.nic-shared: drop mlx5_1/mlx5_2 from topo-mini, so GPU1 and GPU2 both
# fall back to mlx5_0 while mlx5_3 (same link layer) serves no GPU... only if
# mlx5_3 is closest to nobody, which holds: it sits on the other socket.
cp -a "$top/build/fixtures/topo-mini" "$T/mini"
rm "$T/mini/sys/class/infiniband/mlx5_1" "$T/mini/sys/class/infiniband/mlx5_2"
"$bin" --root "$T/mini" report topo --json > "$T/shared"; rc=$?
if [ $rc -eq 1 ] && python3 - "$T/shared" <<'PY'
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["id"] == "topo.nic-shared"]
assert len(f) == 1 and f[0]["subject"] == "NIC0", f
assert "mlx5_3" in f[0]["message"], f
PY
then ok "topo.nic-shared on a fixture where two GPUs share one NIC"; else nok "topo.nic-shared on a fixture where two GPUs share one NIC" "rc $rc"; fi
# ...and not on the unmodified fixture, where each GPU has its own closest NICs.
"$bin" --root "$top/build/fixtures/topo-mini" report topo --json > "$T/mini.json"
python3 -c 'import json,sys; f=[x for x in json.load(open(sys.argv[1]))["findings"] if x["id"]=="topo.nic-shared"]; sys.exit(1 if f else 0)' "$T/mini.json" \
	&& ok "no topo.nic-shared on topo-mini" || nok "no topo.nic-shared on topo-mini"

# Usage errors exit 2.
"$bin" report nosuch > /dev/null 2>&1; [ $? -eq 2 ] && ok "unknown report exits 2" || nok "unknown report exits 2"
"$bin" --root /nonexistent report topo > /dev/null 2> "$T/e"; rc=$?
[ $rc -eq 2 ] && grep -q "/nonexistent" "$T/e" && ok "missing root exits 2 naming it" || nok "missing root exits 2 naming it" "rc $rc"
exit 0
