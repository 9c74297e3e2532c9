#!/bin/sh
# `fabtop analyze-log` end to end: the verdict and exit code of every log in
# tests/fixtures/nccl-logs (text and JSON), stdin and a pipe whose writer
# stalls mid-line, several files as one job, a 3 MiB line, and what it cannot
# read (missing, a directory, no permission, binary garbage, empty, bad usage).
# Runs $FABTOP analyze-log. Prints "ok - name" / "not ok - name".
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FABTOP:-$top/build/san/fabtop}
F=$top/tests/fixtures/nccl-logs
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-analyze-log.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /' | head -n 15; done; }

run() { "$bin" analyze-log "$@"; }
if [ ! -x "$bin" ]; then
	nok "fabtop binary $bin is missing (make build/san/fabtop)"
	exit 0
fi

# verdict line and exit code, then the same verdict in the JSON
check() {
	name=$1 want_rc=$2 want=$3; shift 3
	run "$@" >"$T/out" 2>"$T/err"; rc=$?
	got=$(head -n 1 "$T/out")
	if [ "$rc" -eq "$want_rc" ] && [ "$got" = "verdict      $want" ]; then ok "$name"
	else nok "$name" "rc $rc (want $want_rc)" "got:  $got" "want: verdict      $want" "$(cat "$T/err")"; fi
}
check_json() {
	name=$1 want_rc=$2 filter=$3 want=$4; shift 4
	run --json "$@" >"$T/out.json" 2>"$T/err"; rc=$?
	got=$(jq -c "$filter" "$T/out.json" 2>&1)
	if [ "$rc" -eq "$want_rc" ] && [ "$got" = "$want" ]; then ok "$name"
	else nok "$name" "rc $rc (want $want_rc)" "got:  $got" "want: $want" "$(cat "$T/err")"; fi
}

# One node (nccl-tests#213): NCCL named IB, every channel P2P: never "over IB".
check "one node over P2P, IB named" 1 "incomplete: stopped while NCCL connected its channels" "$F/nccltests213-v2.19-one-node-p2p.log"
run "$F/nccltests213-v2.19-one-node-p2p.log" >"$T/out" 2>&1
if grep -qx 'network      IB (named only: no NET channel, P2P within one node)' "$T/out" &&
   grep -qx 'nccl-tests   not in the log' "$T/out" && ! grep -q 'over IB' "$T/out"; then
	ok "one node: IB named only, no NET channel"
else nok "one node: IB named only, no NET channel" "$(cat "$T/out")"; fi
check "h200 socket fallback" 1 "socket-fallback: No device found" "$F/h200-socket-ok.log"
check "h200 IB disabled" 1 "socket-by-config: IB was not tried (NCCL_IB_DISABLE=1 or NCCL_NET=Socket in the environment; this log does not say which)" "$F/h200-ib-disabled.log"
check "h200 bad NCCL_SOCKET_IFNAME" 1 "bootstrap-error: Bootstrap : no socket interface found (NCCL_SOCKET_IFNAME=bogus0)" "$F/h200-bad-ifname.log"
check "h200 duplicate GPU, two rank files" 1 "invalid-usage: Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 60" "$F/h200-duplicate-gpu.rank0.log" "$F/h200-duplicate-gpu.rank1.log"
check "h200 torch IB disabled (SUBSYS=ALL)" 1 "socket-by-config: NCCL_IB_DISABLE=1 set by environment" "$F/h200-torch-ib-disabled-subsys-all.log"
check "h200 torch NCCL_NET=IB without IB" 1 "ib-error: Failed to initialize any NET plugin (NET/IB: No device found)" "$F/h200-torch-net-ib-forced.log"
check "2.10 IB with GDR: exit 0" 0 "ok: completed over IB, GPUDirect RDMA on" "$F/v2.10-ib-gdr-ok.log"
check "2.12 RoCE without GDR" 1 "no-gdr: completed over IB without GPUDirect RDMA (staged through host memory)" "$F/v2.12-roce-no-gdr.log"
check "2.18 no libibverbs" 1 "socket-fallback: Failed to open libibverbs.so[.1]" "$F/v2.18-socket-fallback-no-verbs.log"
check "2.21 IBext plugin with NCCL_IB_DISABLE=1" 0 "ok: completed over IBext_v8, GPUDirect RDMA on" "$F/v2.21-ibext-plugin-ignores-ib-disable.log"
check "2.23 QP connect timeout" 1 "ib-error: Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_3:1, curr state INIT, next state RTR, local GID index 3" "$F/v2.23-modify-qp-timeout.log"
check "2.24 nccl-tests hang" 1 "incomplete: nccl-tests all_reduce_perf stopped after the 65536-byte row, before its summary" "$F/v2.24-tests-hang.log"
check "2.26 wrong values" 1 "nccl-error: nccl-tests found 24 wrong values in all_reduce_perf (Out of bounds values)" "$F/v2.26-wrong-values.log"

