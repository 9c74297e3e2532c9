#!/bin/sh
# `fabtop capture` builds the capture in memory and writes it in one pass
# (issue 18): no temporary folder, no staging file. Under strace, a capture
# of a directory, of a capture tarball and of this node creates nothing in
# TMPDIR and nothing anywhere but the output (a tarball's .part file beside
# it, renamed into place; or the -o folder's members). And the one pass
# loses nothing: every bundled scenario, captured, reports (`report all
# --json`) what the scenario's directory reports, but for the fields that
# name the source and the capture's time.
# Prints "ok - name" / "not ok - name".
FABTOP=${FABTOP:-$PWD/build/san/fabtop}
FABTOP_TOP=${FABTOP_TOP:-$PWD}
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-nostage.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
trap 'chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
mkdir -m 1777 "$T/tmp" && export TMPDIR="$T/tmp"
mkdir "$T/out"
. "$FABTOP_TOP/tests/capture/lib.sh"
SCEN="$FABTOP_TOP/build/scenarios"

# traced NAME OUTPUT ARGS...: runs fabtop under strace into $T/NAME.st
# (-y: a directory fd shows its path, so a write relative to the -o
# folder's fd names the folder; LeakSanitizer cannot run under ptrace, the
# rest of the sanitizers do); $T/NAME.bad lists every call that made or
# opened for writing anything but OUTPUT (and its .part file), or touched
# TMPDIR.
traced() {
	name=$1 out=$2
	shift 2
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -y -o "$T/$name.st" -e trace=mkdir,mkdirat,open,openat,openat2,creat,symlink,symlinkat,rename,renameat,renameat2,link,linkat \
		"$FABTOP" "$@" > "$T/$name.log" 2>&1
	rc=$?
	# Calls that create or write: mkdir*, symlink*, rename*, link*, creat,
	# and opens with O_CREAT, O_WRONLY or O_RDWR.
	grep -E '(mkdir|symlink|rename|link|creat)(at2?)?\(|O_CREAT|O_WRONLY|O_RDWR' "$T/$name.st" |
		grep -v -- '= -1 E' | grep -v -F -e "\"$out" -e "<$out" > "$T/$name.bad"
	grep -F "$TMPDIR" "$T/$name.st" >> "$T/$name.bad"
	return $rc
}

if ! command -v strace > /dev/null; then
	echo "ok - no temporary folder or staging file # SKIP strace missing"
elif ! strace -f -qq -o /dev/null true 2> /dev/null; then
	echo "ok - no temporary folder or staging file # SKIP strace cannot trace here (ptrace refused)"
elif [ ! -d "$SCEN/ib-8port" ]; then
	echo "ok - no temporary folder or staging file # SKIP build/scenarios missing (make tests)"
