#!/bin/sh
# t_slurm.sh - deploy/slurm/ against a real one-node Slurm: munged with its
# own key and socket, slurmctld and slurmd with a slurm.conf written here,
# every path (state, spool, pid files, logs, sockets) in this test's temp
# folder, on free ports. It runs the real fabtop-fleet.sbatch through
# `sbatch --wait` (the node's capture taken from a bundled scenario with
# --source, never from this machine) and fabtop-healthcheck.sh through srun,
# directly (as slurmd runs a HealthCheckProgram) and as the Prolog, and
# reads the node's state back from slurmctld. When munged, slurmctld or
# slurmd cannot start here, it says SKIP with the reason from their log.
NAME=slurm; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
S=$top/build/scenarios
need "$S/dgx-h100/" "$S/roce-faults/"
SB=$top/deploy/slurm/fabtop-fleet.sbatch
HC=$top/deploy/slurm/fabtop-healthcheck.sh

skip() { echo "ok - slurm: deploy/slurm against a real Slurm # SKIP $*"; exit 0; }
for c in munged mungekey slurmctld slurmd sbatch srun scontrol sinfo squeue scancel timeout python3; do
	command -v "$c" > /dev/null 2>&1 ||
		skip "$c not installed (apt-get install munge slurmctld slurmd slurm-client)"
done
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start job steps (SlurmdUser=root)"

# What Slurm and munge write by default, outside any temp folder: it must
# read the same after the test.
outside() { find /var/spool/slurm* /var/lib/slurm* /run/slurm* /run/munge /var/log/slurm* \
	/var/log/munge /var/lib/munge /etc/slurm /etc/munge -maxdepth 2 -printf '%p %y %s %T@\n' 2> /dev/null; }
outside > "$T/outside.before"

PIDS=""
cleanup() {
	if [ -n "$PIDS" ]; then
		# Jobs first, so that their slurmstepd end with them.
		scancel --quiet --full $(squeue -h -o %i 2> /dev/null) 2> /dev/null
		i=0
		while [ -n "$(squeue -h 2> /dev/null)" ] && [ $i -lt 20 ]; do sleep 0.5; i=$((i + 1)); done
		for p in $PIDS; do kill "$p" 2> /dev/null; done
		i=0
		for p in $PIDS; do
			while kill -0 "$p" 2> /dev/null && [ $i -lt 20 ]; do sleep 0.5; i=$((i + 1)); done
			kill -9 "$p" 2> /dev/null
		done
	fi
	rm -rf "$T"
}
trap cleanup EXIT

# munged checks that everyone may traverse to its socket.
chmod 711 "$T"
mkdir -m 700 "$T/munge" "$T/state" "$T/spool" "$T/log"
chmod 711 "$T/munge"
H=$(hostname -s)
export SLURM_CONF="$T/slurm.conf"

# lastlog FILE: the last error a daemon wrote, for a SKIP line.
lastlog() { grep -iE 'error|fatal' "$1" 2> /dev/null | tail -n 1 | tr -d '\n' | cut -c1-200; }

mungekey -c -k "$T/munge/munge.key" > "$T/log/mungekey.out" 2>&1 ||
	skip "mungekey failed: $(tail -n 1 "$T/log/mungekey.out")"
munged -F -S "$T/munge/sock" --key-file="$T/munge/munge.key" --pid-file="$T/munge/munged.pid" \
	--log-file="$T/log/munged.log" --seed-file="$T/munge/munged.seed" > "$T/log/munged.out" 2>&1 &
PIDS="$!"
i=0
while [ ! -S "$T/munge/sock" ] && [ $i -lt 40 ]; do
	kill -0 "$PIDS" 2> /dev/null || break
	sleep 0.25; i=$((i + 1))
done
[ -S "$T/munge/sock" ] || skip "munged did not start: $(lastlog "$T/log/munged.log") $(tail -n 1 "$T/log/munged.out")"

