import { DEFAULT_IDEMPOTENCY_TTL_SECONDS } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { availableParallelism } from 'node:os';
import type * as t from 'io-ts';
import type { Level } from 'pino';
import {
  boolean,
  commaSeparated,
  decodeVariables,
  fromString,
  hostName,
  integer,
  nonEmpty,
  oneOf,
  parseUrl,
  port,
} from './config/env-codecs.js';
import { SERVER_TIMEOUTS } from './config/server-timeouts.js';
import { DEFAULT_STORE_LOCATION, StoreLocationFromUrl, type StoreLocation } from './config/store-location.js';
import { decodeTracing, tracingWarnings, type TracingConfig } from './config/tracing.js';
import { isB64Token } from './tokens/opaque-token.js';
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from './webhooks/retry-schedule.js';

/**
 * The server's configuration, decoded from the environment. Every variable, its default and its
 * meaning are listed in docs/reference/configuration.md and in .env.example; test/configuration-docs.test.ts keeps them in step.
 */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** DATABASE_URL, decoded: a SQLite file (relative paths against the process's working directory) or a PostgreSQL URL. */
  readonly storeLocation: StoreLocation;
  readonly sqliteSynchronous: 'FULL' | 'NORMAL';
  readonly bodyLimitBytes: number;
  readonly logLevel: Level | 'silent';
  readonly shutdownTimeoutMs: number;
  readonly auth: AuthConfig;
  /** Processes serving one port (node:cluster); 1: a single process, no cluster. > 1 only with PostgreSQL. */
  readonly workers: number;
  /** Per-principal rate limiting for the whole deployment; undefined: off. */
  readonly rateLimit: RateLimitConfig | undefined;
  /** PostgreSQL pool knobs (ignored for SQLite). */
  readonly postgres: PostgresConfig;
  /** METRICS_PORT / METRICS_HOST: where GET /metrics listens; undefined: no metrics at all. */
  readonly metrics: { readonly host: string; readonly port: number } | undefined;
  /** OTEL_*: where spans go; undefined: tracing off (no SDK loaded). */
  readonly tracing: TracingConfig | undefined;
  /** CORS_ORIGINS: the exact origins a browser may call the API from; empty: CORS off (no Access-Control-* header anywhere). */
  readonly corsOrigins: readonly string[];
  /** HEADERS_TIMEOUT_MS: how long a client may take to send the request line and headers → 408. */
  readonly headersTimeoutMs: number;
  /** REQUEST_TIMEOUT_MS: how long a client may take to send the whole request, body included (≥ the headers timeout) → 408. */
  readonly requestTimeoutMs: number;
  /** IDEMPOTENCY_TTL_SECONDS: how long a keyed create's outcome is kept, from its commit. */
  readonly idempotencyTtlSeconds: number;
  readonly webhooks: WebhookConfig;
  /** CHANGES_RETENTION: how long the change log keeps a change (ms); a reader behind it gets 410. */
  readonly changesRetentionMs: number;
  readonly changes: ChangeFeedConfig;
}

/** The change feed's limits (GET /plants/changes). */
export interface ChangeFeedConfig {
  /** CHANGES_HEARTBEAT_MS: a stream gets a comment line at least this often. */
  readonly heartbeatMs: number;
  /** CHANGES_MAX_BUFFER_BYTES: a stream with this much unsent is ended (its client does not read). */
  readonly maxBufferBytes: number;
  /** CHANGES_MAX_STREAMS: open streams and waiting long polls this process holds at most; beyond: 503. */
  readonly maxStreams: number;
}

/** The change feed's limits when CHANGES_* leave them unset. */
export const DEFAULT_CHANGE_FEED: ChangeFeedConfig = {
  heartbeatMs: 15_000,
  maxBufferBytes: 1024 * 1024,
  maxStreams: 10_000,
};

