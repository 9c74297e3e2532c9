#!/bin/sh
# The sampler within the open-file limit (issue 18): a node of 64 ports
# (tests/counters/mkports.py, laid out as the kernel does) holds 1408
# counter files; under `prlimit --nofile=200:200` the sampler keeps what
# the limit allows and reads the rest by open/read/close each step. Every
# port is sampled: `report metrics` prints every counter with the value of
# the unlimited run, and `report counters` ends as the unlimited run does,
# saying how many files were read by path. A counter file the node
# refuses alone (EACCES, a link out of the root) is that counter's
# UNREADABLE and the verdict is as before; a counter gone by path is its
# port gone. When fabtop's own limit defeats even open/read/close (EMFILE),
# or no counter of a port can be read at all, or its counter folders
# cannot be listed, the port is not sampled and the run is unknown (exit
# 2), never healthy.
# Needs $FABTOP (the sanitized binary) and $FABTOP_TOP (the repository).
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FABTOP:-$top/build/san/fabtop}
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-nofile.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /' | head -n 15; done; }

if ! command -v prlimit >/dev/null; then
	echo "ok - sampler within the file limit # SKIP prlimit is not installed"
	exit 0
fi
python3 "$top/tests/counters/mkports.py" "$T/n64" 64 || { nok "mkports.py"; exit 0; }
ctrs=$(find "$T/n64/sys/devices" -path '*counters/*' ! -name lifespan -type f | wc -l)

# run NAME LIMIT ARGS...: stdout to NAME.out, stderr to NAME.err, status in $rc.
run() {
	n=$1 lim=$2; shift 2
	if [ "$lim" = none ]; then
		"$bin" "$@" > "$T/$n.out" 2> "$T/$n.err"
	else
		prlimit --nofile="$lim:$lim" "$bin" "$@" > "$T/$n.out" 2> "$T/$n.err"
	fi
	rc=$?
	if grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error' "$T/$n.err"; then
		rc="$rc with a sanitizer report"
	fi
}

# Every counter value, as the metrics print them (one reading each).
run mfull none --root "$T/n64" report metrics
grep -E '^fabtop_port_' "$T/mfull.out" | sort > "$T/mfull.vals"
run mlow 200 --root "$T/n64" report metrics
grep -E '^fabtop_port_' "$T/mlow.out" | sort > "$T/mlow.vals"
n=$(grep -c 'counter="' "$T/mfull.vals")
if [ "$n" -ge "$ctrs" ] && cmp -s "$T/mfull.vals" "$T/mlow.vals"; then
	ok "report metrics under nofile 200: all $ctrs counter files of 64 ports, the values of the unlimited run"
else
	nok "report metrics under nofile 200: every counter, as unlimited" "$n series for $ctrs files; rc $rc" \
		"$(diff "$T/mfull.vals" "$T/mlow.vals" | head -8)" "$(tail -3 "$T/mlow.err")"
fi
grep -q '^fabtop_verdict{verdict="ok"} 1' "$T/mlow.out" &&
	grep -q '^# fabtop: counters: [0-9]* counter file(s) past the open-file limit (ulimit -n 200) are read by open/read/close' "$T/mlow.out" &&
	ok "report metrics under nofile 200: verdict ok, and says how many files are read by path" ||
	nok "report metrics under nofile 200: verdict ok, and says how many files are read by path" \
		"$(grep -e verdict -e '# fabtop: counters' "$T/mlow.out")"

# report counters: the same answer, every port sampled.
run cfull none --root "$T/n64" report counters --count 2 --interval 0.2 --json
full_rc=$rc
run clow 200 --root "$T/n64" report counters --count 2 --interval 0.2 --json
if [ "$rc" = "$full_rc" ] && [ "$rc" = 0 ] && python3 - "$T/cfull.out" "$T/clow.out" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ca, cb = a["summary"]["coverage"], b["summary"]["coverage"]
assert ca["ports"] == cb["ports"] == 64, (ca, cb)
assert ca["unsampled_ports"] == cb["unsampled_ports"] == 0, (ca, cb)
assert ca["by_path"] == 0 and cb["by_path"] > 0 and cb["nofile"] == 200, (ca, cb)
for k in ("bad_grew", "exit"):
    assert a["summary"].get(k) == b["summary"].get(k), k
strip = lambda d: [[(c["name"], c.get("delta")) for c in s["counters"]] for s in d["samples"]]
assert strip(a) == strip(b), "samples differ"
PY
then
	ok "report counters --json under nofile 200: every one of 64 ports sampled, the unlimited run's answer (exit $rc)"
