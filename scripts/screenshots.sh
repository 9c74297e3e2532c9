#!/bin/sh
# Screenshots of every bundled scenario: the topology and help panes at
# 120x40 and the topology pane at 80x24; the links pane at 120x40 and 80x24
# for the scenarios with HCA faults or InfiniBand (roce-faults,
# roce-faults-pod, ib-8port); the counters pane on busy, hang and
# congested; the wizard on dgx-h100, and its A/B run on the test stand-in
# (build/tests/fake_nccl: this machine has no GPU to run nccl-tests), with
# IB failing (ib-fail) and working (ok); the Fleet pane over six nodes, one
# odd, and that node opened from it; the demo's first screen and its scenario
# switcher, the Learn pane and its glossary, the F2 settings; and the same
# console in Simplified Chinese (zh_CN-*: --lang zh_CN). Each as text (.txt),
# as text with colours (.ansi) and as a PNG rendered by a real xterm under
# Xvfb (CJK characters from WenQuanYi Zen Hei Mono, two columns wide).
# Usage: scripts/screenshots.sh BUILD/fabtop [NAME...]   (`make screenshots`)
# With NAMEs (hang-counters-120x40 ...) only those screens are taken again.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$TOP/build/fabtop}
[ $# -gt 0 ] && shift
ONLY=" $* "
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
OUT=$TOP/screenshots
"$TOP/scripts/deps.sh" shots || exit 1
[ -x "$BIN" ] || { echo "screenshots.sh: $BIN is not built" >&2; exit 2; }
mkdir -p "$OUT"
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-shots.XXXXXX") || exit 1
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS NO_COLOR LANGUAGE LC_MESSAGES
# Neither the user's settings nor their learning progress show in a shot.
export XDG_CONFIG_HOME="$T/config" XDG_STATE_HOME="$T/state"
cat > "$T/tmux.conf" <<'EOF'
set -g status off
set -g default-terminal tmux-256color
EOF
tm() { tmux -S "$T/sock" -f "$T/tmux.conf" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT

# Waits until the screen has drawn and stopped changing.
settle() {
	prev="" i=0
	while [ $i -lt 100 ]; do
		cur=$(tm capture-pane -p -t "$1" 2>/dev/null)
		case $cur in *"q:quit"*|*"q:退出"*) [ "$cur" = "$prev" ] && return 0 ;; esac
		prev=$cur
		sleep 0.2
		i=$((i + 1))
	done
	echo "screenshots.sh: $1 never settled" >&2
	return 1
}

# shot SCENARIO_DIR PANE COLS ROWS: writes NAME.txt and NAME.ansi; with
# ZH=1, the console in Chinese, named zh_CN-NAME.
shot() {
	scen=$(basename "$1") name="$(basename "$1")-$2-$3x$4" lang=""
	[ -n "${ZH:-}" ] && name="zh_CN-$name" lang="--lang zh_CN"
	case $ONLY in "  ") ;; *" $name "*) ;; *) return 0 ;; esac
	tm new-session -d -s shot -x "$3" -y "$4" "'$BIN' $lang --root '$1'"
	settle shot || { tm kill-session -t shot; return 1; }
	key=""
	case $2 in
	help) key='?' ;;
	links) key=2 ;;
	counters) key=3 ;;
	wizard) key=4 ;;
	esac
	if [ -n "$key" ]; then
		tm send-keys -t shot "$key"
		sleep 0.3
		# The counters pane plays its samples back, one a second from the
		# start: let some history build. The hang's traffic stops at sample
		# 20; at about 25 the stall is on screen with the traffic before it
		# still in the history column.
		# pause-storm's storm starts at sample 20 too; link-flap's link
		# goes down four times from sample 44, its bit errors rising.
		if [ "$2" = counters ]; then
			case $scen in hang|pause-storm) sleep 23 ;; link-flap) sleep 58 ;; *) sleep 8 ;; esac
		fi
		# pinned: the third port (mlx5_2/1) holds three pinned counters.
		[ "$scen-$2" = pinned-links ] && tm send-keys -t shot Down Down && sleep 0.3
		settle shot
	fi
	grab "$name" "$3" "$4" "scenario $scen"
}

# grab NAME COLS ROWS WHAT: the session's screen as NAME.txt and NAME.ansi,
# listed for rendering; then fabtop is quit and the session closed.
grab() {
	tm capture-pane -p -t shot > "$OUT/$1.txt"
	tm capture-pane -p -e -N -t shot > "$OUT/$1.ansi"
	python3 "$TOP/scripts/ansi-fit.py" "$OUT/$1.ansi" "$2"
	tm send-keys -t shot q
	i=0
	while tm has-session -t shot 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	tm kill-session -t shot 2>/dev/null
	echo "$1 $2 $3" >> "$T/list"
	echo "  $OUT/$1.txt ($4)"
}

