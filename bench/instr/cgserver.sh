# cgserver.sh, sourced by callgrind.sh and layoutfloor.sh: a redis-server
# under callgrind whose instructions are counted only around a command.
#
# cg_server_start DIR PORT starts it on PORT, its counts in DIR/cg.out*,
# sets CG_PID to valgrind's pid and returns once the server answers.
cg_server_start() {
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$1/cg.out" \
    redis-server --port "$2" --save '' --appendonly no >/dev/null 2>&1 &
  CG_PID=$!
  for _ in $(seq 100); do redis-cli -p "$2" ping >/dev/null 2>&1 && break; sleep 0.2; done
}

# cg_measure DIR COMMAND... runs COMMAND with counting on, leaves its
# counts alone in DIR/cg.out* (an earlier measurement's are removed) and
# prints the instructions counted.
cg_measure() {
  local dir=$1
  shift
  callgrind_control -z "$CG_PID" >/dev/null 2>&1
  callgrind_control -i on "$CG_PID" >/dev/null 2>&1
  "$@" >/dev/null
  callgrind_control -i off "$CG_PID" >/dev/null 2>&1
  rm -f "$dir"/cg.out*
  callgrind_control -d "$CG_PID" >/dev/null 2>&1
  sleep 1 # the dump's file
  grep -h "^summary:\|^totals:" "$dir"/cg.out* | awk '{s+=$2} END {print s}'
}
