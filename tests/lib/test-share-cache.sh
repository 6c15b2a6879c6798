#!/bin/bash
# tests/lib/share-cache: links a suite's cache to the kmatrix cache's
# ccache and guest-debs only where those exist, replaces a dangling link,
# keeps a directory of its own, and links nothing into the kmatrix cache.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/share-cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { # DESCRIPTION TEST...
	local what=$1
	shift
	if "$@"; then
		echo "ok - $what"
	else
		echo "not ok - $what"
		fails=$((fails + 1))
	fi
}
base=$tmp/kmatrix cache=$tmp/suite
mkdir -p "$base/guest-debs" "$cache"
share_cache "$base" "$cache"
ok "guest-debs linked" test "$(readlink "$cache/guest-debs")" = "$base/guest-debs"
ok "no link to a ccache the kmatrix cache lacks" test ! -e "$cache/ccache" -a ! -L "$cache/ccache"
ln -s "$base/ccache" "$cache/ccache"
share_cache "$base" "$cache"
ok "a dangling link is removed" test ! -L "$cache/ccache"
mkdir "$base/ccache"
share_cache "$base" "$cache"
ok "ccache linked once it exists" test "$(readlink "$cache/ccache")" = "$base/ccache"
rm "$cache/ccache" && mkdir "$cache/ccache"
share_cache "$base" "$cache"
ok "a directory of its own is kept" test -d "$cache/ccache" -a ! -L "$cache/ccache"
share_cache "$base" "$base"
ok "nothing linked into the kmatrix cache itself" test ! -L "$base/ccache/ccache" -a ! -L "$base/guest-debs/guest-debs"
[ $fails -eq 0 ]
