import { readFileSync } from 'node:fs';

const LISTEN = '0A';

/**
 * Connections the kernel has completed for a listening port that its process has not accepted
 * yet (the accept queue), read from /proc/net/tcp: for a socket in LISTEN state the `rx_queue`
 * column is that queue's length. Undefined when no listening socket has the port.
 */
export function acceptQueueLength(port: number, table = readTcpTable()): number | undefined {
  const localPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 5 || fields[3] !== LISTEN || !fields[1].endsWith(`:${localPort}`)) continue;
    return parseInt(fields[4].split(':')[1], 16);
  }
  return undefined;
}

function readTcpTable(): string {
  try {
    return readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return '';
  }
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
    private readonly everyMs = 50,
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
