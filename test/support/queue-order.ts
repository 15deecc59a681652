import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '../../scripts/queue-order/verify-queue-order.mjs');

/**
 * Runs the independent order script (Node's crypto and nothing of the app) the way a buyer would:
 * the published seed and commitment as arguments, ticket ids on stdin. Throws with the script's
 * message when it exits non-zero.
 */
export function runOrderScript(seed: string, commitment: string, ticketIds: string[], check = false): string {
  return execFileSync(process.execPath, [SCRIPT, '--seed', seed, '--commitment', commitment, ...(check ? ['--check'] : [])], {
    input: ticketIds.join('\n'),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** The pre-queue's ticket ids in the order the published seed gives them. */
export const seededOrder = (seed: string, commitment: string, ticketIds: string[]): string[] => runOrderScript(seed, commitment, ticketIds).split('\n').filter(Boolean);
