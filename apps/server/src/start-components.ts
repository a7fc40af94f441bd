import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { AggregatorRegistry } from 'prom-client';
import { openRateLimiter } from './adapters/open-rate-limiter.js';
import type { Config } from './config.js';
import { logAcceptErrors } from './http/server.js';
import { startKeyPurge } from './idempotency/key-purge.js';
import { startPurge } from './ops/periodic-purge.js';
import type { Lifecycle } from './lifecycle.js';
import type { Logger } from './logger.js';
import type { Metrics } from './ops/metrics.js';
import { startMetricsServer } from './ops/metrics-server.js';
import type { Store } from './ports/store.js';
import { startConfiguredTracing } from './tracing/start.js';
import type { Tracing } from './tracing/tracing.js';
import type { RateLimiter, RateLimiterHooks } from './rate-limit/rate-limiter.js';
import { step } from './start-step.js';
import { firstRunToken } from './tokens/first-run-token.js';
import { createJwtAuthenticator } from './tokens/jwt-authenticator.js';
import type { Authenticator } from './tokens/principal.js';
import { createTokenAuthenticator } from './tokens/token-authenticator.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { startRetentionPurge } from './webhooks/retention-purge.js';
import { webhookUserAgent } from './webhooks/user-agent.js';
import { WebhookSender } from './webhooks/webhook-sender.js';

// The pieces main.ts starts, one function each. Each one that leaves something running adds its
// close to the lifecycle as soon as it has started; a failure becomes the fatal line of its step.

/** How often expired idempotency keys and ended webhook deliveries are looked for (each look forgets them in small steps). */
const PURGE_INTERVAL_MS = 60_000;

/**
 * Tracing (OTEL_*), when configured. Closed last: the spans of the drain and of the store's close
 * are exported too, within a bound.
 */
export const startTracing = async (
  config: Config,
  logger: Logger,
  metrics: Metrics | undefined,
  lifecycle: Lifecycle,
): Promise<Tracing | undefined> => {
  const tracingConfig = config.tracing;
  if (tracingConfig === undefined) return undefined;
  const tracing = await step('could not start tracing', () => startConfiguredTracing(tracingConfig, logger, metrics));
  lifecycle.add('tracing', () => tracing.shutdown(Math.min(2_000, config.shutdownTimeoutMs)));
  return tracing;
};

/**
 * What the rate limiter reports besides its own throttled warning: each request refused (429) and
 * each check its store failed (the request was served unchecked). The metrics hook in here.
 */
export const rateLimitHooks = (logger: Logger, metrics: Metrics | undefined): Required<RateLimiterHooks> => ({
  onLimited: (backend) => logger.debug({ rateLimitStore: backend }, 'rate limited'),
  onStoreError: (backend) => {
    metrics?.rateLimitStoreError(backend);
    logger.debug({ rateLimitStore: backend }, 'rate limit check failed; served unchecked');
  },
});

/**
 * The authenticator the configuration asks for and, when the store holds no token and none is
 * configured, the first-run token to print once listening. With WORKERS=N only the first worker
 * considers one (the others would race it for nothing).
 */
export const prepareAuthentication = async (
  config: Config,
  store: Store,
  workerId: number | undefined,
): Promise<{ readonly auth: Authenticator; readonly newToken: string | undefined }> => {
  const wantsFirstRunToken = config.auth.mode === 'tokens' && config.auth.seedToken === undefined;
  const newToken =
    wantsFirstRunToken && (workerId === undefined || workerId === 1) ? await firstRunToken(store.tokens) : undefined;
  const auth =
    config.auth.mode === 'jwt'
      ? createJwtAuthenticator(config.auth)
      : createTokenAuthenticator(store.tokens, { seedToken: config.auth.seedToken });
  return { auth, newToken };
};

/** The rate limiter (RATE_LIMIT_PER_SECOND), when configured. */
export const startRateLimiter = async (
  config: Config,
  logger: Logger,
  metrics: Metrics | undefined,
  lifecycle: Lifecycle,
): Promise<RateLimiter | undefined> => {
  const rateLimit = config.rateLimit;
  if (rateLimit === undefined) return undefined;
  const limiter = await step(
    'could not open the rate limiter',
    () =>
      openRateLimiter({
        config: rateLimit,
        storeLocation: config.storeLocation,
        logger,
        ...rateLimitHooks(logger, metrics),
      }),
    { rateLimitStore: rateLimit.store },
  );
  // It has nothing to flush (counters are written as they change): failing to close is only worth a warning.
  lifecycle.add('rate limiter', () =>
    limiter.close().catch((err: unknown) => logger.warn({ err }, 'could not close the rate limiter')),
  );
  return limiter;
};

