#!/bin/sh
# The scenarios of issue 15 hold, sample by sample, what mkscenarios.py says
# it planted in them (its section "SCENARIOS pause-storm, lossless-mismatch,
# link-flap, pinned"), so that tests of fabtop on them can rely on exact
# rates: each step's growth of the counters and ethtool statistics named
# there, the gauges, the saturations, the QoS files, tc/1/traffic_class and
# the job's NCCL_IB_TC; and on the RoCE nodes, for every port, the sampled
# netdev is the one its GIDs name, its 267 statistics are in every sample,
# rx_bits_phy grows 4e11 a second while the link is up, tx_bytes_phy is 4 x
# port_xmit_data's growth, and the counter files hold the last sample.
# Prints "ok - name" / "not ok - name". Needs python3 and build/scenarios
# (make scenarios).
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
S=$top/build/scenarios

for name in pause-storm lossless-mismatch link-flap pinned; do
	if [ ! -f "$S/$name/fabtop/samples.json" ]; then
		echo "not ok - $name: build/scenarios/$name has samples"
		echo "#   run make scenarios"
		continue
	fi
	if out=$(python3 - "$S" "$name" 2>&1 <<'EOF'
import json, os, sys
d, name = sys.argv[1], sys.argv[2]
C = "/sys/class/infiniband/%s/ports/1/counters/%s"
H = "/sys/class/infiniband/%s/ports/1/hw_counters/%s"
E = "ethtool:%s:%s"
NET = {r: "ens%dnp0" % s for r, s in enumerate((33, 34, 35, 36, 41, 42, 43, 44))}
W = 31250000            # 4-octet words a second at 1 Gb/s
checks = 0


def load(n):
    doc = json.load(open(os.path.join(d, n, "fabtop/samples.json")))
    return [s["values"] for s in doc["samples"]]


def rd(rel):
    return open(os.path.join(d, name, rel)).read()


def delta(v, key, k):
    return v[k][key] - v[k - 1][key]


def eq(got, want, what):
    global checks
    checks += 1
    assert got == want, "%s: got %r, want %r" % (what, got, want)


v = load(name)
eq(len(v), 60, "samples")
eq(all(set(s) == set(v[0]) for s in v), True, "the same keys in every sample")
if name != "pinned":
    for r in range(8):
        nd = rd("sys/class/infiniband/mlx5_%d/ports/1/gid_attrs/ndevs/0" % r).strip()
        eq(nd, NET[r], "mlx5_%d's netdev" % r)
        eq(len([x for x in v[0] if x.startswith("ethtool:%s:" % nd)]), 267, nd + " statistics")
        eq(E % (nd, "rx_prio0_pause") in v[0], False, nd + ": no PFC row for priority 0")
        eq(rd("sys/class/net/%s/qos/pfc" % nd), "0 0 0 1 0 0 0 0\n", nd + ": PFC on 3")
        eq(int(rd("sys/class/infiniband/mlx5_%d/ports/1/counters/port_xmit_data" % r)),
           v[-1][C % ("mlx5_%d" % r, "port_xmit_data")], "the counter file holds the last sample")
        for k in range(1, 60):
            if not (name == "link-flap" and r == 4 and k in (44, 45, 50, 51, 54, 55, 57, 58)):
                eq(delta(v, E % (nd, "rx_bits_phy"), k), 400 * 10 ** 9, nd + " rx_bits_phy")
            eq(delta(v, E % (nd, "tx_bytes_phy"), k), 4 * delta(v, C % ("mlx5_%d" % r, "port_xmit_data"), k),
               nd + " tx_bytes_phy against port_xmit_data")

if name == "pause-storm":
    for k in range(1, 60):
        storm, stall = k >= 20, k >= 15
        eq(delta(v, E % ("ens36np0", "rx_prio3_pause"), k), 20000 if storm else 0, "mlx5_3 rx_prio3_pause %d" % k)
        eq(delta(v, E % ("ens36np0", "rx_prio3_pause_duration"), k), 950000 if storm else 0, "mlx5_3 pause us")
        eq(delta(v, C % ("mlx5_3", "port_xmit_data"), k), (16 if storm else 320) * W, "mlx5_3 sends")
        eq(delta(v, H % ("mlx5_3", "rp_cnp_handled"), k), 2000 if storm else 0, "mlx5_3 CNPs handled")
        eq(v[k][E % ("ens43np0", "outbound_pci_stalled_wr")], 85 if stall else 0, "mlx5_6 stalled_wr %d" % k)
        eq(delta(v, E % ("ens43np0", "tx_pause_storm_warning_events"), k), 0 if not stall else 2 if not storm else 1,
           "mlx5_6 storm warnings %d" % k)
        eq(delta(v, E % ("ens43np0", "tx_pause_storm_error_events"), k), 1 if storm else 0, "mlx5_6 storm errors")
        eq(delta(v, E % ("ens43np0", "tx_prio3_pause"), k), 0 if not stall else 2000 if not storm else 1200,
           "mlx5_6 pauses sent")
        eq(delta(v, E % ("ens43np0", "rx_discards_phy"), k), 4000 if storm else 0, "mlx5_6 drops")
        eq(delta(v, C % ("mlx5_6", "port_rcv_data"), k), (320 if not stall else 256 if not storm else 224) * W,
           "mlx5_6 receives")
        for r in (0, 1, 2, 4, 5, 7):
            for st in ("rx_prio3_pause", "tx_prio3_pause", "rx_discards_phy", "tx_pause_storm_warning_events"):
                eq(delta(v, E % (NET[r], st), k), 0, "healthy %s %s" % (NET[r], st))
            eq(delta(v, E % (NET[r], "tx_prio3_packets"), k), 320 * W // 1000, "healthy priority 3 packets")
    eq(v[-1][E % ("ens43np0", "tx_pause_storm_error_events")], 40, "40 storm errors in all")
    eq(json.load(open(os.path.join(d, name, "fabtop/procs/4242.json")))["env"]["NCCL_IB_TC"], "106", "NCCL_IB_TC")

if name == "lossless-mismatch":
    for r in range(8):
        eq(rd("sys/class/infiniband/mlx5_%d/tc/1/traffic_class" % r),
           "Global tclass=106\n" if r in (2, 5) else "", "mlx5_%d traffic_class" % r)
        for pt in ("roce_np", "roce_rp"):
            eq(rd("sys/class/net/%s/ecn/%s/enable/3" % (NET[r], pt)).strip(), "0" if r == 5 else "1", "ECN")
        prio = 3 if r in (2, 5) else 0
        for k in range(1, 60):
            eq(delta(v, E % (NET[r], "tx_prio%d_packets" % prio), k), (224 if r == 5 else 300) * W // 1000,
               "mlx5_%d sends on priority %d" % (r, prio))
            eq(delta(v, E % (NET[r], "rx_prio%d_packets" % prio), k), 300 * W // 1000, "receives")
            eq(delta(v, E % (NET[r], "tx_prio%d_packets" % (3 - prio)), k), 0, "the other priority is idle")
            eq(delta(v, E % (NET[r], "rx_prio3_pause"), k), 3000 if r == 5 else 0, "pauses received")
            eq(delta(v, H % ("mlx5_%d" % r, "out_of_sequence"), k), 0 if r in (2, 5) else 20, "loss")
            for h in ("np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets"):
                eq(delta(v, H % ("mlx5_%d" % r, h), k), 0, "no CNP")
    eq(v[-1][H % ("mlx5_5", "np_cnp_sent")], 0, "mlx5_5 never sent a CNP")
    for pid in range(4242, 4250):
        eq(json.load(open(os.path.join(d, name, "fabtop/procs/%d.json" % pid)))["env"]["NCCL_IB_TC"], "3",
           "NCCL_IB_TC")

if name == "link-flap":
    down = (44, 45, 50, 51, 54, 55, 57, 58)
    ber = (400, 4000, 40000, 400000, 4000000, 40000000, 200000000)
    for k in range(1, 60):
        starts = k in (44, 50, 54, 57)
        eq(delta(v, C % ("mlx5_4", "link_downed"), k), 1 if starts else 0, "link_downed at %d" % k)
        eq(delta(v, E % ("ens41np0", "link_down_events_phy"), k), 1 if starts else 0, "link_down_events_phy")
        bits = delta(v, E % ("ens41np0", "rx_bits_phy"), k)
        corr = delta(v, E % ("ens41np0", "rx_corrected_bits_phy"), k)
        if k in down:
            eq((bits, corr, delta(v, C % ("mlx5_4", "port_xmit_data"), k)), (0, 0, 0), "down at %d" % k)
        else:
            stage = min((k - 1) // 8, 6)
            eq((bits, corr), (4 * 10 ** 11, ber[stage]), "BER at %d" % k)
            sym = {5: 2, 6: 150}.get(stage, 0)
            eq(delta(v, C % ("mlx5_4", "symbol_error"), k), sym, "symbol_error at %d" % k)
            eq(delta(v, E % ("ens41np0", "rx_pcs_symbol_err_phy"), k), sym, "rx_pcs_symbol_err_phy")
            eq(delta(v, E % ("ens41np0", "rx_crc_errors_phy"), k), 40 if stage == 6 else 0, "rx_crc_errors_phy")
        for r in (0, 1, 2, 3, 5, 6, 7):
            eq(delta(v, E % (NET[r], "rx_corrected_bits_phy"), k), 400, "healthy: BER 1e-9")
            eq(delta(v, C % ("mlx5_%d" % r, "link_downed"), k), 0, "healthy: no flap")
    eq((v[0][C % ("mlx5_4", "link_downed")], v[-1][C % ("mlx5_4", "link_downed")]), (0, 4), "link_downed 0 -> 4")
    eq(v[-1][C % ("mlx5_4", "symbol_error")], 762, "symbol_error in all")
    eq(rd("sys/class/infiniband/mlx5_4/ports/1/state"), "4: ACTIVE\n", "up at the snapshot")

if name == "pinned":
    eq(any(x.startswith("ethtool:") for x in v[0]), False, "InfiniBand: no ethtool statistics")
    for k in range(60):
        for c, m in (("link_downed", 255), ("port_xmit_discards", 65535), ("excessive_buffer_overrun_errors", 15)):
            eq(v[k][C % ("mlx5_2", c)], m, "mlx5_2 %s pinned" % c)
        eq(v[k][C % ("mlx5_5", "symbol_error")], 65535, "mlx5_5 symbol_error pinned")
        eq(v[k][C % ("mlx5_6", "symbol_error")], 61920 + 120 * k if k <= 30 else 65535, "mlx5_6 at %d" % k)
        for r in (0, 1, 3, 4, 7):
            eq(v[k][C % ("mlx5_%d" % r, "symbol_error")], 0, "clean")
        if k:
            eq(delta(v, C % ("mlx5_0", "port_xmit_data"), k), 360 * W, "360 Gb/s")
    eq(rd("sys/class/infiniband/mlx5_6/ports/1/counters/symbol_error"), "65535\n", "the snapshot is pinned")
print(checks)
EOF
); then
		echo "ok - $name: every planted rate, gauge and pin holds sample by sample ($out checks)"
	else
		echo "not ok - $name: every planted rate, gauge and pin holds sample by sample"
		printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
	fi
done
