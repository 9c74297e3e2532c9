#!/bin/sh
# Screen tests of the A/B in the Wizard pane: `fabtop --root dgx-h100 wizard
# -- fake_nccl MODE` driven headless (FABTOP_SCRIPT), the ab step selected
# and run for real against the stand-in program (tests/ab/fake_nccl.c):
# dumped while run A runs (RUNNING, run B waiting), then after "wait 30"
# once both are over: rdma-ok (ok) and rdma-path-problem (ib-fail) side by
# side at 120x40 and stacked at 80x24, HUNG with --hang 2 (ib-hang), 40x10
# and every size down to it without a crash; x cancels a running A/B and
# leaves no fake_nccl behind; then the real terminal in tmux stays live
# (tabs switch, the elapsed time moves) while the A/B runs.
#
# The dumps are made deterministic: as root each run gets its own UTS and
# PID namespace (host name node1, the same pids every time); elapsed times
# are masked ("in N s"). Without root the exact comparisons are skipped.
# The dumps are the pane's rows (dump-pane), so a new tab leaves them alone;
# the size checks (nothing past the edge, the status bar kept) use whole
# screens.
# UPDATE=1 rewrites tests/ab/expected/*.txt; read the result.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/ab/expected
DGX=$TOP/build/scenarios/dgx-h100
FAKE=$TOP/build/tests/fake_nccl
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS NO_COLOR

PREFIX=fabtop-abscr . "$TOP/tests/screen/lib.sh"
# A word fake_nccl ignores, to find this test's processes; fixed width so
# that the command shown wraps the same way, masked in the comparisons.
MARK=abscr-$(printf %07d $$)
. "$TOP/tests/ab/lib.sh"
ab_ready || exit 0

