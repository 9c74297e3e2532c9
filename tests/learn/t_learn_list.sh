#!/bin/sh
# `fabtop learn` on the command line, with the shipped exercises: --list
# prints one line an exercise (number, id, layer, scenario, title) and
# every scenario it names is a bundled one; a progress file marks the
# solved ones; a broken or planted one is said once and listed from a
# fresh start, never followed; --help, an unknown exercise and no terminal.
NAME=learnlist; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
need "$top/build/scenarios/index"
export LANG=C.UTF-8
unset LC_ALL LANGUAGE LC_MESSAGES
export XDG_STATE_HOME="$T/state" HOME="$T/home"
export FABTOP_SCENARIOS="$top/build/scenarios"

"$bin" learn --list >"$T/list" 2>"$T/err"
rc=$?
n=$(wc -l <"$T/list")
if [ $rc -eq 0 ] && [ "$n" -ge 2 ] && [ ! -s "$T/err" ]; then
	ok "learn --list: $n exercises, exit 0, nothing on stderr"
else
	nok "learn --list: exit $rc, $n lines" "$(cat "$T/list" "$T/err")"
fi

# Each line: its number in order, a blank mark, an id, a layer word, a
# scenario the index names, a title.
bad=
i=0
while IFS= read -r line; do
	i=$((i + 1))
	set -- $line
	num=$1 id=$2 layer=$3 scen=$4
	[ "$num" = "$i" ] || bad="$bad
line $i numbered $num: $line"
	case "$layer" in physical|link|IP/MTU|RDMA|NCCL) ;; *) bad="$bad
line $i: layer \"$layer\": $line" ;; esac
	cut -f1 "$top/build/scenarios/index" | grep -qx -- "$scen" || bad="$bad
line $i: scenario \"$scen\" is not bundled: $line"
	[ "$#" -ge 5 ] || bad="$bad
line $i has no title: $line"
	# The mark column is blank before anything is solved.
	[ "$(printf '%s' "$line" | cut -c4)" = " " ] || bad="$bad
line $i is marked solved: $line"
done <"$T/list"
if [ -z "$bad" ] && [ "$i" -eq "$n" ]; then
	ok "learn --list: every line has its number, id, layer, bundled scenario and title"
else
	nok "learn --list: malformed lines" "$bad"
fi

# Solved: the mark on that line only. The file is as the engine writes it.
first=$(awk 'NR==1 { print $2 }' "$T/list")
second=$(awk 'NR==2 { print $2 }' "$T/list")
mkdir -p "$T/state/fabtop"
printf '{"version": 1, "solved": ["%s"], "hints": {}}\n' "$second" >"$T/state/fabtop/learn.json"
"$bin" learn --list >"$T/list2" 2>"$T/err"
if awk 'NR==2' "$T/list2" | grep -q "^ 2 \(✓\|\*\) $second " &&
   awk 'NR==1' "$T/list2" | grep -q "^ 1   $first " && [ ! -s "$T/err" ]; then
	ok "learn --list: a solved exercise is marked, the others not"
else
	nok "learn --list: solved mark" "$(cat "$T/list2" "$T/err")"
fi
# Under the C locale the mark is ASCII.
LANG=C "$bin" learn --list >"$T/list3" 2>/dev/null
if awk 'NR==2' "$T/list3" | grep -q "^ 2 \* $second "; then
	ok "learn --list: the mark is * where the terminal is not UTF-8"
else
	nok "learn --list: ASCII mark" "$(cat "$T/list3")"
fi

# A broken file: listed afresh, said once on stderr.
printf '{"solved": ["%s"' "$second" >"$T/state/fabtop/learn.json"
"$bin" learn --list >"$T/list4" 2>"$T/err"
if [ "$(grep -c 'progress starts afresh' "$T/err")" = 1 ] && ! grep -q '✓\|\*' "$T/list4"; then
	ok "learn --list: a broken progress file is said once and nothing is marked"
else
	nok "learn --list: broken progress file" "$(cat "$T/list4" "$T/err")"
fi

# A link planted as learn.json is not read.
printf '{"solved": ["%s"]}\n' "$second" >"$T/victim.json"
rm -f "$T/state/fabtop/learn.json"
ln -s "$T/victim.json" "$T/state/fabtop/learn.json"
"$bin" learn --list >"$T/list5" 2>"$T/err"
if grep -q 'symbolic link' "$T/err" && ! grep -q '✓\|\*' "$T/list5"; then
	ok "learn --list: a link planted as learn.json is not followed"
else
	nok "learn --list: planted link" "$(cat "$T/list5" "$T/err")"
fi

"$bin" learn --help >"$T/help" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q 'Usage: fabtop learn' "$T/help" && grep -q -- '--list' "$T/help"; then
	ok "learn --help: usage, exit 0"
else
	nok "learn --help: exit $rc" "$(cat "$T/help")"
fi
"$bin" learn no-such-exercise >"$T/out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q 'no exercise "no-such-exercise"' "$T/out"; then
	ok "learn ID: an unknown exercise is refused (exit 2)"
else
	nok "learn unknown: exit $rc" "$(cat "$T/out")"
fi
"$bin" learn 999 >"$T/out" 2>&1
rc=$?
[ $rc -eq 2 ] && ok "learn N: a number past the last is refused (exit 2)" ||
	nok "learn 999: exit $rc" "$(cat "$T/out")"
"$bin" learn --bogus >"$T/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q 'unexpected argument' "$T/out" &&
	ok "learn --bogus: refused with the usage (exit 2)" || nok "learn --bogus: exit $rc" "$(cat "$T/out")"
# No terminal: which exercise it would be, and exit 2.
rm -f "$T/state/fabtop/learn.json"
"$bin" learn "$second" </dev/null >"$T/out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q 'need a terminal; this one would be 2\.' "$T/out"; then
	ok "learn without a terminal: says which exercise and exits 2"
else
	nok "learn without a terminal: exit $rc" "$(cat "$T/out")"
fi
# No exercise named: the first one not solved.
printf '{"version": 1, "solved": ["%s"], "hints": {}}\n' "$first" >"$T/state/fabtop/learn.json"
"$bin" learn </dev/null >"$T/out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q 'this one would be 2\.' "$T/out"; then
	ok "learn with no exercise named: the first one not solved"
else
	nok "learn with no argument: exit $rc" "$(cat "$T/out")"
fi
