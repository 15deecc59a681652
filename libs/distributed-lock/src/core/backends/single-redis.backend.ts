import type { Cluster, Redis } from 'ioredis';
import type { LockNaming } from '../lock-names';
import { isClusterClient, type RedisClient } from '../lua-script';
import { acquireManyScript } from '../scripts/acquire-many';
import { acquireScript, type AcquireReply } from '../scripts/acquire';
import { cancelWaitScript } from '../scripts/cancel-wait';
import { extendScript } from '../scripts/extend';
import { handOverScript } from '../scripts/hand-over';
import { raiseFenceScript } from '../scripts/raise-fence';
import { reserveFenceScript } from '../scripts/reserve-fence';
import { releaseScript } from '../scripts/release';
import { driftMs, now } from '../timing';
import { clusterSlot } from './cluster-slot';
import type {
  AttemptRequest,
  AttemptResult,
  ExtendResult,
  HandOverResult,
  LeaseRef,
  LockBackend,
  NextInLine,
  ReserveResult,
} from './lock-backend';

/** Locks on one Redis server or one Cluster: queue-based handoff, fences, multi-key scripts. */
export class SingleRedisBackend implements LockBackend {
  private readonly isCluster: boolean;

  constructor(
    private readonly client: RedisClient,
    private readonly naming: LockNaming,
    private readonly settings: { driftFactor: number; waitForReplicas?: { replicas: number; timeoutMs: number } },
  ) {
    this.isCluster = isClusterClient(client);
  }

  get primary(): RedisClient {
    return this.client;
  }

  attempt(request: AttemptRequest): Promise<AttemptResult> {
    const startedAt = now();
    const { keys, token, ttlMs } = request;
    if (keys.length > 1 && !this.inOneScript(keys)) return this.attemptOneByOne(request, startedAt);
    if (keys.length > 1) {
      const reply = acquireManyScript.run(
        this.client,
        keys.flatMap((k) => this.naming.namesOf(k).lockAndFence),
        [token, ttlMs],
      );
      return reply.then((r) => this.toResult(r, startedAt, ttlMs));
    }
    const args =
      request.fair || request.mayBeQueued
        ? [token, ttlMs, request.queueForMs, request.fair ? 1 : 0, request.mayBeQueued ? 1 : 0]
        : [token, ttlMs, request.queueForMs];
    return acquireScript.run(this.client, this.naming.namesOf(keys[0]).scriptKeys, args, (reply) =>
      this.fromAcquire(reply, startedAt, ttlMs),
    );
  }

  async cancelWait(request: AttemptRequest): Promise<AttemptResult> {
    const startedAt = now();
    const names = this.naming.namesOf(request.keys[0]);
    const reply = await cancelWaitScript.run(this.client, names.scriptKeys, [request.token, request.ttlMs]);
    if (reply[0] === 0) return { acquired: false, holderTtlMs: 0 };
    return this.toResult(reply, startedAt, request.ttlMs);
  }

  /** True when every key was still held by the token; keys of several Cluster slots go one by one. */
  release({ keys, token }: LeaseRef): Promise<boolean> {
    if (keys.length === 1)
      return releaseScript.run(this.client, this.naming.namesOf(keys[0]).scriptKeys, [token], (owned) => owned === 1);
    if (this.inOneScript(keys)) return this.releaseTogether(keys, token).then((owned) => owned === keys.length);
    return Promise.all(keys.map((key) => this.releaseTogether([key], token))).then((owned) =>
      owned.every((n) => n === 1),
    );
  }

  async handOver(
    { keys, token }: LeaseRef,
    next: NextInLine,
    keepLocal: boolean,
    block: number,
  ): Promise<HandOverResult> {
    const sentAt = now();
    const args = [token, next.token, next.ttlMs, keepLocal ? 1 : 0, next.queueForMs, block];
    const reply = await handOverScript.run(this.client, this.naming.namesOf(keys[0]).scriptKeys, args);
    if (reply[0] === 0) return { kind: 'notHeld' };
    if (reply[0] === 2) return { kind: 'remote' };
    return {
      kind: 'local',
      fence: reply[1],
      validUntil: sentAt + next.ttlMs - driftMs(next.ttlMs, this.settings.driftFactor),
    };
  }

  async reserveFences({ keys, token }: LeaseRef, ttlMs: number, count: number): Promise<ReserveResult> {
    const sentAt = now();
    const reply = await reserveFenceScript.run(this.client, this.naming.namesOf(keys[0]).lockAndFence, [
      token,
      ttlMs,
      count,
    ]);
    if (reply === -1) return { kind: 'notHeld' };
    return {
      kind: 'fences',
      first: reply - count + 1,
      count,
      validUntil: sentAt + ttlMs - driftMs(ttlMs, this.settings.driftFactor),
    };
  }

  async extend(leases: LeaseRef[], ttlMs: number[]): Promise<ExtendResult[]> {
    const startedAt = now();
    const replies = this.isCluster ? await this.extendEach(leases, ttlMs) : await this.extendPipelined(leases, ttlMs);
    return replies.map((reply, i) => {
      if (reply instanceof Error) return { ok: false, error: reply };
      if (!reply) return { ok: false };
      return { ok: true, validUntil: startedAt + ttlMs[i] - driftMs(ttlMs[i], this.settings.driftFactor) };
    });
  }

