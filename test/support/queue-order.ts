import { spawn } from 'node:child_process';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '../../scripts/queue-order/verify-queue-order.mjs');

/**
 * Runs the independent order script (Node's crypto and nothing of the app) the way a buyer would:
 * the published seed and commitment as arguments, ticket ids on stdin. Asynchronous, so that an
 * app running in the test's own process keeps its timers. Rejects with the script's message when
 * it exits non-zero.
 */
export function runOrderScript(seed: string, commitment: string, ticketIds: string[], check = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, '--seed', seed, '--commitment', commitment, ...(check ? ['--check'] : [])], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out).toString('utf8')) : reject(new Error(`exit ${code}: ${Buffer.concat(err).toString('utf8').trim()}`))));
    child.stdin.end(ticketIds.join('\n'));
  });
}

/** The pre-queue's ticket ids in the order the published seed gives them. */
export const seededOrder = async (seed: string, commitment: string, ticketIds: string[]): Promise<string[]> =>
  (await runOrderScript(seed, commitment, ticketIds)).split('\n').filter(Boolean);
