#!/bin/sh
# The Help pane's "Counter limits" section: printed from ctr_limits' table
# (src/ctr_limits.c), each limit with its finding id, severity and source.
# A headless dump of the help pane at 100x200 on an empty node root; only
# the section is compared (the rest of the help belongs to the panes).
# UPDATE=1 rewrites tests/screen/expected/help-limits-100.txt.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS NO_COLOR

PREFIX=fabtop-help-limits . "$(dirname "$0")/lib.sh"

mkdir -p "$T/root/sys"
printf 'key ?\ndump-pane %s\nkey q\n' "$T/help.txt" > "$T/help.script"
if headless help 100x200 "$BIN" --root "$T/root"; then
	# From the section's title to the blank line that ends it.
	sed -n '/^Counter limits/,/^$/p' "$T/help.txt" > "$T/limits.txt"
	same "$T/limits.txt" help-limits-100.txt "help pane: the counter limits with their sources"
	# Every row of the table is there: its id once per row.
	n=$(grep -c '^    \(warning\|error\|info\) counters\.' "$T/limits.txt")
	if [ "$n" -eq 15 ]; then
		ok "help pane: all 15 limits listed"
	else
		notok "help pane: all 15 limits listed (saw $n)"
	fi
fi
