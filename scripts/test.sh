#!/usr/bin/env bash
# The test command: go test -race ./... in every module of the repository
# (the library, then the modules kept apart so that programs importing
# hopper carry none of their dependencies), then the module-graph check.
# Arguments are passed to go test, e.g. scripts/test.sh -count=1 -run Conformance.
#
# Packages run one at a time (-p 1): the fault suite and the process tests
# bound behaviours in time (a takeover within a lease, a burst drained
# within a second), and on a 2-core machine a race-instrumented package
# running beside them stretches those bounds into flakes. -p 1 also
# builds one package at a time, so each module's test binaries are first
# compiled on every core (a run of no test, its output dropped: a build
# error shows in the run that follows), which the one-at-a-time run then
# finds in the build cache.
set -uo pipefail
cd "$(dirname "$0")/.."

modules=$(find . -name go.mod -not -path './.git/*' -printf '%h\n' | sort)
failed=()
for m in $modules; do
  echo "== go test -race ./... in $m" >&2
  if ! (cd "$m" && go vet ./... &&
    { go test -race -count=1 -run '^$' ./... >/dev/null 2>&1 || true; } &&
    go test -race -p 1 "$@" ./...); then
    failed+=("$m")
  fi
done
echo "== module graph of a program that imports hopper" >&2
if ! scripts/modgraph.sh; then
  failed+=("module graph")
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
