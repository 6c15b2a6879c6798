#!/bin/bash
# End-to-end bisect: a copy of the real 5.10 series whose nice step
# forgets to convert setpriority() (it keeps the CAP_SYS_NICE check) is
# built and booted on x86_64, and `kmatrix bisect` must name that step,
# with the setpriority cases as evidence (glibc's nice() is setpriority()
# too).  Bisecting one test the fault does not touch (sched_setattr) must
# find no departure.  Cells are content-keyed in their own results
# directory, so a second run costs only lookups.
#
# usage: tests/e2e/bisect.sh     (cache: $KMATRIX_CACHE as kmatrix resolves it)
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
kmatrix=$top/build/kmatrix
cache=${KMATRIX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix}
fixture=$cache/e2e-bisect/fixture
results=$cache/e2e-bisect/results
fails=0

say() { echo "bisect-e2e: $*"; }
fail() { echo "bisect-e2e: FAIL: $*"; fails=$((fails + 1)); }

[ -x "$kmatrix" ] || { echo "bisect-e2e: $kmatrix missing: run make"; exit 2; }

# The faulty series: the real 5.10 one with one line of the nice patch
# undone.  Written only when it changes, so the tree's steps stay applied.
make_fixture() {
	local tmp=$fixture.tmp nice
	rm -rf "$tmp"
	mkdir -p "$tmp/series"
	cp "$top"/backports/5.10/series/order "$top"/backports/5.10/series/*.patch "$tmp/series/"
	nice=$(awk '$1 == "nice" { print $2 }' "$tmp/series/order")
	sed -i 's/^+\(\tif (niceval < task_nice(p) && \)!can_nice(p, niceval)) {$/+\1!capable(CAP_SYS_NICE)) {/' \
		"$tmp/series/$nice"
	if ! grep -q '^+	if (niceval < task_nice(p) && !capable(CAP_SYS_NICE)) {$' "$tmp/series/$nice"; then
		echo "bisect-e2e: the setpriority hunk of $nice changed: update this test"
		exit 2
	fi
	cat > "$tmp/matrix.conf" <<EOF
# kmatrix e2e bisect fixture: 5.10 x86_64 with a faulty nice step.
[matrix]
versions=5.10
arches=x86_64
expectations=$top/series/expectations

[version 5.10]
package=linux-source-5.10
tarball=/usr/src/linux-source-5.10.tar.xz
baseline=$top/backports/5.10/baseline
series=$fixture/series
EOF
	if [ -d "$fixture" ] && diff -r -q "$tmp" "$fixture" >/dev/null; then
		rm -rf "$tmp"
	else
		rm -rf "$fixture"
		mv "$tmp" "$fixture"
	fi
}

make_fixture
mkdir -p "$results"

say "kmatrix bisect 5.10 x86_64 (faulty nice step)"
t0=$(date +%s)
out=$(nice -n 10 "$kmatrix" bisect --matrix "$fixture/matrix.conf" --results "$results" 5.10 x86_64 2>"$results/bisect.log")
rc=$?
say "exit $rc in $(($(date +%s) - t0)) s"
echo "$out" | sed 's/^/  /'
[ $rc -eq 1 ] || fail "bisect exited $rc, expected 1 (a departure found); see $results/bisect.log"
echo "$out" | grep -q '^first departing step: nice ' || fail "bisect did not name the nice step"
echo "$out" | grep -q 'nice_setpriority_rlim20_to_0' || fail "the evidence does not name nice_setpriority_rlim20_to_0"

say "kmatrix bisect 5.10 x86_64 nice_setattr_rlim20_to_0 (sched_setattr: the fault leaves it alone)"
out=$(nice -n 10 "$kmatrix" bisect --matrix "$fixture/matrix.conf" --results "$results" 5.10 x86_64 nice_setattr_rlim20_to_0 2>>"$results/bisect.log")
rc=$?
echo "$out" | sed 's/^/  /'
[ $rc -eq 0 ] || fail "bisect of nice_setattr_rlim20_to_0 exited $rc, expected 0"
echo "$out" | grep -q 'no departure to bisect' || fail "bisect of nice_setattr_rlim20_to_0 found a departure"

# The last bisect judged the tip (it met its expectation there), so the
# tree is back on branch matrix; a bisect that ends elsewhere leaves HEAD
# detached at the commit it judged last (matrix/DESIGN.md, Trees).
tree=$cache/trees/5.10
[ "$(git -c safe.directory="$tree" -C "$tree" symbolic-ref -q --short HEAD)" = matrix ] || fail "the tree was not returned to branch matrix"
[ -z "$(git -c safe.directory="$tree" -C "$tree" bisect log 2>/dev/null)" ] || fail "a git bisect is still in progress in $tree"

[ $fails -eq 0 ] && say "all checks passed" || say "$fails check(s) failed"
[ $fails -eq 0 ]
