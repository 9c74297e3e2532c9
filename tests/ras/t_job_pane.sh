#!/bin/sh
# The Job pane and the capture's RAS record: `fabtop capture` asks the
# stand-in RAS server (a stuck job whose ranks 0-3 run on the hang scenario's
# node, 10.10.0.17, as pids 4242-4245) twice over --window 2 and records the
# exchanges; the capture then replays `report job` and, in a real tmux, the
# Job pane: the stuck communicator, the lagging ranks on the other node,
# and for the ranks here their GPU, rail (NIC, NCCL path, GPUDirect RDMA),
# that port's counters over the recording and the QPs their process owns.
# Replaying asks no one. A live job too young to ask: the pane says so and
# the server sees nothing.
NAME=job-pane; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
srv=$top/build/tests/ras_server
SCEN=$top/build/scenarios
need "$srv" "$SCEN/hang"
command -v tmux >/dev/null || { echo "ok - the Job pane in tmux # SKIP tmux is not installed (scripts/deps.sh check)"; exit 0; }

tm() { tmux -S "$T/sock" -f "$T/tmux.conf" "$@"; }
printf 'set -g status off\nset -g default-terminal tmux-256color\nset -g history-limit 0\n' >"$T/tmux.conf"
pids=""
trap 'tm kill-server 2>/dev/null; for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$T"' EXIT

# screen_has SESSION FILE SECONDS PATTERN...: polls until every pattern is on the screen.
screen_has() {
	_s=$1 _f=$2 _n=$(($3 * 10))
	shift 3
	while :; do
		tm capture-pane -t "$_s" -p >"$_f" 2>/dev/null
		_miss=
		for _p in "$@"; do grep -q -- "$_p" "$_f" || _miss=$_p; done
		[ -z "$_miss" ] && return 0
		[ "$_n" -le 0 ] && return 1
		_n=$((_n - 1))
		sleep 0.1
	done
}

"$srv" --scenario stuck --version 2.29.7 --port 0 --port-file "$T/port" --log "$T/srv.log" \
	--host0 10.10.0.17 --pid0 4242 >"$T/srv.out" 2>&1 &
spid=$!
pids="$pids $spid"
i=0
while [ ! -s "$T/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$T/port")

# The scenario's recorded counters are carried into the capture (the pane plays them).
"$bin" capture --root "$SCEN/hang" --ras "127.0.0.1:$port" --window 2 \
	-o "$T/stuck.tar.gz" >"$T/cap.out" 2>&1
rc=$?
n=$(grep -c ' STATUS$' "$T/srv.log")
if [ $rc = 0 ] && [ "$n" = 2 ] && tar xzf "$T/stuck.tar.gz" -C "$T" --wildcards '*/fabtop/ras/*' 2>/dev/null &&
   python3 - "$T" <<'EOF' >"$T/check.out" 2>&1
import glob, json, os, sys
d = glob.glob(os.path.join(sys.argv[1], "*", "fabtop", "ras"))[0]
x = json.load(open(os.path.join(d, "exchanges.json")))
e = x["exchanges"]
assert len(e) == 2 and e[1]["t"] >= 2.0 - 0.01, e
assert x["window_s"] == 2.0 and x["source"] == "--ras"
for k in e:
    assert k["request"] == "STATUS" and k["json_asked"] and not k["json_refused"] and k["errno"] == 0
    assert json.load(open(os.path.join(d, k["reply"])))["nccl_version"].startswith("2.29.7")
EOF
then
	ok "capture: two STATUS over --window 2, recorded with their times and replies"
else
	nok "capture: two STATUS over --window 2, recorded with their times and replies" "exit $rc, $n STATUS" \
		"$(cat "$T/cap.out" "$T/check.out")"
fi