else
	nok "report counters --json under nofile 200: every port sampled, as unlimited" "rc $rc (unlimited $full_rc)" \
		"$(tail -3 "$T/clow.err")" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"].get("coverage"))' "$T/clow.out" 2>&1)"
fi
run ctext 200 --root "$T/n64" report counters --count 1 --interval 0.2
[ "$rc" = 0 ] && grep -q "coverage: .* read by open/read/close each step: every port is sampled" "$T/ctext.out" &&
	grep -q "^verdict: healthy" "$T/ctext.out" &&
	ok "report counters under nofile 200: says the files read by path, healthy (exit 0)" ||
	nok "report counters under nofile 200: says the files read by path, healthy" "rc $rc" "$(tail -3 "$T/ctext.out")"

# A counter file read by path (the last port's, past the budget) becomes
# a link out of the root mid-run: that counter alone is UNREADABLE, as a
# kept one the node refuses always was; every port is still sampled and
# the verdict is the one before (healthy, exit 0).
f=$(find "$T/n64/sys/devices" -path '*mlx5_63/ports/1/counters/port_rcv_errors')
( sleep 1.2; rm -f "$f"; ln -s /etc/hostname "$f" ) &
writer=$!
run clink 200 --root "$T/n64" report counters --count 3 --interval 0.8
wait "$writer"
if [ "$rc" = 0 ] && grep -q "mlx5_63/1  counters/port_rcv_errors .* UNREADABLE" "$T/clink.out" &&
	grep -q "coverage: .* every port is sampled" "$T/clink.out" &&
	! grep -q "not sampled" "$T/clink.out" && grep -q "^verdict: healthy" "$T/clink.out"; then
	ok "a by-path counter file turned into a link out of the root mid-run: that counter UNREADABLE, every port sampled, healthy (exit 0)"
else
	nok "a by-path counter file turned into a link out of the root mid-run: that counter UNREADABLE, healthy (exit 0)" "rc $rc" \
		"$(grep -e UNREADABLE -e coverage -e verdict "$T/clink.out" | head -5)" "$(tail -3 "$T/clink.err")"
fi
rm -f "$f"; echo 0 > "$f"

# The by-path read finds its file gone (the port's counters went between
# the port's stat and the read, as when a VF is removed): the port is gone,
# as a kept fd's ENODEV says; not "not sampled", not unknown.
d=$(dirname "$f"); cp -a "$d" "$T/counters.save"
( sleep 1.2; rm -rf "$d" ) &
writer=$!
run cgone 200 --root "$T/n64" report counters --count 3 --interval 0.8
wait "$writer"
if [ "$rc" = 0 ] && grep -q "mlx5_63/1  counters/port_rcv_errors .* GONE" "$T/cgone.out" &&
	! grep -q "not sampled" "$T/cgone.out" && grep -q "^verdict: healthy" "$T/cgone.out"; then
	ok "a by-path counter file gone mid-run: its port gone (GONE), every port sampled, healthy (exit 0)"
else
	nok "a by-path counter file gone mid-run: its port gone, healthy (exit 0)" "rc $rc" \
		"$(grep -e GONE -e coverage -e verdict "$T/cgone.out" | head -5)" "$(tail -3 "$T/cgone.err")"
fi
rm -rf "$d"; cp -a "$T/counters.save" "$d"

# fabtop's own limit: mid-run the open-file limit falls under the fds the
# sampler keeps (prlimit --pid; after sampler_open has listed every port),
# so every open/read/close of a counter past
# the budget fails with EMFILE. Those ports are not sampled: unknown, exit 2.
prlimit --nofile=200:200 "$bin" --root "$T/n64" report counters --count 3 --interval 0.8 \
	> "$T/cemfile.out" 2> "$T/cemfile.err" &
pid=$!
i=0
while [ $i -lt 200 ] && [ "$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)" -lt 150 ]; do
	sleep 0.05; i=$((i + 1))
done
sleep 0.3   # the rest of the 1408 files: by path, opened and closed once
prlimit --pid "$pid" --nofile=100:100
wait "$pid"
rc=$?
grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error' "$T/cemfile.err" &&
	rc="$rc with a sanitizer report"
if [ "$rc" = 2 ] && grep -q "coverage: [0-9]* of 64 port(s) not sampled: [0-9]* counter file(s) could not be opened even one at a time, the open-file limit (ulimit -n 200) is reached" "$T/cemfile.out" &&
	grep -q "^verdict: unknown: [0-9]* port(s) not sampled" "$T/cemfile.out"; then
	ok "the open-file limit lowered mid-run under the kept fds: by-path reads fail with EMFILE, ports not sampled, unknown (exit 2)"
