#!/bin/bash
# layoutfloor.sh [N]: the redis-server instructions per job of the floors
# in layoutfloor/ (a grouped claim from a list, from the rotation of
# groups, in start-time fair order; a chain step's end with packed task
# fields), counted by callgrind for N jobs or chain steps each (16384 by
# default; at most 17,856 chain steps are set up). The server runs under
# valgrind on port 6393; only the timed calls are instrumented.
set -e
N=${1:-16384}; PORT=6393
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(mktemp -d)
trap 'redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true; rm -rf $D' EXIT
(cd "$HERE/.." && go build -o "$D/layoutfloor" ./instr/layoutfloor)
cd "$D"
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$D/cg.out" \
  redis-server --port $PORT --save '' --appendonly no >/dev/null 2>&1 &
VP=$!
for _ in $(seq 100); do redis-cli -p $PORT ping >/dev/null 2>&1 && break; sleep 0.2; done
"$D/layoutfloor" -addr 127.0.0.1:$PORT -setup
for FN in claim-list claim-rotation claim-fair chain-end; do
  callgrind_control -z $VP >/dev/null 2>&1
  callgrind_control -i on $VP >/dev/null 2>&1
  "$D/layoutfloor" -addr 127.0.0.1:$PORT -fn $FN -n "$N" >/dev/null
  callgrind_control -i off $VP >/dev/null 2>&1
  rm -f "$D"/cg.out*
  callgrind_control -d $VP >/dev/null 2>&1
  sleep 1
  TOT=$(grep -h "^summary:\|^totals:" "$D"/cg.out* | awk '{s+=$2} END {print s}')
  echo "$FN: $((TOT / N)) redis-server instructions per job (n=$N, 32 a call)"
done
