import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { reportBackgroundFailure } from '../../metrics/background-failures';

const JOB = 'purchase-attempt-pruning';
const EVERY_MS = 60_000;
// Far past any attempt's life (a purchase deadline, a statement timeout) and any settling: an
// attempt older than this has long committed or died, and its orders say which.
const KEEP = '1 hour';
// Rows per statement, so that a backlog never becomes one long delete.
const BATCH = 10_000;

/**
 * Deletes the ids of old purchase attempts (one row per purchase statement). Every instance runs
 * it; two deleting at once only share the work.
 */
@Injectable()
export class AttemptPruner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger(AttemptPruner.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const timer = setInterval(
      () => void this.prune().catch((error) => reportBackgroundFailure(this.log, JOB, 'prune', error)),
      EVERY_MS,
    );
    timer.unref();
    this.scheduler.addInterval(JOB, timer);
  }

  onApplicationShutdown(): void {
    if (this.scheduler.doesExist('interval', JOB)) this.scheduler.deleteInterval(JOB);
  }

  /** Deletes attempts older than KEEP; answers how many. */
  async prune(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const rows: unknown[] = await this.db.query(
        `DELETE FROM purchase_attempts WHERE id IN (SELECT id FROM purchase_attempts WHERE created_at < now() - interval '${KEEP}' LIMIT ${BATCH}) RETURNING 1`,
      );
      deleted += rows.length;
      if (rows.length < BATCH) return deleted;
    }
  }
}
