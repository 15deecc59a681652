import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Send } from './api-client';

const SCRIPT = join(__dirname, '../../scripts/queue-order/verify-queue-order.mjs');

/** A sale's audit file as GET /products/:id/queue/audit serves it (the fields the tests read). */
export interface AuditFile {
  format: string;
  commitment: { hash: string; seedCommitment: string; beacon: { round: number; publicKey: string } | null } & Record<
    string,
    unknown
  >;
  reveal: { seed: string; beacon: string; round: number | null; signature: string | null; shuffleSeed: string } | null;
  queue: { epoch: string; preQueue: number; tickets: number; served: number } | null;
  tickets: Array<{ ticketId: string; ticketHash: string | null; place: number | null; admittedAt: string | null }>;
  adminActions: Array<{
    seq: number;
    at: string;
    action: string;
    details: Record<string, unknown>;
    prevHash: string;
    hash: string;
  }>;
}

export async function fetchAudit(
  send: Send,
  productId: string,
): Promise<{ status: number; raw: string; file: AuditFile }> {
  const res = await send({ method: 'GET', url: `/products/${productId}/queue/audit` });
  return { status: res.status, raw: res.raw, file: res.body as AuditFile };
}

/**
 * Runs verify-queue-order --audit on `file` (stdin) as a buyer would, in a child process so that
 * an app in the test's own process keeps its timers. Resolves with the exit status and the output.
 */
export function verifyAuditFile(file: unknown, args: string[] = []): Promise<{ status: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, '--audit', '-', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => out.push(chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status: status ?? -1, out: Buffer.concat(out).toString('utf8') }));
    child.stdin.end(typeof file === 'string' ? file : JSON.stringify(file));
  });
}
