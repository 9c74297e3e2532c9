#!/bin/sh
# Batch mode of `fabtop wizard` on real processes and a real network:
# client, router and server network namespaces (RECIPES §5, unique names,
# removed on exit), endpoints at MTU 9000; `wizard --batch --steps l2`
# runs inside the client namespace as nobody and must give mtu-ok 9000,
# mtu-path-lower 1500 (hop 10.99.1.1), mtu-blackhole 1500 (nftables drops
# the router's "fragmentation needed") and unreachable, with exit codes
# 0/1/1/1, JSON that carries the verdict and the numbers, and a logarithmic
# probe count. Then bad input (refused with exit 2, nothing executed),
# --steps bogus, step job with no NCCL process (a private PID namespace),
# a blocked l2 (no such interface; an NCCL job whose NCCL_SOCKET_IFNAME
# names none).
# Needs root (namespaces), jq, nft. Prints "ok - name" / "not ok - name".
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
T=$(mktemp -d /tmp/fabtop-wiz.XXXXXX) || exit 1
chmod 755 "$T"
P=fw$$                      # namespace and interface prefix (IFNAMSIZ: keep it short)
NS_C=$P-c NS_R=$P-r NS_S=$P-s
C0=${P}c0 R0=${P}r0 R1=${P}r1 S0=${P}s0
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
BOUND=32                    # 2*ceil(log2(9000-576)) + 4: a binary search, not a sweep

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; }
comment() { sed 's/^/#   /'; }
check() {   # check NAME CONDITION-COMMAND...
	_n=$1; shift
	if "$@"; then ok "$_n"; else notok "$_n"; fi
}

