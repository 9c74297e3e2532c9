#!/bin/sh
# deploy/prometheus/fabtop-rules.yml: the real promtool accepts the rules
# (check rules) and their unit tests pass (test rules: each alert fires on
# a synthetic series and stays quiet on a healthy one). Then the tests must
# catch a broken rule: FabtopPortDown compared against 2 and the retry
# alert without its trouble label make `promtool test rules` fail.
NAME=rules; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
D=$top/deploy/prometheus
if ! command -v promtool >/dev/null; then
	echo "ok - promtool check rules # SKIP promtool is not installed (apt-get install prometheus)"
	echo "ok - promtool test rules # SKIP promtool is not installed"
	echo "ok - the rule tests catch a broken rule # SKIP promtool is not installed"
	exit 0
fi
if out=$(promtool check rules "$D/fabtop-rules.yml" 2>&1) && echo "$out" | grep -q SUCCESS; then
	ok "promtool check rules deploy/prometheus/fabtop-rules.yml"
else
	nok "promtool check rules deploy/prometheus/fabtop-rules.yml" "$out"
fi
if out=$(cd "$D" && promtool test rules fabtop-rules.test.yml 2>&1) && echo "$out" | grep -q SUCCESS; then
	ok "promtool test rules: every alert fires on its series and stays quiet when healthy"
else
	nok "promtool test rules deploy/prometheus/fabtop-rules.test.yml" "$out"
fi
# Mutants: each must make the unit tests fail.
cp "$D/fabtop-rules.test.yml" "$T/"
bad=""
for m in 's/expr: fabtop_finding{id="links.port-down"} == 1/expr: fabtop_finding{id=~"links.port-.*"} == 1/' \
	 's/trouble="retry"}\[15m\]/}[15m]/' \
	 's/{id="links.rate-degraded",severity="warning"}/{id="links.rate-degraded"}/' \
	 's/expr: fabtop_port_saturated == 1/expr: fabtop_port_saturated >= 0/' \
	 's/severity="error",id!="links.port-down"}/severity="error"}/' \
	 's/  < max_over_time(count by (job, instance) (fabtop_port_info)/  > max_over_time(count by (job, instance) (fabtop_port_info)/'; do
	sed "$m" "$D/fabtop-rules.yml" > "$T/fabtop-rules.yml"
	if cmp -s "$D/fabtop-rules.yml" "$T/fabtop-rules.yml"; then
		bad="$bad
mutant '$m' changed nothing (the rule file changed: update this test)"
	elif (cd "$T" && promtool test rules fabtop-rules.test.yml >/dev/null 2>&1); then
		bad="$bad
mutant '$m' passed the tests"
	fi
done
if [ -z "$bad" ]; then
	ok "the rule tests catch a broken rule (6 mutants fail)"
else
	nok "the rule tests catch a broken rule" "$bad"
fi
