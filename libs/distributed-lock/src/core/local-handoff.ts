import type { HandOverResult, LockBackend } from './backends/lock-backend';
import type { Lease } from './lease';
import { LocalLine, type LocalWaiter, type Reservation, type Turn } from './local-line';
import { now } from './timing';
import { GRANTED_BLOCK } from './scripts/queue';
import { queueWindowMs } from './wait-for-lock';

// How long a process may pass a key among its chains before another process's waiter goes first.
const MAX_LOCAL_MS = 25;
const IDLE_LINES = 64;

/**
 * Per key, one line of this process's waiting chains; only its engaged chain talks to Redis. A
 * turn passes the lock down the line with a block of fences: one a release of another process
 * handed over with the lock, or one reserved while the first holder worked. Each handoff takes
 * the next fence, with no round trip. After `maxRun` handoffs (one pass down the line while other
 * processes wait) or MAX_LOCAL_MS the hand-over script ends the turn: a waiter queued in Redis by another process goes first (the line's next
 * chain queues there behind it), else the line's next chain starts a new turn with a new block.
 *
 * Why (bench:lock scenarios b and c): well under one Redis command per section.
 *
 * Invariants, each specified in distributed-lock.local-handoff.spec.ts:
 * - exclusion stays Redis's: between two holders the key holds the token a block was made for
 *   (its holders inherit it) or the next chain's own (the hand-over script sets it);
 * - fences stay monotonic: a block comes from one INCRBY made while the line held the key, used
 *   in order; advanceFence drops the block;
 * - a passed-on lease never outlives the key in Redis: its validity is capped by the holder's;
 * - other processes get their turn after `maxRun` handoffs or MAX_LOCAL_MS;
 * - a lost holder does not strand the line, a timed-out waiter leaves it without disturbing it,
 *   and close() tells every waiter.
 */
export class LocalHandoff {
  private lines = new Map<string, LocalLine>();
  private closed = false;

  constructor(
    private readonly backend: LockBackend,
    private readonly maxRun: number,
  ) {}

  /** Single keys, on a backend that can hand over, outside fair mode, for callers willing to wait. */
  applies(keys: string[], fair: boolean, waitMs: number): boolean {
    return (
      this.backend.handOver !== undefined && this.maxRun > 0 && keys.length === 1 && !fair && waitMs > 0 && !this.closed
    );
  }

  /** Null when no chain of this process is engaged with the key (the uncontended path, no promise); else a turn to wait for. */
  enter(key: string, token: string, ttlMs: number, deadline: number, signal?: AbortSignal): Promise<Turn> | null {
    let line = this.lines.get(key);
    if (!line) {
      line = new LocalLine();
      this.lines.set(key, line);
    }
    if (line.engaged) {
      const turn = line.wait(token, ttlMs, deadline, signal);
      this.reserve(line);
      return turn;
    }
    line.engaged = true;
    return null;
  }

  /**
   * The engaged chain now holds `lease`: passed on by a local holder, or from Redis (a new turn),
   * where a release may have handed it over with `block` fences after its own. While waiters of
   * other processes stay `queued`, the turn serves each chain now in line once, as FIFO would.
   */
  held(lease: Lease, fromRedis: boolean, { block = 0, queued = 0 }: { block?: number; queued?: number }): void {
    const line = this.lines.get(lease.keys[0]);
    if (!line) return;
    if (fromRedis) {
      this.startTurn(line, queued > 0 ? Math.min(this.maxRun, line.waiters.length) : this.maxRun);
      line.block = block > 0 ? handedOut(lease.token, lease.fence + 1, block, lease.validUntil) : undefined;
    }
    line.hold(lease, () => this.takeOver(line, lease));
    if (line.waiters.length > 0) this.reserve(line);
  }

  /** A fence counter was raised behind our back: a fence reserved before would be too low. */
  dropReservation(key: string): void {
    const line = this.lines.get(key);
    if (line) line.block = undefined;
  }

  /** The engaged chain did not get the lock (timeout, error): the next chain in line tries. */
  gaveUp(key: string): void {
    const line = this.lines.get(key);
    if (line) this.promote(line);
  }

  release(lease: Lease): Promise<boolean> {
    const key = lease.keys[0];
    const line = this.lines.get(key);
    if (!line || line.holder !== lease) return this.backend.release(lease);
    line.letGo();
    const next = line.shift();
    if (!next) {
      // Sent before the line's bookkeeping: that runs while Redis works on the release.
      const released = this.backend.release(lease);
      line.engaged = false;
      line.block = undefined;
      this.forgetIfIdle(line);
      return released;
    }
    return this.passToLocal(line, lease, next);
  }

