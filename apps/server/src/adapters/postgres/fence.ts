/**
 * Fencing a former primary (issue 55). With a multi-host `DATABASE_URL` and
 * `target_session_attrs=read-write`, a primary that comes back after its standby was promoted
 * (restarted as it was, not rebuilt as a standby) takes writes too, and the driver would connect
 * to whichever answers first: a split brain. So before any connection of the store is made, the
 * server asks the host who it is, and refuses it when it is older than what it has seen.
 *
 * The rule: **the store never connects to a primary on an older timeline of the same cluster
 * (system identifier) than a primary it has already seen.** Each promotion starts a new timeline
 * (`pg_ctl promote`, `pg_promote()`, a point-in-time recovery), and a primary that comes back as
 * it was keeps its old one; so the newest timeline is the primary's, and an older one is a former
 * primary whose writes would be lost or diverge. What the store has seen: every host of the URL
 * at start (the survey, bounded by the connect timeout), then every host it connects to. A
 * refused host gets a failed connection (code FENCED), which the pool handles as a host that is
 * down: it tries the next host; with none left, requests and `/readyz` get 503s.
 *
 * The limits, in docs/guides/operations.md ("A former primary that comes back"): a process
 * remembers only what it saw itself; one started while the new primary was unreachable and only
 * the former one answered cannot know. Hosts of different clusters are never compared.
 */
import postgres from 'postgres';
import { driverOptions } from './driver.js';
import { FENCED, isAnswer, type PostgresStoreLogger } from './gate.js';
import { StoreSockets } from './sockets.js';
import type { TlsPolicy } from './tls.js';

/** What a host says it is. */
export type HostIdentity =
  | {
      readonly role: 'primary';
      /** `pg_control_system().system_identifier`: the same on a primary and every standby made from it. */
      readonly system: string;
      /**
       * The timeline its WAL is written on (from `pg_walfile_name(pg_current_wal_lsn())`, right
       * from the promotion; `pg_control_checkpoint()` keeps the old one until the next checkpoint).
       */
      readonly timeline: number;
    }
  | { readonly role: 'standby' };

/** The newest timeline seen on a primary, per cluster (system identifier). */
export type Seen = ReadonlyMap<string, number>;

export type Verdict =
  /** Connect; `newer` when it raises the newest timeline seen of its cluster. */
  { readonly admit: true; readonly newer: boolean } | { readonly admit: false; readonly reason: string };

/**
 * The decision, by itself: a standby is admitted (the driver's `target_session_attrs`, and a
 * write's read-only error, deal with it), a primary only if its timeline is not older than the
 * newest seen on its cluster.
 */
export const judge = (seen: Seen, host: HostIdentity): Verdict => {
  if (host.role === 'standby') return { admit: true, newer: false };
  const newest = seen.get(host.system);
  if (newest === undefined) return { admit: true, newer: true };
  if (host.timeline < newest)
    return {
      admit: false,
      reason: `a primary on timeline ${host.timeline} of system ${host.system}, older than timeline ${newest} already seen: a former primary back after a failover`,
    };
  return { admit: true, newer: host.timeline > newest };
};

/** The statement that asks a host who it is: readable by any role (the functions are PUBLIC). */
export const IDENTIFY = `SELECT system_identifier::text AS system,
  pg_is_in_recovery() AS standby,
  CASE WHEN NOT pg_is_in_recovery() THEN substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) END AS timeline
FROM pg_control_system()`;

/** Reads IDENTIFY's row. */
export const readIdentity = (row: Record<string, unknown> | undefined): HostIdentity => {
  if (row === undefined) throw new Error('no row from pg_control_system()');
  if (row['standby'] === true) return { role: 'standby' };
  const timeline = Number.parseInt(String(row['timeline']), 16);
  if (!Number.isSafeInteger(timeline) || timeline < 1) throw new Error(`no timeline in ${String(row['timeline'])}`);
  return { role: 'primary', system: String(row['system']), timeline };
};

export interface FenceOptions {
  /** Asks `host:port` who it is; rejects when it cannot be reached (or with the database's answer). */
  readonly identify: (host: string, port: number) => Promise<HostIdentity>;
  /** How long an identification may take (the connect timeout). */
  readonly timeoutMs: number;
  readonly logger: PostgresStoreLogger | undefined;
  /** A newer timeline was seen: connections made before may be on a former primary; cut them. */
  readonly onNewer: () => void;
  /** A connection is refused (fenced, or its host not answering the identification). */
  readonly onRefused?: () => void;
}

const withCode = (message: string, code: string | undefined): Error =>
  Object.assign(new Error(message), code === undefined ? {} : { code });

/** The rule above, held for one store (its pool and its probe share it). */
export class Fence {
  private readonly seen = new Map<string, number>();
  /** Hosts refused, by `host:port`, with the reason logged (once per reason). */
  private readonly refused = new Map<string, string>();
  /** Fencing is off once a host answered IDENTIFY with a class-42 error (a role denied the functions). */
  private off = false;

