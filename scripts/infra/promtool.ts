import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { hasCommand, isRoot } from './system-packages';

const DIR = join(__dirname, '..', '..', '.infra', 'prometheus');
const UNPACKED = join(DIR, 'usr', 'bin', 'promtool');

/**
 * The path of promtool (Prometheus' config and rule checker): from PATH, else unpacked from the
 * Debian `prometheus` package (which ships it) into the ignored .infra/prometheus/. The package is
 * downloaded and unpacked, not installed: no Prometheus or node-exporter daemon is started and
 * nothing outside the project changes (bar apt's package lists, refreshed when root and stale).
 */
export function ensurePromtool(): string {
  if (hasCommand('promtool')) return 'promtool';
  if (existsSync(UNPACKED)) return UNPACKED;
  return unpackPromtool();
}

export function unpackPromtool(): string {
  if (!hasCommand('apt-get') || !hasCommand('dpkg-deb')) {
    throw new Error(
      'promtool is missing: install the Debian/Ubuntu package prometheus (it ships promtool; macOS: brew install prometheus) or put promtool on PATH',
    );
  }
  mkdirSync(DIR, { recursive: true });
  const download = () =>
    spawnSync('apt-get', ['download', '-qq', 'prometheus'], { cwd: DIR, stdio: 'inherit' }).status === 0;
  if (!download()) {
    if (!isRoot())
      throw new Error(
        'promtool is missing and apt-get download prometheus failed: run apt-get update (as root) and try again',
      );
    console.log('[infra] promtool: apt-get update, then apt-get download prometheus');
    spawnSync('apt-get', ['update', '-qq'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (!download()) throw new Error('apt-get download prometheus failed');
  }
  const deb = readdirSync(DIR).find((name) => name.startsWith('prometheus_') && name.endsWith('.deb'));
  if (!deb) throw new Error(`apt-get download prometheus left no .deb in ${DIR}`);
  execFileSync('dpkg-deb', ['-x', join(DIR, deb), DIR]);
  rmSync(join(DIR, deb));
  if (!existsSync(UNPACKED)) throw new Error(`the prometheus package unpacked no ${UNPACKED}`);
  return UNPACKED;
}
