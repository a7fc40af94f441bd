import postgres from 'postgres';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { driverOptions } from './driver.js';
import { StoreSockets } from './sockets.js';
import { readConnectionUrl } from './tls.js';
import { RATE_LIMIT_KEY_PREFIX } from '../../rate-limit/local-backends.js';
import type { RateLimitBackend, RateLimitPolicy } from '../../rate-limit/rate-limiter.js';

/** The table rate-limiter-flexible keeps its counters in (in the schema DATABASE_URL selects). */
export const RATE_LIMIT_TABLE = 'plant_store_rate_limits';

export interface PostgresRateLimiterOptions {
  /** DATABASE_URL (postgres://…; `options=-c search_path=…` is honoured, as are sslmode and sslrootcert). */
  readonly url: string;
  readonly policy: RateLimitPolicy;
  /** Connections of the limiter's own pool; default 2. */
  readonly poolSize?: number;
  /** How long a check may wait for a connection or a statement; default 1000 ms. */
  readonly timeoutMs?: number;
}

/** What RateLimiterPostgres calls on a client it is given as `storeType: 'client'`. */
interface PgLikeClient {
  query(q: { readonly text: string; readonly values?: readonly unknown[] }): Promise<{
    readonly rows: readonly Record<string, unknown>[];
    readonly rowCount: number;
  }>;
}

/**
 * Counters in PostgreSQL: every instance and worker on one DATABASE_URL draws from one budget.
 *
 * rate-limiter-flexible's RateLimiterPostgres keeps the counting (its table, its one upsert per
 * check, its clean-up of expired rows); it is handed a client with node-postgres's `query` shape
 * over the store's own driver (`postgres`), so the service has one driver. The limiter has a small
 * pool of its own: a request's check never waits behind plant writes, and a limiter in trouble
 * cannot starve the store.
 *
 * Its connections ask for nothing but their name at start-up and prepare no named statement, so
 * they work through a pooler in transaction mode as they do direct. A statement is bounded here,
 * not by a `statement_timeout` (which a pooler refuses): one that has not answered within
 * `timeoutMs` cuts the pool's connections (a silent network would otherwise hold them for as long
 * as TCP takes to give up), and the driver connects afresh for the next check.
 *
 * The table is created here (CREATE TABLE IF NOT EXISTS, asked again when another instance created
 * it at the same moment), so a limiter that is returned is ready; if PostgreSQL cannot be reached
 * now, this rejects and start-up stops, as it does for the store itself. Later outages make checks
 * fail (fail open, see rate-limiter.ts).
 */
export const openPostgresRateLimiter = async (options: PostgresRateLimiterOptions): Promise<RateLimitBackend> => {
  const timeoutMs = options.timeoutMs ?? 1000;
  const { driverUrl, tls } = readConnectionUrl(options.url);
  const connectTimeoutSeconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  const sockets = new StoreSockets(tls, connectTimeoutSeconds * 1000);
  const sql = postgres(driverUrl, {
    ...driverOptions({
      sockets,
      connectTimeoutSeconds,
      applicationName: 'plant-store-rate-limiter',
      // Always as behind a pooler: a statement bounded here, not by a setting; no named statements.
      pooled: true,
    }),
    max: options.poolSize ?? 2,
  });

  const client: PgLikeClient = {
    query: ({ text, values }) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          sockets.cut();
          reject(
            Object.assign(new Error(`rate limiter statement took over ${timeoutMs} ms`), { code: 'QUERY_TIMEOUT' }),
          );
        }, timeoutMs);
        sql.unsafe(text, (values ?? []) as postgres.ParameterOrJSON<never>[]).then(
          (rows) => {
            clearTimeout(timer);
            // bigint (int8) arrives as a string; the limiter does arithmetic on `expire`. Converted,
            // not decoded: rate-limiter-flexible reads these rows itself, on every limited request.
            const decoded = rows.map((row) =>
              typeof row['expire'] === 'string' ? { ...row, expire: Number(row['expire']) } : row,
            );
            resolve({ rows: decoded, rowCount: rows.count ?? rows.length });
          },
          (error: unknown) => {
            clearTimeout(timer);
            reject(error instanceof Error ? error : new Error(String(error)));
          },
        );
      }),
  };

  const prepare = () =>
    new Promise<RateLimiterPostgres>((resolve, reject) => {
      const created: RateLimiterPostgres = new RateLimiterPostgres(
        {
          storeClient: client,
          storeType: 'client',
          tableName: RATE_LIMIT_TABLE,
          keyPrefix: RATE_LIMIT_KEY_PREFIX,
          points: options.policy.quota,
          duration: options.policy.windowSeconds,
        },
        (err?: unknown) =>
          err === undefined || err === null
            ? resolve(created)
            : reject(err instanceof Error ? err : new Error(String(err))),
      );
    });
  // Two instances starting at once can both pass CREATE TABLE IF NOT EXISTS's check, and the
  // second then fails on the table's row type (42710) or name (42P07, 23505): the table exists
  // by then, so asking once more finds it.
  const limiter = await prepare()
    .catch((err: unknown) =>
      ['42710', '42P07', '23505'].includes(String((err as { code?: unknown }).code)) ? prepare() : Promise.reject(err),
    )
    .catch(async (err: unknown) => {
      await sql.end({ timeout: 0 }).catch(() => undefined);
      throw new Error('could not prepare the rate limiter table in PostgreSQL', { cause: err });
    });
  return {
    name: 'postgres',
    consume: (key) => limiter.consume(key),
    close: () => sql.end({ timeout: 1 }),
  };
};
