#!/bin/sh
# Debian packages fabtop needs. `run`: to build and start; `check`: also to test.
# Installs what is missing when root; otherwise prints the exact apt-get line.
set -u
mode=${1:-run}
BUILD="make gcc pkg-config libncurses-dev libnl-3-dev libnl-route-3-dev libhwloc-dev hwloc libpci-dev pciutils libibverbs-dev libjansson-dev libarchive-dev"
TEST="libcmocka-dev tmux iproute2 python3 clang libclang-rt-14-dev nftables iputils-tracepath iputils-ping perftest"
SHOTS="tmux xvfb xterm imagemagick x11-utils fonts-dejavu-core"
want=$BUILD
[ "$mode" = check ] && want="$BUILD $TEST"
[ "$mode" = shots ] && want="$BUILD $SHOTS"
missing=""
for p in $want; do
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
