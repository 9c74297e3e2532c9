#!/bin/sh
# The stand-in NCCL RAS server (build/tests/ras_server, tests/ras/ras_server.c)
# checked with a small real client (python3 sockets): the handshake bytes,
# the answers of old releases (SET FORMAT before 2.28.7, MONITOR before
# 2.29), the text report as NCCL's client_support.cc prints it, JSON that
# parses (and the 2.28.x JSON that does not, as NCCL 2.28 wrote it), counts
# that advance or freeze per scenario, the MONITOR event of a dead peer,
# garbage, a silent server, a close after the handshake, the --log of
# requests, and that it ends on SIGTERM and with its parent. The client
# and the tests of the verdicts are the RAS client's; this is the server's.
# Prints "ok - name" / "not ok - name". Needs $FABTOP_TOP.
NAME=ras-server; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
SRV=$top/build/tests/ras_server
need "$SRV"
command -v python3 >/dev/null || { echo "ok - ras server # SKIP needs python3"; exit 0; }

# The client: cl.py PORT [-t SECS] CMD...: sends each command with '\n';
# after each one reads one reply line, after STATUS or the last command
# reads until the server closes ("<EOF>") or SECS (1) pass ("<TIMEOUT>").
# Writes what it received, raw, to stdout.
cat > "$T/cl.py" <<'PY'
import socket, sys
port = int(sys.argv[1]); args = sys.argv[2:]; wait = 1.0
if args[:1] == ["-t"]:
    wait = float(args[1]); args = args[2:]
s = socket.create_connection(("127.0.0.1", port), timeout=wait)
out = bytearray()
def read(until_close):
    while True:
        try:
            d = s.recv(65536)
        except socket.timeout:
            out.extend(b"<TIMEOUT>"); return False
        if not d:
            out.extend(b"<EOF>"); return False
        out.extend(d)
        if not until_close and out.endswith(b"\n"):
            return True
for i, c in enumerate(args):
    s.sendall(c.encode("latin-1") + b"\n")
    last = i == len(args) - 1 or c.strip().upper() in ("STATUS", "VERBOSE STATUS")
    if not read(last) or last:
        break
sys.stdout.buffer.write(bytes(out))
PY
cl() { python3 "$T/cl.py" "$@"; }

# start SCENARIO VERSION [ARGS...]: the server in the background on a free
# port, ARGS passed on; sets PORT and SPID. Its log is $T/log.
start() {
	sc=$1 v=$2
	shift 2
	rm -f "$T/port"
	"$SRV" --scenario "$sc" --version "$v" --port-file "$T/port" --log "$T/log" "$@" 2>"$T/err" &
	SPID=$!
	i=0
	while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	PORT=$(cat "$T/port" 2>/dev/null)
}
stop() { kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; }

# same NAME GOT WANT: exact bytes.
same() {
	if [ "$2" = "$3" ]; then ok "$1"; else nok "$1" "want: $3" "got:  $2"; fi
}
# json_get FILE EXPR: prints EXPR evaluated on the JSON document in FILE (d).
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# ---- handshake and commands, byte for byte ----
start healthy 2.29.2
got=$(cl "$PORT" "CLIENT PROTOCOL 2" "TIMEOUT 5" "TIMEOUT x" "TIMEOUT -1" "FOO bar" "client protocol 7" | od -c | sed 's/^[0-7]* *//')
want=$(printf 'SERVER PROTOCOL 2\nOK\nERROR: Invalid timeout value x\nERROR: Invalid timeout value -1\nERROR: Unknown command FOO bar\nSERVER PROTOCOL 2\n<TIMEOUT>' | od -c | sed 's/^[0-7]* *//')
same "handshake: SERVER PROTOCOL 2, TIMEOUT OK or its error, unknown commands named" "$got" "$want"
got=$(cl "$PORT" "$(printf 'Client Protocol 2\r')" "$(printf 'timeout 3\r')" | od -c | sed 's/^[0-7]* *//')
want=$(printf 'SERVER PROTOCOL 2\nOK\n<TIMEOUT>' | od -c | sed 's/^[0-7]* *//')
same "commands are case-insensitive and a CR before the LF is dropped" "$got" "$want"
got=$(cl "$PORT" "SET FORMAT json" "SET FORMAT xml" "set format TEXT" "MONITOR bogus" "MONITOR")
same "2.29: SET FORMAT json|text OK, others an error; MONITOR groups checked" "$got" \
	"$(printf "OK\nERROR: Invalid format xml\nOK\nERROR: Invalid event group 'bogus'\nOK\n<TIMEOUT>")"
