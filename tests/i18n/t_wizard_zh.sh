#!/bin/sh
# The wizard and `report job` in Chinese: `wizard --batch --steps job,l1`
# and `report job` on scenarios with a job (hang, lossless-mismatch,
# roce-faults). With --lang zh_CN the text is Chinese (each step's verdict
# line, and the job step's verdict itself, has Han characters) and still
# names every step id and every finding id as they are; the step headers
# keep their status column at the same screen column whatever the width of
# the translated title; the JSON (a machine reads it) is byte-identical
# with and without --lang zh_CN (the elapsed times aside), and so are the
# exit statuses. The English text has no Han character (the check can fail).
NAME=wizard-zh; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
need "$top/build/scenarios/hang" "$top/build/locale/zh_CN/LC_MESSAGES/fabtop.mo"
command -v python3 >/dev/null || { nok "t_wizard_zh needs python3"; exit 0; }

# Han characters (CJK unified ideographs) in a file: their count.
han() { python3 -c 'import sys; print(sum(1 for c in open(sys.argv[1], encoding="utf-8").read() if "\u4e00" <= c <= "\u9fff"))' "$1"; }
# The JSON with its timings masked: the only values a second run changes.
nojit() { sed -E 's/"elapsed_s": *[0-9.e+-]+/"elapsed_s": 0/g' "$1"; }

# Whatever its exit status (the verdict), nothing said about the language.
"$bin" --lang zh_CN --root "$top/build/scenarios/hang" report job >/dev/null 2>"$T/lang.err"
if grep -q -- '--lang' "$T/lang.err"; then
	nok "--lang zh_CN finds its catalog" "$(cat "$T/lang.err")"
	exit 0
fi

for s in hang lossless-mismatch roce-faults; do
	root=$top/build/scenarios/$s
	[ -d "$root" ] || { nok "$s: scenario missing (make tests)"; continue; }

	# ---- wizard --batch --steps job,l1 ----
	"$bin" --root "$root" wizard --batch --steps job,l1 --json >"$T/en.json" 2>"$T/en.jerr"; rj_en=$?
	"$bin" --lang zh_CN --root "$root" wizard --batch --steps job,l1 --json >"$T/zh.json" 2>"$T/zh.jerr"; rj_zh=$?
	if [ -s "$T/en.json" ] && nojit "$T/en.json" >"$T/en.jm" && nojit "$T/zh.json" >"$T/zh.jm" &&
		cmp -s "$T/en.jm" "$T/zh.jm" && [ "$rj_en" = "$rj_zh" ]; then
		ok "$s: wizard --json is the same with --lang zh_CN (exit $rj_en)"
	else
		nok "$s: wizard --json changes with --lang zh_CN (exit $rj_en vs $rj_zh)" \
			"$(diff "$T/en.jm" "$T/zh.jm" | head -n 12)" "$(cat "$T/zh.jerr")"
	fi
	"$bin" --lang C --root "$root" wizard --batch --steps job,l1 >"$T/en.txt" 2>&1; rt_en=$?
	"$bin" --lang zh_CN --root "$root" wizard --batch --steps job,l1 >"$T/zh.txt" 2>&1; rt_zh=$?
	if [ "$(han "$T/en.txt")" = 0 ] && [ "$rt_en" = "$rt_zh" ] && [ "$rt_en" = "$rj_en" ]; then
		ok "$s: the English wizard text has no Han character, same exit ($rt_en) in both languages"
	else
		nok "$s: English text or exit statuses" "han: $(han "$T/en.txt"); exit $rt_en/$rt_zh/$rj_en"
	fi
	# Each step: its header names its id, the next line is its verdict,
	# with Han characters; the job step's verdict value itself is Chinese.
	bad=$(python3 - "$T/zh.txt" "$T/en.json" <<'EOF'
import json, sys, unicodedata
text = open(sys.argv[1], encoding="utf-8").read().split("\n")
doc = json.load(open(sys.argv[2]))
han = lambda s: any("\u4e00" <= c <= "\u9fff" for c in s)
def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
bad = []
cols = set()
for step in doc["wizard"]["steps"]:
    sid = step["id"]
    heads = [i for i, l in enumerate(text) if l.startswith("[%s] " % sid)]
    if len(heads) != 1:
        bad.append("step %s: %d header lines" % (sid, len(heads)))
        continue
    h = heads[0]
    verdict = text[h + 1] if h + 1 < len(text) else ""
    if not verdict.startswith("  结论：") or not han(verdict):
        bad.append("step %s: verdict line without Han: %r" % (sid, verdict))
    if sid == "job" and not han(verdict.split("：", 1)[-1]):
        bad.append("job: the verdict itself is not Chinese: %r" % verdict)
    # The status word follows the padded head: the column where it starts.
    head = text[h]
    k = head.rindex(" (")
    status_at = width(head[:head.rindex(" ", 0, k) + 1])
    cols.add(status_at)
    if not han(head[:head.rindex(" ", 0, k)]):
        bad.append("step %s: layer and title not translated: %r" % (sid, head))
    for f in step["findings"]:
        if f["id"] not in "\n".join(text):
            bad.append("finding id %s not in the Chinese text" % f["id"])
if len(cols) > 1:
    bad.append("status column moves with the title width: %s" % sorted(cols))
print("\n".join(bad))
EOF
)
	if [ -z "$bad" ]; then
		ok "$s: Chinese wizard text: step ids, Chinese verdicts, every finding id, status column aligned"
	else
		nok "$s: Chinese wizard text" "$bad" "$(head -n 8 "$T/zh.txt")"
	fi

	# ---- report job ----
	"$bin" --root "$root" report job --json >"$T/en.rj" 2>&1; r_en=$?
	"$bin" --lang zh_CN --root "$root" report job --json >"$T/zh.rj" 2>&1; r_zh=$?
	if [ -s "$T/en.rj" ] && cmp -s "$T/en.rj" "$T/zh.rj" && [ "$r_en" = "$r_zh" ]; then
		ok "$s: report job --json is byte-identical with --lang zh_CN (exit $r_en)"
	else
		nok "$s: report job --json changes with --lang zh_CN" "$(diff "$T/en.rj" "$T/zh.rj" | head -n 12)"
	fi
	"$bin" --lang zh_CN --root "$root" report job >"$T/zh.rt" 2>&1; rt=$?
	"$bin" --lang C --root "$root" report job >"$T/en.rt" 2>&1
	verdict=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$T/en.rj" 2>/dev/null)
	first=$(head -n 1 "$T/zh.rt")
	if [ -n "$verdict" ] && [ "$rt" = "$r_en" ] && case "$first" in *"$verdict"*) true;; *) false;; esac &&
		[ "$(han "$T/zh.rt")" -gt 0 ] && python3 -c '
import sys; l = open(sys.argv[1], encoding="utf-8").readline()
sys.exit(0 if any("\u4e00" <= c <= "\u9fff" for c in l) else 1)' "$T/zh.rt" &&
		[ "$(han "$T/en.rt")" = 0 ]; then
		ok "$s: report job in Chinese names the verdict id $verdict on a Chinese first line"
	else
		nok "$s: report job text" "verdict $verdict, exit $rt vs $r_en" "$(head -n 5 "$T/zh.rt")"
	fi
done
