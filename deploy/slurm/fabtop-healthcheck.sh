#!/bin/sh
# fabtop-healthcheck.sh - `fabtop report all` as a Slurm node health check,
# the way NHC does it: a node with findings is drained with a reason that
# names the worst one, and resumed once healthy again, but only when the
# drain was fabtop's own (its reason starts with "fabtop:"); a drain set by
# a person or another tool is never touched.
#
# Run it as slurm.conf's HealthCheckProgram (every HealthCheckInterval, as
# root, on each slurmd), or as Prolog/Epilog; see README.md beside it.
#
#   fabtop exits 0 (healthy)   -> resume the node if fabtop drained it; exit 0
#   fabtop exits 1 (findings)  -> drain "fabtop: ID SUBJECT (+N more)"; exit 1
#   fabtop hangs past the timeout -> drain "fabtop: timed out after Ns"; exit 1
#            (a wedged HCA driver hangs sysfs reads: that node is sick, and
#            NHC's watchdog drains on a timeout too)
#   fabtop exits 2 (it could not judge: usage or environment error, verdict
#            unknown) -> the node is left as it is, the reason goes to stderr
#            and syslog; exit 0. A broken fabtop install must not drain a
#            whole cluster. FABTOP_HC_UNKNOWN=drain drains it instead,
#            with "fabtop: unknown".
# Exit status: 0 the node may run jobs, 1 it is drained (as Prolog, Slurm
# then requeues the job; as Epilog it drains the node itself too), 2 this
# script could not do its work (scontrol failed, bad setting).
#
# Environment:
#   FABTOP             the fabtop binary (default: fabtop on PATH)
#   FABTOP_HC_ARGS     more arguments for `fabtop report all`, split on blanks
#                      (e.g. "--exclude-dev mlx5_8")
#   FABTOP_HC_TIMEOUT  seconds fabtop may take (default 60; killed 5 s later)
#   FABTOP_HC_UNKNOWN  "ignore" (default) or "drain": what exit 2 does
#   SLURMD_NODENAME    the node's Slurm name (slurmd sets it; default: hostname -s)
set -u
set -f  # FABTOP_HC_ARGS is split on blanks, never globbed
me=fabtop-healthcheck
FABTOP=${FABTOP:-fabtop}
FABTOP_HC_ARGS=${FABTOP_HC_ARGS:-}
FABTOP_HC_TIMEOUT=${FABTOP_HC_TIMEOUT:-60}
FABTOP_HC_UNKNOWN=${FABTOP_HC_UNKNOWN:-ignore}
node=${SLURMD_NODENAME:-$(hostname -s)}
# slurmd starts health checks with a bare PATH.
PATH=$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

say() {
	echo "$me: $node: $*" >&2
	command -v logger > /dev/null 2>&1 && logger -t "$me" -- "$node: $*" 2> /dev/null
	return 0
}

case $FABTOP_HC_TIMEOUT in
'' | *[!0-9]*) say "FABTOP_HC_TIMEOUT=$FABTOP_HC_TIMEOUT: not a number of seconds"; exit 2 ;;
esac
case $FABTOP_HC_UNKNOWN in
ignore | drain) ;;
*) say "FABTOP_HC_UNKNOWN=$FABTOP_HC_UNKNOWN: ignore or drain"; exit 2 ;;
esac

# The reason shown by sinfo -R comes from the node's own names (finding
# subjects): only a short run of plain characters goes into it, and it
# reaches scontrol as one argument, never through a shell.
clean() {
	printf '%s' "$1" | tr -c 'A-Za-z0-9._/:+() -' '_' | cut -c1-"$2"
}

# The node's Slurm state and reason: "STATE|REASON" (sinfo's words).
node_state() {
	sinfo -h -N -n "$node" -o '%T|%E' 2> /dev/null | head -n 1
}

# Drains the node with "fabtop: WHAT", unless someone else has put a reason
# on it (a person's drain, a DOWN from slurmctld): that one stays.
drain() {
	reason="fabtop: $(clean "$1" 72)"
	now=$(node_state)
	case ${now#*|} in
	none | '' | fabtop:*) ;;
	*)
		say "already has a reason from someone else (${now#*|}); left as it is; fabtop would say: $reason"
		return 0 ;;
	esac
	if ! scontrol update nodename="$node" state=drain reason="$reason"; then
		say "scontrol update nodename=$node state=drain failed; wanted: $reason"
		return 2
	fi
	say "drained: $reason"
	return 0
}

# Resumes the node only when fabtop drained it.
resume_if_ours() {
	now=$(node_state)
	case $now in
	*drain*'|fabtop:'*) ;;
	*) return 0 ;;
	esac
	if ! scontrol update nodename="$node" state=resume; then
		say "scontrol update nodename=$node state=resume failed"
		return 2
	fi
	say "healthy again: resumed (was drained: ${now#*|})"
	return 0
}

# LC_ALL=C: the severity words parsed below are the untranslated ones.
# shellcheck disable=SC2086
out=$(LC_ALL=C timeout -k 5 "$FABTOP_HC_TIMEOUT" "$FABTOP" report all $FABTOP_HC_ARGS 2>&1)
rc=$?
case $rc in
0)
	resume_if_ours || exit 2
	exit 0 ;;
1)
	# The worst finding first (error before warning), as "ID SUBJECT": the
	# text of its line "  [SEVERITY] ID SUBJECT: MESSAGE" before the first ": ".
	first=""
	for sev in error warning; do
		line=$(printf '%s\n' "$out" | grep -m 1 "^  \[$sev\] ")
		if [ -n "$line" ]; then
			rest=${line#*"] "}
			first=${rest%%": "*}
			break
		fi
	done
	n=$(printf '%s\n' "$out" | grep -cE '^  \[(error|warning)\] ')
	[ -n "$first" ] || first="findings (fabtop report all)"
	more=""
	[ "$n" -gt 1 ] && more=" (+$((n - 1)) more)"
	drain "$(clean "$first" 60)$more" || exit 2
	exit 1 ;;
124 | 137)
	drain "timed out after ${FABTOP_HC_TIMEOUT}s" || exit 2
	exit 1 ;;
*)
	why=$(printf '%s\n' "$out" | grep -v '^$' | tail -n 1)
	if [ "$FABTOP_HC_UNKNOWN" = drain ]; then
		drain "unknown (exit $rc)" || exit 2
		say "fabtop could not judge the node: $(clean "$why" 200)"
		exit 1
	fi
	say "fabtop could not judge the node (exit $rc), left as it is: $(clean "$why" 200)"
	exit 0 ;;
esac