  constructor(private readonly options: FenceOptions) {}

  /** What the store has seen, for tests and logs. */
  get newest(): Seen {
    return this.seen;
  }

  /** Identifies every host at once, learning from those that answer within the timeout. */
  async survey(hosts: readonly { host: string; port: number }[]): Promise<void> {
    // Before the pool's first connection: a host down then is not an outage of the store yet.
    await Promise.all(hosts.map(({ host, port }) => this.judgeHost(host, port, false)));
  }

  /**
   * Before a connection to `host:port`: undefined to go ahead, or the error to fail it with
   * (FENCED for a former primary; the identification's own error when the host cannot be reached,
   * as the connection itself would fail).
   */
  admit(host: string, port: number): Promise<Error | undefined> {
    return this.judgeHost(host, port, true);
  }

  private async judgeHost(host: string, port: number, tell: boolean): Promise<Error | undefined> {
    if (this.off) return undefined;
    const where = `${host}:${port}`;
    let identity: HostIdentity;
    try {
      identity = await this.identify(host, port);
    } catch (error) {
      // Class 42 (a role denied the functions, a server without them): not a passing state.
      const code = (error as { code?: unknown }).code;
      if (isAnswer(error) && typeof code === 'string' && code.startsWith('42')) {
        this.off = true;
        this.options.logger?.warn(
          { err: { message: (error as Error).message, code: (error as { code?: unknown }).code }, host: where },
          'cannot read the PostgreSQL timeline (pg_control_system, pg_walfile_name): a former primary back after a failover will not be refused',
        );
        return undefined;
      }
      if (tell) this.options.onRefused?.();
      return withCode(
        `PostgreSQL at ${where} could not be identified: ${(error as Error).message}`,
        typeof code === 'string' ? code : 'CONNECT_TIMEOUT',
      );
    }
    const verdict = judge(this.seen, identity);
    if (!verdict.admit) {
      if (this.refused.get(where) !== verdict.reason)
        this.options.logger?.error(
          { host: where, reason: verdict.reason },
          `refusing PostgreSQL at ${where}: ${verdict.reason} (fence it, or rebuild it as a standby: docs/guides/operations.md)`,
        );
      this.refused.set(where, verdict.reason);
      if (tell) this.options.onRefused?.();
      return withCode(`PostgreSQL at ${where} is fenced: ${verdict.reason}`, FENCED);
    }
    this.refused.delete(where);
    if (verdict.newer && identity.role === 'primary') {
      const before = this.seen.get(identity.system);
      // Another identification may have raised it meanwhile: only ever upwards.
      if (before !== undefined && before >= identity.timeline) return undefined;
      this.seen.set(identity.system, identity.timeline);
      if (before === undefined)
        this.options.logger?.info?.(
          { host: where, system: identity.system, timeline: identity.timeline },
          `PostgreSQL at ${where} is a primary on timeline ${identity.timeline}; primaries on older timelines will be refused`,
        );
      else {
        this.options.logger?.warn(
          { host: where, system: identity.system, timeline: identity.timeline, before },
          `PostgreSQL at ${where} is a primary on timeline ${identity.timeline} (was ${before}): a failover; primaries on older timelines are refused from now on`,
        );
        this.options.onNewer();
      }
    }
    return undefined;
  }

  private identify(host: string, port: number): Promise<HostIdentity> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(withCode(`no answer within ${this.options.timeoutMs} ms`, 'CONNECT_TIMEOUT')),
        this.options.timeoutMs,
      );
    });
    return Promise.race([this.options.identify(host, port), late]).finally(() => clearTimeout(timer));
  }
}

/**
 * Identifies a host over a connection of its own, made for the question and closed after it:
 * the URL's user, database and TLS, one host, no session settings and no prepared statement (so
 * it works through a pooler too), never `target_session_attrs` (a standby must answer).
 */
export const identifyOver =
  (driverUrl: string, tls: TlsPolicy | undefined, connectTimeoutSeconds: number) =>
  async (host: string, port: number): Promise<HostIdentity> => {
    const sockets = new StoreSockets(tls, connectTimeoutSeconds * 1000);
    const db = postgres(driverUrl, {
      ...driverOptions({ sockets, connectTimeoutSeconds, applicationName: 'plant-store-fence', pooled: true }),
      host: [host],
      port: [port],
      max: 1,
      target_session_attrs: undefined,
      // Arrays, as the driver parses a URL's hosts (its declared types say strings).
    } as unknown as postgres.Options<Record<string, never>>);
    try {
      const rows = await db.unsafe(IDENTIFY);
      return readIdentity(rows[0]);
    } catch (error) {
      // Ends at once whatever it is doing (a connect into a partition included).
      sockets.cut();
      throw error;
    } finally {
      void db.end({ timeout: 0 }).catch(() => undefined);
    }
  };
