#!/bin/sh
# Screen tests of the Links pane's htop habits, units and Chinese layout
# (issue 17), headless (FABTOP_SCRIPT) on the roce-faults scenario:
#  - sort: the heading marks the sorted column (PORT▲ at first); > moves the
#    sort to the next column shown and the rows reorder (DOWN first by
#    STATE), I inverts it (DOWN last), ties stay in the model's order, and
#    the selection stays on its port across every re-sort;
#  - units: the LINE column says "Gb/s" (port_line_gbps: mlx5_3/1's PCIe
#    link carries 202 of its 400), MTU says "B", and no column of the
#    table is a bare number;
#  - zh_CN at 80x24 and 120x40: translated headings, and every cell starts
#    at the display column of its heading (CJK characters two wide).
# UPDATE=1 rewrites tests/screen/expected/links-sort-*.txt; read the result.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
SCEN=$TOP/build/scenarios
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS NO_COLOR LANGUAGE

PREFIX=fabtop-links-sort . "$(dirname "$0")/lib.sh"

RF=$SCEN/roce-faults
if [ ! -f "$RF/fabtop/meta.json" ]; then
	notok "scenario roce-faults is missing (make scenarios)"
	exit 0
fi

# The port rows of a dump, in order: "mlx5_1/1 mlx5_0/1 ...".
rows() { grep -oE '^[> ] mlx5_[0-9]+/[0-9]+' "$1" | sed 's/^[> ] //' | tr '\n' ' ' | sed 's/ $//'; }
# The selected port of a dump.
selected() { grep -oE '^> mlx5_[0-9]+/[0-9]+' "$1" | sed 's/^> //'; }
# is NAME GOT WANT
is() {
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1"; echo "got:  $2" | comment; echo "want: $3" | comment; fi
}

# ---- sort ----------------------------------------------------------------
cat > "$T/s.script" <<EOF
key 2
key Down
key Down
key Down
key Down
dump-pane $T/s-0.txt
key >
dump-pane $T/s-state.txt
key I
dump-pane $T/s-state-inv.txt
key >
key >
dump-pane $T/s-line.txt
key I
dump-pane $T/s-line-inv.txt
key <
key <
key <
dump-pane $T/s-port.txt
resize 120 40
$(for i in 1 2 3 4 5 6 7 8 9; do printf 'key >\ndump-pane %s\n' "$T/s-m$i.txt"; done)
key q
EOF
headless s 80x24 "$BIN" --root "$RF"
# The first of the steps at 120 columns that sorts by MTU (which columns
# are shown, and so how many steps it takes, follows the marked heading's
# width).
for i in 1 2 3 4 5 6 7 8 9; do
	grep -q 'MTU▲' "$T/s-m$i.txt" 2>/dev/null && { cp "$T/s-m$i.txt" "$T/s-mtu.txt"; break; }
done
same "$T/s-0.txt" links-sort-80x24-port.txt "sort: PORT▲ marked at first, the model's order"
if grep -q '^  PORT▲ ' "$T/s-0.txt"; then ok "sort: the heading marks PORT ascending"
else notok "sort: the heading marks PORT ascending"; fi
is "sort: first the model's order" "$(rows "$T/s-0.txt")" \
	"mlx5_0/1 mlx5_1/1 mlx5_2/1 mlx5_3/1 mlx5_4/1 mlx5_5/1 mlx5_6/1 mlx5_7/1"
if grep -q 'STATE▲' "$T/s-state.txt" && ! grep -q 'PORT▲' "$T/s-state.txt"; then
	ok "sort: > moves the mark to STATE"
else
	notok "sort: > moves the mark to STATE"
fi
is "sort: by STATE the DOWN port first, ties in the model's order" "$(rows "$T/s-state.txt")" \
	"mlx5_1/1 mlx5_0/1 mlx5_2/1 mlx5_3/1 mlx5_4/1 mlx5_5/1 mlx5_6/1 mlx5_7/1"
if grep -q 'STATE▼' "$T/s-state-inv.txt"; then ok "sort: I inverts the mark"
else notok "sort: I inverts the mark"; fi
is "sort: I puts the DOWN port last, ties still in the model's order" "$(rows "$T/s-state-inv.txt")" \
	"mlx5_0/1 mlx5_2/1 mlx5_3/1 mlx5_4/1 mlx5_5/1 mlx5_6/1 mlx5_7/1 mlx5_1/1"
# At 80 columns PHYS is not shown: > > goes STATE -> RATE -> LINE.
if grep -q 'LINE▲' "$T/s-line.txt"; then ok "sort: > skips the columns not shown, reaching LINE"
else notok "sort: > skips the columns not shown, reaching LINE"; head -4 "$T/s-line.txt" | comment; fi
is "sort: by LINE the slowest lines first (40, 200, 202 Gb/s)" "$(rows "$T/s-line.txt")" \
	"mlx5_1/1 mlx5_2/1 mlx5_3/1 mlx5_0/1 mlx5_4/1 mlx5_5/1 mlx5_6/1 mlx5_7/1"
is "sort: LINE inverted, ties in the model's order" "$(rows "$T/s-line-inv.txt")" \
	"mlx5_0/1 mlx5_4/1 mlx5_5/1 mlx5_6/1 mlx5_7/1 mlx5_3/1 mlx5_2/1 mlx5_1/1"
