/**
 * The PostgreSQL driver, `postgres` (porsager) 3.4.9, as every connection of this service uses it:
 * the store's pool, the silence watch's probe and the rate limiter's pool. The decision and its
 * figures: docs/explanation/storage.md, "Driver".
 *
 * Every workaround for the driver, with where it lives and what would let it go:
 *
 * | Gap | Upstream | Here |
 * | --- | --- | --- |
 * | the array-type lookup on each new connection rejects unhandled when that connection dies (a crash) | porsager/postgres#1192, #1223 | `fetch_types: false` below |
 * | a FATAL of a killed backend is kept and handed to the next connection's first query, unsent | porsager/postgres#1223 | gate.ts retries 57P01–57P03 once |
 * | `begin()`/`reserve()` pin a connection that, dying mid-transaction, can throw from a timer or never return | porsager/postgres#1208, #1215, #1216 | write-queue.ts: one statement per batch, no driver transaction |
 * | a closed connection keeps its cancelled write timer and unsent bytes (ends in CONNECT_TIMEOUT) | porsager/postgres#1133, open PR #1209 | patches/postgres@3.4.9.patch |
 * | with `prepare: false` a statement with parameters goes as Parse, Describe, Flush, then Bind, Execute, Sync; PgBouncer 1.18 in transaction mode takes the Flush for a transaction's end and drops the Describe's answer: the connection waits for ever | none filed (PgBouncer's side: asyncpg's MagicStack/asyncpg#1065 describes it) | the patch (no describe first without `prepare`: one run ending in Sync); driver-pooled.test.ts |
| `target_session_attrs=read-write` takes a standby for a primary | hapostgres/pg_auto_failover#970 | the patch (rejects in_hot_standby=on, as libpq does) |
 * | the pool's queues grow by a slot per query and are scanned whole | none filed | the patch (compacts and searches from the head); driver-queue.test.ts |
 * | `sslrootcert` is sent to the server as a setting; TLS inside the driver hides the wire from the watch | none filed | tls.ts and sockets.ts make the TLS socket; `ssl: false` below |
 * | no way to drop a connection that stopped answering; a query waits for a connection for ever | none filed (by design) | sockets.ts, silence.ts (the watch), gate.ts (bounded admission) |
 * | with several hosts in the URL a failed connect never reaches the queries waiting for it (`error()` returns while `host[retries + 1]` exists, and `retries` stays 0), so no outage is seen | none filed | fence.ts tells the gate of each connect it refuses (`gate.connectFailed`); check: stop every host of a two-host URL for 10 s, a request must get its 503 within the acquire timeout |
 *
 * Upgrading the driver: (1) read its changelog for each issue above and drop what it fixed, with
 * its row; (2) re-make the patch against the new version (`pnpm patch postgres@<v>`), or drop it
 * once #1209, the read-write check and the single run are released; (3) run the server's suite
 * (driver-queue.test.ts holds the queue fix to the installed driver, driver-pooled.test.ts the
 * single run behind a pooler, outage.test.ts the FATAL and the crashes), then
 * apps/torture's postgres-outage, network-partitions (TCP and TLS), failover and pooler rounds,
 * and `pnpm bench` beside the build before.
 */
import type postgres from 'postgres';
import type { StoreSockets } from './sockets.js';

export interface DriverSettings {
  /** The driver's `socket` option: connections the store made (TLS included) and can cut. */
  readonly sockets: StoreSockets;
  /** Seconds a connect may take. Without it a connect to an unreachable host waits for the OS (minutes). */
  readonly connectTimeoutSeconds: number;
  readonly applicationName: string;
  /**
   * Behind a pooler in transaction mode (PgBouncer): the pooler refuses start-up parameters or
   * drops them, and a backend serves another client's next transaction. Such connections carry
   * only their name and prepare no named statement (which lives in one backend's session).
   */
  readonly pooled: boolean;
  /** Start-up parameters for a direct connection (ignored when `pooled`). */
  readonly session?: Readonly<Record<string, string | number>>;
}

/** The options of a driver instance; the caller adds `max`. */
export const driverOptions = (settings: DriverSettings): postgres.Options<Record<string, never>> =>
  ({
    connect_timeout: settings.connectTimeoutSeconds,
    // Off: see the table above. We pass no array parameters (batches travel as one jsonb).
    fetch_types: false,
    // `CREATE … IF NOT EXISTS` notices would otherwise go to console.log.
    onnotice: () => undefined,
    // Seconds between reconnect attempts after failures. The driver's default grows to 20 s
    // during a long outage, which would delay recovery by as much once the database is back; a
    // connect into a partition lasts connect_timeout and retries the SYN once a second, so short
    // pauses keep a SYN going out at least every 1.25 s.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.25) * (0.5 + Math.random() / 2),
    // The driver's `socket` option (not in its type declarations): connections the store can cut,
    // encrypted by the store as sslmode says (tls.ts), so the driver's own TLS stays off.
    socket: settings.sockets.open,
    ssl: false,
    prepare: !settings.pooled,
    connection: settings.pooled
      ? { application_name: settings.applicationName }
      : { application_name: settings.applicationName, ...settings.session },
  }) as postgres.Options<Record<string, never>>;
