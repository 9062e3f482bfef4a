#!/usr/bin/env bash
# Installs Debian packages the tests need (e.g. docker-compose to validate the compose file,
# chromium for the gallery check) when their command is missing. Arguments: command=package pairs.
set -euo pipefail
# CI prepares the cluster tier while the tests run, and both may install packages: one at a time
# (apt refuses a second install while the first holds its lock), and what the first installed is
# then found, not installed again.
exec 9>"${TMPDIR:-/tmp}/avatar-pipeline-apt.lock"
flock 9
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
# apt does not get the lock's descriptor: a service a package starts would hold the lock for good.
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 9>&- ||
  { $SUDO apt-get update -q >/dev/null 9>&- && $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 9>&-; }
