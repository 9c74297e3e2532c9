#!/bin/sh
# Screen tests of the Counters pane on the playback scenarios (busy, hang,
# congested), driven headless with FABTOP_SCRIPT and "tick N" so that time
# never decides what a dump shows: rates, packets/s, deltas and growth since
# the baseline checked against numbers computed by hand from samples.json
# (with the 1.25 s step of hang), STOPPED / RETRIES / CONGESTED, pause and
# step, all counters, a new baseline, a filter, reload, every size from
# 40x10, NO_COLOR, ASCII, a capture without samples, this machine's live
# root; then the real terminal in tmux: the timer-driven playback ends on
# the same screen as the script, in colour, and q restores the terminal.
# Prints "ok - name" / "not ok - name" lines.
# The dumps are the pane's rows (dump-pane): a new tab or a change of the
# status bar leaves them alone; the status bar is checked on whole screens.
# UPDATE=1 rewrites tests/screen/expected/counters-*.txt; read the result.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
SCEN=$TOP/build/scenarios
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS NO_COLOR

PREFIX=fabtop-counters . "$(dirname "$0")/lib.sh"

# same DUMP EXPECTED TEST: a dump equals tests/screen/expected/EXPECTED
# (UPDATE=1: becomes it).

# script NAME ROOT SIZE: runs $T/NAME.script headlessly; dumps go to $T/NAME-*.txt.
script() {
	headless "$1" "$3" "$BIN" --root "$2"
}



# handcheck SCENARIO DUMP TEST [BASE]: every port row and every listed
# counter of the dump against samples.json, computed here from the raw
# values: Gb/s = delta words * 4 * 8 / dt / 1e9, % of the port's rate file,
# packets/s, +delta, rate and growth since sample BASE (default 0).
handcheck() {
	python3 - "$SCEN/$1" "$2" "$3" "${4:-0}" <<'EOF'
import json, re, sys
scen, dump, name, base = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = open(dump, encoding="utf-8").read().split("\n")   # a dump-pane: the title first
S = json.load(open(scen + "/fabtop/samples.json"))["samples"]
m = re.search(r"playback (?:ended )?. sample (\d+)/(\d+)", rows[0])
if not m:
    print("not ok - %s: no playback position in the title" % name); sys.exit(0)
i = int(m.group(1)) - 1
dt = S[i]["t"] - S[i - 1]["t"]

def fmt_si(v):
    k = 0
    while abs(v) >= 999.5 and k < 6:
        v /= 1000.0; k += 1
    a = abs(v)
    if k == 0:
        return "%.0f" % v if v == int(v) or a >= 100 else "%.1f" % v if a >= 10 else "%.2f" % v
    return "%.*f%s" % (2 if a < 9.995 else 1 if a < 99.95 else 0, v, " kMGTPE"[k])

def count(v):
    return "%d" % v if v < 10000000 else fmt_si(float(v))

# counters.h counter_amount()/counter_rate_text(): data in bytes (the
# prefix on the unit), data rates in bits/s, other units after the number.
def amount(v, sym):
    s = count(v) if v == int(v) else fmt_si(v)
    if sym == "B":
        n = s.rstrip("kMGTPE")
        return "%s %sB" % (n, s[len(n):])
    return "%s %s" % (s, sym)

def bps(b):
    units = ["b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s"]
    u = 0
    while b >= 1000.0 and u < 4:
        b /= 1000.0; u += 1
    t = "%.*f" % (0 if b >= 100 or b == int(b) else 1 if b >= 10 else 2, b)
    if "." in t:
        t = t.rstrip("0").rstrip(".")
    return "%s %s" % (t, units[u])

def rate_txt(v, sym):
    return bps(v * 8) if sym == "B" else "%s %s/s" % (fmt_si(v), sym)

def val(k, dev, port, d, c):
    return S[k]["values"]["/sys/class/infiniband/%s/ports/%s/%s/%s" % (dev, port, d, c)]

def delta(dev, port, d, c):
    return val(i, dev, port, d, c) - val(i - 1, dev, port, d, c)

bad, nports, nctrs = [], 0, 0
for r in rows:
    t = r.split()
    pm = re.match(r"^(mlx5_\d+)/(\d+)$", t[0]) if t else None
    if not pm:
        continue
    dev, port = pm.groups()
    if len(t) > 2 and re.fullmatch(r"[\d.]+", t[2]) and "%" in r:   # the port table
        nports += 1
        gb = lambda c: delta(dev, port, "counters", c) * 32 / dt / 1e9
        tx, rx = gb("port_xmit_data"), gb("port_rcv_data")
        rate = float(open("%s/sys/class/infiniband/%s/ports/%s/rate" % (scen, dev, port)).read().split()[0])
        nums = [x for x in t[2:] if re.fullmatch(r"[\d.]+", x)]
        want = ["%.1f" % tx, "%.1f" % rx]
        if nums[:2] != want:
            bad.append("%s/%s Gb/s %s, by hand %s" % (dev, port, nums[:2], want))
        line = "%.0f%%" % (max(tx, rx) / rate * 100)
        if line not in t:
            bad.append("%s/%s line %s not in %s" % (dev, port, line, r))
        pps = "%s/%s" % (fmt_si(delta(dev, port, "counters", "port_xmit_packets") / dt),
                         fmt_si(delta(dev, port, "counters", "port_rcv_packets") / dt))
        if pps not in t:
            bad.append("%s/%s pkt/s %s not in %s" % (dev, port, pps, r))
    elif len(t) > 4 and t[2].startswith("+"):                         # the counters list
        nctrs += 1
        c = t[1]
        d = "counters" if ("/sys/class/infiniband/%s/ports/%s/counters/%s" % (dev, port, c)) in S[i]["values"] else "hw_counters"
        dl = delta(dev, port, d, c)
        data = c in ("port_xmit_data", "port_rcv_data")
        scale = 4 if data else 1
        # Each cell with its unit: bytes and bits/s for the 4-octet words,
        # the row's own (pkt, ev, ...) for the others, the same in all three.
        sym = "B" if data else t[3]
        if not data and (sym in ("B", "b/s") or not re.fullmatch(r"[a-z]+|%", sym)):
            bad.append("%s/%s %s: unit %r" % (dev, port, c, sym))
        want = "+%s %s %s" % (amount(dl * scale, sym), rate_txt(dl * scale / dt, sym),
                              amount((val(i, dev, port, d, c) - val(base, dev, port, d, c)) * scale, sym))
        got = " ".join(t[2:11])
        if not (got + " ").startswith(want + " "):
            bad.append("%s/%s %s: %s, by hand %s" % (dev, port, c, got, want))
if bad or not nports:
    print("not ok - %s (%d port rows, %d counters)" % (name, nports, nctrs))
    for b in bad[:10]:
        print("#   " + b)
else:
    print("ok - %s (%d port rows, %d counters, sample %d, dt %g s)" % (name, nports, nctrs, i, dt))
EOF
}

