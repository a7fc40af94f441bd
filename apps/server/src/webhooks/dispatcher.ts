import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import * as E from 'fp-ts/lib/Either.js';
import type { AttemptRecord, ClaimedDelivery, WebhookStore } from '../ports/webhook-store.js';
import { nextAttemptDelayMs } from './retry-schedule.js';
import { signatureHeader } from './signature.js';
import type { Tracing } from '../tracing/tracing.js';
import type { AttemptOutcome, AttemptRequest } from './webhook-sender.js';

/** Sends one attempt; never rejects (WebhookSender). */
export interface AttemptSender {
  send(request: AttemptRequest): Promise<AttemptOutcome>;
}

export interface DispatcherLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export type AttemptKind = 'delivered' | 'retry' | 'failed';

export interface WebhookDispatcherOptions {
  readonly store: WebhookStore;
  readonly sender: AttemptSender;
  /** Who holds the claims: unique per process (host, pid and a random part). */
  readonly holder: string;
  /** The delays after the 1st, 2nd… failed attempt (WEBHOOK_RETRY_SCHEDULE). */
  readonly schedule: readonly number[];
  /** WEBHOOK_TIMEOUT_MS: an attempt's limit, which the lease outlasts. */
  readonly timeoutMs: number;
  readonly userAgent: string;
  /** Attempts in flight at once, per process; default 16, the sender's sockets per address (an attempt never waits for a socket, which would eat into its timeout). */
  readonly concurrency?: number;
  /**
   * Attempts in flight at once while the server is busy — its event loop more than 85 % used over
   * the last 100 ms while requests keep arriving (at least 100 a second); default 1. Requests come
   * first; the backlog drains at full concurrency once the load eases. (On one core a POST costs
   * about as much as the create that made it, so delivering at full speed under a saturating load
   * would halve the creates: apps/bench's `+webhook` row.)
   */
  readonly busyConcurrency?: number;
  /** How many requests the server has received so far (a counter); absent: never busy. */
  readonly requestsReceived?: () => number;
  /** How often the store is asked for due deliveries when nothing woke the dispatcher; default 250 ms. */
  readonly pollMs?: number;
  readonly logger?: DispatcherLogger;
  /** Told each attempt's outcome (metrics). */
  readonly onAttempt?: (kind: AttemptKind) => void;
  readonly random?: () => number;
  /** Tracing on: each attempt in a CLIENT span continuing the trace saved with its event, sent as `traceparent`. */
  readonly tracing?: Pick<Tracing, 'startWebhookAttempt'> | undefined;
}

/** How far a hold outlasts the attempt's own limit: room for the record to commit after it. */
export const LEASE_MARGIN_MS = 15_000;

/** A claimed delivery waiting for a free slot, and when it was claimed (performance.now()). */
interface Queued {
  readonly delivery: ClaimedDelivery;
  readonly claimedAt: number;
}

/** Event-loop utilisation above which the dispatcher yields to requests. */
const BUSY_UTILISATION = 0.85;
const BUSY_SAMPLE_MS = 100;
/** Requests per sample above which a saturated loop counts as busy serving them. */
const BUSY_REQUESTS = 10;
/** Attempts this fast (on average) let the dispatcher claim a round ahead. */
const FAST_ATTEMPT_MS = 100;
/** How long a finished attempt may wait for others to be recorded with it. */
const FLUSH_DELAY_MS = 10;

/** The URL's origin only: logs never show a path or query (they may carry a receiver's token). */
const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
};

/**
 * The webhook dispatcher: claims due deliveries from the store (a lease of the timeout plus a
 * margin, so no other instance sends one at the same moment and a dead holder's are taken over
 * when its lease runs out), sends each (signed per attempt), and records the outcomes in batches
 * — one store write per turn, whatever the number of attempts that ended in it.
 *
 * Never on the request path: it runs beside the server, at most `concurrency` attempts at a time,
 * and is woken by the store after a commit that wrote deliveries (SQLite) or by its poll.
 */
export class WebhookDispatcher {
  private readonly concurrency: number;
  private readonly busyConcurrency: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  /** Claimed, not yet started: at most one round ahead, and only while attempts are fast. */
  private queue: Queued[] = [];
  private busy = false;
  private utilisation = performance.eventLoopUtilization();
  private requestsSeen = 0;
  private sampler: NodeJS.Timeout | undefined;
  /** A moving average of attempt durations, ms. */
  private attemptMs = 0;
  /** Claimed and not yet recorded (or handed back). */
  private readonly held = new Set<number>();
  private records: AttemptRecord[] = [];
  private inFlight = 0;
  /** The claim loop while it runs (stop waits for it: a claim it is awaiting must be handed back too). */
  private pumping: Promise<void> | undefined;
  /** The last claim was full: more may be due at once. */
  private moreDue = false;
  private poll: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private flushScheduled = false;
  private flushTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private idle: (() => void) | undefined;
  private lastStoreWarning = 0;
  /**
   * Runs a function in the context the dispatcher was made in (main's, outside any request). A
   * commit wakes the dispatcher from inside the request that wrote the deliveries; without this the
   * claims, attempts and records it starts would run in that request's trace context, and the
   * records' writes would be linked to the request's store span.
   */
  private readonly detached = AsyncLocalStorage.snapshot();

