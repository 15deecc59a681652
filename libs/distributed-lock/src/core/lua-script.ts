import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { withReplyTimeout } from './redis-errors';

export type RedisClient = Redis | Cluster;
type ScriptArg = string | number;

/** Whether an ioredis client is a Cluster client (it says so itself; no instanceof across copies of ioredis). */
export function isClusterClient(client: RedisClient): boolean {
  return (client as { isCluster?: boolean }).isCluster === true;
}

// Clients found to lack sharded pub/sub (a Redis 6 Cluster answers SPUBLISH/SSUBSCRIBE with
// "unknown command"); they fall back to PUBLISH/SUBSCRIBE, which a Cluster broadcasts to all nodes.
const unsharded = new WeakSet<object>();

/** Whether lock announcements on `client` go by sharded pub/sub: on a Cluster (Redis 7+) a release then reaches only the key's shard, not every node. */
export function usesShardedPubSub(client: RedisClient): boolean {
  return isClusterClient(client) && !unsharded.has(client);
}

/** A sharded command was refused as unknown: from now on `client` uses plain pub/sub. */
export function fellBackToUnsharded(client: RedisClient, error: unknown): boolean {
  if (!(error instanceof Error) || !/unknown (redis )?command/i.test(error.message)) return false;
  unsharded.add(client);
  return true;
}

/** A Lua script run by EVALSHA, falling back to EVAL when the server has not cached it yet. */
export class LuaScript<Reply> {
  readonly sha: string;
  /** The same script announcing with SPUBLISH, for a Cluster (the channel shares the keys' slot). */
  private readonly sharded?: { source: string; sha: string };

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = sha1(source);
    const shardedSource = source.replace(/redis\.call\('PUBLISH'/g, "redis.call('SPUBLISH'");
    if (shardedSource !== source) this.sharded = { source: shardedSource, sha: sha1(shardedSource) };
  }

  /** Runs the script; `map` turns the reply into the caller's answer in the same step. */
  run<T = Reply>(
    client: RedisClient,
    keys: string[],
    args: ScriptArg[],
    map = identity as (reply: Reply) => T,
  ): Promise<T> {
    const variant = this.sharded && usesShardedPubSub(client) ? this.sharded : this;
    const sent = client.evalsha(variant.sha, keys.length, ...keys, ...args) as Promise<Reply>;
    return sent.then(map, (error: unknown) => this.recover(error, client, variant, keys, args).then(map));
  }

  /**
   * Runs the script once per call in one pipeline, whose reply may be given `timeoutMs`; answers
   * that came back NOSCRIPT are rerun by EVAL. A call that failed answers its error.
   */
  async runBatch(
    client: RedisClient,
    calls: Array<{ keys: string[]; args: ScriptArg[] }>,
    timeoutMs?: number,
    what = 'Redis',
  ): Promise<Array<Reply | Error>> {
    const pipeline = client.pipeline();
    calls.forEach(({ keys, args }) => pipeline.evalsha(this.sha, keys.length, ...keys, ...args));
    const replies =
      (await (timeoutMs === undefined ? pipeline.exec() : withReplyTimeout(pipeline.exec(), timeoutMs, what))) ?? [];
    const settle = async (
      [error, value]: [Error | null, unknown],
      { keys, args }: (typeof calls)[number],
    ): Promise<Reply> => {
      if (!error) return value as Reply;
      if (!isNoScript(error)) throw error;
      return (await client.eval(this.source, keys.length, ...keys, ...args)) as Reply;
    };
    return Promise.all(
      calls.map((call, i) => settle(replies[i] ?? [new Error('no reply'), null], call).catch((e: Error) => e)),
    );
  }

  /** NOSCRIPT (a fresh, restarted or failed-over server): send the source. A Redis 6 Cluster lacking sharded pub/sub: the plain variant. */
  private async recover(
    error: unknown,
    client: RedisClient,
    variant: { sha: string; source: string },
    keys: string[],
    args: ScriptArg[],
  ): Promise<Reply> {
    try {
      if (!isNoScript(error)) throw error;
      return (await client.eval(variant.source, keys.length, ...keys, ...args)) as Reply;
    } catch (failure) {
      if (variant === this || !fellBackToUnsharded(client, failure)) throw failure;
      return this.run(client, keys, args);
    }
  }
}

const identity = <T>(value: T): T => value;
const sha1 = (source: string): string => createHash('sha1').update(source).digest('hex');

const isNoScript = (error: unknown): boolean => error instanceof Error && error.message.startsWith('NOSCRIPT');
