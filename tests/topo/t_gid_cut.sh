#!/bin/sh
# A GID table fuller than the model keeps (FAB_MAX_GIDS, 32): a RoCE port
# shared by many pods' macvlans or VLANs holds a v1 and a v2 GID per
# address, and mlx5 tables have 255 slots. The first 32 filled slots are
# kept; the others are counted (gids_more), said in a note, and what looks
# for a GID among them says unknown, never absent: with 40 link-local GIDs
# before the port's IPv4 RoCE v2 GID (slot 41), links.roce-no-ipv4 must not
# say the port has none. The control: the same port with 30 link-local GIDs
# and no IPv4 one (a whole table) gets the finding, so the check can fail.
# Trees from tests/scenarios/mkroce.py (a two-port RoCE node laid out as
# sysfs is). Prints "ok - name" / "not ok - name". Needs $FABTOP and
# $FABTOP_TOP.
NAME=gid-cut; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
need "$top/tests/scenarios/mkroce.py"
if ! command -v python3 >/dev/null || ! command -v jq >/dev/null; then
	echo "ok - a cut GID table # SKIP needs python3 and jq"
	exit 0
fi

# fill ROOT LINKLOCAL IPV4: mlx5_0 port 1's table rewritten: LINKLOCAL
# link-local GIDs (v1 and v2 in turn), then, when IPV4 is 1, the IPv4 v1
# and v2 GIDs of 10.100.0.1; every other slot of the 255 zeros.
fill() {
	python3 - "$1" "$2" "$3" <<'EOF'
import glob, os, sys
root, ll, v4 = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
port = glob.glob(root + "/sys/devices/*/*/*/infiniband/mlx5_0/ports/1")[0]
for sub in ("gids", "gid_attrs/types", "gid_attrs/ndevs"):
    for f in glob.glob(port + "/" + sub + "/*"):
        os.remove(f)
def put(sub, i, text):
    with open("%s/%s/%d" % (port, sub, i), "w") as f:
        f.write(text + "\n")
slots = []
for i in range(ll):
    slots.append(("fe80:0000:0000:0000:ba3f:d2ff:fe65:%04x" % (0x5500 + i // 2),
                  "RoCE v2" if i % 2 else "IB/RoCE v1"))
if v4:
    slots += [("0000:0000:0000:0000:0000:ffff:0a64:0001", "IB/RoCE v1"),
              ("0000:0000:0000:0000:0000:ffff:0a64:0001", "RoCE v2")]
for i in range(255):
    if i < len(slots):
        put("gids", i, slots[i][0])
        put("gid_attrs/types", i, slots[i][1])
        put("gid_attrs/ndevs", i, "enp2s0f0np0")
    else:
        put("gids", i, "0000:0000:0000:0000:0000:0000:0000:0000")
EOF
}

python3 "$top/tests/scenarios/mkroce.py" 2 "$T/cut" >/dev/null &&
	cp -a "$T/cut" "$T/whole" && fill "$T/cut" 40 1 && fill "$T/whole" 30 0 ||
	{ nok "build the trees"; exit 0; }

"$bin" --root "$T/cut" report links --json > "$T/cut.json" 2>"$T/cut.err"
"$bin" --root "$T/cut" report links > "$T/cut.txt" 2>>"$T/cut.err"
port='.links.hcas[] | select(.name == "mlx5_0") | .ports[0]'
got=$(jq -r "[($port | .gids | length), ($port | .gids_more), ($port | .gids[-1].index)] | @tsv" "$T/cut.json" 2>&1)
if [ "$got" = "$(printf '32\t10\t31')" ]; then
	ok "42 filled slots: the first 32 kept (to index 31), 10 counted as gids_more"
else
	nok "42 filled slots: the first 32 kept (to index 31), 10 counted as gids_more" "got: $got" "$(head -5 "$T/cut.err")"
fi
if jq -e '.notes[] | select(.message | test("42 GIDs set; the first 32 \\(to index 31\\) are kept"))' "$T/cut.json" >/dev/null &&
	grep -q '^      and 10 more, not kept$' "$T/cut.txt"; then
	ok "the cut is said: a note, and the text's GID list ends with what was not kept"
else
	nok "the cut is said: a note, and the text's GID list ends with what was not kept" \
		"$(jq -c '.notes' "$T/cut.json" | head -c 600)" "$(grep -A3 'GIDs:' "$T/cut.txt" | tail -3)"
fi
if ! jq -e '.findings[] | select(.id == "links.roce-no-ipv4" and (.subject | startswith("mlx5_0")))' "$T/cut.json" >/dev/null; then
	ok "its IPv4 RoCE v2 GID past the kept slots: no links.roce-no-ipv4 (unknown, not absent)"
else
	nok "its IPv4 RoCE v2 GID past the kept slots: no links.roce-no-ipv4 (unknown, not absent)" \
		"$(jq -c '.findings[] | select(.id == "links.roce-no-ipv4")' "$T/cut.json")"
fi

"$bin" --root "$T/whole" report links --json > "$T/whole.json" 2>"$T/whole.err"
got=$(jq -r "[($port | .gids | length), ($port | .gids_more // \"absent\")] | @tsv" "$T/whole.json" 2>&1)
if [ "$got" = "$(printf '30\tabsent')" ] &&
	jq -e '.findings[] | select(.id == "links.roce-no-ipv4" and (.subject | startswith("mlx5_0")))' "$T/whole.json" >/dev/null; then
	ok "control: 30 link-local GIDs, no IPv4 one, the table whole: links.roce-no-ipv4 on mlx5_0"
else
	nok "control: 30 link-local GIDs, no IPv4 one, the table whole: links.roce-no-ipv4 on mlx5_0" \
		"got: $got" "$(jq -c '[.findings[].id]' "$T/whole.json")" "$(head -5 "$T/whole.err")"
fi
