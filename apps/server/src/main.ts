#!/usr/bin/env node
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import * as E from 'fp-ts/lib/Either.js';
import pino from 'pino';
import { AggregatorRegistry } from 'prom-client';
import { openRateLimiter } from './adapters/open-rate-limiter.js';
import { openStore } from './adapters/open-store.js';
import { createApp } from './app.js';
import { startKeyPurge } from './idempotency/key-purge.js';
import { isShutdownMessage, startPrimary } from './cluster-primary.js';
import { configWarnings, decodeConfig, type Config } from './config.js';
import { createServer, limitConnections, logAcceptErrors } from './http/server.js';
import { createLifecycle, type Lifecycle } from './lifecycle.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics, type Metrics } from './ops/metrics.js';
import { startMetricsServer } from './ops/metrics-server.js';
import type { Store } from './ports/store.js';
import { startRateLimitClusterMaster } from './rate-limit/local-backends.js';
import type { RateLimiter, RateLimiterHooks } from './rate-limit/rate-limiter.js';
import { drainServer, type ShutdownOutcome } from './shutdown.js';
import { firstRunToken, printFirstRunToken } from './tokens/first-run-token.js';
import { createJwtAuthenticator } from './tokens/jwt-authenticator.js';
import type { Authenticator } from './tokens/principal.js';
import { createTokenAuthenticator } from './tokens/token-authenticator.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { startRetentionPurge } from './webhooks/retention-purge.js';
import { webhookUserAgent } from './webhooks/user-agent.js';
import { WebhookSender } from './webhooks/webhook-sender.js';

/** How often expired idempotency keys and ended webhook deliveries are looked for (each look forgets them in small steps). */
const PURGE_INTERVAL_MS = 60_000;

/** Exits after the log is flushed (pino's asynchronous destination may hold buffered lines). */
const exit = (logger: Logger, code: number): void => {
  logger.flush(() => process.exit(code));
  setTimeout(() => process.exit(code), 2_000).unref();
};

/**
 * What the rate limiter reports besides its own throttled warning: each request refused (429) and
 * each check its store failed (the request was served unchecked). The metrics hook in here.
 */
const rateLimitHooks = (logger: Logger, metrics: Metrics | undefined): Required<RateLimiterHooks> => ({
  onLimited: (backend) => logger.debug({ rateLimitStore: backend }, 'rate limited'),
  onStoreError: (backend) => {
    metrics?.rateLimitStoreError(backend);
    logger.debug({ rateLimitStore: backend }, 'rate limit check failed; served unchecked');
  },
});

const createAuthenticator = (config: Config, store: Store): Authenticator =>
  config.auth.mode === 'jwt'
    ? createJwtAuthenticator(config.auth)
    : createTokenAuthenticator(store.tokens, { seedToken: config.auth.seedToken });