# rowstate DUMP PORT: the state words of a port row (after its pkt/s tx/rx).
rowstate() {
	awk -v p="$2" '$1 == p && / [0-9.]*[kMG]?\/[0-9.]*[kMG]? / {
		for (i = 2; i <= NF; i++) if ($i ~ /\//) s = i + 1
		out = ""
		for (i = s; i <= NF; i++) out = out (out == "" ? "" : " ") $i
		print out
		exit
	}' "$1"
}

# (a) busy: the first step has no rates; five steps later every port's
# Gb/s, % of line and packets/s are the hand-computed ones.
if need busy; then
	cat > "$T/busy.script" <<EOF
key 3
dump-pane $T/busy-start.txt
tick 5
dump-pane $T/busy-5.txt
resize 200 50
dump-pane $T/busy-5-wide.txt
resize 80 24
key a
dump-pane $T/busy-all.txt
key b
dump-pane $T/busy-base.txt
key a
tick 1
resize 200 50
dump-pane $T/busy-base1.txt
resize 80 24
dump-pane $T/busy-prereload.txt
key r
dump-pane $T/busy-reload.txt
key f
dump-pane $T/busy-filter.txt
key F
key +
dump-pane $T/busy-speed.txt
key q
EOF
	script busy "$SCEN/busy" 80x24
	same "$T/busy-start.txt" counters-busy-80x24-start.txt "busy: the pane opens on the first sample, no rates yet"
	same "$T/busy-5.txt" counters-busy-80x24-tick5.txt "busy: tick 5"
	handcheck busy "$T/busy-5.txt" "busy tick 5: Gb/s, % of line and pkt/s of every port match the samples"
	handcheck busy "$T/busy-5-wide.txt" "busy tick 5 at 200x50: the listed counters' +delta, rate and since match the samples"
	if grep -q "ok$" "$T/busy-5.txt" && [ "$(grep -c '  ok$' "$T/busy-5.txt")" = 8 ] &&
	   ! grep -q '!!' "$T/busy-5.txt"; then
		ok "busy: all 8 ports ok, no banner"
	else
		notok "busy: all 8 ports ok, no banner"
	fi
	# hw_counters/lifespan is the refresh period, a setting, not a counter.
	n=$(python3 -c 'import json,sys; print(len([k for k in json.load(open(sys.argv[1]))["samples"][0]["values"] if not k.endswith("/hw_counters/lifespan")]))' "$SCEN/busy/fabtop/samples.json")
	has "$T/busy-all.txt" "busy: a lists all $n counters of the samples" "All counters ($n)"
	# The counters list has a mark column (severity) before PORT: dropped here.
	since=$(sed -E 's/^(✗|X|!| ) //' "$T/busy-base.txt" |
		awk '/^PORT +COUNTER/ { on = 1; next } on && /^mlx5_/ { print $5 }' | sort -u)
	if [ "$since" = 0 ] && grep -q "All counters ($n)" "$T/busy-base.txt"; then
		ok "busy: b zeroes since-baseline on every listed counter"
	else
		notok "busy: b zeroes since-baseline on every listed counter (got: $since)"
	fi
	handcheck busy "$T/busy-base1.txt" "busy: one step after b, since-baseline is that step's growth" 5
	if cmp -s "$T/busy-prereload.txt" "$T/busy-reload.txt" &&
	   grep -q "^playback . sample 7/60" "$T/busy-reload.txt"; then
		ok "busy: r reloads the node and keeps the sampler, its history and baseline"
	else
		notok "busy: r reloads the node and keeps the sampler, its history and baseline"
		diff -u "$T/busy-prereload.txt" "$T/busy-reload.txt" | head -20 | comment
	fi
	if grep -q "filter: mlx5_0" "$T/busy-filter.txt" &&
	   [ "$(grep -c '^mlx5_' "$T/busy-filter.txt")" = "$(grep -c '^mlx5_0/' "$T/busy-filter.txt")" ]; then
		ok "busy: f filters to mlx5_0 and hides the other devices"
	else
		notok "busy: f filters to mlx5_0 and hides the other devices"
	fi
	has "$T/busy-speed.txt" "busy: F clears the filter, + doubles the playback speed" "speed 2x" "^mlx5_7/1 "
