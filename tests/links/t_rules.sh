#!/bin/sh
# The links.* rules through the real binary: no links.* finding on the
# healthy scenarios, each planted fault of roce-faults and roce-faults-pod
# found with its subject, and copies with one file changed that add exactly
# one finding (or, fixing a planted fault, remove exactly one).
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FABTOP:-$top/build/san/fabtop}
S=$top/build/scenarios
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM PIPE   # dash runs the EXIT trap only on exit, not on a signal
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "#   $l"; done; }

cat > "$T/chk.py" <<'PY'
"""chk.py CMD JSON... : assertions over a `report links --json` document."""
import json, sys

def links(path):
    return [f for f in json.load(open(path))["findings"] if f["id"].startswith("links.")]

def show(fs):
    return "; ".join("%s %s [%s]" % (f["id"], f["subject"], f["severity"]) for f in fs) or "none"

def pairs(fs):
    return {(f["id"], f["subject"]) for f in fs}

cmd, a = sys.argv[1], sys.argv[2:]
if cmd == "none":                 # JSON [ID]: no links.* finding (of that id)
    fs = [f for f in links(a[0]) if len(a) < 2 or f["id"] == a[1]]
    if fs:
        sys.exit("unexpected: " + show(fs))
elif cmd == "nonebut":            # JSON ID SEVERITY: no links.* finding but ID at SEVERITY
    fs = [f for f in links(a[0]) if f["id"] != a[1] or f["severity"] != a[2]]
    if fs:
        sys.exit("unexpected: " + show(fs))
elif cmd == "nowarn":             # JSON: no links.* finding of warning severity or worse
    fs = [f for f in links(a[0]) if f["severity"] != "info"]
    if fs:
        sys.exit("unexpected: " + show(fs))
elif cmd == "has":                # JSON ID SUBJECT [SEVERITY [TEXT...]]
    fs = [f for f in links(a[0]) if f["id"] == a[1] and f["subject"] == a[2]]
    if len(fs) != 1:
        sys.exit("want one %s %s, have: %s" % (a[1], a[2], show(links(a[0]))))
    f = fs[0]
    if len(a) > 3 and a[3] and f["severity"] != a[3]:
        sys.exit("severity %s, want %s" % (f["severity"], a[3]))
    blob = " ".join(f[k] for k in ("message", "evidence", "hint"))
    for t in a[4:]:
        if t not in blob:
            sys.exit("%r not in: %s" % (t, blob))
    if not f["layer"]:
        sys.exit("no layer text")
elif cmd == "added":              # BASE MUT ID SUBJECT: MUT adds exactly that finding
    base, mut = pairs(links(a[0])), pairs(links(a[1]))
    if mut - base != {(a[2], a[3])}:
        sys.exit("added %s, want only %s %s" % (sorted(mut - base) or "nothing", a[2], a[3]))
elif cmd == "removed":            # BASE MUT ID SUBJECT: MUT lacks exactly that finding
    base, mut = pairs(links(a[0])), pairs(links(a[1]))
    if base - mut != {(a[2], a[3])} or mut - base:
        sys.exit("removed %s, added %s; want only %s %s removed" %
                 (sorted(base - mut) or "nothing", sorted(mut - base) or "nothing", a[2], a[3]))
else:
    sys.exit("chk.py: unknown command " + cmd)
PY
chk() { python3 "$T/chk.py" "$@" 2>&1; }

