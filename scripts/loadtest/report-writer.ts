import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderReportHtml } from './report-html';
import { LoadTestResult } from './types';

/** Writes `<reportDir>/<timestamp>/report.json` and `report.html`; returns their paths. */
export function writeReport(result: LoadTestResult, reportDir: string): NonNullable<LoadTestResult['reportPaths']> {
  const stamp = result.startedAt.replace(/[:.]/g, '-');
  let dir = resolve(reportDir, stamp);
  // Two runs started in the same millisecond (parallel tests) must not overwrite each other.
  if (existsSync(dir)) dir = `${dir}-${result.runId}`;
  mkdirSync(dir, { recursive: true });
  const paths = { dir, json: join(dir, 'report.json'), html: join(dir, 'report.html') };
  const withPaths = { ...result, reportPaths: paths };
  writeFileSync(paths.json, `${JSON.stringify(withPaths, null, 2)}\n`);
  writeFileSync(paths.html, renderReportHtml(withPaths));
  return paths;
}