fi

# (b) hang: retries start at sample 18, traffic stops at 20 on six rails;
# the step to sample 10 took 1.25 s.
if need hang; then
	cat > "$T/hang.script" <<EOF
key 3
tick 10
resize 200 50
dump-pane $T/hang-10.txt
resize 80 24
tick 8
dump-pane $T/hang-18.txt
tick 4
dump-pane $T/hang-22.txt
resize 200 50
dump-pane $T/hang-22-wide.txt
resize 40 10
dump-pane $T/hang-small.txt
resize 80 24
dump-pane $T/hang-back.txt
key q
EOF
	script hang "$SCEN/hang" 80x24
	handcheck hang "$T/hang-10.txt" "hang: the 1.25 s step to sample 10 gives the hand-computed rates"
	has "$T/hang-10.txt" "hang: the title names the 1.25 s step" "Changed in the last 1.25 s"
	same "$T/hang-18.txt" counters-hang-80x24-tick18.txt "hang: tick 18, retries start"
	state=$(rowstate "$T/hang-18.txt" mlx5_0/1)
	if [ "$state" = RETRIES ] && ! grep -q "TRAFFIC STOPPED" "$T/hang-18.txt"; then
		ok "hang: at sample 18 mlx5_0/1 says RETRIES while traffic still moves"
	else
		notok "hang: at sample 18 mlx5_0/1 says RETRIES while traffic still moves (got \"$state\")"
	fi
	same "$T/hang-22.txt" counters-hang-80x24-tick22.txt "hang: tick 22, traffic stopped"
	bad=""
	for p in 0 1 2 4 5 6; do
		[ "$(rowstate "$T/hang-22.txt" "mlx5_$p/1")" = "STOPPED RETRIES" ] || bad="$bad mlx5_$p"
	done
	for p in 3 7; do
		[ "$(rowstate "$T/hang-22.txt" "mlx5_$p/1")" = ok ] || bad="$bad mlx5_$p"
	done
	if [ -z "$bad" ]; then
		ok "hang: the six stalled rails say STOPPED RETRIES, the other two ok"
	else
		notok "hang: the six stalled rails say STOPPED RETRIES, the other two ok (wrong:$bad)"
	fi
	has "$T/hang-22.txt" "hang: the banner names the stopped ports and the retry counters" \
		"✗ TRAFFIC STOPPED on mlx5_0/1 mlx5_1/1 mlx5_2/1 mlx5_4/1 mlx5_5/1 mlx5_6/1" \
		"RETRIES GROWING on the same ports: local_ack_timeout_err packet_seq_err"
	first=$(sed -E 's/^(✗|X|!| ) //' "$T/hang-22-wide.txt" |
		awk '/^PORT +COUNTER/ { on = 1; next } on && /^mlx5_/ { print $2 }' | head -12 | sort | uniq -c | tr -s ' ')
	if [ "$first" = "$(printf ' 6 local_ack_timeout_err\n 6 packet_seq_err')" ]; then
		ok "hang: the retry counters head the changed list"
	else
		notok "hang: the retry counters head the changed list"
		echo "$first" | comment
	fi
	handcheck hang "$T/hang-22-wide.txt" "hang tick 22: +3 ACK timeouts, +2 sequence NAKs per second, since-baseline 15 and 10, as the samples say"
	same "$T/hang-small.txt" counters-hang-40x10.txt "hang 40x10: the state words and a short banner"
	has "$T/hang-small.txt" "hang 40x10: STOPPED and the banner's counts stay visible" \
		"STOPPED: 6 ports" "^mlx5_0/1 .*STOPPED RETRIES"
	if cmp -s "$T/hang-22.txt" "$T/hang-back.txt"; then
		ok "hang: back to 80x24 draws the same screen"
	else
		notok "hang: back to 80x24 draws the same screen"
		diff -u "$T/hang-22.txt" "$T/hang-back.txt" | head -20 | comment
	fi

	# NO_COLOR changes attributes only, never the text.
	mkdir -p "$T/color"
	cp "$T"/hang-*.txt "$T/color/"
	NO_COLOR=1 FABTOP_SCRIPT=$T/hang.script FABTOP_SCRIPT_SIZE=80x24 "$BIN" --root "$SCEN/hang" \
		</dev/null >/dev/null 2>&1
	differ=""
	for f in "$T"/color/hang-*.txt; do
		cmp -s "$f" "$T/$(basename "$f")" || differ="$differ $(basename "$f")"
	done
	if [ -z "$differ" ]; then
		ok "hang under NO_COLOR: the same text on every screen"
	else
		notok "hang under NO_COLOR: the same text on every screen (differ:$differ)"
	fi

	# Without UTF-8 the histories fall back to ASCII levels.
	printf 'key 3\ntick 22\ndump-pane %s\nkey q\n' "$T/ascii.txt" > "$T/ascii.script"
	LANG=C FABTOP_SCRIPT=$T/ascii.script "$BIN" --root "$SCEN/hang" </dev/null >/dev/null 2>&1
	if [ -f "$T/ascii.txt" ] && ! LC_ALL=C grep -q '[^ -~]' "$T/ascii.txt" &&
	   grep -q '^mlx5_0/1 .*#  *  *0\.0 .*STOPPED' "$T/ascii.txt"; then
		ok "hang under LANG=C: ASCII only, histories drawn with ASCII levels"
	else
		notok "hang under LANG=C: ASCII only, histories drawn with ASCII levels"
		[ -f "$T/ascii.txt" ] && comment < "$T/ascii.txt"
	fi

	# Every size from the minimum up: no crash under the sanitizers, nothing
	# past the right edge, the status bar drawn (the whole screen), STOPPED
	# in view (the pane's rows).
	sizes="40x10 41x11 50x12 60x16 72x20 80x24 100x30 120x40 160x40 200x50 250x80 300x100"
	{
		echo "key 3"
		echo "tick 22"
		for sz in $sizes; do
			echo "resize ${sz%x*} ${sz#*x}"
			echo "dump $T/size-$sz.txt"
			echo "dump-pane $T/size-$sz-pane.txt"
		done
		echo "key q"
	} > "$T/sizes.script"
	script sizes "$SCEN/hang" 80x24
	bad=""
	for sz in $sizes; do
		f=$T/size-$sz.txt
		if [ ! -f "$f" ] || ! tail -1 "$f" | grep -q "q:quit" ||
		   [ "$(LC_ALL=C.UTF-8 wc -L < "$f")" -gt "${sz%x*}" ] ||
		   ! grep -q "STOPPED" "$T/size-$sz-pane.txt"; then
			bad="$bad $sz"
		fi
	done
	if [ -z "$bad" ]; then
		ok "hang at $(echo $sizes | wc -w) sizes from 40x10 to 300x100: fits, status bar, STOPPED shown"
	else
		notok "hang at every size: fits, status bar, STOPPED shown (failed:$bad)"
	fi
