#!/bin/sh
# Secrets never leave the node (issue 12, hole 5): a real process carrying
# every kind of secret the attack found, beside two variables fabtop reads.
# The capture (unpacked with Python's tarfile, and its compressed bytes
# unpacked whole) and `fabtop wizard --batch --steps job` (live, and on the
# capture) hold exactly the allowed variables and none of the secrets'
# values; an older capture that recorded secrets does not print them.
# Prints "ok - name" / "not ok - name".
FABTOP=${FABTOP:-$PWD/build/san/fabtop}
FABTOP_TOP=${FABTOP_TOP:-$PWD}
SCEN=$FABTOP_TOP/build/scenarios/dgx-h100
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-secrets.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$FABTOP_TOP/tests/capture/lib.sh"

if [ ! -x "$FABTOP" ]; then
	echo "not ok - fabtop binary $FABTOP is missing (make build/san/fabtop)"
	exit 0
fi

# Every secret value is unique to this run, so a grep cannot meet it by chance.
S=s3cr3t$$x
cat > "$T/secrets" <<EOF
$S-nvidia-api-key
$S-nccl-ib-password
$S-nccl-foo-token
$S-ucx-password
$S-pmix-security-key
$S/id_ed25519
$S-aws-secret-access-key
$S-cmdline-api-key
$S-cmdline-token
EOF
env -i PATH="$PATH" NCCL_SOCKET_IFNAME=secif0 NCCL_IB_HCA==mlx5_7 \
	NVIDIA_API_KEY="$S-nvidia-api-key" NCCL_IB_PASSWORD="$S-nccl-ib-password" \
	NCCL_FOO_TOKEN="$S-nccl-foo-token" UCX_PASSWORD="$S-ucx-password" \
	PMIX_SECURITY_KEY="$S-pmix-security-key" OMPI_MCA_plm_rsh_args="-i $S/id_ed25519" \
	AWS_SECRET_ACCESS_KEY="$S-aws-secret-access-key" sleep 60 &
P=$!
PIDS="$P"
# A job with secrets on its command line: sh waits for its sleep, its argv stays.
env -i PATH="$PATH" NCCL_DEBUG=WARN \
	sh -c 'sleep 60; :' job --api-key "$S-cmdline-api-key" "--token=$S-cmdline-token" &
Q=$!
PIDS="$PIDS $Q"
# Both have their environment once exec'd: wait (bounded) for it, not a fixed time.
i=0
while [ $i -lt 100 ] && ! { grep -q secif0 "/proc/$P/environ" && grep -q NCCL_DEBUG "/proc/$Q/environ"; } 2>/dev/null; do
	sleep 0.05; i=$((i + 1))
done

# nosecret FILE...: none of the secret values in them (binary files too).
nosecret() { ! grep -a -r -F -f "$T/secrets" "$@" > "$T/found" 2>&1; }

# ---- the capture ----------------------------------------------------------
"$FABTOP" capture -o "$T/cap.tar.gz" > /dev/null 2> "$T/cap.err"
rc=$?
mkdir "$T/x"
top=$(python3 - "$T/cap.tar.gz" "$T/x" 2>> "$T/cap.err" <<'EOF'
import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    t.extractall(sys.argv[2], filter="tar") if hasattr(tarfile, "data_filter") else t.extractall(sys.argv[2])
    print(t.getnames()[0].split("/")[0])
EOF
)
C=$T/x/$top
if [ $rc -eq 0 ] && ! asan "$T/cap.err" && python3 - "$C/fabtop/procs/$P.json" > "$T/p.out" 2>&1 <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["env"] == {"NCCL_SOCKET_IFNAME": "secif0", "NCCL_IB_HCA": "=mlx5_7"}, p["env"]
assert p["nccl_var"] is True, p
EOF
then ok "capture: the planted process's env holds exactly NCCL_SOCKET_IFNAME and NCCL_IB_HCA"
else notok "capture: the planted process's env holds exactly NCCL_SOCKET_IFNAME and NCCL_IB_HCA (rc $rc)" "$T/p.out" "$T/cap.err"
fi
gzip -dc "$T/cap.tar.gz" > "$T/cap.tar" 2>/dev/null
if [ -s "$T/cap.tar" ] && [ -d "$C/fabtop/procs" ] && nosecret "$C" "$T/cap.tar"; then
	ok "capture: no secret value anywhere in it (every file, and the tar stream)"
