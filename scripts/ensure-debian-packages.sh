#!/usr/bin/env bash
# Installs Debian packages the tests need (e.g. docker-compose to validate the compose file,
# chromium for the gallery check) when their command is missing. Arguments: command=package pairs.
set -euo pipefail
missing=()
for pair in "$@"; do
  command -v "${pair%%=*}" >/dev/null 2>&1 || missing+=("${pair#*=}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "missing ${missing[*]} and no apt-get here: install them with your package manager" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "installing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
  { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
