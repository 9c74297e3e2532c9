#!/bin/sh
# `make install` into a temporary DESTDIR, as a packager runs it: every file
# lands where it belongs (binary, scenarios with their index and its
# translation, manual page, bash and zsh completion, catalogs); the manual
# page renders with man -l; the installed binary finds its scenarios and its
# Chinese catalog beside itself; bash and zsh complete the subcommands and
# the values fabtop lists (scenarios, exercises); `make uninstall` leaves
# nothing behind.
NAME=install; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$top" || exit 1
D=$T/root
P=/usr
if ! make --no-print-directory -s install DESTDIR="$D" PREFIX=$P >"$T/make.out" 2>&1; then
	nok "make install DESTDIR=... PREFIX=/usr" "$(tail -n 20 "$T/make.out")"
	exit 0
fi
ok "make install DESTDIR=... PREFIX=/usr"
missing=""
for f in bin/fabtop share/man/man1/fabtop.1 share/bash-completion/completions/fabtop \
	share/zsh/vendor-completions/_fabtop share/locale/zh_CN/LC_MESSAGES/fabtop.mo \
	share/fabtop/scenarios/index share/fabtop/scenarios/hang.tar.gz; do
	[ -f "$D$P/$f" ] || missing="$missing $f"
done
n=$(grep -vc '^#' build/scenarios/index)
m=$(ls "$D$P/share/fabtop/scenarios/"*.tar.gz 2>/dev/null | wc -l)
if [ -z "$missing" ] && [ "$n" = "$m" ]; then
	ok "install: binary, $m scenarios, index, manual page, completions, catalog"
else
	nok "install: files missing:$missing (scenarios $m of $n)"
fi

# The manual page renders, and says what it documents.
if command -v man >/dev/null; then
	MANWIDTH=80 man -l "$D$P/share/man/man1/fabtop.1" >"$T/man.txt" 2>"$T/man.err"
	if [ $? -eq 0 ] && grep -q '^NAME' "$T/man.txt" && grep -q 'fabtop - diagnostics console' "$T/man.txt" &&
	   ! grep -q 'warning' "$T/man.err"; then
		ok "man -l renders fabtop(1)"
	else
		nok "man -l renders fabtop(1)" "$(head -n 5 "$T/man.err")" "$(head -n 5 "$T/man.txt")"
	fi
else
	ok "man -l renders fabtop(1) # SKIP man is not installed (man-db: make check-deps)"
fi

# The installed binary finds what was installed with it.
out=$(env -u FABTOP_SCENARIOS -u FABTOP_LOCALEDIR "$D$P/bin/fabtop" demo 2>&1)
case $out in
*"$D$P/share/fabtop/scenarios"*hang*) ok "installed fabtop lists the installed scenarios" ;;
*) nok "installed fabtop lists the installed scenarios" "$out" ;;
esac
out=$(env -u FABTOP_SCENARIOS -u FABTOP_LOCALEDIR "$D$P/bin/fabtop" --lang zh_CN demo 2>&1 | head -n 1)
case $out in
内置场景*) ok "installed fabtop finds its zh_CN catalog" ;;
*) nok "installed fabtop finds its zh_CN catalog" "$out" ;;
esac

# bash: the completion function offers the subcommands, the report
# sections, and the scenario and exercise names the installed fabtop lists.
mkdir -p "$T/bin" && ln -s "$D$P/bin/fabtop" "$T/bin/fabtop"
if command -v bash >/dev/null; then
	cat >"$T/bc.sh" <<'EOS'
[ -f /usr/share/bash-completion/bash_completion ] && . /usr/share/bash-completion/bash_completion
. "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
_fabtop fabtop "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
EOS
	bc() { PATH="$T/bin:$PATH" bash "$T/bc.sh" "$D$P/share/bash-completion/completions/fabtop" "$@"; }
	got=$(bc fabtop "" | tr '\n' ' ')
	want="report capture wizard analyze-log diff fleet demo learn "
	[ "$got" = "$want" ] && ok "bash completion: the subcommands" || nok "bash completion: the subcommands" "got: $got" "want: $want"
	got=$(bc fabtop report "" | tr '\n' ' ')
	[ "$got" = "topo links counters job metrics all " ] && ok "bash completion: report's sections" ||
		nok "bash completion: report's sections" "got: $got"
	got=$(bc fabtop demo "" | tr '\n' ' ')
	want=$(grep -v '^#' build/scenarios/index | cut -f1 | tr '\n' ' ')
	[ -n "$got" ] && [ "$got" = "$want" ] && ok "bash completion: demo offers the $n scenarios" ||
		nok "bash completion: demo offers the scenarios" "got: $got" "want: $want"
	got=$(bc fabtop learn "" | wc -w)
	want=$("$D$P/bin/fabtop" learn --list 2>/dev/null | awk '$1 ~ /^[0-9]+$/' | wc -l)
	[ "$got" -ge 8 ] && [ "$got" = "$want" ] && ok "bash completion: learn offers the $got exercises" ||
		nok "bash completion: learn offers the exercises (got $got, learn --list has $want)"
	got=$(bc fabtop --l | tr '\n' ' ')
	[ "$got" = "--lang " ] && ok "bash completion: a global option" || nok "bash completion: a global option" "got: $got"
fi

# zsh: an interactive zsh in a pseudo-terminal (zpty) completes `fabtop `
# and `fabtop demo ` with the installed _fabtop on its fpath.
if command -v zsh >/dev/null; then
	cat >"$T/zt.zsh" <<'EOS'
zmodload zsh/zpty
zpty -b z zsh -f -i
zpty -w z "PS1='>'; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no; LISTMAX=1000; PATH=$3:\$PATH"
zpty -w z "echo READY"
zpty -r z line '*READY*'
zpty -r z line '*READY*'
zpty -n -w z "$2"$'\t'
sleep 1
zpty -w z $'\C-c'
zpty -w z "echo DONE"
out=""
while zpty -r -t z line; do out+=$line; done
sleep 0.5
while zpty -r -t z line; do out+=$line; done
print -r -- "$out" | tr -d '\r' | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g'
zpty -d z
EOS
	timeout 30 zsh -f "$T/zt.zsh" "$D$P/share/zsh/vendor-completions" "fabtop " "$T/bin" >"$T/z1.out" 2>&1
	bad=""
	for c in report capture wizard analyze-log diff fleet demo learn; do
		grep -q "$c *-- " "$T/z1.out" || bad="$bad $c"
	done
	[ -z "$bad" ] && ok "zsh completion: the subcommands with their descriptions" ||
		nok "zsh completion: subcommands missing:$bad" "$(tail -n 12 "$T/z1.out")"
	timeout 30 zsh -f "$T/zt.zsh" "$D$P/share/zsh/vendor-completions" "fabtop demo " "$T/bin" >"$T/z2.out" 2>&1
	grep -q "roce-faults-pod" "$T/z2.out" && grep -q "lossless-mismatch" "$T/z2.out" &&
		ok "zsh completion: demo offers the scenarios" ||
		nok "zsh completion: demo offers the scenarios" "$(tail -n 12 "$T/z2.out")"
else
	ok "zsh completion # SKIP zsh is not installed (make check-deps)"
fi

# uninstall leaves no file behind.
if make --no-print-directory -s uninstall DESTDIR="$D" PREFIX=$P >"$T/un.out" 2>&1; then
	left=$(find "$D" -type f | sed "s|^$D||")
	[ -z "$left" ] && ok "make uninstall removes every installed file" ||
		nok "make uninstall removes every installed file" "$left"
else
	nok "make uninstall" "$(tail -n 10 "$T/un.out")"
fi
