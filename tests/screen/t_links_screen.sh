#!/bin/sh
# Screen tests of the Links pane: headless FABTOP_SCRIPT dumps of the bundled
# scenarios (roce-faults at 80x24 and 200x50 with a faulty port selected and
# a filter, roce-faults-pod for the usable column, ib-8port all healthy, a
# node without HCAs), NO_COLOR, then the real terminal path in tmux at 80x24:
# the same screen, rows coloured by their worst finding, q exits 0.
# Prints "ok - name" / "not ok - name" lines.
# The dumps are the pane's rows (dump-pane): a new tab or a change of the
# status bar leaves them alone; the status bar and the tmux comparison use
# whole screens.
# UPDATE=1 rewrites tests/screen/expected/links-*.txt; read the result.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
SCEN=$TOP/build/scenarios
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS NO_COLOR

PREFIX=fabtop-links . "$(dirname "$0")/lib.sh"

# same DUMP EXPECTED TEST: a dump equals tests/screen/expected/EXPECTED
# (UPDATE=1: becomes it).

# script NAME SCENARIO SIZE: runs $T/NAME.script headlessly on a scenario;
# its dumps go to $T/NAME-*.txt.
script() {
	headless "$1" "$3" "$BIN" --root "$2"
}

need() {
	[ -f "$SCEN/$1/fabtop/meta.json" ] && return 0
	notok "scenario $1 is missing (make scenarios)"
	return 1
}

RF=$SCEN/roce-faults
POD=$SCEN/roce-faults-pod
IB8=$SCEN/ib-8port

# (a) roce-faults at 80x24: the first frame, mlx5_4/1 selected (its MTU
# finding), the end of its detail, a filter, then the same at 200x50.
if need roce-faults; then
	cat > "$T/rf.script" <<EOF
