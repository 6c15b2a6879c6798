#!/bin/bash
# Mutation testing of the series: each mutant of tests/mutants/list is one
# wrong decision in the 5.10 series' kernel code, applied as an extra step
# ("mutant") after the series' last, or one broken claim of the baseline,
# applied as the only step after it.  kmatrix builds it incrementally and
# boots it; the mutant is killed when at least one case departs from the
# expectations of that last step (or of the baseline).  A mutant that does not apply or build is a
# defect of the mutant, not a kill.
#
# usage: tests/mutants/run.sh [--set check|full] [ID...]
#   --set check  the subset make check runs, on x86_64 only (default: every
#                mutant, on the arches its line names)
#   ID...        only these mutants
#
# Its cache is its own ($MUTANTS_CACHE, else <kmatrix cache>-mutants), so
# the mutant steps never move the trees and build directories the other
# suites reuse; ccache and guest-debs are the kmatrix cache's, shared.
# Each mutant has its own results directory there: a second run of an
# unchanged mutant is a key lookup.  The score goes to stdout and to
# <cache>/mutants/score.json, and is copied to the kmatrix cache's
# results/mutants.json (when there are results) for `kmatrix report`.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/share-cache
. "$top/tests/lib/share-cache"
kmatrix=$top/build/kmatrix
base=${KMATRIX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix}
cache=${MUTANTS_CACHE:-$base-mutants}
work=$cache/mutants
version=5.10
set_=all

say() { echo "mutants: $*"; }
die() {
	echo "mutants: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--set)
		[ $# -ge 2 ] || die "--set needs check or full"
		set_=$2
		shift 2
		;;
	--set=*)
		set_=${1#--set=}
		shift
		;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
case $set_ in
all | check | full) ;;
*) die "--set: unknown '$set_' (valid: check, full)" ;;
esac
[ -x "$kmatrix" ] || die "$kmatrix missing: run make"

# The mutants to run: "id arches patch" per line.
select_mutants() {
	awk -v set="$set_" -v ids="$*" '
		BEGIN { n = split(ids, want, " "); for (i = 1; i <= n; i++) w[want[i]] = 1 }
		/^#/ || NF == 0 { next }
		NF != 5 { printf "tests/mutants/list:%d: 5 fields wanted\n", NR > "/dev/stderr"; bad = 1; next }
		n && !($1 in w) { next }
		!n && set == "check" && $5 != "check" { next }
		{ seen[$1] = 1; print $1, (set == "check" ? "x86_64" : $4), $3, $2 }
		END {
			for (i in w) if (!(i in seen)) { printf "unknown mutant %s\n", i > "/dev/stderr"; bad = 1 }
			exit bad
		}' "$top/tests/mutants/list"
}

# The expectations with one more step, "mutant", that must meet what the
# series' last step meets.
write_expectations() { # FINAL OUT
	{
		cat "$top/series/expectations"
		printf '\n# tests/mutants: a mutant must depart from these.\n[step mutant]\n'
		awk -v s="[step $1]" '$0 == s { on = 1; next } /^\[/ { on = 0 } on && NF && !/^#/' \
			"$top/series/expectations"
	} >"$2"
}

# The step a mutant of patch ON must meet: the series' last, or for a
# mutant of the baseline (patch 0) the baseline's.
judged_by() { # ON
	if [ "$1" = 0 ]; then echo baseline; else echo "$final"; fi
}

