#!/bin/sh
# run.sh: background
# The Debian package built from the tree as a Debian developer builds it
# (dpkg-buildpackage -b with the debian/ directory, the hardening flags of
# dpkg-buildflags), in a copy of the checkout's files: it builds, it holds
# the binary, scenarios, manual page, completions and catalog under /usr,
# and lintian finds no error in it.
NAME=deb; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
for t in dpkg-buildpackage dh lintian; do
	command -v $t >/dev/null || { ok "Debian package # SKIP $t is not installed (make check-deps)"; exit 0; }
done
src=$T/fabtop-0.1.0
mkdir -p "$src"
# The checkout's files as they are (tracked and new, not ignored; a tree
# that is no git checkout: all but build/): nothing built is carried over.
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	( cd "$top" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - ) | tar -C "$src" -xf -
else
	tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$src" -xf -
fi
if ! ( cd "$src" && dpkg-buildpackage -us -uc -b ) >"$T/build.log" 2>&1; then
	nok "dpkg-buildpackage -us -uc -b" "$(tail -n 25 "$T/build.log")"
	exit 0
fi
deb=$(ls "$T"/fabtop_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] && ok "dpkg-buildpackage -us -uc -b builds $(basename "$deb")" ||
	{ nok "dpkg-buildpackage made no .deb" "$(ls "$T")"; exit 0; }
dpkg-deb -c "$deb" | awk '{ print $NF }' >"$T/files"
missing=""
for f in ./usr/bin/fabtop ./usr/share/man/man1/fabtop.1.gz ./usr/share/bash-completion/completions/fabtop \
	./usr/share/zsh/vendor-completions/_fabtop ./usr/share/locale/zh_CN/LC_MESSAGES/fabtop.mo \
	./usr/share/fabtop/scenarios/index ./usr/share/fabtop/scenarios/hang.tar.gz ./usr/share/doc/fabtop/copyright; do
	grep -qxF "$f" "$T/files" || missing="$missing $f"
done
[ -z "$missing" ] && ok "the package holds the binary, manual page, completions, catalog and scenarios" ||
	nok "the package lacks:$missing"
# The packaged binary was built for /usr: it finds its scenarios there.
mkdir -p "$T/x" && dpkg-deb -x "$deb" "$T/x"
strings "$T/x/usr/bin/fabtop" | grep -qx '/usr/share/fabtop/scenarios' &&
	ok "the packaged binary looks in /usr/share/fabtop" || nok "the packaged binary's data directory is not /usr/share/fabtop"
changes=$(ls "$T"/fabtop_*.changes | head -n 1)
lintian --fail-on error --tag-display-limit 0 --display-info "$changes" >"$T/lintian.out" 2>&1
rc=$?
[ -n "${FABTOP_KEEP_LINTIAN:-}" ] && cp "$T/lintian.out" "$FABTOP_KEEP_LINTIAN"
# A lintian that checks nothing proves nothing: the same lintian on a
# package without a copyright file must say so.
mkdir -p "$T/bad/DEBIAN" "$T/bad/usr/bin" && echo x >"$T/bad/usr/bin/bad"
printf 'Package: bad\nVersion: 1\nArchitecture: all\nMaintainer: x <x@example.org>\nDescription: a test\n' \
	>"$T/bad/DEBIAN/control"
dpkg-deb -b "$T/bad" "$T/bad.deb" >/dev/null 2>&1
if ! lintian "$T/bad.deb" 2>&1 | grep -q 'E: bad: no-copyright-file'; then
	nok "lintian finds the errors of a broken package" "$(lintian "$T/bad.deb" 2>&1 | head -n 5)"
elif [ $rc -eq 0 ] && ! grep -q '^E: ' "$T/lintian.out"; then
	ok "lintian: no error ($(grep -c '^W: ' "$T/lintian.out") warnings, $(grep -c '^I: ' "$T/lintian.out") notes)"
else
	nok "lintian finds errors (rc $rc)" "$(grep -E '^(E|W): ' "$T/lintian.out" | head -n 20)"
fi
