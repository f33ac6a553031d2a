#!/usr/bin/env bash
# Checks what a program that imports hopper carries: it builds a throwaway
# module importing every public package of the library (replaced by this
# checkout), and fails if its module graph holds a browser driver
# (chromedp) or the OpenTelemetry SDK. Those belong to the modules kept
# apart (dashboard/browsertest, middleware/sdktest, examples/otel, bench).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export GOFLAGS=-mod=mod GOWORK=off
go mod init example.com/app >/dev/null 2>&1
go mod edit -require=github.com/hopperq/hopper@v0.0.0 -replace=github.com/hopperq/hopper="$repo"
cat > main.go <<'GO'
package main

import (
	_ "github.com/hopperq/hopper"
	_ "github.com/hopperq/hopper/dashboard"
	_ "github.com/hopperq/hopper/memstore"
	_ "github.com/hopperq/hopper/middleware"
	_ "github.com/hopperq/hopper/redisstore"
	_ "github.com/hopperq/hopper/store"
	_ "github.com/hopperq/hopper/storetest"
)

func main() {}
GO
go mod tidy >/dev/null
go build ./...
graph=$(go mod graph)
bad=$(echo "$graph" | grep -E 'chromedp|go\.opentelemetry\.io/otel/sdk|otel/exporters' || true)
if [ -n "$bad" ]; then
  echo "modgraph: a program importing hopper carries modules it should not:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "modgraph: $(echo "$graph" | wc -l) edges, no chromedp, no OpenTelemetry SDK or exporter" >&2
