#!/bin/sh
# One read() per file (issue 18, "one root reader over a directory fd"):
# strace counts the read() calls on every file fabtop opens for reading
# while `report topo` and `report links` read a scenario directory and this
# machine. A sysfs attribute answers whole in its first read and a mirror's
# file is a regular file, so a short read is the end: at most 1.05 reads per
# opened file (the old reader read again for EOF: 1.8-2.0). Live reads are
# openat() relative to a directory fd of "/" (no absolute-path opens of
# node files), mirror reads are openat2() beneath the root's fd.
# Needs $FABTOP (the binary) and $FABTOP_TOP (the repository).
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FABTOP:-$top/build/san/fabtop}
S=$top/build/scenarios
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-reads.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /' | head -n 15; done; }
skip() { echo "ok - $1 # SKIP $2"; }

if ! command -v strace >/dev/null; then
	skip "reads per opened file" "strace is not installed"
	exit 0
fi
if ! strace -f -qq -o /dev/null true 2>/dev/null; then
	skip "reads per opened file" "strace cannot trace here (ptrace refused)"
	exit 0
fi
if [ ! -d "$S/dgx-h100/sys" ]; then
	nok "scenario $S/dgx-h100 is missing (make tests)"
	exit 0
fi

# Counts, over a trace, the node files fabtop's root opened for reading
# (relative to its root fd; not O_PATH, not a directory) and the read() calls on them; prints "opens reads absolute".
# absolute: opens of /sys or /proc node files by absolute path.
cat > "$T/count.py" <<'PY'
import re, sys
opens = reads = absolute = 0
live = set()
pat = re.compile(r'(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)')
for line in open(sys.argv[1]):
    m = pat.match(line)
    if not m:
        continue
    pid, call, args, rc = m.group(1), m.group(2), m.group(3), int(m.group(4))
    if call in ('open', 'openat', 'openat2'):
        if re.search(r'"/(sys|proc/net)/', args):
            absolute += 1
        # fabtop's own reads: a node path relative to the root's fd. The
        # libraries' opens (ld.so in the GPU thread, hwloc's stdio) are not
        # the root reader's, and a thread's split "unfinished" lines would
        # pair their fds wrongly.
        if rc < 0 or 'O_PATH' in args or 'O_DIRECTORY' in args or \
           not re.match(r'\s*\d+, "[^/]', args):
            continue
        live.add((pid, rc))
        opens += 1
    elif call == 'read' and (pid, int(args.split(',')[0])) in live:
        reads += 1
    elif call == 'close':
        live.discard((pid, int(args.split(',')[0])))
print(opens, reads, absolute)
PY

# check NAME ROOT-ARGS...: the report under strace, then the ratio.
check() {
	name=$1; shift
	strace -f -qq -o "$T/trace" -e trace=open,openat,openat2,read,close \
		"$bin" "$@" > "$T/out" 2> "$T/err"
	set -- $(python3 "$T/count.py" "$T/trace")
	opens=$1 reads=$2 absolute=$3
	if [ "${opens:-0}" -lt 1 ]; then
		nok "$name: reads per opened file" "no file opened for reading in the trace"
		return
	fi
	if awk -v o="$opens" -v r="$reads" 'BEGIN { exit !(r <= 1.05 * o) }'; then
		ok "$name: $reads reads for $opens opened files (at most 1.05 each)"
	else
		nok "$name: reads per opened file at most 1.05" "$reads reads for $opens files" \
			"$(grep -c 'read(' "$T/trace") read calls in all"
	fi
	absolute_opens=$absolute
}

for what in "report topo" "report links"; do
	check "$what of the dgx-h100 directory" --root "$S/dgx-h100" $what
	[ "$absolute_opens" = 0 ] &&
		ok "$what of the dgx-h100 directory: no node file opened by an absolute path" ||
		nok "$what of the dgx-h100 directory: no node file opened by an absolute path" \
			"$absolute_opens opens" "$(grep -E '"/(sys|proc/net)/' "$T/trace" | head -5)"
done
check "report links of the roce-faults directory" --root "$S/roce-faults" report links

# This machine: whatever /sys holds here (a container may hold no RDMA
# device), fabtop's own reads are openat() from "/" and one read each.
check "report topo of this machine" report topo
# fabtop's reader opens with O_NONBLOCK|O_NOCTTY (hwloc and libpci open
# their own files, by absolute path: not asked of them).
grep -E 'open(at)?\((AT_FDCWD, )?"/sys/.*O_NOCTTY\|O_NONBLOCK' "$T/trace" > "$T/abs"
if [ -s "$T/abs" ]; then
	nok "report topo of this machine: fabtop's reads are openat() relative to \"/\"" \
		"$(head -5 "$T/abs")"
elif grep -qE 'openat\([0-9]+, "sys/' "$T/trace"; then
	ok "report topo of this machine: fabtop's reads are openat() relative to \"/\""
else
	skip "report topo of this machine: reads relative to \"/\"" "nothing under /sys was read"
fi
