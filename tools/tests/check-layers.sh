#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-layers.sh: tools/check-layers on tiny fixture projects (part of
# make check-unit), then on the real build.  Two layers, low below high:
# a clean project passes; a call up, an include up and a circle of calls
# inside one layer each fail, naming the edge.
# Usage: check-layers.sh [BUILD_DIR]   (the real build's objects)
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/tools/check-layers
pass=0
fail=0
out=$(mktemp -d "${TMPDIR:-/tmp}/check-layers-test.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT

ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }

# fixture NAME: a project whose files come from the here-document, one
# "path<TAB>line" per line, each .c compiled into build/matrix/.
fixture() {
	local p=$out/$1 f
	mkdir -p "$p/matrix/low" "$p/matrix/high"
	echo "KM_DIRS := low high" >"$p/matrix/build.mk"
	while IFS=$'\t' read -r f line; do
		echo "$line" >>"$p/matrix/$f"
	done
	for f in "$p"/matrix/*/*.c; do
		[ -e "$f" ] || continue
		f=${f#"$p"/matrix/}
		mkdir -p "$p/build/matrix/$(dirname "$f")"
		gcc -c -I"$p/matrix/low" -I"$p/matrix/high" -o "$p/build/matrix/${f%.c}.o" \
			"$p/matrix/$f" || return 1
	done
}

# expect NAME RC PATTERN: check-layers on fixture NAME exits RC and prints PATTERN.
expect() {
	local got rc
	got=$("$tool" --top "$out/$1" 2>&1)
	rc=$?
	if [ $rc -eq "$2" ] && grep -q -- "$3" <<<"$got"; then
		ok "$1: exit $rc, '$3'"
	else
		not_ok "$1: exit $rc (want $2), output:"
		echo "$got" | sed 's/^/#   /'
	fi
}

fixture clean <<'T'
low/a.h	int low_fn(void);
low/a.c	#include "a.h"
low/a.c	int low_fn(void) { return 1; }
high/b.c	#include "a.h"
high/b.c	int high_fn(void) { return low_fn(); }
T
expect clean 0 "no upward edge, no circle"

fixture upcall <<'T'
low/a.c	int high_fn(void);
low/a.c	int low_fn(void) { return high_fn(); }
high/b.c	int high_fn(void) { return 2; }
T
expect upcall 1 "low/a.c calls high_fn of high/b.c, a higher layer"

fixture upinclude <<'T'
low/a.c	#include "b.h"
low/a.c	int low_fn(void) { return 1; }
high/b.h	int high_fn(void);
high/b.c	int high_fn(void) { return 2; }
T
expect upinclude 1 "low/a.c include b.h of high/b.h, a higher layer"

fixture circle <<'T'
low/a.c	int c_fn(void);
low/a.c	int a_fn(int n) { return n ? c_fn() : 0; }
low/c.c	int a_fn(int n);
low/c.c	int c_fn(void) { return a_fn(0); }
T
expect circle 1 "low/c.c -> low/a.c (calls a_fn)"

fixture nobuild <<'T'
low/a.h	int low_fn(void);
T
expect nobuild 2 "no objects under"

# The real matrix/, as built by make.
if got=$("$tool" ${1:+"$1"} 2>&1); then
	ok "matrix/: $got"
else
	not_ok "matrix/ is not layered:"
	echo "$got" | sed 's/^/#   /'
fi

echo "check-layers: $pass passed, $fail failed"
[ $fail -eq 0 ]
