import { Injectable } from '@nestjs/common';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { RedisHealthIndicator } from './redis.health';
import { DatabaseReplication } from './database-replication';

/** How long one probe's verdict answers GET /health. */
export const READINESS_PROBE_TTL_MS = 1000;

/**
 * Whether Postgres and Redis answer, as of at most a second ago. GET /health is public: one
 * query per call would let anyone turn requests into database load. The first call after the
 * verdict ages out runs one probe (a Postgres ping and a Redis PING), and every call that arrives
 * while it runs waits for that same probe: at most about one probe per second per instance,
 * whatever the request rate. /health/details (operators only) probes on every call.
 */
@Injectable()
export class ReadinessProbe {
  private verdict: { ready: boolean; atMs: number } | undefined;
  private inFlight: Promise<boolean> | undefined;

  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly replication: DatabaseReplication,
  ) {}

  ready(): Promise<boolean> {
    if (this.verdict && Date.now() - this.verdict.atMs < READINESS_PROBE_TTL_MS)
      return Promise.resolve(this.verdict.ready);
    this.inFlight ??= this.check().then((ready) => {
      this.verdict = { ready, atMs: Date.now() };
      this.inFlight = undefined;
      return ready;
    });
    return this.inFlight;
  }

  /**
   * Every dependency, now (Terminus report; throws when one is down), and the database's
   * replication as last read (DatabaseReplication: information, always up, no query here).
   */
  checkNow() {
    return this.health.check([
      () => this.database.pingCheck('database', { timeout: 1500 }),
      () => this.redis.check(),
      () => this.replication.indicator(),
    ]);
  }

  private check(): Promise<boolean> {
    return this.checkNow().then(
      () => true,
      () => false,
    );
  }
}
