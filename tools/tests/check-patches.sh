#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-patches.sh: tools/check-patches catches what it is there to catch
# (part of make check-unit).  A scratch project holds two real series
# patches (0001 with its known checkpatch warning, 0004 clean), the fixture
# tools/tests/patches/bad-style.patch in the canonical series, and the
# fixture bad-backport.patch as the series of a version with no tree.
# checkpatch comes from the first laid tree of the cache (read only);
# without one, only the checks that need no tree are asserted.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${KMATRIX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix}
tool=$top/tools/check-patches
fix=$top/tools/tests/patches
p1=series/0001-resource-add-RLIMIT_NICE-and-RLIMIT_RTPRIO.patch
p4=series/0004-sched-let-RLIMIT_RTPRIO-grant-realtime-policies.patch
bad=series/0005-fix-nice-for-everybody.patch
pass=0
fail=0
out=$(mktemp -d /tmp/check-patches.XXXXXX)
trap 'rm -rf "$out"' EXIT

ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }

# expect NAME PATTERN: the last run's output has a line matching PATTERN.
expect() {
	if grep -Eq -- "$2" "$out/log"; then ok "$1"; else not_ok "$1"; cat "$out/log"; fi
}

run() {
	"$tool" --top "$out/top" --cache "$cache" >"$out/log" 2>&1
	rc=$?
}

version=
for v in 7.2 6.12 6.1 5.10; do
	if [ -f "$cache/trees/$v/scripts/checkpatch.pl" ]; then version=$v; break; fi
done
if [ -z "$version" ]; then
	version=7.2
	echo "# no tree laid under $cache/trees: checkpatch findings not asserted"
fi

mkdir -p "$out/top/matrix" "$out/top/series" "$out/top/base" "$out/top/backports/0.0/series"
# Read through kmatrix conf: a whole matrix, the real arches.
cat >"$out/top/matrix/matrix.conf" <<EOF
[matrix]
versions=$version;0.0
arches=x86_64
expectations=$top/series/expectations
arch_configs=$top/arch-configs
[version $version]
package=linux-source-$version
tarball=/usr/src/linux-source-$version.tar.xz
baseline=base
series=series
[version 0.0]
package=linux-source-0.0
tarball=/usr/src/linux-source-0.0.tar.xz
baseline=base
series=backports/0.0/series
EOF
cp "$top/$p1" "$top/$p4" "$out/top/series/"
cp "$fix/bad-style.patch" "$out/top/$bad"
cp "$fix/bad-backport.patch" "$out/top/backports/0.0/series/0001-bad.patch"

camel() { ls "$cache/trees/$version"/.checkpatch-camelcase.* 2>/dev/null; }
camel_before=$(camel)
run
[ $rc -eq 1 ] && ok "bad patches fail (exit 1)" || not_ok "bad patches: exit $rc, want 1"
expect "subject without subsystem" "^FAIL $bad: subject \"Fix nice for everybody.\""
expect "missing Signed-off-by" "^FAIL $bad: no Signed-off-by"
expect "backport without changelog" "^FAIL backports/0.0/series/0001-bad.patch: no changelog body"
expect "backport trailer naming no canonical patch" \
	"^FAIL backports/0.0/series/0001-bad.patch: Canonical-patch: \"sched: let RLIMIT_NICE grant every nice value\" is no subject"
expect "missing tree named" "^skip: checkpatch for 0.0: tree $cache/trees/0.0 not laid"
if [ -f "$cache/trees/$version/scripts/checkpatch.pl" ]; then
	expect "checkpatch error" "^FAIL $bad: checkpatch ERROR:SPACING:"
	expect "checkpatch check" "^FAIL $bad: checkpatch CHECK:CAMELCASE:"
	# --strict's CamelCase cache goes to the scratch view, not the tree.
	[ "$(camel)" = "$camel_before" ] && ok "tree left as it was" ||
		not_ok "checkpatch wrote into the tree: $(camel)"
	expect "unlisted warning" "^FAIL $p1: checkpatch WARNING:BLOCK_COMMENT_STYLE:.*not in checkpatch-exceptions"
	expect "clean patch passes" "^ok   $p4 \\($version\\)"

	# Listed with a reason, and the patch's notes explain it: allowed.
	# An exception for a patch with no such notes, and one checkpatch does
	# not report, fail.
	rm "$out/top/$bad" "$out/top/backports/0.0/series/0001-bad.patch"
	printf '%s BLOCK_COMMENT_STYLE the stock comment\n' "$p1" >"$out/top/series/checkpatch-exceptions"
	run
	[ $rc -eq 0 ] && ok "listed warning passes" || { not_ok "listed warning: exit $rc"; cat "$out/log"; }
	printf '%s AVOID_EXTERNS no such finding\n' "$p4" >>"$out/top/series/checkpatch-exceptions"
	run
	[ $rc -eq 1 ] && ok "stale exception fails (exit 1)" || not_ok "stale exception: exit $rc, want 1"
	expect "exception without notes" "^FAIL .*$p4 AVOID_EXTERNS: the patch's notes do not explain it"
	expect "exception checkpatch no longer reports" "^FAIL checkpatch-exceptions: $p4 AVOID_EXTERNS: checkpatch no longer reports it"
fi

echo "check-patches.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
