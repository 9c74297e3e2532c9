#!/bin/sh
# `report counters` and `report links` on issue 15's scenarios, checked
# against what each planted (tests/scenarios/mkscenarios.py; the planted
# values themselves are checked by tests/scenarios/t_counter_scenarios.sh):
#   pause-storm        the storm on ens43np0 (mlx5_6): pause-storm warning and
#                      error events (counters.pause-storm, -drop), the PCIe
#                      stall level 85 % (counters.pcie-stall), no lossless
#                      finding: every port's RDMA runs on priority 3 with PFC;
#   lossless-mismatch  the job's traffic class 3 lands on priority 0 without
#                      PFC (lossless.rdma-no-pfc, lossless.pfc-idle on six
#                      ports), mlx5_2 and mlx5_5 overridden to 106 (priority 3:
#                      not lossy; links.tc-override), mlx5_5 paused with no
#                      CNPs (lossless.pause-no-cnp), and the per-priority
#                      packets equal the samples' growth over the run;
#   link-flap          four link downs (counters.link-downed), 762 errors FEC
#                      could not correct (counters.fec-uncorrected), symbol
#                      errors over 120/h;
#   pinned             the pins of a real H100 node said everywhere: report
#                      links' pinned[] with what each hides and the command
#                      that clears it, the blind limits, and the pin entered
#                      during the run as a lower bound.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
S=$TOP/build/scenarios
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-story.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/#   /'; }

for n in pause-storm lossless-mismatch link-flap pinned; do
	if [ ! -f "$S/$n/fabtop/samples.json" ]; then
		nok "scenario $n is built (make scenarios)"
		continue
	fi
	"$BIN" --root "$S/$n" report counters --json >"$T/$n.json" 2>"$T/$n.err"
	echo $? >"$T/$n.rc"
	"$BIN" --root "$S/$n" report links --json >"$T/$n-links.json" 2>>"$T/$n.err"
done

cat >"$T/chk.py" <<'PY'
import json, sys
check, scen, out = sys.argv[1], sys.argv[2], sys.argv[3]
doc = json.load(open(out + "/" + check + ".json"))
links = json.load(open(out + "/" + check + "-links.json"))
rc = int(open(out + "/" + check + ".rc").read())
rec = json.load(open(scen + "/fabtop/samples.json"))["samples"]
find = doc["summary"]["findings"]
def fail(msg):
    print(msg); sys.exit(1)
def ids(subject=None):
    return sorted(f["id"] for f in find if subject is None or f["subject"] == subject)
def grown(key):
    return rec[-1]["values"][key] - rec[0]["values"][key]
lossless = {(l["dev"], l["port"]): l for l in doc["summary"]["lossless"]}

if check == "pause-storm":
    if ids() != ["counters.pause-storm", "counters.pause-storm-drop", "counters.pcie-stall"]:
        fail("findings %s" % ids())
    if ids("ens43np0") != ids():
        fail("the storm's findings are about ens43np0: %s" % [(f["id"], f["subject"]) for f in find])
    drop = [f for f in find if f["id"] == "counters.pause-storm-drop"][0]
    want = grown("ethtool:ens43np0:tx_pause_storm_error_events")
    if drop["severity"] != "error" or "grew %d in 59.0 s" % want not in drop["message"]:
        fail("pause-storm-drop: %s (want %d)" % (drop, want))
    stall = [f for f in find if f["id"] == "counters.pcie-stall"][0]
    if "outbound_pci_stalled_wr is 85 %" not in stall["message"]:
        fail("pcie-stall: %s" % stall["message"])
    for (d, p), l in lossless.items():
        if not l["known"] or l["flags"] or [x["prio"] for x in l["prios"] if x["rdma"]] != [3]:
            fail("%s/%d: %s" % (d, p, l))
    m3 = lossless[("mlx5_3", 1)]["prios"]
    if [x["rx_pause"] for x in m3 if x["prio"] == 3] != [grown("ethtool:ens36np0:rx_prio3_pause")]:
        fail("mlx5_3 rx pauses %s" % m3)
    if rc != 1:
        fail("exit %d" % rc)