/** BODY_LIMIT_BYTES's default: 16 KiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024;

export interface WebhookConfig {
  /** WEBHOOK_TIMEOUT_MS: an attempt's limit for the status line and headers, from the start of DNS and connect. */
  readonly timeoutMs: number;
  /** WEBHOOK_RETRY_SCHEDULE: the delays after the 1st, 2nd… failed attempt (before jitter). */
  readonly retrySchedule: readonly number[];
  /** WEBHOOK_RETENTION_DAYS: how long ended deliveries and their attempts are kept. */
  readonly retentionDays: number;
  /** WEBHOOK_ALLOW_HTTP: accept http:// endpoint URLs (default: https only). */
  readonly allowHttp: boolean;
  /** WEBHOOK_ALLOW_PRIVATE: accept endpoints whose host resolves to a private or special address. */
  readonly allowPrivate: boolean;
}

export interface RateLimitConfig {
  /** RATE_LIMIT_PER_SECOND: the sustained requests per second per principal (> 0). */
  readonly perSecond: number;
  /**
   * RATE_LIMIT_BURST: the requests a principal may make at once; a multiple of perSecond, default
   * 2 × perSecond. The window is burst / perSecond seconds (see rate-limit/rate-limiter.ts).
   */
  readonly burst: number;
  /**
   * RATE_LIMIT_STORE: where the counters live. Default: `redis` when REDIS_URL is set, else
   * `postgres` when DATABASE_URL is PostgreSQL (one budget for every instance and worker), else
   * `memory` (one process). `cluster`: the primary's memory, shared by the WORKERS of one instance.
   */
  readonly store: RateLimitStoreKind;
  /** REDIS_URL, when set. */
  readonly redisUrl: string | undefined;
}

export const RATE_LIMIT_STORES = ['memory', 'cluster', 'postgres', 'redis'] as const;
export type RateLimitStoreKind = (typeof RATE_LIMIT_STORES)[number];

/** A redis:// or rediss:// URL with a host (and, if any, a numeric database path). */
const isRedisUrl = (s: string): boolean => {
  const url = parseUrl(s);
  return (
    url !== undefined &&
    (url.protocol === 'redis:' || url.protocol === 'rediss:') &&
    url.hostname !== '' &&
    /^(?:\/[0-9]{0,2})?$/.test(url.pathname)
  );
};

export interface PostgresConfig {
  /** DATABASE_DIRECT_URL: the database itself when DATABASE_URL goes through a pooler; what needs a session uses it. */
  readonly directUrl?: string;
  readonly poolSize: number;
  readonly acquireTimeoutMs: number;
  readonly statementTimeoutMs: number;
  readonly tokenCacheMs: number;
}

export const MAX_WORKERS = 64;

/** The line start-up stops with when WORKERS > 1 names a SQLite store. */
export const SQLITE_WORKERS_PROBLEM =
  'WORKERS > 1 needs a postgres:// DATABASE_URL: a SQLite file has one writer at a time, and one process with group commit already keeps it busy';

/** What decodeConfig asks of the machine (injected by tests). */
export interface ConfigSystem {
  /** For WORKERS=auto; default os.availableParallelism(). */
  readonly availableParallelism: () => number;
}

export type AuthConfig =
  | {
      readonly mode: 'tokens';
      /**
       * PLANT_STORE_STATIC_TOKEN: a token accepted (both scopes) in addition to the store's; held in
       * memory only, never stored. Never PLANT_STORE_TOKEN: that is the client CLI's own token.
       */
      readonly seedToken: string | undefined;
    }
  | {
      readonly mode: 'jwt';
      readonly key: { readonly secret: string } | { readonly jwksUrl: string };
      readonly issuer: string;
      readonly audience: string;
      readonly algorithms: readonly string[];
    };

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = SERVER_TIMEOUTS.headersTimeoutMs;
export const DEFAULT_REQUEST_TIMEOUT_MS = SERVER_TIMEOUTS.requestTimeoutMs;

/**
 * A CORS_ORIGINS entry as a browser writes it in `Origin`: http or https, lower-case host, no
 * default port, no path, no trailing slash (`https://app.example.com`, `http://127.0.0.1:5173`).
 */
const isExactOrigin = (s: string): boolean => {
  const url = parseUrl(s);
  return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === s;
};

