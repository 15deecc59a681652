import { mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Where tests write their files (configs, logs, reports): the project's ignored `.infra` folder,
 * never the system temp folder, so a test run leaves nothing outside the clone.
 */
export const TEST_OUTPUT_ROOT = resolve(__dirname, '..', '..', '.infra', 'test-output');

/** A new, empty folder under TEST_OUTPUT_ROOT, named `<prefix>-<random>`. */
export function testOutputDir(prefix: string): string {
  mkdirSync(TEST_OUTPUT_ROOT, { recursive: true });
  return mkdtempSync(join(TEST_OUTPUT_ROOT, `${prefix}-`));
}
