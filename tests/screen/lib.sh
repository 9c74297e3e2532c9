# tests/screen/lib.sh - shared by the screen tests: a private tmux server
# and config (the user's tmux and ~/.tmux.conf stay out of it), a temp dir
# removed on exit, and the TAP helpers. Source it with PREFIX set. The
# server outlives its sessions (exit-empty off) until the cleanup kills
# it: a test that kills its last session and starts the next one at once
# would otherwise reach a server on its way out, and the new session never
# runs (t_settings.sh's mono screen came back empty, about one run in four).
T=$(mktemp -d "${TMPDIR:-/tmp}/$PREFIX.XXXXXX") || exit 1
cat > "$T/tmux.conf" <<'EOF'
set -g status off
set -g default-terminal tmux-256color
set -g history-limit 0
set -g exit-empty off
EOF
tm() { tmux -S "$T/sock" -f "$T/tmux.conf" "$@"; }
cleanup() { tm kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
[ -n "$UPDATE" ] && mkdir -p "$EXP"

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; }
comment() { sed 's/^/#   /'; }

# expect_same DUMP EXPECTED NAME: the dump matches $EXP/EXPECTED (UPDATE=1
# writes it). same is the name the tests call; a test may redefine it (to
# mask what varies) and call expect_same.
expect_same() {
	if [ ! -f "$1" ]; then
		notok "$3: no dump written"
		return 1
	fi
	if [ -n "$UPDATE" ]; then
		cp "$1" "$EXP/$2"
		ok "$3 (wrote expected/$2)"
		return 0
	fi
	if cmp -s "$1" "$EXP/$2"; then
		ok "$3"
	else
		notok "$3"
		diff -u "$EXP/$2" "$1" | head -40 | comment
	fi
}
same() { expect_same "$@"; }

# headless NAME SIZE CMD...: runs CMD with $T/NAME.script as its FABTOP_SCRIPT
# at SIZE ("120x40"), no terminal, output in $T/NAME.out; a TAP line for its
# exit status.
headless() {
	_name=$1 _size=$2
	shift 2
	FABTOP_SCRIPT=$T/$_name.script FABTOP_SCRIPT_SIZE=$_size "$@" </dev/null >"$T/$_name.out" 2>&1
	_rc=$?
	if [ $_rc -eq 0 ]; then
		ok "$_name: FABTOP_SCRIPT run exits 0"
	else
		notok "$_name: FABTOP_SCRIPT run exits 0 (rc $_rc)"
		head -30 "$T/$_name.out" | comment
	fi
	return $_rc
}

# need SCENARIO: a TAP failure (and 1) when the scenario has no samples.
need() {
	[ -f "$SCEN/$1/fabtop/samples.json" ] && return 0
	notok "scenario $1 has no samples (make scenarios)"
	return 1
}

# has FILE TEST PATTERN...: every grep pattern is in the dump.
has() {
	f=$1 name=$2
	shift 2
	for pat in "$@"; do
		if ! grep -q -- "$pat" "$f" 2>/dev/null; then
			notok "$name (no \"$pat\")"
			[ -f "$f" ] && comment < "$f"
			return 1
		fi
	done
	ok "$name"
}
