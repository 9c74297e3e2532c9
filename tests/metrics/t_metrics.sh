#!/bin/sh
# `fabtop report metrics` on the bundled scenarios: exact values for known
# ports and counters (a pinned counter, a DOWN port, 4-octet words in
# bytes, a PCIe link), the exit status is `report all`'s verdict, every
# scenario's output passes the real `promtool check metrics` (format and
# lint), an unreadable and an implausible counter are listed as such
# (never a value, never absent), and hostile device and netdev names
# (escapes, a raw C1 byte, newlines, quotes, backslashes) can break
# neither the exposition nor a terminal that shows it.
NAME=metrics; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
SC=$top/build/scenarios
need "$SC/index" "$SC/pinned" "$SC/roce-faults" "$SC/dgx-h100"
export LANG=C.UTF-8
prom() { python3 "$top/tests/metrics/prom.py" "$@"; }
# check NAME FILE EXPR: a TAP line from prom.py's verdict.
check() {
	_n=$1; shift
	if r=$(prom "$@" 2>&1); then ok "$_n"; else nok "$_n" "$r"; fi
}

# ---- pinned: saturated counters, words in bytes ----
"$bin" --root "$SC/pinned" report metrics > "$T/pinned.prom" 2> "$T/pinned.err"; rc=$?
words=$(cat "$SC/pinned/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data")
check "pinned: exit 1 (report all's verdict), verdict findings" "$T/pinned.prom" \
	"$rc == 1 and v('fabtop_verdict', verdict='findings') == 1 and v('fabtop_verdict', verdict='ok') == 0"
check "pinned: link_downed 255 on mlx5_2/1 is saturated, mlx5_0/1's is not" "$T/pinned.prom" \
	"v('fabtop_port_link_downed_total', device='mlx5_2', port='1') == 255 and
	 v('fabtop_port_saturated', device='mlx5_2', port='1', counter='link_downed') == 1 and
	 v('fabtop_port_saturated', device='mlx5_0', port='1', counter='link_downed') == 0 and
	 v('fabtop_port_saturated', device='mlx5_5', port='1', counter='symbol_error') == 1 and
	 v('fabtop_port_saturated', device='mlx5_2', port='1', counter='port_xmit_discards') == 1 and
	 v('fabtop_port_saturated', device='mlx5_2', port='1', counter='excessive_buffer_overrun_errors') == 1"
check "pinned: exactly the five pins report links shows" "$T/pinned.prom" \
	"sum(s[2] for s in S if s[0] == 'fabtop_port_saturated') == $("$bin" --root "$SC/pinned" report links | grep -c '^    PINNED:')"
check "pinned: port_xmit_data ($words words) is $((words * 4)) bytes" "$T/pinned.prom" \
	"v('fabtop_port_xmit_data_bytes_total', device='mlx5_0', port='1', counter='port_xmit_data') == 4 * $words"
check "pinned: counters carry the trouble their growth means" "$T/pinned.prom" \
	"lbl('fabtop_port_hw_out_of_sequence_total', 'trouble', device='mlx5_0') == 'retry' and
	 lbl('fabtop_port_link_downed_total', 'trouble', device='mlx5_0') == 'error' and
	 lbl('fabtop_port_xmit_data_bytes_total', 'trouble', device='mlx5_0') is None"

# ---- roce-faults: a DOWN port, the far NIC, findings ----
"$bin" --root "$SC/roce-faults" report metrics > "$T/rf.prom" 2> "$T/rf.err"; rc=$?
check "roce-faults: mlx5_1/1 DOWN/Disabled, not active, not usable" "$T/rf.prom" \
	"$rc == 1 and v('fabtop_port_state', device='mlx5_1', port='1', state='DOWN') == 1 and
	 v('fabtop_port_state', device='mlx5_1', port='1', state='ACTIVE') == 0 and
	 sum(s[2] for s in S if s[0] == 'fabtop_port_state' and s[1]['device'] == 'mlx5_1') == 1 and
	 v('fabtop_port_physical_state', device='mlx5_1', port='1', state='Disabled') == 1 and
	 v('fabtop_port_active', device='mlx5_1', port='1') == 0 and
	 v('fabtop_port_active', device='mlx5_0', port='1') == 1 and
	 v('fabtop_port_usable', device='mlx5_1', port='1', usable='no') == 1"
