/**
 * Test support for the HTTP suites: the real app (createApp) over a throwaway store on a real
 * listening socket (127.0.0.1, port 0), tokens issued through the real token store, and a small
 * node:http client that can send what fetch will not (raw bytes, duplicate headers, chunks).
 *
 * The store is a fresh SQLite file, or — when PLANT_STORE_TEST_STORE=postgres, as the `postgres`
 * project of vitest.config.ts sets it — a fresh PostgreSQL schema (testkit's freshPostgresUrl)
 * opened through openStore like main.ts does, and dropped on close. So the same HTTP tests run
 * on both stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as E from 'fp-ts/lib/Either.js';
import { freshPostgresUrl } from '@plant-store/testkit';
import { expect } from 'vitest';
import { openStore } from '../../src/adapters/open-store.js';
import { openSqliteStore } from '../../src/adapters/sqlite/open.js';
import { createApp, type AppDeps } from '../../src/app.js';
import { ChangeHub } from '../../src/changes/change-hub.js';
import type { RateLimiter } from '../../src/rate-limit/rate-limiter.js';
import { createServer, type ServerTimeouts } from '../../src/http/server.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { Metrics } from '../../src/ops/metrics.js';
import type { Store } from '../../src/ports/store.js';
import type { StoreObserver } from '../../src/ports/store-observer.js';
import type { Scope } from '../../src/ports/token-store.js';
import { issueToken } from '../../src/tokens/issue-token.js';
import type { Authenticator } from '../../src/tokens/principal.js';
import { createTokenAuthenticator } from '../../src/tokens/token-authenticator.js';

/** The store startTestServer opens by default: env PLANT_STORE_TEST_STORE (`sqlite` unless set). */
export const testStoreKind: 'sqlite' | 'postgres' = ((): 'sqlite' | 'postgres' => {
  const kind = process.env['PLANT_STORE_TEST_STORE'] ?? 'sqlite';
  if (kind !== 'sqlite' && kind !== 'postgres')
    throw new TypeError(`PLANT_STORE_TEST_STORE must be sqlite or postgres, not ${kind}`);
  return kind;
})();

/** A throwaway store of `testStoreKind` and how to get rid of it after the store is closed. */
const openThrowawayStore = async (
  dir: string,
  observer: StoreObserver | undefined,
  idempotencyTtlSeconds: number | undefined,
): Promise<{ store: Store; remove: () => Promise<void> }> => {
  const observing = {
    ...(observer === undefined ? {} : { observer }),
    ...(idempotencyTtlSeconds === undefined ? {} : { idempotencyTtlSeconds }),
  };
  if (testStoreKind === 'sqlite')
    return {
      store: await openSqliteStore({ file: join(dir, 'plants.db'), ...observing }),
      remove: async () => undefined,
    };
  const pg = await freshPostgresUrl();
  try {
    return { store: await openStore({ kind: 'postgres', url: pg.url }, observing), remove: () => pg.drop() };
  } catch (error) {
    await pg.drop();
    throw error;
  }
};

export interface TestServer {
  readonly url: string;
  readonly port: number;
  readonly store: Store;
  readonly server: http.Server;
  /** The Koa app the server runs (its middleware holds the router, for tests that walk the routes). */
  readonly app: ReturnType<typeof createApp>;
  readonly logger: Logger;
  /** Every JSON log line the app wrote. */
  readonly logs: string[];
  /** Tokens of the store: both scopes, read only, write only, revoked, expired. */
  readonly tokens: {
    readonly all: string;
    readonly read: string;
    readonly write: string;
    readonly revoked: string;
    readonly expired: string;
  };
  /** The change feed the app's routes use (a test may close it, as a shutdown does). */
  readonly changeHub: ChangeHub;
  close(): Promise<void>;
}

export interface TestServerOptions {
  readonly bodyLimitBytes?: number;
  /** BULK_BODY_LIMIT_BYTES of POST /plants/batch (default: its default, 4 MiB). */
  readonly bulkBodyLimitBytes?: number;
  readonly isShuttingDown?: () => boolean;
  readonly auth?: (store: Store) => Authenticator;
  readonly timeouts?: Partial<ServerTimeouts>;
  /** Opens the store (default: a throwaway store of `testStoreKind`); the server closes it. */
  readonly open?: () => Promise<Store>;
  /** Prefix of the test tokens' names, for several servers over one store (names are unique). */
  readonly tokenPrefix?: string;
  /** Per-principal rate limiting (default: off). */
  readonly rateLimiter?: RateLimiter;
  /** CORS_ORIGINS (default: none, CORS off). */
  readonly corsOrigins?: readonly string[];
  /** Metrics of the app and of the throwaway store (default: none). */
  readonly metrics?: Metrics;
  /** IDEMPOTENCY_TTL_SECONDS of the throwaway store and the served document (default: theirs, 86400). */
  readonly idempotencyTtlSeconds?: number;
  /** The change feed's hub (default: the app makes one) and its limits (default: CHANGES_*'s). */
  readonly changeHub?: ChangeHub;
  readonly changes?: AppDeps['changes'];
}

const must = async <A>(task: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const result = await task();
  if (E.isLeft(result)) throw new Error(`test set-up failed: ${JSON.stringify(result.left)}`);
  return result.right;
};

