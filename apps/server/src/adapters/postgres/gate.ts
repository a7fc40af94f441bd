import * as E from 'fp-ts/lib/Either.js';
import { storeUnavailable, type StoreUnavailable } from '../../ports/plant-store.js';

export interface PostgresStoreLogger {
  /** Routine events (migrations applied); optional, pino loggers have it. */
  info?(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * What a StoreUnavailable carries from this adapter: the driver's message and SQLSTATE (or
 * connection error code), nothing else. The driver's error objects can hold the query's
 * parameters and a `detail` that quotes row values (a token hash in a unique violation), so they
 * never leave the adapter.
 */
export class PostgresStoreError extends Error {
  override readonly name = 'PostgresStoreError';
  constructor(
    message: string,
    /** SQLSTATE such as `57014`, or a connection error code such as `ECONNREFUSED`. */
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * A connection the store refused to make: its host is a former primary (fence.ts). Handled like a
 * host that is down: the pool tries the next one, and an operation that met it gets a 503.
 */
export const FENCED = 'FENCED';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  FENCED,
]);

/**
 * SQLSTATE 25006, read_only_sql_transaction: a write reached a server that turned read-only (a
 * primary demoted in a failover, a standby taken for a primary). Its connections must move: the
 * gate tells the store (`onReadOnly`), which cuts them, and the driver connects afresh to the
 * host that takes writes now (target_session_attrs=read-write).
 */
export const READ_ONLY = '25006';

/**
 * Expected while the database is restarting, overloaded or slow: connection errors, SQLSTATE
 * classes 08 (connection exception), 53 (insufficient resources, e.g. too many connections),
 * 57 (operator intervention: statement timeout 57014, admin shutdown 57P01, starting up 57P03)
 * and 40 (serialization failure, deadlock), and a read-only server (READ_ONLY). Logged as
 * warnings; anything else is an error.
 */
export const isTransient = (code: string | undefined): boolean =>
  code !== undefined && (CONNECTION_CODES.has(code) || code === READ_ONLY || /^(08|53|57|40)[0-9A-Z]{3}$/.test(code));

/**
 * The errors that say the database cannot be reached now (connection errors, SQLSTATE class 08,
 * a shutdown 57P01–57P03, too many connections 53300, a server that turned read-only), as opposed to one slow or failing
 * statement: they put the gate in its outage mode (see PostgresGate).
 */
export const isOutage = (code: string | undefined): boolean =>
  code !== undefined &&
  (CONNECTION_CODES.has(code) ||
    /^08[0-9A-Z]{3}$/.test(code) ||
    /^57P0[123]$/.test(code) ||
    code === '53300' ||
    code === READ_ONLY);

/**
 * A server-side connection shutdown (SQLSTATE 57P01 admin shutdown, 57P02 crash shutdown,
 * 57P03 cannot connect now) handed to a query. In postgres 3.4.9 such a FATAL reaches a query
 * only before that query was sent: a query that was running when its backend died gets
 * CONNECTION_CLOSED instead, and the driver keeps the FATAL and hands it to the first query of
 * the replacement connection, unsent (porsager/postgres#1223). So these, and only these, are
 * retried once, writes included: the statement cannot have run.
 */
const isNeverSent = (error: unknown): boolean => {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return code === '57P01' || code === '57P02' || code === '57P03';
};

/** Whether `error` came from the database itself (an SQLSTATE that is not about the connection). */
export const isAnswer = (error: unknown): boolean => {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^([0-5][0-9]|F0|HV|P0|XX)[0-9A-Z]{3}$/.test(code) && !isOutage(code);
};

/** The driver's error (or anything thrown) as a PostgresStoreError. */
export const sanitize = (error: unknown): PostgresStoreError => {
  if (error instanceof PostgresStoreError) return error;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return new PostgresStoreError(error.message, typeof code === 'string' ? code : undefined);
  }
  return new PostgresStoreError(String(error), undefined);
};

