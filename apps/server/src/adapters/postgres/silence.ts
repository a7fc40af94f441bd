import type { PostgresStoreLogger } from './gate.js';
import type { WatchedSocket } from './sockets.js';

/** One backend as pg_stat_activity shows it, found by the client port of our connection. */
export interface BackendActivity {
  readonly port: number;
  /** Running a statement, and not blocked writing its answer to us. */
  readonly running: boolean;
  /** How long ago the backend last changed state, in ms (by the database's clock). */
  readonly sinceChangeMs: number;
}

export interface SilenceWatchOptions {
  /** How long a connection may owe an answer without a byte arriving before the database is asked about it. */
  readonly afterMs: number;
  /** The pool's connections. */
  readonly sockets: () => readonly WatchedSocket[];
  /**
   * One short statement on a connection of its own: the backends behind these client ports (the
   * pool's connected ones). Rejects with an error carrying a `code` when it fails.
   */
  readonly probe: (ports: readonly number[]) => Promise<readonly BackendActivity[]>;
  /** Destroys every connection, the probe's included: the database did not answer the probe. */
  readonly cutAll: () => number;
  /** Whether the probe's error came from the database itself (an SQL error: it answered). */
  readonly isAnswer: (error: unknown) => boolean;
  readonly logger: PostgresStoreLogger | undefined;
}

/**
 * Notices connections the database stopped answering without an error.
 *
 * A dropped packet raises no error: a query sent into a partition waits for the kernel's
 * retransmissions, minutes before TCP gives up. So each connection's traffic is followed
 * (WatchedSocket): once one has owed an answer for `afterMs` with nothing arriving, the watch asks
 * the database, over a connection of its own, what the backend behind it is doing:
 * - running a statement (not blocked writing to us): a slow statement, left to its
 *   statement_timeout; asked again after another `afterMs`;
 * - idle for more than a quarter of `afterMs`, blocked writing to us, or gone: the answer (or the
 *   query) is lost in the network, and that connection alone is cut;
 * - no answer to the probe within `afterMs`: the database is unreachable, every connection is cut.
 * A cut connection's queries fail as connection errors, which put the gate in its outage mode,
 * and the driver connects afresh. Connections still starting are left to the driver's
 * connect_timeout, and queries queued behind others (the driver pipelines) are never mistaken for
 * lost ones: only what the wire shows counts.
 */
export class SilenceWatch {
  private probing = false;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: SilenceWatchOptions) {
    this.timer = setInterval(() => this.check(), Math.max(50, options.afterMs / 4));
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    if (this.probing) return;
    const { afterMs, probe, logger } = this.options;
    const now = performance.now();
    const connected = this.options.sockets().filter((s) => s.port !== undefined);
    const silent = connected.filter((s) => s.silentFor(now) >= afterMs && now - s.runningAt >= afterMs);
    if (silent.length === 0) return;
    const silentAtCheck = new Map(silent.map((s) => [s, s.silentFor(now)]));
    this.probing = true;
    let settled = false;
    const settle = (backends: readonly BackendActivity[] | 'no answer' | 'cannot tell'): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      this.probing = false;
      if (backends === 'no answer') {
        const connections = this.options.cutAll();
        logger?.warn(
          { probeMs: afterMs, connections },
          'PostgreSQL did not answer a probe while a connection waited; closing its connections',
        );
        return;
      }
      const answeredAt = performance.now();
      // None of the pool's connections seen (a proxy or a NAT between us): it cannot tell.
      const blind = backends === 'cannot tell' || backends.length === 0;
      const byPort = new Map(blind ? [] : backends.map((b) => [b.port, b]));
      const lost: WatchedSocket[] = [];
      for (const s of silent) {
        // Something arrived since the probe was sent: it is answering.
        if (s.silentFor(answeredAt) + 1 < (silentAtCheck.get(s) ?? 0) + (answeredAt - now)) continue;
        const backend = byPort.get(s.port ?? -1);
        if (blind || backend?.running === true) {
          s.runningAt = answeredAt;
        } else if (backend === undefined || backend.sinceChangeMs > afterMs / 4) {
          lost.push(s);
        }
      }
      if (lost.length === 0) return;
      for (const s of lost) s.cut();
      logger?.warn(
        { probeMs: afterMs, connections: lost.length },
        'PostgreSQL is not running the statement a connection waits for; closing that connection',
      );
    };
    const deadline = setTimeout(() => settle('no answer'), afterMs);
    probe(connected.map((s) => s.port ?? -1)).then(
      (backends) => settle(backends),
      (error: unknown) => settle(this.options.isAnswer(error) ? 'cannot tell' : 'no answer'),
    );
  }
}
