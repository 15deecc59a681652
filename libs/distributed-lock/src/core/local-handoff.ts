import type { HandOverResult, LockBackend } from './backends/lock-backend';
import type { Lease } from './lease';
import { LocalLine, type LocalWaiter, type Reservation, type Turn } from './local-line';
import { now } from './timing';
import { queueWindowMs } from './wait-for-lock';

// How long a process may pass a key among its own chains before a queued waiter of another process
// gets its turn (the count limit is an option). Fences are reserved in blocks, at least two ahead:
// the reply has long been read when a fence is needed, and most handoffs send nothing at all.
const MAX_LOCAL_MS = 25;
const RESERVE_AHEAD = 2;
const RESERVE_BLOCK = 8;
const IDLE_LINES = 64;

/**
 * Per key, one line of this process's waiting chains; only its engaged chain talks to Redis. A
 * release passes the lock to the next chain with no round trip (a fence reserved while the holder
 * worked) or one script (no pub/sub, no barging: the releaser re-queues at the tail). After
 * `maxRun` local handoffs or MAX_LOCAL_MS, a waiter queued in Redis by another process goes first,
 * and the line's next chain queues there behind it.
 *
 * Why it exists (bench:lock scenario b, 50 chains of one process on one key): about 0.2 Redis
 * commands per section instead of one or more, and no pub/sub wake-up between holders.
 *
 * Invariants, each specified in distributed-lock.local-handoff.spec.ts:
 * - exclusion stays Redis's: between two holders the key holds this process's token (a reserved
 *   handoff inherits it) or the next chain's own (the hand-over script sets it);
 * - fences stay monotonic: a reserved fence comes from an INCRBY made while an earlier holder of
 *   the run held the key, used in order; advanceFence drops reservations made before it;
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
    return this.backend.handOver !== undefined && this.maxRun > 0 && keys.length === 1 && !fair && waitMs > 0 && !this.closed;
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

  /** The engaged chain now holds `lease`; `fromRedis` unless a local holder passed it on. */
  held(lease: Lease, fromRedis: boolean): void {
    const line = this.lines.get(lease.keys[0]);
    if (!line) return;
    if (fromRedis) {
      line.run = 0;
      line.since = lease.acquiredAt;
    }
    line.hold(lease, () => this.takeOver(line, lease));
    if (line.waiters.length > 0) this.reserve(line);
  }

  /** A fence counter was raised behind our back: a fence reserved before would be too low. */
  dropReservation(key: string): void {
    const line = this.lines.get(key);
    if (line) line.reservations = [];
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
      if (line.reservations.length > 0) line.reservations = [];
      this.forgetIfIdle(line);
      return released;
    }
    return this.passToLocal(line, lease, next);
  }

  /** The releasing holder's next chain in line gets the lock: from a reserved fence, or by script. */
  private async passToLocal(line: LocalLine, lease: Lease, next: LocalWaiter): Promise<boolean> {
    const reserved = line.reservations[0]?.token === lease.token ? line.reservations[0] : undefined;
    if (reserved && reserved.result === undefined) await reserved.settled;
    const reply = reserved?.result;
    if (reserved && line.reservations[0] === reserved && reply?.kind === 'fences') {
      // Never beyond the holder's own validity: an extension may have shortened the expiry.
      const validUntil = Math.min(reply.validUntil, lease.validUntil);
      if (validUntil - now() > next.ttlMs / 2) {
        const fence = reply.first + reserved.used;
        reserved.used += 1;
        if (reserved.used >= reply.count) line.reservations.shift();
        this.startTurn(line, reserved.checkedQueue && reserved.used === 1);
        next.settle({ kind: 'handedOver', fence, validUntil, token: lease.token });
        return true;
      }
    }
    line.reservations = [];
    return this.passOn(line, lease, next, reply?.kind !== 'remote' && !this.turnIsOver(line));
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

  /** One round trip: the hand-over script gives `next` the lock under its own token. */
  private async passOn(line: LocalLine, lease: Lease, next: LocalWaiter, keepLocal: boolean): Promise<boolean> {
    const queueForMs = queueWindowMs(Math.max(1, next.deadline - now()));
    let result: HandOverResult = { kind: 'notHeld' };
    const sentAt = now();
    try {
      if (this.backend.handOver) result = await this.backend.handOver(lease, { token: next.token, ttlMs: next.ttlMs, queueForMs }, keepLocal);
    } catch (error) {
      next.settle({ kind: 'contend' });
      throw error;
    }
    if (result.kind === 'local') {
      this.startTurn(line, !keepLocal);
      next.settle({ kind: 'handedOver', fence: result.fence, validUntil: result.validUntil });
      return true;
    }
    // Queued in Redis behind another process by the script (remote), or the lease was gone.
    next.settle(result.kind === 'remote' ? { kind: 'queued', since: sentAt } : { kind: 'contend' });
    return result.kind === 'remote';
  }

  /**
   * The holder's lease was declared lost (its validity ran out, say, or a renewal found the lock
   * gone). Its token may still be in Redis (a reservation extends the lease), so the next chain
   * takes over from it, as from an expired lease; the old holder's signal is already aborted.
   */
  private takeOver(line: LocalLine, lease: Lease): void {
    if (line.holder !== lease) return;
    line.letGo();
    line.reservations = [];
    const next = line.shift();
    if (!next) return this.promote(line);
    this.passOn(line, lease, next, !this.turnIsOver(line)).catch(() => undefined);
  }

  /**
   * While the holder works, reserve the fences of the line's next chains, so that the release
   * passes the lock on with no round trip (the next chain inherits the holder's token). Near the
   * end of a turn a reservation also checks whether another process is waiting.
   */
  private reserve(line: LocalLine): void {
    const holder = line.holder;
    if (!holder || !this.backend.reserveFences) return;
    let ahead = line.reservations.reduce((n, r) => n + r.count - r.used, 0);
    while (ahead < Math.min(RESERVE_AHEAD, line.waiters.length)) {
      const ttlMs = line.waiters[ahead]?.ttlMs ?? holder.ttlMs;
      const checkedQueue = this.turnIsOver(line, ahead);
      // An unchecked block must not carry the turn past its limit.
      const count = checkedQueue ? Math.min(RESERVE_BLOCK, this.maxRun) : Math.min(RESERVE_BLOCK, this.maxRun - line.run - ahead);
      const reservation: Reservation = { token: holder.token, count, used: 0, checkedQueue, settled: Promise.resolve() };
      reservation.settled = this.backend.reserveFences(holder, ttlMs, checkedQueue, count).then(
        (result) => void (reservation.result = result),
        () => void (reservation.result = null),
      );
      line.reservations.push(reservation);
      ahead += count;
    }
  }

  /** Whether the handoff `ahead` places from now must let other processes in first. */
  private turnIsOver(line: LocalLine, ahead = 0): boolean {
    return line.run + ahead >= this.maxRun || now() - line.since >= MAX_LOCAL_MS;
  }

  /** One more local handoff; one that checked that no other process waits starts a new turn. */
  private startTurn(line: LocalLine, checkedQueue: boolean): void {
    if (checkedQueue) {
      line.run = 0;
      line.since = now();
    } else line.run += 1;
  }

  private promote(line: LocalLine): void {
    line.reservations = [];
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
