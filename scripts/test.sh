#!/usr/bin/env bash
# The test command: go test -race in every module of the repository (the
# library, then the modules kept apart so that programs importing hopper
# carry none of their dependencies), then the module-graph check.
# Arguments are passed to go test, e.g. scripts/test.sh -count=1 -run Conformance.
#
# Some packages bound behaviours in time: the fault suite (a package path
# holding "faulttest"), the process tests (a package with a
# *_proc_test.go: a takeover within a lease, a burst drained within a
# second) and redisstore (a worker woken within a second of an enqueue).
# On a 2-core machine a race-instrumented package running beside them
# stretches those bounds into flakes, so they run alone, one at a time
# (-p 1), with nothing else running. Every other package runs two at a
# time, in two lanes that each take the next module to run (each lane one
# package at a time), which halves the part of the run where most tests
# wait on real time and leave the cores idle.
#
# Each module is first vetted and its test binaries compiled on every core
# (a run of no test, its output dropped: a build error shows in the run
# that follows), which the runs then find in the build cache.
set -uo pipefail
cd "$(dirname "$0")/.."

# The race detector sleeps a second as each test binary exits, to let
# other goroutines report: every race is reported as it happens, and a
# test fails on it then, so the sleep only adds a second per package
# (about 40 to a run). A GORACE of the caller's comes after, and wins.
export GORACE="atexit_sleep_ms=0${GORACE:+ $GORACE}"

# alone lists the package directories (relative to the repository, as
# ./dir) that run alone, beyond those the rules above find by name.
alone=(./redisstore)

modules=$(find . -name go.mod -not -path './.git/*' -printf '%h\n' | sort)
failures=$(mktemp)
fail() { echo "$1" >>"$failures"; }

for m in $modules; do
  echo "== go vet and build of the tests in $m" >&2
  (cd "$m" && go vet ./... &&
    { go test -race -count=1 -run '^$' ./... >/dev/null 2>&1 || true; }) || fail "$m (vet)"
done

# split m: prints m's packages as "alone <import path>" or "shared <import
# path>", one a line.
split() {
  local m=$1
  (cd "$m" && go list -f '{{.Dir}} {{.ImportPath}}' ./...) | while read -r dir path; do
    rel=./$(realpath --relative-to="$PWD" "$dir")
    [ "$rel" = ./. ] && rel=.
    lane=shared
    case "$rel" in *faulttest*) lane=alone ;; esac
    if compgen -G "$dir/*_proc_test.go" >/dev/null; then
      lane=alone
    fi
    for a in "${alone[@]}"; do
      [ "$rel" = "$a" ] && lane=alone
    done
    echo "$lane $path"
  done
}

# pkgTimeout bounds one package's test binary (go test's -timeout; a later
# -timeout among the arguments wins): a hang detector, not a speed check.
# The browser tests' package takes 3 to 4 minutes under -race on 2 cores,
# and took more than go test's default 10 minutes in a CI run beside the
# other lane on a machine busy with other work.
pkgTimeout=25m
export pkgTimeout

declare -A alonePkgs sharedPkgs
for m in $modules; do
  lanes=$(split "$m") || { fail "$m (go list)"; continue; }
  alonePkgs[$m]=$(echo "$lanes" | awk '$1 == "alone" {print $2}')
  sharedPkgs[$m]=$(echo "$lanes" | awk '$1 == "shared" {print $2}')
done

# The packages that bound time, alone.
for m in $modules; do
  [ -n "${alonePkgs[$m]:-}" ] || continue
  echo "== go test -race -p 1 in $m, alone:" ${alonePkgs[$m]} >&2
  # shellcheck disable=SC2086
  (cd "$m" && go test -race -p 1 -timeout "$pkgTimeout" "$@" ${alonePkgs[$m]}) || fail "$m (alone)"
done

# Every other package, two at a time: two lanes side by side, each taking
# the next module whose packages are still to run (the library's first,
# then the browser tests, the longest) and running its packages one at a
# time.
pkgdir=$(mktemp -d)
trap 'rm -f "$failures"; rm -rf "$pkgdir"' EXIT
order=()
for m in . ./dashboard/browsertest $modules; do
  [ -n "${sharedPkgs[$m]:-}" ] || continue
  [ -e "$pkgdir/$(echo "$m" | tr / _).pkgs" ] && continue
  echo "${sharedPkgs[$m]}" >"$pkgdir/$(echo "$m" | tr / _).pkgs"
  order+=("$m")
done
lane() {
  local m=$1
  shift
  echo "== go test -race -p 1 in $m, beside the other lane" >&2
  # shellcheck disable=SC2046
  (cd "$m" && go test -race -p 1 -timeout "$pkgTimeout" "$@" $(cat "$pkgdir/$(echo "$m" | tr / _).pkgs")) || echo "$m" >>"$failures"
}
export -f lane
export pkgdir failures
printf '%s\n' "${order[@]}" | xargs -P 2 -I{} bash -c 'lane "$@"' _ {} "$@"

echo "== module graph of a program that imports hopper" >&2
if ! scripts/modgraph.sh; then
  fail "module graph"
fi
if [ -s "$failures" ]; then
  echo "FAILED: $(paste -sd, "$failures" | sed 's/,/, /g')" >&2
  exit 1
fi
