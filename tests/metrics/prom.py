#!/usr/bin/env python3
"""prom.py FILE EXPR: parses a Prometheus text exposition (0.0.4) and
evaluates the Python expression EXPR over it; prints "ok" when it is true,
else what it was. In EXPR:
  S            every sample: a list of (name, {label: value}, float)
  v(name, **l) the value of the one sample of that name whose labels
               include l (None when none; an error when several match)
  n(name, **l) how many samples match
  lbl(name, key, **l) the label key of the one matching sample
  E            the environment (os.environ), for values a shell cannot quote
The parser is written from the format's description (prometheus.io,
"Exposition formats"): label values unescape \\\\, \\" and \\n; any other
escape, a raw newline or invalid UTF-8 in a label value is an error, so
this is a check of the escaping as well; an empty label value is no label,
as in Prometheus. With --scrape URL instead of
FILE it reads an HTTP response (a node_exporter's /metrics)."""
import math
import os
import sys
import urllib.request


def parse(text):
    out = []
    for ln, line in enumerate(text.split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        i = 0
        while i < len(line) and (line[i].isalnum() or line[i] in "_:"):
            i += 1
        name, labels = line[:i], {}
        if not name:
            raise ValueError("line %d: no metric name: %r" % (ln, line))
        if i < len(line) and line[i] == "{":
            i += 1
            while line[i] != "}":
                j = line.index("=", i)
                key = line[i:j]
                if line[j + 1] != '"':
                    raise ValueError("line %d: label %s not quoted" % (ln, key))
                k, val = j + 2, []
                while line[k] != '"':
                    c = line[k]
                    if c == "\\":
                        e = line[k + 1]
                        if e not in '\\"n':
                            raise ValueError("line %d: bad escape \\%s" % (ln, e))
                        val.append("\n" if e == "n" else e)
                        k += 2
                    else:
                        val.append(c)
                        k += 1
                if val:  # an empty label value is no label (Prometheus's data model)
                    labels[key] = "".join(val)
                i = k + 1
                if line[i] == ",":
                    i += 1
            i += 1
        fields = line[i:].split()
        if len(fields) not in (1, 2):
            raise ValueError("line %d: expected a value: %r" % (ln, line))
        out.append((name, labels, float(fields[0])))
    return out


def main():
    if sys.argv[1] == "--scrape":
        raw = urllib.request.urlopen(sys.argv[2], timeout=10).read()
        expr = sys.argv[3]
    else:
        raw = open(sys.argv[1], "rb").read()
        expr = sys.argv[2]
    S = parse(raw.decode("utf-8"))  # strict: invalid UTF-8 fails here

    def match(name, l):
        return [s for s in S if s[0] == name and all(s[1].get(k) == x for k, x in l.items())]

    def v(_name, **l):
        m = match(_name, l)
        if len(m) > 1:
            raise ValueError("%d samples match %s %s" % (len(m), _name, l))
        return m[0][2] if m else None

    def n(_name, **l):
        return len(match(_name, l))

    def lbl(_name, key, **l):
        m = match(_name, l)
        if len(m) != 1:
            raise ValueError("%d samples match %s %s" % (len(m), _name, l))
        return m[0][1].get(key)

    env = dict(S=S, v=v, n=n, lbl=lbl, math=math, E=os.environ)
    try:
        r = eval("(" + expr.strip() + "\n)", env)
    except Exception as e:  # noqa: BLE001 - the test prints what went wrong
        print("error: %s" % e)
        return 1
    print("ok" if r is True else "not as expected (%r): %s" % (r, expr))
    return 0 if r is True else 1


if __name__ == "__main__":
    sys.exit(main())