/** CHANGES_RETENTION's default: 7 days. */
export const DEFAULT_CHANGES_RETENTION_MS = 7 * 86_400_000;
const RETENTION_UNITS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `<integer><s|m|h|d>` from 1 s to 365 d, in ms; undefined otherwise. */
const parseRetention = (s: string): number | undefined => {
  const match = /^([1-9][0-9]{0,8})([smhd])$/.exec(s);
  if (match === null) return undefined;
  const ms = Number(match[1]) * (RETENTION_UNITS[match[2] as string] as number);
  return ms >= 1000 && ms <= 365 * 86_400_000 ? ms : undefined;
};

const hmacAlgorithms = ['HS256', 'HS384', 'HS512'] as const;
const asymmetricAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

const codecs = {
  HOST: hostName,
  PORT: port,
  DATABASE_URL: StoreLocationFromUrl,
  DATABASE_DIRECT_URL: fromString('a postgres:// or postgresql:// URL of the database itself (not of a pooler)', (s) =>
    /^postgres(ql)?:\/\//i.test(s.trim()) ? s.trim() : undefined,
  ),
  SQLITE_SYNCHRONOUS: oneOf(['FULL', 'NORMAL'], true),
  BODY_LIMIT_BYTES: integer(64, 16 * 1024 * 1024),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  SHUTDOWN_TIMEOUT_MS: integer(0, 600_000),
  WORKERS: fromString(`an integer from 1 to ${MAX_WORKERS} or auto`, (s) => {
    if (s.toLowerCase() === 'auto') return 'auto' as const;
    if (!/^[1-9][0-9]?$/.test(s)) return undefined;
    const n = Number(s);
    return n <= MAX_WORKERS ? n : undefined;
  }),
  RATE_LIMIT_PER_SECOND: integer(0, 1_000_000),
  RATE_LIMIT_BURST: integer(1, 10_000_000),
  METRICS_PORT: port,
  METRICS_HOST: hostName,
  RATE_LIMIT_STORE: oneOf(RATE_LIMIT_STORES),
  REDIS_URL: fromString('a redis:// or rediss:// URL (redis://host:6379, redis://:password@host:6379/0)', (s) =>
    isRedisUrl(s) ? s : undefined,
  ),
  CORS_ORIGINS: fromString(
    'a comma-separated list of exact origins as browsers send them (https://app.example.com, http://127.0.0.1:5173: no path, no trailing slash, no *)',
    (s) => {
      const origins = commaSeparated(s);
      return origins.every(isExactOrigin) ? [...new Set(origins)] : undefined;
    },
  ),
  PG_POOL_SIZE: integer(1, 1000),
  PG_ACQUIRE_TIMEOUT_MS: integer(1, 600_000),
  PG_STATEMENT_TIMEOUT_MS: integer(1, 3_600_000),
  PG_TOKEN_CACHE_MS: integer(0, 60_000),
  // Node checks both once a second (config/server-timeouts.ts), so less than a second would not be kept.
  HEADERS_TIMEOUT_MS: integer(1000, 600_000),
  REQUEST_TIMEOUT_MS: integer(1000, 3_600_000),
  // PostgreSQL takes the TTL as an int4 of seconds (68 years).
  IDEMPOTENCY_TTL_SECONDS: integer(1, 2 ** 31 - 1),
  WEBHOOK_TIMEOUT_MS: integer(1, 30_000),
  WEBHOOK_RETRY_SCHEDULE: fromString(
    '1–50 comma-separated delays of <integer><ms|s|m|h>, each from 1 ms to 24 h (5s,5m,30m)',
    parseRetrySchedule,
  ),
  WEBHOOK_RETENTION_DAYS: integer(1, 3650),
  CHANGES_HEARTBEAT_MS: integer(1000, 60_000),
  CHANGES_MAX_BUFFER_BYTES: integer(64 * 1024, 64 * 1024 * 1024),
  CHANGES_MAX_STREAMS: integer(1, 100_000),
  CHANGES_RETENTION: fromString('a duration <integer><s|m|h|d> from 1 s to 365 d (7d, 12h, 90m)', parseRetention),
  WEBHOOK_ALLOW_HTTP: boolean,
  WEBHOOK_ALLOW_PRIVATE: boolean,
  AUTH_MODE: oneOf(['tokens', 'jwt']),
  PLANT_STORE_STATIC_TOKEN: fromString(
    'a bearer token of 16–512 characters A–Z a–z 0–9 - . _ ~ + / (then optional =)',
    (s) => (s.length >= 16 && s.length <= 512 && isB64Token(s) ? s : undefined),
  ),
  JWT_SECRET: fromString('a shared secret of at least 32 characters', (s) => (s.length >= 32 ? s : undefined)),
  JWT_JWKS_URL: fromString('an http(s) URL of a JSON Web Key Set', (s) => {
    const url = parseUrl(s);
    return url !== undefined && (url.protocol === 'https:' || url.protocol === 'http:') ? s : undefined;
  }),
  JWT_ISSUER: nonEmpty('issuer'),
  JWT_AUDIENCE: nonEmpty('audience'),
  JWT_ALGORITHMS: fromString(
    `a comma-separated list of ${[...hmacAlgorithms, ...asymmetricAlgorithms].join(', ')} (never none)`,
    (s) => {
      const list = commaSeparated(s);
      const known: readonly string[] = [...hmacAlgorithms, ...asymmetricAlgorithms];
      return list.length > 0 && list.every((a) => known.includes(a)) ? list : undefined;
    },
  ),
} as const;

