#!/bin/sh
# deploy/k8s's manifests against the Kubernetes API's schemas: the npm
# packages pinned in tests/k8s/package-lock.json (kubernetes-models' JSON
# schemas and type definitions, yaml, typescript), installed with `npm ci`
# into tests/k8s/node_modules (ignored by git; reinstalled only when the lock
# changes). A broken copy proves the check can fail. Then what the manifests
# promise (read-only mounts, no capability, hostPID only in the job Pod) and
# the DaemonSet's loop itself, run with a stand-in fabtop.
# SKIP when node or npm is missing, or the registry cannot be reached.
NAME=k8s; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
k=$top/tests/k8s
ds=$top/deploy/k8s/fabtop-daemonset.yaml
job=$top/deploy/k8s/fabtop-job.yaml

skip_all() {
	for t in "manifests valid" "a wrong field type is refused" "an unknown field is refused" \
		 "the DaemonSet reads read-only, with no capability" "the job Pod alone has hostPID" \
		 "the DaemonSet's loop"; do
		echo "ok - $t # SKIP $1"
	done
	exit 0
}
command -v node >/dev/null || skip_all "node is not installed (apt-get install nodejs npm)"
command -v npm >/dev/null || skip_all "npm is not installed (apt-get install npm)"
if ! cmp -s "$k/package-lock.json" "$k/node_modules/.fabtop-lock" 2>/dev/null; then
	if ! (cd "$k" && npm ci --no-audit --no-fund --loglevel=error) > "$T/npm.log" 2>&1; then
		# Only an unreachable registry is a reason to skip; a lock or
		# package that does not install is a failure.
		if ! (cd "$k" && npm ping --loglevel=error) > "$T/ping.log" 2>&1; then
			skip_all "the npm registry cannot be reached: $(tail -n 1 "$T/ping.log")"
		fi
		nok "npm ci installs the pinned validators" "$(tail -n 20 "$T/npm.log")"
		exit 0
	fi
	cp "$k/package-lock.json" "$k/node_modules/.fabtop-lock"
fi

# check NAME WANT_RC FILE...: validate.js exits WANT_RC on FILE.
check() {
	_n=$1 _want=$2; shift 2
	node "$k/validate.js" "$@" > "$T/out" 2>&1
	_rc=$?
	if [ "$_rc" = "$_want" ]; then ok "$_n"; else nok "$_n" "exit $_rc, want $_want" "$(cat "$T/out")"; fi
}
check "manifests valid" 0 "$ds" "$job"

sed 's/readOnlyRootFilesystem: true/readOnlyRootFilesystem: "yes"/' "$ds" > "$T/type.yaml"
check "a wrong field type is refused" 1 "$T/type.yaml"
grep -q 'readOnlyRootFilesystem must be boolean' "$T/out" ||
	nok "a wrong field type is refused: the message names the field" "$(cat "$T/out")"

sed 's/readOnlyRootFilesystem: true/readOnlyRootFileSystem: true/' "$ds" > "$T/unknown.yaml"
check "an unknown field is refused" 1 "$T/unknown.yaml"
grep -q "readOnlyRootFileSystem.*does not exist" "$T/out" ||
	nok "an unknown field is refused: the message names the field" "$(cat "$T/out")"

