#!/bin/sh
# deploy/k8s/kubectl-fabtop against a stand-in kubectl that records its
# arguments and answers `get pods` from a list and `exec` with a real
# scenario's capture (no cluster is reachable here: what is tested is the
# commands the plugin runs, their quoting, the files it writes, its exit
# statuses, and that hostile node and pod names never reach a command or a
# path). The local `fabtop fleet` is a recording stand-in too.
NAME=kplugin; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
plugin=$top/deploy/k8s/kubectl-fabtop
cap=$top/build/scenarios/dgx-h100.tar.gz
need "$cap"

mkdir "$T/bin" "$T/work"
# Each call: its arguments one a line, then "--end".
cat > "$T/bin/kubectl" <<EOF
#!/bin/sh
for a in "\$@"; do printf '%s\n' "\$a"; done >> "$T/kubectl.log"
echo -- end >> "$T/kubectl.log"
case \$1 in
get) [ -f "$T/pods" ] || exit 1; cat "$T/pods" ;;
exec) case "\$*" in *pod/broken*) echo "error: container not found" >&2; exit 1 ;; esac
      cat "$cap" ;;
debug) exit 0 ;;
*) exit 3 ;;
esac
EOF
cat > "$T/bin/fabtop" <<EOF
#!/bin/sh
for a in "\$@"; do printf '%s\n' "\$a"; done > "$T/fabtop.log"
exit 1
EOF
chmod +x "$T/bin/kubectl" "$T/bin/fabtop"
# FABTOP: the suite exports the fabtop under test; the plugin must run the stand-in.
run() { (cd "$T/work" && PATH=$T/bin:$PATH FABTOP=$T/bin/fabtop "$plugin" "$@") > "$T/out" 2>&1; }
lines() { for a in "$@"; do printf '%s\n' "$a"; done; }

# 1. A node: the TUI in a debug pod, and arguments passed on as they are.
: > "$T/kubectl.log"
run gpu-node-1.rack2; rc=$?
lines debug node/gpu-node-1.rack2 -it --image=localhost/fabtop:0.1.0 --profile=general -- fabtop "-- end" > "$T/want"
if [ $rc = 0 ] && cmp -s "$T/want" "$T/kubectl.log"; then ok "NODE: kubectl debug node/NODE -- fabtop"
else nok "NODE: kubectl debug node/NODE -- fabtop" "exit $rc" "$(diff "$T/want" "$T/kubectl.log")" "$(cat "$T/out")"; fi

: > "$T/kubectl.log"
(cd "$T/work" && PATH=$T/bin:$PATH FABTOP_IMAGE='reg/fabtop:1 x' FABTOP_PROFILE=sysadmin \
	"$plugin" n1 report all --json '$(id)') > "$T/out" 2>&1; rc=$?
lines debug node/n1 -it '--image=reg/fabtop:1 x' --profile=sysadmin -- fabtop report all --json '$(id)' "-- end" > "$T/want"
if [ $rc = 0 ] && cmp -s "$T/want" "$T/kubectl.log"; then ok "NODE ARGS: each argument passed as one, unexpanded"
else nok "NODE ARGS: each argument passed as one, unexpanded" "exit $rc" "$(diff "$T/want" "$T/kubectl.log")"; fi

# 2. Hostile node names are refused before kubectl runs.
bad=""
for n in '-it' '../x' 'a;touch pwned' '$(touch pwned)' 'A' 'a b' "$(printf 'a\nb')" '' 'a/b' '.' 'x.' "$(printf 'n%.0s' $(seq 254))"; do
	: > "$T/kubectl.log"
	run "$n"; rc=$?
	[ $rc = 2 ] && [ ! -s "$T/kubectl.log" ] && [ ! -e "$T/work/pwned" ] || bad="$bad [$n: exit $rc]"
done
if [ -z "$bad" ]; then ok "NODE: hostile names refused, exit 2, kubectl never run"
else nok "NODE: hostile names refused, exit 2, kubectl never run" "$bad"; fi