export interface GateOptions {
  /** Operations handed to the driver at once (connections × pipeline depth). */
  readonly slots: number;
  /** How long an operation may wait for a slot before it becomes StoreUnavailable. */
  readonly acquireTimeoutMs: number;
  /**
   * How long an operation has from its arrival while the gate is in outage mode; default
   * `acquireTimeoutMs`. The store gives half of it: a request may meet the store twice (its
   * token, then its plant), and the two together must end within the acquire timeout + 1 s.
   */
  readonly outageBudgetMs?: number;
  /** How long an operation may run once it has a slot (a backstop behind statement_timeout). */
  readonly runTimeoutMs: number;
  readonly logger: PostgresStoreLogger | undefined;
  /** Told how long each operation waited for a slot, in seconds (metrics). */
  readonly onWait?: ((seconds: number) => void) | undefined;
  /**
   * How long the outage mode lasts after the last outage error: long enough for the driver's
   * reconnects begun during the outage to end (they can hang up to `connect_timeout`).
   */
  readonly outageHoldMs: number;
  /** Called when an operation met a read-only server (READ_ONLY): its connections should move. */
  readonly onReadOnly?: () => void;
}

interface Waiter {
  readonly start: () => void;
  readonly timer: NodeJS.Timeout;
}

/** An operation with a slot: when it arrived, and how to bring its deadline forward. */
interface Running {
  readonly arrivedAt: number;
  tighten(deadline: number): void;
}

export interface RunOptions {
  /**
   * When the operation's request reached the store (`performance.now()`), if before this call:
   * a write batch's first write. The outage deadline counts from it. Default: now.
   */
  readonly since?: number;
}

/**
 * Bounds every database operation in time, so that no request waits forever on the pool.
 *
 * The `postgres` driver never times out a query that waits for a connection: it queues it (or
 * pipelines it behind a busy connection's queries) without limit. So operations pass this gate
 * first: at most `slots` are with the driver at once; the others wait here in FIFO order, and one
 * that waited `acquireTimeoutMs` leaves the queue as StoreUnavailable without ever reaching the
 * database (so a write that was answered 503 for waiting cannot commit later). An operation with
 * a slot is bounded by the server's `statement_timeout` and, as a backstop against a silent
 * network, by `runTimeoutMs`; past that it resolves to StoreUnavailable (its outcome unknown).
 * An operation the driver failed before sending it (see isNeverSent) is tried once more.
 *
 * Outage mode: from an operation failing with an outage error (isOutage) until `outageHoldMs`
 * after the last such error, every operation must end within `outageBudgetMs` of its arrival
 * (the running ones included: their deadlines are brought forward), since the driver would
 * otherwise hold it for a reconnect that may take `connect_timeout` or longer. A success does not
 * end it early: while PostgreSQL restarts, some connections answer and others hang connecting. So while PostgreSQL restarts, is stopped,
 * or has just terminated the connections, every answer is a 503 within the acquire timeout
 * (docs/reference/api.md); a write cut off that way may still commit once the connection is back
 * (a 503 does not say it did not). When the database is healthy, a statement keeps its
 * `statement_timeout`.
 */
export class PostgresGate {
  private active = 0;
  private readonly waiting: Waiter[] = [];
  private readonly running = new Set<Running>();
  /** `performance.now()` until which the gate is in outage mode. */
  private outageUntil = -Infinity;
  /** How many operations have failed with an outage error, ever (see the store's ping). */
  outageErrors = 0;
  private closedError: Error | undefined;
  private readonly idleWaiters: (() => void)[] = [];
  /** How long an operation has from its arrival in outage mode. */
  private readonly budgetMs: number;

  constructor(private readonly options: GateOptions) {
    this.budgetMs = options.outageBudgetMs ?? options.acquireTimeoutMs;
  }

