#!/bin/sh
# Runs every test: the cmocka unit binaries, then each tests/*/t_*.sh script.
# Scripts print TAP-style lines ("ok - name" / "not ok - name"); every line is
# one test. Ends with one summary line: "N passed, N failed".
cd "$(dirname "$0")/.." || exit 2
export FABTOP="${FABTOP:-$PWD/build/san/fabtop}"
export FABTOP_TOP="$PWD"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
pass=0; fail=0
log=build/test.log; : > "$log"
for t in build/tests/test_*; do
	[ -x "$t" ] || continue
	out=$(CMOCKA_MESSAGE_OUTPUT=TAP "$t" 2>&1); rc=$?
	printf '%s\n' "$out" >> "$log"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $t crashed (rc $rc)"; fi
	printf '%s\n' "$out" | grep '^not ok ' | sed "s|^|$(basename "$t"): |"
	pass=$((pass + p)); fail=$((fail + f))
	echo "  $(basename "$t"): $p passed, $f failed"
done
for s in tests/*/t_*.sh; do
	[ -x "$s" ] || continue
	out=$("$s" 2>&1); rc=$?
	printf '%s\n' "$out" >> "$log"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $s exited $rc"; fi
	printf '%s\n' "$out" | grep -A8 '^not ok ' | sed "s|^|$(basename "$s"): |"
	pass=$((pass + p)); fail=$((fail + f))
	echo "  $s: $p passed, $f failed"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
