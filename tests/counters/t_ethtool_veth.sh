#!/bin/sh
# The ethtool statistics module (include/fabtop/ethtool.h) against a real
# kernel: a veth pair with 4 rx and 4 tx queues between two test network
# namespaces (two, because traffic between two addresses of one namespace
# goes through lo, never the veth), read by build/tests/ethtool_read.
#
# What veth answers is drivers/net/veth.c: ETH_SS_STATS is "peer_ifindex",
# then per rx queue "rx_queue_%u_%.18s" of xdp_packets, xdp_bytes, drops,
# xdp_redirect, xdp_drops, xdp_tx, xdp_tx_errors, then per tx queue
# "tx_queue_%u_%.18s" of xdp_xmit, xdp_xmit_errors, then the page pool's
# "rx_pp_*" names when the kernel has CONFIG_PAGE_POOL_STATS
# (veth_get_strings, veth_rq_stats_desc, veth_tq_stats_desc,
# page_pool_ethtool_stats_get_strings). The rx_queue counters count in
# veth's NAPI path only: GRO on the receiver and TSO off on the sender put
# a ping there (veth_xmit, veth_skb_is_eligible_for_gro). lo has no
# get_sset_count: GSSET_INFO clears the ETH_SS_STATS bit.
#
# Checks: the exact names and count; peer_ifindex = the peer's ifindex from
# /sys; a ping grows rx_queue_*_xdp_packets by at least its count; ENODEV
# for a missing netdev; lo has none; the count changing (channels set
# between listing and reading) says "list again" and never misplaces values;
# the same veth read from outside through /run/netns/NAME; unprivileged,
# that cross-namespace open fails with the CAP_SYS_ADMIN reason while a read
# in its own namespace works; and the values equal `ethtool -S` run at the
# same moment on the idle link (when ethtool is installed). Prints TAP lines.
# Needs root (namespaces), ip, setpriv; KEEP=1 keeps the outputs.
FABTOP_TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=$FABTOP_TOP/build/tests/ethtool_read
NAMES="names and count veth gives|peer_ifindex is the peer's ifindex|a ping grows rx_queue_N_xdp_packets|missing netdev is ENODEV|lo has no statistics|count changed: list again|another namespace through /run/netns|unprivileged, another namespace: CAP_SYS_ADMIN reason|unprivileged, own namespace reads|equal to ethtool -S on the idle link"
skip_all() {
	echo "$NAMES" | tr '|' '\n' | while read -r n; do echo "ok - ethtool veth: $n # SKIP $1"; done
	exit 0
}
[ -x "$BIN" ] || { echo "not ok - ethtool veth: $BIN is missing (make build/tests/ethtool_read)"; exit 0; }
[ "$(id -u)" = 0 ] || skip_all "needs root to build network namespaces"
for c in ip setpriv; do command -v $c >/dev/null || skip_all "needs $c"; done

