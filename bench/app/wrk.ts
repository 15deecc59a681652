import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hasCommand, installPackages } from '../../scripts/infra/system-packages';
import type { LoadResult } from './http-load';
import { benchScratchDir } from './scratch-dir';

export interface WrkSpec {
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  connections: number;
  seconds: number;
  /** Bearer tokens, each thread walking its own stride (distinct users until the list wraps). */
  tokens?: string[];
  /** Request paths walked the same way (e.g. one ticket each); the url's path when absent. */
  paths?: string[];
  /** Request bodies walked the same way, the i-th with the i-th token (e.g. a user's solved challenge); `body` when absent. */
  bodies?: string[];
  /**
   * Send each entry of the lists once, none twice: the run ends when every answer is in (or after
   * `seconds`, which then only caps it). Each thread sends its stride of the entries.
   */
  once?: boolean;
  /** A request unanswered after this long counts as a timeout (wrk's default is 2 s). */
  timeoutS?: number;
}

export interface WrkResult extends LoadResult {
  /** Answers by status, refusals also by the contract's code: `{"201": n, "409 SOLD_OUT": n}`. */
  byAnswer: Record<string, number>;
}

const THREADS = 2;
const SCRIPT = resolve(__dirname, 'wrk-script.lua');

/** Installs wrk (a C load generator, Debian package `wrk`) when it is missing. */
export function ensureWrk(): void {
  if (!hasCommand('wrk')) installPackages(['wrk'], 'the app bench drives HTTP load with wrk');
}

const WANTED_OPEN_FILES = 65_536;

/**
 * Raises this process's open-file limit (soft and hard, which root may do) before the API and
 * wrk are started, so that they inherit room for the spike's thousands of sockets even where the
 * default hard limit is 1,024. Best effort: without prlimit or the right, the limits stay.
 */
export function raiseOpenFileLimit(): number {
  spawnSync('prlimit', ['--pid', String(process.pid), `--nofile=${WANTED_OPEN_FILES}:${WANTED_OPEN_FILES}`], { stdio: 'ignore' });
  return openFileHardLimit();
}

/** The hard open-file limit of this process (what wrk's shell and the API can raise to). */
export function openFileHardLimit(): number {
  const line = /^Max open files\s+\S+\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
  return line === undefined || line === 'unlimited' ? Infinity : Number(line);
}

let tokenDir: string | undefined;
function lineFile(kind: string, lines: string[]): string {
  tokenDir ??= benchScratchDir('bench-wrk');
  const file = join(tokenDir, `${kind}-${lines.length}-${lines[0]?.slice(-12).replace(/\W/g, '_') ?? 'none'}.txt`);
  writeFileSync(file, lines.join('\n'));
  return file;
}

/**
 * One wrk run. It is started through a shell that raises its open-file limit to the hard limit
 * first: thousands of connections need as many descriptors (Node raises its own at start-up).
 */
export async function runWrk(spec: WrkSpec): Promise<WrkResult> {
  const threads = Math.min(THREADS, spec.connections);
  const entries = Math.max(spec.tokens?.length ?? 0, spec.paths?.length ?? 0, spec.bodies?.length ?? 0);
  if (spec.once && entries < threads) throw new Error(`wrk: a run that sends each entry once needs at least ${threads} entries, got ${entries}`);
  const args = [
    `-t${threads}`,
    `-c${spec.connections}`,
    `-d${spec.seconds}s`,
    `--timeout`,
    `${spec.timeoutS ?? 30}s`,
    '-s',
    SCRIPT,
    spec.url,
    '--',
    spec.tokens?.length ? lineFile('tokens', spec.tokens) : '',
    String(threads),
    spec.paths?.length ? lineFile('paths', spec.paths) : '',
    spec.bodies?.length ? lineFile('bodies', spec.bodies) : '',
    spec.once ? 'once' : '',
  ];
  const shellArgs = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const env = { ...process.env, WRK_METHOD: spec.method, ...(spec.body !== undefined ? { WRK_BODY: spec.body } : {}) };
  const output = await new Promise<string>((done, fail) => {
    const child = spawn('sh', ['-c', `ulimit -n "$(ulimit -Hn)" && exec wrk ${shellArgs}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let ending: NodeJS.Timeout | undefined;
    child.stdout.on('data', (chunk) => {
      text += chunk;
      // Every thread has all its answers: SIGINT ends wrk's wait for its duration (it prints its
      // summary as usual). Repeated until it exits, in case a signal lands on a thread that is ending.
      if (spec.once && ending === undefined && (text.match(/^WRK_THREAD_DONE$/gm)?.length ?? 0) >= threads) {
        child.kill('SIGINT');
        ending = setInterval(() => child.kill('SIGINT'), 250);
      }
    });
    child.stderr.on('data', (chunk) => (text += chunk));
    child.on('error', fail);
    child.on('exit', (code) => {
      clearInterval(ending);
      if (code === 0) done(text);
      else fail(new Error(`wrk exited with ${code}: ${text.slice(-500)}`));
    });
  });
  return parseWrkOutput(output);
}

/** Reads the JSON line wrk-script.lua prints at the end of a run. */
export function parseWrkOutput(output: string): WrkResult {
  const line = /^WRK_RESULT (.*)$/m.exec(output)?.[1];
  if (!line) throw new Error(`wrk printed no result: ${output.slice(-500)}`);
  const raw = JSON.parse(line) as { requests: number; durationUs: number; p50Us: number; p99Us: number; maxUs: number; socketErrors: number; timeouts: number; byAnswer: Record<string, number> };
  const byStatus: Record<string, number> = {};
  for (const [answer, count] of Object.entries(raw.byAnswer)) {
    const status = answer.split(' ')[0];
    byStatus[status] = (byStatus[status] ?? 0) + count;
  }
  const seconds = raw.durationUs / 1e6;
  const ok2xx = Object.entries(byStatus).reduce((sum, [status, count]) => (status.startsWith('2') ? sum + count : sum), 0);
  return {
    requests: raw.requests,
    byStatus,
    byAnswer: raw.byAnswer,
    perSecond: seconds > 0 ? raw.requests / seconds : 0,
    seconds,
    ok2xx,
    p50: raw.p50Us / 1000,
    p99: raw.p99Us / 1000,
    max: raw.maxUs / 1000,
    errors: raw.socketErrors + raw.timeouts,
  };
}
