import client from 'prom-client';
import type { StoreObserver } from '../ports/store-observer.js';
import type { OutboxBacklog } from '../ports/webhook-store.js';
import { DURATION_BUCKETS, RouteTable, routeHistogram } from './route-table.js';

/**
 * The Prometheus metrics of docs/guides/operations.md, with prom-client. Labels are bounded:
 * HTTP method, route template (`/plants/{id}`, never a raw path; `unmatched` for a 404 or 405),
 * status, and fixed words (reasons, outcomes). No token, secret, id or plant data in any label.
 * Each app gets its own registry (tests build many); with WORKERS > 1 the primary aggregates the
 * workers' registries (prom-client's AggregatorRegistry, see ops/metrics-server.ts).
 */
export interface Metrics {
  readonly registry: client.Registry;
  /** For the store adapters: group-commit batches (SQLite), pool waits (PostgreSQL). */
  readonly store: StoreObserver;
  /** A request entered the app. */
  requestStarted(): void;
  /** A request was answered. `errorTag`: the tag of the error answered, if any. */
  requestFinished(request: FinishedRequest): void;
  /** The rate limiter's store failed a check; the request was served unchecked (fail open). */
  rateLimitStoreError(backend: string): void;
  /** One webhook attempt ended: delivered, to be retried, or failed for good (a 410 included). */
  webhookAttempt(outcome: 'delivered' | 'retry' | 'failed'): void;
  /**
   * Tracing on: `count` finished spans left the export queue — `exported`, `queue_full` (dropped:
   * the exporter fell behind), or the error that failed their export.
   */
  traceSpans(outcome: string, count: number): void;
  /** Where the outbox backlog gauges read from at each scrape (undefined: the store did not answer). */
  watchOutbox(read: () => Promise<OutboxBacklog | undefined>): void;
  /** The change feed: open streams and waiting long polls (read when scraped), changes sent, delays. */
  readonly changeFeed: ChangeFeedObserver;
  /** POST /plants/batch decoded an array of `length` plants (a histogram, never a label). */
  plantArray(length: number): void;
}

export interface FinishedRequest {
  readonly method: string;
  /** The route template, or undefined when no route matched. */
  readonly route: string | undefined;
  readonly status: number;
  readonly seconds: number;
  readonly errorTag: string | undefined;
  /** True for an idempotent replay (`Idempotent-Replayed: true`). */
  readonly replayed: boolean;
}

const authReasons: Readonly<Record<string, string>> = {
  MissingCredentials: 'missing_credentials',
  InvalidAuthRequest: 'invalid_request',
  InvalidToken: 'invalid_token',
  InsufficientScope: 'insufficient_scope',
  AuthUnavailable: 'unavailable',
};

export interface ChangeFeedObserver {
  /** How many streams and long polls are open now, read when scraped. */
  watchOpen(read: () => number): void;
  /** `count` changes written to one stream or long poll, the oldest committed `delaySeconds` ago. */
  sent(count: number, delaySeconds: number): void;
}

export interface MetricsOptions {
  /** `sqlite` or `postgres`: a label on the store series. */
  readonly store: 'sqlite' | 'postgres';
  /** Collect Node's process metrics (CPU, memory, event-loop lag, GC…); default true. */
  readonly processMetrics?: boolean;
}

