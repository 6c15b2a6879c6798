#!/bin/bash
# The benchmark script on a stand-in kernel: a tiny source tree whose
# Makefile imitates kbuild (O=, tinyconfig, one object per .c file, an
# image) and a stand-in QEMU that prints a passing KTAP report.  Real
# kmatrix, real git am, real initramfs packing; seconds instead of an hour.
# Asserts what the benchmark found (cells run per phase, the checks, the
# files it writes), never how long anything took.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/kmatrix-bench-smoke-XXXXXX)
# kmatrix's stages run as its build user: the stand-in tree, series and
# QEMU must be readable by that user.
chmod 755 "$tmp"
trap '[ -n "${SMOKE_KEEP:-}" ] || rm -rf "$tmp"' EXIT
real_cache=${KMATRIX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix}

# The stand-in kernel (bench/standin): the last series patch changes a .c
# file, as the benchmark's incremental edit needs; objects are compiled
# with make's $(CC), which kmatrix sets to ccache and the naive reference
# to gcc.
# shellcheck source=../standin
. "$top/bench/standin"
standin_kernel "$tmp" 9.9 uapi rtprio

# coreutils stands in for the package: installed everywhere, with a version.
cat >"$tmp/matrix.conf" <<CONF
[matrix]
versions=9.9
arches=x86_64;arm64
expectations=series/expectations

[version 9.9]
package=coreutils
tarball=$tmp/linux-source-9.9.tar.xz
baseline=$tmp/baseline
series=$tmp/series
CONF

standin_qemu "$tmp/bin" 1

mkdir -p "$tmp/cache"
ln -s "$real_cache/guest-debs" "$tmp/cache/guest-debs"
PATH=$tmp/bin:$PATH "$top/bench/bench" --matrix "$tmp/matrix.conf" --cache "$tmp/cache" \
	--out "$tmp/out" --naive 9.9/x86_64 >"$tmp/bench.out" 2>&1 || {
	cat "$tmp/bench.out"
	tail -40 "$tmp/out/bench.log"
	echo "smoke: FAIL: bench exited non-zero"
	exit 1
}

python3 - "$tmp/out/bench.json" "$tmp/out/bench.md" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
md = open(sys.argv[2]).read()
r, ch = d["runs"], d["checks"]
assert d.get("complete") and "Incomplete" not in md
cells = ["9.9/%s/%s" % (a, s) for a in ("arm64", "x86_64")
         for s in ("baseline", "rtprio", "stock", "uapi")]
assert sorted(r["cold"]["cells_run"]) == cells, r["cold"]["cells_run"]
# Judged verdicts are final (the stand-in's one case is not the real list).
v = r["cold"]["verdicts"]
assert set(v) <= {"pass", "test-failed"} and sum(v.values()) == 8, v
assert r["warm"]["cells_run"] == [] and ch["warm_noop"]["ok"], ch["warm_noop"]
assert ch["incremental_scope"]["ok"], ch["incremental_scope"]
assert r["incremental"]["cells_run"] == ["9.9/arm64/rtprio", "9.9/x86_64/rtprio"]
# Every cell went through its stages: the build user could read the edit.
for run in ("cold", "warm", "incremental"):
    assert set(r[run]["verdicts"]) <= {"pass", "test-failed"}, (run, r[run]["verdicts"])
assert r["incremental"]["edits"]["9.9"]["file"] == "kernel/core.c"
# The stand-in compiles both objects at stock and at the header changes,
# one object for the last step.
so = ch["series_order"]["9.9/x86_64"]
assert so["in_order"], so
assert so["compiled"] == {"stock": 2, "baseline": 2, "uapi": 2, "rtprio": 1}, so
assert so["full_rebuilds_after_first"] == ["baseline", "uapi"], so
# Through ccache (kmatrix's CC): the header steps' recompiles are all hits.
assert so["ccache"] == {"stock": [0, 2], "baseline": [2, 0], "uapi": [2, 0],
                        "rtprio": [0, 1]}, so["ccache"]
assert {k: v["objects"] for k, v in r["incremental"]["compiled"].items()} == \
    {"9.9/arm64/rtprio": 1, "9.9/x86_64/rtprio": 1}
assert ch["boot_overlap"]["boots"] == 8
assert ch["boot_test"]["cells"] == 8
pa = ch["per_arch"]
assert sorted(pa) == ["arm64", "x86_64"] and all(o["cells"] == 4 for o in pa.values()), pa
assert all(o["build"] > 0 and o["boot_test_median"] > 0 for o in pa.values()), pa
assert "| arch | cells | configure s | build s | boot + test s (median) |" in md
assert r["naive"]["ok"] and [s["step"] for s in r["naive"]["steps"]] == \
    ["stock", "baseline", "uapi", "rtprio"]
