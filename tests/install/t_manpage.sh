#!/bin/sh
# fabtop(1) and `fabtop --help` document the same commands and options, both
# ways: every subcommand and every option --help lists is in the manual page
# (rendered by man from build/man/fabtop.1), and every subcommand and option
# the page's SYNOPSIS, COMMANDS and OPTIONS name is in --help. And every key
# the console's Help pane lists (a headless dump of it) is in the page's KEYS.
NAME=manpage; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
need "$top/build/man/fabtop.1"
command -v man >/dev/null || { ok "manual page vs --help # SKIP man is not installed (man-db)"; exit 0; }
MANWIDTH=200 man -l "$top/build/man/fabtop.1" 2>/dev/null | sed 's/.\x08//g' >"$T/man.txt"
"$bin" --help >"$T/help.txt" 2>&1

# section NAME: the rendered page's section, heading to the next heading.
section() { awk -v s="$1" '/^[A-Z][A-Z ]*$/ { on = ($0 == s) ; next } on' "$T/man.txt"; }
# Options: --long and -X tokens (not negative numbers, not "-" alone).
opts() { grep -oE '(^|[^A-Za-z0-9_-])(--[a-z][a-z-]*|-[A-Za-z])([^A-Za-z0-9-]|$)' |
	grep -oE -- '--?[A-Za-z][a-z-]*' | sort -u; }
# Commands: the first word after "fabtop" and its global options on a line.
cmds() { sed -nE 's/^(usage: )?[[:space:]]*fabtop((\s+\[[^]]*\])*)\s+([a-z][a-z-]+).*/\4/p' | sort -u; }

opts <"$T/help.txt" >"$T/help.opts"
{ section SYNOPSIS; section OPTIONS; section COMMANDS; } | opts >"$T/man.opts"
cmds <"$T/help.txt" >"$T/help.cmds"
section SYNOPSIS | cmds >"$T/man.cmds"
section COMMANDS | grep -oE '^ {7}[a-z][a-z-]+' | tr -d ' ' | sort -u >"$T/man.cmdsec"

if [ "$(wc -l <"$T/help.cmds")" -ge 8 ] && [ "$(wc -l <"$T/help.opts")" -ge 20 ]; then
	ok "--help names $(wc -l <"$T/help.cmds") commands and $(wc -l <"$T/help.opts") options"
else
	nok "--help is read (commands, options)" "$(cat "$T/help.cmds")"
fi
d=$(comm -23 "$T/help.opts" "$T/man.opts")
[ -z "$d" ] && ok "every option of --help is in fabtop(1)" || nok "options of --help missing from fabtop(1)" "$d"
d=$(comm -13 "$T/help.opts" "$T/man.opts")
[ -z "$d" ] && ok "every option fabtop(1) names is in --help" || nok "options of fabtop(1) missing from --help" "$d"
d=$(comm -23 "$T/help.cmds" "$T/man.cmds")
[ -z "$d" ] && ok "every command of --help is in fabtop(1)'s SYNOPSIS" || nok "commands missing from SYNOPSIS" "$d"
d=$(comm -13 "$T/help.cmds" "$T/man.cmds")
[ -z "$d" ] && ok "every command of fabtop(1)'s SYNOPSIS is in --help" || nok "commands of SYNOPSIS missing from --help" "$d"
d=$(comm -3 "$T/help.cmds" "$T/man.cmdsec")
[ -z "$d" ] && ok "COMMANDS describes each command" || nok "COMMANDS and --help differ" "$d"

# The keys: the Help pane's key column, each name in KEYS.
mkdir -p "$T/root/sys"
printf 'key ?\ndump-pane %s\nkey q\n' "$T/pane.txt" >"$T/keys.script"
FABTOP_SCRIPT=$T/keys.script FABTOP_SCRIPT_SIZE=160x300 "$bin" --root "$T/root" </dev/null >/dev/null 2>&1
awk '/^Keys/ { on = 1; next } on && /^$/ { exit } on' "$T/pane.txt" |
	sed -E 's/^  (([^ ]+ ?)+)  +.*/\1/' |
	sed -E 's# / #\n#g; s# or #\n#g; s#, #\n#g; s# \.\. #\n#g' | sed 's/^ *//; s/ *$//' |
	tr ' ' '\n' | grep -v '^$' | sort -u >"$T/pane.keys"
section KEYS >"$T/man.keys"
missing=""
while read -r k; do
	grep -qF -- "$k" "$T/man.keys" || missing="$missing $k"
done <"$T/pane.keys"
if [ ! -s "$T/pane.keys" ]; then
	nok "the Help pane's keys are read" "$(head -n 20 "$T/pane.txt")"
elif [ -z "$missing" ]; then
	ok "every key of the Help pane ($(wc -l <"$T/pane.keys") names) is in fabtop(1)'s KEYS"
else
	nok "keys of the Help pane missing from fabtop(1)'s KEYS:$missing"
fi