# issue 13: the verdict is the cause even when the log is cut; outcome apart;
# warnings. Real logs from public trackers (tests/fixtures/nccl-logs/README):
# NVIDIA/nccl#1126, NVIDIA/nccl#1267, pytorch/pytorch#68893.
check "nccl#1126 2.10: lo, no IB device, cut: the fallback is the headline" 1 "socket-fallback: No device found" "$F/issue1126-v2.10-lo-no-device-cut.log"
check_json "JSON: nccl#1126 outcome and lo warnings" 1 '[.outcome, .outcome_reason, [.warnings[] | [.kind, .role, .interface]]]' \
	'["incomplete","the log ends before NCCL initialised a communicator",[["not-fabric-interface","bootstrap","lo"],["not-fabric-interface","socket","lo"]]]' "$F/issue1126-v2.10-lo-no-device-cut.log"
check "nccl#1267 2.19: plugin without this NCCL's symbols, cut in init" 1 "socket-fallback: No device found" "$F/issue1267-v2.19-plugin-symbol.log"
check_json "JSON: nccl#1267 net plugin failed" 1 '[.net_plugin, .outcome, [.warnings[].kind]]' \
	'[{"state":"failed","name":null,"error":"Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 and lower are not supported."},"incomplete",["net-plugin-failed"]]' "$F/issue1267-v2.19-plugin-symbol.log"
check_json "JSON: h200 NCCL_NET_PLUGIN=nosuch is a failed plugin" 1 '[.verdict, .net_plugin.state, .net_plugin.error, .outcome]' \
	'["socket-fallback","failed","Could not find: nosuch libnccl-net-nosuch.so","completed"]' "$F/h200-torch-timestamps-plugin.log"
check_json "JSON: pytorch#68893 2.7: socket traffic over a veth" 1 '[.verdict, .errors.total, .outcome_reason, [.warnings[] | [.role, .interface]]]' \
	'["socket-fallback",0,"stopped while NCCL connected its channels",[["socket","veth75fa783"]]]' "$F/torch68893-v2.7-veth-socket.log"
run "$F/issue1126-v2.10-lo-no-device-cut.log" >"$T/out" 2>&1
if grep -qx 'outcome      incomplete: the log ends before NCCL initialised a communicator' "$T/out" &&
   grep -qx 'warning      bootstrap over lo, not the fabric (loopback: no other node can reach it): set NCCL_SOCKET_IFNAME to the interface the nodes reach each other on' "$T/out"
then ok "text: outcome and warning lines"; else nok "text: outcome and warning lines" "$(head -n 8 "$T/out")"; fi

check_json "JSON: 2.19 completion error" 1 '[.verdict, .errors.list[0].kind, .errors.list[0].status, .errors.list[0].status_text, .ranks]' \
	'["ib-error","completion-error",12,"transport retry counter exceeded",2]' "$F/v2.19-completion-error-mpirun.log"