stop

start healthy 2.28.7
got=$(cl "$PORT" "SET FORMAT json" "MONITOR")
same "2.28.7: SET FORMAT json OK, MONITOR an unknown command" "$got" \
	"$(printf 'OK\nERROR: Unknown command MONITOR\n<TIMEOUT>')"
stop
for v in 2.26.2 2.24.3; do
	start stuck $v
	cl "$PORT" "CLIENT PROTOCOL 2" "SET FORMAT json" "MONITOR lifecycle" "STATUS" > "$T/old"
	got=$(head -n 4 "$T/old")
	same "$v (old server without JSON): SET FORMAT and MONITOR are unknown commands, the report is text" "$got" \
		"$(printf 'SERVER PROTOCOL 2\nERROR: Unknown command SET FORMAT json\nERROR: Unknown command MONITOR lifecycle\nNCCL version %s+cuda12.4 compiled with CUDA 12.4' $v)"
	stop
done

# ---- the text report as NCCL prints it ----
start stuck 2.29.2
cl "$PORT" "CLIENT PROTOCOL 2" "STATUS" > "$T/stuck.txt"
stop
cat > "$T/want" <<'EOF'
SERVER PROTOCOL 2
NCCL version 2.29.2+cuda12.4 compiled with CUDA 12.4
CUDA runtime version 12040, driver version 12080

Job summary
===========

  Nodes  Processes         GPUs  Processes     GPUs
(total)   per node  per process    (total)  (total)
      2          4            1          8        8

Communicators... (0.010s)
=============

Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
    #  in group  per comm  per node  per comm  in group
    0         1         2         4         8         8   RUNNING  MISMATCH
    1         1         1         4         4         4   RUNNING      OK

Errors
======

Warnings
========

#0-0 (27a079b828ff1a75) MISMATCH
  Communicator ranks have different AllReduce operation counts
  6 ranks have launched up to operation 1000
  2 ranks have launched up to operation 999
  Rank 5 -- GPU 1 managed by process 5002 on node 10.0.0.2
  Rank 6 -- GPU 2 managed by process 5003 on node 10.0.0.2

<EOF>
EOF
printf '\n' >> "$T/stuck.txt"
if cmp -s "$T/stuck.txt" "$T/want"; then
	ok "stuck, 2.29.2 text: group table, MISMATCH naming ranks 5 and 6, then the close"
else
	nok "stuck, 2.29.2 text: group table, MISMATCH naming ranks 5 and 6, then the close" "$(diff "$T/want" "$T/stuck.txt")"
fi

start dead 2.24.3
cl "$PORT" "STATUS" | sed -n '/^Communicators/,$p' > "$T/dead.txt"
stop
cat > "$T/want" <<'EOF'
Communicators... (0.01s)
=============

Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
    #  in group  per comm  per node  per comm  in group
    0         1         2       3-4         8         7   RUNNING  INCOMPLETE
    1         1         1         4         4         4   RUNNING      OK

Errors
======

DEAD
  1 job process is considered dead (unreachable via the RAS network)
  Process 5003 on node 10.0.0.2 managing GPU 2

#0-0 (27a079b828ff1a75) INCOMPLETE
  Missing communicator data from 1 rank
  The missing rank: 6

Warnings
========

