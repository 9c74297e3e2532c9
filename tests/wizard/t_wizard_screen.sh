#!/bin/sh
# Screen tests of the Wizard pane. Headless FABTOP_SCRIPT dumps of
# `fabtop --root roce-faults wizard ...` (a capture: deterministic) before
# any step ran, during the climb (the job done, layer 1 next), after it
# (layer 1 failed on the scenario's faults, layer 2 blocked because a
# capture cannot be probed), the raw output, side by side at 120x30, 40x10,
# the input editor (a refused value stays in the editor), skip; then the
# real terminal in tmux on a live network namespace, where layer 2 probes
# an address routed nowhere: the pane shows the step running and stays live
# while it waits (probes of 60 s: only x ends them), x cancels; then, with
# probes of 0.2 s, the verdict. Elapsed times are masked ("in N s").
# The dumps are the pane's rows (dump-pane), so a new tab leaves them alone;
# the status bar is checked on a whole screen.
# UPDATE=1 rewrites tests/wizard/expected/*.txt; read the result.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/wizard/expected
RF=$TOP/build/scenarios/roce-faults
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS NO_COLOR

PREFIX=fabtop-wizscr . "$TOP/tests/screen/lib.sh"
NS=fws$$
cleanup_ns() { ip netns del "$NS" 2>/dev/null; ip netns del "$NS-r" 2>/dev/null; cleanup; }
trap cleanup_ns EXIT


# Elapsed times depend on the machine's speed: masked ("in N s") in the
# dumps, as in the expected ones.
same() {
	[ -f "$1" ] && sed -i -E 's/ in [0-9]+\.[0-9]+ s/ in N s/g' "$1"
	expect_same "$@"
}

# script NAME SIZE ARGS...: $T/NAME.script headlessly; dumps go to $T/NAME-*.txt.
script() {
	name=$1 size=$2
	shift 2
	headless "$name" "$size" "$BIN" --root "$RF" wizard "$@"
}

if [ ! -f "$RF/fabtop/meta.json" ]; then
	notok "scenario roce-faults is missing (make scenarios)"
	exit 0
fi

cat > "$T/climb.script" <<EOF
dump-pane $T/climb-before.txt
key Enter
dump-pane $T/climb-during.txt
key Enter
key Enter
dump-pane $T/climb-after.txt
key Up
dump-pane $T/climb-l1.txt
key v
key End
dump-pane $T/climb-l1-raw.txt
key v
key Home
resize 120 30
dump-pane $T/climb-wide.txt
resize 40 10
dump-pane $T/climb-small.txt
dump $T/screen-small.txt
resize 80 24
key Enter
wait 10
key Enter
key Enter
dump-pane $T/climb-done.txt
key q
EOF
script climb 80x24 --peer 10.0.0.2 --iface ens34np0
same "$T/climb-before.txt" wizard-before-80x24.txt "before: the ladder with every step pending, the job step's why and inputs"
same "$T/climb-during.txt" wizard-during-80x24.txt "during: the job step done, layer 1 next"
same "$T/climb-after.txt" wizard-after-80x24.txt "after: layer 2 blocked (a capture cannot be probed), with the reason"
same "$T/climb-l1.txt" wizard-l1-80x24.txt "Up: layer 1 failed on the scenario's link faults, worst first, with what to run next"
same "$T/climb-l1-raw.txt" wizard-l1-raw-80x24.txt "v End: layer 1's raw output, one line per HCA port"
same "$T/climb-wide.txt" wizard-120x30.txt "120x30: the ladder beside the step"
if [ -f "$T/climb-small.txt" ] && grep -q "^> ⊘ l1\|^> ✘ l1" "$T/climb-small.txt" &&
   tail -1 "$T/screen-small.txt" | grep -q "q:quit" &&
   [ "$(wc -L < "$T/screen-small.txt")" -le 40 ]; then
	ok "40x10: the selected step stays in view, the status bar kept, nothing past the edge"
else
	notok "40x10: the selected step stays in view, the status bar kept, nothing past the edge"
	comment < "$T/screen-small.txt"
fi
if grep -q "every step has run: r re-runs the selected one" "$T/climb-done.txt" 2>/dev/null; then
	ok "Enter with nothing pending says so"
else
	notok "Enter with nothing pending says so"
fi
# The tab bar names every tab whichever is current: the pane's first row
# says which pane it is.
for s in before during after l1 l1-raw wide done; do
	head -1 "$T/climb-$s.txt" 2>/dev/null | grep -q "^Ladder" || bad="${bad:-} $s"
