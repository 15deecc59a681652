import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorService } from '@nestjs/terminus';
import { InjectDataSource } from '@nestjs/typeorm';
import { Gauge } from 'prom-client';
import { registeredGauge } from '../metrics/registered-metrics';
import { DataSource } from 'typeorm';
import { TypedConfigService } from '../config/app-config.module';
import { queryRows } from '../database/query-rows';
import {
  judgeReplication,
  REPLICATION_SQL,
  REPLICATION_STATES,
  ReplicationRow,
  ReplicationState,
  ReplicationVerdict,
  shouldWarn,
} from './replication-state';

/** How often the state is read again: a failover or a standby that drops shows within this. */
export const REPLICATION_CHECK_INTERVAL_MS = 5000;

const NAME = 'database_replication_state';
const stateGauge: Gauge<'state'> = registeredGauge(
  NAME,
  'Replication of the database the API writes to: 1 for the current state (sync: a synchronous standby confirms every commit; async; none; unknown), 0 for the others',
  ['state'],
);

/**
 * Reads, at start and every few seconds, whether the database has a synchronous standby, and
 * reports it three ways: the database_replication_state metric, the databaseReplication entry of
 * /health/details, and a log line when the state changes (a warning in production unless it is
 * "sync"; see shouldWarn). Never part of readiness: an instance without a standby still sells.
 */
@Injectable()
export class DatabaseReplication implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('DatabaseReplication');
  private readonly production: boolean;
  private verdict: (ReplicationVerdict & { checkedAt: string }) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<ReplicationVerdict> | undefined;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly health: HealthIndicatorService,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.production = config.get('nodeEnv', { infer: true }) === 'production';
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), REPLICATION_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** The last verdict, for /health/details: always "up" (the report is information, not readiness). */
  indicator() {
    return this.health
      .check('databaseReplication')
      .up({ ...(this.verdict ?? { state: 'unknown', detail: 'not read yet' }) });
  }

  /** Reads the state now (one read at a time: a read that hangs on a dead server is not stacked). */
  refresh(): Promise<ReplicationVerdict> {
    this.inFlight ??= this.read().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /** A failed read is "unknown" (the database is down or failing over). */
  private async read(): Promise<ReplicationVerdict> {
    let verdict: ReplicationVerdict;
    try {
      const [row] = await queryRows<ReplicationRow>(this.db, REPLICATION_SQL);
      verdict = judgeReplication(row);
    } catch (error) {
      verdict = {
        state: 'unknown',
        standbys: 0,
        synchronousStandbys: 0,
        detail: `could not read it: ${(error as Error).message}`,
      };
    }
    const previous = this.verdict?.state;
    this.verdict = { ...verdict, checkedAt: new Date().toISOString() };
    for (const state of REPLICATION_STATES) stateGauge.set({ state }, state === verdict.state ? 1 : 0);
    if (verdict.state !== previous) this.report(verdict.state, verdict.detail, previous);
    return verdict;
  }

  private report(state: ReplicationState, detail: string, previous: ReplicationState | undefined): void {
    const line = `database replication ${previous ? `changed from ${previous} to ` : 'at start: '}${state}: ${detail}`;
    // A database unreachable for a moment is the readiness probe's and the purchases' news; only
    // a state actually read is worth a warning here.
    if (shouldWarn(state, this.production) && !(state === 'unknown' && detail.startsWith('could not read')))
      this.log.warn(line);
    else this.log.log(line);
  }
}
