#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series-range-diff.sh: tools/series-range-diff on tiny fixtures (part of
# make check-unit; no kernel tree).  A scratch cache holds stock trees for
# a canonical version 9.0 and a backport version 8.0 whose lib.c has the
# same functions at other lines; a scratch project holds both versions'
# baseline and two-patch series, made here with git format-patch.  Patch 1
# is the same change on both; patch 2 returns another value in the
# backport.  Version 7.0 has no tree; version 6.0 takes 8.0's patches on a
# tree whose beta() differs from the one patch 2 changes.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/tools/series-range-diff
pass=0
fail=0
out=$(mktemp -d "${TMPDIR:-/tmp}/series-range-diff-test.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT
proj=$out/top
cache=$out/cache

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=tester@invalid
export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=tester@invalid
export GIT_AUTHOR_DATE='@1000000000 +0000' GIT_COMMITTER_DATE='@1000000000 +0000'

ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }

# expect NAME PATTERN: the last run's output has a line matching PATTERN.
expect() {
	if grep -Eq -- "$2" "$out/log"; then ok "$1"; else not_ok "$1"; cat "$out/log"; fi
}

run() {
	TMPDIR=$out/tmp "$tool" --top "$proj" --cache "$cache" "$@" >"$out/log" 2>&1
	rc=$?
}

# lib.c at stock: PREFIX (the lines before the functions), alpha(), and
# beta() returning BETA (default 0).
lib_c() {
	printf '%sint alpha(void)\n{\n\treturn 0;\n}\n' "$1"
	printf '\nint beta(void)\n{\n\treturn %s;\n}\n' "${2:-0}"
}

# tree V PREFIX [BETA]: <cache>/trees/V at tag stock.
tree() {
	local t=$cache/trees/$1

	git init -q "$t" &&
		lib_c "$2" "${3:-}" >"$t/lib.c" &&
		echo 'untouched' >"$t/other.c" &&
		git -C "$t" add -A && git -C "$t" commit -q -m "stock $1" &&
		git -C "$t" tag stock
}

# commit REPO SUBJECT SED: edit lib.c with SED, commit with a changelog.
commit() {
	sed -i "$3" "$1/lib.c" &&
		git -C "$1" commit -q -a -m "$2" -m "Changelog of: $2" \
			-m "Signed-off-by: Tester <tester@invalid>"
}

# patches V PREFIX BETA BASEDIR SERIESDIR: the baseline and the series for
# a tree like trees/V, beta() returning BETA after patch 2.
patches() {
	local dev=$out/dev-$1

	git init -q "$dev" && lib_c "$2" >"$dev/lib.c" &&
		git -C "$dev" add -A && git -C "$dev" commit -q -m stock &&
		commit "$dev" "lib: make alpha fail" '/alpha/,/}/s/return 0/return -1/' &&
		commit "$dev" "lib: let alpha succeed" '/alpha/,/}/s/return -1/return 1/' &&
		commit "$dev" "lib: let beta succeed" "/beta/,/}/s/return 0/return $3/" || return 1
	mkdir -p "$proj/$4" "$proj/$5"
	git -C "$dev" format-patch -q -o "$proj/$4" HEAD~3..HEAD~2 &&
		git -C "$dev" format-patch -q -o "$proj/$5" HEAD~2..HEAD &&
		printf '# step-id file\none 0001-lib-let-alpha-succeed.patch\ntwo 0002-lib-let-beta-succeed.patch\n' \
			>"$proj/$5/order"
}

mkdir -p "$proj/matrix" "$out/tmp"
# The tool reads it through kmatrix conf: a whole matrix, the real arches.
{
	cat <<EOF
[matrix]
versions=6.0;7.0;8.0;9.0
arches=x86_64
expectations=$top/series/expectations
arch_configs=$top/arch-configs
EOF
	for v in 6.0 7.0 8.0 9.0; do
		printf '[version %s]\npackage=linux-source-%s\ntarball=/usr/src/linux-source-%s.tar.xz\n' \
			$v $v $v
		case $v in
		9.0) printf 'baseline=base\nseries=series\n' ;;
		*) printf 'baseline=backports/8.0/baseline\nseries=backports/8.0/series\n' ;;
		esac
	done
} >"$proj/matrix/matrix.conf"
# Comment lines only: no function name for git to put in the hunk headers.
prefix9=$'/*\n * lib\n */\n\n'
prefix8=$'/*\n * 8.0\n *\n * lib\n */\n\n'
if ! { tree 9.0 "$prefix9" && tree 8.0 "$prefix8" && tree 6.0 "$prefix8" 5 &&
       patches 9.0 "$prefix9" 2 base series &&
       patches 8.0 "$prefix8" 3 backports/8.0/baseline backports/8.0/series; }; then
	echo "series-range-diff.sh: cannot make the fixtures" >&2
	exit 2
fi

run 8.0
[ $rc -eq 0 ] && ok "8.0: range-diff produced (exit 0)" || not_ok "8.0: exit $rc, want 0"
expect "headed by the version" "^== 8.0: backports/8.0/series against series/ \(9.0\)$"
expect "same patch at other lines: =" "^1: +[0-9a-f]+ = 1: +[0-9a-f]+ lib: let alpha succeed$"
expect "differing patch: !" "^2: +[0-9a-f]+ ! 2: +[0-9a-f]+ lib: let beta succeed$"
expect "the canonical hunk line" "^ +-\+"$'\t'"return 2;$"
expect "the backport's hunk line" "^ +\+\+"$'\t'"return 3;$"
if grep -q 'alpha fail' "$out/log"; then
	not_ok "baseline compared without --baselines"
	cat "$out/log"
else
	ok "baselines left out by default"
fi
[ -z "$(ls -A "$out/tmp")" ] && ok "scratch repository removed" ||
	not_ok "left in TMPDIR: $(ls -A "$out/tmp")"

run --baselines 8.0
[ $rc -eq 0 ] && ok "--baselines: exit 0" || not_ok "--baselines: exit $rc, want 0"
expect "baselines compared" "^1: +[0-9a-f]+ = 1: +[0-9a-f]+ lib: make alpha fail$"
expect "series still compared" "^2: +[0-9a-f]+ ! 2: +[0-9a-f]+ lib: let beta succeed$"

run 7.0 8.0
[ $rc -eq 2 ] && ok "tree not laid: exit 2" || not_ok "tree not laid: exit $rc, want 2"
expect "tree not laid: named" "^series-range-diff: 7.0: tree $cache/trees/7.0 not laid"
expect "other version still compared" "^2: +[0-9a-f]+ ! 2: +[0-9a-f]+ lib: let beta succeed$"

run 6.0
[ $rc -eq 1 ] && ok "series not applying: exit 1" || not_ok "series not applying: exit $rc, want 1"
expect "series not applying: named" "^series-range-diff: 6.0: backports/8.0/series does not apply"

run 9.0
[ $rc -eq 2 ] && ok "canonical version refused: exit 2" || not_ok "canonical version: exit $rc, want 2"

run
[ $rc -eq 2 ] && ok "default: every backport version (exit 2: 7.0, 6.0)" ||
	not_ok "default: exit $rc, want 2"
for v in 6.0 7.0 8.0; do
	expect "default includes $v" "^== $v: "
done

echo "series-range-diff.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
