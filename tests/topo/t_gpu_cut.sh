#!/bin/sh
# More GPUs than the model keeps (FAB_MAX_GPUS, 64): NVML's table is cut
# at 64 and the cut is said (a note, model_note_cut's sentence), never
# silent. A capture's nvml.json is read the same way: entries past 64 are
# counted, and a snapshot that was itself cut when written says how many
# it left out (gpus_more). Trees: the dgx-h100 scenario with its nvml.json
# rewritten. The control: the scenario as built has no such note, so the
# check can fail. Needs $FABTOP and $FABTOP_TOP.
NAME=gpu-cut; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
src=$top/build/scenarios/dgx-h100
need "$src/fabtop/nvml.json"
if ! command -v python3 >/dev/null || ! command -v jq >/dev/null; then
	echo "ok - more GPUs than the model keeps # SKIP needs python3 and jq"
	exit 0
fi

# gpus DIR N MORE: a copy of the scenario whose nvml.json lists N GPUs (the
# 8 real ones, then others on their own bus ids) and, when MORE > 0,
# "gpus_more": MORE.
gpus() {
	cp -a "$src" "$1" && python3 - "$1/fabtop/nvml.json" "$2" "$3" <<'EOF'
import json, sys
path, n, more = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = json.load(open(path))
g = d["gpus"]
for i in range(len(g), n):
    x = {k: v for k, v in g[0].items() if k != "nvlinks"}
    x["index"], x["pci_bus_id"] = i, "0001:%02x:00.0" % i
    g.append(x)
if more:
    d["gpus_more"] = more
json.dump(d, open(path, "w"))
EOF
}

"$bin" --root "$src" report topo --json > "$T/plain.json" 2>"$T/plain.err"
if jq -e '[.notes[] | select(.what == "nvml")] | length == 0' "$T/plain.json" >/dev/null; then
	ok "control: 8 GPUs, no note from nvml"
else
	nok "control: 8 GPUs, no note from nvml" "$(jq -c '.notes' "$T/plain.json")" "$(head -3 "$T/plain.err")"
fi

gpus "$T/g70" 70 0 || { nok "build the 70-GPU tree"; exit 0; }
"$bin" --root "$T/g70" report topo --json > "$T/g70.json" 2>"$T/g70.err"
"$bin" --root "$T/g70" report topo > "$T/g70.txt" 2>>"$T/g70.err"
msg="70 GPUs; the first 64 are kept, the other 6 are not shown"
if jq -e --arg m "$msg" '.notes[] | select(.what == "nvml" and .message == $m)' "$T/g70.json" >/dev/null &&
	grep -qF "$msg" "$T/g70.txt"; then
	ok "70 GPUs in nvml.json: the first 64 kept, the other 6 said (JSON note, text)"
else
	nok "70 GPUs in nvml.json: the first 64 kept, the other 6 said (JSON note, text)" \
		"$(jq -c '.notes' "$T/g70.json" | head -c 600)" "$(head -3 "$T/g70.err")"
fi

gpus "$T/more" 8 3 || { nok "build the gpus_more tree"; exit 0; }
"$bin" --root "$T/more" report topo --json > "$T/more.json" 2>"$T/more.err"
if jq -e '.notes[] | select(.what == "nvml" and .message == "11 GPUs; the first 8 are kept, the other 3 are not shown")' \
	"$T/more.json" >/dev/null; then
	ok "a snapshot cut when written (gpus_more 3): the GPUs it left out are said"
else
	nok "a snapshot cut when written (gpus_more 3): the GPUs it left out are said" \
		"$(jq -c '.notes' "$T/more.json" | head -c 600)" "$(head -3 "$T/more.err")"
fi
