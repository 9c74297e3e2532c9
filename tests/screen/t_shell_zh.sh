#!/bin/sh
# The shell in Chinese (--lang zh_CN, with LANG=C as in a container without
# locales) at 80x24 and 120x40: the tab bar, the banner, the status bar and
# the help's key column are measured in display columns (a CJK character
# is two): no line wider than the terminal, the status bar's keys end at
# the right edge, every tab's title whole (no CJK character cut), and the
# help's descriptions in one column.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
SCEN=$TOP/build/scenarios
UPDATE=${UPDATE:-}
export LANG=C
unset LC_ALL LINES COLUMNS LANGUAGE

PREFIX=fabtop-shell-zh . "$(dirname "$0")/lib.sh"
[ -d "$SCEN/hang" ] || { notok "needs build/scenarios/hang (make tests)"; exit 0; }
[ -f "$TOP/build/locale/zh_CN/LC_MESSAGES/fabtop.mo" ] ||
	{ notok "needs build/locale/zh_CN/LC_MESSAGES/fabtop.mo (make tests)"; exit 0; }
command -v python3 >/dev/null || { echo "ok - zh_CN widths # SKIP python3 is not installed"; exit 0; }

# check.py COLS FILE...: the layout checks over screen dumps, one TAP line
# each; the files are whole screens (tab bar first, status bar last).
cat > "$T/check.py" <<'EOF'
import sys, unicodedata
cols = int(sys.argv[1])
def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in s)
bad = 0
def tap(okay, name, detail=""):
    global bad
    print(("ok - " if okay else "not ok - ") + name)
    if not okay:
        bad += 1
        for l in detail.splitlines()[:10]:
            print("#   " + l)
for f in sys.argv[2:]:
    lines = open(f, encoding="utf-8").read().split("\n")[:-1]
    tag = "%dc %s" % (cols, f.rsplit("/", 1)[-1])
    wide = [l for l in lines if width(l) > cols]
    tap(not wide, tag + ": no line wider than %d columns" % cols, "\n".join(wide))
    st = lines[-1]
    tap(st.endswith("q:退出") and width(st) == cols - 1 or st.endswith("Esc：取消") and width(st) == cols - 1,
        tag + ": the status bar's keys end at the right edge", "%r (%d columns)" % (st, width(st)))
    tabs = lines[0]
    whole = all(t in tabs for t in ("帮助",)) and tabs.rstrip().endswith("fabtop") if cols >= 80 else True
    tap(whole and "\ufffd" not in tabs and "?" not in tabs, tag + ": the tab bar holds every title whole", tabs)
    if "help" in f:
        # The keys' descriptions start in one display column.
        rows = [l for l in lines[1:-1] if l.startswith("  ") and not l.startswith("   ")]
        starts = set()
        for l in rows:
            i = l.find("  ", 2)
            j = i
            while j < len(l) and l[j] == " ":
                j += 1
            if i > 0 and j < len(l):
                starts.add(width(l[:j]))
        tap(len(starts) == 1, tag + ": the help's key descriptions start in one column", repr(sorted(starts)))
    if len(lines) > 1 and "banner" in f:
        tap(lines[1].startswith(" 演示："), tag + ": the banner is in Chinese", lines[1])
sys.exit(0)
EOF

for size in 80x24 120x40; do
	c=${size%x*}
	cat > "$T/$size.script" <<EOF
dump $T/$size-banner-topo.txt
key h
dump $T/$size-banner-help.txt
key /
type 搜索本窗格
dump $T/$size-banner-prompt.txt
key Esc
key D
dump $T/$size-banner-switcher.txt
key Esc
key A
dump $T/$size-banner-msg.txt
key q
EOF
	headless $size "$size" "$BIN" --lang zh_CN demo hang || continue
	python3 "$T/check.py" "$c" "$T/$size"-banner-*.txt
done
# The checks can fail: an English status bar does not end in "q:退出".
printf 'dump %s\nkey q\n' "$T/en.txt" > "$T/en.script"
headless en 80x24 "$BIN" --lang C demo hang >/dev/null
if python3 "$T/check.py" 80 "$T/en.txt" | grep -q "^not ok - .*status bar"; then
	ok "the width check fails on a status bar that is not the Chinese one"
else
	notok "the width check fails on a status bar that is not the Chinese one"
fi
