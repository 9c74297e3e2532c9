#!/bin/sh
# The shell's keys, headless: h is help (as ? and F1; again goes back), the
# tab bar and the digits only the panes present now (the Fleet pane only
# under `fabtop fleet`), the help's "1 .. N" the number of those, and the
# learn keys: A outside learn mode says how to start it, L starts it (or
# says this build has no Learn pane).
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
SCEN=$TOP/build/scenarios
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS LANGUAGE

PREFIX=fabtop-shell-keys . "$(dirname "$0")/lib.sh"
DGX=$SCEN/dgx-h100
[ -d "$DGX" ] || { notok "needs build/scenarios/dgx-h100 (make tests)"; exit 0; }

status() { tail -n 1 "$1"; }
tabs() { sed -n 1p "$1"; }

cat > "$T/k.script" <<EOF
dump $T/start.txt
key h
dump $T/h1.txt
dump-pane $T/h1p.txt
key h
dump $T/h2.txt
key ?
dump-pane $T/q1p.txt
key F1
key 9
dump $T/nine.txt
key A
dump $T/a.txt
key L
dump $T/l.txt
key q
EOF
headless k 80x24 "$BIN" --root "$DGX" || exit 0
if head -n 1 "$T/h1p.txt" | grep -q "^fabtop: diagnostics console" && cmp -s "$T/h1p.txt" "$T/q1p.txt"; then
	ok "h shows the help pane, the same as ?"
else
	notok "h shows the help pane, the same as ?"; head -3 "$T/h1p.txt" | comment
fi
if cmp -s "$T/h2.txt" "$T/start.txt"; then
	ok "h again goes back to the pane before"
else
	notok "h again goes back to the pane before"; diff "$T/start.txt" "$T/h2.txt" | head | comment
fi
n=$(tabs "$T/start.txt" | grep -o ' [1-9] [A-Z][a-z]*' | wc -l)
if ! tabs "$T/start.txt" | grep -q "Fleet" && [ "$n" -ge 2 ]; then
	ok "--root: the tab bar has no Fleet pane ($n tabs)"
else
	notok "--root: the tab bar has no Fleet pane"; tabs "$T/start.txt" | comment
fi
# The whole help, at 100x300, for its keys and panes.
printf 'key h\ndump-pane %s\nkey q\n' "$T/tall.txt" > "$T/t.script"
headless t 100x300 "$BIN" --root "$DGX"
if grep -q "^  1 \.\. $n  " "$T/tall.txt" && ! grep -q "^  [0-9] Fleet" "$T/tall.txt" &&
   grep -q "^  $n Help" "$T/tall.txt"; then
	ok "the help says 1 .. $n and lists only the panes present, Help as $n"
else
	notok "the help says 1 .. $n and lists only the panes present"; grep -n "1 \.\.\|^  [0-9] " "$T/tall.txt" | comment
fi
# F1 went back to Topology; 9 is past the last pane: nothing changes.
if [ "$n" -lt 9 ] && cmp -s "$T/nine.txt" "$T/start.txt"; then
	ok "a digit past the last pane present does nothing"
else
	notok "a digit past the last pane present does nothing"; head -3 "$T/nine.txt" | comment
fi
case $(status "$T/a.txt") in
" A answers an exercise: press L to start learn mode"*) ok "A outside learn mode says how to start it" ;;
*) notok "A outside learn mode says how to start it"; status "$T/a.txt" | comment ;;
esac
if grep -q '^FAB_PANE(learn)' "$TOP/include/fabtop/panes.def"; then
	if tabs "$T/l.txt" | grep -q "Learn"; then
		ok "L starts learn mode: the Learn pane joins the tab bar"
	else
		notok "L starts learn mode: the Learn pane joins the tab bar"; head -3 "$T/l.txt" | comment
	fi
else
	case $(status "$T/l.txt") in
	" this build of fabtop has no Learn pane"*) ok "L in a build without the Learn pane says so" ;;
	*) notok "L in a build without the Learn pane says so"; status "$T/l.txt" | comment ;;
	esac
fi

# L in the hang demo starts hang's exercise (retries climbing) on hang;
# then D to another scenario and A on a row there is not judged: what
# another node shows proves nothing about this exercise.
export XDG_STATE_HOME="$T/state"
cat > "$T/ld.script" <<EOF
key L
dump-pane $T/ld.txt
dump $T/ldfull.txt
key D
key Home
key Enter
key 2
key A
dump $T/else.txt
key q
EOF
if headless ld 100x30 "$BIN" demo hang; then
	if grep -q "Retries climbing" "$T/ld.txt" && status "$T/ldfull.txt" | grep -q " hang "; then
		ok "L in the hang demo opens hang's own exercise (Retries climbing) on hang"
	else
		notok "L in the hang demo opens hang's own exercise on hang"; head -4 "$T/ld.txt" | comment
	fi
	case $(status "$T/else.txt") in
	*"This exercise is about the hang scenario, and the panes show busy"*)
		ok "A on another scenario than the exercise's is not judged" ;;
	*) notok "A on another scenario than the exercise's is not judged"; status "$T/else.txt" | comment ;;
	esac
	if [ ! -e "$T/state/fabtop/learn.json" ] || ! grep -q retries "$T/state/fabtop/learn.json"; then
		ok "... and nothing is kept as solved"
	else
		notok "... and nothing is kept as solved"; comment < "$T/state/fabtop/learn.json"
	fi
fi

# Under `fabtop fleet` the Fleet pane is present, and the digits count it.
printf 'dump %s\nkey q\n' "$T/fleet.txt" > "$T/f.script"
if headless f 80x24 "$BIN" fleet "$DGX" "$SCEN/hang"; then
	nf=$(tabs "$T/fleet.txt" | grep -o ' [1-9] [A-Z][a-z]*' | wc -l)
	if tabs "$T/fleet.txt" | grep -q " [1-9] Fleet" && [ "$nf" -eq $((n + 1)) ]; then
		ok "fabtop fleet: the Fleet pane is in the tab bar ($nf tabs)"
	else
		notok "fabtop fleet: the Fleet pane is in the tab bar"; tabs "$T/fleet.txt" | comment
	fi
fi
