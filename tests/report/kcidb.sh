#!/bin/bash
# kmatrix report --format kcidb against KernelCI's KCIDB schema v5.3.
#
# From the fixed results fixture (every verdict class, a missing, a broken
# and an unfinished result) the document must validate against
# tests/report/kcidb/kcidb-io.schema.v5.3.json with Debian's
# python3-jsonschema, and say what the fixture says: one build per planned
# cell with the status its verdict maps to (read independently from the
# fixture's JSON files), checkouts per version x step commit with their
# patch and validity, a test per KTAP case and "boot".  Its ids must not
# change with the results' place or times, --origin and --log-base must be
# honoured and checked, compat suites' cases must get their suite's path,
# and broken copies of the document must fail validation (so the check
# can fail).
#
# Usage: tests/report/kcidb.sh [KMATRIX] [OUTDIR]
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
kmatrix=${1:-$top/build/kmatrix}
out=${2:-$top/build/report-kcidb}
fix=$top/matrix/tests/fixtures/report
schema=$top/tests/report/kcidb/kcidb-io.schema.v5.3.json
# Debian's interpreter: python3-jsonschema is its module
py=/usr/bin/python3
fail() { echo "kcidb: FAIL: $*" >&2; exit 1; }

[ -x "$kmatrix" ] || fail "$kmatrix is not built"
$py -c 'import jsonschema' 2>/dev/null ||
	fail "python3-jsonschema is missing: run make setup"
rm -rf "$out"
mkdir -p "$out"

report() { # results-dir output [options...]
	local res=$1 doc=$2
	shift 2
	KMATRIX_TOP=$fix/top "$kmatrix" report --results "$res" \
		--cache "$fix/cache" --format kcidb -o "$doc" "$@" 2>"$doc.err" ||
		fail "kmatrix report --format kcidb $* failed: $(cat "$doc.err")"
	[ ! -s "$doc.err" ] || fail "kmatrix report said: $(cat "$doc.err")"
}

# Its own copies of the results: with other times, and with a compat
# suite, a crashed case, a skipped case and a truncated KTAP report.
cp -r "$fix/results" "$out/moved"
cp -r "$fix/results" "$out/compat"
$py - "$out/moved" "$out/compat" <<'EOF'
import json, os, sys
moved, compat = sys.argv[1:]
for d, _, files in os.walk(moved):
    for f in files:
        p = os.path.join(d, f)
        try:
            r = json.load(open(p))
        except ValueError:
            continue
        for k in ("started", "finished"):
            if k in r:
                r[k] = "2027-01-01T00:00:00Z"
        json.dump(r, open(p, "w"), indent=1)
p = os.path.join(compat, "7.2/x86_64/nice.json")
r = json.load(open(p))
r["tests"] += [
    {"name": "i386.nice_rlim25_to_minus5", "result": "not ok", "expected": "pass",
     "met": False, "diag": "# case killed by signal 11 (Segmentation fault)"},
    {"name": "i386.client_prlimit", "result": "skip", "expected": "skip",
     "met": True, "diag": "# SKIP no prlimit client"},
]
r["ktap"]["plan"] = 12
r["summary"] = "KTAP incomplete after 8 of 12 cases: i386 suite: cut short"
json.dump(r, open(p, "w"), indent=1)
EOF

report "$fix/results" "$out/kcidb.json"
report "$out/moved" "$out/moved.json"
report "$fix/results" "$out/origin.json" --origin ci_lab_2
report "$fix/results" "$out/logbase.json" --log-base https://ci.example.org/job/7/results/
report "$out/compat" "$out/compat.json"

for bad in "--origin Kmatrix" "--origin kmatrix:x" "--log-base results/logs"; do
	# shellcheck disable=SC2086
	if KMATRIX_TOP=$fix/top "$kmatrix" report --results "$fix/results" \
		--cache "$fix/cache" --format kcidb $bad >/dev/null 2>&1; then
		fail "report accepted $bad"
	fi
done

$py - "$schema" "$fix/results" "$out" <<'EOF'
import hashlib, json, os, re, sys, urllib.parse
import jsonschema

schema_path, results, out = sys.argv[1:]
schema = json.load(open(schema_path))

# python3-jsonschema checks "uri" and "date-time" only with modules Debian
# does not install with it: check them here, as KCIDB reads them.
checker = jsonschema.FormatChecker()

@checker.checks("uri")
def is_uri(s):
    u = urllib.parse.urlsplit(s)
    return bool(u.scheme) and (bool(u.netloc) or u.scheme == "file") and " " not in s

@checker.checks("date-time")
def is_date_time(s):
    return re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", s) is not None

validator = jsonschema.Draft7Validator(schema, format_checker=checker)

def errors(doc):
    return sorted(validator.iter_errors(doc), key=lambda e: list(e.path))