fi

# (c) congested: CNPs, ECN marks and port_xmit_wait grow on every port at
# about half the line rate; one Q-counter wraps and one PMA counter saturates.
if need congested; then
	cat > "$T/cong.script" <<EOF
key 3
tick 3
resize 200 100
dump-pane $T/cong-3-wide.txt
resize 80 24
tick 1
dump-pane $T/cong-4.txt
key q
EOF
	script cong "$SCEN/congested" 80x24
	same "$T/cong-4.txt" counters-congested-80x24-tick4.txt "congested: tick 4"
	bad=""
	for p in 0 1 2 3 4 5 6 7; do
		[ "$(rowstate "$T/cong-4.txt" "mlx5_$p/1")" = CONGESTED ] || bad="$bad mlx5_$p"
	done
	if [ -z "$bad" ]; then
		ok "congested: every port says CONGESTED"
	else
		notok "congested: every port says CONGESTED (not:$bad)"
	fi
	has "$T/cong-4.txt" "congested: the banner names the congestion counters" \
		"! CONGESTION on every port: np_cnp_sent np_ecn_marked_roce_packets"
	handcheck congested "$T/cong-4.txt" "congested tick 4: rates match the samples"
	has "$T/cong-3-wide.txt" "congested: the wrapped Q-counter says WRAP, the PMA counter that reaches its maximum PINNED with a lower-bound rate" \
		"^\(✗\|X\|!\| \) mlx5_2/1  rx_write_requests .* WRAP " "^\(✗\|X\|!\| \) mlx5_5/1  port_xmit_wait .* >[0-9.]*M .* PINNED "
