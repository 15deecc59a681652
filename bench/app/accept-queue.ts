import { spawnSync } from 'node:child_process';
import { hasCommand, installPackages } from '../../scripts/infra/system-packages';

/** Installs `ss` (Debian package `iproute2`) when it is missing. */
export function ensureSs(): void {
  if (!hasCommand('ss')) installPackages(['iproute2'], 'the spike cells read accept queues with ss');
}

/**
 * Connections the kernel has completed for a listening port that its process has not accepted
 * yet (the accept queue): `Recv-Q` of the LISTEN socket in `ss -ltn`. `ss` asks the kernel for
 * listening sockets only; reading /proc/net/tcp instead walks every socket of the machine, which
 * under a spike of thousands of connections costs a sizeable share of a core per read.
 * Undefined when no socket listens on the port.
 */
export function acceptQueueLength(port: number, output = listening(port)): number | undefined {
  for (const line of output.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length >= 4 && fields[0] === 'LISTEN' && fields[3].endsWith(`:${port}`)) return Number(fields[1]);
  }
  return undefined;
}

function listening(port: number): string {
  const result = spawnSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout : '';
}

export interface AcceptQueueSummary {
  /** The longest accept queue seen. */
  maxLength: number;
  /** From the start of sampling to the last sample with connections still waiting for accept(). */
  lastWaitingAtMs: number;
}

/**
 * Samples a port's accept queue while a load runs. Node 20's libuv accepts one connection per
 * readiness of the listening socket, that is per event-loop turn: while the loop is busy, a crowd
 * of new connections waits here, unseen by the app, for as many turns as there are connections
 * ahead of it.
 */
export class AcceptQueueProbe {
  private timer?: NodeJS.Timeout;
  private startedAt = 0;
  private summary: AcceptQueueSummary = { maxLength: 0, lastWaitingAtMs: 0 };

  constructor(
    private readonly port: number,
    private readonly everyMs = 200,
  ) {}

  start(): void {
    this.startedAt = Date.now();
    this.summary = { maxLength: 0, lastWaitingAtMs: 0 };
    this.timer = setInterval(() => this.sample(), this.everyMs);
  }

  stop(): AcceptQueueSummary {
    clearInterval(this.timer);
    return this.summary;
  }

  private sample(): void {
    const length = acceptQueueLength(this.port) ?? 0;
    if (length > this.summary.maxLength) this.summary.maxLength = length;
    if (length > 0) this.summary.lastWaitingAtMs = Date.now() - this.startedAt;
  }
}