# node -e SCRIPT FILE: prints "name=value" facts of the manifests' pods.
facts() {
	(cd "$k" && node -e '
		const YAML = require("yaml"), fs = require("fs");
		for (const d of YAML.parseAllDocuments(fs.readFileSync(process.argv[1], "utf8"))) {
			const o = d.toJS();
			if (!o || !["DaemonSet", "Pod"].includes(o.kind)) continue;
			const s = o.kind === "Pod" ? o.spec : o.spec.template.spec;
			const c = s.containers[0], sc = c.securityContext || {};
			const mounts = Object.fromEntries(c.volumeMounts.map((m) => [m.mountPath, m]));
			const ro = (p) => mounts[p] ? String(!!mounts[p].readOnly) : "absent";
			console.log([o.kind, "hostPID=" + !!s.hostPID, "privileged=" + !!sc.privileged,
				"escalation=" + sc.allowPrivilegeEscalation, "rootfs-ro=" + !!sc.readOnlyRootFilesystem,
				"drop=" + ((sc.capabilities || {}).drop || []).join(","),
				"add=" + ((sc.capabilities || {}).add || []).join(","),
				"sys-ro=" + ro("/sys"), "ib-ro=" + ro("/dev/infiniband"),
				"limits=" + !!(c.resources && c.resources.limits && c.resources.limits.memory)].join(" "));
		}' "$1")
}
got=$(facts "$ds")
want="DaemonSet hostPID=false privileged=false escalation=false rootfs-ro=true drop=ALL add= sys-ro=true ib-ro=true limits=true"
if [ "$got" = "$want" ]; then ok "the DaemonSet reads read-only, with no capability"
else nok "the DaemonSet reads read-only, with no capability" "got:  $got" "want: $want"; fi
got=$(facts "$job")
want="Pod hostPID=true privileged=false escalation=false rootfs-ro=true drop=ALL add=SYS_PTRACE,SYS_ADMIN sys-ro=true ib-ro=true limits=true"
if [ "$got" = "$want" ]; then ok "the job Pod alone has hostPID"
else nok "the job Pod alone has hostPID" "got:  $got" "want: $want"; fi

# The DaemonSet's own loop (its command, taken from the manifest), with a
# stand-in fabtop that records its arguments and fails on its second call:
# the loop goes on, says the exit 2, and ends at once on TERM.
(cd "$k" && node -e '
	const YAML = require("yaml"), fs = require("fs");
	const o = YAML.parseAllDocuments(fs.readFileSync(process.argv[1], "utf8")).map((d) => d.toJS())
		.find((x) => x && x.kind === "DaemonSet");
	const c = o.spec.template.spec.containers[0];
	fs.writeFileSync(process.argv[2], JSON.stringify(c.command));
	fs.writeFileSync(process.argv[3], c.command[2]);' "$ds" "$T/cmd.json" "$T/loop.sh")
mkdir "$T/bin"
cat > "$T/bin/fabtop" <<EOF
#!/bin/sh
n=\$(( \$(cat "$T/calls" 2>/dev/null || echo 0) + 1 )); echo \$n > "$T/calls"
printf '%s|' "\$@" >> "$T/args"; echo >> "$T/args"
[ \$n -eq 2 ] && exit 2
exit 1
EOF
chmod +x "$T/bin/fabtop"
PATH=$T/bin:$PATH INTERVAL=0.2 /bin/sh "$T/loop.sh" 2> "$T/loop.err" &
lp=$!
i=0
while [ "$(cat "$T/calls" 2>/dev/null || echo 0)" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $lp
i=0
while kill -0 $lp 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $lp 2>/dev/null; then
	kill -KILL $lp
	nok "the DaemonSet's loop" "still running 2 s after TERM"
else
	wait $lp; lrc=$?
	first=$(head -n 1 "$T/args")
	if [ "$(head -c 12 "$T/cmd.json")" = '["/bin/sh","' ] && [ "$lrc" = 0 ] &&
	   [ "$first" = "report|metrics|-o|/var/lib/node_exporter/textfile/fabtop.prom|" ] &&
	   [ "$(cat "$T/calls")" -ge 3 ] && grep -qx 'fabtop report metrics: exit 2' "$T/loop.err"; then
		ok "the DaemonSet's loop"
	else
		nok "the DaemonSet's loop" "exit $lrc; calls $(cat "$T/calls")" "args: $first" \
			"stderr: $(cat "$T/loop.err")" "command: $(cat "$T/cmd.json")"
	fi
fi