else
	notok "capture: no secret value anywhere in it" "$T/found"
fi
if [ -f "$C/fabtop/procs/$Q.json" ] && ! grep -q -e "$S" -e api-key "$C/fabtop/procs/$Q.json"; then
	ok "capture: a job with secrets on its command line is recorded without them"
else
	notok "capture: a job with secrets on its command line is recorded without them" "$C/fabtop/procs/$Q.json"
fi

# ---- the job step, live and from the capture ---------------------------------
# block FILE PID: the job step's lines for process PID (its "pid PID (" line
# up to the next process or the end of the raw output).
block() { awk -v pid="$2" '/^    pid [0-9]+ \(/ { on = ($2 == pid) } on' "$1"; }
# vars: the NAME=value lines of a block, names only.
vars() { grep -E '^      [A-Za-z_][A-Za-z0-9_]*=' | sed 's/^ *//; s/=.*//' | sort | tr '\n' ' '; }
"$FABTOP" wizard --batch --verbose --steps job > "$T/live.txt" 2> "$T/live.err"
block "$T/live.txt" "$P" > "$T/live.blk"
got=$(vars < "$T/live.blk")
if [ "$got" = "NCCL_IB_HCA NCCL_SOCKET_IFNAME " ] && nosecret "$T/live.txt" "$T/live.err" &&
   ! asan "$T/live.err"; then
	ok "wizard --batch --steps job (live): exactly the allowed variables, no secret anywhere"
else
	notok "wizard --batch --steps job (live): exactly the allowed variables (got: $got)" "$T/found" "$T/live.blk"
fi
block "$T/live.txt" "$Q" > "$T/liveq.blk"
if grep -q -- "--api-key '<hidden>' '--token=<hidden>'" "$T/liveq.blk"; then
	ok "wizard --batch --steps job (live): secrets on a command line show as <hidden>"
else
	notok "wizard --batch --steps job (live): secrets on a command line show as <hidden>" "$T/liveq.blk"
fi
"$FABTOP" --root "$T/cap.tar.gz" wizard --batch --verbose --steps job > "$T/replay.txt" 2> "$T/replay.err"
block "$T/replay.txt" "$P" > "$T/replay.blk"
got=$(vars < "$T/replay.blk")
if [ "$got" = "NCCL_IB_HCA NCCL_SOCKET_IFNAME " ] && nosecret "$T/replay.txt" "$T/replay.err"; then
	ok "wizard --batch --steps job on the capture: the same variables, no secret"
else
	notok "wizard --batch --steps job on the capture: the same variables (got: $got)" "$T/found" "$T/replay.blk"
fi

# ---- an older capture that recorded secrets --------------------------------
if [ -d "$SCEN" ]; then
	cp -a "$SCEN" "$T/old"
	mkdir -p "$T/old/fabtop/procs"
	cat > "$T/old/fabtop/procs/4242.json" <<EOF
{ "pid": 4242, "comm": "python3", "netns": null, "nccl_lib": null,
  "env": { "NCCL_SOCKET_IFNAME": "eth0", "NCCL_IB_PASSWORD": "$S-nccl-ib-password",
           "UCX_PASSWORD": "$S-ucx-password", "NVIDIA_API_KEY": "$S-nvidia-api-key",
           "OMPI_MCA_plm_rsh_args": "-i $S/id_ed25519", "OMPI_COMM_WORLD_RANK": "1" } }
EOF
	"$FABTOP" --root "$T/old" wizard --batch --verbose --steps job > "$T/old.txt" 2> "$T/old.err"
	block "$T/old.txt" 4242 > "$T/old.blk"
	got=$(vars < "$T/old.blk")
	if [ "$got" = "NCCL_SOCKET_IFNAME OMPI_COMM_WORLD_RANK " ] && nosecret "$T/old.txt" "$T/old.err"; then
		ok "an older capture with secrets in it: the job step prints none of them"
	else
		notok "an older capture with secrets in it: the job step prints none of them (got: $got)" "$T/found" "$T/old.blk"
	fi
else
	echo "not ok - scenario $SCEN is missing (make scenarios)"
fi
exit 0
