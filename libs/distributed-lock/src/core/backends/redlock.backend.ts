import type { Redis } from 'ioredis';
import { LockUnavailableError } from '../../errors';
import type { LockNaming } from '../lock-names';
import type { LuaScript } from '../lua-script';
import { NoReplyError, withReplyTimeout } from '../redis-errors';
import { acquireManyScript, type AcquireManyReply } from '../scripts/acquire-many';
import { raiseFenceScript } from '../scripts/raise-fence';
import { renewRedlockScript, STILL_HELD } from '../scripts/renew-redlock';
import { releaseScript } from '../scripts/release';
import { driftMs, now } from '../timing';
import type { AttemptRequest, AttemptResult, ExtendResult, LeaseRef, LockBackend } from './lock-backend';

type FencedLease = LeaseRef & { fence: number };

type NodeReply<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** The fence a node handed out, if it granted the lock. */
const grantedFence = (reply: NodeReply<AcquireManyReply>): number | undefined =>
  reply.ok && reply.value[0] === 1 ? reply.value[1] : undefined;

/**
 * Redlock over N independent masters: a lock counts when a majority took it and time is left
 * on its lease after the round trip and the drift allowance. Waiters are not queued here (a
 * handoff could not be made atomic across nodes); they are woken by "free" messages and poll.
 */
export class RedlockBackend implements LockBackend {
  readonly quorum: number;

  constructor(
    private readonly nodes: Redis[],
    private readonly naming: LockNaming,
    private readonly driftFactor: number,
  ) {
    this.quorum = Math.floor(nodes.length / 2) + 1;
  }

  get primary(): Redis {
    return this.nodes[0];
  }

  async attempt({ keys, token, ttlMs }: AttemptRequest): Promise<AttemptResult> {
    const startedAt = now();
    const lockKeys = keys.flatMap((k) => this.naming.namesOf(k).lockAndFence);
    const replyTimeoutMs = this.replyTimeout(ttlMs);
    const replies = await this.onEveryNode(acquireManyScript, lockKeys, [token, ttlMs], replyTimeoutMs);
    const validUntil = startedAt + ttlMs - driftMs(ttlMs, this.driftFactor);
    const won = replies.flatMap((r) => grantedFence(r) ?? []);
    if (won.length >= this.quorum && validUntil > now()) {
      const fence = Math.max(...won);
      if ((await this.fenceOnQuorum(keys, replies, fence, replyTimeoutMs)) && validUntil > now())
        return { acquired: true, fence, validUntil };
    }
    await this.release({ keys, token }).catch(() => undefined);
    const failed = replies.filter((r): r is { ok: false; error: unknown } => !r.ok);
    // A node whose connection is gone is down; one that is connected but was slow to reply (a
    // loaded host) may answer the next try, so a quorum lost to slowness is retried like contention.
    const down = replies.flatMap((r, i) =>
      !r.ok && (!(r.error instanceof NoReplyError) || this.nodes[i].status !== 'ready') ? [r] : [],
    );
    if (this.nodes.length - down.length < this.quorum) {
      throw new LockUnavailableError(
        keys.join(','),
        `only ${this.nodes.length - down.length} of ${this.nodes.length} Redlock nodes are reachable (quorum ${this.quorum})`,
        down[0]?.error,
      );
    }
    if (this.nodes.length - failed.length < this.quorum) return { acquired: false, holderTtlMs: -1 };
    const holderTtls = replies.flatMap((r) => (r.ok && r.value[0] === 0 ? [r.value[1]] : []));
    return { acquired: false, holderTtlMs: holderTtls.length > 0 ? Math.min(...holderTtls) : 0 };
  }

  async release({ keys, token }: LeaseRef): Promise<boolean> {
    const replies = await this.onEveryNode(
      releaseScript,
      keys.flatMap((k) => this.naming.namesOf(k).scriptKeys),
      [token],
      1000,
    );
    return replies.filter((r) => r.ok && r.value === keys.length).length >= this.quorum;
  }