/** The background purges of expired idempotency keys, ended webhook deliveries and expired changes. */
export const startPurges = (config: Config, store: Store, logger: Logger, lifecycle: Lifecycle): void => {
  const retentionPurge = startRetentionPurge(store.webhooks, {
    retentionMs: config.webhooks.retentionDays * 86_400_000,
    intervalMs: PURGE_INTERVAL_MS,
    logger,
  });
  lifecycle.add('webhook retention purge', () => retentionPurge.stop());
  const keyPurge = startKeyPurge(store.plants, { intervalMs: PURGE_INTERVAL_MS, logger });
  lifecycle.add('idempotency key purge', () => keyPurge.stop());
  // The change log's retention (CHANGES_RETENTION): the oldest changes, a step at a time.
  const changePurge = startPurge(
    (limit) =>
      pipe(
        store.changes.forget(Date.now() - config.changesRetentionMs, limit),
        TE.map((forgotten) => ({ more: forgotten === limit })),
      ),
    { what: 'expired changes', intervalMs: PURGE_INTERVAL_MS, logger },
  );
  lifecycle.add('change log purge', () => changePurge.stop());
};

/** The outbox backlog, read by the metrics when scraped. */
export const watchOutbox = (metrics: Metrics, store: Store): void =>
  metrics.watchOutbox(async () => {
    const backlog = await store.webhooks.backlog()();
    return E.isRight(backlog) ? backlog.right : undefined;
  });

/**
 * The metrics listener (METRICS_PORT), when configured. A worker of WORKERS=N has none: the primary
 * serves the port and asks each worker for its figures (prom-client's cluster mode).
 */
export const startMetricsListener = async (
  config: Config,
  metrics: Metrics | undefined,
  isWorker: boolean,
  logger: Logger,
  lifecycle: Lifecycle,
): Promise<void> => {
  if (metrics === undefined || config.metrics === undefined) return;
  if (isWorker) {
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([metrics.registry]);
    return;
  }
  const { host, port } = config.metrics;
  const metricsServer = await step('could not listen for metrics', () =>
    startMetricsServer(metrics.registry, host, port),
  );
  logger.info({ url: metricsServer.url }, 'metrics listening');
  lifecycle.add('metrics server', () => metricsServer.close());
};

/** Requests received so far: the dispatcher yields to requests when they keep the process busy. */
export const countRequests = (server: Server): (() => number) => {
  let received = 0;
  server.on('request', () => {
    received += 1;
  });
  return () => received;
};

/** Listens; rejects with what kept the server from listening. Errors after that are failed accepts (logAcceptErrors). */
export const listen = (server: Server, port: number, host: string, logger: Logger): Promise<void> =>
  new Promise((resolve, reject) => {
    let listening = false;
    const acceptError = logAcceptErrors(logger);
    server.on('error', (err: NodeJS.ErrnoException) => (listening ? acceptError(err) : reject(err)));
    server.listen(port, host, () => {
      listening = true;
      resolve();
    });
  });

/**
 * The webhook dispatcher and its sender, started. Stopping it lets the attempts in flight finish
 * within the shutdown bound, or hands them back to the store for another instance or the next start.
 */
export const startDispatcher = (
  config: Config,
  store: Store,
  logger: Logger,
  metrics: Metrics | undefined,
  tracing: Tracing | undefined,
  requestsReceived: () => number,
  lifecycle: Lifecycle,
): WebhookDispatcher => {
  const { webhooks } = config;
  const sender = new WebhookSender({
    timeoutMs: webhooks.timeoutMs,
    policy: { allowHttp: webhooks.allowHttp, allowPrivate: webhooks.allowPrivate },
  });
  lifecycle.add('webhook sender', () => sender.close());
  const dispatcher = new WebhookDispatcher({
    store: store.webhooks,
    sender,
    holder: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    schedule: webhooks.retrySchedule,
    timeoutMs: webhooks.timeoutMs,
    userAgent: webhookUserAgent(),
    requestsReceived,
    logger,
    tracing,
    ...(metrics === undefined
      ? {}
      : { onAttempt: (kind: 'delivered' | 'retry' | 'failed') => metrics.webhookAttempt(kind) }),
  });
  dispatcher.start();
  lifecycle.add('webhook dispatcher', async () => {
    const dispatched = await dispatcher.stop(Math.max(0, Math.min(config.shutdownTimeoutMs, webhooks.timeoutMs)));
    logger.info({ outcome: dispatched }, 'webhook dispatcher stopped');
  });
  return dispatcher;
};

/** Where the server listens, as a URL (with PORT=0, the port it got). */
export const listenUrl = (server: Server, config: Config): string => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${port}`;
};

/** The `listening` line's fields: where, how it authenticates, which store; never a secret (REDIS_URL may hold a password). */
export const listeningFields = (config: Config, url: string): object => ({
  url,
  auth: config.auth.mode,
  store: config.storeLocation.kind,
  ...(config.rateLimit === undefined
    ? {}
    : {
        rateLimit: {
          perSecond: config.rateLimit.perSecond,
          burst: config.rateLimit.burst,
          store: config.rateLimit.store,
        },
      }),
});
