import pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { RATE_LIMIT_KEY_PREFIX } from '../../rate-limit/local-backends.js';
import type { RateLimitBackend, RateLimitPolicy } from '../../rate-limit/rate-limiter.js';

/** The table rate-limiter-flexible keeps its counters in (in the schema DATABASE_URL selects). */
export const RATE_LIMIT_TABLE = 'plant_store_rate_limits';

export interface PostgresRateLimiterOptions {
  /** DATABASE_URL (postgres://…; `options=-c search_path=…` is honoured). */
  readonly url: string;
  readonly policy: RateLimitPolicy;
  /** Connections of the limiter's own pool; default 2. */
  readonly poolSize?: number;
  /** How long a check may wait for a connection or a statement; default 1000 ms. */
  readonly timeoutMs?: number;
}

/**
 * Counters in PostgreSQL: every instance and worker on one DATABASE_URL draws from one budget.
 *
 * rate-limiter-flexible's RateLimiterPostgres takes a node-postgres (`pg`) Pool or Client, Knex,
 * Sequelize or TypeORM — not the `postgres` (porsager) driver of the plant store — so the limiter
 * has its own small `pg` pool. That also keeps the checks off the plant store's pool: a request's
 * limit check never waits behind plant writes, and a limiter in trouble cannot starve the store.
 *
 * The table is created here (CREATE TABLE IF NOT EXISTS, asked again when another instance created
 * it at the same moment), so a limiter that is returned is ready; if PostgreSQL cannot be reached now, this rejects and start-up
 * stops, as it does for the store itself. Later outages make checks fail (fail open, see
 * rate-limiter.ts); the pool reconnects by itself.
 */
export const openPostgresRateLimiter = async (options: PostgresRateLimiterOptions): Promise<RateLimitBackend> => {
  const timeoutMs = options.timeoutMs ?? 1000;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 2,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    application_name: 'plant-store-rate-limiter',
  });
  // An idle client whose connection dies emits 'error' on the pool; without a listener that would crash the process.
  pool.on('error', () => undefined);
  const prepare = () =>
    new Promise<RateLimiterPostgres>((resolve, reject) => {
      const created: RateLimiterPostgres = new RateLimiterPostgres(
        {
          storeClient: pool,
          storeType: 'pool',
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
      await pool.end().catch(() => undefined);
      throw new Error('could not prepare the rate limiter table in PostgreSQL', { cause: err });
    });
  return {
    name: 'postgres',
    consume: (key) => limiter.consume(key),
    close: () => pool.end(),
  };
};