  /**
   * A lease counts as renewed where a quorum of nodes still held it; nodes that lost it while
   * the key stayed free get it back (see the renew-redlock script), so a restarted node does
   * not leave the lease one more failure away from being lost.
   */
  async extend(leases: FencedLease[], ttlMs: number[]): Promise<ExtendResult[]> {
    const startedAt = now();
    const perNode = await Promise.all(this.nodes.map((node) => this.extendOnNode(node, leases, ttlMs)));
    return leases.map((_, i) => {
      const validUntil = startedAt + ttlMs[i] - driftMs(ttlMs[i], this.driftFactor);
      const oks = perNode.filter((replies) => replies[i] === STILL_HELD).length;
      if (oks >= this.quorum && validUntil > now()) return { ok: true, validUntil };
      const errors = perNode.filter((replies) => replies[i] instanceof Error);
      if (this.nodes.length - errors.length < this.quorum) return { ok: false, error: errors[0][i] };
      return { ok: false };
    });
  }

  private extendOnNode(node: Redis, leases: FencedLease[], ttlMs: number[]): Promise<Array<number | Error>> {
    const calls = leases.map((lease, i) => ({
      keys: lease.keys.flatMap((k) => this.naming.namesOf(k).lockAndFence),
      args: [lease.token, ttlMs[i], String(lease.fence)],
    }));
    const replies = renewRedlockScript.runBatch(node, calls, this.replyTimeout(Math.min(...ttlMs)), 'Redlock node');
    return replies.catch((error: Error) => calls.map(() => error));
  }

  /**
   * The lock's fence is the highest of the per-node fences of the quorum that granted it. Nodes
   * that gave a lower one (they missed earlier acquisitions, or started the counter from their own
   * clock) are raised to it before the lock counts as held: then a quorum of counters stands at
   * the fence, every later quorum shares a node with it, and so hands out a larger fence. Without
   * this, a holder that got 5 from one node and 1 from two others held fence 5, and the next
   * quorum of those two and a third node handed out 2.
   */
  private async fenceOnQuorum(
    keys: string[],
    replies: Array<NodeReply<AcquireManyReply>>,
    fence: number,
    timeoutMs: number,
  ): Promise<boolean> {
    const atFence = replies.filter((reply) => grantedFence(reply) === fence).length;
    const behind = this.nodes.filter((_, i) => (grantedFence(replies[i]) ?? fence) < fence);
    if (behind.length === 0) return true;
    const counters = [...new Set(keys.map((k) => this.naming.namesOf(k).fence))];
    const raised = await Promise.all(
      behind.map((node) =>
        withReplyTimeout(
          Promise.all(counters.map((counter) => raiseFenceScript.run(node, [counter], [fence]))),
          timeoutMs,
          'Redlock node',
        ).then(
          () => true,
          () => false,
        ),
      ),
    );
    return atFence + raised.filter(Boolean).length >= this.quorum;
  }

  /** Raised on every node that answers; a quorum must answer for the fence to be trusted again. */
  async advanceFence(key: string, fence: number): Promise<void> {
    const replies = await this.onEveryNode(raiseFenceScript, [this.naming.namesOf(key).fence], [fence], 1000);
    const answered = replies.filter((reply) => reply.ok).length;
    if (answered < this.quorum)
      throw new LockUnavailableError(key, 'too few Redlock nodes answered to raise the fence');
  }

  private onEveryNode<T>(
    script: LuaScript<T>,
    keys: string[],
    args: Array<string | number>,
    timeoutMs: number,
  ): Promise<Array<NodeReply<T>>> {
    return Promise.all(
      this.nodes.map((node) =>
        withReplyTimeout(script.run(node, keys, args), timeoutMs, 'Redlock node').then(
          (value): NodeReply<T> => ({ ok: true, value }),
          (error: unknown): NodeReply<T> => ({ ok: false, error }),
        ),
      ),
    );
  }

  /** A node slower than this is counted as down, so one stalled node cannot eat the lease. */
  private replyTimeout(ttlMs: number): number {
    return Math.min(1000, Math.max(50, Math.round(ttlMs / 10)));
  }
}
