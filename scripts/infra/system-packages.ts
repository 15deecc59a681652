import { execFileSync, spawnSync } from 'node:child_process';

export function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** Installs Debian packages when we are root and apt-get exists; otherwise explains what is missing. */
export function installPackages(packages: string[], why: string): void {
  if (!isRoot() || !hasCommand('apt-get')) {
    throw new Error(`${why}: install ${packages.join(' ')} (apt-get install -y ${packages.join(' ')}) and run again`);
  }
  console.log(`[infra] ${why}: apt-get install -y ${packages.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'inherit', env });
}
