#!/bin/sh
# Screen tests: the real TUI in tmux (first frames at 80x24 and 200x50,
# resizes down to 40x10 and below, q / Ctrl-C / SIGTERM each leaving a sane
# terminal, no CPU use when idle), the headless FABTOP_SCRIPT mode (its dumps
# must equal what tmux shows), dump-pane (a pane's rows, the same with and
# without the demo banner), and the no-TTY report. These tests are about the
# shell, so their dumps are whole screens; the panes' own tests compare the
# pane's rows only (dump-pane).
# Prints "ok - name" / "not ok - name" lines.
# UPDATE=1 rewrites tests/screen/expected/ from tmux; look at the result.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
SCEN=$TOP/build/scenarios
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS

if ! command -v tmux >/dev/null 2>&1; then
	echo "ok - tmux screens # SKIP tmux is not installed (scripts/deps.sh check)"
	exit 0
fi
PREFIX=fabtop-screen . "$(dirname "$0")/lib.sh"

# start NAME COLS ROWS ROOT: fabtop in a wrapper shell that keeps the pane's
# terminal after it, records its exit status and then `stty -a` of that same
# terminal. The shell ignores INT/TERM so only fabtop reacts to them.
start() {
	rm -f "$T/$1.rc" "$T/$1.stty" "$T/$1.err"
	tm new-session -d -s "$1" -x "$2" -y "$3" \
		"trap '' INT TERM; '$BIN' --root '$4' 2>'$T/$1.err'; echo \$? > '$T/$1.rc'; stty -a > '$T/$1.tmp'; mv '$T/$1.tmp' '$T/$1.stty'"
}

cap() { tm capture-pane -p -t "$1" 2>/dev/null; }

# Waits until the screen has drawn and stopped changing; prints it.
stable() {
	prev="" i=0
	while [ $i -lt 100 ]; do
		cur=$(cap "$1")
		case $cur in
		*"q:quit"*|*"terminal too small"*)
			[ "$cur" = "$prev" ] && { printf '%s\n' "$cur"; return 0; } ;;
		esac
		prev=$cur
		sleep 0.2
		i=$((i + 1))
	done
	printf '%s\n' "$cur"
	return 1
}

# screen NAME FILE TEST: the screen must become exactly FILE within 15 s.
screen() {
	if [ -n "$UPDATE" ]; then
		stable "$1" > "$EXP/$2"
		ok "$3 (wrote expected/$2)"
		return 0
	fi
	i=0
	while [ $i -lt 150 ]; do
		cap "$1" > "$T/screen"
		if cmp -s "$T/screen" "$EXP/$2"; then
			ok "$3"
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	notok "$3"
	diff -u "$EXP/$2" "$T/screen" | head -40 | comment
	[ -s "$T/$1.err" ] && head -20 "$T/$1.err" | comment
	return 1
}