type Variable = keyof typeof codecs;
type Decoded = { [K in Variable]?: t.TypeOf<(typeof codecs)[K]> };

/**
 * Decodes the configuration from `env`. On failure the Left is ONE line naming every bad variable
 * and what it expects (secrets are never echoed back).
 */
export const decodeConfig = (
  env: Readonly<Record<string, string | undefined>>,
  system: ConfigSystem = { availableParallelism },
): E.Either<string, Config> => {
  const problems: string[] = [];
  const decoded: Decoded = decodeVariables(codecs, env, problems);
  const auth = decodeAuth(decoded, problems);
  const tracing = decodeTracing(env, problems);
  const storeLocation = decoded.DATABASE_URL ?? DEFAULT_STORE_LOCATION;
  const workers =
    decoded.WORKERS === 'auto'
      ? Math.max(1, Math.min(MAX_WORKERS, system.availableParallelism()))
      : (decoded.WORKERS ?? 1);
  const databaseUrlBad = decoded.DATABASE_URL === undefined && (env.DATABASE_URL ?? '') !== '';
  if (workers > 1 && !databaseUrlBad && storeLocation.kind !== 'postgres') problems.push(SQLITE_WORKERS_PROBLEM);
  if (decoded.DATABASE_DIRECT_URL !== undefined && !databaseUrlBad && storeLocation.kind !== 'postgres') {
    problems.push(
      'DATABASE_DIRECT_URL is set but DATABASE_URL is not PostgreSQL (unset it, or set a postgres:// DATABASE_URL)',
    );
  }
  const perSecond = decoded.RATE_LIMIT_PER_SECOND ?? 0;
  if (decoded.METRICS_PORT === undefined && decoded.METRICS_HOST !== undefined) {
    problems.push('METRICS_HOST set but metrics are off (set METRICS_PORT too, or unset it)');
  }
  const rateLimit = decodeRateLimit(decoded, perSecond, workers, databaseUrlBad ? undefined : storeLocation, problems);
  const headersTimeoutMs = decoded.HEADERS_TIMEOUT_MS ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeoutMs = decoded.REQUEST_TIMEOUT_MS ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const timeoutBad = (['HEADERS_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS'] as const).some(
    (name) => decoded[name] === undefined && (env[name] ?? '') !== '',
  );
  if (!timeoutBad && headersTimeoutMs > requestTimeoutMs) {
    problems.push(
      `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs}): the headers are part of the request`,
    );
  }
  if (problems.length > 0 || auth === undefined) return E.left(`invalid configuration: ${problems.join('; ')}`);
  return E.right({
    host: decoded.HOST ?? '127.0.0.1',
    port: decoded.PORT ?? 3000,
    storeLocation,
    sqliteSynchronous: decoded.SQLITE_SYNCHRONOUS ?? 'FULL',
    bodyLimitBytes: decoded.BODY_LIMIT_BYTES ?? DEFAULT_BODY_LIMIT_BYTES,
    idempotencyTtlSeconds: decoded.IDEMPOTENCY_TTL_SECONDS ?? DEFAULT_IDEMPOTENCY_TTL_SECONDS,
    logLevel: decoded.LOG_LEVEL ?? 'info',
    shutdownTimeoutMs: decoded.SHUTDOWN_TIMEOUT_MS ?? 10_000,
    auth,
    workers,
    rateLimit,
    postgres: {
      ...(decoded.DATABASE_DIRECT_URL === undefined ? {} : { directUrl: decoded.DATABASE_DIRECT_URL }),
      poolSize: decoded.PG_POOL_SIZE ?? 10,
      acquireTimeoutMs: decoded.PG_ACQUIRE_TIMEOUT_MS ?? 5000,
      statementTimeoutMs: decoded.PG_STATEMENT_TIMEOUT_MS ?? 10_000,
      tokenCacheMs: decoded.PG_TOKEN_CACHE_MS ?? 1000,
    },
    corsOrigins: decoded.CORS_ORIGINS ?? [],
    metrics:
      decoded.METRICS_PORT === undefined
        ? undefined
        : { host: decoded.METRICS_HOST ?? '127.0.0.1', port: decoded.METRICS_PORT },
    tracing,
    headersTimeoutMs,
    requestTimeoutMs,
    webhooks: {
      timeoutMs: decoded.WEBHOOK_TIMEOUT_MS ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
      retrySchedule: decoded.WEBHOOK_RETRY_SCHEDULE ?? DEFAULT_RETRY_SCHEDULE_MS,
      retentionDays: decoded.WEBHOOK_RETENTION_DAYS ?? 30,
      allowHttp: decoded.WEBHOOK_ALLOW_HTTP ?? false,
      allowPrivate: decoded.WEBHOOK_ALLOW_PRIVATE ?? false,
    },
    changesRetentionMs: decoded.CHANGES_RETENTION ?? DEFAULT_CHANGES_RETENTION_MS,
    changes: {
      heartbeatMs: decoded.CHANGES_HEARTBEAT_MS ?? DEFAULT_CHANGE_FEED.heartbeatMs,
      maxBufferBytes: decoded.CHANGES_MAX_BUFFER_BYTES ?? DEFAULT_CHANGE_FEED.maxBufferBytes,
      maxStreams: decoded.CHANGES_MAX_STREAMS ?? DEFAULT_CHANGE_FEED.maxStreams,
    },
  });
};

