import { fileURLToPath } from 'node:url';
import * as t from 'io-ts';
import { fromString } from './env-codecs.js';

/** Where the store lives: a SQLite file (`:memory:` for none) or a PostgreSQL database. */
export const StoreLocation = t.union([
  t.readonly(t.type({ kind: t.literal('sqlite'), file: t.string })),
  t.readonly(t.type({ kind: t.literal('postgres'), url: t.string })),
]);
export type StoreLocation = t.TypeOf<typeof StoreLocation>;

/**
 * Reads a DATABASE_URL: `sqlite:<path>`, `sqlite://<path>` (so `sqlite:///abs/file.db` is an
 * absolute path), `sqlite::memory:`, `file:` URLs, or a plain file path → SQLite;
 * `postgres://…` / `postgresql://…` → PostgreSQL. Anything else (an empty value, a SQLite URL
 * without a file, another scheme) is undefined. See docs/reference/configuration.md.
 */
export const parseStoreLocation = (databaseUrl: string): StoreLocation | undefined => {
  const url = databaseUrl.trim();
  if (url === '') return undefined;
  if (/^postgres(ql)?:\/\//i.test(url)) return { kind: 'postgres', url };
  const sqlite = /^sqlite:(.*)$/is.exec(url);
  if (sqlite !== null) {
    const rest = sqlite[1] ?? '';
    const file = rest.startsWith('//') ? rest.slice(2) : rest;
    return file === '' ? undefined : { kind: 'sqlite', file };
  }
  if (/^file:/i.test(url)) {
    try {
      return { kind: 'sqlite', file: fileURLToPath(url) };
    } catch {
      return undefined;
    }
  }
  // A scheme we do not know (but not a Windows drive letter such as C:\).
  if (/^[a-z][a-z0-9+.-]+:/i.test(url)) return undefined;
  return { kind: 'sqlite', file: url };
};

/** DATABASE_URL decoded into a StoreLocation (see parseStoreLocation); encodes back to a URL. */
export const StoreLocationFromUrl: t.Type<StoreLocation, string, unknown> = fromString(
  'sqlite:<file>, sqlite::memory:, a file path or postgres://…',
  parseStoreLocation,
  (location) => (location.kind === 'sqlite' ? `sqlite:${location.file}` : location.url),
);

/** DATABASE_URL's default, `sqlite:./data/plant-store.db` (relative to the working directory). */
export const DEFAULT_STORE_LOCATION: StoreLocation = { kind: 'sqlite', file: './data/plant-store.db' };
