#!/bin/sh
# docs/report-json.md against the real JSON of `fabtop wizard --batch --json`
# and `fabtop analyze-log --json`: each section has a fenced "keys" block
# ("```keys wizard", "```keys analyze-log"), one line per object,
# "PATH: key key ..." (PATH "." is the top object, "[]" an array's
# elements, "*" any key). Every documented key must appear in the outputs
# of the commands below, and every key of those outputs must be documented.
# The A/B runs the stand-in build/tests/fake_nccl; layer 3 the perftest
# stand-ins of tests/perftest/bin on a mirror of a scenario. Needs jq.
# Prints "ok - name" / "not ok - name".
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
DOC=${JSON_DOC:-$TOP/docs/report-json.md}
FAKE=$TOP/build/tests/fake_nccl
export FABTOP_TOP=$TOP
T=$(mktemp -d /tmp/fabtop-jsondocs.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; }

if ! command -v jq >/dev/null; then
	ok "docs/report-json.md against the JSON # SKIP needs jq (apt-get install jq)"
	exit 0
fi
for f in "$BIN" "$FAKE"; do
	if [ ! -x "$f" ]; then
		notok "no binary at $f (make build/san/fabtop build/tests/fake_nccl)"
		exit 0
	fi
done

# doc_keys SECTION: the documented key paths, one a line, sorted. A key
# "@OTHER" stands for every path of section OTHER's block under PATH.
doc_keys() {
	awk -v want="$1" '
		$0 == "```keys " want { on = 1; next }
		on && /^```/ { on = 0 }
		on && NF {
			path = $1; sub(/:$/, "", path)
			for (i = 2; i <= NF; i++)
				print (path == "." ? "" : path ".") $i
		}' "$DOC" | while IFS= read -r k; do
		case $k in
		*@*) doc_keys "${k##*@}" | sed "s|^|${k%%@*}|; s|\$| @|" ;;
		*) echo "$k" ;;
		esac
	done | sort -u
}

# json_keys FILE: every object member's path in FILE, indexes as "[]".
json_keys() {
	jq -r '[paths | select(.[-1] | type == "string")
		| reduce .[] as $p (""; if ($p | type) == "number" then . + "[]"
			elif . == "" then $p else . + "." + $p end)] | .[]' "$1"
}

# run NAME WANT-RC OUT COMMAND...: runs it, checks its exit status and that
# stdout is one JSON document.
run() {
	_n=$1 _want=$2 _out=$3; shift 3
	"$@" > "$_out" 2> "$_out.err"
	_rc=$?
	if { [ "$_want" = any ] || [ "$_rc" = "$_want" ]; } && jq -e 'type == "object"' "$_out" >/dev/null 2>&1; then
		ok "$_n"
	else
		notok "$_n (exit $_rc, want $_want)"
		sed 's/^/#   /' "$_out.err" | head -20
	fi
}

# compare SECTION FILE...: both directions between the doc and the outputs.
compare() {
	_s=$1; shift
	# Keys taken in with "@OTHER" are checked in OTHER's own outputs: here
	# they only need to cover what appears (files of other runs may hold
	# fields these do not).
	doc_keys "$_s" > "$T/$_s.all"
	sed 's/ @$//' "$T/$_s.all" | sort -u > "$T/$_s.doc"
	grep -v ' @$' "$T/$_s.all" | sort -u > "$T/$_s.own"
	for f in "$@"; do json_keys "$f"; done |
		sed 's/\(^\|\.\)errors\.by_kind\..*/\1errors.by_kind.*/' | sort -u > "$T/$_s.real"
	_nd=$(wc -l < "$T/$_s.doc")
	if [ "$_nd" -ge 20 ]; then
		ok "$_s: the doc's keys block names $_nd keys"
	else
		notok "$_s: the doc's keys block names $_nd keys (\`\`\`keys $_s missing in $DOC?)"
	fi
	comm -23 "$T/$_s.own" "$T/$_s.real" > "$T/$_s.extra"
	if [ ! -s "$T/$_s.extra" ]; then
		ok "$_s: every documented key is in the real outputs"
	else
		notok "$_s: documented but in no output:"
		sed 's/^/#   /' "$T/$_s.extra"
	fi
	comm -13 "$T/$_s.doc" "$T/$_s.real" > "$T/$_s.missing"
	if [ ! -s "$T/$_s.missing" ]; then
		ok "$_s: every key of the real outputs is documented"
	else
		notok "$_s: in the outputs but not documented:"
		sed 's/^/#   /' "$T/$_s.missing"
	fi
}

# --- fabtop wizard --batch --json ------------------------------------------------
run "wizard job,l1 on dgx-h100: exit 0" 0 "$T/w-job.json" \
	"$BIN" --root "$TOP/build/scenarios/dgx-h100" wizard --batch --json --steps job,l1
# l2 on the loopback: the peers array (its keys do not depend on what the probe finds).
run "wizard l2 to 127.0.0.1 on lo: a document" any "$T/w-l2.json" \
	"$BIN" wizard --batch --json --steps l2 --peer 127.0.0.1 --iface lo --probe-timeout 0.3
cp -r "$TOP/build/scenarios/ib-8port" "$T/ib-8port" && rm -f "$T/ib-8port/fabtop/meta.json"
run "wizard l3 with the perftest stand-ins: exit 0" 0 "$T/w-l3.json" \
	env PATH="$TOP/tests/perftest/bin:/usr/bin:/bin" PT_LOG="$T/pt.log" PT_BW=write_bw_ib_ndr.txt \
	PT_LAT=send_lat_ib.txt "$BIN" --root "$T/ib-8port" wizard --batch --json --steps l3 --peer 10.0.0.2
run "wizard ab, fake_nccl ok: exit 0" 0 "$T/w-ab-ok.json" \
	"$BIN" wizard --batch --json --steps ab --hang 3 -- "$FAKE" ok
run "wizard ab --verbose, fake_nccl ib-fail: exit 1" 1 "$T/w-ab-fail.json" \
	"$BIN" wizard --batch --json --verbose --steps ab --hang 3 -- "$FAKE" ib-fail
run "wizard ab, a program that does not exist: exit 2" 2 "$T/w-ab-nf.json" \
	"$BIN" wizard --batch --json --steps ab --hang 3 -- "$T/no-such-program"
compare wizard "$T"/w-*.json

# --- fabtop analyze-log --json ---------------------------------------------------
LOGS=$TOP/tests/fixtures/nccl-logs
run "analyze-log h200-socket-ok.log: exit 1 (socket-fallback)" 1 "$T/a-socket.json" \
	"$BIN" analyze-log --json "$LOGS/h200-socket-ok.log"
run "analyze-log v2.19-completion-error-mpirun.log: exit 1" 1 "$T/a-fail.json" \
	"$BIN" analyze-log --json "$LOGS/v2.19-completion-error-mpirun.log"
run "analyze-log v2.10-ib-gdr-ok.log and a missing file: exit 2" 2 "$T/a-ok.json" \
	"$BIN" analyze-log --json "$LOGS/v2.10-ib-gdr-ok.log" "$T/missing.log"
run "analyze-log issue1267-v2.19-plugin-symbol.log: exit 1 (a failed plugin)" 1 "$T/a-plugin.json" \
	"$BIN" analyze-log --json "$LOGS/issue1267-v2.19-plugin-symbol.log"
run "analyze-log issue1126-v2.10-lo-no-device-cut.log: exit 1 (lo warnings)" 1 "$T/a-lo.json" \
	"$BIN" analyze-log --json "$LOGS/issue1126-v2.10-lo-no-device-cut.log"
compare analyze-log "$T"/a-*.json

# --- fabtop report job --json ------------------------------------------------------
# A stuck job against the stand-in RAS server (its ranks 0-3 on the hang
# scenario's node), and a node with no job.
SRV=$TOP/build/tests/ras_server
if [ -x "$SRV" ]; then
	"$SRV" --scenario stuck --version 2.29.7 --port 0 --port-file "$T/ras.port" --host0 10.10.0.17 --pid0 4242 \
		>"$T/ras.out" 2>&1 &
	srv=$!
	i=0
	while [ ! -s "$T/ras.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	run "report job on hang with a stuck job: exit 1" 1 "$T/j-stuck.json" \
		"$BIN" --root "$TOP/build/scenarios/hang" report job --json --ras "127.0.0.1:$(cat "$T/ras.port")" --window 1
	kill $srv 2>/dev/null
	run "report job on a capture with no job: exit 2" 2 "$T/j-none.json" \
		"$BIN" --root "$TOP/build/scenarios/pcie-2numa" report job --json
	compare job "$T"/j-*.json
else
	notok "no stand-in RAS server at $SRV (make tests)"
fi
