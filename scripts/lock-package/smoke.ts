// Proves the lock library installs and works as a package where its users are: `npm pack` it
// from a copy of the tree without node_modules (a fresh clone), then for each stack of STACKS
// install the tarball with that stack's NestJS and ioredis (prom-client, the optional peer, left
// out) into a fresh consumer project, CommonJS or an ES-module app as `nest new` makes one,
// compile the consumer and the README's examples (libs/distributed-lock/examples) with
// `tsc --strict`, and run them against a private redis-server. Everything happens under
// .infra/lock-package (ignored by git).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureRedisBinary } from '../infra/redis';
import { RedisServerProcess } from '../../test/support/redis-server';

const ROOT = join(__dirname, '..', '..');
const LIBRARY = join(ROOT, 'libs', 'distributed-lock');
const WORK = join(ROOT, '.infra', 'lock-package');
// The consumer's own packages besides the stack: Nest's other peers, and the compiler.
const COMMON = ['reflect-metadata', 'rxjs', 'typescript', '@types/node'];

interface Stack {
  name: string;
  /** An ES-module app: "type": "module" and nest new 12's ESM tsconfig (consumer-esm/tsconfig.json). */
  esm?: boolean;
  /** Exact versions: a new release of either line changes the run only when this table does. */
  packages: Record<string, string>;
}

/** The previous and the current majors of NestJS and ioredis, as the package's peers allow. */
const NEST12 = ['@nestjs/common', '@nestjs/core', '@nestjs/config', '@nestjs/testing', 'ioredis'];
const STACKS: Stack[] = [
  {
    name: 'nest11-ioredis5',
    packages: {
      '@nestjs/common': '11.2.10',
      '@nestjs/core': '11.2.10',
      '@nestjs/config': '4.0.4',
      '@nestjs/testing': '11.2.6',
      ioredis: '5.11.1',
    },
  },
  { name: 'nest12-ioredis6', packages: Object.fromEntries(NEST12.map((name) => [name, lockedVersion(name)])) },
  {
    name: 'nest12-esm-ioredis6',
    esm: true,
    packages: Object.fromEntries(NEST12.map((name) => [name, lockedVersion(name)])),
  },
];
const EXAMPLES = ['core', 'nest-module', 'with-lock', 'held-lock', 'testing'];

const log = (message: string) => console.log(`[lock-package] ${message}`);

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  try {
    // A consumer left hanging (an unclosed connection keeps Node alive) fails instead of stalling CI.
    return execFileSync(command, args, {
      cwd,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 120_000,
    });
  } catch (error) {
    process.stdout.write((error as { stdout?: string }).stdout ?? '');
    throw error;
  }
}

/** The version the root project resolved for a package, so the consumer installs the same. */
function lockedVersion(name: string): string {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const version = lock.packages[`node_modules/${name}`]?.version;
  if (!version) throw new Error(`${name} is not in the root package-lock.json`);
  return version;
}

/**
 * Packs the library as a fresh clone would: from a copy of every file git would commit (tracked or
 * new, nothing ignored, so no node_modules and no dist), where its prepack has to install the
 * repository's dependencies before it can compile (npm ci, from npm's cache when it can).
 */
function pack(): string {
  rmSync(WORK, { recursive: true, force: true });
  const clone = join(WORK, 'fresh-clone');
  const files = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], ROOT)
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    // A file deleted but not yet staged is listed yet absent: a clone would not have it either.
    if (!existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(ROOT, file), join(clone, file));
  }
  log(`packing from a copy of the tree without node_modules (${files.length} files)`);
  const env = { ...process.env, npm_config_prefer_offline: 'true' };
  const output = run(
    'npm',
    ['pack', '--silent', '--pack-destination', WORK],
    join(clone, 'libs', 'distributed-lock'),
    env,
  );
  const tarball = output.trim().split('\n').pop() ?? '';
  log(`packed ${tarball}`);
  return join(WORK, tarball);
}

/** A consumer project for one stack: its own checks (consumer/src) and the README's examples. */
function createConsumer(tarball: string, stack: Stack): string {
  const consumer = join(WORK, stack.name);
  cpSync(join(__dirname, 'consumer'), consumer, { recursive: true });
  if (stack.esm) cpSync(join(__dirname, 'consumer-esm', 'tsconfig.json'), join(consumer, 'tsconfig.json'));
  cpSync(join(LIBRARY, 'examples'), join(consumer, 'src', 'examples'), { recursive: true });
  const common = Object.fromEntries(COMMON.map((name) => [name, lockedVersion(name)]));
  const dependencies = { '@flash-sale/distributed-lock': `file:${tarball}`, ...common, ...stack.packages };
  const manifest = {
    name: `lock-consumer-${stack.name}`,
    private: true,
    ...(stack.esm && { type: 'module' }),
    dependencies,
  };
  writeFileSync(join(consumer, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  log(
    `${stack.name}: installing the tarball with ${Object.entries(stack.packages)
      .map(([n, v]) => `${n}@${v}`)
      .join(', ')}`,
  );
  // --strict-peer-deps: a peer range of the package that leaves this stack out fails here.
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--strict-peer-deps',
      '--ignore-scripts',
      '--loglevel=error',
    ],
    consumer,
  );
  const tsc = join(consumer, 'node_modules', '.bin', 'tsc');
  if (stack.esm) {
    log(`${stack.name}: compiling as an ES-module app (module nodenext, "type": "module")`);
    run(tsc, ['-p', '.', '--strict'], consumer);
    return consumer;
  }
  log(`${stack.name}: compiling with tsc --strict (module node20, then the older node10 resolution)`);
  run(tsc, ['-p', '.', '--strict'], consumer);
  // node10 is how older projects resolve (deprecated in TypeScript 6): the typesVersions map serves it.
  run(
    tsc,
    [
      '-p',
      '.',
      '--strict',
      '--noEmit',
      '--module',
      'commonjs',
      '--moduleResolution',
      'node10',
      '--ignoreDeprecations',
      '6.0',
    ],
    consumer,
  );
  return consumer;
}

async function main(): Promise<void> {
  const began = performance.now();
  ensureRedisBinary();
  const tarball = pack();
  const consumers = STACKS.map((stack) => ({ stack, dir: createConsumer(tarball, stack) }));
  const redis = await RedisServerProcess.start();
  try {
    const env = { ...process.env, REDIS_PORT: String(redis.port), REDIS_URL: `redis://127.0.0.1:${redis.port}` };
    for (const { stack, dir } of consumers) {
      for (const program of ['plain', 'nest-app', ...EXAMPLES.map((name) => `examples/${name}`)]) {
        log(`${stack.name}: running ${program}`);
        // The ESM tsconfig's rootDir is the project (as nest new writes it): src/ stays in dist.
        const output = stack.esm ? join('dist', 'src', `${program}.js`) : join('dist', `${program}.js`);
        process.stdout.write(run('node', [output], dir, env));
      }
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
