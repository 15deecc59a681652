// What `dependencies` must be: exactly the packages the built app (dist/apps/api/main.js) loads.
// The webpack bundle leaves every package outside it as a plain `require("name")`; beside those,
// the app needs the peers they require of it and the few packages a dependency loads by name at
// run time, listed below with the reason.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Packages a dependency loads by name at run time, which no `require` of ours shows. */
export const LOADED_BY_DEPENDENCIES: Record<string, { by: string; where: string }> = {
  // Swagger UI's assets on Fastify, when DOCS_ENABLED serves /docs.
  '@fastify/static': { by: '@nestjs/swagger', where: 'dist/swagger-module.js' },
};

/** The package name of a module specifier: `@scope/name/sub/path` -> `@scope/name`, `x/y` -> `x`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The packages (not Node's built-ins) a webpack bundle requires. */
export function bundleRequires(bundle: string): Set<string> {
  const builtins = new Set(builtinModules);
  const found = new Set<string>();
  for (const [, specifier] of bundle.matchAll(/require\("([^"./][^"]*)"\)/g)) {
    if (specifier.startsWith('node:') || builtins.has(specifier)) continue;
    found.add(packageOf(specifier));
  }
  return found;
}

interface Manifest {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

function manifestOf(name: string): Manifest {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as Manifest;
}

/** Required (not optional) peers of the given packages, which the app must install itself. */
export function requiredPeers(names: Iterable<string>, read: (name: string) => Manifest = manifestOf): Set<string> {
  const peers = new Set<string>();
  for (const name of names) {
    const manifest = read(name);
    for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
      if (!manifest.peerDependenciesMeta?.[peer]?.optional) peers.add(peer);
    }
  }
  return peers;
}

/** What the built app needs installed, and what package.json's `dependencies` says. */
export function runtimeDependencies(bundlePath = join(ROOT, 'dist', 'apps', 'api', 'main.js')): {
  needed: string[];
  declared: string[];
} {
  const required = bundleRequires(readFileSync(bundlePath, 'utf8'));
  const needed = new Set([...required, ...requiredPeers(required), ...Object.keys(LOADED_BY_DEPENDENCIES)]);
  const declared = Object.keys(
    (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest).dependencies ?? {},
  );
  return { needed: [...needed].sort(), declared: declared.sort() };
}

export function loadedByDependencySource({ by, where }: { by: string; where: string }): string {
  return readFileSync(join(ROOT, 'node_modules', by, where), 'utf8');
}
