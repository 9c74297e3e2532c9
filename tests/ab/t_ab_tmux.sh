#!/bin/sh
# The A/B in the Wizard pane of the real TUI, in tmux (a real terminal, real
# time, the console's own poll loop; the headless FABTOP_SCRIPT "wait" polls
# otherwise and would not see what a user sees):
#   - a stand-in NCCL test that streams 1.5 MiB of NCCL INFO lines over 5 s
#     (fake_nccl --stream, far more than a pipe holds, longer than --hang 2)
#     is read as it prints: the pane shows its last lines live and the line
#     count moving, neither run is killed as hung, every line is counted,
#     and the pair reaches rdma-ok;
#   - one that streams the same and then goes silent is killed as HUNG 2 s
#     after its last line, and the pane's verdict is batch mode's;
#   - one silent after its set-up lines is killed as HUNG;
#   - nothing of the stand-in is left running.
# No timing is asserted: each wait polls the screen, with room to spare.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
DGX=$TOP/build/scenarios/dgx-h100
FAKE=$TOP/build/tests/fake_nccl
UPDATE=
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS NO_COLOR

PREFIX=fabtop-abtmux . "$TOP/tests/screen/lib.sh"
MARK=abtmux-$$
. "$TOP/tests/ab/lib.sh"
ab_ready || exit 0

skip() { echo "ok - A/B in tmux # SKIP $1"; exit 0; }
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (scripts/deps.sh)"
command -v pgrep >/dev/null 2>&1 || skip "pgrep is not installed (procps)"
if ! tm new-session -d -s probe -x 40 -y 10 "sleep 5" 2>"$T/probe.err"; then
	skip "tmux cannot start a session: $(head -1 "$T/probe.err")"
fi
tm kill-session -t probe 2>/dev/null