# finish NAME RC TEST: fabtop exited with RC and the terminal is cooked again.
finish() {
	i=0
	while [ ! -f "$T/$1.stty" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rc=$(cat "$T/$1.rc" 2>/dev/null)
	if [ "$rc" != "$2" ]; then
		notok "$3: exit status ${rc:-none}, want $2"
		[ -s "$T/$1.err" ] && head -30 "$T/$1.err" | comment
		return 1
	fi
	if grep -Eq '(^|[ ;])icanon( |;|$)' "$T/$1.stty" &&
	   grep -Eq '(^|[ ;])echo( |;|$)' "$T/$1.stty" &&
	   ! grep -Eq '(^|[ ;])-(icanon|echo)( |;|$)' "$T/$1.stty"; then
		ok "$3"
	else
		notok "$3: terminal left in raw mode"
		comment < "$T/$1.stty"
	fi
}

fabtop_pid() {
	sh_pid=$(tm display-message -p -t "$1" '#{pane_pid}' 2>/dev/null)
	[ -n "$sh_pid" ] && ps -o pid= --ppid "$sh_pid" | tr -d ' ' | head -1
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }

DGX=$SCEN/dgx-h100
P2N=$SCEN/pcie-2numa

# (a) dgx-h100 at 80x24: first frame, help, idle CPU, q.
start a 80 24 "$DGX"
screen a dgx-h100-80x24.txt "dgx-h100 80x24 first frame"
tm send-keys -t a Tab
screen a links-dgx-h100-80x24.txt "dgx-h100 80x24 Tab shows the links pane"
tm send-keys -t a Tab
screen a counters-dgx-h100-80x24.txt "dgx-h100 Tab again shows the counters pane (no samples)"
tm send-keys -t a Tab
screen a wizard-dgx-h100-80x24.txt "dgx-h100 Tab again shows the wizard pane (every step pending)"
tm send-keys -t a Tab
screen a job-dgx-h100-80x24.txt "dgx-h100 Tab again shows the job pane (no NCCL process recorded)"
# The Fleet pane is present only under `fabtop fleet`: no tab here.
tm send-keys -t a Tab
screen a dgx-h100-help-80x24.txt "dgx-h100 Tab again shows the help pane (no Fleet tab outside fabtop fleet)"
tm send-keys -t a Escape
screen a job-dgx-h100-80x24.txt "Esc on the help pane goes back to the pane before it (job)"
tm send-keys -t a Tab
screen a dgx-h100-help-80x24.txt "dgx-h100 Tab shows the help pane again"
tm send-keys -t a Tab
screen a dgx-h100-80x24.txt "dgx-h100 Tab a sixth time returns to the topology pane"
pid=$(fabtop_pid a)
if [ -n "$pid" ] && [ -z "$UPDATE" ]; then
	t0=$(cpu_ticks "$pid"); sleep 2; t1=$(cpu_ticks "$pid")
	if [ -n "$t0" ] && [ -n "$t1" ] && [ $((t1 - t0)) -le 10 ]; then
		ok "idle for 2 s uses no CPU ($((t1 - t0)) ticks)"
	else
		notok "idle for 2 s uses no CPU (${t0:-?} -> ${t1:-?} ticks)"
	fi
elif [ -z "$UPDATE" ]; then
	notok "idle for 2 s uses no CPU: no fabtop process in the pane"
fi
tm send-keys -t a q
finish a 0 "q exits with status 0 and restores the terminal"

# dgx-h100 at 200x50, then resized: 40x10 (the minimum, still drawn), 30x8
# (too small), back to 80x24; then Ctrl-C.
start b 200 50 "$DGX"
screen b dgx-h100-200x50.txt "dgx-h100 200x50 first frame"
tm resize-window -t b -x 40 -y 10
screen b dgx-h100-40x10.txt "resize to 40x10 still draws tabs, pane and status"
tm resize-window -t b -x 30 -y 8
if [ -n "$UPDATE" ]; then stable b > /dev/null; fi
i=0
while ! cap b | grep -q "terminal too small" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if cap b | grep -q "terminal too small" && cap b | grep -q "have 30x8"; then
	ok "resize to 30x8 says: terminal too small"
else
	notok "resize to 30x8 says: terminal too small"
	cap b | comment
fi
tm resize-window -t b -x 80 -y 24
screen b dgx-h100-80x24.txt "resize back to 80x24 redraws the first frame"
tm send-keys -t b C-c
finish b 130 "Ctrl-C (SIGINT) exits and restores the terminal"

# SIGTERM from outside.
start c 80 24 "$DGX"
screen c dgx-h100-80x24.txt "dgx-h100 80x24 again, for SIGTERM"
pid=$(fabtop_pid c)
if [ -n "$pid" ]; then
	kill -TERM "$pid"
	finish c 143 "SIGTERM exits and restores the terminal"
else
	notok "SIGTERM exits and restores the terminal: no fabtop process in the pane"
fi

# (b) pcie-2numa at 80x24.
start d 80 24 "$P2N"
screen d pcie-2numa-80x24.txt "pcie-2numa 80x24 first frame"
tm send-keys -t d End
screen d pcie-2numa-80x24-end.txt "pcie-2numa End shows the findings"
tm send-keys -t d q
finish d 0 "pcie-2numa q exits with status 0 and restores the terminal"

# (c) Headless: the same screens from FABTOP_SCRIPT dumps, with no terminal.
cat > "$T/script" <<EOF
dump $T/s1.txt
key ?
dump $T/s2.txt
key Esc
dump $T/s6.txt
key ?
key ?
key r
dump $T/s5.txt
resize 40 10
dump $T/s3.txt
resize 30 8
dump $T/s4.txt
resize 80 24
key q
EOF
FABTOP_SCRIPT=$T/script FABTOP_SCRIPT_SIZE=80x24 "$BIN" --root "$DGX" </dev/null >"$T/script.out" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
	ok "FABTOP_SCRIPT run exits 0 without a terminal"
else
	notok "FABTOP_SCRIPT run exits 0 without a terminal (rc $rc)"
	head -30 "$T/script.out" | comment
fi
same() {
	if [ -f "$1" ] && cmp -s "$1" "$EXP/$2"; then
		ok "$3"
	else
		notok "$3"
		[ -f "$1" ] && diff -u "$EXP/$2" "$1" | head -30 | comment
		[ -f "$1" ] || echo "no dump written" | comment
	fi
}
same "$T/s1.txt" dgx-h100-80x24.txt "script dump of the topology pane equals the tmux screen"
same "$T/s2.txt" dgx-h100-help-80x24.txt "script: ?, dump of the help pane equals the tmux screen"
same "$T/s6.txt" dgx-h100-80x24.txt "script: Esc on the help pane goes back to topology"
same "$T/s5.txt" dgx-h100-80x24.txt "script: ? back to topology, r reloads the same screen"
same "$T/s3.txt" dgx-h100-40x10.txt "script: resize 40 10, dump equals tmux"
if grep -q "terminal too small" "$T/s4.txt" 2>/dev/null; then
	ok "script: resize 30 8 says terminal too small"
else
	notok "script: resize 30 8 says terminal too small"
fi

# (c2) dump-pane: a pane's rows do not depend on the shell around them. The
# same scenario opened with `fabtop demo NAME` (a banner row) at 80x25 and
# with --root at 80x24 (no banner) gives every pane the same 80x22 area:
# each pane's dump-pane must be the same, while the whole screens differ by
# the banner. Too small for a pane, dump-pane writes the whole message.
# panes NAME: a script that dumps each pane (Counters after 5 steps) as
# $T/NAME-N.txt and the whole screen as $T/NAME-N-screen.txt, then the too
# small sizes.
panes() {
	for k in 1 2 3 4 5; do
		echo "key $k"
		[ $k = 3 ] && echo "tick 5"
		echo "dump-pane $T/$1-$k.txt"
		echo "dump $T/$1-$k-screen.txt"
	done
	for sz in "60 9" "30 8"; do
		echo "resize $sz"
		echo "dump-pane $T/$1-small-${sz% *}.txt"
		echo "dump $T/$1-small-${sz% *}-screen.txt"
	done
	echo "key q"
}
for name in roce-faults hang; do
	panes demo-$name > "$T/demo-$name.script"
	panes root-$name > "$T/root-$name.script"
	headless demo-$name 80x25 "$BIN" demo $name
	headless root-$name 80x24 "$BIN" --root "$SCEN/$name"
	# The banner names the scenario by its title (the index's third field)
	# or, when that does not fit, by its name.
	title=$(awk -F'\t' -v n="$name" '$1 == n { print $3 }' "$SCEN/index")
	if grep -q "^ DEMO: .*\($name\|$title\)" "$T/demo-$name-1-screen.txt" 2>/dev/null &&
	   ! grep -q "DEMO:" "$T/root-$name-1-screen.txt" 2>/dev/null; then
		ok "$name: fabtop demo shows the banner, --root does not"
	else
		notok "$name: fabtop demo shows the banner, --root does not"
		head -3 "$T/demo-$name-1-screen.txt" "$T/root-$name-1-screen.txt" 2>&1 | comment
	fi
	differ=""
	for k in 1 2 3 4 5; do
		{ [ -s "$T/demo-$name-$k.txt" ] && [ "$(wc -l < "$T/demo-$name-$k.txt")" = 22 ] &&
		  cmp -s "$T/demo-$name-$k.txt" "$T/root-$name-$k.txt"; } || differ="$differ $k"
	done
	if [ -z "$differ" ]; then
		ok "$name: each pane's dump-pane (22 rows) is the same with the banner at 80x25 as without it at 80x24"
	else
		notok "$name: each pane's dump-pane is the same with the banner at 80x25 as without it at 80x24 (panes:$differ)"
		for k in $differ; do
			diff -u "$T/root-$name-$k.txt" "$T/demo-$name-$k.txt" 2>&1 | head -20 | comment
		done
	fi
done
# At 60x9 (too few rows) the message is on one line, at 30x8 on two.
bad=""
for c in 60:9 30:8; do
	f=$T/demo-hang-small-${c%:*}.txt
	if ! cmp -s "$f" "$T/demo-hang-small-${c%:*}-screen.txt" ||
	   [ "$(wc -l < "$f")" != "${c#*:}" ] || ! grep -q "terminal too small" "$f" ||
	   ! grep -q "need 40x10, have ${c%:*}x${c#*:}" "$f"; then
		bad="$bad ${c%:*}x${c#*:}"
	fi
done
if [ -z "$bad" ]; then
	ok "too small (60x9, 30x8): dump-pane writes the whole screen and its whole message"
else
	notok "too small: dump-pane writes the whole screen and its whole message (wrong at:$bad)"
	for f in "$T"/demo-hang-small-*.txt; do echo "${f##*/}:"; cat "$f"; done 2>&1 | comment
fi

# (d) No terminal at all: the report instead of the TUI.
if "$BIN" --root "$DGX" </dev/null 2>"$T/report.err" | cat > "$T/report.txt" &&
   grep -q "GPU0" "$T/report.txt"; then
	ok "no TTY prints the report"
else
	notok "no TTY prints the report"
	head -20 "$T/report.txt" "$T/report.err" | comment
fi
exit 0
