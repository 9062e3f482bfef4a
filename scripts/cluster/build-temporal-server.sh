#!/usr/bin/env bash
# Builds the Temporal server and its SQL schema tool, at the version docker-compose.yml runs
# (deploy/temporal/version), from their Go modules into .tools/temporal-server-<version>/bin:
# temporal-server and temporal-sql-tool, the names they have in the temporalio images. Cached:
# does nothing when both are there. Needs the Go toolchain (GOTOOLCHAIN=auto fetches the newer
# one the module asks for through the Go module proxy). Prints the path of the bin directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
version="$(tr -d '[:space:]' <deploy/temporal/version)"
bin="$PWD/.tools/temporal-server-$version/bin"
if [ -x "$bin/temporal-server" ] && [ -x "$bin/temporal-sql-tool" ]; then
  echo "$bin"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "[cluster] the Go toolchain (go 1.21 or newer, for GOTOOLCHAIN=auto) is needed to build the Temporal server" >&2
  exit 1
fi
started=$SECONDS
staging="$bin.partial"
rm -rf "$staging"
mkdir -p "$staging"
echo "[cluster] building Temporal server $version and its SQL tool with $(go version) (minutes on a cold cache)" >&2
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
GOBIN="$staging" go install "go.temporal.io/server/cmd/server@v$version" "go.temporal.io/server/cmd/tools/sql@v$version" >&2
mv "$staging/server" "$staging/temporal-server"
mv "$staging/sql" "$staging/temporal-sql-tool"
rm -rf "$bin"
mv "$staging" "$bin"
echo "[cluster] timing: build of Temporal server $version took $((SECONDS - started)) s" >&2
echo "$bin"
