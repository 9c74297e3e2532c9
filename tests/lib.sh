# tests/lib.sh - the start the shell tests share. Set NAME (a word for the
# temp folder) and source it:
#   NAME=vf; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
# It gives top (the checkout), bin (the sanitised fabtop, or $FABTOP), a
# private temp folder $T removed on exit, ok/nok that print TAP lines (nok's
# further arguments as indented detail), and need.
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FABTOP:-$top/build/san/fabtop}
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-$NAME.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /' | head -n 20; done; }

# need PATH...: fabtop and each path are there, or a not-ok line says what to
# build and the test ends.
need() {
	for p in "$bin" "$@"; do
		if [ ! -e "$p" ]; then
			nok "needs $p (make tests)"
			exit 0
		fi
	done
}

# class_rename LINK NEW: renames a /sys/class/X/NAME link of a copied root
# and the device directory it points to, so the device is named NEW (any
# bytes: the hostile-name tests).
class_rename() {
	_dir=$(dirname "$1") _tgt=$(readlink "$1")
	_tdir=$(dirname "$_tgt")
	( cd "$_dir" && mv "$_tgt" "$_tdir/$2" && rm "$(basename "$1")" && ln -s "$_tdir/$2" "$2" )
}
