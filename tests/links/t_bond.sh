#!/bin/sh
# A RoCE LAG read from sysfs as the kernel lays it out: the bond is a virtual
# netdev (/sys/class/net/bond0 -> ../../devices/virtual/net/bond0) with
# bonding/{slaves,mode,mii_status}, each slave has bonding_slave/mii_status,
# and the RDMA port's RoCE GIDs name the bond (gid_attrs/ndevs/N = bond0, as
# ibdev2netdev shows "mlx5_bond_0 port 1 ==> bond0 (Up)" in
# https://github.com/stepfun-ai/StepMesh/issues/15). The bond stays up while
# one slave is (https://github.com/openucx/ucx/pull/5401), so a slave down
# must be said: links.bond-slave-down names it. Built on a copy of the
# roce-faults scenario (its ens33np0 and ens34np0 as the slaves; on a real
# LAG both are functions of one card, which the rule does not depend on).
# Prints "ok - name" / "not ok - name". Needs $FABTOP and $FABTOP_TOP.
NAME=bond; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
S=$top/build/scenarios/roce-faults
need "$S"
command -v python3 >/dev/null || { echo "ok - bond # SKIP needs python3"; exit 0; }

# mkbond ROOT MII2 CARRIER2: bond0 over ens33np0 (up) and ens34np0 (the
# scenario has ens34np0 without carrier: it is set here either way).
mkbond() {
	R=$1
	cp -a "$S" "$R"
	b=$R/sys/devices/virtual/net/bond0
	mkdir -p "$b/bonding"
	echo 9000 > "$b/mtu"; echo 60 > "$b/ifindex"; echo up > "$b/operstate"; echo 1 > "$b/carrier"
	echo 1 > "$b/type"; echo "ens33np0 ens34np0" > "$b/bonding/slaves"
	echo "802.3ad 4" > "$b/bonding/mode"; echo up > "$b/bonding/mii_status"
	ln -s ../../devices/virtual/net/bond0 "$R/sys/class/net/bond0"
	for s in ens33np0 ens34np0; do mkdir -p "$R/sys/class/net/$s/bonding_slave"; done
	echo up > "$R/sys/class/net/ens33np0/bonding_slave/mii_status"
	echo "$2" > "$R/sys/class/net/ens34np0/bonding_slave/mii_status"
	echo "$3" > "$R/sys/class/net/ens34np0/carrier"
	if [ "$3" = 0 ]; then st=down; else st=up; fi
	echo $st > "$R/sys/class/net/ens34np0/operstate"
	for f in "$R"/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/*; do
		[ "$(cat "$f")" = ens33np0 ] && echo bond0 > "$f"
	done
	return 0
}

# findings JSON ID: "subject|message|hint" of each finding with that id.
findings() {
	python3 - "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
def walk(o):
    if isinstance(o, dict):
        if o.get("id") == sys.argv[2]:
            print("%s|%s|%s" % (o.get("subject"), o.get("message"), o.get("hint")))
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(doc)
PY
}

mkbond "$T/up" up 1
"$bin" --root "$T/up" report links --json > "$T/up.json" 2>"$T/up.err"
got=$(findings "$T/up.json" links.bond-slave-down)
netdev=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([p["netdev"]["name"] for h in d["links"]["hcas"] if h["name"]=="mlx5_0" for p in h["ports"]][0])' "$T/up.json" 2>&1)
if [ -z "$got" ] && [ "$netdev" = bond0 ]; then
	ok "both slaves up: mlx5_0/1's netdev is bond0, no links.bond-slave-down"
else
	nok "both slaves up: mlx5_0/1's netdev is bond0, no links.bond-slave-down" "netdev=$netdev" "$got" "$(cat "$T/up.err")"
fi

mkbond "$T/down" down 0
"$bin" --root "$T/down" report links --json > "$T/down.json" 2>"$T/down.err"
got=$(findings "$T/down.json" links.bond-slave-down)
want='mlx5_0/1|bond bond0 runs on 1 of its 2 links: ens34np0 (mii_status down, operstate down) down; the port carries only what the links left can, and the flows hashed to the lost link move|cat /proc/net/bonding/bond0; ip link show ens34np0; ethtool ens34np0 | grep '"'Link detected'"'; check that link'"'"'s cable, transceiver and switch port (and the switch'"'"'s LAG)'
if [ "$got" = "$want" ]; then
	ok "a slave down (mii_status down, no carrier): links.bond-slave-down on mlx5_0/1 names ens34np0"
else
	nok "a slave down (mii_status down, no carrier): links.bond-slave-down on mlx5_0/1 names ens34np0" "got:  $got" "want: $want" "$(cat "$T/down.err")"
fi
"$bin" --root "$T/down" report links > "$T/down.txt" 2>&1
if grep -q 'links.bond-slave-down' "$T/down.txt" && grep -q 'bond bond0 runs on 1 of its 2 links' "$T/down.txt"; then
	ok "the text report says it too"
else
	nok "the text report says it too" "$(grep -n bond "$T/down.txt")"
fi