# shot_cmd NAME COLS ROWS KEYS CMD...: any console command, then KEYS
# (tmux key names, space-separated; "" none), then the grab.
shot_cmd() {
	name=$1 cols=$2 rows=$3 keys=$4
	shift 4
	case $ONLY in "  ") ;; *" $name "*) ;; *) return 0 ;; esac
	cmd="'$BIN'"
	for a in "$@"; do cmd="$cmd '$a'"; done
	tm new-session -d -s shot -x "$cols" -y "$rows" "$cmd"
	settle shot || { tm kill-session -t shot; return 1; }
	for k in $keys; do
		tm send-keys -t shot "$k"
		sleep 0.3
	done
	settle shot
	grab "$name" "$cols" "$rows" "$*"
}

# shot_ab MODE: the wizard's A/B step run on the stand-in NCCL test in MODE,
# selected and run with r, captured once both runs are over.
shot_ab() {
	name="wizard-ab-$1-120x40"
	case $ONLY in "  ") ;; *" $name "*) ;; *) return 0 ;; esac
	fake=$TOP/build/tests/fake_nccl
	[ -x "$fake" ] || { echo "screenshots.sh: $fake is not built (make build/tests/fake_nccl)" >&2; return 1; }
	tm new-session -d -s shot -x 120 -y 40 \
		"'$BIN' --root '$TOP/build/scenarios/dgx-h100' wizard --hang 5 -- '$fake' $1 --slow-lines 10"
	settle shot || { tm kill-session -t shot; return 1; }
	for i in 1 2 3 4 5 6 7 8; do tm send-keys -t shot Down; done
	tm send-keys -t shot r
	i=0   # until both runs are over: the key line stops offering x
	while tm capture-pane -p -t shot | grep -q "x cancel" && [ $i -lt 150 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	settle shot
	grab "$name" 120 40 "the A/B on the stand-in, mode $1"
}

# shot_job: the Job pane on a capture of the hang scenario taken while the
# stand-in RAS server (build/tests/ras_server: no GPU here for a real NCCL
# job) played a stuck job whose ranks 0-3 run on that node.
shot_job() {
	name="job-stuck-120x40"
	case $ONLY in "  ") ;; *" $name "*) ;; *) return 0 ;; esac
	srv=$TOP/build/tests/ras_server
	[ -x "$srv" ] || { echo "screenshots.sh: $srv is not built (make build/tests/ras_server)" >&2; return 1; }
	"$srv" --scenario stuck --version 2.29.7 --port 0 --port-file "$T/ras.port" --host0 10.10.0.17 \
		--pid0 4242 >/dev/null 2>&1 &
	srv_pid=$!
	i=0
	while [ ! -s "$T/ras.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	"$BIN" capture --root "$TOP/build/scenarios/hang" --ras "127.0.0.1:$(cat "$T/ras.port")" --window 2 \
		-o "$T/stuck.tar.gz" >/dev/null 2>&1
	kill $srv_pid 2>/dev/null
	tm new-session -d -s shot -x 120 -y 40 "'$BIN' --root '$T/stuck.tar.gz'"
	settle shot || { tm kill-session -t shot; return 1; }
	tm send-keys -t shot 5
	sleep 0.5
	settle shot
	grab "$name" 120 40 "the Job pane on a stuck job's capture"
}

# shot_fleet: the Fleet pane over six dgx-h100 nodes, one (node04) with
# mlx5_3 linked at 200 Gb/s where its kind runs at 400, selected; then that
# node opened in the other panes (Enter: its Topology pane, banner naming it).
fleet_node() {
	d=$T/caps/$1
	cp -a "$TOP/build/scenarios/dgx-h100" "$d" || return 1
	printf '%s\n' "$1" > "$d/proc/sys/kernel/hostname"
	sed "s/\"host\": \"dgx-h100-demo\"/\"host\": \"$1\"/" "$TOP/build/scenarios/dgx-h100/fabtop/meta.json" \
		> "$d/fabtop/meta.json"
	if [ $# -gt 1 ]; then
		f=$(find "$d/sys/devices" -path "*/infiniband/mlx5_3/ports/1/rate")
		printf '%s\n' "$2" > "$f"
	fi
	"$BIN" capture --root "$d" -o "$T/fleet/$1.tar.gz" >/dev/null 2>&1
}
shot_fleet() {
	case $ONLY in "  "|*" fleet-odd-120x40 "*|*" fleet-node-120x40 "*) ;; *) return 0 ;; esac
	mkdir -p "$T/caps" "$T/fleet"
	for n in node01 node02 node03 node05 node06; do fleet_node $n || return 1; done
	fleet_node node04 "200 Gb/sec (4X HDR)" || return 1
	for name in fleet-odd-120x40 fleet-node-120x40; do
		tm new-session -d -s shot -x 120 -y 40 "'$BIN' fleet '$T/fleet'"
		settle shot || { tm kill-session -t shot; return 1; }
		tm send-keys -t shot Down Down Down
		sleep 0.3
		if [ $name = fleet-node-120x40 ]; then
			tm send-keys -t shot Enter
			# Opening unpacks and collects the capture: until its banner.
			i=0
			while ! tm capture-pane -p -t shot | grep -q "Backspace returns" && [ $i -lt 100 ]; do
				sleep 0.2
				i=$((i + 1))
			done
		fi
		settle shot
		grab "$name" 120 40 "the Fleet pane"
	done
}

