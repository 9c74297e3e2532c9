#!/bin/sh
# Transport counter totals (ports/N/hw_counters) in every snapshot, and in
# `report counters` when nothing grows: the congested scenario (a RoCE
# HGX node laid out as the kernel lays sysfs out) copied to a plain
# directory, so it is sampled like a live node, with mlx5_0 port 1's
# hw_counters set to a real node's values:
#   https://github.com/bytedance/byteps/issues/179 (a RoCE ConnectX port,
#   `grep "" /sys/class/infiniband/mlx5_0/ports/1/hw_counters/*`):
#   duplicate_request:0 implied_nak_seq_err:0 lifespan:12
#   local_ack_timeout_err:2705 np_cnp_sent:1333 np_ecn_marked_roce_packets:0
# The rest of that listing is not in the thread: the other transport
# counters of every port are set to 0 here, so the finding is exactly one.
# Prints "ok - name" / "not ok - name". Needs $FABTOP and $FABTOP_TOP.
NAME=xport; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
S=$top/build/scenarios
need "$S/congested"

run() {
	n=$1; shift
	"$bin" "$@" > "$T/$n.out" 2> "$T/$n.err"
	rc=$?
	if grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error' "$T/$n.err"; then
		rc="$rc with a sanitizer report"
	fi
}

R=$T/node
cp -a "$S/congested" "$R"
rm -f "$R/fabtop/meta.json" "$R/fabtop/samples.json"
# Every judged transport counter of every port at 0 (not a value from the
# source: see above), then the real values on mlx5_0/1.
find "$R/sys/devices" -path '*/infiniband/*/ports/*/hw_counters/*' -type f > "$T/hw"
while read -r f; do
	case ${f##*/} in
	lifespan|rx_*_requests|rx_dct_connect|np_*|rp_*) ;;
	*) echo 0 > "$f" ;;
	esac
done < "$T/hw"
H=$R/sys/class/infiniband/mlx5_0/ports/1/hw_counters
[ -f "$H/local_ack_timeout_err" ] || { nok "the copy has $H/local_ack_timeout_err"; exit 0; }
echo 0 > "$H/duplicate_request"
echo 0 > "$H/implied_nak_seq_err"
echo 12 > "$H/lifespan"
echo 2705 > "$H/local_ack_timeout_err"
echo 1333 > "$H/np_cnp_sent"
echo 0 > "$H/np_ecn_marked_roce_packets"

# report links: exactly one links.transport-errors, a warning (2705 >= 100).
run links --root "$R" report links
got=$(grep 'links.transport-errors' "$T/links.out")
want="  [warning] links.transport-errors mlx5_0/1: local_ack_timeout_err=2705 since the counters were last cleared (a warning from 100): ACK timeouts on the requester: the peer or the path is not answering; a snapshot cannot tell whether it still grows"
[ "$got" = "$want" ] && [ "$rc" = 1 ] &&
	ok "report links: local_ack_timeout_err=2705 is one warning with its total and meaning, exit 1" ||
	nok "report links: local_ack_timeout_err=2705 is one warning with its total and meaning, exit 1" "rc $rc" "got: $got" "want: $want"
grep -A3 'links.transport-errors' "$T/links.out" | grep -q "evidence: /sys/class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err=2705" &&
	ok "report links: the evidence names the file" || nok "report links: the evidence names the file" "$(grep -A3 'links.transport-errors' "$T/links.out")"
run all --root "$R" report all
[ "$(grep -c 'links.transport-errors' "$T/all.out")" = 1 ] &&
	ok "report all: the same one finding" || nok "report all: the same one finding" "$(grep 'transport-errors' "$T/all.out")"

# report counters: nothing grows; the first reading's total is stated and
# the verdict is not healthy.
run ctr --root "$R" report counters --count 2 --interval 0.2
if [ "$rc" = 1 ] && grep -q "no loss, retry, congestion or error counter grew" "$T/ctr.out" &&
   grep -Eq "^    mlx5_0/1 +hw_counters/local_ack_timeout_err +2705 ev  \(a warning from 100 ev\)" "$T/ctr.out" &&
   grep -q "^verdict: no bad counter grew during the sampling, but the first reading already held large error totals on 1 port(s) (listed above) (exit 1)$" "$T/ctr.out"; then
	ok "report counters: nothing grew, the large total is stated, exit 1 (not healthy)"
else
	nok "report counters: nothing grew, the large total is stated, exit 1 (not healthy)" "rc $rc" "$(sed -n '/^summary/,$p' "$T/ctr.out")" "$(cat "$T/ctr.err")"
fi
run ctrj --root "$R" report counters --count 1 --interval 0.1 --json
if [ "$rc" = 1 ] && python3 - "$T/ctrj.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert s["bad_grew"] == [], s
assert [(t["dev"], t["port"], t["dir"], t["name"], t["total"], t["warn_at"]) for t in s["large_totals"]] == \
    [("mlx5_0", 1, "hw_counters", "local_ack_timeout_err", 2705, 100)], s["large_totals"]
assert s["exit"] == 1 and d["verdict"] == "findings", (s["exit"], d.get("verdict"))
PY
then
	ok "report counters --json: large_totals holds the one total, exit 1"
else
	nok "report counters --json: large_totals holds the one total, exit 1" "rc $rc" "$(head -c 1500 "$T/ctrj.out")"
fi

# Below the threshold it is info in the snapshot and healthy when sampled.
echo 99 > "$H/local_ack_timeout_err"
run links99 --root "$R" report links
grep -q '\[info\] links.transport-errors mlx5_0/1: local_ack_timeout_err=99 ' "$T/links99.out" &&
	ok "report links: 99 (under 100) is info" || nok "report links: 99 (under 100) is info" "$(grep transport "$T/links99.out")"
run ctr99 --root "$R" report counters --count 1 --interval 0.1
[ "$rc" = 0 ] && grep -q "^verdict: healthy: no bad counter grew (exit 0)$" "$T/ctr99.out" &&
	ok "report counters: a total under the threshold stays healthy, exit 0" ||
	nok "report counters: a total under the threshold stays healthy, exit 0" "rc $rc" "$(sed -n '/^summary/,$p' "$T/ctr99.out")"