ROOT=
[ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 && ROOT=1

# Elapsed times vary; everything else is fixed (the namespaces).
mask() {
	sed -E 's/ in [0-9]+\.[0-9]+ s/ in N s/g; s/RUNNING [0-9]+ s/RUNNING N s/g; s/running [0-9]+ s/running N s/g; s/abscr-[0-9]{7}/abscr-MARK/g' "$1"
}

# same DUMP EXPECTED TEST: the masked dump equals tests/ab/expected/EXPECTED.
same() {   # the dump, masked, against the expected one
	if [ ! -f "$1" ]; then
		notok "$3: no dump written"
		return 1
	fi
	if [ -z "$ROOT" ]; then
		ok "$3 # SKIP exact screens need root (UTS/PID namespaces)"
		return 0
	fi
	mkdir -p "$EXP"
	mask "$1" > "$1.m"
	expect_same "$1.m" "$2" "$3"
}

has() {   # has FILE TEST PATTERN...: every grep -E pattern is in the dump
	f=$1 name=$2
	shift 2
	for pat in "$@"; do   # (grep -E, one line each)
		if ! grep -Eq -- "$pat" "$f" 2>/dev/null; then
			notok "$name (no /$pat/)"
			comment < "$f" 2>/dev/null
			return 1
		fi
	done
	ok "$name"
}

# script NAME SIZE WIZARD-ARGS...: $T/NAME.script headless; dumps go to $T/NAME-*.txt.
script() {
	name=$1 size=$2
	shift 2
	if [ -n "$ROOT" ]; then
		headless "$name" "$size" unshare --uts --pid --fork \
			sh -c 'hostname node1 && "$@"' sh "$BIN" --root "$DGX" wizard "$@"
	else
		headless "$name" "$size" "$BIN" --root "$DGX" wizard "$@"
	fi
}

# The ab step is the ladder's last row: Down until it is selected.
select_ab() {
	for i in 1 2 3 4 5 6 7 8; do echo "key Down"; done
}

# ---- rdma-ok: both complete, IB 180 GB/s against sockets 9 ------------------
{
	select_ab
	echo "dump-pane $T/ok-pending.txt"
	echo "key r"
	echo "dump-pane $T/ok-running.txt"
	echo "key r"
	echo "dump-pane $T/ok-busy-r.txt"
	echo "wait 30"
	echo "dump-pane $T/ok-done.txt"
	echo "resize 80 24"
	echo "dump-pane $T/ok-80x24.txt"
	echo "key PgDn"
	echo "dump-pane $T/ok-80x24-pgdn.txt"
	echo "resize 40 10"
	echo "dump $T/ok-40x10.txt"
	echo "key End"
	echo "dump $T/ok-40x10-end.txt"
	echo "key q"
} > "$T/ok.script"
script ok 120x40 -- fake_nccl ok --slow-lines 20 "$MARK"
has "$T/ok-pending.txt" "ok: the ab step selected, pending" '^> . ab ' 'Enter runs|r runs this one'
has "$T/ok-running.txt" "ok: r starts it in the background: run A RUNNING, run B waits for it" \
	'running [0-9]+ s \(x cancels\)' 'A/B verdict: pending' 'RUNNING [0-9]+ s / [0-9]+ lines?' \
	'WAITING for run A' '^x:cancel the running step'
has "$T/ok-busy-r.txt" "ok: r while it runs is refused: a step is running (ab): x cancels" \
	'a step is running \(ab\): x cancels'
same "$T/ok-done.txt" ab-ok-120x40.txt "ok 120x40: rdma-ok on top, A (IB, 180 GB/s) beside B (sockets, 9 GB/s)"
has "$T/ok-done.txt" "ok: the verdict, the ratio and both runs completed" \
	'A/B verdict: rdma-ok' 'COMPLETED in [0-9.]+ s.*COMPLETED in [0-9.]+ s' '180\.00 GB/s.*9\.00 GB/s' \
	'transport +IB \(RDMA\).*transport +Socket \(sockets\)'
same "$T/ok-80x24.txt" ab-ok-80x24.txt "ok 80x24: stacked, the verdict on top"
same "$T/ok-80x24-pgdn.txt" ab-ok-80x24-pgdn.txt "ok 80x24 PgDn: run A above run B"
for f in ok-40x10 ok-40x10-end; do
	if [ -f "$T/$f.txt" ] && [ "$(wc -L < "$T/$f.txt")" -le 40 ] && [ "$(wc -l < "$T/$f.txt")" -eq 10 ] &&
	   tail -1 "$T/$f.txt" | grep -q "q:quit"; then
		ok "$f: clipped to 40x10, the status bar kept"
	else
		notok "$f: clipped to 40x10, the status bar kept"
		comment < "$T/$f.txt" 2>/dev/null
	fi
done

# ---- rdma-path-problem: A's completion error, B over sockets completes -------
{
	select_ab
	echo "key r"
	echo "wait 30"
	echo "dump-pane $T/fail-done.txt"
	echo "resize 80 24"
	echo "dump-pane $T/fail-80x24.txt"
	echo "key q"
} > "$T/fail.script"
script fail 120x40 -- fake_nccl ib-fail "$MARK"
same "$T/fail-done.txt" ab-ib-fail-120x40.txt "ib-fail 120x40: rdma-path-problem, A FAILED exit 1 with its completion error"
has "$T/fail-done.txt" "ib-fail: the verdict, A's exit and error kind, B completed" \
	'A/B verdict: rdma-path-problem' 'FAILED exit 1' 'completion' 'COMPLETED in'
same "$T/fail-80x24.txt" ab-ib-fail-80x24.txt "ib-fail 80x24: stacked"

# ---- hang: A stops printing, killed after --hang 2 ---------------------------
{
	select_ab
	echo "key r"
	echo "wait 30"
	echo "dump-pane $T/hang-done.txt"
	echo "key q"
} > "$T/hang.script"
script hang 120x40 --hang 2 -- fake_nccl ib-hang "$MARK"
same "$T/hang-done.txt" ab-ib-hang-120x40.txt "ib-hang 120x40: A HUNG no output 2 s, B completed"
has "$T/hang-done.txt" "ib-hang: HUNG no output 2 s, rdma-path-problem" \
	'HUNG no output 2 s' 'A/B verdict: rdma-path-problem'
if [ -z "$(leftovers)" ]; then
	ok "ib-hang: nothing of fake_nccl left running (its sleeping grandchild included)"
else
	notok "ib-hang: nothing of fake_nccl left running: $(leftovers | tr '\n' ' ')"
fi

# ---- every size down to 40x10 while it runs and once it is over ---------------
{
	select_ab
	echo "key r"
	for s in "117 30" "116 30" "60 20" "41 12" "40 10" "30 8" "20 5"; do
		echo "resize $s"
		echo "dump $T/sizes-run-${s% *}.txt"
	done
	echo "wait 30"
	for s in "200 50" "117 40" "116 40" "60 20" "40 10" "20 5"; do
		echo "resize $s"
		echo "dump $T/sizes-done-${s% *}.txt"
		echo "dump-pane $T/pane-done-${s% *}.txt"
	done
	echo "key q"
} > "$T/sizes.script"
script sizes 120x40 -- fake_nccl ib-fail --slow-lines 10 "$MARK"
bad=
for f in "$T"/sizes-*.txt; do
	cols=${f##*-}
	cols=${cols%.txt}
	[ "$(wc -L < "$f")" -le "$cols" ] || bad="$bad ${f##*/}"
done
if [ -z "$bad" ] && [ "$(ls "$T"/sizes-*.txt | wc -l)" -eq 13 ]; then
	ok "sizes 200x50 to 20x5, running and done: every dump written, nothing past the edge"
else
	notok "sizes 200x50 to 20x5, running and done: every dump written, nothing past the edge ($bad)"
fi
# The detail is the terminal less the ladder's 33 columns: 84 from 117.
has "$T/pane-done-117.txt" "117 columns (detail 84): run B beside run A" 'Run A as given +Run B with NCCL_IB_DISABLE=1'
if grep -q "Run A as given" "$T/pane-done-116.txt" && ! grep -q "Run A as given.*Run B" "$T/pane-done-116.txt"; then
	ok "116 columns (detail 83): run B below run A"
else
	notok "116 columns (detail 83): run B below run A"
	comment < "$T/pane-done-116.txt"
fi

# ---- x cancels: the running run's process group is killed --------------------
{
	select_ab
	echo "key r"
	echo "wait 1"
	echo "key x"
	echo "dump-pane $T/cancel.txt"
	echo "key x"
	echo "dump-pane $T/cancel-again.txt"
	echo "key q"
} > "$T/cancel.script"
script cancel 120x40 -- fake_nccl ok --slow-lines 500 "$MARK"
has "$T/cancel.txt" "x: the A/B cancelled, run A CANCELLED, run B never started" \
	'step ab cancelled' 'A/B verdict: cancelled' 'CANCELLED' '^> . ab .* fail'
has "$T/cancel-again.txt" "x with nothing running says so" 'nothing is running: x cancels a running step'
if [ -z "$(leftovers)" ]; then
	ok "cancel: no fake_nccl process left (pgrep)"
else
	notok "cancel: no fake_nccl process left: $(leftovers | tr '\n' ' ')"
fi

# q while it runs: the step is cancelled on the way out, nothing left.
{
	select_ab
	echo "key r"
	echo "key q"
} > "$T/quit.script"
script quit 120x40 -- fake_nccl ib-hang "$MARK"
sleep 0.2
if [ -z "$(leftovers)" ]; then
	ok "q while the A/B runs: nothing of fake_nccl left"
else
	notok "q while the A/B runs: nothing of fake_nccl left: $(leftovers | tr '\n' ' ')"
fi

# ---- the real terminal: the pane stays live while the A/B runs ---------------
if ! command -v tmux >/dev/null 2>&1; then
	ok "tmux: the pane stays live while the A/B runs # SKIP tmux is not installed (scripts/deps.sh check)"
	exit 0
fi
cap() { tm capture-pane -t w -p; }
waitfor() {   # waitfor PATTERN SECONDS
	i=0
	while [ $i -lt $(($2 * 10)) ]; do
		cap | grep -Eq -- "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
tm new-session -d -s w -x 120 -y 40 "env PATH='$PATH' TERM=tmux-256color LANG=C.UTF-8 $BIN --root $DGX \
	wizard --hang 3 -- fake_nccl ib-hang --slow-lines 30 $MARK; echo EXIT=\$?; sleep 30"
waitfor '^ *[0-9] Topology' 10
tm send-keys -t w Down Down Down Down Down Down Down Down r
if waitfor 'RUNNING [0-9]+ s / [0-9]+ lines?' 5; then
	ok "tmux 120x40: r starts the A/B, run A RUNNING"
else
	notok "tmux 120x40: r starts the A/B, run A RUNNING"
	cap | comment
fi
tm send-keys -t w 1
if waitfor 'NIC legend|GPU0' 2 && ! cap | grep -q 'A/B verdict'; then
	ok "tmux: 1 switches to the Topology tab while it runs"
else
	notok "tmux: 1 switches to the Topology tab while it runs"
	cap | comment
fi
tm send-keys -t w 4
t0=$(cap | grep -Eo 'running [0-9]+ s' | head -1)
if waitfor 'RUNNING [0-9]+ s' 2 && sleep 1.5 && t1=$(cap | grep -Eo 'running [0-9]+ s' | head -1) &&
   [ -n "$t1" ] && [ "$t0" != "$t1" ]; then
	ok "tmux: back on the Wizard tab, the elapsed time moves by itself ($t0 -> $t1)"
else
	notok "tmux: back on the Wizard tab, the elapsed time moves by itself (${t0:-?} -> ${t1:-?})"
	cap | comment
fi
if waitfor 'A/B verdict: rdma-path-problem' 20 && cap | grep -q 'HUNG no output 3 s'; then
	ok "tmux: run A hangs, is killed after 3 s, B completes: rdma-path-problem"
else
	notok "tmux: run A hangs, is killed after 3 s, B completes: rdma-path-problem"
	cap | comment
fi
tm send-keys -t w q
if waitfor 'EXIT=0' 5; then
	ok "tmux: q leaves with status 0"
else
	notok "tmux: q leaves with status 0"
	cap | comment
fi
if [ -z "$(leftovers)" ]; then
	ok "tmux: nothing of fake_nccl left"
else
	notok "tmux: nothing of fake_nccl left: $(leftovers | tr '\n' ' ')"
fi
exit 0