export const createMetrics = ({ store, processMetrics = true }: MetricsOptions): Metrics => {
  const registry = new client.Registry();
  if (processMetrics) client.collectDefaultMetrics({ register: registry });

  // The per-request series are counted on the request path in plain numbers (a request costs two
  // map lookups and a few additions) and handed to prom-client when it is scraped: counters and the
  // gauge through their `collect` hooks, the duration histogram as a registry metric of its own.
  // prom-client's labelled calls hash the label values on every call, which cost a measurable share
  // of a `GET /plants/{id}` at 50 connections (apps/bench, the side-by-side runs of `+metrics`).
  const routes = new RouteTable(DURATION_BUCKETS);
  let active = 0;
  new client.Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
    collect() {
      routes.drainCounts((method, route, status, n) => this.inc({ method, route, status: String(status) }, n));
    },
  });
  registry.registerMetric(
    routeHistogram(
      'http_request_duration_seconds',
      'Time from a request entering the app to its answer, by method and route template.',
      routes,
    ),
  );
  new client.Gauge({
    name: 'http_requests_in_flight',
    help: 'Requests being handled now.',
    registers: [registry],
    collect() {
      this.set(active);
    },
  });
  const storeErrors = new client.Counter({
    name: 'plant_store_store_errors_total',
    help: 'Requests answered 503 because the store (or the token lookup in it) did not answer.',
    labelNames: ['store'] as const,
    registers: [registry],
  });
  const authFailures = new client.Counter({
    name: 'plant_store_auth_failures_total',
    help: 'Requests refused by authentication, by reason.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const rateLimited = new client.Counter({
    name: 'plant_store_rate_limited_total',
    help: 'Requests answered 429.',
    registers: [registry],
  });
  const replays = new client.Counter({
    name: 'plant_store_idempotent_replays_total',
    help: 'Creates answered from a saved outcome of the same Idempotency-Key.',
    registers: [registry],
  });
  const limiterErrors = new client.Counter({
    name: 'plant_store_rate_limit_store_errors_total',
    help: 'Rate-limit checks that failed because the limiter store did not answer; those requests were served unchecked.',
    labelNames: ['backend'] as const,
    registers: [registry],
  });
  const batches = new client.Histogram({
    name: 'plant_store_sqlite_group_commit_batch_size',
    help: 'Writes per SQLite group-commit transaction.',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
    registers: [registry],
  });
  const poolWaits = new client.Histogram({
    name: 'plant_store_postgres_pool_wait_seconds',
    help: 'Time an operation waited for a free PostgreSQL connection slot.',
    buckets: [0, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  });

  const attempts = new client.Counter({
    name: 'plant_store_webhook_attempts_total',
    help: 'Webhook attempts by outcome: delivered, retry (failed, tried again later), failed (for good, or the endpoint answered 410).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['delivered', 'retry', 'failed'] as const) attempts.labels(outcome).inc(0);
  let readOutbox: () => Promise<OutboxBacklog | undefined> = () => Promise.resolve({ pending: 0, oldestAgeSeconds: 0 });
  // One store read per scrape serves both gauges.
  let outboxRead: Promise<OutboxBacklog | undefined> | undefined;
  const outbox = (): Promise<OutboxBacklog | undefined> => {
    outboxRead ??= readOutbox().finally(() => {
      setImmediate(() => {
        outboxRead = undefined;
      });
    });
    return outboxRead;
  };
  new client.Gauge({
    name: 'plant_store_webhook_outbox_pending',
    help: 'Webhook deliveries not yet ended: due, waiting for a retry, or being attempted (all instances on this store).',
    registers: [registry],
    // Every worker reads the same store: with WORKERS > 1 the figure is the store's, not a sum.
    aggregator: 'max',
    async collect() {
      const backlog = await outbox();
      if (backlog !== undefined) this.set(backlog.pending);
    },
  });
  new client.Gauge({
    name: 'plant_store_webhook_outbox_oldest_age_seconds',
    help: 'Age of the oldest webhook delivery not yet ended, from its commit; 0 when none.',
    registers: [registry],
    aggregator: 'max',
    async collect() {
      const backlog = await outbox();
      if (backlog !== undefined) this.set(backlog.oldestAgeSeconds);
    },
  });

  const traceSpans = new client.Counter({
    name: 'plant_store_trace_spans_total',
    help: 'Finished spans by what became of them: exported, dropped with the export queue full (queue_full), or lost to a failed export (the error).',
    labelNames: ['outcome'],
    registers: [registry],
  });

  let openFollowers = (): number => 0;
  new client.Gauge({
    name: 'plant_store_change_streams_open',
    help: 'Change streams and waiting long polls this process holds (GET /plants/changes).',
    registers: [registry],
    collect() {
      this.set(openFollowers());
    },
  });
  const changesSent = new client.Counter({
    name: 'plant_store_changes_sent_total',
    help: 'Changes written to change streams and long polls (one per change and reader).',
    registers: [registry],
  });
  const changeDelay = new client.Histogram({
    name: 'plant_store_change_delay_seconds',
    help: 'From the commit of a change to its write to a stream or long poll; one per write, of the oldest change in it.',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });

  const arrays = new client.Histogram({
    name: 'plant_store_batch_plants',
    help: 'Plants per array of POST /plants/batch (arrays that decoded, whatever their answer).',
    buckets: [1, 10, 50, 100, 250, 500, 1000],
    registers: [registry],
  });

  return {
    registry,
    plantArray: (length) => arrays.observe(length),
    changeFeed: {
      watchOpen: (read) => {
        openFollowers = read;
      },
      sent: (count, delaySeconds) => {
        changesSent.inc(count);
        changeDelay.observe(delaySeconds);
      },
    },
    webhookAttempt: (outcome) => attempts.labels(outcome).inc(),
    traceSpans: (outcome, count) => traceSpans.labels(outcome).inc(count),
    watchOutbox: (read) => {
      readOutbox = read;
    },
    store: {
      batch: (size) => batches.observe(size),
      poolWait: (seconds) => poolWaits.observe(seconds),
    },
    requestStarted: () => {
      active++;
    },
    rateLimitStoreError: (backend) => limiterErrors.labels(backend).inc(),
    requestFinished: ({ method, route, status, seconds, errorTag, replayed }) => {
      active--;
      routes.record(method, route ?? 'unmatched', status, seconds);
      if (replayed) replays.inc();
      if (errorTag === undefined) return;
      if (errorTag === 'StoreUnavailable' || errorTag === 'AuthUnavailable') storeErrors.labels(store).inc();
      if (errorTag === 'RateLimited') rateLimited.inc();
      const reason = authReasons[errorTag];
      if (reason !== undefined) authFailures.labels(reason).inc();
    },
  };
};
