#!/bin/sh
# fabtop diff (docs/diff.md): two healthy nodes of one kind are "same" and
# nothing else; one port at 200 instead of 400, another firmware, a
# topology cell are each shown; --json's shape; --all shows the GUIDs;
# an unreadable side exits 2 with why; hostile strings come out sanitised.
# The second node is a copy of the dgx-h100 scenario with every identifier
# changed (othernode.py: host name, time, GUIDs, GIDs, LIDs, MACs, IPs).
NAME=diff; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scen=$top/build/scenarios
need "$scen/dgx-h100" "$scen/dgx-h100.tar.gz"
A=$scen/dgx-h100
esc=$(printf '\033')
bel=$(printf '\007')

# node NAME: a copy of dgx-h100 as another node of the kind, in $T/NAME.
node() {
	cp -a "$A" "$T/$1" && python3 "$top/tests/diff/othernode.py" "$T/$1"
}
# hca_file DIR HCA FILE: the path of an HCA's sysfs file in a capture copy.
hca_file() {
	find "$1/sys/devices" -path "*/infiniband/$2/$3" | head -n 1
}
# run ARGS...: fabtop diff, stdout in $T/out, stderr in $T/err, status in $rc.
run() {
	"$bin" diff "$@" > "$T/out" 2> "$T/err"
	rc=$?
}

if ! command -v python3 > /dev/null; then
	echo "ok - diff # SKIP python3 is not installed (it makes the second node)"
	exit 0
fi
node b || { nok "othernode.py could not make the second node"; exit 0; }

# 1. Two healthy nodes of one kind: exactly "same", exit 0, whichever form
#    each side takes (tarball, directory, saved report).
run "$scen/dgx-h100.tar.gz" "$T/b"
if [ $rc -eq 0 ] && [ "$(cat "$T/out")" = same ] && [ ! -s "$T/err" ]; then
	ok "two healthy nodes of one kind: exactly \"same\", exit 0"
else
	nok "two healthy nodes of one kind: exactly \"same\", exit 0" "rc=$rc" "$(head -n 20 "$T/out")" "$(cat "$T/err")"
fi
"$bin" --root "$T/b" report all --json > "$T/b.json" 2> /dev/null
run "$A" "$T/b.json"
if [ $rc -eq 0 ] && [ "$(cat "$T/out")" = same ]; then
	ok "a capture against a saved report all --json of the other node: same"
else
	nok "a capture against a saved report all --json of the other node: same" "rc=$rc" "$(head "$T/out")" "$(cat "$T/err")"
fi

# 2. --all: the identifiers come back, so the two nodes differ.
run --all "$A" "$T/b"
if [ $rc -eq 1 ] && grep -Eq '^  mlx5_0 node_guid +b83f:d203:00a4:1c3e +\| ' "$T/out" &&
   grep -Eq '^  host +dgx-h100-demo +\| dgx-h100-b$' "$T/out" && grep -q '^  mlx5_0/1 lid ' "$T/out"; then
	ok "--all shows the GUID, host and LID differences, exit 1"
else
	nok "--all shows the GUID, host and LID differences, exit 1" "rc=$rc" "$(head -n 20 "$T/out")"
fi

# lines: the fact lines of $T/out (indented, not the column header),
# spaces squeezed.
lines() {
	grep -E '^  [^ ]' "$T/out" | sed 's/  */ /g'
}

# 3. One port at 200 instead of 400: its rate (and what follows from it:
#    the line rate, the speed word, the finding), exit 1.
node rate
printf '200 Gb/sec (4X HDR)\n' > "$(hca_file "$T/rate" mlx5_3 ports/1/rate)"
run "$A" "$T/rate"
want=" mlx5_3/1 line_gbps 400 | 200
 mlx5_3/1 rate_gbps 400 | 200
 mlx5_3/1 speed NDR | HDR
 links.rate-degraded mlx5_3/1 - | warning"
if [ $rc -eq 1 ] && [ "$(lines)" = "$want" ]; then
	ok "a port at 200 instead of 400: that port's lines only, exit 1"
