import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Debian's chromium, installed with apt-get when missing and we are root. Returns its path, or
 * the reason it cannot be had (the caller skips with that message).
 */
export function ensureChromium(timeoutMs = 180_000): { path: string } | { reason: string } {
  if (existsSync(CHROMIUM_PATH)) return { path: CHROMIUM_PATH };
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return { reason: `${CHROMIUM_PATH} is missing and we are not root on Linux to apt-get install it` };
  const deadline = Date.now() + timeoutMs;
  const apt = (args: string[]) =>
    spawnSync('apt-get', args, {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: Math.max(1000, deadline - Date.now()),
      encoding: 'utf8',
    });
  let result = apt(['install', '-y', '--no-install-recommends', 'chromium']);
  // A stale package list is the usual reason the first try fails on a fresh machine.
  if (result.status !== 0 && Date.now() < deadline) {
    apt(['update']);
    result = apt(['install', '-y', '--no-install-recommends', 'chromium']);
  }
  if (existsSync(CHROMIUM_PATH)) return { path: CHROMIUM_PATH };
  const why = result.error?.message ?? (result.stderr || result.stdout || '').trim().split('\n').slice(-3).join(' / ');
  return { reason: `apt-get install chromium failed: ${why}` };
}
