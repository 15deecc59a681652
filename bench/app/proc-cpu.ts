import { readFileSync } from 'node:fs';

// Linux reports utime/stime in clock ticks; CLK_TCK is 100 on every mainstream kernel build.
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used so far (0 once it is gone). */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The CPU seconds a group of processes used between `start()` and `stop()`, read from /proc. */
export class CpuMeter {
  private readonly before = new Map<number, number>();

  /** `pids` is asked at both ends: a process that appears meanwhile counts from zero. */
  constructor(private readonly pids: () => Promise<number[]> | number[]) {}

  async start(): Promise<void> {
    this.before.clear();
    for (const pid of await this.pids()) this.before.set(pid, processCpuSeconds(pid));
  }

  async stop(): Promise<number> {
    let total = 0;
    for (const pid of new Set([...this.before.keys(), ...(await this.pids())])) total += processCpuSeconds(pid) - (this.before.get(pid) ?? 0);
    return Math.max(0, total);
  }
}
