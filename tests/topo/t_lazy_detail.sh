#!/bin/sh
# `report topo` and the console's first screen read no GID table and no
# port counter (issue 18, "read what the screen needs"): every GID slot of
# every port (128 on IB, 255 on RoCE) and every counter file was most of a
# start-up, and neither shows any. Counted with strace over the files
# fabtop opens in the dgx-h100 scenario (a directory root): none under
# ports/N/gids/, gid_attrs/types/, counters/ or hw_counters/. The one
# file read is gid_attrs/ndevs/0 of each port: the kernel's name for a
# RoCE port's netdev (a LAG's bond, a pod's interface), which the topology
# shows. `report links`, which shows them, opens them (the control that
# the count can see them); the console reads them after its first frame,
# before it handles the first key, and the Links pane then shows them.
# Prints "ok - name" / "not ok - name". Needs $FABTOP and $FABTOP_TOP.
NAME=lazy-detail; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
S=$top/build/scenarios/dgx-h100
need "$S"
if ! command -v strace >/dev/null; then
	echo "ok - lazy detail # SKIP needs strace"
	exit 0
fi
if ! strace -f -o /dev/null -e trace=openat true 2>/dev/null; then
	echo "ok - lazy detail # SKIP strace cannot trace here (ptrace not permitted)"
	exit 0
fi

# LeakSanitizer cannot run under ptrace (the sanitised build would end
# with its fatal error): the leak check is the other tests' job.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# The per-port detail among the files a trace opened, one path a line.
DETAIL='ports/[0-9]+/(gids|counters|hw_counters)(/|")|gid_attrs/(types|ndevs/[1-9])'
detail() { grep -E '^[0-9]+ +openat2?\(' "$1" | grep -E "$DETAIL"; }

# report topo: the golden's output, and no detail opened.
strace -f -e trace=openat,openat2 -o "$T/topo.st" "$bin" --root "$S" report topo > "$T/topo.out" 2>"$T/topo.err"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$T/topo.out" "$top/tests/golden/dgx-h100-topo.txt"; then
	ok "report topo prints its golden under strace"
else
	nok "report topo prints its golden under strace (rc $rc)" "$(diff "$top/tests/golden/dgx-h100-topo.txt" "$T/topo.out" | head -10)" "$(head -5 "$T/topo.err")"
fi
n=$(detail "$T/topo.st" | wc -l)
if [ "$n" -eq 0 ]; then
	ok "report topo opens no GID table and no counter file"
else
	nok "report topo opens no GID table and no counter file ($n opens)" "$(detail "$T/topo.st" | head -5)"
fi

# The control: report links shows the GIDs and counters, so it opens them.
strace -f -e trace=openat,openat2 -o "$T/links.st" "$bin" --root "$S" report links > "$T/links.out" 2>&1
if detail "$T/links.st" | grep -q '/gids/' && detail "$T/links.st" | grep -q '/counters/' &&
   detail "$T/links.st" | grep -q '/hw_counters/' && grep -q 'GIDs:' "$T/links.out"; then
	ok "report links opens the GID tables and counters (the trace sees them)"
else
	nok "report links opens the GID tables and counters (the trace sees them)" "$(detail "$T/links.st" | head -3)"
fi

# The console: the first frame (Topology) is dumped before any detail is
# opened; the first key (Tab: Links) comes after they are read, and the
# Links pane shows the GID table. The dumps' own opens mark the moments.
cat > "$T/tui.script" <<EOF
dump $T/first.txt
key Tab
dump $T/links.txt
EOF
FABTOP_SCRIPT=$T/tui.script FABTOP_SCRIPT_SIZE=80x24 strace -f -e trace=openat,openat2 -o "$T/tui.st" \
	"$bin" --root "$S" </dev/null >"$T/tui.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && cmp -s "$T/first.txt" "$top/tests/screen/expected/dgx-h100-80x24.txt" &&
   cmp -s "$T/links.txt" "$top/tests/screen/expected/links-dgx-h100-80x24.txt"; then
	ok "console: the first frame and the Links pane are the expected dumps under strace"
else
	nok "console: the first frame and the Links pane are the expected dumps under strace (rc $rc)" \
		"$(diff "$top/tests/screen/expected/dgx-h100-80x24.txt" "$T/first.txt" | head -8)" \
		"$(diff "$top/tests/screen/expected/links-dgx-h100-80x24.txt" "$T/links.txt" | head -8)" "$(head -5 "$T/tui.out")"
fi
# Line numbers of the dumps' opens and of the first detail open.
at() { grep -nE "^[0-9]+ +openat2?\(.*$1" "$T/tui.st" | head -1 | cut -d: -f1; }
first=$(at first.txt) links=$(at links.txt)
d1=$(grep -nE '^[0-9]+ +openat2?\(' "$T/tui.st" | grep -E "$DETAIL" | head -1 | cut -d: -f1)
if [ -n "$first" ] && [ -n "$links" ] && [ -n "$d1" ] && [ "$d1" -gt "$first" ] && [ "$d1" -lt "$links" ]; then
	ok "console: no GID or counter file is opened before the first frame is out; they are read before the first key"
else
	nok "console: no GID or counter file is opened before the first frame is out; they are read before the first key" \
		"first frame dumped at trace line ${first:-?}, first detail open at ${d1:-none}, Links dumped at ${links:-?}" \
		"$(detail "$T/tui.st" | head -3)"
fi
# On a screen tall enough for the port's detail, the Links pane (the first
# key) shows the GID table and the error counters, read after the first frame.
printf 'key Tab\ndump-pane %s\n' "$T/detail.txt" > "$T/detail.script"
FABTOP_SCRIPT=$T/detail.script FABTOP_SCRIPT_SIZE=120x100 "$bin" --root "$S" </dev/null >"$T/detail.out" 2>&1
if grep -q 'GID table (1 filled)' "$T/detail.txt" && grep -q 'Error counters$' "$T/detail.txt" &&
   ! grep -q 'not read' "$T/detail.txt"; then
	ok "console: the Links pane's port detail shows the GID table and counters read after the first frame"
else
	nok "console: the Links pane's port detail shows the GID table and counters read after the first frame" "$(head -60 "$T/detail.txt")"
fi