teardown() {
	for n in "$NS_C" "$NS_R" "$NS_S" "$P-j" "$P-k"; do ip netns del "$n" 2>/dev/null; done
}
cleanup() {
	teardown
	[ -n "${JOBPID:-}" ] && kill "$JOBPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

why=
[ "$(id -u)" = 0 ] || why="needs root (network namespaces)"
for c in ip jq nft setpriv sysctl unshare; do
	[ -n "$why" ] || command -v $c >/dev/null || why="needs $c (scripts/deps.sh check)"
done
if [ -n "$why" ]; then
	ok "wizard batch on namespaces # SKIP $why"
	exit 0
fi
if [ ! -x "$BIN" ]; then
	notok "no binary at $BIN (make build/san/fabtop)"
	exit 0
fi

# setup R1_MTU [blackhole]: fresh namespaces (a fresh PMTU cache) per case.
setup() {
	teardown
	for n in "$NS_C" "$NS_R" "$NS_S"; do ip netns add "$n" && ip -n "$n" link set lo up; done
	ip link add "$C0" netns "$NS_C" type veth peer name "$R0" netns "$NS_R"
	ip link add "$R1" netns "$NS_R" type veth peer name "$S0" netns "$NS_S"
	ip -n "$NS_C" addr add 10.99.1.2/24 dev "$C0"
	ip -n "$NS_R" addr add 10.99.1.1/24 dev "$R0"
	ip -n "$NS_R" addr add 10.99.2.1/24 dev "$R1"
	ip -n "$NS_S" addr add 10.99.2.2/24 dev "$S0"
	ip -n "$NS_C" link set "$C0" mtu 9000 up
	ip -n "$NS_R" link set "$R0" mtu 9000 up
	ip -n "$NS_R" link set "$R1" mtu "$1" up
	ip -n "$NS_S" link set "$S0" mtu 9000 up
	ip -n "$NS_C" route add default via 10.99.1.1
	ip -n "$NS_S" route add default via 10.99.2.1
	# An address routed nowhere: the router drops it silently.
	ip -n "$NS_R" route add blackhole 10.99.3.0/24
	ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1
	if [ "${2:-}" = blackhole ]; then
		ip netns exec "$NS_R" nft add table inet bh
		ip netns exec "$NS_R" nft add chain inet bh out '{ type filter hook output priority 0; }'
		ip netns exec "$NS_R" nft add rule inet bh out icmp type destination-unreachable \
			icmp code frag-needed counter drop
	fi
}

# wiz OUT ARGS...: the wizard in the client namespace as nobody; rc in $RC.
wiz() {
	out=$1; shift
	ip netns exec "$NS_C" $NOBODY "$BIN" wizard --batch "$@" >"$out" 2>"$out.err"
	RC=$?
}

# l2case NAME R1_MTU [blackhole] PEER VERDICT PATH_MTU RC [HOP HOP_MTU]
l2case() {
	name=$1 mtu=$2 bh=$3 peer=$4 verdict=$5 pmtu=$6 want=$7 hop=${8:-} hmtu=${9:-}
	setup "$mtu" "$bh"
	wiz "$T/$name.txt" --steps l2 --iface "$C0" --peer "$peer" --probe-timeout 0.5
	tp=$pmtu; [ "$pmtu" = null ] && tp=N/A
	if [ "$RC" = "$want" ] && grep -q "; $verdict, path MTU $tp" "$T/$name.txt"; then
		ok "$name: text says $verdict, path MTU $tp; exit $want"
	else
		notok "$name: text says $verdict, path MTU $tp; exit $want (rc $RC)"
		cat "$T/$name.txt" "$T/$name.txt.err" | head -30 | comment
	fi
	setup "$mtu" "$bh"    # the first run taught the kernel the PMTU: start clean
	wiz "$T/$name.json" --steps l2 --iface "$C0" --peer "$peer" --probe-timeout 0.5 --json
	J=$T/$name.json
	if [ "$RC" = "$want" ] && jq -e . "$J" >/dev/null 2>&1; then
		ok "$name: JSON parses, exit $want"
	else
		notok "$name: JSON parses, exit $want (rc $RC)"
		head -30 "$J" "$J.err" | comment
	fi
	got=$(jq -r '.wizard.steps[0].peers[0] | "\(.verdict) \(.path_mtu) \(.route_dev) \(.route_ok)"' "$J" 2>/dev/null)
	check "$name: JSON verdict $verdict, path_mtu $pmtu, route through $C0 ($got)" \
		[ "$got" = "$verdict $pmtu $C0 true" ]
	if [ -n "$hop" ]; then
		got=$(jq -r '.wizard.steps[0].peers[0] | "\(.hop) \(.hop_mtu)"' "$J" 2>/dev/null)
		check "$name: hop $hop said $hmtu ($got)" [ "$got" = "$hop $hmtu" ]
	fi
	n=$(jq -r '.wizard.steps[0].peers[0].probes' "$J" 2>/dev/null)
	check "$name: $n probes, at most $BOUND" [ "${n:-99}" -ge 1 ] && [ "${n:-99}" -le "$BOUND" ]
	st=$(jq -r '.wizard.steps[0].status' "$J" 2>/dev/null)
	case $want in 0) s=pass ;; *) [ "$verdict" = mtu-path-lower ] && s=warn || s=fail ;; esac
	check "$name: step status $s ($st)" [ "$st" = "$s" ]
}

l2case mtu-ok 9000 "" 10.99.2.2 mtu-ok 9000 0
l2case mtu-path-lower 1500 "" 10.99.2.2 mtu-path-lower 1500 1 10.99.1.1 1500
l2case mtu-blackhole 1500 blackhole 10.99.2.2 mtu-blackhole 1500 1
l2case unreachable 9000 "" 10.99.3.3 unreachable null 1

# The interface's facts and what was run are in the text.
setup 9000 ""
wiz "$T/facts.txt" --steps l2 --iface "$C0" --peer 10.99.2.2 --verbose
if grep -q "^  ran: .*getifaddrs() and ioctl(SIOCGIFMTU, SIOCGIFFLAGS) on $C0" "$T/facts.txt" &&
   grep -q "^ *UDP DF probe to 10.99.2.2:33434 (in-process, IP_PMTUDISC_PROBE + IP_RECVERR), sizes 9000$" "$T/facts.txt" &&
   grep -q "route lookup to 10.99.2.2" "$T/facts.txt" &&
   grep -q "$C0: mtu 9000, UP,RUNNING, addresses: 10.99.1.2" "$T/facts.txt" &&
   grep -q "route to 10.99.2.2: dev $C0 via 10.99.1.1 src 10.99.1.2" "$T/facts.txt"; then
	ok "l2 --verbose: the probe and the route lookup under ran:, the interface and route in the output"