<EOF>
EOF
printf '\n' >> "$T/dead.txt"
if cmp -s "$T/dead.txt" "$T/want"; then
	ok "dead, 2.24.3 text: DEAD process, INCOMPLETE with 2.24's 'The missing rank: 6', 2 decimals"
else
	nok "dead, 2.24.3 text: DEAD process, INCOMPLETE with 2.24's 'The missing rank: 6', 2 decimals" "$(diff "$T/want" "$T/dead.txt")"
fi

start dead 2.26.2
got=$(cl "$PORT" "STATUS" | grep -A2 '^#0-0')
stop
same "dead, 2.26.2 text: the missing rank named with GPU, process and node" "$got" \
	"$(printf '#0-0 (27a079b828ff1a75) INCOMPLETE\n  Missing communicator data from 1 rank\n  Rank 6 -- GPU 2 managed by process 5003 on node 10.0.0.2')"

start init 2.29.2
got=$(cl "$PORT" "STATUS" | grep -A1 '^    #  in group')
stop
same "init, text: one communicator, status INIT" "$got" \
	"$(printf '    #  in group  per comm  per node  per comm  in group\n    0         1         2         4         8         8      INIT      OK')"

start moving-mismatch 2.29.2 --host0 192.0.2.7 --pid0 7000
got=$(cl "$PORT" "VERBOSE STATUS" | grep '^  Rank')
stop
same "moving-mismatch, --host0/--pid0: the lagging ranks named with their own process and node" "$got" \
	"$(printf '  Rank 3 has launched up to operation 999 -- GPU 3 managed by process 7003 on node 192.0.2.7\n  Rank 6 has launched up to operation 998 -- GPU 2 managed by process 5003 on node 10.0.0.2')"

start stuck 2.24.3
got=$(cl "$PORT" "STATUS" | grep -A2 'different')
stop
same "2.24.3: one count per rank, 'different collective operation counts'" "$got" \
	"$(printf '  Communicator ranks have different collective operation counts\n  6 ranks have launched up to operation 1001\n  2 ranks have launched up to operation 1000')"

# ---- JSON ----
for sc in healthy stuck dead init moving-mismatch; do
	start $sc 2.29.2
	cl "$PORT" "CLIENT PROTOCOL 2" "SET FORMAT json" "STATUS" | sed -e '1,2d' -e 's/<EOF>$//' > "$T/$sc.json"
	stop
	if python3 -m json.tool "$T/$sc.json" >/dev/null 2>"$T/jerr"; then
		ok "$sc, 2.29.2: the JSON report parses"
	else
		nok "$sc, 2.29.2: the JSON report parses" "$(cat "$T/jerr")" "$(head -c 400 "$T/$sc.json")"
	fi
done
got=$(json_get "$T/stuck.json" '[r["collective_counts"]["AllReduce"] for r in d["communicators"][0]["ranks"]]')
same "stuck, JSON: ranks 5 and 6 one AllReduce behind" "$got" "[1000, 1000, 1000, 1000, 1000, 999, 999, 1000]"
got=$(json_get "$T/dead.json" '[(m["rank"], m["host"], m["pid"], m["status"]["considered_dead"]) for m in d["communicators"][0]["missing_ranks"]], d["communicators"][0]["ranks_count"]')
same "dead, JSON: rank 6 in missing_ranks, considered dead" "$got" "([(6, '10.0.0.2', 5003, True)], 7)"
got=$(json_get "$T/init.json" 'd["communicators_count"], sorted(set(r["status"]["init_state"] for r in d["communicators"][0]["ranks"]))')
same "init, JSON: init_state 7 on every rank" "$got" "(1, [7])"
got=$(json_get "$T/healthy.json" 'd["nccl_version"], list(d["communicators"][0]["ranks"][0]["collective_counts"])')
same "JSON: nccl_version and the collective names NCCL prints" "$got" \
	"('2.29.2+cuda12.4', ['Broadcast', 'Reduce', 'AllGather', 'ReduceScatter', 'AllReduce'])"

