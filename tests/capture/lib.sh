# tests/capture/lib.sh - the TAP helpers the capture tests share. Source it.
ok() { echo "ok - $1"; }
# notok NAME [FILE...]: the failure, and the last lines of each FILE as comments.
notok() {
	echo "not ok - $1"
	shift
	for f in "$@"; do [ -f "$f" ] && sed 's/^/#   /' "$f" | tail -n 20; done
}
# asan FILE: true when FILE shows a sanitizer report.
asan() { grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error:' "$1"; }
