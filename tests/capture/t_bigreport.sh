#!/bin/sh
# A capture of a large node opens again: its fabtop/report.json (`report
# all --json`, about 10 KB a port) outgrows the 1 MiB of a sysfs file, so
# the format gives it a limit of its own (root.c file_caps), and capture
# refuses to write any member a reader would refuse. A 160-port RoCE node
# (tests/scenarios/mkroce.py) writes a report.json of about 1.7 MB: before,
# the capture was written and then refused when opened.
# Prints "ok - name" / "not ok - name".
FABTOP=${FABTOP:-$PWD/build/san/fabtop}
FABTOP_TOP=${FABTOP_TOP:-$PWD}
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-bigreport.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
ok() { echo "ok - $1"; }
notok() {
	echo "not ok - $1"
	shift
	for f in "$@"; do [ -s "$f" ] && sed 's/^/#   /' "$f" | head -20; done
}
if ! python3 "$FABTOP_TOP/tests/scenarios/mkroce.py" 160 "$T/node" > "$T/gen" 2>&1; then
	notok "a 160-port RoCE node is generated" "$T/gen"
	exit 0
fi
"$FABTOP" --root "$T/node" capture -o "$T/big.tar.gz" > "$T/cap.out" 2> "$T/cap.err"
rc=$?
size=$(tar xzOf "$T/big.tar.gz" --wildcards '*/fabtop/report.json' 2>/dev/null | wc -c)
if [ "$rc" -eq 0 ] && [ "${size:-0}" -gt 1048576 ]; then
	ok "a 160-port node's capture holds a report.json of $size bytes (over 1 MiB)"
else
	notok "a 160-port node's capture holds its report.json (rc $rc, $size bytes)" "$T/cap.err"
fi
"$FABTOP" --root "$T/big.tar.gz" report all --json > "$T/tar.json" 2> "$T/tar.err"
rc=$?
"$FABTOP" --root "$T/node" report all --json > "$T/dir.json" 2> "$T/dir.err"
drc=$?
if [ "$rc" -eq "$drc" ] && [ "$rc" -le 1 ] &&
   jq -S 'del(.source, .time)' "$T/tar.json" > "$T/a" 2>/dev/null &&
   jq -S 'del(.source, .time)' "$T/dir.json" > "$T/b" 2>/dev/null && cmp -s "$T/a" "$T/b"; then
	ok "the capture opens again and reports as its directory does (rc $rc)"
else
	notok "the capture opens again and reports as its directory does (rc $rc, directory $drc)" \
		"$T/tar.err"
fi
