#!/bin/sh
# run.sh: background (tests/run.sh starts it first: minutes of waiting on
# downloads and a compile, beside the other tests).
# The container image, built for real: deploy/container/make-base.sh
# (debootstrap minbase bookworm + podman import), then `podman build` of
# deploy/container/Containerfile from this tree, then the image run: its
# fabtop is this tree's (same --version, same report of a bundled scenario
# as build/fabtop), it runs as nobody on a read-only root with no network,
# and a live capture made inside it reads back here.
#
# Podman's storage (and its runroot, which podman records) is this test's
# own, kept as a cache with the base root tarball and debootstrap's .debs in
# $FABTOP_IMAGE_CACHE (default
# /var/tmp/fabtop-image-cache): cold, the base takes ~5 min and the build
# ~9 min (the mirror's packages); warm, a changed tree rebuilds only from
# `COPY . /src` on. The machine's own podman images are never touched.
# What it takes to run podman in a sandbox like ours, found here:
#   - podman build --isolation chroot: no OCI runtime, no cgroups needed;
#   - podman run: crun refuses a "hybrid" cgroup layout (v1 controllers
#     plus a cgroup2 at /sys/fs/cgroup/unified holding a controller), so the
#     runs happen in a private mount namespace without that cgroup2 mount,
#     with --cgroups=disabled; and podman's default rlimits (nofile 1048576)
#     are above a hard limit that cannot be raised without CAP_SYS_RESOURCE,
#     so --ulimit sets them to this process's own.
# SKIP when not root, or podman or debootstrap is missing or cannot run.
NAME=image; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
CACHE=${FABTOP_IMAGE_CACHE:-/var/tmp/fabtop-image-cache}
IMG=localhost/fabtop:test
scen=dgx-h100
names="base image made|image built from this tree|--version is this tree's|runs as nobody|report of a bundled scenario matches build/fabtop's|live report and capture on a read-only root, no network"

skip_all() {
	echo "$names" | tr '|' '\n' | while read -r n; do echo "ok - $n # SKIP $1"; done
	exit 0
}

