#!/bin/bash
# kill -9 anywhere, then resume: a seeded loop SIGKILLs kmatrix at CHAOS_N
# random moments of a real 5.10 run (x86_64, steps stock and baseline),
# and starts it again after each kill.  After every kill: no process of the
# run is left (make, cc1, QEMU, bwrap, git), and the next run says it found
# the dead owner's lock and goes on.  At the end the last run finishes, and
# every cell's verdict and key equal those of an uninterrupted run on the
# same inputs; a reader polling the results during the whole loop never
# read a .json that was not valid JSON; no half-laid tree, git lock or
# root-owned entry is left.
#
# usage: tests/chaos/run.sh   (CHAOS_N=7 kills, CHAOS_SEED=random; printed)
#
# The kills come in rounds, each following one run's course: lay (the tree
# removed first), apply (checking out a step), configure, build, own (the
# hand-over of a root-owned build directory to the build user), boot,
# result (one half written).  Each kill waits for the line kmatrix prints
# as the stage starts ("kmatrix: 5.10 x86_64 stock: build"), then a random
# delay within the stage's usual length, cut short when the stage ends
# first (the kill then hits the next stage as it starts, and says so: a
# delay past the stage's end would land anywhere later; the summary counts
# the kills that hit their stage).  "own" and "result" are too short to
# hit by time, so kmatrix kills itself there (KMATRIX_CHAOS_KILL,
# matrix/host/chaos.h) at a random entry of the walk, or at one of the first
# three results it writes (run.json, then the cells').  A round starts
# from no results and no stored images, so that every stage runs; a kill
# whose stage did not come (the run ended first) is said, not counted.
# The same seed gives the same kinds and delays; the moments still move
# with the machine's speed.
#
# Its cache is its own ($CHAOS_CACHE, else <kmatrix cache>-chaos): the
# lay kills remove the tree, which another suite's cache must keep.
# ccache and guest-debs are the kmatrix cache's, shared (as in
# tests/faults/run.sh with FAULTS_CACHE).  Each run appends a line to
# <its cache>/chaos-history.tsv: time, commit, user, CHAOS_N, seed, kills
# survived, seconds, failures, result reads.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/share-cache
. "$top/tests/lib/share-cache"
kmatrix=$top/build/kmatrix
base=${KMATRIX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix}
cache=${CHAOS_CACHE:-$base-chaos}
work=$cache/chaos
results=$work/results
reference=$work/reference
version=5.10
arch=x86_64
steps="stock baseline"
kills=${CHAOS_N:-7}
seed=${CHAOS_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
user=${KMATRIX_BUILD_USER:-kmatrix}
fails=0
survived=0
on_target=0 # kills that hit the stage they were aimed at

say() { echo "chaos: $*"; }
fail() {
	echo "chaos: FAIL: $*"
	fails=$((fails + 1))
}

# bash's RANDOM, seeded: the same seed draws the same numbers.  Not in a
# subshell ($(...)), which would not advance it: the draw is in $r.
RANDOM=$seed
draw() { # N: 0..N-1; no N to draw from is the suite's own failure
	if [ "${1:-0}" -lt 1 ]; then
		fail "kill $i ($kind): nothing to draw from (N=${1:-none})"
		return 1
	fi
	r=$(((RANDOM << 15 | RANDOM) % $1))
}

# "own" comes after "build": it needs the build directory that the
# round's configure creates (on a cold cache the reference run builds
# nothing, its cells come from check-e2e).
# Each kind, the line its stage starts with, and the longest delay after
# it in tenths of a second: about the stage's length here on a fast day
# (ccache warm), since a delay past the stage's end is cut short there.
# Measured: lay 32 to 77 s, apply 0.3 s, build 38 s, boot 6 to 8 s.
kinds=(lay apply configure build own boot result)
declare -A trigger=([lay]='^kmatrix: laying ' [apply]=': apply$'
	[configure]=': configure$' [build]=': build$' [boot]=': boot$')
declare -A window=([lay]=400 [apply]=4 [configure]=100 [build]=400 [boot]=70)

# --- processes of the run --------------------------------------------------

# Every process of the run: in the session of kmatrix ($1, started with
# setsid), or with the cache in its command line or working directory
# (bwrap's children, make and the compilers in the build directory, QEMU).
# Never another kmatrix's: their caches are other paths.
run_procs() { # SID
	python3 - "$1" "$cache" "$$" "${poller:-0}" <<'PY'
import os, sys
sid, cache, me, poller = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
skip = {me, poller, str(os.getpid()), str(os.getppid())}
for p in os.listdir("/proc"):
    if not p.isdigit() or p in skip:
        continue
    try:
        stat = open(f"/proc/{p}/stat").read()
        f = stat[stat.rindex(")") + 2:].split()
        if f[0] == "Z":
            continue
        argv = open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")
        argv = [a.decode(errors="replace") for a in argv if a]
        try:
            cwd = os.readlink(f"/proc/{p}/cwd")
        except OSError:
            cwd = ""
    except OSError:
        continue
    mine = f[3] == sid or cwd == cache or cwd.startswith(cache + "/") or \
        any(a == cache or cache + "/" in a for a in argv)
    if mine:
        print(p, " ".join(argv)[:160])
PY
}

# No process of the killed run is left, a few seconds after the kill.
no_strays() { # SID
	local n=50 left
	while [ $n -gt 0 ]; do
		left=$(run_procs "$1")
		[ -z "$left" ] && return 0
		sleep 0.2
		n=$((n - 1))
	done
	fail "kill $i ($kind): processes of the run survived:"
	sed 's/^/    | /' <<<"$left"
	# Ours: end them by pid, so that the next run can be judged.
	awk '{ print $1 }' <<<"$left" | xargs -r kill -9
	sleep 1
}

# --- running kmatrix -------------------------------------------------------

# kmatrix run in the background, in a session of its own (its pid is the
# session id), its output in LOG; ENV... (VAR=value) added to its
# environment.  $pid is kmatrix itself.
km_bg() { # LOG RESULTS [ENV...]
	local log=$1 res=$2
	shift 2
	(cd "$work" && exec env "$@" setsid nice -n 10 "$kmatrix" run --cache "$cache" \
		--results "$res" --versions "$version" --arches "$arch" \
		--steps "${steps// /,}") >"$log" 2>&1 &
	pid=$!
}

# The run's log holds PATTERN (grep -E), or the run has ended.
wait_line() { # LOG PATTERN
	while kill -0 "$pid" 2>/dev/null; do
		grep -qE -- "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}

# Tenths of a second to sleep(1)'s seconds.
tenths() { printf '%d.%d' $(($1 / 10)) $(($1 % 10)); }

# What kmatrix was doing when it died: its last progress line, or its
# last line that PATTERN matches.
last_stage() { # LOG [PATTERN]
	local l
	l=$(grep -E -- "${2:-^kmatrix: (laying|5\.10 )}" "$1" | tail -n 1 |
		sed 's/^kmatrix: //; s/ from .*//')
	echo "${l:-before any stage}"
}

# The next run found the killed owner's lock.
found_lock() { # LOG DEAD-PID
	grep -qF "found the lock $cache/lock of pid $2, which died" "$1" ||
		fail "run $(basename "$1" .log) does not report the lock of pid $2: $(head -n 3 "$1")"
}

# --- the kinds -------------------------------------------------------------

# Make stage KIND happen in the next run, and say how to hit it: $hook
# (KMATRIX_CHAOS_KILL) or the trigger line and a delay ($delay, tenths).
prepare() { # KIND
	local entries
	hook=
	delay=0
	case $1 in
	lay)
		rm -rf "$cache/trees/$version"
		;;
	own)
		# A build directory handed to root (a tool run by hand as
		# root): the next run gives every entry back, and dies at a
		# random one of them.  Not the tree: its new ctimes would have
		# git hash every file again.
		if [ ! -d "$cache/build/$version" ]; then
			fail "kill $i (own): no build directory $cache/build/$version to hand to root"
			return 1
		fi
		chown -R root:root "$cache/build/$version" ||
			{ fail "kill $i (own): chown failed"; return 1; }
		entries=$(find "$cache/build/$version" | wc -l)
		draw "$entries" || return 1
		hook=own:$((r + 1))
		;;
	result)
		# The n-th result file the run writes: run.json first, then
		# each cell's as it ends.
		draw 3
		hook=result:$((r + 1))
		;;
	*) ;;
	esac
	if [ -z "$hook" ]; then
		draw "${window[$1]}" || return 1
		delay=$r
	fi
}