check_json "JSON: 2.10 HCAs, GDR, bus bandwidth" 0 '[.hcas[].name, .gdr.state, .nccl_tests.runs[0].avg_busbw_gbs, .nccl_tests.runs[0].sizes[3].busbw_oop_gbs, .qps.mtu]' \
	'["mlx5_0","mlx5_1","on",18.7711,58.99,[4096]]' "$F/v2.10-ib-gdr-ok.log"
check_json "JSON: h200 bad ifname env and files" 1 '[.env, .files[0].lines, .version, .bootstrap.interface]' \
	'[[{"name":"NCCL_SOCKET_IFNAME","value":"bogus0","conflict":false}],8,null,null]' "$F/h200-bad-ifname.log"

# issue 13, class 8: several nccl-tests runs in one output, each with its own
# table, average, peak and verdict, and the peak against the line rate of the
# HCAs NCCL used.
# nccl-tests#78 (https://github.com/NVIDIA/nccl-tests/issues/78, ngc7292's
# comment, 8 nodes x 8 V100, 100G IB): all_reduce then alltoall, pasted one
# after the other; the alltoall rows of that nccl-tests have no redop.
check_json "nccl-tests#78: all_reduce then alltoall, two runs" 0 \
	'[.verdict, .outcome, [.nccl_tests.runs[] | [.name, .verdict, .avg_busbw_gbs, .peak_busbw_gbs, .peak_bytes, (.sizes | length), .sizes[1].redop, .sizes[1].busbw_oop_gbs]]]' \
	'["ok","completed",[[null,"ok",4.32178,4.33,268435456,2,"sum",4.32],[null,"ok",0.507636,0.51,268435456,2,null,0.51]]]' \
	"$F/tests78-v2.8-allreduce-then-alltoall.log"
run "$F/tests78-v2.8-allreduce-then-alltoall.log" >"$T/out" 2>&1
sed -n '/^nccl-tests/,/^errors/p' "$T/out" | grep -v '^errors' >"$T/runs.txt"
cat >"$T/want.txt" <<'EOW'
nccl-tests   2 runs
  run 1 ok: peak bus bandwidth 4.33 GB/s at 268435456 B; line rate unknown
    avg bus bandwidth 4.32 GB/s, out of bounds values 0
    line rate unknown: no NCCL INFO line says which HCAs NCCL used (set NCCL_DEBUG=INFO)
         size(B)        count     type  redop      algbw      busbw   algbw ip   busbw ip
       268435456     67108864    float    sum       2.20       4.33       2.20       4.33
       536870912    134217728    float    sum       2.19       4.32       2.19       4.32
  run 2 ok: peak bus bandwidth 0.51 GB/s at 268435456 B; line rate unknown
    avg bus bandwidth 0.51 GB/s, out of bounds values 0
    line rate unknown: no NCCL INFO line says which HCAs NCCL used (set NCCL_DEBUG=INFO)
         size(B)        count     type  redop      algbw      busbw   algbw ip   busbw ip
       268435456      1048576    float    N/A       0.52       0.51       0.52       0.51
       536870912      2097152    float    N/A       0.52       0.51       0.52       0.51
EOW
if diff -u "$T/want.txt" "$T/runs.txt" >"$T/diff"; then ok "text: one table per run"
else nok "text: one table per run" "$(cat "$T/diff")"; fi

# Two DGX H100 nodes (the dgx-h100 scenario: 8 x 400G NDR compute HCAs),
# 16 ranks, alltoall_perf then sendrecv_perf in nccl-tests 2.17's wording
# (written: tests/fixtures/nccl-logs/README). Per rank: 8 x 400 Gb/s / 8
# ranks = 50 GB/s; alltoall on 2 nodes x 2/1 = 100 GB/s (nccl-tests#130).
A2S=$F/v2.28-tests-alltoall-then-sendrecv.log
H100=${FABTOP_SCENARIOS:-$top/build/scenarios}/dgx-h100
if [ -d "$H100" ]; then
	run --root "$H100" "$A2S" >"$T/out" 2>"$T/err"; rc=$?
	sed -n '/^nccl-tests/,/^errors/p' "$T/out" | grep -v '^ *size(B)\|^ *[0-9]\|^errors' >"$T/runs.txt"
	cat >"$T/want.txt" <<'EOW'