# Replays ask no one: the server is gone.
kill $spid
wait $spid 2>/dev/null
"$bin" --root "$T/stuck.tar.gz" report job --json >"$T/replay.json" 2>"$T/replay.err"
rc=$?
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
local = ["%s/%s/%s/%s/%s" % (r["rank"], r["pid"], r["nccl"]["nic"], r["qps"], r["qps_bad"]) for r in d["local_ranks"]]
print(d["verdict"], d["ras"]["replayed"], d["ras"]["queries"], " ".join(local),
      d["local_ranks"][0]["port_activity"]["grown"].split(",")[0])' "$T/replay.json" 2>&1)
case "$got" in
"job-stuck True 2 0/4242/mlx5_0/4/2 1/4243/mlx5_1/4/2 2/4244/mlx5_2/4/2 3/4245/mlx5_3/4/0 local_ack_timeout_err +"*)
	[ $rc = 1 ] && ok "replay: job-stuck (exit 1); ranks 0-3 here with their rail, QPs and growing retries" ||
		nok "replay: exit 1" "exit $rc" ;;
*) nok "replay: job-stuck; ranks 0-3 here with their rail, QPs and growing retries" "$got" "$(cat "$T/replay.err")" ;;
esac

# The Job pane in a real terminal, on the capture.
tm new-session -d -s j -x 110 -y 60 "'$bin' --root '$T/stuck.tar.gz' 2>'$T/tui.err'"
screen_has j "$T/first.txt" 15 "q:quit" || nok "the console starts" "$(cat "$T/first.txt" "$T/tui.err")"
tm send-keys -t j 5
if screen_has j "$T/pane.txt" 10 "^Job: job-stuck" "1 communicator stuck" "27a079b828ff1a75 .*RUNNING .*MISMATCH .*stuck" \
	"rank 5 on 10.0.0.2 pid 5002 GPU 1: AllReduce at 999, others up to 1000" \
	"next: ssh 10.0.0.2 fabtop report job --json" \
	"rank 0 pid 4242: GPU0 0000:19:00.0" "NIC mlx5_0 port 1 (PIX; the closest usable NIC (PIX)), GPUDirect RDMA: yes" \
	"grew during the recording: local_ack_timeout_err" "QPs: 4 (2 in ERR/SQE) on mlx5_0" "replayed from the capture"; then
	ok "tmux: the Job pane names the stuck communicator, the lagging ranks, and each local rank's GPU, rail, counters and QPs"
else
	nok "tmux: the Job pane names the stuck communicator, the lagging ranks, and each local rank's GPU, rail, counters and QPs" \
		"$(cat "$T/pane.txt")"
fi
tm send-keys -t j q
sleep 0.3
tm kill-session -t j 2>/dev/null

# A live job younger than two minutes: the pane does not ask, and says why.
"$srv" --scenario healthy --version 2.29.7 --port 0 --port-file "$T/port2" --log "$T/srv2.log" >"$T/srv2.out" 2>&1 &
pids="$pids $!"
i=0
while [ ! -s "$T/port2" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
env -i PATH="$PATH" NCCL_RAS_ADDR="127.0.0.1:$(cat "$T/port2")" NCCL_DEBUG=WARN sleep 300 &
pids="$pids $!"
tm new-session -d -s y -x 110 -y 40 "'$bin' --root / 2>'$T/tui2.err'"
screen_has y "$T/first2.txt" 15 "q:quit"
tm send-keys -t y 5
if screen_has y "$T/young.txt" 10 "^Job: job-init" "not sent: the job's NCCL processes started [0-9]* s ago: no query before 120 s"; then
	sleep 1
	n=$(grep -c . "$T/srv2.log" 2>/dev/null)
	[ "${n:-0}" = 0 ] && ok "tmux: a job younger than 2 min is not asked, and the pane says why" ||
		nok "tmux: a job younger than 2 min is not asked" "the server saw: $(cat "$T/srv2.log")"
else
	nok "tmux: a job younger than 2 min is not asked, and the pane says why" "$(cat "$T/young.txt" "$T/tui2.err")"
fi
tm send-keys -t y q
