#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-abi.sh BIN: rlimit-abi on real kernel trees (make check-abi).
#
#  1. the stock trees (~/.cache/kmatrix/trees/<v>) pass;
#  2. each fault fixture (tools/tests/abi-fault-*.patch), applied to a
#     scratch worktree of the 7.2 tree, is caught with the right message
#     and nothing else is reported;
#  3. the fast header install is faithful: for a few arches of one tree,
#     what it installs equals, file for file, what a real
#     `make ARCH=<arch> headers_install` installs (cold, private cache);
#  4. every step of the series (baseline + series/order, or a version's
#     backports/<v>/series), applied with git am in a worktree, passes
#     with the baseline given as --baseline.
#
# Worktrees live under <cache>/work/.  Timings are printed for the report.
# ABI_FAITHFUL_ARCHES overrides the arches of step 3 (default: mips, an arch
# with its own resource.h; x86, a generic-y wrapper; um, HEADER_ARCH): a real
# headers_install costs 10-13 s per arch on an idle machine, minutes on a
# loaded one.
set -u

bin=$(realpath "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
# The trees belong to kmatrix's build user and untrusted builds wrote them:
# git and make run there only inside kmatrix's sandbox, as that user; the
# sandbox hides /var/tmp, so this project is shown to it by name.
if [ -z "${KMATRIX_SANDBOX:-}" ]; then
	exec "$top/build/kmatrix" sandbox --ro "$top" -- "$0" "$bin"
fi
cache=${KMATRIX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix}
trees=$cache/trees
work=$cache/work
faithful_arches=${ABI_FAITHFUL_ARCHES:-mips x86 um}
pass=0
fail=0
out=$(mktemp -d "${TMPDIR:-/tmp}/check-abi.XXXXXX")
trap 'rm -rf "$out"' EXIT

ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc | xargs printf '%.1f'; }

# git am as kmatrix does it, so step commits are the same everywhere.
git_am() {
	GIT_AUTHOR_NAME=kmatrix GIT_AUTHOR_EMAIL=kmatrix@invalid \
		git -C "$1" -c user.name=kmatrix -c user.email=kmatrix@invalid \
		-c commit.gpgsign=false am -q --committer-date-is-author-date "$2"
}

# A scratch worktree of trees/<v> at stock, clean.
worktree() {
	local v=$1 wt=$2

	# a tree laid anew no longer knows the worktrees of the old one
	if [ -d "$wt" ] && ! git -C "$wt" rev-parse -q --verify stock >/dev/null 2>&1; then
		echo "# $wt: not a worktree of $trees/$v any more: made again"
		rm -rf "$wt"
	fi
	if [ ! -d "$wt" ]; then
		git -C "$trees/$v" worktree prune
		nice -n 10 git -C "$trees/$v" worktree add -q --detach "$wt" stock || return 1
	fi
	git -C "$wt" am --abort >/dev/null 2>&1
	git -C "$wt" checkout -q -f --detach stock && git -C "$wt" clean -q -fd
}

versions=()
for v in 5.10 6.1 6.12 7.2; do
	[ -d "$trees/$v/.git" ] && versions+=("$v")
