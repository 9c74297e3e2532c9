#!/bin/sh
# `fabtop report job` against the stand-in RAS server (tests/ras/ras_server.c,
# speaking NCCL's protocol byte for byte as 2.26.2, 2.28.9 and 2.29.7 do):
# every verdict and its exit status, the lagging ranks named with host, pid
# and GPU, the pace the server sees (it logs every command with its time),
# and that nothing at all is sent where the rules say not to ask.
NAME=ras-job; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
srv=$top/build/tests/ras_server
need "$srv"
command -v python3 >/dev/null || { echo "ok - report job # SKIP python3 is not installed"; exit 0; }

pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$T"' EXIT

# start SCENARIO VERSION NAME [extra...]: a server; its port in $port, its log $T/NAME.log
start() {
	sc=$1 ver=$2 nm=$3
	shift 3
	rm -f "$T/$nm.port"
	"$srv" --scenario "$sc" --version "$ver" --port 0 --port-file "$T/$nm.port" --log "$T/$nm.log" "$@" \
		>"$T/$nm.srv.out" 2>&1 &
	pids="$pids $!"
	i=0
	while [ ! -s "$T/$nm.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	port=$(cat "$T/$nm.port" 2>/dev/null)
}

# job NAME ARGS...: report job --json into $T/NAME.json, exit status in $rc.
# With --ras the node is a capture without processes (dgx-h100), so that
# NCCL processes of other tests running on this machine, whose age the gate
# also honours, cannot hold the query back.
job() {
	nm=$1
	shift
	"$bin" report job --json "$@" >"$T/$nm.json" 2>"$T/$nm.err"
	rc=$?
}
scen=$top/build/scenarios/dgx-h100

# field NAME EXPR: a Python expression over the document d
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$T/$1.json" 2>&1; }

statuses() { grep -c ' STATUS$' "$T/$1.log" 2>/dev/null; }

# verdict NAME SCENARIO VERSION WINDOW WANT EXIT: one server, one report
verdict() {
	nm=$1 sc=$2 ver=$3 win=$4 want=$5 wexit=$6
	start "$sc" "$ver" "$nm"
	job "$nm" --root "$scen" --ras "127.0.0.1:$port" --window "$win"
	got=$(field "$nm" 'd["verdict"]')
	if [ "$got" = "$want" ] && [ "$rc" = "$wexit" ]; then
		ok "$sc ($ver): $want, exit $wexit"
	else
		nok "$sc ($ver): $want, exit $wexit" "got $got, exit $rc" "$(cat "$T/$nm.json" "$T/$nm.err")"
	fi
}

verdict healthy healthy 2.28.9 2 job-ok 0
verdict stuck stuck 2.28.9 2 job-stuck 1
verdict dead dead 2.28.9 2 job-dead-ranks 1
verdict init init 2.28.9 2 job-init 1
verdict moving moving-mismatch 2.29.7 2 job-ok 0
verdict oldmoving moving-mismatch 2.26.2 2 job-ok 0
verdict oldstuck stuck 2.26.2 2 job-stuck 1
verdict oldhealthy healthy 2.26.2 2 job-unknown 2
verdict garbage garbage 2.28.9 2 ras-unavailable 2
verdict closes close-after-handshake 2.28.9 2 ras-unavailable 2

# The stuck job names ranks 5 and 6 (10.0.0.2, pids 5002 and 5003, GPUs 1
# and 2 as the server's job places them), with the command for that node.
lag=$(field stuck '" ".join("%s/%s/%s/%s" % (l["rank"], l["host"], l["pid"], l["gpu"]) for l in d["lagging"])')
if [ "$lag" = "5/10.0.0.2/5002/1 6/10.0.0.2/5003/2" ]; then
	ok "stuck: the lagging ranks are named with host, pid and GPU"
else
	nok "stuck: the lagging ranks are named with host, pid and GPU" "got: $lag"
fi
nx=$(field stuck 'd["lagging"][0]["next"]')
case $nx in
"ssh 10.0.0.2 fabtop report job --json") ok "stuck: the next command runs fabtop on the lagging rank's node" ;;
*) nok "stuck: the next command runs fabtop on the lagging rank's node" "got: $nx" ;;
esac
# Text and JSON print the same verdict.
"$bin" --root "$scen" report job --ras "127.0.0.1:$(cat "$T/stuck.port")" --window 1 >"$T/stuck.txt" 2>&1
if grep -q '^Job: job-stuck' "$T/stuck.txt" && grep -q 'rank 5 on 10.0.0.2 pid 5002 GPU 1' "$T/stuck.txt"; then
	ok "stuck: the text report says the same"