# report links --json of a root into $T/<name>.json; its exit status into $T/<name>.rc.
run() {  # root name
	"$bin" --root "$1" report links --json > "$T/$2.json" 2> "$T/$2.err"
	echo $? > "$T/$2.rc"
	if ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/$2.json" 2>/dev/null; then
		echo '{"findings": []}' > "$T/$2.json"
		echo "# $2: no JSON: $(head -3 "$T/$2.err")"
	fi
}
# One assertion, one TAP line.
t() {  # name, chk args...
	name=$1; shift
	if out=$(chk "$@"); then ok "$name"; else nok "$name" "$out"; fi
}
have() {  # scenario: present, or one failing line saying it is missing
	[ -d "$S/$1/sys" ] && return 0
	nok "scenario $1 exists" "build/scenarios/$1 is missing (make scenarios)"
	return 1
}
copy() { rm -rf "$T/$2"; cp -a "$S/$1" "$T/$2"; }
put() { printf '%s\n' "$2" > "$1"; }   # file value
# The netdev MTU lives both in sysfs and in the netlink snapshot: change both.
set_mtu() {  # root netdev mtu
	put "$1/sys/class/net/$2/mtu" "$3"
	[ -f "$1/fabtop/netlink.json" ] && python3 - "$1/fabtop/netlink.json" "$2" "$3" <<'PY'
import json, sys
p, nd, mtu = sys.argv[1], sys.argv[2], int(sys.argv[3])
j = json.load(open(p))
for l in j.get("links", []):
    if l.get("name") == nd:
        l["mtu"] = mtu
json.dump(j, open(p, "w"), indent=2)
PY
}
drop_netdev() {  # root netdev: gone from /sys/class/net and the netlink snapshot
	rm -rf "$1/sys/class/net/$2"
	[ -f "$1/fabtop/netlink.json" ] && python3 - "$1/fabtop/netlink.json" "$2" <<'PY'
import json, sys
p, nd = sys.argv[1], sys.argv[2]
j = json.load(open(p))
j["links"] = [l for l in j.get("links", []) if l.get("name") != nd]
json.dump(j, open(p, "w"), indent=2)
PY
}
netdev_of() {  # root ibdev port: the netdev a RoCE port's GID 0 names
	cat "$1/sys/class/infiniband/$2/ports/$3/gid_attrs/ndevs/0" 2>/dev/null
}

# ---- healthy: no links.* finding at all ------------------------------
# dgx-h100's dual-port storage NICs run 200 Gb/s under a 400 Gb/s model
# capability, as all their siblings do: info at most there. ib-8port's busy
# ports hold a few out_of_sequence (1..40, far under its 1000): info
# links.transport-errors, nothing else.
for s in ib-8port dgx-h100; do
	have $s || continue
	run "$S/$s" $s
	if [ $s = ib-8port ]; then
		t "no links.* finding on healthy $s but info transport totals" nonebut "$T/$s.json" \
			links.transport-errors info
	else
		t "no links.* warning or error on healthy $s" nowarn "$T/$s.json"
	fi
	[ "$(cat "$T/$s.rc")" = 0 ] && ok "report links $s exits 0" || nok "report links $s exits 0" "rc $(cat "$T/$s.rc"): $(head -3 "$T/$s.err")"
done

