/**
 * Whether the database the API writes to has a synchronous standby: the one thing that decides
 * whether a failover can lose orders the API already answered 201 for (docs/RELIABILITY.md,
 * "Postgres failover"). Pure: the query's row in, a verdict out.
 */
export type ReplicationState = 'sync' | 'async' | 'none' | 'unknown';
export const REPLICATION_STATES: readonly ReplicationState[] = ['sync', 'async', 'none', 'unknown'];

/**
 * One row about the server the API is connected to. pg_stat_replication shows its rows to every
 * role, but their details (sync_state among them) only to superusers and pg_read_all_stats
 * members (pg_monitor includes it): `hidden` counts the rows whose details were withheld.
 */
export const REPLICATION_SQL = `
SELECT pg_is_in_recovery() AS "inRecovery",
       current_setting('synchronous_standby_names') AS "standbyNames",
       current_setting('synchronous_commit') AS "synchronousCommit",
       count(r.pid)::int AS "standbys",
       count(r.pid) FILTER (WHERE r.sync_state IN ('sync', 'quorum'))::int AS "synchronous",
       count(r.pid) FILTER (WHERE r.sync_state IS NULL)::int AS "hidden"
FROM (SELECT 1) AS one LEFT JOIN pg_stat_replication AS r ON true`;

export interface ReplicationRow {
  inRecovery: boolean;
  standbyNames: string;
  synchronousCommit: string;
  standbys: number;
  synchronous: number;
  hidden: number;
}

export interface ReplicationVerdict {
  state: ReplicationState;
  standbys: number;
  synchronousStandbys: number;
  /** For the log line and /health/details: what the state means, and what to do about it. */
  detail: string;
}

// synchronous_commit values with which a commit returns before any standby confirmed it.
const LOCAL_COMMITS = new Set(['off', 'local']);

export function judgeReplication(row: ReplicationRow): ReplicationVerdict {
  const counts = { standbys: row.standbys, synchronousStandbys: row.synchronous };
  if (row.inRecovery)
    return {
      state: 'unknown',
      ...counts,
      detail: 'connected to a standby (read-only): DATABASE_URL should reach the primary',
    };
  if (row.hidden > 0)
    return {
      state: 'unknown',
      ...counts,
      detail: `${row.standbys} standby connection(s) whose state this role may not read: GRANT pg_monitor TO the API's role (deploy/postgres/app-role.sql)`,
    };
  if (row.synchronous > 0 && row.standbyNames.trim() !== '' && !LOCAL_COMMITS.has(row.synchronousCommit))
    return { state: 'sync', ...counts, detail: `${row.synchronous} synchronous standby(s) confirm every commit` };
  if (row.standbys > 0) {
    const why = LOCAL_COMMITS.has(row.synchronousCommit)
      ? `synchronous_commit is ${row.synchronousCommit}`
      : 'none is synchronous';
    return {
      state: 'async',
      ...counts,
      detail: `${row.standbys} standby(s), ${why}: a failover can lose acknowledged orders`,
    };
  }
  const waiting =
    row.standbyNames.trim() !== '' ? ` (synchronous_standby_names is '${row.standbyNames}': commits wait for one)` : '';
  return {
    state: 'none',
    ...counts,
    detail: `no standby connected${waiting}: losing this server loses the data since its last backup`,
  };
}

/**
 * Whether a verdict deserves a warning line: in production anything but a synchronous standby
 * does. Elsewhere a single server with no replication at all is the normal developer set-up and
 * stays quiet; only a replicated server short of a synchronous standby is mentioned, once.
 */
export function shouldWarn(state: ReplicationState, production: boolean): boolean {
  if (production) return state !== 'sync';
  return state === 'async';
}
