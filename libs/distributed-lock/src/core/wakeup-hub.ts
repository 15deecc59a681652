import type { Cluster, Redis } from 'ioredis';
import { fellBackToUnsharded, usesShardedPubSub, type RedisClient } from './lua-script';
import { withReplyTimeout } from './redis-errors';
import { now } from './timing';

const UNCLAIMED_FOR_MS = 5000;
// A channel stays subscribed this long after its last waiter left: a hot key's next waiter then
// finds it live, and neither the waiter that got the lock nor the next one waits on a round trip.
const LINGER_MS = 2000;

type HandedOver = { kind: 'handedOver'; fence: number; block: number; queued: number };
/** What woke a waiter: a handoff to its token (`block` fences after its own, `queued` waiters left), a release, or its subscription becoming live. */
export type Wakeup = HandedOver | { kind: 'free' } | { kind: 'subscribed' } | { kind: 'timer' } | { kind: 'aborted' };

/** A waiter's inbox: wakeups that arrive while it is busy are kept for its next `next()`. */
export class WakeSignal {
  private readonly pending: Wakeup[] = [];
  private deliver?: (wakeup: Wakeup) => void;

  /** Waiters are told apart by their owner token (a handoff message names it). */
  constructor(readonly token: string) {}

  wake(wakeup: Wakeup): void {
    if (this.deliver) this.deliver(wakeup);
    else this.pending.push(wakeup);
  }

  /** The next wakeup, or `{ kind: 'timer' }` after `timeoutMs`; a handoff goes before others. */
  next(timeoutMs: number): Promise<Wakeup> {
    if (this.pending.length > 0) {
      const wakeup = this.pending.find((w) => w.kind === 'handedOver') ?? this.pending[0];
      this.pending.length = 0;
      return Promise.resolve(wakeup);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.deliver = undefined;
        resolve({ kind: 'timer' });
      }, timeoutMs);
      this.deliver = (wakeup) => {
        clearTimeout(timer);
        this.deliver = undefined;
        resolve(wakeup);
      };
    });
  }
}

/**
 * The one subscriber connection of a `DistributedLock`, shared by its waiters: a channel is
 * subscribed while a local waiter watches it (and LINGER_MS after). A handoff wakes the waiter it
 * names; a plain release wakes only the oldest local waiter, so releases never cause a stampede.
 */
export class WakeupHub {
  private connection?: RedisClient;
  private connecting?: Promise<void>;
  private readonly channels = new Map<string, Map<string, WakeSignal>>();
  // A handoff can arrive between a waiter's failed attempt and its watch(); kept here briefly.
  private readonly unclaimed = new Map<string, HandedOver & { at: number }>();
  private readonly onMessage = (channel: string, message: string): void => this.dispatch(channel, message);

  /** Without a `subscriber`, the hub creates (and owns) a copy of `primary` on first use. */
  constructor(
    private readonly primary: RedisClient,
    private readonly given?: RedisClient,
  ) {}

  /** Starts delivering wakeups on `channel` to `watcher`; the returned function stops it. */
  watch(channel: string, watcher: WakeSignal): () => void {
    let watchers = this.channels.get(channel);
    if (!watchers) {
      watchers = new Map();
      this.channels.set(channel, watchers);
      this.subscribe(channel, watchers);
    }
    watchers.set(watcher.token, watcher);
    const early = this.unclaimed.get(watcher.token);
    if (early) {
      this.unclaimed.delete(watcher.token);
      watcher.wake(early);
    }
    const registered = watchers;
    return () => {
      registered.delete(watcher.token);
      const idle = () => registered.size === 0 && this.channels.get(channel) === registered;
      if (!idle()) return;
      setTimeout(() => {
        if (!idle() || !this.connection) return;
        this.channels.delete(channel);
        void this.unsubscribe(this.connection, channel);
      }, LINGER_MS).unref();
    };
  }

  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    this.connecting = undefined;
    if (!connection) return;
    connection.off('message', this.onMessage);
    connection.off('smessage', this.onMessage);
    const channels = [...this.channels.keys()];
    this.channels.clear();
    if (!this.given && connection.status === 'ready') {
      await withReplyTimeout(connection.quit(), 1000, 'subscriber').catch(() => connection.disconnect());
    } else if (!this.given) connection.disconnect();
    else await Promise.all(channels.map((channel) => this.unsubscribe(connection, channel)));
  }

  private unsubscribe(connection: RedisClient, channel: string): Promise<unknown> {
    return (usesShardedPubSub(connection) ? connection.sunsubscribe(channel) : connection.unsubscribe(channel)).catch(
      () => undefined,
    );
  }

  private keepUnclaimed(token: string, handedOver: HandedOver): void {
    const at = now();
    for (const [old, entry] of this.unclaimed) {
      if (at - entry.at < UNCLAIMED_FOR_MS && this.unclaimed.size < 1000) break;
      this.unclaimed.delete(old);
    }
    this.unclaimed.set(token, { ...handedOver, at });
  }

  private subscribe(channel: string, watchers: Map<string, WakeSignal>): void {
    // Until SUBSCRIBE is acknowledged a release can go unheard; waiters re-check once it is.
    const connection = this.subscriber();
    const send = () =>
      usesShardedPubSub(connection)
        ? connection.ssubscribe(channel).catch((error: unknown) => {
            if (!fellBackToUnsharded(connection, error)) throw error;
            return connection.subscribe(channel);
          })
        : connection.subscribe(channel);
    // A client made with enableOfflineQueue: false rejects a command sent before it is connected,
    // as a new duplicate() is: the first SUBSCRIBE waits for the connection instead.
    const subscribing = connection.status === 'ready' ? send() : this.ready(connection).then(send);
    subscribing.then(
      () => watchers.forEach((w) => w.wake({ kind: 'subscribed' })),
      () => undefined, // polling covers a subscriber that is down
    );
  }

  /** Resolves once the connection is ready (connecting a lazy one); shared by every waiting SUBSCRIBE. */
  private ready(connection: RedisClient): Promise<void> {
    this.connecting ??= new Promise<void>((resolve) => {
      connection.once('ready', () => {
        this.connecting = undefined;
        resolve();
      });
      if (connection.status === 'wait') connection.connect().catch(() => undefined);
    });
    return this.connecting;
  }

  private subscriber(): RedisClient {
    if (!this.connection) {
      const connection = this.given ?? this.copyOfPrimary();
      if (!this.given) connection.on('error', () => undefined);
      connection.on('message', this.onMessage);
      connection.on('smessage', this.onMessage); // sharded pub/sub, on a Cluster
      this.connection = connection;
    }
    return this.connection;
  }

  private copyOfPrimary(): RedisClient {
    // A Cluster copy must be created with sharded subscribers enabled.
    if (usesShardedPubSub(this.primary)) return (this.primary as Cluster).duplicate([], { shardedSubscribers: true });
    return (this.primary as Redis).duplicate();
  }

  private dispatch(channel: string, message: string): void {
    const watchers = this.channels.get(channel);
    if (!watchers) return;
    if (message === 'f') {
      watchers.values().next().value?.wake({ kind: 'free' });
      return;
    }
    const [kind, token, fence, block, queued] = message.split(' ');
    if (kind !== 'g') return;
    const handedOver: HandedOver = {
      kind: 'handedOver',
      fence: Number(fence),
      block: Number(block ?? 0),
      queued: Number(queued ?? 0),
    };
    const watcher = watchers.get(token);
    if (watcher) watcher.wake(handedOver);
    else this.keepUnclaimed(token, handedOver);
  }
}
