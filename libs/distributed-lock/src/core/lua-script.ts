import { createHash } from 'node:crypto';
import type { ChainableCommander, Cluster, Redis } from 'ioredis';

export type RedisClient = Redis | Cluster;
type ScriptArg = string | number;

/**
 * A Lua script run by EVALSHA, falling back to EVAL when the server has not cached it yet
 * (NOSCRIPT: a fresh, restarted or failed-over server).
 */
export class LuaScript<Reply> {
  readonly sha: string;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisClient, keys: string[], args: ScriptArg[]): Promise<Reply> {
    try {
      return (await client.evalsha(this.sha, keys.length, ...keys, ...args)) as Reply;
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return (await client.eval(this.source, keys.length, ...keys, ...args)) as Reply;
    }
  }

  /** Queues the script on a pipeline; answers that came back NOSCRIPT are rerun by `rerunIfMissing`. */
  queue(pipeline: ChainableCommander, keys: string[], args: ScriptArg[]): void {
    pipeline.evalsha(this.sha, keys.length, ...keys, ...args);
  }

  async rerunIfMissing(client: RedisClient, reply: [Error | null, unknown], keys: string[], args: ScriptArg[]): Promise<Reply> {
    const [error, value] = reply;
    if (!error) return value as Reply;
    if (!isNoScript(error)) throw error;
    return (await client.eval(this.source, keys.length, ...keys, ...args)) as Reply;
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
