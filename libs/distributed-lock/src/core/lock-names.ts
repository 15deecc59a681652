import { clusterSlot, slotTag } from './backends/cluster-slot';

/**
 * The Redis names of one lock key, all in the key's Cluster slot: `lock` (the owner's token, with
 * a PX expiry), `fence` (the counter every new holder moves on, see LockNaming), `queue` (waiter
 * entries `token:ttl` in arrival order), `waiters` (the same entries scored by the time after
 * which a silent waiter is dropped), `channel` (where releases and handoffs are announced).
 * `scriptKeys` (lock, fence, queue, waiters) and `lockAndFence` are the scripts' KEYS.
 */
type LockNames = {
  lock: string;
  fence: string;
  queue: string;
  waiters: string;
  channel: string;
  scriptKeys: string[];
  lockAndFence: string[];
};

const HAS_HASH_TAG = /\{[^{}]+\}/;
/** A key's pub/sub channel is its lock name and this (the release script names it the same way). */
export const CHANNEL_SUFFIX = '#wake';

/**
 * Maps a lock key to its Redis names. Suffixes start with `#`, which wrapped keys cannot end
 * with (they end with `}`) and caller-tagged keys have escaped, so names never collide; nor does
 * the fence counter (`<prefix>#fence`, or `<prefix>{<slot tag>}#fence` on a Cluster).
 *
 * One counter, not one per key: those would stay in Redis for ever (one per order id ever locked)
 * or expire and restart from the clock at two more commands per acquire. A Cluster has one per
 * slot, since a script may only touch keys of one slot.
 */
export class LockNaming {
  private readonly sharedCounter: string;
  /** The last key named: a release, a renewal or a handoff names the key its acquire named. */
  private last?: { key: string; names: LockNames };

  constructor(
    private readonly prefix: string,
    private readonly hashTag: boolean,
    /** A Cluster: the counter of the key's slot rather than the one counter. */
    private readonly counterPerSlot = false,
  ) {
    this.sharedCounter = prefix + '#fence';
    // Builds the slot tags now (~10 ms), not on the first acquire, which may be a request's.
    if (counterPerSlot) slotTag(0);
  }

  namesOf(key: string): LockNames {
    if (this.last?.key === key) return this.last.names;
    const names = this.name(key);
    this.last = { key, names };
    return names;
  }

  private name(key: string): LockNames {
    const lock = this.prefix + this.storedKey(key);
    const fence = this.counterPerSlot ? `${this.prefix}{${slotTag(clusterSlot(lock))}}#fence` : this.sharedCounter;
    const queue = lock + '#queue';
    const waiters = lock + '#waiters';
    return {
      lock,
      fence,
      queue,
      waiters,
      channel: lock + CHANNEL_SUFFIX,
      scriptKeys: [lock, fence, queue, waiters],
      lockAndFence: [lock, fence],
    };
  }

  private storedKey(key: string): string {
    // Unless disabled, or the caller tagged the key; a key not wrapped in `{}` has `#` escaped.
    if (this.hashTag && !(key.includes('{') && HAS_HASH_TAG.test(key))) return `{${key}}`;
    return escapeSuffixMarker(key);
  }
}

function escapeSuffixMarker(key: string): string {
  if (!key.includes('%') && !key.includes('#')) return key;
  return key.replace(/[%#]/g, (c) => (c === '%' ? '%25' : '%23'));
}

/** Sorted and deduplicated: every process locks several keys in the same order (no deadlock). */
export function canonicalKeys(key: string | string[]): string[] {
  if (typeof key === 'string' && key.length > 0) return [key];
  const keys = Array.isArray(key) ? key : [key];
  if (keys.length === 0) throw new TypeError('a lock needs at least one key');
  for (const k of keys)
    if (typeof k !== 'string' || k.length === 0) throw new TypeError(`invalid lock key: ${String(k)}`);
  return [...new Set(keys)].sort();
}

/** How a lock is named in events and errors: the key as given, or the canonical keys joined. */
export function displayKey(key: string | string[]): string {
  return Array.isArray(key) ? canonicalKeys(key).join(',') : key;
}