done
if [ -z "${bad:-}" ]; then
	ok "\`fabtop wizard\` opens on the Wizard tab and stays there"
else
	notok "\`fabtop wizard\` opens on the Wizard tab and stays there (not on:$bad)"
fi

# The editor: peers, then the interface, then the HCAs; a refused value
# stays in the editor with the reason; Esc keeps what was stored.
{
	echo "key e"
	for c in Space 1 0 . 9 . 0 . 7 Space b a d ";"; do echo "key $c"; done
	echo "key Enter"
	echo "dump-pane $T/edit-refused.txt"
	echo "key Esc"
	echo "key e"
	for c in Space 1 0 . 9 . 0 . 7; do echo "key $c"; done
	echo "key Enter"
	echo "dump-pane $T/edit-iface.txt"
	echo "key Enter"
	for c in m l x 5 _ 4; do echo "key $c"; done
	echo "key Enter"
	echo "dump-pane $T/edit-cmd.txt"
	for c in a l l _ r e d u c e _ p e r f Space - g Space "'" a Space b "'"; do echo "key $c"; done
	echo "key Enter"
	echo "dump-pane $T/edit-saved.txt"
	echo "key s"
	echo "dump-pane $T/edit-skip.txt"
	echo "key e"
	for i in 1 2 3; do echo "key Enter"; done
	echo "dump-pane $T/edit-cmd-again.txt"
	echo "key Esc"
	echo "key q"
} > "$T/edit.script"
script edit 80x24 --peer 10.0.0.2 --iface ens34np0
if grep -q "refused peer 'bad;'" "$T/edit-refused.txt" 2>/dev/null &&
   grep -q "^peers (space-separated)> 10.0.0.2 10.9.0.7 bad;_" "$T/edit-refused.txt"; then
	ok "editor: \"bad;\" is refused with the reason, the editor stays on the peers"
else
	notok "editor: \"bad;\" is refused with the reason, the editor stays on the peers"
	comment < "$T/edit-refused.txt"
fi
if grep -q "^interface> ens34np0_" "$T/edit-iface.txt" 2>/dev/null; then
	ok "editor: Enter stores the peers and moves to the interface"
else
	notok "editor: Enter stores the peers and moves to the interface"
	comment < "$T/edit-iface.txt"
fi
if grep -q "^A/B NCCL test (empty: loopback)> _" "$T/edit-cmd.txt" 2>/dev/null; then
	ok "editor: after the HCAs, the A/B's command (empty)"
else
	notok "editor: after the HCAs, the A/B's command (empty)"
	comment < "$T/edit-cmd.txt"
fi
if grep -q "^A/B NCCL test (empty: loopback)> all_reduce_perf -g 'a b'_" "$T/edit-cmd-again.txt" 2>/dev/null; then
	ok "editor: the command stored as words reads back the same"
else
	notok "editor: the command stored as words reads back the same"
	comment < "$T/edit-cmd-again.txt"
fi
same "$T/edit-saved.txt" wizard-edited-80x24.txt "editor: the inputs saved, shown under the pending step"
if grep -q "^  - job  0 job       skipped" "$T/edit-skip.txt" 2>/dev/null &&
   grep -q "^> · l1   1 physical  next" "$T/edit-skip.txt"; then
	ok "s skips the job step and selects the next"
else
	notok "s skips the job step and selects the next"
	comment < "$T/edit-skip.txt"
fi

# ---- the real terminal: a live namespace, a step that takes seconds --------
# screen_has SESSION FILE SECONDS PATTERN...: polls SESSION's screen until
# every PATTERN (grep) is on it, for SECONDS at most; the last screen in FILE.
screen_has() {
	_s=$1 _f=$2 _n=$(($3 * 10))
	shift 3
	while :; do
		tm capture-pane -t "$_s" -p > "$_f"
		_miss=
		for _p in "$@"; do grep -q -- "$_p" "$_f" || _miss=1; done
		[ -z "$_miss" ] && return 0
		[ "$_n" -le 0 ] && return 1
		_n=$((_n - 1))
		sleep 0.1
	done
}
# clock FILE: the seconds of "running N s" on the screen in FILE, else 0.
clock() { sed -n 's/.*… running \([0-9]*\) s (x cancels).*/\1/p' "$1" | head -n 1 | grep . || echo 0; }

