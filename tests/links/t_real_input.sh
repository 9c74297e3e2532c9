#!/bin/sh
# Input that real nodes produce (issue 13, class 12), planted in copies of
# the ib-8port scenario (sysfs as the kernel lays it out: class links into
# /sys/devices, PCI functions with config space, netdevs, NUMA):
#  - an hfi1 board_id of 74 bytes is shown whole, not refused;
#  - a port whose counters/ read "N/A (no PMA)" loses those counters only:
#    no "implausible" finding, the port stays usable;
#  - one counter whose read fails with EINVAL loses that counter only;
#  - class links whose targets under /sys/devices are missing (a container
#    that mounts /sys/class only) make the reports unknown, with the mount
#    that fixes it, instead of HCAs of zeros and "ok".
# Prints "ok - name" / "not ok - name". Needs $FABTOP (the sanitized binary)
# and $FABTOP_TOP (the repository).
NAME=real-input; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
S=$top/build/scenarios/ib-8port
need "$S/sys/class/infiniband"

cat > "$T/chk.py" <<'PY'
"""chk.py JSON CMD [ARGS]: exact assertions over a report."""
import json, sys

doc = json.load(open(sys.argv[1]))
cmd, a = sys.argv[2], sys.argv[3:]
hcas = {h["name"]: h for h in (doc.get("links") or {}).get("hcas") or []}
notes = [n["message"] for n in doc.get("notes", [])]
ids = [f["id"] for f in doc.get("findings", [])]

def fail(msg):
    sys.exit(msg + "\nverdict: %s\nfindings: %s\nnotes: %s" % (doc.get("verdict"), ids, notes))

def port1(dev):
    h = hcas.get(dev) or fail("no HCA %s" % dev)
    return next((p for p in h.get("ports") or [] if p.get("port") == 1), None) or fail("no port 1")

if cmd == "field":                 # DEV KEY VALUE: the HCA's KEY is VALUE exactly
    got = (hcas.get(a[0]) or fail("no HCA %s" % a[0])).get(a[1])
    if got != a[2]:
        fail("%s %s = %r, want %r" % (a[0], a[1], got, a[2]))
elif cmd == "counters":            # DEV NULLS: NULLS of port 1's error counters null, the rest numbers
    p = port1(a[0])
    errs = p.get("errors") or {}
    nulls = sorted(k for k, v in errs.items() if v is None)
    if len(errs) != 13 or len(nulls) != int(a[1]):
        fail("errors %s: %d null, want %s of 13" % (errs, len(nulls), a[1]))
    if p.get("usable") != "yes" or p.get("implausible"):
        fail("port usable %r implausible %r" % (p.get("usable"), p.get("implausible")))
elif cmd == "null":                # DEV NAME: port 1's NAME is null
    if port1(a[0]).get("errors", {}).get(a[1], 0) is not None:
        fail("%s is not null" % a[1])
elif cmd == "note":                # TEXT: one note is exactly TEXT
    if a[0] not in notes:
        fail("no note %r" % a[0])
elif cmd == "nonote":              # WORDS: no note holds WORDS
    if any(a[0] in n for n in notes):
        fail("a note holds %r" % a[0])
elif cmd == "verdict":             # VERDICT [FINDING...]: the verdict, and no finding but these
    if doc.get("verdict") != a[0]:
        fail("verdict %r, want %r" % (doc.get("verdict"), a[0]))
    if "links.counter-implausible" in ids:
        fail("links.counter-implausible reported")
elif cmd == "unknown":             # TEXT NHCAS: verdict unknown because of TEXT, NHCAS HCAs listed
    if doc.get("verdict") != "unknown" or a[0] not in (doc.get("unknown_because") or []):
        fail("verdict %r because %r, want unknown because %r" %
             (doc.get("verdict"), doc.get("unknown_because"), a[0]))
    if len(hcas) != int(a[1]):
        fail("%d HCAs listed, want %s" % (len(hcas), a[1]))
else:
    fail("chk.py: unknown check " + cmd)
PY

# copy NAME: a fresh copy of the scenario; DEV0/DEV1 are mlx5_0's and
# mlx5_1's real folders in it (the class entries are links).
copy() {
	rm -rf "${T:?}/$1"
	cp -a "$S" "$T/$1" && chmod -R u+w "$T/$1" &&
		DEV0=$(cd -P "$T/$1/sys/class/infiniband/mlx5_0" && pwd) &&
		DEV1=$(cd -P "$T/$1/sys/class/infiniband/mlx5_1" && pwd)
}

# report NAME SECTION: the JSON report into NAME.json; fails (why in $why) on
# a crash, a usage error or a sanitizer report.
report() {
	"$bin" --root "$T/$1" report "$2" --json > "$T/$1.json" 2> "$T/$1.err"
	rc=$?
	why=
	if [ $rc -gt 2 ]; then why="exit $rc"; fi
	if grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error' "$T/$1.err"; then
		why="sanitizer report"
	fi
	[ -z "$why" ]
}

# check NAME TEST-NAME CMD [ARGS]: chk.py over NAME.json.
check() {
	n=$1 t=$2; shift 2
	if out=$(python3 "$T/chk.py" "$T/$n.json" "$@" 2>&1); then ok "$t"; else nok "$t" "$out"; fi
}

# 1. hfi1's board_id: the Omni-Path 100 HFI's name (prometheus/procfs#341
# shows a real /sys/class/infiniband/hfi1_0/board_id; hardware databases
# name the 1-port x16 card "... 100 Series, 1 Port, PCIe x16"). 74 bytes,
# more than the 32 the model held.
HFI='Intel Omni-Path Host Fabric Interface Adapter 100 Series, 1 Port, PCIe x16'
if copy hfi1 && printf '%s\n' "$HFI" > "$DEV0/board_id" && report hfi1 links; then
	check hfi1 "a 74-byte board_id (hfi1) is shown whole" field mlx5_0 board_id "$HFI"
	check hfi1 "a 74-byte board_id: no 'value too long' note" nonote "board_id"