else
	nok "stuck: the text report says the same" "$(cat "$T/stuck.txt")"
fi

# Counts that differ but advance are normal, and said so.
why=$(field moving 'd["why"]')
prog=$(field moving '",".join(c["progress"] for c in d["communicators"])')
case "$why/$prog" in
*advancing*/*advancing*) ok "moving mismatch: advancing, not stuck" ;;
*) nok "moving mismatch: advancing, not stuck" "$why / $prog" ;;
esac

# An old server refuses SET FORMAT json; the text report is read instead.
fmt=$(field oldstuck 'd["ras"]["format"]')
if [ "$fmt" = text ] && grep -q 'SET FORMAT json' "$T/oldstuck.log"; then
	ok "2.26.2: SET FORMAT json refused, the text report read"
else
	nok "2.26.2: SET FORMAT json refused, the text report read" "format $fmt" "$(cat "$T/oldstuck.log")"
fi

# INIT: no second query in the window (the back-off); one STATUS only.
n=$(statuses init)
[ "$n" = 1 ] && ok "init: one query, then none until the next window" ||
	nok "init: one query, then none until the next window" "STATUS sent $n times" "$(cat "$T/init.log")"

# Dead ranks are settled at once: one query, no wait for the window.
n=$(statuses dead)
[ "$n" = 1 ] && ok "dead ranks: settled by the first reply" || nok "dead ranks: settled by the first reply" "STATUS sent $n times"

# The pace: with --window 3 the server sees two STATUS at least 3 s apart,
# never VERBOSE STATUS, and one connection at a time (CONNECT, then its
# commands, before the next CONNECT).
start healthy 2.28.9 pace
job pace --root "$scen" --ras "127.0.0.1:$port" --window 3
python3 - "$T/pace.log" <<'EOF' >"$T/pace.check" 2>&1
import sys
lines = [l.split(None, 1) for l in open(sys.argv[1]).read().splitlines() if l.strip()]
st = [float(t) for t, c in lines if c == "STATUS"]
assert len(st) == 2, "STATUS %d times" % len(st)
assert st[1] - st[0] >= 3.0 - 0.01, "%.3f s apart" % (st[1] - st[0])
assert not any("VERBOSE" in c.upper() for t, c in lines), "VERBOSE sent"
seq = [c for t, c in lines]
assert seq == ["CONNECT", "CLIENT PROTOCOL 2", "TIMEOUT 5", "SET FORMAT json", "STATUS"] * 2, seq
print("ok")
EOF
if [ "$(cat "$T/pace.check")" = ok ]; then
	ok "pace: two queries 3 s apart over --window 3, one connection at a time, no VERBOSE"
else
	nok "pace: two queries 3 s apart over --window 3, one connection at a time, no VERBOSE" "$(cat "$T/pace.check")"
fi

# A server that accepts and never answers: the read timeout ends it.
start silent 2.28.9 silent
job silent --root "$scen" --ras "127.0.0.1:$port" --window 2
got=$(field silent 'd["verdict"] + " / " + str(d["ras"]["last_error"])')
case $got in
"ras-unavailable / "*"no answer to CLIENT PROTOCOL"*) [ $rc = 2 ] && ok "silent server: unavailable after the read timeout, exit 2" ||
	nok "silent server: exit 2" "exit $rc" ;;
*) nok "silent server: unavailable after the read timeout" "$got" ;;
esac

# Nothing listens: refused, said so.
start healthy 2.28.9 gone
kill "$(echo $pids | awk '{print $NF}')" 2>/dev/null
sleep 0.2
job refused --root "$scen" --ras "127.0.0.1:$port" --window 2
got=$(field refused 'd["verdict"] + " / " + str(d["ras"]["last_error"])')
case $got in
"ras-unavailable / nothing listens on 127.0.0.1 port $port") [ $rc = 2 ] && ok "refused: ras-unavailable, exit 2" || nok "refused: exit 2" "exit $rc" ;;
*) nok "refused: ras-unavailable with the reason" "$got" ;;
esac

# No NCCL process in a capture and no --ras: no-job, exit 2, nothing asked.
job nojob --root "$top/build/scenarios/dgx-h100"
got=$(field nojob 'd["verdict"]')
[ "$got" = no-job ] && [ $rc = 2 ] && ok "no NCCL process and no --ras: no-job, exit 2" ||
	nok "no NCCL process and no --ras: no-job, exit 2" "got $got exit $rc"

# Live processes here: one that sets NCCL_RAS_ENABLE=0 (RAS off: not asked),
# and one too young to be asked (job-init, nothing sent), whose address
# comes from its NCCL_DEBUG_FILE's "RAS client listening socket" line.
start healthy 2.28.9 young
printf 'node1:77:77 [0] NCCL INFO RAS client listening socket at 127.0.0.1<%s>\n' "$port" >"$T/nccl.log"
env -i PATH="$PATH" NCCL_DEBUG=INFO NCCL_DEBUG_FILE="$T/nccl.log" sleep 300 &
pids="$pids $!"
sleep 0.3
job young --window 2
got=$(field young 'd["verdict"] + " / " + d["ras"]["source"] + " / " + str(d["ras"]["not_sent"])')
n=$(grep -c . "$T/young.log" 2>/dev/null); n=${n:-0}
case $got in
"job-init / the log of pid "*"(RAS client listening socket) / the job's NCCL processes started "*"crashed jobs"*)
	[ "$n" = 0 ] && [ $rc = 1 ] && ok "a job younger than 2 min: job-init, the server never contacted; address from its log" ||
		nok "a job younger than 2 min: nothing sent" "server saw $n lines, exit $rc" ;;
*) nok "a job younger than 2 min: job-init, address from its log" "$got" ;;
esac
env -i PATH="$PATH" NCCL_RAS_ENABLE=0 NCCL_RAS_ADDR="127.0.0.1:$port" sleep 300 &
pids="$pids $!"
sleep 0.3
job off --window 2
got=$(field off 'd["verdict"]')
n=$(grep -c . "$T/young.log" 2>/dev/null); n=${n:-0}
[ "$got" = ras-off ] && [ "$n" = 0 ] && [ $rc = 2 ] && ok "NCCL_RAS_ENABLE=0: ras-off, not probed" ||
	nok "NCCL_RAS_ENABLE=0: ras-off, not probed" "got $got exit $rc, server saw $n lines"

# A --ras that is no address is refused, never replaced by another one.
for a in ":28028" "host:" "node1:2802x" "[::1"; do
	"$bin" --root "$scen" report job --ras "$a" >"$T/bad.out" 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q -- "--ras wants HOST:PORT" "$T/bad.out"; then
		ok "--ras '$a': refused, exit 2"
	else
		nok "--ras '$a': refused, exit 2" "exit $rc" "$(cat "$T/bad.out")"
	fi
done

# "localhost" is the loopback itself, never looked up: a minimal container's
# /etc/hosts may not name it (a fresh debootstrap's does not). Where this
# machine's names it, an empty /etc/hosts in a private mount namespace.
start healthy 2.28.9 lh
: >"$T/hosts"
lh_run=""
if ! getent hosts localhost >/dev/null 2>&1; then
	lh_run=direct
elif [ "$(id -u)" = 0 ] && unshare -m sh -c "mount --bind '$T/hosts' /etc/hosts || exit 3; getent hosts localhost >/dev/null && exit 4; exit 0" 2>/dev/null; then
	lh_run=unshare
fi
case $lh_run in
direct) "$bin" --root "$scen" report job --json --ras "localhost:$port" --window 1 >"$T/lh.json" 2>"$T/lh.err" ;;
unshare) unshare -m sh -c "mount --bind '$T/hosts' /etc/hosts && exec '$bin' --root '$scen' report job --json --ras localhost:$port --window 1" \
		>"$T/lh.json" 2>"$T/lh.err" ;;
esac
if [ -n "$lh_run" ]; then
	got=$(field lh 'd["verdict"]')
	[ "$got" = job-ok ] && ok "--ras localhost:PORT with no localhost in /etc/hosts ($lh_run): asked on the loopback" ||
		nok "--ras localhost:PORT with no localhost in /etc/hosts ($lh_run): asked on the loopback" "$got" "$(cat "$T/lh.err")"
else
	ok "localhost without /etc/hosts # SKIP this machine names localhost, and no private mount namespace (needs root, unshare -m)"
fi
