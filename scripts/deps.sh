#!/bin/sh
# Debian 12 packages fabtop needs. `run`: to build and start; `check`: also to
# test; `shots`: to build and take the screenshots; `bench`: to build and run
# `make bench`. Installs what is missing
# when root; otherwise prints the exact apt-get line and fails.
# Each external command the Makefile, scripts/, tests/ and bench/ run comes
# from a package below, or from an Essential one every Debian has (coreutils,
# util-linux: setpriv unshare; diffutils, findutils, grep, sed, mawk, tar,
# gzip, hostname, dpkg, bash/dash) — scripts/fresh-debian12.sh checks that
# on a bare debootstrap root.
set -u
mode=${1:-run}
# make gcc pkg-config and the -dev libraries: the build; gettext (xgettext,
# msgcat, msgfmt): the interface's catalogs (po/); scdoc: the manual page
# (docs/fabtop.1.scd); python3 and hwloc
# (lstopo-no-graphics): tests/scenarios/mkscenarios.py, which generates the
# bundled scenarios (json, xml.etree: python3, not python3-minimal).
BUILD="make gcc pkg-config python3 hwloc gettext scdoc libncurses-dev libnl-3-dev libnl-route-3-dev libhwloc-dev libpci-dev pciutils libibverbs-dev libjansson-dev libarchive-dev"
# libcmocka-dev: unit tests; jq: JSON checks; procps: pgrep pkill ps sysctl
# (and top for bench/tui-cpu); iproute2: ip netns; tmux: terminal tests;
# nftables: the path MTU tests' black holes; perftest: layer 3 against the
# real ib_write_bw; iputils-tracepath iputils-ping: bench/mtu;
# clang libclang-rt-14-dev: make fuzz; ethtool: bench/ethtool's `ethtool -S`
# (what scripts run) and tests/counters/t_ethtool_veth.sh's comparison;
# strace: tests/hazard/t_hazard.sh proves a SW_MNG function's counter files
# are never opened; munge slurmctld slurmd slurm-client: tests/slurm/t_slurm.sh
# starts a one-node Slurm (munged, slurmctld, slurmd; sbatch srun scontrol
# sinfo squeue scancel) and runs deploy/slurm/ on it; prometheus (promtool):
# tests/metrics/ check the exposition (promtool check metrics) and the alert
# rules (promtool check rules, promtool test rules); prometheus-node-exporter:
# tests/metrics/ scrape fabtop's textfile through a real node_exporter, and
# bench/metrics runs its InfiniBand collector on the same tree (curl scrapes
# both, as Prometheus would); time: GNU
# time's peak RSS in bench/analyze-log and bench/fleet; podman debootstrap:
# tests/k8s/t_image.sh builds the container image (deploy/container); nodejs
# npm: tests/k8s/t_manifests.sh validates deploy/k8s with the npm packages
# its lock pins; man-db bash-completion zsh: tests/install/t_install.sh
# renders the manual page (man -l) and drives both shells' completion;
# dpkg-dev debhelper lintian: tests/install/t_deb.sh builds the Debian
# package (dpkg-buildpackage) and runs lintian on it.
TEST="libcmocka-dev jq procps iproute2 tmux nftables perftest iputils-tracepath iputils-ping clang libclang-rt-14-dev ethtool strace munge slurmctld slurmd slurm-client prometheus prometheus-node-exporter curl time podman debootstrap nodejs npm man-db bash-completion zsh dpkg-dev debhelper lintian"
# htop: bench/startup times its first screen beside fabtop's, both in tmux;
# time: bench/fleet's peak RSS (`make bench` installs this list with BUILD).
BENCH="htop tmux time"
SHOTS="tmux xvfb xterm imagemagick x11-utils fonts-dejavu-core fonts-wqy-zenhei"
want=$BUILD
[ "$mode" = check ] && want="$BUILD $TEST"
[ "$mode" = shots ] && want="$BUILD $SHOTS"
[ "$mode" = bench ] && want="$BUILD $BENCH"
missing=""
for p in $want; do
	# A nodejs that brings its own npm (NodeSource's) conflicts with Debian's npm.
	[ "$p" = npm ] && command -v npm >/dev/null && continue
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "fabtop: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null || {
		echo "fabtop: apt-get install failed for:$missing" >&2; exit 1; }
else
	echo "fabtop: missing packages; run as root:" >&2
	echo "  apt-get install -y$missing" >&2
	exit 1
fi
