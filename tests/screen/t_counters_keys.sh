#!/bin/sh
# The Counters pane's htop habits and units (issue 17), headless with
# FABTOP_SCRIPT on the hang scenario: sort keys (< > I) with the mark in the
# head and the key named in the list's header line, stable; playback seek
# ([ ] Home End) to the same screens as playing there; every amount with
# its unit, one unit per port-table column; the zh_CN pane at 80x24 and
# 120x40 with its columns aligned by display width.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
SCEN=$TOP/build/scenarios
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS NO_COLOR LANGUAGE
PREFIX=fabtop-ckeys . "$(dirname "$0")/lib.sh"

need hang || exit 0

# (a) Sort: the natural order, RATE (4 x >) largest first, I inverted,
# then LAYER (4 more >, I back): ties keep the natural order.
cat > "$T/sort.script" <<EOF
key 3
tick 21
resize 200 50
dump-pane $T/sort-0.txt
key >
key >
key >
key >
dump-pane $T/sort-rate.txt
key I
dump-pane $T/sort-rate-inv.txt
key I
key >
key >
key >
key >
dump-pane $T/sort-layer.txt
key <
dump-pane $T/sort-limit.txt
key q
EOF
headless sort 80x24 "$BIN" --root "$SCEN/hang"
python3 - "$T" <<'EOF'
import re, sys
T = sys.argv[1]
def rows(name):
    L = open("%s/%s" % (T, name), encoding="utf-8").read().split("\n")
    h = next(i for i, l in enumerate(L) if re.match(r"^PORT +COUNTER", l))
    out = []
    for l in L[h + 1:]:
        if not re.match(r"^mlx5_\d+/\d+ ", l):
            break
        out.append(l)
    return L, h, out
SI = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
def rate_of(l):
    m = re.search(r" ([\d.]+)([kMGT]?) ?(b/s|[kMGT]?b/s| [a-z]+/s)", l)
    m = re.search(r"\+\S+ \S+ +([\d.]+)(?: ([kMGT]?)b/s|([kMGT]?) ([a-z]+)/s)", l)
    if not m:
        return None
    v = float(m.group(1))
    if m.group(2) is not None:          # bits/s: compare as bytes/s, as the sampler does
        return v * SI[m.group(2)] / 8
    return v * SI[m.group(3) or ""]
def check(name, ok, why=""):
    print(("ok - " if ok else "not ok - ") + name)
    if not ok and why:
        print("#   " + why)
L0, h0, nat = rows("sort-0.txt")
check("sort: the natural order is named in the header line", "sort: worst first" in L0[h0 - 1])
L, h, r = rows("sort-rate.txt")
v = [rate_of(x) for x in r]
check("sort: > four times sorts by RATE, named in the header line and marked in the head",
      "sort: RATE\u25bc" in L[h - 1] and re.search(r" RATE\u25bc ", L[h]) is not None, L[h - 1] + " | " + L[h])
check("sort: RATE largest first (%d rows, bits/s read as bytes/s)" % len(v),
      len(v) > 10 and None not in v and all(a >= b for a, b in zip(v, v[1:])) and v != sorted(v), str(v[:6]))
L, h, r = rows("sort-rate-inv.txt")
w = [rate_of(x) for x in r]
check("sort: I inverts: RATE\u25b2 and smallest first",
      "sort: RATE\u25b2" in L[h - 1] and None not in w and all(a <= b for a, b in zip(w, w[1:])), str(w[:6]))
L, h, r = rows("sort-layer.txt")
layer = lambda l: l.split()[-0] if False else re.search(r"\s(link|transport|physical|congestion|pcie|host)\s", l).group(1)
key = lambda l: tuple(l.split()[:2])
lay = [layer(x) for x in r]
natural = [key(x) for x in nat]
groups_ok = all(
    [key(x) for x in r if layer(x) == g] == [k for k in natural if k in {key(x) for x in r if layer(x) == g}]
    for g in set(lay))