# The second half, in a private mount namespace (the cgroup2 mount removed there only).
if [ "${1:-}" = --inside ]; then
	mount --make-rprivate / || { nok "private mount namespace" "mount --make-rprivate / failed"; exit 0; }
	# (cgroupfs files have no size: read them.)
	if [ -n "$(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null)" ] && [ -d /sys/fs/cgroup/memory ]; then
		umount /sys/fs/cgroup/unified && echo "# hybrid cgroups: /sys/fs/cgroup/unified unmounted in this test's mount namespace"
	fi
	P="podman --root $CACHE/storage --runroot $CACHE/runroot"
	RUN="$P run --rm --cgroups=disabled --network none --read-only \
		--ulimit nofile=$(ulimit -Sn):$(ulimit -Hn) --ulimit nproc=4096:4096"

	start=$(date +%s)
	if BASE_CACHE=$CACHE PODMAN="$P" "$top/deploy/container/make-base.sh" localhost/fabtop-base:bookworm > "$T/base.log" 2>&1; then
		ok "base image made"
	else
		nok "base image made" "$(tail -n 15 "$T/base.log")"; exit 0
	fi
	t_base=$(( $(date +%s) - start ))
	start=$(date +%s)
	if $P build --isolation chroot -f "$top/deploy/container/Containerfile" -t "$IMG" "$top" > "$T/build.log" 2>&1; then
		ok "image built from this tree"
	else
		nok "image built from this tree" "$(tail -n 20 "$T/build.log")"; exit 0
	fi
	t_build=$(( $(date +%s) - start ))
	# The cache stays one build deep: the build stage tagged (all cached, a
	# second), so that pruning the untagged images of earlier trees keeps
	# its apt layer.
	$P build --isolation chroot --target build -f "$top/deploy/container/Containerfile" \
		-t localhost/fabtop-build:test "$top" > "$T/tag.log" 2>&1 &&
	$P image prune -f > "$T/prune.log" 2>&1 ||
		echo "# could not prune the image cache: $(tail -n 1 "$T/tag.log" "$T/prune.log")"
	echo "# base ${t_base} s, build ${t_build} s (cache: $CACHE)"

	# The runtime itself must be able to start a container here: an OCI
	# runtime error (crun or runc refusing the machine's cgroups, as in a
	# chroot without /sys/fs/cgroup) is a part that cannot start, said as
	# SKIP; anything else the image does is tested below.
	if ! $RUN "$IMG" true > "$T/probe" 2>&1 && grep -q 'OCI runtime' "$T/probe"; then
		for n in "--version is this tree's" "runs as nobody" \
			 "report of a bundled scenario matches build/fabtop's" \
			 "live report and capture on a read-only root, no network"; do
			echo "ok - $n # SKIP the image was built, but podman cannot start a container here: $(tail -n 1 "$T/probe")"
		done
		exit 0
	fi
	want=$("$bin" --version 2>&1)
	got=$($RUN "$IMG" fabtop --version 2>&1)
	[ -n "$want" ] && [ "$got" = "$want" ] && ok "--version is this tree's" ||
		nok "--version is this tree's" "got:  $got" "want: $want"

	got=$($RUN "$IMG" id -u 2>&1)
	[ "$got" = 65534 ] && ok "runs as nobody" || nok "runs as nobody" "id -u: $got"

	# What the DaemonSet runs: report metrics (promtool checks it below).
	rep="report metrics"
	# shellcheck disable=SC2086
	"$bin" --root "$top/build/scenarios/$scen.tar.gz" $rep > "$T/want" 2>&1; wrc=$?
	# shellcheck disable=SC2086
	$RUN "$IMG" fabtop --root "/usr/local/share/fabtop/scenarios/$scen.tar.gz" $rep > "$T/got" 2>&1; grc=$?
	if [ $grc = $wrc ] && [ $grc -le 1 ] && cmp -s "$T/want" "$T/got"; then
		ok "report of a bundled scenario matches build/fabtop's ($rep)"
	else
		nok "report of a bundled scenario matches build/fabtop's ($rep)" "exit $grc, want $wrc" \
			"$(diff "$T/want" "$T/got" | head -n 20)"
	fi
	if command -v promtool >/dev/null; then
		promtool check metrics < "$T/got" > "$T/prom" 2>&1 && ok "promtool accepts the image's metrics" ||
			nok "promtool accepts the image's metrics" "$(cat "$T/prom")"
	fi

	# Live, as in a pod: this machine's node, read-only root, no network;
	# the capture streamed out and read back by this tree's fabtop.
	$RUN "$IMG" fabtop report all > "$T/live" 2>&1; lrc=$?
	$RUN "$IMG" fabtop capture -o - > "$T/live.tar.gz" 2> "$T/cap.err"; crc=$?
	"$bin" --root "$T/live.tar.gz" report all > "$T/back" 2>&1; brc=$?
	if [ $lrc -le 1 ] && [ $crc = 0 ] && [ $brc -le 1 ] && grep -q 'source: live' "$T/live"; then
		ok "live report and capture on a read-only root, no network"
	else
		nok "live report and capture on a read-only root, no network" "report exit $lrc, capture $crc, read back $brc" \
			"$(tail -n 5 "$T/live")" "$(tail -n 5 "$T/cap.err")" "$(tail -n 5 "$T/back")"
	fi
	exit 0
fi

[ "$(id -u)" = 0 ] || skip_all "needs root (debootstrap, podman's storage)"
command -v podman >/dev/null || skip_all "podman is not installed (apt-get install podman)"
command -v debootstrap >/dev/null || skip_all "debootstrap is not installed (apt-get install debootstrap)"
command -v unshare >/dev/null || skip_all "unshare (util-linux) is missing"
need "$top/build/scenarios/$scen.tar.gz"
mkdir -p "$CACHE" || skip_all "cannot make $CACHE"
podman --root "$CACHE/storage" --runroot "$CACHE/runroot" version > "$T/pv" 2>&1 ||
	skip_all "podman does not run here: $(tail -n 1 "$T/pv")"
# The rest in a mount namespace of its own (a new run of this script, with
# its own temporary folder), so that what it unmounts stays there.
unshare -m -- "$0" --inside