for f in s-0 s-state s-state-inv s-line s-line-inv s-port s-mtu; do
	got=$(selected "$T/$f.txt")
	if [ "$got" != mlx5_4/1 ]; then
		notok "sort: the selection stays on mlx5_4/1 ($f: $got)"
	elif ! grep -q '── mlx5_4/1 ' "$T/$f.txt"; then
		notok "sort: the detail stays on mlx5_4/1 ($f)"
	else
		ok "sort: the selection and its detail stay on mlx5_4/1 ($f)"
	fi
done
if grep -q 'PORT▲' "$T/s-port.txt"; then ok "sort: < walks back to PORT"
else notok "sort: < walks back to PORT"; fi
if grep -q 'MTU▲' "$T/s-mtu.txt" && [ "$(rows "$T/s-mtu.txt" | cut -d' ' -f1)" = mlx5_4/1 ]; then
	ok "sort: at 120 columns > walks to MTU, the 2048 B port first"
else
	notok "sort: at 120 columns > walks to MTU, the 2048 B port first"; head -4 "$T/s-mtu.txt" | comment
fi

# ---- units ---------------------------------------------------------------
# The table: the headings line and the port rows.
table() { grep -E '^  PORT|^  端口|^[> ] mlx5_' "$1"; }
if table "$T/s-0.txt" | head -1 | grep -q 'LINE' &&
   grep -qE '^[> ] mlx5_3/1 .* 400 Gb/s 4X NDR  202 Gb/s ' "$T/s-0.txt"; then
	ok "units: the LINE column says Gb/s, mlx5_3/1's PCIe ceiling (202 Gb/s) below its 400 Gb/s"
else
	notok "units: the LINE column says Gb/s"; comment < "$T/s-0.txt"
fi
# Every number in a row carries its unit: a number standing alone (not
# "+1", "4X", a name or an address) that no unit follows is a column
# without one.
bare_in() {
	awk '{ for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+(\.[0-9]+)?$/ && $(i + 1) !~ /^([kMGT]?b\/s|B|GT\/s)$/) print }'
}
bare=$(table "$T/s-mtu.txt" | grep -vE '^  PORT' | bare_in)
if [ -z "$bare" ] && table "$T/s-mtu.txt" | grep -q ' 4096 B '; then
	ok "units: no bare number in the 120-column table (MTU in B)"
else
	notok "units: no bare number in the 120-column table (MTU in B)"; echo "$bare" | comment
fi
# The check can fail: "LINE 400" without its unit is caught.
if [ -n "$(printf '  mlx5_0/1  ACTIVE  400  yes\n' | bare_in)" ]; then
	ok "units: the bare-number check catches a number without its unit"
else
	notok "units: the bare-number check catches a number without its unit"
fi

# ---- zh_CN ---------------------------------------------------------------
if [ ! -f "$TOP/build/locale/zh_CN/LC_MESSAGES/fabtop.mo" ]; then
	notok "zh_CN: build/locale/zh_CN/LC_MESSAGES/fabtop.mo is missing (make tests)"
	exit 0
fi
cat > "$T/z.script" <<EOF
key 2
key Down
dump-pane $T/z-80.txt
resize 120 40
dump-pane $T/z-120.txt
key q
EOF
headless z 80x24 "$BIN" --lang zh_CN --root "$RF"
same "$T/z-80.txt" links-sort-zh_CN-80x24.txt "zh_CN 80x24: the Links pane in Chinese"
same "$T/z-120.txt" links-sort-zh_CN-120x40.txt "zh_CN 120x40: the Links pane in Chinese"
# aligned DUMP: in the headings and in every row, a column starts after two
# blanks or more; each row's starts are headings' starts, measured in
# display columns (CJK two wide, as the terminal draws them).
aligned() {
	python3 - "$1" <<'PY'
import sys, unicodedata, re
def w(c):
    return 2 if unicodedata.east_asian_width(c) in 'WF' else 1
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
head = next((l for l in lines if l.startswith('  端口')), None)
rows = [l for l in lines if re.match(r'^[> ] mlx5_', l)]
def starts(l):
    out, col, blanks = [], 0, 2
    for c in '  ' + l.split('\u2502')[0][2:]:
        if c != ' ' and blanks >= 2:
            out.append(col)
        blanks = blanks + 1 if c == ' ' else 0
        col += w(c)
    return out
if head is None or not rows:
    print("no table"); sys.exit(1)
hs = starts(head)
bad = [(r, starts(r)) for r in rows if not set(starts(r)) <= set(hs)]
if len(hs) < 4 or bad:
    print("headings at", hs)
    for r, s in bad:
        print(r, s)
    sys.exit(1)
PY
}
for sz in 80 120; do
	if ! grep -q '端口' "$T/z-$sz.txt" || ! grep -q '线速' "$T/z-$sz.txt"; then
		notok "zh_CN ${sz}: the headings are translated"; comment < "$T/z-$sz.txt"
	elif out=$(aligned "$T/z-$sz.txt"); then
		ok "zh_CN ${sz}: every cell starts under its heading (display width)"
	else
		notok "zh_CN ${sz}: every cell starts under its heading (display width)"; echo "$out" | comment
	fi
done
# The alignment check can fail: a heading moved by one column is caught.
sed 's/^  端口/  端口 /; s/线速 /线速/' "$T/z-120.txt" > "$T/z-bad.txt"
if aligned "$T/z-bad.txt" >/dev/null; then
	notok "zh_CN: the alignment check catches a shifted heading"
else
	ok "zh_CN: the alignment check catches a shifted heading"
fi
exit 0
