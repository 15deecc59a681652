import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import type { Env } from './env.schema';

/** What reading an env file did to the environment, for the start-up log. */
export interface EnvFileReport {
  file: string;
  /** Variables the file set (absent from the environment before). */
  applied: string[];
  /** Variables the file also names but the environment already had: the environment wins. */
  keptFromEnvironment: string[];
  /** Variables a file may not set (NODE_ENV): ignored. */
  refused: string[];
}

/**
 * The mode decides which defaults apply (development's are published), so it comes only from
 * the process's own environment: a copied example file must never switch a server to development.
 */
const ENVIRONMENT_ONLY = new Set(['NODE_ENV']);

/** Reads `file` (when present) into `env` without overriding it; undefined when there is no file. */
export function applyEnvFile(file: string, env: Env = process.env): EnvFileReport | undefined {
  if (!existsSync(file)) return undefined;
  const report: EnvFileReport = { file, applied: [], keptFromEnvironment: [], refused: [] };
  for (const [name, value] of Object.entries(parseEnv(readFileSync(file, 'utf8')))) {
    if (ENVIRONMENT_ONLY.has(name)) report.refused.push(name);
    else if (env[name] !== undefined) report.keptFromEnvironment.push(name);
    else {
      env[name] = value;
      report.applied.push(name);
    }
  }
  return report;
}

/** One line saying which file set what (names only: values may be secrets). */
export function describeEnvFile(report: EnvFileReport): string {
  const parts = [`configuration: ${report.file} set ${report.applied.length ? report.applied.join(', ') : 'nothing'}`];
  if (report.keptFromEnvironment.length)
    parts.push(`the environment's own value kept for ${report.keptFromEnvironment.join(', ')}`);
  if (report.refused.length) parts.push(`${report.refused.join(', ')} ignored (only the environment sets it)`);
  return parts.join('; ');
}
