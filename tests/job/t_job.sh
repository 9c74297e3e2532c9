#!/bin/sh
# Step 0 (the job) on real processes: a network namespace built here with
# interfaces in every state NCCL cares about, processes started inside it
# with planted NCCL environments, and the findings read back through
# tests/job/driver.c (job_scan + job_check_all, built against the sanitized
# objects exactly as the Makefile links unit tests). Also a capture root
# (tests/fixtures/h200-vm.tar.gz), live processes against a captured RoCE
# node's HCAs (build/scenarios/roce-faults), and a run as an unprivileged
# user, who cannot enter the namespace.
#
# The namespace jobns-$$:
#   jv0      veth, up, 10.77.0.1/24, default route via 10.77.0.2 (the "management" one)
#   jv1      its peer, up, no address at all (addrgenmode none)
#   jna0     ifb, up, no address at all (addrgenmode none)
#   jdown0   ifb, down, 10.78.0.1/24
#   jll0     ifb, up, only its IPv6 link-local address
#   ens33np0 ifb, up, 10.0.1.5/24: named like roce-faults' mlx5_0 netdev
cd "$(dirname "$0")/../.." || exit 2
TOP=$PWD
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "ok 1 - # SKIP needs root and iproute2 (network namespaces)"
	exit 0
fi

