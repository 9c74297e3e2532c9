#!/bin/sh
# The path-MTU probe over real namespaces (client - router - server, endpoints
# at MTU 9000), run inside the client as nobody: a clean path, a 1500 hop that
# says frag-needed, the same hop with its ICMP dropped (black hole), a 1700
# black hole (off the common sizes: the halving search), a peer whose "port
# unreachable" answers are used up (rate limit), a dead server, an unroutable
# peer, no route, IPv6 for the first three, and `fabtop wizard --batch --steps
# l2` on three paths. Checks verdicts, sizes, probe counts (logarithmic), and
# with nftables counters that the probe sent nothing but its probes, only to
# the peer. Prints "ok - name" / "not ok - name". KEEP=1 keeps the outputs.
# Needs root (namespaces), nft, setpriv; $FABTOP_TOP (the repository, with the
# sanitized objects built: make tests).
FABTOP_TOP=${FABTOP_TOP:-$PWD}
FABTOP=${FABTOP:-$FABTOP_TOP/build/san/fabtop}
SAN=$FABTOP_TOP/build/san
PFX=fabtop-mtu-$$
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-mtu.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
NSLIST=
cleanup() {
	for n in $NSLIST; do ip netns del "$n" 2>/dev/null; done
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
chmod 755 "$T"

ok() { echo "ok - $1"; }
notok() {
	echo "not ok - $1"
	shift
	for f in "$@"; do [ -f "$f" ] && sed 's/^/#   /' "$f" | tail -n 25; done
}
skip_all() {
	for n in "clean 9000 path" "maximum above the interface" "loopback" "1500 hop" "black hole at 1500" "black hole at 1700" "rate-limited peer" "rate-limited peer, black hole" \
		 "server down" "unroutable peer" "no route" "IPv6" "bad peer" \
		 "router rejects, port unreachable" "IPv6 router rejects, port unreachable" "router rejects, admin-prohibited" \
		 "wizard batch, clean path" "wizard batch, 1500 hop" "wizard batch, black hole"; do
		echo "ok - $n # SKIP $1"
	done
	exit 0
}
[ "$(id -u)" = 0 ] || skip_all "needs root to build namespaces"
for c in ip nft setpriv sysctl; do command -v $c >/dev/null || skip_all "needs $c"; done
[ -f "$SAN/src/mtu_probe.o" ] || skip_all "build the sanitized objects first (make tests)"

# The driver, linked like the unit tests: every library object, sanitizers on.
# If another module's object is broken mid-change, the probe's own two suffice.
CFLAGS_SAN="-std=gnu11 -O1 -g -Wall -Wextra -Werror -I$FABTOP_TOP/include -I$FABTOP_TOP/src -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
LIBS="$(pkg-config --libs ncursesw libnl-3.0 libnl-route-3.0 hwloc libpci jansson libarchive 2>/dev/null) -ldl -lm"
OBJS=$(find "$SAN/src" "$SAN/views" -name '*.o' ! -path "$SAN/src/main.o" 2>/dev/null | sort)
# shellcheck disable=SC2086
cc $CFLAGS_SAN -o "$T/driver" "$FABTOP_TOP/tests/mtu/driver.c" $OBJS -Wl,--as-needed $LIBS 2>"$T/cc.err" ||
	cc $CFLAGS_SAN -o "$T/driver" "$FABTOP_TOP/tests/mtu/driver.c" "$SAN/src/mtu_probe.o" "$SAN/src/util.o" 2>>"$T/cc.err" ||
	{ notok "build the driver" "$T/cc.err"; exit 0; }
chmod 755 "$T/driver"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# net N RMTU [blackhole]: fresh client/router/server namespaces $C $R $S (a
# fresh kernel PMTU cache each time); the router's server side at RMTU; with
# blackhole the router drops the ICMP it would send about sizes.
CASE=0
net() {
	CASE=$((CASE + 1))
	C=$PFX-$CASE-c R=$PFX-$CASE-r S=$PFX-$CASE-s
	for n in $C $R $S; do
		ip netns add "$n" && NSLIST="$NSLIST $n" && ip -n "$n" link set lo up
		ip netns exec "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
	done
	ip -n "$C" link add c0 type veth peer name r0 netns "$R"
	ip -n "$R" link add r1 type veth peer name s0 netns "$S"
	ip -n "$C" addr add 10.99.1.2/24 dev c0
	ip -n "$R" addr add 10.99.1.1/24 dev r0
	ip -n "$R" addr add 10.99.2.1/24 dev r1
	ip -n "$S" addr add 10.99.2.2/24 dev s0
	ip -n "$C" addr add fd99:1::2/64 dev c0 nodad
	ip -n "$R" addr add fd99:1::1/64 dev r0 nodad
	ip -n "$R" addr add fd99:2::1/64 dev r1 nodad
	ip -n "$S" addr add fd99:2::2/64 dev s0 nodad
	ip -n "$C" link set c0 mtu 9000 up
	ip -n "$R" link set r0 mtu 9000 up
	ip -n "$R" link set r1 mtu "$2" up
	ip -n "$S" link set s0 mtu 9000 up
	ip -n "$C" route add default via 10.99.1.1
	ip -n "$S" route add default via 10.99.2.1
	ip -n "$C" -6 route add default via fd99:1::1
	ip -n "$S" -6 route add default via fd99:2::1
	ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	if [ "$3" = blackhole ]; then
		ip netns exec "$R" nft -f - <<-EOF
		table inet bh {
			chain out {
				type filter hook output priority 0;
				icmp type destination-unreachable icmp code frag-needed counter drop
				icmpv6 type packet-too-big counter drop
			}
		}
		EOF
		ip netns exec "$C" ip route flush cache
	fi
	# What the client sends: UDP probes to the server, and anything else.
	ip netns exec "$C" nft -f - <<-EOF
	table inet watch {
		chain out {
			type filter hook output priority 0;
			ip daddr 10.99.2.2 udp dport 33434-33533 counter
			ip6 daddr fd99:2::2 udp dport 33434-33533 counter
			meta l4proto { tcp, udp, icmp } counter
			meta nfproto ipv6 meta l4proto { tcp, udp } counter
		}
	}
	EOF
}

# ready6: waits (up to 3 s) until IPv6 is up on every veth: each namespace
# has its multicast route per link. Until the kernel's link watcher gets to a
# link (it batches events up to a second apart), the router drops neighbour
# solicitations there and the path is dead for IPv6.
ready6() {
	i=0
	while [ $i -lt 60 ]; do
		n=$(for x in $C $R $S; do ip -n "$x" -6 route show table local | grep -c '^multicast'; done | tr '\n' ' ')
		[ "$n" = "1 2 1 " ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	echo "# IPv6 not up after 3 s: $n"
	return 1
}
# probe NS OUT ARGS...: the driver inside NS as nobody.
probe() {
	ns=$1 out=$2
	shift 2
	ip netns exec "$ns" setpriv --reuid=65534 --regid=65534 --clear-groups "$T/driver" "$@" >"$out" 2>&1
	echo "exit=$?" >>"$out"
}
# sent NS: "to-peer-v4 to-peer-v6 all-v4... all-v6-tcp-udp" packet counts of the watch chain.
sent() {
	ip netns exec "$1" nft list chain inet watch out | sed -n 's/.*counter packets \([0-9]*\).*/\1/p' | tr '\n' ' '
}
# expect FILE key=value...: every key has that value; prints the first mismatch.
expect() {
	f=$1
	shift
	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=}
		if [ "$k" = probe ]; then   # one of the probe lines starts with v
			grep -q -F -x -e "probe=$v" "$f" || awk -v p="probe=$v (" 'index($0, p) == 1 { f = 1 } END { exit !f }' "$f" ||
				{ echo "no line 'probe=$v (...'" >>"$f"; return 1; }
			continue
		fi
		got=$(sed -n "s/^$k=//p" "$f" | head -n 1)
		[ "$got" = "$v" ] || { echo "$k is '$got', want '$v'" >>"$f"; return 1; }
	done
	grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error:' "$f" &&
		{ echo "sanitizer report" >>"$f"; return 1; }
	return 0
}
# Logarithmic: two sends (one retry) per step of a halving search over
# 576..9000, plus the first size, the minimum and a few common sizes.
BOUND=32
bounded() {
	n=$(sed -n 's/^nprobes=//p' "$1")
	[ -n "$n" ] && [ "$n" -le $BOUND ] || { echo "nprobes $n above $BOUND" >>"$1"; return 1; }
}

TO="--timeout 0.3"

net 1 9000
probe "$C" "$T/ok" 10.99.2.2 $TO
counts=$(sent "$C")
if expect "$T/ok" exit=0 rc=0 verdict=mtu-ok path_mtu=9000 nprobes=1 egress=c0 iface_mtu=9000 \
	hop= hop_mtu=0 wrong_egress=0 "probe=9000 bytes: reached 10.99.2.2" &&
	[ "$counts" = "1 0 1 0 " ] || { echo "sent: $counts, want 1 0 1 0" >>"$T/ok"; false; }
then ok "clean 9000 path: mtu-ok 9000 in one probe, one packet sent, to the peer"
else notok "clean 9000 path: mtu-ok 9000 in one probe, one packet sent, to the peer" "$T/ok"
fi
probe "$C" "$T/big" 10.99.2.2 $TO --max 9216
if expect "$T/big" exit=0 verdict=mtu-ok path_mtu=9000 nprobes=2 \
	"probe=9216 bytes: local error: message too long, mtu 9000" "probe=9000 bytes: reached 10.99.2.2"
then ok "a maximum above the interface MTU: the kernel's refusal gives 9000, which reaches"
else notok "a maximum above the interface MTU: the kernel's refusal gives 9000, which reaches" "$T/big"
fi
ready6
probe "$C" "$T/ok6" fd99:2::2 $TO --iface eth7
if expect "$T/ok6" exit=0 verdict=mtu-ok path_mtu=9000 nprobes=1 egress=c0 wrong_egress=1
then ok "IPv6 clean path: mtu-ok 9000; an expected interface that is not the egress is said"
else notok "IPv6 clean path: mtu-ok 9000; an expected interface that is not the egress is said" "$T/ok6"
fi
probe "$C" "$T/lo" 127.0.0.1 $TO
if expect "$T/lo" exit=0 verdict=mtu-ok path_mtu=65535 nprobes=1 egress=lo iface_mtu=65536 route_mtu=65535 &&
	grep -q -x 'message=path to 127.0.0.1 via lo (MTU 65536) carries 65535 bytes' "$T/lo"
then ok "loopback: MTU 65536 probed as the largest IP packet, 65535"
else notok "loopback: MTU 65536 probed as the largest IP packet, 65535" "$T/lo"
fi
# The router has no default route.
probe "$R" "$T/noroute" 10.99.3.1 $TO
if expect "$T/noroute" exit=0 verdict=unreachable nprobes=0 path_mtu=0 &&
	grep -q '^message=nothing reached 10.99.3.1: no route (Network is unreachable)$' "$T/noroute"
then ok "no route: unreachable without sending, the kernel's reason given"
else notok "no route: unreachable without sending, the kernel's reason given" "$T/noroute"
fi

net 2 1500
probe "$C" "$T/lower" 10.99.2.2 $TO
if expect "$T/lower" exit=0 verdict=mtu-path-lower path_mtu=1500 hop=10.99.1.1 hop_mtu=1500 nprobes=2 \
	iface_mtu=9000 "probe=9000 bytes: frag-needed from 10.99.1.1 mtu 1500" &&
	grep -q -x 'message=path to 10.99.2.2 via c0 (MTU 9000): hop 10.99.1.1 reports MTU 1500 (frag-needed), larger packets stop there' "$T/lower"
then ok "1500 hop: mtu-path-lower, hop 10.99.1.1, 1500, in two probes"
else notok "1500 hop: mtu-path-lower, hop 10.99.1.1, 1500, in two probes" "$T/lower"
fi
# Again: the kernel now caches PMTU 1500 for the peer; the probe still measures.
probe "$C" "$T/lower2" 10.99.2.2 $TO
if expect "$T/lower2" exit=0 verdict=mtu-path-lower path_mtu=1500 hop=10.99.1.1 nprobes=2 route_mtu=1500 iface_mtu=9000
then ok "1500 hop, second run: the cached PMTU (route_mtu 1500) does not hide the hop"
else notok "1500 hop, second run: the cached PMTU (route_mtu 1500) does not hide the hop" "$T/lower2"
fi
ready6
probe "$C" "$T/lower6" fd99:2::2 $TO
if expect "$T/lower6" exit=0 verdict=mtu-path-lower path_mtu=1500 hop=fd99:1::1 hop_mtu=1500 nprobes=2
then ok "IPv6 1500 hop: mtu-path-lower, hop fd99:1::1 (packet too big), 1500"
else notok "IPv6 1500 hop: mtu-path-lower, hop fd99:1::1 (packet too big), 1500" "$T/lower6"
fi

# A peer out of answers: Linux sends "port unreachable" to one host 6 times
# at once, then once a second. Use them up (as root, outside the watch), then
# probe: sizes lost for want of an answer must not make the result smaller.
deplete() {
	for i in 1 2 3 4 5 6 7 8; do
		ip netns exec "$C" "$T/driver" 10.99.2.2 --max 576 --retries -1 --timeout 0.02 >/dev/null
	done
}
# probe_depleted OUT: deplete, then probe. The peer refills an answer a
# second: on a loaded machine one may come back between the two, and the
# probe then meets no limit at all (rate_limited=0), which is not the case
# under test; deplete again, at most three times. The verdict is checked
# whichever run is kept.
probe_depleted() {
	for try in 1 2 3; do
		deplete
		probe "$C" "$1" 10.99.2.2 $TO
		grep -q '^rate_limited=1$' "$1" && return 0
		echo "# try $try: the peer had answers again before the probe" >>"$1.tries"
	done
	cat "$1.tries" >>"$1"
}
probe_depleted "$T/rl"
if expect "$T/rl" exit=0 verdict=mtu-path-lower path_mtu=1500 hop=10.99.1.1 rate_limited=1 &&
	grep -q '^probe=1500 bytes: no answer' "$T/rl" && bounded "$T/rl"
then ok "1500 hop, the peer rate-limiting its answers: still mtu-path-lower 1500, pacing said"
else notok "1500 hop, the peer rate-limiting its answers: still mtu-path-lower 1500, pacing said" "$T/rl"
fi

net 3 1500 blackhole
probe "$C" "$T/bh" 10.99.2.2 $TO
counts=$(sent "$C")
# 9000 lost, 576 and 1500 reached, 1501 lost (short wait), and again after
# a quiet second with the full timeout.
if expect "$T/bh" exit=0 verdict=mtu-blackhole path_mtu=1500 hop= hop_mtu=0 nprobes=5 rate_limited=0 &&
	bounded "$T/bh" && [ "$counts" = "5 0 5 0 " ] || { echo "sent: $counts, want 5 0 5 0" >>"$T/bh"; false; }
then ok "black hole at 1500: mtu-blackhole, exactly 1500, 5 probes, all to the peer"
else notok "black hole at 1500: mtu-blackhole, exactly 1500, 5 probes, all to the peer" "$T/bh"
fi
ready6
probe "$C" "$T/bh6" fd99:2::2 $TO
if expect "$T/bh6" exit=0 verdict=mtu-blackhole path_mtu=1500 nprobes=5 && bounded "$T/bh6"
then ok "IPv6 black hole at 1500: mtu-blackhole, exactly 1500 (minimum 1280)"
else notok "IPv6 black hole at 1500: mtu-blackhole, exactly 1500 (minimum 1280)" "$T/bh6"
fi

net 4 1700 blackhole
probe "$C" "$T/bh17" 10.99.2.2 $TO
if expect "$T/bh17" exit=0 verdict=mtu-blackhole path_mtu=1700 rate_limited=0 "probe=1700 bytes: reached 10.99.2.2" &&
	grep -q '^probe=1701 bytes: no answer' "$T/bh17" && bounded "$T/bh17"
then ok "black hole at 1700 (no common size): the halving search finds exactly 1700, logarithmic"
else notok "black hole at 1700 (no common size): the halving search finds exactly 1700, logarithmic" "$T/bh17"
fi
probe_depleted "$T/bh17rl"
if expect "$T/bh17rl" exit=0 verdict=mtu-blackhole path_mtu=1700 rate_limited=1 && bounded "$T/bh17rl"
then ok "black hole at 1700, the peer rate-limiting its answers: still exactly 1700"
else notok "black hole at 1700, the peer rate-limiting its answers: still exactly 1700" "$T/bh17rl"
fi

net 5 9000
ip -n "$S" link set s0 down
probe "$C" "$T/down" 10.99.2.2 $TO
# 9000 lost, 576 lost twice; the router's ARP gives up after 3 s, later.
if expect "$T/down" exit=0 verdict=unreachable path_mtu=0 nprobes=3 &&
	grep -q '^message=nothing reached 10.99.2.2: no answer to 3 probes down to 576 bytes' "$T/down"
then ok "server down: unreachable after 3 silent probes"
else notok "server down: unreachable after 3 silent probes" "$T/down"
fi
probe "$C" "$T/nowhere" 10.99.3.1 $TO
if expect "$T/nowhere" exit=0 verdict=unreachable path_mtu=0 nprobes=2 &&
	grep -q '^message=nothing reached 10.99.3.1: Network is unreachable from 10.99.1.1 (2 probes)$' "$T/nowhere"
then ok "unroutable peer: unreachable at once, the router's net-unreachable named"
else notok "unroutable peer: unreachable at once, the router's net-unreachable named" "$T/nowhere"
fi
probe "$C" "$T/bad" ';reboot' $TO
if expect "$T/bad" exit=2 rc=-1 verdict=error nprobes=0 &&
	grep -q '^message=cannot resolve ;reboot: ' "$T/bad"
then ok "bad peer: a clear error, nothing sent"
else notok "bad peer: a clear error, nothing sent" "$T/bad"
fi

# reject NAME...: the router answers the probes to the server itself, with
# an ICMP error of the given type, before they get there (a firewall).
reject() {
	ip netns exec "$R" nft -f - <<-EOF
	table inet fw {
		chain rej {
			type filter hook forward priority 0;
			ip daddr 10.99.2.2 udp dport 33434-33533 reject with icmp type $1
			ip6 daddr fd99:2::2 udp dport 33434-33533 reject with icmpv6 type $2
		}
	}
	EOF
}
# A port unreachable from the router is not the peer's: nothing reached it.
net 6 9000
reject port-unreachable port-unreachable
probe "$C" "$T/fwport" 10.99.2.2 $TO
counts=$(sent "$C")
if expect "$T/fwport" exit=0 verdict=unreachable path_mtu=0 nprobes=2 \
	"probe=9000 bytes: port unreachable from 10.99.1.1, not the peer" \
	"probe=576 bytes: port unreachable from 10.99.1.1, not the peer" &&
	grep -q -x 'message=nothing reached 10.99.2.2: port unreachable from 10.99.1.1, not the peer: something on the way rejects UDP to ports 33434+ (2 probes)' "$T/fwport" &&
	[ "$counts" = "2 0 2 0 " ] || { echo "sent: $counts, want 2 0 2 0" >>"$T/fwport"; false; }
then ok "router rejects, port unreachable: not the peer's answer, unreachable, the router named"
else notok "router rejects, port unreachable: not the peer's answer, unreachable, the router named" "$T/fwport"
fi
ready6
probe "$C" "$T/fwport6" fd99:2::2 $TO
if expect "$T/fwport6" exit=0 verdict=unreachable path_mtu=0 nprobes=2 \
	"probe=9000 bytes: port unreachable from fd99:1::1, not the peer" &&
	grep -q -x 'message=nothing reached fd99:2::2: port unreachable from fd99:1::1, not the peer: something on the way rejects UDP to ports 33434+ (2 probes)' "$T/fwport6"
then ok "IPv6 router rejects, port unreachable: unreachable, the router named"
else notok "IPv6 router rejects, port unreachable: unreachable, the router named" "$T/fwport6"
fi
net 10 9000
reject admin-prohibited admin-prohibited
probe "$C" "$T/fwadmin" 10.99.2.2 $TO
if expect "$T/fwadmin" exit=0 verdict=unreachable path_mtu=0 nprobes=2 \
	"probe=9000 bytes: No route to host from 10.99.1.1" &&
	grep -q -x 'message=nothing reached 10.99.2.2: No route to host from 10.99.1.1 (2 probes)' "$T/fwadmin"
then ok "router rejects, admin-prohibited: unreachable, the router named"
else notok "router rejects, admin-prohibited: unreachable, the router named" "$T/fwadmin"
fi

# Through the wizard, once `fabtop wizard --batch` exists (helper H's): each
# path again in fresh namespaces, as nobody, the l2 step's JSON read back.
cat > "$T/wiz.py" <<'EOF'
import json, sys
want = dict(a.split("=", 1) for a in sys.argv[2:])
doc = json.load(open(sys.argv[1]))
step = [s for s in doc["wizard"]["steps"] if s["id"] == "l2"][0]
p = step["peers"][0]
got = {"verdict": p["verdict"], "path_mtu": str(p["path_mtu"]), "hop": str(p["hop"]),
       "hop_mtu": str(p["hop_mtu"]), "exit": str(doc["wizard"]["exit"])}
bad = ["%s is %r, want %r" % (k, got.get(k), v) for k, v in want.items() if got.get(k) != v]
print("\n".join(bad) if bad else "same")
sys.exit(1 if bad else 0)
EOF
wiz() {
	name=$1 out=$T/wiz-$2
	shift 2
	ip netns exec "$C" setpriv --reuid=65534 --regid=65534 --clear-groups "$FABTOP" wizard --batch \
		--steps l2 --peer 10.99.2.2 --iface c0 --probe-timeout 0.3 --json >"$out" 2>"$out.err"
	rc=$?
	if [ "$rc" = "${EXIT_WANT}" ] && python3 "$T/wiz.py" "$out" "$@" >>"$out.err" 2>&1 &&
		! grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error:' "$out.err"
	then ok "$name"
	else echo "exit $rc, want $EXIT_WANT" >>"$out.err"; notok "$name" "$out.err" "$out"
	fi
}
net 7 9000
EXIT_WANT=0 wiz "wizard batch, clean path: l2 mtu-ok 9000, exit 0" ok verdict=mtu-ok path_mtu=9000 exit=0
net 8 1500
EXIT_WANT=1 wiz "wizard batch, 1500 hop: l2 mtu-path-lower 1500 at 10.99.1.1, exit 1" lower \
	verdict=mtu-path-lower path_mtu=1500 hop=10.99.1.1 hop_mtu=1500 exit=1
net 9 1500 blackhole
EXIT_WANT=1 wiz "wizard batch, black hole: l2 mtu-blackhole 1500, exit 1" bh \
	verdict=mtu-blackhole path_mtu=1500 exit=1
