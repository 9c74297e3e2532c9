#!/bin/sh
# The link health collectors against broken input: copies of a RoCE scenario
# with one thing damaged each (a port folder gone, a counter that is not a
# number, gid_attrs gone, garbage in the rate, GID, QoS and ECN files, a file
# nobody may read) give notes and N/A, never a crash or a sanitizer report;
# and fabtop/devices.json and netlink.json's netns_mode reach the report.
# Prints "ok - name" / "not ok - name". Needs $FABTOP (the sanitized binary)
# and $FABTOP_TOP (the repository).
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FABTOP:-$top/build/san/fabtop}
S=$top/build/scenarios/roce-faults
[ -d "$S" ] || S=$top/build/scenarios/pcie-2numa
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-links-input.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
cleanup() { chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /' | head -n 15; done; }

if [ ! -x "$bin" ]; then
	nok "fabtop binary $bin is missing (make build/san/fabtop)"
	exit 0
fi

# `report links --json` while it exists, else `report all --json`.
REPORT=links
"$bin" --root "$S" report links --json >/dev/null 2>"$T/probe.err"
if [ $? -eq 2 ] && grep -q 'unknown report' "$T/probe.err"; then REPORT=all; fi

cat > "$T/chk.py" <<'PY'
"""chk.py JSON DEV CMD [ARGS]: assertions over the HCA DEV in a report."""
import json, sys

doc = json.load(open(sys.argv[1]))
dev, cmd, a = sys.argv[2], sys.argv[3], sys.argv[4:]
hcas = (doc.get("links") or {}).get("hcas") or []
hca = next((h for h in hcas if h.get("name") == dev), None)
port = None
if hca and hca.get("ports"):
    port = next((p for p in hca["ports"] if p.get("port") == 1), None)
notes = [n["message"] for n in doc.get("notes", [])]

def note(*words):
    return any(all(w in m for w in words) for m in notes)

def fail(msg):
    sys.exit(msg + "\nnotes: " + "; ".join(notes))

if cmd == "parses":
    if hca is None:
        fail("no HCA %s in the report" % dev)
elif cmd == "noport":             # port 1 is gone, or a note says why
    if hca is not None and port is not None and not note(dev):
        fail("port 1 of %s is still reported: %s" % (dev, port))
elif cmd == "counter-na":         # NAME: the counter is null and a note names it
    if port is None:
        fail("no port 1")
    if port.get("errors", {}).get(a[0], "missing") is not None:
        fail("%s = %r, want null (N/A)" % (a[0], port.get("errors", {}).get(a[0], "missing")))
    if not note(a[0], *a[1:]):
        fail("no note naming %s with %s" % (a[0], a[1:]))
elif cmd == "types-na":           # GIDs still listed, every type null
    gids = (port or {}).get("gids") or []
    if not gids:
        fail("no GIDs left")
    if any(g.get("type") for g in gids):
        fail("types: %s" % [g.get("type") for g in gids])
elif cmd == "width-na":           # the rate is garbage: no width, no speed
    if port is None:
        fail("no port 1")
    if port.get("width") is not None or port.get("speed"):
        fail("width %r speed %r" % (port.get("width"), port.get("speed")))
    if not note("ports/1/rate", *a):
        fail("no note naming ports/1/rate with %s" % a)
elif cmd == "note":               # WORDS...: some note holds all of them
    if not note(*a):
        fail("no note with %s" % a)
elif cmd == "uverbs":             # PRESENT ERRNO
    u = (hca or {}).get("uverbs") or {}
    want = (a[0] == "true", None if a[1] == "null" else int(a[1]))
    if (u.get("present"), u.get("open_errno")) != want:
        fail("uverbs %s, want present=%s open_errno=%s" % (u, a[0], a[1]))
    if note("does not record /dev/infiniband"):
        fail("the older-capture note is still there")
elif cmd == "netns":              # MODE
    if doc.get("links", {}).get("netns_mode") != a[0]:
        fail("netns_mode %r, want %r" % (doc.get("links", {}).get("netns_mode"), a[0]))
else:
    fail("chk.py: unknown check " + cmd)
PY

# The first RoCE HCA of the scenario (any HCA if none is RoCE).
DEV=
for d in "$S"/sys/class/infiniband/*; do
	[ -e "$d" ] || continue
	[ -n "$DEV" ] || DEV=$(basename "$d")
	if grep -qx Ethernet "$d/ports/1/link_layer" 2>/dev/null; then DEV=$(basename "$d"); break; fi
done
if [ -z "$DEV" ]; then
	nok "no HCA in $S"
	exit 0
fi

# copy NAME: a fresh copy of the scenario; prints its path. DEVDIR is the
# HCA's real folder in it (the class entry is a link).
copy() {
	rm -rf "$T/$1"
	DEVDIR=
	if ! cp -a "$S" "$T/$1" 2> "$T/$1.cp" ||
	   ! DEVDIR=$(cd -P "$T/$1/sys/class/infiniband/$DEV" 2>&1 && pwd); then
		nok "copy $1 of $S" "$(cat "$T/$1.cp")" "$DEVDIR"
		return 1
	fi
	chmod -R u+w "$T/$1"
}

# run NAME [PREFIX...]: the report of copy NAME into NAME.json / NAME.err;
# fails (with a message in $why) on a crash, a usage error or a sanitizer report.
run() {
	n=$1; shift
	"$@" "$bin" --root "$T/$n" report "$REPORT" --json > "$T/$n.json" 2> "$T/$n.err"
	rc=$?
	why=
	if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then why="exit $rc"; fi
	if grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error' "$T/$n.err"; then
		why="sanitizer report"
	fi
	[ -z "$why" ]
}

# check NAME TEST-NAME CMD [ARGS]: run, then chk.py.
check() {
	n=$1 t=$2; shift 2
	if ! run "$n"; then
		nok "$t" "$why" "$(cat "$T/$n.err")"
		return
	fi
	if out=$(python3 "$T/chk.py" "$T/$n.json" "$DEV" "$@" 2>&1); then
		ok "$t"
	else
		nok "$t" "$out"
	fi
}

copy base && check base "the unchanged scenario ($(basename "$S"), $DEV) reports the HCA" parses

copy noport && rm -rf "$DEVDIR/ports/1" &&
	check noport "a port folder removed: no crash, the port is simply missing" noport

copy abc && printf 'abc\n' > "$DEVDIR/ports/1/counters/symbol_error" &&
	check abc "a counter reading \"abc\": a note naming it and N/A" counter-na symbol_error abc

copy nogidattrs && rm -rf "$DEVDIR/ports/1/gid_attrs" &&
	check nogidattrs "gid_attrs removed: GIDs listed with type N/A" types-na

copy badrate && printf 'fast\n' > "$DEVDIR/ports/1/rate" &&
	check badrate "a garbage rate: width and speed N/A, a note naming it" width-na fast

copy badgid && printf 'zzzz\n' > "$DEVDIR/ports/1/gids/0" &&
	check badgid "a garbage GID entry: a note naming it" note "gids/0" zzzz

# QoS files on the port's netdev, planted with garbage.
copy badqos
ND=$(cat "$DEVDIR/ports/1/gid_attrs/ndevs/0" 2>/dev/null)
if [ -n "$ND" ] && [ -d "$T/badqos/sys/class/net/$ND/" ]; then
	NDDIR=$(cd -P "$T/badqos/sys/class/net/$ND" && pwd)
	mkdir -p "$NDDIR/qos" "$NDDIR/ecn/roce_np/enable"
	printf 'on off\n' > "$NDDIR/qos/pfc"
	for p in 0 1 2 3 4 5 6 7; do printf '0\n' > "$NDDIR/ecn/roce_np/enable/$p"; done
	printf 'maybe\n' > "$NDDIR/ecn/roce_np/enable/3"
	check badqos "garbage in qos/pfc and ecn enable files: notes, no crash" note "qos/pfc" "on off"
	python3 "$T/chk.py" "$T/badqos.json" "$DEV" note "enable/3" maybe >/dev/null 2>&1 &&
		ok "the ECN note names the file" || nok "the ECN note names the file" "$(cat "$T/badqos.json" | head -c 2000)"
else
	ok "garbage QoS files # SKIP port 1 of $DEV has no netdev in this scenario"
	ok "the ECN note names the file # SKIP no netdev"
fi

# A file nobody may read, read as nobody from a copy that is otherwise world-readable.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	copy perm && chmod -R a+rX "$T/perm" && chmod 755 "$T" &&
		chmod 000 "$DEVDIR/ports/1/counters/link_downed"
	if run perm setpriv --reuid=65534 --regid=65534 --clear-groups; then
		if out=$(python3 "$T/chk.py" "$T/perm.json" "$DEV" counter-na link_downed \
			"ports/1/counters/link_downed" "Permission denied" 2>&1); then
			ok "a file nobody may read: a note naming it with 'Permission denied'"
		else
			nok "a file nobody may read: a note naming it with 'Permission denied'" "$out"
		fi
	else
		nok "a file nobody may read: a note naming it with 'Permission denied'" "$why" "$(cat "$T/perm.err")"
	fi
else
	ok "a file nobody may read # SKIP needs root and setpriv"
fi

# fabtop/devices.json replaces "usability unknown" with what was recorded.
copy dev
UV=
for u in "$T/dev"/sys/class/infiniband_verbs/uverbs*; do
	[ "$(cat "$u/ibdev" 2>/dev/null)" = "$DEV" ] && UV=$(basename "$u")
done
if [ -n "$UV" ]; then
	printf '{"uverbs": {"%s": {"present": true, "open_errno": 13}}}\n' "$UV" > "$T/dev/fabtop/devices.json"
	check dev "devices.json: $UV present, open refused (EACCES)" uverbs true 13
	printf '{"uverbs": {}}\n' > "$T/dev/fabtop/devices.json"
	check dev "devices.json without $UV: absent, ENOENT" uverbs false 2
	printf '{"uverbs": [' > "$T/dev/fabtop/devices.json"
	check dev "a truncated devices.json: a note, no crash" note devices.json
else
	ok "devices.json # SKIP no uverbs device for $DEV"
	ok "devices.json absent # SKIP"
	ok "truncated devices.json # SKIP"
fi

# netlink.json's rdma_netlink.netns_mode reaches the report.
copy netns
if [ -f "$T/netns/fabtop/netlink.json" ] && python3 - "$T/netns/fabtop/netlink.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.setdefault("rdma_netlink", {})["netns_mode"] = "exclusive"
json.dump(d, open(sys.argv[1], "w"))
PY
then
	check netns "netlink.json netns_mode exclusive reaches the report" netns exclusive
else
	ok "netns mode # SKIP no netlink.json in $(basename "$S")"
fi
exit 0
