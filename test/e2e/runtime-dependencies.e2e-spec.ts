// `dependencies` is what the image installs (npm prune --omit=dev): exactly what the built app
// loads, so the image carries no tool, bench or example package, and misses none it needs.
import {
  bundleRequires,
  LOADED_BY_DEPENDENCIES,
  loadedByDependencySource,
  packageOf,
  requiredPeers,
  runtimeDependencies,
} from '../../scripts/deps/runtime-dependencies';

describe("package.json's dependencies", () => {
  it('are exactly the packages the built app requires, their required peers and what they load by name', () => {
    const { needed, declared } = runtimeDependencies();
    expect(declared).toEqual(needed);
  });

  it.each(Object.entries(LOADED_BY_DEPENDENCIES))('include %s, which %s loads at run time', (name, source) => {
    expect(loadedByDependencySource(source)).toContain(`'${name}'`);
  });

  it("read a bundle's requires as package names, leaving Node's built-ins out", () => {
    const bundle = 'require("node:fs");require("crypto");require("@nestjs/common/constants");require("pino");require("./local")';
    expect([...bundleRequires(bundle)].sort()).toEqual(['@nestjs/common', 'pino']);
    expect(packageOf('@scope/name/deep/path')).toBe('@scope/name');
  });

  it('count only the peers a package does not mark optional', () => {
    const read = () => ({ peerDependencies: { rxjs: '^7', redis: '^5' }, peerDependenciesMeta: { redis: { optional: true } } });
    expect([...requiredPeers(['x'], read)]).toEqual(['rxjs']);
  });
});