# The last progress line in LOG of what the stage AT belongs to: its cell
# ("5.10 x86_64 stock: build"), whose boot runs beside the next cell's
# stages; for the lay, the run's.
stage_now() { # LOG AT
	case $2 in
	laying*) last_stage "$1" ;;
	*) last_stage "$1" "^kmatrix: ${2%: *}: " ;;
	esac
}

# Wait $delay tenths after KIND's line in LOG, or until its stage ends;
# $killed, $how and $hit (1: still in its stage) for the kill that follows.
aim_kill() { # KIND LOG
	local at n=0 now
	at=$(last_stage "$2" "${trigger[$1]}")
	while [ $n -lt "$delay" ] && [ "$(stage_now "$2" "$at")" = "$at" ]; do
		sleep 0.1
		n=$((n + 1))
	done
	killed=$pid
	now=$(stage_now "$2" "$at")
	if [ "$now" = "$at" ]; then
		how="$(tenths $n) s after its line, during: $now (the run: $(last_stage "$2"))"
		hit=1
	else
		hit=0
		how="its stage ended $(tenths $n) s after its line (of $(tenths "$delay") s drawn): at $now"
	fi
}

# Start a run, kill it as prepared for KIND; $killed is its pid, $how what
# the kill hit.  Returns 1 when the run ended before the kill came.
kill_run() { # KIND LOG
	local log=$2
	if [ -n "$hook" ]; then
		km_bg "$log" "$results" KMATRIX_CHAOS_KILL="$hook"
		wait "$pid" 2>/dev/null
		rc=$?
		killed=$pid
		how="by itself at $hook ($(last_stage "$log"))"
		[ $rc -eq 137 ] || { fail "the run hooked at $hook exited $rc, not killed"; return 1; }
		on_target=$((on_target + 1))
		return 0
	fi
	km_bg "$log" "$results"
	if ! wait_line "$log" "${trigger[$1]}"; then
		wait "$pid" 2>/dev/null
		say "  kill $i ($1): the run ended (exit $?) before the stage began"
		return 1
	fi
	aim_kill "$1" "$log"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rc=$?
	[ $rc -eq 137 ] || { say "  kill $i ($1): the run ended (exit $rc) before the kill"; return 1; }
	on_target=$((on_target + hit))
	return 0
}

