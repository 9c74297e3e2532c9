#!/bin/sh
# Screen tests of issue 15's scenarios, each shown for what it is, headless
# with FABTOP_SCRIPT and "tick N" (time never decides a dump):
#   pause-storm        the Counters pane names the storm on ens43np0 (mlx5_6):
#                      pause-storm warning and error events, the PCIe stall
#                      level, and the pauses mlx5_3 receives on priority 3;
#   lossless-mismatch  the lossless section: RDMA on priority 0 without PFC,
#                      PFC idle on 3, the global traffic_class 106 of mlx5_2
#                      and mlx5_5, and mlx5_5's pauses with no CNPs;
#   link-flap          mlx5_4's link downs and the errors FEC could not
#                      correct, with the pre-FEC bit errors rising;
#   pinned             the Links pane says PINNED on the row and in the
#                      detail, with what each pin hides and the command that
#                      clears them; the Counters pane calls the limits blind.
# The facts are the scenarios' (tests/scenarios/mkscenarios.py and
# tests/scenarios/t_counter_scenarios.sh check every planted value).
# UPDATE=1 rewrites tests/screen/expected/story-*.txt; read the result.
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FABTOP:-$TOP/build/san/fabtop}
EXP=$TOP/tests/screen/expected
SCEN=$TOP/build/scenarios
UPDATE=${UPDATE:-}
export LANG=C.UTF-8
unset LC_ALL LINES COLUMNS NO_COLOR

PREFIX=fabtop-story . "$(dirname "$0")/lib.sh"



# (In playback Home/End seek the recording: PgDn scrolls to the end.)
# (a) pause-storm at sample 30: the storm began at step 20 on mlx5_6.
if need pause-storm; then
	cat > "$T/storm.script" <<EOF
key 3
tick 29
dump-pane $T/storm-top.txt
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
dump-pane $T/storm-end.txt
key q
EOF
	headless storm 160x48 "$BIN" --root "$SCEN/pause-storm"
	same "$T/storm-top.txt" story-pause-storm-160x48-top.txt "pause-storm: sample 30, the top of the Counters pane"
	has "$T/storm-top.txt" "pause-storm: the findings line names the storm and the stall" \
		"^findings  3 over the run, at the end; error: counters.pause-storm-drop" \
		"^\(✗\|X\|!\| \) ens43np0  tx_pause_storm_error_events " "^mlx5_3/1 .*CONGESTED"
	has "$T/storm-end.txt" "pause-storm: the findings in full, each with its source" \
		"counters.pause-storm-drop (ens43np0)" "counters.pause-storm (ens43np0)" \
		"counters.pcie-stall (ens43np0)" "outbound_pci_stalled_wr is 85 %: above 30 %" \
		"source: mlx5 counters.rst"
fi

# (b) lossless-mismatch at sample 10: the section at the end of the pane.
if need lossless-mismatch; then
	# Tall enough for the whole pane: the section and the findings at once.
	cat > "$T/mismatch.script" <<EOF
