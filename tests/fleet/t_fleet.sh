#!/bin/sh
# `fabtop fleet` over the bundled dgx-h100 scenario as 20 healthy nodes
# (its tarball, capture directory copies with their own host names and
# GUIDs, and saved `report all --json` outputs), then one copy whose
# mlx5_3 port runs at 200 instead of 400: that node is named odd with the
# fact, exit 1; a garbage file is a row with verdict unknown and exit 2;
# the JSON's shape; a directory argument lists the captures inside without
# following a link out; a hostile host name is shown sanitised.
NAME=fleet; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
S=$top/build/scenarios
need "$S/dgx-h100.tar.gz" "$S/dgx-h100" "$S/hang.tar.gz"
if ! command -v jq >/dev/null; then
	echo "ok - fabtop fleet # SKIP jq is not installed (scripts/deps.sh lists it)"; exit 0
fi

# A capture directory copy with its own identity: hard links (cheap), and
# the files that name the node replaced by new files, never written
# through to the scenario. No embedded report: it is collected from these.
mkcopy() { # DIR HOST GUIDTAIL
	cp -al "$S/dgx-h100" "$1" || cp -a "$S/dgx-h100" "$1" || return 1
	rm -f "$1/fabtop/report.json" "$1/proc/sys/kernel/hostname" "$1/fabtop/meta.json"
	printf '%s\n' "$2" > "$1/proc/sys/kernel/hostname"
	jq --arg h "$2" '.host = $h' "$S/dgx-h100/fabtop/meta.json" > "$1/fabtop/meta.json" || return 1
	find "$1/sys/devices" -path '*/infiniband/*/node_guid' | while read -r g; do
		v=$(cat "$g"); rm -f "$g"; printf '%s\n' "${v%????}$3" > "$g"
	done
}
# set_rate DIR DEV RATE: the port's rate file, replaced.
set_rate() {
	f=$(find "$1/sys/devices" -path "*/infiniband/$2/ports/1/rate")
	[ -n "$f" ] || return 1
	rm -f "$f"; printf '%s\n' "$3" > "$f"
}

mkdir -p "$T/reports" "$T/caps"
"$bin" --root "$S/dgx-h100.tar.gz" report all --json > "$T/base.json" 2>"$T/err"
if ! jq -e '.verdict == "ok"' "$T/base.json" >/dev/null; then
	nok "the dgx-h100 scenario reports ok" "$(cat "$T/err")"; exit 0
fi
# 16 saved reports with their own host names and GUIDs.
i=1
while [ $i -le 16 ]; do
	n=$(printf 'rep%02d' $i)
	jq --arg h "$n" --arg g "$(printf '%04x' $i)" \
		'.host = $h | (.nics[].node_guid, .links.hcas[].node_guid) |= (.[:-4] + $g)' \
		"$T/base.json" > "$T/reports/$n.json"
	i=$((i + 1))
done
for n in 1 2 3; do
	mkcopy "$T/caps/cap0$n" "cap0$n" "aa0$n" || { nok "copy the scenario"; exit 0; }
done
healthy="$T/reports $T/caps/cap01 $T/caps/cap02 $T/caps/cap03 $S/dgx-h100.tar.gz"

# 1. Twenty alike: no odd node, exit 0.
"$bin" fleet --batch $healthy > "$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && head -n 1 "$T/out" | grep -q '^Fleet: 20 nodes, 1 kind; no odd node' &&
   [ "$(grep -c '  ok  ' "$T/out")" -eq 20 ]; then
	ok "20 healthy nodes of one kind: no odd node, exit 0"
else
	nok "20 healthy nodes of one kind: no odd node, exit 0 (exit $rc)" "$(head -n 30 "$T/out")" "$(cat "$T/err")"
fi

# 2. One copy's mlx5_3 port at 200 instead of 400: named first, exit 1.
mkcopy "$T/caps/odd" "odd-node" "bb01" && set_rate "$T/caps/odd" mlx5_3 "200 Gb/sec (4X HDR)" ||
	{ nok "make the odd copy"; exit 0; }
"$bin" fleet --batch $healthy "$T/caps/odd" > "$T/out" 2>"$T/err"; rc=$?
first=$(head -n 1 "$T/out")
case $first in
"Fleet: 21 nodes, 1 kind; 1 odd: odd-node (port mlx5_3/1"*)
	if [ $rc -eq 1 ]; then ok "the odd node is named on the first line, exit 1"
	else nok "the odd node is named on the first line, exit 1 (exit $rc)" "$first"; fi ;;
