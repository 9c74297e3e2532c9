#!/bin/sh
# `report metrics -o FILE` for node_exporter's textfile collector: the file
# appears whole or not at all (a temporary file beside it, fsync'ed, then
# renamed; strace shows the order and that the temporary name never ends
# in .prom, the only files the collector reads); a second run replaces it;
# it is readable by another user (node_exporter's); a planted symbolic
# link at the path (to a victim file, or to nothing) is refused and the
# victim stays as it was; a directory is refused; the exit status is the
# verdict, and an unknown verdict still writes the file.
NAME=metricsout; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
SC=$top/build/scenarios
need "$SC/pinned" "$SC/dgx-h100" "$SC/ib-8port.tar.gz"
umask 022   # the mode node_exporter needs to read what this user writes
D=$T/textfile
mkdir "$D"

# ---- written, replaced, readable ----
"$bin" --root "$SC/pinned" report metrics -o "$D/fabtop.prom" 2> "$T/err"; rc=$?
first=$(grep -c '^fabtop_' "$D/fabtop.prom" 2>/dev/null)
mode=$(stat -c %a "$D/fabtop.prom" 2>/dev/null)
"$bin" --root "$SC/dgx-h100" report metrics -o "$D/fabtop.prom" 2>> "$T/err"; rc2=$?
if [ $rc -eq 1 ] && [ $rc2 -eq 0 ] && [ "${first:-0}" -gt 100 ] &&
   grep -q '^fabtop_verdict{verdict="ok"} 1$' "$D/fabtop.prom" &&
   [ "$(ls -A "$D")" = fabtop.prom ] && [ "${mode#6}" != "$mode" ] && [ "${mode%4}" != "$mode" ]; then
	ok "-o: written (exit 1: pinned's verdict), replaced by the next run (exit 0), mode $mode, nothing else left"
else
	nok "-o: written, replaced, readable, nothing left beside it" "exit $rc then $rc2, $first samples, mode $mode" \
		"$(ls -la "$D")" "$(cat "$T/err")"
fi

# ---- the order: temporary .part, fsync, rename onto FILE.prom ----
if command -v strace >/dev/null; then
	strace -f -o "$T/st" -e trace=openat,open,creat,fsync,fdatasync,rename,renameat,renameat2,link,write \
		"$bin" --root "$SC/dgx-h100" report metrics -o "$D/fabtop.prom" > /dev/null 2>&1
	if r=$(python3 - "$T/st" "$D" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
d = sys.argv[2]
created = [m.group(1) for l in lines for m in [re.search(r'open(?:at)?\(.*?"(' + re.escape(d) + r'/[^"]*)".*O_CREAT', l)] if m]
if not created:
    print("no file created in the textfile directory"); sys.exit(1)
bad = [c for c in created if c.endswith(".prom")]
if bad:
    print("created under a .prom name (node_exporter would read it half-written): %s" % bad); sys.exit(1)
tmp = created[0]
i_sync = next((i for i, l in enumerate(lines) if re.search(r'\bf(data)?sync\(', l)), None)
i_ren = next((i for i, l in enumerate(lines) if re.search(r'rename(at2?)?\(.*"' + re.escape(tmp) + r'".*"' + re.escape(d) + r'/fabtop\.prom"', l)), None)
if i_sync is None or i_ren is None or i_sync > i_ren:
    print("fsync at %s, rename %s -> fabtop.prom at %s" % (i_sync, tmp, i_ren)); sys.exit(1)
print("ok %s" % tmp.rsplit("/", 1)[1])
PY
	) && [ "${r%% *}" = ok ]; then
		ok "-o: the document goes to ${r#ok } (not *.prom), is fsync'ed, then renamed onto fabtop.prom"
	else
		nok "-o: temporary file, fsync, then rename" "$r" "$(grep -E 'textfile' "$T/st" | head -12)"
	fi
else
	echo "ok - -o: temporary file, fsync, then rename # SKIP strace is not installed"
fi

# ---- planted links, a directory ----
echo "victim" > "$T/victim"
ln -s "$T/victim" "$D/link.prom"
"$bin" --root "$SC/dgx-h100" report metrics -o "$D/link.prom" > "$T/out" 2> "$T/err"; rc=$?
if [ $rc -eq 2 ] && [ "$(cat "$T/victim")" = victim ] && [ -L "$D/link.prom" ] &&
   grep -q "symbolic link" "$T/err" && [ ! -s "$T/out" ] && [ -z "$(ls "$D" | grep -v '^fabtop.prom$\|^link.prom$')" ]; then
	ok "-o onto a planted link to a file: refused (exit 2), the victim unchanged, the link left, nothing created"
else
	nok "-o onto a planted link to a file: refused" "exit $rc" "$(cat "$T/err")" "victim: $(cat "$T/victim")" "$(ls -la "$D")"
fi
ln -s "$T/nowhere.prom" "$D/dangling.prom"
"$bin" --root "$SC/dgx-h100" report metrics -o "$D/dangling.prom" > /dev/null 2> "$T/err"; rc=$?
if [ $rc -eq 2 ] && [ ! -e "$T/nowhere.prom" ] && grep -q "symbolic link" "$T/err"; then
	ok "-o onto a dangling link: refused, nothing created where it points"
else
	nok "-o onto a dangling link: refused" "exit $rc" "$(cat "$T/err")" "$(ls -la "$T")"
fi
mkdir "$D/dir.prom"
"$bin" --root "$SC/dgx-h100" report metrics -o "$D/dir.prom" > /dev/null 2> "$T/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "is a directory" "$T/err" && [ -z "$(ls -A "$D/dir.prom")" ]; then
	ok "-o onto a directory: refused, nothing written into it"
else
	nok "-o onto a directory: refused" "exit $rc" "$(cat "$T/err")"
fi

# ---- unknown verdict: exit 2, the file still written and saying why ----
sz=$(stat -c %s "$SC/ib-8port.tar.gz")
head -c $((sz / 2)) "$SC/ib-8port.tar.gz" > "$T/cut.tar.gz"
"$bin" --root "$T/cut.tar.gz" report metrics -o "$D/cut.prom" 2> "$T/err"; rc=$?
if [ $rc -eq 2 ] && grep -q '^fabtop_verdict{verdict="unknown"} 1$' "$D/cut.prom" &&
   grep -q '^# fabtop: verdict unknown' "$D/cut.prom"; then
	ok "-o with an unknown verdict: exit 2, the file written, saying why"
else
	nok "-o with an unknown verdict: exit 2, the file written" "exit $rc" "$(cat "$T/err")" "$(grep '^# fabtop' "$D/cut.prom" 2>&1 | head -3)"
fi
