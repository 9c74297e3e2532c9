#!/bin/sh
# The settings file and F2 (config.h, settings.h), under a private
# XDG_CONFIG_HOME so the tester's own settings never count:
#  - headless: F2 lists the settings; Right on theme and pane changes them,
#    s saves the file (exact text) and the status bar says where; the next
#    start opens on the saved pane; Esc puts the old values back and writes
#    nothing; a bad file is said once on the status bar and the console runs
#    on the defaults; a directory others can write is refused in the editor,
#    with the error's mark; NO_COLOR prints the same text, and says so in F2;
#  - tmux (the real terminal): the colours each theme sends: dark has yellow
#    warnings, light none of yellow or cyan (blue titles, brown warnings),
#    mono and NO_COLOR no colour at all; F2 recolours at once and Esc
#    brings the old theme back.
# UPDATE=1 rewrites tests/screen/expected/settings-*.txt; read the result.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
SCEN=$TOP/build/scenarios
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS NO_COLOR LANGUAGE

PREFIX=fabtop-settings . "$(dirname "$0")/lib.sh"

# The dumps name the settings file, under this run's temp dir: masked.
same() {
	sed "s|$T|TMP|g" "$1" > "$1.masked"
	expect_same "$1.masked" "$2" "$3"
}

RF=$SCEN/roce-faults
export XDG_CONFIG_HOME="$T/xdg"
CFG=$XDG_CONFIG_HOME/fabtop/config

if [ ! -f "$RF/fabtop/meta.json" ]; then
	notok "scenario roce-faults is missing (make scenarios)"
	exit 0
fi

# (a) F2 on a node with no settings file: the list, two changes, s.
cat > "$T/edit.script" <<EOF
key F2
dump-pane $T/edit-open.txt
key Down
key Right
key Down
key Right
dump-pane $T/edit-changed.txt
key s
dump $T/edit-saved.txt
key Down
dump $T/edit-after.txt
key q
EOF
if headless edit 80x24 "$BIN" --root "$RF"; then
	same "$T/edit-open.txt" settings-80x24.txt "F2: each setting with its value and what it does"
	has "$T/edit-changed.txt" "F2: Right changes the selected setting (theme light, pane links)" \
		"^  theme     light " "^> pane      links "
	printf '%s\n' "# fabtop settings (F2 in the console edits them; see fabtop(1))" \
		"interval = 1" "theme = light" "pane = links" "mouse = yes" > "$T/want.cfg"
	if cmp -s "$T/want.cfg" "$CFG"; then
		ok "s saves the settings file under XDG_CONFIG_HOME"
	else
		notok "s saves the settings file under XDG_CONFIG_HOME"
		diff -u "$T/want.cfg" "$CFG" 2>&1 | comment
	fi
	mode=$(stat -c %a "$XDG_CONFIG_HOME/fabtop" 2>/dev/null)
	[ "$mode" = 700 ] && ok "the settings directory is made 0700" ||
		notok "the settings directory is made 0700 (mode ${mode:-none})"
	has "$T/edit-saved.txt" "the status bar says where the settings went, the pane is back" \
		"settings saved to $CFG" "^Topology source"
	if ! grep -q "settings saved" "$T/edit-after.txt"; then
		ok "the status bar's note goes after the next key"
	else
		notok "the status bar's note goes after the next key"
	fi
fi

# (b) The next start opens on the saved pane; Esc undoes and saves nothing.
cp "$CFG" "$T/before.cfg"
cat > "$T/esc.script" <<EOF
dump $T/esc-start.txt
key F2
key Right
dump-pane $T/esc-changed.txt
key Esc
key F2
dump-pane $T/esc-again.txt
key Esc
key q
EOF
if headless esc 80x24 "$BIN" --root "$RF"; then
	has "$T/esc-start.txt" "the console opens on the pane the file names (links)" "^  PORT[^ ]* *STATE"
	has "$T/esc-changed.txt" "F2 again: the interval steps up from 1 s to 2 s" "^> interval  2 s "
	has "$T/esc-again.txt" "Esc put the old interval back" "^> interval  1 s " "^  theme     light "
	if cmp -s "$T/before.cfg" "$CFG"; then
		ok "Esc writes nothing"
	else
		notok "Esc writes nothing"
	fi
fi

# (c) A bad file: said once on the status bar, never fatal, defaults kept.
printf 'theme = blue\ncolour = red\npane = counters\n' > "$CFG"
cat > "$T/bad.script" <<EOF
dump $T/bad-start.txt
key 1
dump $T/bad-after.txt
key q
EOF
if headless bad 250x30 "$BIN" --root "$RF"; then
	has "$T/bad-start.txt" "a bad settings file is said on the status bar, with its mark and count" \
		"! settings: $CFG line 1: theme = \"blue\" is not valid (dark, light or mono): the default is kept (and 1 more problem)"
	has "$T/bad-start.txt" "its good lines still count (pane = counters)" "^Counters"
	if ! grep -q "settings:" "$T/bad-after.txt"; then
		ok "the file's problem is said once"
	else
		notok "the file's problem is said once"
	fi
fi

# (d) A FIFO where the file should be: the console starts all the same.
rm -f "$CFG"
mkfifo "$CFG"
printf 'dump %s\nkey q\n' "$T/fifo.txt" > "$T/fifo.script"
if headless fifo 250x30 timeout 60 "$BIN" --root "$RF"; then
	has "$T/fifo.txt" "a FIFO as the settings file is not read (no hang), and said" \
		"is not a regular file: it was not read"
fi
rm -f "$CFG"