: > "$T/list"
shot_fleet
shot_job
shot_ab ib-fail
shot_ab ok
for s in "$TOP"/build/scenarios/*/; do
	s=${s%/}
	[ -f "$s/fabtop/meta.json" ] || continue
	# gb10-spark's PNGs are not rendered by the xterm pass (their .txt/.ansi
	# are fine): left out until that is found (see the closing note).
	[ "$(basename "$s")" = gb10-spark ] && continue
	shot "$s" topology 120 40
	shot "$s" help 120 40
	shot "$s" topology 80 24
	case $(basename "$s") in
	roce-faults|roce-faults-pod|ib-8port)
		shot "$s" links 120 40
		shot "$s" links 80 24 ;;
	busy|hang|congested|pause-storm|lossless-mismatch|link-flap)
		shot "$s" counters 120 40 ;;
	pinned)
		shot "$s" links 120 40 ;;
	dgx-h100)
		shot "$s" wizard 120 40 ;;
	esac
done

# The newcomer's screens: the demo's first screen (make run without an
# HCA) and its switcher; the Learn pane on the retries exercise with two
# hints shown, and its glossary; the F2 settings.
H=$TOP/build/scenarios/hang
shot_cmd demo-hang-120x40 120 40 "" demo hang
shot_cmd demo-hang-80x24 80 24 "" demo hang
shot_cmd demo-switcher-120x40 120 40 "D Down Down" demo hang
shot_cmd learn-retries-120x40 120 40 "H H" learn retries-climbing
shot_cmd learn-glossary-120x40 120 40 "g Down Down Down Down" learn retries-climbing
shot_cmd settings-120x40 120 40 "F2" --root "$TOP/build/scenarios/dgx-h100"
# The same console in Chinese.
shot_cmd zh_CN-demo-hang-80x24 80 24 "" --lang zh_CN demo hang
shot_cmd zh_CN-learn-retries-120x40 120 40 "H H" --lang zh_CN learn retries-climbing
shot_cmd zh_CN-learn-glossary-80x24 80 24 "g Down Down" --lang zh_CN learn retries-climbing
shot_cmd zh_CN-demo-switcher-120x40 120 40 "D" --lang zh_CN demo hang
shot_cmd zh_CN-settings-80x24 80 24 "F2" --lang zh_CN --root "$TOP/build/scenarios/dgx-h100"
ZH=1
shot "$H" topology 120 40
shot "$H" counters 120 40
shot "$H" help 120 40
shot "$TOP/build/scenarios/roce-faults" links 120 40
shot "$TOP/build/scenarios/roce-faults" links 80 24
shot "$TOP/build/scenarios/roce-faults" topology 80 24
ZH=""

# Render every .ansi in one X server: xterm shows the exact bytes, import
# grabs its window (/usr/bin/import: /usr/local/bin/convert may be a stand-in).
cat > "$T/render.sh" <<'EOF'
#!/bin/sh
out=$1 list=$2
while read -r name cols rows; do
	title="fabtop-shot-$name"
	xterm -u8 -geometry "${cols}x${rows}+0+0" -fa "DejaVu Sans Mono" -fd "WenQuanYi Zen Hei Mono" -fs 10 \
		-bg black -fg gray90 +sb -b 2 -bw 0 -title "$title" \
		-e sh -c "printf '\033[?25l'; head -c -1 '$out/$name.ansi'; sleep 60" &
	xt=$!
	win=""
	for i in $(seq 80); do
		win=$(xwininfo -name "$title" 2>/dev/null | awk '/Window id/ { print $4 }')
		[ -n "$win" ] && break
		sleep 0.1
	done
	sleep 0.5
	if [ -n "$win" ] && /usr/bin/import -window "$win" "$out/$name.png"; then
		echo "  $out/$name.png"
	else
		echo "screenshots.sh: could not grab the xterm window for $name" >&2
	fi
	kill "$xt" 2>/dev/null
	wait "$xt" 2>/dev/null
done < "$list"
exit 0
EOF
xvfb-run -a -s "-screen 0 2400x1600x24 -nolisten tcp" sh "$T/render.sh" "$OUT" "$T/list"
# Success means every screen has its picture.
missing=0
while read -r name cols rows; do
	[ -s "$OUT/$name.png" ] || { echo "screenshots.sh: no $name.png" >&2; missing=1; }
done < "$T/list"
exit $missing
