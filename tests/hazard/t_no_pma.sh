#!/bin/sh
# "N/A (no PMA)" (the kernel's text for a port whose driver has no
# Performance Management Agent: i40iw, a ConnectX-3 VF in
# https://github.com/prometheus/node_exporter/issues/966) through the
# capture path: `fabtop capture --samples` of such a port keeps the text as
# read, samples it as no value, and its replay says the same as the live
# tree (report links: counters null, one note), while `report counters` on
# the capture runs clean. The snapshot collector and report links on a tree
# are covered by tests/links/t_real_input.sh, the sampler by test_sampler_dir.
NAME=nopma; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
S=$top/build/scenarios/ib-8port
need "$S"
command -v python3 >/dev/null || { echo "ok - no PMA capture # SKIP needs python3"; exit 0; }
R=$T/root
cp -a "$S" "$R" && chmod -R u+w "$R"
rm -f "$R/fabtop/meta.json.demo" "$R/fabtop/samples.json"
DEV0=$(cd -P "$R/sys/class/infiniband/mlx5_0" && pwd)
for f in "$DEV0"/ports/1/counters/*; do printf 'N/A (no PMA)\n' > "$f"; done

C=$T/cap
"$bin" capture --source "$R" --samples 2 --interval 0.2 -o "$C/" > "$T/cap.log" 2>&1; rc=$?
san() { grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error' "$1"; }
kept=$(cd -P "$C/sys/class/infiniband/mlx5_0" 2>/dev/null && cat ports/1/counters/symbol_error)
if [ $rc = 0 ] && ! san "$T/cap.log" && [ "$kept" = "N/A (no PMA)" ]; then
	ok "no PMA: the capture keeps the text as read"
else
	nok "no PMA: the capture keeps the text as read" "rc=$rc kept=$kept" "$(cat "$T/cap.log")"
fi
"$bin" --root "$R" report links --json > "$T/tree.json" 2>"$T/tree.err"
"$bin" --root "$C" report links --json > "$T/cap.json" 2>"$T/cap.err"
if python3 - "$T/tree.json" "$T/cap.json" <<'PY'
import json, sys
def look(p):
    d = json.load(open(p))
    hcas = {h["name"]: h for h in d["links"]["hcas"]}
    errs = hcas["mlx5_0"]["ports"][0]["errors"]
    assert errs and all(v is None for v in errs.values()), errs
    notes = [n for n in d["notes"] if "N/A (no PMA)" in n["message"]]
    assert len(notes) == 1, d["notes"]
    return len(errs), d["verdict"]
a, b = look(sys.argv[1]), look(sys.argv[2])
assert a == b, (a, b)
PY
then
	ok "no PMA: the replay of the capture says what the tree says (counters null, one note)"
else
	nok "no PMA: the replay of the capture says what the tree says" "$(cat "$T/tree.err" "$T/cap.err")"
fi
"$bin" --root "$C" report counters --json > "$T/ctr.json" 2> "$T/ctr.err"; rc=$?
if [ $rc -le 1 ] && ! san "$T/ctr.err" && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/ctr.json" 2>/dev/null; then
	ok "no PMA: report counters plays the capture's samples back cleanly"
else
	nok "no PMA: report counters plays the capture's samples back cleanly" "rc=$rc" "$(head -c 2000 "$T/ctr.err")"
fi