/**
 * The client CLI's variable (packages/client): the caller's OWN token, perhaps a read-only one. The
 * server never reads its value: a server started from a shell that exported it for the CLI must not
 * grant that token both scopes (nor skip the first-run token because of it).
 */
export const CLIENT_TOKEN_VARIABLE = 'PLANT_STORE_TOKEN';

/**
 * What start-up should warn about in `env` without refusing to start: one line each, naming
 * variables only, never a value.
 */
export const configWarnings = (env: Readonly<Record<string, string | undefined>>): string[] => [
  ...((env[CLIENT_TOKEN_VARIABLE] ?? '') === ''
    ? []
    : [
        `${CLIENT_TOKEN_VARIABLE} is set but the server ignores it: it is the client CLI's token; the server's extra token is PLANT_STORE_STATIC_TOKEN`,
      ]),
  ...tracingWarnings(env),
];

const decodeRateLimit = (
  d: Decoded,
  perSecond: number,
  workers: number,
  storeLocation: StoreLocation | undefined,
  problems: string[],
): RateLimitConfig | undefined => {
  if (perSecond === 0) {
    const stray = (['RATE_LIMIT_BURST', 'RATE_LIMIT_STORE'] as const).filter((name) => d[name] !== undefined);
    if (stray.length > 0)
      problems.push(`${stray.join(', ')} set but rate limiting is off (set RATE_LIMIT_PER_SECOND too, or unset them)`);
    return undefined;
  }
  const burst = d.RATE_LIMIT_BURST ?? 2 * perSecond;
  if (burst % perSecond !== 0) {
    problems.push(
      `RATE_LIMIT_BURST expects a multiple of RATE_LIMIT_PER_SECOND (${perSecond}), got ${burst}: the window it gives, burst / rate seconds, must be whole seconds`,
    );
  }
  const isPostgres = storeLocation?.kind === 'postgres';
  const store = d.RATE_LIMIT_STORE ?? (d.REDIS_URL !== undefined ? 'redis' : isPostgres ? 'postgres' : 'memory');
  if (store === 'redis' && d.REDIS_URL === undefined) problems.push('RATE_LIMIT_STORE=redis expects REDIS_URL');
  if (store === 'postgres' && storeLocation !== undefined && !isPostgres)
    problems.push('RATE_LIMIT_STORE=postgres expects a postgres:// DATABASE_URL');
  if (store === 'cluster' && workers === 1)
    problems.push('RATE_LIMIT_STORE=cluster expects WORKERS > 1 (one process keeps its counters in memory)');
  if (store === 'memory' && workers > 1) {
    problems.push(
      'RATE_LIMIT_STORE=memory with WORKERS > 1 would give each worker its own budget; use cluster, postgres or redis',
    );
  }
  return { perSecond, burst, store, redisUrl: d.REDIS_URL };
};

