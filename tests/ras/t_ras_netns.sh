#!/bin/sh
# A live job in its own network namespace, as a pod's is: the stand-in RAS
# server listens on NCCL's default, localhost:28028, inside a fresh
# namespace, beside a process with an NCCL setting and no NCCL_RAS_ADDR.
# fabtop, in the host's namespace, finds the process, waits as the rules
# say until it is two minutes old (this test waits that long for real: the
# age is /proc's, nothing is faked), then asks RAS from inside the job's
# namespace (setns). The Job pane, live in tmux, asks at most once per 15 s
# and shows the MONITOR stream's PEER_DEAD event between its queries.
# fabtop --root / reads every process of /proc: another suite running at
# the same time (a second checkout's make check, a fresh-machine run) has
# NCCL stand-ins of its own, which the report and the pane would pick up.
# So the test runs in a PID namespace of its own with its own /proc, where
# only its processes are; everything in it ends with it.
if [ -z "${FABTOP_T_ALONE:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
   unshare --pid --fork --mount-proc true 2>/dev/null; then
	FABTOP_T_ALONE=1 exec unshare --pid --fork --mount-proc sh "$0" "$@"
fi
NAME=ras-netns; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
srv=$top/build/tests/ras_server
need "$srv"
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tmux >/dev/null || ! command -v python3 >/dev/null; then
	echo "ok - RAS in the job's network namespace # SKIP needs root, ip, tmux and python3"
	exit 0
fi
NS=fabtop-ras-$$
if ! ip netns add "$NS" 2>"$T/ns.err"; then
	echo "ok - RAS in the job's network namespace # SKIP cannot create a network namespace: $(cat "$T/ns.err")"
	exit 0
fi
tm() { tmux -S "$T/sock" -f "$T/tmux.conf" "$@"; }
printf 'set -g status off\nset -g default-terminal tmux-256color\nset -g history-limit 0\n' >"$T/tmux.conf"
pids=""
trap 'tm kill-server 2>/dev/null; for p in $pids; do kill $p 2>/dev/null; done; ip netns del "$NS" 2>/dev/null; rm -rf "$T"' EXIT
ip -n "$NS" link set lo up

ip netns exec "$NS" "$srv" --scenario dead --version 2.29.7 --port 28028 --log "$T/srv.log" >"$T/srv.out" 2>&1 &
pids="$pids $!"
ip netns exec "$NS" env -i PATH="$PATH" NCCL_DEBUG=WARN NCCL_IB_HCA=mlx5_0 sleep 900 &
pids="$pids $!"
sleep 0.5
job=$(pgrep -n -f "^sleep 900$")
[ -n "$job" ] || { nok "the job's stand-in process runs"; exit 0; }

# Young: not asked, and the server sees nothing.
"$bin" --root / report job --json >"$T/young.json" 2>&1
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["verdict"] == "job-init", d["verdict"]' "$T/young.json" &&
   [ ! -s "$T/srv.log" ]; then
	ok "a job 0 s old in another namespace: job-init, nothing sent"
else
	nok "a job 0 s old in another namespace: job-init, nothing sent" "$(head -c 600 "$T/young.json")" "$(cat "$T/srv.log")"
fi

# Wait until the process is two minutes old, as /proc tells.
i=0
while [ "$(ps -o etimes= -p "$job" | tr -d ' ')" -lt 122 ] && [ $i -lt 200 ]; do sleep 1; i=$((i + 1)); done

"$bin" --root / report job --json --window 1 >"$T/old.json" 2>"$T/old.err"
rc=$?
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["verdict"], d["ras"]["source"], "|", d["ras"]["namespace"], "|", " ".join("%s/%s" % (l["rank"], l["why"]) for l in d["lagging"]))' "$T/old.json" 2>&1)
case "$got" in
"job-dead-ranks NCCL's default | asked inside the network namespace of pid $job (net:["*"]) | 6/dead"*)
	[ $rc = 1 ] && ok "two minutes on: asked inside the job's namespace at NCCL's default address; rank 6 dead (exit 1)" ||
		nok "two minutes on: exit 1" "exit $rc" ;;
*) nok "two minutes on: asked inside the job's namespace at NCCL's default address; rank 6 dead" "$got" "$(cat "$T/old.err")" ;;
esac

# The Job pane, live: queries paced at 15 s, MONITOR's event shown.
: >"$T/srv.log"
tm new-session -d -s j -x 120 -y 50 "'$bin' --root / 2>'$T/tui.err'"
i=0
while ! tm capture-pane -t j -p 2>/dev/null | grep -q "q:quit" && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
tm send-keys -t j 5
sleep 20
tm capture-pane -t j -p >"$T/pane.txt"
tm send-keys -t j q
python3 - "$T/srv.log" <<'EOF' >"$T/pace.out" 2>&1
import sys
lines = [l.split(None, 1) for l in open(sys.argv[1]).read().splitlines() if l.strip()]
st = [float(t) for t, c in lines if c == "STATUS"]
assert len(st) == 2, "STATUS %d times in 20 s" % len(st)
assert st[1] - st[0] >= 15 - 0.05, "%.2f s apart" % (st[1] - st[0])
assert any(c == "MONITOR" for t, c in lines), "no MONITOR"
# one connection at a time: a MONITOR stream is never open while a STATUS is asked
seq = [c for t, c in lines]
m = seq.index("MONITOR")
assert "STATUS" in seq[m:], "no STATUS after the MONITOR"
print("ok")
EOF
if [ "$(cat "$T/pace.out")" = ok ]; then
	ok "the live Job pane: 2 queries in 20 s, 15 s apart, MONITOR between them"
else
	nok "the live Job pane: 2 queries in 20 s, 15 s apart, MONITOR between them" "$(cat "$T/pace.out")" "$(cat "$T/srv.log")"
fi
if grep -q "^Job: job-dead-ranks" "$T/pane.txt" && grep -q "PEER_DEAD: pid 5003 on 10.0.0.2 GPU 2" "$T/pane.txt" &&
   grep -q "asked inside the network namespace of pid $job" "$T/pane.txt"; then
	ok "the live Job pane: dead ranks, the PEER_DEAD event, the namespace it asked in"
else
	nok "the live Job pane: dead ranks, the PEER_DEAD event, the namespace it asked in" "$(cat "$T/pane.txt" "$T/tui.err")"
fi