*)	nok "the odd node is named on the first line, exit 1 (exit $rc)" "$first" "$(cat "$T/err")" ;;
esac
"$bin" fleet --json $healthy "$T/caps/odd" > "$T/json" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && jq -e '
	.summary.odd_nodes == ["odd-node"] and
	([.nodes[] | select(.host != "odd-node") | .odd | length] | add) == 0 and
	(.nodes[] | select(.host == "odd-node") | .odd |
	 any(.section == "port" and (.key | test("^mlx5_3/1 rate")) and .value == "200" and
	     .majority == "400" and .agree == 20 and .of == 21))' "$T/json" >/dev/null; then
	ok "--json: odd-node alone is odd, its mlx5_3/1 rate 200 against 400 on 20 of 21"
else
	nok "--json: odd-node alone is odd, its mlx5_3/1 rate 200 against 400 on 20 of 21 (exit $rc)" \
		"$(jq -c '.summary, [.nodes[] | select(.odd | length > 0) | {host, odd: [.odd[] | [.section, .key, .value, .majority]]}]' "$T/json" 2>&1 | head -c 2000)"
fi

# 3. The JSON's shape: summary, a row per node with every field, kinds.
if jq -e '
	(keys == ["kinds", "nodes", "summary"]) and
	.summary.nodes == 21 and .summary.kinds == 1 and .summary.exit == 1 and
	(.nodes | length) == 21 and
	all(.nodes[]; has("host", "path", "kind", "verdict", "error", "findings", "ports", "slowest",
			  "firmware", "env", "topology_fp", "odd")) and
	all(.nodes[]; .ports.expected == 12 and .ports.up == 12 and .firmware == "28.39.1002" and
		      (.topology_fp | test("^[0-9a-f]{8}$"))) and
	([.nodes[].topology_fp] | unique | length) == 1 and
	(.kinds[0] | .nodes == 21 and .compared == true and .odd_nodes == 1)' "$T/json" >/dev/null; then
	ok "--json: summary, 21 rows with every field, one kind"
else
	nok "--json: summary, 21 rows with every field, one kind" \
		"$(jq -c '{k: keys, s: .summary, n0: .nodes[0], kinds: [.kinds[] | del(.no_majority)]}' "$T/json" 2>&1 | head -c 2000)"
fi

# 3b. A node whose last HCA fell off the bus is still of the kind (the kind
# is the models, not their counts), and its HCA count sets it apart.
jq '.host = "lost-hca" | .links.hcas |= .[:-1] | .nics |= .[:-1]' "$T/base.json" > "$T/lost.json"
"$bin" fleet --json $healthy "$T/lost.json" > "$T/json" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && jq -e '.summary.odd_nodes == ["lost-hca"] and (.kinds | length) == 1 and
	any(.nodes[] | select(.host == "lost-hca") | .odd[];
	    .section == "node" and .key == "hcas" and .value == "11x MT4129" and .majority == "12x MT4129")' \
	"$T/json" >/dev/null; then
	ok "a node that lost an HCA is odd within its kind (11x against 12x), exit 1"
else
	nok "a node that lost an HCA is odd within its kind (exit $rc)" \
		"$(jq -c '.summary, [.kinds[] | .kind], [.nodes[] | select(.host == "lost-hca") | .odd[0:3]]' "$T/json" 2>&1 | head -c 1500)"
fi

# 3c. A port whose state could not be read is neither up nor down.
jq '.host = "unread-port" | .links.hcas[0].ports[0].active = null | .links.hcas[0].ports[0].state = null' \
	"$T/base.json" > "$T/unread.json"
"$bin" fleet --json "$T/unread.json" > "$T/json" 2>"$T/err"
"$bin" fleet --batch "$T/unread.json" > "$T/out" 2>>"$T/err"
if jq -e '.nodes[0].ports == {"up": 11, "expected": 12, "unknown": 1}' "$T/json" >/dev/null &&
   grep -Eq '^unread-port .* 11/12 1\? ' "$T/out"; then
	ok "a port whose state could not be read: 11 up of 12, 1 unknown (not down)"
else
	nok "a port whose state could not be read counted apart" "$(jq -c '.nodes[0].ports' "$T/json" 2>&1)" \
		"$(grep unread-port "$T/out")"
fi

# 4. A garbage file: its row says unknown, the others are still shown, exit 2.
printf 'garbage\n' > "$T/garbage.json"
"$bin" fleet --batch $healthy "$T/caps/odd" "$T/garbage.json" > "$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && grep -q '^garbage.json  *unknown' "$T/out" &&
   [ "$(grep -cE '^(rep[0-9]+|cap0[0-9]|dgx-h100-demo|odd-node) ' "$T/out")" -eq 21 ] &&
   grep -q 'garbage.json' "$T/err"; then
	ok "a garbage file is a row with verdict unknown, the 21 others shown, exit 2"
