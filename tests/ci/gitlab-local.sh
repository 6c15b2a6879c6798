#!/bin/bash
# The pipeline `kmatrix ci gitlab` writes, run by a GitLab executor:
# gitlab-ci-local (pinned in gitlab-ci-local/, installed by make setup)
# with its shell executor and shell isolation, on a clone of the project
# in a scratch directory.  The matrix is cut to 5.10 x {x86_64, arm64} x
# {stock, baseline}, one chain per shard, and the GitLab caches are
# seeded from check-e2e's cache and results, so every cell is found by
# its key and nothing is built or booted.
#
# Asserts: both shard jobs and the report job ran and passed; the report
# job's artifacts hold the merged results, report.md, junit.xml,
# kcidb.json and summary.txt; the merged cells equal the single-machine
# run's; then, with one expectation changed, the cell departs (judged
# again from its console), the report job fails and its report is still
# written.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
kmatrix=$top/build/kmatrix
cache=${KMATRIX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix}
e2e=${KMATRIX_CI_E2E_RESULTS:-$cache/e2e-results}
version=5.10
arches="x86_64 arm64"
steps="stock baseline"
run_args="--versions $version --arches x86_64,arm64 --steps stock,baseline"
fails=0

say() { echo "ci-local: $*"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }

# shellcheck source=gitlab-ci-local/where.sh
. "$top/tests/ci/gitlab-ci-local/where.sh"
[ -x "$kmatrix" ] || { say "$kmatrix missing: run make"; exit 2; }
[ -x "$gcl_bin" ] || { say "gitlab-ci-local is not installed in $gcl_dir: run make setup"; exit 2; }
for a in $arches; do
	for s in $steps; do
		[ -f "$e2e/$version/$a/$s.json" ] ||
			{ say "no $version $a $s result in $e2e: run make check-e2e first"; exit 2; }
	done
done
[ -d "$cache/trees/$version" ] || { say "no laid $version tree in $cache: run make check-e2e"; exit 2; }

scratch=$(mktemp -d /var/tmp/kmatrix-ci-local.XXXXXX)
# the stages run as the kmatrix user: it must reach the jobs' caches
chmod 755 "$scratch"
# kept when something failed, for its job logs
trap '[ $fails -ne 0 ] && say "scratch kept: $scratch" || rm -rf "$scratch"' EXIT
proj=$scratch/project

# The project as it is now, uncommitted changes included, as one commit.
git clone -q --no-hardlinks "$top" "$proj"
(cd "$top" && git diff HEAD --binary) | (cd "$proj" && git apply --allow-empty) ||
	{ say "cannot carry the work tree's changes into the clone"; exit 2; }
(cd "$top" && git ls-files -z --others --exclude-standard) |
	(cd "$top" && xargs -0r cp --parents -t "$proj")
commit() { # MESSAGE
	git -C "$proj" add -A &&
		git -C "$proj" -c user.name=ci-local -c user.email=ci-local@invalid \
			commit -q --allow-empty -m "$1"
}
"$kmatrix" ci gitlab --shards 2 --run-args "$run_args" -o "$proj/.gitlab-ci.yml"
commit "the pipeline under test"

# gitlab-ci-local keeps a cache KEY's paths in <state>/cache/KEY/.  The
# trees, the guests' packages and rlimit-abi's header installs are hard
# links (rsync into a job copies them, so the job never writes into
# check-e2e's tree); the timings are the last merged results.
state=$proj/.gitlab-ci-local
for i in 1 2; do
	d=$state/cache/kmatrix-shard-$i-of-2/.kmatrix-cache
	mkdir -p "$d/trees"
	cp -al "$cache/trees/$version" "$d/trees/"
	for k in guest-debs abi; do
		[ ! -d "$cache/$k" ] || cp -al "$cache/$k" "$d/"
	done
done
t=$state/cache/kmatrix-timings/kmatrix-timings
for a in $arches; do
	mkdir -p "$t/$version/$a"
	for s in $steps; do
		cp "$e2e/$version/$a/$s".* "$t/$version/$a/"
	done
done

# pipeline NAME: run it, its output in $scratch/NAME.out; its status.
# GitLab starts every job in a fresh directory; gitlab-ci-local keeps its
# build and artifact directories from one pipeline to the next, where the
# last pipeline's shard results would sit beside this one's.  Only the
# caches carry over, as on GitLab.
pipeline() {
	local out=$scratch/$1.out t0=$SECONDS rc
	rm -rf "$state/builds" "$state/artifacts" "$proj"/kmatrix-*
	(cd "$proj" && "$gcl_bin" --force-shell-executor --shell-isolation \
		--variable "KMATRIX_BUILD_USER=${KMATRIX_BUILD_USER:-kmatrix}") >"$out" 2>&1
	rc=$?
	say "$1: gitlab-ci-local exited $rc after $((SECONDS - t0)) s"
	return $rc
}

