#!/bin/bash
# The sandbox suite (make check-sandbox): what untrusted series code can do.
#
#  1. kmatrix refuses cache and results paths inside the project repository
#     (also through a symlink), and makes nothing there;
#  2. a command in kmatrix's sandbox runs as the build user with no
#     capability left (so it cannot load a module or a kexec kernel), no
#     network, and writes nowhere but the cache;
#  3. a real run of a hostile series (tests/sandbox/series: its top Makefile
#     writes to /tmp, /root, /etc, /var/tmp and this repository, and
#     connects out) on 5.10 x86_64: the make fails, every write outside the
#     cache was refused or went to the sandbox's own $TMPDIR, the network was
#     unreachable, and no marker file exists afterwards;
#  4. a real cell (5.10 x86_64 baseline: configure, build, boot, test) with
#     insmod, modprobe, rmmod and kexec shadowed on PATH by wrappers that
#     record any call: none is recorded, and the guest's init and
#     mkinitramfs name none of them.
#
# usage: tests/sandbox/run.sh    (uses $KMATRIX_CACHE like kmatrix; its
# results go to <cache>/sandbox-results)
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
kmatrix=$top/build/kmatrix
cache=${KMATRIX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix}
results=$cache/sandbox-results
marker=kmatrix-sandbox-marker
fails=0
t0=$(date +%s)

say() { echo "sandbox: $*"; }
fail() { echo "sandbox: FAIL: $*"; fails=$((fails + 1)); }
since() { echo $(($(date +%s) - $1)); }

[ -x "$kmatrix" ] || { echo "sandbox: $kmatrix missing: run make"; exit 2; }
mkdir -p "$results"

# 1. Paths inside the repository.
refused() { # WHAT ARGS...
	local what=$1 out rc
	shift
	out=$("$kmatrix" "$@" 2>&1)
	rc=$?
	[ $rc -eq 2 ] || fail "$what: exit $rc, expected 2"
	grep -q "inside the project repository" <<<"$out" || fail "$what: no refusal: $out"
}
say "paths inside the project repository are refused"
link=$(mktemp -u /tmp/kmatrix-sandbox-link.XXXXXX)
ln -s "$top" "$link"
for verb in "run --versions 5.10" "clean --yes" "sandbox"; do
	tail=()
	[ "$verb" = sandbox ] && tail=(-- true)
	# shellcheck disable=SC2086
	refused "$verb --cache in the repository" $verb --cache "$top/build/km-cache" "${tail[@]}"
	# shellcheck disable=SC2086
	refused "$verb --results in the repository" $verb --cache "$cache" \
		--results "$top/build/km-results" "${tail[@]}"
	# shellcheck disable=SC2086
	refused "$verb --cache through a symlink" $verb --cache "$link/km-cache" "${tail[@]}"
done
rm -f "$link"
for d in km-cache km-results; do
	[ -e "$top/build/$d" ] && fail "$top/build/$d was made"
done

