/** The Redis names that belong to one lock key; all share the key's hash tag (one Cluster slot). */
export interface LockNames {
  /** The lease: a string holding the owner's token, with a PX expiry. */
  lock: string;
  /** Fencing counter, INCRed by every new holder; never expires. */
  fence: string;
  /** Fair/handoff queue: a list of waiter entries in arrival order. */
  queue: string;
  /** Zset of the same entries scored by the time (ms) after which a silent waiter is dropped. */
  waiters: string;
  /** Pub/sub channel on which releases and handoffs are announced. */
  channel: string;
  /** lock, fence, queue, waiters: the KEYS of the single-key scripts, in that order. */
  scriptKeys: string[];
  /** lock, fence: the KEYS of the scripts that do not touch the queue. */
  lockAndFence: string[];
  /** lock, queue: the KEYS of the release that only checks for waiters. */
  lockAndQueue: string[];
}

const HAS_HASH_TAG = /\{[^{}]+\}/;
// Names are looked up on every acquire and release; a hot key's are built once. Bounded: when
// full, the cache starts over (keys used once, like order ids, must not grow it forever).
const CACHED_KEYS = 2048;

/**
 * Maps a lock key to its Redis names. Suffixes start with `#`, which wrapped keys cannot end
 * with (they end with `}`) and caller-tagged keys have escaped, so names never collide.
 */
export class LockNaming {
  private readonly cache = new Map<string, LockNames>();

  constructor(
    private readonly prefix: string,
    private readonly hashTag: boolean,
  ) {}

  namesOf(key: string): LockNames {
    let names = this.cache.get(key);
    if (names) return names;
    const lock = this.prefix + this.storedKey(key);
    const [fence, queue, waiters] = [`${lock}#fence`, `${lock}#queue`, `${lock}#waiters`];
    names = { lock, fence, queue, waiters, channel: `${lock}#wake`, scriptKeys: [lock, fence, queue, waiters], lockAndFence: [lock, fence], lockAndQueue: [lock, queue] };
    if (this.cache.size >= CACHED_KEYS) this.cache.clear();
    this.cache.set(key, names);
    return names;
  }

  private storedKey(key: string): string {
    if (!this.hashTag) return escapeSuffixMarker(key);
    if (HAS_HASH_TAG.test(key)) return escapeSuffixMarker(key);
    return `{${key}}`;
  }
}

function escapeSuffixMarker(key: string): string {
  return key.replace(/[%#]/g, (c) => (c === '%' ? '%25' : '%23'));
}

/** Sorted and deduplicated: every process locks several keys in the same order (no deadlock). */
export function canonicalKeys(key: string | string[]): string[] {
  if (typeof key === 'string' && key.length > 0) return [key];
  const keys = Array.isArray(key) ? key : [key];
  if (keys.length === 0) throw new TypeError('a lock needs at least one key');
  for (const k of keys) if (typeof k !== 'string' || k.length === 0) throw new TypeError(`invalid lock key: ${String(k)}`);
  return [...new Set(keys)].sort();
}

/** How a lock is named in events and errors: the key as given, or the canonical keys joined. */
export function displayKey(key: string | string[]): string {
  return Array.isArray(key) ? canonicalKeys(key).join(',') : key;
}
