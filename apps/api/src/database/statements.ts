import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, PoolClient, QueryConfig, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { TypedConfigService } from '../config/app-config.module';
import { isTransactionConflict } from '../common/errors/dependency-errors';
import { isOutcomeUnknown, OutcomeUnknownError } from './outcome-unknown';
import { reportBackgroundFailure } from '../metrics/background-failures';

/*
 * How the app's statements run against Postgres: the hottest ones prepared on the pool with a
 * bounded wait for their reply (HotStatements), and any transaction run again when Postgres
 * aborted it to break a deadlock (withConflictRetry).
 */

/**
 * Runs the hottest statements straight on TypeORM's pg pool (the Postgres driver's declared
 * `master` pool, so the app keeps one pool and one connection budget), skipping its per-query runner, and
 * as named prepared statements so each connection parses and plans them once. Named statements
 * live in a server session, which a transaction-mode pooler (PgBouncer < 1.21) does not keep:
 * DB_PREPARED_STATEMENTS=false turns them off there.
 */
@Injectable()
export class HotStatements {
  private readonly prepared: boolean;
  private readonly pool: Pool;

  constructor(@InjectDataSource() db: DataSource, @Inject(ConfigService) config: TypedConfigService) {
    this.prepared = config.get('database', { infer: true }).preparedStatements;
    // The DataSource is injected initialised, so its driver already holds the pool.
    if (!(db.driver instanceof PostgresDriver)) throw new Error('HotStatements runs on the postgres driver only');
    this.pool = db.driver.master as Pool;
  }

  async run<T extends QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const result = await this.pool.query<T>(this.prepared ? { name, text, values } : { text, values });
    return result.rows;
  }

  /**
   * Runs a statement whose answer must not be guessed: it waits for its reply at most `replyTimeoutMs`,
   * and a reply lost after the statement went out (that timeout, a reset, the backend ending)
   * rejects with OutcomeUnknownError, never with an error that reads as "not done". A failure to
   * get a connection is definite: nothing was sent.
   */
  async runAnswerable<T extends QueryResultRow>(
    name: string,
    text: string,
    values: unknown[],
    replyTimeoutMs: number,
  ): Promise<T[]> {
    const client = await connectWithin(this.pool, replyTimeoutMs);
    let broken: Error | undefined;
    try {
      // query_timeout per query: node-postgres reads it from the query config over the pool's.
      const config = {
        ...(this.prepared ? { name } : {}),
        text,
        values,
        query_timeout: Math.max(1, Math.floor(replyTimeoutMs)),
      };
      const result = await client.query<T>(config as QueryConfig);
      return result.rows;
    } catch (error) {
      if (!isOutcomeUnknown(error)) throw error;
      broken = error as Error;
      throw new OutcomeUnknownError(error);
    } finally {
      // A connection whose answer went missing is not given to anyone else.
      client.release(broken);
    }
  }
}

/** A pooled connection within `ms`, else a definite failure (nothing was sent); a late one goes back to the pool. */
async function connectWithin(pool: Pool, ms: number): Promise<PoolClient> {
  let timer: NodeJS.Timeout | undefined;
  let gaveUp = false;
  const connecting = pool.connect();
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        gaveUp = true;
        reject(new Error('timeout exceeded when trying to connect'));
      },
      Math.max(1, Math.floor(ms)),
    );
  });
  try {
    return await Promise.race([connecting, timeout]);
  } finally {
    clearTimeout(timer);
    // A connection that comes after the caller was told of the timeout goes back to the pool; one
    // that fails after it is reported (the caller only heard of the timeout).
    if (gaveUp)
      connecting.then(
        (late) => late.release(),
        (late: unknown) => reportBackgroundFailure(lateConnectLog, 'hot-statement-connect', 'after its timeout', late),
      );
  }
}

const lateConnectLog = new Logger('HotStatements');

/** Attempts in all, the first included; most deadlocks clear on the first retry. */
const ATTEMPTS = 3;

/**
 * Runs a transaction (or one atomic statement) again when Postgres aborted it to break a
 * deadlock (40P01) or could not serialise it (40001): nothing of it was committed, so running it
 * again is safe. After the last attempt the error goes on and the filter answers 503 LOCK_TIMEOUT
 * with Retry-After. The short random pause lets the other party finish first.
 */
export async function withConflictRetry<T>(work: () => Promise<T>, attempts = ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isTransactionConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}
