#!/bin/sh
# Children never outlive fabtop (issue 12, hole 6), against real processes:
#   - a stand-in NCCL test that leaves a grandchild in a session of its own
#     (fake_nccl --escape: setsid, as a daemonizing launcher does) is killed
#     with the rest when the run ends;
#   - Ctrl-C to `fabtop wizard --batch --steps ab` in a real terminal (tmux)
#     cancels the run: fabtop kills the stand-in, its grandchild in the
#     group and the escaped one, says so, and exits 130; nothing is left;
#   - SIGTERM and SIGHUP do the same (143, 129);
#   - SIGKILL of fabtop, which nothing can catch: its direct child dies
#     with it (PR_SET_PDEATHSIG).
# Nothing is timed: each wait polls, bounded, with room to spare.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
DGX=$TOP/build/scenarios/dgx-h100
FAKE=$TOP/build/tests/fake_nccl
UPDATE=
export LANG=C.UTF-8

PREFIX=fabtop-absig . "$TOP/tests/screen/lib.sh"
MARK=absig-$$
. "$TOP/tests/ab/lib.sh"
ab_ready || exit 0

# mine WORD: pids of the stand-ins started with WORD (their own argv only).
mine() { pgrep -f "^[^ ]*fake_nccl .*$MARK-$1( |\$)" 2>/dev/null; }
# until_n WORD N: waits (at most 30 s) until N stand-ins of WORD run.
until_n() {
	i=0
	while [ $i -lt 300 ]; do
		[ "$(mine "$1" | wc -l)" -ge "$2" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# running PID: the process exists and is not a zombie.
running() { [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^[ZX]'; }

# ---- the run ends: the escaped grandchild goes too --------------------------------
FAKE_NCCL_ESCAPED=$T/end.esc "$BIN" --root "$DGX" wizard --batch --steps ab --hang 10 -- \
	fake_nccl ok --escape "$MARK-end" > "$T/end.out" 2>&1
rc=$?
left=$(mine end)
alive=
for p in $(cat "$T/end.esc" 2>/dev/null); do running "$p" && alive="$alive $p"; done
if [ $rc -eq 0 ] && [ -z "$left$alive" ] && grep -q 'verdict: rdma-ok' "$T/end.out" &&
   [ "$(wc -l < "$T/end.esc" 2>/dev/null)" = 2 ]; then
	ok "run ends: the grandchild that left the group (setsid) is killed with it, in both runs"
else
	notok "run ends: the grandchild that left the group (setsid) is killed with it (rc $rc, escaped: $(cat "$T/end.esc" 2>/dev/null | tr '\n' ' '), left: $(echo $left $alive))"
	tail -5 "$T/end.out" | comment
fi

# ---- Ctrl-C in a terminal ----------------------------------------------------
if ! command -v tmux >/dev/null 2>&1; then
	ok "Ctrl-C to wizard --batch in tmux # SKIP tmux is not installed (scripts/deps.sh)"
elif ! command -v bash >/dev/null 2>&1; then
	ok "Ctrl-C to wizard --batch in tmux # SKIP no bash to keep the pane after fabtop"
elif ! tm new-session -d -s probe -x 40 -y 10 "sleep 5" 2>"$T/probe.err"; then
	ok "Ctrl-C to wizard --batch in tmux # SKIP tmux cannot start a session: $(head -1 "$T/probe.err")"
else
	tm kill-session -t probe 2>/dev/null
	# bash waits for fabtop through the Ctrl-C and records how it ended.
	cat > "$T/int.sh" <<EOF
#!/bin/sh
'$BIN' --root '$DGX' wizard --batch --steps ab --hang 120 -- fake_nccl both-hang --escape '$MARK-int' > '$T/int.out' 2>&1
echo \$? > '$T/int.rc'
sleep 120
EOF
	tm new-session -d -s int -x 100 -y 20 "env PATH='$PATH' bash '$T/int.sh'"
	# The stand-in, its grandchild in the group, and the escaped one.
	if until_n int 3; then
		tm send-keys -t int C-c
		i=0
		while [ $i -lt 300 ] && [ ! -s "$T/int.rc" ]; do sleep 0.1; i=$((i + 1)); done
		rc=$(cat "$T/int.rc" 2>/dev/null)
		left=$(mine int)
		if [ "$rc" = 130 ] && [ -z "$left" ]; then
			ok "Ctrl-C: exit 130, and ps shows nothing of the stand-in (nor its setsid grandchild)"
		else
			notok "Ctrl-C: exit 130, and ps shows nothing of the stand-in (rc ${rc:-none}, left: $(echo $left))"
			for p in $left; do ps -o pid,ppid,pgid,sid,stat,args -p "$p" | tail -1 | comment; done
		fi
		if grep -q 'interrupted by SIGINT: cancelled, its processes killed' "$T/int.out" &&
		   grep -q 'exit status 130 (interrupted by SIGINT; no further step ran)' "$T/int.out"; then
			ok "Ctrl-C: the A/B is printed as interrupted, and the exit line says so"
		else
			notok "Ctrl-C: the A/B is printed as interrupted, and the exit line says so"
			comment < "$T/int.out"
		fi
	else
		notok "Ctrl-C: the stand-in started under wizard --batch in tmux"
		tm capture-pane -t int -p | comment
	fi
	tm kill-session -t int 2>/dev/null
fi

# ---- SIGTERM, SIGHUP --------------------------------------------------------
for sn in TERM:15 HUP:1; do
	sig=${sn%:*}
	# A suite started under nohup hands SIGHUP down ignored, and fabtop
	# keeps a signal ignored as it found it (nohup's promise): the signal's
	# default is restored for this run, as a terminal would have it.
	env --default-signal="$sig" "$BIN" --root "$DGX" wizard --batch --steps ab --hang 120 -- \
		fake_nccl both-hang --escape "$MARK-$sig" > "$T/$sig.out" 2>&1 &
	fab=$!
	if until_n "$sig" 3; then
		kill -"$sig" "$fab"
		wait "$fab"
		rc=$?
		want=$((128 + ${sn#*:}))
		left=$(mine "$sig")
		if [ $rc -eq $want ] && [ -z "$left" ] &&
		   grep -q "exit status $want (interrupted by SIG$sig" "$T/$sig.out"; then
			ok "SIG$sig: exit $want, says so, and nothing of the stand-in is left"
		else
			notok "SIG$sig: exit $want, says so, and nothing of the stand-in is left (rc $rc, left: $(echo $left))"
			tail -4 "$T/$sig.out" | comment
		fi
	else
		notok "SIG$sig: the stand-in started under wizard --batch"
		kill -KILL "$fab" 2>/dev/null
		wait "$fab" 2>/dev/null
	fi
done

# ---- the same on a capture file, whose unpacked tree has a handler of its own -------
mkdir -p "$T/tmp"
TMPDIR=$T/tmp "$BIN" --root "$DGX.tar.gz" wizard --batch --steps ab --hang 120 -- \
	fake_nccl both-hang --escape "$MARK-tgz" > "$T/tgz.out" 2>&1 &
fab=$!
if until_n tgz 3; then
	kill -TERM "$fab"
	wait "$fab"
	rc=$?
	left=$(mine tgz)
	if [ $rc -eq 143 ] && [ -z "$left" ] && [ -z "$(ls -A "$T/tmp")" ]; then
		ok "SIGTERM on --root FILE.tar.gz: exit 143, nothing of the stand-in left, no unpacked tree left"
	else
		notok "SIGTERM on --root FILE.tar.gz: exit 143, nothing left (rc $rc, left: $(echo $left), tmp: $(ls -A "$T/tmp" | tr '\n' ' '))"
		tail -4 "$T/tgz.out" | comment
	fi
else
	notok "SIGTERM on --root FILE.tar.gz: the stand-in started under wizard --batch"
	tail -4 "$T/tgz.out" | comment
	kill -KILL "$fab" 2>/dev/null
	wait "$fab" 2>/dev/null
fi

# ---- SIGKILL: the direct child dies with fabtop -------------------------------------
"$BIN" --root "$DGX" wizard --batch --steps ab --hang 120 -- fake_nccl both-hang "$MARK-kill" \
	> "$T/kill.out" 2>&1 &
fab=$!
if until_n kill 2; then
	child=$(pgrep -P "$fab" -f "fake_nccl" | head -1)
	kill -KILL "$fab"
	wait "$fab" 2>/dev/null
	i=0
	while [ $i -lt 100 ] && [ -n "$child" ] && running "$child"; do sleep 0.1; i=$((i + 1)); done
	if [ -n "$child" ] && ! running "$child"; then
		ok "SIGKILL of fabtop: its direct child (pid $child) dies with it (PDEATHSIG)"
	else
		notok "SIGKILL of fabtop: its direct child (pid ${child:-not found}) dies with it (PDEATHSIG)"
	fi
	# Its own grandchild is beyond reach then (README): cleaned up here.
	for p in $(mine kill); do kill -KILL "$p" 2>/dev/null; done
else
	notok "SIGKILL: the stand-in started under wizard --batch"
	kill -KILL "$fab" 2>/dev/null
fi
exit 0
