#!/bin/sh
# The Learn pane, headless (FABTOP_SCRIPT) through `fabtop learn 1` on the
# shipped exercises: the tab is there; the exercise page shows the title
# --list gives, the layer, the symptom and the task; H shows the hints one
# at a time, each with its layer, up to the last, and the hints used reach
# the progress file; g opens the glossary (terms with their layers, the
# selected one's text), Down moves in it, Esc comes back; + and - go to the
# next and the previous exercise, wrapping. Then in Chinese at 80x24: the
# label column and the glossary's layer column line up by display width.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
UPDATE=
export LANG=C.UTF-8
unset LC_ALL LANGUAGE LC_MESSAGES LINES COLUMNS NO_COLOR
PREFIX=fabtop-learnpane . "$TOP/tests/screen/lib.sh"
if [ ! -f "$TOP/build/scenarios/index" ]; then
	notok "the bundled scenarios are missing (make scenarios)"
	exit 0
fi
export XDG_STATE_HOME="$T/state" HOME="$T/home" FABTOP_SCENARIOS="$TOP/build/scenarios"

"$BIN" learn --list >"$T/list" 2>/dev/null
n=$(wc -l <"$T/list")
title1=$(awk 'NR==1 { for (i = 5; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : "") }' "$T/list")
title2=$(awk 'NR==2 { for (i = 5; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : "") }' "$T/list")
id1=$(awk 'NR==1 { print $2 }' "$T/list")
layer1=$(awk 'NR==1 { print $3 }' "$T/list")

# Which digit the Learn tab has (the panes shown depend on the mode).
echo "dump $T/tabs.txt" >"$T/tabs.script"
headless tabs 120x40 "$BIN" learn 1 || exit 0
digit=$(head -n 1 "$T/tabs.txt" | grep -o '[1-9] Learn' | cut -c1)
if [ -n "$digit" ]; then
	ok "learn mode: the tab bar has the Learn pane ($digit)"
else
	notok "learn mode: no Learn tab"
	head -n 1 "$T/tabs.txt" | comment
	exit 0
fi

cat >"$T/a.script" <<S
key $digit
dump-pane $T/a0.txt
key H
dump-pane $T/a1.txt
key H
key H
key H
key H
key H
key H
dump-pane $T/a2.txt
key g
dump-pane $T/a3.txt
key Down
dump-pane $T/a4.txt
key Esc
dump-pane $T/a5.txt
key +
dump-pane $T/a6.txt
key -
dump-pane $T/a7.txt
key -
dump-pane $T/a8.txt
S
headless a 100x40 "$BIN" learn 1 || exit 0

has "$T/a0.txt" "exercise page: title, layer, symptom, task, no hint shown" \
	"Exercise 1 of $n: $title1" "layer: $layer1" "^Symptom " "^Task " "Hints: 0 of " "Press H for a hint"
has "$T/a1.txt" "H: the first hint, with its layer" "Hints: 1 of " "^  1\. \[[A-Za-z/]*\] "
if grep -q '^  2\. ' "$T/a1.txt"; then
	notok "H: one hint at a time (a second one is shown)"
	comment <"$T/a1.txt"
else
	ok "H: one hint at a time"
fi
# However often H is pressed, the hints end at the last one, in order.
k=$(grep -o 'Hints: [0-9]* of [0-9]*' "$T/a2.txt" | awk '{ print $2 }')
nh=$(grep -o 'Hints: [0-9]* of [0-9]*' "$T/a2.txt" | awk '{ print $4 }')
nums=$(grep -o '^  [0-9]\. \[' "$T/a2.txt" | awk '{ printf "%s", $1 }')
want=$(i=1; while [ "$i" -le "${nh:-0}" ]; do printf '%s.' $i; i=$((i + 1)); done)
if [ -n "$k" ] && [ "$k" = "$nh" ] && [ "$nums" = "$want" ] && ! grep -q 'Press H for a hint' "$T/a2.txt"; then
	ok "H: the hints end at the last ($nh), numbered in order"
else
	notok "H: hints shown $k of $nh, numbered $nums"
	comment <"$T/a2.txt"
fi
if grep -q "\"$id1\": $nh" "$T/state/fabtop/learn.json" 2>/dev/null; then
	ok "the hints used reach the progress file"
else
	notok "progress file after hints"
	comment <"$T/state/fabtop/learn.json" 2>/dev/null
fi
has "$T/a3.txt" "g: the glossary, terms with their layers, the first selected" \
	"^Glossary: [0-9]* terms" "^> " "^layer: "
sel3=$(grep -n '^> ' "$T/a3.txt" | head -n 1 | cut -d: -f1)
sel4=$(grep -n '^> ' "$T/a4.txt" | head -n 1 | cut -d: -f1)
if [ -n "$sel3" ] && [ -n "$sel4" ] && [ "$sel4" -eq $((sel3 + 1)) ]; then
	ok "glossary: Down selects the next term"
else
	notok "glossary: Down (selected row $sel3 then $sel4)"
	comment <"$T/a4.txt"
fi
has "$T/a5.txt" "Esc: back to the exercise" "Exercise 1 of $n"
has "$T/a6.txt" "+: the next exercise, no hint shown" "Exercise 2 of $n: $title2" "Hints: 0 of "
has "$T/a7.txt" "-: the previous exercise" "Exercise 1 of $n: $title1"
has "$T/a8.txt" "-: from the first, the last" "Exercise $n of $n"

# Chinese at 80x24: the same page and the glossary, columns by display width.
cat >"$T/z.script" <<S
key $digit
key H
dump-pane $T/z0.txt
key g
dump-pane $T/z1.txt
S
headless z 80x24 "$BIN" --lang zh_CN learn 1 || exit 0
if ! grep -q '现象' "$T/z0.txt"; then
	notok "zh_CN: the Learn pane is not in Chinese"
	comment <"$T/z0.txt"
	exit 0
fi
cols() {
	python3 -c '
import sys, unicodedata
def w(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
want = sys.argv[2:]
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    for lab in want:
        if line.startswith(lab):
            rest = line[len(lab):]
            print(w(lab) + len(rest) - len(rest.lstrip(" ")))
' "$@"
}
c=$(cols "$T/z0.txt" 现象 任务 | sort -u)
if [ "$(echo "$c" | wc -l)" = 1 ] && [ -n "$c" ]; then
	ok "zh_CN 80x24: the symptom and the task start at one display column ($c)"
else
	notok "zh_CN 80x24: label column ($c)"
	comment <"$T/z0.txt"
fi
# Each glossary row: the layer word ends the row; it starts at one column.
lc=$(python3 -c '
import sys, unicodedata
def w(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
rows = [l.rstrip("\n") for l in open(sys.argv[1], encoding="utf-8")][1:]
for l in rows:
    if not l.startswith(("> ", "  ")) or "  " not in l[2:]:
        break
    if l.split()[-1].count("/") == 1 and l.split()[-1].split("/")[1].isdigit() and len(l.split()) == 1:
        break
    head = l[:l.rstrip().rfind("  ") + 2]
    print(w(head))
' "$T/z1.txt" | sort -u)
if [ -n "$lc" ] && [ "$(echo "$lc" | wc -l)" = 1 ]; then
	ok "zh_CN 80x24: the glossary's layer column lines up ($lc)"
else
	notok "zh_CN 80x24: glossary layer columns: $(echo $lc)"
	comment <"$T/z1.txt"
fi
