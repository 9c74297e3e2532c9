#!/bin/sh
# Batch mode does not call into the TUI (issue 11): the wizard's engine,
# its steps and batch mode (src/wizard*.c) include no curses, view.h or
# tui.h, and their objects reference no symbol that the TUI's objects
# (views/*.o, src/tui.o, src/view_common.o) define, except the ladder
# table's draw() column (wizard_steps.o -> the steps' drawers, named
# wizard_<step>_body), which only the pane calls. The TUI is reached only
# through the wizard_tui_fn that main hands to wizard_main().
# Reads the sanitized objects of `make tests`. Prints "ok - name" / "not ok - name".
set -u
TOP=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
O=$TOP/build/san
cd "$TOP" || exit 1

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; }

if ! command -v nm >/dev/null; then
	notok "t_batch_layers needs nm (apt-get install binutils)"
	exit 0
fi
BATCH=$(ls src/wizard*.c)
for f in $BATCH; do
	if [ ! -f "$O/${f%.c}.o" ]; then
		notok "no object $O/${f%.c}.o (make tests)"
		exit 0
	fi
done

# Every header each file reads, system ones included (the build's flags).
CFLAGS_PKG=$(pkg-config --cflags ncursesw libnl-3.0 libnl-route-3.0 hwloc libpci jansson libarchive 2>/dev/null)
for f in $BATCH; do
	# shellcheck disable=SC2086
	deps=$(cc -std=gnu11 -Iinclude -Isrc $CFLAGS_PKG -M "$f" 2>&1) || {
		notok "$f: cc -M failed: $(printf '%s' "$deps" | head -1)"
		continue
	}
	bad=$(printf '%s\n' "$deps" | tr ' \\' '\n\n' | grep -E '/n?curses\.h$|fabtop/(view|tui)\.h$')
	if [ -z "$bad" ]; then
		ok "$f includes nothing of the TUI"
	else
		notok "$f includes $(echo $bad)"
	fi
done

# What the TUI's objects define.
TUI_OBJS=$(ls "$O"/views/*.o "$O/src/tui.o" "$O/src/view_common.o" 2>/dev/null)
nm -g --defined-only $TUI_OBJS 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u > /tmp/fabtop-tui-syms.$$
trap 'rm -f /tmp/fabtop-tui-syms.$$' EXIT
if [ ! -s /tmp/fabtop-tui-syms.$$ ]; then
	notok "no TUI symbols read from $O/views (make tests)"
	exit 0
fi
for f in $BATCH; do
	obj=$O/${f%.c}.o
	used=$(nm -u "$obj" | awk '{ print $2 }' | sort -u | comm -12 - /tmp/fabtop-tui-syms.$$)
	# The ladder table names the drawers; nothing in batch mode calls them.
	[ "$f" = src/wizard_steps.c ] && used=$(printf '%s\n' "$used" | grep -vE '^wizard_[a-z0-9]+_body$')
	if [ -z "$used" ]; then
		ok "${f%.c}.o references nothing of the TUI"
	else
		notok "${f%.c}.o references the TUI's $(echo $used)"
	fi
done