set -- $(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
: > "$T/plugstack.conf"
# Prolog: the health check with the scenario named in $T/hc-root (as a site
# would set FABTOP and its arguments in such a wrapper).
cat > "$T/prolog.sh" << EOF
#!/bin/sh
FABTOP='$bin' FABTOP_HC_ARGS="--root \$(cat '$T/hc-root')" exec '$HC' 2>> '$T/log/prolog.log'
EOF
chmod 755 "$T/prolog.sh"
echo "$S/dgx-h100" > "$T/hc-root"
cat > "$SLURM_CONF" << EOF
ClusterName=fabtoptest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
PlugStackConfig=$T/plugstack.conf
Prolog=$T/prolog.sh
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
# sbatch --wait polls every 2 s, then backs off to 32 s while MinJobAge/2
# allows: 4 keeps it at 2 s (the test reads a job's end from sbatch's status).
MinJobAge=4
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=$H NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=fabtop Nodes=$H Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -i -f "$SLURM_CONF" > "$T/log/slurmctld.out" 2>&1 &
ctld=$!; PIDS="$ctld $PIDS"
i=0
until scontrol ping 2> /dev/null | grep -q 'is UP'; do
	kill -0 "$ctld" 2> /dev/null && [ $i -lt 60 ] ||
		skip "slurmctld did not start: $(lastlog "$T/log/slurmctld.log") $(tail -n 1 "$T/log/slurmctld.out")"
	sleep 0.5; i=$((i + 1))
done
slurmd -D -N "$H" -f "$SLURM_CONF" > "$T/log/slurmd.out" 2>&1 &
sd=$!; PIDS="$sd $PIDS"
state() { sinfo -h -N -n "$H" -o '%T' 2> /dev/null; }
reason() { sinfo -h -N -n "$H" -o '%E' 2> /dev/null; }
# wait_state STATE: the node reaches STATE (sinfo's word) within 30 s: idle
# once it takes jobs again (after a start or a resume), drained once the job
# that drained it has ended (draining until then).
wait_state() {
	i=0
	until [ "$(state)" = "$1" ]; do
		[ $i -lt 60 ] || return 1
		sleep 0.5; i=$((i + 1))
	done
}
wait_idle() { wait_state idle; }
if ! wait_idle; then
	kill -0 "$sd" 2> /dev/null ||
		skip "slurmd did not start: $(lastlog "$T/log/slurmd.log") $(tail -n 1 "$T/log/slurmd.out")"
	skip "node $H did not become idle (state: $(state), reason: $(reason)): $(lastlog "$T/log/slurmd.log")"
fi
ok "slurm: munged, slurmctld and slurmd started in the test's folder; node $H idle"

# daemons_detail: the daemons' last lines, for a failure.
daemons_detail() { tail -n 5 "$T/log/slurmctld.log" "$T/log/slurmd.log" "$T/log/prolog.log" 2> /dev/null; }

# fleet_job NAME SCENARIO [DIR]: sbatch --wait of the real script; its rc in $jrc.
fleet_job() {
	FABTOP=$bin FABTOP_DIR=${3:-$T/$1} FABTOP_CAPTURE_ARGS="--source $2" \
		sbatch --wait --parsable -J "fleet-$1" -o "$T/$1.out" "$SB" > "$T/$1.id" 2> "$T/$1.err"
	jrc=$?
	jid=$(head -n 1 "$T/$1.id")
}
# job_field ID KEY: a field of scontrol show job.
job_field() { scontrol -o show job "$1" 2> /dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# 1. A healthy node: its capture in FABTOP_DIR, named after the node; fleet
# lists it; exit 0. The folder's name would run a command if any shell
# parsed it.
hdir=$T/'healthy $(touch pwned)`touch pwned`'
fleet_job healthy "$S/dgx-h100" "$hdir"
cap=$hdir/$H.tar.gz
if [ "$jrc" = 0 ] && grep -q "capturing 1 node(s)" "$T/healthy.out"; then
	ok "slurm: sbatch --wait fabtop-fleet.sbatch on a healthy node: job $jid ran, exit 0"
else
	nok "slurm: sbatch --wait fabtop-fleet.sbatch on a healthy node: job ${jid:-?} ran, exit 0" \
		"sbatch rc $jrc" "$(cat "$T/healthy.err" "$T/healthy.out" 2> /dev/null)" "$(daemons_detail)"
fi
host=$("$bin" --root "$cap" report all --json 2> "$T/cap.err" | python3 -c 'import json, sys; print(json.load(sys.stdin)["host"])' 2>> "$T/cap.err")
if [ -s "$cap" ] && [ "$host" = dgx-h100-demo ]; then
	ok "slurm: the step wrote FABTOP_DIR/$H.tar.gz, a capture fabtop reads (host $host)"
else
	nok "slurm: the step wrote FABTOP_DIR/$H.tar.gz, a capture fabtop reads" \
		"$(ls -la "$hdir" 2>&1)" "host: '$host'" "$(cat "$T/cap.err")" "$(cat "$T/healthy.out" 2> /dev/null)"
fi
if grep -qE '^dgx-h100-demo[[:space:]]+ok[[:space:]]' "$T/healthy.out" && ! find "$T" "$top" -maxdepth 1 -name pwned | grep -q .; then
	ok "slurm: fleet's output in the job's output lists the node, ok; the folder's name ran nothing"
else
	nok "slurm: fleet's output in the job's output lists the node, ok; the folder's name ran nothing" \
		"$(find "$T" "$top" -maxdepth 1 -name pwned)" "$(cat "$T/healthy.out" "$T/healthy.err" 2> /dev/null)"
fi

# 2. A node with findings: the job's exit status is fleet's, 1.
fleet_job faults "$S/roce-faults"
if [ "$jrc" = 1 ] && [ -s "$T/faults/$H.tar.gz" ] &&
	grep -qE '^roce-faults-demo[[:space:]]+findings[[:space:]]' "$T/faults.out"; then
	ok "slurm: a node with findings: fleet lists it with findings, the job exits 1 (fleet's status)"
else
	nok "slurm: a node with findings: fleet lists it with findings, the job exits 1 (fleet's status)" \
		"sbatch rc $jrc" "$(cat "$T/faults.out" "$T/faults.err" 2> /dev/null)"
fi

# 3. A node whose capture fails is named and makes the job exit 2, never 0.
fleet_job nocap "$T/no-such-node"
if [ "$jrc" = 2 ] && grep -q "$H: no capture" "$T/nocap.out"; then
	ok "slurm: a node that left no capture is named, and the job exits 2"
else
	nok "slurm: a node that left no capture is named, and the job exits 2" \
		"sbatch rc $jrc" "$(cat "$T/nocap.out" "$T/nocap.err" 2> /dev/null)"
fi

# 4. The health check through srun: findings drain the node with the worst one as the reason.
hc_srun() {
	FABTOP=$bin FABTOP_HC_ARGS="--root $1" timeout 120 srun -N1 -n1 -J hc "$HC" > "$T/hc.out" 2>&1
}
hc_srun "$S/roce-faults"
wait_state drained
st=$(state); rs=$(reason)
if [ "$st" = drained ] && [ "$rs" = "fabtop: links.port-down mlx5_1/1 (+11 more)" ] &&
	scontrol show node "$H" | grep -q 'Reason=fabtop: links.port-down mlx5_1/1 (+11 more) \[root@'; then
	ok "slurm: health check through srun on findings: node drained, reason names the worst finding"
else
	nok "slurm: health check through srun on findings: node drained, reason names the worst finding" \
		"state '$st' reason '$rs'" "$(cat "$T/hc.out")" "$(daemons_detail)"
fi

# 5. Run as slurmd runs a HealthCheckProgram (outside any job): a healthy
# node that fabtop drained is resumed.
SLURMD_NODENAME=$H FABTOP=$bin FABTOP_HC_ARGS="--root $S/dgx-h100" "$HC" > "$T/hc.out" 2>&1
hrc=$?
if [ "$hrc" = 0 ] && wait_idle && [ "$(reason)" = none ]; then
	ok "slurm: health check on a healthy node resumes fabtop's own drain"
else
	nok "slurm: health check on a healthy node resumes fabtop's own drain" \
		"rc $hrc, state '$(state)' reason '$(reason)'" "$(cat "$T/hc.out")"
fi

# 6. Healthy through srun: not drained.
hc_srun "$S/dgx-h100"
if [ "$(state)" = idle ] && [ "$(reason)" = none ]; then
	ok "slurm: health check through srun on a healthy node: not drained"
else
	nok "slurm: health check through srun on a healthy node: not drained" \
		"state '$(state)' reason '$(reason)'" "$(cat "$T/hc.out")"
fi

# 7. A drain someone else set is left alone, by findings and by health.
scontrol update nodename="$H" state=drain reason="maintenance; by bob"
SLURMD_NODENAME=$H FABTOP=$bin FABTOP_HC_ARGS="--root $S/roce-faults" "$HC" > "$T/hc.out" 2>&1
r1=$(reason)
SLURMD_NODENAME=$H FABTOP=$bin FABTOP_HC_ARGS="--root $S/dgx-h100" "$HC" >> "$T/hc.out" 2>&1
r2=$(reason)
if [ "$r1" = "maintenance; by bob" ] && [ "$r2" = "maintenance; by bob" ] && [ "$(state)" = drained ]; then
	ok "slurm: health check leaves a drain it did not set as it is"
else
	nok "slurm: health check leaves a drain it did not set as it is" \
		"after findings: '$r1', after healthy: '$r2', state '$(state)'" "$(cat "$T/hc.out")"
fi
scontrol update nodename="$H" state=resume
wait_idle

# 8. fabtop cannot judge (exit 2): left as it is; drained only when asked.
SLURMD_NODENAME=$H FABTOP=$bin FABTOP_HC_ARGS="--root $T/no-such-node" "$HC" > "$T/hc.out" 2>&1
hrc=$?
s1=$(state)
SLURMD_NODENAME=$H FABTOP=$bin FABTOP_HC_ARGS="--root $T/no-such-node" FABTOP_HC_UNKNOWN=drain "$HC" >> "$T/hc.out" 2>&1
hrc2=$?
if [ "$hrc" = 0 ] && [ "$s1" = idle ] && [ "$hrc2" = 1 ] && [ "$(reason)" = "fabtop: unknown (exit 2)" ]; then
	ok "slurm: fabtop's exit 2 leaves the node up; FABTOP_HC_UNKNOWN=drain drains it as unknown"
else
	nok "slurm: fabtop's exit 2 leaves the node up; FABTOP_HC_UNKNOWN=drain drains it as unknown" \
		"rc $hrc state '$s1'; with drain: rc $hrc2 reason '$(reason)'" "$(cat "$T/hc.out")"
fi
scontrol update nodename="$H" state=resume
wait_idle

# 9. A fabtop that hangs is killed at the timeout and the node drained.
# (The stand-in for a sysfs read stuck in a wedged driver is a program that
# never answers.)
printf '#!/bin/sh\nexec sleep 600\n' > "$T/hangs"
chmod 755 "$T/hangs"
t0=$(date +%s)
SLURMD_NODENAME=$H FABTOP=$T/hangs FABTOP_HC_TIMEOUT=1 "$HC" > "$T/hc.out" 2>&1
hrc=$?
t1=$(date +%s)
if [ "$hrc" = 1 ] && [ "$(reason)" = "fabtop: timed out after 1s" ] && [ $((t1 - t0)) -lt 30 ]; then
	ok "slurm: a hung fabtop is killed at FABTOP_HC_TIMEOUT and the node drained"
else
	nok "slurm: a hung fabtop is killed at FABTOP_HC_TIMEOUT and the node drained" \
		"rc $hrc after $((t1 - t0)) s, reason '$(reason)'" "$(cat "$T/hc.out")"
fi
scontrol update nodename="$H" state=resume
wait_idle

# 10. The reason comes from the node's names: an HCA named to run commands
# and break quoting drains the node with a reason of plain characters only.
R=$T/hostile
cp -a "$S/roce-faults" "$R"
bad='mlx5_1$(touch pwned)`touch pwned`"'"'"'x;y'
( cd "$R/sys/class/infiniband" && tgt=$(readlink mlx5_1) && mv "$tgt" "$(dirname "$tgt")/$bad" &&
	rm mlx5_1 && ln -s "$(dirname "$tgt")/$bad" "$bad" )
( cd "$T" && SLURMD_NODENAME=$H FABTOP=$bin FABTOP_HC_ARGS="--root $R" "$HC" > "$T/hc.out" 2>&1 )
rs=$(reason)
case $rs in
*[!A-Za-z0-9._/:+\(\)\ -]*) safe=no ;;
"fabtop: links.port-down mlx5_1"*) safe=yes ;;
*) safe=no ;;
esac
if [ -d "$R/sys/class/infiniband/$bad" ] && [ "$safe" = yes ] && [ "$(state)" = drained ] &&
	! find "$T" "$top" -maxdepth 1 -name pwned | grep -q .; then
	ok "slurm: a hostile HCA name reaches the drain reason as plain characters and runs nothing"