# The fixture of one mutant: the 5.10 series, the mutant as its last
# step (a mutant of the baseline: the mutant as the only step after the
# baseline), the matrix that names them.  Rewritten only when it changes,
# so the tree keeps its applied steps (kmatrix re-applies from the first
# patch that differs: here, the mutant's).
make_fixture() { # ID PATCH ON
	local dir=$work/fixture/$1 tmp=$work/fixture/$1.tmp src=$top/backports/$version/series
	rm -rf "$tmp"
	mkdir -p "$tmp/series"
	cp "$top/tests/mutants/$2" "$tmp/series/"
	{
		if [ "$3" != 0 ]; then
			cp "$src"/*.patch "$tmp/series/"
			cat "$src/order"
		fi
		printf 'mutant  %s\n' "$2"
	} >"$tmp/series/order"
	write_expectations "$(judged_by "$3")" "$tmp/expectations"
	cat >"$tmp/matrix.conf" <<EOF
# tests/mutants fixture: 5.10 with mutant $1 after the series.
[matrix]
versions=$version
arches=x86_64;arm64;mips64el
expectations=$dir/expectations

[version $version]
package=linux-source-$version
tarball=/usr/src/linux-source-$version.tar.xz
baseline=$top/backports/$version/baseline
series=$dir/series
EOF
	if [ -d "$dir" ] && diff -r -q "$tmp" "$dir" >/dev/null; then
		rm -rf "$tmp"
	else
		rm -rf "$dir"
		mv "$tmp" "$dir"
	fi
}

# Judge one mutant's cell: prints "killed CASES", "SURVIVED" or
# "defect VERDICT: SUMMARY".
judge() { # RESULT-FILE
	python3 - "$1" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("defect no result: %s" % e)
    sys.exit()
v = r.get("verdict")
caught = [t["name"] for t in r.get("tests", []) if not t.get("met")]
if v == "pass" and not caught:
    print("SURVIVED")
elif v in ("test-failed", "unexpected-pass") and caught:
    print("killed " + " ".join(caught))
elif v in ("boot-failed", "timeout"):
    print("killed (%s) %s" % (v, r.get("summary", "")))
else:
    print("defect %s: %s" % (v, r.get("summary", "")))
PY
}

mkdir -p "$work"
share_cache "$base" "$cache"
final=$("$kmatrix" conf steps "$version" | awk 'END { print $1 }')
mutants=$(select_mutants "$@") || die "bad mutant list or name"
[ -n "$mutants" ] || die "no mutant selected"

t0=$(date +%s)
total=0 killed=0 bad=0
score=$work/score.tsv
: >"$score"
while read -r id arches patch on; do
	make_fixture "$id" "$patch" "$on"
	res=$work/results/$id
	mkdir -p "$res"
	log=$work/results/$id.log
	t1=$(date +%s)
	rc=0
	KMATRIX_CACHE=$cache "$kmatrix" run --matrix "$work/fixture/$id/matrix.conf" \
		--results "$res" --versions "$version" --arches "$arches" \
		--steps mutant >"$log" 2>&1 </dev/null || rc=$?
	for arch in ${arches//,/ }; do
		total=$((total + 1))
		out=$(judge "$res/$version/$arch/mutant.json")
		case $out in
		killed*)
			killed=$((killed + 1))
			n=$(echo "${out#killed }" | wc -w)
			say "$id $arch: killed by $n case(s): $(echo "${out#killed }" | cut -d' ' -f1-6)"
			;;
		SURVIVED)
			bad=$((bad + 1))
			say "$id $arch: SURVIVED: every case met step $(judged_by "$on")'s expectations"
			;;
		*)
			bad=$((bad + 1))
			say "$id $arch: FAIL: a defect of the mutant, not a kill: ${out#defect } (kmatrix exit $rc, $log)"
			tail -n 5 "$log" | sed 's/^/    /'
			;;
		esac
		printf '%s\t%s\t%s\n' "$id" "$arch" "$out" >>"$score"
	done
	say "  ($(($(date +%s) - t1)) s)"
done <<<"$mutants"

python3 - "$score" "$work/score.json" "$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)" <<'PY'
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
out = []
for mid, arch, res in rows:
    word, _, rest = res.partition(" ")
    out.append({"mutant": mid, "arch": arch,
                "status": word.lower() if word != "SURVIVED" else "survived",
                "cases": rest.split() if word == "killed" and not rest.startswith("(") else [],
                "detail": rest})
json.dump({"version": "5.10", "commit": sys.argv[3],
           "killed": sum(r["status"] == "killed" for r in out),
           "total": len(out), "mutants": out}, open(sys.argv[2], "w"), indent=1)
PY
say "$killed of $total killed ($bad not) in $(($(date +%s) - t0)) s; $work/score.json"
# where `kmatrix report` looks for it beside the matrix's own results
if [ -d "$base/results" ]; then
	cp "$work/score.json" "$base/results/mutants.json"
fi
[ "$bad" -eq 0 ]
