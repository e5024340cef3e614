#!/usr/bin/env bash
# Runs a build tree's lumen_tests in one process per core (gtest's sharding), from the source
# tree (where the tests find tmp/ and test/data/); prints each shard's failures and summary and
# fails if any shard does.
#
#   scripts/unit_tests.sh BUILD [GTEST_FILTER]
#
# Why not ctest: ctest starts one process per test, and with 3,900 tests the starts cost more than
# the tests (scripts/test.sh's ctest stage took 237 s, where these shards take about 20). ctest
# still lists and runs every test one by one (`ctest --test-dir build`, label `unit`) for anyone who
# wants one test's own result; scripts/test.sh runs the unit tests here and ctest for the rest.
# The sanitizer runs (scripts/sanitize.sh) call this with their own tree and filter, and the
# sanitizers' options in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/unit_tests.sh BUILD [GTEST_FILTER]}
filter=${2:-*}
shards=$(nproc)
pids=()
for ((shard = 0; shard < shards; ++shard)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard "$build/lumen_tests" \
    --gtest_filter="$filter" --gtest_brief=1 >"$build/shard$shard.log" 2>&1 &
  pids+=($!)
done
failed=0
for ((shard = 0; shard < shards; ++shard)); do
  if ! wait "${pids[$shard]}"; then failed=1; fi
  cat "$build/shard$shard.log"
done
exit $failed