/** Listens; rejects with what kept the server from listening. Errors after that are failed accepts (logAcceptErrors). */
const listen = (server: Server, port: number, host: string, logger: Logger): Promise<void> =>
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
const startDispatcher = (
  config: Config,
  store: Store,
  logger: Logger,
  metrics: Metrics | undefined,
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

/**
 * Opens the store, prepares authentication and serves: the single process, or one worker of
 * WORKERS=N. Each component joins the lifecycle as it starts; every way out (a failed start, a
 * shutdown request) goes through closeAndExit, which closes them newest first: the HTTP listener
 * drains, then the dispatcher, the metrics listener, the purges, the rate limiter and the store.
 */
const serve = async (config: Config, logger: Logger): Promise<void> => {
  const lifecycle = createLifecycle(logger);
  const worker = cluster.isWorker ? cluster.worker : undefined;
  /** From the first shutdown request on: /readyz answers 503 and responses say `Connection: close`. */
  let shuttingDown = false;
  /** How the HTTP listener's drain ended ('drained' when it never listened). */
  let outcome: ShutdownOutcome = 'drained';
  let exiting = false;

  /** The one way out: closes what started, newest first, then `end` says why and gives the exit code. */
  const closeAndExit = (end: (closed: boolean) => number): void => {
    if (exiting) return;
    exiting = true;
    void lifecycle.closeAll().then((closed) => exit(logger, end(closed)));
  };
  const fail = (msg: string, err: unknown, fields: object = {}): void =>
    closeAndExit(() => {
      logger.fatal({ err, ...fields }, msg);
      return 1;
    });
  const stop = (): void =>
    closeAndExit((closed) => {
      if (!closed) {
        logger.fatal('shutdown failed');
        return 1;
      }
      logger.info({ outcome }, 'stopped');
      return outcome === 'drained' ? 0 : 1;
    });

  /** Until the server listens, a request is noted and start-up stops at its next step. */
  let listening = false;
  let stopRequested = false;
  const requestShutdown = (reason: NodeJS.Signals | 'ipc'): void => {
    if (stopRequested) {
      // Already stopping: the same request again (the primary's IPC request and the terminal's
      // SIGINT both come from one Ctrl-C, in either order).
      logger.debug({ reason }, 'shutdown already in progress');
      return;
    }
    stopRequested = true;
    shuttingDown = true;
    if (!listening) {
      // Asked to stop before the server exists (a worker told by its primary while starting).
      logger.info({ reason }, 'shutdown requested while starting');
      return;
    }
    logger.info({ reason, timeoutMs: config.shutdownTimeoutMs }, 'shutting down');
    logger.flush();
    stop();
  };
  if (worker !== undefined) {
    // The primary's graceful shutdown request. Not a signal: a worker already draining (it got the
    // terminal's SIGINT itself) takes it as the same request, never as a second "exit at once".
    process.on('message', (message: unknown) => {
      if (isShutdownMessage(message)) requestShutdown('ipc');
    });
  }

  const metrics = config.metrics === undefined ? undefined : createMetrics({ store: config.storeLocation.kind });
  // The store wakes the dispatcher after a commit that wrote deliveries (SQLite; PostgreSQL is polled).
  let wakeDispatcher = (): void => undefined;
  let store: Store;
  try {
    store = await openStore(config.storeLocation, {
      synchronous: config.sqliteSynchronous,
      idempotencyTtlSeconds: config.idempotencyTtlSeconds,
      onEvents: () => wakeDispatcher(),
      logger,
      ...config.postgres,
      ...(metrics === undefined ? {} : { observer: metrics.store }),
    });
  } catch (err) {
    return fail('could not open the store', err);
  }
  lifecycle.add('store', () => store.close());

  let newToken: string | undefined;
  let auth: Authenticator;
  try {
    // With WORKERS=N only the first worker considers it (the others would race it for nothing).
    const wantsFirstRunToken = config.auth.mode === 'tokens' && config.auth.seedToken === undefined;
    if (wantsFirstRunToken && (worker === undefined || worker.id === 1)) newToken = await firstRunToken(store.tokens);
    auth = createAuthenticator(config, store);
  } catch (err) {
    return fail('could not prepare authentication', err);
  }
  if (stopRequested) return stop();

  let rateLimiter: RateLimiter | undefined;
  if (config.rateLimit !== undefined) {
    try {
      rateLimiter = await openRateLimiter({
        config: config.rateLimit,
        storeLocation: config.storeLocation,
        logger,
        ...rateLimitHooks(logger, metrics),
      });
    } catch (err) {
      return fail('could not open the rate limiter', err, { rateLimitStore: config.rateLimit.store });
    }
    const limiter = rateLimiter;
    // It has nothing to flush (counters are written as they change): failing to close is only worth a warning.
    lifecycle.add('rate limiter', () =>
      limiter.close().catch((err: unknown) => logger.warn({ err }, 'could not close the rate limiter')),
    );
    if (stopRequested) return stop();
  }

  const retentionPurge = startRetentionPurge(store.webhooks, {
    retentionMs: config.webhooks.retentionDays * 86_400_000,
    intervalMs: PURGE_INTERVAL_MS,
    logger,
  });
  lifecycle.add('webhook retention purge', () => retentionPurge.stop());
  const keyPurge = startKeyPurge(store.plants, { intervalMs: PURGE_INTERVAL_MS, logger });
  lifecycle.add('idempotency key purge', () => keyPurge.stop());
  metrics?.watchOutbox(async () => {
    const backlog = await store.webhooks.backlog()();
    return E.isRight(backlog) ? backlog.right : undefined;
  });

  const app = createApp({
    store,
    auth,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    isShuttingDown: () => shuttingDown,
    rateLimiter,
    corsOrigins: config.corsOrigins,
    metrics,
  });
  if (metrics !== undefined && config.metrics !== undefined) {
    if (worker !== undefined) {
      // The primary serves the port and asks each worker for its figures (prom-client's cluster mode).
      new AggregatorRegistry();
      AggregatorRegistry.setRegistries([metrics.registry]);
    } else {
      let metricsServer: { readonly url: string; close(): Promise<void> };
      try {
        metricsServer = await startMetricsServer(metrics.registry, config.metrics.host, config.metrics.port);
      } catch (err) {
        return fail('could not listen for metrics', err);
      }
      logger.info({ url: metricsServer.url }, 'metrics listening');
      lifecycle.add('metrics server', () => metricsServer.close());
      if (stopRequested) return stop();
    }
  }

  const server = createServer(app, logger, {
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
  });
  limitConnections(server, logger);
  // Counted for the dispatcher, which yields to requests when they keep the process busy.
  let requestsReceived = 0;
  server.on('request', () => {
    requestsReceived += 1;
  });
  const dispatcher = startDispatcher(config, store, logger, metrics, () => requestsReceived, lifecycle);
  wakeDispatcher = () => dispatcher.wake();
  // Signals are counted, not requests: the second signal this process gets exits at once.
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals === 1) return requestShutdown(signal);
    logger.warn({ signal }, 'second signal: exiting at once');
    exit(logger, 1);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    await listen(server, config.port, config.host, logger);
  } catch (err) {
    return fail('could not listen', err);
  }
  lifecycle.add('HTTP listener', async () => {
    outcome = await drainServer({
      server,
      logger,
      timeoutMs: config.shutdownTimeoutMs,
      beginShutdown: () => {
        shuttingDown = true;
      },
    });
  });
  listening = true;

  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  logger.info(
    {
      url,
      auth: config.auth.mode,
      store: config.storeLocation.kind,
      // Never the REDIS_URL: it may carry a password.
      ...(config.rateLimit === undefined
        ? {}
        : {
            rateLimit: {
              perSecond: config.rateLimit.perSecond,
              burst: config.rateLimit.burst,
              store: config.rateLimit.store,
            },
          }),
    },
    'listening',
  );
  // Request lines go out in chunks (logger.ts); the start-up lines at once, for whoever waits for them.
  logger.flush();
  if (newToken !== undefined) printFirstRunToken(newToken, url);
  if (stopRequested) stop();
};

