#!/bin/sh
# One fact, one answer, over every bundled scenario: for each HCA port the
# state, usable, link layer, rate and saturated counters, and for each GPU
# its closest NIC, as `report all --json`, `report all` and the TUI (Links
# and Topology panes, driven headless) print them (check.py compares).
# A variant of ib-8port with symbol_error pinned at its 16-bit maximum and
# one renamed to a long bonded name keeps the saturated flag and the long
# names in the comparison.
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FABTOP:-$top/build/san/fabtop}
S=${FABTOP_SCENARIOS:-$top/build/scenarios}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM PIPE

if ! command -v python3 >/dev/null; then
	echo "ok - consistency # SKIP python3 is not installed (scripts/deps.sh installs it)"
	exit 0
fi

# Every port and GPU of one root: the three media into $T/NAME/.
compare() {  # NAME ROOT
	name=$1 root=$2 out=$T/$1
	mkdir -p "$out"
	"$bin" --root "$root" report all --json > "$out/all.json" 2> "$out/err"
	"$bin" --root "$root" report all > "$out/all.txt" 2>> "$out/err"
	n=$(python3 -c 'import json,sys; print(sum(len(h["ports"]) for h in json.load(open(sys.argv[1]))["links"]["hcas"]))' "$out/all.json")
	{
		echo "key 2"
		i=0
		while [ "$i" -lt "${n:-0}" ]; do
			echo "dump $out/links-$(printf %03d "$i").txt"
			echo "key Down"
			i=$((i + 1))
		done
		echo "key 1"
		echo "dump $out/topo.txt"
		echo "key q"
	} > "$out/script"
	# UTF-8 as a user's terminal has it: the detail is read right of its "│".
	LANG=C.UTF-8 LC_ALL= FABTOP_SCRIPT="$out/script" FABTOP_SCRIPT_SIZE=240x300 \
		"$bin" --root "$root" 2>> "$out/err"
	python3 "$top/tests/consistency/check.py" "$name" "$out" || cat "$out/err" | sed 's/^/#   /'
}

count=0
for d in "$S"/*/; do
	[ -f "$d/fabtop/meta.json" ] || continue
	compare "$(basename "$d")" "$d"
	count=$((count + 1))
done
[ "$count" -gt 0 ] && echo "ok - $count scenarios compared" || echo "not ok - no scenario found under $S"

# The variant: saturated counters and long names.
cp -a "$S/ib-8port" "$T/v"
P=$T/v/sys/class/infiniband/mlx5_0/ports/1/counters
printf '65535\n' > "$P/symbol_error"
printf '255\n' > "$T/v/sys/class/infiniband/mlx5_3/ports/1/counters/link_downed"
mv "$T/v/sys/class/infiniband/mlx5_7" "$T/v/sys/class/infiniband/mlx5_bond_0"
printf 'mlx5_bond_0\n' > "$T/v/sys/class/infiniband_verbs/uverbs7/ibdev"
compare ib-8port-variant "$T/v"
if grep -q 'mlx5_bond_0/1' "$T/ib-8port-variant/all.txt" &&
   grep -q 'symbol_error=65535 PINNED' "$T/ib-8port-variant/all.txt"; then
	echo "ok - the variant has a pinned counter and a long name to compare"
else
	echo "not ok - the variant has a pinned counter and a long name to compare"
fi
