#!/usr/bin/env bash
# Validates docker-compose.yml without a Docker engine (Debian's docker-compose parses and
# interpolates the file offline). Uses .env.example so the check does not depend on a local .env.
# Then checks that compose and the native cluster tier (npm run test:cluster) run the same Temporal
# server: version, schema steps, server config and dynamic config (a diff on mismatch), and, when
# the server is built in .tools/, that every dynamic config key and value is one it knows.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/ensure-debian-packages.sh docker-compose=docker-compose
compose() { docker-compose --env-file .env.example -f docker-compose.yml "$@"; }
compose config -q
compose --profile simulator config -q
compose --profile simulator --profile encryption config -q
compose --profile simulator --profile s3 config -q
echo "docker-compose.yml is valid"

compose config | python3 scripts/cluster/compose-vs-native.py

server=".tools/temporal-server-$(tr -d '[:space:]' <deploy/temporal/version)/bin/temporal-server"
if [ -x "$server" ]; then
  report="$("$server" validate-dynamic-config deploy/temporal/dynamicconfig.yaml 2>&1)"
  if grep -qi 'warning\|error' <<<"$report"; then
    echo "deploy/temporal/dynamicconfig.yaml has keys or values the server does not know:" >&2
    echo "$report" >&2
    exit 1
  fi
  echo "deploy/temporal/dynamicconfig.yaml: every key and value known to $("$server" --version 2>/dev/null || echo "$server")"
else
  echo "dynamic config keys not validated: the server is not built yet (scripts/cluster/prepare.sh)"
fi
