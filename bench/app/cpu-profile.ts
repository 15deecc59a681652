import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
}

export interface ProfileSummary {
  samples: number;
  /** Self time by where the code lives: our app, the lock library, a node_modules package, node internals. */
  byArea: Array<{ area: string; share: number }>;
  topFunctions: Array<{ name: string; area: string; share: number }>;
}

function areaOf(url: string): string {
  if (!url) return '(native: syscalls, GC, microtask queue)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('dist/apps/api')) return 'app + lock library (bundle)';
  return url.split('/').slice(-1)[0];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Which part of the process's life to count, in ms since it started (e.g. the measured load only). */
export interface ProfileWindow {
  fromMs: number;
  toMs: number;
}

/**
 * Summarises the .cpuprofile files node wrote with --cpu-prof into where the CPU went: idle
 * samples left out, and with a window only the samples taken inside it (start-up and shutdown
 * out), attributed to the function on top of the stack (self time).
 */
export function summarizeProfiles(dir: string, window?: ProfileWindow): ProfileSummary | undefined {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (!files.length) return undefined;
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, { area: string; hits: number }>();
  let total = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    let at = profile.startTime;
    profile.samples.forEach((id, i) => {
      at += profile.timeDeltas[i] ?? 0;
      const sinceStartMs = (at - profile.startTime) / 1000;
      if (window && (sinceStartMs < window.fromMs || sinceStartMs > window.toMs)) return;
      const node = nodes.get(id);
      // Idle samples say how long the process waited, not where its CPU went.
      if (!node || node.callFrame.functionName === '(idle)') return;
      total++;
      const area = areaOf(node.callFrame.url);
      byArea.set(area, (byArea.get(area) ?? 0) + 1);
      const name = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}`;
      const entry = byFunction.get(name) ?? { area, hits: 0 };
      entry.hits++;
      byFunction.set(name, entry);
    });
  }
  if (!total) return undefined;
  const share = (hits: number) => hits / total;
  return {
    samples: total,
    byArea: [...byArea].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([area, hits]) => ({ area, share: share(hits) })),
    topFunctions: [...byFunction].sort((a, b) => b[1].hits - a[1].hits).slice(0, 15).map(([name, v]) => ({ name, area: v.area, share: share(v.hits) })),
  };
}
