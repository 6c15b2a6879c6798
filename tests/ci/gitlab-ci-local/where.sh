# shellcheck shell=sh
# Where tools/setup-host installs the pinned gitlab-ci-local and where
# tests/ci/gitlab-local.sh runs it from: outside the repository, named by
# the lock file's hash, so a new pin installs beside the old one.
gcl_src=$(cd "$(dirname "${BASH_SOURCE:-$0}")" && pwd)
gcl_dir=${XDG_CACHE_HOME:-$HOME/.cache}/kmatrix-tools/gitlab-ci-local-$(sha256sum "$gcl_src/package-lock.json" | cut -c1-12)
gcl_bin=$gcl_dir/node_modules/.bin/gitlab-ci-local
