import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarizeProfiles } from './cpu-profile';

/** A profile sampled every 10 ms: 100 ms of module loading, then 100 ms of serving, idle between. */
function writeProfile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cpu-profile-spec-'));
  const nodes = [
    { id: 1, callFrame: { functionName: '(idle)', url: '' } },
    { id: 2, callFrame: { functionName: 'wrapSafe', url: 'node:internal/modules/cjs/loader' } },
    { id: 3, callFrame: { functionName: 'serialize', url: 'file:///app/node_modules/fastify/lib/reply.js' } },
    { id: 4, callFrame: { functionName: 'verify', url: 'file:///app/node_modules/fast-jwt/src/verifier.js' } },
  ];
  const samples = [...Array(10).fill(2), 1, 1, ...Array(6).fill(3), ...Array(4).fill(4)];
  writeFileSync(join(dir, 'a.cpuprofile'), JSON.stringify({ nodes, startTime: 0, samples, timeDeltas: samples.map(() => 10_000) }));
  return dir;
}

describe('summarizeProfiles', () => {
  it('shares out the CPU samples by module, idle left out', () => {
    const summary = summarizeProfiles(writeProfile())!;
    expect(summary.samples).toBe(20);
    expect(summary.byArea).toEqual([
      { area: 'node internals', share: 0.5 },
      { area: 'fastify', share: 0.3 },
      { area: 'fast-jwt', share: 0.2 },
    ]);
  });

  it('counts only the samples inside a window, so start-up does not pass for serving', () => {
    const summary = summarizeProfiles(writeProfile(), { fromMs: 115, toMs: 1000 })!;
    expect(summary.samples).toBe(10);
    expect(summary.byArea.map((a) => a.area)).toEqual(['fastify', 'fast-jwt']);
    expect(summary.topFunctions[0]).toMatchObject({ name: 'serialize lib/reply.js', share: 0.6 });
  });
});