  /** Runs `work` through the gate. Never rejects: failures become StoreUnavailable, logged once. */
  run<A>(what: string, work: () => Promise<A>, { since }: RunOptions = {}): Promise<E.Either<StoreUnavailable, A>> {
    return new Promise((resolve) => {
      if (this.closedError !== undefined) {
        resolve(E.left(storeUnavailable(this.closedError)));
        return;
      }
      const asked = performance.now();
      const arrivedAt = since ?? asked;
      const { acquireTimeoutMs, runTimeoutMs } = this.options;
      const budgetMs = this.budgetMs;
      const start = (): void => {
        const started = performance.now();
        this.options.onWait?.((started - asked) / 1000);
        this.active += 1;
        let done = false;
        let deadline = this.inOutage(started) ? arrivedAt + budgetMs : started + runTimeoutMs;
        const expire = (): void => {
          const message = this.inOutage(performance.now())
            ? `no answer from PostgreSQL within ${budgetMs} ms while it is unreachable`
            : `no answer from PostgreSQL within ${runTimeoutMs} ms`;
          finish(this.fail(what, new PostgresStoreError(message, 'QUERY_TIMEOUT')));
        };
        let backstop = setTimeout(expire, Math.max(0, deadline - started));
        const running: Running = {
          arrivedAt,
          tighten: (earlier) => {
            if (done || earlier >= deadline) return;
            deadline = earlier;
            clearTimeout(backstop);
            backstop = setTimeout(expire, Math.max(0, deadline - performance.now()));
          },
        };
        this.running.add(running);
        const finish = (result: E.Either<StoreUnavailable, A>): void => {
          if (done) return;
          done = true;
          clearTimeout(backstop);
          this.running.delete(running);
          this.release();
          resolve(result);
        };
        const attempt = (): Promise<A> => {
          try {
            return work();
          } catch (error) {
            return Promise.reject(error instanceof Error ? error : new Error(String(error)));
          }
        };
        const pending = attempt().catch((error: unknown) => (isNeverSent(error) ? attempt() : Promise.reject(error)));
        pending.then(
          (value) => finish(E.right(value)),
          (error: unknown) => finish(this.fail(what, error)),
        );
      };
      if (this.active < this.options.slots && this.waiting.length === 0) {
        start();
        return;
      }
      // In outage mode an operation that arrived earlier (a write batch) waits no longer than
      // its deadline; otherwise the acquire timeout counts from now.
      const waitMs = this.inOutage(asked) ? Math.max(0, arrivedAt + budgetMs - asked) : acquireTimeoutMs;
      const waiter: Waiter = {
        start,
        timer: setTimeout(() => {
          const index = this.waiting.indexOf(waiter);
          if (index >= 0) this.waiting.splice(index, 1);
          if (this.active === 0 && this.waiting.length === 0) for (const wake of this.idleWaiters.splice(0)) wake();
          resolve(
            this.fail(
              what,
              new PostgresStoreError(`no database connection free within ${acquireTimeoutMs} ms`, 'ACQUIRE_TIMEOUT'),
            ),
          );
        }, waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  /**
   * Refuses new operations (they resolve to StoreUnavailable with `error`) and resolves once
   * every operation already admitted, waiting or running, has finished.
   */
  close(error: Error): Promise<void> {
    this.closedError ??= error;
    return this.idle();
  }

  /**
   * A connection could not be made (its host refused by the fence, or not answering it): the
   * driver keeps such failures to itself while the URL names another host to try, so the store
   * says so here, and the gate's outage mode bounds every operation as for any other outage.
   */
  connectFailed(): void {
    this.enterOutage();
  }

  /** Operations waiting for a slot (for tests and metrics). */
  get queued(): number {
    return this.waiting.length;
  }

  private idle(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private release(): void {
    this.active -= 1;
    if (this.active === 0 && this.waiting.length === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    const next = this.waiting.shift();
    if (next !== undefined) {
      clearTimeout(next.timer);
      next.start();
    }
  }

  private inOutage(now: number): boolean {
    return now < this.outageUntil;
  }

  /** Enters (or prolongs) outage mode: every running operation ends within the acquire timeout of its arrival. */
  private enterOutage(): void {
    this.outageErrors += 1;
    this.outageUntil = performance.now() + this.options.outageHoldMs;
    for (const running of this.running) running.tighten(running.arrivedAt + this.budgetMs);
  }

  private fail(what: string, error: unknown): E.Either<StoreUnavailable, never> {
    const cause = sanitize(error);
    if (isOutage(cause.code)) this.enterOutage();
    if (cause.code === READ_ONLY) this.options.onReadOnly?.();
    const log = { err: { message: cause.message, code: cause.code }, operation: what };
    if (isTransient(cause.code) || cause.code === 'ACQUIRE_TIMEOUT' || cause.code === 'QUERY_TIMEOUT') {
      this.options.logger?.warn(log, 'PostgreSQL unavailable');
    } else {
      this.options.logger?.error(log, 'PostgreSQL operation failed');
    }
    return E.left(storeUnavailable(cause));
  }
}