done
[ ${#versions[@]} -gt 0 ] || { echo "check-abi: no trees under $trees"; exit 1; }

# 1. The stock trees, each arch checked.  By their tag, not their checkout,
# which kmatrix moves to the step it builds.
t0=$(now)
args=()
for v in "${versions[@]}"; do args+=("$trees/$v@stock"); done
nice -n 10 "$bin" --json "$out/stock.json" "${args[@]}" >"$out/stock.txt" 2>&1
rc=$?
if [ $rc -eq 0 ] && jq -e '.ok and ([.trees[] | select(.arches_checked < 20)] | length == 0)' \
	"$out/stock.json" >/dev/null; then
	ok "stock trees ${versions[*]} pass ($(since "$t0") s)"
else
	not_ok "stock trees ${versions[*]}: exit $rc"
	sed 's/^/# /' "$out/stock.txt" | grep -E 'FAIL|error' | head -20
fi

# 2. Fault fixtures on a scratch worktree of 7.2.
expect_fault() {
	local patch=$1 want=$2 only=$3 wt=$work/abi-7.2 name txt rc

	name=$(basename "$patch" .patch)
	txt=$out/$name.txt
	if ! worktree 7.2 "$wt" || ! git -C "$wt" apply "$patch"; then
		not_ok "$name: cannot apply to $wt"
		return
	fi
	nice -n 10 "$bin" "$trees/7.2@stock" "$wt" >"$txt" 2>&1
	rc=$?
	git -C "$wt" apply -R "$patch"
	if [ $rc -ne 1 ]; then
		not_ok "$name: exit $rc, want 1"
	elif ! grep -qF -- "$want" "$txt"; then
		not_ok "$name: no finding '$want'"
		grep FAIL "$txt" | sed 's/^/# /'
	elif grep '^FAIL' "$txt" | grep -vqE -- "$only"; then
		not_ok "$name: findings beyond /$only/"
		grep FAIL "$txt" | grep -vE -- "$only" | sed 's/^/# /' | head
	else
		ok "$name: $want"
	fi
}

if [ -d "$trees/7.2/.git" ]; then
	expect_fault "$top/tools/tests/abi-fault-mips-rtprio.patch" \
		"FAIL [fixed-number] abi-7.2: mips: RLIMIT_RTPRIO is 16, must be 14 (arch/mips/include/uapi/asm/resource.h)" \
		"abi-7.2: mips: "
	expect_fault "$top/tools/tests/abi-fault-nlimits.patch" \
		"FAIL [nlimits] abi-7.2: x86: RLIM_NLIMITS is 15, must be 16 (highest is RLIMIT_RTTIME = 15) (include/uapi/asm-generic/resource.h)" \
		"\[(nlimits|moved|libc|coverage)\] abi-7.2: .*(RLIM_NLIMITS|entry for 15)"
	expect_fault "$top/tools/tests/abi-fault-init-rlimits.patch" \
		"FAIL [coverage] abi-7.2: x86: INIT_RLIMITS (include/asm-generic/resource.h) has no entry for 14 (RLIMIT_RTPRIO)" \
		"\[coverage\] abi-7.2: [a-z0-9]+: INIT_RLIMITS \(include/asm-generic/resource.h\) has no entry for 14 \(RLIMIT_RTPRIO\)"
fi

# 3. Fast install == real headers_install, on a clean 7.2 worktree, cold.
faithful() {
	local v=7.2 wt=$work/abi-7.2 fcache=$out/cache hash a real rc t1 f

	worktree "$v" "$wt" || { not_ok "faithful: no worktree"; return; }
	t1=$(now)
	KMATRIX_CACHE=$fcache nice -n 10 "$bin" -q --json "$out/cold.json" "$wt" >/dev/null 2>&1
	rc=$?
	echo "# one full tree ($v, all arches), cold: $(since "$t1") s (exit $rc)"
	t1=$(now)
	KMATRIX_CACHE=$fcache "$bin" -q "$wt" >/dev/null 2>&1
	echo "# the same tree, cached: $(since "$t1") s"
	hash=$(jq -r '.trees[0].hash' "$out/cold.json")
	for a in $faithful_arches; do
		real=$out/real-$a
		t1=$(now)
		if ! nice -n 10 make -s -C "$wt" O="$real/obj" ARCH="$a" \
			INSTALL_HDR_PATH="$real/hdr" headers_install >"$real.log" 2>&1; then
			if grep -q 'not exportable' "$real.log" &&
				jq -e --arg a "$a" '.matrix[] | select(.trees == "abi-7.2" and .arch == $a) |
				.state == "not-exportable"' "$out/cold.json" >/dev/null; then
				ok "faithful: $a is not exportable in both"
			else
				not_ok "faithful: real headers_install for $a failed"
				tail -3 "$real.log" | sed 's/^/# /'
			fi
			continue
		fi
		fast=$fcache/abi/$hash/$a/usr/include
		# the real install's closure of asm/resource.h, as cpp sees it
		(cd "$real/hdr/include" && cpp -M -nostdinc -I. asm/resource.h |
			tr ' \\' '\n\n' | grep '\.h$' | sort -u) >"$real.closure"
		(cd "$fast" && find . -name '*.h' | sed 's|^\./||' | sort) >"$real.fast"
		if ! cmp -s "$real.closure" "$real.fast"; then
			not_ok "faithful: $a installs other files"
			diff "$real.closure" "$real.fast" | sed 's/^/# /'
			continue
		fi
		f=$(while read -r h; do cmp -s "$real/hdr/include/$h" "$fast/$h" || echo "$h"; done \
			<"$real.closure")
		if [ -n "$f" ]; then
			not_ok "faithful: $a: $f differ"
		else
			ok "faithful: $a: $(wc -l <"$real.closure") headers identical to headers_install ($(since "$t1") s for the real one)"
		fi
	done
}
[ -d "$trees/7.2/.git" ] && faithful

# 4. The steps of the series, per version with a baseline.
steps() {
	local v=$1 wt=$work/abi-$1 dir order base p id f args=() t1 rc

	base=$(ls "$top/backports/$v/baseline/"*.patch 2>/dev/null | head -1)
	[ -n "$base" ] || { echo "# $v: no baseline yet, steps skipped"; return; }
	dir=$top/series
	[ -f "$top/backports/$v/series/order" ] && dir=$top/backports/$v/series
	worktree "$v" "$wt" || { not_ok "$v steps: no worktree"; return; }
	if ! git_am "$wt" "$base"; then
		echo "# $v: the baseline does not apply: steps skipped"
		return
	fi
	args+=(--baseline "$wt@$(git -C "$wt" rev-parse HEAD)" "$trees/$v@stock")
	while read -r id f; do
		case $id in ''|'#'*) continue ;; esac
		if ! git_am "$wt" "$dir/$f"; then
			not_ok "$v step $id: $f does not apply"
			return
		fi
		args+=("$wt@$(git -C "$wt" rev-parse HEAD)")
	done <"$dir/order"
	t1=$(now)
	nice -n 10 "$bin" "${args[@]}" >"$out/steps-$v.txt" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "$v: stock, baseline and $((${#args[@]} - 3)) series steps pass ($(since "$t1") s)"
	else
		not_ok "$v steps: exit $rc"
		grep FAIL "$out/steps-$v.txt" | sed 's/^/# /' | head -20
	fi
}
for v in "${versions[@]}"; do steps "$v"; done

echo "check-abi: $pass passed, $fail failed"
[ $fail -eq 0 ]
