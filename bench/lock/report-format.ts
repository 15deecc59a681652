import { CellResult } from './cell-result';

export const fmt = {
  num: (x: number, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a'),
  pct: (x: number | null) => (x === null || !Number.isFinite(x) ? '–' : `${(x * 100).toFixed(1)}%`),
  ms: (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(2) : x.toFixed(0)) : 'n/a'),
  settings: (s: Record<string, number>) =>
    Object.keys(s).length === 0 ? 'defaults' : Object.entries(s).map(([k, v]) => `${k}=${v}`).join(', '),
  /** "3.02 evalsha 2.00, set 1.02" style breakdown per section */
  perSection: (counts: Record<string, number>, sections: number) =>
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${(n / Math.max(1, sections)).toFixed(2)}`)
      .join(', '),
};

/** Acquire+release cycles the command counts were divided by. */
export function cyclesOf(c: CellResult): number {
  const total = Object.values(c.clientCommands).reduce((a, b) => a + b, 0);
  return c.clientCommandsPerSection > 0 ? total / c.clientCommandsPerSection : 0;
}