T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-ethtool.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
A=fabtop-eth-$$-a B=fabtop-eth-$$-b
cleanup() {
	ip netns del "$A" 2>/dev/null; ip netns del "$B" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
chmod 755 "$T"
# A copy nobody can run whatever the checkout's permissions.
cp "$BIN" "$T/ethtool_read" && chmod 755 "$T/ethtool_read"
R=$T/ethtool_read
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

ip netns add "$A" 2>"$T/ns.err" && ip netns add "$B" 2>>"$T/ns.err" ||
	skip_all "cannot create network namespaces: $(head -n1 "$T/ns.err")"
# No IPv6: its neighbour discovery would move counters while the link must be idle.
for n in $A $B; do
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 2>/dev/null
done
# Distinct ifindexes (17, 23), so reading the wrong end cannot pass as the right one.
ip -n "$A" link add va index 17 numrxqueues 4 numtxqueues 4 type veth peer name vb netns "$B" \
	index 23 numrxqueues 4 numtxqueues 4 2>"$T/veth.err" ||
	skip_all "cannot create a veth pair: $(head -n1 "$T/veth.err")"
ip -n "$A" addr add 10.77.0.1/24 dev va && ip -n "$B" addr add 10.77.0.2/24 dev vb &&
	ip -n "$A" link set va up && ip -n "$B" link set vb up && ip -n "$A" link set lo up ||
	{ echo "not ok - ethtool veth: set up the pair"; exit 0; }

ok() { echo "ok - ethtool veth: $1"; }
notok() {
	echo "not ok - ethtool veth: $1"
	shift
	for f in "$@"; do [ -f "$f" ] && sed 's/^/#   /' "$f" | tail -n 20; done
}
# val FILE NAME: the value printed for NAME.
val() { sed -n "s/^$2=//p" "$1" | head -n1; }
# sum FILE REGEX: the sum of the values whose names match.
sum() { awk -F= -v re="$2" '$1 ~ re { s += $2 } END { print s + 0 }' "$1"; }

# The names veth.c gives for 4 rx and 4 tx queues, in order.
{
	echo peer_ifindex
	for q in 0 1 2 3; do
		for s in xdp_packets xdp_bytes drops xdp_redirect xdp_drops xdp_tx xdp_tx_errors; do
			echo "rx_queue_${q}_$s"
		done
	done
	for q in 0 1 2 3; do
		for s in xdp_xmit xdp_xmit_errors; do echo "tx_queue_${q}_$s"; done
	done
} > "$T/expect.names"

# 1. names and count
ip netns exec "$B" "$R" vb > "$T/vb.out" 2>&1
sed -n '/^# /d; s/=.*//p' "$T/vb.out" > "$T/vb.names"
n=$(sed -n 's/^# vb n=//p' "$T/vb.out")
head -n 37 "$T/vb.names" > "$T/vb.first"
extra=$(tail -n +38 "$T/vb.names" | grep -vc '^rx_pp_')
if cmp -s "$T/expect.names" "$T/vb.first" && [ "$extra" = 0 ] &&
   [ "$n" = "$(wc -l < "$T/vb.names" | tr -d ' ')" ] && [ "$n" -ge 37 ]; then
	ok "names and count veth gives ($n: peer_ifindex, 4x7 rx_queue, 4x2 tx_queue$( [ "$n" -gt 37 ] && echo ', rx_pp_*'))"
else
	diff "$T/expect.names" "$T/vb.first" > "$T/names.diff"
	notok "names and count veth gives (n=$n, $extra unexpected after the 37)" "$T/names.diff" "$T/vb.out"
fi

# 2. peer_ifindex, both ways: each end's peer is the other, whose ifindex
# sysfs gives inside the other namespace.
pi=$(val "$T/vb.out" peer_ifindex)
va_idx=$(ip netns exec "$A" cat /sys/class/net/va/ifindex)
ip netns exec "$A" "$R" va > "$T/va.out" 2>&1
pa=$(val "$T/va.out" peer_ifindex)
vb_idx=$(ip netns exec "$B" cat /sys/class/net/vb/ifindex)
if [ -n "$pi" ] && [ "$pi" = "$va_idx" ] && [ -n "$pa" ] && [ "$pa" = "$vb_idx" ] && [ "$pa" != "$pi" ]; then
	ok "peer_ifindex is the peer's ifindex (vb: $pi = va's, va: $pa = vb's)"
else
	notok "peer_ifindex is the peer's ifindex (vb: '$pi', va's ifindex '$va_idx'; va: '$pa', vb's '$vb_idx')" \
		"$T/vb.out" "$T/va.out"
fi

# 3. traffic: NAPI on vb's side, then a ping from A.
if ip netns exec "$B" "$R" --set vb gro on 2>"$T/set.err" &&
   ip netns exec "$A" "$R" --set va tso off 2>>"$T/set.err"; then
	ip netns exec "$B" "$R" vb > "$T/before.out" 2>&1
	ip netns exec "$A" ping -c 5 -i 0.2 -W 2 10.77.0.2 > "$T/ping.out" 2>&1
	ip netns exec "$B" "$R" vb > "$T/after.out" 2>&1
	b=$(sum "$T/before.out" '^rx_queue_[0-9]+_xdp_packets$')
	a=$(sum "$T/after.out" '^rx_queue_[0-9]+_xdp_packets$')
	bb=$(sum "$T/before.out" '^rx_queue_[0-9]+_xdp_bytes$')
	ab=$(sum "$T/after.out" '^rx_queue_[0-9]+_xdp_bytes$')
	# 5 echo requests of 84 bytes each at least (IPv4 + ICMP + 56), plus ARP.
	if [ $((a - b)) -ge 5 ] && [ $((ab - bb)) -ge $((5 * 84)) ]; then
		ok "a ping grows rx_queue_N_xdp_packets (+$((a - b)) packets, +$((ab - bb)) bytes)"
	else
		notok "a ping grows rx_queue_N_xdp_packets (packets $b -> $a, bytes $bb -> $ab)" \
			"$T/ping.out" "$T/after.out"
	fi
else
	notok "a ping grows rx_queue_N_xdp_packets: cannot turn GRO on / TSO off" "$T/set.err"
fi

# 4. a netdev that is not there
ip netns exec "$A" "$R" nosuch0 > "$T/nodev.out" 2>&1
if grep -q '^error list nodev: nosuch0: no such netdev' "$T/nodev.out"; then
	ok "missing netdev is ENODEV"
else
	notok "missing netdev is ENODEV" "$T/nodev.out"
fi

# 5. lo: no get_sset_count, so GSSET_INFO answers the set is not counted.
ip netns exec "$A" "$R" lo > "$T/lo.out" 2>&1
lo_eth=
if command -v ethtool >/dev/null; then
	ip netns exec "$A" ethtool -S lo > "$T/lo.eth" 2>&1
	lo_eth=" (ethtool -S: $(head -n1 "$T/lo.eth"))"
fi
if grep -q '^error list nostats: lo: its driver lists no ethtool statistics' "$T/lo.out"; then
	ok "lo has no statistics$lo_eth"
else
	notok "lo has no statistics" "$T/lo.out"
fi

# 6. channels changed between listing and reading (a real count change)
ip netns exec "$A" "$R" -R 2,2 va > "$T/relist.out" 2>&1
n2=$(sed -n 's/^# va n=//p' "$T/relist.out" | tail -n1)
if grep -q '^relist: va: .*list again' "$T/relist.out" && [ "$n2" = 19 ] &&
   ! grep -q '^rx_queue_2_' "$T/relist.out" && grep -q '^tx_queue_1_xdp_xmit=' "$T/relist.out"; then
	ok "count changed: list again (37 -> $n2 after 2 rx, 2 tx channels)"
else
	notok "count changed: list again (then n=$n2)" "$T/relist.out"
fi
ip netns exec "$A" "$R" -R 4,4 va > /dev/null 2>&1

# 7. from outside, with the namespace's fd
"$R" -n "/run/netns/$B" vb > "$T/outside.out" 2>&1
sed -n '/^# /d; s/=.*//p' "$T/outside.out" > "$T/outside.names"
if cmp -s "$T/outside.names" "$T/vb.names" && [ "$(val "$T/outside.out" peer_ifindex)" = "$va_idx" ]; then
	ok "another namespace through /run/netns ($(wc -l < "$T/outside.names" | tr -d ' ') statistics of vb)"
else
	notok "another namespace through /run/netns" "$T/outside.out"
fi

# 8. and 9. unprivileged
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
$NOBODY "$R" -n "/run/netns/$B" vb > "$T/nobody-ns.out" 2>&1
if grep -q '^error open perm: reading another network namespace needs CAP_SYS_ADMIN' "$T/nobody-ns.out"; then
	ok "unprivileged, another namespace: CAP_SYS_ADMIN reason"
else
	notok "unprivileged, another namespace: CAP_SYS_ADMIN reason" "$T/nobody-ns.out"
fi
# Inside B: plainly, and through B's own namespace fd (no setns needed).
ip netns exec "$B" $NOBODY "$R" vb > "$T/nobody.out" 2>&1
ip netns exec "$B" $NOBODY "$R" -n "/run/netns/$B" vb > "$T/nobody-own.out" 2>&1
sed -n '/^# /d; s/=.*//p' "$T/nobody.out" > "$T/nobody.names"
sed -n '/^# /d; s/=.*//p' "$T/nobody-own.out" > "$T/nobody-own.names"
if cmp -s "$T/nobody.names" "$T/vb.names" && cmp -s "$T/nobody-own.names" "$T/vb.names" &&
   [ "$(val "$T/nobody.out" peer_ifindex)" = "$va_idx" ]; then
	ok "unprivileged, own namespace reads ($(wc -l < "$T/nobody.names" | tr -d ' ') statistics as uid 65534, also given its own namespace fd)"
else
	notok "unprivileged, own namespace reads" "$T/nobody.out" "$T/nobody-own.out"
fi

# 10. against ethtool -S, between two reads of ours that agree (the link idle)
if ! command -v ethtool >/dev/null; then
	echo "ok - ethtool veth: equal to ethtool -S on the idle link # SKIP ethtool is not installed"
else
	same=no
	for try in 1 2 3 4 5; do
		ip netns exec "$B" "$R" vb | grep -v '^#' > "$T/ours1" 2>&1
		ip netns exec "$B" ethtool -S vb > "$T/eth.raw" 2>&1
		ip netns exec "$B" "$R" vb | grep -v '^#' > "$T/ours2" 2>&1
		if cmp -s "$T/ours1" "$T/ours2"; then same=yes; break; fi
		sleep 1
	done
	awk -F': ' 'NR > 1 { sub(/^[ \t]+/, "", $1); print $1 "=" $2 }' "$T/eth.raw" > "$T/eth.kv"
	if [ $same = no ]; then
		notok "equal to ethtool -S on the idle link: the link never stayed idle over 5 tries" "$T/ours1" "$T/ours2"
	elif cmp -s "$T/ours1" "$T/eth.kv"; then
		ok "equal to ethtool -S on the idle link ($(wc -l < "$T/eth.kv" | tr -d ' ') values, $(ethtool --version | head -n1))"
	else
		diff "$T/eth.kv" "$T/ours1" > "$T/eth.diff"
		notok "equal to ethtool -S on the idle link" "$T/eth.diff"
	fi
fi
# 11. the sampler's own live path (a port's netdev series, sampler_netdev):
# listed through the kernel when the model names the netdev, read each
# step, a ping between two steps grows its statistics.
SN=$FABTOP_TOP/build/tests/sampler_netdev
if [ ! -x "$SN" ]; then
	echo "not ok - ethtool veth: $SN is missing (make build/tests/sampler_netdev)"
else
	cp "$SN" "$T/sampler_netdev" && chmod 755 "$T/sampler_netdev"
	mkfifo "$T/go"
	(ip netns exec "$B" "$T/sampler_netdev" vb < "$T/go" > "$T/sn.out" 2>&1; echo $? > "$T/sn.rc") &
	exec 7> "$T/go"
	for i in 1 2 3 4 5 6 7 8 9 10; do grep -q '^# ready' "$T/sn.out" 2>/dev/null && break; sleep 0.5; done
	ip netns exec "$A" ping -c 5 -i 0.2 -W 2 10.77.0.2 > "$T/ping2.out" 2>&1
	echo go >&7
	exec 7>&-
	wait
	g=$(awk '$1 ~ /^rx_queue_[0-9]+_xdp_packets$/ { sub(/delta=/, "", $2); s += $2 } END { print s + 0 }' "$T/sn.out")
	if [ "$(cat "$T/sn.rc")" = 0 ] && grep -q "^# series netdev owner=0 n=$n why=\$" "$T/sn.out" && [ "$g" -ge 5 ]; then
		ok "the sampler lists the port's netdev and its steps see a ping (+$g packets over $n statistics)"
	else
		notok "the sampler lists the port's netdev and its steps see a ping (rc $(cat "$T/sn.rc"), +$g packets)" "$T/sn.out"
	fi
fi
exit 0