else
	nok "a port at 200 instead of 400: that port's lines only, exit 1" "rc=$rc" "$(cat "$T/out")"
fi

# 4. Another firmware on one HCA: that line (and the finding it raises).
node fw
printf '28.40.1000\n' > "$(hca_file "$T/fw" mlx5_5 fw_ver)"
run "$A" "$T/fw"
want=" mlx5_5 fw_ver 28.39.1002 | 28.40.1000
 links.fw-mismatch MT4129 - | warning"
if [ $rc -eq 1 ] && [ "$(lines)" = "$want" ]; then
	ok "another firmware: that line, exit 1"
else
	nok "another firmware: that line, exit 1" "rc=$rc" "$(cat "$T/out")"
fi

# 5. --golden: the reference on the left, named so.
run --golden "$T/fw" "$A"
if [ $rc -eq 1 ] && grep -q '^golden: dgx-h100-b ' "$T/out" && grep -q '^A: dgx-h100-demo ' "$T/out" &&
   grep -Eq '^  mlx5_5 fw_ver +28\.40\.1000 +\| 28\.39\.1002$' "$T/out"; then
	ok "--golden G A: the reference on the left"
else
	nok "--golden G A: the reference on the left" "rc=$rc" "$(head "$T/out")"
fi

# 6. --json: the shape, and every value whole.
if command -v jq > /dev/null; then
	run --json "$A" "$T/fw"
	if [ $rc -eq 1 ] && jq -e '(keys == ["a","b","counters","differences","identity","same"]) and .same == false
	    and .counters == true
	    and .identity == false and .a.host == "dgx-h100-demo" and .b.host == "dgx-h100-b"
	    and .a.kind == "8x NVIDIA H100 80GB HBM3 + 12x MT4129" and .a.golden == false
	    and (.a.source | endswith("dgx-h100")) and .a.how == "collected"
	    and ([.differences[] | select(.section == "hca" and .key == "mlx5_5 fw_ver" and .a == "28.39.1002"
	                                  and .b == "28.40.1000")] | length) == 1
	    and all(.differences[]; keys == ["a","b","identity","key","section"])' "$T/out" > /dev/null; then
		ok "--json: a, b, same, identity, counters, differences [{section, key, a, b}]"
	else
		nok "--json: a, b, same, identity, counters, differences [{section, key, a, b}]" "rc=$rc" "$(head -c 1500 "$T/out")"
	fi
	run --json "$A" "$T/b"
	if [ $rc -eq 0 ] && jq -e '.same == true and .differences == []' "$T/out" > /dev/null; then
		ok "--json of two healthy nodes: same true, no differences, exit 0"
	else
		nok "--json of two healthy nodes: same true, no differences, exit 0" "rc=$rc" "$(head -c 800 "$T/out")"
	fi
	run --json --all "$A" "$T/b"
	if [ $rc -eq 1 ] && jq -e '.identity == true and all(.differences[]; .identity == true)
	    and any(.differences[]; .key == "mlx5_0 node_guid")' "$T/out" > /dev/null; then
		ok "--json --all: only identity facts differ"
	else
		nok "--json --all: only identity facts differ" "rc=$rc" "$(head -c 800 "$T/out")"
	fi

	# 7. A topology cell: GPU0's path to NIC0 crosses the CPUs on B.
	jq '.topology.rows |= map(if .label == "GPU0" then .cells[8] = "SYS"
	                         elif .label == "NIC0" then .cells[0] = "SYS" else . end)' \
		"$T/b.json" > "$T/topo.json"
	run "$A" "$T/topo.json"
	if [ $rc -eq 1 ] && grep -Eq '^  GPU0 NIC0 +PXB +\| SYS$' "$T/out" && grep -q '^topology$' "$T/out" &&
	   ! grep -q 'NIC0 GPU0' "$T/out"; then
		ok "a topology cell that differs: shown once, under topology"
	else
		nok "a topology cell that differs: shown once, under topology" "rc=$rc" "$(cat "$T/out")"
	fi

	# 8. Hostile strings in a saved report: shown escaped, never raw.
	jq '.host = "evil\u001b]0;pwned\u0007\u001b[2J" | .links.hcas[0].fw_ver = "28.39\u001b[31mRED\u009b1m"' \
		"$T/b.json" > "$T/hostile.json"
	run "$T/b.json" "$T/hostile.json"
	if [ $rc -eq 1 ] && ! grep -q "$esc\|$bel" "$T/out" && grep -qF 'evil\x1b]0;pwned\x07\x1b[2J' "$T/out" &&
	   grep -qF '28.39\x1b[31mRED\u009b1m' "$T/out" && ! grep -q "$(printf '\302\233')" "$T/out"; then
		ok "hostile host name and fw_ver: escaped in the text"
	else
		nok "hostile host name and fw_ver: escaped in the text" "rc=$rc" "$(cat -v "$T/out" | head)"
	fi
	run --json "$T/b.json" "$T/hostile.json"
	if [ $rc -eq 1 ] && ! grep -q "$esc" "$T/out" &&
	   jq -e '.b.host == "evil\u001b]0;pwned\u0007\u001b[2J"' "$T/out" > /dev/null; then
		ok "hostile host name: kept whole, JSON-escaped, in --json"
	else
		nok "hostile host name: kept whole, JSON-escaped, in --json" "rc=$rc" "$(head -c 600 "$T/out" | cat -v)"
	fi

	# 9. Width: COLUMNS=60 holds every line; a long value is cut visibly.
	long=$(printf 'x%.0s' $(seq 1 120))
	jq --arg v "28.39.$long" '.links.hcas[2].fw_ver = $v' "$T/b.json" > "$T/long.json"
	COLUMNS=60 "$bin" diff "$T/b.json" "$T/long.json" > "$T/out" 2> "$T/err"
	rc=$?
	wide=$(awk 'length($0) > 60' "$T/out")
	if [ $rc -eq 1 ] && [ -z "$wide" ] && grep -Eq '^  mlx5_2 fw_ver +28\.39\.1002 +\| 28\.39\.x+\.\.\.$' "$T/out" &&
	   grep -q 'cut to fit; --json has it all' "$T/out"; then
		ok "COLUMNS=60: every line fits, the cut value ends in ... and a line says so"
	else
		nok "COLUMNS=60: every line fits, the cut value ends in ... and a line says so" "rc=$rc" "$(cat "$T/out")"
	fi
	"$bin" diff --json "$T/b.json" "$T/long.json" > "$T/out"
	if jq -e --arg v "28.39.$long" '.differences[0].b == $v' "$T/out" > /dev/null; then
		ok "--json keeps the long value whole"
	else
		nok "--json keeps the long value whole" "$(head -c 600 "$T/out")"
	fi
