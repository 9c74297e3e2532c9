#!/bin/sh
# One exercise from start to a RIGHT and to a WRONG answer, headless
# (FABTOP_SCRIPT), as a learner does it: `fabtop learn port-down` opens on
# the Learn pane; they go to the Links pane, select a port with the search
# (/), press A; the status bar says the verdict, and back on the Learn pane
# the verdict, what was answered and why are shown. Right: the concept and
# its glossary terms, Enter on one opens the glossary there, the progress
# file holds the exercise and --list marks it. Wrong: why, without the
# concept, nothing saved as solved. Then a mouse click on a glossary row
# selects that term. Outside learn mode the Learn tab is not shown.
# Needs the shell's A, / and mouse (branch shell) and the Links pane's
# pick (branch links).
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
UPDATE=
export LANG=C.UTF-8
unset LC_ALL LANGUAGE LC_MESSAGES LINES COLUMNS NO_COLOR
PREFIX=fabtop-learnanswer . "$TOP/tests/screen/lib.sh"
if [ ! -f "$TOP/build/scenarios/index" ]; then
	notok "the bundled scenarios are missing (make scenarios)"
	exit 0
fi
export HOME="$T/home" FABTOP_SCENARIOS="$TOP/build/scenarios"
# The exercise this test plays: a port down on roce-faults, mlx5_1 port 1
# (`fabtop --root build/scenarios/roce-faults report links`: DOWN/Disabled).
EX=port-down RIGHT_PORT=mlx5_1/1 WRONG_PORT=mlx5_2/1
if ! XDG_STATE_HOME="$T/none" "$BIN" learn --list 2>/dev/null | awk '{ print $2 }' | grep -qx "$EX"; then
	notok "no exercise $EX in fabtop learn --list"
	exit 0
fi

export XDG_STATE_HOME="$T/right"
echo "dump $T/tabs.txt" >"$T/tabs.script"
headless tabs 100x40 "$BIN" learn "$EX" || exit 0
links=$(head -n 1 "$T/tabs.txt" | grep -o '[1-9] Links' | cut -c1)
learn=$(head -n 1 "$T/tabs.txt" | grep -o '[1-9] Learn' | cut -c1)
if [ -z "$links" ] || [ -z "$learn" ]; then
	notok "the tab bar has Links and Learn"
	head -n 1 "$T/tabs.txt" | comment
	exit 0
fi
# Outside learn mode there is no Learn tab (view_ops.present).
echo "dump $T/plain.txt" >"$T/plain.script"
headless plain 100x40 "$BIN" --root "$TOP/build/scenarios/roce-faults" || exit 0
if head -n 1 "$T/plain.txt" | grep -q 'Learn'; then
	notok "outside learn mode the tab bar has no Learn pane"
	head -n 1 "$T/plain.txt" | comment
else
	ok "outside learn mode the tab bar has no Learn pane"
fi
# `fabtop learn` opens on its pane, with its exercise.
if sed -n '3,$p' "$T/tabs.txt" | grep -q '^Exercise [0-9]* of [0-9]*: '; then
	ok "fabtop learn $EX opens on the Learn pane"
else
	notok "fabtop learn $EX opens on the Learn pane"
	comment <"$T/tabs.txt"
fi

# ---- right ----
cat >"$T/right.script" <<S
key $links
key /
type $RIGHT_PORT
key Enter
dump-pane $T/r_links.txt
key A
dump $T/r_status.txt
key $learn
dump-pane $T/r_pane.txt
key Down
dump-pane $T/r_sel.txt
key Enter
dump-pane $T/r_gloss.txt
S
headless right 100x40 "$BIN" learn "$EX" || exit 0
has "$T/r_links.txt" "right: the search selects $RIGHT_PORT in the Links pane" "^> $RIGHT_PORT "
if tail -n 1 "$T/r_status.txt" | grep -q 'RIGHT'; then
	ok "right: A says RIGHT on the status bar"
else
	notok "right: status bar after A"
	tail -n 2 "$T/r_status.txt" | comment
fi
dev=${RIGHT_PORT%/*} port=${RIGHT_PORT#*/}
has "$T/r_pane.txt" "right: the Learn pane shows the verdict, the answer, the concept and its terms" \
	"^  . RIGHT  $dev port $port" "^The concept" "^Glossary (Up/Down choose, Enter opens)"
