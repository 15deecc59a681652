import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { queryRows } from './query-rows';

/** How long one reading of the database's clock is used before it is read again. */
const READING_MAX_AGE_MS = 60_000;

/**
 * The time on the database's clock: the clock every order lives by (`now()` stamps `created_at`
 * and `expires_at`, and the expiry job compares with it). Work judged against an order's time
 * must be judged on this clock too, or one instance whose own clock drifts refuses what the
 * others accept.
 *
 * One query reads it (at most once a minute, concurrent callers sharing it); in between, the
 * reading is advanced by this process's monotonic clock, which never follows the wall clock's
 * steps or errors. So an instance whose wall clock is minutes off still answers on the database's.
 */
@Injectable()
export class DatabaseClock {
  private reading: { databaseMs: number; monotonicMs: number } | undefined;
  private inFlight: Promise<number> | undefined;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Milliseconds since the epoch on the database's clock. Rejects when the database cannot be read and no recent reading exists. */
  nowMs(): Promise<number> {
    const reading = this.reading;
    const monotonicMs = performance.now();
    if (reading && monotonicMs - reading.monotonicMs < READING_MAX_AGE_MS)
      return Promise.resolve(reading.databaseMs + (monotonicMs - reading.monotonicMs));
    this.inFlight ??= this.read().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async read(): Promise<number> {
    const sentAt = performance.now();
    const [row] = await queryRows<{ ms: number }>(
      this.db,
      'SELECT extract(epoch FROM clock_timestamp())::float8 * 1000 AS ms',
    );
    const answeredAt = performance.now();
    // The database read its clock somewhere during the round trip: take the middle.
    this.reading = { databaseMs: Number(row.ms), monotonicMs: (sentAt + answeredAt) / 2 };
    return this.reading.databaseMs + (answeredAt - this.reading.monotonicMs);
  }
}
