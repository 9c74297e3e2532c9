#!/bin/sh
# The fresh-machine run: builds a minimal Debian 12 root with
# `debootstrap --variant=buildd bookworm`, puts a clean clone of this
# repository at REV (default HEAD) in /root/fabtop there, and runs the
# README's two commands in it as root, in a chroot, with no terminal and a
# bare environment: `make run` (start.sh prints the report when there is no
# terminal), then `make check`. Prints the stages, then the last lines of the
# log. Exit status: make check's, or 2 when the root could not be made.
# Not part of `make check`: it downloads some hundred MB and takes minutes.
#
# usage (as root): scripts/fresh-debian12.sh [REV]
#   FRESH_DIR=DIR    build the root in DIR (default: a new /var/tmp/fabtop-fresh.XXXXXX)
#   FRESH_KEEP=1     keep the root afterwards (default: removed)
#   FRESH_CACHE=DIR  keep downloaded .debs in DIR across runs (debootstrap's and
#                    apt's inside the root); the root itself is new every time
#   FRESH_TAIL=N     lines of the log printed at the end (default 25)
#   MIRROR=URL       the Debian mirror (default: the one this machine's apt uses)
#
# The mounts the chroot needs (the root bound on itself, /proc, /sys, /dev
# with /dev/pts and /dev/shm, a tmpfs on /run for `ip netns`) are made in a
# mount namespace of this run's own (unshare -m), so they go with it however
# it ends, and so do those the tests make; a trap unmounts them as well,
# kills what the run left running in the root (and says so: the tests must
# leave nothing), and refuses to remove a root with anything mounted under it.
set -u
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

say() { printf 'fresh: %s\n' "$*"; }
die() { printf 'fresh: %s\n' "$*" >&2; exit 2; }

# mounted_under DIR: the mount points at or under DIR in this mount namespace.
mounted_under() {
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo
}

# The second half, run by the first inside `unshare -m`: mount, chroot, run.
if [ "${1:-}" = --inside ]; then
	R=$2
	undo() {
		for m in $(mounted_under "$R" | sort -r); do umount -l "$m" 2>/dev/null; done
	}
	trap undo EXIT
	trap 'exit 1' INT TERM HUP
	mount --make-rprivate / || exit 2
	# The root a mount point of its own, as on a machine: `ip netns exec`
	# makes / a slave mount ("mount --make-rslave /"), which a plain
	# directory refuses (EINVAL).
	mount --bind "$R" "$R" &&
	mount -t proc proc "$R/proc" &&
	mount -t sysfs sysfs "$R/sys" &&
	mount --rbind /dev "$R/dev" &&
	mount -t tmpfs -o mode=0755 tmpfs "$R/run" || exit 2
	[ -d "$R/dev/pts" ] && [ -e "$R/dev/pts/ptmx" ] || { echo "fresh: no /dev/pts in the root" >&2; exit 2; }
	if [ -n "${FRESH_CACHE:-}" ]; then
		mkdir -p "$FRESH_CACHE/apt" &&
		mount --bind "$FRESH_CACHE/apt" "$R/var/cache/apt/archives" || exit 2
	fi
	# As a person on the new machine would: root, a login's bare environment,
	# no terminal (stdin /dev/null), the README's commands in the clone.
	chroot "$R" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/sh \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -c '
		cd /root/fabtop || exit 2
		now() { date +%s; }
		t0=$(now)
		echo "fresh: --- make run (no terminal)"
		make run; rc=$?
		echo "fresh: make run: exit $rc in $(( $(now) - t0 )) s"
		t0=$(now)
		echo "fresh: --- make check"
		make check; rc=$?
		echo "fresh: make check: exit $rc in $(( $(now) - t0 )) s"
		exit $rc' </dev/null
	exit $?
fi

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, mounts, chroot)"
REV=${1:-HEAD}
SRC=$(cd "$(dirname "$0")/.." && git rev-parse --show-toplevel) || die "not in a git checkout"
SHA=$(git -C "$SRC" rev-parse --verify -q "$REV^{commit}") || die "no commit $REV in $SRC"

. "$SRC/scripts/apt-uri.sh"
MIRROR=${MIRROR:-$(apt_uri bookworm | head -n 1)}
[ -n "$MIRROR" ] || die "found no bookworm mirror in /etc/apt/sources.list*; set MIRROR=URL"

if ! command -v debootstrap >/dev/null; then
	say "installing debootstrap"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
		die "apt-get install debootstrap failed"
fi

if [ -n "${FRESH_DIR:-}" ]; then
	[ -e "$FRESH_DIR" ] && [ -n "$(ls -A "$FRESH_DIR" 2>/dev/null)" ] && die "$FRESH_DIR is not empty"
	mkdir -p "$FRESH_DIR" || die "cannot make $FRESH_DIR"
	R=$(cd "$FRESH_DIR" && pwd)
else
	R=$(mktemp -d /var/tmp/fabtop-fresh.XXXXXX) || die "mktemp failed"
fi
# / of a machine is 0755: mktemp's 0700 would stop every test run as nobody.
chmod 755 "$R" || die "cannot chmod $R"
LOG=$R.log
: > "$LOG" || die "cannot write $LOG"

finish() {
	rc=$?
	trap - EXIT INT TERM HUP
	# What still runs with the root as its root was left behind by the run.
	left=""
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$R" ] || continue
		left="$left ${p#/proc/}"
	done
	if [ -n "$left" ]; then
		say "left running in the root (killed):"
		for p in $left; do printf '  %s %s\n' "$p" "$(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | cut -c1-100)"; done
		for p in $left; do kill -KILL "$p" 2>/dev/null; done
		sleep 1
	fi
	for m in $(mounted_under "$R" | sort -r); do umount -l "$m" 2>/dev/null; done
	if [ -n "$(mounted_under "$R")" ]; then
		say "still mounted under $R, not removed:"; mounted_under "$R"
	elif [ "${FRESH_KEEP:-}" = 1 ]; then
		say "root kept in $R"
	else
		rm -rf "$R"
	fi
	say "log: $LOG"
	exit $rc
}
trap finish EXIT
trap 'exit 1' INT TERM HUP

START=$(date +%s)
elapsed() { echo "$(( $(date +%s) - START )) s"; }
say "commit $SHA ($REV) of $SRC"
say "root $R, mirror $MIRROR, log $LOG"

say "debootstrap --variant=buildd bookworm"
cache=""
if [ -n "${FRESH_CACHE:-}" ]; then
	mkdir -p "$FRESH_CACHE/debootstrap" && cache="--cache-dir=$(cd "$FRESH_CACHE/debootstrap" && pwd)"
fi
# shellcheck disable=SC2086
debootstrap --variant=buildd $cache bookworm "$R" "$MIRROR" >>"$LOG" 2>&1 || {
	tail -n 20 "$LOG"; die "debootstrap failed (log above)"; }
say "debootstrap done at $(elapsed)"

apt_sources_list "$MIRROR" > "$R/etc/apt/sources.list"
cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null

# A clean clone at the commit: no build output, nothing untracked.
git clone -q --no-checkout "$SRC" "$R/root/fabtop" >>"$LOG" 2>&1 &&
git -C "$R/root/fabtop" -c advice.detachedHead=false checkout -q "$SHA" >>"$LOG" 2>&1 ||
	die "cannot clone $SHA into the root"

say "running make run, then make check, in the chroot (log: $LOG)"
unshare --mount -- "$0" --inside "$R" >>"$LOG" 2>&1
rc=$?
say "done at $(elapsed), exit $rc; the last lines:"
tail -n "${FRESH_TAIL:-25}" "$LOG"
exit $rc