else
	if traced dir "$T/out/dir.tar.gz" --root "$SCEN/ib-8port" capture -o "$T/out/dir.tar.gz" &&
	   [ ! -s "$T/dir.bad" ] && [ -s "$T/out/dir.tar.gz" ] && ! asan "$T/dir.log"; then
		ok "a directory's capture writes only its tarball (.part, renamed), nothing in TMPDIR"
	else
		notok "a directory's capture writes only its tarball" "$T/dir.bad" "$T/dir.log"
	fi
	if traced todir "$T/out/folder" --root "$SCEN/ib-8port" capture -o "$T/out/folder/" &&
	   [ ! -s "$T/todir.bad" ] && [ -s "$T/out/folder/fabtop/meta.json" ] && ! asan "$T/todir.log"; then
		ok "-o folder/: only the folder's members are written, nothing in TMPDIR"
	else
		notok "-o folder/: only the folder's members are written" "$T/todir.bad" "$T/todir.log"
	fi
	# Streamed to a pipe: not even a .part file.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o "$T/pipe.st" -e trace=mkdir,mkdirat,open,openat,openat2,creat,rename,renameat,renameat2 \
		"$FABTOP" --root "$SCEN/ib-8port" capture -o - 2> "$T/pipe.log" | cat > "$T/out/pipe.tar.gz"
	grep -E 'mkdir(at)?\(|O_CREAT|O_WRONLY|O_RDWR|rename' "$T/pipe.st" | grep -v -- '= -1 E' > "$T/pipe.bad"
	grep -F "$TMPDIR" "$T/pipe.st" >> "$T/pipe.bad"
	if [ ! -s "$T/pipe.bad" ] && tar tzf "$T/out/pipe.tar.gz" > /dev/null 2>&1; then
		ok "-o -: the capture is streamed, no file made"
	else
		notok "-o -: the capture is streamed, no file made" "$T/pipe.bad" "$T/pipe.log"
	fi
	# A capture of a capture: the source is read from the tarball.
	if traced tgz "$T/out/tgz.tar.gz" --root "$T/out/dir.tar.gz" capture -o "$T/out/tgz.tar.gz" &&
	   [ ! -s "$T/tgz.bad" ] && ! asan "$T/tgz.log"; then
		ok "a capture of a capture tarball: nothing in TMPDIR"
	else
		notok "a capture of a capture tarball: nothing in TMPDIR" "$T/tgz.bad" "$T/tgz.log"
	fi
	# This node, as it is: whatever it has, nothing staged.
	if traced live "$T/out/live.tar.gz" capture -o "$T/out/live.tar.gz" &&
	   [ ! -s "$T/live.bad" ] && ! asan "$T/live.log"; then
		ok "a live capture of this node writes only its tarball, nothing in TMPDIR"
	else
		notok "a live capture of this node writes only its tarball" "$T/live.bad" "$T/live.log"
	fi
fi

# Every scenario: the capture reports what its directory reports.
if ! command -v jq > /dev/null; then
	echo "ok - scenarios captured report as their directories # SKIP jq missing"
elif [ ! -d "$SCEN/ib-8port" ]; then
	echo "ok - scenarios captured report as their directories # SKIP build/scenarios missing"
else
	n=0
	: > "$T/diffs"
	for d in "$SCEN"/*/; do
		s=$(basename "$d")
		[ -f "$d/fabtop/meta.json" ] || continue
		n=$((n + 1))
		if ! "$FABTOP" --root "$d" capture -o "$T/out/$s.tar.gz" > "$T/$s.cap" 2>&1; then
			echo "# $s: capture failed: $(tail -n 1 "$T/$s.cap")" >> "$T/diffs"
			continue
		fi
		"$FABTOP" --root "$d" report all --json 2> /dev/null | jq -S 'del(.source, .time)' > "$T/$s.dir.json"
		"$FABTOP" --root "$T/out/$s.tar.gz" report all --json 2> /dev/null |
			jq -S 'del(.source, .time)' > "$T/$s.cap.json"
		if [ ! -s "$T/$s.dir.json" ] || ! cmp -s "$T/$s.dir.json" "$T/$s.cap.json"; then
			echo "# $s:" >> "$T/diffs"
			diff "$T/$s.dir.json" "$T/$s.cap.json" | head -n 10 >> "$T/diffs"
		fi
		asan "$T/$s.cap" && echo "# $s: sanitizer report" >> "$T/diffs"
	done
	if [ "$n" -gt 10 ] && [ ! -s "$T/diffs" ]; then
		ok "every scenario ($n), captured, reports as its directory"
	else
		echo "# $n scenarios" >> "$T/diffs"
		notok "every scenario, captured, reports as its directory" "$T/diffs"
	fi
	# The -o folder form too.
	"$FABTOP" --root "$T/out/folder" report all --json 2> /dev/null | jq -S 'del(.source, .time)' > "$T/d.json"
	"$FABTOP" --root "$SCEN/ib-8port" report all --json 2> /dev/null | jq -S 'del(.source, .time)' > "$T/i.json"
	if [ -d "$T/out/folder" ] && [ -s "$T/d.json" ] && cmp -s "$T/d.json" "$T/i.json"; then
		ok "a capture written to a folder reports as its source"
	elif [ ! -d "$T/out/folder" ]; then
		echo "ok - a capture written to a folder reports as its source # SKIP no folder capture (strace missing)"
	else
		diff "$T/i.json" "$T/d.json" | head -n 20 > "$T/dd"
		notok "a capture written to a folder reports as its source" "$T/dd"
	fi
fi
