#!/bin/sh
# Runs once, when the postgres container initialises an empty data directory
# (/docker-entrypoint-initdb.d): creates the API's role from app-role.sql, which also runs
# `GRANT pg_monitor TO flashsale` so the API can read pg_stat_replication's sync_state and report
# whether a synchronous standby holds its commits (README, Deploying). A database made before that
# line existed: run the GRANT once as a superuser.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v app_password="$APP_DB_PASSWORD" -f /docker-entrypoint-initdb.d/app-role.sql.in
