import { readFileSync } from 'node:fs';

// Linux reports utime/stime in clock ticks; CLK_TCK is 100 on every mainstream kernel build.
const TICKS_PER_SECOND = 100;

/** CPU seconds a process has used so far, in user space and in the kernel on its behalf. */
export interface CpuTimes {
  user: number;
  system: number;
}

/** A process's user and system CPU seconds so far (both 0 once it is gone). */
export function processCpuTimes(pid: number): CpuTimes {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND };
  } catch {
    return { user: 0, system: 0 };
  }
}

/** User + system CPU seconds a process has used so far (0 once it is gone). */
export function processCpuSeconds(pid: number): number {
  const { user, system } = processCpuTimes(pid);
  return user + system;
}

/** The CPU a group of processes used between `start()` and `stop()`, read from /proc. */
export class CpuMeter {
  private readonly before = new Map<number, CpuTimes>();
  private used: CpuTimes = { user: 0, system: 0 };

  /** `pids` is asked at both ends: a process that appears meanwhile counts from zero. */
  constructor(private readonly pids: () => Promise<number[]> | number[]) {}

  async start(): Promise<void> {
    this.before.clear();
    for (const pid of await this.pids()) this.before.set(pid, processCpuTimes(pid));
  }

  /** Resolves to the CPU seconds used since `start()`, user and system together. */
  async stop(): Promise<number> {
    const used = { user: 0, system: 0 };
    for (const pid of new Set([...this.before.keys(), ...(await this.pids())])) {
      const now = processCpuTimes(pid);
      const then = this.before.get(pid) ?? { user: 0, system: 0 };
      used.user += now.user - then.user;
      used.system += now.system - then.system;
    }
    this.used = { user: Math.max(0, used.user), system: Math.max(0, used.system) };
    return this.used.user + this.used.system;
  }

  /** The share of the last measured span's CPU that the kernel spent on the processes' behalf. */
  systemShare(): number {
    const total = this.used.user + this.used.system;
    return total > 0 ? this.used.system / total : 0;
  }
}
