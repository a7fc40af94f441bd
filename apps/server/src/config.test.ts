import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { configWarnings, decodeConfig, SQLITE_WORKERS_PROBLEM } from './config.js';

const secret = 'x'.repeat(32);

describe('decodeConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    expect(decodeConfig({})).toEqual(
      E.right({
        host: '127.0.0.1',
        port: 3000,
        storeLocation: { kind: 'sqlite', file: './data/plant-store.db' },
        sqliteSynchronous: 'FULL',
        bodyLimitBytes: 16384,
        bulkBodyLimitBytes: 4194304,
        logLevel: 'info',
        shutdownTimeoutMs: 10000,
        auth: { mode: 'tokens', seedToken: undefined },
        workers: 1,
        rateLimit: undefined,
        postgres: { poolSize: 10, acquireTimeoutMs: 5000, statementTimeoutMs: 10000, tokenCacheMs: 1000 },
        corsOrigins: [],
        metrics: undefined,
        headersTimeoutMs: 10000,
        requestTimeoutMs: 30000,
        idempotencyTtlSeconds: 86400,
        webhooks: {
          timeoutMs: 15000,
          retrySchedule: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
          retentionDays: 30,
          allowHttp: false,
          allowPrivate: false,
        },
        changesRetentionMs: 7 * 86_400_000,
        changes: { heartbeatMs: 15_000, maxBufferBytes: 1_048_576, maxStreams: 10_000 },
      }),
    );
  });

  it('treats an empty value as unset', () => {
    expect(decodeConfig({ PORT: '', HOST: '' })).toMatchObject({ right: { port: 3000, host: '127.0.0.1' } });
  });

  it('decodes every variable', () => {
    const result = decodeConfig({
      HOST: '0.0.0.0',
      PORT: '0',
      DATABASE_URL: 'postgres://app@db:5432/plants',
      SQLITE_SYNCHRONOUS: 'normal',
      BODY_LIMIT_BYTES: '1024',
      BULK_BODY_LIMIT_BYTES: '65536',
      LOG_LEVEL: 'debug',
      SHUTDOWN_TIMEOUT_MS: '2500',
      PLANT_STORE_STATIC_TOKEN: 'pst_0123456789abcdef',
      WORKERS: '4',
      RATE_LIMIT_PER_SECOND: '50',
      RATE_LIMIT_BURST: '150',
      RATE_LIMIT_STORE: 'cluster',
      REDIS_URL: 'redis://cache:6379/2',
      PG_POOL_SIZE: '20',
      PG_ACQUIRE_TIMEOUT_MS: '1500',
      PG_STATEMENT_TIMEOUT_MS: '30000',
      PG_TOKEN_CACHE_MS: '250',
      HEADERS_TIMEOUT_MS: '2000',
      REQUEST_TIMEOUT_MS: '4000',
      CORS_ORIGINS: 'https://app.example.com, http://127.0.0.1:5173',
      METRICS_PORT: '9464',
      METRICS_HOST: '0.0.0.0',
      IDEMPOTENCY_TTL_SECONDS: '600',
      WEBHOOK_TIMEOUT_MS: '2500',
      WEBHOOK_RETRY_SCHEDULE: '500ms, 2s,1m,1h',
      WEBHOOK_RETENTION_DAYS: '7',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'false',
      CHANGES_RETENTION: '36h',
      CHANGES_HEARTBEAT_MS: '2000',
      CHANGES_MAX_BUFFER_BYTES: '65536',
      CHANGES_MAX_STREAMS: '3',
    });
    expect(result).toEqual(
      E.right({
        host: '0.0.0.0',
        port: 0,
        storeLocation: { kind: 'postgres', url: 'postgres://app@db:5432/plants' },
        sqliteSynchronous: 'NORMAL',
        bodyLimitBytes: 1024,
        bulkBodyLimitBytes: 65536,
        logLevel: 'debug',
        shutdownTimeoutMs: 2500,
        auth: { mode: 'tokens', seedToken: 'pst_0123456789abcdef' },
        workers: 4,
        rateLimit: { perSecond: 50, burst: 150, store: 'cluster', redisUrl: 'redis://cache:6379/2' },
        postgres: { poolSize: 20, acquireTimeoutMs: 1500, statementTimeoutMs: 30000, tokenCacheMs: 250 },
        corsOrigins: ['https://app.example.com', 'http://127.0.0.1:5173'],
        metrics: { host: '0.0.0.0', port: 9464 },
        headersTimeoutMs: 2000,
        requestTimeoutMs: 4000,
        idempotencyTtlSeconds: 600,
        webhooks: {
          timeoutMs: 2500,
          retrySchedule: [500, 2000, 60_000, 3_600_000],
          retentionDays: 7,
          allowHttp: true,
          allowPrivate: false,
        },
        changesRetentionMs: 36 * 3_600_000,
        changes: { heartbeatMs: 2000, maxBufferBytes: 65_536, maxStreams: 3 },
      }),
    );
  });

  it.each([
    [{ PORT: '65536' }, 'PORT expects an integer from 0 to 65535'],
    [{ METRICS_PORT: 'on' }, 'METRICS_PORT expects an integer from 0 to 65535'],
    [{ METRICS_HOST: '127.0.0.1' }, 'METRICS_HOST set but metrics are off (set METRICS_PORT too, or unset it)'],
    [
      { CORS_ORIGINS: '*' },
      'CORS_ORIGINS expects a comma-separated list of exact origins as browsers send them (https://app.example.com, http://127.0.0.1:5173: no path, no trailing slash, no *)',
    ],
    [
      { CORS_ORIGINS: 'https://app.example.com/' },
      'CORS_ORIGINS expects a comma-separated list of exact origins as browsers send them (https://app.example.com, http://127.0.0.1:5173: no path, no trailing slash, no *)',
    ],
    [
      { CORS_ORIGINS: 'https://App.example.com' },
      'CORS_ORIGINS expects a comma-separated list of exact origins as browsers send them (https://app.example.com, http://127.0.0.1:5173: no path, no trailing slash, no *)',
    ],
    [
      { CORS_ORIGINS: 'https://app.example.com:443' },
      'CORS_ORIGINS expects a comma-separated list of exact origins as browsers send them (https://app.example.com, http://127.0.0.1:5173: no path, no trailing slash, no *)',
    ],
    [
      { CORS_ORIGINS: 'ftp://files.example.com' },
      'CORS_ORIGINS expects a comma-separated list of exact origins as browsers send them (https://app.example.com, http://127.0.0.1:5173: no path, no trailing slash, no *)',
    ],
    [
      { CORS_ORIGINS: 'https://a.example, ' },
      'CORS_ORIGINS expects a comma-separated list of exact origins as browsers send them (https://app.example.com, http://127.0.0.1:5173: no path, no trailing slash, no *)',
    ],
    [
      { CORS_ORIGINS: 'app.example.com' },
      'CORS_ORIGINS expects a comma-separated list of exact origins as browsers send them (https://app.example.com, http://127.0.0.1:5173: no path, no trailing slash, no *)',
    ],
    [{ PORT: '3000.5' }, 'PORT expects an integer from 0 to 65535'],
    [{ IDEMPOTENCY_TTL_SECONDS: '0' }, 'IDEMPOTENCY_TTL_SECONDS expects an integer from 1 to 2147483647'],
    [{ WEBHOOK_TIMEOUT_MS: '0' }, 'WEBHOOK_TIMEOUT_MS expects an integer from 1 to 30000'],
    [{ CHANGES_HEARTBEAT_MS: '999' }, 'CHANGES_HEARTBEAT_MS expects an integer from 1000 to 60000'],
    [{ CHANGES_MAX_BUFFER_BYTES: '65535' }, 'CHANGES_MAX_BUFFER_BYTES expects an integer from 65536 to 67108864'],
    [{ CHANGES_MAX_STREAMS: '100001' }, 'CHANGES_MAX_STREAMS expects an integer from 1 to 100000'],
    [{ WEBHOOK_TIMEOUT_MS: '30001' }, 'WEBHOOK_TIMEOUT_MS expects an integer from 1 to 30000'],
    [
      { WEBHOOK_RETRY_SCHEDULE: '5s,25h' },
      'WEBHOOK_RETRY_SCHEDULE expects 1–50 comma-separated delays of <integer><ms|s|m|h>, each from 1 ms to 24 h (5s,5m,30m)',
    ],
    [
      { WEBHOOK_RETRY_SCHEDULE: '5 s' },
      'WEBHOOK_RETRY_SCHEDULE expects 1–50 comma-separated delays of <integer><ms|s|m|h>, each from 1 ms to 24 h (5s,5m,30m)',
    ],
    [{ WEBHOOK_RETENTION_DAYS: '0' }, 'WEBHOOK_RETENTION_DAYS expects an integer from 1 to 3650'],
    [
      { CHANGES_RETENTION: '0s' },
      'CHANGES_RETENTION expects a duration <integer><s|m|h|d> from 1 s to 365 d (7d, 12h, 90m)',
    ],
    [
      { CHANGES_RETENTION: '366d' },
      'CHANGES_RETENTION expects a duration <integer><s|m|h|d> from 1 s to 365 d (7d, 12h, 90m)',
    ],
    [
      { CHANGES_RETENTION: '7' },
      'CHANGES_RETENTION expects a duration <integer><s|m|h|d> from 1 s to 365 d (7d, 12h, 90m)',
    ],
    [
      { CHANGES_RETENTION: '1.5h' },
      'CHANGES_RETENTION expects a duration <integer><s|m|h|d> from 1 s to 365 d (7d, 12h, 90m)',
    ],
    [
      { CHANGES_RETENTION: '7 d' },
      'CHANGES_RETENTION expects a duration <integer><s|m|h|d> from 1 s to 365 d (7d, 12h, 90m)',
    ],
    [
      { CHANGES_RETENTION: '1w' },
      'CHANGES_RETENTION expects a duration <integer><s|m|h|d> from 1 s to 365 d (7d, 12h, 90m)',
    ],
    [{ WEBHOOK_ALLOW_HTTP: 'yes' }, 'WEBHOOK_ALLOW_HTTP expects true or false'],
    [{ WEBHOOK_ALLOW_PRIVATE: 'TRUE' }, 'WEBHOOK_ALLOW_PRIVATE expects true or false'],
    [{ IDEMPOTENCY_TTL_SECONDS: '1.5' }, 'IDEMPOTENCY_TTL_SECONDS expects an integer from 1 to 2147483647'],
    [{ IDEMPOTENCY_TTL_SECONDS: '1d' }, 'IDEMPOTENCY_TTL_SECONDS expects an integer from 1 to 2147483647'],
    [{ PORT: '08080' }, 'PORT expects an integer from 0 to 65535'],
    [{ HOST: 'local host' }, 'HOST expects a host name or IP address without spaces'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL expects sqlite:<file>, sqlite::memory:, a file path or postgres://…'],
    [{ SQLITE_SYNCHRONOUS: 'OFF' }, 'SQLITE_SYNCHRONOUS expects one of FULL, NORMAL'],
    [{ BODY_LIMIT_BYTES: '16KiB' }, 'BODY_LIMIT_BYTES expects an integer from 64 to 16777216'],
    [{ BULK_BODY_LIMIT_BYTES: '65535' }, 'BULK_BODY_LIMIT_BYTES expects an integer from 65536 to 16777216'],
    [{ BULK_BODY_LIMIT_BYTES: '16777217' }, 'BULK_BODY_LIMIT_BYTES expects an integer from 65536 to 16777216'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL expects one of fatal, error, warn, info, debug, trace, silent'],
    [{ SHUTDOWN_TIMEOUT_MS: '-1' }, 'SHUTDOWN_TIMEOUT_MS expects an integer from 0 to 600000'],
    [{ WORKERS: '0' }, 'WORKERS expects an integer from 1 to 64 or auto'],
    [{ WORKERS: '65', DATABASE_URL: 'postgres://db/x' }, 'WORKERS expects an integer from 1 to 64 or auto'],
    [{ WORKERS: '02', DATABASE_URL: 'postgres://db/x' }, 'WORKERS expects an integer from 1 to 64 or auto'],
    [{ WORKERS: 'all' }, 'WORKERS expects an integer from 1 to 64 or auto'],
    [{ WORKERS: '2' }, SQLITE_WORKERS_PROBLEM],
    [{ WORKERS: '2', DATABASE_URL: 'sqlite::memory:' }, SQLITE_WORKERS_PROBLEM],
    [{ WORKERS: '64', DATABASE_URL: '/var/lib/plants.db' }, SQLITE_WORKERS_PROBLEM],
    [{ RATE_LIMIT_PER_SECOND: '-1' }, 'RATE_LIMIT_PER_SECOND expects an integer from 0 to 1000000'],
    [{ RATE_LIMIT_PER_SECOND: '1.5' }, 'RATE_LIMIT_PER_SECOND expects an integer from 0 to 1000000'],
    [{ RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '0' }, 'RATE_LIMIT_BURST expects an integer from 1 to 10000000'],
    [{ RATE_LIMIT_BURST: '5' }, 'RATE_LIMIT_BURST set but rate limiting is off'],
    [{ RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_BURST: '5' }, 'RATE_LIMIT_BURST set but rate limiting is off'],
    [{ RATE_LIMIT_STORE: 'memory' }, 'RATE_LIMIT_STORE set but rate limiting is off'],
    [
      { RATE_LIMIT_PER_SECOND: '10', RATE_LIMIT_BURST: '15' },
      'RATE_LIMIT_BURST expects a multiple of RATE_LIMIT_PER_SECOND (10), got 15',
    ],
    [
      { RATE_LIMIT_PER_SECOND: '100', RATE_LIMIT_BURST: '1' },
      'RATE_LIMIT_BURST expects a multiple of RATE_LIMIT_PER_SECOND',
    ],
    [
      { RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_STORE: 'etcd' },
      'RATE_LIMIT_STORE expects one of memory, cluster, postgres, redis',
    ],
    [{ RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_STORE: 'redis' }, 'RATE_LIMIT_STORE=redis expects REDIS_URL'],
    [
      { RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_STORE: 'postgres' },
      'RATE_LIMIT_STORE=postgres expects a postgres:// DATABASE_URL',
    ],
    [{ RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_STORE: 'cluster' }, 'RATE_LIMIT_STORE=cluster expects WORKERS > 1'],
    [
      { RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_STORE: 'memory', WORKERS: '2', DATABASE_URL: 'postgres://db/x' },
      'RATE_LIMIT_STORE=memory with WORKERS > 1',
    ],
    [{ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL expects a redis:// or rediss:// URL'],
    [{ REDIS_URL: 'redis://' }, 'REDIS_URL expects a redis:// or rediss:// URL'],
    [{ REDIS_URL: 'cache:6379' }, 'REDIS_URL expects a redis:// or rediss:// URL'],
    [{ REDIS_URL: 'redis://cache:6379/db' }, 'REDIS_URL expects a redis:// or rediss:// URL'],
    [{ PG_POOL_SIZE: '0' }, 'PG_POOL_SIZE expects an integer from 1 to 1000'],
    [{ PG_POOL_SIZE: '1001' }, 'PG_POOL_SIZE expects an integer from 1 to 1000'],
    [{ PG_ACQUIRE_TIMEOUT_MS: '0' }, 'PG_ACQUIRE_TIMEOUT_MS expects an integer from 1 to 600000'],
    [{ PG_ACQUIRE_TIMEOUT_MS: '5s' }, 'PG_ACQUIRE_TIMEOUT_MS expects an integer from 1 to 600000'],
    [{ PG_STATEMENT_TIMEOUT_MS: '3600001' }, 'PG_STATEMENT_TIMEOUT_MS expects an integer from 1 to 3600000'],
    [{ PG_STATEMENT_TIMEOUT_MS: 'x' }, 'PG_STATEMENT_TIMEOUT_MS expects an integer from 1 to 3600000'],
    [{ PG_TOKEN_CACHE_MS: '60001' }, 'PG_TOKEN_CACHE_MS expects an integer from 0 to 60000'],
    [{ AUTH_MODE: 'oauth' }, 'AUTH_MODE expects one of tokens, jwt'],
    [{ PLANT_STORE_STATIC_TOKEN: 'short' }, 'PLANT_STORE_STATIC_TOKEN expects a bearer token of 16–512 characters'],
    [{ PLANT_STORE_STATIC_TOKEN: 'has spaces in it, oh no' }, 'PLANT_STORE_STATIC_TOKEN expects a bearer token'],
    [
      {
        AUTH_MODE: 'jwt',
        JWT_SECRET: secret,
        JWT_ISSUER: 'i',
        JWT_AUDIENCE: 'a',
        PLANT_STORE_STATIC_TOKEN: 'pst_0123456789abcdef',
      },
      'PLANT_STORE_STATIC_TOKEN is only used with AUTH_MODE=tokens',
    ],
    [{ JWT_SECRET: secret }, 'JWT_SECRET set but AUTH_MODE is not jwt'],
    [
      { AUTH_MODE: 'jwt', JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' },
      'AUTH_MODE=jwt expects exactly one of JWT_SECRET and JWT_JWKS_URL',
    ],
    [
      { AUTH_MODE: 'jwt', JWT_SECRET: secret, JWT_JWKS_URL: 'https://idp/jwks', JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' },
      'exactly one of',
    ],
    [{ AUTH_MODE: 'jwt', JWT_SECRET: secret, JWT_AUDIENCE: 'a' }, 'JWT_ISSUER expects'],
    [{ AUTH_MODE: 'jwt', JWT_SECRET: secret, JWT_ISSUER: 'i' }, 'JWT_AUDIENCE expects'],
    [
      { AUTH_MODE: 'jwt', JWT_SECRET: 'too short', JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' },
      'JWT_SECRET expects a shared secret of at least 32 characters',
    ],
    [
      { AUTH_MODE: 'jwt', JWT_SECRET: secret, JWT_ISSUER: 'i', JWT_AUDIENCE: 'a', JWT_ALGORITHMS: 'none' },
      'JWT_ALGORITHMS expects',
    ],
    [
      { AUTH_MODE: 'jwt', JWT_SECRET: secret, JWT_ISSUER: 'i', JWT_AUDIENCE: 'a', JWT_ALGORITHMS: 'RS256' },
      'JWT_ALGORITHMS expects HMAC algorithms with JWT_SECRET',
    ],
    [
      { AUTH_MODE: 'jwt', JWT_JWKS_URL: 'ftp://idp/jwks', JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' },
      'JWT_JWKS_URL expects an http(s) URL',
    ],
  ])('rejects %j with one line naming the variable', (env, message) => {
    const result = decodeConfig(env);
    expect(E.isLeft(result)).toBe(true);
    const line = E.isLeft(result) ? result.left : '';
    expect(line).toContain(message);
    expect(line).not.toContain('\n');
  });

  it('never echoes a secret value in the error line', () => {
    const result = decodeConfig({
      AUTH_MODE: 'jwt',
      JWT_SECRET: 'sekrit-but-short',
      PLANT_STORE_STATIC_TOKEN: 'pst_abcdefghijklmnop',
    });
    const line = E.isLeft(result) ? result.left : '';
    expect(line).not.toContain('sekrit-but-short');
    expect(line).not.toContain('pst_abcdefghijklmnop');
  });

  it("ignores PLANT_STORE_TOKEN, the client CLI's own token: never a server token, in either auth mode", () => {
    const clientToken = 'pst_clients_own_read_only_token';
    expect(decodeConfig({ PLANT_STORE_TOKEN: clientToken })).toMatchObject({
      right: { auth: { mode: 'tokens', seedToken: undefined } },
    });
    expect(
      decodeConfig({ PLANT_STORE_TOKEN: clientToken, PLANT_STORE_STATIC_TOKEN: 'pst_0123456789abcdef' }),
    ).toMatchObject({
      right: { auth: { mode: 'tokens', seedToken: 'pst_0123456789abcdef' } },
    });
    expect(
      E.isRight(
        decodeConfig({
          PLANT_STORE_TOKEN: clientToken,
          AUTH_MODE: 'jwt',
          JWT_SECRET: secret,
          JWT_ISSUER: 'i',
          JWT_AUDIENCE: 'a',
        }),
      ),
    ).toBe(true);
    // Not even validated: a value of any shape is the client's business.
    expect(E.isRight(decodeConfig({ PLANT_STORE_TOKEN: 'short' }))).toBe(true);
  });

  it('warns (one line, no value) when PLANT_STORE_TOKEN is set, and only then', () => {
    const clientToken = 'pst_clients_own_read_only_token';
    const warnings = configWarnings({ PLANT_STORE_TOKEN: clientToken });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^PLANT_STORE_TOKEN is set but the server ignores it.*PLANT_STORE_STATIC_TOKEN/);
    expect(warnings[0]).not.toContain(clientToken);
    expect(configWarnings({})).toEqual([]);
    expect(configWarnings({ PLANT_STORE_TOKEN: '' })).toEqual([]);
    expect(configWarnings({ PLANT_STORE_STATIC_TOKEN: 'pst_0123456789abcdef' })).toEqual([]);
  });

  it('names every bad variable on the one line', () => {
    const result = decodeConfig({ PORT: 'x', LOG_LEVEL: 'y' });
    expect(E.isLeft(result) && result.left.includes('PORT') && result.left.includes('LOG_LEVEL')).toBe(true);
  });

  it('decodes JWT settings with an HS256 secret (default algorithms HS256) or a JWKS URL (default RS256)', () => {
    expect(
      decodeConfig({ AUTH_MODE: 'jwt', JWT_SECRET: secret, JWT_ISSUER: 'https://idp', JWT_AUDIENCE: 'plant-store' }),
    ).toMatchObject({
      right: {
        auth: { mode: 'jwt', key: { secret }, issuer: 'https://idp', audience: 'plant-store', algorithms: ['HS256'] },
      },
    });
    expect(
      decodeConfig({
        AUTH_MODE: 'jwt',
        JWT_JWKS_URL: 'https://idp/jwks.json',
        JWT_ISSUER: 'https://idp',
        JWT_AUDIENCE: 'p',
        JWT_ALGORITHMS: 'ES256, RS256',
      }),
    ).toMatchObject({
      right: { auth: { mode: 'jwt', key: { jwksUrl: 'https://idp/jwks.json' }, algorithms: ['ES256', 'RS256'] } },
    });
  });

  it('decodes WORKERS: 1 by default, 1…64 with PostgreSQL, auto as the available parallelism (capped at 64)', () => {
    const pg = 'postgres://app@db:5432/plants';
    expect(decodeConfig({ DATABASE_URL: pg })).toMatchObject({ right: { workers: 1 } });
    expect(decodeConfig({ DATABASE_URL: pg, WORKERS: '64' })).toMatchObject({ right: { workers: 64 } });
    expect(decodeConfig({ DATABASE_URL: pg, WORKERS: 'auto' }, { availableParallelism: () => 6 })).toMatchObject({
      right: { workers: 6 },
    });
    expect(decodeConfig({ DATABASE_URL: pg, WORKERS: 'AUTO' }, { availableParallelism: () => 200 })).toMatchObject({
      right: { workers: 64 },
    });
    // SQLite: WORKERS=1 is fine, and so is auto on a one-core machine (it means one process)
    expect(decodeConfig({ WORKERS: '1' })).toMatchObject({ right: { workers: 1 } });
    expect(decodeConfig({ WORKERS: 'auto' }, { availableParallelism: () => 1 })).toMatchObject({
      right: { workers: 1 },
    });
    expect(decodeConfig({ WORKERS: 'auto' }, { availableParallelism: () => 4 })).toEqual(
      E.left(`invalid configuration: ${SQLITE_WORKERS_PROBLEM}`),
    );
  });

  it('takes DATABASE_DIRECT_URL beside a PostgreSQL DATABASE_URL only', () => {
    const pg = 'postgres://app@pooler:6432/plants';
    const direct = 'postgres://app@db:5432/plants?sslmode=require';
    const alone = decodeConfig({ DATABASE_URL: pg });
    expect(E.isRight(alone) && alone.right.postgres).not.toHaveProperty('directUrl');
    expect(decodeConfig({ DATABASE_URL: pg, DATABASE_DIRECT_URL: direct })).toMatchObject({
      right: { postgres: { directUrl: direct } },
    });
    const sqlite = decodeConfig({ DATABASE_DIRECT_URL: direct });
    expect(E.isLeft(sqlite) && sqlite.left).toContain('DATABASE_DIRECT_URL is set but DATABASE_URL is not PostgreSQL');
    const bad = decodeConfig({ DATABASE_URL: pg, DATABASE_DIRECT_URL: 'mysql://db/plants' });
    expect(E.isLeft(bad) && bad.left).toContain('DATABASE_DIRECT_URL expects a postgres://');
  });

  it('names only the bad DATABASE_URL, not WORKERS, when the URL itself is wrong', () => {
    const result = decodeConfig({ WORKERS: '2', DATABASE_URL: 'mysql://x' });
    expect(E.isLeft(result) && result.left).toContain('DATABASE_URL expects');
    expect(E.isLeft(result) && result.left).not.toContain('WORKERS');
  });

  it('turns rate limiting on with RATE_LIMIT_PER_SECOND; the burst defaults to 2 × rate', () => {
    expect(decodeConfig({ RATE_LIMIT_PER_SECOND: '0' })).toMatchObject({ right: { rateLimit: undefined } });
    expect(decodeConfig({ RATE_LIMIT_PER_SECOND: '1' })).toMatchObject({
      right: { rateLimit: { perSecond: 1, burst: 2 } },
    });
    expect(decodeConfig({ RATE_LIMIT_PER_SECOND: '100' })).toMatchObject({
      right: { rateLimit: { perSecond: 100, burst: 200 } },
    });
    expect(decodeConfig({ RATE_LIMIT_PER_SECOND: '100', RATE_LIMIT_BURST: '100' })).toMatchObject({
      right: { rateLimit: { perSecond: 100, burst: 100 } },
    });
    expect(decodeConfig({ RATE_LIMIT_PER_SECOND: '10', RATE_LIMIT_BURST: '600' })).toMatchObject({
      right: { rateLimit: { perSecond: 10, burst: 600 } },
    });
  });

  it('picks the rate limiter store: Redis when REDIS_URL is set, else PostgreSQL with a postgres:// DATABASE_URL, else memory', () => {
    const store = (env: Record<string, string>) => {
      const result = decodeConfig({ RATE_LIMIT_PER_SECOND: '5', ...env });
      return E.isRight(result) ? result.right.rateLimit?.store : result.left;
    };
    expect(store({})).toBe('memory');
    expect(store({ DATABASE_URL: 'postgres://db/x' })).toBe('postgres');
    expect(store({ DATABASE_URL: 'postgres://db/x', WORKERS: '4' })).toBe('postgres');
    expect(store({ DATABASE_URL: 'postgres://db/x', REDIS_URL: 'redis://cache:6379' })).toBe('redis');
    expect(store({ REDIS_URL: 'rediss://:pw@cache.example:6380/1' })).toBe('redis');
    expect(store({ DATABASE_URL: 'postgres://db/x', WORKERS: '4', RATE_LIMIT_STORE: 'cluster' })).toBe('cluster');
    expect(store({ DATABASE_URL: 'postgres://db/x', RATE_LIMIT_STORE: 'memory' })).toBe('memory');
  });

  it('never echoes REDIS_URL, which may hold a password', () => {
    const result = decodeConfig({ REDIS_URL: 'http://:hunter2@cache:6379' });
    expect(E.isLeft(result) && result.left).toContain('REDIS_URL');
    expect(E.isLeft(result) && result.left).not.toContain('hunter2');
  });

  it.each([
    ['PG_POOL_SIZE', '1', { poolSize: 1 }],
    ['PG_POOL_SIZE', '1000', { poolSize: 1000 }],
    ['PG_ACQUIRE_TIMEOUT_MS', '1', { acquireTimeoutMs: 1 }],
    ['PG_ACQUIRE_TIMEOUT_MS', '600000', { acquireTimeoutMs: 600000 }],
    ['PG_STATEMENT_TIMEOUT_MS', '1', { statementTimeoutMs: 1 }],
    ['PG_STATEMENT_TIMEOUT_MS', '3600000', { statementTimeoutMs: 3600000 }],
    ['PG_TOKEN_CACHE_MS', '0', { tokenCacheMs: 0 }],
    ['PG_TOKEN_CACHE_MS', '60000', { tokenCacheMs: 60000 }],
  ])('decodes %s=%s, leaving the other PostgreSQL knobs at their defaults', (name, value, expected) => {
    const defaults = { poolSize: 10, acquireTimeoutMs: 5000, statementTimeoutMs: 10000, tokenCacheMs: 1000 };
    expect(decodeConfig({ [name]: value })).toMatchObject({ right: { postgres: { ...defaults, ...expected } } });
  });

  it.each([
    [{ HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '1000' }, 1000, 1000],
    [{ HEADERS_TIMEOUT_MS: '600000', REQUEST_TIMEOUT_MS: '3600000' }, 600000, 3600000],
    [{ HEADERS_TIMEOUT_MS: '20000' }, 20000, 30000],
    [{ REQUEST_TIMEOUT_MS: '10000' }, 10000, 10000],
  ])('decodes the request timeouts %j', (env, headersTimeoutMs, requestTimeoutMs) => {
    expect(decodeConfig(env)).toMatchObject({ right: { headersTimeoutMs, requestTimeoutMs } });
  });

  it.each([
    [{ HEADERS_TIMEOUT_MS: '999' }, 'HEADERS_TIMEOUT_MS expects an integer from 1000 to 600000'],
    [
      { HEADERS_TIMEOUT_MS: '600001', REQUEST_TIMEOUT_MS: '3600000' },
      'HEADERS_TIMEOUT_MS expects an integer from 1000 to 600000',
    ],
    [{ REQUEST_TIMEOUT_MS: '0' }, 'REQUEST_TIMEOUT_MS expects an integer from 1000 to 3600000'],
    [{ REQUEST_TIMEOUT_MS: '3600001' }, 'REQUEST_TIMEOUT_MS expects an integer from 1000 to 3600000'],
    [{ REQUEST_TIMEOUT_MS: '5000' }, 'HEADERS_TIMEOUT_MS (10000) must not exceed REQUEST_TIMEOUT_MS (5000)'],
    [{ HEADERS_TIMEOUT_MS: '40000' }, 'HEADERS_TIMEOUT_MS (40000) must not exceed REQUEST_TIMEOUT_MS (30000)'],
  ])('refuses the request timeouts %j', (env, problem) => {
    const result = decodeConfig(env);
    expect(E.isLeft(result) && result.left).toContain(problem);
  });

  it('does not compare the timeouts when one of them is bad', () => {
    expect(decodeConfig({ HEADERS_TIMEOUT_MS: 'soon', REQUEST_TIMEOUT_MS: '5000' })).toEqual(
      E.left('invalid configuration: HEADERS_TIMEOUT_MS expects an integer from 1000 to 600000'),
    );
  });
});
