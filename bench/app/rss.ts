import { readFileSync } from 'node:fs';

/** Peak resident set size (VmHWM) of a live process, in MB. */
export function peakRssMb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}
