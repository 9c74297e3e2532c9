#!/bin/sh
# The GPU libraries load in the background (src/collectors/gpu_bg.c), on the
# live root: a private mount namespace puts the dgx-h100 scenario's sysfs on
# /sys (eight H100s, twelve HCAs), and build/tests/fake-nvml/libnvidia-ml.so.1
# (tests/gpu/fake_nvml.c) answers as NVML with NVLink between every pair.
# Events are ordered by a gate file (the fake's nvmlInit waits for it), not
# by timing:
#   - the console's first frame is drawn while NVML has not answered: it says
#     "waiting for NVML" and shows the GPU pairs' PCIe path marked unknown
#     (never "no NVML", never NV#); once NVML answers the same session shows
#     the NVLink cells (scripted, and in a real terminal in tmux, where the
#     answer must redraw the screen without a key);
#   - `report topo` waits for NVML: its NVLink cells and NVML line are there;
#   - NVML that never answers: the console quits at once on q, and `report
#     topo` says NVML did not answer within 10 s, with the GPUs still listed
#     (unknown NVLink, not "no GPUs").
# Needs root (unshare -m, mount --bind); tmux for the terminal case.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
LIB=$TOP/build/tests/fake-nvml
SYS=$TOP/build/scenarios/dgx-h100/sys
T=$(mktemp -d /tmp/fabtop-gpubg.XXXXXX) || exit 1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; }
comment() { sed 's/^/#   /'; }
tm() { tmux -S "$T/sock" -f /dev/null "$@"; }
cleanup() { tm kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

if [ ! -f "$LIB/libnvidia-ml.so.1" ]; then
	notok "the fake NVML is built (make build/tests/fake-nvml/libnvidia-ml.so.1)"
	exit 0
fi
if [ ! -d "$SYS" ]; then
	notok "the dgx-h100 scenario is built (make tests)"
	exit 0
fi
# ns CMD...: CMD with the scenario's sysfs on /sys, in a mount namespace of its own.
ns() { unshare -m sh -c 'mount --bind "$0" /sys && exec "$@"' "$SYS" "$@"; }
if ! ns true 2>/dev/null; then
	ok "GPU libraries in the background # SKIP needs root for unshare -m and mount --bind"
	exit 0
fi

export LD_LIBRARY_PATH=$LIB
export FAKE_NVML_GPUS=0000:1b:00.0,0000:43:00.0,0000:52:00.0,0000:61:00.0,0000:9d:00.0,0000:c3:00.0,0000:d1:00.0,0000:df:00.0
export FAKE_NVML_LINKS=2

# wait_for FILE: until it exists, at most 60 s.
wait_for() {
	_i=0
	while [ ! -s "$1" ] && [ $_i -lt 600 ]; do sleep 0.1; _i=$((_i + 1)); done
	[ -s "$1" ]
}

# 1. The scripted console: the first frame, then NVML's answer.
cat > "$T/s1" <<EOS
dump $T/first.txt
wait-gpu 60
dump $T/second.txt
key q
EOS
FAKE_NVML_GATE=$T/gate FABTOP_SCRIPT=$T/s1 FABTOP_SCRIPT_SIZE=200x60 \
	ns timeout 120 "$BIN" </dev/null >"$T/s1.out" 2>&1 &
pid=$!
wait_for "$T/first.txt"
touch "$T/gate"
wait $pid
rc=$?
[ $rc -eq 0 ] && ok "console: exits 0" || { notok "console: exits 0 (rc $rc)"; comment < "$T/s1.out"; }
if grep -q "waiting for NVML" "$T/first.txt" && grep -q "^GPU0 .*NODE\*" "$T/first.txt" &&
   ! grep -q "NV2" "$T/first.txt" && ! grep -q "no NVML" "$T/first.txt"; then
	ok "console: the first frame comes before NVML answers, NVLink pending"
else
	notok "console: the first frame comes before NVML answers, NVLink pending"
	head -30 "$T/first.txt" | comment
fi
if grep -q "NVML 12.550.90.07, driver 550.90.07, 8 GPU(s)" "$T/second.txt" &&
   grep -q "^GPU0 .*NV2 .*NV2" "$T/second.txt" && ! grep -q "waiting for NVML" "$T/second.txt"; then
	ok "console: the NVLink cells fill in when NVML answers"
else
	notok "console: the NVLink cells fill in when NVML answers"
	head -30 "$T/second.txt" | comment
fi

# 2. A report waits for NVML (slow, not hung): NVLink and the NVML line are there.
FAKE_NVML_DELAY_MS=1000 ns "$BIN" report topo >"$T/r.txt" 2>&1
if grep -q "^GPU0	 X 	NV2	NV2" "$T/r.txt" && grep -q "^NVML: NVML 12.550.90.07" "$T/r.txt"; then
	ok "report topo: waits for NVML and shows its NVLinks"
else
	notok "report topo: waits for NVML and shows its NVLinks"
	head -20 "$T/r.txt" | comment
fi

# 3. NVML never answers.
printf 'dump %s/hung.txt\nkey q\n' "$T" > "$T/s3"
FAKE_NVML_DELAY_MS=-1 FABTOP_SCRIPT=$T/s3 FABTOP_SCRIPT_SIZE=200x60 \
	ns timeout 60 "$BIN" </dev/null >"$T/s3.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "waiting for NVML" "$T/hung.txt"; then
	ok "hung NVML: the console draws and quits at once on q"
else
	notok "hung NVML: the console draws and quits at once on q (rc $rc)"
	comment < "$T/s3.out"
fi
FAKE_NVML_DELAY_MS=-1 ns timeout 120 "$BIN" report topo >"$T/r3.txt" 2>&1
rc=$?
if [ $rc -ne 124 ] && grep -q "NVML did not answer within 10 s" "$T/r3.txt" &&
   grep -q "^GPU7	.*SYS\*" "$T/r3.txt"; then
	ok "hung NVML: report topo says it did not answer within 10 s, GPUs listed, NVLink unknown"
else
	notok "hung NVML: report topo says it did not answer within 10 s, GPUs listed, NVLink unknown (rc $rc)"
	head -20 "$T/r3.txt" | comment
fi

# 4. A real terminal: NVML's answer redraws the screen with no key pressed.
if ! command -v tmux >/dev/null; then
	ok "terminal: NVML's answer redraws by itself # SKIP needs tmux"
	exit 0
fi
tm new-session -d -x 200 -y 60 -e "FAKE_NVML_GATE=$T/gate4" -e "LD_LIBRARY_PATH=$LIB" \
	-e "FAKE_NVML_GPUS=$FAKE_NVML_GPUS" -e "FAKE_NVML_LINKS=2" \
	"unshare -m sh -c 'mount --bind \"\$0\" /sys && exec \"\$@\"' '$SYS' '$BIN'; echo exited > '$T/exited'; sleep 60"
# screen_has TEXT: the pane shows TEXT within 30 s.
screen_has() {
	_i=0
	while [ $_i -lt 300 ]; do
		tm capture-pane -p > "$T/pane.txt" 2>/dev/null
		grep -q "$1" "$T/pane.txt" && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}
if screen_has "waiting for NVML"; then
	touch "$T/gate4"
	if screen_has "NVML 12.550.90.07"; then
		ok "terminal: NVML's answer redraws the screen by itself"
	else
		notok "terminal: NVML's answer redraws the screen by itself"
		comment < "$T/pane.txt"
	fi
else
	notok "terminal: the first frame says waiting for NVML"
	comment < "$T/pane.txt"
fi
tm send-keys q
if wait_for "$T/exited"; then ok "terminal: q quits"; else notok "terminal: q quits"; fi
