#!/usr/bin/env bash
# Runs the jest tiers of `npm test`: the unit tier (pure code, no servers) in one process beside the
# storage and temporal tiers in another, each one file at a time. The unit tier is mostly CPU and
# the temporal tier mostly waits on servers, workers and the simulator, so on two cores together
# they take about as long as the temporal tier alone. The temporal tier stays in one process: its
# files share one dev server and start processes of their own. Arguments go to both jest runs.
# The unit tier's output is kept until the end, so each tier's log reads in one piece.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

unit_log="$(mktemp "${TMPDIR:-/tmp}/jest-unit.XXXXXX")"
unit_pid=""
trap 'rm -f "$unit_log"' EXIT
# An interrupted run stops the unit tier too, not only the jest in the foreground.
trap '[ -n "$unit_pid" ] && kill "$unit_pid" 2>/dev/null; exit 130' INT TERM

# A path pattern may name files of one tier only: the other then has nothing to run, which is fine.
node_modules/.bin/jest --selectProjects unit --runInBand --passWithNoTests "$@" >"$unit_log" 2>&1 &
unit_pid=$!
node_modules/.bin/jest --selectProjects storage temporal --runInBand --passWithNoTests "$@"
servers=$?
wait "$unit_pid"
unit=$?

echo
echo "---- unit tier (run beside the tiers above) ----"
cat "$unit_log"
echo "jest tiers: storage and temporal exit ${servers}, unit exit ${unit}"
[ "$servers" -eq 0 ] && [ "$unit" -eq 0 ]