# ---- the driver, linked like build/tests/test_* (Makefile) ----
DRIVER=$TOP/build/tests/job_driver
PKGS="ncursesw libnl-3.0 libnl-route-3.0 hwloc libpci jansson libarchive"
OBJS=$(ls build/san/src/*.o build/san/src/collectors/*.o build/san/views/*.o 2>/dev/null | grep -v '/main\.o$')
if [ -z "$OBJS" ] || [ ! -f build/san/src/job.o ]; then
	nok "driver build" "build/san objects missing: run 'make build/san/fabtop' first"
	exit 1
fi
mkdir -p build/tests
# shellcheck disable=SC2046,SC2086
if ! cc -O2 -g -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wno-unused-parameter -Wno-format-truncation -Iinclude -Isrc \
	$(pkg-config --cflags $PKGS libibverbs 2>/dev/null) -O1 \
	-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
	-o "$DRIVER" tests/job/driver.c $OBJS -Wl,--as-needed $(pkg-config --libs $PKGS) -ldl -lm \
	2>build/tests/job_driver.log; then
	nok "driver build" "$(head -5 build/tests/job_driver.log)"
	exit 1
fi
ok "driver builds against the sanitized objects"

NS=jobns-$$
W=$(mktemp -d /tmp/fabtop-job.XXXXXX)
chmod 755 "$W"
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do
		# Wait for each, so the namespace goes with its last process.
		i=0; while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.05; i=$((i + 1)); done
	done
	ip netns del "$NS" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP PIPE

ip netns add "$NS" || { nok "netns $NS"; exit 1; }
ipn() { ip -n "$NS" "$@"; }
ipn link set lo up
ipn link add jv0 type veth peer name jv1
ipn link set jv1 addrgenmode none
ipn addr add 10.77.0.1/24 dev jv0
ipn link add jna0 type ifb
ipn link set jna0 addrgenmode none
ipn link add jdown0 type ifb
ipn addr add 10.78.0.1/24 dev jdown0
ipn link add jll0 type ifb
ipn link add ens33np0 type ifb
ipn addr add 10.0.1.5/24 dev ens33np0
for i in jv0 jv1 jna0 jll0 ens33np0; do ipn link set "$i" up; done
ipn route add default via 10.77.0.2 dev jv0
# jll0's link-local address appears once it is up (tentative counts).
i=0; while ! ipn -6 addr show dev jll0 | grep -q fe80 && [ $i -lt 40 ]; do sleep 0.05; i=$((i + 1)); done

# start NAME VAR=VALUE... : a process in the namespace with exactly this
# environment; its pid is stored in P_NAME. The sleep is the process itself
# (ip netns exec and env exec it), so the pid is the job's.
start() {
	name=$1; shift
	ip netns exec "$NS" env -i "$@" sleep 120 &
	eval "P_$name=$!"
	PIDS="$PIDS $!"
}
start missing NCCL_SOCKET_IFNAME=nosuch0 NCCL_DEBUG=WARN
start noaddr NCCL_SOCKET_IFNAME==jna0
start down NCCL_SOCKET_IFNAME==jdown0
start linklocal NCCL_SOCKET_IFNAME==jll0
start prefix NCCL_SOCKET_IFNAME=jv
start ibdis NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=jv0
start clean NCCL_SOCKET_IFNAME==ens33np0 NCCL_DEBUG=WARN RANK=3 LOCAL_RANK=1 WORLD_SIZE=16
start auto NCCL_DEBUG=INFO
start debugfile "NCCL_DEBUG_FILE=$W/nccl.%h.%p.log" NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=jv0
start imageonly NCCL_VERSION=2.28.3-1 CUDA_VERSION=13.0
start hcamissing NCCL_IB_HCA=mlx5_9 NCCL_SOCKET_IFNAME==ens33np0
start hcadown NCCL_IB_HCA==mlx5_1 NCCL_SOCKET_IFNAME==ens33np0
start gidok NCCL_IB_HCA==mlx5_0 NCCL_IB_GID_INDEX=3 NCCL_SOCKET_IFNAME==ens33np0
start gidv1 NCCL_IB_HCA==mlx5_0 NCCL_IB_GID_INDEX=2 NCCL_SOCKET_IFNAME==ens33np0
start mgmtsock NCCL_NET=Socket NCCL_SOCKET_IFNAME=jv0
start mgmtib NCCL_SOCKET_IFNAME=jv0
# Outside any namespace: a process that maps libnccl and sets nothing.
NCCL_LIB=$(ls /usr/local/cuda/lib64/libnccl.so.2 /usr/local/cuda/lib/libnccl.so.2 \
	/usr/lib/x86_64-linux-gnu/libnccl.so.2 2>/dev/null | head -1)
if [ -n "$NCCL_LIB" ] && command -v python3 >/dev/null; then
	env -i python3 -c "import ctypes,sys,time; ctypes.CDLL(sys.argv[1]); print('loaded', flush=True); time.sleep(120)" "$NCCL_LIB" >"$W/py.out" 2>&1 &
	P_mapped=$!
	PIDS="$PIDS $!"
fi
# An unprivileged job in the namespace, read by an unprivileged fabtop.
ip netns exec "$NS" setpriv --reuid=65534 --regid=65534 --clear-groups \
	env -i NCCL_SOCKET_IFNAME=nosuch0 sleep 120 &
P_nobody_missing=$!
PIDS="$PIDS $!"
ip netns exec "$NS" setpriv --reuid=65534 --regid=65534 --clear-groups \
	env -i NCCL_SOCKET_IFNAME==jna0 sleep 120 &
P_nobody_noaddr=$!
PIDS="$PIDS $!"

# Every process has exec'd sleep (or loaded libnccl) before it is looked at.
for p in $PIDS; do
	i=0
	while [ "$(cat /proc/"$p"/comm 2>/dev/null)" != sleep ] && [ $i -lt 100 ]; do
		[ "$p" = "${P_mapped:-x}" ] && grep -q loaded "$W/py.out" 2>/dev/null && break
		sleep 0.05; i=$((i + 1))
	done
done
HOST=$(hostname | cut -d. -f1)
printf 'hello' > "$W/nccl.$HOST.$P_debugfile.log"

# run_driver NAME ARGS... : output of the driver for one process into $OUT.
run_driver() {
	pid=$(eval echo "\$P_$1"); shift
	OUT=$("$DRIVER" "$@" --pid "$pid" 2>&1)
}
# expect NAME "exact line" ... : every line must be in $OUT.
expect() {
	what=$1; shift
	for line in "$@"; do
		if ! printf '%s\n' "$OUT" | grep -qxF -- "$line"; then
			nok "$what" "missing: $line" "got:" "$(printf '%s\n' "$OUT" | head -30)"
			return
		fi
	done
	ok "$what"
}
# count_findings N : exactly N findings in $OUT.
count_findings() {
	c=$(printf '%s\n' "$OUT" | grep -c '^finding ')
	if [ "$c" = "$1" ]; then ok "$2"; else nok "$2" "expected $1 findings, got $c" "$OUT"; fi
}
NSINO=$(readlink /proc/"$P_missing"/ns/net)

run_driver missing
expect "interface that does not exist: job.ifname-missing (error)" \
	"finding job.ifname-missing error pid $P_missing sleep" \
	"  message: NCCL_SOCKET_IFNAME=nosuch0 names no interface in the process's network namespace" \
	"  evidence: interfaces there ($NSINO): lo, jv1, jv0, jna0, jdown0, jll0, ens33np0"
expect "the job's own view: setns into its namespace, other_netns, rtnetlink link state" \
	"job $P_missing sleep nspid=$P_missing netns=$NSINO other_netns=1 host=$HOST lib=- net=setns default_if=jv0" \
	"  if jdown0 up=0 running=0 addrs=10.78.0.1/24" \
	"  if jna0 up=1 running=1 addrs=-" \
	"  var NCCL_DEBUG=WARN (environment)" \
	"  var NCCL_SOCKET_IFNAME=nosuch0 (environment)"
count_findings 1 "missing interface: that finding only"

run_driver noaddr
expect "interface without an address: job.ifname-no-addr (error)" \
	"finding job.ifname-no-addr error pid $P_noaddr sleep" \
	"  message: NCCL_SOCKET_IFNAME==jna0: jna0 has no IP address; NCCL needs one to bind its sockets"
count_findings 1 "no address: that finding only"

run_driver down
expect "interface that is down: job.ifname-down (error)" \
	"finding job.ifname-down error pid $P_down sleep" \
	"  message: NCCL_SOCKET_IFNAME==jdown0: jdown0 is down; NCCL skips interfaces that are not RUNNING" \
	"  evidence: jdown0 DOWN (admin), 10.78.0.1/24 (read by rtnetlink inside its network namespace (socket opened there via setns))"
count_findings 1 "down: that finding only"

run_driver linklocal
expect "only a link-local address: job.ifname-no-addr (warn)" \
	"finding job.ifname-no-addr warning pid $P_linklocal sleep"
count_findings 1 "link-local: that finding only"

run_driver prefix
expect "prefix jv: jv1 has no address but jv0 works, so a warning" \
	"finding job.ifname-no-addr warning pid $P_prefix sleep" \
	"  message: NCCL_SOCKET_IFNAME=jv: jv1 has no IP address; NCCL needs one to bind its sockets"

run_driver ibdis
expect "NCCL_IB_DISABLE=1 with no RDMA here: job.ib-disabled (info)" \
	"finding job.ib-disabled info pid $P_ibdis sleep" \
	"  message: NCCL_IB_DISABLE=1: NCCL uses TCP sockets between nodes; no usable RDMA device here anyway"
count_findings 1 "IB disabled on a node without RDMA: that finding only (no mgmt warning without RDMA netdevs)"

run_driver clean
count_findings 0 "a clean job: no finding"
expect "rank variables and the command line are read" \
	"  rank LOCAL_RANK=1" "  rank RANK=3" "  rank WORLD_SIZE=16" "  cmdline sleep 120"

run_driver auto
expect "unset NCCL_SOCKET_IFNAME: NCCL's own choice, IPv4 first, lo and down ones skipped" \
	"finding job.ifname-auto info pid $P_auto sleep" \
	"  message: NCCL_SOCKET_IFNAME is unset: NCCL would use jv0, ens33np0, jll0 (its rule: anything but docker*, lo*, virbr*)"

run_driver debugfile
expect "NCCL_DEBUG_FILE expanded (%h, %p) and found from here" \
	"finding job.debug-file info pid $P_debugfile sleep" \
	"  message: NCCL writes its log to $W/nccl.$HOST.$P_debugfile.log" \
	"  evidence: NCCL_DEBUG_FILE=$W/nccl.%h.%p.log (%h=$HOST, %p=$P_debugfile); from here: /proc/$P_debugfile/root$W/nccl.$HOST.$P_debugfile.log; 5 bytes now; NCCL_DEBUG=INFO"

run_driver imageonly
expect "NCCL_VERSION alone (NVIDIA images) is not a job" "nojob $P_imageonly"

if [ -n "${P_mapped:-}" ]; then
	run_driver mapped
	expect "libnccl mapped without any NCCL_ variable is a job, with its library" \
		"job $P_mapped python3 nspid=$P_mapped netns=$(readlink /proc/self/ns/net) other_netns=0 host=$HOST lib=$(readlink -f "$NCCL_LIB") net=rtnl default_if=$(ip -4 route show default | awk '{for(i=1;i<NF;i++) if($i=="dev"){print $(i+1); exit}}')"
else
	ok "# SKIP no libnccl.so.2 or python3 for the mapped-library job"
fi

# ---- live processes against a captured RoCE node (8 HCAs, planted faults) ----
ROCE=build/scenarios/roce-faults
run_driver hcamissing --root "$ROCE" --jobs-from /
expect "NCCL_IB_HCA naming no HCA: job.ib-hca-missing" \
	"finding job.ib-hca-missing error pid $P_hcamissing sleep" \
	"  message: NCCL_IB_HCA=mlx5_9: no HCA starting with 'mlx5_9' on this node" \
	"  evidence: HCAs here (/sys/class/infiniband): mlx5_0, mlx5_1, mlx5_2, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_7"
count_findings 1 "HCA missing: that finding only"

run_driver hcadown --root "$ROCE" --jobs-from /
expect "NCCL_IB_HCA naming an HCA whose port is down: job.ib-hca-down, the port and its state" \
	"finding job.ib-hca-down error pid $P_hcadown sleep" \
	"  message: NCCL_IB_HCA==mlx5_1 names mlx5_1's only port 1, which is DOWN, physical state Disabled: NCCL skips a port that is not ACTIVE, so the job runs without this rail (with none left, over sockets)" \
	"  evidence: /sys/class/infiniband/mlx5_1/ports/1/state=DOWN phys_state=Disabled; ncclIbInit drops ports that are not ACTIVE before it reads NCCL_IB_HCA"
count_findings 1 "HCA down: that finding only"

run_driver gidok --root "$ROCE" --jobs-from /
count_findings 0 "GID index 3 on mlx5_0 is RoCE v2: no finding"

run_driver gidv1 --root "$ROCE" --jobs-from /
expect "GID index 2 is RoCE v1: job.gid-index (warn)" \
	"finding job.gid-index warning pid $P_gidv1 sleep" \
	"  message: NCCL_IB_GID_INDEX=2: mlx5_0 port 1 GID 2 is IB/RoCE v1, not RoCE v2 (not routable across subnets)"

run_driver ibdis --root "$ROCE" --jobs-from /
expect "NCCL_IB_DISABLE=1 where RDMA is usable: job.ib-disabled (warn)" \
	"finding job.ib-disabled warning pid $P_ibdis sleep"

run_driver mgmtsock --root "$ROCE" --jobs-from /
expect "sockets over the default-route interface while RDMA netdevs exist: job.ifname-mgmt (warn)" \
	"finding job.ifname-mgmt warning pid $P_mgmtsock sleep" \
	"  message: NCCL's socket interface is jv0, the default-route (management) interface, while RDMA netdevs exist: with IB off, all inter-node traffic goes over it"

run_driver mgmtib --root "$ROCE" --jobs-from /
expect "the same with IB carrying the data: only info" \
	"finding job.ifname-mgmt info pid $P_mgmtib sleep"
expect "no NCCL_IB_HCA on a node with a down port: what NCCL does, as information" \
	"finding job.ib-hca-skipped info pid $P_mgmtib sleep" \
	"  message: NCCL_IB_HCA is unset: NCCL takes the ACTIVE ports and passes over the one that is not: mlx5_1:1 (DOWN/Disabled)"

# ---- a capture root ----
OUT=$("$DRIVER" --root tests/fixtures/h200-vm.tar.gz 2>&1)
expect "capture: the python3 job and the timeout wrapper that sets NCCL_DEBUG; NCCL_VERSION-only shells are not jobs; the one process the capture could not read is counted" \
	"scan source=capture fabtop/procs jobs=2 unreadable=1 note=when the capture was taken, 1 process not readable as uid 0: run as root, or with CAP_SYS_PTRACE" \
	"job 700 python3 nspid=700 netns=net:[4026531833] other_netns=0 host=vm lib=- net=model default_if=eth0" \
	"job 738 timeout nspid=738 netns=net:[4026531833] other_netns=0 host=vm lib=- net=model default_if=eth0"
expect "capture: debug file expanded with the captured host and pid, NCCL's choice from the captured interfaces" \
	"  message: NCCL writes its log to /tmp/w/nccl-ok.vm.700.log" \
	"  message: NCCL_SOCKET_IFNAME is unset: NCCL would use eth0 (its rule: anything but docker*, lo*, virbr*)"

OUT=$("$DRIVER" --root build/fixtures/topo-mini 2>&1)
expect "no process recorded: job.none" \
	"finding job.none info node" \
	"  message: no NCCL process on this node: the wizard uses its own inputs (--iface, --hca, --peer)"

# ---- unprivileged: cannot enter the namespace, falls back to /proc/<pid>/net ----
chmod 755 "$TOP/build/tests/job_driver" 2>/dev/null
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
OUT=$(asnobody "$DRIVER" --pid "$P_nobody_missing" 2>&1)
expect "as nobody: the interface list from /proc/<pid>/net/dev still finds the missing one" \
	"finding job.ifname-missing error pid $P_nobody_missing sleep" \
	"  evidence: interfaces there ($NSINO): lo, jv1, jv0, jna0, jdown0, jll0, ens33np0"
if printf '%s\n' "$OUT" | grep -q "net=procfs" && printf '%s\n' "$OUT" | grep -q "^  netnote cannot enter its network namespace: Operation not permitted"; then
	ok "as nobody: says it read /proc/<pid>/net because setns was not permitted"
else
	nok "as nobody: procfs fallback stated" "$OUT"
fi
OUT=$(asnobody "$DRIVER" --pid "$P_nobody_noaddr" 2>&1)
expect "as nobody: no address seen is only a warning (IPv4 per interface unreadable)" \
	"finding job.ifname-no-addr warning pid $P_nobody_noaddr sleep" \
	"  message: NCCL_SOCKET_IFNAME==jna0: jna0 has no IP address that fabtop could see; NCCL needs one to bind its sockets"
OUT=$(asnobody "$DRIVER" --pid "$P_missing" 2>&1)
expect "as nobody: root's processes are not readable, and that is counted, not guessed" \
	"nojob $P_missing"

# ---- nothing left behind ----
cleanup
trap - EXIT
left=0
for p in $PIDS; do kill -0 "$p" 2>/dev/null && left=$((left + 1)); done
if [ $left = 0 ] && ! ip netns list | grep -q "^$NS\b"; then
	ok "cleanup: no process and no namespace left"
else
	nok "cleanup" "$left processes left; $(ip netns list | grep "$NS")"
fi
