import { existsSync } from 'node:fs';
import { installPackages } from '../../../scripts/infra/system-packages';

const CANDIDATES = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1', '/usr/lib/faketime/libfaketimeMT.so.1'];

/**
 * The environment that makes a process's wall clock run `offset` ahead (libfaketime, e.g. "+10m"),
 * installing the Debian package when root and missing. Monotonic clocks stay real, so timers and
 * timeouts behave; only the date moves.
 */
export function skewedClockEnv(offset: string): Record<string, string> {
  let lib = CANDIDATES.find(existsSync);
  if (!lib) {
    installPackages(['faketime'], 'the clock-skew scenario needs libfaketime');
    lib = CANDIDATES.find(existsSync);
  }
  if (!lib) throw new Error(`libfaketime not found after installing faketime (looked in ${CANDIDATES.join(', ')})`);
  return { LD_PRELOAD: lib, FAKETIME: offset, DONT_FAKE_MONOTONIC: '1', FAKETIME_DONT_RESET: '1' };
}