const main = async (): Promise<void> => {
  const decoded = decodeConfig(process.env);
  if (E.isLeft(decoded)) {
    process.stderr.write(`plant-store: ${decoded.left}\n`);
    process.exit(1);
  }
  const config = decoded.right;

  // Said once, by the single process or the primary (workers share its environment).
  const warn = (logger: Logger): void => {
    for (const warning of configWarnings(process.env)) logger.warn(warning);
  };

  if (config.workers === 1 || cluster.isWorker) {
    const logger = createLogger({ level: config.logLevel });
    if (cluster.isPrimary) warn(logger);
    return serve(config, cluster.isWorker ? logger.child({ role: 'worker', worker: cluster.worker?.id }) : logger);
  }

  // WORKERS=N: this process only supervises; every worker opens its own store and pool. Its few
  // lines are written synchronously (unless pretty-printed), so that the last ones cannot be
  // overtaken at exit by an asynchronous write still in flight.
  const logger = createLogger({
    level: config.logLevel,
    ...(process.stdout.isTTY === true ? {} : { destination: pino.destination({ dest: 1, sync: true }) }),
  }).child({ role: 'primary' });
  warn(logger);
  // Its own components (the metrics listener) close once every worker has exited.
  const lifecycle = createLifecycle(logger);
  // RATE_LIMIT_STORE=cluster: the workers' counters live here, asked over IPC.
  if (config.rateLimit?.store === 'cluster') startRateLimitClusterMaster();
  const primary = startPrimary({
    cluster,
    workers: config.workers,
    logger,
    exit: (code) => void lifecycle.closeAll().then((closed) => exit(logger, closed ? code : 1)),
  });
  if (config.metrics !== undefined) {
    const aggregator = new AggregatorRegistry();
    startMetricsServer(
      { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() },
      config.metrics.host,
      config.metrics.port,
    ).then(
      (started) => {
        logger.info({ url: started.url }, 'metrics listening (all workers)');
        lifecycle.add('metrics server', () => started.close());
      },
      (err: unknown) => {
        logger.fatal({ err }, 'could not listen for metrics');
        primary.shutdown('SIGTERM');
      },
    );
  }
  process.on('SIGTERM', primary.shutdown);
  process.on('SIGINT', primary.shutdown);
};

await main();
