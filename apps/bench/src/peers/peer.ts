import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the peers have in common: how they are built and run, the plant as they store
 * it, and the rules of docs/reference/api.md for the requests the bench sends, written once so that every
 * peer refuses what our server refuses.
 */

/** How a peer is built: the one token it accepts, and its store (a SQLite file or a PostgreSQL URL). */
export interface PeerOptions {
  readonly token: string;
  readonly database: string;
}

/** A peer built and ready to listen; `close` stops listening and closes its store. */
export interface Peer {
  /** Listens on `host:port` (0: any free port); resolves to the port it got. */
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

export type PeerFactory = (options: PeerOptions) => Promise<Peer>;

export interface PlantRecord {
  readonly id: number;
  readonly name: string;
  readonly tag?: string;
}

/** A row as the stores read it: an absent tag is NULL. */
export interface PlantRow {
  readonly id: number;
  readonly name: string;
  readonly tag: string | null;
}

/** An absent tag is omitted from responses, never `null` (docs/reference/api.md). */
export const toRecord = (row: PlantRow): PlantRecord =>
  row.tag === null ? { id: row.id, name: row.name } : { id: row.id, name: row.name, tag: row.tag };

export interface NewPlant {
  readonly id?: number;
  readonly name: string;
  readonly tag?: string;
}

/** A merge patch: `tag: null` removes the tag, an absent member keeps what the plant has. */
export interface PlantChanges {
  readonly name?: string;
  readonly tag?: string | null;
}

export type MaybePromise<T> = T | Promise<T>;

/** A peer's store: the SQLite ones answer synchronously (SyncPeerStore), the PostgreSQL one with promises. */
export interface PeerStore {
  /** The new plant's id, or undefined when the id asked for is taken. */
  create(plant: NewPlant): MaybePromise<number | undefined>;
  get(id: number): MaybePromise<PlantRecord | undefined>;
  /** The plant as changed, or undefined when there is none with that id. */
  update(id: number, changes: PlantChanges): MaybePromise<PlantRecord | undefined>;
  /** Whether there was a plant to delete. */
  remove(id: number): MaybePromise<boolean>;
  /** Plants with ids above `after`, ascending, at most `limit`, only those tagged `tag` when given. */
  list(limit: number, after: number, tag: string | undefined): MaybePromise<readonly PlantRecord[]>;
  close(): MaybePromise<void>;
}

export interface SyncPeerStore extends PeerStore {
  create(plant: NewPlant): number | undefined;
  get(id: number): PlantRecord | undefined;
  update(id: number, changes: PlantChanges): PlantRecord | undefined;
  remove(id: number): boolean;
  list(limit: number, after: number, tag: string | undefined): readonly PlantRecord[];
  close(): void;
}

/** A request part as checked by hand: the value, or every problem it has, each naming its field. */
export type Checked<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: readonly string[] };

export const MAX_BODY_BYTES = 16 * 1024;

/** `{"error": <status>, "message": …}`, the body of every error response. */
export const errorBody = (status: number, message: string): { readonly error: number; readonly message: string } => ({
  error: status,
  message,
});

/** The `{id}` path segment: decimal digits, no sign, no leading zero, 1 … 2^53−1. */
export const ID_SEGMENT = /^[1-9][0-9]{0,15}$/;
export const idFromPath = (segment: string): number | undefined =>
  ID_SEGMENT.test(segment) && Number(segment) <= Number.MAX_SAFE_INTEGER ? Number(segment) : undefined;
export const ID_PATH_PROBLEM = `expected decimal digits without sign or leading zero, from 1 to ${Number.MAX_SAFE_INTEGER}`;

/** `after`: "0" or canonical decimal digits up to 2^53−1. */
export const CURSOR = /^(?:0|[1-9][0-9]{0,15})$/;
export const isCursor = (value: string): boolean => CURSOR.test(value) && Number(value) <= Number.MAX_SAFE_INTEGER;

/** `limit`: 1 … 1000, default 100 (docs/reference/api.md). */
export const LIMIT = /^(?:[1-9][0-9]{0,2}|1000)$/;
export const DEFAULT_LIMIT = 100;

/**
 * The `Link` of a full page: the next page's URL, always with `limit`, and with `tag` when the
 * page was filtered (as our server and the ceiling write it).
 */
export const nextLink = (limit: number, page: readonly PlantRecord[], tag: string | undefined): string | undefined => {
  const last = page[page.length - 1];
  if (page.length < limit || last === undefined) return undefined;
  const next = new URLSearchParams({ limit: String(limit), after: String(last.id) });
  if (tag !== undefined) next.set('tag', tag);
  return `</plants?${next.toString()}>; rel="next"`;
};

/** Listens with a node:http server and resolves to the port it got. */
export const listenOn = (server: Server, port: number, host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });

/** Stops accepting, drops idle and busy keep-alive connections, resolves once closed. */
export const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve, reject) => {
    server.close((error) => (error === undefined ? resolve() : reject(error)));
    server.closeAllConnections();
  });