  /** The releasing holder's next chain in line gets the lock: the block's next fence, or by script. */
  private async passToLocal(line: LocalLine, lease: Lease, next: LocalWaiter): Promise<boolean> {
    const block = line.block?.token === lease.token && !this.turnIsOver(line) ? line.block : undefined;
    if (block && block.result === undefined) await block.settled;
    const reply = block?.result;
    if (block && line.block === block && reply?.kind === 'fences') {
      // Never beyond the holder's own validity: an extension may have shortened the expiry.
      const validUntil = Math.min(reply.validUntil, lease.validUntil);
      if (validUntil - now() > next.ttlMs / 2) {
        const fence = reply.first + block.used;
        block.used += 1;
        if (block.used === reply.count) line.block = undefined;
        line.run += 1;
        next.settle({ kind: 'handedOver', fence, validUntil, token: lease.token });
        return true;
      }
    }
    line.block = undefined;
    return this.passOn(line, lease, next, !this.turnIsOver(line));
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

  /**
   * One round trip: the hand-over script gives `next` the lock under its own token, with a block
   * for the rest of the turn (`keepLocal`) or for a new one, unless another process's waiter goes first.
   */
  private async passOn(line: LocalLine, lease: Lease, next: LocalWaiter, keepLocal: boolean): Promise<boolean> {
    const queueForMs = queueWindowMs(Math.max(1, next.deadline - now()));
    const block = Math.min(GRANTED_BLOCK, keepLocal ? Math.max(0, line.turn - line.run - 1) : this.maxRun);
    let result: HandOverResult = { kind: 'notHeld' };
    const sentAt = now();
    try {
      if (this.backend.handOver)
        result = await this.backend.handOver(
          lease,
          { token: next.token, ttlMs: next.ttlMs, queueForMs },
          keepLocal,
          block,
        );
    } catch (error) {
      next.settle({ kind: 'contend' });
      throw error;
    }
    if (result.kind === 'local') {
      if (keepLocal) line.run += 1;
      else this.startTurn(line, this.maxRun);
      line.block = block > 0 ? handedOut(next.token, result.fence + 1, block, result.validUntil) : undefined;
      next.settle({ kind: 'handedOver', fence: result.fence, validUntil: result.validUntil });
      return true;
    }
    // Queued in Redis behind another process by the script (remote), or the lease was gone.
    next.settle(result.kind === 'remote' ? { kind: 'queued', since: sentAt } : { kind: 'contend' });
    return result.kind === 'remote';
  }

  /**
   * The holder's lease was declared lost (its validity ran out, or a renewal found the lock gone).
   * Its token may still be in Redis (a reservation extends it): the next chain takes over from it.
   */
  private takeOver(line: LocalLine, lease: Lease): void {
    if (line.holder !== lease) return;
    line.letGo();
    line.block = undefined;
    const next = line.shift();
    if (!next) return this.promote(line);
    this.passOn(line, lease, next, !this.turnIsOver(line)).catch(() => undefined);
  }

  /** While the holder works, reserve the fences of the rest of its turn, so that the handoffs need no round trip. */
  private reserve(line: LocalLine): void {
    const holder = line.holder;
    if (!holder || line.block || !this.backend.reserveFences || this.turnIsOver(line)) return;
    const count = Math.min(GRANTED_BLOCK, line.turn - line.run);
    const block: Reservation = { token: holder.token, used: 0, settled: Promise.resolve() };
    block.settled = this.backend.reserveFences(holder, line.waiters[0]?.ttlMs ?? holder.ttlMs, count).then(
      (result) => void (block.result = result),
      () => void (block.result = null),
    );
    line.block = block;
  }

  private startTurn(line: LocalLine, length: number): void {
    line.run = 0;
    line.since = now();
    line.turn = length;
  }

  /** Whether the next handoff must let other processes in first. */
  private turnIsOver(line: LocalLine): boolean {
    return line.run >= line.turn || now() - line.since >= MAX_LOCAL_MS;
  }

  private promote(line: LocalLine): void {
    line.block = undefined;
    const next = line.shift();
    line.engaged = next !== undefined;
    if (next) next.settle({ kind: 'contend' });
    else this.forgetIfIdle(line);
  }

  /** Idle lines go together once there are many: a Map delete per release cost more than the rest of the line's work. */
  private forgetIfIdle(line: LocalLine): void {
    if (this.lines.size < IDLE_LINES || !line.idle) return;
    this.lines = new Map([...this.lines].filter(([, other]) => !other.idle));
  }
}

/** A block of fences that came with the lock: nothing to wait for. */
function handedOut(token: string, first: number, count: number, validUntil: number): Reservation {
  return { token, used: 0, result: { kind: 'fences', first, count, validUntil }, settled: Promise.resolve() };
}