  constructor(private readonly options: WebhookDispatcherOptions) {
    this.concurrency = options.concurrency ?? 16;
    this.busyConcurrency = Math.max(1, Math.min(this.concurrency, options.busyConcurrency ?? 1));
    this.pollMs = options.pollMs ?? 250;
    this.leaseMs = options.timeoutMs + LEASE_MARGIN_MS;
  }

  start(): void {
    if (this.poll !== undefined || this.stopping) return;
    this.poll = setInterval(() => this.wake(), this.pollMs);
    this.poll.unref();
    const { requestsReceived } = this.options;
    if (requestsReceived !== undefined) {
      this.requestsSeen = requestsReceived();
      this.sampler = setInterval(() => {
        const now = performance.eventLoopUtilization();
        const requests = requestsReceived();
        this.busy =
          requests - this.requestsSeen >= BUSY_REQUESTS &&
          performance.eventLoopUtilization(now, this.utilisation).utilization > BUSY_UTILISATION;
        this.utilisation = now;
        this.requestsSeen = requests;
        if (!this.busy) this.startQueued();
      }, BUSY_SAMPLE_MS);
      this.sampler.unref();
    }
    this.wake();
  }

  /** Attempts allowed in flight now. */
  private get cap(): number {
    return this.busy ? this.busyConcurrency : this.concurrency;
  }

  /** New deliveries may be due: look now. */
  wake(): void {
    if (this.stopping || this.pumping !== undefined) return;
    this.pumping = this.detached(() => this.pump()).finally(() => {
      this.pumping = undefined;
    });
  }

  /**
   * Claims nothing more; lets the attempts in flight finish for up to `graceMs`, hands the rest
   * back (due at once, for this or another instance), and records what finished.
   */
  async stop(graceMs: number): Promise<'drained' | 'handed-back'> {
    this.stopping = true;
    clearInterval(this.poll);
    clearInterval(this.sampler);
    // A claim in progress commits holds on deliveries: wait for it, so they are handed back below
    // rather than left held until their lease ends (the next instance could not take them before).
    await this.pumping;
    // Claimed but never started: straight back.
    const queued = this.queue.map((q) => q.delivery.id);
    this.queue = [];
    for (const id of queued) this.held.delete(id);
    if (queued.length > 0) {
      const released = await this.options.store.release(this.options.holder, queued)();
      if (E.isLeft(released))
        this.storeProblem(
          released.left.cause,
          'could not hand back webhook deliveries; they are retried once their lease ends',
        );
    }
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.idle = undefined;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const unfinished = [...this.held].filter((id) => !this.records.some((r) => r.deliveryId === id));
    // Their outcomes, should they still come, are not recorded: the deliveries are no longer ours.
    for (const id of unfinished) this.held.delete(id);
    await this.flush();
    if (unfinished.length > 0) {
      const released = await this.options.store.release(this.options.holder, unfinished)();
      if (E.isLeft(released))
        this.storeProblem(
          released.left.cause,
          'could not hand back webhook deliveries; they are retried once their lease ends',
        );
    }
    return unfinished.length === 0 ? 'drained' : 'handed-back';
  }

  private async pump(): Promise<void> {
    while (!this.stopping) {
      // Claim enough to fill the free slots and, while attempts are fast, one round ahead, so
      // that the next attempts need not wait for a claim's commit.
      const ahead = this.attemptMs < FAST_ATTEMPT_MS ? this.cap : 0;
      const want = this.cap + ahead - this.inFlight - this.queue.length;
      if (want <= 0) return;
      const claimed = await this.options.store.claimDue(this.options.holder, want, this.leaseMs)();
      if (E.isLeft(claimed)) {
        this.storeProblem(claimed.left.cause, 'could not claim webhook deliveries; trying again shortly');
        this.moreDue = false;
        return;
      }
      const claimedAt = performance.now();
      for (const delivery of claimed.right) {
        this.held.add(delivery.id);
        this.queue.push({ delivery, claimedAt });
      }
      this.startQueued();
      this.moreDue = claimed.right.length === want;
      if (!this.moreDue) return;
    }
  }

  /**
   * Starts queued deliveries while slots are free. One whose hold could end before its attempt
   * would (a slow queue) is handed back instead: no attempt may outlive its lease.
   */
  private startQueued(): void {
    const latestStart = this.leaseMs - this.options.timeoutMs - LEASE_MARGIN_MS / 3;
    const stale: number[] = [];
    while (!this.stopping && this.inFlight < this.cap && this.queue.length > 0) {
      const next = this.queue.shift() as Queued;
      if (performance.now() - next.claimedAt > latestStart) {
        this.held.delete(next.delivery.id);
        stale.push(next.delivery.id);
        continue;
      }
      this.begin(next.delivery);
    }
    if (stale.length > 0) void this.options.store.release(this.options.holder, stale)();
  }