def load(name):
    doc = json.load(open(os.path.join(out, name)))
    errs = errors(doc)
    for e in errs[:10]:
        print("%s: %s: %s" % (name, "/".join(map(str, e.path)), e.message))
    if errs:
        sys.exit("%s does not validate against the KCIDB schema" % name)
    return doc

def check(cond, what):
    if not cond:
        sys.exit("kcidb: " + what)

doc = load("kcidb.json")
check(doc["version"] == {"major": 5, "minor": 3}, "version is not 5.3: %s" % doc["version"])

# The verdict of each planned cell, from the fixture itself.
plan = json.load(open(os.path.join(results, "run.json")))["cells"]
cells = {}
for cell in plan:
    v, a, s = cell.split("/")
    try:
        r = json.load(open(os.path.join(results, v, a, s + ".json")))
        own = (r.get("version"), r.get("arch"), r.get("step")) == (v, a, s)
    except (OSError, ValueError):
        r, own = None, False
    cells[cell] = r if own else None

def build_status(r):
    if r is None:
        return "MISS"
    v = r["verdict"]
    if v in ("pass", "test-failed", "unexpected-pass", "boot-failed", "timeout"):
        return "PASS"
    if r["timings"].get("boot", 0) > 0:
        return "PASS"     # the host failed at the boot: the kernel was built
    return {"config-failed": "FAIL", "build-failed": "FAIL",
            "apply-failed": "SKIP"}.get(v, "ERROR")

checkouts = {c["id"]: c for c in doc["checkouts"]}
builds = {b["id"]: b for b in doc["builds"]}
check(len(checkouts) == len(doc["checkouts"]), "two checkouts share an id")
check(len(builds) == len(doc["builds"]), "two builds share an id")
check(len({t["id"] for t in doc["tests"]}) == len(doc["tests"]), "two tests share an id")
for o in doc["checkouts"] + doc["builds"] + doc["tests"]:
    check(o["origin"] == "kmatrix" and re.fullmatch(r"kmatrix:[0-9a-f]{64}", o["id"]),
          "id %s is not kmatrix:<sha256>" % o["id"])
by_cell = {}
for b in doc["builds"]:
    check(b["checkout_id"] in checkouts, "build %s: no checkout" % b["misc"]["cell"])
    check(b["misc"]["cell"] not in by_cell, "two builds of %s" % b["misc"]["cell"])
    by_cell[b["misc"]["cell"]] = b
check(sorted(by_cell) == sorted(cells), "builds are not the planned cells: %s" % sorted(by_cell))
seen = set()
for cell, r in cells.items():
    b = by_cell[cell]
    want = build_status(r)
    check(b["status"] == want, "%s: build status %s, want %s" % (cell, b["status"], want))
    seen.add((r["verdict"] if r else "missing", want))
    arch = cell.split("/")[1]
    check(b["architecture"] == arch, "%s: architecture %s" % (cell, b["architecture"]))
    check(b["config_name"] == "tinyconfig+arch-configs/%s/config.fragment" % arch,
          "%s: config_name %s" % (cell, b["config_name"]))
    co = checkouts[b["checkout_id"]]
    check(co["tree_name"] == cell.split("/")[0], "%s: tree_name %s" % (cell, co["tree_name"]))
    if r is None:
        continue
    check(b["compiler"] == r["inputs"]["toolchain"], "%s: compiler %s" % (cell, b.get("compiler")))
    if re.fullmatch(r"[0-9a-f]{40}", r["commit"]):
        check(co.get("git_commit_hash") == r["commit"], "%s: checkout commit" % cell)
    if r["verdict"] == "apply-failed":
        check(co.get("valid") is False, "%s: the checkout of a patch that did not apply is valid" % cell)
    elif r["verdict"] not in ("setup-error", "infra-error"):
        check(co.get("valid") is True, "%s: checkout not valid" % cell)
print("kcidb: builds: %s" % ", ".join("%s %s" % vs for vs in sorted(seen)))

# The step's patch, with KCIDB's patchset hash of it.
for co in doc["checkouts"]:
    step = co["misc"]["step"]
    if step == "stock":
        check(co["patchset_hash"] == "" and "patchset_files" not in co, "stock has patches")
        continue
    (f,) = co["patchset_files"]
    path = urllib.parse.unquote(urllib.parse.urlsplit(f["url"]).path)
    sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
    check(f["name"] == os.path.basename(path), "patch name %s" % f["name"])
    check(co["misc"]["patches"] == [{"name": f["name"], "sha256": sha}], "patch sha256 in misc")
    check(co["patchset_hash"] == hashlib.sha256((sha + "\n").encode()).hexdigest(),
          "%s %s: patchset_hash" % (co["tree_name"], step))

