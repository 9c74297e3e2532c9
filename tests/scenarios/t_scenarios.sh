#!/bin/sh
# The bundled scenarios as data: generated, the same bytes every time, listed
# and opened by `fabtop demo` from the source tree and from `make install`.
#  - mkscenarios.py run here into a temp dir gives byte for byte what `make`
#    put in build/scenarios earlier (another time, another directory): trees,
#    capture files, index, and the topo-mini fixture; the capture files carry
#    no time but the snapshot's, no owner, and a gzip header without name/time.
#  - `fabtop demo` lists exactly the index's scenarios, each with the
#    description its own meta.json holds, and opens one with no TTY (the
#    report); the same from an install into a DESTDIR, where the scenarios
#    are capture files, and the installed report equals the source tree's.
#  - Nothing else in the directory is listed or opened (fixtures, stray
#    files, other captures, names with '/').
# Prints "ok - name" / "not ok - name". Needs $FABTOP (the sanitized binary),
# $FABTOP_TOP (the repository), python3, lstopo-no-graphics and make.
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FABTOP:-$top/build/san/fabtop}
S=$top/build/scenarios
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-scenarios.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
unset FABTOP_SCENARIOS

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /' | head -n 15; done; }
asan() { grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error' "$@"; }

if [ ! -x "$bin" ] || [ ! -f "$S/index" ]; then
	nok "build/san/fabtop and build/scenarios/index exist" "run make tests"
	exit 0
fi
names=$(grep -v '^#' "$S/index" | cut -f1)

# ---- 1. generation ----------------------------------------------------
if python3 "$top/tests/scenarios/mkscenarios.py" "$T/gen/scenarios" > "$T/gen.log" 2>&1; then
	ok "mkscenarios.py generates the scenarios"
else
	nok "mkscenarios.py generates the scenarios" "$(tail -5 "$T/gen.log")"
fi
if diff -r --no-dereference "$S" "$T/gen/scenarios" > "$T/gen.diff" 2>&1 &&
   diff -r --no-dereference "$top/build/fixtures/topo-mini" "$T/gen/fixtures/topo-mini" >> "$T/gen.diff" 2>&1; then
	ok "a second generation gives the same bytes (trees, capture files, index, topo-mini)"
else
	nok "a second generation gives the same bytes (trees, capture files, index, topo-mini)" \
		"$(head -15 "$T/gen.diff")" "(a stale build/scenarios? run make)"
fi
if python3 - "$S" $names > "$T/tar.out" 2>&1 <<'EOF'
import json, os, sys, tarfile
d = sys.argv[1]
for name in sys.argv[2:]:
    path = os.path.join(d, name + ".tar.gz")
    head = open(path, "rb").read(10)
    assert head[:3] == b"\x1f\x8b\x08" and not head[3] & 0x08, (name, "gzip header names a file")
    assert head[4:8] == b"\0\0\0\0", (name, "gzip header has a time")
    when = json.load(open(os.path.join(d, name, "fabtop/meta.json")))["time"]
    with tarfile.open(path) as t:
        ms = t.getmembers()
    names = [m.name for m in ms]
    assert names == sorted(names) and names[0] == name, (name, names[:3])
    assert all(m.name == name or m.name.startswith(name + "/") for m in ms), name
    odd = [m.name for m in ms if (m.mtime, m.uid, m.gid, m.uname, m.gname) != (when, 0, 0, "", "")]
    assert not odd, (name, odd[:3])
    tree = sum(len(ds) + len(fs) for _, ds, fs in os.walk(os.path.join(d, name))) + 1
    assert tree == len(ms), (name, "capture file has", len(ms), "members, tree", tree)
    assert not any("/sys/devices/system/cpu/cpu" in m.name for m in ms), (name, "per-CPU sysfs kept")
    print(name, len(ms), "members")
EOF
then ok "capture files: sorted members under NAME/, snapshot time, owner 0, same count as the tree, no per-CPU sysfs"
else nok "capture files: sorted members under NAME/, snapshot time, owner 0, same count as the tree, no per-CPU sysfs" "$(cat "$T/tar.out")"
fi

# ---- 2. `fabtop demo` in the source tree ------------------------------
# check_list FILE WHAT: FILE (the output of `fabtop demo`) lists exactly the
# index's names, in order, each with the description of its meta.json.
check_list() {
	if python3 - "$1" "$S" $names > "$T/list.out" 2>&1 <<'EOF'
import json, os, sys
out, d, names = sys.argv[1], sys.argv[2], sys.argv[3:]
lines = open(out).read().splitlines()
assert lines[0].startswith("Bundled scenarios (") and lines[-1] == "Open one with: fabtop demo NAME", lines
rows = [l.split(None, 1) for l in lines[1:-1]]
assert [r[0] for r in rows] == names, ([r[0] for r in rows], names)
for name, desc in rows:
    meta = json.load(open(os.path.join(d, name, "fabtop/meta.json")))
    assert meta["demo"] is True and desc == meta["description"] and desc, (name, desc)
print(len(rows), "scenarios")
EOF
	then ok "$2: only the scenarios, each with its description"
	else nok "$2: only the scenarios, each with its description" "$(cat "$T/list.out")" "$(cat "$1")"
	fi
}
"$bin" demo > "$T/src-list" 2> "$T/src-list.err"
rc=$?
[ $rc -eq 0 ] && ! asan "$T/src-list.err" && grep -q "^Bundled scenarios ($S):" "$T/src-list" &&
	ok "fabtop demo in the source tree lists build/scenarios, exit 0" ||
	nok "fabtop demo in the source tree lists build/scenarios, exit 0" "rc $rc" "$(head -3 "$T/src-list")" "$(cat "$T/src-list.err")"
check_list "$T/src-list" "fabtop demo in the source tree"

"$bin" demo pcie-2numa < /dev/null > "$T/src-open" 2> "$T/src-open.err"
rc=$?
"$bin" --root "$S/pcie-2numa" report all > "$T/src-root" 2>&1
if [ $rc -eq 1 ] && ! asan "$T/src-open.err" && grep -q "^fabtop .* on pcie-2numa-demo" "$T/src-open" &&
   cmp -s "$T/src-open" "$T/src-root"; then
	ok "fabtop demo pcie-2numa without a TTY prints the report of --root build/scenarios/pcie-2numa (exit 1)"
else
	nok "fabtop demo pcie-2numa without a TTY prints the report of --root build/scenarios/pcie-2numa (exit 1)" \
		"rc $rc" "$(diff "$T/src-root" "$T/src-open" | head -5)" "$(cat "$T/src-open.err")"
fi

for bad in topo-mini mkscenarios.py index ../scenarios/busy .hidden; do
	"$bin" demo "$bad" < /dev/null > "$T/bad.out" 2> "$T/bad.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "no scenario named \"$bad\"" "$T/bad.err" && ! asan "$T/bad.err" &&
		ok "fabtop demo $bad: no such scenario, exit 2" ||
		nok "fabtop demo $bad: no such scenario, exit 2" "rc $rc" "$(head -3 "$T/bad.err")"
done

# ---- 3. after make install --------------------------------------------
D=$T/inst
if make -s -C "$top" install DESTDIR="$D" > "$T/install.log" 2>&1; then
	ok "make install DESTDIR=... succeeds"
else
	nok "make install DESTDIR=... succeeds" "$(tail -5 "$T/install.log")"
fi
share=$(find "$D" -type d -path '*/share/fabtop/scenarios' | head -1)
ibin=$(find "$D" -type f -path '*/bin/fabtop' | head -1)
want=$(printf '%s\n' index index.zh_CN $(for n in $names; do echo "$n.tar.gz"; done) | sort)
got=$(ls -A "$share" 2>/dev/null | sort)
[ -n "$share" ] && [ "$got" = "$want" ] &&
	ok "installed: the index, its translation and one capture file per scenario, nothing else" ||
	nok "installed: the index, its translation and one capture file per scenario, nothing else" "got: $got"
if [ -x "$ibin" ]; then
	"$ibin" demo > "$T/inst-list" 2> "$T/inst-list.err"
	rc=$?
	[ $rc -eq 0 ] && grep -q "^Bundled scenarios ($share):" "$T/inst-list" &&
		ok "installed fabtop demo lists its own share/fabtop/scenarios, exit 0" ||
		nok "installed fabtop demo lists its own share/fabtop/scenarios, exit 0" "rc $rc" "$(head -3 "$T/inst-list")" "$(cat "$T/inst-list.err")"
	check_list "$T/inst-list" "installed fabtop demo"
	"$ibin" demo pcie-2numa < /dev/null > "$T/inst-open" 2> "$T/inst-open.err"
	rc=$?
	[ $rc -eq 1 ] && [ ! -s "$T/inst-open.err" ] && cmp -s "$T/inst-open" "$T/src-open" &&
		ok "installed fabtop demo pcie-2numa (its capture file) prints the source tree's report (exit 1)" ||
		nok "installed fabtop demo pcie-2numa (its capture file) prints the source tree's report (exit 1)" \
			"rc $rc" "$(diff "$T/src-open" "$T/inst-open" | head -5)" "$(cat "$T/inst-open.err")"
else
	nok "installed binary found under $D"
fi

# ---- 4. what else may sit in a scenarios directory --------------------
mkdir -p "$T/strays"
cp "$share"/* "$T/strays/" 2>/dev/null
cp "$S/pcie-2numa.tar.gz" "$T/strays/other.tar.gz"
cp -a "$top/build/fixtures/topo-mini" "$T/strays/topo-mini"
echo notes > "$T/strays/README"
: > "$T/strays/.hidden"
FABTOP_SCENARIOS=$T/strays "$bin" demo > "$T/strays.out" 2> "$T/strays.err"
rc=$?
[ $rc -eq 0 ] && ! asan "$T/strays.err" && ! grep -q -E '^  (other|topo-mini|README|\.hidden|index) ' "$T/strays.out" &&
	ok "stray captures, fixtures and files beside the index are not listed" ||
	nok "stray captures, fixtures and files beside the index are not listed" "rc $rc" "$(cat "$T/strays.out")"
check_list "$T/strays.out" "FABTOP_SCENARIOS with strays"
FABTOP_SCENARIOS=$T/strays "$bin" demo other < /dev/null > /dev/null 2> "$T/other.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'no scenario named "other"' "$T/other.err" &&
	ok "a capture the index does not name is not opened as a demo" ||
	nok "a capture the index does not name is not opened as a demo" "rc $rc" "$(head -3 "$T/other.err")"

mkdir "$T/noindex"
cp "$S/pcie-2numa.tar.gz" "$T/noindex/"
FABTOP_SCENARIOS=$T/noindex "$bin" demo > "$T/noindex.out" 2> "$T/noindex.err"
rc=$?
[ $rc -eq 2 ] && grep -q "no bundled scenarios found" "$T/noindex.err" && ! asan "$T/noindex.err" &&
	ok "a directory without an index has no scenarios: exit 2 with a message" ||
	nok "a directory without an index has no scenarios: exit 2 with a message" "rc $rc" "$(cat "$T/noindex.err")"

mkdir "$T/evil"
cp "$S/pcie-2numa.tar.gz" "$T/evil/x.tar.gz"
printf 'x\tbad \033[2J\033]0;title\007desc\n../y\tdotdot\nz/w\tslash\n' > "$T/evil/index"
FABTOP_SCENARIOS=$T/evil "$bin" demo > "$T/evil.out" 2> "$T/evil.err"
rc=$?
if [ $rc -eq 0 ] && ! asan "$T/evil.err" && ! grep -q "$(printf '\033')" "$T/evil.out" &&
   ! grep -q "$(printf '\007')" "$T/evil.out" && grep -q '^  x  *bad' "$T/evil.out" &&
   ! grep -q -e dotdot -e slash "$T/evil.out"; then
	ok "an index's control characters never reach the terminal; names with '/' are skipped"
else
	nok "an index's control characters never reach the terminal; names with '/' are skipped" "rc $rc" "$(od -c "$T/evil.out" | head -8)"
fi

# The index is data: a line longer than the reader's buffer is skipped whole
# (its tail is no entry of its own), a description too long for its field
# is cut at a character (never inside a CJK character), controls are blanked.
mkdir -p "$T/hostile-index"
python3 - "$T/hostile-index/index" <<'EOS'
import sys
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write("# a hostile index\n")
    f.write("long\t" + "x" * 1018 + "evil\tplanted entry\n")
    f.write("wide\t" + "网" * 300 + "\tt\x1btitle\n")
EOS
FABTOP_SCENARIOS=$T/hostile-index "$bin" demo > "$T/hostile.out" 2>&1
if ! grep -q "evil" "$T/hostile.out" && grep -q "^  wide " "$T/hostile.out" &&
   python3 -c 'import sys; open(sys.argv[1], encoding="utf-8").read()' "$T/hostile.out" 2>/dev/null &&
   ! grep -q "$(printf '\033')" "$T/hostile.out"; then
	ok "a hostile index: an over-long line skipped whole, a long description cut at a character"
else
	nok "a hostile index: an over-long line skipped whole, a long description cut at a character" "$(head -c 600 "$T/hostile.out")"
fi