check "roce-faults: 40 Gb/sec is 5e9 bytes/s; link layer and netdev on the info series" "$T/rf.prom" \
	"v('fabtop_port_rate_bytes_per_second', device='mlx5_1', port='1') == 5e9 and
	 v('fabtop_port_info', device='mlx5_1', port='1', link_layer='Ethernet', netdev='ens34np0') == 1"
check "roce-faults: findings by id, severity and subject, and counted" "$T/rf.prom" \
	"v('fabtop_finding', id='links.port-down', severity='error', subject='mlx5_1/1') == 1 and
	 v('fabtop_finding', id='topo.nic-far', subject='GPU1') == 1 and
	 v('fabtop_findings', severity='error') == sum(1 for s in S if s[0] == 'fabtop_finding' and s[1]['severity'] == 'error')"
check "roce-faults: GPU1's closest NICs are at NODE (5), GPU0's at PIX (2)" "$T/rf.prom" \
	"v('fabtop_gpu_closest_nic_level', gpu='GPU1', device='mlx5_0') == 5 and
	 lbl('fabtop_gpu_closest_nic_level', 'level', gpu='GPU1', device='mlx5_0') == 'NODE' and
	 v('fabtop_gpu_closest_nic_level', gpu='GPU0') == 2"

# ---- dgx-h100: healthy; PCIe links ----
"$bin" --root "$SC/dgx-h100" report metrics > "$T/dgx.prom" 2> "$T/dgx.err"; rc=$?
check "dgx-h100: exit 0, verdict ok, every source read, no read error" "$T/dgx.prom" \
	"$rc == 0 and v('fabtop_verdict', verdict='ok') == 1 and v('fabtop_read_errors') == 0 and
	 all(s[2] == 1 for s in S if s[0] == 'fabtop_source_up') and n('fabtop_source_up') == 5"
check "dgx-h100: GPU0's PCIe link 32 GT/s x16, and the bridges above it" "$T/dgx.prom" \
	"v('fabtop_pcie_link_speed_transfers_per_second', kind='gpu', name='GPU0') == 32e9 and
	 v('fabtop_pcie_link_max_width_lanes', kind='gpu', name='GPU0') == $(cat "$SC/dgx-h100/sys/bus/pci/devices/0000:19:00.0/max_link_width") and
	 n('fabtop_pcie_link_width_lanes', kind='bridge') > 0 and n('fabtop_pcie_link_width_lanes', kind='nic') > 0"
check "dgx-h100: build info" "$T/dgx.prom" "v('fabtop_build_info') == 1 and lbl('fabtop_build_info', 'version') != ''"

# ---- every scenario: promtool, the verdict ----
if command -v promtool >/dev/null; then
	bad=""
	for s in $(grep -v '^#' "$SC/index" | cut -f1); do
		"$bin" --root "$SC/$s" report metrics > "$T/s.prom" 2>/dev/null; rc=$?
		"$bin" --root "$SC/$s" report all > /dev/null 2>&1; want=$?
		grep '^# TYPE ' "$T/s.prom" | cut -d' ' -f3 >> "$T/families"
		out=$(promtool check metrics < "$T/s.prom" 2>&1) || bad="$bad
$s: promtool: $out"
		[ "$rc" = "$want" ] || bad="$bad
$s: exit $rc, report all exits $want"
	done
	if [ -z "$bad" ]; then
		ok "every scenario: promtool check metrics clean (lint too), exit status = report all's"
	else
		nok "every scenario: promtool check metrics clean, exit status = report all's" "$bad"
	fi
else
	echo "ok - every scenario: promtool check metrics # SKIP promtool is not installed (apt-get install prometheus)"
