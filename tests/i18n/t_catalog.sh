#!/bin/sh
# The zh_CN catalog is complete: every string the sources mark for
# translation (_(), N_(), NC_(), P_(): xgettext over the same files as the Makefile's
# build/po/fabtop.pot) has a zh_CN entry that is translated, not fuzzy, and
# whose printf directives match the English (msgfmt --check-format); and the
# catalog holds nothing the sources no longer say (a stale entry hides a
# missing one under another spelling).
NAME=catalog; . "${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$top" || exit 1
for t in xgettext msgcat msgcmp msgattrib msgfmt; do
	command -v $t >/dev/null || { nok "catalog: $t is missing (gettext: make check-deps)"; exit 0; }
done
srcs=$(ls src/*.c src/collectors/*.c views/*.c | sort)
# shellcheck disable=SC2086
xgettext --force-po --keyword=_ --keyword=N_ --keyword=P_:1,2 --keyword=NC_:1c,2 --from-code=UTF-8 --language=C \
	-o "$T/fabtop.pot" $srcs 2>"$T/xg.err" || { nok "catalog: xgettext fails" "$(cat "$T/xg.err")"; exit 0; }
n=$(grep -c '^msgid ' "$T/fabtop.pot")
# shellcheck disable=SC2046
msgcat --force-po --use-first -o "$T/zh_CN.po" $(ls po/zh_CN/*.po | sort) 2>"$T/cat.err" ||
	{ nok "catalog: the zh_CN parts do not merge" "$(cat "$T/cat.err")"; exit 0; }
if msgcmp "$T/zh_CN.po" "$T/fabtop.pot" >"$T/cmp.out" 2>&1; then
	ok "catalog: all $((n - 1)) translatable strings have a zh_CN entry"
else
	nok "catalog: strings without a zh_CN translation ($(grep 'this message' "$T/cmp.out" | grep -vc 'not used') of $((n - 1)))" \
		"$(grep -A1 'this message' "$T/cmp.out" | head -n 40)"
fi
msgattrib --only-fuzzy --no-obsolete "$T/zh_CN.po" -o "$T/fuzzy.po" 2>/dev/null
if [ -s "$T/fuzzy.po" ] && grep -q '^msgid "[^"]' "$T/fuzzy.po"; then
	nok "catalog: fuzzy zh_CN entries" "$(grep '^msgid' "$T/fuzzy.po" | head -n 20)"
else
	ok "catalog: no fuzzy zh_CN entry"
fi
if msgfmt --check-format --check-header -o /dev/null "$T/zh_CN.po" 2>"$T/fmt.err"; then
	ok "catalog: zh_CN printf directives match the English"
else
	nok "catalog: msgfmt --check-format" "$(cat "$T/fmt.err")"
fi
# Stale: in the catalog, not in the sources.
msgcomm --force-po --less-than=2 -o "$T/stale.po" "$T/zh_CN.po" "$T/fabtop.pot" 2>/dev/null
msgcomm --force-po --unique -o "$T/uniq.po" "$T/zh_CN.po" "$T/fabtop.pot" 2>/dev/null
stale=$(msgattrib --translated --no-obsolete "$T/uniq.po" 2>/dev/null | grep -c '^msgid "[^"]')
if [ "$stale" = 0 ]; then
	ok "catalog: no stale zh_CN entry"
else
	nok "catalog: $stale zh_CN entries the sources no longer have" \
		"$(msgattrib --translated --no-obsolete "$T/uniq.po" | grep '^msgid "[^"]' | head -n 20)"
fi
# The test can fail: a marked string with no entry is found.
printf '#include "fabtop/i18n.h"\nconst char *x(void) { return _("fabtop catalog test: no entry"); }\n' >"$T/probe.c"
xgettext --force-po --keyword=_ --from-code=UTF-8 --language=C -o "$T/probe.pot" "$T/probe.c" 2>/dev/null
if msgcmp "$T/zh_CN.po" "$T/probe.pot" >/dev/null 2>&1; then
	nok "catalog: a string without an entry is not caught"
else
	ok "catalog: a string without an entry is caught"
fi
