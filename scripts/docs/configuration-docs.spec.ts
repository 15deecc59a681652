import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../apps/api/src/config/app-config';

const ROOT = resolve(__dirname, '../..');
const APP_SOURCE = join(ROOT, 'apps/api/src');
const NAME = /^[A-Z][A-Z0-9_]*$/;

/** The app's own source files: what runs, not its tests. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Every variable the source names as `env.X`, `process.env.X` or `env['X']`. */
function variablesInSource(): Set<string> {
  const names = new Set<string>();
  for (const file of sourceFiles(APP_SOURCE)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\])/g))
      names.add(match[1] ?? match[2]);
  }
  return names;
}

/**
 * The variables loadConfig reads, recorded by an environment that notes every name asked for: it
 * sees reads the scan cannot (a name built at run time or read in a loop). Production stops at its
 * first refusal, so that run only adds what it reached.
 */
function variablesLoadConfigReads(): Set<string> {
  const read = new Set<string>();
  const recording = (values: Record<string, string>) =>
    new Proxy(values, {
      get: (target, name) => (typeof name === 'string' && NAME.test(name) && read.add(name), Reflect.get(target, name)),
      has: (target, name) => (typeof name === 'string' && NAME.test(name) && read.add(name), Reflect.has(target, name)),
    });
  loadConfig(recording({ NODE_ENV: 'development' }));
  try {
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://app:pw@db:5432/app',
      REDIS_URL: 'redis://:pw@redis:6379',
    };
    loadConfig(recording({ ...production, JWT_SECRET: randomBytes(32).toString('hex') }));
  } catch {
    // a refusal is fine here: only the names read matter
  }
  return read;
}

/** The names `.env.example` sets (`NAME=...`), and the text of its comments. */
function envExample(): { set: Set<string>; comments: string } {
  const lines = readFileSync(join(ROOT, '.env.example'), 'utf8').split('\n');
  const set = new Set(
    lines.map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1]).filter((name): name is string => name !== undefined),
  );
  return { set, comments: lines.filter((line) => line.startsWith('#')).join('\n') };
}

/** The names in the first cell of each row of README's "Configuration" table. */
function readmeConfigurationTable(): Set<string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = /^## Configuration\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  const firstCells = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|')[1]);
  return new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1])));
}

/** Only the process's environment sets these: a file cannot (config/env-file.ts), so .env.example only mentions them. */
const ENVIRONMENT_ONLY = ['NODE_ENV'];

const sorted = (names: Iterable<string>) => [...names].sort();
const missingFrom = (names: Iterable<string>, from: Set<string>) =>
  sorted([...names].filter((name) => !from.has(name)));

describe('the variables the app reads, and the two places that list them', () => {
  const scanned = variablesInSource();
  const recorded = variablesLoadConfigReads();
  const appReads = new Set([...scanned, ...recorded]);
  const example = envExample();
  const readme = readmeConfigurationTable();

  it('finds them in the source, in the example and in the README (the readers work)', () => {
    for (const names of [scanned, recorded, example.set, readme])
      expect(sorted(names)).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'JWT_SECRET']));
    expect(appReads.size).toBeGreaterThan(40);
  });

  it('scans every name loadConfig reads (no read the scan would miss)', () => {
    expect(missingFrom(recorded, scanned)).toEqual([]);
  });

  it('lists every variable the app reads in .env.example', () => {
    const listed = new Set([...example.set, ...ENVIRONMENT_ONLY]);
    expect(missingFrom(appReads, listed)).toEqual([]);
  });

  it('lists nothing in .env.example that the app does not read', () => {
    expect(missingFrom(example.set, appReads)).toEqual([]);
  });

  it('mentions NODE_ENV in .env.example without setting it, since a file cannot', () => {
    for (const name of ENVIRONMENT_ONLY) {
      expect(example.set.has(name)).toBe(false);
      expect(example.comments).toContain(name);
    }
  });

  it("gives every variable the app reads a row in README's configuration table", () => {
    expect(missingFrom(appReads, readme)).toEqual([]);
  });

  it("documents nothing in README's configuration table that the app does not read", () => {
    expect(missingFrom(readme, appReads)).toEqual([]);
  });
});