key 3
tick 9
dump-pane $T/mismatch-end.txt
key f
key f
key f
dump-pane $T/mismatch-mlx5_2-end.txt
key q
EOF
	headless mismatch 160x200 "$BIN" --root "$SCEN/lossless-mismatch"
	has "$T/mismatch-end.txt" "lossless-mismatch: RDMA on priority 0 without PFC, PFC idle on 3" \
		"^Lossless path (RoCE: traffic per priority against PFC and ECN)" \
		"^mlx5_0/1 ens33np0  trust dscp, PFC on 3; job traffic class 3 -> priority 0" \
		"^\(✗\|X\)   prio 0  PFC off ECN off/off  rx 9.38M pkt/s, tx 9.38M pkt/s .* RDMA  (the job's)" \
		"^!   prio 3  PFC on  ECN on/on  rx 0 pkt/s, tx 0 pkt/s " \
		"^\(✗\|X\) RDMA traffic on a priority without PFC: not lossless" \
		"^! PFC on a priority that carries nothing"
	has "$T/mismatch-end.txt" "lossless-mismatch: mlx5_5 is paused with no CNPs, behind a global traffic_class" \
		"^mlx5_5/1 ens42np0  !  trust dscp, PFC on 3; job traffic class 3 -> priority 3; global traffic_class 106" \
		"^! pauses received and no CNPs: congestion control not engaged" \
		"^! a global traffic_class overrides the job's NCCL_IB_TC"
	has "$T/mismatch-end.txt" "lossless-mismatch: the findings line under the port table" \
		"^findings  13 over the run, at the end; error: lossless.rdma-no-pfc"
	same "$T/mismatch-mlx5_2-end.txt" story-lossless-mlx5_2-160x200.txt \
		"lossless-mismatch: filtered to mlx5_2, its override puts RDMA on the lossless priority"
	if grep -q "RDMA traffic on a priority without PFC" "$T/mismatch-mlx5_2-end.txt"; then
		notok "lossless-mismatch: mlx5_2 (overridden onto priority 3) is not called lossy"
	else
		ok "lossless-mismatch: mlx5_2 (overridden onto priority 3) is not called lossy"
	fi
fi

# (c) link-flap at the end of the run: four link downs, BER at 5e-4.
if need link-flap; then
	cat > "$T/flap.script" <<EOF
key 3
tick 60
dump-pane $T/flap-top.txt
key a
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
key PgDn
dump-pane $T/flap-end.txt
key q
EOF
	headless flap 160x48 "$BIN" --root "$SCEN/link-flap"
	has "$T/flap-top.txt" "link-flap: the findings line names the link downs and the uncorrected errors" \
		"^findings  5 over the run, at the end; error: counters.fec-uncorrected counters.link-downed counters.symbol-error-ber"
	has "$T/flap-end.txt" "link-flap: the findings in full" \
		"counters.link-downed (mlx5_4/1)" "link_downed grew 4 in 59.0 s watched" \
		"counters.fec-uncorrected (ens41np0)" "rx_pcs_symbol_err_phy grew 762 in 59.0 s watched"
fi

# (d) pinned: the Links pane and the Counters pane.
if need pinned; then
	cat > "$T/pinned.script" <<EOF
key 2
key Down
key Down
dump-pane $T/pinned-links.txt
key 3
tick 5
dump-pane $T/pinned-counters.txt
key q
EOF
	headless pinned 200x100 "$BIN" --root "$SCEN/pinned"
	same "$T/pinned-links.txt" story-pinned-links-200x100-mlx5_2.txt "pinned: the Links pane on mlx5_2/1"
	has "$T/pinned-links.txt" "pinned: PINNED on the rows of the pinned ports, and in the detail with the clear command" \
		"mlx5_2/1 .*links.errors .*PINNED" "mlx5_5/1 .*PINNED" "mlx5_6/1 .*PINNED" \
		"link_downed *= 255 PINNED" "PINNED  link_downed stopped at 255: later link downs no longer show" \
		"PINNED  excessive_buffer_overrun_errors stopped at 15" \
		"clear them to count again (printed, not run): perfquery -x -R -C" "^ *│ *mlx5_2 -P 1$"
	if grep -q "^  mlx5_0/1 .*PINNED\|^> mlx5_0/1 .*PINNED" "$T/pinned-links.txt"; then
		notok "pinned: a port without a pinned counter does not say PINNED"
	else
		ok "pinned: a port without a pinned counter does not say PINNED"
	fi
	has "$T/pinned-counters.txt" "pinned: the Counters pane calls the hidden limits blind" \
		"^findings  6 over the run, at the end; error: counters.symbol-error-ber" \
		"^\(✗\|X\|!\| \) mlx5_2/1  link_downed  *+0 ev  *-  .* PINNED  blind" "^\(✗\|X\|!\| \) mlx5_5/1  symbol_error  *+0 ev  *-  .* PINNED  blind" \
		"^\(✗\|X\|!\| \) mlx5_6/1  symbol_error  *+120 ev  *120 ev/s .* over "
fi