else
	nok "the open-file limit lowered mid-run: EMFILE, ports not sampled, unknown (exit 2)" "rc $rc" \
		"$(grep -e coverage -e verdict "$T/cemfile.out")" "$(tail -3 "$T/cemfile.err")"
fi

# A counter file the node refuses (recorded EACCES, as in a pod): that
# counter is UNREADABLE and the verdict is the one before this issue (ok).
mkdir -p "$T/n64/fabtop"
printf '/sys/class/infiniband/mlx5_5/ports/1/counters/port_rcv_errors\t13\n' > "$T/n64/fabtop/unreadable.tsv"
run mfail 200 --root "$T/n64" report metrics
grep -q '^fabtop_verdict{verdict="ok"} 1' "$T/mfail.out" && ! grep -q 'not sampled' "$T/mfail.out" &&
	grep -q '^# fabtop: cannot read /sys/class/infiniband/mlx5_5/ports/1/counters/port_rcv_errors: Permission denied' "$T/mfail.out" &&
	ok "report metrics with one counter file refused (EACCES): said, every port sampled, verdict ok as before" ||
	nok "report metrics with one counter file refused (EACCES): verdict ok as before" "$(grep -e verdict -e 'not sampled' -e 'cannot read' "$T/mfail.out")"

# Every counter file of one port refused: not one reading of that port, so
# it is not sampled and the run cannot be called healthy: unknown, exit 2.
( cd "$T/n64" && for x in sys/class/infiniband/mlx5_5/ports/1/counters/* \
		sys/class/infiniband/mlx5_5/ports/1/hw_counters/*; do
	[ "${x##*/}" = lifespan ] || printf '/%s\t13\n' "$x"
done ) > "$T/n64/fabtop/unreadable.tsv"
nport=$(wc -l < "$T/n64/fabtop/unreadable.tsv")
run mport none --root "$T/n64" report metrics
mrc=$rc
run cport none --root "$T/n64" report counters --count 1 --interval 0.2
if [ "$mrc" = 2 ] && grep -q '^fabtop_verdict{verdict="unknown"} 1' "$T/mport.out" &&
	grep -q "^# fabtop:   1 of 64 port(s) not sampled: $nport counter file(s) could not be read (Permission denied)" "$T/mport.out" &&
	[ "$rc" = 2 ] && grep -q "coverage: 1 of 64 port(s) not sampled: $nport counter file(s) could not be read (Permission denied)" "$T/cport.out" &&
	grep -q "^verdict: unknown: 1 port(s) not sampled" "$T/cport.out"; then
	ok "every counter file of a port refused: that port not sampled, report metrics and report counters unknown (exit 2)"
else
	nok "every counter file of a port refused: that port not sampled, unknown (exit 2)" "metrics rc $mrc, counters rc $rc" \
		"$(grep -e verdict -e 'not sampled' "$T/mport.out")" "$(grep -e coverage -e verdict "$T/cport.out")"
fi

# Both counter folders of a port refused (the listing fails, EACCES; under
# the file limit it would be EMFILE): the port is not silently left out of
# the sampler, it is a port not sampled, and the run is unknown (exit 2).
printf '/sys/class/infiniband/mlx5_5/ports/1/counters\t13\n/sys/class/infiniband/mlx5_5/ports/1/hw_counters\t13\n' \
	> "$T/n64/fabtop/unreadable.tsv"
run mdir none --root "$T/n64" report metrics
mrc=$rc
run cdir none --root "$T/n64" report counters --count 1 --interval 0.2
if [ "$mrc" = 2 ] && grep -q '^fabtop_verdict{verdict="unknown"} 1' "$T/mdir.out" &&
	grep -q "^# fabtop:   1 of 64 port(s) not sampled: 1 counter file(s) could not be read (Permission denied)" "$T/mdir.out" &&
	[ "$rc" = 2 ] && grep -q "^verdict: unknown: 1 port(s) not sampled" "$T/cdir.out"; then
	ok "a port's counter folders refused (not listed): that port not sampled, not left out; unknown (exit 2)"
else
	nok "a port's counter folders refused (not listed): that port not sampled, unknown (exit 2)" "metrics rc $mrc, counters rc $rc" \
		"$(grep -e verdict -e 'not sampled' "$T/mdir.out")" "$(grep -e coverage -e verdict "$T/cdir.out")"
fi
exit 0
