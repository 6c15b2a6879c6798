#!/bin/bash
# End-to-end: the real kmatrix lays, patches, builds and boots one kernel
# version on x86_64 and arm64 (steps stock, baseline and the series' last,
# each with its 32-bit compat suite) and on mips64el and sparc64 (stock
# and the last step) with
# the real series and the real guest test binary, and this script asserts
# the verdicts kmatrix records.  Then it checks the content keys (a second
# run reuses every cell) and that a corrupt result file is re-run.
#
# usage: tests/e2e/run.sh [VERSION]    (default $E2E_VERSION, else 5.10)
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
version=${1:-${E2E_VERSION:-5.10}}
kmatrix=$top/build/kmatrix
cache=${KMATRIX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix}
results=$cache/e2e-results
fails=0

say() { echo "e2e: $*"; }
fail() { echo "e2e: FAIL: $*"; fails=$((fails + 1)); }

# The last step id of the version's series, as kmatrix reads it.
final_step() {
	"$kmatrix" conf steps "$version" | awk 'END { print $1 }'
}

field() { # FILE JQ-LIKE-KEY: a top-level string or boolean of a result
	python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(str(v).lower() if isinstance(v,bool) else v)' "$1" "$2"
}

# Assert one cell: its verdict and, for judged cells, what its tests show:
# the arch's compat suite ran beside the native one (and at the baseline
# fails the feature cases too), the arch's skipped cases skipped, and the
# PAM cases ran in the native suite alone where the guest has a Debian
# userland (and skipped where it has none).
check_cell() { # ARCH STEP
	local f=$results/$version/$1/$2.json
	[ -f "$f" ] || { fail "$version/$1/$2: no result file"; return; }
	[ "$(field "$f" verdict)" = pass ] ||
		fail "$version/$1/$2: verdict $(field "$f" verdict): $(field "$f" summary)"
	[ "$(field "$f" met)" = true ] || fail "$version/$1/$2: not met"
	[ "$(field "$f" final)" = true ] || fail "$version/$1/$2: not final"
	python3 - "$f" "$2" "$("$kmatrix" conf arch "$1" compat)" "$("$kmatrix" conf arch "$1" userland)" <<'PY' || fail "$version/$1/$2: tests do not show the expected pattern"
import json, sys
r = json.load(open(sys.argv[1]))
step, compat, userland = sys.argv[2], sys.argv[3], sys.argv[4]
tests = r["tests"]
assert len(tests) >= 10, "too few tests: %d" % len(tests)
assert r["ktap"]["plan"] == len(tests), "plan %d, %d tests" % (r["ktap"]["plan"], len(tests))
assert all(t["met"] for t in tests), [t["name"] for t in tests if not t["met"]]
suites = {"native": [t for t in tests if "." not in t["name"]]}
if compat:
    suites[compat] = [t for t in tests if t["name"].startswith(compat + ".")]
    assert len(suites[compat]) >= 10, "compat suite %s: %d tests" % (compat, len(suites[compat]))
    assert compat in r.get("abi_runtime", {}), "no ABI numbers from the %s suite" % compat
    assert not [t for t in suites[compat] if t["name"].startswith(compat + ".pam_")], \
        "PAM cases in the %s suite" % compat
pam = [t for t in suites["native"] if t["name"].startswith("pam_")]
assert len(pam) >= 10, "%d PAM cases" % len(pam)
if userland == "none":
    assert all(t["result"] == "skip" for t in pam), "a PAM case ran without a userland"
else:
    assert not [t["name"] for t in pam if t["result"] == "skip"], "PAM cases skipped"
for name, ts in suites.items():
    failing = [t["name"] for t in ts if t["result"] == "not ok"]
    if step == "baseline":
        # The pre-rlimit baseline must really lack the feature, in every suite.
        assert failing, "%s: baseline failed no test" % name
        assert all(t["expected"] == "fail" for t in ts if t["result"] == "not ok")
    else:
        assert not failing, failing
    print("  %s %s: %d tests, %d failing as expected" % (step, name, len(ts), len(failing)))
PY
}

# kmatrix run of the later arches (stock and the last step), then of the
# first two (stock, baseline, last): the second run's run.json is the one
# check-shard splits.  Output in $out, exit status in $rc (the worse).
run_e2e() { # ARGS...
	local o1="" r1=0
	if [ -n "$later" ]; then
		o1=$(nice -n 10 "$kmatrix" run --versions "$version" --arches "$later" \
			--steps "$later_steps" --results "$results" "$@" 2>&1)
		r1=$?
	fi
	out=$(nice -n 10 "$kmatrix" run --versions "$version" --arches "$arches" \
		--steps "$steps" --results "$results" "$@" 2>&1)
	rc=$?
	out=$o1$'\n'$out
	[ $r1 -gt $rc ] && rc=$r1
	return 0
}