key 2
dump-pane $T/rf-first.txt
dump $T/rf-screen.txt
key Down
key j
key Down
key Down
dump-pane $T/rf-sel.txt
key End
dump-pane $T/rf-end.txt
key Home
key Up
key k
dump-pane $T/rf-up.txt
key f
key f
key f
key f
dump-pane $T/rf-filter.txt
key Down
key Down
dump-pane $T/rf-filter-down.txt
key F
dump-pane $T/rf-unfiltered.txt
key Esc
key 2
dump-pane $T/rf-esc.txt
key Down
resize 200 50
dump-pane $T/rf-wide.txt
key End
dump-pane $T/rf-wide-end.txt
key Home
resize 40 10
dump $T/rf-small.txt
dump-pane $T/rf-small-pane.txt
resize 80 24
key q
EOF
	script rf "$RF" 80x24
	same "$T/rf-first.txt" links-roce-faults-80x24.txt "roce-faults 80x24: key 2 shows the port list and mlx5_0/1's detail"
	same "$T/rf-sel.txt" links-roce-faults-80x24-mlx5_4.txt "roce-faults: Down/j select mlx5_4/1, yellow with its MTU finding"
	same "$T/rf-end.txt" links-roce-faults-80x24-mlx5_4-end.txt "roce-faults: End shows mlx5_4/1's findings with evidence and next step"
	# At 80x24 the verdict line wraps (error, warning and info counts), so
	# the finding's last line (next:) is checked on the 200x50 dump after End
	# (the list's LINE and MTU columns leave the detail 82 columns there).
	if grep -q "links.mtu-mismatch" "$T/rf-end.txt" 2>/dev/null && grep -q "evidence:" "$T/rf-end.txt" &&
	   grep -q "next: suggestion (fabtop changes nothing): ip link set" "$T/rf-wide-end.txt" &&
	   grep -q "dev ens41np0 mtu 9000" "$T/rf-wide-end.txt"; then
		ok "roce-faults: mlx5_4/1's detail ends with links.mtu-mismatch and a next step"
	else
		notok "roce-faults: mlx5_4/1's detail ends with links.mtu-mismatch and a next step"
	fi
	same "$T/rf-up.txt" links-roce-faults-80x24-mlx5_2.txt "roce-faults: Up/k move the selection back to mlx5_2/1"
	same "$T/rf-filter.txt" links-roce-faults-80x24-filter.txt "roce-faults: f four times filters to mlx5_3"
	if grep -q "filter: mlx5_3" "$T/rf-filter.txt" 2>/dev/null &&
	   [ "$(grep -c '^[> ] mlx5_' "$T/rf-filter.txt")" = "$(grep -c '^[> ] mlx5_3/' "$T/rf-filter.txt")" ]; then
		ok "roce-faults: the filter is named in the verdict and hides the other HCAs"
	else
		notok "roce-faults: the filter is named in the verdict and hides the other HCAs"
	fi
	if cmp -s "$T/rf-filter.txt" "$T/rf-filter-down.txt"; then
		ok "roce-faults: Down stays within the filtered HCA"
	else
		notok "roce-faults: Down stays within the filtered HCA"
		diff -u "$T/rf-filter.txt" "$T/rf-filter-down.txt" | head -20 | comment
	fi
	if ! grep -q "filter:" "$T/rf-unfiltered.txt" 2>/dev/null &&
	   grep -q "^> mlx5_3/1" "$T/rf-unfiltered.txt"; then
		ok "roce-faults: F clears the filter and keeps the selection"
	else
		notok "roce-faults: F clears the filter and keeps the selection"
	fi
	if cmp -s "$T/rf-unfiltered.txt" "$T/rf-esc.txt"; then
		ok "roce-faults: Esc without a filter changes nothing"
	else
		notok "roce-faults: Esc without a filter changes nothing"
	fi
	same "$T/rf-wide.txt" links-roce-faults-200x50-mlx5_4.txt "roce-faults 200x50: mlx5_4/1's detail and MTU finding beside the list"
	# The whole screen keeps its status bar; the pane keeps the selection.
	if grep -q "^> mlx5_4/1" "$T/rf-small-pane.txt" 2>/dev/null &&
	   tail -1 "$T/rf-small.txt" | grep -q "q:quit"; then
		ok "roce-faults: 40x10 still draws the pane, mlx5_4/1 selected, and the status bar"
	else
		notok "roce-faults: 40x10 still draws the pane, mlx5_4/1 selected, and the status bar"
		comment < "$T/rf-small.txt"
	fi

	# NO_COLOR changes attributes only, never the text.
	mkdir -p "$T/color"
	cp "$T"/rf-*.txt "$T/color/"
	NO_COLOR=1 FABTOP_SCRIPT=$T/rf.script FABTOP_SCRIPT_SIZE=80x24 "$BIN" --root "$RF" \
		</dev/null >/dev/null 2>&1
	differ=""
	for f in "$T"/color/rf-*.txt; do
		cmp -s "$f" "$T/$(basename "$f")" || differ="$differ $(basename "$f")"
	done
	if [ -z "$differ" ]; then
		ok "roce-faults under NO_COLOR: the same text on every screen"
	else
		notok "roce-faults under NO_COLOR: the same text on every screen (differ:$differ)"
	fi
fi