check("sort: LAYER A to Z, and rows of one layer keep the natural (worst first) order",
      "sort: LAYER\u25b2" in L[h - 1] and lay == sorted(lay) and groups_ok and len(set(lay)) > 1, str(lay))
L, h, r = rows("sort-limit.txt")
check("sort: < goes back one key (LIMIT)", "sort: LIMIT\u25b2" in L[h - 1], L[h - 1])
EOF

# (b) Seek: [ from 23 draws what playing to 22 drew; Home the first sample;
# ] from it the second, as played; End the last, where ] stays.
cat > "$T/seek.script" <<EOF
key 3
tick 1
dump-pane $T/seek-2-played.txt
tick 20
dump-pane $T/seek-22-played.txt
tick 1
dump-pane $T/seek-23.txt
key [
dump-pane $T/seek-22-back.txt
key Home
dump-pane $T/seek-1.txt
key ]
dump-pane $T/seek-2-back.txt
key End
dump-pane $T/seek-60.txt
key ]
dump-pane $T/seek-60b.txt
key q
EOF
headless seek 120x40 "$BIN" --root "$SCEN/hang"
has "$T/seek-23.txt" "seek: the title says where (sample 23/60, 00:00:22 of 00:00:59)" \
	"^playback . sample 23/60, 00:00:22 of 00:00:59 . recorded 1 s apart"
if cmp -s "$T/seek-22-played.txt" "$T/seek-22-back.txt" && grep -q "sample 22/60" "$T/seek-22-back.txt"; then
	ok "seek: [ from sample 23 draws what playing to 22 drew (rates, histories, totals)"
else
	notok "seek: [ from sample 23 draws what playing to 22 drew"
	diff -u "$T/seek-22-played.txt" "$T/seek-22-back.txt" | head -20 | comment
fi
has "$T/seek-1.txt" "seek: Home goes to the first sample" "^playback . sample 1/60, 00:00:00 of 00:00:59"
if cmp -s "$T/seek-2-played.txt" "$T/seek-2-back.txt"; then
	ok "seek: ] from the first sample draws the second as played"
else
	notok "seek: ] from the first sample draws the second as played"
	diff -u "$T/seek-2-played.txt" "$T/seek-2-back.txt" | head -20 | comment
fi
has "$T/seek-60.txt" "seek: End goes to the last sample, and the playback has ended" \
	"^playback ended . sample 60/60, 00:00:59 of 00:00:59"
has "$T/seek-60b.txt" "seek: ] at the end stays there" "^playback ended . sample 60/60"

# (c) Units: one per port-table column, in its head; each counter cell
# with its own, the same in its row, data in bytes and bits/s only.
printf 'key 3\ntick 21\nresize 250 400\nkey a\ndump-pane %s\nkey q\n' "$T/units.txt" > "$T/units.script"
headless units 80x24 "$BIN" --root "$SCEN/hang"
python3 - "$T/units.txt" <<'EOF'
import re, sys
L = open(sys.argv[1], encoding="utf-8").read().split("\n")
bad = []
ph = next(l for l in L if l.startswith("PORT ") and "LL" in l)
for head in ("TX Gb/s", "RX Gb/s", "LOAD", "LINE", "TX/RX pkt/s"):
    if head not in ph:
        bad.append("port table head lacks %r" % head)
ports = [l for l in L if re.match(r"^mlx5_\d/1  IB ", l)]
for l in ports:
    if not re.search(r"  \d+%  400 Gb/s  ", l) or not re.search(r"  [\d.]+[kM]?/[\d.]+[kM]?  ", l):
        bad.append("port row: " + l)
h = next(i for i, l in enumerate(L) if re.match(r"^PORT +COUNTER", l))
n = 0
for l in L[h + 1:]:
    m = re.match(r"^(\S+)\s+(\S+)\s+(\+\S+ \S+|-)\s+(\S+ \S+|-)\s+(\S+ \S+)\s", l)
    if not m:
        break
    n += 1
    name, d, r, s = m.group(2), m.group(3), m.group(4), m.group(5)
    data = name in ("port_xmit_data", "port_rcv_data")
    su = s.split()[1]
    if data:
        ok = re.fullmatch(r"[kMGT]?B", su) and (d == "-" or re.fullmatch(r"[kMGT]?B", d.split()[1])) and \
             (r == "-" or re.fullmatch(r"[kMGT]?b/s", r.split()[1]))
    else:
        ok = not su.endswith("B") and (d == "-" or d.split()[1] == su) and (r == "-" or r.split()[1] == su + "/s")
    if not ok:
        bad.append("%s: %s | %s | %s" % (name, d, r, s))
