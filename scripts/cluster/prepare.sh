#!/usr/bin/env bash
# Everything the cluster tier (npm run test:cluster) needs on the machine, installed or built when
# missing: PostgreSQL 15 (Debian's package), the Temporal server and SQL tool at compose's version
# (built into .tools/, cached). The tests find or install the Temporal CLI themselves.
# Prints how long each step took, then runs the compose check (compose and this tier agree).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
step() { echo "[cluster] timing: $1 took $2 s" >&2; }

started=$SECONDS
if [ ! -x /usr/lib/postgresql/15/bin/initdb ]; then
  scripts/ensure-debian-packages.sh /usr/lib/postgresql/15/bin/initdb=postgresql-15
fi
step "PostgreSQL 15 check/install" $((SECONDS - started))

started=$SECONDS
scripts/cluster/build-temporal-server.sh >/dev/null
step "Temporal server build (0 when cached in .tools/)" $((SECONDS - started))


# With the server built, the compose check also validates the dynamic config against it.
scripts/check-compose.sh