else
	notok "l2 --verbose: the probe and the route lookup under ran:, the interface and route in the output"
	head -40 "$T/facts.txt" | comment
fi

# A peer whose route leaves through another interface: a second link in the
# client (a veth pair of its own), with the server's subnet routed through it.
ip -n "$NS_C" link add "${P}d0" type veth peer name "${P}d1"
ip -n "$NS_C" addr add 10.99.5.2/24 dev "${P}d0"
ip -n "$NS_C" link set "${P}d1" up
ip -n "$NS_C" link set "${P}d0" up
ip -n "$NS_C" route add 10.99.2.0/24 dev "${P}d0"
wiz "$T/other.json" --steps l2 --iface "$C0" --peer 10.99.2.2 --probe-timeout 0.3 --json
got=$(jq -r '.wizard.steps[0].peers[0] | "\(.route_dev) \(.route_ok)"' "$T/other.json" 2>/dev/null)
if [ "$RC" = 1 ] && [ "$got" = "${P}d0 false" ] &&
   jq -e '[.wizard.steps[0].findings[].id] | index("l2.route-other-iface")' "$T/other.json" >/dev/null; then
	ok "l2: a route through ${P}d0 instead of $C0 is l2.route-other-iface, exit 1"
else
	notok "l2: a route through ${P}d0 instead of $C0 is l2.route-other-iface, exit 1 (rc $RC, $got)"
	head -40 "$T/other.json" | comment
fi

