#!/bin/sh
# The Fleet pane through `fabtop fleet DIR` in a real terminal (tmux): five
# nodes made from the bundled dgx-h100 capture (four tarballs with their
# own host names, one of them with mlx5_3 at 200 instead of 400, and one
# saved `report all --json`). The odd node is marked; Enter opens it in the
# panes (the Topology pane, the banner and the status bar name it), read
# into memory with nothing unpacked; Backspace comes back with it still
# selected; Enter on another node opens that one, again with nothing
# unpacked (TMPDIR stays empty); the report JSON says in one line that it
# cannot be opened; q exits 0 with nothing left behind. Then the same fleet headless (FABTOP_SCRIPT).
# Prints "ok - name" / "not ok - name" lines.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
SCEN=$TOP/build/scenarios
EXP=$TOP/tests/screen/expected
UPDATE=
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS NO_COLOR

if ! command -v tmux >/dev/null 2>&1; then
	echo "ok - fleet pane in tmux # SKIP tmux is not installed (scripts/deps.sh check)"
	exit 0
fi
PREFIX=fabtop-fleetpane . "$(dirname "$0")/lib.sh"

if [ ! -d "$SCEN/dgx-h100/sys" ]; then
	notok "scenario dgx-h100 is missing (make scenarios)"
	exit 0
fi

# node NAME [RATE]: a capture of dgx-h100 whose host is NAME (and mlx5_3's
# rate RATE), packed as $T/fleet/NAME.tar.gz like `fabtop capture` writes.
node() {
	d=$T/caps/$1
	cp -al "$SCEN/dgx-h100" "$d" 2>/dev/null || cp -a "$SCEN/dgx-h100" "$d" || return 1
	# New files, never written through the hard links to the scenario.
	rm -f "$d/fabtop/report.json" "$d/proc/sys/kernel/hostname" "$d/fabtop/meta.json"
	printf '%s\n' "$1" > "$d/proc/sys/kernel/hostname"
	sed "s/\"host\": \"dgx-h100-demo\"/\"host\": \"$1\"/" "$SCEN/dgx-h100/fabtop/meta.json" \
		> "$d/fabtop/meta.json"
	if [ $# -gt 1 ]; then
		f=$(find "$d/sys/devices" -path "*/infiniband/mlx5_3/ports/1/rate")
		[ -n "$f" ] || return 1
		rm -f "$f"
		printf '%s\n' "$2" > "$f"
	fi
	tar -C "$T/caps" -czf "$T/fleet/$1.tar.gz" "$1"
}

mkdir -p "$T/caps" "$T/fleet" "$T/tmp"
if ! { node node01 && node node02 && node node03 && node node04 "200 Gb/sec (4X HDR)"; }; then
	notok "build the fleet's captures"
	exit 0
fi
"$BIN" --root "$T/caps/node01" report all --json 2>/dev/null |
	sed 's/"host": "node01"/"host": "node05"/' > "$T/fleet/node05.json"
# The unpacked captures of this test only.
export TMPDIR="$T/tmp"
# Whatever an open left in TMPDIR (a capture is read into memory: nothing).
unpacked() { find "$T/tmp" -mindepth 1 -maxdepth 1 | sort; }

cap() { tm capture-pane -p -t "$1" 2>/dev/null; }
# until NAME PATTERN: waits up to 20 s for a screen with a line matching
# PATTERN (grep -E), leaves it in $T/NAME.screen; 1 when it never came.
until_has() {
	i=0
	while [ $i -lt 200 ]; do
		cap "$1" > "$T/$1.screen"
		grep -Eq -- "$2" "$T/$1.screen" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
check() { # NAME PATTERN TEST
	if until_has "$1" "$2"; then
		ok "$3"
	else
		notok "$3 (no /$2/)"
		comment < "$T/$1.screen"
	fi
}

tm new-session -d -s f -x 110 -y 34 \
	"'$BIN' fleet '$T/fleet' 2>'$T/f.err'; echo \$? > '$T/f.rc'"

check f "^ FLEET: 5 nodes" "fabtop fleet DIR opens the Fleet pane with the five nodes"
if grep -Eq "^  ! node04 .*findings|^  ! node04 " "$T/f.screen" &&
   [ "$(grep -c '^  ! ' "$T/f.screen")" = 1 ]; then
	ok "node04 (mlx5_3 at 200) is the one node marked unlike its kind"
else
	notok "node04 (mlx5_3 at 200) is the one node marked unlike its kind"
	comment < "$T/f.screen"
fi

tm send-keys -t f Down Down Down
check f "^> ! node04" "Down selects node04"
check f "mlx5_3/1 rate.*: 200 vs 400 on 4 of 5" "its detail says what sets it apart: 200 vs 400 on 4 of 5"

tm send-keys -t f Enter
check f "^ FLEET: node node04 \(4/5\)" "Enter: the banner names node04 (4/5)"
if grep -q "^Topology source:" "$T/f.screen" && tail -1 "$T/f.screen" | grep -q "^ node04 "; then
	ok "Enter: the Topology pane shows node04's capture, its host in the status bar"
else
	notok "Enter: the Topology pane shows node04's capture, its host in the status bar"
	comment < "$T/f.screen"
fi
first=$(unpacked)
if [ -z "$first" ]; then
	ok "node04's tarball is read into memory: nothing unpacked in TMPDIR"
else
	notok "node04's tarball is read into memory: nothing unpacked in TMPDIR (found: $first)"
fi

tm send-keys -t f 2
check f "^> mlx5_0/1" "the Links pane shows node04's ports"
tm send-keys -t f BSpace
check f "^> ! node04" "Backspace returns to the Fleet pane with node04 still selected"

tm send-keys -t f Home Enter
check f "^ FLEET: node node01 \(1/5\)" "Enter on node01 opens it instead"
now=$(unpacked)
if [ -z "$now" ]; then
	ok "the switch to node01 unpacks nothing either"
else
	notok "the switch to node01 unpacks nothing either (found: $now)"
fi

tm send-keys -t f BSpace End Enter
check f "node05 is a saved report \(report all --json\), not a capture" \
	"a report JSON node says in one line that it cannot be opened"
if grep -q "^ FLEET: 5 nodes\|^ FLEET: node node01" "$T/f.screen" && grep -q "^> .*node05" "$T/f.screen"; then
	ok "... and the Fleet pane stays, node05 selected"
else
	notok "... and the Fleet pane stays, node05 selected"
	comment < "$T/f.screen"
fi

tm send-keys -t f q
i=0
while [ ! -f "$T/f.rc" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ "$(cat "$T/f.rc" 2>/dev/null)" = 0 ] && [ -z "$(unpacked)" ]; then
	ok "q exits 0 and leaves no unpacked capture behind"
else
	notok "q exits 0 and leaves no unpacked capture behind (rc $(cat "$T/f.rc" 2>/dev/null), left: $(unpacked))"
	[ -s "$T/f.err" ] && comment < "$T/f.err"
fi

# Headless: the same fleet through FABTOP_SCRIPT, the Fleet pane's rows.
cat > "$T/h.script" <<EOF
dump-pane $T/h-fleet.txt
key Down
key Down
key Down
key Enter
key BSpace
dump-pane $T/h-back.txt
key q
EOF
if headless h 110x34 "$BIN" fleet "$T/fleet"; then
	has "$T/h-fleet.txt" "headless: five rows, node04 marked" "^>   node01 " "^  ! node04 " "^    node05 "
	has "$T/h-back.txt" "headless: back from node04 with it selected" "^> ! node04 "
fi
