import type { TokenRecord } from '../ports/token-store.js';

/** A token as `findByHash` answers it: the record with its stored hash. */
export type FoundToken = TokenRecord & { readonly hash: Uint8Array };

/** Entries kept at most; when full, the oldest entry is dropped for each new one. */
export const TOKEN_CACHE_MAX_ENTRIES = 10_000;

/**
 * A cache of `findByHash` answers (hash → token record), so that a request's bearer check need
 * not read and decode the token's row every time. Each entry is stored with a `version`, and a
 * lookup with any other version finds nothing (the entry is dropped; the caller reads the row
 * again). What the version is depends on the store:
 *
 * - SQLite: the connection's `PRAGMA data_version`, read BEFORE the row. It changes whenever
 *   ANOTHER connection (the tokens CLI, a second server on the file) commits, so any such commit
 *   makes every older entry stale and revocation stays immediate. Commits of our own connection
 *   do not change it: the adapter calls `clear()` from every token write it makes itself.
 * - PostgreSQL: the current time slot, `floor(now / PG_TOKEN_CACHE_MS)`: an entry lives at most
 *   that long, which bounds how late another instance's revocation takes effect here.
 *
 * Only tokens that exist are cached (unknown hashes are not: random tokens cannot fill the
 * cache). Expiry is not the cache's business: the record carries `expiresAt`, and the
 * authenticator checks it against the clock on every request.
 */
export class TokenCache {
  private readonly entries = new Map<string, { readonly version: number; readonly token: FoundToken }>();

  constructor(private readonly maxEntries: number = TOKEN_CACHE_MAX_ENTRIES) {}

  /** The cached token for `key`, if it was cached with this `version`. */
  get(key: string, version: number): FoundToken | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.version === version) return entry.token;
    this.entries.delete(key);
    return undefined;
  }

  /** Caches `token` under `version` (read before the row was). */
  set(key: string, version: number, token: FoundToken): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { version, token });
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The cache key of a token hash. */
export const tokenCacheKey = (hash: Uint8Array): string =>
  Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('base64');
