#!/bin/sh
# The findings speak Chinese with --lang zh_CN, and only where people read
# them: for scenarios with findings from every rule file (rules_links,
# rules_topo, lossless, the counter limits), `report all` and `report
# counters`
#   - with --json are byte for byte the same with and without --lang zh_CN
#     (a machine reads them: ids, messages, evidence stay English), with the
#     same exit code;
#   - as text with --lang zh_CN list every finding id the JSON lists (ids
#     are never translated), each finding's message with Chinese in it, none
#     of the English messages, and the layer/evidence/next lines in Chinese.
# The same check on the English text must fail (the check can fail).
NAME=findings-zh; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
need "$top/build/locale/zh_CN/LC_MESSAGES/fabtop.mo"
command -v jq >/dev/null || { ok "findings zh_CN # SKIP jq is missing (make check-deps)"; exit 0; }

# A CJK ideograph in UTF-8 starts with a byte 0xE4..0xE9 (U+4E00..U+9FFF).
cjk=$(printf '[\344-\351]')

# finding_lines TEXT: the lines finding_print starts a finding with,
# "  [severity] id subject: message".
finding_lines() {
	LC_ALL=C grep -E '^ +\[[^] ]+\] [a-z]+\.[a-z0-9-]+ ' "$1"
}

# check TEXT JSON: what is wrong with TEXT as the Chinese of JSON's findings,
# one line each; nothing when it is right.
check() {
	jq -r '.. | objects | select(has("id") and has("severity")) | .id' "$2" | sort >"$T/ids.json"
	finding_lines "$1" | awk '{ print $2 }' | sort >"$T/ids.text"
	if ! cmp -s "$T/ids.json" "$T/ids.text"; then
		echo "the finding ids differ from the JSON's:"
		diff "$T/ids.json" "$T/ids.text" | head -n 8
	fi
	finding_lines "$1" | sed 's/^ *\[[^]]*\] [^ ]* [^ ]*: //' >"$T/msgs"
	n=$(LC_ALL=C grep -vc "$cjk" "$T/msgs")
	[ "$n" = 0 ] || { echo "$n finding messages without Chinese:"; LC_ALL=C grep -v "$cjk" "$T/msgs" | head -n 3; }
	finding_lines "$1" | awk '{ print $1 }' | LC_ALL=C grep -v "$cjk" | head -n 1 | sed 's/^/severity not translated: /'
	jq -r '.. | objects | select(has("id") and has("severity")) | .message' "$2" >"$T/en.msgs"
	while IFS= read -r m; do
		[ -n "$m" ] && LC_ALL=C grep -qF -- "$m" "$1" && echo "English message shown: $m"
	done <"$T/en.msgs" | head -n 3
	# Each of layer, evidence and next that some finding has is in Chinese.
	for kl in 'layer 层：' 'evidence 证据：' 'hint 下一步：'; do
		k=${kl%% *} label=${kl#* }
		jq -e --arg k "$k" '[.. | objects | select(has("id") and has("severity")) | .[$k] // ""
			| select(. != "")] | length > 0' "$2" >/dev/null || continue
		LC_ALL=C grep -q "^ *$label" "$1" || echo "no \"$label\" line (the $k of a finding)"
	done
}

# SCENARIO:REPORTS; `report counters` where the scenario recorded samples.
for sr in roce-faults:all pcie-2numa:all lossless-mismatch:all,counters hang:all,counters \
	  link-flap:all,counters; do
	s=${sr%%:*}
	root="$top/build/scenarios/$s"
	[ -e "$root" ] || { nok "$s: needs $root (make tests)"; continue; }
	for r in $(echo "${sr#*:}" | tr , ' '); do
		"$bin" --root "$root" report $r --json >"$T/en.json" 2>"$T/en.err"; rc_en=$?
		"$bin" --lang zh_CN --root "$root" report $r --json >"$T/zh.json" 2>"$T/zh.err"; rc_zh=$?
		if [ ! -s "$T/en.json" ]; then
			nok "$s report $r --json: no output" "$(cat "$T/en.err")"
			continue
		fi
		if cmp -s "$T/en.json" "$T/zh.json" && [ $rc_en = $rc_zh ]; then
			ok "$s report $r --json: the same bytes and exit code ($rc_en) with --lang zh_CN"
		else
			nok "$s report $r --json: --lang zh_CN changes the JSON (exit $rc_en vs $rc_zh)" \
				"$(diff "$T/en.json" "$T/zh.json" | head -n 12)" "$(cat "$T/zh.err")"
		fi
		nf=$(jq '[.. | objects | select(has("id") and has("severity"))] | length' "$T/en.json")
		[ "$nf" -gt 0 ] || continue   # nothing to read in either language
		"$bin" --lang zh_CN --root "$root" report $r >"$T/zh.txt" 2>"$T/zh.err"; rc_t=$?
		bad=$(check "$T/zh.txt" "$T/en.json")
		if [ -z "$bad" ] && [ $rc_t = $rc_en ]; then
			ok "$s report $r --lang zh_CN: $nf findings, each id kept and each message in Chinese"
		else
			nok "$s report $r --lang zh_CN: findings not all in Chinese (exit $rc_t, JSON's $rc_en)" "$bad"
		fi
	done
done

# The check fails on English text: it is no check otherwise.
root="$top/build/scenarios/roce-faults"
if [ -e "$root" ]; then
	"$bin" --root "$root" report all --json >"$T/en.json" 2>/dev/null
	"$bin" --lang C --root "$root" report all >"$T/en.txt" 2>/dev/null
	if [ -n "$(check "$T/en.txt" "$T/en.json")" ]; then
		ok "the check finds the English findings of --lang C"
	else
		nok "the check passes English text: it cannot fail"
	fi
fi
