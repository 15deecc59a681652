import { INestApplication, Logger } from '@nestjs/common';
import { reportBackgroundFailure } from './metrics/background-failures';

const log = new Logger('Process');
// How long a clean shutdown after an uncaught exception may take before the process just exits.
export const SHUTDOWN_BOUND_MS = 5_000;

/**
 * The process-level policy (docs/RELIABILITY.md, "Process policy"):
 *
 * - A promise rejection nobody handled is a bug in one piece of work, not a broken process: it is
 *   logged with its stack, counted in background_failures_total{task="unhandled-rejection"}, and
 *   the instance keeps serving. Every job and fire-and-forget path handles its own failures, so
 *   a dependency outage never reaches this handler.
 * - An uncaught exception leaves the process in a state nobody can vouch for: it is logged, the
 *   app shuts down cleanly (stops accepting, finishes in-flight requests, releases its locks)
 *   within SHUTDOWN_BOUND_MS, and the process exits 1 for its supervisor to restart it.
 */
export function installProcessGuards(app: INestApplication): void {
  process.on('unhandledRejection', (reason) => reportBackgroundFailure(log, 'unhandled-rejection', 'process', reason));
  let exiting = false;
  process.on('uncaughtException', (error) => {
    log.fatal(`uncaught exception, shutting down for a restart: ${error.stack ?? error.message}`);
    if (exiting) return;
    exiting = true;
    setTimeout(() => process.exit(1), SHUTDOWN_BOUND_MS).unref();
    void app.close().finally(() => process.exit(1));
  });
}