  async confirmReplicated(lease: LeaseRef, ttlMs: number, handedOver: boolean): Promise<boolean> {
    const wanted = this.settings.waitForReplicas;
    if (!wanted) return true;
    const lockKeys = lease.keys.map((k) => this.naming.namesOf(k).lock);
    if (this.isCluster)
      return (
        (await waitOnShards(this.client as Cluster, lockKeys, lease.token, ttlMs, wanted.replicas, wanted.timeoutMs)) >=
        wanted.replicas
      );
    // WAIT covers the writes of this connection only; a handoff was written by the releaser's.
    if (handedOver) await extendScript.run(this.client, lockKeys, [lease.token, ttlMs]);
    const acks = await (this.client as Redis).wait(wanted.replicas, wanted.timeoutMs);
    return acks >= wanted.replicas;
  }

  private async attemptOneByOne(request: AttemptRequest, startedAt: number): Promise<AttemptResult> {
    const taken: string[] = [];
    let fence = 0;
    for (const key of request.keys) {
      const reply = await acquireManyScript.run(this.client, this.naming.namesOf(key).lockAndFence, [
        request.token,
        request.ttlMs,
      ]);
      if (reply[0] === 0) {
        await Promise.all(taken.map((k) => this.releaseTogether([k], request.token)));
        return { acquired: false, holderTtlMs: reply[1] };
      }
      taken.push(key);
      fence = Math.max(fence, reply[1]);
    }
    const counters = new Set(request.keys.map((k) => this.naming.namesOf(k).fence));
    await Promise.all([...counters].map((counter) => raiseFenceScript.run(this.client, [counter], [fence])));
    return this.toResult([1, fence, request.ttlMs], startedAt, request.ttlMs);
  }

  async advanceFence(key: string, fence: number): Promise<void> {
    await raiseFenceScript.run(this.client, [this.naming.namesOf(key).fence], [fence]);
  }

  private releaseTogether(keys: string[], token: string): Promise<number> {
    return releaseScript.run(
      this.client,
      keys.flatMap((k) => this.naming.namesOf(k).scriptKeys),
      [token],
    );
  }

  private extendPipelined(leases: LeaseRef[], ttlMs: number[]): Promise<Array<number | Error>> {
    const calls = leases.map((lease, i) => ({
      keys: lease.keys.map((k) => this.naming.namesOf(k).lock),
      args: [lease.token, ttlMs[i]],
    }));
    return extendScript.runBatch(this.client, calls);
  }

  private extendEach(leases: LeaseRef[], ttlMs: number[]): Promise<Array<number | Error>> {
    return Promise.all(
      leases.map(async (lease, i) => {
        try {
          const perKey = await Promise.all(
            lease.keys.map((k) =>
              extendScript.run(this.client, [this.naming.namesOf(k).lock], [lease.token, ttlMs[i]]),
            ),
          );
          return perKey.every((ok) => ok === 1) ? 1 : 0;
        } catch (error) {
          return error as Error;
        }
      }),
    );
  }

  private toResult(reply: [1, number, number] | [0, number], startedAt: number, ttlMs: number): AttemptResult {
    if (reply[0] === 0) return { acquired: false, holderTtlMs: reply[1] };
    return {
      acquired: true,
      fence: reply[1],
      validUntil: startedAt + reply[2] - driftMs(ttlMs, this.settings.driftFactor),
    };
  }

  private fromAcquire(reply: AcquireReply, sentAt: number, ttlMs: number): AttemptResult {
    if (typeof reply !== 'number')
      return {
        acquired: true,
        fence: reply[0],
        validUntil: sentAt + reply[1] - driftMs(ttlMs, this.settings.driftFactor),
      };
    if (reply > 0)
      return { acquired: true, fence: reply, validUntil: sentAt + ttlMs - driftMs(ttlMs, this.settings.driftFactor) };
    return { acquired: false, holderTtlMs: -1 - reply };
  }

  /** A plain server runs any keys in one script; a Cluster only keys of one slot. */
  private inOneScript(keys: string[]): boolean {
    if (!this.isCluster || keys.length === 1) return true;
    const slot = clusterSlot(this.naming.namesOf(keys[0]).lock);
    return keys.every((k) => clusterSlot(this.naming.namesOf(k).lock) === slot);
  }
}

/**
 * WAIT on a Cluster. WAIT counts the replicas that have every earlier write *of this connection*,
 * and has no key, so sent alone it would land on an arbitrary node. Pipelined right behind a
 * compare-and-extend of the lock (a write of ours, on the key's own node), it waits on the shard
 * that holds the lock. Keys in several slots are confirmed per slot; returns the fewest acks.
 */
async function waitOnShards(
  client: Cluster,
  lockKeys: string[],
  token: string,
  ttlMs: number,
  replicas: number,
  timeoutMs: number,
): Promise<number> {
  const bySlot = new Map<number, string[]>();
  for (const key of lockKeys) bySlot.set(clusterSlot(key), [...(bySlot.get(clusterSlot(key)) ?? []), key]);
  const acks = await Promise.all(
    [...bySlot.values()].map(async (keys) => {
      const pipeline = client.pipeline();
      pipeline.eval(extendScript.source, keys.length, ...keys, token, ttlMs);
      pipeline.wait(replicas, timeoutMs);
      const replies = (await pipeline.exec()) ?? [];
      const [extendError, extended] = replies[0] ?? [new Error('no reply'), null];
      const [waitError, acked] = replies[1] ?? [new Error('no reply'), null];
      if (extendError ?? waitError) throw extendError ?? waitError;
      return extended === 1 ? Number(acked) : 0;
    }),
  );
  return Math.min(...acks);
}
