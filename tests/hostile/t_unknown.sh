#!/bin/sh
# Unknown is not healthy, and implausible is not ok (issue 12, holes 9-11 and
# two of 12), each against a real input of its own:
#   - /sys/class/infiniband mode 000, read as nobody: verdict unknown, exit 2,
#     naming it, in text and JSON (report links and all); report counters too;
#   - /sys/class/net mode 000, and one netdev's folder mode 000: the port's
#     netdev is "unknown here", never "not in this network namespace";
#   - the job step as uid 1000 beside a real process of uid 65534 that sets
#     NCCL_IB_HCA: counted as not readable, and not "no NCCL process";
#   - a capture cut in half: verdict unknown, exit 2; --root /tmp: refused;
#   - a capture without CPU folders and without hwloc.xml: its own NUMA
#     CPUs, never this machine's;
#   - a 64-bit jump in recorded samples: IMPLAUSIBLE, no rate, exit 1;
#   - a negative error counter: links.counter-implausible, exit 1;
#   - TERM=dumb on a terminal: the batch report and a note, no console.
# Prints "ok - name" / "not ok - name"; "# SKIP why" where it cannot run.
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FABTOP:-$top/build/san/fabtop}
SC=$top/build/scenarios
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-unknown.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
kids=
cleanup() {
	for p in $kids; do kill "$p" 2>/dev/null; done
	chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
chmod 755 "$T"

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /' | head -n 15; done; }
skip() { echo "ok - $1 # SKIP $2"; }

for f in "$bin" "$SC/ib-8port" "$SC/roce-faults" "$SC/busy" "$SC/dgx-h100" "$SC/ib-8port.tar.gz"; do
	[ -e "$f" ] || { nok "missing $f (make tests)"; exit 0; }
done

# has FILE WORDS...: every word is in FILE (fixed strings).
has() {
	_f=$1; shift
	for _w in "$@"; do grep -qF -- "$_w" "$_f" || return 1; done
}
# sane FILE: no sanitizer report in it.
sane() { ! grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error' "$1"; }
# json FILE PYTHON-EXPR: the expression over the document d is true.
json() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2>/dev/null
}
# copy SCENARIO NAME: a world-readable copy in $T/NAME.
copy() {
	rm -rf "$T/$2"
	cp -a "$SC/$1" "$T/$2" && chmod -R u+w,a+rX "$T/$2"
}
# realdir PATH: the real folder behind a class link.
realdir() { (cd -P "$1" 2>/dev/null && pwd); }

AS_NOBODY=
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi

# ---- an unreadable RDMA class, as nobody ------------------------------------
if [ -z "$AS_NOBODY" ]; then
	for t in "report links: unreadable /sys/class/infiniband is unknown, exit 2" \
		 "report links --json: verdict unknown naming it" "report all: unknown, exit 2" \
		 "report counters: unknown, exit 2"; do
		skip "$t" "needs root (to read as nobody) and setpriv"
	done
else
	copy ib-8port ib && chmod 000 "$T/ib/sys/class/infiniband"
	$AS_NOBODY "$bin" --root "$T/ib" report links > "$T/ib.txt" 2> "$T/ib.err"; rc=$?
	if [ $rc -eq 2 ] && sane "$T/ib.err" &&
	   has "$T/ib.txt" "Verdict: unknown" "cannot read /sys/class/infiniband: Permission denied" &&
	   ! grep -q "No RDMA devices on this node" "$T/ib.txt"; then
		ok "report links: unreadable /sys/class/infiniband is unknown, exit 2"
	else
		nok "report links: unreadable /sys/class/infiniband is unknown, exit 2" "exit $rc" "$(cat "$T/ib.txt" "$T/ib.err")"
	fi
	$AS_NOBODY "$bin" --root "$T/ib" report links --json > "$T/ib.json" 2> "$T/ib.err"; rc=$?
	if [ $rc -eq 2 ] && json "$T/ib.json" 'd["verdict"] == "unknown" and any("/sys/class/infiniband" in w and "Permission denied" in w for w in d["unknown_because"]) and d["links"]["devices"] is None'; then
		ok "report links --json: verdict unknown naming it"
	else
		nok "report links --json: verdict unknown naming it" "exit $rc" "$(head -c 1500 "$T/ib.json")"
	fi
	$AS_NOBODY "$bin" --root "$T/ib" report all > "$T/iba.txt" 2>&1; rc=$?
	if [ $rc -eq 2 ] && has "$T/iba.txt" "Verdict: unknown"; then
		ok "report all: unknown, exit 2"
	else
		nok "report all: unknown, exit 2" "exit $rc" "$(tail -8 "$T/iba.txt")"
	fi
	# Not a capture (no meta.json): the counters are sampled from the tree.
	rm -f "$T/ib/fabtop/meta.json"
	$AS_NOBODY "$bin" --root "$T/ib" report counters --count 1 --interval 0.1 --json > "$T/ibc.json" 2> "$T/ibc.err"; rc=$?
	if [ $rc -eq 2 ] && json "$T/ibc.json" 'd["verdict"] == "unknown" and d["unknown_because"]'; then
		ok "report counters: unknown, exit 2"
	else
		nok "report counters: unknown, exit 2" "exit $rc" "$(cat "$T/ibc.json" "$T/ibc.err" | head -20)"
	fi
	chmod 755 "$T/ib/sys/class/infiniband"
fi

# ---- an unreadable netdev ------------------------------------------------------
# roce-faults: the ports' netdevs are in the capture's /sys/class/net.
DEV= ND=
for d in "$SC/roce-faults"/sys/class/infiniband/*; do
	n=$(cat "$d/ports/1/gid_attrs/ndevs/0" 2>/dev/null)
	if [ -n "$n" ] && [ -e "$SC/roce-faults/sys/class/net/$n" ]; then DEV=$(basename "$d"); ND=$n; break; fi
done
if [ -z "$AS_NOBODY" ] || [ -z "$ND" ]; then
	skip "/sys/class/net unreadable: the netdev is unknown, not elsewhere" "needs root, setpriv and a RoCE port with a netdev"
	skip "one netdev folder unreadable: unknown, not elsewhere" "needs root, setpriv and a RoCE port with a netdev"
else
	# netdev_of FILE: the port's netdev object of DEV port 1.
	nd_expr="[p for h in d['links']['hcas'] if h['name'] == '$DEV' for p in h['ports'] if p['port'] == 1][0]['netdev']"
	# Without the netlink snapshot, /sys/class/net is all that says which netdevs are here.
	copy roce-faults net && rm -f "$T/net/fabtop/netlink.json" && chmod 000 "$T/net/sys/class/net"
	$AS_NOBODY "$bin" --root "$T/net" report links > "$T/net.txt" 2> "$T/net.err"
	$AS_NOBODY "$bin" --root "$T/net" report links --json > "$T/net.json" 2>> "$T/net.err"
	if has "$T/net.txt" "netdev $ND: unknown here (cannot read /sys/class/net: Permission denied" &&
	   ! grep -q "netdev $ND: not in this network namespace" "$T/net.txt" &&
	   json "$T/net.json" "$nd_expr['here'] == 'unknown'" && sane "$T/net.err"; then
		ok "/sys/class/net unreadable: the netdev is unknown, not elsewhere"
	else
		nok "/sys/class/net unreadable: the netdev is unknown, not elsewhere" "$(grep -n "netdev $ND" "$T/net.txt")" "$(cat "$T/net.err")"
	fi
	chmod 755 "$T/net/sys/class/net"
	copy roce-faults nd1 && NDDIR=$(realdir "$T/nd1/sys/class/net/$ND") && chmod 000 "$NDDIR"
	$AS_NOBODY "$bin" --root "$T/nd1" report links > "$T/nd1.txt" 2> "$T/nd1.err"
	$AS_NOBODY "$bin" --root "$T/nd1" report links --json > "$T/nd1.json" 2>> "$T/nd1.err"
	if has "$T/nd1.txt" "netdev $ND: unknown here (cannot read /sys/class/net/$ND: Permission denied)" &&
	   json "$T/nd1.json" "$nd_expr['here'] == 'unknown'" && sane "$T/nd1.err"; then
		ok "one netdev folder unreadable: unknown, not elsewhere"
	else
		nok "one netdev folder unreadable: unknown, not elsewhere" "$(grep -n "netdev $ND" "$T/nd1.txt")" "$(cat "$T/nd1.err")"
	fi
	chmod 755 "$NDDIR"
fi

# ---- the job step, as uid 1000, beside another uid's NCCL process --------------
if [ -z "$AS_NOBODY" ]; then
	skip "job step as uid 1000: another uid's process is counted as not readable" "needs root and setpriv"
	skip "job step: not \"no NCCL process\" when some could not be read" "needs root and setpriv"
else
	env -i PATH=/usr/bin:/bin NCCL_IB_HCA=mlx5_9 $AS_NOBODY sleep 60 &
	kids="$kids $!"
	sleep 0.3
	setpriv --reuid=1000 --regid=1000 --clear-groups "$bin" wizard --batch --steps job > "$T/job.txt" 2> "$T/job.err"; rc=$?
	if has "$T/job.txt" "not readable as uid 1000" "run as root, or with CAP_SYS_PTRACE" "job.unreadable" && sane "$T/job.err"; then
		ok "job step as uid 1000: another uid's process is counted as not readable"
	else
		nok "job step as uid 1000: another uid's process is counted as not readable" "$(cat "$T/job.txt" "$T/job.err")"
	fi
	if [ $rc -eq 1 ] && ! grep -q "no NCCL process on this node" "$T/job.txt"; then
		ok "job step: not \"no NCCL process\" when some could not be read"
	else
		nok "job step: not \"no NCCL process\" when some could not be read" "exit $rc" "$(grep verdict "$T/job.txt")"
	fi
fi

# ---- a capture that recorded unreadable processes -----------------------------
copy ib-8port procs && rm -rf "$T/procs/fabtop/procs" &&
	python3 - "$T/procs/fabtop/meta.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m["procs_unreadable"] = 12; m["uid"] = 1000
json.dump(m, open(sys.argv[1], "w"))
PY
"$bin" --root "$T/procs" wizard --batch --steps job > "$T/procs.txt" 2>&1; rc=$?
if [ $rc -eq 1 ] && has "$T/procs.txt" "12 processes not readable as uid 1000" &&
   ! grep -q "no NCCL process in the capture" "$T/procs.txt"; then
	ok "a capture that could not read 12 processes: the job step says so, exit 1"
else
	nok "a capture that could not read 12 processes: the job step says so, exit 1" "exit $rc" "$(cat "$T/procs.txt")"
fi

# ---- a capture cut short; a directory that is no node ----------------------------
sz=$(wc -c < "$SC/ib-8port.tar.gz")
head -c $((sz / 2)) "$SC/ib-8port.tar.gz" > "$T/cut.tar.gz"
"$bin" --root "$T/cut.tar.gz" report links --json > "$T/cut.json" 2> "$T/cut.err"; rc=$?
if [ $rc -eq 2 ] && json "$T/cut.json" 'd["verdict"] == "unknown" and any("truncated" in w for w in d["unknown_because"])' && sane "$T/cut.err"; then
	ok "a capture cut in half: verdict unknown naming the truncation, exit 2"
else
	nok "a capture cut in half: verdict unknown naming the truncation, exit 2" "exit $rc" "$(head -c 800 "$T/cut.json")" "$(cat "$T/cut.err")"
fi
"$bin" --root "$T/cut.tar.gz" report topo > "$T/cutt.txt" 2>&1; rc=$?
if [ $rc -eq 2 ] && has "$T/cutt.txt" "Verdict: unknown" "truncated"; then
	ok "a capture cut in half: report topo unknown too"
else
	nok "a capture cut in half: report topo unknown too" "exit $rc" "$(tail -5 "$T/cutt.txt")"
fi
mkdir -p "$T/notanode/etc"
"$bin" --root "$T/notanode" report links > "$T/nan.txt" 2> "$T/nan.err"; rc=$?
if [ $rc -eq 2 ] && [ ! -s "$T/nan.txt" ] && has "$T/nan.err" "is not a node root"; then
	ok "--root of a directory with no sys/ (like /tmp): refused, exit 2"
else
	nok "--root of a directory with no sys/ (like /tmp): refused, exit 2" "exit $rc" "$(cat "$T/nan.txt" "$T/nan.err" | head)"
fi

# ---- a capture without its CPUs shows none of this machine's ---------------------
copy dgx-h100 nocpu && rm -f "$T/nocpu/fabtop/hwloc.xml"
want=$(cat "$T/nocpu/sys/devices/system/node/node0/cpulist")
host=$(cat /sys/devices/system/node/node0/cpulist 2>/dev/null || echo "0-$(($(nproc) - 1))")
"$bin" --root "$T/nocpu" report all --json > "$T/nocpu.json" 2> "$T/nocpu.err"
if json "$T/nocpu.json" "[n['cpus'] for n in d['numa_nodes'] if n['id'] == 0] == ['$want']" &&
   { [ "$want" = "$host" ] || ! json "$T/nocpu.json" "any(n['cpus'] == '$host' for n in d['numa_nodes'])"; } &&
   sane "$T/nocpu.err"; then
	ok "no cpuN folders, no hwloc.xml: node0 has the capture's CPUs ($want), not this machine's ($host)"
else
	nok "no cpuN folders, no hwloc.xml: node0 has the capture's CPUs ($want), not this machine's ($host)" \
		"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["numa_nodes"])' "$T/nocpu.json" 2>&1)"
fi
rm -rf "$T/nocpu/sys/devices/system/node"
"$bin" --root "$T/nocpu" report all --json > "$T/nonode.json" 2> "$T/nonode.err"
if json "$T/nonode.json" "d['numa_nodes'] == []"; then
	ok "no CPU folders, no node folders, no hwloc.xml: NUMA unknown, not this machine's"
else
	nok "no CPU folders, no node folders, no hwloc.xml: NUMA unknown, not this machine's" \
		"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["numa_nodes"])' "$T/nonode.json" 2>&1)"
fi

# ---- a 64-bit jump in recorded samples -----------------------------------------
copy busy jump && python3 - "$T/jump/fabtop/samples.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
k = "/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data"
for s in d["samples"][2:]:
    s["values"][k] += 92233720368547758
json.dump(d, open(p, "w"))
PY
"$bin" --root "$T/jump" report counters --count 3 --json > "$T/jump.json" 2> "$T/jump.err"; rc=$?
chk='[p for p in d["samples"][1]["ports"] if p["dev"] == "mlx5_0" and p["port"] == 1][0]'
if [ $rc -eq 1 ] && json "$T/jump.json" "$chk['tx_gbps'] is None and 'IMPLAUSIBLE' in $chk['state'] and 'ok' not in $chk['state'].split(',')" &&
   json "$T/jump.json" 'any(c["name"] == "port_xmit_data" for c in d["summary"]["implausible"])' && sane "$T/jump.err"; then
	ok "a 64-bit jump in recorded port_xmit_data: IMPLAUSIBLE, no rate, exit 1"
else
	nok "a 64-bit jump in recorded port_xmit_data: IMPLAUSIBLE, no rate, exit 1" "exit $rc" "$(cat "$T/jump.err")"
fi
"$bin" --root "$T/jump" report counters --count 3 > "$T/jump.txt" 2>&1
if grep -q "mlx5_0/1 .*IMPLAUSIBLE" "$T/jump.txt" && ! grep -qE "[0-9]{7,}\.[0-9]{2} " "$T/jump.txt"; then
	ok "the text shows IMPLAUSIBLE and no rate of billions of Gb/s"
else
	nok "the text shows IMPLAUSIBLE and no rate of billions of Gb/s" "$(grep -n "mlx5_0/1" "$T/jump.txt" | head -5)"
fi

# ---- a negative error counter in the snapshot ------------------------------------
copy ib-8port neg && D=$(realdir "$T/neg/sys/class/infiniband/mlx5_0") &&
	printf -- '-1\n' > "$D/ports/1/counters/symbol_error"
"$bin" --root "$T/neg" report links --json > "$T/neg.json" 2> "$T/neg.err"; rc=$?
if [ $rc -eq 1 ] && json "$T/neg.json" 'any(f["id"] == "links.counter-implausible" and f["subject"] == "mlx5_0/1" and "-1" in f["message"] for f in d["findings"]) and d["verdict"] == "findings"' &&
   json "$T/neg.json" '[p for h in d["links"]["hcas"] if h["name"] == "mlx5_0" for p in h["ports"]][0]["errors"]["symbol_error"] is None' && sane "$T/neg.err"; then
	ok "symbol_error reading -1: links.counter-implausible, exit 1 (not 0)"
else
	nok "symbol_error reading -1: links.counter-implausible, exit 1 (not 0)" "exit $rc" "$(cat "$T/neg.err")"
fi

# ---- TERM=dumb -------------------------------------------------------------------
if ! command -v script >/dev/null 2>&1; then
	skip "TERM=dumb: the batch report and a note, not the console" "needs script(1) for a terminal"
else
	TERM=dumb timeout 20 script -qec "'$bin' --root '$SC/ib-8port'" /dev/null < /dev/null > "$T/dumb.txt" 2>&1; rc=$?
	if [ $rc -eq 0 ] && has "$T/dumb.txt" "cannot move the cursor" "RDMA netns mode" "Findings:" && sane "$T/dumb.txt"; then
		ok "TERM=dumb: the batch report and a note, not the console"
	else
		nok "TERM=dumb: the batch report and a note, not the console" "exit $rc" "$(head -c 600 "$T/dumb.txt")"
	fi
fi
exit 0
