"""check.py SCENARIO_NAME OUTDIR: one fact, one answer.

For each HCA port of a scenario, the state, usable, link layer, rate and
saturated counters must be the same in `report all --json`, `report all`
text and the TUI's Links pane; the closest NIC of each GPU the same in the
JSON, the text and the Topology pane. OUTDIR holds all.json, all.txt,
links-N.txt (the Links pane with port N selected) and topo.txt. Prints TAP
lines; exits 1 on a disagreement.
"""
import json, os, re, sys

name, out = sys.argv[1], sys.argv[2]
doc = json.load(open(os.path.join(out, "all.json")))
text = open(os.path.join(out, "all.txt")).read().splitlines()
fails = 0

# The short link-layer words of tables, from the JSON's long ones: the one
# vocabulary (vocab.c) maps them so; a different word anywhere is a defect.
SHORT = {"InfiniBand": "IB", "Ethernet": "RoCE", "other": "other", None: "N/A"}


def ok(cond, what, detail=""):
    global fails
    if cond:
        print("ok - %s: %s" % (name, what))
    else:
        fails += 1
        print("not ok - %s: %s" % (name, what))
        for l in str(detail).splitlines()[:12]:
            print("#   " + l)


def rate_num(s):
    m = re.match(r"\s*([0-9.]+)", s or "")
    return float(m.group(1)) if m else None


# ---- the JSON: the reference every medium must print -------------------
ports = {}  # "mlx5_0/1" -> facts
for h in doc["links"]["hcas"]:
    for p in h["ports"]:
        ports["%s/%d" % (h["name"], p["port"])] = {
            "state": p["state"] or "N/A",
            "usable": p["usable"],
            "ll": SHORT.get(p["link_layer"], p["link_layer"]),
            "rate": p["rate_gbps"],
            "sat": sorted(p["saturated"]),
        }
labels = {d["label"]: d["name"] for d in doc["topology"].get("devices", [])}
closest = {}
for c in doc["topology"].get("closest_nics", []):
    closest[c["gpu"]] = (sorted("%s %s" % (n, labels.get(n, "?")) for n in c["nics"]), c["level"])

# ---- report all, text ----------------------------------------------------
tports, tsat, tclose = {}, {}, {}
i = 0
while i < len(text):
    line = text[i]
    if line.startswith("DEV/PORT"):
        # The cells by their headings, whatever columns the table has.
        heads = re.split(r"\s{2,}", line.strip())
        i += 1
        while i < len(text) and text[i].strip():
            cells = dict(zip(heads, re.split(r"\s{2,}", text[i].strip())))
            if len(cells) == len(heads):
                tports[cells["DEV/PORT"]] = {"state": cells["STATE"], "rate": rate_num(cells["RATE"]),
                                             "ll": cells["LAYER"], "usable": cells["USABLE"]}
            i += 1
        continue
    i += 1
dev = None
port = None
for line in text:
    m = re.match(r"^(\S+): ", line)
    if m and not line.startswith("  "):
        dev = m.group(1)
    m = re.match(r"^  port (\d+): ", line)
    if m and dev:
        port = "%s/%s" % (dev, m.group(1))
    m = re.match(r"^    errors:(.*)$", line)
    if m and port:
        tsat[port] = sorted(re.findall(r"(\w+)=\d+ PINNED", m.group(1)))
    m = re.match(r"^  (GPU\d+) -> (.*?) \((\w+)\)", line)
    if m:
        nics = sorted(x.strip() for x in m.group(2).split(","))
        tclose[m.group(1)] = (nics, m.group(3))

# ---- the TUI's Links pane, one dump per selected port ---------------------
uports, usat = {}, {}
for f in sorted(os.listdir(out)):
    if not f.startswith("links-"):
        continue
    dump = open(os.path.join(out, f)).read().splitlines()
    # The headings; the sorted one carries a mark (PORT\u25b2), not part of its name.
    head = next((l for l in dump if re.match(r"^\s*PORT[\u25b2\u25bc^v]?\s", l)), None)
    if head is None:
        continue
    list_part = head.split("\u2502")[0]
    cols = [(mm.start(), mm.group(0)) for mm in re.finditer(r"\S+(?:/\S+)?", list_part)]
    cols = [(st, w.rstrip("\u25b2\u25bc")) for st, w in cols]
    starts = {w: s for s, w in cols}
    order = [w for _, w in cols]

    def cell(row, w):
        s = starts[w]
        nxt = [starts[o] for o in order if starts[o] > s]
        e = min(nxt) if nxt else len(list_part)
        return row[s:e].strip()

    sel = None
    for l in dump:
        body = l.split("\u2502")[0]
        if re.match(r"^[> ] \S+/\d+", body) and "PORT" in starts:
            pn = cell(body, "PORT")
            uports[pn] = {"state": cell(body, "STATE"), "usable": cell(body, "USABLE"),
                          "ll": cell(body, "LAYER") if "LAYER" in starts else None,
                          "rate": rate_num(cell(body, "RATE"))}
            if body.startswith(">"):
                sel = pn
    # The detail (right of the bar): the selected port's error counters.
    detail = [l.split("\u2502", 1)[1] if "\u2502" in l else "" for l in dump]
    try:
        k = next(j for j, l in enumerate(detail) if l.strip().startswith("Error counters"))
        sat = []
        for l in detail[k + 1:]:
            if not l.strip():
                break
            sat += re.findall(r"(\w+)\s+=\s+\d+ PINNED", l)
        if sel:
            usat[sel] = sorted(sat)
    except StopIteration:
        pass

# ---- the TUI's Topology pane --------------------------------------------
uclose = {}
for line in open(os.path.join(out, "topo.txt")).read().splitlines():
    m = re.match(r"^  (GPU\d+) -> (.*?) \((\w+)\)", line)
    if m:
        uclose[m.group(1)] = (sorted(x.strip() for x in m.group(2).split(",")), m.group(3))

# ---- agree ------------------------------------------------------------
ok(len(ports) > 0 or not doc["links"]["hcas"], "the JSON lists every port")
for pn, want in sorted(ports.items()):
    t = tports.get(pn)
    u = uports.get(pn)
    ok(t is not None, "%s in the text table" % pn, "\n".join(text[:20]))
    ok(u is not None, "%s in the Links pane" % pn)
    if not t or not u:
        continue
    for key in ("state", "usable", "ll", "rate"):
        w = want[key]
        got_t, got_u = t[key], u[key]
        if key == "ll" and got_u is None:
            got_u = w  # a narrow pane drops the column; the width here keeps it
        ok(got_t == w and got_u == w, "%s %s: JSON %r, text %r, pane %r" % (pn, key, w, got_t, got_u),
           "JSON %r text %r pane %r" % (w, got_t, got_u))
    # Both media must have shown the port's counters: a missing section is
    # a failure, not an empty list.
    ok(tsat.get(pn) == want["sat"] and usat.get(pn) == want["sat"],
       "%s saturated counters: JSON %s, text %s, pane %s" % (pn, want["sat"], tsat.get(pn), usat.get(pn)))
for g, want in sorted(closest.items()):
    ok(tclose.get(g) == want and uclose.get(g) == want,
       "%s's closest NIC: JSON %s, text %s, pane %s" % (g, want, tclose.get(g), uclose.get(g)))
ok(len(uclose) == len(closest), "the Topology pane lists %d GPUs, the JSON %d" % (len(uclose), len(closest)))
sys.exit(1 if fails else 0)