else
	echo "ok - diff --json, topology, hostile and width checks # SKIP jq is not installed (scripts/deps.sh TEST)"
fi

# 10. Counter samples on one side only (a capture with samples against
#     its saved report, which has none): not compared, and stderr says so.
#     Two captures with samples compare them: hang grows where busy is quiet.
"$bin" --root "$scen/hang.tar.gz" report all --json > "$T/hang.json" 2> /dev/null
run "$scen/hang.tar.gz" "$T/hang.json"
if [ $rc -eq 0 ] && [ "$(cat "$T/out")" = same ] &&
   grep -q '^fabtop: diff: only A has counter samples: counters not compared$' "$T/err"; then
	ok "counter samples on one side only: not compared, said on stderr, same"
else
	nok "counter samples on one side only: not compared, said on stderr, same" "rc=$rc" "$(cat "$T/out" "$T/err")"
fi
COLUMNS=120 "$bin" diff "$scen/busy.tar.gz" "$scen/hang.tar.gz" > "$T/out" 2> "$T/err"
rc=$?
if [ $rc -eq 1 ] && grep -Eq '^  mlx5_0/1 +quiet +\| grows: local_ack_timeout_err, packet_seq_err$' "$T/out" &&
   ! grep -Eq '^  mlx5_3/1 +quiet' "$T/out" && [ ! -s "$T/err" ]; then
	ok "counters of two captures with samples: growing on one, quiet on the other; equal ports not shown"
