#!/bin/sh
# Patroni's bootstrap.post_init: runs once, on the node that initialised the cluster, with a
# connection string to it as $1. Creates the API's database and role as the single-server
# deployment does (deploy/postgres/app-role.sql, which also grants pg_monitor); the standbys copy
# them with everything else. APP_ROLE_SQL: where that file is (the image's copy by default).
set -eu
psql "$1" -v ON_ERROR_STOP=1 -c 'CREATE DATABASE flashsale'
psql "$1" -v ON_ERROR_STOP=1 -v app_password="$APP_DB_PASSWORD" -c '\connect flashsale' -f "${APP_ROLE_SQL:-/etc/patroni/app-role.sql}"
