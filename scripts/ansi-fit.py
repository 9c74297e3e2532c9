#!/usr/bin/env python3
"""ansi-fit.py FILE COLS: tmux's capture (capture-pane -e -N) may keep a
padding space after a wide character at the end of a line; a line one
column too wide wraps in the xterm that renders the screenshot and pushes
the whole screen up a line. Trailing spaces beyond COLS display columns
(a CJK character is two) are dropped, in place."""
import re
import sys
import unicodedata

SGR = r"\x1b\[[0-9;]*m"


def width(line):
    text = re.sub(SGR, "", line)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def main():
    path, cols = sys.argv[1], int(sys.argv[2])
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    tail = re.compile(" ((?:" + SGR + ")*)$")
    for i, line in enumerate(lines):
        while width(line) > cols and tail.search(line):
            line = tail.sub(r"\1", line)
        lines[i] = line
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


main()
