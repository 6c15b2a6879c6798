#!/bin/bash
# A matrix split into N shards and merged gives the report one run gives.
#
# The one run is the end-to-end suite's (<cache>/e2e-results: real kernels
# built and booted).  Each shard is a real `kmatrix run --shard I/N` on the
# same cache, started from a copy of those results as a CI cache would hold
# them: it plans, lays and applies as usual, finds every cell of its chains
# already there under the same key and builds nothing.  Then `kmatrix
# merge` of the shards, and `kmatrix report` of both sides compared.
#
# usage: tests/shard/run.sh    (after tests/e2e/run.sh, on its cache)
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
kmatrix=$top/build/kmatrix
cache=${KMATRIX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix}
one=$cache/e2e-results
fails=0

say() { echo "shard: $*"; }
fail() { echo "shard: FAIL: $*"; fails=$((fails + 1)); }

[ -x "$kmatrix" ] || { echo "shard: $kmatrix missing: run make"; exit 2; }
[ -f "$one/run.json" ] || { echo "shard: $one/run.json missing: run make check-e2e first"; exit 2; }

# run.json's versions, and its steps in plan order, comma-separated
runlist() { # FILE KEY
	python3 - "$@" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
if sys.argv[2] == "steps":
    out = []
    for c in run["cells"]:
        s = c.split("/")[2]
        if s not in out:
            out.append(s)
    print(",".join(out))
else:
    print(",".join(run[sys.argv[2]]))
PY
}

versions=$(runlist "$one/run.json" versions)
steps=$(runlist "$one/run.json" steps)
# The arches of that run, not every arch of the matrix (check-e2e runs the
# later arches in a run of their own, with fewer steps).
arches=$(runlist "$one/run.json" arches)
# Every cell must be reusable as it stands (same key, final), or the shards
# would build kernels: the results must come from this build of the project.
stale=$("$kmatrix" plan --format json --versions "$versions" --arches "$arches" --steps "$steps" --results "$one" |
	python3 -c 'import json, sys
print(" ".join(c["id"] for c in json.load(sys.stdin)["cells"] if c["reuse"] != "cached"))') ||
	{ echo "shard: kmatrix plan failed"; exit 2; }
[ -z "$stale" ] ||
	{ echo "shard: $one is not current for $stale: run make check-e2e first"; exit 2; }
work=$(mktemp -d /tmp/kmatrix-shard-XXXXXX)
trap 'rm -rf "$work"' EXIT

# The report as JSON without what differs between two runs of the same
# cells: when and where they ran, and rlimit-abi's timings and paths.
report_view() { # RESULTS
	"$kmatrix" report --results "$1" --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)
for k in ("started", "finished", "host", "project_commit"):
    r["run"].pop(k, None)
for t in (r.get("abi") or {}).get("trees", []):
    for k in ("seconds", "cached", "spec"):
        t.pop(k, None)
json.dump(r, sys.stdout, indent=1, sort_keys=True)'
}

grid() { # RESULTS: the markdown report's grid
	"$kmatrix" report --results "$1" --format md | sed -n '/^## Grid/,/^## /p'
}

report_view "$one" >"$work/one.json" || fail "kmatrix report of $one failed"
grid "$one" >"$work/one.grid"

split_run() { # N
	local n=$1 i d out rc cells cached
	for i in $(seq 1 "$n"); do
		d=$work/n$n/shard-$i
		mkdir -p "$work/n$n"
		cp -a "$one" "$d"
		out=$(nice -n 10 "$kmatrix" run --versions "$versions" --arches "$arches" --steps "$steps" \
			--shard "$i/$n" --timings "$one" --results "$d" 2>&1)
		rc=$?
		[ $rc -eq 0 ] || fail "shard $i/$n exited $rc: $out"
		cells=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cells"]))' "$d/run.json")
		cached=$(grep -c '(cached)' <<<"$out")
		say "  shard $i/$n: $cells cells, $cached from the cache"
		[ "$cached" -eq "$cells" ] || fail "shard $i/$n ran cells again: $out"
	done
}

# The shards hold every planned cell once, and the plan verb splits alike.
check_split() { # N
	python3 - "$1" "$one/run.json" "$work/n$1"/shard-*/run.json <<'PY' ||
import json, sys
n, one, shards = int(sys.argv[1]), json.load(open(sys.argv[2])), sys.argv[3:]
seen = []
for path in shards:
    run = json.load(open(path))
    sh = run["shard"]
    assert sh["count"] == n, (path, sh)
    assert sorted(sh["plan"]) == sorted(one["cells"]), (path, "plan differs")
    for c in run["cells"]:
        assert "/".join(c.split("/")[:2]) in sh["chains"], (c, "not of its chains")
    seen += run["cells"]
assert sorted(seen) == sorted(one["cells"]), ("cells not covered once", seen)
PY
	fail "the $1 shards do not hold every cell exactly once"
}

for n in 2 3; do
	say "$n shards of $versions x {$steps}"
	split_run "$n"
	check_split "$n"
	out=$("$kmatrix" merge -o "$work/n$n/merged" "$work/n$n"/shard-* 2>&1) ||
		fail "merge of $n shards: $out"
	say "  $out"
	report_view "$work/n$n/merged" >"$work/n$n.json"
	diff -u "$work/one.json" "$work/n$n.json" >"$work/n$n.diff" ||
		fail "the merged report of $n shards differs from one run's: $(head -40 "$work/n$n.diff")"
	grid "$work/n$n/merged" | diff -u "$work/one.grid" - ||
		fail "the grid of $n merged shards differs"
done

say "merge refuses shards of two different splits"
out=$("$kmatrix" merge -o "$work/mixed" "$work/n2/shard-1" "$work/n3/shard-2" 2>&1)
[ $? -eq 2 ] && grep -q "not shards of one split" <<<"$out" ||
	fail "shards of 2 and of 3 were merged: $out"

say "merge refuses a shard judged against other expectations"
cp -a "$work/n2/shard-2" "$work/other"
python3 - "$work/other/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
run["expectations"] = "0" * 64
json.dump(run, open(sys.argv[1], "w"))
PY
out=$("$kmatrix" merge -o "$work/mixed" "$work/n2/shard-1" "$work/other" 2>&1)
[ $? -eq 2 ] && grep -q "expectations differ" <<<"$out" ||
	fail "a shard with other expectations was merged: $out"
[ -e "$work/mixed" ] && fail "a refused merge left $work/mixed"

say "$fails failure(s)"
[ $fails -eq 0 ]