# ---- bad input: refused before anything runs ----------------------------------
for bad in "--peer ;touch $T/pwned-peer" "--iface \$(touch $T/pwned-if)" "--peer \$(id)" "--iface ;reboot" \
	   "--hca mlx5_0;touch $T/pwned-hca"; do
	opt=${bad%% *} val=${bad#* }
	"$BIN" wizard --batch --steps l2 "$opt" "$val" >"$T/bad.out" 2>"$T/bad.err"
	rc=$?
	if [ $rc = 2 ] && grep -q "refused" "$T/bad.err" && [ ! -s "$T/bad.out" ]; then
		ok "bad input $opt '$val': exit 2, refused with a message, nothing printed"
	else
		notok "bad input $opt '$val': exit 2, refused with a message, nothing printed (rc $rc)"
		cat "$T/bad.err" "$T/bad.out" | head -5 | comment
	fi
done
if ls "$T"/pwned-* >/dev/null 2>&1; then
	notok "no payload ran (a pwned-* file exists)"
else
	ok "no payload ran (no pwned-* file)"
fi
"$BIN" wizard --batch --peer '$(id)' 2>"$T/id.err" >/dev/null
check "the message names the refused value and says nothing was run" \
	grep -q "refused peer '\$(id)': '\\$' is a shell metacharacter.*(nothing was run)" "$T/id.err"

"$BIN" wizard --batch --steps bogus >"$T/bogus.out" 2>"$T/bogus.err"
rc=$?
if [ $rc = 2 ] && grep -q 'unknown step "bogus" (steps: job l1 l2' "$T/bogus.err"; then
	ok "--steps bogus: exit 2, names the known steps"
else
	notok "--steps bogus: exit 2, names the known steps (rc $rc)"
	comment <"$T/bogus.err"
fi
"$BIN" wizard --batch --peer a --peer b --peer c --peer d --peer e --peer f --peer g --peer h --peer i \
	>/dev/null 2>"$T/many.err"
rc=$?
check "nine peers: exit 2 (at most 8)" [ $rc = 2 ]

# ---- step job, in a private PID namespace (other processes stay out) ----------
unshare --pid --fork --mount-proc "$BIN" wizard --batch --steps job >"$T/job.txt" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "^\[job\].* skipped" "$T/job.txt" &&
   grep -q "no NCCL process on this node; using --iface/--hca/--peer" "$T/job.txt"; then
	ok "step job without an NCCL process: skipped, says it uses --iface/--hca/--peer, exit 0"
else
	notok "step job without an NCCL process: skipped, says it uses --iface/--hca/--peer, exit 0 (rc $rc)"
	head -20 "$T/job.txt" | comment
fi

# ---- blocked ----------------------------------------------------------------------
ip netns exec "$NS_C" "$BIN" wizard --batch --steps l2 --iface nosuch0 --peer 10.99.2.2 --json \
	>"$T/blk.json" 2>&1
rc=$?
got=$(jq -r '.wizard.steps[0] | "\(.status)|\(.verdict)"' "$T/blk.json" 2>/dev/null)
check "l2 with --iface nosuch0: blocked, the interface does not exist here, exit 1 ($got)" \
	[ $rc = 1 ] && [ "$got" = "blocked|blocked: interface nosuch0 (--iface) does not exist in this network namespace" ]

# An NCCL job whose NCCL_SOCKET_IFNAME names no interface: step job fails,
# l2 is blocked by it, with the reason.
unshare --pid --fork --mount-proc sh -c '
	env NCCL_SOCKET_IFNAME=nosuch NCCL_DEBUG=INFO sleep 30 &
	sleep 0.2
	exec "$0" wizard --batch --steps job,l2 --peer 10.99.2.2' "$BIN" >"$T/jobl2.txt" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "^\[l2\].* blocked" "$T/jobl2.txt" &&
   grep -q "blocked: NCCL_SOCKET_IFNAME=nosuch of pid [0-9]* matches no usable interface in its network namespace (step job)" "$T/jobl2.txt" &&
   grep -q "job.ifname-missing" "$T/jobl2.txt"; then
	ok "an NCCL job with NCCL_SOCKET_IFNAME=nosuch: job.ifname-missing, l2 blocked by it with the reason"
else
	notok "an NCCL job with NCCL_SOCKET_IFNAME=nosuch: job.ifname-missing, l2 blocked by it with the reason (rc $rc)"
	head -40 "$T/jobl2.txt" | comment
fi
# An NCCL job in a namespace of its own (a veth to a second one): from
# fabtop's namespace, l2 is blocked and says to run inside the job's; run
# there (ip netns exec), l2 takes NCCL_SOCKET_IFNAME and probes through it.
NS_J=$P-j NS_K=$P-k
ip netns add "$NS_J" && ip netns add "$NS_K"
ip link add "${P}j0" netns "$NS_J" type veth peer name "${P}k0" netns "$NS_K"
ip -n "$NS_J" addr add 10.99.7.2/24 dev "${P}j0"
ip -n "$NS_K" addr add 10.99.7.1/24 dev "${P}k0"
ip -n "$NS_J" link set "${P}j0" up
ip -n "$NS_K" link set "${P}k0" up
ip netns exec "$NS_J" env -i NCCL_SOCKET_IFNAME="${P}j0" NCCL_DEBUG=WARN sleep 60 &
JOBPID=$!
sleep 0.3
"$BIN" wizard --batch --steps job,l2 --pid "$JOBPID" --peer 10.99.7.1 >"$T/netns.txt" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "^\[l2\].* blocked" "$T/netns.txt" &&
   grep -q "blocked: interface ${P}j0 (NCCL_SOCKET_IFNAME=${P}j0 of pid $JOBPID) does not exist in this network namespace; the job runs in another one" "$T/netns.txt"; then
	ok "a job in another namespace: l2 blocked here, says to run inside the job's namespace"
else
	notok "a job in another namespace: l2 blocked here, says to run inside the job's namespace (rc $rc)"
	head -40 "$T/netns.txt" | comment
fi
ip netns exec "$NS_J" "$BIN" wizard --batch --steps job,l2 --pid "$JOBPID" --peer 10.99.7.1 --json \
	>"$T/netns.json" 2>&1
rc=$?
got=$(jq -r '.wizard.steps[1] | "\(.status) \(.inputs[0]) \(.peers[0].verdict) \(.peers[0].path_mtu)"' "$T/netns.json" 2>/dev/null)
want="pass interface ${P}j0 (NCCL_SOCKET_IFNAME=${P}j0 of pid $JOBPID) mtu-ok 1500"
check "inside the job's namespace: l2 takes ${P}j0 from NCCL_SOCKET_IFNAME, mtu-ok 1500 ($got)" \
	[ $rc = 0 ] && [ "$got" = "$want" ]
kill "$JOBPID" 2>/dev/null
ip netns del "$NS_J"; ip netns del "$NS_K"
exit 0