elif check == "lossless-mismatch":
    lossy = ["mlx5_0", "mlx5_1", "mlx5_3", "mlx5_4", "mlx5_6", "mlx5_7"]
    for (d, p), l in sorted(lossless.items()):
        want = ["rdma-no-pfc", "pfc-idle"] if d in lossy else \
               ["pause-no-cnp", "override"] if d == "mlx5_5" else ["override"]
        if l["flags"] != want:
            fail("%s flags %s, want %s" % (d, l["flags"], want))
        rdma = [x["prio"] for x in l["prios"] if x["rdma"]]
        if rdma != ([0] if d in lossy else [3]):
            fail("%s RDMA on %s" % (d, rdma))
        if l["job_tc"] != 3 or l["job_prio"] != (0 if d in lossy else 3):
            fail("%s job tc %s prio %s (%s)" % (d, l["job_tc"], l["job_prio"], l["job_prio_why"]))
        if l["tc_override"] != (None if d in lossy else 106):
            fail("%s override %s" % (d, l["tc_override"]))
        nd = l["netdev"]
        p0 = [x for x in l["prios"] if x["prio"] == (0 if d in lossy else 3)][0]
        secs = rec[-1]["t"] - rec[0]["t"]
        for k in ("rx", "tx"):
            g = grown("ethtool:%s:%s_prio%d_packets" % (nd, k, p0["prio"]))
            if abs(p0[k + "_pps"] - g / secs) > 1e-6:
                fail("%s prio %d %s_pps %s, samples %s" % (d, p0["prio"], k, p0[k + "_pps"], g / secs))
    want = sorted([("lossless.rdma-no-pfc", d + "/1") for d in lossy] + [("lossless.pfc-idle", d + "/1") for d in lossy]
                  + [("lossless.pause-no-cnp", "mlx5_5/1")])
    got = sorted((f["id"], f["subject"]) for f in find)
    if got != want:
        fail("findings %s" % got)
    sev = {f["id"]: f["severity"] for f in find}
    if sev != {"lossless.rdma-no-pfc": "error", "lossless.pfc-idle": "warning", "lossless.pause-no-cnp": "warning"}:
        fail("severities %s" % sev)
    lf = sorted((f["id"], f["subject"]) for f in links["findings"] if f["id"].startswith("links.tc-"))
    if lf != sorted([("links.tc-no-pfc", d + "/1") for d in lossy] + [("links.tc-override", "mlx5_2/1"), ("links.tc-override", "mlx5_5/1")]):
        fail("report links: %s" % lf)
    if rc != 1:
        fail("exit %d" % rc)

elif check == "link-flap":
    want = ["counters.ack-timeout", "counters.fec-uncorrected", "counters.link-downed",
            "counters.symbol-error-ber", "counters.symbol-error-rate"]
    if ids() != want:
        fail("findings %s" % ids())
    ld = [f for f in find if f["id"] == "counters.link-downed"][0]
    if ld["subject"] != "mlx5_4/1" or "link_downed grew %d in 59.0 s" % grown(
            "/sys/class/infiniband/mlx5_4/ports/1/counters/link_downed") not in ld["message"]:
        fail("link-downed: %s" % ld)
    fec = [f for f in find if f["id"] == "counters.fec-uncorrected"][0]
    if fec["subject"] != "ens41np0" or "grew %d in" % grown("ethtool:ens41np0:rx_pcs_symbol_err_phy") not in fec["message"]:
        fail("fec-uncorrected: %s" % fec)

elif check == "pinned":
    pins = [p for h in links["links"]["hcas"] for pt in h["ports"] for p in pt["pinned"]]
    got = sorted((p["name"], p["value"], p["clear"]) for p in pins)
    want = sorted([("link_downed", 255, "perfquery -x -R -C mlx5_2 -P 1"),
                   ("port_xmit_discards", 65535, "perfquery -x -R -C mlx5_2 -P 1"),
                   ("excessive_buffer_overrun_errors", 15, "perfquery -x -R -C mlx5_2 -P 1"),
                   ("symbol_error", 65535, "perfquery -x -R -C mlx5_5 -P 1"),
                   # mlx5_6 pinned during the run; the snapshot holds the last sample
                   ("symbol_error", 65535, "perfquery -x -R -C mlx5_6 -P 1")])
    if got != want:
        fail("report links pinned %s" % got)
    hides = [p["hides"] for p in pins if p["name"] == "link_downed"]
    if hides != ["link_downed stopped at 255: later link downs no longer show"]:
        fail("hides %s" % hides)
    blind = sorted(f["subject"] + " " + f["message"].split(" ")[0] for f in find if f["id"] == "counters.limit-blind")
    if blind != ["mlx5_2/1 excessive_buffer_overrun_errors", "mlx5_2/1 link_downed", "mlx5_2/1 port_xmit_discards",
                 "mlx5_5/1 symbol_error", "mlx5_6/1 symbol_error"]:
        fail("blind %s" % blind)
    # mlx5_6's symbol_error enters the pin during the run: that step's rate is a lower bound.
    steps = [c for smp in doc["samples"] for c in smp["counters"] if c["dev"] == "mlx5_6" and c["name"] == "symbol_error"]
    pin = [c for c in steps if "PINNED" in c["flags"]]
    if len(pin) != 1 or pin[0]["rate"] is None or pin[0]["delta"] != 15:
        fail("mlx5_6 symbol_error into the pin: %s" % pin)
    if rc != 1:
        fail("exit %d" % rc)
PY

chk() {  # test name, check
	if out=$(python3 "$T/chk.py" "$2" "$S/$2" "$T" 2>&1); then ok "$1"; else nok "$1" "$out"; fi
}
chk "pause-storm: the storm, the drop and the PCIe stall on ens43np0; every port's RDMA on lossless priority 3" pause-storm
chk "lossless-mismatch: priority 0 without PFC on six ports, the overridden two lossless, pauses without CNPs on mlx5_5" lossless-mismatch
chk "link-flap: four link downs, the uncorrected FEC errors and the symbol errors over their limits" link-flap
chk "pinned: what each pin hides and the command that clears it, the blind limits, the pin entered as a lower bound" pinned
