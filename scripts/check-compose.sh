#!/usr/bin/env bash
# Validates docker-compose.yml without a Docker engine (Debian's docker-compose parses and
# interpolates the file offline). Uses .env.example so the check does not depend on a local .env.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/ensure-debian-packages.sh docker-compose=docker-compose
docker-compose --env-file .env.example -f docker-compose.yml config -q
docker-compose --env-file .env.example -f docker-compose.yml --profile simulator config -q
docker-compose --env-file .env.example -f docker-compose.yml --profile simulator --profile encryption config -q
echo "docker-compose.yml is valid"