start dead 2.28.9
cl "$PORT" "SET FORMAT json" "STATUS" | sed -e '1d' -e 's/<EOF>$//' > "$T/dead228.json"
stop
if python3 -m json.tool "$T/dead228.json" >/dev/null 2>&1; then
	nok "dead, 2.28.9 JSON: a missing rank lacks the comma after nvml_dev, as NCCL 2.28 wrote it"
elif grep -q '"nvml_dev": 2$' "$T/dead228.json"; then
	ok "dead, 2.28.9 JSON: a missing rank lacks the comma after nvml_dev, as NCCL 2.28 wrote it"
else
	nok "dead, 2.28.9 JSON: a missing rank lacks the comma after nvml_dev, as NCCL 2.28 wrote it" "$(head -c 400 "$T/dead228.json")"
fi

# ---- counts per STATUS ----
# counts SCENARIO: the AllReduce counts of communicator A at three STATUS.
counts() {
	start "$1" 2.29.2
	for k in 1 2 3; do
		cl "$PORT" "SET FORMAT json" "STATUS" | sed -e '1d' -e 's/<EOF>$//' > "$T/c$k.json"
		json_get "$T/c$k.json" '" ".join(str(r["collective_counts"]["AllReduce"]) for r in d["communicators"][0]["ranks"])'
	done
	stop
}
same "healthy: counts equal, +100 per STATUS" "$(counts healthy)" \
	"$(printf '1000 1000 1000 1000 1000 1000 1000 1000\n1100 1100 1100 1100 1100 1100 1100 1100\n1200 1200 1200 1200 1200 1200 1200 1200')"
same "stuck: counts frozen across STATUS" "$(counts stuck)" \
	"$(printf '1000 1000 1000 1000 1000 999 999 1000\n1000 1000 1000 1000 1000 999 999 1000\n1000 1000 1000 1000 1000 999 999 1000')"
same "moving-mismatch: counts differ, and all advance" "$(counts moving-mismatch)" \
	"$(printf '1000 1000 1000 999 1000 1000 998 1000\n1100 1100 1100 1099 1100 1100 1098 1100\n1200 1200 1200 1199 1200 1200 1198 1200')"

# ---- MONITOR ----
start dead 2.29.2
got=$(cl "$PORT" -t 1.5 "MONITOR" | sed 's/^\[[0-9-]* [0-9:]*\]/[T]/')
same "dead, MONITOR text: OK, then a PEER_DEAD event for the dead process" "$got" \
	"$(printf 'OK\n[T] PEER_DEAD: Process 5003 on node 10.0.0.2 managing GPU 2 \n<TIMEOUT>')"
cl "$PORT" -t 1.5 "SET FORMAT json" "MONITOR all" | sed -e '1,2d' -e 's/<TIMEOUT>$//' > "$T/ev.json"
got=$(json_get "$T/ev.json" 'd["group"], d["event"], d["peer"]' 2>&1)
same "dead, MONITOR JSON: the event parses, LIFECYCLE PEER_DEAD of pid 5003" "$got" \
	"('LIFECYCLE', 'PEER_DEAD', {'host': '10.0.0.2', 'pid': 5003, 'cuda_devs': [2], 'nvml_devs': [2]})"
got=$(cl "$PORT" -t 1 "MONITOR trace")
same "dead, MONITOR trace: no lifecycle event" "$got" "$(printf 'OK\n<TIMEOUT>')"
stop

# ---- broken servers ----
start garbage 2.29.2
cl "$PORT" "CLIENT PROTOCOL 2" "TIMEOUT 5" "STATUS" > "$T/garbage"
stop
if [ "$(head -n 2 "$T/garbage")" = "$(printf 'SERVER PROTOCOL 2\nOK')" ] &&
   python3 -c '
