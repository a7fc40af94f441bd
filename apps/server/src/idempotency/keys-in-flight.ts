/**
 * The idempotency keys whose requests this process is processing, by owner and key. While one is
 * held, another request with it is answered 409 at once (docs/reference/api.md); a key is released when its
 * request is answered, so an in-flight mark never outlives its request (a crash forgets them all).
 * Across processes the store's lock decides instead: the later request waits for the earlier one's
 * commit and then gets its saved outcome.
 */
export class KeysInFlight {
  /** Owner → the keys it has in flight (two lookups of short strings, no key built per request). */
  private readonly held = new Map<string, Set<string>>();

  /** Marks `owner`'s `key` held; false when another request holds it. Release it once answered. */
  tryHold(owner: string, key: string): boolean {
    let keys = this.held.get(owner);
    if (keys === undefined) {
      keys = new Set();
      this.held.set(owner, keys);
    } else if (keys.has(key)) {
      return false;
    }
    keys.add(key);
    return true;
  }

  release(owner: string, key: string): void {
    const keys = this.held.get(owner);
    if (keys === undefined) return;
    keys.delete(key);
    if (keys.size === 0) this.held.delete(owner);
  }
}
