#!/bin/sh
# A GPU's PCIe link below its speed, judged by the GPU's load as a capture
# recorded it (fabtop/nvml.json "pstate" and "utilization_gpu", NVML's
# nvidia-smi -q "Performance State" and "Utilization"): on a copy of the
# dgx-h100 scenario, GPU2 (0000:52:00.0) at 2.5 GT/s of 32 is information
# while NVML says P8 / 0% (H100s drop to Gen1 when idle) and a warning at
# P0 / 87%; without the two fields it stays information, said as unknown.
# Prints "ok - name" / "not ok - name". Needs $FABTOP and $FABTOP_TOP.
NAME=gpu-load; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
S=$top/build/scenarios/dgx-h100
need "$S"
command -v python3 >/dev/null || { echo "ok - gpu load # SKIP needs python3"; exit 0; }

# mk NAME PSTATE UTIL: the copy, GPU2 at 2.5 GT/s, its nvml.json fields set
# ("-" leaves them out).
mk() {
	cp -a "$S" "$T/$1"
	echo "2.5 GT/s PCIe" > "$T/$1/sys/bus/pci/devices/0000:52:00.0/current_link_speed"
	python3 - "$T/$1/fabtop/nvml.json" "$2" "$3" <<'PY'
import json, sys
p, ps, u = sys.argv[1:]
d = json.load(open(p))
g = next(g for g in d["gpus"] if g["pci_bus_id"] == "0000:52:00.0")
if ps != "-":
    g["pstate"] = int(ps)
if u != "-":
    g["utilization_gpu"] = int(u)
json.dump(d, open(p, "w"))
PY
}
# sev NAME: "severity|message" of pcie.degraded on GPU2.
sev() {
	"$bin" --root "$T/$1" report topo --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = [f for f in d["findings"] if f["id"] == "pcie.degraded" and f["subject"] == "GPU2"]
print("%s|%s" % (f[0]["severity"], f[0]["message"]) if f else "none")'
}
check() {
	got=$(sev "$1")
	case $got in
	$2) echo "ok - $3" ;;
	*) echo "not ok - $3"; echo "#   got: $got"; echo "#   want: $2" ;;
	esac
}
mk idle 8 0; mk busy 0 87; mk none - -
check idle 'info|*the GPU is idle, P8, 0% utilisation*' "P8, 0%: information, the GPU is idle"
check busy 'warning|*while the GPU is busy (P0, 87% utilisation)*' "P0, 87%: a warning, the GPU is busy"
check none 'info|*its load is unknown without NVML*' "no load recorded: information, load unknown"