# Every size from the minimum up, after selecting the last port: no crash
# under the sanitizers, nothing past the right edge, the status bar drawn
# (the whole screen), and the selected row in view (the pane's rows).
if need roce-faults; then
	sizes="40x10 41x11 50x12 60x16 72x20 80x24 100x30 120x40 159x40 160x40 161x45 200x50 250x80 300x100"
	{
		echo "key 2"
		for k in 1 2 3 4 5 6 7; do echo "key Down"; done
		echo "key PgDn"
		for sz in $sizes; do
			echo "resize ${sz%x*} ${sz#*x}"
			echo "dump $T/size-$sz.txt"
			echo "dump-pane $T/size-$sz-pane.txt"
		done
		echo "key q"
	} > "$T/sizes.script"
	script sizes "$RF" 80x24
	bad=""
	for sz in $sizes; do
		f=$T/size-$sz.txt
		if [ ! -f "$f" ] || ! tail -1 "$f" | grep -q "q:quit" ||
		   [ "$(LC_ALL=C.UTF-8 wc -L < "$f")" -gt "${sz%x*}" ] ||
		   ! grep -q "^> mlx5_7/1" "$T/size-$sz-pane.txt"; then
			bad="$bad $sz"
		fi
	done
	if [ -z "$bad" ]; then
		ok "roce-faults at $(echo $sizes | wc -w) sizes from 40x10 to 300x100: fits, status bar, selection in view"
	else
		notok "roce-faults at every size: fits, status bar, selection in view (failed:$bad)"
	fi
fi

# (b) roce-faults-pod: every HCA visible, none usable from the pod.
if need roce-faults-pod; then
	cat > "$T/pod.script" <<EOF
key 2
dump-pane $T/pod-first.txt
key q
EOF
	script pod "$POD" 80x24
	same "$T/pod-first.txt" links-roce-faults-pod-80x24.txt "roce-faults-pod 80x24: the usable column says no"
	usable=$(grep -Ec '^[> ] mlx5_[0-9]+/[0-9].*  yes  ' "$T/pod-first.txt" 2>/dev/null)
	rows=$(grep -Ec '^[> ] mlx5_[0-9]+/[0-9]' "$T/pod-first.txt" 2>/dev/null)
	if [ "${rows:-0}" -gt "${usable:-0}" ] &&
	   grep -q "${usable:-x} of [0-9]* ports usable here" "$T/pod-first.txt"; then
		ok "roce-faults-pod: $usable of $rows ports usable, as the verdict counts"
	else
		notok "roce-faults-pod: the usable column and the verdict agree (${usable:-?} of ${rows:-?})"
	fi
fi

# (c) ib-8port: healthy InfiniBand, no findings.
if need ib-8port; then
	cat > "$T/ib.script" <<EOF
key 2
dump-pane $T/ib-first.txt
resize 200 50
dump-pane $T/ib-wide.txt
key q
EOF
	script ib "$IB8" 80x24
	same "$T/ib-first.txt" links-ib-8port-80x24.txt "ib-8port 80x24: all ports ACTIVE, no warnings"
	same "$T/ib-wide.txt" links-ib-8port-200x50.txt "ib-8port 200x50"
	# Its busy ports hold a few out_of_sequence: info (links.transport-errors), no more.
	if grep -q "^Ports: 8 info ·" "$T/ib-first.txt" 2>/dev/null; then
		ok "ib-8port: the verdict says info only (no warnings or errors)"
	else
		notok "ib-8port: the verdict says info only (no warnings or errors)"
	fi
fi

# (d) A node without HCAs says so plainly and points to the demo.
mkdir -p "$T/empty/sys"   # a node root (sys/) with no HCA
printf 'key 2\ndump-pane %s\nkey q\n' "$T/empty.txt" > "$T/empty.script"
script empty "$T/empty" 80x24
if grep -q "No RDMA devices on this node" "$T/empty.txt" 2>/dev/null &&
   grep -q "fabtop demo" "$T/empty.txt"; then
	ok "no HCAs: says so and suggests fabtop demo"
else
	notok "no HCAs: says so and suggests fabtop demo"
	[ -f "$T/empty.txt" ] && comment < "$T/empty.txt"
fi

# (e) The real terminal at 80x24: the same screen as the headless dump,
# rows in their finding's colour, and q exits 0 with the terminal restored.
cap() { tm capture-pane -p -t "$1" 2>/dev/null; }
if ! command -v tmux >/dev/null 2>&1; then
	ok "tmux: the real terminal # SKIP tmux is not installed (scripts/deps.sh check)"
