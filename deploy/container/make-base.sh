#!/bin/sh
# Makes the base image deploy/container/Containerfile builds on, from Debian
# 12 packages only: no image registry is reachable from our machines, so the
# root comes from `debootstrap --variant=minbase bookworm` against the mirror
# this machine's apt uses, and `podman import` turns it into a local image.
#
# usage (as root): deploy/container/make-base.sh [IMAGE]
#   IMAGE            the image to make (default localhost/fabtop-base:bookworm)
#   MIRROR=URL       the Debian mirror (default: the one this machine's apt uses)
#   BASE_CACHE=DIR   keep debootstrap's .debs in DIR/debootstrap, and the
#                    finished root as DIR/bookworm-minbase.tar: a later run
#                    imports that tarball again without debootstrap (delete it
#                    to take the mirror's newer packages)
#   PODMAN="podman …" the podman command, with any global options
#                    (--root, --storage-driver …); default `podman`
# Exit status: 0 made, 2 could not (the reason on stderr).
set -u
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
IMAGE=${1:-localhost/fabtop-base:bookworm}
PODMAN=${PODMAN:-podman}

say() { printf 'make-base: %s\n' "$*" >&2; }
die() { printf 'make-base: %s\n' "$*" >&2; exit 2; }

TOP=$(cd "$(dirname "$0")/../.." && pwd) || die "cannot find the source tree"
. "$TOP/scripts/apt-uri.sh"

[ "$(id -u)" = 0 ] || die "needs root (debootstrap makes device nodes and chroots)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install debootstrap)"
# shellcheck disable=SC2086
$PODMAN version >/dev/null 2>&1 || die "podman does not run: $($PODMAN version 2>&1 | tail -n 1)"

tarball=""
if [ -n "${BASE_CACHE:-}" ]; then
	mkdir -p "$BASE_CACHE/debootstrap" || die "cannot make $BASE_CACHE/debootstrap"
	BASE_CACHE=$(cd "$BASE_CACHE" && pwd)
	tarball=$BASE_CACHE/bookworm-minbase.tar
fi

R=""
cleanup() {
	[ -n "$R" ] && rm -rf "$R"
	[ -n "$tarball" ] && rm -f "$tarball.part"
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

if [ -z "$tarball" ] || [ ! -s "$tarball" ]; then
	MIRROR=${MIRROR:-$(apt_uri bookworm | head -n 1)}
	[ -n "$MIRROR" ] || die "found no bookworm mirror in /etc/apt/sources.list*; set MIRROR=URL"
	R=$(mktemp -d /var/tmp/fabtop-base.XXXXXX) || die "mktemp failed"
	chmod 755 "$R"
	cache=""
	[ -n "$tarball" ] && cache="--cache-dir=$BASE_CACHE/debootstrap"
	say "debootstrap --variant=minbase bookworm from $MIRROR"
	# shellcheck disable=SC2086
	debootstrap --variant=minbase $cache bookworm "$R" "$MIRROR" >"$R.log" 2>&1 || {
		tail -n 20 "$R.log" >&2; rm -f "$R.log"; die "debootstrap failed (log above)"; }
	rm -f "$R.log"
	apt_sources_list "$MIRROR" > "$R/etc/apt/sources.list" || die "cannot write sources.list"
	# An image carries no downloaded packages, package lists or this
	# machine's resolver and hostname: the container runtime supplies those.
	rm -rf "$R"/var/cache/apt/archives/*.deb "$R"/var/lib/apt/lists/* "$R"/tmp/* "$R"/var/tmp/*
	: > "$R/etc/resolv.conf"
	: > "$R/etc/hostname"
	# Installs in the image take no suggested or recommended extras.
	printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' \
		> "$R/etc/apt/apt.conf.d/90fabtop-no-recommends"
	if [ -n "$tarball" ]; then
		tar -C "$R" --numeric-owner -cf "$tarball.part" . && mv "$tarball.part" "$tarball" ||
			die "cannot write $tarball"
	fi
fi

say "podman import -> $IMAGE"
# --change: what `podman run IMAGE` runs when given nothing, as a Debian image does.
if [ -n "$tarball" ]; then
	# shellcheck disable=SC2086
	$PODMAN import -q --change 'CMD ["/bin/bash"]' "$tarball" "$IMAGE" >/dev/null
else
	# shellcheck disable=SC2086
	tar -C "$R" --numeric-owner -cf - . | $PODMAN import -q --change 'CMD ["/bin/bash"]' - "$IMAGE" >/dev/null
fi || die "podman import failed"
say "made $IMAGE"
