import type { HandOverResult, LockBackend } from './backends/lock-backend';
import type { Lease } from './lease';
import { LocalLine, type Turn } from './local-line';
import { now } from './timing';
import { QUEUE_WINDOW_MS } from './wait-for-lock';

// How long a process may keep passing a key among its own chains before a waiter of another
// process (if one is queued) gets its turn; the count limit is an option.
const MAX_LOCAL_MS = 25;

type HandOver = NonNullable<LockBackend['handOver']>;

/**
 * Per key, one line of this process's waiting chains. Only the line's engaged chain talks to
 * Redis; a release with a local waiter passes the lock to it in one script (no pub/sub, no
 * barging by the releaser, which re-queues at the tail of the line). To share the key with
 * other processes, after `maxRun` local handoffs or MAX_LOCAL_MS the release serves a waiter
 * queued in Redis first, and the line's next chain queues there behind it.
 */
export class LocalHandoff {
  private readonly lines = new Map<string, LocalLine>();
  private readonly handOver?: HandOver;
  private closed = false;

  constructor(
    private readonly backend: LockBackend,
    private readonly maxRun: number,
  ) {
    this.handOver = backend.handOver?.bind(backend);
  }

  /** Single keys, on a backend that can hand over, outside fair mode, for callers willing to wait. */
  applies(keys: string[], fair: boolean, waitMs: number): boolean {
    return this.handOver !== undefined && this.maxRun > 0 && keys.length === 1 && !fair && waitMs > 0 && !this.closed;
  }

  /** 'contend' at once when no chain of this process is engaged with the key; else queues here. */
  enter(key: string, token: string, ttlMs: number, deadline: number): Promise<Turn> {
    let line = this.lines.get(key);
    if (!line) {
      line = new LocalLine();
      this.lines.set(key, line);
    }
    if (line.engaged) return line.wait(token, ttlMs, deadline);
    line.engaged = true;
    return Promise.resolve({ kind: 'contend' });
  }

  /** The engaged chain now holds `lease`; `fromRedis` unless a local holder passed it on. */
  held(lease: Lease, fromRedis: boolean): void {
    const line = this.lines.get(lease.keys[0]);
    if (!line) return;
    if (fromRedis) {
      line.run = 0;
      line.since = now();
    }
    line.hold(lease, () => {
      if (line.holder !== lease) return;
      line.letGo();
      this.promote(lease.keys[0], line);
    });
  }

  /** The engaged chain did not get the lock (timeout, error): the next chain in line tries. */
  gaveUp(key: string): void {
    const line = this.lines.get(key);
    if (line) this.promote(key, line);
  }

  async release(lease: Lease): Promise<boolean> {
    const key = lease.keys[0];
    const line = this.lines.get(key);
    if (!line || line.holder !== lease || !this.handOver) return this.backend.release(lease);
    line.letGo();
    const next = line.shift();
    if (!next) {
      line.engaged = false;
      this.forgetIfIdle(key, line);
      return this.backend.release(lease);
    }
    const keepLocal = line.run < this.maxRun && now() - line.since < MAX_LOCAL_MS;
    const queueForMs = Math.ceil(Math.min(Math.max(0, next.deadline - now()), QUEUE_WINDOW_MS)) + 50;
    let result: HandOverResult;
    try {
      result = await this.handOver(lease, { token: next.token, ttlMs: next.ttlMs, queueForMs }, keepLocal);
    } catch (error) {
      next.settle({ kind: 'contend' });
      throw error;
    }
    if (result.kind === 'local') {
      line.run += 1;
      next.settle({ kind: 'handedOver', fence: result.fence, validUntil: result.validUntil });
      return true;
    }
    // Queued in Redis behind another process (remote), or the lease was gone (notHeld).
    next.settle({ kind: 'contend' });
    return result.kind === 'remote';
  }

  /** Shutdown: waiting chains are told the instance closed; releases go straight to Redis. */
  close(): void {
    this.closed = true;
    for (const line of this.lines.values()) {
      line.letGo();
      line.drain({ kind: 'closed' });
    }
    this.lines.clear();
  }

  private promote(key: string, line: LocalLine): void {
    const next = line.shift();
    if (next) {
      line.engaged = true;
      next.settle({ kind: 'contend' });
      return;
    }
    line.engaged = false;
    this.forgetIfIdle(key, line);
  }

  private forgetIfIdle(key: string, line: LocalLine): void {
    if (line.idle && this.lines.get(key) === line) this.lines.delete(key);
  }
}
