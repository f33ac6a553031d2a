# phase.sh, sourced by callgrind.sh and luaprof.sh. prepare_phase runs
# what comes before the measured phase, with $BIN against
# 127.0.0.1:$PORT, and sets RUN to the measured phase's flags: with MODE
# drain, N jobs enqueued first and then their drain; otherwise 10 warm-up
# enqueues (the scripts loaded, the first-time checks made) and then N
# lone enqueues. EXTRA's flags go to every run.
prepare_phase() {
  if [ "$MODE" = drain ]; then
    "$BIN" -addr 127.0.0.1:$PORT -sys "$SYS" -n "$N" "${EXTRA[@]}" >/dev/null
    RUN=(-drain -n "$N" "${EXTRA[@]}")
  else
    "$BIN" -addr 127.0.0.1:$PORT -sys "$SYS" -n 10 "${EXTRA[@]}" >/dev/null
    RUN=(-n "$N" "${EXTRA[@]}")
  fi
}