# (e) A directory others can write: not saved, said in the editor with the
# error's mark (the same text under NO_COLOR, which F2 names).
chmod 0777 "$XDG_CONFIG_HOME/fabtop"
cat > "$T/open.script" <<EOF
key F2
key s
dump-pane $T/open-dir.txt
key Esc
key q
EOF
if headless open 80x24 "$BIN" --root "$RF"; then
	has "$T/open-dir.txt" "a directory others can write is refused, the editor stays open" \
		"^> interval" "✗ not saved: the directory $XDG_CONFIG_HOME/fabtop belongs"
	[ ! -e "$CFG" ] && ok "nothing was written there" || notok "nothing was written there"
fi
mkdir -p "$T/nc"
NO_COLOR=1 FABTOP_SCRIPT=$T/open.script FABTOP_SCRIPT_SIZE=80x24 "$BIN" --root "$RF" \
	</dev/null >/dev/null 2>&1
if grep -q "✗ not saved" "$T/open-dir.txt" &&
   grep -q "NO_COLOR is set: no colours, whatever the theme." "$T/open-dir.txt"; then
	ok "NO_COLOR: the error keeps its mark, F2 says colours are off"
else
	notok "NO_COLOR: the error keeps its mark, F2 says colours are off"
	comment < "$T/open-dir.txt"
fi
chmod 0700 "$XDG_CONFIG_HOME/fabtop"

# (f) The real terminal: the colours each theme sends (SGR codes, as tmux
# captures them with -e). "fg:3N" is a basic colour, "fg256:N" a 256-colour one.
colours() {
	awk -v E="$(printf '\033')" '
	{
		line = $0
		while (match(line, E "\\[[0-9;]*m")) {
			n = split(substr(line, RSTART + 2, RLENGTH - 3), a, ";")
			for (i = 1; i <= n; i++) {
				if (a[i] ~ /^3[0-7]$/) print "fg:" a[i]
				else if (a[i] ~ /^4[0-7]$/) print "bg:" a[i]
				else if ((a[i] == "38" || a[i] == "48") && a[i + 1] == "5") { print "fg256:" a[i + 2]; i += 2 }
			}
			line = substr(line, RSTART + RLENGTH)
		}
	}' "$1" | sort -u | tr '\n' ' '
}
cap() { tm capture-pane -p -t t 2>/dev/null; }
# run_tmux NAME ENV KEYS...: fabtop in tmux at 80x24 on the Links pane, then
# KEYS; the screen with its escapes in $T/NAME.ansi, its colours in $T/NAME.col.
run_tmux() {
	name=$1 envs=$2
	shift 2
	tm kill-session -t t 2>/dev/null
	tm new-session -d -s t -x 80 -y 24 \
		"env $envs XDG_CONFIG_HOME='$XDG_CONFIG_HOME' '$BIN' --root '$RF' 2>'$T/$name.err'; sleep 30"
	i=0
	while ! cap | grep -q "q:quit" && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
	for k in "$@"; do
		tm send-keys -t t "$k"
		sleep 0.3
	done
	tm capture-pane -p -e -t t > "$T/$name.ansi"
	colours "$T/$name.ansi" > "$T/$name.col"
	tm send-keys -t t q
}
if ! command -v tmux >/dev/null 2>&1; then
	ok "tmux: the themes' colours # SKIP tmux is not installed (scripts/deps.sh check)"
else
	printf 'theme = dark\npane = links\n' > "$CFG"
	run_tmux dark "TERM=tmux-256color"
	printf 'theme = light\npane = links\n' > "$CFG"
	run_tmux light "TERM=tmux-256color"
	printf 'theme = mono\npane = links\n' > "$CFG"
	run_tmux mono "TERM=tmux-256color"
	printf 'theme = dark\npane = links\n' > "$CFG"
	run_tmux nocolor "NO_COLOR=1 TERM=tmux-256color"
	run_tmux f2light "TERM=tmux-256color" F2 Down Right
	run_tmux f2esc "TERM=tmux-256color" F2 Down Right Escape
	dark=$(cat "$T/dark.col") light=$(cat "$T/light.col")
	case " $dark " in
	*" fg:33 "*) ok "dark theme: warnings in yellow ($dark)" ;;
	*) notok "dark theme: warnings in yellow ($dark)" ;;
	esac
	case " $light " in
	*" fg:33 "* | *" fg:36 "* | *" fg256:3 "* | *" fg256:11 "*)
		notok "light theme: no yellow or cyan on a white background ($light)" ;;
	*" fg256:130 "*)
		case " $light " in
		*" fg:31 "*) ok "light theme: no yellow or cyan; red errors, brown warnings ($light)" ;;
		*) notok "light theme: red errors ($light)" ;;
		esac ;;
	*) notok "light theme: brown warnings ($light)" ;;
	esac
	for m in mono nocolor; do
		c=$(cat "$T/$m.col")
		if [ -z "$(echo "$c" | tr -d ' ')" ] && grep -q "mlx5_0/1" "$T/$m.ansi"; then
			ok "$m: no colour at all"
		else
			notok "$m: no colour at all ($c)"
		fi
	done
	if ! grep -q "fg:36" "$T/f2light.col" &&
	   grep -q "fg:34" "$T/f2light.col"; then
		ok "F2: choosing light recolours at once (blue title, no cyan)"
	else
		notok "F2: choosing light recolours at once ($(cat "$T/f2light.col"))"
	fi
	case " $(cat "$T/f2esc.col") " in
	*" fg:33 "*) ok "F2 then Esc: the dark theme is back" ;;
	*) notok "F2 then Esc: the dark theme is back ($(cat "$T/f2esc.col"))" ;;
	esac
fi