for run in ("cold", "warm", "incremental"):
    assert set(r[run]["stages"]) == {"lay", "apply", "configure", "build", "pack",
                                     "boot", "test", "report", "abi"}
# Cell stages of the warm run: nothing configured, built or booted.
assert all(v == 0 for v in ch["warm_noop"]["stages_run"].values())
for k in ("cold_over_naive", "incremental_over_cold", "warm_over_cold"):
    assert isinstance(d["ratios"][k], float), k
assert "| warm no-op |" in md and "| stage | cold | warm | incremental |" in md
print("smoke: ok (%d cells; warm re-ran none; incremental re-ran the edited step)" % len(cells))
PY

# --resume: an incremental run whose cell stopped early (as when the build
# user could not read the edited series) is not valid; resuming runs that
# phase again, with a new edit, and keeps the valid phases as they were.
python3 - "$tmp/out/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"]["incremental"]["verdicts"] = {"apply-failed": 2, "pass": 6}
json.dump(d, open(sys.argv[1], "w"))
PY
cp "$tmp/out/bench.json" "$tmp/before.json"
PATH=$tmp/bin:$PATH "$top/bench/bench" --matrix "$tmp/matrix.conf" --cache "$tmp/cache" \
	--out "$tmp/out" --naive 9.9/x86_64 --resume >"$tmp/resume.out" 2>&1 || {
	cat "$tmp/resume.out"
	echo "smoke: FAIL: bench --resume exited non-zero"
	exit 1
}
python3 - "$tmp/before.json" "$tmp/out/bench.json" "$tmp/out/bench.md" <<'PY'
import json, sys
old, new = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
md = open(sys.argv[3]).read()
for k in ("cold", "warm", "naive"):
    assert new["runs"][k]["wall"] == old["runs"][k]["wall"], k
inc = new["runs"]["incremental"]
assert inc["attempt"] == 2 and inc["edits"]["9.9"]["line"].endswith("= 2;"), inc["edits"]
assert inc["cells_run"] == ["9.9/arm64/rtprio", "9.9/x86_64/rtprio"], inc["cells_run"]
assert set(inc["verdicts"]) <= {"pass", "test-failed"}, inc["verdicts"]
assert new["checks"]["incremental_scope"]["ok"]
assert isinstance(new["ratios"]["incremental_over_cold"], float)
assert new.get("complete") and "Not valid" not in md
print("smoke: ok (--resume re-ran the invalid incremental phase alone)")
PY

# bench/noop on the cache the benchmark left.  Its incremental phase left
# the last step's results of an edited series, so the first run's settle
# runs rebuild those and report their selections as not a no-op; the
# second run measures every selection.  Then one result removed: no
# selection plans that cell.  Times are not asserted.
noop() { # OUT
	PATH=$tmp/bin:$PATH "$top/bench/noop" --matrix "$tmp/matrix.conf" --cache "$tmp/cache" \
		--repeat 2 --out "$tmp/$1" >"$tmp/$1.out" 2>&1
}
noop noop-settle || true
noop noop || {
	cat "$tmp/noop.out"
	echo "smoke: FAIL: bench/noop exited non-zero"
	exit 1
}
rm "$tmp/cache/results/9.9/arm64/rtprio.json"
noop noop-gap || true
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
first, d, gap = (json.load(open("%s/%s/noop.json" % (t, n)))
                 for n in ("noop-settle", "noop", "noop-gap"))
md = open(t + "/noop/noop.md").read()
bad = [p for p in first["points"] if "why" in p]
assert bad and all("not a no-op" in p["why"] for p in bad), first["points"]
assert all("rtprio" in p["steps"] for p in bad), bad
sizes = sorted(p["cells"] for p in d["points"])
assert sizes == [1, 4, 8], sizes
for p in d["points"]:
    assert "median" in p and len(p["walls"]) == 2, p
    assert p["settle"]["reused"] == p["cells"], p
    assert "tree 9.9" in p["skipped"], p["skipped"]
assert d["full_cells"] == 8 and d["cached_cells"] == 8
assert d["make_q"]["ok"] and d["fit"] and "per_cell" in d["fit"]
assert "| full matrix, 8 cells (fit) |" in md and "x make -q" in md, md
assert gap["cached_cells"] == 7
assert not [p for p in gap["points"] if "arm64" in p["arches"] and "rtprio" in p["steps"]]
print("smoke: ok (bench/noop measured %d selections, each a no-op)" % len(sizes))
PY
