# tests/ab/lib.sh - shared by the A/B's screen tests. Source it after
# tests/screen/lib.sh, with BIN, FAKE, DGX and MARK (a word passed to every
# fake_nccl the test starts) set: the stand-in's processes found and killed
# on exit, and ab_ready.

# Its own argv only (^), not a shell whose command line names it (tmux's).
leftovers() { pgrep -f "^[^ ]*fake_nccl .*$MARK" 2>/dev/null; }
cleanup_ab() { for p in $(leftovers); do kill -KILL "$p" 2>/dev/null; done; cleanup; }
trap cleanup_ab EXIT

# ab_ready: 0 once fabtop, the stand-in and the scenario are there, with
# fake_nccl on PATH by its bare name (so the command shown is the same in
# every checkout); else 1, a not-ok line saying what to build.
ab_ready() {
	if [ ! -x "$BIN" ]; then
		notok "$BIN is missing (make build/san/fabtop)"
		return 1
	fi
	if [ ! -x "$FAKE" ]; then
		notok "build/tests/fake_nccl is missing (make build/tests/fake_nccl)"
		return 1
	fi
	if [ ! -f "$DGX/fabtop/meta.json" ]; then
		notok "scenario dgx-h100 is missing (make scenarios)"
		return 1
	fi
	# What is left running is found with pgrep: without it nothing could be said.
	if ! command -v pgrep >/dev/null 2>&1; then
		ok "the A/B in the Wizard pane # SKIP needs pgrep (procps; scripts/deps.sh check)"
		return 1
	fi
	mkdir -p "$T/bin" && ln -sf "$FAKE" "$T/bin/fake_nccl" || return 1
	PATH="$T/bin:$PATH"
	export PATH
}
