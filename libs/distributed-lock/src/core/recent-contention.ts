// Long enough to span the gaps between a hot key's bursts of chains; short enough that a key
// refused once (an order id a retry raced with) soon goes back to the cheaper first try.
const REMEMBER_MS = 2000;
// A few hot keys matter at a time (one per product on sale); the oldest are forgotten first.
const CAPACITY = 1024;

/**
 * The keys whose first try was refused lately, when the caller would wait. A fresh key is nearly
 * always free, so its first try does not carry the queue's keys; a key in here is likely held
 * again, so its first try queues the caller at once, saving the round trip a second try costs.
 */
export class RecentContention {
  private readonly refusedAt = new Map<string, number>();

  constructor(
    private readonly rememberMs = REMEMBER_MS,
    private readonly capacity = CAPACITY,
  ) {}

  /** `at`: a monotonic time (ms). */
  refused(key: string, at: number): void {
    this.refusedAt.delete(key); // re-inserted: the Map's order stays oldest refusal first
    this.refusedAt.set(key, at);
    if (this.refusedAt.size > this.capacity) this.refusedAt.delete(this.refusedAt.keys().next().value as string);
  }

  /** Whether `key` was refused within the last few seconds before `at`. */
  isContended(key: string, at: number): boolean {
    if (this.refusedAt.size === 0) return false;
    const refusedAt = this.refusedAt.get(key);
    if (refusedAt === undefined) return false;
    if (at - refusedAt <= this.rememberMs) return true;
    this.refusedAt.delete(key);
    return false;
  }
}
