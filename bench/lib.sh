# bench/lib.sh: what bench/startup, bench/capture and bench/scale share.
# Sourced, not run.  After bench_setup NAME DEFAULT_RUNS "$@":
#   $top   the repository      $bin   the fabtop measured (argument 1, else
#   $BIN, else build/fabtop)   $base  a fabtop to compare with ($BASE, e.g.
#   main before a change; empty: no before/now rows)   $runs  ($RUNS)
#   $tmp   a fresh directory, removed on exit, on tmpfs when /dev/shm allows
#          (sysfs is in memory; a disk would time ext4, not the programs)
# bench_trees KIND... writes $tmp/KIND (bench/mknode.py: the same bytes every
# run) and $tmp/KIND.xml (lstopo's XML of that tree).  A spec for
# bench/pair.py is built with spec_* lines and run by bench_pair.

# hwloc under HWLOC_FSROOT the way fabtop's hwloc collector runs it: without
# the x86 backend, which would read this machine's CPUID into the tree's
# topology (src/collectors/hwloc.c blacklists it too).
LSTOPO_ENV="HWLOC_COMPONENTS=-x86"

bench_setup() {
	bench_name=$1 bench_default_runs=$2
	shift 2
	top=$(cd "$(dirname "$0")/.." && pwd)
	bin=${1:-${BIN:-$top/build/fabtop}}
	base=${BASE:-}
	runs=${RUNS:-$bench_default_runs}
	case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
	case $base in /*|"") ;; *) base=$PWD/$base ;; esac
	for c in python3 lstopo-no-graphics; do
		command -v $c >/dev/null || { echo "$bench_name: $c not installed (scripts/deps.sh bench)"; exit 2; }
	done
	[ -x "$bin" ] || { echo "$bench_name: no fabtop at $bin (run make)"; exit 2; }
	[ -z "$base" ] || [ -x "$base" ] || { echo "$bench_name: BASE=$base is not an executable"; exit 2; }
	d=${BENCH_TMP:-/dev/shm}
	[ -d "$d" ] && [ -w "$d" ] || d=${TMPDIR:-/tmp}
	tmp=$(mktemp -d "$d/fabtop-bench.XXXXXX") || exit 2
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 130' INT TERM HUP
	spec=$tmp/spec
	: > "$spec"
	echo "$bench_name: fabtop $bin${base:+, before: $base}; $runs runs; trees in $tmp"
	echo "  machine: $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(uname -sr); $(lstopo-no-graphics --version)"
}

# Writes the trees, checked by hwloc (mknode.py), and their XML.
bench_trees() {
	python3 "$top/bench/mknode.py" "$tmp" "$@" | sed 's/^/  tree /' || { echo "$bench_name: mknode failed"; exit 2; }
	for k in "$@"; do
		env HWLOC_FSROOT="$tmp/$k" $LSTOPO_ENV lstopo-no-graphics --whole-io --of xml "$tmp/$k.xml" ||
			{ echo "$bench_name: lstopo failed on $tmp/$k"; exit 2; }
	done
}

# bench_capture BIN TREE OUT: the capture that BIN makes of TREE (what
# `fabtop --root OUT` opens); fails the bench when BIN cannot make one.
bench_capture() {
	"$1" --root "$2" capture -o "$3" --force >/dev/null 2>"$tmp/capture.err" || {
		echo "$bench_name: $1 --root $2 capture failed:"; sed 's/^/  /' "$tmp/capture.err"; exit 2; }
}

spec_title() { printf 'title\t%s\n' "$*" >> "$spec"; }
spec_note() { printf 'note\t%s\n' "$*" >> "$spec"; }
# The words, each quoted for pair.py's shlex (paths may hold spaces).
shq() { for a in "$@"; do printf " '%s'" "$(printf %s "$a" | sed "s/'/'\\\\''/g")"; done; }
# spec_cmd NAME WORD... (VAR=value words first)
spec_cmd() { n=$1; shift; printf 'cmd\t%s\t%s\n' "$n" "$(shq "$@")" >> "$spec"; }
spec_tmux() { n=$1 m=$2; shift 2; printf 'tmux\t%s\t%s\t%s\n' "$n" "$m" "$(shq "$@")" >> "$spec"; }
# spec_row FIGURE REFERENCE AIM [cpu|wall]
spec_row() { printf 'row\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-cpu}" >> "$spec"; }
spec_slope() { l=$1 a=$2; shift 2; printf 'slope\t%s\t%s' "$l" "$a" >> "$spec"; printf '\t%s' "$@" >> "$spec"; echo >> "$spec"; }

# Runs the spec, prints its table, and starts a new spec.
bench_pair() {
	python3 "$top/bench/pair.py" "$spec" "$runs" || { echo "$bench_name: pair.py failed"; exit 2; }
	: > "$spec"
}
