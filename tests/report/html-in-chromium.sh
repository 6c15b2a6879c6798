#!/bin/bash
# The HTML report as a browser renders it, and the JUnit report against the
# JUnit schema.
#
# From the fixed results fixture (every verdict class, a missing, a broken
# and an unfinished result): headless Chromium's --dump-dom must hold one
# grid element per planned cell whose data-verdict is that cell's verdict
# (read independently from the fixture's JSON files), the page must load
# nothing from the network, and --screenshot must give a PNG.  The JUnit
# report must validate against tests/report/junit.xsd, and a broken copy
# must not (so the check can fail).
#
# Usage: tests/report/html-in-chromium.sh [KMATRIX] [OUTDIR]
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
kmatrix=${1:-$top/build/kmatrix}
out=${2:-$top/build/report-test}
fix=$top/matrix/tests/fixtures/report
fail() { echo "html-in-chromium: FAIL: $*" >&2; exit 1; }

command -v chromium >/dev/null || fail "chromium is not installed (tools/setup-host installs it)"
command -v xmllint >/dev/null || fail "xmllint is not installed (libxml2-utils)"
[ -x "$kmatrix" ] || fail "$kmatrix is not built"
rm -rf "$out"
mkdir -p "$out"
profile=$(mktemp -d /tmp/kmatrix-chromium.XXXXXX)
trap 'rm -rf "$profile"' EXIT

report() {
	KMATRIX_TOP=$fix/top "$kmatrix" report --results "$fix/results" \
		--cache "$fix/cache" --against "$fix/earlier" "$@"
}
report --format html -o "$out/report.html"
report --format junit -o "$out/junit.xml"

# No network: nothing in the page may point outside it.
if grep -Eio '(src|href)="(https?:)?//[^"]*' "$out/report.html"; then
	fail "the page references the network"
fi
grep -qi '<script' "$out/report.html" && fail "the page carries a script"

chrome=(chromium --headless --no-sandbox --disable-gpu --no-first-run
	--disable-background-networking --disable-component-update --disable-sync
	--user-data-dir="$profile")
timeout 120 "${chrome[@]}" --dump-dom "file://$out/report.html" \
	>"$out/dom.html" 2>"$out/chromium-dom.log" ||
	fail "chromium --dump-dom failed (see $out/chromium-dom.log)"
timeout 120 "${chrome[@]}" --window-size=1280,1600 --hide-scrollbars \
	--screenshot="$out/report.png" "file://$out/report.html" \
	>"$out/chromium-shot.log" 2>&1 ||
	fail "chromium --screenshot failed (see $out/chromium-shot.log)"
[ "$(head -c 8 "$out/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	fail "$out/report.png is not a PNG"

# Expected verdict per planned cell, from the fixture itself: the result's
# verdict when the file parses and is the cell's own, else "missing".
python3 - "$fix/results" "$out/dom.html" <<'EOF'
import json, os, re, sys, html
results, dom = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
plan = json.load(open(os.path.join(results, "run.json")))["cells"]
want = {}
for cell in plan:
    v, a, s = cell.split("/")
    try:
        r = json.load(open(os.path.join(results, v, a, s + ".json")))
        own = (r.get("version"), r.get("arch"), r.get("step")) == (v, a, s)
        want[cell] = r["verdict"] if own else "missing"
    except (OSError, ValueError):
        want[cell] = "missing"
got = {}
for tag in re.findall(r"<[^>]*\bdata-verdict=[^>]*>", dom):
    c = re.search(r'data-cell="([^"]*)"', tag)
    vd = re.search(r'data-verdict="([^"]*)"', tag)
    if not c or not vd:
        sys.exit("element with data-verdict but no data-cell: " + tag)
    cell = html.unescape(c.group(1))
    if cell in got:
        sys.exit("two elements for cell " + cell)
    got[cell] = html.unescape(vd.group(1))
if got != want:
    for cell in sorted(set(got) | set(want)):
        if got.get(cell) != want.get(cell):
            print("cell %s: page says %s, results say %s" % (cell, got.get(cell), want.get(cell)))
    sys.exit("the rendered grid does not match the results")
ids = re.findall(r'\sid="([^"]*)"', dom)
dup = sorted(set(i for i in ids if ids.count(i) > 1))
if dup:
    sys.exit("ids on more than one element: " + " ".join(dup))
for ref in re.findall(r'\shref="#([^"]*)"', dom):
    if ref not in ids:
        sys.exit("a link to #%s, which no element has" % ref)
classes = sorted(set(want.values()))
print("html-in-chromium: %d cells, verdict classes: %s" % (len(got), " ".join(classes)))
# The ABI section: the RLIMIT_* numbers per arch and tree as a table, the
# fixture's break (alpha's NLIMITS "15 !") marked as one.
abi = re.search(r'<section id="abi">(.*?)</section>', dom, re.S)
if not abi:
    sys.exit("no ABI section in the page")
tables = re.findall(r'<table class="abi">(.*?)</table>', abi.group(1), re.S)
numbers = [t for t in tables if "<th>NICE</th>" in t and "<th>RTPRIO</th>" in t
           and "<th>arch</th>" in t]
if not numbers:
    sys.exit("the ABI section has no arch x tree table of RLIMIT numbers")
breaks = [html.unescape(b) for b in re.findall(r'<td class="abi-break">([^<]*)</td>', numbers[0])]
if "15 !" not in breaks:
    sys.exit("the ABI break (alpha NLIMITS 15 !) is not marked: %r" % breaks)
print("html-in-chromium: ABI table with %d marked break(s)" % len(breaks))
EOF

xmllint --noout --schema "$top/tests/report/junit.xsd" "$out/junit.xml" 2>"$out/xmllint.log" ||
	fail "junit.xml does not validate: $(cat "$out/xmllint.log")"
sed 's/ classname="[^"]*"//' "$out/junit.xml" >"$out/junit-broken.xml"
if xmllint --noout --schema "$top/tests/report/junit.xsd" "$out/junit-broken.xml" 2>/dev/null; then
	fail "the schema accepts a testcase without classname: the check checks nothing"
fi
echo "html-in-chromium: ok (screenshot $out/report.png, junit.xml valid)"
