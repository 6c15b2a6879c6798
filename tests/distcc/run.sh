#!/bin/bash
# Distributed compiling, for real: two distccd hosts in network namespaces
# this script makes, one kmatrix cell built through them (ccache in front,
# made unable to hit, so every compile really goes out) and the same cell
# built here.  Asserts that the hosts' logs show the compiles, that no
# compile fell back to this machine, and that both builds give the same
# verdict, tests, .config and content key.
#
# usage: tests/distcc/run.sh [VERSION [STEP]]   (default 5.10 stock)
#   DISTCC_ARCHES  arches whose kernel is built (default x86_64; every arch's
#                  compiler gets a one-object probe through the hosts anyway)
#   DISTCC_REFERENCE  a results directory of a local run of the same cells
#                  (the matrix's, say): the local reference starts from its
#                  results, reused while their key holds, built here if not
#   KMATRIX_CACHE  the cache to use (default ~/.cache/kmatrix-distcc): the
#                  script deletes the cell's build directories in it, so it
#                  refuses the default kmatrix cache.
#
# Network: namespaces <ns>-client, <ns>-a and <ns>-b, a veth pair from the
# client to each host, addresses from 198.18.0.0/15 (RFC 2544's range for
# test networks) inside those namespaces only; kmatrix runs in the client
# namespace.  Everything is removed on exit, on failure and on SIGINT/TERM.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
version=${1:-5.10}
step=${2:-stock}
arches=${DISTCC_ARCHES:-x86_64}
kmatrix=$top/build/kmatrix
main_cache=${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix
cache=${KMATRIX_CACHE:-$main_cache-distcc}
work=$cache/distcc-test
ns=kmatrix-distcc-$$
declare -A addr=([a]=198.18.1.2 [b]=198.18.2.2) peer=([a]=198.18.1.1 [b]=198.18.2.1)
hosts="${addr[a]}/2 ${addr[b]}/2"
fails=0
kpid=

say() { echo "distcc: $*"; }
fail() { echo "distcc: FAIL: $*"; fails=$((fails + 1)); }
die() { echo "distcc: $*" >&2; exit 2; }

cleanup() {
	local n p
	trap - EXIT INT TERM
	[ -n "$kpid" ] && kill -TERM "$kpid" 2>/dev/null && wait "$kpid" 2>/dev/null
	for n in client a b; do
		ip netns list | grep -qw "$ns-$n" || continue
		# Only what runs inside the namespaces this script made.
		for p in $(ip netns pids "$ns-$n"); do kill -TERM "$p" 2>/dev/null; done
		sleep 0.5
		for p in $(ip netns pids "$ns-$n"); do kill -KILL "$p" 2>/dev/null; done
		ip netns del "$ns-$n"
	done
}
trap cleanup EXIT
trap 'echo "distcc: interrupted"; exit 130' INT
trap 'echo "distcc: terminated"; exit 143' TERM

preflight() {
	local a cross
	[ "$(id -u)" -eq 0 ] || die "needs root (ip netns)"
	[ -x "$kmatrix" ] || die "$kmatrix missing: run make"
	for t in ip distcc distccd ccache; do
		command -v $t >/dev/null || die "$t missing: run tools/setup-host"
	done
	[ "$(readlink -m "$cache")" != "$(readlink -m "$main_cache")" ] ||
		die "$cache is the default kmatrix cache: this test deletes build directories, give it its own KMATRIX_CACHE"
	for a in $arches; do
		cross=$(sed -n 's/^cross_compile=//p' "$top/arch-configs/$a/arch.conf")
		# distccd only runs compilers masqueraded in /usr/lib/distcc.
		[ -e "/usr/lib/distcc/${cross}gcc" ] ||
			die "/usr/lib/distcc/${cross}gcc missing: distccd would refuse $a (run update-distcc-symlinks)"
	done
	mkdir -p "$work/distcc-client"
	# The arm64 guest userland lives in the default cache (tools/setup-host).
	[ -e "$cache/guest-debs" ] || [ ! -d "$main_cache/guest-debs" ] ||
		ln -s "$main_cache/guest-debs" "$cache/guest-debs"
}

# Three namespaces, the client joined to each host by a veth pair.
make_net() {
	local h
	ip netns add "$ns-client" || die "ip netns add failed"
	ip -n "$ns-client" link set lo up
	for h in a b; do
		ip netns add "$ns-$h"
		ip -n "$ns-$h" link set lo up
		ip link add "to-$h" netns "$ns-client" type veth peer name eth0 netns "$ns-$h" ||
			die "cannot make the veth pair to host $h"
		ip -n "$ns-client" addr add "${peer[$h]}/30" dev "to-$h"
		ip -n "$ns-$h" addr add "${addr[$h]}/30" dev eth0
		ip -n "$ns-client" link set "to-$h" up
		ip -n "$ns-$h" link set eth0 up
	done
}

start_distccd() { # HOST
	local h=$1 log=$work/distccd-$1.log
	# distccd drops to its own user, which cannot open files under /root:
	# its log goes to stderr, opened here.
	ip netns exec "$ns-$h" nice -n 10 distccd --no-detach --daemon --jobs 2 \
		--listen "${addr[$h]}" --allow "${peer[$h]}/32" \
		--log-stderr --log-level info 2>"$log" &
	for _ in $(seq 1 50); do
		grep -q "listening on ${addr[$h]}" "$log" && return 0
		sleep 0.2
	done
	die "distccd on host $h did not start: $(cat "$log")"
}

# One kmatrix run of the cells into results/MODE, in the client namespace.
# A fresh build directory and a ccache that cannot hit: every object is
# compiled, here or on the hosts.  The distcc run is always forced; the
# local one is the reference and, like any cell, is reused while its
# content key holds.
run_cells() { # MODE [HOSTS]
	local mode=$1 farm=${2:-} a rc t0 force=
	for a in $arches; do rm -rf "$cache/build/$version/$a"; done
	if [ -n "$farm" ]; then
		force=--force
		rm -rf "$work/results/$mode"
	elif [ -n "${DISTCC_REFERENCE:-}" ]; then
		for a in $arches; do
			mkdir -p "$work/results/$mode/$version/$a"
			cp "$DISTCC_REFERENCE/$version/$a/$step".* "$work/results/$mode/$version/$a/" ||
				die "no $version/$a/$step result in $DISTCC_REFERENCE"
		done
	fi
	# kmatrix's stages run distcc as its build user, which keeps distcc's
	# locks and state there; the probe, as root, made that directory.
	chown -R "${KMATRIX_BUILD_USER:-kmatrix}:" "$work/distcc-client" ||
		die "cannot give $work/distcc-client to the build user"
	t0=$(date +%s)
	ip netns exec "$ns-client" env KMATRIX_CACHE="$cache" KMATRIX_DISTCC_HOSTS="$farm" \
		CCACHE_RECACHE=1 DISTCC_FALLBACK=0 DISTCC_DIR="$work/distcc-client" \
		nice -n 10 "$kmatrix" run --versions "$version" --arches "${arches// /,}" \
		--steps "$step" $force --results "$work/results/$mode" &
	kpid=$!
	wait $kpid
	rc=$?
	kpid=
	say "$mode run: exit $rc in $(($(date +%s) - t0)) s"
	[ $rc -eq 0 ] || fail "$mode run exited $rc"
}

# Both runs' results of one arch: same verdict, tests, .config and key.
compare() { # ARCH
	python3 - "$work/results/local/$version/$1/$step.json" \
		"$work/results/farm/$version/$1/$step.json" "$hosts" <<'PY'
import json, sys
local, farm = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
for k in ("verdict", "met", "final", "key", "ktap"):
    if local[k] != farm[k]:
        bad.append("%s: local %r, distcc %r" % (k, local[k], farm[k]))
if local["inputs"]["config"] != farm["inputs"]["config"]:
    bad.append(".config differs")
tests = lambda r: [(t["name"], t["result"], t["met"]) for t in r["tests"]]
if tests(local) != tests(farm):
    bad.append("test results differ")
if farm.get("distcc") != sys.argv[3] or "distcc" in local:
    bad.append("results do not record where they compiled: %r / %r"
               % (local.get("distcc"), farm.get("distcc")))
if local["verdict"] != "pass" or not local["met"]:
    bad.append("local verdict %s: %s" % (local["verdict"], local["summary"]))
for b in bad:
    print("  " + b)
print("  %s: %s, %d tests, build %.0f s here, %.0f s through distcc"
      % (local["arch"], farm["verdict"], len(farm["tests"]),
         local["timings"]["build"], farm["timings"]["build"]))
sys.exit(1 if bad else 0)
PY
}

# Every kernel object kbuild compiled with $(CC) ("  CC      path.o"; objtool's
# "  CC       /abs/path.o" use the host's gcc) must have been compiled by a
# host: its source is in a distccd COMPILE_OK line of the arch's compiler.
check_jobs() { # ARCH
	local a=$1 cross
	cross=$(sed -n 's/^cross_compile=//p' "$top/arch-configs/$a/arch.conf")
	python3 - "${cross}gcc" "$work/results/farm/$version/$a/$step.build.log" \
		"$cache/trees/$version" "$cache/build/$version/$a" "$work/probe" \
		"$work"/distccd-a.log "$work"/distccd-b.log <<'PY'
import os, re, sys
cc, log, tree, build, probe = sys.argv[1:6]
job = re.compile(r"COMPILE_OK .* (?:/\S*/)?" + re.escape(cc) + r" (\S+)$")
remote, bad = set(), 0
for path in sys.argv[6:]:
    n = 0
    for line in open(path):
        m = job.search(line.rstrip("\n"))
        if m and not m.group(1).startswith(probe + "/"):
            src = m.group(1)
            for base in (tree, build):
                if src.startswith(base + "/"):
                    src = src[len(base) + 1:]
            remote.add(src)
            n += 1
    host = os.path.basename(path)[len("distccd-"):-len(".log")]
    print("distcc:   host %s: %d %s jobs" % (host, n, cc))
    if not n:
        print("distcc: FAIL: host %s ran no %s job" % (host, cc))
        bad += 1
text = open(log).read()
objs = re.findall(r"^  CC      ([^ /]\S*)\.[os]$", text, re.M)
local = [o for o in objs if o + ".c" not in remote]
print("distcc:   %d kernel objects compiled with %s, %d of them on the hosts"
      % (len(objs), cc, len(objs) - len(local)))
if local or not objs:
    print("distcc: FAIL: compiled here, not on a host: %s" % " ".join(local[:10]))
    bad += 1
for m in re.findall(r"^.*(?:failed to distribute|distcc\[\d+\].*ERROR).*$", text, re.M)[:3]:
    print("distcc: FAIL: " + m)
    bad += 1
sys.exit(1 if bad else 0)
PY
}

# One object per arch's compiler through ccache and distcc: the cross
# compilers pass distccd's whitelist too, even for arches not built here.
probe_compilers() {
	local conf a cross before after
	mkdir -p "$work/probe"
	echo 'int kmatrix_distcc_probe(int x) { return 3 * x; }' >"$work/probe/probe.c"
	for conf in "$top"/arch-configs/*/arch.conf; do
		a=$(basename "$(dirname "$conf")")
		cross=$(sed -n 's/^cross_compile=//p' "$conf")
		before=$(cat "$work"/distccd-[ab].log | grep -cE " (/[^ ]*/)?${cross}gcc [^ ]*probe\.c$")
		ip netns exec "$ns-client" env CCACHE_DIR="$work/probe/ccache" CCACHE_RECACHE=1 \
			CCACHE_PREFIX=distcc DISTCC_HOSTS="$hosts" DISTCC_FALLBACK=0 \
			DISTCC_DIR="$work/distcc-client" \
			ccache "${cross}gcc" -c -o "$work/probe/$a.o" "$work/probe/probe.c" ||
			{ fail "$a: ${cross}gcc through distcc failed"; continue; }
		after=$(cat "$work"/distccd-[ab].log | grep -cE " (/[^ ]*/)?${cross}gcc [^ ]*probe\.c$")
		say "$a probe: $(file -b "$work/probe/$a.o" | cut -d, -f1-2), compiled on a host: $((after - before))"
		[ $((after - before)) -eq 1 ] || fail "$a: the probe was not compiled on a host"
	done
}

preflight
make_net
start_distccd a
start_distccd b
say "hosts: $hosts (namespaces $ns-{a,b}); cells: $version/{${arches// /,}}/$step"
probe_compilers
run_cells farm "$hosts"
run_cells local
for a in $arches; do
	compare "$a" || fail "$a: the distcc build departs from the local one"
	check_jobs "$a" || fail "$a: not every compile ran on the hosts"
done
say "$fails failure(s)"
[ $fails -eq 0 ]