# 2. The sandbox itself.
say "a command in the sandbox: build user, no capabilities, no network"
out=$("$kmatrix" sandbox --results "$results" -- sh -c '
	echo "uid $(id -u)"
	grep -E "^Cap(Eff|Prm|Bnd|Amb)" /proc/self/status
	for f in /root/'$marker' /etc/'$marker' '"$top/$marker"'; do
		(: >"$f") 2>/dev/null && echo "wrote $f"
	done
	(: >'"$results/$marker"') && echo "cache writable"
	python3 -c "import socket; socket.create_connection((\"deb.debian.org\", 80), 5)" \
		2>/dev/null && echo "network reached"
	true' 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "kmatrix sandbox exited $rc: $out"
uid=$(sed -n 's/^uid //p' <<<"$out")
[ -n "$uid" ] && [ "$uid" != 0 ] || fail "sandboxed command ran as uid '$uid'"
[ "$(grep -c ':[[:space:]]*0000000000000000$' <<<"$out")" -eq 4 ] ||
	fail "capabilities left in the sandbox: $out"
grep -q "^wrote" <<<"$out" && fail "sandbox wrote outside the cache: $out"
grep -q "cache writable" <<<"$out" || fail "the cache is not writable in the sandbox: $out"
grep -q "network reached" <<<"$out" && fail "the sandbox reached the network"
rm -f "$results/$marker"

# 3. A hostile series through the real pipeline.
host_ip=$(getent ahostsv4 deb.debian.org 2>/dev/null | awk '{ print $1; exit }')
net=unknown
if [ -n "$host_ip" ] && python3 -c 'import socket, sys; socket.create_connection((sys.argv[1], 80), 5)' "$host_ip" 2>/dev/null; then
	net=up
fi
say "hostile series on 5.10 x86_64 (host network: $net)"
targets="/tmp/$marker /root/$marker /etc/$marker /var/tmp/$marker $top/$marker $HOME/$marker"
# shellcheck disable=SC2086
rm -f $targets "$results/probe-ok"
t1=$(date +%s)
KMATRIX_PROBE_TARGETS="$top/$marker $HOME/$marker" KMATRIX_PROBE_ALLOWED="$results/probe-ok" \
	KMATRIX_PROBE_HOST="$host_ip" nice -n 10 "$kmatrix" run --matrix "$top/tests/sandbox/matrix.conf" \
	--versions 5.10 --arches x86_64 --steps probe --force --results "$results" >"$results/probe.out" 2>&1
rc=$?
say "hostile run: exit $rc in $(since "$t1") s"
[ $rc -eq 1 ] || fail "hostile run exited $rc, expected 1: $(tail -5 "$results/probe.out")"
log=$results/5.10/x86_64/probe.config.log
res=$results/5.10/x86_64/probe.json
[ "$(jq -r .verdict "$res" 2>/dev/null)" = config-failed ] ||
	fail "hostile cell: verdict $(jq -r .verdict "$res" 2>/dev/null), expected config-failed"
grep -q "kmatrix sandbox probe ran" "$log" 2>/dev/null || fail "the probe did not run (see $log)"
grep -q "probe: cache writable" "$log" || fail "the probe could not write the cache"
uid=$(grep -o "probe: uid [0-9]*" "$log" | head -1 | awk '{ print $3 }')
[ -n "$uid" ] && [ "$uid" != 0 ] || fail "the hostile make ran as uid '$uid'"
for f in /tmp/$marker /root/$marker /etc/$marker $top/$marker; do
	grep -q "probe: denied $f;" "$log" || fail "the hostile make was not refused $f"
done
# shellcheck disable=SC2086
for f in $targets; do
	[ -e "$f" ] && { fail "$f exists after the hostile run"; rm -f "$f"; }
done
grep -q "probe: network reached" "$log" && fail "the hostile make reached the network"
grep -q "probe: network unreachable" "$log" || fail "the network probe did not run"
[ $net = up ] || say "note: this host has no network, so its absence in the sandbox shows little"
[ "$(jq -r .sandbox.mode "$results/run.json")" != null ] || fail "run.json does not record the sandbox"
rm -f "$results/probe-ok"

# 4. No module or kexec command, on a real cell.
say "a real cell with insmod, modprobe, rmmod and kexec shadowed"
shadow=$results/shadow-bin calls=$results/shadow-calls
mkdir -p "$shadow"
rm -f "$calls"
for t in insmod modprobe rmmod kexec; do
	printf '#!/bin/sh\necho "%s $*" >>%s\nexit 1\n' "$t" "$calls" >"$shadow/$t"
	chmod 755 "$shadow/$t"
done
# The wrappers do record, from inside the sandbox too.
PATH=$shadow:$PATH "$kmatrix" sandbox --results "$results" -- insmod probe.ko >/dev/null 2>&1
grep -q "^insmod probe.ko" "$calls" 2>/dev/null || fail "the insmod wrapper records nothing"
rm -f "$calls"
t1=$(date +%s)
PATH=$shadow:$PATH nice -n 10 "$kmatrix" run --versions 5.10 --arches x86_64 --steps baseline \
	--force --results "$results" >"$results/shadow.out" 2>&1
rc=$?
say "real cell: exit $rc in $(since "$t1") s"
[ $rc -eq 0 ] || fail "the baseline cell exited $rc: $(tail -5 "$results/shadow.out")"
[ "$(jq -r .verdict "$results/5.10/x86_64/baseline.json")" = pass ] || fail "the baseline cell did not pass"
[ -e "$calls" ] && fail "module or kexec commands were run: $(cat "$calls")"
grep -nwE "insmod|modprobe|rmmod|kexec" "$top/guest-tests/init" "$top/guest-tests/mkinitramfs" &&
	fail "the guest init or mkinitramfs names a module or kexec command"
pgrep -u "${KMATRIX_BUILD_USER:-kmatrix}" -f "$cache/" >/dev/null && fail "build user processes left running in $cache"

say "total $(since "$t0") s, $fails failure(s)"
[ $fails -eq 0 ]
