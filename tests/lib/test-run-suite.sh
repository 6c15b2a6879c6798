#!/bin/bash
# tests/lib/run-suite: a script that hits a shell error and exits 0 fails;
# a clean one keeps its status, 0 or not; its stderr is passed through.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # WANT-STATUS BODY
	printf '#!/bin/bash\nset -u\n%s\n' "$2" >"$tmp/s.sh"
	chmod +x "$tmp/s.sh"
	"$here/run-suite" "$tmp/s.sh" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$1" = nonzero ] && [ $rc -ne 0 ] || [ "$1" = "$rc" ]; then
		echo "ok - run-suite exit $rc: $2"
	else
		echo "not ok - run-suite exit $rc, wanted $1: $2"
		sed 's/^/# /' "$tmp/err"
		fails=$((fails + 1))
	fi
}
check nonzero 'n=0; echo $((7 % n)); exit 0'
check nonzero 'no_such_command_here; exit 0'
check nonzero 'echo "$unset_variable"'
check 0 'echo fine; echo "a note" >&2'
check 5 'exit 5'
"$here/run-suite" bash -c 'echo kept >&2' 2>&1 | grep -q '^kept$' ||
	{ echo "not ok - stderr not passed through"; fails=$((fails + 1)); }
[ $fails -eq 0 ]
