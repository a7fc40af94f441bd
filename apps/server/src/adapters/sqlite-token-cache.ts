import type { TokenRecord } from '../ports/token-store.js';

/** A token as `findByHash` answers it: the record with its stored hash. */
export type FoundToken = TokenRecord & { readonly hash: Uint8Array };

/** Entries kept at most; when full, the oldest entry is dropped for each new one. */
export const TOKEN_CACHE_MAX_ENTRIES = 10_000;

/**
 * The SQLite adapter's cache of `findByHash` answers (hash → token record), so that a request's
 * bearer check costs one `PRAGMA data_version` instead of a table lookup and a row decode.
 *
 * Revocation stays immediate. Every entry remembers the connection's `data_version` read BEFORE
 * its row was read; `data_version` changes whenever ANOTHER connection (the tokens CLI, a second
 * server on the file) commits to the database, so any such commit makes every older entry
 * stale, and the caller reads the row again. Commits of our own connection do not change
 * `data_version`: the adapter calls `clear()` from every token write it makes itself. Only
 * tokens that exist are cached (unknown hashes are not: random tokens cannot fill the cache).
 * Expiry is not the cache's business: the record carries `expiresAt`, and the authenticator
 * checks it against the clock on every request.
 */
export class SqliteTokenCache {
  private readonly entries = new Map<string, { readonly version: number; readonly token: FoundToken }>();

  constructor(private readonly maxEntries: number = TOKEN_CACHE_MAX_ENTRIES) {}

  /** The cached token for `hash`, if it was cached while `data_version` was `version`. */
  get(key: string, version: number): FoundToken | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.version === version) return entry.token;
    this.entries.delete(key);
    return undefined;
  }

  /** Caches `token`, read after `data_version` answered `version`. */
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
export const tokenCacheKey = (hash: Uint8Array): string => Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('base64');
