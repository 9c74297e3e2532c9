#!/bin/sh
# Opening a capture (--root X.tar.gz) reads it once into memory: no
# temporary directory is made and nothing is extracted (strace sees no
# mkdir and no file created), and every report of X.tar.gz is the report
# of the directory X, for every bundled scenario.
# Prints "ok - name" / "not ok - name".
FABTOP=${FABTOP:-$PWD/build/san/fabtop}
FABTOP_TOP=${FABTOP_TOP:-$PWD}
SCEN=$FABTOP_TOP/build/scenarios
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-memroot.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
mkdir -m 700 "$T/tmp" && export TMPDIR="$T/tmp"
ok() { echo "ok - $1"; }
notok() {
	echo "not ok - $1"
	shift
	for f in "$@"; do [ -s "$f" ] && sed 's/^/#   /' "$f" | head -20; done
}
if [ ! -f "$SCEN/dgx-h100.tar.gz" ]; then
	echo "not ok - the scenarios are missing (make scenarios)"
	exit 0
fi

# ---- no temporary directory, nothing extracted --------------------------
if ! command -v strace >/dev/null; then
	echo "ok - opening a capture makes no directory and no file # SKIP strace is not installed"
elif ! strace -f -o /dev/null true 2>/dev/null; then
	echo "ok - opening a capture makes no directory and no file # SKIP ptrace is not allowed here"
else
	# LeakSanitizer cannot run under ptrace: leaks are checked by the runs below.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -e trace=mkdir,mkdirat,open,openat,creat -o "$T/trace" \
		"$FABTOP" --root "$SCEN/dgx-h100.tar.gz" report topo > "$T/out" 2> "$T/err"
	rc=$?
	# Before: mkdtemp's mkdir in TMPDIR, then an O_CREAT open per member.
	grep -E 'mkdir(at)?\(|creat\(|O_CREAT' "$T/trace" > "$T/made"
	grep -F "$TMPDIR" "$T/trace" >> "$T/made"
	if [ "$rc" -eq 0 ] && [ -s "$T/out" ] && [ ! -s "$T/made" ] && [ -z "$(ls -A "$TMPDIR")" ]; then
		ok "opening a capture makes no directory and no file (strace: no mkdir, no O_CREAT)"
	else
		notok "opening a capture makes no directory and no file (exit $rc)" "$T/made" "$T/err"
	fi
fi

# ---- X.tar.gz reports what X reports ------------------------------------
n=0
bad=""
for d in "$SCEN"/*/; do
	d=${d%/}
	s=${d##*/}
	[ -f "$d/fabtop/meta.json" ] && [ -f "$d.tar.gz" ] || continue
	for how in "all --json" "all" "links"; do
		# shellcheck disable=SC2086
		"$FABTOP" --root "$d.tar.gz" report $how > "$T/tar.out" 2> "$T/tar.err"
		a=$?
		# shellcheck disable=SC2086
		"$FABTOP" --root "$d" report $how > "$T/dir.out" 2> "$T/dir.err"
		b=$?
		if [ "$a" -ne "$b" ] || ! cmp -s "$T/tar.out" "$T/dir.out" || ! cmp -s "$T/tar.err" "$T/dir.err"; then
			bad="$bad $s($how)"
			diff "$T/tar.out" "$T/dir.out" > "$T/diff.$s" 2>&1
			diff "$T/tar.err" "$T/dir.err" >> "$T/diff.$s" 2>&1
		fi
	done
	n=$((n + 1))
done
if [ "$n" -ge 10 ] && [ -z "$bad" ]; then
	ok "$n scenarios: report all, all --json and links of X.tar.gz are those of X"
else
	notok "X.tar.gz reports what X reports ($n scenarios; differ:$bad)" "$T"/diff.*
fi
