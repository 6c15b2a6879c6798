#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-w1.sh: tools/check-w1 must catch a warning that only W=1 shows.
# A scratch cache (<cache>/work/w1-fixture) gets a copy of the laid 5.10
# tree whose step/rtprio carries one more commit: a global function
# without a prototype in kernel/sys.c (-Wmissing-prototypes is a W=1
# warning in 5.10).  check-w1 on x86_64 must pass every other step and fail
# rtprio, naming the function and the warning; on the real tree it must
# pass, from a clone with an object cut short.  Needs the 5.10 tree
# (check-e2e lays it); compiles the touched objects of six steps twice,
# through the shared ccache.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
kmatrix=$top/build/kmatrix
tool=$top/tools/check-w1
cache=${KMATRIX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix}
version=5.10
scratch=$cache/work/w1-fixture
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }
expect() { # NAME PATTERN: the last run's output has a line matching PATTERN
	if grep -Eq -- "$2" "$log"; then ok "$1"; else not_ok "$1"; tail -n 20 "$log"; fi
}

[ -d "$cache/trees/$version/.git" ] ||
	{ echo "check-w1.sh: no $cache/trees/$version: run make check-e2e first" >&2; exit 2; }

# The faulty tree: a local clone (objects hard-linked) and one commit made
# with git's plumbing, so nothing is checked out.  In the sandbox: the
# trees belong to the build user.
"$kmatrix" sandbox --cache "$cache" -- bash -euc '
	tree=$1 dst=$2/trees/$3
	rm -rf "$dst"
	mkdir -p "$2/trees"
	git clone -q --local --no-checkout "$tree" "$dst"
	cd "$dst"
	export GIT_INDEX_FILE=$dst/.git/fixture-index
	export GIT_AUTHOR_NAME=Fixture GIT_AUTHOR_EMAIL=fixture@invalid
	export GIT_COMMITTER_NAME=Fixture GIT_COMMITTER_EMAIL=fixture@invalid
	git read-tree step/rtprio
	{ git show step/rtprio:kernel/sys.c
	  printf "\nint w1_fixture_no_prototype(void)\n{\n\treturn 0;\n}\n"; } >.git/sys.c
	blob=$(git hash-object -w .git/sys.c)
	git update-index --cacheinfo 100644,"$blob",kernel/sys.c
	commit=$(git commit-tree "$(git write-tree)" -p step/rtprio -m "fixture: W=1 warning")
	git tag -f step/rtprio "$commit" >/dev/null
' sh "$cache/trees/$version" "$scratch" "$version" ||
	{ echo "check-w1.sh: could not make the fixture tree" >&2; exit 2; }
# The shared ccache it links to, made by the build user as a kmatrix run
# would: on a cache no build has used yet, it is not there.
(cd / && "$kmatrix" sandbox --cache "$cache" -- mkdir -p "$cache/ccache") ||
	{ echo "check-w1.sh: cannot make $cache/ccache" >&2; exit 2; }
[ -L "$scratch/ccache" ] || ln -s "$cache/ccache" "$scratch/ccache"

log=$(mktemp "${TMPDIR:-/tmp}/check-w1-test.XXXXXX") || exit 2
trap 'rm -f "$log"' EXIT

"$tool" --cache "$scratch" "$version" x86_64 >"$log" 2>&1
rc=$?
[ $rc -eq 1 ] && ok "a new W=1 warning: exit 1" || { not_ok "exit $rc, expected 1"; tail -n 20 "$log"; }
expect "the step is named" "^FAIL $version x86_64 rtprio: build exit 0, new warnings:"
expect "the warning is shown" "kernel/sys.c: warning: no previous prototype for .w1_fixture_no_prototype. \[-Wmissing-prototypes\]"
expect "the steps before it pass" "^  nice: no new warning"
expect "stock's own warnings are not counted" "^  baseline: no new warning"
grep -q "^FAIL .* \(baseline\|uapi\|helper\|nice\):" "$log" &&
	not_ok "an unfaulted step failed" || ok "no unfaulted step failed"

real() { # WHAT: the real tree passes
	"$tool" --cache "$cache" "$version" x86_64 >"$log" 2>&1
	rc=$?
	[ $rc -eq 0 ] && ok "the real $version series: no new warning$1" ||
		{ not_ok "the real $version series$1: exit $rc"; tail -n 20 "$log"; }
}
# The clone's objects are hard links to the laid tree's: a truncated one
# is truncated in both, and laying the tree again mends only the tree.
# Here the damage is made in a copy, so that the laid tree stays whole:
# step/nice's copy of a file nice changes, cut to half its size.  On a
# cache without the clone yet it is made first, as check-w1 makes it, so
# that the one run on the real tree also mends a damaged clone.  Which
# step's checkout finds the damage depends on what the clone had checked
# out: a new clone's first checkout, stock, reads the same blob (the
# series gives the file back its stock text).
src=$cache/work/w1-$version-x86_64/src
"$kmatrix" sandbox --cache "$cache" -- bash -euc '
	[ -d "$1/.git" ] || { mkdir -p "$(dirname "$1")"
		git clone -q --local --no-checkout "$2" "$1"; }
	cd "$1"
	path=$(git diff --name-only step/helper step/nice | head -n 1)
	id=$(git rev-parse "step/nice:$path")
	f=.git/objects/${id:0:2}/${id:2}
	rm -f "$f.cut"
	cp "$f" "$f.cut"
	chmod u+w "$f.cut"
	truncate -s $(($(stat -c %s "$f") / 2)) "$f.cut"
	mv -f "$f.cut" "$f"
	! git cat-file blob "$id" >/dev/null 2>&1
' sh "$src" "$cache/trees/$version" || not_ok "could not damage an object of $src"
real " from a clone with a truncated object"
# The damage shows in a checkout, or, when the laid tree's steps moved
# since the clone was made (a changed baseline), already in the fetch.
expect "the damaged clone is made again" "^  $src cannot (check out [^ ]+ \(.*corrupt.*\)|fetch from [^ ]+ \(.+\)): cloned again"

echo "check-w1: $pass passed, $fail failed"
[ $fail -eq 0 ]
