#!/bin/sh
# What `make run` starts after building: fabtop on this node when it has an
# HCA, the bundled `hang` demo when it has none (a node with a problem to
# find: its banner says L learns it, D switches scenario), and the
# plain-text report when there is no terminal to draw on.
bin=${1:-build/fabtop}
if [ ! -x "$bin" ]; then
	echo "start.sh: $bin is not built (run make)" >&2
	exit 2
fi
if [ ! -t 0 ] || [ ! -t 1 ]; then
	exec "$bin" report all
fi
if [ -n "$(ls -A /sys/class/infiniband 2>/dev/null)" ]; then
	exec "$bin"
fi
exec "$bin" demo hang