nccl-tests   2 runs
  alltoall_perf ok: peak bus bandwidth 86.41 GB/s at 4294967296 B is 86% of the 100.00 GB/s line rate per rank
    avg bus bandwidth 76.16 GB/s, out of bounds values 0
    line rate 100.00 GB/s per rank (peak 86%): the 8 HCAs NCCL used, 3200 Gb/s in all, shared by 8 ranks per node, x 2/1 for alltoall on 2 nodes (only the off-node share crosses the NICs)
  sendrecv_perf low-busbw: peak bus bandwidth 21.99 GB/s at 4294967296 B is 44% of the 50.00 GB/s line rate per rank (under 75%)
    avg bus bandwidth 19.98 GB/s, out of bounds values 0
    line rate 50.00 GB/s per rank (peak 44%): the 8 HCAs NCCL used, 3200 Gb/s in all, shared by 8 ranks per node
EOW
	if [ $rc -eq 1 ] && head -n 1 "$T/out" | grep -qx 'verdict      ok: completed over IB, GPUDirect RDMA on' &&
	   diff -u "$T/want.txt" "$T/runs.txt" >"$T/diff"
	then ok "--root dgx-h100: alltoall ok, sendrecv low against the line rate, exit 1"
	else nok "--root dgx-h100: alltoall ok, sendrecv low against the line rate, exit 1" "rc $rc" "$(cat "$T/diff" "$T/err")"; fi
	check_json "JSON: per-run line rate" 1 \
		'[.nccl_tests.runs[] | [.name, .named_by, .verdict, .avg_busbw_gbs, .peak_busbw_gbs, .line_rate.per_rank_gbs, .line_rate.pct]]' \
		'[["alltoall_perf","nccl-tests","ok",76.1637,86.41,100,86.41],["sendrecv_perf","nccl-tests","low-busbw",19.98,21.99,50,43.98]]' \
		--root "$H100" "$A2S"
	# Cut inside the second run: the first keeps its verdict, the log is incomplete.
	head -n -4 "$A2S" >"$T/cut.log"
	check_json "second run cut: incomplete, named" 1 \
		'[.verdict, .reason, [.nccl_tests.runs[] | .verdict]]' \
		'["incomplete","nccl-tests sendrecv_perf stopped after the 4294967296-byte row, before its summary",["ok","incomplete"]]' \
		--root "$H100" "$T/cut.log"
else
	ok "--root dgx-h100 line rate # SKIP no build/scenarios/dgx-h100 (make tests)"
fi
# Without --root, this node judges only when it has every HCA the log names.
if [ ! -e /sys/class/infiniband/mlx5_11 ]; then
	check_json "no --root, HCAs not on this node: line rate unknown, says why" 0 \
		'[.nccl_tests.runs[] | [.verdict, .line_rate.per_rank_gbs, .line_rate.basis]]' \
		'[["ok",null,"this node does not have the HCAs the log names (give --root with a capture of that node)"],["ok",null,"this node does not have the HCAs the log names (give --root with a capture of that node)"]]' \
		"$A2S"
else
	ok "no --root, HCAs not on this node # SKIP this node has mlx5_11"
fi
run --root "$T/no-such-root" "$A2S" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "cannot open root $T/no-such-root" "$T/err"; then ok "--root that does not open: exit 2"
else nok "--root that does not open: exit 2" "rc $rc" "$(cat "$T/err")"; fi
run --root >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && grep -q -- '--root needs a directory' "$T/err"; then ok "--root without a value: exit 2"
else nok "--root without a value: exit 2" "rc $rc" "$(cat "$T/err")"; fi