# ---- mutations of the healthy IB node: one file, one finding ----------
if have ib-8port; then
	ib=$S/ib-8port/sys/class/infiniband
	P=sys/class/infiniband/mlx5_0/ports/1

	copy ib-8port m; put "$T/m/$P/state" "2: INIT"; put "$T/m/$P/sm_lid" "0x0000"; put "$T/m/$P/lid" "0x0000"
	run "$T/m" m
	t "INIT with sm_lid 0 -> links.no-sm mlx5_0/1 (error)" has "$T/m.json" links.no-sm mlx5_0/1 error "sminfo" "state=2: INIT"
	t "INIT with sm_lid 0 adds only links.no-sm" added "$T/ib-8port.json" "$T/m.json" links.no-sm mlx5_0/1
	[ "$(cat "$T/m.rc")" = 1 ] && ok "report links exits 1 on an error finding" || nok "report links exits 1 on an error finding" "rc $(cat "$T/m.rc")"

	copy ib-8port m; put "$T/m/$P/sm_lid" "0x0000"
	run "$T/m" m
	t "ACTIVE with sm_lid 0 -> links.no-sm (warning)" has "$T/m.json" links.no-sm mlx5_0/1 warning
	t "ACTIVE with sm_lid 0 adds only links.no-sm" added "$T/ib-8port.json" "$T/m.json" links.no-sm mlx5_0/1

	copy ib-8port m; put "$T/m/$P/state" "1: DOWN"; put "$T/m/$P/phys_state" "2: Polling"
	run "$T/m" m
	t "DOWN/Polling -> links.port-down mlx5_0/1 (error)" has "$T/m.json" links.port-down mlx5_0/1 error \
		"no peer seen" "$P/state=1: DOWN phys_state=2: Polling" "ibstat mlx5_0 1"
	t "DOWN/Polling adds only links.port-down" added "$T/ib-8port.json" "$T/m.json" links.port-down mlx5_0/1

	copy ib-8port m; put "$T/m/$P/state" "1: DOWN"; put "$T/m/$P/phys_state" "3: Disabled"
	run "$T/m" m
	t "DOWN/Disabled -> links.port-down says administratively down" has "$T/m.json" links.port-down mlx5_0/1 error "administratively down"

	# symbol_error is a 16-bit PMA field: 65535 is where it stops.
	copy ib-8port m; put "$T/m/$P/counters/symbol_error" 65535
	run "$T/m" m
	t "symbol_error 65535 -> links.errors, PINNED (warning)" has "$T/m.json" links.errors mlx5_0/1 warning \
		"symbol_error PINNED" "PINNED: clear them to count again: perfquery -x -R -C mlx5_0 -P 1" "since the counters were last cleared" "$P/counters/: symbol_error=65535" "perfquery -x"
	t "saturated symbol_error adds only links.errors" added "$T/ib-8port.json" "$T/m.json" links.errors mlx5_0/1

	copy ib-8port m; put "$T/m/$P/counters/symbol_error" 12
	run "$T/m" m
	t "symbol_error 12 -> links.errors (info)" has "$T/m.json" links.errors mlx5_0/1 info "symbol_error=12"
	[ "$(cat "$T/m.rc")" = 0 ] && ok "report links exits 0 on an info finding" || nok "report links exits 0 on an info finding" "rc $(cat "$T/m.rc")"

	copy ib-8port m; put "$T/m/$P/counters/link_downed" 1
	run "$T/m" m
	t "link_downed 1 -> links.errors (warning)" has "$T/m.json" links.errors mlx5_0/1 warning "link_downed=1"

	copy ib-8port m; put "$T/m/$P/rate" "200 Gb/sec (2X NDR)"
	run "$T/m" m
	t "2X NDR -> links.rate-degraded mlx5_0/1 (warning)" has "$T/m.json" links.rate-degraded mlx5_0/1 warning \
		"expected 400 Gb/s" "$P/rate=200 Gb/sec (2X NDR)" "mlxlink -d"
	t "2X NDR adds only links.rate-degraded" added "$T/ib-8port.json" "$T/m.json" links.rate-degraded mlx5_0/1

	# The NIC's PCIe link at x8: 252 Gb/s < 400 Gb/s.
	copy ib-8port m
	dev=$(cd "$T/m/sys/class/infiniband/mlx5_0" && cd -P device && pwd)
	put "$dev/current_link_width" 8
	run "$T/m" m
	t "NIC at Gen5 x8 -> links.pcie-bottleneck mlx5_0" has "$T/m.json" links.pcie-bottleneck mlx5_0 warning \
		"32 GT/s × 8 × 128/130 ≈ 252 Gb/s < 400 Gb/s port rate" "current_link_width=8"
	t "Gen5 x8 adds only links.pcie-bottleneck" added "$T/ib-8port.json" "$T/m.json" links.pcie-bottleneck mlx5_0
fi

