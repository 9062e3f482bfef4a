#!/bin/sh
# Creates the Temporal and visibility databases in PostgreSQL and brings their schemas up to date,
# from the schemas built into temporal-sql-tool. Safe to run on every start: an existing database
# is kept and update-schema applies only what is new. The one set of schema steps for both
# docker-compose.yml (its temporal-schema job runs this file in the admin-tools image) and the
# native cluster tier (npm run test:cluster).
#
# Environment: POSTGRES_SEEDS (host), DB_PORT (default 5432), POSTGRES_USER, SQL_PASSWORD;
# SQL_TOOL: the temporal-sql-tool executable (default: the one on PATH).
set -eu
tool() {
  "${SQL_TOOL:-temporal-sql-tool}" --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "${DB_PORT:-5432}" \
    -u "$POSTGRES_USER" "$@"
}
for db in temporal:temporal temporal_visibility:visibility; do
  name="${db%%:*}"
  schema="postgresql/v12/${db#*:}"
  tool --db "$name" create-database 2>/dev/null || echo "database $name exists"
  # Version 0.0 creates only the schema_version bookkeeping; update-schema does the rest.
  tool --db "$name" setup-schema -v 0.0 2>/dev/null || echo "schema of $name already set up"
  tool --db "$name" update-schema --schema-name "$schema"
done