import sys
b = open(sys.argv[1], "rb").read().split(b"\n", 2)[2]
sys.exit(not (b.endswith(b"<EOF>") and len(b) > 500 and b"\0" in b and b"NCCL version" not in b and not b.startswith(b"{")))' "$T/garbage"; then
	ok "garbage: the handshake answered, then STATUS gets bytes that are no report, and the close"
else
	nok "garbage: the handshake answered, then STATUS gets bytes that are no report, and the close" "$(od -c "$T/garbage" | head -5)"
fi

start silent 2.29.2
got=$(cl "$PORT" -t 1 "CLIENT PROTOCOL 2")
stop
same "silent: accepts, answers nothing, does not close" "$got" "<TIMEOUT>"

start close-after-handshake 2.29.2
got=$(cl "$PORT" "CLIENT PROTOCOL 2" "TIMEOUT 5")
got2=$(cl "$PORT" "CLIENT PROTOCOL 2" "STATUS")
stop
same "close-after-handshake: SERVER PROTOCOL, then the close on the next command" "$got|$got2" \
	"$(printf 'SERVER PROTOCOL 2\n<EOF>|SERVER PROTOCOL 2\n<EOF>')"

start healthy 2.29.2
got=$(python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
s.sendall(b"x" * 1100)
try:
    print("closed" if s.recv(100) == b"" else "answered")
except ConnectionResetError:
    print("closed")' "$PORT" 2>&1)
stop
same "a line longer than NCCL's 1024-byte buffer: the connection is closed" "$got" closed

# ---- the log of requests ----
rm -f "$T/log"
start healthy 2.29.2
cl "$PORT" "CLIENT PROTOCOL 2" "TIMEOUT 5" "STATUS" > /dev/null
cl "$PORT" "CLIENT PROTOCOL 2" "$(printf 'STATUS\r')" > /dev/null
stop
got=$(sed 's/^[0-9]*\.[0-9][0-9][0-9] //' "$T/log")
same "--log: one line per connection and per command, as received" "$got" \
	"$(printf 'CONNECT\nCLIENT PROTOCOL 2\nTIMEOUT 5\nSTATUS\nCONNECT\nCLIENT PROTOCOL 2\nSTATUS')"
if awk 'NF < 2 || $1 !~ /^[0-9]+\.[0-9][0-9][0-9]$/ || $1 < prev { bad = 1 } { prev = $1 } END { exit bad }' "$T/log"; then
	ok "--log: monotonic seconds with 3 decimals, in order"
else
	nok "--log: monotonic seconds with 3 decimals, in order" "$(cat "$T/log")"
fi

# ---- its life ----
start healthy 2.29.2
kill -TERM "$SPID"; wait "$SPID"; rc=$?
same "SIGTERM: exits 0" "$rc" 0
start healthy 2.29.2
kill -INT "$SPID"; wait "$SPID"; rc=$?
same "SIGINT: exits 0" "$rc" 0
rm -f "$T/port"
( "$SRV" --scenario healthy --version 2.29.2 --port-file "$T/port" & echo $! > "$T/orphan"; sleep 0.5 )
sleep 0.5
opid=$(cat "$T/orphan")
# gone, or a zombie where nobody reaps orphans (a container's init)
state=$(awk '{ print $3 }' "/proc/$opid/stat" 2>/dev/null)
if [ -s "$T/port" ] && { [ -z "$state" ] || [ "$state" = Z ]; }; then
	ok "dies with its parent (PR_SET_PDEATHSIG)"
else
	nok "dies with its parent (PR_SET_PDEATHSIG)" "pid $opid state $state port $(cat "$T/port" 2>/dev/null)"
	kill "$opid" 2>/dev/null
fi
"$SRV" --scenario nosuch --version 2.29.2 2>/dev/null; rc1=$?
"$SRV" --scenario healthy --version 2.x 2>/dev/null; rc2=$?
"$SRV" --version 2.29.2 2>/dev/null; rc3=$?
same "a bad command line: exit 2" "$rc1 $rc2 $rc3" "2 2 2"