  private begin(delivery: ClaimedDelivery): void {
    this.inFlight += 1;
    const started = performance.now();
    void this.attempt(delivery).finally(() => {
      this.inFlight -= 1;
      this.attemptMs = this.attemptMs * 0.9 + (performance.now() - started) * 0.1;
      if (this.stopping) {
        if (this.inFlight === 0) this.idle?.();
        return;
      }
      this.startQueued();
      // Claim again once half a round is left: a claim is a write, cheaper by the dozen.
      if (this.moreDue && this.inFlight + this.queue.length <= this.cap / 2) this.wake();
    });
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { sender, schedule, userAgent, logger, onAttempt, random, tracing } = this.options;
    const startedAt = new Date();
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const span = tracing?.startWebhookAttempt({
      saved: delivery.traceContext,
      url: new URL(delivery.url),
      endpointId: delivery.endpointId,
      deliveryId: delivery.id,
      eventId: delivery.eventId,
      attempt: delivery.attempts + 1,
    });
    const outcome = await sender.send({
      url: delivery.url,
      body: delivery.body,
      headers: {
        'webhook-id': delivery.eventId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(delivery.secrets, delivery.eventId, timestamp, delivery.body),
        'user-agent': userAgent,
        ...span?.headers,
      },
    });
    span?.end(
      outcome.kind === 'delivered' ? { status: outcome.status } : { status: outcome.status, error: outcome.error },
    );
    // Handed back at shutdown meanwhile: no longer ours to record.
    if (!this.held.has(delivery.id)) return;
    const base = { deliveryId: delivery.id, startedAt, durationMs: outcome.durationMs };
    const where = {
      delivery: delivery.id,
      event: delivery.eventId,
      endpoint: delivery.endpointId,
      origin: originOf(delivery.url),
    };
    let record: AttemptRecord;
    if (outcome.kind === 'delivered') {
      record = { ...base, outcome: 'delivered', status: outcome.status };
      onAttempt?.('delivered');
      logger?.debug({ ...where, status: outcome.status, ms: Math.round(outcome.durationMs) }, 'webhook delivered');
    } else {
      const failure = {
        ...base,
        error: outcome.error,
        ...(outcome.status === undefined ? {} : { status: outcome.status }),
      };
      const failed = delivery.attempts + 1;
      const delay = outcome.gone ? undefined : nextAttemptDelayMs(schedule, failed, outcome.retryAfterMs, random);
      if (outcome.gone) {
        record = { ...failure, outcome: 'gone' };
        onAttempt?.('failed');
        logger?.warn(
          { ...where, status: outcome.status },
          'webhook endpoint answered 410 Gone: disabled, its pending deliveries failed',
        );
      } else if (delay === undefined) {
        record = { ...failure, outcome: 'failed' };
        onAttempt?.('failed');
        logger?.warn(
          { ...where, attempts: failed, error: outcome.error },
          'webhook delivery failed for good (replay it with the webhooks CLI)',
        );
      } else {
        record = { ...failure, outcome: 'retry', retryInMs: delay };
        onAttempt?.('retry');
        logger?.info(
          { ...where, attempts: failed, error: outcome.error, retryInMs: delay },
          'webhook attempt failed; retrying later',
        );
      }
    }
    this.records.push(record);
    this.scheduleFlush();
  }

  /**
   * Records go to the store in batches: at once when a round's worth has ended, else after
   * FLUSH_DELAY_MS (a record is a write; one per attempt would cost more than the attempt).
   */
  private scheduleFlush(): void {
    if (this.records.length >= this.concurrency) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          void this.flush();
        });
      }
      return;
    }
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, FLUSH_DELAY_MS);
  }

  /** Records every finished attempt in one store write (after the one in progress, if any). */
  private async flush(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
    if (this.records.length === 0) return;
    const records = this.records;
    this.records = [];
    this.flushing = (async () => {
      const recorded = await this.options.store.recordAttempts(this.options.holder, records)();
      for (const r of records) this.held.delete(r.deliveryId);
      // Unrecorded, each delivery is due again when its lease ends: sent again (at least once).
      if (E.isLeft(recorded))
        this.storeProblem(
          recorded.left.cause,
          'could not record webhook attempts; those deliveries are retried once their lease ends',
        );
    })().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  /** Store trouble is logged once every 10 s at most (an outage would otherwise log every poll). */
  private storeProblem(cause: unknown, message: string): void {
    const now = Date.now();
    if (now - this.lastStoreWarning < 10_000) return;
    this.lastStoreWarning = now;
    this.options.logger?.warn({ err: cause }, message);
  }
}