else
	nok "a garbage file is a row with verdict unknown, the 21 others shown, exit 2 (exit $rc)" \
		"$(grep -A 30 '^Nodes' "$T/out")" "$(cat "$T/err")"
fi

# 5. A directory argument: the reports inside, in name order; a link out
# of it (to a report, to a directory of them) is not followed.
mkdir -p "$T/d" "$T/outside/more"
cp "$T/reports/rep01.json" "$T/reports/rep02.json" "$T/reports/rep03.json" "$T/d/"
jq '.host = "outside-node"' "$T/base.json" > "$T/outside/x.json"
cp "$T/outside/x.json" "$T/outside/more/y.json"
ln -s "$T/outside/x.json" "$T/d/link.json"
ln -s "$T/outside/more" "$T/d/linkdir"
"$bin" fleet --json "$T/d" > "$T/json" 2>"$T/err"; rc=$?
if jq -e '[.nodes[] | select(.error == null) | .host] == ["rep01", "rep02", "rep03"]' "$T/json" >/dev/null &&
   ! grep -q 'outside-node' "$T/json"; then
	ok "a directory lists the reports inside; links out of it are not followed"
else
	nok "a directory lists the reports inside; links out of it are not followed (exit $rc)" \
		"$(jq -c '[.nodes[] | {host, path, error}]' "$T/json" 2>&1)" "$(cat "$T/err")"
fi

# 6. A hostile host name: no escape reaches the terminal, no forged row.
jq '.host = "evil\u001b]0;pwned\u0007\nforged  ok  0  0  0"' "$T/base.json" > "$T/d/evil.json"
rm -f "$T/d/link.json" "$T/d/linkdir"
"$bin" fleet --batch "$T/d" > "$T/out" 2>"$T/err"; rc=$?
esc=$(printf '\033')
if ! grep -q "$esc" "$T/out" && ! grep -q '^forged' "$T/out" && grep -qF 'evil\x1b]0;pwned\x07\nforged' "$T/out"; then
	ok "a hostile host name is shown escaped, on its own row"
else
	nok "a hostile host name is shown escaped, on its own row (exit $rc)" "$(cat -v "$T/out" | head -n 20)"
fi
"$bin" fleet --json "$T/d" > "$T/json" 2>"$T/err"
if jq -e 'any(.nodes[]; .host == "evil\u001b]0;pwned\u0007\nforged  ok  0  0  0")' "$T/json" >/dev/null; then
	ok "--json keeps the hostile host name as it is, escaped by JSON"
else
	nok "--json keeps the hostile host name as it is, escaped by JSON" "$(head -c 600 "$T/json")"
fi

# 7. A kind of two nodes has no majority to compare against, and says so.
# pcie-2numa: A100s and MT4125s, another kind than the dgx-h100 copies.
cp "$S/pcie-2numa.tar.gz" "$T/h1.tar.gz"; cp "$S/pcie-2numa.tar.gz" "$T/h2.tar.gz"
"$bin" fleet --batch "$T/reports/rep01.json" "$T/reports/rep02.json" "$T/reports/rep03.json" \
	"$T/h1.tar.gz" "$T/h2.tar.gz" > "$T/out" 2>"$T/err"; rc=$?
if grep -q ': 2 nodes: no majority to compare against' "$T/out" && grep -q '2 kinds' "$T/out" && [ $rc -eq 1 ]; then
	ok "a kind of 2 nodes: no majority to compare against (exit 1: pcie-2numa has warnings)"
else
	nok "a kind of 2 nodes: no majority to compare against (exit $rc)" "$(cat "$T/out")" "$(cat "$T/err")"
fi

# 8. Usage: nothing to read, or an unknown option, is exit 2.
"$bin" fleet > "$T/out" 2>"$T/err"; rc1=$?
"$bin" fleet --bogus "$T/d" > "$T/out" 2>>"$T/err"; rc2=$?
"$bin" fleet "$T/empty-missing-dir/" > "$T/out" 2>>"$T/err"; rc3=$?
if [ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 2 ] && grep -q 'usage: fabtop fleet' "$T/err"; then
	ok "fleet without captures or with an unknown option: usage, exit 2"
else
	nok "fleet without captures or with an unknown option: usage, exit 2 ($rc1 $rc2 $rc3)" "$(cat "$T/err")"
fi