# job_result NAME JOB: PASS or FAIL from gitlab-ci-local's closing lines
job_result() {
	sed 's/\x1b\[[0-9;]*m//g' "$scratch/$1.out" |
		awk -v j="$2" '$1 == "PASS" || $1 == "FAIL" { n = $0; sub(/^ *(PASS|FAIL) +/, "", n);
			sub(/ +$/, "", n); if (n == j) print $1 }' | tail -n 1
}

expect_job() { # NAME JOB PASS|FAIL
	local got
	got=$(job_result "$1" "$2")
	[ "$got" = "$3" ] || fail "$1: job $2: ${got:-did not run}, expected $3"
}

# Nothing was built or booted: no build or boot stage line in any job.
nothing_built() { # NAME
	local stages
	stages=$(sed 's/\x1b\[[0-9;]*m//g' "$scratch/$1.out" |
		grep -E "kmatrix: $version [a-z0-9_]+ [a-z]+: (build|boot)$" | head -n 3)
	[ -z "$stages" ] || fail "$1: cells were built or booted: $stages"
}

artifacts=$state/artifacts/kmatrix-report
report_written() { # NAME
	for f in kmatrix-report/report.md kmatrix-report/junit.xml kmatrix-report/kcidb.json \
		kmatrix-report/summary.txt kmatrix-merged/run.json; do
		[ -s "$artifacts/$f" ] || fail "$1: the report job's artifacts lack $f"
	done
}

# The merged cells are the single-machine run's: same key, verdict and
# case results.
same_as_e2e() { # NAME
	python3 - "$artifacts/kmatrix-merged" "$e2e" "$version" "$arches" "$steps" <<'PY' ||
import json, sys
merged, single, version, arches, steps = sys.argv[1:]
bad = []
for a in arches.split():
    for s in steps.split():
        m = json.load(open("%s/%s/%s/%s.json" % (merged, version, a, s)))
        e = json.load(open("%s/%s/%s/%s.json" % (single, version, a, s)))
        for f in ("key", "verdict", "met"):
            if m.get(f) != e.get(f):
                bad.append("%s/%s %s: %r, single machine %r" % (a, s, f, m.get(f), e.get(f)))
        if [(t["name"], t["result"]) for t in m["tests"]] != \
           [(t["name"], t["result"]) for t in e["tests"]]:
            bad.append("%s/%s: the case results differ" % (a, s))
assert not bad, bad
print("ci-local:   %d merged cells equal the single-machine run's" %
      (len(arches.split()) * len(steps.split())))
PY
		fail "$1: the merged results differ from $e2e"
}

say "pipeline 1: the matrix as check-e2e left it"
pipeline first
expect_job first "kmatrix-shard: [1]" PASS
expect_job first "kmatrix-shard: [2]" PASS
expect_job first kmatrix-report PASS
nothing_built first
report_written first
same_as_e2e first
grep -q "^SHIP: all 4 planned cells met" "$artifacts/kmatrix-report/summary.txt" 2>/dev/null ||
	fail "first: summary.txt does not say every cell met: $(head -3 "$artifacts/kmatrix-report/summary.txt" 2>/dev/null)"

say "pipeline 2: one stock case expected to fail: the cell departs"
case=$("$top/build/guest/x86_64/rlimit-tests" --list | awk '$2 == "uapi" { print $1; exit }')
[ -n "$case" ] || { fail "no uapi case in rlimit-tests --list"; case=none; }
sed -i "/^\[step stock\]/a fail=$case" "$proj/series/expectations"
commit "expect $case to fail at stock"
pipeline second && fail "second: gitlab-ci-local passed with a departed cell"
expect_job second "kmatrix-shard: [1]" PASS
expect_job second "kmatrix-shard: [2]" PASS
expect_job second kmatrix-report FAIL
nothing_built second
report_written second
grep -q "$case" "$artifacts/kmatrix-report/report.md" 2>/dev/null ||
	fail "second: report.md does not name the departed case $case"
grep -q "^BLOCKED" "$artifacts/kmatrix-report/summary.txt" 2>/dev/null ||
	fail "second: summary.txt does not say BLOCKED: $(head -1 "$artifacts/kmatrix-report/summary.txt" 2>/dev/null)"
# stock departs on both arches (the case passes), the baseline still meets
python3 - "$artifacts/kmatrix-merged/$version" "$arches" <<'PY' || fail "second: not the departures the changed expectation makes"
import json, sys
d, arches = sys.argv[1], sys.argv[2].split()
for a in arches:
    s = json.load(open("%s/%s/stock.json" % (d, a)))
    b = json.load(open("%s/%s/baseline.json" % (d, a)))
    assert (s["verdict"], s["met"]) == ("unexpected-pass", False), (a, s["verdict"])
    assert (b["verdict"], b["met"]) == ("pass", True), (a, b["verdict"])
PY

if [ $fails -ne 0 ]; then
	for f in "$scratch"/*.out; do
		say "--- the end of $(basename "$f")"
		sed 's/\x1b\[[0-9;]*m//g' "$f" | tail -n 40
	done
fi
say "$fails failure(s)"
[ $fails -eq 0 ]
