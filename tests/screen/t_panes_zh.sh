#!/bin/sh
# The Wizard, Job and Fleet panes in Chinese (--lang zh_CN), headless
# (FABTOP_SCRIPT) on the bundled hang capture (an NCCL job with its
# environment) at 80x24 and 120x40: every row fits the terminal by display
# width (a CJK character takes two columns), the table columns line up by
# display width (the ladder's status, the job's settings' value and source,
# the fleet's headings over their cells), the panes' words are Chinese, and
# the settings, process and ladder rows are the ones the English panes show.
# The dumps are checked, not compared whole: the step and finding texts
# come from other parts whose translations move on their own.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
SCEN=$TOP/build/scenarios
EXP=$TOP/tests/screen/expected
UPDATE=
export LANG=C.UTF-8
unset LC_ALL LANGUAGE LC_MESSAGES LINES COLUMNS NO_COLOR

PREFIX=fabtop-panes-zh . "$(dirname "$0")/lib.sh"

if [ ! -f "$TOP/build/locale/zh_CN/LC_MESSAGES/fabtop.mo" ]; then
	notok "zh_CN catalog built (make tests builds build/locale)"
	exit 0
fi
if [ ! -f "$SCEN/hang/fabtop/meta.json" ]; then
	notok "scenario hang is missing (make scenarios)"
	exit 0
fi

# check.py MODE FILE COLS: the alignment checks, one TAP-less verdict line
# on stdout ("ok" or what is wrong).
cat > "$T/check.py" <<'PY'
import sys, unicodedata
mode, path, cols = sys.argv[1], sys.argv[2], int(sys.argv[3])
def w(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in s)
lines = open(path, encoding="utf-8").read().split("\n")
bad = [l for l in lines if w(l) > cols]
if bad:
    print("wider than %d columns: %r" % (cols, bad[0])); sys.exit()
def starts(line, n):
    # display columns where the first n fields start; fields are separated
    # by two or more blanks
    out, col, i, field = [], 0, 0, False
    while i < len(line):
        if line[i] != " ":
            if not field:
                out.append(col)
                field = True
        elif line[i:i+2] == "  ":
            field = False
        col += w(line[i]); i += 1
    return out[:n]
if mode == "ladder":
    # the ladder only: the detail may be beside it, after the rule
    rows = [l.split("\u2502")[0].split("|")[0] for l in lines]
    rows = [l for l in rows if len(l) > 5 and l[0] in "> " and l[1] == " " and l[2] != " " and
            l[3] == " " and (" l" in l[:8] or " job " in l[:9] or " ab " in l[:8])]
    if len(rows) != 5:
        print("5 ladder rows, not %d: %r" % (len(rows), rows)); sys.exit()
    # the status word is the last field
    last = set()
    for l in rows:
        s = l.rstrip()
        k = s.rfind(" ")
        last.add(w(s[:k + 1]))
    if len(last) != 1:
        print("the status column starts at columns %s: %r" % (sorted(last), rows)); sys.exit()
elif mode == "settings":
    rows = [l for l in lines if l[2:7] == "NCCL_" and "  " in l[2:]]
    if len(rows) < 2:
        print("fewer than 2 settings rows: %r" % rows); sys.exit()
    cs = set(tuple(starts(l[2:], 3)) for l in rows)   # after the selection mark
    if len(cs) != 1 or len(next(iter(cs))) != 3:
        print("the settings' columns start at %s: %r" % (sorted(cs), rows)); sys.exit()
elif mode == "fleet":
    head = [l for l in lines if "主机" in l]
    rows = [l for l in lines if "-demo" in l and l[:2] in ("> ", "  ", "! ", "? ") and "Gb/s" in l]
    if not head or len(rows) < 2:
        print("no headings or rows: %r %r" % (head, rows)); sys.exit()
    # the verdict column: its heading starts where its cells do
    h = head[0]
    hv = w(h[:h.find("结论")])
    for l in rows:
        k = l.find("-demo") + len("-demo")
        while l[k] == " ":
            k += 1
        if w(l[:k]) != hv:
            print("heading 结论 at column %d, cell at %d: %r / %r" % (hv, w(l[:k]), h, l)); sys.exit()
print("ok")
PY

check() {
	r=$(python3 "$T/check.py" "$1" "$2" "$3" 2>&1)
	if [ "$r" = ok ]; then
		ok "$4"
	else
		notok "$4"
		{ echo "$r"; cat "$2"; } | comment
	fi
}

for size in 80x24 120x40; do
	cols=${size%x*}
	cat > "$T/zh$size.script" <<EOS
key 4
dump-pane $T/wizard-$size.txt
key Down
key Down
dump-pane $T/wizard-l2-$size.txt
key 5
dump-pane $T/job-$size.txt
$(i=0; while [ $i -lt 17 ]; do echo "key Down"; i=$((i + 1)); done)
dump-pane $T/job-settings-$size.txt
key q
EOS
	headless "zh$size" "$size" "$BIN" --lang zh_CN --root "$SCEN/hang" || continue
	check ladder "$T/wizard-$size.txt" "$cols" "zh_CN $size: the Wizard ladder's columns line up by display width"
	has "$T/wizard-$size.txt" "zh_CN $size: the Wizard pane speaks Chinese" "测试阶梯" "为什么重要" "输入" \
		"接口（尚未确定）" "对端 无（按 e 添加）" "^> .* job .*下一步"
	has "$T/wizard-l2-$size.txt" "zh_CN $size: Down selects l2, its detail in Chinese" "^> .* l2 " \
		"待运行：Enter 运行下一个待运行步骤；r 运行本步"
	check ladder "$T/wizard-l2-$size.txt" "$cols" "zh_CN $size: the ladder stays aligned with l2 selected"
	has "$T/job-$size.txt" "zh_CN $size: the Job pane speaks Chinese" "^作业：" "NCCL 在本节点上的行为（按作业的配置）" \
		"^> GPU0 -> mlx5_0/1 PIX，GPUDirect RDMA"
	check settings "$T/job-settings-$size.txt" "$cols" "zh_CN $size: the job's settings line up by display width"
	has "$T/job-settings-$size.txt" "zh_CN $size: Down reaches the job's settings, in view and selected" \
		"作业的 NCCL 配置" "^  NCCL_DEBUG  *WARN  *环境变量，全部 8 个进程" "^> NCCL_SOCKET_IFNAME  eno1  环境变量，全部 8 个进程"
done

# The Fleet pane's table: Chinese headings over their cells.
cat > "$T/fleet.script" <<EOS
dump-pane $T/fleet.txt
key q
EOS
if headless fleet 100x30 "$BIN" --lang zh_CN fleet "$SCEN/dgx-h100.tar.gz" "$SCEN/hang.tar.gz" "$SCEN/roce-faults.tar.gz"; then
	check fleet "$T/fleet.txt" 100 "zh_CN 100x30: the Fleet pane's headings stand over their cells"
	has "$T/fleet.txt" "zh_CN: the Fleet pane speaks Chinese" "排序：加载顺序（s 下一列，S 反转）" "主机" "结论" "路径"
fi
