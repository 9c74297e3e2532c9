#!/bin/sh
# Hostile names (issue 12, hole 4): a node root copied from the roce-faults
# scenario where an HCA's directory name carries a terminal title change
# (ESC ] 0;pwned BEL), a clear screen (ESC [2J), a raw C1 CSI (0x9b, so the
# name is not valid UTF-8), a newline that forges "Findings: none" and
# ";touch pwned;#"; its netdev is named "ens34;touch pwned;#"; an hca_type and
# a GID's netdev hold a raw 0x9b; the capture's meta.json names the host with
# ESC, U+009B and a newline. Then `report links`, `report links --json`,
# `report all`, `wizard --batch`, `analyze-log` on a log full of escapes and
# the headless TUI must show every such byte escaped (\x1b, \x9b, \u009b,
# \n): no raw ESC, C1 or other control byte reaches the terminal, no line is
# forged, JSON stays valid and keeps the name (never null), and every
# `next:` command single-quotes the hostile names.
# Prints "ok - name" / "not ok - name".
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
SRC=$TOP/build/scenarios/roce-faults
export LANG=C.UTF-8
unset LC_ALL NO_COLOR

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | head -n 20 | sed 's/^/#   /'; done; }

if [ ! -x "$BIN" ]; then
	notok "no binary at $BIN (make tests)"
	exit 0
fi
if [ ! -f "$SRC/fabtop/meta.json" ]; then
	notok "scenario roce-faults is missing (make scenarios)"
	exit 0
fi
if ! command -v python3 >/dev/null; then
	echo "ok - hostile names # SKIP needs python3 (scripts/deps.sh check)"
	exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-names.XXXXXX") || { notok "mktemp"; exit 0; }
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

ESC=$(printf '\033') BEL=$(printf '\007') CSI=$(printf '\233') NL='
'
HCA="mlx5_1${ESC}]0;pwned${BEL}${ESC}[2J${CSI}H${NL}Findings: none${NL};touch pwned;#"
NETDEV='ens34;touch pwned;#'
R=$T/root
cp -a "$SRC" "$R" || { notok "copy roce-faults"; exit 0; }

