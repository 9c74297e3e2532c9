#!/bin/sh
# The scenario switcher (D), headless: in a demo it lists the index's
# scenarios with the open one marked, Up/Down move, Enter opens the chosen
# one in every pane and the banner names it; Esc closes it with nothing
# changed; outside a demo D says how to get one. And the demo's first
# screen: `fabtop` on a machine without an HCA opens the `hang` scenario
# with a banner that says L learns and D switches scenario.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
SCEN=$TOP/build/scenarios
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS LANGUAGE FABTOP_SCENARIOS

PREFIX=fabtop-shell-switcher . "$(dirname "$0")/lib.sh"
[ -f "$SCEN/index" ] || { notok "needs build/scenarios/index (make tests)"; exit 0; }

status() { tail -n 1 "$1"; }
banner() { sed -n 2p "$1"; }
# The scenario after hang in the index: where Down then Enter must go.
next=$(awk -F'\t' '!/^#/ && NF >= 2 { if (seen) { print $1; exit } if ($1 == "hang") seen = 1 }' "$SCEN/index")
nscen=$(awk -F'\t' '!/^#/ && NF >= 2' "$SCEN/index" | wc -l)

cat > "$T/d.script" <<EOF
key 2
dump $T/before.txt
dump-pane $T/before-pane.txt
key D
dump $T/open.txt
key Esc
dump $T/esc.txt
dump-pane $T/esc-pane.txt
key D
key Down
dump $T/down.txt
key Enter
dump $T/after.txt
dump-pane $T/after-pane.txt
key D
dump $T/open2.txt
key Esc
key q
EOF
headless d 110x30 "$BIN" demo hang || exit 0

if grep -q "Scenarios .* Up/Down, Enter opens, Esc closes" "$T/open.txt" &&
   grep -q '^>\* hang ' "$T/open.txt"; then
	ok "D opens the switcher with hang (the scenario open) selected and marked *"
else
	notok "D opens the switcher with hang selected and marked *"; comment < "$T/open.txt"
fi
n=$(grep -c '^[> ][* ] [a-z0-9]' "$T/open.txt")
if [ "$n" -eq "$nscen" ]; then
	ok "the switcher lists the index's $nscen scenarios"
else
	notok "the switcher lists the index's $nscen scenarios (saw $n)"; comment < "$T/open.txt"
fi
if cmp -s "$T/before-pane.txt" "$T/esc-pane.txt" && [ "$(banner "$T/esc.txt")" = "$(banner "$T/before.txt")" ]; then
	ok "Esc closes the switcher: the pane and the banner as they were"
else
	notok "Esc closes the switcher: the pane and the banner as they were"
	diff "$T/before-pane.txt" "$T/esc-pane.txt" | head -10 | comment
fi
if grep -q "^>  $next " "$T/down.txt"; then
	ok "Down selects the next scenario ($next)"
else
	notok "Down selects the next scenario ($next)"; comment < "$T/down.txt"
fi
case $(banner "$T/before.txt") in
*"DEMO: "*hang*"press L to learn, D to switch scenario"*) ok "the banner of fabtop demo hang names it and says L and D" ;;
*) notok "the banner of fabtop demo hang names it and says L and D"; banner "$T/before.txt" | comment ;;
esac
if banner "$T/after.txt" | grep -q "DEMO: .*$next" && ! banner "$T/after.txt" | grep -q "hang" &&
   status "$T/after.txt" | grep -q " $next " && grep -q "^>\* $next " "$T/open2.txt"; then
	ok "Enter opens $next in the panes: banner, status bar and the switcher's mark follow"
else
	notok "Enter opens $next in the panes"; { banner "$T/after.txt"; status "$T/after.txt"; } | comment
fi
# The pane in view (Links) stays in view, now on the other node's ports.
if sed -n 1p "$T/after.txt" | grep -q "2 Links" && [ -s "$T/after-pane.txt" ] && ! cmp -s "$T/before-pane.txt" "$T/after-pane.txt"; then
	ok "the Links pane stays in view, opened anew on $next"
else
	notok "the Links pane stays in view, opened anew on $next"
fi

# Outside a demo D says how to get one, and opens nothing.
printf 'key D\ndump %s\nkey q\n' "$T/nodemo.txt" > "$T/n.script"
if headless n 80x24 "$BIN" --root "$SCEN/dgx-h100"; then
	if status "$T/nodemo.txt" | grep -q "fabtop demo NAME" && ! grep -q "Scenarios .* Up/Down" "$T/nodemo.txt"; then
		ok "D outside a demo says how to get one (fabtop demo NAME)"
	else
		notok "D outside a demo says how to get one"; status "$T/nodemo.txt" | comment
	fi
fi

# `fabtop` with no HCA here: the hang demo, banner first.
if [ -n "$(ls -A /sys/class/infiniband 2>/dev/null)" ]; then
	echo "ok - fabtop without an HCA opens the hang demo # SKIP this machine has an HCA"
else
	printf 'dump %s\nkey q\n' "$T/first.txt" > "$T/f.script"
	if headless f 80x24 "$BIN"; then
		if banner "$T/first.txt" | grep -q "^ DEMO: .*hang.* press L to learn, D to switch scenario" &&
		   status "$T/first.txt" | grep -q " hang "; then
			ok "fabtop without an HCA opens the hang demo; the banner says L learns, D switches"
		else
			notok "fabtop without an HCA opens the hang demo"; head -2 "$T/first.txt" | comment
		fi
	fi
fi
# At 40 columns the banner shortens and still names the scenario.
printf 'dump %s\nkey q\n' "$T/narrow.txt" > "$T/w.script"
if headless w 40x10 "$BIN" demo hang; then
	b=$(banner "$T/narrow.txt")
	if [ "${#b}" -le 42 ] && echo "$b" | grep -q "^ DEMO: .*hang"; then
		ok "40 columns: the banner shortens and still names the scenario ($b)"
	else
		notok "40 columns: the banner shortens and still names the scenario"; echo "$b" | comment
	fi
fi
