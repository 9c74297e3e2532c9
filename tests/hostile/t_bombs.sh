#!/bin/sh
# Small capture files that would cost a lot to hold in memory (the capture
# is read into memory, src/memtree.c):
#  - members whose names are hundreds of folders deep: each makes its
#    folders, each folder holding its path; they count as members and
#    bytes, so a tarball of a few KB cannot take gigabytes;
#  - a chain of links whose targets are full of "d/..": the walk as a whole
#    is bounded (MT_MAX_STEPS), not only its 40 links.
# Both are refused with a message; found by a review of issue 18.
# Prints "ok - name" / "not ok - name".
FABTOP=${FABTOP:-$PWD/build/san/fabtop}
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-bombs.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
ok() { echo "ok - $1"; }
notok() {
	echo "not ok - $1"
	shift
	for f in "$@"; do [ -s "$f" ] && sed 's/^/#   /' "$f" | head -5 | cut -c1-300; done
}
python3 - "$T" <<'PY'
import io, sys, tarfile
d = sys.argv[1]
def node(t):
    ti = tarfile.TarInfo("top/sys/x"); ti.size = 1; t.addfile(ti, io.BytesIO(b"1"))
    ti = tarfile.TarInfo("top/fabtop/meta.json"); ti.size = 2; t.addfile(ti, io.BytesIO(b"{}"))
with tarfile.open(d + "/deep.tar.gz", "w:gz", format=tarfile.PAX_FORMAT) as t:
    node(t)
    for i in range(5):
        ti = tarfile.TarInfo("top/x%d/" % i + "a/" * 300 + "f"); ti.size = 0
        t.addfile(ti, io.BytesIO(b""))
with tarfile.open(d + "/chain.tar.gz", "w:gz", format=tarfile.PAX_FORMAT) as t:
    node(t)
    ti = tarfile.TarInfo("top/d"); ti.type = tarfile.DIRTYPE; t.addfile(ti)
    pad = "d/../" * 780
    for k in range(38):
        ti = tarfile.TarInfo("top/c%d" % k); ti.type = tarfile.SYMTYPE
        ti.linkname = pad + "c%d" % (k + 1); t.addfile(ti)
    ti = tarfile.TarInfo("top/c38"); ti.type = tarfile.SYMTYPE; ti.linkname = pad + "d"
    t.addfile(ti)
PY
FABTOP_CAPTURE_MAX_MEMBERS=1000 "$FABTOP" --root "$T/deep.tar.gz" report topo > "$T/out" 2> "$T/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "refused: more than 1000 members" "$T/err"; then
	ok "5 members 300 folders deep count their 1,500 folders against 1,000 members: refused"
else
	notok "5 members 300 folders deep count their folders as members (rc $rc)" "$T/err"
fi
"$FABTOP" --root "$T/chain.tar.gz" report topo > "$T/out" 2> "$T/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "does not resolve" "$T/err"; then
	ok "a chain of 39 links, each 780 'd/..' long, is refused (the walk is bounded)"
else
	notok "a chain of links full of 'd/..' is refused (rc $rc)" "$T/err"
fi
