import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkHistory, formatCheck, HistoryCheck } from './check-history';
import { readHistoryFile } from './read-history';
import { FinalStateSource, readFinalOrders } from './final-state';
import { MergedHistory, mergeHistories } from './merge-histories';

const USAGE = `usage: npm run check-history -- FILE [FILE ...] (--database-url URL | --url http://host:port [--token-secret S] [--token-issuer I] [--token-audience A])
  [--skew-ms 250] [--stale-read-ms 0] [--require all|RULE,...] [--json]
  several FILEs: the histories of one --run-id (one per generator, the lead's among them), judged as one sale
exit codes: 0 every rule holds, 1 a rule failed, 2 bad usage or the final state could not be read`;

export interface CheckRun {
  /** One history, or every generator's history of one shared run. */
  files: string[];
  source: FinalStateSource;
  skewMs?: number;
  staleReadMs?: number;
  /** Rule ids (or `all`) that must judge something; default: the checker's set for the history kind. */
  require?: string[];
}

/** What the checker judged: the verdict, and the shared run's parts when several histories were merged. */
export type FilesCheck = HistoryCheck & Pick<MergedHistory, 'run'>;

/** Reads the histories (merged onto one clock when they are a shared run's), then the final state once, and judges. */
export async function checkHistoryFiles(run: CheckRun): Promise<FilesCheck> {
  const merged = mergeHistories(run.files.map((file) => ({ file, ...readHistoryFile(file) })));
  const { meta, ops } = merged;
  const finalReadAtMs = Date.now();
  const orders = await readFinalOrders(
    meta.products.map((p) => String(p.productId)),
    run.source,
  );
  const check = checkHistory(meta, ops, orders, {
    finalReadAtMs,
    skewMs: run.skewMs,
    staleReadMs: run.staleReadMs,
    require: run.require,
  });
  return merged.run ? { ...check, run: merged.run } : check;
}

const signed = (ms: number): string => `${ms >= 0 ? '+' : '−'}${Math.abs(ms).toFixed(1)}`;

/** The verdict, after a line per generator when a shared run's histories were merged. */
export function formatFilesCheck(check: FilesCheck): string {
  if (!check.run) return formatCheck(check);
  const { id, against, parts } = check.run;
  return [
    `run ${id}: ${parts.length} history file(s) judged as one sale, on the clock of ${against}`,
    ...parts.map(
      (p) =>
        `  ${p.generator} (${p.role}): ${p.file}, ${p.ops} operation(s), clock offset ${signed(p.offsetMs)} ± ${p.uncertaintyMs.toFixed(1)} ms`,
    ),
    formatCheck(check),
  ].join('\n');
}

function parse(argv: string[], env: NodeJS.ProcessEnv): CheckRun & { json: boolean } {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      'database-url': { type: 'string' },
      url: { type: 'string' },
      'token-secret': { type: 'string' },
      'token-issuer': { type: 'string' },
      'token-audience': { type: 'string' },
      'skew-ms': { type: 'string' },
      'stale-read-ms': { type: 'string' },
      require: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (positionals.length === 0) throw new Error('a history FILE is required');
  if ((values['database-url'] === undefined) === (values.url === undefined))
    throw new Error('exactly one of --database-url and --url is required');
  const tokenSecret = values['token-secret'] ?? env.JWT_SECRET ?? 'dev-only-secret-change-me';
  const ms = (flag: string, value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${flag} must be a number >= 0`);
    return n;
  };
  return {
    files: positionals,
    source:
      values['database-url'] !== undefined
        ? { databaseUrl: values['database-url'] }
        : {
            url: values.url as string,
            tokenSecret,
            claims: {
              issuer: values['token-issuer'] ?? (env.JWT_ISSUER || undefined),
              audience: values['token-audience'] ?? (env.JWT_AUDIENCE || undefined),
            },
          },
    skewMs: ms('skew-ms', values['skew-ms']),
    staleReadMs: ms('stale-read-ms', values['stale-read-ms']),
    require: values.require
      ?.split(',')
      .map((id) => id.trim())
      .filter(Boolean),
    json: values.json ?? false,
  };
}

async function main(): Promise<number> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  let run: ReturnType<typeof parse>;
  try {
    run = parse(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  try {
    const check = await checkHistoryFiles(run);
    console.log(run.json ? JSON.stringify(check, null, 2) : formatFilesCheck(check));
    return check.ok ? 0 : 1;
  } catch (error) {
    console.error(`check-history: ${(error as Error).message}`);
    return 2;
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    // main answers its own failures with a code; this is for one it did not expect (a bad .env).
    (error: unknown) => {
      console.error(`check-history failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(2);
    },
  );
}