if [ "$(id -u)" = 0 ] && command -v tmux >/dev/null && command -v ip >/dev/null && command -v sysctl >/dev/null; then
	ip netns add "$NS" && ip netns add "$NS-r"
	ip link add "${NS}a" netns "$NS" type veth peer name "${NS}b" netns "$NS-r"
	ip -n "$NS" addr add 10.99.1.2/24 dev "${NS}a"
	ip -n "$NS-r" addr add 10.99.1.1/24 dev "${NS}b"
	ip -n "$NS" link set "${NS}a" up
	ip -n "$NS" link set lo up
	ip -n "$NS-r" link set "${NS}b" up
	ip -n "$NS" route add default via 10.99.1.1
	ip -n "$NS-r" route add blackhole 10.99.3.0/24
	ip netns exec "$NS-r" sysctl -qw net.ipv4.ip_forward=1
	# Each probe waits 60 s for an answer that the black hole never sends, so
	# nothing but x ends the step while the pane is looked at: no race with
	# the probe, however fast the machine (each wait below is a bounded poll).
	tm new-session -d -s w -x 80 -y 24 "ip netns exec $NS env TERM=tmux-256color LANG=C.UTF-8 $BIN wizard \
		--iface ${NS}a --peer 10.99.3.3 --probe-timeout 60; echo EXIT=\$?; sleep 30"
	screen_has w "$T/tmux-start.txt" 10 "l2   2 IP/MTU"
	tm send-keys -t w Down Down r
	if screen_has w "$T/tmux-running.txt" 10 "^> … l2   2 IP/MTU    running" "… running [0-9]* s (x cancels)"; then
		ok "tmux 80x24: r on layer 2 shows it running while the probe waits"
	else
		notok "tmux 80x24: r on layer 2 shows it running while the probe waits"
		comment < "$T/tmux-running.txt"
	fi
	# The probes run in the background: the pane answers keys (Help and
	# back) and keeps drawing (its clock moves past the first reading).
	t0=$(clock "$T/tmux-running.txt")
	tm send-keys -t w '?'
	screen_has w "$T/tmux-help.txt" 10 "^Keys"
	tm send-keys -t w 4
	i=0
	while screen_has w "$T/tmux-running2.txt" 10 "^> … l2   2 IP/MTU    running" &&
	      [ "$(clock "$T/tmux-running2.txt")" -le "${t0:-99}" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if grep -q "^Keys" "$T/tmux-help.txt" && grep -q "^> … l2   2 IP/MTU    running" "$T/tmux-running2.txt" &&
	   [ "$(clock "$T/tmux-running2.txt")" -gt "${t0:-99}" ]; then
		ok "tmux: the pane stays live while layer 2 probes (Help and back, the clock moves)"
	else
		notok "tmux: the pane stays live while layer 2 probes (Help and back, the clock moves from ${t0:-none} s)"
		comment < "$T/tmux-help.txt"
		comment < "$T/tmux-running2.txt"
	fi
	# x while the probe waits: the step ends cancelled at once (the probe
	# looks at the cancel every 0.1 s), long before its 60 s are up.
	tm send-keys -t w x
	if screen_has w "$T/tmux-cancel.txt" 10 "^> ✘ l2   2 IP/MTU    fail" "cancelled by the user"; then
		ok "tmux: x cancels layer 2's probes"
	else
		notok "tmux: x cancels layer 2's probes"
		comment < "$T/tmux-cancel.txt"
	fi
	tm send-keys -t w q
	if screen_has w "$T/tmux-exit.txt" 10 "EXIT=0"; then
		ok "tmux: q leaves the wizard with status 0"
	else
		notok "tmux: q leaves the wizard with status 0"
		comment < "$T/tmux-exit.txt"
	fi
	# The verdict, with probes that give up after 0.2 s: waited for, not timed.
	tm new-session -d -s v -x 80 -y 24 "ip netns exec $NS env TERM=tmux-256color LANG=C.UTF-8 $BIN wizard \
		--iface ${NS}a --peer 10.99.3.3 --probe-timeout 0.2; echo EXIT=\$?; sleep 30"
	screen_has v "$T/tmux-start2.txt" 10 "l2   2 IP/MTU"
	tm send-keys -t v Down Down r
	if screen_has v "$T/tmux-done.txt" 60 "^> ✘ l2   2 IP/MTU    fail" "nothing reaches 10.99.3.3"; then
		ok "tmux: then layer 2 fails: nothing reaches 10.99.3.3"
	else
		notok "tmux: then layer 2 fails: nothing reaches 10.99.3.3"
		comment < "$T/tmux-done.txt"
	fi
	tm send-keys -t v q
else
	ok "tmux on a live namespace # SKIP needs root, tmux, ip and sysctl"
fi
exit 0
