#!/bin/bash
# The man page (Documentation/kmatrix.1): it renders at 80 columns without
# a groff warning, `make install` puts kmatrix and the page where PREFIX
# and DESTDIR say, and every verb `kmatrix help` lists has its section, so
# the page cannot fall behind a new verb.  The checks are shown to fail on
# a page with a broken macro and on one missing a verb.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
kmatrix=$top/build/kmatrix
page=$top/Documentation/kmatrix.1
fails=0

fail() { echo "man: FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "man: ok: $*"; }

[ -x "$kmatrix" ] || { echo "man: $kmatrix missing: run make"; exit 2; }
command -v man >/dev/null || { echo "man: man missing (man-db): run make setup"; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/kmatrix-man-XXXXXX")
trap 'rm -rf "$work"' EXIT

# render PAGE: groff's warnings on stdout, nothing when clean; status 1
# when man failed, printed no page, or a line passed 80 columns.
render() {
	local out=$work/render.out err=$work/render.err rc
	MANWIDTH=80 man --warnings=w -l "$1" >"$out" 2>"$err"
	rc=$?
	cat "$err"
	[ $rc -eq 0 ] && [ ! -s "$err" ] && grep -q '^NAME' "$out" || return 1
	# wc -L counts characters (× is one), not bytes
	[ "$(wc -L <"$out")" -le 80 ] || { echo "a line of $(wc -L <"$out") columns"; return 1; }
}

# verbs_missing PAGE: each verb `kmatrix help` lists that PAGE has no
# `.SS "VERB ...` section for.  The listing's verb lines are indented,
# the verb first, its description after two spaces or more.
verbs_missing() {
	local v
	for v in $("$kmatrix" help | sed -nE 's/^[[:space:]]+([a-z][a-z0-9-]*)[[:space:]]{2,}.*/\1/p'); do
		grep -qE "^\.SS \"?$v( |\"|$)" "$1" || echo "$v"
	done
}

# 1. The page renders cleanly.
if msg=$(render "$page"); then
	ok "renders at 80 columns without a groff warning"
else
	fail "the page does not render cleanly: $msg"
fi
sed 's/^\.SH DESCRIPTION$/.SH DESCRIPTION\n.BOGUSMACRO/' "$page" >"$work/bad.1"
if msg=$(render "$work/bad.1"); then
	fail "a page with an unknown macro rendered without a warning"
else
	ok "a page with an unknown macro is caught (${msg%%$'\n'*})"
fi

# 2. Every verb has its section; a page without one fails, naming it.
verbs=$("$kmatrix" help | sed -nE 's/^[[:space:]]+([a-z][a-z0-9-]*)[[:space:]]{2,}.*/\1/p' | tr '\n' ' ')
[ -n "$verbs" ] || fail "kmatrix help lists no verb"
missing=$(verbs_missing "$page")
if [ -z "$missing" ]; then
	ok "every verb of kmatrix help is documented: $verbs"
else
	fail "verbs of kmatrix help without a section in the page:" $missing
fi
sed '/^\.SS "ci /,/^\.SS /{/^\.SS "clean/!d}' "$page" >"$work/noci.1"
missing=$(verbs_missing "$work/noci.1")
[ "$missing" = ci ] && ok "a page without the ci section is caught" ||
	fail "a page without the ci section: missing '$missing', expected 'ci'"

# 3. make install into a scratch DESTDIR.
dest=$work/dest
if ! out=$(make -s -C "$top" install DESTDIR="$dest" PREFIX=/opt/km 2>&1); then
	fail "make install failed: $out"
fi
bin=$dest/opt/km/bin/kmatrix man1=$dest/opt/km/share/man/man1/kmatrix.1
[ -x "$bin" ] && cmp -s "$bin" "$kmatrix" && ok "kmatrix installed in PREFIX/bin" ||
	fail "$bin is not build/kmatrix, or not executable"
[ -f "$man1" ] && cmp -s "$man1" "$page" && ok "kmatrix.1 installed in PREFIX/share/man/man1" ||
	fail "$man1 is not Documentation/kmatrix.1"
[ "$(stat -c %a "$man1" 2>/dev/null)" = 644 ] || fail "$man1 is not mode 644"
left=$(cd "$dest" && find . -type f | sort | tr '\n' ' ')
[ "$left" = "./opt/km/bin/kmatrix ./opt/km/share/man/man1/kmatrix.1 " ] ||
	fail "install wrote other files: $left"
"$bin" help >/dev/null 2>&1 && ok "the installed kmatrix runs" ||
	fail "the installed kmatrix does not run"
if MANPATH=$dest/opt/km/share/man man -w kmatrix >/dev/null 2>&1; then
	ok "man finds the installed page through MANPATH"
else
	fail "man -w kmatrix does not find the installed page"
fi

if [ $fails -ne 0 ]; then
	echo "man: $fails failure(s)"
	exit 1
fi
echo "man: all passed"