# 3. fleet: the DaemonSet's running pods, each one's capture into DIR/NODE.tar.gz.
tab=$(printf '\t')
{
	printf 'fabtop-a1\tnode-1\n'
	printf 'fabtop-b2\tnode-2.rack\n'
	printf 'fabtop-c3\t../../etc/passwd\n'
	printf -- '-x\tnode-4\n'
	printf 'fabtop-d4\t$(touch pwned)\n'
	printf 'fabtop-e5\tnode-6\textra\n'
	printf 'broken\tnode-5\n'
} > "$T/pods"
: > "$T/kubectl.log"
run fleet out; rc=$?
{
	lines get pods --namespace fabtop --selector app.kubernetes.io/name=fabtop --field-selector=status.phase=Running \
		'-o' 'jsonpath={range .items[*]}{.metadata.name}{"\t"}{.spec.nodeName}{"\n"}{end}' "-- end"
	for p in fabtop-a1 fabtop-b2 broken; do
		lines exec --namespace fabtop "pod/$p" -c fabtop -- fabtop capture -o - "-- end"
	done
} > "$T/want"
files=$(cd "$T/work/out" && ls -A | tr '\n' ' ')
if [ $rc = 1 ] && cmp -s "$T/want" "$T/kubectl.log" && [ "$files" = "node-1.tar.gz node-2.rack.tar.gz " ] &&
   cmp -s "$cap" "$T/work/out/node-1.tar.gz" && cmp -s "$cap" "$T/work/out/node-2.rack.tar.gz" &&
   [ "$(cat "$T/fabtop.log")" = "$(lines fleet -- out)" ] && [ ! -e "$T/work/pwned" ] &&
   [ ! -e "$T/etc" ]; then
	ok "fleet: a capture per good pod, hostile names skipped, fabtop fleet's exit status"
else
	nok "fleet: a capture per good pod, hostile names skipped, fabtop fleet's exit status" "exit $rc, files: $files" \
		"$(diff "$T/want" "$T/kubectl.log")" "fabtop: $(cat "$T/fabtop.log" 2>&1)" "$(cat "$T/out")"
fi
grep -q 'skipped: pod fabtop-c3 on node ../../etc/passwd: not a Kubernetes name' "$T/out" &&
grep -q 'node-5: the capture from pod broken failed' "$T/out" &&
grep -q '2 capture(s) in out, 5 failed' "$T/out" &&
	ok "fleet: each skipped or failed node is said" || nok "fleet: each skipped or failed node is said" "$(cat "$T/out")"

# 3b. A folder holding an earlier run's captures is refused before kubectl runs.
rm -f "$T/fabtop.log" "$T/kubectl.log"
run fleet out; rc=$?
if [ $rc = 2 ] && grep -q 'out is not empty' "$T/out" && [ ! -e "$T/fabtop.log" ] &&
   ! grep -q 'get pods' "$T/kubectl.log" 2>/dev/null; then
	ok "fleet: a folder that is not empty is refused, exit 2"
else
	nok "fleet: a folder that is not empty is refused" "exit $rc" "$(cat "$T/out")"
fi

# 4. No pod, or kubectl failing: exit 2, fabtop fleet not run.
: > "$T/pods"; rm -f "$T/fabtop.log"
run fleet empty; rc=$?
if [ $rc = 2 ] && [ ! -e "$T/fabtop.log" ] && [ -z "$(ls -A "$T/work/empty")" ]; then ok "fleet: no pod, exit 2"
else nok "fleet: no pod, exit 2" "exit $rc" "$(cat "$T/out")"; fi
rm -f "$T/pods"
run fleet failed; rc=$?
if [ $rc = 2 ] && [ ! -e "$T/fabtop.log" ] && grep -q 'kubectl get pods failed' "$T/out"; then ok "fleet: kubectl get fails, exit 2"
else nok "fleet: kubectl get fails, exit 2" "exit $rc" "$(cat "$T/out")"; fi

# 5. Usage.
run; rc1=$?; run fleet a b; rc2=$?
[ $rc1 = 2 ] && [ $rc2 = 2 ] && ok "usage: exit 2" || nok "usage: exit 2" "exits $rc1 $rc2"