if "B/s" in "\n".join(L):
    bad.append("a bytes/s rate is shown")
print(("ok" if not bad and n > 100 and len(ports) == 8 else "not ok") +
      " - units: the port table's heads name each column's unit, LINE is 400 Gb/s; %d counter rows each with one unit in +delta, rate and since (data: B and b/s)" % n)
for b in bad[:10]:
    print("#   " + b)
EOF

# (d) zh_CN at 80x24 and 120x40: translated heads, columns aligned by
# display width (a CJK character takes two columns).
MO=$TOP/build/locale/zh_CN/LC_MESSAGES/fabtop.mo
if [ ! -f "$MO" ]; then
	notok "zh_CN: $MO is missing (make build/locale/zh_CN/LC_MESSAGES/fabtop.mo)"
else
	for sz in 80x24 120x40; do
		printf 'key 3\ntick 21\ndump-pane %s\nkey a\nkey >\nkey >\nkey >\nkey >\ndump-pane %s\nkey q\n' \
			"$T/zh-$sz.txt" "$T/zh-$sz-all.txt" > "$T/zh-$sz.script"
		headless "zh-$sz" "$sz" "$BIN" --lang zh_CN --root "$SCEN/hang"
		python3 - "$T/zh-$sz.txt" "$T/zh-$sz-all.txt" "$sz" <<'EOF'
import re, sys, unicodedata
def col(s, i):      # display column of character index i
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s[:i])
def width(s):
    return col(s, len(s))
sz, bad = sys.argv[3], []
W = int(sz.split("x")[0])
for f in sys.argv[1:3]:
    L = open(f, encoding="utf-8").read().split("\n")
    for l in L:
        if width(l) > W:
            bad.append("wider than %d: %s" % (W, l))
    ph = next((l for l in L if l.startswith("端口") and "负载" in l), None)
    if ph is None:
        bad.append("%s: no translated port table head" % f)
        continue
    sx = col(ph, ph.index("状态"))
    lx = col(ph, ph.index("负载")) + width("负载")
    for l in L:
        if re.match(r"^mlx5_\d/1  IB ", l):
            m = re.search(r"(STOPPED|RETRIES|ok)", l)
            p = re.search(r"\d+%", l)
            if not m or col(l, m.start()) != sx:
                bad.append("state not under 状态 (col %d): %s" % (sx, l))
            if not p or col(l, p.end()) != lx:
                bad.append("load not right-aligned under 负载 (col %d): %s" % (lx, l))
    # The counters list: a mark column (severity, 2 columns) before PORT.
    ch = next((l for l in L if l[2:].startswith("端口") and "计数器" in l), None)
    if ch is not None:
        cx = col(ch, ch.index("计数器"))
        for l in L[L.index(ch) + 1:]:
            if not re.match(r"^. mlx5_", l):
                break
            if col(l, 2 + len(re.match(r"^\S+\s+", l[2:]).group(0))) != cx:
                bad.append("counter name not under 计数器 (col %d): %s" % (cx, l))
        if f.endswith("-all.txt") and "速率▼" not in ch:
            bad.append("the sorted head is not marked: " + ch)
    elif f.endswith("-all.txt") and sz != "80x24":
        bad.append("no counters list head in " + f)
print(("ok" if not bad else "not ok") + " - zh_CN %s: heads translated, state, load and counter columns aligned by display width, nothing past the edge" % sz)
for b in bad[:8]:
    print("#   " + b)
EOF
	done
	same "$T/zh-80x24.txt" counters-zh_CN-hang-80x24.txt "zh_CN 80x24: the Counters pane"
fi
