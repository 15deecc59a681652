/** The items a timer watches (held leases, pending replies), each knowing its place in the list: no hashing per acquire. */
export class Roster<T extends { slot: number }> {
  readonly items: T[] = [];

  add(item: T): void {
    item.slot = this.items.push(item) - 1;
  }

  /** False when the item was not in the roster. */
  delete(item: T): boolean {
    const at = item.slot;
    if (at < 0 || this.items[at] !== item) return false;
    const last = this.items.pop() as T;
    if (last !== item) {
      this.items[at] = last;
      last.slot = at;
    }
    item.slot = -1;
    return true;
  }
}
