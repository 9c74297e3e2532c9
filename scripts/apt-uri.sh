# Sourced (POSIX sh): apt_uri SUITE prints the first URI this machine's apt
# fetches SUITE's main component from, reading the one-line (.list) and the
# deb822 (.sources) formats of /etc/apt/sources.list*. Used by
# scripts/fresh-debian12.sh and deploy/container/make-base.sh, so both
# debootstrap from the mirror the machine already trusts.
apt_uri() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed 's/\[[^]]*\]//' "$f" | awk -v s="$1" '
			$1 == "deb" && $3 == s { for (i = 4; i <= NF; i++) if ($i == "main") { print $2; exit } }'
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v s="$1" '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " s " ") &&
				    (" " comps " ") ~ / main / && enabled != "no")
					{ split(uris, u, " "); print u[1]; found = 1; exit }
				types = uris = suites = comps = ""; enabled = "yes"
			}
			/^#/ { next }
			/^[ \t]*$/ { flush(); next }
			{ k = $1; $1 = ""; sub(/^ /, "") }
			k == "Types:" { types = $0 } k == "URIs:" { uris = $0 }
			k == "Suites:" { suites = $0 } k == "Components:" { comps = $0 }
			k == "Enabled:" { enabled = $0 }
			END { if (!found) flush() }' "$f"
	done
}

# apt_sources_list MIRROR: the sources.list of a Debian 12 root: bookworm
# from MIRROR, and its updates and security suites as this machine's apt
# names them (a machine's apt gets them too).
apt_sources_list() {
	echo "deb $1 bookworm main"
	_u=$(apt_uri bookworm-updates | head -n 1); [ -n "$_u" ] && echo "deb $_u bookworm-updates main"
	_u=$(apt_uri bookworm-security | head -n 1); [ -n "$_u" ] && echo "deb $_u bookworm-security main"
	:
}
