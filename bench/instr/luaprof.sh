#!/bin/bash
# luaprof.sh BIN SYS N [enqueue|drain [flags of BIN...]]: Lua VM instructions
# per job, per function and per line of hopper's Redis Functions, for N lone
# enqueues (or, with "drain", for draining N jobs enqueued first) by BIN
# (go build -o BIN ./instr) with SYS (hopper; asynq runs EVAL, which is not
# counted); flags such as -workflow or -steps 32 (counts that repeat exactly)
# go to BIN's runs, as with callgrind.sh. TOP=K lists K lines (40).
#
# The counts come from a redis-server patched with
# luaprof/redis-7.0-luaprof.patch (a count hook on FCALLs, see
# luaprof/main.go), built once into $LUAPROF_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/hopper-luaprof) from Debian's source
# (apt-get source redis, which needs a deb-src entry and dpkg-dev); it runs
# on the first free port from 6391 on. Only the measured phase is counted
# (CONFIG RESETSTAT zeroes the counts before it).
set -e
BIN=$1; SYS=$2; N=${3:-1000}; MODE=$4
shift 4 2>/dev/null || shift $#
EXTRA=("$@")
if [ -z "$BIN" ] || [ -z "$SYS" ]; then
  echo "usage: $0 BIN SYS N [enqueue|drain [flags of BIN...]]" >&2; exit 2
fi
case "$MODE" in ""|enqueue|drain) ;; *) echo "$0: mode must be enqueue or drain, not $MODE" >&2; exit 2 ;; esac
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/phase.sh"
PATCH=$HERE/luaprof/redis-7.0-luaprof.patch
CACHE=${LUAPROF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hopper-luaprof}
mkdir -p "$CACHE"

# The source: Debian's (with its patches applied), fetched once.
SRC=$(ls -d "$CACHE"/redis-[0-9]*/ 2>/dev/null | head -1)
if [ -z "$SRC" ]; then
  if ! command -v dpkg-source >/dev/null; then
    echo "$0: apt-get source needs dpkg-source: apt-get install dpkg-dev" >&2; exit 1
  fi
  if ! apt-get source --print-uris redis >/dev/null 2>&1; then
    CODENAME=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-bookworm}")
    cat >&2 <<EOF
$0: apt has no source for redis (no deb-src entry). Add the file
/etc/apt/sources.list.d/src.sources with these lines:

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: ${CODENAME:-bookworm}-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

then run apt-get update, and this script again. (The patch is made
against Debian bookworm's redis 7.0.15.)
EOF
    exit 1
  fi
  echo "luaprof: fetching redis source into $CACHE" >&2
  (cd "$CACHE" && apt-get source redis >"$CACHE/source.log" 2>&1) || { tail -20 "$CACHE/source.log" >&2; exit 1; }
  SRC=$(ls -d "$CACHE"/redis-[0-9]*/ | head -1)
fi
SRC=${SRC%/}

# The patch, applied once; a changed patch replaces the applied one.
cd "$SRC"
if grep -q "hopper luaprof" src/script_lua.c; then
  if ! cmp -s "$PATCH" .luaprof.patch; then
    echo "luaprof: the patch changed; applying it again" >&2
    patch -s -p1 -R <.luaprof.patch
    rm .luaprof.patch
  fi
fi
if ! grep -q "hopper luaprof" src/script_lua.c; then
  if ! patch -s -p1 --forward --dry-run <"$PATCH" >/dev/null; then
    echo "$0: $PATCH does not apply to $SRC (made for redis 7.0.15)" >&2; exit 1
  fi
  patch -s -p1 --forward <"$PATCH"
  cp "$PATCH" .luaprof.patch
fi
SERVER=$SRC/src/redis-server
if [ ! -x "$SERVER" ] || [ src/script_lua.c -nt "$SERVER" ] || [ src/server.c -nt "$SERVER" ]; then
  echo "luaprof: building $SERVER (a few minutes; log in $CACHE/build.log)" >&2
  make -j"$(nproc)" MALLOC=libc BUILD_TLS=no OPTIMIZATION="-O2 -g" >"$CACHE/build.log" 2>&1 ||
    { tail -30 "$CACHE/build.log" >&2; exit 1; }
fi

# The run.
D=$(mktemp -d)
trap '[ -n "$SP" ] && kill $SP 2>/dev/null; rm -rf "$D"' EXIT
(cd "$HERE/.." && go build -o "$D/luaprof" ./instr/luaprof)
cd "$D"
# The first port from 6391 on that this server gets (others' servers come
# and go: tests, benchmarks).
SP=
for PORT in $(seq 6391 6420); do
  redis-cli -p $PORT ping >/dev/null 2>&1 && continue
  LUAPROF=$D/counts "$SERVER" --port $PORT --save '' --appendonly no >"$D/server.log" 2>&1 &
  SP=$!
  for _ in $(seq 100); do
    kill -0 $SP 2>/dev/null || break # could not listen
    redis-cli -p $PORT ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  [ "$(redis-cli -p $PORT info server 2>/dev/null | tr -d '\r' | sed -n 's/^process_id://p')" = $SP ] && break
  kill $SP 2>/dev/null || true; wait $SP 2>/dev/null || true; SP=
done
[ -n "$SP" ] || { echo "$0: no free port for the server in 6391-6420" >&2; cat "$D/server.log" >&2; exit 1; }
prepare_phase
redis-cli -p $PORT config resetstat >/dev/null
"$BIN" -addr 127.0.0.1:$PORT -sys "$SYS" "${RUN[@]}" >/dev/null
echo "$SYS ${MODE:-enqueue}${EXTRA:+ ${EXTRA[*]}} (n=$N)"
"$D/luaprof" -addr 127.0.0.1:$PORT -counts "$D/counts" -n "$N" -top "${TOP:-40}"
wait $SP || true
SP=