# ---- roce-faults: every planted fault, with its subject ---------------
if have roce-faults; then
	run "$S/roce-faults" rf
	[ "$(cat "$T/rf.rc")" = 1 ] && ok "report links roce-faults exits 1" || nok "report links roce-faults exits 1" "rc $(cat "$T/rf.rc")"
	# mlx5 reports a RoCE port without carrier as DOWN/Disabled (not Polling).
	t "roce-faults: mlx5_1 DOWN, no carrier -> links.port-down" has "$T/rf.json" links.port-down mlx5_1/1 error \
		"state=1: DOWN" "no carrier" "ethtool"
	t "roce-faults: mlx5_2 2X NDR -> links.rate-degraded" has "$T/rf.json" links.rate-degraded mlx5_2/1 warning \
		"expected 400 Gb/s" "rate=200 Gb/sec (2X NDR)"
	t "roce-faults: mlx5_3 Gen5 x8 -> links.pcie-bottleneck" has "$T/rf.json" links.pcie-bottleneck mlx5_3 warning \
		"PCIe Gen5 x8 = 32 GT/s × 8 × 128/130 ≈ 252 Gb/s < 400 Gb/s port rate"
	nd4=$(netdev_of "$S/roce-faults" mlx5_4 1)
	t "roce-faults: mlx5_4 MTU 4096 -> links.mtu-mismatch" has "$T/rf.json" links.mtu-mismatch mlx5_4/1 warning \
		"RoCE MTU 4096 needs the netdev MTU above 4096 plus headers" "$nd4 has MTU 4096" "ip link set dev $nd4 mtu 9000"
	t "roce-faults: mlx5_5 link-local GIDs only -> links.roce-no-ipv4" has "$T/rf.json" links.roce-no-ipv4 mlx5_5/1 warning \
		"gid_attrs/types"
	t "roce-faults: mlx5_6 PFC off -> links.pfc-off" has "$T/rf.json" links.pfc-off mlx5_6/1 warning "mlnx_qos -i"
	t "roce-faults: mlx5_7 PFC without ECN -> links.pfc-no-ecn" has "$T/rf.json" links.pfc-no-ecn mlx5_7/1 warning \
		"priority 3" "ecn/roce_"
	t "roce-faults: mlx5_7 symbol_error 37, link_downed 2 -> links.errors" has "$T/rf.json" links.errors mlx5_7/1 warning \
		"link_downed=2" "symbol_error=37" "since the counters were last cleared"
	# No rule fires where no fault was planted.
	for f in port-down rate-degraded mtu-mismatch roce-no-ipv4 pfc-off pfc-no-ecn errors; do
		if out=$(python3 - "$T/rf.json" "links.$f" 2>&1 <<'PY'
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if f["id"] == sys.argv[2]]
if len(fs) != 1:
    sys.exit("%d findings: %s" % (len(fs), ", ".join(f["subject"] for f in fs)))
PY
		); then ok "roce-faults: links.$f only on its planted port"; else nok "roce-faults: links.$f only on its planted port" "$out"; fi
	done
	t "roce-faults: no links.not-usable on the host" none "$T/rf.json" links.not-usable
	t "roce-faults: no links.gid-netns on the host" none "$T/rf.json" links.gid-netns

	R=sys/class/infiniband
	# Fixing a planted fault removes exactly its finding.
	copy roce-faults m; set_mtu "$T/m" "$nd4" 9000
	run "$T/m" m
	t "roce-faults with $nd4 at MTU 9000: links.mtu-mismatch gone" removed "$T/rf.json" "$T/m.json" links.mtu-mismatch mlx5_4/1

	copy roce-faults m; put "$T/m/$R/mlx5_7/ports/1/counters/symbol_error" 0; put "$T/m/$R/mlx5_7/ports/1/counters/link_downed" 0
	run "$T/m" m
	t "roce-faults with mlx5_7's counters cleared: links.errors gone" removed "$T/rf.json" "$T/m.json" links.errors mlx5_7/1

	copy roce-faults m; put "$T/m/$R/mlx5_1/ports/1/state" "4: ACTIVE"; put "$T/m/$R/mlx5_1/ports/1/phys_state" "5: LinkUp"
	put "$T/m/$R/mlx5_1/ports/1/rate" "400 Gb/sec (4X NDR)"
	put "$T/m/$R/mlx5_1/ports/1/counters/link_downed" 0   # else the repaired port reports its one link_downed
	nd1=$(netdev_of "$S/roce-faults" mlx5_1 1)
	[ -n "$nd1" ] && { put "$T/m/sys/class/net/$nd1/operstate" up; put "$T/m/sys/class/net/$nd1/carrier" 1; }
	run "$T/m" m
	t "roce-faults with mlx5_1 ACTIVE/LinkUp: links.port-down gone" removed "$T/rf.json" "$T/m.json" links.port-down mlx5_1/1

	copy roce-faults m; put "$T/m/$R/mlx5_2/ports/1/rate" "400 Gb/sec (4X NDR)"
	run "$T/m" m
	t "roce-faults with mlx5_2 at 4X: links.rate-degraded gone" removed "$T/rf.json" "$T/m.json" links.rate-degraded mlx5_2/1

	nd7=$(netdev_of "$S/roce-faults" mlx5_7 1)
	copy roce-faults m
	for d in roce_np roce_rp; do
		[ -f "$T/m/sys/class/net/$nd7/ecn/$d/enable/3" ] && put "$T/m/sys/class/net/$nd7/ecn/$d/enable/3" 1
	done
	run "$T/m" m
	t "roce-faults with ECN on priority 3 of $nd7: links.pfc-no-ecn gone" removed "$T/rf.json" "$T/m.json" links.pfc-no-ecn mlx5_7/1

	# A healthy RoCE port loses its IPv4 address: only link-local GIDs remain.
	copy roce-faults m
	nd0=$(netdev_of "$S/roce-faults" mlx5_0 1)
	for g in "$T/m/$R/mlx5_0/ports/1/gids/"*; do
		case $(cat "$g") in 0000:0000:0000:0000:0000:ffff:*)
			put "$g" "0000:0000:0000:0000:0000:0000:0000:0000"
			i=$(basename "$g")
			put "$T/m/$R/mlx5_0/ports/1/gid_attrs/types/$i" ""
			put "$T/m/$R/mlx5_0/ports/1/gid_attrs/ndevs/$i" "" ;;
		esac
	done
	run "$T/m" m
	t "roce-faults with mlx5_0's IPv4 GIDs gone -> links.roce-no-ipv4 mlx5_0/1" added "$T/rf.json" "$T/m.json" links.roce-no-ipv4 mlx5_0/1

	# A netdev moved to another namespace: its GIDs stay, it leaves sysfs and netlink.
	copy roce-faults m
	drop_netdev "$T/m" "$nd0"
	run "$T/m" m
	t "roce-faults with $nd0 gone from this namespace -> links.gid-netns mlx5_0/1 (info)" has "$T/m.json" links.gid-netns mlx5_0/1 info "$nd0"
