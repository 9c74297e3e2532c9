#!/bin/sh
# IB active MTU through verbs (src/collectors/verbs.c). On ib-8port (eight
# InfiniBand HCAs, whose active MTU sysfs does not show) a fabtop/verbs.json
# as `fabtop capture` writes it: mlx5_0 at 4096 of 4096, mlx5_1 at 2048 of
# 4096, mlx5_2 that does not open (EACCES). report links shows each with its
# source, and says why mlx5_2 has none; then a live `fabtop capture` on this
# machine records what the real libibverbs answers here.
NAME=verbsmtu; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
S=$top/build/scenarios/ib-8port
need "$S"
command -v python3 >/dev/null || { echo "ok - verbs MTU # SKIP needs python3"; exit 0; }
R=$T/root
cp -a "$S" "$R" && chmod -R u+w "$R"
rm -f "$R/fabtop/meta.json.demo"
cat > "$R/fabtop/verbs.json" <<'J'
{ "library": "libibverbs.so.1", "devices": {
  "mlx5_0": { "open_errno": 0, "ports": { "1": { "state": 4, "max_mtu": 4096, "active_mtu": 4096, "link_layer": 1 } } },
  "mlx5_1": { "open_errno": 0, "ports": { "1": { "state": 4, "max_mtu": 4096, "active_mtu": 2048, "link_layer": 1 } } },
  "mlx5_2": { "open_errno": 13 } } }
J
txt=$("$bin" --root "$R" report links 2>&1)
"$bin" --root "$R" report links --json > "$T/l.json" 2>&1
if printf '%s\n' "$txt" | grep -q "active MTU 2048 B (max 4096 B; from verbs (ibv_query_port))" &&
   python3 - "$T/l.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h = {x["name"]: x["ports"][0] for x in d["links"]["hcas"]}
want = {"mlx5_0": (4096, 4096), "mlx5_1": (2048, 4096)}
for n, (a, m) in want.items():
    p = h[n]
    assert (p["active_mtu"], p["max_mtu"], p["mtu_source"]) == (a, m, "verbs (ibv_query_port)"), (n, p)
assert h["mlx5_2"]["active_mtu"] is None, h["mlx5_2"]
assert h["mlx5_3"]["active_mtu"] is None, h["mlx5_3"]
notes = [x["message"] for x in d["notes"]]
assert any("ibv_open_device(mlx5_2) failed: Permission denied" in x for x in notes), notes
assert any("libibverbs does not list mlx5_3" in x for x in notes), notes
PY
then
	ok "verbs MTU: IB ports show verbs' active MTU and its source; a device that does not open is said"
else
	nok "verbs MTU: IB ports show verbs' active MTU and its source" "$txt" "$(head -c 3000 "$T/l.json")"
fi

# Live: the real libibverbs, asked by `fabtop capture`.
if [ ! -e /usr/lib/x86_64-linux-gnu/libibverbs.so.1 ] && ! ldconfig -p 2>/dev/null | grep -q libibverbs.so.1; then
	echo "ok - verbs MTU: live capture # SKIP libibverbs.so.1 is not installed"
	exit 0
fi
"$bin" capture -o "$T/live/" > "$T/cap.log" 2>&1
if python3 - "$T/live/fabtop/verbs.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["library"] == "libibverbs.so.1", d
assert isinstance(d["devices"], dict), d
# No RDMA device here: none listed, and if the kernel has no ib_uverbs, why.
if not d["devices"]:
    assert "error" not in d or d.get("list_errno"), d
PY
then
	ok "verbs MTU: a live capture records what libibverbs answers here"
else
	nok "verbs MTU: a live capture records what libibverbs answers here" "$(cat "$T/cap.log")" "$(cat "$T/live/fabtop/verbs.json" 2>&1)"
fi
