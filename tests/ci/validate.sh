#!/bin/bash
# The pipelines `kmatrix ci` writes validate against each system's published
# schema (GitLab's CI schema, SchemaStore's GitHub workflow schema; sources in
# SCHEMAS.md), checked with Debian's python3-jsonschema, for several shard
# counts; and they run what Documentation/ci.md says a shard and the final job run.
# A broken file must fail, so a validator that accepts anything is caught.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
kmatrix=$top/build/kmatrix
here=$top/tests/ci
# Debian's interpreter: python3-jsonschema and python3-yaml are its modules
py=/usr/bin/python3
fails=0

fail() { echo "ci: FAIL: $*"; fails=$((fails + 1)); }

[ -x "$kmatrix" ] || { echo "ci: $kmatrix missing: run make"; exit 2; }
$py -c 'import jsonschema, yaml' 2>/dev/null ||
	{ echo "ci: python3-jsonschema or python3-yaml missing: run make setup"; exit 2; }
work=$(mktemp -d /tmp/kmatrix-ci-XXXXXX)
trap 'rm -rf "$work"' EXIT

# validate SCHEMA FILE SYSTEM SHARDS: schema errors, then what the jobs run
validate() {
	$py - "$@" <<'PY'
import json, sys
import jsonschema, yaml

schema_path, path, system, shards = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
schema = json.load(open(schema_path))
doc = yaml.safe_load(open(path))
errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
for e in errors:
    print("  %s: %s" % ("/".join(map(str, e.path)) or "(top)", e.message[:300]))
if errors:
    sys.exit(1)

def commands(text_or_list):
    if isinstance(text_or_list, list):
        return text_or_list
    return text_or_list.splitlines()

if system == "gitlab":
    shard = doc["kmatrix-shard"]
    got = shard["parallel"]["matrix"][0]["KMATRIX_SHARD"]
    assert got == [str(i) for i in range(1, shards + 1)], got
    assert doc["variables"]["KMATRIX_SHARDS"] == str(shards)
    shard_cmds, final_cmds = shard["script"], doc["kmatrix-report"]["script"]
    assert doc["kmatrix-report"]["stage"] == doc["stages"][-1]
    cached = [p for c in shard["cache"] for p in c["paths"]]
    assert ".kmatrix-cache/ccache" in cached and ".kmatrix-cache/trees" in cached, cached
    assert "kmatrix-results/" in shard["artifacts"]["paths"]
else:
    jobs = doc["jobs"]
    assert jobs["shard"]["strategy"]["matrix"]["shard"] == list(range(1, shards + 1))
    assert jobs["shard"]["env"]["KMATRIX_SHARDS"] == shards
    assert jobs["report"]["needs"] == "shard"
    shard_cmds = [l for s in jobs["shard"]["steps"] if "run" in s for l in commands(s["run"])]
    final_cmds = [l for s in jobs["report"]["steps"] if "run" in s for l in commands(s["run"])]
    cache = [s for s in jobs["shard"]["steps"] if s.get("uses", "").startswith("actions/cache@")]
    assert "kmatrix/ccache" in cache[0]["with"]["path"] and "kmatrix/trees" in cache[0]["with"]["path"]
    uploads = [s for s in jobs["shard"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert uploads and uploads[0]["with"]["path"].startswith("kmatrix-results/")
assert "make setup all" in shard_cmds, shard_cmds
assert any('kmatrix run --shard "${KMATRIX_SHARD}/${KMATRIX_SHARDS}"' in c for c in shard_cmds), shard_cmds
assert any("kmatrix merge -o kmatrix-merged kmatrix-results/*" in c for c in final_cmds), final_cmds
assert any("kmatrix report --results kmatrix-merged" in c for c in final_cmds), final_cmds
PY
}

for n in 1 4 17; do
	for system in gitlab github; do
		f=$work/$system-$n.yml
		if [ $system = gitlab ]; then schema=$here/gitlab-ci.schema.json
		else schema=$here/github-workflow.schema.json; fi
		"$kmatrix" ci $system --shards $n -o "$f" || { fail "kmatrix ci $system --shards $n"; continue; }
		if validate "$schema" "$f" $system $n; then
			echo "ci: $system, $n shards: valid"
		else
			fail "$system, $n shards: $f does not validate"
		fi
	done
done

# Negative controls: a job without what its system requires is refused.
sed 's/^    runs-on: .*$/    runs-on-typo: x/' "$work/github-4.yml" >"$work/broken-github.yml"
validate "$here/github-workflow.schema.json" "$work/broken-github.yml" github 4 >/dev/null &&
	fail "a workflow job without runs-on validated"
sed 's/^  stage: shard$/  stage: [shard]/; s/^      policy: pull$/      policy: sometimes/' \
	"$work/gitlab-4.yml" >"$work/broken-gitlab.yml"
validate "$here/gitlab-ci.schema.json" "$work/broken-gitlab.yml" gitlab 4 >/dev/null &&
	fail "a pipeline with a bad cache policy validated"
"$kmatrix" ci gitlab --shards 0 >/dev/null 2>&1 && fail "--shards 0 was accepted"

echo "ci: $fails failure(s)"
[ $fails -eq 0 ]