else
	nok "a 74-byte board_id (hfi1) is shown whole" "$why" "$(cat "$T/hfi1.err")"
	nok "a 74-byte board_id: no 'value too long' note"
fi

# 2. A port without a PMA: every counters/ file reads "N/A (no PMA)", as
# i40iw's and a ConnectX-3 VF's do in prometheus/node_exporter#966.
if copy nopma && for f in "$DEV0"/ports/1/counters/*; do printf 'N/A (no PMA)\n' > "$f"; done &&
   report nopma links; then
	check nopma "no PMA: the 13 error counters are null, the port stays usable" counters mlx5_0 13
	check nopma "no PMA: one note says so" note "13 of 13 counters in /sys/class/infiniband/mlx5_0/ports/1/counters read \"N/A (no PMA)\" (symbol_error first): the driver has no Performance Management Agent for this port, so those counters are unknown, not zero"
	check nopma "no PMA: verdict ok, no 'implausible' finding" verdict ok
	check nopma "no PMA: mlx5_1's counters are untouched" counters mlx5_1 0
else
	nok "no PMA: the report runs" "$why" "$(cat "$T/nopma.err")"
fi

# 3. One counter whose read fails with EINVAL (bnxt_re in
# prometheus/procfs#675: "cat .../counters/port_rcv_data: Invalid argument";
# new hardware in prometheus/procfs#705). A directory cannot make read()
# fail with EINVAL; the capture records it in fabtop/unreadable.tsv (as
# `fabtop capture` does on such a node) and the root replays that errno.
if copy einval && : > "$DEV1/ports/1/counters/link_downed" &&
   printf '%s\t22\tInvalid argument\n' "${DEV1#"$T/einval"}/ports/1/counters/link_downed" \
	> "$T/einval/fabtop/unreadable.tsv" && report einval links; then
	check einval "EINVAL on link_downed: that counter is null" null mlx5_1 link_downed
	check einval "EINVAL on link_downed: the 12 others are read, the port stays usable" counters mlx5_1 1
	check einval "EINVAL on link_downed: one note says so" note "cannot read /sys/class/infiniband/mlx5_1/ports/1/counters/link_downed: Invalid argument (1 of 13 counters): the kernel's PMA query for it failed, so it is unknown; the port's other counters are read"
	check einval "EINVAL on link_downed: verdict ok" verdict ok
else
	nok "EINVAL on a counter: the report runs" "$why" "$(cat "$T/einval.err")"
fi

# 4. A container that mounts /sys/class but not /sys/devices
# (prometheus/node_exporter#2427: "the actual information is in
# /sys/devices"): every class and bus link leads nowhere.
RDMA_NOTE='/sys/class/infiniband: 8 of 8 entries (mlx5_0, ...) link into /sys/devices, which is not mounted here: unknown, not zero; run the container with -v /sys/devices:/sys/devices:ro (or -v /sys:/sys:ro)'
if copy nodevices && rm -rf "$T/nodevices/sys/devices" && report nodevices links; then
	check nodevices "no /sys/devices: links verdict unknown with the mount that fixes it, no HCA of N/As" \
		unknown "$RDMA_NOTE" 0
	if report nodevices all; then
		check nodevices "no /sys/devices: report all unknown too" unknown "$RDMA_NOTE" 0
		check nodevices "no /sys/devices: the PCI folder says so" note "/sys/bus/pci/devices: 58 of 58 entries (0000:00:1c.0, ...) link into /sys/devices, which is not mounted here: unknown, not zero; run the container with -v /sys/devices:/sys/devices:ro (or -v /sys:/sys:ro)"
		check nodevices "no /sys/devices: the netdev folder says so" note "/sys/class/net: 10 of 10 entries (eno1, ...) link into /sys/devices, which is not mounted here: unknown, not zero; run the container with -v /sys/devices:/sys/devices:ro (or -v /sys:/sys:ro)"
	else
		nok "no /sys/devices: report all runs" "$why" "$(cat "$T/nodevices.err")"
	fi
	"$bin" --root "$T/nodevices" report links > "$T/nodevices.txt" 2>&1
	if [ $? -eq 2 ] && grep -qF -- "-v /sys/devices:/sys/devices:ro" "$T/nodevices.txt"; then
		ok "no /sys/devices: the text report exits 2 (unknown) and names the mount"
	else
		nok "no /sys/devices: the text report exits 2 (unknown) and names the mount" "$(head -c 1500 "$T/nodevices.txt")"
	fi
else
	nok "no /sys/devices: the report runs" "$why" "$(cat "$T/nodevices.err")"
fi

# 4b. /sys/devices there, one HCA's folder gone (hot-unplug while reading):
# that HCA is left out with a note, the verdict stands on the rest.
if copy gone && rm -rf "$DEV0" && report gone links; then
	check gone "one dangling class link with /sys/devices present: the device went away, not a mount" \
		nonote "-v /sys/devices"
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); h=[x["name"] for x in d["links"]["hcas"]]; sys.exit(0 if d["verdict"]!="unknown" and "mlx5_0" not in h and len(h)==7 else 1)' "$T/gone.json"; then
		ok "one dangling class link: 7 HCAs, verdict not unknown"
	else
		nok "one dangling class link: 7 HCAs, verdict not unknown" "$(head -c 1500 "$T/gone.json")"
	fi
else
	nok "one dangling class link: the report runs" "$why" "$(cat "$T/gone.err")"
fi
exit 0