if grep -q '^Your answer' "$T/r_pane.txt" && ! grep -q 'None yet' "$T/r_pane.txt"; then
	ok "right: the answer replaces 'None yet'"
else
	notok "right: the answer section"
	comment <"$T/r_pane.txt"
fi
has "$T/r_sel.txt" "right: Down selects the concept's first term" "^  > "
term=$(grep '^  > ' "$T/r_sel.txt" | head -n 1 | sed 's/^  > //; s/  .*//')
if head -n 1 "$T/r_gloss.txt" | grep -q '^Glossary: ' && grep -q "^> $term " "$T/r_gloss.txt"; then
	ok "right: Enter on the concept's term opens the glossary at it ($term)"
else
	notok "right: Enter on the term ($term)"
	comment <"$T/r_gloss.txt"
fi
if grep -q "\"$EX\"" "$T/right/fabtop/learn.json" 2>/dev/null &&
   [ "$(stat -c %a "$T/right/fabtop/learn.json")" = 600 ]; then
	ok "right: the progress file (0600) holds $EX as solved"
else
	notok "right: progress file"
	comment <"$T/right/fabtop/learn.json" 2>/dev/null
fi
if "$BIN" learn --list 2>/dev/null | grep -q "^ *[0-9]* \(✓\|\*\) $EX "; then
	ok "right: learn --list marks $EX solved"
else
	notok "right: learn --list mark"
	"$BIN" learn --list 2>&1 | comment
fi

# ---- wrong ----
export XDG_STATE_HOME="$T/wrong"
cat >"$T/wrong.script" <<S
key $links
key /
type $WRONG_PORT
key Enter
dump-pane $T/w_links.txt
key A
dump $T/w_status.txt
key $learn
dump-pane $T/w_pane.txt
S
headless wrong 100x40 "$BIN" learn "$EX" || exit 0
has "$T/w_links.txt" "wrong: the search selects $WRONG_PORT" "^> $WRONG_PORT "
if tail -n 1 "$T/w_status.txt" | grep -q 'NOT IT'; then
	ok "wrong: A says it is not it on the status bar"
else
	notok "wrong: status bar after A"
	tail -n 2 "$T/w_status.txt" | comment
fi
wdev=${WRONG_PORT%/*} wport=${WRONG_PORT#*/}
has "$T/w_pane.txt" "wrong: the Learn pane shows WRONG, the answer and why" \
	"^  . WRONG  $wdev port $wport" "^    $wdev port $wport is not the port"
if grep -q '^The concept' "$T/w_pane.txt" || grep -q "$dev" "$T/w_pane.txt"; then
	notok "wrong: neither the concept nor the answer is given away"
	comment <"$T/w_pane.txt"
else
	ok "wrong: neither the concept nor the answer is given away"
fi
if grep -q "\"$EX\"" "$T/wrong/fabtop/learn.json" 2>/dev/null; then
	notok "wrong: nothing is saved as solved"
	comment <"$T/wrong/fabtop/learn.json"
else
	ok "wrong: nothing is saved as solved"
fi

# ---- a click on a glossary row ----
export XDG_STATE_HOME="$T/click"
printf 'key g\ndump %s\n' "$T/c0.txt" >"$T/c0.script"
headless c0 100x40 "$BIN" learn "$EX" || exit 0
# The second term's screen row (from 0) and its name.
y=$(awk '/^Glossary: /{ g = NR } g && NR == g + 2 { print NR - 1; exit }' "$T/c0.txt")
name=$(awk '/^Glossary: /{ g = NR } g && NR == g + 2 { sub(/^  /, ""); sub(/  .*/, ""); print; exit }' "$T/c0.txt")
printf 'key g\nclick 4 %s\ndump-pane %s\n' "$y" "$T/c1.txt" >"$T/c1.script"
headless c1 100x40 "$BIN" learn "$EX" || exit 0
if [ -n "$name" ] && grep -q "^> $name " "$T/c1.txt" && grep -qx "$name" "$T/c1.txt"; then
	ok "click: a glossary row is selected and its text shown ($name)"
else
	notok "click on the glossary row $y ($name)"
	comment <"$T/c1.txt"
fi
