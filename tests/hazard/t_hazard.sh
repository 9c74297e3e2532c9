#!/bin/sh
# Counters that must not be read (include/fabtop/hazard.h): on ib-8port,
# mlx5_0's PCI function gets a VPD saying SMDL=SW_MNG (an NVSwitch
# management function of DGX/HGX B200; reading its counters floods dmesg
# with mlx5_cmd_out_err ACCESS_REG failures:
# https://github.com/prometheus/node_exporter/issues/3434), mlx5_1's a plain
# ConnectX-7 VPD. The VPD bytes are rebuilt from the real `lspci -vv`
# listing in Leon Romanovsky's "net/mlx5: Enable unprivileged read of PCI
# VPD file" (MCX713106AEHEA_QP1), the marker added to [VA].
# Checked: report links names the skip and shows none of mlx5_0's counters;
# a capture copies none of its counter folders and records why in
# fabtop/hazards.json, which its replay shows; strace sees fabtop open no
# counters folder of a root whose only HCA is such a function (and, as the
# control, open them once the marker is gone); a VPD unreadable for the
# user (root-only, as on kernels before mlx5 made it world-readable) is
# said, and --exclude-dev then skips the device; a bad --exclude-dev list
# is a usage error.
NAME=hazard; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
S=$top/build/scenarios/ib-8port
need "$S"
command -v python3 >/dev/null || { echo "ok - hazard # SKIP needs python3"; exit 0; }

R=$T/root
cp -a "$S" "$R"
rm -f "$R/fabtop/meta.json.demo"
# vpd SW_MNG|PLAIN FILE
mkvpd() {
	python3 - "$1" "$2" <<'PY'
import sys
kind, path = sys.argv[1], sys.argv[2]
name = (b"NVIDIA ConnectX-7 HHHL adapter Card, 200GbE / NDR200 IB, Dual-port QSFP112, "
        b"PCIe 5.0 x16 with x16 PCIe extension option, Crypto, Secure Boot Capable")
va = b"MLX:MN=MLNX:CSKU=V2:UUID=V3:PCI=V0:MODL=CX713106A"
if kind == "SW_MNG":
    va += b":SMDL=SW_MNG"
fields = [(b"PN", b"MCX713106AEHEA_QP1"), (b"EC", b"A5"), (b"V2", b"MCX713106AEHEA_QP1"),
          (b"SN", b"MT2314XZ0JUZ"), (b"V3", b"0a5efb8958deed118000946dae7db798"),
          (b"VA", va), (b"V0", b"PCIeGen5 x16"), (b"VU", b"MT2314XZ0JUZMLNXS0D0F0")]
def large(tag, d): return bytes([tag, len(d) & 0xff, len(d) >> 8]) + d
ro = b"".join(k + bytes([len(v)]) + v for k, v in fields) + b"RV\x02"
out = large(0x82, name)
head = out + bytes([0x90, (len(ro) + 2) & 0xff, (len(ro) + 2) >> 8]) + ro
ck = (-sum(head)) & 0xff
out = head + bytes([ck, 0]) + b"\x78"
open(path, "wb").write(out)
PY
}
pci_of() { readlink -f "$1/sys/class/infiniband/$2/device"; }
P0=$(pci_of "$R" mlx5_0); P1=$(pci_of "$R" mlx5_1)
if [ ! -d "$P0" ] || [ ! -d "$P1" ]; then
	nok "hazard: ib-8port has no device links for mlx5_0/mlx5_1" "$P0" "$P1"; exit 0
fi
mkvpd SW_MNG "$P0/vpd"; mkvpd PLAIN "$P1/vpd"
chmod 600 "$P0/vpd" "$P1/vpd"

out=$("$bin" --root "$R" report links 2>&1)
js=$("$bin" --root "$R" report links --json 2>&1)
if printf '%s\n' "$out" | grep -q "counters not read: its PCI VPD says SMDL=SW_MNG" &&
   printf '%s\n' "$js" | python3 -c '
import json, sys
d = json.load(sys.stdin)
h = {x["name"]: x for x in d["links"]["hcas"]} if "links" in d else {x["name"]: x for x in d["hcas"]}
assert "SMDL=SW_MNG" in h["mlx5_0"]["counters_skipped"], h["mlx5_0"]
assert "counters_skipped" not in h["mlx5_1"], h["mlx5_1"]
for p in h["mlx5_0"]["ports"]:
    assert not p.get("errors"), p.get("errors")
assert any(p.get("errors") for p in h["mlx5_1"]["ports"]), "mlx5_1 counters missing"
'; then
	ok "hazard: report links skips the SMDL=SW_MNG function's counters and says why"
else
	nok "hazard: report links skips the SMDL=SW_MNG function's counters and says why" "$out" "$js"
fi

