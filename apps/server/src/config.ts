import { DEFAULT_IDEMPOTENCY_TTL_SECONDS } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { availableParallelism } from 'node:os';
import type * as t from 'io-ts';
import type { Level } from 'pino';
import { authVariables, decodeAuth, type AuthConfig } from './config/auth.js';
import {
  boolean,
  commaSeparated,
  decodeVariables,
  fromString,
  hostName,
  integer,
  oneOf,
  parseUrl,
  port,
} from './config/env-codecs.js';
import { decodeRateLimit, rateLimitVariables, type RateLimitConfig } from './config/rate-limit.js';
import { SERVER_TIMEOUTS } from './config/server-timeouts.js';
import { DEFAULT_STORE_LOCATION, StoreLocationFromUrl, type StoreLocation } from './config/store-location.js';
import { decodeTracing, tracingWarnings, type TracingConfig } from './config/tracing.js';
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
  /** BULK_BODY_LIMIT_BYTES: the largest body of POST /plants/batch, in bytes as sent. */
  readonly bulkBodyLimitBytes: number;
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

/** BULK_BODY_LIMIT_BYTES's default: 4 MiB, enough for a thousand of the longest plants, escaped. */
export const DEFAULT_BULK_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

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

/**
 * Every variable the server reads, with its codec. The one-line error names bad variables in this
 * order; auth and rate limiting bring their own codecs (config/auth.ts, config/rate-limit.ts).
 */
const codecs = {
  HOST: hostName,
  PORT: port,
  DATABASE_URL: StoreLocationFromUrl,
  DATABASE_DIRECT_URL: fromString('a postgres:// or postgresql:// URL of the database itself (not of a pooler)', (s) =>
    /^postgres(ql)?:\/\//i.test(s.trim()) ? s.trim() : undefined,
  ),
  SQLITE_SYNCHRONOUS: oneOf(['FULL', 'NORMAL'], true),
  BODY_LIMIT_BYTES: integer(64, 16 * 1024 * 1024),
  BULK_BODY_LIMIT_BYTES: integer(64 * 1024, 16 * 1024 * 1024),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  SHUTDOWN_TIMEOUT_MS: integer(0, 600_000),
  WORKERS: fromString(`an integer from 1 to ${MAX_WORKERS} or auto`, (s) => {
    if (s.toLowerCase() === 'auto') return 'auto' as const;
    if (!/^[1-9][0-9]?$/.test(s)) return undefined;
    const n = Number(s);
    return n <= MAX_WORKERS ? n : undefined;
  }),
  RATE_LIMIT_PER_SECOND: rateLimitVariables.RATE_LIMIT_PER_SECOND,
  RATE_LIMIT_BURST: rateLimitVariables.RATE_LIMIT_BURST,
  METRICS_PORT: port,
  METRICS_HOST: hostName,
  RATE_LIMIT_STORE: rateLimitVariables.RATE_LIMIT_STORE,
  REDIS_URL: rateLimitVariables.REDIS_URL,
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
  ...authVariables,
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
  if (decoded.METRICS_PORT === undefined && decoded.METRICS_HOST !== undefined) {
    problems.push('METRICS_HOST set but metrics are off (set METRICS_PORT too, or unset it)');
  }
  const rateLimit = decodeRateLimit(decoded, workers, databaseUrlBad ? undefined : storeLocation, problems);
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
    bulkBodyLimitBytes: decoded.BULK_BODY_LIMIT_BYTES ?? DEFAULT_BULK_BODY_LIMIT_BYTES,
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