# start NAME WIZARD-ARGS...: the TUI at 120x40 on the Wizard pane; after
# it, its exit status in the pane and a shell that keeps the pane.
start() {
	name=$1
	shift
	tm new-session -d -s "$name" -x 120 -y 40 "env PATH='$PATH' TERM=tmux-256color LANG=C.UTF-8 \
'$BIN' --root '$DGX' wizard $*; echo EXIT=\$?; sleep 120"
}
cap() { tm capture-pane -t "$1" -p 2>/dev/null; }
waitfor() {   # waitfor NAME PATTERN SECONDS
	i=0
	while [ $i -lt $(($3 * 10)) ]; do
		cap "$1" | grep -Eq -- "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# What a user types: the A/B is the ladder's last row, r runs it.
run_ab() { tm send-keys -t "$1" Down Down Down Down Down Down Down Down r; }

# watch NAME SECONDS: captures the pane every 0.2 s until a verdict shows
# (or SECONDS pass); every capture is appended to $T/NAME.caps, the last
# one left in $T/NAME.last.
watch() {
	: > "$T/$1.caps"
	i=0
	while [ $i -lt $(($2 * 5)) ]; do
		cap "$1" > "$T/$1.last"
		cat "$T/$1.last" >> "$T/$1.caps"
		grep -Eq 'A/B verdict: [a-z]+-' "$T/$1.last" && ! grep -q 'A/B verdict: pending' "$T/$1.last" &&
			return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

# Every "last 8 of N lines" of a finished run counts at least MIN lines.
counted_all() {   # counted_all FILE MIN
	ns=$(grep -Eo 'last [0-9]+ of [0-9]+ lines' "$1" | awk '{ print $4 }')
	[ -n "$ns" ] || return 1
	for n in $ns; do
		[ "$n" -ge "$2" ] || return 1
	done
}

# ---- a run that prints 1.5 MiB over 5 s, longer than --hang 2: rdma-ok -------
# 1536 KiB of 128-byte lines: 12288 streamed lines, the set-up and table besides.
STREAM_LINES=12288
start ok --hang 2 -- fake_nccl ok --stream 1536 5 "$MARK"
if ! waitfor ok '^ *[0-9] Topology' 20; then
	notok "stream: the TUI starts in tmux"
	cap ok | comment
	exit 0
fi
run_ab ok
watch ok 90
if grep -Eq 'Run A output, live: last [0-9]+ of [0-9]+ lines' "$T/ok.caps" &&
   grep -Eq 'NCCL INFO fake_nccl stream line [0-9]+ of '$STREAM_LINES "$T/ok.caps"; then
	ok "stream: while run A runs, the pane shows its last lines live"
else
	notok "stream: while run A runs, the pane shows its last lines live"
	tail -40 "$T/ok.caps" | comment
fi
counts=$(grep -Eo 'RUNNING [0-9]+ s / [0-9]+ lines?' "$T/ok.caps" | awk '{ print $5 }' | sort -un | wc -l)
if [ "$counts" -ge 2 ]; then
	ok "stream: the running run's line count moves as it prints ($counts counts seen)"
else
	notok "stream: the running run's line count moves as it prints ($counts counts seen)"
	grep -E 'RUNNING' "$T/ok.caps" | sort | uniq -c | comment
fi
if grep -q 'A/B verdict: rdma-ok' "$T/ok.last" && grep -Eq 'COMPLETED in [0-9.]+ s.*COMPLETED in [0-9.]+ s' "$T/ok.last" &&
   ! grep -q 'HUNG' "$T/ok.caps"; then
	ok "stream: neither run killed as hung, both completed: rdma-ok"
else
	notok "stream: neither run killed as hung, both completed: rdma-ok"
	comment < "$T/ok.last"
fi
if counted_all "$T/ok.last" $STREAM_LINES; then
	ok "stream: every line of both runs read ($(grep -Eo 'last [0-9]+ of [0-9]+ lines' "$T/ok.last" | tr '\n' ' '))"
else
	notok "stream: every line of both runs read (at least $STREAM_LINES each)"
	comment < "$T/ok.last"
fi
tm send-keys -t ok q
if waitfor ok 'EXIT=0' 10; then
	ok "stream: q leaves with status 0"
else
	notok "stream: q leaves with status 0"
	cap ok | comment
fi

# ---- 1.5 MiB over 5 s, then silent: HUNG, the verdict batch mode gives ------------
"$BIN" --root "$DGX" wizard --batch --steps ab --hang 2 -- fake_nccl ib-hang --stream 1536 5 "$MARK" \
	> "$T/batch.txt" 2>&1 &
batch=$!
start quiet --hang 2 -- fake_nccl ib-hang --stream 1536 5 "$MARK"
waitfor quiet '^ *[0-9] Topology' 20
run_ab quiet
watch quiet 90
wait $batch
if grep -q 'HUNG no output 2 s' "$T/quiet.last" && grep -q 'A/B verdict: rdma-path-problem' "$T/quiet.last" &&
   grep -Eq 'NCCL INFO fake_nccl stream line [0-9]+ of '$STREAM_LINES "$T/quiet.caps"; then
	ok "stream then silent: run A shown live, then killed as HUNG no output 2 s; B completes"
else
	notok "stream then silent: run A shown live, then killed as HUNG no output 2 s; B completes"
	comment < "$T/quiet.last"
fi
if counted_all "$T/quiet.last" $STREAM_LINES; then
	ok "stream then silent: all of run A's stream read before the hang"
else
	notok "stream then silent: all of run A's stream read before the hang"
	comment < "$T/quiet.last"
fi
pane=$(grep -Eo 'A/B verdict: [a-z-]+' "$T/quiet.last" | head -1 | sed 's/.*: //')
batchv=$(grep -Eo 'verdict: [a-z-]+' "$T/batch.txt" | head -1 | sed 's/.*: //')
if [ -n "$pane" ] && [ "$pane" = "$batchv" ] && grep -q 'hung: no output for 2 s' "$T/batch.txt"; then
	ok "stream then silent: the pane's verdict is batch mode's ($pane, run A hung in both)"
else
	notok "stream then silent: the pane's verdict is batch mode's (pane ${pane:-none}, batch ${batchv:-none})"
	head -20 "$T/batch.txt" | comment
fi
tm send-keys -t quiet q

# ---- silent after its set-up lines: HUNG ------------------------------------
start silent --hang 2 -- fake_nccl ib-hang "$MARK"
waitfor silent '^ *[0-9] Topology' 20
run_ab silent
watch silent 60
if grep -q 'HUNG no output 2 s' "$T/silent.last" && grep -q 'A/B verdict: rdma-path-problem' "$T/silent.last"; then
	ok "silent: run A killed as HUNG no output 2 s, B completes: rdma-path-problem"
else
	notok "silent: run A killed as HUNG no output 2 s, B completes: rdma-path-problem"
	comment < "$T/silent.last"
fi
tm send-keys -t silent q
waitfor silent 'EXIT=0' 10
waitfor quiet 'EXIT=0' 10
if [ -z "$(leftovers)" ]; then
	ok "nothing of fake_nccl left running (the hung runs' grandchildren included)"
else
	notok "nothing of fake_nccl left running: $(leftovers | tr '\n' ' ')"
fi
exit 0