# Tests: every KTAP case, the expectation in misc; the boot.
tests = {}
for t in doc["tests"]:
    check(t["build_id"] in builds, "test %s: no build" % t["path"])
    tests.setdefault(builds[t["build_id"]]["misc"]["cell"], {})[t["path"]] = t
for cell, r in cells.items():
    got = tests.get(cell, {})
    for case in (r or {}).get("tests", []):
        t = got["rlimit.%s.%s" % (cell.split("/")[1], case["name"])]
        status = {"ok": "PASS", "not ok": "FAIL", "skip": "SKIP"}[case["result"]]
        check(t["status"] == status, "%s %s: %s" % (cell, case["name"], t["status"]))
        check(t["misc"]["expected"] == case["expected"] and t["misc"]["met"] == case["met"],
              "%s %s: expectation" % (cell, case["name"]))
    boot = {"pass": "PASS", "test-failed": "PASS", "unexpected-pass": "PASS",
            "boot-failed": "FAIL", "timeout": "ERROR"}.get(r and r["verdict"])
    if r and not boot and r["timings"].get("boot", 0) > 0:
        boot = "MISS"
    check(got.get("boot", {}).get("status") == boot,
          "%s: boot test %s, want %s" % (cell, got.get("boot"), boot))
t = tests["7.2/x86_64/nice"]["rlimit.x86_64.rtprio_rlim10_fifo10"]
check(t["status"] == "FAIL" and t["misc"]["expected"] == "fail" and t["misc"]["met"],
      "a case that failed as expected: %s" % t)
check(tests["7.2/arm64/nice"]["boot"]["log_excerpt"], "boot failure without its lines")

# Build logs: file:// URLs of the stage log by default, else under --log-base.
b = by_cell["6.1/arm64/uapi"]
check(b["log_url"] == "file://" + os.path.join(os.path.realpath(results), "6.1/arm64/uapi.build.log"),
      "build log URL %s" % b["log_url"])
check("RLIMIT_NICE" in b["log_excerpt"], "build failure without its error lines")
based = {b["misc"]["cell"]: b for b in load("logbase.json")["builds"]}
check(based["6.1/arm64/uapi"]["log_url"] ==
      "https://ci.example.org/job/7/results/6.1/arm64/uapi.build.log",
      "--log-base URL %s" % based["6.1/arm64/uapi"]["log_url"])
check(based["6.1/arm64/baseline"]["log_url"].endswith("/6.1/arm64/baseline.config.log"),
      "config-failed: not the configure log")

# Ids: the same wherever the results are and whenever they ran.
def ids(d):
    return [o["id"] for k in ("checkouts", "builds", "tests") for o in d[k]]
moved = load("moved.json")
check(ids(moved) == ids(doc), "ids changed with the results' place or times")
origin = load("origin.json")
check(ids(origin) == [i.replace("kmatrix:", "ci_lab_2:", 1) for i in ids(doc)],
      "--origin does not make the same ids under its prefix")
check({o["origin"] for k in ("checkouts", "builds", "tests") for o in origin[k]} == {"ci_lab_2"},
      "--origin is not every object's origin")

# A compat suite's case, a case killed by a signal, a skip, a cut KTAP.
compat = {t["path"]: t for t in load("compat.json")["tests"]
          if t["misc"].get("cell") == "7.2/x86_64/nice"}
t = compat["rlimit.i386.nice_rlim25_to_minus5"]
check(t["status"] == "ERROR" and t["misc"]["suite"] == "i386", "crashed compat case: %s" % t)
check(compat["rlimit.i386.client_prlimit"]["status"] == "SKIP", "compat skip")
check(compat["rlimit"]["status"] == "ERROR", "a cut KTAP report is not the suite's ERROR")
check(compat["rlimit.x86_64.limits_defined"]["id"] == tests["7.2/x86_64/nice"]["rlimit.x86_64.limits_defined"]["id"],
      "a test's id depends on the others")

# The check can fail: broken documents must not validate.
broken = json.loads(json.dumps(doc))
del broken["builds"][0]["origin"]
check(errors(broken), "the schema accepts a build without its origin: the check checks nothing")
broken = json.loads(json.dumps(doc))
broken["tests"][0]["status"] = "PASSED"
check(errors(broken), "the schema accepts a test status PASSED: the check checks nothing")
broken = json.loads(json.dumps(doc))
broken["builds"][0]["log_url"] = "6.1/x86_64/stock.build.log"
check(errors(broken), "a relative log_url validates: the format check checks nothing")
print("kcidb: %d checkouts, %d builds, %d tests valid; broken documents rejected" %
      (len(doc["checkouts"]), len(doc["builds"]), len(doc["tests"])))
EOF
echo "kcidb: ok ($out/kcidb.json)"
