// Proves the lock library installs and works as a package: `npm pack` it, install the tarball
// with its peer dependencies (prom-client, the optional one, left out) into a fresh consumer
// project, compile the consumer with `tsc --strict`, and run it against a private redis-server.
// Everything happens under .infra/lock-package (ignored by git); peers come at the versions of the
// root package-lock, so npm's cache usually serves them.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureRedisBinary } from '../infra/redis';
import { RedisServerProcess } from '../../test/support/redis-server';

const ROOT = join(__dirname, '..', '..');
const LIBRARY = join(ROOT, 'libs', 'distributed-lock');
const WORK = join(ROOT, '.infra', 'lock-package');
const CONSUMER = join(WORK, 'consumer');
const PEERS = ['@nestjs/common', '@nestjs/core', 'ioredis', 'reflect-metadata', 'rxjs'];
const TOOLS = ['typescript', '@types/node'];

const log = (message: string) => console.log(`[lock-package] ${message}`);

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  try {
    // A consumer left hanging (an unclosed connection keeps Node alive) fails instead of stalling CI.
    return execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 120_000 });
  } catch (error) {
    process.stdout.write((error as { stdout?: string }).stdout ?? '');
    throw error;
  }
}

/** The version the root project resolved for a package, so the consumer installs the same. */
function lockedVersion(name: string): string {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  const version = lock.packages[`node_modules/${name}`]?.version;
  if (!version) throw new Error(`${name} is not in the root package-lock.json`);
  return version;
}

function pack(): string {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const output = run('npm', ['pack', '--silent', '--pack-destination', WORK], LIBRARY);
  const tarball = output.trim().split('\n').pop() ?? '';
  log(`packed ${tarball}`);
  return join(WORK, tarball);
}

function createConsumer(tarball: string): void {
  cpSync(join(__dirname, 'consumer'), CONSUMER, { recursive: true });
  const dependencies = Object.fromEntries([...PEERS, ...TOOLS].map((name) => [name, lockedVersion(name)]));
  const manifest = { name: 'lock-package-consumer', private: true, dependencies: { '@flash-sale/distributed-lock': `file:${tarball}`, ...dependencies } };
  writeFileSync(join(CONSUMER, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  log('installing the tarball and its peers');
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], CONSUMER);
  const tsc = join(CONSUMER, 'node_modules', '.bin', 'tsc');
  log('compiling the consumer with tsc --strict (node16 resolution, then the older node10 one)');
  run(tsc, ['-p', '.', '--strict'], CONSUMER);
  run(tsc, ['-p', '.', '--strict', '--noEmit', '--module', 'commonjs', '--moduleResolution', 'node10'], CONSUMER);
}

async function main(): Promise<void> {
  const began = performance.now();
  ensureRedisBinary();
  createConsumer(pack());
  const redis = await RedisServerProcess.start();
  try {
    const env = { ...process.env, REDIS_PORT: String(redis.port) };
    for (const program of ['plain', 'nest-app']) {
      log(`running ${program}`);
      process.stdout.write(run('node', [join('dist', `${program}.js`)], CONSUMER, env));
    }
  } finally {
    await redis.stop();
  }
  log(`passed in ${((performance.now() - began) / 1000).toFixed(0)} s`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
