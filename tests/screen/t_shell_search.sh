#!/bin/sh
# The shell's `/` search, headless (FABTOP_SCRIPT): the prompt in the status
# bar (typing, Backspace, Esc cancels, Enter runs), the current pane's find()
# moving to a line that holds the text, n and N repeating it forward and
# back, "not found: Q", and the same prompt driving another pane's find()
# (Topology: its GPU rows). Every pane has a find() now, so the shell's "this
# pane has no list to search" has no pane to show it on.
# The Help pane is searched (its find() is the shell's own: views/help.c),
# so these checks do not depend on the other panes' lists.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
SCEN=$TOP/build/scenarios
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS LANGUAGE

PREFIX=fabtop-shell-search . "$(dirname "$0")/lib.sh"
[ -d "$SCEN/dgx-h100" ] || { notok "needs build/scenarios/dgx-h100 (make tests)"; exit 0; }

# status FILE: the status bar (the dump's last line).
status() { tail -n 1 "$1"; }
# first FILE: the pane's first row (dump-pane).
first() { head -n 1 "$1"; }

cat > "$T/s.script" <<EOF
key h
dump-pane $T/p0.txt
key /
type Limits
dump $T/prompt.txt
key BSpace
key BSpace
dump $T/prompt2.txt
key Esc
dump $T/esc.txt
dump-pane $T/pesc.txt
key /
type limits
key Enter
dump-pane $T/p1.txt
dump $T/s1.txt
key n
dump-pane $T/p2.txt
key N
dump-pane $T/p3.txt
key /
type no-such-text-zz
key Enter
dump $T/nf.txt
dump-pane $T/nfp.txt
key 1
key /
type GPU3
key Enter
dump $T/topo.txt
key q
EOF
headless s 80x24 "$BIN" --root "$SCEN/dgx-h100" || exit 0

case $(status "$T/prompt.txt") in
" /Limits_"*"Enter: search  Esc: cancel") ok "/ opens a prompt in the status bar that shows what is typed" ;;
*) notok "/ opens a prompt in the status bar that shows what is typed"; status "$T/prompt.txt" | comment ;;
esac
case $(status "$T/prompt2.txt") in
" /Limi_"*) ok "Backspace takes the last character off the prompt" ;;
*) notok "Backspace takes the last character off the prompt"; status "$T/prompt2.txt" | comment ;;
esac
if status "$T/esc.txt" | grep -q "h:help q:quit" && ! status "$T/esc.txt" | grep -q "/Limi" &&
   cmp -s "$T/p0.txt" "$T/pesc.txt"; then
	ok "Esc cancels the prompt: nothing searched, the status bar is the node's again"
else
	notok "Esc cancels the prompt"; status "$T/esc.txt" | comment
fi
# The help starts with its title; the search moves a line holding "limits"
# (case folded) to the top of the pane.
if first "$T/p0.txt" | grep -q "^fabtop: diagnostics console" &&
   first "$T/p1.txt" | grep -qi "limits" && ! cmp -s "$T/p0.txt" "$T/p1.txt"; then
	ok "Enter runs the search: the help moves to a line holding \"limits\""
else
	notok "Enter runs the search: the help moves to a line holding \"limits\""
	first "$T/p1.txt" | comment
fi
case $(status "$T/s1.txt") in
" /limits  (n: next, N: previous)"*) ok "the status bar says what was found and how to go on" ;;
*) notok "the status bar says what was found and how to go on"; status "$T/s1.txt" | comment ;;
esac
if first "$T/p2.txt" | grep -qi "limits" && ! cmp -s "$T/p1.txt" "$T/p2.txt"; then
	ok "n goes on to the next line holding the text"
else
	notok "n goes on to the next line holding the text"
	{ first "$T/p1.txt"; first "$T/p2.txt"; } | comment
fi
if cmp -s "$T/p1.txt" "$T/p3.txt"; then
	ok "N goes back to the match before"
else
	notok "N goes back to the match before"; diff "$T/p1.txt" "$T/p3.txt" | head -5 | comment
fi
case $(status "$T/nf.txt") in
" not found: no-such-text-zz"*) ok "a query nowhere in the pane: \"not found: Q\"" ;;
*) notok "a query nowhere in the pane: \"not found: Q\""; status "$T/nf.txt" | comment ;;
esac
if cmp -s "$T/nfp.txt" "$T/p3.txt"; then
	ok "a search that finds nothing leaves the pane where it was"
else
	notok "a search that finds nothing leaves the pane where it was"
fi
# The same prompt drives the Topology pane's find(): GPU3's row is selected.
if grep -q "GPU3" "$T/topo.txt" && ! status "$T/topo.txt" | grep -q "not found\|no list"; then
	ok "/ in the Topology pane finds GPU3's row"
else
	notok "/ in the Topology pane finds GPU3's row"; status "$T/topo.txt" | comment
fi

# Chinese typed at the prompt (get_wch's wide characters) is searched as
# it is: the zh_CN help holds "搜索" in the line about `/`.
cat > "$T/z.script" <<EOF
key h
key /
type 搜索
dump $T/zprompt.txt
key Enter
dump-pane $T/zp.txt
dump $T/zs.txt
key q
EOF
if [ ! -f "$TOP/build/locale/zh_CN/LC_MESSAGES/fabtop.mo" ]; then
	notok "zh_CN search: no catalog build/locale/zh_CN/LC_MESSAGES/fabtop.mo (make tests)"
elif headless z 80x24 "$BIN" --lang zh_CN --root "$SCEN/dgx-h100"; then
	{
		case $(status "$T/zprompt.txt") in
		" /搜索_"*) ok "zh_CN: Chinese typed at the prompt shows as typed" ;;
		*) notok "zh_CN: Chinese typed at the prompt shows as typed"; status "$T/zprompt.txt" | comment ;;
		esac
		if first "$T/zp.txt" | grep -q "搜索" && status "$T/zs.txt" | grep -q "^ /搜索"; then
			ok "zh_CN: a Chinese query finds the help line holding it"
		else
			notok "zh_CN: a Chinese query finds the help line holding it"
			{ first "$T/zp.txt"; status "$T/zs.txt"; } | comment
		fi
	}
fi
