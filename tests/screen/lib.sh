# tests/screen/lib.sh - shared by the screen tests: a private tmux server
# and config (the user's tmux and ~/.tmux.conf stay out of it), a temp dir
# removed on exit, and the TAP helpers. Source it with PREFIX set.
T=$(mktemp -d "${TMPDIR:-/tmp}/$PREFIX.XXXXXX") || exit 1
cat > "$T/tmux.conf" <<'EOF'
set -g status off
set -g default-terminal tmux-256color
set -g history-limit 0
EOF
tm() { tmux -S "$T/sock" -f "$T/tmux.conf" "$@"; }
cleanup() { tm kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
[ -n "$UPDATE" ] && mkdir -p "$EXP"

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; }
comment() { sed 's/^/#   /'; }