const issue = async (
  store: Store,
  name: string,
  scopes: readonly Scope[],
  expiresAt: Date | null = null,
): Promise<string> => (await must(issueToken(store.tokens, { name, scopes, expiresAt }))).token;

/** The scopes of the test tokens that are valid (`tokens.all`, `tokens.read`, `tokens.write`). */
export const TOKEN_SCOPES = {
  all: ['plants:read', 'plants:write'],
  read: ['plants:read'],
  write: ['plants:write'],
} as const satisfies Record<string, readonly Scope[]>;

export const startTestServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-http-'));
  const { store, remove } =
    options.open === undefined
      ? await openThrowawayStore(dir, options.metrics?.store, options.idempotencyTtlSeconds)
      : { store: await options.open(), remove: async () => undefined };
  const prefix = options.tokenPrefix ?? '';
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      callback();
    },
  });
  const logger = createLogger({ level: 'info', destination });
  const tokens = {
    all: await issue(store, `${prefix}all`, TOKEN_SCOPES.all),
    read: await issue(store, `${prefix}read`, TOKEN_SCOPES.read),
    write: await issue(store, `${prefix}write`, TOKEN_SCOPES.write),
    revoked: await issue(store, `${prefix}revoked`, ['plants:read', 'plants:write']),
    expired: await issue(store, `${prefix}expired`, ['plants:read', 'plants:write'], new Date(Date.now() - 1000)),
  };
  await must(store.tokens.revoke(`${prefix}revoked`, new Date()));
  const auth = options.auth?.(store) ?? createTokenAuthenticator(store.tokens);
  const changeHub = options.changeHub ?? new ChangeHub(store.changes);
  const app = createApp({
    store,
    auth,
    logger,
    ...(options.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: options.bodyLimitBytes }),
    ...(options.bulkBodyLimitBytes === undefined ? {} : { bulkBodyLimitBytes: options.bulkBodyLimitBytes }),
    ...(options.isShuttingDown === undefined ? {} : { isShuttingDown: options.isShuttingDown }),
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
    ...(options.corsOrigins === undefined ? {} : { corsOrigins: options.corsOrigins }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.idempotencyTtlSeconds === undefined ? {} : { idempotencyTtlSeconds: options.idempotencyTtlSeconds }),
    changeHub,
    ...(options.changes === undefined ? {} : { changes: options.changes }),
  });
  const server = createServer(app, logger, options.timeouts);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    store,
    server,
    app,
    logger,
    logs,
    tokens,
    changeHub,
    close: async () => {
      changeHub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
      await remove();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

export interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON (undefined when empty). */
  readonly json: unknown;
}

export interface RequestOptions {
  readonly method?: string;
  /** Header values; an array sends the header once per value. */
  readonly headers?: Readonly<Record<string, string | number | readonly string[]>>;
  readonly body?: string | Buffer;
  /** Send the body in these pieces with chunked transfer encoding (no Content-Length). */
  readonly chunks?: readonly (string | Buffer)[];
}

/** One request on a fresh connection (no keep-alive pool shared between tests). */
export const request = (
  server: { readonly port: number },
  path: string,
  options: RequestOptions = {},
): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string | number | string[]> = {};
    for (const [name, value] of Object.entries(options.headers ?? {}))
      headers[name] = typeof value === 'object' ? [...value] : value;
    if (options.body !== undefined && headers['content-length'] === undefined)
      headers['content-length'] = Buffer.byteLength(options.body);
    const req = http.request(
      { host: '127.0.0.1', port: server.port, path, method: options.method ?? 'GET', headers, agent: false },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.chunks !== undefined) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else {
      req.end(options.body);
    }
  });

export const bearer = (token: string): { authorization: string } => ({ authorization: `Bearer ${token}` });

export const jsonHeaders = (token: string): Record<string, string> => ({
  ...bearer(token),
  'content-type': 'application/json',
});

/** POST /plants with a JSON body (a string is sent as is). */
export const createPlant = (server: TestServer, body: unknown, token: string = server.tokens.all): Promise<Reply> =>
  request(server, '/plants', {
    method: 'POST',
    headers: jsonHeaders(token),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/**
 * Asserts the contract's error response: the status, `Content-Type: application/json`, the body
 * exactly `{error: status, message}` with a message matching `message`, and an X-Request-Id.
 */
export const expectError = (reply: Reply, status: number, message: RegExp | string = /./): void => {
  expect({ status: reply.status, contentType: reply.headers['content-type'] }).toEqual({
    status,
    contentType: 'application/json; charset=utf-8',
  });
  expect(reply.json).toEqual({ error: status, message: expect.any(String) });
  expect((reply.json as { message: string }).message).toMatch(message);
  expect(reply.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  // A stack frame (`at fn (file:1:2)` or `at file:1:2`), a source path, SQL: never in an answer.
  // (JSON.parse's own words since Node 22, "… (line 1 column 13)", are not a frame.)
  expect(reply.text).not.toMatch(/\bat (?:\S+ \()?[^\s()]+:\d+:\d+|\.ts:|\.js:|SELECT|INSERT|node_modules/);
};