fi

# ---- roce-faults-pod: the same node seen from a pod --------------------
if have roce-faults-pod; then
	run "$S/roce-faults-pod" pod
	for d in mlx5_0 mlx5_1; do
		if python3 -c 'import json,sys; sys.exit(any(f["id"]=="links.not-usable" and f["subject"]==sys.argv[2] for f in json.load(open(sys.argv[1]))["findings"]))' "$T/pod.json" $d
		then ok "pod: $d usable, no links.not-usable"; else nok "pod: $d usable, no links.not-usable"; fi
	done
	t "pod: uverbs2 EACCES -> links.not-usable mlx5_2 (info)" has "$T/pod.json" links.not-usable mlx5_2 info "EACCES" "/dev/infiniband/uverbs2"
	for d in 3 4 5 6 7; do
		t "pod: uverbs$d absent -> links.not-usable mlx5_$d (info)" has "$T/pod.json" links.not-usable mlx5_$d info \
			"visible but /dev/infiniband/uverbs$d does not exist here: not usable from this container" "NCCL_IB_HCA=mlx5_0"
	done
	if out=$(python3 - "$T/pod.json" 2>&1 <<'PY'
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if f["id"] == "links.gid-netns"]
if not fs or any(f["severity"] != "info" for f in fs):
    sys.exit("gid-netns findings: %s" % [(f["subject"], f["severity"]) for f in fs])
PY
	); then ok "pod: GIDs naming netdevs outside the pod -> links.gid-netns (info)"; else nok "pod: GIDs naming netdevs outside the pod -> links.gid-netns (info)" "$out"; fi

	# With no HCA usable at all, each unusable one is a warning.
	copy roce-faults-pod m
	python3 - "$T/m/fabtop/devices.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for n in ("uverbs0", "uverbs1"):
    j["uverbs"].pop(n, None)
json.dump(j, open(sys.argv[1], "w"), indent=2)
PY
	run "$T/m" m
	t "pod with no usable HCA -> links.not-usable mlx5_0 (warning)" has "$T/m.json" links.not-usable mlx5_0 warning "no HCA is usable here"
fi
exit 0
