#!/bin/sh
# Runs every test: the cmocka unit binaries, then each tests/*/t_*.sh script.
# Every test prints one TAP line:
#   ok - NAME               it ran and passed
#   not ok - NAME           it ran and failed ("#" lines after it say why)
#   ok - NAME # SKIP WHY    it could not run here (a tool, root, namespaces or
#                           a device is missing): counted apart, never passed
# (cmocka's TAP is "ok N - NAME" and "not ok N # SKIP NAME", its reason on
# the line before; a SKIP directive, in any case as TAP says, makes the line
# a skip whether it starts with "ok" or "not ok".) A missing build product
# (the binary, a scenario) is a failure, not a skip: `make tests` makes them.
# A program that exits non-zero without a failed test counts as one failure.
# Ends with the skipped tests and why, the failed ones and why (again, so
# that the tail of a CI log names them), then one line:
# "N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 2
export FABTOP="${FABTOP:-$PWD/build/san/fabtop}"
export FABTOP_TOP="$PWD"
# The tests read English: a tester's zh_CN locale must not change what the
# goldens compare (the i18n tests ask for Chinese themselves, with --lang).
unset LANGUAGE LC_MESSAGES
[ -n "${LC_ALL:-}" ] && export LC_ALL=C.UTF-8
export LANG="${LANG:-C}"
case $LANG in zh*|*.GB*|*.gb*) export LANG=C.UTF-8 ;; esac
# Nor may the tester's own settings (~/.config/fabtop/config: a default
# pane, a theme) or learning progress: each run starts from none.
xdg=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-xdg.XXXXXX") || exit 2
export XDG_CONFIG_HOME="$xdg/config" XDG_STATE_HOME="$xdg/state"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
pass=0; fail=0; skip=0
mkdir -p build
log=build/test.log; : > "$log"
skipped=build/test.skipped; : > "$skipped"
failed=build/test.failed; : > "$failed"

# tally NAME OUTPUT RC: adds OUTPUT's lines to the counts, prints its
# failures, and keeps its skips (with the line before when that is no TAP
# line: cmocka's reason) for the list at the end.
tally() {
	_name=$1 _out=$2 _rc=$3
	printf '%s\n' "$_out" >> "$log"
	set -- $(printf '%s\n' "$_out" | awk -v name="$_name" -v list="$skipped" '
		/^(not )?ok / && tolower($0) ~ /# *skip/ {
			s++
			print "  " name ": " $0 (why != "" ? " (" why ")" : "") >> list
			why = ""; next
		}
		/^ok / { p++ } /^not ok / { f++ }
		{ why = /^(ok |not ok |#|1\.\.|\[)/ || $0 == "" ? "" : $0 }
		END { print p + 0, f + 0, s + 0 }')
	_p=$1 _f=$2 _s=$3
	if [ "$_rc" -ne 0 ] && [ "$_f" -eq 0 ]; then
		_f=1
		echo "not ok - $_name exited $_rc" | tee -a "$failed"
	fi
	# Each failure with the "#" lines after it that say why.
	printf '%s\n' "$_out" | grep -iv '^not ok .*# *skip' | grep -A8 '^not ok ' | grep -v '^--$' |
		awk '/^not ok / { f = 1 } /^ok / { f = 0 } f' |
		sed "s|^|$(basename "$_name"): |" | tee -a "$failed"
	pass=$((pass + _p)); fail=$((fail + _f)); skip=$((skip + _s))
	echo "  $_name: $_p passed, $_f failed, $_s skipped"
}

# A script whose head says "run.sh: background" (the container image build:
# minutes of downloads and a compile, mostly waiting) starts first and runs
# beside the others; its lines are tallied at the end. Killed with the run.
bg=""
trap 'for p in $bg; do kill -- -"${p#*:}" 2>/dev/null || kill "${p#*:}" 2>/dev/null; done; rm -rf "$xdg"' EXIT
trap 'exit 1' INT TERM
for s in tests/*/t_*.sh; do
	[ -x "$s" ] && head -n 5 "$s" | grep -q 'run.sh: background' || continue
	n=$(echo "$s" | tr '/' '_')
	# No status of an earlier run may pass for this one's.
	rm -f "build/$n.out" "build/$n.rc"
	set -m
	( "$s" > "build/$n.out" 2>&1; echo $? > "build/$n.rc" ) &
	set +m
	bg="$bg $s:$!"
done
for t in build/tests/test_*; do
	[ -x "$t" ] || continue
	out=$(CMOCKA_MESSAGE_OUTPUT=TAP "$t" 2>&1)
	tally "$t" "$out" $?
done
for s in tests/*/t_*.sh; do
	[ -x "$s" ] || continue
	case " $bg " in *" $s:"*) continue ;; esac
	out=$("$s" 2>&1)
	tally "$s" "$out" $?
done
for p in $bg; do
	s=${p%:*}
	n=$(echo "$s" | tr '/' '_')
	wait "${p#*:}"
	tally "$s" "$(cat "build/$n.out")" "$(cat "build/$n.rc" 2>/dev/null || echo 1)"
done
bg=""
if [ -s "$skipped" ]; then
	echo "skipped (did not run here):"
	cat "$skipped"
fi
if [ -s "$failed" ]; then
	echo "failed:"
	sed 's/^/  /' "$failed"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
