#!/bin/sh
# Severity is never carried by colour alone (issue 17 §4): with NO_COLOR,
# the Links pane of roce-faults marks a row whose worst finding is an error
# with "✗" ("X" where the locale is not UTF-8) and one whose worst is a
# warning with "!", before the FINDING id; the detail's error counters and
# findings carry the same marks. Prints "ok - name" / "not ok - name" lines.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
SCEN=$TOP/build/scenarios
unset LC_ALL LINES COLUMNS
export NO_COLOR=1
UPDATE=${UPDATE:-}

PREFIX=fabtop-sev . "$(dirname "$0")/lib.sh"

RF=$SCEN/roce-faults
if [ ! -f "$RF/fabtop/meta.json" ]; then
	notok "scenario roce-faults is missing (make scenarios)"
	exit 0
fi

# mlx5_1/1 is down (links.port-down, an error); mlx5_4/1's worst is a
# warning (links.mtu-mismatch); mlx5_0/1's only an info.
for loc in C.UTF-8 C; do
	cat > "$T/m-$loc.script" <<EOS
key 2
dump-pane $T/list-$loc.txt
key q
EOS
	LANG=$loc headless "m-$loc" 100x30 "$BIN" --root "$RF" || continue
	err="✗"
	[ $loc = C ] && err="X"
	has "$T/list-$loc.txt" "NO_COLOR $loc: an error row is marked $err before its finding" \
		"^  mlx5_1/1 .* $err links\.port-down"
	has "$T/list-$loc.txt" "NO_COLOR $loc: a warning row is marked ! before its finding" \
		"^  mlx5_4/1 .* ! links\.mtu-mismatch"
	if grep -q "^> mlx5_0/1 .*[!$err] links\.transport-errors" "$T/list-$loc.txt"; then
		notok "NO_COLOR $loc: an info row carries no mark"
		comment < "$T/list-$loc.txt"
	else
		ok "NO_COLOR $loc: an info row carries no mark"
	fi
done
