import type { Client } from 'pg';
import { ApiResponse, eventually, withPg } from './api-client';

/**
 * Loses the database reply of one request on an order: holds the order's row in a transaction of
 * the test's own, sends the request (its statement then waits on the row), terminates the backend
 * it waits on, waits until the app's read-back queues behind the row on another backend, then
 * runs `finish` in the holding transaction and commits. Resolves to the request's answer.
 *
 * Waiters are found from a second connection outside any transaction: within one,
 * pg_stat_activity is a snapshot taken at its first read and never shows a connection the app's
 * pool opened after it.
 */
export function withLostReply(databaseUrl: string, orderId: string, send: () => Promise<ApiResponse>, finish: (holder: Client) => Promise<unknown>): Promise<ApiResponse> {
  return withPg(databaseUrl, (holder) =>
    withPg(databaseUrl, async (observer) => {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM orders WHERE id = $1 FOR UPDATE', [orderId]);
      const holderPid: number = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const waitingOnRow = async (): Promise<number[]> =>
        (await observer.query('SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [holderPid])).rows.map((row) => row.pid as number);
      let early: ApiResponse | undefined;
      const answer = send().then((res) => (early = res));
      // An answer before the request waited on the row means it took another path: fail with it.
      const [waitingPid] = await eventually(
        async () => {
          if (early) throw new Error(`answered ${early.status} ${JSON.stringify(early.body)} before it waited on the row`);
          const pids = await waitingOnRow();
          return pids.length ? pids : undefined;
        },
        20_000,
        20,
        'the request to wait on the held row',
      );
      await observer.query('SELECT pg_terminate_backend($1)', [waitingPid]);
      await eventually(async () => (await waitingOnRow()).some((pid) => pid !== waitingPid), 20_000, 20, 'the read-back to wait on the held row');
      await finish(holder);
      await holder.query('COMMIT');
      return answer;
    }),
  );
}
