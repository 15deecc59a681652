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
}

const HAS_HASH_TAG = /\{[^{}]+\}/;

/**
 * Maps a lock key to its Redis names. Suffixes start with `#`, which wrapped keys cannot end
 * with (they end with `}`) and caller-tagged keys have escaped, so names never collide.
 */
export class LockNaming {
  constructor(
    private readonly prefix: string,
    private readonly hashTag: boolean,
  ) {}

  namesOf(key: string): LockNames {
    const lock = this.prefix + this.storedKey(key);
    return { lock, fence: `${lock}#fence`, queue: `${lock}#queue`, waiters: `${lock}#waiters`, channel: `${lock}#wake` };
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
  const keys = Array.isArray(key) ? key : [key];
  if (keys.length === 0) throw new TypeError('a lock needs at least one key');
  for (const k of keys) if (typeof k !== 'string' || k.length === 0) throw new TypeError(`invalid lock key: ${String(k)}`);
  return [...new Set(keys)].sort();
}

/** How a lock is named in events and errors: the key as given, or the canonical keys joined. */
export function displayKey(key: string | string[]): string {
  return Array.isArray(key) ? canonicalKeys(key).join(',') : key;
}
