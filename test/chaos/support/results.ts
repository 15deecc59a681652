import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RESULTS_DIR, ScenarioResult } from '../../../scripts/chaos-report';
import { Verdict } from './checks';
import { Recorder } from './traffic';

/** The command line that ran this suite, for the report. */
function command(): string {
  if (process.env.npm_lifecycle_event === 'test:chaos') return 'npm run test:chaos';
  if (process.env.npm_lifecycle_event === 'test') return 'npm test';
  const soak = process.env.CHAOS_SOAK_S ? `CHAOS_SOAK_S=${process.env.CHAOS_SOAK_S} ` : '';
  return `${soak}npx jest ${process.argv.slice(2).join(' ')}`.trim();
}

export interface ResultInput {
  id: string;
  title: string;
  setup: string;
  rec: Recorder;
  faults: string[];
  recovery: Record<string, number | string | undefined>;
  verdicts: Verdict[];
  extra?: Record<string, unknown>;
}

/**
 * Writes reports/chaos/<id>.json (ignored by git). docs/RELIABILITY.md is not touched here:
 * `npm run reliability:report` publishes the figures of a full `npm run test:chaos`.
 */
export function saveResult(input: ResultInput): ScenarioResult {
  const result: ScenarioResult = {
    id: input.id,
    title: input.title,
    setup: input.setup,
    ranAt: new Date().toISOString(),
    command: command(),
    durationS: Math.round(input.rec.now() / 100) / 10,
    requests: input.rec.requests,
    outcomes: input.rec.outcomes,
    phases: input.rec.phases,
    maxLatencyMs: input.rec.maxLatencyMs,
    faults: input.faults,
    recovery: Object.fromEntries(Object.entries(input.recovery).map(([k, v]) => [k, v ?? 'none'])),
    verdicts: input.verdicts,
    passed: input.verdicts.every((v) => v.ok),
    extra: input.extra,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(resolve(RESULTS_DIR, `${input.id}.json`), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}