# stdin, and a pipe whose writer stops in the middle of a line
run - <"$F/v2.12-roce-no-gdr.log" >"$T/out" 2>&1; rc=$?
if [ $rc -eq 1 ] && head -n 1 "$T/out" | grep -q '^verdict      no-gdr:' && grep -q '^read         stdin (34 lines)' "$T/out"
then ok "stdin as -"; else nok "stdin as -" "rc $rc" "$(cat "$T/out")"; fi
{ head -c 1000 "$F/v2.10-ib-gdr-ok.log"; sleep 0.3; tail -c +1001 "$F/v2.10-ib-gdr-ok.log"; } | run --json - >"$T/pipe.json" 2>&1; rc=$?
run --json "$F/v2.10-ib-gdr-ok.log" >"$T/file.json" 2>&1
if [ $rc -eq 0 ] && [ "$(jq -c 'del(.files)' "$T/pipe.json")" = "$(jq -c 'del(.files)' "$T/file.json")" ]
then ok "a pipe that stalls mid-line reads as the file does"; else nok "a pipe that stalls mid-line reads as the file does" "rc $rc" "$(head -c 600 "$T/pipe.json")"; fi

# one line longer than the read buffer, then a real log
{ head -c 3145728 /dev/zero | tr '\0' x; echo; cat "$F/h200-socket-ok.log"; } >"$T/long.log"
check_json "3 MiB line, then a log" 1 '[.verdict, .lines, .long_lines, .nccl_lines]' '["socket-fallback",310,1,309]' "$T/long.log"

# what cannot be read
run "$T/nonexistent.log" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && grep -qx "fabtop: cannot read $T/nonexistent.log: No such file or directory" "$T/err"
then ok "missing file: exit 2, says so"; else nok "missing file: exit 2, says so" "rc $rc" "$(cat "$T/err")"; fi
run "$T" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && grep -qx "fabtop: cannot read $T: Is a directory" "$T/err"
then ok "directory: exit 2"; else nok "directory: exit 2" "rc $rc" "$(cat "$T/err")"; fi
run "$F/v2.10-ib-gdr-ok.log" "$T/nonexistent.log" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && head -n 1 "$T/out" | grep -q '^verdict      ok:'
then ok "one of two files missing: the other analysed, exit 2"; else nok "one of two files missing: the other analysed, exit 2" "rc $rc" "$(cat "$T/out" "$T/err")"; fi
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	cp "$F/h200-socket-ok.log" "$T/private.log"; chmod 600 "$T/private.log"
	setpriv --reuid=65534 --regid=65534 --clear-groups "${drv:-$bin}" analyze-log "$T/private.log" \
		>"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && grep -qx "fabtop: cannot read $T/private.log: Permission denied" "$T/err"
	then ok "no permission: exit 2"; else nok "no permission: exit 2" "rc $rc" "$(cat "$T/err")"; fi
else
	ok "no permission: exit 2 # SKIP needs root and setpriv"
fi
head -c 1048576 /dev/urandom >"$T/garbage.bin"
check "binary garbage: unknown, exit 2" 2 "unknown: no NCCL lines found" "$T/garbage.bin"
if grep -q "no NCCL lines found in $T/garbage.bin (was NCCL_DEBUG=INFO set?)" "$T/err"
then ok "binary garbage: says why"; else nok "binary garbage: says why" "$(cat "$T/err")"; fi
: >"$T/empty.log"
check "empty file: unknown, exit 2" 2 "unknown: no NCCL lines found" "$T/empty.log"

run >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && grep -q 'needs a log file' "$T/err"; then ok "no file: usage, exit 2"; else nok "no file: usage, exit 2" "rc $rc"; fi
run --frobnicate "$F/h200-socket-ok.log" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && grep -q 'unknown option "--frobnicate"' "$T/err"; then ok "unknown option: exit 2"; else nok "unknown option: exit 2" "rc $rc"; fi
run --help >"$T/out" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q '^usage: fabtop analyze-log FILE' "$T/out"; then ok "--help"; else nok "--help" "rc $rc"; fi
exit 0
