#!/usr/bin/env bash
# The full chaos suite: `npm run chaos [-- --repeat N] [jest arguments…]`. Builds once (worker
# processes run the compiled CLI), then runs test/chaos N times in a row, stopping at the first
# failing run. CHAOS_SIZE=fast runs the scenarios at the fast subset's size; CHAOS_SEED=<n> varies
# the moments of the worker kills (default 1234); run k of N uses seed + k - 1, so repeated runs
# kill at different moments.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repeat=1
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repeat) repeat="$2"; shift 2 ;;
    --repeat=*) repeat="${1#*=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
if ! [[ "$repeat" =~ ^[1-9][0-9]*$ ]]; then
  echo "chaos: --repeat must be a whole number above 0, not \"$repeat\"" >&2
  exit 2
fi
base_seed="${CHAOS_SEED:-1234}"
if ! [[ "$base_seed" =~ ^[0-9]+$ ]]; then
  echo "chaos: CHAOS_SEED must be a whole number, not \"$base_seed\"" >&2
  exit 2
fi
npm run build
for ((run = 1; run <= repeat; run++)); do
  seed=$((base_seed + run - 1))
  echo "[chaos] run $run of $repeat (seed $seed)" >&2
  started=$SECONDS
  CHAOS_SEED="$seed" node_modules/.bin/jest -c jest.chaos.config.js --runInBand "${args[@]}"
  echo "[chaos] run $run of $repeat passed in $((SECONDS - started)) s" >&2
done
