#!/bin/sh
# Where `fabtop capture -o` writes (issue 12, holes 2 and 3): nothing but
# the output path, ever. A planted OUT.part link is never written through;
# an existing file is refused unless --force, then replaced whole; a link
# to a file is refused even with --force; a FIFO is streamed into; /dev/null
# (in a private mount namespace: a tmpfs over /dev with its own null node,
# the real /dev is never touched) stays a character device. Uses the
# pcie-2numa scenario as the source. Prints "ok - name" / "not ok - name".
FABTOP=${FABTOP:-$PWD/build/san/fabtop}
FABTOP_TOP=${FABTOP_TOP:-$PWD}
SCEN=$FABTOP_TOP/build/scenarios/pcie-2numa
T=$(mktemp -d "${TMPDIR:-/tmp}/fabtop-t-capout.XXXXXX") || { echo "not ok - mktemp"; exit 0; }
READER=
cleanup() {
	[ -n "$READER" ] && kill "$READER" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$FABTOP_TOP/tests/capture/lib.sh"
# members FILE: how many members a tarball has (Python's tarfile, not our code); 0 if none.
members() { python3 -c 'import sys, tarfile; print(len(tarfile.open(sys.argv[1]).getnames()))' "$1" 2>/dev/null || echo 0; }
cap() { "$FABTOP" capture --source "$SCEN" "$@"; }

for f in "$FABTOP" "$SCEN/fabtop/meta.json"; do
	if [ ! -e "$f" ]; then
		echo "not ok - $f is missing (make tests)"
		exit 0
	fi
done
mkdir "$T/o" && cd "$T/o" || exit 0
echo "mine $$" > victim

# ---- a planted OUT.part link ------------------------------------------------
ln -s victim out.tar.gz.part
cap -o out.tar.gz > /dev/null 2> err1
rc=$?
if [ $rc -eq 0 ] && [ "$(cat victim)" = "mine $$" ] && [ -f out.tar.gz ] && [ ! -L out.tar.gz ] &&
   [ "$(members out.tar.gz)" -gt 100 ] && [ "$(readlink out.tar.gz.part)" = victim ] && ! asan err1; then
	ok "a planted OUT.part link: the file it points to is unchanged, the capture is written beside it"
else
	notok "a planted OUT.part link: the file it points to is unchanged (rc $rc, victim: $(head -c 40 victim | tr -cd '[:print:]'))" err1
fi

# ---- an existing output -----------------------------------------------------
echo precious > have.tar.gz
cap -o have.tar.gz > /dev/null 2> err2
rc=$?
if [ $rc -eq 2 ] && [ "$(cat have.tar.gz)" = precious ] && grep -q "have.tar.gz exists (give --force" err2; then
	ok "an existing output is refused without --force, and left as it was"
else
	notok "an existing output is refused without --force (rc $rc)" err2
fi
cap -o have.tar.gz --force > /dev/null 2> err3
rc=$?
if [ $rc -eq 0 ] && [ "$(members have.tar.gz)" -gt 100 ] && ! asan err3; then
	ok "--force replaces an existing output with the capture"
else
	notok "--force replaces an existing output with the capture (rc $rc)" err3
fi
ln -s victim link.tar.gz
cap -o link.tar.gz --force > /dev/null 2> err4
rc=$?
if [ $rc -eq 2 ] && [ "$(cat victim)" = "mine $$" ] && [ "$(readlink link.tar.gz)" = victim ] &&
   grep -q "is a symbolic link to a regular file" err4; then
	ok "a link to a file as the output is refused even with --force: neither written through nor replaced"
else
	notok "a link to a file as the output is refused even with --force (rc $rc)" err4
fi
mkdir adir
cap -o adir > /dev/null 2> err5
rc=$?
if [ $rc -eq 2 ] && [ -d adir ] && [ -z "$(ls adir)" ] && grep -q "adir is a directory (end -o with /" err5; then
	ok "a directory given without a trailing / is refused, with what to do"
else
	notok "a directory given without a trailing / is refused (rc $rc)" err5
fi
mkdir empty
ln -s empty dlink
cap -o dlink/ > /dev/null 2> err6
rc=$?
if [ $rc -eq 2 ] && [ -z "$(ls empty)" ] && grep -q "dlink/ is a symbolic link: refused" err6; then
	ok "a directory output that is a link is refused, nothing written where it points"
else
	notok "a directory output that is a link is refused (rc $rc)" err6
fi

# ---- streamed in place: a FIFO, standard output ---------------------------------
mkfifo fifo
# Bounded: a fabtop that replaced the FIFO instead would leave it without a writer.
timeout 60 python3 -c 'import sys, tarfile; print(len(tarfile.open(fileobj=open(sys.argv[1], "rb"), mode="r|gz").getnames()))' \
	fifo > fifo.n 2> fifo.err &
READER=$!
cap -o fifo > /dev/null 2> err7
rc=$?
wait $READER
READER=
if [ $rc -eq 0 ] && [ -p fifo ] && [ "$(cat fifo.n)" -gt 100 ] && grep -q "streamed in place" err7; then
	ok "a FIFO is written in place (its reader gets the whole tarball) and stays a FIFO"
else
	notok "a FIFO is written in place and stays a FIFO (rc $rc, members $(cat fifo.n))" err7 fifo.err
fi
cap -o - > std.tar.gz 2> err8
rc=$?
if [ $rc -eq 0 ] && [ "$(members std.tar.gz)" -gt 100 ]; then
	ok "-o - writes the capture to standard output"
else
	notok "-o - writes the capture to standard output (rc $rc)" err8
fi

left=$(ls -a | grep -E '\.part$|XXXXXX' | grep -v '^out.tar.gz.part$')
if [ -z "$left" ]; then
	ok "no temporary file left beside the outputs"
else
	notok "no temporary file left beside the outputs: $left"
fi

# ---- /dev/null, as root, in a private mount namespace ----------------------------
if [ "$(id -u)" -ne 0 ] || ! command -v unshare > /dev/null; then
	ok "-o /dev/null stays a character device # SKIP needs root and unshare (a private mount namespace)"
elif ! unshare -m --propagation private sh -c 'mount -t tmpfs none /dev && mknod -m 666 /dev/null c 1 3' \
	2> ns.err; then
	ok "-o /dev/null stays a character device # SKIP no private mount namespace here: $(head -1 ns.err)"
else
	# Inside: /dev is a tmpfs of this namespace only, with its own null node.
	unshare -m --propagation private sh -c '
		mount -t tmpfs none /dev && mknod -m 666 /dev/null c 1 3 || exit 99
		"$1" capture --source "$2" -o /dev/null > /dev/null 2> "$3/null.err"
		echo "rc=$?"
		stat -c "%F %t,%T" /dev/null
		ls -a /dev | tr "\n" " "; echo' sh "$FABTOP" "$SCEN" "$T/o" > null.out 2>&1
	if grep -q '^rc=0$' null.out && grep -q '^character special file 1,3$' null.out &&
	   grep -q '^\. \.\. null $' null.out && grep -q "streamed in place" null.err; then
		ok "-o /dev/null as root: written in place, /dev/null stays the character device, nothing beside it"
	else
		notok "-o /dev/null as root: written in place, /dev/null stays the character device" null.out null.err
	fi
fi
exit 0
