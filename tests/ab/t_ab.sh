#!/bin/sh
# The A/B step of `fabtop wizard --batch` on real processes: build/tests/fake_nccl
# stands in for an nccl-tests run in each of its modes and every A/B verdict
# must come out, in the text and in the JSON, with the exit status (0 rdma-ok,
# 1 a problem, 2 not-run); the hang modes must leave no process behind (each
# run carries a unique marker argument, looked for with pgrep -f); the Open
# MPI stand-in (tests/ab/mpirun) only gets the A/B's variables through the -x
# arguments the A/B inserts; an inherited NCCL_DEBUG_FILE is removed; without
# a command and without all_reduce_perf on PATH the step is blocked with the
# how-to; with all_reduce_perf on PATH (a symlink to fake_nccl) and a root of
# eight GPUs the loopback run is proposed and run.
# Needs python3. Prints "ok - name" / "not ok - name".
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
FAKE=$TOP/build/tests/fake_nccl
MPIRUN=$TOP/tests/ab/mpirun
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
T=$(mktemp -d /tmp/fabtop-ab.XXXXXX) || exit 1
M=fabtop-tab-$$             # marker prefix of this run's children

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; }
comment() { sed 's/^/#   /'; }
check() {   # check NAME CONDITION-COMMAND...
	_n=$1; shift
	if "$@"; then ok "$_n"; else notok "$_n"; fi
}
cleanup() {
	pkill -KILL -f "$M" 2>/dev/null   # only this run's markers: a failed test leaves nothing either
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

for c in python3 pgrep; do
	if ! command -v $c >/dev/null; then
		ok "the A/B on fake_nccl # SKIP needs $c (scripts/deps.sh check)"
		exit 0
	fi
done
for f in "$BIN" "$FAKE"; do
	if [ ! -x "$f" ]; then
		notok "no program at $f (make build/san/fabtop build/tests/fake_nccl)"
		exit 0
	fi
done

# jget FILE EXPR: a value from the JSON document (d), "ERR" when it does not parse.
jget() {
	python3 -c "import json,sys
d = json.load(open(sys.argv[1]))
s = d['wizard']['steps'][0]
print(eval(sys.argv[2]))" "$1" "$2" 2>/dev/null || echo ERR
}

# ab MODE HANG: both outputs of the A/B on fake_nccl MODE, exit codes in $T/MODE.rc*.
ab() {
	"$BIN" wizard --batch --steps ab --hang "$2" -- "$FAKE" "$1" "$M-$1" >"$T/$1.txt" 2>&1
	echo $? >"$T/$1.rc"
	"$BIN" wizard --batch --json --steps ab --hang "$2" -- "$FAKE" "$1" "$M-$1" >"$T/$1.json" 2>"$T/$1.err"
	echo $? >"$T/$1.jrc"
}

# case MODE HANG VERDICT STATUS EXIT STATE_A STATE_B
case_mode() {
	mode=$1 verdict=$3 status=$4 want_rc=$5
	ab "$1" "$2"
	rc=$(cat "$T/$mode.rc") jrc=$(cat "$T/$mode.jrc")
	if grep -q "^  verdict: $verdict: " "$T/$mode.txt" && grep -Eq "^  A/B: $verdict(,|$)" "$T/$mode.txt" &&
	   grep -q "^\[ab\] 4 NCCL: The NCCL test with and without IB (A/B) *$status (" "$T/$mode.txt"; then
		ok "$mode: text says $verdict, step $status"
	else
		notok "$mode: text says $verdict, step $status"; comment <"$T/$mode.txt"
	fi
	check "$mode: exit $want_rc (text $rc, json $jrc)" [ "$rc" = "$want_rc" ] && [ "$jrc" = "$want_rc" ]
	got=$(jget "$T/$mode.json" "'%s %s %s %s %s %s' % (s['ab']['verdict'], s['status'], s['findings'][0]['id'], s['ab']['runs'][0]['state'], s['ab']['runs'][1]['state'], d['wizard']['exit'])")
	want="$verdict $status ab.$verdict $6 $7 $want_rc"
	if [ "$got" = "$want" ]; then
		ok "$mode: JSON $want"
	else
		notok "$mode: JSON \"$got\", want \"$want\""; comment <"$T/$mode.json"; comment <"$T/$mode.err"
	fi
	if pgrep -f "$M-$mode" >/dev/null; then
		notok "$mode: nothing left running"; pgrep -af "$M-$mode" | comment
	else
		ok "$mode: nothing left running"
	fi
}

case_mode ok 5 rdma-ok pass 0 completed completed
case_mode slow 5 rdma-slow warn 1 completed completed
case_mode ib-fail 5 rdma-path-problem fail 1 failed completed
case_mode ib-hang 2 rdma-path-problem fail 1 hung completed
case_mode both-fail 5 not-rdma fail 1 failed failed
case_mode both-hang 2 not-rdma fail 1 hung hung
case_mode no-ib 5 ib-not-used warn 1 completed completed
case_mode plugin-ignores 5 ib-disable-ignored warn 1 completed completed
case_mode b-fail 5 socket-path-problem warn 1 completed failed
case_mode not-nccl 5 not-run fail 2 completed "not-run"

# The numbers behind the verdicts, from the JSON.
check "ok: A/B ratio 20 by bus bandwidth, A over IB with mlx5_0:1/RoCE and GDR on, B over sockets" \
	[ "$(jget "$T/ok.json" "'%.2f %s %s %s:%d/%s %s %s %s' % (s['ab']['ratio'], s['ab']['measure'], s['ab']['runs'][0]['log']['networks'][0]['name'], s['ab']['runs'][0]['log']['hcas'][0]['name'], s['ab']['runs'][0]['log']['hcas'][0]['port'], s['ab']['runs'][0]['log']['hcas'][0]['link_layer'], s['ab']['runs'][0]['log']['gdr']['state'], s['ab']['runs'][1]['log']['networks'][0]['name'], s['ab']['runs'][1]['transport'])")" \
	= "20.00 bus bandwidth IB mlx5_0:1/RoCE on Socket socket" ]
check "ib-fail: A's error is a completion error with status 12, its last lines kept" \
	[ "$(jget "$T/ib-fail.json" "'%s %d %d' % (s['ab']['runs'][0]['log']['errors']['list'][0]['kind'], 'IBV_WC_RETRY_EXC_ERR(12)' in s['ab']['runs'][0]['log']['errors']['list'][0]['text'], s['ab']['runs'][0]['last_lines'][-1].endswith(': Test failure common.cu:891'))")" \
	= "completion-error 1 1" ]
check "ib-hang: A hung after 2 s (no output), elapsed under 4 s" \
	[ "$(jget "$T/ib-hang.json" "'%s %d' % (s['ab']['runs'][0]['why'], s['ab']['runs'][0]['elapsed_s'] < 4)")" = "no output for 2 s (killed) 1" ]
check "ib-hang: the text names the hang and the next steps" \
	grep -q "^  hint:    A stopped with no error: RoCE path MTU or PFC" "$T/ib-hang.txt"
check "plugin-ignores: the hint says NCCL_NET=Socket" \
	grep -q "^  hint:    the net plugin ignores NCCL_IB_DISABLE: set NCCL_NET=Socket" "$T/plugin-ignores.txt"
check "no-ib: the reason is the log's own (No device found)" \
	grep -q "^  verdict: ib-not-used: run A completed but over Socket: NCCL never used the RDMA network (No device found)$" "$T/no-ib.txt"
check "not-nccl: B is not run, the exit line says the A/B could not run" \
	grep -q "^exit status 2 (the A/B could not run)$" "$T/not-nccl.txt"
check "a completed run's last lines only with --verbose; a failed run's always" \
	[ "$(grep -c '^    last lines:' "$T/ok.txt") $(grep -c '^    last lines:' "$T/ib-fail.txt")" = "0 1" ]
check "both commands shown, B with NCCL_IB_DISABLE=1 first" \
	grep -q "^           run B: NCCL_IB_DISABLE=1 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET $FAKE ok $M-ok$" "$T/ok.txt"

# --verbose: the raw output holds both runs' summaries.
"$BIN" wizard --batch --verbose --steps ab --hang 5 -- "$FAKE" ok "$M-v" >"$T/v.txt" 2>&1
check "--verbose: last lines of the completed runs and the raw output" \
	[ "$(grep -c '^    last lines:' "$T/v.txt") $(grep -c '^    run [AB]: ' "$T/v.txt")" = "2 2" ]

# An inherited NCCL_DEBUG_FILE would send the log to a file: the A/B removes it.
NCCL_DEBUG_FILE=$T/debug.%h.%p NCCL_DEBUG=WARN "$BIN" wizard --batch --steps ab --hang 5 -- "$FAKE" ok "$M-f" >"$T/f.txt" 2>&1
rc=$?
check "NCCL_DEBUG_FILE and NCCL_DEBUG=WARN inherited: still rdma-ok, no debug file written" \
	[ "$rc" = 0 ] && [ -z "$(ls "$T" | grep '^debug\.')" ]

# Open MPI: the stand-in passes only -x variables to its ranks.
NCCL_DEBUG=INFO "$MPIRUN" -np 2 "$FAKE" ok >"$T/mpi-bare.txt" 2>&1
check "mpirun stand-in: without -x the ranks see no NCCL_DEBUG (no NCCL line)" \
	[ "$(grep -c 'NCCL INFO' "$T/mpi-bare.txt")" = 0 ]
"$BIN" wizard --batch --json --steps ab --hang 5 -- "$MPIRUN" -np 2 "$FAKE" ok "$M-mpi" >"$T/mpi.json" 2>&1
rc=$?
got=$(jget "$T/mpi.json" "'%s %s | %s' % (s['ab']['verdict'], s['ab']['runs'][1]['command'], s['ab']['launcher'])")
want="rdma-ok $MPIRUN -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET -x NCCL_IB_DISABLE=1 -np 2 $FAKE ok $M-mpi | mpirun --version says Open MPI: the variables go to the ranks as -x NAME=VALUE"
if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then
	ok "mpirun: -x inserted after the launcher, rdma-ok"
else
	notok "mpirun: -x inserted after the launcher, rdma-ok (exit $rc)"; echo "$got" | comment
fi

# Hydra (MPICH, Intel MPI) refuses -x and passes the environment on: an
# mpirun that says so gets none, by its name or by its --version.
HYDRA=$TOP/tests/ab/mpiexec.hydra
mkdir -p "$T/hydra"
ln -s "$HYDRA" "$T/hydra/mpirun"
for l in "$HYDRA" "$T/hydra/mpirun"; do
	"$BIN" wizard --batch --json --steps ab --hang 5 -- "$l" -np 2 "$FAKE" ok "$M-hydra" >"$T/hydra.json" 2>&1
	rc=$?
	got=$(jget "$T/hydra.json" "'%s %s' % (s['ab']['verdict'], s['ab']['runs'][1]['command'])")
	want="rdma-ok NCCL_IB_DISABLE=1 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET $l -np 2 $FAKE ok $M-hydra"
	if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then
		ok "Hydra launcher $(basename "$l"): no -x inserted, the environment passed, rdma-ok"
	else
		notok "Hydra launcher $(basename "$l"): no -x inserted (exit $rc)"; echo "$got" | comment
	fi
done

# No command: the loopback proposal, or blocked with the how-to.
mkdir -p "$T/empty" "$T/bin"
PATH=$T/empty:/usr/bin:/bin "$BIN" wizard --batch --steps ab >"$T/none.txt" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "blocked (" "$T/none.txt" &&
   grep -q "^  verdict: blocked: no NCCL test command, and no all_reduce_perf on PATH for a loopback run: give the NCCL test after --: fabtop wizard --steps ab -- all_reduce_perf -b 8 -e 1G -f 2 -g 8$" "$T/none.txt"; then
	ok "no command, no all_reduce_perf: blocked with the how-to, exit 1"
else
	notok "no command, no all_reduce_perf: blocked with the how-to, exit 1 (exit $rc)"; comment <"$T/none.txt"
fi
ln -s "$FAKE" "$T/bin/all_reduce_perf"
# A capture is another node: its GPUs do not make a loopback run here.
PATH=$T/bin:/usr/bin:/bin "$BIN" --root "$TOP/build/scenarios/dgx-h100" wizard --batch --steps ab >"$T/cap.txt" 2>&1
rc=$?
check "all_reduce_perf on PATH, a capture's 8 GPUs: no loopback proposed, blocked, exit 1" \
	[ "$rc" = 1 ] && grep -q "^  verdict: blocked: no NCCL test command, and --root dgx-h100 is a capture (a loopback run needs this node's GPUs): give the NCCL test after --: " "$T/cap.txt"
# The same node as a mirror of its files (no fabtop/meta.json): this node.
cp -r "$TOP/build/scenarios/dgx-h100" "$T/node" && rm -f "$T/node/fabtop/meta.json"
PATH=$T/bin:/usr/bin:/bin "$BIN" --root "$T/node" wizard --batch --json --steps ab --hang 5 >"$T/lb.json" 2>&1
rc=$?
got=$(jget "$T/lb.json" "'%s | %s | %s' % (s['ab']['verdict'], s['commands'][0], s['inputs'][0])")
want="rdma-ok | run A: NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET all_reduce_perf -b 8 -e 256M -f 4 -g 8 | the single-node NIC loopback run (all_reduce_perf on PATH, 8 GPUs here; NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1: the GPUs talk through the NIC)"
if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then
	ok "all_reduce_perf on PATH, 8 GPUs: the loopback run proposed and run, rdma-ok"
else
	notok "all_reduce_perf on PATH, 8 GPUs: the loopback run proposed and run (exit $rc)"; echo "$got" | comment
fi
PATH=$T/bin:/usr/bin:/bin FAKE_NCCL_MODE=ib-fail "$BIN" --root "$T/node" wizard --batch --steps ab --hang 5 >"$T/lb2.txt" 2>&1
check "the loopback run reaches other verdicts too (ib-fail: rdma-path-problem)" \
	grep -q "^  verdict: rdma-path-problem: " "$T/lb2.txt"
mkdir -p "$T/nogpu/sys"   # an empty node root: a node with no GPU
PATH=$T/bin:/usr/bin:/bin "$BIN" --root "$T/nogpu" wizard --batch --steps ab >"$T/nogpu.txt" 2>&1
rc=$?
check "all_reduce_perf on PATH but no GPU: blocked, exit 1" \
	[ "$rc" = 1 ] && grep -q "^  verdict: blocked: no NCCL test command, and a loopback run needs two GPUs here (0 found): give the NCCL test after --: fabtop wizard --steps ab -- all_reduce_perf -b 8 -e 1G -f 2 -g 8$" "$T/nogpu.txt"

# A missing program: not-run, exit 2.
"$BIN" wizard --batch --steps ab -- /nonexistent/all_reduce_perf -g 8 >"$T/missing.txt" 2>&1
rc=$?
check "a missing program: not-run, exit 2, the runner's message" \
	[ "$rc" = 2 ] && grep -q "^  verdict: not-run: run A could not start: cannot run /nonexistent/all_reduce_perf: No such file or directory$" "$T/missing.txt"
exit 0
