import { mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where the bench writes its scratch files (wrk's token lists, CPU profiles): the project's ignored `.infra`, never the system temp folder. */
export const BENCH_SCRATCH_ROOT = resolve(__dirname, '..', '..', '.infra', 'bench');

/** A new, empty folder under BENCH_SCRATCH_ROOT, named `<prefix>-<random>`. */
export function benchScratchDir(prefix: string): string {
  mkdirSync(BENCH_SCRATCH_ROOT, { recursive: true });
  return mkdtempSync(join(BENCH_SCRATCH_ROOT, `${prefix}-`));
}
