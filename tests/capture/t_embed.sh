#!/bin/sh
# A capture carries its own `report all --json` (fabtop/report.json) at the
# head of the tarball, after meta.json, and it says what `--root` of the
# capture says; the node's NCCL settings (the capturing environment's NCCL
# variables, never a secret-looking one, and /etc/nccl.conf) travel with it.
# Prints "ok - name" / "not ok - name".
FABTOP=${FABTOP:-$PWD/build/san/fabtop}
FABTOP_TOP=${FABTOP_TOP:-$PWD}
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-embed.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
trap 'chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
mkdir -m 1777 "$T/tmp" && export TMPDIR="$T/tmp"
. "$FABTOP_TOP/tests/capture/lib.sh"
command -v jq >/dev/null || { echo "ok - embedded report # SKIP jq missing"; exit 0; }

# A node with an /etc/nccl.conf: the congested scenario (it has counter
# samples, so the document also holds their summary).
cp -a "$FABTOP_TOP/build/scenarios/congested" "$T/node"
mkdir -p "$T/node/etc"
printf '# site defaults\nNCCL_IB_GID_INDEX=3\nNCCL_SOCKET_IFNAME=eth0\nNCCL_IB_AUTH_TOKEN=hush\n' > "$T/node/etc/nccl.conf"

"$FABTOP" capture --source "$T/node" -o "$T/n.tar.gz" 2> "$T/cap.err"
tar tzf "$T/n.tar.gz" 2>/dev/null | head -n 4 | sed 's|^[^/]*/||' > "$T/head"
if [ "$(tr '\n' ' ' < "$T/head")" = " fabtop/ fabtop/meta.json fabtop/report.json " ]; then
	ok "the tarball's head: fabtop/, meta.json, report.json (after the top folder)"
else
	notok "the tarball's head" "$T/head" "$T/cap.err"
fi

tar xzOf "$T/n.tar.gz" --wildcards '*/fabtop/report.json' > "$T/embedded.json" 2>/dev/null
"$FABTOP" --root "$T/n.tar.gz" report all --json > "$T/replay.json" 2> "$T/replay.err"
# Everything but the counters' summary, which `report all` does not print.
if jq -e --slurpfile r "$T/replay.json" 'del(.counters) == $r[0]' "$T/embedded.json" >/dev/null; then
	ok "the embedded report is what --root of the capture says, source named after the file"
else
	diff <(jq -S 'del(.counters)' "$T/embedded.json") <(jq -S . "$T/replay.json") > "$T/d" 2>&1
	notok "the embedded report is what --root of the capture says" "$T/d"
fi
if jq -e '.counters.summary.bad_grew | length > 0' "$T/embedded.json" >/dev/null &&
   jq -e '.counters | has("samples") | not' "$T/embedded.json" >/dev/null; then
	ok "a capture with samples embeds the counters' summary, not every sample"
else
	notok "counters' summary embedded" "$T/embedded.json"
fi
if [ "$(jq -r '.source' "$T/embedded.json")" = n ]; then
	ok "the embedded report's source is the capture's name"
else
	notok "embedded source: $(jq -r .source "$T/embedded.json")"
fi

# nccl.conf: its NCCL variables, the secret-looking one dropped, carried
# through the capture; the text says where each came from.
jq -c '[.nccl_settings.vars[] | "\(.name)=\(.value) \(.source)"]' "$T/replay.json" > "$T/vars"
if [ "$(cat "$T/vars")" = '["NCCL_IB_GID_INDEX=3 /etc/nccl.conf","NCCL_SOCKET_IFNAME=eth0 /etc/nccl.conf"]' ] &&
   jq -e '.nccl_settings.known' "$T/replay.json" >/dev/null; then
	ok "/etc/nccl.conf's NCCL settings travel with the capture, no secret-looking one"
else
	notok "nccl.conf settings: $(cat "$T/vars")" "$T/replay.err"
fi
"$FABTOP" --root "$T/n.tar.gz" report all 2>/dev/null | grep '^NCCL settings:' > "$T/line"
if grep -qx 'NCCL settings: NCCL_IB_GID_INDEX=3 (/etc/nccl.conf) NCCL_SOCKET_IFNAME=eth0 (/etc/nccl.conf)' "$T/line"; then
	ok "report all's text names each setting and its source"
else
	notok "settings line" "$T/line"
fi

# An unreadable nccl.conf is said, never "none".
chmod 000 "$T/node/etc/nccl.conf"
if [ "$(id -u)" = 0 ]; then
	# root reads mode 000: record the failure as a capture does instead.
	chmod 644 "$T/node/etc/nccl.conf"
	printf '/etc/nccl.conf\t13\n' >> "$T/node/fabtop/unreadable.tsv"
fi
"$FABTOP" --root "$T/node" report all > "$T/unr.txt" 2>&1
if grep -q '^NCCL settings: none' "$T/unr.txt"; then
	notok "an unreadable nccl.conf read as none" "$T/unr.txt"
elif grep -qx 'NCCL settings: not all known (cannot read /etc/nccl.conf: Permission denied)' "$T/unr.txt"; then
	ok "an unreadable /etc/nccl.conf is a note, not \"none\""
else
	notok "unreadable nccl.conf not said" "$T/unr.txt"
fi

# A live capture records the capturing environment's NCCL variables only.
NCCL_IB_HCA==mlx5_0 NCCL_NET_SECRET_KEY=x NCCL_DEBUG=INFO HOME_TOKEN=y \
	"$FABTOP" capture -o "$T/live/" > /dev/null 2> "$T/live.err"
if [ "$(jq -c '.env' "$T/live/fabtop/meta.json" 2>/dev/null)" = '{"NCCL_DEBUG":"INFO","NCCL_IB_HCA":"=mlx5_0"}' ] ||
   [ "$(jq -c '.env' "$T/live/fabtop/meta.json" 2>/dev/null)" = '{"NCCL_IB_HCA":"=mlx5_0","NCCL_DEBUG":"INFO"}' ]; then
	ok "a live capture keeps its environment's NCCL variables, no secret-looking name"
else
	notok "live env: $(jq -c '.env' "$T/live/fabtop/meta.json" 2>&1)" "$T/live.err"
fi
# An old capture (no "env" in meta.json): unknown, not none.
cp -a "$FABTOP_TOP/build/scenarios/dgx-h100" "$T/old"
jq 'del(.env)' "$T/old/fabtop/meta.json" > "$T/m" && cp "$T/m" "$T/old/fabtop/meta.json"
"$FABTOP" --root "$T/old" report all 2>/dev/null | grep '^NCCL settings:' > "$T/oldline"
if grep -qx 'NCCL settings: not all known (the capture did not record them)' "$T/oldline" &&
   [ "$("$FABTOP" --root "$T/old" report all --json 2>/dev/null | jq -c .nccl_settings)" = \
     '{"known":false,"why":"the capture did not record them","vars":[]}' ]; then
	ok "a capture that did not record the settings: unknown, not none"
else
	notok "old capture settings" "$T/oldline"
fi
for f in "$T"/*.err; do
	asan "$f" && notok "sanitizer report in $f" "$f"
done
exit 0
