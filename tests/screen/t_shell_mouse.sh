#!/bin/sh
# The mouse: button 1 on a tab selects that pane, on the pane it goes to the
# pane's click(), the wheel scrolls as the arrow keys do, and -M turns it
# all off. Headless (the script's click/wheel commands go through ncurses'
# own queue, ungetmouse) and in a real terminal: tmux gets the xterm mouse
# report a terminal sends for a click (send-keys -l), and the tab changes.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
SCEN=$TOP/build/scenarios
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS LANGUAGE

PREFIX=fabtop-shell-mouse . "$(dirname "$0")/lib.sh"
DGX=$SCEN/dgx-h100
[ -d "$DGX" ] || { notok "needs build/scenarios/dgx-h100 (make tests)"; exit 0; }

status() { tail -n 1 "$1"; }
# tabx FILE TITLE: the screen column (from 0) of TITLE in the tab bar.
tabx() { sed -n 1p "$1" | awk -v t="$2" '{ i = index($0, t); print i ? i - 1 : -1 }'; }

# The tab bar's geometry from a first dump, then the clicks at it.
printf 'dump %s\nkey q\n' "$T/g.txt" > "$T/g.script"
headless g 80x24 "$BIN" --root "$DGX" || exit 0
lx=$(tabx "$T/g.txt" "Links")
hx=$(tabx "$T/g.txt" "Help")
if [ "$lx" -lt 0 ] || [ "$hx" -lt 0 ]; then
	notok "the tab bar has Links and Help"; comment < "$T/g.txt"; exit 0
fi

cat > "$T/m.script" <<EOF
click $lx 0
dump $T/links.txt
click 5 6
dump $T/row.txt
click $hx 0
dump $T/help.txt
wheel down 10 10
dump $T/wheel.txt
wheel up 10 10
dump $T/wheelup.txt
click 70 23
dump $T/status.txt
key q
EOF
headless m 80x24 "$BIN" --root "$DGX" || exit 0
if grep -q "PORT.* STATE" "$T/links.txt"; then
	ok "headless: a click on the Links tab shows the Links pane"
else
	notok "headless: a click on the Links tab shows the Links pane"; head -5 "$T/links.txt" | comment
fi
if sed -n 1p "$T/help.txt" | grep -q "Help" && sed -n 2p "$T/help.txt" | grep -q "^fabtop: diagnostics console"; then
	ok "headless: a click on the Help tab shows the Help pane"
else
	notok "headless: a click on the Help tab shows the Help pane"; head -3 "$T/help.txt" | comment
fi
case $(status "$T/wheel.txt") in
*" 4-"*) ok "headless: a notch of the wheel down scrolls three rows (as Down three times)" ;;
*) notok "headless: a notch of the wheel down scrolls three rows"; status "$T/wheel.txt" | comment ;;
esac
if cmp -s "$T/wheelup.txt" "$T/help.txt"; then
	ok "headless: a notch up scrolls back"
else
	notok "headless: a notch up scrolls back"; status "$T/wheelup.txt" | comment
fi
if cmp -s "$T/status.txt" "$T/wheelup.txt"; then
	ok "headless: a click on the status bar does nothing"
else
	notok "headless: a click on the status bar does nothing"
fi

# -M: the same clicks are dropped (no mouse mask: ncurses keeps no event).
cat > "$T/n.script" <<EOF
click $lx 0
dump $T/nomouse.txt
key q
EOF
if headless n 80x24 "$BIN" -M --root "$DGX"; then
	if cmp -s "$T/nomouse.txt" "$T/g.txt"; then
		ok "headless -M: a click on the Links tab does nothing"
	else
		notok "headless -M: a click on the Links tab does nothing"; head -3 "$T/nomouse.txt" | comment
	fi
fi

# A real terminal: tmux, TERM=tmux-256color (kmous=\E[M: the X10 report,
# ESC [ M then button+32, column+33, row+33), press and release.
if ! command -v tmux >/dev/null 2>&1; then
	echo "ok - tmux click # SKIP tmux is not installed (scripts/deps.sh check)"
	exit 0
fi
# report B X Y: the bytes of an X10 mouse report (0-based X, Y).
report() { printf "\033[M$(printf '\\%03o' $(($1 + 32)) $(($2 + 33)) $(($3 + 33)))"; }
# waitfor NAME PATTERN: the screen shows PATTERN within 15 s.
waitfor() {
	i=0
	while [ $i -lt 150 ]; do
		tm capture-pane -p -t "$1" > "$T/$1.cap" 2>/dev/null
		grep -q -- "$2" "$T/$1.cap" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
for mode in on off; do
	opt=""
	[ $mode = off ] && opt="-M"
	tm new-session -d -s $mode -x 80 -y 24 "'$BIN' $opt --root '$DGX' 2>'$T/$mode.err'; sleep 30"
	if ! waitfor $mode "q:quit"; then
		notok "tmux ($mode): the console starts"; comment < "$T/$mode.err"; continue
	fi
	tm send-keys -t $mode -l "$(report 0 "$lx" 0)"
	tm send-keys -t $mode -l "$(report 3 "$lx" 0)"
	if [ $mode = on ]; then
		if waitfor on "PORT.* STATE"; then
			ok "tmux: an xterm mouse click on the Links tab shows the Links pane"
		else
			notok "tmux: an xterm mouse click on the Links tab shows the Links pane"; head -5 "$T/on.cap" | comment
		fi
	else
		# Something else must happen first so the check is not early: a key.
		tm send-keys -t off Tab
		if waitfor off "PORT.* STATE" && tm send-keys -t off BTab && waitfor off "GPU0 .*GPU1" &&
		   ! grep -q "PORT.* STATE" "$T/off.cap"; then
			ok "tmux -M: the click did nothing (Tab, Shift-Tab come back to Topology)"
		else
			notok "tmux -M: the click did nothing"; head -5 "$T/off.cap" | comment
		fi
	fi
	tm send-keys -t $mode q
done