else
	nok "counters of two captures with samples: growing on one, quiet on the other; equal ports not shown" \
		"rc=$rc" "$(cat "$T/out" "$T/err")"
fi

# 11. A capture of this node (its embedded report) against this node: same.
if "$bin" capture -o "$T/self.tar.gz" > /dev/null 2>&1; then
	run --json "$T/self.tar.gz"
	if [ $rc -eq 0 ] && command -v jq > /dev/null &&
	   jq -e '.same == true and .a.how == "embedded" and .b.source == null' "$T/out" > /dev/null; then
		ok "a capture of this node against this node: same, its embedded report read"
	elif [ $rc -eq 0 ] && ! command -v jq > /dev/null; then
		ok "a capture of this node against this node: same"
	else
		nok "a capture of this node against this node: same, its embedded report read" "rc=$rc" \
			"$(head -c 1500 "$T/out")" "$(cat "$T/err")"
	fi
else
	nok "fabtop capture of this node failed" "$("$bin" capture -o "$T/self2.tar.gz" 2>&1 | tail -n 5)"
fi

# 12. A side that cannot be read: exit 2, why on stderr, nothing on stdout.
run "$A" "$T/nosuch.tar.gz"
if [ $rc -eq 2 ] && [ ! -s "$T/out" ] && grep -q "cannot read $T/nosuch.tar.gz: .*No such file" "$T/err"; then
	ok "a missing capture: exit 2, why on stderr, nothing on stdout"
else
	nok "a missing capture: exit 2, why on stderr, nothing on stdout" "rc=$rc" "$(cat "$T/out" "$T/err")"
fi
printf '{"hello": 1}\n' > "$T/notreport.json"
run "$T/notreport.json" "$A"
if [ $rc -eq 2 ] && [ ! -s "$T/out" ] && grep -q "cannot read $T/notreport.json: .*report all --json" "$T/err"; then
	ok "a JSON that is no report: exit 2, why on stderr"
else
	nok "a JSON that is no report: exit 2, why on stderr" "rc=$rc" "$(cat "$T/out" "$T/err")"
fi

# 12b. A side whose verdict is unknown was not seen whole: exit 2, said,
# even when every fact it has matches.
jq '.verdict = "unknown" | .unknown_because = ["cannot read /sys/class/infiniband: Permission denied"]' \
	"$T/b.json" > "$T/unknown.json"
run "$T/b.json" "$T/unknown.json"
if [ $rc -eq 2 ] && grep -q "B's verdict is unknown" "$T/err"; then
	ok "a side whose verdict is unknown: exit 2, not \"same\", and why on stderr"
else
	nok "a side whose verdict is unknown: exit 2" "rc=$rc" "$(cat "$T/out" "$T/err")"
fi

# 13. Usage: nothing to compare, too many inputs, an unknown option.
bad=""
for args in "" "a b c" "--golden g a b" "--bogus a"; do
	# shellcheck disable=SC2086
	"$bin" diff $args > "$T/out" 2> "$T/err"
	rc=$?
	{ [ $rc -eq 2 ] && [ ! -s "$T/out" ] && grep -q '^usage: fabtop diff' "$T/err"; } || bad="$bad [$args] rc=$rc"
done
if [ -z "$bad" ]; then
	ok "usage errors exit 2 with the usage on stderr"
else
	nok "usage errors exit 2 with the usage on stderr" "$bad"
fi

# 14. One capture against this node: the right side is "this node",
#     collected now; a DGX capture is never this test machine.
COLUMNS=200 "$bin" diff "$A" > "$T/out" 2> "$T/err"
rc=$?
if [ $rc -eq 1 ] && grep -q '^this node: ' "$T/out" && grep -Eq '^  gpus +8x NVIDIA H100 80GB HBM3 +\| ' "$T/out"; then
	ok "diff A: against this node, collected now"
elif [ $rc -eq 0 ]; then
	nok "diff A: against this node, collected now" "this machine is the same as the dgx-h100 scenario?"
else
	nok "diff A: against this node, collected now" "rc=$rc" "$(head "$T/out")" "$(cat "$T/err")"
fi
