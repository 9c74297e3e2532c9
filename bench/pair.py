#!/usr/bin/env python3
"""bench/pair.py: paired, interleaved timing of commands, and the ratio tables.

Usage:  python3 bench/pair.py SPEC RUNS

SPEC is a file of tab-separated lines:
  title  TEXT                         the table's heading
  cmd    NAME  WORD...                a command to time; leading VAR=value words
                                      are its environment, "<FILE" its stdin
  tmux   NAME  MARKER  WORD...        a console program started in a private
                                      tmux server (200x50); its time is the wall
                                      time until MARKER is on the screen
  row    FIGURE  REFERENCE  AIM  [KIND]
                                      FIGURE/REFERENCE against AIM ("1.0": at
                                      most 1.0x; "-": no aim, a comparison);
                                      KIND cpu (default) or wall
  slope  LABEL  AIM  P:NAME...        ms of CPU per added port between
                                      successive sizes P (NAME timed at P ports),
                                      and the last segment's over the one before
                                      against AIM ("constant": close to 1; the
                                      first segment, where fixed costs still
                                      dominate, is shown, not judged)
  note   TEXT                         a line printed under the table
Every round runs each command once, in the order given, so drifts of the
machine (other builds, frequency) fall on all of them alike; WARMUP rounds
(environment, default 1) come first and are not counted.  CPU is user+sys of the child and its children (wait4's
rusage), wall from fork to exit; the table shows medians.  A command that
exits with a status other than 0 or 1 (fabtop's verdicts) is FAILED, and so
are the rows that use it.
"""

import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time


def parse(path):
    title, cmds, rows, notes, slopes = "", {}, [], [], []
    with open(path) as f:
        for ln in f:
            ln = ln.rstrip("\n")
            if not ln or ln.startswith("#"):
                continue
            w = ln.split("\t")
            if w[0] == "title":
                title = w[1]
            elif w[0] == "slope":
                slopes.append((w[1], w[2], [(int(x.split(":")[0]), x.split(":", 1)[1]) for x in w[3:]]))
            elif w[0] == "note":
                notes.append(w[1])
            elif w[0] == "cmd":
                cmds[w[1]] = ("cmd", None, w[2])
            elif w[0] == "tmux":
                cmds[w[1]] = ("tmux", w[2], w[3])
            elif w[0] == "row":
                rows.append((w[1], w[2], w[3], w[4] if len(w) > 4 else "cpu"))
            else:
                sys.exit("pair.py: bad line: " + ln)
    return title, cmds, rows, notes, slopes


def split(words):
    env, argv, stdin = dict(os.environ), shlex.split(words), None
    while argv and "=" in argv[0] and not argv[0].startswith("="):
        k, v = argv.pop(0).split("=", 1)
        env[k] = v
    for a in list(argv):
        if a.startswith("<"):
            stdin = a[1:]
            argv.remove(a)
    return env, argv, stdin


def run_cmd(words):
    """(wall s, cpu s, rc) of one run."""
    env, argv, stdin = split(words)
    fin = open(stdin, "rb") if stdin else subprocess.DEVNULL
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdin=fin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if stdin:
        fin.close()
    return wall, ru.ru_utime + ru.ru_stime, p.returncode


class Tmux:
    """A private tmux server (its own socket, no config) for the console runs."""

    def __init__(self):
        self.sock = "fabtop-bench-%d" % os.getpid()

    def t(self, *a, check=False):
        return subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null"] + list(a),
                              capture_output=True, text=True, check=check)

    def first_screen(self, marker, words, timeout=30.0):
        """Wall seconds from starting `words` in a new 200x50 session until
        `marker` is on the pane; the program is then quit (q, then killed)."""
        env, argv, _ = split(words)
        envs = [a for k, v in env.items() if os.environ.get(k) != v for a in ("-e", "%s=%s" % (k, v))]
        t0 = time.perf_counter()
        self.t("new-session", "-d", "-s", "b", "-x", "200", "-y", "50", *envs, shlex.join(argv), check=True)
        seen = None
        while time.perf_counter() - t0 < timeout:
            out = self.t("capture-pane", "-p", "-t", "b").stdout
            if marker in out:
                seen = time.perf_counter() - t0
                break
        self.t("send-keys", "-t", "b", "q")
        deadline = time.perf_counter() + 3
        while time.perf_counter() < deadline and self.t("has-session", "-t", "b").returncode == 0:
            time.sleep(0.02)
        self.t("kill-server")
        return (seen if seen is not None else float("nan")), float("nan"), 0 if seen is not None else 3