[ -x "$kmatrix" ] || { echo "e2e: $kmatrix missing: run make"; exit 2; }
final=$(final_step)
[ -n "$final" ] || { echo "e2e: no steps for $version (kmatrix conf)"; exit 2; }
steps=stock,baseline,$final
arches=${E2E_ARCHES:-x86_64,arm64}
# mips64el and sparc64, where the matrix has them: their own numbering of
# resources 5-9; stock and the series' last step (the baseline's negative
# control there is the full matrix's).
later=
for a in ${E2E_LATER_ARCHES-mips64el sparc64}; do
	"$kmatrix" conf arches | grep -qx "$a" && later=${later:+$later,}$a
done
later_steps=stock,$final
ncells=$((6 + 2 * $(tr ',' '\n' <<<"${later:-}" | grep -c .)))
rm -rf "$results"

say "kmatrix run --versions $version: $arches at $steps${later:+, $later at $later_steps}"
t0=$(date +%s)
run_e2e
t1=$(date +%s)
say "first run: exit $rc in $((t1 - t0)) s"
[ $rc -eq 0 ] || { fail "kmatrix run exited $rc, expected 0"; echo "$out" | tail -20; }
[ $rc -eq 2 ] && { echo "e2e: set-up error: nothing to check"; exit 1; }
for arch in ${arches//,/ }; do
	for step in stock baseline "$final"; do
		check_cell $arch "$step"
	done
done
for arch in ${later//,/ }; do
	for step in stock "$final"; do
		check_cell $arch "$step"
	done
done
[ "$(field "$results/run.json" schema)" = kmatrix-run/1 ] || fail "run.json lacks its schema"

say "second run: every cell must come from the cache"
run_e2e
t2=$(date +%s)
say "second run: exit $rc in $((t2 - t1)) s"
[ $rc -eq 0 ] || fail "second run exited $rc"
[ "$(grep -c '(cached)' <<<"$out")" -eq $ncells ] || fail "second run re-ran cells: $out"
# Nothing to build: the tree is neither checked nor laid, and the cache
# is not walked (the results are: they are written).
run_e2e --phases
grep -q "phase tree $version  *skipped: every cell's key matches" <<<"$out" ||
	fail "a no-op run checked the tree: $(grep 'phase ' <<<"$out")"
if [ "$(id -u)" -eq 0 ]; then
	grep -q "phase own cache  *skipped" <<<"$out" ||
		fail "a no-op run walked the cache: $(grep 'phase ' <<<"$out")"
fi

say "a truncated result file is not trusted: that cell runs again"
f=$results/$version/x86_64/baseline.json
head -c 100 "$f" >"$f.tmp" && mv "$f.tmp" "$f"
run_e2e
[ $rc -eq 0 ] || fail "run after corruption exited $rc"
grep -q "ignoring $f" <<<"$out" || fail "the corrupt file was not reported"
[ "$(grep -c '(cached)' <<<"$out")" -eq $((ncells - 1)) ] || fail "expected $((ncells - 1)) cached cells and one re-run: $out"
check_cell x86_64 baseline

# SIGINT in the middle of STAGE of a forced re-run of one cell: exit 130,
# no make or QEMU left, the cell's earlier final result untouched.
interrupt_at() { # STAGE
	local f=$results/$version/x86_64/baseline.json log=$results/interrupt-$1.log
	local before pid rc i
	before=$(field "$f" finished)
	nice -n 10 "$kmatrix" run --versions "$version" --arches x86_64 --steps baseline \
		--force --results "$results" >"$log" 2>&1 &
	pid=$!
	for i in $(seq 1 1200); do
		grep -q "x86_64 baseline: $1\$" "$log" && break
		sleep 0.5
	done
	# A boot can end within seconds: interrupt it early.
	if [ "$1" = boot ]; then sleep 1; else sleep 3; fi
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc -eq 130 ] || fail "SIGINT during $1: exit $rc, expected 130"
	grep -q "interrupted" "$log" || fail "SIGINT during $1: no message"
	sleep 1
	pgrep -f "O=$cache/build/$version/x86_64" >/dev/null && fail "SIGINT during $1: make left running"
	pgrep -f "qemu-system-x86_64 .*$cache/build/$version/x86_64" >/dev/null &&
		fail "SIGINT during $1: QEMU left running"
	[ "$(field "$f" finished)" = "$before" ] || fail "SIGINT during $1: the result was rewritten"
}

say "SIGINT during a build and during a boot"
interrupt_at build
interrupt_at boot
run_e2e
[ $rc -eq 0 ] || fail "run after the interruptions exited $rc"
[ "$(grep -c '(cached)' <<<"$out")" -eq $ncells ] || fail "the run after the interruptions re-ran cells: $out"

say "total $(($(date +%s) - t0)) s, $fails failure(s)"
[ $fails -eq 0 ]