# rename LINK NEW: a class link and the device directory it points to.
rename() {
	_dir=$(dirname "$1") _tgt=$(readlink "$1")
	_tdir=$(dirname "$_tgt")
	( cd "$_dir" && mv "$_tgt" "$_tdir/$2" && rm "$(basename "$1")" && ln -s "$_tdir/$2" "$2" )
}
rename "$R/sys/class/infiniband/mlx5_1" "$HCA" || { notok "rename the HCA"; exit 0; }
rename "$R/sys/class/net/ens34np0" "$NETDEV" || { notok "rename the netdev"; exit 0; }
P1="$R/sys/class/infiniband/$HCA/ports/1"
for f in "$P1"/gid_attrs/ndevs/*; do printf '%s\n' "$NETDEV" > "$f"; done
printf 'MT4129%s2J\n' "$CSI" > "$R/sys/class/infiniband/mlx5_0/hca_type"
printf 'ens33np0%s2J\n' "$CSI" > "$R/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/3"
# The host and kernel then come from the capture's meta.json.
rm -f "$R/proc/sys/kernel/hostname" "$R/proc/sys/kernel/osrelease"
python3 - "$R/fabtop" "$NETDEV" <<'EOF' || { notok "edit the capture's JSON"; exit 0; }
import json, sys
d, nd = sys.argv[1], sys.argv[2]
m = json.load(open(d + "/meta.json"))
m["host"] = "node\u001b]0;pwned\u0007\u009b2J\nFindings: none"
m["kernel"] = "6.1\u001b[31m"
json.dump(m, open(d + "/meta.json", "w"))
n = json.load(open(d + "/netlink.json"))
for l in n.get("links", []):
    if l.get("name") == "ens34np0":
        l["name"] = nd
json.dump(n, open(d + "/netlink.json", "w"))
EOF

# clean FILE: no byte that drives a terminal. C0 controls but newline (and
# tab, which the topology matrix uses as its separator), DEL, raw bytes
# 0x80-0x9f outside a valid UTF-8 sequence, U+0080..U+009F, invalid UTF-8.
clean() {
	python3 - "$1" <<'EOF'
import sys
b = open(sys.argv[1], "rb").read()
try:
    s = b.decode("utf-8")
except UnicodeDecodeError as e:
    print("invalid UTF-8 at byte %d: %r" % (e.start, b[max(0, e.start - 20):e.start + 10]))
    sys.exit(1)
for i, c in enumerate(s):
    o = ord(c)
    if (o < 0x20 and c not in "\n\t") or o == 0x7f or 0x80 <= o <= 0x9f:
        print("control U+%04X at char %d: %r" % (o, i, s[max(0, i - 20):i + 10]))
        sys.exit(1)
EOF
}

# clean NAME FILE: a TAP line, ok when FILE holds nothing that drives a
# terminal; forged NAME FILE: ok when no line starts with what followed a
# newline in a name. Both fail on what fabtop printed raw before.
clean_ok() {
	if why=$(clean "$2"); then
		ok "$1: no raw control, C1 or invalid UTF-8 byte"
	else
		notok "$1: no raw control, C1 or invalid UTF-8 byte" "$why"
	fi
}
forged_ok() {
	if grep -aEq '^[[:space:]]*(Findings: none|;touch pwned)' "$2"; then
		notok "$1: no line forged by a newline in a name" \
			"$(grep -aEn '^[[:space:]]*(Findings: none|;touch pwned)' "$2" | cat -v)"
	else
		ok "$1: no line forged by a newline in a name"
	fi
}
# json_ok NAME FILE PY: FILE is valid JSON, clean, and the Python
# expression PY over it (d; strs(d) yields every string in it) is true.
json_ok() {
	if why=$(clean "$2") && why=$(python3 -c '
import json, sys
def strs(o):   # every string in the document, keys too
    if isinstance(o, str):
        yield o
    elif isinstance(o, dict):
        for k, v in o.items():
            yield k
            yield from strs(v)
    elif isinstance(o, list):
        for v in o:
            yield from strs(v)
d = json.load(open(sys.argv[1]))
print("ok" if eval(sys.argv[2]) else "not as expected: " + sys.argv[2])' "$2" "$3" 2>&1) &&
	   [ "$why" = ok ]; then
		ok "$1"
	else
		notok "$1" "$why"
	fi
}

SHOWN='mlx5_1\x1b]0;pwned\x07\x1b[2J\x9bH\nFindings: none\n;touch pwned;#'
QUOTED="'mlx5_1\\x1b]0;pwned\\x07\\x1b[2J\\x9bH\\nFindings: none\\n;touch pwned;#'"
KEPT='mlx5_1\u001b]0;pwned\u0007\u001b[2J\\x9bH\nFindings: none\n;touch pwned;#'

# report links (text): the names shown escaped, the commands quoted.
"$BIN" --root "$R" report links >"$T/links.txt" 2>&1
clean_ok "report links" "$T/links.txt"
forged_ok "report links" "$T/links.txt"
if grep -qF "$SHOWN/1 " "$T/links.txt" && grep -qF "$SHOWN: MT4129 (mlx5_core)" "$T/links.txt"; then
	ok "report links: the HCA name is shown escaped, in the table and its heading"
else
	notok "report links: the HCA name is shown escaped, in the table and its heading" \
		"$(grep -an 'mlx5_1' "$T/links.txt" | head -5 | cat -v)"
fi
if grep -qF "next: ibstat $QUOTED 1; ip link show 'ens34;touch pwned;#'; ethtool 'ens34;touch pwned;#' |" "$T/links.txt"; then
	ok "report links: next: single-quotes the HCA and its netdev"
else
	notok "report links: next: single-quotes the HCA and its netdev" \
		"$(grep -an 'ibstat' "$T/links.txt" | head -3 | cat -v)"
fi
# The commands, their single-quoted words taken out: no "touch" is left.
bad=$(grep -aE 'ibstat|ip link|ethtool' "$T/links.txt" | sed "s/'[^']*'//g" | grep -aF 'touch')
if [ -z "$bad" ]; then
	ok "report links: no command carries ;touch pwned unquoted"
else
	notok "report links: no command carries ;touch pwned unquoted" "$(printf '%s\n' "$bad" | cat -v)"
fi
# The suggested commands, pasted into a shell as a user would (read-only:
# ibstat, ip link show, ethtool; a missing one only fails): the name must
# not run its "touch pwned".
mkdir "$T/paste"
grep -a 'next: ibstat' "$T/links.txt" | sed 's/^[[:space:]]*next: //' > "$T/paste.sh"
(cd "$T/paste" && PATH=/usr/sbin:/usr/bin:/sbin:/bin timeout 20 sh "$T/paste.sh" > /dev/null 2>&1)
if [ -s "$T/paste.sh" ] && [ ! -e "$T/paste/pwned" ]; then
	ok "report links: pasting next: into a shell runs no part of a name"
else
	notok "report links: pasting next: into a shell runs no part of a name" "$(cat -v "$T/paste.sh")"
fi
if grep -q '^mlx5_0: N/A (mlx5_core)' "$T/links.txt" &&
   grep -q 'cannot read /sys/class/infiniband/mlx5_0/hca_type: not a text attribute' "$T/links.txt" &&
   grep -q 'cannot read /sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/3: not a text attribute' "$T/links.txt"; then
	ok "report links: an hca_type and a GID netdev with a C1 byte are not text (N/A, noted)"
else
	notok "report links: an hca_type and a GID netdev with a C1 byte are not text (N/A, noted)" \
		"$(grep -an 'mlx5_0: \|ndevs/3' "$T/links.txt" | cat -v)"
fi

# --json: valid, clean, the name kept (its bad byte as \x9b), never null.
"$BIN" --root "$R" report links --json >"$T/links.json" 2>/dev/null
json_ok "report links --json: valid, no raw control byte, the HCA name kept (never null)" "$T/links.json" \
	"'$KEPT' in [h.get('name') for h in d['links']['hcas']]"

# report all: the capture's host and kernel in the heading.
"$BIN" --root "$R" report all >"$T/all.txt" 2>&1
clean_ok "report all" "$T/all.txt"
forged_ok "report all" "$T/all.txt"
if grep -qF 'on node\x1b]0;pwned\x07\u009b2J\nFindings: none (kernel 6.1\x1b[31m)' "$T/all.txt"; then
	ok "report all: the capture's host and kernel are shown escaped"
else
	notok "report all: the capture's host and kernel are shown escaped" "$(head -3 "$T/all.txt" | cat -v)"
fi
"$BIN" --root "$R" report all --json >"$T/all.json" 2>/dev/null
json_ok "report all --json: valid, no raw C1 byte (U+009B as \\u009B), the host kept" "$T/all.json" \
	"d['host'] == 'node\u001b]0;pwned\u0007\u009b2J\nFindings: none'"

# wizard --batch: step l1 judges the hostile HCA.
"$BIN" --root "$R" wizard --batch --steps l1 >"$T/wiz.txt" 2>&1
clean_ok "wizard --batch" "$T/wiz.txt"
forged_ok "wizard --batch" "$T/wiz.txt"
if grep -qF "$SHOWN" "$T/wiz.txt"; then
	ok "wizard --batch: the HCA name is shown escaped"
else
	notok "wizard --batch: the HCA name is shown escaped" "$(head -20 "$T/wiz.txt" | cat -v)"
fi
"$BIN" --root "$R" wizard --batch --json --steps l1 >"$T/wiz.json" 2>/dev/null
json_ok "wizard --batch --json: valid, no raw control byte, the HCA name kept" "$T/wiz.json" \
	"any('$KEPT' in v for v in strs(d))"

# analyze-log: a log whose HCA, interface, error text and env carry escapes.
{
	printf 'node1:100:100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n'
	printf 'node1:100:100 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0%s]0;pwned%s\n' "$ESC" "$BEL"
	printf 'node1:100:100 [0] NCCL INFO Bootstrap : Using eth0%s[2J:10.0.0.1<0>\n' "$ESC"
	printf 'node1:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0%sH:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n' "$CSI"
	printf 'node1:100:100 [0] NCCL INFO Using network IB\n'
	printf 'node1:100:200 [0] transport/net_ib.cc:1000 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1234> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca mlx5_0%s]0;pwned%s\n' "$ESC" "$BEL"
	printf 'node1:100:200 [0] NCCL WARN %s[2J%sH title\n' "$ESC" "$CSI"
} > "$T/evil.log"
"$BIN" analyze-log "$T/evil.log" >"$T/log.txt" 2>&1
clean_ok "analyze-log" "$T/log.txt"
if grep -qF 'eth0\x1b]0;pwned\x07' "$T/log.txt" && grep -qF 'mlx5_0\x9bH' "$T/log.txt"; then
	ok "analyze-log: the escapes in the log are shown escaped"
else
	notok "analyze-log: the escapes in the log are shown escaped" "$(cat -v "$T/log.txt")"
fi
"$BIN" analyze-log --json "$T/evil.log" >"$T/log.json" 2>/dev/null
json_ok "analyze-log --json: valid, no raw control byte, the HCA name kept (never null)" "$T/log.json" \
	"[h.get('name') for h in d['hcas']] == ['mlx5_0\\\\x9bH']"
"$BIN" analyze-log "$T/no-such-${ESC}[2J-file.log" >/dev/null 2>"$T/log-missing.err"
clean_ok "analyze-log: a missing file named on stderr" "$T/log-missing.err"

# The headless TUI: the Links pane with the hostile HCA selected, its
# detail to the end (findings with next:), wide, and the Topology pane.
cat > "$T/tui.script" <<EOF
key 2
key Down
dump $T/tui-links.txt
key End
dump $T/tui-links-end.txt
resize 200 50
key Home
dump $T/tui-links-wide.txt
key 1
dump $T/tui-topo.txt
key q
EOF
FABTOP_SCRIPT=$T/tui.script FABTOP_SCRIPT_SIZE=80x24 "$BIN" --root "$R" </dev/null >"$T/tui.out" 2>&1
rc=$?
cat "$T"/tui-*.txt > "$T/tui-all.txt" 2>/dev/null
if [ $rc -ne 0 ] || [ ! -s "$T/tui-links-end.txt" ]; then
	notok "TUI: the HCA name drawn escaped, no forged line (rc $rc)" "$(cat "$T/tui.out")"
elif ! grep -qF 'mlx5_1\x1b]0;pwned\x07\x1b[2J\x9bH' "$T/tui-all.txt" || ! why=$(clean "$T/tui-all.txt") ||
     grep -aEq '^[[:space:]]*(Findings: none|;touch pwned)' "$T/tui-all.txt"; then
	notok "TUI: the HCA name drawn escaped, no forged line" "${why:-}" "$(cat "$T/tui-links-end.txt")"
else
	ok "TUI: the HCA name drawn escaped, no forged line"
fi
exit 0
