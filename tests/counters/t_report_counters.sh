#!/bin/sh
# `fabtop report counters` on the scenarios with samples (busy, hang,
# congested), on a plain directory whose counter files a writer process
# changes mid-run, and on this machine. Every expected rate and total is
# computed here from fabtop/samples.json, never copied from fabtop's output.
# Prints "ok - name" / "not ok - name". Needs $FABTOP (the sanitized binary)
# and $FABTOP_TOP (the repository).
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FABTOP:-$top/build/san/fabtop}
S=$top/build/scenarios
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-counters.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /' | head -n 15; done; }

if [ ! -x "$bin" ]; then
	nok "fabtop binary $bin is missing (make build/san/fabtop)"
	exit 0
fi

# run NAME ARGS...: stdout to NAME.out, stderr to NAME.err, status in $rc.
run() {
	n=$1; shift
	"$bin" "$@" > "$T/$n.out" 2> "$T/$n.err"
	rc=$?
	if grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error' "$T/$n.err"; then
		rc="$rc with a sanitizer report"
	fi
}

# Exit statuses over every recorded sample.
for s in busy:0 hang:1 congested:1; do
	name=${s%%:*} want=${s##*:}
	run "$name" --root "$S/$name" report counters
	[ "$rc" = "$want" ] && ok "report counters on $name exits $want" ||
		nok "report counters on $name exits $want" "got $rc" "$(tail -5 "$T/$name.err")"
	run "$name-json" --root "$S/$name" report counters --json
	[ "$rc" = "$want" ] && ok "report counters --json on $name exits $want" ||
		nok "report counters --json on $name exits $want" "got $rc" "$(tail -5 "$T/$name-json.err")"
done

# Python checks over the recorded samples and fabtop's output.
cat > "$T/chk.py" <<'PY'
"""chk.py CHECK SCENARIO-DIR TEXT JSON: one assertion group; exits non-zero with why."""
import json, re, sys

check, scen, text_path, json_path = sys.argv[1:5]
rec = json.load(open(scen + "/fabtop/samples.json"))["samples"]
text = open(text_path).read()
doc = json.load(open(json_path))
P = "/sys/class/infiniband/%s/ports/1/%s"
U32 = 1 << 32


def val(k, dev, f):
    return rec[k]["values"][P % (dev, f)]


def dt(k):
    return rec[k]["t"] - rec[k - 1]["t"]


def gbps(k, dev, f):
    """4-octet words -> Gb/s over step k-1 -> k."""
    return (val(k, dev, f) - val(k - 1, dev, f)) * 4 * 8 / dt(k) / 1e9


def pps(k, dev, f):
    return (val(k, dev, f) - val(k - 1, dev, f)) / dt(k)


def block(n):
    """The text of sample n (1 = first after the baseline)."""
    m = re.search(r"^sample %d .*?(?=^sample |^summary)" % n, text, re.S | re.M)
    if not m:
        sys.exit("no block for sample %d in the text" % n)
    return m.group(0)


def port_line(n, dev):
    for l in block(n).splitlines():
        if l.split()[:1] == ["%s/1" % dev]:
            return l.split()
    sys.exit("no line for %s/1 in sample %d" % (dev, n))


def devs():
    return sorted({p.split("/")[4] for p in rec[0]["values"]}, key=lambda d: int(d.split("_")[1]))


def fail(msg):
    sys.exit(msg)


if check == "rates":
    # Every port of every sample: TX/RX Gb/s with 2 decimals, pkt/s whole,
    # % of the 400 Gb/s line with 1 decimal, exactly as computed here.
    for n in range(1, len(rec)):
        for d in devs():
            f = port_line(n, d)
            want = ["%.2f" % gbps(n, d, "counters/port_xmit_data"), "%.2f" % gbps(n, d, "counters/port_rcv_data"),
                    "%.0f" % pps(n, d, "counters/port_xmit_packets"), "%.0f" % pps(n, d, "counters/port_rcv_packets"),
                    "%.1f" % (gbps(n, d, "counters/port_xmit_data") / 4), "%.1f" % (gbps(n, d, "counters/port_rcv_data") / 4)]
            # The line rate with its unit, then one number per column (units in the heads).
            if f[2:4] != ["400", "Gb/s"] or f[4:10] != want:
                fail("sample %d %s: text %s, computed %s" % (n, d, f[2:10], ["400", "Gb/s"] + want))
    for n, s in enumerate(doc["samples"], 1):
        if abs(s["dt"] - dt(n)) > 1e-9 or s["t"] != rec[n]["t"]:
            fail("JSON sample %d: t %r dt %r, recorded t %r dt %r" % (n, s["t"], s["dt"], rec[n]["t"], dt(n)))
        for p in s["ports"]:
            want = gbps(n, p["dev"], "counters/port_xmit_data")
            if abs(p["tx_gbps"] - want) > 1e-9:
                fail("JSON sample %d %s tx_gbps %r, computed %r" % (n, p["dev"], p["tx_gbps"], want))
    if len(doc["samples"]) != len(rec) - 1:
        fail("%d JSON samples for %d recorded (the first is the baseline)" % (len(doc["samples"]), len(rec)))

elif check == "jitter":
    # The one 1.25 s step: the text says so, and the rates divide by 1.25.
    ks = [k for k in range(1, len(rec)) if abs(dt(k) - 1.25) < 1e-9]
    if len(ks) != 1:
        fail("want one 1.25 s step in the recording, found %s" % ks)
    k = ks[0]
    if "(dt 1.250 s)" not in block(k).splitlines()[0]:
        fail("sample %d header: %s" % (k, block(k).splitlines()[0]))
    f = port_line(k, "mlx5_0")
    if f[4] != "%.2f" % gbps(k, "mlx5_0", "counters/port_xmit_data"):
        fail("mlx5_0 TX over 1.25 s: %s, computed %.2f" % (f[4], gbps(k, "mlx5_0", "counters/port_xmit_data")))

elif check == "hang":
    # Totals of the bad counters, and the ports that stopped, from the recording.
    first, last = rec[0]["values"], rec[-1]["values"]
    want = {}
    for path, v in last.items():
        name = path.split("/")[-1]
        if name in ("local_ack_timeout_err", "packet_seq_err") and v != first[path]:
            want[(path.split("/")[4], name)] = v - first[path]
    got = {(b["dev"], b["name"]): b["total"] for b in doc["summary"]["bad_grew"]}
    if got != want or len(want) != 12:
        fail("bad_grew %s, computed %s" % (sorted(got.items()), sorted(want.items())))
    stopped = []
    for d in devs():
        moved = [k for k in range(1, len(rec)) if val(k, d, "counters/port_xmit_data") != val(k - 1, d, "counters/port_xmit_data")]
        if moved and moved[-1] != len(rec) - 1:
            stopped.append((d, rec[moved[-1]]["t"] - rec[0]["t"]))
    got = [(s["dev"], s["last_traffic"]) for s in doc["summary"]["stopped"]]
    if got != stopped or len(stopped) != 6:
        fail("stopped %s, computed %s" % (got, stopped))
    for d, last in stopped:
        if not re.search(r"^    %s/1 +last traffic at \+%.3f s$" % (d, last), text, re.M):
            fail("no text line saying %s/1 stopped after +%.3f s" % (d, last))
    if not re.search(r"^verdict: loss/retry counters grew on 6 port\(s\); traffic stopped on 6 port\(s\); 12 QP\(s\) broken; 6 finding\(s\) over the run \(exit 1\)$", text, re.M):
        fail("verdict: %s" % [l for l in text.splitlines() if l.startswith("verdict")])
    # The ACK timeouts of the stopped ports are over NVSentinel's 1/s in the
    # last step (ctr_limits.c): one finding per port, from the recording.
    last_k = len(rec) - 1
    over = sorted(d for d, _ in stopped
                  if val(last_k, d, "hw_counters/local_ack_timeout_err") - val(last_k - 1, d, "hw_counters/local_ack_timeout_err") > dt(last_k))
    got = sorted(f["subject"].split("/")[0] for f in doc["summary"]["findings"] if f["id"] == "counters.ack-timeout")
    if got != over or len(got) != 6:
        fail("counters.ack-timeout on %s, computed %s" % (got, over))
    for (d, name), total in want.items():
        if not re.search(r"^    %s/1 +hw_counters/%s +\+%d ev +transport:" % (d, name, total), text, re.M):
            fail("no summary line for %s %s +%d" % (d, name, total))

elif check == "wrap":
    # rx_write_requests (a 32-bit Q-counter) passes 2^32 once: WRAP, and the true delta.
    f = "hw_counters/rx_write_requests"
    hits = [(k, d) for k in range(1, len(rec)) for d in devs() if val(k, d, f) < val(k - 1, d, f)]
    if len(hits) != 1:
        fail("want one wrap in the recording, found %s" % hits)
    k, d = hits[0]
    delta = val(k, d, f) + U32 - val(k - 1, d, f)
    c = [c for c in doc["samples"][k - 1]["counters"] if c["dev"] == d and c["name"] == f.split("/")[1]]
    if len(c) != 1 or c[0]["delta"] != delta or "WRAP" not in c[0]["flags"] or abs(c[0]["rate"] - delta / dt(k)) > 1e-6:
        fail("sample %d %s: %s, want delta %d with WRAP" % (k, d, c, delta))
    if not re.search(r"^  [ !] %s/1 +%s +\+%d req +%d req/s +WRAP " % (d, f, delta, delta), block(k), re.M):
        fail("no text line for the wrap in sample %d:\n%s" % (k, block(k)))

elif check == "sat":
    # port_xmit_wait reaches 2^32-1 once and stays: PINNED on that step (a
    # lower-bound rate), and in the summary.
    f = "counters/port_xmit_wait"
    hits = [(k, d) for k in range(1, len(rec)) for d in devs()
            if val(k, d, f) == U32 - 1 and val(k - 1, d, f) != U32 - 1]
    if len(hits) != 1:
        fail("want one saturation in the recording, found %s" % hits)
    k, d = hits[0]
    c = [c for c in doc["samples"][k - 1]["counters"] if c["dev"] == d and c["name"] == "port_xmit_wait"]
    if len(c) != 1 or "PINNED" not in c[0]["flags"] or c[0]["delta"] != U32 - 1 - val(k - 1, d, f) or c[0]["rate"] is None:
        fail("sample %d %s: %s" % (k, d, c))
    # Blind after it (no rate, counters.h; test_counters asserts the step):
    # the summary says what the pin hides and the command that clears it.
    s = [x for x in doc["summary"]["saturated"] if x["dev"] == d and x["name"] == "port_xmit_wait"]
    if len(s) != 1 or "no longer show" not in (s[0]["hides"] or "") or \
       not (s[0]["clear"] or "").startswith("mlxlink -d "):
        fail("summary of the pin: %s" % s)
    sat = [(s["dev"], s["name"], s["value"]) for s in doc["summary"]["saturated"]]
    if sat != [(d, "port_xmit_wait", U32 - 1)]:
        fail("summary saturated %s" % sat)

elif check == "congestion":
    # The three congestion counters grow on every port; each total is last - first.
    first, last = rec[0]["values"], rec[-1]["values"]
    got = {(b["dev"], b["name"]): b["total"] for b in doc["summary"]["bad_grew"]}
    for d in devs():
        for name in ("np_cnp_sent", "rp_cnp_handled"):
            p = P % (d, "hw_counters/" + name)
            if got.get((d, name)) != last[p] - first[p]:
                fail("%s %s total %s, computed %d" % (d, name, got.get((d, name)), last[p] - first[p]))
        p = P % (d, "hw_counters/np_ecn_marked_roce_packets")
        want = last[p] - first[p]             # 64-bit (cong_cnts): never wraps
        if got.get((d, "np_ecn_marked_roce_packets")) != want:
            fail("%s np_ecn_marked_roce_packets total %s, computed %d" % (d, got.get((d, "np_ecn_marked_roce_packets")), want))

elif check == "busy":
    if doc["summary"]["bad_grew"] or doc["summary"]["stopped"]:
        fail("busy: %s" % doc["summary"])
    if "no loss, retry, congestion or error counter grew" not in text:
        fail("no healthy line in the text summary")
else:
    fail("chk.py: unknown check " + check)
PY

chk() {  # test name, check, scenario
	if out=$(python3 "$T/chk.py" "$2" "$S/$3" "$T/$3.out" "$T/$3-json.out" 2>&1); then ok "$1"; else nok "$1" "$out"; fi
}
chk "busy: every port's TX/RX Gb/s, pkt/s and % of line match the samples" rates busy
chk "busy: no bad counter grew, no port stopped" busy busy
chk "hang: every port's rates match the samples, the 1.25 s step included" rates hang
chk "hang: the 1.25 s step is shown as such and divides by 1.25" jitter hang
chk "hang: ACK-timeout and sequence-error totals and the 6 stopped ports match the samples" hang hang
chk "congested: every port's rates match the samples" rates congested
chk "congested: ECN/CNP totals match the samples (64-bit: no wrap)" congestion congested
chk "congested: the Q-counter wrap shows WRAP and the true delta" wrap congested
chk "congested: the saturated port_xmit_wait shows PINNED, and the summary what it hides and the clearing command" sat congested

# QP state from fabtop/rdma-qp.bin: hang's job lost two QPs on each stalled rail.
if python3 - "$T/hang-json.out" "$T/busy-json.out" <<'PY'
import json, sys
hang, busy = (json.load(open(f))["summary"]["qps"] for f in sys.argv[1:3])
assert hang["available"] and hang["broken"] == 12 and len(hang["bad"]) == 12, hang
assert {q["dev"] for q in hang["bad"]} == {"mlx5_%d" % i for i in (0, 1, 2, 4, 5, 6)}, hang["bad"]
assert all(q["state"] == "ERR" and q["type"] == "RC" and q["port"] == 1 for q in hang["bad"]), hang["bad"]
assert busy["available"] and busy["broken"] == 0 and busy["total"] == hang["total"], busy
PY
then ok "QPs: hang lists its 12 ERR QPs on the 6 stalled rails, busy none"
else nok "QPs: hang lists its 12 ERR QPs on the 6 stalled rails, busy none"; fi
cp -a "$S/busy" "$T/noqp"
rm "$T/noqp/fabtop/rdma-qp.bin"
run noqp --root "$T/noqp" report counters --count 2
[ "$rc" = 0 ] && grep -q "QP state unavailable: not recorded in this capture" "$T/noqp.out" &&
	ok "no rdma-qp.bin: says QP state was not recorded, exit 0" ||
	nok "no rdma-qp.bin: says QP state was not recorded, exit 0" "rc $rc" "$(tail -3 "$T/noqp.out")"
head -c 100 "$S/busy/fabtop/rdma-qp.bin" > "$T/noqp/fabtop/rdma-qp.bin"
run badqp --root "$T/noqp" report counters --count 2
[ "$rc" = 0 ] && grep -q "QP state unavailable: .*rdma-qp.bin" "$T/badqp.out" &&
	ok "a truncated rdma-qp.bin: QP state unavailable naming the file, counters still reported" ||
	nok "a truncated rdma-qp.bin: QP state unavailable naming the file, counters still reported" "rc $rc" "$(tail -3 "$T/badqp.out")" "$(cat "$T/badqp.err")"

# --count and --interval on playback.
run count5 --root "$S/busy" report counters --count 5 --interval 2
n=$(grep -c '^sample ' "$T/count5.out")
[ "$rc" = 0 ] && [ "$n" = 5 ] && ok "--count 5 on playback prints 5 samples" ||
	nok "--count 5 on playback prints 5 samples" "rc $rc, $n samples"
grep -q "^note: --interval is ignored on playback" "$T/count5.out" &&
	ok "--interval on playback: a note that the recorded interval rules" ||
	nok "--interval on playback: a note that the recorded interval rules" "$(head -5 "$T/count5.out")"
run count500 --root "$S/busy" report counters --count 500
n=$(grep -c '^sample ' "$T/count500.out")
[ "$rc" = 0 ] && [ "$n" = 59 ] && grep -q "^note: the capture has 59 sample(s) after the baseline" "$T/count500.out" &&
	ok "--count past the recording: all 59, with a note" || nok "--count past the recording: all 59, with a note" "rc $rc, $n samples"

# Usage errors: exit 2 with a message naming the option, nothing on stdout.
for args in "--interval 0" "--interval -1" "--interval abc" "--count -1" "--count 0" "--count 3x" "--count 99999999999999999999"; do
	opt=${args%% *}
	# shellcheck disable=SC2086
	run usage --root "$S/busy" report counters $args
	if [ "$rc" = 2 ] && grep -q -- "$opt wants" "$T/usage.err" && [ ! -s "$T/usage.out" ]; then
		ok "report counters $args: exit 2 with a message"
	else
		nok "report counters $args: exit 2 with a message" "rc $rc" "$(cat "$T/usage.err")"
	fi
done

# A truncated samples.json: a clear error and exit 2; the rest of the capture still works.
cp -a "$S/busy" "$T/trunc"
head -c 300000 "$S/busy/fabtop/samples.json" > "$T/trunc/fabtop/samples.json"
run trunc --root "$T/trunc" report counters
if [ "$rc" = 2 ] && grep -q "samples.json" "$T/trunc.err" && [ ! -s "$T/trunc.out" ]; then
	ok "truncated samples.json: exit 2 naming the file"
else
	nok "truncated samples.json: exit 2 naming the file" "rc $rc" "$(cat "$T/trunc.err")" "$(head -3 "$T/trunc.out")"
fi
run trunc-topo --root "$T/trunc" report topo
[ "$rc" = 0 ] && grep -q "^GPU0" "$T/trunc-topo.out" && ok "report topo on the same copy still works" ||
	nok "report topo on the same copy still works" "rc $rc" "$(cat "$T/trunc-topo.err")"
printf '{"interval": 1.0, "samples": []}\n' > "$T/trunc/fabtop/samples.json"
run empty --root "$T/trunc" report counters
[ "$rc" = 2 ] && grep -q "samples.json" "$T/empty.err" && ok "samples.json without samples: exit 2 naming the file" ||
	nok "samples.json without samples: exit 2 naming the file" "rc $rc" "$(cat "$T/empty.err")"
rm "$T/trunc/fabtop/samples.json"
run nosamples --root "$T/trunc" report counters
[ "$rc" = 2 ] && grep -q "has no counter samples" "$T/nosamples.err" &&
	ok "a capture without samples.json: exit 2, says how to record some" ||
	nok "a capture without samples.json: exit 2, says how to record some" "rc $rc" "$(cat "$T/nosamples.err")"

# A plain directory (no fabtop/meta.json) is sampled like a live node: a
# writer process changes its counter files in place after the baseline.
D=$T/plain/sys/class/infiniband/mlx5_0/ports/1
mkdir -p "$D/counters" "$D/hw_counters"
echo "4: ACTIVE" > "$D/state"
echo "400 Gb/sec (4X NDR)" > "$D/rate"
echo "InfiniBand" > "$D/link_layer"
for f in port_xmit_data port_rcv_data port_xmit_packets port_rcv_packets; do echo 1000 > "$D/counters/$f"; done
echo 5 > "$D/hw_counters/local_ack_timeout_err"
( sleep 1.5; echo 12 > "$D/hw_counters/local_ack_timeout_err"; echo 63501000 > "$D/counters/port_xmit_data" ) &
writer=$!
run plain --root "$T/plain" report counters --count 3 --interval 1 --json
wait "$writer"
if [ "$rc" = 1 ] && python3 - "$T/plain.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["playback"] and len(d["samples"]) == 3, d
tot = lambda n: sum(c["delta"] for s in d["samples"] for c in s["counters"] if c["name"] == n)
assert tot("local_ack_timeout_err") == 7, tot("local_ack_timeout_err")
assert tot("port_xmit_data") == 63500000, tot("port_xmit_data")
assert [(b["name"], b["total"]) for b in d["summary"]["bad_grew"]] == [("local_ack_timeout_err", 7)], d["summary"]
PY
then
	ok "a plain directory changed by another process mid-run: exact deltas, exit 1"
else
	nok "a plain directory changed by another process mid-run: exact deltas, exit 1" "rc $rc" "$(cat "$T/plain.err")" "$(head -c 1500 "$T/plain.out")"
fi

# This machine has no RDMA device: it says so and does not fail.
for r in "" "--root /"; do
	# shellcheck disable=SC2086
	run live $r report counters --count 1 --interval 0.1
	[ "$rc" = 0 ] && grep -q "no RDMA devices" "$T/live.out" &&
		ok "live${r:+ $r}: says there are no RDMA devices, exits 0" ||
		nok "live${r:+ $r}: says there are no RDMA devices, exits 0" "rc $rc" "$(cat "$T/live.out" "$T/live.err")"
done
run livejson report counters --count 1 --interval 0.1 --json
[ "$rc" = 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["samples"] == [] and d["live"] and any("no RDMA devices" in n for n in d["notes"]), d' "$T/livejson.out" 2>/dev/null &&
	ok "live --json: empty samples and the note" || nok "live --json: empty samples and the note" "rc $rc" "$(cat "$T/livejson.out")"

# The settings' interval (config.h) is the live default without --interval;
# --interval still wins; a bad value in the file is said on stderr and the
# default (1 s) kept. A node root without fabtop/ is sampled live.
mkdir -p "$T/cfg/fabtop" "$T/live"
cp -a "$S/dgx-h100/." "$T/live/" && rm -rf "$T/live/fabtop"
printf 'interval = 0.25\n' > "$T/cfg/fabtop/config"
XDG_CONFIG_HOME=$T/cfg run cfg --root "$T/live" report counters --count 1
grep -q "0.25 s apart" "$T/cfg.out" && ok "report counters: the settings' interval (0.25 s) without --interval" ||
	nok "report counters: the settings' interval without --interval" "rc $rc" "$(head -n 2 "$T/cfg.out")"
XDG_CONFIG_HOME=$T/cfg run cfg2 --root "$T/live" report counters --count 1 --interval 0.5
grep -q "0.5 s apart" "$T/cfg2.out" && ok "report counters: --interval over the settings" ||
	nok "report counters: --interval over the settings" "$(head -n 2 "$T/cfg2.out")"
printf 'interval = soon\n' > "$T/cfg/fabtop/config"
XDG_CONFIG_HOME=$T/cfg run cfg3 --root "$T/live" report counters --count 1
grep -q "1 s apart" "$T/cfg3.out" && grep -q 'interval = "soon" is not valid' "$T/cfg3.err" &&
	ok "report counters: a bad interval in the settings is said, and 1 s kept" ||
	nok "report counters: a bad interval in the settings is said, and 1 s kept" "$(cat "$T/cfg3.err")"
exit 0
