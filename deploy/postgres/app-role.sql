-- The API's own Postgres role: it owns the flashsale database and its schema, so the migrations it
-- runs create tables it owns, and it is no superuser (it cannot read other databases, change the
-- server's settings or run programs on the host). psql variable: app_password.
CREATE ROLE flashsale LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD :'app_password';
ALTER DATABASE flashsale OWNER TO flashsale;
ALTER SCHEMA public OWNER TO flashsale;
-- Replication state, for the API's database_replication_state metric and /health/details: the
-- details of pg_stat_replication (sync_state) are shown only to superusers and members of
-- pg_read_all_stats, which pg_monitor includes. Read-only statistics; nothing else is granted.
GRANT pg_monitor TO flashsale;