def fmt_ms(x):
    return "FAILED" if x is None else ("%.1f" % (x * 1000) if x == x else "-")


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: pair.py SPEC RUNS")
    title, cmds, rows, notes, slopes = parse(argv[1])
    runs = int(argv[2])
    tm = Tmux() if any(c[0] == "tmux" for c in cmds.values()) else None
    if tm and not shutil.which("tmux"):
        sys.exit("pair.py: tmux not installed")
    res = {k: [] for k in cmds}
    failed = {}
    warm = int(os.environ.get("WARMUP", "1"))
    for rnd in range(runs + warm):
        for name, (kind, marker, words) in cmds.items():
            if name in failed:
                continue
            r = tm.first_screen(marker, words) if kind == "tmux" else run_cmd(words)
            if r[2] not in (0, 1):
                failed[name] = r[2]
            elif rnd >= warm:
                res[name].append(r)

    def med(name, i):
        if name in failed or not res[name]:
            return None
        return statistics.median(r[i] for r in res[name])

    print(title)
    print("  median of %d paired runs; CPU = user+sys, wall = elapsed; ms" % runs)
    w = max([len(r[0]) for r in rows] + [len(r[1]) for r in rows] + [10])
    print("  %-*s %9s %9s  %-*s %9s %9s  %7s  %6s  %s" % (w, "figure", "cpu", "wall", w, "reference", "cpu",
                                                     "wall", "ratio", "aim", ""))
    for fig, ref, aim, kind in rows:
        i = 1 if kind == "cpu" else 0
        a, b = med(fig, i), med(ref, i)
        ratio = a / b if a is not None and b is not None and b > 0 and a == a else None
        if aim == "-":
            verdict = ""
        elif ratio is None:
            verdict = "NOT MET (failed)"
        else:
            verdict = "met" if ratio <= float(aim) else "NOT MET"
        print("  %-*s %9s %9s  %-*s %9s %9s  %7s  %6s  %s" % (
            w, fig, fmt_ms(med(fig, 1)), fmt_ms(med(fig, 0)), w, ref, fmt_ms(med(ref, 1)), fmt_ms(med(ref, 0)),
            "-" if ratio is None else "%.2fx" % ratio, "-" if aim == "-" else "<=%sx" % aim,
            verdict + ("" if kind == "cpu" else " (wall)")))
    for label, aim, pts in slopes:
        segs = []
        for (p1, n1), (p2, n2) in zip(pts, pts[1:]):
            a, b = med(n1, 1), med(n2, 1)
            segs.append(None if a is None or b is None else (b - a) * 1000 / (p2 - p1))
            print("  %-*s %4d -> %4d ports: %s ms CPU per added port" % (
                w, label, p1, p2, "FAILED" if segs[-1] is None else "%.3f" % segs[-1]))
        prev = segs[-2] if len(segs) > 1 else segs[0]
        if aim == "-":
            if None not in segs and prev > 0:
                print("  %-*s last/previous segment: %.2fx" % (w, label, segs[-1] / prev))
        elif None in segs or prev <= 0:
            print("  %-*s last/previous segment: -  aim <=%sx  NOT MET (failed or no growth)" % (w, label, aim))
        else:
            r = segs[-1] / prev
            print("  %-*s last/previous segment: %.2fx  aim <=%sx  %s" % (
                w, label, r, aim, "met" if r <= float(aim) else "NOT MET"))
    for name, rc in sorted(failed.items()):
        print("  FAILED: %s exited %d: %s" % (name, rc, cmds[name][2]))
    for n in notes:
        print("  " + n)
    print()


if __name__ == "__main__":
    main(sys.argv)