# The capture: no counter folder of mlx5_0, a record of why, and a replay that says it.
C=$T/cap
"$bin" capture --source "$R" -o "$C/" >"$T/cap.log" 2>&1
d0=$(cd "$C" && find sys -path '*/infiniband/mlx5_0/*' -name '*counters*' | head -3)
d1=$(cd "$C" && find sys -path '*/infiniband/mlx5_1/ports/1/counters' | head -1)
if [ -z "$d0" ] && [ -n "$d1" ] && grep -q "SMDL=SW_MNG" "$C/fabtop/hazards.json" &&
   grep -q "mlx5_0: counters not copied" "$T/cap.log" &&
   "$bin" --root "$C" report links 2>&1 | grep -q "counters not read: not read when captured: its PCI VPD says SMDL=SW_MNG"; then
	ok "hazard: capture copies no counters of it, records why, replay says so"
else
	nok "hazard: capture copies no counters of it, records why, replay says so" "found: $d0" "mlx5_1: $d1" "$(cat "$T/cap.log")" "$(cat "$C/fabtop/hazards.json" 2>&1)"
fi

# strace: nothing named counters or hw_counters is opened once mlx5_0 is the
# only HCA (O_PATH opens are --root's check of the tree: they read nothing).
if command -v strace >/dev/null; then
	R2=$T/one
	cp -a "$R" "$R2"
	for d in "$R2"/sys/class/infiniband/*; do
		[ "$(basename "$d")" = mlx5_0 ] || rm -f "$d"
	done
	# ... and from the device tree the capture walks.
	find "$R2/sys/devices" -type d -path '*/infiniband/mlx5_*' -name 'mlx5_*' ! -name mlx5_0 -prune \
		-exec rm -rf {} + 2>/dev/null
	# The snapshot (report links), the sampler (report counters on the tree
	# as a plain directory: no meta.json, so it samples its files) and the
	# capture's samples (capture --samples of that directory).
	rm -f "$R2/fabtop/meta.json"
	trace() {
		rm -rf "$T/cap2"
		: > "$T/trace.all"
		for what in "report links" "report counters --count 2 --interval 0.1" \
			    "capture -o $T/cap2/ --samples 2 --interval 0.1"; do
			# shellcheck disable=SC2086
			strace -f -qq -e trace=open,openat,openat2 -o "$T/trace" "$bin" --root "$R2" $what \
				>/dev/null 2>&1
			cat "$T/trace" >> "$T/trace.all"
		done
		# Reads only: the capture writes its own copies (O_WRONLY).
		grep -E '"(hw_)?counters"|/(hw_)?counters[/"]' "$T/trace.all" | grep -v -e O_PATH -e O_WRONLY |
			wc -l | tr -d ' '
	}
	n_skip=$(trace)
	mkvpd PLAIN "$(pci_of "$R2" mlx5_0)/vpd"
	n_read=$(trace)
	if [ "$n_skip" = 0 ] && [ "$n_read" -gt 0 ]; then
		ok "hazard: strace sees no counters folder opened by report links, report counters or capture --samples (and $n_read opens without the marker)"
	else
		nok "hazard: strace sees no counters folder opened" "with SW_MNG: $n_skip, without: $n_read" "$(grep counters "$T/trace.all" | head -5)"
	fi
else
	echo "ok - hazard: strace check # SKIP strace is not installed"
fi

# Unreadable VPD: root-only, read as another user (real EACCES).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	chmod -R a+rX "$R"
	chmod 600 "$P0/vpd" "$P1/vpd"
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" --root "$R" "$@" 2>&1; }
	u=$(as_nobody report links)
	x=$(as_nobody --exclude-dev mlx5_1 report links)
	if printf '%s\n' "$u" | grep -q "mlx5_1: its PCI VPD is unreadable (.*Permission denied)" &&
	   printf '%s\n' "$u" | grep -q -- "--exclude-dev mlx5_1 leaves its counters alone" &&
	   ! printf '%s\n' "$u" | grep -q "mlx5_1.*counters not read" &&
	   printf '%s\n' "$x" | grep -q "counters not read: named by --exclude-dev (its PCI VPD .*Permission denied)"; then
		ok "hazard: an unreadable VPD is said, and --exclude-dev skips the device"
	else
		nok "hazard: an unreadable VPD is said, and --exclude-dev skips the device" "$u" "$x"
	fi
else
	echo "ok - hazard: unreadable VPD # SKIP needs root and setpriv to read as another user"
fi

e=$("$bin" --exclude-dev 'mlx5_0,,x' report links 2>&1); rc=$?
if [ $rc = 2 ] && printf '%s\n' "$e" | grep -q -- "--exclude-dev wants RDMA device names"; then
	ok "hazard: a bad --exclude-dev list is a usage error"
else
	nok "hazard: a bad --exclude-dev list is a usage error" "rc=$rc" "$e"
fi
