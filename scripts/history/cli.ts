import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkHistory, formatCheck, HistoryCheck } from './check-history';
import { readHistoryFile } from './read-history';
import { FinalStateSource, readFinalOrders } from './final-state';

const USAGE = `usage: npm run check-history -- FILE (--database-url URL | --url http://host:port [--token-secret S] [--token-issuer I] [--token-audience A])
  [--skew-ms 250] [--stale-read-ms 0] [--require all|RULE,...] [--json]
exit codes: 0 every rule holds, 1 a rule failed, 2 bad usage or the final state could not be read`;

export interface CheckRun {
  file: string;
  source: FinalStateSource;
  skewMs?: number;
  staleReadMs?: number;
  /** Rule ids (or `all`) that must judge something; default: the checker's set for the history kind. */
  require?: string[];
}

/** Reads the history, then the final state once, and judges. */
export async function checkHistoryFile(run: CheckRun): Promise<HistoryCheck> {
  const { meta, ops } = readHistoryFile(run.file);
  const finalReadAtMs = Date.now();
  const orders = await readFinalOrders(
    meta.products.map((p) => String(p.productId)),
    run.source,
  );
  return checkHistory(meta, ops, orders, {
    finalReadAtMs,
    skewMs: run.skewMs,
    staleReadMs: run.staleReadMs,
    require: run.require,
  });
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
  if (positionals.length !== 1) throw new Error('exactly one history FILE is required');
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
    file: positionals[0],
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
    const check = await checkHistoryFile(run);
    console.log(run.json ? JSON.stringify(check, null, 2) : formatCheck(check));
    return check.ok ? 0 : 1;
  } catch (error) {
    console.error(`check-history: ${(error as Error).message}`);
    return 2;
  }
}

if (require.main === module) {
  main().then((code) => process.exit(code));
}