elif need roce-faults; then
	rm -f "$T/t.rc" "$T/t.stty"
	tm new-session -d -s t -x 80 -y 24 \
		"trap '' INT TERM; '$BIN' --root '$RF' 2>'$T/t.err'; echo \$? > '$T/t.rc'; stty -a > '$T/t.tmp'; mv '$T/t.tmp' '$T/t.stty'"
	i=0
	while ! cap t | grep -q "q:quit" && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
	tm send-keys -t t 2
	i=0
	while [ $i -lt 150 ]; do
		cap t > "$T/tmux.txt"
		cmp -s "$T/tmux.txt" "$T/rf-screen.txt" && break
		sleep 0.1
		i=$((i + 1))
	done
	if cmp -s "$T/tmux.txt" "$T/rf-screen.txt"; then
		ok "tmux 80x24: key 2 draws what the headless dump shows"
	else
		notok "tmux 80x24: key 2 draws what the headless dump shows"
		diff -u "$T/rf-screen.txt" "$T/tmux.txt" | head -30 | comment
	fi
	# Colours: red (SGR 31) for errors, yellow (33) for warnings, green (32)
	# for healthy rows. tmux writes an attribute only where it changes, even
	# across lines, so the colour of each row is tracked through the capture.
	tm capture-pane -p -e -t t > "$T/tmux.ansi"
	awk -v E="$(printf '\033')" '
	function sgr(seq,   n, a, i) {
		n = split(seq, a, ";")
		if (n == 0) fg = ""
		for (i = 1; i <= n; i++) {
			if (a[i] == "" || a[i] == "0" || a[i] == "39") fg = ""
			else if (a[i] ~ /^3[0-7]$/) fg = a[i]
			else if (a[i] == "38") i += (a[i + 1] == "5") ? 2 : 4
		}
	}
	{
		line = $0
		while (match(line, "^" E "\\[[0-9;]*m")) {
			sgr(substr(line, 3, RLENGTH - 3))
			line = substr(line, RLENGTH + 1)
		}
		if (line ~ /^[> ] mlx5_[0-9]+\/[0-9]/)
			print (fg == "31" ? "red" : fg == "33" ? "yellow" : fg == "32" ? "green" : "other:" fg)
		while (match(line, E "\\[[0-9;]*m")) {
			sgr(substr(line, RSTART + 2, RLENGTH - 3))
			line = substr(line, RSTART + RLENGTH)
		}
	}' "$T/tmux.ansi" > "$T/colours"
	red=$(grep -c '^red$' "$T/colours")
	yellow=$(grep -c '^yellow$' "$T/colours")
	green=$(grep -c '^green$' "$T/colours")
	rows=$(grep -c '^[> ] mlx5_[0-9]*/[0-9]' "$T/tmux.txt")
	if [ "$rows" -gt 0 ] && [ $((red + yellow + green)) -eq "$rows" ] && [ $((red + yellow)) -gt 0 ]; then
		ok "tmux: each port row is red, yellow or green ($red red, $yellow yellow, $green green)"
	else
		notok "tmux: each port row is red, yellow or green ($red red, $yellow yellow, $green green of $rows)"
		comment < "$T/colours"
	fi
	tm send-keys -t t q
	i=0
	while [ ! -f "$T/t.stty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	rc=$(cat "$T/t.rc" 2>/dev/null)
	if [ "$rc" = 0 ] && grep -Eq '(^|[ ;])icanon( |;|$)' "$T/t.stty" &&
	   grep -Eq '(^|[ ;])echo( |;|$)' "$T/t.stty"; then
		ok "tmux: q on the links pane exits 0 and restores the terminal"
	else
		notok "tmux: q on the links pane exits 0 and restores the terminal (rc ${rc:-none})"
		[ -s "$T/t.err" ] && head -20 "$T/t.err" | comment
	fi
fi
exit 0
