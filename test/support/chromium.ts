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

/** CI=true (or any value but false/0), as CI services set it. */
const onCi = (): boolean => !!process.env.CI && !['false', '0'].includes(process.env.CI);

/** apt-get as root, or through passwordless sudo on a CI runner; undefined when neither. */
function aptCommand(): string[] | undefined {
  if (process.platform !== 'linux') return undefined;
  if (process.getuid?.() === 0) return ['apt-get'];
  if (onCi() && spawnSync('sudo', ['-n', 'true']).status === 0) return ['sudo', '-n', 'apt-get'];
  return undefined;
}

/**
 * Debian's chromium, installed with apt-get when missing and we are root (or on CI with sudo).
 * Returns its path, or the reason it cannot be had.
 */
export function ensureChromium(timeoutMs = 180_000): { path: string } | { reason: string } {
  if (existsSync(CHROMIUM_PATH)) return { path: CHROMIUM_PATH };
  const command = aptCommand();
  if (!command) return { reason: `${CHROMIUM_PATH} is missing and we are neither root on Linux nor on CI with sudo to apt-get install it` };
  const deadline = Date.now() + timeoutMs;
  const apt = (args: string[]) =>
    spawnSync(command[0], [...command.slice(1), ...args], {
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

/**
 * Chromium for a browser test: its path; on CI (CI=true) a failure to get it fails the suite,
 * elsewhere the caller skips with the message printed here.
 */
export function chromiumForTest(what: string): string | undefined {
  const result = ensureChromium();
  if ('path' in result) return result.path;
  if (onCi()) throw new Error(`${what} needs Chromium: ${result.reason}`);
  console.warn(`SKIPPING ${what}: ${result.reason}`);
  return undefined;
}

/**
 * For a spec with browser tests: Chromium's path, and the `it` to declare those tests with. When
 * Chromium cannot be had outside CI that is `it.skip`, so they show as skipped (the reason printed
 * by chromiumForTest), never as passed; on CI the missing browser fails the suite.
 */
export function browserTests(what: string): { browserPath: string | undefined; itInBrowser: jest.It } {
  const browserPath = chromiumForTest(what);
  return { browserPath, itInBrowser: browserPath ? it : it.skip };
}
