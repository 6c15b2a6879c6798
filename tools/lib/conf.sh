# shellcheck shell=bash
# Sourced by the maintainer tools: the matrix as kmatrix reads it
# (`kmatrix conf`), so that no tool parses matrix.conf or an order file of
# its own.  The caller sets $kmatrix (the binary) and $top (the project
# whose matrix is read; paths in it are relative to $top).

km_conf() {
	KMATRIX_TOP=${top:?} "${kmatrix:?}" conf "$@"
}

# "version baseline-dir series-dir", directories relative to $top, one
# line per version in matrix.conf's order.  Fails when kmatrix does.
conf_versions() {
	local names v b s

	names=$(km_conf versions) || return 2
	for v in $names; do
		b=$(km_conf version "$v" baseline) && s=$(km_conf version "$v" series) ||
			return 2
		echo "$v ${b#"$top"/} ${s#"$top"/}"
	done
}