fi

# (d) Pause: ticks pass without a step; n steps; space resumes.
if need busy; then
	cat > "$T/pause.script" <<EOF
key 3
tick 2
key p
dump-pane $T/pause-1.txt
tick 3
dump-pane $T/pause-2.txt
key ]
dump-pane $T/pause-3.txt
key Space
tick 1
dump-pane $T/pause-4.txt
key q
EOF
	script pause "$SCEN/busy" 80x24
	if grep -q "^PAUSED . playback . sample 3/60" "$T/pause-1.txt" 2>/dev/null && cmp -s "$T/pause-1.txt" "$T/pause-2.txt"; then
		ok "pause: p pauses, and three ticks change nothing"
	else
		notok "pause: p pauses, and three ticks change nothing"
		diff -u "$T/pause-1.txt" "$T/pause-2.txt" | head -20 | comment
	fi
	has "$T/pause-3.txt" "pause: ] steps one sample while paused" "^PAUSED . playback . sample 4/60"
	if grep -q "^playback . sample 5/60" "$T/pause-4.txt" 2>/dev/null && ! grep -q PAUSED "$T/pause-4.txt"; then
		ok "pause: space resumes, the next tick steps"
	else
		notok "pause: space resumes, the next tick steps"
		head -3 "$T/pause-4.txt" | comment
	fi
fi

# (e) A capture without samples, and this machine's live root.
if [ -f "$SCEN/dgx-h100/fabtop/meta.json" ]; then
	printf 'key 3\ntick 3\ndump-pane %s\nkey q\n' "$T/nos.txt" > "$T/nos.script"
	script nos "$SCEN/dgx-h100" 80x24
	has "$T/nos.txt" "dgx-h100: says there are no samples in this capture" "no samples in this capture"
else
	notok "scenario dgx-h100 is missing (make scenarios)"
fi
printf 'key 3\ntick 2\nkey ]\ndump-pane %s\nkey q\n' "$T/live.txt" > "$T/live.script"
script live / 80x24
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	ok "live root: no RDMA devices # SKIP this machine has RDMA devices"
else
	has "$T/live.txt" "live root without HCAs: says no RDMA devices, samples on" "no RDMA devices" "^live . every 1 s . tick 4"
fi

# (f) The real terminal: hang at 16x plays to its end on the timer and
# shows what the script shows; red where retries grow; q restores.
cap() { tm capture-pane -p -t "$1" 2>/dev/null; }
if ! command -v tmux >/dev/null 2>&1; then
	ok "tmux: the real terminal # SKIP tmux is not installed (scripts/deps.sh check)"
