#!/bin/bash
# A stable maintainer's tree and kmatrix port, on a small repository made
# here: a version laid from git (their repository only read), the series
# tried on a version without a backport (per patch: clean, 3-way, conflict,
# in Markdown and JSON), the draft it writes, and kmatrix run refusing to
# run that draft.
#
# Usage: tests/port/run.sh [KMATRIX]
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
kmatrix=${1:-$top/build/kmatrix}
fail() { echo "port: FAIL: $*" >&2; exit 1; }
t=$(mktemp -d /tmp/kmatrix-port.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
git_id=(-c user.name=m -c user.email=m@example.org -c commit.gpgsign=false)

# Their repository: v1.0, then v1.1 which moves b.c's context and rewrites
# the line of c.c that the nice patch changes.
lines() { for i in $(seq 1 12); do echo "int $1$i;"; done; }
mkdir -p "$t/linux/kernel"
cd "$t/linux"
git init -q -b main .
for f in a b c d; do lines $f >kernel/$f.c; done
git add . && git "${git_id[@]}" commit -qm v1.0 && git tag v1.0
sed -i 's/int b3;/int b3; \/* moved *\//' kernel/b.c
sed -i 's/int c6;/long c6;/' kernel/c.c
git "${git_id[@]}" commit -qam v1.1 && git tag v1.1

# The project: the canonical series and 1.0's baseline, made on v1.0.
p=$t/top
mkdir -p "$p/matrix" "$p/series" "$p/backports/1.0/baseline" "$p/backports/1.0/series"
git clone -q "$t/linux" "$t/scratch"
cd "$t/scratch"
git checkout -q v1.0
patch_of() { # FILE SED SUBJECT DIR
	sed -i "$2" "$1"
	git "${git_id[@]}" commit -qam "$3" -m "Signed-off-by: m <m@example.org>"
	git format-patch -q -1 -o "$4" HEAD
}
patch_of kernel/a.c 's/int a1;/int a1; \/* baseline *\//' "sched: baseline" "$p/backports/1.0/baseline"
patch_of kernel/a.c 's/int a9;/int a9, nice;/' "resource: add the limits" "$p/series"
patch_of kernel/b.c 's/int b6;/int b6, helper;/' "sched: add the helper" "$p/series"
patch_of kernel/c.c 's/int c6;/int c6, nice;/' "sched: the nice limit" "$p/series"
patch_of kernel/d.c 's/int d3;/int d3, rt;/' "sched: the rtprio limit" "$p/series"
cd "$p/series"
set -- *.patch
printf 'uapi\t%s\nhelper\t%s\nnice\t%s\nrtprio\t%s\n' "$@" >order
cp order *.patch "$p/backports/1.0/series/"
cp "$top/series/expectations" "$p/series/"
cat >"$p/matrix/matrix.conf" <<CONF
[matrix]
versions=1.0
arches=x86_64
expectations=series/expectations
arch_configs=$top/arch-configs

[version 1.0]
git=$t/linux
ref=v1.0
baseline=backports/1.0/baseline
series=backports/1.0/series
CONF

state() { (cd "$t/linux" && git for-each-ref && cat .git/config &&
	find . -type f | sort | xargs sha256sum && find . | sort | xargs stat -c '%n %a %Y'); }
before=$(state)
export KMATRIX_TOP=$p

rc=0
"$kmatrix" port 1.1 --tree "1.1=$t/linux@v1.1" --cache "$t/cache" --format json \
	>"$t/port.json" 2>"$t/port.err" || rc=$?
[ $rc = 1 ] || { cat "$t/port.err"; fail "port exited $rc, expected 1 (a conflict)"; }
python3 - "$t/port.json" <<'PY' || fail "port's JSON is not what the patches did"
import json, sys
d = json.load(open(sys.argv[1]))
got = {p["step"]: p["result"] for p in d["patches"]}
want = {"baseline (1.0's)": "clean", "uapi": "clean", "helper": "3-way",
        "nice": "conflict", "rtprio": "clean"}
assert got == want, got
nice = [p for p in d["patches"] if p["step"] == "nice"][0]
assert nice["files"] == "kernel/c.c", nice
assert "<<<<<<<" in nice["conflict"], nice["conflict"]
assert d["conflicts"] == 1 and d["branch"] == "port/1.1"
PY
draft=$p/backports/1.1
[ -f "$draft/PORTING" ] || fail "no PORTING in the draft"
grep -q '^## nice: sched: the nice limit (conflict)' "$draft/PORTING" || fail "PORTING does not list nice"
[ "$(cut -f1 "$draft/series/order" | grep -v '^#' | tr '\n' ' ')" = "uapi helper rtprio " ] ||
	fail "the draft's order is not uapi helper rtprio: $(cat "$draft/series/order")"
for f in "$draft"/series/0*.patch; do
	grep -q '^Canonical-patch: sched: \|^Canonical-patch: resource: ' "$f" ||
		fail "$f has no Canonical-patch trailer"
done
[ "$(ls "$draft/baseline")" ] || fail "the draft has no baseline"

# Markdown too, and a finished backport is never overwritten.
"$kmatrix" port 1.1 --tree "1.1=$t/linux@v1.1" --cache "$t/cache" >"$t/port.md" 2>&1 || true
grep -q '^| helper | sched: add the helper | 3-way |' "$t/port.md" || fail "port's Markdown table"
mv "$draft/PORTING" "$t/PORTING"
rc=0
"$kmatrix" port 1.1 --tree "1.1=$t/linux@v1.1" --cache "$t/cache" >/dev/null 2>"$t/err" || rc=$?
[ $rc = 2 ] && grep -q 'is a finished backport' "$t/err" || fail "port overwrote a finished backport"
mv "$t/PORTING" "$draft/PORTING"

# The draft is not run: every cell a setup-error naming PORTING.
rc=0
"$kmatrix" run --tree "1.1=$t/linux@v1.1" --arches x86_64 --steps stock --cache "$t/cache" \
	>"$t/run.out" 2>&1 || rc=$?
[ $rc != 0 ] || fail "kmatrix run ran a draft backport"
grep -q 'backport of 1.1 is a draft: see .*/backports/1.1/PORTING' "$t/run.out" ||
	{ cat "$t/run.out"; fail "run did not say the backport is a draft"; }
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["verdict"] == "setup-error", r' \
	"$t/cache/results/1.1/x86_64/stock.json" || fail "the draft's cell is not a setup-error"

# Their repository: nothing written.
[ "$before" = "$(state)" ] || fail "the maintainer's repository changed"
# A repository the build user cannot read (kmatrix runs its git as that
# user when started as root): a setup-error saying how to give access.
readable=
if [ "$(id -u)" = 0 ] && id kmatrix >/dev/null 2>&1; then
	cp -a "$t/linux" "$t/hidden"
	chmod -R go-rwx "$t/hidden"
	rc=0
	"$kmatrix" run --tree "1.0=$t/hidden@v1.0" --arches x86_64 --steps stock \
		--cache "$t/cache-hidden" >"$t/hidden.out" 2>&1 || rc=$?
	[ $rc != 0 ] || fail "kmatrix run used a repository the build user cannot read"
	grep -q "the build user cannot read the git repository $t/hidden: .*chmod -R o+rX $t/hidden" \
		"$t/hidden.out" || { cat "$t/hidden.out"; fail "no setup-error naming the unreadable repository"; }
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["verdict"] == "setup-error", r' \
		"$t/cache-hidden/results/1.0/x86_64/stock.json" || fail "the unreadable repository's cell is not a setup-error"
	readable="; an unreadable repository refused"
fi
echo "port: ok (clean, 3-way and conflict classified; draft written and refused; repository untouched$readable)"
