#!/bin/sh
# A real prometheus-node-exporter serves fabtop's metrics: the test writes
# `fabtop report metrics -o DIR/fabtop.prom` for the pinned scenario, and
# into a second DIR for a copy of roce-faults with a hostile HCA name (ESC,
# a raw C1 byte, a quote, a newline, a backslash); for each DIR it starts
# node_exporter with only the textfile collector on it and a free port of
# 127.0.0.1, scrapes /metrics over HTTP (python3) and finds every fabtop
# sample of the file in the scrape with the same labels and value, and
# node_textfile_scrape_error 0. Each node_exporter is killed by its pid.
NAME=nodeexp; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
SC=$top/build/scenarios
need "$SC/pinned" "$SC/roce-faults"
NE=$(command -v prometheus-node-exporter || command -v node_exporter)
if [ -z "$NE" ]; then
	echo "ok - node_exporter serves fabtop's metrics # SKIP prometheus-node-exporter is not installed"
	exit 0
fi
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
mkdir "$T/tf"
"$bin" --root "$SC/pinned" report metrics -o "$T/tf/fabtop.prom" 2> "$T/err"; rc=$?
if [ $rc -ne 1 ] || [ ! -s "$T/tf/fabtop.prom" ]; then
	nok "report metrics -o for the pinned scenario" "exit $rc" "$(cat "$T/err")"
	exit 0
fi
# Hostile names in a second directory (another node): node_exporter's
# parser (client_golang's expfmt) must take the file whole.
ESC=$(printf '\033') CSI=$(printf '\233') NL='
'
R=$T/hostile
cp -a "$SC/roce-faults" "$R" || { nok "copy roce-faults"; exit 0; }
HCA="x${ESC}[2J${CSI}\"} 1${NL}fabtop_forged 1\\"
class_rename "$R/sys/class/infiniband/mlx5_1" "$HCA" || { nok "rename an HCA"; exit 0; }
mkdir "$T/tf2" && "$bin" --root "$R" report metrics -o "$T/tf2/fabtop.prom" 2>> "$T/err"

# serve NAME DIR: node_exporter on DIR (its own port), every fabtop sample
# of DIR's files compared with the scrape; one TAP line. A node's
# textfiles hold one node: the two cases get a node_exporter each.
serve() {
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$NE" --collector.disable-defaults --collector.textfile --collector.textfile.directory="$2" \
		--web.listen-address="127.0.0.1:$port" > "$T/ne.log" 2>&1 &
	pid=$!
	up=""
	for i in $(seq 1 100); do
		if python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' \
			"http://127.0.0.1:$port/metrics" 2>/dev/null; then up=1; break; fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$up" ]; then
		if grep -qi "address already in use\|permission denied\|cannot assign" "$T/ne.log"; then
			echo "ok - $1 # SKIP node_exporter could not listen: $(tail -1 "$T/ne.log")"
		else
			nok "$1: node_exporter started on 127.0.0.1:$port" "$(tail -c 800 "$T/ne.log")"
		fi
	else
		python3 - "http://127.0.0.1:$port/metrics" "$top/tests/metrics" "$2"/*.prom > "$T/cmp" 2>&1 <<'PY'
import sys, urllib.request
sys.path.insert(0, sys.argv[2])
import prom
scrape = prom.parse(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode("utf-8"))
got = {(s[0], tuple(sorted(s[1].items()))): s[2] for s in scrape}
bad = []
nfab = 0
for f in sys.argv[3:]:
    for s in prom.parse(open(f, encoding="utf-8").read()):
        nfab += 1
        k = (s[0], tuple(sorted(s[1].items())))
        if got.get(k) != s[2]:
            bad.append("%s %s: file %r, scrape %r" % (f.rsplit("/", 1)[1], k, s[2], got.get(k)))
errs = [s for s in scrape if s[0] == "node_textfile_scrape_error"]
if not errs or errs[0][2] != 0:
    bad.append("node_textfile_scrape_error %r" % (errs,))
if any(s[0] == "fabtop_forged" for s in scrape):
    bad.append("a forged series reached the scrape")
print("\n".join(bad[:20]) if bad else "ok %d" % nfab)
PY
		if r=$(cat "$T/cmp") && [ "${r%% *}" = ok ]; then
			ok "$1: all ${r#ok } fabtop samples served, labels and values exact, no textfile error"
		else
			nok "$1" "$r" "$(tail -c 800 "$T/ne.log")"
		fi
	fi
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=""
}
serve "node_exporter's textfile collector serves the pinned scenario" "$T/tf"
serve "node_exporter's textfile collector takes hostile names (escapes, quote, newline, backslash)" "$T/tf2"
if grep -q 'fabtop_port_saturated{device="mlx5_2",port="1",counter="link_downed"} 1$' "$T/tf/fabtop.prom"; then
	ok "the pinned scenario's file says link_downed of mlx5_2/1 is saturated"
else
	nok "the pinned scenario's file says link_downed of mlx5_2/1 is saturated"
fi
