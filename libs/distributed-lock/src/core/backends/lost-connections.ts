import type { Redis } from 'ioredis';
import { now } from '../timing';

/** ioredis statuses of a client whose connection is gone (it is reconnecting, or has given up). */
const CONNECTION_LOST = new Set(['reconnecting', 'close', 'end']);

/**
 * How long a Redlock node may be without its connection before it counts as down at once. Within
 * it, a command is sent (ioredis queues it until it reconnects) and waited for within the reply
 * timeout, so a blip or a quick restart costs no vote. After it, a command is not sent: with the
 * offline queue on (ioredis' default) every attempt would otherwise wait out the reply timeout
 * for a node that is down, and the queued command would run on it later for a caller that gave up.
 */
export const LOST_GRACE_MS = 1000;

/** Watches each node's connection; `send` refuses a node that has been gone longer than the grace. */
export class LostConnections {
  private readonly lostAt = new Map<Redis, number>();
  private readonly unwatch: Array<() => void> = [];

  constructor(nodes: Redis[]) {
    for (const node of nodes) {
      if (CONNECTION_LOST.has(node.status)) this.lostAt.set(node, now());
      // 'close' comes again after each failed reconnection: the first one dates the loss.
      const lost = () => void (this.lostAt.has(node) || this.lostAt.set(node, now()));
      const back = () => void this.lostAt.delete(node);
      node.on('close', lost).on('ready', back);
      this.unwatch.push(() => node.off('close', lost).off('ready', back));
    }
  }

  /** Runs `command` unless `node` lost its connection more than LOST_GRACE_MS ago. */
  send<T>(node: Redis, command: () => Promise<T>): Promise<T> {
    const since = this.lostAt.get(node);
    if (since === undefined || now() - since < LOST_GRACE_MS || !CONNECTION_LOST.has(node.status)) return command();
    return Promise.reject(
      new Error(`Connection is closed: Redlock node ${node.status} for ${Math.round(now() - since)} ms`),
    );
  }

  /** Removes the listeners from the caller's clients. */
  close(): void {
    this.unwatch.splice(0).forEach((remove) => remove());
  }
}