const jwtVariables = ['JWT_SECRET', 'JWT_JWKS_URL', 'JWT_ISSUER', 'JWT_AUDIENCE', 'JWT_ALGORITHMS'] as const;

const decodeAuth = (d: Decoded, problems: string[]): AuthConfig | undefined => {
  if (d.AUTH_MODE !== 'jwt') {
    const stray = jwtVariables.filter((name) => d[name] !== undefined);
    if (stray.length > 0)
      problems.push(`${stray.join(', ')} set but AUTH_MODE is not jwt (set AUTH_MODE=jwt or unset them)`);
    return { mode: 'tokens', seedToken: d.PLANT_STORE_STATIC_TOKEN };
  }
  if (d.PLANT_STORE_STATIC_TOKEN !== undefined)
    problems.push('PLANT_STORE_STATIC_TOKEN is only used with AUTH_MODE=tokens');
  if ((d.JWT_SECRET === undefined) === (d.JWT_JWKS_URL === undefined)) {
    problems.push('AUTH_MODE=jwt expects exactly one of JWT_SECRET and JWT_JWKS_URL');
  }
  if (d.JWT_ISSUER === undefined) problems.push('JWT_ISSUER expects the issuer (iss) that tokens must carry');
  if (d.JWT_AUDIENCE === undefined) problems.push('JWT_AUDIENCE expects the audience (aud) that tokens must carry');
  const usable: readonly string[] = d.JWT_SECRET !== undefined ? hmacAlgorithms : asymmetricAlgorithms;
  const algorithms = d.JWT_ALGORITHMS ?? (d.JWT_SECRET !== undefined ? ['HS256'] : ['RS256']);
  const unusable = algorithms.filter((a) => !usable.includes(a));
  if (unusable.length > 0) {
    problems.push(
      `JWT_ALGORITHMS expects ${d.JWT_SECRET !== undefined ? 'HMAC algorithms with JWT_SECRET' : 'asymmetric algorithms with JWT_JWKS_URL'}, got ${unusable.join(', ')}`,
    );
  }
  if (d.JWT_ISSUER === undefined || d.JWT_AUDIENCE === undefined) return undefined;
  const key =
    d.JWT_SECRET !== undefined
      ? { secret: d.JWT_SECRET }
      : d.JWT_JWKS_URL !== undefined
        ? { jwksUrl: d.JWT_JWKS_URL }
        : undefined;
  if (key === undefined) return undefined;
  return { mode: 'jwt', key, issuer: d.JWT_ISSUER, audience: d.JWT_AUDIENCE, algorithms };
};