# --- checks at the end -----------------------------------------------------

# Every cell of the reference has the same verdict and key in the chaos
# results, and there are no others.
same_cells() {
	python3 - "$reference/$version" "$results/$version" <<'PY'
import glob, json, os, sys
def cells(d):
    out = {}
    for f in glob.glob(os.path.join(d, "*", "*.json")):
        r = json.load(open(f))
        out[os.path.relpath(f, d)] = (r["verdict"], r["key"])
    return out
ref, got = cells(sys.argv[1]), cells(sys.argv[2])
bad = 0
for c in sorted(set(ref) | set(got)):
    a, b = ref.get(c), got.get(c)
    print("chaos:   %s: reference %s, after the kills %s" % (c, a and a[0], b and b[0]))
    if a != b:
        print("chaos: FAIL: %s differs: %s / %s" % (c, a, b))
        bad += 1
sys.exit(bad != 0 or not ref)
PY
}

# What a run leaves when it ends: no half-laid tree, no git lock, no
# result's temporary file, nothing of the cache or results that the build
# user does not own.
clean_state() {
	local left
	left=$(ls -d "$cache"/trees/*.tmp 2>/dev/null)
	[ -z "$left" ] || fail "a half-laid tree is left: $left"
	left=$(find "$cache/trees/$version/.git" -maxdepth 3 -name '*.lock' 2>/dev/null)
	[ -z "$left" ] || fail "git lock files are left: $left"
	left=$(find "$results" -name '*.json.??????')
	[ -z "$left" ] || fail "a result's temporary file is left: $left"
	left=$(find "$cache/trees" "$cache/build" "$results" ! -user "$user" 2>/dev/null | head -n 3)
	[ -z "$left" ] || fail "not handed to $user: $left"
}

# A reader that polls every result file while the loop runs (every 20 ms,
# at nice 19) and keeps the names of those that were not valid JSON.  The
# results path comes in the environment, so that the reader is not taken
# for a process of the run.
start_poller() {
	CHAOS_RESULTS=$results CHAOS_OUT=$work/poller.out nice -n 19 python3 -c '
import glob, json, os, sys, time
res, out = os.environ["CHAOS_RESULTS"], os.environ["CHAOS_OUT"]
reads, bad = 0, []
os.chdir("/")
while not os.path.exists(out + ".stop"):
    time.sleep(0.02)
    for f in glob.glob(os.path.join(res, "*", "*", "*.json")):
        try:
            text = open(f, "rb").read()
        except OSError:
            continue
        reads += 1
        try:
            json.loads(text)
        except ValueError:
            bad.append("%s (%d bytes)" % (f, len(text)))
with open(out, "w") as o:
    o.write("%d\n" % reads)
    o.write("".join(b + "\n" for b in bad))
' &
	poller=$!
}

stop_poller() {
	local reads
	touch "$work/poller.out.stop"
	wait "$poller"
	reads=$(head -n 1 "$work/poller.out")
	say "the reader polled $reads result files during the loop"
	[ "${reads:-0}" -gt 0 ] || fail "the reader read no result"
	if [ "$(wc -l <"$work/poller.out")" -gt 1 ]; then
		fail "the reader saw invalid JSON:"
		tail -n +2 "$work/poller.out" | sort -u | sed 's/^/    | /'
	fi
}

# --- the loop --------------------------------------------------------------

[ -x "$kmatrix" ] || { say "$kmatrix missing: run make"; exit 2; }
mkdir -p "$work"
share_cache "$base" "$cache"
t0=$(date +%s)
say "seed $seed, $kills kills, cache $cache (replay: CHAOS_SEED=$seed CHAOS_N=$kills)"

# The uninterrupted run: its cells are cached when nothing changed.  In
# make check, check-e2e has just run the same cells on the kmatrix cache:
# their results seed it, and the run reuses one only when its content key
# is this run's, so a cold cache does not build them twice.  Alone, or
# with e2e's results stale, the cells are built here.
e2e=$base/e2e-results/$version/$arch
mkdir -p "$reference/$version/$arch"
for s in $steps; do
	[ ! -f "$e2e/$s.json" ] || cp -p "$e2e/$s".* "$reference/$version/$arch/"
done
km_bg "$work/reference.log" "$reference"
wait "$pid"
rc=$?
[ $rc -le 1 ] || { fail "the uninterrupted run exited $rc"; tail -n 5 "$work/reference.log"; exit 1; }
say "uninterrupted run: exit $rc, $(($(date +%s) - t0)) s"

rm -rf "$results" "$work"/run-*.log "$work/poller.out"*
start_poller
declare -A lock_pid
prev=
for ((i = 1; i <= kills; i++)); do
	kind=${kinds[$(((i - 1) % ${#kinds[@]}))]}
	if [ "$kind" = lay ]; then
		# A round: every stage must run, no cell or image reused.
		rm -rf "$results" "$cache/images"
	fi
	if ! prepare "$kind"; then
		continue # said by fail(): a kill not aimed is not started
	fi
	t=$(date +%s)
	[ -n "$prev" ] && lock_pid[run-$i]=$prev
	prev=
	if kill_run "$kind" "$work/run-$i.log"; then
		survived=$((survived + 1))
		say "kill $i ($kind): pid $killed, $how"
		no_strays "$killed"
		prev=$killed
	fi
	say "  run $i: $(($(date +%s) - t)) s"
done

# The last run: to its end.
[ -n "$prev" ] && lock_pid[run-final]=$prev
km_bg "$work/run-final.log" "$results"
wait "$pid"
rc=$?
# Each run after a kill reported the lock its predecessor left.
for j in "${!lock_pid[@]}"; do
	found_lock "$work/$j.log" "${lock_pid[$j]}"
done
[ $rc -le 1 ] || { fail "the run after the last kill exited $rc"; tail -n 10 "$work/run-final.log"; }
no_strays "$pid"
stop_poller
same_cells || fail "the cells differ from the uninterrupted run's"
clean_state
say "seed $seed: $survived of $kills kills survived ($on_target in the stage they were aimed at), $(($(date +%s) - t0)) s, $fails failure(s)"
# A run nobody watched (CI's) leaves its seed and outcome where the next
# reader of the cache finds them.
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" \
	"$(git -C "$top" rev-parse --short HEAD 2>/dev/null)" "$(id -un)" "$kills" "$seed" \
	"$survived" "$(($(date +%s) - t0))" "$fails" "$(head -n 1 "$work/poller.out" 2>/dev/null)" \
	>>"$cache/chaos-history.tsv"
[ $fails -eq 0 ]