fi

# ---- docs/metrics.md names every family the scenarios export ----
undoc=""
grep -h '^# TYPE ' "$T"/*.prom | cut -d' ' -f3 >> "$T/families"
for f in $(sort -u "$T/families"); do
	grep -q "\`$f\`" "$top/docs/metrics.md" || undoc="$undoc $f"
done
if [ -s "$T/families" ] && [ -z "$undoc" ]; then
	ok "docs/metrics.md documents all $(sort -u "$T/families" | wc -l) metric families the scenarios export"
else
	nok "docs/metrics.md documents every metric family" "undocumented:$undoc"
fi

# ---- an implausible counter, a counter file that is no file ----
R=$T/unread
cp -a "$SC/ib-8port" "$R" || { nok "copy ib-8port"; exit 0; }
P=$R/sys/class/infiniband/mlx5_0/ports/1/counters
printf -- '-1\n' > "$P/symbol_error"
rm "$P/port_rcv_errors" && mkdir "$P/port_rcv_errors"     # read(2) fails: EISDIR
"$bin" --root "$R" report metrics > "$T/unread.prom" 2> "$T/unread.err"; rc=$?
check "symbol_error '-1': implausible, listed, no value; exit 1" "$T/unread.prom" \
	"$rc == 1 and v('fabtop_port_unreadable', device='mlx5_0', port='1', counter='symbol_error') == 1 and
	 lbl('fabtop_port_unreadable', 'reason', device='mlx5_0', counter='symbol_error') == 'implausible' and
	 v('fabtop_port_symbol_error_total', device='mlx5_0', port='1') is None and
	 v('fabtop_port_symbol_error_total', device='mlx5_1', port='1') is not None"
check "port_rcv_errors a directory: no value, a read error naming it" "$T/unread.prom" \
	"v('fabtop_port_rcv_errors_total', device='mlx5_0', port='1') is None and
	 v('fabtop_read_error', what='/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_errors') == 1 and
	 v('fabtop_read_errors') >= 2"

# ---- a counter file this user may not read (EACCES, as in a pod) ----
# Root reads through mode 000: the run is then made as nobody (setpriv).
R=$T/perm
cp -a "$SC/ib-8port" "$R" && chmod 755 "$T" || { nok "copy ib-8port"; exit 0; }
chmod 000 "$R/sys/class/infiniband/mlx5_0/ports/1/counters/link_downed"
AS=""
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null && AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if [ "$(id -u)" -eq 0 ] && [ -z "$AS" ]; then
	echo "ok - a counter file that cannot be read: unreadable, listed # SKIP root reads through mode 000 and setpriv is missing"
else
	$AS "$bin" --root "$R" report metrics > "$T/perm.prom" 2> "$T/perm.err"; rc=$?
	check "a counter file that cannot be read (EACCES): unreadable, listed, no value, verdict kept" "$T/perm.prom" \
		"lbl('fabtop_port_unreadable', 'reason', device='mlx5_0', port='1', counter='link_downed') == 'unreadable' and
		 v('fabtop_port_link_downed_total', device='mlx5_0', port='1') is None and
		 v('fabtop_port_link_downed_total', device='mlx5_1', port='1') == 0 and
		 v('fabtop_read_errors') >= 1 and $rc == sum(int(s[2]) * i for i, w in enumerate(['ok', 'findings', 'unknown']) for s in S if s[0] == 'fabtop_verdict' and s[1]['verdict'] == w)"
fi

# ---- a capture cut in half: unknown, still written, saying why ----
sz=$(stat -c %s "$SC/ib-8port.tar.gz")
head -c $((sz / 2)) "$SC/ib-8port.tar.gz" > "$T/cut.tar.gz"
"$bin" --root "$T/cut.tar.gz" report metrics > "$T/cut.prom" 2> "$T/cut.err"; rc=$?
if r=$(prom "$T/cut.prom" "$rc == 2 and v('fabtop_verdict', verdict='unknown') == 1 and
	 v('fabtop_source_up', source='capture') == 0 and v('fabtop_read_error', what='capture') == 1") &&
   grep -q '^# fabtop: verdict unknown' "$T/cut.prom" && grep -q '^# fabtop: .*truncated' "$T/cut.prom"; then
	ok "a capture cut in half: exit 2, verdict unknown, the metrics still written and saying why"
else
	nok "a capture cut in half: exit 2, verdict unknown, written and saying why" "exit $rc" "$r" "$(grep '^# fabtop' "$T/cut.prom")"
fi

# ---- hostile names ----
ESC=$(printf '\033') BEL=$(printf '\007') CSI=$(printf '\233') NL='
'
HCA="mlx5_1${ESC}]0;pwned${BEL}${ESC}[2J${CSI}H${NL}Findings: none${NL};touch pwned;#"
QHCA='mlx5_2"} 9'"${NL}"'fabtop_forged{a="\'
NETDEV='ens34;touch pwned;#\"' 
R=$T/hostile
cp -a "$SC/roce-faults" "$R" || { nok "copy roce-faults"; exit 0; }
class_rename "$R/sys/class/infiniband/mlx5_1" "$HCA" || { nok "rename the HCA"; exit 0; }
class_rename "$R/sys/class/infiniband/mlx5_2" "$QHCA" || { nok "rename the second HCA"; exit 0; }
# The port's netdev, as its GIDs name it.
for f in "$R/sys/class/infiniband/$HCA/ports/1/gid_attrs/ndevs/"*; do printf '%s\n' "$NETDEV" > "$f"; done
"$bin" --root "$R" report metrics > "$T/h.prom" 2> "$T/h.err"; rc=$?
# What the sanitiser shows for the first name: each escape as text.
SHOWN='mlx5_1\x1b]0;pwned\x07\x1b[2J\x9bH\nFindings: none\n;touch pwned;#'
if python3 - "$T/h.prom" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
s = b.decode("utf-8")            # invalid UTF-8 fails here
bad = [c for c in s if (ord(c) < 0x20 and c != "\n") or ord(c) == 0x7f or 0x80 <= ord(c) <= 0x9f]
sys.exit(1 if bad else 0)
PY
then
	ok "hostile names: the exposition is valid UTF-8 with no raw control or C1 byte"
else
	nok "hostile names: the exposition is valid UTF-8 with no raw control or C1 byte" "$(grep -a 'pwned' "$T/h.prom" | head -3 | cat -v)"
fi
if grep -aEq '^(Findings: none|;touch pwned|fabtop_forged)' "$T/h.prom"; then
	nok "hostile names: no line forged" "$(grep -aEn '^(Findings: none|;touch pwned|fabtop_forged)' "$T/h.prom")"
else
	ok "hostile names: no line forged (newline, quote, brace and backslash escaped)"
fi
# The second name keeps its quote, brace and backslash; its newline shows as \n.
export QHCA NETDEV
check "hostile names: the labels read back as the sanitiser shows the names" "$T/h.prom" \
	"$rc == 1 and v('fabtop_port_state', device=r'''$SHOWN''', port='1', state='DOWN') == 1 and
	 v('fabtop_port_active', device=r'''$SHOWN''', port='1') == 0 and
	 v('fabtop_port_active', device=E['QHCA'].replace(chr(10), chr(92) + 'n'), port='1') == 1 and
	 v('fabtop_port_info', device=r'''$SHOWN''', netdev=E['NETDEV']) == 1 and
	 n('fabtop_forged') == 0 and n('fabtop_port_info') == 8"
if command -v promtool >/dev/null; then
	if out=$(promtool check metrics < "$T/h.prom" 2>&1); then
		ok "hostile names: promtool check metrics accepts the exposition"
	else
		nok "hostile names: promtool check metrics accepts the exposition" "$out"
	fi
else
	echo "ok - hostile names: promtool check metrics # SKIP promtool is not installed"
fi
