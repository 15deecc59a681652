import { execFileSync, spawnSync } from 'node:child_process';

export function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Homebrew's names for the Debian packages the scripts install, where they differ. iproute2's
 * `ss` has no macOS build (null): the cells that read accept queues need Linux.
 */
const HOMEBREW: Record<string, string | null> = {
  'redis-server': 'redis',
  postgresql: 'postgresql@17',
  faketime: 'libfaketime',
  iproute2: null,
};

/** The command that installs the packages on this platform: Homebrew on macOS, apt-get elsewhere. */
export function installCommand(packages: string[], platform: NodeJS.Platform = process.platform): string {
  if (platform !== 'darwin') return `apt-get install -y ${packages.join(' ')}`;
  const missing = packages.filter((name) => HOMEBREW[name] === null);
  if (missing.length) return `no Homebrew package provides ${missing.join(' ')}: run this on Linux`;
  return `brew install ${packages.map((name) => HOMEBREW[name] ?? name).join(' ')}`;
}

/** Installs Debian packages when we are root and apt-get exists; otherwise explains what is missing. */
export function installPackages(packages: string[], why: string): void {
  if (!isRoot() || !hasCommand('apt-get')) {
    throw new Error(`${why}: install ${packages.join(' ')} (${installCommand(packages)}) and run again`);
  }
  console.log(`[infra] ${why}: apt-get install -y ${packages.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'inherit', env });
}
