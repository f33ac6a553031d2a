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
. "$HERE/cgserver.sh"
D=$(mktemp -d)
trap 'redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true; rm -rf $D' EXIT
(cd "$HERE/.." && go build -o "$D/layoutfloor" ./instr/layoutfloor)
cd "$D"
cg_server_start "$D" $PORT
"$D/layoutfloor" -addr 127.0.0.1:$PORT -setup
for FN in claim-list claim-rotation claim-fair chain-end; do
  TOT=$(cg_measure "$D" "$D/layoutfloor" -addr 127.0.0.1:$PORT -fn $FN -n "$N")
  echo "$FN: $((TOT / N)) redis-server instructions per job (n=$N, 32 a call)"
done