else
	nok "slurm: a hostile HCA name reaches the drain reason as plain characters and runs nothing" \
		"reason '$rs' state '$(state)'" "$(ls "$R/sys/class/infiniband")" "$(cat "$T/hc.out")"
fi
scontrol update nodename="$H" state=resume
wait_idle

# 11. As the Prolog: findings drain the node before the job starts, Slurm
# requeues the job held, and the reason stays fabtop's.
echo "$S/roce-faults" > "$T/hc-root"
jid=$(sbatch --parsable -J prolog -o "$T/prolog.out" --wrap 'echo ran' 2> "$T/prolog.err")
i=0
while [ "$(state)" != drained ] || [ "$(job_field "$jid" JobState)" != PENDING ]; do
	[ $i -lt 60 ] || break
	sleep 0.5; i=$((i + 1))
done
if [ "$(state)" = drained ] && [ "$(reason)" = "fabtop: links.port-down mlx5_1/1 (+11 more)" ] &&
	[ "$(job_field "$jid" JobState)" = PENDING ] && ! grep -q '^ran$' "$T/prolog.out" 2> /dev/null; then
	ok "slurm: as the Prolog, findings drain the node with fabtop's reason and the job does not run there"
else
	nok "slurm: as the Prolog, findings drain the node with fabtop's reason and the job does not run there" \
		"state '$(state)' reason '$(reason)' job $jid $(job_field "$jid" JobState) $(job_field "$jid" Reason)" \
		"$(cat "$T/prolog.out" "$T/prolog.err" 2> /dev/null)" "$(daemons_detail)"
fi
scancel "$jid" 2> /dev/null

outside > "$T/outside.after"
if cmp -s "$T/outside.before" "$T/outside.after"; then
	ok "slurm: nothing written outside the test's folder (/var/spool, /run, /var/log, /var/lib)"
else
	nok "slurm: nothing written outside the test's folder (/var/spool, /run, /var/log, /var/lib)" \
		"$(diff "$T/outside.before" "$T/outside.after")"
fi