elif need hang; then
	printf 'key 3\nkey +\nkey +\nkey +\nkey +\ntick 60\ndump %s\nkey q\n' "$T/end.txt" > "$T/end.script"
	# 30 rows: the QP list (one broken line per process) above the
	# counters leaves the growing counter's row in view.
	script end "$SCEN/hang" 80x30
	rm -f "$T/t.rc" "$T/t.stty"
	tm new-session -d -s t -x 80 -y 30 \
		"trap '' INT TERM; '$BIN' --root '$SCEN/hang' 2>'$T/t.err'; echo \$? > '$T/t.rc'; stty -a > '$T/t.tmp'; mv '$T/t.tmp' '$T/t.stty'"
	i=0
	while ! cap t | grep -q "q:quit" && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
	tm send-keys -t t 3 + + + +
	i=0
	while [ $i -lt 300 ]; do
		cap t > "$T/tmux.txt"
		cmp -s "$T/tmux.txt" "$T/end.txt" && break
		sleep 0.1
		i=$((i + 1))
	done
	if cmp -s "$T/tmux.txt" "$T/end.txt"; then
		ok "tmux: the playback at 16x ends on the screen the script's ticks give"
	else
		notok "tmux: the playback at 16x ends on the screen the script's ticks give"
		diff -u "$T/end.txt" "$T/tmux.txt" | head -30 | comment
	fi
	tm capture-pane -p -e -t t > "$T/tmux.ansi"
	python3 - "$T/tmux.ansi" <<'EOF'
import re, sys
# The foreground colour (SGR 30-37) and reverse video at each character.
def cells(line, st):
    out = []
    for tok in re.split(r"(\x1b\[[0-9;]*m)", line):
        if tok.startswith("\x1b["):
            a = tok[2:-1].split(";") if tok[2:-1] else ["0"]
            k = 0
            while k < len(a):
                c = int(a[k] or 0)
                if c == 0: st = {"fg": None, "rev": False}
                elif c == 39: st = dict(st, fg=None)
                elif 30 <= c <= 37: st = dict(st, fg=c)
                elif c == 7: st = dict(st, rev=True)
                elif c == 27: st = dict(st, rev=False)
                elif c == 38: k += 2 if a[k + 1] == "5" else 4
                k += 1
        else:
            out += [(ch, st) for ch in tok]
    return out, st
st = {"fg": None, "rev": False}
lines = []
for l in open(sys.argv[1], encoding="utf-8").read().split("\n"):
    c, st = cells(l, st)
    lines.append(c)
def at(word, start):
    """The style of the last occurrence of word in the first line starting with start."""
    for c in lines:
        text = "".join(ch for ch, _ in c)
        if text.startswith(start) and word in text:
            return c[text.rindex(word)][1]
    return None
checks = [
    ("the banner is red reverse video", at("TRAFFIC STOPPED", " ✗ "), lambda s: s["fg"] == 31 and s["rev"]),
    ("STOPPED in a stalled port's row is red", at("STOPPED", "mlx5_0/1 "), lambda s: s["fg"] == 31),
    ("a growing local_ack_timeout_err row is red", at("local_ack_timeout_err", "\u2717 mlx5_0/1  local_ack_timeout_err"), lambda s: s["fg"] == 31),
    ("its mark says so in red too", at("\u2717", "\u2717 mlx5_0/1  local_ack_timeout_err"), lambda s: s["fg"] == 31),
    ("a healthy port's state is green", at("ok", "mlx5_3/1 "), lambda s: s["fg"] == 32),
]
for name, s, good in checks:
    print(("ok - tmux colours: %s" if s and good(s) else "not ok - tmux colours: %s (%r)") % ((name,) if s and good(s) else (name, s)))
EOF
	tm send-keys -t t q
	i=0
	while [ ! -f "$T/t.stty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	rc=$(cat "$T/t.rc" 2>/dev/null)
	if [ "$rc" = 0 ] && grep -Eq '(^|[ ;])icanon( |;|$)' "$T/t.stty" &&
	   grep -Eq '(^|[ ;])echo( |;|$)' "$T/t.stty"; then
		ok "tmux: q on the counters pane exits 0 and restores the terminal"
	else
		notok "tmux: q on the counters pane exits 0 and restores the terminal (rc ${rc:-none})"
		[ -s "$T/t.err" ] && head -20 "$T/t.err" | comment
	fi
fi
exit 0
