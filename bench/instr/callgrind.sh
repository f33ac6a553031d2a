#!/bin/bash
# callgrind.sh BIN SYS N [enqueue|drain [flags of BIN...]]: instructions
# redis-server spends per job, counted by callgrind, for N lone enqueues
# (or, with "drain", for draining N jobs enqueued first) by BIN (go build
# -o BIN ./instr) with SYS (hopper or asynq); flags such as -events-off go
# to BIN's runs. The server runs under valgrind on port 6397; only the measured
# phase is instrumented.
set -e
BIN=$1; SYS=$2; N=${3:-1000}; MODE=$4; PORT=6397
shift 4 2>/dev/null || shift $#
EXTRA=("$@")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/phase.sh"
. "$HERE/cgserver.sh"
D=$(mktemp -d)
trap 'redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true; rm -rf $D' EXIT
cd "$D"
cg_server_start "$D" $PORT
prepare_phase
TOT=$(cg_measure "$D" "$BIN" -addr 127.0.0.1:$PORT -sys "$SYS" "${RUN[@]}")
# A script variant first used in the measured phase (a grouped claim's, a
# workflow finish's) is loaded then with FUNCTION LOAD, once per server:
# left out of the count, and shown.
LOAD=0
for f in "$D"/cg.out*; do
  l=$(callgrind_annotate --inclusive=yes "$f" 2>/dev/null | awk '/functionLoadCommand/ {gsub(",", "", $1); print $1; exit}')
  LOAD=$((LOAD + ${l:-0}))
done
echo "$SYS ${MODE:-enqueue} ${EXTRA[*]}: $(((TOT - LOAD) / N)) redis-server instructions per job (n=$N; FUNCTION LOAD left out: $((LOAD / N)) a job)"
